"""The report page's figures: PNG as data URIs, text drawn into the image, alt text escaped."""

from __future__ import annotations

import base64
import io
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..compare.predictions import ModelComparison
from .html import _BIDI_CONTROLS, BETTER, DIVERGING, NOT_SHOWN, REFERENCE, WORSE, esc

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


def by_rank(cmp: ModelComparison) -> list[str]:
    """Return the models in the order of their accuracy rank (1 first; ties in the data's order).

    Every plot and table of the page that lists the models lists them in this order.
    """
    s = cmp.summary
    return list(s.sort_values("rank", kind="stable")["model"])


def pairs_by_rank(cmp: ModelComparison, frame: pd.DataFrame) -> pd.DataFrame:
    """Return a table of pairs sorted by the ranks of model A, then model B (stable)."""
    if not len(frame):
        return frame
    pos = {m: i for i, m in enumerate(by_rank(cmp))}
    key = frame["model_a"].map(pos) * (len(pos) + 1) + frame["model_b"].map(pos)
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")]


def ranking_plot(cmp: ModelComparison) -> Any:
    """Accuracy of each model with its interval, in rank order, coloured by decision."""
    s = cmp.summary.set_index("model").loc[by_rank(cmp)]
    colours = model_colours(cmp)
    shown = [colours[m] for m in s.index]
    return _interval_plot([f"{r}. {m}" for m, r in zip(s.index, s["rank"])], s["accuracy"],
                          s["ci_low"], s["ci_high"], [c for c, _ in shown],
                          legend=_legend_of(shown),
                          xlabel=f"accuracy with {100 * (1 - cmp.alpha):g} % interval "
                                 "(models by rank)")


def _excludes_zero(low: float, high: float) -> bool | None:
    """Whether an interval lies wholly on one side of 0; None when it is not estimable."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    return bool(low > 0 or high < 0)


def pair_colours(cmp: ModelComparison, pairs: pd.DataFrame | None = None) -> list[tuple[str, str]]:
    """Colour and meaning of each row of the pairs table (blue, grey, or vermillion).

    The colour follows the Holm-consistent interval drawn (``holm_ci_low``, ``holm_ci_high``):
    an interval wholly above 0 is blue, wholly below vermillion, holding 0 grey; it agrees with
    Holm's decision by construction. Where the interval is not estimable, the decision alone.
    """
    out = []
    for r in (cmp.pairs if pairs is None else pairs).itertuples():
        clear = _excludes_zero(getattr(r, "holm_ci_low", np.nan), getattr(r, "holm_ci_high", np.nan))
        differs = bool(r.reject) if clear is None else clear
        if not differs:
            out.append((NOT_SHOWN, "not shown to differ after Holm's adjustment: the interval "
                                   "holds 0"))
        elif r.estimate > 0:
            out.append((BETTER, "the first model is shown more accurate after Holm's adjustment"))
        else:
            out.append((WORSE, "the first model is shown less accurate after Holm's adjustment"))
    return out


def pairs_forest(cmp: ModelComparison) -> Any:
    """Accuracy difference A − B of each pair with its Holm-consistent interval, by rank.

    Each interval is at the level of its pair's Holm step (``holm_level``), so it excludes 0
    exactly when Holm rejects; the colour follows the interval drawn.
    """
    p = pairs_by_rank(cmp, cmp.pairs)
    shown = pair_colours(cmp, p)
    return _interval_plot([f"{a} − {b}" for a, b in zip(p["model_a"], p["model_b"])],
                          p["estimate"], p["holm_ci_low"], p["holm_ci_high"],
                          [c for c, _ in shown], legend=_legend_of(shown),
                          xlabel="accuracy difference A − B, Holm-consistent interval",
                          ref=0.0)


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


def heatmap_comparator(cmp: ModelComparison) -> str:
    """Return the model the precision heat map measures every other against.

    The reference on a page with one (every test of the page is against it), else the most
    accurate model of the best group: the model the page recommends first.
    """
    return cmp.reference if cmp.reference is not None else cmp.best[0]


def precision_differences(cmp: ModelComparison) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Precision of each model minus the comparator's, per class, and whether the GS test differs.

    Returns two class x model tables, the models in rank order: the difference (the
    comparator's own column holds 0) and True where the pair's GS test, Holm-adjusted across
    classes x pairs, rejects at ``alpha``. A pair without a GS p-value (a class neither
    predicts) is False: not shown to differ.
    """
    models = by_rank(cmp)
    comp = heatmap_comparator(cmp)
    prec = cmp.precision.set_index("class")[models]
    diff = prec.sub(prec[comp], axis=0)
    shown = pd.DataFrame(False, index=prec.index, columns=models)
    pc = cmp.per_class
    rows = pc[(pc["model_a"] == comp) | (pc["model_b"] == comp)]
    where = {str(c): i for i, c in enumerate(prec.index)}
    for a, b, label, padj in zip(rows["model_a"], rows["model_b"], rows["class"],
                                 rows["gs_pvalue_adjusted"]):
        other = b if a == comp else a
        if str(label) in where and padj <= cmp.alpha:
            shown.iloc[where[str(label)], models.index(other)] = True
    return diff, shown


def precision_heatmap(cmp: ModelComparison) -> Any:
    """Per class, each model's precision minus the comparator's, on the page's colour language.

    Columns are the models in rank order; the comparator (:func:`heatmap_comparator`) is
    outlined and prints its own precision. Every other cell prints its difference and is drawn
    on a diverging map centred at 0 (blue: more precise than the comparator, vermillion-red:
    less) where the GS test, after Holm's adjustment across classes x pairs, shows the two
    differ, and grey where it does not: a small difference is not painted as an effect.
    """
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize, to_rgba
    from matplotlib.patches import Patch, Rectangle

    diff, shown = precision_differences(cmp)
    comp = heatmap_comparator(cmp)
    models = list(diff.columns)
    values = diff.to_numpy(float)
    own = cmp.precision.set_index("class")[comp].to_numpy(float)
    k, m = values.shape
    c = models.index(comp)
    fig, ax = _subplots(figsize=(min(13, 3.4 + 0.9 * m), max(2.8, 1.4 + 0.3 * k)),
                        layout="constrained")
    finite = np.abs(values[np.isfinite(values)])
    lim = max(float(finite.max()) if finite.size else 0.0, 0.05)
    norm, cmap = Normalize(-lim, lim), colormaps[DIVERGING]
    rgba = cmap(norm(np.nan_to_num(values)))
    rgba[~shown.to_numpy()] = to_rgba(NOT_SHOWN, 0.45)
    rgba[~np.isfinite(values)] = to_rgba("#FFFFFF")
    rgba[:, c] = to_rgba("#FFFFFF")
    ax.imshow(rgba, aspect="auto")
    size = 8 if k * m <= 300 else 6
    # beyond 40 models a cell's number and a model's name are not legible: the colours show,
    # the columns are numbered by rank, and the tables below give the names and numbers
    many = m > 40
    for (i, j), v in np.ndenumerate(values if not many else np.empty((0, 0))):
        value, fmt = (own[i], ".2f") if j == c else (v, "+.2f")
        r, g, b, _ = rgba[i, j]
        dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
        ax.text(j, i, format(value, fmt) if np.isfinite(value) else "–", ha="center",
                va="center", fontsize=size, color="white" if dark else "black")
    ax.add_patch(Rectangle((c - 0.5, -0.5), 1, k, fill=False, edgecolor=REFERENCE, lw=1.5))
    role = "reference" if cmp.reference is not None else "best"
    ranks = dict(zip(cmp.summary["model"], cmp.summary["rank"]))
    if many:
        ticks = list(range(0, m, math.ceil(m / 40)))
        ax.set_xticks(ticks, [str(ranks[models[j]]) for j in ticks], fontsize=7)
        ax.set_xlabel(f"the {m:,} models by accuracy rank (names and precisions in the table "
                      "below)")
    else:
        ax.set_xticks(range(m), [_mpl(f"{ranks[v]}. {v}" + (f" ({role})" if v == comp else ""))
                                 for v in models], rotation=40, ha="right",
                      rotation_mode="anchor")
    ax.set_yticks(range(k), [_mpl(v) for v in diff.index])
    ax.grid(False)
    fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=.9,
                 label=_mpl(f"precision − {comp}'s", 30) + "\n(blue: higher)")
    fig.legend(handles=[Patch(color=NOT_SHOWN, alpha=0.45,
                              label=_mpl(f"not shown to differ from {comp} (GS test after Holm); "
                                         f"outlined: {comp}, its own precision", 110))],
               loc="outside lower center", fontsize=8, frameon=False)
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
    block = pairs_by_rank(cmp, cmp.per_class).dropna(subset=["rp"])
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
