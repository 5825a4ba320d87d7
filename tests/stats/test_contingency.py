"""McNemar, Cochran's Q and pairwise post-hoc.

References: docs/methods.md §2 worked table (verified there against mlxtend, statsmodels and
DTComPair), §3 (mlxtend user-guide example), R's `mcnemar.test` clipping and `binom.test`
semantics, and statsmodels called in the tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

import precmp_lib as pc
from precmp_lib.core.counts import cells_from_tab_paired
from precmp_lib.stats.combine import swap_permutation_null
from precmp_lib.stats.contingency import mcnemar_pvalue_grid
from precmp_lib.stats.precision import precision_test_from_cells
from precmp_lib.stats.precision_cells import (
    gs_from_cells,
    gw_from_cells,
    naive_rp_from_cells,
    naive_z_from_cells,
    rp_from_cells,
    wald_from_cells,
)

# docs/methods.md §2 worked examples: (b, c) -> chi2, p_chi2, chi2_cc, p_cc, p_exact, p_mid
METHODS_TABLE = [
    ((11, 1), 8.333333, 0.0038924, 6.75, 0.0093748, 0.0063477, 0.0034180),
    ((25, 15), 2.5, 0.11385, 2.025, 0.15473, 0.15386, 0.11728),
    ((3, 4), 0.142857, 0.70546, 0.0, 1.0, 1.0, 0.72656),
    ((0, 7), 7.0, 0.0081510, 5.142857, 0.023342, 0.015625, 0.0078125),
    ((5, 5), 0.0, 1.0, 0.0, 1.0, 1.0, 1.0),
    ((0, 0), 0.0, 1.0, 0.0, 1.0, 1.0, 1.0),
    ((22, 78), 31.36, 2.1435e-08, 30.25, 3.7979e-08, 1.5905e-08, 1.0121e-08),
    ((53, 22), 12.81333, 3.4416e-04, 12.0, 5.3201e-04, 4.4965e-04, 3.1298e-04),
]


def table(b, c, a=100, d=50):
    return [[a, b], [c, d]]


@pytest.mark.parametrize(("bc", "x2", "p", "x2cc", "pcc", "pex", "pmid"), METHODS_TABLE)
def test_mcnemar_matches_methods_table(bc, x2, p, x2cc, pcc, pex, pmid):
    b, c = bc
    t = table(b, c)
    r = pc.mcnemar(t, method="chi2")
    assert r.statistic == pytest.approx(x2, rel=5e-6, abs=1e-12)  # printed to 6-7 digits
    assert r.pvalue == pytest.approx(p, rel=1e-4)
    r = pc.mcnemar(t, method="chi2_corrected")
    assert r.statistic == pytest.approx(x2cc, rel=5e-6, abs=1e-12)
    assert r.pvalue == pytest.approx(pcc, rel=1e-4)
    assert pc.mcnemar(t, method="exact").pvalue == pytest.approx(pex, rel=1e-4)
    assert pc.mcnemar(t, method="midp").pvalue == pytest.approx(pmid, rel=1e-4)


def test_exact_is_closed_form_26_over_4096():
    # docs/methods.md Appendix A: exact p for b=11, c=1 is 2 * (1 + 12) / 2**12 = 26/4096
    assert pc.mcnemar(table(11, 1)).pvalue == pytest.approx(26 / 4096, rel=1e-12)


@pytest.mark.parametrize(("b", "c"), [(11, 1), (25, 15), (0, 7), (3, 4), (40, 3), (7, 30)])
def test_agrees_with_statsmodels_where_statsmodels_is_right(b, c):
    t = np.array(table(b, c))
    for method, kwargs in [("chi2", {"exact": False, "correction": False}),
                           ("chi2_corrected", {"exact": False, "correction": True}),
                           ("exact", {"exact": True})]:
        ours = pc.mcnemar(t, method=method)
        ref = sm_mcnemar(t, **kwargs)
        if method == "chi2_corrected" and abs(b - c) <= 1:
            continue  # statsmodels does not clip |b - c| - 1 at 0 (docs/methods.md §2)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)


def test_r_semantics_b_equals_c_and_no_discordance():
    # R mcnemar.test clips |b - c| - 1 at 0: b = c gives 0 and p = 1 (statsmodels gives 1/(b+c)).
    r = pc.mcnemar(table(5, 5), method="chi2_corrected")
    assert (r.statistic, r.pvalue, r.degenerate) == (0.0, 1.0, False)
    assert sm_mcnemar(np.array(table(5, 5)), exact=False).statistic == pytest.approx(0.1)
    # b + c = 0: every variant statistic 0, p 1, degenerate, with a note (never inf / p = 0)
    for method in ("chi2", "chi2_corrected", "exact", "midp"):
        r = pc.mcnemar(table(0, 0), method=method)
        assert (r.statistic, r.pvalue, r.degenerate) == (0.0, 1.0, True)
        assert "discordant" in r.note


def test_effect_size_accuracy_difference_and_interval():
    r = pc.mcnemar([[9945, 25], [15, 15]])
    assert r.estimate == pytest.approx((25 - 15) / 10000)
    lo, hi = r.confidence_interval()
    assert lo < r.estimate < hi
    assert r.details["b"] == 25 and r.details["c"] == 15
    assert r.details["odds_ratio"] == pytest.approx(25 / 15)


def test_newcombe_interval_limits_are_wilson_limits_without_correlation():
    # With phi = 0 (a*d = b*c) Newcombe's method 10 reduces to square-and-add of two Wilson
    # intervals (Newcombe 1998). Check against statsmodels' Wilson interval for each margin.
    from statsmodels.stats.proportion import proportion_confint

    a, b, c, d = 20, 10, 10, 5  # a*d == b*c
    n = a + b + c + d
    l1, u1 = proportion_confint(a + b, n, method="wilson")
    l2, u2 = proportion_confint(a + c, n, method="wilson")
    p1, p2 = (a + b) / n, (a + c) / n
    r = pc.mcnemar([[a, b], [c, d]])
    assert r.ci_low == pytest.approx(p1 - p2 - np.hypot(p1 - l1, u2 - p2), rel=1e-10)
    assert r.ci_high == pytest.approx(p1 - p2 + np.hypot(u1 - p1, p2 - l2), rel=1e-10)


def test_newcombe_interval_covers_at_nominal_rate():
    # Coverage of the accuracy difference interval in a simulation with correlated correctness.
    rng = np.random.default_rng(1)
    probs = np.array([0.6, 0.15, 0.05, 0.2])  # both, only A, only B, neither
    truth = probs[1] - probs[2]
    hits = 0
    n_sim = 400
    for counts in rng.multinomial(150, probs, size=n_sim):
        r = pc.mcnemar(counts.reshape(2, 2))
        hits += r.ci_low <= truth <= r.ci_high
    assert 0.92 <= hits / n_sim <= 0.98


def test_table_from_predictions_is_labelled_and_feeds_mcnemar():
    y = np.array(["cat", "dog", "dog", "cat", "dog", "cat"])
    a = np.array(["cat", "dog", "cat", "cat", "dog", "dog"])
    b = np.array(["dog", "dog", "dog", "cat", "cat", "dog"])
    t = pc.mcnemar_table(y, a, b, names=("lr", "nb"))
    assert t.index.name == "lr" and t.columns.name == "nb"
    assert t.to_numpy().tolist() == [[2, 2], [1, 1]]
    assert t.to_numpy().sum() == len(y)
    assert pc.mcnemar(t).details["b"] == 2


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300), st.integers(0, 300),
       st.sampled_from(["chi2", "chi2_corrected", "exact", "midp"]))
def test_properties_pvalue_range_and_symmetry(a, b, c, d, method):
    if a + b + c + d == 0:
        with pytest.raises(ValueError, match="at least one item"):
            pc.mcnemar([[a, b], [c, d]], method=method)
        return
    r = pc.mcnemar([[a, b], [c, d]], method=method)
    s = pc.mcnemar([[a, c], [b, d]], method=method)  # swap classifiers A and B
    assert 0.0 <= r.pvalue <= 1.0
    assert r.pvalue == pytest.approx(s.pvalue, rel=1e-12)
    assert r.statistic == pytest.approx(s.statistic, rel=1e-12)
    assert r.estimate == pytest.approx(-s.estimate, abs=1e-15)
    assert r.ci_low == pytest.approx(-s.ci_high, abs=1e-12)
    assert -1.0 <= r.ci_low <= r.estimate <= r.ci_high <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_midp_never_above_exact_and_chi2_corrected_never_below_chi2(b, c):
    t = table(b, c)
    assert pc.mcnemar(t, method="midp").pvalue <= pc.mcnemar(t, method="exact").pvalue + 1e-15
    assert pc.mcnemar(t, method="chi2_corrected").pvalue >= pc.mcnemar(t, method="chi2").pvalue - 1e-15


def test_mcnemar_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        pc.mcnemar(table(1, 2), method="fisher")
    with pytest.raises(ValueError, match=r"table must have shape \(2, 2\)"):
        pc.mcnemar([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="table must hold non-negative counts"):
        pc.mcnemar([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="whole-number counts"):
        pc.mcnemar([[1, 2.5], [3, 4]], method="exact")
    for method in pc.stats.contingency.MCNEMAR_METHODS:  # every variant, chi-square included
        with pytest.raises(ValueError, match=r"table must hold whole-number counts; got 2.5"):
            pc.mcnemar([[1, 2.5], [3, 4]], method=method)
    with pytest.raises(ValueError, match="table must hold finite counts"):
        pc.mcnemar([[1, np.nan], [3, 4]])
    with pytest.raises(ValueError, match="confidence_level"):
        pc.mcnemar(table(1, 2), confidence_level=1.5)


def test_mcnemar_table_bad_input():
    with pytest.raises(ValueError, match=r"y_pred_a must have the same length as y_true \(3\); got 2"):
        pc.mcnemar_table([0, 1, 1], [0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="y_true must not contain NaN labels; found one at position 1"):
        pc.mcnemar_table([0, np.nan, 1], [0, 1, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="y_pred_b must not contain missing labels"):
        pc.mcnemar_table(["a", "b"], ["a", "b"], ["a", None])


def mlxtend_example() -> np.ndarray:
    # docs/methods.md §3: y_true all 0; model 1 predicts 1 on items 0-15, model 2 on 0-5 and 20-21,
    # model 3 on 0-2, 6, 20-21, 98-99. Built here from predictions, not from correctness.
    y = np.zeros(100, dtype=int)
    preds = {f"model_{j}": np.zeros(100, dtype=int) for j in (1, 2, 3)}
    preds["model_1"][:16] = 1
    preds["model_2"][[0, 1, 2, 3, 4, 5, 20, 21]] = 1
    preds["model_3"][[0, 1, 2, 6, 20, 21, 98, 99]] = 1
    return y, preds


def test_cochrans_q_mlxtend_user_guide_example():
    y, preds = mlxtend_example()
    correct = pc.stats.contingency.correctness_matrix(y, preds)
    r = pc.cochrans_q(correct)
    # docs/methods.md §3: Q = 7.529412, p = 0.023174 (mlxtend doc: "Q: 7.529, p: 0.023")
    assert r.statistic == pytest.approx(7.529412, rel=1e-6)
    assert r.pvalue == pytest.approx(0.023174, rel=1e-4)
    assert r.df == 2
    assert r.details["n_correct"] == {"model_1": 84, "model_2": 92, "model_3": 92}
    # L = 2 equals the uncorrected McNemar (docs/methods.md §3: 5.333333, p 0.020921)
    r2 = pc.cochrans_q(correct[["model_1", "model_2"]])
    assert r2.statistic == pytest.approx(5.333333, rel=1e-6)
    assert r2.pvalue == pytest.approx(0.020921, rel=1e-4)


def test_pairwise_mlxtend_example_holm_and_bonferroni():
    y, preds = mlxtend_example()
    chi = pc.pairwise_mcnemar(y, preds, method="chi2")
    # docs/methods.md §3: (b, c) = (2, 10), (4, 12), (3, 3); uncorrected p (0.020921, 0.045500, 1)
    assert chi[["b", "c"]].to_numpy().tolist() == [[10, 2], [12, 4], [3, 3]] or \
        chi[["c", "b"]].to_numpy().tolist() == [[10, 2], [12, 4], [3, 3]]
    np.testing.assert_allclose(chi["pvalue"], [0.020921, 0.045500, 1.0], rtol=1e-4)
    np.testing.assert_allclose(chi["pvalue_adjusted"], [0.062764, 0.091001, 1.0], rtol=1e-4)
    assert chi.attrs["adjustment"] == "holm"
    bonf = pc.pairwise_mcnemar(y, preds, method="chi2", adjust="bonferroni")
    np.testing.assert_allclose(bonf["pvalue_adjusted"], [0.062764, 0.136501, 1.0], rtol=1e-4)
    assert bonf.attrs["adjustment"] == "bonferroni"
    ex = pc.pairwise_mcnemar(y, preds)
    np.testing.assert_allclose(ex["pvalue"], [0.038574, 0.076813, 1.0], rtol=1e-4)
    np.testing.assert_allclose(ex["pvalue_adjusted"], [0.115723, 0.153625, 1.0], rtol=1e-4)
    # The lesson: the omnibus rejects while no adjusted pair does.
    assert pc.cochrans_q(pc.stats.contingency.correctness_matrix(y, preds)).pvalue < 0.05
    assert not ex["reject"].any()


def test_pairwise_holm_equals_statsmodels_multipletests():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    correct = pd.DataFrame(rng.random((300, 5)) < [0.7, 0.75, 0.8, 0.72, 0.9], columns=list("abcde"))
    tab = pc.pairwise_mcnemar(None, correct=correct.astype(int))
    assert len(tab) == 10
    np.testing.assert_allclose(tab["pvalue_adjusted"], multipletests(tab["pvalue"], method="holm")[1])
    for adjust in ("bonferroni", "fdr_bh"):
        other = pc.pairwise_mcnemar(None, correct=correct.astype(int), adjust=adjust)
        np.testing.assert_allclose(other["pvalue_adjusted"],
                                   multipletests(tab["pvalue"], method=adjust)[1])
        assert other.attrs["adjustment"] == adjust
    with pytest.raises(ValueError, match="adjust must be one of"):
        pc.pairwise_mcnemar(None, correct=correct.astype(int), adjust="hochberg")


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 6), st.integers(5, 120), st.integers(0, 2**31 - 1))
def test_cochrans_q_equals_statsmodels_on_random_matrices(L, n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.random((n, L)) < rng.uniform(0.3, 0.95, size=L)).astype(int)
    ours = pc.cochrans_q(x)
    row = x.sum(axis=1)
    if np.all((row == 0) | (row == L)):
        assert ours.degenerate and (ours.statistic, ours.pvalue) == (0.0, 1.0)
        return
    ref = sm_cochrans_q(x)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    # row order does not matter
    perm = rng.permutation(n)
    assert pc.cochrans_q(x[perm]).statistic == pytest.approx(ours.statistic, rel=1e-12)


def test_cochrans_q_two_columns_equals_uncorrected_mcnemar():
    rng = np.random.default_rng(5)
    x = (rng.random((200, 2)) < [0.7, 0.8]).astype(int)
    b = int(np.sum((x[:, 0] == 1) & (x[:, 1] == 0)))
    c = int(np.sum((x[:, 0] == 0) & (x[:, 1] == 1)))
    assert pc.cochrans_q(x).statistic == pytest.approx(
        pc.mcnemar([[0, b], [c, 0]], method="chi2").statistic, rel=1e-12)


def test_cochrans_q_degenerate_constant_rows():
    x = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1]])
    r = pc.cochrans_q(x)
    assert (r.statistic, r.pvalue, r.degenerate) == (0.0, 1.0, True)
    assert r.note


def test_cochrans_q_bad_input():
    with pytest.raises(ValueError, match="at least 2 classifier columns"):
        pc.cochrans_q(np.ones((5, 1)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        pc.cochrans_q([[0, 2], [1, 1]])
    with pytest.raises(ValueError, match=r"found 2.*not its predictions.*correctness_matrix"):
        pc.cochrans_q(pd.DataFrame({"lr": [0, 1, 2], "nb": [1, 1, 2]}))  # 3-class predictions
    with pytest.raises(ValueError, match=r"found 'cat'.*correctness_matrix\(y_true, y_preds\)"):
        pc.cochrans_q([["cat", "dog"], ["dog", "dog"]])
    with pytest.raises(ValueError, match="2-D"):
        pc.cochrans_q([0, 1, 1])


def test_correctness_matrix_string_labels():
    m = pc.stats.contingency.correctness_matrix(["a", "b", "c"], pd.DataFrame({"x": ["a", "b", "b"], "y": ["c", "b", "c"]}))
    assert m.columns.tolist() == ["x", "y"]
    assert m.to_numpy().tolist() == [[1, 0], [1, 1], [0, 1]]


def test_pvalue_grid_matches_scalar_function():
    g = mcnemar_pvalue_grid(15, 12)
    assert len(g) == 16 * 13
    for _, row in g.sample(40, random_state=0).iterrows():
        for method in ("chi2", "chi2_corrected", "exact", "midp"):
            expect = pc.mcnemar(table(int(row.b), int(row.c)), method=method).pvalue
            assert row[method] == pytest.approx(expect, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Labelled tables are read by their labels (issue: crosstab read by position flipped the sign)
# --------------------------------------------------------------------------------------------


def _correctness_pair(seed=3, n=400):
    rng = np.random.default_rng(seed)
    a = rng.random(n) < 0.8
    b = np.where(rng.random(n) < 0.7, a, rng.random(n) < 0.6)
    return a, b


def test_crosstab_of_boolean_correctness_is_read_by_labels():
    a, b = _correctness_pair()
    tab = pd.crosstab(pd.Series(a, name="A"), pd.Series(b, name="B"))
    assert tab.index.tolist() == [False, True]  # pandas sorts: row 0 is "A wrong"
    res = pc.mcnemar(tab, method="chi2")
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    assert (res.details["b"], res.details["c"]) == (only_a, only_b)
    assert res.estimate == pytest.approx(a.mean() - b.mean(), abs=1e-15)  # A minus B
    # statsmodels, called here on the table in the documented orientation
    ref = sm_mcnemar([[np.sum(a & b), only_a], [only_b, np.sum(~a & ~b)]], exact=False,
                     correction=False)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_crosstab_of_01_correctness_and_permuted_mcnemar_table_agree():
    a, b = _correctness_pair(seed=5)
    ints = pc.mcnemar(pd.crosstab(a.astype(int), b.astype(int)))
    bools = pc.mcnemar(pd.crosstab(a, b))
    y = np.zeros(a.size, dtype=int)
    t = pc.mcnemar_table(y, np.where(a, 0, 1), np.where(b, 0, 1))
    shuffled = t.loc[["wrong", "correct"], ["wrong", "correct"]]
    for other in (ints, bools, pc.mcnemar(shuffled)):
        assert other == pc.mcnemar(t)


def test_crosstab_with_a_missing_row_counts_it_zero():
    a = np.ones(50, dtype=bool)  # A is always right: crosstab has no False row
    b = np.r_[np.ones(40, dtype=bool), np.zeros(10, dtype=bool)]
    tab = pd.crosstab(a, b)
    assert tab.shape == (1, 2)
    res = pc.mcnemar(tab)
    assert (res.details["b"], res.details["c"]) == (10.0, 0.0)
    assert res.pvalue == pytest.approx(2 * 0.5**10)  # exact: 2 P(Bin(10, 1/2) <= 0)


def test_unlabelled_frame_is_read_by_position_and_other_labels_are_refused():
    arr = [[30, 12], [4, 6]]
    assert pc.mcnemar(pd.DataFrame(arr)) == pc.mcnemar(arr)
    # labelled columns, unlabelled rows: the rows stay in the documented order
    assert pc.mcnemar(pd.DataFrame(arr, columns=["correct", "wrong"])) == pc.mcnemar(arr)
    assert pc.mcnemar(pd.DataFrame(arr, columns=["wrong", "correct"])) == pc.mcnemar(
        [[12, 30], [6, 4]])
    bad = pd.DataFrame(arr, index=["yes", "no"], columns=["yes", "no"])
    with pytest.raises(ValueError, match=r"table's row \(classifier A\) labels must be "
                                         r"'correct'/'wrong'.*got \['yes', 'no'\]"):
        pc.mcnemar(bad)
    half = pd.DataFrame(arr, index=["correct", "wrong"], columns=[2, 3])
    with pytest.raises(ValueError, match=r"column \(classifier B\) labels.*got \[2, 3\]"):
        pc.mcnemar(half)


# --------------------------------------------------------------------------------------------
# p-values below double precision: a note and a finite log p-value
# --------------------------------------------------------------------------------------------


def test_underflowing_exact_pvalue_has_note_and_log_pvalue():
    res = pc.mcnemar([[0, 5000], [0, 0]])
    # statsmodels, called here, returns a bare 0
    assert sm_mcnemar([[0, 5000], [0, 0]], exact=True).pvalue == 0.0
    assert res.pvalue == 0.0
    # closed form: p = 2 P(Bin(5000, 1/2) = 0) = 2 * 2^-5000
    assert res.log_pvalue == pytest.approx(np.log(2) - 5000 * np.log(2), rel=1e-12)
    assert "p < 1e-300" in res.note and "log p = -3465.04" in res.note
    midp = pc.mcnemar([[0, 5000], [0, 0]], method="midp")  # mid-p: P(X = 0) = 2^-5000
    assert midp.log_pvalue == pytest.approx(-5000 * np.log(2), rel=1e-12)
    one = pc.mcnemar([[0, 4000], [1, 0]])  # 2 P(X <= 1) = 2 (1 + 4001) / 2^4001
    assert one.log_pvalue == pytest.approx(np.log(2 * 4002) - 4001 * np.log(2), rel=1e-12)


def test_underflowing_chi2_pvalue_matches_scipy_log_normal_tail():
    from scipy import special

    res = pc.mcnemar([[0, 5000], [0, 0]], method="chi2")
    # chi2(1) upper tail = 2 P(N > sqrt(x)); scipy's log_ndtr, called here
    assert res.log_pvalue == pytest.approx(np.log(2) + special.log_ndtr(-np.sqrt(5000.0)),
                                           rel=1e-12)
    assert res.pvalue == 0.0 and "p < 1e-300" in res.note
    assert res.to_dict()["log_pvalue"] == res.log_pvalue


@pytest.mark.parametrize("method", ["exact", "midp", "chi2", "chi2_corrected"])
def test_log_pvalue_is_log_of_statsmodels_pvalue_where_representable(method):
    t = [[10, 600], [310, 20]]  # p around 1e-22 .. 1e-23
    res = pc.mcnemar(t, method=method)
    if method == "midp":
        ref = res.pvalue  # statsmodels has no mid-p; checked against the binomial below
        from scipy import stats

        ref = 2 * stats.binom.cdf(309, 910, 0.5) + stats.binom.pmf(310, 910, 0.5)
    else:
        ref = sm_mcnemar(t, exact=method == "exact",
                         correction=method == "chi2_corrected").pvalue
    assert res.pvalue == pytest.approx(ref, rel=1e-9)
    assert res.log_pvalue == pytest.approx(np.log(ref), rel=1e-10)
    assert "1e-300" not in res.note


# --------------------------------------------------------------------------------------------
# One rule for counts: every count-taking function refuses non-integer counts alike
# --------------------------------------------------------------------------------------------


_HALF = np.array([[[5, 2], [3, 9]], [[4, 1], [2.5, 7]]])  # one cell 2.5


@pytest.mark.parametrize("call", [
    lambda: pc.mcnemar([[3, 2.5], [1, 4]], method="chi2"),
    lambda: pc.mcnemar([[3, 2.5], [1, 4]], method="exact"),
    lambda: gs_from_cells(_HALF),
    lambda: gw_from_cells(_HALF),
    lambda: wald_from_cells(_HALF),
    lambda: rp_from_cells(_HALF),
    lambda: naive_z_from_cells(_HALF),
    lambda: naive_rp_from_cells(_HALF),
    lambda: precision_test_from_cells(_HALF),
    lambda: cells_from_tab_paired(30, 4, 10, 6, 5, 3, 8.5, 60),
    lambda: pc.core.counts.PatternCounts.from_patterns({"11": 5.5}, {"01": 3}),
    lambda: swap_permutation_null(np.full((2, 2, 2), 1.5)),
])
def test_count_functions_refuse_non_integer_counts_alike(call):
    with pytest.raises(ValueError, match=r"must hold whole-number counts; got \d+(\.\d+)? at "
                                         r"position"):
        call()
