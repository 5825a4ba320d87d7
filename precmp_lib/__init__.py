"""precmp: statistical comparison of classifiers.

Tests for two or many classifiers on one test set (McNemar, Cochran's Q, per-class precision
with GS, weighted GS, GEE Wald and relative precision), on resampled scores (Nadeau–Bengio,
5x2cv) and over many data sets (Wilcoxon, Friedman, Nemenyi), with combination of dependent
p-values, the prevalence update of precision and replicability.

>>> import precmp_lib as pc
>>> pc.mcnemar([[9945, 25], [15, 15]], method="chi2").pvalue  # Raschka's 25:15 example
0.11384...
"""

from .accuracy import *  # noqa: F403
from .bayes import *  # noqa: F403
from .bayesian import *  # noqa: F403
from .combine import *  # noqa: F403
from .comparison import *  # noqa: F403
from .contingency import *  # noqa: F403
from .counts import *  # noqa: F403
from .crossval import *  # noqa: F403
from .data import *  # noqa: F403
from .deep import *  # noqa: F403
from .engines import *  # noqa: F403
from .multiple import *  # noqa: F403
from .precision import *  # noqa: F403
from .ranks import *  # noqa: F403
from .replicability import *  # noqa: F403
from .resampling import *  # noqa: F403
from .results import *  # noqa: F403
from .selection import *  # noqa: F403
from .simulate import *  # noqa: F403
from .validation import *  # noqa: F403

__version__ = "0.1.0"
