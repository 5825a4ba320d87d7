"""Contract of notebooks/10_replicability.ipynb: run with small parameters, check results.json."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import DATA_MIRROR, needs_mirror
from stated import assert_states

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
    check_conclusion(res)
    assert [(g["sample_fraction"], g["test_fraction"]) for g in grid] == [
        (1.0, 0.5), (1.0, 0.2), (0.5, 0.5), (0.5, 0.2)]
    assert [g["n_sample"] for g in grid] == [300, 300, 150, 150]
    assert [g["n_test"] for g in grid] == [150, 60, 75, 30]
    for g in grid:
        assert g["n_repeats"] == 4 and g["n_valid"] == 4
        # R(e) is the closed form of the rejection rate with n = 4 (docs/methods.md §10)
        q = round(g["rejection_rate"] * 4)
        assert g["replicability"] == pytest.approx((q * (q - 1) + (4 - q) * (3 - q)) / 12)
    _check_widget(res)


def _check_widget(res):
    # the fixed pair of classifiers: its table counts the held-out half; R(e) of each test size
    # is the closed form of its rejection rate over 400 drawn test sets (docs/methods.md §10)
    assert sum(sum(sum(r) for r in m) for m in res["cells"]) > 0
    for row in res["test_size_curve"]:
        n = row["n_valid"]  # drawn test sets on which the class is predicted by both
        assert 2 <= n <= 400
        q = round(row["rejection_rate"] * n)
        assert row["replicability"] == pytest.approx((q * (q - 1) + (n - q) * (n - 1 - q)) / (n * (n - 1)))
    rates = [row["rejection_rate"] for row in res["test_size_curve"]]
    assert rates[-1] >= rates[0]


@needs_mirror
def test_notebook_10_string_labels(run_notebook):
    res = run_notebook(
        "10_replicability", dataset="urban_land_cover", positive="building", n_initial=300,
        sample_fractions=[1.0], test_fractions=[0.5, 0.2], n_repeats=4, n_trees=5, seed=2,
    )
    assert res["dataset"] == "urban_land_cover" and res["positive"] == "building"
    assert [g["n_test"] for g in res["grid"]] == [150, 60]
    # the held-out half of the 675 rows
    assert sum(sum(sum(r) for r in m) for m in res["cells"]) == 675 - 337
    _check_widget(res)


def test_solutions_10(run_notebook, tmp_path):
    (tmp_path / "solutions").mkdir()
    res = run_notebook("solutions/10_replicability", dataset="breast_cancer", grid_repeats=4, n_trees=5)
    # docs/methods.md §10: 42/90 and 40/90
    assert res["ex1"]["4 of 10 reject"] == pytest.approx(42 / 90)
    assert res["ex1"]["5 of 10 reject"] == pytest.approx(40 / 90)
    assert res["rp_same"] is True
    assert res["dataset"] == "breast_cancer"


def check_conclusion(res):
    """The conclusion states the ranges, the least and the most replicable cells of the grid in
    results.json, and no other number."""
    g = pd.DataFrame(res["grid"])
    full, small = g[g["sample_fraction"] == g["sample_fraction"].max()], g[g["sample_fraction"] == g["sample_fraction"].min()]
    worst, best = g.loc[g["replicability"].idxmin()], g.loc[g["replicability"].idxmax()]
    expected = [res["positive"], res["n_repeats"], res["alpha"]]
    for part in (full, small):
        expected += [int(part["n_sample"].iloc[0]), f"{part['replicability'].min():.2f}", f"{part['replicability'].max():.2f}",
                     f"{part['rejection_rate'].min():.0%}", f"{part['rejection_rate'].max():.0%}"]
    for row in (worst, best):
        expected += [f"{row.sample_fraction:.0%}", f"{row.test_fraction:.0%}", int(row.n_test), f"{row.replicability:.2f}"]
    expected += [f"{worst.rejection_rate:.0%}"]
    text = res["statements"]["conclusion"]
    assert_states(text, expected, ignore=[res["dataset"], *res["models"]])
    assert ("almost always rejects" in text) == (best.rejection_rate >= 0.5)
