"""The course notebooks, run in a kernel each: papermill executes a notebook, nbconvert writes its page.

``render_notebook`` executes one course notebook with papermill and writes one self-contained
HTML file (plots embedded); the course site (``make report``) is built from it by
:mod:`precmp_lib.course.site`. The notebooks themselves find their folder as ``NOTEBOOKS`` and keep
their key numbers with ``save_results``; ``notebook_question`` reads a notebook's title and
question for the site's index. The page is written atomically: a failure leaves no partial page
behind. (The comparison report's template needs no kernel; :mod:`precmp_lib.report.render` runs it.)
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._lib.atomic import write_atomic

__all__ = [
    "NOTEBOOKS",
    "NotebookError",
    "notebook_question",
    "render_notebook",
    "save_results",
]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


class NotebookError(RuntimeError):
    """A notebook failed to run; the message names the notebook, the cell and the error."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # DataFrame -> records
        return [_jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, Path):
        return str(value)
    return value


def save_results(output_dir: str | os.PathLike, results: Mapping[str, Any]) -> Path:
    """Write a notebook's key numbers to ``output_dir/results.json`` (numpy and pandas aware).

    NaN becomes ``null`` and infinities the strings ``"inf"``/``"-inf"``, so the file is strict JSON.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> p = save_results(d, {"pvalue": np.float64(0.5), "grid": np.arange(2)})
    >>> json.loads(p.read_text())
    {'pvalue': 0.5, 'grid': [0, 1]}
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "results.json"
    write_atomic(path, json.dumps(_jsonable(results), indent=2, allow_nan=False) + "\n")
    return path


def notebook_question(path: str | os.PathLike) -> tuple[str, str]:
    """Return a notebook's title (first ``# `` heading) and question (line ``**Question``).

    >>> title, question = notebook_question(NOTEBOOKS / "01_mcnemar_cochran.ipynb")
    >>> question.endswith("?")
    True
    """
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    title, question = Path(path).stem, ""
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        for line in "".join(cell.get("source", [])).splitlines():
            s = line.strip()
            if s.startswith("# ") and title == Path(path).stem:
                title = s[2:].strip()
            elif s.startswith("**Question") and not question:
                question = s.split("**", 2)[-1].lstrip(":* ").strip()
        if question:
            break
    return title, question


def _error_summary(exc: BaseException) -> str:
    name = getattr(exc, "ename", type(exc).__name__)
    value = getattr(exc, "evalue", str(exc))
    cell = getattr(exc, "exec_count", None)
    where = f" in cell [{cell}]" if cell else ""
    return f"{name}{where}: {value}".strip()


def render_notebook(
    notebook: str | os.PathLike,
    out_html: str | os.PathLike,
    *,
    parameters: Mapping[str, Any] | None = None,
    executed_path: str | os.PathLike | None = None,
    hide_code: bool = False,
    progress: bool = False,
    cwd: str | os.PathLike | None = None,
    kernel_name: str = "python3",
    timeout: int = 3600,
) -> Path:
    """Execute ``notebook`` with papermill and write a self-contained HTML report.

    Parameters
    ----------
    notebook : path
        The stored (output-free) notebook.
    out_html : path
        Where the HTML goes; written atomically, so a failure leaves nothing there.
    parameters : mapping
        Values injected after the notebook's ``parameters`` cell.
    executed_path : path, optional
        Also keep the executed ``.ipynb`` here.
    hide_code : bool
        Leave out code cells' input (for analysts' reports).
    progress : bool
        Show a progress bar over cells while the notebook runs.
    cwd : path, optional
        Working directory of the kernel (default: the notebook's folder).

    Raises
    ------
    NotebookError
        When a cell fails; the message names the notebook, the cell and the error.
    """
    import nbformat
    import papermill as pm
    from nbconvert import HTMLExporter

    notebook = Path(notebook)
    out_html = Path(out_html)
    if not notebook.is_file():
        raise FileNotFoundError(f"notebook {notebook.name} does not exist")
    with tempfile.TemporaryDirectory(prefix="precmp-run-") as tmp:
        executed = Path(tmp) / notebook.name
        manager = _run_kernel_manager(Path(tmp))
        try:
            with _kernel_environment(Path(tmp)), _kernel_stopped_on_exit(manager):
                pm.execute_notebook(
                    str(notebook), str(executed), parameters=dict(parameters or {}),
                    cwd=str(cwd or notebook.parent), kernel_name=kernel_name,
                    progress_bar=progress, log_output=False, execution_timeout=timeout,
                    extra_arguments=list(KERNEL_ARGUMENTS),
                    kernel_manager_class=manager,
                )
        except pm.PapermillExecutionError as exc:
            raise NotebookError(f"{notebook.name}: {_error_summary(exc)}".replace(tmp, "<run folder>")) from None
        nb = nbformat.read(executed, as_version=4)
        exporter = HTMLExporter(template_name="lab")
        exporter.exclude_input = hide_code
        exporter.exclude_input_prompt = hide_code
        exporter.exclude_output_prompt = True
        body, _ = exporter.from_notebook_node(nb)
        write_atomic(out_html, body)
        if executed_path is not None:
            write_atomic(Path(executed_path), executed.read_text(encoding="utf-8"))
    return out_html


# The kernel logs only errors: its start-up warnings (e.g. "running over TCP without
# encryption": the kernel listens on 127.0.0.1 only, for this one run) are not the command's.
KERNEL_ARGUMENTS = ("--IPKernelApp.log_level=ERROR",)


def _run_kernel_manager(run_dir: Path) -> type:
    """Make a kernel manager class whose connection file lives in the run's own folder.

    The connection file holds the session's HMAC key; in the run's folder rather than the shared
    temporary folder, removing the run's folder removes it, however the run ends.
    """
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import Unicode

    path = run_dir / "runtime" / "kernel.json"
    started: list = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        AsyncKernelManager.__init__(self, *args, **kwargs)
        started.append(self)

    async def _async_launch_kernel(self, kernel_cmd: list, **kw: Any) -> None:
        # the kernel process's own output (its logs, a traceback while it is being stopped) goes
        # to a log in the run's folder: the command's stderr carries only the command's lines
        with open(run_dir / "runtime" / "kernel.log", "ab") as log:
            kw["stdout"] = kw["stderr"] = log
            await AsyncKernelManager._async_launch_kernel(self, kernel_cmd, **kw)

    return type("RunKernelManager", (AsyncKernelManager,),
                {"connection_file": Unicode(str(path), config=True), "__init__": __init__,
                 "_async_launch_kernel": _async_launch_kernel, "started": started})


@contextlib.contextmanager
def _kernel_stopped_on_exit(manager: Any) -> Iterator[None]:
    """Kill the run's kernel if the run is interrupted (SIGTERM, Ctrl-C, an error).

    The kernel is killed before the run's folder (its working folder) is removed, so it neither
    outlives the command nor writes to its stderr.
    """
    try:
        yield
    except BaseException:
        for km in manager.started:
            process = getattr(getattr(km, "provisioner", None), "process", None)
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        raise


@contextlib.contextmanager
def _kernel_environment(run_dir: Path) -> Iterator[None]:
    """Set the environment of one notebook run while the block runs.

    Jupyter's runtime files go to ``run_dir/runtime``, removed with the run's folder (also on
    SIGTERM and Ctrl-C, which the command turns into exceptions so that the kernel is shut down
    and its connection file, which holds the session's HMAC key, removed); the debugger's
    frozen-modules warning is off.
    """
    runtime = run_dir / "runtime"
    runtime.mkdir(mode=0o700)
    wanted = {"JUPYTER_RUNTIME_DIR": str(runtime), "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    saved = {k: os.environ.get(k) for k in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
