"""precmp: statistical comparison of classifiers.

Tests for two or many classifiers on one test set (McNemar, Cochran's Q, per-class precision
with GS, weighted GS, GEE Wald and relative precision), on resampled scores (Nadeau–Bengio,
5x2cv) and over many data sets (Wilcoxon, Friedman, Nemenyi), with combination of dependent
p-values, the prevalence update of precision and replicability; for models scored on the same
evaluation items, clustered paired tests (clustered McNemar, the cluster-robust paired
difference, equivalence), repeated answers per item, and power and sample size.

This namespace holds what a user comparing classifiers calls: the tests and their result
types, :func:`compare_models` with the counting engine behind it, and the readers of data sets
and prediction files. Lower-level helpers (input checks, counts, kernels on 2 x 2 x 2 cells)
stay in their modules, for example :func:`precmp_lib.validation.check_probability` or
:func:`precmp_lib.counts.joint_confusion`; plots and widgets live in :mod:`precmp_lib.plots`
and :mod:`precmp_lib.widgets`; what only the course notebooks need (the paper's replication,
deep models, simulations) is in :mod:`precmp_lib.course`, imported explicitly.

>>> import precmp_lib as pc
>>> pc.mcnemar([[9945, 25], [15, 15]], method="chi2").pvalue  # Raschka's 25:15 example
0.11384...
"""

import importlib
from typing import TYPE_CHECKING, Any

# Each public name is imported from its module on first use (PEP 562), so that a program
# which needs a few of them (the `precmp report` command: counting, compare_models, the
# report) does not import the rest; `dir(precmp_lib)` and `from precmp_lib import x` work
# as usual, and type checkers read the imports below.
if TYPE_CHECKING:
    from .accuracy import binomial_test, ftest_looney, proportions_test
    from .bayesian import (
        BayesianComparison,
        bayes_correlated_ttest,
        bayes_sign_test,
        bayes_signed_rank_test,
    )
    from .combine import combine_pvalues, combined_precision_table, combined_precision_test
    from .comparison import ModelComparison, compare_models
    from .contingency import (
        cochrans_q,
        correctness_matrix,
        mcnemar,
        mcnemar_table,
        pairwise_mcnemar,
    )
    from .crossval import cross_val_predictions, gee_from_long
    from .data import (
        Dataset,
        DatasetUnavailable,
        download_datasets,
        example_predictions,
        list_datasets,
        load_dataset,
    )
    from .engines import Counts, PredictionFileError, count_predictions
    from .evallogs import read_eval_logs
    from .item_comparison import ItemComparison, compare_items
    from .items import ItemSums, count_items
    from .multiple import adjust_pvalues
    from .paired import (
        PairedSums,
        RepeatedAnswers,
        clustered_mcnemar,
        clustered_mcnemar_from_counts,
        clustered_mcnemar_from_sums,
        equivalence_test,
        equivalence_test_from_sums,
        paired_difference,
        paired_difference_from_sums,
        repeated_answers,
        repeated_answers_from_sums,
    )
    from .power import (
        corrected_ttest_power,
        design_effect,
        mcnemar_power,
        mcnemar_sample_size,
        minimum_detectable_difference,
        paired_power,
        paired_sample_size,
    )
    from .precision import (
        GEEPrecisionResult,
        compare_precision,
        gee_precision,
        gs_test,
        gw_test,
        rp_test,
        wald_test,
    )
    from .predictions import Predictions, read_predictions
    from .prevalence import (
        PrevalenceBootstrap,
        bayes_update_precision,
        compare_updated_precision,
        prevalence_adjusted_precision,
        prevalence_bootstrap,
    )
    from .ranks import (
        NemenyiResult,
        average_ranks,
        critical_difference,
        friedman,
        iman_davenport,
        nemenyi,
        pairwise_rank_tests,
        tests_against_control,
        wilcoxon,
    )
    from .replicability import replicability, replicability_pvalues
    from .resampling import (
        PairedScores,
        corrected_resampled_ttest,
        cv_scores,
        ftest_5x2cv,
        paired_cv_scores,
        pairwise_corrected_ttest,
        resampling_test_guide,
        ttest_5x2cv,
    )
    from .results import TestResult
    from .selection import nested_cv_scores

_EXPORTS = {
    'binomial_test': 'accuracy',
    'ftest_looney': 'accuracy',
    'proportions_test': 'accuracy',
    'PrevalenceBootstrap': 'prevalence',
    'bayes_update_precision': 'prevalence',
    'compare_updated_precision': 'prevalence',
    'prevalence_adjusted_precision': 'prevalence',
    'prevalence_bootstrap': 'prevalence',
    'BayesianComparison': 'bayesian',
    'bayes_correlated_ttest': 'bayesian',
    'bayes_sign_test': 'bayesian',
    'bayes_signed_rank_test': 'bayesian',
    'combine_pvalues': 'combine',
    'combined_precision_table': 'combine',
    'combined_precision_test': 'combine',
    'ModelComparison': 'comparison',
    'compare_models': 'comparison',
    'cochrans_q': 'contingency',
    'correctness_matrix': 'contingency',
    'mcnemar': 'contingency',
    'mcnemar_table': 'contingency',
    'pairwise_mcnemar': 'contingency',
    'cross_val_predictions': 'crossval',
    'gee_from_long': 'crossval',
    'Dataset': 'data',
    'DatasetUnavailable': 'data',
    'download_datasets': 'data',
    'example_predictions': 'data',
    'list_datasets': 'data',
    'load_dataset': 'data',
    'Counts': 'engines',
    'PredictionFileError': 'engines',
    'count_predictions': 'engines',
    'read_eval_logs': 'evallogs',
    'ItemComparison': 'item_comparison',
    'compare_items': 'item_comparison',
    'ItemSums': 'items',
    'count_items': 'items',
    'adjust_pvalues': 'multiple',
    'PairedSums': 'paired',
    'RepeatedAnswers': 'paired',
    'clustered_mcnemar': 'paired',
    'clustered_mcnemar_from_counts': 'paired',
    'clustered_mcnemar_from_sums': 'paired',
    'equivalence_test': 'paired',
    'equivalence_test_from_sums': 'paired',
    'paired_difference': 'paired',
    'paired_difference_from_sums': 'paired',
    'repeated_answers': 'paired',
    'repeated_answers_from_sums': 'paired',
    'corrected_ttest_power': 'power',
    'design_effect': 'power',
    'mcnemar_power': 'power',
    'mcnemar_sample_size': 'power',
    'minimum_detectable_difference': 'power',
    'paired_power': 'power',
    'paired_sample_size': 'power',
    'GEEPrecisionResult': 'precision',
    'compare_precision': 'precision',
    'gee_precision': 'precision',
    'gs_test': 'precision',
    'gw_test': 'precision',
    'rp_test': 'precision',
    'wald_test': 'precision',
    'Predictions': 'predictions',
    'read_predictions': 'predictions',
    'NemenyiResult': 'ranks',
    'average_ranks': 'ranks',
    'critical_difference': 'ranks',
    'friedman': 'ranks',
    'iman_davenport': 'ranks',
    'nemenyi': 'ranks',
    'pairwise_rank_tests': 'ranks',
    'tests_against_control': 'ranks',
    'wilcoxon': 'ranks',
    'PairedScores': 'resampling',
    'corrected_resampled_ttest': 'resampling',
    'cv_scores': 'resampling',
    'ftest_5x2cv': 'resampling',
    'paired_cv_scores': 'resampling',
    'pairwise_corrected_ttest': 'resampling',
    'resampling_test_guide': 'resampling',
    'ttest_5x2cv': 'resampling',
    'TestResult': 'results',
    'nested_cv_scores': 'selection',
}


# The function ``replicability`` shares its module's name: imported here, before anything can
# import the submodule, so that the package attribute is the function (importing a submodule
# binds its name in the package).
from .replicability import replicability, replicability_pvalues  # noqa: E402


def __getattr__(name: str) -> Any:
    """Import a public name from its module the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'precmp_lib' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

# The public namespace: the tests and their result types, compare_models and the counting
# engine behind it, and the readers of data sets and prediction files (README, "What is where").
__all__ = [
    "BayesianComparison",
    "Counts",
    "Dataset",
    "DatasetUnavailable",
    "GEEPrecisionResult",
    "ItemComparison",
    "ItemSums",
    "ModelComparison",
    "NemenyiResult",
    "PairedScores",
    "PairedSums",
    "PredictionFileError",
    "Predictions",
    "PrevalenceBootstrap",
    "RepeatedAnswers",
    "TestResult",
    "__version__",
    "adjust_pvalues",
    "average_ranks",
    "bayes_correlated_ttest",
    "bayes_sign_test",
    "bayes_signed_rank_test",
    "bayes_update_precision",
    "binomial_test",
    "clustered_mcnemar",
    "clustered_mcnemar_from_counts",
    "clustered_mcnemar_from_sums",
    "cochrans_q",
    "combine_pvalues",
    "combined_precision_table",
    "combined_precision_test",
    "compare_items",
    "compare_models",
    "compare_precision",
    "compare_updated_precision",
    "corrected_resampled_ttest",
    "corrected_ttest_power",
    "correctness_matrix",
    "count_items",
    "count_predictions",
    "critical_difference",
    "cross_val_predictions",
    "cv_scores",
    "design_effect",
    "download_datasets",
    "equivalence_test",
    "equivalence_test_from_sums",
    "example_predictions",
    "friedman",
    "ftest_5x2cv",
    "ftest_looney",
    "gee_from_long",
    "gee_precision",
    "gs_test",
    "gw_test",
    "iman_davenport",
    "list_datasets",
    "load_dataset",
    "mcnemar",
    "mcnemar_power",
    "mcnemar_sample_size",
    "mcnemar_table",
    "minimum_detectable_difference",
    "nemenyi",
    "nested_cv_scores",
    "paired_cv_scores",
    "paired_difference",
    "paired_difference_from_sums",
    "paired_power",
    "paired_sample_size",
    "pairwise_corrected_ttest",
    "pairwise_mcnemar",
    "pairwise_rank_tests",
    "prevalence_adjusted_precision",
    "prevalence_bootstrap",
    "proportions_test",
    "read_eval_logs",
    "read_predictions",
    "repeated_answers",
    "repeated_answers_from_sums",
    "replicability",
    "replicability_pvalues",
    "resampling_test_guide",
    "rp_test",
    "tests_against_control",
    "ttest_5x2cv",
    "wald_test",
    "wilcoxon",
]
