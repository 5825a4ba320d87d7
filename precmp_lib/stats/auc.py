"""Probabilities and scores: the AUC by DeLong, clustered and per fold, Brier score and log loss.

A classifier that outputs a probability (or any score) of the positive class is judged by how
well the score ranks positives above negatives (the area under the ROC curve, AUC) and by how
close the probability is to the outcome (Brier score, log loss). The functions here compare
models scored on the *same* observations:

- :func:`delong_sums` -- DeLong's placement values of every model by the fast algorithm of Sun
  and Xu (2014), O(n log n) per model, ties counted one half as pROC does, reduced to
  :class:`DelongSums` (sums and cross-products of placements: what an engine returns);
- :func:`auc_covariance` -- each model's AUC and the DeLong covariance matrix of the AUCs;
- :func:`auc_interval` -- one model's AUC with its DeLong interval (``ci.auc(method =
  "delong")``); an AUC of 0 or 1 gets an exact bound instead of a zero-width interval;
- :func:`delong_test` -- two models' AUCs by DeLong's paired test (``roc.test(method =
  "delong", paired = TRUE)``);
- :func:`clustered_auc_covariance` -- the AUC covariance when observations share a cluster
  (Obuchowski 1997);
- :func:`fold_aucs`, :func:`fold_auc_test` -- each model's AUC per fold of a (repeated) k-fold
  cross-validation and the Nadeau–Bengio corrected resampled t over folds;
- :func:`one_vs_rest_aucs`, :func:`hand_till_m` -- multiclass: the one-vs-rest AUC of every
  class and Hand and Till's M;
- :func:`brier_scores`, :func:`log_losses` -- per-observation losses; :func:`loss_sums` reduces
  them to the sums whose paired differences go through
  :func:`precmp_lib.stats.paired.paired_difference_from_sums` (CR1 over clusters).

The formulas are in docs/methods.md, section "Probabilities: AUC, Brier score and log loss".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import rankdata

from .._lib.checks import check_choice, check_probability
from .._lib.dist import norm_isf, norm_sf
from ..core.items import ItemSums
from .resampling import corrected_resampled_ttest
from .results import ALTERNATIVES, TestResult

__all__ = [
    "LOG_LOSS_EPSILON",
    "SUM_TOLERANCE",
    "DelongSums",
    "auc_covariance",
    "auc_difference",
    "auc_interval",
    "auc_results",
    "brier_scores",
    "clustered_auc_covariance",
    "clustered_covariance_from_sums",
    "delong_sums",
    "delong_test",
    "fold_auc_test",
    "fold_aucs",
    "hand_till_m",
    "log_losses",
    "loss_sums",
    "one_vs_rest_aucs",
    "placements",
]

#: Log loss clips probabilities to [eps, 1 - eps] so that a confident wrong answer costs
#: -log(eps) = 34.5 rather than infinity.
LOG_LOSS_EPSILON = 1e-15

#: Multiclass probabilities of one observation must sum to 1 within this tolerance.
SUM_TOLERANCE = 1e-6


# --------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------


def _truth(y_true: npt.ArrayLike, name: str = "y_true") -> np.ndarray:
    """Return the 0/1 truth as a boolean vector with both classes present."""
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {y.shape}")
    if y.dtype == bool:
        out = y
    else:
        try:
            yf = y.astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold 0/1 or booleans (True = positive); got "
                             f"{y.dtype} values") from None
        if np.isnan(yf).any() or not np.isin(yf, (0.0, 1.0)).all():
            raise ValueError(f"{name} must hold only 0 and 1 (1 = positive)")
        out = yf == 1.0
    n_pos = int(out.sum())
    if n_pos == 0 or n_pos == out.size:
        which = "negative" if n_pos == out.size else "positive"
        raise ValueError(f"{name} has no {which} observation: the AUC is undefined")
    return out


def _scores(scores: npt.ArrayLike, n: int, name: str = "scores") -> np.ndarray:
    """Return scores as a (k, n) float matrix: one row per model, finite values."""
    s = np.asarray(scores, dtype=float)
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2 or s.shape[1] != n:
        raise ValueError(f"{name} must have {n} values per model (one per observation); got "
                         f"shape {np.asarray(scores).shape}")
    if not np.isfinite(s).all():
        raise ValueError(f"{name} holds NaN or infinite values")
    return s


def _level(confidence_level: float) -> float:
    return check_probability(confidence_level, "confidence_level")


# --------------------------------------------------------------------------------------------
# DeLong by the fast algorithm (Sun & Xu 2014)
# --------------------------------------------------------------------------------------------


def placements(y_true: npt.ArrayLike, scores: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's placement values of every model, by midranks (Sun & Xu 2014).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        1 (or True) for a positive, 0 for a negative.
    scores : array-like of shape (n,) or (k, n)
        One row per model: a higher score means more likely positive.

    Returns
    -------
    v10 : ndarray of shape (k, m)
        For each positive, the fraction of negatives it outranks (a tie counts one half).
    v01 : ndarray of shape (k, n_neg)
        For each negative, the fraction of positives that outrank it.

    Notes
    -----
    With T_Z the midranks of all n scores, T_X those of the m positives among themselves and
    T_Y those of the n_neg negatives: V10_i = (T_Z,i - T_X,i) / n_neg and
    V01_j = 1 - (T_Z,j - T_Y,j) / m. Three sorts per model: O(n log n).

    Examples
    --------
    >>> v10, v01 = placements([1, 1, 0, 0], [0.9, 0.4, 0.4, 0.1])
    >>> v10.tolist(), v01.tolist()
    ([[1.0, 0.75]], [[0.75, 1.0]])

    The positive scored 0.4 ties the negative scored 0.4: it outranks one negative and a half.
    """
    y = _truth(y_true)
    s = _scores(scores, y.size)
    pos, neg = s[:, y], s[:, ~y]
    m, n = pos.shape[1], neg.shape[1]
    tz = rankdata(s, axis=1)
    tx = rankdata(pos, axis=1)
    ty = rankdata(neg, axis=1)
    v10 = (tz[:, y] - tx) / n
    v01 = 1.0 - (tz[:, ~y] - ty) / m
    return v10, v01


@dataclass(frozen=True)
class DelongSums:
    """The sums DeLong's AUCs and their covariance are made of: what an engine returns.

    Attributes
    ----------
    models : tuple of str
    n_positive, n_negative : int
        m and n.
    sum10, sum01 : ndarray of shape (k,)
        Σ of each model's placements over positives (V10) and over negatives (V01).
    cross10, cross01 : ndarray of shape (k, k)
        Σ V10_a V10_b over positives and Σ V01_a V01_b over negatives.
    """

    models: tuple[str, ...]
    n_positive: int
    n_negative: int
    sum10: np.ndarray
    sum01: np.ndarray
    cross10: np.ndarray
    cross01: np.ndarray

    @property
    def aucs(self) -> np.ndarray:
        """Each model's AUC: the mean placement of the positives."""
        return np.asarray(self.sum10, dtype=float) / self.n_positive


def delong_sums(y_true: npt.ArrayLike, scores: npt.ArrayLike,
                models: tuple[str, ...] | list[str] | None = None) -> DelongSums:
    """Reduce the placement values of k models to :class:`DelongSums`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        1 for a positive, 0 for a negative.
    scores : array-like of shape (n,) or (k, n)
    models : sequence of str, optional
        The models' names (default ``m0``, ``m1``, ...).

    Returns
    -------
    DelongSums

    Examples
    --------
    >>> sums = delong_sums([1, 1, 0, 0], [[0.9, 0.4, 0.4, 0.1]], models=["a"])
    >>> sums.aucs.tolist(), sums.n_positive
    ([0.875], 2)
    """
    v10, v01 = placements(y_true, scores)
    k = v10.shape[0]
    names = tuple(models) if models is not None else tuple(f"m{i}" for i in range(k))
    if len(names) != k:
        raise ValueError(f"models must name {k} models; got {len(names)}")
    return DelongSums(names, v10.shape[1], v01.shape[1], v10.sum(axis=1), v01.sum(axis=1),
                      v10 @ v10.T, v01 @ v01.T)


def auc_covariance(sums: DelongSums) -> tuple[np.ndarray, np.ndarray]:
    """Each model's AUC and DeLong's covariance matrix of the AUCs.

    Parameters
    ----------
    sums : DelongSums

    Returns
    -------
    aucs : ndarray of shape (k,)
    covariance : ndarray of shape (k, k)

    Notes
    -----
    S10 = (Σ V10_a V10_b - m θ_a θ_b) / (m - 1), S01 likewise over the n negatives (the mean
    V01 is θ as well), and Cov(θ_a, θ_b) = S10 / m + S01 / n (DeLong et al. 1988). A group of
    one observation has no spread: its term is 0.

    Examples
    --------
    >>> aucs, cov = auc_covariance(delong_sums([1, 1, 1, 0, 0, 0],
    ...                                        [[0.9, 0.8, 0.3, 0.5, 0.2, 0.1]]))
    >>> round(float(aucs[0]), 4), round(float(cov[0, 0]), 5)
    (0.8889, 0.02469)
    """
    m, n = sums.n_positive, sums.n_negative
    theta = sums.aucs
    outer = np.outer(theta, theta)
    s10 = (sums.cross10 - m * outer) / (m - 1) if m > 1 else np.zeros_like(outer)
    s01 = (sums.cross01 - n * outer) / (n - 1) if n > 1 else np.zeros_like(outer)
    cov = s10 / m + s01 / n
    # rounding of the sums can leave a variance a hair below 0 where it is 0
    idx = np.diag_indices_from(cov)
    cov[idx] = np.maximum(cov[idx], 0.0)
    return theta, cov


def _exact_bound(auc: float, m: int, n: int, level: float) -> tuple[float, float]:
    """Interval for an AUC of exactly 0 or 1 from min(m, n) disjoint positive-negative pairs.

    Pair positive i with negative i: the min(m, n) pairs are independent, each ordered
    correctly with probability θ. An observed AUC of 1 orders them all correctly, and the
    Clopper-Pearson interval for k successes of k is [((1 - level) / 2)^(1/k), 1].
    """
    k = min(m, n)
    low = ((1.0 - level) / 2.0) ** (1.0 / k)
    return (low, 1.0) if auc >= 1.0 else (0.0, 1.0 - low)


def _auc_result(auc: float, var: float, m: int, n: int, level: float,
                method: str, note: str = "") -> TestResult:
    se = math.sqrt(max(var, 0.0))
    z_crit = float(norm_isf((1.0 - level) / 2.0))
    details = {"variance": var, "se": se, "n_positive": m, "n_negative": n}
    if auc in (0.0, 1.0) or se == 0.0:
        low, high = _exact_bound(auc, m, n, level) if auc in (0.0, 1.0) else (auc, auc)
        why = (f"AUC {auc:g}: DeLong's variance is 0; the interval is the exact "
               f"(Clopper-Pearson) bound from {min(m, n)} disjoint positive-negative pairs")
        stat = math.inf if auc > 0.5 else (-math.inf if auc < 0.5 else 0.0)
        return TestResult(statistic=stat, pvalue=0.0 if auc != 0.5 else 1.0, method=method,
                          estimate=auc, ci_low=low, ci_high=high, confidence_level=level,
                          n=m + n, degenerate=True, note="; ".join(p for p in (note, why) if p),
                          details=details)
    z = (auc - 0.5) / se
    return TestResult(statistic=z, pvalue=min(1.0, 2.0 * float(norm_sf(abs(z)))), method=method,
                      estimate=auc, ci_low=max(0.0, auc - z_crit * se),
                      ci_high=min(1.0, auc + z_crit * se), confidence_level=level, n=m + n,
                      note=note, details=details)


def auc_interval(y_true: npt.ArrayLike, scores: npt.ArrayLike, *,
                 confidence_level: float = 0.95) -> TestResult:
    """One model's AUC with DeLong's interval, as pROC's ``ci.auc(method = "delong")``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        1 for a positive, 0 for a negative.
    scores : array-like of shape (n,)
        Higher means more likely positive (any real score).
    confidence_level : float

    Returns
    -------
    TestResult
        ``estimate`` the AUC (a tie between a positive and a negative counts one half) with
        the normal interval AUC ± z·SE clipped to [0, 1]; ``statistic`` z = (AUC - 0.5) / SE
        and its two-sided ``pvalue`` (no better than chance); ``details``: ``variance``,
        ``se``, ``n_positive``, ``n_negative``. An AUC of 0 or 1 has DeLong variance 0: the
        interval is then the exact bound of ``_exact_bound`` (never zero width), the result
        ``degenerate`` and its note says so.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> res = auc_interval(y, [0.9, 0.8, 0.7, 0.3, 0.6, 0.4, 0.2, 0.1])
    >>> round(res.estimate, 4), round(res.ci_low, 4), round(res.ci_high, 4)
    (0.875, 0.5921, 1.0)

    A perfect ranking of four positives and four negatives still leaves the AUC uncertain:

    >>> res = auc_interval(y, [0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1])
    >>> res.estimate, round(res.ci_low, 3), res.ci_high
    (1.0, 0.398, 1.0)
    """
    level = _level(confidence_level)
    sums = delong_sums(y_true, scores)
    if sums.aucs.size != 1:
        raise ValueError("scores must be one model's scores (one row)")
    aucs, cov = auc_covariance(sums)
    return _auc_result(float(aucs[0]), float(cov[0, 0]), sums.n_positive, sums.n_negative,
                       level, "DeLong AUC")


def auc_results(aucs: np.ndarray, cov: np.ndarray, m: int, n: int, *,
                confidence_level: float = 0.95, method: str = "DeLong AUC",
                note: str = "") -> list[TestResult]:
    """Each model's AUC result (as :func:`auc_interval`) from AUCs and their covariance.

    >>> [r.estimate for r in auc_results(np.array([0.8]), np.array([[0.01]]), 5, 5)]
    [0.8]
    """
    level = _level(confidence_level)
    return [_auc_result(float(a), float(cov[i, i]), m, n, level, method, note)
            for i, a in enumerate(aucs)]


def auc_difference(aucs: np.ndarray, cov: np.ndarray, a: int, b: int, *,
                   confidence_level: float = 0.95, alternative: str = "two-sided",
                   method: str = "DeLong paired", n: int | None = None,
                   note: str = "") -> TestResult:
    """Test AUC_a - AUC_b by z from the AUCs and their covariance matrix.

    Var(θ_a - θ_b) = V_a + V_b - 2 C_ab; z = (θ_a - θ_b) / SE, normal interval. A variance of
    0 with equal AUCs is indistinguishable (z 0, p 1); with different AUCs (each 0 or 1) the
    statistic is infinite and the result ``degenerate``.

    >>> res = auc_difference(np.array([0.9, 0.8]), np.array([[0.002, 0.001], [0.001, 0.003]]), 0, 1)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (1.8257, 0.0679)
    """
    level = _level(confidence_level)
    check_choice(alternative, "alternative", ALTERNATIVES)
    diff = float(aucs[a] - aucs[b])
    var = float(cov[a, a] + cov[b, b] - 2.0 * cov[a, b])
    details = {"auc_a": float(aucs[a]), "auc_b": float(aucs[b]), "variance_a": float(cov[a, a]),
               "variance_b": float(cov[b, b]), "covariance": float(cov[a, b]),
               "variance": max(var, 0.0)}
    tol = 1e-14 * max(1.0, float(cov[a, a] + cov[b, b]))
    if var <= tol:
        if diff == 0.0:
            return TestResult.indistinguishable(method, note or "the two models' placements are "
                                                "the same: the AUC difference has no variance",
                                                estimate=0.0, ci_low=0.0, ci_high=0.0,
                                                confidence_level=level, n=n,
                                                alternative=alternative, details=details)
        return TestResult(statistic=math.copysign(math.inf, diff), pvalue=0.0, method=method,
                          alternative=alternative, estimate=diff, ci_low=diff, ci_high=diff,
                          confidence_level=level, n=n, degenerate=True,
                          note="DeLong's variance of the difference is 0 (each AUC is 0 or 1)",
                          details=details)
    se = math.sqrt(var)
    z = diff / se
    if alternative == "two-sided":
        p = min(1.0, 2.0 * float(norm_sf(abs(z))))
        q = float(norm_isf((1.0 - level) / 2.0))
        low, high = diff - q * se, diff + q * se
    else:
        p = float(norm_sf(z if alternative == "greater" else -z))
        q = float(norm_isf(1.0 - level))
        low, high = ((diff - q * se, math.inf) if alternative == "greater"
                     else (-math.inf, diff + q * se))
    details["se"] = se
    return TestResult(statistic=z, pvalue=p, method=method, alternative=alternative,
                      estimate=diff, ci_low=low, ci_high=high, confidence_level=level, n=n,
                      note=note, details=details)


def delong_test(y_true: npt.ArrayLike, scores_a: npt.ArrayLike, scores_b: npt.ArrayLike, *,
                confidence_level: float = 0.95, alternative: str = "two-sided") -> TestResult:
    """DeLong's paired test of two models' AUCs on the same observations.

    Equal to pROC's ``roc.test(roc_a, roc_b, method = "delong", paired = TRUE)`` with both
    ROC curves' direction "<" (a higher score means positive).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        1 for a positive, 0 for a negative.
    scores_a, scores_b : array-like of shape (n,)
    confidence_level : float
        Level of the interval of AUC_a - AUC_b.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's AUC exceeds B's.

    Returns
    -------
    TestResult
        ``statistic`` z, ``pvalue``, ``estimate`` AUC_a - AUC_b with its normal interval;
        ``details``: ``auc_a``, ``auc_b``, ``variance_a``, ``variance_b``, ``covariance``,
        ``variance`` (of the difference), ``se``.

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44:837-845. Sun & Xu (2014), Fast
    implementation of DeLong's algorithm, IEEE Signal Processing Letters 21:1389-1393.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    >>> a = [0.9, 0.8, 0.7, 0.6, 0.4, 0.5, 0.3, 0.2, 0.1, 0.05]
    >>> b = [0.6, 0.9, 0.3, 0.5, 0.2, 0.7, 0.4, 0.1, 0.8, 0.05]
    >>> res = delong_test(y, a, b)
    >>> round(res.details["auc_a"], 2), round(res.details["auc_b"], 2), round(res.pvalue, 3)
    (0.96, 0.6, 0.055)

    A ranks almost every positive above every negative, B far fewer, yet with ten
    observations the difference is not shown at the 5 % level (p = 0.055).
    """
    y = _truth(y_true)
    s = np.vstack([_scores(scores_a, y.size, "scores_a"), _scores(scores_b, y.size, "scores_b")])
    aucs, cov = auc_covariance(delong_sums(y, s, ("a", "b")))
    return auc_difference(aucs, cov, 0, 1, confidence_level=confidence_level,
                          alternative=alternative, n=int(y.size))


# --------------------------------------------------------------------------------------------
# clustered observations (Obuchowski 1997)
# --------------------------------------------------------------------------------------------


def clustered_auc_covariance(y_true: npt.ArrayLike, scores: npt.ArrayLike,
                             clusters: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, int]:
    """Each model's AUC and its covariance when observations share clusters (Obuchowski 1997).

    Parameters
    ----------
    y_true : array-like of shape (n,)
    scores : array-like of shape (n,) or (k, n)
    clusters : array-like of shape (n,)
        The cluster of each observation (patient, passage, the observation itself across CV
        repeats).

    Returns
    -------
    aucs : ndarray of shape (k,)
    covariance : ndarray of shape (k, k)
    n_clusters : int

    Notes
    -----
    Placements are taken over all observations (V10 against every negative, V01 against every
    positive). For cluster i with m_i positives and n_i negatives, V_X(i) = Σ V10 and
    V_Y(i) = Σ V01 over its members, and U_i = (V_X(i) - m_i θ) / m + (V_Y(i) - n_i θ) / n.
    Then Cov(θ_a, θ_b) = I / (I - 1) Σ_i U_i^a U_i^b, which is Obuchowski's
    S_X / m + S_Y / n + 2 S_XY / (m n) written for two models at once.

    References
    ----------
    Obuchowski (1997), Nonparametric analysis of clustered ROC curve data, Biometrics
    53:567-578.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0, 1, 0]
    >>> s = [0.9, 0.2, 0.7, 0.8, 0.6, 0.1, 0.4, 0.3]
    >>> aucs, cov, k = clustered_auc_covariance(y, s, [1, 1, 2, 2, 3, 3, 4, 4])
    >>> round(float(aucs[0]), 4), k, round(float(cov[0, 0]), 5)
    (0.8125, 4, 0.04688)
    """
    y = _truth(y_true)
    s = _scores(scores, y.size)
    codes, uniques = _codes(clusters, y.size)
    n_clusters = len(uniques)
    if n_clusters < 2:
        raise ValueError("clusters must hold at least two clusters")
    v10, v01 = placements(y, s)
    m, n = v10.shape[1], v01.shape[1]
    theta = v10.mean(axis=1)
    vx = np.stack([np.bincount(codes[y], weights=row, minlength=n_clusters) for row in v10])
    vy = np.stack([np.bincount(codes[~y], weights=row, minlength=n_clusters) for row in v01])
    mi = np.bincount(codes[y], minlength=n_clusters)
    ni = np.bincount(codes[~y], minlength=n_clusters)
    p = vx / m + vy / n          # each model's placements per cluster, weighted
    w = mi / m + ni / n          # the weights per cluster
    cov = clustered_covariance_from_sums(theta, p @ p.T, p @ w, float(w @ w), n_clusters)
    return theta, cov, n_clusters


def clustered_covariance_from_sums(aucs: np.ndarray, sum_pp: np.ndarray, sum_pw: np.ndarray,
                                   sum_ww: float, n_clusters: int) -> np.ndarray:
    """Obuchowski's covariance of the AUCs from cluster sums (what an engine returns).

    With P_c = V_X(c)/m + V_Y(c)/n and W_c = m_c/m + n_c/n per cluster, U_c = P_c - θ W_c, so
    Σ U^a U^b = Σ P^a P^b - θ_b Σ P^a W - θ_a Σ P^b W + θ_a θ_b Σ W².

    Parameters
    ----------
    aucs : ndarray of shape (k,)
    sum_pp : ndarray of shape (k, k)
        Σ_c P_c^a P_c^b.
    sum_pw : ndarray of shape (k,)
        Σ_c P_c^a W_c.
    sum_ww : float
        Σ_c W_c².
    n_clusters : int

    Returns
    -------
    ndarray of shape (k, k)

    Examples
    --------
    >>> clustered_covariance_from_sums(np.array([0.5]), np.array([[0.5]]), np.array([1.0]),
    ...                                2.0, 2).tolist()
    [[0.0]]
    """
    theta = np.asarray(aucs, dtype=float)
    pw = np.asarray(sum_pw, dtype=float)
    ss = (np.asarray(sum_pp, dtype=float) - np.outer(pw, theta) - np.outer(theta, pw)
          + np.outer(theta, theta) * sum_ww)
    cov = n_clusters / (n_clusters - 1) * ss
    idx = np.diag_indices_from(cov)
    cov[idx] = np.maximum(cov[idx], 0.0)
    return cov


def _codes(clusters: npt.ArrayLike, n: int) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(clusters)
    if c.shape != (n,):
        raise ValueError(f"clusters must have one value per observation ({n}); got shape "
                         f"{c.shape}")
    uniques, codes = np.unique(c, return_inverse=True)
    return codes.ravel(), uniques


# --------------------------------------------------------------------------------------------
# cross-validation: per-fold AUCs and the corrected resampled t
# --------------------------------------------------------------------------------------------


def fold_aucs(y_true: npt.ArrayLike, scores: npt.ArrayLike, folds: npt.ArrayLike) -> np.ndarray:
    """Each model's AUC on each fold.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    scores : array-like of shape (n,) or (k, n)
    folds : array-like of shape (n,)
        The fold of each row (in repeated k-fold, one id per repeat and fold).

    Returns
    -------
    ndarray of shape (k, J)
        Folds in sorted order of their ids.

    Examples
    --------
    >>> fold_aucs([1, 0, 1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.4, 0.6, 0.7, 0.2, 0.3, 0.8],
    ...           [0, 0, 0, 0, 1, 1, 1, 1]).tolist()
    [[0.75, 1.0]]
    """
    y = _truth(y_true)
    s = _scores(scores, y.size)
    codes, uniques = _codes(folds, y.size)
    out = np.empty((s.shape[0], len(uniques)))
    for j, fold in enumerate(uniques):
        rows = codes == j
        try:
            out[:, j] = delong_sums(y[rows], s[:, rows]).aucs
        except ValueError as exc:
            raise ValueError(f"fold {fold!r}: {exc}") from None
    return out


def fold_auc_test(y_true: npt.ArrayLike, scores_a: npt.ArrayLike, scores_b: npt.ArrayLike,
                  folds: npt.ArrayLike, *, test_train_ratio: float,
                  confidence_level: float = 0.95) -> TestResult:
    """Two models' AUCs per fold compared by the Nadeau–Bengio corrected resampled t.

    Parameters
    ----------
    y_true, scores_a, scores_b, folds : array-like of shape (n,)
        Out-of-fold scores; ``folds`` one id per repeat and fold.
    test_train_ratio : float
        n_test / n_train of a fold: 1 / (K - 1) for K folds.
    confidence_level : float

    Returns
    -------
    TestResult
        As :func:`precmp_lib.stats.resampling.corrected_resampled_ttest` of the per-fold AUCs;
        ``details`` adds ``aucs_a`` and ``aucs_b`` (per fold).

    Examples
    --------
    >>> y = [1, 0] * 6
    >>> a = [0.9, 0.1, 0.8, 0.3, 0.7, 0.2, 0.6, 0.5, 0.9, 0.4, 0.8, 0.1]
    >>> b = [0.6, 0.5, 0.4, 0.7, 0.7, 0.2, 0.3, 0.5, 0.9, 0.8, 0.2, 0.1]
    >>> res = fold_auc_test(y, a, b, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2], test_train_ratio=0.5)
    >>> res.df, round(res.estimate, 4)
    (2.0, 0.4167)
    """
    y = _truth(y_true)
    s = np.vstack([_scores(scores_a, y.size, "scores_a"), _scores(scores_b, y.size, "scores_b")])
    per = fold_aucs(y, s, folds)
    res = corrected_resampled_ttest(per[0], per[1], test_train_ratio=test_train_ratio,
                                    confidence_level=confidence_level)
    from dataclasses import replace

    return replace(res, method="AUC per fold, corrected resampled t",
                   details=dict(res.details, aucs_a=per[0].tolist(), aucs_b=per[1].tolist()))


# --------------------------------------------------------------------------------------------
# multiclass
# --------------------------------------------------------------------------------------------


def _class_codes(y_true: npt.ArrayLike, k: int) -> np.ndarray:
    y = np.asarray(y_true)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer) or (y < 0).any() or (y >= k).any():
        raise ValueError(f"y_true must hold class codes 0 .. {k - 1} (the columns of the "
                         "probabilities)")
    return y


def one_vs_rest_aucs(y_true: npt.ArrayLike, proba: npt.ArrayLike) -> np.ndarray:
    """Return the one-vs-rest AUC of every class: class c against the rest, scored by P(c).

    Parameters
    ----------
    y_true : array-like of int, shape (n,)
        Class codes 0 .. K - 1.
    proba : array-like of shape (n, K)

    Returns
    -------
    ndarray of shape (K,)

    Examples
    --------
    >>> p = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]]
    >>> one_vs_rest_aucs([0, 1, 2, 1], p).tolist()
    [1.0, 1.0, 1.0]
    """
    p = np.asarray(proba, dtype=float)
    y = _class_codes(y_true, p.shape[1])
    missing = [c for c in range(p.shape[1]) if not (y == c).any()]
    if missing:
        raise ValueError(f"class code(s) {missing} never occur in y_true: their AUC is undefined")
    return np.array([delong_sums(y == c, p[:, c]).aucs[0] for c in range(p.shape[1])])


def hand_till_m(y_true: npt.ArrayLike, proba: npt.ArrayLike) -> float:
    """Hand and Till's M: the mean over class pairs of the two-way AUCs.

    For classes i < j, Â(i, j) = (A(i|j) + A(j|i)) / 2, where A(i|j) is the AUC of P(i)
    among the observations of classes i and j with i positive; M = 2 / (K (K - 1)) Σ Â(i, j).
    It equals scikit-learn's ``roc_auc_score(multi_class="ovo")``.

    References
    ----------
    Hand & Till (2001), Machine Learning 45:171-186.

    Examples
    --------
    >>> p = [[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]]
    >>> hand_till_m([0, 1, 2, 1], p)
    1.0
    """
    p = np.asarray(proba, dtype=float)
    k = p.shape[1]
    y = _class_codes(y_true, k)
    total = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            rows = (y == i) | (y == j)
            if not ((y == i).any() and (y == j).any()):
                raise ValueError(f"class codes {i} and {j} must both occur in y_true")
            a_ij = delong_sums(y[rows] == i, p[rows, i]).aucs[0]
            a_ji = delong_sums(y[rows] == j, p[rows, j]).aucs[0]
            total += (a_ij + a_ji) / 2.0
    return float(2.0 * total / (k * (k - 1)))


# --------------------------------------------------------------------------------------------
# losses
# --------------------------------------------------------------------------------------------


def _proba(proba: npt.ArrayLike, name: str) -> np.ndarray:
    p = np.asarray(proba, dtype=float)
    if not np.isfinite(p).all():
        raise ValueError(f"{name} holds NaN or infinite values")
    if (p < 0).any() or (p > 1).any():
        raise ValueError(f"{name} holds values outside [0, 1]: not probabilities")
    if p.ndim == 2:
        worst = float(np.abs(p.sum(axis=1) - 1.0).max())
        if worst > SUM_TOLERANCE:
            raise ValueError(f"{name}: the probabilities of a row must sum to 1 (within "
                             f"{SUM_TOLERANCE:g}); one is off by {worst:.3g}")
    return p


def _onehot(y_true: npt.ArrayLike, p: np.ndarray) -> np.ndarray:
    if p.ndim == 1:
        return _truth(y_true).astype(float)
    y = _class_codes(y_true, p.shape[1])
    out = np.zeros_like(p)
    out[np.arange(y.size), y] = 1.0
    return out


def brier_scores(y_true: npt.ArrayLike, proba: npt.ArrayLike) -> np.ndarray:
    """Each observation's Brier score: (p - y)², summed over classes when multiclass.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 (binary; ``proba`` is then P(positive), shape (n,)) or class codes 0 .. K - 1
        (``proba`` of shape (n, K), rows summing to 1 within :data:`SUM_TOLERANCE`).
    proba : array-like

    Returns
    -------
    ndarray of shape (n,)
        Their mean is scikit-learn's ``brier_score_loss`` in the binary case.

    Examples
    --------
    >>> brier_scores([1, 0, 1], [0.8, 0.3, 0.4]).round(2).tolist()
    [0.04, 0.09, 0.36]
    """
    p = _proba(proba, "proba")
    y = _onehot(y_true, p)
    if y.shape[0] != p.shape[0]:
        raise ValueError("y_true and proba must have the same number of observations")
    sq = (p - y) ** 2
    return sq if p.ndim == 1 else sq.sum(axis=1)


def log_losses(y_true: npt.ArrayLike, proba: npt.ArrayLike, *,
               eps: float = LOG_LOSS_EPSILON) -> np.ndarray:
    """Each observation's log loss, -log p(true class), with p clipped to [eps, 1 - eps].

    Parameters
    ----------
    y_true, proba : as :func:`brier_scores`
    eps : float
        The clip (default :data:`LOG_LOSS_EPSILON`, 1e-15).

    Returns
    -------
    ndarray of shape (n,)
        Their mean is scikit-learn's ``log_loss`` (binary and multiclass).

    Examples
    --------
    >>> log_losses([1, 0], [0.8, 0.0]).round(4).tolist()
    [0.2231, 0.0]
    """
    p = _proba(proba, "proba")
    y = _onehot(y_true, p)
    if y.shape[0] != p.shape[0]:
        raise ValueError("y_true and proba must have the same number of observations")
    q = np.clip(p, eps, 1.0 - eps)
    if p.ndim == 1:
        return -(y * np.log(q) + (1.0 - y) * np.log1p(-q))
    return -np.log(q[np.arange(q.shape[0]), y.argmax(axis=1)])


def loss_sums(losses: npt.ArrayLike, models: tuple[str, ...] | list[str], *,
              clusters: npt.ArrayLike | None = None, name: str = "") -> ItemSums:
    """Reduce per-observation losses of k models to the sums their paired differences need.

    The sums are those of models scored on evaluation items (:class:`~precmp_lib.core.items.ItemSums`),
    so :meth:`PairedSums.from_items <precmp_lib.stats.paired.PairedSums.from_items>` and
    :func:`~precmp_lib.stats.paired.paired_difference_from_sums` give each model's mean loss
    (``b=None``) and each pair's difference with the CR1 standard error over clusters.

    Parameters
    ----------
    losses : array-like of shape (k, n)
        :func:`brier_scores` or :func:`log_losses` of each model.
    models : sequence of str
    clusters : array-like of shape (n,), optional
    name : str
        What the losses are ("Brier score").

    Returns
    -------
    ItemSums

    Examples
    --------
    >>> from precmp_lib.stats.paired import PairedSums, paired_difference_from_sums
    >>> s = loss_sums([[0.1, 0.4, 0.2, 0.3], [0.2, 0.5, 0.2, 0.5]], ["a", "b"])
    >>> res = paired_difference_from_sums(PairedSums.from_items(s, 0, 1))
    >>> round(res.estimate, 3), round(res.details["se"], 4)
    (-0.1, 0.0408)
    """
    x = np.atleast_2d(np.asarray(losses, dtype=float))
    k, n = x.shape
    if clusters is None:
        n_clusters, sum_n2 = None, float(n)
        cluster_ns, cluster_gram = x.sum(axis=1), x @ x.T
    else:
        codes, uniques = _codes(clusters, n)
        n_clusters = len(uniques)
        if n_clusters < 2:
            raise ValueError("clusters must hold at least two clusters")
        size = np.bincount(codes, minlength=n_clusters).astype(float)
        per = np.stack([np.bincount(codes, weights=row, minlength=n_clusters) for row in x])
        sum_n2, cluster_ns, cluster_gram = float(size @ size), per @ size, per @ per.T
    return ItemSums(task=name, models=tuple(models), n_items=n, n_clusters=n_clusters,
                    sum_n2=sum_n2, sums=x.sum(axis=1), item_gram=x @ x.T, cluster_ns=cluster_ns,
                    cluster_gram=cluster_gram, answers=np.full(k, n), within=np.zeros(k),
                    within_over_k=np.zeros(k), k_min=1, k_max=1, binary=False,
                    unit=bool(((x >= 0) & (x <= 1)).all()))
