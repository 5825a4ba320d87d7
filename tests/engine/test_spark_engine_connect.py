"""``precmp report --engine spark`` on a real Spark Connect server (``SPARK_REMOTE=sc://...``).

One server JVM for the module, started with the ``spark-class`` script that pyspark ships
(Spark's ``SparkConnectServer`` through ``SparkSubmit``, local mode, 512 MiB, loopback only, a
free port), torn down after. The reports run in a child process with ``SPARK_REMOTE`` set, on
a small repeated cross-validation Parquet file (wide) and on a test-set CSV file (long) whose
name holds characters Spark takes as a pattern; each must equal DuckDB's report of the same file, and the
server's log must show that the server read the file (the Parquet file by its own path, the
CSV file through a link in a private folder, gone after the run). The reference is DuckDB's
report: the engines share one SQL text, and DuckDB's numbers are checked against numpy and
statsmodels in ``test_engines.py`` and ``test_crossval.py``. The tests of a server that goes
away once the command has connected come last: two commands connect to the module's server, which
is then stopped (one server JVM for the whole module).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sparkfiles import cv_file

from precmp_lib.engine.spark_engine import configured_master, is_spark_connect, spark_session

WAIT = 120  # seconds: the longest wait for the server to listen


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def _connect_server(root: Path):
    """Start a Spark Connect server JVM in ``root``; yield its url, port, log and a stop."""
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless "
                    "(or set JAVA_HOME); they are part of `make test`")
    try:
        import grpc  # noqa: F401  (Spark Connect's client, from requirements-spark.txt)
    except ImportError:
        pytest.fail("Spark Connect tests need the client packages: pip install -r "
                    "requirements-spark.txt; they are part of `make test`")
    import pyspark

    home = Path(pyspark.__file__).parent
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOG_DIR": str(root / "logs")}
    for key in ("SPARK_CONF_DIR", "PYSPARK_SUBMIT_ARGS", "SPARK_REMOTE"):
        env.pop(key, None)
    log_path = root / "server.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [str(home / "bin" / "spark-class"), "org.apache.spark.deploy.SparkSubmit",
             "--master", "local[2]", "--driver-memory", "512m",
             "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
             "--conf", "spark.sql.shuffle.partitions=2", "spark-internal"],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        end = time.monotonic() + WAIT
        while not _listening(port):
            if proc.poll() is not None:
                pytest.fail(f"the Spark Connect server exited with status {proc.returncode}: "
                            f"{log_path.read_text(errors='replace')[-2000:]}")
            if time.monotonic() > end:
                pytest.fail(f"the Spark Connect server did not listen within {WAIT} s")
            time.sleep(0.5)
        yield {"url": f"sc://localhost:{port}", "port": port, "log": log_path,
               "stop": lambda: _stop(proc)}
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with _connect_server(tmp_path_factory.mktemp("connect")) as started:
        yield started


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server's process group: TERM, then KILL after 30 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _test_set_file(path: Path) -> None:
    """A test set of 400 observations, two classes, three models, long (one row per model)."""
    rng = np.random.default_rng(11)
    n = 400
    y = rng.choice(["no", "yes"], n, p=[0.7, 0.3])
    parts = [pd.DataFrame({"id": np.arange(n), "model": m, "y_true": y,
                           "y_pred": np.where(rng.random(n) < 0.7 + 0.08 * j, y,
                                              rng.choice(["no", "yes"], n))})
             for j, m in enumerate(["base", "tuned", "big"])]
    pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=2).to_csv(path, index=False)


def _run(path: Path, out: Path, engine: str, remote: str | None, *extra: str):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR", "SPARK_REMOTE")}
    if remote is not None:
        env["SPARK_REMOTE"] = remote
    return subprocess.run(
        [sys.executable, "-m", "precmp_lib", "report", str(path), "--y-true", "y_true",
         "--engine", engine, "--out", str(out), *extra],
        capture_output=True, text=True, timeout=600, env=env)


def _report(path: Path, folder: Path, engine: str, remote: str | None = None) -> dict:
    out, js = folder / f"{engine}.html", folder / f"{engine}.json"
    done = _run(path, out, engine, remote, "--json", str(js), "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists()
    data = json.loads(js.read_text())
    assert data["engine"] == engine
    return {k: v for k, v in data.items() if k not in ("engine", "source", "settings")}


def _read_by_server(log: Path) -> list[str]:
    """The files the server's tasks read, as its log names them."""
    return re.findall(r"Reading File path: file:(?://)?(\S+?),", log.read_text(errors="replace"))


def test_cross_validation_parquet_on_spark_connect_equals_duckdb(server, tmp_path):
    path = tmp_path / "cv.parquet"
    cv_file(path, seed=20261126)
    spark = _report(path, tmp_path, "spark", server["url"])
    assert spark == _report(path, tmp_path, "duckdb")
    assert spark["design"]["description"] == "3 × 4 cross-validation of 150 observations"
    # the server, not this process, read the file: by its own absolute path
    assert str(path) in _read_by_server(server["log"])


def test_test_set_csv_with_a_pattern_name_on_spark_connect_equals_duckdb(server, tmp_path):
    path = tmp_path / "run[1] {final}.csv"  # Spark would expand [1] and {final} as a pattern
    _test_set_file(path)
    spark = _report(path, tmp_path, "spark", server["url"])
    assert spark == _report(path, tmp_path, "duckdb")
    assert sorted(spark["models"]) == ["base", "big", "tuned"]  # the long layout, read as such
    # the server read it through a plain link in a private folder, removed after the run
    links = [f for f in _read_by_server(server["log"]) if "/precmp-files-" in f]
    assert links and all(f.endswith("/f0.csv") for f in links), _read_by_server(server["log"])
    assert not any(Path(f).parent.exists() for f in links)


def test_items_through_a_connect_session_in_process(server, tmp_path, monkeypatch):
    # the --spark-master route (spark_session(master="sc://...")), and count_items' Spark path
    from pyspark.sql import SparkSession

    from precmp_lib import count_items

    # PySpark marks the process as a Spark Connect one; the mark goes with the test, and a
    # local session another test file left running in this worker is stopped first (PySpark
    # does not start Spark Connect beside it)
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    marked = os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
    leftover = SparkSession.getActiveSession()
    if leftover is not None:
        leftover.stop()

    frame = pd.DataFrame({"item": [f"q{i}" for i in range(12)] * 2,
                          "model": ["a"] * 12 + ["b"] * 12,
                          "score": [1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1,
                                    1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1]})
    frame.to_csv(tmp_path / "items.csv", index=False)
    session = spark_session(master=server["url"])
    try:
        assert is_spark_connect(session)
        assert spark_session() is session  # later calls find the session made
        got = [p.to_dict() for p in count_items(str(tmp_path / "items.csv"), engine="spark")]
    finally:
        session.stop()
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        if marked is not None:
            os.environ["SPARK_CONNECT_MODE_ENABLED"] = marked
    want = [p.to_dict() for p in count_items(frame, engine="numpy")]
    for part in (*got, *want):
        for key in ("engine", "source", "notes"):
            part.pop(key)
    assert got == want


def test_a_setting_the_server_fixes_is_one_line_and_exit_2(server, tmp_path):
    path = tmp_path / "cv.parquet"
    cv_file(path, seed=20261126)
    out = tmp_path / "r.html"
    done = _run(path, out, "spark", server["url"], "--spark-conf", "spark.driver.memory=2g")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"precmp: error: Spark Connect at {server['url']} refused "
                               "spark.driver.memory: [CANNOT_MODIFY_CONFIG]"), lines
    assert not out.exists()


def test_an_unreachable_server_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "cv.parquet"
    cv_file(path, seed=20261126)
    out = tmp_path / "r.html"
    port = _free_port()  # nothing listens there
    done = _run(path, out, "spark", f"sc://127.0.0.1:{port}/;token=not-to-be-shown")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"precmp: error: Spark Connect at sc://127.0.0.1:{port} failed: "), lines
    assert "Connection refused" in lines[0]  # the gRPC client's own reason
    assert "not-to-be-shown" not in done.stderr
    assert not out.exists()


def test_a_connect_url_in_the_spark_configuration(tmp_path, monkeypatch):
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    (tmp_path / "spark-defaults.conf").write_text("spark.remote   sc://10.0.0.2:15002\n")
    assert configured_master() == "sc://10.0.0.2:15002"
    (tmp_path / "spark-defaults.conf").write_text("spark.master sc://10.0.0.3:15002\n")
    assert configured_master() == "sc://10.0.0.3:15002"


def test_connect_errors_are_read_as_one_line():
    from pyspark.errors.exceptions.connect import SparkException

    from precmp_lib.engine.spark_engine import _spark_error, spark_error

    oom = SparkException(message="java.lang.OutOfMemoryError: Java heap space")
    assert spark_error(oom) == (
        "Spark ran out of memory (java.lang.OutOfMemoryError: Java heap space); give the Spark "
        "Connect server's driver more: spark.driver.memory where the server is started")
    # a malformed CSV file as a Spark Connect 4.1.1 server reports it (text taken from a real
    # server's reply, stack frames shortened): the innermost cause names the error class, and
    # neither the row nor the private link reaches the line
    said = SparkException(message=(
        "[FAILED_READ_FILE.NO_HINT] Encountered error while reading file "
        "file:///tmp/precmp-files-x/f0.csv.  SQLSTATE: KD001\n\nJVM stacktrace:\n"
        "org.apache.spark.SparkException\n\tat org.apache.spark.sql.errors.QueryExecutionErrors"
        "$.cannotReadFilesError(QueryExecutionErrors.scala:911)\n"
        "Caused by: org.apache.spark.SparkException: [MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION]"
        " Malformed records are detected in record parsing: [b,b\n].\n"
        "Caused by: org.apache.spark.SparkRuntimeException: [MALFORMED_CSV_RECORD] Malformed CSV "
        'record: "b,b SQLSTATE: KD000\n\tat org.apache.spark.sql.catalyst.csv.UnivocityParser'
        ".parse(UnivocityParser.scala:457)"))
    assert str(_spark_error("bad.csv", said, ["/tmp/precmp-files-x/f0.csv"])) == (
        "bad.csv: Spark cannot count it ([MALFORMED_CSV_RECORD] Malformed CSV record)")


# A child that connects as the command does, says so, waits for a line on stdin (the server is
# stopped meanwhile), then runs the command on the session it holds.
GONE_CHILD = """
import sys
from precmp_lib.engine.spark_engine import spark_session
from precmp_lib.cli import main
spark_session(master=sys.argv[1])
print("connected", flush=True)
sys.stdin.readline()
sys.exit(main(sys.argv[2:]))
"""


def _items_file(path: Path) -> None:
    """Twelve items answered by two models (scores 0/1), long."""
    rng = np.random.default_rng(7)
    pd.DataFrame({"item": [f"q{i}" for i in range(12)] * 2, "model": ["a"] * 12 + ["b"] * 12,
                  "score": rng.integers(0, 2, 24)}).to_csv(path, index=False)


@pytest.fixture(scope="module")
def gone(server, tmp_path_factory):
    """A command per route connected to the module's server, which is then stopped; then both
    are told to count, side by side. Each yields its exit status, stderr and the seconds from
    its go to its exit. The module's other tests have run by then (this fixture's tests come last
    in the file)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR", "SPARK_REMOTE")}
    children, done, waiters = {}, {}, []
    try:
        for what in ("predictions", "items"):
            folder = tmp_path_factory.mktemp(f"gone-{what}")
            if what == "predictions":
                path = folder / "cv.parquet"
                cv_file(path, seed=20261127)
                args = ["--y-true", "y_true"]
            else:
                path = folder / "items.csv"
                _items_file(path)
                args = ["--item", "item"]
            out = folder / "r.html"
            child = subprocess.Popen(
                [sys.executable, "-c", GONE_CHILD, server["url"], "report", str(path), *args,
                 "--engine", "spark", "--out", str(out)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=env)
            children[what] = (child, path, out)
            assert child.stdout is not None and child.stdin is not None
            assert child.stdout.readline().strip() == "connected"
        server["stop"]()

        def go(what: str, child: subprocess.Popen) -> None:
            start = time.monotonic()
            try:
                _, err = child.communicate("go\n", timeout=300)
            except subprocess.TimeoutExpired:
                child.kill()
                _, err = child.communicate()
            done[what] = (child.returncode, err, time.monotonic() - start)

        waiters = [threading.Thread(target=go, args=(what, child))
                   for what, (child, _, _) in children.items()]
        for waiter in waiters:
            waiter.start()
        for waiter in waiters:
            waiter.join()
        yield {what: (*done[what], path, out) for what, (_, path, out) in children.items()}
    finally:
        for child, _, _ in children.values():
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)


@pytest.mark.parametrize("what", ["predictions", "items"])
def test_a_server_gone_after_connecting_is_one_line_and_exit_2_within_a_minute(what, gone):
    """The module's server, stopped once the command has connected. The client's default
    retries would hold the command for ten minutes; its own give up after a few seconds a call."""
    returncode, err, waited, path, out = gone[what]
    assert returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"precmp: error: {path.name}: the Spark Connect server stopped "
                               "answering while counting it ("), lines
    assert waited < 60, waited
    assert not out.exists()
