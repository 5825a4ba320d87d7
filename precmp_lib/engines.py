"""The counting engine: every comparison starts from counts of prediction patterns.

One pass over the rows produces the sufficient statistics of a comparison of m models:

* ``patterns``: the number of rows with each observed pattern ``(y, p0, ..., p{m-1})`` of the
  true class code and the models' predicted class codes; for cross-validated predictions the
  same per ``(repeat, fold)``;
* ``observations`` (cross-validated predictions only): the same pattern counts per observation
  (the id), summed over repeats, which clustering on the observation needs.

Every test precmp runs on a comparison is a function of these tables, so the raw rows are read
once, where they live, and only counts come back. This module holds the in-memory (numpy)
engine; the DuckDB and Spark engines produce the same :class:`Counts` from the same query.

Layouts
-------
wide
    One row per prediction event: the truth column and one column per model (optionally an id).
long
    One row per (observation, model[, repeat]): ``id``, ``model``, the truth, ``y_pred`` and,
    for repeated cross-validation, ``repeat`` and ``fold``.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"y": ["a", "b", "b", "a"], "m1": ["a", "b", "a", "a"],
...                    "m2": ["a", "b", "b", "b"]})
>>> c = count_predictions(df, y_true="y")
>>> c.classes, c.models, c.n_rows
(('a', 'b'), ('m1', 'm2'), 4)
>>> c.patterns.sort_values(["y", "p0", "p1"]).to_dict("list")
{'y': [0, 0, 1, 1], 'p0': [0, 0, 0, 1], 'p1': [0, 1, 1, 1], 'count': [1, 1, 1, 1]}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Counts", "count_predictions"]

TEST_SET = "test set"
REPEATED_CV = "repeated cv"


@dataclass(frozen=True)
class Counts:
    """Sufficient statistics of a comparison of several models' predictions.

    Attributes
    ----------
    classes : tuple
        Class labels in code order (code ``k`` is ``classes[k]``).
    models : tuple of str
        Model names; model ``j``'s predicted code is column ``p{j}``.
    patterns : DataFrame
        Columns ``repeat``, ``fold`` (repeated cv only), ``y``, ``p0`` .. ``p{m-1}``, ``count``
        (int64): number of rows with that pattern. Only observed patterns are listed.
    observations : DataFrame or None
        Repeated cv only: columns ``obs`` (dense code of the observation id), ``y``, ``p0`` ..
        ``p{m-1}``, ``count`` (number of repeats of that observation with that pattern).
    design : str
        ``"test set"`` or ``"repeated cv"``.
    n_rows : int
        Prediction events counted (rows of the wide table: observations x repeats).
    n_observations : int
        Distinct observations.
    repeats, folds : int or None
        Repeated cv only: number of repeats and of folds per repeat.
    engine : str
        The engine that counted: ``"numpy"``, ``"duckdb"`` or ``"spark"``.
    source : str
        What was counted, for messages and reports (a file name, "DataFrame", ...).
    notes : tuple of str
        Remarks found while reading (e.g. a model predicting a label the truth never has).
    """

    classes: tuple
    models: tuple[str, ...]
    patterns: pd.DataFrame
    observations: pd.DataFrame | None
    design: str
    n_rows: int
    n_observations: int
    repeats: int | None = None
    folds: int | None = None
    engine: str = "numpy"
    source: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def pred_columns(self) -> list[str]:
        """Names of the prediction code columns, in model order."""
        return [f"p{j}" for j in range(len(self.models))]


def _fail(message: str) -> ValueError:
    return ValueError(message)


def _detect_layout(columns: Sequence[str], layout: str) -> str:
    if layout not in ("auto", "wide", "long"):
        raise _fail(f"layout must be 'auto', 'wide' or 'long'; got {layout!r}")
    if layout != "auto":
        return layout
    return "long" if {"model", "y_pred"} <= set(columns) else "wide"


def _encode(series: Sequence[pd.Series]) -> tuple[list[np.ndarray], tuple]:
    """Code several label columns on one sorted class list."""
    for s in series:
        if s.isna().any():
            row = int(np.flatnonzero(s.isna().to_numpy())[0])
            raise _fail(f"column {s.name!r} has a missing label (row {row})")
    values = pd.concat([pd.Series(pd.unique(s.to_numpy())) for s in series], ignore_index=True)
    classes = pd.unique(values.to_numpy())
    try:
        classes = np.asarray(sorted(classes.tolist()), dtype=object)
    except TypeError:
        raise _fail("labels mix types that cannot be ordered (e.g. numbers and text)") from None
    index = pd.Index(classes)
    codes = [index.get_indexer(s.to_numpy()).astype(np.int64) for s in series]
    return codes, tuple(c.item() if isinstance(c, np.generic) else c for c in classes)


def _group_counts(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    out = frame.groupby(keys, sort=True).size().rename("count").reset_index()
    out["count"] = out["count"].astype(np.int64)
    for k in keys:
        out[k] = out[k].astype(np.int64)
    return out


def _wide_from_long(
    frame: pd.DataFrame, *, y_true: str, models: Sequence[str] | None, id: str, repeat: str | None,
    fold: str | None,
) -> tuple[pd.DataFrame, list[str]]:
    for col in [id, "model", "y_pred", y_true] + [c for c in (repeat, fold) if c]:
        if col not in frame.columns:
            raise _fail(f"column {col!r} is missing; columns are: {', '.join(map(str, frame.columns))}")
    frame = frame.assign(model=frame["model"].astype(str))
    if models is not None:
        frame = frame[frame["model"].isin(list(models))]
    key = [id, *([repeat] if repeat else [])]
    by_model = [*key, "model"]
    if frame.duplicated(by_model).any():
        raise _fail(f"duplicated ({', '.join(by_model)}) rows; each must appear once")
    wide = frame.pivot(index=key, columns="model", values="y_pred")
    if wide.isna().any().any():
        raise _fail("some models lack predictions for some observations")
    first = frame.drop_duplicates(key).set_index(key)
    if first.groupby(level=0)[y_true].nunique().gt(1).any():
        raise _fail(f"column {y_true!r}: an observation has more than one true label")
    names = [str(m) for m in (models if models is not None else wide.columns)]
    out = wide.reset_index()
    out[y_true] = first[y_true].reindex(wide.index).to_numpy()
    if fold:
        out[fold] = first[fold].reindex(wide.index).to_numpy()
    return out, names


def count_predictions(
    source: Any,
    *,
    y_true: str,
    models: Sequence[str] | None = None,
    id: str | None = None,
    repeat: str | None = None,
    fold: str | None = None,
    layout: str = "auto",
    engine: str = "auto",
) -> Counts:
    """Count the prediction patterns of several models in one pass.

    Parameters
    ----------
    source : DataFrame
        The predictions, wide or long.
    y_true : str
        Column with the true labels.
    models : sequence of str, optional
        Wide: the model columns (default all but truth, id, repeat, fold). Long: models to keep.
    id, repeat, fold : str, optional
        Observation id, repeat and fold columns (long layout: ``id`` defaults to ``"id"``;
        ``repeat``/``fold`` default to those names when present).
    layout : {"auto", "wide", "long"}
    engine : {"auto", "numpy"}

    Returns
    -------
    Counts
    """
    if engine not in ("auto", "numpy"):
        raise _fail(f"engine must be 'auto' or 'numpy' for in-memory data; got {engine!r}")
    if not isinstance(source, pd.DataFrame):
        raise TypeError(f"source must be a pandas DataFrame; got {type(source).__name__}")
    frame = source
    if y_true not in frame.columns:
        raise _fail(f"column {y_true!r} (true labels) is missing")
    layout = _detect_layout([str(c) for c in frame.columns], layout)
    if layout == "long":
        id = id or "id"
        repeat = repeat or ("repeat" if "repeat" in frame.columns else None)
        fold = fold or ("fold" if "fold" in frame.columns else None)
        frame, names = _wide_from_long(frame, y_true=y_true, models=models, id=id, repeat=repeat,
                                       fold=fold)
    else:
        skip = {y_true, id, repeat, fold}
        names = [str(c) for c in (models if models is not None else frame.columns) if c not in skip]
        missing = [m for m in names if m not in frame.columns]
        if missing:
            raise _fail(f"model column(s) {missing} are missing")
    if len(names) < 1:
        raise _fail("no model columns besides the truth")
    codes, classes = _encode([frame[y_true], *(frame[m] for m in names)])
    pcols = [f"p{j}" for j in range(len(names))]
    table = pd.DataFrame({"y": codes[0], **dict(zip(pcols, codes[1:]))})
    cv = layout == "long" and repeat is not None
    observations = None
    repeats = folds = None
    if cv:
        table.insert(0, "repeat", pd.factorize(frame[repeat], sort=True)[0])
        table.insert(1, "fold", pd.factorize(frame[fold], sort=True)[0] if fold else 0)
        table.insert(0, "obs", pd.factorize(frame[id], sort=True)[0])
        observations = _group_counts(table.drop(columns=["repeat", "fold"]), ["obs", "y", *pcols])
        patterns = _group_counts(table.drop(columns=["obs"]), ["repeat", "fold", "y", *pcols])
        repeats = int(table["repeat"].nunique())
        folds = int(table.groupby("repeat")["fold"].nunique().max())
        n_obs = int(table["obs"].nunique())
    else:
        patterns = _group_counts(table, ["y", *pcols])
        n_obs = len(table)
    return Counts(
        classes=classes, models=tuple(names), patterns=patterns, observations=observations,
        design=REPEATED_CV if cv else TEST_SET, n_rows=len(table), n_observations=n_obs,
        repeats=repeats, folds=folds, engine="numpy", source="DataFrame",
    )
