"""Distribution tails for the counting tests, and scipy.stats loaded on first use.

Importing :mod:`scipy.stats` takes most of a second, more than counting ten million
predictions, while a comparison needs only a few tails: of the normal, chi-square and binomial
distributions on one test set, and of Student's t and F for cross-validation. The functions here evaluate those tails with the very
:mod:`scipy.special` functions that ``scipy.stats`` itself calls for them, so the values are the
same bits. Modules write ``from ._dist import stats``: a stand-in that imports ``scipy.stats``
when one of its attributes is first read, so everything else keeps calling ``stats.<name>``.

>>> round(float(chi2_sf(3.841458820694124, 1)), 12)  # at the 5 % point of chi-square(1)
0.05
>>> float(norm_isf(0.025))
1.959963984540054
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

__all__ = [
    "binom_cdf",
    "binom_logpmf",
    "binom_pmf",
    "chi2_isf",
    "chi2_sf",
    "f_sf",
    "norm_isf",
    "norm_logsf",
    "norm_pdf",
    "norm_sf",
    "stats",
    "t_cdf",
    "t_isf",
    "t_ppf",
    "t_sf",
]

_SQRT_2PI = np.sqrt(2 * np.pi)

# scipy.stats.binom evaluates Boost's binomial through these ufuncs of scipy.special; where a
# scipy release does not have them, the tails are read through scipy.stats itself.
_BOOST_BINOM = getattr(special, "_ufuncs", None)


class _LazyModule:
    """A module imported when one of its attributes is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


stats: Any = _LazyModule("scipy.stats")


def chi2_sf(x: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Return P(X > x) for X chi-square with ``df`` degrees of freedom (``stats.chi2.sf``)."""
    return special.chdtrc(df, np.maximum(x, 0))


def chi2_isf(q: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Return the x with P(X > x) = q for X chi-square with ``df`` degrees of freedom (``stats.chi2.isf``)."""
    inner = special.chdtri(df, np.clip(np.asarray(q, dtype=float), np.nextafter(0, 1), 1.0))
    return _in_unit(q, inner, ends=(np.inf, 0.0))


def norm_sf(x: npt.ArrayLike) -> Any:
    """Return P(Z > x) for a standard normal Z (``stats.norm.sf``)."""
    return special.ndtr(np.negative(x))


def norm_isf(q: npt.ArrayLike) -> Any:
    """Return the z with P(Z > z) = q for a standard normal Z (``stats.norm.isf``)."""
    return np.negative(special.ndtri(q))


def norm_logsf(x: npt.ArrayLike) -> Any:
    """Return log P(Z > x) for a standard normal Z (``stats.norm.logsf``).

    scipy's ``log_ndtr``, accurate far into the upper tail, where the probability itself
    underflows.

    >>> round(float(norm_logsf(50.0)), 4)
    -1254.8314
    """
    return special.log_ndtr(np.negative(x))


def norm_pdf(x: npt.ArrayLike) -> Any:
    """Return the standard normal density at ``x`` (``stats.norm.pdf``)."""
    x = np.asarray(x, dtype=float)
    return np.exp(-(x**2) / 2.0) / _SQRT_2PI


def t_sf(x: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Return P(T > x) for T Student t with ``df`` degrees of freedom (``stats.t.sf``).

    >>> round(float(t_sf(2.2621571627409915, 9)), 12)  # the 97.5 % point of t(9)
    0.025
    """
    return special.stdtr(df, np.negative(x))


def t_cdf(x: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Return P(T <= x) for T Student t with ``df`` degrees of freedom (``stats.t.cdf``)."""
    return special.stdtr(df, x)


def t_isf(q: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Return the x with P(T > x) = q for T Student t with ``df`` degrees of freedom (``stats.t.isf``)."""
    return _in_unit(q, np.negative(special.stdtrit(df, q)), ends=(np.inf, -np.inf))


def t_ppf(q: npt.ArrayLike, df: npt.ArrayLike) -> Any:
    """Return the x with P(T <= x) = q for T Student t with ``df`` degrees of freedom (``stats.t.ppf``)."""
    return _in_unit(q, special.stdtrit(df, q), ends=(-np.inf, np.inf))


def f_sf(x: npt.ArrayLike, dfn: npt.ArrayLike, dfd: npt.ArrayLike) -> Any:
    """Return P(F > x) for F with ``dfn`` and ``dfd`` degrees of freedom (``stats.f.sf``).

    >>> round(float(f_sf(4.735063069693101, 10, 5)), 12)  # the 95 % point of F(10, 5)
    0.05
    """
    x = np.asarray(x, dtype=float)
    out = np.where(x <= 0, 1.0, special.fdtrc(dfn, dfd, np.maximum(x, 0)))
    return out[()] if out.ndim == 0 else out


def _in_unit(q: npt.ArrayLike, values: Any, ends: tuple[float, float]) -> Any:
    """Quantiles with scipy.stats' ends: ``ends`` at q = 0 and q = 1, NaN outside [0, 1]."""
    q = np.asarray(q, dtype=float)
    out = np.where(q == 0, ends[0], np.where(q == 1, ends[1], values))
    out = np.where((q < 0) | (q > 1) | np.isnan(q), np.nan, out)
    return out[()] if out.ndim == 0 else out


def binom_cdf(k: int, n: int, p: float) -> float:
    """Return P(X <= k) for X binomial(n, p), with whole 0 <= k <= n (``stats.binom.cdf``).

    >>> binom_cdf(2, 10, 0.5) == float(stats.binom.cdf(2, 10, 0.5))
    True
    """
    if _BOOST_BINOM is None or not hasattr(_BOOST_BINOM, "_binom_cdf"):
        return float(stats.binom.cdf(k, n, p))
    return float(_BOOST_BINOM._binom_cdf(float(k), float(n), float(p)))


def binom_logpmf(k: int, n: int, p: float) -> float:
    """Return log P(X = k) for X binomial(n, p), with whole 0 <= k <= n (``stats.binom.logpmf``).

    >>> binom_logpmf(2, 10, 0.5) == float(stats.binom.logpmf(2, 10, 0.5))
    True
    """
    combiln = special.gammaln(n + 1) - (special.gammaln(k + 1) + special.gammaln(n - k + 1))
    return float(combiln + special.xlogy(k, p) + special.xlog1py(n - k, -p))


def binom_pmf(k: int, n: int, p: float) -> float:
    """Return P(X = k) for X binomial(n, p), with whole 0 <= k <= n (``stats.binom.pmf``).

    >>> binom_pmf(2, 10, 0.5) == float(stats.binom.pmf(2, 10, 0.5))
    True
    """
    if _BOOST_BINOM is None or not hasattr(_BOOST_BINOM, "_binom_pmf"):
        return float(stats.binom.pmf(k, n, p))
    return float(_BOOST_BINOM._binom_pmf(float(k), float(n), float(p)))
