"""Clustered paired tests on evaluation items (precmp_lib/stats/paired.py).

Reference values: Obuchowski's (1998) thyroid example as printed (McNemar χ² 4.50, Obuchowski
χ² 2.86) and Durkalski's statistic on it worked out by hand; the CR1 standard error from
statsmodels' OLS with ``cov_type="cluster"`` called here; TOST from its formula written out.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import precmp_lib as pc
from precmp_lib.stats.paired import PairedSums

# Obuchowski (1998), Stat Med 17:1495, thyroid example: glands per patient (21 patients), PET
# right and SPECT wrong in one gland of patient 9, SPECT right and PET wrong in 2, 1, 1, 2, 1
# glands of patients 1, 2, 5, 15, 18; every other gland read alike by both.
GLANDS = [3, 3, 3, 1, 3, 4, 3, 2, 2, 1, 3, 2, 3, 2, 2, 3, 3, 3, 2, 1, 2]
PET_ONLY = {9: 1}
SPECT_ONLY = {1: 2, 2: 1, 5: 1, 15: 2, 18: 1}


def thyroid_glands() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-gland correctness of PET (A) and SPECT (B) and the patient of each gland.

    Concordant glands alternate between both right and both wrong, which McNemar-type tests
    ignore.
    """
    pet, spect, patient = [], [], []
    for p, n in enumerate(GLANDS, start=1):
        a_only, b_only = PET_ONLY.get(p, 0), SPECT_ONLY.get(p, 0)
        for g in range(n):
            if g < a_only:
                pair = (1, 0)
            elif g < a_only + b_only:
                pair = (0, 1)
            else:
                pair = (1, 1) if g % 2 == 0 else (0, 0)
            pet.append(pair[0])
            spect.append(pair[1])
            patient.append(f"patient {p}")
    return np.array(pet), np.array(spect), np.array(patient)


def test_thyroid_example_reproduces_the_published_statistics():
    pet, spect, patient = thyroid_glands()
    assert len(pet) == 51 and int(np.sum(pet > spect)) == 1 and int(np.sum(spect > pet)) == 7
    # McNemar on the 51 glands as if independent: (1 - 7)^2 / 8 = 4.50, as printed
    table = pc.mcnemar_table(np.ones(51, int), pet, spect)
    assert pc.mcnemar(table, method="chi2").statistic == pytest.approx(4.50)
    res = pc.clustered_mcnemar(pet, spect, patient)
    # Obuchowski: 36 / (21/20 * 12) = 2.857..., printed as 2.86
    assert res.statistic == pytest.approx(36 / (21 / 20 * 12), rel=1e-12)
    assert round(res.statistic, 2) == 2.86
    assert res.pvalue == pytest.approx(stats.chi2.sf(36 / 12.6, 1), rel=1e-10)
    assert res.df == 1 and res.n == 51 and "21 clusters" in res.note
    assert res.estimate == pytest.approx((1 - 7) / 51)
    assert res.details["variance_ratio"] == pytest.approx(4.5 / res.statistic)


def test_thyroid_example_durkalski_by_hand():
    # d_c = D_c / n_c: patient 9: +1/2; patients 1, 2, 5, 18: -2/3, -1/3, -1/3, -1/3;
    # patient 15: -2/2.  Σ d_c = -13/6, Σ d_c² = 73/36, χ² = (169/36) / (73/36) = 169/73.
    pet, spect, patient = thyroid_glands()
    res = pc.clustered_mcnemar(pet, spect, patient, method="durkalski")
    assert res.statistic == pytest.approx(169 / 73, rel=1e-12)
    assert res.details["sum_d"] == pytest.approx(-13 / 6)
    assert res.details["sum_d2"] == pytest.approx(73 / 36)
    assert math.isnan(res.details["variance_ratio"])


def test_rows_counts_and_sums_give_the_same_result():
    pet, spect, patient = thyroid_glands()
    only_a = [PET_ONLY.get(p, 0) for p in range(1, 22)]
    only_b = [SPECT_ONLY.get(p, 0) for p in range(1, 22)]
    for method in ("obuchowski", "durkalski"):
        rows = pc.clustered_mcnemar(pet, spect, patient, method=method)
        counts = pc.stats.paired.clustered_mcnemar_from_counts(only_a, only_b, GLANDS, method=method)
        sums = pc.stats.paired.clustered_mcnemar_from_sums(rows.details["sum_d"], rows.details["sum_d2"], 21,
                                              n_items=51, method=method,
                                              difference=rows.estimate)
        assert rows.statistic == counts.statistic == sums.statistic
        assert rows.pvalue == counts.pvalue == sums.pvalue
        assert rows.confidence_interval() == counts.confidence_interval()
    # Obuchowski's estimate follows from the sums alone; Durkalski's needs it given
    assert pc.stats.paired.clustered_mcnemar_from_sums(-6, 12, 21, n_items=51).estimate == pytest.approx(-6 / 51)
    assert math.isnan(pc.stats.paired.clustered_mcnemar_from_sums(-13 / 6, 73 / 36, 21, n_items=51,
                                                     method="durkalski").estimate)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=3, max_size=60))
def test_one_item_per_cluster_is_mcnemar_times_c_minus_one_over_c(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    nb, nc = int(np.sum(a > b)), int(np.sum(b > a))
    res = pc.clustered_mcnemar(a, b, np.arange(len(a)))
    if nb + nc == 0:
        assert res.degenerate and res.statistic == 0 and res.pvalue == 1
        return
    mcnemar = (nb - nc) ** 2 / (nb + nc)
    c = len(a)
    assert res.statistic == pytest.approx((c - 1) / c * mcnemar, rel=1e-12, abs=1e-12)
    assert 0 <= res.pvalue <= 1


def test_durkalski_with_equal_cluster_sizes_is_obuchowski_times_c_over_c_minus_one():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 2, 120), rng.integers(0, 2, 120)
    clusters = np.repeat(np.arange(30), 4)
    ob = pc.clustered_mcnemar(a, b, clusters)
    du = pc.clustered_mcnemar(a, b, clusters, method="durkalski")
    assert du.statistic == pytest.approx(ob.statistic * 30 / 29, rel=1e-12)


def test_swapping_the_models_keeps_the_statistic_and_flips_the_estimate():
    pet, spect, patient = thyroid_glands()
    ab = pc.clustered_mcnemar(pet, spect, patient)
    ba = pc.clustered_mcnemar(spect, pet, patient)
    assert ab.statistic == ba.statistic and ab.estimate == -ba.estimate


def _clustered_scores(seed: int, n_clusters: int = 40, continuous: bool = False):
    """Items in clusters of uneven size with a shared cluster effect on both models."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_clusters)
    g = np.repeat(np.arange(n_clusters), sizes)
    effect = rng.normal(0, 1, n_clusters)[g]
    if continuous:
        a = 0.6 + 0.1 * effect + rng.normal(0, 0.1, g.size)
        b = 0.55 + 0.1 * effect + 0.05 * rng.normal(0, 1, n_clusters)[g] + rng.normal(0, 0.1, g.size)
    else:
        a = (rng.random(g.size) < 1 / (1 + np.exp(-(0.8 + effect)))).astype(float)
        b = (rng.random(g.size) < 1 / (1 + np.exp(-(0.5 + effect + rng.normal(0, 1, n_clusters)[g])))
             ).astype(float)
    return a, b, g


@pytest.mark.parametrize(("seed", "continuous"), [(0, False), (1, False), (2, True), (3, True)])
def test_cluster_robust_se_equals_statsmodels_ols_cluster(seed, continuous):
    a, b, g = _clustered_scores(seed, continuous=continuous)
    d = a - b
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": g})
    res = pc.paired_difference(a, b, clusters=g)
    assert res.estimate == pytest.approx(fit.params[0], rel=1e-12)
    assert res.details["se"] == pytest.approx(fit.bse[0], rel=1e-10)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(fit.params[0] / fit.bse[0])), rel=1e-8)
    lo, hi = fit.conf_int(alpha=0.05)[0]
    assert (res.ci_low, res.ci_high) == pytest.approx((lo, hi), rel=1e-9)
    # cluster labels of any kind, in any order, give the same answer
    labels = np.array([f"passage-{x}" for x in g])[::-1]
    again = pc.paired_difference(a[::-1], b[::-1], clusters=labels)
    assert again.details["se"] == pytest.approx(res.details["se"], rel=1e-12)


def test_unclustered_se_is_the_paired_clt_se_and_cr1_with_singletons():
    a, b, _ = _clustered_scores(5, continuous=True)
    d = a - b
    res = pc.paired_difference(a, b)
    assert res.details["se"] == pytest.approx(np.std(d, ddof=1) / np.sqrt(d.size), rel=1e-12)
    single = pc.paired_difference(a, b, clusters=np.arange(d.size))
    assert single.details["se"] == pytest.approx(res.details["se"], rel=1e-12)
    assert res.details["design_effect"] == 1 and res.details["n_clusters"] == d.size
    assert res.details["correlation"] == pytest.approx(np.corrcoef(a, b)[0, 1], rel=1e-12)


def test_design_effect_is_the_ratio_of_variances():
    a, b, g = _clustered_scores(7)
    res = pc.paired_difference(a, b, clusters=g)
    ratio = (res.details["se"] / res.details["se_unclustered"]) ** 2
    assert res.details["design_effect"] == pytest.approx(ratio, rel=1e-12)
    assert res.details["design_effect"] > 1  # the shared cluster effect inflates the variance
    # the clustered McNemar test's interval is the same CR1 interval
    mc = pc.clustered_mcnemar(a, b, g)
    assert mc.confidence_interval() == pytest.approx(res.confidence_interval(), rel=1e-12)


def test_sums_from_a_grouped_table_equal_the_rows():
    """What an engine returns (GROUP BY cluster, then sums) gives the row result."""
    a, b, g = _clustered_scores(11, continuous=True)
    frame = pd.DataFrame({"a": a, "b": b, "g": g, "d": a - b})
    per = frame.groupby("g").agg(n=("d", "size"), s=("d", "sum"))
    sums = PairedSums(n_items=len(frame), sum_a=frame.a.sum(), sum_b=frame.b.sum(),
                      sum_a2=(frame.a ** 2).sum(), sum_b2=(frame.b ** 2).sum(),
                      sum_ab=(frame.a * frame.b).sum(), n_clusters=len(per),
                      sum_s2=(per.s ** 2).sum(), sum_ns=(per.n * per.s).sum(),
                      sum_n2=(per.n ** 2).sum())
    from_sums = pc.stats.paired.paired_difference_from_sums(sums)
    rows = pc.paired_difference(a, b, clusters=g)
    assert from_sums.estimate == pytest.approx(rows.estimate, rel=1e-12)
    assert from_sums.details["se"] == pytest.approx(rows.details["se"], rel=1e-10)
    assert from_sums.pvalue == pytest.approx(rows.pvalue, rel=1e-8)


def test_sums_may_come_as_numpy_numbers_or_decimals():
    """DuckDB and Spark return sums of decimal columns as Decimal, numpy engines as numpy."""
    from decimal import Decimal

    ref = pc.stats.paired.clustered_mcnemar_from_sums(-6, 12, 21, n_items=51)
    dec = pc.stats.paired.clustered_mcnemar_from_sums(Decimal(-6), Decimal("12.0"), Decimal(21),
                                         n_items=np.int64(51))
    assert dec.statistic == ref.statistic and dec.pvalue == ref.pvalue
    s = PairedSums(n_items=Decimal(4), sum_a=Decimal(3), sum_b=np.float32(1), sum_a2=3, sum_b2=1,
                   sum_ab=1, n_clusters=np.int32(2), sum_s2=Decimal(4), sum_ns=4.0, sum_n2=8)
    assert isinstance(s.n_items, int) and s.mean_difference == 0.5


def test_one_sided_alternatives():
    a, b, g = _clustered_scores(2, continuous=True)
    two = pc.paired_difference(a, b, clusters=g)
    greater = pc.paired_difference(a, b, clusters=g, alternative="greater")
    less = pc.paired_difference(a, b, clusters=g, alternative="less")
    z = two.statistic
    assert greater.pvalue == pytest.approx(stats.norm.sf(z), rel=1e-10)
    assert less.pvalue == pytest.approx(stats.norm.cdf(z), rel=1e-10)
    assert greater.ci_high == math.inf and less.ci_low == -math.inf


def test_tost_by_its_formula():
    a, b, g = _clustered_scores(4, continuous=True)
    d = a - b
    se = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": g}).bse[0]
    m = 0.1
    res = pc.equivalence_test(a, b, margin=m, clusters=g, alpha=0.05)
    # H0: δ <= -m rejected for large (d̄ + m)/SE; H0: δ >= m for small (d̄ - m)/SE
    p_lower = stats.norm.sf((d.mean() + m) / se)
    p_upper = stats.norm.cdf((d.mean() - m) / se)
    assert res.pvalue == pytest.approx(max(p_lower, p_upper), rel=1e-8)
    assert res.details["p_lower"] == pytest.approx(p_lower, rel=1e-8)
    assert res.details["p_upper"] == pytest.approx(p_upper, rel=1e-8)
    # equivalence at alpha <=> the (1 - 2 alpha) interval lies inside (-m, m)
    q = stats.norm.isf(0.05)
    inside = -m < d.mean() - q * se and d.mean() + q * se < m
    assert res.details["equivalent"] is bool(inside) is (res.pvalue < 0.05)
    assert res.confidence_level == pytest.approx(0.90)


@pytest.mark.parametrize("margin", [0.01, 0.03, 0.05, 0.1, 0.3])
def test_the_equivalence_sentence_appears_only_when_p_is_below_alpha(margin):
    a, b, g = _clustered_scores(9, continuous=True)
    res = pc.equivalence_test(a, b, margin=margin, clusters=g)
    if res.pvalue < 0.05:
        assert res.note.startswith(f"equivalent within ±{margin:g}")
    else:
        assert res.note.startswith(f"not shown equivalent within ±{margin:g}")


# --------------------------------------------------------------------------------------------
# degenerate data
# --------------------------------------------------------------------------------------------


def test_identical_models_are_indistinguishable_everywhere():
    pet, _, patient = thyroid_glands()
    mc = pc.clustered_mcnemar(pet, pet, patient)
    assert (mc.statistic, mc.pvalue, mc.degenerate) == (0.0, 1.0, True)
    assert "no discordant items" in mc.note
    pd_ = pc.paired_difference(pet, pet, clusters=patient)
    assert (pd_.statistic, pd_.pvalue, pd_.degenerate) == (0.0, 1.0, True)
    eq = pc.equivalence_test(pet, pet, margin=0.05, clusters=patient)
    assert eq.pvalue == 1.0 and eq.degenerate and not eq.details["equivalent"]


def test_discordance_balanced_within_every_cluster_is_degenerate():
    a = np.array([1, 0, 1, 0, 1, 1])
    b = np.array([0, 1, 0, 1, 1, 1])
    res = pc.clustered_mcnemar(a, b, [1, 1, 2, 2, 3, 3])
    assert res.degenerate and res.statistic == 0 and res.pvalue == 1
    assert "no cluster has more items right" in res.note
    assert pc.mcnemar([[2, 2], [2, 0]], method="chi2").statistic == 0  # McNemar agrees: b = c


def test_a_constant_nonzero_difference_has_an_infinite_statistic():
    a = np.full(10, 0.7)
    b = np.full(10, 0.6)
    res = pc.paired_difference(a, b, clusters=np.repeat([1, 2], 5))
    assert res.degenerate and res.statistic == math.inf and res.pvalue == 0
    assert res.estimate == pytest.approx(0.1)


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


def test_mcnemar_needs_zero_one_scores():
    with pytest.raises(ValueError, match=r"correct_a must hold 0/1 .*got 0.5 at position 1"):
        pc.clustered_mcnemar([1, 0.5, 0], [1, 1, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="correct_b must hold 0/1"):
        pc.clustered_mcnemar([1, 0, 0], [1, 2, 0], [1, 2, 3])


@pytest.mark.parametrize("func", [pc.paired_difference, pc.clustered_mcnemar])
def test_length_mismatch_nan_and_a_single_cluster(func):
    clusters = [1, 1, 2, 2]
    a, b = [1, 0, 1, 1], [0, 0, 1, 0]

    def kwargs(c):
        return {"clusters": c}

    with pytest.raises(ValueError, match="same length"):
        func(a, b[:3], **kwargs(clusters))
    with pytest.raises(ValueError, match=r"must hold finite scores; got nan at position 2"):
        func([1, 0, np.nan, 1], b, **kwargs(clusters))
    with pytest.raises(ValueError, match=r"clusters must hold at least 2 clusters .*; got 1"):
        func(a, b, **kwargs([7, 7, 7, 7]))
    with pytest.raises(ValueError, match="clusters must give one cluster per item: 4 items; got 3"):
        func(a, b, **kwargs([1, 1, 2]))
    with pytest.raises(ValueError, match="clusters"):
        func(a, b, **kwargs([1, None, 2, 2]))


def test_inconsistent_counts_and_sums_are_refused():
    with pytest.raises(ValueError, match="size must be at least only_a \\+ only_b"):
        pc.stats.paired.clustered_mcnemar_from_counts([2, 0], [1, 0], [2, 3])
    with pytest.raises(ValueError, match="size must count at least 1 item"):
        pc.stats.paired.clustered_mcnemar_from_counts([0, 0], [0, 0], [0, 3])
    with pytest.raises(ValueError, match="at least 2 clusters"):
        pc.stats.paired.clustered_mcnemar_from_counts([1], [0], [3])
    with pytest.raises(ValueError, match="sum_d2 must be at least sum_d\\*\\*2 / n_clusters"):
        pc.stats.paired.clustered_mcnemar_from_sums(-6, 1, 21, n_items=51)
    with pytest.raises(ValueError, match="n_clusters must not exceed n_items"):
        pc.stats.paired.clustered_mcnemar_from_sums(-6, 12, 21, n_items=10)
    with pytest.raises(ValueError, match="sum_n2 must lie between"):
        PairedSums(n_items=10, sum_a=5, sum_b=4, sum_a2=5, sum_b2=4, sum_ab=3, n_clusters=2,
                   sum_s2=1, sum_ns=5, sum_n2=20)
    with pytest.raises(TypeError, match="sums must be a PairedSums"):
        pc.stats.paired.paired_difference_from_sums({"n_items": 10})


def test_bad_margin_and_alpha():
    with pytest.raises(ValueError, match="margin must be a finite number > 0"):
        pc.equivalence_test([1, 0, 1], [1, 1, 0], margin=0)
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 0.5\)"):
        pc.equivalence_test([1, 0, 1], [1, 1, 0], margin=0.1, alpha=0.5)


# --------------------------------------------------------------------------------------------
# repeated answers
# --------------------------------------------------------------------------------------------


def test_repeated_answers_against_a_direct_computation():
    rng = np.random.default_rng(8)
    k = rng.integers(2, 7, 50)
    items = np.repeat([f"q{i}" for i in range(50)], k)
    p = np.repeat(rng.beta(2, 2, 50), k)
    scores = (rng.random(items.size) < p).astype(float)
    res = pc.repeated_answers(scores, items)
    frame = pd.DataFrame({"item": items, "score": scores}).groupby("item", sort=False)["score"]
    means, within, counts = frame.mean(), frame.var(ddof=1), frame.size()
    assert res.item_scores.to_numpy() == pytest.approx(means.to_numpy(), rel=1e-12)
    assert res.mean == pytest.approx(means.mean(), rel=1e-12)
    assert res.variance == pytest.approx(means.var(ddof=1), rel=1e-10)
    assert res.within_variance == pytest.approx(within.mean(), rel=1e-10)
    one = means.var(ddof=1) - (within / counts).mean() + within.mean()
    assert res.se_one_answer == pytest.approx(math.sqrt(one / 50), rel=1e-10)
    assert res.variance_reduction == pytest.approx(1 - means.var(ddof=1) / one, rel=1e-10)


def test_one_answer_variance_is_estimated_without_bias():
    """Items drawn with P(right) ~ Beta(2, 2): one answer's variance is E p (1 - E p) = 0.25."""
    rng = np.random.default_rng(12)
    n, k = 200, 5
    estimates = []
    for _ in range(300):
        p = rng.beta(2, 2, n)
        scores = (rng.random((n, k)) < p[:, None]).astype(float).ravel()
        res = pc.repeated_answers(scores, np.repeat(np.arange(n), k))
        estimates.append(res.se_one_answer ** 2 * n)
    assert np.mean(estimates) == pytest.approx(0.25, abs=0.005)


def test_repeated_answers_need_two_answers_per_item():
    with pytest.raises(ValueError, match="item 'q2' has 1"):
        pc.repeated_answers([1, 0, 1], ["q1", "q1", "q2"])
    with pytest.raises(ValueError, match="scores and items must have one entry per answer"):
        pc.repeated_answers([1, 0, 1], ["q1", "q1"])
