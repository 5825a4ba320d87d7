"""Combining p-values into one global test, and adjusting them for multiplicity.

Per-class precision tests of two classifiers on one test set share observations, so their
p-values are dependent. ``combine_pvalues`` offers Fisher, Stouffer (weighted; Strube's
correlated form), Lancaster, the Dai–Leeder–Cui modified generalised Fisher (covariance from
null p-values or from a known correlation), Brown / Kost–McDermott and Simes.
``swap_permutation_null`` draws the classifier-swap permutation null of every per-class GS
p-value on counts, and ``combined_precision_test`` runs the whole global test from predictions.
``adjust_pvalues`` (Holm, Bonferroni, Benjamini–Hochberg; defined in ``multiple``) is
re-exported here for class-wise decisions after a global test.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.aliases import RandomStateLike
from .._lib.checks import (
    as_unit_interval,
    check_bool,
    check_choice,
    check_choices,
    check_counts,
    check_positive_int,
    check_random_state,
)
from .._lib.dist import chi2_isf, chi2_sf, norm_isf, norm_logsf, norm_sf, stats
from .._lib.tails import chi2_logsf
from ..core import counts as _counts
from . import precision_cells as _precision
from .multiple import adjust_pvalues
from .results import TestResult

__all__ = [
    "COMBINED_PRECISION_METHODS",
    "COMBINE_METHODS",
    "SwapPermutationNull",
    "adjust_pvalues",
    "combine_pvalue_rows",
    "combine_pvalues",
    "combined_precision_table",
    "combined_precision_test",
    "lancaster_covariance",
    "swap_permutation_null",
]


COMBINE_METHODS = ("fisher", "stouffer", "lancaster", "dai_cui", "brown", "simes")
#: The methods :func:`combined_precision_test` offers for per-class GS p-values.
COMBINED_PRECISION_METHODS = ("dai_cui", "brown", "fisher", "lancaster", "simes")

_SIDES = ("two-sided", "one-sided")
_APPROXIMATIONS = ("exact", "kost_mcdermott", "brown")
_DIAGONALS = ("theoretical", "empirical")
# Which optional argument each method uses.
_USES = {
    "weights": ("stouffer", "lancaster", "dai_cui"),
    "null_pvalues": ("dai_cui",),
    "correlation": ("stouffer", "dai_cui", "brown"),
    "diagonal": ("dai_cui",),
    "sides": ("dai_cui", "brown"),
    "approximation": ("brown",),
}
_TINY = np.finfo(float).tiny


# --------------------------------------------------------------------------------------------
# The covariance of two Lancaster terms when the tests come from correlated normal statistics
# --------------------------------------------------------------------------------------------

_N_HERMITE = 600  # terms of the Mehler series; the tail beyond is below 1e-4 for |rho| <= 0.99
_Z_MAX = 30.0  # the normal density is below 1e-195 beyond this


@cache
def _grid(sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss–Legendre nodes and weights times the density, for E[f(Z)], Z ~ N(0, 1).

    Two-sided transforms are even in z, so their expectations are taken over z >= 0 with
    density 2 phi(z); the first panels shrink geometrically towards 0, where the transform of
    a two-sided p-value is not smooth for weights other than 2.
    """
    x, w = np.polynomial.legendre.leggauss(16)
    if sides == "two-sided":
        edges = np.concatenate([[0.0], np.geomspace(1e-10, 0.5, 60),
                                np.linspace(0.5, _Z_MAX, 800)[1:]])
        density = 2.0
    else:  # symmetric, so that reversing the nodes maps z to -z
        edges = np.linspace(-_Z_MAX, _Z_MAX, 1601)
        density = 1.0
    lo, hi = edges[:-1, None], edges[1:, None]
    z = ((hi - lo) / 2 * x + (hi + lo) / 2).ravel()
    weight = ((hi - lo) / 2 * w).ravel() * density * stats.norm.pdf(z)
    z.flags.writeable = weight.flags.writeable = False
    return z, weight


@cache
def _transform(weight: float, sides: str) -> np.ndarray:
    """Evaluate the Lancaster term chi2.isf(p(z), w) on the quadrature nodes."""
    z, _ = _grid(sides)
    if weight == 2.0:  # exact in log space, also far in the tail
        log_p = stats.norm.logsf(z) + (math.log(2.0) if sides == "two-sided" else 0.0)
        g = -2.0 * log_p
    else:
        p = norm_sf(z) * (2.0 if sides == "two-sided" else 1.0)
        g = chi2_isf(p, weight)
    g.flags.writeable = False
    return g


@cache
def _hermite_coefficients(weight: float, sides: str) -> np.ndarray:
    """c_k = E[g(Z) He_k(Z)] / sqrt(k!) for k = 0..N, by the Hermite-function recurrence."""
    z, wq = _grid(sides)
    g = _transform(weight, sides)
    root = np.sqrt(stats.norm.pdf(z))
    safe = np.where(root > 0, root, 1.0)
    f = np.where(root > 0, g * wq / safe, 0.0)  # g * phi * dz / sqrt(phi)
    prev, cur = root, z * root  # psi_k = He_k / sqrt(k!) * sqrt(phi): bounded, no overflow
    coef = np.empty(_N_HERMITE + 1)
    coef[0], coef[1] = f @ prev, f @ cur
    for k in range(1, _N_HERMITE):
        prev, cur = cur, (z * cur - math.sqrt(k) * prev) / math.sqrt(k + 1)
        coef[k + 1] = f @ cur
    if sides == "two-sided":  # even transform: odd coefficients vanish
        coef[1::2] = 0.0
    coef.flags.writeable = False
    return coef


def lancaster_covariance(
    correlation: npt.ArrayLike, *, weights: tuple[float, float] = (2.0, 2.0), sides: str = "two-sided"
) -> float | np.ndarray:
    """Covariance of two Lancaster terms ``chi2.isf(p_i, w_i)`` from correlated normal tests.

    Parameters
    ----------
    correlation : float or array-like
        Correlation rho of the two normal test statistics, in [-1, 1].
    weights : pair of float
        The Lancaster weights (chi-square degrees of freedom) of the two terms; (2, 2) is
        Fisher's ``-2 ln p``.
    sides : {"two-sided", "one-sided"}
        How each p-value is obtained from its normal statistic Z: ``2 P(N > |Z|)`` (every
        chi-square(1) test, such as the GS test of precision) or ``P(N > Z)``.

    Returns
    -------
    float or ndarray
        The covariance, with the shape of ``correlation``.

    Notes
    -----
    With ``g_i(z)`` the transform of the statistic into the Lancaster term, Mehler's expansion
    of the bivariate normal density gives ``Cov = sum_k a_k(g_i) a_k(g_j) rho^k / k!`` with
    ``a_k(g) = E[g(Z) He_k(Z)]`` (probabilists' Hermite polynomials). The coefficients are
    computed once per weight by composite Gauss–Legendre quadrature and the series is summed to
    600 terms; at ``|rho| = 1`` the covariance is integrated directly. For one-sided Fisher terms
    the leading coefficients ``a_k^2 / k!`` are 3.26306, 0.70956, 0.02674, 0.00054: the
    Kost–McDermott polynomial ``3.263 rho + 0.710 rho^2 + 0.027 rho^3`` is this series cut
    short. Two-sided transforms are even, so only even powers appear (3.9068 rho^2 +
    0.0506 rho^4 + ...) and the covariance is never negative: using the one-sided polynomial for
    two-sided p-values is wrong (at rho = -0.3 it gives -0.92 instead of +0.35).

    References
    ----------
    Kost & McDermott (2002), Stat Probab Lett 60:183-190. Brown (1975), Biometrics
    31:987-992. Dai, Leeder & Cui (2014), Front Genet 5:32.

    Examples
    --------
    Two two-sided tests whose statistics correlate at 0.5 (docs/methods.md §8.4):

    >>> round(float(lancaster_covariance(0.5)), 4)
    0.9802
    >>> round(float(lancaster_covariance(0.5, sides="one-sided")), 4)
    1.8123

    Treating two-sided p-values as one-sided would almost double the assumed dependence.
    """
    check_choice(sides, "sides", _SIDES)
    if isinstance(correlation, str | bytes | bool) or np.asarray(correlation).dtype.kind == "b":
        raise ValueError(f"correlation must be a number or an array of numbers; got {correlation!r}")
    try:
        rho = np.asarray(correlation, dtype=float)
        w_i, w_j = (float(w) for w in weights)
    except (TypeError, ValueError):
        raise ValueError(f"correlation must be numbers in [-1, 1] and weights a pair of positive "
                         f"numbers; got {correlation!r:.60} and {weights!r:.60}") from None
    if np.isnan(rho).any() or np.any(np.abs(rho) > 1 + 1e-12):
        raise ValueError("correlation must lie in [-1, 1]")
    rho = np.clip(rho, -1.0, 1.0)
    if not (w_i > 0 and w_j > 0 and math.isfinite(w_i) and math.isfinite(w_j)):
        raise ValueError(f"weights must be positive and finite; got {weights!r}")
    c_i, c_j = _hermite_coefficients(w_i, sides), _hermite_coefficients(w_j, sides)
    k = np.arange(1, _N_HERMITE + 1)
    series = (c_i[1:] * c_j[1:] * np.power(rho[..., None], k)).sum(axis=-1)
    if np.any(np.abs(rho) == 1.0):
        _, wq = _grid(sides)
        g_i, g_j = _transform(w_i, sides), _transform(w_j, sides)
        at_one = float(np.sum(wq * g_i * g_j) - np.sum(wq * g_i) * np.sum(wq * g_j))
        mirrored = g_j if sides == "two-sided" else g_j[::-1]
        at_minus_one = float(np.sum(wq * g_i * mirrored) - np.sum(wq * g_i) * np.sum(wq * g_j))
        series = np.where(rho == 1.0, at_one, np.where(rho == -1.0, at_minus_one, series))
    return float(series) if series.ndim == 0 else series


def _approximate_covariance(rho: np.ndarray, approximation: str) -> np.ndarray:
    """One-sided Fisher covariance by the Kost–McDermott polynomial or Brown's piecewise fit."""
    if approximation == "kost_mcdermott":
        return 3.263 * rho + 0.710 * rho**2 + 0.027 * rho**3
    if np.any(rho < -0.5):
        raise ValueError(
            "approximation='brown' covers correlations in [-0.5, 1]; got "
            f"{float(rho.min()):.3g}; use approximation='exact'"
        )
    return np.where(rho >= 0, rho * (3.25 + 0.75 * rho), rho * (3.27 + 0.71 * rho))


# --------------------------------------------------------------------------------------------
# Vectorised building blocks (last axis = the p-values being combined)
# --------------------------------------------------------------------------------------------


def _lancaster_statistic(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return chi2_isf(p, w).sum(axis=-1)


def _satterthwaite(statistic: Any, expectation: float, variance: Any) -> tuple[Any, Any, Any]:
    """Scale T so that c T ~ chi2(nu) matches E(T) and Var(T): nu = 2E^2/Var, c = nu/E."""
    nu = 2.0 * expectation**2 / variance
    scaled = nu / expectation * statistic
    return scaled, nu, chi2_sf(scaled, nu)


def _simes(p: np.ndarray) -> np.ndarray:
    s = np.sort(p, axis=-1)
    L = p.shape[-1]
    return np.minimum(1.0, np.min(L * s / np.arange(1, L + 1), axis=-1))


def _stouffer_z(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return norm_isf(p)


def _null_covariance(null: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Covariance of the Lancaster terms of null p-values over resamples (axis -2).

    Rows with a NaN are dropped; null p-values of exactly 0 are floored at the smallest
    normal float so that their terms stay finite. Returns the sample covariance (..., L, L),
    ddof 1, and the number of rows used (...).
    """
    x = chi2_isf(np.maximum(null, _TINY), w)
    ok = np.all(np.isfinite(x), axis=-1)
    n_ok = ok.sum(axis=-1)
    x = np.where(ok[..., None], x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=-2) / n_ok[..., None]
        dev = np.where(ok[..., None], x - mean[..., None, :], 0.0)
        cov = np.einsum("...bi,...bj->...ij", dev, dev) / (n_ok - 1)[..., None, None]
    return cov, n_ok


def _pair_covariance(
    correlation: np.ndarray, w: np.ndarray, sides: str, approximation: str = "exact"
) -> np.ndarray:
    """Sum over i < j of Cov(term_i, term_j) from a known correlation matrix (..., L, L)."""
    L = w.shape[-1]
    total = np.zeros(correlation.shape[:-2])
    for i in range(L):
        for j in range(i + 1, L):
            rho = correlation[..., i, j]
            if approximation == "exact":
                cov = lancaster_covariance(rho, weights=(w[i], w[j]), sides=sides)
            else:
                cov = _approximate_covariance(np.asarray(rho, dtype=float), approximation)
            total = total + cov
    return total


def _check_correlation(correlation: Any, L: int) -> np.ndarray:
    if isinstance(correlation, pd.DataFrame):
        correlation = correlation.to_numpy()
    try:
        R = np.asarray(correlation, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("correlation must be a numeric L x L matrix") from None
    if R.shape != (L, L):
        raise ValueError(f"correlation must have shape ({L}, {L}) to match pvalues; got {R.shape}")
    if not np.all(np.isfinite(R)):
        raise ValueError("correlation must hold finite numbers")
    if not np.allclose(R, R.T, atol=1e-10):
        raise ValueError("correlation must be symmetric")
    if not np.allclose(np.diag(R), 1.0, atol=1e-10):
        raise ValueError("correlation must have ones on its diagonal")
    if np.any(np.abs(R) > 1 + 1e-12):
        raise ValueError("correlation entries must lie in [-1, 1]")
    if np.linalg.eigvalsh(R).min() < -1e-8:
        raise ValueError("correlation must be positive semi-definite")
    return np.clip(R, -1.0, 1.0)


def _check_weights(weights: Any, L: int) -> np.ndarray:
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be {L} positive numbers; got {weights!r}") from None
    if w.shape != (L,):
        raise ValueError(f"weights must have length {L} to match pvalues; got shape {w.shape}")
    if not np.all(np.isfinite(w) & (w > 0)):
        raise ValueError(f"weights must be positive and finite; got {w.tolist()}")
    return w


def _check_null(null_pvalues: Any, L: int) -> np.ndarray:
    if isinstance(null_pvalues, pd.DataFrame):
        null_pvalues = null_pvalues.to_numpy()
    try:
        null = np.asarray(null_pvalues, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("null_pvalues must be a numeric matrix of null p-values") from None
    if null.ndim != 2 or null.shape[1] != L:
        hint = " (one row per resample: transpose it?)" if null.ndim == 2 and null.shape[0] == L else ""
        raise ValueError(
            f"null_pvalues must have shape (n_resamples, {L}){hint}; got shape {null.shape}"
        )
    finite = null[~np.isnan(null)]
    if np.any((finite < 0) | (finite > 1)):
        raise ValueError("null_pvalues must lie in [0, 1] (NaN marks an undefined resample)")
    return null


# --------------------------------------------------------------------------------------------
# combine_pvalues
# --------------------------------------------------------------------------------------------


def combine_pvalue_rows(
    pvalues: npt.ArrayLike,
    *,
    method: str,
    correlation: npt.ArrayLike | None = None,
    sides: str = "two-sided",
) -> np.ndarray:
    """Combine each row of p-values whose normal statistics have a known correlation, at once.

    The vectorised form of :func:`combine_pvalues` for many families of L p-values that share
    one dependence structure (a simulation of the combinations' type-I error, for instance).
    Fisher's terms ``-2 ln p`` (Lancaster weights 2) are used throughout.

    Parameters
    ----------
    pvalues : array-like of shape (..., L)
        One family of L p-values per row (L >= 2).
    method : {"fisher", "stouffer", "lancaster", "dai_cui", "brown", "simes"}
        ``"fisher"`` and ``"lancaster"``: chi-square(2L), independence assumed. ``"simes"``.
        ``"stouffer"``: Strube's correlated Stouffer, ``sum z / sqrt(sum R)`` (right for
        one-sided p-values). ``"dai_cui"`` and ``"brown"``: the Fisher statistic scaled by
        Satterthwaite with the exact covariances of its terms under ``correlation``.
    correlation : array-like of shape (L, L), optional
        Correlation matrix of the normal statistics behind the p-values; the identity
        (independence) when omitted.
    sides : {"two-sided", "one-sided"}
        How the p-values were formed from the normal statistics (``2 P(N > |z|)`` or
        ``P(N > z)``); it sets the covariances of ``"dai_cui"`` and ``"brown"``.

    Returns
    -------
    ndarray of shape (...)
        The combined p-value of each row.

    Examples
    --------
    >>> p = np.array([[0.01, 0.02], [0.3, 0.6]])
    >>> combine_pvalue_rows(p, method="fisher").round(4).tolist()
    [0.0019, 0.4887]
    >>> r = [[1.0, 0.9], [0.9, 1.0]]
    >>> combine_pvalue_rows(p, method="dai_cui", correlation=r).round(4).tolist()
    [0.0113, 0.4341]

    Two small p-values from strongly correlated statistics are weaker evidence together than
    Fisher's method, which assumes independence, claims: 0.011 instead of 0.002.
    """
    check_choice(method, "method", COMBINE_METHODS)
    check_choice(sides, "sides", _SIDES)
    p = as_unit_interval(pvalues, "pvalues")
    if p.ndim < 1 or p.shape[-1] < 2:
        raise ValueError(f"pvalues must hold at least 2 p-values per row; got shape {p.shape}")
    L = p.shape[-1]
    R = np.eye(L) if correlation is None else _check_correlation(correlation, L)
    w = np.full(L, 2.0)
    if method in ("fisher", "lancaster"):
        return chi2_sf(_lancaster_statistic(p, w), 2.0 * L)
    if method == "simes":
        return _simes(p)
    if method == "stouffer":
        return norm_sf(_stouffer_z(p).sum(axis=-1) / math.sqrt(R.sum()))
    V = 4.0 * L + 2.0 * float(_pair_covariance(R, w, sides))
    return _satterthwaite(_lancaster_statistic(p, w), 2.0 * L, V)[2]


def combine_pvalues(
    pvalues: npt.ArrayLike,
    *,
    method: str,
    weights: npt.ArrayLike | None = None,
    null_pvalues: npt.ArrayLike | None = None,
    correlation: npt.ArrayLike | None = None,
    diagonal: str | None = None,
    sides: str | None = None,
    approximation: str | None = None,
    clip: tuple[float, float] | None = None,
) -> TestResult:
    """Combine L p-values into one p-value for the global null hypothesis.

    Parameters
    ----------
    pvalues : array-like of float, shape (L,)
        The p-values to combine, in [0, 1].
    method : {"fisher", "stouffer", "lancaster", "dai_cui", "brown", "simes"}
        ``"fisher"``: ``-2 sum ln p`` against chi-square(2L), independence assumed.
        ``"stouffer"``: ``sum w z / sqrt(w' R w)`` with ``z = Phi^-1(1 - p)``; R the identity or
        ``correlation`` (Strube 2003). ``"lancaster"``: ``sum chi2.isf(p_i, w_i)`` against
        chi-square(sum w), independence assumed. ``"dai_cui"``: the Lancaster statistic scaled by
        Satterthwaite's method with a variance that accounts for dependence, estimated from
        ``null_pvalues`` or computed from ``correlation`` (Dai, Leeder & Cui 2014).
        ``"brown"``: Fisher's statistic with the same scaling, covariances from ``correlation``
        (Brown 1975; Kost & McDermott 2002). ``"simes"``: ``min L p_(i) / i`` (Simes 1986).
    weights : array-like of float, shape (L,), optional
        Stouffer weights (default 1) or Lancaster / Dai–Cui weights, the chi-square degrees of
        freedom of each term (default 2, which is Fisher). Must be positive.
    null_pvalues : array-like, shape (B, L), optional
        ``"dai_cui"`` only: p-values of the same L tests on B resamples drawn under the null
        hypothesis (e.g. :func:`swap_permutation_null`), one row per resample. Rows holding a NaN
        are dropped; null p-values of 0 are floored at the smallest normal float.
    correlation : array-like, shape (L, L), optional
        Correlation of the normal statistics behind the p-values (``"stouffer"``, ``"dai_cui"``,
        ``"brown"``; required for ``"brown"``).
    diagonal : {"theoretical", "empirical"}, optional
        ``"dai_cui"`` with ``null_pvalues``: variances of the terms taken as ``2 w_i`` (the
        default, Gondara, eq. 25) or estimated from the null p-values with the covariances (the
        CombinePValue convention).
    sides : {"two-sided", "one-sided"}, optional
        ``"dai_cui"`` and ``"brown"`` with ``correlation``: whether each p-value is two-sided
        (default; every chi-square test) or one-sided. The covariance of the terms is a different
        function of the correlation in the two cases (see :func:`lancaster_covariance`).
    approximation : {"exact", "kost_mcdermott", "brown"}, optional
        ``"brown"`` only: exact covariances (default) or the one-sided polynomial of Kost &
        McDermott or Brown's piecewise fit (both require ``sides="one-sided"``).
    clip : pair of float, optional
        Clip the p-values (and null p-values) to ``[low, high]`` first;
        ``(1e-6, 1 - 1e-6)`` reproduces CombinePValue, but alters p-values below 1e-6.

    Returns
    -------
    TestResult
        ``statistic`` is the quantity referred to the null distribution: T (Fisher, Lancaster),
        the scaled ``c T`` (Dai–Cui, Brown), Z (Stouffer) or the Simes p-value; ``df`` its
        chi-square degrees of freedom (None for Stouffer and Simes); ``n`` the number of
        p-values. ``details`` holds, as they apply, ``statistic_unscaled`` (T),
        ``expectation`` and ``variance`` of T, ``scale`` c, ``n_null`` (resamples used) and
        ``n_null_dropped``, and ``term_correlation`` (the sample correlation of the terms over the
        null p-values). ``log_pvalue`` is the natural log of the combined p-value.

    Notes
    -----
    Lancaster: ``T = sum_i chi2.isf(p_i, w_i)``, ``E(T) = sum w_i``. Dai–Cui / Brown
    (Gondara, eq. 22–26, with the second ``w_i`` of eq 26 read as ``w_j``)::

        Var(T) = 2 sum_i w_i + 2 sum_{i<j} Cov(chi2.isf(p_i, w_i), chi2.isf(p_j, w_j))
        nu = 2 E(T)^2 / Var(T),   c = nu / E(T),   p = P(chi2_nu > c T)

    With ``null_pvalues`` the covariances are the sample covariances (ddof 1) of the transformed
    null p-values; with ``correlation`` they are exact functions of rho (Mehler series). Brown's
    method is the case w = 2. Ignoring positive dependence makes Fisher, Lancaster and Stouffer
    anti-conservative (p-values too small); ignoring negative dependence makes them conservative.
    Simes is valid under independence and positive regression dependence (Sarkar & Chang 1997).

    Edge cases: one p-value is returned unchanged. A p-value of 0 makes the Fisher-type
    statistics infinite and the combined p-value 0 (``log_pvalue`` -inf); a p-value of 1 adds
    0. Stouffer takes a p-value of 1 as ``1 - 2^-53`` (z = -8.21, with a note), so its sum stays
    finite; with a 0 among the p-values it is +inf and the combined p-value 0, as for Fisher.
    An estimated ``Var(T) <= 0`` raises. A combined p-value below 1e-300 underflows; the
    result then carries a note and ``log_pvalue``, computed in log space from the statistic
    (chi-square or normal upper tail), which stays finite.

    References
    ----------
    Fisher (1932), Statistical Methods for Research Workers. Lancaster (1961), Aust J Stat 3:
    1-12. Stouffer et al. (1949), The American Soldier. Strube (1985), Psychol Bull 97:334-341.
    Brown (1975), Biometrics 31:987-992. Kost & McDermott (2002), Stat Probab Lett 60:183-190.
    Dai, Leeder & Cui (2014), Front Genet 5:32. Simes (1986), Biometrika 73:751-754.

    Examples
    --------
    Four independent tests (docs/methods.md §8, worked example 1):

    >>> p = [0.01, 0.02, 0.3, 0.5]
    >>> round(combine_pvalues(p, method="fisher").pvalue, 7)
    0.0076169
    >>> round(combine_pvalues(p, method="simes").pvalue, 3)
    0.04

    Two per-class tests whose statistics correlate at 0.8 carry less evidence than Fisher's
    independence assumption claims (docs/methods.md §8, worked example 2):

    >>> r = combine_pvalues([0.0002, 0.07], method="brown", correlation=[[1, 0.8], [0.8, 1]])
    >>> round(r.pvalue, 5), round(combine_pvalues([0.0002, 0.07], method="fisher").pvalue, 5)
    (0.00185, 0.00017)

    Overwhelming evidence underflows double precision; its logarithm does not:

    >>> tiny = combine_pvalues([1e-320, 1e-300], method="fisher")
    >>> tiny.pvalue, round(tiny.log_pvalue, 2)
    (0.0, -1420.34)
    """
    check_choice(method, "method", COMBINE_METHODS)
    p = as_unit_interval(pvalues, "pvalues", ndim=1)
    opts = _combine_options(method, p.size, weights=weights, null_pvalues=null_pvalues,
                            correlation=correlation, diagonal=diagonal, sides=sides,
                            approximation=approximation)
    if clip is not None:
        lo, hi = _check_clip(clip)
        p = np.clip(p, lo, hi)
        if opts.null is not None:
            opts = dataclasses.replace(opts, null=np.clip(opts.null, lo, hi))
    notes: list[str] = []
    if method == "stouffer" and np.any(p == 1.0):
        p = np.minimum(p, _BELOW_ONE)
        notes.append("p-values of 1 taken as 1 - 2^-53 (z = -8.21) so that Stouffer's sum "
                     "stays finite")
    if np.any(p == 0) and method != "simes":
        notes.append("a p-value of 0 makes the combined p-value 0")
    name = _combine_name(method, opts)
    L = p.size
    if L == 1:
        stat, df = _single_statistic(method, p, opts.w)
        notes.append("one p-value: returned unchanged")
        return TestResult(statistic=stat, pvalue=float(p[0]), df=df, method=name, n=1,
                          log_pvalue=_log(float(p[0])), note="; ".join(notes))
    stat, df, pval, log_p, details = _COMBINERS[method](p, opts)
    return TestResult(
        statistic=stat, pvalue=min(1.0, max(0.0, pval)), df=df, method=name, n=L,
        alternative="greater" if method == "stouffer" else "two-sided",
        note="; ".join(notes), details=details, log_pvalue=min(0.0, log_p),
    )


@dataclass(frozen=True)
class _CombineOptions:
    """The checked optional arguments of ``combine_pvalues``."""

    w: np.ndarray | None
    null: np.ndarray | None
    R: np.ndarray | None
    diagonal: str | None
    sides: str
    approximation: str


def _combine_options(method: str, L: int, **given: Any) -> _CombineOptions:
    """Check which optional arguments ``method`` uses and validate them."""
    for arg, value in given.items():
        if value is not None and method not in _USES[arg]:
            users = ", ".join(repr(m) for m in _USES[arg])
            raise ValueError(f"{arg} is not used by method {method!r} (only by {users})")
    diagonal = given["diagonal"]
    if diagonal is not None:
        check_choice(diagonal, "diagonal", _DIAGONALS)
        if given["null_pvalues"] is None:
            raise ValueError("diagonal applies only with null_pvalues")
    sides = check_choice(given["sides"] or "two-sided", "sides", _SIDES)
    approximation = check_choice(given["approximation"] or "exact", "approximation",
                                 _APPROXIMATIONS)
    if method == "dai_cui" and given["null_pvalues"] is not None and given["correlation"] is not None:
        raise ValueError("pass null_pvalues or correlation, not both")
    if method == "brown" and given["correlation"] is None:
        raise ValueError(
            "method 'brown' needs correlation (the correlation of the tests' statistics); "
            "with null p-values use method='dai_cui'"
        )
    if approximation != "exact" and sides != "one-sided":
        raise ValueError(
            f"approximation={approximation!r} holds for one-sided p-values only; "
            "two-sided p-values need approximation='exact'"
        )
    weights = given["weights"]
    w = None
    if method in ("lancaster", "dai_cui", "brown"):
        w = np.full(L, 2.0) if weights is None else _check_weights(weights, L)
    elif method == "stouffer":
        w = np.ones(L) if weights is None else _check_weights(weights, L)
    null = _check_null(given["null_pvalues"], L) if given["null_pvalues"] is not None else None
    R = _check_correlation(given["correlation"], L) if given["correlation"] is not None else None
    return _CombineOptions(w=w, null=null, R=R, diagonal=diagonal, sides=sides,
                           approximation=approximation)


def _check_clip(clip: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(c) for c in clip)
    except (TypeError, ValueError):
        raise ValueError(f"clip must be a pair (low, high) of numbers; got {clip!r}") from None
    if not 0 <= lo < hi <= 1:
        raise ValueError(f"clip must be (low, high) with 0 <= low < high <= 1; got {clip!r}")
    return lo, hi


def _combine_name(method: str, opts: _CombineOptions) -> str:
    if method == "stouffer":
        return "Stouffer" + (" (Strube, correlated)" if opts.R is not None else " (independence)")
    if method == "brown":
        return f"Brown ({opts.approximation} {opts.sides} covariances)"
    if method != "dai_cui":
        return {"fisher": "Fisher (independence)", "lancaster": "Lancaster (independence)",
                "simes": "Simes"}[method]
    name = "Dai–Cui modified generalised Fisher"
    if opts.null is not None:
        return name + f" (covariance from null p-values, {opts.diagonal or 'theoretical'} diagonal)"
    if opts.R is not None:
        return name + f" (covariance from correlation, {opts.sides})"
    return name + " (no dependence information: independence)"


def _log(p: float) -> float:
    return math.log(p) if p > 0 else -math.inf


def _single_statistic(method: str, p: np.ndarray, w: np.ndarray | None) -> tuple[float, Any]:
    """Return the statistic of one p-value unchanged."""
    if method == "stouffer":
        return float(_stouffer_z(p)[0]), None
    if method == "simes":
        return float(p[0]), None
    weight = 2.0 if w is None else float(w[0])
    return float(_lancaster_statistic(p, np.array([weight]))), weight


# Each combiner returns (statistic, df, p-value, log p-value, details).
_Combined = tuple[float, Any, float, float, dict[str, Any]]


def _fisher(p: np.ndarray, opts: _CombineOptions) -> _Combined:
    with np.errstate(divide="ignore"):
        stat = float(-2.0 * np.sum(np.log(p)))  # exact in logs, also for subnormal p-values
    df = 2.0 * p.size
    return stat, df, float(chi2_sf(stat, df)), chi2_logsf(stat, df), {}


def _lancaster(p: np.ndarray, opts: _CombineOptions) -> _Combined:
    assert opts.w is not None  # _combine_options sets weights for every weighted method
    stat = float(_lancaster_statistic(p, opts.w))
    df = float(opts.w.sum())
    return stat, df, float(chi2_sf(stat, df)), chi2_logsf(stat, df), {}


def _simes_combined(p: np.ndarray, opts: _CombineOptions) -> _Combined:
    pval = float(_simes(p))
    L = p.size
    with np.errstate(divide="ignore"):
        logs = math.log(L) + np.log(np.sort(p)) - np.log(np.arange(1, L + 1))
    return pval, None, pval, min(0.0, float(logs.min())), {}


def _stouffer(p: np.ndarray, opts: _CombineOptions) -> _Combined:
    L, w = p.size, opts.w
    assert w is not None  # _combine_options sets weights for every weighted method
    z = _stouffer_z(p)
    spread = float(w @ (np.eye(L) if opts.R is None else opts.R) @ w)
    if spread <= 0:
        raise ValueError(f"w' R w = {spread:.3g} <= 0: the weighted sum has no variance")
    stat = float(np.sum(w * z) / math.sqrt(spread))
    return stat, None, float(norm_sf(stat)), float(norm_logsf(stat)), {"variance": spread}


def _satterthwaite_combined(p: np.ndarray, opts: _CombineOptions) -> _Combined:
    """Dai–Cui and Brown: the Lancaster statistic scaled by Satterthwaite's method."""
    w, null = opts.w, opts.null
    assert w is not None  # _combine_options sets weights for every weighted method
    T = float(_lancaster_statistic(p, w))
    E = float(w.sum())
    details: dict[str, Any] = {}
    if null is not None:
        cov, rows_ok = _null_covariance(null, w)
        n_ok = int(rows_ok)
        if n_ok < 2:
            raise ValueError(f"null_pvalues has {n_ok} complete rows; at least 2 are needed")
        sd = np.sqrt(np.diag(cov))
        with np.errstate(invalid="ignore", divide="ignore"):
            details["term_correlation"] = cov / np.outer(sd, sd)
        if (opts.diagonal or "theoretical") == "theoretical":
            cov = cov.copy()
            np.fill_diagonal(cov, 2.0 * w)
        V = float(cov.sum())
        details.update(n_null=n_ok, n_null_dropped=int(null.shape[0] - n_ok))
    elif opts.R is not None:
        V = 2.0 * E + 2.0 * float(_pair_covariance(opts.R, w, opts.sides, opts.approximation))
    else:
        V = 2.0 * E
    if not V > 0:
        raise ValueError(
            f"the estimated Var(T) = {V:.4g} is not positive; the null p-values do not "
            "look null (bootstrap p-values are not: use permutation p-values)"
        )
    stat, df, pval = (float(v) for v in _satterthwaite(T, E, V))
    details.update(statistic_unscaled=T, expectation=E, variance=V, scale=df / E)
    return stat, df, pval, chi2_logsf(stat, df), details


_COMBINERS = {
    "fisher": _fisher,
    "lancaster": _lancaster,
    "simes": _simes_combined,
    "stouffer": _stouffer,
    "dai_cui": _satterthwaite_combined,
    "brown": _satterthwaite_combined,
}
_BELOW_ONE = float(np.nextafter(1.0, 0.0))


# --------------------------------------------------------------------------------------------
# The classifier-swap permutation null of per-class precision tests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwapPermutationNull:
    """Per-class GS statistics and p-values on classifier-swap permutations of a test set.

    Attributes
    ----------
    pvalues : ndarray of shape (..., B, K)
        GS p-value of each class on each resample (NaN where a precision is undefined).
    statistics : ndarray of shape (..., B, K)
        The GS chi-square statistics.
    z : ndarray of shape (..., B, K)
        Signed root of the statistic: ``sign(P_a - P_b) * sqrt(statistic)``.
    n_resamples : int
        B.
    """

    pvalues: np.ndarray
    statistics: np.ndarray
    z: np.ndarray
    n_resamples: int


def _as_joint_table(table: Any, name: str = "table") -> np.ndarray:
    arr = check_counts(table, name)
    if arr.ndim < 3 or not arr.shape[-1] == arr.shape[-2] == arr.shape[-3]:
        raise ValueError(
            f"{name} must have shape (..., K, K, K) indexed [true class, A's prediction, "
            f"B's prediction]; got shape {arr.shape}"
        )
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} must cover at least 2 classes; got {arr.shape[-1]}")
    return arr.astype(np.int64)


def _cell_precisions(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Precision of A and B from per-class cells n[d][a][b] (NaN when never predicted)."""
    m_a = cells[..., :, 1, :].sum(axis=(-2, -1))
    m_b = cells[..., :, :, 1].sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return cells[..., 1, 1, :].sum(axis=-1) / m_a, cells[..., 1, :, 1].sum(axis=-1) / m_b


def swap_permutation_null(
    table: npt.ArrayLike,
    *,
    n_resamples: int = 1000,
    weighted: bool = False,
    random_state: RandomStateLike = None,
) -> SwapPermutationNull:
    """Per-class GS p-values under the classifier-swap permutation null, drawn on counts.

    Parameters
    ----------
    table : array-like of int, shape (..., K, K, K)
        Joint confusion counts indexed [true class, A's prediction, B's prediction], as
        ``precmp_lib.core.counts.joint_confusion(...).table``; leading axes hold several test sets.
    n_resamples : int
        Number of permutations B.
    weighted : bool
        Use Kosinski's weighted GS statistic instead of the GS statistic.
    random_state : None, int or numpy Generator
        Seed or generator for the binomial draws.

    Returns
    -------
    SwapPermutationNull
        ``pvalues``, ``statistics`` and signed ``z`` of shape (..., B, K).

    Notes
    -----
    Under H0 (the two classifiers perform alike) their predictions are exchangeable within
    each observation, so swapping them with probability 1/2 per observation draws from the
    null (docs/methods.md §8.6). A swap moves an observation from joint cell (y, a, b) to (y, b, a);
    with ``m = n[y,a,b] + n[y,b,a]`` observations in an unordered pair of cells (a != b), the
    permuted count of (y, a, b) is Binomial(m, 1/2) and the rest go to (y, b, a). Cells with
    a = b do not move. So B permutations of any number of observations cost
    ``B * K * K(K-1)/2`` binomial draws, and all per-class p-values come from
    ``precmp_lib.core.counts.class_cells`` and ``precmp_lib.stats.precision_cells.gs_from_cells`` vectorised
    over the (B, K, K, K) tables.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351 (GS test). Dai, Leeder & Cui
    (2014), Front Genet 5:32 (combining with permutation p-values).

    Examples
    --------
    Gondara's diabetic retinopathy test set (docs/methods.md §6.6(d)) as a 2-class joint table:

    >>> t = np.zeros((2, 2, 2), dtype=int)
    >>> t[0] = [[103, 45], [6, 11]]   # true class 0: rows A's prediction, columns B's
    >>> t[1] = [[63, 64], [1, 53]]    # true class 1
    >>> null = swap_permutation_null(t, n_resamples=2000, random_state=1)
    >>> null.pvalues.shape
    (2000, 2)
    >>> bool(0.55 < np.corrcoef(np.log(null.pvalues), rowvar=False)[0, 1] < 0.9)
    True

    The two per-class tests are strongly positively dependent under the null: a combination
    that assumes independence would overstate the evidence.
    """
    weighted = check_bool(weighted, "weighted")
    t = _as_joint_table(table)
    B = check_positive_int(n_resamples, "n_resamples")
    rng = check_random_state(random_state)
    K = t.shape[-1]
    lower, upper = np.triu_indices(K, 1)
    total = t[..., lower, upper] + t[..., upper, lower]  # (..., K, K(K-1)/2)
    moved = rng.binomial(total, 0.5, size=(B, *total.shape))
    tables = np.broadcast_to(t, (B, *t.shape)).copy()
    tables[..., lower, upper] = moved
    tables[..., upper, lower] = total - moved
    tables = np.moveaxis(tables, 0, -4)  # (..., B, K, K, K)
    cells = np.asarray(_counts.class_cells(tables))
    gs = _precision.gs_from_cells(cells, weighted=weighted)
    stat, pval = np.asarray(gs.statistic, dtype=float), np.asarray(gs.pvalue, dtype=float)
    p_a, p_b = _cell_precisions(cells)
    z = np.sign(p_a - p_b) * np.sqrt(stat)
    return SwapPermutationNull(pvalues=pval, statistics=stat, z=z, n_resamples=B)


# --------------------------------------------------------------------------------------------
# The global test of equal per-class precision
# --------------------------------------------------------------------------------------------

def _class_summary(table: np.ndarray, weighted: bool) -> dict[str, np.ndarray]:
    cells = np.asarray(_counts.class_cells(table))
    gs = _precision.gs_from_cells(cells, weighted=weighted)
    p_a, p_b = _cell_precisions(cells)
    m_a = cells[:, :, 1, :].sum(axis=(-2, -1))
    m_b = cells[:, :, :, 1].sum(axis=(-2, -1))
    discordant = cells[:, :, 1, 0].sum(axis=-1) + cells[:, :, 0, 1].sum(axis=-1)
    return {"statistic": np.asarray(gs.statistic, dtype=float),
            "pvalue": np.asarray(gs.pvalue, dtype=float), "precision_a": p_a, "precision_b": p_b, "n_pred_a": m_a, "n_pred_b": m_b,
            "discordant": discordant}


def _combined_method_name(method: str, weighted: bool, diagonal: str | None) -> str:
    """Name the combination of per-class GS p-values that ``method`` computes."""
    gs = "weighted GS" if weighted else "GS"
    return {
        "dai_cui": f"Dai–Cui combination of per-class {gs} p-values "
                   f"(swap-permutation covariance, {diagonal or 'theoretical'} diagonal)",
        "brown": f"Brown combination of per-class {gs} p-values "
                 "(swap-permutation correlation, exact two-sided covariances)",
        "fisher": f"Fisher combination of per-class {gs} p-values (independence assumed)",
        "lancaster": f"Lancaster combination of per-class {gs} p-values (independence assumed)",
        "simes": f"Simes combination of per-class {gs} p-values",
    }[method]


def _kept_classes(
    summary: dict[str, np.ndarray], label: list[Any]
) -> tuple[np.ndarray, list[str]]:
    """Select the classes with a defined, informative comparison; notes on those left out."""
    undefined = (summary["n_pred_a"] == 0) | (summary["n_pred_b"] == 0)
    silent = (summary["discordant"] == 0) & ~undefined
    keep = ~(undefined | silent)
    notes = []
    if undefined.any():
        notes.append("left out (a classifier never predicts it, precision undefined): "
                     + ", ".join(repr(label[k]) for k in np.flatnonzero(undefined)))
    if silent.any():
        notes.append("left out (identical predictions for the class, no information): "
                     + ", ".join(repr(label[k]) for k in np.flatnonzero(silent)))
    if not keep.any():
        raise ValueError(
            "no class has a defined precision comparison: every class that the classifiers "
            "disagree on is never predicted by one of them"
        )
    return keep, notes


def _combine_with_null(
    pk: np.ndarray,
    keep: np.ndarray,
    *,
    method: str,
    w: np.ndarray | None,
    null: SwapPermutationNull,
    diagonal: str | None,
) -> TestResult:
    """Combine the kept p-values by Dai–Cui or Brown, dependence taken from ``null``."""
    if method == "dai_cui":
        return combine_pvalues(pk, method="dai_cui", weights=w,
                               null_pvalues=null.pvalues[:, keep], diagonal=diagonal)
    z = null.z[:, keep]
    z = z[np.all(np.isfinite(z), axis=1)]
    if z.shape[0] < 3:
        raise ValueError("too few complete permutations to estimate the correlation")
    R = np.atleast_2d(np.corrcoef(z, rowvar=False)) if keep.sum() > 1 else np.ones((1, 1))
    res = combine_pvalues(pk, method="brown", correlation=R)
    return dataclasses.replace(res, details={**res.details, "z_correlation": R})


def _combined_from_table(
    table: np.ndarray,
    classes: Sequence[Any],
    *,
    method: str,
    n_resamples: int,
    weights: Any,
    weighted: bool,
    diagonal: str | None,
    rng: np.random.Generator,
    null: SwapPermutationNull | None = None,
    summary: dict[str, np.ndarray] | None = None,
) -> TestResult:
    K = table.shape[-1]
    summary = summary or _class_summary(table, weighted)
    label = [c.item() if isinstance(c, np.generic) else c for c in classes]
    name = _combined_method_name(method, weighted, diagonal)
    n_obs = int(table.sum())
    off_diagonal = table.sum(axis=0)
    if np.trace(off_diagonal) == off_diagonal.sum():
        return TestResult.indistinguishable(
            name, "the two classifiers make identical predictions", n=n_obs,
            details={"classes": label},
        )
    keep, notes = _kept_classes(summary, label)
    w = None
    if weights is not None:
        if method not in ("dai_cui", "lancaster"):
            raise ValueError(f"weights is not used by method {method!r}")
        w = _check_weights(weights, K)[keep]
    pk = summary["pvalue"][keep]
    if method in ("dai_cui", "brown"):
        null = null or swap_permutation_null(
            table, n_resamples=n_resamples, weighted=weighted, random_state=rng
        )
        res = _combine_with_null(pk, keep, method=method, w=w, null=null, diagonal=diagonal)
    else:
        res = combine_pvalues(pk, method=method, weights=w)
    details = {
        **res.details,
        "classes": [label[k] for k in np.flatnonzero(keep)],
        "class_statistics": summary["statistic"][keep],
        "class_pvalues": pk,
        "n_resamples": n_resamples if method in ("dai_cui", "brown") else 0,
    }
    if null is not None and method in ("dai_cui", "brown"):
        details["null_pvalues"] = null.pvalues[:, keep]
    note = "; ".join([*notes, *([res.note] if res.note else [])])
    return dataclasses.replace(res, method=name, n=n_obs, note=note, details=details)


def combined_precision_test(
    y_true: npt.ArrayLike | None,
    y_pred_a: npt.ArrayLike | None = None,
    y_pred_b: npt.ArrayLike | None = None,
    *,
    table: npt.ArrayLike | None = None,
    method: str = "dai_cui",
    n_resamples: int = 1000,
    weights: npt.ArrayLike | None = None,
    weighted: bool = False,
    diagonal: str | None = None,
    labels: Sequence[Any] | None = None,
    random_state: RandomStateLike = None,
    null: SwapPermutationNull | None = None,
) -> TestResult:
    """Global test that two classifiers have equal precision on every class.

    Runs the GS test of precision for each class (one-vs-rest) and combines the per-class
    p-values, accounting for their dependence through the classifier-swap permutation null.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like of shape (n,)
        True labels and the two classifiers' predictions (ints or strings). Pass ``None`` for
        all three when giving ``table``.
    table : array-like of int, shape (K, K, K), optional
        Joint confusion counts [true class, A's prediction, B's prediction] instead of labels.
    method : {"dai_cui", "brown", "fisher", "lancaster", "simes"}
        ``"dai_cui"`` (default): Lancaster / Fisher statistic with the variance from the swap
        permutations (Gondara, eq. 22–26). ``"brown"``: Fisher with exact two-sided covariances from
        the permutation correlation of the signed per-class statistics. ``"fisher"`` and
        ``"lancaster"`` assume independence (shown for comparison; wrong here). ``"simes"``
        needs no dependence model (valid under positive dependence). Stouffer is not offered:
        the per-class GS p-values are two-sided and carry no direction to sum.
    n_resamples : int
        Number of swap permutations B (``"dai_cui"`` and ``"brown"``).
    weights : array-like of float, shape (K,), optional
        Lancaster weights per class (``"dai_cui"``, ``"lancaster"``); default 2 (Fisher).
    weighted : bool
        Use the weighted GS test (Kosinski 2013) per class.
    diagonal : {"theoretical", "empirical"}, optional
        ``"dai_cui"``: variances 2 w (default) or estimated from the permutations.
    labels : sequence, optional
        The class list, in order.
    random_state : None, int or numpy Generator
        Seed for the permutations.
    null : SwapPermutationNull, optional
        The swap-permutation null of this test set when it is already drawn (for example one
        test set's slice of a batched :func:`swap_permutation_null`), used instead of drawing
        one; ``n_resamples`` is then its number of permutations. It must hold one column per
        class.

    Returns
    -------
    TestResult
        The combined test (see :func:`combine_pvalues`); ``n`` is the number of observations.
        ``details`` adds ``classes``, ``class_statistics`` and ``class_pvalues`` (the per-class
        GS tests that were combined), ``n_resamples`` and, for permutation methods,
        ``null_pvalues`` (B x L). A class that one classifier never predicts, or on which the two
        classifiers never disagree, is left out with a ``note``; identical predictions give
        statistic 0, p-value 1, ``degenerate=True``.

    Notes
    -----
    The per-class tests share observations (an observation that A labels k and B labels j
    enters the tests of both classes), so their p-values are dependent; in Gondara's diabetic
    retinopathy example the correlation of the ``-2 ln p`` terms under the null is about 0.7.
    The swap permutation keeps every observation's truth and pair of predictions and only
    exchanges which classifier made which, which is the null hypothesis of exchangeable
    classifiers (docs/methods.md §8.6). Bootstrap p-values are not null-distributed and must not be
    used for the covariance.

    References
    ----------
    Gondara (2018), "Classifier comparison using precision", §3.4. Dai, Leeder & Cui (2014),
    Front Genet 5:32. Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351.

    Examples
    --------
    Gondara's Table 7, diabetic retinopathy, from the reproduced test set (docs/methods.md §8,
    worked example 2); per-class GS p-values 0.00021 and 0.074:

    >>> t = np.zeros((2, 2, 2), dtype=int)
    >>> t[0] = [[103, 45], [6, 11]]
    >>> t[1] = [[63, 64], [1, 53]]
    >>> res = combined_precision_test(None, table=t, n_resamples=2000, random_state=20240501)
    >>> bool(0.0015 < res.pvalue < 0.0035), round(combined_precision_test(
    ...     None, table=t, method="fisher").pvalue, 6)
    (True, 0.000191)

    Accounting for the dependence raises the combined p-value tenfold, to the paper's 0.002;
    the global null hypothesis of equal precision is still rejected.
    """
    weighted = check_bool(weighted, "weighted")
    check_choice(method, "method", (*COMBINED_PRECISION_METHODS, "stouffer"))
    if method == "stouffer":
        raise ValueError(
            "method 'stouffer' combines one-sided evidence; the per-class GS p-values are "
            "two-sided, so use 'dai_cui', 'brown' or 'simes'"
        )
    B = check_positive_int(n_resamples, "n_resamples", minimum=2)
    if diagonal is not None:
        check_choice(diagonal, "diagonal", _DIAGONALS)
        if method != "dai_cui":
            raise ValueError(f"diagonal is not used by method {method!r}")
    if table is not None:
        if y_true is not None or y_pred_a is not None or y_pred_b is not None:
            raise ValueError("pass either y_true, y_pred_a, y_pred_b or table, not both")
        t = _as_joint_table(table)
        if t.ndim != 3:
            raise ValueError(f"table must have shape (K, K, K); got shape {t.shape}")
        classes = list(labels) if labels is not None else list(range(t.shape[-1]))
        if len(classes) != t.shape[-1]:
            raise ValueError(f"labels must name the {t.shape[-1]} classes; got {len(classes)}")
    else:
        if y_true is None or y_pred_a is None or y_pred_b is None:
            raise ValueError("pass y_true, y_pred_a and y_pred_b (or table)")
        joint = _counts.joint_confusion(y_true, y_pred_a, y_pred_b, labels=labels)
        t, classes = np.asarray(joint.table, dtype=np.int64), list(joint.classes)
    if null is not None:
        if not isinstance(null, SwapPermutationNull) or null.pvalues.shape[-1] != t.shape[-1]:
            raise ValueError(f"null must be the SwapPermutationNull of this table ({t.shape[-1]} "
                             f"classes); got {type(null).__name__}")
        B = null.n_resamples
    return _combined_from_table(
        t, classes, method=method, n_resamples=B, weights=weights, weighted=weighted,
        diagonal=diagonal, rng=check_random_state(random_state), null=null,
    )


def combined_precision_table(
    predictions: Mapping[str, Sequence[Any]],
    *,
    methods: Sequence[str] = ("dai_cui", "fisher", "simes"),
    n_resamples: int = 1000,
    weighted: bool = False,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Per-class GS p-values and their combinations for several data sets (Gondara Table 7).

    Parameters
    ----------
    predictions : mapping name -> (y_true, y_pred_a, y_pred_b)
        The test-set truth and the two classifiers' predictions of each data set.
    methods : sequence of str
        Combination methods of :func:`combined_precision_test`; the permutations are drawn once
        per data set and shared.
    n_resamples : int
        Swap permutations per data set.
    weighted : bool
        Use the weighted GS test per class.
    random_state : None, int or numpy Generator
        Seed; the data sets are processed in the mapping's order from one generator.

    Returns
    -------
    DataFrame
        One row per data set and class: ``dataset``, ``class``, ``precision_a``,
        ``precision_b``, ``gs_statistic``, ``gs_pvalue``, then ``<method>_pvalue`` for each
        method (the data set's combined p-value, repeated on its rows) and ``note``.

    Examples
    --------
    >>> y = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2] * 20)
    >>> a = np.array([0, 0, 1, 1, 1, 2, 2, 2, 0] * 20)
    >>> b = np.array([0, 1, 1, 1, 2, 2, 2, 0, 0] * 20)
    >>> tab = combined_precision_table({"toy": (y, a, b)}, n_resamples=200, random_state=0)
    >>> tab[["class", "precision_a", "precision_b"]].round(3)
       class  precision_a  precision_b
    0      0        0.667        0.333
    1      1        0.667        0.333
    2      2        0.667        0.333
    """
    weighted = check_bool(weighted, "weighted")
    check_choices(methods, "methods", COMBINED_PRECISION_METHODS)
    B = check_positive_int(n_resamples, "n_resamples", minimum=2)
    rng = check_random_state(random_state)
    rows = []
    if not isinstance(predictions, Mapping) or not predictions:
        raise ValueError("predictions must map at least one data set name to (y_true, y_pred_a, "
                         f"y_pred_b); got {type(predictions).__name__} {predictions!r:.60}")
    for dataset, triple in predictions.items():
        if len(triple) != 3:
            raise ValueError(f"predictions[{dataset!r}] must be (y_true, y_pred_a, y_pred_b)")
        joint = _counts.joint_confusion(*triple)
        t = np.asarray(joint.table, dtype=np.int64)
        classes = list(joint.classes)
        summary = _class_summary(t, weighted)
        null = None
        if {"dai_cui", "brown"} & set(methods):
            null = swap_permutation_null(t, n_resamples=B, weighted=weighted, random_state=rng)
        combined, notes = {}, []
        for m in methods:
            res = _combined_from_table(t, classes, method=m, n_resamples=B, weights=None,
                                       weighted=weighted, diagonal=None, rng=rng, null=null,
                                       summary=summary)
            combined[f"{m}_pvalue"] = res.pvalue
            if res.note and res.note not in notes:
                notes.append(res.note)
        for k, c in enumerate(classes):
            rows.append({
                "dataset": dataset,
                "class": c.item() if isinstance(c, np.generic) else c,
                "precision_a": summary["precision_a"][k],
                "precision_b": summary["precision_b"][k],
                "gs_statistic": summary["statistic"][k],
                "gs_pvalue": summary["pvalue"][k],
                **combined,
                "note": "; ".join(notes),
            })
    return pd.DataFrame(rows)
