"""What only the course needs: widgets, plots, the site, the paper's replication, deep models, simulations.

Nothing here is imported by ``import precmp_lib``; import it explicitly,
``from precmp_lib import course`` or ``from precmp_lib.course import paper``. The modules:

* :mod:`~precmp_lib.course.widgets`: the notebooks' widgets; each update is a plain function the
  tests call.
* :mod:`~precmp_lib.course.plots`: the notebooks' plots (McNemar, forest plots, power, the
  critical-difference diagram, combined p-values, the Bayes update, replicability), in the
  package's one palette (:mod:`precmp_lib.report.html`).
* :mod:`~precmp_lib.course.download`: the paper's UCI data sets fetched into the cache and
  checked (``make data``: ``python -m precmp_lib.course.download``).
* :mod:`~precmp_lib.course.site`: the course site (``make report``): every notebook rendered, the
  example reports, an index.
* :mod:`~precmp_lib.course.paper`: Gondara's Tables 4-11 and Figures 1-3 recomputed next to the
  printed values (notebook 11).
* :mod:`~precmp_lib.course.deep`: small convolutional networks on the digits for the
  deep-model notebook (09); PyTorch is optional.
* :mod:`~precmp_lib.course.simulate`: correlated paired predictions and power curves of the
  precision tests (notebooks 04, 05 and 11).
* :mod:`~precmp_lib.course.type1`: type-I error of the resampling tests and of combined
  p-values under a true null (notebooks 02 and 06).
* :mod:`~precmp_lib.course.scores`: cross-validated score matrices over the registry's data
  sets (notebook 03).
* :mod:`~precmp_lib.course.maps`: the course map, which test answers which question
  (notebook 00).
* :mod:`~precmp_lib.course.items_simulation`: simulated evaluation items in clusters and the
  type-I error of paired tests that ignore the clusters (notebook 13).

The names below are the ones the notebooks call; each module lists the rest of its public
names in its own ``__all__``. May import: everything in the package (it sits on top, beside the
command); nothing below imports it.
"""

from .deep import cnn_predictions, torch_available, train_digits_cnns
from .items_simulation import clustered_type1_error, simulate_items
from .maps import course_map_chart, course_map_table
from .paper import fit_paper_models, printed_values, side_by_side
from .scores import score_matrix
from .simulate import correlated_predictions, paired_cell_probabilities, power_curve
from .type1 import (
    Type1ErrorSimulation,
    combination_type1_error,
    swap_combination_type1_error,
    type1_error_simulation,
)

__all__ = [
    "Type1ErrorSimulation",
    "clustered_type1_error",
    "cnn_predictions",
    "combination_type1_error",
    "correlated_predictions",
    "course_map_chart",
    "course_map_table",
    "fit_paper_models",
    "paired_cell_probabilities",
    "power_curve",
    "printed_values",
    "score_matrix",
    "side_by_side",
    "simulate_items",
    "swap_combination_type1_error",
    "torch_available",
    "train_digits_cnns",
    "type1_error_simulation",
]
