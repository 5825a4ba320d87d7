"""The package's layers (DESIGN.md, "Modules"): the folders follow the data flow.

Each layer may import itself and the layers :data:`LAYERS` allows it, nothing else:

- ``_lib`` (private helpers every layer may use): nothing of the package;
- ``core`` (the count types and label coding): ``_lib``;
- ``stats`` (the tests, pure functions of counts): ``_lib``, ``core``;
- ``engine`` (a source becomes counts) and ``fitting`` (models fitted with scikit-learn):
  ``_lib``, ``core``, ``stats``;
- ``sources``: ``_lib``, ``core``, ``stats``, ``engine``;
- ``compare``: ``_lib``, ``core``, ``stats``, ``engine``, ``sources``, ``fitting``;
- ``report``: ``_lib``, ``core``, ``stats``, ``engine``, ``sources``, ``fitting``, ``compare``.

``course`` and the command (``cli``, ``__main__``) sit on top and may use everything; the root
``__init__`` is a lazy table of exports. A module's dependencies are read from its source by
:func:`layering_problems`, which takes a package directory, so that the cases it must catch are
planted on a copy of the package and caught (the tests of the test below):

* every ``import`` and ``from ... import``, at the top of the file or inside a function (a lazy
  import is still a dependency); importing ``a.b.c`` also runs the package ``a.b``;
* a name taken from the root package (``from .. import compare_models``), resolved through the
  root's ``_EXPORTS`` table to the module that defines it;
* attribute access through a module bound by an import (``import precmp_lib as pc`` then
  ``pc.compare_models(...)`` or ``pc.compare.predictions``): each module the chain reaches;
* private names (``_x``) are shared only inside a subpackage: a module never takes one from
  another subpackage's module, whether by ``from ..engine.base import _spec`` or through a
  module alias (``import precmp_lib.engine.base as b`` then ``b._spec``); a helper two
  subpackages share is public and documented in the module it belongs to.

Importing any module of a layer loads nothing above it, and no module imports one that imports
it back, not even through an import inside a function.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import precmp_lib

PACKAGE = Path(precmp_lib.__file__).resolve().parent

# Each layer -> the layers it may import besides itself (the table in the module text).
LAYERS: dict[str, frozenset[str]] = {
    "_lib": frozenset(),
    "core": frozenset({"_lib"}),
    "stats": frozenset({"_lib", "core"}),
    "engine": frozenset({"_lib", "core", "stats"}),
    "fitting": frozenset({"_lib", "core", "stats"}),
    "sources": frozenset({"_lib", "core", "stats", "engine"}),
    "compare": frozenset({"_lib", "core", "stats", "engine", "sources", "fitting"}),
    "report": frozenset({"_lib", "core", "stats", "engine", "sources", "fitting", "compare"}),
}
TOP = {"course", "cli", "__main__"}  # may import everything


def _layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: Path = PACKAGE) -> list[str]:
    return sorted(_module_name(p, package) for p in package.rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


# --------------------------------------------------------------------------------------------
# the checker: what each module of a package directory depends on, read from its source
# --------------------------------------------------------------------------------------------


@dataclass
class _Facts:
    """One module's dependencies (each with the first line that makes it) and private uses."""

    edges: dict[str, int] = field(default_factory=dict)
    private: list[str] = field(default_factory=list)

    def edge(self, target: str, line: int) -> None:
        self.edges.setdefault(target, line)


class _Package:
    """A package directory: its modules (Python and compiled private ones) and root exports."""

    def __init__(self, root: Path) -> None:
        self.root, self.name = root, root.name
        self.modules = {_module_name(p, root) for p in [*root.rglob("*.py"), *root.rglob("*.c")]}
        self.packages = {_module_name(p, root) for p in root.rglob("__init__.py")}
        self.exports: dict[str, str] = {}
        self.subpackages: tuple[str, ...] = ()
        init = root / "__init__.py"
        for node in ast.parse(init.read_text(encoding="utf-8")).body if init.is_file() else []:
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) and node.value else []
            for target in targets:
                if isinstance(target, ast.Name) and target.id == "_EXPORTS":
                    self.exports = ast.literal_eval(node.value)
                elif isinstance(target, ast.Name) and target.id == "_SUBPACKAGES":
                    self.subpackages = tuple(ast.literal_eval(node.value))

    def room(self, dotted: str) -> str:
        """The subpackage whose private names ``dotted`` may use: itself if a package."""
        return dotted if dotted in self.packages else dotted.rpartition(".")[0]

    def ours(self, dotted: str) -> str | None:
        """The longest prefix of ``dotted`` that is one of the package's modules."""
        while dotted and dotted not in self.modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def submodule(self, module: str, attr: str) -> str | None:
        """The module ``module.attr`` names, if it is one (the root reaches its subpackages)."""
        full = f"{module}.{attr}"
        if full in self.modules or (module == self.name and attr in self.subpackages):
            return full
        return None

    def export(self, module: str, attr: str) -> str | None:
        """The module that defines ``attr`` when ``module`` is the root and exports it."""
        if module == self.name and attr in self.exports:
            return f"{self.name}.{self.exports[attr]}"
        return None


def _depend(pkg: _Package, target: str, line: int, facts: _Facts) -> None:
    """``target`` and the packages it lies in (a module runs its packages first)."""
    found = pkg.ours(target)
    if found is not None:
        parts = found.split(".")
        for k in range(2, len(parts) + 1):
            facts.edge(".".join(parts[:k]), line)


def _import_bindings(pkg: _Package, node: ast.Import, facts: _Facts) -> dict[str, str]:
    """Record ``import a.b.c [as x]``; return the name it binds to a module."""
    bound: dict[str, str] = {}
    for alias in node.names:
        if alias.name.split(".")[0] != pkg.name:
            continue
        _depend(pkg, alias.name, node.lineno, facts)
        target = pkg.ours(alias.name) if alias.asname else pkg.name
        if target is not None:
            bound[alias.asname or pkg.name] = target
    return bound


def _from_bindings(pkg: _Package, name: str, here: list[str], node: ast.ImportFrom,
                   facts: _Facts) -> dict[str, str]:
    """Record ``from m import a, b``; return the names it binds to modules."""
    bound: dict[str, str] = {}
    if node.level:  # relative: the module's package, one level up per further dot
        base = ".".join([*here[:len(here) - node.level + 1], *filter(None, [node.module])])
    else:
        base = node.module or ""
    if base.split(".")[0] != pkg.name:
        return bound
    for alias in node.names:
        module = pkg.submodule(base, alias.name)
        owner = pkg.export(base, alias.name)
        if module is not None:  # a module (or a private module) imported whole
            _depend(pkg, module, node.lineno, facts)
            bound[alias.asname or alias.name] = module
        elif owner is not None:  # a name of the root's table: the module that defines it
            _depend(pkg, owner, node.lineno, facts)
        else:
            if base != pkg.name:
                _depend(pkg, base, node.lineno, facts)
            if _private(alias.name) and pkg.room(base) != pkg.room(name):
                facts.private.append(f"line {node.lineno}: from {'.' * node.level}"
                                     f"{node.module or ''} import {alias.name}")
    return bound


def _chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    """``a.b.c`` as ("a", ["b", "c"]), when the chain starts at a name."""
    attrs: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        attrs.insert(0, current.attr)
        current = current.value
    return (current.id, attrs) if isinstance(current, ast.Name) else None


def _follow(pkg: _Package, name: str, start: str, attrs: list[str], text: str, line: int,
            facts: _Facts) -> None:
    """Follow an attribute chain from module ``start``: every module it reaches is a dependency."""
    module = start
    for attr in attrs:
        nxt = pkg.submodule(module, attr)
        if nxt is not None:
            facts.edge(nxt, line)
            module = nxt
            continue
        owner = pkg.export(module, attr)
        if owner is not None:
            _depend(pkg, owner, line, facts)
        elif _private(attr) and pkg.room(module) != pkg.room(name):
            facts.private.append(f"line {line}: {text}")
        return


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _local_names(scope: ast.AST) -> set[str]:
    """Names a function binds other than by import (its parameters and assignments)."""
    names: set[str] = set()
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        a = scope.args
        names |= {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        names |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` that are not inside a nested function or class."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _analyse_scope(pkg: _Package, name: str, here: list[str], scope: ast.AST,
                   outer: dict[str, str], facts: _Facts) -> None:
    """Record the dependencies of one scope (module, class or function), then of those in it.

    ``outer`` holds the names the enclosing scopes bind to modules; a name this scope binds
    otherwise (a parameter, an assignment) hides the outer one.
    """
    nodes = _own_nodes(scope)
    hidden = set() if isinstance(scope, ast.Module) else _local_names(scope)
    bound = {k: v for k, v in outer.items() if k not in hidden}
    for node in nodes:
        if isinstance(node, ast.Import):
            bound.update(_import_bindings(pkg, node, facts))
        elif isinstance(node, ast.ImportFrom):
            bound.update(_from_bindings(pkg, name, here, node, facts))
    parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
    for node in nodes:
        if isinstance(node, ast.Attribute) and not (
                isinstance(parents.get(id(node)), ast.Attribute)
                and parents[id(node)].value is node):  # the whole chain, once
            chain = _chain(node)
            if chain is not None and chain[0] in bound:
                _follow(pkg, name, bound[chain[0]], chain[1], ast.unparse(node),
                        node.lineno, facts)
    for node in nodes:
        if isinstance(node, _SCOPES):
            _analyse_scope(pkg, name, here, node, bound, facts)


# A module's facts depend on its text, the package's files and the root's table only: the
# planted copies below share all but one file with the package, so each file is read once.
_FACTS: dict[tuple, _Facts] = {}


def _analyse(package: Path) -> dict[str, _Facts]:
    """Each module of ``package`` (not the root's lazy table) -> its dependencies and private uses."""
    pkg = _Package(package)
    paths = sorted(package.rglob("*.py"))
    layout = (package.name, tuple(str(p.relative_to(package))
                                  for p in [*paths, *sorted(package.rglob("*.c"))]),
              (package / "__init__.py").read_text(encoding="utf-8"))
    out: dict[str, _Facts] = {}
    for path in paths:
        name = _module_name(path, package)
        if name == package.name:
            continue
        text = path.read_text(encoding="utf-8")
        key = (layout, name, text)
        if key not in _FACTS:
            _FACTS[key] = _module_facts(pkg, name, path, text)
        out[name] = _FACTS[key]
    return out


def _module_facts(pkg: _Package, name: str, path: Path, text: str) -> _Facts:
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    facts = _Facts()
    _analyse_scope(pkg, name, here, ast.parse(text), {}, facts)
    # a module's own packages ran before it: importing from them closes no circle
    ancestors = {".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 1)}
    facts.edges = {t: n for t, n in facts.edges.items()
                   if t not in ancestors and t != name and t != pkg.root.name}
    return facts


def upward_imports(package: Path) -> list[str]:
    """Every dependency of a module on a layer its own may not import (:data:`LAYERS`)."""
    wrong = []
    for module, facts in _analyse(package).items():
        layer = _layer_of(module)
        if layer in TOP:
            continue
        allowed = {layer, *LAYERS.get(layer, ())}
        wrong += [f"{module}:{line} -> {target}" for target, line in sorted(facts.edges.items())
                  if _layer_of(target) not in allowed]
    return wrong


def private_names(package: Path) -> list[str]:
    """Every private name a module takes from another subpackage's module."""
    return [f"{module}: {use}" for module, facts in _analyse(package).items()
            for use in facts.private]


def layering_problems(package: Path) -> list[str]:
    """The checker: every upward dependency and every private name used across subpackages."""
    return upward_imports(package) + private_names(package)


def _import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of ``package`` -> the package's modules it depends on, anywhere in its source.

    The package's own ``__init__`` is left out: every submodule import runs it first, and it
    loads each name on first use (test_the_package_imports_each_public_name_on_first_use
    holds what it loads); a name taken from it counts as its defining module.
    """
    return {module: set(facts.edges) for module, facts in _analyse(package).items()}


def _private_imports(path: Path, module: str, package: Path = PACKAGE) -> list[str]:
    """The private names one file (``module``, laid over ``package``) takes across subpackages."""
    name = module
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    facts = _Facts()
    _analyse_scope(_Package(package), name, here, ast.parse(path.read_text(encoding="utf-8")),
                   {}, facts)
    return facts.private


# --------------------------------------------------------------------------------------------
# the layers of this package
# --------------------------------------------------------------------------------------------


def test_the_table_only_goes_down():
    # what a layer may import it may also import through any layer it may import, and no
    # layer is allowed, however indirectly, to import itself back
    for layer, allowed in LAYERS.items():
        assert layer not in allowed, layer
        for lower in allowed:
            assert lower in LAYERS and LAYERS[lower] <= allowed, (layer, lower)


def test_the_checker_reads_the_root_table():
    # names taken from the root are resolved through the table the package itself uses
    pkg = _Package(PACKAGE)
    assert pkg.exports == precmp_lib._EXPORTS
    assert pkg.subpackages == precmp_lib._SUBPACKAGES


def test_every_module_sits_in_a_layer():
    homeless = [m for m in _modules() if m != "precmp_lib"
                and _layer_of(m) not in {*LAYERS, *TOP}]
    assert not homeless, f"modules outside the layers: {homeless}"
    top_level = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert top_level == ["__init__", "__main__", "cli"], top_level


def test_no_module_imports_a_layer_above_its_own():
    wrong = upward_imports(PACKAGE)
    assert not wrong, "imports that run up the layers: " + "; ".join(wrong)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_is_imported_across_subpackages(path):
    found = _private_imports(path, _module_name(path))
    assert not found, f"{path.relative_to(PACKAGE)} uses private names of other subpackages: {found}"


def test_the_private_import_check_catches_both_forms(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from ..core.counts import _check\nfrom ..core import counts as _c\n"
                   "from ..stats import prevalence\nx = _c._codes(1) + prevalence._percentile\n"
                   "from .results import TestResult\nfrom .results import _fmt\n"
                   "from .. import __version__\nfrom ..core import _native\n"
                   "y = _native.code_keys + _native._tail\n")
    found = _private_imports(bad, "precmp_lib.compare.bad")
    assert sorted(f.split(": ")[1] for f in found) == ["_c._codes", "_native._tail",
                                                       "from ..core.counts import _check",
                                                       "prevalence._percentile"]


# --------------------------------------------------------------------------------------------
# the tests of the test: each blind spot planted on a copy of the package, and caught
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory) -> Path:
    """A copy of the package's sources, checked clean before anything is planted in it."""
    root = tmp_path_factory.mktemp("copy") / PACKAGE.name
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns(
        "__pycache__", "*.so", "*.pyd", "_resources"))
    assert not layering_problems(root)
    return root


def _planted(package: Path, tmp_path: Path, files: dict[str, str]) -> Path:
    """A fresh copy of ``package`` with ``files`` (paths inside it -> source) added."""
    root = tmp_path / package.name
    shutil.copytree(package, root)
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_name_taken_from_the_root_inside_a_function_is_caught(package_copy, tmp_path):
    # (a) the edge to the root package resolved through _EXPORTS to the module defining the name
    root = _planted(package_copy, tmp_path, {"stats/planted.py": (
        "def f(source):\n    from .. import compare_models\n    return compare_models(source)\n")})
    assert "precmp_lib.stats.planted:2 -> precmp_lib.compare.predictions" in layering_problems(root)


def test_a_private_name_through_a_module_alias_is_caught(package_copy, tmp_path):
    # (b) ast.Import, not only ImportFrom; the private name reached through the alias (sources
    # may import engine: the import is allowed, the private name is not)
    root = _planted(package_copy, tmp_path, {"sources/planted.py": (
        "import precmp_lib.engine.base as b\n\n\ndef f(columns):\n"
        "    return b._spec('x', columns, y_true='y', models=None, id=None, repeat=None,\n"
        "                   fold=None, layout='auto')\n"),
        "sources/planted_whole.py": (
        "import precmp_lib.engine.base\n\nSPEC = precmp_lib.engine.base._Spec\n")})
    problems = layering_problems(root)
    assert "precmp_lib.sources.planted: line 5: b._spec" in problems
    assert "precmp_lib.sources.planted_whole: line 3: precmp_lib.engine.base._Spec" in problems
    assert not upward_imports(root)


@pytest.mark.parametrize(("source", "target"), [
    ("import precmp_lib as pc\n\n\ndef f(x):\n    return pc.compare_models(x)\n",
     "precmp_lib.stats.planted:5 -> precmp_lib.compare.predictions"),
    ("import precmp_lib as pc\n\n\ndef f():\n    return pc.compare.predictions\n",
     "precmp_lib.stats.planted:5 -> precmp_lib.compare.predictions"),
    ("from precmp_lib import report\n\nPAGE = report.render.render_report\n",
     "precmp_lib.stats.planted:1 -> precmp_lib.report"),
    ("import precmp_lib\n\nCOUNT = precmp_lib.engine.predictions.count_predictions\n",
     "precmp_lib.stats.planted:3 -> precmp_lib.engine.predictions"),
], ids=["exported-name", "subpackage-module", "from-root-import", "dotted-import"])
def test_attribute_access_to_a_higher_layer_is_caught(package_copy, tmp_path, source, target):
    # (c) what an attribute chain reaches through a module bound by an import
    root = _planted(package_copy, tmp_path, {"stats/planted.py": source})
    assert target in layering_problems(root)


def test_stats_importing_the_engine_is_caught(package_copy, tmp_path):
    # (d) the file-reading dispatcher, and any other module of the engine, is above stats
    root = _planted(package_copy, tmp_path, {
        "stats/planted.py": "from ..engine.predictions import count_predictions\n",
        "stats/planted_base.py": "def f():\n    from ..engine import base\n    return base\n"})
    problems = layering_problems(root)
    assert "precmp_lib.stats.planted:1 -> precmp_lib.engine.predictions" in problems
    assert "precmp_lib.stats.planted_base:2 -> precmp_lib.engine.base" in problems


def test_a_name_bound_in_a_function_hides_a_module_alias(package_copy, tmp_path):
    # the checker follows Python's scopes: a parameter named like a module alias is not it
    root = _planted(package_copy, tmp_path, {"sources/planted.py": (
        "import precmp_lib.engine.base as b\n\n\ndef f(b):\n    return b._private\n")})
    assert not layering_problems(root)


# --------------------------------------------------------------------------------------------
# what importing loads
# --------------------------------------------------------------------------------------------


def _loaded_after_import(modules: list[str]) -> list[str]:
    """The ``precmp_lib`` modules in ``sys.modules`` after importing ``modules`` afresh."""
    code = (f"import importlib, json, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('precmp_lib'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("layer", list(LAYERS))
def test_importing_a_layer_loads_nothing_above_it(layer):
    # every module of the layer in one fresh interpreter: what they load together is the union
    # of what each loads alone
    modules = [m for m in _modules() if _layer_of(m) == layer]
    loaded = _loaded_after_import(modules)
    allowed = {"precmp_lib", layer, *LAYERS[layer]}
    above = [m for m in loaded if _layer_of(m) not in allowed]
    assert not above, f"importing precmp_lib.{layer} loads {above}"
    assert set(modules) <= set(loaded)


def test_the_course_is_imported_explicitly():
    assert not [m for m in _loaded_after_import(["precmp_lib"]) if m != "precmp_lib"]
    loaded = _loaded_after_import(["precmp_lib.course"])
    assert {"precmp_lib.course.paper", "precmp_lib.course.type1"} <= set(loaded)


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
    assert len(names) <= 71, len(names)
    no_example = [n for n in names if ">>>" not in (getattr(precmp_lib, n).__doc__ or "")]
    assert not no_example, f"public names without a docstring example: {no_example}"


def test_subpackages_reach_their_modules_on_first_use():
    code = ("import precmp_lib as pc\n"
            "print(pc.stats.paired.__name__, pc.fitting.selection.__name__, pc.engine.sql.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent)
    assert out.stdout.split() == ["precmp_lib.stats.paired", "precmp_lib.fitting.selection",
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
                     "stats.posthoc", "fitting.selection", "course.plots", "course"):
        assert f"precmp_lib.{unneeded}" not in loaded, unneeded


# --------------------------------------------------------------------------------------------
# circles
# --------------------------------------------------------------------------------------------


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


def test_tests_mirror_the_package():
    """tests/<subpackage>/test_<module>[_aspect].py: each folder is a subpackage (or the command,
    or the notebooks' contract tests) and each file is named after a module of its folder."""
    tests = Path(__file__).resolve().parent
    stray = []
    for path in sorted(tests.glob("*/test_*.py")):
        folder = path.parent.name
        if folder == "notebooks":
            ok = path.stem.startswith(("test_nb_", "test_claims"))
        elif folder == "cli":
            ok = True
        else:
            sub = PACKAGE / folder
            modules = {p.stem.lstrip("_") for p in sub.iterdir()
                       if p.suffix in (".py", ".c") or (p / "__init__.py").is_file()}
            ok = sub.is_dir() and any(path.stem == f"test_{m}" or path.stem.startswith(f"test_{m}_")
                                      for m in modules)
        if not ok:
            stray.append(str(path.relative_to(tests)))
    assert not stray, f"test files that name no module of their folder: {stray}"
