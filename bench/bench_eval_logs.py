"""`precmp report --eval-logs` at a realistic size, against inspect's own reader in the same run.

1. An MMLU-sized lm-evaluation-harness suite: 57 tasks x 3 models (14,042 documents, 42,126
   answers), one ``samples_<task>_<stamp>.jsonl`` per task and a ``results_<stamp>.json`` per
   model, each line shaped as lm-eval 0.4.13 writes it (``doc``, ``target``, ``arguments``,
   ``resps``, ``filtered_resps``, ``filter``, ``metrics``, the hashes, ``acc`` and
   ``acc_norm``). Goal: the command under 5 s.
2. Ten inspect ``.eval`` logs of 15,180 samples each, written by inspect_ai itself
   (``write_eval_log``, zstd members): a mock-model run of 20 questions whose samples are
   copied to 15,180 ids, written once and copied to ten files. The command's wall time and the peak memory of its process tree
   against inspect's ``read_eval_log`` of the same ten logs, timed in this run. Goal: under
   15 s and 500 MB.

Reference figures before the readers were reworked (same machine, 2 cores shared): the suite
45-55 s, the ten logs 84 s and 747 MB. After, in one run on the shared machine: the suite
100.7 s through the command (its page of 57 tasks, a figure pair per task, is most of it;
reading 3.6 s and comparing 2.0 s in process), the ten logs 25.7 s and 273 MB against
inspect's read_eval_log 398.5 s (ratio 0.06). Then, with the tasks folded into one figure
beyond six (instead of two figures per task) and the limits read once per read, the archive's
directory once and small samples' JSON not counted, in one run on a quieter machine: the suite
2.19 s (read 0.56 s, compare 0.35 s; 208 MB), the ten logs 8.34 s and 249 MB against inspect's
read_eval_log 138.2 s (ratio 0.06). Writing the inspect logs takes 1.5 to 15 minutes
(inspect's write_eval_log, with the machine's load).

    python bench/bench_eval_logs.py               # both parts
    python bench/bench_eval_logs.py --samples 2000 --logs 3   # a quick check
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _timing import run_tree

STAMP = "2025-03-04T10-11-12.123456"
# the 57 subjects' sizes: 14,042 documents as in MMLU's test split (246 or 247 each)
TASKS, DOCUMENTS = 57, 14_042
MODELS = ("alpha", "bravo", "charlie")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_suite(folder: Path) -> list[Path]:
    """Write the lm-eval suite: a folder per model, a samples file per task."""
    sizes = [DOCUMENTS // TASKS + (1 if t < DOCUMENTS % TASKS else 0) for t in range(TASKS)]
    out = []
    for m, model in enumerate(MODELS):
        where = folder / model
        where.mkdir(parents=True)
        (where / f"results_{STAMP}.json").write_text(json.dumps(
            {"model_name": model, "results": {}}), encoding="utf-8")
        for t, size in enumerate(sizes):
            lines = []
            for i in range(size):
                question = f"Subject {t}, question {i}: which of the following holds? " * 3
                choices = [f"choice {c} of question {i}" for c in "ABCD"]
                context = f"The following are questions.\n\n{question}\nAnswer:"
                right = (i * 7 + t + m * 3) % 5 != 0
                lines.append(json.dumps({
                    "doc_id": i, "doc": {"question": question, "subject": f"subject_{t}",
                                         "choices": choices, "answer": i % 4},
                    "target": i % 4,
                    "arguments": {f"gen_args_{c}": {"arg_0": context, "arg_1": f" {c}"}
                                  for c in range(4)},
                    "resps": [[[f"-{1.5 + c / 10}", "False"]] for c in range(4)],
                    "filtered_resps": [[f"-{1.5 + c / 10}", "False"] for c in range(4)],
                    "filter": "none", "metrics": ["acc", "acc_norm"],
                    "doc_hash": _sha(question), "prompt_hash": _sha(context),
                    "target_hash": _sha(str(i % 4)), "acc": float(right),
                    "acc_norm": float(right)}))
            (where / f"samples_mmlu_subject_{t:02d}_{STAMP}.jsonl").write_text(
                "\n".join(lines) + "\n", encoding="utf-8")
        out.append(where)
    return out


def make_eval_logs(folder: Path, samples: int, logs: int) -> list[Path]:
    """Write ``logs`` inspect ``.eval`` logs of ``samples`` samples each, with inspect itself."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes

    questions = [Sample(id=f"q{i}", input=f"What is {i} + 1? Think it through, then answer.",
                        target=str(i + 1), metadata={"passage": f"p{i // 4}"}) for i in range(20)]
    outs = []
    for i in range(20):
        reply = ModelOutput.from_content(model="m", content=f"The answer is {i + 1 if i % 3 else 0}.")
        reply.usage = ModelUsage(input_tokens=12, output_tokens=6, total_tokens=18)
        outs.append(reply)
    task = Task(name="arithmetic", dataset=MemoryDataset(questions), scorer=includes())
    (log,) = eval(task, model=get_model("mockllm/model", custom_outputs=outs),
                  log_dir=str(folder / "seed"), display="none")
    log = read_eval_log(log.location)
    seed = log.samples
    big = []
    for n in range(samples):
        s = seed[n % len(seed)].model_copy(deep=True)
        s.id = f"q{n}"
        s.metadata = {"passage": f"p{n // 4}"}
        big.append(s)
    log.samples = big
    log.eval.dataset.samples = samples
    log.eval.dataset.sample_ids = [s.id for s in big]
    log.reductions = None
    first = folder / "log_00.eval"
    write_eval_log(log, str(first), format="eval")  # minutes: inspect writes sample by sample
    out = [first]
    for k in range(1, logs):  # the same log again; the command names each model
        out.append(folder / f"log_{k:02d}.eval")
        shutil.copyfile(first, out[-1])
    return out


def inspect_reads(paths: list[Path]) -> float:
    """Seconds inspect's ``read_eval_log`` takes to read every log with its samples, in a
    fresh process (as the command runs in one)."""
    code = ("import sys, time\nfrom inspect_ai.log import read_eval_log\nt = time.perf_counter()\n"
            "for p in sys.argv[1:]:\n    read_eval_log(p)\nprint(time.perf_counter() - t)\n")
    import subprocess

    done = subprocess.run([sys.executable, "-c", code, *map(str, paths)], check=True,
                          capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def command(args: list[str], cwd: Path) -> tuple[float, int]:
    return run_tree([sys.executable, "-m", "precmp_lib", "report", *args, "--quiet",
                     "--out", str(cwd / "report.html")], cwd)


def in_process(models: list[Path]) -> tuple[float, float]:
    """Seconds to read the suite's logs and to compare them, in this process (the rest of the
    command's time is its page)."""
    from precmp_lib import compare_items, read_eval_logs

    start = time.perf_counter()
    frame = read_eval_logs({m.name: m for m in models}, metric="acc")
    read = time.perf_counter() - start
    start = time.perf_counter()
    compare_items(frame, task="task")
    return read, time.perf_counter() - start


def suite(folder: Path) -> None:
    start = time.perf_counter()
    models = make_suite(folder / "suite")
    made = time.perf_counter() - start
    seconds, peak = command(["--eval-logs", *map(str, models), "--metric", "acc"], folder)
    read, compared = in_process(models)
    print(f"\n## lm-eval suite: {TASKS} tasks x {len(MODELS)} models, "
          f"{DOCUMENTS * len(MODELS):,} answers (made in {made:.0f} s)")
    print(f"{'read_eval_logs (in process)':34}{read:>10.2f} s")
    print(f"{'compare_items (in process)':34}{compared:>10.2f} s   read + compare goal < 5 s "
          f"{'met' if read + compared < 5 else 'NOT met'}")
    print(f"{'precmp report --eval-logs':34}{seconds:>10.2f} s   goal < 5 s "
          f"(ratio {seconds / 5:.2f})  {'met' if seconds < 5 else 'NOT met'}")
    print(f"{'peak RSS of the process tree':34}{peak / 1e6:>10.0f} MB")


def inspect_logs(folder: Path, samples: int, logs: int) -> None:
    start = time.perf_counter()
    paths = make_eval_logs(folder / "inspect", samples, logs)
    made = time.perf_counter() - start
    theirs = inspect_reads(paths)
    args = [a for k, p in enumerate(paths) for a in ("--eval-log", f"model_{k}={p}")]
    seconds, peak = command([*args, "--cluster", "metadata.passage"], folder)
    size = sum(p.stat().st_size for p in paths)
    print(f"\n## inspect: {logs} .eval logs x {samples:,} samples ({size / 2**20:.0f} MiB, "
          f"made in {made:.0f} s)")
    print(f"{'':34}{'seconds':>10}{'ratio':>8}")
    print(f"{'inspect read_eval_log, every log':34}{theirs:>10.2f}{1:>8.2f}")
    print(f"{'precmp report --eval-log':34}{seconds:>10.2f}{seconds / theirs:>8.2f}   "
          f"goal < 15 s {'met' if seconds < 15 else 'NOT met'}")
    print(f"{'peak RSS of the process tree':34}{peak / 1e6:>10.0f} MB   goal < 500 MB "
          f"(ratio {peak / 500e6:.2f})  {'met' if peak < 500e6 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=15_180, help="samples per .eval log")
    parser.add_argument("--logs", type=int, default=10, help=".eval logs (10)")
    parser.add_argument("--part", choices=("suite", "inspect", "both"), default="both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="precmp-bench-",
                                     dir=os.environ.get("PRECMP_BENCH_DIR")) as tmp:
        if args.part in ("suite", "both"):
            suite(Path(tmp))
        if args.part in ("inspect", "both"):
            inspect_logs(Path(tmp), args.samples, args.logs)


if __name__ == "__main__":
    main()
