"""The command's stop watchdog: a small process that ends the command soon after SIGTERM.

The command turns SIGTERM into an exception that unwinds every ``finally``; but Python runs a
signal's handler only between two steps of Python code, and compiled code that holds the
interpreter (DuckDB planning a query of 30,000 columns, a long numpy operation) delays it for
as long as it runs (62 s). Python's C-level handler writes the signal's number to a wakeup file
descriptor at once (:func:`signal.set_wakeup_fd`); this process holds the other end of that
pipe, outside the command's interpreter. When a SIGTERM or SIGHUP arrives it waits a grace
period for the clean unwinding, then, if the command still runs, ends it (SIGKILL), removes its
private temporary folder and its outputs' temporary files, and says so in the command's words.
It ends by itself when the pipe closes (the command ended).

The file runs as a script (``python -I -S watchdog.py ...``): it imports nothing of the package
and starts in a few milliseconds.

>>> watch_arguments(4, 123, 1.0, "/tmp/precmp-123-x", ["out"])
['4', '123', '1.0', '/tmp/precmp-123-x', 'out']
"""

from __future__ import annotations

import glob
import os
import select
import shutil
import signal
import sys
import time

__all__ = ["watch", "watch_arguments"]


def watch_arguments(fd: int, pid: int, grace: float, private: str, folders: list[str]) -> list[str]:
    """Return the command line arguments of the watchdog (after the script's path)."""
    return [str(fd), str(pid), str(grace), private, *folders]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _unwound(fd: int, pid: int, grace: float) -> bool:
    """Say whether the command ends, or closes the pipe, within ``grace`` seconds.

    A closed pipe means its handler ran and it unwinds by itself.
    """
    deadline = time.monotonic() + grace
    while _alive(pid):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], min(left, 0.05))
        if ready and not os.read(fd, 64):
            return True
    return True


def watch(fd: int, pid: int, grace: float, private: str, folders: list[str]) -> None:
    """Wait for a stopping signal's number on ``fd``; end ``pid`` if it outlives ``grace`` s.

    Parameters
    ----------
    fd : int
        The reading end of the command's wakeup pipe.
    pid : int
        The command's process.
    grace : float
        Seconds the command has to end by itself.
    private : str
        The command's private temporary folder (removed).
    folders : list of str
        The folders of the command's outputs: their temporary files (``.NAME.PID.*.tmp``)
        are removed.
    """
    while True:
        try:
            got = os.read(fd, 1)
        except InterruptedError:
            continue
        except OSError:
            return
        if not got:  # the command ended
            return
        if got[0] not in (signal.SIGTERM, signal.SIGHUP):
            continue
        if _unwound(fd, pid, grace):
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return
        for _ in range(100):  # the folders are the command's until it has gone
            if not _alive(pid):
                break
            time.sleep(0.01)
        shutil.rmtree(private, ignore_errors=True)
        for folder in folders:
            for tmp in glob.glob(os.path.join(glob.escape(folder), f".*.{pid}.*.tmp")):
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        name = signal.Signals(got[0]).name
        print(f"precmp: stopped by {name}; nothing written", file=sys.stderr, flush=True)
        return


if __name__ == "__main__":
    # the command's process may be ended by its session's signal too: this one outlives it
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5:])
