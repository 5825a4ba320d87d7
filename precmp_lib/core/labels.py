"""Labels as the library reads them: one array of class labels per column, coded together.

Arrays, Series and lists become label arrays (:func:`as_label_array`); the truth and the
predictions are coded against one list of classes (:func:`encode_labels`), by the
factorizer of :mod:`precmp_lib.core.factorize`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._lib.checks import describe_value
from .factorize import (
    _check_one_form_per_label,
    _code_dtype,
    _encode_dense_ints,
    _factorize_columns,
    _Factorized,
    _first_missing,
    _missing_error,
    _number_text,
    _python_label,
)

__all__ = ['EncodedLabels', 'as_label_array', 'encode_labels']


def _is_dictionary_dtype(dtype: Any) -> bool:
    """Categorical and pandas string columns carry (or cheaply build) a dictionary of labels."""
    return isinstance(dtype, pd.CategoricalDtype | pd.StringDtype)


def _pandas_labels(values: pd.Series | pd.Index, name: str, keep_pandas: bool) -> Any:
    """Return the labels of a Series or Index: its pandas array or a numpy array.

    The pandas array itself for dictionary dtypes when asked, else a numpy array; missing
    values (None, NaN, pd.NA) raise.
    """
    if values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {values.shape}")
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(values.array.codes)
        if (codes < 0).any():
            raise _missing_error(name, _first_missing(codes < 0))
        categories = dtype.categories
        if categories.dtype == object:  # text and numbers may mix: one form per label
            used = np.bincount(codes, minlength=len(categories)) > 0
            _check_one_form_per_label(categories[used].tolist(), name)
        if keep_pandas:
            return values.array
        return np.asarray(values.cat.categories if isinstance(values, pd.Series)
                          else values.categories, dtype=object)[codes]
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        arr = values.to_numpy()
        if dtype.kind == "f" and np.isnan(arr).any():  # pandas' marker of a missing value
            raise _missing_error(name, _first_missing(np.isnan(arr)))
        return arr
    missing = np.asarray(values.isna())
    if missing.any():
        raise _missing_error(name, _first_missing(missing))
    if keep_pandas and _is_dictionary_dtype(dtype):
        return values.array
    if isinstance(dtype, np.dtype):
        return values.to_numpy()
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if numeric:  # nullable Int64 / Float64 without missing values
        return values.to_numpy(dtype=float if dtype.kind == "f" else np.int64)
    return values.to_numpy(dtype=object)


def _sequence_labels(values: Any) -> np.ndarray:
    """Return a list or tuple as an array.

    Text stays the Python objects it is, in an object array: numpy's fixed-width text would
    drop trailing NUL characters ("a" and "a" with a NUL after it would become one label) and
    would turn [1, "1"] into two equal strings.
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "US" and arr.ndim == 1:
        arr = np.empty(len(values), dtype=object)
        arr[:] = list(values)
    return arr


def _object_labels(arr: np.ndarray, name: str) -> np.ndarray:
    """Check an object array: no missing values, one form per label.

    Whole numbers become int64 (1.0 is 1).
    """
    kind = pd.api.types.infer_dtype(arr, skipna=False)
    if kind == "string":  # only str: nothing missing, nothing mixed
        return arr
    missing = pd.isna(arr)
    if missing.any():
        raise _missing_error(name, _first_missing(missing))
    if kind == "integer":
        try:
            return arr.astype(np.int64)
        except OverflowError:  # beyond int64: keep the Python ints
            return arr
    if kind in ("floating", "mixed-integer-float", "decimal"):
        as_float = arr.astype(float)
        if np.all(as_float == np.round(as_float)) and np.all(np.abs(as_float) < 2.0**53):
            return as_float.astype(np.int64)
        return as_float
    if kind.startswith("mixed"):
        _check_one_form_per_label(pd.unique(arr).tolist(), name)
    return arr


def as_label_array(values: Any, name: str, *, keep_pandas: bool = False) -> Any:
    """Return labels as a 1-D array; reject empty input and missing values.

    Accepts lists, tuples, numpy arrays and pandas Series or Index. Only None, NaN and pd.NA
    are missing: text such as ``"NA"`` or ``"null"`` is a label. Whole-number floats become
    int64 (1.0 is the label 1). A column holding one label both as text and as a number
    (``"1"`` and ``1``) is refused, naming both forms.

    Parameters
    ----------
    values : array-like of shape (n,)
    name : str
        The argument's name, for error messages.
    keep_pandas : bool
        Return categorical and pandas string columns as their pandas array (validated), so
        :func:`encode_labels` can use their dictionary instead of one Python object per row.
        Otherwise the result is always a numpy array.

    Examples
    --------
    >>> as_label_array(["cat", "dog"], "y_true")
    array(['cat', 'dog'], dtype=object)
    >>> as_label_array([0.0, 1.0], "y_pred")
    array([0, 1])
    """
    arr = _label_input(values, name, keep_pandas)
    if isinstance(arr, np.ndarray) and arr.dtype == object:
        arr = _object_labels(arr, name)
    return arr


def _label_input(values: Any, name: str, keep_pandas: bool) -> Any:
    """Make every check of :func:`as_label_array` except the scan of object arrays.

    :func:`encode_labels` checks object arrays while it codes them (one pass instead of two).
    """
    if isinstance(values, pd.DataFrame):
        raise ValueError(f"{name} must be one-dimensional labels; got a DataFrame")
    if isinstance(values, pd.api.extensions.ExtensionArray):  # Categorical, string arrays, ...
        values = pd.Series(values, copy=False)
    if isinstance(values, pd.Series | pd.Index):
        arr = _pandas_labels(values, name, keep_pandas)
    elif isinstance(values, str | bytes) or np.isscalar(values):
        raise ValueError(f"{name} must be a sequence of labels; got {describe_value(values)}")
    elif isinstance(values, list | tuple):
        arr = _sequence_labels(values)
    else:
        arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if len(arr) == 0:
        raise ValueError(f"{name} must not be empty")
    if not isinstance(arr, np.ndarray):
        return arr
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            raise _missing_error(name, _first_missing(bad), "NaN")
        if np.all(arr == np.round(arr)) and np.all(np.abs(arr) < 2.0**53):
            arr = arr.astype(np.int64)
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
        """Number of classes."""
        return len(self.classes)

    def label(self, code: int) -> Any:
        """Return the original label of ``code`` as a plain Python value."""
        value = self.classes[code]
        return value.item() if isinstance(value, np.generic) else value

    def code(self, label: Any, name: str = "positive") -> int:
        """Return the code of ``label``; ValueError naming ``name`` when it never occurs."""
        for i, c in enumerate(self.classes):
            if c == label or str(c) == str(label):
                return i
        listed = ", ".join(repr(self.label(i)) for i in range(self.n_classes))
        raise ValueError(f"{name}={label!r} is not among the labels in the data ({listed})")


def _shared_classes(parts: Sequence[_Factorized]) -> tuple[list[Any], Callable[[Any], Any]]:
    """Return the sorted union of the labels that occur, and the key that matches them.

    When some arrays hold text and others numbers, numbers are matched by their text
    (an int column and a text column of the same labels are the same classes).
    """
    seen = [u for p in parts for u, ok in zip(p.uniques, p.present, strict=True) if ok]
    texts = any(isinstance(u, str) for u in seen)
    numbers = any(_number_text(u) is not None for u in seen)
    key: Callable[[Any], Any] = _text_key if texts and numbers else _same_key
    classes = list(dict.fromkeys(key(u) for u in seen))
    try:
        classes.sort()
    except TypeError:  # unorderable mixture: first-seen order
        pass
    return classes, key


def _text_key(value: Any) -> Any:
    text = _number_text(value)
    return value if text is None else text


def _same_key(value: Any) -> Any:
    return value


def _class_array(classes: list[Any]) -> np.ndarray:
    numbers = all(isinstance(c, int | float) and not isinstance(c, bool) for c in classes)
    if numbers and all(isinstance(c, int) and -(2**63) <= c < 2**63 for c in classes):
        return np.array(classes, dtype=np.int64)
    if numbers and all(isinstance(c, float) or abs(c) < 2**53 for c in classes):
        return np.array(classes, dtype=float)
    out = np.empty(len(classes), dtype=object)
    out[:] = classes
    return out


def _recode(parts: Sequence[_Factorized], names: Sequence[str], classes: list[Any],
            key: Callable[[Any], Any], *, explicit: bool) -> list[np.ndarray]:
    """Map each array's own codes onto positions in ``classes`` with one small look-up table."""
    position = {c: i for i, c in enumerate(classes)}
    dtype = _code_dtype(len(classes))
    out = []
    for name, part in zip(names, parts, strict=True):
        positions = [position.get(key(u), -1) if ok else 0
                     for u, ok in zip(part.uniques, part.present, strict=True)]
        if explicit and min(positions, default=0) < 0:
            unknown = [u for u, t in zip(part.uniques, positions, strict=True) if t < 0]
            raise ValueError(f"{name} holds labels not in labels: {unknown[:5]!r}")
        table = np.asarray(positions, dtype=dtype)
        if len(table) == len(classes) and np.array_equal(table, np.arange(len(classes))):
            out.append(part.codes.astype(dtype, copy=False))  # same dictionary, same order
        else:
            out.append(table[part.codes])
    return out


def _encode_general(arrays: Sequence[Any], names: Sequence[str],
                    labels: Sequence[Any] | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """Encode each array once against its own dictionary, then merge the (small) dictionaries.

    An array given twice (the same object) is coded once (:func:`_factorize_columns`).
    """
    parts = _factorize_columns(arrays, names)
    if labels is None:
        classes, key = _shared_classes(parts)
    else:
        classes = [_python_label(v) for v in labels]
        if len(set(classes)) != len(classes):
            raise ValueError("labels must not repeat a label")
        key = _text_key if all(isinstance(c, str) for c in classes) else _same_key
    codes = _recode(parts, names, classes, key, explicit=labels is not None)
    return codes, _class_array(classes)


def label_columns(y_true: Any, predictions: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Check label columns as :func:`encode_labels` does, without a pass over their values.

    Each column becomes a 1-D numpy array (whole-number floats as int64, bool as int64) or,
    for categorical and pandas string columns, its pandas array; empty columns, columns of
    another length than ``y_true`` and missing values in pandas or float columns raise. Object
    arrays are returned as they are: :func:`encode_labels` checks them while it codes them.
    For callers that count small-range integer labels directly and encode anything else.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels.
    predictions : mapping name -> array-like of shape (n,)
        Each classifier's predicted labels.

    Returns
    -------
    y : array of shape (n,)
    preds : dict name -> array of shape (n,)
        In the order of ``predictions``, names as str.

    Examples
    --------
    >>> y, preds = label_columns([1.0, 2.0], {"a": [True, False]})
    >>> y.tolist(), preds["a"].tolist()
    ([1, 2], [1, 0])
    """
    y = _label_input(y_true, "y_true", keep_pandas=True)
    preds = {str(k): _label_input(v, str(k), keep_pandas=True) for k, v in predictions.items()}
    for name, p in preds.items():
        if len(p) != len(y):
            raise ValueError(
                f"{name} must have the same length as y_true ({len(y)}); got {len(p)}"
            )
    return y, preds


def encode_label_columns(
    columns: Mapping[str, Any], *, labels: Sequence[Any] | None = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """Code label columns checked by :func:`label_columns` on one class list, column by column.

    :func:`encode_labels` without the checks of :func:`label_columns` and without stacking
    the predictions into one matrix: for callers that combine the codes of each column
    themselves (one ``np.bincount`` of a combined code).

    Parameters
    ----------
    columns : mapping name -> array of shape (n,)
        The truth first, then each classifier's predictions, as :func:`label_columns` returns
        them; the names appear in error messages.
    labels : sequence, optional
        The class list to use, in this order; labels outside it raise ValueError.

    Returns
    -------
    codes : list of ndarray of shape (n,)
        Each column's codes 0..K-1, in the order of ``columns`` (int8 up to 127 classes).
    classes : ndarray of shape (K,)
        The label of each code, sorted where the labels are sortable.

    Examples
    --------
    >>> y, preds = label_columns(["dog", "cat"], {"a": ["cat", "cat"]})
    >>> codes, classes = encode_label_columns({"y_true": y, **preds})
    >>> classes.tolist(), [c.tolist() for c in codes]
    (['cat', 'dog'], [[1, 0], [0, 0]])
    """
    arrays = list(columns.values())
    if labels is not None and (isinstance(labels, str | bytes) or not isinstance(labels, Iterable)):
        raise ValueError(f"labels must be a sequence of class labels; got {describe_value(labels)}")
    if labels is None and all(isinstance(a, np.ndarray) and a.dtype.kind in "iu" for a in arrays):
        dense = _encode_dense_ints(arrays)
        if dense is not None:
            return dense
    return _encode_general(arrays, list(columns), labels)


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

    Notes
    -----
    The label rules are those of :func:`as_label_array` (only None, NaN and pd.NA are missing;
    1.0 is 1; one label written both as text and as a number in one array is an error). An
    int truth with text predictions (or the reverse) is matched by text.

    Each array is coded once against its own dictionary: small-range integers by table
    look-up, categoricals by their codes; text of at most 8 bytes (numpy text below U+0100,
    pandas text stored by Arrow, read from its buffers) packed into one 64-bit integer per
    row, and object arrays of a few shared strings by the strings' addresses, each coded
    against the few keys of a sample through a small perfect hash and checked row by row;
    other fixed-width numpy text by binary search in a sampled dictionary, anything else by
    hashing. The dictionaries, a few labels each, are then merged into the sorted class list
    and every array's codes are mapped through a small table (none when the array's
    dictionary is the class list already), so no array is converted to Python objects or
    concatenated with the others.

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
    y, preds = label_columns(y_true, predictions)
    codes, classes = encode_label_columns({"y_true": y, **preds}, labels=labels)
    return EncodedLabels(
        y=codes[0],
        preds=np.column_stack(codes[1:]),
        classes=classes,
        names=tuple(preds),
    )


