"""Writing output files: atomically, with the permissions the user's umask gives a new file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["current_umask", "write_atomic"]


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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
