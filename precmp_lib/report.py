"""Running notebooks into HTML reports: the course site (``make report``) and single reports.

``render_notebook`` executes one notebook with papermill and writes one self-contained HTML file
(plots embedded), atomically: a failure leaves no partial report behind. The course site
(``make report``) is built by :mod:`precmp_lib.site`.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "NotebookError",
    "accuracy_table",
    "accuracy_tests",
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
        raise FileNotFoundError(f"notebook {notebook} does not exist")
    with tempfile.TemporaryDirectory(prefix="precmp-run-") as tmp:
        executed = Path(tmp) / notebook.name
        try:
            pm.execute_notebook(
                str(notebook), str(executed), parameters=dict(parameters or {}),
                cwd=str(cwd or notebook.parent), kernel_name=kernel_name,
                progress_bar=progress, log_output=False, execution_timeout=timeout,
            )
        except pm.PapermillExecutionError as exc:
            raise NotebookError(f"{notebook.name}: {_error_summary(exc)}") from None
        nb = nbformat.read(executed, as_version=4)
        exporter = HTMLExporter(template_name="lab")
        exporter.exclude_input = hide_code
        exporter.exclude_input_prompt = hide_code
        exporter.exclude_output_prompt = True
        body, _ = exporter.from_notebook_node(nb)
        _atomic_write(out_html, body)
        if executed_path is not None:
            Path(executed_path).parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(Path(executed_path), executed.read_text(encoding="utf-8"))
    return out_html


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
    """``python -m precmp_lib.report build-site``: kept for old scripts; the site lives in
    :mod:`precmp_lib.site`."""
    from .site import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(_main())
