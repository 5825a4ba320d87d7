"""The SQL text that DuckDB and Spark both run: one text, no user text in it.

The first step (:func:`roles_sql`) renames the source's columns by position and keeps the
ones the count reads under fixed names (``k_y``, ``k_p0`` ...); the counting query
(:func:`counting_sql`) reads only those names, so no query holds a column name, model name
or label of the source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .clusters import (
    class_profiles_sql,
    cluster_sums_sql,
    packed_bits,
    packed_terms,
    profile_terms,
)

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    pass

from .base import _Spec

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
    if spec.one_repeat:  # plain k-fold: one repeat, numbered 0 (no column of the source)
        pairs.insert(1, ("k_rep", ""))
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
    >>> from precmp_lib.engine.base import _spec
    >>> spec = _spec("preds.csv", ["y", "a AS b", "b"], y_true="y", models=None, id=None,
    ...              repeat=None, fold=None, layout="auto")
    >>> roles_sql(spec, ["y", "a AS b", "b"])
    'SELECT t.c0 AS k_y, t.c1 AS k_p0, t.c2 AS k_p1 FROM src AS t(c0, c1, c2)'
    """
    position = {str(c): i for i, c in enumerate(columns)}
    select = ", ".join(f"t.c{position[col]} AS {fixed}" if col else f"0 AS {fixed}"
                       for fixed, col in _roles(spec))
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
    >>> from precmp_lib.engine.base import _spec
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
    summed over observations by :func:`precmp_lib.engine.clusters.cluster_sums_sql`.
    The result has one row per class plus one; nothing per observation comes back.

    With ``n_classes`` and ``n_repeats`` whose packed fields fit
    (:func:`precmp_lib.engine.clusters.packed_bits`), the coded events go to
    :func:`precmp_lib.engine.clusters.cluster_sums_sql`'s packed form as they are (one GROUP BY, by
    observation; an observation has at most one event per repeat, so ``n_repeats`` bounds its
    rows), with the words ``v<w>`` the codes table then holds
    (:func:`precmp_lib.engine.clusters.packed_terms`). For the
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
        The rows counted (``max_rows`` of :func:`precmp_lib.engine.clusters.cluster_sums_sql`).

    Returns
    -------
    str
        The query; :func:`precmp_lib.engine.clusters.cluster_sums_from_rows` reads its rows.

    Examples
    --------
    >>> from precmp_lib.engine.base import _spec
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
    :func:`precmp_lib.engine.clusters.profile_terms`), summed per observation and grouped by each
    class's profile (:func:`precmp_lib.engine.clusters.class_profiles_sql`): one row per class and
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
    >>> from precmp_lib.engine.base import _spec
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
        keys = ["k_id", *(["k_rep"] if spec.cv else [])]
        return (f"WITH t AS (SELECT row_number() OVER () - 1 AS r, {', '.join(keys)}, COUNT(*) OVER "
                f"(PARTITION BY {', '.join(keys)}) AS k FROM {table}), "
                f"d AS (SELECT {', '.join(keys)} FROM t WHERE k > 1 ORDER BY r LIMIT 1) "
                f"SELECT t.r, {', '.join('t.' + k for k in keys)} FROM t JOIN d USING ({', '.join(keys)}) "
                "ORDER BY t.r LIMIT 2")
    return None


