"""Read files of predictions: wide or long, CSV or Parquet, checked column by column.

Every message names the file, the column and the problem.

*Wide*: one row per test observation, a column with the truth and one column per model.
*Long*: one row per (observation, model), columns ``id``, ``model``, ``y_true``, ``y_pred`` and,
for repeated cross-validation, ``repeat`` (and optionally ``fold``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.labels import EncodedLabels
from ..core.predictions import Counts
from ..engine.base import PredictionFileError
from ..engine.dictionary import label_dictionary
from ..engine.predictions import count_predictions

__all__ = ["PredictionFileError", "Predictions", "read_predictions"]


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
    format : str
        The file's layout, ``"wide"`` or ``"long"``.
    notes : tuple of str
        Remarks found while reading (e.g. a model predicting a label the truth never has).

    Examples
    --------
    >>> from precmp_lib import read_predictions
    >>> from precmp_lib.sources.datasets import resource_path
    >>> p = read_predictions(resource_path("examples/digits_wide.csv"), y_true="digit",
    ...                      id_column="id")
    >>> p.format, sorted(p.codes), len(p.classes)
    ('wide', ['logistic', 'naive_bayes', 'random_forest', 'svm'], 10)
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
        """Model names, in the file's order."""
        return list(self.codes)

    @property
    def n_rows(self) -> int:
        """Rows (observations, or (observation, repetition) pairs)."""
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
        """Return the predictions as a wide DataFrame (``id`` if any, ``y_true``, a column per model)."""
        data = {"y_true": self.y_true, **self.preds}
        if self.groups is not None:
            data = {"id": self.groups, **data}
        return pd.DataFrame(data)


def _frame(path: Path, columns: list[str]) -> pd.DataFrame:
    """Read the checked file's needed columns (CSV as text, with only empty cells missing)."""
    if path.name.lower().endswith((".parquet", ".pq")):
        return pd.read_parquet(path, columns=columns)
    return pd.read_csv(path, usecols=columns, dtype=str, keep_default_na=False, na_values=[""])


def _codes(series: pd.Series, classes: tuple, text_numbers: bool) -> np.ndarray:
    """Code one label column on the class list the engine found (same label rules)."""
    inv, uniq = pd.factorize(series)
    numbers = text_numbers and not any(isinstance(c, str) for c in classes)
    own, codes, _ = label_dictionary({"c": np.asarray(uniq, dtype=object)}, text_numbers=numbers)
    index = {c: i for i, c in enumerate(classes)}
    return np.array([index[own[k]] for k in codes["c"]], dtype=np.int32)[inv]


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
    r"""Read and check a predictions file (CSV or Parquet, wide or long) into per-row codes.

    The file is checked by :func:`precmp_lib.engine.predictions.count_predictions` (numpy engine), so the
    label rules and messages are those of every engine; the rows are then coded on the class
    list it found. For comparisons, prefer ``count_predictions``/``compare_models``, which keep
    only counts; this reader is for course code that needs the rows.

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
        Observation id column (default: a column named ``id``).
    layout : {"wide", "long"}
        Wide: one row per observation, a column per model. Long: one row per (observation,
        model) with ``model`` and ``y_pred`` columns (and ``repeat`` for repeated
        cross-validation).
    model_column, pred_column, repeat_column : str
        Long format column names: the model, the predicted label and the repeat (a ``fold``
        column without a repeat column is k-fold cross-validation with one repeat).

    Returns
    -------
    Predictions
        Truth and predictions coded on the sorted class list; ``groups`` holds the observation
        ids of a long file with repetitions (else None).

    Raises
    ------
    PredictionFileError
        (a ValueError) naming the file, the column and the problem; also for a ``layout``
        other than ``"wide"``/``"long"``.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "preds.csv"
    >>> _ = p.write_text("y_true,lr,rf\ncat,cat,dog\ndog,dog,dog\n")
    >>> preds = read_predictions(p)
    >>> preds.models, preds.y_true.tolist(), preds.preds["rf"].tolist()
    (['lr', 'rf'], ['cat', 'dog'], ['dog', 'dog'])
    """
    if layout not in ("wide", "long"):
        raise PredictionFileError(f"layout must be 'wide' or 'long'; got {layout!r}")
    counts = count_predictions(path, y_true=y_true, models=models, id=id_column, layout=layout,
                               engine="numpy", model_column=model_column,
                               pred_column=pred_column,
                               repeat=None if repeat_column == "repeat" else repeat_column)
    path = Path(path)
    text_numbers = not path.name.lower().endswith((".parquet", ".pq"))
    if layout == "wide":
        y, coded, groups = _read_wide(path, counts, y_true, id_column, text_numbers)
    else:
        y, coded, groups = _read_long(path, counts, y_true, id_column, text_numbers,
                                      (model_column, pred_column, repeat_column))
    return Predictions(y, coded, np.asarray(counts.classes, dtype=object), groups=groups,
                       source=path.name, format=layout, notes=counts.notes)


_Coded = tuple[np.ndarray, dict[str, np.ndarray], np.ndarray | None]


def _read_wide(
    path: Path, counts: Counts, y_true: str, id_column: str | None, text_numbers: bool
) -> _Coded:
    """Code the truth and each model's column of a wide file; rows are observations."""
    names = list(counts.models)
    frame = _frame(path, [c for c in dict.fromkeys([id_column, y_true, *names]) if c])
    y = _codes(frame[y_true], counts.classes, text_numbers)
    coded = {m: _codes(frame[m], counts.classes, text_numbers) for m in names}
    return y, coded, None


def _read_long(
    path: Path, counts: Counts, y_true: str, id_column: str | None, text_numbers: bool,
    columns: tuple[str, str, str] = ("model", "y_pred", "repeat"),
) -> _Coded:
    """Pivot a long file to one row per (id, repeat) and code it; ids are the groups.

    ``columns`` names the model, prediction and repeat columns. With one repeat (plain k-fold,
    which may have no repeat column) each id is one row already.
    """
    model, pred, repeat = columns
    names = list(counts.models)
    ident = id_column or "id"
    key = [ident] + ([repeat] if counts.repeats and counts.repeats > 1 else [])
    frame = _frame(path, list(dict.fromkeys([ident, model, y_true, pred, *key[1:]])))
    frame = frame.assign(_m=frame[model].astype(str))
    frame = frame[frame["_m"].isin(names)].copy()
    frame["_y"] = _codes(frame[y_true], counts.classes, text_numbers)
    frame["_p"] = _codes(frame[pred], counts.classes, text_numbers)
    wide = frame.pivot(index=key, columns="_m", values="_p")
    truth = frame.drop_duplicates(key).set_index(key)["_y"].reindex(wide.index)
    y = truth.to_numpy().astype(np.int32)
    coded = {m: wide[m].to_numpy().astype(np.int32) for m in names}
    if not counts.repeats:
        return y, coded, None
    groups = np.asarray(wide.index.get_level_values(0))
    if text_numbers:
        try:  # ids written as numbers are numbers, as the engine orders them
            groups = pd.to_numeric(pd.Series(groups)).to_numpy()
        except ValueError:
            pass
    return y, coded, groups
