"""Timing shared by the benchmarks: the best of several runs of a call."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


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
