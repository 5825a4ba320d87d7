"""precmp: statistical comparison of classifiers.

Tests for two or many classifiers on one test set (McNemar, Cochran's Q, per-class precision
with GS, weighted GS, GEE Wald and relative precision), on resampled scores (Nadeau–Bengio,
5x2cv) and over many data sets (Wilcoxon, Friedman, Nemenyi), with combination of dependent
p-values, the prevalence update of precision and replicability; for models scored on the same
evaluation items, clustered paired tests (clustered McNemar, the cluster-robust paired
difference, equivalence), repeated answers per item, and power and sample size.

This namespace holds what a user comparing classifiers calls: the tests, :func:`compare_models`
:func:`compare_items` and :func:`compare_datasets` with the counting engine behind them, and the readers of data sets,
prediction files and evaluation logs. Everything else is reached through its subpackage, whose
folders follow the data flow:

* :mod:`precmp_lib.core`: the count types and label coding, with no backend (``Counts``);
* :mod:`precmp_lib.stats`: the tests, pure functions of those counts (for example
  :func:`precmp_lib.stats.paired.clustered_mcnemar_from_sums`);
* :mod:`precmp_lib.engine`: a file or frame becomes counts and sums (``count_predictions``);
* :mod:`precmp_lib.fitting`: scikit-learn models fitted on resamples, for the tests on scores
  (``cv_scores``, ``paired_cv_scores``, ``nested_cv_scores``);
* :mod:`precmp_lib.sources`: readers that are not engines (evaluation logs, data sets);
* :mod:`precmp_lib.compare`: ``ModelComparison`` and ``ItemComparison``, every number a page shows;
* :mod:`precmp_lib.report`: the report page and its figures;
* :mod:`precmp_lib.course`: what only the course needs (widgets, plots, the site, the paper's
  replication, the data sets' download).

Imports only go down that list (the course and the command may use everything).

>>> import precmp_lib as pc
>>> pc.mcnemar([[9945, 25], [15, 15]], method="chi2").pvalue  # Raschka's 25:15 example
0.11384...
"""

import importlib
from typing import Any

__version__ = "0.1.0"

# The public names and the modules they live in: each is imported on first use (PEP 562), so
# that a program which needs a few of them (the `precmp report` command: counting,
# compare_models, the report) does not import the rest.
_EXPORTS = {
    "cross_val_predictions": "compare.crossval",
    "gee_from_long": "compare.crossval",
    "ItemComparison": "compare.items",
    "compare_items": "compare.items",
    "compare_datasets": "compare.datasets",
    "ModelComparison": "compare.predictions",
    "compare_models": "compare.predictions",
    "Counts": "core.predictions",
    "PredictionFileError": "engine.base",
    "EngineError": "engine.dispatch",
    "count_predictions": "engine.predictions",
    "count_items": "engine.items",
    "cv_scores": "fitting.resampling",
    "paired_cv_scores": "fitting.resampling",
    "nested_cv_scores": "fitting.selection",
    "Dataset": "sources.datasets",
    "DatasetUnavailable": "sources.datasets",
    "list_datasets": "sources.datasets",
    "load_dataset": "sources.datasets",
    "read_eval_logs": "sources.evallogs",
    "Predictions": "sources.predictions",
    "read_predictions": "sources.predictions",
    "binomial_test": "stats.accuracy",
    "ftest_looney": "stats.accuracy",
    "proportions_test": "stats.accuracy",
    "bayes_correlated_ttest": "stats.bayesian",
    "bayes_sign_test": "stats.bayesian",
    "bayes_signed_rank_test": "stats.bayesian",
    "combine_pvalues": "stats.combine",
    "combined_precision_test": "stats.combine",
    "cochrans_q": "stats.contingency",
    "mcnemar": "stats.contingency",
    "mcnemar_table": "stats.contingency",
    "pairwise_mcnemar": "stats.contingency",
    "adjust_pvalues": "stats.multiple",
    "clustered_mcnemar": "stats.paired",
    "equivalence_test": "stats.paired",
    "paired_difference": "stats.paired",
    "critical_difference": "stats.posthoc",
    "nemenyi": "stats.posthoc",
    "pairwise_rank_tests": "stats.posthoc",
    "tests_against_control": "stats.posthoc",
    "corrected_ttest_power": "stats.power",
    "design_effect": "stats.power",
    "mcnemar_power": "stats.power",
    "mcnemar_sample_size": "stats.power",
    "minimum_detectable_difference": "stats.power",
    "paired_power": "stats.power",
    "paired_sample_size": "stats.power",
    "compare_precision": "stats.precision",
    "gs_test": "stats.precision",
    "gw_test": "stats.precision",
    "rp_test": "stats.precision",
    "wald_test": "stats.precision",
    "gee_precision": "stats.precision_gee",
    "bayes_update_precision": "stats.prevalence",
    "compare_updated_precision": "stats.prevalence",
    "prevalence_adjusted_precision": "stats.prevalence",
    "prevalence_bootstrap": "stats.prevalence",
    "average_ranks": "stats.ranks",
    "friedman": "stats.ranks",
    "iman_davenport": "stats.ranks",
    "wilcoxon": "stats.ranks",
    "repeated_answers": "stats.repeated",
    "corrected_resampled_ttest": "stats.resampling",
    "ftest_5x2cv": "stats.resampling",
    "pairwise_corrected_ttest": "stats.resampling",
    "ttest_5x2cv": "stats.resampling",
    "TestResult": "stats.results",
    "replicability": "stats.replicability",
    "replicability_pvalues": "stats.replicability",
}

_SUBPACKAGES = ("compare", "core", "course", "engine", "fitting", "report", "sources", "stats")

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    """Import a public name from its module, or a subpackage, the first time it is asked for."""
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'precmp_lib' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))
