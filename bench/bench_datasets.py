"""Speed of the data-set route: `precmp report results.csv` on 1000 data sets x 50 models.

Prints one table, every row timed in the same run on the same wide table (scores on a grid of
1e-4, so data sets hold ties), each as a ratio against ``scipy.stats.friedmanchisquare`` on that
table in this process:

- ``compare_datasets``: the whole comparison in this process (read the CSV through DuckDB,
  ranks, Friedman, Iman–Davenport, Nemenyi, the 1,225 pairs' Wilcoxon tests with Holm, sign
  tests, effect sizes; the Bayesian matrix is over its budget at this size and skipped);
- ``precmp report``: the command in a fresh process, page, JSON and CD diagram (SVG, PDF)
  written — the wall time a user waits, with the peak memory of its process tree.

The ranks themselves are cheap; the ratio says how much the rest of the page costs over the
one omnibus test. Run: ``python bench/bench_datasets.py`` (``make bench``); ``--repeat 3``
timing repeats of the in-process rows (best of).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import GIB, best_of, run_tree
from scipy import stats

import precmp_lib as pc

N_DATASETS, N_MODELS = 1000, 50


def table(n: int = N_DATASETS, k: int = N_MODELS, seed: int = 0) -> pd.DataFrame:
    """A wide results table: each data set's difficulty, each model's edge, noise."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.6, 0.95, (n, 1))
    scores = np.round(base + rng.normal(0, 0.02, (n, k)) + np.linspace(0.02, -0.02, k), 4)
    frame = pd.DataFrame(scores, columns=[f"m{j:02d}" for j in range(k)])
    frame.insert(0, "dataset", [f"d{i:04d}" for i in range(n)])
    return frame


def main(repeat: int) -> None:
    frame = table()
    scores = frame.drop(columns="dataset").to_numpy()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "results.csv"
        frame.to_csv(path, index=False)
        cmp = pc.compare_datasets(path)
        ref = stats.friedmanchisquare(*scores.T)
        assert np.isclose(cmp.omnibus["statistic"].iloc[0], ref.statistic, rtol=1e-9)
        t_scipy = best_of(lambda: stats.friedmanchisquare(*scores.T), repeat)
        t_cmp = best_of(lambda: pc.compare_datasets(path), repeat)
        command = [sys.executable, "-m", "precmp_lib", "report", str(path), "--out",
                   str(Path(tmp) / "report.html"), "--json", str(Path(tmp) / "c.json"),
                   "--quiet"]
        t_cli, peak = run_tree(command, Path(tmp))
    print(f"{N_DATASETS} data sets x {N_MODELS} models "
          f"({N_MODELS * (N_MODELS - 1) // 2} pairs)")
    print(f"{'':28} {'seconds':>9} {'ratio to scipy Friedman':>24}")
    print(f"{'scipy friedmanchisquare':28} {t_scipy:>9.4f} {1.0:>24.0f}")
    print(f"{'compare_datasets':28} {t_cmp:>9.2f} {t_cmp / t_scipy:>24.0f}")
    print(f"{'precmp report (process)':28} {t_cli:>9.2f} {t_cli / t_scipy:>24.0f}"
          f"   peak RSS {peak / GIB:.2f} GiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    main(parser.parse_args().repeat)
