"""Gondara's paper recomputed: Tables 4-11 and Figures 1-3 next to the printed values.

The parts: :mod:`.models` (the printed values, the author's split, naive Bayes as R fits it,
the models and their cached predictions) and :mod:`.tables` (the tables, Figure 3 and the
replication by seed spread).
"""

from .models import (
    PAPER_DATASETS,
    PAPER_MODELS,
    PRINTED,
    PaperFit,
    RNaiveBayes,
    fit_paper_models,
    paper_estimators,
    paper_split,
    printed_values,
    r_sample,
)
from .tables import (
    TABLE10_PREVALENCE,
    compare_with_printed,
    cv_predictions,
    figure3,
    seed_runs,
    seed_spread,
    seed_spread_counts,
    side_by_side,
    table4,
    table5,
    table5_agreement,
    table6,
    table7,
    table8,
    table9,
    table10,
    table11,
)

__all__ = [
    "PAPER_DATASETS",
    "PAPER_MODELS",
    "PRINTED",
    "TABLE10_PREVALENCE",
    "PaperFit",
    "RNaiveBayes",
    "compare_with_printed",
    "cv_predictions",
    "figure3",
    "fit_paper_models",
    "paper_estimators",
    "paper_split",
    "printed_values",
    "r_sample",
    "seed_runs",
    "seed_spread",
    "seed_spread_counts",
    "side_by_side",
    "table4",
    "table5",
    "table5_agreement",
    "table6",
    "table7",
    "table8",
    "table9",
    "table10",
    "table11",
]
