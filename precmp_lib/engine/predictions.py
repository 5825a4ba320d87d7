"""The predictions route's counting: every comparison of models starts from counts of prediction patterns.

One pass over the rows produces the sufficient statistics of a comparison of m models:

* ``patterns``: the number of rows with each observed pattern ``(y, p0, ..., p{m-1})`` of the
  true class code and the models' predicted class codes; for cross-validated predictions the
  same per ``(repeat, fold)``;
* ``clusters`` (cross-validated predictions only): the sums over observations of products of
  per-observation counts (:class:`~precmp_lib.core.clusters.ClusterSums`), which every statistic
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

Which engine reads which source, and how a file is opened for it, is the dispatcher's
(:mod:`precmp_lib.engine.dispatch`, the same for every route); this module registers the
route's request and its three counters with it.

DuckDB and Spark run the same SQL text (:mod:`precmp_lib.engine.sql`). Its first step
(:func:`~precmp_lib.engine.sql.roles_sql`) renames the source's columns by position and keeps
the ones the count reads under fixed names (``k_y``, ``k_p0`` ...); in the long layout the
engines' expression APIs then turn each model name into its index. The counting query
(:func:`~precmp_lib.engine.sql.counting_sql`, one GROUP BY, GROUPING SETS for
cross-validation) reads those fixed names, so no query text holds a column name, model name or
label of the source; file paths reach DuckDB as string literals. The numpy engine builds the
same grouped table of raw values. All three then pass through one schema check and one label
dictionary (:func:`label_dictionary`), so the same data give the same :class:`Counts`, bit for
bit.

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

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..core.predictions import Counts
from .base import PredictionFileError, _Roles, _Spec, _spec
from .dispatch import Counters, Opened, Source, count, register
from .duckdb_engine import DUCKDB_MEMORY, _duckdb_count
from .files import malformed_line
from .numpy_engine import _numpy_count
from .spark_engine import _spark_count, _spark_error

__all__ = ['count_predictions']


# --------------------------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------------------------


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
    model_column: str = "model",
    pred_column: str = "y_pred",
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
        A fold column without a repeat column (plain k-fold) is cross-validation with one
        repeat (a wide table needs an id column for it; without one, a note says the fold
        column is not used).
    layout : {"auto", "wide", "long"}
        ``"auto"``: long when the table has the model and prediction columns (``model`` and
        ``y_pred``), or when either is named otherwise.
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
    model_column, pred_column : str
        Long layout: the column naming each row's model (default ``model``) and the column of
        its predicted label (default ``y_pred``).

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
    EngineError
        (a ValueError) for an engine not in ``ENGINES``, or one that cannot read this kind of
        source (:mod:`precmp_lib.engine.dispatch`).
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
    if not isinstance(y_true, str):
        raise TypeError(f"y_true must be the name of the column of true labels; got {y_true!r}")
    args: _Roles = {"y_true": y_true, "models": models, "id": id, "repeat": repeat,
                    "fold": fold, "layout": layout, "observations": observations,
                    "prevalence_classes": prevalence_classes, "model_column": model_column,
                    "pred_column": pred_column}

    def optional(column: str) -> bool:
        # the truth, the id, repeat and fold columns and the models asked for must be in every
        # file of a glob; with common_models, a model column some files lack is left out
        return column not in {y_true, *(models or ()), "id", "repeat", "fold", model_column,
                              pred_column, *(c for c in (id, repeat, fold) if c)}

    return count("predictions", source, args, engine=engine, progress=progress,
                 optional=optional, drop=common_models)


# --------------------------------------------------------------------------------------------
# the route's counters
# --------------------------------------------------------------------------------------------


def _request(source: Source, args: _Roles) -> _Spec:
    """Check the source's columns and decide the role of each (:func:`_spec`)."""
    spec = _spec(source.name, source.columns, **args)
    left_out = source.left_out
    if left_out:
        shown = ", ".join(repr(c) for c in left_out)
        spec.notes.insert(0, f"{'columns' if len(left_out) > 1 else 'column'} {shown} "
                             f"{'are' if len(left_out) > 1 else 'is'} not in every file and left "
                             "out, as asked: only the models every file holds are compared")
    if spec.layout == "long":  # a long file's other columns are not read: said, never silent
        read = set(_reads(spec))
        unread = [c for c in source.columns if c not in read]
        if unread:
            shown = ", ".join(repr(c) for c in unread[:5]) + (" ..." if len(unread) > 5 else "")
            spec.notes.append(f"{'columns' if len(unread) > 1 else 'column'} {shown} of the long "
                              f"file {'are' if len(unread) > 1 else 'is'} not read: a long file "
                              "is read by its model, prediction and truth columns (scores or "
                              "probabilities are compared with --proba COL)")
    if source.matched:
        spec.notes.insert(0, source.matched)
    spec.text_numbers = source.kind == "csv"
    spec.rows_are_lines = source.kind == "csv" and len(source.files) == 1
    return spec


def _reads(spec: _Spec) -> list[str]:
    """Return the columns the numpy engine reads from a file: keys, truth, predictions."""
    return [c for c in dict.fromkeys([spec.id, spec.repeat, spec.fold, spec.y,
                                      *(spec.models if spec.layout == "wide"
                                        else [spec.model_col, spec.pred_col])]) if c]


def _numpy(source: Opened, spec: _Spec) -> Counts:
    frame: pd.DataFrame = source.data
    if source.kind == "frame" and len(frame) == 0:
        raise spec.fail("no rows")
    return _numpy_count(spec, frame)


def _duckdb(source: Opened, spec: _Spec) -> Counts:
    assert source.con is not None  # the dispatcher's connection
    return _duckdb_count(spec, source.data, source.columns, source.con, source.progress,
                         source.duckdb_failure)


def _spark(source: Opened, spec: _Spec) -> Counts:
    try:
        return _spark_count(spec, source.data, source.columns, source.links)
    except PredictionFileError as exc:
        malformed = (malformed_line(source.files[0], source.name, len(source.columns))
                     if source.kind == "csv" and "MALFORMED_CSV_RECORD" in str(exc) else None)
        if malformed is not None:
            raise malformed from None
        raise


def _spark_failure(source: Opened, exc: Exception) -> PredictionFileError:
    return _spark_error(source.name, exc, source.links)


register(Counters("predictions", request=_request, reads=_reads, numpy=_numpy, duckdb=_duckdb,
                  spark=_spark, error=PredictionFileError, memory=DUCKDB_MEMORY,
                  spark_failure=_spark_failure))
