"""Contract of notebooks/06_combining_pvalues.ipynb: run with small parameters, check results.json."""

from __future__ import annotations

import pytest
from conftest import needs_mirror

pytestmark = pytest.mark.notebook

SMALL = {"n_trees": 20, "n_resamples": 200, "sim_correlations": [0.0, 0.9], "n_sim": 3000,
         "n_sim_swap": 40, "seed": 1}


def test_notebook_06_contract(run_notebook):
    res = run_notebook("06_combining_pvalues", datasets=["breast_cancer", "wine"], **SMALL)
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
    # Table 7 on the data sets passed: one row per class, valid p-values
    assert res["datasets"] == ["breast_cancer", "wine"]
    rows = res["table7"]
    assert [r["dataset"] for r in rows] == ["breast_cancer"] * 2 + ["wine"] * 3
    for r in rows:
        assert 0 <= r["dai_cui_pvalue"] <= 1 and 0 <= r["simes_pvalue"] <= 1
    # type-I error: Fisher is anti-conservative for correlated tests, Dai–Cui is not
    g = {(r["correlation"], r["method"]): r["rejection_rate"] for r in res["type1_gaussian"]}
    assert g[(0.9, "fisher")] > g[(0.9, "dai_cui")] + 0.015
    assert abs(g[(0.9, "dai_cui")] - 0.05) < 0.015
    assert [r["method"] for r in res["type1_swap"]] == ["fisher", "dai_cui", "simes"]


@needs_mirror
def test_notebook_06_paper_dataset(run_notebook):
    res = run_notebook("06_combining_pvalues", datasets=["diabetic_retinopathy"], **SMALL)
    assert res["datasets"] == ["diabetic_retinopathy"]
    assert [r["class"] for r in res["table7"]] == [0, 1]
