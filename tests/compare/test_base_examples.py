"""The comparisons the report templates show by default are the ones their scripts compute now.

A template cell that reads a column the library added (an interval beside a Holm decision, a
pair's note) fails under nbval and in a fresh install when the shipped example is older than
the code; each script is run here and its output compared with the shipped file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script, resource", [
    ("make_example_prediction_comparison", "example_prediction_comparison.json"),
    ("make_example_item_comparison", "example_item_comparison.json"),
    ("make_example_dataset_comparison", "example_dataset_comparison.json"),
    ("make_example_probability_comparison", "example_probability_comparison.json"),
])
def test_the_shipped_example_is_what_its_script_writes_today(script, resource):
    shipped = (ROOT / "precmp_lib" / "_resources" / resource).read_text(encoding="utf-8")
    assert _script(script).comparison_json() == shipped, (
        f"{resource} is out of date: run python scripts/{script}.py")
