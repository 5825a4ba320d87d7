"""The explorers of notebooks 02, 03 and 04: their state functions and their widgets.

Reference values: the corrected t of docs/methods.md §4 through ``corrected_resampled_ttest`` on
scores built to have the stated mean and standard deviation; the Nemenyi critical difference from
scipy's studentized range (docs/methods.md §5.3) and Demšar's (2006) worked example (k = 4,
N = 14: CD 1.254 Nemenyi, 1.168 Bonferroni–Dunn); the power table from ``power_curve`` itself.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import precmp_lib as pc
from precmp_lib.course import widgets
from precmp_lib.course.simulate import power_curve


def _scores_with(mean: float, sd: float, j: int) -> tuple[np.ndarray, np.ndarray]:
    z = np.linspace(-1, 1, j)
    d = mean + sd * (z - z.mean()) / z.std(ddof=1)
    b = np.full(j, 0.8)
    return b + d, b


@pytest.mark.parametrize("ratio", [1 / 9, 3 / 7, 1.0])
def test_cv_correction_state_equals_the_library_tests(ratio):
    state = widgets.cv_correction_state(ratio, mean_difference=0.01, sd_difference=0.03)
    for j, row in state.iterrows():
        a, b = _scores_with(0.01, 0.03, j)
        corrected = pc.corrected_resampled_ttest(a, b, test_train_ratio=ratio)
        plain = stats.ttest_rel(a, b)
        assert row["corrected_pvalue"] == pytest.approx(corrected.pvalue, rel=1e-9)
        assert row["corrected_statistic"] == pytest.approx(corrected.statistic, rel=1e-9)
        assert row["uncorrected_pvalue"] == pytest.approx(plain.pvalue, rel=1e-9)
        assert row["corrected_factor"] == pytest.approx(1 / j + ratio)


def test_cv_correction_at_ratio_zero_is_the_plain_t():
    state = widgets.cv_correction_state(0.0, mean_difference=0.01, sd_difference=0.03)
    np.testing.assert_allclose(state["corrected_pvalue"], state["uncorrected_pvalue"], rtol=1e-12)


def test_cv_correction_the_corrected_pvalue_levels_off():
    state = widgets.cv_correction_state(1 / 9, mean_difference=0.01, sd_difference=0.03,
                                        n_resamples=[10, 100, 1000, 10000])
    assert state["uncorrected_pvalue"].is_monotonic_decreasing
    assert state["uncorrected_pvalue"].iloc[-1] < 1e-12
    # the corrected t tends to mean / (sd * sqrt(ratio)) = 1.0, p about 0.32
    assert state["corrected_statistic"].iloc[-1] == pytest.approx(1.0, rel=1e-3)
    assert state["corrected_pvalue"].iloc[-1] > 0.3


def test_cv_correction_rejects_bad_input():
    with pytest.raises(ValueError, match="test_train_ratio"):
        widgets.cv_correction_state(-0.1, mean_difference=0.01, sd_difference=0.03)
    with pytest.raises(ValueError, match="sd_difference"):
        widgets.cv_correction_state(0.1, mean_difference=0.01, sd_difference=0)
    with pytest.raises(ValueError, match="n_resamples"):
        widgets.cv_correction_state(0.1, mean_difference=0.01, sd_difference=0.03, n_resamples=[1])


def test_critical_difference_state_equals_the_formula_and_demsar():
    state = widgets.critical_difference_state(4, 14)
    assert state.loc[14, "cd_nemenyi"] == pytest.approx(1.253559, abs=5e-7)  # Demšar §3.2.2
    assert state.loc[14, "cd_bonferroni_dunn"] == pytest.approx(1.168143, abs=5e-7)
    assert state["current"].sum() == 1 and state.loc[14, "current"]
    for n in (2, 10, 60):
        q = stats.studentized_range.ppf(0.95, 4, np.inf) / math.sqrt(2)
        assert state.loc[n, "cd_nemenyi"] == pytest.approx(q * math.sqrt(4 * 5 / (6 * n)), rel=1e-9)
    assert state["cd_nemenyi"].is_monotonic_decreasing


def test_critical_difference_few_data_sets_cannot_separate_any_pair():
    # k = 6 at alpha 0.05: the largest possible gap is 5; CD exceeds it below N = 3
    state = widgets.critical_difference_state(6, 2)
    assert not state.loc[2, "nemenyi_can_reject"]
    assert state.loc[10, "nemenyi_can_reject"]
    with pytest.raises(ValueError, match="k must"):
        widgets.critical_difference_state(1, 10)
    with pytest.raises(ValueError, match="n_datasets"):
        widgets.critical_difference_state(4, 1)


def test_gs_power_state_is_the_power_curve():
    state = widgets.gs_power_state(0.8, 1000, n_sim=300, random_state=5)
    curve = power_curve(list(state.index), n=1000, correlation=[0.8], n_sim=300, random_state=5)
    expected = curve.pivot_table(index="difference", columns="method", values="power")
    pd.testing.assert_frame_equal(state, expected[["gs", "wgs", "naive_z"]].rename_axis(columns=None))
    assert state.loc[0.1, "gs"] > state.loc[0.1, "naive_z"]
    assert state.loc[0.0, "gs"] < 0.1


def _first(box, kind):

    stack = [box]
    while stack:
        item = stack.pop(0)
        if isinstance(item, kind):
            return item
        stack.extend(getattr(item, "children", ()))
    raise AssertionError(f"no {kind.__name__} in the explorer")


def test_explorers_redraw_when_a_control_moves():
    import ipywidgets as w

    cases = [
        (widgets.cv_correction_explorer(1 / 9, mean_difference=0.01, sd_difference=0.03,
                                        n_resamples=10), w.FloatSlider, 0.5),
        (widgets.critical_difference_explorer(6, 10), w.IntSlider, 4),
        (widgets.gs_power_explorer(0.5, 1000, n_sim=200), w.FloatSlider, 0.9),
    ]
    for box, kind, value in cases:
        image = _first(box, w.Image)
        before = bytes(image.value)
        assert before.startswith(b"\x89PNG")
        _first(box, kind).value = value
        assert bytes(image.value) != before


def test_gs_power_explorer_reaches_the_sizes_of_notebook_04_exercise_2():
    """Exercise 2 of notebook 04 asks for 80 % power at a difference of 0.025, which the solution
    finds at 8 000 to 12 000 test items: the n slider must reach them."""
    import ipywidgets as w

    slider = _first(widgets.gs_power_explorer(0.5, 1000, n_sim=50), w.IntSlider)
    assert slider.min <= 1000 and slider.max >= 12_000 and slider.value == 1000
