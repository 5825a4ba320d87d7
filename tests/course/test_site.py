"""The course site: widget stills, links between pages, pages that load nothing from outside,
the escaped index, the methods reference, and the site build with worker processes."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from precmp_lib.course import site

# A loading tag (script, link, img) whose src/href is an absolute URL: written independently of
# site.external_references so that the tests do not trust the function they check.
LOADS_EXTERNAL = re.compile(
    r"""<(script|link|img)\b[^>]*?\b(src|href)\s*=\s*["']?\s*(https?:)?//""", re.IGNORECASE)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


def widget_state() -> dict:
    """Saved widget state as nbclient writes it: a VBox of an HBox of two sliders and a
    dropdown, an HTML table and an Image whose PNG travels as a base64 buffer."""
    def model(name: str, **state: object) -> dict:
        return {"model_name": name, "model_module": "@jupyter-widgets/controls",
                "model_module_version": "2.0.0", "state": state}

    image = model("ImageModel", format="png", width="", height="")
    image["buffers"] = [{"path": ["value"], "encoding": "base64", "data": PNG}]
    return {"version_major": 2, "version_minor": 0, "state": {
        "box": model("VBoxModel", children=["IPY_MODEL_row", "IPY_MODEL_table", "IPY_MODEL_img"]),
        "row": model("HBoxModel", children=["IPY_MODEL_b", "IPY_MODEL_p", "IPY_MODEL_pick"]),
        "b": model("IntSliderModel", description="b (only A)", value=11, min=0, max=60,
                   readout_format="d"),
        "p": model("FloatSliderModel", description="prevalence", value=0.3, min=0.01, max=0.99,
                   readout_format=".2f"),
        "pick": model("DropdownModel", description="method", index=1,
                      _options_labels=["chi2", "exact <b>", "midp"]),
        "table": model("HTMLModel", value="<table><tr><td>p = 0.0063</td></tr></table>"),
        "img": image,
        "layout": {"model_name": "LayoutModel", "state": {}},
    }}


def widget_notebook() -> nbformat.NotebookNode:
    view = new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "box", "version_major": 2,
                                                     "version_minor": 0},
        "text/plain": "VBox(...)"})
    nb = new_notebook(cells=[new_markdown_cell("# W"), new_code_cell("explorer()", outputs=[view])])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": widget_state()}
    return nb


def test_widget_outputs_become_stills_of_their_saved_state():
    nb = widget_notebook()
    assert site.static_widgets(nb) == 1
    assert "widgets" not in nb.metadata  # so nbconvert adds no widget-manager scripts
    data = nb.cells[1].outputs[0]["data"]
    assert set(data) == {"text/html"}
    still = data["text/html"]
    assert "<td>p = 0.0063</td>" in still  # the HTML widget's value, as produced
    assert f"src='data:image/png;base64,{PNG}'" in still  # the Image widget's buffer
    assert re.search(r"b \(only A\)</span>.*?precmp-value'>11<", still)
    assert re.search(r"prevalence</span>.*?precmp-value'>0\.30<", still)  # readout format kept
    assert "left:29.6%" in still and "left:18.3%" in still  # thumbs at 0.3 of 0.01..0.99, 11 of 0..60
    assert "exact &lt;b&gt;" in still  # a dropdown's label is text, escaped
    assert "precmp-row" in still and still.index("b (only A)") < still.index("p = 0.0063")
    assert "make lab" in still


def test_progress_bars_are_dropped_and_display_only_widgets_get_no_lab_line():
    """tqdm's notebook bar is an HBox of HTML, FloatProgress and HTML: nothing to move, and its
    timings change from run to run, so it leaves no trace; a lone HTML widget stays, without
    the line about make lab."""
    def model(name: str, **state: object) -> dict:
        return {"model_name": name, "state": state}

    def view(model_id: str) -> nbformat.NotebookNode:
        return new_output("display_data", data={
            "application/vnd.jupyter.widget-view+json": {"model_id": model_id},
            "text/plain": "..."})

    nb = new_notebook(cells=[new_code_cell("run()", outputs=[
        view("bar"), new_output("stream", name="stdout", text="done\n"), view("note")])])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {
        "bar": model("HBoxModel", children=["IPY_MODEL_l", "IPY_MODEL_p", "IPY_MODEL_r"]),
        "l": model("HTMLModel", value="splits: 100%"),
        "p": model("FloatProgressModel", value=10.0, min=0.0, max=10.0),
        "r": model("HTMLModel", value=" 10/10 [00:04<00:00,  2.65it/s]"),
        "note": model("HTMLModel", value="<b>fixed text</b>"),
    }}}
    assert site.static_widgets(nb) == 0
    outputs = nb.cells[0].outputs
    assert len(outputs) == 2 and outputs[0]["output_type"] == "stream"
    assert "<b>fixed text</b>" in outputs[1]["data"]["text/html"]
    assert "make lab" not in outputs[1]["data"]["text/html"]


def test_a_widget_followed_by_its_starting_state_shows_only_its_controls():
    """The next code cell, tagged widget-start, draws the starting state for the page: the still
    keeps the sliders and the dropdown but not the table and image, which would appear twice."""
    nb = widget_notebook()
    start = new_code_cell("explorer_state()")
    start.metadata["tags"] = ["widget-start"]
    nb.cells += [new_markdown_cell("*the starting state:*"), start]
    assert site.static_widgets(nb) == 1
    still = nb.cells[1].outputs[0]["data"]["text/html"]
    assert re.search(r"b \(only A\)</span>.*?precmp-value'>11<", still)
    assert "exact &lt;b&gt;" in still and "make lab" in still
    assert "p = 0.0063" not in still and "data:image/png" not in still


def test_the_injected_output_dir_is_not_shown():
    """papermill's injected cell carries the build folder the site chose: it goes; other
    injected parameters stay visible."""
    def injected(text: str) -> nbformat.NotebookNode:
        cell = new_code_cell(text)
        cell.metadata["tags"] = ["injected-parameters"]
        return cell

    only_dir = new_notebook(cells=[new_code_cell("seed: int = 0  # seed"),
                                   injected('# Parameters\noutput_dir = "/x/build/results"\n'),
                                   new_code_cell("1 + 1")])
    assert site.drop_injected_output_dir(only_dir) == 1
    assert [c.source for c in only_dir.cells] == ["seed: int = 0  # seed", "1 + 1"]
    more = new_notebook(cells=[injected('# Parameters\nseed = 3\noutput_dir = (\n    "/x/y")\n')])
    assert site.drop_injected_output_dir(more) == 0
    assert more.cells[0].source == "# Parameters\nseed = 3"


def test_a_widget_whose_state_was_not_saved_says_so():
    nb = widget_notebook()
    del nb.metadata["widgets"]
    site.static_widgets(nb)
    assert "was not saved" in nb.cells[1].outputs[0]["data"]["text/html"]


def test_site_page_of_a_widget_notebook_loads_nothing_from_outside(tmp_path):
    nb = widget_notebook()
    nb.cells.append(new_markdown_cell(
        "Next: [Cochran](02_cv_ttests.ipynb#setup), the [answers](solutions/01_x.ipynb), "
        "[§6.1](../docs/methods.md#sec-6-1), [the paper](https://example.org/paper.ipynb), $x^2$."))
    page = site.site_page(nb, tmp_path / "solutions" / "01_x.html", tmp_path)
    assert not LOADS_EXTERNAL.search(page), LOADS_EXTERNAL.search(page)
    assert site.external_references(page) == []
    assert "require" not in " ".join(re.findall(r"<script[^>]*>", page))
    assert 'src="../static/mathjax/MathJax.js?config=' in page  # the site's own MathJax
    assert 'webFont: "STIX-Web"' in page  # the fonts that copy ships
    assert '["\\\\(", "\\\\)"]' in page  # \\( ... \\) delimit math, plain parentheses do not
    assert 'href="02_cv_ttests.html#setup"' in page
    assert 'href="solutions/01_x.html"' in page
    assert 'href="../methods.html#sec-6-1"' in page
    assert 'href="https://example.org/paper.ipynb"' in page  # not ours: left alone
    assert 'href="../index.html"' in page
    assert "precmp-widget" in page and "make lab" in page


def test_external_references_finds_loading_tags_only():
    page = ("<script src='https://cdn.example/require.js'></script>"
            "<link rel=stylesheet href=//fonts.example/f.css><img src=\"http://x.example/a.png\">"
            "<a href='https://example.org'>a link to follow</a><img src='data:image/png;base64,AA'>"
            "<script src='static/mathjax/MathJax.js'></script>")
    assert site.external_references(page) == [
        "https://cdn.example/require.js", "//fonts.example/f.css", "http://x.example/a.png"]


def test_offline_page_points_mathjax_home_and_drops_other_cdn_scripts():
    page = ('<head><script src="https://cdnjs.example/require.js/2.1.10/require.min.js"></script>\n'
            '<script src="https://cdnjs.example/mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML-full,Safe">'
            ' </script><script>init()</script></head>')
    out = site.offline_page(page, "static/mathjax/MathJax.js")
    assert site.external_references(out) == []
    assert '<script src="static/mathjax/MathJax.js"></script>' in out
    assert out.index('webFont: "STIX-Web"') < out.index("static/mathjax/MathJax.js")
    assert "<script>init()</script>" in out and "require" not in out


def test_index_escapes_every_string_it_did_not_write(tmp_path):
    evil = site._Rendered("01_x", "<script>alert(1)</script>", "Is a < b & 'c'?", 3.0,
                          href="01_x.html", solutions=[("answers", "solutions/01_'x.html")])
    report = site._Rendered("report_a", "Report: a", "<img src=x onerror=alert(1)>", 1.0,
                            href="report_a.html")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "index.html").write_text("<html></html>")
    page = site._write_index(tmp_path, [evil], [report]).read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Is a &lt; b &amp; &#x27;c&#x27;?" in page
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "href='solutions/01_&#x27;x.html'" in page
    assert "href='api/index.html'" in page  # the API reference, because it exists
    assert "methods.html" not in page  # no methods page was written here


def test_methods_reference_keeps_the_section_numbers():
    text = (site.ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    numbers = re.findall(r"^#{2,3} (\d+(?:\.\d+)?)[. ]", text, flags=re.MULTILINE)
    for n in ["0", "1", "2", "3", "4", "5.1", "5.2", "5.3", "6.1", "6.2", "6.3", "6.4", "6.5",
              "6.6", "7", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "9", "10", "11", "12"]:
        assert n in numbers, f"docs/methods.md has no section {n}"
    page = site.methods_page(text)
    for ident in ["sec-1", "sec-6-1", "sec-6-3", "sec-8-5", "sec-12"]:
        assert f"id='{ident}'" in page
    assert "Gondara, eq. 8" in text and "Gondara, eq. 18" in text and "Gondara, eq. 30" in text
    assert site.external_references(page) == []
    assert "<table>" in page  # Markdown tables are rendered


def test_section_ids():
    assert site._section_id("6.1 Data layout") == "sec-6-1"
    assert site._section_id("12. Misprints") == "sec-12"
    assert site._section_id("Appendix A — reference values") == "sec-a"
    assert site._section_id("Notation") is None


def test_example_reports_are_run_through_the_command_line():
    argv = site._example_argv({"predictions": "data/examples/d.csv", "y_true": "digit",
                               "models": "lr rf", "id": "id", "format": "wide", "reference": "",
                               "prevalence": "0=0.3 1=0.7"})
    assert argv[0] == str(site.ROOT / "data" / "examples" / "d.csv")
    assert argv[1:] == ["--y-true", "digit", "--models", "lr", "rf", "--id", "id", "--format",
                        "wide", "--prevalence", "0=0.3", "1=0.7"]


# --------------------------------------------------------------------------------------------
# site builds (run notebooks)
# --------------------------------------------------------------------------------------------


def tiny_notebook(path: Path, body: str = "print(f'value is {value * 2}')", *, title: str = "Tiny",
                  text: str = "") -> Path:
    nb = new_notebook(
        cells=[
            new_markdown_cell(f"# {title}\n\n**Question:** Does rendering work?\n\n{text}"),
            new_code_cell("value: int = 1  # a number\noutput_dir: str = 'out'  # results",
                          metadata={"tags": ["parameters"]}),
            new_code_cell(body),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A two-topic course with a solution, a live widget and links between notebooks."""
    nbdir = tmp_path / "notebooks"
    widget = ("import ipywidgets as w\n"
              "s = w.IntSlider(value=value * 7, min=0, max=20, description='n')\n"
              "h = w.HTML(value=f'<b>n is {s.value}</b>')\n"
              "w.VBox([s, h])")
    tiny_notebook(nbdir / "01_tiny.ipynb", widget, text="Then [the next](02_next.ipynb).")
    tiny_notebook(nbdir / "02_next.ipynb", title="Next <one>")
    tiny_notebook(nbdir / "solutions" / "01_tiny_solutions.ipynb", title="Tiny: solutions",
                  text="Back to [the topic](../01_tiny.ipynb).")
    monkeypatch.setattr(site, "NOTEBOOKS", nbdir)
    monkeypatch.setattr(site, "ROOT", tmp_path)
    return tmp_path


@pytest.mark.notebook
def test_build_site_in_worker_processes(course):
    out = course / "site"
    index = site.build_site(out, jobs=2)
    page = index.read_text()
    assert "href='01_tiny.html'" in page and "Does rendering work?" in page
    assert "Next &lt;one&gt;" in page
    assert "href='solutions/01_tiny_solutions.html'" in page  # the solution, under its topic
    tiny = (out / "01_tiny.html").read_text()
    assert "<b>n is 7</b>" in tiny and "precmp-value'>7<" in tiny.replace('"', "'")
    assert "make lab" in tiny and not LOADS_EXTERNAL.search(tiny)
    assert 'href="02_next.html"' in tiny
    solution = (out / "solutions" / "01_tiny_solutions.html").read_text()
    assert 'href="../01_tiny.html"' in solution and not LOADS_EXTERNAL.search(solution)
    assert (out / "static" / "mathjax" / "MathJax.js").is_file()
    assert (out / "results" / "01_tiny").is_dir() or (out / "executed" / "01_tiny.ipynb").is_file()
    assert set(json.loads((out / "timings.json").read_text())) >= {
        "01_tiny", "02_next", "solutions/01_tiny_solutions"}


@pytest.mark.notebook
def test_build_site_names_the_failing_notebook(course):
    tiny_notebook(course / "notebooks" / "03_bad.ipynb", body="1 / 0")
    with pytest.raises(site.NotebookError, match=r"03_bad\.ipynb: ZeroDivisionError"):
        site.build_site(course / "site", jobs=2)
    assert not (course / "site" / "03_bad.html").exists()
    assert site.main(["--out", str(course / "site2"), "--jobs", "1", "--only", "03_bad"]) == 1


def test_notebook_needing_uci_data_gets_a_placeholder_when_data_are_missing(course, monkeypatch):
    path = tiny_notebook(course / "notebooks" / "11_needs_data.ipynb",
                         body="raise RuntimeError('must not run')")
    nb = nbformat.read(path, 4)
    nb.metadata["precmp"] = {"requires": "uci"}
    nbformat.write(nb, path)
    monkeypatch.delenv("PRECMP_DATA_MIRROR", raising=False)
    monkeypatch.setenv("PRECMP_DATA", str(course / "cache"))  # an empty download cache
    assert "make data" in site.missing_requirement(path)
    page = site.build_site(course / "site", notebooks=["11_needs_data"]).read_text()
    assert "not run here" in page
    assert "was not run" in (course / "site" / "11_needs_data.html").read_text()


@pytest.mark.notebook
def test_course_widget_notebook_page_is_static_and_offline(tmp_path):
    """The real notebook 01: its McNemar explorer becomes a still with the sliders' values and
    the `make lab` line, its p-values appear once (drawn by the widget-start cell after it), the
    build folder injected as output_dir is not shown; the page loads nothing from outside."""
    site.build_site(tmp_path, notebooks=["01_mcnemar_cochran"], jobs=1)
    page = (tmp_path / "01_mcnemar_cochran.html").read_text()
    assert not LOADS_EXTERNAL.search(page), LOADS_EXTERNAL.search(page)
    assert "application/vnd.jupyter.widget" not in page  # no widget views nor saved state
    after = page[page.index("id=\"widget-1\""):]
    still = after[: after.index("make lab")]
    assert re.search(r"b \(only A\)</span>.*?>11<", still, re.DOTALL)
    assert re.search(r"c \(only B\)</span>.*?>1<", still, re.DOTALL)
    assert "0.00635" not in still  # exact p for b = 11, c = 1: in the starting-state table only
    assert after.count("0.00635") == 1
    assert "# Parameters" not in page and str(tmp_path) not in page
    for src in re.findall(r'<script[^>]*\bsrc="([^"]+)"', page):
        assert (tmp_path / src.partition("?")[0]).is_file(), src
    for href in re.findall(r'href="([0-9]{2}_[a-z_]+)\.html', page):
        assert (site.NOTEBOOKS / f"{href}.ipynb").is_file(), href
    assert not re.findall(r'href="(?![a-z]+:)[^"]*\.ipynb', page)  # links between notebooks rewritten


def test_offline_check_fails_for_own_pages_and_warns_for_others(tmp_path, capsys):
    (tmp_path / "api").mkdir()
    mine, theirs = tmp_path / "01_x.html", tmp_path / "api" / "index.html"
    theirs.write_text("<script src='https://cdn.example/pdoc.js'></script><a href='../01_x.html'>x</a>")
    mine.write_text("<img src='static/a.png'><a href='gone.html'>gone</a>")
    site._check_offline(tmp_path, [mine])
    out = capsys.readouterr().out
    assert "warning: api/index.html" in out and "links to gone.html" in out
    mine.write_text("<link rel='stylesheet' href='https://fonts.example/f.css'>")
    with pytest.raises(RuntimeError, match=r"01_x\.html: https://fonts\.example/f\.css"):
        site._check_offline(tmp_path, [mine])


def test_site_page_folds_the_code_of_collapsed_cells(tmp_path):
    """A cell stored collapsed (jupyter.source_hidden) shows its output and folds its code; the
    other cells show their code as before."""
    sentence = new_code_cell('display(Markdown(f"A is right on {0.75:.0%} of the items."))',
                             metadata={"jupyter": {"source_hidden": True}},
                             outputs=[{"output_type": "display_data", "metadata": {},
                                       "data": {"text/markdown": "A is right on 75% of the items."}}])
    plain = new_code_cell("shown_code = 2", outputs=[])
    page = site.site_page(new_notebook(cells=[sentence, plain]), tmp_path / "01_x.html", tmp_path)
    folded = re.search(r'<details class="precmp-code"><summary>code of this cell</summary>(.*?)</details>',
                       page, re.DOTALL)
    assert folded and "Markdown" in folded.group(1) and "shown_code" not in folded.group(1)
    assert page.count("<details") == 1 and "shown_code" in page
    assert "A is right on 75% of the items." in page[folded.end():]


def test_site_page_shows_only_the_sentence_of_a_sentence_cell(tmp_path):
    """A cell tagged `sentence` (it only builds a sentence from the results) shows the sentence
    and none of its code, not even folded; a collapsed cell without the tag keeps its fold."""
    sentence = new_code_cell('display(Markdown(f"B is right on {0.5:.0%} of the items."))',
                             metadata={"jupyter": {"source_hidden": True},
                                       "tags": [site.SENTENCE_TAG]},
                             outputs=[{"output_type": "display_data", "metadata": {},
                                       "data": {"text/markdown": "B is right on 50% of the items."}}])
    folded = new_code_cell("folded_code = 1", metadata={"jupyter": {"source_hidden": True}})
    page = site.site_page(new_notebook(cells=[sentence, folded]), tmp_path / "13_x.html", tmp_path)
    assert "B is right on 50% of the items." in page
    assert "display" not in page.split("B is right on")[0].split("<body")[-1]
    assert "Markdown(f" not in page and page.count("<details") == 1 and "folded_code" in page


_LAB = ("00_course_map", "01_mcnemar_cochran", "13_evaluating_on_items")


@pytest.mark.parametrize("name", _LAB)
def test_lab_notebooks_tag_their_sentence_cells(name):
    """In the lab's notebooks every cell whose one output is a sentence it builds (a last
    display(Markdown(...)) or print(...) and no other output) is tagged `sentence` and stored
    collapsed, so JupyterLab and the site show the sentence without its code; a tagged cell
    really is one."""
    import ast

    root = Path(__file__).resolve().parents[2] / "notebooks"
    for i, cell in enumerate(json.loads((root / f"{name}.ipynb").read_text())["cells"]):
        if cell["cell_type"] != "code":
            continue
        body = ast.parse("".join(cell["source"])).body
        shows = [n for n in body if isinstance(n, ast.Expr)  # what a cell shows; appends build
                 and not ast.unparse(n.value).split("(")[0].endswith(".append")]
        only_sentence = len(shows) == 1 and shows[0] is body[-1] and isinstance(
            shows[0].value, ast.Call) and ast.unparse(shows[0].value.func) in ("display", "print") \
            and ast.unparse(shows[0].value).startswith(("display(Markdown(", "print("))
        tagged = site.SENTENCE_TAG in cell["metadata"].get("tags", [])
        assert tagged == only_sentence, (name, i, "".join(cell["source"])[:80])
        if tagged:
            assert cell["metadata"].get("jupyter", {}).get("source_hidden"), (name, i)
