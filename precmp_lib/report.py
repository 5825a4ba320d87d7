"""Running notebooks into HTML reports: the course site (``make report``) and single reports.

``render_notebook`` executes one notebook with papermill and writes one self-contained HTML file
(plots embedded), atomically: a failure leaves no partial report behind. ``build_site`` renders
every notebook in ``notebooks/`` and writes an ``index.html`` listing each with its question.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._files import write_atomic

__all__ = [
    "NotebookError",
    "accuracy_table",
    "accuracy_tests",
    "build_site",
    "class_summary",
    "combined_across_classes",
    "conclusions",
    "model_pairs",
    "notebook_question",
    "pairwise_precision",
    "precision_table",
    "prevalence_table",
    "render_notebook",
    "save_results",
    "styled",
]

ROOT = Path(__file__).resolve().parent.parent
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
    _atomic_write(path, json.dumps(_jsonable(results), indent=2, allow_nan=False) + "\n")
    return path


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def notebook_question(path: str | os.PathLike) -> tuple[str, str]:
    """The title (first ``# `` heading) and one-line question (line starting ``**Question``).

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
        try:
            with _kernel_environment(Path(tmp)):
                pm.execute_notebook(
                    str(notebook), str(executed), parameters=dict(parameters or {}),
                    cwd=str(cwd or notebook.parent), kernel_name=kernel_name,
                    progress_bar=progress, log_output=False, execution_timeout=timeout,
                    extra_arguments=list(KERNEL_ARGUMENTS),
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


@contextlib.contextmanager
def _kernel_environment(run_dir: Path) -> Iterator[None]:
    """Environment of one notebook run: Jupyter's runtime files go to ``run_dir/runtime``,
    removed with the run's folder (also on SIGTERM and Ctrl-C, which the command turns into
    exceptions so that the kernel is shut down and its connection file, which holds the
    session's HMAC key, removed); the debugger's frozen-modules warning is off."""
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


@dataclass
class _Rendered:
    name: str
    title: str
    question: str
    seconds: float


_INDEX_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.5}
h1{margin-bottom:.2rem}.sub{color:#555;margin-top:0}
table{border-collapse:collapse;width:100%}td,th{padding:.45rem .6rem;border-bottom:1px solid #ddd;
text-align:left;vertical-align:top}th{background:#f4f6f8}a{color:#0072B2;text-decoration:none}
a:hover{text-decoration:underline}.t{color:#777;font-size:.85em;white-space:nowrap}
"""


def _write_index(out_dir: Path, rendered: Sequence[_Rendered], extra: Sequence[_Rendered]) -> Path:
    def rows(items: Sequence[_Rendered]) -> str:
        return "".join(
            f"<tr><td><a href='{html.escape(r.name)}.html'>{html.escape(r.title)}</a></td>"
            f"<td>{html.escape(r.question)}</td><td class='t'>{r.seconds:.0f} s</td></tr>"
            for r in items
        )

    head = "<tr><th>Notebook</th><th>The question it answers</th><th>Run time</th></tr>"
    reports = ""
    if extra:
        reports = f"<h2>Reports on example predictions</h2><table>{head}{rows(extra)}</table>"
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<title>precmp — reports</title>"
        f"<style>{_INDEX_CSS}</style></head><body>"
        "<h1>precmp</h1><p class='sub'>Statistical comparison of classifiers: the course notebooks, "
        "run with their default parameters.</p>"
        f"<h2>Notebooks</h2><table>{head}{rows(rendered)}</table>{reports}</body></html>\n"
    )
    path = out_dir / "index.html"
    _atomic_write(path, page)
    return path


def build_site(
    out_dir: str | os.PathLike = "build/reports",
    *,
    notebooks: Sequence[str] | None = None,
    parameters: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Render every course notebook (or the named ones) into ``out_dir`` with an ``index.html``.

    Each notebook gets ``output_dir = out_dir/results/<name>`` for its ``results.json``. The
    report template ``report.ipynb`` is rendered on each example predictions file registered in
    ``data/examples.csv`` when that file exists. Raises :class:`NotebookError` naming the first
    notebook that fails.
    """
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    paths = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if notebooks:
        wanted = set(notebooks)
        paths = [p for p in paths if p.stem in wanted or p.name in wanted]
    parameters = parameters or {}
    rendered: list[_Rendered] = []
    for p in paths:
        title, question = notebook_question(p)
        missing = _missing_requirement(p)
        if missing:
            print(f"skipping {p.name}: {missing}", flush=True)
            _atomic_write(out / f"{p.stem}.html", _placeholder_page(title, question, missing))
            rendered.append(_Rendered(p.stem, title, f"{question} (not run here: {missing})", 0.0))
            continue
        print(f"rendering {p.name} ...", flush=True)
        start = time.perf_counter()
        # relative to the notebook's folder (the kernel's working directory), so the rendered
        # parameters cell shows a path that means something on any machine
        results = os.path.relpath(out / "results" / p.stem, p.parent)
        params = {"output_dir": results, **parameters.get(p.stem, {})}
        render_notebook(p, out / f"{p.stem}.html", parameters=params,
                        executed_path=out / "executed" / p.name)
        seconds = time.perf_counter() - start
        print(f"  {p.stem}.html written in {seconds:.0f} s", flush=True)
        rendered.append(_Rendered(p.stem, title, question, seconds))
    extra = _render_examples(out)
    return _write_index(out, rendered, extra)


def _missing_requirement(path: Path) -> str:
    """Why a notebook cannot run here ("" when it can): notebooks whose metadata says
    ``{"precmp": {"requires": "uci"}}`` need the paper's UCI datasets."""
    meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("precmp", {})
    if meta.get("requires") == "uci":
        from .data import available_datasets, list_datasets

        reg = list_datasets()
        uci = reg.loc[reg["loader"] == "uci", "name"].tolist()
        if available_datasets(uci, quiet=True) != uci:
            return "it needs the UCI datasets: run `make data` or set PRECMP_DATA_MIRROR"
    return ""


def _placeholder_page(title: str, question: str, reason: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_INDEX_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p><strong>Question:</strong> {html.escape(question)}</p>"
        f"<p>This notebook was not run: {html.escape(reason)}, then run <code>make report</code> "
        "again.</p><p><a href='index.html'>Back to the index</a></p></body></html>\n"
    )


def _render_examples(out: Path) -> list[_Rendered]:
    """Render the report template on the shipped example prediction files, when both exist."""
    registry = ROOT / "data" / "examples.csv"
    template = NOTEBOOKS / "report.ipynb"
    if not (registry.is_file() and template.is_file()):
        return []
    import pandas as pd

    from .__main__ import report_parameters

    done = []
    for row in pd.read_csv(registry, keep_default_na=False).to_dict(orient="records"):
        name = f"report_{row['name']}"
        print(f"rendering {name} ...", flush=True)
        start = time.perf_counter()
        params = report_parameters(row)
        params["output_dir"] = str(out / "results" / name)
        render_notebook(template, out / f"{name}.html", parameters=params, hide_code=True)
        seconds = time.perf_counter() - start
        done.append(_Rendered(name, f"Report: {row['name']}", str(row.get("description", "")), seconds))
    return done


# --------------------------------------------------------------------------------------------
# analysis helpers of the report template (pure functions of a Predictions object)
# --------------------------------------------------------------------------------------------


def class_summary(preds: Any) -> pd.DataFrame:
    """Per class: how many rows truly belong to it and how many each model predicts.

    Parameters
    ----------
    preds : Predictions
        From :func:`precmp_lib.predictions.read_predictions`.

    Returns
    -------
    DataFrame indexed by class with ``n_true`` and one ``n_pred_<model>`` column per model.
    """
    k = len(preds.classes)
    out = pd.DataFrame({"n_true": np.bincount(preds.codes_true, minlength=k)},
                       index=pd.Index(preds.classes, name="class"))
    for name, codes in preds.codes.items():
        out[f"n_pred_{name}"] = np.bincount(codes, minlength=k)
    return out


def accuracy_table(preds: Any, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """Accuracy of each model with a Wilson score interval (rows treated as independent).

    Returns a DataFrame with ``model``, ``accuracy``, ``ci_low``, ``ci_high``, ``n``, sorted by
    accuracy (best first).
    """
    from statsmodels.stats.proportion import proportion_confint

    rows = []
    for name, codes in preds.codes.items():
        correct = int(np.count_nonzero(codes == preds.codes_true))
        lo, hi = proportion_confint(correct, preds.n_rows, alpha=1 - confidence_level, method="wilson")
        rows.append({"model": name, "accuracy": correct / preds.n_rows, "ci_low": lo, "ci_high": hi,
                     "n": preds.n_rows})
    return pd.DataFrame(rows).sort_values("accuracy", ascending=False, kind="stable").reset_index(drop=True)


def model_pairs(models: Sequence[str], reference: str | None = None) -> list[tuple[str, str]]:
    """Every pair of models, or each model against ``reference``.

    >>> model_pairs(["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> model_pairs(["a", "b", "c"], reference="b")
    [('a', 'b'), ('c', 'b')]
    """
    from itertools import combinations

    models = list(models)
    if reference is None:
        return list(combinations(models, 2))
    if reference not in models:
        raise ValueError(f"reference must be one of the models {models}; got {reference!r}")
    return [(m, reference) for m in models if m != reference]


def pairwise_precision(
    preds: Any,
    pairs: Sequence[tuple[str, str]],
    *,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Per-class precision tests (GS, WGS, GEE Wald, RP) for each pair, Holm-adjusted across classes.

    Returns the rows of :func:`precmp_lib.precision.compare_precision` for every pair, with
    ``model_a`` and ``model_b`` in front and ``gs_pvalue_holm`` (Holm across the classes of
    the pair) added.
    """
    from .multiple import adjust_pvalues
    from .precision import compare_precision

    frames = []
    for a, b in pairs:
        tab = compare_precision(preds.codes_true, preds.codes[a], preds.codes[b],
                                confidence_level=confidence_level, labels=range(len(preds.classes)))
        tab["class"] = preds.classes[tab["class"].to_numpy().astype(int)]
        tab.insert(0, "model_b", b)
        tab.insert(0, "model_a", a)
        tab["gs_pvalue_holm"] = adjust_pvalues(tab["gs_pvalue"].to_numpy(), "holm")
        frames.append(tab)
    return pd.concat(frames, ignore_index=True)


def _confusions(preds: Any) -> np.ndarray:
    """Confusion counts of every model, shape (m, K, K) indexed [model, true, predicted]:
    one bincount per model, from which precision, sensitivity and specificity all follow."""
    k = len(preds.classes)
    truth = preds.codes_true.astype(np.int64) * k
    return np.stack([np.bincount(truth + codes, minlength=k * k).reshape(k, k)
                     for codes in preds.codes.values()])


def precision_table(preds: Any) -> pd.DataFrame:
    """Precision of every model for every class (NaN where a model never predicts the class).

    Returns a DataFrame indexed by class with one column per model.
    """
    from .bayes import _rates

    _, _, precision = _rates(_confusions(preds))
    return pd.DataFrame(precision.T, index=pd.Index(preds.classes, name="class"),
                        columns=list(preds.codes))


def accuracy_tests(
    preds: Any, pairs: Sequence[tuple[str, str]], *, alpha: float = 0.05
) -> tuple[pd.DataFrame | None, Any]:
    """Exact McNemar for the given pairs (Holm-adjusted over them) and Cochran's Q for all models.

    Returns ``(pairs_table, cochran_result)``; Cochran's Q is None for two models, and both are
    None when rows repeat observations (``preds.groups`` set), where these tests do not apply.
    """
    from .contingency import cochrans_q, pairwise_mcnemar
    from .multiple import adjust_pvalues

    if preds.groups is not None:
        return None, None
    truth = preds.codes_true
    correct = pd.DataFrame({m: (c == truth).astype(np.int8) for m, c in preds.codes.items()})
    table = pairwise_mcnemar(None, correct=correct, alpha=alpha)
    wanted = {frozenset(p) for p in pairs}
    keep = [frozenset((a, b)) in wanted for a, b in zip(table.model_a, table.model_b)]
    table = table.loc[keep].reset_index(drop=True)
    table["pvalue_holm"] = adjust_pvalues(table["pvalue"].to_numpy(), "holm")
    table["pvalue_bonferroni"] = adjust_pvalues(table["pvalue"].to_numpy(), "bonferroni")
    table["reject_holm"] = table["pvalue_holm"] <= alpha
    cochran = cochrans_q(correct) if correct.shape[1] > 2 else None
    return table, cochran


def combined_across_classes(
    preds: Any,
    per_class: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    *,
    n_resamples: int = 1000,
    random_state: int | None = 0,
) -> pd.DataFrame:
    """One p-value per pair across all classes: Dai–Cui with the swap-permutation null, and Simes.

    Returns a DataFrame with ``model_a``, ``model_b``, ``dai_cui_pvalue``, ``simes_pvalue``,
    ``fisher_independent_pvalue`` (shown for contrast: it wrongly assumes independence) and
    ``n_classes`` (classes with a defined GS p-value).
    """
    from .combine import combine_pvalues, combined_precision_test

    rows = []
    for a, b in pairs:
        block = per_class[(per_class.model_a == a) & (per_class.model_b == b)]
        p = block["gs_pvalue"].dropna().to_numpy()
        dai = combined_precision_test(preds.codes_true, preds.codes[a], preds.codes[b],
                                      method="dai_cui", n_resamples=n_resamples,
                                      random_state=random_state)
        rows.append({
            "model_a": a, "model_b": b, "dai_cui_pvalue": dai.pvalue,
            "simes_pvalue": combine_pvalues(p, method="simes").pvalue if len(p) else np.nan,
            "fisher_independent_pvalue": combine_pvalues(p, method="fisher").pvalue if len(p) else np.nan,
            "n_classes": len(p),
        })
    return pd.DataFrame(rows)


def prevalence_table(preds: Any, prevalence: Mapping[Any, float]) -> pd.DataFrame:
    """Precision of each model for each named class, updated to the class's population prevalence.

    Sensitivity and specificity are one-vs-rest rates on these predictions, from the models'
    confusion counts; the update is seed eq 28
    (:func:`precmp_lib.bayes.prevalence_adjusted_precision`). Where the update is undefined
    (the class absent from the truth, or never predicted) the row holds NaN.
    """
    from .bayes import _rates, prevalence_adjusted_precision

    enc = preds.encoded()
    confusion = _confusions(preds)
    se, sp, precision = _rates(confusion)
    test_prevalence = confusion[0].sum(axis=1) / preds.n_rows
    rows = []
    for label, prev in prevalence.items():
        code = enc.code(label, "prevalence class")
        for j, name in enumerate(enc.names):
            try:
                adjusted = float(prevalence_adjusted_precision(se[j, code], sp[j, code], prev))
            except ValueError:
                adjusted = np.nan
            rows.append({"class": enc.label(code), "model": name, "prevalence": prev,
                         "test_set_prevalence": float(test_prevalence[code]),
                         "precision_test_set": float(precision[j, code]),
                         "precision_at_prevalence": adjusted})
    return pd.DataFrame(rows)


def styled(frame: pd.DataFrame | None, *, digits: int = 4) -> Any:
    """A table for display: numbers to ``digits`` decimals, text columns such as ``note``
    left-aligned on one line (the table scrolls sideways rather than growing tall rows).
    None stays None."""
    if frame is None:
        return None
    text = [c for c in frame.columns if c in ("note", "conclusion")]
    sty = frame.style.format(precision=digits, na_rep="")
    pcols = [c for c in frame.columns if "pvalue" in str(c)]
    if pcols:  # small p-values keep their magnitude instead of printing as 0.0000
        sty = sty.format(lambda v: "" if pd.isna(v) else f"{v:.2e}" if v < 1e-3 else f"{v:.{digits}f}",
                         subset=pcols)
    if text:
        sty = sty.set_properties(subset=text, **{"text-align": "left", "white-space": "nowrap"})
    return sty.hide(axis="index")


def _fmt_p(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}" if p < 0.01 else f"p = {p:.3f}"


def conclusions(
    *,
    accuracy: pd.DataFrame,
    mcnemar: pd.DataFrame | None,
    cochran: Any,
    per_class: pd.DataFrame | None,
    combined: pd.DataFrame | None,
    gee_joint: pd.DataFrame,
    alpha: float = 0.05,
) -> list[str]:
    """Plain-language sentences that summarise the report's tests.

    Every sentence is derived from the tables passed in; nothing is asserted that a test did not
    show. Decisions use ``alpha`` after the adjustments the tables carry (Holm).
    """
    lines = []
    best = accuracy.iloc[0]
    acc = ", ".join(f"{r.model} {r.accuracy:.3f}" for r in accuracy.itertuples())
    lines.append(f"Accuracy: {acc}; {best.model} is highest.")
    if cochran is not None:
        verdict = "differ" if cochran.pvalue <= alpha else "are not shown to differ"
        lines.append(f"Cochran's Q: the models' accuracies {verdict} "
                     f"(Q = {cochran.statistic:.2f}, {_fmt_p(cochran.pvalue)}).")
    if mcnemar is not None and len(mcnemar):
        sig = mcnemar[mcnemar.reject_holm]
        if len(sig):
            pairs = "; ".join(
                f"{(r.model_a if r.b > r.c else r.model_b)} beats "
                f"{(r.model_b if r.b > r.c else r.model_a)} ({_fmt_p(r.pvalue_holm)})"
                for r in sig.itertuples())
            lines.append(f"McNemar (exact, Holm-adjusted): {pairs}.")
        else:
            lines.append("McNemar (exact, Holm-adjusted): no pair of models differs in accuracy at "
                         f"the {alpha:g} level.")
    if per_class is not None and len(per_class):
        sig = per_class[per_class.gs_pvalue_holm <= alpha]
        if len(sig):
            worst = sig.loc[(np.log(sig.rp.astype(float)).abs()).idxmax()] if sig.rp.notna().any() else sig.iloc[0]
            lines.append(
                f"Precision per class: {len(sig)} of {len(per_class)} class comparisons differ "
                f"(GS, Holm across classes); the largest is class {worst['class']!s}: "
                f"{worst.model_a} {worst.precision_a:.3f} vs {worst.model_b} {worst.precision_b:.3f} "
                f"(RP {worst.rp:.3f}, CI {worst.rp_ci_low:.3f}-{worst.rp_ci_high:.3f}).")
        else:
            lines.append("Precision per class: no class shows a difference between any compared pair "
                         "(GS, Holm across classes).")
    if combined is not None and len(combined):
        for r in combined.itertuples():
            verdict = "differ in precision for at least one class" if r.dai_cui_pvalue <= alpha \
                else "are not shown to differ in precision for any class"
            lines.append(f"{r.model_a} and {r.model_b} {verdict} (Dai–Cui combined test with "
                         f"swap-permutation dependence, {_fmt_p(r.dai_cui_pvalue)}; Simes "
                         f"{_fmt_p(r.simes_pvalue)}).")
    joint = gee_joint.dropna(subset=["pvalue"])
    if len(joint):
        sig = joint[joint.pvalue <= alpha]
        classes = ", ".join(str(c) for c in sig["class"])
        lines.append(f"GEE (all models at once): precision differs among the models for "
                     f"{len(sig)} of {len(joint)} classes" + (f" ({classes})." if len(sig) else "."))
    return lines


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m precmp_lib.report")
    sub = parser.add_subparsers(dest="command", required=True)
    site = sub.add_parser("build-site", help="render every notebook and an index.html")
    site.add_argument("--out", default="build/reports")
    site.add_argument("--only", nargs="*", help="notebook names (default: all)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        index = build_site(args.out, notebooks=args.only)
    except NotebookError as exc:
        print(f"make report failed: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {index} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
