"""Limits on what a report reads, checked before the work that would exceed them.

Each limit has a default chosen by measurement (what two cores and 2 GB of memory finish in
about a minute) and an environment variable that overrides it (``PRECMP_MAX_MODELS=500``).
A file beyond a limit is refused in one line that names the file, the count, the limit, the
command's option (``--limit models=500``) and the variable; nothing is read past the limit. The README lists them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

__all__ = ["LIMITS", "Limit", "LimitError", "check_limit", "check_regular", "limit"]


class LimitError(ValueError):
    """A file goes beyond one of the limits: one line naming the limit and its variable."""


@dataclass(frozen=True)
class Limit:
    """One limit: its environment variable, its default and what it counts."""

    variable: str
    default: int
    counts: str


LIMITS = {
    "columns": Limit("PRECMP_MAX_COLUMNS", 10_000, "columns"),
    "models": Limit("PRECMP_MAX_MODELS", 300, "models"),
    "item_models": Limit("PRECMP_MAX_ITEM_MODELS", 1_000, "models"),
    "classes": Limit("PRECMP_MAX_CLASSES", 1_000, "classes"),
    "tasks": Limit("PRECMP_MAX_TASKS", 64, "tasks"),
    "label": Limit("PRECMP_MAX_LABEL", 1_000, "characters in a label or name"),
    "line": Limit("PRECMP_MAX_LINE", 1 << 20, "bytes in a line"),
    "log": Limit("PRECMP_MAX_LOG_BYTES", 1 << 30, "bytes of log to read (an archive's inflated members in total)"),
    "depth": Limit("PRECMP_MAX_DEPTH", 32, "levels of folders"),
}


def limit(name: str) -> int:
    """Return the limit ``name`` (a key of :data:`LIMITS`): its variable's value, else its default.

    Parameters
    ----------
    name : str
        ``"columns"``, ``"models"``, ``"item_models"``, ``"classes"``, ``"tasks"``,
        ``"label"``, ``"line"``, ``"log"`` or ``"depth"``.

    Returns
    -------
    int
        The largest count allowed.

    Raises
    ------
    ValueError
        When ``name`` is not a limit, or its variable is set to anything but a positive whole
        number (written with ASCII digits).

    Examples
    --------
    >>> os.environ["PRECMP_MAX_MODELS"] = "500"
    >>> limit("models")
    500
    >>> del os.environ["PRECMP_MAX_MODELS"]
    >>> limit("models")
    300
    """
    if name not in LIMITS:
        raise ValueError(f"name must be one of {sorted(LIMITS)}; got {name!r}")
    entry = LIMITS[name]
    text = os.environ.get(entry.variable, "").strip()
    if not text:
        return entry.default
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise ValueError(f"{entry.variable} must be a positive whole number; got {text!r:.40}")
    return int(text)


def check_limit(name: str, count: int, where: str,
                error: type[ValueError] = LimitError) -> None:
    """Refuse ``count`` above the limit ``name``, in one line naming ``where`` and the variable.

    Parameters
    ----------
    name : str
        A key of :data:`LIMITS`.
    count : int
        What the source holds (or at least holds: a reader may stop at the limit).
    where : str
        The file (and column) the count is of, as the message names it.
    error : type of ValueError
        The error raised (the reader's own error type, which its callers expect).

    Raises
    ------
    LimitError
        When ``count`` is above the limit (or ``error``).

    Examples
    --------
    >>> check_limit("tasks", 64, "items.csv")
    >>> check_limit("tasks", 65, "items.csv column 'task'")
    Traceback (most recent call last):
    ...
    precmp_lib._lib.limits.LimitError: items.csv column 'task': 65 tasks, more than the limit of 64 (raise it with --limit tasks=N or PRECMP_MAX_TASKS=N)
    """
    most = limit(name)
    if count > most:
        entry = LIMITS[name]
        raise error(f"{where}: {count:,} {entry.counts}, more than the limit of {most:,} "
                    f"(raise it with --limit {name}=N or {entry.variable}=N)")


def check_regular(path: str | os.PathLike, where: str, error: type[ValueError] = LimitError) -> int:
    """Refuse what is not a regular file, by ``stat`` before anything opens it; return its size.

    A FIFO would make the reader wait for ever, a device such as ``/dev/zero`` never ends, and
    either may hide behind a link: the link is followed and what it names is checked.

    Parameters
    ----------
    path : str or PathLike
        The file.
    where : str
        How the message names it.
    error : type of ValueError
        The error raised.

    Returns
    -------
    int
        The file's size in bytes.

    Raises
    ------
    LimitError
        When the path names a FIFO, a device, a socket or a folder, or cannot be looked up
        (or ``error``).

    Examples
    --------
    >>> check_regular("/dev/null", "x.csv")
    Traceback (most recent call last):
    ...
    precmp_lib._lib.limits.LimitError: x.csv: not a regular file (a character device); give a file
    """
    try:
        info = os.stat(path)
    except OSError as exc:
        raise error(f"{where}: cannot be opened ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{where}: not a regular file ({_file_type(info.st_mode)}); give a file")
    return info.st_size


def _file_type(mode: int) -> str:
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "not a file")
