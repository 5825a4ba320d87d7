"""File access for the readers of long tables that are not the prediction counter (evaluation items)."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    import duckdb
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession

from .base import PredictionFileError
from .duckdb_engine import _connect, _duckdb_error, _duckdb_source
from .files import (
    _describe_path,
    _file_columns,
    _literal_files,
    _malformed_line,
    _read_csv_text,
    _unreadable,
)
from .spark_engine import _spark_read, is_spark_connect

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


def duckdb_file_error(name: str, kind: str, exc: Exception, files: list[str],
                      memory: str | None = None) -> PredictionFileError:
    """Turn a DuckDB failure while reading files into one line naming the source.

    Parameters
    ----------
    name, kind : str
        The source's name and kind.
    exc : Exception
        DuckDB's error.
    files : list of str
        Paths to replace by ``name`` in the message.
    memory : str, optional
        The memory limit the query ran under (named when it ran out), when not the engines'
        default.

    Returns
    -------
    PredictionFileError
    """
    return _duckdb_error(name, kind, exc, files, memory)


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


def read_columns(kind: str, files: list[str], columns: list[str], name: str,
                 header: list[str]) -> pd.DataFrame:
    """Read some columns of the files into memory (CSV cells as text, empty cells missing).

    Parameters
    ----------
    kind : {"csv", "parquet"}
    files : list of str
    columns : list of str
        The columns to read.
    name : str
        The source's name, for messages.
    header : list of str
        Every column of the files, in order (:func:`file_columns`): a CSV row with more or
        fewer fields is refused naming its line, as DuckDB and Spark refuse it.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    PredictionFileError
        When the files cannot be parsed.
    """
    if kind == "csv":
        return _read_csv_text(files[0], name, header, columns)
    try:
        return pd.concat([pd.read_parquet(f, columns=columns) for f in files], ignore_index=True)
    except Exception as exc:  # any parser failure is a file problem for the user
        raise _unreadable(name, kind, exc) from None


def malformed_line(path: str, name: str, width: int) -> PredictionFileError | None:
    """Find the first CSV row with more or fewer fields than the header's ``width``.

    Parameters
    ----------
    path : str
    name : str
        The source's name, for messages.
    width : int
        The header's number of columns.

    Returns
    -------
    PredictionFileError or None
        The one line naming the row's line and its number of fields, or None when every row
        fits (or the file cannot be read as CSV text).
    """
    return _malformed_line(path, name, width)
