"""The report page's figures: PNG as data URIs, text drawn into the image, alt text escaped."""

from __future__ import annotations

import base64
import io
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..compare.models import ModelComparison
from .html import _BIDI_CONTROLS, BETTER, DIVERGING, NOT_SHOWN, REFERENCE, SEQUENTIAL, WORSE, esc

__all__ = ['model_colours']


# plots (PNG as data: URIs; text drawn into the image, alt text escaped)
# --------------------------------------------------------------------------------------------


def _mpl(text: Any, width: int = 40) -> str:
    r"""Fit plot text on one line of at most ``width`` characters, math mode off.

    ``$`` is escaped so matplotlib never reads it as math, and bidirectional controls show as
    U+FFFD instead of reordering the line, as on the rest of the page; the tables carry the full
    names.

    Examples
    --------
    >>> _mpl("x‮evil vs $a$") == r"x�evil vs \$a\$"
    True
    """
    text = " ".join(str(text).translate(_BIDI_CONTROLS).split())
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.replace("$", r"\$")


# What the page says under a plot whose labels hold characters that the plotting font lacks
# (matplotlib draws them as boxes and warns; the warning is this line instead).
MISSING_GLYPHS = ("Some labels hold characters that the plotting font lacks: the plot draws "
                  "them as boxes, and the tables give them in full.")


# Resolution of the page's figures (pixels per inch of their figsize).
PAGE_DPI = 110


def _lay_out_once(fig: Any) -> None:
    """Fix a constrained layout before the figure is saved, so that it is computed once.

    ``savefig`` of a figure with a layout engine draws it twice (an unrendered draw, then the
    real one) and lays it out on each: text measured four times over. Laid out here on the
    canvas that saves it, at the saving resolution, the figure keeps the same positions
    (the pixels are the same) and is drawn once.
    """
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    engine = fig.get_layout_engine()
    if engine is None or getattr(fig.canvas, "manager", None) is not None:
        return  # a figure of pyplot's keeps its canvas; savefig lays it out as usual
    fig.set_dpi(PAGE_DPI)
    FigureCanvasAgg(fig)  # one canvas, one renderer: the text measured here is reused
    engine.execute(fig)
    with mpl.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)


def _figure_html(fig: Any, alt: str) -> str:
    buf = io.BytesIO()
    # Constrained layout already fits a figure whose axes stretch; only axes of fixed aspect
    # (the heatmaps) leave margins worth cropping, which costs a second draw of the figure.
    tight = any(ax.get_aspect() != "auto" for ax in fig.axes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if not tight:
            _lay_out_once(fig)
        fig.savefig(buf, format="png", dpi=PAGE_DPI, bbox_inches="tight" if tight else None)
    glyphs = [w for w in caught if "missing from font" in str(w.message)]
    for w in caught:  # any other warning goes on as it came
        if w not in glyphs:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    note = f'<p class="meta">{MISSING_GLYPHS}</p>' if glyphs else ""
    return f'<p><img src="data:image/png;base64,{data}" alt="{esc(alt)}"></p>{note}'


def _subplots(**kwargs: Any) -> tuple[Any, Any]:
    """Make a figure and its one axes outside pyplot.

    No global state is touched: the page can be made inside a user's notebook or program
    without changing their matplotlib backend or leaving figures open.
    """
    from matplotlib.figure import Figure

    fig = Figure(**kwargs)
    return fig, fig.subplots()


def _interval_plot(labels: Sequence[str], est: Any, lo: Any, hi: Any, colors: Sequence[str], *,
                   xlabel: str, legend: Sequence[tuple[str, str]], ref: float | None = None,
                   ratio: bool = False) -> Any:
    """Points with horizontal intervals, one row per label (top row first), with a legend.

    ``legend`` holds (colour, meaning) pairs; those of the colours drawn are shown.
    """
    from matplotlib.lines import Line2D

    n = len(labels)
    fig, ax = _subplots(figsize=(7.5, 1.3 + 0.3 * n), layout="constrained")
    y = np.arange(n)[::-1]
    ax.hlines(y, lo, hi, color=colors, lw=2.2)
    ax.scatter(est, y, color=colors, zorder=3, s=26)
    if ref is not None:
        ax.axvline(ref, color=REFERENCE, lw=.8)
    ax.set_yticks(y, [_mpl(v, 60) for v in labels])
    ax.set_ylim(-0.6, n - 0.4)
    if ratio:
        _ratio_axis(ax, np.nanmin(np.asarray(lo, float)), np.nanmax(np.asarray(hi, float)))
    ax.set_xlabel(_mpl(xlabel, 120))
    ax.grid(axis="x", alpha=.4)
    ax.grid(axis="y", visible=False)
    used = set(colors)
    handles = [Line2D([], [], color=c, marker="o", lw=2.2, label=_mpl(text, 100))
               for c, text in legend if c in used]
    fig.legend(handles=handles, loc="outside lower center", ncol=1, fontsize=8, frameon=False)
    return fig


def _ratio_axis(ax: Any, low: float, high: float) -> None:
    """Set a ratio axis with enough labelled ticks: linear when the range is narrow, else log."""
    from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator, ScalarFormatter

    if high / max(low, 1e-12) < 4:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=8))
        return
    ax.set_xscale("log")
    ticks = [t for t in (0.05, 0.1, 0.2, 0.33, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3, 5, 10, 20)
             if low / 1.2 <= t <= high * 1.2]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_locator(NullLocator())


def model_colours(cmp: ModelComparison) -> dict[str, tuple[str, str]]:
    """Return the colour and its meaning of each model, as every plot of the page draws it.

    Every pair: the best group in blue, the models shown less accurate than the most accurate
    one in vermillion. Against a reference: the reference in black, then blue, grey or
    vermillion for shown more accurate, not shown to differ, shown less accurate than it.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    dict
        Model name to (colour, meaning).

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import compare_models
    >>> df = pd.DataFrame({"y": [0, 1] * 40, "a": [0, 1] * 40, "b": [0, 0, 1, 1] * 20})
    >>> model_colours(compare_models(df, y_true="y"))["b"][0] == WORSE
    True
    """
    if cmp.reference is None:
        top = cmp.best[0]
        return {m: (BETTER, f"best group: {top} and the models not shown less accurate "
                            "than it") if m in cmp.best
                else (WORSE, f"shown less accurate than {top} after Holm's adjustment")
                for m in cmp.models}
    ref = cmp.reference
    out = {ref: (REFERENCE, f"the reference, {ref}")}
    for r in cmp.pairs.itertuples():
        out[r.model_a] = _against_reference(bool(r.reject), float(r.estimate), ref)
    return out


def _against_reference(reject: bool, estimate: float, ref: str) -> tuple[str, str]:
    if not reject:
        return NOT_SHOWN, f"not shown to differ from {ref} after Holm's adjustment"
    if estimate > 0:
        return BETTER, f"shown more accurate than {ref} after Holm's adjustment"
    return WORSE, f"shown less accurate than {ref} after Holm's adjustment"


def _legend_of(colours: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Return the distinct (colour, meaning) pairs in the order blue, grey, red, black."""
    order = {BETTER: 0, NOT_SHOWN: 1, WORSE: 2, REFERENCE: 3}
    return sorted(dict.fromkeys(colours), key=lambda cm: order.get(cm[0], 9))


def ranking_plot(cmp: ModelComparison) -> Any:
    """Accuracy of each model with its interval, in the models' order, coloured by decision."""
    s = cmp.summary
    colours = model_colours(cmp)
    shown = [colours[m] for m in s["model"]]
    return _interval_plot(list(s["model"]), s["accuracy"], s["ci_low"], s["ci_high"],
                          [c for c, _ in shown], legend=_legend_of(shown),
                          xlabel=f"accuracy with {100 * (1 - cmp.alpha):g} % interval")


def pair_colours(cmp: ModelComparison) -> list[tuple[str, str]]:
    """Colour and meaning of each row of the pairs table (blue, grey, or vermillion)."""
    out = []
    for r in cmp.pairs.itertuples():
        if not r.reject:
            out.append((NOT_SHOWN, "not shown to differ after Holm's adjustment"))
        elif r.estimate > 0:
            out.append((BETTER, "the first model is shown more accurate after Holm's adjustment"))
        else:
            out.append((WORSE, "the first model is shown less accurate after Holm's adjustment"))
    return out


def pairs_forest(cmp: ModelComparison) -> Any:
    """Accuracy difference A − B of each pair with its interval, coloured by the Holm decision."""
    p = cmp.pairs
    shown = pair_colours(cmp)
    return _interval_plot([f"{a} − {b}" for a, b in zip(p["model_a"], p["model_b"])],
                          p["estimate"], p["ci_low"], p["ci_high"], [c for c, _ in shown],
                          legend=_legend_of(shown),
                          xlabel="accuracy difference A − B, unadjusted interval", ref=0.0)


def _cell_values(ax: Any, values: np.ndarray, norm: Any, cmap: Any, fmt: str,
                 fontsize: float) -> None:
    """Print each cell's value on a heat map, dark text on light cells, light on dark."""
    for (i, j), v in np.ndenumerate(values):
        if np.isfinite(v):
            r, g, b, _ = cmap(norm(v))
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=fontsize,
                    color="white" if dark else "black")
        else:
            ax.text(j, i, "–", ha="center", va="center", fontsize=fontsize, color="#555")


def _dot_legend(fig: Any, text: str) -> None:
    from matplotlib.lines import Line2D

    fig.legend(handles=[Line2D([], [], color=REFERENCE, marker="o", lw=0, markersize=5,
                               label=text)],
               loc="outside lower center", fontsize=8, frameon=False)


def pairs_matrix(cmp: ModelComparison) -> Any:
    """Plot the model x model matrix of accuracy differences (row minus column).

    A dot marks the pairs that differ after Holm's adjustment; up to 15 models, each cell
    prints its difference. Blue: the row model is more accurate.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    matplotlib.figure.Figure
        The heatmap.
    """
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    order = list(cmp.models)
    m = len(order)
    pos = {name: i for i, name in enumerate(order)}
    diff = np.full((m, m), np.nan)
    sig = np.zeros((m, m), dtype=bool)
    for r in cmp.pairs.itertuples():
        i, j = pos[r.model_a], pos[r.model_b]
        diff[i, j], diff[j, i] = r.estimate, -r.estimate
        sig[i, j] = sig[j, i] = bool(r.reject)
    size = min(13.0, 2.5 + 0.34 * m)
    fig, ax = _subplots(figsize=(size + 1.5, size + 0.5), layout="constrained")
    lim = np.nanmax(np.abs(diff)) if np.isfinite(diff).any() else 1.0
    norm, cmap = Normalize(-lim, lim), colormaps[DIVERGING]
    im = ax.imshow(diff, cmap=cmap, norm=norm)
    if m <= 15:
        _cell_values(ax, diff, norm, cmap, "+.3f", 7)
    yy, xx = np.nonzero(sig)
    ax.scatter(xx + .32, yy - .32, s=10 if m > 15 else 18, color=REFERENCE, marker="o")
    labels = [_mpl(v) for v in order]
    ax.set_xticks(range(m), labels, rotation=60, ha="right", rotation_mode="anchor",
                  fontsize=8 if m > 15 else 10)
    ax.set_yticks(range(m), labels, fontsize=8 if m > 15 else 10)
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=.6, label="accuracy of row − column (blue: row higher)")
    _dot_legend(fig, "the pair differs after Holm's adjustment")
    return fig


def precision_heatmap(cmp: ModelComparison) -> Any:
    """Precision of every model (columns) for every class (rows), each cell's value printed.

    The colour scale spans the data's range, not 0 to 1, so that close precisions differ.
    """
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    table = cmp.precision.set_index("class")
    values = table.to_numpy(float)
    k, m = table.shape
    fig, ax = _subplots(figsize=(min(13, 3 + 0.9 * m), max(2.6, 1.2 + 0.3 * k)),
                        layout="constrained")
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.005, high + 0.005
    norm, cmap = Normalize(low, high), colormaps[SEQUENTIAL]
    im = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
    _cell_values(ax, values, norm, cmap, ".2f" if high - low > 0.02 else ".3f",
                 8 if k * m <= 300 else 6)
    ax.set_xticks(range(m), [_mpl(v) for v in table.columns], rotation=40, ha="right",
                  rotation_mode="anchor")
    ax.set_yticks(range(k), [_mpl(v) for v in table.index])
    ax.grid(False)
    # two short lines: one long label ran past a figure of few classes (5 classes: cut off)
    fig.colorbar(im, ax=ax, shrink=.9, label="precision\n(scale: lowest to highest)")
    return fig


def rp_forest(cmp: ModelComparison) -> Any:
    """Plot relative precision A / B per class and pair with its interval.

    Points are coloured by the adjusted decision (GS test, Holm across classes x pairs).

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    matplotlib.figure.Figure
        The forest plot.
    """
    block = cmp.per_class.dropna(subset=["rp"])
    pairs = list(zip(block["model_a"], block["model_b"]))
    several = len(set(pairs)) > 1
    # with several pairs, each pair is named once, on its first class: the rows below it
    # are its other classes (a grouped list reads faster than the pair repeated on each row)
    labels = [f"{a} / {b}: {c}" if several and (i == 0 or pairs[i - 1] != (a, b)) else str(c)
              for i, (c, (a, b)) in enumerate(zip(block["class"], pairs))]
    shown = rp_colours(block, cmp.alpha)
    pair = "" if several else f" {block['model_a'].iloc[0]} / {block['model_b'].iloc[0]}"
    fig = _interval_plot(labels, block["rp"], block["rp_ci_low"], block["rp_ci_high"],
                         [c for c, _ in shown], legend=_legend_of(shown),
                         xlabel=f"relative precision{pair}, unadjusted interval", ref=1.0,
                         ratio=True)
    if several:  # a thin line between the pairs' groups of rows (rows run top to bottom)
        n = len(labels)
        for i in range(1, n):
            if pairs[i] != pairs[i - 1]:
                fig.axes[0].axhline(n - i - 0.5, color=REFERENCE, lw=.5, alpha=.5)
    return fig


def rp_colours(block: pd.DataFrame, alpha: float) -> list[tuple[str, str]]:
    """Colour and meaning of each per-class row: the GS decision after Holm and its direction."""
    out = []
    for p, rp in zip(block["gs_pvalue_adjusted"], block["rp"]):
        if not p <= alpha:
            out.append((NOT_SHOWN, "not shown to differ after Holm's adjustment, GS test"))
        elif rp > 1:
            out.append((BETTER, "model A shown more precise, GS test after Holm's adjustment"))
        else:
            out.append((WORSE, "model A shown less precise, GS test after Holm's adjustment"))
    return out


def rp_matrix(cmp: ModelComparison, classes: Sequence[Any]) -> Any:
    """Classes x pairs matrix of log2 relative precision; a dot marks adjusted differences."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    pc = cmp.per_class
    pair_names = list(dict.fromkeys(zip(pc.model_a, pc.model_b)))
    k, q = len(classes), len(pair_names)
    values = np.full((k, q), np.nan)
    sig = np.zeros((k, q), dtype=bool)
    cpos = {str(c): i for i, c in enumerate(classes)}
    ppos = {p: j for j, p in enumerate(pair_names)}
    for label, a, b, rp, padj in zip(pc["class"], pc.model_a, pc.model_b, pc.rp,
                                     pc.gs_pvalue_adjusted):
        i = cpos.get(str(label))
        if i is None:
            continue
        j = ppos[(a, b)]
        values[i, j] = np.log2(rp) if rp > 0 else np.nan
        sig[i, j] = bool(padj <= cmp.alpha)
    fig, ax = _subplots(figsize=(min(14, 3.5 + 0.5 * q), max(3.0, 1.6 + 0.3 * k)),
                           layout="constrained")
    lim = max(np.nanmax(np.abs(values)) if np.isfinite(values).any() else 1.0, 0.05)
    norm, cmap = Normalize(-lim, lim), colormaps[DIVERGING]
    im = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
    if k * q <= 200:
        _cell_values(ax, values, norm, cmap, "+.2f", 7)
    yy, xx = np.nonzero(sig)
    ax.scatter(xx + .3, yy - .3, s=10, color=REFERENCE)
    ax.set_yticks(range(k), [_mpl(c) for c in classes])
    if q <= 60:
        ax.set_xticks(range(q), [_mpl(f"{a} / {b}") for a, b in pair_names], rotation=45,
                      ha="right", rotation_mode="anchor", fontsize=8 if q <= 15 else 7)
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{q} pairs (order as in the table below)")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=.7, label="log2 relative precision A / B (blue: A higher)")
    _dot_legend(fig, "the GS test differs after Holm's adjustment across classes × pairs")
    return fig


# --------------------------------------------------------------------------------------------
