"""Comparisons: every number a report shows, as one frozen object with its JSON, and the routes.

:mod:`.base` (``Comparison``: what every route's comparison is, its one JSON codec and its one
best-group rule), :mod:`.route` (the ``Route`` record and its command-line options as data),
:mod:`.routes` (``ROUTES``, the registry the command and the renderer read), one module per
route's command side (:mod:`.prediction_route`, :mod:`.item_route`), :mod:`.predictions`
(``compare_models``, ``ModelComparison``), :mod:`.prediction_conclusions` (its sentences),
:mod:`.items` (``compare_items``, ``ItemComparison``) and :mod:`.crossval` (cross-validated
predictions and their designs).

May import: :mod:`precmp_lib._lib`, :mod:`precmp_lib.core`, :mod:`precmp_lib.stats`,
:mod:`precmp_lib.engine`, :mod:`precmp_lib.sources`.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['base', 'crossval', 'item_route', 'items',
                                                   'prediction_conclusions', 'prediction_route',
                                                   'predictions', 'route', 'routes'])
