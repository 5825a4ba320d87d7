"""The Spark engine: the same SQL text on a local or remote Spark session."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql import SparkSession

from ..core.predictions import Counts
from .base import CONNECT_RETRIES, JAVA_HINT, PredictionFileError, _check_flat, _Spec
from .duckdb_engine import _long_models
from .files import _delimiter, _spark_keep
from .finish import _finish
from .sql import SPARK, _models_sql, _roles, _split_sets, counting_sql, roles_sql

__all__ = ['spark_session']


# --------------------------------------------------------------------------------------------
# Spark
# --------------------------------------------------------------------------------------------


def configured_master() -> str | None:
    """Return the Spark master the environment configures, or None.

    Looked up as ``spark-submit`` does: ``--master`` (or ``--remote``) in
    ``PYSPARK_SUBMIT_ARGS``, then ``spark.master`` (or ``spark.remote``) in
    ``spark-defaults.conf`` (in ``SPARK_CONF_DIR``, else ``SPARK_HOME/conf``). A Spark Connect
    URL (``sc://host:port``) is returned as it is: :func:`spark_session` then connects to that
    server.

    Returns
    -------
    str or None
        The master URL, or None when nothing sets one (a local session is then started).

    Examples
    --------
    >>> import os
    >>> os.environ["PYSPARK_SUBMIT_ARGS"] = "--master spark://127.0.0.1:7077 pyspark-shell"
    >>> configured_master()
    'spark://127.0.0.1:7077'
    >>> os.environ["PYSPARK_SUBMIT_ARGS"] = "--remote sc://127.0.0.1:15002 pyspark-shell"
    >>> configured_master()
    'sc://127.0.0.1:15002'
    >>> del os.environ["PYSPARK_SUBMIT_ARGS"]
    """
    import shlex

    words = shlex.split(os.environ.get("PYSPARK_SUBMIT_ARGS", ""))
    for i, word in enumerate(words):
        if word in ("--master", "--remote") and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(("--master=", "--remote=")):
            return word.split("=", 1)[1]
    folder = os.environ.get("SPARK_CONF_DIR") or (
        os.path.join(os.environ["SPARK_HOME"], "conf") if os.environ.get("SPARK_HOME") else None)
    if folder and os.path.isfile(os.path.join(folder, "spark-defaults.conf")):
        with open(os.path.join(folder, "spark-defaults.conf"), encoding="utf-8") as fh:
            for line in fh:
                parts = line.strip().split(None, 1)
                if len(parts) == 2 and parts[0] in ("spark.master", "spark.remote"):
                    return parts[1].strip()
    return None


def _jvm_line(text: str) -> str:
    """Return the JVM's own message in one line.

    Spark Connect's errors carry the server's message, then ``JVM stacktrace:`` and the trace
    (dropped); a gRPC failure (the server cannot be reached) its ``details``. Otherwise the
    first line that names an error class (``[PATH_NOT_FOUND] ...``) or an exception.
    """
    text = _grpc_details(text.split("JVM stacktrace:", 1)[0])
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    found = ([ln for ln in lines if re.match(r"\[[A-Z][A-Z0-9_.]*\] ", ln)]
             or [ln for ln in lines if ("Exception" in ln or "Error" in ln) and not ln.startswith("at ")])
    line = (found[0] if found else (lines[-1] if lines else "no message"))
    return line if len(line) <= 300 else line[:297] + "..."


def _grpc_details(text: str) -> str:
    """Return the ``details`` of a gRPC failure's text (Spark Connect's client), else the text."""
    if text.startswith(("<_InactiveRpcError", "<_MultiThreadedRendezvous")):
        found = re.search(r'details = "(.*)"', text)
        if found:
            return found.group(1)
    return text


def spark_error(exc: BaseException) -> str:
    """Say in one line what went wrong in Spark, naming the setting to change where there is one.

    Parameters
    ----------
    exc : BaseException
        What Spark raised (a ``Py4JJavaError``, an analysis error, ...).

    Returns
    -------
    str
        One line: the Java or Spark message, and for an out-of-memory error the
        ``spark.driver.memory`` setting.

    Examples
    --------
    >>> spark_error(RuntimeError("java.lang.OutOfMemoryError: Java heap space"))
    'Spark ran out of memory (java.lang.OutOfMemoryError: Java heap space); give the driver more: --spark-conf spark.driver.memory=4g'
    """
    java = getattr(exc, "java_exception", None)
    text = str(java) if java is not None else str(exc)
    if "OutOfMemoryError" in text or "Java heap space" in text:
        if type(exc).__module__.startswith("pyspark.errors.exceptions.connect"):
            # the server's driver ran out: its memory is fixed where the server is started
            return (f"Spark ran out of memory ({_jvm_line(text)}); give the Spark Connect "
                    "server's driver more: spark.driver.memory where the server is started")
        return (f"Spark ran out of memory ({_jvm_line(text)}); give the driver more: "
                "--spark-conf spark.driver.memory=4g")
    return f"Spark failed: {_jvm_line(text)}"


def spark_session(master: str | None = None,
                  conf: Mapping[str, str] | None = None) -> SparkSession:
    """Return the active Spark session, or start one (local unless a master is configured).

    The master is ``master`` if given, else ``SPARK_REMOTE``, else the one the environment
    configures (:func:`configured_master`), else ``local[2]``; a session already running in
    this process is returned when no master is given. A Spark Connect URL
    (``sc://host:port``, as ``SPARK_REMOTE`` holds) connects to that server: no JVM is started
    here and Java is not needed; the server reads the files, so they must be visible to it
    under the same absolute paths (a server on this machine, or a file system it shares with
    this one; a file name holding a character Spark takes as a pattern, such as ``run[1].csv``,
    is read through a link in a private local folder, which only a server on this machine
    sees). PySpark allows no Spark Connect session beside a local one in the same process, and
    marks the process as a Spark Connect one once connected. Any other master starts a JVM
    (without ``SPARK_REMOTE`` in its environment, which ``spark-submit`` would refuse): a local
    session runs 2 threads with no UI and 2 shuffle partitions, keeps its shuffle and block
    files in a private folder (mode 0700, removed when the process ends), authenticates its
    connections (``spark.authenticate``, with a secret Spark generates), logs only errors and keeps the
    JVM's start-up lines off the caller's stderr. When the JVM cannot start or the server cannot be reached, its own message is
    raised, in one line. PySpark's own logging of failed queries is switched off: the errors
    reach the caller as exceptions.

    Parameters
    ----------
    master : str, optional
        A Spark master URL (``spark://host:port``, ``local[4]``, ``yarn``, ``sc://host:port``
        ...).
    conf : mapping of str to str, optional
        Further Spark settings (``spark.executor.memory`` ...); they override the defaults
        above. On a Spark Connect server they are set for this session; a setting the server
        fixes at its start (``spark.driver.memory`` ...) is refused.

    Returns
    -------
    pyspark.sql.SparkSession
        The session that :func:`count_predictions` uses for paths with ``engine="spark"`` (for
        Spark Connect, a ``pyspark.sql.connect.session.SparkSession``).

    Raises
    ------
    RuntimeError
        When Java is missing (saying how to install Java 17), when Spark Connect's client
        packages are missing (saying how to install them), or when the JVM, the session or the
        connection fails (its message, one line).
    """
    _quiet_query_logs()
    if master is None:
        active = _active_session()
        if active is not None:
            return active
    master = master or os.environ.get("SPARK_REMOTE") or configured_master() or "local[2]"
    if master.startswith("sc://"):
        return _connect_session(master, conf or {})
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        raise RuntimeError(JAVA_HINT)
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local mode: no host-name warning

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    from importlib.resources import files

    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    logging = files("precmp_lib") / "_resources" / "spark-log4j2.properties"
    settings = {
        "spark.master": master,
        "spark.app.name": "precmp",
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={logging}",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
    }
    scratch = None
    if master.startswith("local"):
        settings.update({"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"})
        # shuffle and block files in a folder only this user reads (mkdtemp: mode 0700),
        # removed with the session's process; Spark's default is world-readable under /tmp
        scratch = tempfile.mkdtemp(prefix="precmp-spark-")
        settings["spark.local.dir"] = scratch
        # the block-transfer and RPC ports ask for a secret: in local mode Spark generates
        # one itself (a secret set here would travel on spark-submit's command line, which
        # other users of the machine can read); a cluster's secret is its own (--spark-conf)
        settings["spark.authenticate"] = "true"
    for key, value in (conf or {}).items():
        settings[str(key)] = str(value)
    spark_conf = SparkConf().setAll(list(settings.items()))
    # The JVM's own start-up lines (the incubator-module warning, Spark's default-log-level
    # notice) would land on the caller's stderr; they are kept in a file, and shown (one line)
    # only when the JVM fails.
    # spark-submit refuses to start a driver while SPARK_REMOTE is set (a master given here, or
    # SPARK_REMOTE=local): the JVM is started without it
    remote = os.environ.pop("SPARK_REMOTE", None)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        try:
            gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": subprocess.DEVNULL,
                                                               "stderr": log})
            spark = SparkSession(SparkContext(conf=spark_conf, gateway=gateway))
        except Exception as exc:  # the JVM did not start, or refused the master or a setting
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
            log.seek(0)
            said = log.read()
            # the JVM's log names the failure when the JVM refused; else it is PySpark's own
            jvm = any("Exception" in ln or "Error" in ln for ln in said.splitlines())
            raise RuntimeError(f"Spark failed to start: {_jvm_line(said)}"
                               if jvm and not hasattr(exc, "java_exception")
                               else spark_error(exc)) from None
        finally:
            if remote is not None:
                os.environ["SPARK_REMOTE"] = remote
    spark.sparkContext.setLogLevel("ERROR")
    if scratch is not None:
        # removed when the process ends, not with this context: the JVM keeps the settings it
        # was started with, so a later context in the same process (after a stop) writes here too
        atexit.register(shutil.rmtree, scratch, True)
    return spark


def _quiet_query_logs() -> None:
    """Switch off PySpark's JSON log of a failed query's context (it goes to stderr).

    The error itself is raised as an exception, which the caller reports in one line.
    """
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True


def _active_session() -> SparkSession | None:
    """Return the Spark session already running in this process (Spark Connect or local), or None."""
    if "pyspark.sql.connect.session" in sys.modules:
        from pyspark.sql.connect.session import SparkSession as ConnectSession

        active: Any = ConnectSession.getActiveSession()  # PySpark types it apart from the classic one
        if active is not None:
            return cast("SparkSession", active)
    if "pyspark.sql" in sys.modules:
        from pyspark.sql import SparkSession

        return SparkSession.getActiveSession()
    return None


def is_spark_connect(spark: Any) -> bool:
    """Tell whether a Spark session (or DataFrame) talks to a Spark Connect server.

    Parameters
    ----------
    spark : SparkSession or DataFrame
        A session or DataFrame of PySpark; anything else is not one.

    Returns
    -------
    bool
        True for Spark Connect's classes (no JVM in this process: no ``sparkContext``, the
        server reads the files).

    Examples
    --------
    >>> is_spark_connect(object())
    False
    """
    return type(spark).__module__.startswith("pyspark.sql.connect.")


def _connect_session(url: str, conf: Mapping[str, str]) -> SparkSession:
    """Connect to the Spark Connect server at ``url``; one line when it cannot be reached.

    PySpark's own builder is used, which marks the process as a Spark Connect one
    (``SPARK_CONNECT_MODE_ENABLED``): ``pyspark.sql.functions`` then build Spark Connect
    columns. The mark is taken back when the connection fails.
    """
    import warnings

    shown = re.sub(r"/?;.*", "", url)  # never a token (sc://host:port/;token=...) in a message
    try:
        from pyspark.sql import SparkSession
        from pyspark.sql.connect.client.retries import DefaultPolicy
        from pyspark.sql.connect.session import SparkSession as ConnectSession  # noqa: F401
    except ImportError as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise RuntimeError(f"Spark Connect ({shown}) needs the client packages of pyspark's "
                           f"'connect' extra ({first}): pip install \"precmp[spark]\"") from None
    marked = "SPARK_CONNECT_MODE_ENABLED" in os.environ
    spark: Any = None  # a pyspark.sql.connect.session.SparkSession, typed as the classic one
    try:
        spark = SparkSession.builder.remote(url).getOrCreate()
        # a server that cannot be reached fails after a few seconds, not after the client's
        # ten minutes of retries; once it has answered, each call is retried for about eight
        # seconds (CONNECT_RETRIES)
        spark.client.set_retry_policies([DefaultPolicy(max_retries=4, max_backoff=2000)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the client's RETRIES_EXCEEDED warning
            spark.version  # noqa: B018  (the first call to the server)
        spark.client.set_retry_policies([DefaultPolicy(**CONNECT_RETRIES)])
    except Exception as exc:  # a malformed URL, a refused or failed connection, a local session
        if spark is not None:  # closed first: no more calls to wait for, now or at exit
            spark.client.close()
            spark.stop()
        if not marked:
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        raise RuntimeError(f"Spark Connect at {shown} failed: {_jvm_line(str(exc))}") from None
    for key, value in conf.items():
        try:
            spark.conf.set(str(key), str(value))
        except Exception as exc:  # a setting the server fixes at its start, or a bad value
            raise RuntimeError(f"Spark Connect at {shown} refused {key}: {_jvm_line(str(exc))}") from None
    return spark


def _spark_model_index(spec: _Spec, roles: SparkDataFrame) -> SparkDataFrame:
    """Long layout: replace ``k_model`` by the model's index, comparing names as literals."""
    from pyspark.sql import functions as F

    name = F.col("k_model").cast("string")
    # one array of the names, one lookup: array_position is 1-based, 0 for another model
    found = F.array_position(F.array(*(F.lit(m) for m in spec.models)), name)
    index = F.when(found > 0, found - 1)
    keep = [F.col(fixed) for fixed, _ in _roles(spec) if fixed != "k_model"]
    return roles.select(*keep, index.alias("k_model"))


def _server_gone(exc: BaseException) -> bool:
    """Tell whether a Spark Connect call failed because its server no longer answers.

    gRPC's status UNAVAILABLE on the error or on one of its causes (the client's retries
    exhausted on a refused or dropped connection).
    """
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        code = getattr(cur, "code", None)
        try:  # a grpc.RpcError's code(); other errors may have a code of another kind
            status = code() if callable(code) else None
        except Exception:
            status = None
        if getattr(status, "name", None) == "UNAVAILABLE":
            return True
        cur = cur.__cause__ or cur.__context__
    return "failed to connect to all addresses" in str(exc)


def let_go_if_server_gone(spark: Any, exc: BaseException) -> bool:
    """Close a Spark Connect session whose server no longer answers; tell whether it was.

    Nothing then waits on that server again, in this count or at exit (PySpark's client calls
    its server from an exit function, retrying, unless the client is closed).
    """
    if not (is_spark_connect(spark) and _server_gone(exc)):
        return False
    with contextlib.suppress(Exception):
        spark.client.close()
    return True


def server_gone_message(name: str, exc: BaseException) -> str:
    """Return the one line for a count whose Spark Connect server stopped answering."""
    detail = (_grpc_details(str(exc)).strip().splitlines() or [type(exc).__name__])[0]
    return f"{name}: the Spark Connect server stopped answering while counting it ({detail[:200]})"


def _spark_error(name: str, exc: Exception, files: Sequence[str] = ()) -> PredictionFileError:
    """One line from a Spark error, never the JVM's stack trace nor a line of the file.

    The innermost error with a Spark error class gives its class and reason
    (``[MALFORMED_CSV_RECORD] Malformed CSV record``); else the first line. A Spark Connect
    error names its causes in its ``JVM stacktrace:`` part (``Caused by: ...``), read the same
    way; a gRPC failure (the server went away) gives its ``details``.
    """
    if "OutOfMemoryError" in str(exc) or "Java heap space" in str(exc):
        return PredictionFileError(f"{name}: {spark_error(exc)}")
    said = str(exc)
    if _server_gone(exc):
        return PredictionFileError(server_gone_message(name, exc))
    said = _grpc_details(said)
    # the files' paths become the source's name before the reason is cut at its first ':'
    # ("while reading file file:/tmp/..." would else end at "file")
    for f in files:
        said = said.replace(f"file://{f}", name).replace(f"file:{f}", name).replace(f, name)
    lines = [ln.strip() for ln in said.splitlines() if ln.strip()]
    found = [m for m in (re.search(r"(\[[A-Z_.]+\]) ([^:]*)", ln) for ln in lines) if m]
    text = " ".join(found[-1].groups()).strip() if found else (lines[0] if lines else type(exc).__name__)
    text = text if len(text) <= 240 else text[:237] + "..."
    return PredictionFileError(f"{name}: Spark cannot count it ({text})")


def _spark_count(spec: _Spec, df: SparkDataFrame, columns: Sequence[str],
                 files: Sequence[str] = ()) -> Counts:
    import uuid

    spark = df.sparkSession
    view, roles_view = (f"precmp_{part}_{uuid.uuid4().hex}" for part in ("src", "roles"))
    gone = False
    try:
        _check_flat(spec, columns, df)
        df.createOrReplaceTempView(view)
        rows = _spark_rows(spec, spark, columns, view, roles_view)
        pat, obs = _split_sets(spec, rows)
        return _finish(spec, pat, obs, "spark", lambda column, what: None,
                       lambda codes, reps, sql: _spark_cluster_rows(spec, spark, roles_view, codes,
                                                                    reps, sql))
    except PredictionFileError:
        raise
    except Exception as exc:  # a Spark (JVM) error: a file or table Spark cannot read
        gone = let_go_if_server_gone(spark, exc)
        raise _spark_error(spec.name, exc, files) from None
    finally:
        if not gone:
            spark.catalog.dropTempView(view)
            spark.catalog.dropTempView(roles_view)


def _spark_cluster_rows(spec: _Spec, spark: SparkSession, roles_view: str,
                        codes: pd.DataFrame, reps: pd.DataFrame,
                        sql: Callable[[str, str, str], str]) -> pd.DataFrame:
    """Run ``sql`` in Spark with the tables of codes as temporary views.

    ``sql`` is :func:`cluster_sql` or :func:`profile_sql` given the views' names.
    """
    import uuid

    from pyspark.sql.types import LongType, StructField, StructType

    types = {f.name: f.dataType
             for f in spark.sql(counting_sql(spec, SPARK, roles_view)).schema.fields}

    def view(frame: pd.DataFrame, part: str) -> str:
        # raw columns (r...) in the type the count read them in, codes (c...) as BIGINT
        raw = [c for c in frame.columns if c.startswith("r")]
        schema = StructType([*(StructField(c, types[c[1:]]) for c in raw),
                             *(StructField(c, LongType()) for c in frame.columns
                               if not c.startswith("r"))])
        data = [tuple(_native(v) for v in row)
                for row in frame[[f.name for f in schema.fields]].itertuples(index=False)]
        name = f"precmp_{part}_{uuid.uuid4().hex}"
        spark.createDataFrame(data, schema).createOrReplaceTempView(name)
        return name

    table, rep_table = view(codes, "codes"), view(reps, "reps")
    try:
        out = spark.sql(sql(roles_view, table, rep_table))
        got = out.collect()
        return pd.DataFrame([tuple(r) for r in got], columns=out.columns)
    finally:
        spark.catalog.dropTempView(table)
        spark.catalog.dropTempView(rep_table)


def _spark_rows(spec: _Spec, spark: SparkSession, columns: Sequence[str], view: str,
                roles_view: str) -> pd.DataFrame:
    """Run the first step and the counting query in Spark; the grouped rows as a DataFrame."""
    roles = spark.sql(roles_sql(_roles(spec), columns, view))
    if spec.layout == "long":
        roles.createOrReplaceTempView(roles_view)
        _long_models(spec, [str(r[0]) for r in spark.sql(_models_sql(SPARK, roles_view)).collect()
                            if r[0] is not None])
        roles = _spark_model_index(spec, roles)
    roles.createOrReplaceTempView(roles_view)
    sql = counting_sql(spec, SPARK, roles_view)
    result = spark.sql(sql).collect()
    names = spark.sql(sql).columns if not result else list(result[0].asDict())
    rows = pd.DataFrame([tuple(r) for r in result], columns=names)
    if len(rows) == 0:
        rows = pd.DataFrame({c: pd.Series(dtype=object) for c in names})
    return rows


def _native(v: Any) -> Any:
    """Return a Python scalar for Spark's row checks (pandas may hold numpy scalars)."""
    return v.item() if isinstance(v, np.generic) else v


def spark_table(spark: SparkSession, kind: str, files: list[str],
                columns: list[str]) -> SparkDataFrame:
    """Open files as a Spark DataFrame of ``columns`` (every CSV cell as text, as DuckDB reads them).

    Parquet is read with :func:`_spark_parquet`, so that no column name is expanded, and the
    ``columns`` of a pattern's files are kept by position.

    Parameters
    ----------
    spark : SparkSession
    kind : {"csv", "parquet"}
    files : list of str
        Plain names (:func:`~precmp_lib.engine.files.literal_files`).
    columns : list of str
        The files' columns (:func:`~precmp_lib.engine.files.file_columns`).

    Returns
    -------
    pyspark.sql.DataFrame
    """
    if kind == "csv":
        return spark.read.options(header=True, inferSchema=False, sep=_delimiter(files[0]),
                                  quote='"', escape='"', nullValue="", multiLine=True,
                                  mode="FAILFAST").csv(files)
    return _spark_keep(_spark_parquet(spark, files), columns)


def _spark_parquet(spark: SparkSession, files: list[str]) -> SparkDataFrame:
    """Read Parquet files in Spark with every column read under its own name, never expanded.

    Spark passes the columns it reads to its Parquet reader as a text in the Hadoop
    configuration, and Hadoop expands ``${...}`` in it when reading it back: a column named
    ``${env.HOME}`` would be read from the column named like the home folder (an environment
    variable, a Java property or another setting, by its name). Hadoop stops expanding at the
    first ``${...}`` that names nothing it knows, and leaves the rest of the text as it is: the
    columns are read with a first column of that kind (named from a random number, in no file,
    so read as empty) ahead of the files' own, kept in the scan by a filter on it and dropped
    after it.
    """
    import uuid

    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    schema = spark.read.parquet(*files).schema  # the files' own names, from their footers
    stop = "${precmp_" + uuid.uuid4().hex + "}"
    read = spark.read.schema(StructType([StructField(stop, StringType()), *schema.fields]))
    frame = read.parquet(*files)
    return frame.where(F.col(f"`{stop}`").isNull()).drop(stop)


