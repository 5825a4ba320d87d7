"""The package's layers (DESIGN.md, "Modules"): the folders follow the data flow.

``_lib`` (private helpers) -> ``engine`` (a file or frame becomes counts) -> ``stats`` (tests, pure
functions of counts) -> ``sources`` (readers that are not engines) -> ``compare`` (every number a
page shows) -> ``report`` (the pages, figures and plots); ``course`` and the command (``cli``,
``__main__``) sit on top and may use everything. A module imports only its own layer and the
ones below it, anywhere in its source (an import inside a function is still a dependency), and
importing any module of a layer loads nothing above it.

No import circles, not even through an import inside a function.

Private names (``_x``) are shared only inside a subpackage: a module never reaches into another
subpackage's module for one (``from ..engine.base import _Spec``); a helper two subpackages
share is public and documented in the module it belongs to.
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

# bottom to top; each layer may import itself and those before it
LAYERS = ["_lib", "engine", "stats", "sources", "compare", "report"]
TOP = {"course", "cli", "__main__"}  # may import everything


def _layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "precmp_lib"


def _modules() -> list[str]:
    return sorted(_module_name(p) for p in PACKAGE.rglob("*.py"))


def test_every_module_sits_in_a_layer():
    homeless = [m for m in _modules() if m != "precmp_lib"
                and _layer_of(m) not in {*LAYERS, *TOP}]
    assert not homeless, f"modules outside the layers: {homeless}"
    top_level = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert top_level == ["__init__", "__main__", "cli"], top_level


def test_no_module_imports_a_layer_above_its_own():
    graph = _import_graph()
    wrong = []
    for module, targets in graph.items():
        layer = _layer_of(module)
        if layer in TOP:
            continue
        allowed = set(LAYERS[:LAYERS.index(layer) + 1])
        wrong += [f"{module} -> {t}" for t in sorted(targets) if _layer_of(t) not in allowed]
    assert not wrong, "imports that run up the layers: " + "; ".join(wrong)


def test_the_layer_check_sees_an_upward_import(tmp_path):
    # a planted upward import, inside a function: stats -> report
    package = tmp_path / "precmp_lib"
    for sub in ("stats", "report"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "stats" / "t.py").write_text("def f():\n    from ..report import v\n    return v\n")
    (package / "report" / "v.py").write_text("from ..stats import t\n")
    graph = _import_graph(package)
    assert "precmp_lib.report.v" in graph["precmp_lib.stats.t"]
    assert _layer_of("precmp_lib.report.v") not in LAYERS[:LAYERS.index("stats") + 1]


def _loaded_after_import(modules: list[str]) -> list[str]:
    """The ``precmp_lib`` modules in ``sys.modules`` after importing ``modules`` afresh."""
    code = (f"import importlib, json, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('precmp_lib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("layer", LAYERS)
def test_importing_a_layer_loads_nothing_above_it(layer):
    # every module of the layer in one fresh interpreter: what they load together is the union
    # of what each loads alone
    modules = [m for m in _modules() if _layer_of(m) == layer]
    loaded = _loaded_after_import(modules)
    allowed = {"precmp_lib", *LAYERS[:LAYERS.index(layer) + 1]}
    above = [m for m in loaded if _layer_of(m) not in allowed]
    assert not above, f"importing precmp_lib.{layer} loads {above}"
    assert set(modules) <= set(loaded)


def test_the_course_is_imported_explicitly():
    assert not [m for m in _loaded_after_import(["precmp_lib"]) if m != "precmp_lib"]
    loaded = _loaded_after_import(["precmp_lib.course"])
    assert {"precmp_lib.course.paper", "precmp_lib.course.type1"} <= set(loaded)


# The package's private modules (the C module built from ``_native.c``) and private package
# (``_lib``): the package's own modules may import them whole; their private names stay theirs.
PRIVATE_MODULES = {p.stem for p in [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c")]
                   if p.stem.startswith("_") and not p.stem.startswith("__")} | {"_lib"}


def _subpackage(dotted: str) -> str:
    """The subpackage a dotted module name lies in (``precmp_lib`` for top-level modules)."""
    return dotted.rpartition(".")[0] if dotted.count(".") >= 2 else "precmp_lib"


def _private_imports(path: Path, module: str | None = None) -> list[str]:
    """``from <module of another subpackage> import _name`` and ``<its alias>._name``.

    Importing a private module of the package whole (``from . import _native``) is allowed, and
    so is a private name of a module in the same subpackage (the parts of one room share their
    helpers).
    """
    here = module.split(".") if module else ["precmp_lib", "x"]
    if path.name == "__init__.py":
        here = [*here, "__init__"]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_aliases: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        ours = node.level > 0 or (node.module or "").startswith("precmp_lib")
        if not ours:
            continue
        if node.level:
            target = ".".join([*here[:len(here) - node.level], *filter(None, [node.module])])
        else:
            target = node.module or ""
        for alias in node.names:
            full = f"{target}.{alias.name}"
            is_module = (PACKAGE.parent / Path(*full.split("."))).with_suffix(".py").exists() \
                or (PACKAGE.parent / Path(*full.split("."))).is_dir() or alias.name == "_native"
            same_room = _subpackage(full if is_module else target) == _subpackage(".".join(here))
            if alias.name in PRIVATE_MODULES and not same_room:
                module_aliases.add(alias.asname or alias.name)
            elif alias.name.startswith("_") and not alias.name.startswith("__"):
                if not same_room:
                    found.append(f"line {node.lineno}: from {'.' * node.level}{node.module or ''} "
                                 f"import {alias.name}")
            elif not same_room and (node.module is None
                                    or alias.name in {p.stem for p in PACKAGE.rglob("*.py")}):
                module_aliases.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_the_private_import_check_catches_both_forms(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from ..engine.counts import _check\nfrom ..engine import counts as _c\n"
                   "from ..stats import prevalence\nx = _c._codes(1) + prevalence._percentile\n"
                   "from .results import TestResult\nfrom .results import _fmt\n"
                   "from .. import __version__\nfrom ..engine import _native\n"
                   "y = _native.code_keys + _native._tail\n")
    found = _private_imports(bad, "precmp_lib.compare.bad")
    assert sorted(f.split(": ")[1] for f in found) == ["_c._codes", "_native._tail",
                                                       "from ..engine.counts import _check",
                                                       "prevalence._percentile"]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_is_imported_across_subpackages(path):
    found = _private_imports(path, _module_name(path))
    assert not found, f"{path.relative_to(PACKAGE)} uses private names of other subpackages: {found}"


def test_the_package_imports_each_public_name_on_first_use():
    # `import precmp_lib` loads nothing else; each public name still resolves to its object,
    # also after its module was imported, and none is a module
    assert _loaded_after_import(["precmp_lib"]) == ["precmp_lib"]
    code = ("import importlib, types, precmp_lib as pc\n"
            "for m in sorted(set(pc._EXPORTS.values())): importlib.import_module('precmp_lib.' + m)\n"
            "bad = [n for n in pc.__all__ if isinstance(getattr(pc, n), types.ModuleType)]\n"
            "missing = [n for n in pc.__all__ if n not in dir(pc)]\n"
            "print(bad, missing)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    assert out.stdout.strip() == "[] []"


def test_the_curated_namespace_is_small_and_every_name_has_an_example():
    names = [n for n in precmp_lib.__all__ if n != "__version__"]
    assert len(names) <= 70, len(names)
    no_example = [n for n in names if ">>>" not in (getattr(precmp_lib, n).__doc__ or "")]
    assert not no_example, f"public names without a docstring example: {no_example}"


def test_subpackages_reach_their_modules_on_first_use():
    code = ("import precmp_lib as pc\n"
            "print(pc.stats.paired.__name__, pc.report.plots.__name__, pc.engine.sql.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    assert out.stdout.split() == ["precmp_lib.stats.paired", "precmp_lib.report.plots",
                                  "precmp_lib.engine.sql"]


def test_every_subpackage_says_what_it_owns_and_may_import():
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        if init.parent.name.startswith("_resources"):
            continue
        assert "import" in doc.lower() and len(doc) > 200, init


def test_no_module_is_over_1200_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 1200}
    assert not long, long


def test_the_report_command_loads_what_the_report_needs_only():
    loaded = _loaded_after_import(["precmp_lib.__main__", "precmp_lib.compare.predictions",
                                   "precmp_lib.report.render", "precmp_lib.report.prediction_sections"])
    for unneeded in ("stats.accuracy", "compare.crossval", "sources.predictions", "stats.ranks",
                     "stats.posthoc", "stats.selection", "report.plots", "course"):
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
        # a module's own packages ran before it: importing from them closes no circle
        ancestors = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1)}
        graph[name] = found - {name, package.name} - ancestors
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


@pytest.mark.parametrize("module", ["report.render", "report.notebooks"])
def test_the_renderer_and_the_runner_sit_under_the_commands(module):
    # the report renderer and the course-notebook runner are used by the command and the site,
    # never the other way round, whatever path the imports take
    reached = _reached(_import_graph(), f"precmp_lib.{module}")
    above = sorted(reached & {"precmp_lib.cli", "precmp_lib.course.site", "precmp_lib.__main__"})
    assert not above, f"precmp_lib.{module} imports {above}"


def test_the_site_and_the_command_use_the_renderer_and_the_runner():
    # course pages through the runner; report pages through the command, which renders them
    graph = _import_graph()
    assert "precmp_lib.report.notebooks" in graph["precmp_lib.course.site"]
    assert "precmp_lib.report.render" in graph["precmp_lib.cli"]
    assert "precmp_lib.cli" in graph["precmp_lib.course.site"] and "precmp_lib.cli" in graph["precmp_lib.__main__"]
