"""The API reference (`make docs`): built from the docstrings, complete, and self-contained.

Builds the reference into a temporary folder exactly as `make docs` does (docs/build_api.py)
and checks that every public module and the main functions have their page, that numpydoc
sections are rendered, that the page for users of other libraries is there, and that no page
loads anything from outside the folder (scripts, styles, images, fonts).
"""

from __future__ import annotations

import importlib.util
import pkgutil
import re
import warnings
from pathlib import Path

import pytest

import precmp_lib

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "docs" / "build_api.py"

# The public names every reference must document (DESIGN.md, public API contract).
MAIN_FUNCTIONS = ["mcnemar", "mcnemar_table", "cochrans_q", "friedman", "iman_davenport",
                  "wilcoxon", "nemenyi", "corrected_resampled_ttest", "ttest_5x2cv",
                  "ftest_5x2cv", "gs_test", "gw_test", "rp_test", "compare_precision",
                  "gee_precision", "combine_pvalues", "prevalence_adjusted_precision",
                  "replicability", "TestResult", "clustered_mcnemar", "paired_difference",
                  "equivalence_test", "mcnemar_power", "mcnemar_sample_size"]

# A resource the browser fetches: src= on any tag, href= on <link>, url(...) in styles.
_EXTERNAL = [
    # inside a real tag only: escaped markup shown as text (doctest examples) loads nothing
    re.compile(r"""<[a-z][^>]*\bsrc\s*=\s*["']?\s*(https?:)?//""", re.I),
    re.compile(r"""<link\b[^>]*\bhref\s*=\s*["']?\s*(https?:)?//""", re.I),
    re.compile(r"""url\(\s*["']?\s*(https?:)?//""", re.I),
    re.compile(r"""@import\s+["']?\s*(https?:)?//""", re.I),
]


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Path:
    spec = importlib.util.spec_from_file_location("build_api", BUILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path_factory.mktemp("api")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pdoc warns about string annotations it cannot resolve
        module.build(out)
    return out


def public_modules() -> list[str]:
    """Every public subpackage and module, dotted (``precmp_lib.stats.paired``)."""
    return sorted(m.name for m in pkgutil.walk_packages(precmp_lib.__path__, "precmp_lib.")
                  if not any(part.startswith("_") for part in m.name.split(".")))


def test_every_public_module_has_a_page(api):
    assert (api / "index.html").is_file() and (api / "precmp_lib.html").is_file()
    assert {"precmp_lib.core", "precmp_lib.engine", "precmp_lib.stats", "precmp_lib.fitting",
            "precmp_lib.sources", "precmp_lib.compare", "precmp_lib.report",
            "precmp_lib.course"} <= set(public_modules())
    missing = [m for m in public_modules()
               if not (api / Path(*m.split("."))).with_suffix(".html").is_file()]
    assert not missing, f"no API page for modules {missing}"


def test_subpackage_pages_group_their_modules(api):
    # each subpackage's page lists its modules, so the reference reads by layer
    for sub in ("core", "engine", "stats", "fitting", "sources", "compare", "report"):
        page = (api / "precmp_lib" / f"{sub}.html").read_text(encoding="utf-8")
        mods = [m for m in public_modules() if m.startswith(f"precmp_lib.{sub}.")]
        assert mods and all(f'{m.rsplit(".", 1)[1]}.html' in page for m in mods), sub


def test_front_page_documents_the_public_namespace(api):
    front = (api / "precmp_lib.html").read_text(encoding="utf-8")
    missing = [n for n in precmp_lib.__all__
               if n != "__version__" and f'<section id="{n}">' not in front]
    assert not missing, f"public names without an entry on the front page: {missing}"


def test_course_modules_have_their_pages(api):
    import precmp_lib.course

    assert (api / "precmp_lib" / "course.html").is_file()
    modules = sorted(m.name for m in pkgutil.iter_modules(precmp_lib.course.__path__))
    assert "paper" in modules and "type1" in modules
    missing = [m for m in modules if not (api / "precmp_lib" / "course" / f"{m}.html").is_file()]
    assert not missing, f"no API page for course modules {missing}"


def test_main_functions_are_documented_with_numpydoc_sections(api):
    pages = {p: p.read_text(encoding="utf-8") for p in (api / "precmp_lib").rglob("*.html")}
    for name in MAIN_FUNCTIONS:
        hits = [p for p, text in pages.items() if f'<section id="{name}">' in text]
        assert hits, f"{name} has no entry in the API reference"
        text = pages[hits[0]]
        entry = text[text.index(f'<section id="{name}">'):]
        entry = entry[: entry.find("</section>")]
        assert '<div class="docstring">' in entry
        if name != "TestResult":  # functions: numpydoc sections become headings
            assert 'id="parameters">Parameters<' in entry and 'id="returns">Returns<' in entry


def test_coming_from_page_is_in_the_reference_and_linked(api):
    page = (api / "coming_from.html").read_text(encoding="utf-8")
    source = (ROOT / "docs" / "coming_from.md").read_text(encoding="utf-8")
    title = source.splitlines()[0].lstrip("# ").strip()
    assert f"<title>{title}</title>" in page
    assert 'href="precmp_lib.html"' in page
    module_page = (api / "precmp_lib" / "stats" / "contingency.html").read_text(encoding="utf-8")
    assert 'href="../../coming_from.html"' in module_page  # relative to the module's folder


def test_page_for_evaluation_tools_is_in_the_reference_and_linked(api):
    page = (api / "coming_from_evals.html").read_text(encoding="utf-8")
    source = (ROOT / "docs" / "coming_from_evals.md").read_text(encoding="utf-8")
    title = source.splitlines()[0].lstrip("# ").strip()
    assert f"<title>{title}</title>" in page and "lm-evaluation-harness" in title
    assert "pc.clustered_mcnemar" in page and 'href="precmp_lib.html"' in page
    module_page = (api / "precmp_lib" / "stats" / "paired.html").read_text(encoding="utf-8")
    assert 'href="../../coming_from_evals.html"' in module_page


def test_pages_load_nothing_from_outside(api):
    offenders = {}
    for page in list(api.rglob("*.html")) + list(api.rglob("*.js")):
        text = page.read_text(encoding="utf-8")
        found = [m.group(0) for pattern in _EXTERNAL for m in pattern.finditer(text)]
        if found:
            offenders[str(page.relative_to(api))] = found[:3]
    assert not offenders, f"pages reference outside resources: {offenders}"
    # and the check itself catches what it is meant to catch
    for bad in ('<script src="https://cdn.example/x.js">', '<img src="//cdn.example/a.png">',
                '<link rel="stylesheet" href="http://cdn.example/s.css">',
                "body { background: url('https://cdn.example/b.png') }"):
        assert any(p.search(bad) for p in _EXTERNAL), bad
    assert not any(p.search('<a href="https://pdoc.dev">') for p in _EXTERNAL)


def test_links_between_pages_resolve(api):
    broken = []
    for page in api.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r'<a\b[^>]*\bhref="([^"#:]+\.html)(?:#[^"]*)?"', text):
            if not (page.parent / target).resolve().is_file():
                broken.append(f"{page.relative_to(api)} -> {target}")
    assert not broken, f"broken links: {broken[:10]}"
