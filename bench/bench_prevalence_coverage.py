"""Coverage of the interval for precision at a population prevalence.

For a test set with n1 observations of the class and n0 of the others, TP ~ Bin(n1, Se) and
FP ~ Bin(n0, FPR) are independent, and precision at prevalence pi is
``Se pi / (Se pi + FPR (1 - pi))``. The coverage of an interval is the sum, over every
outcome (TP, FP), of its probability times [the interval holds the true precision]: exact, no
simulation noise. The outcome TP = FP = 0 (the model never predicts the class, precision
undefined) is left out and the rest renormalised.

Prints, over a grid that includes false-positive rates of 0 and 0.001 (no false positives is
then the likeliest outcome), the coverage of :func:`precmp_lib.stats.prevalence.prevalence_interval`
(Wilson bounds on Se and FPR at 1 - alpha/2 each) and of the same construction with
Clopper-Pearson bounds, and a Monte Carlo estimate for the percentile bootstrap of the
resampled counts, which the report used before (a few cells: it needs resamples per outcome).

Run: ``python bench/bench_prevalence_coverage.py`` (about a minute; ``--quick`` for a small
grid in seconds).
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
from scipy import stats

from precmp_lib.stats.prevalence import prevalence_adjusted_precision, prevalence_interval

GRID = {"n1": [10, 40, 200], "n0": [40, 188, 1000], "se": [0.3, 0.7, 0.95, 1.0],
        "fpr": [0.0, 0.001, 0.005, 0.02, 0.1], "pi": [0.02, 0.1, 0.3]}
QUICK = {"n1": [10, 40], "n0": [40, 188], "se": [0.7, 1.0], "fpr": [0.0, 0.001, 0.02],
         "pi": [0.02, 0.3]}


def clopper_pearson_interval(tp, n1, fp, n0, pi, level):
    """The same corners with Clopper-Pearson bounds on Se and FPR (each at 1 - alpha/2)."""
    a = (1 - level) / 2
    se_lo = np.where(tp > 0, stats.beta.ppf(a / 2, tp, n1 - tp + 1), 0.0)
    se_hi = np.where(tp < n1, stats.beta.ppf(1 - a / 2, tp + 1, n1 - tp), 1.0)
    f_lo = np.where(fp > 0, stats.beta.ppf(a / 2, fp, n0 - fp + 1), 0.0)
    f_hi = np.where(fp < n0, stats.beta.ppf(1 - a / 2, fp + 1, n0 - fp), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = se_lo * pi / (se_lo * pi + f_hi * (1 - pi))
        high = se_hi * pi / (se_hi * pi + f_lo * (1 - pi))
    return np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0)


def wilson_interval(tp, n1, fp, n0, pi, level):
    """:func:`precmp_lib.stats.prevalence.prevalence_interval`, the report's interval."""
    return prevalence_interval(tp, n1, fp, n0, pi, confidence_level=level)


METHODS = {"Wilson, Bonferroni (report)": wilson_interval,
           "Clopper-Pearson, Bonferroni": clopper_pearson_interval}


def coverage(method, n1: int, n0: int, se: float, fpr: float, pi: float,
             level: float = 0.95) -> tuple[float, float]:
    """Exact coverage and mean width of ``method`` in one design."""
    tp = np.arange(n1 + 1)[:, None]
    fp = np.arange(n0 + 1)[None, :]
    prob = stats.binom.pmf(tp, n1, se) * stats.binom.pmf(fp, n0, fpr)
    prob = prob * ((tp > 0) | (fp > 0))
    prob = prob / prob.sum()
    low, high = np.broadcast_arrays(*method(tp, n1, fp, n0, pi, level))
    truth = float(prevalence_adjusted_precision(se, 1 - fpr, pi))
    held = (np.nan_to_num(low, nan=2.0) <= truth + 1e-12) & (truth <= np.nan_to_num(high) + 1e-12)
    return float((prob * held).sum()), float(np.nansum(prob * (high - low)))


def bootstrap_coverage(n1: int, n0: int, se: float, fpr: float, pi: float, *, level: float = 0.95,
                       sims: int = 400, resamples: int = 300, seed: int = 0) -> float:
    """Monte Carlo coverage of the percentile bootstrap of the resampled counts."""
    rng = np.random.default_rng(seed)
    truth = float(prevalence_adjusted_precision(se, 1 - fpr, pi))
    held = done = 0
    n = n1 + n0
    for _ in range(sims):
        tp, fp = rng.binomial(n1, se), rng.binomial(n0, fpr)
        if tp == 0 and fp == 0:
            continue
        draws = rng.multinomial(n, np.array([tp, n1 - tp, fp, n0 - fp]) / n, size=resamples)
        s = draws[:, 0] / np.maximum(draws[:, 0] + draws[:, 1], 1)
        f = draws[:, 2] / np.maximum(draws[:, 2] + draws[:, 3], 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = s * pi / (s * pi + f * (1 - pi))
        v = v[np.isfinite(v)]
        low, high = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
        held += low - 1e-12 <= truth <= high + 1e-12
        done += 1
    return held / done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small grid")
    args = parser.parse_args()
    grid = QUICK if args.quick else GRID
    cells = [dict(zip(grid, values)) for values in itertools.product(*grid.values())]
    print(f"{len(cells)} designs: " + "; ".join(f"{k} in {v}" for k, v in grid.items()))
    print(f"{'interval (nominal 95 %)':30} {'min':>6} {'5 %-ile':>8} {'mean':>6} "
          f"{'>= 93 %':>8} {'width':>6}")
    for name, method in METHODS.items():
        cov, width = np.array([coverage(method, **c) for c in cells]).T
        print(f"{name:30} {cov.min():6.3f} {np.quantile(cov, .05):8.3f} {cov.mean():6.3f} "
              f"{np.mean(cov >= .93):8.1%} {width.mean():6.3f}")
    print("percentile bootstrap (Monte Carlo, 400 data sets x 300 resamples):")
    for cell in [(40, 188, .7, .001, .02), (40, 188, .7, .005, .1), (200, 1000, .95, .001, .02),
                 (10, 40, .7, .02, .1)]:
        print(f"  n1, n0, Se, FPR, pi = {cell}: {bootstrap_coverage(*cell):.3f}")


if __name__ == "__main__":
    main()
