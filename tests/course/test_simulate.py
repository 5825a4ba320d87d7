"""Tests for precmp_lib.course.simulate.

References: scipy's multivariate normal CDF (called here) for the bivariate normal; the
definitions of precision, recall and prevalence (docs/methods.md §6.1, §9) for the cell
probabilities; numpy's Pearson correlation for the phi coefficient; the nominal level alpha
for the type-I error of GS under H0 (Monte Carlo, with its standard error).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from precmp_lib.core.counts import joint_confusion
from precmp_lib.course.simulate import (
    bivariate_normal_cdf,
    correlated_predictions,
    paired_cell_probabilities,
    power_curve,
    prediction_correlation,
    simulate_cells,
)
from precmp_lib.stats.precision_cells import gs_from_cells


@settings(max_examples=150, deadline=None)
@given(st.floats(-4, 4), st.floats(-4, 4), st.floats(-0.99, 0.99), st.booleans(), st.booleans())
def test_bivariate_normal_cdf_equals_scipy(h, k, rho, zero_h, zero_k):
    h = 0.0 if zero_h else h
    k = 0.0 if zero_k else k
    expected = stats.multivariate_normal(cov=[[1, rho], [rho, 1]]).cdf([h, k])
    assert bivariate_normal_cdf(h, k, rho) == pytest.approx(expected, abs=1e-7)


def test_bivariate_normal_cdf_limits_and_vectorisation():
    h = np.array([0.3, -0.5, np.inf, -np.inf, 1.0, 0.0])
    k = np.array([0.3, 0.2, 0.7, 0.4, np.inf, 0.0])
    rho = np.array([1.0, -1.0, 0.3, 0.3, 0.9, 0.5])
    out = bivariate_normal_cdf(h, k, rho)
    nd = stats.norm.cdf
    np.testing.assert_allclose(out, [nd(0.3), max(0, nd(-0.5) + nd(0.2) - 1), nd(0.7), 0.0,
                                     nd(1.0), 1 / 3], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match=r"rho must lie in \[-1, 1\]"):
        bivariate_normal_cdf(0, 0, 1.5)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.55, 1.0), st.floats(0.55, 1.0), st.floats(-0.5, 0.95), st.floats(0.1, 0.6),
       st.floats(0.2, 0.95))
def test_cell_probabilities_reproduce_the_margins(pa, pb, rho, prev, recall):
    floor = prev * recall / (prev * recall + 1 - prev)  # lowest precision with FPR <= 1
    assume(min(pa, pb) > floor)
    cells = paired_cell_probabilities(pa, pb, correlation=rho, prevalence=prev, recall_a=recall)
    assert cells.shape == (2, 2, 2) and cells.min() >= 0
    assert cells.sum() == pytest.approx(1.0, abs=1e-12)
    assert cells[1].sum() == pytest.approx(prev, rel=1e-12)
    assert cells[1, 1].sum() / prev == pytest.approx(recall, rel=1e-9)  # recall of A
    assert cells[1, :, 1].sum() / prev == pytest.approx(recall, rel=1e-9)  # recall of B
    assert cells[1, 1].sum() / cells[:, 1].sum() == pytest.approx(pa, rel=1e-9)  # precision A
    assert cells[1, :, 1].sum() / cells[:, :, 1].sum() == pytest.approx(pb, rel=1e-9)


def test_cell_probabilities_correlation_controls_dependence():
    zero = paired_cell_probabilities(0.8, 0.7, correlation=0.0, recall_b=0.6)
    for d in (0, 1):
        joint = zero[d] / zero[d].sum()
        np.testing.assert_allclose(joint[1, 1], joint[1].sum() * joint[:, 1].sum(), rtol=1e-12)
    rhos = np.linspace(-0.5, 0.95, 10)
    both = paired_cell_probabilities(0.8, 0.7, correlation=rhos)[:, :, 1, 1].sum(axis=1)
    assert np.all(np.diff(both) > 0)
    phi = prediction_correlation(paired_cell_probabilities(0.8, 0.7, correlation=rhos))
    assert np.all(np.diff(phi) > 0)


def test_cell_probabilities_bad_input():
    with pytest.raises(ValueError, match="precision_b is too low"):
        paired_cell_probabilities(0.8, 0.1, prevalence=0.3, recall_a=0.9)
    with pytest.raises(ValueError, match=r"precision_a must lie in \(0, 1\]"):
        paired_cell_probabilities(1.2, 0.8)
    with pytest.raises(ValueError, match=r"prevalence must lie in \(0, 1\)"):
        paired_cell_probabilities(0.8, 0.8, prevalence=1.0)
    with pytest.raises(ValueError, match=r"correlation must lie in \[-1, 1\]"):
        paired_cell_probabilities(0.8, 0.8, correlation=-2)


def test_simulate_cells_shape_totals_and_mean():
    probs = paired_cell_probabilities([0.8, 0.9], 0.75, correlation=0.6)
    sims = simulate_cells(400, [0.8, 0.9], 0.75, correlation=0.6, n_sim=3000, random_state=3)
    assert sims.shape == (3000, 2, 2, 2, 2) and sims.dtype.kind == "i"
    assert (sims.sum(axis=(-3, -2, -1)) == 400).all()
    mean = sims.mean(axis=0)
    se = np.sqrt(400 * probs * (1 - probs) / 3000)
    assert np.all(np.abs(mean - 400 * probs) < 5 * se + 1e-12)
    again = simulate_cells(400, [0.8, 0.9], 0.75, correlation=0.6, n_sim=3000, random_state=3)
    np.testing.assert_array_equal(sims, again)
    with pytest.raises(ValueError, match="n_sim must be an integer >= 1"):
        simulate_cells(10, 0.8, 0.8, n_sim=0)


def test_correlated_predictions_follow_the_cell_probabilities():
    n = 200_000
    y, a, b = correlated_predictions(n, precision_a=0.8, precision_b=0.7, correlation=0.5,
                                     prevalence=0.3, recall_a=0.7, recall_b=0.6, random_state=5)
    probs = paired_cell_probabilities(0.8, 0.7, correlation=0.5, prevalence=0.3, recall_a=0.7,
                                      recall_b=0.6)
    observed = np.bincount(4 * y + 2 * a + b, minlength=8).reshape(2, 2, 2) / n
    se = np.sqrt(probs * (1 - probs) / n)
    assert np.all(np.abs(observed - probs) < 5 * se)


def test_prediction_correlation_is_pearson_of_the_predictions():
    y, a, b = correlated_predictions(5000, precision_a=0.75, precision_b=0.8, correlation=0.3,
                                     random_state=6)
    cells = joint_confusion(y, a, b).table  # [truth][a][b] for labels 0/1
    assert prediction_correlation(cells) == pytest.approx(np.corrcoef(a, b)[0, 1], rel=1e-12)


def test_power_curve_type_one_error_and_power():
    curve = power_curve([0.0, 0.04, 0.08], n=1000, precision_b=0.75, correlation=[0.0, 0.6],
                        n_sim=3000, methods=("gs", "wgs", "gw", "wald", "rp", "naive_z"),
                        random_state=11)
    assert list(curve.columns) == ["correlation", "difference", "precision_a", "precision_b",
                                   "method", "label", "power", "mc_se", "n_valid"]
    assert len(curve) == 2 * 3 * 6 and (curve["n_valid"] == 3000).all()
    null = curve[curve["difference"] == 0].set_index(["correlation", "method"])["power"]
    # paired tests keep the nominal 5 % level within Monte Carlo error (sd ~ 0.004)
    for method in ("gs", "wgs", "gw", "wald", "rp"):
        for rho in (0.0, 0.6):
            assert abs(null[(rho, method)] - 0.05) < 0.015
    # with correlated classifiers the naive z test is far too conservative ...
    assert null[(0.6, "naive_z")] < 0.02
    # ... and loses power at every difference
    wide = curve.pivot_table(index=["correlation", "difference"], columns="method", values="power")
    assert (wide.loc[0.6, "naive_z"] < wide.loc[0.6, "gs"]).all()
    # power grows with the difference
    for method in ("gs", "naive_z"):
        series = wide.loc[0.6, method].to_numpy()
        assert series[0] < series[1] < series[2]


def test_power_curve_equals_direct_simulation():
    curve = power_curve([0.05], n=500, correlation=0.4, n_sim=200, methods=("gs",),
                        random_state=2)
    sims = simulate_cells(500, np.array([[0.80]]), 0.75, correlation=np.array([[0.4]]),
                          prevalence=0.3, recall_a=0.7, n_sim=200, random_state=2)
    p = gs_from_cells(sims).pvalue
    assert curve["power"].item() == pytest.approx(np.mean(p <= 0.05), abs=1e-15)


def test_power_curve_bad_input():
    with pytest.raises(ValueError, match="methods must be one of"):
        power_curve([0.0], methods=("t",))
    with pytest.raises(ValueError, match="differences must keep precision_a"):
        power_curve([0.3], precision_b=0.8)
    with pytest.raises(ValueError, match="alpha must lie in"):
        power_curve([0.0], alpha=2)
    assert isinstance(power_curve([0.0], n_sim=5), pd.DataFrame)
