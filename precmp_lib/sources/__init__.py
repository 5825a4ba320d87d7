"""Readers that are not engines: prediction files in memory, evaluation logs, the UCI data sets.

:mod:`.predictions` (``read_predictions``), :mod:`.evallogs` (lm-evaluation-harness and
inspect logs to a tidy item frame) and :mod:`.datasets` (the registry, the download, the offline
mirror and the package's resources).

May import: :mod:`precmp_lib._lib`, :mod:`precmp_lib.core`, :mod:`precmp_lib.stats`,
:mod:`precmp_lib.engine`.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['datasets', 'evallogs', 'predictions'])
