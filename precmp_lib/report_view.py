"""The comparison report as HTML: display only, from a :class:`ModelComparison`.

Every function here formats what :func:`precmp_lib.comparison.compare_models` computed; none
runs a test. Every user-supplied string (labels, model and column names, file names) goes
through :func:`esc` before it reaches the page, plot labels are drawn into PNG images (never
live SVG text) and their alt text is escaped. The page loads nothing from outside itself:
plots are data: URIs, and each table carries its own CSV as a data: URI.
"""

from __future__ import annotations

import base64
import html
import io
import math
import urllib.parse
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .comparison import ModelComparison, format_pvalue

__all__ = [
    "CSS",
    "Html",
    "esc",
    "format_pvalue",
    "legend_html",
    "page_header",
    "section_accuracy",
    "section_combined",
    "section_conclusion",
    "section_cv_folds",
    "section_details",
    "section_gee",
    "section_pairs",
    "section_per_class",
    "section_prevalence",
    "table_html",
    "table_of_contents",
]

DIFFERS, NOT_SHOWN = "#D55E00", "#8C8C8C"
BEST, OTHER = "#0072B2", "#8C8C8C"

CSS = """
<style>
.pcr{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;line-height:1.5;
max-width:1180px}
.pcr h2{margin:1.6rem 0 .4rem;padding-bottom:.2rem;border-bottom:1px solid #ddd}
.pcr h3{margin:1.1rem 0 .3rem}
.pcr p{margin:.35rem 0;max-width:62rem}
.pcr .lead{font-size:1.05rem}
.pcr .meta{color:#555}
.pcr .box{overflow:auto;width:fit-content;max-width:100%;max-height:30rem;border:1px solid #e3e3e3;margin:.4rem 0}
.pcr table.t{border-collapse:collapse;font-size:.86rem;font-variant-numeric:tabular-nums}
.pcr table.t th{position:sticky;top:0;background:#f4f6f8;text-align:right;padding:.3rem .55rem;
white-space:nowrap;border-bottom:1px solid #ccc}
.pcr table.t td{padding:.25rem .55rem;text-align:right;white-space:nowrap;border-bottom:1px solid #eee}
.pcr table.t td.s,.pcr table.t th.s{text-align:left}
.pcr table.t td.note{text-align:left;white-space:normal;min-width:14rem;max-width:30rem;color:#555}
.pcr .csv{font-size:.82rem}
.pcr .warn{background:#fff6e5;border-left:4px solid #E69F00;padding:.4rem .8rem;margin:.6rem 0}
.pcr nav.toc{background:#f7f7f7;padding:.5rem 1rem;border-radius:4px;display:inline-block}
.pcr nav.toc ol{margin:.2rem 0;padding-left:1.3rem}
.pcr img{max-width:100%;height:auto}
.pcr .legend{font-size:.88rem;color:#444}
.pcr .yes{color:#D55E00;font-weight:600}
</style>
"""

SECTIONS = [
    ("pc-conclusion", "Conclusion"),
    ("pc-accuracy", "Accuracy and ranking"),
    ("pc-pairs", "Pairs of models: accuracy tests"),
    ("pc-precision", "Precision, class by class"),
    ("pc-gee", "All models at once: GEE per class"),
    ("pc-combined", "One answer across classes"),
    ("pc-prevalence", "Precision at the population's prevalence"),
    ("pc-details", "Data and settings"),
]


def esc(value: Any) -> str:
    """HTML-escape any value's text (quotes too), so user strings never become markup.

    >>> esc('<script>alert(1)</script>')
    '&lt;script&gt;alert(1)&lt;/script&gt;'
    """
    return html.escape(str(value), quote=True)


class Html(str):
    """A piece of HTML that notebooks display as HTML (``_repr_html_``) and code can read as text.

    >>> Html("<b>x</b>")._repr_html_()
    '<b>x</b>'
    """

    __slots__ = ()

    def _repr_html_(self) -> str:
        return str(self)


def _html(text: str) -> Html:
    return Html(text)


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------


def _cell(column: str, value: Any) -> tuple[str, str]:
    """(css class, text) of one table cell."""
    if isinstance(value, list | tuple):
        return "s", ", ".join(map(str, value))
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "", ""
    if isinstance(value, bool | np.bool_):
        return "s", "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return "", f"{int(value):,}"
    if isinstance(value, float | np.floating):
        if "pvalue" in column or column.startswith("p_"):
            return "", format_pvalue(float(value))
        number = float(value)
        return "", f"{number:.4f}" if abs(number) < 1e5 else f"{number:,.0f}"
    return ("note" if column == "note" else "s"), str(value)


def csv_link(frame: pd.DataFrame, filename: str) -> str:
    """Return a link that downloads ``frame`` as CSV from the page itself (a data: URI).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to offer.
    filename : str
        The name the browser saves the file under (escaped).

    Returns
    -------
    str
        An ``<a download>`` element.
    """
    data = urllib.parse.quote(frame.to_csv(index=False))
    return (f'<a class="csv" download="{esc(filename)}" '
            f'href="data:text/csv;charset=utf-8,{data}">Download CSV ({len(frame):,} rows)</a>')


def _displayed(frame: pd.DataFrame) -> pd.DataFrame:
    """Keep the columns worth showing: those with at least one value (the CSV keeps them all)."""
    keep = [c for c in frame.columns
            if not (frame[c].isna() | frame[c].astype(str).isin(["", "[]"])).all()]
    return frame[keep] if keep else frame


def table_html(frame: pd.DataFrame, name: str, *, headers: dict | None = None,
               max_rows: int | None = None) -> str:
    """Render ``frame`` as an escaped HTML table in a scrolling box, with its CSV download link.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; every cell and header is escaped.
    name : str
        Base name of the CSV download (``{name}.csv``).
    headers : dict, optional
        Display names for some columns, keyed by column name.
    max_rows : int, optional
        Show at most this many rows; the CSV always holds them all.

    Returns
    -------
    str
        The HTML fragment.

    Examples
    --------
    >>> t = table_html(pd.DataFrame({"model": ["<b>"], "pvalue": [1e-9]}), "x")
    >>> "&lt;b&gt;" in t and "< 0.0001" not in t and "&lt; 0.0001" in t
    True
    """
    headers = headers or {}
    shown = _displayed(frame if max_rows is None else frame.head(max_rows))
    whole = {c for c in shown.columns if pd.api.types.is_float_dtype(shown[c])
             and np.all(np.mod(shown[c].dropna().to_numpy(), 1) == 0) and shown[c].notna().any()}
    head = "".join(
        f'<th class="{"" if pd.api.types.is_numeric_dtype(shown[c]) else "s"}">'
        f"{esc(headers.get(c, c))}</th>" for c in shown.columns)
    body = []
    for row in shown.itertuples(index=False):
        cells = []
        for c, v in zip(shown.columns, row):
            if c in whole and isinstance(v, float) and math.isfinite(v):
                v = int(v)
            cls, text = _cell(str(c), v)
            cells.append(f'<td class="{cls}">{esc(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = ""
    if max_rows is not None and len(frame) > max_rows:
        more = f"<p class='meta'>First {max_rows:,} of {len(frame):,} rows; the CSV has them all.</p>"
    return (f'<div class="box"><table class="t"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>{more}'
            f"<p>{csv_link(frame, f'{name}.csv')}</p>")


# --------------------------------------------------------------------------------------------
# plots (PNG as data: URIs; text drawn into the image, alt text escaped)
# --------------------------------------------------------------------------------------------


# Unicode's bidirectional controls (embeddings, overrides, isolates, marks): in a label they
# would reverse the rest of a plot's line (the other model's name beside it); the tables keep them.
_BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F,
                                0x061C], "\ufffd")


def _mpl(text: Any, width: int = 40) -> str:
    r"""Fit plot text on one line of at most ``width`` characters, math mode off.

    ``$`` is escaped so matplotlib never reads it as math, and bidirectional controls show as
    U+FFFD instead of reordering the line; the tables carry the full names.

    Examples
    --------
    >>> _mpl("x‮evil vs $a$") == "x�evil vs \$a\$"
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


def _figure_html(fig: Any, alt: str) -> str:
    buf = io.BytesIO()
    # Constrained layout already fits a figure whose axes stretch; only axes of fixed aspect
    # (the heatmaps) leave margins worth cropping, which costs a second draw of the figure.
    tight = any(ax.get_aspect() != "auto" for ax in fig.axes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight" if tight else None)
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
                   xlabel: str, ref: float | None = None, ratio: bool = False) -> Any:
    """Points with horizontal intervals, one row per label (top row first)."""
    n = len(labels)
    fig, ax = _subplots(figsize=(7.5, 0.7 + 0.3 * n), layout="constrained")
    y = np.arange(n)[::-1]
    ax.hlines(y, lo, hi, color=colors, lw=2.2)
    ax.scatter(est, y, color=colors, zorder=3, s=26)
    if ref is not None:
        ax.axvline(ref, color="#333", lw=.8)
    ax.set_yticks(y, [_mpl(v, 60) for v in labels])
    ax.set_ylim(-0.6, n - 0.4)
    if ratio:
        _ratio_axis(ax, np.nanmin(np.asarray(lo, float)), np.nanmax(np.asarray(hi, float)))
    ax.set_xlabel(_mpl(xlabel, 120))
    ax.grid(axis="x", alpha=.4)
    ax.grid(axis="y", visible=False)
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


def ranking_plot(cmp: ModelComparison) -> Any:
    """Accuracy of each model with its interval, best first; the best group in blue."""
    s = cmp.summary
    return _interval_plot(list(s["model"]), s["accuracy"], s["ci_low"], s["ci_high"],
                          [BEST if b else OTHER for b in s["best"]],
                          xlabel=f"accuracy with {100 * (1 - cmp.alpha):g} % interval")


def pairs_forest(cmp: ModelComparison) -> Any:
    """Accuracy difference A - B of each pair with its interval, coloured by the Holm decision."""
    p = cmp.pairs
    return _interval_plot([f"{a} − {b}" for a, b in zip(p["model_a"], p["model_b"])],
                          p["estimate"], p["ci_low"], p["ci_high"],
                          [DIFFERS if r else NOT_SHOWN for r in p["reject"]],
                          xlabel="accuracy difference A − B (unadjusted interval)", ref=0.0)


def pairs_matrix(cmp: ModelComparison) -> Any:
    """Plot the model x model matrix of accuracy differences (row minus column).

    A dot marks the pairs that differ after Holm's adjustment.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    matplotlib.figure.Figure
        The heatmap.
    """
    order = list(cmp.summary["model"])
    m = len(order)
    pos = {name: i for i, name in enumerate(order)}
    diff = np.full((m, m), np.nan)
    sig = np.zeros((m, m), dtype=bool)
    for r in cmp.pairs.itertuples():
        i, j = pos[r.model_a], pos[r.model_b]
        diff[i, j], diff[j, i] = r.estimate, -r.estimate
        sig[i, j] = sig[j, i] = bool(r.reject)
    size = min(13.0, 2.5 + 0.34 * m)
    fig, ax = _subplots(figsize=(size + 1.5, size), layout="constrained")
    lim = np.nanmax(np.abs(diff)) if np.isfinite(diff).any() else 1.0
    im = ax.imshow(diff, cmap="RdBu", vmin=-lim, vmax=lim)
    yy, xx = np.nonzero(sig)
    ax.scatter(xx, yy, s=12 if m > 15 else 30, color="black", marker="o")
    labels = [_mpl(v) for v in order]
    ax.set_xticks(range(m), labels, rotation=60, ha="right", rotation_mode="anchor",
                  fontsize=8 if m > 15 else 10)
    ax.set_yticks(range(m), labels, fontsize=8 if m > 15 else 10)
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=.6, label="accuracy of row − column")
    return fig


def precision_heatmap(cmp: ModelComparison) -> Any:
    """Precision of every model (columns) for every class (rows)."""
    table = cmp.precision.set_index("class")
    k, m = table.shape
    fig, ax = _subplots(figsize=(min(13, 3 + 0.9 * m), max(2.6, 1.2 + 0.3 * k)),
                           layout="constrained")
    im = ax.imshow(table.to_numpy(float), cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(m), [_mpl(v) for v in table.columns], rotation=40, ha="right",
                  rotation_mode="anchor")
    ax.set_yticks(range(k), [_mpl(v) for v in table.index])
    if k * m <= 150:
        for (i, j), v in np.ndenumerate(table.to_numpy(float)):
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if v < .6 else "black")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=.9, label="precision")
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
    several = block[["model_a", "model_b"]].drop_duplicates().shape[0] > 1
    labels = [f"{c}: {a} / {b}" if several else str(c)
              for c, a, b in zip(block["class"], block["model_a"], block["model_b"])]
    colors = [DIFFERS if p <= cmp.alpha else NOT_SHOWN for p in block["gs_pvalue_adjusted"]]
    pair = "" if several else f" {block['model_a'].iloc[0]} / {block['model_b'].iloc[0]}"
    return _interval_plot(labels, block["rp"], block["rp_ci_low"], block["rp_ci_high"], colors,
                          xlabel=f"relative precision{pair} (unadjusted interval)", ref=1.0,
                          ratio=True)


def rp_matrix(cmp: ModelComparison, classes: Sequence[Any]) -> Any:
    """Classes x pairs matrix of log2 relative precision; a dot marks adjusted differences."""
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
    im = ax.imshow(values, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    yy, xx = np.nonzero(sig)
    ax.scatter(xx, yy, s=10, color="black")
    ax.set_yticks(range(k), [_mpl(c) for c in classes])
    if q <= 60:
        ax.set_xticks(range(q), [_mpl(f"{a} / {b}") for a, b in pair_names], rotation=45,
                      ha="right", rotation_mode="anchor", fontsize=8 if q <= 15 else 7)
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{q} pairs (order as in the table below)")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=.7, label="log2 relative precision A / B")
    return fig


# --------------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------------


def legend_html(items: Sequence[tuple[str, str]]) -> str:
    """Return a caption saying what each plot colour means.

    Parameters
    ----------
    items : sequence of (str, str)
        ``(colour, meaning)`` pairs; the meanings are escaped.

    Returns
    -------
    str
        A ``<p class="legend">`` element.
    """
    parts = [f'<span style="color:{c}">●</span> {esc(text)}' for c, text in items]
    return f'<p class="legend">Legend: {"; ".join(parts)}.</p>'


DECISION_LEGEND = [(DIFFERS, "differs after Holm's adjustment"),
                   (NOT_SHOWN, "not shown to differ after Holm's adjustment")]


def _h2(key: str) -> str:
    title = dict(SECTIONS)[key]
    return f'<h2 id="{key}">{esc(title)}</h2>'


def _wrap(body: str) -> Any:
    return _html(f'<div class="pcr">{body}</div>')


def page_header(cmp: ModelComparison, source_name: str = "") -> Any:
    """Title, what was compared, and the design in one sentence."""
    name = source_name or cmp.source or "the predictions"
    models = ", ".join(esc(m) for m in cmp.models[:12]) + (
        f" and {len(cmp.models) - 12} more" if len(cmp.models) > 12 else "")
    body = (
        CSS + f"<p class='lead'>Predictions from <strong>{esc(name)}</strong>: "
        f"{len(cmp.models)} models ({models}), {len(cmp.classes):,} classes, "
        f"{cmp.n_rows:,} predictions per model.</p>"
        f"<p class='lead'>Design: <strong>{esc(cmp.design['description'])}</strong>.</p>")
    return _wrap(body)


def table_of_contents(cmp: ModelComparison) -> Any:
    """Render the table of contents, with links to the sections shown.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    items = [(k, t) for k, t in SECTIONS if k != "pc-prevalence" or len(cmp.prevalence)]
    links = "".join(f'<li><a href="#{k}">{esc(t)}</a></li>' for k, t in items)
    return _wrap(f'<nav class="toc"><strong>Contents</strong><ol>{links}</ol></nav>')


def section_conclusion(cmp: ModelComparison) -> Any:
    """Render the conclusions in plain words, with any small-sample warnings.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    text = "".join(f"<p>{esc(line)}</p>" for line in cmp.conclusions)
    warn = "".join(f"<p>{esc(w)}</p>" for w in cmp.warnings)
    if warn:
        warn = f'<div class="warn"><strong>Small samples</strong>{warn}</div>'
    return _wrap(_h2("pc-conclusion") + text + warn)


def section_accuracy(cmp: ModelComparison) -> Any:
    """Render the accuracy section: ranking plot and table with intervals.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    cv = cmp.design["design"] == "repeated cv"
    how = ("clustered on the observation (each observation's repeated predictions are one "
           "cluster)" if cv else "Wilson score intervals")
    intro = (f"<p>The share of predictions each model gets right, with {100 * (1 - cmp.alpha):g} % "
             f"intervals ({how}). Models are ordered by accuracy; the best group holds the models "
             "not shown worse than the most accurate one after Holm's adjustment.</p>")
    plot = _figure_html(ranking_plot(cmp), "Accuracy of each model with its interval, best group "
                        "marked: " + ", ".join(cmp.best)) + legend_html(
        [(BEST, "best group: not shown worse than the most accurate model after Holm's "
                "adjustment"), (OTHER, "shown worse than the most accurate model")])
    return _wrap(_h2("pc-accuracy") + intro + plot + table_html(cmp.summary, "accuracy"))


def section_pairs(cmp: ModelComparison) -> Any:
    """Render the pairwise accuracy tests, Holm-adjusted, as a plot and a table.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    cv = cmp.design["design"] == "repeated cv"
    if cv:
        intro = ("<p>Each pair is compared by the corrected repeated k-fold t-test (Nadeau & Bengio's "
                 "correction in Bouckaert & Frank's r × k form) on the per-fold accuracy "
                 "differences; n_test / n_train comes from the fold sizes "
                 f"({cmp.settings.get('test_train_ratio') or float('nan'):.4f}). ")
        if "t5x2_pvalue" in cmp.pairs:
            intro += "The 5 × 2cv t and F tests are given as well. "
        if "p_a_better" in cmp.pairs:
            intro += ("The Bayesian correlated t (Corani & Benavoli) gives the posterior "
                      "probabilities that A is better, that the two are practically equivalent "
                      f"(accuracies within ±{cmp.settings.get('rope') or 0:g}) and that B is "
                      "better (p_a_better, p_rope, p_b_better). ")
        intro += "</p>"
    else:
        intro = ("<p>Each pair is compared by McNemar's exact test on the observations where "
                 "exactly one model is right (b: only A, c: only B); when b + c is below 25 the "
                 "mid-p version is used and the table says so. The estimate is accuracy A − B "
                 "with Newcombe's interval.</p>")
    intro += ("<p>p-values are adjusted with Holm's method across all pairs; colour and "
              "<em>reject</em> mark the adjusted decision at "
              f"α = {cmp.alpha:g}. Intervals are unadjusted.</p>")
    m = len(cmp.models)
    if len(cmp.pairs) <= 21:
        plot = _figure_html(pairs_forest(cmp), "Accuracy differences of each pair, coloured by "
                            "the Holm-adjusted decision") + legend_html(DECISION_LEGEND)
    else:
        plot = _figure_html(pairs_matrix(cmp), f"Matrix of accuracy differences of {m} models; "
                            "dots mark pairs that differ after Holm's adjustment") + legend_html(
            [("#000000", "a dot: the pair differs after Holm's adjustment; no dot: not shown "
                         "to differ; colour: accuracy of the row model minus the column model")])
    return _wrap(_h2("pc-pairs") + intro + plot + table_html(cmp.pairs, "pairs"))


def _class_counts_named(cmp: ModelComparison) -> pd.DataFrame:
    out = cmp.class_counts.copy()
    out.columns = ["class", "n_true"] + [f"n_pred {m}" for m in cmp.models]
    return out


def section_per_class(cmp: ModelComparison) -> Any:
    """Render the per-class precision section: precisions, counts and paired tests.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    k = len(cmp.classes)
    parts = [_h2("pc-precision"),
             "<p>Precision is the share of a model's predictions of a class that are right. For "
             "each pair and class: the generalized score test (GS), Kosinski's weighted score "
             "test (WGS), the GEE Wald test on the logit scale (GW) and the relative precision "
             "RP = precision A / precision B with its interval. "
             "<em>gs_pvalue_adjusted</em> is Holm's adjustment across all classes × pairs; "
             "colours in the plots mark that decision. A test that does not exist for a class "
             "is blank, with the reason in <em>note</em>.</p>"]
    if cmp.design["design"] == "repeated cv":
        parts.append("<p>With repeated cross-validation every test is clustered on the "
                     "observation: an observation's repeated predictions count once in the "
                     "variance.</p>")
    if k <= 60:
        parts.append(_figure_html(precision_heatmap(cmp), "Precision of every model per class"))
    parts.append("<h3>Precision per class and model</h3>")
    parts.append(table_html(cmp.precision, "precision"))
    parts.append("<h3>How often each class is true and predicted</h3>")
    parts.append(table_html(_class_counts_named(cmp), "class_counts"))
    parts.append("<h3>Paired tests per class</h3>")
    pairs = list(dict.fromkeys(zip(cmp.per_class.model_a, cmp.per_class.model_b)))
    sig = cmp.per_class[cmp.per_class.gs_pvalue_adjusted <= cmp.alpha]
    if len(pairs) * k <= 40:
        parts.append(_figure_html(rp_forest(cmp), "Relative precision per class and pair, "
                                  "coloured by the adjusted decision"))
        parts.append(legend_html([(DIFFERS, "differs: GS test after Holm's adjustment across "
                                            "classes × pairs"),
                                  (NOT_SHOWN, "not shown to differ after Holm's adjustment")]))
    else:
        shown = list(dict.fromkeys(sig["class"]))[:40] if k > 40 else list(cmp.classes)
        if shown:
            note = ("" if k <= 40 else f"<p class='meta'>The {len(shown)} classes (of {k}) with at "
                    "least one adjusted difference.</p>")
            parts.append(note + _figure_html(rp_matrix(cmp, shown), "Relative precision per "
                                             "class and pair; dots mark adjusted differences"))
            parts.append(legend_html([("#000000", "a dot: the GS test differs after Holm's "
                                                  "adjustment across classes × pairs; no dot: not "
                                                  "shown to differ; colour: log2 relative "
                                                  "precision A / B (red: A lower, blue: A higher)")]))
        else:
            parts.append("<p>No class shows a precision difference after Holm's adjustment.</p>")
    parts.append(table_html(cmp.per_class, "per_class", max_rows=2000))
    return _wrap("".join(parts))


def section_gee(cmp: ModelComparison) -> Any:
    """Render the GEE section: joint test per class, odds ratios and pairwise tests.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    intro = ("<p>For each class, a logistic GEE model of “this prediction is right” on the model, "
             "clustered on the observation (Gondara's Algorithms 1 and 2) in closed form. The "
             "joint Wald test asks whether all models have the same precision for that class; "
             "<em>pvalue_adjusted</em> is Holm across classes.</p>")
    return _wrap(_h2("pc-gee") + intro + table_html(cmp.gee, "gee_joint")
                 + "<h3>Precision odds ratios against the reference</h3><p>The odds of a "
                 "prediction being right, each model over the reference model "
                 f"({esc(cmp.reference or cmp.models[0])}): an odds ratio, not a ratio of "
                 "precisions.</p>" + table_html(cmp.gee_coefficients, "gee_coefficients",
                                                  max_rows=2000)
                 + "<h3>Pairwise GEE Wald tests</h3><p><em>pvalue_holm</em> is Holm's "
                 "adjustment across the pairs of each class.</p>"
                 + table_html(cmp.gee_pairwise, "gee_pairwise", max_rows=2000))


def section_combined(cmp: ModelComparison) -> Any:
    """Render the one-p-value-per-pair combination across classes.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    intro = ("<p>One p-value per pair across all classes. The per-class p-values come from the "
             "same observations and are dependent, so Fisher's method (which assumes "
             "independence) is not used. On one test set with at most 30 classes and 45 pairs "
             "the combination is Dai, Leeder & Cui's with the dependence estimated from "
             "classifier-swap permutations; otherwise Simes' test, valid under positive "
             "dependence. <em>pvalue_adjusted</em> is Holm's adjustment across pairs; "
             "<em>classes_driving</em> lists the classes whose GS test differs after "
             "adjustment.</p>")
    return _wrap(_h2("pc-combined") + intro + table_html(cmp.combined, "combined"))


def section_prevalence(cmp: ModelComparison) -> Any:
    """Render precision at the population's prevalence, if any was given.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    if not len(cmp.prevalence):
        return _wrap("")
    intro = ("<p>Precision changes with the class mix; sensitivity and specificity do not. Given "
             "the population prevalence, Bayes' rule gives the precision each model would have "
             "there. Intervals are percentile bootstrap intervals from multinomial resamples of "
             "the counts (of observations, for cross-validation); the ratio compares two "
             "models on the same resamples.</p>")
    return _wrap(_h2("pc-prevalence") + intro + table_html(cmp.prevalence, "prevalence")
                 + "<h3>Ratio between models</h3>"
                 + table_html(cmp.prevalence_ratio, "prevalence_ratio"))


def section_cv_folds(cmp: ModelComparison) -> Any:
    """Render the per-fold accuracies (repeated cross-validation only).

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    if cmp.design["design"] != "repeated cv":
        return _wrap("")
    return _wrap("<h3>Accuracy per fold</h3><p>The per-fold accuracies the t-tests use.</p>"
                 + table_html(cmp.fold_scores, "fold_scores"))


def section_details(cmp: ModelComparison, versions: dict | None = None) -> Any:
    """Render the data and settings the comparison used, for the record.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.
    versions : dict, optional
        Extra rows, e.g. library versions from :func:`versions`.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    rows = {"source": cmp.source, "engine": cmp.engine, "predictions per model": f"{cmp.n_rows:,}",
            "design": cmp.design["description"], "alpha": cmp.alpha,
            "reference": cmp.reference or "(every pair)",
            "bootstrap resamples": cmp.settings.get("n_boot"), "seed": cmp.settings.get("seed"),
            "prevalence": ", ".join(f"{k} = {v}" for k, v in
                                    (cmp.settings.get("prevalence") or {}).items()) or "(none)"}
    for i, note in enumerate(cmp.settings.get("notes") or []):
        rows[f"note {i + 1}" if i else "note"] = note
    rows.update(versions or {})
    frame = pd.DataFrame({"setting": list(rows), "value": [str(v) for v in rows.values()]})
    return _wrap(_h2("pc-details") + table_html(frame, "settings"))


def versions() -> dict:
    """Versions of Python and the main libraries, for the record."""
    import platform

    import scipy

    from . import __version__

    return {"python": platform.python_version(), "precmp": __version__, "numpy": np.__version__,
            "pandas": pd.__version__, "scipy": scipy.__version__}



# The plot helpers other report views (the item report) draw with, under public names.
figure_html = _figure_html
interval_plot = _interval_plot
