"""Every stored notebook is stripped, has exactly one typed `parameters` cell, and states its question.

`make test` executes each notebook at its defaults once: in the topic's contract test
(tests/notebooks/test_nb_*.py, a test marked ``runs_notebook(name)``, through papermill), whose
checks read that run's results.json, or, for a notebook no contract test runs at its defaults,
under nbval (`--nbval-lax`). The contract tests also run some notebooks again with other parameters (string
labels, other data sets).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from precmp_lib.report.notebooks import notebook_question

_FOLDER = Path(__file__).resolve().parents[2] / "notebooks"
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


_TIMES = json.loads((_FOLDER / "times.json").read_text())


def test_times_cover_every_course_notebook():
    assert set(_TIMES) == {p.stem for p in _FOLDER.glob("[0-9][0-9]_*.ipynb")}
    for name, t in _TIMES.items():
        assert t["minutes"] > 0 and t["exercises"] > 0, name
        assert t["run_seconds"] is None or t["run_seconds"] > 0, name


@pytest.mark.parametrize("name", sorted(_TIMES))
def test_header_states_the_time_of_times_json(name):
    """notebooks/times.json is the one source of each notebook's time: its header says it."""
    first = "".join(json.loads((_FOLDER / f"{name}.ipynb").read_text())["cells"][0]["source"])
    t = _TIMES[name]
    said = re.findall(r"\*\*Time:\*\* about (\d+) minutes, plus (\d+) for the\s+exercises", first)
    assert said == [(str(t["minutes"]), str(t["exercises"]))], f"{name}: {said}"


def test_instructor_guide_states_the_times_of_times_json():
    """Each notebook's heading in docs/instructor says "(about M + E minutes)" from times.json, and
    the session plan's minutes are the notebooks' own."""
    guide = _FOLDER.parent / "docs" / "instructor"
    headings = {}
    for md in guide.glob("*.md"):
        for nn, m, e in re.findall(r"^## (\d\d) .*\(about (\d+) \+ (\d+) minutes\)$", md.read_text(), re.M):
            headings[nn] = (int(m), int(e))
    assert headings == {k[:2]: (t["minutes"], t["exercises"]) for k, t in _TIMES.items()}
    plan = (guide / "README.md").read_text()
    rows = re.findall(r"^\| \d \| ((?:\d\d [^|,]+(?:, )?)+) \| ((?:\d+(?: \+ )?)+) min \|", plan, re.M)
    assert rows
    for names, minutes in rows:
        numbers = re.findall(r"\b(\d\d) ", names)
        stated = [int(x) for x in minutes.split(" + ")]
        assert stated == [t["minutes"] for k, t in sorted(_TIMES.items()) if k[:2] in numbers], names



def test_the_two_hour_lab_adds_up_and_quotes_times_json():
    """docs/instructor/lab-2h.md: its slots follow each other, fill 120 minutes, and each notebook's
    run time is the one of times.json."""
    lab = (_FOLDER.parent / "docs" / "instructor" / "lab-2h.md").read_text()
    rows = re.findall(r"^\| (\d):(\d\d) \| (\d+) \| ([\w ]+?) \| [^|]+ \| (?:(\d+) s)? ?\|$", lab, re.M)
    assert len(rows) >= 4
    start = 0
    for hours, minutes, length, name, seconds in rows:
        assert int(hours) * 60 + int(minutes) == start, name
        start += int(length)
        if name in _TIMES:
            assert int(seconds) == _TIMES[name]["run_seconds"], name
        else:
            assert not seconds, name
    assert start == 120
    plan = (_FOLDER.parent / "docs" / "instructor" / "README.md").read_text()
    rest = sum(t["minutes"] for k, t in _TIMES.items() if "06" <= k[:2] <= "11")
    assert f"Notebooks 06–11 take about {rest} minutes more" in plan


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(_FOLDER).with_suffix("").as_posix())
def test_cells_that_write_sentences_are_collapsed(path):
    """A cell that writes a sentence from the results (display(Markdown(...))) is stored with its
    input collapsed: JupyterLab and the site show the sentence, and its code folded."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    open_ = [i for i, c in enumerate(cells) if "display(Markdown(" in "".join(c["source"])
             and not c["metadata"].get("jupyter", {}).get("source_hidden")]
    assert open_ == [], f"{path.name}: code cells {open_} write a sentence with their code shown"


# Collects what `make test` collects (with nbval) and lists, after the selections of
# tests/conftest.py, the notebooks nbval executes and the notebooks each contract test runs at
# its defaults.
_COLLECT = """
import json, sys
from pathlib import Path
import pytest

class Runs:
    def pytest_collection_finish(self, session):
        self.nbval = sorted({Path(str(i.fspath)).resolve().as_posix() for i in session.items
                             if str(i.fspath).endswith(".ipynb")})
        self.contract = sorted({(m.args[0], i.nodeid.split("::")[0]) for i in session.items
                                for m in i.iter_markers("runs_notebook")})

runs = Runs()
code = pytest.main(["--collect-only", "-q", "--nbval-lax", "-p", "no:cacheprovider", "tests",
                    "notebooks"], plugins=[runs])
print("RUNS " + json.dumps({"code": int(code), "nbval": runs.nbval, "contract": runs.contract}))
"""


@pytest.mark.notebook
def test_each_notebook_executes_once_at_its_defaults():
    """Every course notebook and solution is executed at its defaults by exactly one of nbval and
    a contract test (one module each), and `make test` collects the notebooks under nbval."""
    root = _FOLDER.parent
    recipe = (root / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    pytest_line = next(line for line in recipe.splitlines() if "-m pytest" in line)
    assert "--nbval-lax" in pytest_line and pytest_line.split()[-1] == "notebooks", pytest_line
    done = subprocess.run([sys.executable, "-c", _COLLECT], cwd=root, capture_output=True,
                          text=True, timeout=600)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RUNS ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    runs = json.loads(line[5:])
    assert runs["code"] == 0, done.stdout[-2000:]
    names = {p.relative_to(_FOLDER).with_suffix("").as_posix() for p in NOTEBOOKS}
    by_nbval = {Path(p).relative_to(_FOLDER.resolve()).with_suffix("").as_posix()
                for p in runs["nbval"] if Path(p).is_relative_to(_FOLDER.resolve())}
    modules: dict[str, set[str]] = {}
    for name, module in runs["contract"]:
        modules.setdefault(name, set()).add(module)
    assert set(modules) <= names, set(modules) - names
    assert {n: m for n, m in modules.items() if len(m) > 1} == {}  # one module runs each
    twice = sorted(by_nbval & set(modules))
    never = sorted(names - by_nbval - set(modules))
    assert (twice, never) == ([], [])
