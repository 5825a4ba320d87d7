"""Intervals of a proportion and of a paired accuracy difference (precmp_lib.stats.intervals).

References: statsmodels' ``proportion_confint(method="wilson")``, scipy's
``binomtest(...).proportion_ci(method="exact")``, the mid-p ends found with scipy's root finder,
and McNemar's exact and mid-p tests (``precmp_lib.stats.contingency.mcnemar``), which the dual
interval must agree with.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binom, binomtest
from statsmodels.stats.proportion import proportion_confint

from precmp_lib.stats.contingency import mcnemar
from precmp_lib.stats.intervals import binomial_interval, mcnemar_dual_interval, wilson_interval
from precmp_lib.stats.multiple import adjust_pvalues, holm_levels


@pytest.mark.parametrize(("x", "n"), [(0, 1), (0, 40), (3, 7), (25, 40), (87, 100), (100, 100)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_wilson_equals_statsmodels(x, n, level):
    got = wilson_interval(x, n, confidence_level=level)
    np.testing.assert_allclose(got, proportion_confint(x, n, alpha=1 - level, method="wilson"),
                               rtol=1e-12, atol=1e-15)
    assert all(isinstance(v, float) for v in got)


def test_wilson_is_vectorised_and_stays_in_the_unit_interval():
    x = np.array([0.0, 2.5, 10.0])
    n = np.array([10.0, 10.0, 10.0])
    low, high = wilson_interval(x, n)
    assert low.shape == high.shape == (3,)
    assert np.all((0 <= low) & (low <= x / n + 1e-15) & (x / n <= high + 1e-15) & (high <= 1))
    assert low[0] == 0.0 and high[2] == pytest.approx(1.0, abs=1e-15)
    low, high = wilson_interval(np.array([0.0, 1.0]), np.array([0.0, 2.0]))
    assert np.isnan(low[0]) and np.isnan(high[0]) and 0 < low[1] < high[1] < 1


def test_wilson_refuses_more_successes_than_trials():
    with pytest.raises(ValueError, match="successes must be at most trials"):
        wilson_interval(11, 10)


@pytest.mark.parametrize(("x", "n"), [(0, 5), (1, 5), (5, 5), (25, 40), (40, 10_000)])
def test_exact_interval_equals_scipy(x, n):
    ci = binomtest(x, n).proportion_ci(0.95, method="exact")
    np.testing.assert_allclose(binomial_interval(x, n), (ci.low, ci.high), atol=1e-12)


@pytest.mark.parametrize(("x", "n"), [(1, 5), (25, 40), (7, 60)])
def test_midp_ends_solve_their_tails(x, n):
    lo = brentq(lambda p: binom.sf(x, n, p) + 0.5 * binom.pmf(x, n, p) - 0.025, 1e-12, 1 - 1e-12)
    hi = brentq(lambda p: binom.cdf(x - 1, n, p) + 0.5 * binom.pmf(x, n, p) - 0.025, 1e-12,
                1 - 1e-12)
    np.testing.assert_allclose(binomial_interval(x, n, method="midp"), (lo, hi), atol=1e-10)
    exact = binomial_interval(x, n)
    assert exact[0] < lo and hi < exact[1]  # mid-p is inside Clopper–Pearson


@pytest.mark.parametrize("method", ["exact", "midp"])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_dual_interval_holds_zero_exactly_when_mcnemar_does_not_reject(method, level):
    n = 200
    for b in range(0, 31, 3):
        for c in range(0, 31, 2):
            lo, hi = mcnemar_dual_interval(b, c, n, confidence_level=level, method=method)
            if b + c == 0:
                assert np.isnan(lo) and np.isnan(hi)
                continue
            p = mcnemar([[0, b], [c, n - b - c]], method=method).pvalue
            assert (lo <= 0 <= hi) == (p >= 1 - level), (b, c, p, lo, hi)
            assert lo <= (b - c) / n <= hi


def test_holm_levels_agree_with_holm_adjusted_pvalues():
    rng = np.random.default_rng(4)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 8))
        p[rng.random(p.size) < 0.2] = np.nan
        levels = holm_levels(p, 0.1)
        done = ~np.isnan(p)
        assert np.array_equal(np.isnan(levels), ~done)
        # a test whose interval at its level excludes the null value is one whose p-value is
        # below 1 - level; exactly Holm's rejections
        assert np.array_equal(p[done] <= 1 - levels[done], adjust_pvalues(p, "holm")[done] <= 0.1)
