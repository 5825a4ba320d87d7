"""Tests of precmp_lib.stats.prevalence (and its widget state): reference values with their provenance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.axes import Axes

import precmp_lib as pc
import precmp_lib.course.plots  # the plot test below reaches it as pc.course.plots
from precmp_lib.course.widgets.one_test_set import prevalence_state

SE, SP = 0.75, 130 / 140  # docs/methods.md §9, worked example 1: TP 45, FN 15, FP 10, TN 130
CONFUSION = [[130, 10], [15, 45]]  # rows true (0, 1), columns predicted; class 1 is "positive"

# Gondara's diabetic retinopathy test set (docs/methods.md §6.6(d), §13) as a joint table
# [true class, NB's prediction, RF's prediction]
GONDARA = np.zeros((2, 2, 2), dtype=np.int64)
GONDARA[0] = [[103, 45], [6, 11]]
GONDARA[1] = [[63, 64], [1, 53]]


def _expand(table):
    return np.unravel_index(np.repeat(np.arange(table.size), table.ravel()), table.shape)


# --------------------------------------------------------------------------------------------
# prevalence_adjusted_precision
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prevalence", "expected"),
    # docs/methods.md §9 ex. 1
    [(0.3, 0.818182), (0.1, 0.538462), (0.5, 0.913043), (0.01, 0.095890)],
)
def test_worked_example(prevalence, expected):
    assert pc.prevalence_adjusted_precision(SE, SP, prevalence) == pytest.approx(expected, abs=5e-7)


def test_gondara_table10():
    # docs/methods.md §9 ex. 2: NB Se 148/165, Sp 54/181; RF Se 109/165, Sp 117/181 (class 0);
    # class 1 swaps the roles. pi(0) = 0.30, pi(1) = 0.70 -> 0.3540, 0.4447, 0.8711, 0.8163;
    # Gondara Table 10 prints 0.35, 0.45, 0.87, 0.81 (all within 0.007)
    nb0 = pc.prevalence_adjusted_precision(148 / 165, 54 / 181, 0.30)
    rf0 = pc.prevalence_adjusted_precision(109 / 165, 117 / 181, 0.30)
    nb1 = pc.prevalence_adjusted_precision(54 / 181, 148 / 165, 0.70)
    rf1 = pc.prevalence_adjusted_precision(117 / 181, 109 / 165, 0.70)
    np.testing.assert_allclose([nb0, rf0, nb1, rf1], [0.3540, 0.4447, 0.8711, 0.8163], atol=5e-5)
    np.testing.assert_allclose([nb0, rf0, nb1, rf1], [0.35, 0.45, 0.87, 0.81], atol=0.007)


def test_dtcompair_pv_prev_form():
    # DTComPair pv.prev: PPV = 1 / (1 + (1/pi - 1) / pDLR), pDLR = Se / (1 - Sp) (computed here)
    pi = np.linspace(0.02, 0.98, 25)
    dlr = SE / (1 - SP)
    np.testing.assert_allclose(pc.prevalence_adjusted_precision(SE, SP, pi),
                               1 / (1 + (1 / pi - 1) / dlr), rtol=1e-12)


@settings(max_examples=80, deadline=None)
@given(tp=st.integers(1, 200), fn=st.integers(0, 200), fp=st.integers(1, 200),
       tn=st.integers(0, 200), pi=st.floats(0.001, 0.999))
def test_property_odds_form(tp, fn, fp, tn, pi):
    # docs/methods.md §9: odds(P(pi)) = odds(P) * odds(pi) / odds(pi_s), P and pi_s from the test set
    se, sp = tp / (tp + fn), tn / (tn + fp)
    precision, pi_s = tp / (tp + fp), (tp + fn) / (tp + fn + fp + tn)
    updated = pc.prevalence_adjusted_precision(se, sp, pi)
    assert 0 <= updated <= 1
    if 0 < precision < 1 and 0 < updated < 1:
        odds = lambda q: q / (1 - q)  # noqa: E731
        assert odds(updated) == pytest.approx(odds(precision) * odds(pi) / odds(pi_s), rel=1e-9)
    # at the test-set prevalence the update returns the test-set precision
    assert pc.prevalence_adjusted_precision(se, sp, pi_s) == pytest.approx(precision, rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(se=st.floats(0.01, 1), sp=st.floats(0, 0.99), a=st.floats(0, 1), b=st.floats(0, 1))
def test_property_monotone_in_prevalence(se, sp, a, b):
    lo, hi = min(a, b), max(a, b)
    assert (pc.prevalence_adjusted_precision(se, sp, lo)
            <= pc.prevalence_adjusted_precision(se, sp, hi) + 1e-12)


def test_edge_cases():
    # docs/methods.md §9: pi = 0 -> 0; pi = 1 -> 1; Sp = 1 and Se > 0 -> 1; Se = 0 and Sp < 1 -> 0
    assert pc.prevalence_adjusted_precision(SE, SP, 0.0) == 0.0
    assert pc.prevalence_adjusted_precision(SE, SP, 1.0) == 1.0
    assert pc.prevalence_adjusted_precision(0.4, 1.0, 0.2) == 1.0
    assert pc.prevalence_adjusted_precision(0.4, 1.0, 0.0) == 0.0
    assert pc.prevalence_adjusted_precision(0.0, 0.7, 0.2) == 0.0
    assert pc.prevalence_adjusted_precision(0.0, 0.7, 1.0) == 1.0
    with pytest.raises(ValueError, match="never predicts the class"):
        pc.prevalence_adjusted_precision(0.0, 1.0, 0.3)
    with pytest.raises(ValueError, match="never predicts the class"):
        pc.prevalence_adjusted_precision([0.5, 0.0], [0.9, 1.0], 0.3)


def test_vectorised_and_types():
    out = pc.prevalence_adjusted_precision([0.75, 0.9], [[0.9], [0.8]], [0.1, 0.2])
    assert out.shape == (2, 2)
    assert out[1, 0] == pytest.approx(pc.prevalence_adjusted_precision(0.75, 0.8, 0.1))
    assert isinstance(pc.prevalence_adjusted_precision(0.75, 0.9, 0.1), float)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((1.2, 0.9, 0.1), r"sensitivity must lie in \[0, 1\]"),
        ((0.5, -0.1, 0.1), r"specificity must lie in \[0, 1\]"),
        ((0.5, 0.9, 1.5), r"prevalence must lie in \[0, 1\]"),
        ((0.5, 0.9, np.nan), "prevalence must not contain NaN"),
        ((0.5, 0.9, "a"), "prevalence must hold numbers"),
        (([0.5, 0.6], [0.9, 0.8, 0.7], 0.1), "must broadcast"),
    ],
)
def test_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        pc.prevalence_adjusted_precision(*args)


# --------------------------------------------------------------------------------------------
# bayes_update_precision
# --------------------------------------------------------------------------------------------


def test_bootstrap_interval_worked_example():
    # docs/methods.md §9 ex. 1: B = 4000, default_rng(12345), rows resampled: 95 % CI at pi = 0.1
    # about (0.410, 0.731), RNG-dependent, tolerance ±0.02
    tab = pc.bayes_update_precision(None, None, confusion=CONFUSION, prevalence=0.1,
                                    n_resamples=4000, random_state=12345)
    row = tab.iloc[0]
    assert row["class"] == 1
    assert row.precision_updated == pytest.approx(0.538462, abs=5e-7)
    assert row.precision == pytest.approx(45 / 55)
    assert row.sample_prevalence == pytest.approx(0.3)
    assert row.ci_low == pytest.approx(0.410, abs=0.02)
    assert row.ci_high == pytest.approx(0.731, abs=0.02)
    assert row.n_resamples == 4000 and row.n_skipped == 0
    assert list(tab.columns) == ["class", "prevalence", "sample_prevalence", "sensitivity",
                                 "specificity", "precision", "precision_updated", "ci_low",
                                 "ci_high", "n_resamples", "n_skipped", "note"]


def test_multinomial_equals_row_resampling_in_distribution():
    # the multinomial draw of the counts against resampling rows (computed here with numpy)
    y, p = _expand(np.array(CONFUSION))
    rng = np.random.default_rng(1)
    reps = []
    for _ in range(4000):
        idx = rng.integers(0, len(y), len(y))
        yy, pp = y[idx], p[idx]
        se = np.mean(pp[yy == 1] == 1)
        sp = np.mean(pp[yy == 0] == 0)
        reps.append(pc.prevalence_adjusted_precision(se, sp, 0.1))
    lo, hi = np.quantile(reps, [0.025, 0.975])
    tab = pc.bayes_update_precision(y, p, prevalence=0.1, n_resamples=4000, random_state=2)
    assert tab.ci_low[0] == pytest.approx(lo, abs=0.015)
    assert tab.ci_high[0] == pytest.approx(hi, abs=0.015)


def test_labels_path_equals_confusion_path():
    y, p = _expand(np.array(CONFUSION))
    a = pc.bayes_update_precision(y, p, prevalence=0.2, n_resamples=300, random_state=9)
    b = pc.bayes_update_precision(None, None, confusion=CONFUSION, prevalence=0.2,
                                  n_resamples=300, random_state=9)
    pd.testing.assert_frame_equal(a, b)


def test_several_classes_and_sum_note():
    y = np.array([0, 0, 1, 1, 2, 2, 2, 0, 1, 2] * 10)
    p = np.array([0, 1, 1, 1, 2, 0, 2, 0, 2, 2] * 10)
    tab = pc.bayes_update_precision(y, p, prevalence={0: 0.5, 1: 0.3, 2: 0.2}, n_resamples=200,
                                    random_state=0)
    assert tab["class"].tolist() == [0, 1, 2] and (tab.note == "").all()
    bad = pc.bayes_update_precision(y, p, prevalence={0: 0.5, 1: 0.3, 2: 0.3}, n_resamples=50,
                                    random_state=0)
    assert "sum to 1.1" in bad.note[0]
    # one-vs-rest Se/Sp of class 2, computed here
    se2 = np.mean(p[y == 2] == 2)
    sp2 = np.mean(p[y != 2] != 2)
    assert tab.sensitivity[2] == pytest.approx(se2) and tab.specificity[2] == pytest.approx(sp2)
    assert tab.precision_updated[2] == pytest.approx(pc.prevalence_adjusted_precision(se2, sp2, 0.2))


def test_skipped_resamples_and_undefined_class():
    # no false positives, so Sp = 1 on every resample, and the updated precision is undefined
    # exactly when the resample has no true positive (Se 0 or undefined): probability (49/50)^50
    tab = pc.bayes_update_precision(None, None, confusion=[[48, 0], [1, 1]], prevalence=0.1,
                                    n_resamples=2000, random_state=0)
    expected = 2000 * (49 / 50) ** 50
    assert abs(tab.n_skipped[0] - expected) < 5 * np.sqrt(expected)
    assert np.isfinite(tab.ci_low[0])
    # a class never predicted has no precision: NaN and a note, not an error (a table)
    never = pc.bayes_update_precision(None, None, confusion=[[40, 0], [10, 0]], prevalence=0.2,
                                      n_resamples=100, random_state=0)
    assert np.isnan(never.precision_updated[0]) and "never predicted" in never.note[0]


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (([0, 1], [0, 1]), {"prevalence": 0.1, "confusion": CONFUSION}, "not both"),
        ((None, None), {"prevalence": 0.1, "confusion": [[1, 2, 3]]}, "K x K"),
        ((None, None), {"prevalence": 0.1, "confusion": [[0, 0], [0, 0]]}, "at least one"),
        ((None, None), {"prevalence": 0.1, "confusion": [[1, -2], [3, 4]]}, "non-negative"),
        ((None, None), {"prevalence": 0.1, "confusion": CONFUSION, "labels": ["a"]},
         "labels must name the 2 classes"),
        ((None, None), {"prevalence": 0.1}, "pass y_true and y_pred"),
        ((None, None), {"prevalence": 1.5, "confusion": CONFUSION}, r"prevalence must lie in \[0, 1\]"),
        ((None, None), {"prevalence": 0.1, "confusion": CONFUSION, "positive": 7},
         "positive=7 is not among the classes"),
        ((None, None), {"prevalence": {3: 0.1}, "confusion": CONFUSION},
         "prevalence class=3 is not among"),
        ((None, None), {"prevalence": {1: 0.1}, "confusion": CONFUSION, "positive": 1},
         "positive is not used"),
        ((None, None), {"prevalence": 0.1, "confusion": np.eye(3) * 5}, "pass positive="),
        ((None, None), {"prevalence": 0.1, "confusion": CONFUSION, "n_resamples": 0},
         "n_resamples must be an integer"),
        ((None, None), {"prevalence": 0.1, "confusion": CONFUSION, "confidence_level": 1.2},
         "confidence_level must lie in"),
        (([0, 1, 1], [0, 1]), {"prevalence": 0.1}, "same length"),
    ],
)
def test_update_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pc.bayes_update_precision(*args, **kwargs)


# --------------------------------------------------------------------------------------------
# compare_updated_precision
# --------------------------------------------------------------------------------------------


def test_compare_gondara_table10():
    y, a, b = _expand(GONDARA)
    tab = pc.compare_updated_precision(y, a, b, prevalence={0: 0.3, 1: 0.7}, n_resamples=1000,
                                       random_state=0)
    # docs/methods.md §9 ex. 2 and §6.6(d): test-set precisions 0.538182 / 0.630058, 0.760563 / 0.676301
    np.testing.assert_allclose(tab.precision_a, [0.538182, 0.760563], atol=5e-7)
    np.testing.assert_allclose(tab.precision_b, [0.630058, 0.676301], atol=5e-7)
    np.testing.assert_allclose(tab.updated_a, [0.3540, 0.8711], atol=5e-5)
    np.testing.assert_allclose(tab.updated_b, [0.4447, 0.8163], atol=5e-5)
    np.testing.assert_allclose(tab.rp, tab.updated_a / tab.updated_b, rtol=1e-12)
    assert (tab.rp_ci_low < tab.rp).all() and (tab.rp < tab.rp_ci_high).all()
    assert (tab.updated_a_ci_low < tab.updated_a).all() and (tab.updated_a < tab.updated_a_ci_high).all()
    # class 0: RF's updated precision is higher and the interval excludes 1
    assert tab.rp_ci_high[0] < 1
    assert list(tab.columns) == [
        "class", "prevalence", "sample_prevalence", "precision_a", "precision_b", "updated_a",
        "updated_a_ci_low", "updated_a_ci_high", "updated_b", "updated_b_ci_low",
        "updated_b_ci_high", "rp", "rp_ci_low", "rp_ci_high", "n_resamples", "n_skipped", "note"]


def test_compare_swapping_classifiers_inverts_ratio():
    y, a, b = _expand(GONDARA)
    ab = pc.compare_updated_precision(y, a, b, prevalence=0.7, n_resamples=3000, random_state=1)
    ba = pc.compare_updated_precision(y, b, a, prevalence=0.7, n_resamples=3000, random_state=2)
    assert ba.rp[0] == pytest.approx(1 / ab.rp[0], rel=1e-12)
    assert ba.rp_ci_low[0] == pytest.approx(1 / ab.rp_ci_high[0], abs=0.02)
    assert ba.rp_ci_high[0] == pytest.approx(1 / ab.rp_ci_low[0], abs=0.02)


def test_paired_resampling_narrower_than_independent():
    # two classifiers that agree on most observations: resampling them independently (computed
    # here with two separate bootstraps) ignores their positive correlation and widens the
    # interval of the ratio
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 1500)
    a = np.where(rng.random(1500) < 0.8, y, 1 - y)
    b = np.where(rng.random(1500) < 0.9, a, 1 - a)
    paired = pc.compare_updated_precision(y, a, b, prevalence=0.2, n_resamples=2000,
                                          random_state=0)
    ba = pc.prevalence_bootstrap(y, a, n_resamples=2000, random_state=1)
    bb = pc.prevalence_bootstrap(y, b, n_resamples=2000, random_state=2)
    ratio = ba.updated(1, 0.2)[1][:, 0] / bb.updated(1, 0.2)[1][:, 0]
    lo, hi = np.quantile(ratio, [0.025, 0.975])
    assert paired.rp_ci_high[0] - paired.rp_ci_low[0] < 0.8 * (hi - lo)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), pi=st.floats(0.01, 0.99))
def test_property_order_follows_likelihood_ratios(seed, pi):
    # docs/methods.md §9 odds form: the updated precisions keep the order of Se/(1 - Sp)
    rng = np.random.default_rng(seed)
    se, sp = rng.uniform(0.1, 1, 2), rng.uniform(0, 0.95, 2)
    pa, pb = (pc.prevalence_adjusted_precision(se[i], sp[i], pi) for i in range(2))
    lr = se / (1 - sp)
    if abs(lr[0] - lr[1]) > 1e-9 * lr.max():
        assert (pa > pb) == (lr[0] > lr[1])


def test_compare_undefined_precision_noted():
    y = np.array([0, 0, 1, 1, 1, 0] * 5)
    a = np.array([0, 0, 1, 1, 0, 1] * 5)
    b = np.zeros_like(a)  # never predicts class 1
    tab = pc.compare_updated_precision(y, a, b, prevalence=0.4, n_resamples=100, random_state=0)
    assert np.isnan(tab.updated_b[0]) and np.isnan(tab.rp[0])
    assert "precision of B undefined" in tab.note[0]


def test_prevalence_bootstrap_object():
    y, a, b = _expand(GONDARA)
    boot = pc.prevalence_bootstrap(y, a, b, names=("NB", "RF"), n_resamples=200, random_state=0)
    assert boot.n == 346 and boot.n_resamples == 200
    assert boot.boot_sensitivity.shape == (200, 2, 2)
    np.testing.assert_allclose(boot.sensitivity[:, 0], [148 / 165, 109 / 165])
    np.testing.assert_allclose(boot.specificity[:, 0], [54 / 181, 117 / 181])
    curve = boot.curve(0, [0.1, 0.3])
    assert list(curve.columns) == ["class", "model", "prevalence", "precision_updated", "ci_low",
                                   "ci_high", "n_skipped"]
    assert curve.model.tolist() == ["NB", "NB", "RF", "RF"]
    point, reps = boot.updated(0, np.array([0.1, 0.3, 0.5]))
    assert point.shape == (2, 3) and reps.shape == (200, 2, 3)
    with pytest.raises(ValueError, match="names must hold two names"):
        pc.prevalence_bootstrap(y, a, b, names=("NB",))
    with pytest.raises(ValueError, match="class=5 is not among"):
        boot.updated(5, 0.3)


# --------------------------------------------------------------------------------------------
# widget state and plot
# --------------------------------------------------------------------------------------------


def test_prevalence_state():
    y, a, b = _expand(GONDARA)
    boot = pc.prevalence_bootstrap(y, a, b, names=("NB", "RF"), n_resamples=500, random_state=0)
    state = prevalence_state(boot, 0.3, cls=0)
    assert state.index.tolist() == ["NB", "RF", "NB / RF"]
    np.testing.assert_allclose(state.updated[:2], [0.3540, 0.4447], atol=5e-5)  # docs/methods.md §9
    assert state.updated.iloc[2] == pytest.approx(state.updated.iloc[0] / state.updated.iloc[1])
    assert state.precision.iloc[2] == pytest.approx(0.538182 / 0.630058, rel=1e-5)
    assert (state.ci_low <= state.updated).all() and (state.updated <= state.ci_high).all()
    # at the test-set prevalence the update is the test-set precision
    at_sample = prevalence_state(boot, float(boot.sample_prevalence[0]), cls=0)
    np.testing.assert_allclose(at_sample.updated[:2], at_sample.precision[:2], rtol=1e-12)
    with pytest.raises(ValueError, match="cls=9 is not among"):
        prevalence_state(boot, 0.3, cls=9)


def test_prevalence_explorer_builds():
    pytest.importorskip("ipywidgets")
    y, a, b = _expand(GONDARA)
    boot = pc.prevalence_bootstrap(y, a, b, n_resamples=50, random_state=0)
    box = pc.course.widgets.prevalence_explorer(boot, cls=0)
    slider, table, image = box.children
    assert slider.value == pytest.approx(round(165 / 346, 2))
    assert "A / B" in table.value and image.value[:4] == b"\x89PNG"
    before = table.value
    slider.value = 0.2  # the table and the curve follow the slider
    expected = prevalence_state(boot, 0.2, cls=0).round(4).to_html()
    assert table.value == expected != before


def test_prevalence_curve_plot():
    y, a, b = _expand(GONDARA)
    boot = pc.prevalence_bootstrap(y, a, b, names=("NB", "RF"), n_resamples=100, random_state=0)
    ax = pc.course.plots.prevalence_curve_plot(boot.curve(0), sample_prevalence=0.477, prevalence=0.3)
    assert isinstance(ax, Axes)
    assert len(ax.lines) == 4  # two curves and two markers
    assert len(ax.collections) == 2  # two bands
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["NB", "RF"]
    with pytest.raises(ValueError, match="ci_low"):
        pc.course.plots.prevalence_curve_plot(boot.curve(0).drop(columns="ci_low"))


def test_ratio_curve_limits_and_order():
    # docs/methods.md §9 odds form: RP(pi) -> LR_a / LR_b as pi -> 0 and -> 1 as pi -> 1, where
    # LR = Se / (1 - Sp) (computed here from the Table 10 sensitivities and specificities)
    y, a, b = _expand(GONDARA)
    boot = pc.prevalence_bootstrap(y, a, b, n_resamples=300, random_state=0)
    curve = boot.ratio_curve(0, [1e-7, 0.3, 0.7, 1 - 1e-9])
    lr_a, lr_b = (148 / 165) / (1 - 54 / 181), (109 / 165) / (1 - 117 / 181)
    assert curve.rp.iloc[0] == pytest.approx(lr_a / lr_b, rel=1e-5)
    assert curve.rp.iloc[-1] == pytest.approx(1.0, abs=1e-6)
    assert curve.rp.iloc[1] == pytest.approx(0.3540 / 0.4447, abs=2e-4)  # docs/methods.md §9 ex. 2
    assert (curve.rp.iloc[:3] < 1).all()  # the order of the two never flips
    assert list(curve.columns) == ["class", "prevalence", "rp", "rp_ci_low", "rp_ci_high",
                                   "n_skipped"]
    single = pc.prevalence_bootstrap(y, a, n_resamples=10, random_state=0)
    with pytest.raises(ValueError, match="needs two classifiers"):
        single.ratio_curve(0)
