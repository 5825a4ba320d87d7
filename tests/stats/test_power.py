"""Power and sample size (precmp_lib/stats/power.py).

Reference values: Connor's (1987, Biometrics 43:207) sample size and power formulas written out
here with scipy's normal quantiles; the exact power by enumerating every 2 x 2 table of n items
and running :func:`precmp_lib.mcnemar` on it; the corrected k-fold t power against statsmodels'
``TTestPower`` with the effect size rescaled by the Nadeau-Bengio variance factor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower

import precmp_lib as pc

CASES = [(0.15, 0.10), (0.07, 0.02), (0.30, 0.20), (0.05, 0.12), (0.4, 0.0)]


def connor_n(pa, pb, power, alpha, sides=2):
    """Connor (1987), eq. 3: n = [z_{1-α/2} √ψ + z_{1-β} √(ψ - δ²)]² / δ²."""
    psi, delta = pa + pb, pa - pb
    za = stats.norm.ppf(1 - alpha / sides)
    zb = stats.norm.ppf(power)
    return (za * math.sqrt(psi) + zb * math.sqrt(psi - delta**2)) ** 2 / delta**2


def connor_power(n, pa, pb, alpha, sides=2):
    """Connor (1987): Φ((|δ| √n - z_{1-α/2} √ψ) / √(ψ - δ²))."""
    psi, delta = pa + pb, pa - pb
    za = stats.norm.ppf(1 - alpha / sides)
    return stats.norm.cdf((abs(delta) * math.sqrt(n) - za * math.sqrt(psi))
                          / math.sqrt(psi - delta**2))


@pytest.mark.parametrize(("pa", "pb"), CASES[:4])
@pytest.mark.parametrize(("power", "alpha"), [(0.8, 0.05), (0.9, 0.01)])
def test_sample_size_is_connors_formula(pa, pb, power, alpha):
    n = pc.mcnemar_sample_size(pa, pb, power=power, alpha=alpha)
    assert n == pytest.approx(connor_n(pa, pb, power, alpha), rel=1e-12)
    assert pc.mcnemar_power(n, pa, pb, alpha=alpha) == pytest.approx(power, rel=1e-9)


def test_one_sided_sample_size_and_direction():
    n = pc.mcnemar_sample_size(0.15, 0.10, alternative="greater")
    assert n == pytest.approx(connor_n(0.15, 0.10, 0.8, 0.05, sides=1), rel=1e-12)
    assert n < pc.mcnemar_sample_size(0.15, 0.10)
    assert pc.mcnemar_sample_size(0.10, 0.15, alternative="less") == pytest.approx(n, rel=1e-12)
    with pytest.raises(ValueError, match="direction of the alternative"):
        pc.mcnemar_sample_size(0.10, 0.15, alternative="greater")
    with pytest.raises(ValueError, match="p_a_only and p_b_only must differ"):
        pc.mcnemar_sample_size(0.1, 0.1)


@pytest.mark.parametrize(("pa", "pb"), CASES[:4])
@pytest.mark.parametrize("n", [50, 300, 1000])
def test_power_is_connors_formula(pa, pb, n):
    assert pc.mcnemar_power(n, pa, pb) == pytest.approx(connor_power(n, pa, pb, 0.05), rel=1e-12)


def brute_force_exact_power(n, pa, pb, alpha, alternative):
    """Sum the multinomial probability of every table (b, c, rest) the exact test rejects."""
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            rest = n - b - c
            prob = stats.multinomial.pmf([b, c, rest], n, [pa, pb, 1 - pa - pb])
            if b + c == 0:
                continue  # no discordant items: the test cannot reject
            if alternative == "two-sided":
                p = pc.mcnemar([[rest, b], [c, 0]], method="exact").pvalue
            else:
                p = stats.binomtest(b, b + c, 0.5, alternative=alternative).pvalue
            total += prob * (p <= alpha)
    return total


@pytest.mark.parametrize(("n", "pa", "pb", "alternative"), [
    (20, 0.3, 0.1, "two-sided"), (25, 0.15, 0.25, "two-sided"), (18, 0.4, 0.05, "two-sided"),
    (20, 0.3, 0.1, "greater"), (22, 0.1, 0.3, "less"), (15, 0.2, 0.2, "two-sided"),
])
def test_exact_power_by_enumeration(n, pa, pb, alternative):
    expected = brute_force_exact_power(n, pa, pb, 0.05, alternative)
    got = pc.mcnemar_power(n, pa, pb, method="exact", alternative=alternative)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_exact_power_approaches_the_normal_one_for_many_items():
    exact = pc.mcnemar_power(3000, 0.15, 0.12, method="exact")
    normal = pc.mcnemar_power(3000, 0.15, 0.12)
    assert abs(exact - normal) < 0.02


def test_paired_sample_size_inverts_the_power():
    for kwargs in ({}, {"design_effect": 2.5}):
        n = pc.paired_sample_size(0.03, 0.5, **kwargs)
        assert pc.paired_power(n, 0.03, 0.5, **kwargs) == pytest.approx(0.8, rel=1e-10)
    # Miller (2024): n = (z_{1-α/2} + z_{1-β})² σ² deff / δ²
    k = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2 * 0.25 / 0.03**2
    assert pc.paired_sample_size(0.03, 0.5) == pytest.approx(k, rel=1e-12)
    assert pc.paired_sample_size(0.03, 0.5, cluster_size=10, icc=0.1) == pytest.approx(
        k * (1 + 9 * 0.1), rel=1e-12)


def test_fixed_clusters_reach_a_limit():
    k = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2 * 0.25 / 0.03**2
    n = pc.paired_sample_size(0.03, 0.5, n_clusters=500, icc=0.1)
    # n = K (1 + (n / C - 1) ρ) at the solution
    assert n == pytest.approx(k * (1 + (n / 500 - 1) * 0.1), rel=1e-10)
    assert pc.paired_power(n, 0.03, 0.5, n_clusters=500, icc=0.1) == pytest.approx(0.8, rel=1e-9)
    # K ρ = 218 >= 200 clusters: no number of items per cluster is enough
    assert pc.paired_sample_size(0.03, 0.5, n_clusters=200, icc=0.1) == math.inf


def test_minimum_detectable_difference_inverts_the_power():
    mde = pc.minimum_detectable_difference(2000, 0.5, n_clusters=200, icc=0.1)
    assert pc.paired_power(2000, mde, 0.5, n_clusters=200, icc=0.1) == pytest.approx(0.8, rel=1e-10)
    deff = pc.design_effect(10, 0.1)
    assert deff == pytest.approx(1.9)
    assert mde == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * 0.5
                                * math.sqrt(deff / 2000), rel=1e-12)


@pytest.mark.parametrize(("k", "r", "delta", "sd"), [(10, 1, 0.01, 0.02), (10, 10, 0.01, 0.02),
                                                     (5, 3, 0.02, 0.03), (2, 5, -0.01, 0.02)])
def test_corrected_ttest_power_against_statsmodels(k, r, delta, sd):
    """The noncentrality δ / (σ √(1/J + ρ)) is statsmodels' d √J with d = δ / (σ √(1 + J ρ))."""
    j, ratio = k * r, 1 / (k - 1)
    effect = delta / (sd * math.sqrt(1 + j * ratio))
    expected = TTestPower().power(effect_size=effect, nobs=j, alpha=0.05,
                                  alternative="two-sided")
    got = pc.corrected_ttest_power(delta, sd, n_folds=k, n_repeats=r)
    assert got == pytest.approx(expected, rel=1e-8)
    one_sided = TTestPower().power(effect_size=effect, nobs=j, alpha=0.05, alternative="larger")
    assert pc.corrected_ttest_power(delta, sd, n_folds=k, n_repeats=r,
                                    alternative="greater") == pytest.approx(one_sided, rel=1e-8)


def test_more_repeats_stop_buying_power():
    powers = [pc.corrected_ttest_power(0.01, 0.02, n_folds=10, n_repeats=r)
              for r in (1, 10, 100, 1000)]
    assert powers == sorted(powers)
    assert powers[3] - powers[2] < 0.01 < powers[1] - powers[0]


@pytest.mark.parametrize(("call", "message"), [
    (lambda: pc.mcnemar_power(100, 0.6, 0.5), "p_a_only \\+ p_b_only must be at most 1"),
    (lambda: pc.mcnemar_power(100, 0.0, 0.0), "must not both be 0"),
    (lambda: pc.mcnemar_power(100.5, 0.1, 0.2, method="exact"), "n must be a whole number"),
    (lambda: pc.mcnemar_power(0, 0.1, 0.2), "n must be a finite number > 0"),
    (lambda: pc.mcnemar_power(100, -0.1, 0.2), "p_a_only must lie in"),
    (lambda: pc.mcnemar_power(100, 0.1, 0.2, method="midp"), "method must be one of"),
    (lambda: pc.paired_power(100, 0.1, 0.5, icc=0.2), "icc needs n_clusters"),
    (lambda: pc.paired_power(100, 0.1, 0.5, n_clusters=200), "n_clusters must not exceed"),
    (lambda: pc.paired_power(100, 0.1, 0.5, n_clusters=10, design_effect=2),
     "design_effect and n_clusters"),
    (lambda: pc.paired_sample_size(0.0, 0.5), "difference must be non-zero"),
    (lambda: pc.paired_sample_size(0.1, 0.5, cluster_size=5, n_clusters=5),
     "at most one of cluster_size"),
    (lambda: pc.design_effect(0.5, 0.1), "cluster_size must be at least 1"),
    (lambda: pc.design_effect(5, 1.5), "icc must lie in"),
    (lambda: pc.corrected_ttest_power(0.01, 0.02, n_folds=1), "n_folds must be an integer >= 2"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_power_is_a_probability_and_grows_with_items():
    ns = np.array([10, 50, 100, 500, 1000])
    normal = [pc.mcnemar_power(int(n), 0.15, 0.10) for n in ns]
    exact = [pc.mcnemar_power(int(n), 0.15, 0.10, method="exact") for n in ns]
    assert all(0 <= p <= 1 for p in normal + exact)
    assert normal == sorted(normal) and exact[-1] > exact[0]
    # every item discordant and all for A: the test rejects once n clears the bar
    assert pc.mcnemar_power(10, 1.0, 0.0) == 1.0


def test_clustered_power_matches_a_simulation_of_the_cluster_robust_test():
    """Differences d = δ + u_c + e with Var(u) = ρσ², Var(e) = (1 − ρ)σ² have intra-cluster
    correlation ρ; the share of simulated benchmarks where the CR1 z test rejects is the power
    ``paired_power`` predicts, within Monte Carlo error (SE about 0.025 for 400 runs)."""
    rng = np.random.default_rng(21)
    c, m, rho, sigma, delta = 100, 10, 0.2, 0.5, 0.05
    g = np.repeat(np.arange(c), m)
    rejected = 0
    for _ in range(400):
        d = (delta + rng.normal(0, np.sqrt(rho) * sigma, c)[g]
             + rng.normal(0, np.sqrt(1 - rho) * sigma, c * m))
        rejected += pc.paired_difference(d, np.zeros_like(d), clusters=g).pvalue <= 0.05
    predicted = pc.paired_power(c * m, delta, sigma, n_clusters=c, icc=rho)
    assert 0.3 < predicted < 0.7  # a power where the check has teeth
    assert rejected / 400 == pytest.approx(predicted, abs=0.075)
    # ignoring the clusters would have promised far more
    assert pc.paired_power(c * m, delta, sigma) > predicted + 0.3
