"""Model fitting: scikit-learn estimators fitted on resamples, so that the tests have scores.

:mod:`.resampling` (``cv_scores``, ``paired_cv_scores``: estimators scored on identical splits,
``PairedScores``), :mod:`.selection` (nested cross-validation and holdout selection: each
algorithm tuned on its own grid, scored on folds that took no part in the choice) and
:mod:`.replicability` (``replicability_experiment``: the GS precision test repeated over sample
sizes and test-set proportions). The tests these scores go into are in :mod:`precmp_lib.stats`,
which fits nothing; scikit-learn is imported inside the functions that fit.

May import: :mod:`precmp_lib._lib`, the label coding, :mod:`precmp_lib.stats`, numpy, pandas,
scikit-learn; never a backend, a comparison, a view or the course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['replicability', 'resampling', 'selection'])
