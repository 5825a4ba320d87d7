"""The first lines of an item report from eval logs: a suite of many tasks, errored samples.

The logs are written here in the shapes the two tools document (as in ``test_evallogs.py``):
lm-evaluation-harness ``samples_<task>_<timestamp>.jsonl`` lines with ``doc_id``, ``doc``,
``filter``, ``metrics`` and one field per metric; inspect_ai JSON logs with ``eval`` and
``samples`` (an errored sample: ``scores`` null and an ``error``). Reference values are counted
from the written logs in the test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from precmp_lib import compare_items, read_eval_logs
from precmp_lib.report.html import esc

STAMP = "2025-03-04T10-11-12.123456"
SUBJECTS = [f"mmlu_subject_{i:02d}" for i in range(57)]


def _lm_eval_suite(folder: Path, p_right: float, rng: np.random.Generator, items: int = 20) -> None:
    folder.mkdir(parents=True)
    for task in SUBJECTS:
        lines = [{"doc_id": i, "doc": {"question": f"{task} q{i}"}, "target": "A",
                  "arguments": [], "resps": [["A"]], "filtered_resps": ["A"], "filter": "none",
                  "metrics": ["acc"], "acc": float(rng.random() < p_right)} for i in range(items)]
        (folder / f"samples_{task}_{STAMP}.jsonl").write_text(
            "\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def _conclusion(page: str) -> str:
    start = page.index('id="pi-conclusion"')
    return page[start:page.index("<h2", start)]


def test_a_57_task_suite_leads_with_the_answer_over_all_tasks_and_folds_the_tasks(tmp_path):
    from precmp_lib.cli import main

    rng = np.random.default_rng(57)
    for model, p in [("m1", 0.72), ("m2", 0.6), ("m3", 0.58)]:
        _lm_eval_suite(tmp_path / model, p, rng)
    assert main(["report", "--eval-log", f"m1={tmp_path / 'm1'}", "--eval-log",
                 f"m2={tmp_path / 'm2'}", "--eval-log", f"m3={tmp_path / 'm3'}", "--quiet",
                 "--out", str(tmp_path / "suite.html")]) == 0
    page = (tmp_path / "suite.html").read_text(encoding="utf-8")
    first = _conclusion(page)
    # the answer over all tasks comes first: the metric, the top two, the difference and interval
    lead = re.search(r'<p class="rec">(.*?)</p>', first).group(1)
    frame = read_eval_logs({m: tmp_path / m for m in ("m1", "m2", "m3")})
    wide = frame.pivot_table(index=["task", "item"], columns="model", values="score")
    means = wide.mean()  # 20 items in each task: the pooled and the macro average agree
    top, second = means.sort_values(ascending=False).index[:2]
    assert top == "m1"
    diff = 100 * (wide[top] - wide[second]).mean()
    assert lead.startswith(esc(f"Over all 57 tasks (scored by metric acc, filter none): "
                               f"{top} − {second} = {diff:+.1f} points, 95 % interval "))
    pair = compare_items(frame, task="task").pairs.query("task == 'all tasks'")
    row = pair[(pair.model_a == top) & (pair.model_b == second)].iloc[0]
    assert f"interval {100 * row.ci_low:+.1f} to {100 * row.ci_high:+.1f}" in lead
    assert row.ci_low < diff / 100 < row.ci_high
    # the per-task lines are folded below it: none of them stands before the <details>
    head, fold = first.split("<details>", 1)
    assert not any(f"<p>{s}: " in head for s in SUBJECTS)
    assert fold.startswith(f"<summary>Each of the 57 tasks ({2 * 57} lines)</summary>")
    assert all(f"<p>{s}: " in fold for s in SUBJECTS)
    # then what to use, as on a page of few tasks
    assert head.index(lead) < head.index(esc("Use m1") if "Use m1" in head else esc("tied"))


def _inspect_log(path: Path, task: str, n: int, errored: set[int], rng: np.random.Generator) -> None:
    """``n`` items answered in 2 epochs; the second epoch of the items in ``errored`` failed
    (each item keeps its first answer, so every model still answers every item)."""
    samples = []
    for i in range(n):
        for epoch in (1, 2):
            base = {"id": f"q{i}", "epoch": epoch, "input": f"q{i}", "target": "C"}
            if epoch == 2 and i in errored:
                samples.append({**base, "scores": None, "error": {"message": "rate limited"}})
            else:
                value = "C" if rng.random() < 0.7 else "I"
                samples.append({**base, "scores": {"match": {"value": value}}})
    path.write_text(json.dumps({"version": 2, "status": "success",
                                "eval": {"task": task, "model": "provider/m",
                                         "config": {"epochs": 2}},
                                "samples": samples}), encoding="utf-8")


def test_a_task_with_more_than_5_percent_errored_samples_says_so_in_its_first_line(tmp_path):
    from precmp_lib.cli import main

    rng = np.random.default_rng(8)
    for model in ("a", "b"):
        (tmp_path / model).mkdir()
    # race: a lost 6 of its 80 samples (7.5 %), b 2 (2.5 %); arc: a lost 4 of 80 (5 %, not above)
    _inspect_log(tmp_path / "a" / "race.json", "race", 40, {3, 9, 11, 12, 17, 30}, rng)
    _inspect_log(tmp_path / "b" / "race.json", "race", 40, {5, 6}, rng)
    _inspect_log(tmp_path / "a" / "arc.json", "arc", 40, {1, 2, 3, 4}, rng)
    _inspect_log(tmp_path / "b" / "arc.json", "arc", 40, set(), rng)
    assert main(["report", "--eval-log", f"a={tmp_path / 'a'}", "--eval-log",
                 f"b={tmp_path / 'b'}", "--quiet", "--out", str(tmp_path / "r.html")]) == 0
    paragraphs = re.findall(r"<p>(.*?)</p>", _conclusion((tmp_path / "r.html").read_text("utf-8")))
    race = [p for p in paragraphs if p.startswith("race: ")]
    assert race[0].startswith(esc("race: a: 6 of 80 samples errored (7.5 %) and were skipped. "))
    assert not any("b: 2 of 80" in p for p in paragraphs)
    assert not any("errored" in p for p in paragraphs if p.startswith("arc: "))


def test_one_task_with_errored_samples_says_so_in_the_recommendation(tmp_path):
    from precmp_lib.report.item_sections import item_sections

    rng = np.random.default_rng(9)
    frame = pd.DataFrame({"item": np.tile(np.arange(30), 2), "model": np.repeat(["a", "b"], 30),
                          "score": (rng.random(60) < 0.7).astype(int), "task": "race"})
    cmp = compare_items(frame, task="task")
    cmp.settings["eval_logs"] = {"scoring": {"race": "scorer match"},
                                 "errored": {"a: race": ["q1 epoch 1", "q2 epoch 1"]},
                                 "samples": {"a: race": 32}}
    # the page's first sentence is the difference with its interval; the recommendation next
    lead, rec = re.findall(r'<p class="rec">(.*?)</p>', item_sections(cmp))[:2]
    assert lead.startswith(esc("race: b − a = +33.3 points, 95 % interval +13.8 to +52.9"))
    assert rec.startswith(esc("race: a: 2 of 32 samples errored (6.2 %) and were skipped. "))
