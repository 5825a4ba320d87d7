"""The ``precmp`` command (also ``python -m precmp_lib``).

``precmp report PREDICTIONS --y-true COL ... --out report.html`` turns a file of predictions into
one self-contained HTML comparison report. Bad input exits with status 2 and one line naming the
file, the column and the problem; no partial report is left behind.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "report_parameters"]

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2, no usage dump
        self.exit(EXIT_BAD_INPUT, f"precmp: error: {message}\n")


def _prevalence(text: str) -> tuple[str, float]:
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


def _alpha(text: str) -> float:
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha takes a number in (0, 1); got {text!r}") from None
    if not 0 < a < 1:
        raise argparse.ArgumentTypeError(f"--alpha must lie in (0, 1); got {text}")
    return a


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="precmp", description="Statistical comparison of classifiers.")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser(
        "report",
        help="render an HTML comparison report from a file of predictions",
        description="Compare the models in a predictions file (CSV or Parquet) and write one "
        "self-contained HTML report.",
    )
    rep.add_argument("predictions", help="CSV or Parquet file of predictions")
    rep.add_argument("--y-true", required=True, metavar="COL", help="column with the true labels")
    rep.add_argument("--models", nargs="+", metavar="COL",
                     help="wide: model columns (default: all but truth and id); long: models to keep")
    rep.add_argument("--id", metavar="COL", help="observation id column (long format: default 'id')")
    rep.add_argument("--format", choices=("wide", "long"), default="wide",
                     help="wide: a column per model; long: id, model, y_true, y_pred [, repeat, fold]")
    rep.add_argument("--reference", metavar="MODEL", help="compare every model against this one")
    rep.add_argument("--prevalence", nargs="+", type=_prevalence, metavar="CLASS=P", default=[],
                     help="population prevalence of a class, for prevalence-adjusted precision")
    rep.add_argument("--alpha", type=_alpha, default=0.05, help="significance level (default 0.05)")
    rep.add_argument("--n-resamples", type=int, default=1000,
                     help="bootstrap resamples and swap permutations (default 1000)")
    rep.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rep.add_argument("--out", default="report.html", help="output HTML file (default report.html)")
    rep.add_argument("--json", metavar="PATH", help="also write the comparison as JSON (to_json)")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    site = sub.add_parser("build-site", help="render every course notebook and an index.html")
    site.add_argument("--out", default="build/reports")
    site.add_argument("--only", nargs="*", help="notebook names (default: all)")
    return parser


def report_parameters(options: Mapping[str, Any]) -> dict[str, Any]:
    """Notebook parameters for ``notebooks/report.ipynb`` from command-line style options.

    Keys: ``predictions``, ``y_true``, and optionally ``models`` (list or space-separated
    string), ``id``, ``format``, ``reference``, ``prevalence`` (mapping or "CLASS=P ..."
    string), ``alpha``, ``n_resamples``, ``seed``.

    >>> report_parameters({"predictions": "p.csv", "y_true": "truth", "models": "lr rf"})["models"]
    ['lr', 'rf']
    """
    def text(key: str) -> str | None:
        v = options.get(key)
        if v is None or (isinstance(v, float) and math.isnan(v)) or v == "":
            return None
        return str(v)

    models = options.get("models")
    if isinstance(models, str):
        models = models.split() or None
    prevalence = options.get("prevalence") or {}
    if isinstance(prevalence, str):
        prevalence = dict(_prevalence(p) for p in prevalence.split())
    elif not isinstance(prevalence, Mapping):
        prevalence = dict(prevalence)
    path = Path(str(options["predictions"]))
    if not path.is_absolute():
        root = Path(__file__).resolve().parent.parent
        path = (root / path) if (root / path).exists() else path.resolve()
    return {
        "predictions": str(path),
        "y_true": str(options["y_true"]),
        "models": list(models) if models else [],
        "id_column": text("id") or "",
        "layout": text("format") or "wide",
        "reference": text("reference") or "",
        "prevalence": {str(k): float(v) for k, v in prevalence.items()},
        "alpha": float(options.get("alpha") or 0.05),
        "n_resamples": int(options.get("n_resamples") or 1000),
        "seed": int(options.get("seed") or 0),
    }


def _report(args: argparse.Namespace) -> int:
    from .predictions import PredictionFileError, read_predictions
    from .report import NotebookError, render_report

    start = time.perf_counter()
    try:
        preds = read_predictions(
            args.predictions, y_true=args.y_true, models=args.models, id_column=args.id,
            layout=args.format,
        )
    except PredictionFileError as exc:
        print(f"precmp: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    name = Path(args.predictions).name
    if len(preds.models) < 2:
        print(f"precmp: error: {name}: need at least two models to compare; found {preds.models}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.reference is not None and args.reference not in preds.models:
        print(f"precmp: error: {name}: --reference {args.reference!r} is not one of the models "
              f"{preds.models}", file=sys.stderr)
        return EXIT_BAD_INPUT
    labels = {str(c) for c in preds.classes}
    for label, _ in args.prevalence:
        if label not in labels:
            print(f"precmp: error: {name}: --prevalence class {label!r} is not a label of column "
                  f"{args.y_true!r} ({', '.join(sorted(labels))})", file=sys.stderr)
            return EXIT_BAD_INPUT
    if args.n_resamples < 100:
        print("precmp: error: --n-resamples must be at least 100", file=sys.stderr)
        return EXIT_BAD_INPUT
    out = Path(args.out)
    if not args.quiet:
        print(f"precmp: {preds.n_rows} rows, {len(preds.models)} models, "
              f"{len(preds.classes)} classes from {name}; running the report ...", file=sys.stderr)
    try:
        comparison = _compare(args, preds)
    except ValueError as exc:
        print(f"precmp: error: {name}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        render_report(comparison, out, quiet=args.quiet, source_name=name)
    except NotebookError as exc:
        print(f"precmp: error: the report failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        Path(args.json).write_text(comparison.to_json() + "\n", encoding="utf-8")
    if not args.quiet:
        print(f"precmp: wrote {out} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


def _compare(args: argparse.Namespace, preds: Any) -> Any:
    """Count the checked file's predictions and compare the models (``compare_models``)."""
    from dataclasses import replace

    import pandas as pd

    from .comparison import compare_models
    from .engines import count_predictions

    path = Path(args.predictions)
    if path.suffix.lower() in (".parquet", ".pq"):
        frame = pd.read_parquet(path)
    else:
        frame = pd.read_csv(path, low_memory=False)
    layout = args.format
    counts = count_predictions(frame, y_true=args.y_true, models=preds.models, id=args.id,
                               layout=layout)
    counts = replace(counts, source=path.name)
    return compare_models(counts, reference=args.reference, alpha=args.alpha,
                          prevalence=dict(args.prevalence), n_boot=args.n_resamples,
                          seed=args.seed)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``precmp`` command."""
    args = build_parser().parse_args(argv)
    if args.command == "report":
        return _report(args)
    from .report import _main

    return _main(["build-site", "--out", args.out, *(["--only", *args.only] if args.only else [])])


if __name__ == "__main__":
    sys.exit(main())
