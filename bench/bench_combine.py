"""Classifier-swap permutation null: drawn on counts against swapping observation by observation.

The combined per-class precision test needs the per-class GS p-values of B swap permutations.
Swapping the two classifiers' predictions row by row costs O(B n); on the joint confusion
counts it is B * K * K(K-1)/2 binomial draws whatever n is. This times both for n = 1e6
predictions over 3 classes: the counts path for B = 1000 (goal: under 2 s, counting included),
the row path for a few permutations, scaled to B = 1000, and prints their ratio.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from precmp_lib.core.counts import class_cells, joint_confusion
from precmp_lib.stats.combine import swap_permutation_null
from precmp_lib.stats.precision_cells import gs_from_cells

N, K, B = 1_000_000, 3, 1000
ROW_RESAMPLES = 5


def _data(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = rng.integers(0, K, N)
    a = np.where(rng.random(N) < 0.8, y, rng.integers(0, K, N))
    b = np.where(rng.random(N) < 0.6, a, np.where(rng.random(N) < 0.8, y, rng.integers(0, K, N)))
    return y, a, b


def counts_path(y: np.ndarray, a: np.ndarray, b: np.ndarray, seed: int) -> np.ndarray:
    table = joint_confusion(y, a, b).table
    return swap_permutation_null(table, n_resamples=B, random_state=seed).pvalues


def row_path(y: np.ndarray, a: np.ndarray, b: np.ndarray, seed: int, n_resamples: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_resamples):
        swap = rng.random(N) < 0.5
        table = joint_confusion(y, np.where(swap, b, a), np.where(swap, a, b)).table
        out.append(gs_from_cells(class_cells(table)).pvalue)
    return np.array(out)


def _median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    y, a, b = _data(np.random.default_rng(0))
    t_counts = _median_seconds(lambda: counts_path(y, a, b, 1), repeat=5)
    t_rows = _median_seconds(lambda: row_path(y, a, b, 1, ROW_RESAMPLES), repeat=1)
    t_rows_full = t_rows * B / ROW_RESAMPLES
    # the two paths draw from the same null: compare the mean null p-value per class
    p_counts = counts_path(y, a, b, 2).mean(axis=0)
    p_rows = row_path(y, a, b, 3, 40).mean(axis=0)
    print(f"{B} swap permutations of {N:.0e} predictions over {K} classes")
    print(f"{'path':<34}{'seconds':>10}{'ratio':>10}")
    print(f"{'counts (joint table + binomials)':<34}{t_counts:>10.3f}{1:>10.0f}")
    print(f"{'rows (scaled from ' + str(ROW_RESAMPLES) + ' permutations)':<34}"
          f"{t_rows_full:>10.1f}{t_rows_full / t_counts:>10.0f}")
    print(f"goal: counts path under 2 s -> {'met' if t_counts < 2 else 'NOT met'}")
    print("mean null p-value per class, counts / rows (40 permutations):",
          np.round(p_counts, 3).tolist(), "/", np.round(p_rows, 3).tolist())


if __name__ == "__main__":
    main()
