"""Contract test of notebooks/05_relative_precision.ipynb and its solutions: each checked on its
one run at its defaults (nbval does not execute them again); the notebook also on string labels.

Provenance: RP = P_A / P_B and its interval (docs/methods.md §6.5); the interval excludes 1 exactly
when the two-sided p-value is below 1 - level (both from z = log RP / SE); the row count of the
cross-dataset forest plot from the dataset registry (pc.list_datasets); the paired interval
narrows with the correlation while the naive one does not (the covariance term of §6.5).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from conftest import needs_mirror, notebook_parameters
from stated import assert_states

import precmp_lib as pc

PARAMS = notebook_parameters("05_relative_precision")
SMALL = {"seed": 2, "n_trees": 20, "datasets": ["iris", "urban_land_cover"], "test_size": 0.5}


def check_rp_is_the_ratio_of_precisions_inside_its_interval(results):
    rp = np.array(results["rp"], dtype=float)
    ratio = np.array(results["precision_a"]) / np.array(results["precision_b"])
    defined = np.isfinite(rp)
    assert defined.sum() >= 8
    np.testing.assert_allclose(rp[defined], ratio[defined], rtol=1e-12)
    low = np.array(results["rp_ci_low"], dtype=float)[defined]
    high = np.array(results["rp_ci_high"], dtype=float)[defined]
    assert np.all(low <= rp[defined]) and np.all(rp[defined] <= high)


def check_interval_and_test_agree(results):
    assert results["interval_test_agreement"] is True
    low = np.array(results["rp_ci_low"], dtype=float)
    high = np.array(results["rp_ci_high"], dtype=float)
    assert results["intervals_excluding_1"] == int(np.sum((low > 1) | (high < 1)))


def check_forest_plot_across_datasets_has_one_row_per_class(results):
    registry = pc.list_datasets().set_index("name")
    assert results["datasets"] == PARAMS["datasets"] == ["digits", "wine", "breast_cancer", "iris"]
    assert results["across_rows"] == int(registry.loc[PARAMS["datasets"], "classes"].sum())


def check_widget_sweep_paired_interval_narrows(results):
    ratio = {float(k): v for k, v in results["naive_over_paired_width"].items()}
    paired = {float(k): v for k, v in results["paired_width"].items()}
    rhos = sorted(ratio)
    assert rhos == [0.0, 0.3, 0.5, 0.7, 0.9]
    assert all(paired[a] > paired[b] for a, b in pairwise(rhos))
    assert all(ratio[a] < ratio[b] for a, b in pairwise(rhos))
    assert ratio[0.9] > 1.5


@pytest.mark.notebook
@pytest.mark.runs_notebook("05_relative_precision")
def test_notebook_contract(notebook_defaults):
    results = notebook_defaults
    check_rp_is_the_ratio_of_precisions_inside_its_interval(results)
    check_interval_and_test_agree(results)
    check_forest_plot_across_datasets_has_one_row_per_class(results)
    check_widget_sweep_paired_interval_narrows(results)
    check_widget_start_is_the_state_function(results)
    check_statements(results)


def check_widget_start_is_the_state_function(results):
    from precmp_lib.course.widgets import rp_correlation_state

    start = rp_correlation_state(0.5, n=1000).reset_index()
    saved = results["widget_start"]
    assert [r["interval"] for r in saved] == start["interval"].tolist()
    for row, (_, ref) in zip(saved, start.iterrows()):
        assert row["ci_low"] == pytest.approx(ref["ci_low"]) and row["ci_high"] == pytest.approx(ref["ci_high"])


@needs_mirror
@pytest.mark.notebook
def test_notebook_runs_on_string_labels(run_notebook):
    results = run_notebook("05_relative_precision", dataset="urban_land_cover", **SMALL)
    assert len(results["classes"]) == 9 and all(isinstance(c, str) for c in results["classes"])
    check_interval_and_test_agree(results)
    check_widget_start_is_the_state_function(results)


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/05_relative_precision")
def test_solutions_05(notebook_defaults):
    """Widths from the widget's state function; at both levels the interval excludes 1 exactly
    when the RP test rejects (the same z, docs/methods.md §6.5); fewer exclusions at 99 %."""
    from precmp_lib.course.widgets import rp_correlation_state

    res = notebook_defaults
    for row in res["ex1"]:
        ref = rp_correlation_state(row["correlation"])["width"]
        assert row["paired"] == pytest.approx(ref["paired"]) and row["naive"] == pytest.approx(ref["naive"])
    ex2 = {r["confidence_level"]: r for r in res["ex2"]}
    assert ex2[0.95]["agree_with_test"] and ex2[0.99]["agree_with_test"]
    assert ex2[0.99]["intervals_excluding_1"] <= ex2[0.95]["intervals_excluding_1"]
    assert res["ex4"]["dataset"] == "wine" and set(res["ex4"]["no_rp"]) <= set(res["ex4"]["classes"])


def check_statements(results):
    """The sentences and the "reading" column state the numbers of results.json: each reading the
    percentages of its interval, in the direction of its ends (both below 1: "lower")."""
    rp = np.array(results["rp"], dtype=float)
    low, high = np.array(results["rp_ci_low"], dtype=float), np.array(results["rp_ci_high"], dtype=float)
    defined = np.isfinite(rp)
    widths = high - low
    k = int(np.nanargmax(np.where(defined, widths, np.nan)))
    w = results["widest"]
    assert w["class"] == str(results["classes"][k])
    level = 1 - 0.95
    n_small = int(np.sum(np.array(results["rp_pvalue"], dtype=float)[defined] < level))
    s = results["statements"]
    assert_states(s["conclusion"], [results["intervals_excluding_1"], 1, int(defined.sum()), n_small, f"{level:.2f}",
                                    f"{low[k]:.2f}", f"{high[k]:.2f}", w["n_pred"]], ignore=[f"class {w['class']} "])
    ratio = results["naive_over_paired_width"]
    assert_states(s["widths"], [0, f"{ratio['0.0']:.2f}", "0.9", f"{ratio['0.9']:.2f}"])
    for k, row in enumerate(results["readings"]):
        lo, hi, text = row["rp_ci_low"], row["rp_ci_high"], row["reading"]
        if lo is None or lo != lo:
            assert text.startswith("no relative precision")
            continue
        if lo == hi:  # an interval of no width: both precisions 0 or 1
            assert text.startswith("no evidence either way") and "equal" in text
            assert_states(text, [f"{results['precision_a'][k]:.2f}", f"{results['precision_b'][k]:.2f}"])
            continue
        if hi < 1:
            assert text.startswith("A less precise") and "lower than B's" in text
            expected = [f"{(1 - lo) * 100:.0f}", f"{(1 - hi) * 100:.0f}"]
        elif lo > 1:
            assert text.startswith("A more precise") and "higher than B's" in text
            expected = [f"{(lo - 1) * 100:.0f}", f"{(hi - 1) * 100:.0f}"]
        else:
            assert text.startswith("no clear difference") and "lower" in text and "higher" in text
            expected = [f"{(1 - lo) * 100:.0f}", f"{(hi - 1) * 100:.0f}"]
        assert_states(text, expected)
        assert "-" not in text and "+" not in text  # "24 % lower", never "-24 %"
