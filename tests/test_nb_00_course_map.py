"""Contract of notebooks/00_course_map.ipynb (the decision map, the datasets it reports) and its plot.

Expected shapes: scikit-learn's loaders (called here) for the bundled sets; the mirror's README
table for the paper's UCI sets; the paper's Table 4 for the rows it prints (Wilt 4889, Phishing 2456).
"""

from __future__ import annotations

import pytest
from conftest import DATA_MIRROR
from matplotlib.axes import Axes

from precmp_lib.plots import course_map_chart, course_map_table

UCI_SHAPES = {  # rows, features, classes, (train, test)
    "wilt": (4839, 5, 2, (4339, 500)),
    "diabetic_retinopathy": (1151, 19, 2, (None, None)),
    "phishing": (11055, 30, 2, (None, None)),
    "banknote": (1372, 4, 2, (None, None)),
    "magic": (19020, 10, 2, (None, None)),
    "urban_land_cover": (675, 147, 9, (168, 507)),
}


@pytest.mark.notebook
def test_course_map_reports_the_map_and_the_datasets(run_notebook):
    from sklearn import datasets as sk

    res = run_notebook("00_course_map")
    table = course_map_table()
    assert res["cases"] == len(table) == 9
    assert res["notebooks_in_map"] == sorted(table["notebook"].unique())

    rows = {r["name"]: r for r in res["datasets"]}
    assert list(rows) == ["breast_cancer", "digits", "wine", "iris", *UCI_SHAPES]
    for name in ("breast_cancer", "digits", "wine", "iris"):
        X, y = getattr(sk, f"load_{name}")(return_X_y=True)
        r = rows[name]
        assert r["available"] and (r["rows"], r["features"], r["classes"]) == (
            X.shape[0],
            X.shape[1],
            len(set(y)),
        )
        assert r["n_train"] is None and r["paper_rows"] is None

    for name, (n, p, k, (n_train, n_test)) in UCI_SHAPES.items():
        r = rows[name]
        if r["available"]:
            assert (r["rows"], r["features"], r["classes"]) == (n, p, k)
            assert (r["n_train"], r["n_test"]) == (n_train, n_test)
        else:
            assert "make data" in r["note"] and "\n" not in r["note"]
            assert name in res["not_loaded"]

    if DATA_MIRROR:  # with the mirror, every UCI set loads and two differ from the paper
        assert res["not_loaded"] == []
        assert res["rows_differ_from_paper"] == ["wilt", "phishing"]
        assert (rows["wilt"]["paper_rows"], rows["phishing"]["paper_rows"]) == (4889, 2456)


# The course's notebooks, as DESIGN.md lists them.
COURSE = [
    "00_course_map", "01_mcnemar_cochran", "02_cv_ttests", "03_friedman_posthoc",
    "04_precision_gs_gw", "05_relative_precision", "06_combining_pvalues", "07_bayes_update",
    "08_cross_validation", "09_deep_models", "10_replicability", "11_paper_replication",
]  # fmt: skip


def test_course_map_table_covers_every_case_once():
    table = course_map_table()
    assert set(table["notebook"]) <= set(COURSE)
    assert not table.duplicated(["data", "metric", "classifiers"]).any()
    assert set(table["data"]) == {"one test set", "resampled scores", "many datasets"}
    # each kind of data offers a test for two classifiers and for more than two
    for _, group in table.groupby("data"):
        kinds = set(group["classifiers"])
        assert kinds & {"two", "two or more"} and kinds & {"three or more", "two or more"}
    mcnemar = table.query(
        "data == 'one test set' and metric == 'accuracy' and classifiers == 'two'"
    )
    assert mcnemar["notebook"].tolist() == ["01_mcnemar_cochran"]


def test_course_map_chart_draws_one_box_per_node_and_one_arrow_per_edge():
    table = course_map_table()
    ax = course_map_chart()
    nodes = (
        1
        + table["data"].nunique()
        + len(table.drop_duplicates(["data", "metric"]))
        + len(table.drop_duplicates(["data", "metric", "classifiers"]))
        + len(table)
    )
    assert isinstance(ax, Axes)
    assert len(ax.patches) == nodes
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == nodes - 1  # a tree
    labels = [t.get_text() for t in ax.texts]
    for r in table.itertuples():
        assert any(r.notebook[:2] in s and r.test[:20] in s.replace("\n", " ") for s in labels)


def test_course_map_chart_draws_a_subset_and_rejects_bad_tables():
    one = course_map_table().query("data == 'one test set'")
    assert len(course_map_chart(one).patches) == 1 + 1 + 2 + 4 + 4
    with pytest.raises(ValueError, match=r"table needs columns .*missing \['notebook'\]"):
        course_map_chart(one.drop(columns="notebook"))
    with pytest.raises(ValueError, match="table has no rows"):
        course_map_chart(one.iloc[:0])
