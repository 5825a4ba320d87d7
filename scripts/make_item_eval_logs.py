"""Write the inspect_ai logs that notebook 13 reads: two models on a benchmark of passages.

    .venv/bin/python scripts/make_item_eval_logs.py            # writes precmp_lib/_resources/item_logs/*.eval
    .venv/bin/python scripts/make_item_eval_logs.py --check    # runs again, compares the samples

inspect_ai is a development requirement (requirements-dev.txt); the notebook reads the shipped
logs with ``precmp_lib.read_eval_logs`` and needs only the package. The benchmark is
``simulate_items`` (below: 20 passages of 5 questions, the accuracies of notebook 13); each
question is a sample whose ``metadata`` holds its passage, and inspect's mock model replies with
the question's target where the simulation says the model is right and with "none" elsewhere,
scored by ``match()``. Nothing is downloaded: every reply states its token usage, so the mock
model does not count tokens with tiktoken. The version of inspect_ai is recorded in
data/README.md and in each log's header (``eval.packages``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

SETTINGS = {"n_clusters": 20, "cluster_size": 5, "accuracy_a": 0.72, "accuracy_b": 0.66,
            "skill_sd": 0.8, "random_state": 13}
MODELS = {"model_a": "correct_a", "model_b": "correct_b"}
OUT = Path(__file__).resolve().parents[1] / "precmp_lib" / "_resources" / "item_logs"


def benchmark():
    """The simulated benchmark the logs hold (one row per question)."""
    from precmp_lib.course.items_simulation import simulate_items

    return simulate_items(**SETTINGS)


def write_logs(out: Path) -> list[Path]:
    """Run inspect's ``eval`` once per model with the mock model; return the logs, moved to
    ``out/<model>.eval`` (inspect names a log by its time and a random id)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    items = benchmark()
    samples = [Sample(id=f"q{row.item}", input=f"Passage {row.cluster}, question {row.item}: "
                      "which word answers it?", target=f"w{row.item}",
                      metadata={"passage": f"passage-{row.cluster}"})
               for row in items.itertuples()]
    by_question = {f"q{row.item}": row for row in items.itertuples()}

    def replies(column: str):
        def reply(messages, tools, tool_choice, config) -> ModelOutput:
            text = messages[-1].text
            question = "q" + text.split("question ")[1].split(":")[0]
            right = bool(getattr(by_question[question], column))
            out = ModelOutput.from_content(model="mock",
                                           content=f"w{question[1:]}" if right else "none")
            out.usage = ModelUsage(input_tokens=12, output_tokens=1, total_tokens=13)
            return out
        return reply

    written = []
    for name, column in MODELS.items():
        task = Task(name="passage_qa", dataset=MemoryDataset(samples), solver=[generate()],
                    scorer=match(location="exact"))
        model = get_model(f"mockllm/{name}", custom_outputs=replies(column))
        with tempfile.TemporaryDirectory() as folder:
            [log] = eval(task, model=model, log_dir=folder, display="none", log_samples=True)
            if log.status != "success":
                raise SystemExit(f"inspect's eval of {name} ended with status {log.status}")
            out.mkdir(parents=True, exist_ok=True)
            target = out / f"{name}.eval"
            shutil.move(log.location.removeprefix("file://"), target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write the logs again in a temporary folder and compare the samples")
    args = parser.parse_args(argv)
    for key in ["HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"]:
        os.environ[key] = "1"
    import inspect_ai

    from precmp_lib import read_eval_logs

    print(f"inspect_ai {inspect_ai.__version__}, settings {SETTINGS}")
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            write_logs(Path(tmp))
            fresh = read_eval_logs({m: Path(tmp) / f"{m}.eval" for m in MODELS},
                                   cluster="metadata.passage")
        shipped = read_eval_logs({m: OUT / f"{m}.eval" for m in MODELS}, cluster="metadata.passage")
        same = fresh.reset_index(drop=True).equals(shipped.reset_index(drop=True))
        print("the shipped logs are reproduced" if same else "the shipped logs DIFFER")
        return 0 if same else 1
    if OUT.exists():
        shutil.rmtree(OUT)
    for path in write_logs(OUT):
        print(f"wrote {path.relative_to(OUT.parent)} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
