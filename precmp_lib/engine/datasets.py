"""Results across data sets read where they live: one score per data set and model.

A results table says how well each model did on each data set (an accuracy, an error, a loss).
It comes in two layouts:

wide
    one row per data set: a data-set column and one numeric column per model;
long
    one row per data set and model: ``dataset``, ``model``, ``score``, and optionally
    ``repeat`` and ``fold`` (then one row per data set, model, repeat and fold: the scores of
    each cross-validation fold).

:func:`count_datasets` reads it with numpy (a pandas DataFrame in memory), DuckDB (CSV or
Parquet files, a DataFrame or a relation) or Spark (the dispatcher,
:mod:`precmp_lib.engine.dispatch`, picks the engine and opens the source for the counters this
module registers). The table is its own sufficient statistic (N data sets x k models, times the
folds when there are folds): each engine selects the columns it needs, by position under fixed
names (:func:`~precmp_lib.engine.sql.roles_sql`; no name from the source is part of a query),
and returns them; the checks below run on what came back, the same for every engine. A data
set missing a model, a score given twice, a cell that is not a number, NaN or infinity is
refused in one line naming the data set, the model and the value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .base import PredictionFileError
from .dispatch import Counters, Opened, Source, count, register
from .duckdb_engine import ITEM_DUCKDB_MEMORY
from .sql import roles_sql

__all__ = ["DATASET_NAMES", "DatasetFileError", "DatasetScores", "count_datasets",
           "looks_like_datasets"]

# Column names taken as the data-set column when none is named (compared in lower case, with
# spaces, dashes and underscores removed)
DATASET_NAMES = ("dataset", "datasets", "dataname", "problem", "task", "benchmark")
LAYOUTS = ("auto", "wide", "long")
# Fixed names of the columns the SQL engines select (never a name from the source)
_FIXED = {"dataset": "k_dataset", "model": "k_model", "score": "k_score", "repeat": "k_repeat",
          "fold": "k_fold"}


class DatasetFileError(PredictionFileError):
    """A results table that cannot be compared: the message names the data set and the model.

    A subclass of ``ValueError``.

    >>> str(DatasetFileError("results.csv: data set 'iris' has no score of model 'nb'"))
    "results.csv: data set 'iris' has no score of model 'nb'"
    """


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.lower())


def looks_like_datasets(name: str) -> bool:
    """Whether a column name says it holds data sets (``dataset``, ``data_set``, ``Data set``).

    >>> looks_like_datasets("Data set"), looks_like_datasets("question")
    (True, False)
    """
    return _key(str(name)) in DATASET_NAMES


@dataclass(frozen=True)
class DatasetScores:
    """The scores read from a results table: one row per data set and model (and fold).

    Attributes
    ----------
    scores : DataFrame
        ``dataset``, ``model``, ``score`` (float), and ``repeat`` and ``fold`` (text) when the
        table has per-fold scores; in the order of the table.
    models : list of str
        The models, in the order of the table (or of ``models=``).
    datasets : list of str
        The data sets compared, in the order of the table.
    dropped : list of str
        Data sets left out because some model has no score on them (``common_datasets``).
    layout : {"wide", "long"}
    source, engine : str
        What was read, and who read it.
    n_rows : int
        Rows read.
    folds : bool
        Whether the scores are per fold (a ``repeat`` or ``fold`` column).
    notes : list of str
    """

    scores: pd.DataFrame
    models: list[str]
    datasets: list[str]
    layout: str
    source: str
    engine: str
    n_rows: int
    folds: bool = False
    dropped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def matrix(self) -> pd.DataFrame:
        """Return the N x k table of scores (the mean over folds with per-fold scores).

        Returns
        -------
        DataFrame
            Indexed by data set (in the table's order), one column per model.
        """
        table = self.scores.groupby(["dataset", "model"], sort=False)["score"].mean().unstack()
        return table.loc[self.datasets, self.models]


@dataclass
class _Request:
    """What to read: the columns of each role, decided from the source's columns."""

    name: str
    dataset: str
    layout: str
    models: list[str]  # wide: the model columns; long: the models to keep (empty: all)
    model: str = ""
    score: str = ""
    repeat: str = ""
    fold: str = ""
    common: bool = False
    notes: list[str] = field(default_factory=list)

    def fail(self, message: str) -> DatasetFileError:
        return DatasetFileError(f"{self.name}: {message}")

    def roles(self) -> list[tuple[str, str]]:
        """Each fixed name with the source column it reads (wide: k_p0, k_p1, ... per model)."""
        out = [(_FIXED["dataset"], self.dataset)]
        if self.layout == "long":
            out += [(_FIXED["model"], self.model), (_FIXED["score"], self.score)]
        else:
            out += [(f"k_p{j}", m) for j, m in enumerate(self.models)]
        out += [(_FIXED[r], getattr(self, r)) for r in ("repeat", "fold") if getattr(self, r)]
        return out


def _shown(columns: Sequence[str]) -> str:
    return ", ".join(str(c) for c in columns[:20]) + (" ..." if len(columns) > 20 else "")


def _find_dataset(name: str, columns: list[str], dataset: str | None) -> str:
    if dataset is not None:
        if dataset not in columns:
            raise DatasetFileError(f"{name}: column {dataset!r} (the data sets, --dataset) is "
                                   f"missing; columns are: {_shown(columns)}")
        return dataset
    found = [c for c in columns if looks_like_datasets(c)]
    if not found:
        raise DatasetFileError(f"{name}: no column names the data sets (such as 'dataset'); "
                               f"name it with --dataset COL; columns are: {_shown(columns)}")
    return found[0]


def _request(name: str, columns: list[str], *, dataset: str | None, model: str, score: str,
             models: Sequence[str] | None, layout: str, common: bool) -> _Request:
    """Check the columns against the roles, before any row is read."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}; got {layout!r}")
    seen: set[str] = set()
    for c in columns:
        if c in seen:
            raise DatasetFileError(f"{name}: column {c!r} is named twice; give each model its "
                                   "own name")
        seen.add(c)
    ds = _find_dataset(name, columns, dataset)
    long = layout == "long" or (layout == "auto" and model in columns and score in columns)
    keys = {r: r for r in ("repeat", "fold") if r in columns and r != ds}
    req = _Request(name, ds, "long" if long else "wide", [], common=common,
                   repeat=keys.get("repeat", ""), fold=keys.get("fold", ""))
    if long:
        for col, what in ((model, "model names, --model-column"), (score, "scores, --score")):
            if col not in columns:
                raise req.fail(f"column {col!r} ({what}) is missing; columns are: "
                               f"{_shown(columns)}")
        req.model, req.score = model, score
        req.models = [str(m) for m in models or []]
        return req
    taken = {ds, *keys.values()}
    if models:
        missing = [m for m in models if m not in columns]
        if missing:
            raise req.fail(f"model column {missing[0]!r} is missing; columns are: "
                           f"{_shown(columns)}")
        req.models = [str(m) for m in models]
    else:
        req.models = [c for c in columns if c not in taken]
    return req


# --------------------------------------------------------------------------------------------
# the checks, on what an engine returned (the same for every engine)
# --------------------------------------------------------------------------------------------


def _text(values: pd.Series) -> pd.Series:
    """Names as text: a whole-number float (1.0, read from a column with a gap) as '1'."""
    def one(v: Any) -> Any:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        if isinstance(v, bytes | bytearray):
            return bytes(v).decode("utf-8", "replace")
        return str(v)

    return values.map(one).astype(object)


def _numbers(req: _Request, frame: pd.DataFrame, column: str, model: pd.Series) -> np.ndarray:
    """Read a column of scores as floats; refuse a cell that is not a finite number."""
    raw = frame[column]
    if pd.api.types.is_bool_dtype(raw):
        raise req.fail(f"the scores of model {model.iloc[0]!r} are true/false, not numbers")
    if pd.api.types.is_numeric_dtype(raw):
        values = raw.to_numpy(dtype=float, na_value=np.nan)
        empty = pd.isna(raw).to_numpy()
    else:
        text = raw.astype(object).map(lambda v: v.strip() if isinstance(v, str) else v)
        empty = (text.isna() | (text == "")).to_numpy()
        values = pd.to_numeric(text.where(~empty, None), errors="coerce").to_numpy(dtype=float)
        said_nan = text.astype(str).str.lower().isin(["nan", "+nan", "-nan"]).to_numpy()
        bad = np.isnan(values) & ~empty & ~said_nan
        if bad.any():
            i = int(np.argmax(bad))
            raise req.fail(f"data set {frame['dataset'].iloc[i]!r}, model {model.iloc[i]!r}: "
                           f"score {text.iloc[i]!r} is not a number")
    if not np.isfinite(values).all():
        i = int(np.argmax(~np.isfinite(values)))
        shown = "missing" if empty[i] else f"{values[i]}"
        raise req.fail(f"data set {frame['dataset'].iloc[i]!r}, model {model.iloc[i]!r}: "
                       f"score is {shown}; every score must be a finite number")
    return values


def _long_frame(req: _Request, frame: pd.DataFrame) -> pd.DataFrame:
    """Turn what the engine returned (fixed names) into ``dataset, model, score[, repeat, fold]``."""
    out = pd.DataFrame({"dataset": _text(frame[_FIXED["dataset"]])})
    keys = [r for r in ("repeat", "fold") if getattr(req, r)]
    for r in keys:
        out[r] = _text(frame[_FIXED[r]]).fillna("")
    if out["dataset"].isna().any():
        i = int(np.argmax(out["dataset"].isna().to_numpy()))
        raise req.fail(f"row {i + 1} has no data-set name (column {req.dataset!r})")
    if req.layout == "long":
        out["model"] = _text(frame[_FIXED["model"]])
        if out["model"].isna().any():
            raise req.fail(f"data set {out['dataset'][out['model'].isna()].iloc[0]!r} has a "
                           f"row without a model name (column {req.model!r})")
        out["score"] = _numbers(req, out.assign(raw=frame[_FIXED["score"]].to_numpy()), "raw",
                                out["model"])
        if req.models:
            unknown = [m for m in req.models if m not in set(out["model"])]
            if unknown:
                raise req.fail(f"model {unknown[0]!r} (--models) is not in column "
                               f"{req.model!r}")
            out = out[out["model"].isin(req.models)]
        return out.reset_index(drop=True)
    parts = []
    for j, m in enumerate(req.models):
        names = pd.Series([m] * len(out), dtype=object)
        part = out.assign(model=names.to_numpy(), raw=frame[f"k_p{j}"].to_numpy())
        part["score"] = _numbers(req, part, "raw", names)
        parts.append(part.drop(columns=["raw"]))
    return pd.concat(parts, ignore_index=True)[["dataset", *keys, "model", "score"]
                                               if keys else ["dataset", "model", "score"]]


def _check_table(req: _Request, scores: pd.DataFrame) -> tuple[pd.DataFrame, list[str], list[str],
                                                                list[str]]:
    """Refuse a score given twice and a data set missing a model (or drop it, ``common``)."""
    keys = ["dataset", "model"] + [r for r in ("repeat", "fold") if getattr(req, r)]
    twice = scores.duplicated(keys)
    if twice.any():
        row = scores[twice].iloc[0]
        where = "".join(f", {r} {row[r]!r}" for r in keys[2:])
        what = ("is named twice (two rows or columns)" if req.layout == "wide" and len(keys) == 2
                else "has two scores")
        hint = "" if len(keys) > 2 else "; per-fold scores need repeat and fold columns"
        raise req.fail(f"data set {row['dataset']!r}{where}: model {row['model']!r} {what}{hint}"
                       if req.layout == "long" else
                       f"data set {row['dataset']!r} {what}{where}; give each data set one row")
    models = list(dict.fromkeys(req.models if req.layout == "wide" and req.models
                                else scores["model"]))
    datasets = list(dict.fromkeys(scores["dataset"]))
    per = scores.groupby(keys[:1] + keys[2:], sort=False)["model"].nunique()
    incomplete = per[per < len(models)]
    dropped: list[str] = []
    if len(incomplete):
        bad = incomplete.index.get_level_values(0) if isinstance(incomplete.index, pd.MultiIndex) \
            else incomplete.index
        if not req.common:
            ds = bad[0]
            have = set(scores.loc[scores["dataset"] == ds, "model"])
            lost = [m for m in models if m not in have] or models[-1:]
            raise req.fail(f"data set {ds!r} has no score of model {lost[0]!r}; compare on the "
                           "data sets every model was scored on with --common-datasets")
        dropped = list(dict.fromkeys(str(d) for d in bad))
        scores = scores[~scores["dataset"].isin(dropped)]
        datasets = [d for d in datasets if d not in dropped]
    return scores.reset_index(drop=True), models, datasets, dropped


def _finish(req: _Request, frame: pd.DataFrame, source: Opened) -> DatasetScores:
    scores = _long_frame(req, frame)
    scores, models, datasets, dropped = _check_table(req, scores)
    return DatasetScores(scores=scores, models=models, datasets=datasets, layout=req.layout,
                         source=source.name, engine=source.engine, n_rows=len(frame),
                         folds=bool(req.repeat or req.fold), dropped=dropped,
                         notes=list(req.notes))


# --------------------------------------------------------------------------------------------
# the route's counters
# --------------------------------------------------------------------------------------------


def _dataset_request(source: Source, args: dict[str, Any]) -> _Request:
    req = _request(source.name, source.columns, **args)
    if source.matched:
        req.notes.append(source.matched)
    return req


def _reads(req: _Request) -> list[str]:
    return list(dict.fromkeys(c for _, c in req.roles()))


def _numpy_counter(source: Opened, req: _Request) -> DatasetScores:
    frame = source.data
    return _finish(req, pd.DataFrame({fixed: frame[col].to_numpy() for fixed, col in req.roles()}),
                   source)


def _duckdb_counter(source: Opened, req: _Request) -> DatasetScores:
    try:
        frame = source.data.query("src", roles_sql(req.roles(), source.columns, "src")).df()
    except Exception as exc:  # duckdb.Error: a parse failure of the user's file
        raise source.duckdb_failure(exc) from None
    return _finish(req, frame, source)


def _spark_counter(source: Opened, req: _Request) -> DatasetScores:
    import uuid

    spark = source.spark
    assert spark is not None  # the dispatcher's session
    view = f"precmp_results_{uuid.uuid4().hex}"
    source.data.createOrReplaceTempView(view)
    try:
        sdf = spark.sql(roles_sql(req.roles(), source.columns, view))
        rows = sdf.collect()
        frame = pd.DataFrame([r.asDict() for r in rows], columns=sdf.columns)
    except Exception as exc:  # a Spark failure reading the file
        if not source.files:
            raise
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise req.fail(f"cannot be read as {source.kind.upper()} ({first})") from None
    finally:
        spark.catalog.dropTempView(view)
    return _finish(req, frame, source)


register(Counters("datasets", request=_dataset_request, reads=_reads, numpy=_numpy_counter,
                  duckdb=_duckdb_counter, spark=_spark_counter, error=DatasetFileError,
                  memory=ITEM_DUCKDB_MEMORY))


def count_datasets(
    source: Any,
    *,
    dataset: str | None = None,
    model: str = "model",
    score: str = "score",
    models: Sequence[str] | None = None,
    layout: str = "auto",
    common_datasets: bool = False,
    engine: str = "auto",
) -> DatasetScores:
    """Read a results table (scores of models on data sets) once, where it lives.

    Parameters
    ----------
    source : DataFrame, mapping of arrays, path, glob, DuckDB relation or Spark DataFrame
        Wide (a data-set column and one numeric column per model) or long (``dataset``,
        ``model``, ``score``, optionally ``repeat`` and ``fold``). A CSV is read as text and
        its scores parsed here, the same for every engine.
    dataset : str, optional
        The data-set column (default: the column named ``dataset``, ``data_set``, ``Data set``,
        ``problem``, ``task`` or ``benchmark``).
    model, score : str
        Long tables: the model and score columns.
    models : sequence of str, optional
        Wide: the model columns (default: every column but the data set, repeat and fold);
        long: the models to keep.
    layout : {"auto", "wide", "long"}
        ``"auto"``: long when the table has the ``model`` and ``score`` columns.
    common_datasets : bool
        Keep only the data sets every model was scored on; the others are listed in
        :attr:`DatasetScores.dropped`. Without it, a missing score is an error.
    engine : {"auto", "numpy", "duckdb", "spark"}

    Returns
    -------
    DatasetScores

    Raises
    ------
    DatasetFileError
        (a ValueError) naming the source, the data set and the model: a data-set column that
        cannot be found, a score that is not a finite number, a score given twice, a data set
        without a score of some model.

    Examples
    --------
    >>> wide = pd.DataFrame({"dataset": ["iris", "wine", "digits"], "rf": [0.95, 0.97, 0.97],
    ...                      "nb": [0.95, 0.97, 0.81]})
    >>> read = count_datasets(wide)
    >>> read.layout, read.models, read.matrix().loc["digits"].tolist()
    ('wide', ['rf', 'nb'], [0.97, 0.81])
    >>> count_datasets(wide.assign(nb=["0.9", "n/a", "0.8"]))
    Traceback (most recent call last):
        ...
    precmp_lib.engine.datasets.DatasetFileError: DataFrame: data set 'wine', model 'nb': score 'n/a' is not a number
    """
    if isinstance(models, str) or not (models is None or isinstance(models, Sequence)):
        raise TypeError(f"models must be a list of model names; got {models!r:.60}")
    args = {"dataset": dataset, "model": model, "score": score, "models": models,
            "layout": layout, "common": common_datasets}
    return count("datasets", source, args, engine=engine)
