"""Per-class precision comparison: GS, weighted GS, GEE Wald, multinomial Wald, RP, multi-classifier GEE.

Precision ``P = TP / (TP + FP)`` is a conditional probability, and two classifiers' precisions
on the same test set are correlated; tests for independent proportions get both wrong. Every
test here is a closed form of the joint prediction counts (METHODS.md §6-7): the 2 x 2 x 2
cells ``n[d][a][b]`` for two classifiers, the per-class moments of the prediction patterns
for c classifiers. No iterative GEE is fitted; the closed forms equal statsmodels' and
geepack's GEE with independence working correlation and robust covariance.

The ``*_from_cells`` kernels work elementwise over any leading axes of ``cells``
(``(..., 2, 2, 2)``), so whole batches (all classes, resampled tables) run without Python
loops; the single tests and tables call the same kernels.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy import stats

__all__ = [
    "gs_from_cells",
]

# A denominator at most this fraction of its own scale is treated as exactly 0 (rounding).
_ZERO_TOL = 1e-13


def _as_cells(cells: Any) -> np.ndarray:
    arr = np.asarray(cells, dtype=float)
    if arr.ndim < 3 or arr.shape[-3:] != (2, 2, 2):
        raise ValueError(
            f"cells must have shape (..., 2, 2, 2) indexed [truth, A predicts, B predicts]; "
            f"got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("cells must hold finite, non-negative counts")
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
        return sum(self)

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
        "statistic": stat, "pvalue": np.asarray(stats.chi2.sf(stat, 1)), "degenerate": degenerate,
        "undefined": undefined, "precision_a": p_a, "precision_b": p_b,
        "n_pred_a": m_a, "n_pred_b": m_b, "identical": c.identical & ~undefined,
    }


def gs_from_cells(cells: Any, *, weighted: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Generalized score statistic (or Kosinski's weighted version) from 2 x 2 x 2 cells.

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts ``n[d][a][b]`` (METHODS.md §6.1): d = the observation truly is the class of
        interest, a = classifier A predicts it, b = classifier B predicts it. Any leading axes
        (classes, resamples) are kept.
    weighted : bool
        False (default): Leisenring, Alonzo & Pepe's generalized score (GS; DTComPair
        ``pv.gs``). True: Kosinski's weighted generalized score (WGS; DTComPair ``pv.wgs``).

    Returns
    -------
    statistic, pvalue : ndarray of shape (...)
        Chi-square(1) statistic and its upper-tail p-value, elementwise. Where A and B cannot
        be told apart (identical predictions of the class, or every positive prediction of
        both right, or every one wrong) the statistic is 0 and the p-value 1; where a
        classifier never predicts the class (precision undefined) both are NaN.

    Notes
    -----
    With ``M_a``, ``M_b`` positive predictions, precisions ``P_a``, ``P_b``, pooled precision
    ``P = (2 s11 + s10 + s01) / (M_a + M_b)``, ``C = [s11 (1 - P)^2 + r11 P^2] / (M_a + M_b)``
    and ``W = (2P - P_a - P_b)(2P - 1)`` (Kosinski 2013, seed eq 12-14 with C at the pooled
    precision, METHODS.md §6.2)::

        GS  = (P_a - P_b)^2 / {[P(1 - P) + W - 2C] (1/M_a + 1/M_b)}
        WGS = (P_a - P_b)^2 / {[P(1 - P)     - 2C] (1/M_a + 1/M_b)}

    GS equals the per-observation score form of Leisenring et al. (seed eq 9) exactly.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351.
    Kosinski (2013), Statistics in Medicine 32:964-977.

    Examples
    --------
    DTComPair's ``Paired1`` data (METHODS.md §6.6a), as cells ``[d][a][b]``:

    >>> cells = [[[155, 22], [53, 31]], [[32, 22], [78, 319]]]
    >>> stat, p = gs_from_cells(cells)
    >>> round(float(stat), 6), round(float(p), 6)
    (5.711241, 0.016857)

    The precisions (0.825 and 0.865) differ at the 5 % level. A batch of tables is one call:

    >>> stat, p = gs_from_cells(np.stack([cells, np.array(cells) * 2]), weighted=True)
    >>> stat.round(4).tolist()
    [5.4659, 10.9318]
    """
    parts = _gs_parts(cells, weighted)
    return parts["statistic"][()], parts["pvalue"][()]
