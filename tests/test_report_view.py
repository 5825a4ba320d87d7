"""The report page: a view of a ModelComparison.

Structure of the HTML (table of contents, CSV links, legends, prose conclusion), escaping of
every user-supplied string, and the template's promise to display only (no analysis calls).
"""

from __future__ import annotations

import ast
import json
import re
import tempfile
import urllib.parse
import warnings

import numpy as np
import pandas as pd
import pytest

from precmp_lib import report_view as view
from precmp_lib.comparison import compare_models
from precmp_lib.report import render_report, report_template

HOSTILE_LABEL = "<script>alert(1)</script>"
HOSTILE_MODEL = '"><img src=x onerror=alert(1)>'


def _hostile_frame():
    rng = np.random.default_rng(4)
    labels = np.array([HOSTILE_LABEL, "plain", "$x$ & co"])
    y = rng.integers(0, 3, 300)
    frame = pd.DataFrame({"truth": labels[y]})
    for name, acc in ((HOSTILE_MODEL, 0.9), ("m<b>2</b>", 0.7), ("third", 0.8)):
        frame[name] = labels[np.where(rng.random(300) < acc, y, rng.integers(0, 3, 300))]
    return frame


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory):
    cmp = compare_models(_hostile_frame(), y_true="truth", prevalence={HOSTILE_LABEL: 0.2},
                         n_boot=200)
    out = tmp_path_factory.mktemp("report") / "hostile.html"
    render_report(cmp, out, quiet=True, source_name='<svg onload=alert(1)>.csv')
    return cmp, out.read_text(encoding="utf-8")


def test_template_contains_no_analysis_calls():
    """Only the view module's display functions, reading the JSON back and nothing else."""
    nb = json.loads(report_template().read_text(encoding="utf-8"))
    allowed_calls = {"Path", "read_text", "from_json"}
    allowed_imports = {"pathlib", "precmp_lib.comparison", "precmp_lib"}
    code = [("".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "code"]
    seen_view = 0
    for source in code:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                assert node.module in allowed_imports, node.module
                names = {a.name for a in node.names}
                assert names <= {"Path", "ModelComparison", "report_view"}, names
            elif isinstance(node, ast.Import):
                pytest.fail(f"the template imports {[a.name for a in node.names]}")
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                        and func.value.id == "view":
                    assert func.attr in view.__all__ or func.attr == "versions", func.attr
                    seen_view += 1
                else:
                    name = func.attr if isinstance(func, ast.Attribute) else func.id
                    assert name in allowed_calls, f"the template calls {name}"
    assert seen_view >= 8


def test_template_is_stored_without_outputs_with_literal_parameters():
    nb = json.loads(report_template().read_text(encoding="utf-8"))
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb["cells"] if c["cell_type"] == "code")
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1
    for node in ast.parse("".join(cells[0]["source"])).body:
        assert isinstance(node, ast.AnnAssign)
        ast.literal_eval(node.value)


def test_no_live_copy_of_hostile_strings(hostile_page):
    _, page = hostile_page
    for bad in (HOSTILE_LABEL, HOSTILE_MODEL, "<img src=x", "<svg onload", "m<b>2</b>"):
        assert bad not in page, bad
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text
    assert "&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    # the only scripts are nbconvert's own (none carry the payload)
    for script in re.findall(r"<script.*?</script>", page, flags=re.S):
        assert "alert(1)" not in script
    # alt text of plots and the CSV data: URIs are escaped too
    alts = re.findall(r"alt=([\"'])(.*?)\1", page)
    assert len(alts) >= 3
    for _, alt in alts:
        assert "<" not in alt and ">" not in alt


def test_page_structure(hostile_page):
    _cmp, page = hostile_page
    # a table of contents whose every link has its target
    nav = re.search(r'<nav class="toc">(.*?)</nav>', page, flags=re.S).group(1)
    anchors = re.findall(r'href="#([^"]+)"', nav)
    assert len(anchors) >= 7
    for a in anchors:
        assert f'id="{a}"' in page, a
    # the conclusion is prose: paragraphs, never preformatted text
    conclusion = page.split('id="pc-conclusion"', 1)[1].split('id="pc-accuracy"', 1)[0]
    assert "<pre" not in conclusion and conclusion.count("<p>") >= 3
    assert "not shown to differ" in conclusion
    # every table downloadable as CSV from the page itself
    links = re.findall(r'download="([^"]+)" href="data:text/csv;charset=utf-8,([^"]+)"', page)
    names = {n for n, _ in links}
    assert {"accuracy.csv", "pairs.csv", "per_class.csv", "gee_joint.csv", "combined.csv",
            "prevalence.csv"} <= names
    csv = urllib.parse.unquote(dict(links)["pairs.csv"])
    assert csv.splitlines()[0].startswith("model_a,model_b,test,estimate")
    # legends say what the colour means
    assert "differs after Holm" in page or "not shown to differ after Holm" in page
    assert "best group" in page
    assert page.count('class="t"') >= 8
    # one p-value format; no Python repr, no path of this run
    assert "e-0" not in re.sub(r"data:[^\"]+", "", page)
    for leak in ("PosixPath", "precmp-report-", tempfile.gettempdir(), "comparison.json"):
        assert leak not in page, leak


def test_cv_report_renders(tmp_path):
    from precmp_lib.data import resource_path

    long = pd.read_csv(resource_path("examples/breast_cancer_cv_long.csv"))
    cmp = compare_models(long, y_true="y_true", n_boot=200)
    out = render_report(cmp, tmp_path / "cv.html", quiet=True, source_name="cv.csv")
    page = out.read_text(encoding="utf-8")
    assert "3 × 5 cross-validation of 569 observations" in page
    assert "corrected repeated k-fold t" in page and "fold_scores.csv" in page


def test_table_html_escapes_and_formats():
    frame = pd.DataFrame({"model": ["<b>x</b>"], "pvalue": [3e-9], "p2_pvalue": [0.38298],
                          "n": [12345], "note": ["a & b"]})
    t = view.table_html(frame, "x")
    assert "<b>x</b>" not in t and "&lt;b&gt;x&lt;/b&gt;" in t
    assert "&lt; 0.0001" in t and "0.3830" in t and "12,345" in t and "a &amp; b" in t
    assert 'download="x.csv"' in t


def test_plots_mark_the_adjusted_decision():
    from matplotlib.colors import to_hex

    from precmp_lib.comparison import compare_models as cm

    cmp = cm(_hostile_frame(), y_true="truth", n_boot=100)
    fig = view.ranking_plot(cmp)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(cmp.summary["model"])  # best first, top row
    colours = [to_hex(c) for c in ax.collections[1].get_facecolors()]
    assert colours == [view.BEST.lower() if b else view.OTHER.lower() for b in cmp.summary["best"]]
    fig = view.pairs_forest(cmp)
    colours = [to_hex(c) for c in fig.axes[0].collections[1].get_facecolors()]
    assert colours == [view.DIFFERS.lower() if r else view.NOT_SHOWN.lower()
                       for r in cmp.pairs["reject"]]
    fig = view.rp_forest(cmp)
    shown = cmp.per_class.dropna(subset=["rp"])
    colours = [to_hex(c) for c in fig.axes[0].collections[1].get_facecolors()]
    assert colours == [view.DIFFERS.lower() if p <= cmp.alpha else view.NOT_SHOWN.lower()
                       for p in shown["gs_pvalue_adjusted"]]
    import matplotlib.pyplot as plt

    plt.close("all")


def test_labels_the_plot_font_cannot_draw_are_noted_not_warned(tmp_path):
    # U+0378 is unassigned in Unicode, so no font has a glyph for it, on any machine; the page
    # says under each such plot that boxes stand for those characters, matplotlib's warning
    # does not reach the caller, and the tables give the labels in full
    rng = np.random.default_rng(9)
    labels = np.array(["odd \u0378 class", "plain"])
    y = rng.integers(0, 2, 400)
    frame = pd.DataFrame({"truth": labels[y]})
    for name, acc in (("a", 0.9), ("b", 0.7)):
        frame[name] = labels[np.where(rng.random(400) < acc, y, rng.integers(0, 2, 400))]
    cmp = compare_models(frame, y_true="truth", n_boot=50)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_report(cmp, tmp_path / "odd.html", quiet=True)
    assert not [w for w in caught if "missing from font" in str(w.message)]
    page = (tmp_path / "odd.html").read_text(encoding="utf-8")
    assert view.MISSING_GLYPHS in page
    assert "odd \u0378 class</td>" in page  # a table cell


def test_a_page_whose_labels_every_font_draws_has_no_glyph_note(hostile_page):
    assert view.MISSING_GLYPHS not in hostile_page[1]
