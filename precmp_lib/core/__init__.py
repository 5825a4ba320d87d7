"""The count types and label coding: what the tests start from, with no backend behind it.

Owns: :mod:`.labels` and :mod:`.factorize` (label arrays and their class codes; the optional C
module ``_native``), :mod:`.counts` (joint confusion counts, pattern counts and precision
moments), :mod:`.clusters` (cluster sums and class profiles, and the layout of their packed
form), :mod:`.predictions` (:class:`~precmp_lib.core.predictions.Counts`, what every engine
returns for the predictions route) and :mod:`.items`
(:class:`~precmp_lib.core.items.ItemSums`, the same for the items route). Nothing here reads a
file, runs a query or holds SQL text: the engines build these types where the rows live, and
the tests are pure functions of them.

May import: :mod:`precmp_lib._lib`, numpy, pandas; never an engine (DuckDB, Spark), a test, a
comparison, a view or the course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['clusters', 'counts', 'factorize', 'items', 'labels', 'predictions'])
