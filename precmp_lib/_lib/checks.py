"""Checks of arguments: every error names the argument, what was expected and what came.

Nothing here uses ``assert``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "as_paired_scores",
    "as_score_matrix",
    "as_unit_interval",
    "check_bool",
    "check_choice",
    "check_choices",
    "check_counts",
    "check_positive_float",
    "check_positive_int",
    "check_probability",
    "check_random_state",
    "describe_value",
]


def describe_value(x: Any) -> str:
    """Say what a wrong argument was, briefly, for an error message.

    Examples
    --------
    >>> describe_value(np.zeros((2, 3)))
    'an array of shape (2, 3) and dtype float64'
    >>> describe_value("abc")
    "str 'abc'"
    """
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, pd.Series | pd.DataFrame):
        return f"a {type(x).__name__} of shape {x.shape}"
    return f"{type(x).__name__} {x!r}"[:120]


def check_choice(value: Any, name: str, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``, else raise a ValueError naming ``name``.

    >>> check_choice("exact", "method", ("chi2", "exact"))
    'exact'
    """
    choices = tuple(choices)
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}")
    return value


def check_choices(values: Any, name: str, choices: Iterable[Any]) -> Sequence[Any] | set[Any] | frozenset[Any]:
    """Return ``values`` if it is a non-empty sequence of entries of ``choices``.

    For arguments that select several methods at once (``methods=("fisher", "simes")``); a
    ValueError names ``name`` when ``values`` is a single string, not a sequence, empty, or
    holds an entry that is not one of ``choices``.

    >>> check_choices(["fisher", "simes"], "methods", ("fisher", "simes", "brown"))
    ['fisher', 'simes']
    """
    if isinstance(values, str) or not isinstance(values, Sequence | set | frozenset):
        raise ValueError(f"{name} must be a sequence of method names; got {values!r:.60}")
    if not values:
        raise ValueError(f"{name} must name at least one method")
    choices = tuple(choices)
    for value in values:
        check_choice(value, name, choices)
    return values


def check_probability(
    value: Any, name: str, *, low_open: bool = True, high_open: bool = True
) -> float:
    """Return ``value`` as a float in (0, 1) (endpoints allowed when not open).

    >>> check_probability(0.95, "confidence_level")
    0.95
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number between 0 and 1; got {describe_value(value)}")
    v = float(value)
    ok_low = v > 0 if low_open else v >= 0
    ok_high = v < 1 if high_open else v <= 1
    if not (np.isfinite(v) and ok_low and ok_high):
        lo, hi = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}0, 1{hi}; got {v!r}")
    return v


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int of at least ``minimum``.

    >>> check_positive_int(5, "n_resamples")
    5
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer >= {minimum}; got {describe_value(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value}")
    return int(value)


def check_counts(
    table: Any,
    name: str = "table",
    *,
    shape: tuple[int, ...] | None = None,
    integer: bool = True,
) -> np.ndarray:
    """Validate a table of counts and return it as a float array.

    Counts must be finite and non-negative; with ``integer=True`` they must also be whole numbers.

    >>> check_counts([[10, 11], [1, 5]], shape=(2, 2))
    array([[10., 11.],
           [ 1.,  5.]])
    """
    if isinstance(table, pd.DataFrame | pd.Series):
        table = table.to_numpy()
    try:
        arr = np.asarray(table, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers; got {describe_value(table)}") from None
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold finite counts; got NaN or infinite entries")
    if np.any(arr < 0):
        raise ValueError(f"{name} must hold non-negative counts; got {arr.min():g}")
    if integer and np.any(arr != np.round(arr)):
        bad = np.argwhere(arr != np.round(arr))[0]
        where = tuple(int(i) for i in bad)
        raise ValueError(
            f"{name} must hold whole-number counts; got {arr[where]:g} at position "
            f"{where[0] if len(where) == 1 else where}"
        )
    return arr


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a bool; only True and False (Python or numpy) are accepted.

    >>> check_bool(True, "weighted")
    True
    """
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False; got {describe_value(value)}")
    return bool(value)


def check_random_state(value: Any, name: str = "random_state") -> np.random.Generator:
    """Return a numpy Generator from a seed (None, a non-negative int) or a Generator.

    >>> check_random_state(7).integers(0, 100)
    np.int64(94)
    """
    if isinstance(value, bool) or isinstance(value, float | str | bytes):
        raise ValueError(f"{name} must be None, a non-negative integer or a numpy Generator; "
                         f"got {describe_value(value)}")
    try:
        return np.random.default_rng(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be None, a non-negative integer or a numpy Generator; "
                         f"got {describe_value(value)}") from None


def as_score_matrix(
    scores: Any, name: str = "scores", *, min_rows: int = 1, min_cols: int = 2
) -> tuple[np.ndarray, list[str], list[str]]:
    """Validate an N x k matrix of scores (rows = data sets or resamples, columns = classifiers).

    Returns the float array with row and column names (from a DataFrame, or generated).

    >>> arr, rows, cols = as_score_matrix([[0.8, 0.7], [0.9, 0.85]])
    >>> cols
    ['clf_0', 'clf_1']
    """
    if isinstance(scores, pd.DataFrame):
        rows = [str(r) for r in scores.index]
        cols = [str(c) for c in scores.columns]
        raw = scores.to_numpy()
    else:
        raw = scores
        rows, cols = [], []
    try:
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers; got {describe_value(raw)}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix (rows x classifiers); got shape {arr.shape}")
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise ValueError(
            f"{name} must have at least {min_rows} rows and {min_cols} columns; got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        r, c = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} must hold finite numbers; found {arr[r, c]} at row {r}, column {c}")
    rows = rows or [str(i) for i in range(arr.shape[0])]
    cols = cols or [f"clf_{j}" for j in range(arr.shape[1])]
    twice = next((c for i, c in enumerate(cols) if c in cols[:i]), None)
    if twice is not None:  # two classifiers of one name: every result by name would merge them
        raise ValueError(f"{name} has two columns named {twice!r}; give each classifier its "
                         "own name")
    return arr, rows, cols


def check_positive_float(value: Any, name: str) -> float:
    """Return ``value`` as a finite float greater than 0.

    >>> check_positive_float(3 / 7, "test_train_ratio")
    0.42857142857142855
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number > 0; got {describe_value(value)}")
    v = float(value)
    if not (np.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0; got {v!r}")
    return v


def as_paired_scores(
    scores_a: Any,
    scores_b: Any,
    *,
    shape: tuple[int, ...] | None = None,
    min_size: int = 2,
) -> tuple[np.ndarray, np.ndarray]:
    """Validate two arrays of paired scores (same resample in the same position) as floats.

    Parameters
    ----------
    scores_a, scores_b : array-like
        Scores of classifiers A and B; a pandas Series or DataFrame is taken by position.
    shape : tuple of int, optional
        The exact shape required (e.g. ``(5, 2)`` for 5x2cv); otherwise both must be 1-D.
    min_size : int
        Least number of paired scores when ``shape`` is not given.

    >>> a, b = as_paired_scores([0.9, 0.8], [0.85, 0.8])
    >>> (a - b).round(2).tolist()
    [0.05, 0.0]
    """
    out = []
    for name, raw in (("scores_a", scores_a), ("scores_b", scores_b)):
        if isinstance(raw, pd.DataFrame | pd.Series):
            raw = raw.to_numpy()
        try:
            arr = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold numbers; got {describe_value(raw)}") from None
        if shape is not None:
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape {shape}; got shape {arr.shape}")
        elif arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one score per resample); "
                             f"got shape {arr.shape}")
        elif arr.size < min_size:
            raise ValueError(f"{name} must hold at least {min_size} scores; got {arr.size}")
        bad = ~np.isfinite(arr)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            where_text = where[0] if len(where) == 1 else where
            raise ValueError(f"{name} must hold finite scores; found {arr[bad][0]} at "
                             f"position {where_text}")
        out.append(arr)
    if out[0].shape != out[1].shape:
        raise ValueError(f"scores_a and scores_b must have the same shape (paired by resample); "
                         f"got {out[0].shape} and {out[1].shape}")
    return out[0], out[1]


def as_unit_interval(values: Any, name: str, *, ndim: int | None = None) -> np.ndarray:
    """Return ``values`` as a float array whose entries all lie in [0, 1] (no NaN).

    Used for p-values, prevalences, sensitivities and specificities.

    >>> as_unit_interval([0.01, 0.5], "pvalues", ndim=1)
    array([0.01, 0.5 ])
    """
    if isinstance(values, pd.DataFrame | pd.Series):
        values = values.to_numpy()
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers in [0, 1]; got {describe_value(values)}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    if np.any((arr < 0) | (arr > 1)):
        bad = arr[(arr < 0) | (arr > 1)].ravel()[0]
        raise ValueError(f"{name} must lie in [0, 1]; got {bad!r}")
    return arr
