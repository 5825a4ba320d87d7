"""``precmp report --engine spark --spark-master`` on a real standalone Spark cluster.

A master and one worker JVM are started with the ``spark-class`` script that pyspark ships
(loopback addresses only, 1 core and 1 GiB for the worker), torn down after the module. The
report runs on a small repeated cross-validation file; the master's JSON page must list the
finished application, the worker's JSON page its executor, the executor's log the tasks it
finished; and the comparison must equal DuckDB's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from sparkfiles import cv_file

from precmp_lib.engine.spark_engine import configured_master

WAIT = 90  # seconds: the longest wait for a JVM to come up or an application to be listed


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _json(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/", timeout=5) as page:
        return json.loads(page.read())


def _wait_for(what: str, check, procs) -> dict:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        for p in procs:
            if p.poll() is not None:
                pytest.fail(f"{what}: a Spark JVM exited with status {p.returncode}")
        try:
            page = check()
            if page:
                return page
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(f"{what}: not within {WAIT} s")


def _stop(procs) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless "
                    "(or set JAVA_HOME); they are part of `make test`")
    import pyspark

    home = Path(pyspark.__file__).parent
    root = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOG_DIR": str(root / "logs"), "SPARK_WORKER_DIR": str(root / "work")}
    env.pop("SPARK_CONF_DIR", None)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    ports = {name: _free_port() for name in ("master", "master_ui", "worker", "worker_ui")}
    spark_class = str(home / "bin" / "spark-class")
    procs, logs = [], []
    try:
        log = open(root / "master.log", "w")
        logs.append(log)
        procs.append(subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
             "--port", str(ports["master"]), "--webui-port", str(ports["master_ui"])],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        _wait_for("the master", lambda: _json(ports["master_ui"]), procs)
        url = f"spark://127.0.0.1:{ports['master']}"
        wlog = open(root / "worker.log", "w")
        logs.append(wlog)
        procs.append(subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
             "--port", str(ports["worker"]), "--webui-port", str(ports["worker_ui"]),
             "--cores", "1", "--memory", "1g", "--work-dir", str(root / "work"), url],
            env=env, stdout=wlog, stderr=subprocess.STDOUT, start_new_session=True))
        _wait_for("the worker", lambda: [w for w in _json(ports["master_ui"])["workers"]
                                         if w["state"] == "ALIVE"], procs)
        yield {"url": url, "root": root, "procs": procs, **ports}
    finally:
        _stop(procs)
        for fh in logs:
            fh.close()


def _report(path: Path, folder: Path, engine: str, *extra: str) -> dict:
    out, js = folder / f"{engine}.html", folder / f"{engine}.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "precmp_lib", "report", str(path), "--y-true", "y_true",
         "--engine", engine, "--out", str(out), "--json", str(js), "--quiet", *extra],
        capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists()
    data = json.loads(js.read_text())
    return {k: v for k, v in data.items() if k not in ("engine", "source", "settings")}


def test_report_runs_on_the_cluster_and_equals_duckdb(cluster, tmp_path):
    path = tmp_path / "cv.parquet"
    cv_file(path, seed=20261125)
    spark = _report(path, tmp_path, "spark", "--spark-master", cluster["url"],
                    "--spark-conf", "spark.executor.memory=512m",
                    "--spark-conf", "spark.cores.max=1")
    assert spark == _report(path, tmp_path, "duckdb")
    assert spark["design"]["description"] == "3 × 4 cross-validation of 150 observations"
    # the master lists the application as finished ...
    apps = _wait_for("the finished application",
                     lambda: [a for a in _json(cluster["master_ui"])["completedapps"]
                              if a["name"] == "precmp"], cluster["procs"])
    app = apps[0]["id"]
    # ... the worker ran its executor ...
    executors = _json(cluster["worker_ui"])["finishedexecutors"]
    mine = [e for e in executors if e["appid"] == app]
    assert mine, executors
    # ... and the executor's log on the worker shows the tasks it finished
    logs = list((cluster["root"] / "work" / app).glob("*/stderr"))
    finished = sum(p.read_text(errors="replace").count("Finished task") for p in logs)
    assert finished > 0, [p.read_text(errors="replace")[-500:] for p in logs]


def test_master_from_the_spark_configuration(tmp_path, monkeypatch):
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    assert configured_master() is None
    (tmp_path / "spark-defaults.conf").write_text("# cluster\nspark.master   spark://10.0.0.1:7077\n")
    assert configured_master() == "spark://10.0.0.1:7077"
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", "--master local[3] pyspark-shell")
    assert configured_master() == "local[3]"  # spark-submit's arguments come first


def test_a_bad_master_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "cv.parquet"
    cv_file(path, seed=20261125)
    out = tmp_path / "r.html"
    done = subprocess.run(
        [sys.executable, "-m", "precmp_lib", "report", str(path), "--y-true", "y_true",
         "--engine", "spark", "--spark-master", "nosuch://127.0.0.1:1", "--out", str(out)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("precmp: error: Spark failed"), lines
    # the JVM's own reason (spark-submit refuses the URL's scheme)
    assert "Master must either be yarn or start with spark" in lines[0]
    assert not out.exists()
