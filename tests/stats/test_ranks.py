"""Tests for precmp_lib.stats.ranks and precmp_lib.stats.posthoc: Wilcoxon, Friedman, Iman–Davenport, Nemenyi, control and Shaffer.

Reference values come from docs/methods.md §5 (worked examples and q tables), Demšar (2006)
Tables 2, 5 and 6, R's help-page examples (printed output), and scipy/statsmodels called here.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from precmp_lib.stats import ranks as rk
from precmp_lib.stats.posthoc import (
    critical_difference,
    nemenyi,
    pairwise_rank_tests,
    rank_cliques,
    shaffer_true_hypotheses,
    tests_against_control,
)
from precmp_lib.stats.ranks import average_ranks, friedman, iman_davenport, rank_matrix, wilcoxon

# Demšar (2006) Table 6: AUC of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf on 14 UCI data sets, as printed.
DEMSAR_NAMES = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = pd.DataFrame(
    [
        [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569],
        [0.954, 0.971, 0.968, 0.967], [0.628, 0.661, 0.654, 0.657],
        [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
        [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625],
        [0.775, 0.838, 0.866, 0.875], [1.000, 1.000, 1.000, 1.000],
        [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
        [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
    ],
    columns=DEMSAR_NAMES,
)
# Demšar (2006) §3.2.2: the published average ranks (from the unrounded AUCs).
DEMSAR_RANKS = pd.Series([3.143, 2.000, 2.893, 1.964], index=DEMSAR_NAMES)
# Demšar (2006) Table 2 differences C4.5+m minus C4.5 (= docs/methods.md §5.1 worked example 1).
DEMSAR_D = np.array([0.005, -0.008, 0.017, 0.033, 0.006, -0.005, 0.007, 0, 0.063, 0,
                     0.022, 0.047, 0.009, 0.021])
# R ?wilcox.test: Hollander & Wolfe (1973) p. 29f depression scores.
HW_X = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
HW_Y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])
# R ?friedman.test: RoundingTimes (Hollander & Wolfe 1973, p. 140ff), 22 players x 3 methods.
ROUNDING = np.array([
    5.40, 5.50, 5.55, 5.85, 5.70, 5.75, 5.20, 5.60, 5.50, 5.55, 5.50, 5.40, 5.90, 5.85, 5.70,
    5.45, 5.55, 5.60, 5.40, 5.40, 5.35, 5.45, 5.50, 5.35, 5.25, 5.15, 5.00, 5.85, 5.80, 5.70,
    5.25, 5.20, 5.10, 5.65, 5.55, 5.45, 5.60, 5.35, 5.45, 5.05, 5.00, 4.95, 5.50, 5.50, 5.40,
    5.45, 5.55, 5.50, 5.55, 5.55, 5.35, 5.45, 5.50, 5.55, 5.50, 5.45, 5.25, 5.65, 5.60, 5.40,
    5.70, 5.65, 5.55, 6.30, 6.30, 6.25,
]).reshape(22, 3)

score_matrices = st.integers(2, 12).flatmap(
    lambda n: st.integers(2, 6).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 4), min_size=k, max_size=k), min_size=n, max_size=n
        )
    )
).map(lambda rows: np.array(rows, dtype=float) / 4)


def r_friedman_statistic(y: np.ndarray) -> float:
    """R's stats:::friedman.test.default statistic, transcribed (ranks ascending, ties averaged):
    12 * sum((colSums(r) - n(k+1)/2)^2) / (n k (k+1) - sum(t^3 - t) / (k - 1))."""
    n, k = y.shape
    r = stats.rankdata(y, axis=1)
    ties = sum(
        float(np.sum(c.astype(float) ** 3 - c)) for c in (np.unique(row, return_counts=True)[1] for row in y)
    )
    return 12 * np.sum((r.sum(axis=0) - n * (k + 1) / 2) ** 2) / (n * k * (k + 1) - ties / (k - 1))


# ------------------------------------------------------------------------------------------
# Wilcoxon
# ------------------------------------------------------------------------------------------


class TestWilcoxonReferenceValues:
    def test_methods_example_2_exact(self):
        # docs/methods.md §5.1 worked example 2 (no ties, N = 8): T = 6, exact p = 0.109375
        d = np.array([0.012, -0.004, 0.025, 0.008, 0.031, -0.010, 0.019, 0.002])
        res = wilcoxon(d, np.zeros(8))
        assert res.details["distribution"] == "exact"
        assert res.statistic == 30.0 and res.details["t"] == 6.0
        assert res.pvalue == pytest.approx(0.109375, rel=1e-12)
        assert wilcoxon(d, np.zeros(8), alternative="greater").pvalue == pytest.approx(0.0546875)

    def test_methods_example_2_normal(self):
        # docs/methods.md §5.1 worked example 2: z = -1.680336, p = 0.092892; corrected p = 0.107328
        d = np.array([0.012, -0.004, 0.025, 0.008, 0.031, -0.010, 0.019, 0.002])
        plain = wilcoxon(d, np.zeros(8), method="normal", correction=False)
        assert plain.pvalue == pytest.approx(0.092892, rel=1e-5)
        assert plain.details["z"] == pytest.approx(1.680336, rel=1e-6)  # V = R+ side: +z
        corrected = wilcoxon(d, np.zeros(8), method="normal")
        assert corrected.pvalue == pytest.approx(0.107328, rel=1e-5)

    def test_methods_example_3_minimum_p(self):
        # docs/methods.md §5.1 worked example 3: N = 5, all d > 0 -> exact p = 0.0625, cannot reject
        res = wilcoxon([1, 2, 3, 4, 5], [0, 0, 0, 0, 0])
        assert res.pvalue == pytest.approx(0.0625)
        assert "could not fall below 0.05" in res.note

    def test_r_help_page_exact(self):
        # R ?wilcox.test: wilcox.test(x, y, paired = TRUE, alternative = "greater") -> V = 40,
        # p-value = 0.01953 (= 10/512); wilcox.test(y - x, alternative = "less") -> V = 5, same p
        res = wilcoxon(HW_X, HW_Y, alternative="greater")
        assert res.statistic == 40.0
        assert res.pvalue == pytest.approx(10 / 512, rel=1e-12)
        rev = wilcoxon(HW_Y, HW_X, alternative="less")
        assert rev.statistic == 5.0 and rev.pvalue == pytest.approx(10 / 512, rel=1e-12)
        assert wilcoxon(HW_X, HW_Y).pvalue == pytest.approx(20 / 512, rel=1e-12)

    def test_r_help_page_normal(self):
        # R ?wilcox.test: wilcox.test(y - x, alternative = "less", exact = FALSE,
        # correct = FALSE) -> V = 5, p-value = 0.01908 (printed to 4 significant digits)
        res = wilcoxon(HW_Y, HW_X, alternative="less", method="normal", correction=False)
        assert res.statistic == 5.0
        assert res.pvalue == pytest.approx(0.01908, abs=5e-6)

    @pytest.mark.parametrize(
        ("zero_method", "t", "p"),
        # docs/methods.md §5.1 worked example 1 (Demšar Table 2), scipy asymptotic tie-corrected
        [("zsplit", 12.0, 0.010969), ("wilcox", 6.5, 0.010757), ("pratt", 10.5, 0.010792)],
    )
    def test_demsar_table2(self, zero_method, t, p):
        res = wilcoxon(DEMSAR_D, np.zeros(14), zero_method=zero_method, method="normal",
                       correction=False)
        assert res.details["t"] == t
        assert res.pvalue == pytest.approx(p, rel=5e-5)
        ref = stats.wilcoxon(DEMSAR_D, zero_method=zero_method, method="asymptotic",
                             correction=False)
        assert res.details["t"] == ref.statistic
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)

    def test_demsar_table2_rank_sums(self):
        # Demšar (2006) §3.1.3: R+ = 93, R- = 12 with zeros split (two zeros: none dropped)
        for zm in ("zsplit", "demsar"):
            res = wilcoxon(DEMSAR_AUC["C4.5+m"], DEMSAR_AUC["C4.5"], zero_method=zm)
            assert (res.details["r_plus"], res.details["r_minus"]) == (93.0, 12.0)

    def test_demsar_plain_normal_formula(self):
        # docs/methods.md §5.1 example 1: Demšar's z without tie correction = -2.542448
        n, t = 14, 12.0
        z = (t - n * (n + 1) / 4) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        assert z == pytest.approx(-2.542448, rel=1e-6)
        res = wilcoxon(DEMSAR_D, np.zeros(14), zero_method="zsplit", method="normal",
                       correction=False)
        # the tie-corrected variance is smaller, so |z| is larger than Demšar's
        assert abs(res.details["z"]) > abs(z)

    def test_demsar_drops_one_of_an_odd_number_of_zeros(self):
        d3 = np.append(DEMSAR_D, 0.0)  # three zeros: Demšar ignores one
        dropped = wilcoxon(d3, np.zeros(15), zero_method="demsar", method="normal")
        as_two = wilcoxon(DEMSAR_D, np.zeros(14), zero_method="zsplit", method="normal")
        assert dropped.details["n_used"] == 14 and dropped.details["n_zero"] == 3
        assert dropped.pvalue == pytest.approx(as_two.pvalue, rel=1e-12)
        kept = wilcoxon(d3, np.zeros(15), zero_method="zsplit", method="normal")
        assert kept.details["n_used"] == 15 and kept.pvalue != pytest.approx(as_two.pvalue)


class TestWilcoxonAgainstScipy:
    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.integers(-10**6, 10**6).filter(bool), min_size=1, max_size=49,
                    unique=True))
    def test_auto_is_exact_without_ties_or_zeros(self, d):
        # R: exact when n < 50 and no ties/zeros; scipy method="exact" is the same distribution
        d = np.array(d) / 1e4
        if len(np.unique(np.abs(d))) < len(d):
            return
        for alt in ("two-sided", "greater", "less"):
            ours = wilcoxon(d, np.zeros_like(d), alternative=alt)
            ref = stats.wilcoxon(d, method="exact", alternative=alt)
            assert ours.details["distribution"] == "exact"
            assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.integers(-6, 6), min_size=2, max_size=60), st.booleans(),
           st.sampled_from(["two-sided", "greater", "less"]))
    def test_auto_with_ties_is_r_normal(self, d, correction, alt):
        # R's normal branch (ties/zeros, zeros dropped, tie-corrected variance, correction
        # 0.5 toward the mean) = scipy asymptotic with zero_method="wilcox"
        d = np.array(d, dtype=float)
        if np.all(d == 0):
            return
        nz = d[d != 0]
        if len(np.unique(np.abs(nz))) == len(nz) and len(nz) == len(d) and len(d) < 50:
            return  # would be exact
        ours = wilcoxon(d, np.zeros_like(d), correction=correction, alternative=alt)
        ref = stats.wilcoxon(d, method="asymptotic", correction=correction,
                             zero_method="wilcox", alternative=alt)
        assert ours.details["distribution"] == "normal"
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.integers(-4, 4), min_size=2, max_size=11),
           st.sampled_from(["wilcox", "pratt", "zsplit"]),
           st.sampled_from(["two-sided", "greater", "less"]))
    def test_exact_with_ties_equals_full_permutation(self, d, zero_method, alt):
        # scipy's permutation test enumerates all 2^n sign flips for n <= 13: the exact
        # conditional distribution our dynamic programme computes with mid-ranks
        d = np.array(d, dtype=float)
        if np.all(d == 0):
            return
        ours = wilcoxon(d, np.zeros_like(d), method="exact", zero_method=zero_method,
                        alternative=alt)
        ref = stats.wilcoxon(d, method=stats.PermutationMethod(), zero_method=zero_method,
                             alternative=alt)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.integers(-5, 5), min_size=2, max_size=40),
           st.sampled_from(["pratt", "zsplit"]), st.booleans())
    def test_normal_zero_methods_equal_scipy(self, d, zero_method, correction):
        d = np.array(d, dtype=float)
        if np.all(d == 0):
            return
        ours = wilcoxon(d, np.zeros_like(d), method="normal", zero_method=zero_method,
                        correction=correction)
        ref = stats.wilcoxon(d, method="asymptotic", zero_method=zero_method,
                             correction=correction)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
        assert ours.details["t"] == pytest.approx(ref.statistic)


class TestWilcoxonProperties:
    @settings(max_examples=50, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=30),
           st.sampled_from(["auto", "exact", "normal"]),
           st.sampled_from(["wilcox", "pratt", "zsplit", "demsar"]))
    def test_p_in_unit_interval_and_swap_symmetry(self, pairs, method, zero_method):
        x = np.array([p[0] for p in pairs], dtype=float) / 20
        y = np.array([p[1] for p in pairs], dtype=float) / 20
        a = wilcoxon(x, y, method=method, zero_method=zero_method)
        b = wilcoxon(y, x, method=method, zero_method=zero_method)
        assert 0.0 <= a.pvalue <= 1.0
        assert a.pvalue == pytest.approx(b.pvalue, rel=1e-12)
        assert a.details["r_plus"] == b.details["r_minus"]
        g = wilcoxon(x, y, method=method, zero_method=zero_method, alternative="greater")
        le = wilcoxon(y, x, method=method, zero_method=zero_method, alternative="less")
        assert g.pvalue == pytest.approx(le.pvalue, rel=1e-12)
        assert a.estimate == pytest.approx(-b.estimate)

    @settings(max_examples=30, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=2, max_size=30),
           st.randoms(use_true_random=False))
    def test_order_of_data_sets_does_not_matter(self, pairs, rnd):
        x = np.array([p[0] for p in pairs], dtype=float)
        y = np.array([p[1] for p in pairs], dtype=float)
        perm = list(range(len(x)))
        rnd.shuffle(perm)
        assert wilcoxon(x, y).pvalue == wilcoxon(x[perm], y[perm]).pvalue

    def test_floating_noise_does_not_break_ties(self):
        # 0.3 - 0.1 and 0.9 - 0.7 are both 0.2 to 12 significant digits but differ as floats
        x = np.array([0.3, 0.9, 0.5, 0.8, 0.4])
        y = np.array([0.1, 0.7, 0.45, 0.55, 0.05])
        d = x - y
        assert d[0] != d[1]
        ours = wilcoxon(x, y, method="normal")
        assert ours.details["n_tied"] == 2
        ref = stats.wilcoxon(np.round(d, 12), method="asymptotic", correction=True)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert stats.wilcoxon(d, method="asymptotic", correction=True).pvalue != ref.pvalue

    def test_floating_noise_does_not_create_differences(self):
        # (0.1 + 0.2) - 0.3 = 5.6e-17 in floating point: a zero difference, not the smallest rank
        x = np.array([0.1 + 0.2, 0.9, 0.5, 0.8, 0.4, 0.7])
        y = np.array([0.3, 0.7, 0.45, 0.55, 0.05, 0.6])
        res = wilcoxon(x, y)
        assert res.details["n_zero"] == 1 and res.details["n_used"] == 5
        ref = stats.wilcoxon(np.round(x - y, 12), method="asymptotic", correction=True)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)

    def test_estimate_is_hodges_lehmann(self):
        # pseudomedian: median of the n(n+1)/2 Walsh averages of d = x - y
        d = HW_X - HW_Y
        walsh = [(d[i] + d[j]) / 2 for i in range(9) for j in range(i, 9)]
        assert wilcoxon(HW_X, HW_Y).estimate == pytest.approx(np.median(walsh))

    @pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit", "demsar"])
    def test_all_tied_is_degenerate(self, zero_method):
        res = wilcoxon([0.8, 0.7, 0.9, 0.6], [0.8, 0.7, 0.9, 0.6], zero_method=zero_method)
        assert res.pvalue == 1.0 and res.degenerate
        expected = 4 * 5 / 4 if zero_method in ("zsplit", "demsar") else 0.0
        assert res.statistic == expected
        assert "zero" in res.note

    def test_result_unpacks_and_names_the_variant(self):
        stat, p = wilcoxon(HW_X, HW_Y)
        assert (stat, p) == (40.0, pytest.approx(20 / 512))
        assert "exact" in wilcoxon(HW_X, HW_Y).method
        assert "continuity correction" in wilcoxon(HW_X, HW_Y, method="normal").method


class TestWilcoxonBadInput:
    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [
            ({"method": "asymptotic"}, "method must be one of"),
            ({"zero_method": "drop"}, "zero_method must be one of"),
            ({"alternative": "two_sided"}, "alternative must be one of"),
            ({"correction": 1}, "correction must be True or False"),
        ],
    )
    def test_options(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            wilcoxon(HW_X, HW_Y, **kwargs)

    def test_arrays(self):
        with pytest.raises(ValueError, match="same length"):
            wilcoxon([1, 2, 3], [1, 2])
        with pytest.raises(ValueError, match="x must hold finite scores"):
            wilcoxon([1, np.nan], [1, 2])
        with pytest.raises(ValueError, match="y must not be empty"):
            wilcoxon([1.0], [])
        with pytest.raises(ValueError, match="one-dimensional"):
            wilcoxon([[1, 2]], [[1, 2]])


# ------------------------------------------------------------------------------------------
# ranks, Friedman, Iman–Davenport
# ------------------------------------------------------------------------------------------


class TestRanks:
    def test_demsar_table6_ranks(self):
        # docs/methods.md §5.2 example 2: ranks from the printed 3-decimal table
        r = average_ranks(DEMSAR_AUC)
        np.testing.assert_allclose(r, [3.142857, 2.0, 2.928571, 1.928571], atol=1e-6)
        assert list(r.index) == DEMSAR_NAMES
        # Demšar's parenthesised ranks of Table 6, rows 6 (iris) and 10 (mushroom)
        m = rank_matrix(DEMSAR_AUC)
        assert m.iloc[5].tolist() == [1.0, 2.5, 4.0, 2.5]
        assert m.iloc[9].tolist() == [2.5, 2.5, 2.5, 2.5]

    def test_lower_is_better_reverses(self):
        err = 1 - DEMSAR_AUC
        pd.testing.assert_series_equal(average_ranks(err, higher_is_better=False),
                                       average_ranks(DEMSAR_AUC))
        r = average_ranks(DEMSAR_AUC, higher_is_better=False)
        np.testing.assert_allclose(r, 5 - average_ranks(DEMSAR_AUC))

    def test_floating_noise_ties(self):
        # 0.1 + 0.2 and 0.3 differ as floats; to 12 significant digits they tie
        assert (0.1 + 0.2) != 0.3
        assert rank_matrix([[0.1 + 0.2, 0.3, 0.1]]).iloc[0].tolist() == [1.5, 1.5, 3.0]

    def test_bad_input(self):
        with pytest.raises(ValueError, match="at least 2 rows and 2 columns"):
            average_ranks([[0.1, 0.2]])
        with pytest.raises(ValueError, match="finite numbers"):
            average_ranks([[0.1, np.nan], [0.2, 0.3]])
        with pytest.raises(ValueError, match="higher_is_better must be True or False"):
            average_ranks([[0.1, 0.2], [0.2, 0.3]], "yes")


class TestFriedman:
    def test_r_help_page_rounding_times(self):
        # R ?friedman.test: friedman.test(RoundingTimes) -> Friedman chi-squared = 11.143,
        # df = 2, p-value = 0.003805 (the data have ties within players)
        res = friedman(ROUNDING)
        assert res.statistic == pytest.approx(11.143, abs=5e-4)
        assert res.pvalue == pytest.approx(0.003805, abs=5e-7)
        assert res.df == 2
        assert res.statistic == pytest.approx(r_friedman_statistic(ROUNDING), rel=1e-12)
        assert res.details["tie_factor"] < 1

    def test_demsar_table6_with_and_without_tie_correction(self):
        # docs/methods.md §5.2 example 2: no correction 9.857143 (p 0.019820); corrected (C = 0.9)
        # 10.952381 (p 0.011986, = scipy); F_F 3.986667 (p 0.014352) / 4.585890 (p 0.0076288)
        plain = friedman(DEMSAR_AUC, tie_correction=False)
        assert plain.statistic == pytest.approx(9.857143, rel=1e-6)
        assert plain.pvalue == pytest.approx(0.019820, rel=1e-4)
        corr = friedman(DEMSAR_AUC)
        assert corr.details["tie_factor"] == pytest.approx(0.9, rel=1e-12)
        assert corr.statistic == pytest.approx(10.952381, rel=1e-6)
        assert corr.pvalue == pytest.approx(0.011986, rel=1e-4)
        ref = stats.friedmanchisquare(*DEMSAR_AUC.to_numpy().T)
        assert corr.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert corr.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        f_plain = iman_davenport(DEMSAR_AUC, tie_correction=False)
        assert f_plain.statistic == pytest.approx(3.986667, rel=1e-6)
        assert f_plain.pvalue == pytest.approx(0.014352, rel=1e-4)
        f_corr = iman_davenport(DEMSAR_AUC)
        assert f_corr.statistic == pytest.approx(4.585890, rel=1e-6)
        assert f_corr.pvalue == pytest.approx(0.0076288, rel=1e-4)
        assert f_corr.df == (3.0, 39.0)

    def test_demsar_published_ranks(self):
        # docs/methods.md §5.2 example 1: chi2_F = 9.28363 (p 0.025748), F_F = 3.688893
        # (p 0.019768); F(3, 39) critical value 2.8451 (paper: 9.28, 3.69, 2.85)
        res = friedman(DEMSAR_RANKS, n_datasets=14)
        assert res.statistic == pytest.approx(9.28363, rel=1e-6)
        assert res.pvalue == pytest.approx(0.025748, rel=1e-4)
        f = iman_davenport(DEMSAR_RANKS, n_datasets=14)
        assert f.statistic == pytest.approx(3.688893, rel=1e-6)
        assert f.pvalue == pytest.approx(0.019768, rel=1e-4)
        assert stats.f.isf(0.05, *f.df) == pytest.approx(2.8451, abs=1e-4)

    def test_perfect_concordance(self):
        # docs/methods.md §5.2 example 3: N = 3, k = 3, same order: chi2 6, p 0.049787, F_F = inf
        s = np.array([[0.9, 0.8, 0.7], [0.95, 0.85, 0.6], [0.7, 0.65, 0.5]])
        res = friedman(s)
        assert res.statistic == pytest.approx(6.0) and res.pvalue == pytest.approx(0.049787, rel=1e-5)
        f = iman_davenport(s)
        assert f.statistic == math.inf and f.pvalue == 0.0 and f.degenerate
        assert "same order" in f.note

    @pytest.mark.parametrize("test", [friedman, iman_davenport])
    def test_all_tied_is_degenerate(self, test):
        res = test(np.full((5, 4), 0.8))
        assert (res.statistic, res.pvalue, res.degenerate) == (0.0, 1.0, True)
        with pytest.warns(RuntimeWarning):  # scipy gives NaN here
            assert np.isnan(stats.friedmanchisquare(*np.full((5, 4), 0.8).T).statistic)

    @settings(max_examples=80, deadline=None)
    @given(score_matrices)
    def test_equals_scipy_and_r_with_ties(self, s):
        if s.shape[1] < 3 or np.all(s == s[:, :1]):
            return  # scipy needs 3 groups; all-tied is the degenerate case tested above
        res = friedman(s)
        ref = stats.friedmanchisquare(*s.T)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
        assert res.statistic == pytest.approx(r_friedman_statistic(s), rel=1e-9)

    @settings(max_examples=60, deadline=None)
    @given(score_matrices, st.randoms(use_true_random=False))
    def test_invariances(self, s, rnd):
        rows = list(range(s.shape[0]))
        cols = list(range(s.shape[1]))
        rnd.shuffle(rows)
        rnd.shuffle(cols)
        a = friedman(s)
        b = friedman(s[rows][:, cols])
        c = friedman(s, higher_is_better=False)
        assert 0 <= a.pvalue <= 1
        assert a.statistic == pytest.approx(b.statistic, rel=1e-12, abs=1e-12)
        assert a.statistic == pytest.approx(c.statistic, rel=1e-12, abs=1e-12)
        f = iman_davenport(s)
        assert 0 <= f.pvalue <= 1
        if not f.degenerate:
            n, k = s.shape
            assert f.statistic == pytest.approx((n - 1) * a.statistic / (n * (k - 1) - a.statistic))

    def test_kendall_w(self):
        res = friedman(ROUNDING)
        assert res.details["kendall_w"] == pytest.approx(res.statistic / (22 * 2))

    def test_bad_input(self):
        with pytest.raises(ValueError, match="at least 2 rows"):
            friedman([[0.1, 0.2, 0.3]])
        with pytest.raises(ValueError, match="n_datasets"):
            friedman(DEMSAR_RANKS)
        with pytest.raises(ValueError, match="only used with average ranks"):
            friedman(DEMSAR_AUC, n_datasets=14)
        with pytest.raises(ValueError, match="must sum to"):
            friedman(pd.Series([1.0, 1.0, 1.0]), n_datasets=5)
        with pytest.raises(ValueError, match=r"lie in \[1, k\]"):
            friedman(pd.Series([0.5, 2.5]), n_datasets=5)
        with pytest.raises(ValueError, match="n_datasets must be an integer >= 2"):
            iman_davenport(DEMSAR_RANKS, n_datasets=1)
        with pytest.raises(ValueError, match="tie_correction must be True or False"):
            friedman(DEMSAR_AUC, tie_correction="no")


# ------------------------------------------------------------------------------------------
# post-hoc tests
# ------------------------------------------------------------------------------------------

# docs/methods.md §5.3 q_alpha table (recomputed; Demšar Table 5 within ±0.001)
Q_NEMENYI_05 = [1.9600, 2.3437, 2.5690, 2.7278, 2.8497, 2.9483, 3.0309, 3.1017, 3.1637]
Q_NEMENYI_10 = [1.6449, 2.0523, 2.2913, 2.4595, 2.5885, 2.6927, 2.7799, 2.8546, 2.9199]
Q_BD_05 = [1.9600, 2.2414, 2.3940, 2.4977, 2.5758, 2.6383, 2.6901, 2.7344, 2.7729]
Q_BD_10 = [1.6449, 1.9600, 2.1280, 2.2414, 2.3263, 2.3940, 2.4500, 2.4977, 2.5392]
# Demšar (2006) Table 5 as printed (truncated; BD 0.05 k = 9 printed 2.724 is a typo for 2.734)
DEMSAR_T5_NEMENYI_05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]


class TestCriticalDifference:
    @pytest.mark.parametrize(
        ("method", "alpha", "table"),
        [("nemenyi", 0.05, Q_NEMENYI_05), ("nemenyi", 0.10, Q_NEMENYI_10),
         ("bonferroni_dunn", 0.05, Q_BD_05), ("bonferroni_dunn", 0.10, Q_BD_10)],
    )
    def test_q_tables(self, method, alpha, table):
        for k, q in zip(range(2, 11), table):
            # CD with N chosen so that SE = 1: k(k+1)/(6N) = 1 is not an integer N, so divide
            se = math.sqrt(k * (k + 1) / (6 * 10))
            assert critical_difference(k, 10, alpha=alpha, method=method) / se == pytest.approx(
                q, abs=5e-5)

    def test_demsar_table5_printed(self):
        for k, q in zip(range(2, 11), DEMSAR_T5_NEMENYI_05):
            se = math.sqrt(k * (k + 1) / 60)
            assert critical_difference(k, 10) / se == pytest.approx(q, abs=1.1e-3)

    def test_demsar_example(self):
        # docs/methods.md §5.3: CD Nemenyi 0.05 = 1.253559, 0.10 = 1.118060, BD 0.05 = 1.168143
        assert critical_difference(4, 14) == pytest.approx(1.253559, abs=5e-7)
        assert critical_difference(4, 14, alpha=0.10) == pytest.approx(1.118060, abs=5e-7)
        assert critical_difference(4, 14, method="bonferroni_dunn") == pytest.approx(
            1.168143, abs=5e-7)

    def test_bad_input(self):
        with pytest.raises(ValueError, match="method must be one of"):
            critical_difference(4, 14, method="tukey")
        with pytest.raises(ValueError, match="k must be an integer >= 2"):
            critical_difference(1, 14)
        with pytest.raises(ValueError, match="alpha must lie in"):
            critical_difference(4, 14, alpha=1.5)


class TestNemenyi:
    def test_demsar_published_ranks(self):
        # docs/methods.md §5.3: SE = 0.487950; Nemenyi adjusted p C4.5 vs C4.5+m+cf 0.0740,
        # vs C4.5+m 0.0886; no pair significant at 0.05
        res = nemenyi(DEMSAR_RANKS, n_datasets=14)
        assert res.se == pytest.approx(0.487950, abs=5e-7)
        assert res.critical_difference == pytest.approx(1.253559, abs=5e-7)
        assert res.pvalues.loc["C4.5", "C4.5+m+cf"] == pytest.approx(0.0740, abs=5e-5)
        assert res.pvalues.loc["C4.5", "C4.5+m"] == pytest.approx(0.0886, abs=5e-5)
        assert not res.significant.to_numpy().any()
        assert res.cliques == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]

    def test_demsar_alpha_010_two_groups(self):
        # Demšar §3.2.2: at p = 0.10 (CD 1.12) C4.5 is worse than C4.5+m and C4.5+m+cf and
        # C4.5+cf belongs to neither group for sure
        res = nemenyi(DEMSAR_RANKS, n_datasets=14, alpha=0.10)
        assert res.significant.loc["C4.5", "C4.5+m"] and res.significant.loc["C4.5", "C4.5+m+cf"]
        assert res.cliques == [("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5")]

    @pytest.mark.parametrize(("n", "k", "decimals"), [(14, 4, 2), (30, 12, 1), (100, 50, 3), (20, 7, 0)])
    def test_pvalues_equal_scikit_posthocs(self, n, k, decimals):
        # scikit-posthocs' posthoc_nemenyi_friedman, called here on the same matrix (rounded
        # scores, so many within-row ties and many pairs with equal rank differences)
        scores = np.random.default_rng(n * k).random((n, k)).round(decimals)
        ours = nemenyi(scores).pvalues.to_numpy()
        theirs = sp.posthoc_nemenyi_friedman(scores).to_numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)

    def test_pvalue_matches_critical_difference(self):
        res = nemenyi(DEMSAR_AUC)
        diff = np.abs(res.ranks.to_numpy()[:, None] - res.ranks.to_numpy()[None, :])
        np.fill_diagonal(diff, 0)
        np.testing.assert_array_equal(res.significant.to_numpy(),
                                      diff >= res.critical_difference)

    def test_k2_reduces_to_z_test(self):
        # docs/methods.md §5.3 edge case: k = 2, q = 1.96 = z
        s = np.array([[0.9, 0.8], [0.7, 0.75], [0.6, 0.5], [0.9, 0.85], [0.8, 0.7]])
        res = nemenyi(s)
        z = res.statistics.iloc[0, 1]
        assert res.pvalues.iloc[0, 1] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-6)
        assert res.q_alpha == pytest.approx(stats.norm.isf(0.025), rel=1e-6)

    @settings(max_examples=40, deadline=None)
    @given(score_matrices)
    def test_matrix_properties(self, s):
        res = nemenyi(s)
        p = res.pvalues.to_numpy()
        assert np.all((p >= 0) & (p <= 1))
        np.testing.assert_allclose(p, p.T)
        assert np.all(np.diag(p) == 1)
        np.testing.assert_allclose(res.statistics.to_numpy(), -res.statistics.to_numpy().T)
        assert res.ranks.sum() == pytest.approx(s.shape[1] * (s.shape[1] + 1) / 2)

    def test_to_frame_and_html(self):
        res = nemenyi(DEMSAR_AUC)
        tab = res.to_frame()
        assert len(tab) == 6
        assert list(tab.columns) == ["model_a", "model_b", "rank_a", "rank_b",
                                     "rank_difference", "statistic", "pvalue", "reject"]
        assert "critical difference" in res._repr_html_()


class TestAgainstControl:
    def test_demsar_holm_and_bonferroni_dunn(self):
        # docs/methods.md §5.3 worked example: control C4.5, z = 2.416231, 2.342453, 0.512348;
        # p = 0.015682, 0.019157, 0.608408; Holm adjusted 0.04705, 0.04705, 0.60841 (rejects
        # the first two); Bonferroni–Dunn adjusted 0.04705, 0.05747, 1 (only C4.5+m+cf)
        holm = tests_against_control(DEMSAR_RANKS, "C4.5", n_datasets=14)
        assert holm["model"].tolist() == ["C4.5+m+cf", "C4.5+m", "C4.5+cf"]
        np.testing.assert_allclose(-holm["statistic"], [2.416231, 2.342453, 0.512348], atol=5e-6)
        np.testing.assert_allclose(holm["pvalue"], [0.015682, 0.019157, 0.608408], atol=5e-6)
        np.testing.assert_allclose(holm["pvalue_adjusted"], [0.04705, 0.04705, 0.60841],
                                   atol=5e-6)
        np.testing.assert_allclose(holm["threshold"], [0.05 / 3, 0.05 / 2, 0.05])
        assert holm["reject"].tolist() == [True, True, False]
        bd = tests_against_control(DEMSAR_RANKS, "C4.5", n_datasets=14, method="bonferroni_dunn")
        np.testing.assert_allclose(bd["pvalue_adjusted"], [0.04705, 0.05747, 1.0], atol=5e-6)
        assert bd["reject"].tolist() == [True, False, False]

    def test_bonferroni_dunn_matches_its_critical_difference(self):
        bd = tests_against_control(DEMSAR_RANKS, "C4.5", n_datasets=14, method="bonferroni_dunn")
        cd = critical_difference(4, 14, method="bonferroni_dunn")
        assert (bd["rank_difference"].abs() >= cd).tolist() == bd["reject"].tolist()

    @pytest.mark.parametrize(("ours", "theirs"), [("holm", "holm"), ("hochberg", "simes-hochberg"),
                                                  ("bonferroni_dunn", "bonferroni")])
    def test_adjustments_equal_statsmodels(self, ours, theirs):
        rng = np.random.default_rng(3)
        s = rng.normal(size=(12, 6)) + np.linspace(0, 1.5, 6)
        tab = tests_against_control(s, method=ours)
        ref = multipletests(tab["pvalue"], method=theirs)[1]
        np.testing.assert_allclose(tab["pvalue_adjusted"], ref, rtol=1e-12)
        assert tab.attrs["adjustment"] == ours

    def test_default_control_is_best_ranked_and_positions_work(self):
        tab = tests_against_control(DEMSAR_AUC)
        assert set(tab["control"]) == {"C4.5+m+cf"}
        assert (tab["rank_difference"] > 0).all()
        by_pos = tests_against_control(DEMSAR_AUC, 0)
        assert set(by_pos["control"]) == {"C4.5"}

    def test_not_collected_as_a_test(self):
        assert tests_against_control.__test__ is False

    def test_bad_input(self):
        with pytest.raises(ValueError, match="control must be one of the classifiers"):
            tests_against_control(DEMSAR_AUC, "C5.0")
        with pytest.raises(ValueError, match="column position"):
            tests_against_control(DEMSAR_AUC, 7)
        with pytest.raises(ValueError, match="method must be one of"):
            tests_against_control(DEMSAR_AUC, method="nemenyi")


def _partition_counts(k: int) -> set[int]:
    """Numbers of true pairwise equalities over all set partitions of k items (brute force)."""
    out = set()
    for labels in product(range(k), repeat=k):
        sizes = np.bincount(labels)
        out.add(int(np.sum(sizes * (sizes - 1) // 2)))
    return out


class TestShafferAndPairwise:
    @pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
    def test_true_hypothesis_counts_by_enumeration(self, k):
        assert shaffer_true_hypotheses(k) == sorted(_partition_counts(k))

    def test_known_sets(self):
        # Shaffer (1986); García & Herrera (2008) §3: k = 4 -> {0, 1, 2, 3, 6}
        assert shaffer_true_hypotheses(4) == [0, 1, 2, 3, 6]
        assert shaffer_true_hypotheses(5) == [0, 1, 2, 3, 4, 6, 10]

    def test_shaffer_demsar(self):
        # t_i for k = 4, m = 6: 6, 3, 3, 3, 2, 1 applied to the sorted unadjusted p-values
        tab = pairwise_rank_tests(DEMSAR_RANKS, n_datasets=14, method="shaffer")
        p = tab["pvalue"].to_numpy()
        expected = np.maximum.accumulate(np.minimum(1, np.array([6, 3, 3, 3, 2, 1]) * p))
        np.testing.assert_allclose(tab["pvalue_adjusted"], expected, rtol=1e-12)
        assert tab.attrs["adjustment"] == "shaffer"

    @settings(max_examples=40, deadline=None)
    @given(score_matrices)
    def test_shaffer_between_holm_and_raw(self, s):
        holm = pairwise_rank_tests(s, method="holm")
        shaffer = pairwise_rank_tests(s, method="shaffer")
        assert np.all(shaffer["pvalue_adjusted"] <= holm["pvalue_adjusted"] + 1e-15)
        assert np.all(shaffer["pvalue_adjusted"] >= shaffer["pvalue"] - 1e-15)

    @pytest.mark.parametrize("method", ["holm", "bonferroni"])
    def test_pairwise_adjustment_equals_statsmodels(self, method):
        tab = pairwise_rank_tests(DEMSAR_AUC, method=method)
        np.testing.assert_allclose(tab["pvalue_adjusted"],
                                   multipletests(tab["pvalue"], method=method)[1], rtol=1e-12)

    def test_nemenyi_table_equals_matrix(self):
        tab = pairwise_rank_tests(DEMSAR_AUC)
        res = nemenyi(DEMSAR_AUC)
        for row in tab.itertuples():
            assert row.pvalue_adjusted == pytest.approx(res.pvalues.loc[row.model_a, row.model_b])
        assert len(tab) == 6 and tab["pvalue"].is_monotonic_increasing

    def test_bad_method(self):
        with pytest.raises(ValueError, match="method must be one of"):
            pairwise_rank_tests(DEMSAR_AUC, method="bonferroni_dunn")


class TestCliques:
    def test_general_structure(self):
        r = pd.Series({"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0})
        sig = np.zeros((4, 4), dtype=bool)
        assert rank_cliques(r, sig) == [("a", "b", "c", "d")]
        sig[0, 2] = sig[1, 3] = True  # a-c and b-d differ
        assert rank_cliques(r, sig) == [("a", "b"), ("b", "c"), ("c", "d")]
        assert rank_cliques(r, ~np.eye(4, dtype=bool)) == []

    def test_order_follows_ranks_not_input(self):
        r = pd.Series({"worst": 3.0, "best": 1.0, "mid": 2.0})
        assert rank_cliques(r, np.zeros((3, 3), dtype=bool)) == [("best", "mid", "worst")]

    def test_bad_input(self):
        with pytest.raises(ValueError, match="3 x 3"):
            rank_cliques(pd.Series([1.0, 2.0, 3.0]), np.zeros((2, 2)))
        with pytest.raises(ValueError, match="pandas Series"):
            rank_cliques([1.0, 2.0], np.zeros((2, 2)))


class TestRoundSignificant:
    """Ranks compare scores rounded to 12 significant digits; the numeric rounding must give
    exactly the float that formatting with "%.12g" and parsing back gives (computed here)."""

    @staticmethod
    def _by_text(values):
        return np.array([float(f"{v:.12g}") for v in np.asarray(values, dtype=float).ravel()])

    def test_halfway_and_boundary_values_equal_formatting(self):
        rng = np.random.default_rng(7)
        halfway = (rng.integers(0, 10**13, 2000) + 0.5) / 10.0 ** rng.integers(0, 14, 2000)
        edges = np.array([0.1 + 0.2, 0.3, 999999999999.5, 9999999999995.0, 99999999999.95,
                          0.5, 1.0, 1e-12, 1e22, 1e23, 1e300, 5e-324, 2.2250738585072014e-308,
                          123456789012.5, 0.1234567890125, 1 - 1e-16, 1e15 + 0.5])
        values = np.concatenate([halfway, -halfway, edges, -edges, [0.0, -0.0]])
        got = rk._round_significant(values)
        np.testing.assert_array_equal(got, self._by_text(values))

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=30))
    def test_any_finite_float_equals_formatting(self, values):
        np.testing.assert_array_equal(rk._round_significant(values), self._by_text(values))

    def test_shape_is_kept(self):
        x = np.arange(6.0).reshape(2, 3) / 7
        assert rk._round_significant(x).shape == (2, 3)
        assert rk._round_significant([]).shape == (0,)


# --------------------------------------------------------------------------------------------
# the sign test, the Hodges–Lehmann interval and Cliff's delta
# --------------------------------------------------------------------------------------------


def test_hodges_lehmann_interval_inverts_scipys_exact_signed_rank_test():
    from precmp_lib.stats.ranks import hodges_lehmann_interval

    rng = np.random.default_rng(4)
    for n in (8, 15, 30):
        x, y = rng.normal(0.8, 0.05, n), rng.normal(0.78, 0.05, n)
        est, lo, hi = hodges_lehmann_interval(x, y)
        d = x - y
        eps = 1e-9
        p = [stats.wilcoxon(d - delta, method="exact").pvalue
             for delta in (lo - eps, lo + eps, hi - eps, hi + eps)]
        # just outside the interval the test rejects at 5 %, just inside it does not
        assert p[0] <= 0.05 < p[1] and p[2] > 0.05 >= p[3], (n, p)
        assert lo <= est <= hi


def test_sign_test_equals_scipys_binomial_test_and_counts_ties():
    from precmp_lib.stats.ranks import sign_test

    x = [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.75, 0.5]
    y = [0.8, 0.7, 0.6, 0.6, 0.95, 0.7, 0.7, 0.4]
    res = sign_test(x, y)
    assert (res.details["wins"], res.details["ties"], res.details["losses"]) == (6, 1, 1)
    assert res.pvalue == pytest.approx(stats.binomtest(6, 7).pvalue)
    low = sign_test(x, y, higher_is_better=False)
    assert (low.details["wins"], low.details["losses"]) == (1, 6)
    assert sign_test([0.5, 0.5], [0.5, 0.5]).degenerate


def test_cliffs_delta_is_its_definition_over_every_pair():
    from precmp_lib.stats.ranks import cliffs_delta

    rng = np.random.default_rng(1)
    a, b = np.round(rng.uniform(0, 1, 12), 1), np.round(rng.uniform(0, 1, 9), 1)
    assert cliffs_delta(a, b) == pytest.approx(np.mean(np.sign(a[:, None] - b[None, :])))
    assert cliffs_delta(b, a) == pytest.approx(-cliffs_delta(a, b))


def test_signed_rank_normal_is_wilcoxon_normal_pair_by_pair_with_ties_and_zeros():
    from precmp_lib.stats.ranks import sign_pvalues, signed_rank_normal

    rng = np.random.default_rng(1)
    x, y = np.round(rng.random((80, 30)), 2), np.round(rng.random((80, 30)), 2)  # ties, zeros
    v, p = signed_rank_normal(x, y)
    for j in range(30):
        ref = wilcoxon(x[:, j], y[:, j], method="normal")
        assert v[j] == ref.statistic and p[j] == pytest.approx(ref.pvalue, rel=1e-12)
        # and scipy's normal approximation with R's continuity correction, on the differences
        # rounded as ours are (0.5 - 0.4 and 0.3 - 0.2 tie only after rounding)
        sp_ref = stats.wilcoxon(np.round(x[:, j] - y[:, j], 12), method="approx",
                                correction=True)
        assert p[j] == pytest.approx(sp_ref.pvalue, rel=1e-9)
    wins = rng.integers(0, 30, 50)
    losses = rng.integers(0, 30, 50)
    ref = [stats.binomtest(int(w), int(w + lo)).pvalue if w + lo else 1.0
           for w, lo in zip(wins, losses)]
    np.testing.assert_allclose(sign_pvalues(wins, losses), ref, rtol=1e-9)
