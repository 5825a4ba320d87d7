"""Speed of the rank tests against their peers: Friedman against scipy, Nemenyi against scikit-posthocs.

Prints one table, every row timed in the same run on the same N x k score matrix (uniform
scores rounded to 2 decimals, so rows hold ties):

- ``friedman`` / ``scipy.stats.friedmanchisquare`` (both tie-corrected; the statistics are
  checked equal);
- ``nemenyi`` / ``scikit_posthocs.posthoc_nemenyi_friedman`` (the p-value matrices are checked
  equal). ``nemenyi`` also returns the critical difference, whose studentized-range quantile is
  computed once per (k, alpha) and kept: the "cold" column clears that cache before every call.

A ratio below 1 means precmp is faster. Run: ``python bench/bench_ranks.py`` (``make bench``);
``--repeat 7`` timing repeats (best of).
"""

from __future__ import annotations

import argparse

import numpy as np
import scikit_posthocs as sp
from _timing import best_of
from scipy import stats

import precmp_lib as pc
from precmp_lib.stats import posthoc as ranks

SHAPES = [(14, 4), (30, 10), (100, 50), (100, 200)]



def main(repeat: int) -> None:
    print(f"{'N x k':>10} {'friedman ms':>12} {'scipy ms':>9} {'ratio':>6} "
          f"{'nemenyi ms':>11} {'cold ms':>8} {'posthocs ms':>12} {'ratio':>6} {'cold':>6}")
    for n, k in SHAPES:
        scores = np.random.default_rng(n * k).random((n, k)).round(2)
        ours, theirs = pc.friedman(scores), stats.friedmanchisquare(*scores.T)
        assert np.isclose(ours.statistic, theirs.statistic, rtol=1e-12)
        np.testing.assert_allclose(pc.nemenyi(scores).pvalues.to_numpy(),
                                   sp.posthoc_nemenyi_friedman(scores).to_numpy(), rtol=1e-12)
        t_f = best_of(lambda s=scores: pc.friedman(s), repeat)
        t_scipy = best_of(lambda s=scores: stats.friedmanchisquare(*s.T), repeat)
        t_n = best_of(lambda s=scores: pc.nemenyi(s), repeat)
        t_cold = best_of(lambda s=scores: pc.nemenyi(s), repeat, before=ranks._q_alpha.cache_clear)
        t_sp = best_of(lambda s=scores: sp.posthoc_nemenyi_friedman(s), repeat)
        print(f"{f'{n} x {k}':>10} {t_f * 1e3:>12.2f} {t_scipy * 1e3:>9.2f} {t_f / t_scipy:>6.2f} "
              f"{t_n * 1e3:>11.2f} {t_cold * 1e3:>8.2f} {t_sp * 1e3:>12.2f} {t_n / t_sp:>6.2f} "
              f"{t_cold / t_sp:>6.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing repeats (best of)")
    main(parser.parse_args().repeat)
