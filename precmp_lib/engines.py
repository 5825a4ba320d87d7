"""The counting engine: every comparison starts from counts of prediction patterns.

One pass over the rows produces the sufficient statistics of a comparison of m models:

* ``patterns``: the number of rows with each observed pattern ``(y, p0, ..., p{m-1})`` of the
  true class code and the models' predicted class codes; for cross-validated predictions the
  same per ``(repeat, fold)``;
* ``clusters`` (cross-validated predictions only): the sums over observations of products of
  per-observation counts (:class:`~precmp_lib.clusters.ClusterSums`), which every statistic
  clustered on the observation needs. A second query computes them where the data live, from
  the class codes of the first, so what comes back is bounded by the patterns, models and
  folds, never by the observations;
* ``observations`` (only on request, ``observations=True``): the pattern counts per
  observation, which a bootstrap over observations resamples.

Every test precmp runs on a comparison is a function of these tables, so the raw rows are read
where they live, and only counts come back. Three engines count:

numpy
    DataFrames and arrays in memory: each column is factorised once, the codes are combined
    into one mixed-radix key and counted with ``bincount`` (or ``unique`` for wide keys).
duckdb
    The default for paths (CSV, Parquet, a glob of Parquet files) and for DuckDB relations:
    embedded, out of core, no server. Only the grouped rows come back.
spark
    Spark DataFrames, and paths with ``engine="spark"`` (a local session).

DuckDB and Spark run the same SQL text. Its first step (:func:`roles_sql`) renames the source's
columns by position and keeps the ones the count reads under fixed names (``k_y``, ``k_p0`` ...);
in the long layout the engines' expression APIs then turn each model name into its index. The
counting query (:func:`counting_sql`, one GROUP BY, GROUPING SETS for cross-validation) reads
those fixed names, so no query text holds a column name, model name or label of the source;
file paths reach DuckDB as string literals. The numpy engine builds the same grouped table
of raw values. All three then pass through one schema check and one label dictionary
(:func:`label_dictionary`), so the same data give the same :class:`Counts`, bit for bit.

Label rules (the same for every engine)
---------------------------------------
* Only truly empty cells (NULL, NaN, empty or blank text) are missing; "NA", "None" and "null"
  are labels like any other.
* Integral floats equal ints: 1.0 is the label 1, so int truth and float predictions agree.
* In a CSV file every cell is text; when every label of the file reads as a number, the labels
  are numbers ("1" and "1.0" are the label 1), otherwise they are all text.
* In typed data (DataFrames, Parquet) a column that mixes text and numbers ("1" and 1) is an
  error naming both forms; so are text labels in one column and numbers in another.
* Classes are sorted numerically when all are numbers, else as text. Models keep the order
  of the file: wide, the order of the columns; long, the order of each model's first row
  (or, either way, the order of ``models``).
* Duplicated column names, duplicated ids in a wide table and an id with two true labels are
  errors naming them. A model none of whose labels occurs in the truth is an error; labels the
  truth never has are a note.

Layouts
-------
wide
    One row per prediction event: the truth column and one column per model (optionally an id,
    and for repeated cross-validation a repeat and a fold column).
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

import contextlib
import csv
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import numpy as np
import pandas as pd

from .clusters import (
    ClassProfiles,
    ClusterSums,
    class_profiles,
    class_profiles_from_rows,
    class_profiles_sql,
    cluster_sums,
    cluster_sums_from_rows,
    cluster_sums_sql,
    packed_bits,
    packed_terms,
    profile_terms,
)

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    import duckdb
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession

__all__ = ["Counts", "PredictionFileError", "count_predictions", "spark_session"]

TEST_SET = "test set"
REPEATED_CV = "repeated cv"
ENGINES = ("auto", "numpy", "duckdb", "spark")
CSV_SUFFIXES = (".csv", ".txt", ".tsv", ".csv.gz", ".tsv.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
# DuckDB's working memory for one count; beyond it, hash tables spill to disk. With 1 GB the
# cluster query of a 1e7-row cross-validated file (a GROUP BY of 1e6 observations) stays in
# memory: the whole report peaks near 0.6 GiB of RSS. Under 512 MB DuckDB partitions that
# GROUP BY to spill it, which took three times as long and peaked higher (0.75 GiB).
DUCKDB_MEMORY = os.environ.get("PRECMP_DUCKDB_MEMORY", "1GB")
# Spark Connect's retries of a call once the server has answered: waits of 0.05, 0.2, 0.8,
# 3.2 and 4 s (about 8 s a call), where the client's default waits up to ten minutes for a
# server that went away in the middle of a count
CONNECT_RETRIES: dict[str, Any] = {"max_retries": 5, "max_backoff": 4000,
                                   "max_server_retry_delay": 60000}
JAVA_HINT = ("the Spark engine needs Java 17: install it (Debian/Ubuntu: "
             "`apt-get install openjdk-17-jre-headless`) or set JAVA_HOME")


class PredictionFileError(ValueError):
    """Predictions that cannot be counted.

    The message names the file (or "DataFrame"), the column, the line or row where possible,
    and the problem. A subclass of ``ValueError``.
    """


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
        (int64): number of rows with that pattern. Only observed patterns are listed, sorted by
        the key columns.
    observations : DataFrame or None
        Repeated cv counted with ``observations=True`` only: columns ``obs`` (dense code of the
        observation id, in sorted id order), ``y``, ``p0`` .. ``p{m-1}``, ``count`` (number of
        repeats of that observation with that pattern).
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
    clusters : ClusterSums or None
        Repeated cv only: sums over observations (the clusters) of products of
        per-observation counts, which the clustered accuracy intervals and the clustered GS and
        GEE tests use.
    profiles : tuple of ClassProfiles, or None
        Repeated cv counted with ``prevalence_classes`` only: for each of those classes (in
        order; its code in ``classes``), the observations grouped by their profile over it,
        which a bootstrap over observations resamples (the prevalence update).
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
    clusters: ClusterSums | None = None
    profiles: tuple[ClassProfiles, ...] | None = None

    @property
    def n_models(self) -> int:
        """Number of models compared."""
        return len(self.models)

    @property
    def n_classes(self) -> int:
        """Number of classes (labels seen in the truth or in any prediction)."""
        return len(self.classes)

    @property
    def pred_columns(self) -> list[str]:
        """Names of the prediction code columns, in model order."""
        return [f"p{j}" for j in range(len(self.models))]


# --------------------------------------------------------------------------------------------
# the request: which columns play which part
# --------------------------------------------------------------------------------------------


@dataclass
class _Spec:
    """What to count: the layout, the truth column, the models and the optional key columns."""

    name: str                 # the source, for messages ("preds.csv", "DataFrame")
    layout: str
    y: str
    models: list[str]         # wide: model columns; long: model names
    id: str | None = None
    repeat: str | None = None
    fold: str | None = None
    model_col: str = "model"
    pred_col: str = "y_pred"
    text_numbers: bool = False  # CSV: all cells are text; numbers are recognised
    rows_are_lines: bool = False  # CSV: row r is on line r + 2
    keep_observations: bool = False  # repeated cv: bring the per-observation table back
    profile_labels: tuple | None = None  # repeated cv: the classes to profile observations on
    notes: list[str] = field(default_factory=list)

    @property
    def cv(self) -> bool:
        return self.repeat is not None

    def fail(self, message: str) -> PredictionFileError:
        return PredictionFileError(f"{self.name}: {message}")

    def where(self, row: int | None) -> str:
        if row is None:
            return ""
        return f" (line {row + 2})" if self.rows_are_lines else f" (row {row})"

    def label_columns(self) -> list[str]:
        return [self.y, *self.models] if self.layout == "wide" else [self.y, self.pred_col]

    def role_columns(self) -> list[str]:
        """Every column the count reads: labels, the model column of a long file, the keys."""
        long = [self.model_col] if self.layout == "long" else []
        keys = [c for c in (self.id, self.repeat, self.fold) if c is not None]
        return [*self.label_columns(), *long, *keys]

    def not_values(self, column: str) -> PredictionFileError:
        """Return the error for a column of nested values (a Parquet struct, list or map)."""
        return self.fail(f"column {column!r} holds nested values (a struct, list or map); "
                         "labels, model names and ids are single values")


def nested_column(columns: Sequence[str], source: Any, used: Sequence[str]) -> str | None:
    """Return the first of ``used`` whose values are nested (a struct, list or map), else None.

    ``source`` is a DuckDB relation or a Spark DataFrame, whose own schema says it of each of
    ``columns`` (its columns, by position), or a pandas DataFrame, whose column's first value
    does. DuckDB and Spark would group by such values and numpy could not hash them, yet none
    is a label, a name or an id: the counters refuse them before counting anything.

    >>> frame = pd.DataFrame({"y": ["a"], "m": [{"x": 1}]})
    >>> nested_column(["y", "m"], frame, ["y", "m"]), nested_column(["y"], frame, ["y"])
    ('m', None)
    """
    if isinstance(source, pd.DataFrame):
        def first(c: str) -> Any:
            s = source[c]
            return s.iloc[int(s.notna().to_numpy().argmax())] if s.dtype == object and len(s) else None
        flags = {c: isinstance(first(c), dict | list | set | np.ndarray) for c in used}
    elif _is_spark_frame(source):
        from pyspark.sql.types import ArrayType, MapType, StructType

        flags = dict(zip(columns, [isinstance(f.dataType, ArrayType | MapType | StructType)
                                   for f in source.schema.fields], strict=True))
    else:
        flags = dict(zip(columns, [t.id in ("struct", "list", "map", "array", "union")
                                   for t in source.types], strict=True))
    return next((c for c in used if flags.get(c)), None)


def _check_flat(spec: _Spec, columns: Sequence[str], source: Any) -> None:
    column = nested_column(columns, source, spec.role_columns())
    if column is not None:
        raise spec.not_values(column)


def _shown(columns: Sequence[str]) -> str:
    cols = [str(c) for c in columns]
    return ", ".join(cols[:12]) + (" ..." if len(cols) > 12 else "")


def _check_columns(name: str, columns: Sequence[Any]) -> None:
    unnamed = [i + 1 for i, c in enumerate(columns) if not str(c).strip()]
    if unnamed:
        raise PredictionFileError(
            f"{name}: column {unnamed[0]} of {len(columns)} has no name; give every column a "
            "name (a table saved with its index has an unnamed first column: save it without)")
    seen: dict[str, int] = {}
    for c in columns:
        seen[str(c)] = seen.get(str(c), 0) + 1
    dup = [c for c, k in seen.items() if k > 1]
    if dup:
        raise PredictionFileError(f"{name}: duplicated column name(s) {dup}; each column needs "
                                  "its own name")


class _Roles(TypedDict):
    """The caller's choice of column roles, passed on unchanged to :func:`_spec`."""

    y_true: str
    models: Sequence[str] | None
    id: str | None
    repeat: str | None
    fold: str | None
    layout: str
    observations: bool
    prevalence_classes: Sequence[Any] | None


def _spec(
    name: str, columns: Sequence[Any], *, y_true: str, models: Sequence[str] | None,
    id: str | None, repeat: str | None, fold: str | None, layout: str,
    observations: bool = False, prevalence_classes: Sequence[Any] | None = None,
) -> _Spec:
    """Check the columns and decide the layout and the role of each column (one place)."""
    columns = [str(c) for c in columns]
    _check_columns(name, columns)
    spec = _Spec(name=name, layout=_layout(columns, layout), y=str(y_true), models=[],
                 keep_observations=bool(observations),
                 profile_labels=None if prevalence_classes is None else tuple(prevalence_classes))
    _need(spec, columns, spec.y, "true labels", "y_true")
    _key_columns(spec, columns, id=id, repeat=repeat, fold=fold)
    if spec.layout == "long":
        _long_columns(spec, columns, models)
    else:
        _wide_columns(spec, columns, models)
    return spec


def _layout(columns: list[str], layout: str) -> str:
    """Check ``layout``; for ``"auto"``, long when the table has ``model`` and ``y_pred``."""
    if layout not in ("auto", "wide", "long"):
        raise PredictionFileError(f"layout must be 'auto', 'wide' or 'long'; got {layout!r}")
    if layout == "auto":
        return "long" if {"model", "y_pred"} <= set(columns) else "wide"
    return layout


def _need(spec: _Spec, columns: list[str], col: str, what: str, arg: str | None = None) -> None:
    """Fail unless ``col`` is one of ``columns``, naming its role (``what``) and argument."""
    if col not in columns:
        what = f"{what}, {arg}" if arg else what
        hint = ""
        if what == "observation id" and spec.layout == "long":
            hint = " (a long file needs an id column; pass --id COL)"
        raise spec.fail(f"column {col!r} ({what}) is missing{hint}; columns are: "
                        f"{_shown(columns)}")


def _key_columns(spec: _Spec, columns: list[str], *, id: str | None, repeat: str | None,
                 fold: str | None) -> None:
    """Set the id, repeat and fold columns: the given ones, else columns of those names."""
    if id is None and "id" in columns and spec.y != "id":
        id = "id"
        if spec.layout == "wide":
            spec.notes.append("column 'id' is taken as the observation id")
    spec.repeat = repeat if repeat is not None else ("repeat" if "repeat" in columns else None)
    spec.fold = fold if fold is not None else ("fold" if "fold" in columns else None)
    if spec.repeat is None:
        if fold is not None:
            raise spec.fail(f"column {fold!r} (fold) needs a repeat column; pass repeat")
        spec.fold = None
    for col, what in [(id, "observation id"), (spec.repeat, "repeat"), (spec.fold, "fold")]:
        if col is not None:
            _need(spec, columns, col, what)
    spec.id = id


def _long_columns(spec: _Spec, columns: list[str], models: Sequence[str] | None) -> None:
    """Long layout: the id (``id`` by default), model-name and prediction columns must exist."""
    spec.id = spec.id or "id"
    _need(spec, columns, spec.id, "observation id")
    _need(spec, columns, spec.model_col, "model name")
    _need(spec, columns, spec.pred_col, "predictions")
    spec.models = [str(m) for m in models] if models is not None else []


def _wide_columns(spec: _Spec, columns: list[str], models: Sequence[str] | None) -> None:
    """Wide layout: the model columns (by default every column with no other role)."""
    if spec.repeat is not None and spec.id is None:
        raise spec.fail(f"column {spec.repeat!r} (repeat) needs an observation id column; pass id")
    skip = {spec.y, spec.id, spec.repeat, spec.fold}
    names = [str(m) for m in models] if models is not None else [c for c in columns if c not in skip]
    for m in names:
        _need(spec, columns, m, "model predictions", "models")
    if not names:
        raise spec.fail("no model columns besides the truth; pass models")
    spec.models = names


# --------------------------------------------------------------------------------------------
# the label dictionary (one place for every engine)
# --------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
MISSING, NUMBER, TEXT, BOOL = "missing", "number", "text", "bool"


def _plain_number(x: Any) -> Any:
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
        return NUMBER, _plain_number(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    text = str(value).strip()
    if text == "":
        return MISSING, None
    if numbers_in_text and _NUMBER.fullmatch(text):
        return NUMBER, _plain_number(int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text))
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
    return f"number {_plain_number(raw)!r}"


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


# --------------------------------------------------------------------------------------------
# the shared finish: raw grouped rows -> Counts
# --------------------------------------------------------------------------------------------


def _group_sum(keys: np.ndarray, weights: np.ndarray, names: list[str]) -> pd.DataFrame:
    """Sum ``weights`` over equal rows of the int64 matrix ``keys`` (n x k), sorted by keys."""
    if len(keys) == 0:
        out = pd.DataFrame({n: np.zeros(0, np.int64) for n in names})
        out["count"] = np.zeros(0, np.int64)
        return out
    lo, hi = keys.min(axis=0), keys.max(axis=0)
    spans = [int(h) - int(v) + 1 for v, h in zip(lo, hi)]
    if math.prod(spans) < 2**62:
        # one int64 per row, the first column most significant: its order is the rows'
        # lexicographic order, and a 1-d unique is many times faster than unique(axis=0)
        flat = np.zeros(len(keys), np.int64)
        for i, span in enumerate(spans):
            flat = flat * span + (keys[:, i] - lo[i])
        first, inv = np.unique(flat, return_inverse=True)
        uniq = np.empty((len(first), len(spans)), np.int64)
        for i in reversed(range(len(spans))):
            first, uniq[:, i] = np.divmod(first, spans[i])
            uniq[:, i] += lo[i]
    else:
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    total = np.bincount(inv.ravel(), weights=weights, minlength=len(uniq))
    out = pd.DataFrame({n: uniq[:, i].astype(np.int64) for i, n in enumerate(names)})
    out["count"] = np.rint(total).astype(np.int64)
    return out


def _finish(spec: _Spec, pat: pd.DataFrame, obs: pd.DataFrame | None, engine: str,
            locate: Callable[[str, str], int | None],
            sums: Callable[..., pd.DataFrame] | None = None) -> Counts:
    """Turn the grouped raw rows of any engine into :class:`Counts` (label rules, checks).

    For repeated cross-validation the cluster sums (and the profiles the spec asks for) come
    from ``obs`` (the per-observation rows) when the engine brought them back, else from
    ``sums(codes, reps, sql)``: the engine registers the table of codes of the distinct raw
    patterns and the table of codes of the repeats, and runs the query ``sql(roles, codes,
    reps)`` writes with the names it gave them (:func:`cluster_sql`, :func:`profile_sql`).
    """
    m = len(spec.models)
    pcols = [f"p{j}" for j in range(m)]
    truth_cols = ["y", *(["y1"] if "y1" in pat else [])]
    label_cols = {"y": spec.y, **({"y1": spec.y} if "y1" in pat else {}),
                  **{p: (spec.models[j] if spec.layout == "wide" else spec.pred_col)
                     for j, p in enumerate(pcols)}}
    if len(pat) == 0 or int(pat["n"].sum()) == 0:
        raise spec.fail("no rows" if spec.name == "DataFrame" else "the file has a header but no rows")
    _check_grouped(spec, pat, locate)
    distinct: dict[str, np.ndarray] = {}
    inverse: dict[str, np.ndarray] = {}
    for c in label_cols:
        inv, uniq = pd.factorize(pat[c], use_na_sentinel=False)
        distinct[c], inverse[c] = np.asarray(uniq, dtype=object), inv
    # one dictionary over the distinct values: name each column by its source column
    named: dict[str, list[np.ndarray]] = {}
    for c, raw in distinct.items():
        named.setdefault(label_cols[c], []).append(raw)
    merged = {n: np.concatenate(v) for n, v in named.items()}
    classes, codes, missing = label_dictionary(merged, text_numbers=spec.text_numbers,
                                               source=spec.name)
    if missing:
        col = next(iter(missing))
        raise spec.fail(f"column {col!r} has a missing label{_example_at(spec, locate, col)}")
    offsets: dict[str, int] = {}
    coded: dict[str, np.ndarray] = {}
    for n in named:
        offsets[n] = 0
    for c, raw in distinct.items():
        n = label_cols[c]
        coded[c] = codes[n][offsets[n]:offsets[n] + len(raw)][inverse[c]]
        offsets[n] += len(raw)
    for c in truth_cols[1:]:
        if (coded[c] != coded["y"]).any():
            raise spec.fail(f"column {spec.y!r}: an observation has more than one true label"
                            f"{_example(spec, locate, 'two labels')}")
    notes = _overlap(spec, coded, pcols, pat["n"].to_numpy(), classes)
    keys = [coded["y"], *(coded[p] for p in pcols)]
    names = ["y", *pcols]
    repeats = folds = None
    if spec.cv:
        assert spec.repeat is not None  # spec.cv means a repeat column
        rep = _sorted_codes(pat["rep"].to_numpy(), spec.text_numbers, spec.repeat, spec)
        fold = (_sorted_codes(pat["f0"].to_numpy(), spec.text_numbers, spec.fold, spec)
                if spec.fold else np.zeros(len(pat), np.int64))
        keys, names = [rep, fold, *keys], ["repeat", "fold", *names]
    weights = pat["n"].to_numpy().astype(np.float64)
    patterns = _group_sum(np.column_stack(keys).astype(np.int64), weights, names)
    n_rows = int(patterns["count"].sum())
    observations = clusters = profiles = None
    n_obs = n_rows
    if spec.cv:
        repeats = int(patterns["repeat"].nunique())
        folds = int(patterns.groupby("repeat")["fold"].nunique().max())
        if obs is not None:
            observations, n_obs = _observations(spec, obs, label_cols, distinct, codes, pcols)
            clusters = cluster_sums(observations["obs"], observations["y"], observations[pcols],
                                    observations["count"], n_classes=len(classes))
            wanted = _profile_codes(spec, classes)
            if wanted:
                profiles = tuple(class_profiles(observations["obs"], observations["y"],
                                                observations[pcols], observations["count"],
                                                classes=[code]) for code in wanted)
            observations = observations if spec.keep_observations else None
        else:
            assert sums is not None  # an engine without per-observation rows runs cluster_sql
            reps = pd.DataFrame({"rrep": pat["rep"].to_numpy(), "crep": rep})
            reps = reps.drop_duplicates(subset=["rrep"]).reset_index(drop=True)
            codes_table = _codes_table(pat, coded, pcols)
            clusters = _clusters_in_engine(spec, pat, codes_table, pcols, len(classes), sums,
                                           locate, reps)
            n_obs = clusters.n_clusters
            wanted = _profile_codes(spec, classes)
            if wanted:
                profiles = _profiles_in_engine(spec, codes_table, pcols, wanted, sums, reps)
    return Counts(
        classes=classes, models=tuple(spec.models), patterns=patterns, observations=observations,
        design=REPEATED_CV if spec.cv else TEST_SET, n_rows=n_rows, n_observations=n_obs,
        repeats=repeats, folds=folds, engine=engine, source=spec.name,
        notes=tuple(spec.notes) + notes, clusters=clusters, profiles=profiles,
    )


def _profile_codes(spec: _Spec, classes: tuple) -> list[int]:
    """Return the codes of the classes ``spec`` asks profiles for, matched by their text."""
    if not spec.profile_labels:
        return []
    by_text = {str(c): code for code, c in enumerate(classes)}
    return list(dict.fromkeys(by_text[str(v)] for v in spec.profile_labels if str(v) in by_text))


def _codes_table(pat: pd.DataFrame, coded: dict, pcols: list[str]) -> pd.DataFrame:
    """Return the first row of each distinct raw pattern: raw columns ``r<c>``, codes ``c<c>``.

    The pattern table also splits by repeat and fold; only these few rows are converted and
    sent to the engine.
    """
    raw = ["y", *pcols]
    first = np.flatnonzero(~pat[raw].duplicated().to_numpy())
    table = pd.DataFrame({f"r{c}": pat[c].iloc[first].to_numpy() for c in raw})
    for c in raw:
        table[f"c{c}"] = np.asarray(coded[c], dtype=np.int64)[first]
    return table


def _profiles_in_engine(spec: _Spec, codes: pd.DataFrame, pcols: list[str], wanted: list[int],
                        sums: Callable[..., pd.DataFrame],
                        reps: pd.DataFrame) -> tuple[ClassProfiles, ...]:
    """Group the observations by their profile over each class of ``wanted``, in the engine."""
    # an observation has at most one event per repeat (the cluster query checked it)
    terms = profile_terms(codes["cy"], codes[[f"c{p}" for p in pcols]], classes=wanted,
                          max_size=len(reps))
    table = pd.concat([codes[[f"r{c}" for c in ["y", *pcols]]], terms], axis=1)
    rows = sums(table, reps, lambda roles, codes_name, _reps: profile_sql(
        spec, roles, codes_name, len(wanted), len(reps)))
    return class_profiles_from_rows(rows, wanted, len(pcols), max_size=len(reps))


def _clusters_in_engine(spec: _Spec, pat: pd.DataFrame, codes: pd.DataFrame, pcols: list[str],
                        n_classes: int, sums: Callable[..., pd.DataFrame],
                        locate: Callable[[str, str], Any], reps: pd.DataFrame) -> ClusterSums:
    """Run the cluster sums where the data live, on the codes of the distinct raw patterns.

    ``codes`` is :func:`_codes_table`'s table. ``reps`` holds each raw repeat (``rrep``) with
    its code (``crep``). For the wide layout the query also tells whether an (id, repeat) pair
    comes more than once (the pattern count does not group by id): that is the error of a
    duplicated pair.
    """
    table = codes.copy()
    if packed_bits(len(reps), len(pcols), n_classes) is not None:  # packed terms (cluster_sql)
        words = packed_terms(table["cy"], table[[f"c{p}" for p in pcols]], n_classes=n_classes,
                             max_size=len(reps))
        for w in range(words.shape[1]):
            table[f"v{w}"] = words[:, w]
    if len(reps) <= 30:
        reps = reps.assign(dm=np.left_shift(1, reps["crep"].to_numpy().astype(np.int64)))
    n_rows = int(pat["n"].sum())
    rows = sums(table, reps, lambda roles, codes_name, reps_name: cluster_sql(
        spec, roles, codes_name, n_classes, len(reps), reps_name, n_rows))
    top = rows.loc[rows["g"] == 1]
    if "dup" in rows and int(top["dup"].sum()) > 0:
        raise _duplicated(spec, locate)
    if int(top["mixed"].sum()) > 0:
        raise spec.fail(f"column {spec.y!r}: an observation has more than one true label"
                        f"{_example(spec, locate, 'two labels')}")
    result = cluster_sums_from_rows(rows, len(pcols), n_classes)
    if result.size != int(pat["n"].sum()):  # every raw pattern found its codes
        raise spec.fail(f"the cluster sums cover {result.size} of {int(pat['n'].sum())} rows; "
                        "a label value did not compare equal to itself in the engine")
    return result


def _observations(spec: _Spec, obs: pd.DataFrame, label_cols: dict, distinct: dict,
                  codes: dict, pcols: list[str]) -> tuple[pd.DataFrame, int]:
    """Code the per-observation rows on the dictionary already built from the patterns."""
    assert spec.id is not None  # _spec gives every repeated cross-validation an id column
    obs_code = _sorted_codes(obs["id"].to_numpy(), spec.text_numbers, spec.id, spec)
    keys = [obs_code]
    for c in ["y", *pcols]:
        n = label_cols[c]
        # the same distinct values appear here as in the pattern table: look them up
        lookup: dict[Any, np.int64] = {}
        start = 0
        for cc, raw in distinct.items():
            if label_cols[cc] == n:
                for v, code in zip(raw, codes[n][start:start + len(raw)]):
                    lookup.setdefault(_hashable(v), code)
                start += len(raw)
        inv, uniq = pd.factorize(obs[c], use_na_sentinel=False)
        table = np.array([lookup[_hashable(v)] for v in uniq], dtype=np.int64)
        keys.append(table[inv])
    out = _group_sum(np.column_stack(keys), obs["n"].to_numpy().astype(np.float64),
                     ["obs", "y", *pcols])
    two = out.groupby("obs")["y"].nunique()
    if (two > 1).any():
        code = int(two.index[two.to_numpy() > 1][0])
        bad = obs["id"].to_numpy()[np.flatnonzero(obs_code == code)[0]]
        raise spec.fail(f"column {spec.y!r}: an observation has more than one true label "
                        f"(observation {spec.id}={_value(spec, bad)})")
    return out, int(obs_code.max()) + 1 if len(obs_code) else 0


def _hashable(v: Any) -> Any:
    if isinstance(v, float) and np.isnan(v):
        return "__nan__"
    return v.item() if isinstance(v, np.generic) else v


def _check_grouped(spec: _Spec, pat: pd.DataFrame, locate: Callable[[str, str], int | None]) -> None:
    """Run the checks carried as columns of the grouped rows (SQL engines).

    The columns are rows per id (``c``), rows per (id, model) (``c<j>``) and the smallest and
    largest fold per (id, repeat) (``f0``, ``f1``).
    """
    if "c" in pat and (pat["c"] > 1).any():
        raise _duplicated(spec, locate)
    for j, name in enumerate(spec.models):
        cj = f"c{j}"
        if cj not in pat:
            continue
        if (pat[cj] > 1).any():
            key = ", ".join(c for c in (spec.id, spec.model_col, spec.repeat) if c)
            raise spec.fail(f"duplicated ({key}) rows for model {name!r}; each must appear once")
        if (pat[cj] == 0).any():
            raise spec.fail(f"column {spec.model_col!r}: model {name!r} lacks predictions for some "
                            "observations")
    if "f1" in pat and spec.fold and (pat["f0"].astype(str) != pat["f1"].astype(str)).any():
        raise spec.fail(f"column {spec.fold!r}: an observation has two folds in one repeat")


def _duplicated(spec: _Spec, locate: Callable[[str, str], Any]) -> PredictionFileError:
    """Return the error of a wide table with a repeated id (or (id, repeat) pair)."""
    what = f"({spec.id}, {spec.repeat})" if spec.cv else spec.id
    return spec.fail(f"column {spec.id!r}: duplicated {what}{_example(spec, locate, 'duplicate')}; "
                     "a wide table has one row per observation"
                     + ("" if spec.cv else " (add a repeat column for repeated cross-validation)"))


def _example_at(spec: _Spec, locate: Callable[[str, str], Any], column: str) -> str:
    found = locate(column, "missing")
    return spec.where(found) if isinstance(found, int) else ""


def _example(spec: _Spec, locate: Callable[[str, str], Any], what: str) -> str:
    found = locate(spec.id or spec.y, what)
    if found is None:
        return ""
    if isinstance(found, int):
        return spec.where(found)
    return f" ({found})"


def _overlap(spec: _Spec, coded: dict, pcols: list[str], n: np.ndarray, classes: tuple) -> tuple[str, ...]:
    k = len(classes)
    truth = np.bincount(coded["y"], weights=n, minlength=k) > 0
    notes = []
    for j, p in enumerate(pcols):
        used = np.bincount(coded[p], weights=n, minlength=k) > 0
        name = spec.models[j]
        if not np.any(used & truth):
            shown = ", ".join(str(classes[i]) for i in np.flatnonzero(used)[:5])
            raise spec.fail(f"column {name!r}: none of its labels ({shown}) occurs in the truth "
                            f"column {spec.y!r}; is it the right column?")
        extra = np.flatnonzero(used & ~truth)
        if len(extra):
            shown = ", ".join(str(classes[i]) for i in extra[:5]) + (" ..." if len(extra) > 5 else "")
            notes.append(f"model {name!r} predicts labels never seen in the truth: [{shown}]")
    return tuple(notes)


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
    return codes.astype(np.int64), np.asarray(uniq, dtype=object)


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
    span = int(np.prod(np.asarray(sizes, dtype=np.float64)))
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
            cols.update({"id": _factorize(frame[spec.id], spec), "rep": _factorize(frame[spec.repeat], spec)})
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


def _check_unique_ids(spec: _Spec, frame: pd.DataFrame) -> None:
    key = [spec.id, *([spec.repeat] if spec.cv else [])]
    dup = frame.duplicated(key, keep=False).to_numpy()
    if dup.any():
        rows = np.flatnonzero(dup)
        first = frame.iloc[rows[0]][key].tolist()
        twin = next(r for r in rows[1:] if frame.iloc[r][key].tolist() == first)
        shown = ", ".join(f"{k}={_value(spec, v)}" for k, v in zip(key, first))
        where = (f"lines {rows[0] + 2} and {twin + 2}" if spec.rows_are_lines
                 else f"rows {rows[0]} and {twin}")
        what = f"({spec.id}, {spec.repeat})" if spec.cv else spec.id
        raise spec.fail(f"column {spec.id!r}: duplicated {what} ({shown}; {where}); a wide table has one "
                        "row per observation"
                        + ("" if spec.cv else " (add a repeat column for repeated cross-validation)"))
    if spec.cv:
        y = frame[spec.y]
        per_id = pd.DataFrame({"id": frame[spec.id], "y": y.astype(str)}).groupby("id")["y"].nunique()
        if (per_id > 1).any():
            bad = per_id.index[per_id.to_numpy() > 1][0]
            raise spec.fail(f"column {spec.y!r}: an observation has more than one true label "
                            f"(observation {spec.id}={_value(spec, bad)})")


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


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
    keycols = [spec.id, *([spec.repeat] if spec.cv else [])]
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
        out["rep"] = _factorize(frame[spec.repeat].iloc[first].reset_index(drop=True), spec)
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


# --------------------------------------------------------------------------------------------
# the SQL engines: one text for DuckDB and Spark
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Dialect:
    name: str
    text: str                                  # the text type
    literal: Callable[[str], str]              # string literal (file paths and settings only)


DUCKDB = _Dialect("duckdb", "VARCHAR", lambda s: "'" + s.replace("'", "''") + "'")
SPARK = _Dialect("spark", "STRING", lambda s: "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'")


def _roles(spec: _Spec) -> list[tuple[str, str]]:
    """Return the fixed name of each column the count reads, with the column it comes from.

    The first step of the SQL engines renames the columns to these fixed names, so no query
    text holds a column name of the source: ``k_id``, ``k_rep``, ``k_fold``, ``k_y`` and, wide,
    ``k_p0`` .. ``k_p{m-1}`` or, long, ``k_model`` and ``k_pred``.
    """
    pairs = [(fixed, col) for fixed, col in (("k_id", spec.id), ("k_rep", spec.repeat),
                                             ("k_fold", spec.fold)) if col is not None]
    pairs.append(("k_y", spec.y))
    if spec.layout == "wide":
        pairs += [(f"k_p{j}", m) for j, m in enumerate(spec.models)]
    else:
        pairs += [("k_model", spec.model_col), ("k_pred", spec.pred_col)]
    return pairs


def _fixed_name(spec: _Spec, column: str) -> str | None:
    """Return the fixed name of a source column the count reads (its first role), or None."""
    return next((fixed for fixed, col in _roles(spec) if col == column), None)


def roles_sql(spec: _Spec, columns: Sequence[str], table: str = "src") -> str:
    """Write the first step of the SQL engines: the columns the count reads, by position.

    The source's columns are renamed by position (``AS t(c0, c1, ...)``) and the ones the count
    reads are selected under their fixed names (:func:`_roles`), so the text holds numbers and
    fixed names only, never a name taken from the source.

    Parameters
    ----------
    spec : _Spec
        The column roles, as :func:`_spec` decides them.
    columns : sequence of str
        The source's column names, in the source's order.
    table : str
        The name of the table (or view) holding the rows.

    Returns
    -------
    str
        The query, for DuckDB and Spark alike.

    Examples
    --------
    >>> spec = _spec("preds.csv", ["y", "a AS b", "b"], y_true="y", models=None, id=None,
    ...              repeat=None, fold=None, layout="auto")
    >>> roles_sql(spec, ["y", "a AS b", "b"])
    'SELECT t.c0 AS k_y, t.c1 AS k_p0, t.c2 AS k_p1 FROM src AS t(c0, c1, c2)'
    """
    position = {str(c): i for i, c in enumerate(columns)}
    select = ", ".join(f"t.c{position[col]} AS {fixed}" for fixed, col in _roles(spec))
    names = ", ".join(f"c{i}" for i in range(len(columns)))
    return f"SELECT {select} FROM {table} AS t({names})"


def counting_sql(spec: _Spec, dialect: _Dialect, table: str = "src") -> str:
    """Write the one counting query as text for ``dialect``, over the fixed column names.

    The query reads the table the first step makes (:func:`roles_sql`): the columns under their
    fixed names (``k_y``, ``k_p0`` ..., :func:`_roles`) and, for the long layout, ``k_model``
    holding the model's index (0 .. m-1, NULL for rows of other models), which the engines'
    expression APIs compute from the model names. So the text holds no name or value of the
    source, only fixed names and numbers.

    Without an id it is a single ``GROUP BY`` of the label columns. With an id (always in the
    long layout) an inner ``GROUP BY id[, repeat]`` makes one row per prediction event (the
    long layout's pivot; the wide layout's duplicate check), carrying check columns (rows per
    id, rows per (id, model), the largest truth and fold); the outer ``GROUP BY`` counts the
    patterns, with ``GROUPING SETS`` adding the per-observation patterns for repeated
    cross-validation when they are asked for (``observations=True``; otherwise
    :func:`cluster_sql` sums over the observations in the engine). Wide repeated
    cross-validation summed in the engine skips the inner ``GROUP BY``: its rows are the
    events, grouped by pattern at once, and :func:`cluster_sql`, which groups by id anyway,
    checks that no (id, repeat) pair repeats. Every result row is a count: nothing of the raw
    rows comes back.

    Parameters
    ----------
    spec : _Spec
        The column roles, as :func:`_spec` decides them.
    dialect : _Dialect
        ``DUCKDB`` or ``SPARK``.
    table : str
        The name of the table (or view) holding the renamed rows.

    Returns
    -------
    str
        The query. Its columns are ``y``, ``p0`` .. ``p{m-1}`` and the count ``n``; with an id
        also ``y1`` (the largest truth) and the check columns (``c`` wide, ``c<j>`` long); for
        repeated cross-validation also ``rep`` and, with a fold column, ``f0`` and ``f1``
        (smallest and largest fold), and with the per-observation rows ``g`` (1 on pattern
        rows, 0 on per-observation rows) and ``id``. Wide repeated cross-validation without
        the per-observation rows has ``rep``, ``f0`` (the fold), ``y``, ``p<j>`` and ``n``
        only.

    Examples
    --------
    >>> spec = _spec("preds.csv", ["y", "a", "b"], y_true="y", models=None, id=None,
    ...              repeat=None, fold=None, layout="auto")
    >>> counting_sql(spec, DUCKDB)
    'SELECT k_y AS y, k_p0 AS p0, k_p1 AS p1, COUNT(*) AS n FROM src GROUP BY k_y, k_p0, k_p1'
    """
    m = len(spec.models)
    pcols = [f"p{j}" for j in range(m)]
    if spec.id is None:
        keys = ["k_y", *(f"k_{p}" for p in pcols)]
        sel = [f"{k} AS {k[2:]}" for k in keys]
        return f"SELECT {', '.join(sel)}, COUNT(*) AS n FROM {table} GROUP BY {', '.join(keys)}"
    if spec.cv and spec.layout == "wide" and not spec.keep_observations:
        # each row is a prediction event; its (id, repeat) pair is checked unique by
        # cluster_sql, which groups by id anyway: the patterns group the rows directly
        keys = ["k_rep", *(["k_fold"] if spec.fold else []), "k_y", *(f"k_{p}" for p in pcols)]
        sel = ["k_rep AS rep", *(["k_fold AS f0"] if spec.fold else []), "k_y AS y",
               *(f"k_{p} AS {p}" for p in pcols)]
        return f"SELECT {', '.join(sel)}, COUNT(*) AS n FROM {table} GROUP BY {', '.join(keys)}"
    w, first = _events_sql(spec, table)
    if not spec.cv or not spec.keep_observations:
        cols = ", ".join(first)
        return f"WITH w AS ({w}) SELECT {cols}, COUNT(*) AS n FROM w GROUP BY {cols}"
    second = ["id", "y", *pcols]
    allc = list(dict.fromkeys(first + second))
    return (f"WITH w AS ({w}) SELECT GROUPING(id) AS g, {', '.join(allc)}, COUNT(*) AS n FROM w "
            f"GROUP BY GROUPING SETS (({', '.join(first)}), ({', '.join(second)}))")


def _events_sql(spec: _Spec, table: str) -> tuple[str, list[str]]:
    """Write the inner query of :func:`counting_sql` (one row per prediction event).

    Returns the query and the columns the patterns group by.
    """
    m = len(spec.models)
    pcols = [f"p{j}" for j in range(m)]
    inner = ["k_id AS id"]
    group = ["k_id"]
    if spec.cv:
        inner.append("k_rep AS rep")
        group.append("k_rep")
        if spec.fold:
            inner += ["MIN(k_fold) AS f0", "MAX(k_fold) AS f1"]
    inner += ["MIN(k_y) AS y", "MAX(k_y) AS y1", "COUNT(*) AS c"]
    where = ""
    if spec.layout == "wide":
        inner += [f"MIN(k_{p}) AS {p}" for p in pcols]
        checks = ["c"]
    else:
        for j in range(m):
            inner += [f"MIN(CASE WHEN k_model = {j} THEN k_pred END) AS p{j}",
                      f"COUNT(CASE WHEN k_model = {j} THEN 1 END) AS c{j}"]
        checks = [f"c{j}" for j in range(m)]
        where = " WHERE k_model IS NOT NULL"
    first = [*(["rep"] + (["f0", "f1"] if spec.fold else []) if spec.cv else []),
             "y", "y1", *pcols, *checks]
    w = f"SELECT {', '.join(inner)} FROM {table}{where} GROUP BY {', '.join(group)}"
    return w, first


def cluster_sql(spec: _Spec, table: str = "roles", codes: str = "codes",
                n_classes: int | None = None, n_repeats: int | None = None,
                reps: str = "reps", n_rows: int | None = None) -> str:
    """Write the query of the cluster sums of repeated cross-validation, one text for both engines.

    The prediction events are given their class codes by an equi-join with ``codes`` (the
    distinct raw patterns of :func:`counting_sql`'s result with the codes the label dictionary
    gave them), counted per observation and coded pattern inside the engine (``t``), and
    summed over observations by :func:`precmp_lib.clusters.cluster_sums_sql`.
    The result has one row per class plus one; nothing per observation comes back.

    With ``n_classes`` and ``n_repeats`` whose packed fields fit
    (:func:`precmp_lib.clusters.packed_bits`), the coded events go to
    :func:`precmp_lib.clusters.cluster_sums_sql`'s packed form as they are (one GROUP BY, by
    observation; an observation has at most one event per repeat, so ``n_repeats`` bounds its
    rows), with the words ``v<w>`` the codes table then holds
    (:func:`precmp_lib.clusters.packed_terms`). For the
    wide layout, given ``n_repeats``, the repeats are coded by a join with ``reps`` (which
    then also holds each repeat's bit ``dm`` = ``2^crep`` when ``n_repeats <= 30``) and the
    top row tells whether an (id, repeat) pair comes more than once (``dup`` > 0), the check
    :func:`counting_sql` leaves to this query.

    Parameters
    ----------
    spec : _Spec
        The column roles (repeated cross-validation).
    table : str
        The table (or view) the first step makes (:func:`roles_sql`; long layout: with the
        model's index in ``k_model``).
    codes : str
        The table of codes: raw columns ``ry``, ``rp0`` .. and code columns ``cy``, ``cp0`` ...
        (and the packed terms, see above).
    n_classes, n_repeats : int, optional
        The number of classes of the label dictionary and of distinct repeats.
    reps : str
        The table of repeat codes: the raw repeat ``rrep`` and its code ``crep``
        (``0 .. n_repeats - 1``).
    n_rows : int, optional
        The rows counted (``max_rows`` of :func:`precmp_lib.clusters.cluster_sums_sql`).

    Returns
    -------
    str
        The query; :func:`precmp_lib.clusters.cluster_sums_from_rows` reads its rows.

    Examples
    --------
    >>> spec = _spec("cv.parquet", ["id", "repeat", "fold", "y", "a"], y_true="y", models=None,
    ...              id=None, repeat=None, fold=None, layout="auto")
    >>> sql = cluster_sql(spec)
    >>> "JOIN codes k ON e.y = k.ry AND e.p0 = k.rp0" in sql
    True
    >>> "JOIN reps q ON e.rep = q.rrep" in cluster_sql(spec, n_classes=3, n_repeats=10)
    True
    """
    m = len(spec.models)
    pcols = [f"p{j}" for j in range(m)]
    keys = ["y", *pcols]
    wide = spec.layout == "wide"
    events, join = _coded_events(spec, table, codes)
    # the wide layout's check of unique (id, repeat) pairs, on the repeats' codes
    check = wide and n_repeats is not None
    if check:
        join += f" JOIN {reps} q ON e.rep = q.rrep"
    mask = check and n_repeats is not None and n_repeats <= 30
    bits = None if n_classes is None or n_repeats is None else packed_bits(n_repeats, m, n_classes)
    if bits is not None and n_classes is not None and n_repeats is not None:
        # the coded events as they are, with the packed terms the codes table holds:
        # cluster_sums_sql groups them by id
        n_words = packed_terms([0], [[0] * m], n_classes=n_classes, max_size=n_repeats).shape[1]
        cols = ["e.id AS cl", "k.cy AS y", *(f"k.v{w} AS v{w}" for w in range(n_words)),
                *(["q.crep AS rep"] if check else []), *(["q.dm AS dm"] if mask else []), "1 AS n"]
        ctes = f"e AS ({events}), t AS (SELECT {', '.join(cols)} {join})"
        return cluster_sums_sql(m, "t", ctes, n_classes=n_classes, max_size=n_repeats,
                                distinct="rep" if check else None,
                                distinct_codes=n_repeats if check else None, packed=True,
                                max_rows=n_rows)
    # the codes first (a join with a small table), then one GROUP BY on integers
    coded = ", ".join(f"k.c{c}" for c in keys)
    rep = ", q.crep" if check else ""
    ctes = (f"e AS ({events}), "
            f"t AS (SELECT e.id AS cl{rep.replace('q.crep', 'q.crep AS rep')}, "
            f"{', '.join(f'k.c{c} AS {c}' for c in keys)}, COUNT(*) AS n "
            f"{join} GROUP BY e.id{rep}, {coded})")
    return cluster_sums_sql(m, "t", ctes, distinct="rep" if check else None,
                            distinct_codes=n_repeats if check else None)


def _coded_events(spec: _Spec, table: str, codes: str) -> tuple[str, str]:
    """Return the prediction events of repeated cv (``e``) and their join with ``codes``.

    Wide layout: the rows are the events (one per (id, repeat)); long: the inner query of
    :func:`counting_sql`. The join matches each event's raw labels with the codes table's.
    """
    pcols = [f"p{j}" for j in range(len(spec.models))]
    if spec.layout == "wide":
        sel = ["k_id AS id", "k_rep AS rep", "k_y AS y", *(f"k_{p} AS {p}" for p in pcols)]
        events = f"SELECT {', '.join(sel)} FROM {table}"
    else:
        events = _events_sql(spec, table)[0]
    keys = ["y", *pcols]
    return events, f"FROM e JOIN {codes} k ON {' AND '.join(f'e.{c} = k.r{c}' for c in keys)}"


def profile_sql(spec: _Spec, table: str = "roles", codes: str = "codes",
                n_profiled: int = 1, n_repeats: int = 10) -> str:
    """Write the query of the observations' class profiles, one text for both engines.

    The prediction events are given the profile terms of their pattern by an equi-join with
    ``codes`` (raw columns ``ry``, ``rp0`` .. and the packed words of
    :func:`precmp_lib.clusters.profile_terms`), summed per observation and grouped by each
    class's profile (:func:`precmp_lib.clusters.class_profiles_sql`): one row per class and
    distinct profile comes back.

    Parameters
    ----------
    spec : _Spec
        The column roles (repeated cross-validation).
    table, codes : str
        The table of :func:`roles_sql` and the table of codes (internal names).
    n_profiled, n_repeats : int
        The classes profiled, and the repeats (the most events of an observation).

    Returns
    -------
    str

    Examples
    --------
    >>> spec = _spec("cv.parquet", ["id", "repeat", "y", "a"], y_true="y", models=None,
    ...              id=None, repeat=None, fold=None, layout="auto")
    >>> sql = profile_sql(spec)
    >>> "JOIN codes k ON e.y = k.ry AND e.p0 = k.rp0" in sql, "GROUP BY cl" in sql
    (True, True)
    """
    m = len(spec.models)
    events, join = _coded_events(spec, table, codes)
    names = profile_terms([0], [[0] * m], classes=list(range(n_profiled)),
                          max_size=n_repeats).columns
    words = ", ".join(f"k.{v} AS {v}" for v in names)
    ctes = f"e AS ({events}), t AS (SELECT e.id AS cl, {words} {join})"
    return class_profiles_sql(m, n_profiled, "t", ctes, max_size=n_repeats)


def _split_sets(spec: _Spec, rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    if not spec.cv or not spec.keep_observations:
        return rows, None
    g = rows["g"].to_numpy().astype(np.int64)
    pat = rows.loc[g == 1].drop(columns=["g", "id"]).reset_index(drop=True)
    obs_cols = ["id", "y", *[f"p{j}" for j in range(len(spec.models))], "n"]
    obs = rows.loc[g == 0, obs_cols].reset_index(drop=True)
    return pat, obs


def _models_sql(dialect: _Dialect, table: str = "src") -> str:
    """Select the model names of a table renamed by :func:`roles_sql`, in first-row order."""
    row = "row_number() OVER ()" if dialect is DUCKDB else "monotonically_increasing_id()"
    return (f"SELECT m FROM (SELECT CAST(k_model AS {dialect.text}) AS m, {row} AS r FROM {table}) t "
            "GROUP BY m ORDER BY MIN(r)")


def _locate_sql(spec: _Spec, dialect: _Dialect, column: str, what: str, table: str = "src") -> str | None:
    """Error path only: where a problem is (row numbers in file order), for the message.

    The table is the one :func:`roles_sql` makes: ``column`` (a source column) is found under its
    fixed name.
    """
    fixed = _fixed_name(spec, column)
    if fixed is None:
        return None
    c = fixed
    if what == "missing":
        cond = f"{c} IS NULL OR TRIM(CAST({c} AS {dialect.text})) IN ('', 'NaN', 'nan')"
        return (f"SELECT r FROM (SELECT row_number() OVER () - 1 AS r, {c} FROM {table}) t "
                f"WHERE {cond} ORDER BY r LIMIT 1")
    if what == "two labels" and spec.id:
        return f"SELECT k_id FROM {table} GROUP BY k_id HAVING COUNT(DISTINCT k_y) > 1 LIMIT 1"
    if what == "duplicate" and spec.id:
        keys = ["k_id", *(["k_rep"] if spec.repeat else [])]
        return (f"WITH t AS (SELECT row_number() OVER () - 1 AS r, {', '.join(keys)}, COUNT(*) OVER "
                f"(PARTITION BY {', '.join(keys)}) AS k FROM {table}), "
                f"d AS (SELECT {', '.join(keys)} FROM t WHERE k > 1 ORDER BY r LIMIT 1) "
                f"SELECT t.r, {', '.join('t.' + k for k in keys)} FROM t JOIN d USING ({', '.join(keys)}) "
                "ORDER BY t.r LIMIT 2")
    return None


def resolve_path(path: str | os.PathLike) -> tuple[list[str], bool]:
    """Return the files a path argument names, and whether it was read as a pattern.

    A name that exists is that file, whatever characters it holds (``run[1].parquet`` is the
    file of that name). Only a name that does not exist and holds ``*`` or ``?`` is a pattern;
    in it ``*`` and ``?`` are the only wildcards (brackets are themselves).

    Parameters
    ----------
    path : str or PathLike
        The argument as given.

    Returns
    -------
    files : list of str
        The file (one) or the files the pattern matches, sorted (possibly none).
    pattern : bool
        True when the argument was expanded as a pattern.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in ["run[1].parquet", "run1.parquet", "run2.parquet"]:
    ...     _ = (d / name).write_bytes(b"PAR1")
    >>> [Path(f).name for f in resolve_path(d / "run[1].parquet")[0]]
    ['run[1].parquet']
    >>> [Path(f).name for f in resolve_path(d / "run?.parquet")[0]]
    ['run1.parquet', 'run2.parquet']
    """
    text = os.fspath(path)
    if os.path.lexists(text) or not any(ch in text for ch in "*?"):
        return [text], False
    return sorted(glob.glob(text.replace("[", "[[]"))), True


def _describe_path(path: str | os.PathLike) -> tuple[str, list[str], str, str | None]:
    """Return the file kind, the files, the name used in messages and, for a pattern, a note."""
    files, pattern = resolve_path(path)
    if pattern:
        text = os.fspath(path)
        if not files:
            raise PredictionFileError(f"{text}: no file matches this pattern")
        if not all(f.lower().endswith(PARQUET_SUFFIXES) for f in files):
            raise PredictionFileError(f"{text}: a pattern must match Parquet files only")
        shown = ", ".join(Path(f).name for f in files[:20]) + (" ..." if len(files) > 20 else "")
        for f in files:
            _check_file(Path(f), Path(f).name, "parquet")
        return "parquet", files, text, f"the pattern matched {len(files)} file(s): {shown}"
    p = Path(files[0])
    name = p.name
    if not p.exists():
        raise PredictionFileError(f"{name}: no such file")
    if p.is_dir():
        raise PredictionFileError(f"{name}: is a directory, not a predictions file")
    low = name.lower()
    if low.endswith(PARQUET_SUFFIXES):
        kind = "parquet"
    elif low.endswith(CSV_SUFFIXES):
        kind = "csv"
    else:
        raise PredictionFileError(f"{name}: unknown file type {p.suffix!r}; expected .csv or .parquet")
    _check_file(p, name, kind)
    return kind, [str(p)], name, None


def _check_file(p: Path, name: str, kind: str) -> None:
    """Refuse an unreadable or empty file, and a Parquet file without the Parquet header."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except PermissionError:
        raise PredictionFileError(f"{name}: permission denied (the file cannot be read)") from None
    except OSError as exc:
        raise PredictionFileError(f"{name}: cannot be opened ({exc.strerror})") from None
    if not head:
        raise PredictionFileError(f"{name}: the file is empty")
    if kind == "parquet" and head != b"PAR1":
        raise PredictionFileError(f"{name}: cannot be read as PARQUET (no Parquet header)")


def _suffix(path: str) -> str:
    """Return the file-type suffix of a path (``.csv.gz``, ``.parquet``, ...), as readers see it."""
    low = path.lower()
    return next(s for s in (*CSV_SUFFIXES, *PARQUET_SUFFIXES)[::-1] if low.endswith(s))


def _delimiter(path: str) -> str:
    """Tab for ``.tsv`` and ``.tsv.gz`` files, else a comma."""
    return "\t" if _suffix(path).startswith(".tsv") else ","


@contextlib.contextmanager
def _literal_files(files: list[str], name: str, own_paths: bool = False) -> Iterator[list[str]]:
    """Give DuckDB and Spark plain names for the files: links ``f0.csv``, ... in a private folder.

    Both readers expand glob characters in a path they are given (``run[1].parquet`` would read
    ``run1.parquet``; Hadoop also expands braces and stops at a ``:``), so they get links whose
    names hold no such character; the folder goes when the count is done. Where links cannot be
    made, the paths themselves are used when they hold none of those characters. With
    ``own_paths`` (a Spark Connect server, which may run elsewhere and not see this machine's
    private folder) the files' own absolute paths are given whenever they hold none of those
    characters; links only for the others.
    """
    if own_paths:
        paths = [os.path.abspath(f) for f in files]
        if not any(ch in p for p in paths for ch in "*?[]{}\\:"):
            yield paths
            return
    folder = tempfile.mkdtemp(prefix="precmp-files-")
    try:
        try:
            links = []
            for i, f in enumerate(files):
                link = os.path.join(folder, f"f{i}{_suffix(f)}")
                os.symlink(os.path.abspath(f), link)
                links.append(link)
        except OSError:
            links = [os.path.abspath(f) for f in files]
        if any(ch in link for link in links for ch in "*?[]{}\\:"):
            raise PredictionFileError(f"{name}: the path holds characters the file readers take as "
                                      "a pattern (*?[]{}\\:) and no plain link to it can be made; "
                                      "rename the file or count it with --engine numpy")
        yield links
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _csv_header(path: str, name: str) -> list[str]:
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    delim = _delimiter(path)
    try:  # utf-8-sig: a spreadsheet's byte-order mark is not part of the first name
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            header = next(csv.reader(fh, delimiter=delim), None)
    except UnicodeDecodeError:
        raise PredictionFileError(f"{name}: cannot be read as CSV (not UTF-8 text)") from None
    except csv.Error as exc:
        raise PredictionFileError(f"{name}: cannot be read as CSV ({exc})") from None
    if not header or all(not h.strip() for h in header):
        raise PredictionFileError(f"{name}: the file has no header line")
    return [h.strip() for h in header]


def _line_end(path: str) -> str:
    """Return the header's line ending (outside quotes), as DuckDB's ``new_line`` spells it.

    DuckDB is told it: with CRLF endings and a quoted newline in the header it would otherwise
    take the header's end for the end of the file.
    """
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        head = fh.read(1 << 20)
    quoted = False
    for i, byte in enumerate(head):
        if byte == ord('"'):
            quoted = not quoted
        elif not quoted and byte == ord("\r"):
            return "\\r\\n" if head[i + 1:i + 2] == b"\n" else "\\r"
        elif not quoted and byte == ord("\n"):
            break
    return "\\n"


def _parquet_columns(files: list[str], name: str, optional: Callable[[str], bool] | None = None,
                     drop: bool = False) -> tuple[list[str], list[str]]:
    """Return the column names of a Parquet file, or of a set of files that must agree.

    The files of a glob are read by column name, so they must hold the same columns with the
    same types: a column missing from some files (a model, an extra column) or typed
    differently (text in one file, numbers in another) is an error naming the column and files.
    A column for which ``optional`` is true (a model column) may be missing from some files
    when ``drop`` is set; without it, the error says how to compare the other models.

    Returns the columns every file holds, in the first file's order, and the optional columns
    left out because some files lack them.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise PredictionFileError(f"{name}: reading Parquet needs pyarrow: pip install pyarrow") from None

    schemas = []
    for f in files:
        try:
            schemas.append(pq.read_schema(f))
        except Exception as exc:  # any parser failure is a file problem for the user
            shown = os.path.basename(f) if len(files) > 1 else name
            raise PredictionFileError(f"{shown}: cannot be read as PARQUET ({type(exc).__name__})") from None
    first = list(schemas[0].names)
    if len(files) > 1:
        partial = _check_drift(files, schemas, name, optional, drop)
        return [c for c in first if c not in partial], partial
    return first, []


def _type_kind(t: Any) -> str:
    """Text, number or bool for an Arrow type (widths and dictionary encoding aside)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t) or str(t) == "string_view":
        return "text"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "number"
    return "bool" if pa.types.is_boolean(t) else str(t)


def _check_drift(files: list[str], schemas: list[Any], name: str,
                 optional: Callable[[str], bool] | None = None, drop: bool = False) -> list[str]:
    """Fail when the files of a glob disagree on a column's presence or type.

    Return the columns missing from some files for which ``optional`` is true, when ``drop`` is
    set (else an empty list).
    """
    names = [os.path.basename(f) for f in files]

    def listed(idx: list[int]) -> str:
        shown = [names[i] for i in idx[:3]]
        return ", ".join(shown) + (f" and {len(idx) - 3} more" if len(idx) > 3 else "")

    every = list(dict.fromkeys(c for sch in schemas for c in sch.names))
    partial = []
    for col in every:
        has = [i for i, sch in enumerate(schemas) if col in sch.names]
        if len(has) < len(schemas):
            lack = [i for i in range(len(schemas)) if i not in has]
            model = optional is not None and optional(col)
            if model and drop:
                partial.append(col)
                continue
            raise PredictionFileError(
                f"{name}: column {col!r} is in {listed(has)} but not in {listed(lack)}; the files "
                "of a pattern must hold the same columns"
                + (" (--common-models, or common_models=True, compares the models every file "
                   "holds)" if model else ""))
        types = [schemas[i].field(col).type for i in has]
        kinds = [_type_kind(t) for t in types]
        if len(set(kinds)) > 1:
            other = next(i for i, k in enumerate(kinds) if k != kinds[0])
            raise PredictionFileError(
                f"{name}: column {col!r} holds {kinds[0]} ({types[0]}) in {names[has[0]]} but "
                f"{kinds[other]} ({types[other]}) in {names[has[other]]}; the files of a pattern "
                "must type each column alike")
    return partial


def _file_columns(kind: str, files: list[str], name: str) -> list[str]:
    return _csv_header(files[0], name) if kind == "csv" else _parquet_columns(files, name)[0]


def _by_position(frame: Any, keep: Sequence[str], rename: Callable[[Any, list[str]], Any],
                 select: Callable[[Any, list[str]], Any]) -> Any:
    """Keep the columns ``keep`` of a DuckDB relation or Spark DataFrame, in that order.

    The columns are found by exact name in the frame's own list and taken by position (renamed
    ``c0``, ``c1``, ... first), so no column name reaches a query or a name parser: a glob read
    by name may list its columns in another order than its first file, or hold more.
    """
    have = [str(c) for c in frame.columns]
    if have == list(keep):
        return frame
    missing = [c for c in keep if c not in have]
    if missing:
        raise PredictionFileError(f"column {missing[0]!r} is not among the columns read: {have}")
    return select(rename(frame, [f"c{i}" for i in range(len(have))]),
                  [f"c{have.index(c)}" for c in keep])


def _duckdb_keep(rel: duckdb.DuckDBPyRelation, keep: Sequence[str]) -> duckdb.DuckDBPyRelation:
    def rename(r: Any, names: list[str]) -> Any:
        return r.query("drifted", f"SELECT * FROM drifted AS t({', '.join(names)})")

    return _by_position(rel, keep, rename, lambda r, cols: r.project(", ".join(cols)))


def _spark_keep(df: SparkDataFrame, keep: Sequence[str]) -> SparkDataFrame:
    return _by_position(df, keep, lambda d, names: d.toDF(*names), lambda d, cols: d.select(*cols))


# --------------------------------------------------------------------------------------------
# DuckDB
# --------------------------------------------------------------------------------------------


def _duckdb_source(con: duckdb.DuckDBPyConnection, kind: str, files: list[str],
                   columns: list[str]) -> duckdb.DuckDBPyRelation:
    lit = DUCKDB.literal
    if kind == "parquet":
        # by column name: files that list the same columns in another order still line up
        return con.sql(f"SELECT * FROM read_parquet([{', '.join(lit(f) for f in files)}], "
                       "union_by_name = true)")
    delim = _delimiter(files[0])
    spec = ", ".join(f"c{i}: 'VARCHAR'" for i in range(len(columns)))
    return con.sql(
        f"SELECT * FROM read_csv({lit(files[0])}, header = true, auto_detect = false, "
        f"delim = {lit(delim)}, quote = '\"', escape = '\"', nullstr = '', "
        f"new_line = {lit(_line_end(files[0]))}, columns = {{{spec}}})")


def _duckdb_error(name: str, kind: str, exc: Exception, files: list[str]) -> PredictionFileError:
    """One line from DuckDB's message: its first line and the reason, never the raw line."""
    if type(exc).__name__ == "OutOfMemoryException" or "Out of Memory" in str(exc):
        return PredictionFileError(
            f"{name}: DuckDB ran out of memory counting it (its limit is {DUCKDB_MEMORY}); "
            "raise the limit with the environment variable PRECMP_DUCKDB_MEMORY (e.g. "
            "PRECMP_DUCKDB_MEMORY=4GB)")
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.startswith(("Original Line", "Possible Solution"))
            and "=" not in ln[:30]][:2]
    text = ": ".join(keep) if keep else type(exc).__name__
    for f in files:
        text = text.replace(f, name)
    text = text if len(text) <= 240 else text[:237] + "..."
    return PredictionFileError(f"{name}: cannot be read as {kind.upper()} ({text})")


# DuckDB's whole-number types, which _duckdb_frame reads through Arrow like its text
_ARROW_INTEGERS = {"TINYINT": "Int8", "SMALLINT": "Int16", "INTEGER": "Int32", "BIGINT": "Int64",
                   "UTINYINT": "UInt8", "USMALLINT": "UInt16", "UINTEGER": "UInt32",
                   "UBIGINT": "UInt64"}


def _duckdb_frame(relation: duckdb.DuckDBPyRelation) -> pd.DataFrame:
    """Return a relation's rows as ``relation.df()`` does, reading text through Arrow.

    ``df()`` makes a Python string of every text value before pandas takes it in; through
    Arrow the text stays in the buffers pandas' own string dtype is made of (on the 159k
    pattern rows of a 1e7-row cross-validated file, 0.2 s less). Only a result of text and
    whole-number columns takes that route, each column made to the dtype ``df()`` gives it (a
    whole-number column with a missing value: pandas' nullable integer); any other result, or
    a pandas whose strings are not kept in Arrow, goes through ``df()``, its BLOB values as
    bytes (``df()`` gives bytearrays, which cannot be counted; numpy and Spark give bytes).
    """
    import pyarrow as pa

    types = [str(t) for t in relation.types]
    text = pd.Series(["a"]).dtype  # pandas' string dtype
    arrow_text = isinstance(text, pd.StringDtype) and text.storage == "pyarrow"
    if not arrow_text or any(t != "VARCHAR" and t not in _ARROW_INTEGERS for t in types):
        frame = relation.df()
        for name, kind in zip(frame.columns, types):
            if kind == "BLOB":
                frame[name] = frame[name].map(lambda v: bytes(v) if isinstance(v, bytearray) else v)
        return frame
    table = relation.to_arrow_table()
    columns: dict[str, Any] = {}
    for name, column, kind in zip(table.column_names, table.columns, types):
        if kind == "VARCHAR" and column.null_count == len(column):  # as df(): objects
            columns[name] = pd.Series([None] * len(column), dtype=object)
        elif kind == "VARCHAR":
            column = column.cast(pa.large_string())  # the storage of pandas' str dtype
            columns[name] = column.to_pandas(types_mapper=lambda t: text)
        elif column.null_count:
            nullable = pd.api.types.pandas_dtype(_ARROW_INTEGERS[kind])
            columns[name] = column.to_pandas(types_mapper=lambda t, d=nullable: d)
        else:
            columns[name] = pd.Series(column.to_numpy(), name=name)
    return pd.DataFrame(columns, columns=table.column_names)


def _run_with_progress(con: duckdb.DuckDBPyConnection, sql: str,
                       relation: duckdb.DuckDBPyRelation, progress: bool) -> pd.DataFrame:
    """Run the counting query; with ``progress``, a tqdm bar polls DuckDB's query progress."""
    if not progress or not sys.stderr.isatty():  # a bar only where a person watches
        return _duckdb_frame(relation.query("roles", sql))
    from tqdm.auto import tqdm

    done = threading.Event()
    bar = tqdm(total=100, desc="counting", unit="%", delay=1.0, leave=False,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}")

    def poll() -> None:
        while not done.wait(0.2):
            try:
                p = float(con.query_progress())
            except Exception:  # the connection is busy or closed: stop polling
                return
            if p >= 0:
                bar.n = min(p, 100.0)
                bar.refresh()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        return _duckdb_frame(relation.query("roles", sql))
    finally:
        done.set()
        thread.join()
        bar.close()


def _duckdb_model_index(spec: _Spec, roles: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """Long layout: replace ``k_model`` by the model's index, comparing names as constants."""
    import duckdb
    from duckdb import CaseExpression, ColumnExpression, ConstantExpression

    name = ColumnExpression("k_model").cast(duckdb.sqltypes.VARCHAR)
    case = None
    for j, model in enumerate(spec.models):
        cond, value = name == ConstantExpression(model), ConstantExpression(j)
        case = CaseExpression(cond, value) if case is None else case.when(cond, value)
    assert case is not None  # _long_models refuses a table with no models
    keep = [ColumnExpression(fixed) for fixed, _ in _roles(spec) if fixed != "k_model"]
    return roles.select(*keep, case.alias("k_model"))


def _duckdb_count(spec: _Spec, relation: duckdb.DuckDBPyRelation, columns: Sequence[str],
                  con: duckdb.DuckDBPyConnection, progress: bool,
                  on_error: Callable[[Exception], PredictionFileError]) -> Counts:
    _check_flat(spec, columns, relation)
    try:
        roles = relation.query("src", roles_sql(spec, columns))
        table = roles
        if spec.layout == "long":
            _long_models(spec, [str(r[0]) for r in roles.query("roles", _models_sql(DUCKDB, "roles")).fetchall()
                                if r[0] is not None])
            table = _duckdb_model_index(spec, roles)
        rows = _run_with_progress(con, counting_sql(spec, DUCKDB, "roles"), table, progress)
    except PredictionFileError:
        raise
    except Exception as exc:  # duckdb.Error: a parse failure of the user's file
        raise on_error(exc) from None
    pat, obs = _split_sets(spec, rows)

    def locate(column: str, what: str) -> Any:
        sql = _locate_sql(spec, DUCKDB, column, what, "roles")
        if sql is None:
            return None
        try:
            found = roles.query("roles", sql).fetchall()
        except Exception:  # the message is still right without a line number
            return None
        if not found:
            return None
        if what == "missing":
            return int(found[0][0])
        if what == "two labels":
            return f"observation {spec.id}={_value(spec, found[0][0])}"
        key = ", ".join(f"{k}={_value(spec, v)}" for k, v in zip((spec.id, spec.repeat), found[0][1:]) if k)
        rows = [int(r[0]) + (2 if spec.rows_are_lines else 0) for r in found]
        where = "lines" if spec.rows_are_lines else "rows"
        return f"{key}; {where} {' and '.join(map(str, rows))}"

    def sums(codes: pd.DataFrame, reps: pd.DataFrame,
             sql: Callable[[str, str, str], str]) -> pd.DataFrame:
        # the code tables by name: registered on the engine's own connection, and found by
        # DuckDB's scan of Python variables when the relation belongs to another connection
        precmp_codes, precmp_reps = codes, reps
        con.register("precmp_codes", precmp_codes)
        con.register("precmp_reps", precmp_reps)
        try:
            return table.query("roles", sql("roles", "precmp_codes", "precmp_reps")).df()
        except Exception as exc:  # duckdb.Error: out of memory, a file that changed
            raise on_error(exc) from None
        finally:
            con.unregister("precmp_codes")
            con.unregister("precmp_reps")

    return _finish(spec, pat, obs, "duckdb", locate, sums)


def _long_models(spec: _Spec, available: list[str]) -> None:
    """Keep the models asked for, or every model in the order of its first row."""
    if spec.models:
        unknown = sorted(set(spec.models) - set(available))
        if unknown:
            raise spec.fail(f"column {spec.model_col!r} has no rows for model(s) {unknown}")
    else:
        spec.models = available
    if not spec.models:
        raise spec.fail("the file has a header but no rows")


def _connect() -> duckdb.DuckDBPyConnection:
    import duckdb

    con = duckdb.connect()
    # progress is tracked (for query_progress) but never printed by DuckDB itself
    con.execute("SET enable_progress_bar = true")
    con.execute("SET enable_progress_bar_print = false")
    # large GROUP BYs (ids of long files) spill to a private folder, removed with the
    # connection, instead of growing to most of the machine's memory or writing into the cwd
    spill = tempfile.mkdtemp(prefix="precmp-duckdb-")
    con.execute(f"SET temp_directory = {DUCKDB.literal(spill)}")
    con.execute(f"SET memory_limit = {DUCKDB.literal(DUCKDB_MEMORY)}")
    weakref.finalize(con, shutil.rmtree, spill, True)
    return con


# --------------------------------------------------------------------------------------------
# Spark
# --------------------------------------------------------------------------------------------


def configured_master() -> str | None:
    """Return the Spark master the environment configures, or None.

    Looked up as ``spark-submit`` does: ``--master`` (or ``--remote``) in
    ``PYSPARK_SUBMIT_ARGS``, then ``spark.master`` (or ``spark.remote``) in
    ``spark-defaults.conf`` (in ``SPARK_CONF_DIR``, else ``SPARK_HOME/conf``). A Spark Connect
    URL (``sc://host:port``) is returned as it is: :func:`spark_session` then connects to that
    server.

    Returns
    -------
    str or None
        The master URL, or None when nothing sets one (a local session is then started).

    Examples
    --------
    >>> import os
    >>> os.environ["PYSPARK_SUBMIT_ARGS"] = "--master spark://127.0.0.1:7077 pyspark-shell"
    >>> configured_master()
    'spark://127.0.0.1:7077'
    >>> os.environ["PYSPARK_SUBMIT_ARGS"] = "--remote sc://127.0.0.1:15002 pyspark-shell"
    >>> configured_master()
    'sc://127.0.0.1:15002'
    >>> del os.environ["PYSPARK_SUBMIT_ARGS"]
    """
    import shlex

    words = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    for i, word in enumerate(words):
        if word in ("--master", "--remote") and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(("--master=", "--remote=")):
            return word.split("=", 1)[1]
    folder = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if os.environ.get("SPARK_HOME") else None)
    if folder and os.path.isfile(os.path.join(folder, "spark-defaults.conf")):
        with open(os.path.join(folder, "spark-defaults.conf"), encoding="utf-8") as fh:
            for line in fh:
                parts = line.strip().split(None, 1)
                if len(parts) == 2 and parts[0] in ("spark.master", "spark.remote"):
                    return parts[1].strip()
    return None


def _jvm_line(text: str) -> str:
    """Return the JVM's own message in one line.

    Spark Connect's errors carry the server's message, then ``JVM stacktrace:`` and the trace
    (dropped); a gRPC failure (the server cannot be reached) its ``details``. Otherwise the
    first line that names an error class (``[PATH_NOT_FOUND] ...``) or an exception.
    """
    text = _grpc_details(text.split("JVM stacktrace:", 1)[0])
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    found = ([ln for ln in lines if re.match(r"\[[A-Z][A-Z0-9_.]*\] ", ln)]
             or [ln for ln in lines if ("Exception" in ln or "Error" in ln) and not ln.startswith("at ")])
    line = (found[0] if found else (lines[-1] if lines else "no message"))
    return line if len(line) <= 300 else line[:297] + "..."


def _grpc_details(text: str) -> str:
    """Return the ``details`` of a gRPC failure's text (Spark Connect's client), else the text."""
    if text.startswith(("<_InactiveRpcError", "<_MultiThreadedRendezvous")):
        found = re.search(r'details = "(.*)"', text)
        if found:
            return found.group(1)
    return text


def spark_error(exc: BaseException) -> str:
    """Say in one line what went wrong in Spark, naming the setting to change where there is one.

    Parameters
    ----------
    exc : BaseException
        What Spark raised (a ``Py4JJavaError``, an analysis error, ...).

    Returns
    -------
    str
        One line: the Java or Spark message, and for an out-of-memory error the
        ``spark.driver.memory`` setting.

    Examples
    --------
    >>> spark_error(RuntimeError("java.lang.OutOfMemoryError: Java heap space"))
    'Spark ran out of memory (java.lang.OutOfMemoryError: Java heap space); give the driver more: --spark-conf spark.driver.memory=4g'
    """
    java = getattr(exc, "java_exception", None)
    text = str(java) if java is not None else str(exc)
    if "OutOfMemoryError" in text or "Java heap space" in text:
        if type(exc).__module__.startswith("pyspark.errors.exceptions.connect"):
            # the server's driver ran out: its memory is fixed where the server is started
            return (f"Spark ran out of memory ({_jvm_line(text)}); give the Spark Connect "
                    "server's driver more: spark.driver.memory where the server is started")
        return (f"Spark ran out of memory ({_jvm_line(text)}); give the driver more: "
                "--spark-conf spark.driver.memory=4g")
    return f"Spark failed: {_jvm_line(text)}"


def spark_session(master: str | None = None,
                  conf: Mapping[str, str] | None = None) -> SparkSession:
    """Return the active Spark session, or start one (local unless a master is configured).

    The master is ``master`` if given, else ``SPARK_REMOTE``, else the one the environment
    configures (:func:`configured_master`), else ``local[2]``; a session already running in
    this process is returned when no master is given. A Spark Connect URL
    (``sc://host:port``, as ``SPARK_REMOTE`` holds) connects to that server: no JVM is started
    here and Java is not needed; the server reads the files, so they must be visible to it
    under the same absolute paths (a server on this machine, or a file system it shares with
    this one; a file name holding a character Spark takes as a pattern, such as ``run[1].csv``,
    is read through a link in a private local folder, which only a server on this machine
    sees). PySpark allows no Spark Connect session beside a local one in the same process, and
    marks the process as a Spark Connect one once connected. Any other master starts a JVM
    (without ``SPARK_REMOTE`` in its environment, which ``spark-submit`` would refuse): a local
    session runs 2 threads with no UI and 2 shuffle partitions, logs only errors and keeps the
    JVM's start-up lines off the caller's stderr. When the JVM cannot start or the server cannot be reached, its own message is
    raised, in one line. PySpark's own logging of failed queries is switched off: the errors
    reach the caller as exceptions.

    Parameters
    ----------
    master : str, optional
        A Spark master URL (``spark://host:port``, ``local[4]``, ``yarn``, ``sc://host:port``
        ...).
    conf : mapping of str to str, optional
        Further Spark settings (``spark.executor.memory`` ...); they override the defaults
        above. On a Spark Connect server they are set for this session; a setting the server
        fixes at its start (``spark.driver.memory`` ...) is refused.

    Returns
    -------
    pyspark.sql.SparkSession
        The session that :func:`count_predictions` uses for paths with ``engine="spark"`` (for
        Spark Connect, a ``pyspark.sql.connect.session.SparkSession``).

    Raises
    ------
    RuntimeError
        When Java is missing (saying how to install Java 17), when Spark Connect's client
        packages are missing (saying how to install them), or when the JVM, the session or the
        connection fails (its message, one line).
    """
    _quiet_query_logs()
    if master is None:
        active = _active_session()
        if active is not None:
            return active
    master = master or os.environ.get("SPARK_REMOTE") or configured_master() or "local[2]"
    if master.startswith("sc://"):
        return _connect_session(master, conf or {})
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        raise RuntimeError(JAVA_HINT)
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode: no host-name warning

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    from importlib.resources import files

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    logging = files("precmp_lib") / "_resources" / "spark-log4j2.properties"
    settings = {
        "spark.master": master,
        "spark.app.name": "precmp",
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={logging}",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
    }
    if master.startswith("local"):
        settings.update({"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"})
    for key, value in (conf or {}).items():
        settings[str(key)] = str(value)
    spark_conf = SparkConf().setAll(list(settings.items()))
    # The JVM's own start-up lines (the incubator-module warning, Spark's default-log-level
    # notice) would land on the caller's stderr; they are kept in a file, and shown (one line)
    # only when the JVM fails.
    # spark-submit refuses to start a driver while SPARK_REMOTE is set (a master given here, or
    # SPARK_REMOTE=local): the JVM is started without it
    remote = os.environ.pop("SPARK_REMOTE", None)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        try:
            gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": subprocess.DEVNULL,
                                                               "stderr": log})
            spark = SparkSession(SparkContext(conf=spark_conf, gateway=gateway))
        except Exception as exc:  # the JVM did not start, or refused the master or a setting
            log.seek(0)
            said = log.read()
            # the JVM's log names the failure when the JVM refused; else it is PySpark's own
            jvm = any("Exception" in ln or "Error" in ln for ln in said.splitlines())
            raise RuntimeError(f"Spark failed to start: {_jvm_line(said)}"
                               if jvm and not hasattr(exc, "java_exception")
                               else spark_error(exc)) from None
        finally:
            if remote is not None:
                os.environ["SPARK_REMOTE"] = remote
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _quiet_query_logs() -> None:
    """Switch off PySpark's JSON log of a failed query's context (it goes to stderr).

    The error itself is raised as an exception, which the caller reports in one line.
    """
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True


def _active_session() -> SparkSession | None:
    """Return the Spark session already running in this process (Spark Connect or local), or None."""
    if "pyspark.sql.connect.session" in sys.modules:
        from pyspark.sql.connect.session import SparkSession as ConnectSession

        active: Any = ConnectSession.getActiveSession()  # PySpark types it apart from the classic one
        if active is not None:
            return cast("SparkSession", active)
    if "pyspark.sql" in sys.modules:
        from pyspark.sql import SparkSession

        return SparkSession.getActiveSession()
    return None


def is_spark_connect(spark: Any) -> bool:
    """Tell whether a Spark session (or DataFrame) talks to a Spark Connect server.

    Parameters
    ----------
    spark : SparkSession or DataFrame
        A session or DataFrame of PySpark; anything else is not one.

    Returns
    -------
    bool
        True for Spark Connect's classes (no JVM in this process: no ``sparkContext``, the
        server reads the files).

    Examples
    --------
    >>> is_spark_connect(object())
    False
    """
    return type(spark).__module__.startswith("pyspark.sql.connect.")


def _connect_session(url: str, conf: Mapping[str, str]) -> SparkSession:
    """Connect to the Spark Connect server at ``url``; one line when it cannot be reached.

    PySpark's own builder is used, which marks the process as a Spark Connect one
    (``SPARK_CONNECT_MODE_ENABLED``): ``pyspark.sql.functions`` then build Spark Connect
    columns. The mark is taken back when the connection fails.
    """
    import warnings

    shown = re.sub(r"/?;.*", "", url)  # never a token (sc://host:port/;token=...) in a message
    try:
        from pyspark.sql import SparkSession
        from pyspark.sql.connect.client.retries import DefaultPolicy
        from pyspark.sql.connect.session import SparkSession as ConnectSession  # noqa: F401
    except ImportError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"Spark Connect ({shown}) needs the client packages of pyspark's "
                           f"'connect' extra ({first}): pip install \"precmp[spark]\"") from None
    marked = "SPARK_CONNECT_MODE_ENABLED" in os.environ
    spark: Any = None  # a pyspark.sql.connect.session.SparkSession, typed as the classic one
    try:
        spark = SparkSession.builder.remote(url).getOrCreate()
        # a server that cannot be reached fails after a few seconds, not after the client's
        # ten minutes of retries; once it has answered, each call is retried for about eight
        # seconds (CONNECT_RETRIES)
        spark.client.set_retry_policies([DefaultPolicy(max_retries=4, max_backoff=2000)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the client's RETRIES_EXCEEDED warning
            spark.version  # noqa: B018  (the first call to the server)
        spark.client.set_retry_policies([DefaultPolicy(**CONNECT_RETRIES)])
    except Exception as exc:  # a malformed URL, a refused or failed connection, a local session
        if spark is not None:  # closed first: no more calls to wait for, now or at exit
            spark.client.close()
            spark.stop()
        if not marked:
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        raise RuntimeError(f"Spark Connect at {shown} failed: {_jvm_line(str(exc))}") from None
    for key, value in conf.items():
        try:
            spark.conf.set(str(key), str(value))
        except Exception as exc:  # a setting the server fixes at its start, or a bad value
            raise RuntimeError(f"Spark Connect at {shown} refused {key}: {_jvm_line(str(exc))}") from None
    return spark


def _spark_model_index(spec: _Spec, roles: SparkDataFrame) -> SparkDataFrame:
    """Long layout: replace ``k_model`` by the model's index, comparing names as literals."""
    from pyspark.sql import functions as F

    name = F.col("k_model").cast("string")
    case = None
    for j, model in enumerate(spec.models):
        cond, value = name == F.lit(model), F.lit(j)
        case = F.when(cond, value) if case is None else case.when(cond, value)
    assert case is not None  # _long_models refuses a table with no models
    keep = [F.col(fixed) for fixed, _ in _roles(spec) if fixed != "k_model"]
    return roles.select(*keep, case.alias("k_model"))


def _server_gone(exc: BaseException) -> bool:
    """Tell whether a Spark Connect call failed because its server no longer answers.

    gRPC's status UNAVAILABLE on the error or on one of its causes (the client's retries
    exhausted on a refused or dropped connection).
    """
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        code = getattr(cur, "code", None)
        try:  # a grpc.RpcError's code(); other errors may have a code of another kind
            status = code() if callable(code) else None
        except Exception:
            status = None
        if getattr(status, "name", None) == "UNAVAILABLE":
            return True
        cur = cur.__cause__ or cur.__context__
    return "failed to connect to all addresses" in str(exc)


def let_go_if_server_gone(spark: Any, exc: BaseException) -> bool:
    """Close a Spark Connect session whose server no longer answers; tell whether it was.

    Nothing then waits on that server again, in this count or at exit (PySpark's client calls
    its server from an exit function, retrying, unless the client is closed).
    """
    if not (is_spark_connect(spark) and _server_gone(exc)):
        return False
    with contextlib.suppress(Exception):
        spark.client.close()
    return True


def server_gone_message(name: str, exc: BaseException) -> str:
    """Return the one line for a count whose Spark Connect server stopped answering."""
    detail = (_grpc_details(str(exc)).strip().splitlines() or [type(exc).__name__])[0]
    return f"{name}: the Spark Connect server stopped answering while counting it ({detail[:200]})"


def _spark_error(name: str, exc: Exception, files: Sequence[str] = ()) -> PredictionFileError:
    """One line from a Spark error, never the JVM's stack trace nor a line of the file.

    The innermost error with a Spark error class gives its class and reason
    (``[MALFORMED_CSV_RECORD] Malformed CSV record``); else the first line. A Spark Connect
    error names its causes in its ``JVM stacktrace:`` part (``Caused by: ...``), read the same
    way; a gRPC failure (the server went away) gives its ``details``.
    """
    if "OutOfMemoryError" in str(exc) or "Java heap space" in str(exc):
        return PredictionFileError(f"{name}: {spark_error(exc)}")
    said = str(exc)
    if _server_gone(exc):
        return PredictionFileError(server_gone_message(name, exc))
    lines = [ln.strip() for ln in _grpc_details(said).splitlines() if ln.strip()]
    found = [m for m in (re.search(r"(\[[A-Z_.]+\]) ([^:]*)", ln) for ln in lines) if m]
    text = " ".join(found[-1].groups()).strip() if found else (lines[0] if lines else type(exc).__name__)
    for f in files:
        text = text.replace(f"file://{f}", name).replace(f"file:{f}", name).replace(f, name)
    text = text if len(text) <= 240 else text[:237] + "..."
    return PredictionFileError(f"{name}: Spark cannot count it ({text})")


def _spark_count(spec: _Spec, df: SparkDataFrame, columns: Sequence[str],
                 files: Sequence[str] = ()) -> Counts:
    import uuid

    spark = df.sparkSession
    view, roles_view = (f"precmp_{part}_{uuid.uuid4().hex}" for part in ("src", "roles"))
    gone = False
    try:
        _check_flat(spec, columns, df)
        df.createOrReplaceTempView(view)
        rows = _spark_rows(spec, spark, columns, view, roles_view)
        pat, obs = _split_sets(spec, rows)
        return _finish(spec, pat, obs, "spark", lambda column, what: None,
                       lambda codes, reps, sql: _spark_cluster_rows(spec, spark, roles_view, codes,
                                                                    reps, sql))
    except PredictionFileError:
        raise
    except Exception as exc:  # a Spark (JVM) error: a file or table Spark cannot read
        gone = let_go_if_server_gone(spark, exc)
        raise _spark_error(spec.name, exc, files) from None
    finally:
        if not gone:
            spark.catalog.dropTempView(view)
            spark.catalog.dropTempView(roles_view)


def _spark_cluster_rows(spec: _Spec, spark: SparkSession, roles_view: str,
                        codes: pd.DataFrame, reps: pd.DataFrame,
                        sql: Callable[[str, str, str], str]) -> pd.DataFrame:
    """Run ``sql`` in Spark with the tables of codes as temporary views.

    ``sql`` is :func:`cluster_sql` or :func:`profile_sql` given the views' names.
    """
    import uuid

    from pyspark.sql.types import LongType, StructField, StructType

    types = {f.name: f.dataType
             for f in spark.sql(counting_sql(spec, SPARK, roles_view)).schema.fields}

    def view(frame: pd.DataFrame, part: str) -> str:
        # raw columns (r...) in the type the count read them in, codes (c...) as BIGINT
        raw = [c for c in frame.columns if c.startswith("r")]
        schema = StructType([*(StructField(c, types[c[1:]]) for c in raw),
                             *(StructField(c, LongType()) for c in frame.columns
                               if not c.startswith("r"))])
        data = [tuple(_native(v) for v in row)
                for row in frame[[f.name for f in schema.fields]].itertuples(index=False)]
        name = f"precmp_{part}_{uuid.uuid4().hex}"
        spark.createDataFrame(data, schema).createOrReplaceTempView(name)
        return name

    table, rep_table = view(codes, "codes"), view(reps, "reps")
    try:
        out = spark.sql(sql(roles_view, table, rep_table))
        got = out.collect()
        return pd.DataFrame([tuple(r) for r in got], columns=out.columns)
    finally:
        spark.catalog.dropTempView(table)
        spark.catalog.dropTempView(rep_table)


def _spark_rows(spec: _Spec, spark: SparkSession, columns: Sequence[str], view: str,
                roles_view: str) -> pd.DataFrame:
    """Run the first step and the counting query in Spark; the grouped rows as a DataFrame."""
    roles = spark.sql(roles_sql(spec, columns, view))
    if spec.layout == "long":
        roles.createOrReplaceTempView(roles_view)
        _long_models(spec, [str(r[0]) for r in spark.sql(_models_sql(SPARK, roles_view)).collect()
                            if r[0] is not None])
        roles = _spark_model_index(spec, roles)
    roles.createOrReplaceTempView(roles_view)
    sql = counting_sql(spec, SPARK, roles_view)
    result = spark.sql(sql).collect()
    names = spark.sql(sql).columns if not result else list(result[0].asDict())
    rows = pd.DataFrame([tuple(r) for r in result], columns=names)
    if len(rows) == 0:
        rows = pd.DataFrame({c: pd.Series(dtype=object) for c in names})
    return rows


def _native(v: Any) -> Any:
    """Return a Python scalar for Spark's row checks (pandas may hold numpy scalars)."""
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------------------------


def _is_spark_frame(source: Any) -> bool:
    return type(source).__module__.startswith("pyspark.sql") and hasattr(source, "createOrReplaceTempView")


def _is_duckdb_relation(source: Any) -> bool:
    return "duckdb" in type(source).__module__ and hasattr(source, "query")


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
    progress: bool = False,
    observations: bool = False,
    common_models: bool = False,
    prevalence_classes: Sequence[Any] | None = None,
) -> Counts:
    """Count the prediction patterns of several models where the data live.

    Parameters
    ----------
    source : DataFrame, mapping of arrays, path, glob, DuckDB relation or Spark DataFrame
        The predictions, wide or long. A path is a CSV (read as text) or Parquet file; a glob
        (``"preds/*.parquet"``) is a set of Parquet files counted as one table.
    y_true : str
        Column with the true labels.
    models : sequence of str, optional
        Wide: the model columns (default all but truth, id, repeat, fold). Long: models to keep.
    id, repeat, fold : str, optional
        Observation id, repeat and fold columns. A column named ``id`` is the id by default (a
        note says so); ``repeat`` and ``fold`` default to those names when present. A wide
        table with a repeat column is repeated cross-validation (one row per id and repeat).
    layout : {"auto", "wide", "long"}
        ``"auto"``: long when the table has ``model`` and ``y_pred`` columns.
    engine : {"auto", "numpy", "duckdb", "spark"}
        ``"auto"``: numpy for in-memory data, DuckDB for paths and relations, Spark for Spark
        DataFrames.
    progress : bool
        Show a progress bar on stderr while DuckDB counts a large file.
    observations : bool
        Repeated cross-validation: also bring back the pattern counts per observation
        (``Counts.observations``), which a bootstrap over observations needs. Their size grows
        with the number of observations; without them only the cluster sums come back.
    common_models : bool
        A glob of Parquet files (wide layout): a model column that some files lack is left out,
        and a note says so, instead of the error that names the column and the files. The
        truth, id, repeat and fold columns and the models named in ``models`` must still be in
        every file.
    prevalence_classes : sequence of labels, optional
        Repeated cross-validation: also group the observations by their profile over each of
        these classes (``Counts.profiles``), all a bootstrap over observations of their
        precision at a population prevalence needs. The engine groups them where the data
        live: what comes back is one row per class and distinct profile, bounded by the
        repeats and models, never a row per observation. Labels match the classes
        by their text (``"1"`` is class ``1``); one that is not a class is left out.

    Returns
    -------
    Counts
        The pattern counts (and for repeated cross-validation the cluster sums), the classes,
        the models, the design and the engine that counted.

    Raises
    ------
    PredictionFileError
        (a ValueError) naming the file, the column, the line or row where possible, and the
        problem.
    TypeError
        For a source of an unknown kind, or a ``y_true`` that is not a column name.

    Examples
    --------
    Two models predict three observations in each of two repeats of 3-fold cross-validation
    (the long layout: one row per observation, model and repeat):

    >>> long = pd.DataFrame({
    ...     "id": [1, 2, 3] * 4, "repeat": [0] * 6 + [1] * 6,
    ...     "fold": [0, 1, 2] * 2 + [2, 0, 1] * 2, "model": (["a"] * 3 + ["b"] * 3) * 2,
    ...     "y_true": ["x", "y", "y"] * 4, "y_pred": ["x", "y", "x", "x", "x", "y"] * 2})
    >>> c = count_predictions(long, y_true="y_true", observations=True)
    >>> c.design, c.repeats, c.folds, c.n_rows, c.n_observations
    ('repeated cv', 2, 3, 6, 3)
    >>> c.observations.to_dict("list")
    {'obs': [0, 1, 2], 'y': [0, 1, 1], 'p0': [0, 1, 0], 'p1': [0, 0, 1], 'count': [2, 2, 2]}
    >>> c.clusters.right.tolist(), c.clusters.right_sq.tolist()
    ([4, 4], [8, 8])

    Each observation has one pattern, seen in both repeats. The tests that cluster on the
    observation use the cluster sums: each model is right 4 times, twice on each of two
    observations (2² + 2² = 8).
    """
    if engine not in ENGINES:
        raise PredictionFileError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    if not isinstance(y_true, str):
        raise TypeError(f"y_true must be the name of the column of true labels; got {y_true!r}")
    args: _Roles = {"y_true": y_true, "models": models, "id": id, "repeat": repeat,
                    "fold": fold, "layout": layout, "observations": observations,
                    "prevalence_classes": prevalence_classes}
    if isinstance(source, Mapping):
        source = pd.DataFrame({str(k): np.asarray(v) for k, v in source.items()})
    if isinstance(source, pd.DataFrame):
        return _count_frame(source, engine, progress, args)
    if isinstance(source, str | os.PathLike):
        return _count_path(source, engine, progress, args, common_models)
    if _is_duckdb_relation(source):
        return _count_relation(source, engine, progress, args)
    if _is_spark_frame(source):
        return _count_spark_frame(source, engine, args)
    raise TypeError("source must be a DataFrame, a mapping of arrays, a path or glob, a DuckDB "
                    f"relation or a Spark DataFrame; got {type(source).__name__}")


def _count_relation(relation: duckdb.DuckDBPyRelation, engine: str, progress: bool,
                    args: _Roles) -> Counts:
    """Count a DuckDB relation with DuckDB."""
    if engine not in ("auto", "duckdb"):
        raise PredictionFileError(f"a DuckDB relation is counted by DuckDB; got engine={engine!r}")
    spec = _spec("relation", relation.columns, **args)
    con = _connect()
    return _duckdb_count(spec, relation, relation.columns, con, progress,
                         lambda exc: _duckdb_error("relation", "relation", exc, []))


def _count_spark_frame(df: SparkDataFrame, engine: str, args: _Roles) -> Counts:
    """Count a Spark DataFrame with Spark."""
    if engine not in ("auto", "spark"):
        raise PredictionFileError(f"a Spark DataFrame is counted by Spark; got engine={engine!r}")
    return _spark_count(_spec("Spark DataFrame", df.columns, **args), df, df.columns)


def _count_frame(frame: pd.DataFrame, engine: str, progress: bool, args: _Roles) -> Counts:
    """Count a pandas DataFrame with numpy (the default) or DuckDB."""
    spec = _spec("DataFrame", frame.columns, **args)
    frame = frame.rename(columns=str)
    if engine in ("auto", "numpy"):
        if len(frame) == 0:
            raise spec.fail("no rows")
        return _numpy_count(spec, frame)
    if engine == "duckdb":
        con = _connect()
        rel = con.from_df(frame)
        return _duckdb_count(spec, rel, list(frame.columns), con, progress,
                             lambda exc: _duckdb_error("DataFrame", "DataFrame", exc, []))
    raise PredictionFileError("engine='spark' counts Spark DataFrames and files; pass a Spark "
                              "DataFrame (spark.createDataFrame) or a path")


def _count_path(path: str | os.PathLike, engine: str, progress: bool, args: _Roles,
                common_models: bool = False) -> Counts:
    """Count a CSV or Parquet file (or a glob of Parquet files) with DuckDB, Spark or numpy."""
    kind, files, name, matched = _describe_path(path)
    left_out: list[str] = []
    if kind == "parquet" and len(files) > 1:
        # the truth, the id, repeat and fold columns and the models asked for must be in every
        # file; with common_models, a model column some files lack is left out
        needed = {args["y_true"], *(args["models"] or ()), "id", "repeat", "fold", "model",
                  "y_pred", *(c for c in (args["id"], args["repeat"], args["fold"]) if c)}
        columns, left_out = _parquet_columns(files, name, lambda c: c not in needed, common_models)
    else:
        columns = _file_columns(kind, files, name)
    spec = _spec(name, columns, **args)
    if left_out:
        shown = ", ".join(repr(c) for c in left_out)
        spec.notes.insert(0, f"{'columns' if len(left_out) > 1 else 'column'} {shown} "
                             f"{'are' if len(left_out) > 1 else 'is'} not in every file and left "
                             "out, as asked: only the models every file holds are compared")
    if matched:
        spec.notes.insert(0, matched)
    spec.text_numbers = kind == "csv"
    spec.rows_are_lines = kind == "csv" and len(files) == 1
    if engine == "numpy":
        return _numpy_count(spec, _read_frame(kind, files, spec, name, columns))
    if engine == "spark":
        try:
            spark = spark_session()
        except RuntimeError as exc:
            raise PredictionFileError(f"{name}: {exc}") from None
        with _literal_files(files, name, own_paths=is_spark_connect(spark)) as links:
            try:
                df = _spark_read(spark, kind, links)
                if kind == "parquet":
                    df = _spark_keep(df, columns)
            except PredictionFileError:
                raise
            except Exception as exc:  # a Spark (JVM) error while opening the files
                let_go_if_server_gone(spark, exc)
                raise _spark_error(name, exc, links) from None
            return _spark_count(spec, df, columns, links)
    con = _connect()
    with _literal_files(files, name) as links:
        try:
            rel = _duckdb_source(con, kind, links, columns)
            if kind == "parquet":
                rel = _duckdb_keep(rel, columns)
        except PredictionFileError:
            raise
        except Exception as exc:  # duckdb.Error while opening the file
            raise _duckdb_error(name, kind, exc, links) from None
        return _duckdb_count(spec, rel, columns, con, progress,
                             lambda exc: _duckdb_error(name, kind, exc, links))


def _spark_read(spark: SparkSession, kind: str, files: list[str]) -> SparkDataFrame:
    """Open the files as a Spark DataFrame (every CSV cell as text, like DuckDB's reader)."""
    reader = spark.read
    if kind == "csv":
        return reader.options(header=True, inferSchema=False,
                              sep=_delimiter(files[0]),
                              quote='"', escape='"', nullValue="", multiLine=True,
                              mode="FAILFAST").csv(files)
    return reader.parquet(*files)


def _read_frame(kind: str, files: list[str], spec: _Spec, name: str,
                columns: list[str]) -> pd.DataFrame:
    """Read the needed columns of a file into memory for the numpy engine (text for CSV).

    CSV columns are taken by position under the names of :func:`_csv_header` (the header as
    the other engines see it: no byte-order mark, names stripped).
    """
    cols = [c for c in dict.fromkeys([spec.id, spec.repeat, spec.fold, spec.y,
                                      *(spec.models if spec.layout == "wide"
                                        else [spec.model_col, spec.pred_col])]) if c]
    try:
        if kind == "csv":
            position = {c: i for i, c in enumerate(columns)}
            # every column is read (index_col=False): a row with more fields than the header is
            # an error, as in the other engines, not a shifted row
            frame = pd.read_csv(files[0], header=0, names=[f"c{i}" for i in range(len(columns))],
                                index_col=False, dtype=str, keep_default_na=False,
                                na_values=[""], sep=_delimiter(files[0]))
            return frame[[f"c{position[c]}" for c in cols]].set_axis(cols, axis=1)
        return pd.concat([pd.read_parquet(f, columns=cols) for f in files], ignore_index=True)
    except Exception as exc:  # any parser failure is a file problem for the user
        raise PredictionFileError(f"{name}: cannot be read as {kind.upper()} "
                                  f"({type(exc).__name__})") from None


# --------------------------------------------------------------------------------------------
# file access for other readers of long tables (the evaluation-item engines)
# --------------------------------------------------------------------------------------------


def describe_path(path: str | os.PathLike) -> tuple[str, list[str], str, str | None]:
    """Check a path argument and say how to read it.

    Parameters
    ----------
    path : str or PathLike
        A CSV or Parquet file, or a pattern of Parquet files (see :func:`resolve_path`).

    Returns
    -------
    kind : {"csv", "parquet"}
    files : list of str
    name : str
        How messages name the source (the file name, or the pattern).
    note : str or None
        For a pattern, which files it matched.

    Raises
    ------
    PredictionFileError
        For a missing, empty, unreadable or unknown file, or a pattern matching nothing.
    """
    return _describe_path(path)


def file_columns(kind: str, files: list[str], name: str) -> list[str]:
    """Return the column names of a CSV header or a Parquet schema, in file order.

    Parameters
    ----------
    kind : {"csv", "parquet"}
    files : list of str
    name : str
        The source's name, for messages.

    Returns
    -------
    list of str
    """
    return _file_columns(kind, files, name)


def plain_links(files: list[str], name: str,
                spark: Any = None) -> contextlib.AbstractContextManager[list[str]]:
    """Give DuckDB and Spark plain names for the files while the block runs.

    Parameters
    ----------
    files : list of str
    name : str
        The source's name, for messages.
    spark : SparkSession, optional
        The Spark session that will read them. For a Spark Connect server the files' own
        absolute paths are kept when they hold no pattern character (the server may be
        elsewhere, seeing the same paths on a shared file system, but not this machine's
        private folder of links).

    Returns
    -------
    context manager yielding list of str
        Paths or links whose names hold no character a file reader takes as a pattern.
    """
    return _literal_files(files, name, own_paths=is_spark_connect(spark))


def duckdb_connection() -> duckdb.DuckDBPyConnection:
    """Open a DuckDB connection with the engines' memory limit and a private spill folder.

    Returns
    -------
    duckdb.DuckDBPyConnection
    """
    return _connect()


def duckdb_table(con: duckdb.DuckDBPyConnection, kind: str, files: list[str],
                 columns: list[str], name: str) -> duckdb.DuckDBPyRelation:
    """Open files as a DuckDB relation (every CSV cell as text).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
    kind : {"csv", "parquet"}
    files : list of str
        Plain names (see :func:`plain_links`).
    columns : list of str
        The file's columns (see :func:`file_columns`).
    name : str
        The source's name, for messages.

    Returns
    -------
    duckdb.DuckDBPyRelation

    Raises
    ------
    PredictionFileError
        When DuckDB cannot open the files.
    """
    try:
        return _duckdb_source(con, kind, files, columns)
    except Exception as exc:  # duckdb.Error while opening the file
        raise _duckdb_error(name, kind, exc, files) from None


def duckdb_file_error(name: str, kind: str, exc: Exception, files: list[str]) -> PredictionFileError:
    """Turn a DuckDB failure while reading files into one line naming the source.

    Parameters
    ----------
    name, kind : str
        The source's name and kind.
    exc : Exception
        DuckDB's error.
    files : list of str
        Paths to replace by ``name`` in the message.

    Returns
    -------
    PredictionFileError
    """
    return _duckdb_error(name, kind, exc, files)


def spark_table(spark: SparkSession, kind: str, files: list[str]) -> SparkDataFrame:
    """Open files as a Spark DataFrame (every CSV cell as text, as DuckDB reads them).

    Parameters
    ----------
    spark : SparkSession
    kind : {"csv", "parquet"}
    files : list of str
        Plain names (see :func:`plain_links`).

    Returns
    -------
    pyspark.sql.DataFrame
    """
    return _spark_read(spark, kind, files)


def read_columns(kind: str, files: list[str], columns: list[str], name: str) -> pd.DataFrame:
    """Read some columns of the files into memory (CSV cells as text, empty cells missing).

    Parameters
    ----------
    kind : {"csv", "parquet"}
    files : list of str
    columns : list of str
    name : str
        The source's name, for messages.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    PredictionFileError
        When the files cannot be parsed.
    """
    try:
        if kind == "csv":
            return pd.read_csv(files[0], usecols=columns, dtype=str, keep_default_na=False,
                               na_values=[""], sep=_delimiter(files[0]))
        return pd.concat([pd.read_parquet(f, columns=columns) for f in files], ignore_index=True)
    except Exception as exc:  # any parser failure is a file problem for the user
        raise PredictionFileError(f"{name}: cannot be read as {kind.upper()} "
                                  f"({type(exc).__name__})") from None
