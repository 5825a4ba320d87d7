"""Adjusting a family of p-values for multiple testing (Holm, Bonferroni, Benjamini–Hochberg).

:func:`adjust_pvalues` adjusts the p-values; :func:`holm_levels` gives, beside Holm's decisions,
the confidence level at which each test's interval agrees with them.

Kept apart from ``combine`` so every module that runs a family of tests (pairwise McNemar,
per-class precision, post-hoc rank tests) can use it without importing the combination methods;
``precmp_lib.stats.combine`` re-exports it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._lib.checks import check_choice, check_probability

__all__ = ["adjust_pvalues", "holm_levels"]

#: The adjustments :func:`adjust_pvalues` knows; tables that adjust take one as ``adjust`` and
#: record it in ``DataFrame.attrs["adjustment"]``.
ADJUST_METHODS = ("holm", "bonferroni", "fdr_bh", "none")


def adjust_pvalues(pvalues: npt.ArrayLike, method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values for multiple testing.

    Parameters
    ----------
    pvalues : array-like of float
        Unadjusted p-values in [0, 1]; NaN entries are left NaN and do not count towards m.
    method : {"holm", "bonferroni", "fdr_bh", "none"}
        Holm's step-down (controls the family-wise error rate, uniformly more powerful than
        Bonferroni), Bonferroni, or Benjamini–Hochberg (controls the false discovery rate).

    Returns
    -------
    ndarray
        Adjusted p-values in the input order, capped at 1.

    Notes
    -----
    With ``m`` tests and sorted p-values ``p_(1) <= ... <= p_(m)``:
    Holm ``p~_(i) = max_{j<=i} min(1, (m-j+1) p_(j))``; Bonferroni ``min(1, m p)``;
    BH ``p~_(i) = min_{j>=i} min(1, m p_(j) / j)``. Equal to
    ``statsmodels.stats.multitest.multipletests`` with the same method names.

    Examples
    --------
    Pairwise uncorrected McNemar p-values of the mlxtend example (docs/methods.md §3):

    >>> adjust_pvalues([0.020921, 0.045500, 1.0], "holm").round(6)
    array([0.062763, 0.091   , 1.      ])
    """
    check_choice(method, "method", ADJUST_METHODS)
    p = _pvalue_vector(pvalues)
    ok = ~np.isnan(p)
    out = np.full_like(p, np.nan)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        out[ok] = q
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, m * q)
        return out
    order = np.argsort(q, kind="stable")
    sorted_p = q[order]
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * sorted_p))
    else:  # fdr_bh
        adj = np.minimum.accumulate((m * sorted_p / np.arange(1, m + 1))[::-1])[::-1]
        adj = np.minimum(1.0, adj)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


def holm_levels(pvalues: npt.ArrayLike, alpha: float) -> np.ndarray:
    """Return the confidence level at which each test's interval agrees with Holm's decision.

    Parameters
    ----------
    pvalues : array-like of float, one-dimensional
        Unadjusted p-values in [0, 1]; NaN entries (tests not done) get NaN and do not count
        towards ``m``.
    alpha : float
        The family-wise error rate Holm's procedure controls, in (0, 1).

    Returns
    -------
    ndarray
        The level of each test's interval, in the input order.

    Notes
    -----
    With the ``m`` p-values sorted, ``p_(1) <= ... <= p_(m)``, Holm's step ``i`` compares
    ``p_(i)`` with ``alpha / (m - i + 1)``: the interval of that test at level
    ``1 - alpha / (m - i + 1)`` excludes the null value exactly when the step passes, for a
    test whose interval inverts it. Once a step fails, Holm stops: the failing test and every
    later one keep the failing step's level, and since their p-values are at least as large,
    their intervals hold the null value too. So an interval excludes the null value exactly
    when Holm rejects (:func:`adjust_pvalues` with ``"holm"`` at most ``alpha``).

    Examples
    --------
    >>> holm_levels(np.array([0.01, 0.04, 0.03]), 0.1).round(4).tolist()
    [0.9667, 0.9, 0.95]

    Every step passes: 0.01 <= 0.1/3, 0.03 <= 0.1/2, 0.04 <= 0.1, each at its step's level.

    >>> holm_levels(np.array([0.01, 0.04, 0.035, 0.5]), 0.1).round(4).tolist()
    [0.975, 0.9667, 0.9667, 0.9667]

    With four tests 0.01 <= 0.1/4 passes, 0.035 > 0.1/3 fails: it, 0.04 and 0.5 keep the
    failing step's level, 1 - 0.1/3, and their intervals hold 0.
    """
    a = check_probability(alpha, "alpha")
    p = _pvalue_vector(pvalues)
    known = ~np.isnan(p)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(known)
    m = len(ok)
    failed: float | None = None
    for i, at in enumerate(ok[np.argsort(p[ok], kind="stable")]):
        step = a / (m - i)
        if failed is None and p[at] > step:
            failed = step
        out[at] = 1 - (step if failed is None else failed)
    return out


def _pvalue_vector(pvalues: npt.ArrayLike) -> np.ndarray:
    """Return ``pvalues`` as a 1-d float array (NaN kept), or raise naming what is wrong."""
    try:
        p = np.asarray(pvalues, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"pvalues must hold numbers in [0, 1]; got {pvalues!r:.60}") from None
    if p.ndim != 1:
        raise ValueError(f"pvalues must be one-dimensional; got shape {p.shape}")
    known = p[~np.isnan(p)]
    if np.any((known < 0) | (known > 1)):
        raise ValueError("pvalues must lie in [0, 1]")
    return p
