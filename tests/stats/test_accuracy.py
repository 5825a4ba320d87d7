"""Accuracy tests on one test set: binomial against scipy, proportions against its formula and
mlxtend, Looney's F against its sums of squares and mlxtend's ``ftest``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mlxtend.evaluate import ftest as mlxtend_ftest
from mlxtend.evaluate import proportion_difference
from scipy import stats

import precmp_lib as pc

# --------------------------------------------------------------------------------------------
# binomial_test against scipy.stats.binomtest (called here)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k, n, p", [(87, 100, 0.8), (3, 10, 0.5), (0, 25, 0.1), (25, 25, 0.9),
                                     (480, 500, 0.95), (1, 1000, 0.003), (50, 100, 0.5),
                                     (7001, 10000, 0.7), (7_000_900, 10_000_000, 0.7),
                                     (0, 5, 0.5), (5, 5, 0.5), (2, 3, 0.5), (6, 11, 0.5)])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_binomial_equals_scipy(k, n, p, alternative):
    ours = pc.binomial_test(k, n, p, alternative=alternative, confidence_level=0.9)
    ref = stats.binomtest(k, n, p, alternative=alternative)
    ci = ref.proportion_ci(confidence_level=0.9, method="exact")
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert ours.estimate == pytest.approx(ref.statistic)
    assert ours.ci_low == pytest.approx(ci.low, rel=1e-9, abs=1e-15)
    assert ours.ci_high == pytest.approx(ci.high, rel=1e-9, abs=1e-15)
    assert ours.statistic == k and ours.n == n and ours.alternative == alternative


@given(n=st.integers(1, 3000), frac=st.floats(0, 1), p=st.floats(0.001, 0.999))
def test_binomial_property_matches_scipy(n, frac, p):
    k = round(frac * n)
    ours = pc.binomial_test(k, n, p)
    assert 0.0 <= ours.pvalue <= 1.0
    assert ours.pvalue == pytest.approx(stats.binomtest(k, n, p).pvalue, rel=1e-9, abs=1e-300)
    assert ours.ci_low <= k / n <= ours.ci_high


@pytest.mark.parametrize("kwargs, match", [
    ({"n_correct": 11, "n": 10, "reference": 0.5}, "n_correct must not exceed 10"),
    ({"n_correct": -1, "n": 10, "reference": 0.5}, "n_correct must be at least 0"),
    ({"n_correct": 1, "n": 0, "reference": 0.5}, "n must be at least 1"),
    ({"n_correct": 1.5, "n": 10, "reference": 0.5}, "n_correct must be a whole number"),
    ({"n_correct": 5, "n": 10, "reference": 1.0}, "reference must lie in"),
    ({"n_correct": 5, "n": 10, "reference": 0.5, "alternative": "bigger"}, "alternative must be"),
    ({"n_correct": 5, "n": 10, "reference": 0.5, "confidence_level": 95}, "confidence_level"),
])
def test_binomial_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pc.binomial_test(**kwargs)


# --------------------------------------------------------------------------------------------
# proportions_test
# --------------------------------------------------------------------------------------------


def test_proportions_dietterich_formula():
    # Dietterich (1998) eq. for one test set: p = (pA + pB)/2, z = (pA - pB)/sqrt(2 p (1-p) / n)
    pa, pb, n = 0.85, 0.78, 100
    pbar = (pa + pb) / 2
    z = (pa - pb) / np.sqrt(2 * pbar * (1 - pbar) / n)
    res = pc.proportions_test(85, 78, 100)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    assert res.estimate == pytest.approx(0.07)
    assert "McNemar" in res.note
    greater = pc.proportions_test(85, 78, 100, alternative="greater")
    assert greater.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-12)
    assert np.isinf(greater.ci_high)


def test_proportions_unpooled_parts_equal_mlxtend():
    # mlxtend's proportion_difference uses the unpooled variance and the lower tail norm.cdf(z);
    # our interval uses the same unpooled standard error.
    res = pc.proportions_test(70, 80, 120, n_b=150, alternative="less")
    z_ref, p_ref = proportion_difference(70 / 120, 80 / 150, 120, 150)
    z_unpooled = res.estimate / res.details["se_unpooled"]
    assert z_unpooled == pytest.approx(z_ref, rel=1e-12)
    assert stats.norm.cdf(z_unpooled) == pytest.approx(p_ref, rel=1e-12)
    # the test itself pools the two samples
    pooled = 150 / 270
    z = (70 / 120 - 80 / 150) / np.sqrt(pooled * (1 - pooled) * (1 / 120 + 1 / 150))
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.norm.cdf(z), rel=1e-12)
    assert res.note == ""


def test_proportions_swap_flips_sign():
    ab, ba = pc.proportions_test(60, 50, 80), pc.proportions_test(50, 60, 80)
    assert ab.statistic == pytest.approx(-ba.statistic)
    assert ab.pvalue == pytest.approx(ba.pvalue)
    assert (ab.ci_low, ab.ci_high) == pytest.approx((-ba.ci_high, -ba.ci_low))


@pytest.mark.parametrize("x", [0, 40])
def test_proportions_degenerate(x):
    res = pc.proportions_test(x, x, 40)
    assert (res.statistic, res.pvalue, res.degenerate) == (0.0, 1.0, True)
    assert "variance is zero" in res.note


def test_proportions_bad_input():
    with pytest.raises(ValueError, match="n_correct_b must not exceed 50"):
        pc.proportions_test(10, 60, 100, n_b=50)
    with pytest.raises(ValueError, match="n_b must be at least 1"):
        pc.proportions_test(10, 0, 100, n_b=0)


# --------------------------------------------------------------------------------------------
# ftest_looney against its formula and mlxtend's ftest (called here)
# --------------------------------------------------------------------------------------------


def _random_predictions(rng, n, accuracies, labels=("cat", "dog", "owl")):
    y = rng.choice(labels, size=n)
    preds = {}
    for j, acc in enumerate(accuracies):
        wrong = rng.random(n) > acc
        other = np.array([labels[(labels.index(v) + 1) % len(labels)] for v in y])
        preds[f"m{j}"] = np.where(wrong, other, y)
    return y, preds


@pytest.mark.parametrize("seed, n, accs", [(0, 60, (0.8, 0.7)), (1, 200, (0.9, 0.85, 0.8)),
                                          (2, 500, (0.75, 0.75, 0.7, 0.8)), (3, 35, (0.6, 0.9))])
def test_looney_equals_mlxtend_statistic(seed, n, accs):
    rng = np.random.default_rng(seed)
    y, preds = _random_predictions(rng, n, accs)
    ours = pc.ftest_looney(y, preds)
    f_ref, p_ref = mlxtend_ftest(y, *preds.values())
    k = len(accs)
    assert ours.statistic == pytest.approx(f_ref, rel=1e-9)
    assert ours.df == (k - 1, (k - 1) * (n - 1))
    assert ours.pvalue == pytest.approx(stats.f.sf(f_ref, k - 1, (k - 1) * (n - 1)), rel=1e-9)
    # mlxtend's p-value is the same F read with (k - 1) n denominator degrees of freedom
    assert stats.f.sf(ours.statistic, k - 1, (k - 1) * n) == pytest.approx(p_ref, rel=1e-9)


def test_looney_sums_of_squares_formula():
    # the two-way layout written out on the 0/1 matrix: SSA, SSB, SST, SSAB (Looney 1988)
    rng = np.random.default_rng(5)
    y, preds = _random_predictions(rng, 80, (0.7, 0.8, 0.65))
    x = np.column_stack([(p == y).astype(float) for p in preds.values()])
    n, k = x.shape
    grand = x.mean()
    ssa = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ssb = k * ((x.mean(axis=1) - grand) ** 2).sum()
    sst = ((x - grand) ** 2).sum()
    ssab = sst - ssa - ssb
    f = (ssa / (k - 1)) / (ssab / ((k - 1) * (n - 1)))
    res = pc.ftest_looney(y, preds)
    assert res.statistic == pytest.approx(f, rel=1e-10)
    assert res.details["ss_interaction"] == pytest.approx(ssab, rel=1e-10)
    assert res.details["accuracy"] == pytest.approx(dict(zip(preds, x.mean(axis=0))))


def test_looney_inputs_and_symmetry():
    rng = np.random.default_rng(7)
    y, preds = _random_predictions(rng, 120, (0.8, 0.7, 0.75))
    res = pc.ftest_looney(y, preds)
    reordered = pc.ftest_looney(y, {k: preds[k] for k in reversed(list(preds))})
    as_list = pc.ftest_looney(list(y), list(preds.values()))
    perm = rng.permutation(len(y))
    shuffled = pc.ftest_looney(y[perm], {k: v[perm] for k, v in preds.items()})
    for other in (reordered, as_list, shuffled):
        assert other.statistic == pytest.approx(res.statistic, rel=1e-12)
        assert other.pvalue == pytest.approx(res.pvalue, rel=1e-12)


def test_looney_degenerate():
    y = np.array([0, 1, 1, 0, 1, 0])
    same = pc.ftest_looney(y, {"a": [0, 1, 0, 0, 1, 1], "b": [0, 1, 0, 0, 1, 1]})
    assert (same.statistic, same.pvalue, same.degenerate) == (0.0, 1.0, True)
    # A right everywhere, B wrong everywhere: no interaction, infinite F
    split = pc.ftest_looney(y, {"a": y, "b": 1 - y})
    assert np.isinf(split.statistic) and split.pvalue == 0.0 and split.degenerate


def test_looney_bad_input():
    with pytest.raises(ValueError, match="at least 2 classifiers"):
        pc.ftest_looney([0, 1, 1], {"a": [0, 1, 0]})
    with pytest.raises(ValueError, match="same length"):
        pc.ftest_looney([0, 1, 1], {"a": [0, 1], "b": [0, 1, 1]})
    with pytest.raises(ValueError, match="at least 2 items"):
        pc.ftest_looney([0], {"a": [0], "b": [1]})
