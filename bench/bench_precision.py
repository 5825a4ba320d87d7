"""Speed of the closed-form precision tests against a bincount floor and statsmodels GEE.

Prints three tables:

1. ``compare_precision`` (all classes, GS / WGS / GW / RP) against one ``np.bincount`` pass
   over the same arrays (combined code of truth and both predictions: the memory-bound floor
   of any method that reads every row), for N = 1e4 ... 1e7 rows (1e8 when memory allows).
2. ``gw_test`` against statsmodels GEE (Binomial, independence, robust covariance) fitted to
   the stacked positive predictions, with the Wald statistics of both, where the fit finishes
   within a minute.
3. ``gee_precision`` with 5 classifiers and 10 classes.

Run: ``python bench/bench_precision.py`` (``make bench``). Options: ``--max-n 1e6`` to stop
early, ``--repeat 3`` timing repeats (best of).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from functools import partial

import numpy as np
from _timing import best_of

import precmp_lib as pc

K = 10



def available_bytes() -> float:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))


def labels(n: int, k: int, accuracy: float, rng: np.random.Generator, y: np.ndarray) -> np.ndarray:
    wrong = rng.integers(0, k, n)
    return np.where(rng.random(n) < accuracy, y, wrong)


def floor(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One bincount of the combined code: the joint K x K x K counts in plain numpy."""
    return np.bincount((y * K + a) * K + b, minlength=K**3)


def table_compare(max_n: float, repeat: int) -> None:
    print("\n1. compare_precision vs one np.bincount pass (K = 10 classes, int64 labels)\n")
    print(f"{'N':>12} {'compare_precision s':>20} {'bincount s':>12} {'ratio':>8}")
    sizes = [10**4, 10**5, 10**6, 10**7, 10**8]
    for n in sizes:
        if n > max_n:
            break
        if n >= 10**8 and available_bytes() < 12 * 8 * n:
            print(f"{n:>12.0e}   skipped: needs about {12 * 8 * n / 2**30:.0f} GiB of free memory")
            continue
        rng = np.random.default_rng(n)
        y = rng.integers(0, K, n)
        a = labels(n, K, 0.80, rng, y)
        b = labels(n, K, 0.85, rng, y)
        r = repeat if n < 10**8 else 1
        t_cp = best_of(partial(pc.compare_precision, y, a, b), r)
        t_bc = best_of(partial(floor, y, a, b), r)
        print(f"{n:>12.0e} {t_cp:>20.4f} {t_bc:>12.4f} {t_cp / t_bc:>8.2f}")


def statsmodels_wald(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    from statsmodels.genmod import families
    from statsmodels.genmod.cov_struct import Independence
    from statsmodels.genmod.generalized_estimating_equations import GEE

    ids = np.arange(len(y))
    ra, rb = ids[a == 1], ids[b == 1]
    rows = np.concatenate([ra, rb])
    endog = y[rows].astype(float)
    f = np.concatenate([np.ones(len(ra)), np.zeros(len(rb))])
    exog = np.column_stack([np.ones(len(rows)), f])
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = GEE(endog, exog, groups=rows, family=families.Binomial(),
                  cov_struct=Independence()).fit()
    elapsed = time.perf_counter() - start
    beta, var = float(fit.params[1]), float(fit.cov_params()[1, 1])
    return elapsed, beta**2 / var


def table_gee_two(max_n: float, repeat: int) -> None:
    print("\n2. gw_test vs statsmodels GEE fit (binary labels, positive = 1)\n")
    print(f"{'N':>10} {'gw_test s':>11} {'statsmodels s':>14} {'ratio':>9} "
          f"{'Wald (closed form)':>19} {'Wald (statsmodels)':>19} {'rel. diff':>10}")
    last = None
    for n in (10**4, 10**5, 10**6):
        if n > max_n:
            break
        if last is not None and last * (n / (n // 10)) > 60:
            print(f"{n:>10.0e}   statsmodels skipped: the fit would take about "
                  f"{last * 10:.0f} s (> 1 min)")
            continue
        rng = np.random.default_rng(n + 1)
        y = rng.integers(0, 2, n)
        a = labels(n, 2, 0.80, rng, y)
        b = labels(n, 2, 0.82, rng, y)
        t_gw = best_of(partial(pc.gw_test, y, a, b), repeat)
        res = pc.gw_test(y, a, b)
        t_sm, wald = statsmodels_wald(y, a, b)
        last = t_sm
        rel = abs(res.statistic - wald) / abs(wald)
        print(f"{n:>10.0e} {t_gw:>11.5f} {t_sm:>14.3f} {t_sm / t_gw:>9.0f} "
              f"{res.statistic:>19.10f} {wald:>19.10f} {rel:>10.1e}")


def table_gee_many(max_n: float, repeat: int) -> None:
    print("\n3. gee_precision, 5 classifiers x 10 classes\n")
    print(f"{'N':>10} {'gee_precision s':>16}")
    for n in (10**5, 10**6, 10**7):
        if n > max_n:
            break
        rng = np.random.default_rng(n + 2)
        y = rng.integers(0, K, n)
        preds = {f"m{j}": labels(n, K, acc, rng, y)
                 for j, acc in enumerate((0.70, 0.75, 0.80, 0.85, 0.90))}
        r = repeat if n < 10**7 else 1
        t = best_of(partial(pc.gee_precision, y, preds), r)
        print(f"{n:>10.0e} {t:>16.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=float, default=1e8, help="largest N to run")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    args = parser.parse_args()
    print("precision benchmarks (wall clock, best of", args.repeat, "runs)")
    table_compare(args.max_n, args.repeat)
    table_gee_two(args.max_n, args.repeat)
    table_gee_many(args.max_n, args.repeat)


if __name__ == "__main__":
    main()
