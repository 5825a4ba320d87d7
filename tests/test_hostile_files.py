"""Files built from a grammar of SQL and path fragments are counted as data by every engine.

Column names, model names, labels and file names are drawn from fragments of SQL (quotes of
every kind, ``AS``, ``UNION``, comments, ``;``, ``read_text``, ``getenv``, ``java_method``) and of
paths (brackets, braces, ``:``, wildcards). Each file is counted by numpy, DuckDB and Spark; the
counts must equal an independent tally of the rows written (pandas ``value_counts``), hold no
class or model that is not in the file, and no file but the one named may be read: decoy files
that a pattern reading of the name would match, and a secret file named in the fragments, hold
labels that must never appear.
"""

from __future__ import annotations

import csv
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from precmp_lib import count_items, count_predictions

SECRET_DIR = Path(tempfile.mkdtemp(prefix="precmp-test-secret-"))
SECRET = SECRET_DIR / "secret.txt"
SECRET.write_text("SECRETLABEL")
DECOY = "DECOYLABEL"

SQL = ['"', "'", "`", '""', "''", "``", " AS ", "AS", " UNION ALL SELECT 1", "UNION", "--", "/*",
       "*/", ";", ",", "(", ")", " ", f"read_text('{SECRET}')", "getenv('HOME')",
       "java_method('java.lang.System', 'getProperty', 'user.home')", "\\", "$1", "?", ":", "[",
       "]", "{", "}", "*", "a", "b", "x", "é", "k_y", "c0", "t.c1", "src", "roles"]
PATH = ["[1]", "[ab]", "{2}", "{a,b}", ":", "*", "?", "'", '"', "`", " ", ";", "--", "a", "b",
        "AS", "$HOME", "é"]
RESERVED = {"id", "model", "y_pred", "repeat", "fold"}


def _text(fragments: list[str], max_size: int) -> st.SearchStrategy[str]:
    return (st.lists(st.sampled_from(fragments), min_size=1, max_size=max_size).map("".join)
            .map(str.strip).filter(lambda s: s != "" and s not in RESERVED))


names = _text(SQL, 5)
labels = _text(SQL, 3)
file_names = _text(PATH, 4).map(lambda s: s.replace("/", "_"))


@st.composite
def wide_files(draw):
    """A wide table: the truth ``y`` and 2-3 models, names and labels from the grammar."""
    models = draw(st.lists(names, min_size=2, max_size=3, unique=True).filter(
        lambda m: "y" not in m))
    pool = draw(st.lists(labels, min_size=1, max_size=4, unique=True))
    n = draw(st.integers(1, 12))
    rows = [[draw(st.sampled_from(pool)) for _ in range(1 + len(models))] for _ in range(n)]
    rows.insert(0, [pool[0]] * (1 + len(models)))  # every model meets the truth once
    return pd.DataFrame(rows, columns=["y", *models])


@st.composite
def long_files(draw):
    """A long table: id, model, y, y_pred, with model names and labels from the grammar."""
    models = draw(st.lists(names, min_size=2, max_size=3, unique=True))
    pool = draw(st.lists(labels, min_size=1, max_size=3, unique=True))
    n = draw(st.integers(1, 6))
    truth = [pool[0], *(draw(st.sampled_from(pool)) for _ in range(n - 1))]
    rows = [(i, m, truth[i], pool[0] if i == 0 else draw(st.sampled_from(pool)))
            for i in range(n) for m in models]
    return pd.DataFrame(rows, columns=["id", "model", "y", "y_pred"])


def _write(frame: pd.DataFrame, folder: Path, name: str, kind: str) -> Path:
    """Write the table as ``name.kind`` and decoys where a pattern reading of the name points."""
    path = folder / f"{name}.{kind}"
    decoy = frame.copy()
    label_columns = ["y", "y_pred"] if "y_pred" in frame else list(frame.columns)
    decoy[label_columns] = DECOY
    targets = {name.replace("[1]", "1").replace("[ab]", "a").replace("{2}", "2")
               .replace("{a,b}", "a").replace("*", "").replace("?", "x"),
               name.replace("*", "z").replace("?", "z"), name.replace(":", "")}
    for target in (t for t in targets if t and t != name):
        _save(decoy, folder / f"{target}.{kind}", kind)
    _save(frame, path, kind)
    return path


def _save(frame: pd.DataFrame, path: Path, kind: str) -> None:
    if kind == "parquet":
        frame.to_parquet(path, index=False)
    else:
        path.write_text(frame.to_csv(index=False, quoting=csv.QUOTE_MINIMAL), encoding="utf-8")


def _wide_tally(frame: pd.DataFrame) -> dict:
    """Independent reference: rows per (truth, predictions) tuple, labels stripped as read."""
    stripped = frame.apply(lambda c: c.str.strip())
    return {tuple(k): int(v) for k, v in stripped.value_counts(list(frame.columns)).items()}


def _long_tally(frame: pd.DataFrame) -> tuple[dict, list[str]]:
    models = list(pd.unique(frame["model"]))  # the order of their first rows
    wide = frame.pivot(index=["id", "y"], columns="model", values="y_pred").reset_index()
    return _wide_tally(wide[["y", *models]]), models


def _decoded(counts) -> dict:
    out = {}
    for row in counts.patterns.itertuples(index=False):
        key = tuple(counts.classes[getattr(row, c)] for c in ["y", *counts.pred_columns])
        out[key] = out.get(key, 0) + int(row.count)
    return out


def _check(counts, frame: pd.DataFrame, tally: dict, models: list[str]) -> None:
    written = {str(v).strip() for c in frame.columns if c not in ("id", "model")
               for v in frame[c]}
    assert set(counts.classes) <= written  # no class that is not in the file
    assert DECOY not in counts.classes and "SECRETLABEL" not in counts.classes
    assert list(counts.models) == models  # no model that is not in the file
    assert _decoded(counts) == tally


def _count_all(path: Path, frame: pd.DataFrame, long: bool, engines: list[str]) -> None:
    tally, models = _long_tally(frame) if long else (_wide_tally(frame), list(frame.columns[1:]))
    found = []
    for engine in engines:
        counts = count_predictions(str(path), y_true="y", layout="long" if long else "wide",
                                   engine=engine)
        _check(counts, frame, tally, models)
        found.append(counts)
    for other in found[1:]:  # equal counts, bit for bit
        assert other.classes == found[0].classes
        pd.testing.assert_frame_equal(other.patterns, found[0].patterns)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=st.one_of(wide_files(), long_files()), name=file_names,
       kind=st.sampled_from(["csv", "parquet"]))
def test_numpy_and_duckdb_count_grammar_files_as_data(frame, name, kind):
    folder = Path(tempfile.mkdtemp(prefix="precmp-test-"))
    try:
        path = _write(frame, folder, name, kind)
        _count_all(path, frame, "y_pred" in frame, ["numpy", "duckdb"])
    finally:
        shutil.rmtree(folder)


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frame=st.one_of(wide_files(), long_files()), name=file_names,
       kind=st.sampled_from(["csv", "parquet"]))
def test_spark_counts_grammar_files_as_numpy_does(spark, frame, name, kind):
    folder = Path(tempfile.mkdtemp(prefix="precmp-test-"))
    try:
        path = _write(frame, folder, name, kind)
        _count_all(path, frame, "y_pred" in frame, ["numpy", "spark"])
    finally:
        shutil.rmtree(folder)


def test_the_grammar_reaches_the_old_faults():
    # the fragments can spell what broke the old reader: a name with " AS " and a bracketed path
    frame = pd.DataFrame({"y": ["a", "b"], "p AS q": ["a", "a"], "r, ": ["b", "b"]})
    folder = Path(tempfile.mkdtemp(prefix="precmp-test-"))
    try:
        path = _write(frame, folder, "run[1]", "parquet")
        assert (folder / "run1.parquet").exists()  # the decoy a glob would have read
        _count_all(path, frame, False, ["numpy", "duckdb"])
    finally:
        shutil.rmtree(folder)


# --- names Hadoop would expand: ${...} read by Spark as the names they are ---

# Names in Hadoop's variable syntax (``${env.X}``, ``${env.X:-default}``, Java properties,
# Hadoop and Spark settings by name, one unknown), with text around them; _expansions are what
# such names expand to on this machine, written as columns of labels that must never be counted.
VARIABLES = ["env.HOME", "env.PATH", "env.USER", "user.home", "user.name", "java.io.tmpdir",
             "fs.defaultFS", "spark.app.name", "spark.master", "nothing.set"]
dollar_names = st.builds(lambda pre, var, default, post: f"{pre}${{{var}{default}}}{post}",
                         st.sampled_from(["", "x", "$", "{", "${"]), st.sampled_from(VARIABLES),
                         st.sampled_from(["", ":-x", "-x"]), st.sampled_from(["", "x", "}", "$"]))


def _expansions() -> list[str]:
    """What Hadoop may put for the names of DOLLAR here: environment, Java, Hadoop, Spark."""
    import getpass

    values = [os.environ.get(k, "") for k in ("HOME", "PATH", "USER")]
    values += [str(Path.home()), getpass.getuser(), tempfile.gettempdir(), "/tmp", "file:///",
               "precmp", "local[2]", "x"]
    return sorted({v for v in values if v and v.strip() == v})


def _with_decoys(frame: pd.DataFrame) -> pd.DataFrame:
    decoys = {v: DECOY for v in _expansions() if v not in frame.columns}
    return frame.assign(**decoys)


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(models=st.lists(dollar_names, min_size=2, max_size=3, unique=True),
       truth=st.lists(st.sampled_from(["a", "b"]), min_size=2, max_size=8),
       seed=st.integers(0, 3))
@example(models=["${env.HOME}", "${fs.defaultFS}"], truth=["a", "b"], seed=0)
def test_spark_reads_dollar_names_as_themselves(spark, models, truth, seed):
    rows = [[t, *(("a", "b")[(i + j + seed) % 2] for j in range(len(models)))]
            for i, t in enumerate(truth)]
    frame = pd.DataFrame(rows, columns=["y", *models])
    folder = Path(tempfile.mkdtemp(prefix="precmp-test-"))
    try:
        path = folder / "preds.parquet"
        _with_decoys(frame).to_parquet(path, index=False)
        tally = _wide_tally(frame)
        found = [count_predictions(str(path), y_true="y", models=models, engine=engine)
                 for engine in ("numpy", "duckdb", "spark")]
        for counts in found:
            _check(counts, frame, tally, models)
            pd.testing.assert_frame_equal(counts.patterns, found[0].patterns)
    finally:
        shutil.rmtree(folder)


def test_spark_counts_items_of_dollar_columns_as_numpy_does(spark):
    # the score column is named ${env.HOME}; a column named like the home folder holds other
    # scores: Spark read those before
    n = 12
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(n)] * 2,
                          "model": ["a"] * n + ["b"] * n,
                          "${env.HOME}": [i % 2 for i in range(n)] + [i % 3 == 0 for i in range(n)]})
    frame["${env.HOME}"] = frame["${env.HOME}"].astype(int)
    folder = Path(tempfile.mkdtemp(prefix="precmp-test-"))
    try:
        path = folder / "items.parquet"
        _with_decoys(frame).assign(**{v: 1 for v in _expansions()}).to_parquet(path, index=False)
        sums = {e: count_items(str(path), score="${env.HOME}", engine=e)[0]
                for e in ("numpy", "duckdb", "spark")}
        for engine, got in sums.items():
            assert got.sums.tolist() == [n // 2, 4], engine  # a: 6 of 12 items; b: q0 q3 q6 q9
    finally:
        shutil.rmtree(folder)


def test_the_page_of_a_dollar_column_counted_by_spark_holds_no_environment(spark, tmp_path):
    from precmp_lib.cli import main

    home = str(Path.home())
    truth = ["a", "b"] * 20
    frame = pd.DataFrame({"y": truth, "${env.HOME}": truth, "m": ["a"] * 40})
    leak = frame.assign(**{home: [f"HOME={home}"] * 40})
    leak.to_parquet(tmp_path / "preds.parquet", index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "preds.parquet"), "--y-true", "y", "--models",
                 "${env.HOME}", "m", "--engine", "spark", "--out", str(out), "--quiet"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "${env.HOME}" in page and f"HOME={home}" not in page and "seen in the truth" not in page


def test_duckdb_reads_only_the_files_it_counts(tmp_path):
    import duckdb

    from precmp_lib.engine.duckdb_engine import duckdb_connection, duckdb_table, seal_connection

    pd.DataFrame({"y": ["a", "b"], "m": ["a", "a"]}).to_parquet(tmp_path / "p.parquet")
    SECRET_DIR.joinpath("other.csv").write_text("y\nSECRETLABEL\n")
    con = duckdb_connection()
    rel = duckdb_table(con, "parquet", [str(tmp_path / "p.parquet")], ["y", "m"], "p.parquet")
    seal_connection(con, [str(tmp_path / "p.parquet")])
    assert sorted(rel.fetchall()) == [("a", "a"), ("b", "a")]  # the file it was given
    for sql in (f"SELECT * FROM read_csv('{SECRET_DIR / 'other.csv'}')",  # any other file
                "SET enable_external_access = true", "SET lock_configuration = false",
                "INSTALL httpfs"):
        with pytest.raises(duckdb.Error):
            con.execute(sql)
    assert con.execute("SELECT current_setting('autoload_known_extensions'), "
                       "current_setting('autoinstall_known_extensions')").fetchone() == (False, False)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_labels_are_numbers_in_ascii_digits_and_finite(tmp_path, engine):
    # an Arabic-Indic and a full-width one were read as the number 1, merging three classes
    (tmp_path / "u.csv").write_text("y,a,b\n1,1,2\n2,2,1\n١,1,1\n１,2,2\n", encoding="utf-8")
    counts = count_predictions(str(tmp_path / "u.csv"), y_true="y", engine=engine)
    assert counts.classes == ("1", "2", "١", "１")  # all text, as one of them is not a number
    # 1e400 and 2e400 both read as inf: two labels counted as one
    (tmp_path / "inf.csv").write_text("y,a,b\n1e400,1e400,2e400\n2e400,2e400,1e400\n")
    with pytest.raises(ValueError, match=r"inf.csv: column 'y' has the label '1e400', a number "
                                         "too large to tell from others"):
        count_predictions(str(tmp_path / "inf.csv"), y_true="y", engine=engine)


def test_spark_keeps_its_scratch_files_to_this_user(spark):
    from pyspark.sql import functions as F

    folder = Path(spark.sparkContext.getConf().get("spark.local.dir", ""))
    assert folder.is_dir() and folder.parent == Path(tempfile.gettempdir())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # Spark's own default is 0755 under /tmp
    spark.range(100).groupBy(F.col("id") % 3).count().collect()  # a shuffle writes blocks
    assert any(p.name.startswith("blockmgr-") for p in folder.iterdir())


def teardown_module() -> None:
    shutil.rmtree(SECRET_DIR, ignore_errors=True)


