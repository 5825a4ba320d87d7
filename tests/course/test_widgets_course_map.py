"""The test chooser of notebook 00: its state function and its widget.

Every expectation below is read from the course map (``precmp_lib.course.maps.course_map_table``):
the row for the case names the test and the notebook; notebooks 05 and 06 are where the map's
"relative precision" and "combined p-values over classes" of its one-test-set precision row are
worked out (the notebook list of notebook 00).
"""

from __future__ import annotations

import pytest

from precmp_lib.course import widgets as wd
from precmp_lib.course.maps import course_map_table
from precmp_lib.course.widgets.course import EVALUATION_PLANNING


def _row(data, metric, classifiers):
    t = course_map_table()
    row = t[(t["data"] == data) & (t["metric"] == metric) & (t["classifiers"] == classifiers)]
    assert len(row) == 1
    return row.iloc[0]


def test_two_models_accuracy_on_one_test_set_is_mcnemar():
    state = wd.course_map_state("accuracy", "one test set", 2)
    row = _row("one test set", "accuracy", "two")
    assert state["test"].tolist() == ["McNemar (exact or mid-p)"] == [row["test"]]
    assert state["notebook"].tolist() == ["01_mcnemar_cochran"] == [row["notebook"]]
    assert state.loc[0, "call"].startswith("pc.mcnemar(")
    assert list(state.columns) == ["test", "call", "notebook", "why"]


def test_more_models_accuracy_on_one_test_set_is_cochran():
    state = wd.course_map_state("accuracy", "one test set", 5)
    assert state["test"].tolist() == [_row("one test set", "accuracy", "three or more")["test"]]
    assert "pc.cochrans_q(" in state.loc[0, "call"] and "pc.pairwise_mcnemar(" in state.loc[0, "call"]


@pytest.mark.parametrize("compare", ["accuracy", "scores"])
def test_two_models_under_resampling_are_the_corrected_tests(compare):
    # the map's resampled row names three tests; a per-split score other than accuracy is
    # tested the same way (the resampling functions take a ``scoring``)
    state = wd.course_map_state(compare, "resampling", 2)
    assert "; ".join(state["test"]) == _row(
        "resampled scores", "accuracy", "two")["test"]
    assert set(state["notebook"]) == {"02_cv_ttests"}
    calls = " ".join(state["call"])
    for f in ("pc.corrected_resampled_ttest(", "pc.ftest_5x2cv(", "pc.bayes_correlated_ttest("):
        assert f in calls


def test_several_data_sets_use_ranks_whatever_is_compared():
    for compare in ("accuracy", "precision", "scores"):
        two = wd.course_map_state(compare, "several data sets", 2)
        more = wd.course_map_state(compare, "several data sets", 3)
        assert two["test"].tolist() == ["Wilcoxon signed-rank",
                                        "Bayesian sign and signed-rank tests with a ROPE"]
        assert more["test"].tolist() == [_row("many datasets", "any score", "three or more")["test"]]
        assert set(two["notebook"]) | set(more["notebook"]) == {"03_friedman_posthoc"}


def test_precision_on_one_test_set_per_class_or_across_classes():
    per_class = wd.course_map_state("precision", "one test set", 2)
    assert per_class["test"].tolist() == ["GS, weighted GS, GW and Wald per class",
                                          "relative precision"]
    assert per_class["notebook"].tolist() == ["04_precision_gs_gw", "05_relative_precision"]
    across = wd.course_map_state("precision", "one test set", 2, across_classes=True)
    assert across["test"].tolist() == ["combined p-values over classes"]
    assert across["notebook"].tolist() == ["06_combining_pvalues"]
    assert across.loc[0, "call"].startswith("pc.combined_precision_test(")
    # the map's row names all three
    assert _row("one test set", "precision", "two")["test"].endswith("combined p-values over classes")


def test_precision_of_more_models_and_under_resampling_is_gee():
    more = wd.course_map_state("precision", "one test set", 3)
    assert more["test"].tolist() == [_row("one test set", "precision", "three or more")["test"]]
    assert more.loc[0, "call"].startswith("pc.gee_precision(")
    for n in (2, 3):
        cv = wd.course_map_state("precision", "resampling", n)
        assert cv["notebook"].tolist() == [_row("resampled scores", "precision",
                                                "two or more")["notebook"]] == ["08_cross_validation"]
    # no single test over classes in these cases: the line on why says so
    assert "adjust" in wd.course_map_state("precision", "one test set", 3, True).loc[0, "why"]
    # across_classes means nothing for accuracy
    assert wd.course_map_state("accuracy", "one test set", 2, True).equals(
        wd.course_map_state("accuracy", "one test set", 2))


def test_models_on_benchmark_items_use_the_clustered_paired_tests():
    for n in (2, 3):
        acc = wd.course_map_state("accuracy", "evaluation items", n)
        planning = _row("evaluation items", EVALUATION_PLANNING, "two or more")
        assert planning["notebook"] == "14_planning_item_evaluations"
        assert "; ".join(acc["test"]) == "; ".join(
            [_row("evaluation items", "accuracy", "two or more")["test"], planning["test"]])
        # the clustered tests are notebook 13's; equivalence and planning notebook 14's
        for state in (acc, wd.course_map_state("scores", "evaluation items", n)):
            shown = state.set_index("test")["notebook"]
            assert shown["TOST equivalence"] == shown["power and items needed"] \
                == "14_planning_item_evaluations"
            rest = shown.drop(["TOST equivalence", "power and items needed"])
            assert set(rest) == {"13_evaluating_on_items"}
        assert acc.loc[0, "call"].startswith("pc.clustered_mcnemar(")
        scores = wd.course_map_state("scores", "evaluation items", n)
        assert "; ".join(scores["test"]) == "; ".join(
            [_row("evaluation items", "any score", "two or more")["test"], planning["test"]])
        assert scores.loc[0, "call"].startswith("pc.paired_difference(")
    precision = wd.course_map_state("precision", "evaluation items", 2)
    assert precision["test"].tolist() == ["no test in the map"]


def test_one_score_on_one_test_set_has_no_test():
    state = wd.course_map_state("scores", "one test set", 2)
    assert state["test"].tolist() == ["no test in the map"] and state.loc[0, "notebook"] == ""


def test_every_case_gives_a_call_and_a_reason():
    for compare in wd.COURSE_MAP_COMPARE:
        for design in wd.COURSE_MAP_DESIGNS:
            for n in (2, 3):
                state = wd.course_map_state(compare, design, n)
                assert len(state) >= 1 and (state["why"].str.len() > 20).all()


@pytest.mark.parametrize(("args", "name"), [
    (("recall", "one test set", 2), "compare"),
    (("accuracy", "bootstrap", 2), "design"),
    (("accuracy", "one test set", 1), "n_models"),
    (("accuracy", "one test set", 2.5), "n_models"),
])
def test_invalid_choices_name_the_argument(args, name):
    with pytest.raises(ValueError, match=f"^{name} must be"):
        wd.course_map_state(*args)


def test_explorer_html_follows_the_controls():
    import ipywidgets as w

    box = wd.course_map_explorer()
    what, how, many, classes, table = box.children
    assert isinstance(table, w.HTML) and isinstance(how, w.Dropdown)
    start = table.value
    assert "McNemar" in start and '<a href="01_mcnemar_cochran.ipynb">' in start
    assert classes.disabled

    many.value = 3
    assert table.value != start and "Cochran" in table.value and "McNemar (exact" not in table.value
    how.value = "several data sets"
    assert "Friedman" in table.value and "03_friedman_posthoc.ipynb" in table.value
    how.value, many.value, what.value = "one test set", 2, "precision"
    assert not classes.disabled and "05_relative_precision.ipynb" in table.value
    before = table.value
    classes.value = True
    assert table.value != before and "06_combining_pvalues.ipynb" in table.value


def test_explorer_rejects_a_bad_start():
    with pytest.raises(ValueError, match="design"):
        wd.course_map_explorer(design="many")
