"""Eval logs written by the real tools (inspect_ai, lm-evaluation-harness), read by the command.

The logs are made once per test run, offline, by ``real_eval_logs.py`` (what it writes is
described there): inspect's default ``.eval`` archives (zstd members) and the same logs as
JSON, an ``eval-set`` folder, lm-evaluation-harness samples with two metrics and two filters,
a re-run and a reordered dataset. Reference values come from the tools themselves: inspect's
``read_eval_log`` (its reductions, errors and metadata) and lm-evaluation-harness's own
aggregate in ``results_*.json``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from precmp_lib import read_eval_logs
from precmp_lib.cli import main
from precmp_lib.report.html import esc
from precmp_lib.sources.evallogs import logs_by_model

MAKER = Path(__file__).resolve().parents[1] / "real_eval_logs.py"
INSTALL = "pip install -r requirements-dev.txt (inspect_ai and lm_eval are pinned there)"


@pytest.fixture(scope="session")
def real_logs(tmp_path_factory) -> Path:
    missing = [m for m in ("inspect_ai", "lm_eval") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed: {INSTALL}")
    out = tmp_path_factory.mktemp("real_logs")
    home = out / "home"
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(home / "hf"), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CACHE_HOME": str(home / "cache"), "INSPECT_LOG_DIR": str(out / "inspect_default")}
    done = subprocess.run([sys.executable, str(MAKER), str(out)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _report(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``precmp report`` in this process (a fresh one per call costs seconds of imports)."""
    err = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stderr(err):
        code = main(["report", *args, "--quiet", "--json", "c.json"])
    return subprocess.CompletedProcess(args, code, "", err.getvalue())


def _ok(args: list[str], cwd: Path) -> tuple[dict, str]:
    done = _report(args, cwd)
    assert done.returncode == 0, done.stderr
    page = (cwd / "report.html").read_text(encoding="utf-8")
    return json.loads((cwd / "c.json").read_text(encoding="utf-8")), page


def _refused(args: list[str], cwd: Path) -> str:
    done = _report(args, cwd)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert not (cwd / "report.html").exists()
    return lines[0]


def _scores(data: dict, task: str) -> dict[str, float]:
    return {r["model"]: r["score"] for r in data["summary"]["records"] if r["task"] == task}


def _inspect_truth(folder: Path) -> dict[str, dict]:
    """Per model, from inspect's own reader: reduced values, errored samples, passages."""
    from inspect_ai.log import read_eval_log

    out = {}
    for path in sorted(folder.glob("*.eval")):
        log = read_eval_log(str(path))
        (reduction,) = log.reductions
        out[log.eval.model] = {
            "reducer": reduction.reducer, "values": [s.value for s in reduction.samples],
            "errored": sorted(f"{s.id} epoch {s.epoch}" for s in log.samples if s.error),
            "passages": {s.metadata["passage"] for s in log.samples}}
    return out


def test_inspect_eval_archives_read_with_clusters_reducer_and_errors(real_logs, tmp_path):
    folder = real_logs / "inspect" / "set"
    archive = next(folder.glob("*.eval"))
    with zipfile.ZipFile(archive) as z:  # inspect's default: zstd members (zip method 93)
        assert {i.compress_type for i in z.infolist()} == {93}
    assert (folder / "logs.json").exists()  # an eval-set folder: the index is not a log
    truth = _inspect_truth(folder)
    data, page = _ok(["--eval-logs", str(folder), "--cluster", "metadata.passage"], tmp_path)
    assert sorted(data["models"]) == sorted(truth) == ["mockllm/alpha", "mockllm/beta"]
    # each item scored by inspect's own epoch reduction (at_least_1), not the mean of epochs
    for model, t in truth.items():
        assert t["reducer"] == "at_least_1"
        assert _scores(data, "race")[model] == pytest.approx(sum(t["values"]) / len(t["values"]))
    (design,) = data["design_table"]["records"]
    assert design["clusters"] == len(truth["mockllm/alpha"]["passages"]) == 4
    assert design["test"] == "clustered McNemar (Obuchowski)"
    logs = data["settings"]["eval_logs"]
    assert "includes" in logs["scoring"]["race"] and "at_least_1" in logs["scoring"]["race"]
    for model, t in truth.items():
        assert t["errored"] == ["q3 epoch 2"]
        assert logs["errored"][f"{model}: race"] == t["errored"]
    assert "Errored samples, skipped" in page and "q3 epoch 2" in page
    assert "reduced by at_least_1" in page


def test_inspect_json_logs_give_the_comparison_of_the_archives(real_logs, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    from_eval, _ = _ok(["--eval-logs", str(real_logs / "inspect" / "set"), "--cluster",
                        "metadata.passage"], tmp_path / "a")
    from_json, _ = _ok(["--eval-logs", str(real_logs / "inspect" / "json"), "--cluster",
                        "metadata.passage"], tmp_path / "b")
    for key in ("summary", "pairs", "design", "models"):
        assert from_json[key] == from_eval[key]
    assert from_json["settings"]["eval_logs"] == from_eval["settings"]["eval_logs"]


def test_an_eval_set_folder_given_one_name_is_refused_naming_its_models(real_logs, tmp_path):
    folder = real_logs / "inspect" / "set"
    line = _refused(["--eval-log", f"a={folder}", "--eval-log",
                     f"b={real_logs / 'inspect' / 'json' / 'beta.json'}"], tmp_path)
    assert "mockllm/alpha" in line and "mockllm/beta" in line and "--eval-logs" in line
    # the index and the eval-set description are not taken for logs
    found = [p.name for files in logs_by_model(folder).values() for p in files]
    assert sorted(found) == sorted(p.name for p in folder.glob("*.eval"))


def _lm_results(folder: Path) -> dict:
    (path,) = folder.rglob("results_*.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_lm_eval_suite_with_a_metric_and_a_filter_per_task(real_logs, tmp_path):
    lm = real_logs / "lm_eval"
    data, page = _ok(["--eval-logs", str(lm / "alpha"), str(lm / "beta"), "--metric",
                      "acc_norm;race_gen=exact_match,first-word", "--cluster", "doc.passage"],
                     tmp_path)
    assert sorted(data["models"]) == ["alpha", "beta"]  # lm-eval's model_name
    for model in ("alpha", "beta"):
        results = _lm_results(lm / model)["results"]  # lm-evaluation-harness's own means
        assert _scores(data, "race_mc")[model] == pytest.approx(results["race_mc"]["acc_norm,none"])
        assert _scores(data, "race_gen")[model] == pytest.approx(
            results["race_gen"]["exact_match,first-word"])
    scoring = data["settings"]["eval_logs"]["scoring"]
    assert scoring == {"race_gen": "metric exact_match, filter first-word",
                       "race_mc": "metric acc_norm, filter none"}
    assert "race_mc: metric acc_norm, filter none" in page
    clusters = {r["task"]: r["clusters"] for r in data["design_table"]["records"]}
    assert clusters["race_mc"] == clusters["race_gen"] == 4  # 12 documents in 4 passages


def test_a_metric_for_one_filter_does_not_drop_the_other_task(real_logs, tmp_path):
    lm = real_logs / "lm_eval"
    line = _refused(["--eval-logs", str(lm / "alpha"), str(lm / "beta"), "--metric",
                     "exact_match,whole"], tmp_path)
    assert "samples_race_mc_" in line and "no line has the filter 'whole'" in line
    assert "TASK=METRIC" in line


def test_a_re_run_is_refused_naming_both_logs_or_the_newest_read(real_logs, tmp_path):
    lm = real_logs / "lm_eval"
    args = ["--eval-logs", str(lm / "alpha"), str(lm / "alpha_rerun"), str(lm / "beta"),
            "--metric", "acc;race_gen=exact_match,whole"]
    line = _refused(args, tmp_path)
    first, rerun = (next((lm / f).rglob("samples_race_gen_*.jsonl")).name
                    for f in ("alpha", "alpha_rerun"))
    assert "logs['alpha']: two logs of task 'race_gen'" in line and "--latest" in line
    assert first in line and rerun in line
    data, page = _ok([*args, "--latest"], tmp_path)
    newest = _lm_results(lm / "alpha_rerun")["results"]
    assert _scores(data, "race_mc")["alpha"] == pytest.approx(newest["race_mc"]["acc,none"])
    left = data["settings"]["eval_logs"]["left_out"]
    assert len(left) == 2 and all(x.startswith("alpha: samples_race_") for x in left)
    assert "left out (--latest)" in page


def test_items_whose_document_differs_between_models_are_refused(real_logs, tmp_path):
    lm = real_logs / "lm_eval"
    line = _refused(["--eval-logs", str(lm / "alpha"), str(lm / "beta_reordered"), "--metric",
                     "acc;race_gen=exact_match,whole"], tmp_path)
    assert "models 'alpha' and 'beta'" in line and "hashes differ" in line


@pytest.mark.parametrize("args, message", [
    (["--cluster", "passage"], "name the cluster 'metadata.<key>' (got 'passage')"),
    (["--cluster", "metadata.topic"], "no field 'metadata.topic' for the cluster"),
    (["--task", "race"], "--task does not apply to eval logs"),
])
def test_a_cluster_or_task_the_logs_cannot_give_exits_2(real_logs, tmp_path, args, message):
    assert message in _refused(["--eval-logs", str(real_logs / "inspect" / "json"), *args],
                               tmp_path)


def test_the_reader_names_errored_samples_by_id_and_epoch(real_logs):
    frame = read_eval_logs({"alpha": real_logs / "inspect" / "json" / "alpha.json"},
                           metric="includes")
    assert frame.attrs["eval_logs"]["errored"] == {"alpha: race": ["q3 epoch 2"]}
    assert sorted(frame["item"]) == [f"q{i}" for i in range(8)]
    assert set(frame["epoch"]) == {1}


# --------------------------------------------------------------------------------------------
# runs as they happen: cancelled, started (killed), unscored samples; logs in memory
# --------------------------------------------------------------------------------------------


def _run(real_logs: Path, folder: str) -> Path:
    return next((real_logs / "inspect" / "runs" / folder).glob("*.eval"))


def test_a_cancelled_run_is_refused_or_compared_on_common_items_and_said_first(real_logs,
                                                                               tmp_path):
    from inspect_ai.log import read_eval_log

    cancelled, full = _run(real_logs, "cancelled"), _run(real_logs, "full")
    log = read_eval_log(str(cancelled))  # inspect's own reading of the run
    assert log.status == "cancelled" and len(log.samples) == 33
    assert log.eval.dataset.samples == 82
    args = ["--eval-logs", str(cancelled.parent), str(full.parent)]
    line = _refused(args, tmp_path)
    assert line.startswith("precmp: error: logs['mockllm/alpha']: ")
    assert "cancelled after 33 of 82 samples" in line and "--common-items" in line
    data, page = _ok([*args, "--common-items"], tmp_path)
    said = "Model mockllm/alpha: cancelled after 33 of 82 samples"
    assert data["recommendation"].startswith(said)
    assert data["settings"]["eval_logs"]["runs"] == {
        "mockllm/alpha": {"quiz": "cancelled after 33 of 82 samples"}}
    (design,) = data["design_table"]["records"]
    # the 33 answered, less q5, whose score beta's scorer gave as NaN
    assert design["items"] == 32
    # the first sentence of the page's conclusion
    first = page[page.index('<p class="rec">'):]
    assert first[len('<p class="rec">'):].startswith(said)


def test_a_started_run_is_named_from_its_journal_and_its_samples_read(real_logs, tmp_path):
    from inspect_ai.log import read_eval_log

    started, full = _run(real_logs, "started"), _run(real_logs, "full")
    with zipfile.ZipFile(started) as z:  # killed: no header.json, the journal's start record
        names = z.namelist()
    assert "header.json" not in names and "_journal/start.json" in names
    log = read_eval_log(str(started))
    assert log.status == "started" and log.eval.model == "mockllm/alpha"
    assert logs_by_model(started.parent) == {"mockllm/alpha": [started]}
    frame = read_eval_logs({"a": started}, incomplete=True)
    assert set(frame["task"]) == {log.eval.task} == {"quiz"}
    assert dict(zip(frame["item"], frame["score"])) == {
        s.id: s.scores["right"].value for s in log.samples}
    assert len(frame) == len(log.samples) == 33
    line = _refused(["--eval-logs", str(started.parent), str(full.parent)], tmp_path)
    assert "started and never finished, after 33 of 82 samples (status started)" in line
    data, _ = _ok(["--eval-logs", str(started.parent), str(full.parent), "--common-items"],
                  tmp_path)
    assert data["recommendation"].startswith(
        "Model mockllm/alpha: started and never finished, after 33 of 82 samples")


def test_a_nan_score_is_an_unscored_sample_named_with_its_file(real_logs):
    from inspect_ai.log import read_eval_log

    full = _run(real_logs, "full")
    log = read_eval_log(str(full))
    nan = [s.id for s in log.samples if s.scores["right"].value != s.scores["right"].value]
    assert nan == ["q5"]  # inspect keeps the scorer's NaN
    frame = read_eval_logs({"b": full})
    assert frame.attrs["eval_logs"]["unscored"] == {f"b: quiz ({full.name})": ["q5 epoch 1: score NaN"]}
    assert "q5" not in set(frame["item"]) and len(frame) == 81
    assert frame.attrs["eval_logs"]["samples"] == {"b: quiz": 82}


def test_two_logs_under_one_model_name_say_how_to_name_them_apart(real_logs, tmp_path):
    line = _refused(["--eval-logs", str(_run(real_logs, "cancelled").parent),
                     str(_run(real_logs, "started").parent), "--common-items"], tmp_path)
    assert "both name the model 'mockllm/alpha'" in line
    assert "--latest" in line and "--eval-log NAME=PATH" in line


def test_common_items_with_a_task_one_model_lacks_is_one_line(real_logs, tmp_path):
    lm = real_logs / "lm_eval"
    only_mc = next((lm / "beta").rglob("samples_race_mc_*.jsonl"))
    line = _refused(["--eval-log", f"alpha={lm / 'alpha'}", "--eval-log", f"beta={only_mc}",
                     "--metric", "acc;race_gen=exact_match,whole", "--common-items"], tmp_path)
    assert line == ("precmp: error: eval logs of alpha, beta: task 'race_gen': no item is answered by every model, so "
                    "--common-items leaves nothing to compare (items answered: alpha 12, beta 0)")


def test_logs_in_memory_read_as_their_files(real_logs):
    import pickle

    from inspect_ai.log import read_eval_log

    import precmp_lib as pc

    folder = real_logs / "inspect" / "set"
    paths = {p: read_eval_log(str(p)) for p in sorted(folder.glob("*.eval"))}
    from_files = read_eval_logs({log.eval.model: p for p, log in paths.items()},
                                cluster="metadata.passage")
    in_memory = read_eval_logs({log.eval.model: log for log in paths.values()},
                               cluster="metadata.passage")
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(from_files, in_memory)
    assert in_memory.attrs["eval_logs"]["errored"] == from_files.attrs["eval_logs"]["errored"]
    # lm-evaluation-harness: the dict simple_evaluate returned, against the files it wrote
    results = pickle.loads((real_logs / "lm_eval" / "results.pkl").read_bytes())
    lm = read_eval_logs({"alpha": results}, metric="acc;race_gen=exact_match,whole")
    files = read_eval_logs({"alpha": real_logs / "lm_eval" / "alpha"},
                           metric="acc;race_gen=exact_match,whole")
    pd_testing.assert_frame_equal(lm.sort_values(["task", "item"]).reset_index(drop=True),
                                  files.sort_values(["task", "item"]).reset_index(drop=True))
    # compare_items takes the logs themselves; its messages name them as logs
    cmp = pc.compare_items({"a": paths[next(iter(paths))], "b": list(paths.values())[1]},
                           cluster="metadata.passage")
    assert cmp.source == "the eval logs" and cmp.settings["eval_logs"]["errored"]
    with pytest.raises(ValueError, match=r"^logs\['a'\]: the EvalLog of 'quiz' for 'a' is an "
                                         "unfinished run"):
        pc.read_eval_logs({"a": read_eval_log(str(_run(real_logs, "cancelled")))})


@pytest.mark.parametrize("weight, by_size", [("items", True), ("tasks", False)])
def test_the_all_tasks_line_equals_lm_eval_group_aggregation(real_logs, tmp_path, weight,
                                                             by_size):
    """The all-tasks score against lm-eval's own: the per-task means in ``results_*.json`` and
    the task sizes (``n-samples``) lm-eval wrote, aggregated by lm-eval 0.4.13's
    ``aggregate_subtask_metrics`` as its groups do with ``weight_by_size`` true or false. The
    two tasks have 12 documents each, so here the two weightings agree; tasks of unequal sizes
    are in ``tests/compare/test_items.py``."""
    from lm_eval.api.metrics import aggregate_subtask_metrics

    lm = real_logs / "lm_eval"
    data, page = _ok(["--eval-logs", str(lm / "alpha"), str(lm / "beta"), "--metric",
                      "acc;race_gen=exact_match,whole", "--weight", weight], tmp_path)
    assert data["settings"]["weight"] == weight
    for model in ("alpha", "beta"):
        written = _lm_results(lm / model)
        tasks = ["race_gen", "race_mc"]
        means = [written["results"]["race_gen"]["exact_match,whole"],
                 written["results"]["race_mc"]["acc,none"]]
        sizes = [written["n-samples"][t]["effective"] for t in tasks]
        assert _scores(data, "all tasks")[model] == pytest.approx(
            aggregate_subtask_metrics(means, sizes, weight_by_size=by_size), rel=1e-12)
    assert esc(f"weighted by {weight}") in page
