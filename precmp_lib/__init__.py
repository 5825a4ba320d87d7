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

from .accuracy import binomial_test, ftest_looney, proportions_test
from .bayes import (
    PrevalenceBootstrap,
    bayes_update_precision,
    compare_updated_precision,
    prevalence_adjusted_precision,
    prevalence_bootstrap,
)
from .bayesian import (
    BayesianComparison,
    bayes_correlated_ttest,
    bayes_sign_test,
    bayes_signed_rank_test,
)
from .combine import combine_pvalues, combined_precision_table, combined_precision_test
from .comparison import ModelComparison, compare_models
from .contingency import cochrans_q, correctness_matrix, mcnemar, mcnemar_table, pairwise_mcnemar
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
