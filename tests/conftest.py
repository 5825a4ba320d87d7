"""Shared fixtures: a non-interactive plot backend, a papermill runner for notebook contracts,
the one run of each notebook at its defaults, and the marks of tests that start Spark."""

from __future__ import annotations

import ast
import copy
import inspect
import json
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from hypothesis import settings

matplotlib.use("Agg")

# Property tests draw the same examples on every run (so CI is reproducible) and keep no
# example database; HYPOTHESIS_PROFILE=explore draws fresh examples when hunting for bugs.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DATA_MIRROR = os.environ.get("PRECMP_DATA_MIRROR")

needs_mirror = pytest.mark.skipif(
    not DATA_MIRROR, reason="PRECMP_DATA_MIRROR is not set (the UCI datasets are not available)"
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def run_notebook(tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """Run ``notebooks/<name>.ipynb`` with papermill and the given parameters; return results.json.

    The executed notebook is kept next to results.json in the test's temporary directory.
    """

    def run(name: str, **parameters: Any) -> dict[str, Any]:
        return execute_notebook(name, tmp_path, **parameters)

    return run


def notebook_parameters(name: str) -> dict[str, Any]:
    """The defaults of ``notebooks/<name>.ipynb``: its parameters cell, read as literals."""
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    return {n.target.id: ast.literal_eval(n.value) for n in ast.parse("".join(cell["source"])).body}


# results.json of each notebook run at its defaults in this process (or the error of that run)
_DEFAULT_RUNS: dict[str, Any] = {}


@pytest.fixture
def notebook_defaults(request, tmp_path_factory) -> dict[str, Any]:
    """results.json of the notebook the test's ``runs_notebook`` mark names, run at its defaults.

    The run is the notebook's one execution in `make test`: it is made once per session (the
    tests that share it get a copy each), and nbval does not execute that notebook again
    (``pytest_collection_modifyitems`` below). A cell that fails fails every test that shares
    the run, with papermill's error, as nbval would fail that cell.
    """
    mark = request.node.get_closest_marker("runs_notebook")
    assert mark is not None, "notebook_defaults needs @pytest.mark.runs_notebook(name)"
    name = mark.args[0]
    if name not in _DEFAULT_RUNS:
        folder = tmp_path_factory.mktemp("defaults")
        try:
            _DEFAULT_RUNS[name] = execute_notebook(name, folder)
        except Exception as exc:  # kept, so that the tests sharing the run do not run it again
            _DEFAULT_RUNS[name] = exc
    done = _DEFAULT_RUNS[name]
    if isinstance(done, Exception):
        raise done
    return copy.deepcopy(done)


def execute_notebook(name: str, folder: Path, **parameters: Any) -> dict[str, Any]:
    """Run ``notebooks/<name>.ipynb`` with papermill into ``folder``; return its results.json.

    ``name`` may be ``"solutions/NN_topic"``. The executed notebook is kept in ``folder`` beside
    the results (``notebook_defaults`` runs a notebook once for several tests with this).
    """
    import papermill as pm

    out = folder / name
    parameters = {"output_dir": str(out), **parameters}
    source = NOTEBOOKS / f"{name}.ipynb"
    executed = folder / f"{name}.executed.ipynb"
    executed.parent.mkdir(parents=True, exist_ok=True)
    pm.execute_notebook(str(source), str(executed), parameters=parameters,
                        cwd=str(source.parent), kernel_name="python3", progress_bar=False)
    return json.loads((out / "results.json").read_text())


def cr1_se(d: Any, groups: Any) -> float:
    """statsmodels' cluster-robust (CR1) standard error of the mean of ``d`` over ``groups``."""
    import numpy as np
    import statsmodels.api as sm

    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


# A test starts Spark (a local JVM, a Spark Connect server or a command run with --engine spark)
# when it is in a test_spark_* file, when one of its parameters is the engine "spark", when it
# uses a fixture named spark, or when its own code names the engine or the session (a helper it
# calls with "spark" counts: the literal is in the test). Such tests are marked `spark`; `make
# check` leaves them out, and a test that starts a local session unmarked fails.
_NAMES_SPARK = re.compile(r"""["']spark["']|spark_session\(|SparkSession""")


def _starts_spark(item: pytest.Item) -> bool:
    path = Path(str(item.fspath))
    if path.name.startswith("test_spark_"):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None and any(v == "spark" for v in callspec.params.values()
                                    if isinstance(v, str)):
        return True
    if "spark" in getattr(item, "fixturenames", ()):  # a fixture named spark gives a session
        return True
    function = getattr(item, "function", None)
    if function is None:
        return False
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    # the function's own code: its decorators (parameter lists) are judged per parameter above
    body = re.split(r"^\s*(?:async\s+)?def ", source, maxsplit=1, flags=re.M)[-1]
    return bool(_NAMES_SPARK.search(body))


def _spark_running() -> bool:
    """Whether a local Spark session (its JVM) runs in this process."""
    pyspark = sys.modules.get("pyspark")
    return pyspark is not None and pyspark.SparkContext._active_spark_context is not None


def _spark_only_where_marked(item: pytest.Item, before: bool) -> None:
    """A test that starts a local Spark session, in its own code or in a fixture, must carry the
    ``spark`` mark (see ``_starts_spark``): `make check` would otherwise wait for a JVM."""
    if not before and _spark_running() and item.get_closest_marker("spark") is None:
        pytest.fail("this test starts Spark but is not marked spark: name the engine \"spark\", "
                    "spark_session or a fixture named spark in the test itself "
                    "(tests/conftest.py, _starts_spark)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    before = _spark_running()
    result = yield
    _spark_only_where_marked(item, before)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    before = _spark_running()
    result = yield
    _spark_only_where_marked(item, before)
    return result


def pytest_itemcollected(item: pytest.Item) -> None:
    """Tests that start Spark are marked ``spark`` as they are collected, before ``-m`` selects."""
    if _starts_spark(item):
        item.add_marker(pytest.mark.spark)


def _notebook_name(path: Path) -> str | None:
    """``NN_topic`` or ``solutions/NN_topic`` for a course notebook, else None."""
    if path.suffix != ".ipynb" or not path.is_relative_to(NOTEBOOKS):
        return None
    return path.relative_to(NOTEBOOKS).with_suffix("").as_posix()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Selections made once -m and -k have chosen the items:

    * nbval does not execute a course notebook that a contract test runs at its defaults
      (``runs_notebook`` mark, ``notebook_defaults`` fixture): that run is the notebook's one
      execution, and a failing cell fails it as nbval would;
    * notebooks that need the UCI datasets (metadata ``precmp.requires = "uci"``) are skipped
      under nbval when the data are not available here, as `make report` skips rendering them.
    """
    from precmp_lib.course.site import missing_requirement

    by_contract = {m.args[0] for item in items for m in item.iter_markers("runs_notebook")}
    keep, executed_by_contract = [], []
    for item in items:
        name = _notebook_name(Path(str(item.fspath)))
        (executed_by_contract if name in by_contract else keep).append(item)
    if executed_by_contract:
        config.hook.pytest_deselected(items=executed_by_contract)
        items[:] = keep

    reasons: dict[Path, str] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path.suffix != ".ipynb":
            continue
        if path not in reasons:
            reasons[path] = missing_requirement(path)
        if reasons[path]:
            item.add_marker(pytest.mark.skip(reason=f"{path.name}: {reasons[path]}"))


@pytest.fixture
def executed_outputs() -> Callable[[Path, str], str]:
    """Read a notebook that ``precmp report --notebook`` wrote; return the HTML its cells show.

    The notebook must be valid nbformat with one injected-parameters cell that names
    ``json_name`` as the comparison it reads.
    """
    import nbformat

    def read(path: Path, json_name: str) -> str:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
        assert len(injected) == 1 and f"comparison_json = {json_name!r}" in injected[0].source
        return "".join(o["data"]["text/html"] for c in nb.cells if c.cell_type == "code"
                       for o in c.outputs)

    return read



@pytest.fixture(scope="module")
def spark():
    """One local Spark session for a test module: no UI, 2 shuffle partitions; stopped after."""
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless "
                    "(or set JAVA_HOME); they are part of `make test`")
    from precmp_lib.engine.spark_engine import spark_session

    session = spark_session()
    yield session
    session.stop()
