"""Confidence intervals of a proportion and of a paired difference of accuracies.

One home for the intervals the tests and the comparisons share: Wilson's score interval of a
proportion (:func:`wilson_interval`), the exact (Clopper–Pearson) and mid-p intervals of a
binomial proportion, found by bisection of their tails (:func:`binomial_interval`), and the
interval of ``acc_A - acc_B`` dual to McNemar's exact or mid-p test
(:func:`mcnemar_dual_interval`), which holds 0 exactly when the test does not reject.

Examples
--------
40 discordant pairs of 10,000 observations, 25 won by model A (Raschka's scenario B):

>>> lo, hi = wilson_interval(25, 40)
>>> round(lo, 4), round(hi, 4)
(0.4703, 0.7578)
>>> lo, hi = binomial_interval(25, 40)
>>> round(lo, 4), round(hi, 4)
(0.458, 0.7727)
>>> lo, hi = mcnemar_dual_interval(25, 15, 10_000)
>>> round(lo, 6), round(hi, 6)
(-0.000457, 0.002969)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lib.checks import check_choice, check_counts, check_positive_int, check_probability
from .._lib.dist import binom_cdf, binom_pmf, norm_isf

__all__ = ["binomial_interval", "mcnemar_dual_interval", "wilson_interval"]

#: The binomial intervals :func:`binomial_interval` and :func:`mcnemar_dual_interval` know:
#: Clopper–Pearson (``"exact"``) and mid-p (``"midp"``), named as McNemar's test names them.
INTERVAL_METHODS = ("exact", "midp")


def _wilson(x: Any, n: Any, z: float) -> tuple[Any, Any]:
    """Return Wilson's score interval of ``x`` of ``n`` with critical value ``z`` (NaN for n = 0).

    The one formula every caller uses; ``x`` and ``n`` may be arrays and fractional (effective
    sample sizes). The ends are clipped to [0, 1], where rounding can leave them a hair outside.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def wilson_interval(successes: npt.ArrayLike, trials: npt.ArrayLike, *,
                    confidence_level: float = 0.95) -> tuple[Any, Any]:
    """Return Wilson's score interval of a proportion.

    Parameters
    ----------
    successes : float or array-like
        Successes, at least 0; fractional counts are taken as effective sample sizes.
    trials : float or array-like
        Trials, at least ``successes`` (broadcast against it); 0 gives NaN ends.
    confidence_level : float
        In (0, 1).

    Returns
    -------
    (low, high)
        Floats for scalar input, else arrays of the broadcast shape; within [0, 1].

    Notes
    -----
    With ``p = x / n`` and ``z = z_{(1 + level) / 2}``, the ends are
    ``(p + z²/2n ± z sqrt(p (1 - p) / n + z²/4n²)) / (1 + z²/n)`` (Wilson 1927): the
    proportions whose score test does not reject at ``1 - level``. Unlike the Wald interval
    it stays inside [0, 1] and has width at 0 and n successes.

    References
    ----------
    Wilson (1927), JASA 22:209-212. Newcombe (1998), Stat Med 17:857-872.

    Examples
    --------
    A model right on 87 of 100 items (statsmodels' ``proportion_confint(87, 100,
    method="wilson")`` is (0.79020, 0.92243)):

    >>> lo, hi = wilson_interval(87, 100)
    >>> round(lo, 5), round(hi, 5)
    (0.7902, 0.92243)

    Right on all of them: the interval still has width.

    >>> lo, hi = wilson_interval(100, 100)
    >>> round(lo, 4), hi
    (0.963, 1.0)
    """
    level = check_probability(confidence_level, "confidence_level")
    x = check_counts(successes, "successes", integer=False)
    n = check_counts(trials, "trials", integer=False)
    try:
        over = x > n
    except ValueError:
        raise ValueError(f"successes and trials must broadcast together; got shapes {x.shape} "
                         f"and {n.shape}") from None
    if np.any(over):
        raise ValueError("successes must be at most trials; got "
                         f"{np.broadcast_to(x, over.shape)[over].ravel()[0]:g} of "
                         f"{np.broadcast_to(n, over.shape)[over].ravel()[0]:g}")
    low, high = _wilson(x, n, float(norm_isf((1 - level) / 2)))
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def _binom_tail_root(tail: Callable[[float], float], target: float) -> float:
    """Return the success probability in [0, 1] where the monotone ``tail`` equals ``target``."""
    lo, hi = 0.0, 1.0
    rising = tail(1.0) > tail(0.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        if (tail(mid) < target) == rising:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _binomial_interval(x: int, n: int, level: float, w: float) -> tuple[float, float]:
    """Return the central interval of x / n at ``level`` by its tails (see binomial_interval)."""
    half = (1 - level) / 2

    def upper_tail(p: float) -> float:  # P(X > x) + w P(X = x), rising in p
        return 1 - binom_cdf(x, n, p) + w * binom_pmf(x, n, p)

    def lower_tail(p: float) -> float:  # P(X < x) + w P(X = x), falling in p
        return (binom_cdf(x - 1, n, p) if x > 0 else 0.0) + w * binom_pmf(x, n, p)

    low = 0.0 if upper_tail(0.0) >= half else _binom_tail_root(upper_tail, half)
    high = 1.0 if lower_tail(1.0) >= half else _binom_tail_root(lower_tail, half)
    return low, high


def _successes(successes: Any, trials: Any) -> tuple[int, int]:
    x = check_positive_int(successes, "successes", minimum=0)
    n = check_positive_int(trials, "trials", minimum=1)
    if x > n:
        raise ValueError(f"successes must be at most trials; got {x} of {n}")
    return x, n


def binomial_interval(successes: int, trials: int, *, confidence_level: float = 0.95,
                      method: str = "exact") -> tuple[float, float]:
    """Return the exact (Clopper–Pearson) or mid-p interval of a binomial proportion.

    Parameters
    ----------
    successes : int
        Successes ``x``, 0 <= x <= ``trials``.
    trials : int
        Trials ``n``, at least 1.
    confidence_level : float
        In (0, 1).
    method : {"exact", "midp"}
        Clopper–Pearson, or the mid-p interval (half the probability of ``x`` itself in each
        tail: narrower, and closer to the nominal coverage on average).

    Returns
    -------
    (low, high)

    Notes
    -----
    Each end is where a tail ``P(X beyond x) + w P(X = x)`` of the binomial reaches
    ``(1 - level) / 2``, with ``w = 1`` (exact) or ``w = 1/2`` (mid-p): the lower end on the
    upper tail, the upper end on the lower tail, each found by 60 bisections of [0, 1]. An end
    is 0 (or 1) when the tail already reaches the target there, as at ``x = 0`` (``x = n``).
    The exact interval equals ``scipy.stats.binomtest(x, n).proportion_ci(level, "exact")``.

    References
    ----------
    Clopper & Pearson (1934), Biometrika 26:404-413. Lancaster (1961), JASA 56:223-234
    (mid-p).

    Examples
    --------
    25 of 40 (scipy's exact interval is (0.45801, 0.77274)):

    >>> lo, hi = binomial_interval(25, 40)
    >>> round(lo, 5), round(hi, 5)
    (0.45801, 0.77274)
    >>> lo, hi = binomial_interval(25, 40, method="midp")
    >>> round(lo, 4), round(hi, 4)
    (0.4686, 0.7639)
    >>> binomial_interval(0, 40)[0]
    0.0
    """
    x, n = _successes(successes, trials)
    level = check_probability(confidence_level, "confidence_level")
    check_choice(method, "method", INTERVAL_METHODS)
    return _binomial_interval(x, n, level, 0.5 if method == "midp" else 1.0)


def mcnemar_dual_interval(b: int, c: int, n: int, *, confidence_level: float = 0.95,
                          method: str = "exact") -> tuple[float, float]:
    """Return the interval of acc_A - acc_B dual to McNemar's exact or mid-p test.

    It holds 0 exactly when the test at ``1 - confidence_level`` does not reject.

    Parameters
    ----------
    b, c : int
        Observations only model A gets right, and only model B.
    n : int
        Observations in all, at least ``b + c`` and 1.
    confidence_level : float
        In (0, 1).
    method : {"exact", "midp"}
        McNemar's exact test (Clopper–Pearson interval of the share A wins) or its mid-p form.

    Returns
    -------
    (low, high)
        NaN ends when ``b + c = 0`` (no discordant observation).

    Notes
    -----
    The difference is ``psi (2 pi - 1)``: ``psi`` the share of discordant observations
    (``d = b + c`` of ``n``), ``pi`` the share of those that A gets right (``b`` of ``d``). Given
    ``d``, McNemar's exact test is the binomial test of ``pi = 1/2``, and the Clopper–Pearson
    interval of ``pi`` (mid-p: the mid-p interval) holds 1/2 exactly when its p-value is at
    least ``1 - level``. The interval of the difference is the range of ``psi (2 pi - 1)`` over
    that interval of ``pi`` and the Clopper–Pearson interval of ``psi``, both at ``level``
    (:func:`binomial_interval`); since the lower end of ``psi`` is above 0 when ``d > 0``, the
    sign of each end is that of ``2 pi - 1``, so the interval holds 0 exactly when the test does
    not reject. Letting ``psi`` vary is what keeps the coverage: conditioning on ``d`` alone
    covers as little as 23 % at nominal 95 % when the difference is far from 0, this interval
    at least 96 % (docs/methods.md §2, ``bench/bench_mcnemar_interval_coverage.py``).

    Examples
    --------
    Raschka's scenario B (b = 25, c = 15, n = 10,000; exact p = 0.154): the interval holds 0.
    scipy's ``binomtest(25, 40).proportion_ci(0.95, "exact")`` is (0.45801, 0.77274) and
    ``binomtest(40, 10000).proportion_ci(0.95, "exact")`` (0.0028592, 0.0054429): the ends are
    ``0.0054429 (2 (0.45801) - 1)`` and ``0.0054429 (2 (0.77274) - 1)``.

    >>> lo, hi = mcnemar_dual_interval(25, 15, 10_000)
    >>> round(lo, 6), round(hi, 6)
    (-0.000457, 0.002969)

    With 40 to 15 the exact test rejects (p = 0.001), and the interval leaves out 0:

    >>> lo, hi = mcnemar_dual_interval(40, 15, 10_000)
    >>> lo > 0
    True
    """
    b = check_positive_int(b, "b", minimum=0)
    c = check_positive_int(c, "c", minimum=0)
    n = check_positive_int(n, "n", minimum=1)
    if b + c > n:
        raise ValueError(f"n must be at least b + c; got n = {n}, b + c = {b + c}")
    level = check_probability(confidence_level, "confidence_level")
    check_choice(method, "method", INTERVAL_METHODS)
    d = b + c
    if d == 0:
        return np.nan, np.nan
    pi_low, pi_high = _binomial_interval(b, d, level, 0.5 if method == "midp" else 1.0)
    psi_low, psi_high = _binomial_interval(d, n, level, 1.0)
    ends = [psi * (2 * pi - 1) for pi in (pi_low, pi_high) for psi in (psi_low, psi_high)]
    return min(ends), max(ends)
