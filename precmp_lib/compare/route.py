"""What a route is: the :class:`Route` record, its options as data, and the shared options.

A route is one question the report answers (DESIGN.md, "Routes"). Its record says how its
input is recognised among the command's options, how it is read and compared
(:attr:`Route.run`, giving a :class:`~precmp_lib.compare.base.Comparison`), which options the
command offers for it (:class:`Option` specs: flags and argparse keyword arguments, as data)
and which template shows its comparison. Each route's module defines its ``ROUTE``;
:mod:`precmp_lib.compare.routes` registers them, and the command and the renderer read that
registry only.

An option two routes read is one :class:`Option` object in both routes' option groups
(``MODELS``, ``ENGINE``, ``MARGIN``, ... below): the command adds it once.

This module imports nothing heavy: the command builds its parser from the registry before any
data is read, and a route's own modules are imported when it runs.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.dispatch import ENGINES

if TYPE_CHECKING:  # pandas and the comparisons are imported when a route runs
    from .base import Comparison

__all__ = [
    "ALPHA",
    "CLUSTER",
    "ENGINE",
    "MARGIN",
    "METRIC",
    "MODELS",
    "MODEL_COLUMN",
    "PAIRS",
    "REFERENCE",
    "SPARK_CONF",
    "SPARK_MASTER",
    "InputError",
    "Option",
    "Route",
    "install_command",
    "parse_alpha",
    "parse_margin",
    "parse_spark_conf",
    "start_spark",
]


class InputError(ValueError):
    """A problem with the command's input or options: the command prints it as one line.

    >>> str(InputError("--n-resamples must be at least 100"))
    '--n-resamples must be at least 100'
    """


@dataclass(frozen=True, eq=False)
class Option:
    """One command-line option as data: its flags and the keyword arguments of ``add_argument``.

    Two options are the same option only when they are the same object.

    Attributes
    ----------
    flags : tuple of str
        ``("--y-true",)``.
    kwargs : mapping
        What :meth:`argparse.ArgumentParser.add_argument` takes besides the flags.

    Examples
    --------
    >>> seed = Option(("--seed",), {"type": int, "default": 0, "help": "random seed"})
    >>> seed.dest, seed.flag
    ('seed', '--seed')
    """

    flags: tuple[str, ...]
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        """The attribute of the parsed options that holds the value (as argparse names it)."""
        return str(self.kwargs.get("dest") or self.flags[0].lstrip("-").replace("-", "_"))

    @property
    def flag(self) -> str:
        """The option as the command's messages name it: its first flag."""
        return self.flags[0]

    def add_to(self, group: Any) -> None:
        """Add the option to an argparse parser or argument group.

        Parameters
        ----------
        group : argparse.ArgumentParser or argument group
        """
        group.add_argument(*self.flags, **self.kwargs)


@dataclass(frozen=True, eq=False)
class Route:
    """One route: how the command recognises, reads and compares its input, and shows it.

    Attributes
    ----------
    name : str
        The route's name, which is its comparison's ``kind`` (``"predictions"``, ``"items"``).
    title : str
        What the route compares, as the command's messages name it ("predictions files").
    description : str
        The help text of its option group.
    comparison : callable
        Returns its comparison class (a subclass of
        :class:`~precmp_lib.compare.base.Comparison`); a function, so that the registry imports
        no route's modules until they are used.
    options : tuple of Option
        Its option group; an option another route reads too is the same object in both.
    recognise : callable
        ``recognise(options) -> bool``: whether the parsed options ask for this route.
    chosen_by : str
        How the command chose the route, for messages ("--item, --eval-log").
    usage : str
        What to give to choose it ("--item COL or --eval-log NAME=PATH").
    inputs : callable
        ``inputs(options) -> list of Path``: the files the route will read, so that no output
        overwrites one (checked before anything is read).
    input_name : str
        How messages name one of those files ("the predictions file").
    run : callable
        ``run(options, progress) -> Comparison``: read the input and compare. ``progress``
        takes one line of news at a time. A problem with the input raises
        :class:`InputError` with the line the command prints.
    template : str
        The resource name of its report template in ``precmp_lib/_resources``.
    outputs : callable
        ``outputs(options) -> list of (str, Path)``: files the route writes besides the page,
        the JSON and the notebook, each with how messages name it (default: none). The command
        writes them with the page, all or none.
    writer : str
        ``"module:function"`` of the view side that writes those files,
        ``function(comparison, options, paths)`` with ``paths`` mapping each output to the
        temporary file to write (imported when the files are written: the registry imports no
        view).

    Examples
    --------
    >>> from precmp_lib.compare.routes import route_named
    >>> route = route_named("items")
    >>> route.template, route.comparison().kind
    ('item_report.ipynb', 'items')
    """

    name: str
    title: str
    description: str
    comparison: Callable[[], type[Comparison]]
    options: tuple[Option, ...]
    recognise: Callable[[argparse.Namespace], bool]
    chosen_by: str
    usage: str
    inputs: Callable[[argparse.Namespace], list[Path]]
    input_name: str
    run: Callable[[argparse.Namespace, Callable[[str], None]], Comparison]
    template: str
    outputs: Callable[[argparse.Namespace], list[tuple[str, Path]]] = lambda options: []
    writer: str = ""


# --------------------------------------------------------------------------------------------
# option values
# --------------------------------------------------------------------------------------------


# The smallest --alpha: the confidence level 1 - alpha must differ from 1 in a double with
# room to spare (1 - 1e-320 is 1.0, which the intervals refuse), and a level past 1e-9 asks the
# bootstrap and the permutations for quantiles no run of resamples can give.
SMALLEST_ALPHA = 1e-9


def parse_alpha(text: str) -> float:
    """Read ``--alpha``: a number in [1e-9, 1).

    >>> parse_alpha("0.01")
    0.01
    >>> parse_alpha("1e-320")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: --alpha must lie in (0, 1) and be at least 1e-09 (1 - alpha is the confidence level); got 1e-320
    """
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha takes a number in (0, 1); got {text!r:.40}") from None
    if not 0 < a < 1:
        raise argparse.ArgumentTypeError(f"--alpha must lie in (0, 1); got {text:.40}")
    if a < SMALLEST_ALPHA:
        raise argparse.ArgumentTypeError(f"--alpha must lie in (0, 1) and be at least "
                                         f"{SMALLEST_ALPHA:g} (1 - alpha is the confidence "
                                         f"level); got {text:.40}")
    return a


def parse_margin(text: str) -> tuple[str | None, float]:
    """Read ``X`` (every task) or ``TASK=X`` (one task) into (task or None, margin).

    >>> parse_margin("0.02"), parse_margin("judge=0.5")
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


# Spark settings whose values are checked before the session starts (a bad value made Spark
# fail inside the first query, as dozens of chained Java tracebacks, or hang): the kind of
# value each takes. Other keys pass as given.
_WHOLE = re.compile(r"[0-9]{1,9}")
_SIZE = re.compile(r"[0-9]{1,12}(?:[kmgtp]b?|b)?", re.IGNORECASE)
_TIME = re.compile(r"[0-9]{1,12}(?:us|ms|s|m|min|h|d)?", re.IGNORECASE)
_BOOLEAN = re.compile(r"true|false", re.IGNORECASE)
_SPARK_VALUES: dict[str, tuple[re.Pattern[str], str]] = {
    **{key: (_WHOLE, "a positive whole number") for key in (
        "spark.sql.shuffle.partitions", "spark.default.parallelism", "spark.executor.cores",
        "spark.driver.cores", "spark.executor.instances", "spark.task.cpus",
        "spark.task.maxFailures", "spark.sql.files.maxPartitionNum",
        "spark.sql.adaptive.coalescePartitions.initialPartitionNum")},
    **{key: (_SIZE, "a size such as 4g or 512m") for key in (
        "spark.driver.memory", "spark.executor.memory", "spark.driver.maxResultSize",
        "spark.driver.memoryOverhead", "spark.executor.memoryOverhead",
        "spark.sql.files.maxPartitionBytes", "spark.sql.autoBroadcastJoinThreshold",
        "spark.memory.offHeap.size", "spark.kryoserializer.buffer.max")},
    **{key: (_TIME, "a time such as 120s") for key in (
        "spark.network.timeout", "spark.executor.heartbeatInterval",
        "spark.sql.broadcastTimeout")},
    **{key: (_BOOLEAN, "true or false") for key in (
        "spark.sql.adaptive.enabled", "spark.sql.ansi.enabled", "spark.ui.enabled",
        "spark.dynamicAllocation.enabled", "spark.sql.caseSensitive",
        "spark.memory.offHeap.enabled", "spark.eventLog.enabled")},
}


def parse_spark_conf(text: str) -> tuple[str, str]:
    """Read ``--spark-conf KEY=VALUE`` with a ``spark.*`` key; check the values of known keys.

    A setting Spark reads as a number, a size, a time or a boolean is checked here, before the
    session starts.

    >>> parse_spark_conf("spark.driver.memory=4g")
    ('spark.driver.memory', '4g')
    >>> parse_spark_conf("spark.sql.shuffle.partitions=abc")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: --spark-conf spark.sql.shuffle.partitions takes a positive whole number; got 'abc'
    """
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key.startswith("spark.") or not value:
        raise argparse.ArgumentTypeError(f"--spark-conf takes KEY=VALUE with a spark.* key; got "
                                         f"{text!r:.80}")
    pattern, kind = _SPARK_VALUES.get(key, (None, ""))
    if pattern is not None and (not value.isascii() or not pattern.fullmatch(value) or
                                (pattern is _WHOLE and int(value) < 1)):
        raise argparse.ArgumentTypeError(f"--spark-conf {key} takes {kind}; got {value!r:.40}")
    return key, value


# --------------------------------------------------------------------------------------------
# the options several routes read
# --------------------------------------------------------------------------------------------

MODELS = Option(("--models",), {
    "nargs": "+", "metavar": "COL",
    "help": "wide: model columns (default: all but truth, id, repeat, fold); long: models to "
            "keep; evaluation items: models to keep"})
ENGINE = Option(("--engine",), {
    "choices": ENGINES, "default": "auto",
    "help": "who counts the rows: auto (DuckDB for files), numpy (in memory), duckdb, spark "
            "(local mode unless a master is given or configured)"})
SPARK_MASTER = Option(("--spark-master",), {
    "metavar": "URL",
    "help": "--engine spark: the cluster (spark://HOST:PORT, or a Spark Connect server "
            "sc://HOST:PORT ...); default: SPARK_REMOTE, else spark.master of the Spark "
            "configuration, else local mode"})
SPARK_CONF = Option(("--spark-conf",), {
    "action": "append", "type": parse_spark_conf, "default": [], "metavar": "KEY=VALUE",
    "help": "--engine spark: a Spark setting (repeatable), e.g. spark.driver.memory=4g"})
MODEL_COLUMN = Option(("--model-column",), {
    "metavar": "COL", "default": "model",
    "help": "long files and evaluation items: the model column (default 'model')"})
MARGIN = Option(("--margin",), {
    "type": parse_margin, "action": "append", "metavar": "[TASK=]X",
    "help": "equivalence margin (TOST), e.g. 0.02: the accuracy difference for predictions "
            "files; the score scale for evaluation items, for every task, or TASK=X for one "
            "task (repeat it; needed when tasks have different scales)"})
CLUSTER = Option(("--cluster",), {
    "metavar": "COL",
    "help": "cluster of each item (passage, document) or observation (patient): clustered "
            "tests"})
METRIC = Option(("--metric",), {
    "metavar": "NAME",
    "help": "eval logs: the metric or scorer to read; TASK=METRIC for one task, several joined "
            "by ';'. Probabilities (--proba): what the recommendation rests on, auc (default), "
            "brier, logloss or accuracy"})
ALPHA = Option(("--alpha",), {"type": parse_alpha, "default": 0.05,
                              "help": "significance level (default 0.05)"})
REFERENCE = Option(("--reference",), {
    "metavar": "MODEL",
    "help": "compare every model against this one (the family Holm's adjustment runs over)"})
PAIRS = Option(("--pairs",), {
    "choices": ("auto", "all", "leader"), "default": "auto", "dest": "pair_family",
    "help": "the pairs tested, Holm's adjustment over them: all (every pair), leader (each "
            "model against the top one); auto (default): all up to 10 models, leader beyond"})


# --------------------------------------------------------------------------------------------
# what several routes' runs share
# --------------------------------------------------------------------------------------------


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


def start_spark(options: argparse.Namespace) -> None:
    """Start the Spark session a run will use, with the master and settings asked for.

    Nothing happens unless ``--engine spark`` was given; ``--spark-master`` or
    ``--spark-conf`` without it is an :class:`InputError`.

    >>> start_spark(argparse.Namespace(engine="auto", spark_master=None, spark_conf=[]))
    """
    if options.engine != "spark":
        if options.spark_master or options.spark_conf:
            raise InputError("--spark-master and --spark-conf need --engine spark")
        return
    try:
        from ..engine.spark_engine import spark_session

        spark_session(master=options.spark_master, conf=dict(options.spark_conf))
    except ImportError as exc:
        raise InputError(f"--engine spark needs {exc.name}: {install_command(exc.name or '')}") from None
    except RuntimeError as exc:
        raise InputError(str(exc)) from None
