"""The comparison report's page: its template run in this process and written as one HTML file.

``render_report`` writes the page of one comparison (a
:class:`~precmp_lib.compare.base.Comparison`: :class:`~precmp_lib.compare.predictions.ModelComparison`,
:class:`~precmp_lib.compare.items.ItemComparison`) with the template of its route
(:mod:`precmp_lib.compare.routes`). Its template only displays, through the
sections of :mod:`precmp_lib.report.prediction_sections` (:mod:`precmp_lib.report.item_sections` for items), so it runs in
this process (:func:`run_view_notebook`) with no kernel to start. The page is written
atomically: a failure leaves no partial page behind. The course notebooks, which need a kernel
each, are run by :mod:`precmp_lib.report.notebooks`; a failing cell raises the same
:class:`NotebookError` in both.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._lib.atomic import write_atomic
from ..compare.routes import route_named
from .notebooks import NotebookError

__all__ = [
    "NotebookError",
    "executed_notebook",
    "nbconvert_template",
    "page_html",
    "render_report",
    "report_template",
    "run_view_notebook",
]


def report_template(kind: str = "predictions") -> Any:
    """Return a route's report notebook shipped inside the package (an importlib.resources Traversable).

    ``kind`` is the route's name, a comparison's ``kind`` (:mod:`precmp_lib.compare.routes`):
    ``"predictions"`` gives the comparison report, ``"items"`` the report of models compared on
    evaluation items.

    >>> report_template().name, report_template("items").name
    ('prediction_report.ipynb', 'item_report.ipynb')
    """
    from importlib.resources import files

    return files("precmp_lib") / "_resources" / route_named(kind).template


def nbconvert_template() -> Path:
    """Return the nbconvert page template for an executed report notebook.

    It is nbconvert's ``lab`` page without the scripts that page loads from a CDN (require.js,
    MathJax, mermaid): ``jupyter nbconvert --to html --template-file TEMPLATE out.ipynb``
    then writes a page that loads nothing from outside itself.

    >>> nbconvert_template().name
    'report_nbconvert.html.j2'
    """
    return Path(__file__).resolve().parent.parent / "_resources" / "report_nbconvert.html.j2"


def render_report(
    comparison: Any,
    out: str | os.PathLike,
    *,
    quiet: bool = False,
    source_name: str | None = None,
    notebook: str | os.PathLike | None = None,
    notebook_comparison: str | os.PathLike | None = None,
) -> Path:
    """Write the HTML report of a comparison, with the template of its route.

    The page is the report template of the comparison's route (its ``kind``:
    ``precmp_lib/_resources/prediction_report.ipynb`` for predictions, ``item_report.ipynb`` for
    items) run in this
    process by :func:`run_view_notebook`: its cells read the comparison back from a JSON file in
    a temporary folder of this run (``ModelComparison.from_json``, the one codec of every
    comparison) and only display it, so no
    kernel is started and nothing is computed twice. The same template opens in JupyterLab and
    runs there unchanged. The HTML is written atomically: a failure leaves nothing at ``out``.

    Parameters
    ----------
    comparison : ModelComparison or ItemComparison
        From :func:`precmp_lib.compare_models`, or :func:`precmp_lib.compare_items` (the item
        report's template).
    out : path
        The HTML file to write.
    quiet : bool
        No progress bar over the template's cells.
    source_name : str, optional
        How the page names what was read (default: the comparison's ``source_name``).
    notebook : path, optional
        Also write the executed template here: the template's cells with their outputs and a
        cell of injected parameters after the parameters cell, as papermill writes it, so that
        it opens in JupyterLab with its outputs and runs again there.
    notebook_comparison : path, optional
        With ``notebook``: the comparison's JSON file that the notebook's ``comparison_json``
        parameter names (the caller writes it; relative to the notebook's folder when it can
        be). Required with ``notebook``.

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    NotebookError
        When a cell of the template fails; the message names the cell and the error.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from precmp_lib import compare_models
    >>> frame = pd.DataFrame({"y": [0, 1] * 40, "a": [0, 1] * 40, "b": [0, 0, 1, 1] * 20})
    >>> page = render_report(compare_models(frame, y_true="y"), Path(tempfile.mkdtemp()) / "r.html",
    ...                      quiet=True)
    >>> "Accuracy and ranking" in page.read_text(encoding="utf-8")
    True
    """
    if notebook is not None and notebook_comparison is None:
        raise ValueError("notebook_comparison must name the comparison's JSON file when "
                         "notebook is given; got None")
    with tempfile.TemporaryDirectory(prefix="precmp-report-") as tmp:
        data = Path(tmp) / "comparison.json"
        data.write_text(comparison.to_json(), encoding="utf-8")
        params = {"comparison_json": str(data),
                  "source_name": str(source_name if source_name is not None
                                     else comparison.source_name)}
        template = json.loads(report_template(comparison.kind).read_text(encoding="utf-8"))
        title = f"precmp report: {params['source_name']}"
        outputs: dict[int, list[str]] = {}
        try:
            with matplotlib_defaults():
                blocks = run_view_notebook(template, params, progress=not quiet, outputs=outputs)
        except NotebookError as exc:
            raise NotebookError(str(exc).replace(tmp, "<run folder>")) from None
        write_atomic(Path(out), page_html(title, blocks))
    if notebook is not None:
        named = Path(notebook_comparison)  # type: ignore[arg-type]  # checked above
        try:
            named = Path(os.path.relpath(named, Path(notebook).resolve().parent))
        except ValueError:  # another drive: keep the path as given
            pass
        executed = executed_notebook(template, dict(params, comparison_json=str(named)), outputs)
        write_atomic(Path(notebook), json.dumps(executed, indent=1, ensure_ascii=False) + "\n")
    return Path(out)


def executed_notebook(notebook: Mapping[str, Any], parameters: Mapping[str, Any],
                      outputs: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    r"""Return ``notebook`` as executed: each code cell's outputs, the parameters injected.

    The parameters go in a code cell tagged ``injected-parameters`` right after the cell
    tagged ``parameters``, as papermill writes them; each code cell shows its HTML blocks
    (``outputs``, keyed by the cell's index in ``notebook``) as ``display_data``.

    Parameters
    ----------
    notebook : mapping
        The notebook as parsed JSON (nbformat 4), as run.
    parameters : mapping
        The parameter values (literals).
    outputs : mapping of int to sequence of str
        The HTML blocks each cell showed, from :func:`run_view_notebook`.

    Returns
    -------
    dict
        An nbformat 4 notebook.

    Examples
    --------
    >>> nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["parameters"]},
    ...                  "source": "x = 1"}, {"cell_type": "code", "metadata": {}, "source": "x"}],
    ...       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    >>> out = executed_notebook(nb, {"x": 2}, {1: ["<pre>2</pre>"]})
    >>> [c["source"] for c in out["cells"]], out["cells"][2]["outputs"][0]["data"]["text/html"]
    (['x = 1', 'x = 2\n', 'x'], '<pre>2</pre>')
    """
    import copy

    cells: list[dict[str, Any]] = []
    count = 0
    for index, cell in enumerate(notebook.get("cells", [])):
        cell = copy.deepcopy(dict(cell))
        if cell.get("cell_type") == "code":
            count += 1
            cell["execution_count"] = count
            cell["outputs"] = [{"output_type": "display_data", "metadata": {},
                                "data": {"text/html": block, "text/plain": ["<HTML>"]}}
                               for block in outputs.get(index, [])]
        cells.append(cell)
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            count += 1
            cells.append({"cell_type": "code", "execution_count": count,
                          "metadata": {"tags": ["injected-parameters"]}, "outputs": [],
                          "source": "".join(f"{k} = {v!r}\n" for k, v in parameters.items())})
    out = copy.deepcopy(dict(notebook))
    out["cells"] = cells
    out.setdefault("nbformat", 4)
    out.setdefault("nbformat_minor", 5)
    for number, cell in enumerate(cells):
        cell.setdefault("metadata", {})
        if out["nbformat_minor"] >= 5:
            cell.setdefault("id", f"cell-{number}")
    return out


@contextlib.contextmanager
def matplotlib_defaults() -> Iterator[None]:
    """Draw with matplotlib's own settings while the block runs, whatever configures it here.

    matplotlib reads a ``matplotlibrc`` from the working folder (and the user's) when it is
    imported: a file beside the data could make it run LaTeX on the models' names
    (``text.usetex``) or change any figure. The page's figures are drawn from the defaults
    instead, with LaTeX off; the settings are put back after the block.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> mpl.rcParams["text.usetex"] = True
    >>> with matplotlib_defaults():
    ...     mpl.rcParams["text.usetex"]
    False
    >>> mpl.rcParams["text.usetex"]
    True
    >>> mpl.rcParams["text.usetex"] = False
    """
    import matplotlib as mpl

    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams["text.usetex"] = False
        yield


def run_view_notebook(notebook: Mapping[str, Any], parameters: Mapping[str, Any], *,
                      progress: bool = False,
                      outputs: dict[int, list[str]] | None = None) -> list[str]:
    """Run a display-only notebook in this process and return its cells as HTML blocks.

    The notebook is a view: its code cells only call display functions, so they need no kernel
    of their own. Each code cell runs in one shared namespace, as a kernel would run it, with
    ``parameters`` assigned right after the cell tagged ``parameters`` (the values papermill
    would inject). What a cell shows, its last expression's ``_repr_html_`` (or its text for a
    plain value) and anything passed to ``display``, becomes one HTML block; markdown cells are
    rendered to HTML. Code is never shown.

    Parameters
    ----------
    notebook : mapping
        The notebook as parsed JSON (nbformat 4).
    parameters : mapping
        Names and values for the parameters cell; values must be literals (``repr`` round-trips).
    progress : bool
        A progress bar over the cells on stderr.
    outputs : dict, optional
        Filled with the HTML blocks of each code cell, keyed by the cell's index in
        ``notebook`` (what :func:`executed_notebook` writes as the cells' outputs).

    Returns
    -------
    list of str
        One HTML block per cell that shows something, in order.

    Raises
    ------
    NotebookError
        When a cell fails: the message names the cell (its number among the code cells, as
        JupyterLab counts them) and the error.

    Examples
    --------
    >>> nb = {"cells": [
    ...     {"cell_type": "markdown", "source": "# Title"},
    ...     {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "x = 1"},
    ...     {"cell_type": "code", "metadata": {}, "source": "x + 1"}]}
    >>> [block.strip() for block in run_view_notebook(nb, {"x": 41})]
    ['<h1>Title</h1>', '<pre>42</pre>']
    """
    namespace: dict[str, Any] = {"__name__": "__main__"}
    blocks: list[str] = []
    namespace["display"] = lambda *objs: blocks.extend(filter(None, map(_shown_html, objs)))
    cells = list(notebook.get("cells", []))
    bar = _cell_progress(len(cells), progress)
    count = 0
    try:
        for index, cell in enumerate(cells):
            source = _source(cell)
            if cell.get("cell_type") == "markdown":
                blocks.append(_markdown_html(source))
            elif cell.get("cell_type") == "code":
                count += 1
                before = len(blocks)
                shown = _run_cell(source, namespace, count)
                if "parameters" in cell.get("metadata", {}).get("tags", []):
                    _run_cell("".join(f"{k} = {v!r}\n" for k, v in parameters.items()),
                              namespace, count)
                if shown:
                    blocks.append(shown)
                if outputs is not None:
                    outputs[index] = blocks[before:]
            bar.update(1)
    finally:
        bar.close()
    return blocks


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _run_cell(source: str, namespace: dict[str, Any], number: int) -> str:
    """Execute one code cell; the HTML of its last expression's value ('' when it has none)."""
    import ast

    try:
        tree = ast.parse(source, filename=f"<cell [{number}]>")
        final = tree.body[-1] if tree.body else None
        if isinstance(final, ast.Expr):
            tree.body.pop()
        exec(compile(tree, f"<cell [{number}]>", "exec"), namespace)
        if not isinstance(final, ast.Expr):
            return ""
        value = eval(compile(ast.Expression(final.value), f"<cell [{number}]>", "eval"), namespace)
    except Exception as exc:
        raise NotebookError(f"report template: {type(exc).__name__} in cell [{number}]: {exc}") from exc
    return _shown_html(value)


def _shown_html(value: Any) -> str:
    """Return what a notebook would show for ``value``: its HTML, else its text (escaped)."""
    import html

    if value is None:
        return ""
    if hasattr(value, "_repr_html_"):
        shown = value._repr_html_()
        if shown is not None:
            return str(shown)
    return f"<pre>{html.escape(repr(value))}</pre>"


def _markdown_html(text: str) -> str:
    """Markdown of the template (the project's own text, never user input) as HTML."""
    import mistune

    return str(mistune.html(text))


class _NoBar:
    def update(self, n: int) -> None:
        """Advance nothing."""

    def close(self) -> None:
        """Close nothing."""


def _cell_progress(total: int, show: bool) -> Any:
    if not show:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="report", unit="cell", file=sys.stderr, leave=False)


PAGE_CSS = """<style>
body{margin:0;background:#fff;color:#222;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}
main{max-width:1180px;margin:0 auto;padding:1.2rem 1.6rem 3rem}
main>h1{font-size:1.9rem;margin:.4rem 0 .6rem}
main>p{max-width:62rem;margin:.35rem 0}
main code{font-size:.92em;background:#f3f3f3;padding:0 .2em;border-radius:3px}
@media print{main{max-width:none;padding:0}}
</style>"""


def page_html(title: str, blocks: Sequence[str]) -> str:
    """One self-contained HTML document: ``blocks`` in order under ``title`` (escaped as the page's text).

    >>> page = page_html("a <b> report", ["<p>hi</p>"])
    >>> "<title>a &lt;b&gt; report</title>" in page and "<p>hi</p>" in page
    True
    """
    from .html import esc

    body = "\n".join(blocks)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n{PAGE_CSS}\n</head>\n<body>\n<main>\n{body}\n"
            "</main>\n</body>\n</html>\n")
