"""The course site (``make report``): every notebook rendered into static pages that work offline.

``build_site`` runs the course notebooks (and their solutions under ``notebooks/solutions/``)
side by side in a pool of worker processes (:mod:`precmp_lib.report.notebooks`), renders each
into an HTML page that loads nothing from outside the site folder, renders the methods reference
``docs/methods.md`` and the report on each shipped example predictions file (through the
``precmp report`` command, :mod:`precmp_lib.cli`, which renders it with
:mod:`precmp_lib.report.render`), and writes an ``index.html`` linking them all.

A page made by nbconvert would fetch require.js, the widget manager and MathJax from CDNs. Here
each widget output is replaced by a still of its initial state (the HTML table, the image, the
sliders' values) with a line saying that ``make lab`` makes it move; MathJax is served from the
site's own ``static/`` folder; links between notebooks (``NN_name.ipynb``, which work in
JupyterLab) become links between pages (``NN_name.html``).

Run it as ``python -m precmp_lib.course.site --out build/reports [--jobs N] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import html
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

from .._lib.atomic import write_atomic
from ..report.notebooks import NotebookError, notebook_question, render_notebook

__all__ = [
    "build_site",
    "drop_injected_output_dir",
    "external_references",
    "missing_requirement",
    "offline_page",
    "relative_links",
    "rewrite_links",
    "static_widgets",
]

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"  # solutions in NOTEBOOKS / "solutions"; methods in ROOT / "docs"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MATHJAX_DIR = "static/mathjax"
MATHJAX_CONFIG = "MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
LAB_NOTE = ("A still of this widget as the notebook left it. Open the notebook with "
            "<code>make lab</code> and run it to move the controls.")
CONTROLS_NOTE = ("The controls of this widget as the notebook left them; what they drive is shown "
                 "once, below, at this starting state. Open the notebook with <code>make lab</code> "
                 "and run it to move them.")
# a code cell with this tag draws a widget's starting state for pages without a live kernel
START_TAG = "widget-start"


# --------------------------------------------------------------------------------------------
# widgets -> static HTML
# --------------------------------------------------------------------------------------------


def static_widgets(nb: Any) -> int:
    """Replace every widget output of an executed notebook by a still of its saved state.

    The state is the one papermill (nbclient) stores in ``nb.metadata.widgets`` when the run
    ends. Each ``application/vnd.jupyter.widget-view+json`` output that holds a control (a
    slider, a dropdown, a box to tick, ...) becomes ``text/html`` built from that state,
    followed by a line saying that ``make lab`` makes the widget move. Progress bars (tqdm's,
    for instance) are dropped: finished, they say nothing, and their timings differ between
    runs. Widgets that only display something are kept as stills without that line. When the
    next code cell is tagged ``widget-start`` (it draws the widget's starting state for pages
    like these), only the controls are kept, so the page does not show the same figure or
    table twice. The saved state is then dropped, so nbconvert adds no widget scripts to the page.

    Parameters
    ----------
    nb : NotebookNode
        An executed notebook (``nbformat``), changed in place.

    Returns
    -------
    int
        The number of outputs that became stills with the ``make lab`` line (the controls).
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    explorers = 0
    code = [c for c in nb.cells if c.get("cell_type") == "code"]
    followed = {id(c) for c, nxt in itertools.pairwise(code)
                if START_TAG in nxt.get("metadata", {}).get("tags", [])}
    for cell in nb.cells:
        kept = []
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                kept.append(output)
                continue
            model_id = str(view.get("model_id", ""))
            names = _model_names(model_id, state)
            interactive = not names or any(n.endswith(_CONTROLS) for n in names)
            if not interactive and any(n.endswith("ProgressModel") for n in names):
                continue
            note = ""
            if interactive and id(cell) in followed and names:
                # the next cell draws the starting state: show the controls only, not it twice
                still = f"<div class='precmp-box'>{_controls_html(model_id, state)}</div>"
                note = f"<p class='precmp-widget-note'>{CONTROLS_NOTE}</p>"
            else:
                still = _widget_html(model_id, state, depth=0)
                if interactive:
                    note = f"<p class='precmp-widget-note'>{LAB_NOTE}</p>"
            explorers += interactive
            ident = f" id='widget-{explorers}'" if interactive else ""
            output["data"] = {"text/html": f"<div class='precmp-widget'{ident}>{still}{note}</div>"}
            kept.append(output)
        if "outputs" in cell:
            cell["outputs"] = kept
    nb.metadata.pop("widgets", None)
    return explorers


SENTENCE_TAG = "sentence"


def final_progress_text(nb: Any) -> int:
    r"""Give every progress bar of an executed notebook the text it ended with.

    A progress bar (tqdm's in a notebook) is a widget whose saved output also carries a plain
    text for readers without widgets, written when the bar was drawn: ``0%| | 0/20``. The state
    saved at the end of the run (``nb.metadata.widgets``) holds its final texts; each such
    output's ``text/plain`` becomes them, so a copy opened without a kernel, or shown as text,
    reads where the bar ended. The widget view itself is kept.

    Parameters
    ----------
    nb : NotebookNode
        An executed notebook (``nbformat``), changed in place.

    Returns
    -------
    int
        The number of progress outputs given their final text.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook()
    >>> ids = {"box": "HBoxModel", "left": "HTMLModel", "bar": "FloatProgressModel", "right": "HTMLModel"}
    >>> state = {k: {"model_name": v, "state": {}} for k, v in ids.items()}
    >>> state["box"]["state"]["children"] = ["IPY_MODEL_left", "IPY_MODEL_bar", "IPY_MODEL_right"]
    >>> state["left"]["state"]["value"] = "folds: 100%"
    >>> state["bar"]["state"].update(value=20, max=20)
    >>> state["right"]["state"]["value"] = " 20/20 [00:03&lt;00:00,  6.1it/s]"
    >>> nb.metadata["widgets"] = {WIDGET_STATE: {"state": state}}
    >>> out = nbformat.v4.new_output("display_data", data={
    ...     WIDGET_VIEW: {"model_id": "box"}, "text/plain": "folds:   0%|          | 0/20"})
    >>> nb.cells = [nbformat.v4.new_code_cell("cv()", outputs=[out])]
    >>> final_progress_text(nb), nb.cells[0].outputs[0].data["text/plain"]
    (1, 'folds: 100%| 20/20 [00:03<00:00,  6.1it/s]')
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    done = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                continue
            model_id = str(view.get("model_id", ""))
            if not any(n.endswith("ProgressModel") for n in _model_names(model_id, state)):
                continue
            box = _model(model_id, state) or {}
            parts = []
            for child in box.get("state", {}).get("children", []) or []:
                model = _model(child, state) or {}
                attrs = model.get("state", {})
                if str(model.get("model_name", "")).endswith("ProgressModel"):
                    parts.append("|")
                elif isinstance(attrs.get("value"), str):
                    parts.append(html.unescape(re.sub(r"<[^>]*>", "", attrs["value"])))
            if parts:
                output["data"]["text/plain"] = "".join(parts).strip()
                done += 1
    return done


# model names (their endings) of the widgets a reader moves or sets
_CONTROLS = ("SliderModel", "DropdownModel", "RadioButtonsModel", "ToggleButtonsModel",
             "SelectModel", "SelectMultipleModel", "CheckboxModel", "ToggleButtonModel",
             "ButtonModel", "TextModel", "TextareaModel", "PlayModel", "ColorPickerModel",
             "DatePickerModel", "ComboboxModel", "TagsInputModel")


def _model_names(model_id: str, state: Mapping[str, Any], depth: int = 0) -> list[str]:
    """List the model names of a widget and of everything it contains ([] if not saved)."""
    model = _model(model_id, state)
    if model is None or depth > 20:
        return []
    names = [str(model.get("model_name", ""))]
    for child in model.get("state", {}).get("children", []) or []:
        names += _model_names(str(child), state, depth + 1)
    return names


def _controls_html(model_id: str, state: Mapping[str, Any], depth: int = 0) -> str:
    """Render the stills of a widget's controls (sliders, menus, ...), not what they display."""
    model = _model(model_id, state)
    if model is None or depth > 20:
        return ""
    children = model.get("state", {}).get("children") or []
    if children:
        return "".join(_controls_html(str(c), state, depth + 1) for c in children)
    if str(model.get("model_name", "")).endswith(_CONTROLS):
        return _widget_html(model_id, state, depth=depth)
    return ""


def _model(ref: Any, state: Mapping[str, Any]) -> Mapping[str, Any] | None:
    key = str(ref).removeprefix("IPY_MODEL_")
    model = state.get(key)
    return model if isinstance(model, Mapping) else None


def _widget_html(model_id: str, state: Mapping[str, Any], *, depth: int) -> str:
    model = _model(model_id, state)
    if model is None or depth > 20:
        return "<p class='precmp-widget-missing'>(the widget's state was not saved with the run)</p>"
    name = str(model.get("model_name", ""))
    attrs = model.get("state", {})
    for suffix, render in _RENDERERS:
        if name.endswith(suffix):
            return render(model, attrs, state, depth)
    label = html.escape(name.removesuffix("Model") or "widget")
    return f"<p class='precmp-widget-missing'>({label}: interactive only in a live notebook)</p>"


def _described(attrs: Mapping[str, Any], body: str) -> str:
    desc = str(attrs.get("description") or "")
    label = f"<span class='precmp-label'>{html.escape(desc)}</span>" if desc else ""
    return f"<div class='precmp-control'>{label}{body}</div>"


def _formatted(value: Any, spec: str) -> str:
    try:
        return format(value, spec.lstrip("%")) if spec else str(value)
    except (TypeError, ValueError):
        return str(value)


def _html_model(model: Any, attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    # the value is HTML the notebook itself produced (a table, a note): kept as it is
    body = f"<div class='precmp-html'>{attrs.get('value', '')}</div>"
    return _described(attrs, body) if attrs.get("description") else body


def _text_model(model: Any, attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    return _described(attrs, f"<span class='precmp-value'>{html.escape(str(attrs.get('value', '')))}</span>")


def _image_model(model: Mapping[str, Any], attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    data = next((b.get("data", "") for b in model.get("buffers", []) if b.get("path") == ["value"]),
                attrs.get("value", ""))
    if not data:
        return "<p class='precmp-widget-missing'>(empty image)</p>"
    fmt = str(attrs.get("format") or "png")
    mime = "image/svg+xml" if fmt == "svg" else f"image/{html.escape(fmt)}"
    size = "".join(f" {k}='{html.escape(str(attrs[k]))}'" for k in ("width", "height") if attrs.get(k))
    return f"<img class='precmp-image' alt='' src='data:{mime};base64,{data}'{size}>"


def _slider_model(model: Any, attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    value, lo, hi = attrs.get("value"), attrs.get("min"), attrs.get("max")
    spec = str(attrs.get("readout_format") or "")
    if isinstance(value, list):  # range sliders
        shown = " – ".join(_formatted(v, spec) for v in value)
        position = value[0]
    else:
        shown, position = _formatted(value, spec), value
    track = ""
    if (isinstance(position, int | float) and isinstance(lo, int | float)
            and isinstance(hi, int | float) and hi > lo):
        pct = max(0.0, min(100.0, 100.0 * (position - lo) / (hi - lo)))
        track = (f"<span class='precmp-track' title='range {_formatted(lo, spec)} to "
                 f"{_formatted(hi, spec)}'><span class='precmp-thumb' style='left:{pct:.1f}%'>"
                 "</span></span>")
    return _described(attrs, f"{track}<span class='precmp-value'>{html.escape(shown)}</span>")


def _selection_model(model: Any, attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    labels = attrs.get("_options_labels") or []
    index = attrs.get("index")
    if isinstance(index, list):
        chosen = ", ".join(str(labels[i]) for i in index if 0 <= i < len(labels))
    elif isinstance(index, int) and 0 <= index < len(labels):
        chosen = str(labels[index])
    else:
        chosen = "(none)"
    return _described(attrs, f"<span class='precmp-value'>{html.escape(chosen)}</span>")


def _bool_model(model: Any, attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    return _described(attrs, f"<span class='precmp-value'>{'yes' if attrs.get('value') else 'no'}</span>")


def _box_model(model: Mapping[str, Any], attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    row = str(model.get("model_name", "")) == "HBoxModel"
    inner = "".join(_widget_html(str(c), state, depth=depth + 1) for c in attrs.get("children", []))
    return f"<div class='precmp-box{' precmp-row' if row else ''}'>{inner}</div>"


def _button_model(model: Any, attrs: Mapping[str, Any], state: Any, depth: int) -> str:
    return f"<span class='precmp-button'>{html.escape(str(attrs.get('description', '')))}</span>"


_Renderer = Callable[[Any, Mapping[str, Any], Any, int], str]
# matched on the end of the model name, first match wins
_RENDERERS: tuple[tuple[str, _Renderer], ...] = (
    ("HTMLMathModel", _html_model), ("HTMLModel", _html_model),
    ("ImageModel", _image_model),
    ("RangeSliderModel", _slider_model), ("SelectionSliderModel", _selection_model),
    ("SliderModel", _slider_model), ("ProgressModel", _slider_model),
    ("TextModel", _text_model), ("TextareaModel", _text_model), ("LabelModel", _text_model),
    ("DropdownModel", _selection_model), ("RadioButtonsModel", _selection_model),
    ("ToggleButtonsModel", _selection_model), ("SelectModel", _selection_model),
    ("SelectMultipleModel", _selection_model),
    ("CheckboxModel", _bool_model), ("ToggleButtonModel", _bool_model),
    ("ButtonModel", _button_model),
    ("BoxModel", _box_model), ("AccordionModel", _box_model), ("TabModel", _box_model),
)

_WIDGET_CSS = """
.precmp-widget{border:1px solid #d0d7de;border-radius:6px;padding:.6rem .8rem;margin:.4rem 0;
background:#fbfcfd;max-width:46rem}
.precmp-widget-note{color:#57606a;font-size:.85em;margin:.5rem 0 0;font-style:italic}
.precmp-box{display:flex;flex-direction:column;gap:.4rem}.precmp-row{flex-direction:row;gap:1.5rem;
flex-wrap:wrap}
.precmp-control{display:flex;align-items:center;gap:.6rem;font-size:.95em}
.precmp-label{min-width:8rem;color:#24292f}.precmp-value{font-variant-numeric:tabular-nums;
font-weight:600}
.precmp-track{position:relative;display:inline-block;width:12rem;height:4px;background:#c8ced6;
border-radius:2px}
.precmp-thumb{position:absolute;top:-5px;width:14px;height:14px;margin-left:-7px;border-radius:50%;
background:#0072B2}
.precmp-image{max-width:min(100%,46rem);height:auto}.precmp-button{border:1px solid #aaa;padding:.1rem .6rem;
border-radius:4px}
.precmp-widget-missing{color:#777;font-style:italic}
.precmp-nav{font:14px system-ui,sans-serif;padding:.5rem 1rem;border-bottom:1px solid #e1e4e8}
.precmp-nav a{color:#0072B2;text-decoration:none;margin-right:1rem}
.precmp-code>summary{cursor:pointer;color:#57606a;font:13px system-ui,sans-serif;padding:.2rem 0}
"""


# --------------------------------------------------------------------------------------------
# links and offline checks
# --------------------------------------------------------------------------------------------

_HREF = re.compile(r"""(\bhref\s*=\s*)(["'])(.*?)\2""", re.IGNORECASE | re.DOTALL)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def rewrite_links(page: str, *, methods_href: str = "methods.html") -> str:
    """Point relative links at the site's pages instead of the repository's files.

    ``NN_name.ipynb`` (how notebooks link each other, which works in JupyterLab) becomes
    ``NN_name.html``, keeping any folder and ``#anchor``; a link to ``docs/methods.md`` becomes
    ``methods_href``. Absolute URLs and anchors within the page are left alone.

    Parameters
    ----------
    page : str
        HTML text.
    methods_href : str
        Where links to ``docs/methods.md`` point.

    Returns
    -------
    str
        The page with its ``href`` attributes rewritten.

    Examples
    --------
    >>> rewrite_links('<a href="02_cv_ttests.ipynb#setup">next</a>')
    '<a href="02_cv_ttests.html#setup">next</a>'
    >>> rewrite_links("<a href='../docs/methods.md#sec-6-1'>§6.1</a>")
    "<a href='methods.html#sec-6-1'>§6.1</a>"
    >>> rewrite_links('<a href="https://example.org/x.ipynb">x</a>')
    '<a href="https://example.org/x.ipynb">x</a>'
    """

    def one(m: re.Match[str]) -> str:
        target = html.unescape(m.group(3))
        if _SCHEME.match(target) or target.startswith(("/", "#")):
            return m.group(0)
        path, sep, anchor = target.partition("#")
        if path.endswith(".ipynb"):
            path = path[: -len(".ipynb")] + ".html"
        elif path == "docs/methods.md" or path.endswith("/docs/methods.md"):
            path = methods_href
        else:
            return m.group(0)
        return f"{m.group(1)}{m.group(2)}{html.escape(path + sep + anchor, quote=True)}{m.group(2)}"

    return _HREF.sub(one, page)


class _Refs(HTMLParser):
    """Collects (tag, attribute, value) of every href/src on the tags that make a page load."""

    LOADING: ClassVar[dict[str, tuple[str, ...]]] = {"script": ("src",), "link": ("href",), "img": ("src",), "iframe": ("src",),
               "source": ("src",), "video": ("src",), "audio": ("src",), "embed": ("src",)}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []
        self.anchors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in self.LOADING.get(tag, ()):
                self.refs.append((tag, name, value))
            elif tag == "a" and name == "href":
                self.anchors.append(value)

    handle_startendtag = handle_starttag


def external_references(page: str) -> list[str]:
    """List the URLs outside the page's own folder that the page would load.

    Scripts, styles, images and frames count, with ``http(s)://`` and protocol-relative ``//``
    addresses; links a reader may follow (``<a href>``) do not.

    Parameters
    ----------
    page : str
        HTML text.

    Returns
    -------
    list of str
        The external addresses in the order they appear; empty when the page works offline.

    Examples
    --------
    >>> external_references('<script src="https://cdn.example/x.js"></script><img src="a.png">')
    ['https://cdn.example/x.js']
    """
    parser = _Refs()
    parser.feed(page)
    return [v for _, _, v in parser.refs
            if v.strip().lower().startswith(("http://", "https://", "//"))]


def relative_links(page: str) -> list[str]:
    """List the relative targets of a page's links and loaded files.

    Parameters
    ----------
    page : str
        HTML text.

    Returns
    -------
    list of str
        The targets of ``<a href>`` and of loaded files (scripts, styles, images, ...) that are
        neither absolute (a scheme or a leading ``/``) nor anchors within the page, without
        ``#anchor`` or ``?query``.
    """
    parser = _Refs()
    parser.feed(page)
    out = []
    for v in [*parser.anchors, *(v for _, _, v in parser.refs)]:
        v = v.strip()
        if not v or _SCHEME.match(v) or v.startswith(("/", "#")):
            continue
        out.append(v.partition("#")[0].partition("?")[0])
    return out


_EXTERNAL_SCRIPT = re.compile(
    r"""<script\b[^>]*\bsrc\s*=\s*["'](?:https?:)?//[^"']*["'][^>]*>\s*</script>""", re.IGNORECASE)


def offline_page(page: str, mathjax_src: str) -> str:
    """Make a page from nbconvert's ``lab`` template load nothing from outside.

    Parameters
    ----------
    page : str
        HTML text of the page.
    mathjax_src : str
        Address of the site's copy of MathJax (with its fonts), relative to the page.

    Returns
    -------
    str
        The page with MathJax pointed at ``mathjax_src`` (after the site's MathJax
        configuration) and every other external script (require.js, which nothing on a page
        without live widgets needs) removed.
    """

    def one(m: re.Match[str]) -> str:
        tag = m.group(0)
        if "mathjax" in tag.lower():
            return f'{_MATHJAX_CONFIG}\n<script src="{html.escape(mathjax_src)}"></script>'
        return ""

    return _EXTERNAL_SCRIPT.sub(one, page)


# --------------------------------------------------------------------------------------------
# pages
# --------------------------------------------------------------------------------------------

# MathJax 2 set up for the STIX-Web fonts that jupyter-server-mathjax ships (it has no TeX fonts)
_MATHJAX_CONFIG = """<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]], displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]],
            processEscapes: true, processEnvironments: true},
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               linebreaks: {automatic: true}},
  displayAlign: "center", messageStyle: "none", showMathMenu: false
});
</script>"""

# nbconvert's lab page without the scripts that fetch from CDNs: no require.js, no widget
# manager (widgets are stills here), no mermaid loader (the notebooks draw no mermaid diagrams);
# MathJax comes from resources["mathjax_url"], the site's own copy. A code cell whose input is
# collapsed in the notebook (metadata jupyter.source_hidden, as JupyterLab stores it) shows its
# output, and its code folded under a summary; a cell tagged SENTENCE_TAG only builds a sentence
# from the results, and its page shows the sentence alone, without the code.
_PAGE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{% block html_head_js_requirejs %}{% endblock html_head_js_requirejs %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}
{%- block html_head_js_mathjax -%}
{{ resources.precmp_mathjax_config }}
<script src="{{ resources.mathjax_url | e }}"></script>
{%- endblock html_head_js_mathjax -%}
{% block extra_css %}<style type="text/css">{{ resources.precmp_css }}</style>{% endblock extra_css %}
{% block input_group -%}
{%- if "sentence" in cell.metadata.get("tags", []) -%}
{%- elif cell.metadata.get("jupyter", {}).get("source_hidden") -%}
<details class="precmp-code"><summary>code of this cell</summary>
{{ super() }}
</details>
{%- else -%}
{{ super() }}
{%- endif -%}
{% endblock input_group %}
{%- block body_header -%}
{{ super() }}
<nav class="precmp-nav"><a href="{{ resources.precmp_home | e }}">precmp course: index</a>
{% if resources.precmp_methods %}<a href="{{ resources.precmp_methods | e }}">methods reference</a>{% endif %}</nav>
{%- endblock body_header -%}
"""


def _exporter(hide_code: bool = False) -> Any:
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"precmp_page.html.j2": _PAGE_TEMPLATE})])
    exporter.template_file = "precmp_page.html.j2"
    exporter.exclude_input = hide_code
    exporter.exclude_input_prompt = hide_code
    exporter.exclude_output_prompt = True
    return exporter


def drop_injected_output_dir(nb: Any) -> int:
    r"""Remove the site's own ``output_dir`` from the cell papermill injects after the parameters.

    The site runs every notebook with an ``output_dir`` in its build folder; a reader has no use
    for that path. The cell tagged ``injected-parameters`` loses that assignment, and the whole
    cell goes when nothing else was injected; a run with other parameters keeps them visible.

    Parameters
    ----------
    nb : NotebookNode
        An executed notebook (``nbformat``), changed in place.

    Returns
    -------
    int
        The number of injected cells removed.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook()
    >>> cell = nbformat.v4.new_code_cell('# Parameters\noutput_dir = "/build/x"')
    >>> cell.metadata["tags"] = ["injected-parameters"]
    >>> nb.cells = [cell, nbformat.v4.new_code_cell("1 + 1")]
    >>> drop_injected_output_dir(nb), len(nb.cells)
    (1, 1)
    """
    import ast

    kept, removed = [], 0
    for cell in nb.cells:
        if "injected-parameters" not in cell.get("metadata", {}).get("tags", []):
            kept.append(cell)
            continue
        lines = str(cell.get("source", "")).splitlines()
        try:
            tree = ast.parse("\n".join(lines))
        except SyntaxError:
            kept.append(cell)
            continue
        drop = {line for n in tree.body
                for t in getattr(n, "targets", [getattr(n, "target", None)])
                if isinstance(t, ast.Name) and t.id == "output_dir"
                for line in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
        rest = [ln for i, ln in enumerate(lines, start=1) if i not in drop]
        if any(ln.strip() and not ln.lstrip().startswith("#") for ln in rest):
            cell["source"] = "\n".join(rest)
            cell["outputs"] = []
            kept.append(cell)
        else:
            removed += 1
    nb.cells = kept
    return removed


def site_page(nb: Any, page: Path, site: Path) -> str:
    """Render an executed notebook as a page of the site.

    Widgets become stills (:func:`static_widgets`, which changes ``nb``), MathJax comes from
    the site, and links to notebooks are rewritten to pages.

    Parameters
    ----------
    nb : NotebookNode
        The executed notebook.
    page : Path
        Where the page will be written, inside ``site``.
    site : Path
        The site folder (its ``index.html``, ``methods.html`` and ``static/``).

    Returns
    -------
    str
        The page's HTML.
    """
    static_widgets(nb)
    drop_injected_output_dir(nb)
    up = os.path.relpath(site, page.parent).replace(os.sep, "/")
    prefix = "" if up == "." else f"{up}/"
    exporter = _exporter()
    exporter.mathjax_url = f"{prefix}{MATHJAX_DIR}/{MATHJAX_CONFIG}"
    resources = {"precmp_css": _WIDGET_CSS, "precmp_mathjax_config": _MATHJAX_CONFIG,
                 "precmp_home": f"{prefix}index.html",
                 "precmp_methods": f"{prefix}methods.html" if (site / "methods.html").is_file() else "",
                 "metadata": {"name": page.stem}}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    return rewrite_links(body, methods_href=f"{prefix}methods.html")


def copy_mathjax(site: Path) -> Path:
    """Copy MathJax (from the pinned ``jupyter-server-mathjax`` package) into ``site/static``.

    Only English messages are kept (other translations are never loaded by these pages).
    Nothing is copied when the site already holds MathJax.

    Parameters
    ----------
    site : Path
        The site folder.

    Returns
    -------
    Path
        The MathJax folder inside the site.

    Raises
    ------
    RuntimeError
        If the ``jupyter-server-mathjax`` package is not installed.
    """
    from importlib.resources import files

    try:
        source = Path(str(files("jupyter_server_mathjax") / "static"))
    except ModuleNotFoundError:
        raise RuntimeError("MathJax for the offline pages comes from the jupyter-server-mathjax "
                           "package: install requirements.txt (make venv)") from None
    target = site / MATHJAX_DIR
    if (target / "MathJax.js").is_file():
        return target

    def skip(folder: str, names: list[str]) -> list[str]:
        if Path(folder).name == "localization":
            return [n for n in names if n != "en"]
        return []

    tmp = Path(tempfile.mkdtemp(dir=site, prefix=".mathjax-"))
    shutil.copytree(source, tmp / "mathjax", ignore=skip)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp / "mathjax", target)
    shutil.rmtree(tmp, ignore_errors=True)
    return target


_INDEX_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:62rem;margin:2rem auto;
padding:0 1rem;color:#222;line-height:1.5}
h1{margin-bottom:.2rem}.sub{color:#555;margin-top:0}
table{border-collapse:collapse;width:100%}td,th{padding:.45rem .6rem;border-bottom:1px solid #ddd;
text-align:left;vertical-align:top}th{background:#f4f6f8}a{color:#0072B2;text-decoration:none}
a:hover{text-decoration:underline}.t,th:last-child{white-space:nowrap}.t{color:#777;font-size:.85em}
.sol{font-size:.9em;white-space:nowrap}ul.ref{padding-left:1.2rem}
"""


def _placeholder_page(title: str, question: str, reason: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_INDEX_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p><strong>Question:</strong> {html.escape(question)}</p>"
        f"<p>This notebook was not run: {html.escape(reason)}, then run <code>make report</code> "
        "again.</p><p><a href='index.html'>Back to the index</a></p></body></html>\n"
    )


_METHODS_CSS = _INDEX_CSS + """
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
pre{background:#f6f8fa;padding:.7rem .9rem;overflow-x:auto;border-radius:4px}
code{background:#f3f4f6;padding:0 .2rem;border-radius:3px}pre code{background:none;padding:0}
h2{border-bottom:1px solid #e1e4e8;padding-bottom:.2rem;margin-top:2.2rem}
table{font-size:.92em;margin:.6rem 0}
"""


def _section_id(title: str) -> str | None:
    """``sec-6-1`` for a heading "6.1 Data layout", ``sec-a`` for "Appendix A"; None otherwise."""
    m = re.match(r"\s*(?:§\s*)?(\d+(?:\.\d+)*)\.?\s", title + " ")
    if m:
        return "sec-" + m.group(1).replace(".", "-")
    m = re.match(r"\s*Appendix\s+([A-Z])\b", title)
    return f"sec-{m.group(1).lower()}" if m else None


def methods_page(markdown_text: str) -> str:
    """Render ``docs/methods.md`` as one HTML page, rendered with mistune (nbconvert's).

    Parameters
    ----------
    markdown_text : str
        The Markdown source.

    Returns
    -------
    str
        A standalone page. Numbered headings get ids ``sec-6-1`` etc., so
        "methods.html#sec-6-1" points at §6.1; links to notebooks point at their pages.
    """
    import mistune

    class Renderer(mistune.HTMLRenderer):
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            ident = _section_id(re.sub(r"<[^>]+>", "", text))
            anchor = f" id='{ident}'" if ident else ""
            return f"<h{level}{anchor}>{text}</h{level}>\n"

    render = mistune.create_markdown(renderer=Renderer(escape=True), plugins=["table", "strikethrough"])
    body = render(markdown_text)
    body = rewrite_links(str(body))
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>precmp — methods reference</title><style>{_METHODS_CSS}</style></head><body>"
            "<p><a href='index.html'>← index</a></p>"
            f"{body}</body></html>\n")


# --------------------------------------------------------------------------------------------
# the jobs: one per notebook or example report, run in worker processes
# --------------------------------------------------------------------------------------------


@dataclass
class _Rendered:
    name: str
    title: str
    question: str
    seconds: float
    href: str = ""
    solutions: list[tuple[str, str]] = field(default_factory=list)  # (label, href)


@dataclass(frozen=True)
class _Job:
    kind: str  # "notebook" or "example"
    name: str  # page path inside the site, without .html (e.g. "solutions/01_x")
    source: str  # notebook path, or the example's CLI arguments as JSON
    parameters: str = "{}"  # JSON


def _run_job(job: _Job, site: str) -> float:
    """Run one job in a worker; returns seconds. Raises NotebookError on a failing notebook."""
    start = time.perf_counter()
    out = Path(site)
    page = out / f"{job.name}.html"
    if job.kind == "notebook":
        _run_notebook(Path(job.source), page, out, json.loads(job.parameters))
    else:
        _run_example(json.loads(job.source), page, out)
    return time.perf_counter() - start


def _run_notebook(notebook: Path, page: Path, site: Path, parameters: Mapping[str, Any]) -> None:
    import nbformat

    executed = site / "executed" / page.relative_to(site).with_suffix(".ipynb")
    with tempfile.TemporaryDirectory(prefix="precmp-page-") as tmp:
        # render_notebook runs papermill and keeps the executed notebook; its own HTML (with
        # CDN scripts) is discarded and the site page is made from the executed notebook
        render_notebook(notebook, Path(tmp) / "page.html", parameters=parameters,
                        executed_path=executed)
    nb = nbformat.read(executed, as_version=4)
    write_atomic(page, site_page(nb, page, site))


def _run_example(argv: Sequence[str], page: Path, site: Path) -> None:
    """Render an example report through the ``precmp report`` command (its stable interface).

    The page it writes is then made to load nothing from outside the site.
    """
    from ..cli import main

    page.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="precmp-example-") as tmp:
        html_path = Path(tmp) / page.name
        code = main(["report", *argv, "--out", str(html_path), "--quiet"])
        if code != 0:
            raise NotebookError(f"{page.stem}: `precmp report` exited with status {code}")
        up = os.path.relpath(site, page.parent).replace(os.sep, "/")
        prefix = "" if up == "." else f"{up}/"
        text = offline_page(html_path.read_text(encoding="utf-8"),
                            f"{prefix}{MATHJAX_DIR}/{MATHJAX_CONFIG}")
        write_atomic(page, rewrite_links(text))


def _example_argv(row: Mapping[str, Any]) -> list[str]:
    """``precmp report`` arguments for a row of :func:`precmp_lib.sources.datasets.example_predictions`."""

    def text(key: str) -> str:
        v = row.get(key)
        return "" if v is None or (isinstance(v, float) and v != v) else str(v).strip()

    predictions = Path(text("predictions"))
    if not predictions.is_absolute():
        predictions = ROOT / predictions
    argv = [str(predictions), "--y-true", text("y_true")]
    if text("models"):
        argv += ["--models", *text("models").split()]
    if text("id"):
        argv += ["--id", text("id")]
    if text("format"):
        argv += ["--format", text("format")]
    if text("reference"):
        argv += ["--reference", text("reference")]
    if text("prevalence"):
        argv += ["--prevalence", *text("prevalence").split()]
    return argv


def _run_jobs(jobs: Sequence[_Job], site: Path, workers: int,
              order: Mapping[str, float]) -> dict[str, float]:
    """Run the jobs, ``workers`` at a time, longest first by the last build's times.

    Returns the seconds per job name. The first failure stops the build.
    """
    ordered = sorted(jobs, key=lambda j: -order.get(j.name, 0.0))
    seconds: dict[str, float] = {}
    if not ordered:
        return seconds
    if workers <= 1 or len(ordered) == 1:
        for job in ordered:
            print(f"rendering {job.name} ...", flush=True)
            seconds[job.name] = _run_job(job, str(site))
            print(f"  {job.name}.html written in {seconds[job.name]:.0f} s", flush=True)
        return seconds
    import multiprocessing as mp
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait

    # "spawn": workers start clean (no inherited threads or sockets); each imports papermill and
    # nbconvert once and then renders several notebooks, so that cost is paid per worker
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(_run_job, job, str(site)): job for job in ordered}
        print(f"rendering {len(ordered)} pages, {workers} at a time ...", flush=True)
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for fut in done:
                job = futures[fut]
                exc = fut.exception()
                if exc is not None:
                    for other in pending:
                        other.cancel()
                    raise exc
                seconds[job.name] = fut.result()
                print(f"  {job.name}.html written in {seconds[job.name]:.0f} s", flush=True)
    return seconds


# --------------------------------------------------------------------------------------------
# the site
# --------------------------------------------------------------------------------------------


def missing_requirement(path: Path) -> str:
    """Say why a notebook cannot run here ("" when it can).

    Notebooks whose metadata says ``{"precmp": {"requires": "uci"}}`` need the paper's UCI
    datasets.

    Parameters
    ----------
    path : Path
        The notebook file.

    Returns
    -------
    str
        The reason, naming what to do, or "" when nothing is missing.
    """
    meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("precmp", {})
    if meta.get("requires") == "uci":
        from ..sources.datasets import available_datasets, list_datasets

        reg = list_datasets()
        uci = reg.loc[reg["loader"] == "uci", "name"].tolist()
        if available_datasets(uci, quiet=True) != uci:
            return "it needs the UCI datasets: run `make data` or set PRECMP_DATA_MIRROR"
    return ""


def _selected(paths: Iterable[Path], wanted: set[str] | None) -> list[Path]:
    if not wanted:
        return list(paths)
    return [p for p in paths if p.stem in wanted or p.name in wanted or p.stem[:2] in wanted]


def _solutions_of(topic: Path, solutions: Sequence[Path]) -> list[Path]:
    prefix = topic.stem.split("_", 1)[0] + "_"
    return [s for s in solutions if s.name.startswith(prefix)]


def _example_jobs() -> list[tuple[_Job, str, str]]:
    """Make a job per example predictions file the package ships, with title and description."""
    from ..sources.datasets import example_predictions

    out = []
    for row in example_predictions().to_dict(orient="records"):
        job = _Job("example", f"report_{row['name']}", json.dumps(_example_argv(row)))
        out.append((job, f"Report: {row['name']}", str(row.get("description", ""))))
    return out


def default_jobs() -> int:
    """Count the worker processes to use by default: the cores this process may use.

    Returns
    -------
    int
        At least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def build_site(
    out_dir: str | os.PathLike = "build/reports",
    *,
    notebooks: Sequence[str] | None = None,
    parameters: Mapping[str, Mapping[str, Any]] | None = None,
    jobs: int | None = None,
    examples: bool | None = None,
) -> Path:
    """Render the course into ``out_dir`` and write its ``index.html``.

    Parameters
    ----------
    out_dir : path
        The site folder; pages keep the notebooks' layout (``solutions/NN_x.html``).
    notebooks : sequence of str, optional
        Only these notebooks (names with or without ``.ipynb``, or a topic number such as
        ``"01"``, which also selects that topic's solutions); default all.
    parameters : mapping, optional
        Extra papermill parameters per notebook name.
    jobs : int, optional
        Notebooks rendered at once, each in its own worker process; default the number of
        cores. 1 renders them one after another in this process.
    examples : bool, optional
        Render the report on each example predictions file the package ships; default
        only when building every notebook.

    Returns
    -------
    Path
        The site's ``index.html``.

    Raises
    ------
    NotebookError
        Naming the first notebook that fails.
    RuntimeError
        If a page would load anything from outside the site.

    Notes
    -----
    Every notebook gets ``output_dir = <out_dir>/results/<name>`` (relative to the notebook's
    folder) for its ``results.json``.
    """
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    wanted = {n.removesuffix(".ipynb") for n in notebooks} if notebooks else None
    parameters = parameters or {}
    topics = _selected(sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), wanted)
    solutions_dir = NOTEBOOKS / "solutions"
    all_solutions = sorted(solutions_dir.glob("[0-9][0-9]_*.ipynb")) if solutions_dir.is_dir() else []
    topic_numbers = {p.stem[:3] for p in topics}
    solutions = [s for s in all_solutions if s.stem[:3] in topic_numbers or (wanted and s.stem in wanted)]
    copy_mathjax(out)
    methods = ROOT / "docs" / "methods.md"
    if methods.is_file():
        write_atomic(out / "methods.html", methods_page(methods.read_text(encoding="utf-8")))

    jobs_list: list[_Job] = []
    rows: dict[str, _Rendered] = {}
    for p in [*topics, *solutions]:
        name = str(p.relative_to(NOTEBOOKS).with_suffix("")).replace(os.sep, "/")
        title, question = notebook_question(p)
        missing = missing_requirement(p)
        rows[name] = _Rendered(name, title, question, 0.0, href=f"{name}.html")
        if missing:
            print(f"skipping {p.name}: {missing}", flush=True)
            write_atomic(out / f"{name}.html", _placeholder_page(title, question, missing))
            rows[name].question = f"{question} (not run here: {missing})"
            continue
        results = os.path.relpath(out / "results" / name, p.parent)
        params = {"output_dir": results, **parameters.get(p.stem, {})}
        jobs_list.append(_Job("notebook", name, str(p), json.dumps(params)))
    example_rows = []
    if examples if examples is not None else wanted is None:
        for job, title, description in _example_jobs():
            jobs_list.append(job)
            example_rows.append(_Rendered(job.name, title, description, 0.0, href=f"{job.name}.html"))

    timings_path = out / "timings.json"
    previous = json.loads(timings_path.read_text()) if timings_path.is_file() else {}
    seconds = _run_jobs(jobs_list, out, jobs or default_jobs(), previous)
    write_atomic(timings_path, json.dumps({**previous, **seconds}, indent=1, sort_keys=True) + "\n")
    for r in [*rows.values(), *example_rows]:
        r.seconds = seconds.get(r.name, 0.0)

    topic_rows = [rows[str(p.relative_to(NOTEBOOKS).with_suffix(""))] for p in topics]
    for r, p in zip(topic_rows, topics):
        for s in _solutions_of(p, solutions):
            sname = f"solutions/{s.stem}"
            r.solutions.append(("solutions" if len(r.solutions) == 0 else s.stem, rows[sname].href))
    index = _write_index(out, topic_rows, example_rows)
    written = [index, out / "methods.html", *(out / f"{j.name}.html" for j in jobs_list),
               *(out / f"{name}.html" for name in rows)]
    _check_offline(out, written)
    return index


def _check_offline(site: Path, written: Iterable[Path]) -> None:
    """Fail if a page this build wrote would load something from outside the site.

    Other pages in the folder (the API reference of ``make docs``) only get a warning; broken
    links get a note.
    """
    mine = {p.resolve() for p in written}
    bad = []
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        if name.startswith(MATHJAX_DIR):
            continue
        text = page.read_text(encoding="utf-8")
        external = external_references(text)
        if external and page.resolve() in mine:
            bad += [f"{name}: {u}" for u in external]
        elif external:
            print(f"warning: {name} (not written by this build) loads {external[0]}", flush=True)
        for target in relative_links(text):
            if target and not (page.parent / target).exists():
                print(f"note: {name} links to {target}, which is not in the site", flush=True)
    if bad:
        raise RuntimeError("pages would load files from outside the site:\n  " + "\n  ".join(bad))


def _write_index(out_dir: Path, rendered: Sequence[_Rendered], extra: Sequence[_Rendered]) -> Path:
    """Write ``index.html``: the notebooks (with solutions), the references, the example reports.

    Every string that comes from a notebook or a registry is HTML-escaped.
    """
    e = html.escape

    def rows(items: Sequence[_Rendered], with_solutions: bool) -> str:
        out = []
        for r in items:
            sol = ""
            if with_solutions:
                links = " ".join(f"<a href='{e(h)}'>{e(label)}</a>" for label, h in r.solutions)
                sol = f"<td class='sol'>{links or '—'}</td>"
            out.append(f"<tr><td><a href='{e(r.href or r.name + '.html')}'>{e(r.title)}</a></td>"
                       f"<td>{e(r.question)}</td>{sol}<td class='t'>{r.seconds:.0f} s</td></tr>")
        return "".join(out)

    any_solutions = any(r.solutions for r in rendered)
    head = ("<tr><th>Notebook</th><th>The question it answers</th>"
            + ("<th>Exercises</th>" if any_solutions else "") + "<th>Run time</th></tr>")
    refs = []
    if (out_dir / "methods.html").is_file():
        refs.append("<li><a href='methods.html'>Methods reference</a>: every formula the notebooks "
                    "and the library use, and the corrections to the paper's misprints</li>")
    if (out_dir / "api" / "index.html").is_file():
        refs.append("<li><a href='api/index.html'>API reference</a>: the library's functions "
                    "and their docstrings</li>")
    references = f"<h2>Reference</h2><ul class='ref'>{''.join(refs)}</ul>" if refs else ""
    reports = ""
    if extra:
        rhead = "<tr><th>Report</th><th>The predictions it compares</th><th>Run time</th></tr>"
        reports = f"<h2>Reports on example predictions</h2><table>{rhead}{rows(extra, False)}</table>"
    page = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>precmp — course and reports</title>"
        f"<style>{_INDEX_CSS}</style></head><body>"
        "<h1>precmp</h1><p class='sub'>Statistical comparison of classifiers: the course notebooks, "
        "run with their default parameters. Widgets appear as stills; <code>make lab</code> opens "
        "the notebooks live.</p>"
        f"<h2>Notebooks</h2><table>{head}{rows(rendered, any_solutions)}</table>"
        f"{references}{reports}</body></html>\n"
    )
    path = out_dir / "index.html"
    write_atomic(path, page)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Build the site from the command line (``python -m precmp_lib.course.site``).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default ``sys.argv[1:]``): ``--out``, ``--only``, ``--jobs``,
        ``--examples``/``--no-examples``.

    Returns
    -------
    int
        The exit status: 0 after printing where the index is, 1 when a notebook fails.
    """
    parser = argparse.ArgumentParser(prog="python -m precmp_lib.course.site")
    parser.add_argument("command", nargs="?", default="build-site", choices=["build-site"])
    parser.add_argument("--out", default="build/reports")
    parser.add_argument("--only", nargs="*", help="notebook names or topic numbers (default: all)")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS") or 0) or None,
                        help="notebooks rendered at once (default: $JOBS, else the number of cores)")
    parser.add_argument("--examples", action=argparse.BooleanOptionalAction, default=None,
                        help="render the example reports (default: only when building everything)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        index = build_site(args.out, notebooks=args.only, jobs=args.jobs,
                           examples=args.examples)
    except NotebookError as exc:
        print(f"make report failed: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {index} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
