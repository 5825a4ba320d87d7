"""Contract of notebooks/06_combining_pvalues.ipynb and its solutions: each checked on its one run at
its defaults (nbval does not execute them again): the paper's Table 7 data sets from the UCI
mirror, else the scikit-learn fallback; the notebook also on string labels.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA_MIRROR, needs_mirror, notebook_parameters
from scipy import stats
from stated import assert_states

pytestmark = pytest.mark.notebook

PARAMS = notebook_parameters("06_combining_pvalues")
SMALL = {"n_trees": 20, "n_resamples": 200, "sim_correlations": [0.0, 0.9], "n_sim": 3000,
         "n_sim_swap": 40, "seed": 1}


@pytest.mark.runs_notebook("06_combining_pvalues")
def test_notebook_06_contract(notebook_defaults):
    import precmp_lib as pc

    res = notebook_defaults
    check_conclusion(res)
    # the paper's diabetic retinopathy example (docs/methods.md §8, worked example 2)
    assert res["paper_class_pvalues"] == pytest.approx([2.1269e-04, 0.074489], rel=5e-5)
    assert res["paper"]["fisher"]["pvalue"] == pytest.approx(1.9096e-04, rel=1e-4)
    assert res["paper"]["simes"]["pvalue"] == pytest.approx(4.2539e-04, rel=1e-4)
    # Dai–Cui printed 0.00227 / 0.00218 (B = 2000, RNG-dependent; see test_combine.py)
    assert res["paper"]["dai_cui"]["pvalue"] == pytest.approx(0.00227, abs=0.0008)
    assert res["paper"]["dai_cui (empirical diagonal)"]["pvalue"] == pytest.approx(0.00218, abs=0.0016)
    assert res["paper_term_correlation"] == pytest.approx(0.705, abs=0.06)
    # Brown with exact two-sided covariances vs the one-sided polynomial (docs/methods.md §8 ex. 2)
    brown = res["brown_printed"]
    assert brown["0.5"]["two-sided (exact)"] == pytest.approx(5.692e-04, rel=1e-3)
    assert brown["0.8"]["one-sided polynomial (wrong here)"] == pytest.approx(2.490e-03, rel=1e-3)
    # Table 7 on the paper's data sets (all of them from the mirror, else the fallback): one row
    # per class, valid p-values
    assert PARAMS["datasets"] == ["wilt", "diabetic_retinopathy", "phishing", "banknote", "magic"]
    assert PARAMS["fallback_datasets"] == ["breast_cancer", "wine", "digits"]
    if DATA_MIRROR:
        assert res["datasets"] == PARAMS["datasets"]
    else:  # the UCI files may still be in the user's cache (`make data`)
        assert res["datasets"] in (PARAMS["datasets"], PARAMS["fallback_datasets"])
    classes = pc.list_datasets().set_index("name")["classes"]
    rows = res["table7"]
    assert [r["dataset"] for r in rows] == [d for d in res["datasets"] for _ in range(classes[d])]
    if "diabetic_retinopathy" in res["datasets"]:  # the paper's data set, as labelled in the data
        assert [r["class"] for r in rows if r["dataset"] == "diabetic_retinopathy"] == [0, 1]
    for r in rows:
        assert 0 <= r["dai_cui_pvalue"] <= 1 and 0 <= r["simes_pvalue"] <= 1
    # type-I error: Fisher is anti-conservative for correlated tests, Dai–Cui is not
    g = {(r["correlation"], r["method"]): r["rejection_rate"] for r in res["type1_gaussian"]}
    assert g[(0.9, "fisher")] > g[(0.9, "dai_cui")] + 0.015
    assert abs(g[(0.9, "dai_cui")] - 0.05) < 0.015
    assert [r["method"] for r in res["type1_swap"]] == ["fisher", "dai_cui", "simes"]
    # the widget's starting state (correlation 0.5): Fisher of the printed 0.0002 and 0.07 by hand
    start = {r["method"]: r for r in res["widget_start"]}
    t = -2 * np.log(0.0002) - 2 * np.log(0.07)
    assert start["fisher"]["combined_pvalue"] == pytest.approx(stats.chi2.sf(t, 4), rel=1e-9)
    assert start["brown / dai_cui"]["combined_pvalue"] > start["fisher"]["combined_pvalue"]


@needs_mirror
def test_notebook_06_string_labels(run_notebook):
    # Urban land cover: nine classes labelled by name, its own train/test split
    res = run_notebook("06_combining_pvalues", datasets=["urban_land_cover"], **SMALL)
    assert res["datasets"] == ["urban_land_cover"]
    assert [r["class"] for r in res["table7"]] == [
        "asphalt", "building", "car", "concrete", "grass", "pool", "shadow", "soil", "tree"]
    assert len({r["dai_cui_pvalue"] for r in res["table7"]}) == 1  # one global p-value
    # Fisher and Simes recomputed here from the nine per-class GS p-values (docs/methods.md §8.1, §8.7)
    p = np.sort([r["gs_pvalue"] for r in res["table7"]])
    fisher = stats.chi2.sf(-2 * np.log(p).sum(), 2 * len(p))
    simes = min(1.0, float(np.min(len(p) * p / np.arange(1, len(p) + 1))))
    for r in res["table7"]:
        assert r["fisher_pvalue"] == pytest.approx(fisher, rel=1e-6)
        assert r["simes_pvalue"] == pytest.approx(simes, rel=1e-6)


@pytest.mark.runs_notebook("solutions/06_combining_pvalues")
def test_solutions_06(notebook_defaults):
    res = notebook_defaults
    # Fisher of the paper's per-class p-values (docs/methods.md §8, worked example 2) never moves
    assert res["ex2"]["fisher"] == pytest.approx(1.9096e-04, rel=1e-4)
    assert len(set(res["ex2"]["small"])) > 1  # Dai–Cui does, from seed to seed
    ex1 = {(r["correlation"], r["method"]): r["type1_error"] for r in res["ex1"]}
    assert ex1[(0.95, "fisher")] >= ex1[(0.9, "fisher")] > 0.07
    assert abs(ex1[(0.95, "brown / dai_cui")] - 0.05) < 0.02
    assert [r["dataset"] for r in res["ex4"]] == ["wine"] * 3


def check_conclusion(res):
    """Every number of the conclusion, formatted again from results.json (the paper example, the
    Table 7 rows, the two simulations), plus the Dai-Cui p-value the paper prints (0.002)."""
    paper = res["paper"]
    t7 = res["table7"]
    first = {}
    for row in t7:
        first.setdefault(row["dataset"], row["dai_cui_pvalue"])
    top = max(r["correlation"] for r in res["type1_gaussian"])
    g = {(r["correlation"], r["method"]): r["rejection_rate"] for r in res["type1_gaussian"]}
    expected = [*(f"{p:.2g}" for p in res["paper_class_pvalues"]), f"{paper['fisher']['pvalue']:.2g}",
                f"{paper['dai_cui']['pvalue']:.2g}", "0.002", f"{paper['simes']['pvalue']:.2g}",
                f"{res['paper_term_correlation']:.2f}", f"{res['paper_variance']:.1f}",
                f"{2 * res['paper_expectation']:.0f}",
                sum(p <= 0.05 for p in first.values()), len(res["datasets"]),
                "0.05", top, f"{g[(top, 'fisher')]:.3f}", f"{g[(top, 'dai_cui')]:.3f}", f"{g[(top, 'simes')]:.3f}",
                *(f"{r['rejection_rate']:.3f}" for r in res["type1_swap"])]
    text = res["statements"]["conclusion"]
    assert_states(text, expected)
    never_larger = all(r["fisher_pvalue"] <= r["dai_cui_pvalue"] + 1e-15 for r in t7)
    assert f"never larger than Dai–Cui's: {never_larger}" in text
