"""Tests for precmp_lib.precision.

Provenance of reference values:
- "METHODS §6.6(x)" / "METHODS §7 ex. n": worked examples in METHODS.md, recomputed there with
  DTComPair 1.2.2 (pv.gs, pv.wgs, pv.rpv), geepack 1.3.9 and statsmodels 0.15.0.
- "DTComPair formula": the R package's pv.gs / pv.wgs / pv.rpv expressions (R/DTComPair.R),
  transcribed below as test oracles on DTComPair's own table layout (rows Test 2, columns
  Test 1), so the layout mapping is checked too.
- "score form": Leisenring, Alonzo & Pepe's per-observation score statistic (seed eq 9),
  computed on the expanded observations.
- statsmodels GEE (Binomial, Independence, robust covariance) called in the test.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from precmp_lib.counts import cells_from_tab_paired
from precmp_lib.precision import gs_from_cells

# ---- the worked examples of METHODS.md §6.6, as canonical cells n[d][a][b] -------------------


def make_cells(s11, s10, s01, s00, r11, r10, r01, r00):
    cells = np.zeros((2, 2, 2))
    cells[1, 1, 1], cells[1, 1, 0], cells[1, 0, 1], cells[1, 0, 0] = s11, s10, s01, s00
    cells[0, 1, 1], cells[0, 1, 0], cells[0, 0, 1], cells[0, 0, 0] = r11, r10, r01, r00
    return cells


PAIRED1 = make_cells(319, 78, 22, 32, 31, 53, 22, 155)  # METHODS §6.6(a), DTComPair Paired1
SMALL = make_cells(30, 10, 4, 6, 5, 8, 3, 60)  # METHODS §6.6(b)
ONE = make_cells(20, 5, 6, 4, 0, 7, 0, 50)  # METHODS §6.6(c): P_b = 1
DIAB0 = make_cells(103, 45, 6, 0, 63, 64, 1, 0)  # METHODS §6.6(d) class "0" (s00, r00 unused)
DIAB1 = make_cells(53, 1, 64, 0, 11, 6, 45, 0)  # METHODS §6.6(d) class "1"
IDENTICAL = cells_from_tab_paired(50, 0, 0, 10, 12, 0, 0, 40)  # METHODS §6.6 edge case


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
        (PAIRED1, 5.71124070, 0.01685662, 5.465887, 0.019391),  # METHODS §6.6(a), pv.gs 8 digits
        (SMALL, 0.952197, 0.329161, 0.908674, 0.340466),  # METHODS §6.6(b)
        (ONE, 8.698682, 0.0031844, 7.144417, 0.0075198),  # METHODS §6.6(c)
        (DIAB0, 13.715478, 2.1269e-04, 13.097892, 2.9563e-04),  # METHODS §6.6(d) class 0
    ],
)
def test_gs_and_wgs_match_methods_worked_examples(cells, gs, gs_p, wgs, wgs_p):
    stat, p = gs_from_cells(cells)
    assert stat == pytest.approx(gs, rel=1e-6) and p == pytest.approx(gs_p, rel=1e-4)
    stat, p = gs_from_cells(cells, weighted=True)
    assert stat == pytest.approx(wgs, rel=1e-6) and p == pytest.approx(wgs_p, rel=1e-4)


@pytest.mark.parametrize("cells", [PAIRED1, SMALL, ONE, DIAB0, DIAB1])
def test_gs_equals_dtcompair_formulas_and_score_form(cells):
    stat, p = gs_from_cells(cells)
    assert stat == pytest.approx(dtcompair_pv_gs(cells), rel=1e-10)
    assert stat == pytest.approx(score_form(cells), rel=1e-10)
    assert p == pytest.approx(stats.chi2.sf(dtcompair_pv_gs(cells), 1), rel=1e-10)
    wstat, _ = gs_from_cells(cells, weighted=True)
    assert wstat == pytest.approx(dtcompair_pv_wgs(cells), rel=1e-10)


def test_gs_paired1_class1_p_value_matches_diabetic_retinopathy_row():
    # METHODS §6.6(d), class "1": GS 3.181222, p 0.074489 (Gondara Table 5: 0.07)
    stat, p = gs_from_cells(DIAB1)
    assert stat == pytest.approx(3.181222, rel=1e-6) and p == pytest.approx(0.074489, rel=1e-4)


@settings(max_examples=200, deadline=None)
@given(cells_strategy)
def test_gs_equals_score_form_on_random_tables(cells):
    if not informative(cells):
        return
    stat, _ = gs_from_cells(cells)
    assert stat == pytest.approx(score_form(cells), rel=1e-9)
    assert stat == pytest.approx(dtcompair_pv_gs(cells), rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(cells_strategy, st.booleans())
def test_gs_symmetric_under_swapping_classifiers(cells, weighted):
    s1, p1 = gs_from_cells(cells, weighted=weighted)
    s2, p2 = gs_from_cells(cells.transpose(0, 2, 1), weighted=weighted)
    np.testing.assert_allclose([s1, p1], [s2, p2], rtol=1e-12, atol=0)
    if not np.isnan(p1):
        assert 0.0 <= p1 <= 1.0


def test_gs_degenerate_policy_elementwise():
    never_b = make_cells(0, 3, 0, 2, 0, 2, 0, 7)  # B never predicts the class
    all_right = make_cells(10, 3, 2, 5, 0, 0, 0, 9)  # every positive prediction correct
    batch = np.stack([PAIRED1, IDENTICAL, never_b, all_right])
    for weighted in (False, True):
        stat, p = gs_from_cells(batch, weighted=weighted)
        assert stat.shape == p.shape == (4,)
        assert stat[1] == 0.0 and p[1] == 1.0  # identical (DTComPair returns NaN)
        assert np.isnan(stat[2]) and np.isnan(p[2])  # precision of B undefined
        assert stat[3] == 0.0 and p[3] == 1.0  # pooled precision 1
        assert stat[0] > 0


def test_gs_from_cells_accepts_batches_and_rejects_bad_cells():
    batch = np.stack([np.stack([PAIRED1, SMALL]), np.stack([ONE, DIAB0])])
    stat, _ = gs_from_cells(batch)
    assert stat.shape == (2, 2)
    assert stat[1, 0] == pytest.approx(gs_from_cells(ONE)[0], rel=1e-15)
    with pytest.raises(ValueError, match=r"cells must have shape \(\.\.\., 2, 2, 2\)"):
        gs_from_cells(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        gs_from_cells(-PAIRED1)
