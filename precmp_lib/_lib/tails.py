"""Logarithms of tail probabilities that stay finite where the probability itself underflows.

scipy's ``chi2.logsf`` and ``binom.logcdf`` return ``-inf`` once the probability drops below
the smallest double (about 5e-324), so a McNemar test on 5000 discordant pairs or Fisher's
combination of two p-values near 1e-300 would report ``log p = -inf``. The functions here
switch to log-space formulas when the ordinary value is below ``UNDERFLOW`` and agree with
``log(scipy value)`` above it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .dist import binom_cdf, chi2_sf, norm_logsf

__all__ = ["UNDERFLOW", "binom_half_logcdf", "chi2_logsf"]

UNDERFLOW = 1e-300  # below this a p-value is reported with a note and its logarithm

_LOG2 = math.log(2.0)


def _log_upper_gamma_cf(a: float, x: float) -> float:
    """``log Q(a, x)`` for ``x > a + 1`` from Legendre's continued fraction (modified Lentz).

    ``Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) /
    (x + 5 - a - ...)))``; the prefactor is taken in logs, the fraction is of moderate size.
    """
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return -x + a * math.log(x) - math.lgamma(a) + math.log(h)


def chi2_logsf(x: float, df: float) -> float:
    """``log P(chi2_df > x)``, finite where ``chi2.sf`` underflows to 0.

    Parameters
    ----------
    x : float
        The statistic (``inf`` gives ``-inf``).
    df : float
        Degrees of freedom, > 0 (need not be an integer).

    Returns
    -------
    float
        The natural logarithm of the upper-tail probability (NaN for a NaN ``x``).

    Examples
    --------
    With 2 degrees of freedom ``P(chi2 > x) = exp(-x / 2)``:

    >>> chi2_logsf(3000.0, 2)
    -1500.0
    """
    x, df = float(x), float(df)
    if math.isnan(x):
        return math.nan
    if x == math.inf:
        return -math.inf
    p = float(chi2_sf(x, df))
    if p >= UNDERFLOW:
        return math.log(p)
    if df == 1.0:  # P(chi2_1 > x) = 2 P(N > sqrt(x))
        return _LOG2 + float(norm_logsf(math.sqrt(x)))
    a, half = df / 2.0, x / 2.0
    if half <= a + 1.0:  # not a tail; cannot underflow in practice
        return math.log(p) if p > 0 else -math.inf
    return _log_upper_gamma_cf(a, half)


def binom_half_logcdf(k: int, m: int) -> float:
    """``log P(Bin(m, 1/2) <= k)``, finite where ``binom.cdf`` underflows to 0.

    The terms ``P(Bin(m, 1/2) = j)`` for ``j <= k < m / 2`` shrink as j falls, so the sum is
    taken from ``j = k`` downwards in log space until the rest cannot change it.

    Parameters
    ----------
    k : int
        Largest count included.
    m : int
        Number of trials.

    Returns
    -------
    float
        The natural logarithm of the lower-tail probability.

    Examples
    --------
    ``P(Bin(m, 1/2) = 0) = 2^-m``:

    >>> round(binom_half_logcdf(0, 5000) / math.log(2), 9)
    -5000.0
    """
    k, m = int(k), int(m)
    if k < 0:
        return -math.inf
    if k >= m:
        return 0.0
    p = float(binom_cdf(k, m, 0.5))
    if p >= UNDERFLOW or 2 * k >= m:
        return math.log(p) if p > 0 else -math.inf
    total, hi = -math.inf, k
    log_norm = math.lgamma(m + 1) - m * _LOG2
    while hi >= 0:
        lo = max(0, hi - 4095)
        j = np.arange(hi, lo - 1, -1, dtype=float)
        terms = log_norm - special.gammaln(j + 1) - special.gammaln(m - j + 1)
        total = float(np.logaddexp(total, special.logsumexp(terms)))
        if terms[-1] < total - 50.0:  # every later term is smaller still
            break
        hi = lo - 1
    return total
