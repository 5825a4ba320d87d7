"""The command on inputs that lie about their size, names a megabyte long and answers twice.

Each is refused in one line, exit 2, with nothing written and no report rendered; the bombs
are made in ``tmp_path`` (kilobytes on disk) and the limits lowered with ``--limit`` so that
each is read for a fraction of a second.
"""

from __future__ import annotations

import gzip
import json
import zipfile

import pytest
from sources.test_evallogs_bombs import HEADER, ZSTD, sample, write_zip

from cli.test_cli_hostile import assert_refused, no_kernel, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("no_kernel")  # none renders a report


def _good(path, model="b"):
    header = json.dumps({"version": 2, "status": "success",
                         "eval": {"task": "t", "model": model, "created": "x"}}).encode()
    members = [("header.json", header, ZSTD)]
    members += [(f"samples/{n}_epoch_1.json", sample(n), ZSTD) for n in range(6)]
    return write_zip(path, members)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, ZSTD])
def test_a_member_declaring_100_bytes_is_refused_at_the_member_limit(tmp_path, capsys, method):
    bomb = b'{"id": 1, "pad": "' + b" " * (8 << 20) + b'"}'
    write_zip(tmp_path / "a.eval", [("header.json", HEADER, method),
                                    ("samples/1_epoch_1.json", bomb, method)],
              declare={"samples/1_epoch_1.json": 100})
    _good(tmp_path / "b.eval")
    code, err = run(["report", "--eval-log", f"a={tmp_path / 'a.eval'}", "--eval-log",
                     f"b={tmp_path / 'b.eval'}", "--limit", "member=1048576", "--out",
                     tmp_path / "r.html"], capsys)
    assert_refused(code, err, "a.eval: samples/1_epoch_1.json: more than 1,048,576 bytes in one "
                   "JSON document or archive member (at least 1,048,577); raise it with --limit "
                   "member=N", tmp_path, ["a.eval", "b.eval"])


def test_a_model_named_twice_by_eval_log_is_refused(tmp_path, capsys):
    _good(tmp_path / "a.eval", "x")
    _good(tmp_path / "b.eval", "y")
    code, err = run(["report", "--eval-log", f"a={tmp_path / 'a.eval'}", "--eval-log",
                     f"a={tmp_path / 'b.eval'}", "--out", tmp_path / "r.html"], capsys)
    assert_refused(code, err, "--eval-log names the model 'a' twice", tmp_path,
                   ["a.eval", "b.eval"])
    assert "a.eval and " in err[0] and err[0].endswith("give each model one name, its logs as "
                                                       "a folder or a pattern")


def test_a_megabyte_model_name_is_one_short_line(tmp_path, capsys):
    _good(tmp_path / "a.eval", "M" * (1 << 20))
    _good(tmp_path / "b.eval", "other")
    code, err = run(["report", "--eval-logs", tmp_path / "a.eval", tmp_path / "b.eval",
                     "--out", tmp_path / "r.html"], capsys)
    assert_refused(code, err, "a.eval: the model 'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM... "
                   "(1,048,576 characters)': 1,048,576 characters in a label or name, more than "
                   "the limit of 1,000", tmp_path, ["a.eval", "b.eval"])
    assert len(err[0]) < 300


def test_a_doc_id_twice_is_refused_by_the_command(tmp_path, capsys):
    for model in ["a", "b"]:
        (tmp_path / model).mkdir()
        lines = [{"doc_id": i, "metrics": ["acc"], "acc": i % 2} for i in range(6)]
        lines.append({"doc_id": "5", "metrics": ["acc"], "acc": 1})
        (tmp_path / model / "samples_t.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines))
    code, err = run(["report", "--eval-log", f"a={tmp_path / 'a'}", "--eval-log",
                     f"b={tmp_path / 'b'}", "--out", tmp_path / "r.html"], capsys)
    assert_refused(code, err, "samples_t.jsonl: doc_id '5' is on lines 6 and 7", tmp_path,
                   ["a", "b"])


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_csv_gz_bomb_is_refused_before_the_engine_reads_it(tmp_path, capsys,
                                                             engine):
    with gzip.open(tmp_path / "p.csv.gz", "wb", compresslevel=9) as fh:
        fh.write(b"y,a,b\n")
        for _ in range(64):
            fh.write(b"0,0,1\n" * 65_536)  # 24 MiB inflated, some 25 KB on disk
    code, err = run(["report", tmp_path / "p.csv.gz", "--y-true", "y", "--engine", engine,
                     "--limit", "inflated=4194304", "--out", tmp_path / "r.html"], capsys)
    assert_refused(code, err, "p.csv.gz inflated: more than 4,194,304 bytes a compressed file "
                   "inflates to", tmp_path, ["p.csv.gz"])
