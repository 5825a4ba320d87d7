"""Report time against the number of models and of classes.

For each case, simulated predictions on one test set of 5,000 observations are compared with
``compare_models`` and rendered with ``render_report``; the table gives both times and the
page size, with the ratio of the whole to the smallest case (3 models, 2 classes).

The comparison's work grows with the pairs of models (every pair is tested, class by class), so
its time per pair should not grow with them. Goal: the time per pair of ``compare_models`` at
60 models (1,770 pairs) within 2 x its time per pair at 30 models (435 pairs). (Up to 45 pairs
each pair also draws Dai–Cui's swap permutations, so smaller cases cost more per pair.)

    python bench/bench_compare.py            # models 3, 10, 30, 60 at 10 classes; classes 2, 10, 200 at 3 models
    python bench/bench_compare.py --quick    # compare_models only (no HTML)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from precmp_lib.compare.predictions import compare_models
from precmp_lib.report.render import render_report

N = 5_000
CASES = [(3, 2), (3, 10), (3, 200), (10, 10), (30, 10), (60, 10)]


def simulate(n_models: int, n_classes: int, n: int = N, seed: int = 0) -> pd.DataFrame:
    """Truth uniform over the classes; model j right with probability 0.6 + 0.3 j / n_models."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    frame = pd.DataFrame({"y": [f"class {c}" for c in y]})
    for j in range(n_models):
        right = rng.random(n) < 0.6 + 0.3 * j / n_models
        pred = np.where(right, y, rng.integers(0, n_classes, n))
        frame[f"model_{j:02d}"] = [f"class {c}" for c in pred]
    return frame


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for m, k in CASES:
            frame = simulate(m, k)
            start = time.perf_counter()
            cmp = compare_models(frame, y_true="y")
            compare_s = time.perf_counter() - start
            render_s, size = float("nan"), float("nan")
            if not quick:
                start = time.perf_counter()
                out = render_report(cmp, Path(tmp) / f"r_{m}_{k}.html", quiet=True,
                                    source_name=f"simulated_{m}x{k}.csv")
                render_s = time.perf_counter() - start
                size = out.stat().st_size / 1e6
            rows.append({"models": m, "classes": k, "pairs": len(cmp.pairs),
                         "compare_s": compare_s, "render_s": render_s,
                         "total_s": compare_s + (0 if quick else render_s), "page_MB": size})
    table = pd.DataFrame(rows)
    table["ratio"] = table["total_s"] / table["total_s"].iloc[0]
    table["compare_ms_per_pair"] = 1000 * table["compare_s"] / table["pairs"]
    print(f"compare_models + render_report, one test set of {N:,} observations")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    per_pair = table.set_index("models")["compare_ms_per_pair"]
    growth = per_pair[60] / per_pair[30]
    print(f"\ncompare_models per pair, 60 models against 30: {growth:.2f}   goal <= 2.00  "
          f"{'met' if growth <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main(sys.argv[1:])
