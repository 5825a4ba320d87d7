"""The items route: models scored on the same evaluation items (``ROUTE``).

Its input is an item file (one row per answer: item, model, score; ``--item``) or eval logs
(``--eval-log NAME=PATH``, ``--eval-logs PATH ...``: inspect and lm-evaluation-harness, read by
:func:`precmp_lib.sources.evallogs.read_eval_logs`);
:func:`~precmp_lib.compare.items.compare_items` compares the models per task and over all
tasks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._lib.text import clip_for_message, printable_name, shorten
from .route import (
    ALPHA,
    CLUSTER,
    ENGINE,
    MARGIN,
    METRIC,
    MODEL_COLUMN,
    MODELS,
    PAIRS,
    REFERENCE,
    SPARK_CONF,
    SPARK_MASTER,
    InputError,
    Option,
    Route,
    start_spark,
)

if TYPE_CHECKING:  # the comparison's module is imported when the route runs
    from .base import Comparison

__all__ = ["OPTIONS", "ROUTE", "datasets_hint", "parse_eval_log"]


def parse_eval_log(text: str) -> tuple[str, str]:
    """Read ``NAME=PATH`` into (name, path); the path may be any file name.

    The name must be text: bytes that are not UTF-8 reach ``sys.argv`` as lone surrogates,
    which no page or JSON can hold.

    >>> parse_eval_log("llama=runs/a.eval")
    ('llama', 'runs/a.eval')
    """
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path:
        raise argparse.ArgumentTypeError(f"--eval-log takes NAME=PATH; got {text!r}")
    if printable_name(name) != name:
        raise argparse.ArgumentTypeError(f"the model name '{printable_name(name)}' is not "
                                         "UTF-8 text; name the model in UTF-8")
    return name.strip(), path


class _EvalLogs(argparse.Action):
    """``--eval-logs PATH ...``: entries of ``--eval-log`` whose model is named by the logs."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        entries = list(getattr(namespace, self.dest) or [])
        setattr(namespace, self.dest, entries + [(None, v) for v in values])


# the option group, in the order the command's help lists it
OPTIONS: tuple[Option, ...] = (
    MODELS,
    ENGINE,
    SPARK_MASTER,
    SPARK_CONF,
    MODEL_COLUMN,
    MARGIN,
    ALPHA,
    Option(("--item",), {"metavar": "COL",
                         "help": "item id column (switches to the item report)"}),
    Option(("--score",), {"metavar": "COL", "default": "score",
                          "help": "score column: 0/1, true/false, C/I/P/N or numbers (default "
                                  "'score')"}),
    CLUSTER,
    Option(("--sample",), {"metavar": "COL", "help": "numbers repeated answers to an item"}),
    Option(("--task",), {"metavar": "COL", "help": "task column: per-task and combined results"}),
    Option(("--common-items",), {"action": "store_true",
                                 "help": "compare on the items every model answered (per task); "
                                         "the items left out are counted per model"}),
    REFERENCE,
    PAIRS,
    Option(("--holm-over",), {"choices": ("pairs", "pairs-tasks"), "default": "pairs",
                              "help": "Holm's adjustment over the pairs of each task (pairs, "
                                      "default) or over every pair of every task (pairs-tasks)"}),
    Option(("--weight",), {"choices": ("items", "tasks"), "default": "items",
                           "help": "the all-tasks line: the mean over items (items, default: "
                                   "micro, lm-eval's weight_by_size true) or over tasks (tasks: "
                                   "macro, each task alike)"}),
    Option(("--test",), {"choices": ("auto", "mcnemar", "difference"), "default": "auto",
                         "help": "auto (default): clustered McNemar for 0/1 item scores, else "
                                 "the clustered paired difference; mcnemar refuses other "
                                 "scores"}),
    Option(("--eval-log",), {"action": "append", "type": parse_eval_log, "metavar": "NAME=PATH",
                             "default": [],
                             "help": "an lm-evaluation-harness samples file or folder, or an "
                                     "inspect log (.json or .eval), for model NAME; repeat per "
                                     "model"}),
    Option(("--eval-logs",), {"nargs": "+", "action": _EvalLogs, "dest": "eval_log",
                              "metavar": "PATH",
                              "help": "log files or folders of several models (an eval-set "
                                      "folder, an lm-evaluation-harness output folder): each "
                                      "model named from its logs"}),
    Option(("--latest",), {"action": "store_true",
                           "help": "eval logs: of two logs of one model and task, read the "
                                   "newest (default: refuse them)"}),
    METRIC,
)


def _comparison() -> type[Comparison]:
    from .items import ItemComparison

    return ItemComparison


def _recognise(options: argparse.Namespace) -> bool:
    """Claim an item column (``--item``) or eval logs (``--eval-log``, ``--eval-logs``)."""
    return bool(options.item or options.eval_log)


def _inputs(options: argparse.Namespace) -> list[Path]:
    """Return every file the route reads: the item file's, or the files the logs name."""
    if options.eval_log:
        from ..sources.evallogs import log_files

        return [Path(f) for name, path in options.eval_log for f in log_files(name, path)]
    if not options.predictions:
        return []
    from ..engine.files import resolve_path

    return [Path(p) for p in resolve_path(options.predictions)[0]]


def _source(options: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """Return what to compare (the item file, or the logs read as a frame) and its columns."""
    if options.eval_log:
        if options.predictions:
            raise InputError("give either an item file or --eval-log, not both")
        from ..sources.evallogs import logs_by_model, read_eval_logs

        for flag in ("task", "sample"):
            if getattr(options, flag):
                raise InputError(f"--{flag} does not apply to eval logs: the logs name the "
                                 f"{'task' if flag == 'task' else 'epoch'} of each answer")
        named = [name for name, _ in options.eval_log if name is not None]
        twice = next((name for name in named if named.count(name) > 1), None)
        if twice is not None:  # a dict would keep the last path alone
            paths = [p for name, p in options.eval_log if name == twice]
            raise InputError(f"--eval-log names the model {clip_for_message(twice)!r} twice "
                             f"({clip_for_message(paths[0])} and {clip_for_message(paths[1])}); "
                             "give each model one name, its logs as a folder or a pattern")
        logs: dict[str, Any] = dict(e for e in options.eval_log if e[0] is not None)
        unnamed = [p for name, p in options.eval_log if name is None]
        for model, files in (logs_by_model(unnamed) if unnamed else {}).items():
            if model in logs:
                raise InputError(f"model {clip_for_message(model)!r} is named twice: by "
                                 "--eval-log and by its logs")
            logs[model] = files
        # an unfinished run is compared only on the items every model answered
        frame = read_eval_logs(logs, metric=options.metric, cluster=options.cluster,
                               latest=options.latest, incomplete=options.common_items,
                               progress=not getattr(options, "quiet", True) and sys.stderr.isatty())
        # messages about the frame name the logs read, not "DataFrame"
        frame.attrs["source"] = shorten("eval logs of " + ", ".join(logs), 200)
        many_epochs = frame.groupby(["task", "item", "model"]).size().max() > 1
        return frame, {"item": "item", "model": "model", "score": "score", "task": "task",
                       "sample": "epoch" if many_epochs else None,
                       "cluster": "cluster" if options.cluster else None}
    if not options.predictions:
        raise InputError("give an item file (with --item) or --eval-log NAME=PATH")
    return options.predictions, {"item": options.item, "model": options.model_column,
                                 "score": options.score, "cluster": options.cluster,
                                 "sample": options.sample, "task": options.task}


def datasets_hint(item: str | None) -> str | None:
    """Return the line that sends results across data sets, given as items, to their route.

    None when the item column does not name data sets.

    >>> print(datasets_hint("dataset"))
    --item dataset names data sets: a table of scores across data sets is compared by rank, data set by data set (Friedman, Wilcoxon, Nemenyi), not as items; run precmp report FILE without --item (or with --dataset dataset)
    >>> datasets_hint("question") is None
    True
    """
    from ..engine.datasets import looks_like_datasets

    if item is None or not looks_like_datasets(item):
        return None
    return (f"--item {item} names data sets: a table of scores across data sets is compared by "
            "rank, data set by data set (Friedman, Wilcoxon, Nemenyi), not as items; run "
            f"precmp report FILE without --item (or with --dataset {item})")


def _margins(given: list[tuple[str | None, float]] | None) -> dict[str | None, float] | None:
    """Collect the margins given by task (None: every task not named); refuse a task named twice.

    >>> _margins([(None, 0.02), ("judge", 0.5)])
    {None: 0.02, 'judge': 0.5}
    """
    if not given:
        return None
    out: dict[str | None, float] = {}
    for task, value in given:
        if task in out:
            raise InputError(f"--margin is given twice for "
                             f"{'every task' if task is None else repr(task)}")
        out[task] = value
    return out


def _run(options: argparse.Namespace, progress: Callable[[str], None]) -> Comparison:
    """Read the items (or the logs) and compare the models on them."""
    from .items import compare_items

    hint = datasets_hint(options.item)
    if hint is not None:  # results across data sets given as items: say which route reads them
        raise InputError(hint)
    try:
        source, roles = _source(options)
        if not options.eval_log:  # the logs are read into memory: no Spark session for them
            start_spark(options)
        engine = "numpy" if options.eval_log and options.engine == "auto" else options.engine
        comparison = compare_items(source, **roles, models=options.models, test=options.test,
                                   margin=_margins(options.margin), alpha=options.alpha,
                                   engine=engine, common_items=options.common_items,
                                   holm_over=options.holm_over, family=options.pair_family,
                                   reference=options.reference, weight=options.weight)
    except (InputError, UnicodeEncodeError, UnicodeDecodeError):  # the command names the input
        raise
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except ImportError as exc:
        raise InputError(f"--engine {options.engine} needs {exc.name}: pip install -r "
                         "requirements-spark.txt") from None
    if options.eval_log:
        comparison.settings["eval_logs"] = source.attrs.get("eval_logs")
    progress(f"{comparison.n_rows:,} answers, {len(comparison.models)} models from "
             f"{comparison.source_name} (read by {comparison.engine}); writing the report ...")
    return comparison


ROUTE = Route(
    name="items",
    title="evaluation items",
    description="one row per answer (item, model, score): models compared on the same items, "
                "with clustered paired tests",
    comparison=_comparison,
    options=OPTIONS,
    recognise=_recognise,
    chosen_by="--item, --eval-log",
    usage="--item COL or --eval-log NAME=PATH",
    inputs=_inputs,
    input_name="an input file",
    run=_run,
    template="item_report.ipynb",
)
