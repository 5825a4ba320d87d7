"""Contract of notebooks/08_cross_validation.ipynb and its solutions: each checked on its one run at
its defaults (nbval does not execute them again): the paper's data set from the UCI mirror, else
the breast_cancer fallback; the notebook also on string labels, with small parameters.
"""

from __future__ import annotations

import pytest
from conftest import DATA_MIRROR, needs_mirror, notebook_parameters
from stated import assert_states

pytestmark = pytest.mark.notebook
ROWS = {"diabetic_retinopathy": 1151, "breast_cancer": 569}


def _the_paper_data_set_or_the_fallback(res, dataset):
    assert dataset == "diabetic_retinopathy"
    if DATA_MIRROR:
        assert res["dataset"] == dataset
    else:  # the UCI files may still be in the user's cache (`make data`)
        assert res["dataset"] in ROWS


@pytest.mark.runs_notebook("08_cross_validation")
def test_notebook_08_contract(notebook_defaults):
    res = notebook_defaults
    _the_paper_data_set_or_the_fallback(res, notebook_parameters("08_cross_validation")["dataset"])
    n, r = res["n"], res["n_repeats"]
    assert n == ROWS[res["dataset"]] and r == 10
    check_conclusion(res)
    for key in ("joint_10fold", "joint_repeated", "joint_single_split"):
        rows = res[key]
        assert [r["class"] for r in rows] == [0, 1]
        assert all(r["df"] == 1 and 0 <= r["pvalue"] <= 1 for r in rows)
    clustering = res["clustering"]
    assert [c["cluster"] for c in clustering] == ["id", "id_repeat", "none"] * 2
    # clusters: n observations; n x r (id, repeat) pairs; n x r x 2 single predictions
    assert [c["n_clusters"] for c in clustering] == [n, n * r, n * r * 2] * 2
    repeated = {r["class"]: r["statistic"] for r in res["joint_repeated"]}
    for c in clustering:
        assert c["inflation"] == pytest.approx(c["statistic"] / repeated[c["class"]])
    # docs/methods.md §7: identical repeats leave W unchanged when clustered on id, and multiply it by
    # the number of copies when clustered on (id, repeat)
    for row in res["identical_copies"]:
        values = list(row.values())
        once, same, wrong = values[1], values[2], values[3]
        assert same == pytest.approx(once, rel=1e-9)
        assert wrong == pytest.approx(r * once, rel=1e-9)
    tenfold = {r["class"]: r["statistic"] for r in res["joint_10fold"]}
    assert [tenfold[r["class"]] for r in res["identical_copies"]] == [
        list(r.values())[1] for r in res["identical_copies"]]
    assert {p["model"] for p in res["precision_10fold"]} == {"naive_bayes", "random_forest"}
    # the widget starts at all repetitions clustered on (id, repeat): the clustering table's row
    wrong = {c["class"]: c["inflation"] for c in clustering if c["cluster"] == "id_repeat"}
    for row in res["widget_start"]:
        assert row["inflation"] == pytest.approx(wrong[row["class"]], rel=1e-9)


@needs_mirror
def test_notebook_08_string_labels(run_notebook):
    res = run_notebook("08_cross_validation", dataset="wilt", n_splits=3, n_repeats=2, n_trees=5,
                       seed=1)
    assert res["dataset"] == "wilt" and res["n"] == 4839
    assert [r["class"] for r in res["joint_10fold"]] == ["n", "w"]
    assert [c["n_clusters"] for c in res["clustering"]] == [4839, 2 * 4839, 4 * 4839] * 2
    for row in res["identical_copies"]:
        values = list(row.values())
        assert values[2] == pytest.approx(values[1], rel=1e-9)


@pytest.mark.runs_notebook("solutions/08_cross_validation")
def test_solutions_08(notebook_defaults):
    res = notebook_defaults
    params = notebook_parameters("solutions/08_cross_validation")
    _the_paper_data_set_or_the_fallback(res, params["dataset"])
    repeats = res["exercise_repeats"]
    assert repeats == params["exercise_repeats"] == 5
    for row in res["ex1"]:
        assert 1 < row["inflation"] <= repeats * 1.05  # more, by up to the number of repetitions
    for row in res["ex3"]:
        # three unpaired copies: three times the unpaired statistic (docs/methods.md §7)
        assert row["no cluster, 3 copies"] == pytest.approx(3 * row["no cluster, once"], rel=1e-9)


def check_conclusion(res):
    """Every number of the conclusion, formatted again from the joint tests and the clustering
    table of results.json; the "exactly the same" claim follows the identical-copies table."""
    j10 = {r["class"]: r for r in res["joint_10fold"]}
    j100 = {r["class"]: r for r in res["joint_repeated"]}
    j1 = {r["class"]: r for r in res["joint_single_split"]}
    infl = {(c["class"], c["cluster"]): c["inflation"] for c in res["clustering"]}
    k, r = res["n_splits"], res["n_repeats"]
    expected = [res["n"]]
    for cls in j10:
        expected += [cls, f"{j10[cls]['statistic']:.2f}", k, f"{j10[cls]['pvalue']:.2g}",
                     f"{j100[cls]['statistic']:.2f}", r, k, f"{j100[cls]['pvalue']:.2g}",
                     f"{j1[cls]['statistic']:.2f}", f"{res['test_size']:.0%}",
                     f"{infl[(cls, 'id_repeat')]:.1f}", f"{infl[(cls, 'none')]:.1f}"]
    expected += [r, k, 11]  # "... the pattern of the paper's Table 11"
    text = res["statements"]["conclusion"]
    assert_states(text, expected, ignore=[res["dataset"], "-fold"])
    same = all(abs(list(row.values())[2] - list(row.values())[1]) <= 1e-9 * abs(list(row.values())[1])
               for row in res["identical_copies"])
    assert ("exactly the same" in text) == same
