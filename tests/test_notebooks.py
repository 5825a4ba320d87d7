"""Every stored notebook is stripped, has exactly one typed `parameters` cell, and states its question.

The notebooks themselves run twice in `make test`: as stored under nbval (`--nbval-lax`) and
with small parameters through papermill in each topic's contract test (test_nb_*.py).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from precmp_lib.report.notebooks import notebook_question

_FOLDER = Path(__file__).resolve().parent.parent / "notebooks"
# the course notebooks and the solutions of their exercises (notebooks/solutions/NN_<name>.ipynb)
NOTEBOOKS = sorted(_FOLDER.glob("*.ipynb")) + sorted((_FOLDER / "solutions").glob("*.ipynb"))


def test_there_are_notebooks():
    assert any(p.name.startswith("01_") for p in NOTEBOOKS)


def test_every_solution_belongs_to_a_course_notebook():
    names = {p.name for p in _FOLDER.glob("[0-9][0-9]_*.ipynb")}
    solutions = sorted((_FOLDER / "solutions").glob("*.ipynb"))
    assert solutions and all(p.name in names for p in solutions)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(_FOLDER).with_suffix("").as_posix())
def test_stored_without_outputs(path):
    nb = json.loads(path.read_text())
    dirty = [
        i for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count") is not None)
    ]
    assert dirty == [], f"{path.name}: cells {dirty} carry outputs or execution counts"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(_FOLDER).with_suffix("").as_posix())
def test_one_parameters_cell_of_literals(path):
    nb = json.loads(path.read_text())
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"{path.name}: {len(cells)} cells tagged 'parameters'"
    tree = ast.parse("".join(cells[0]["source"]))
    names = []
    for node in tree.body:
        assert isinstance(node, ast.AnnAssign), f"{path.name}: parameters must be typed assignments"
        ast.literal_eval(node.value)  # literals only, nothing derived
        names.append(node.target.id)
    assert "output_dir" in names, f"{path.name}: no output_dir parameter"
    lines = [ln for ln in "".join(cells[0]["source"]).splitlines() if ln.strip()]
    assert all("#" in ln for ln in lines), f"{path.name}: every parameter needs a comment"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(_FOLDER).with_suffix("").as_posix())
def test_states_its_question(path):
    title, question = notebook_question(path)
    assert title != path.stem and question, f"{path.name}: needs a '# ' title and a **Question:** line"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(_FOLDER).with_suffix("").as_posix())
def test_each_explorer_is_followed_by_its_starting_state(path):
    """The site shows an explorer's controls only and its starting state once, from the next code
    cell, which must carry the tag `widget-start` (precmp_lib.course.site.static_widgets)."""
    code = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    for cell, nxt in zip(code, [*code[1:], None]):
        if "_explorer(" in "".join(cell["source"]):
            assert nxt is not None and "widget-start" in nxt["metadata"].get("tags", []), (
                f"{path.name}: no cell tagged widget-start after {''.join(cell['source'])[:60]!r}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(_FOLDER).with_suffix("").as_posix())
def test_output_dir_resolves_against_the_notebooks_folder(path):
    """results.json lands under build/results/ of the repository whatever the working folder of
    the run (papermill from the repository root, JupyterLab in notebooks/): the notebook joins
    `output_dir` to its own folder (precmp_lib.report.notebooks.NOTEBOOKS, plus solutions/), and
    the default leads there."""
    nb = json.loads(path.read_text())
    params = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    default = next(ast.literal_eval(n.value) for n in ast.parse("".join(params["source"])).body
                   if isinstance(n, ast.AnnAssign) and n.target.id == "output_dir")
    folder = "NOTEBOOKS / output_dir" if path.parent == _FOLDER else 'NOTEBOOKS / "solutions" / output_dir'
    calls = [c for c in nb["cells"] if "save_results(" in "".join(c["source"])]
    assert calls and all(f"save_results({folder}," in "".join(c["source"]) for c in calls), path.name
    target = (path.parent / default).resolve()
    assert target.is_relative_to(_FOLDER.parent / "build" / "results"), target
    if path.parent != _FOLDER:
        assert target.is_relative_to(_FOLDER.parent / "build" / "results" / "solutions"), target


def test_the_labs_settings_overrides_name_settings_jupyterlab_has():
    # `make venv` copies them into the environment; a key JupyterLab no longer knows would be
    # ignored without a word, so each is checked against the installed settings schema
    import sys

    overrides = json.loads((_FOLDER.parent / "scripts" / "jupyterlab_overrides.json").read_text())
    schemas = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"
    for plugin, settings in overrides.items():
        package, name = plugin.split(":")
        schema = json.loads((schemas / package / f"{name}.json").read_text())
        for key, value in settings.items():
            spec = schema["properties"][key]
            allowed = [c["const"] for c in spec.get("oneOf", [])] or [True, False]
            assert value in allowed, (plugin, key, value)
    news = overrides["@jupyterlab/apputils-extension:notification"]
    assert news == {"fetchNews": "false", "checkForUpdates": False}


def _parameters(path: Path) -> dict:
    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    return {n.target.id: ast.literal_eval(n.value) for n in ast.parse("".join(cell["source"])).body}


@pytest.mark.parametrize("path", sorted((_FOLDER / "solutions").glob("*.ipynb")), ids=lambda p: p.stem)
def test_solution_runs_with_its_notebooks_parameters(path):
    """A solution answers for the run its students just made: every parameter it shares with its
    notebook has the notebook's default, and what an exercise changes has a name of its own
    (other_dataset, exercise_repeats, ...)."""
    mine, theirs = _parameters(path), _parameters(_FOLDER / path.name)
    differ = {k: (theirs[k], mine[k]) for k in (mine.keys() & theirs.keys()) - {"output_dir"}
              if mine[k] != theirs[k]}
    assert differ == {}, f"{path.name}: notebook's value, solution's value: {differ}"
