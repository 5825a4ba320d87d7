"""The route registry (precmp_lib.compare.routes) and the Comparison base every route shares.

A route is registered once; the command's options, its choice of route, its refusal of an
option of another route and the renderer's template all come from the registry. Every
comparison has one JSON codec and one best-group rule with one tie-break.
"""

from __future__ import annotations

import argparse
import json
from importlib.resources import files

import numpy as np
import pandas as pd
import pytest

from precmp_lib.cli import build_parser
from precmp_lib.compare.base import Comparison, best_group
from precmp_lib.compare.items import ItemComparison, compare_items
from precmp_lib.compare.predictions import ModelComparison, compare_models
from precmp_lib.compare.route import InputError
from precmp_lib.compare.routes import (
    ROUTES,
    comparison_from_json,
    misplaced,
    option_routes,
    route_for,
    route_named,
)
from precmp_lib.report.render import report_template


def _defaults() -> argparse.Namespace:
    return build_parser().parse_args(["report"])


def test_each_route_names_its_comparison_and_its_template():
    assert len({r.name for r in ROUTES}) == len(ROUTES)
    for route in ROUTES:
        cls = route.comparison()
        assert issubclass(cls, Comparison) and cls.kind == route.name
        assert (files("precmp_lib") / "_resources" / route.template).is_file()
        assert report_template(route.name).name == route.template
        assert route_named(route.name) is route
    with pytest.raises(ValueError, match="no route is named 'nope'"):
        route_named("nope")


def test_an_option_two_routes_read_is_one_object_added_once():
    by_flag: dict[str, object] = {}
    for route in ROUTES:
        for option in route.options:
            assert by_flag.setdefault(option.flag, option) is option, option.flag
    parser = build_parser()
    report = parser._subparsers._group_actions[0].choices["report"]  # the report subcommand
    flags = [f for action in report._actions for f in action.option_strings]
    assert len(flags) == len(set(flags))
    assert set(by_flag) <= set(flags)


def test_the_route_is_the_one_the_options_ask_for():
    defaults = _defaults()
    assert route_for(defaults).name == "predictions"  # the default route
    for given in ({"item": "q"}, {"eval_log": [("a", "a.eval")]}):
        assert route_for(argparse.Namespace(**dict(vars(defaults), **given))).name == "items"
    # a table with no --y-true, --item or --eval-log is results across data sets
    for given in ({"predictions": "r.csv"}, {"dataset": "ds"},
                  {"predictions": "r.csv", "dataset": "ds", "y_true": "y"}):
        assert route_for(argparse.Namespace(**dict(vars(defaults), **given))).name == "datasets"
    for given in ({"predictions": "p.csv", "y_true": "y"}, {"predictions": "i.csv", "item": "q"}):
        assert route_for(argparse.Namespace(**dict(vars(defaults), **given))).name != "datasets"
    given = argparse.Namespace(**dict(vars(defaults), proba=["p"], y_true="y"))
    assert route_for(given).name == "probabilities"


# an option that chooses each route (the first route is the default: no option at all)
CHOOSING = {"predictions": {}, "items": {"item": "q"}, "datasets": {"dataset": "ds"},
            "probabilities": {"proba": ["p"]}}


@pytest.mark.parametrize("chosen", ROUTES, ids=lambda r: r.name)
def test_every_option_of_another_route_is_refused_in_one_line_naming_its_route(chosen):
    defaults = dict(vars(_defaults()), **CHOOSING[chosen.name])
    assert route_for(argparse.Namespace(**defaults)) is chosen
    assert misplaced(argparse.Namespace(**defaults), chosen) is None
    for option, owners in option_routes().items():
        given = argparse.Namespace(**dict(defaults, **{option.dest: object()}))
        try:
            asked = route_for(given)
        except InputError as err:  # an option that chooses another route too: both named
            assert "at once" in str(err) and chosen.title in str(err), option.flag
            continue
        if chosen in owners or asked is not chosen:  # read, or choosing its route
            continue
        line = misplaced(given, chosen)
        # the line says how to choose the first route that reads the option
        said = (f"{option.flag} applies to {' or '.join(r.title for r in owners)}, not to "
                f"{chosen.title} ({chosen.chosen_by}): give {owners[0].usage}")
        assert line == said, option.flag


def _items() -> pd.DataFrame:
    return pd.DataFrame({"item": list(range(6)) * 2, "model": ["a"] * 6 + ["b"] * 6,
                         "score": [1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1]})


def _predictions() -> pd.DataFrame:
    return pd.DataFrame({"y": [0, 1] * 20, "a": [0, 1] * 20, "b": [0, 0, 1, 1] * 10})


def test_one_codec_writes_and_reads_every_comparison():
    for cmp in (compare_models(_predictions(), y_true="y"), compare_items(_items())):
        text = cmp.to_json()
        data = json.loads(text)
        assert data["kind"] == cmp.kind
        for name in ("summary", "pairs"):  # every table: columns and records
            assert data[name]["columns"] == [str(c) for c in getattr(cmp, name).columns]
            assert len(data[name]["records"]) == len(getattr(cmp, name))
        back = comparison_from_json(text)
        assert type(back) is type(cmp) and back.to_json() == text
        assert isinstance(back.best, list) and isinstance(back.design, dict)
        pd.testing.assert_frame_equal(back.to_frame(), cmp.summary, check_dtype=False)
    with pytest.raises(ValueError, match="kind 'items', not 'predictions'"):
        ModelComparison.from_json(compare_items(_items()).to_json())
    with pytest.raises(ValueError, match="names no 'kind'"):
        comparison_from_json("{}")


def test_items_keep_their_per_task_design_and_best_groups_beside_the_whole():
    frame = _items()
    frame = pd.concat([frame.assign(task="t1"), frame.assign(task="t2")], ignore_index=True)
    cmp = compare_items(frame, task="task")
    assert isinstance(cmp, ItemComparison)
    assert list(cmp.design_table["task"]) == ["t1", "t2", "all tasks"]
    assert cmp.design["tasks"] == 2 and cmp.design["items"] == 12
    assert cmp.best == cmp.best_by_task["all tasks"]
    assert set(cmp.best_by_task) == {"t1", "t2", "all tasks"}


def test_equal_scores_keep_the_models_order_in_every_route():
    # the tie-break stated once (best_group): equal scores keep the order of the models
    pairs = pd.DataFrame({"model_a": ["b"], "model_b": ["a"], "reject": [False],
                          "estimate": [0.0]})
    assert best_group({"b": 0.5, "a": 0.5}, pairs) == ["b", "a"]
    assert best_group({"a": 0.5, "b": 0.5}, pairs) == ["a", "b"]
    # two models right on different halves: equal accuracy, equal mean score
    y = np.array([0, 1] * 20)
    preds = pd.DataFrame({"y": y, "a": np.where(np.arange(40) < 20, y, 1 - y),
                          "b": np.where(np.arange(40) < 20, 1 - y, y)})
    assert compare_models(preds, y_true="y", models=["b", "a"]).best == ["b", "a"]
    assert compare_models(preds, y_true="y", models=["a", "b"]).best == ["a", "b"]
    items = pd.DataFrame({"item": list(range(8)) * 2, "model": ["a"] * 8 + ["b"] * 8,
                          "score": [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]})
    assert compare_items(items, models=["b", "a"]).best == ["b", "a"]
    assert compare_items(items).best == ["a", "b"]  # the items' models: sorted by name


def test_an_item_column_without_an_item_file_is_one_line(tmp_path, capsys):
    from precmp_lib.cli import main

    assert main(["report", "--item", "q", "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["precmp: error: give an item file (with --item) or --eval-log NAME=PATH"]
    assert not (tmp_path / "r.html").exists()
