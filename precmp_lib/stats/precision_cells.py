"""Precision tests as vectorised kernels on 2 x 2 x 2 cells.

The cells of one class are the counts of rows by (truth is the class, A predicts it, B
predicts it); every precision test of two classifiers is a function of them, so the same
kernel serves one class, a table of classes and a grid of simulated tables.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._lib.checks import (
    check_bool,
    check_counts,
    check_probability,
)
from .._lib.dist import chi2_sf, norm_isf, norm_sf

__all__ = ['PRECISION_METHODS', 'CellTest', 'gs_from_cells', 'gw_from_cells', 'naive_rp_from_cells', 'naive_z_from_cells', 'rp_from_cells', 'wald_from_cells']


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
    :func:`precision_test_from_cells`, returns a :class:`~precmp_lib.stats.results.TestResult`).
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
