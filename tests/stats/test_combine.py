"""Tests of precmp_lib.stats.combine: every reference value says where it comes from."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats
from statsmodels.stats.multitest import multipletests

import precmp_lib as pc
import precmp_lib.course.plots  # the plot tests below reach it as pc.course.plots
from precmp_lib.core.counts import class_cells, joint_confusion
from precmp_lib.course.type1 import combination_type1_error, swap_combination_type1_error
from precmp_lib.stats.combine import (
    _hermite_coefficients,
    lancaster_covariance,
    swap_permutation_null,
)
from precmp_lib.stats.precision_cells import gs_from_cells

P4 = [0.01, 0.02, 0.3, 0.5]  # docs/methods.md §8, worked example 1

# Gondara's diabetic retinopathy test set (docs/methods.md §6.6(d), §13) as a joint table
# [true class, NB's prediction, RF's prediction]; see test_gondara_joint_table_cells.
GONDARA = np.zeros((2, 2, 2), dtype=np.int64)
GONDARA[0] = [[103, 45], [6, 11]]
GONDARA[1] = [[63, 64], [1, 53]]

# cdpvals README example (docs/methods.md §8, worked example 3): rows are resamples
CDPVALS_P = [0.06, 0.15]
CDPVALS_NULL = np.array([
    [0.02, 0.06, 0.07, 0.01, 0.02, 0.09, 0.01],
    [0.01, 0.10, 0.12, 0.14, 0.07, 0.09, 0.10],
]).T


def _expand(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows (y, a, b) with the counts of a joint table."""
    K = table.shape[0]
    y, a, b = np.unravel_index(np.repeat(np.arange(K**3), table.ravel()), (K, K, K))
    return y, a, b


# --------------------------------------------------------------------------------------------
# adjust_pvalues
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_matches_statsmodels(method):
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.005, 0.5])
    expected = multipletests(p, method=method)[1]  # statsmodels, called here
    np.testing.assert_allclose(pc.adjust_pvalues(p, method), expected, rtol=1e-12)


def test_adjust_holm_mlxtend_example():
    # docs/methods.md §3 worked example: Holm of the uncorrected pairwise McNemar p-values
    np.testing.assert_allclose(
        pc.adjust_pvalues([0.020921, 0.045500, 1.0], "holm"), [0.062763, 0.091, 1.0], atol=2e-6
    )


# --------------------------------------------------------------------------------------------
# combine_pvalues: worked examples
# --------------------------------------------------------------------------------------------


def test_fisher_worked_example_and_scipy():
    res = pc.combine_pvalues(P4, method="fisher")
    # docs/methods.md §8 ex. 1: T = 20.828626, p = 0.0076169 (Julia MultipleTesting 0.007616871850449092)
    assert res.statistic == pytest.approx(20.828626, rel=1e-7)
    assert res.pvalue == pytest.approx(0.007616871850449092, rel=1e-9)
    assert res.df == 8
    ref = stats.combine_pvalues(P4, method="fisher")  # scipy, called here
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_stouffer_worked_examples_and_scipy():
    res = pc.combine_pvalues(P4, method="stouffer")
    # docs/methods.md §8 ex. 1: Z = 2.452249, p = 0.0070983 (docs 0.00709832618126593)
    assert res.statistic == pytest.approx(2.452249, rel=1e-6)
    assert res.pvalue == pytest.approx(0.00709832618126593, rel=1e-9)
    assert res.alternative == "greater"
    w = [1, 2, 0.4, 1.5]
    # weighted: 0.0073317 (docs 0.007331653763696742)
    weighted = pc.combine_pvalues(P4, method="stouffer", weights=w)
    assert weighted.pvalue == pytest.approx(0.007331653763696742, rel=1e-9)
    ref = stats.combine_pvalues(P4, method="stouffer", weights=w)  # scipy, called here
    assert weighted.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_stouffer_strube_with_correlation():
    # Strube: the denominator is sqrt(w' R w); with rho = 0.5 between two tests it is sqrt(3)
    p = [0.01, 0.04]
    R = [[1, 0.5], [0.5, 1]]
    res = pc.combine_pvalues(p, method="stouffer", correlation=R)
    z = stats.norm.isf(p)
    assert res.statistic == pytest.approx(z.sum() / math.sqrt(3), rel=1e-12)
    assert "Strube" in res.method


def test_simes_worked_example_equals_smallest_bh():
    res = pc.combine_pvalues(P4, method="simes")
    assert res.pvalue == pytest.approx(0.04)  # docs/methods.md §8 ex. 1
    # docs/methods.md §8.7: equals the smallest Benjamini–Hochberg adjusted p-value (statsmodels)
    assert res.pvalue == pytest.approx(multipletests(P4, method="fdr_bh")[1].min(), rel=1e-12)


def test_lancaster_worked_example_and_fisher_special_case():
    res = pc.combine_pvalues(P4, method="lancaster", weights=[4, 2, 1, 3])
    # docs/methods.md §8 ex. 1: T = 24.540918, p = 0.0062870 (df 10)
    assert res.statistic == pytest.approx(24.540918, rel=1e-7)
    assert res.pvalue == pytest.approx(0.0062870, rel=1e-4)
    assert res.df == 10
    # w = 2 for all is Fisher (docs/methods.md §8.2)
    assert pc.combine_pvalues(P4, method="lancaster").pvalue == pytest.approx(
        pc.combine_pvalues(P4, method="fisher").pvalue, rel=1e-12
    )


def test_dai_cui_cdpvals_example():
    # docs/methods.md §8 ex. 3 (cdpvals README): eq-25 style 0.057711, CombinePValue style 0.047406,
    # Fisher independent 0.051395
    eq25 = pc.combine_pvalues(CDPVALS_P, method="dai_cui", null_pvalues=CDPVALS_NULL)
    full = pc.combine_pvalues(CDPVALS_P, method="dai_cui", null_pvalues=CDPVALS_NULL,
                              diagonal="empirical")
    assert eq25.pvalue == pytest.approx(0.057711, abs=5e-7)
    assert full.pvalue == pytest.approx(0.047406, abs=5e-7)
    assert pc.combine_pvalues(CDPVALS_P, method="fisher").pvalue == pytest.approx(0.051395, abs=5e-7)
    # CombinePValue clips to [1e-6, 1 - 1e-6]; nothing here is outside, so nothing changes
    clipped = pc.combine_pvalues(CDPVALS_P, method="dai_cui", null_pvalues=CDPVALS_NULL,
                                 diagonal="empirical", clip=(1e-6, 1 - 1e-6))
    assert clipped.pvalue == pytest.approx(full.pvalue, rel=1e-12)
    assert eq25.details["n_null"] == 7 and eq25.details["expectation"] == 4


def test_dai_cui_matches_formula_by_hand():
    # Gondara, eq. 22-26 with the covariance of chi2.isf(null, w) computed here with numpy
    p = np.array([0.03, 0.2, 0.5])
    w = np.array([2.0, 4.0, 1.0])
    null = np.random.default_rng(3).uniform(size=(50, 3))
    x = stats.chi2.isf(null, w)
    cov = np.cov(x, rowvar=False)
    np.fill_diagonal(cov, 2 * w)
    E, V = w.sum(), cov.sum()
    nu = 2 * E**2 / V
    T = stats.chi2.isf(p, w).sum()
    res = pc.combine_pvalues(p, method="dai_cui", weights=w, null_pvalues=null)
    assert res.df == pytest.approx(nu, rel=1e-12)
    assert res.statistic == pytest.approx(nu / E * T, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(nu / E * T, nu), rel=1e-12)


def test_dai_cui_without_dependence_information_is_lancaster():
    w = [4, 2, 1, 3]
    assert pc.combine_pvalues(P4, method="dai_cui", weights=w).pvalue == pytest.approx(
        pc.combine_pvalues(P4, method="lancaster", weights=w).pvalue, rel=1e-12
    )


@pytest.mark.parametrize(
    ("rho", "expected"),
    # docs/methods.md §8 ex. 2: printed (0.0002, 0.07), exact two-sided covariances
    [(0.0, 1.705e-04), (0.5, 5.692e-04), (0.8, 1.850e-03), (1.0, 3.742e-03)],
)
def test_brown_exact_two_sided_gondara_printed(rho, expected):
    R = [[1, rho], [rho, 1]]
    res = pc.combine_pvalues([0.0002, 0.07], method="brown", correlation=R)
    assert res.pvalue == pytest.approx(expected, rel=1e-3)
    # Dai–Cui with the same correlation and w = 2 is Brown's method
    dai = pc.combine_pvalues([0.0002, 0.07], method="dai_cui", correlation=R)
    assert dai.pvalue == pytest.approx(res.pvalue, rel=1e-12)


@pytest.mark.parametrize(("rho", "expected"), [(0.5, 1.158e-03), (0.8, 2.490e-03)])
def test_kost_mcdermott_one_sided_polynomial(rho, expected):
    # docs/methods.md §8 ex. 2: the one-sided K–M polynomial (wrong for these two-sided p-values)
    res = pc.combine_pvalues([0.0002, 0.07], method="brown", correlation=[[1, rho], [rho, 1]],
                             sides="one-sided", approximation="kost_mcdermott")
    assert res.pvalue == pytest.approx(expected, rel=1e-3)


def test_brown_piecewise_close_to_exact_one_sided():
    # docs/methods.md §8.4: Brown's piecewise fit agrees with exact covariances within 0.002
    for rho in (-0.4, -0.1, 0.2, 0.6, 0.9):
        approx = 4 * 2 + 2 * (rho * (3.25 + 0.75 * rho) if rho >= 0 else rho * (3.27 + 0.71 * rho))
        exact = 8 + 2 * lancaster_covariance(rho, sides="one-sided")
        assert abs(approx - exact) / 2 < 0.02
        res = pc.combine_pvalues([0.01, 0.2], method="brown", correlation=[[1, rho], [rho, 1]],
                                 sides="one-sided", approximation="brown")
        assert res.details["variance"] == pytest.approx(approx, rel=1e-12)


# --------------------------------------------------------------------------------------------
# lancaster_covariance
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rho", "expected"),
    # docs/methods.md §8.4: exact two-sided covariances (series); 0.9 is printed as ≈3.215
    [(0.1, 0.0391), (0.3, 0.3520), (0.5, 0.9802), (0.7, 1.9292), (0.8, 2.5278), (0.9, 3.214)],
)
def test_two_sided_covariance_values(rho, expected):
    assert lancaster_covariance(rho) == pytest.approx(expected, abs=6e-4)
    assert lancaster_covariance(-rho) == pytest.approx(expected, abs=6e-4)  # even in rho


def test_hermite_coefficients_match_methods():
    # docs/methods.md §8.4: one-sided coefficients 3.26306, 0.70956, 0.02674, 0.00054;
    # two-sided (rho^2, rho^4, ...) 3.9068, 0.0506, 0.0174, 0.0082, 0.0046
    one = _hermite_coefficients(2.0, "one-sided")[1:5] ** 2
    np.testing.assert_allclose(one, [3.26306, 0.70956, 0.02674, 0.00054], atol=6e-6)
    two = _hermite_coefficients(2.0, "two-sided")[2:12:2] ** 2
    np.testing.assert_allclose(two, [3.9068, 0.0506, 0.0174, 0.0082, 0.0046], atol=6e-5)
    assert np.all(_hermite_coefficients(2.0, "two-sided")[1::2] == 0)


def test_covariance_at_plus_minus_one_analytic():
    # rho = 1: Var(-2 ln U) = 4 (chi-square with 2 df); rho = -1 one-sided: Cov(-2 ln U,
    # -2 ln(1-U)) = 4 (1 - pi^2/6) (E[ln U ln(1-U)] = 2 - pi^2/6)
    assert lancaster_covariance(1.0) == pytest.approx(4.0, abs=1e-9)
    assert lancaster_covariance(1.0, sides="one-sided") == pytest.approx(4.0, abs=1e-9)
    assert lancaster_covariance(-1.0, sides="one-sided") == pytest.approx(
        4 * (1 - math.pi**2 / 6), abs=1e-9)
    assert lancaster_covariance(1.0, weights=(4.0, 4.0), sides="one-sided") == pytest.approx(
        8.0, abs=1e-6)
    # the series is continuous up to the endpoint
    assert lancaster_covariance(0.9999) == pytest.approx(4.0, abs=2e-3)


def test_one_sided_polynomial_sign_error_for_two_sided():
    # docs/methods.md §8.4: at rho = -0.3 the one-sided polynomial gives -0.92; two-sided is +0.35
    km = 3.263 * -0.3 + 0.710 * 0.09 + 0.027 * -0.027
    assert km == pytest.approx(-0.92, abs=0.005)
    assert lancaster_covariance(-0.3, sides="one-sided") == pytest.approx(km, abs=0.003)
    assert lancaster_covariance(-0.3) == pytest.approx(0.3520, abs=6e-4)


@pytest.mark.parametrize("sides", ["two-sided", "one-sided"])
def test_covariance_unequal_weights_monte_carlo(sides):
    # Monte Carlo check of the Mehler series for weights (4, 1), computed here with numpy
    rng = np.random.default_rng(11)
    rho = 0.6
    z1 = rng.standard_normal(150_000)
    z2 = rho * z1 + math.sqrt(1 - rho**2) * rng.standard_normal(150_000)
    to_p = (lambda z: 2 * stats.norm.sf(np.abs(z))) if sides == "two-sided" else stats.norm.sf
    x1, x2 = stats.chi2.isf(to_p(z1), 4), stats.chi2.isf(to_p(z2), 1)
    mc = np.cov(x1, x2)[0, 1]
    se = np.std((x1 - x1.mean()) * (x2 - x2.mean())) / math.sqrt(len(x1))
    exact = lancaster_covariance(rho, weights=(4.0, 1.0), sides=sides)
    assert abs(exact - mc) < 4 * se


def test_covariance_vectorised_and_bad_input():
    rho = np.array([[0.1, 0.5], [0.8, 1.0]])
    out = lancaster_covariance(rho)
    assert out.shape == (2, 2)
    assert out[0, 1] == pytest.approx(lancaster_covariance(0.5))
    with pytest.raises(ValueError, match="correlation must lie in"):
        lancaster_covariance(1.5)
    with pytest.raises(ValueError, match="weights must be positive"):
        lancaster_covariance(0.5, weights=(2.0, 0.0))
    with pytest.raises(ValueError, match="sides must be one of"):
        lancaster_covariance(0.5, sides="left")


# --------------------------------------------------------------------------------------------
# combine_pvalues: edge cases and bad input (docs/methods.md §8, "Edge cases")
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["fisher", "stouffer", "lancaster", "dai_cui", "simes"])
def test_single_pvalue_returned_unchanged(method):
    res = pc.combine_pvalues([0.037], method=method)
    assert res.pvalue == 0.037
    assert "one p-value" in res.note


def test_single_pvalue_brown_and_dai_with_null():
    assert pc.combine_pvalues([0.2], method="brown", correlation=[[1.0]]).pvalue == 0.2
    assert pc.combine_pvalues([0.2], method="dai_cui", null_pvalues=[[0.5], [0.5]]).pvalue == 0.2


def test_zero_and_one_pvalues():
    fisher = pc.combine_pvalues([0.0, 0.4], method="fisher")
    assert fisher.statistic == math.inf and fisher.pvalue == 0.0
    assert "0" in fisher.note
    assert pc.combine_pvalues([0.0, 0.4], method="dai_cui",
                              null_pvalues=CDPVALS_NULL).pvalue == 0.0
    # p = 1 adds a term of 0
    assert pc.combine_pvalues([1.0, 0.3], method="lancaster").statistic == pytest.approx(
        stats.chi2.isf(0.3, 2))
    assert pc.combine_pvalues([1.0, 1.0], method="fisher").pvalue == 1.0
    assert pc.combine_pvalues([0.0, 0.3], method="stouffer").pvalue == 0.0
    # Stouffer: a p-value of 1 is taken as 1 - 2^-53, whose z is finite (no -inf statistic)
    z_one = stats.norm.isf(np.nextafter(1.0, 0.0))  # scipy, called here: -8.2095
    ones = pc.combine_pvalues([1.0, 1.0, 1.0], method="stouffer")
    assert ones.statistic == pytest.approx(3 * z_one / math.sqrt(3), rel=1e-12)
    assert math.isfinite(ones.statistic) and "p-values of 1 taken as 1 - 2^-53" in ones.note
    assert ones.pvalue == pytest.approx(stats.norm.sf(3 * z_one / math.sqrt(3)), rel=1e-12)
    one = pc.combine_pvalues([1.0, 0.3], method="stouffer")
    assert one.statistic == pytest.approx((z_one + stats.norm.isf(0.3)) / math.sqrt(2))
    # a 0 beside a 1 dominates, as for Fisher
    both = pc.combine_pvalues([0.0, 1.0], method="stouffer")
    assert both.pvalue == 0.0 and both.log_pvalue == -math.inf
    assert "a p-value of 0" in both.note and "1e-300" not in both.note
    # clip makes it computable, as CombinePValue does
    res = pc.combine_pvalues([0.0, 1.0], method="stouffer", clip=(1e-6, 1 - 1e-6))
    assert res.pvalue == pytest.approx(0.5)


def test_clip_changes_small_pvalues():
    # docs/methods.md §8: the CombinePValue clip alters results for p < 1e-6
    plain = pc.combine_pvalues([1e-9, 0.3], method="fisher")
    clipped = pc.combine_pvalues([1e-9, 0.3], method="fisher", clip=(1e-6, 1 - 1e-6))
    assert clipped.pvalue > 100 * plain.pvalue


def test_nonpositive_variance_raises():
    # bootstrap-like (non-null) p-values whose terms are strongly negatively correlated
    null = np.array([[1e-10, 0.9], [0.9, 1e-10]] * 10)
    with pytest.raises(ValueError, match="not positive"):
        pc.combine_pvalues([0.1, 0.2], method="dai_cui", null_pvalues=null)


def test_null_rows_with_nan_are_dropped_and_zero_floored():
    null = np.vstack([CDPVALS_NULL, [[np.nan, 0.5]]])
    res = pc.combine_pvalues(CDPVALS_P, method="dai_cui", null_pvalues=null)
    assert res.details["n_null"] == 7 and res.details["n_null_dropped"] == 1
    assert res.pvalue == pytest.approx(0.057711, abs=5e-7)
    zero = np.vstack([CDPVALS_NULL, [[0.0, 0.5]]])
    floored = pc.combine_pvalues(CDPVALS_P, method="dai_cui", null_pvalues=zero,
                                 diagonal="empirical")  # the empirical Var(T) is never negative
    assert np.isfinite(floored.details["variance"]) and 0 < floored.pvalue < 1
    with pytest.raises(ValueError, match="at least 2"):
        pc.combine_pvalues(CDPVALS_P, method="dai_cui", null_pvalues=[[0.1, np.nan], [0.2, 0.3]])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pvalues": P4, "method": "tippett"}, "method must be one of"),
        ({"pvalues": [0.1, 1.2], "method": "fisher"}, r"pvalues must lie in \[0, 1\]"),
        ({"pvalues": [0.1, np.nan], "method": "fisher"}, "must not contain NaN"),
        ({"pvalues": [[0.1, 0.2]], "method": "fisher"}, "1-dimensional"),
        ({"pvalues": [], "method": "fisher"}, "must not be empty"),
        ({"pvalues": P4, "method": "fisher", "weights": [1, 1, 1, 1]}, "weights is not used"),
        ({"pvalues": P4, "method": "simes", "correlation": np.eye(4)}, "correlation is not used"),
        ({"pvalues": P4, "method": "lancaster", "weights": [1, 2]}, "weights must have length 4"),
        ({"pvalues": P4, "method": "lancaster", "weights": [1, 2, 0, 1]}, "positive"),
        ({"pvalues": P4, "method": "brown"}, "needs correlation"),
        ({"pvalues": [0.1, 0.2], "method": "brown", "correlation": [[1, 0.5], [0.4, 1]]},
         "symmetric"),
        ({"pvalues": [0.1, 0.2], "method": "brown", "correlation": [[2, 0.5], [0.5, 1]]},
         "ones on its diagonal"),
        ({"pvalues": [0.1, 0.2, 0.3], "method": "brown",
          "correlation": [[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1]]}, "semi-definite"),
        ({"pvalues": [0.1, 0.2], "method": "brown", "correlation": np.eye(3)}, "shape"),
        ({"pvalues": [0.1, 0.2], "method": "brown", "correlation": [[1, 0.5], [0.5, 1]],
          "approximation": "kost_mcdermott"}, "one-sided p-values only"),
        ({"pvalues": [0.1, 0.2], "method": "brown", "correlation": [[1, -0.7], [-0.7, 1]],
          "sides": "one-sided", "approximation": "brown"}, r"\[-0.5, 1\]"),
        ({"pvalues": [0.1, 0.2], "method": "dai_cui", "diagonal": "empirical"},
         "only with null_pvalues"),
        ({"pvalues": [0.1, 0.2], "method": "dai_cui", "null_pvalues": CDPVALS_NULL,
          "correlation": np.eye(2)}, "not both"),
        ({"pvalues": [0.1, 0.2], "method": "dai_cui", "null_pvalues": CDPVALS_NULL.T},
         "transpose"),
        ({"pvalues": [0.1, 0.2], "method": "dai_cui", "null_pvalues": [[0.1, 2.0], [0.1, 0.2]]},
         r"null_pvalues must lie in \[0, 1\]"),
        ({"pvalues": [0.1, 0.2], "method": "dai_cui", "null_pvalues": CDPVALS_NULL,
          "diagonal": "both"}, "diagonal must be one of"),
        ({"pvalues": [0.1, 0.2], "method": "fisher", "clip": (0.5, 0.1)}, "clip must be"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pc.combine_pvalues(**kwargs)


pvalue_vectors = st.lists(st.floats(1e-12, 1.0), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None)
@given(p=pvalue_vectors, seed=st.integers(0, 2**31))
def test_property_pvalue_in_unit_interval_and_order_invariant(p, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(p))
    w = rng.uniform(0.5, 4, len(p))
    null = rng.uniform(size=(30, len(p)))
    cases = [
        ({"method": "fisher"}, {"method": "fisher"}),
        ({"method": "simes"}, {"method": "simes"}),
        ({"method": "stouffer", "weights": w}, {"method": "stouffer", "weights": w[order]}),
        ({"method": "lancaster", "weights": w}, {"method": "lancaster", "weights": w[order]}),
        ({"method": "dai_cui", "weights": w, "null_pvalues": null},
         {"method": "dai_cui", "weights": w[order], "null_pvalues": null[:, order]}),
    ]
    arr = np.array(p)
    for kw, kw_perm in cases:
        try:
            res = pc.combine_pvalues(arr, **kw)
        except ValueError as err:  # only an impossible variance may refuse
            assert "not positive" in str(err)
            continue
        assert 0.0 <= res.pvalue <= 1.0
        assert pc.combine_pvalues(arr[order], **kw_perm).pvalue == pytest.approx(
            res.pvalue, rel=1e-9, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(p=pvalue_vectors, factor=st.floats(0.01, 1.0))
def test_property_smaller_pvalue_never_weakens_evidence(p, factor):
    arr = np.array(p)
    smaller = arr.copy()
    smaller[0] *= factor
    for method in ("fisher", "simes", "stouffer", "lancaster"):
        assert (pc.combine_pvalues(smaller, method=method).pvalue
                <= pc.combine_pvalues(arr, method=method).pvalue + 1e-15)


# --------------------------------------------------------------------------------------------
# swap_permutation_null
# --------------------------------------------------------------------------------------------


def test_gondara_joint_table_cells():
    # docs/methods.md §6.6(d): class 0 s11 103, s10 45, s01 6, r11 63, r10 64, r01 1; class 1 s11 53,
    # s10 1, s01 64, r11 11, r10 6, r01 45. With two classes, class 1's cells are class 0's with
    # every indicator flipped: n1[d][a][b] = n0[1-d][1-a][1-b] (so s00 = 11 and r00 = 53 of class 0).
    cells = class_cells(GONDARA)
    assert cells[0, 1, 1, 1] == 103 and cells[0, 1, 1, 0] == 45 and cells[0, 1, 0, 1] == 6
    assert cells[0, 0, 1, 1] == 63 and cells[0, 0, 1, 0] == 64 and cells[0, 0, 0, 1] == 1
    assert cells[1, 1, 1, 1] == 53 and cells[1, 1, 1, 0] == 1 and cells[1, 1, 0, 1] == 64
    assert cells[1, 0, 1, 1] == 11 and cells[1, 0, 1, 0] == 6 and cells[1, 0, 0, 1] == 45
    np.testing.assert_array_equal(cells[1], cells[0][::-1, ::-1, ::-1])
    assert GONDARA[0].sum() == 165 and GONDARA[1].sum() == 181  # §13: 165 class 0, 181 class 1


def test_swap_null_preserves_truth_and_agreement():
    rng = np.random.default_rng(0)
    t = rng.integers(0, 40, size=(3, 3, 3))
    null = swap_permutation_null(t, n_resamples=50, random_state=1)
    assert null.pvalues.shape == null.statistics.shape == null.z.shape == (50, 3)
    assert np.all((null.pvalues >= 0) & (null.pvalues <= 1))
    np.testing.assert_allclose(null.z**2, null.statistics)


def test_swap_null_tables_keep_pair_totals():
    # the permuted tables themselves: diagonal cells fixed, n[y,a,b] + n[y,b,a] fixed
    from precmp_lib.stats import combine

    rng = np.random.default_rng(2)
    t = rng.integers(0, 25, size=(3, 3, 3))
    captured = {}
    real = combine._counts.class_cells

    def spy(tables):
        captured["tables"] = np.asarray(tables)
        return real(tables)

    combine._counts.class_cells = spy
    try:
        swap_permutation_null(t, n_resamples=200, random_state=3)
    finally:
        combine._counts.class_cells = real
    tabs = captured["tables"]
    assert tabs.shape == (200, 3, 3, 3)
    np.testing.assert_array_equal(tabs + tabs.transpose(0, 1, 3, 2), np.broadcast_to(
        t + t.transpose(0, 2, 1), tabs.shape))
    np.testing.assert_array_equal(np.einsum("byaa->bya", tabs),
                                  np.broadcast_to(np.einsum("yaa->ya", t), (200, 3, 3)))
    # each off-diagonal cell is Binomial(pair total, 1/2): mean half the pair total
    total = t + t.transpose(0, 2, 1)
    off = ~np.eye(3, dtype=bool)[None].repeat(3, 0)
    se = np.sqrt(total / 4 / 200)
    assert np.all(np.abs(tabs.mean(0) - total / 2)[off] <= 4.5 * se[off] + 1e-12)


def test_swap_null_counts_equal_rows_in_distribution():
    # counts path against swapping rows one by one (computed here with numpy): same law of the
    # null p-values (two-sample Kolmogorov–Smirnov test per class)
    t = np.zeros((3, 3, 3), dtype=np.int64)
    t[0] = [[40, 10, 3], [6, 5, 1], [2, 1, 4]]
    t[1] = [[8, 4, 0], [9, 35, 7], [1, 5, 6]]
    t[2] = [[3, 1, 2], [0, 4, 6], [5, 9, 30]]
    y, a, b = _expand(t)
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(600):
        swap = rng.random(len(y)) < 0.5
        jt = joint_confusion(y, np.where(swap, b, a), np.where(swap, a, b), labels=[0, 1, 2])
        rows.append(gs_from_cells(class_cells(jt.table)).pvalue)
    rows = np.array(rows)
    counts = swap_permutation_null(t, n_resamples=600, random_state=6).pvalues
    for k in range(3):
        assert stats.ks_2samp(rows[:, k], counts[:, k]).pvalue > 0.001


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), K=st.integers(2, 4))
def test_property_swap_null_symmetric_in_classifiers(seed, K):
    # exchanging A and B maps (y, a, b) to (y, b, a); with the same seed the permutations are
    # the same, so the null p-values are identical
    t = np.random.default_rng(seed).integers(0, 15, size=(K, K, K))
    n1 = swap_permutation_null(t, n_resamples=20, random_state=seed)
    n2 = swap_permutation_null(t.transpose(0, 2, 1), n_resamples=20, random_state=seed)
    np.testing.assert_allclose(n1.pvalues, n2.pvalues, rtol=1e-12, equal_nan=True)


def test_swap_null_batch_axes():
    t = np.random.default_rng(1).integers(0, 20, size=(4, 2, 2, 2))
    null = swap_permutation_null(t, n_resamples=30, random_state=0)
    assert null.pvalues.shape == (4, 30, 2)


@pytest.mark.parametrize(
    ("table", "kwargs", "match"),
    [
        (np.zeros((2, 2)), {}, r"shape \(\.\.\., K, K, K\)"),
        (np.zeros((2, 3, 3)), {}, r"shape \(\.\.\., K, K, K\)"),
        (np.zeros((1, 1, 1)), {}, "at least 2 classes"),
        (-np.ones((2, 2, 2)), {}, "non-negative"),
        (np.full((2, 2, 2), 1.5), {}, "whole-number"),
        (np.ones((2, 2, 2)), {"n_resamples": 0}, "n_resamples must be an integer >= 1"),
    ],
)
def test_swap_null_bad_input(table, kwargs, match):
    with pytest.raises(ValueError, match=match):
        swap_permutation_null(table, **kwargs)


# --------------------------------------------------------------------------------------------
# combined_precision_test
# --------------------------------------------------------------------------------------------


def test_gondara_table7_diabetic_retinopathy():
    # docs/methods.md §8 ex. 2: GS p 2.1269e-04 and 0.074489; Fisher 1.9096e-04; Simes 4.2539e-04
    fisher = pc.combined_precision_test(None, table=GONDARA, method="fisher")
    np.testing.assert_allclose(fisher.details["class_pvalues"], [2.1269e-04, 0.074489], rtol=5e-5)
    assert fisher.pvalue == pytest.approx(1.9096e-04, rel=1e-4)
    assert pc.combined_precision_test(None, table=GONDARA, method="simes").pvalue == pytest.approx(
        4.2539e-04, rel=1e-4)
    # Dai–Cui with B = 2000 swap permutations (seed 20240501 as in docs/methods.md; our counts-based
    # draws differ from the row-based ones behind the printed numbers): printed 0.00227
    # (theoretical diagonal), 0.00218 (fully empirical), correlation of -2 ln p about 0.705.
    # Over 40 seeds our B = 2000 values have mean 0.00241, sd 0.00023 (theoretical diagonal) and
    # mean 0.00242, sd 0.00047 (empirical); the tolerances are about 3.5 sd.
    dai = pc.combined_precision_test(None, table=GONDARA, n_resamples=2000, random_state=20240501)
    emp = pc.combined_precision_test(None, table=GONDARA, n_resamples=2000, diagonal="empirical",
                                     random_state=20240501)
    assert dai.pvalue == pytest.approx(0.00227, abs=0.0008)
    assert emp.pvalue == pytest.approx(0.00218, abs=0.0016)
    assert dai.details["term_correlation"][0, 1] == pytest.approx(0.705, abs=0.06)
    assert dai.df == pytest.approx(2.3653, abs=0.15)
    assert dai.pvalue < 0.005 < 0.05  # the paper's Table 7: combined p 0.002
    assert dai.details["null_pvalues"].shape == (2000, 2)
    assert dai.n == 346


def test_gondara_from_label_arrays_equals_table():
    y, a, b = _expand(GONDARA)
    from_rows = pc.combined_precision_test(y, a, b, n_resamples=500, random_state=7)
    from_table = pc.combined_precision_test(None, table=GONDARA, n_resamples=500, random_state=7)
    assert from_rows.pvalue == from_table.pvalue
    # row order does not matter
    order = np.random.default_rng(0).permutation(len(y))
    shuffled = pc.combined_precision_test(y[order], a[order], b[order], n_resamples=500,
                                          random_state=7)
    assert shuffled.pvalue == from_rows.pvalue


def test_string_labels_and_classifier_symmetry():
    y, a, b = _expand(GONDARA)
    names = np.array(["no DR", "DR"])
    res = pc.combined_precision_test(names[y], names[a], names[b], n_resamples=300, random_state=1)
    swapped = pc.combined_precision_test(names[y], names[b], names[a], n_resamples=300,
                                         random_state=1)
    assert res.details["classes"] == ["DR", "no DR"]
    assert res.pvalue == pytest.approx(swapped.pvalue, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_property_combined_test_symmetric_and_valid(seed):
    t = np.random.default_rng(seed).integers(0, 12, size=(3, 3, 3))
    for method in ("dai_cui", "brown", "fisher", "simes"):
        try:
            r1 = pc.combined_precision_test(None, table=t, method=method, n_resamples=50,
                                            random_state=seed)
        except ValueError:
            continue
        r2 = pc.combined_precision_test(None, table=t.transpose(0, 2, 1), method=method,
                                        n_resamples=50, random_state=seed)
        assert 0 <= r1.pvalue <= 1
        assert r1.pvalue == pytest.approx(r2.pvalue, rel=1e-9, abs=1e-300)


def test_identical_predictions_degenerate():
    y = np.array([0, 1, 2, 0, 1, 2, 1])
    a = np.array([0, 1, 1, 0, 2, 2, 1])
    res = pc.combined_precision_test(y, a, a.copy())
    assert res.statistic == 0 and res.pvalue == 1 and res.degenerate
    assert "identical" in res.note


def test_class_left_out_with_note():
    # class 2 is never predicted by B: its precision comparison is undefined
    t = np.zeros((3, 3, 3), dtype=np.int64)
    t[0] = [[30, 5, 0], [4, 6, 0], [2, 0, 0]]
    t[1] = [[5, 3, 0], [6, 30, 0], [0, 3, 0]]
    t[2] = [[1, 2, 0], [2, 3, 0], [0, 5, 0]]
    res = pc.combined_precision_test(None, table=t, n_resamples=200, random_state=0)
    assert res.details["classes"] == [0, 1]
    assert "never predicts" in res.note and "2" in res.note
    # a class the two agree on completely carries no information and is left out too
    t2 = np.zeros((3, 3, 3), dtype=np.int64)
    t2[0] = [[30, 5, 0], [4, 6, 0], [0, 0, 0]]
    t2[1] = [[5, 3, 0], [6, 30, 0], [0, 0, 0]]
    t2[2] = [[0, 0, 0], [0, 0, 0], [0, 0, 9]]
    res2 = pc.combined_precision_test(None, table=t2, method="simes")
    assert res2.details["classes"] == [0, 1] and "identical predictions" in res2.note


def test_brown_method_uses_permutation_correlation():
    res = pc.combined_precision_test(None, table=GONDARA, method="brown", n_resamples=2000,
                                     random_state=0)
    R = res.details["z_correlation"]
    assert R.shape == (2, 2) and 0.5 < R[0, 1] < 1
    by_hand = pc.combine_pvalues(res.details["class_pvalues"], method="brown", correlation=R)
    assert res.pvalue == pytest.approx(by_hand.pvalue, rel=1e-12)
    fisher = pc.combined_precision_test(None, table=GONDARA, method="fisher").pvalue
    assert res.pvalue > 5 * fisher


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((None,), {"table": GONDARA, "method": "stouffer"}, "two-sided"),
        ((None,), {"table": GONDARA, "method": "fisher", "diagonal": "empirical"},
         "diagonal is not used"),
        ((None,), {"table": GONDARA, "method": "simes", "weights": [1, 2]}, "weights is not used"),
        ((None,), {"table": GONDARA, "method": "dai_cui", "weights": [1, 2, 3]},
         "weights must have length 2"),
        (([0, 1],), {"table": GONDARA}, "not both"),
        (([0, 1], [0, 1]), {}, "pass y_true, y_pred_a and y_pred_b"),
        ((None,), {"table": GONDARA, "labels": ["a"]}, "labels must name the 2 classes"),
        ((None,), {"table": GONDARA, "n_resamples": 1}, "n_resamples must be an integer >= 2"),
        (([0, 1, 1], [0, 1], [0, 1, 1]), {}, "same length"),
    ],
)
def test_combined_precision_test_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pc.combined_precision_test(*args, **kwargs)


def test_combined_precision_table_columns_and_values():
    y, a, b = _expand(GONDARA)
    rng = np.random.default_rng(4)
    y3 = rng.integers(0, 3, 400)
    a3 = np.where(rng.random(400) < 0.7, y3, rng.integers(0, 3, 400))
    b3 = np.where(rng.random(400) < 0.5, a3, rng.integers(0, 3, 400))
    tab = pc.stats.combine.combined_precision_table({"dr": (y, a, b), "toy": (y3, a3, b3)},
                                      methods=("dai_cui", "fisher", "simes", "brown"),
                                      n_resamples=300, random_state=0)
    assert list(tab.columns) == ["dataset", "class", "precision_a", "precision_b", "gs_statistic",
                                 "gs_pvalue", "dai_cui_pvalue", "fisher_pvalue", "simes_pvalue",
                                 "brown_pvalue", "note"]
    assert tab["dataset"].tolist() == ["dr", "dr", "toy", "toy", "toy"]
    dr = tab[tab.dataset == "dr"]
    # docs/methods.md §6.6(d): precisions NB 0.538182 / RF 0.630058 (class 0), 0.760563 / 0.676301
    np.testing.assert_allclose(dr.precision_a, [0.538182, 0.760563], atol=5e-7)
    np.testing.assert_allclose(dr.precision_b, [0.630058, 0.676301], atol=5e-7)
    assert dr.fisher_pvalue.iloc[0] == pytest.approx(1.9096e-04, rel=1e-4)
    assert dr.dai_cui_pvalue.nunique() == 1
    for name, (yy, aa, bb) in {"toy": (y3, a3, b3)}.items():
        simes = pc.combined_precision_test(yy, aa, bb, method="simes").pvalue
        assert tab[tab.dataset == name].simes_pvalue.iloc[0] == pytest.approx(simes)
    with pytest.raises(ValueError, match="methods must be one of"):
        pc.stats.combine.combined_precision_table({"dr": (y, a, b)}, methods=("stouffer",))
    with pytest.raises(ValueError, match="must be"):
        pc.stats.combine.combined_precision_table({"dr": (y, a)})


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------


def test_null_dependence_plot():
    from matplotlib.axes import Axes

    res = pc.combined_precision_test(None, table=GONDARA, n_resamples=300, random_state=0)
    ax = pc.course.plots.null_dependence_plot(res.details["null_pvalues"],
                                       pvalues=res.details["class_pvalues"], classes=[0, 1])
    assert isinstance(ax, Axes)
    assert len(ax.collections) == 2  # the null cloud and the observed point
    assert "correlation 0." in ax.get_title()
    with pytest.raises(ValueError, match="pair must name two different tests"):
        pc.course.plots.null_dependence_plot(res.details["null_pvalues"], pair=(0, 0))
    with pytest.raises(ValueError, match="shape"):
        pc.course.plots.null_dependence_plot(np.ones(5))


def test_combined_pvalues_plot():
    y, a, b = _expand(GONDARA)
    tab = pc.stats.combine.combined_precision_table({"dr": (y, a, b), "dr again": (y, b, a)},
                                      n_resamples=100, random_state=0)
    ax = pc.course.plots.combined_pvalues_plot(tab)
    assert len(ax.collections) == 3  # dai_cui, fisher, simes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["dr", "dr again"]
    assert len(ax.lines) == 1  # the alpha line
    with pytest.raises(ValueError, match="brown_pvalue"):
        pc.course.plots.combined_pvalues_plot(tab, methods=["brown"])


def test_covariance_and_type1_plots():
    ax = pc.course.plots.covariance_curves_plot()
    assert len(ax.lines) == 4  # two exact curves, the polynomial, the zero line
    two_sided = ax.lines[0].get_ydata()
    assert two_sided.min() >= -1e-9  # never negative for two-sided p-values
    gauss = combination_type1_error([0.0, 0.5], n_sim=500, random_state=0)
    ax2 = pc.course.plots.type1_error_plot(gauss)
    assert len(ax2.lines) == 4  # three methods and the alpha line
    swap = swap_combination_type1_error(n_sim=20, n_resamples=30, random_state=0)
    ax3 = pc.course.plots.type1_error_plot(swap)
    assert len(ax3.patches) == 3
    with pytest.raises(ValueError, match="mc_se"):
        pc.course.plots.type1_error_plot(swap.drop(columns="mc_se"))


# --------------------------------------------------------------------------------------------
# Combined p-values below double precision: a note and a finite log p-value
# --------------------------------------------------------------------------------------------


def test_fisher_underflow_has_note_and_log_pvalue():
    res = pc.combine_pvalues([1e-320, 1e-300], method="fisher")
    ref = stats.combine_pvalues([1e-320, 1e-300], method="fisher")  # scipy, called here
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ref.pvalue == 0.0 and res.pvalue == 0.0
    # chi2(4) upper tail in closed form: exp(-x/2) (1 + x/2)
    x = ref.statistic
    assert res.log_pvalue == pytest.approx(-x / 2 + math.log1p(x / 2), rel=1e-12)
    assert "p < 1e-300" in res.note
    assert math.isfinite(res.to_dict()["log_pvalue"])


@pytest.mark.parametrize("method", ["fisher", "lancaster", "stouffer", "simes", "dai_cui"])
def test_log_pvalue_equals_log_of_pvalue_where_representable(method):
    p = [1e-40, 3e-25, 0.2]
    res = pc.combine_pvalues(p, method=method)
    assert res.pvalue > 1e-300
    assert res.log_pvalue == pytest.approx(math.log(res.pvalue), rel=1e-10)
    assert "1e-300" not in res.note


def test_stouffer_and_simes_underflow_in_log_space():
    p = np.full(40, 1e-12)
    res = pc.combine_pvalues(p, method="stouffer")
    z = stats.norm.isf(1e-12)  # scipy, called here
    assert res.statistic == pytest.approx(40 * z / math.sqrt(40), rel=1e-12)
    assert res.pvalue == 0.0
    assert res.log_pvalue == pytest.approx(special.log_ndtr(-40 * z / math.sqrt(40)), rel=1e-12)
    simes = pc.combine_pvalues([1e-320, 0.5], method="simes")
    # Simes: min(2 * 1e-320 / 1, 2 * 0.5 / 2); 1e-320 is subnormal, so compare logs
    assert simes.log_pvalue == pytest.approx(math.log(2) + math.log(1e-320), rel=1e-3)
    assert "p < 1e-300" in simes.note


@pytest.mark.parametrize("method", ["dai_cui", "brown"])
def test_satterthwaite_methods_underflow_in_log_space(method):
    R = [[1, 0.5], [0.5, 1]]
    res = pc.combine_pvalues([1e-300, 1e-250], method=method, correlation=R)
    assert res.pvalue == 0.0 and math.isfinite(res.log_pvalue)
    assert res.log_pvalue == pytest.approx(_quadrature_chi2_logsf(res.statistic, res.df),
                                           rel=1e-9)


def _quadrature_chi2_logsf(x, df):
    """log P(chi2_df > x) = logpdf(x) + log of the integral of pdf(t) / pdf(x) over t > x,
    with scipy's chi2.logpdf (finite far past where sf underflows) and scipy's quad."""
    from scipy import integrate

    log_fx = stats.chi2.logpdf(x, df)
    ratio, _ = integrate.quad(lambda t: math.exp(stats.chi2.logpdf(t, df) - log_fx), x, math.inf,
                              epsabs=0, epsrel=1e-12)
    return log_fx + math.log(ratio)


@pytest.mark.parametrize(("x", "df"), [(2000.0, 3.7), (3000.0, 1.0), (2855.2, 4.0),
                                       (5000.0, 300.5), (1500.0, 7.25)])
def test_chi2_log_tail_matches_quadrature(x, df):
    from precmp_lib._lib.tails import chi2_logsf

    assert stats.chi2.sf(x, df) < 1e-300  # where scipy's own logsf gives -inf
    assert chi2_logsf(x, df) == pytest.approx(_quadrature_chi2_logsf(x, df), rel=1e-10)
