"""Contract of notebooks/08_cross_validation.ipynb: run with small parameters, check results.json."""

from __future__ import annotations

import pytest
from conftest import needs_mirror
from stated import assert_states

pytestmark = pytest.mark.notebook


def test_notebook_08_contract(run_notebook):
    res = run_notebook("08_cross_validation", dataset="breast_cancer", n_splits=3, n_repeats=2,
                       n_trees=5, seed=1)
    assert res["dataset"] == "breast_cancer" and res["n"] == 569
    check_conclusion(res)
    for key in ("joint_10fold", "joint_repeated", "joint_single_split"):
        rows = res[key]
        assert [r["class"] for r in rows] == [0, 1]
        assert all(r["df"] == 1 and 0 <= r["pvalue"] <= 1 for r in rows)
    clustering = res["clustering"]
    assert [c["cluster"] for c in clustering] == ["id", "id_repeat", "none"] * 2
    # clusters: 569 observations; 569 x 2 (id, repeat) pairs; 569 x 2 x 2 single predictions
    assert [c["n_clusters"] for c in clustering] == [569, 1138, 2276] * 2
    repeated = {r["class"]: r["statistic"] for r in res["joint_repeated"]}
    for c in clustering:
        assert c["inflation"] == pytest.approx(c["statistic"] / repeated[c["class"]])
    # docs/methods.md §7: identical repeats leave W unchanged when clustered on id, and multiply it by
    # the number of copies when clustered on (id, repeat)
    for row in res["identical_copies"]:
        values = list(row.values())
        once, same, wrong = values[1], values[2], values[3]
        assert same == pytest.approx(once, rel=1e-9)
        assert wrong == pytest.approx(2 * once, rel=1e-9)
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


def test_solutions_08(run_notebook, tmp_path):
    (tmp_path / "solutions").mkdir()
    res = run_notebook("solutions/08_cross_validation", dataset="breast_cancer", n_splits=5,
                       exercise_repeats=3, n_trees=5)
    assert res["dataset"] == "breast_cancer"
    for row in res["ex1"]:
        assert 1 < row["inflation"] <= 3 * 1.05  # more, by up to the number of repetitions
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
