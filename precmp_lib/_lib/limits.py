"""Limits on what a report reads, checked before the work that would exceed them.

Each limit has a default chosen by measurement (what two cores and 2 GB of memory finish in
about a minute) and an environment variable that overrides it (``PRECMP_MAX_MODELS=500``).
A file beyond a limit is refused in one line that names the file, the count, the limit, the
command's option (``--limit models=500``) and the variable; nothing is read past the limit. The README lists them.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["LIMITS", "Limit", "LimitError", "check_limit", "check_regular", "file_kind", "limit",
           "limits_held", "parse_limit"]


class LimitError(ValueError):
    """A file goes beyond one of the limits: one line naming the limit and its variable."""


@dataclass(frozen=True)
class Limit:
    """One limit: its environment variable, its default, what it counts and its ceiling.

    The ceiling is the largest value the limit may be raised to: past it a reader's buffer of
    the limit's size, or the work the limit bounds, would not fit any machine's memory (a line
    limit of 10^11 bytes asked ``read`` for a buffer of 93 GiB).
    """

    variable: str
    default: int
    counts: str
    ceiling: int = 1 << 40


LIMITS = {
    "columns": Limit("PRECMP_MAX_COLUMNS", 10_000, "columns", 1_000_000),
    "models": Limit("PRECMP_MAX_MODELS", 300, "models", 100_000),
    "item_models": Limit("PRECMP_MAX_ITEM_MODELS", 1_000, "models", 100_000),
    "classes": Limit("PRECMP_MAX_CLASSES", 1_000, "classes", 1_000_000),
    "tasks": Limit("PRECMP_MAX_TASKS", 64, "tasks", 1_000_000),
    "label": Limit("PRECMP_MAX_LABEL", 1_000, "characters in a label or name", 1 << 20),
    "line": Limit("PRECMP_MAX_LINE", 1 << 20, "bytes in a line", 1 << 30),
    "log": Limit("PRECMP_MAX_LOG_BYTES", 1 << 30, "bytes of log to read (an archive's inflated members in total)"),
    # one JSON document (an archive member, an inspect .json log, a results_*.json): parsing
    # holds about 3 times its bytes at most (PARSE_FACTOR in bounded.py), so 192 MiB keeps a
    # report under 1 GiB whatever the input
    "member": Limit("PRECMP_MAX_MEMBER_BYTES", 192 << 20, "bytes in one JSON document or archive member", 1 << 40),
    "inflated": Limit("PRECMP_MAX_INFLATED_BYTES", 1 << 30, "bytes a compressed file inflates to", 1 << 40),
    # an archive's directory is read whole and each entry becomes an object of some 550 bytes
    # (of 47 bytes at least in the directory): 32 MiB keeps it under 400 MB, and holds some
    # 400,000 samples of an inspect log
    "directory": Limit("PRECMP_MAX_DIRECTORY_BYTES", 32 << 20, "bytes of an archive's directory (its list of members)", 1 << 36),
    "depth": Limit("PRECMP_MAX_DEPTH", 32, "levels of folders", 1_000),
}


def limit(name: str) -> int:
    """Return the limit ``name`` (a key of :data:`LIMITS`): its variable's value, else its default.

    Parameters
    ----------
    name : str
        ``"columns"``, ``"models"``, ``"item_models"``, ``"classes"``, ``"tasks"``,
        ``"label"``, ``"line"``, ``"log"``, ``"member"``, ``"inflated"``, ``"directory"`` or
        ``"depth"``.

    Returns
    -------
    int
        The largest count allowed.

    Raises
    ------
    ValueError
        When ``name`` is not a limit, or its variable is set to anything but a positive whole
        number (written with ASCII digits) no larger than the limit's ceiling.

    Examples
    --------
    >>> os.environ["PRECMP_MAX_MODELS"] = "500"
    >>> limit("models")
    500
    >>> del os.environ["PRECMP_MAX_MODELS"]
    >>> limit("models")
    300
    """
    held = _HELD.get()
    if held is not None and name in held:
        return held[name]
    if name not in LIMITS:
        raise ValueError(f"name must be one of {sorted(LIMITS)}; got {name!r}")
    entry = LIMITS[name]
    text = os.environ.get(entry.variable, "").strip()
    value = entry.default if not text else parse_limit(name, text, entry.variable)
    if held is not None:
        held[name] = value
    return value


# the limits read inside :func:`limits_held`, by name (None outside it)
_HELD: contextvars.ContextVar[dict[str, int] | None] = contextvars.ContextVar(
    "precmp_limits_held", default=None)


@contextlib.contextmanager
def limits_held() -> Iterator[None]:
    """Hold each limit at the value it is first read at, for the work inside.

    A reader of many small parts (a log of 150,000 samples asked for its limits about 750,000
    times, each a look at the environment) reads each limit once; a variable changed inside
    takes effect after. Nested calls share the outer one's values.

    Examples
    --------
    >>> os.environ["PRECMP_MAX_MODELS"] = "500"
    >>> with limits_held():
    ...     first = limit("models")
    ...     os.environ["PRECMP_MAX_MODELS"] = "400"
    ...     first, limit("models")
    (500, 500)
    >>> limit("models")
    400
    >>> del os.environ["PRECMP_MAX_MODELS"]
    """
    if _HELD.get() is not None:
        yield
        return
    token = _HELD.set({})
    try:
        yield
    finally:
        _HELD.reset(token)


def parse_limit(name: str, text: str, given_as: str) -> int:
    """Read a limit's value: a whole number from 1 to the limit's ceiling, in ASCII digits.

    Parameters
    ----------
    name : str
        A key of :data:`LIMITS`.
    text : str
        The value as given.
    given_as : str
        How the message names where it was given (``--limit line`` or its variable).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        One line naming ``given_as``, the range and the value (at most 40 characters of it).

    Examples
    --------
    >>> parse_limit("line", "4096", "--limit line")
    4096
    >>> parse_limit("line", "99999999999999999999999", "--limit line")
    Traceback (most recent call last):
    ...
    ValueError: --limit line must be a whole number from 1 to 1,073,741,824 (bytes in a line); got '99999999999999999999999'
    """
    entry = LIMITS[name]
    text = text.strip()
    # the length first: int() of thousands of digits is refused by Python itself, slowly
    if not (text.isascii() and text.isdigit()) or len(text) > 20 or \
            not 1 <= int(text) <= entry.ceiling:
        raise ValueError(f"{given_as} must be a whole number from 1 to {entry.ceiling:,} "
                         f"({entry.counts}); got {text!r:.40}")
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
        raise error(f"{where}: not a regular file ({file_kind(info.st_mode)}); give a file")
    return info.st_size


def file_kind(mode: int) -> str:
    """Say what a ``stat`` mode that is not a regular file's is ("a FIFO", "a folder", ...).

    >>> file_kind(stat.S_IFIFO)
    'a FIFO'
    """
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]
    return next((name for test, name in kinds if test(mode)), "not a file")
