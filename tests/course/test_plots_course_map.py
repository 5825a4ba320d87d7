"""Course map: the question-to-test table and the decision chart, tested structurally."""

from __future__ import annotations

import pytest
from matplotlib.axes import Axes

from precmp_lib.course.maps import course_map_chart, course_map_table

# The course's notebooks, as DESIGN.md lists them.
COURSE = [
    "00_course_map", "01_mcnemar_cochran", "02_cv_ttests", "03_friedman_posthoc",
    "04_precision_gs_gw", "05_relative_precision", "06_combining_pvalues", "07_bayes_update",
    "08_cross_validation", "09_deep_models", "10_replicability", "11_paper_replication",
    "12_algorithm_selection", "13_evaluating_on_items", "14_planning_item_evaluations",
    "15_bootstrap_permutation",
]  # fmt: skip


def test_course_map_table_covers_every_case_once():
    table = course_map_table()
    assert set(table["notebook"]) <= set(COURSE)
    assert not table.duplicated(["data", "metric", "classifiers"]).any()
    assert set(table["data"]) == {"one test set", "resampled scores", "many datasets",
                                  "evaluation items"}
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
    assert len(course_map_chart(one).patches) == 1 + 1 + 2 + 5 + 5
    with pytest.raises(ValueError, match=r"table needs columns .*missing \['notebook'\]"):
        course_map_chart(one.drop(columns="notebook"))
    with pytest.raises(ValueError, match="table has no rows"):
        course_map_chart(one.iloc[:0])
