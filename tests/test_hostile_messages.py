"""Broken and odd files refused in one line that names the file (and line or column), alike on
numpy, DuckDB and Spark (local mode): columns that differ only in case, scores written with
digits other than ASCII, rows with a field too many or too few, text that is not UTF-8, damaged
archives; and the settings around them (the Spark session's authentication, the limits given
on the command line, outputs that would replace a log read as input).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from precmp_lib import count_items, count_predictions

ENGINES = ["numpy", "duckdb", "spark"]


def _refusal(call) -> str:
    """The one-line message of the ValueError ``call`` raises."""
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize("engine", ENGINES)
def test_parquet_columns_differing_only_in_case_are_refused_naming_both(tmp_path, engine):
    # before: numpy read both, DuckDB renamed the second to a_1, Spark failed COLUMN_ALREADY_EXISTS
    path = tmp_path / "cased.parquet"
    pq.write_table(pa.table({"y": ["1", "0"], "A": ["1", "0"], "a": ["0", "0"]}), path)
    message = _refusal(lambda: count_predictions(path, y_true="y", engine=engine))
    assert message.startswith("cased.parquet: columns 'A' and 'a' differ only in case"), message
    message = _refusal(lambda: count_items(path, item="y", score="A", model="a", engine=engine))
    assert message.startswith("cased.parquet: columns 'A' and 'a' differ only in case"), message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("score", ["\u0663", "\uff11"])
def test_a_score_in_digits_other_than_ascii_is_refused_by_every_engine(tmp_path, engine, score):
    # before: numpy read '٣' (ARABIC-INDIC DIGIT THREE) as 3.0, where DuckDB refused it
    path = tmp_path / "items.csv"
    path.write_text(f"item,model,score\n1,m1,1\n1,m2,0\n2,m1,{score}\n2,m2,1\n3,m1,0\n3,m2,1\n",
                    encoding="utf-8")
    message = _refusal(lambda: count_items(path, item="item", engine=engine))
    assert message.startswith("items.csv: column 'score'") and "score" in message, message


def test_the_items_out_of_memory_message_names_the_limit_in_force(tmp_path, monkeypatch):
    # the item sums run under ITEM_DUCKDB_MEMORY (512MB), not the engines' 1GB, which the
    # message named before
    from precmp_lib.engine import items

    monkeypatch.delenv("PRECMP_DUCKDB_MEMORY", raising=False)

    class OutOfMemoryException(Exception):
        """DuckDB's class name for a query beyond its memory limit."""

    def out_of_memory(req, rel, columns, con, error):
        raise error(OutOfMemoryException("Out of Memory Error: could not allocate block"))

    monkeypatch.setattr(items, "_duckdb_sums", out_of_memory)
    path = tmp_path / "items.csv"
    path.write_text("item,model,score\n1,m1,1\n1,m2,0\n", encoding="utf-8")
    message = _refusal(lambda: count_items(path, item="item", engine="duckdb"))
    assert message.startswith("items.csv: DuckDB ran out of memory counting it (its limit is "
                              f"{items.ITEM_DUCKDB_MEMORY})"), message
    monkeypatch.setenv("PRECMP_DUCKDB_MEMORY", "300MB")
    message = _refusal(lambda: count_items(path, item="item", engine="duckdb"))
    assert "(its limit is 300MB)" in message, message


def test_the_local_spark_session_authenticates_its_connections():
    # spark.authenticate was off; the secret is Spark's own (none on the command line)
    import shutil

    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless")
    from precmp_lib.engine.spark_engine import spark_session

    conf = spark_session().sparkContext.getConf()
    assert conf.get("spark.authenticate") == "true"
    assert conf.get("spark.master").startswith("local")
    assert not conf.contains("spark.authenticate.secret")
    # the session still counts with authentication on
    frame_path = __import__("tempfile").mkdtemp(prefix="precmp-test-")
    path = f"{frame_path}/p.csv"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("y,a,b\n1,1,0\n0,0,0\n1,1,1\n")
    counts = count_predictions(path, y_true="y", engine="spark")
    shutil.rmtree(frame_path)
    assert counts.n_observations == 3


def test_limits_can_be_given_on_the_command_line(tmp_path, capsys, monkeypatch):
    from precmp_lib.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PRECMP_MAX_MODELS", raising=False)
    (tmp_path / "w.csv").write_text("y,a,b,c\n1,1,0,1\n0,0,1,1\n", encoding="utf-8")
    code = main(["report", "w.csv", "--y-true", "y", "--engine", "numpy", "--limit", "models=2",
                 "--out", "r.html"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0] == ("precmp: error: w.csv: 3 models, more than the limit of 2 "
                      "(raise it with --limit models=N or PRECMP_MAX_MODELS=N)")
    assert "PRECMP_MAX_MODELS" not in __import__("os").environ  # set for the command only
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(SystemExit) as info:
        main(["report", "w.csv", "--y-true", "y", "--limit", "model=2"])
    assert info.value.code == 2
    assert "expected NAME=N with NAME one of columns, models" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", "w.csv", "--y-true", "y", "--limit", "models=\u0663"])


def test_a_spark_read_failure_names_the_file_not_file():
    # Spark's reason names the path as file:/...; the line was cut at that ':' and read
    # "while reading file file"
    from precmp_lib.engine.spark_engine import _spark_error

    link = "/tmp/precmp-files-x1/f0.parquet"
    for shown in (f"file:{link}", f"file://{link}", link):
        exc = RuntimeError(f"[FAILED_READ_FILE.NO_HINT] Encountered error while reading file {shown}. "
                           "SQLSTATE: KD001\n\tat org.apache.spark.sql.errors...")
        message = str(_spark_error("runs.parquet", exc, [link]))
        assert message == ("runs.parquet: Spark cannot count it ([FAILED_READ_FILE.NO_HINT] "
                           "Encountered error while reading file runs.parquet. SQLSTATE)"), message


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_file_name_that_is_not_utf8_is_read_and_named_as_text(tmp_path, engine):
    # a Latin-1 name (b"caf\xe9.csv") reached the page as a lone surrogate and failed the
    # report's template after all the counting; the name is now text with \xe9 shown
    import os

    path = os.path.join(os.fsencode(tmp_path), b"caf\xe9.csv")
    with open(path, "wb") as fh:
        fh.write(b"y,a,b\n1,1,0\n0,0,1\n1,1,1\n")
    counts = count_predictions(os.fsdecode(path), y_true="y", engine=engine)
    assert counts.source == "caf\\xe9.csv"
    assert counts.n_observations == 3
    counts.source.encode("utf-8")  # what the page, the JSON and the terminal need


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("row, found", [("0,0,1,1", 4), ("0,0", 2)])
def test_a_row_with_a_field_too_many_or_too_few_is_refused_naming_its_line(tmp_path, engine,
                                                                           row, found):
    # before: numpy 'cannot be read as CSV (ParserError)' or 'missing label', DuckDB its own
    # wording, Spark '[MALFORMED_CSV_RECORD] Malformed CSV record' without a line
    path = tmp_path / "rows.csv"
    path.write_text(f"y,a,b\n1,1,0\n{row}\n1,1,1\n", encoding="utf-8")
    # before this, numpy (pandas pads a short row) said "column 'b' has a missing label (line 3)"
    message = _refusal(lambda: count_predictions(path, y_true="y", engine=engine))
    assert message == (f"rows.csv: line 3 has {found} fields where the header has 3; every row "
                       "needs one field per column"), message
    # the same row in an item file (before: numpy dropped a field too many without a word and
    # Spark said "cannot be read as CSV (An error occurred while calling o70.collectToPython.)")
    items = tmp_path / "items.csv"
    items.write_text(f"item,model,score\n1,m1,1\n1,m2,0\n{row.replace('0', '2', 1)}\n2,m2,1\n",
                     encoding="utf-8")
    message = _refusal(lambda: count_items(items, engine=engine))
    assert message == (f"items.csv: line 4 has {found} fields where the header has 3; every row "
                       "needs one field per column"), message
    # an empty last field is a missing label, not a short row
    path.write_text("y,a,b\n1,1,0\n0,0,\n1,1,1\n", encoding="utf-8")
    message = _refusal(lambda: count_predictions(path, y_true="y", engine=engine))
    # (Spark reads rows without their line numbers)
    assert message in ("rows.csv: column 'b' has a missing label (line 3)",
                       "rows.csv: column 'b' has a missing label"), message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_label_holding_the_replacement_character_is_refused_by_every_engine(tmp_path, engine):
    """Bytes that are not UTF-8 past the first MiB (which the header check reads) reach Spark as
    U+FFFD: two different broken labels became one class there while numpy and DuckDB refused
    the file. A label holding U+FFFD is refused alike, whether written so or decoded so."""
    written = tmp_path / "written.csv"
    written.write_bytes(b"y,m1,m2\na,a,b\nb,b,b\na,\xef\xbf\xbd,a\n")
    message = _refusal(lambda: count_predictions(written, y_true="y", engine=engine))
    assert message == ("written.csv: column 'm1' has the label '\ufffd' holding U+FFFD, the "
                       "character put where bytes were not UTF-8 text; labels that lost their "
                       "bytes cannot be told apart: save the file as UTF-8")
    late = tmp_path / "late.csv"
    late.write_bytes(b"y,m1,m2\n" + b"a,a,b\nb,b,b\n" * 90_000 + b"\xff\xfe,a,b\n\xfe\xff,a,b\n")
    assert late.stat().st_size > 1 << 20  # past what the header check reads
    message = _refusal(lambda: count_predictions(late, y_true="y", engine=engine))
    assert message.startswith("late.csv: ") and ("U+FFFD" in message or "UTF-8" in message
                                                 or "utf-8" in message), message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_text_column_that_is_not_utf8_is_one_line_on_every_engine(tmp_path, engine):
    """Parquet marks a column as text but does not check its bytes: under numpy pyarrow failed
    while turning the column into Python objects (ArrowException, a traceback)."""
    raw = [b"a", b"b", b"\xff\xfe", b"a"]
    binary = pa.array(raw, type=pa.binary())
    # the same buffers declared as text: what a writer that does not check its bytes leaves
    text = pa.Array.from_buffers(pa.string(), len(raw), binary.buffers())
    pq.write_table(pa.table({"y": text, "m1": text, "m2": text}), tmp_path / "bad.parquet")
    message = _refusal(lambda: count_predictions(tmp_path / "bad.parquet", y_true="y",
                                                 engine=engine))
    assert message.startswith("bad.parquet: "), message
    assert "UTF-8" in message or "UTF8" in message, message


_ITEM_ROWS = [("t1", "q1", "m1", "p1"), ("t1", "q1", "m2", "p1"), ("t1", "q2", "m1", "p2"),
              ("t1", "q2", "m2", "p2"), ("t2", "q1", "m1", "p3"), ("t2", "q1", "m2", "p3")]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("role, column", [(0, "task"), (1, "item"), (2, "model"), (3, "passage")])
def test_an_item_file_name_holding_the_replacement_character_is_refused_by_every_engine(
        tmp_path, engine, role, column):
    """Spark reads bytes that are not UTF-8 as U+FFFD: two different broken item ids (or models,
    tasks, passages) were one there, while numpy and DuckDB refused the file. Before: Spark and
    DuckDB counted the written U+FFFD as a name like any other, and Spark merged "\\xff" and
    "\\xfe" into one item."""
    rows = [list(r) for r in _ITEM_ROWS]
    for r in rows[-2:]:  # the last item of the last task, answered by both models
        r[role] = r[role] + "\ufffd"
    if role == 2:  # a model name: the other model of that item keeps its name
        rows[-2][2], rows[-1][2] = "m1", "m2\ufffd"
    text = "task,item,model,passage,score\n" + "".join(
        f"{t},{i},{m},{p},{s}\n" for (t, i, m, p), s in zip(rows, [1, 0, 1, 1, 0, 1]))
    (tmp_path / "written.csv").write_text(text, encoding="utf-8")
    name = rows[-1][role]
    message = _refusal(lambda: count_items(tmp_path / "written.csv", item="item", task="task",
                                           cluster="passage", engine=engine))
    assert message == (f"written.csv: column {column!r} has the name {name!r} holding U+FFFD, "
                       "the character put where bytes were not UTF-8 text; names that lost their "
                       "bytes cannot be told apart: save the file as UTF-8"), message
    if role == 1:  # the same without a task or a cluster column, and past what the header check reads
        late = tmp_path / "late.csv"
        late.write_bytes(b"item,model,score\n"
                         + b"".join(b"q%d,m1,1\nq%d,m2,0\n" % (n, n) for n in range(70_000))
                         + b"\xff,m1,1\n\xff,m2,0\n\xfe,m1,0\n\xfe,m2,0\n")
        assert late.stat().st_size > 1 << 20
        message = _refusal(lambda: count_items(late, item="item", engine=engine))
        assert message.startswith("late.csv: ") and ("U+FFFD" in message or "UTF-8" in message
                                                     or "utf-8" in message), message


@pytest.mark.parametrize("metrics", ["acc", 5, [["acc"]], [None]])
def test_lm_eval_metrics_of_another_shape_are_one_line_from_the_library(tmp_path, metrics):
    # before: KeyError 'a' (the text's first letter), TypeError: 'int' object is not subscriptable
    import json

    from precmp_lib import read_eval_logs

    log = tmp_path / "samples_t_2024-01-01T00-00-00.jsonl"
    log.write_text("\n".join(json.dumps({"doc_id": i, "metrics": metrics, "acc": 1})
                             for i in range(3)))
    message = _refusal(lambda: read_eval_logs({"m": log}))
    assert message.startswith("samples_t_2024-01-01T00-00-00.jsonl line 1: 'metrics' "
                              "is not a list of metric names (got "), message


@pytest.mark.parametrize("value", ["abc", "0", "1PB", "1 G B"])
def test_a_bad_duckdb_memory_is_refused_before_duckdb_parses_it(monkeypatch, tmp_path, value):
    # before: duckdb.ParserException ("Unknown unit for memory: 'pb'"), and an empty spill
    # folder left in the temporary folder
    import tempfile

    monkeypatch.setenv("PRECMP_DUCKDB_MEMORY", value)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = tmp_path / "p.csv"
    path.write_text("y,a,b\n1,1,0\n0,0,0\n")
    message = _refusal(lambda: count_predictions(path, y_true="y", engine="duckdb"))
    assert message.startswith("PRECMP_DUCKDB_MEMORY must be an amount of memory with its unit"), \
        message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]
