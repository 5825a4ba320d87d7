"""Timing shared by the benchmarks: the best of several runs of a call, and the wall time and
peak resident memory of a command's whole process tree."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

GIB = 2**30


def best_of(fn: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> float:
    """Seconds of the fastest of ``repeat`` calls of ``fn``; ``before`` runs untimed before each."""
    best = np.inf
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


def _tree_rss(pid: int) -> int:
    """Resident memory (bytes) of ``pid`` and all its descendants, summed."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            continue
        todo.extend(_children(p))
    return total


def run_tree(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """Wall time and peak summed RSS of the process tree of ``cmd`` (sampled every 0.2 s)."""
    seconds, peak, _ = run_tree_stderr(cmd, cwd)
    return seconds, peak


def run_tree_stderr(cmd: list[str], cwd: Path) -> tuple[float, int, str]:
    """:func:`run_tree`, also returning what the command wrote on stderr."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, err = proc.communicate()
    done.set()
    thread.join()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed: {err.strip()[-500:]}")
    return seconds, peak[0], err


def memory_part(label: str, path: Path, n: int, make: Callable[[Path, int], None],
                command: Callable[[Path, Path], list[str]], name: str, goal_gib: float) -> None:
    """Make an ``n``-row file at ``path``, run ``command`` on it once, delete the file and
    print the wall time and the process tree's peak RSS against ``goal_gib``."""
    start = time.perf_counter()
    make(path, n)
    made = time.perf_counter() - start
    try:
        size = path.stat().st_size
        seconds, peak = run_tree(command(path, path.parent / "report.html"), path.parent)
    finally:
        path.unlink(missing_ok=True)
    goal = goal_gib * GIB
    print(f"\n## {label}: {n:,} rows ({size / 2**20:,.0f} MiB Parquet, made in {made:.0f} s)")
    print(f"{name + ' wall time':34}{seconds:>10.1f} s")
    print(f"{'peak RSS, whole process tree':34}{peak / GIB:>10.2f} GiB   goal <= {goal_gib:g} GiB "
          f"(ratio {peak / goal:.2f})  {'met' if peak <= goal else 'NOT met'}")
