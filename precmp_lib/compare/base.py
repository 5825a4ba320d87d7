"""What every comparison is: the base of the routes' results, its JSON codec and best group.

A route (DESIGN.md, "Routes") ends in one frozen comparison, a subclass of
:class:`Comparison`: :class:`~precmp_lib.compare.predictions.ModelComparison` (route
``"predictions"``), :class:`~precmp_lib.compare.items.ItemComparison` (route ``"items"``). Each
has the same core:

``kind``
    The route's name (a class attribute), written into the JSON.
``models``, ``summary``, ``pairs``
    The models compared, one row per model (:meth:`Comparison.to_frame`), one row per pair.
``best``
    A list: the best group of the whole comparison, decided by :func:`best_group` (one rule,
    one tie-break, for every route).
``design``
    A dict describing the design, with a ``description`` sentence.
``settings``, ``alpha``, ``engine``, ``source``, ``n_rows``, ``recommendation``, ``conclusions``
    The options used, who read the data, what was read, and the sentences.

and one JSON codec (:meth:`Comparison.to_json`, :meth:`Comparison.from_json`): a table is
``{"columns": [...], "records": [...], "attrs": {...}}`` (``attrs`` when the frame has any),
numbers at full precision, NaN as null. :func:`precmp_lib.compare.routes.comparison_from_json`
reads any comparison back by its ``kind``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar, get_type_hints

import numpy as np
import pandas as pd

from .._lib.jsonable import plain

__all__ = ["Comparison", "best_group", "by_score", "numeric_nulls"]

C = TypeVar("C", bound="Comparison")


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """The result of a route: every number and sentence its report shows.

    Subclasses add their own tables and set ``kind``; every field is written by
    :meth:`to_json` and read back by :meth:`from_json`, a field annotated ``pd.DataFrame`` as a
    table.

    Attributes
    ----------
    kind : str
        The route's name (class attribute).
    models : list of str
        The models compared, in the order of the data (or of ``models=``).
    summary : DataFrame
        One row per model (per task and model for items), with ``rank`` and ``best``.
    pairs : DataFrame
        One row per pair of models: ``model_a``, ``model_b``, ``estimate`` (A - B), ``ci_low``,
        ``ci_high``, ``pvalue``, ``pvalue_adjusted``, ``reject``, ...
    best : list of str
        The best group of the whole comparison (:func:`best_group`), its top model first.
    design : dict
        What was compared, with a one-line ``description``.
    settings : dict
        The options of the comparison.
    alpha : float
        The level of the decisions.
    engine, source : str
        Who read the data, and what was read.
    n_rows : int
        Rows read (predictions, answers).
    recommendation : str
        What to use, in one sentence.
    conclusions : list of str
        Short points behind the recommendation.
    """

    kind: ClassVar[str] = ""
    models: list[str]
    summary: pd.DataFrame
    pairs: pd.DataFrame
    best: list[str] = field(default_factory=list)
    design: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    alpha: float = 0.05
    engine: str = ""
    source: str = ""
    n_rows: int = 0
    recommendation: str = ""
    conclusions: list[str] = field(default_factory=list)

    @property
    def source_name(self) -> str:
        """How a page names what was read (the ``source``, unless a route says better)."""
        return self.source

    def to_frame(self) -> pd.DataFrame:
        """Return the summary table (a copy): one row per model.

        Returns
        -------
        DataFrame
        """
        return self.summary.copy()

    def to_json(self) -> str:
        """Write the comparison as strict JSON: every field, tables as columns and records.

        Returns
        -------
        str
            One JSON object: ``kind``, then a key per field. A table is an object with
            ``columns`` and ``records`` (and ``attrs`` when the frame has any, such as
            ``attrs["adjustment"]``); every number keeps its full precision (a p-value of
            3.4e-14 stays 3.4e-14), NaN is written as null. The ``precmp report`` command's
            ``--json`` writes exactly this text.

        Examples
        --------
        >>> @dataclass(frozen=True, kw_only=True)
        ... class Example(Comparison):
        ...     kind: ClassVar[str] = "example"
        >>> summary = pd.DataFrame({"model": ["a", "b"], "score": [0.9, float("nan")]})
        >>> pairs = pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "reject": [True]})
        >>> text = Example(models=["a", "b"], summary=summary, pairs=pairs).to_json()
        >>> text[:74]
        '{"kind": "example", "models": ["a", "b"], "summary": {"columns": ["model",'
        >>> back = Example.from_json(text)
        >>> back.summary["score"].tolist(), back.pairs.dtypes["reject"].name
        ([0.9, nan], 'bool')
        """
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = _table_json(value) if isinstance(value, pd.DataFrame) else plain(value)
        return json.dumps(out, allow_nan=False)

    @classmethod
    def from_json(cls: type[C], text: str) -> C:
        """Rebuild a comparison from :meth:`to_json`'s text.

        Parameters
        ----------
        text : str
            What :meth:`to_json` wrote, for a comparison of this class's ``kind``.

        Returns
        -------
        Comparison
            The same comparison: each table with its columns in order and its ``attrs``; a
            column of numbers with nulls comes back as floats with NaN.

        Raises
        ------
        ValueError
            When the JSON is of another kind of comparison (or of none), or a table is not
            written as :meth:`to_json` writes one.
        """
        data = json.loads(text)
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind != cls.kind:
            raise ValueError(f"the JSON holds a comparison of kind {kind!r}, not {cls.kind!r}; "
                             "read it with precmp_lib.compare.routes.comparison_from_json")
        tables = _table_fields(cls)  # type: ignore[arg-type]  # a class is hashable
        kwargs = {}
        for f in fields(cls):
            if f.name in data:
                value = data[f.name]
                kwargs[f.name] = _table_frame(value, f.name) if f.name in tables else value
        return cls(**kwargs)


def _table_json(frame: pd.DataFrame) -> dict[str, Any]:
    """One table as JSON-safe Python: its columns, its rows as records, and its ``attrs``."""
    names = [str(c) for c in frame.columns]
    table: dict[str, Any] = {"columns": names,
                             "records": [dict(zip(names, row))
                                         for row in zip(*map(_plain_column, _columns(frame)))]}
    if frame.attrs:
        table["attrs"] = plain(dict(frame.attrs))
    return table


def _columns(frame: pd.DataFrame) -> list[pd.Series]:
    return [frame.iloc[:, i] for i in range(frame.shape[1])]


def _plain_column(col: pd.Series) -> list[Any]:
    """Return a column's values as JSON-safe Python, a whole column at once where numpy can.

    Numbers of a numpy dtype are converted at once (a non-finite float becomes None); any other
    column value by value (:func:`plain`). The table of every pair of 1,000 models (500,000
    rows) took 11 s value by value.
    """
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        values = col.to_numpy()
        out = values.tolist()
        for j in np.flatnonzero(~np.isfinite(values)).tolist():
            out[j] = None
        return out
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return col.tolist()
    return [plain(v) for v in col.tolist()]


def _table_frame(table: Any, name: str = "table") -> pd.DataFrame:
    """Read back a table :func:`_table_json` wrote (``name`` is its field, for the message)."""
    if not (isinstance(table, Mapping) and "columns" in table and "records" in table):
        raise ValueError(f"{name} is not a table as to_json writes one (an object with columns "
                         "and records): the JSON was written by another version of precmp")
    frame = numeric_nulls(pd.DataFrame.from_records(table["records"], columns=table["columns"]))
    frame.attrs.update(table.get("attrs") or {})
    return frame


@functools.cache
def _table_fields(cls: type) -> frozenset[str]:
    """Return the fields of a comparison class annotated ``pd.DataFrame``: its tables."""
    hints = get_type_hints(cls)
    return frozenset(f.name for f in fields(cls) if hints.get(f.name) is pd.DataFrame)


def numeric_nulls(frame: pd.DataFrame) -> pd.DataFrame:
    """Turn columns of numbers and nulls (JSON's stand-in for NaN) back to float with NaN.

    A column of nulls only becomes NaN too: JSON keeps no type for it.

    >>> records = [{"mde": None, "p": 1, "note": "a"}, {"mde": None, "p": None, "note": None}]
    >>> frame = numeric_nulls(pd.DataFrame.from_records(records))
    >>> [str(frame[c].dtype) for c in ("mde", "p")], frame["note"].tolist()
    (['float64', 'float64'], ['a', nan])
    """
    for c in frame.columns:
        col = frame[c]
        if col.dtype == object and col.isna().any():
            rest = col.dropna()
            if all(isinstance(v, int | float) and not isinstance(v, bool) for v in rest):
                frame[c] = col.astype(float)
    return frame


# --------------------------------------------------------------------------------------------
# the best group: one rule for every route
# --------------------------------------------------------------------------------------------


def by_score(scores: Mapping[str, float]) -> list[str]:
    """Order models by score, highest first: the one order every route ranks models by.

    Equal scores keep the order of ``scores`` (the models' order: the order of the data, or of
    ``models=``); a missing score (NaN) comes last.

    >>> by_score({"a": 0.7, "b": 0.9, "c": 0.9, "d": float("nan")})
    ['b', 'c', 'a', 'd']
    """
    def key(model: str) -> tuple[bool, float]:
        s = float(scores[model])
        return (math.isnan(s), -s if not math.isnan(s) else 0.0)

    return sorted(scores, key=key)


def best_group(scores: Mapping[str, float], pairs: pd.DataFrame,
               reference: str | None = None) -> list[str]:
    """Return the best group, decided by the pairs table alone: the one rule of every route.

    With every pair compared: the top model and every model not shown worse than it (its pair
    with the top not rejected after the adjustment the pairs table holds). Against a
    ``reference``: the models shown better than the reference (a rejected pair whose estimate
    favours the other model, the reference on either side), or, when none is, the reference
    and the models not shown to differ from it. No pair outside the table is tested.

    The tie-break, stated once: models are ranked by score, highest first, and equal scores keep
    the models' order (:func:`by_score`); the top model is the first of that ranking, and the
    group is listed in it.

    Parameters
    ----------
    scores : mapping of str to float
        Each model's score (accuracy, mean item score), in the models' order.
    pairs : DataFrame
        ``model_a``, ``model_b``, ``reject`` (and ``estimate``, A - B, with a reference).
    reference : str, optional
        The model every other one was compared with.

    Returns
    -------
    list of str

    Examples
    --------
    >>> pairs = pd.DataFrame({"model_a": ["b", "b", "c"], "model_b": ["c", "a", "a"],
    ...                       "reject": [False, True, False], "estimate": [0.0, 0.2, 0.2]})
    >>> best_group({"a": 0.7, "b": 0.9, "c": 0.9}, pairs)
    ['b', 'c']

    b and c tie at 0.9: b comes first in the models' order, so b is the top model; c is not
    shown worse than b, a is.

    Against a reference, on either side of its pairs: the reference r beats a, c beats r.

    >>> ref = pd.DataFrame({"model_a": ["r", "c"], "model_b": ["a", "r"],
    ...                     "reject": [True, True], "estimate": [0.2, 0.1]})
    >>> best_group({"a": 0.5, "r": 0.7, "c": 0.8}, ref, reference="r")
    ['c']
    """
    order = by_score(scores)
    if reference is None:
        top = order[0]
        worse = {r.model_b if r.model_a == top else r.model_a for r in pairs.itertuples()
                 if r.reject and top in (r.model_a, r.model_b)}
        return [m for m in order if m not in worse]
    better: set[str] = set()
    beaten: set[str] = set()
    for r in pairs.itertuples():
        if not r.reject or reference not in (r.model_a, r.model_b):
            continue
        # the other model, and its difference from the reference, whichever side each is on
        other, diff = ((r.model_a, r.estimate) if r.model_b == reference
                       else (r.model_b, -r.estimate))
        (better if diff > 0 else beaten).add(other)
    if better:
        return [m for m in order if m in better]
    return [m for m in order if m not in beaten]

