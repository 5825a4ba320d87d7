"""The registry of routes: every question the report answers, registered once.

``ROUTES`` holds each route's :class:`~precmp_lib.compare.route.Route` record, defined in the
route's own module. The command (:mod:`precmp_lib.cli`) builds its options from it, picks the
route the options ask for (:func:`route_for`) and refuses an option of another route
(:func:`misplaced`); the renderer (:mod:`precmp_lib.report.render`) takes the template of a
comparison's route (:func:`route_named` of its ``kind``). Nothing else branches on the route.

A new route is its module (its comparison, its ``ROUTE`` with options, recognition, run and
template, its sections) and one entry in ``ROUTES``.

The first route is the default: the command reads its input when no other route recognises
the options.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from . import dataset_route, item_route, prediction_route, probability_route
from .route import InputError, Option, Route

__all__ = ["ROUTES", "comparison_from_json", "misplaced", "option_routes", "route_for",
           "route_named"]

ROUTES: tuple[Route, ...] = (prediction_route.ROUTE, item_route.ROUTE, dataset_route.ROUTE,
                             probability_route.ROUTE)


def route_named(name: str) -> Route:
    """Return the route of that name (a comparison's ``kind``).

    Parameters
    ----------
    name : str

    Returns
    -------
    Route

    Raises
    ------
    ValueError
        For a name no route has.

    Examples
    --------
    >>> route_named("predictions").template
    'prediction_report.ipynb'
    """
    for route in ROUTES:
        if route.name == name:
            return route
    raise ValueError(f"no route is named {name!r}; the routes are "
                     f"{', '.join(r.name for r in ROUTES)}")


def route_for(options: argparse.Namespace) -> Route:
    """Return the route the command's options ask for.

    The route that recognises them, else the default (the first of ``ROUTES``): ``--item`` or
    ``--eval-log`` choose the items, ``--proba`` the probabilities.

    Raises
    ------
    InputError
        When the options ask for two routes at once.

    Examples
    --------
    >>> options = argparse.Namespace(item="question", eval_log=[])
    >>> route_for(options).name
    'items'
    """
    claimed = [r for r in ROUTES[1:] if r.recognise(options)]
    if len(claimed) > 1:
        raise InputError(f"the options ask for {' and '.join(r.title for r in claimed)} at once "
                         f"({'; '.join(r.chosen_by for r in claimed)}); give those of one")
    return claimed[0] if claimed else ROUTES[0]


def option_routes() -> dict[Option, tuple[Route, ...]]:
    """Return each option of the registry with the routes that read it, in the routes' order.

    An option two routes read is one object in both option groups, so it appears once.

    Examples
    --------
    >>> owners = {o.flag: tuple(r.name for r in rs) for o, rs in option_routes().items()}
    >>> owners["--alpha"], owners["--seed"], owners["--item"]
    (('predictions', 'items', 'datasets', 'probabilities'), ('predictions', 'probabilities'), ('items',))
    """
    out: dict[Option, list[Route]] = {}
    for route in ROUTES:
        for option in route.options:
            out.setdefault(option, []).append(route)
    return {option: tuple(routes) for option, routes in out.items()}


def _default(option: Option) -> Any:
    """Return the value argparse gives an option that is not on the command line."""
    if "default" in option.kwargs:
        return option.kwargs["default"]
    return False if option.kwargs.get("action") == "store_true" else None


def misplaced(options: argparse.Namespace, route: Route) -> str | None:
    """Name the options given that ``route`` does not read, in one line; None when there are none.

    An option counts as given when its value differs from its default. The line names the
    route(s) the options belong to, the route the command chose and why, and (when they belong
    to one route) how to choose that one.

    Parameters
    ----------
    options : argparse.Namespace
        The parsed options.
    route : Route
        The route the command chose (:func:`route_for`).

    Returns
    -------
    str or None

    Examples
    --------
    >>> defaults = {}  # what argparse gives (the first option of a destination sets it)
    >>> for option in option_routes():
    ...     _ = defaults.setdefault(option.dest, _default(option))
    >>> given = argparse.Namespace(**dict(defaults, item="q", seed=3))
    >>> print(misplaced(given, route_for(given)))
    --seed applies to predictions files or probabilities, not to evaluation items (--item, --eval-log): give a predictions file and --y-true COL
    >>> given = argparse.Namespace(**dict(defaults, y_true="y", task="t"))
    >>> print(misplaced(given, route_for(given)))
    --task applies to evaluation items, not to predictions files (no --item or --eval-log): give --item COL or --eval-log NAME=PATH
    >>> misplaced(argparse.Namespace(**dict(defaults, y_true="y")), route_named("predictions"))
    """
    given: list[str] = []
    owners: list[Route] = []
    common: list[Route] | None = None  # the routes that read every option given
    seen: set[str] = set()
    for option, routes in option_routes().items():
        if route in routes or option.dest in seen:
            continue
        seen.add(option.dest)
        if getattr(options, option.dest, None) != _default(option):
            given.append(option.flag)
            owners += [r for r in routes if r not in owners]
            common = [r for r in (routes if common is None else common) if r in routes]
    if not given:
        return None
    verb = "applies" if len(given) == 1 else "apply"
    line = (f"{', '.join(given)} {verb} to {' or '.join(r.title for r in owners)}, not to "
            f"{route.title} ({route.chosen_by})")
    return f"{line}: give {common[0].usage}" if common else line


def comparison_from_json(text: str) -> Any:
    """Read back any comparison's JSON (``Comparison.to_json``): the class is its ``kind``'s.

    Parameters
    ----------
    text : str

    Returns
    -------
    Comparison
        A :class:`~precmp_lib.compare.predictions.ModelComparison`,
        :class:`~precmp_lib.compare.items.ItemComparison`, ...

    Raises
    ------
    ValueError
        When the text is not a comparison of a registered route.

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import compare_items
    >>> frame = pd.DataFrame({"item": list(range(6)) * 2, "model": ["a"] * 6 + ["b"] * 6,
    ...                       "score": [1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1]})
    >>> back = comparison_from_json(compare_items(frame).to_json())
    >>> type(back).__name__, back.kind, back.best
    ('ItemComparison', 'items', ['a', 'b'])
    """
    data = json.loads(text)
    kind = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(kind, str):
        raise ValueError("not a comparison's JSON: it names no 'kind'")
    return route_named(kind).comparison().from_json(text)
