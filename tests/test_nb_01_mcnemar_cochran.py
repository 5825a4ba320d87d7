"""Contract of notebooks/01_mcnemar_cochran.ipynb: run with small parameters, check results.json."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.notebook


def test_notebook_01_contract(run_notebook):
    res = run_notebook("01_mcnemar_cochran", dataset="wine", n_trees=20, grid_max=12, seed=1)
    assert res["dataset"] == "wine"
    table = res["mcnemar_table"]
    assert sum(map(sum, table)) == res["n_test"] == 89  # wine has 178 rows, half held out
    # Raschka's examples (docs/methods.md §2 worked table)
    a = res["raschka_pvalues"]["A: b=11, c=1"]
    b = res["raschka_pvalues"]["B: b=25, c=15"]
    assert a["chi2"] == pytest.approx(0.0038924, rel=1e-4) and a["exact"] == pytest.approx(0.0063477, rel=1e-4)
    assert b["chi2_corrected"] == pytest.approx(0.15473, rel=1e-4) and b["midp"] == pytest.approx(0.11728, rel=1e-4)
    # the mlxtend user-guide example (docs/methods.md §3): Q 7.529, p 0.023; Holm-adjusted pairs all > 0.05
    assert res["example_q"]["statistic"] == pytest.approx(7.529412, rel=1e-6)
    assert res["example_q"]["pvalue"] == pytest.approx(0.023174, rel=1e-4)
    assert min(res["example_pairwise_holm"]) > 0.05
    assert res["cochrans_q"]["df"] == 2 and 0 <= res["cochrans_q"]["pvalue"] <= 1
    assert len(res["pairwise"]) == 3
    # the corrected chi-square disagrees with the exact test less often than the uncorrected one
    d = res["disagreement_small_n"]
    assert d["chi2_corrected"] < d["chi2"]
