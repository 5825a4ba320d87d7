"""The report page's HTML kit: escaping, tables, colours, the page's styles."""

from __future__ import annotations

import base64
import html
import io
import json
import math
import urllib.parse
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._lib.text import DIRECTION_CONTROLS
from ..compare.prediction_conclusions import count_of, format_pvalue

__all__ = ['BIDI_NOTE', 'CSS', 'HEAT_MAP_LEGEND', 'Html', 'bidi_note', 'esc', 'family_sentence', 'heat_map_html',
           'settings_table', 'table_html']


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


def settings_table(rows: dict, notes: Sequence[str] = (), versions: dict | None = None, *,
                   first_note: str = "note 1") -> str:
    """Return every page's last table: the settings, the notes, the library versions.

    ``rows`` maps a setting to its value; the notes follow as ``note 1``, ``note 2`` ... (the
    first one named ``first_note``), then ``versions``. Every value is shown as text.

    >>> page = settings_table({"alpha": 0.05}, ["a note"], {"numpy": "2.0"})
    >>> "note 1" in page and "a note" in page and "numpy" in page
    True
    """
    rows = dict(rows)
    for i, note in enumerate(notes):
        rows[f"note {i + 1}" if i else first_note] = note
    rows.update(versions or {})
    frame = pd.DataFrame({"setting": list(rows), "value": [str(v) for v in rows.values()]})
    return table_html(frame, "settings")


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
    # a column of whole numbers is shown without decimals, but never a p-value's: a p-value of
    # 0 underflowed (it is "< 0.0001", not "0")
    whole = {c for c in shown.columns if pd.api.types.is_float_dtype(shown[c])
             and not ("pvalue" in str(c) or str(c).startswith("p_"))
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


# drawn in the page by the script below: the colour of a cell from the quantised difference
# and adjusted p-value of its pair; the order of the rows and columns chosen by the reader
HEAT_SCRIPT = """
(function(){
var box=document.currentScript.parentNode;
var still=box.querySelector('.hm-static');if(still)still.remove();
box.insertAdjacentHTML('afterbegin',box.dataset.control);
var el=box.querySelector('canvas'),sel=box.querySelector('select'),out=box.querySelector('.hm-out');
var names=JSON.parse(box.dataset.names),k=names.length,alpha=parseFloat(box.dataset.alpha);
var unit=box.dataset.unit==='1',scale=parseFloat(box.dataset.scale);
function bytes(s){var b=atob(s),a=new Uint8Array(b.length);for(var i=0;i<b.length;i++)a[i]=b.charCodeAt(i);return a;}
var d=new Int16Array(bytes(box.dataset.diff).buffer),q=new Uint16Array(bytes(box.dataset.logp).buffer);
function at(i,j){if(i===j)return null;var a=Math.min(i,j),b=Math.max(i,j);
var n=a*k-a*(a+1)/2+(b-a-1),s=i<j?1:-1;return [s*d[n]*scale/32767,Math.pow(10,-q[n]/1000)];}
var cell=Math.max(1,Math.min(18,Math.floor(720/k))),pad=k<=60?110:0;
el.width=el.height=pad+cell*k;var g=el.getContext('2d'),order=[];
function colour(v,p,mode){if(v===null)return '#ffffff';
if(mode==='p'){if(p>=alpha)return '#d9d9d9';var t=Math.min(1,-Math.log10(Math.max(p,1e-300))/10);
return v>0?'rgba(0,114,178,'+(0.35+0.65*t)+')':'rgba(213,94,0,'+(0.35+0.65*t)+')';}
var m=Math.max(-1,Math.min(1,v/Math.max(1e-12,scale)));
return m>0?'rgba(0,114,178,'+m+')':'rgba(213,94,0,'+(-m)+')';}
function draw(){var how=sel.value,mode=how.split(':')[0];order=[];for(var i=0;i<k;i++)order.push(i);
if(how.split(':')[1]==='name')order.sort(function(a,b){return names[a]<names[b]?-1:names[a]>names[b]?1:0;});
g.fillStyle='#fff';g.fillRect(0,0,el.width,el.height);
for(var r=0;r<k;r++)for(var c=0;c<k;c++){var x=at(order[r],order[c]);
g.fillStyle=colour(x&&x[0],x&&x[1],mode);g.fillRect(pad+c*cell,pad+r*cell,cell,cell);}
if(pad){g.fillStyle='#222';g.font=Math.min(12,cell)+'px sans-serif';
for(var i=0;i<k;i++){var t=names[order[i]].slice(0,16);g.textAlign='right';
g.fillText(t,pad-4,pad+i*cell+cell*0.8);g.save();g.translate(pad+i*cell+cell*0.8,pad-4);
g.rotate(-Math.PI/2);g.textAlign='left';g.fillText(t,0,0);g.restore();}}}
el.addEventListener('mousemove',function(e){var b=el.getBoundingClientRect(),f=el.width/b.width;
var c=Math.floor(((e.clientX-b.left)*f-pad)/cell),r=Math.floor(((e.clientY-b.top)*f-pad)/cell);
if(r<0||c<0||r>=k||c>=k||r===c){out.textContent='';return;}var x=at(order[r],order[c]);
var v=unit?(x[0]*100).toFixed(1)+' points':x[0].toPrecision(3);
out.textContent=names[order[r]]+' \u2212 '+names[order[c]]+' = '+(x[0]>0?'+':'')+v+
', Holm-adjusted p '+(x[1]<1e-4?'< 0.0001':'= '+x[1].toPrecision(2));});
sel.addEventListener('change',draw);draw();})();
"""


def _heat_data(all_pairs: pd.DataFrame, names: list[str]) -> tuple[str, str, float]:
    """Quantise every pair for the page's script.

    Returns the differences (int16, of ``scale``) and -1000 log10 of the adjusted p-values
    (uint16), in the upper triangle of ``names``' order, base64; and the scale.
    """
    k = len(names)
    index = {m: i for i, m in enumerate(names)}
    ap = all_pairs
    a = ap["model_a"].map(index).to_numpy(int)
    b = ap["model_b"].map(index).to_numpy(int)
    est = ap["estimate"].to_numpy(float)
    swap = a > b
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    diff = np.where(swap, -est, est)  # the earlier model minus the later one
    n = lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)
    scale = float(np.nanmax(np.abs(diff))) if len(diff) and np.isfinite(diff).any() else 1.0
    scale = scale if scale > 0 else 1.0
    d = np.zeros(k * (k - 1) // 2, dtype="<i2")
    q = np.zeros(k * (k - 1) // 2, dtype="<u2")
    d[n] = np.round(np.nan_to_num(diff / scale) * 32767).astype("<i2")
    logp = -np.log10(np.clip(ap["pvalue_adjusted"].to_numpy(float), 1e-65, 1.0)) * 1000
    q[n] = np.round(np.nan_to_num(logp)).astype("<u2")
    return (base64.b64encode(d.tobytes()).decode("ascii"),
            base64.b64encode(q.tobytes()).decode("ascii"), scale)


# what the colours of :func:`heat_map_html` mean, said once for every route's page
HEAT_MAP_LEGEND = ("A cell is the row's model minus the column's: blue, the row's model is shown "
                   "better (α = {alpha:g}); vermillion, shown worse; grey, not shown to differ; "
                   "the deeper the colour, the smaller the adjusted p-value (or, by difference, "
                   "the larger the difference). Point at a cell for its numbers.")


def family_sentence(k: int, family: str, *, reference: str | None, leader: str, many: int,
                    per: str = "", measures: str = "", heat: str = "") -> str:
    """Say which pairs a page tested and over which Holm's adjustment runs (every route's).

    Parameters
    ----------
    k : int
        The models.
    family : {"all", "leader", "reference"}
        The pairs tested.
    reference : str or None
        The reference model (family ``"reference"``).
    leader : str
        How the page names the leader ("the top model of each task").
    many : int
        Beyond this many models the leader is the default family.
    per : str
        Where the pairs are counted (" per task").
    measures : str
        What the family's pairs are tested for (", for accuracy and ...").
    heat : str
        What the page's heat map tests ("every pair"); "" when the page has none.

    Returns
    -------
    str

    Examples
    --------
    >>> family_sentence(12, "reference", reference="m4", leader="", many=10, heat="every pair")
    "Each model is tested against the reference, m4 (--reference; 11 pairs), Holm's adjustment over those pairs; the heat map tests every pair, Holm over all 66."
    """
    every = k * (k - 1) // 2
    tail = f"; the heat map tests {heat}, Holm over all {every:,}" if heat else ""
    if family == "reference":
        return (f"Each model is tested against the reference, {reference} (--reference; "
                f"{k - 1:,} pairs{per}), Holm's adjustment over those pairs{tail}.")
    if family == "leader":
        return (f"Each model is tested against the leader, {leader} (--pairs leader, the "
                f"default beyond {many} models: {k - 1:,} pairs{per}, not {every:,}), Holm's "
                f"adjustment over those pairs{measures}{tail}.")
    return (f"Every pair is tested (--pairs all: {every:,} pairs{per}), Holm's adjustment over "
            "them.")


def heat_map_html(all_pairs: pd.DataFrame, names: list[str], alpha: float,
                  unit: bool = True) -> str:
    """Render every pair as one heat map, drawn once in the page (a canvas, an inline script).

    Parameters
    ----------
    all_pairs : DataFrame
        One row per pair: ``model_a``, ``model_b``, ``estimate`` (a − b), ``pvalue_adjusted``.
    names : list of str
        The models, in the order of the rows and columns (ranked).
    alpha : float
        The level of the decisions (a cell is grey at or above it).
    unit : bool
        Differences on a 0–1 scale (shown in points).

    Returns
    -------
    str
        The heat map and its control, with the table as CSV up to 2,000 pairs.

    Examples
    --------
    >>> t = pd.DataFrame({"model_a": ["<a>"], "model_b": ["b"], "estimate": [0.1],
    ...                   "pvalue_adjusted": [0.01]})
    >>> page = heat_map_html(t, ["<a>", "b"], 0.05)
    >>> "&lt;a&gt;" in page, '"<a>"' in page
    (True, False)
    """
    diff, logp, scale = _heat_data(all_pairs, names)
    # the control is added by the script: where scripts do not run (a notebook's output in
    # JupyterLab, a mail client) the image drawn here stands instead, and no dead control
    control = ('<p><label>Colour and order: <select><option value="p:rank">adjusted p-value, '
               'by rank</option><option value="p:name">adjusted p-value, by name</option>'
               '<option value="d:rank">difference, by rank</option><option value="d:name">'
               'difference, by name</option></select></label></p>')
    attrs = (f'data-names="{esc(json.dumps(names))}" data-alpha="{alpha:g}" '
             f'data-unit="{1 if unit else 0}" data-scale="{scale!r}" data-diff="{diff}" '
             f'data-logp="{logp}" data-control="{esc(control)}"')
    csv = ""
    if len(all_pairs) <= 2_000:  # a small table also comes as CSV (about 300 KB at most)
        csv = f"<p>{csv_link(all_pairs, 'all_pairs.csv')}</p>"
    k = len(names)
    still = (f'<div class="hm-static"><p><img src="data:image/png;base64,'
             f'{heat_map_png(all_pairs, names, alpha)}" width="{_heat_cell(k) * k}" '
             f'alt="heat map of every pair of the {k:,} models, by adjusted p-value" '
             'style="max-width:100%;image-rendering:pixelated"></p><p class="meta">Rows and '
             "columns in rank order (the ranking above), coloured by the adjusted p-value. "
             "Opened in a browser, the page shows this map with the models' names, another "
             "order and each cell's numbers.</p></div>")
    return (f'<div class="heatmap" {attrs}>{still}'
            '<canvas role="img" aria-label="heat map of every pair" width="0" height="0" '
            'style="max-width:100%;image-rendering:pixelated"></canvas>'
            '<p class="hm-out meta" aria-live="polite"></p>'
            f"<script>{HEAT_SCRIPT}</script></div>" + csv)


def _heat_cell(k: int) -> int:
    """Pixels a side of one cell of the heat map of ``k`` models (as the page's script draws it)."""
    return max(1, min(18, 720 // k))


# the static heat map's palette: white (the diagonal), grey (not shown to differ), then blue
# and vermillion in _SHADES depths (0.35 to 1 over white, deeper for smaller p-values)
_SHADES = 6


def heat_map_png(all_pairs: pd.DataFrame, names: list[str], alpha: float) -> str:
    """Draw the heat map by adjusted p-value as a PNG, base64 (the page's fallback).

    The colours are the script's: a cell is the row's model minus the column's, blue where the
    row's model is shown better at ``alpha``, vermillion where shown worse, grey where not shown
    to differ; the depth grows with -log10 p up to p = 1e-10, in ``_SHADES`` steps. Rows and
    columns in the order of ``names``; each cell a square of :func:`_heat_cell` pixels.

    Examples
    --------
    >>> import base64, io
    >>> from PIL import Image  # matplotlib's own image library
    >>> t = pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "estimate": [0.1],
    ...                   "pvalue_adjusted": [0.01]})
    >>> im = Image.open(io.BytesIO(base64.b64decode(heat_map_png(t, ["a", "b"], 0.05))))
    >>> rgb = im.convert("RGB")  # row a, column b: a shown better (p = 0.01, the second depth)
    >>> im.size, rgb.getpixel((20, 0)), rgb.getpixel((0, 20)), rgb.getpixel((0, 0))
    ((36, 36), (124, 183, 216), (233, 172, 124), (255, 255, 255))
    """
    from matplotlib.image import imsave

    k = len(names)
    index = {m: i for i, m in enumerate(names)}
    a = all_pairs["model_a"].map(index).to_numpy(int)
    b = all_pairs["model_b"].map(index).to_numpy(int)
    est = all_pairs["estimate"].to_numpy(float)
    p = all_pairs["pvalue_adjusted"].to_numpy(float)
    depth = np.minimum(1.0, -np.log10(np.clip(np.nan_to_num(p, nan=1.0), 1e-300, 1.0)) / 10)
    shade = np.minimum(_SHADES - 1, np.floor(depth * _SHADES)).astype(int)
    shown = np.nan_to_num(p, nan=1.0) < alpha
    # palette index: 0 white, 1 grey, 2.. blue shades, 2 + _SHADES.. vermillion shades
    better = np.where(est > 0, 2, 2 + _SHADES) + shade
    grid = np.zeros((k, k), dtype=np.uint8)
    grid[a, b] = np.where(shown, better, 1)
    grid[b, a] = np.where(shown, np.where(est > 0, 2 + _SHADES, 2) + shade, 1)
    grid[np.arange(k), np.arange(k)] = 0
    cell = _heat_cell(k)
    grid = np.repeat(np.repeat(grid, cell, axis=0), cell, axis=1)
    palette = [255, 255, 255, 217, 217, 217]
    for rgb in ((0, 114, 178), (213, 94, 0)):
        for s in range(_SHADES):
            w = 0.35 + 0.65 * (s + 0.5) / _SHADES  # the middle of the step's depths
            palette += [round(255 * (1 - w) + c * w) for c in rgb]
    buf = io.BytesIO()
    imsave(buf, np.asarray(palette, dtype=np.uint8).reshape(-1, 3)[grid], format="png")
    return base64.b64encode(buf.getvalue()).decode("ascii")
