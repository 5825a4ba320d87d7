"""The engine: a file, DataFrame, DuckDB relation or Spark DataFrame becomes sufficient statistics.

One pass over the rows, where they live, gives the counts and sums every test needs (see
:mod:`precmp_lib.engine.predictions` for the rules the three engines share). The rooms follow the
data: :mod:`.dispatch` (one dispatcher for every route: which engine reads which source, the
source opened once for the route's counters), :mod:`.base` (what a count is asked for and what
comes back), :mod:`.files` (paths, CSV headers, Parquet schemas, drift), :mod:`.labels`,
:mod:`.factorize` and :mod:`.dictionary` (raw values to class labels and codes; the optional C
module ``_native``), :mod:`.sql` (every query's text, with no user text in it),
:mod:`.numpy_engine`, :mod:`.duckdb_engine` and :mod:`.spark_engine`, :mod:`.finish` (rows to
:class:`~precmp_lib.engine.base.Counts`), :mod:`.predictions` (the predictions route's counters:
``count_predictions``), :mod:`.counts` and :mod:`.clusters` (pattern counts, moments and cluster
sums) and :mod:`.items` (evaluation items: ``count_items``, ``ItemSums``).

May import: :mod:`precmp_lib._lib`, numpy, pandas, and DuckDB and pyspark where they run;
never a test, a comparison, a view or the course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['base', 'clusters', 'counts', 'dictionary', 'dispatch', 'duckdb_engine', 'factorize', 'files', 'finish', 'items', 'labels', 'numpy_engine', 'predictions', 'spark_engine', 'sql'])
