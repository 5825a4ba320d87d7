"""Comparisons: every number a report shows, as one frozen object with its JSON.

:mod:`.predictions` (``compare_models``, ``ModelComparison``), :mod:`.prediction_conclusions`
(its sentences), :mod:`.items` (``compare_items``, ``ItemComparison``) and :mod:`.crossval` (cross-validated
predictions and their designs).

May import: :mod:`precmp_lib._lib`, :mod:`precmp_lib.engine`, :mod:`precmp_lib.stats`,
:mod:`precmp_lib.sources`.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['crossval', 'items', 'prediction_conclusions', 'predictions'])
