"""Reading files of predictions: wide or long, CSV or Parquet, checked with messages that name
the file, the column and the problem.

*Wide*: one row per test observation, a column with the truth and one column per model.
*Long*: one row per (observation, model), columns ``id``, ``model``, ``y_true``, ``y_pred`` and,
for repeated cross-validation, ``repeat`` (and optionally ``fold``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .validation import EncodedLabels, encode_labels

__all__ = ["PredictionFileError", "Predictions", "read_predictions"]


class PredictionFileError(ValueError):
    """A predictions file cannot be used; the message names the file, the column and the problem."""


@dataclass(frozen=True)
class Predictions:
    """Predictions of several models on the same observations, coded on one class list.

    Attributes
    ----------
    codes_true : ndarray of int
        Code of the true label per row (``classes[codes_true]`` are the labels).
    codes : dict name -> ndarray of int
        Code of each model's predicted label per row, aligned with ``codes_true``.
    classes : ndarray
        The labels, sorted.
    groups : ndarray or None
        Observation id per row when rows repeat an observation (repeated cross-validation);
        None when each row is its own observation.
    source : str
        The file name, for messages and reports.
    notes : tuple of str
        Remarks found while reading (e.g. a model predicting a label the truth never has).
    """

    codes_true: np.ndarray
    codes: dict[str, np.ndarray]
    classes: np.ndarray
    groups: np.ndarray | None = None
    source: str = ""
    format: str = "wide"
    notes: tuple[str, ...] = field(default=())

    @property
    def models(self) -> list[str]:
        return list(self.codes)

    @property
    def n_rows(self) -> int:
        return len(self.codes_true)

    @property
    def y_true(self) -> np.ndarray:
        """True labels per row."""
        return self.classes[self.codes_true]

    @property
    def preds(self) -> dict[str, np.ndarray]:
        """Predicted labels per model."""
        return {m: self.classes[c] for m, c in self.codes.items()}

    def encoded(self) -> EncodedLabels:
        """Truth and predictions as ``EncodedLabels`` (no re-encoding)."""
        return EncodedLabels(
            y=self.codes_true, preds=np.column_stack(list(self.codes.values())),
            classes=self.classes, names=tuple(self.codes),
        )

    def frame(self) -> pd.DataFrame:
        """The predictions as a wide DataFrame (``id`` if any, ``y_true``, one column per model)."""
        data = {"y_true": self.y_true, **self.preds}
        if self.groups is not None:
            data = {"id": self.groups, **data}
        return pd.DataFrame(data)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _fail(path: Path, message: str) -> PredictionFileError:
    return PredictionFileError(f"{path.name}: {message}")


def _columns_of(path: Path, fmt: str) -> list[str]:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    return list(pd.read_csv(path, nrows=0).columns)


def _read(path: Path, columns: Sequence[str], fmt: str) -> pd.DataFrame:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=list(columns))
        return table.to_pandas(strings_to_categorical=True)
    return pd.read_csv(path, usecols=list(columns), low_memory=False)


def _missing_error(path: Path, column: str, mask: np.ndarray) -> PredictionFileError:
    row = int(np.flatnonzero(mask)[0])
    where = f"line {row + 2}" if path.suffix.lower() == ".csv" else f"row {row}"
    return _fail(path, f"column {column!r} has a missing label ({where})")


def _encode_columns(
    frame: pd.DataFrame, columns: Sequence[str], path: Path
) -> tuple[list[np.ndarray], np.ndarray]:
    """Code several label columns on one sorted class list, without materialising strings.

    Integer columns take the O(n) look-up path of ``encode_labels``; text columns are coded
    through pandas categoricals (labels stripped of surrounding spaces) and remapped onto the
    union of their categories.
    """
    series = [frame[c] for c in columns]
    for c, s in zip(columns, series):
        mask = s.isna().to_numpy()
        if mask.any():
            raise _missing_error(path, c, mask)
    if all(s.dtype.kind in "iu" for s in series):
        enc = encode_labels(series[0].to_numpy(), {c: s.to_numpy() for c, s in zip(columns[1:], series[1:])})
        return [enc.y, *enc.preds.T], enc.classes
    cats = []
    for s in series:
        cat = s if isinstance(s.dtype, pd.CategoricalDtype) else s.astype("category")
        names = pd.Index(cat.cat.categories.astype(str).str.strip())
        cats.append((cat.cat.codes.to_numpy(), names))
    union = pd.Index(sorted(set().union(*(set(n) for _, n in cats))))
    try:  # sort numerically when every label is a number written as text
        union = pd.Index(sorted(union, key=float))
    except ValueError:
        pass
    codes = [union.get_indexer(names).astype(np.int32)[c] for c, names in cats]
    return codes, np.asarray(union, dtype=object)


def _check_overlap(
    path: Path, y: np.ndarray, coded: Mapping[str, np.ndarray], classes: np.ndarray
) -> tuple[str, ...]:
    k = len(classes)
    truth = np.bincount(y, minlength=k) > 0
    notes = []
    for name, c in coded.items():
        used = np.bincount(c, minlength=k) > 0
        if not np.any(used & truth):
            shown = ", ".join(str(v) for v in classes[used][:5])
            raise _fail(
                path,
                f"column {name!r}: none of its labels ({shown}) occurs in the truth column; "
                "is it the right column?",
            )
        extra = classes[used & ~truth]
        if len(extra):
            shown = ", ".join(str(v) for v in extra[:5])
            notes.append(f"model {name!r} predicts labels never seen in the truth: [{shown}]")
    return tuple(notes)


def read_predictions(
    path: str | os.PathLike,
    *,
    y_true: str = "y_true",
    models: Sequence[str] | None = None,
    id_column: str | None = None,
    layout: str = "wide",
    model_column: str = "model",
    pred_column: str = "y_pred",
    repeat_column: str = "repeat",
) -> Predictions:
    """Read and check a predictions file (CSV or Parquet, wide or long).

    Parameters
    ----------
    path : path
        ``.csv`` or ``.parquet`` (``.pq``) file.
    y_true : str
        Column with the true labels.
    models : sequence of str, optional
        Wide format: the model columns (default: every column but the truth and the id).
        Long format: which models to keep (default: all).
    id_column : str, optional
        Observation id column (long layout: default ``"id"``). In the wide layout, ids that
        repeat mark rows of the same observation (repeated cross-validation).
    layout : {"wide", "long"}
    model_column, pred_column, repeat_column : str
        Long format column names.

    Returns
    -------
    Predictions

    Raises
    ------
    PredictionFileError
        (a ValueError) naming the file, the column and the problem: a missing file or column, an
        empty or unreadable file, a missing label, a model whose labels never occur in the truth,
        duplicated (id, model) rows in a long table, an id with two different true labels.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "preds.csv"
    >>> _ = p.write_text("y_true,lr,rf\\ncat,cat,dog\\ndog,dog,dog\\n")
    >>> preds = read_predictions(p)
    >>> preds.models, preds.y_true.tolist(), preds.preds["rf"].tolist()
    (['lr', 'rf'], ['cat', 'dog'], ['dog', 'dog'])
    """
    path = Path(path)
    if layout not in ("wide", "long"):
        raise PredictionFileError(f"layout must be 'wide' or 'long'; got {layout!r}")
    if not path.is_file():
        raise PredictionFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        fmt = "parquet"
    elif suffix in (".csv", ".txt", ".gz"):
        fmt = "csv"
    else:
        raise _fail(path, f"unknown file type {suffix!r}; expected .csv or .parquet")
    if path.stat().st_size == 0:
        raise _fail(path, "the file is empty")
    try:
        columns = _columns_of(path, fmt)
    except Exception as exc:  # any parser failure is a file problem for the user
        raise _fail(path, f"cannot be read as {fmt.upper()} ({type(exc).__name__}: {exc})") from None
    columns = [str(c) for c in columns]

    def need(col: str, what: str) -> None:
        if col not in columns:
            shown = ", ".join(columns[:12]) + (" ..." if len(columns) > 12 else "")
            raise _fail(path, f"column {col!r} ({what}) is missing; columns are: {shown}")

    need(y_true, "true labels")
    if layout == "wide":
        if id_column is not None:
            need(id_column, "observation id")
        if models is None:
            models = [c for c in columns if c not in (y_true, id_column)]
        if not models:
            raise _fail(path, "no model columns besides the truth; pass --models")
        for m in models:
            need(m, "model predictions")
        frame = _read(path, [c for c in [id_column, y_true, *models] if c is not None], fmt)
        if len(frame) == 0:
            raise _fail(path, "the file has a header but no rows")
        codes, classes = _encode_columns(frame, [y_true, *models], path)
        coded = dict(zip(models, codes[1:]))
        notes = _check_overlap(path, codes[0], coded, classes)
        groups = None
        if id_column is not None:
            ids = frame[id_column].to_numpy()
            dup = pd.Index(ids).duplicated()
            if dup.any():
                groups = ids  # repeated rows of an observation: cluster on the id
        return Predictions(codes[0], coded, classes, groups=groups, source=path.name,
                           format="wide", notes=notes)

    id_column = id_column or "id"
    for col, what in [(id_column, "observation id"), (model_column, "model name"), (pred_column, "predictions")]:
        need(col, what)
    has_repeat = repeat_column in columns
    cols = [id_column, model_column, y_true, pred_column] + ([repeat_column] if has_repeat else [])
    frame = _read(path, cols, fmt)
    if len(frame) == 0:
        raise _fail(path, "the file has a header but no rows")
    frame[model_column] = frame[model_column].astype(str)
    if models is not None:
        unknown = sorted(set(models) - set(frame[model_column].unique()))
        if unknown:
            raise _fail(path, f"column {model_column!r} has no rows for model(s) {unknown}")
        frame = frame[frame[model_column].isin(list(models))]
    key = [id_column, model_column] + ([repeat_column] if has_repeat else [])
    dup = frame.duplicated(key)
    if dup.any():
        first = frame.loc[dup.to_numpy()].iloc[0]
        shown = ", ".join(f"{k}={_plain(first[k])!r}" for k in key)
        raise _fail(path, f"duplicated ({', '.join(key)}) rows, e.g. {shown}; each must appear once")
    (y_all, p_all), classes = _encode_columns(frame, [y_true, pred_column], path)
    frame = frame.assign(_y=y_all, _p=p_all)
    truth_per_id = frame.groupby(id_column, sort=False)["_y"].nunique()
    if (truth_per_id > 1).any():
        bad = truth_per_id.index[truth_per_id.to_numpy() > 1][0]
        raise _fail(path, f"column {y_true!r}: observation {id_column}={_plain(bad)!r} has more than one true label")
    row_key = [id_column] + ([repeat_column] if has_repeat else [])
    wide = frame.pivot(index=row_key, columns=model_column, values="_p")
    if wide.isna().any().any():
        missing = wide.columns[wide.isna().any().to_numpy()].tolist()
        raise _fail(path, f"column {model_column!r}: model(s) {missing} lack predictions for some observations")
    truth = frame.drop_duplicates(row_key).set_index(row_key)["_y"].reindex(wide.index)
    coded = {str(m): wide[m].to_numpy().astype(np.int32) for m in wide.columns}
    y = truth.to_numpy().astype(np.int32)
    notes = _check_overlap(path, y, coded, classes)
    ids = np.asarray(wide.index.get_level_values(0)) if has_repeat else None
    return Predictions(y, coded, classes, groups=ids, source=path.name, format="long", notes=notes)
