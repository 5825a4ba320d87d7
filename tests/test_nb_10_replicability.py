"""Contract of notebooks/10_replicability.ipynb: run with small parameters, check results.json."""

from __future__ import annotations

import pytest
from conftest import DATA_MIRROR

pytestmark = pytest.mark.notebook


def test_notebook_10_contract(run_notebook):
    res = run_notebook(
        "10_replicability", n_initial=300, sample_fractions=[1.0, 0.5], test_fractions=[0.5, 0.2],
        n_repeats=4, n_trees=5, seed=2,
    )
    # without the UCI files the notebook falls back to breast_cancer
    assert res["dataset"] == ("diabetic_retinopathy" if DATA_MIRROR else "breast_cancer")
    # docs/methods.md §10 worked examples
    ex = res["examples"]
    assert ex["7 accept, 3 reject"] == pytest.approx(0.533333, abs=5e-7)
    assert ex["5 accept, 5 reject"] == pytest.approx(0.444444, abs=5e-7)
    assert ex["10 reject"] == ex["10 accept"] == 1.0
    assert ex["(1, 1, 0)"] == pytest.approx(1 / 3)
    grid = res["grid"]
    assert [(g["sample_fraction"], g["test_fraction"]) for g in grid] == [
        (1.0, 0.5), (1.0, 0.2), (0.5, 0.5), (0.5, 0.2)]
    assert [g["n_sample"] for g in grid] == [300, 300, 150, 150]
    assert [g["n_test"] for g in grid] == [150, 60, 75, 30]
    for g in grid:
        assert g["n_repeats"] == 4 and g["n_valid"] == 4
        # R(e) is the closed form of the rejection rate with n = 4 (docs/methods.md §10)
        q = round(g["rejection_rate"] * 4)
        assert g["replicability"] == pytest.approx((q * (q - 1) + (4 - q) * (3 - q)) / 12)
