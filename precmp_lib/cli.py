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
import re
import signal
import sys
import textwrap
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ._lib.limits import LIMITS, parse_limit
from ._lib.text import DIRECTION_CONTROLS, ECHO, printable_name, shorten
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


# A quoted piece of a message (a name, an id, a value the file gave) longer than a message
# echoes: shown cut (a megabyte's item id was printed whole). A piece opens after a space, a
# bracket or punctuation (never after a word: the end of "'task', " is no opening) and closes
# before one, so the text between two short quoted names is not taken for one long name.
_LONG_QUOTED = re.compile("|".join(
    f"(?<![^\\s(\\[{{=:,]){q}(?=\\S)[^{q}\\n]{{{ECHO - 1},}}(?<=\\S){q}(?![^\\s)\\]}}:;,.])"
    for q in ("'", '"')))
# The longest line the command prints: whatever a message lists, a terminal shows it whole.
LONGEST_LINE = 2000


def _line(text: str) -> str:
    r"""Return one line of the command's output: ``precmp: text``, controls written as escapes.

    A quoted piece longer than 80 characters is cut to 80 (see :func:`~precmp_lib._lib.text.shorten`),
    and the line to 2,000 characters.

    >>> _line("error: column 'a\x1b[31m' is missing; columns are: y, \u202eb")
    "precmp: error: column 'a\\x1b[31m' is missing; columns are: y, \\u202eb"
    >>> len(_line("error: duplicated item '" + "x" * 1_000_000 + "' in p.csv"))
    122
    >>> _line("task 'a', " + "f" * 90 + " and g (both name 'b')") == "precmp: task 'a', " + "f" * 90 + " and g (both name 'b')"
    True
    """
    text = _LONG_QUOTED.sub(lambda m: m[0][0] + shorten(m[0][1:-1]) + m[0][-1], text)
    text = text.translate(_TERMINAL_CONTROLS)
    return f"precmp: {shorten(text, LONGEST_LINE)}"


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
    try:
        number = parse_limit(name, value, f"--limit {name}")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return LIMITS[name].variable, str(number)


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


def _into_folders(args: argparse.Namespace) -> None:
    """Read an output name that ends in ``/`` as a folder: the file is written into it.

    ``--out pages/`` writes ``pages/report.html``; ``--json`` and ``--notebook`` ending in ``/``
    take the page's name with ``.json`` and ``.ipynb``.

    >>> args = argparse.Namespace(out="pages/", json="pages/", notebook=None)
    >>> _into_folders(args)
    >>> args.out, args.json
    ('pages/report.html', 'pages/report.json')
    """
    def into(text: str | None, suffix: str) -> str | None:
        if not text or not text.endswith(("/", os.sep)):
            return text
        return os.path.join(text, Path(args.out).stem + suffix)

    if args.out.endswith(("/", os.sep)):
        args.out = os.path.join(args.out, "report.html")
    args.json = into(args.json, ".json")
    args.notebook = into(args.notebook, ".ipynb")


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """List the files a report writes, each with the option that names it."""
    outs = [("--out", Path(args.out))] + ([("--json", Path(args.json))] if args.json else [])
    if args.notebook:
        outs.append(("--notebook", Path(args.notebook)))
        if not args.json:
            outs.append(("--notebook's .json", _notebook_json(args)))
    return outs + route_for(args).outputs(args)


def _log_folders(args: argparse.Namespace, inputs: list[Path]) -> list[Path]:
    """Return the log folders read: each folder given, and the folder of each log file read.

    lm-evaluation-harness reads its ``results_*.json`` back from beside its samples, and an
    eval-set its index: no output may take such a name there.
    """
    if not getattr(args, "eval_log", None):
        return []
    given = [Path(path) for _, path in args.eval_log]
    folders = [p for p in given if p.is_dir()] + [p.parent for p in inputs]
    return list(dict.fromkeys(Path(os.path.realpath(f)) for f in folders))


# Names that the logs' tools own in a log folder: lm-evaluation-harness's samples and results,
# inspect's archives and an eval-set's index.
_LOG_NAMES = re.compile(r"samples_.*\.jsonl|results.*\.json|.*\.eval|logs\.json|eval-set\.json",
                        re.IGNORECASE)


def _log_named(out: Path, folders: list[Path]) -> Path | None:
    """Return the log folder ``out`` lies in when it has a log tool's name there, else None.

    >>> _log_named(Path("/logs/ma/results_1.json"), [Path("/logs")])
    PosixPath('/logs')
    >>> _log_named(Path("/logs/ma/report.html"), [Path("/logs")]) is None
    True
    """
    if not _LOG_NAMES.fullmatch(out.name):
        return None
    here = Path(os.path.realpath(out.parent))
    return next((f for f in folders if here.is_relative_to(f)), None)


def _ours(path: Path) -> bool:
    """Tell whether an existing file is one this command writes, from its first 4 KiB.

    A page, a comparison's JSON or an executed report notebook.

    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "r.html"
    >>> _ = page.write_text("<!DOCTYPE html><html><head><title>precmp report: a.csv</title>")
    >>> _ours(page), _ours(page.with_name("absent.html"))
    (True, False)
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return (b"<title>precmp report" in head or head.startswith(b'{"kind": "')
            or (path.suffix == ".ipynb" and b"precmp" in head))


def _check_written(args: argparse.Namespace, inputs: list[Path], what: str) -> None:
    """Refuse outputs that would replace what is not ours, before any work.

    An output may not be an input (``what`` names it), take a log tool's name in a log folder
    read, replace a file in a log folder read that this command did not write (:func:`_ours`),
    be something other than a regular file (a device, a FIFO, a socket, a link, a folder), or
    be another output.
    """
    from ._lib.atomic import check_output

    outs = _outputs(args)
    folders = _log_folders(args, inputs)
    for flag, out in outs:
        if any(_same_file(out, p) for p in inputs):
            raise InputError(f"{flag} {shorten(out.name)} is {what} itself; choose another "
                             "output file")
        folder = _log_named(out, folders)
        if folder is not None:
            raise InputError(f"{flag} {shorten(out.name)} lies in the log folder "
                             f"{shorten(folder.name)!r} read, with a name the logs' tools use "
                             "there (results_*.json, samples_*.jsonl, *.eval, logs.json, "
                             "eval-set.json); choose another name or folder")
        here = Path(os.path.realpath(out.parent))
        inside = next((f for f in folders if here.is_relative_to(f)), None)
        if inside is not None and out.is_file() and not out.is_symlink() and not _ours(out):
            raise InputError(f"{flag} {shorten(out.name)} exists in the log folder "
                             f"{shorten(inside.name)!r} read and is not a page, JSON or "
                             "notebook this command wrote; choose another name or folder")
        check_output(out, flag)
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


# How long a SIGTERM's clean unwinding may take before the process is ended from outside: a
# query or an array operation in compiled code runs no Python until it returns, so the
# handler's exception waits for it (a count of 30,000 columns took 62 s to stop).
STOP_GRACE = 1.0


@contextlib.contextmanager
def exit_on_signals(outputs: Sequence[str] = (), force: bool = False) -> Iterator[None]:
    """Turn SIGTERM (and SIGHUP) into :class:`Terminated` while the block runs.

    Every ``finally`` and ``with`` then unwinds: temporary folders (and a notebook's kernel with
    its connection file, where one runs) are removed, as they are on Ctrl-C (SIGINT raises
    ``KeyboardInterrupt``).
    Outside the main thread the handlers cannot be installed and the block runs unchanged.

    Parameters
    ----------
    outputs : sequence of str
        The output names given (``--out``, ...): where the stop watchdog looks for temporary
        files.
    force : bool
        The command's own process only: the temporary folders of the block go into a private
        folder, and the stop watchdog (:mod:`precmp_lib._lib.watchdog`) ends the process
        :data:`STOP_GRACE` seconds after the signal if it has not ended by then, and removes
        that folder and the outputs' temporary files.
    """
    def stop(signum: int, frame: Any) -> None:
        raise Terminated(signum)

    if not threading_main():
        yield
        return
    saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    with contextlib.ExitStack() as stack:
        if force:
            stack.enter_context(_watchdog(outputs))
        try:
            yield
        finally:
            for s, handler in saved.items():
                signal.signal(s, handler)


@contextlib.contextmanager
def _watchdog(outputs: Sequence[str]) -> Iterator[None]:
    """Give the block a private temporary folder and a stop watchdog reading its wakeup pipe."""
    import shutil
    import subprocess
    import tempfile

    from ._lib import watchdog

    private = tempfile.mkdtemp(prefix=f"precmp-{os.getpid()}-")
    read, write = os.pipe()
    os.set_blocking(write, False)
    folders = sorted({str(Path(o)) if o.endswith(("/", os.sep)) else str(Path(o).parent)
                      for o in outputs})
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", watchdog.__file__,
             *watchdog.watch_arguments(read, os.getpid(), STOP_GRACE, private, folders)],
            pass_fds=(read,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    except OSError:  # no process to spare: the signal's exception alone stops the command
        proc = None
    os.close(read)
    before_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    before_dir = tempfile.tempdir
    tempfile.tempdir = private
    try:
        yield
    finally:
        tempfile.tempdir = before_dir
        signal.set_wakeup_fd(before_fd)
        os.close(write)  # the watchdog reads the pipe's end and ends
        shutil.rmtree(private, ignore_errors=True)
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)


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


def check_values(args: argparse.Namespace) -> None:
    """Check the settings read from the environment before any work: one line for a bad one.

    Every ``PRECMP_MAX_...`` limit and ``PRECMP_DUCKDB_MEMORY`` are read here first, so that a
    bad value stops the command before a file is opened (DuckDB's own error was a parser's
    traceback, after its spill folder was made).

    >>> os.environ["PRECMP_MAX_TASKS"] = "many"
    >>> check_values(argparse.Namespace())
    Traceback (most recent call last):
    ...
    ValueError: PRECMP_MAX_TASKS must be a whole number from 1 to 1,000,000 (tasks); got 'many'
    >>> del os.environ["PRECMP_MAX_TASKS"]
    """
    from ._lib.limits import limit
    from .engine.duckdb_engine import duckdb_memory

    for name in LIMITS:
        limit(name)
    duckdb_memory()


def _report(args: argparse.Namespace) -> int:
    """Run the route the options ask for and write its page: 0, or 2 with one line on bad input."""
    start = time.perf_counter()
    from ._lib.atomic import OutputError

    try:
        _into_folders(args)
        check_values(args)
        route = route_for(args)
        wrong = misplaced(args, route)
        if wrong:
            raise InputError(wrong)
        _check_written(args, route.inputs(args), route.input_name)
        comparison = route.run(args, lambda text: _say(args, text))
    except (UnicodeEncodeError, UnicodeDecodeError) as exc:  # a name that is not text: name
        # the input (a reader that names its file says so itself, as a ValueError)
        _print(f"error: {_inputs_named(args)}: a name or text that is not UTF-8 "
               f"({type(exc).__name__}: {exc.reason}); save the files and their names as UTF-8")
        return EXIT_BAD_INPUT
    except ValueError as exc:  # InputError, and the readers' errors on the route's files
        _print(f"error: {exc}")
        return EXIT_BAD_INPUT
    except OSError as exc:  # an output refused, a name the system cannot look up
        _print(f"error: {exc if isinstance(exc, OutputError) else _os_error(exc)}")
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


def _os_error(exc: OSError) -> str:
    """One line for a file the system refused: its name (at most 80 characters) and why.

    >>> _os_error(OSError(36, "File name too long", "a" * 300))
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...: File name too long'
    """
    name = shorten(os.fsdecode(exc.filename)) if exc.filename is not None else "a file"
    return f"{name}: {exc.strerror or exc}"


def _output_error(exc: OSError) -> str:
    """One line for an output that could not be written (nothing was)."""
    from ._lib.atomic import OutputError

    if isinstance(exc, OutputError):
        return f"{exc}; nothing written"
    return f"an output cannot be written ({exc.strerror or exc}); nothing written"


def _inputs_named(args: argparse.Namespace) -> str:
    """Name what the command reads, for a message about no one file: the paths given.

    >>> _inputs_named(argparse.Namespace(predictions=None, eval_log=[("a", "x"), (None, "y")]))
    'x, y'
    """
    logs = [printable_name(str(path)) for _, path in getattr(args, "eval_log", None) or []]
    given = logs or [printable_name(str(getattr(args, "predictions", None) or "the input"))]
    return ", ".join(shorten(g) for g in given[:3]) + (" ..." if len(given) > 3 else "")


def _out_of_memory(args: argparse.Namespace) -> str:
    """One line for a command that ran out of memory: what it read and the limits to change.

    >>> _out_of_memory(argparse.Namespace(predictions="p.csv", eval_log=[]))
    "p.csv: ran out of memory; nothing written. Raise the process's memory limit (ulimit -v, the container's), or read less: lower --limit log=N, --limit line=N, --limit columns=N or --n-resamples N"
    """
    return (f"{_inputs_named(args)}: ran out of memory; nothing written. Raise the process's memory limit "
            "(ulimit -v, the container's), or read less: lower --limit log=N, --limit line=N, "
            "--limit columns=N or --n-resamples N")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``precmp`` command."""
    if argv is None:  # the process's own command line: the process ends with the command
        _no_collection_at_exit()
        # the command only writes pages: no backend from a matplotlibrc in the working folder
        os.environ["MPLBACKEND"] = "agg"
    args = build_parser().parse_args(argv)
    try:
        outputs = [o for o in (getattr(args, k, None) for k in ("out", "json", "notebook")) if o]
        with exit_on_signals(outputs, force=argv is None), warnings.catch_warnings(), _limits_set(getattr(args, "limit", [])):
            if getattr(args, "quiet", False):  # nothing but errors: no library's warnings
                warnings.simplefilter("ignore")
            # Spark Connect's client warns when it gives up on a server; the error says so
            warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")
            return _report(args)
    except MemoryError:  # numpy's, DuckDB's and Python's own: anywhere in the command
        _print(f"error: {_out_of_memory(args)}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _print("interrupted; nothing written")
        return 128 + signal.SIGINT
    except Terminated as exc:
        _print(f"stopped by {signal.Signals(exc.signum).name}; nothing written")
        return 128 + exc.signum
