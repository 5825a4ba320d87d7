"""The ``precmp`` command (also ``python -m precmp_lib``).

``precmp report PREDICTIONS --y-true COL ... --out report.html`` counts the predictions once,
through the engine (:func:`precmp_lib.engine.predictions.count_predictions`: DuckDB by default, numpy or
Spark on request), compares the models (:func:`precmp_lib.compare.predictions.compare_models`) and renders
one self-contained HTML page (:func:`precmp_lib.report.render.render_report`); ``--item COL`` or
``--eval-log NAME=PATH`` compares models on evaluation items instead. Which question is asked is
a route of the registry (:mod:`precmp_lib.compare.routes`): the command's options are the
registry's option groups, the route is the one the options ask for, and an option of another
route is refused in one line naming the route it belongs to. A bad file, column, label or option
exits with status 2 and one line naming the file, the column and the problem, before the page is
made; nothing is written.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import textwrap
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ._lib.limits import LIMITS
from ._lib.text import DIRECTION_CONTROLS
from .compare.prediction_route import parse_prevalence
from .compare.route import InputError, Route
from .compare.routes import ROUTES, misplaced, option_routes, route_for

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


def build_parser() -> argparse.ArgumentParser:
    """Build the ``precmp`` argument parser with its ``report`` subcommand.

    Returns
    -------
    argparse.ArgumentParser
        A parser whose errors print one line and exit with status 2.
    """
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
    _add_route_options(rep)
    return parser


def _add_route_options(parser: argparse.ArgumentParser) -> None:
    """Add the registry's options: one group per route, and one per set of routes sharing some.

    Each option is added once, in the group of the routes that read it.
    """
    groups: dict[tuple[Route, ...], Any] = {}
    for option, routes in option_routes().items():
        if routes not in groups:
            title = " and ".join(r.title for r in routes)
            description = (routes[0].description if len(routes) == 1 else
                           "read by every report" if len(routes) == len(ROUTES) else
                           f"read by the reports of {title}")
            groups[routes] = parser.add_argument_group(title, textwrap.fill(description, 78))
        option.add_to(groups[routes])


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
        prevalence = dict(parse_prevalence(p) for p in prevalence.split())
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


def _say(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        _print(text)


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
    return outs + route_for(args).outputs(args)


def _check_written(args: argparse.Namespace, inputs: list[Path], what: str) -> None:
    """Refuse output files that are an input (``what`` names it), a folder, or each other."""
    outs = _outputs(args)
    for flag, out in outs:
        if any(_same_file(out, p) for p in inputs):
            raise InputError(f"{flag} {out.name} is {what} itself; choose another output file")
        if out.is_dir():
            raise InputError(f"{flag} {out.name} is a directory; give a file name")
    for i, (flag, out) in enumerate(outs):
        for other, path in outs[:i]:
            if _same_file(out, path):
                raise InputError(f"{other} and {flag} name the same file")


def _notebook_json(args: argparse.Namespace) -> Path:
    """Return the comparison's JSON that the executed notebook reads: --json's, else beside it."""
    return Path(args.json) if args.json else Path(args.notebook).with_suffix(".json")


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
    """Run the route the options ask for and write its page: 0, or 2 with one line on bad input."""
    start = time.perf_counter()
    try:
        route = route_for(args)
        wrong = misplaced(args, route)
        if wrong:
            raise InputError(wrong)
        _check_written(args, route.inputs(args), route.input_name)
        comparison = route.run(args, lambda text: _say(args, text))
    except ValueError as exc:  # InputError, and the readers' errors on the route's files
        _print(f"error: {exc}")
        return EXIT_BAD_INPUT
    from .report.render import NotebookError

    try:
        # the cell progress bar only where a person watches (not in logs or pipes)
        _write_outputs(args, comparison, comparison.source_name,
                       args.quiet or not sys.stderr.isatty())
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
        route = route_for(args)
        if route.writer:  # the route's own outputs (figures, tables), staged with the page
            import importlib

            module, _, function = route.writer.partition(":")
            getattr(importlib.import_module(module), function)(
                comparison, args, {out: temp[out] for _, out in route.outputs(args)})


def _output_error(exc: OSError) -> str:
    """One line for an output that could not be written (nothing was)."""
    from ._lib.atomic import OutputError

    if isinstance(exc, OutputError):
        return f"{exc}; nothing written"
    return f"an output cannot be written ({exc.strerror or exc}); nothing written"


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
            return _report(args)
    except KeyboardInterrupt:
        _print("interrupted; nothing written")
        return 128 + signal.SIGINT
    except Terminated as exc:
        _print(f"stopped by {signal.Signals(exc.signum).name}; nothing written")
        return 128 + exc.signum
