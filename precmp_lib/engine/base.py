"""Requests of the counting engine: which columns play which part.

Every engine (numpy, DuckDB, Spark) answers a :class:`~precmp_lib.core.predictions.Counts`
for the same request; the request (:class:`_Spec`) names the columns of the truth, the models,
and the keys of a cross-validated design, and is checked against the source's columns before
anything is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

from .._lib.limits import check_limit

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    pass


__all__ = ['PredictionFileError']


TEST_SET = "test set"
REPEATED_CV = "repeated cv"
CSV_SUFFIXES = (".csv", ".txt", ".tsv", ".csv.gz", ".tsv.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
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

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import count_predictions
    >>> try:
    ...     count_predictions(pd.DataFrame({"y": [0, 1], "m": [0, 1]}), y_true="truth")
    ... except PredictionFileError as err:
    ...     print(err)
    DataFrame: column 'truth' (true labels, y_true) is missing; columns are: y, m
    """


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
    unused: str | None = None  # a 'fold' column read as nothing (wide, no repeat and no id)
    one_repeat: bool = False  # plain k-fold: a fold column and no repeat column
    model_col: str = "model"
    pred_col: str = "y_pred"
    text_numbers: bool = False  # CSV: all cells are text; numbers are recognised
    rows_are_lines: bool = False  # CSV: row r is on line r + 2
    keep_observations: bool = False  # repeated cv: bring the per-observation table back
    profile_labels: tuple | None = None  # repeated cv: the classes to profile observations on
    notes: list[str] = field(default_factory=list)

    @property
    def cv(self) -> bool:
        return self.repeat is not None or self.one_repeat

    @property
    def repeat_key(self) -> list[str]:
        """The repeat column as a key of its own: none for one repeat (plain k-fold)."""
        return [self.repeat] if self.repeat is not None else []

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
    model_column: str
    pred_column: str


def _spec(
    name: str, columns: Sequence[Any], *, y_true: str, models: Sequence[str] | None,
    id: str | None, repeat: str | None, fold: str | None, layout: str,
    observations: bool = False, prevalence_classes: Sequence[Any] | None = None,
    model_column: str = "model", pred_column: str = "y_pred",
) -> _Spec:
    """Check the columns and decide the layout and the role of each column (one place)."""
    columns = [str(c) for c in columns]
    check_limit("columns", len(columns), name, PredictionFileError)
    _check_columns(name, columns)
    for value, arg in ((model_column, "model_column"), (pred_column, "pred_column")):
        if not isinstance(value, str) or not value:
            raise TypeError(f"{arg} must be a column name; got {value!r}")
    spec = _Spec(name=name, layout=_layout(columns, layout, model_column, pred_column),
                 y=str(y_true), models=[], keep_observations=bool(observations),
                 profile_labels=None if prevalence_classes is None else tuple(prevalence_classes),
                 model_col=model_column, pred_col=pred_column)
    _need(spec, columns, spec.y, "true labels", "y_true")
    _key_columns(spec, columns, id=id, repeat=repeat, fold=fold)
    if spec.layout == "long":
        _long_columns(spec, columns, models)
    else:
        _wide_columns(spec, columns, models)
    return spec


def _layout(columns: list[str], layout: str, model_column: str = "model",
            pred_column: str = "y_pred") -> str:
    """Check ``layout``; for ``"auto"``, long when the table has the model and prediction columns.

    A model or prediction column named other than ``model`` and ``y_pred`` asks for the long
    layout: ``"auto"`` is then long (and a missing column is named by :func:`_long_columns`).

    >>> _layout(["id", "y", "model", "y_pred"], "auto"), _layout(["y", "a", "b"], "auto")
    ('long', 'wide')
    >>> _layout(["id", "y", "clf", "label"], "auto", "clf", "label")
    'long'
    """
    if layout not in ("auto", "wide", "long"):
        raise PredictionFileError(f"layout must be 'auto', 'wide' or 'long'; got {layout!r}")
    if layout == "auto":
        named = (model_column, pred_column) != ("model", "y_pred")
        return "long" if named or {model_column, pred_column} <= set(columns) else "wide"
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
    if spec.repeat is None and spec.fold is not None:
        # plain k-fold: cross-validation with one repeat when each row's observation is known
        # (a long file always has an id; a wide file needs one)
        if spec.layout == "long" or id is not None:
            spec.one_repeat = True
        elif fold is not None:
            raise spec.fail(f"column {fold!r} (fold) needs an observation id column (k-fold "
                            "cross-validation); pass id")
        else:  # never a model, and never dropped unsaid
            spec.notes.append(f"column {spec.fold!r} is not used: without an 'id' column the "
                              "rows are read as one test set (pooled out-of-fold predictions, "
                              "each from a model trained on other folds); add an 'id' column "
                              "(or pass --id) to read them as k-fold cross-validation")
            spec.unused = spec.fold
            spec.fold = None
    for col, what in [(id, "observation id"), (spec.repeat, "repeat"), (spec.fold, "fold")]:
        if col is not None:
            _need(spec, columns, col, what)
    spec.id = id


def _long_columns(spec: _Spec, columns: list[str], models: Sequence[str] | None) -> None:
    """Long layout: the id (``id`` by default), model-name and prediction columns must exist."""
    spec.id = spec.id or "id"
    _need(spec, columns, spec.id, "observation id")
    _need(spec, columns, spec.model_col, "model name", "model_column")
    _need(spec, columns, spec.pred_col, "predictions", "pred_column")
    spec.models = [str(m) for m in models] if models is not None else []


def _wide_columns(spec: _Spec, columns: list[str], models: Sequence[str] | None) -> None:
    """Wide layout: the model columns (by default every column with no other role)."""
    if spec.repeat is not None and spec.id is None:
        raise spec.fail(f"column {spec.repeat!r} (repeat) needs an observation id column; pass id")
    skip = {spec.y, spec.id, spec.repeat, spec.fold, spec.unused}
    names = [str(m) for m in models] if models is not None else [c for c in columns if c not in skip]
    check_limit("models", len(names), spec.name, PredictionFileError)
    have = set(columns)
    missing = next((m for m in names if m not in have), None)
    if missing is not None:
        _need(spec, columns, missing, "model predictions", "models")
    if not names:
        raise spec.fail("no model columns besides the truth; pass models")
    _check_model_names(spec, names)
    spec.models = names


def _check_model_names(spec: _Spec, names: Sequence[str]) -> None:
    """Refuse a model named twice, and a model that is the truth or a key column itself."""
    seen: set[str] = set()
    for m in names:
        if m in seen:
            raise spec.fail(f"models names {m!r} twice; name each model once")
        seen.add(m)
        if m in (spec.y, spec.id, spec.repeat, spec.fold):
            role = "the true labels" if m == spec.y else "a key column (id, repeat or fold)"
            raise spec.fail(f"model {m!r} is {role}; a model is compared with the truth, "
                            "not with itself")


def _is_spark_frame(source: Any) -> bool:
    return type(source).__module__.startswith("pyspark.sql") and hasattr(source, "createOrReplaceTempView")


def _is_duckdb_relation(source: Any) -> bool:
    return "duckdb" in type(source).__module__ and hasattr(source, "query")


