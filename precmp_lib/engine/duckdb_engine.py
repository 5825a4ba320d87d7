"""The DuckDB engine: counts where the file lives, out of core, no server."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    import duckdb

from .._lib.limits import check_limit
from ..core.predictions import Counts
from .base import PredictionFileError, _check_flat, _Spec
from .dictionary import _value
from .files import _delimiter, _duckdb_keep, _field_count_error, _line_end
from .finish import _finish
from .sql import (
    DUCKDB,
    _locate_sql,
    _models_sql,
    _roles,
    _split_sets,
    counting_sql,
    duckdb_read_sql,
    duckdb_seal_sql,
    duckdb_setup_sql,
    roles_sql,
)

# DuckDB's working memory for one count of predictions; beyond it, hash tables spill to disk.
# With 1 GB the cluster query of a 1e7-row cross-validated file (a GROUP BY of 1e6
# observations) stays in memory: the whole report peaks near 0.6 GiB of RSS. Under 512 MB
# DuckDB partitions that GROUP BY to spill it, which took three times as long and peaked
# higher (0.75 GiB).
DUCKDB_MEMORY = "1GB"
# DuckDB's memory limit for the item sums: every level of the query is a GROUP BY that spills
# to disk beyond it, and the report around the query (Python, pandas, the plots) needs the
# rest of a 1 GiB budget.
ITEM_DUCKDB_MEMORY = "512MB"
# An amount of memory as DuckDB's memory_limit takes it: a number and one of its units.
_MEMORY = re.compile(r"(?P<n>[0-9]+(?:\.[0-9]+)?) ?(?P<unit>[KMGT]i?B|B)", re.IGNORECASE)

# --------------------------------------------------------------------------------------------
# DuckDB
# --------------------------------------------------------------------------------------------


def duckdb_memory(default: str = DUCKDB_MEMORY) -> str:
    """Return the memory limit of the engines' DuckDB queries: ``PRECMP_DUCKDB_MEMORY``, else ``default``.

    Parameters
    ----------
    default : str
        The route's own limit (:data:`DUCKDB_MEMORY` for predictions, :data:`ITEM_DUCKDB_MEMORY`
        for items).

    Returns
    -------
    str
        As DuckDB spells it (``"1GB"``), and as messages name it.

    Examples
    --------
    >>> os.environ.pop("PRECMP_DUCKDB_MEMORY", None) and None
    >>> duckdb_memory(), duckdb_memory(ITEM_DUCKDB_MEMORY)
    ('1GB', '512MB')
    >>> os.environ["PRECMP_DUCKDB_MEMORY"] = "1PB"
    >>> duckdb_memory()
    Traceback (most recent call last):
    ...
    ValueError: PRECMP_DUCKDB_MEMORY must be an amount of memory with its unit, such as 4GB or 512MiB (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB); got '1PB'
    >>> del os.environ["PRECMP_DUCKDB_MEMORY"]

    Raises
    ------
    ValueError
        When ``PRECMP_DUCKDB_MEMORY`` is set to anything but a positive amount with a unit
        DuckDB knows (checked here: DuckDB's own error is a parser's traceback).
    """
    text = os.environ.get("PRECMP_DUCKDB_MEMORY", "").strip()
    if not text:
        return default
    match = _MEMORY.fullmatch(text)
    if match is None or float(match["n"]) <= 0:
        raise ValueError("PRECMP_DUCKDB_MEMORY must be an amount of memory with its unit, such "
                         "as 4GB or 512MiB (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB); got "
                         f"{text!r:.60}")
    return text


def _duckdb_source(con: duckdb.DuckDBPyConnection, kind: str, files: list[str],
                   columns: list[str]) -> duckdb.DuckDBPyRelation:
    return con.sql(duckdb_read_sql(kind, files, len(columns), _delimiter(files[0]),
                                   _line_end(files[0]) if kind == "csv" else "\\n"))


def duckdb_table(con: duckdb.DuckDBPyConnection, kind: str, files: list[str],
                 columns: list[str], name: str, memory: str | None = None) -> duckdb.DuckDBPyRelation:
    """Open files as a DuckDB relation of ``columns`` (every CSV cell as text).

    The files of a Parquet pattern are read by column name and their ``columns`` kept by
    position, so that no column name reaches a query.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        A connection of :func:`duckdb_connection`.
    kind : {"csv", "parquet"}
    files : list of str
        Plain names (:func:`~precmp_lib.engine.files.literal_files`).
    columns : list of str
        The files' columns (:func:`~precmp_lib.engine.files.file_columns`).
    name : str
        The source's name, for messages.
    memory : str, optional
        The connection's memory limit, for messages (default :func:`duckdb_memory`).

    Returns
    -------
    duckdb.DuckDBPyRelation

    Raises
    ------
    PredictionFileError
        When DuckDB cannot open the files.
    """
    try:
        rel = _duckdb_source(con, kind, files, columns)
        return _duckdb_keep(rel, columns) if kind == "parquet" else rel
    except PredictionFileError:
        raise
    except Exception as exc:  # duckdb.Error while opening the file
        raise duckdb_error(name, kind, exc, files, memory) from None


def duckdb_error(name: str, kind: str, exc: Exception, files: Sequence[str],
                 memory: str | None = None) -> PredictionFileError:
    """Turn a DuckDB failure into one line naming the source: never the raw line of a file.

    DuckDB's first line and reason are kept; a CSV row with more or fewer fields than the
    header is named by its line; running out of memory names the limit and how to raise it.

    Parameters
    ----------
    name, kind : str
        The source's name and kind (``"csv"``, ``"parquet"``; ``"DataFrame"``, ``"relation"``).
    exc : Exception
        DuckDB's error.
    files : sequence of str
        Paths to replace by ``name`` in the message.
    memory : str, optional
        The memory limit the query ran under (default :func:`duckdb_memory`).

    Returns
    -------
    PredictionFileError

    Examples
    --------
    >>> str(duckdb_error("a.csv", "csv", RuntimeError("Conversion Error: bad"), []))
    'a.csv: cannot be read as CSV (Conversion Error: bad)'
    """
    if type(exc).__name__ == "OutOfMemoryException" or "Out of Memory" in str(exc):
        return PredictionFileError(
            f"{name}: DuckDB ran out of memory counting it (its limit is {memory or duckdb_memory()}); "
            "raise the limit with the environment variable PRECMP_DUCKDB_MEMORY (e.g. "
            "PRECMP_DUCKDB_MEMORY=4GB)")
    shape = re.search(r"CSV Error on Line: (\d+)\s*(?:Original Line:[^\n]*\n)?\s*"
                      r"Expected Number of Columns: (\d+) Found: (\d+)", str(exc))
    if shape and kind == "csv":
        line, width, found = (int(g) for g in shape.groups())
        return _field_count_error(name, line, found, width)
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
    from duckdb import ColumnExpression, ConstantExpression, FunctionExpression

    name = ColumnExpression("k_model").cast(duckdb.sqltypes.VARCHAR)
    # one list of the names, one lookup: list_position is 1-based, NULL for another model
    found = FunctionExpression("list_position", ConstantExpression(list(spec.models)), name)
    index = FunctionExpression("nullif", found, ConstantExpression(0)) - ConstantExpression(1)
    keep = [ColumnExpression(fixed) for fixed, _ in _roles(spec) if fixed != "k_model"]
    return roles.select(*keep, index.alias("k_model"))


def _duckdb_count(spec: _Spec, relation: duckdb.DuckDBPyRelation, columns: Sequence[str],
                  con: duckdb.DuckDBPyConnection, progress: bool,
                  on_error: Callable[[Exception], PredictionFileError]) -> Counts:
    _check_flat(spec, columns, relation)
    try:
        roles = relation.query("src", roles_sql(_roles(spec), columns))
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
    check_limit("models", len(spec.models or available), f"{spec.name}: column {spec.model_col!r}",
                PredictionFileError)
    if spec.models:
        unknown = sorted(set(spec.models) - set(available))
        if unknown:
            raise spec.fail(f"column {spec.model_col!r} has no rows for model(s) {unknown}")
    else:
        spec.models = available
    if not spec.models:
        raise spec.fail("the file has a header but no rows")


def duckdb_connection(memory: str = DUCKDB_MEMORY) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB connection for an engine: its memory limit and a private spill folder.

    Progress is tracked (for ``query_progress``) but never printed by DuckDB itself; large
    groupings (the ids of long files) spill to a private folder, removed with the
    connection, instead of growing to most of the machine's memory or writing into the
    current folder.

    Parameters
    ----------
    memory : str
        The route's memory limit, unless ``PRECMP_DUCKDB_MEMORY`` sets one
        (:func:`duckdb_memory`).

    Returns
    -------
    duckdb.DuckDBPyConnection

    Examples
    --------
    >>> os.environ.pop("PRECMP_DUCKDB_MEMORY", None) and None
    >>> con = duckdb_connection(ITEM_DUCKDB_MEMORY)
    >>> con.execute("SELECT current_setting('memory_limit')").fetchone()  # 512e6 bytes
    ('488.2 MiB',)
    """
    import duckdb

    memory = duckdb_memory(memory)  # a bad setting is refused before the folder is made
    con = duckdb.connect()
    spill = tempfile.mkdtemp(prefix="precmp-duckdb-")
    weakref.finalize(con, shutil.rmtree, spill, True)
    for statement in duckdb_setup_sql(spill, memory):
        con.execute(statement)
    return con


def seal_connection(con: duckdb.DuckDBPyConnection, files: Sequence[str]) -> None:
    """Close an engine's DuckDB connection to everything but the files it reads, for good.

    Only ``files`` stay readable (DuckDB reads a relation's files when a query runs, not when
    the relation is made); every other file, extension downloads and loads, and any further
    change of a setting are refused. Call it when the connection's settings and relations
    are made.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        A connection of :func:`duckdb_connection` (never a caller's own).
    files : sequence of str
        The paths (or links) the relations read.

    Examples
    --------
    >>> con = duckdb_connection()
    >>> seal_connection(con, [])
    >>> con.execute("SELECT current_setting('enable_external_access'), "
    ...             "current_setting('lock_configuration')").fetchone()
    (False, True)
    """
    for statement in duckdb_seal_sql([os.path.abspath(f) for f in files]):
        con.execute(statement)


