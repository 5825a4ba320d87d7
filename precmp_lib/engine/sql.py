"""Every query's text: the SQL that DuckDB and Spark run, with no user text in it.

The first step of every route (:func:`roles_sql`) renames the source's columns by position and
keeps the ones the count reads under fixed names (``k_y``, ``k_p0`` ... for predictions,
``k_item``, ``k_model`` ... for items); the queries after it read only those names, so no query
holds a column name, model name or label of the source: the predictions' counting query
(:func:`counting_sql`) and cluster sums (:func:`cluster_sql`), the items' sums
(:func:`item_answers_sql`, :func:`item_matrix_sql` ...). File paths and settings reach DuckDB as
string literals (:data:`DUCKDB`'s ``literal``): the reading of files
(:func:`duckdb_read_sql`) and the set-up and sealing of a connection
(:func:`duckdb_setup_sql`, :func:`duckdb_seal_sql`). The probabilities' queries, which read
the same fixed names, are in :mod:`.probability_sql`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._lib.checks import check_positive_int
from .._lib.text import REPLACEMENT
from ..core.clusters import (
    PACKED_BITS,
    packed_bits,
    packed_fields,
    packed_position,
    packed_terms,
    profile_terms,
    profile_words,
)
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


def roles_sql(roles: Sequence[tuple[str, str]], columns: Sequence[str], table: str = "src") -> str:
    """Write the first step of the SQL engines: the columns the count reads, by position.

    The source's columns are renamed by position (``AS t(c0, c1, ...)``) and the ones the count
    reads are selected under their fixed names, so the text holds numbers and fixed names
    only, never a name taken from the source. Every route starts with it: the predictions'
    roles are :func:`_roles` of their request, the items' ``k_item``, ``k_model`` ...

    Parameters
    ----------
    roles : sequence of (str, str)
        Each fixed name with the source column it reads; an empty column name selects the
        constant 0 (the one repeat of plain k-fold cross-validation).
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
    >>> roles_sql(_roles(spec), ["y", "a AS b", "b"])
    'SELECT t.c0 AS k_y, t.c1 AS k_p0, t.c2 AS k_p1 FROM src AS t(c0, c1, c2)'
    >>> roles_sql([("k_item", "q"), ("k_model", "llm"), ("k_score", "s")], ["llm", "q", "s"], "v")
    'SELECT t.c1 AS k_item, t.c0 AS k_model, t.c2 AS k_score FROM v AS t(c0, c1, c2)'
    """
    position = {str(c): i for i, c in enumerate(columns)}
    select = ", ".join(f"t.c{position[col]} AS {fixed}" if col else f"0 AS {fixed}"
                       for fixed, col in roles)
    return f"SELECT {select} FROM {_renamed(len(columns), table)}"


def _renamed(n_columns: int, table: str) -> str:
    """Return ``table AS t(c0, c1, ...)``: its columns renamed by position."""
    return f"{table} AS t({', '.join(f'c{i}' for i in range(n_columns))})"


def renamed_sql(n_columns: int, table: str) -> str:
    """Select every column of a table renamed by position: ``c0``, ``c1``, ...

    Parameters
    ----------
    n_columns : int
        The table's number of columns.
    table : str
        The table (a fixed view name).

    Returns
    -------
    str

    Examples
    --------
    >>> renamed_sql(3, "drifted")
    'SELECT * FROM drifted AS t(c0, c1, c2)'
    """
    return f"SELECT * FROM {_renamed(n_columns, table)}"


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
    summed over observations by :func:`cluster_sums_sql`.
    The result has one row per class plus one; nothing per observation comes back.

    With ``n_classes`` and ``n_repeats`` whose packed fields fit
    (:func:`precmp_lib.core.clusters.packed_bits`), the coded events go to
    :func:`cluster_sums_sql`'s packed form as they are (one GROUP BY, by
    observation; an observation has at most one event per repeat, so ``n_repeats`` bounds its
    rows), with the words ``v<w>`` the codes table then holds
    (:func:`precmp_lib.core.clusters.packed_terms`). For the
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
        The rows counted (``max_rows`` of :func:`cluster_sums_sql`).

    Returns
    -------
    str
        The query; :func:`precmp_lib.core.clusters.cluster_sums_from_rows` reads its rows.

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
    :func:`precmp_lib.core.clusters.profile_terms`), summed per observation and grouped by each
    class's profile (:func:`class_profiles_sql`): one row per class and
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


# --------------------------------------------------------------------------------------------
# DuckDB: reading files, and the settings of a connection
# --------------------------------------------------------------------------------------------


def duckdb_read_sql(kind: str, files: Sequence[str], n_columns: int, delimiter: str = ",",
                    line_end: str = "\\n") -> str:
    """Write DuckDB's reading of files: Parquet by column name, every CSV cell as text.

    The paths, the delimiter and the line ending are string literals; a CSV file's columns are
    named by position (``c0``, ``c1``, ...), never by its header.

    Parameters
    ----------
    kind : {"csv", "parquet"}
    files : sequence of str
        Plain names (links) of the files.
    n_columns : int
        The CSV header's number of columns.
    delimiter, line_end : str
        The CSV file's delimiter and its header's line ending, as DuckDB spells them.

    Returns
    -------
    str

    Examples
    --------
    >>> duckdb_read_sql("parquet", ["/tmp/f0.parquet", "/tmp/f1.parquet"], 2)
    "SELECT * FROM read_parquet(['/tmp/f0.parquet', '/tmp/f1.parquet'], union_by_name = true)"
    >>> "columns = {c0: 'VARCHAR', c1: 'VARCHAR'}" in duckdb_read_sql("csv", ["/tmp/f0.csv"], 2)
    True
    """
    lit = DUCKDB.literal
    if kind == "parquet":
        # by column name: files that list the same columns in another order still line up
        return (f"SELECT * FROM read_parquet([{', '.join(lit(f) for f in files)}], "
                "union_by_name = true)")
    spec = ", ".join(f"c{i}: 'VARCHAR'" for i in range(n_columns))
    return (f"SELECT * FROM read_csv({lit(files[0])}, header = true, auto_detect = false, "
            f"delim = {lit(delimiter)}, quote = '\"', escape = '\"', nullstr = '', "
            f"new_line = {lit(line_end)}, columns = {{{spec}}})")


def duckdb_setup_sql(spill: str, memory: str) -> list[str]:
    """Write the settings of an engine's DuckDB connection: progress, spill folder, memory.

    Parameters
    ----------
    spill : str
        The folder where large groupings spill to disk.
    memory : str
        DuckDB's memory limit (``"1GB"``).

    Returns
    -------
    list of str
        The statements, in order.

    Examples
    --------
    >>> duckdb_setup_sql("/tmp/spill", "1GB")[-1]
    "SET memory_limit = '1GB'"
    """
    return ["SET enable_progress_bar = true", "SET enable_progress_bar_print = false",
            f"SET temp_directory = {DUCKDB.literal(spill)}",
            f"SET memory_limit = {DUCKDB.literal(memory)}"]


def duckdb_seal_sql(files: Sequence[str]) -> list[str]:
    """Write the settings that close a DuckDB connection to all but ``files``, for good.

    Parameters
    ----------
    files : sequence of str
        The absolute paths (or links) the connection may still read.

    Returns
    -------
    list of str
        The statements, in order: the last one locks the configuration.

    Examples
    --------
    >>> duckdb_seal_sql(["/tmp/f0.csv"])[0]
    "SET allowed_paths = ['/tmp/f0.csv']"
    """
    listed = ", ".join(DUCKDB.literal(f) for f in files)
    return [f"SET allowed_paths = [{listed}]", "SET autoinstall_known_extensions = false",
            "SET autoload_known_extensions = false", "SET enable_external_access = false",
            "SET lock_configuration = true"]


# --------------------------------------------------------------------------------------------
# the items route: answers, item and cluster sums, and the checks' error path
# --------------------------------------------------------------------------------------------


def item_models_sql(dialect: _Dialect, table: str = "roles") -> str:
    """Select the distinct model names (as text) of a table renamed by :func:`roles_sql`.

    >>> item_models_sql(DUCKDB)
    'SELECT DISTINCT CAST(k_model AS VARCHAR) FROM roles'
    """
    return f"SELECT DISTINCT CAST(k_model AS {dialect.text}) FROM {table}"


def _item_score_sql(kind: str, dialect: _Dialect, words: Mapping[str, float]) -> str:
    """Write the score as DOUBLE: numbers and booleans cast; text read as a number or a score word."""
    if kind != "text":
        return "CAST(k_score AS DOUBLE)"
    v = f"LOWER(TRIM(CAST(k_score AS {dialect.text})))"
    cases = " ".join(f"WHEN {dialect.literal(w)} THEN {x!r}" for w, x in words.items())
    return f"CASE {v} {cases} ELSE TRY_CAST({v} AS DOUBLE) END"


def item_answers_sql(roles: Sequence[str], score_kind: str, dialect: _Dialect, table: str,
                     words: Mapping[str, float]) -> str:
    """Write the items' first aggregate: one row per (task, item, model), from the answers.

    Columns ``t`` (task), ``i`` (item), ``m`` (model, as text), ``k`` (answers), ``s``, ``s2``
    (sums of the score and its square), ``g0``, ``g1`` (smallest and largest cluster), ``bad``
    (answers with a missing, unreadable or non-finite score), ``nul`` (answers with a
    missing key) and ``brk`` (answers whose task, item, model or cluster holds U+FFFD). Items
    and clusters keep the source's type: they are only grouped and compared.

    Parameters
    ----------
    roles : sequence of str
        The fixed names the first step made: ``k_item``, ``k_model``, ``k_score`` and any of
        ``k_cluster``, ``k_sample``, ``k_task``.
    score_kind : {"number", "text"}
        How the score column is typed: text is read as a number or one of ``words``.
    dialect : _Dialect
        ``DUCKDB`` or ``SPARK``.
    table : str
        The table of the first step (a fixed view name).
    words : mapping of str to float
        The words a score may hold instead of a number, in lower case.

    Returns
    -------
    str

    Examples
    --------
    >>> sql = item_answers_sql(["k_item", "k_model", "k_score"], "number", DUCKDB, "roles", {})
    >>> sql.endswith("FROM r GROUP BY t, i, m")
    True
    """
    has = set(roles)
    x = _item_score_sql(score_kind, dialect, words)
    t = f"CAST(k_task AS {dialect.text})" if "k_task" in has else "''"
    g = "k_cluster" if "k_cluster" in has else "0"
    keys = [k for k in ("k_item", "k_model", "k_cluster", "k_sample", "k_task")
            if k in has or k in ("k_item", "k_model")]
    nul = " OR ".join(f"{k} IS NULL" for k in keys)
    # the names that tell answers apart (a sample number is only counted)
    named = ", ".join(f"CAST({k} AS {dialect.text})" for k in keys if k != "k_sample")
    brk = f"CASE WHEN instr(concat_ws('', {named}), '{REPLACEMENT}') > 0 THEN 1 ELSE 0 END"
    return (f"WITH r AS (SELECT {t} AS t, k_item AS i, CAST(k_model AS {dialect.text}) AS m, "
            f"{g} AS g, {x} AS x, CASE WHEN {nul} THEN 1 ELSE 0 END AS nul, {brk} AS brk "
            f"FROM {table}) "
            f"SELECT t, i, m, COUNT(*) AS k, SUM(x) AS s, SUM(x * x) AS s2, "
            f"MIN(g) AS g0, MAX(g) AS g1, "
            f"SUM(CASE WHEN x IS NULL OR NOT (x - x = 0) THEN 1 ELSE 0 END) AS bad, "
            f"SUM(nul) AS nul, SUM(brk) AS brk FROM r GROUP BY t, i, m")


def item_checks_sql(m: int, table: str) -> str:
    """Write the checks of the per-(item, model) table with model index ``j``: one row.

    Columns ``bad``, ``nul``, ``brk`` (answers with an unreadable score, a missing key, a name
    holding U+FFFD), ``multi`` (items answered more than once by a model), ``incomplete``
    (items some of the ``m`` models did not answer) and ``moved`` (items whose cluster
    changes). Its width does not grow with the models.

    >>> item_checks_sql(3, "im").startswith("WITH w AS (SELECT t, i, COUNT(*) AS nm")
    True
    """
    w = (f"SELECT t, i, COUNT(*) AS nm, MIN(g0) AS g0, MAX(g1) AS g1, MAX(k) AS kmax, "
         f"SUM(bad) AS bad, SUM(nul) AS nul, SUM(brk) AS brk FROM {table} GROUP BY t, i")
    return (f"WITH w AS ({w}) SELECT COALESCE(SUM(bad), 0) AS bad, COALESCE(SUM(nul), 0) AS nul, "
            f"COALESCE(SUM(brk), 0) AS brk, "
            f"COALESCE(SUM(CASE WHEN kmax > 1 THEN 1 ELSE 0 END), 0) AS multi, "
            f"COALESCE(SUM(CASE WHEN nm < {m} THEN 1 ELSE 0 END), 0) AS incomplete, "
            f"COALESCE(SUM(CASE WHEN g0 <> g1 THEN 1 ELSE 0 END), 0) AS moved FROM w")


def _item_codes_cte(table: str) -> str:
    """Write the CTEs that give each item whole-number codes, numbered over the items.

    ``ic`` in (task, item) order, ``tc`` in task order, ``gc`` in (task, cluster) order.
    """
    return (f"it AS (SELECT t, i, MIN(g0) AS g FROM {table} GROUP BY t, i), "
            f"ik AS (SELECT t, i, g, ROW_NUMBER() OVER (ORDER BY t, i) - 1 AS ic FROM it), "
            f"tk AS (SELECT t, ROW_NUMBER() OVER (ORDER BY t) - 1 AS tc FROM "
            f"(SELECT DISTINCT t FROM it) d), "
            f"gk AS (SELECT t, g, ROW_NUMBER() OVER (ORDER BY t, g) - 1 AS gc FROM "
            f"(SELECT DISTINCT t, g FROM it) e), "
            f"codes AS (SELECT ik.t, ik.i, CAST(ik.ic AS INT) AS ic, CAST(tk.tc AS INT) AS tc, "
            f"CAST(gk.gc AS INT) AS gc FROM ik JOIN tk ON ik.t = tk.t "
            f"JOIN gk ON ik.t = gk.t AND ik.g = gk.g)")


def item_index_sql(table: str) -> str:
    """Write the items' codes (see :func:`item_matrix_sql`): ``ic``, ``tc``, ``gc``, by ``ic``.

    >>> item_index_sql("im").endswith("SELECT ic, tc, gc FROM codes ORDER BY ic")
    True
    """
    return f"WITH {_item_codes_cte(table)} SELECT ic, tc, gc FROM codes ORDER BY ic"


def item_matrix_sql(table: str) -> str:
    """Write the per-(item, model) sums with the item's code: the item x model matrix, long.

    One row per answered (item, model): ``ic`` (the item's code, 0-based in (task, item) order,
    so that a task's items are contiguous; :func:`item_index_sql` gives each code's task ``tc``
    and cluster ``gc``), ``j`` (the model index), ``k`` (answers), ``s``, ``s2`` (sums of the
    score and its square). The rows are ``models x items``, never ``models²``: the products
    that give every pair's sums (XᵀX, SᵀS) are made from them in numpy
    (:func:`precmp_lib.engine.items.count_items`). The codes are numbered over the items and
    joined to the answers, so that no sort runs over the answers.

    >>> "JOIN codes c ON q.t = c.t AND q.i = c.i" in item_matrix_sql("im")
    True
    """
    return (f"WITH {_item_codes_cte(table)} SELECT c.ic AS ic, CAST(q.j AS INT) AS j, "
            f"CAST(q.k AS INT) AS k, CAST(q.s AS DOUBLE) AS s, CAST(q.s2 AS DOUBLE) AS s2 "
            f"FROM {table} q JOIN codes c ON q.t = c.t AND q.i = c.i")


def item_tasks_sql(table: str) -> str:
    """Write the tasks of the per-(item, model) table, in the order of the codes ``tc``.

    >>> item_tasks_sql("im")
    'SELECT DISTINCT t FROM im ORDER BY t'
    """
    return f"SELECT DISTINCT t FROM {table} ORDER BY t"


def item_common_sql(m: int, table: str, keep: bool) -> str:
    """Write the per-(item, model) rows of the items every model answered (``keep``), or the rest.

    An item counts as answered by the models that have a row for it; a key left empty or
    holding U+FFFD stays in the kept rows, so that the checks after name it.
    """
    op = "=" if keep else "<"
    return (f"SELECT r.* FROM {table} r JOIN (SELECT t, i, COUNT(*) AS nm FROM {table} "
            f"GROUP BY t, i) q ON r.t IS NOT DISTINCT FROM q.t AND r.i IS NOT DISTINCT FROM q.i "
            f"WHERE q.nm {op} {m}"
            f"{' OR r.nul > 0 OR r.brk > 0' if keep else ' AND r.nul = 0 AND r.brk = 0'}")


def item_dropped_sql(m: int, table: str) -> str:
    """Write, per task and model, the answered items left out because a model did not answer."""
    return (f"SELECT t, j, COUNT(*) AS n FROM ({item_common_sql(m, table, keep=False)}) d "
            f"GROUP BY t, j")


_ITEM_LOCATE = {
    "bad": "SELECT t, i, m FROM {im} WHERE bad > 0 ORDER BY t, i, m LIMIT 1",
    "nul": "SELECT t, i, m FROM {im} WHERE nul > 0 ORDER BY t, i, m LIMIT 1",
    # per role, the first value in text order holding U+FFFD
    "brk": ("SELECT " + ", ".join(
        f"MIN(CASE WHEN instr(CAST({c} AS STRING), '{REPLACEMENT}') > 0 THEN CAST({c} AS STRING) END)"
        for c in ("t", "i", "m", "g0", "g1")) + " FROM {im} WHERE brk > 0"),
    "multi": "SELECT t, i, m, k FROM {im} WHERE k > 1 ORDER BY t, i, m LIMIT 1",
    "moved": ("SELECT t, i, MIN(g0), MAX(g1) FROM {im} GROUP BY t, i HAVING MIN(g0) <> MAX(g1) "
              "ORDER BY t, i LIMIT 1"),
    "incomplete": ("SELECT t, i, COUNT(*) FROM {im} GROUP BY t, i HAVING COUNT(*) < {m} "
                   "ORDER BY t, i LIMIT 1"),
}


def item_locate_sql(check: str, m: int, table: str = "im") -> str:
    """Error path only: find the first item that fails a check of :func:`item_sums_sql`.

    Parameters
    ----------
    check : {"bad", "nul", "brk", "multi", "moved", "incomplete"}
        The check column of :func:`item_checks_sql` that fails.
    m : int
        The number of models.
    table : str
        The per-(item, model) table of :func:`item_answers_sql` with the model index ``j``.

    Returns
    -------
    str
        The query; its first row names the task, the item and (but for ``moved`` and
        ``incomplete``) the model, or for ``brk`` the first task, item, model and clusters
        holding U+FFFD.

    Examples
    --------
    >>> item_locate_sql("incomplete", 3)
    'SELECT t, i, COUNT(*) FROM im GROUP BY t, i HAVING COUNT(*) < 3 ORDER BY t, i LIMIT 1'
    """
    return _ITEM_LOCATE[check].format(im=table, m=m)


# --------------------------------------------------------------------------------------------
# the predictions' model names (long layout) and the error path
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# cluster sums and class profiles in SQL: the text of precmp_lib.core.clusters' two levels
# --------------------------------------------------------------------------------------------


def cluster_sums_sql(n_models: int, table: str, ctes: str = "", *,
                     n_classes: int | None = None, max_size: int | None = None,
                     distinct: str | None = None, distinct_codes: int | None = None,
                     packed: bool = False, max_rows: int | None = None) -> str:
    """Write the two-level aggregation of the cluster sums as one SQL text.

    The same sums as :func:`~precmp_lib.core.clusters.cluster_sums` computes with numpy.

    Parameters
    ----------
    n_models : int
        ``c``, the number of models.
    table : str
        A table (or a CTE name) with the integer columns ``cl`` (the cluster), ``y`` (true
        class code), ``p0`` .. ``p{c-1}`` (predicted class codes) and ``n`` (rows). It is the
        caller's internal name, never user text.
    ctes : str
        The caller's common table expressions (``"a AS (...), t AS (...)"``) that define
        ``table``; they open the query's ``WITH``.
    n_classes, max_size : int, optional
        ``K``, and a bound the caller knows on the rows of a cluster if all is well (the repeats,
        when an observation has one row per repeat). With both, when
        :func:`~precmp_lib.core.clusters.packed_bits` allows it, the first level is one ``GROUP BY
        cl`` of packed counts (see Notes) and the top row also has ``over``, the clusters of more
        than ``max_size`` rows, whose sums are then not exact
        (:func:`~precmp_lib.core.clusters.cluster_sums_from_rows` refuses them). Otherwise the
        classes are found by unpivoting.
    distinct, distinct_codes : str and int, optional
        A column of ``table`` (the caller's internal name) that should not repeat within a
        cluster, and, if it holds codes ``0 .. distinct_codes - 1``, their number; the top
        row then also has ``dup``, 0 when no value repeats within a cluster and positive
        otherwise (from a bit mask when there are at most 30 codes: a cluster's sum of
        ``2^code`` has as many bits set as rows exactly when no code repeats; else from
        ``COUNT(DISTINCT)``).
    packed : bool
        The packed form only: ``table`` already holds each row's words ``v<w>``
        (:func:`~precmp_lib.core.clusters.packed_terms` times ``n``) and, with ``distinct``, ``dm``
        (``n * 2^code``), as the caller's table of codes can give them at no cost per row; ``p<j>``
        are not read.
    max_rows : int, optional
        The packed form only: a bound on the rows of ``table`` (the sum of ``n``). When
        ``max_size * max_rows < 2^53`` every sum over clusters is below ``2^53`` (a sum of
        products of a cluster's counts is at most ``sum_i m_i^2 <= max_size sum_i m_i``),
        so the second level sums in double precision, exactly and faster than in integers
        (DuckDB sums BIGINT into 128-bit integers).

    Returns
    -------
    str
        One query (``WITH ... SELECT``) that DuckDB and Spark both run. Its rows: one with ``g = 1``
        (the per-cluster sums: ``clusters``, ``s``, ``ss``, ``mixed``, ``r<j>``, ``rr<j>``,
        ``rs<j>``) and one per class ``k`` predicted somewhere with ``g = 0`` (``a<j>``, ``w<j>``,
        ``aa<j>_<l>``, ``aw<j>_<l>``, ``ww<j>_<l>``).
        :func:`~precmp_lib.core.clusters.cluster_sums_from_rows` turns them into
        :class:`~precmp_lib.core.clusters.ClusterSums`.

    Notes
    -----
    With ``n_classes`` and ``max_size`` (the packed form), the table is read once, grouped by
    cluster, into a few sums: ``m``, the smallest and largest truth, and words of
    :data:`~precmp_lib.core.clusters.PACKED_BITS` bits holding ``b``-bit fields (``2^b >
    max_size``): per model ``j`` its right rows ``r_ij`` and its wrong rows per predicted class
    ``w_ijk`` (:func:`~precmp_lib.core.clusters.packed_terms`; a row adds ``n * 2^shift`` to each of
    its fields). A cluster of at most ``max_size`` rows fills no field beyond ``2^b - 1``, so the
    fields are exact, read back from the word, cast to BIGINT, with a shift and a mask (``(v >> s) &
    (2^b - 1)``). In a cluster of one true class ``y``, ``a_ijk`` is ``r_ij`` for ``k = y`` and 0
    otherwise, so ``cw`` is 0 and ``cc`` sums ``r_ij r_il`` over the clusters of truth ``k``: the
    second level groups the clusters by truth, the third sums across the ``K`` groups into one row,
    which a cross join with the ``K + 1`` row numbers turns into the rows described above (every
    class has its row). The top row also has ``over`` (clusters beyond ``max_size``);
    :func:`~precmp_lib.core.clusters.cluster_sums_from_rows` refuses the sums when it or ``mixed``
    is not 0. Nothing groups by pattern or by (cluster, class): one pass over the table and one hash
    table of ``G`` rows with few columns.

    Without it, the table is unpivoted once against the model index, keeping each row only under the
    first model that predicts each class (``jx.j``; the rows of a (cluster, class) cell are
    then each counted once); the first level groups the unpivoted rows by ``(cl, k)`` and the
    table by ``cl``, the second sums across clusters (by ``k`` for the class moments). Only the
    fixed names above and integers appear in the text.

    Examples
    --------
    >>> sql = cluster_sums_sql(2, "t0")
    >>> "GROUP BY cl, k" in sql, sql.count("UNION ALL")
    (True, 2)
    >>> sql = cluster_sums_sql(2, "t0", n_classes=3, max_size=10, distinct="rep",
    ...                        distinct_codes=10)
    >>> "GROUP BY cl, k" in sql, "bit_count" in sql
    (False, True)
    """
    c = check_positive_int(n_models, "n_models")
    js = range(c)
    mask = distinct is not None and distinct_codes is not None and (
        check_positive_int(distinct_codes, "distinct_codes") <= 30)
    check = ""
    if distinct is not None:
        check = (", SUM(n) - bit_count(CAST(SUM(dm) AS BIGINT)) AS d" if mask
                 else f", SUM(n) - COUNT(DISTINCT {distinct}) AS d")
    bits = None if n_classes is None or max_size is None else packed_bits(max_size, c, n_classes)
    if bits is not None:
        assert n_classes is not None and max_size is not None
        k = check_positive_int(n_classes, "n_classes")
        if not packed:  # the packed terms of each row, from its codes
            ctes, table = _terms_cte(c, k, bits, table, ctes, distinct, mask), "pk"
        in_double = max_rows is not None and max_size * check_positive_int(max_rows, "max_rows") < 2 ** 53
        unique = None if distinct is None else ("mask" if mask else distinct)
        return _packed_sql(c, k, bits, max_size, table, ctes, unique, packed, in_double)
    if packed:
        raise ValueError(f"packed terms need n_classes and a max_size below 2^{PACKED_BITS}; "
                         f"got n_classes={n_classes}, max_size={max_size}")
    if mask:  # the bit mask of each row
        ctes = (f"{ctes + ', ' if ctes else ''}pk AS (SELECT *, CAST(POWER(2, {distinct}) AS "
                f"BIGINT) * n AS dm FROM {table})")
        table = "pk"
    index = " UNION ALL ".join(f"SELECT {j} AS j" for j in js)
    pick = "CASE jx.j " + " ".join(f"WHEN {j} THEN p{j}" for j in js) + " END"
    first = " OR ".join(
        "(jx.j = {j}{rest})".format(j=j, rest="".join(f" AND p{j} <> p{i}" for i in range(j)))
        for j in js)
    u = (f"SELECT cl, y, {', '.join(f'p{j}' for j in js)}, n, jx.j AS j, {pick} AS k "
         f"FROM {table} CROSS JOIN ({index}) jx WHERE {first}")
    # first level: per (cluster, class) from the unpivoted rows, per cluster from the table;
    # sums kept as BIGINT (DuckDB would sum into 128-bit integers, whose products cost more)
    per_cell = ["cl", "k"]
    for j in js:
        per_cell += [f"CAST(SUM(CASE WHEN p{j} = k AND y = k THEN n ELSE 0 END) AS BIGINT) AS a{j}",
                     f"CAST(SUM(CASE WHEN p{j} = k AND y <> k THEN n ELSE 0 END) AS BIGINT) AS w{j}"]
    per_cluster = ["cl", "CAST(SUM(n) AS BIGINT) AS m", "MIN(y) AS ylo", "MAX(y) AS yhi",
                   *(f"CAST(SUM(CASE WHEN p{j} = y THEN n ELSE 0 END) AS BIGINT) AS r{j}"
                     for j in js)]
    if distinct is not None:
        per_cluster.append(check[2:])
    # second level: across clusters; the two parts share one column list (0 where unused)
    top = {"clusters": "COUNT(*)", "s": "SUM(m)", "ss": "SUM(m * m)",
           "mixed": "SUM(CASE WHEN ylo <> yhi THEN 1 ELSE 0 END)"}
    if distinct is not None:
        top["dup"] = "SUM(d)"
    cells: dict[str, str] = {}
    for j in js:
        top.update({f"r{j}": f"SUM(r{j})", f"rr{j}": f"SUM(r{j} * r{j})",
                    f"rs{j}": f"SUM(r{j} * m)"})
        cells.update({f"a{j}": f"SUM(a{j})", f"w{j}": f"SUM(w{j})"})
        for i in js:
            cells[f"aw{j}_{i}"] = f"SUM(a{j} * w{i})"
            if i >= j:
                cells[f"aa{j}_{i}"] = f"SUM(a{j} * a{i})"
                cells[f"ww{j}_{i}"] = f"SUM(w{j} * w{i})"
    cells["clusters"] = "COUNT(*)"
    names = list(dict.fromkeys([*top, *cells]))

    def select(parts: dict[str, str]) -> str:
        return ", ".join(f"CAST({parts.get(c, '0')} AS BIGINT) AS {c}" for c in names)

    return (f"WITH {ctes + ', ' if ctes else ''}u AS ({u}), "
            f"ck AS (SELECT {', '.join(per_cell)} FROM u GROUP BY cl, k), "
            f"c1 AS (SELECT {', '.join(per_cluster)} FROM {table} GROUP BY cl) "
            f"SELECT 1 AS g, CAST(NULL AS BIGINT) AS k, {select(top)} FROM c1 "
            f"UNION ALL SELECT 0 AS g, CAST(k AS BIGINT) AS k, {select(cells)} FROM ck GROUP BY k")



def _terms_cte(c: int, k: int, bits: int, table: str, ctes: str, distinct: str | None,
               mask: bool) -> str:
    """Return the CTEs followed by ``pk``: each row's packed words from its codes, times n."""
    words: dict[int, list[str]] = {}
    for f, (j, q) in enumerate(packed_fields(c, k)):
        word, shift = packed_position(f, bits)
        cond = f"p{j} = y" if q is None else f"p{j} = {q} AND y <> {q}"
        words.setdefault(word, []).append(f"CASE WHEN {cond} THEN {2 ** shift} ELSE 0 END")
    terms = ["cl", "y", "n", *(f"CAST({' + '.join(v)} AS BIGINT) * n AS v{w}"
                               for w, v in words.items())]
    if mask:
        terms.append(f"CAST(POWER(2, {distinct}) AS BIGINT) * n AS dm")
    elif distinct is not None:
        terms.append(distinct)
    return f"{ctes + ', ' if ctes else ''}pk AS (SELECT {', '.join(terms)} FROM {table})"


def _packed_sql(c: int, k: int, bits: int, max_size: int, table: str, ctes: str,
                unique: str | None, single: bool, in_double: bool) -> str:
    """Write the one-pass form of :func:`cluster_sums_sql` (packed counts); see its Notes."""
    js, ks = range(c), range(k)
    pairs = [(j, i) for j in js for i in js if i >= j]
    fields = packed_fields(c, k)
    n_words = packed_position(len(fields) - 1, bits)[0] + 1
    # a row of the caller's packed terms is one row (n = 1): COUNT(*), whose state is smaller
    # than a sum's; the words and the mask summed in double precision (exact, see PACKED_BITS)
    first = ["cl", "COUNT(*) AS m" if single else "CAST(SUM(n) AS BIGINT) AS m",
             "MIN(y) AS ylo", "MAX(y) AS yhi",
             *(f"SUM(CAST(v{w} AS DOUBLE)) AS v{w}" for w in range(n_words))]
    if unique == "mask":
        first.append("SUM(CAST(dm AS DOUBLE)) AS dm")
    elif unique is not None:
        first.append(f"{first[1][:-5]} - COUNT(DISTINCT {unique}) AS d")
    # a cluster beyond max_size (refused) has its words read as 0, never cast out of range
    big = f"m > {int(max_size)}"

    def field(f: int) -> str:
        # a shift and a mask of the word as a BIGINT (integer operations, cheaper than
        # dividing and taking remainders in double precision)
        word, shift = packed_position(f, bits)
        return f"((v{word} >> {shift}) & {2 ** bits - 1})"

    # per cluster: the checks, and the words as BIGINTs (exact: a word's sum is an integer
    # below 2^53); 0 for a cluster beyond max_size
    check = unique is not None
    guarded = ["m", "ylo", "yhi", *(f"CAST(CASE WHEN {big} THEN 0 ELSE v{w} END AS BIGINT) AS v{w}"
                                    for w in range(n_words))]
    if unique == "mask":  # as many bits set as rows when no code repeats
        guarded.append(f"CASE WHEN {big} THEN m ELSE m - bit_count(CAST(dm AS BIGINT)) END AS d")
    elif check:
        guarded.append("d")
    # the counts unpacked
    # (in double precision when the sums are: the products of the next level are then
    # computed on doubles, with no cast per product)
    def number(value: str) -> str:
        return f"CAST({value} AS DOUBLE)" if in_double else value

    unpacked = [f"{number('m')} AS m", "ylo", "yhi", *(["d"] if check else [])]
    unpacked += [f"{number(field(f))} AS {'r' if q is None else 'w'}{j}{'' if q is None else f'_{q}'}"
                 for f, (j, q) in enumerate(fields)]
    # per true class of the clusters (ylo): sums over its clusters
    by_truth = {"clusters": "COUNT(*)", "s": "SUM(m)", "ss": "SUM(m * m)",
                "mixed": "SUM(CASE WHEN ylo <> yhi THEN 1 ELSE 0 END)",
                "over": f"SUM(CASE WHEN m > {int(max_size)} THEN 1 ELSE 0 END)",
                **({"dup": "SUM(d)"} if check else {})}
    for j in js:
        by_truth.update({f"r{j}": f"SUM(r{j})", f"rs{j}": f"SUM(r{j} * m)"})
    by_truth.update({f"rr{j}_{i}": f"SUM(r{j} * r{i})" for j, i in pairs})
    for q in ks:
        by_truth.update({f"w{j}_{q}": f"SUM(w{j}_{q})" for j in js})
        by_truth.update({f"ww{j}_{i}_{q}": f"SUM(w{j}_{q} * w{i}_{q})" for j, i in pairs})
    if in_double:  # SUM(x) -> SUM(CAST(x AS DOUBLE)): exact below 2^53 (see max_rows)
        by_truth = {n: f"SUM(CAST({v[4:-1]} AS DOUBLE))" for n, v in by_truth.items()
                    if v.startswith("SUM(")} | {n: v for n, v in by_truth.items()
                                               if not v.startswith("SUM(")}
    second = ["ylo", *(f"{v} AS {n}" for n, v in by_truth.items())]
    # over the true classes: the top sums, and per class the columns of its row; a cluster
    # of one true class y has a_ijk = r_ij for k = y and 0 for the others, so cw is 0
    top = {n: f"SUM({n})" for n in ("clusters", "s", "ss", "mixed", "over",
                                     *(["dup"] if check else []))}
    for j in js:
        top.update({f"r{j}": f"SUM(r{j})", f"rr{j}": f"SUM(rr{j}_{j})", f"rs{j}": f"SUM(rs{j})"})
    cells: dict[str, list[str]] = {}
    for j in js:
        cells[f"a{j}"] = [f"SUM(CASE WHEN ylo = {q} THEN r{j} ELSE 0 END)" for q in ks]
        cells[f"w{j}"] = [f"SUM(w{j}_{q})" for q in ks]
    for j, i in pairs:
        cells[f"aa{j}_{i}"] = [f"SUM(CASE WHEN ylo = {q} THEN rr{j}_{i} ELSE 0 END)" for q in ks]
        cells[f"ww{j}_{i}"] = [f"SUM(ww{j}_{i}_{q})" for q in ks]
    third = [f"CAST({v} AS BIGINT) AS t_{n}" for n, v in top.items()]
    third += [f"CAST({v} AS BIGINT) AS x_{n}_{q}" for n, vs in cells.items()
              for q, v in enumerate(vs)]
    names = list(dict.fromkeys([*top, *cells, *(f"aw{j}_{i}" for j in js for i in js)]))

    def column(name: str) -> str:
        on_top = f"WHEN kx.k < 0 THEN t_{name} " if name in top else ""
        per_class = (" ".join(f"WHEN kx.k = {q} THEN x_{name}_{q}" for q in ks) + " "
                     if name in cells else "")
        if not on_top and not per_class:  # cw: 0 in every row
            return f"CAST(0 AS BIGINT) AS {name}"
        return f"CAST(CASE {on_top}{per_class}ELSE 0 END AS BIGINT) AS {name}"

    index = " UNION ALL ".join(f"SELECT {q} AS k" for q in range(-1, k))
    return (f"WITH {ctes + ', ' if ctes else ''}"
            f"c1 AS (SELECT {', '.join(first)} FROM {table} GROUP BY cl), "
            f"cw AS (SELECT {', '.join(guarded)} FROM c1), "
            f"c2 AS (SELECT {', '.join(unpacked)} FROM cw), "
            f"s2 AS (SELECT {', '.join(second)} FROM c2 GROUP BY ylo), "
            f"s3 AS (SELECT {', '.join(third)} FROM s2) "
            f"SELECT CASE WHEN kx.k < 0 THEN 1 ELSE 0 END AS g, "
            f"CASE WHEN kx.k < 0 THEN CAST(NULL AS BIGINT) ELSE CAST(kx.k AS BIGINT) END AS k, "
            f"{', '.join(column(n) for n in names)} FROM s3 CROSS JOIN ({index}) kx")



def class_profiles_sql(n_models: int, n_profiled: int, table: str, ctes: str = "", *,
                       max_size: int) -> str:
    """Write the class profiles of each class as one SQL text: per cluster, then per profile.

    The same profiles as :func:`~precmp_lib.core.clusters.class_profiles` computes with numpy.

    Parameters
    ----------
    n_models, n_profiled : int
        ``m`` and ``C``, the classes profiled.
    table : str
        A table (or CTE name, the caller's internal name) with the integer column ``cl`` (the
        cluster) and the words ``v<c>_<w>`` of :func:`~precmp_lib.core.clusters.profile_terms`, one
        row per row counted.
    ctes : str
        The caller's common table expressions that define ``table``.
    max_size : int
        The most rows of a cluster (the caller has checked it): the fields' width.

    Returns
    -------
    str
        The query: for each class, one row per distinct profile over that class: the class's
        packed words (a cluster's sums of its rows' words), ``k``, the clusters with the
        profile, and ``g<c>``, 0 on the rows of class ``c``.
        :func:`~precmp_lib.core.clusters.class_profiles_from_rows` reads them.

    Notes
    -----
    The first level sums each cluster's words in double precision (exact, and a smaller state
    than an integer sum); the second groups the clusters by each class's words (``GROUPING
    SETS``, one pass), which hold the class's whole profile. A class's profiles are bounded by
    the repeats and the models (each field holds at most ``max_size``), not by the clusters.

    Examples
    --------
    >>> import duckdb
    >>> from precmp_lib.core.clusters import class_profiles, class_profiles_from_rows
    >>> t = pd.DataFrame({"cl": [0, 0, 1, 1, 2, 2], "y": [1, 1, 1, 1, 0, 0],
    ...                   "p0": [1, 0, 1, 1, 0, 1], "p1": [1, 1, 1, 1, 0, 0]})
    >>> t = pd.concat([t, profile_terms(t["y"], t[["p0", "p1"]], classes=[1, 0], max_size=2)], axis=1)
    >>> rows = duckdb.sql(class_profiles_sql(2, 2, "t", max_size=2)).df()
    >>> got = class_profiles_from_rows(rows, [1, 0], 2, max_size=2)
    >>> [g.equals(class_profiles(t["cl"], t["y"], t[["p0", "p1"]], [1] * 6, classes=[c]))
    ...  for g, c in zip(got, [1, 0])]
    [True, True]
    """
    m = check_positive_int(n_models, "n_models")
    c = check_positive_int(n_profiled, "n_profiled")
    n_words = profile_words(m, max_size)
    words = [[f"v{q}_{w}" for w in range(n_words)] for q in range(c)]
    flat = [v for group in words for v in group]
    per = ("s AS (SELECT " + ", ".join(f"CAST(SUM(CAST({v} AS DOUBLE)) AS BIGINT) AS {v}"
                                        for v in flat) + f" FROM {table} GROUP BY cl)")
    sets = ", ".join(f"({', '.join(group)})" for group in words)
    flags = ", ".join(f"GROUPING({group[0]}) AS g{q}" for q, group in enumerate(words))
    return (f"WITH {ctes + ', ' if ctes else ''}{per} "
            f"SELECT {flags}, {', '.join(flat)}, COUNT(*) AS k FROM s "
            f"GROUP BY GROUPING SETS ({sets})")
