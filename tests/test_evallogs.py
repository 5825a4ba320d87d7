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
    assert cmp.design["answers_max"].iloc[0] == 2
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
    assert data["best"][""] == ["z"]
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
