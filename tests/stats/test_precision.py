"""Tests for precmp_lib.stats.precision, precision_cells and precision_gee.

Provenance of reference values:
- "docs/methods.md §6.6(x)" / "docs/methods.md §7 ex. n": worked examples of the methods reference, recomputed with
  DTComPair 1.2.2 (pv.gs, pv.wgs, pv.rpv), geepack 1.3.9 and statsmodels 0.15.0.
- "DTComPair formula": the R package's pv.gs / pv.wgs / pv.rpv expressions (R/DTComPair.R),
  transcribed below as test oracles on DTComPair's own table layout (rows Test 2, columns
  Test 1), so the layout mapping is checked too.
- "score form": Leisenring, Alonzo & Pepe's per-observation score statistic (Gondara, eq. 9),
  computed on the expanded observations.
- statsmodels GEE (Binomial, Independence, robust covariance) called in the test.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.genmod import families
from statsmodels.genmod.cov_struct import Independence
from statsmodels.genmod.generalized_estimating_equations import GEE
from statsmodels.stats.proportion import proportions_ztest

from precmp_lib.core.counts import (
    PatternCounts,
    _cells_direct,
    cells_from_tab_paired,
    class_cells,
    joint_confusion,
    pattern_counts,
    precision_moments,
)
from precmp_lib.stats.combine import adjust_pvalues
from precmp_lib.stats.precision import (
    compare_precision,
    compare_precision_from_counts,
    gs_test,
    gw_test,
    precision_test_from_cells,
    rp_test,
    wald_test,
)
from precmp_lib.stats.precision_cells import (
    CellTest,
    gs_from_cells,
    gw_from_cells,
    naive_rp_from_cells,
    naive_z_from_cells,
    rp_from_cells,
    wald_from_cells,
)
from precmp_lib.stats.precision_gee import gee_precision, gee_precision_from_counts

# ---- the worked examples of docs/methods.md §6.6, as canonical cells n[d][a][b] -------------------


def make_cells(s11, s10, s01, s00, r11, r10, r01, r00):
    cells = np.zeros((2, 2, 2))
    cells[1, 1, 1], cells[1, 1, 0], cells[1, 0, 1], cells[1, 0, 0] = s11, s10, s01, s00
    cells[0, 1, 1], cells[0, 1, 0], cells[0, 0, 1], cells[0, 0, 0] = r11, r10, r01, r00
    return cells


PAIRED1 = make_cells(319, 78, 22, 32, 31, 53, 22, 155)  # docs/methods.md §6.6(a), DTComPair Paired1
SMALL = make_cells(30, 10, 4, 6, 5, 8, 3, 60)  # docs/methods.md §6.6(b)
ONE = make_cells(20, 5, 6, 4, 0, 7, 0, 50)  # docs/methods.md §6.6(c): P_b = 1
DIAB0 = make_cells(103, 45, 6, 0, 63, 64, 1, 0)  # docs/methods.md §6.6(d) class "0" (s00, r00 unused)
DIAB1 = make_cells(53, 1, 64, 0, 11, 6, 45, 0)  # docs/methods.md §6.6(d) class "1"
IDENTICAL = cells_from_tab_paired(50, 0, 0, 10, 12, 0, 0, 40)  # docs/methods.md §6.6 edge case


# ---- test oracles: DTComPair's formulas on its own layout -----------------------------------


def dtcompair_tab(cells):
    """DTComPair's tab$diseased / tab$non.diseased 2 x 2 cores: [Test2 +/-, Test1 +/-]."""
    dis = np.array([[cells[1, 1, 1], cells[1, 0, 1]], [cells[1, 1, 0], cells[1, 0, 0]]])
    nd = np.array([[cells[0, 1, 1], cells[0, 0, 1]], [cells[0, 1, 0], cells[0, 0, 0]]])
    return dis, nd


def dtcompair_pv_gs(cells):
    """pv.gs (R/DTComPair.R): the ppv statistic, 0-based indices of its 1-based code."""
    d, nd = dtcompair_tab(cells)
    z_bar = (d[0].sum() + nd[0].sum()) / (
        d[0, 0] + d[0].sum() + d[1, 0] + nd[0, 0] + nd[0].sum() + nd[1, 0])
    d_bar = (2 * d[0, 0] + d[0, 1] + d[1, 0]) / (
        2 * d[0, 0] + d[0, 1] + d[1, 0] + 2 * nd[0, 0] + nd[0, 1] + nd[1, 0])
    numerator = (d[0, 0] * (1 - 2 * z_bar) + d[0, 1] * (1 - z_bar) + d[1, 0] * (0 - z_bar)) ** 2
    denominator = (1 - d_bar) ** 2 * (
        d[0, 0] * (1 - 2 * z_bar) ** 2 + d[0, 1] * (1 - z_bar) ** 2 + d[1, 0] * z_bar**2
    ) + d_bar**2 * (nd[0, 0] * (1 - 2 * z_bar) ** 2 + nd[0, 1] * (1 - z_bar) ** 2 + nd[1, 0] * z_bar**2)
    return numerator / denominator


def dtcompair_pv_wgs(cells):
    """pv.wgs (R/DTComPair.R), ppv part."""
    d, nd = dtcompair_tab(cells)
    m1 = d[:, 0].sum() + nd[:, 0].sum()  # tab[3,1]: Test1 positive
    m2 = d[0].sum() + nd[0].sum()  # tab[1,3]: Test2 positive
    ppv1 = d[:, 0].sum() / m1
    ppv2 = d[0].sum() / m2
    pooled = (2 * d[0, 0] + d[0, 1] + d[1, 0]) / (m1 + m2)
    c_p = (d[0, 0] * (1 - pooled) ** 2 + nd[0, 0] * pooled**2) / (m1 + m2)
    return (ppv1 - ppv2) ** 2 / ((pooled * (1 - pooled) - 2 * c_p) * (1 / m2 + 1 / m1))


def score_form(cells):
    """Seed eq 9 on the expanded observations with >= 1 positive prediction (B coded Z = 1)."""
    rows = []
    for d in (0, 1):
        for a in (0, 1):
            for b in (0, 1):
                rows += [(d, a, b)] * int(cells[d, a, b])
    obs = np.array(rows)
    obs = obs[obs[:, 1] + obs[:, 2] > 0]
    D, m, T = obs[:, 0], obs[:, 1] + obs[:, 2], obs[:, 2]
    z_bar = T.sum() / m.sum()
    d_bar = (m * D).sum() / m.sum()
    return (D * (T - m * z_bar)).sum() ** 2 / (((D - d_bar) ** 2) * (T - m * z_bar) ** 2).sum()


cells_strategy = st.lists(st.integers(0, 40), min_size=8, max_size=8).map(
    lambda v: np.array(v, dtype=float).reshape(2, 2, 2)
)


def informative(cells):
    c = cells
    m_a = c[1, 1].sum() + c[0, 1].sum()
    m_b = c[1, :, 1].sum() + c[0, :, 1].sum()
    discordant = c[1, 1, 0] + c[1, 0, 1] + c[0, 1, 0] + c[0, 0, 1]
    pos = c[1, 1, 1] + c[1, 1, 0] + c[1, 0, 1]
    neg = c[0, 1, 1] + c[0, 1, 0] + c[0, 0, 1]
    return m_a > 0 and m_b > 0 and discordant > 0 and pos > 0 and neg > 0


# ---- gs_from_cells --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "gs", "gs_p", "wgs", "wgs_p"),
    [
        (PAIRED1, 5.71124070, 0.01685662, 5.465887, 0.019391),  # docs/methods.md §6.6(a), pv.gs 8 digits
        (SMALL, 0.952197, 0.329161, 0.908674, 0.340466),  # docs/methods.md §6.6(b)
        (ONE, 8.698682, 0.0031844, 7.144417, 0.0075198),  # docs/methods.md §6.6(c)
        (DIAB0, 13.715478, 2.1269e-04, 13.097892, 2.9563e-04),  # docs/methods.md §6.6(d) class 0
    ],
)
def test_gs_and_wgs_match_methods_worked_examples(cells, gs, gs_p, wgs, wgs_p):
    res = gs_from_cells(cells)
    stat, p = res.statistic, res.pvalue
    assert stat == pytest.approx(gs, rel=1e-6) and p == pytest.approx(gs_p, rel=1e-4)
    res = gs_from_cells(cells, weighted=True)
    stat, p = res.statistic, res.pvalue
    assert stat == pytest.approx(wgs, rel=1e-6) and p == pytest.approx(wgs_p, rel=1e-4)


@pytest.mark.parametrize("cells", [PAIRED1, SMALL, ONE, DIAB0, DIAB1])
def test_gs_equals_dtcompair_formulas_and_score_form(cells):
    res = gs_from_cells(cells)
    stat, p = res.statistic, res.pvalue
    assert stat == pytest.approx(dtcompair_pv_gs(cells), rel=1e-10)
    assert stat == pytest.approx(score_form(cells), rel=1e-10)
    assert p == pytest.approx(stats.chi2.sf(dtcompair_pv_gs(cells), 1), rel=1e-10)
    wstat = gs_from_cells(cells, weighted=True).statistic
    assert wstat == pytest.approx(dtcompair_pv_wgs(cells), rel=1e-10)


def test_gs_paired1_class1_p_value_matches_diabetic_retinopathy_row():
    # docs/methods.md §6.6(d), class "1": GS 3.181222, p 0.074489 (Gondara Table 5: 0.07)
    res = gs_from_cells(DIAB1)
    stat, p = res.statistic, res.pvalue
    assert stat == pytest.approx(3.181222, rel=1e-6) and p == pytest.approx(0.074489, rel=1e-4)


@settings(max_examples=200, deadline=None)
@given(cells_strategy)
def test_gs_equals_score_form_on_random_tables(cells):
    if not informative(cells):
        return
    stat = gs_from_cells(cells).statistic
    assert stat == pytest.approx(score_form(cells), rel=1e-9)
    assert stat == pytest.approx(dtcompair_pv_gs(cells), rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(cells_strategy, st.booleans())
def test_gs_symmetric_under_swapping_classifiers(cells, weighted):
    res = gs_from_cells(cells, weighted=weighted)
    s1, p1 = res.statistic, res.pvalue
    res = gs_from_cells(cells.transpose(0, 2, 1), weighted=weighted)
    s2, p2 = res.statistic, res.pvalue
    np.testing.assert_allclose([s1, p1], [s2, p2], rtol=1e-12, atol=0)
    if not np.isnan(p1):
        assert 0.0 <= p1 <= 1.0


def test_gs_degenerate_policy_elementwise():
    never_b = make_cells(0, 3, 0, 2, 0, 2, 0, 7)  # B never predicts the class
    all_right = make_cells(10, 3, 2, 5, 0, 0, 0, 9)  # every positive prediction correct
    batch = np.stack([PAIRED1, IDENTICAL, never_b, all_right])
    for weighted in (False, True):
        res = gs_from_cells(batch, weighted=weighted)
        stat, p = res.statistic, res.pvalue
        assert stat.shape == p.shape == (4,)
        assert stat[1] == 0.0 and p[1] == 1.0  # identical (DTComPair returns NaN)
        assert np.isnan(stat[2]) and np.isnan(p[2])  # precision of B undefined
        assert stat[3] == 0.0 and p[3] == 1.0  # pooled precision 1
        assert stat[0] > 0


def test_every_cells_kernel_answers_with_a_celltest():
    # One result family for the vectorised kernels. The score tests (GS, WGS, naive z) estimate
    # P_a - P_b, the multinomial Wald's estimate (docs/methods.md §6.4), and give no interval.
    never_b = make_cells(0, 3, 0, 2, 0, 2, 0, 7)  # B never predicts the class
    batch = np.stack([PAIRED1, IDENTICAL, never_b])
    kernels = (gs_from_cells, gw_from_cells, wald_from_cells, rp_from_cells, naive_z_from_cells,
               naive_rp_from_cells)
    assert all(isinstance(kernel(batch), CellTest) for kernel in kernels)
    wald = wald_from_cells(batch)
    for res in (gs_from_cells(batch), gs_from_cells(batch, weighted=True),
                naive_z_from_cells(batch)):
        np.testing.assert_array_equal(res.estimate, wald.estimate)  # NaN where B never predicts
        assert np.isnan(res.se).all() and np.isnan(res.ci_low).all() and np.isnan(res.ci_high).all()
        assert res.statistic.shape == res.degenerate.shape == (3,)
    assert gs_from_cells(batch).degenerate.tolist() == [False, True, False]
    assert naive_z_from_cells(batch).degenerate.tolist() == [False, False, False]


def test_gs_from_cells_accepts_batches_and_rejects_bad_cells():
    batch = np.stack([np.stack([PAIRED1, SMALL]), np.stack([ONE, DIAB0])])
    stat = gs_from_cells(batch).statistic
    assert stat.shape == (2, 2)
    assert stat[1, 0] == pytest.approx(gs_from_cells(ONE).statistic, rel=1e-15)
    with pytest.raises(ValueError, match=r"cells must have shape \(\.\.\., 2, 2, 2\)"):
        gs_from_cells(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        gs_from_cells(-PAIRED1)


def dtcompair_pv_rpv(cells, alpha=0.05):
    """pv.rpv (R/DTComPair.R, the version with rel.ppv = ppv.1/ppv.2), ppv part."""
    d, nd = dtcompair_tab(cells)
    n = d.sum() + nd.sum()
    p3, p5, p6, p7 = nd[1, 0] / n, d[0, 0] / n, d[0, 1] / n, d[1, 0] / n
    ppv1 = d[:, 0].sum() / (d[:, 0].sum() + nd[:, 0].sum())
    ppv2 = d[0].sum() / (d[0].sum() + nd[0].sum())
    rel = ppv1 / ppv2
    sigma2 = (1 / ((p5 + p7) * (p5 + p6))) * (
        p6 * (1 - ppv1) + p5 * (ppv1 - ppv2) + 2 * (p7 + p3) * ppv2 * ppv1 + p7 * (1 - 3 * ppv2))
    se = np.sqrt(sigma2 / n)
    q = stats.norm.ppf(1 - alpha / 2)
    z = np.log(rel) / se
    return rel, se, np.exp(np.log(rel) - q * se), np.exp(np.log(rel) + q * se), 2 * stats.norm.cdf(-abs(z))


def expand(cells):
    """Observations (d, a, b) from cells, as label arrays with positive class 1."""
    rows = [(d, a, b) for d in (0, 1) for a in (0, 1) for b in (0, 1)
            for _ in range(int(cells[d, a, b]))]
    arr = np.array(rows)
    return arr[:, 0], arr[:, 1], arr[:, 2]


# ---- GW, multinomial Wald and RP kernels ----------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "stat", "p"),
    [
        (PAIRED1, 5.411100, 0.020009),  # docs/methods.md §6.6(a): geepack beta -0.3084711, SE 0.1326086
        (SMALL, 0.8988352, 0.343094),  # docs/methods.md §6.6(b): geepack 0.8988352
        (DIAB0, 12.902708, 3.2811e-04),  # docs/methods.md §6.6(d) class 0
        (DIAB1, 2.748500, 0.097346),  # docs/methods.md §6.6(d) class 1
    ],
)
def test_gw_matches_geepack_worked_examples(cells, stat, p):
    res = gw_from_cells(cells)
    assert res.statistic == pytest.approx(stat, rel=1e-6)
    assert res.pvalue == pytest.approx(p, rel=1e-4)


def test_gw_paired1_coefficient_and_se_match_geepack():
    # docs/methods.md §6.6(a): geepack geeglm beta = -0.3084711, robust SE 0.1326086
    res = gw_from_cells(PAIRED1)
    assert res.estimate == pytest.approx(-0.3084711, rel=1e-7)
    assert res.se == pytest.approx(0.1326086, rel=1e-6)
    z = stats.norm.isf(0.025)
    assert res.ci_low == pytest.approx(res.estimate - z * res.se, rel=1e-12)


def test_gw_differs_from_the_seed_uncorrected_formula():
    # docs/methods.md §0.1: Gondara, eq. 8 pairs P1Q1 with 1/T1 and gives 5.654920 on Paired1; ours 5.4111
    c = PAIRED1
    t1, t5 = c[:, 1].sum(), c[:, :, 1].sum()
    p1, p2 = (c[1, 1, 1] + c[1, 1, 0]) / t1, (c[1, 1, 1] + c[1, 0, 1]) / t5
    cp = (c[1, 1, 1] * (1 - p1) * (1 - p2) + c[0, 1, 1] * p1 * p2) / (t1 + t5)
    beta = np.log(p1 / (1 - p1)) - np.log(p2 / (1 - p2))
    seed = beta**2 * p1 * (1 - p1) * p2 * (1 - p2) / (
        p1 * (1 - p1) / t1 + p2 * (1 - p2) / t5 - 2 * cp * (1 / t1 + 1 / t5))
    assert seed == pytest.approx(5.654920, rel=1e-6)
    assert gw_from_cells(PAIRED1).statistic == pytest.approx(5.411100, rel=1e-6)


@pytest.mark.parametrize(
    ("cells", "stat", "p"),
    [(PAIRED1, 5.699903, 0.016966), (SMALL, 0.950521, 0.329587), (ONE, 8.96, 0.0027595)],
)
def test_multinomial_wald_matches_methods(cells, stat, p):
    # docs/methods.md §6.6(a)-(c), T_M
    res = wald_from_cells(cells)
    assert res.statistic == pytest.approx(stat, rel=1e-6)
    assert res.pvalue == pytest.approx(p, rel=1e-4)
    z = stats.norm.isf(0.025)
    assert res.ci_high - res.ci_low == pytest.approx(2 * z * res.se, rel=1e-12)


@pytest.mark.parametrize(
    ("cells", "rp", "low", "high", "p"),
    [
        (PAIRED1, 0.953646, 0.917144, 0.991601, 0.017146),  # docs/methods.md §6.6(a)
        (SMALL, 0.932297, 0.809631, 1.073549, 0.330075),  # docs/methods.md §6.6(b)
        (ONE, 0.78125, 0.650380, 0.938453, 0.0083140),  # docs/methods.md §6.6(c)
        (DIAB0, 0.8542, 0.7882, 0.9257, 1.23e-04),  # docs/methods.md §6.6(d), 4 digits printed
        (DIAB1, 1.1246, 0.9918, 1.2751, 0.0670),
    ],
)
def test_rp_matches_methods_worked_examples(cells, rp, low, high, p):
    res = rp_from_cells(cells)
    digits = 1e-6 if rp != round(rp, 4) or cells is PAIRED1 else 5e-4
    assert res.estimate == pytest.approx(rp, rel=digits)
    assert res.ci_low == pytest.approx(low, rel=max(digits, 1e-6))
    assert res.ci_high == pytest.approx(high, rel=max(digits, 1e-6))
    assert res.pvalue == pytest.approx(p, rel=5e-3)


@pytest.mark.parametrize("cells", [PAIRED1, SMALL, ONE, DIAB0, DIAB1])
def test_rp_equals_dtcompair_formula(cells):
    rel, se, low, high, p = dtcompair_pv_rpv(cells)
    res = rp_from_cells(cells)
    np.testing.assert_allclose([res.estimate, res.se, res.ci_low, res.ci_high, res.pvalue],
                               [rel, se, low, high, p], rtol=1e-10)


def test_rp_paired1_se_and_seed_counts_error():
    # docs/methods.md §6.5: SE(log RP) = 0.01991247; eq 18 with counts gives a variance 712x too small
    res = rp_from_cells(PAIRED1)
    assert res.se == pytest.approx(0.01991247, rel=1e-6)
    assert res.statistic == pytest.approx(-2.383559, rel=1e-6)


def test_rp_variance_matches_numerical_delta_method():
    # docs/methods.md §6.5: verified against a numerical multinomial delta method; redo it here
    c = PAIRED1.ravel()
    n = c.sum()
    probs = c / n

    def log_rp(p):
        q = p.reshape(2, 2, 2)
        pa = (q[1, 1, 1] + q[1, 1, 0]) / q[:, 1].sum()
        pb = (q[1, 1, 1] + q[1, 0, 1]) / q[:, :, 1].sum()
        return np.log(pa / pb)

    eps = 1e-7
    grad = np.array([(log_rp(probs + eps * e) - log_rp(probs - eps * e)) / (2 * eps)
                     for e in np.eye(8)])
    cov = (np.diag(probs) - np.outer(probs, probs)) / n
    assert rp_from_cells(PAIRED1).se == pytest.approx(np.sqrt(grad @ cov @ grad), rel=1e-6)


def test_naive_z_equals_statsmodels_two_proportion_z():
    # statsmodels proportions_ztest (pooled variance) treats the two precisions as independent
    for cells in (PAIRED1, SMALL, DIAB0):
        tp = [cells[1, 1].sum(), cells[1, :, 1].sum()]
        m = [cells[:, 1].sum(), cells[:, :, 1].sum()]
        z, p = proportions_ztest(tp, m)
        res = naive_z_from_cells(cells)
        stat, pz = res.statistic, res.pvalue
        assert stat == pytest.approx(z**2, rel=1e-10) and pz == pytest.approx(p, rel=1e-10)
    # docs/methods.md §6.6(a): naive z^2 = 2.639732, p = 0.104221
    assert naive_z_from_cells(PAIRED1).statistic == pytest.approx(2.639732, rel=1e-6)


def test_naive_rp_is_katz_interval_and_wider_when_correlated():
    res = naive_rp_from_cells(PAIRED1)
    tp_a, tp_b = PAIRED1[1, 1].sum(), PAIRED1[1, :, 1].sum()
    pa, pb = tp_a / PAIRED1[:, 1].sum(), tp_b / PAIRED1[:, :, 1].sum()
    se = np.sqrt((1 - pa) / tp_a + (1 - pb) / tp_b)  # Katz et al. (1978) log interval
    assert res.se == pytest.approx(se, rel=1e-12)
    paired = rp_from_cells(PAIRED1)
    assert res.estimate == pytest.approx(paired.estimate, rel=1e-12)
    assert res.ci_high - res.ci_low > paired.ci_high - paired.ci_low


def test_kernels_degenerate_policy():
    batch = np.stack([IDENTICAL, ONE, make_cells(0, 0, 5, 2, 0, 2, 1, 7)])
    gw = gw_from_cells(batch)
    assert gw.statistic[0] == 0 and gw.pvalue[0] == 1 and gw.degenerate[0]
    assert np.isnan(gw.statistic[1])  # P_b = 1: logit infinite
    wald = wald_from_cells(batch)
    assert wald.statistic[0] == 0 and wald.pvalue[0] == 1 and np.isfinite(wald.statistic[1])
    rp = rp_from_cells(batch)
    assert rp.statistic[0] == 0 and rp.pvalue[0] == 1 and rp.estimate[0] == 1
    assert rp.ci_low[0] == rp.ci_high[0] == 1
    assert np.isnan(rp.estimate[2])  # P_a = 0
    both_one = make_cells(10, 4, 0, 3, 0, 0, 0, 9)  # P_a = P_b = 1, not identical
    assert rp_from_cells(both_one).pvalue == 1 and rp_from_cells(both_one).degenerate
    one_vs_zero = make_cells(0, 5, 0, 1, 0, 0, 4, 6)  # P_a = 1, P_b = 0 -> Wald x/0
    w = wald_from_cells(one_vs_zero)
    assert w.statistic == np.inf and w.pvalue == 0 and w.degenerate


def test_p_values_come_from_survival_functions():
    big = PAIRED1 * 40  # a large sample: p far below 1e-16 (1 - cdf would give 0) but not 0
    p = gs_from_cells(big).pvalue
    assert 0 < p < 1e-40
    assert gw_from_cells(big).pvalue > 0 and rp_from_cells(big).pvalue > 0


# ---- single tests ---------------------------------------------------------------------------


@pytest.mark.parametrize("cells", [PAIRED1, SMALL, DIAB0])
def test_raw_path_equals_counts_path(cells):
    y, a, b = expand(cells)
    pairs = [(gs_test(y, a, b), "gs"), (gs_test(y, a, b, weighted=True), "wgs"),
             (gw_test(y, a, b), "gw"), (wald_test(y, a, b), "wald"), (rp_test(y, a, b), "rp")]
    for raw, method in pairs:
        counted = precision_test_from_cells(cells, method=method)
        for field in ("statistic", "pvalue", "estimate", "ci_low", "ci_high"):
            np.testing.assert_allclose(getattr(raw, field), getattr(counted, field), rtol=1e-13)
        assert raw.n == len(y) and raw.method == counted.method


def test_single_tests_report_estimates_and_details():
    y, a, b = expand(PAIRED1)
    gs = gs_test(y, a, b)
    assert gs.df == 1 and gs.estimate == pytest.approx(319 / 712 * 0 + (397 / 481 - 341 / 394))
    assert gs.details["n_pred_a"] == 481 and gs.details["n_pred_b"] == 394
    gw = gw_test(y, a, b)
    assert gw.details["odds_ratio"] == pytest.approx(np.exp(-0.3084711), rel=1e-6)
    assert gw.details["odds_ratio_ci_low"] == pytest.approx(np.exp(gw.ci_low), rel=1e-12)
    rp = rp_test(y, a, b, confidence_level=0.9)
    assert rp.confidence_level == 0.9 and rp.df is None
    assert rp.ci_low > rp_test(y, a, b).ci_low
    stat, p = gs  # unpacks like scipy
    assert (stat, p) == (gs.statistic, gs.pvalue)


def test_single_tests_string_labels_and_positive():
    y, a, b = expand(PAIRED1)
    names = np.array(["benign", "malignant"])
    res = gs_test(names[y], names[a], names[b], positive="malignant")
    assert res.statistic == pytest.approx(gs_from_cells(PAIRED1).statistic, rel=1e-14)
    other = gs_test(names[y], names[a], names[b], positive="benign")
    flipped = 1 - PAIRED1[::-1, ::-1, ::-1] * 0  # "benign" is the complement class
    assert other.statistic == pytest.approx(gs_from_cells(PAIRED1[::-1, ::-1, ::-1] * flipped).statistic)
    with pytest.raises(ValueError, match="positive=1 is not among the labels"):
        gs_test(names[y], names[a], names[b])


def test_single_tests_identical_classifiers_are_degenerate():
    y, a, _ = expand(PAIRED1)
    for res in (gs_test(y, a, a), gs_test(y, a, a, weighted=True), gw_test(y, a, a),
                wald_test(y, a, a), rp_test(y, a, a)):
        assert res.statistic == 0 and res.pvalue == 1 and res.degenerate
        assert "same observations" in res.note


def test_single_tests_undefined_quantities_raise():
    y = [1, 0, 1, 0, 1, 1]
    never = [0, 0, 0, 0, 0, 0]
    a = [1, 1, 1, 0, 0, 1]
    perfect = [1, 0, 1, 0, 0, 0]  # precision 1
    for test in (gs_test, gw_test, wald_test, rp_test):
        with pytest.raises(ValueError, match="y_pred_b never predicts class 1: its precision"):
            test(y, a, never)
    with pytest.raises(ValueError, match="precision of y_pred_b for class 1 is 1: its logit"):
        gw_test(y, a, perfect)
    assert np.isfinite(gs_test(y, a, perfect).statistic)  # GS stays defined (docs/methods.md §6.6)
    wrong = [0, 1, 0, 0, 0, 0]  # predicts 1 once, wrongly: precision 0
    with pytest.raises(ValueError, match="precision of y_pred_b for class 1 is 0: the relative"):
        rp_test(y, a, wrong)
    with pytest.raises(ValueError, match="method must be one of"):
        precision_test_from_cells(PAIRED1, method="z")
    with pytest.raises(ValueError, match="confidence_level must lie in"):
        rp_test(y, a, perfect, confidence_level=1.5)
    with pytest.raises(ValueError, match=r"shape \(2, 2, 2\) for a single test"):
        precision_test_from_cells(np.stack([PAIRED1, SMALL]))
    with pytest.raises(ValueError, match="y_pred_a must have the same length"):
        gs_test(y, a[:3], a)


def test_small_samples_carry_a_note():
    res = precision_test_from_cells(make_cells(3, 1, 2, 4, 1, 2, 1, 9))
    assert "positive predictions" in res.note and not res.degenerate


@settings(max_examples=150, deadline=None)
@given(cells_strategy)
def test_swapping_classifiers_keeps_statistics_and_flips_estimates(cells):
    swapped = cells.transpose(0, 2, 1)
    for kernel in (gw_from_cells, wald_from_cells, rp_from_cells):
        r1, r2 = kernel(cells), kernel(swapped)
        np.testing.assert_allclose(r1.pvalue, r2.pvalue, rtol=1e-9, atol=1e-300)
        if np.isnan(r1.estimate):
            assert np.isnan(r2.estimate)
            continue
        assert 0 <= r1.pvalue <= 1
        if kernel is rp_from_cells:
            np.testing.assert_allclose(r1.estimate * r2.estimate, 1.0, rtol=1e-12)
            np.testing.assert_allclose([r1.ci_low, r1.ci_high], [1 / r2.ci_high, 1 / r2.ci_low],
                                       rtol=1e-9)
        else:
            np.testing.assert_allclose(r1.estimate, -r2.estimate, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose([r1.ci_low, r1.ci_high], [-r2.ci_high, -r2.ci_low],
                                       rtol=1e-9, atol=1e-12)


# ---- compare_precision ----------------------------------------------------------------------


def three_class_data(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.75, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.8, y, np.where(rng.random(n) < 0.5, 0, rng.integers(0, 3, n)))
    return y, a, b


def test_compare_precision_columns_and_rows_equal_single_tests():
    y, a, b = three_class_data()
    tab = compare_precision(y, a, b)
    assert list(tab.columns) == [
        "class", "precision_a", "precision_b", "n_pred_a", "n_pred_b", "gs_statistic",
        "gs_pvalue", "wgs_statistic", "wgs_pvalue", "gw_statistic", "gw_pvalue", "rp",
        "rp_ci_low", "rp_ci_high", "rp_pvalue", "note"]
    assert tab["class"].tolist() == [0, 1, 2]
    for _, row in tab.iterrows():
        k = row["class"]
        gs, wgs = gs_test(y, a, b, positive=k), gs_test(y, a, b, positive=k, weighted=True)
        gw, rp = gw_test(y, a, b, positive=k), rp_test(y, a, b, positive=k)
        np.testing.assert_allclose(
            row[["gs_statistic", "gs_pvalue", "wgs_statistic", "wgs_pvalue", "gw_statistic",
                 "gw_pvalue", "rp", "rp_ci_low", "rp_ci_high", "rp_pvalue"]].astype(float),
            [gs.statistic, gs.pvalue, wgs.statistic, wgs.pvalue, gw.statistic, gw.pvalue,
             rp.estimate, rp.ci_low, rp.ci_high, rp.pvalue], rtol=1e-13)
        assert row["precision_a"] == pytest.approx(np.mean(y[a == k] == k), rel=1e-14)
        assert row["n_pred_b"] == np.sum(b == k)


def test_compare_precision_undefined_and_degenerate_rows():
    y = np.array([0, 0, 1, 1, 2, 2, 2, 0, 1, 2] * 5)
    a = np.array([0, 0, 1, 1, 2, 2, 2, 1, 1, 0] * 5)
    b = np.array([0, 1, 1, 1, 1, 1, 1, 0, 1, 1] * 5)  # never predicts 2
    tab = compare_precision(y, a, b).set_index("class")
    assert np.isnan(tab.loc[2, ["gs_statistic", "wgs_pvalue", "gw_statistic", "rp"]].astype(float)).all()
    assert "never predicted by B" in tab.loc[2, "note"]
    assert tab.loc[0, "precision_b"] == 1.0
    assert np.isnan(tab.loc[0, "gw_pvalue"]) and np.isfinite(tab.loc[0, "gs_pvalue"])
    assert "precision of B is 1: logit infinite" in tab.loc[0, "note"]
    same = compare_precision(y, a, a)
    assert (same["gs_statistic"] == 0).all() and (same["rp_pvalue"] == 1).all()
    assert same["note"].str.contains("same observations").all()


def test_compare_precision_labels_strings_and_many_classes():
    y, a, b = three_class_data(600, seed=3)
    base = compare_precision(y, a, b)
    names = np.array(["x", "y", "z"])
    strings = compare_precision(names[y], names[a], names[b])
    assert strings["class"].tolist() == ["x", "y", "z"]
    pd.testing.assert_frame_equal(strings.drop(columns="class"), base.drop(columns="class"))
    with_empty = compare_precision(y, a, b, labels=[2, 1, 0, 7])
    assert with_empty["class"].tolist() == [2, 1, 0, 7]
    assert np.isnan(with_empty["gs_statistic"].iloc[3])
    np.testing.assert_allclose(with_empty["gs_statistic"].iloc[:3], base["gs_statistic"][::-1])
    # many classes: the per-class cells are counted without the K^3 tensor
    rng = np.random.default_rng(4)
    yy = rng.integers(0, 300, 20000)
    aa = np.where(rng.random(20000) < 0.7, yy, rng.integers(0, 300, 20000))
    bb = np.where(rng.random(20000) < 0.7, yy, rng.integers(0, 300, 20000))
    wide = compare_precision(yy * 7, aa * 7, bb * 7)
    assert len(wide) == 300
    cells = class_cells(joint_confusion(yy, aa, bb).table)
    np.testing.assert_array_equal(_cells_direct(yy, aa, bb, 300), cells)
    np.testing.assert_allclose(wide["gs_statistic"], gs_from_cells(cells).statistic, rtol=1e-13)


def test_compare_precision_from_counts_paths_agree():
    y, a, b = three_class_data(800, seed=5)
    jc = joint_confusion(y, a, b)
    direct = compare_precision(y, a, b)
    pd.testing.assert_frame_equal(compare_precision_from_counts(jc), direct)
    pd.testing.assert_frame_equal(compare_precision_from_counts(jc.table), direct)
    pd.testing.assert_frame_equal(compare_precision_from_counts(class_cells(jc.table)), direct)
    with pytest.raises(ValueError, match="counts must be a JointConfusion"):
        compare_precision_from_counts(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="classes must have 3 labels"):
        compare_precision_from_counts(jc.table, classes=[0, 1])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(20, 300))
def test_compare_precision_row_order_and_swap_invariance(seed, n):
    y, a, b = three_class_data(n, seed)
    perm = np.random.default_rng(seed + 1).permutation(n)
    t1 = compare_precision(y, a, b)
    pd.testing.assert_frame_equal(t1, compare_precision(y[perm], a[perm], b[perm]))
    t2 = compare_precision(y, b, a)
    for col in ("gs_statistic", "wgs_statistic", "gw_statistic", "gs_pvalue", "rp_pvalue"):
        np.testing.assert_allclose(t1[col], t2[col], rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(t1["rp"] * t2["rp"], np.where(t1["rp"].isna(), np.nan, 1.0),
                               rtol=1e-12)
    assert ((t1["gs_pvalue"].dropna() >= 0) & (t1["gs_pvalue"].dropna() <= 1)).all()


# ---- gee_precision --------------------------------------------------------------------------

EX2 = PatternCounts.from_patterns(  # docs/methods.md §7, worked example 2
    {"111": 40, "110": 8, "101": 6, "011": 5, "100": 4, "010": 3, "001": 7},
    {"111": 6, "110": 3, "101": 4, "011": 2, "100": 5, "010": 6, "001": 9},
    names=["clf1", "clf2", "clf3"],
)
EX3 = PatternCounts.from_patterns(  # docs/methods.md §7, worked example 3
    {"111": 97, "110": 26, "101": 33, "100": 7, "011": 22, "010": 8, "001": 6},
    {"111": 1, "110": 1, "101": 2, "100": 27, "011": 4, "010": 35, "001": 45},
)


def statsmodels_gee(y, preds, label, groups=None, ref=0):
    """Fit Gondara's Algorithm 1 with statsmodels: stacked positive predictions of `label`."""
    preds = np.column_stack(preds)
    n, c = preds.shape
    groups = np.arange(n) if groups is None else np.asarray(groups)
    rows, models = np.nonzero(preds == label)
    endog = (np.asarray(y)[rows] == label).astype(float)
    others = [j for j in range(c) if j != ref]
    exog = np.column_stack([np.ones(len(rows))] + [(models == j).astype(float) for j in others])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = GEE(endog, exog, groups=groups[rows], family=families.Binomial(),
                  cov_struct=Independence()).fit()
    params, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
    beta, v_beta = params[1:], cov[1:, 1:]
    return params, cov, float(beta @ np.linalg.solve(v_beta, beta))


def test_gee_methods_example_2_all_outputs():
    res = gee_precision_from_counts(EX2)
    assert res.reference == "clf1" and res.models == ("clf1", "clf2", "clf3")
    prec = res.precision
    assert prec["n_predicted"].tolist() == [76, 73, 79] and prec["n_correct"].tolist() == [58, 56, 58]
    np.testing.assert_allclose(prec["precision"], [0.763158, 0.767123, 0.734177], rtol=1e-6)
    joint = res.joint.iloc[0]
    assert joint["statistic"] == pytest.approx(0.569331, rel=1e-6)
    assert joint["pvalue"] == pytest.approx(0.752266, rel=1e-6) and joint["df"] == 2
    coef = res.coefficients.set_index("model")
    np.testing.assert_allclose(coef["odds_ratio"], [1.022312, 0.857143], rtol=1e-6)
    np.testing.assert_allclose(coef["ci_low"], [0.629774, 0.535947], rtol=1e-6)
    np.testing.assert_allclose(coef["ci_high"], [1.659521, 1.370833], rtol=1e-6)
    # printed to 6 decimals: agree to half a unit in the last place
    np.testing.assert_allclose(coef["log_odds_ratio"], [0.022067, -0.154151], rtol=0, atol=5e-7)
    np.testing.assert_allclose(coef["se"], [0.247179, 0.239581], rtol=0, atol=5e-7)
    cov = res.covariance[1]
    assert np.sqrt(cov.iloc[0, 0]) == pytest.approx(0.269809, rel=1e-6)  # intercept SE
    np.testing.assert_allclose(res.pairwise["statistic"], [0.007970, 0.413987, 0.449949], rtol=1e-4)
    np.testing.assert_allclose(res.pairwise["pvalue"], [0.92886, 0.51995, 0.50236], rtol=1e-4)
    np.testing.assert_allclose(res.pairwise["pvalue_holm"],
                               adjust_pvalues(res.pairwise["pvalue"].to_numpy(), "holm"))


def test_gee_methods_example_3():
    res = gee_precision_from_counts(EX3)
    # docs/methods.md §7 ex. 3: W = 6.001593, p = 0.049747; SE = (0.195941, 0.237293, 0.223909)
    assert res.joint["statistic"].iloc[0] == pytest.approx(6.001593, rel=1e-6)
    assert res.joint["pvalue"].iloc[0] == pytest.approx(0.049747, rel=1e-5)
    np.testing.assert_allclose(res.precision["precision"], [0.840206, 0.788660, 0.752381], rtol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(res.covariance[1])), [0.195941, 0.237293, 0.223909],
                               rtol=1e-5)


def test_gee_two_classifiers_equal_gw_test_and_methods_example_1():
    y, a, b = expand(PAIRED1)
    res = gee_precision(y, {"A": a, "B": b}, reference="B")
    row = res.coefficients.query("`class` == 1").iloc[0]
    # docs/methods.md §7 ex. 1: beta = -0.308471, SE 0.132609, W = 5.411100
    assert row["log_odds_ratio"] == pytest.approx(-0.3084711, rel=1e-6)
    assert row["se"] == pytest.approx(0.1326086, rel=1e-6)
    gw = gw_test(y, a, b)
    assert res.joint.query("`class` == 1")["statistic"].item() == pytest.approx(gw.statistic, rel=1e-12)
    assert row["statistic"] == pytest.approx(gw.statistic, rel=1e-12)
    assert res.pairwise.query("`class` == 1")["statistic"].item() == pytest.approx(gw.statistic, rel=1e-12)


def test_gee_matches_statsmodels_on_paired1():
    y, a, b = expand(PAIRED1)
    params, cov, wald = statsmodels_gee(y, [a, b], 1, ref=1)
    res = gee_precision(y, {"A": a, "B": b}, reference="B")
    np.testing.assert_allclose(res.covariance[1].to_numpy(), cov, rtol=1e-8)
    assert res.joint.query("`class` == 1")["statistic"].item() == pytest.approx(wald, rel=1e-8)
    assert res.coefficients.query("`class` == 1")["log_odds_ratio"].item() == pytest.approx(
        params[1], rel=1e-8)


@st.composite
def gee_data(draw):
    c = draw(st.integers(2, 5))
    n_obs = draw(st.integers(40, 120))
    reps = draw(st.sampled_from([1, 1, 2, 3]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_obs)
    groups = np.tile(np.arange(n_obs), reps)
    y = truth[groups]
    accuracy = rng.uniform(0.5, 0.9, c)
    preds = [np.where(rng.random(len(y)) < acc, y, rng.integers(0, 3, len(y))) for acc in accuracy]
    return y, preds, (groups if reps > 1 else None), int(rng.integers(0, c))


@settings(max_examples=12, deadline=None)
@given(gee_data())
def test_gee_equals_statsmodels_gee_on_random_data(data):
    y, preds, groups, ref = data
    names = [f"m{j}" for j in range(len(preds))]
    res = gee_precision(y, dict(zip(names, preds)), reference=names[ref], groups=groups)
    for label in (0, 1, 2):
        tp = np.array([np.sum((p == label) & (y == label)) for p in preds])
        fp = np.array([np.sum((p == label) & (y != label)) for p in preds])
        if np.any(tp == 0) or np.any(fp == 0):
            assert res.joint.query("`class` == @label")["statistic"].isna().all()
            continue
        params, cov, wald = statsmodels_gee(y, preds, label, groups=groups, ref=ref)
        np.testing.assert_allclose(res.covariance[label].to_numpy(), cov, rtol=1e-8, atol=1e-14)
        coef = res.coefficients.query("`class` == @label")
        np.testing.assert_allclose(coef["log_odds_ratio"], params[1:], rtol=1e-8, atol=1e-12)
        joint = res.joint.query("`class` == @label").iloc[0]
        assert joint["statistic"] == pytest.approx(wald, rel=1e-8, abs=1e-12)
        assert joint["df"] == len(preds) - 1


def test_gee_joint_invariant_to_reference_and_model_order():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 600)
    preds = {f"m{j}": np.where(rng.random(600) < acc, y, rng.integers(0, 3, 600))
             for j, acc in enumerate([0.6, 0.7, 0.8, 0.75])}
    base = gee_precision(y, preds)
    other_ref = gee_precision(y, preds, reference="m2")
    reordered = gee_precision(y, dict(reversed(list(preds.items()))))
    np.testing.assert_allclose(base.joint["statistic"], other_ref.joint["statistic"], rtol=1e-10)
    np.testing.assert_allclose(base.joint["statistic"], reordered.joint["statistic"], rtol=1e-10)
    # pairwise statistics do not depend on the reference; swapping a pair keeps the statistic
    pd.testing.assert_frame_equal(base.pairwise, other_ref.pairwise)
    key = reordered.pairwise.query("model_a == 'm3' and model_b == 'm0'")["statistic"].to_numpy()
    np.testing.assert_allclose(
        key, base.pairwise.query("model_a == 'm0' and model_b == 'm3'")["statistic"], rtol=1e-12)
    # odds ratio of m1 vs reference m2 is the inverse of m2 vs reference m1... via log odds
    lor = base.coefficients.set_index(["class", "model"])["log_odds_ratio"]
    lor2 = other_ref.coefficients.set_index(["class", "model"])["log_odds_ratio"]
    np.testing.assert_allclose(lor2.loc[(0, "m1")], lor.loc[(0, "m1")] - lor.loc[(0, "m2")],
                               rtol=1e-12)


def test_gee_identical_repeats_leave_statistics_unchanged():
    # docs/methods.md §7: replicating every row R times (same folds reused) leaves W unchanged
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300)
    preds = np.column_stack([np.where(rng.random(300) < acc, y, 1 - y) for acc in (0.7, 0.8, 0.85)])
    once = gee_precision(y, preds)
    tenfold = gee_precision(np.tile(y, 10), np.tile(preds, (10, 1)), groups=np.tile(np.arange(300), 10))
    np.testing.assert_allclose(once.joint["statistic"], tenfold.joint["statistic"], rtol=1e-10)
    np.testing.assert_allclose(once.coefficients["se"], tenfold.coefficients["se"], rtol=1e-10)
    assert tenfold.n_rows == 3000 and tenfold.n_clusters == 300
    # ignoring the clustering would make the repeats look like 10x the data
    naive = gee_precision(np.tile(y, 10), np.tile(preds, (10, 1)))
    assert (naive.joint["statistic"] > 5 * once.joint["statistic"]).all()


def test_gee_row_order_invariant():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 400)
    preds = np.column_stack([np.where(rng.random(400) < a, y, rng.integers(0, 3, 400))
                             for a in (0.6, 0.8)])
    groups = np.repeat(np.arange(200), 2)
    perm = rng.permutation(400)
    r1 = gee_precision(y, preds, groups=groups)
    r2 = gee_precision(y[perm], preds[perm], groups=groups[perm])
    pd.testing.assert_frame_equal(r1.joint, r2.joint)
    pd.testing.assert_frame_equal(r1.coefficients, r2.coefficients)


def test_gee_degenerate_classes():
    rng = np.random.default_rng(10)
    y = rng.integers(0, 3, 500)
    m0 = np.where(rng.random(500) < 0.7, y, rng.integers(0, 3, 500))
    m1 = m0.copy()  # identical to m0
    m2 = np.where(rng.random(500) < 0.8, y, rng.integers(0, 3, 500))
    perfect = m2.copy()
    perfect[(perfect == 2) & (y != 2)] = 0  # precision 1 for class 2
    res = gee_precision(y, {"m0": m0, "m1": m1, "m2": m2, "perfect": perfect})
    joint = res.joint.set_index("class")
    assert np.isnan(joint.loc[2, "statistic"]) and "logit infinite" in joint.loc[2, "note"]
    assert joint.loc[0, "df"] == 2 and "singular" in joint.loc[0, "note"]  # m1 == m0
    # the joint test with m1 dropped gives the same statistic as the pseudo-inverse
    dropped = gee_precision(y, {"m0": m0, "m2": m2, "perfect": perfect}).joint.set_index("class")
    assert joint.loc[0, "statistic"] == pytest.approx(dropped.loc[0, "statistic"], rel=1e-8)
    coef = res.coefficients.set_index(["class", "model"])
    assert coef.loc[(0, "m1"), "statistic"] == 0 and coef.loc[(0, "m1"), "pvalue"] == 1
    assert coef.loc[(0, "m1"), "odds_ratio"] == 1 and "identically" in coef.loc[(0, "m1"), "note"]
    assert np.isnan(coef.loc[(2, "perfect"), "odds_ratio"])
    pair = res.pairwise.set_index(["class", "model_a", "model_b"])
    assert np.isfinite(pair.loc[(2, "m0", "m2"), "statistic"])  # defined pairs still tested
    assert np.isnan(pair.loc[(2, "m2", "perfect"), "statistic"])
    prec = res.precision.set_index(["class", "model"])
    assert prec.loc[(2, "perfect"), "precision"] == 1.0
    all_same = gee_precision(y, {"a": m0, "b": m0})
    assert (all_same.joint["statistic"] == 0).all() and (all_same.joint["pvalue"] == 1).all()


def test_gee_columns_and_bad_input():
    y, a, b = expand(SMALL)
    res = gee_precision(y, pd.DataFrame({"A": a, "B": b}))
    assert list(res.precision.columns) == ["class", "model", "n_predicted", "n_correct", "precision"]
    assert list(res.coefficients.columns)[:9] == [
        "class", "model", "log_odds_ratio", "se", "odds_ratio", "ci_low", "ci_high", "statistic",
        "pvalue"]
    assert list(res.joint.columns)[:4] == ["class", "statistic", "df", "pvalue"]
    assert list(res.pairwise.columns)[:6] == ["class", "model_a", "model_b", "statistic", "pvalue",
                                              "pvalue_holm"]
    assert "<table" in res._repr_html_()
    with pytest.raises(ValueError, match="reference must be one of the models"):
        gee_precision(y, {"A": a, "B": b}, reference="C")
    with pytest.raises(ValueError, match="at least 2 classifiers"):
        gee_precision(y, {"A": a})
    with pytest.raises(ValueError, match="groups must have the same length"):
        gee_precision(y, {"A": a, "B": b}, groups=[1, 2])
    with pytest.raises(ValueError, match="counts must be PatternCounts or PrecisionMoments"):
        gee_precision_from_counts(np.zeros((2, 2, 4)))
    with pytest.raises(ValueError, match="confidence_level"):
        gee_precision(y, {"A": a, "B": b}, confidence_level=0)


def test_gee_counts_entry_points_agree():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 300)
    preds = {f"m{j}": np.where(rng.random(300) < 0.75, y, rng.integers(0, 3, 300)) for j in range(3)}
    raw = gee_precision(y, preds)
    from_patterns = gee_precision_from_counts(pattern_counts(y, preds))
    from_moments = gee_precision_from_counts(precision_moments(y, preds, groups=np.arange(300)))
    for other in (from_patterns, from_moments):
        pd.testing.assert_frame_equal(raw.joint, other.joint)
        pd.testing.assert_frame_equal(raw.coefficients, other.coefficients)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(5, 120), st.integers(2, 4))
def test_counts_path_equals_raw_path_on_random_labels(seed, n, k):
    rng = np.random.default_rng(seed)
    y, a, b = (rng.integers(0, k, n) for _ in range(3))
    table = compare_precision(y, a, b).set_index("class")
    for label in table.index:
        d, x, z = (y == label), (a == label), (b == label)
        cells = np.bincount(4 * d + 2 * x + z, minlength=8).reshape(2, 2, 2)
        if cells[:, 1].sum() == 0 or cells[:, :, 1].sum() == 0:
            with pytest.raises(ValueError, match="never predicts"):
                gs_test(y, a, b, positive=label)
            assert np.isnan(table.loc[label, "gs_statistic"])
            continue
        raw = gs_test(y, a, b, positive=label)
        counted = precision_test_from_cells(cells)
        assert raw.statistic == counted.statistic == pytest.approx(table.loc[label, "gs_statistic"])
        assert raw.pvalue == counted.pvalue
        assert 0 <= raw.pvalue <= 1


def expand_patterns(pc_counts):
    """Observations (truth, one 0/1 prediction column per model) from one class's pattern counts."""
    counts = pc_counts.counts[0]
    c = pc_counts.n_models
    rows = [(d, pattern) for d in (0, 1) for pattern in range(2**c)
            for _ in range(int(counts[d, pattern]))]
    y = np.array([d for d, _ in rows])
    preds = [np.array([(pattern >> j) & 1 for _, pattern in rows]) for j in range(c)]
    return y, preds


@pytest.mark.parametrize("example", [EX2, EX3], ids=["methods_7_ex2", "methods_7_ex3"])
def test_gee_methods_examples_equal_statsmodels(example):
    # docs/methods.md §7 examples 2-3 "identical in statsmodels and geepack": fit statsmodels here
    y, preds = expand_patterns(example)
    params, cov, wald = statsmodels_gee(y, preds, 1)
    res = gee_precision_from_counts(example)
    assert res.joint["statistic"].iloc[0] == pytest.approx(wald, rel=1e-8)
    np.testing.assert_allclose(res.covariance[1].to_numpy(), cov, rtol=1e-8)
    np.testing.assert_allclose(res.coefficients["log_odds_ratio"], params[1:], rtol=1e-8)
    raw = gee_precision(y, dict(zip(example.names, preds)))
    pd.testing.assert_frame_equal(raw.joint.query("`class` == 1").reset_index(drop=True), res.joint)


def test_gee_pairwise_table_of_a_family_holds_those_pairs_holm_over_them():
    # reference: the full table of every pair (itself checked above against the worked
    # example), its rows for the family, and statsmodels-checked Holm (stats.combine) over them
    res = gee_precision_from_counts(EX3)
    family = [(0, 1), (0, 2)]
    sub = gee_precision_from_counts(EX3, pairs=family)
    names = res.models
    full = res.pairwise.set_index(["class", "model_a", "model_b"])
    assert len(sub.pairwise) == len(family) * len(res.joint)
    for label, rows in sub.pairwise.groupby("class", sort=False):
        assert [(r.model_a, r.model_b) for r in rows.itertuples()] == [
            (names[i], names[j]) for i, j in family]
        expected = full.loc[[(label, names[i], names[j]) for i, j in family]]
        np.testing.assert_allclose(rows["pvalue"], expected["pvalue"], rtol=1e-12)
        np.testing.assert_allclose(rows["statistic"], expected["statistic"], rtol=1e-12)
        np.testing.assert_allclose(rows["pvalue_holm"],
                                   adjust_pvalues(expected["pvalue"].to_numpy(), "holm"),
                                   rtol=1e-12)
