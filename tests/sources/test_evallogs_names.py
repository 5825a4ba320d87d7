"""Names read from eval logs, and answers a log holds twice.

A model, task, scorer, metric, filter, item id or cluster read from a log is a name: longer
than the label limit it is refused in one line that shows its first 40 characters; equal names
are one string in memory. A document or sample a log holds twice (``doc_id`` 5 and "5", the
same inspect id and epoch) is refused naming both, never averaged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from precmp_lib import read_eval_logs
from precmp_lib._lib.text import clip_for_message

from .test_evallogs_bombs import ZSTD, sample, write_zip

STAMP = "2025-01-01T00-00-00"
LONG = "N" * 1_000_001  # a megabyte name


def _lm_eval(folder: Path, lines: list[dict], model: str | None = None, task: str = "t") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{STAMP}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    if model is not None:
        (folder / f"results_{STAMP}.json").write_text(json.dumps({"model_name": model}))
    return path


def _inspect(path: Path, samples: list[bytes], model: str = "m", task: str = "t") -> Path:
    header = json.dumps({"version": 2, "status": "success",
                         "eval": {"task": task, "model": model, "created": "x"}}).encode()
    members = [("header.json", header, ZSTD)]
    members += [(f"samples/{n}_epoch_1.json", s, ZSTD) for n, s in enumerate(samples)]
    return write_zip(path, members)


def _line(doc_id, acc=1.0, **extra) -> dict:
    return {"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": acc, **extra}


def _refused(logs, match: str, **kwargs) -> str:
    with pytest.raises(ValueError) as info:
        read_eval_logs(logs, **kwargs)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message[:400]
    assert match in message, message[:400]
    return message


LIMIT = "characters in a label or name, more than the limit of 1,000 (raise it with --limit label=N"

# where a megabyte name can come from: (case, how to build the logs, words the message holds)
SOURCES = {
    "model from results": (lambda d: {"m": _lm_eval(d, [_line(0)], model=LONG)},
                           "the model"),
    "model given": (lambda d: {LONG: _lm_eval(d, [_line(0)])}, "logs: the model"),
    "task": (lambda d: {"m": _inspect(d / "a.eval", [sample(0)], task=LONG)}, "the task"),
    "item id": (lambda d: {"m": _inspect(d / "a.eval", [json.dumps(
        {"id": LONG, "epoch": 1, "scores": {"s": {"value": 1}}}).encode()])}, "'id'"),
    "doc_id": (lambda d: {"m": _lm_eval(d, [_line(LONG)])}, "'doc_id'"),
    "scorer": (lambda d: {"m": _inspect(d / "a.eval", [json.dumps(
        {"id": 1, "epoch": 1, "scores": {LONG: {"value": 1}}}).encode()])}, "the scorer"),
    "metric": (lambda d: {"m": _lm_eval(d, [{"doc_id": 0, "metrics": [LONG[:500_000]],
                                             LONG[:500_000]: 1}])}, "the metric"),
    "filter": (lambda d: {"m": _lm_eval(d, [_line(0, filter=LONG)])}, "the filter"),
}


@pytest.mark.parametrize("case", SOURCES)
def test_a_megabyte_name_is_refused_showing_40_characters(tmp_path, case):
    build, words = SOURCES[case]
    logs = build(tmp_path)
    if case == "model from results":
        from precmp_lib.sources.evallogs import logs_by_model

        with pytest.raises(ValueError) as info:
            logs_by_model([tmp_path])
        message = str(info.value)
    else:
        message = _refused(logs, LIMIT)
    assert words in message and LIMIT in message, message[:300]
    assert "N" * 41 not in message, message[:300]
    assert "(1,000,001 characters)" in message or "(500,000 characters)" in message


def test_a_name_at_the_limit_is_read_and_stored_once(tmp_path):
    item = "i" * 1000  # the label limit
    lines = [_line(item, acc=1.0)]
    frame = read_eval_logs({"a": _lm_eval(tmp_path / "a", lines),
                            "b": _lm_eval(tmp_path / "b", lines)})
    assert frame["item"].tolist() == [item, item]
    # one string in memory for the two rows, read from two files
    assert frame["item"].iloc[0] is frame["item"].iloc[1]


def test_clip_for_message_cuts_at_80_characters():
    assert clip_for_message("a" * 80) == "a" * 80
    assert clip_for_message("a" * 81) == "a" * 80 + "... (81 characters)"
    assert clip_for_message("m\ud800") == "m\\ud800"  # a lone surrogate, shown as its escape


@pytest.mark.parametrize("second", [5, "5"])
def test_a_doc_id_twice_is_refused_naming_both_lines(tmp_path, second):
    lines = [_line(i, acc=float(i % 2)) for i in range(8)] + [_line(second, acc=1.0)]
    message = _refused({"m": _lm_eval(tmp_path, lines)},
                       f"samples_t_{STAMP}.jsonl: doc_id '5' is on lines 6 and 9")
    assert "5 and \"5\" are one id" in message
    # the same doc_id under two filters is two scorings of one document, not a copy
    two = [_line(i) for i in range(3)] + [dict(_line(i), filter="strict") for i in range(3)]
    frame = read_eval_logs({"m": _lm_eval(tmp_path / "f", two)}, metric="acc,strict")
    assert frame["item"].tolist() == ["0", "1", "2"]


def test_an_inspect_sample_twice_is_refused(tmp_path):
    copy = json.dumps({"id": 3, "epoch": 1, "scores": {"s": {"value": 0}}}).encode()
    path = _inspect(tmp_path / "a.eval", [sample(n) for n in range(5)] + [copy])
    _refused({"m": path}, "a.eval sample '3' epoch 1: the log holds this sample twice")
    # an inspect .json log likewise; epochs 1 and 2 of one id are two answers
    log = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"},
           "samples": [json.loads(sample(0)), dict(json.loads(sample(0)), epoch=2),
                       json.loads(sample(0))]}
    (tmp_path / "b.json").write_text(json.dumps(log))
    _refused({"m": tmp_path / "b.json"}, "b.json sample '0' epoch 1: the log holds this "
             "sample twice")
    log["samples"].pop()
    (tmp_path / "b.json").write_text(json.dumps(log))
    assert len(read_eval_logs({"m": tmp_path / "b.json"})) == 2


def test_messages_echo_an_item_id_cut_to_80_characters(tmp_path):
    item = "q" * 900  # under the limit, but too long to echo whole
    path = _inspect(tmp_path / "a.eval", [json.dumps(
        {"id": item, "epoch": 1, "scores": {"s": {"value": [1]}}}).encode()])
    message = _refused({"m": path}, f"a.eval sample '{'q' * 80}... (900 characters)' epoch 1")
    assert "q" * 81 not in message
