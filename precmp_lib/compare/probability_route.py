"""The probabilities route: models' probabilities (or scores) compared by AUC, Brier and log loss.

Chosen by ``--proba``: wide, ``--proba m1 m2`` names the models, each a column of P(positive)
(or, multiclass, columns ``m1:CLASS``); long, ``--proba COL`` names the score column beside (or
instead of) ``y_pred``. Its options are the predictions route's (the same objects: the labels
at the threshold are compared as predictions are) and its own: ``--positive``,
``--threshold``, ``--metric`` and ``--cluster``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .prediction_route import OPTIONS as PREDICTION_OPTIONS
from .route import CLUSTER, METRIC, InputError, Option, Route, install_command, start_spark

if TYPE_CHECKING:
    from .base import Comparison

__all__ = ["OPTIONS", "ROUTE", "parse_threshold"]


def parse_threshold(text: str) -> float:
    """Read ``--threshold X``: a number in (0, 1).

    >>> parse_threshold("0.3")
    0.3
    """
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threshold takes a number in (0, 1); got {text!r}") from None
    if not (math.isfinite(x) and 0 < x < 1):
        raise argparse.ArgumentTypeError(f"--threshold must lie in (0, 1); got {text}")
    return x


# the predictions route's options this route reads as well (the same objects)
_SHARED = ("--y-true", "--id", "--format", "--engine", "--spark-master", "--spark-conf",
           "--model-column", "--y-pred", "--reference", "--alpha", "--n-resamples", "--seed")

OPTIONS: tuple[Option, ...] = (
    Option(("--proba",), {
        "nargs": "+", "metavar": "COL",
        "help": "probabilities: wide, one column of P(positive) per model (the column names "
                "the model; multiclass: columns MODEL:CLASS); long, the one score column. "
                "Switches to the probabilities report (AUC, Brier score, log loss)"}),
    Option(("--positive",), {"metavar": "LABEL",
                             "help": "--proba: the class the probabilities are of (default: the "
                                     "larger of the two labels in sorted order)"}),
    Option(("--threshold",), {"type": parse_threshold, "default": 0.5, "metavar": "X",
                              "help": "--proba: a model predicts the positive class when its "
                                      "probability is at least X (default 0.5)"}),
    METRIC,
    CLUSTER,
    *(o for o in PREDICTION_OPTIONS if o.flag in _SHARED),
)

METRICS = ("auc", "brier", "logloss", "accuracy")


def _comparison() -> type[Comparison]:
    from .probabilities import ProbabilityComparison

    return ProbabilityComparison


def _recognise(options: argparse.Namespace) -> bool:
    """Claim ``--proba``."""
    return bool(getattr(options, "proba", None))


def _inputs(options: argparse.Namespace) -> list[Path]:
    if not options.predictions or not options.y_true:
        raise InputError("--proba needs a PREDICTIONS file and --y-true")
    from ..engine.files import resolve_path

    return [Path(p) for p in resolve_path(options.predictions)[0]]


def _run(options: argparse.Namespace, progress: Callable[[str], None]) -> Comparison:
    metric = options.metric or "auc"
    if metric not in METRICS:
        raise InputError(f"--metric with --proba takes {', '.join(METRICS)}; got {metric!r}")
    if options.n_resamples < 100:
        raise InputError("--n-resamples must be at least 100")
    if options.engine in ("duckdb", "spark"):
        start_spark(options)
    from .probabilities import compare_probabilities

    try:
        cmp = compare_probabilities(
            options.predictions, y_true=options.y_true, proba=options.proba,
            positive=options.positive, threshold=options.threshold, metric=metric,
            reference=options.reference, alpha=options.alpha, id=options.id,
            cluster=options.cluster, layout=options.format, model_column=options.model_column,
            pred_column=options.y_pred, engine=options.engine, n_boot=options.n_resamples,
            seed=options.seed)
    except ImportError as exc:
        raise InputError(f"--engine {options.engine} needs {exc.name}: "
                         f"{install_command(exc.name or '')}") from None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    for note in cmp.notes:
        progress(f"{cmp.source}: {note}")
    progress(f"{cmp.source}: {len(cmp.models)} models' probabilities, {cmp.n_rows:,} per model, "
             f"read by {cmp.engine}; writing the report ...")
    return cmp


ROUTE = Route(
    name="probabilities",
    title="probabilities",
    description="each model's probability (or score) of the positive class per observation: "
                "AUC by DeLong, Brier score and log loss, paired; labels at the threshold",
    comparison=_comparison,
    options=OPTIONS,
    recognise=_recognise,
    chosen_by="--proba",
    usage="a predictions file, --y-true COL and --proba COL ...",
    inputs=_inputs,
    input_name="the predictions file",
    run=_run,
    template="probability_report.ipynb",
)
