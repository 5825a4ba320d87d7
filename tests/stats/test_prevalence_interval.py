"""Precision at a population prevalence: the interval stays honest at 0 and 1 false positives."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from precmp_lib.compare.predictions import compare_models
from precmp_lib.stats.prevalence import prevalence_adjusted_precision, prevalence_interval


@pytest.mark.parametrize("tp, pos, fp, neg, pi", [
    (28, 40, 0, 188, 0.02), (45, 60, 10, 140, 0.1), (0, 30, 4, 70, 0.3), (40, 40, 0, 60, 0.5),
])
def test_ends_are_the_precision_at_the_wilson_corners(tp, pos, fp, neg, pi):
    # reference: statsmodels' Wilson interval of each rate at 1 - alpha/2, put through Bayes' rule
    se_lo, se_hi = proportion_confint(tp, pos, alpha=0.025, method="wilson")
    f_lo, f_hi = proportion_confint(fp, neg, alpha=0.025, method="wilson")
    ppv = lambda se, f: se * pi / (se * pi + f * (1 - pi))  # noqa: E731
    low, high = prevalence_interval(tp, pos, fp, neg, pi)
    assert float(low) == pytest.approx(ppv(se_lo, f_hi), abs=1e-9)
    assert float(high) == pytest.approx(ppv(se_hi, max(f_lo, 0.0)), abs=1e-9)


def test_never_predicted_has_no_interval():
    low, high = prevalence_interval(0, 30, 0, 70, 0.1)
    assert np.isnan(low) and np.isnan(high)


def _coverage(n1, n0, se, fpr, pi):
    """Exact coverage: every outcome (TP, FP) weighted by its binomial probability."""
    tp = np.arange(n1 + 1)[:, None]
    fp = np.arange(n0 + 1)[None, :]
    prob = stats.binom.pmf(tp, n1, se) * stats.binom.pmf(fp, n0, fpr) * ((tp > 0) | (fp > 0))
    low, high = np.broadcast_arrays(*prevalence_interval(tp, n1, fp, n0, pi))
    truth = float(prevalence_adjusted_precision(se, 1 - fpr, pi))
    held = (low <= truth + 1e-12) & (truth <= high + 1e-12)
    return float((prob * held).sum() / prob.sum())


def test_coverage_holds_where_false_positives_are_rare():
    # a small grid of bench/bench_prevalence_coverage.py (540 designs there, min 0.954):
    # FPR 0 and 0.001 make "no false positives" the likeliest outcome
    grid = itertools.product([10, 40], [40, 188], [0.7, 1.0], [0.0, 0.001, 0.02], [0.02, 0.3])
    worst = min(_coverage(*cell) for cell in grid)
    assert worst >= 0.95


Y = ["a", "b"] * 20


def test_report_interval_is_not_one_to_one_with_no_false_positives():
    # m1 finds 12 of the 20 b's and calls nothing else b: no false positives for b
    m1 = [v if v == "a" or i % 10 < 6 else "a" for i, v in enumerate(Y)]
    frame = pd.DataFrame({"y": Y, "m1": m1, "m2": Y})
    cmp = compare_models(frame, y_true="y", prevalence={"b": 0.02}, n_boot=200)
    row = cmp.prevalence.set_index("model").loc["m1"]
    assert row.precision_at_prevalence == 1.0
    low, _ = prevalence_interval(12, 20, 0, 20, 0.02)  # the same counts, directly
    assert (row.ci_low, row.ci_high) == pytest.approx((float(low), 1.0))
    assert row.ci_low < 0.5  # 0 of 20 negatives allows an FPR up to z² / (20 + z²) = 0.20
    ratio = cmp.prevalence_ratio.iloc[0]
    assert ratio.ci_low < 1 < ratio.ci_high  # both models at 1: not [1, 1]
