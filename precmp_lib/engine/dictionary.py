"""The label dictionary: one place where every engine's raw values become class labels.

The rules (the same for numpy, DuckDB and Spark) are listed in :mod:`precmp_lib.engine`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    pass

from .._lib.text import REPLACEMENT, lost_bytes
from .base import PredictionFileError, _Spec

# --------------------------------------------------------------------------------------------
# the label dictionary (one place for every engine)
# --------------------------------------------------------------------------------------------

# ASCII digits only: "\d" would read the Arabic-Indic "١" and the full-width "１" as 1
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
MISSING, NUMBER, TEXT, BOOL = "missing", "number", "text", "bool"


def _int_if_whole(x: Any) -> Any:
    """1.0 -> 1; other floats and ints as Python scalars."""
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    x = float(x)
    return int(x) if x.is_integer() else x


def _classify(value: Any, *, numbers_in_text: bool) -> tuple[str, Any]:
    """Return the kind (missing, number, text, bool) and the normalised label of one raw value."""
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING, None
    if isinstance(value, bool | np.bool_):
        return BOOL, bool(value)
    if isinstance(value, int | np.integer):
        return NUMBER, int(value)
    if isinstance(value, float | np.floating):
        if np.isnan(value):
            return MISSING, None
        return NUMBER, _int_if_whole(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    text = str(value).strip()
    if text == "":
        return MISSING, None
    if numbers_in_text and _NUMBER.fullmatch(text):
        return NUMBER, _int_if_whole(int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else float(text))
    return TEXT, text


@dataclass(frozen=True)
class _Column:
    """The distinct raw values of one label column, their kinds and normalised labels."""

    name: str
    raw: np.ndarray
    kinds: list[str]
    labels: list[Any]


def _describe(name: str, raw: np.ndarray, text_numbers: bool) -> list[tuple[str, Any]]:
    return [_classify(v, numbers_in_text=text_numbers) for v in raw]


def label_dictionary(
    columns: Mapping[str, np.ndarray], *, text_numbers: bool = False, source: str = "DataFrame"
) -> tuple[tuple, dict[str, np.ndarray], dict[str, Any]]:
    """Build one class list for several label columns and code each column's distinct values.

    Parameters
    ----------
    columns : mapping name -> array
        The *distinct* raw values of each label column (truth first).
    text_numbers : bool
        The values are text from a CSV file: when every label reads as a number they are
        numbers, otherwise all are text.
    source : str
        For messages.

    Returns
    -------
    classes : tuple
        Sorted labels (numerically when all are numbers).
    codes : dict name -> ndarray of int64
        Code of each distinct value (-1 where the value is missing).
    missing : dict name -> raw value
        Columns holding a missing value, with that raw value.

    Raises
    ------
    PredictionFileError
        A column that mixes text and numbers ("1" and 1), or text in one column and numbers in
        another, naming both forms.

    Examples
    --------
    >>> classes, codes, _ = label_dictionary({"y": np.array([0, 1]), "m": np.array([1.0, 0.0])})
    >>> classes, codes["m"].tolist()
    ((0, 1), [1, 0])
    >>> label_dictionary({"y": np.array(["1", "10", "2.0"], dtype=object)}, text_numbers=True)[0]
    (1, 2, 10)
    """
    cols = {}
    numeric_text = text_numbers and all(
        _classify(v, numbers_in_text=True)[0] in (NUMBER, MISSING) for raw in columns.values() for v in raw
    )
    for name, raw in columns.items():
        pairs = _describe(name, np.asarray(raw, dtype=object), numeric_text)
        _check_finite(source, name, raw, pairs)
        _check_decoded(source, name, pairs)
        cols[name] = _Column(name, np.asarray(raw, dtype=object), [k for k, _ in pairs],
                             [v for _, v in pairs])
    first: dict[str, tuple[str, Any]] = {}
    for col in cols.values():
        here = _forms(col)
        if len(here) > 1:
            a, b = sorted(here)[:2]
            raise PredictionFileError(
                f"{source}: column {col.name!r} mixes {_form(a, here[a])} and {_form(b, here[b])}; "
                "labels must be all numbers or all text")
        for k, v in here.items():
            first.setdefault(k, (col.name, v))
    if len(first) > 1:
        (ka, (ca, va)), (kb, (cb, vb)) = sorted(first.items())[:2]
        raise PredictionFileError(
            f"{source}: column {ca!r} has {_form(ka, va)} but column {cb!r} has {_form(kb, vb)}; "
            "labels must be all numbers or all text")
    values = {v for col in cols.values() for k, v in zip(col.kinds, col.labels) if k != MISSING}
    classes = tuple(sorted(values))
    index = {c: i for i, c in enumerate(classes)}
    codes = {n: np.array([index[v] if k != MISSING else -1 for k, v in zip(c.kinds, c.labels)],
                         dtype=np.int64) for n, c in cols.items()}
    missing = {n: c.raw[c.kinds.index(MISSING)] for n, c in cols.items() if MISSING in c.kinds}
    return classes, codes, missing


def _check_finite(source: str, name: str, raw: Any, pairs: list[tuple[str, Any]]) -> None:
    """Refuse an infinite number as a label: ``1e400`` and ``2e400`` would be one class."""
    # the first in text order: engines list a column's distinct values in no fixed order
    bad = sorted(str(value) for value, (kind, label) in zip(raw, pairs)
                 if kind == NUMBER and isinstance(label, float) and not math.isfinite(label))
    if bad:
        raise PredictionFileError(f"{source}: column {name!r} has the label {bad[0]!r}, a number "
                                  "too large to tell from others; labels must be finite")


def _check_decoded(source: str, name: str, pairs: list[tuple[str, Any]]) -> None:
    """Refuse a label holding U+FFFD, the character a reader puts where bytes were not UTF-8.

    Spark reads such bytes as U+FFFD, so two different broken labels would be one class there
    while numpy and DuckDB refuse the file; every engine refuses the label instead.
    """
    broken = sorted(label for kind, label in pairs if kind == TEXT and REPLACEMENT in label)
    if broken:  # the first in text order, as above
        raise PredictionFileError(f"{source}: {lost_bytes(name, 'label', broken[0])}")


def _forms(col: _Column) -> dict[str, Any]:
    """One raw value per kind, preferring a text value that spells one of the numbers."""
    here: dict[str, Any] = {}
    for k, v in zip(col.kinds, col.raw):
        if k != MISSING:
            here.setdefault(k, v)
    if TEXT in here and NUMBER in here:
        numbers = {v for k, v in zip(col.kinds, col.labels) if k == NUMBER}
        for k, v in zip(col.kinds, col.raw):
            if k == TEXT:
                kind, n = _classify(v, numbers_in_text=True)
                if kind == NUMBER and n in numbers:
                    here[TEXT], here[NUMBER] = v, next(r for kk, r, lab in zip(col.kinds, col.raw, col.labels)
                                                       if kk == NUMBER and lab == n)
                    break
    return here


def _value(spec: _Spec, raw: Any) -> str:
    """Show a key value as a message does (CSV text that is a number shows as the number)."""
    kind, v = _classify(raw, numbers_in_text=spec.text_numbers)
    return repr(v) if kind != MISSING else "an empty value"


def _form(kind: str, raw: Any) -> str:
    if kind == TEXT:
        return f"text {str(raw)!r}"
    if kind == BOOL:
        return f"boolean {raw!r}"
    return f"number {_int_if_whole(raw)!r}"


def _sorted_codes_vectorised(u: pd.Series, text_numbers: bool, what: str, spec: _Spec) -> np.ndarray | None:
    """Do the common cases of :func:`_sorted_codes` without a Python loop over the values.

    The common cases are all text or all numbers; anything else gives None.
    """
    kind = pd.api.types.infer_dtype(u, skipna=False)
    if kind == "string":
        text = u.str.strip()
        if text.eq("").any():
            raise spec.fail(f"column {what!r} has a missing value")
        if text_numbers and text.str.fullmatch(_NUMBER.pattern).all():
            values = pd.to_numeric(text).to_numpy()
        else:
            values = text.to_numpy(dtype=str)
    elif kind == "integer":
        values = u.to_numpy(dtype=np.int64)
    elif kind in ("floating", "mixed-integer-float"):
        values = u.to_numpy(dtype=np.float64)
        if np.isnan(values).any():
            raise spec.fail(f"column {what!r} has a missing value")
    else:
        return None
    _, rank = np.unique(values, return_inverse=True)
    return rank.ravel().astype(np.int64)


def _sorted_codes(raw: np.ndarray, text_numbers: bool, what: str, spec: _Spec) -> np.ndarray:
    """Dense codes of key values (ids, repeats, folds) in sorted order, normalised like labels."""
    raw = np.asarray(raw)
    if raw.dtype.kind in "iub":
        uniq, inv = np.unique(raw, return_inverse=True)
        return inv.astype(np.int64)
    codes, uniq = pd.factorize(pd.Series(raw, dtype=object if raw.dtype.kind in "OUS" else None))
    if (codes < 0).any():
        raise spec.fail(f"column {what!r} has a missing value")
    fast = _sorted_codes_vectorised(pd.Series(np.asarray(uniq, dtype=object)), text_numbers, what, spec)
    if fast is not None:
        return fast[codes]
    numeric_text = text_numbers and pd.Series(uniq, dtype=object).astype(str).str.strip().str.fullmatch(
        _NUMBER.pattern).all()
    keys = [_classify(v, numbers_in_text=numeric_text) for v in np.asarray(uniq, dtype=object)]
    if any(k == MISSING for k, _ in keys):
        raise spec.fail(f"column {what!r} has a missing value")
    kinds = {k for k, _ in keys}
    order_key = [(k, v) for k, v in keys] if len(kinds) > 1 else [v for _, v in keys]
    order = sorted(range(len(keys)), key=lambda i: order_key[i])
    rank = np.empty(len(keys), dtype=np.int64)
    # equal normalised values ("1" and "1.0" as text numbers) share one code
    dense, prev = -1, object()
    for i in order:
        if order_key[i] != prev:
            dense, prev = dense + 1, order_key[i]
        rank[i] = dense
    return rank[codes]


