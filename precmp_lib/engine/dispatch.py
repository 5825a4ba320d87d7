"""One dispatcher from a source to an engine, for every route.

A route (the predictions' pattern counts, the items' sums, and any route after them) registers
its counters once (:func:`register`, a :class:`Counters`): how it checks the source's columns
before any row is read, and one counter per engine (numpy, DuckDB, Spark) that turns an opened
source into the route's sufficient statistics. :func:`count` does the rest, the same way for
every route:

1. it checks ``engine`` against :data:`ENGINES`, recognises the source (a mapping of arrays, a
   pandas DataFrame, a path or glob, a DuckDB relation, a Spark DataFrame) and checks that the
   engine reads that kind of source: :class:`EngineError` otherwise, for every route alike;
2. it reads the source's column names (a CSV header; the Parquet schemas of a pattern's files,
   which must agree) and hands them to the route's request, which checks them against the
   caller's arguments before any row is read (a :class:`Source`);
3. it opens the source once for the engine: the columns the route reads, in memory, for numpy;
   a relation on a DuckDB connection under the route's memory limit, sealed to the files it
   reads; a Spark DataFrame. Files reach DuckDB and Spark through plain links that last as
   long as the count;
4. it calls the route's counter for that engine with the :class:`Opened` source.

The engines are imported when a count runs: the command reads :data:`ENGINES` for its options
without loading pandas.

Examples
--------
A route that counts rows, on every engine:

>>> import pandas as pd
>>> def rows(opened, request):
...     return opened.name, opened.engine, len(opened.data.df() if opened.con else opened.data)
>>> _ = register(Counters("rows", request=lambda source, args: None, reads=lambda request: [],
...                       numpy=rows, duckdb=rows, spark=rows, error=ValueError, memory="64MB"))
>>> count("rows", {"y": [1, 2, 3]}), count("rows", pd.DataFrame({"y": [1]}), engine="duckdb")
(('DataFrame', 'numpy', 3), ('DataFrame', 'duckdb', 1))
>>> count("rows", pd.DataFrame({"y": [1]}), engine="spark")
Traceback (most recent call last):
    ...
precmp_lib.engine.dispatch.EngineError: engine='spark' cannot read a pandas DataFrame: it reads a Spark DataFrame or a path; a pandas DataFrame is read with engine 'auto', 'numpy' or 'duckdb'
>>> del COUNTERS["rows"]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # imported where a count runs (and DuckDB and pyspark where they run)
    import duckdb
    from pyspark.sql import SparkSession

    from .base import PredictionFileError

__all__ = ["COUNTERS", "ENGINES", "Counters", "EngineError", "Opened", "Source", "count",
           "register"]

# The engines every route offers: "auto" picks one by the kind of source (_AUTO)
ENGINES = ("auto", "numpy", "duckdb", "spark")

# The kinds of source each engine reads, and the engine "auto" picks for each
_READS = {"numpy": ("frame", "path"), "duckdb": ("frame", "path", "relation"),
          "spark": ("spark", "path")}
_AUTO = {"frame": "numpy", "path": "duckdb", "relation": "duckdb", "spark": "spark"}
_KIND_NAMES = {"frame": "a pandas DataFrame", "path": "a path", "relation": "a DuckDB relation",
               "spark": "a Spark DataFrame"}

Q = TypeVar("Q")  # a route's request: what to count, decided from the columns
R = TypeVar("R")  # a route's result: its sufficient statistics


class EngineError(ValueError):
    """An engine that does not exist, or that cannot read the kind of source it is given.

    Every route raises it alike (:func:`~precmp_lib.engine.predictions.count_predictions`,
    :func:`~precmp_lib.engine.items.count_items`), before anything is read. A subclass of
    ``ValueError``.

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import count_predictions
    >>> try:
    ...     count_predictions(pd.DataFrame({"y": [0, 1], "m": [0, 1]}), y_true="y",
    ...                       engine="polars")
    ... except EngineError as err:
    ...     print(err)
    engine must be one of auto, numpy, duckdb, spark; got 'polars'
    """


@dataclass(frozen=True)
class Source:
    """A source recognised and described, before any row is read.

    Attributes
    ----------
    name : str
        How messages name it: the file name, the pattern, ``"DataFrame"``, ``"relation"`` or
        ``"Spark DataFrame"``.
    kind : {"frame", "relation", "spark", "csv", "parquet"}
        A pandas DataFrame (or mapping of arrays), a DuckDB relation, a Spark DataFrame, or
        files.
    columns : list of str
        Its column names, in order (for a pattern, the ones every file holds).
    files : list of str
        The files a path names (empty for the other kinds).
    matched : str or None
        For a pattern, which files it matched (a note for the reader).
    left_out : list of str
        Columns some files of a pattern lack, left out as the caller asked.
    """

    name: str
    kind: str
    columns: list[str]
    files: list[str] = field(default_factory=list)
    matched: str | None = None
    left_out: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Opened(Source):
    """A source opened once for one engine: what a route's counter reads.

    Attributes
    ----------
    engine : {"numpy", "duckdb", "spark"}
        The engine that counts it.
    data : pandas.DataFrame, DuckDB relation or Spark DataFrame
        The rows: for numpy a pandas DataFrame (of a file, the columns the route reads); for
        DuckDB a relation whose columns are :attr:`columns`; for Spark a Spark DataFrame.
    links : list of str
        Plain names of :attr:`files` that DuckDB and Spark read, while the count runs.
    con : duckdb.DuckDBPyConnection or None
        DuckDB: the engine's own connection (sealed to :attr:`links` for files).
    spark : SparkSession or None
        Spark: the session reading the files or holding the DataFrame.
    memory : str or None
        DuckDB: the memory limit in force, as messages name it.
    progress : bool
        Show a progress bar while DuckDB counts.
    """

    engine: str = "numpy"
    data: Any = None
    links: list[str] = field(default_factory=list)
    con: duckdb.DuckDBPyConnection | None = None
    spark: SparkSession | None = None
    memory: str | None = None
    progress: bool = False

    def duckdb_failure(self, exc: Exception) -> PredictionFileError:
        """Return the one line for a DuckDB failure while counting this source.

        Parameters
        ----------
        exc : Exception
            DuckDB's error.

        Returns
        -------
        PredictionFileError
            Naming the source, never a line of its files (:func:`duckdb_error`).
        """
        from .duckdb_engine import duckdb_error

        kind = self.kind if self.files else self.name
        return duckdb_error(self.name, kind, exc, self.links, self.memory)


@dataclass(frozen=True)
class Counters(Generic[Q, R]):
    """What a route registers with the dispatcher: its request and one counter per engine.

    Attributes
    ----------
    route : str
        The route's name (``"predictions"``, ``"items"``), by which :func:`count` finds it.
    request : callable (Source, args) -> request
        Checks the source's columns against the caller's arguments and says what to count,
        before any row is read; raises the route's error naming the source and the column.
    reads : callable (request) -> list of str
        The columns the numpy engine reads into memory from a file.
    numpy, duckdb, spark : callable (Opened, request) -> result
        The counters: an opened source and the request give the route's statistics.
    error : type
        The route's error for its input (a ``ValueError``): a Spark session that does not
        start is one, naming the source.
    memory : str
        The route's DuckDB memory limit (``PRECMP_DUCKDB_MEMORY`` overrides it;
        :mod:`precmp_lib.engine.duckdb_engine` holds the routes' limits).
    spark_failure : callable (Opened, Exception) -> Exception, optional
        The one line for Spark failing to open the files (default: Spark's own error).
    """

    route: str
    request: Callable[[Source, Any], Q]
    reads: Callable[[Q], list[str]]
    numpy: Callable[[Opened, Q], R]
    duckdb: Callable[[Opened, Q], R]
    spark: Callable[[Opened, Q], R]
    error: type[ValueError]
    memory: str
    spark_failure: Callable[[Opened, Exception], Exception] | None = None


# Every route's counters, by the route's name
COUNTERS: dict[str, Counters[Any, Any]] = {}


def register(counters: Counters[Q, R]) -> Counters[Q, R]:
    """Register a route's counters, under its name, for :func:`count`.

    Parameters
    ----------
    counters : Counters

    Returns
    -------
    Counters
        The same counters.

    Examples
    --------
    >>> import precmp_lib.engine.predictions, precmp_lib.engine.items
    >>> sorted(r for r in COUNTERS if r in ("items", "predictions"))
    ['items', 'predictions']
    """
    COUNTERS[counters.route] = counters
    return counters


def count(route: str, source: Any, args: Any = None, *, engine: str = "auto",
          progress: bool = False, optional: Callable[[str], bool] | None = None,
          drop: bool = False) -> Any:
    """Count a source for a route with the engine that reads it.

    Parameters
    ----------
    route : str
        A registered route (:data:`COUNTERS`).
    source : mapping of arrays, DataFrame, path, glob, DuckDB relation or Spark DataFrame
        The rows. A path is a CSV (read as text) or Parquet file; a glob of Parquet files is
        one table.
    args : any
        The caller's arguments, passed on to the route's request.
    engine : {"auto", "numpy", "duckdb", "spark"}
        ``"auto"``: numpy for in-memory data, DuckDB for paths and relations, Spark for Spark
        DataFrames.
    progress : bool
        Show a progress bar while DuckDB counts.
    optional : callable, optional
        For a glob: the columns that may be missing from some files (see ``drop``).
    drop : bool
        For a glob: leave out the ``optional`` columns some files lack, rather than refuse
        them (the request is told which, :attr:`Source.left_out`).

    Returns
    -------
    any
        What the route's counter returns.

    Raises
    ------
    EngineError
        For an engine not in :data:`ENGINES`, or one that cannot read this kind of source.
    TypeError
        For a source of an unknown kind.
    """
    import numpy as np
    import pandas as pd

    from .duckdb_engine import duckdb_connection, duckdb_memory

    counters = COUNTERS[route]
    if engine not in ENGINES:
        raise EngineError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    if isinstance(source, Mapping):
        source = pd.DataFrame({str(k): np.asarray(v) for k, v in source.items()})
    kind = _kind(source)
    use = _engine_for(kind, engine)
    if kind == "path":
        return _count_path(counters, source, use, args, progress, optional, drop)
    if kind == "spark":
        src = Source("Spark DataFrame", "spark", [str(c) for c in source.columns])
        request = counters.request(src, args)
        return counters.spark(Opened(**vars(src), engine=use, data=source,
                                     spark=source.sparkSession), request)
    # a frame may name itself for messages (read_eval_logs: "the eval logs")
    name = (str(source.attrs.get("source_name") or "DataFrame") if kind == "frame"
            else "relation")
    src = Source(name, kind, [str(c) for c in source.columns])
    request = counters.request(src, args)
    if kind == "frame":
        source = source.rename(columns=str)
        if use == "numpy":
            return counters.numpy(Opened(**vars(src), engine=use, data=source), request)
    con = duckdb_connection(counters.memory)
    data = con.from_df(source) if kind == "frame" else source
    return counters.duckdb(Opened(**vars(src), engine=use, data=data, con=con,
                                  memory=duckdb_memory(counters.memory), progress=progress),
                           request)


def _kind(source: Any) -> str:
    """Recognise a source: ``frame``, ``path``, ``relation`` or ``spark``."""
    import pandas as pd

    from .base import _is_duckdb_relation, _is_spark_frame

    if isinstance(source, pd.DataFrame):
        return "frame"
    if isinstance(source, str | os.PathLike):
        return "path"
    if _is_duckdb_relation(source):
        return "relation"
    if _is_spark_frame(source):
        return "spark"
    raise TypeError("source must be a DataFrame, a mapping of arrays, a path or glob, a DuckDB "
                    f"relation or a Spark DataFrame; got {type(source).__name__}")


def _engine_for(kind: str, engine: str) -> str:
    """Return the engine that counts a source of this kind: ``engine``, or auto's choice.

    >>> _engine_for("relation", "auto"), _engine_for("path", "spark")
    ('duckdb', 'spark')
    >>> _engine_for("spark", "numpy")
    Traceback (most recent call last):
        ...
    precmp_lib.engine.dispatch.EngineError: engine='numpy' cannot read a Spark DataFrame: it reads a pandas DataFrame or a path; a Spark DataFrame is read with engine 'auto' or 'spark'
    """
    if engine == "auto":
        return _AUTO[kind]
    if kind in _READS[engine]:
        return engine
    what = _KIND_NAMES[kind]
    reads = _either([_KIND_NAMES[k] for k in _READS[engine]])
    others = _either([repr(e) for e in ENGINES if e == "auto" or kind in _READS.get(e, ())])
    raise EngineError(f"engine={engine!r} cannot read {what}: it reads {reads}; {what} is read "
                      f"with engine {others}")


def _either(names: list[str]) -> str:
    """Join names as ``a``, ``a or b``, ``a, b or c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _count_path(counters: Counters[Q, R], path: str | os.PathLike, engine: str, args: Any,
                progress: bool, optional: Callable[[str], bool] | None, drop: bool) -> R:
    """Count a CSV or Parquet file (or a glob of Parquet files) with numpy, DuckDB or Spark."""
    from .base import PredictionFileError
    from .duckdb_engine import (
        duckdb_connection,
        duckdb_error,
        duckdb_memory,
        duckdb_table,
        seal_connection,
    )
    from .files import describe_path, file_columns, literal_files, read_columns

    kind, files, name, matched = describe_path(path)
    columns, left_out = file_columns(kind, files, name, optional, drop)
    src = Source(name, kind, columns, files, matched, left_out)
    request = counters.request(src, args)
    if engine == "numpy":
        frame = read_columns(kind, files, counters.reads(request), name, columns)
        return counters.numpy(Opened(**vars(src), engine=engine, data=frame), request)
    if engine == "spark":
        return _count_spark_files(counters, src, request)
    memory = duckdb_memory(counters.memory)
    con = duckdb_connection(counters.memory)
    with literal_files(files, name) as links:
        try:
            relation = duckdb_table(con, kind, links, columns, name, memory)
            seal_connection(con, links)
        except PredictionFileError:
            raise
        except Exception as exc:  # duckdb.Error while sealing the connection
            raise duckdb_error(name, kind, exc, links, memory) from None
        return counters.duckdb(Opened(**vars(src), engine=engine, data=relation, links=links,
                                      con=con, memory=memory, progress=progress), request)


def _count_spark_files(counters: Counters[Q, R], src: Source, request: Q) -> R:
    """Open files as a Spark DataFrame (a local session unless one is configured) and count."""
    from .base import PredictionFileError
    from .files import literal_files
    from .spark_engine import is_spark_connect, let_go_if_server_gone, spark_session, spark_table

    try:
        spark = spark_session()
    except RuntimeError as exc:
        raise counters.error(f"{src.name}: {exc}") from None
    with literal_files(src.files, src.name, own_paths=is_spark_connect(spark)) as links:
        opened = Opened(**vars(src), engine="spark", links=links, spark=spark)
        try:
            frame = spark_table(spark, src.kind, links, src.columns)
        except PredictionFileError:
            raise
        except Exception as exc:  # a Spark (JVM) error while opening the files
            let_go_if_server_gone(spark, exc)
            if counters.spark_failure is None:
                raise
            raise counters.spark_failure(opened, exc) from None
        return counters.spark(replace(opened, data=frame), request)
