"""Input checks and label encoding shared by every module.

One place decides what counts as valid input, and every error says which argument was wrong,
what was expected and what came. Nothing here uses ``assert``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from numbers import Real
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

_native: ModuleType | None
try:  # label coding loops in C (_native.c), built where a C compiler was found
    from precmp_lib import _native
except ImportError:  # the numpy kernels below give the same codes, more slowly
    _native = None

__all__ = [
    "EncodedLabels",
    "as_label_array",
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


def _first_missing(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _missing_error(name: str, where: int, kind: str = "missing") -> ValueError:
    return ValueError(f"{name} must not contain {kind} labels; found one at position {where}")


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


def _number_text(value: Any) -> str | None:
    """Return the text a number is written as (1.0 -> "1"), or None for anything but a number."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        return None
    if isinstance(value, float | np.floating):
        number = float(value)
        return str(int(number)) if number.is_integer() else str(number)
    return str(math.trunc(value))


def _check_one_form_per_label(uniques: Sequence[Any], name: str) -> None:
    """Raise when a label occurs both as text and as a number ("1" and 1).

    Such labels would otherwise be merged or split silently.
    """
    texts = {v for v in uniques if isinstance(v, str)}
    if not texts:
        return
    for v in uniques:
        text = _number_text(v)
        if text is not None and text in texts:
            raise ValueError(
                f"{name} holds the label {text!r} both as text ({text!r}) and as a number "
                f"({v!r}); write every label of a column one way"
            )


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
        raise ValueError(f"{name} must be a sequence of labels; got {_describe(values)}")
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


def shift_small_ints(a: np.ndarray, lo: int, dtype: type[np.signedinteger]) -> np.ndarray:
    """Return ``a - lo`` as ``dtype`` for integer labels in a small range starting at ``lo``.

    Exact for every width and sign: ``lo`` is the smallest label of several arrays, so it may
    lie outside ``a``'s own type (int8 labels beside int16 ones, int64 beside uint64), and the
    difference of the extremes of a narrow type may not fit that type (int8 127 - (-128)).

    Parameters
    ----------
    a : ndarray of int or uint
        Labels, each at least ``lo`` and less than ``lo`` plus the range ``dtype`` holds.
    lo : int
        The smallest label (of ``a`` and the arrays coded with it).
    dtype : numpy signed integer type
        The type of the result.

    Returns
    -------
    ndarray of ``dtype``
        The labels minus ``lo`` (0 for the smallest label).

    Examples
    --------
    >>> shift_small_ints(np.array([-128, 127], dtype=np.int8), -128, np.int32).tolist()
    [0, 255]
    >>> shift_small_ints(np.array([2**64 - 1], dtype=np.uint64), 2**64 - 3, np.int32).tolist()
    [2]
    """
    if lo >= 0:  # a >= lo >= 0: the difference fits a's own type
        shifted = a - a.dtype.type(lo) if lo else a
    else:  # lo < 0: every label is small, so int64 holds it whatever a's type
        shifted = a.astype(np.int64) - lo
    return shifted.astype(dtype, copy=False)


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
        s = shift_small_ints(a, lo, np.int32)
        present[np.bincount(s, minlength=width) > 0] = True
        shifted.append(s)
    values = np.flatnonzero(present)
    lookup = (np.cumsum(present) - 1).astype(_code_dtype(len(values)))
    if len(values) == width:  # every value in the range occurs: codes are the shifted labels
        codes = [s.astype(lookup.dtype, copy=False) for s in shifted]
    else:
        codes = [lookup[s] for s in shifted]
    return codes, small_int_labels(values, lo)


def small_int_labels(offsets: np.ndarray, lo: int) -> np.ndarray:
    """Return the labels ``offsets + lo``: int64, or uint64 where they lie beyond int64.

    Parameters
    ----------
    offsets : ndarray of int
        Labels minus ``lo``, small and non-negative (as :func:`shift_small_ints` gives them).
    lo : int
        The smallest label.

    Returns
    -------
    ndarray of int64 or uint64

    Examples
    --------
    >>> small_int_labels(np.array([0, 2]), 2**63).tolist()
    [9223372036854775808, 9223372036854775810]
    >>> small_int_labels(np.array([0, 255]), -128).dtype
    dtype('int64')
    """
    hi = lo + int(offsets.max(initial=0))
    label_type = np.uint64 if hi >= 2**63 else np.int64
    return offsets.astype(label_type) + label_type(lo)


def _code_dtype(n_classes: int) -> type[np.signedinteger]:
    return np.int8 if n_classes <= 127 else np.int32


@dataclass(frozen=True)
class _Factorized:
    """One array's labels as codes into its own dictionary (``uniques``).

    ``present`` marks the dictionary entries that occur (a categorical may declare
    categories it never uses).
    """

    codes: np.ndarray
    uniques: list[Any]
    present: np.ndarray


# Rows sampled to guess a column's dictionary before every row is coded against it.
_SAMPLE_ROWS = 4096

# An object column whose rows point to at most this many distinct objects is coded by
# object identity (a few shared ``str`` objects, as lists and NumPy take of repeated labels).
_SHARED_OBJECTS = 256

# A column whose sampled rows hold at most this many distinct labels is coded through a small
# perfect hash of them, each row checked against its slot: a few vectorised passes beat a
# general hash table.
_FEW_KEYS = 8

# The same, where the C loops code the rows: one look-up a row whatever the number of labels,
# up to as many as a table of at most 2**14 slots separates (and int8 codes hold).
_NATIVE_KEYS = 64


def _factorize_fixed_width(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Code fixed-width text (numpy ``<U``/``S``) against a dictionary guessed from a sample.

    Every row is coded by binary search and verified; None when the sample missed a label.
    """
    guess = np.unique(arr[:: max(1, len(arr) // _SAMPLE_ROWS)])
    codes = np.searchsorted(guess, arr)
    np.minimum(codes, len(guess) - 1, out=codes)
    if not np.array_equal(guess[codes], arr):
        return None
    return codes, guess


# Rows coded per block: a block's keys and temporaries stay in cache while each key is compared.
_BLOCK_ROWS = 1 << 15

# _LOW_BYTES[n] keeps the low n bytes of a 64-bit word (the first n bytes of packed text).
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)

# The integer keys of rows lo..hi of a column (a view or a block packed on demand).
_KeyBlock = Callable[[int, int], np.ndarray]

# Ranks a column's few keys by their labels, given the keys and a row holding each.
_KeyOrder = Callable[[np.ndarray, np.ndarray], np.ndarray]

# Codes every row of a column in C through a small perfect hash: called with the hash's
# multiplier and shift, its keys and positions (:func:`_key_table`) and the int8 codes to fill;
# returns a status of _native (0 coded, 1 a row cannot be packed, 2 a key outside the table).
_NativeCoder = Callable[[int, int, np.ndarray, np.ndarray, np.ndarray], int]
_CODED, _UNPACKABLE = 0, 1


# Odd 64-bit multipliers tried in turn to hash a column's few keys into a small table.
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93)


def _key_table(guess: np.ndarray) -> tuple[np.uint64, np.uint64, np.ndarray, np.ndarray] | None:
    """Return a perfect hash of a few keys into a small table.

    A key's slot is ``(key * m) >> shift`` (multiplicative hashing into 16 to 16 384 slots);
    ``positions[slot]`` is the key's position in ``guess`` and ``keys[slot]`` the key itself.
    An empty slot holds ``guess[0]``, which hashes to another slot, so no key that hashes to
    an empty slot equals the key stored there (a 0 there would let the key 0, the empty text,
    pass as the key at position 0). None when none of the multipliers tried separates the keys.
    """
    for bits in (4, 6, 8, 10, 12, 14):
        shift = np.uint64(64 - bits)
        for m in _MULTIPLIERS:
            slots = ((guess * np.uint64(m)) >> shift).astype(np.intp)
            if len(np.unique(slots)) == len(guess):
                positions = np.zeros(1 << bits, dtype=np.int8)
                positions[slots] = np.arange(len(guess))
                keys = np.full(1 << bits, guess[0], dtype=np.uint64)
                keys[slots] = guess
                return np.uint64(m), shift, positions, keys
    return None


def _code_blocks(n: int, guess: np.ndarray, block: _KeyBlock,
                 native: _NativeCoder | None = None) -> np.ndarray | None:
    """Code rows 0..n-1 as positions in ``guess`` (a few keys), block by block.

    Each key is hashed into a small table (:func:`_key_table`) and the key found there is
    compared with it. Returns int8 codes, or None when some row holds a key outside
    ``guess`` (or no hash separates the keys). ``native``, when given, codes all the rows in
    one pass in C instead (it raises ``_Unpackable`` as ``block`` would).
    """
    found = _key_table(guess.astype(np.uint64))
    if found is None:
        return None
    m, shift, positions, table_keys = found
    codes = np.empty(n, dtype=np.int8)
    if native is not None:
        status = native(int(m), int(shift), table_keys, positions, codes)
        if status == _UNPACKABLE:
            raise _Unpackable
        return codes if status == _CODED else None
    for lo in range(0, n, _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, n)
        keys = block(lo, hi)
        slots = keys * m
        slots >>= shift
        at = slots.view(np.int64)
        if not np.array_equal(np.take(table_keys, at), keys):
            return None
        np.take(positions, at, out=codes[lo:hi])
    return codes


def _factorize_blocks(n: int, sample: tuple[np.ndarray, np.ndarray], block: _KeyBlock, *,
                      order: _KeyOrder | None = None, native: _NativeCoder | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code integer keys: return the codes, the distinct keys and one row holding each.

    ``sample`` holds the keys of some rows and those rows. When it holds at most
    ``_FEW_KEYS`` distinct keys (``_NATIVE_KEYS`` with ``native``), every row is coded against them block by block
    (:func:`_code_blocks`, with no array of all the keys when ``block`` packs them on
    demand); otherwise, or when the sample missed a key, all the keys are hashed.

    ``order`` ranks the sampled keys (given them and a row holding each) by their labels:
    the rows are then coded in label order, which is usually the class codes already (no
    second pass to re-code them). ``native`` is passed on to :func:`_code_blocks`.
    """
    guess, at = np.unique(sample[0], return_index=True)
    if order is not None:
        ranked = order(guess, sample[1][at])
        guess, at = guess[ranked], at[ranked]
    if len(guess) <= (_FEW_KEYS if native is None else _NATIVE_KEYS):
        codes = _code_blocks(n, guess, block, native)
        if codes is not None:
            return codes, guess, sample[1][at]
    keys = block(0, n)
    hashed, uniques = pd.factorize(keys)
    rows = np.full(len(uniques), -1, dtype=np.intp)
    rows[hashed[sample[1]][::-1]] = sample[1][::-1]
    if (rows < 0).any():  # keys the sample missed: their first rows
        rare = np.flatnonzero(rows[hashed] < 0)
        rows[hashed[rare][::-1]] = rare[::-1]
    return hashed, np.asarray(uniques), rows


def _sample_rows(n: int) -> np.ndarray:
    return np.arange(0, n, max(1, n // _SAMPLE_ROWS))


def _factorize_keys(keys: np.ndarray, order: _KeyOrder | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code an array of integer keys (see :func:`_factorize_blocks`)."""
    rows = _sample_rows(len(keys))
    native = None
    if _native is not None and keys.dtype.itemsize == 8 and keys.flags.c_contiguous:
        def native(m: int, shift: int, table: np.ndarray, positions: np.ndarray,
                   out: np.ndarray) -> int:
            return _native.code_keys(keys, m, shift, table, positions, out)
    return _factorize_blocks(len(keys), (keys[rows], rows), lambda lo, hi: keys[lo:hi],
                             order=order, native=native)


def _text_order(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Rank text packed first byte lowest: by its bytes first to last, the order of the text."""
    return np.argsort(np.asarray(keys, dtype="<u8").byteswap(), kind="stable")


def _unpack_text(keys: np.ndarray, encoding: str) -> list[str]:
    """Return the texts of packed keys (first byte lowest, NUL bytes after the end)."""
    raw = np.asarray(keys, dtype="<u8").view(np.uint8).reshape(-1, 8)
    return [bytes(row).rstrip(b"\x00").decode(encoding) for row in raw]


class _Unpackable(Exception):
    """Raised by a block of text that cannot be packed (too long, a NUL, a wide character)."""


def _pack_chars(chars: np.ndarray) -> np.ndarray:
    """Pack rows of at most 8 characters (32-bit, each below 256) one byte per character."""
    if chars.max(initial=0) > 0xFF:
        raise _Unpackable
    if chars.shape[1] == 8:
        packed = chars.astype(np.uint8)
    else:
        packed = np.zeros((len(chars), 8), dtype=np.uint8)
        packed[:, : chars.shape[1]] = chars
    return packed.view("<u8").ravel()


def _factorize_packed_text(arr: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
    """Code numpy ``<U`` text of at most 8 characters below U+0100 as 64-bit integers.

    Every row is packed into one integer (one byte per character, the first character
    lowest), a block at a time, and the integers are coded instead of the text; each block
    is checked for wider characters while it is packed, so the text is read once.

    A ``<U`` row is its characters as 32-bit integers padded with zeros, so equal labels
    give equal integers and the packing is exact. None for longer or wider text.
    """
    width = arr.dtype.itemsize // 4
    if arr.dtype.kind != "U" or not 0 < width <= 8:
        return None
    chars = np.ascontiguousarray(arr).view(np.uint32).reshape(len(arr), width)
    rows = _sample_rows(len(arr))
    native = None
    if _native is not None:
        def native(m: int, shift: int, table: np.ndarray, positions: np.ndarray,
                   out: np.ndarray) -> int:
            return _native.code_ucs4(chars, width, m, shift, table, positions, out)
    try:
        codes, keys, _ = _factorize_blocks(len(arr), (_pack_chars(chars[rows]), rows),
                                           lambda lo, hi: _pack_chars(chars[lo:hi]),
                                           order=_text_order, native=native)
    except _Unpackable:
        return None
    return codes, _unpack_text(keys, "latin-1")


def _arrow_text_chunks(arr: Any) -> list[Any] | None:
    """Return the Arrow chunks of a pandas string array stored by pyarrow, else None."""
    dtype = getattr(arr, "dtype", None)
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    import pyarrow as pa  # present whenever pandas stores strings with it

    stored = arr.__arrow_array__()  # the Arrow data itself (pandas' Arrow protocol), no copy
    chunks = stored.chunks if isinstance(stored, pa.ChunkedArray) else [stored]
    if not all(pa.types.is_string(c.type) or pa.types.is_large_string(c.type) for c in chunks):
        return None
    return chunks


def _unaligned_words(data: np.ndarray) -> np.ndarray:
    """Return the 8 bytes starting at every position of ``data`` as little-endian words.

    A strided view (stride one byte), not a copy; positions ``0 .. len(data) - 8``.
    """
    return np.ndarray((max(len(data) - 7, 0),), dtype="<u8", buffer=data, strides=(1,))


class _ArrowText:
    """Rows of Arrow string arrays packed into 64-bit integers on demand, a block at a time.

    Byte j of a row's UTF-8 text becomes byte j (from the low end) of its integer, the bytes
    after its end 0, read straight from each array's offsets and data buffers (a sliced
    array starts at its own offset). Distinct texts give distinct integers when no text is
    longer than 8 bytes or holds a NUL byte (else "a" and "a" followed by a NUL would be one
    integer): :meth:`block` checks its rows for both and raises ``_Unpackable``, so every
    row is checked once, while it is packed.
    """

    def __init__(self, chunks: list[Any], offsets: list[np.ndarray], data: list[np.ndarray]
                 ) -> None:
        self.chunks = chunks
        self.offsets = offsets
        self.data = data
        # Each chunk's data as aligned 64-bit words, and the same words one further on: a
        # row starting r bytes into word q is (word q >> 8r) | (word q+1 << (64 - 8r)).
        self.words = [(w, w[1:]) for w in
                      (np.frombuffer(d[: len(d) // 8 * 8], dtype="<u8") for d in data)]
        # Rows that start less than 16 bytes before the end of their buffer are read from a
        # zero-padded copy of its last bytes.
        self.tails = []
        for d in data:
            tail = np.zeros(32, dtype=np.uint8)
            base = max(len(d) - 16, 0)
            tail[: len(d) - base] = d[base:]
            self.tails.append((base, _unaligned_words(tail)))
        self.starts = np.cumsum([0] + [len(o) - 1 for o in offsets])

    @classmethod
    def of(cls, chunks: list[Any]) -> _ArrowText | None:
        """Read the buffers of ``chunks``; None when one holds a missing value."""
        import pyarrow as pa

        offsets, data = [], []
        for chunk in chunks:
            if chunk.null_count:
                return None
            _, offset_buffer, data_buffer = chunk.buffers()
            width = 8 if pa.types.is_large_string(chunk.type) else 4
            offsets.append(np.frombuffer(offset_buffer, dtype=f"<i{width}", count=len(chunk) + 1,
                                         offset=chunk.offset * width).astype(np.int64, copy=False))
            data.append(np.frombuffer(data_buffer if data_buffer is not None else b"",
                                      dtype=np.uint8))
        return cls(chunks, offsets, data)

    def _pack(self, c: int, at: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Pack the rows of chunk ``c`` starting at bytes ``at`` (increasing) of ``lengths``."""
        if lengths.max(initial=0) > 8:
            raise _Unpackable
        keys = np.take(_LOW_BYTES, lengths)
        cut = int(np.searchsorted(at, len(self.data[c]) - 16, side="right"))
        word, next_word = self.words[c]
        q = at[:cut] >> 3
        r = (at[:cut] & 7).view(np.uint64)
        r <<= np.uint64(3)
        inner = word[q] >> r
        inner |= next_word[q] << (np.uint64(64) - r)  # numpy shifts by 64 give 0
        keys[:cut] &= inner
        if cut < len(at):
            base, tail = self.tails[c]
            keys[cut:] &= tail[at[cut:] - base]
        return keys

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """Pack the given rows (increasing positions in the whole column); lengths checked."""
        chunk = np.searchsorted(self.starts, rows, side="right") - 1
        out = []
        for c, o in enumerate(self.offsets):
            mine = rows[chunk == c] - self.starts[c]
            out.append(self._pack(c, o[mine], o[mine + 1] - o[mine]))
        return np.concatenate(out)

    def texts(self, rows: np.ndarray) -> set[bytes]:
        """Return the distinct texts of the given rows (positions in the column), as UTF-8."""
        import pyarrow as pa

        taken = pa.chunked_array(self.chunks).take(pa.array(rows))
        return {t.encode("utf-8") for t in taken.to_pylist()}

    def code(self, m: int, shift: int, table: np.ndarray, positions: np.ndarray,
             out: np.ndarray) -> int:
        """Code every row in C, chunk by chunk (a ``_NativeCoder``; needs ``_native``)."""
        native = _native
        if native is None:
            raise RuntimeError("precmp_lib._native was not built")
        for c, (offsets, data) in enumerate(zip(self.offsets, self.data, strict=True)):
            rows = out[self.starts[c]: self.starts[c + 1]]
            status = native.code_text(offsets, data, m, shift, table, positions, rows)
            if status != _CODED:
                return int(status)
        return _CODED

    def block(self, lo: int, hi: int) -> np.ndarray:
        """Pack rows lo..hi-1 of the whole column, checking them for length and NUL bytes."""
        out = []
        first = int(np.searchsorted(self.starts, lo, side="right")) - 1
        for c in range(first, len(self.offsets)):
            if self.starts[c] >= hi:
                break
            a, b = max(lo, self.starts[c]) - self.starts[c], min(hi, self.starts[c + 1]) - self.starts[c]
            if a >= b:  # an empty chunk
                continue
            o = self.offsets[c][a: b + 1]
            if not self.data[c][o[0]:o[-1]].all():
                raise _Unpackable
            out.append(self._pack(c, o[:-1], np.diff(o)))
        return out[0] if len(out) == 1 else np.concatenate(out)


def _factorize_arrow_text(arr: Any) -> tuple[np.ndarray, list[str]] | None:
    """Code a pandas string column stored by Arrow whose texts are at most 8 bytes long.

    Each row is packed into one 64-bit integer from the Arrow buffers (:class:`_ArrowText`)
    and the integers are coded as packed numpy text is. None for other arrays, longer texts
    and texts holding a NUL byte: the caller hashes those.
    """
    chunks = _arrow_text_chunks(arr)
    text = None if chunks is None else _ArrowText.of(chunks)
    if text is None:
        return None
    rows = _sample_rows(len(arr))
    try:
        codes, keys, _ = _factorize_blocks(len(arr), (text.rows(rows), rows), text.block,
                                           order=_text_order,
                                           native=text.code if _native is not None else None)
    except _Unpackable:
        return _factorize_long_text(text, len(arr))
    return codes, _unpack_text(keys, "utf-8")


# The key of a text of any length is a hash of it (``_native.hash_texts``): a perfect hash of
# a few labels' keys, as :func:`_key_table` finds it, with each label's slot.
_HashedLabels = tuple[int, int, np.ndarray, np.ndarray]

# ``_native.code_texts`` reads a text of up to this many 8-byte words as that many, and so
# wants each label zero-padded to whole words, at least this many (SHORT_WORDS in _native.c).
_SHORT_WORDS = 4


def _hashed_labels(data: bytes, offsets: np.ndarray) -> _HashedLabels | None:
    """Hash a few labels (bytes ``offsets[i] .. offsets[i+1]`` of ``data``) into a table.

    Returns the multiplier, the shift, the positions (-1 in empty slots) and each label's slot;
    None when two labels share a key or no multiplier separates them.
    """
    if _native is None:
        return None
    keys = np.empty(len(offsets) - 1, dtype=np.uint64)
    _native.hash_texts(offsets, np.frombuffer(data, dtype=np.uint8), keys)
    found = _key_table(keys)
    if found is None:
        return None
    m, shift, table_positions, _ = found
    slots = ((keys * m) >> shift).astype(np.intp)
    positions = np.full(len(table_positions), -1, dtype=np.int8)
    positions[slots] = np.arange(len(slots))
    return int(m), int(shift), positions, slots


def _factorize_long_text(text: _ArrowText, n: int) -> tuple[np.ndarray, list[str]] | None:
    """Code Arrow text of a few labels of any length (or with NUL bytes) in C.

    The labels are guessed from the sampled rows; each row's text is hashed to a slot and
    compared with the label there byte for byte (``_native.code_texts``). None without the C
    module, with many labels, or when a row holds a label the sample missed.
    """
    if _native is None:
        return None
    labels = sorted(text.texts(_sample_rows(n)))  # UTF-8 byte order: the text's order
    if len(labels) > _NATIVE_KEYS:
        return None
    offsets = np.cumsum([0, *map(len, labels)], dtype=np.int64)
    hashed = _hashed_labels(b"".join(labels), offsets)
    if hashed is None:
        return None
    m, shift, positions, slots = hashed
    words = [b.ljust(max(-(-len(b) // 8), _SHORT_WORDS) * 8, b"\0") for b in labels]
    starts = np.zeros(len(positions), dtype=np.int64)
    starts[slots] = np.cumsum([0, *map(len, words[:-1])])
    lengths = np.full(len(positions), -1, dtype=np.int64)
    lengths[slots] = np.diff(offsets)
    data = np.frombuffer(b"".join(words), dtype=np.uint8)
    codes = np.empty(n, dtype=np.int8)
    for c, (o, d) in enumerate(zip(text.offsets, text.data, strict=True)):
        out = codes[text.starts[c]: text.starts[c + 1]]
        if _native.code_texts(o, d, m, shift, starts, lengths, data, positions, out) != _CODED:
            return None
    return codes, [b.decode("utf-8") for b in labels]


def _factorize_fixed_rows(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Code numpy text (``<U``, ``S``) of a few labels of any width in C.

    The labels are guessed from the sampled rows; each row's stored bytes are hashed to a slot
    and compared with the label there (``_native.code_rows``; equal text is equal bytes, as
    numpy pads with NULs). None without the C module, with many labels, or when a row holds a
    label the sample missed.
    """
    width = arr.dtype.itemsize
    if _native is None or width == 0:
        return None
    guess = np.unique(arr[_sample_rows(len(arr))])
    if len(guess) > _NATIVE_KEYS:
        return None
    label_bytes = np.ascontiguousarray(guess).tobytes()
    hashed = _hashed_labels(label_bytes, np.arange(len(guess) + 1, dtype=np.int64) * width)
    if hashed is None:
        return None
    m, shift, positions, slots = hashed
    slot_rows = np.zeros((len(positions), -(-width // 8) * 8), dtype=np.uint8)  # whole words
    slot_rows[slots, :width] = np.frombuffer(label_bytes, dtype=np.uint8).reshape(-1, width)
    codes = np.empty(len(arr), dtype=np.int8)
    rows = np.ascontiguousarray(arr).view(np.uint8)
    if _native.code_rows(rows, width, m, shift, slot_rows, positions, codes) != _CODED:
        return None
    return codes, guess


class _Addresses:
    """The element pointers of an object array, as unsigned integers (array interface).

    A read-only view of the same buffer; it holds the array, so the objects and their
    addresses stay alive.
    """

    def __init__(self, arr: np.ndarray) -> None:
        self.array = arr
        self.__array_interface__ = {
            "shape": arr.shape, "strides": arr.strides, "typestr": np.dtype(np.uintp).str,
            "data": (arr.__array_interface__["data"][0], True), "version": 3,
        }


def _factorize_shared_objects(arr: np.ndarray) -> tuple[np.ndarray, list[Any]] | None:
    """Code an object column of a few shared ``str`` objects by the objects' addresses.

    Addresses are integers (no Python call per row); they are then merged by value (two
    equal strings at two addresses are one label). None when the rows hold many distinct
    objects (built one by one) or anything but strings: the caller hashes the values.
    """
    addresses = np.asarray(_Addresses(arr))
    if len(np.unique(addresses[:: max(1, len(arr) // _SAMPLE_ROWS)])) > _SHARED_OBJECTS // 4:
        return None

    def by_text(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
        objects = arr[rows].tolist()
        if not all(isinstance(v, str) for v in objects):
            return np.arange(len(objects))
        return np.array(sorted(range(len(objects)), key=objects.__getitem__), dtype=np.intp)

    codes, unique_addresses, rows = _factorize_keys(addresses, by_text)
    if len(unique_addresses) > _SHARED_OBJECTS:
        return None
    objects = arr[rows].tolist()
    if not all(isinstance(v, str) for v in objects):
        return None
    position: dict[Any, int] = {}
    table = np.array([position.setdefault(v, len(position)) for v in objects], dtype=np.intp)
    if len(position) < len(objects):
        codes = table[codes]
    return codes, list(position)


def _categories_present(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Mark the categories that occur.

    They are counted on the first rows, and only the categories not seen there are
    searched for in the rest (usually none, so the codes are not read again).
    """
    present = np.bincount(codes[:65536], minlength=n_categories) > 0
    for k in np.flatnonzero(~present):
        present[k] = bool(np.any(codes == k))
    return present


def _factorize(arr: Any, name: str) -> _Factorized:
    """Code one label array against its own dictionary, touching each row once.

    An object array is checked here (missing values are code -1, the text-and-number check
    needs only the dictionary).
    """
    if isinstance(arr, pd.Categorical):
        codes = np.asarray(arr.codes)
        present = _categories_present(codes, len(arr.categories))
        return _Factorized(codes, np.asarray(arr.categories, dtype=object).tolist(), present)
    fast = _factorize_fast(arr) if isinstance(arr, np.ndarray) else _factorize_arrow_text(arr)
    if fast is not None:
        return _Factorized(fast[0], fast[1], np.ones(len(fast[1]), dtype=bool))
    codes, found = pd.factorize(arr)
    uniques = np.asarray(found, dtype=object).tolist()
    if isinstance(arr, np.ndarray) and arr.dtype == object:
        if (codes < 0).any():
            raise _missing_error(name, _first_missing(codes < 0))
        _check_one_form_per_label(uniques, name)
    uniques = [_plain(v) for v in uniques]
    return _Factorized(np.asarray(codes), uniques, np.ones(len(uniques), dtype=bool))


def _factorize_fast(arr: np.ndarray) -> tuple[np.ndarray, list[Any]] | None:
    """Code numpy text or shared-string object columns without hashing a Python object per row.

    Returns the codes and the plain labels; None where only hashing the values will do.
    """
    found: tuple[np.ndarray, Any] | None = None
    if arr.dtype == object:
        found = _factorize_shared_objects(arr)
    elif arr.dtype.kind in "US":
        found = (_factorize_packed_text(arr) or _factorize_fixed_rows(arr)
                 or _factorize_fixed_width(arr))
    if found is None:
        return None
    codes, uniques = found
    return np.asarray(codes), [_plain(v) for v in np.asarray(uniques, dtype=object).tolist()]


def _plain(value: Any) -> Any:
    """Return a dictionary entry as a plain Python value; whole-number floats as ints."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2.0**53:
        return int(value)
    return value


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


# Columns of at least this many rows are coded side by side, a thread each, on as many threads
# as the process may use: the C loops release the GIL for the whole column.
_PARALLEL_ROWS = 1 << 20


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _factorize_columns(arrays: Sequence[Any], names: Sequence[str]) -> list[_Factorized]:
    """Code each array once (an array given twice, the same object, once), in column order.

    Large columns are coded in a thread pool when the C loops are built; an error is that of
    the first failing column, as one after another would give.
    """
    distinct: dict[int, tuple[Any, str]] = {}  # each array once, with its first name
    for a, n in zip(arrays, names, strict=True):
        distinct.setdefault(id(a), (a, n))
    workers = min(len(distinct), _usable_cores())
    if _native is None or workers < 2 or min(len(a) for a in arrays) < _PARALLEL_ROWS:
        coded = {key: _factorize(a, n) for key, (a, n) in distinct.items()}
    else:
        with ThreadPoolExecutor(workers) as pool:
            futures = {key: pool.submit(_factorize, a, n) for key, (a, n) in distinct.items()}
            coded = {key: f.result() for key, f in futures.items()}
    return [coded[id(a)] for a in arrays]


def _encode_general(arrays: Sequence[Any], names: Sequence[str],
                    labels: Sequence[Any] | None = None) -> tuple[list[np.ndarray], np.ndarray]:
    """Encode each array once against its own dictionary, then merge the (small) dictionaries.

    An array given twice (the same object) is coded once (:func:`_factorize_columns`).
    """
    parts = _factorize_columns(arrays, names)
    if labels is None:
        classes, key = _shared_classes(parts)
    else:
        classes = [_plain(v) for v in labels]
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
        raise ValueError(f"labels must be a sequence of class labels; got {_describe(labels)}")
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
