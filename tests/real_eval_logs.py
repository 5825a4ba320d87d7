"""Write evaluation logs with the real tools, offline: ``python real_eval_logs.py OUT``.

Run by the fixture of ``test_evallogs_real.py`` in a fresh process (both tools set up logging,
event loops and caches of their own). It writes, under OUT:

- ``inspect/set``: an ``eval_set`` of the task ``race`` (8 questions in 4 passages, the passage
  in each sample's ``metadata``) for the models ``mockllm/alpha`` and ``mockllm/beta``, 3
  epochs reduced by ``at_least_1``, scored by ``includes()``; the question ``q3`` fails in epoch 2 (the solver raises,
  ``fail_on_error=False``), so each log has one errored sample. The logs are inspect's default
  ``.eval`` archives (zstd members), beside ``logs.json`` and ``eval-set.json``.
- ``inspect/json/<model>.json``: the same logs written again by inspect as JSON.
- ``lm_eval/<model>/<name>/``: lm-evaluation-harness's ``dummy`` model (random log-likelihoods,
  the answer "lol" to every generation; ``pretrained=`` only names it) on two local YAML tasks
  over a JSON-lines file of 12 documents in 4 passages: ``race_mc`` (multiple choice, ``acc``
  and ``acc_norm``) and ``race_gen`` (generation, ``exact_match`` under the filters ``whole``
  and ``first-word``); ``alpha_rerun`` is alpha run again with another seed, and
  ``beta_reordered`` is beta on the same documents in another order (so ``doc_id`` names
  other documents).

- ``inspect/runs``: runs that did not finish, of the task ``quiz`` (82 questions, one at a
  time): ``cancelled/`` (mockllm/alpha interrupted by SIGINT while answering its 33rd question:
  inspect ends the run as ``cancelled`` with 33 samples), ``started/`` (mockllm/alpha killed by
  SIGKILL after 33 samples: no ``header.json``, only ``_journal/start.json`` and the samples
  flushed), and ``full/`` (mockllm/beta, every question; its scorer gives NaN on ``q5``).
- ``lm_eval/results.pkl``: the dict ``simple_evaluate`` returned for ``alpha`` (with its
  samples), as a notebook holds it.

inspect's mock model counts the tokens of a reply that carries no usage with tiktoken, which
downloads its encoding; every reply here states its usage, so nothing is counted or fetched.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

N_QUESTIONS = 8
N_DOCS = 12


def _inspect(out: Path) -> None:
    from inspect_ai import Epochs, Task, eval_set
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import solver

    samples = [Sample(id=f"q{i}", input=f"What is {i} + 1?", target=str(i + 1),
                      metadata={"passage": f"p{i // 2}"}) for i in range(N_QUESTIONS)]

    @solver
    def fails_once():
        async def solve(state, generate):
            if state.sample_id == "q3" and state.epoch == 2:
                raise RuntimeError("the tool failed on q3 in epoch 2")
            return await generate(state)
        return solve

    def replies(name: str, every: int) -> list:
        # every `every`-th reply is wrong ("0"); the others hold every answer (1 to 8), which
        # includes() scores right whichever question the reply reaches
        outs = []
        right = "".join(str(i + 1) for i in range(N_QUESTIONS))
        for i in range(3 * N_QUESTIONS):
            reply = ModelOutput.from_content(model=name, content="0" if i % every == 0 else right)
            reply.usage = ModelUsage(input_tokens=8, output_tokens=1, total_tokens=9)
            outs.append(reply)
        return outs

    task = Task(name="race", dataset=MemoryDataset(samples), solver=[fails_once()],
                scorer=includes(), epochs=Epochs(3, "at_least_1"))
    models = [get_model("mockllm/alpha", custom_outputs=replies("alpha", 2)),
              get_model("mockllm/beta", custom_outputs=replies("beta", 3))]
    done, logs = eval_set([task], model=models, log_dir=str(out / "set"), fail_on_error=False,
                          display="none", retry_attempts=0)
    if not done:
        raise SystemExit("inspect's eval_set did not finish")
    for log in logs:
        full = read_eval_log(log.location)
        write_eval_log(full, str(out / "json" / f"{full.eval.model.split('/')[-1]}.json"),
                       format="json")



MC_TASK = """task: race_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{passage}}}} {{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
"""

GEN_TASK = """task: race_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{passage}}}} {{{{question}}}}"
doc_to_target: answer
generation_kwargs:
  until: ["\\n"]
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
filter_list:
  - name: whole
    filter:
      - function: take_first
  - name: first-word
    filter:
      - function: regex
        regex_pattern: "(\\\\w+)"
      - function: take_first
"""


N_QUIZ, STOP = 82, 33


def _inspect_run(mode: str, out: Path) -> None:
    """One run of ``quiz``: ``cancel`` (SIGINT at question 34), ``kill`` (SIGKILL), ``full``."""
    import signal

    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, accuracy, scorer
    from inspect_ai.solver import solver

    samples = [Sample(id=f"q{i}", input=f"What is {i} + 1?", target=str(i + 1))
               for i in range(N_QUIZ)]
    seen: list = []

    @solver
    def stops():
        async def solve(state, generate):
            seen.append(state.sample_id)
            if mode == "cancel" and len(seen) == STOP:  # this sample ends, then the run
                os.kill(os.getpid(), signal.SIGINT)
            if mode == "kill" and len(seen) == STOP + 1:
                os.kill(os.getpid(), signal.SIGKILL)
            return await generate(state)
        return solve

    @scorer(metrics=[accuracy()])
    def right():
        async def score(state, target):
            if state.sample_id == "q5" and mode == "full":
                return Score(value=float("nan"))
            ok = state.output.completion.strip() == target.text
            return Score(value=1.0 if ok else 0.0)
        return score

    outs = []
    for i in range(N_QUIZ):
        wrong = i % 3 == 0 if mode == "full" else i % 2 == 0
        reply = ModelOutput.from_content(model="m", content="0" if wrong else str(i + 1))
        reply.usage = ModelUsage(input_tokens=8, output_tokens=1, total_tokens=9)
        outs.append(reply)
    name = "mockllm/beta" if mode == "full" else "mockllm/alpha"
    task = Task(name="quiz", dataset=MemoryDataset(samples), solver=[stops()], scorer=right())
    eval(task, model=get_model(name, custom_outputs=outs), log_dir=str(out), display="none",
         max_samples=1, log_buffer=1)


def _inspect_runs(out: Path) -> None:
    import subprocess

    for mode, folder in [("cancel", "cancelled"), ("kill", "started"), ("full", "full")]:
        done = subprocess.run([sys.executable, __file__, "--run", mode, str(out / folder)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != (-9 if mode == "kill" else 0):
            raise SystemExit(f"the {mode} run ended with {done.returncode}: {done.stderr[-2000:]}")


def _tasks(folder: Path, docs: list[dict]) -> Path:
    folder.mkdir(parents=True)
    data = folder / "race.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    for name, text in [("race_mc.yaml", MC_TASK), ("race_gen.yaml", GEN_TASK)]:
        (folder / name).write_text(text.format(data=json.dumps(str(data))), encoding="utf-8")
    return folder


def _lm_eval(out: Path) -> None:
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    # the dummy model answers "lol": the odd documents' answer
    docs = [{"passage": f"p{i // 3}", "question": f"Question {i}?", "choices": ["yes", "no", "maybe"],
             "label": i % 3, "answer": "lol" if i % 2 else "no"} for i in range(N_DOCS)]
    plain = TaskManager(include_path=str(_tasks(out / "tasks", docs)), include_defaults=False)
    reordered = TaskManager(include_path=str(_tasks(out / "tasks_reordered", docs[::-1])),
                            include_defaults=False)
    runs = [("alpha", "alpha", 1, plain), ("beta", "beta", 2, plain),
            ("alpha_rerun", "alpha", 3, plain), ("beta_reordered", "beta", 2, reordered)]
    for folder, name, seed, manager in runs:
        tracker = EvaluationTracker(output_path=str(out / folder))
        results = simple_evaluate(model="dummy", model_args=f"pretrained={name}",
                                  tasks=["race_mc", "race_gen"], task_manager=manager,
                                  log_samples=True, evaluation_tracker=tracker, random_seed=seed,
                                  numpy_random_seed=seed, torch_random_seed=seed,
                                  fewshot_random_seed=seed)
        if folder == "alpha":
            import pickle

            (out / "results.pkl").write_bytes(pickle.dumps(results))
        samples = results.pop("samples")
        tracker.save_results_aggregated(results=results, samples=samples)
        for task in results["configs"]:
            tracker.save_results_samples(task_name=task, samples=samples[task])


if __name__ == "__main__":
    for key in ["HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"]:
        os.environ[key] = "1"
    if sys.argv[1] == "--run":  # one run of quiz, in its own process (SIGINT, SIGKILL)
        _inspect_run(sys.argv[2], Path(sys.argv[3]))
        raise SystemExit(0)
    target = Path(sys.argv[1])
    _inspect(target / "inspect")
    _inspect_runs(target / "inspect" / "runs")
    _lm_eval(target / "lm_eval")
