"""The data-set route: a table of results across data sets becomes one page (``ROUTE``).

Its input is a results table (:func:`precmp_lib.engine.datasets.count_datasets`): wide, a
data-set column and one numeric column per model, or long, ``dataset, model, score`` with
optional ``repeat`` and ``fold``. The command takes this route for a table given without
``--y-true`` (predictions), ``--item`` or ``--eval-log`` (evaluation items), or with
``--dataset COL``; :func:`~precmp_lib.compare.datasets.compare_datasets` compares the models.
With ``--dataset COL`` and ``--y-true COL`` the input is a predictions file of several data
sets: :func:`~precmp_lib.compare.datasets.compare_predictions_by_dataset` tests each data set
on its own predictions and the models across data sets on their accuracies.
Besides the page it writes the critical-difference diagram as SVG and PDF beside it, and a
LaTeX table with ``--latex PATH`` (the report's view side draws them:
:mod:`precmp_lib.report.dataset_sections`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import item_route, prediction_route
from .route import (
    ALPHA,
    ENGINE,
    MODEL_COLUMN,
    MODELS,
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

__all__ = ["OPTIONS", "ROUTE", "cd_paths"]


def _shared(options: tuple[Option, ...], flag: str) -> Option:
    """Return the option of another route's group that this route reads too (one object in both)."""
    return next(o for o in options if o.flag == flag)


REFERENCE = _shared(prediction_route.OPTIONS, "--reference")
Y_TRUE = _shared(prediction_route.OPTIONS, "--y-true")
ROPE = _shared(prediction_route.OPTIONS, "--rope")
SCORE = _shared(item_route.OPTIONS, "--score")

# the option group, in the order the command's help lists it
OPTIONS: tuple[Option, ...] = (
    Option(("--dataset",), {"metavar": "COL",
                            "help": "results across data sets: the data-set column (default: "
                                    "a column named 'dataset'); a table given without "
                                    "--y-true, --item or --eval-log is read as results. With "
                                    "--y-true: predictions of several data sets, in this "
                                    "column or one file per data set (a folder or glob)"}),
    Y_TRUE,
    MODELS,
    ENGINE,
    SPARK_MASTER,
    SPARK_CONF,
    MODEL_COLUMN,
    SCORE,
    Option(("--lower-is-better",), {"action": "store_true",
                                    "help": "results: the scores are errors or losses (the "
                                            "lowest is best)"}),
    REFERENCE,
    ROPE,
    Option(("--common-datasets",), {"action": "store_true",
                                    "help": "results: compare on the data sets every model was "
                                            "scored on; the page counts the ones left out"}),
    Option(("--hierarchical",), {"action": "store_true",
                                 "help": "results with per-fold scores (fold [, repeat] "
                                         "columns): also fit the Bayesian hierarchical model "
                                         "across data sets (Corani et al. 2017) to each pair; "
                                         "needs NumPyro (pip install -r "
                                         "requirements-bayes.txt)"}),
    Option(("--latex",), {"metavar": "PATH",
                          "help": "results: also write a LaTeX (booktabs) table of the scores "
                                  "with ranks and the post-hoc groups"}),
    ALPHA,
)


def _comparison() -> type[Comparison]:
    from .datasets import DatasetComparison

    return DatasetComparison


def _recognise(options: argparse.Namespace) -> bool:
    """Claim ``--dataset``, or a table given with no option of another route's input."""
    if getattr(options, "dataset", None):
        return True
    return bool(getattr(options, "predictions", None)) and not (
        getattr(options, "y_true", None) or getattr(options, "item", None)
        or getattr(options, "eval_log", None))


def _inputs(options: argparse.Namespace) -> list[Path]:
    if not options.predictions:
        raise InputError("give a results table (a data-set column and a column per model, or "
                         "dataset, model, score) before --dataset")
    from ..engine.files import resolve_path

    return [Path(p) for p in resolve_path(options.predictions)[0]]


def cd_paths(out: str | Path) -> tuple[Path, Path]:
    """Return where the critical-difference diagram goes beside the page: SVG and PDF.

    >>> [p.name for p in cd_paths("out/report.html")]
    ['report.cd.svg', 'report.cd.pdf']
    """
    out = Path(out)
    return out.with_suffix(".cd.svg"), out.with_suffix(".cd.pdf")


def _outputs(options: argparse.Namespace) -> list[tuple[str, Path]]:
    svg, pdf = cd_paths(options.out)
    outs = [("--out's CD diagram (SVG)", svg), ("--out's CD diagram (PDF)", pdf)]
    if options.latex:
        outs.append(("--latex", Path(options.latex)))
    return outs


def _run(options: argparse.Namespace, progress: Callable[[str], None]) -> Comparison:
    """Read the results table and compare the models across its data sets."""
    from ..stats.hierarchical import HierarchicalUnavailable
    from .datasets import compare_datasets, compare_predictions_by_dataset

    start_spark(options)
    try:
        if options.y_true:  # predictions of several data sets: both levels side by side
            if options.engine not in ("auto", "numpy"):
                raise InputError("predictions per data set (--dataset with --y-true) are read "
                                 "in memory: give --engine numpy or leave --engine out")
            comparison = compare_predictions_by_dataset(
                options.predictions, dataset=options.dataset, y_true=options.y_true,
                models=options.models, reference=options.reference, rope=options.rope,
                alpha=options.alpha)
        else:
            comparison = compare_datasets(
                options.predictions, dataset=options.dataset, model=options.model_column,
                score=options.score, models=options.models,
                lower_is_better=options.lower_is_better, reference=options.reference,
                rope=options.rope, alpha=options.alpha,
                common_datasets=options.common_datasets, engine=options.engine,
                hierarchical=bool(getattr(options, "hierarchical", False)))
    except InputError:
        raise
    except HierarchicalUnavailable as exc:
        raise InputError(f"--hierarchical: {exc}") from None
    except ValueError as exc:
        text = str(exc)
        if "no column names the data sets" in text:
            text += " (a predictions file needs --y-true COL)"
        raise InputError(text) from None
    except ImportError as exc:
        raise InputError(f"--engine {options.engine} needs {exc.name}: "
                         f"{install_command(exc.name or '')}") from None
    for note in comparison.settings.get("notes") or []:
        progress(f"{comparison.source}: {note}")
    progress(f"{comparison.source}: {len(comparison.models)} models on "
             f"{len(comparison.datasets)} data sets (read by {comparison.engine}); writing the "
             "report ...")
    return comparison


ROUTE = Route(
    name="datasets",
    title="results across data sets",
    description="one row per data set (a data-set column and a score column per model) or per "
                "data set and model (dataset, model, score [, repeat, fold]): models compared "
                "by rank across data sets",
    comparison=_comparison,
    options=OPTIONS,
    recognise=_recognise,
    chosen_by="--dataset, or no --y-true, --item or --eval-log",
    usage="a results table (or --dataset COL)",
    inputs=_inputs,
    input_name="the results table",
    run=_run,
    template="dataset_report.ipynb",
    outputs=_outputs,
    writer="precmp_lib.report.dataset_sections:write_outputs",
)
