"""The package's layers (DESIGN.md, "Data flow"): each imports only the ones below it.

core (checks, counts, engines, the tests, data readers) -> comparison (``compare_models``) ->
views (plots, widgets, the report renderer, the course-notebook runner, the CLI, the site); the
course helpers (``precmp_lib.course``) sit beside the views. Importing a core module, or
``precmp_lib`` itself (which every submodule import runs first, and which offers
``compare_models``), must load no view and nothing of the course; ``comparison`` loads core
modules only. Each import runs in a fresh interpreter, so what another test imported does not
count.

No import circles, not even through an import inside a function: the command (``cli``,
``__main__``) and the course site (``site``) sit on top, and the report renderer (``report``)
and the course-notebook runner (``notebook_runner``) import neither of them.

And no module reaches into another for a private name (``from .x import _y`` or ``x._y``):
a helper two modules share is public and documented in the module it belongs to.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import precmp_lib

PACKAGE = Path(precmp_lib.__file__).resolve().parent

CORE = ["_dist", "_files", "_tails", "_text", "_typing", "accuracy", "bayesian", "clusters", "combine",
        "contingency", "counts", "crossval", "data", "engines", "evallogs", "items", "multiple",
        "paired", "power", "precision", "predictions", "prevalence", "ranks",
        "replicability", "resampling", "results", "selection", "validation"]
COMPARISON = ["comparison", "item_comparison"]
VIEWS = ["plots", "widgets", "report", "report_view", "item_view", "notebook_runner", "cli", "site",
         "__main__"]
COURSE = ["course", *sorted(p.stem for p in (PACKAGE / "course").glob("[!_]*.py"))]


def _loaded_after_import(module: str) -> list[str]:
    """The ``precmp_lib`` modules in ``sys.modules`` after importing ``module`` afresh."""
    code = (f"import importlib, json, sys; importlib.import_module({module!r}); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('precmp_lib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _layer(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1:
        return "top"
    if parts[1] == "course":
        return "course"
    if parts[1] in VIEWS:
        return "view"
    if parts[1] in COMPARISON:
        return "comparison"
    return "core"


def test_the_lists_cover_every_module():
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    listed = set(CORE) | set(COMPARISON) | set(VIEWS)
    assert modules == listed, f"unlisted: {sorted(modules - listed)}, gone: {sorted(listed - modules)}"
    assert {"paper", "deep", "type1"} <= set(COURSE)


@pytest.mark.parametrize("module", ["precmp_lib", *(f"precmp_lib.{m}" for m in CORE)])
def test_core_loads_no_view_and_no_course(module):
    loaded = _loaded_after_import(module)
    above = [m for m in loaded if _layer(m) in ("view", "course")]
    assert not above, f"importing {module} loads {above}"


def test_comparison_loads_core_only():
    loaded = _loaded_after_import("precmp_lib.comparison")
    above = [m for m in loaded if _layer(m) in ("view", "course")]
    assert not above, f"importing precmp_lib.comparison loads {above}"
    assert "precmp_lib.comparison" in loaded


def test_course_is_imported_explicitly():
    loaded = _loaded_after_import("precmp_lib.course")
    assert {"precmp_lib.course.paper", "precmp_lib.course.type1"} <= set(loaded)


# The package's private modules (``_dist``, the C module built from ``_native.c``): the package's
# own modules may import them whole; their private names stay theirs.
PRIVATE_MODULES = {p.stem for p in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c")]
                   if p.stem.startswith("_") and not p.stem.startswith("__")}


def _private_imports(path: Path) -> list[str]:
    """``from <precmp_lib module> import _name`` and ``<precmp_lib module alias>._name``.

    Importing a private module of the package whole (``from . import _dist``) is allowed.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_aliases: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        ours = node.level > 0 or (node.module or "").startswith("precmp_lib")
        if not ours:
            continue
        for alias in node.names:
            if alias.name in PRIVATE_MODULES and node.module in (None, "precmp_lib"):
                module_aliases.add(alias.asname or alias.name)
            elif alias.name.startswith("_") and not alias.name.startswith("__"):
                found.append(f"line {node.lineno}: from {'.' * node.level}{node.module or ''} "
                             f"import {alias.name}")
            elif node.module is None or alias.name in {p.stem for p in PACKAGE.rglob("*.py")}:
                module_aliases.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_the_private_import_check_catches_both_forms(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from .counts import _check\nfrom . import counts as _c\n"
                   "from .. import prevalence\nx = _c._codes(1) + prevalence._percentile\n"
                   "from .results import TestResult\nfrom . import __version__\n"
                   "from precmp_lib import _native\nfrom . import _dist\n"
                   "y = _native.code_keys + _dist._tail\n")
    found = _private_imports(bad)
    assert sorted(f.split(": ")[1] for f in found) == ["_c._codes", "_dist._tail",
                                                       "from .counts import _check",
                                                       "prevalence._percentile"]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_is_imported_across_modules(path):
    found = _private_imports(path)
    assert not found, f"{path.relative_to(PACKAGE)} uses private names of other modules: {found}"


def test_the_package_imports_each_public_name_on_first_use():
    # `import precmp_lib` loads no analysis module but the one whose function shares its name;
    # each public name still resolves to its object, also after its submodule was imported
    loaded = _loaded_after_import("precmp_lib")
    assert set(loaded) <= {"precmp_lib", "precmp_lib.replicability", "precmp_lib.precision",
                           "precmp_lib.validation", "precmp_lib.results", "precmp_lib._dist",
                           "precmp_lib._tails", "precmp_lib._typing", "precmp_lib._native",
                           "precmp_lib._files", "precmp_lib.counts", "precmp_lib.multiple"}, loaded
    code = ("import importlib, types, precmp_lib as pc\n"
            f"for m in {CORE!r}: importlib.import_module('precmp_lib.' + m)\n"
            "bad = [n for n in pc.__all__ if isinstance(getattr(pc, n), types.ModuleType)]\n"
            "missing = [n for n in pc.__all__ if n not in dir(pc)]\n"
            "print(bad, missing)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    assert out.stdout.strip() == "[] []"


def test_the_report_command_loads_what_the_report_needs_only():
    code = ("import json, sys, precmp_lib.__main__, precmp_lib.comparison, precmp_lib.report, "
            "precmp_lib.report_view\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('precmp_lib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    for unneeded in ("accuracy", "crossval", "data", "predictions", "ranks", "selection",
                     "plots", "widgets", "site", "course"):
        assert f"precmp_lib.{unneeded}" not in loaded, unneeded


# --------------------------------------------------------------------------------------------
# the import graph, read from the source (imports inside functions count)
# --------------------------------------------------------------------------------------------


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of ``package`` -> the package's modules it imports, anywhere in its source.

    Every ``import`` and ``from ... import`` counts, at the top of the file or inside a function
    (a lazy import is still a dependency); importing ``a.b.c`` also runs the subpackage ``a.b``.
    The package's own ``__init__`` is left out: every submodule import runs it first, its
    imports are for type checkers only and it loads each name on first use
    (test_the_package_imports_each_public_name_on_first_use holds what it loads).
    """
    modules = {_module_name(p, package) for p in package.rglob("*.py")}

    def ours(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        name = _module_name(path, package)
        if name == package.name:
            continue
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: the module's package, one level up per further dot
                    base = ".".join([*here[:len(here) - node.level + 1], *filter(None, [node.module])])
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in filter(None, map(ours, targets)):
                parts = target.split(".")
                found.update(".".join(parts[:k]) for k in range(2, len(parts) + 1))
        graph[name] = found - {name, package.name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each a path that comes back to where it started."""
    circles: list[list[str]] = []
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            circles.append([*path[path.index(node):], node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, [*path, node])
        done.add(node)

    for start in sorted(graph):
        visit(start, [])
    return circles


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_circle_check_sees_imports_inside_functions(tmp_path):
    # a planted circle through a lazy import: a -> b at the top, b -> a inside a function
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import a\n")
    (package / "a.py").write_text("from .b import f\n")
    (package / "b.py").write_text("def f():\n    from . import a\n    return a\n")
    (package / "c.py").write_text("import pkg.sub.d\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "d.py").write_text("from ..a import g\n")
    graph = _import_graph(package)
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.sub", "pkg.sub.d"},
                     "pkg.sub": set(), "pkg.sub.d": {"pkg.a"}}
    assert _circles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_no_module_imports_one_that_imports_it_back():
    circles = _circles(_import_graph())
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


@pytest.mark.parametrize("module", ["report", "notebook_runner"])
def test_the_renderer_and_the_runner_sit_under_the_commands(module):
    # the report renderer and the course-notebook runner are used by the command and the site,
    # never the other way round, whatever path the imports take
    reached = _reached(_import_graph(), f"precmp_lib.{module}")
    above = sorted(reached & {"precmp_lib.cli", "precmp_lib.site", "precmp_lib.__main__"})
    assert not above, f"precmp_lib.{module} imports {above}"


def test_the_site_and_the_command_use_the_renderer_and_the_runner():
    # course pages through the runner; report pages through the command, which renders them
    graph = _import_graph()
    assert "precmp_lib.notebook_runner" in graph["precmp_lib.site"]
    assert "precmp_lib.report" in graph["precmp_lib.cli"]
    assert "precmp_lib.cli" in graph["precmp_lib.site"] and "precmp_lib.cli" in graph["precmp_lib.__main__"]
