"""The numpy engine: counts of prediction patterns from a DataFrame in memory."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    pass

from ..core.predictions import Counts
from .base import _check_flat, _Spec
from .dictionary import _value
from .finish import _finish

# --------------------------------------------------------------------------------------------
# the numpy engine
# --------------------------------------------------------------------------------------------


def _factorize(s: pd.Series, spec: _Spec) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 for NaN/None) and distinct values of one column (named ``s.name``)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.cat.codes.to_numpy().astype(np.int64), np.asarray(s.cat.categories, dtype=object)
    try:
        codes, uniq = pd.factorize(s, sort=False)
    except TypeError:  # unhashable values: dicts and arrays of a nested Parquet column
        raise spec.not_values(str(s.name)) from None
    try:
        values = np.asarray(uniq, dtype=object)
    except Exception as exc:  # pyarrow: a Parquet text column whose bytes are not UTF-8
        if type(exc).__module__.startswith("pyarrow"):
            raise spec.fail(f"column {str(s.name)!r} holds text that is not UTF-8; save the "
                            "file with UTF-8 text") from None
        raise
    return codes.astype(np.int64), values


def _combine(columns: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """One int64 key per row from several code columns (mixed radix, re-densified on overflow)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    span = 1
    for col, size in zip(columns, sizes):
        size = max(int(size), 1)
        if span * size >= 2**62:
            uniq, key = np.unique(key, return_inverse=True)
            key, span = key.ravel().astype(np.int64), len(uniq)
        key = key * size + col
        span *= size
    return key


def _grouped_rows(columns: dict[str, tuple[np.ndarray, np.ndarray]], n_rows: int) -> pd.DataFrame:
    """Group rows by several factorised columns: one row per distinct combination with ``n``."""
    names = list(columns)
    codes = [c + 1 for c, _ in columns.values()]   # -1 (missing) -> 0
    sizes = [len(u) + 1 for _, u in columns.values()]
    key = _combine(codes, sizes)
    span = math.prod(sizes)  # exact: 3 classes and 1,000 models pass a float's range
    if span <= max(4 * n_rows, 1 << 20):
        counts = np.bincount(key, minlength=span)
        keys = np.flatnonzero(counts)
        counts = counts[keys]
        parts = []
        for size in reversed(sizes):
            keys, digit = np.divmod(keys, size)
            parts.append(digit)
        digits = parts[::-1]
    else:
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
        digits = [c[first] for c in codes]
    out = {}
    for name, d, (_, uniq) in zip(names, digits, columns.values()):
        values = np.concatenate([np.array([None], dtype=object), uniq])
        out[name] = values[d]
    frame = pd.DataFrame(out)
    frame["n"] = counts.astype(np.int64)
    return frame


def _numpy_rows(spec: _Spec, frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Group a DataFrame's rows into the engine-neutral grouped rows, checking ids on the way.

    The columns are ``y``, ``p<j>`` (and for repeated cross-validation ``rep``, ``f0``) and the
    row count ``n``; the second table (repeated cross-validation only) is per observation.
    """
    pcols = [f"p{j}" for j in range(len(spec.models))] if spec.layout == "wide" else []
    if spec.layout == "long":
        cols = _long_to_wide(spec, frame)
        pcols = [f"p{j}" for j in range(len(spec.models))]
    else:
        cols = {"y": _factorize(frame[spec.y], spec)}
        for j, m in enumerate(spec.models):
            cols[f"p{j}"] = _factorize(frame[m], spec)
        for c, col in zip(["y", *pcols], [spec.y, *spec.models]):
            bad = np.flatnonzero(cols[c][0] < 0)
            if len(bad):
                raise spec.fail(f"column {col!r} has a missing label{spec.where(int(bad[0]))}")
        if spec.id is not None:
            _check_unique_ids(spec, frame)
        if spec.cv:
            cols.update({"id": _factorize(frame[spec.id], spec), "rep": _factorize(_repeats(spec, frame), spec)})
            if spec.fold:
                cols["f0"] = _factorize(frame[spec.fold], spec)
    n = len(cols["y"][0])
    truth = ["y", *(["y1"] if "y1" in cols else [])]
    if not spec.cv:
        return _grouped_rows({c: cols[c] for c in [*truth, *pcols]}, n), None
    keys = ["rep", *(["f0"] if spec.fold else []), *truth, *pcols]
    pat = _grouped_rows({c: cols[c] for c in keys}, n)
    obs = _grouped_rows({c: cols[c] for c in ["id", "y", *pcols]}, n)
    return pat, obs


def _repeats(spec: _Spec, frame: pd.DataFrame) -> pd.Series:
    """Return the repeat of each row: its repeat column, or 0 for one repeat (plain k-fold)."""
    if spec.repeat is None:
        return pd.Series(np.zeros(len(frame), np.int64), index=frame.index)
    return frame[spec.repeat]


def _check_unique_ids(spec: _Spec, frame: pd.DataFrame) -> None:
    key = [spec.id, *spec.repeat_key]
    dup = frame.duplicated(key, keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        first = frame.iloc[rows[0]][key].tolist()
        twin = next(r for r in rows[1:] if frame.iloc[r][key].tolist() == first)
        shown = ", ".join(f"{k}={_value(spec, v)}" for k, v in zip(key, first))
        where = (f"lines {rows[0] + 2} and {twin + 2}" if spec.rows_are_lines
                 else f"rows {rows[0]} and {twin}")
        what = f"({spec.id}, {spec.repeat})" if spec.repeat else spec.id
        raise spec.fail(f"column {spec.id!r}: duplicated {what} ({shown}; {where}); a wide table has one "
                        "row per observation"
                        + ("" if spec.repeat else " (add a repeat column for repeated cross-validation)"))
    if spec.cv:
        y = frame[spec.y]
        per_id = pd.DataFrame({"id": frame[spec.id], "y": y.astype(str)}).groupby("id")["y"].nunique()
        if (per_id > 1).any():
            bad = per_id.index[per_id.to_numpy() > 1][0]
            raise spec.fail(f"column {spec.y!r}: an observation has more than one true label "
                            f"(observation {spec.id}={_value(spec, bad)})")


def _long_to_wide(spec: _Spec, frame: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Pivot a long table to one row per (id[, repeat]) with every model's prediction, in numpy."""
    names = frame[spec.model_col].astype(str)
    available = pd.unique(names.to_numpy()).tolist()  # in the order of their first row
    if spec.models:
        unknown = sorted(set(spec.models) - set(available))
        if unknown:
            raise spec.fail(f"column {spec.model_col!r} has no rows for model(s) {unknown}")
        keep = names.isin(spec.models).to_numpy()
        frame, names = frame.loc[keep], names.loc[keep]
    else:
        spec.models = available
    if len(frame) == 0:
        raise spec.fail("the file has a header but no rows")
    model_index = pd.Index(spec.models).get_indexer(names.to_numpy()).astype(np.int64)
    keycols = [spec.id, *spec.repeat_key]
    row_key, _ = pd.MultiIndex.from_frame(frame[keycols].astype(object)).factorize() \
        if len(keycols) > 1 else pd.factorize(frame[spec.id])
    row_key = np.asarray(row_key, dtype=np.int64)
    n_keys, m = int(row_key.max()) + 1, len(spec.models)
    per = np.bincount(row_key * m + model_index, minlength=n_keys * m)
    if (per > 1).any():
        cell = int(np.flatnonzero(per > 1)[0])
        row = int(np.flatnonzero((row_key * m + model_index) == cell)[1])
        key = ", ".join(c for c in (spec.id, spec.model_col, spec.repeat) if c)
        raise spec.fail(f"duplicated ({key}) rows for model {spec.models[cell % m]!r}"
                        f"{spec.where(row)}; each must appear once")
    if (per == 0).any():
        cell = int(np.flatnonzero(per == 0)[0])
        raise spec.fail(f"column {spec.model_col!r}: model {spec.models[cell % m]!r} lacks "
                        "predictions for some observations")
    y_codes, y_uniq = _factorize(frame[spec.y], spec)
    p_codes, p_uniq = _factorize(frame[spec.pred_col], spec)
    for codes, col in ((y_codes, spec.y), (p_codes, spec.pred_col)):
        if (codes < 0).any():
            raise spec.fail(f"column {col!r} has a missing label{spec.where(int(np.flatnonzero(codes < 0)[0]))}")
    first = np.full(n_keys, -1, dtype=np.int64)
    order = np.arange(len(row_key))[::-1]
    first[row_key[order]] = order              # first row of each key
    out = {"y": (y_codes[first], y_uniq), "y1": _max_per_key(y_codes, row_key, n_keys, y_uniq)}
    preds = np.empty((n_keys, m), dtype=np.int64)
    preds[row_key, model_index] = p_codes
    for j in range(m):
        out[f"p{j}"] = (preds[:, j], p_uniq)
    if spec.cv:
        out["id"] = _factorize(frame[spec.id].iloc[first].reset_index(drop=True), spec)
        out["rep"] = _factorize(_repeats(spec, frame).iloc[first].reset_index(drop=True), spec)
        if spec.fold:
            out["f0"] = _factorize(frame[spec.fold].iloc[first].reset_index(drop=True), spec)
    return out


def _max_per_key(codes: np.ndarray, key: np.ndarray, n_keys: int, uniq: np.ndarray) -> tuple:
    top = np.full(n_keys, -1, dtype=np.int64)
    np.maximum.at(top, key, codes)
    return top, uniq


def _numpy_count(spec: _Spec, frame: pd.DataFrame) -> Counts:
    # a column of dicts, lists or arrays, by its first value (one further on: _factorize)
    _check_flat(spec, list(frame.columns), frame)
    pat, obs = _numpy_rows(spec, frame)

    def locate(column: str, what: str) -> Any:
        if column not in frame.columns:
            return None
        s = frame[column]
        if what == "missing":
            blank = s.isna() | s.astype(str).str.strip().eq("")
            rows = np.flatnonzero(blank.to_numpy())
            return int(rows[0]) if len(rows) else None
        if what == "two labels" and spec.id:
            per = pd.DataFrame({"i": frame[spec.id], "y": frame[spec.y].astype(str)}).groupby("i")["y"].nunique()
            bad = per.index[per.to_numpy() > 1]
            return f"observation {spec.id}={_value(spec, bad[0])}" if len(bad) else None
        return None

    return _finish(spec, pat, obs, "numpy", locate)


