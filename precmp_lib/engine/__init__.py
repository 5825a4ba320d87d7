"""The engine: a file, DataFrame, DuckDB relation or Spark DataFrame becomes sufficient statistics.

One pass over the rows, where they live, gives the counts and sums every test needs (see
:mod:`precmp_lib.engine.predictions` for the rules the three engines share), as the count types
of :mod:`precmp_lib.core`. The rooms follow the data: :mod:`.dispatch` (one dispatcher for every
route: which engine reads which source, the source opened once for the route's counters),
:mod:`.base` (what a count is asked for), :mod:`.files` (paths, CSV headers, Parquet schemas,
drift), :mod:`.dictionary` (raw values to class labels), :mod:`.sql` (every query's text, with no
user text in it), :mod:`.numpy_engine`, :mod:`.duckdb_engine` and :mod:`.spark_engine`,
:mod:`.finish` (rows to :class:`~precmp_lib.core.predictions.Counts`), :mod:`.predictions` (the
predictions route's counters: ``count_predictions``) and :mod:`.items` (the items route's
counters: ``count_items``).

May import: :mod:`precmp_lib._lib`, :mod:`precmp_lib.core`, :mod:`precmp_lib.stats` (where a
backend needs a formula), numpy, pandas, and DuckDB and pyspark where they run; never a
comparison, a view or the course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['base', 'datasets', 'dictionary', 'dispatch', 'duckdb_engine', 'files', 'finish', 'items', 'numpy_engine', 'predictions', 'spark_engine', 'sql'])
