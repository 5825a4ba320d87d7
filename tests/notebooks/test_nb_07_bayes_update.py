"""Contract of notebooks/07_bayes_update.ipynb and its solutions: each checked on its one run at its
defaults (nbval does not execute them again): the paper's data set from the UCI mirror, else the
breast_cancer fallback; the notebook also on string labels.
"""

from __future__ import annotations

import pytest
from conftest import DATA_MIRROR, needs_mirror, notebook_parameters
from stated import assert_states

pytestmark = pytest.mark.notebook
PARAMS = notebook_parameters("07_bayes_update")


@pytest.mark.runs_notebook("07_bayes_update")
def test_notebook_07_contract(notebook_defaults):
    res = notebook_defaults
    prevalence = PARAMS["prevalence"]
    assert (PARAMS["dataset"], PARAMS["fallback_dataset"]) == ("diabetic_retinopathy", "breast_cancer")
    if DATA_MIRROR:  # the paper's data set
        assert res["dataset"] == "diabetic_retinopathy"
    else:  # the UCI files may still be in the user's cache (`make data`)
        assert res["dataset"] in ("diabetic_retinopathy", "breast_cancer")
    if res["dataset"] == "diabetic_retinopathy":
        assert res["sample_prevalence"] == pytest.approx(0.47, abs=0.01)  # 540 of 1151 rows
    # docs/methods.md §9 ex. 1: 0.538462 at pi = 0.1, bootstrap CI about (0.410, 0.731) ± 0.02
    ex = res["example"]
    assert ex["precision_updated"] == pytest.approx(0.538462, abs=5e-7)
    assert ex["ci_low"] == pytest.approx(0.410, abs=0.02)
    assert ex["ci_high"] == pytest.approx(0.731, abs=0.02)
    # docs/methods.md §9 ex. 2 (Gondara Table 10): NB 0.3540 / 0.8711, RF 0.4447 / 0.8163
    t10 = res["table10"]
    assert [r["updated_a"] for r in t10] == pytest.approx([0.3540, 0.8711], abs=5e-5)
    assert [r["updated_b"] for r in t10] == pytest.approx([0.4447, 0.8163], abs=5e-5)
    c = res["compared"]
    assert c["prevalence"] == prevalence
    assert c["rp"] == pytest.approx(c["updated_a"] / c["updated_b"], rel=1e-9)
    assert c["rp_ci_low"] <= c["rp"] <= c["rp_ci_high"]
    # at a prevalence below the test set's, the update lowers precision (unless it is 1: no
    # false positives, Sp = 1, stays 1 at every prevalence; docs/methods.md §9 edge cases)
    assert res["sample_prevalence"] > prevalence
    for m in ("a", "b"):
        before, after = c[f"precision_{m}"], c[f"updated_{m}"]
        assert after < before or before == after == 1.0
    assert res["order_flips"] is False
    assert len(res["ratios"]) == 8
    check_conclusion(res)
    # the widget's starting state is the same update at the same prevalence
    start = {r["model"]: r for r in res["widget_start"]}
    assert start["naive Bayes"]["updated"] == pytest.approx(c["updated_a"], rel=1e-9)
    assert start["random forest"]["updated"] == pytest.approx(c["updated_b"], rel=1e-9)


@needs_mirror
def test_notebook_07_string_labels(run_notebook):
    res = run_notebook("07_bayes_update", dataset="urban_land_cover", positive="building",
                       prevalence=0.05, n_trees=20, n_resamples=200)
    assert res["dataset"] == "urban_land_cover" and res["positive"] == "building"
    c = res["compared"]
    # Bayes' rule at a prevalence below the test set's lowers precision (docs/methods.md §9)
    assert res["sample_prevalence"] > 0.05
    for m in ("a", "b"):
        assert c[f"updated_{m}"] < c[f"precision_{m}"] or c[f"precision_{m}"] == 1.0
    assert c["rp"] == pytest.approx(c["updated_a"] / c["updated_b"], rel=1e-9)


@pytest.mark.runs_notebook("solutions/07_bayes_update")
def test_solutions_07(notebook_defaults):
    res = notebook_defaults
    # docs/methods.md §9 worked example 1: Se = 0.75, Sp = 130/140; by hand 0.75 / (0.75 + 1/14)
    assert res["ex1"]["P(0.5)"] == pytest.approx(0.75 / (0.75 + 1 / 14), rel=1e-12)
    assert res["ex1"]["P at that prevalence"] == pytest.approx(0.5, rel=1e-12)
    assert all(v == 1.0 for v in res["ex3"].values())  # Sp = 1: precision 1 at every prevalence
    low, high = res["ex2"]
    assert low["prevalence"] == 0.05 and high["prevalence"] == 0.9
    assert res["order_flips"] is False


def check_conclusion(res):
    """Every number of the conclusion, formatted again from results.json (Table 10, the compared
    row, the likelihood ratios), plus the paper's printed Table 10 values it quotes."""
    t10, c = res["table10"], res["compared"]
    expected = [*(round(r["updated_a"], 3) for r in t10), *(round(r["updated_b"], 3) for r in t10),
                "0.35", "0.87", "0.45", "0.81", 10,  # Gondara's printed Table 10 (docs/methods.md §9)
                res["positive"], f"{res['sample_prevalence']:.3f}", res["prevalence"]]
    for m in ("a", "b"):
        expected += [f"{c[f'updated_{m}']:.3f}", f"{c[f'updated_{m}_ci_low']:.3f}", f"{c[f'updated_{m}_ci_high']:.3f}"]
    expected += [f"{c['rp']:.3f}", f"{c['rp_ci_low']:.3f}", f"{c['rp_ci_high']:.3f}", 95]
    # an infinite ratio (specificity 1) is saved as "inf" and printed as inf: not a number token
    expected += [round(v, 2) for v in res["likelihood_ratios"] if not isinstance(v, str)]
    text = res["statements"]["conclusion"]
    assert all("inf" in text for v in res["likelihood_ratios"] if isinstance(v, str))
    assert_states(text.replace("-", " "), expected, ignore=[res["dataset"]])  # "0.41-0.73" ranges
    differ = c["rp_ci_high"] < 1 or c["rp_ci_low"] > 1
    assert ("updated precisions differ" in text) == differ
    assert ("never changes" in text) == (not res["order_flips"])
