"""Writing output files: atomically, with the permissions the user's umask gives a new file."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["OutputError", "check_output", "current_umask", "staged", "write_atomic"]


def _prefix(path: Path) -> str:
    """Return how an output's temporary file's name begins: ``.NAME.PID.``.

    Hidden, and the process's own: a watchdog that ends the process removes them by that name.
    """
    return f".{path.name}.{os.getpid()}."


def current_umask() -> int:
    """Return the process's umask, read by setting it and putting it back.

    Returns
    -------
    int
        The current umask, e.g. ``0o022``.
    """
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader never sees a half-written file and a failure leaves nothing at ``path``. The file
    gets mode ``0o666 & ~umask``, as ``open(path, "w")`` would give it (``mkstemp`` alone makes
    it 0600).

    >>> import stat
    >>> d = Path(tempfile.mkdtemp())
    >>> p = write_atomic(d / "r.html", "<p>hi</p>")
    >>> p.read_text(), stat.S_IMODE(p.stat().st_mode) == 0o666 & ~current_umask()
    ('<p>hi</p>', True)
    >>> sorted(x.name for x in d.iterdir())  # no temporary file left beside it
    ['r.html']
    """
    path = Path(path)
    check_output(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_prefix(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~current_umask())
        check_output(path)  # nothing but a regular file became the path meanwhile
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class OutputError(OSError):
    """An output file cannot be written: one line naming it."""


def check_output(path: str | os.PathLike, flag: str = "") -> None:
    """Refuse an output path where something other than a regular file already is.

    Writing an output replaces what is at its path (``os.replace``): a device such as
    ``/dev/null``, a FIFO, a socket or a symbolic link would become a plain file, and a folder
    cannot be replaced. A path where nothing is yet, or a regular file, passes; the link itself
    is looked at (``lstat``), not what it points to.

    Parameters
    ----------
    path : str or PathLike
        The output.
    flag : str
        The option that names it, for the message (``"--json"``); empty: the path alone.

    Raises
    ------
    OutputError
        When something other than a regular file is at ``path``, or the path cannot be looked
        up (a name too long for the file system, ...); the message names the output.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> check_output(d / "new.html", "--out")
    >>> (d / "r.html").symlink_to(d / "elsewhere.html")
    >>> check_output(d / "r.html", "--out")
    Traceback (most recent call last):
    ...
    precmp_lib._lib.atomic.OutputError: --out r.html: a symbolic link is at that path; an output replaces only a regular file: give a new name
    >>> check_output("/dev/null", "--json")
    Traceback (most recent call last):
    ...
    precmp_lib._lib.atomic.OutputError: --json null: a character device is at that path; an output replaces only a regular file: give a new name
    """
    from .limits import file_kind
    from .text import shorten

    path = Path(path)
    named = f"{flag} {shorten(path.name)}" if flag else shorten(str(path))
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (or a file in the way,
        return                                       # which making the folder reports)
    except OSError as exc:
        raise OutputError(f"{named}: cannot be written ({exc.strerror or exc})") from None
    if stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{named}: is a folder; give a file name, or end the name with / to "
                          "write into the folder")
    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else file_kind(info.st_mode)
    raise OutputError(f"{named}: {kind} is at that path; an output replaces only a regular "
                      "file: give a new name")


@contextlib.contextmanager
def staged(paths: Sequence[str | os.PathLike]) -> Iterator[dict[Path, Path]]:
    """Give each output a temporary file beside it; move them all into place if the block succeeds.

    The temporaries are made first (their folders too): an output that cannot be written is
    an :class:`OutputError` before anything is written. When the block raises, every
    temporary is removed and no output is touched; when it succeeds, each temporary gets the
    mode the umask gives a new file and replaces its output. A reader never sees a set of
    outputs of which some are new and some missing.

    Parameters
    ----------
    paths : sequence of path
        The outputs.

    Yields
    ------
    dict of Path to Path
        Each output's temporary file, to write instead of it.

    Raises
    ------
    OutputError
        When an output's folder cannot be made or written (its message names the output).

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> with staged([d / "r.html", d / "r.json"]) as temp:
    ...     _ = temp[d / "r.html"].write_text("<p>hi</p>")
    ...     _ = temp[d / "r.json"].write_text("{}")
    >>> sorted(p.name for p in d.iterdir())
    ['r.html', 'r.json']
    >>> with staged([d / "new.html"]) as temp:
    ...     _ = temp[d / "new.html"].write_text("half")
    ...     raise ValueError("the page failed")
    Traceback (most recent call last):
    ...
    ValueError: the page failed
    >>> sorted(p.name for p in d.iterdir())
    ['r.html', 'r.json']
    """
    temps: dict[Path, Path] = {}
    try:
        for path in map(Path, paths):
            check_output(path)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, name = tempfile.mkstemp(dir=path.parent, prefix=_prefix(path), suffix=".tmp")
            except OSError as exc:
                raise OutputError(f"{path}: cannot be written ({exc.strerror or exc})") from None
            os.close(fd)
            temps[path] = Path(name)
        yield temps
        mode = 0o666 & ~current_umask()
        for tmp in temps.values():
            os.chmod(tmp, mode)
        for path in temps:  # nothing but a regular file became an output's path meanwhile
            check_output(path)
        for path, tmp in temps.items():
            os.replace(tmp, path)
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
