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
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._text import DIRECTION_CONTROLS
from .comparison import ModelComparison, count_of, format_pvalue

__all__ = [
    "BIDI_NOTE",
    "CSS",
    "Html",
    "bidi_note",
    "esc",
    "format_pvalue",
    "legend_html",
    "model_colours",
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

# One colour language for every plot of the page (Okabe–Ito colours, readable by people with
# the common colour-vision deficiencies): blue says better (the best group, a model or a pair's
# first model shown more accurate or more precise), vermillion says worse, grey says "not shown
# to differ" and nothing else, black marks the reference. Maps of differences use the same
# direction: blue positive, red negative.
BETTER, WORSE, NOT_SHOWN, REFERENCE = "#0072B2", "#D55E00", "#8C8C8C", "#000000"
DIVERGING = "RdBu"
SEQUENTIAL = "viridis"

CSS = """
<style>
.pcr{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;line-height:1.5;
max-width:1180px}
.pcr h2{margin:1.6rem 0 .4rem;padding-bottom:.2rem;border-bottom:1px solid #ddd}
.pcr h3{margin:1.1rem 0 .3rem}
.pcr h4{margin:.8rem 0 .2rem;font-size:.95rem}
.pcr p{margin:.35rem 0;max-width:62rem}
.pcr .design{font-size:1.05rem;color:#444;margin:.2rem 0 .6rem}
.pcr .rec{font-size:1.3rem;font-weight:600;margin:.5rem 0 .4rem;max-width:62rem}
.pcr ul.points{margin:.3rem 0 .6rem;padding-left:1.4rem;max-width:62rem}
.pcr ul.points li{margin:.15rem 0}
.pcr .meta{color:#555}
.pcr .box{overflow:auto;width:fit-content;max-width:100%;max-height:30rem;border:1px solid #e3e3e3;margin:.4rem 0}
.pcr table.t{border-collapse:collapse;font-size:.86rem;font-variant-numeric:tabular-nums}
.pcr table.t th{position:sticky;top:0;background:#f4f6f8;text-align:right;padding:.3rem .55rem;
white-space:nowrap;border-bottom:1px solid #ccc}
.pcr table.t td{padding:.25rem .55rem;text-align:right;white-space:nowrap;border-bottom:1px solid #eee}
.pcr table.t td.s,.pcr table.t th.s{text-align:left}
.pcr table.t td.note{text-align:left;white-space:normal;min-width:14rem;max-width:30rem;color:#555}
.pcr details.more{margin:.3rem 0 .6rem}
.pcr details.more>summary{cursor:pointer;color:#0b5394}
.pcr .csv{font-size:.82rem}
.pcr .warn{background:#fff6e5;border-left:4px solid #E69F00;padding:.4rem .8rem;margin:.6rem 0;
max-width:62rem}
.pcr .warn ul{margin:.2rem 0;padding-left:1.2rem}
.pcr .warn details{display:inline}
.pcr nav.toc{background:#f7f7f7;padding:.5rem 1rem;border-radius:4px;display:inline-block}
.pcr nav.toc ol{margin:.2rem 0;padding-left:1.3rem}
.pcr img{max-width:100%;height:auto}
.pcr .legend{font-size:.88rem;color:#444}
@page{margin:12mm}
@media print{
.pcr{max-width:none}
.pcr .box{overflow:visible;max-height:none;max-width:none;width:auto;border:0}
.pcr table.t{font-size:7pt;width:100%}
.pcr table.t th{position:static;white-space:normal}
.pcr table.t td.s{white-space:normal}
.pcr table.t td.note{white-space:normal;min-width:16rem;max-width:none}
.pcr tr,.pcr img{break-inside:avoid}
.pcr h2,.pcr h3,.pcr h4{break-after:avoid}
.pcr details::details-content{content-visibility:visible;display:block}
.pcr details>summary{list-style:none}
.pcr nav.toc,.pcr .csv{display:none}
}
</style>
"""

SECTIONS = [
    ("pc-conclusion", "Recommendation"),
    ("pc-accuracy", "Accuracy and ranking"),
    ("pc-pairs", "Pairs of models: accuracy tests"),
    ("pc-precision", "Precision, class by class"),
    ("pc-gee", "All models at once: GEE per class"),
    ("pc-combined", "One answer across classes"),
    ("pc-prevalence", "Precision at the population's prevalence"),
    ("pc-details", "Data and settings"),
]


# Unicode's direction controls inside a name would reorder the text after it (the rest of a
# sentence, the other model of a pair), so that a page could seem to recommend one model for
# another. Pages and plots show each as U+FFFD; the CSV downloads keep the names as they are.
_BIDI_CONTROLS = dict.fromkeys(DIRECTION_CONTROLS, "\ufffd")

BIDI_NOTE = ("Some names or labels hold Unicode direction controls, which would reorder the "
             "text around them: the page shows each as \ufffd, and the CSV downloads keep them.")


def esc(value: Any) -> str:
    """HTML-escape any value's text (quotes too), so user strings never become markup.

    Bidirectional controls show as U+FFFD, so that no string reorders the text around it.

    >>> esc('<script>alert(1)</script>')
    '&lt;script&gt;alert(1)&lt;/script&gt;'
    >>> esc("\u202eA_ledom")
    '\ufffdA_ledom'
    """
    return html.escape(str(value).translate(_BIDI_CONTROLS), quote=True)


def bidi_note(texts: Iterable[Any]) -> str:
    """Return a note for the page when any of ``texts`` holds a bidirectional control, else ''.

    >>> bidi_note(["model_a", "\u202eA_ledom"]).startswith('<p class="meta">Some names')
    True
    >>> bidi_note(["model_a", "b"])
    ''
    """
    if any(str(t) != str(t).translate(_BIDI_CONTROLS) for t in texts):
        return f'<p class="meta">{BIDI_NOTE}</p>'
    return ""


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
        return "note", ", ".join(map(str, value))
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

    Examples
    --------
    >>> link = csv_link(pd.DataFrame({"model": ["a"], "accuracy": [0.9]}), "accuracy.csv")
    >>> link.endswith(">Download CSV (1 row)</a>"), "model%2Caccuracy%0Aa%2C0.9" in link
    (True, True)
    """
    data = urllib.parse.quote(frame.to_csv(index=False))
    return (f'<a class="csv" download="{esc(filename)}" '
            f'href="data:text/csv;charset=utf-8,{data}">Download CSV ({count_of(len(frame), "row")})</a>')


def _valued(frame: pd.DataFrame) -> list[str]:
    """Return the columns of ``frame`` with at least one value (not empty, NaN or ``[]``).

    Each column is read until its first value, mostly its first cell: a page checks some
    150 columns, and a vectorised test of a whole column costs more than that.

    >>> _valued(pd.DataFrame({"a": [None, 1.0], "b": [np.nan, np.nan], "c": ["", "[]"],
    ...                       "d": [pd.NA, "x"], "e": [[], []]}))
    ['a', 'd']
    """
    return [c for c in frame.columns
            if any(not _empty(v) for v in frame[c].tolist())]


def _empty(value: Any) -> bool:
    """Tell whether a cell shows nothing: missing, an empty text or an empty list."""
    if isinstance(value, list | tuple | np.ndarray):
        return len(value) == 0
    return bool(pd.isna(value)) or str(value) in ("", "[]")


def _displayed(frame: pd.DataFrame) -> pd.DataFrame:
    """Keep the columns worth showing: those with at least one value (the CSV keeps them all)."""
    keep = _valued(frame)
    return frame[keep] if keep else frame


def table_html(frame: pd.DataFrame, name: str, *, headers: dict | None = None,
               max_rows: int | None = None, key: Sequence[str] = (),
               views: Sequence[tuple[str, Sequence[str], bool]] = ()) -> str:
    """Render ``frame`` as escaped HTML tables with the CSV download of the whole table.

    Without ``views`` the table is shown whole. With them it is split by topic, so that no
    table is wider than a screen: the first view's columns (after the ``key`` columns) are
    shown, then each further view as its own table under a heading, behind a ``<details>``
    when its flag says so (printing opens it); every table repeats the ``key`` columns, and
    columns no view names go to a last, folded view.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; every cell and header is escaped.
    name : str
        Base name of the CSV download (``{name}.csv``), which holds every row and column.
    headers : dict, optional
        Display names for some columns, keyed by column name.
    max_rows : int, optional
        Show at most this many rows; the CSV always holds them all.
    key : sequence of str
        Columns that name a row (model, pair, class), repeated in every view.
    views : sequence of (str, sequence of str, bool)
        Title, columns and folded flag of each view; the first view's title is not shown.

    Returns
    -------
    str
        The HTML fragment.

    Examples
    --------
    >>> t = table_html(pd.DataFrame({"model": ["<b>"], "pvalue": [1e-9]}), "x")
    >>> "&lt;b&gt;" in t and "< 0.0001" not in t and "&lt; 0.0001" in t
    True
    >>> t = table_html(pd.DataFrame({"m": ["a"], "x": [1.0], "y": [2.0]}), "x", key=["m"],
    ...                views=[("", ["x"], False)])
    >>> t.count("<table"), "<summary>Other columns</summary>" in t
    (2, True)
    >>> t = table_html(pd.DataFrame({"m": ["a"], "x": [1.0], "note": [""]}), "x", key=["m"],
    ...                views=[("", ["x"], False), ("Notes", ["note"], True)])
    >>> t.count("<table"), "Notes" in t
    (1, False)
    """
    headers = headers or {}
    part = frame if max_rows is None else frame.head(max_rows)
    more = ""
    if max_rows is not None and len(frame) > max_rows:
        more = f"<p class='meta'>First {max_rows:,} of {len(frame):,} rows; the CSV has them all.</p>"
    link = f"<p>{csv_link(frame, f'{name}.csv')}</p>"
    if not views:
        return f'<div class="tables">{_one_table(part, headers)}{more}{link}</div>'
    key = [c for c in key if c in frame.columns]
    named = set(key).union(*(set(cols) for _, cols, _ in views))
    rest = [c for c in frame.columns if c not in named]
    views = list(views) + ([("Other columns", rest, True)] if rest else [])
    out = [_one_table(part[key + [c for c in views[0][1] if c in frame.columns]], headers),
           more, link]
    for title, cols, folded in views[1:]:
        cols = [c for c in cols if c in frame.columns]
        if not _valued(part[cols]):  # a view with nothing in it (no notes, say) is left out
            continue
        shown = _displayed(part[cols])
        rows = part
        if list(shown.columns) == ["note"]:  # a table of notes lists the rows that have one
            rows = part[part["note"].fillna("").astype(str) != ""]
        table = _one_table(rows[key + list(shown.columns)], headers)
        out.append(f'<details class="more"><summary>{esc(title)}</summary>{table}</details>'
                   if folded else f"<h4>{esc(title)}</h4>{table}")
    return f'<div class="tables">{"".join(out)}</div>'


def _one_table(frame: pd.DataFrame, headers: dict) -> str:
    """One escaped HTML table in a scrolling box (the print stylesheet lets it grow)."""
    shown = _displayed(frame)
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
    return (f'<div class="box"><table class="t"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def _chunks(columns: Sequence[str], size: int = 8) -> list[tuple[str, list[str], bool]]:
    """Split ``columns`` into views of at most ``size`` each (tables with a column per model)."""
    columns = list(columns)
    out = []
    for i in range(0, len(columns), size):
        part = columns[i:i + size]
        out.append((f"Columns {i + 1} to {i + len(part)} of {len(columns)}", part, False))
    return out or [("", [], False)]


# --------------------------------------------------------------------------------------------
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


def _h2(key: str) -> str:
    title = dict(SECTIONS)[key]
    return f'<h2 id="{key}">{esc(title)}</h2>'


def _wrap(body: str) -> Any:
    return _html(f'<div class="pcr">{body}</div>')


def _design_line(cmp: ModelComparison, name: str) -> str:
    """Write the design in one line: file, design, models, classes, what the counts count."""
    models = ", ".join(cmp.models[:8]) + (
        f" and {len(cmp.models) - 8} more" if len(cmp.models) > 8 else "")
    per = f"{cmp.n_rows:,} predictions per model"
    if cmp.design["design"] == "repeated cv":
        per += ", one per observation and repeat"
    return (f"{name} · {cmp.design['description']} · {len(cmp.models):,} models: {models} · "
            f"{len(cmp.classes):,} classes · {per}")


def page_header(cmp: ModelComparison, source_name: str = "") -> Any:
    """Render the page's style and the design in one line.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.
    source_name : str
        How the page names the predictions (default: the comparison's source).

    Returns
    -------
    Html
        The block, ready for a notebook cell's output.
    """
    name = source_name or cmp.source or "the predictions"
    return _wrap(CSS + f'<p class="design">{esc(_design_line(cmp, name))}</p>'
                 + bidi_note([name, *cmp.models, *cmp.classes]))


def _sections_shown(cmp: ModelComparison) -> list[tuple[str, str]]:
    return [(k, t) for k, t in SECTIONS if k != "pc-prevalence" or len(cmp.prevalence)]


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
    links = "".join(f'<li><a href="#{k}">{esc(t)}</a></li>' for k, t in _sections_shown(cmp))
    return _wrap(f'<nav class="toc"><strong>Contents</strong><ol>{links}</ol></nav>')


# The lines "In detail" shows before folding the rest behind a <details>.
DETAIL_LINES = 12


def section_conclusion(cmp: ModelComparison) -> Any:
    """Render the first screen: the recommendation, at most five points, the warnings, details.

    The recommendation is one sentence; the points are short; each kind of small-sample
    warning is one line, with the pairs or models it is about in a list behind a
    ``<details>``; the lines with every quoted difference, interval and adjusted p-value
    follow under "In detail".

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    parts = [_h2("pc-conclusion"), f'<p class="rec">{esc(cmp.recommendation)}</p>']
    points = "".join(f"<li>{esc(line)}</li>" for line in cmp.conclusions[:5])
    parts.append(f'<ul class="points">{points}</ul>')
    if cmp.warnings:
        items = list(cmp.warning_items) + [[]] * (len(cmp.warnings) - len(cmp.warning_items))
        lines = []
        for line, which in zip(cmp.warnings, items):
            more = ""
            if which:
                listed = "".join(f"<li>{esc(w)}</li>" for w in which)
                label = "which one" if len(which) == 1 else f"which ones ({len(which):,})"
                more = (f" <details><summary>{label}</summary><ul>{listed}</ul></details>")
            lines.append(f"<li>{esc(line)}{more}</li>")
        parts.append(f'<div class="warn"><strong>Small samples</strong><ul>{"".join(lines)}'
                     "</ul></div>")
    if cmp.details:
        shown, rest = cmp.details[:DETAIL_LINES], cmp.details[DETAIL_LINES:]
        detail = "".join(f"<li>{esc(line)}</li>" for line in shown)
        more = ""
        if rest:  # many models: the first lines, the others folded (the tables have them all)
            folded = "".join(f"<li>{esc(line)}</li>" for line in rest)
            more = (f'<details class="more"><summary>{len(rest):,} more lines</summary>'
                    f"<ul>{folded}</ul></details>")
        parts.append(f"<h3>In detail</h3><ul>{detail}</ul>{more}")
    return _wrap("".join(parts))


def _family(cmp: ModelComparison) -> str:
    m = len(cmp.models)
    if cmp.reference is None:
        return (f"every pair of the {m} models, {len(cmp.pairs):,} pairs, the better-ranked model "
                "first")
    return (f"each model against the reference {cmp.reference}, {len(cmp.pairs):,} pairs; pairs "
            "without the reference are not tested on this page")


def section_accuracy(cmp: ModelComparison) -> Any:
    """Render the accuracy section: plot and table of each model's accuracy with its interval.

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
    how = ("clustered on the observation: each observation's repeated predictions form one "
           "cluster" if cv else "Wilson score intervals")
    if cmp.reference is None:
        colours = ("Blue: the best group, the most accurate model and those not shown less "
                   "accurate than it; vermillion: shown less accurate than it.")
    else:
        colours = (f"Black: the reference {cmp.reference}; blue, grey, vermillion: shown more "
                   "accurate, not shown to differ, shown less accurate than it.")
    intro = (f"<p>The share of predictions each model gets right, with {100 * (1 - cmp.alpha):g} % "
             f"intervals, {how}. Models are in the order of the data. {esc(colours)} Decisions "
             "are Holm-adjusted over the pairs of the next section.</p>")
    plot = _figure_html(ranking_plot(cmp), "Accuracy of each model with its interval; best "
                        "group: " + ", ".join(cmp.best))
    table = cmp.summary.copy()
    if cmp.reference is not None:
        meaning = {m: text for m, (_, text) in model_colours(cmp).items()}
        table["against_reference"] = [meaning[m] for m in table["model"]]
    first = ["model", "rank", "accuracy", "ci_low", "ci_high", "best", "against_reference"]
    table = table[[c for c in first if c in table] + [c for c in table if c not in first]]
    return _wrap(_h2("pc-accuracy") + intro + plot + table_html(
        table, "accuracy", headers={"n": "predictions", "n_observations": "observations"}))


PAIR_VIEWS = [("", ["estimate", "ci_low", "ci_high", "pvalue_adjusted", "reject", "test"], False),
              ("5 × 2cv t and F tests of the same pairs, unadjusted",
               ["t5x2_statistic", "t5x2_pvalue", "f5x2_statistic", "f5x2_pvalue"], False),
              ("Bayesian correlated t: posterior probabilities",
               ["p_a_better", "p_rope", "p_b_better"], False),
              ("Test statistics and unadjusted p-values",
               ["statistic", "df", "pvalue", "b", "c"], True),
              ("Notes", ["note"], True)]


def section_pairs(cmp: ModelComparison) -> Any:
    """Render the pairwise accuracy tests, Holm-adjusted, as a plot and tables.

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
        intro = ("<p>Each pair is compared by the corrected repeated k-fold t-test, Nadeau & "
                 "Bengio's correction in Bouckaert & Frank's r × k form, on the per-fold accuracy "
                 "differences; n_test / n_train comes from the fold sizes: "
                 f"{cmp.settings.get('test_train_ratio') or float('nan'):.4f}. ")
        if "t5x2_pvalue" in cmp.pairs:
            intro += "The 5 × 2cv t and F tests are given as well. "
        if "p_a_better" in cmp.pairs:
            intro += ("The Bayesian correlated t of Corani & Benavoli gives the posterior "
                      "probabilities that A is better, that the two are practically equivalent "
                      f"with accuracies within ±{cmp.settings.get('rope') or 0:g}, and that B is "
                      "better: p_a_better, p_rope, p_b_better. ")
        intro += "</p>"
    else:
        intro = ("<p>Each pair is compared by McNemar's exact test on the observations where "
                 "exactly one model is right, b: only A, c: only B; when b + c is below 25 the "
                 "mid-p version is used and the table says so. The estimate is accuracy A − B "
                 "with Newcombe's interval.</p>")
    intro += (f"<p>The family: {esc(_family(cmp))}. p-values are adjusted with Holm's method "
              "across this family; colour and <em>reject</em> mark the adjusted decision at "
              f"α = {cmp.alpha:g}. Intervals are unadjusted.</p>")
    m = len(cmp.models)
    if len(cmp.pairs) <= 21 or cmp.reference is not None:
        plot = _figure_html(pairs_forest(cmp), "Accuracy differences of each pair, coloured by "
                            "the Holm-adjusted decision")
    else:
        plot = _figure_html(pairs_matrix(cmp), f"Matrix of accuracy differences of {m} models; "
                            "dots mark pairs that differ after Holm's adjustment")
    return _wrap(_h2("pc-pairs") + intro + plot + table_html(
        cmp.pairs, "pairs", key=["model_a", "model_b"], views=PAIR_VIEWS))


def _class_counts_named(cmp: ModelComparison) -> pd.DataFrame:
    out = cmp.class_counts.copy()
    out.columns = ["class", "n_true"] + [f"n_pred {m}" for m in cmp.models]
    return out


PER_CLASS_VIEWS = [("", ["precision_a", "precision_b", "rp", "rp_ci_low", "rp_ci_high",
                         "gs_pvalue_adjusted"], False),
                   ("Test statistics and unadjusted p-values",
                    ["n_pred_a", "n_pred_b", "gs_statistic", "gs_pvalue", "wgs_statistic",
                     "wgs_pvalue", "gw_statistic", "gw_pvalue", "rp_pvalue"], True),
                   ("Notes", ["note"], True)]


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
             "each pair of the page's family and each class: the generalized score test GS, "
             "Kosinski's weighted score test WGS, the GEE Wald test on the logit scale GW and "
             "the relative precision RP = precision A / precision B with its interval. "
             "<em>gs_pvalue_adjusted</em> is Holm's adjustment across all classes × pairs; "
             "colours in the plots mark that decision. A test that does not exist for a class "
             "is blank, with the reason in <em>note</em>.</p>"]
    if cmp.design["design"] == "repeated cv":
        parts.append("<p>With repeated cross-validation every test is clustered on the "
                     "observation: an observation's repeated predictions count once in the "
                     "variance.</p>")
    if k <= 60:
        parts.append(_figure_html(precision_heatmap(cmp), "Precision of every model per class"))
    models = [c for c in cmp.precision.columns if c != "class"]
    parts.append("<h3>Precision per class and model</h3>")
    parts.append(table_html(cmp.precision, "precision", key=["class"], views=_chunks(models)))
    parts.append("<h3>How often each class is true and predicted</h3>")
    counted = _class_counts_named(cmp)
    parts.append(table_html(counted, "class_counts", key=["class", "n_true"],
                            views=_chunks([c for c in counted.columns if c.startswith("n_pred ")])))
    parts.append("<h3>Paired tests per class</h3>")
    pairs = list(dict.fromkeys(zip(cmp.per_class.model_a, cmp.per_class.model_b)))
    sig = cmp.per_class[cmp.per_class.gs_pvalue_adjusted <= cmp.alpha]
    if len(pairs) * k <= 40:
        parts.append(_figure_html(rp_forest(cmp), "Relative precision per class and pair, "
                                  "coloured by the adjusted decision"))
    else:
        shown = list(dict.fromkeys(sig["class"]))[:40] if k > 40 else list(cmp.classes)
        if shown:
            note = ("" if k <= 40 else f"<p class='meta'>The {len(shown):,} classes of {k:,} with at "
                    "least one adjusted difference.</p>")
            parts.append(note + _figure_html(rp_matrix(cmp, shown), "Relative precision per "
                                             "class and pair; dots mark adjusted differences"))
        else:
            parts.append("<p>No class shows a precision difference after Holm's adjustment.</p>")
    parts.append(table_html(cmp.per_class, "per_class", max_rows=2000,
                            key=["model_a", "model_b", "class"], views=PER_CLASS_VIEWS))
    return _wrap("".join(parts))


def section_gee(cmp: ModelComparison) -> Any:
    """Render the GEE section: joint test per class, odds ratios and pairwise tests.

    The odds ratios against the reference appear only on a page with a reference; on such a
    page the pairwise GEE tests of every pair are a separate family, and say so.

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
             "clustered on the observation, in closed form: Gondara's Algorithms 1 and 2. The "
             "joint Wald test asks whether all models have the same precision for that class; "
             "<em>pvalue_adjusted</em> is Holm across classes.</p>")
    parts = [_h2("pc-gee"), intro, table_html(cmp.gee, "gee_joint")]
    if cmp.reference is not None:
        parts.append("<h3>Precision odds ratios against the reference</h3><p>The odds of a "
                     "prediction being right, each model over the reference model "
                     f"{esc(cmp.reference)}: an odds ratio, not a ratio of precisions.</p>"
                     + table_html(cmp.gee_coefficients, "gee_coefficients", max_rows=2000,
                                  key=["class", "model"],
                                  views=[("", ["odds_ratio", "ci_low", "ci_high", "pvalue"],
                                          False)]))
        parts.append("<h3>Beyond the reference: pairwise GEE Wald tests of every pair</h3><p>A "
                     "separate family from the rest of this page: every pair of models, not "
                     "only those with the reference. <em>pvalue_holm</em> is Holm's adjustment "
                     "across the pairs of each class.</p>")
    else:
        parts.append("<h3>Pairwise GEE Wald tests</h3><p><em>pvalue_holm</em> is Holm's "
                     "adjustment across the pairs of each class.</p>")
    parts.append(table_html(cmp.gee_pairwise, "gee_pairwise", max_rows=2000))
    return _wrap("".join(parts))


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
    return _wrap(_h2("pc-combined") + intro + table_html(
        cmp.combined, "combined", key=["model_a", "model_b"],
        views=[("", ["method", "pvalue", "pvalue_adjusted", "n_classes", "classes_driving"],
                False)]))


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
    models = [c for c in cmp.fold_scores.columns if c not in ("repeat", "fold", "n_test")]
    return _wrap("<h3>Accuracy per fold</h3><p>The per-fold accuracies the t-tests use.</p>"
                 + table_html(cmp.fold_scores, "fold_scores", key=["repeat", "fold", "n_test"],
                              views=_chunks(models)))


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
            "observations": f"{cmp.design['observations']:,}",
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
