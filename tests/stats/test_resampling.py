"""Tests on resampled scores: corrected resampled t, 5x2cv t and F, uncorrected t, paired CV scoring.

Reference values come from docs/methods.md §4 (worked examples 1-4, Appendix A), from
``scipy.stats.ttest_rel`` and mlxtend's ``paired_ttest_5x2cv``, ``combined_ftest_5x2cv``,
``paired_ttest_kfold_cv`` and ``paired_ttest_resampled`` called here on the same splits, and from
``sklearn.neighbors.NearestCentroid`` for the simulation's learners.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from joblib import parallel_config
from scipy import stats
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_regression
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import KFold, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

import precmp_lib as pc
from precmp_lib.course.plots import resampling_type1_plot
from precmp_lib.course.type1 import type1_error_simulation
from precmp_lib.stats import resampling
from precmp_lib.stats.resampling import (
    cv5x2_pvalues,
    paired_ttest_kfold,
    paired_ttest_resampled,
    resampled_t_pvalues,
)
from precmp_lib.stats.results import ALTERNATIVES

# docs/methods.md §4 worked example 1: resampled, J = 10, 70/30 splits.
D1 = np.array([0.021, 0.013, 0.030, 0.008, 0.017, 0.025, -0.004, 0.019, 0.012, 0.026])
# Worked example 2: 10-fold CV.
D2 = np.array([0.010, -0.005, 0.020, 0.015, 0.000, 0.025, 0.010, 0.005, 0.030, -0.010])
# Worked example 4: 5x2cv, rows = replications, columns = folds.
D4 = np.array([[0.030, 0.010], [0.020, 0.040], [-0.010, 0.020], [0.050, 0.000], [0.020, 0.030]])

# Scores are proportions such as accuracies: multiples of 1e-6 in [0, 1] (counts over test
# sets of realistic size), not arbitrary floats down to 1e-300 where every t-test underflows.
score = st.integers(0, 10**6).map(lambda k: k / 10**6)
scores = arrays(np.float64, st.integers(2, 30), elements=score)
score_pairs = st.integers(2, 30).flatmap(lambda j: st.tuples(
    arrays(np.float64, j, elements=score),
    arrays(np.float64, j, elements=score),
))
pairs_5x2 = st.tuples(
    arrays(np.float64, (5, 2), elements=score),
    arrays(np.float64, (5, 2), elements=score),
)


@pytest.fixture(scope="module", autouse=True)
def _one_blas_thread():
    """Many small fits: BLAS threads only add contention on a shared machine."""
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


@pytest.fixture(scope="module")
def two_models():
    lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    return lr, tree


# --------------------------------------------------------------------------------------------
# worked examples (docs/methods.md §4, Appendix A)
# --------------------------------------------------------------------------------------------


def test_worked_example_1_nadeau_bengio():
    base = np.full(10, 0.8)
    res = pc.corrected_resampled_ttest(base + D1, base, test_train_ratio=0.3 / 0.7)
    assert res.statistic == pytest.approx(2.302012, rel=1e-6)
    assert res.pvalue == pytest.approx(0.046845, rel=1e-5)
    assert res.df == 9 and res.n == 10 and res.alternative == "two-sided"
    assert res.estimate == pytest.approx(0.0167, rel=1e-10)
    assert res.details["variance_factor"] == pytest.approx(0.528571, rel=1e-6)
    assert res.details["sd"] == pytest.approx(0.00997831, rel=1e-6)
    assert res.details["se"] == pytest.approx(0.00997831 * math.sqrt(0.1 + 3 / 7), rel=1e-6)
    plain = paired_ttest_resampled(base + D1, base)
    assert plain.statistic == pytest.approx(5.292483, rel=1e-6)
    assert plain.pvalue == pytest.approx(4.9879e-04, rel=1e-4)
    assert "uncorrected" in plain.note and not plain.degenerate


def test_worked_example_2_corrected_kfold():
    base = np.full(10, 0.9)
    res = pc.corrected_resampled_ttest(base + D2, base, test_train_ratio=1 / 9)
    assert res.statistic == pytest.approx(1.685854, rel=1e-6)
    assert res.pvalue == pytest.approx(0.126103, rel=1e-5)
    plain = paired_ttest_kfold(base + D2, base)
    assert plain.statistic == pytest.approx(2.449490, rel=1e-6)
    assert plain.pvalue == pytest.approx(0.036787, abs=5e-7)  # printed to 6 decimals
    assert plain.df == 9


def test_worked_example_3_repeated_cv_from_summary():
    # Example 3 gives only J = 100, m = 0.011618, S = 0.01934095: build differences with
    # exactly that mean and standard deviation.
    z = np.random.default_rng(0).standard_normal(100)
    z = (z - z.mean()) / z.std(ddof=1)
    d = 0.011618 + 0.01934095 * z
    res = pc.corrected_resampled_ttest(d, np.zeros(100), test_train_ratio=1 / 9)
    assert res.statistic == pytest.approx(1.726083, rel=1e-6)
    assert res.pvalue == pytest.approx(0.087452, rel=1e-5)
    assert res.df == 99
    plain = paired_ttest_kfold(d, np.zeros(100))
    assert plain.statistic == pytest.approx(6.006945, rel=1e-6)
    assert plain.pvalue == pytest.approx(3.15e-08, rel=1e-2)


def test_worked_example_4_5x2cv():
    base = np.full((5, 2), 0.8)
    t = pc.ttest_5x2cv(base + D4, base)
    assert t.statistic == pytest.approx(1.446728, rel=1e-6)
    assert t.pvalue == pytest.approx(0.207617, rel=1e-5)
    assert t.df == 5
    assert t.details["first_difference"] == pytest.approx(0.03)
    assert t.details["se"] == pytest.approx(math.sqrt(4.3e-4), rel=1e-10)
    np.testing.assert_allclose(t.details["s2"], [2.0e-4, 2.0e-4, 4.5e-4, 1.25e-3, 5.0e-5],
                               rtol=1e-9)
    assert t.estimate == pytest.approx(D4.mean(), rel=1e-10)
    f = pc.ftest_5x2cv(base + D4, base)
    assert f.statistic == pytest.approx(1.697674, rel=1e-6)
    assert f.pvalue == pytest.approx(0.290851, rel=1e-5)
    assert f.df == (10.0, 5.0) and f.alternative == "two-sided"
    # critical values quoted with the example
    assert stats.t.isf(0.025, 5) == pytest.approx(2.5706, abs=1e-4)
    assert stats.f.isf(0.05, 10, 5) == pytest.approx(4.7351, abs=1e-4)


# --------------------------------------------------------------------------------------------
# cross-checks against scipy
# --------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(score_pairs, st.sampled_from(ALTERNATIVES))
def test_uncorrected_equals_scipy_ttest_rel(pair, alternative):
    a, b = pair
    d = a - b
    if np.ptp(d) <= 1e-9 * max(np.abs(a).max(), np.abs(b).max(), 1e-300):
        return  # zero variance: scipy gives nan, we follow the degenerate policy (tested below)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    ci = ref.confidence_interval(0.9)
    for fn in (paired_ttest_resampled, paired_ttest_kfold):
        res = fn(a, b, alternative=alternative, confidence_level=0.9)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
        assert res.ci_low == pytest.approx(ci.low, rel=1e-9, abs=1e-12)
        assert res.ci_high == pytest.approx(ci.high, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(score_pairs, st.floats(0.01, 2.0))
def test_correction_scales_plain_t(pair, ratio):
    """t_corrected = t_plain · sqrt((1/J) / (1/J + ratio)) (Nadeau & Bengio 2003)."""
    a, b = pair
    plain = paired_ttest_resampled(a, b)
    corr = pc.corrected_resampled_ttest(a, b, test_train_ratio=ratio)
    if plain.degenerate:
        assert corr.degenerate and corr.statistic == plain.statistic
        return
    j = len(a)
    assert corr.statistic == pytest.approx(plain.statistic * math.sqrt((1 / j) / (1 / j + ratio)),
                                           rel=1e-9)
    assert corr.pvalue >= plain.pvalue - 1e-12
    width = corr.ci_high - corr.ci_low
    assert width == pytest.approx((plain.ci_high - plain.ci_low) * math.sqrt(1 + j * ratio),
                                  rel=1e-9)


def test_confidence_interval_formula():
    a, b = np.full(10, 0.8) + D1, np.full(10, 0.8)
    res = pc.corrected_resampled_ttest(a, b, test_train_ratio=3 / 7, confidence_level=0.95)
    q = stats.t.isf(0.025, 9)
    se = res.details["se"]
    assert res.confidence_interval() == pytest.approx((0.0167 - q * se, 0.0167 + q * se))
    greater = pc.corrected_resampled_ttest(a, b, test_train_ratio=3 / 7, alternative="greater")
    assert greater.ci_high == math.inf
    assert greater.ci_low == pytest.approx(0.0167 - stats.t.isf(0.05, 9) * se)
    less = pc.corrected_resampled_ttest(a, b, test_train_ratio=3 / 7, alternative="less")
    assert less.ci_low == -math.inf
    assert greater.pvalue == pytest.approx(res.pvalue / 2)
    assert less.pvalue == pytest.approx(1 - res.pvalue / 2)


# --------------------------------------------------------------------------------------------
# properties: p in [0, 1], symmetry, order invariance
# --------------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(score_pairs, st.floats(0.01, 2.0), st.sampled_from(ALTERNATIVES))
def test_pvalues_in_unit_interval(pair, ratio, alternative):
    a, b = pair
    for res in (pc.corrected_resampled_ttest(a, b, test_train_ratio=ratio,
                                             alternative=alternative),
                paired_ttest_resampled(a, b, alternative=alternative)):
        assert 0.0 <= res.pvalue <= 1.0
        assert not math.isnan(res.statistic)


@settings(max_examples=80, deadline=None)
@given(pairs_5x2, st.sampled_from(ALTERNATIVES))
def test_5x2_pvalues_in_unit_interval(pair, alternative):
    a, b = pair
    t = pc.ttest_5x2cv(a, b, alternative=alternative)
    f = pc.ftest_5x2cv(a, b)
    assert 0.0 <= t.pvalue <= 1.0 and 0.0 <= f.pvalue <= 1.0
    assert f.statistic >= 0


@settings(max_examples=60, deadline=None)
@given(score_pairs, st.floats(0.01, 2.0))
def test_swapping_classifiers(pair, ratio):
    a, b = pair
    ab = pc.corrected_resampled_ttest(a, b, test_train_ratio=ratio)
    ba = pc.corrected_resampled_ttest(b, a, test_train_ratio=ratio)
    assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-9, abs=1e-12)
    assert ba.pvalue == pytest.approx(ab.pvalue, rel=1e-9)
    assert ba.estimate == pytest.approx(-ab.estimate, abs=1e-12)
    g = pc.corrected_resampled_ttest(a, b, test_train_ratio=ratio, alternative="greater")
    ls = pc.corrected_resampled_ttest(b, a, test_train_ratio=ratio, alternative="less")
    assert g.pvalue == pytest.approx(ls.pvalue, rel=1e-9, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(pairs_5x2)
def test_5x2_swapping_classifiers(pair):
    a, b = pair
    assert pc.ftest_5x2cv(b, a).statistic == pytest.approx(pc.ftest_5x2cv(a, b).statistic,
                                                           rel=1e-9)
    tab, tba = pc.ttest_5x2cv(a, b), pc.ttest_5x2cv(b, a)
    assert tba.statistic == pytest.approx(-tab.statistic, rel=1e-9, abs=1e-12)
    assert tba.pvalue == pytest.approx(tab.pvalue, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(score_pairs, st.randoms(use_true_random=False))
def test_resample_order_does_not_matter(pair, rnd):
    a, b = pair
    order = list(range(len(a)))
    rnd.shuffle(order)
    one = pc.corrected_resampled_ttest(a, b, test_train_ratio=0.25)
    two = pc.corrected_resampled_ttest(a[order], b[order], test_train_ratio=0.25)
    assert two.statistic == pytest.approx(one.statistic, rel=1e-9, abs=1e-12)
    assert two.pvalue == pytest.approx(one.pvalue, rel=1e-9, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(pairs_5x2, st.permutations(range(5)), st.lists(st.booleans(), min_size=5, max_size=5))
def test_5x2_order(pair, rows, flips):
    """F ignores replication and fold order; t changes only with its first difference."""
    a, b = pair
    a2, b2 = a[rows].copy(), b[rows].copy()
    for i, flip in enumerate(flips):
        if flip:
            a2[i] = a2[i, ::-1]
            b2[i] = b2[i, ::-1]
    f1, f2 = pc.ftest_5x2cv(a, b), pc.ftest_5x2cv(a2, b2)
    assert f2.statistic == pytest.approx(f1.statistic, rel=1e-9, abs=1e-12)
    assert f2.pvalue == pytest.approx(f1.pvalue, rel=1e-9, abs=1e-15)
    keep = [0, *np.random.default_rng(0).permutation([1, 2, 3, 4])]
    t1, t2 = pc.ttest_5x2cv(a, b), pc.ttest_5x2cv(a[keep], b[keep])
    assert t2.statistic == pytest.approx(t1.statistic, rel=1e-9, abs=1e-12)


def test_5x2_t_depends_on_first_fold():
    """The order dependence docs/methods.md §4 warns about: swapping replication 1's folds."""
    base = np.full((5, 2), 0.8)
    swapped = D4.copy()
    swapped[0] = swapped[0, ::-1]
    one, two = pc.ttest_5x2cv(base + D4, base), pc.ttest_5x2cv(base + swapped, base)
    assert one.statistic == pytest.approx(3 * two.statistic)  # 0.03 vs 0.01 over the same SE


# --------------------------------------------------------------------------------------------
# degenerate inputs (docs/methods.md §1, §4 edge cases)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda a, b: pc.corrected_resampled_ttest(a, b, test_train_ratio=0.2),
    paired_ttest_resampled,
    paired_ttest_kfold,
])
def test_identical_scores_are_indistinguishable(fn):
    a = np.array([0.81, 0.79, 0.85, 0.80])
    res = fn(a, a.copy())
    assert (res.statistic, res.pvalue, res.degenerate) == (0.0, 1.0, True)
    assert "zero" in res.note


def test_constant_nonzero_difference_is_infinite():
    # 0.82 - 0.81, 0.63 - 0.62, 0.52 - 0.51 differ in the last bits; they must count as equal.
    a, b = np.array([0.82, 0.63, 0.52]), np.array([0.81, 0.62, 0.51])
    assert np.ptp(a - b) > 0
    res = pc.corrected_resampled_ttest(a, b, test_train_ratio=0.5)
    assert res.statistic == math.inf and res.pvalue == 0.0 and res.degenerate
    assert "variance is zero" in res.note
    assert pc.corrected_resampled_ttest(b, a, test_train_ratio=0.5).statistic == -math.inf
    less = pc.corrected_resampled_ttest(a, b, test_train_ratio=0.5, alternative="less")
    assert less.pvalue == 1.0 and less.degenerate
    greater = paired_ttest_resampled(a, b, alternative="greater")
    assert greater.pvalue == 0.0


def test_5x2_degenerate():
    base = np.full((5, 2), 0.8)
    same = pc.ttest_5x2cv(base, base.copy())
    assert (same.statistic, same.pvalue, same.degenerate) == (0.0, 1.0, True)
    f = pc.ftest_5x2cv(base, base.copy())
    assert (f.statistic, f.pvalue, f.degenerate) == (0.0, 1.0, True)
    # equal folds within each replication, non-zero: zero variance, infinite statistics
    d = np.repeat([[0.01], [0.02], [0.0], [0.03], [0.01]], 2, axis=1)
    t = pc.ttest_5x2cv(base + d, base)
    assert t.statistic == math.inf and t.pvalue == 0.0 and t.degenerate
    f = pc.ftest_5x2cv(base + d, base)
    assert f.statistic == math.inf and f.pvalue == 0.0 and f.degenerate
    # first difference zero, variance zero, others non-zero: t is 0/0 -> 0, p 1
    d[0] = 0.0
    t = pc.ttest_5x2cv(base + d, base)
    assert (t.statistic, t.pvalue, t.degenerate) == (0.0, 1.0, True)
    assert pc.ftest_5x2cv(base + d, base).statistic == math.inf


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


def test_bad_inputs():
    a = np.array([0.8, 0.9, 0.85])
    with pytest.raises(ValueError, match="scores_a must hold at least 2 scores; got 1"):
        paired_ttest_resampled([0.8], [0.7])
    with pytest.raises(ValueError, match="same shape"):
        paired_ttest_kfold(a, a[:2])
    with pytest.raises(ValueError, match=r"scores_b must hold finite scores; found nan at position 1"):
        pc.corrected_resampled_ttest(a, [0.8, np.nan, 0.7], test_train_ratio=0.3)
    with pytest.raises(ValueError, match="scores_a must be one-dimensional"):
        pc.corrected_resampled_ttest(np.ones((2, 2)), np.ones((2, 2)), test_train_ratio=0.3)
    with pytest.raises(ValueError, match="scores_a must hold numbers"):
        paired_ttest_resampled(["a", "b"], a[:2])
    for bad in (0, -0.5, math.nan, math.inf, "0.3", True):
        with pytest.raises(ValueError, match="test_train_ratio must be"):
            pc.corrected_resampled_ttest(a, a, test_train_ratio=bad)
    with pytest.raises(TypeError):
        pc.corrected_resampled_ttest(a, a)  # the ratio is required, keyword-only
    with pytest.raises(ValueError, match="alternative must be one of"):
        paired_ttest_resampled(a, a, alternative="bigger")
    with pytest.raises(ValueError, match="confidence_level must lie in"):
        paired_ttest_resampled(a, a, confidence_level=95)
    with pytest.raises(ValueError, match=r"scores_a must have shape \(5, 2\); got shape \(2, 5\)"):
        pc.ttest_5x2cv(np.ones((2, 5)), np.ones((2, 5)))
    with pytest.raises(ValueError, match=r"scores_b must have shape \(5, 2\)"):
        pc.ftest_5x2cv(np.ones((5, 2)), np.ones(10))
    with pytest.raises(ValueError, match=r"scores_a must hold finite scores; found inf at position \(2, 1\)"):
        bad = np.ones((5, 2))
        bad[2, 1] = np.inf
        pc.ftest_5x2cv(bad, np.ones((5, 2)))
    with pytest.raises(ValueError, match="alternative must be one of"):
        pc.ttest_5x2cv(np.ones((5, 2)), np.ones((5, 2)), alternative="two_sided")


def test_accepts_pandas_and_lists():
    a = pd.Series(0.8 + D1, index=list("abcdefghij"))
    res = pc.corrected_resampled_ttest(a, list(np.full(10, 0.8)), test_train_ratio=3 / 7)
    assert res.statistic == pytest.approx(2.302012, rel=1e-6)
    df = pd.DataFrame(np.full((5, 2), 0.8) + D4, columns=["fold1", "fold2"])
    assert pc.ftest_5x2cv(df, np.full((5, 2), 0.8)).statistic == pytest.approx(1.697674, rel=1e-6)


# --------------------------------------------------------------------------------------------
# paired_cv_scores
# --------------------------------------------------------------------------------------------


def test_scheme_shapes_and_sizes(cancer, two_models):
    X, y = cancer
    lr, tree = two_models
    n = len(y)
    ps = pc.paired_cv_scores(lr, tree, X, y, scheme="5x2", random_state=0, progress=False)
    assert ps.scores_a.shape == ps.scores_b.shape == ps.n_test.shape == (5, 2)
    assert np.all(ps.n_train + ps.n_test == n) and set(ps.n_test.ravel()) <= {284, 285}
    assert ps.test_train_ratio == pytest.approx(1.0, abs=0.01)
    assert ps.names == ("Pipeline", "DecisionTreeClassifier") and ps.scoring == "accuracy"
    kf = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=5, random_state=0,
                             progress=False)
    assert kf.scores_a.shape == (5,) and kf.n_test.sum() == n  # each row tested once
    assert kf.test_train_ratio == pytest.approx(1 / 4, rel=1e-3)
    rk = pc.paired_cv_scores(lr, tree, X, y, scheme="repeated_kfold", n_splits=3, n_repeats=2,
                             random_state=0, progress=False)
    assert rk.scores_a.shape == (6,) and rk.n_resamples == 6
    assert rk.test_train_ratio == pytest.approx(1 / 2, rel=1e-3)
    frame = rk.to_frame()
    assert list(frame.columns) == ["split", "repeat", "fold", "n_train", "n_test", "score_a",
                                   "score_b", "difference"]
    assert frame["repeat"].tolist() == [0, 0, 0, 1, 1, 1]
    assert frame["fold"].tolist() == [0, 1, 2, 0, 1, 2]
    rs = pc.paired_cv_scores(lr, tree, X, y, scheme="resampled", n_splits=4, test_size=0.25,
                             random_state=0, progress=False)
    assert rs.scores_a.shape == (4,) and rs.n_folds is None
    assert rs.test_train_ratio == pytest.approx(143 / 426)  # sklearn rounds the test size up
    np.testing.assert_allclose(rs.differences, rs.scores_a - rs.scores_b)


def test_splits_are_stratified(cancer):
    """Every 5x2cv half keeps the class proportions (mlxtend's halves are not stratified)."""
    X, y = cancer

    class Spy(DecisionTreeClassifier):
        seen: list = []  # noqa: RUF012

        def fit(self, X, y, **kw):
            Spy.seen.append(np.bincount(y, minlength=2))
            return super().fit(X, y, **kw)

    pc.paired_cv_scores(Spy(max_depth=1), Spy(max_depth=1), X, y, random_state=3,
                        progress=False)
    expected = np.bincount(y) / 2
    assert len(Spy.seen) == 20
    assert np.all(np.abs(np.array(Spy.seen) - expected) <= 1)


def test_estimators_are_not_mutated_and_results_reproduce(cancer, two_models):
    X, y = cancer
    lr, tree = two_models
    params = (lr.get_params(deep=False).keys(), tree.get_params())
    one = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=4, random_state=7,
                              progress=False)
    two = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=4, random_state=7,
                              progress=False)
    for est in (lr, tree):
        with pytest.raises(NotFittedError):
            check_is_fitted(est)
    assert tree.get_params() == params[1]
    np.testing.assert_array_equal(one.scores_a, two.scores_a)
    np.testing.assert_array_equal(one.scores_b, two.scores_b)
    other = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=4, random_state=8,
                                progress=False)
    assert not np.array_equal(one.scores_b, other.scores_b)


def test_parallel_equals_sequential(cancer, two_models):
    X, y = cancer
    lr, tree = two_models
    seq = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=4, random_state=1,
                              progress=False)
    with parallel_config(backend="threading"):  # the joblib path, without process start-up
        par = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=4, random_state=1,
                                  progress=False, n_jobs=2)
    np.testing.assert_array_equal(seq.scores_a, par.scores_a)
    np.testing.assert_array_equal(seq.scores_b, par.scores_b)


def test_any_scorer_on_given_splits(cancer):
    """Scores equal sklearn's metric computed by hand on the same split."""
    X, y = cancer
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    nb, tree = GaussianNB(), DecisionTreeClassifier(max_depth=2, random_state=0)
    ps = pc.paired_cv_scores(nb, tree, X, y, scheme="kfold", cv=splits,
                             scoring="balanced_accuracy", progress=False, names=("nb", "tree"))
    tr, te = splits[1]
    by_hand = balanced_accuracy_score(y[te], clone(tree).fit(X[tr], y[tr]).predict(X[te]))
    assert ps.scores_b[1] == pytest.approx(by_hand, rel=1e-12)
    assert ps.names == ("nb", "tree") and ps.scoring == "balanced_accuracy"

    def error_rate(est, X_, y_):
        return float(np.mean(est.predict(X_) != y_))

    err = pc.paired_cv_scores(nb, tree, X, y, scheme="kfold", cv=splits, scoring=error_rate,
                              progress=False)
    assert err.scoring == "error_rate"
    by_hand = np.mean(clone(nb).fit(X[tr], y[tr]).predict(X[te]) != y[te])
    assert err.scores_a[1] == pytest.approx(by_hand)


def test_regression_without_stratification():
    X, y = make_regression(n_samples=120, n_features=5, noise=10.0, random_state=0)
    ps = pc.paired_cv_scores(LinearRegression(), Ridge(alpha=10.0), X, y, scheme="5x2",
                             stratify=False, scoring="r2", random_state=0, progress=False)
    assert ps.scores_a.shape == (5, 2) and np.all(ps.scores_a <= 1)
    assert np.all(ps.n_test == 60)


def test_progress_bar(cancer, capsys):
    X, y = cancer
    pc.paired_cv_scores(GaussianNB(), GaussianNB(var_smoothing=1e-3), X, y, scheme="kfold",
                        n_splits=3, random_state=0, progress=True)
    assert "kfold splits" in capsys.readouterr().err
    pc.paired_cv_scores(GaussianNB(), GaussianNB(var_smoothing=1e-3), X, y, scheme="kfold",
                        n_splits=3, random_state=0, progress=False)
    assert capsys.readouterr().err == ""


def test_tests_table_matches_direct_calls(cancer, two_models):
    X, y = cancer
    lr, tree = two_models
    ps = pc.paired_cv_scores(lr, tree, X, y, scheme="5x2", random_state=2, progress=False)
    tab = ps.tests().set_index("test")
    assert list(tab.index) == ["ftest_5x2cv", "ttest_5x2cv", "corrected_resampled_ttest",
                               "paired_ttest_resampled"]
    assert tab.loc["ftest_5x2cv", "pvalue"] == pc.ftest_5x2cv(ps.scores_a, ps.scores_b).pvalue
    corr = pc.corrected_resampled_ttest(ps.scores_a.ravel(), ps.scores_b.ravel(),
                                        test_train_ratio=ps.test_train_ratio)
    assert tab.loc["corrected_resampled_ttest", "statistic"] == corr.statistic
    assert tab.loc["corrected_resampled_ttest", "se"] == corr.details["se"]
    kf = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=4, random_state=2,
                             progress=False)
    ktab = kf.tests(alternative="greater").set_index("test")
    assert list(ktab.index) == ["corrected_resampled_ttest", "paired_ttest_kfold"]
    assert (ktab["alternative"] == "greater").all()


def test_scheme_argument_errors(cancer, two_models):
    X, y = cancer
    lr, tree = two_models
    with pytest.raises(ValueError, match="scheme must be one of"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="loo", progress=False)
    with pytest.raises(ValueError, match="n_splits is fixed at 2 for scheme='5x2'; got 10"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="5x2", n_splits=10, progress=False)
    with pytest.raises(ValueError, match="n_repeats must be None for scheme='kfold'"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_repeats=3, progress=False)
    with pytest.raises(ValueError, match="n_splits must be an integer >= 2; got 1"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", n_splits=1, progress=False)
    with pytest.raises(ValueError, match="test_size must lie in"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="resampled", test_size=1.5, progress=False)
    with pytest.raises(ValueError, match="n_repeats must be None for scheme='resampled'"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="resampled", n_repeats=2, progress=False)
    with pytest.raises(ValueError, match="cv must give exactly 10 splits for scheme='5x2'"):
        pc.paired_cv_scores(lr, tree, X, y, scheme="5x2", cv=KFold(4), progress=False)


def test_cv_scores_share_the_splits_of_paired_cv_scores(cancer, two_models):
    X, y = cancer
    lr, tree = two_models
    nb = GaussianNB()
    tab = pc.cv_scores({"lr": lr, "tree": tree, "nb": nb}, X, y, scheme="repeated_kfold",
                       n_splits=4, n_repeats=2, random_state=5, progress=False)
    assert list(tab.columns) == ["repeat", "fold", "n_train", "n_test", "lr", "tree", "nb"]
    assert tab.index.name == "split" and len(tab) == 8
    pair = pc.paired_cv_scores(lr, nb, X, y, scheme="repeated_kfold", n_splits=4, n_repeats=2,
                               random_state=5, progress=False)
    np.testing.assert_array_equal(tab["lr"], pair.scores_a)
    np.testing.assert_array_equal(tab["nb"], pair.scores_b)
    np.testing.assert_array_equal(tab["n_test"], pair.n_test)
    five = pc.cv_scores({"lr": lr, "nb": nb}, X, y, scheme="5x2", random_state=1, progress=False)
    assert len(five) == 10 and five["repeat"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    with pytest.raises(ValueError, match="estimators must be a mapping of at least two"):
        pc.cv_scores({"lr": lr}, X, y, progress=False)
    with pytest.raises(ValueError, match="estimators must be a mapping"):
        pc.cv_scores([lr, nb], X, y, progress=False)


def test_pairwise_corrected_ttest_matches_single_tests_and_statsmodels_holm():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(4)
    base = rng.normal(0.8, 0.03, size=30)
    scores = pd.DataFrame({name: base + shift + rng.normal(0, 0.01, 30)
                           for name, shift in zip("abcd", (0.0, 0.005, 0.02, 0.0))})
    tab = pc.pairwise_corrected_ttest(scores, test_train_ratio=1 / 9, alpha=0.05)
    assert len(tab) == 6
    assert tab[["model_a", "model_b"]].values.tolist()[:3] == [["a", "b"], ["a", "c"], ["a", "d"]]
    for row in tab.itertuples():
        single = pc.corrected_resampled_ttest(scores[row.model_a], scores[row.model_b],
                                              test_train_ratio=1 / 9)
        assert row.statistic == single.statistic and row.pvalue == single.pvalue
        assert row.se == single.details["se"] and row.df == 29
    reject, holm, _, _ = multitest.multipletests(tab["pvalue"], alpha=0.05, method="holm")
    np.testing.assert_allclose(tab["pvalue_adjusted"], holm, rtol=1e-12)
    assert tab["reject"].tolist() == reject.tolist()
    assert tab.attrs["adjustment"] == "holm"
    _, bonf, _, _ = multitest.multipletests(tab["pvalue"], method="bonferroni")
    other = pc.pairwise_corrected_ttest(scores, test_train_ratio=1 / 9, adjust="bonferroni")
    np.testing.assert_allclose(other["pvalue_adjusted"], bonf, rtol=1e-12)
    assert other.attrs["adjustment"] == "bonferroni"
    with pytest.raises(ValueError, match="adjust must be one of"):
        pc.pairwise_corrected_ttest(scores, test_train_ratio=1 / 9, adjust="shaffer")
    swapped = pc.pairwise_corrected_ttest(scores[["b", "a"]], test_train_ratio=1 / 9)
    assert swapped["estimate"].item() == pytest.approx(-tab["estimate"].iloc[0])
    with pytest.raises(ValueError, match="scores must have at least 2 rows and 2 columns"):
        pc.pairwise_corrected_ttest(scores[["a"]], test_train_ratio=0.2)
    with pytest.raises(ValueError, match="test_train_ratio must be"):
        pc.pairwise_corrected_ttest(scores, test_train_ratio=-1)
    with pytest.raises(ValueError, match="scores must hold finite numbers"):
        pc.pairwise_corrected_ttest(scores.assign(a=np.nan), test_train_ratio=0.2)


# --------------------------------------------------------------------------------------------
# mlxtend on the same splits
# --------------------------------------------------------------------------------------------


def _mlxtend_halves(n: int, random_seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ten 5x2cv splits mlxtend draws (read from its source: a RandomState(random_seed)
    gives one randint(0, 32767) per replication, used as random_state of an unstratified
    train_test_split(test_size=0.5); fold 1 trains on the first half, fold 2 on the second)."""
    rng = np.random.RandomState(random_seed)
    out = []
    for _ in range(5):
        first, second = train_test_split(np.arange(n), test_size=0.5,
                                         random_state=rng.randint(low=0, high=32767))
        out += [(first, second), (second, first)]
    return out


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_5x2cv_equals_mlxtend_on_the_same_splits(cancer, two_models, seed):
    ttest_mod = pytest.importorskip("mlxtend.evaluate")
    X, y = cancer
    lr, tree = two_models
    ps = pc.paired_cv_scores(lr, tree, X, y, scheme="5x2", cv=_mlxtend_halves(len(y), seed),
                             progress=False)
    t_ref, pt_ref = ttest_mod.paired_ttest_5x2cv(clone(lr), clone(tree), X, y,
                                                 random_seed=seed)
    f_ref, pf_ref = ttest_mod.combined_ftest_5x2cv(clone(lr), clone(tree), X, y,
                                                   random_seed=seed)
    t = pc.ttest_5x2cv(ps.scores_a, ps.scores_b)
    f = pc.ftest_5x2cv(ps.scores_a, ps.scores_b)
    assert t.statistic == pytest.approx(t_ref, rel=1e-10)
    assert t.pvalue == pytest.approx(pt_ref, rel=1e-10)
    assert f.statistic == pytest.approx(f_ref, rel=1e-10)
    assert f.pvalue == pytest.approx(pf_ref, rel=1e-10)


def test_default_5x2cv_differs_from_mlxtend_only_by_the_splits(cancer, two_models):
    """Why the defaults do not reproduce mlxtend: our halves are stratified and drawn by
    RepeatedStratifiedKFold, mlxtend's by unstratified train_test_split with its own seeds.
    The formulas agree (previous test); the splits and hence the scores do not. Also, mlxtend
    fits the estimators passed in, while paired_cv_scores fits clones."""
    mlx = pytest.importorskip("mlxtend.evaluate")
    X, y = cancer
    lr, tree = two_models
    ours = pc.paired_cv_scores(lr, tree, X, y, scheme="5x2", random_state=0, progress=False)
    theirs = pc.paired_cv_scores(lr, tree, X, y, scheme="5x2",
                                 cv=_mlxtend_halves(len(y), 0), progress=False)
    assert not np.allclose(ours.differences, theirs.differences)
    halves = [np.bincount(y[te], minlength=2) for _, te in _mlxtend_halves(len(y), 0)]
    assert max(abs(h[0] - np.bincount(y)[0] / 2) for h in halves) > 1  # not stratified
    mine = clone(tree)
    mlx.paired_ttest_5x2cv(clone(lr), mine, X, y, random_seed=0)
    check_is_fitted(mine)  # mlxtend fitted the estimator it was given


def test_uncorrected_equal_mlxtend_kfold_and_resampled(cancer, two_models):
    mlx = pytest.importorskip("mlxtend.evaluate")
    X, y = cancer
    lr, tree = two_models
    # mlxtend's paired_ttest_kfold_cv: KFold(cv, shuffle=False) by default
    ps = pc.paired_cv_scores(lr, tree, X, y, scheme="kfold", cv=KFold(5), progress=False)
    t_ref, p_ref = mlx.paired_ttest_kfold_cv(clone(lr), clone(tree), X, y, cv=5)
    res = paired_ttest_kfold(ps.scores_a, ps.scores_b)
    assert res.statistic == pytest.approx(t_ref, rel=1e-10)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-10)
    # mlxtend's paired_ttest_resampled: RandomState(seed).randint(0, 32767) per round as the
    # random_state of an unstratified train_test_split(test_size)
    rng = np.random.RandomState(3)
    splits = [train_test_split(np.arange(len(y)), test_size=0.3,
                               random_state=rng.randint(low=0, high=32767)) for _ in range(6)]
    ps = pc.paired_cv_scores(lr, tree, X, y, scheme="resampled", cv=splits, progress=False)
    t_ref, p_ref = mlx.paired_ttest_resampled(clone(lr), clone(tree), X, y, num_rounds=6,
                                              test_size=0.3, random_seed=3)
    res = paired_ttest_resampled(ps.scores_a, ps.scores_b)
    assert res.statistic == pytest.approx(t_ref, rel=1e-10)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-10)


# --------------------------------------------------------------------------------------------
# vectorised cores
# --------------------------------------------------------------------------------------------


def test_vectorised_cores_equal_public_functions():
    rng = np.random.default_rng(1)
    d = rng.normal(0.01, 0.02, size=(6, 12))
    core = resampling._t_core(d, 1 / 12 + 0.25, 1.0)
    p = resampling._t_pvalue(core["t"], 11, "two-sided")
    for i in range(6):
        res = pc.corrected_resampled_ttest(d[i], np.zeros(12), test_train_ratio=0.25)
        assert core["t"][i] == pytest.approx(res.statistic, rel=1e-12)
        assert p[i] == pytest.approx(res.pvalue, rel=1e-12)
    d5 = rng.normal(0.0, 0.02, size=(6, 5, 2))
    c = resampling._core_5x2(d5, 1.0)
    for i in range(6):
        assert c["t"][i] == pytest.approx(pc.ttest_5x2cv(d5[i], np.zeros((5, 2))).statistic)
        assert c["f"][i] == pytest.approx(pc.ftest_5x2cv(d5[i], np.zeros((5, 2))).statistic)
    # the public batch forms give the same p-values as the one-set tests
    np.testing.assert_allclose(resampled_t_pvalues(d, test_train_ratio=0.25), p, rtol=0)
    t_p, f_p = cv5x2_pvalues(d5)
    for i in range(6):
        assert t_p[i] == pytest.approx(pc.ttest_5x2cv(d5[i], np.zeros((5, 2))).pvalue, rel=1e-12)
        assert f_p[i] == pytest.approx(pc.ftest_5x2cv(d5[i], np.zeros((5, 2))).pvalue, rel=1e-12)


# --------------------------------------------------------------------------------------------
# the plot
# --------------------------------------------------------------------------------------------


def test_resampling_type1_plot_structure():
    sim = type1_error_simulation(n_simulations=100, random_state=0, progress=False)
    ax = resampling_type1_plot(sim.rates, alpha=0.05)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == sim.rates["test"].tolist()
    assert 1 <= len(ax.containers) <= 2  # over-rejecting and the rest
    n_points = sum(len(c.lines[0].get_xdata()) for c in ax.containers)
    assert n_points == 8
    assert any(line.get_xdata()[0] == 0.05 for line in ax.get_lines()
               if line.get_linestyle() == "--")
    _, ax2 = plt.subplots()
    out = resampling_type1_plot({"easy": sim.rates, "again": sim.rates}, ax=ax2)
    assert out is ax2 and len(out.containers) == 2
    assert [t.get_text() for t in out.get_legend().get_texts()][-2:] == ["easy", "again"]


def test_resampling_type1_plot_bad_input():
    with pytest.raises(ValueError, match="lacks columns"):
        resampling_type1_plot(pd.DataFrame({"test": ["x"], "rejection_rate": [0.1]}))
    with pytest.raises(ValueError, match="at least one table"):
        resampling_type1_plot({})
