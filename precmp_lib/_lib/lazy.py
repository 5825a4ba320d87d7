"""Submodules imported on first use (PEP 562), so that a subpackage's name costs nothing."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from types import ModuleType


def submodule_access(package: str, modules: Iterable[str]
                     ) -> tuple[Callable[[str], ModuleType], Callable[[], list[str]]]:
    """Return a ``__getattr__`` and a ``__dir__`` that import ``package``'s modules when asked.

    Parameters
    ----------
    package : str
        The subpackage's dotted name (its ``__name__``).
    modules : iterable of str
        The names of its modules.

    Returns
    -------
    (getattr, dir)
        Functions to bind as the package's ``__getattr__`` and ``__dir__``.

    Examples
    --------
    >>> getattr_, dir_ = submodule_access("precmp_lib.stats", ["contingency"])
    >>> getattr_("contingency").__name__
    'precmp_lib.stats.contingency'
    >>> "contingency" in dir_()
    True
    """
    names = frozenset(modules)

    def __getattr__(name: str) -> ModuleType:
        if name in names:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
