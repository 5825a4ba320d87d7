"""Input checks and label encoding shared by every module.

One place decides what counts as valid input, and every error says which argument was wrong,
what was expected and what came. Nothing here uses ``assert``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "EncodedLabels",
    "as_label_array",
    "as_paired_scores",
    "as_score_matrix",
    "as_unit_interval",
    "check_bool",
    "check_choice",
    "check_counts",
    "check_positive_float",
    "check_positive_int",
    "check_probability",
    "check_random_state",
    "encode_labels",
]

# Integer labels spanning at most this many values are encoded by table look-up (O(n), no sort).
_DENSE_RANGE = 1 << 16


def _describe(x: Any) -> str:
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


def check_probability(
    value: Any, name: str, *, low_open: bool = True, high_open: bool = True
) -> float:
    """Return ``value`` as a float in (0, 1) (endpoints allowed when not open).

    >>> check_probability(0.95, "confidence_level")
    0.95
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number between 0 and 1; got {_describe(value)}")
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
        raise ValueError(f"{name} must be an integer >= {minimum}; got {_describe(value)}")
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
        raise ValueError(f"{name} must hold numbers; got {_describe(table)}") from None
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
        raise ValueError(f"{name} must be True or False; got {_describe(value)}")
    return bool(value)


def check_random_state(value: Any, name: str = "random_state") -> np.random.Generator:
    """Return a numpy Generator from a seed (None, a non-negative int) or a Generator.

    >>> check_random_state(7).integers(0, 100)
    np.int64(94)
    """
    if isinstance(value, bool) or isinstance(value, float | str | bytes):
        raise ValueError(f"{name} must be None, a non-negative integer or a numpy Generator; "
                         f"got {_describe(value)}")
    try:
        return np.random.default_rng(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be None, a non-negative integer or a numpy Generator; "
                         f"got {_describe(value)}") from None


def as_label_array(values: Any, name: str) -> np.ndarray:
    """Return labels as a 1-D numpy array; reject empty input and missing values.

    Accepts lists, tuples, numpy arrays and pandas Series (categoricals are decoded).

    >>> as_label_array(["cat", "dog"], "y_true")
    array(['cat', 'dog'], dtype='<U3')
    """
    if isinstance(values, pd.DataFrame):
        raise ValueError(f"{name} must be one-dimensional labels; got a DataFrame")
    if isinstance(values, pd.Series | pd.Index):
        if values.isna().any():
            where = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise ValueError(f"{name} must not contain missing labels; found one at position {where}")
        arr = values.to_numpy()
        if arr.dtype == object or isinstance(values.dtype, pd.CategoricalDtype):
            arr = np.asarray(values.astype(object).to_numpy())
    elif isinstance(values, str | bytes) or np.isscalar(values):
        raise ValueError(f"{name} must be a sequence of labels; got {_describe(values)}")
    else:
        arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            where = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name} must not contain NaN labels; found one at position {where}")
        if np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
    elif arr.dtype == object:
        missing = pd.isna(arr)
        if missing.any():
            where = int(np.flatnonzero(missing)[0])
            raise ValueError(f"{name} must not contain missing labels; found one at position {where}")
    elif arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    return arr


@dataclass(frozen=True)
class EncodedLabels:
    """Labels of the truth and of several classifiers, coded 0..K-1 on a shared class list.

    Attributes
    ----------
    y : ndarray of shape (n,)
        Codes of the true labels.
    preds : ndarray of shape (n, c)
        Codes of each classifier's predictions, one column per classifier.
    classes : ndarray of shape (K,)
        The label of each code, sorted where the labels are sortable.
    names : tuple of str
        Classifier names, in column order.
    """

    y: np.ndarray
    preds: np.ndarray
    classes: np.ndarray
    names: tuple[str, ...]

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def label(self, code: int) -> Any:
        """The original label of ``code`` as a plain Python value."""
        value = self.classes[code]
        return value.item() if isinstance(value, np.generic) else value

    def code(self, label: Any, name: str = "positive") -> int:
        """The code of ``label``; ValueError naming ``name`` when the label never occurs."""
        for i, c in enumerate(self.classes):
            if c == label or str(c) == str(label):
                return i
        listed = ", ".join(repr(self.label(i)) for i in range(self.n_classes))
        raise ValueError(f"{name}={label!r} is not among the labels in the data ({listed})")


def _encode_dense_ints(arrays: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray] | None:
    """Fast path: integer labels within a small range, coded by table look-up."""
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    if hi - lo >= _DENSE_RANGE:
        return None
    width = hi - lo + 1
    present = np.zeros(width, dtype=bool)
    shifted = []
    for a in arrays:
        s = a - lo if lo != 0 else a
        present[np.bincount(s, minlength=width) > 0] = True
        shifted.append(s)
    values = np.flatnonzero(present)
    lookup = np.cumsum(present) - 1
    code_dtype = np.int8 if len(values) <= 127 else np.int32
    lookup = lookup.astype(code_dtype)
    if len(values) == width:  # every value in the range occurs: codes are the shifted labels
        codes = [s.astype(code_dtype, copy=False) for s in shifted]
    else:
        codes = [lookup[s] for s in shifted]
    return codes, values + lo


def _encode_general(arrays: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    kinds = {a.dtype.kind for a in arrays}
    if len(kinds) > 1 or "O" in kinds:
        arrays = [a.astype(object) for a in arrays]
        if not all(isinstance(v, str) for a in arrays for v in a[:1]) and any(
            isinstance(v, str) for a in arrays for v in a[:1]
        ):
            # mixed ints and strings: compare as text so 1 and "1" are the same class
            arrays = [a.astype(str) for a in arrays]
    stacked = np.concatenate(arrays)
    codes_all, uniques = pd.factorize(stacked, sort=False)
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:  # unorderable mixture: keep first-seen order
        order = np.arange(len(uniques))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    codes_all = rank[codes_all].astype(np.int32)
    classes = np.asarray(uniques)[order]
    out, start = [], 0
    for a in arrays:
        out.append(codes_all[start : start + len(a)])
        start += len(a)
    return out, classes


def encode_labels(
    y_true: Any,
    predictions: Mapping[str, Any] | Sequence[Any] | pd.DataFrame,
    *,
    labels: Sequence[Any] | None = None,
) -> EncodedLabels:
    """Validate the truth and several classifiers' predictions and code them on one class list.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings; no missing values).
    predictions : mapping name -> array-like, sequence of array-likes, or DataFrame
        Each classifier's predicted labels, the same length as ``y_true``.
    labels : sequence, optional
        The class list to use, in this order; labels outside it raise ValueError.

    Returns
    -------
    EncodedLabels

    Examples
    --------
    >>> enc = encode_labels(["cat", "dog", "dog"], {"a": ["cat", "cat", "dog"]})
    >>> enc.classes.tolist(), enc.y.tolist(), enc.preds[:, 0].tolist()
    (['cat', 'dog'], [0, 1, 1], [0, 0, 1])
    """
    if isinstance(predictions, pd.DataFrame):
        predictions = {str(c): predictions[c] for c in predictions.columns}
    elif not isinstance(predictions, Mapping):
        predictions = {f"y_pred_{'abcdefghijklmnopqrstuvwxyz'[i]}" if i < 26 else f"y_pred_{i}": p
                       for i, p in enumerate(predictions)}
    if len(predictions) == 0:
        raise ValueError("predictions must hold at least one classifier; got none")
    y = as_label_array(y_true, "y_true")
    preds = {str(k): as_label_array(v, str(k)) for k, v in predictions.items()}
    for name, p in preds.items():
        if len(p) != len(y):
            raise ValueError(
                f"{name} must have the same length as y_true ({len(y)}); got {len(p)}"
            )
    arrays = [y, *preds.values()]
    if labels is not None:
        if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
            raise ValueError(f"labels must be a sequence of class labels; got {_describe(labels)}")
        classes = np.asarray(list(labels), dtype=object if any(isinstance(v, str) for v in labels) else None)
        if len(set(classes.tolist())) != len(classes):
            raise ValueError("labels must not repeat a label")
        lookup = {v: i for i, v in enumerate(classes.tolist())}
        codes = []
        for name, a in zip(["y_true", *preds], arrays):
            codes_a, uniq = pd.factorize(a, sort=False)
            missing = [u for u in uniq.tolist() if u not in lookup]
            if missing:
                raise ValueError(f"{name} holds labels not in labels: {missing[:5]!r}")
            table = np.array([lookup[u] for u in uniq.tolist()], dtype=np.int32)
            codes.append(table[codes_a])
    else:
        dense = None
        if all(a.dtype.kind in "iu" for a in arrays):
            dense = _encode_dense_ints(arrays)
        codes, classes = dense if dense is not None else _encode_general(arrays)
    return EncodedLabels(
        y=codes[0],
        preds=np.column_stack(codes[1:]),
        classes=classes,
        names=tuple(preds),
    )


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
        rows = cols = None
    try:
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers; got {_describe(raw)}") from None
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
    return arr, rows, cols


def check_positive_float(value: Any, name: str) -> float:
    """Return ``value`` as a finite float greater than 0.

    >>> check_positive_float(3 / 7, "test_train_ratio")
    0.42857142857142855
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a number > 0; got {_describe(value)}")
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
            raise ValueError(f"{name} must hold numbers; got {_describe(raw)}") from None
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
        raise ValueError(f"{name} must hold numbers in [0, 1]; got {_describe(values)}") from None
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
