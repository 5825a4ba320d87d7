"""Contract of notebooks/10_replicability.ipynb and its solutions: each checked on its one run at its
defaults (nbval does not execute them again): the paper's data set from the UCI mirror, else the
breast_cancer fallback; the notebook also on string labels, with small parameters.
"""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import DATA_MIRROR, needs_mirror, notebook_parameters
from stated import assert_states

pytestmark = pytest.mark.notebook


@pytest.mark.runs_notebook("10_replicability")
def test_notebook_10_contract(notebook_defaults):
    res = notebook_defaults
    params = notebook_parameters("10_replicability")
    assert params["dataset"] == "diabetic_retinopathy"
    # without the UCI files the notebook falls back to breast_cancer
    if DATA_MIRROR:
        assert res["dataset"] == "diabetic_retinopathy"
    else:  # the UCI files may still be in the user's cache (`make data`)
        assert res["dataset"] in ("diabetic_retinopathy", "breast_cancer")
    # docs/methods.md §10 worked examples
    ex = res["examples"]
    assert ex["7 accept, 3 reject"] == pytest.approx(0.533333, abs=5e-7)
    assert ex["5 accept, 5 reject"] == pytest.approx(0.444444, abs=5e-7)
    assert ex["10 reject"] == ex["10 accept"] == 1.0
    assert ex["(1, 1, 0)"] == pytest.approx(1 / 3)
    grid = res["grid"]
    check_conclusion(res)
    assert (params["n_initial"], params["sample_fractions"], params["test_fractions"]) == (
        600, [1.0, 0.6, 0.2], [0.5, 0.3, 0.1])
    assert [(g["sample_fraction"], g["test_fraction"]) for g in grid] == [
        (1.0, 0.5), (1.0, 0.3), (1.0, 0.1), (0.6, 0.5), (0.6, 0.3), (0.6, 0.1),
        (0.2, 0.5), (0.2, 0.3), (0.2, 0.1)]
    # at most n_initial rows, each share rounded (Python's round); 600 of diabetic_retinopathy's
    # 1151 rows, all of breast_cancer's 569
    n0 = min(params["n_initial"], {"diabetic_retinopathy": 1151, "breast_cancer": 569}[res["dataset"]])
    sizes = [(round(f * n0), round(t * round(f * n0))) for f in params["sample_fractions"]
             for t in params["test_fractions"]]
    assert [(g["n_sample"], g["n_test"]) for g in grid] == sizes
    if res["dataset"] == "diabetic_retinopathy":
        assert [g["n_sample"] for g in grid] == [600] * 3 + [360] * 3 + [120] * 3
        assert [g["n_test"] for g in grid] == [300, 180, 60, 180, 108, 36, 60, 36, 12]
    n = params["n_repeats"]
    for g in grid:
        assert g["n_repeats"] == n == 20 and g["n_valid"] == n
        # R(e) is the closed form of the rejection rate with n = 20 (docs/methods.md §10)
        q = round(g["rejection_rate"] * n)
        assert g["replicability"] == pytest.approx((q * (q - 1) + (n - q) * (n - 1 - q)) / (n * (n - 1)))
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


@pytest.mark.runs_notebook("solutions/10_replicability")
def test_solutions_10(notebook_defaults):
    res = notebook_defaults
    # docs/methods.md §10: 42/90 and 40/90
    assert res["ex1"]["4 of 10 reject"] == pytest.approx(42 / 90)
    assert res["ex1"]["5 of 10 reject"] == pytest.approx(40 / 90)
    assert res["rp_same"] is True
    if DATA_MIRROR:  # else breast_cancer, unless the UCI files are in the user's cache
        assert res["dataset"] == "diabetic_retinopathy"
    else:
        assert res["dataset"] in ("diabetic_retinopathy", "breast_cancer")


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
