"""Per-class precision comparison: GS, weighted GS, GEE Wald, multinomial Wald, RP, multi-classifier GEE.

Precision ``P = TP / (TP + FP)`` is a conditional probability, and two classifiers' precisions
on the same test set are correlated; tests for independent proportions get both wrong. Every
test here is a closed form of the joint prediction counts (docs/methods.md §6-7): the 2 x 2 x 2
cells ``n[d][a][b]`` for two classifiers, the per-class moments of the prediction patterns
for c classifiers. No iterative GEE is fitted; the closed forms equal statsmodels' and
geepack's GEE with independence working correlation and robust covariance.

The ``*_from_cells`` kernels work elementwise over any leading axes of ``cells``
(``(..., 2, 2, 2)``), so whole batches (all classes, resampled tables) run without Python
loops; the single tests and tables call the same kernels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ._dist import chi2_sf, norm_isf, norm_sf
from .counts import (
    JointConfusion,
    PatternCounts,
    PrecisionMoments,
    as_prediction_mapping,
    class_cells,
    joint_confusion_or_cells,
    precision_moments,
)
from .multiple import adjust_pvalues
from .results import TestResult
from .validation import (
    check_bool,
    check_choice,
    check_counts,
    check_positive_int,
    check_probability,
    encode_labels,
)

__all__ = [
    "PRECISION_METHODS",
    "CellTest",
    "GEEPrecisionResult",
    "compare_precision",
    "compare_precision_from_counts",
    "compare_precision_from_moments",
    "gee_precision",
    "gee_precision_from_counts",
    "gs_from_cells",
    "gs_test",
    "gw_from_cells",
    "gw_test",
    "naive_rp_from_cells",
    "naive_z_from_cells",
    "precision_test_from_cells",
    "rp_from_cells",
    "rp_test",
    "wald_from_cells",
    "wald_test",
]

PRECISION_METHODS = ("gs", "wgs", "gw", "wald", "rp")

_METHOD_NAMES = {
    "gs": "Generalized score (Leisenring, Alonzo & Pepe 2000)",
    "wgs": "Weighted generalized score (Kosinski 2013)",
    "gw": "Empirical Wald, GEE logit (independence, robust covariance)",
    "wald": "Multinomial Wald, identity scale",
    "rp": "Relative precision (Moskowitz & Pepe 2006)",
}

# Fewer positive predictions than this: the chi-square approximations are poor (docs/methods.md §6.6).
_SMALL_M = 10

# A denominator at most this fraction of its own scale is treated as exactly 0 (rounding).
_ZERO_TOL = 1e-13


def _as_cells(cells: Any) -> np.ndarray:
    arr = check_counts(cells, "cells")
    if arr.ndim < 3 or arr.shape[-3:] != (2, 2, 2):
        raise ValueError(
            f"cells must have shape (..., 2, 2, 2) indexed [truth, A predicts, B predicts]; "
            f"got shape {arr.shape}"
        )
    return arr


class _Cells(NamedTuple):
    s11: np.ndarray
    s10: np.ndarray
    s01: np.ndarray
    s00: np.ndarray
    r11: np.ndarray
    r10: np.ndarray
    r01: np.ndarray
    r00: np.ndarray

    @property
    def tp_a(self) -> np.ndarray:
        return self.s11 + self.s10

    @property
    def tp_b(self) -> np.ndarray:
        return self.s11 + self.s01

    @property
    def fp_a(self) -> np.ndarray:
        return self.r11 + self.r10

    @property
    def fp_b(self) -> np.ndarray:
        return self.r11 + self.r01

    @property
    def m_a(self) -> np.ndarray:
        return self.tp_a + self.fp_a

    @property
    def m_b(self) -> np.ndarray:
        return self.tp_b + self.fp_b

    @property
    def n(self) -> np.ndarray:
        return sum(self, np.zeros_like(self.s11))

    @property
    def identical(self) -> np.ndarray:
        """A and B predict the class on exactly the same observations."""
        return (self.s10 + self.s01 + self.r10 + self.r01) == 0


def _split(cells: Any) -> _Cells:
    arr = _as_cells(cells)
    return _Cells(
        s11=arr[..., 1, 1, 1], s10=arr[..., 1, 1, 0], s01=arr[..., 1, 0, 1], s00=arr[..., 1, 0, 0],
        r11=arr[..., 0, 1, 1], r10=arr[..., 0, 1, 0], r01=arr[..., 0, 0, 1], r00=arr[..., 0, 0, 0],
    )


def _ratio(num: np.ndarray, den: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``num / den`` under the degenerate policy; returns (value, degenerate flag).

    A denominator at most ``_ZERO_TOL * scale`` counts as 0: 0/0 -> 0 and x/0 -> inf, both
    flagged degenerate. NaN inputs stay NaN.
    """
    zero = den <= _ZERO_TOL * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(zero, np.where(num == 0, 0.0, np.inf), num / np.where(zero, 1.0, den))
    value = np.where(np.isnan(num) | np.isnan(den), np.nan, value)
    return value, zero & ~np.isnan(value)


def _precisions(c: _Cells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precisions of A and B (NaN where a classifier never predicts the class), undefined flag."""
    m_a, m_b = c.m_a, c.m_b
    undefined = (m_a == 0) | (m_b == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_a = np.where(m_a > 0, c.tp_a / np.where(m_a > 0, m_a, 1.0), np.nan)
        p_b = np.where(m_b > 0, c.tp_b / np.where(m_b > 0, m_b, 1.0), np.nan)
    return p_a, p_b, undefined


def _gs_parts(cells: Any, weighted: bool) -> dict[str, np.ndarray]:
    c = _split(cells)
    p_a, p_b, undefined = _precisions(c)
    m_a, m_b = c.m_a, c.m_b
    total = m_a + m_b
    with np.errstate(divide="ignore", invalid="ignore"):
        pbar = (2 * c.s11 + c.s10 + c.s01) / total
        qbar = (2 * c.r11 + c.r10 + c.r01) / total
        cbar = (c.s11 * qbar**2 + c.r11 * pbar**2) / total
        w = np.zeros_like(pbar) if weighted else (2 * pbar - p_a - p_b) * (2 * pbar - 1)
        core = pbar * qbar + w - 2 * cbar
        scale = pbar * qbar + np.abs(w) + 2 * cbar
        inv_m = 1 / m_a + 1 / m_b
        num = (p_a - p_b) ** 2
        stat, degenerate = _ratio(num, core * inv_m, scale * inv_m)
    stat = np.where(undefined, np.nan, stat)
    degenerate = degenerate & ~undefined
    return {
        "statistic": stat, "pvalue": np.asarray(chi2_sf(stat, 1)), "degenerate": degenerate,
        "undefined": undefined, "precision_a": p_a, "precision_b": p_b,
        "n_pred_a": m_a, "n_pred_b": m_b, "identical": c.identical & ~undefined,
    }


def gs_from_cells(cells: Any, *, weighted: bool = False) -> CellTest:
    """Generalized score statistic (or Kosinski's weighted version) from 2 x 2 x 2 cells.

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1): d = the observation truly is the class of
        interest, a = classifier A predicts it, b = classifier B predicts it. Any leading axes
        (classes, resamples) are kept.
    weighted : bool
        False (default): Leisenring, Alonzo & Pepe's generalized score (GS; DTComPair
        ``pv.gs``). True: Kosinski's weighted generalized score (WGS; DTComPair ``pv.wgs``).

    Returns
    -------
    CellTest
        Arrays of shape ``(...)``: ``statistic`` = chi-square(1) statistic and ``pvalue`` its
        upper-tail p-value, elementwise; ``estimate`` = P_a - P_b. A score test has no
        interval of its own: ``se``, ``ci_low`` and ``ci_high`` are NaN (use
        :func:`wald_from_cells` or :func:`rp_from_cells` for one). Where A and B cannot be
        told apart (identical predictions of the class, or every positive prediction of both
        right, or every one wrong) the statistic is 0, the p-value 1 and ``degenerate`` True;
        where a classifier never predicts the class (precision undefined) statistic, p-value
        and estimate are NaN.

    Notes
    -----
    With ``M_a``, ``M_b`` positive predictions, precisions ``P_a``, ``P_b``, pooled precision
    ``P = (2 s11 + s10 + s01) / (M_a + M_b)``, ``C = [s11 (1 - P)^2 + r11 P^2] / (M_a + M_b)``
    and ``W = (2P - P_a - P_b)(2P - 1)`` (Kosinski 2013, Gondara, eq. 12-14 with C at the pooled
    precision, docs/methods.md §6.2)::

        GS  = (P_a - P_b)^2 / {[P(1 - P) + W - 2C] (1/M_a + 1/M_b)}
        WGS = (P_a - P_b)^2 / {[P(1 - P)     - 2C] (1/M_a + 1/M_b)}

    GS equals the per-observation score form of Leisenring et al. (Gondara, eq. 9) exactly.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351.
    Kosinski (2013), Statistics in Medicine 32:964-977.

    Examples
    --------
    DTComPair's ``Paired1`` data (docs/methods.md §6.6a), as cells ``[d][a][b]``:

    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]
    >>> res = gs_from_cells(cells)
    >>> round(float(res.statistic), 6), round(float(res.pvalue), 6)
    (5.711241, 0.016857)

    The precisions (0.825 and 0.865) differ at the 5 % level. A batch of tables is one call:

    >>> batch = gs_from_cells(np.stack([cells, np.array(cells) * 2]), weighted=True)
    >>> batch.statistic.round(4).tolist()
    [5.4659, 10.9318]
    """
    g = _gs_parts(cells, check_bool(weighted, "weighted"))
    nan = np.full_like(g["statistic"], np.nan)
    return _cell_test(g["statistic"], g["pvalue"], g["precision_a"] - g["precision_b"], nan,
                      nan, nan, g["degenerate"])


# --------------------------------------------------------------------------------------------
# vectorised kernels on 2 x 2 x 2 cells
# --------------------------------------------------------------------------------------------


class CellTest(NamedTuple):
    """Elementwise results of a test on 2 x 2 x 2 cells, over the leading axes of ``cells``.

    Every vectorised ``*_from_cells`` kernel returns one (the single-test counterpart,
    :func:`precision_test_from_cells`, returns a :class:`~precmp_lib.results.TestResult`).
    Fields are read by name (``res.statistic``, ``res.pvalue``); as a named tuple,
    ``res[0]`` and ``res[1]`` are the statistic and the p-value.

    Attributes
    ----------
    statistic, pvalue : ndarray
        Test statistic and p-value (NaN where the quantity is undefined).
    estimate, se : ndarray
        The estimate and its standard error (on the scale the test uses: log odds ratio for
        GW, log RP for RP, the difference P_a - P_b for the multinomial Wald and for the score
        tests, GS and the naive z, whose ``se`` is NaN).
    ci_low, ci_high : ndarray
        Confidence limits for the estimate on its natural scale (RP: the ratio itself); NaN
        for the score tests, which give no interval.
    degenerate : ndarray of bool
        True where a ratio was 0/0 (statistic 0, p-value 1) or x/0 (infinite, p-value 0).
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    degenerate: np.ndarray


def _z(confidence_level: float) -> float:
    level = check_probability(confidence_level, "confidence_level")
    return float(norm_isf((1 - level) / 2))


def _cell_test(stat, p, est, se, lo, hi, deg) -> CellTest:
    return CellTest(*(np.asarray(v)[()] for v in (stat, p, est, se, lo, hi, deg)))


def _gw_parts(cells: Any, confidence_level: float) -> dict[str, np.ndarray]:
    z = _z(confidence_level)
    c = _split(cells)
    p_a, p_b, undefined = _precisions(c)
    tp_a, fp_a, tp_b, fp_b = c.tp_a, c.fp_a, c.tp_b, c.fp_b
    logit_undefined = ~undefined & ((tp_a == 0) | (fp_a == 0) | (tp_b == 0) | (fp_b == 0))
    bad = undefined | logit_undefined
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = np.log((tp_a * fp_b) / (fp_a * tp_b))  # exact 0 when the odds are equal
        info_a = tp_a * fp_a / c.m_a  # M_a P_a Q_a
        info_b = tp_b * fp_b / c.m_b
        cross = c.s11 * (1 - p_a) * (1 - p_b) + c.r11 * p_a * p_b  # S of docs/methods.md §6.1
        var = 1 / info_a + 1 / info_b - 2 * cross / (info_a * info_b)
        scale = 1 / info_a + 1 / info_b
    beta = np.where(bad, np.nan, beta)
    stat, degenerate = _ratio(beta**2, np.where(bad, np.nan, var), scale)
    se = np.sqrt(np.where(degenerate, 0.0, np.maximum(np.where(bad, np.nan, var), 0.0)))
    return {
        "statistic": stat, "pvalue": chi2_sf(stat, 1), "estimate": beta, "se": se,
        "ci_low": beta - z * se, "ci_high": beta + z * se, "degenerate": degenerate,
        "undefined": undefined, "logit_undefined": logit_undefined,
    }


def gw_from_cells(cells: Any, *, confidence_level: float = 0.95) -> CellTest:
    """Empirical Wald (GEE) test of equal precision from 2 x 2 x 2 cells, in closed form.

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1), any leading axes.
    confidence_level : float
        Level of the interval for the log odds ratio.

    Returns
    -------
    CellTest
        ``statistic`` = chi-square(1) Wald statistic, ``estimate`` = logit P_a - logit P_b
        (the log odds ratio of precision odds, A over B) with ``se`` and interval on the log
        scale. NaN where a precision is undefined, 0 or 1 (logit infinite).

    Notes
    -----
    The GEE logistic model on the positive predictions with classifier as covariate,
    independence working correlation and robust covariance is saturated, so
    ``beta = logit P_a - logit P_b`` and (docs/methods.md §6.3, Gondara, eq. 8 corrected)::

        Var(beta) = 1/(M_a P_a Q_a) + 1/(M_b P_b Q_b) - 2 S / (M_a P_a Q_a M_b P_b Q_b)
        S = s11 Q_a Q_b + r11 P_a P_b

    This equals geepack's ``geeglm`` and statsmodels' GEE Wald statistic exactly.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351. Liang & Zeger (1986),
    Biometrika 73:13-22.

    Examples
    --------
    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]  # Paired1, docs/methods.md §6.6(a)
    >>> res = gw_from_cells(cells)
    >>> round(float(res.statistic), 4), round(float(res.estimate), 6), round(float(res.se), 6)
    (5.4111, -0.308471, 0.132609)
    """
    g = _gw_parts(cells, confidence_level)
    return _cell_test(*(g[k] for k in CellTest._fields))


def _wald_parts(cells: Any, confidence_level: float) -> dict[str, np.ndarray]:
    z = _z(confidence_level)
    c = _split(cells)
    p_a, p_b, undefined = _precisions(c)
    q_a, q_b = 1 - p_a, 1 - p_b
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = c.s11 * q_a * q_b + c.r11 * p_a * p_b
        var = p_a * q_a / c.m_a + p_b * q_b / c.m_b - 2 * cross / (c.m_a * c.m_b)
        scale = p_a * q_a / c.m_a + p_b * q_b / c.m_b + 2 * cross / (c.m_a * c.m_b)
    diff = p_a - p_b
    stat, degenerate = _ratio(diff**2, var, scale)
    se = np.sqrt(np.where(degenerate, 0.0, np.maximum(var, 0.0)))
    return {
        "statistic": stat, "pvalue": chi2_sf(stat, 1), "estimate": diff, "se": se,
        "ci_low": diff - z * se, "ci_high": diff + z * se, "degenerate": degenerate,
        "undefined": undefined,
    }


def wald_from_cells(cells: Any, *, confidence_level: float = 0.95) -> CellTest:
    """Multinomial Wald test of equal precision on the identity scale, from 2 x 2 x 2 cells.

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1), any leading axes.
    confidence_level : float
        Level of the interval.

    Returns
    -------
    CellTest
        ``statistic`` chi-square(1); ``estimate`` = P_a - P_b with its Wald interval.

    Notes
    -----
    ``T_M = (P_a - P_b)^2 / [P_a Q_a / M_a + P_b Q_b / M_b - 2 S / (M_a M_b)]`` with
    ``S = s11 Q_a Q_b + r11 P_a P_b`` (Gondara, eq. 31-33; docs/methods.md §6.4). The denominator is
    ``Var(P_a) + Var(P_b) - 2 Cov(P_a, P_b)``. Defined when a precision is 0 or 1.

    References
    ----------
    Gondara (2016), "Classifier comparison using precision", eq 31-33.

    Examples
    --------
    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]  # Paired1, docs/methods.md §6.6(a)
    >>> round(float(wald_from_cells(cells).statistic), 6)
    5.699903
    """
    g = _wald_parts(cells, confidence_level)
    return _cell_test(*(g[k] for k in CellTest._fields))


def _rp_parts(cells: Any, confidence_level: float) -> dict[str, np.ndarray]:
    z = _z(confidence_level)
    c = _split(cells)
    p_a, p_b, undefined = _precisions(c)
    zero = ~undefined & ((c.tp_a == 0) | (c.tp_b == 0))
    bad = undefined | zero
    n = c.n
    with np.errstate(divide="ignore", invalid="ignore"):
        # cell proportions p_i = n_i / N (Gondara, eq. 18 with the correction of docs/methods.md §6.5);
        # seed indices: p5 = s11, p6 = s10, p7 = s01, p3 = r01
        p5, p6, p7, p3 = c.s11 / n, c.s10 / n, c.s01 / n, c.r01 / n
        terms = [p6 * (1 - p_b), p5 * (p_b - p_a), 2 * (p7 + p3) * p_a * p_b, p7 * (1 - 3 * p_a)]
        den = (p5 + p7) * (p5 + p6)
        sigma2 = sum(terms) / den
        scale = sum(np.abs(t) for t in terms) / den
        log_rp = np.log((c.tp_a * c.m_b) / (c.m_a * c.tp_b))  # exact 0 when P_a = P_b
    log_rp = np.where(bad, np.nan, log_rp)
    var = np.where(bad, np.nan, sigma2 / n)
    stat_abs, degenerate = _ratio(np.abs(log_rp), np.sqrt(np.maximum(var, 0.0)),
                                  np.sqrt(np.abs(scale / n)))
    zstat = np.sign(log_rp) * stat_abs
    se = np.sqrt(np.where(degenerate, 0.0, np.maximum(var, 0.0)))
    rp = np.exp(log_rp)
    return {
        "statistic": zstat, "pvalue": np.minimum(1.0, 2 * norm_sf(np.abs(zstat))),
        "estimate": rp, "se": se, "ci_low": np.exp(log_rp - z * se),
        "ci_high": np.exp(log_rp + z * se), "degenerate": degenerate,
        "undefined": undefined, "zero_precision": zero,
    }


def rp_from_cells(cells: Any, *, confidence_level: float = 0.95) -> CellTest:
    """Relative precision P_a / P_b with its paired interval and test, from 2 x 2 x 2 cells.

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1), any leading axes.
    confidence_level : float
        Level of the interval.

    Returns
    -------
    CellTest
        ``estimate`` = RP = P_a / P_b with interval ``exp(log RP -/+ z SE)``; ``se`` is the
        standard error of log RP; ``statistic`` = log RP / SE (standard normal), ``pvalue``
        two-sided. NaN where a precision is undefined or 0.

    Notes
    -----
    Moskowitz & Pepe's delta-method variance (Gondara, eq. 18, corrected to cell proportions
    ``p_i = n_i / N`` as DTComPair computes it; docs/methods.md §6.5)::

        sigma^2 = [p6 (1 - P_b) + p5 (P_b - P_a) + 2 (p7 + p3) P_a P_b + p7 (1 - 3 P_a)]
                  / [(p5 + p7)(p5 + p6)],          SE(log RP) = sqrt(sigma^2 / N)

    with seed cells p5 = s11, p6 = s10, p7 = s01, p3 = r01. N cancels: the observations
    that neither classifier predicts as the class do not change the interval.

    References
    ----------
    Moskowitz & Pepe (2006), Clinical Trials 3:272-279. Stock & Hielscher, DTComPair (R),
    ``pv.rpv``.

    Examples
    --------
    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]  # Paired1, docs/methods.md §6.6(a)
    >>> res = rp_from_cells(cells)
    >>> [round(float(v), 6) for v in (res.estimate, res.ci_low, res.ci_high, res.pvalue)]
    [0.953646, 0.917144, 0.991601, 0.017146]
    """
    g = _rp_parts(cells, confidence_level)
    return _cell_test(*(g[k] for k in CellTest._fields))


def naive_z_from_cells(cells: Any) -> CellTest:
    """Apply (wrongly) the two-sample z test for independent proportions to precisions.

    Shown for contrast: it treats the positive predictions of A and B as independent
    samples, ignoring that both classifiers label the same observations (seed Figure 1,
    "Z-score test").

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1), any leading axes.

    Returns
    -------
    CellTest
        ``statistic`` = ``z^2 = (P_a - P_b)^2 / [P (1 - P) (1/M_a + 1/M_b)]`` (P pooled) and
        ``pvalue`` its chi-square(1) p-value; ``estimate`` = P_a - P_b; ``se``, ``ci_low`` and
        ``ci_high`` NaN (the score form gives no interval); ``degenerate`` where the pooled
        variance is 0.

    Notes
    -----
    The weighted GS with the covariance term C set to 0 (docs/methods.md §6.2); equal to
    ``statsmodels.stats.proportion.proportions_ztest`` squared. With positively correlated
    classifiers it overstates the variance of P_a - P_b: conservative, and low in power.

    References
    ----------
    Gondara (2016), Figure 1.

    Examples
    --------
    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]  # Paired1, docs/methods.md §6.6(a)
    >>> round(float(naive_z_from_cells(cells).pvalue), 6)  # the paired GS gives 0.016857
    0.104221
    """
    c = _split(cells)
    p_a, p_b, undefined = _precisions(c)
    total = c.m_a + c.m_b
    with np.errstate(divide="ignore", invalid="ignore"):
        pbar = (c.tp_a + c.tp_b) / total
        qbar = (c.fp_a + c.fp_b) / total
        den = pbar * qbar * (1 / c.m_a + 1 / c.m_b)
    stat, degenerate = _ratio((p_a - p_b) ** 2, den, den + (1 / np.where(total > 0, total, 1.0)))
    stat = np.where(undefined, np.nan, stat)
    nan = np.full_like(stat, np.nan)
    return _cell_test(stat, chi2_sf(stat, 1), p_a - p_b, nan, nan, nan,
                      degenerate & ~undefined)


def naive_rp_from_cells(cells: Any, *, confidence_level: float = 0.95) -> CellTest:
    """Relative precision with the interval for independent samples (ignores the pairing).

    Shown for contrast with :func:`rp_from_cells`: it ignores the covariance of the two
    precisions that comes from both classifiers labelling the same observations.

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1), any leading axes.
    confidence_level : float
        Level of the interval.

    Returns
    -------
    CellTest
        As :func:`rp_from_cells`, with the independent-samples standard error.

    Notes
    -----
    Katz's log interval for a ratio of two independent binomial proportions:
    ``SE(log RP) = sqrt(Q_a / TP_a + Q_b / TP_b)``.

    References
    ----------
    Katz, Baptista, Azen & Pike (1978), Biometrics 34:469-474.

    Examples
    --------
    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]  # Paired1, docs/methods.md §6.6(a)
    >>> res = naive_rp_from_cells(cells)
    >>> round(float(res.ci_low), 4), round(float(res.ci_high), 4)  # paired: (0.9171, 0.9916)
    (0.9012, 1.0092)

    Ignoring the pairing widens the interval until it holds 1.
    """
    z = _z(confidence_level)
    c = _split(cells)
    p_a, p_b, undefined = _precisions(c)
    bad = undefined | (c.tp_a == 0) | (c.tp_b == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_rp = np.where(bad, np.nan, np.log((c.tp_a * c.m_b) / (c.m_a * c.tp_b)))
        var = np.where(bad, np.nan, (1 - p_a) / c.tp_a + (1 - p_b) / c.tp_b)
        scale = np.where(bad, np.nan, 1 / c.tp_a + 1 / c.tp_b)
    stat_abs, degenerate = _ratio(np.abs(log_rp), np.sqrt(np.maximum(var, 0)), np.sqrt(scale))
    zstat = np.sign(log_rp) * stat_abs
    se = np.sqrt(np.maximum(var, 0.0))
    return _cell_test(
        zstat, np.minimum(1.0, 2 * norm_sf(np.abs(zstat))), np.exp(log_rp), se,
        np.exp(log_rp - z * se), np.exp(log_rp + z * se), degenerate,
    )


# --------------------------------------------------------------------------------------------
# single tests (one class of interest): TestResult
# --------------------------------------------------------------------------------------------


def _class_text(label: Any) -> str:
    return "the class of interest" if label is None else f"class {label!r}"


def _check_defined(method: str, precisions: tuple[float, float], where: str,
                   names: tuple[str, str]) -> None:
    """Raise when the test does not exist: GW with a precision of 0 or 1, RP with one of 0."""
    for name, p in zip(names, precisions, strict=True):
        if method == "gw" and p in (0.0, 1.0):
            raise ValueError(
                f"the precision of {name} for {where} is {p:g}: its logit is infinite, so "
                f"the GEE Wald test does not exist; use gs_test or rp_test"
            )
        if method == "rp" and p == 0.0:
            raise ValueError(
                f"the precision of {name} for {where} is 0: the relative precision "
                f"(a ratio of precisions, on the log scale) is undefined"
            )


def _method_result(
    arr: np.ndarray, method: str, level: float, difference: float
) -> tuple[dict[str, float], dict[str, float], bool]:
    """Run one kernel on a single table: the TestResult fields, extra details, degenerate."""
    if method in ("gs", "wgs"):
        g = _gs_parts(arr, method == "wgs")
        out = {"statistic": float(g["statistic"]), "pvalue": float(g["pvalue"]),
               "estimate": difference}
        return out, {}, bool(g["degenerate"])
    parts = {"gw": _gw_parts, "wald": _wald_parts, "rp": _rp_parts}[method]
    g = parts(arr, level)
    out = {k: float(g[k]) for k in ("statistic", "pvalue", "estimate", "ci_low", "ci_high")}
    if method == "gw":
        details = {"se": float(g["se"]), "odds_ratio": float(np.exp(g["estimate"])),
                   "odds_ratio_ci_low": float(np.exp(g["ci_low"])),
                   "odds_ratio_ci_high": float(np.exp(g["ci_high"]))}
    else:
        details = {"se" if method == "wald" else "se_log_rp": float(g["se"])}
    return out, details, bool(g["degenerate"])


def _degenerate_note(c: _Cells, statistic: float, where: str, names: tuple[str, str]) -> str:
    """Say why a single test is degenerate."""
    if bool(c.identical):
        return (f"{names[0]} and {names[1]} predict {where} on exactly the same "
                f"observations: nothing to compare")
    if statistic == 0:
        return ("no variability in the positive predictions (every one right, or "
                "every one wrong, for both): nothing to compare")
    return "zero estimated variance with a non-zero difference"


def _paired_result(
    cells: Any,
    method: str,
    confidence_level: float,
    label: Any = None,
    names: tuple[str, str] = ("A", "B"),
) -> TestResult:
    check_choice(method, "method", PRECISION_METHODS)
    level = check_probability(confidence_level, "confidence_level")
    arr = _as_cells(cells)
    if arr.shape != (2, 2, 2):
        raise ValueError(f"cells must have shape (2, 2, 2) for a single test; got {arr.shape}")
    c = _split(arr)
    m_a, m_b = float(c.m_a), float(c.m_b)
    where = _class_text(label)
    for name, m in zip(names, (m_a, m_b), strict=True):
        if m == 0:
            raise ValueError(
                f"{name} never predicts {where}: its precision is undefined, so no test of "
                f"equal precision exists"
            )
    p_a, p_b = float(c.tp_a) / m_a, float(c.tp_b) / m_b
    _check_defined(method, (p_a, p_b), where, names)
    out, extra, degenerate = _method_result(arr, method, level, p_a - p_b)
    details = {"precision_a": p_a, "precision_b": p_b, "n_pred_a": m_a, "n_pred_b": m_b,
               **extra}
    notes = []
    if degenerate:
        notes.append(_degenerate_note(c, out["statistic"], where, names))
    if min(m_a, m_b) < _SMALL_M:
        notes.append(
            f"only {int(min(m_a, m_b))} positive predictions by one classifier: the large-sample "
            f"approximation is poor; prefer the weighted GS and report RP with its interval"
        )
    return TestResult(
        statistic=out["statistic"], pvalue=out["pvalue"], estimate=out["estimate"],
        ci_low=out.get("ci_low", np.nan), ci_high=out.get("ci_high", np.nan),
        df=None if method == "rp" else 1.0, method=_METHOD_NAMES[method],
        n=round(float(c.n)), confidence_level=level, degenerate=degenerate,
        note="; ".join(notes), details=details,
    )


def precision_test_from_cells(
    cells: Any,
    *,
    method: str = "gs",
    confidence_level: float = 0.95,
) -> TestResult:
    """Test equal precision of two classifiers from the 8 joint counts of one class.

    The counts entry point of :func:`gs_test`, :func:`gw_test`, :func:`wald_test` and
    :func:`rp_test`, which build the cells from label arrays and call this.

    Parameters
    ----------
    cells : array-like of shape (2, 2, 2)
        Counts ``n[d][a][b]`` (docs/methods.md §6.1): d = truly the class, a = A predicts it,
        b = B predicts it. Use :func:`precmp_lib.counts.cells_from_tab_paired` for
        DTComPair's argument order.
    method : {"gs", "wgs", "gw", "wald", "rp"}
        Generalized score, weighted generalized score, GEE empirical Wald (logit scale),
        multinomial Wald (identity scale) or relative precision.
    confidence_level : float
        Level of the interval (GW, Wald, RP).

    Returns
    -------
    TestResult
        See the single-test functions for ``estimate``; ``details`` holds ``precision_a``,
        ``precision_b``, ``n_pred_a``, ``n_pred_b`` (and ``se``, odds ratio, ...).

    Raises
    ------
    ValueError
        When a classifier never predicts the class (precision undefined); for ``"gw"`` when a
        precision is 0 or 1; for ``"rp"`` when a precision is 0.

    Notes
    -----
    The same kernels as the vectorised ``*_from_cells`` functions (docs/methods.md §6.2-6.5), with
    the degenerate policy of docs/methods.md §1: identical predictions of the class give statistic
    0, p-value 1 and ``degenerate=True`` with a note.

    References
    ----------
    See :func:`gs_test`, :func:`gw_test`, :func:`wald_test` and :func:`rp_test`.

    Examples
    --------
    docs/methods.md §6.6(b), entered as DTComPair's ``read.tab.paired(30, 4, 10, 6, 5, 3, 8, 60)``:

    >>> from precmp_lib.counts import cells_from_tab_paired
    >>> cells = cells_from_tab_paired(30, 4, 10, 6, 5, 3, 8, 60)
    >>> res = precision_test_from_cells(cells, method="wgs")
    >>> round(res.statistic, 6), round(res.pvalue, 6)
    (0.908674, 0.340466)

    Precisions 0.755 and 0.810 on about 50 positive predictions each: no evidence of a
    difference.
    """
    return _paired_result(cells, method, confidence_level)


def _binary_cells(y_true: Any, y_pred_a: Any, y_pred_b: Any, positive: Any) -> tuple[np.ndarray, Any]:
    enc = encode_labels(y_true, {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b})
    code = enc.code(positive, "positive")
    d = (enc.y == code).astype(np.int64)
    a = (enc.preds[:, 0] == code).astype(np.int64)
    b = (enc.preds[:, 1] == code).astype(np.int64)
    cells = np.bincount(4 * d + 2 * a + b, minlength=8).reshape(2, 2, 2)
    return cells, enc.label(code)


def gs_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    positive: Any = 1,
    weighted: bool = False,
) -> TestResult:
    """Generalized score test of equal precision of two classifiers for one class.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings).
    y_pred_a, y_pred_b : array-like of shape (n,)
        Predictions of classifiers A and B on the same observations.
    positive : label
        The class whose precision is compared (one-vs-rest); default 1.
    weighted : bool
        False: Leisenring, Alonzo & Pepe's GS (DTComPair ``pv.gs``; Gondara's choice).
        True: Kosinski's weighted GS (``pv.wgs``; better type-I error in small samples).

    Returns
    -------
    TestResult
        ``statistic`` chi-square(1), ``pvalue``, ``estimate`` = P_a - P_b (no interval: use
        :func:`wald_test` or :func:`rp_test` for one); ``details`` holds both precisions and
        both numbers of positive predictions. Identical predictions of the class give
        statistic 0, p-value 1, ``degenerate=True``.

    Raises
    ------
    ValueError
        When ``positive`` is not a label in the data, or a classifier never predicts it.

    Notes
    -----
    See :func:`gs_from_cells` for the formula (docs/methods.md §6.2). H0: the two population
    precisions are equal; the statistic accounts for the correlation between the precisions
    that comes from both classifiers labelling the same observations.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351. Kosinski (2013), Stat Med
    32:964-977. Gondara (2016), "Classifier comparison using precision".

    Examples
    --------
    Two classifiers that flag 5 and 4 items as class 1:

    >>> y_true = [1, 1, 1, 0, 0, 1, 0, 1, 1, 0]
    >>> res = gs_test(y_true, [1, 1, 1, 1, 1, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0, 1, 0, 0])
    >>> round(res.details["precision_a"], 2), round(res.details["precision_b"], 2)
    (0.6, 1.0)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (3.0857, 0.079)

    With so few predictions a difference of 0.6 against 1.0 is not significant at the 5 %
    level, and the result carries a note that the sample is too small for the approximation.
    """
    weighted = check_bool(weighted, "weighted")
    cells, label = _binary_cells(y_true, y_pred_a, y_pred_b, positive)
    method = "wgs" if weighted else "gs"
    return _paired_result(cells, method, 0.95, label, ("y_pred_a", "y_pred_b"))


def gw_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    positive: Any = 1,
    confidence_level: float = 0.95,
) -> TestResult:
    """GEE empirical Wald test of equal precision (logit scale) for one class, in closed form.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like of shape (n,)
    positive : label
        The class whose precision is compared; default 1.
    confidence_level : float
        Level of the interval for the log odds ratio.

    Returns
    -------
    TestResult
        ``statistic`` chi-square(1); ``estimate`` = logit P_a - logit P_b, the log odds ratio
        of precision odds of A over B, with ``ci_low``/``ci_high`` on the log scale;
        ``details`` holds ``odds_ratio`` with ``odds_ratio_ci_low``/``odds_ratio_ci_high``,
        ``se`` and the precisions.

    Raises
    ------
    ValueError
        When a classifier never predicts the class, or a precision is 0 or 1 (its logit is
        infinite: the GEE does not converge to a finite estimate; geepack reports a huge,
        meaningless Wald statistic instead).

    Notes
    -----
    Equal to the Wald test of ``beta`` in the GEE ``logit Pr(D = 1 | f, x = 1) = alpha +
    beta f`` fitted to the positive predictions (f = 1 for A) with observations as clusters,
    independence working correlation and robust (sandwich) covariance — statsmodels ``GEE``
    or geepack ``geeglm`` — computed from counts without fitting (docs/methods.md §6.3, §7).
    ``exp(beta)`` is an odds ratio: the odds that A's positive prediction is correct over
    the odds that B's is, not a ratio of "chances of detecting" the class.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000); Liang & Zeger (1986), Biometrika 73:13-22.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 2000)
    >>> a = np.where(rng.random(2000) < 0.80, y, 1 - y)  # right 80 % of the time
    >>> b = np.where(rng.random(2000) < 0.85, y, 1 - y)  # right 85 % of the time
    >>> res = gw_test(y, a, b)
    >>> round(res.details["odds_ratio"], 2), res.pvalue < 0.05
    (0.69, True)

    A's positive predictions have about 30 % lower odds of being correct than B's.
    """
    cells, label = _binary_cells(y_true, y_pred_a, y_pred_b, positive)
    return _paired_result(cells, "gw", confidence_level, label, ("y_pred_a", "y_pred_b"))


def wald_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    positive: Any = 1,
    confidence_level: float = 0.95,
) -> TestResult:
    """Multinomial Wald test of equal precision on the identity scale, with a CI for P_a - P_b.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like of shape (n,)
    positive : label
        The class whose precision is compared; default 1.
    confidence_level : float
        Level of the interval for P_a - P_b.

    Returns
    -------
    TestResult
        ``statistic`` chi-square(1); ``estimate`` = P_a - P_b with its Wald interval
        (``details['se']``). Defined also when a precision is 0 or 1.

    Notes
    -----
    See :func:`wald_from_cells` (docs/methods.md §6.4, Gondara, eq. 31-33). Unlike the logit-scale GW
    test it exists when a precision is 0 or 1.

    References
    ----------
    Gondara (2016), "Classifier comparison using precision", eq 31-33.

    Examples
    --------
    >>> y_true = [1] * 6 + [0] * 4
    >>> res = wald_test(y_true, [1, 1, 1, 1, 0, 0, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    >>> round(res.estimate, 4), round(res.ci_low, 3), round(res.ci_high, 3)
    (-0.1905, -0.455, 0.074)

    A's precision (4/6) is 0.19 below B's (6/7); with ten observations the interval runs from
    0.46 below to 0.07 above: no conclusion either way.
    """
    cells, label = _binary_cells(y_true, y_pred_a, y_pred_b, positive)
    return _paired_result(cells, "wald", confidence_level, label, ("y_pred_a", "y_pred_b"))


def rp_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    positive: Any = 1,
    confidence_level: float = 0.95,
) -> TestResult:
    """Relative precision P_a / P_b with its confidence interval and test (Moskowitz & Pepe).

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like of shape (n,)
    positive : label
        The class whose precision is compared; default 1.
    confidence_level : float
        Level of the interval.

    Returns
    -------
    TestResult
        ``estimate`` = RP = P_a / P_b with ``ci_low``, ``ci_high``; ``statistic`` = log RP /
        SE (standard normal; ``df`` None), two-sided ``pvalue``; ``details['se_log_rp']``.

    Raises
    ------
    ValueError
        When a classifier never predicts the class or has precision 0.

    Notes
    -----
    See :func:`rp_from_cells` (Gondara, eq. 15-21 with the variance on cell proportions, docs/methods.md §6.5). The orientation is explicit: A over B (DTComPair 1.2.2 reports B over A; its
    version 1.0.3, used in Gondara's Table 6, A over B). The interval answers "how much more
    precise" directly, which is what readers wary of p-values need.

    References
    ----------
    Moskowitz & Pepe (2006), Clinical Trials 3:272-279.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 3000)
    >>> a = np.where(rng.random(3000) < 0.80, y, 1 - y)
    >>> b = np.where(rng.random(3000) < 0.80, y, 1 - y)
    >>> res = rp_test(y, a, b)
    >>> round(res.estimate, 3), round(res.ci_low, 3), round(res.ci_high, 3)
    (1.027, 0.998, 1.057)

    The interval holds 1, so the data are consistent with equal precision; they also rule out
    A being more than about 6 % more precise than B, or B more than 0.2 % more precise than A.
    """
    cells, label = _binary_cells(y_true, y_pred_a, y_pred_b, positive)
    return _paired_result(cells, "rp", confidence_level, label, ("y_pred_a", "y_pred_b"))


# --------------------------------------------------------------------------------------------
# per-class table for two classifiers
# --------------------------------------------------------------------------------------------

_COMPARE_COLUMNS = [
    "class", "precision_a", "precision_b", "n_pred_a", "n_pred_b", "gs_statistic", "gs_pvalue",
    "wgs_statistic", "wgs_pvalue", "gw_statistic", "gw_pvalue", "rp", "rp_ci_low", "rp_ci_high",
    "rp_pvalue", "note",
]


def _row_notes(gs, gw, rp, cells: _Cells) -> list[str]:
    """One plain-language note per class: why a test is missing or degenerate."""
    m_a, m_b = np.atleast_1d(gs["n_pred_a"]), np.atleast_1d(gs["n_pred_b"])
    p_a, p_b = np.atleast_1d(gs["precision_a"]), np.atleast_1d(gs["precision_b"])
    identical = np.atleast_1d(gs["identical"])
    gs_deg = np.atleast_1d(gs["degenerate"])
    logit_bad = np.atleast_1d(gw["logit_undefined"])
    rp_zero = np.atleast_1d(rp["zero_precision"])
    notes = []
    for i in range(len(m_a)):
        parts = []
        never = [name for name, m in (("A", m_a[i]), ("B", m_b[i])) if m == 0]
        if never:
            parts.append(f"never predicted by {' and '.join(never)}: precision undefined, "
                         f"no test")
            notes.append("; ".join(parts))
            continue
        if identical[i]:
            parts.append("A and B predict this class on the same observations: statistics 0, "
                         "p-values 1")
        elif gs_deg[i]:
            which = "right" if p_a[i] == 1 else "wrong"
            parts.append(f"every positive prediction of both is {which}: GS statistics 0, "
                         f"p-values 1")
        if logit_bad[i]:
            at_limit = [name for name, p in (("A", p_a[i]), ("B", p_b[i])) if p in (0.0, 1.0)]
            value = p_a[i] if at_limit[0] == "A" else p_b[i]
            parts.append(f"precision of {' and '.join(at_limit)} is {value:g}: logit infinite, "
                         f"no GEE Wald test")
        if rp_zero[i]:
            parts.append("a precision is 0: relative precision undefined")
        if min(m_a[i], m_b[i]) < _SMALL_M:
            parts.append(f"only {int(min(m_a[i], m_b[i]))} positive predictions by one "
                         f"classifier: p-values unreliable")
        notes.append("; ".join(parts))
    return notes


def _counts_dtype(values: np.ndarray) -> np.ndarray:
    """Whole-number counts as int64; expected (fractional) counts stay float."""
    arr = np.asarray(values, dtype=float)
    return arr.astype(np.int64) if np.all(arr == np.round(arr)) else arr


def compare_precision_from_counts(
    counts: Any,
    *,
    classes: Sequence[Any] | None = None,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Per-class precision comparison of two classifiers from joint counts.

    Parameters
    ----------
    counts : JointConfusion, array of shape (K, K, K), or cells of shape (K, 2, 2, 2)
        The joint confusion tensor ``[true, A, B]`` (see :func:`joint_confusion`) or the
        per-class cells of :func:`class_cells`.
    classes : sequence, optional
        Class labels for the rows (taken from a JointConfusion; else 0..K-1).
    confidence_level : float
        Level of the RP intervals.

    Returns
    -------
    DataFrame
        One row per class; columns as :func:`compare_precision`.

    Notes
    -----
    The counts entry point of :func:`compare_precision`: the kernels run on all classes at once.

    References
    ----------
    See :func:`compare_precision`.

    Examples
    --------
    >>> cells = np.array([[[[155, 22], [53, 31]], [[32, 22], [78, 319]]]])  # Paired1
    >>> compare_precision_from_counts(cells)[["gs_pvalue", "wgs_pvalue", "gw_pvalue"]].round(5)
       gs_pvalue  wgs_pvalue  gw_pvalue
    0    0.01686     0.01939    0.02001
    """
    level = check_probability(confidence_level, "confidence_level")
    if isinstance(counts, JointConfusion):
        classes = list(counts.classes) if classes is None else classes
        counts = counts.table
    arr = np.asarray(counts)
    if arr.ndim == 3:
        cells = class_cells(arr)
    elif arr.ndim == 4 and arr.shape[1:] == (2, 2, 2):
        cells = arr
    else:
        raise ValueError(
            f"counts must be a JointConfusion, a (K, K, K) joint confusion tensor or (K, 2, 2, 2) "
            f"cells; got shape {arr.shape}"
        )
    k = cells.shape[0]
    classes = list(range(k)) if classes is None else list(classes)
    if len(classes) != k:
        raise ValueError(f"classes must have {k} labels; got {len(classes)}")
    gs = _gs_parts(cells, False)
    wgs = _gs_parts(cells, True)
    gw = _gw_parts(cells, level)
    rp = _rp_parts(cells, level)
    out = pd.DataFrame({
        "class": [v.item() if isinstance(v, np.generic) else v for v in classes],
        "precision_a": gs["precision_a"],
        "precision_b": gs["precision_b"],
        "n_pred_a": _counts_dtype(gs["n_pred_a"]),
        "n_pred_b": _counts_dtype(gs["n_pred_b"]),
        "gs_statistic": gs["statistic"],
        "gs_pvalue": gs["pvalue"],
        "wgs_statistic": wgs["statistic"],
        "wgs_pvalue": wgs["pvalue"],
        "gw_statistic": gw["statistic"],
        "gw_pvalue": gw["pvalue"],
        "rp": rp["estimate"],
        "rp_ci_low": rp["ci_low"],
        "rp_ci_high": rp["ci_high"],
        "rp_pvalue": rp["pvalue"],
        "note": _row_notes(gs, gw, rp, _split(cells)),
    })
    return out[_COMPARE_COLUMNS]


def compare_precision(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    confidence_level: float = 0.95,
    labels: Sequence[Any] | None = None,
) -> pd.DataFrame:
    """Compare the precision of two classifiers class by class: GS, WGS, GEE Wald and RP.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings).
    y_pred_a, y_pred_b : array-like of shape (n,)
        Predictions of classifiers A and B on the same observations.
    confidence_level : float
        Level of the relative-precision intervals.
    labels : sequence, optional
        The classes, in row order (default: sorted union of the labels that occur).

    Returns
    -------
    DataFrame
        One row per class (one-vs-rest) with columns ``class``, ``precision_a``,
        ``precision_b``, ``n_pred_a``, ``n_pred_b`` (positive predictions), ``gs_statistic``,
        ``gs_pvalue`` (generalized score), ``wgs_statistic``, ``wgs_pvalue`` (weighted GS),
        ``gw_statistic``, ``gw_pvalue`` (GEE empirical Wald), ``rp``, ``rp_ci_low``,
        ``rp_ci_high``, ``rp_pvalue`` (relative precision A / B) and ``note``. A test that
        does not exist for a class (class never predicted; a precision of 0 or 1 for the
        logit-scale GW; a precision of 0 for RP) is NaN with the reason in ``note``. The
        p-values are per class: adjust across classes (Holm, :func:`adjust_pvalues`) or
        combine them for a global test.

    Notes
    -----
    One pass over the data builds the joint confusion tensor (:func:`joint_confusion`); each
    test is then a closed form of the per-class 2 x 2 x 2 cells (docs/methods.md §6), evaluated
    for all classes at once. The macro-averaged precision hides class-specific differences
    (Gondara, eq. 1, docs/methods.md §11): compare per class.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000); Kosinski (2013); Moskowitz & Pepe (2006);
    Gondara (2016), Tables 5-6.

    Examples
    --------
    B sends half of its errors to class 0:

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 3000)
    >>> a = np.where(rng.random(3000) < 0.8, y, rng.integers(0, 3, 3000))
    >>> dump = np.where(rng.random(3000) < 0.5, 0, rng.integers(0, 3, 3000))
    >>> b = np.where(rng.random(3000) < 0.8, y, dump)
    >>> tab = compare_precision(y, a, b)
    >>> tab[["class", "precision_a", "precision_b", "gs_pvalue", "rp", "rp_ci_low", "rp_ci_high"]].round(3)
       class  precision_a  precision_b  gs_pvalue     rp  rp_ci_low  rp_ci_high
    0      0        0.864        0.760      0.000  1.137      1.098       1.178
    1      1        0.857        0.930      0.000  0.922      0.896       0.949
    2      2        0.890        0.920      0.018  0.967      0.941       0.994
    >>> tab[["precision_a", "precision_b"]].mean().round(3).tolist()  # macro averages
    [0.87, 0.87]

    The macro averages agree, yet A is about 14 % more precise for class 0 and B 3-8 % more
    precise for classes 1 and 2, each difference beyond chance at the 5 % level.
    """
    level = check_probability(confidence_level, "confidence_level")
    jc_or_cells = joint_confusion_or_cells(y_true, y_pred_a, y_pred_b, labels=labels)
    if isinstance(jc_or_cells, JointConfusion):
        return compare_precision_from_counts(jc_or_cells, confidence_level=level)
    cells, classes = jc_or_cells
    return compare_precision_from_counts(cells, classes=classes, confidence_level=level)


# --------------------------------------------------------------------------------------------
# c classifiers: GEE in closed form
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GEEPrecisionResult:
    """Per-class comparison of the precision of several classifiers by GEE (closed form).

    Attributes
    ----------
    precision : DataFrame
        ``class``, ``model``, ``n_predicted``, ``n_correct``, ``precision``.
    coefficients : DataFrame
        Each model against the reference, per class: ``class``, ``model``,
        ``log_odds_ratio`` (logit P_model - logit P_reference), ``se`` (robust),
        ``odds_ratio``, ``ci_low``, ``ci_high`` (interval for the odds ratio),
        ``statistic`` (Wald chi-square, 1 df), ``pvalue``, ``note``.
    joint : DataFrame
        The omnibus Wald test of equal precision of all models, per class: ``class``,
        ``statistic``, ``df`` (c - 1, less if the covariance is singular), ``pvalue``,
        ``note``.
    pairwise : DataFrame
        Every pair, per class: ``class``, ``model_a``, ``model_b``, ``statistic`` (Wald
        chi-square of logit P_a - logit P_b), ``pvalue``, ``pvalue_holm`` (Holm over the
        pairs of that class), ``note``. The one exception to the library's naming of
        adjusted p-values (``pvalue_adjusted``, with the method in ``attrs["adjustment"]``):
        the public API contract names this column ``pvalue_holm``, and it keeps that name.
    reference : str
        The reference model.
    models : tuple of str
    confidence_level : float
    n_rows, n_clusters : int
        Rows used and distinct observations (clusters).
    covariance : dict
        Per class, the robust covariance of (intercept, coefficients) in reference coding,
        as a DataFrame (the ``cov_params()`` of the equivalent fitted GEE).
    """

    precision: pd.DataFrame
    coefficients: pd.DataFrame
    joint: pd.DataFrame
    pairwise: pd.DataFrame
    reference: str
    models: tuple[str, ...]
    confidence_level: float
    n_rows: int
    n_clusters: int
    covariance: Mapping[Any, pd.DataFrame] = field(default_factory=dict, repr=False)

    def _repr_html_(self) -> str:
        return (
            f"<div><strong>GEE precision comparison</strong> (reference: "
            f"{self.reference}; {self.n_clusters} observations)"
            f"<p>Joint Wald test per class</p>{self.joint.to_html(index=False)}"
            f"<p>Odds ratios against the reference</p>"
            f"{self.coefficients.to_html(index=False)}</div>"
        )


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def gee_precision_from_counts(
    counts: PatternCounts | PrecisionMoments,
    *,
    reference: str | None = None,
    confidence_level: float = 0.95,
) -> GEEPrecisionResult:
    """Multi-classifier GEE comparison of precision from pattern counts or moments.

    The counts entry point of :func:`gee_precision`.

    Parameters
    ----------
    counts : PatternCounts or PrecisionMoments
        From :func:`precmp_lib.counts.pattern_counts` (or ``PatternCounts.from_patterns``)
        or :func:`precmp_lib.counts.precision_moments`.
    reference : str, optional
        Name of the reference model (default: the first).
    confidence_level : float
        Level of the odds-ratio intervals.

    Returns
    -------
    GEEPrecisionResult

    Notes
    -----
    See :func:`gee_precision` for the model and the closed-form sandwich (docs/methods.md §7).

    References
    ----------
    Liang & Zeger (1986), Biometrika 73:13-22. Gondara (2016), Algorithms 1-2.

    Examples
    --------
    docs/methods.md §7, worked example 2 (three classifiers, one class):

    >>> from precmp_lib.counts import PatternCounts
    >>> pc = PatternCounts.from_patterns(
    ...     {"111": 40, "110": 8, "101": 6, "011": 5, "100": 4, "010": 3, "001": 7},
    ...     {"111": 6, "110": 3, "101": 4, "011": 2, "100": 5, "010": 6, "001": 9})
    >>> res = gee_precision_from_counts(pc)
    >>> res.joint[["statistic", "df", "pvalue"]].round(6)
       statistic  df    pvalue
    0   0.569331   2  0.752266
    """
    level = check_probability(confidence_level, "confidence_level")
    z = float(norm_isf((1 - level) / 2))
    moments = _as_moments(counts)
    names = tuple(moments.names)
    ref = _reference_position(names, reference)
    prec_rows, coef_rows, joint_rows, pair_rows = [], [], [], []
    covariance = {}
    for fit in _class_fits(moments, ref):
        prec_rows += [{"class": fit.label, "model": name, "n_predicted": int(fit.m[j]),
                       "n_correct": int(fit.tp[j]), "precision": fit.p[j]}
                      for j, name in enumerate(names)]
        coef_rows += [_coefficient_row(fit, j, z) for j in fit.others]
        pair_rows += _pairwise_rows(fit)
        joint_rows.append(_joint_row(fit))
        covariance[fit.label] = _reference_covariance(fit)
    return GEEPrecisionResult(
        precision=pd.DataFrame(prec_rows, columns=["class", "model", "n_predicted",
                                                   "n_correct", "precision"]),
        coefficients=pd.DataFrame(coef_rows, columns=[
            "class", "model", "log_odds_ratio", "se", "odds_ratio", "ci_low", "ci_high",
            "statistic", "pvalue", "note"]),
        joint=pd.DataFrame(joint_rows, columns=["class", "statistic", "df", "pvalue", "note"]),
        pairwise=pd.DataFrame(pair_rows, columns=["class", "model_a", "model_b", "statistic",
                                                  "pvalue", "pvalue_holm", "note"]),
        reference=names[ref], models=names, confidence_level=level,
        n_rows=int(moments.n_rows), n_clusters=int(moments.n_clusters), covariance=covariance,
    )


def _as_moments(counts: Any) -> PrecisionMoments:
    """Return the moments of pattern counts (or the moments themselves)."""
    if isinstance(counts, PatternCounts):
        return counts.moments()
    if isinstance(counts, PrecisionMoments):
        return counts
    raise ValueError(
        f"counts must be PatternCounts or PrecisionMoments; got {type(counts).__name__}"
    )


def _reference_position(names: tuple[str, ...], reference: str | None) -> int:
    """Return the position of the reference model (default the first); check there are two."""
    if len(names) < 2:
        raise ValueError(f"y_preds must hold at least 2 classifiers; got {len(names)}")
    if reference is None:
        reference = names[0]
    if str(reference) not in names:
        raise ValueError(f"reference must be one of the models {list(names)}; got {reference!r}")
    return names.index(str(reference))


@dataclass(frozen=True)
class _ClassFit:
    """The closed-form GEE of one class: counts, precisions, robust covariance of the logits.

    ``v`` is the sandwich covariance of (logit P_1, ..., logit P_c); ``why`` says, for each
    model whose logit is not finite, why (it never predicts the class, or its precision is
    0 or 1).
    """

    label: Any
    names: tuple[str, ...]
    ref: int
    tp: np.ndarray
    fp: np.ndarray
    m: np.ndarray
    p: np.ndarray
    v: np.ndarray
    why: dict[str, str]

    @property
    def others(self) -> list[int]:
        """Positions of the models other than the reference."""
        return [j for j in range(len(self.names)) if j != self.ref]

    def log_odds_ratio(self, j: int, i: int) -> float:
        """Logit P_j - logit P_i from count products (exactly 0 when the odds are equal)."""
        return float(np.log((self.tp[j] * self.fp[i]) / (self.fp[j] * self.tp[i])))

    def contrast(self, j: int, i: int) -> tuple[float, float, float, bool]:
        """Wald test of logit P_j = logit P_i: estimate, variance, statistic, degenerate."""
        estimate = self.log_odds_ratio(j, i)
        v = self.v
        var = v[j, j] + v[i, i] - 2 * v[j, i]
        stat, deg = _ratio(np.asarray(estimate**2), np.asarray(var), np.asarray(v[j, j] + v[i, i]))
        return estimate, float(var), float(stat), bool(deg)

    def reason(self, *models: int) -> str:
        """Why some of ``models`` have no finite logit ("" when all have one)."""
        return "; ".join(self.why[self.names[j]] for j in models if self.names[j] in self.why)


def _class_fits(moments: PrecisionMoments, ref: int) -> list[_ClassFit]:
    """Fit every class: the sandwich ``V = A^-1 B A^-1`` of docs/methods.md §7 in the moments."""
    tp = moments.n_correct.astype(float)
    fp = moments.n_wrong.astype(float)
    m = tp + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        p = tp / m
        q = fp / m
        info = tp * fp / m  # M_j P_j Q_j: the bread, diagonal
        pj, qj = p[:, :, None], q[:, :, None]
        pl, ql = p[:, None, :], q[:, None, :]
        meat = (qj * ql * moments.cc - qj * pl * moments.cw
                - pj * ql * np.swapaxes(moments.cw, 1, 2) + pj * pl * moments.ww)
        v_eta = meat / (info[:, :, None] * info[:, None, :])
    valid = (tp > 0) & (fp > 0)
    names = tuple(moments.names)
    fits = []
    for k, label in enumerate(moments.classes):
        why = {}
        for j, name in enumerate(names):
            if m[k, j] == 0:
                why[name] = f"{name} never predicts this class"
            elif not valid[k, j]:
                why[name] = f"precision of {name} is {p[k, j]:g} (logit infinite)"
        fits.append(_ClassFit(label=_plain(label), names=names, ref=ref, tp=tp[k], fp=fp[k],
                              m=m[k], p=p[k], v=v_eta[k], why=why))
    return fits


def _coefficient_row(fit: _ClassFit, j: int, z: float) -> dict[str, Any]:
    """Model j against the reference: log odds ratio, its interval and Wald test."""
    row: dict[str, Any] = {"class": fit.label, "model": fit.names[j]}
    reason = fit.reason(fit.ref, j)
    if reason:
        row.update(log_odds_ratio=np.nan, se=np.nan, odds_ratio=np.nan, ci_low=np.nan,
                   ci_high=np.nan, statistic=np.nan, pvalue=np.nan,
                   note=f"{reason}: no Wald estimate")
        return row
    beta, var, stat, deg = fit.contrast(j, fit.ref)
    se = 0.0 if deg else float(np.sqrt(max(var, 0.0)))
    row.update(log_odds_ratio=beta, se=se, odds_ratio=np.exp(beta),
               ci_low=np.exp(beta - z * se), ci_high=np.exp(beta + z * se),
               statistic=stat, pvalue=float(chi2_sf(stat, 1)),
               note=(f"{fit.names[j]} and {fit.names[fit.ref]} predict this class identically"
                     if deg else ""))
    return row


def _pairwise_rows(fit: _ClassFit) -> list[dict[str, Any]]:
    """Every pair of models: Wald test of equal logits, Holm-adjusted within the class."""
    rows: list[dict[str, Any]] = []
    for i, j in combinations(range(len(fit.names)), 2):
        row: dict[str, Any] = {"class": fit.label, "model_a": fit.names[i],
                               "model_b": fit.names[j]}
        reason = fit.reason(i, j)
        if reason:
            row.update(statistic=np.nan, pvalue=np.nan, note=f"{reason}: no Wald test")
        else:
            _, _, stat, deg = fit.contrast(i, j)
            row.update(statistic=stat, pvalue=float(chi2_sf(stat, 1)),
                       note=(f"{fit.names[i]} and {fit.names[j]} predict this class identically"
                             if deg else ""))
        rows.append(row)
    holm = adjust_pvalues(np.array([row["pvalue"] for row in rows], dtype=float), "holm")
    for row, value in zip(rows, holm, strict=True):
        row["pvalue_holm"] = value
    return rows


def _joint_row(fit: _ClassFit) -> dict[str, Any]:
    """Omnibus Wald test of equal precision of all models (pseudo-inverse when singular)."""
    c = len(fit.names)
    if fit.why:
        return {"class": fit.label, "statistic": np.nan, "df": c - 1, "pvalue": np.nan,
                "note": "; ".join(fit.why.values()) + ": no joint Wald test"}
    others = fit.others
    contrast = np.zeros((c - 1, c))
    contrast[np.arange(c - 1), others] = 1.0
    contrast[:, fit.ref] = -1.0
    beta = np.array([fit.log_odds_ratio(j, fit.ref) for j in others])
    w_eig, u_eig = np.linalg.eigh(contrast @ fit.v @ contrast.T)
    keep = w_eig > 1e-10 * np.nanmax(np.abs(np.diag(fit.v)))
    rank = int(keep.sum())
    if rank == 0:
        return {"class": fit.label, "statistic": 0.0, "df": c - 1, "pvalue": 1.0,
                "note": "all models predict this class identically: statistic 0, p-value 1"}
    proj = u_eig.T @ beta
    stat = float(np.sum(proj[keep] ** 2 / w_eig[keep]))
    note = ""
    if rank < c - 1:
        note = (f"covariance singular (some models predict this class identically): "
                f"pseudo-inverse, df = {rank}")
    return {"class": fit.label, "statistic": stat, "df": rank,
            "pvalue": float(chi2_sf(stat, rank)), "note": note}


def _reference_covariance(fit: _ClassFit) -> pd.DataFrame:
    """Robust covariance of (intercept, coefficients) in reference coding."""
    c = len(fit.names)
    coding = np.zeros((c, c))
    coding[0, fit.ref] = 1.0
    for r, j in enumerate(fit.others, start=1):
        coding[r, j], coding[r, fit.ref] = 1.0, -1.0
    labels_theta = ["(intercept)", *(fit.names[j] for j in fit.others)]
    cov = coding @ np.where(np.isfinite(fit.v), fit.v, np.nan) @ coding.T
    return pd.DataFrame(cov, index=labels_theta, columns=labels_theta)


def gee_precision(
    y_true: Any,
    y_preds: Any,
    *,
    reference: str | None = None,
    groups: Any = None,
    confidence_level: float = 0.95,
    labels: Sequence[Any] | None = None,
) -> GEEPrecisionResult:
    """Compare the precision of any number of classifiers per class: GEE logistic model, closed form.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True label of each row.
    y_preds : mapping name -> predictions, DataFrame of prediction columns, 2-D array or sequence
        Each classifier's predicted label of each row (at least two classifiers).
    reference : str, optional
        The reference model (the state of the art you compare against); default the first.
    groups : array-like of shape (n,), optional
        Observation id of each row when rows repeat — stacked out-of-fold predictions of
        repeated cross-validation (Gondara's Algorithm 2): the cluster is the observation.
    confidence_level : float
        Level of the odds-ratio intervals.
    labels : sequence, optional
        The classes, in order.

    Returns
    -------
    GEEPrecisionResult
        ``.precision``, ``.coefficients`` (odds ratios against the reference with CIs),
        ``.joint`` (omnibus Wald test, df = c - 1) and ``.pairwise`` (every pair, Holm-adjusted
        within the class) DataFrames, one block per class.

    Notes
    -----
    For each class k the model (Gondara's Algorithm 1) is ``logit Pr(D = 1 | model j,
    predicted k) = alpha + beta_j`` on the rows each model predicts as k, with observations as
    clusters, independence working correlation and the robust sandwich covariance. It is
    saturated, so ``alpha = logit P_ref`` and ``beta_j = logit P_j - logit P_ref``; the
    sandwich has the closed form of docs/methods.md §7 in the per-observation counts::

        A = diag(M_j P_j Q_j),  B_jl = sum_i (a_ij - P_j m_ij)(a_il - P_l m_il),  V = A^-1 B A^-1

    (``m_ij`` rows of observation i that model j predicts as k, ``a_ij`` of them correct), so
    nothing is fitted and the result equals statsmodels ``GEE`` (Binomial, Independence) and
    geepack ``geeglm`` to rounding. Joint test ``W = beta' V_beta^-1 beta ~ chi2(c - 1)``
    (a pseudo-inverse with reduced df when models coincide); pairwise
    ``(eta_j - eta_l)^2 / (V_jj + V_ll - 2 V_jl) ~ chi2(1)``. Identical repeats of every row
    (the same folds reused) leave every statistic unchanged.

    An odds ratio of 1.5 means the model's positive predictions have 1.5 times the odds of
    being correct of the reference's — precision odds, not "50 % higher chances of detecting"
    the class (that would be recall). A model with precision 0 or 1 for a class has an
    infinite logit: its rows are NaN with a note.

    References
    ----------
    Liang & Zeger (1986), Biometrika 73:13-22. Leisenring, Alonzo & Pepe (2000).
    Gondara (2016), "Classifier comparison using precision", Algorithms 1-2, Tables 8-9.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 4000)
    >>> preds = {name: np.where(rng.random(4000) < acc, y, 1 - y)
    ...          for name, acc in [("ref", 0.80), ("same", 0.80), ("better", 0.88)]}
    >>> res = gee_precision(y, preds)
    >>> res.joint.round(4)[["class", "df", "pvalue"]]
       class  df  pvalue
    0      0   2     0.0
    1      1   2     0.0
    >>> res.coefficients.query("`class` == 1")[["model", "odds_ratio", "ci_low", "ci_high"]].round(2)
        model  odds_ratio  ci_low  ci_high
    2    same        1.00    0.87     1.14
    3  better        1.83    1.57     2.14

    For class 1, the positive predictions of "better" have 1.8 times the odds of being right
    of the reference's; "same" is indistinguishable from it.
    """
    mapping = as_prediction_mapping(y_preds)
    if len(mapping) < 2:
        raise ValueError(f"y_preds must hold at least 2 classifiers; got {len(mapping)}")
    moments = precision_moments(y_true, mapping, groups=groups, labels=labels)
    return gee_precision_from_counts(moments, reference=reference,
                                     confidence_level=confidence_level)


def _moment_square(mo: PrecisionMoments, i: int, j: int, coef: tuple) -> np.ndarray:
    """Return ``sum_i L_i^2`` per class for ``L_i = al1 a_i1 + be1 w_i1 + al2 a_i2 + be2 w_i2``.

    ``a_ij`` (``w_ij``) counts the rows of cluster i that classifier j predicts as the class
    rightly (wrongly); every coefficient is an array over classes.
    """
    al1, be1, al2, be2 = coef
    cc, ww, cw = (x.astype(float) for x in (mo.cc, mo.ww, mo.cw))
    return (al1**2 * cc[:, i, i] + be1**2 * ww[:, i, i] + al2**2 * cc[:, j, j]
            + be2**2 * ww[:, j, j] + 2 * al1 * be1 * cw[:, i, i] + 2 * al2 * be2 * cw[:, j, j]
            + 2 * al1 * al2 * cc[:, i, j] + 2 * be1 * be2 * ww[:, i, j]
            + 2 * al1 * be2 * cw[:, i, j] + 2 * be1 * al2 * cw[:, j, i])


def _chi2_or_degenerate(num: np.ndarray, var: np.ndarray, scale: np.ndarray):
    """num^2/var with chi2(1) p-values; a variance at rounding level of its scale gives 0, 1."""
    zero = ~(var > _ZERO_TOL * np.where(scale > 0, scale, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(zero, 0.0, num**2 / np.where(zero, 1.0, var))
    return stat, chi2_sf(stat, 1), zero


def _check_pair(moments: Any, a: Any, b: Any) -> None:
    """Check that ``a`` and ``b`` are two positions of classifiers in ``moments.names``."""
    if not isinstance(moments, PrecisionMoments):
        raise TypeError(f"moments must be PrecisionMoments; got {type(moments).__name__}")
    n_models = len(moments.names)
    for name, j in (("a", a), ("b", b)):
        check_positive_int(j, name, minimum=0)
        if j >= n_models:
            raise ValueError(f"{name} must be the position of a classifier in moments.names "
                             f"(0 to {n_models - 1}); got {j}")
    if a == b:
        raise ValueError(f"a and b must be two different classifiers; got a = b = {a}")


def _moment_notes(m1: np.ndarray, m2: np.ndarray, identical: np.ndarray, logit_ok: np.ndarray,
                  rp_ok: np.ndarray) -> list[str]:
    """Write one plain-language note per class of the clustered table: why a test is missing."""
    notes = []
    for k in range(len(m1)):
        if m1[k] == 0 or m2[k] == 0:
            never = " and ".join(n for n, m in (("A", m1[k]), ("B", m2[k])) if m == 0)
            notes.append(f"never predicted by {never}: precision undefined, no test")
            continue
        parts = []
        if identical[k]:
            parts.append("A and B predict this class alike: statistics 0, p-values 1")
        if not logit_ok[k]:
            parts.append("a precision is 0 or 1: logit infinite, no GEE Wald test")
        if not rp_ok[k]:
            parts.append("a precision is 0: relative precision undefined")
        if min(m1[k], m2[k]) < _SMALL_M:
            parts.append(f"only {int(min(m1[k], m2[k]))} positive predictions by one "
                         "classifier: p-values unreliable")
        notes.append("; ".join(parts))
    return notes


def compare_precision_from_moments(
    moments: PrecisionMoments,
    *,
    a: int = 0,
    b: int = 1,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Per-class precision comparison of two classifiers, clustered on the observation.

    The four tests of :func:`compare_precision` (GS, weighted GS, GEE Wald, relative
    precision) written as sums over clusters, for predictions that repeat observations
    (repeated cross-validation; the cluster is the observation).

    Parameters
    ----------
    moments : PrecisionMoments
        From :func:`precmp_lib.counts.moments_from_patterns` (with ``clusters``) or
        :func:`precmp_lib.counts.precision_moments` (with ``groups``).
    a, b : int
        Positions of classifiers A and B in ``moments.names``.
    confidence_level : float
        Level of the RP intervals.

    Returns
    -------
    DataFrame
        One row per class, columns as :func:`compare_precision`.

    Notes
    -----
    Let ``a_ij`` (``w_ij``) be the rows of observation i that classifier j predicts as the
    class with the truth being (not being) the class. Each statistic is a squared estimate
    over the robust variance ``sum_i L_i^2`` of its per-cluster influence ``L_i``:

    * GS (docs/methods.md §6.2, Gondara, eq. 9 with clusters): ``U = TP_B (1 - Z) - TP_A Z``, ``Z =
      M_B / (M_A + M_B)``, ``L_i = sum over the cluster's positive rows of (D - P)(Z_r - Z)``;
    * weighted GS: ``(P_A - P_B)^2 / [P Q (sum m_iA^2/M_A^2 + sum m_iB^2/M_B^2)
      - 2 sum m_iA m_iB (D_i - P)^2 / (M_A M_B)]``, ``P`` the pooled precision;
    * GEE Wald on the logit scale: ``L_i = (a_iA Q_A - w_iA P_A)/(M_A P_A Q_A) - (same for
      B)`` (docs/methods.md §7, Algorithm 2);
    * RP: ``log P_A - log P_B`` with ``L_i = (a_iA Q_A - w_iA P_A)/TP_A - (same for B)``.

    Without repetitions (clusters of one row) these are exactly the closed forms of
    :func:`compare_precision_from_counts` (Kosinski's GS and WGS, the empirical Wald and
    Moskowitz & Pepe's variance); with repeated rows, the clusters carry the dependence.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351. Kosinski (2013), Stat Med
    32:964-977. Moskowitz & Pepe (2006), Clin Trials 3:272-279. Gondara (2016), Algorithm 2.

    Examples
    --------
    >>> from precmp_lib.counts import moments_from_patterns
    >>> mo = moments_from_patterns([1, 1, 0, 1], [[1, 1], [1, 0], [1, 0], [0, 1]], [5, 3, 2, 1],
    ...                            classes=[0, 1], names=["a", "b"])
    >>> compare_precision_from_moments(mo)[["class", "precision_a", "precision_b"]].round(3)
       class  precision_a  precision_b
    0      0          0.0          0.4
    1      1          0.8          1.0

    Classifier A predicts class 1 ten times, eight of them rightly; B predicts it six times,
    all rightly.
    """
    _check_pair(moments, a, b)
    level = check_probability(confidence_level, "confidence_level")
    z = float(norm_isf((1 - level) / 2))
    tp1, tp2 = (moments.n_correct[:, j].astype(float) for j in (a, b))
    fp1, fp2 = (moments.n_wrong[:, j].astype(float) for j in (a, b))
    m1, m2 = tp1 + fp1, tp2 + fp2
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = tp1 / m1, tp2 / m2
        q1, q2 = 1 - p1, 1 - p2
        pbar = (tp1 + tp2) / (m1 + m2)
        qbar = 1 - pbar
        zb = m2 / (m1 + m2)
        # generalized score
        u = tp2 * (1 - zb) - tp1 * zb
        v_gs = _moment_square(moments, a, b, (-qbar * zb, pbar * zb, qbar * (1 - zb),
                                              -pbar * (1 - zb)))
        # weighted generalized score: pooled-precision variance of P_A - P_B
        sq1 = _moment_square(moments, a, b, (1 / m1, 1 / m1, 0 * m1, 0 * m1))
        sq2 = _moment_square(moments, a, b, (0 * m1, 0 * m1, 1 / m2, 1 / m2))
        cross = (qbar**2 * moments.cc[:, a, b] + pbar**2 * moments.ww[:, a, b]) / (m1 * m2)
        v_wgs = pbar * qbar * (sq1 + sq2) - 2 * cross
        # GEE Wald, logit scale
        eta = np.log(tp1 * fp2 / (fp1 * tp2))
        v_gw = _moment_square(moments, a, b, (1 / tp1, -1 / fp1, -1 / tp2, 1 / fp2))
        # relative precision, log scale
        log_rp = np.log(p1 / p2)
        v_rp = _moment_square(moments, a, b, (q1 / tp1, -1 / m1, -q2 / tp2, 1 / m2))
    defined = (m1 > 0) & (m2 > 0)
    gs_stat, gs_p, gs_zero = _chi2_or_degenerate(u, v_gs, (m1 + m2) ** 2 / 4)
    wgs_stat, wgs_p, _ = _chi2_or_degenerate(p1 - p2, v_wgs, pbar * qbar * (sq1 + sq2))
    logit_ok = defined & (tp1 > 0) & (fp1 > 0) & (tp2 > 0) & (fp2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gw_scale = np.where(logit_ok, 1 / tp1 + 1 / fp1, 1.0)
    gw_stat, gw_p, _ = _chi2_or_degenerate(np.where(logit_ok, eta, 0.0), v_gw, gw_scale)
    rp_ok = defined & (tp1 > 0) & (tp2 > 0)
    se = np.sqrt(np.clip(v_rp, 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        rp_z = np.where(se > 0, log_rp / se, 0.0)
    identical = defined & gs_zero & (p1 == p2)
    notes = _moment_notes(m1, m2, identical, logit_ok, rp_ok)
    nan = np.nan
    out = pd.DataFrame({
        "class": [_plain(c) for c in moments.classes],
        "precision_a": np.where(m1 > 0, p1, nan),
        "precision_b": np.where(m2 > 0, p2, nan),
        "n_pred_a": m1.astype(np.int64),
        "n_pred_b": m2.astype(np.int64),
        "gs_statistic": np.where(defined, gs_stat, nan),
        "gs_pvalue": np.where(defined, gs_p, nan),
        "wgs_statistic": np.where(defined, wgs_stat, nan),
        "wgs_pvalue": np.where(defined, wgs_p, nan),
        "gw_statistic": np.where(logit_ok, gw_stat, nan),
        "gw_pvalue": np.where(logit_ok, gw_p, nan),
        "rp": np.where(rp_ok, np.exp(log_rp), nan),
        "rp_ci_low": np.where(rp_ok, np.exp(log_rp - z * se), nan),
        "rp_ci_high": np.where(rp_ok, np.exp(log_rp + z * se), nan),
        "rp_pvalue": np.where(rp_ok, 2 * norm_sf(np.abs(rp_z)), nan),
        "note": notes,
    })
    return out[_COMPARE_COLUMNS]
