"""Build the API reference of ``precmp_lib`` from its numpydoc docstrings with pdoc.

Usage: ``python docs/build_api.py OUTPUT_DIR`` (``make docs`` writes ``build/reports/api``).
The front page documents the public namespace (the names in ``precmp_lib.__all__``); every
subpackage has its page (``precmp_lib.core``, ``precmp_lib.engine``, ``precmp_lib.stats``,
``precmp_lib.fitting``, ``precmp_lib.sources``, ``precmp_lib.compare``, ``precmp_lib.report``,
``precmp_lib.course``), which lists its modules, and every module its own page below it, so the
reference reads by layer.
Those pages, the search index, ``coming_from.html`` and ``coming_from_evals.html`` (rendered
from ``docs/coming_from.md`` and ``docs/coming_from_evals.md``) go into OUTPUT_DIR. pdoc inlines
its styles and scripts; the templates in ``docs/api_templates`` drop its one outside link, so the
pages load nothing from elsewhere.
"""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path

import pdoc
import pdoc.render
import pdoc.render_helpers

import precmp_lib

DOCS = Path(__file__).resolve().parent
TEMPLATES = DOCS / "api_templates"
# Implementation details (``precmp_lib._lib``) and the command-line entry point are not part of
# the reference.
EXCLUDED = ("!precmp_lib._lib", "!precmp_lib.__main__")


def modules() -> list[str]:
    """The package, then every public module and subpackage (``precmp_lib.course`` and its
    modules too, which ``import precmp_lib`` never loads). pdoc follows ``__all__``, which lists
    the public names rather than the modules, so the modules are named here."""
    found = [m.name for m in pkgutil.walk_packages(precmp_lib.__path__, "precmp_lib.")
             if not any(part.startswith("_") for part in m.name.split("."))]
    return ["precmp_lib", *sorted(found)]
PAGES = {"coming_from.md": "Coming from mlxtend, statsmodels, scipy or scikit-posthocs",
         "coming_from_evals.md": "Coming from lm-evaluation-harness, inspect or HELM"}


def render_markdown_page(source: Path, title: str) -> str:
    """One Markdown file of ``docs/`` as an HTML page in the reference's frame."""
    html = pdoc.render_helpers.to_html(source.read_text(encoding="utf-8"))
    toc = getattr(html, "toc_html", "") or ""  # markdown2 lists the headings
    template = pdoc.render.env.get_template("coming_from.html.jinja2")
    return template.render(title=title, body=str(html), toc=toc, root="")


def build(output: Path) -> list[Path]:
    """Write the reference into ``output``; return the HTML files written."""
    pdoc.render.configure(
        docformat="numpy",
        template_directory=TEMPLATES,
        show_source=False,
        math=False,
        mermaid=False,
        search=True,
        footer_text=f"precmp {precmp_lib.__version__}",
    )
    output.mkdir(parents=True, exist_ok=True)
    pdoc.pdoc(*modules(), *EXCLUDED, output_directory=output)
    for name, title in PAGES.items():
        page = output / Path(name).with_suffix(".html").name
        page.write_text(render_markdown_page(DOCS / name, title), encoding="utf-8")
    return sorted(output.rglob("*.html"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python docs/build_api.py OUTPUT_DIR")
    written = build(Path(sys.argv[1]))
    print(f"API reference: {len(written)} pages in {sys.argv[1]}")
