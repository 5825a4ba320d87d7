"""Eval logs read back, and the item report from the command line.

The log files are written here in the shapes the two tools document:

- lm-evaluation-harness ``--log_samples``: one ``samples_<task>_<timestamp>.jsonl`` per task in
  a folder per model; each line a document with ``doc_id``, ``doc``, ``target``, ``resps``,
  ``filtered_resps``, ``filter``, ``metrics`` (the metric names) and one field per metric.
- inspect_ai: a JSON log with ``eval`` (``task``, ``model``) and ``samples``, each with ``id``,
  ``epoch`` and ``scores`` (scorer -> ``{"value": ...}``, values "C"/"I" or numbers); and the
  ``.eval`` zip, with ``header.json`` and ``samples/<id>_epoch_<n>.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from precmp_lib import compare_items, read_eval_logs

STAMP = "2025-03-04T10-11-12.123456"


def _lm_eval(folder: Path, task: str, acc: list[int], *, filters=("none",)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for flt in filters:
        for i, a in enumerate(acc):
            lines.append({"doc_id": i, "doc": {"question": f"q{i}"}, "target": "A",
                          "arguments": [], "resps": [["A"]], "filtered_resps": ["A"],
                          "filter": flt, "metrics": ["acc", "acc_norm"], "acc": float(a),
                          "acc_norm": float(1 - a)})
    path = folder / f"samples_{task}_{STAMP}.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def _inspect_samples(values: list[list[str]]) -> list[dict]:
    return [{"id": f"s{i}", "epoch": e + 1, "input": "...", "target": "x",
             "scores": {"match": {"value": v, "answer": "x"}}}
            for i, per_epoch in enumerate(values) for e, v in enumerate(per_epoch)]


def _inspect_json(path: Path, values: list[list[str]]) -> Path:
    log = {"version": 2, "status": "success",
           "eval": {"task": "popquiz", "model": "provider/m"}, "samples": _inspect_samples(values)}
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def _inspect_zip(path: Path, values: list[list[str]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps({"version": 2, "eval": {"task": "popquiz"}}))
        for s in _inspect_samples(values):
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    return path


def test_lm_eval_logs_read_back(tmp_path):
    _lm_eval(tmp_path / "m1", "arc_easy", [1, 0, 1, 1])
    _lm_eval(tmp_path / "m1", "hella_swag", [0, 0, 1])
    _lm_eval(tmp_path / "m2", "arc_easy", [1, 1, 0, 1])
    _lm_eval(tmp_path / "m2", "hella_swag", [1, 0, 1])
    frame = read_eval_logs({"m1": tmp_path / "m1", "m2": tmp_path / "m2"})
    assert list(frame.columns) == ["item", "model", "score", "task", "epoch"]
    m1 = frame[(frame.model == "m1") & (frame.task == "arc_easy")]
    assert m1["item"].tolist() == ["0", "1", "2", "3"]
    assert m1["score"].tolist() == [1.0, 0.0, 1.0, 1.0]
    assert set(frame["task"]) == {"arc_easy", "hella_swag"} and set(frame["epoch"]) == {1}
    norm = read_eval_logs({"m1": tmp_path / "m1"}, metric="acc_norm")
    assert norm[norm.task == "arc_easy"]["score"].tolist() == [0.0, 1.0, 0.0, 0.0]
    cmp = compare_items(frame, task="task")
    assert cmp.tasks == ["arc_easy", "hella_swag", "all tasks"]


def test_lm_eval_several_filters_need_a_choice(tmp_path):
    path = _lm_eval(tmp_path / "m", "gsm8k", [1, 0], filters=("strict-match", "flexible-extract"))
    with pytest.raises(ValueError, match="several filters"):
        read_eval_logs({"m": path})
    frame = read_eval_logs({"m": path}, metric="acc,strict-match")
    assert len(frame) == 2


def test_inspect_json_and_eval_zip_read_back(tmp_path):
    values = [["C", "C"], ["I", "C"], ["I", "I"]]
    js = _inspect_json(tmp_path / "a.json", values)
    zp = _inspect_zip(tmp_path / "b.eval", [["C", "I"], ["C", "C"], [1, 0]])
    frame = read_eval_logs({"a": js, "b": zp})
    a = frame[frame.model == "a"].sort_values(["item", "epoch"])
    assert a["score"].tolist() == [1.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert a["epoch"].tolist() == [1, 2, 1, 2, 1, 2] and set(a["task"]) == {"popquiz"}
    b = frame[frame.model == "b"].sort_values(["item", "epoch"])
    assert b["score"].tolist() == [1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    cmp = compare_items(frame, sample="epoch", task="task")
    assert cmp.design_table["answers_max"].iloc[0] == 2
    # item scores are means over the two epochs: a = 1, 0.5, 0; b = 0.5, 1, 0.5
    scores = cmp.summary.set_index("model")["score"]
    assert scores["a"] == pytest.approx(0.5) and scores["b"] == pytest.approx(2 / 3)


def test_bad_logs_name_the_model_and_file(tmp_path):
    with pytest.raises(ValueError, match=r"logs\['m'\]: no such file"):
        read_eval_logs({"m": tmp_path / "nope.jsonl"})
    bad = tmp_path / "samples_t_x.jsonl"
    bad.write_text('{"doc_id": 0, "metrics": ["acc"], "acc": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: not JSON"):
        read_eval_logs({"m": bad})
    with pytest.raises(ValueError, match="no scorer 'other'"):
        read_eval_logs({"m": _inspect_json(tmp_path / "x.json", [["C"]])}, metric="other")


DEEP = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON reader can follow
GOOD_SAMPLE = {"id": "s0", "epoch": 1, "scores": {"match": {"value": "C"}}}


def _zip(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _log(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# Logs broken or hostile in their shape: each is refused with a ValueError that names the file
# (and the line or sample); none raises anything else.
HOSTILE_LOGS = {
    "deep json": (lambda d: _log(d / "a.json", DEEP), r"^a\.json: JSON nested too deeply"),
    "deep line": (lambda d: _log(d / "samples_t.jsonl", DEEP + "\n"),
                  r"^samples_t\.jsonl line 1: JSON nested too deeply"),
    "deep member": (lambda d: _zip(d / "a.eval", {"samples/s0_epoch_1.json": DEEP}),
                    r"^a\.eval: samples/s0_epoch_1\.json: JSON nested too deeply"),
    "line not an object": (lambda d: _log(d / "samples_t.jsonl", "5\n"),
                           r"line 1: not a JSON object \(got a number\)"),
    "sample not an object": (lambda d: _log(d / "a.json", json.dumps({"samples": [1]})),
                             r"^a\.json sample 0: not a JSON object \(got a number\)"),
    "member not an object": (lambda d: _zip(d / "a.eval", {"samples/x.json": "[1]"}),
                             r"^a\.eval sample 0: not a JSON object \(got a list\)"),
    "eval not an object": (lambda d: _log(d / "a.json", json.dumps(
        {"eval": "x", "samples": [GOOD_SAMPLE]})), r"^a\.json: 'eval': not a JSON object"),
    "task not a text": (lambda d: _log(d / "a.json", json.dumps(
        {"eval": {"task": [1]}, "samples": [GOOD_SAMPLE]})), r"'eval\.task' is not a text"),
    "id an object": (lambda d: _log(d / "a.json", json.dumps(
        {"samples": [{**GOOD_SAMPLE, "id": {"a": 1}}]})),
        r"sample 0: 'id' is not a text or a whole number \(got an object\)"),
    "doc_id a list": (lambda d: _log(d / "samples_t.jsonl", json.dumps(
        {"doc_id": [1], "metrics": ["acc"], "acc": 1}) + "\n"), r"line 1: 'doc_id' is not a text"),
    "epoch a word": (lambda d: _log(d / "a.json", json.dumps(
        {"samples": [{**GOOD_SAMPLE, "epoch": "x"}]})), r"sample 's0': 'epoch' is not a whole number"),
    "value a list": (lambda d: _log(d / "a.json", json.dumps(
        {"samples": [{**GOOD_SAMPLE, "scores": {"match": {"value": [1, 2]}}}]})),
        r"sample 's0' epoch 1: scorer 'match' gives a list, not a score"),
    "value missing": (lambda d: _log(d / "a.json", json.dumps(
        {"samples": [{**GOOD_SAMPLE, "scores": {"match": {"answer": "x"}}}]})),
        r"sample 's0' epoch 1: scorer 'match' gives no value, not a score"),
    "bad header": (lambda d: _zip(d / "a.eval", {"header.json": "{"}),
                   r"^a\.eval: header\.json: not JSON \(Expecting property name"),
    "member not utf-8": (lambda d: _zip(d / "a.eval", {"samples/x.json": b"\xff\xfe{"}),
                         r"^a\.eval: samples/x\.json: not UTF-8 text"),
    "line not utf-8": (lambda d: _log(d / "samples_t.jsonl", b'{"doc_id": 0, "metrics": ["acc"], '
                                      b'"acc": 1}\n\xff\xfe\n'),
                       r"^samples_t\.jsonl line 2: not UTF-8 text"),
    "eval cut short": (lambda d: _log(d / "a.eval", "PK\x03\x04 cut"),
                       r"^a\.eval: not a zip archive"),
    # a JSON escape of one half of a surrogate pair decodes to a code point that is not text;
    # unchecked, it failed far from its file ("'utf-8' codec can't encode character '\ud800'")
    "lone surrogate id": (lambda d: _log(d / "samples_t.jsonl", '{"doc_id": "q\\ud800", '
                                         '"metrics": ["acc"], "acc": 1}\n'),
                          r"^samples_t\.jsonl line 1: doc_id holds a lone surrogate"),
    "lone surrogate metadata": (lambda d: _log(d / "a.json", json.dumps(
        {"samples": [{**GOOD_SAMPLE, "metadata": {"passage": "\udc80"}}]})),
        r"^a\.json: samples\[0\]\.metadata\.passage holds a lone surrogate"),
    "lone surrogate key": (lambda d: _zip(d / "a.eval", {"samples/x.json": json.dumps(
        {**GOOD_SAMPLE, "scores": {"m\udfff": {"value": "C"}}})}),
        r"^a\.eval: samples/x\.json: the key scores\.m\\udfff holds a lone surrogate"),
}


def test_a_surrogate_pair_escape_is_one_character_and_read(tmp_path):
    """An escaped pair (an emoji, as json.dumps writes it) is text: only a lone half is refused."""
    path = _log(tmp_path / "a.json", json.dumps(
        {"eval": {"task": "t"}, "samples": [{**GOOD_SAMPLE, "id": "\U0001F600"}]}))
    assert '\\ud83d\\ude00' in path.read_text(encoding="utf-8")
    frame = read_eval_logs({"m": path})
    assert list(frame["item"]) == ["\U0001F600"]


def test_a_model_name_that_is_not_utf8_on_the_command_line_is_one_line(tmp_path):
    """Bytes that are not UTF-8 in argv reach Python as lone surrogates (PEP 383)."""
    folder = tmp_path / "b"
    _lm_eval(folder, "t", [1, 0, 1, 1])
    done = subprocess.run([os.fsencode(sys.executable), b"-m", b"precmp_lib", b"report",
                           b"--eval-log", b"\xff=" + os.fsencode(folder), b"--eval-log",
                           b"b=" + os.fsencode(folder), b"--out", os.fsencode(tmp_path / "r.html")],
                          capture_output=True, cwd=tmp_path)
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and len(err.splitlines()) == 1, err
    assert "the model name '\\xff' is not UTF-8 text" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("case", HOSTILE_LOGS)
def test_hostile_logs_are_refused_naming_the_file(tmp_path, case):
    make, message = HOSTILE_LOGS[case]
    with pytest.raises(ValueError, match=message) as refused:
        read_eval_logs({"m": make(tmp_path)})
    # the line reaches a terminal: it is text (an .eval sample's lone-surrogate message once
    # held the surrogates themselves, which no terminal can print)
    str(refused.value).encode("utf-8")


def test_stored_members_and_errored_samples(tmp_path):
    failed = {"id": "s1", "epoch": 2, "scores": None, "error": {"message": "boom"}}
    samples = [GOOD_SAMPLE, {**GOOD_SAMPLE, "epoch": 2}, {**GOOD_SAMPLE, "id": "s1"}, failed]
    with zipfile.ZipFile(tmp_path / "a.eval", "w", zipfile.ZIP_STORED) as z:
        z.writestr("header.json", json.dumps({"eval": {"task": "t", "model": "p/m"}}))
        for n, s in enumerate(samples):
            z.writestr(f"samples/{n}.json", json.dumps(s))
    frame = read_eval_logs({"m": tmp_path / "a.eval"})
    assert frame[["item", "epoch"]].values.tolist() == [["s0", 1], ["s0", 2], ["s1", 1]]
    assert frame.attrs["eval_logs"]["errored"] == {"m: t": ["s1 epoch 2"]}
    # a sample without scores that did not fail is still an error
    _log(tmp_path / "b.json", json.dumps({"samples": [{**GOOD_SAMPLE, "scores": None}]}))
    with pytest.raises(ValueError, match=r"sample 's0' epoch 1: the sample has no scores"):
        read_eval_logs({"m": tmp_path / "b.json"})


def test_only_inspect_logs_are_taken_from_a_folder(tmp_path):
    log = {"version": 2, "status": "success", "eval": {"task": "t", "model": "p/m"},
           "samples": [GOOD_SAMPLE]}
    _log(tmp_path / "run.json", json.dumps(log, indent=2))
    # an eval-set's index and other JSON that mention "eval" and "samples" are not logs
    _log(tmp_path / "logs.json", json.dumps({"run.json": {"eval": {"task": "t"}, "samples": []}}))
    _log(tmp_path / "notes.json", json.dumps({"eval": {"task": "t"}, "samples": [1]}))
    frame = read_eval_logs({"m": tmp_path})
    assert frame["item"].tolist() == ["s0"]


def test_metric_per_task_and_content_hashes(tmp_path):
    _lm_eval(tmp_path / "m1", "arc", [1, 0, 1])
    _lm_eval(tmp_path / "m1", "gsm8k", [1, 1, 0], filters=("strict-match", "flexible"))
    frame = read_eval_logs({"m1": tmp_path / "m1"}, metric="acc_norm;gsm8k=acc,flexible")
    by_task = frame.groupby("task")["score"].apply(list).to_dict()
    assert by_task == {"arc": [0.0, 1.0, 0.0], "gsm8k": [1.0, 1.0, 0.0]}
    assert frame.attrs["eval_logs"]["scoring"] == {"arc": "metric acc_norm, filter none",
                                                   "gsm8k": "metric acc, filter flexible"}
    for model, question in [("a", "q1"), ("b", "another q1")]:
        line = {"doc_id": 1, "doc_hash": question, "filter": "none", "metrics": ["acc"],
                "acc": 1.0}
        (tmp_path / model).mkdir()
        _log(tmp_path / model / "samples_t.jsonl", json.dumps(line) + "\n")
    with pytest.raises(ValueError, match=r"task 't' item '1': models 'a' and 'b' were given "
                                         "different content"):
        read_eval_logs({"a": tmp_path / "a" / "samples_t.jsonl",
                        "b": tmp_path / "b" / "samples_t.jsonl"})


def test_a_damaged_archive_and_an_oversized_member_are_refused(tmp_path, monkeypatch):
    path = _zip(tmp_path / "a.eval", {"samples/s0_epoch_1.json": json.dumps(GOOD_SAMPLE) * 50})
    data = bytearray(path.read_bytes())
    start = data.index(b"samples/s0_epoch_1.json") + len("samples/s0_epoch_1.json")
    data[start + 10:start + 30] = b"\0" * 20  # the member's deflated bytes, damaged
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"^a\.eval: a damaged \.eval archive"):
        read_eval_logs({"m": path})
    # a member larger than the reader takes (a zip bomb) is refused before it is inflated
    _zip(tmp_path / "b.eval", {"samples/s0_epoch_1.json": json.dumps(GOOD_SAMPLE)})
    monkeypatch.setenv("PRECMP_MAX_MEMBER_BYTES", "20")
    with pytest.raises(ValueError, match=r"b.eval: samples/s0_epoch_1.json: more than 20 bytes in one JSON document or archive member"):
        read_eval_logs({"m": tmp_path / "b.eval"})


# --------------------------------------------------------------------------------------------
# the command
# --------------------------------------------------------------------------------------------


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "precmp_lib", "report", *args, "--quiet"],
                          cwd=cwd, capture_output=True, text=True, timeout=600)


def test_item_report_from_a_file_and_from_logs(tmp_path):
    frame = pd.DataFrame({"q": list(range(40)) * 3, "who": ["x"] * 40 + ["y"] * 40 + ["z"] * 40,
                          "ok": [i % 2 for i in range(40)] + [i % 3 == 0 for i in range(40)]
                          + [1] * 40, "doc": [i // 4 for i in range(40)] * 3})
    frame.to_csv(tmp_path / "items.csv", index=False)
    done = _run(["items.csv", "--item", "q", "--model-column", "who", "--score", "ok",
                 "--cluster", "doc", "--margin", "0.05", "--json", "c.json"], tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Pairs of models on the same items" in page and "Obuchowski" in page
    assert "Precision, class by class" not in page
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert data["best_by_task"][""] == ["z"]
    _lm_eval(tmp_path / "m1", "arc", [1, 0, 1, 1, 0, 1])
    _lm_eval(tmp_path / "m2", "arc", [1, 1, 0, 1, 0, 0])
    done = _run(["--eval-log", "m1=m1", "--eval-log", "m2=m2", "--out", "logs.html"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "eval logs of m1, m2" in (tmp_path / "logs.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("change, args, message", [
    ("twice", [], "item '3' is scored 2 times for model 'x'"),
    ("missing", [], "model 'y' has no score for item '5'"),
    ("moved", ["--cluster", "doc"], "column 'doc' changes within item '2'"),
    ("half", ["--test", "mcnemar"], "needs every item score to be 0 or 1"),
])
def test_bad_item_files_exit_2_with_one_line_and_write_nothing(tmp_path, change, args, message):
    frame = pd.DataFrame({"q": list(range(8)) * 2, "who": ["x"] * 8 + ["y"] * 8,
                          "ok": [1, 0] * 8, "doc": [i // 2 for i in range(8)] * 2})
    if change == "twice":
        frame = pd.concat([frame, frame.iloc[[3]]])
    elif change == "missing":
        frame = frame.drop(index=13)
    elif change == "moved":
        frame.loc[10, "doc"] = 99
    else:
        frame["ok"] = frame["ok"] * 0.5
    frame.to_csv(tmp_path / "items.csv", index=False)
    done = _run(["items.csv", "--item", "q", "--model-column", "who", "--score", "ok", *args,
                 "--json", "c.json"], tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("precmp: error: ") and message in lines[0], lines
    assert not (tmp_path / "report.html").exists() and not (tmp_path / "c.json").exists()


def test_eval_logs_named_by_their_model_clustered_and_scoring_on_the_page(tmp_path):
    for model, wrong in [("p/one", {1, 4}), ("p/two", {0, 1, 2, 5, 6})]:
        samples = [{"id": f"s{i}", "epoch": 1, "input": f"question {i}",
                    "metadata": {"passage": f"p{i // 2}"},
                    "scores": {"match": {"value": "I" if i in wrong else "C"}}} for i in range(8)]
        log = {"version": 2, "status": "success", "eval": {"task": "quiz", "model": model},
               "samples": samples}
        _log(tmp_path / f"{model[2:]}.json", json.dumps(log))
    done = _run(["--eval-logs", ".", "--cluster", "metadata.passage", "--json", "c.json"],
                tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert sorted(data["models"]) == ["p/one", "p/two"]
    # 8 questions in 4 passages; scores 6/8 and 3/8 from the samples above
    assert data["design_table"]["records"][0]["clusters"] == 4
    assert {r["model"]: r["score"] for r in data["summary"]["records"]} == {"p/one": 0.75, "p/two": 0.375}
    scoring = data["settings"]["eval_logs"]["scoring"]["quiz"]
    assert scoring.startswith("scorer match (C 1, P 0.5, I 0, N 0")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Read from the eval logs: quiz: scorer match" in page
    for args, message in [(["--task", "t"], "--task does not apply to eval logs"),
                          (["--cluster", "passage"], "name the cluster 'metadata.<key>'")]:
        done = _run(["--eval-logs", ".", *args], tmp_path / ".")
        assert done.returncode == 2 and message in done.stderr, done.stderr


def test_tasks_on_different_scales_are_not_pooled_and_mde_is_points_only_on_0_1(tmp_path):
    # a judge task scored 0-10 and a 0-1 task: item scores written out, means by hand
    judge = {"a": [8, 6, 9, 7, 5, 8, 9, 6], "b": [7, 6, 8, 5, 5, 7, 9, 4]}
    f1 = {"a": [1, .5, .8, 1, 0, .6, .9, .7], "b": [.9, .5, .7, 1, .1, .4, .9, .6]}
    rows = [(i, m, v, t) for t, table in [("judge", judge), ("f1", f1)]
            for m, values in table.items() for i, v in enumerate(values)]
    frame = pd.DataFrame(rows, columns=["item", "model", "score", "task"])
    cmp = compare_items(frame, task="task")
    assert cmp.tasks == ["f1", "judge"]  # no "all tasks": 0-10 and 0-1 are not averaged
    assert cmp.design_table.set_index("task")["unit"].to_dict() == {"f1": True, "judge": False}
    assert cmp.summary.set_index(["task", "model"])["score"].loc[("judge", "a")] == 58 / 8
    assert cmp.recommendation.startswith("No answer over all tasks: the scores of judge")
    assert any(n.startswith("Tasks not pooled") for n in cmp.settings["notes"])
    plan = {line.split(":")[0]: line for line in cmp.conclusions if "power" in line}
    assert "in score units" in plan["judge"] and "points" not in plan["judge"]
    assert "points" in plan["f1"]
    # tasks all on 0-1 are still pooled
    both = compare_items(frame[frame.task == "f1"].assign(task=lambda d: "g").pipe(
        lambda g: pd.concat([frame[frame.task == "f1"], g])), task="task")
    assert both.tasks == ["f1", "g", "all tasks"]


def test_a_log_the_system_will_not_read_is_one_line(tmp_path, monkeypatch, capsys):
    """A log without read permission (tests run as root, whom chmod 000 does not stop, so the
    refusal is the operating system's error, raised where the reader opens the file)."""
    from precmp_lib import cli
    from precmp_lib.sources import evallogs

    locked = _lm_eval(tmp_path / "a", "t", [1, 0, 1, 1])
    _lm_eval(tmp_path / "b", "t", [0, 1, 1, 0])

    def refuse(path, *args, **kwargs):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(evallogs, "open", refuse, raising=False)
    code = cli.main(["report", "--eval-log", f"a={tmp_path / 'a'}", "--eval-log",
                     f"b={tmp_path / 'b'}", "--out", str(tmp_path / "r.html"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [f"precmp: error: {locked.name}: cannot be read (Permission "
                                 "denied)"]
    assert not (tmp_path / "r.html").exists()


def test_null_and_nan_scores_are_unscored_samples_named_with_file_and_sample(tmp_path):
    """A scorer's null or NaN is no score: skipped, counted and named, as errored samples are.

    The logs are written here in the tools' shapes: inspect's JSON log (``"value": null``;
    Python's json writes NaN as the token ``NaN``, as inspect does) and lm-eval's samples lines.
    """
    samples = _inspect_samples([["C"], ["I"], ["C"], ["C"]])
    samples[1]["scores"]["match"]["value"] = None
    samples[2]["scores"]["match"]["value"] = float("nan")
    log = {"version": 2, "status": "success", "eval": {"task": "popquiz", "model": "p/m"},
           "samples": samples}
    (tmp_path / "m.json").write_text(json.dumps(log), encoding="utf-8")
    frame = read_eval_logs({"m": tmp_path / "m.json"})
    assert frame["item"].tolist() == ["s0", "s3"] and frame["score"].tolist() == [1.0, 1.0]
    logs = frame.attrs["eval_logs"]
    assert logs["unscored"] == {"m: popquiz (m.json)": ["s1 epoch 1: score null",
                                                        "s2 epoch 1: score NaN"]}
    assert logs["samples"] == {"m: popquiz": 4}
    path = _lm_eval(tmp_path / "lm", "arc", [1, 0, 1])
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"acc": 0.0', '"acc": NaN')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lm = read_eval_logs({"m": tmp_path / "lm"})
    assert lm["item"].tolist() == ["0", "2"]
    assert lm.attrs["eval_logs"]["unscored"] == {f"m: arc ({path.name})": ["doc_id 1: score NaN"]}
    # every sample unscored: one line that says so
    for s in samples:
        s["scores"]["match"]["value"] = None
    (tmp_path / "m.json").write_text(json.dumps(log), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^logs\['m'\]: the logs hold no scored samples "
                                         r"\(m.json: 4 samples with no score \(s0 epoch 1: "):
        read_eval_logs({"m": tmp_path / "m.json"})


def test_a_folder_of_100_logs_is_read_in_one_pass_with_a_progress_bar(tmp_path, capsys):
    """100 inspect logs of 50 models (two tasks each) in one folder: named from the logs, read
    once, a bar over the 100 logs on stderr when asked, nothing when not."""
    from precmp_lib.sources.evallogs import logs_by_model

    folder = tmp_path / "set"
    folder.mkdir()
    for k in range(50):
        for task in ("popquiz", "trivia"):
            log = {"version": 2, "status": "success",
                   "eval": {"task": task, "model": f"provider/m{k:02d}"},
                   "samples": _inspect_samples([["C" if (i + k) % 3 else "I"] for i in range(6)])}
            (folder / f"{task}_{k:02d}.json").write_text(json.dumps(log), encoding="utf-8")
    logs = logs_by_model(folder)
    assert len(logs) == 50 and all(len(files) == 2 for files in logs.values())
    frame = read_eval_logs(logs, progress=True)
    assert len(frame) == 50 * 2 * 6 and frame["model"].nunique() == 50
    err = capsys.readouterr().err
    assert "eval logs" in err and "/100" in err
    read_eval_logs(logs)
    assert capsys.readouterr().err == ""


def test_logs_not_yet_named_are_the_eval_logs_in_messages(tmp_path, capsys):
    """--eval-logs names its models from the logs: a missing path is not 'logs[None]'."""
    from precmp_lib.cli import main

    code = main(["report", "--eval-logs", str(tmp_path / "gone"), "--quiet",
                 "--out", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["precmp: error: the eval logs: no such file 'gone'"]
