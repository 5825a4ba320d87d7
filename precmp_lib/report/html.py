"""The report page's HTML kit: escaping, tables, colours, the page's styles."""

from __future__ import annotations

import html
import math
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._lib.text import DIRECTION_CONTROLS
from ..compare.prediction_conclusions import count_of, format_pvalue

__all__ = ['BIDI_NOTE', 'CSS', 'Html', 'bidi_note', 'esc', 'table_html']


# One palette for every plot, the report page's and the course's: Okabe & Ito (2008), colours
# readable by people with the common colour-vision deficiencies; classifiers take them in order.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
BLUE, VERMILLION, BLACK = PALETTE[0], PALETTE[3], PALETTE[7]
GREY, DARK_GREY = "#8C8C8C", "#555555"  # grey for "not shown", dark grey for guide lines (α, 0)
# One colour language for every plot of the page: blue says better (the best group, a model or a
# pair's first model shown more accurate or more precise), vermillion says worse, grey says "not
# shown to differ" and nothing else, black marks the reference. Maps of differences use the same
# direction: blue positive, red negative.
BETTER, WORSE, NOT_SHOWN, REFERENCE = BLUE, VERMILLION, GREY, BLACK
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


# What a spreadsheet takes for the start of a formula in a cell it opens (OWASP's list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` with every text cell (and column name) that starts a formula quoted.

    A spreadsheet opening a CSV file runs a cell that starts with ``=``, ``+``, ``-``, ``@``,
    a tab or a carriage return as a formula (``=HYPERLINK(...)`` sends the sheet's data
    away); such a text gets a leading ``'``, which the spreadsheet shows as text. Numbers stay
    numbers (a negative difference is not text); the JSON keeps the names as they are.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        A copy, with the quoted texts.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["=HYPERLINK(1)", "a-b", "@x"], "diff": [-0.5, 0.1, 0.2]})
    >>> safe = spreadsheet_safe(frame)
    >>> safe["model"].tolist(), safe["diff"].tolist()
    (["'=HYPERLINK(1)", 'a-b', "'@x"], [-0.5, 0.1, 0.2])
    """
    def cell(v: Any) -> Any:
        return "'" + v if isinstance(v, str) and v.startswith(FORMULA_STARTS) else v

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(cell)
    return out.rename(columns=lambda c: cell(c) if isinstance(c, str) else c)


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
    >>> link.endswith(">Download CSV (1 row)</a>"), "model%2Caccuracy%0D%0Aa%2C0.9" in link
    (True, True)
    """
    # CRLF ends the rows (RFC 4180), so a text holding a lone CR is quoted, not split
    data = urllib.parse.quote(spreadsheet_safe(frame).to_csv(index=False, lineterminator="\r\n"))
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
