"""Adjusting a family of p-values for multiple testing (Holm, Bonferroni, Benjamini–Hochberg).

Kept apart from ``combine`` so every module that runs a family of tests (pairwise McNemar,
per-class precision, post-hoc rank tests) can use it without importing the combination methods;
``precmp_lib.stats.combine`` re-exports it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._lib.checks import check_choice

__all__ = ["adjust_pvalues"]

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
    try:
        p = np.asarray(pvalues, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"pvalues must hold numbers in [0, 1]; got {pvalues!r:.60}") from None
    if p.ndim != 1:
        raise ValueError(f"pvalues must be one-dimensional; got shape {p.shape}")
    ok = ~np.isnan(p)
    if np.any((p[ok] < 0) | (p[ok] > 1)):
        raise ValueError("pvalues must lie in [0, 1]")
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
