"""The predictions route: a file of predictions, counted once and compared (``ROUTE``).

Its input is a predictions file (or a glob of Parquet files) with a column of true labels; the
engine counts it (:func:`precmp_lib.engine.predictions.count_predictions`) and
:func:`~precmp_lib.compare.predictions.compare_models` compares the models from the counts.
The route is chosen when no other route recognises the command's options.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .route import (
    ALPHA,
    ENGINE,
    MARGIN,
    MODEL_COLUMN,
    MODELS,
    PAIRS,
    REFERENCE,
    SPARK_CONF,
    SPARK_MASTER,
    InputError,
    Option,
    Route,
    install_command,
    start_spark,
)

if TYPE_CHECKING:  # the comparison's module is imported when the route runs
    from .base import Comparison

__all__ = ["OPTIONS", "ROUTE", "parse_prevalence", "parse_rope"]


def parse_prevalence(text: str) -> tuple[str, float]:
    """Read ``--prevalence CLASS=P`` with P in (0, 1).

    >>> parse_prevalence("eight=0.05")
    ('eight', 0.05)
    """
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--prevalence takes CLASS=P; got {text!r}")
    label, _, value = text.rpartition("=")
    try:
        p = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--prevalence {text!r}: {value!r} is not a number") from None
    if not 0 < p < 1:
        raise argparse.ArgumentTypeError(f"--prevalence {text!r}: P must lie in (0, 1)")
    return label.strip(), p


def parse_rope(text: str) -> float:
    """Read ``--rope X``: a number >= 0.

    >>> parse_rope("0.02")
    0.02
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--rope takes a number >= 0; got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"--rope must be a number >= 0; got {text}")
    return value


# The most bootstrap resamples and permutations: 10^5 give a p-value's third digit; each holds
# a count table per model (10^5 x 6 models x 15 cells of int64: 72 MB).
MOST_RESAMPLES = 100_000

# the option group, in the order the command's help lists it
OPTIONS: tuple[Option, ...] = (
    Option(("--y-true",), {"metavar": "COL", "help": "column with the true labels"}),
    MODELS,
    Option(("--id",), {"metavar": "COL",
                       "help": "observation id column, wide or long (default: a column named "
                               "'id')"}),
    Option(("--common-models",), {
        "action": "store_true",
        "help": "a glob of Parquet files: compare only the model columns every file holds (the "
                "page names the ones left out); by default a model missing from some files is "
                "an error"}),
    Option(("--format",), {"choices": ("auto", "wide", "long"), "default": "auto",
                           "help": "auto (default): long when the file has 'model' and 'y_pred' "
                                   "columns"}),
    ENGINE,
    SPARK_MASTER,
    SPARK_CONF,
    MODEL_COLUMN,
    Option(("--y-pred",), {"metavar": "COL", "default": "y_pred",
                           "help": "long predictions files: the predicted label column "
                                   "(default 'y_pred')"}),
    MARGIN,
    Option(("--rope",), {"type": parse_rope, "metavar": "X", "default": 0.01,
                         "help": "cross-validation: region of practical equivalence of the "
                                 "Bayesian correlated t, |accuracy A - B| <= X (default 0.01)"}),
    REFERENCE,
    PAIRS,
    Option(("--prevalence",), {"nargs": "+", "type": parse_prevalence, "metavar": "CLASS=P",
                               "default": [],
                               "help": "population prevalence of a class, for "
                                       "prevalence-adjusted precision"}),
    ALPHA,
    Option(("--n-resamples",), {"type": int, "default": 1000,
                                "help": "bootstrap resamples and swap permutations, 100 to "
                                        "100,000 (default 1000)"}),
    Option(("--seed",), {"type": int, "default": 0, "help": "random seed (default 0)"}),
)


def _comparison() -> type[Comparison]:
    from .predictions import ModelComparison

    return ModelComparison


def _recognise(options: argparse.Namespace) -> bool:
    """Any input: the predictions route is what the command reads when no other route claims it."""
    return True


def _inputs(options: argparse.Namespace) -> list[Path]:
    """Return the files the predictions argument names (a pattern may name several)."""
    if not options.predictions or not options.y_true:
        raise InputError("report needs PREDICTIONS and --y-true (or --item / --eval-log for "
                         "evaluation items)")
    from ..engine.files import resolve_path

    return [Path(p) for p in resolve_path(options.predictions)[0]]


def _margin(given: list[tuple[str | None, float]] | None) -> float | None:
    """Return the one margin of a predictions report (its pairs compare accuracy: no tasks).

    >>> _margin([(None, 0.02)]), _margin(None)
    (0.02, None)
    """
    if not given:
        return None
    if any(task is not None for task, _ in given):
        raise InputError("--margin TASK=X applies to evaluation items (--item, --eval-log); a "
                         "predictions report takes one margin, --margin X")
    if len(given) > 1:
        raise InputError("--margin is given twice; a predictions report takes one margin")
    return given[0][1]


def _count(options: argparse.Namespace) -> Any:
    from ..engine.predictions import count_predictions

    start_spark(options)
    try:
        return count_predictions(
            options.predictions, y_true=options.y_true, models=options.models, id=options.id,
            layout=options.format, engine=options.engine, progress=not options.quiet,
            model_column=options.model_column, pred_column=options.y_pred,
            # the prevalence bootstrap resamples observations: the engine groups them by their
            # profile over the classes asked for
            prevalence_classes=[label for label, _ in options.prevalence] or None,
            common_models=options.common_models,
        )
    except (UnicodeEncodeError, UnicodeDecodeError):  # no reader named it: the command does
        raise
    except ValueError as exc:  # PredictionFileError and the engines' other input errors
        raise InputError(str(exc)) from None
    except ImportError as exc:
        raise InputError(f"--engine {options.engine} needs {exc.name}: "
                         f"{install_command(exc.name or '')}") from None


def _check_counts(options: argparse.Namespace, counts: Any) -> None:
    name = counts.source
    models = list(counts.models)
    if len(models) < 2:
        raise InputError(f"{name}: need at least two models to compare; found {models}")
    if options.reference is not None and options.reference not in models:
        raise InputError(f"{name}: --reference {options.reference!r} is not one of the models "
                         f"{models}")
    _refuse_probabilities(counts)
    labels = {str(c) for c in counts.classes}
    for label, _ in options.prevalence:
        if label not in labels:
            shown = ", ".join(sorted(labels)[:12])
            raise InputError(f"{name}: --prevalence class {label!r} is not a label of column "
                             f"{options.y_true!r} ({shown})")


def _fraction(label: Any) -> bool:
    """Tell whether a label is a number strictly between 0 and 1: a probability, not a class."""
    try:
        x = float(label)
    except (TypeError, ValueError):
        return False
    return 0 < x < 1 and not isinstance(label, bool)


def _refuse_probabilities(counts: Any) -> None:
    """Refuse a model column whose 'labels' are fractions the truth never has: probabilities.

    A k-NN or forest probability column holds 0.0 and 1.0 as well, so that with 0/1 truth it
    would otherwise be read as a model of many classes.
    """
    pat = counts.patterns
    truth = {counts.classes[c] for c in pat["y"].unique()}
    for j, model in enumerate(counts.models):
        predicted = [counts.classes[c] for c in pat[f"p{j}"].unique()]
        fractions = [v for v in predicted if v not in truth and _fraction(v)]
        if fractions:
            raise InputError(f"{counts.source}: column {model!r} holds values such as "
                             f"{fractions[0]} that are no label of the truth: it looks like "
                             f"probabilities: use --proba {model} (the probabilities report)")


def _counted(counts: Any) -> str:
    """Say what was counted, each number named by what it counts."""
    per = f"{counts.n_rows:,} predictions per model"
    if counts.repeats == 1:  # plain k-fold
        per += f": {counts.n_observations:,} observations in {counts.folds} folds, one repeat"
    elif counts.repeats:
        per += f": {counts.n_observations:,} observations × {counts.repeats} repeats"
    else:
        per += ", one per observation"
    return f"{counts.n_models} models, {counts.n_classes} classes, {per}"


def _run(options: argparse.Namespace, progress: Callable[[str], None]) -> Comparison:
    """Count the predictions, then compare the models from the counts."""
    margin = _margin(options.margin)
    if options.n_resamples < 100:
        raise InputError("--n-resamples must be at least 100")
    if options.n_resamples > MOST_RESAMPLES:
        # each resample holds a table of counts per model: 10^8 of them asked numpy for 67 GiB
        # of a six-model file, after half a minute of work
        raise InputError(f"--n-resamples must be at most {MOST_RESAMPLES:,}; got "
                         f"{options.n_resamples:,}")
    counts = _count(options)
    _check_counts(options, counts)
    for note in counts.notes:
        progress(f"{counts.source}: {note}")
    progress(f"{counts.source}: {_counted(counts)}, counted by {counts.engine}; running the "
             "report ...")
    from .predictions import compare_models

    try:
        return compare_models(counts, reference=options.reference, alpha=options.alpha,
                              prevalence=dict(options.prevalence), n_boot=options.n_resamples,
                              seed=options.seed, rope=options.rope, margin=margin,
                              family=options.pair_family,
                              progress=not options.quiet and sys.stderr.isatty())
    except ValueError as exc:
        raise InputError(f"{counts.source}: {exc}") from None


ROUTE = Route(
    name="predictions",
    title="predictions files",
    description="one row per observation (wide) or per observation and model (long): "
                "classifiers' predictions of the same observations",
    comparison=_comparison,
    options=OPTIONS,
    recognise=_recognise,
    chosen_by="no --item or --eval-log",
    usage="a predictions file and --y-true COL",
    inputs=_inputs,
    input_name="the predictions file",
    run=_run,
    template="prediction_report.ipynb",
)
