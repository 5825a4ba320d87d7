"""Statistical tests: pure functions of counts, cluster sums or score matrices.

Each module is one topic: :mod:`.contingency` (McNemar, Cochran's Q), :mod:`.allpairs` (every pair of many models from the sums matrices), :mod:`.accuracy`,
:mod:`.precision_cells`, :mod:`.precision` and :mod:`.precision_gee` (GS, GW, Wald, RP, GEE),
:mod:`.paired` (clustered paired tests on items), :mod:`.repeated` (items answered several
times), :mod:`.resampling` (corrected and 5x2cv t-tests), :mod:`.ranks` and :mod:`.posthoc` (Wilcoxon, Friedman, Nemenyi), :mod:`.bayesian`,
:mod:`.combine`, :mod:`.prevalence`, :mod:`.power`, :mod:`.replicability`,
:mod:`.auc` (DeLong's AUC, clustered and per fold; Brier score and log loss),
:mod:`.multiple` (adjusted p-values and Holm's levels), :mod:`.intervals` (Wilson,
Clopper–Pearson, mid-p and McNemar's dual interval) and :mod:`.results` (``TestResult``). No
file reading, no model fitting (scores of fitted models come from :mod:`precmp_lib.fitting`), no
plotting.

May import: :mod:`precmp_lib._lib` and :mod:`precmp_lib.core` (the count types and label
coding the tests start from), numpy, scipy, pandas; never an engine, a comparison, a view or the
course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['accuracy', 'allpairs', 'auc', 'bayesian', 'combine', 'contingency', 'intervals', 'multiple', 'paired', 'posthoc', 'power', 'precision', 'precision_cells', 'precision_gee', 'prevalence', 'ranks', 'repeated', 'replicability', 'resampling', 'results'])
