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
one omnibus test.

A second table times the hierarchical Bayesian model across data sets (``compare_datasets(...,
hierarchical=True)``, NumPyro, the optional extra requirements-bayes.txt; skipped without it)
on 20 data sets x 5 models (10 pairs) with per-fold scores of 10-fold cross-validation, once
and three times repeated, against baycomp 1.0.3's ``HierarchicalTest`` (pystan, 4 chains of
10,000 draws) on 20 x 5: ``BAYCOMP_SECONDS``, the 265 s it takes there; on this file's
10-fold x 1 case, with pystan 3.10.0 on a loaded 2-core machine, it took 661 s of wall time and
gave ``BAYCOMP_PROBS``. pystan is no dependency of this project, so it is not run here; the
ratio is therefore not measured in one run, and is given on our CPU time. Run: ``python bench/bench_datasets.py`` (``make bench``); ``--repeat 3``
timing repeats of the in-process rows (best of).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import GIB, best_of, run_tree
from scipy import stats

import precmp_lib as pc

N_DATASETS, N_MODELS = 1000, 50
# baycomp 1.0.3 HierarchicalTest (pystan) on 20 x 5, 10 pairs
BAYCOMP_SECONDS = 265.0
# its probabilities (P(first better), P(rope), P(second better)) on fold_table()'s 10-fold x 1
# case, rope 0.01, 4 chains x 10,000 draws (pystan 3.10.0, Python 3.11; 661 s of wall time on
# the loaded 2-core machine it ran on), pairs in the order of combinations(m0..m4, 2)
BAYCOMP_PROBS = {
    ("m0", "m1"): (0.26365, 0.730125, 0.006225), ("m0", "m2"): (0.901775, 0.09815, 7.5e-05),
    ("m0", "m3"): (1.0, 0.0, 0.0), ("m0", "m4"): (1.0, 0.0, 0.0),
    ("m1", "m2"): (0.321, 0.674425, 0.004575), ("m1", "m3"): (0.999075, 0.000925, 0.0),
    ("m1", "m4"): (1.0, 0.0, 0.0), ("m2", "m3"): (0.958475, 0.041525, 0.0),
    ("m2", "m4"): (0.999425, 0.000575, 0.0), ("m3", "m4"): (0.3766, 0.60385, 0.01955)}


def table(n: int = N_DATASETS, k: int = N_MODELS, seed: int = 0) -> pd.DataFrame:
    """A wide results table: each data set's difficulty, each model's edge, noise."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.6, 0.95, (n, 1))
    scores = np.round(base + rng.normal(0, 0.02, (n, k)) + np.linspace(0.02, -0.02, k), 4)
    frame = pd.DataFrame(scores, columns=[f"m{j:02d}" for j in range(k)])
    frame.insert(0, "dataset", [f"d{i:04d}" for i in range(n)])
    return frame


def fold_table(n: int = 20, k: int = 5, folds: int = 10, repeats: int = 1,
               seed: int = 0) -> pd.DataFrame:
    """A long per-fold results table: dataset, model, repeat, fold, score."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.6, 0.95, (n, 1, 1))
    edge = np.linspace(0.02, -0.02, k)[None, :, None] + rng.normal(0, 0.01, (n, k, 1))
    scores = base + edge + rng.normal(0, 0.02, (n, k, repeats * folds))
    rows = [{"dataset": f"d{i:02d}", "model": f"m{j}", "repeat": r // folds,
             "fold": r % folds, "score": round(float(scores[i, j, r]), 4)}
            for i in range(n) for j in range(k) for r in range(repeats * folds)]
    return pd.DataFrame(rows)


def hierarchical() -> None:
    """Time the hierarchical model on 20 x 5 (10 pairs) against baycomp's figure."""
    try:
        import numpyro  # noqa: F401
    except ImportError:
        print("hierarchical model: skipped (pip install -r requirements-bayes.txt)")
        return
    print("hierarchical Bayesian model, 20 data sets x 5 models (10 pairs), first call "
          "(compiling) and a second call")
    print("(seconds of wall time and of this process's CPU time; the ratio is on CPU time, "
          "the fair one on a shared machine)")
    print(f"{'':28} {'seconds':>9} {'cpu s':>7} {'baycomp / ours':>15} {'max R-hat':>10} "
          f"{'min ESS':>8} {'max |P - baycomp|':>18}")
    print(f"{'baycomp HierarchicalTest':28} {BAYCOMP_SECONDS:>9.1f} {'':>7} {1.0:>15.1f}")
    for repeats in (1, 3):
        frame = fold_table(repeats=repeats)
        for call in ("first", "second"):
            start, cpu = time.perf_counter(), time.process_time()
            cmp = pc.compare_datasets(frame, hierarchical=True)
            took, cpu = time.perf_counter() - start, time.process_time() - cpu
            h = cmp.hierarchical
            gap = ""
            if repeats == 1:
                ours = {tuple(sorted((r.model_a, r.model_b))): (
                    (r.p_a_better, r.p_rope, r.p_b_better) if r.model_a < r.model_b
                    else (r.p_b_better, r.p_rope, r.p_a_better)) for r in h.itertuples()}
                gap = f"{max(np.max(np.abs(np.subtract(ours[k], v))) for k, v in BAYCOMP_PROBS.items()):.3f}"
            print(f"{f'ours 10-fold x {repeats}, {call}':28} {took:>9.1f} {cpu:>7.1f} "
                  f"{BAYCOMP_SECONDS / cpu:>15.1f} {h['rhat_max'].max():>10.3f} "
                  f"{h['ess_min'].min():>8.0f} {gap:>18}")


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
    hierarchical()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    main(parser.parse_args().repeat)
