"""Coverage of the accuracy-difference interval the report shows beside McNemar's decision.

On one test set of n observations each is discordant in A's favour with probability p10, in
B's with p01, so (b, c, rest) is multinomial and the accuracy difference is p10 - p01. The
interval beside a Holm decision must hold 0 exactly when McNemar's exact (or mid-p) test does
not reject; two constructions do:

conditional
    the Clopper–Pearson (mid-p) interval of pi = b / (b + c) mapped by (b + c)/n (2 pi - 1),
    the discordant share taken as known;
report
    the range of psi (2 pi - 1) over that interval of pi and the Clopper–Pearson interval of
    psi = (b + c)/n, both at the same level (``compare.predictions._mcnemar_dual_interval``).

Newcombe's hybrid score interval (method 10), which does not invert the test, is shown for
comparison. Prints the Monte Carlo coverage at nominal 95 % (draws with b + c = 0 left out: the
interval is not estimable there).

Run: ``python bench/bench_mcnemar_interval_coverage.py`` (about three minutes; ``--quick`` for a
small grid in seconds).
"""

from __future__ import annotations

import argparse

import numpy as np

from precmp_lib.compare.predictions import _mcnemar_dual_interval
from precmp_lib.stats.contingency import _accuracy_difference_ci

GRID = [(0.05, 0.05), (0.08, 0.04), (0.12, 0.03), (0.2, 0.02), (0.02, 0.0), (0.3, 0.0)]


def _conditional(b: int, c: int, n: int, level: float, midp: bool) -> tuple[float, float]:
    """The interval of pi mapped with the discordant share taken as known."""
    from precmp_lib.compare.predictions import _binomial_interval

    d = b + c
    low, high = _binomial_interval(b, d, level, 0.5 if midp else 1.0)
    return d / n * (2 * low - 1), d / n * (2 * high - 1)


def coverage(n: int, p10: float, p01: float, reps: int, seed: int = 1) -> dict[str, float]:
    """Monte Carlo coverage of each interval at nominal 95 % for one cell of the grid."""
    rng = np.random.default_rng(seed)
    delta = p10 - p01
    hits = dict.fromkeys(["conditional exact", "conditional mid-p", "report exact",
                          "report mid-p", "Newcombe"], 0)
    used = 0
    for b, c, rest in rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps):
        if b + c == 0:
            continue
        used += 1
        for midp, name in ((False, "exact"), (True, "mid-p")):
            lo, hi = _conditional(int(b), int(c), n, 0.95, midp)
            hits[f"conditional {name}"] += lo <= delta <= hi
            lo, hi = _mcnemar_dual_interval(int(b), int(c), n, 0.95, midp)
            hits[f"report {name}"] += lo <= delta <= hi
        lo, hi = _accuracy_difference_ci(rest, b, c, 0, 0.95)
        hits["Newcombe"] += lo <= delta <= hi
    return {k: v / used for k, v in hits.items()}


def main() -> None:
    """Print the coverage table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 100 only, 300 draws")
    args = parser.parse_args()
    sizes, reps = ((100,), 300) if args.quick else ((50, 100, 500), 1000)
    print("| n | p10 | p01 | conditional exact | conditional mid-p | report exact | report mid-p "
          "| Newcombe |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for p10, p01 in GRID:
            cov = coverage(n, p10, p01, reps)
            print(f"| {n} | {p10} | {p01} | " + " | ".join(f"{v:.3f}" for v in cov.values()) + " |")


if __name__ == "__main__":
    main()
