"""The ``precmp`` command (also ``python -m precmp_lib``).

``precmp report PREDICTIONS --y-true COL ... --out report.html`` counts the predictions once,
through the engine (:func:`precmp_lib.engine.predictions.count_predictions`: DuckDB by default, numpy or
Spark on request), compares the models (:func:`precmp_lib.compare.models.compare_models`) and renders
one self-contained HTML page (:func:`precmp_lib.report.render.render_report`). A bad file, column,
label or option exits with status 2 and one line naming the file, the column and the problem,
before the page is made; nothing is written.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ._lib.limits import LIMITS
from ._lib.text import DIRECTION_CONTROLS, printable_name

__all__ = ["build_parser", "main", "report_parameters"]

EXIT_BAD_INPUT = 2

REPORT_HELP = """\
The predictions file is CSV (read as text: only empty cells are missing) or Parquet, or a
quoted glob of Parquet files ('preds/*.parquet') counted as one table. A name that exists is
that file, whatever it holds ('run[1].csv'); only a name that does not exist and holds * or ?
is a pattern (* and ? are its only wildcards), and the report names the files it matched.

wide  one row per observation: the truth column and one column per model. A column named
      'id' is taken as the observation id (ids must not repeat); with a 'repeat' column (and
      optionally 'fold') the rows are repeated cross-validation, one row per id and repeat;
      with 'fold' and 'id' but no 'repeat', k-fold cross-validation with one repeat.
long  one row per (observation, model): id, model, the truth, y_pred [, repeat, fold]; the
      model and prediction columns may have other names: --model-column COL, --y-pred COL.
      --format auto (the default) reads a file with 'model' and 'y_pred' columns as long (or
      with the columns those options name). A 'fold' column without 'repeat' is k-fold
      cross-validation with one repeat.

Counting runs where the data are: DuckDB by default (out of core: files larger than memory
work), numpy in memory, or Spark (--engine spark; local mode with pyspark and Java 17,
or a cluster: --spark-master, SPARK_REMOTE=sc://HOST:PORT, spark.master).
Relative paths are resolved from the current folder.
"""


# What a file's names could carry to a terminal: C0 and C1 controls and DEL (escape sequences
# move the cursor, recolour or clear the screen; a newline forges a line of its own) and
# Unicode's direction controls (they reorder the line). Each is written as its escape.
_TERMINAL_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))} | {
    c: f"\\u{c:04x}" for c in DIRECTION_CONTROLS}


def _line(text: str) -> str:
    r"""Return one line of the command's output: ``precmp: text``, controls written as escapes.

    >>> _line("error: column 'a\x1b[31m' is missing; columns are: y, \u202eb")
    "precmp: error: column 'a\\x1b[31m' is missing; columns are: y, \\u202eb"
    """
    return f"precmp: {text.translate(_TERMINAL_CONTROLS)}"


def _print(text: str) -> None:
    """Write :func:`_line` of ``text`` to stderr."""
    print(_line(text), file=sys.stderr, flush=True)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2, no usage dump
        self.exit(EXIT_BAD_INPUT, _line(f"error: {message}") + "\n")


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


def _rope(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--rope takes a number >= 0; got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"--rope must be a number >= 0; got {text}")
    return value


def _margin(text: str) -> tuple[str | None, float]:
    """Read ``X`` (every task) or ``TASK=X`` (one task) into (task or None, margin).

    >>> _margin("0.02"), _margin("judge=0.5")
    ((None, 0.02), ('judge', 0.5))
    """
    task, sep, value = text.rpartition("=")
    if sep and not task:
        raise argparse.ArgumentTypeError(f"--margin TASK=X needs a task name; got {text!r}")
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--margin takes a positive number or TASK=X; got "
                                         f"{text!r}") from None
    if not (x > 0 and math.isfinite(x)):
        raise argparse.ArgumentTypeError(f"--margin must be a positive number; got {text}")
    return (task if sep else None), x


def _limit(text: str) -> tuple[str, str]:
    """``NAME=N`` for --limit: a limit's name and a positive whole number.

    >>> _limit("models=500")
    ('PRECMP_MAX_MODELS', '500')
    """
    name, sep, value = text.partition("=")
    name = name.strip().replace("-", "_")
    if not sep or name not in LIMITS:
        raise argparse.ArgumentTypeError(f"expected NAME=N with NAME one of {', '.join(LIMITS)}; "
                                         f"got {text!r:.60}")
    value = value.strip()
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{name}: N must be a positive whole number; got {value!r:.40}")
    return LIMITS[name].variable, str(int(value))


@contextlib.contextmanager
def _limits_set(given: Sequence[tuple[str, str]]) -> Iterator[None]:
    """Set the limits given with --limit (their variables) while the command runs."""
    before = {variable: os.environ.get(variable) for variable, _ in given}
    os.environ.update(dict(given))
    try:
        yield
    finally:
        for variable, value in before.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value


def _eval_log(text: str) -> tuple[str, str]:
    """Read ``NAME=PATH`` into (name, path); the path may be any file name.

    The name must be text: bytes that are not UTF-8 reach ``sys.argv`` as lone surrogates,
    which no page or JSON can hold.

    >>> _eval_log("llama=runs/a.eval")
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


def build_parser() -> argparse.ArgumentParser:
    """Build the ``precmp`` argument parser with its ``report`` subcommand.

    Returns
    -------
    argparse.ArgumentParser
        A parser whose errors print one line and exit with status 2.
    """
    from .engine.dispatch import ENGINES

    parser = _Parser(prog="precmp", description="Statistical comparison of classifiers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    rep = sub.add_parser(
        "report",
        help="render an HTML comparison report from a file of predictions",
        description="Compare the models in a predictions file and write one self-contained "
        "HTML report.",
        epilog=REPORT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("predictions", nargs="?",
                     help="CSV or Parquet file, or a quoted glob of Parquet files")
    rep.add_argument("--y-true", metavar="COL", help="column with the true labels")
    rep.add_argument("--models", nargs="+", metavar="COL",
                     help="wide: model columns (default: all but truth, id, repeat, fold); "
                     "long: models to keep; evaluation items: models to keep")
    rep.add_argument("--id", metavar="COL",
                     help="observation id column, wide or long (default: a column named 'id')")
    rep.add_argument("--common-models", action="store_true",
                     help="a glob of Parquet files: compare only the model columns every file "
                          "holds (the page names the ones left out); by default a model "
                          "missing from some files is an error")
    rep.add_argument("--format", choices=("auto", "wide", "long"), default="auto",
                     help="auto (default): long when the file has 'model' and 'y_pred' columns")
    rep.add_argument("--engine", choices=ENGINES, default="auto",
                     help="who counts the rows: auto (DuckDB for files), numpy (in memory), "
                     "duckdb, spark (local mode unless a master is given or configured)")
    rep.add_argument("--spark-master", metavar="URL",
                     help="--engine spark: the cluster (spark://HOST:PORT, or a Spark Connect "
                     "server sc://HOST:PORT ...); default: SPARK_REMOTE, else spark.master of "
                     "the Spark configuration, else local mode")
    rep.add_argument("--spark-conf", action="append", type=_spark_conf, default=[],
                     metavar="KEY=VALUE", help="--engine spark: a Spark setting (repeatable), "
                     "e.g. spark.driver.memory=4g")
    rep.add_argument("--model-column", metavar="COL", default="model",
                     help="long files and evaluation items: the model column (default 'model')")
    rep.add_argument("--y-pred", metavar="COL", default="y_pred",
                     help="long predictions files: the predicted label column (default 'y_pred')")
    rep.add_argument("--margin", type=_margin, action="append", metavar="[TASK=]X",
                     help="equivalence margin (TOST), e.g. 0.02: the accuracy difference for "
                     "predictions files; the score scale for evaluation items, for every task, "
                     "or TASK=X for one task (repeat it; needed when tasks have different "
                     "scales)")
    rep.add_argument("--rope", type=_rope, metavar="X", default=0.01,
                     help="cross-validation: region of practical equivalence of the Bayesian "
                     "correlated t, |accuracy A - B| <= X (default 0.01)")
    rep.add_argument("--reference", metavar="MODEL", help="compare every model against this one")
    rep.add_argument("--prevalence", nargs="+", type=_prevalence, metavar="CLASS=P", default=[],
                     help="population prevalence of a class, for prevalence-adjusted precision")
    rep.add_argument("--alpha", type=_alpha, default=0.05, help="significance level (default 0.05)")
    rep.add_argument("--n-resamples", type=int, default=1000,
                     help="bootstrap resamples and swap permutations (default 1000)")
    rep.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    rep.add_argument("--out", default="report.html", help="output HTML file (default report.html)")
    rep.add_argument("--json", metavar="PATH", help="also write the comparison as JSON (to_json)")
    rep.add_argument("--notebook", metavar="PATH",
                     help="also write the executed report notebook (.ipynb); it reads the "
                     "comparison from --json's file, else from PATH with the suffix .json")
    rep.add_argument("--quiet", action="store_true",
                     help="print nothing but errors (no progress bar, notes or warnings)")
    rep.add_argument("--limit", action="append", type=_limit, default=[], metavar="NAME=N",
                     help="raise or lower a limit on what is read (repeatable): "
                     f"{', '.join(LIMITS)}; the same as its PRECMP_MAX_... variable")
    items = rep.add_argument_group(
        "evaluation items", "one row per answer (item, model, score): models compared on the same "
        "items, with clustered paired tests")
    items.add_argument("--item", metavar="COL", help="item id column (switches to the item report)")
    items.add_argument("--score", metavar="COL", default="score",
                       help="score column: 0/1, true/false, C/I/P/N or numbers (default 'score')")
    items.add_argument("--cluster", metavar="COL", help="cluster of each item (passage, document)")
    items.add_argument("--sample", metavar="COL", help="numbers repeated answers to an item")
    items.add_argument("--task", metavar="COL", help="task column: per-task and combined results")
    items.add_argument("--common-items", action="store_true",
                       help="compare on the items every model answered (per task); the items "
                            "left out are counted per model")
    items.add_argument("--holm-over", choices=("pairs", "pairs-tasks"), default="pairs",
                       help="Holm's adjustment over the pairs of each task (pairs, default) or "
                            "over every pair of every task (pairs-tasks)")
    items.add_argument("--test", choices=("auto", "mcnemar", "difference"), default="auto",
                       help="auto (default): clustered McNemar for 0/1 item scores, else the "
                       "clustered paired difference; mcnemar refuses other scores")
    items.add_argument("--eval-log", action="append", type=_eval_log, metavar="NAME=PATH",
                       default=[], help="an lm-evaluation-harness samples file or folder, or an "
                       "inspect log (.json or .eval), for model NAME; repeat per model")
    items.add_argument("--eval-logs", nargs="+", action=_EvalLogs, dest="eval_log", metavar="PATH",
                       help="log files or folders of several models (an eval-set folder, an "
                       "lm-evaluation-harness output folder): each model named from its logs")
    items.add_argument("--latest", action="store_true",
                       help="eval logs: of two logs of one model and task, read the newest "
                       "(default: refuse them)")
    items.add_argument("--metric", metavar="NAME", help="eval logs: the metric or scorer to read; "
                       "TASK=METRIC for one task, several joined by ';'")
    return parser


def report_parameters(options: Mapping[str, Any]) -> dict[str, Any]:
    """Notebook parameters of the report template from command-line style options.

    Keys: ``predictions``, ``y_true``, and optionally ``models`` (list or space-separated
    string), ``id``, ``format``, ``reference``, ``prevalence`` (mapping or "CLASS=P ..."
    string), ``alpha``, ``n_resamples``, ``seed``. A relative ``predictions`` path is resolved
    from the current folder, never from anywhere else.

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
    return {
        "predictions": str(Path.cwd() / str(options["predictions"])),
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


class _BadInput(Exception):
    """A problem with the user's input: one line on stderr, exit status 2."""


def _say(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        _print(text)


def _inputs(pattern: str) -> list[Path]:
    """List the files the predictions argument names (a pattern may name several), from the cwd."""
    from .engine.files import resolve_path

    return [Path(p) for p in resolve_path(pattern)[0]]


def _same_file(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """List the files a report writes, each with the option that names it."""
    outs = [("--out", Path(args.out))] + ([("--json", Path(args.json))] if args.json else [])
    if args.notebook:
        outs.append(("--notebook", Path(args.notebook)))
        if not args.json:
            outs.append(("--notebook's .json", _notebook_json(args)))
    return outs


def _check_written(args: argparse.Namespace, inputs: list[Path], what: str) -> None:
    """Refuse output files that are an input (``what`` names it), a folder, or each other."""
    outs = _outputs(args)
    for flag, out in outs:
        if any(_same_file(out, p) for p in inputs):
            raise _BadInput(f"{flag} {out.name} is {what} itself; choose another output file")
        if out.is_dir():
            raise _BadInput(f"{flag} {out.name} is a directory; give a file name")
    for i, (flag, out) in enumerate(outs):
        for other, path in outs[:i]:
            if _same_file(out, path):
                raise _BadInput(f"{other} and {flag} name the same file")


def _check_outputs(args: argparse.Namespace) -> None:
    _check_written(args, _inputs(args.predictions), "the predictions file")
    if args.n_resamples < 100:
        raise _BadInput("--n-resamples must be at least 100")


def _notebook_json(args: argparse.Namespace) -> Path:
    """Return the comparison's JSON that the executed notebook reads: --json's, else beside it."""
    return Path(args.json) if args.json else Path(args.notebook).with_suffix(".json")


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


def _check_counts(args: argparse.Namespace, counts: Any) -> None:
    name = counts.source
    models = list(counts.models)
    if len(models) < 2:
        raise _BadInput(f"{name}: need at least two models to compare; found {models}")
    if args.reference is not None and args.reference not in models:
        raise _BadInput(f"{name}: --reference {args.reference!r} is not one of the models {models}")
    labels = {str(c) for c in counts.classes}
    for label, _ in args.prevalence:
        if label not in labels:
            shown = ", ".join(sorted(labels)[:12])
            raise _BadInput(f"{name}: --prevalence class {label!r} is not a label of column "
                            f"{args.y_true!r} ({shown})")


def _spark_conf(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip().startswith("spark.") or not value.strip():
        raise argparse.ArgumentTypeError(f"--spark-conf takes KEY=VALUE with a spark.* key; got {text!r}")
    return key.strip(), value.strip()


def _start_spark(args: argparse.Namespace) -> None:
    """Start the Spark session the count will use, with the master and settings asked for."""
    if args.engine != "spark":
        if args.spark_master or args.spark_conf:
            raise _BadInput("--spark-master and --spark-conf need --engine spark")
        return
    try:
        from .engine.spark_engine import spark_session

        spark_session(master=args.spark_master, conf=dict(args.spark_conf))
    except ImportError as exc:
        raise _BadInput(f"--engine spark needs {exc.name}: {install_command(exc.name or '')}") from None
    except RuntimeError as exc:
        raise _BadInput(str(exc)) from None


def _count(args: argparse.Namespace) -> Any:
    from .engine.predictions import count_predictions

    _start_spark(args)
    try:
        return count_predictions(
            args.predictions, y_true=args.y_true, models=args.models, id=args.id,
            layout=args.format, engine=args.engine, progress=not args.quiet,
            model_column=args.model_column, pred_column=args.y_pred,
            # the prevalence bootstrap resamples observations: the engine groups them by their
            # profile over the classes asked for
            prevalence_classes=[label for label, _ in args.prevalence] or None,
            common_models=args.common_models,
        )
    except ValueError as exc:  # PredictionFileError and the engines' other input errors
        raise _BadInput(str(exc)) from None
    except ImportError as exc:
        raise _BadInput(f"--engine {args.engine} needs {exc.name}: "
                        f"{install_command(exc.name or '')}") from None


def install_command(module: str) -> str:
    """Return the command that installs a missing module the engines import.

    Parameters
    ----------
    module : str
        The name of the module that failed to import (``ImportError.name``).

    Returns
    -------
    str
        A pip command: the ``spark`` extra for PySpark, a fresh DuckDB for its compiled part,
        else the package of that name.

    Examples
    --------
    >>> install_command("pyspark.sql")
    'pip install "precmp[spark]"'
    >>> install_command("_duckdb")
    'pip install --force-reinstall duckdb'
    """
    top = module.split(".")[0]
    if top in ("pyspark", "py4j"):
        return 'pip install "precmp[spark]"'
    if top in ("duckdb", "_duckdb"):
        return "pip install --force-reinstall duckdb"
    return f"pip install {top or 'precmp'}"


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwinds like ``KeyboardInterrupt``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def exit_on_signals() -> Iterator[None]:
    """Turn SIGTERM (and SIGHUP) into :class:`Terminated` while the block runs.

    Every ``finally`` and ``with`` then unwinds: temporary folders (and a notebook's kernel with
    its connection file, where one runs) are removed, as they are on Ctrl-C (SIGINT raises
    ``KeyboardInterrupt``).
    Outside the main thread the handlers cannot be installed and the block runs unchanged.
    """
    def stop(signum: int, frame: Any) -> None:
        raise Terminated(signum)

    if threading_main():
        saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    else:
        saved = {}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def _no_collection_at_exit() -> None:
    """Spare the command's process a last garbage collection of its whole heap at exit.

    When the interpreter shuts down it collects every object tracked by the garbage collector,
    here the modules of pandas, scipy and matplotlib (about 130,000 objects), only to free
    memory that the operating system takes back anyway: on a report of a few hundred rows that
    took as long as drawing a figure. Moving the objects still alive into the collector's
    permanent generation (:func:`gc.freeze`), the last thing done at exit, skips that pass;
    the exit functions registered later (the removal of temporary folders, ...) run before it,
    and objects freed by their reference counts are freed as before. Only for the command's
    own process: a program that calls :func:`main` with arguments keeps its collector as it is.
    """
    import atexit
    import gc

    atexit.register(gc.freeze)


def threading_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _report(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    try:
        margin = _predictions_margin(args.margin)
        _check_outputs(args)
        counts = _count(args)
        _check_counts(args, counts)
    except _BadInput as exc:
        _print(f"error: {exc}")
        return EXIT_BAD_INPUT
    for note in counts.notes:
        _say(args, f"{counts.source}: {note}")
    _say(args, f"{counts.source}: {_counted(counts)}, counted by {counts.engine}; running the "
               "report ...")
    from .compare.models import compare_models

    try:
        comparison = compare_models(counts, reference=args.reference, alpha=args.alpha,
                                    prevalence=dict(args.prevalence), n_boot=args.n_resamples,
                                    seed=args.seed, rope=args.rope,
                                    margin=margin,
                                    progress=not args.quiet and sys.stderr.isatty())
    except ValueError as exc:
        _print(f"error: {counts.source}: {exc}")
        return EXIT_BAD_INPUT
    from .report.render import NotebookError

    try:
        # the cell progress bar only where a person watches (not in logs or pipes)
        _write_outputs(args, comparison, counts.source, args.quiet or not sys.stderr.isatty())
    except NotebookError as exc:
        _print(f"error: the report failed: {exc}")
        return 1
    except OSError as exc:
        _print(f"error: {_output_error(exc)}")
        return EXIT_BAD_INPUT
    _say(args, f"wrote {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


def _write_outputs(args: argparse.Namespace, comparison: Any, source: str, quiet: bool) -> None:
    """Write the page and the JSON and notebook asked for: every one of them, or none."""
    from ._lib.atomic import staged
    from .report.render import render_report

    with staged([out for _, out in _outputs(args)]) as temp:
        render_report(comparison, temp[Path(args.out)], quiet=quiet, source_name=source,
                      notebook=temp[Path(args.notebook)] if args.notebook else None,
                      notebook_comparison=_notebook_json(args) if args.notebook else None)
        if args.json or args.notebook:
            temp[_notebook_json(args)].write_text(comparison.to_json(), encoding="utf-8")


def _output_error(exc: OSError) -> str:
    """One line for an output that could not be written (nothing was)."""
    from ._lib.atomic import OutputError

    if isinstance(exc, OutputError):
        return f"{exc}; nothing written"
    return f"an output cannot be written ({exc.strerror or exc}); nothing written"


def _item_outputs(args: argparse.Namespace) -> None:
    if args.eval_log:  # every file read: the files a folder or a pattern names
        from .sources.evallogs import log_files

        inputs = [f for name, path in args.eval_log for f in log_files(name, path)]
    else:
        inputs = _inputs(args.predictions)
    _check_written(args, inputs, "an input file")


def _item_source(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    if args.eval_log:
        if args.predictions:
            raise _BadInput("give either an item file or --eval-log, not both")
        from .sources.evallogs import logs_by_model, read_eval_logs

        for flag in ("task", "sample"):
            if getattr(args, flag):
                raise _BadInput(f"--{flag} does not apply to eval logs: the logs name the "
                                f"{'task' if flag == 'task' else 'epoch'} of each answer")
        logs: dict[str, Any] = dict(e for e in args.eval_log if e[0] is not None)
        unnamed = [p for name, p in args.eval_log if name is None]
        for model, files in (logs_by_model(unnamed) if unnamed else {}).items():
            if model in logs:
                raise _BadInput(f"model {model!r} is named twice: by --eval-log and by its logs")
            logs[model] = files
        frame = read_eval_logs(logs, metric=args.metric, cluster=args.cluster,
                               latest=args.latest)
        many_epochs = frame.groupby(["task", "item", "model"]).size().max() > 1
        return frame, {"item": "item", "model": "model", "score": "score", "task": "task",
                       "sample": "epoch" if many_epochs else None,
                       "cluster": "cluster" if args.cluster else None}
    if not args.predictions:
        raise _BadInput("give an item file (with --item) or --eval-log NAME=PATH")
    return args.predictions, {"item": args.item, "model": args.model_column, "score": args.score,
                              "cluster": args.cluster, "sample": args.sample, "task": args.task}


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
            raise _BadInput(f"--margin is given twice for {'every task' if task is None else repr(task)}")
        out[task] = value
    return out


def _predictions_margin(given: list[tuple[str | None, float]] | None) -> float | None:
    """Return the one margin of a predictions report (its pairs compare accuracy: no tasks).

    >>> _predictions_margin([(None, 0.02)]), _predictions_margin(None)
    (0.02, None)
    """
    if not given:
        return None
    if any(task is not None for task, _ in given):
        raise _BadInput("--margin TASK=X applies to evaluation items (--item, --eval-log); a "
                        "predictions report takes one margin, --margin X")
    if len(given) > 1:
        raise _BadInput("--margin is given twice; a predictions report takes one margin")
    return given[0][1]


def _item_report(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    from .compare.items import compare_items

    try:
        _item_outputs(args)
        source, roles = _item_source(args)
        engine = "numpy" if args.eval_log and args.engine == "auto" else args.engine
        comparison = compare_items(source, **roles, models=args.models, test=args.test,
                                   margin=_margins(args.margin), alpha=args.alpha,
                                   engine=engine, common_items=args.common_items,
                                   holm_over=args.holm_over)
    except (_BadInput, ValueError) as exc:
        _print(f"error: {exc}")
        return EXIT_BAD_INPUT
    except ImportError as exc:
        _print(f"error: --engine {args.engine} needs {exc.name}: pip install -r "
               "requirements-spark.txt")
        return EXIT_BAD_INPUT
    name = comparison.source
    if args.eval_log:
        name = "eval logs of " + ", ".join(comparison.models)
        comparison.settings["eval_logs"] = source.attrs.get("eval_logs")
    _say(args, f"{comparison.n_rows:,} answers, {len(comparison.models)} models from {name} "
               f"(read by {comparison.engine}); writing the report ...")
    from .report.render import NotebookError

    try:
        _write_outputs(args, comparison, name, True)
    except NotebookError as exc:
        _print(f"error: the report failed: {exc}")
        return 1
    except OSError as exc:
        _print(f"error: {_output_error(exc)}")
        return EXIT_BAD_INPUT
    _say(args, f"wrote {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


# Options that only one of the two reports reads, by their argparse names. Given to the other
# report, each would be ignored without a word; the command stops and names them instead.
PREDICTIONS_ONLY = {"y_true": "--y-true", "id": "--id", "common_models": "--common-models",
                    "format": "--format", "reference": "--reference",
                    "prevalence": "--prevalence", "n_resamples": "--n-resamples",
                    "seed": "--seed", "y_pred": "--y-pred", "rope": "--rope"}
ITEMS_ONLY = {"score": "--score", "cluster": "--cluster",
              "sample": "--sample", "task": "--task", "test": "--test",
              "metric": "--metric", "latest": "--latest", "common_items": "--common-items",
              "holm_over": "--holm-over"}


def _misplaced(args: argparse.Namespace) -> str | None:
    """Name the options given that the report asked for does not read, or return None.

    An option counts as given when its value differs from its default.

    >>> _misplaced(build_parser().parse_args(["report", "f.csv", "--item", "q", "--seed", "3"]))
    '--seed applies to predictions files, not to evaluation items (--item, --eval-log)'
    >>> _misplaced(build_parser().parse_args(["report", "f.csv", "--y-true", "y", "--task", "t"]))
    '--task applies to evaluation items: give --item COL or --eval-log NAME=PATH'
    >>> _misplaced(build_parser().parse_args(["report", "f.csv", "--y-true", "y"])) is None
    True
    """
    defaults = vars(build_parser().parse_args(["report"]))
    items = bool(args.item or args.eval_log)
    given = [flag for dest, flag in (PREDICTIONS_ONLY if items else ITEMS_ONLY).items()
             if getattr(args, dest) != defaults[dest]]
    if not given:
        return None
    verb = "applies" if len(given) == 1 else "apply"
    if items:
        return f"{', '.join(given)} {verb} to predictions files, not to evaluation items " \
               "(--item, --eval-log)"
    return f"{', '.join(given)} {verb} to evaluation items: give --item COL or --eval-log NAME=PATH"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``precmp`` command."""
    if argv is None:  # the process's own command line: the process ends with the command
        _no_collection_at_exit()
        # the command only writes pages: no backend from a matplotlibrc in the working folder
        os.environ["MPLBACKEND"] = "agg"
    args = build_parser().parse_args(argv)
    try:
        with exit_on_signals(), warnings.catch_warnings(), _limits_set(getattr(args, "limit", [])):
            if getattr(args, "quiet", False):  # nothing but errors: no library's warnings
                warnings.simplefilter("ignore")
            # Spark Connect's client warns when it gives up on a server; the error says so
            warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")
            misplaced = _misplaced(args)
            if misplaced:
                _print(f"error: {misplaced}")
                return EXIT_BAD_INPUT
            if args.item or args.eval_log:
                return _item_report(args)
            if not args.predictions or not args.y_true:
                _print("error: report needs PREDICTIONS and --y-true (or --item / "
                       "--eval-log for evaluation items)")
                return EXIT_BAD_INPUT
            return _report(args)
    except KeyboardInterrupt:
        _print("interrupted; nothing written")
        return 128 + signal.SIGINT
    except Terminated as exc:
        _print(f"stopped by {signal.Signals(exc.signum).name}; nothing written")
        return 128 + exc.signum
