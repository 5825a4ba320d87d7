"""Evaluation items read where they live: the sums that the clustered paired tests need.

A long item file has one row per answer: the ``item``, the ``model`` that answered it, its
``score`` (0/1, true/false, inspect's "C"/"I"/"P"/"N", or any number) and, optionally, the
item's ``cluster`` (a passage, a source document), a ``sample`` column numbering repeated
answers to the same item, and a ``task``. :func:`count_items` reads it with numpy (a pandas
DataFrame in memory), DuckDB (CSV or Parquet files, a DataFrame or a relation; out of core) or
Spark (the dispatcher, :mod:`precmp_lib.engine.dispatch`, picks the engine and opens the
source for the counters this module registers), and returns :class:`~precmp_lib.core.items.ItemSums`: per task, sums
over items and second-level sums over clusters, never rows. Their size is bounded by models²,
whatever the number of items or clusters.

With ``a_j`` the score of model j on an item (the mean of its answers when the item was
answered several times), ``S_cj`` the sum of ``a_j`` over the items of cluster c, ``n_c`` the
items of c and C the clusters, the sums are

- ``n``, C, Σ n_c²;
- Σ a_j and the item Gram matrix Σ a_j a_k (both models right, for 0/1 scores);
- Σ_c n_c S_cj and the cluster Gram matrix Σ_c S_cj S_ck;
- per model, the answers Σ K_i and the within-item variances Σ w_i and Σ w_i / K_i.

Every paired statistic of two models (the clustered McNemar test, the cluster-robust paired
difference, TOST) and every model's clustered mean is a function of these
(:meth:`precmp_lib.stats.paired.PairedSums.from_items` takes one pair or one model). Sums over disjoint sets of
items add up, so tasks combine by adding
(:meth:`~precmp_lib.core.items.ItemSums.combine`).

The SQL engines read the source's columns by position under fixed names (``k_item``,
``k_model``, ...): no name or value from the source is ever part of the query text; model names
are compared as constants of the engines' expression APIs.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._lib.limits import check_limit
from .._lib.text import REPLACEMENT, lost_bytes, shorten
from ..core.items import ItemSums
from .base import PredictionFileError, nested_column
from .dispatch import Counters, Opened, Source, count, register
from .duckdb_engine import ITEM_DUCKDB_MEMORY
from .files import malformed_line
from .spark_engine import let_go_if_server_gone, server_gone_message
from .sql import (
    DUCKDB,
    SPARK,
    item_answers_sql,
    item_checks_sql,
    item_common_sql,
    item_dropped_sql,
    item_index_sql,
    item_locate_sql,
    item_matrix_sql,
    item_models_sql,
    item_tasks_sql,
    roles_sql,
)

if TYPE_CHECKING:  # optional at run time
    import duckdb
    from pyspark.sql import DataFrame as SparkDataFrame

__all__ = ["SCORE_WORDS", "ItemFileError", "count_items", "parse_scores"]

# Words a score column may hold instead of a number (compared trimmed, in lower case):
# right/wrong words, and inspect_ai's "P" (partial credit, 0.5) and "N" (no answer, 0).
SCORE_WORDS = {"c": 1.0, "correct": 1.0, "true": 1.0, "yes": 1.0,
               "i": 0.0, "incorrect": 0.0, "false": 0.0, "no": 0.0, "n": 0.0,
               "p": 0.5, "partial": 0.5}

NO_TASK = ""  # the task of every item when the source has no task column


class ItemFileError(PredictionFileError):
    """A problem with an item file or frame.

    The message names the source, the column, the item or model, and the problem. A subclass of
    ``ValueError``.
    """


# --------------------------------------------------------------------------------------------
# scores
# --------------------------------------------------------------------------------------------


def _parse_one(value: Any) -> float:
    if value is None or isinstance(value, bool | np.bool_):
        return math.nan if value is None else float(value)
    if isinstance(value, int | float | np.integer | np.floating):
        return float(value)
    text = str(value).strip().lower()
    if text in SCORE_WORDS:
        return SCORE_WORDS[text]
    if not text.isascii():  # "\u0663" or "\uff11": no number to DuckDB or Spark
        return math.nan
    try:
        return float(text) if text else math.nan
    except ValueError:
        return math.nan


def parse_scores(values: Any, column: str = "score") -> np.ndarray:
    """Read a score column as numbers: numbers, booleans or the words of :data:`SCORE_WORDS`.

    Parameters
    ----------
    values : array-like
        The column.
    column : str
        Its name, for messages.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        For a missing, non-finite or unreadable score, naming the column and the value.

    Examples
    --------
    >>> parse_scores(["C", "I", " true", "0.25", "P"]).tolist()
    [1.0, 0.0, 1.0, 0.25, 0.5]
    """
    s = pd.Series(values)
    if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
        out = s.to_numpy(dtype=float, na_value=np.nan)
        raw = s
    else:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
        parsed = np.array([_parse_one(u) for u in uniques] + [math.nan], dtype=float)
        out = parsed[codes]
        raw = s
    bad = np.flatnonzero(~np.isfinite(out))
    if len(bad):
        v = raw.iloc[int(bad[0])]
        shown = "an empty value" if v is None or (isinstance(v, float) and math.isnan(v)) or \
            (isinstance(v, str) and not v.strip()) else f"{v!r:.40}"
        raise ValueError(f"column {column!r}: {shown} is not a score (expected a finite number, "
                         "true/false or C/I/P/N)")
    return out


# --------------------------------------------------------------------------------------------
# the request
# --------------------------------------------------------------------------------------------


@dataclass
class _Request:
    name: str
    item: str
    model: str
    score: str
    cluster: str | None = None
    sample: str | None = None
    task: str | None = None
    models: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    common: bool = False  # keep only the items every model answered

    def fail(self, message: str) -> ItemFileError:
        return ItemFileError(f"{self.name}: {message}")

    def roles(self) -> list[tuple[str, str]]:
        pairs = [("k_item", self.item), ("k_model", self.model), ("k_score", self.score)]
        for fixed, col in (("k_cluster", self.cluster), ("k_sample", self.sample),
                           ("k_task", self.task)):
            if col is not None:
                pairs.append((fixed, col))
        return pairs

    def check_flat(self, columns: Sequence[str], source: Any) -> None:
        """Refuse a role column of nested values (:func:`~precmp_lib.engine.base.nested_column`)."""
        column = nested_column(columns, source, [col for _, col in self.roles()])
        if column is not None:
            raise self.fail(f"column {column!r} holds nested values (a struct, list or map); "
                            "items, models, scores, clusters, samples and tasks are single values")


def _request(name: str, columns: Sequence[Any], *, item: str, model: str, score: str,
             cluster: str | None, sample: str | None, task: str | None) -> _Request:
    cols = [str(c) for c in columns]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise ItemFileError(f"{name}: duplicated column name(s) {dup}; each column needs its own name")
    req = _Request(name, item, model, score, cluster, sample, task)
    used: dict[str, str] = {}
    for arg, col in (("item", item), ("model", model), ("score", score), ("cluster", cluster),
                     ("sample", sample), ("task", task)):
        if col is None and arg in ("cluster", "sample", "task"):
            continue
        if not isinstance(col, str):
            raise TypeError(f"{arg} must be a column name; got {col!r:.60}")
        if col not in cols:
            raise req.fail(f"no column {col!r} for {arg} (columns: {', '.join(cols[:12])}"
                           f"{' ...' if len(cols) > 12 else ''})")
        if col in used:
            raise req.fail(f"column {col!r} is given as both {used[col]} and {arg}")
        used[col] = arg
    return req


def _shown(value: Any) -> str:
    """Show an item (a key from the file) in a message: its repr, at most 80 characters."""
    value = value.item() if isinstance(value, np.generic) else value
    return repr(shorten(value)) if isinstance(value, str) else shorten(repr(value))


# --------------------------------------------------------------------------------------------
# numpy
# --------------------------------------------------------------------------------------------


def _numpy_codes(frame: pd.DataFrame, req: _Request) -> dict[str, np.ndarray]:
    out = {}
    for fixed, col in req.roles():
        if fixed == "k_score":
            continue
        s = frame[col]
        missing = np.flatnonzero(s.isna().to_numpy())
        if len(missing):
            raise req.fail(f"column {col!r} is empty in row {int(missing[0])}")
        # each distinct value made text once: a name repeated on every row stays one string
        codes, uniques = pd.factorize(s)
        out[fixed] = np.asarray(pd.Index(uniques).astype(str), dtype=object)[codes]
    for fixed in ("k_task", "k_item", "k_model", "k_cluster"):  # the SQL engines' order
        if fixed in out:
            broken = sorted(v for v in pd.unique(out[fixed]) if REPLACEMENT in v)
            if broken:
                raise _broken(req, dict(req.roles())[fixed], broken[0])
    return out


def _broken(req: _Request, column: str, value: str) -> ItemFileError:
    """Refuse a task, item, model or cluster holding U+FFFD, naming the column and the value.

    Two different broken names would be one item or one model; every engine refuses the name.
    """
    return req.fail(lost_bytes(column, "name", value))


def _numpy_sums(frame: pd.DataFrame, req: _Request) -> list[ItemSums]:
    if len(frame) == 0:
        raise req.fail("no rows")
    req.check_flat(list(frame.columns), frame)
    keys = _numpy_codes(frame, req)
    try:
        x = parse_scores(frame[req.score], req.score)
    except ValueError as exc:
        raise req.fail(str(exc)) from None
    task = keys.get("k_task", np.full(len(frame), NO_TASK, dtype=object))
    models = sorted(pd.unique(keys["k_model"]))
    _check_models(req, models)
    j = pd.Categorical(keys["k_model"], categories=req.models).codes
    ti = pd.MultiIndex.from_arrays([task, keys["k_item"]])
    item_code, item_keys = pd.factorize(ti)
    n_items, m = len(item_keys), len(req.models)
    cell = item_code.astype(np.int64) * m + j
    k = np.bincount(cell, minlength=n_items * m)
    if req.sample is None:
        _check_once(req, k, item_keys, m)
    present = k.reshape(n_items, m) > 0
    complete = present.all(axis=1)
    if not req.common:
        _check_complete(req, present, item_keys)
    s = np.bincount(cell, weights=x, minlength=n_items * m)
    s2 = np.bincount(cell, weights=x * x, minlength=n_items * m)
    kk = k.reshape(n_items, m).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = s.reshape(n_items, m) / kk
        w = np.where(kk > 1, (s2.reshape(n_items, m) - s.reshape(n_items, m) ** 2 / kk) / (kk - 1), 0.0)
    w = np.maximum(w, 0.0)
    clusters = _numpy_clusters(req, keys, item_code, item_keys)
    item_task = np.asarray([t for t, _ in item_keys], dtype=object)
    out = []
    tasks = sorted(pd.unique(item_task))
    _check_tasks(req, len(tasks))
    for t in tasks:
        sel = (item_task == t) & complete
        dropped = tuple(int(v) for v in (present[(item_task == t) & ~complete]).sum(axis=0))
        if req.common and not sel.any():
            raise _nothing_common(req, str(t), dropped)
        part = _sums_from_matrix(req, str(t), a[sel], kk[sel], w[sel],
                                 None if clusters is None else clusters[sel],
                                 int(kk[sel].sum()), "numpy")
        out.append(replace(part, dropped=dropped) if req.common else part)
    return out


def _nothing_common(req: _Request, task: str, answered: Sequence[int]) -> ItemFileError:
    """One line for a task in which no item is answered by every model (--common-items).

    >>> req = _Request("the eval logs", "item", "model", "score", task="task", models=("a", "b"))
    >>> print(_nothing_common(req, "race", (33, 0)))
    the eval logs: task 'race': no item is answered by every model, so --common-items leaves nothing to compare (items answered: a 33, b 0)
    """
    counts = ", ".join(f"{m} {n:,}" for m, n in zip(req.models, answered))
    where = f"task {task!r}: " if req.task is not None else ""
    return req.fail(f"{where}no item is answered by every model, so --common-items leaves "
                    f"nothing to compare (items answered: {counts})")


def _check_models(req: _Request, models: list[str]) -> None:
    if req.models:
        unknown = sorted(set(req.models) - set(models))
        if unknown:
            raise req.fail(f"column {req.model!r} has no rows for model(s) {unknown}")
    else:
        req.models = tuple(models)
    if not models:
        raise req.fail("no rows")
    check_limit("item_models", len(req.models), f"{req.name}: column {req.model!r}", ItemFileError)
    if len(req.models) < 2:
        raise req.fail(f"need at least two models to compare; column {req.model!r} has "
                       f"{list(req.models)}")


def _check_once(req: _Request, k: np.ndarray, item_keys: Any, m: int) -> None:
    twice = np.flatnonzero(k > 1)
    if len(twice):
        i, j = divmod(int(twice[0]), m)
        raise req.fail(f"item {_shown(item_keys[i][1])} is scored {int(k[twice[0]])} times for model "
                       f"{req.models[j]!r}; give the column that numbers repeated answers "
                       "(--sample) or keep one row per item and model")


def _check_complete(req: _Request, present: np.ndarray, item_keys: Any) -> None:
    missing = np.argwhere(~present)
    if len(missing):
        i, j = (int(v) for v in missing[0])
        raise req.fail(_missing_message(req, req.models[j], item_keys[i][0], item_keys[i][1]))


def _missing_message(req: _Request, model: str, task: Any, item: Any) -> str:
    """Say that a model did not answer an item: the model, the task and the item."""
    where = f" of task {str(task)!r}" if req.task is not None else ""
    return (f"model {model!r} has no score for item {_shown(item)}{where}: every model must "
            "answer every item (models are matched by item); to compare on the items every "
            "model answered, use common_items (--common-items)")


def _numpy_clusters(req: _Request, keys: dict, item_code: np.ndarray, item_keys: Any) -> np.ndarray | None:
    if req.cluster is None:
        return None
    cl = keys["k_cluster"]
    pair = pd.factorize(pd.MultiIndex.from_arrays([item_code, cl]))[0]
    first = np.full(pair.max() + 1, -1, dtype=np.int64)
    first[pair[::-1]] = np.arange(len(pair))[::-1]
    per_item = np.bincount(item_code[first], minlength=len(item_keys))
    changes = np.flatnonzero(per_item > 1)
    if len(changes):
        raise req.fail(f"column {req.cluster!r} changes within item {_shown(item_keys[changes[0]][1])}: "
                       "an item belongs to one cluster")
    task_of = np.asarray([t for t, _ in item_keys], dtype=object)
    cluster_of = np.empty(len(item_keys), dtype=object)
    cluster_of[item_code[first]] = cl[first]
    return pd.factorize(pd.MultiIndex.from_arrays([task_of, cluster_of]))[0]


def _sums_from_matrix(req: _Request, task: str, a: np.ndarray, k: np.ndarray, w: np.ndarray,
                      clusters: np.ndarray | None, n_rows: int, engine: str) -> ItemSums:
    n = a.shape[0]
    gram = a.T @ a  # X'X: every pair's items both get right (for 0/1 scores), one product
    if clusters is None:
        c, n2, ns, hg = None, float(n), a.sum(axis=0), gram
    else:
        codes, _ = pd.factorize(clusters)
        c = int(codes.max()) + 1
        size = np.bincount(codes, minlength=c).astype(float)
        order = np.argsort(codes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(size[:-1]))).astype(np.int64)
        s = np.add.reduceat(a[order], starts, axis=0)  # S: clusters x models sums
        n2, ns, hg = float(size @ size), size @ s, s.T @ s
    binary = bool(np.all((a == 0) | (a == 1)))
    unit = bool(np.all((a >= 0) & (a <= 1)))
    return ItemSums(task=task, models=req.models, n_items=n, n_clusters=c, sum_n2=n2,
                    sums=a.sum(axis=0), item_gram=gram, cluster_ns=ns, cluster_gram=hg,
                    answers=k.sum(axis=0), within=w.sum(axis=0), within_over_k=(w / k).sum(axis=0),
                    k_min=int(k.min()), k_max=int(k.max()), binary=binary, engine=engine,
                    source=req.name, n_rows=n_rows, notes=tuple(req.notes), unit=unit)


# --------------------------------------------------------------------------------------------
# DuckDB and Spark: one SQL text over fixed names (:mod:`precmp_lib.engine.sql`)
# --------------------------------------------------------------------------------------------


def _dropped(req: _Request, rows: Any) -> dict[str, tuple[int, ...]]:
    """Per task, the dropped counts by model, from the rows of :func:`item_dropped_sql`."""
    out: dict[str, list[int]] = {}
    for t, j, n in rows:
        out.setdefault(str(t), [0] * len(req.models))[int(j)] = int(n)
    return {t: tuple(v) for t, v in out.items()}


def _first_problem(req: _Request, rows: pd.DataFrame) -> str | None:
    """Name the first check, in the order numpy makes them, that some task's row fails."""
    for check in ("nul", "brk", "bad", "multi", "incomplete", "moved"):
        if (check != "multi" or req.sample is None) and any(rows[check]):
            return check
    return None


def _problem_message(req: _Request, check: str, found: Sequence[Any],
                     present: Sequence[str]) -> ItemFileError:
    if check == "brk":
        t, i, m, g0, g1 = found
        clusters = [g for g in (g0, g1) if g is not None]
        for col, value in ((req.task, t), (req.item, i), (req.model, m),
                           (req.cluster, min(clusters) if clusters else None)):
            if col is not None and value is not None:
                return _broken(req, col, str(value))
    item = _shown(found[1])
    if check == "nul":
        return req.fail(f"item {item}, model {found[2]!r}: a key column ({req.item!r}, "
                        f"{req.model!r}{', ' + repr(req.cluster) if req.cluster else ''}"
                        f"{', ' + repr(req.sample) if req.sample else ''}) is empty")
    if check == "bad":
        return req.fail(f"column {req.score!r}: item {item}, model {found[2]!r} has a score that "
                        "is missing or not a finite number, true/false or C/I/P/N")
    if check == "multi":
        return req.fail(f"item {item} is scored {int(found[3])} times for model {found[2]!r}; give "
                        "the column that numbers repeated answers (--sample) or keep one row per "
                        "item and model")
    if check == "moved":
        return req.fail(f"column {req.cluster!r} changes within item {item} ({found[2]!r} and "
                        f"{found[3]!r}): an item belongs to one cluster")
    missing = [mm for mm in req.models if mm not in set(present)]
    return req.fail(_missing_message(req, missing[0] if missing else "?", found[0], found[1]))


def _check_tasks(req: _Request, n_tasks: int) -> None:
    """Refuse more tasks than the limit: each is compared and shown on its own."""
    check_limit("tasks", n_tasks, f"{req.name}: column {req.task!r}", ItemFileError)


def _sums_from_long(req: _Request, long: dict[str, np.ndarray], index: dict[str, np.ndarray],
                    tasks: list[str], engine: str,
                    dropped: dict[str, tuple[int, ...]] | None = None) -> list[ItemSums]:
    """Build each task's sums from the long item x model table of :func:`item_matrix_sql`.

    The checks have passed: every item has one row per model. The dense items x models matrix
    is filled once; its products (XᵀX, and SᵀS over the cluster sums) are numpy's. ``index``
    gives each item code's task and cluster (:func:`item_index_sql`).
    """
    _check_tasks(req, len(tasks))
    if req.common:  # a task whose every item some model left out has no row of sums
        for t, answered in (dropped or {}).items():
            if t not in tasks:
                raise _nothing_common(req, t, answered)
    m = len(req.models)
    ic, j = long["ic"].astype(np.int64), long["j"].astype(np.int64)
    n_all = len(index["ic"])
    k = np.zeros((n_all, m))
    s = np.zeros((n_all, m))
    s2 = np.zeros((n_all, m))
    k[ic, j], s[ic, j], s2[ic, j] = long["k"], long["s"], long["s2"]
    task_of = np.zeros(n_all, dtype=np.int64)
    task_of[np.asarray(index["ic"], dtype=np.int64)] = index["tc"]
    cluster_of = None
    if req.cluster is not None:
        cluster_of = np.zeros(n_all, dtype=np.int64)
        cluster_of[np.asarray(index["ic"], dtype=np.int64)] = index["gc"]
    del long
    with np.errstate(invalid="ignore", divide="ignore"):
        a = s / k
        w = np.where(k > 1, (s2 - s * s / k) / (k - 1), 0.0)
    w = np.maximum(w, 0.0)
    del s, s2
    out = []
    bounds = np.searchsorted(task_of, np.arange(len(tasks) + 1))  # a task's items are contiguous
    for code, task in enumerate(tasks):
        lo, hi = int(bounds[code]), int(bounds[code + 1])
        part = _sums_from_matrix(req, task, a[lo:hi], k[lo:hi], w[lo:hi],
                                 None if cluster_of is None else cluster_of[lo:hi],
                                 int(k[lo:hi].sum()), engine)
        out.append(replace(part, dropped=(dropped or {}).get(task, (0,) * m))
                   if req.common else part)
    return out


def _long(frame: pd.DataFrame | dict[str, Any],
          columns: Sequence[str] = ("ic", "j", "k", "s", "s2")) -> dict[str, np.ndarray]:
    """Return the columns of :func:`item_matrix_sql`'s (or ``item_index_sql``'s) result as arrays."""
    return {c: np.asarray(frame[c]) for c in columns}


def _score_kind(dtype: str) -> str:
    low = dtype.lower()
    if any(w in low for w in ("int", "double", "float", "decimal", "bool", "real")):
        return "number"
    return "text"


def _duckdb_sums(req: _Request, relation: duckdb.DuckDBPyRelation, columns: Sequence[str],
                 con: duckdb.DuckDBPyConnection, on_error: Any) -> list[ItemSums]:
    from duckdb import ColumnExpression, ConstantExpression

    req.check_flat(columns, relation)
    try:
        roles = relation.query("src", roles_sql(req.roles(), columns, "src"))
        kind = _score_kind(str(dict(zip(roles.columns, roles.types))["k_score"]))
        models = sorted(str(r[0]) for r in roles.query(
            "roles", item_models_sql(DUCKDB, "roles")).fetchall() if r[0] is not None)
        _check_models(req, models)
        im = roles.query("roles", item_answers_sql([f for f, _ in req.roles()], kind, DUCKDB,
                                                   "roles", SCORE_WORDS))
        # each model's index by a join with the table of the names (a model not asked for has
        # none): a hash join, where a lookup in the list of names costs models per answer
        names = con.from_df(pd.DataFrame({"mk": list(req.models),
                                          "j": np.arange(len(req.models), dtype=np.int32)}))
        indexed = im.join(names, ColumnExpression("m") == ColumnExpression("mk")).select(
            *[ColumnExpression(c) for c in [*im.columns, "j"]])
        dropped = None
        if req.common:
            m = len(req.models)
            dropped = _dropped(req, indexed.query("allrows",
                                                  item_dropped_sql(m, "allrows")).fetchall())
            indexed = indexed.query("allrows", item_common_sql(m, "allrows", keep=True))
        # the answers are read once into a table (DuckDB spills it beyond its memory limit);
        # the checks, the items' codes and the matrix are read from it
        table = f"precmp_im_{uuid.uuid4().hex}"
        indexed.select(*[ColumnExpression(c) for c in ("t", "i", "j", "k", "s", "s2", "g0",
                                                         "g1", "bad", "nul", "brk")]).create(table)
        try:
            kept = con.table(table)
            rows = kept.query("im", item_checks_sql(len(req.models), "im")).df()
            check = _first_problem(req, rows)
            if check is None:
                tasks = [str(r[0]) for r in kept.query("im", item_tasks_sql("im")).fetchall()]
                index = _long(kept.query("im", item_index_sql("im")).fetchnumpy(),
                              ("ic", "tc", "gc"))
                long = _long(kept.query("im", item_matrix_sql("im")).fetchnumpy())
        finally:
            con.execute(f"DROP TABLE IF EXISTS {table}")
    except ItemFileError:
        raise
    except Exception as exc:  # duckdb.Error: a parse failure of the user's file
        raise on_error(exc) from None
    if check is not None:  # the error path: find the first item with the problem
        sql = item_locate_sql(check, len(req.models), "im")
        found = indexed.query("im", sql).fetchone() or ("", "?", "?", "?", "?")
        present = [] if check != "incomplete" else [str(x[0]) for x in indexed.filter(
            (ColumnExpression("t") == ConstantExpression(found[0]))
            & (ColumnExpression("i") == ConstantExpression(found[1]))).select("m").fetchall()]
        raise _problem_message(req, check, found, present)
    return _sums_from_long(req, long, index, tasks, "duckdb", dropped)


def _spark_sums(req: _Request, df: SparkDataFrame, columns: Sequence[str]) -> list[ItemSums]:

    from pyspark.sql import functions as F

    req.check_flat(columns, df)
    spark = df.sparkSession
    tag = uuid.uuid4().hex
    view, roles_view, im_view, all_view = (f"precmp_{p}_{tag}" for p in ("src", "roles", "im",
                                                                          "all"))
    df.createOrReplaceTempView(view)
    gone = False
    try:
        roles = spark.sql(roles_sql(req.roles(), columns, view))
        kind = _score_kind(dict(roles.dtypes)["k_score"])
        roles.createOrReplaceTempView(roles_view)
        models = sorted(str(r[0]) for r in roles.select(F.col("k_model").cast("string")).distinct()
                        .collect() if r[0] is not None)
        _check_models(req, models)
        im = spark.sql(item_answers_sql([f for f, _ in req.roles()], kind, SPARK, roles_view,
                                        SCORE_WORDS))
        # one array of the names, one lookup (1-based; 0 for a model not asked for)
        position = F.array_position(F.array(*(F.lit(m) for m in req.models)), F.col("m"))
        indexed = im.select(*[F.col(c) for c in im.columns], (position - 1).alias("j")).where(
            F.col("j") >= 0)
        dropped = None
        if req.common:
            m = len(req.models)
            indexed.createOrReplaceTempView(all_view)
            dropped = _dropped(req, spark.sql(item_dropped_sql(m, all_view)).collect())
            indexed = spark.sql(item_common_sql(m, all_view, keep=True))
        indexed.createOrReplaceTempView(im_view)
        rows = _spark_frame(spark.sql(item_checks_sql(len(req.models), im_view)))
        check = _first_problem(req, rows)
        if check is not None:  # the error path: find the first item with the problem
            found = spark.sql(item_locate_sql(check, len(req.models), im_view)).collect()
            hit = tuple(found[0]) if found else ("", "?", "?", "?", "?")
            present = [] if check != "incomplete" else [str(x[0]) for x in indexed.where(
                (F.col("t") == F.lit(hit[0])) & (F.col("i") == F.lit(hit[1]))).select("m").collect()]
            raise _problem_message(req, check, hit, present)
        tasks = [str(r[0]) for r in spark.sql(item_tasks_sql(im_view)).collect()]
        index = _long(spark.sql(item_index_sql(im_view)).toPandas(), ("ic", "tc", "gc"))
        long = _long(spark.sql(item_matrix_sql(im_view)).toPandas())
        return _sums_from_long(req, long, index, tasks, "spark", dropped)
    except Exception as exc:
        gone = let_go_if_server_gone(spark, exc)  # closed: nothing waits on it again
        raise
    finally:
        if not gone:
            for v in (view, roles_view, im_view, all_view):
                spark.catalog.dropTempView(v)


def _spark_frame(sdf: Any) -> pd.DataFrame:
    result = sdf.collect()
    return pd.DataFrame([r.asDict() for r in result], columns=sdf.columns)


# --------------------------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------------------------


def count_items(
    source: Any,
    *,
    item: str = "item",
    model: str = "model",
    score: str = "score",
    cluster: str | None = None,
    sample: str | None = None,
    task: str | None = None,
    models: Sequence[str] | None = None,
    engine: str = "auto",
    common_items: bool = False,
) -> list[ItemSums]:
    """Read a long item table once, where it lives, into per-task sums over items and clusters.

    Parameters
    ----------
    source : DataFrame, mapping of arrays, path, glob, DuckDB relation or Spark DataFrame
        One row per answer. A path is a CSV (read as text) or Parquet file; a glob of Parquet
        files is one table.
    item, model, score : str
        Columns: the item id, the model name, the score (0/1, true/false, C/I/P/N, or a number).
    cluster : str, optional
        The cluster of each item (a passage, a document); constant within an item.
    sample : str, optional
        Marks rows as repeated answers of a model to an item (an epoch or sample number); the
        item's score is the mean of its answers. Its values are not read further (a sample
        number given twice is two answers). Without it, an item answered twice by one model is
        an error.
    task : str, optional
        Items of different tasks are different items; sums come back per task.
    models : sequence of str, optional
        Models to keep (default: all, sorted).
    engine : {"auto", "numpy", "duckdb", "spark"}
        ``"auto"``: numpy for DataFrames, DuckDB for paths and relations, Spark for Spark
        DataFrames.
    common_items : bool
        Keep only the items every model answered (per task) and count, per model, the answered
        items left out (:attr:`ItemSums.dropped`). Without it, an item some model did not
        answer is an error naming the model, the task and the item.

    Returns
    -------
    list of ItemSums
        One per task, in task order.

    Raises
    ------
    ItemFileError
        (a ValueError) naming the source, the column and the item or model: an item scored
        twice for one model without a sample column, a model missing an item, a cluster that
        changes within an item, a score that is not a number.
    EngineError
        (a ValueError) for an engine not in ``ENGINES``, or one that cannot read this kind of
        source (:mod:`precmp_lib.engine.dispatch`).
    TypeError
        For a source of an unknown kind, or ``models`` that is not a list of names.

    Examples
    --------
    Two models on four items in two passages:

    >>> frame = pd.DataFrame({"item": [1, 2, 3, 4] * 2, "model": ["a"] * 4 + ["b"] * 4,
    ...                       "score": [1, 1, 0, 1, 1, 0, 0, 0],
    ...                       "passage": ["p", "p", "q", "q"] * 2})
    >>> [s] = count_items(frame, cluster="passage")
    >>> s.n_items, s.n_clusters, s.sums.tolist(), s.flips(0, 1)
    (4, 2, [3.0, 1.0], (2.0, 0.0))

    Model a is right on three items and b on one; going from a to b, two items flip from right
    to wrong and none from wrong to right.
    """
    roles: dict[str, Any] = {"item": item, "model": model, "score": score, "cluster": cluster,
                             "sample": sample, "task": task}
    if isinstance(models, str) or not (models is None or isinstance(models, Sequence)):
        raise TypeError(f"models must be a list of model names; got {models!r:.60}")
    keep = tuple(str(m) for m in models) if models else ()
    return count("items", source, (roles, keep, common_items), engine=engine)


def _kept(frame: pd.DataFrame, req: _Request) -> pd.DataFrame:
    if not req.models:
        return frame
    names = frame[req.model].astype(str)
    kept = frame[names.isin(req.models)]
    if len(frame) and not len(kept):  # none of the models asked for: name them, not "no rows"
        _check_models(req, sorted(names.unique()))
    return kept


# --------------------------------------------------------------------------------------------
# the route's counters
# --------------------------------------------------------------------------------------------


def _item_request(source: Source, args: tuple[dict[str, Any], tuple[str, ...], bool]) -> _Request:
    """Check the source's columns against the roles; the models to keep, common items or not."""
    roles, keep, common = args
    req = _request(source.name, source.columns, **roles)
    req.models = keep
    req.common = common
    if source.matched:
        req.notes.append(source.matched)
    return req


def _item_reads(req: _Request) -> list[str]:
    return [c for _, c in req.roles()]


def _numpy_counter(source: Opened, req: _Request) -> list[ItemSums]:
    return _numpy_sums(_kept(source.data, req), req)


def _duckdb_counter(source: Opened, req: _Request) -> list[ItemSums]:
    assert source.con is not None  # the dispatcher's connection
    return _duckdb_sums(req, source.data, source.columns, source.con, source.duckdb_failure)


def _spark_counter(source: Opened, req: _Request) -> list[ItemSums]:
    if not source.files:  # a Spark DataFrame: its own errors are the caller's
        return _spark_sums(req, source.data, source.columns)
    try:
        return _spark_sums(req, source.data, source.columns)
    except ItemFileError:
        raise
    except Exception as exc:  # a Spark failure reading the file
        raise _spark_failure(source, exc) from None


def _spark_failure(source: Opened, exc: Exception) -> ItemFileError:
    """Return the one line for Spark failing to read an item file."""
    if let_go_if_server_gone(source.spark, exc):
        return ItemFileError(server_gone_message(source.name, exc))
    if source.kind == "csv" and "MALFORMED_CSV_RECORD" in str(exc):
        malformed = malformed_line(source.files[0], source.name, len(source.columns))
        if malformed is not None:
            return ItemFileError(str(malformed))
    first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    return ItemFileError(f"{source.name}: cannot be read as {source.kind.upper()} ({first})")


register(Counters("items", request=_item_request, reads=_item_reads, numpy=_numpy_counter,
                  duckdb=_duckdb_counter, spark=_spark_counter, error=ItemFileError,
                  memory=ITEM_DUCKDB_MEMORY, spark_failure=_spark_failure))
