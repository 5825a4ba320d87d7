"""Simulation of correlated paired predictions and power curves.

Two classifiers that label the same observations make correlated mistakes. To study tests of
equal precision we need paired predictions with chosen precisions and a chosen correlation.
The scheme here (documented in :func:`paired_cell_probabilities`) is a Gaussian copula: each
observation carries a latent normal score per classifier, correlated across classifiers, and
a classifier predicts the class when its score falls below a threshold that depends on the
truth. The 8 joint cell probabilities are closed forms, so whole Monte Carlo studies are
multinomial draws of cell counts, and every test runs on all of them at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from .._lib.aliases import RandomStateLike
from .._lib.checks import (
    check_choice,
    check_counts,
    check_positive_int,
    check_probability,
    check_random_state,
)
from ..stats.precision_cells import (
    gs_from_cells,
    gw_from_cells,
    naive_z_from_cells,
    rp_from_cells,
    wald_from_cells,
)

__all__ = [
    "POWER_METHODS",
    "bivariate_normal_cdf",
    "correlated_predictions",
    "paired_cell_probabilities",
    "power_curve",
    "prediction_correlation",
    "simulate_cells",
]

POWER_METHODS = ("gs", "wgs", "gw", "wald", "rp", "naive_z")

_POWER_LABELS = {
    "gs": "GS (paired)",
    "wgs": "weighted GS (paired)",
    "gw": "GEE Wald (paired)",
    "wald": "multinomial Wald (paired)",
    "rp": "relative precision (paired)",
    "naive_z": "z test for independent proportions",
}


def _floats(**values: Any) -> list[np.ndarray]:
    """Each named value as a float array; a ValueError names the one that is not numeric."""
    out = []
    for name, value in values.items():
        arr = np.asarray(value)
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"{name} must be a number or an array of numbers; got "
                             f"{type(value).__name__} {value!r:.60}")
        out.append(arr.astype(float))
    return out


def bivariate_normal_cdf(h: npt.ArrayLike, k: npt.ArrayLike, rho: npt.ArrayLike) -> np.ndarray:
    """``P(Z1 <= h, Z2 <= k)`` for standard normals with correlation ``rho``, vectorised.

    Parameters
    ----------
    h, k : array-like
        Upper limits (``-inf``/``inf`` allowed).
    rho : array-like
        Correlation in [-1, 1].

    Returns
    -------
    ndarray (or float for scalar input)
        The probabilities, over the broadcast shape of the arguments.

    Notes
    -----
    Owen's (1956) formula with his T function::

        Phi2(h, k; rho) = [Phi(h) + Phi(k)]/2 - T(h, a_h) - T(k, a_k) - beta,
        a_h = (k - rho h) / (h sqrt(1 - rho^2)),  a_k = (h - rho k) / (k sqrt(1 - rho^2)),

    with ``beta = 1/2`` when ``h k < 0`` (or one is 0 and ``h + k < 0``), else 0; and the
    limits ``rho = 1`` (``Phi(min(h, k))``), ``rho = -1`` (``max(0, Phi(h) + Phi(k) - 1)``),
    ``h = k = 0`` (``1/4 + arcsin(rho) / (2 pi)``). Deterministic, unlike quasi-Monte Carlo.

    References
    ----------
    Owen (1956), Annals of Mathematical Statistics 27:1075-1090.

    Examples
    --------
    >>> round(float(bivariate_normal_cdf(0.0, 0.0, 0.5)), 6)  # 1/4 + arcsin(1/2) / (2 pi) = 1/3
    0.333333
    """
    h, k, rho = np.broadcast_arrays(*_floats(h=h, k=k, rho=rho))
    if np.any(~(np.abs(rho) <= 1)):
        raise ValueError("rho must lie in [-1, 1]")
    ph, pk = special.ndtr(h), special.ndtr(k)
    inner = np.abs(rho) < 1
    r = np.where(inner, rho, 0.0)
    s = np.sqrt(1 - r * r)
    # finite limits; |x| below 1e-100 is 0 to the precision of the result (avoids underflow)
    hf = np.where(np.isfinite(h), np.where(np.abs(h) < 1e-100, 0.0, h), 1.0)
    kf = np.where(np.isfinite(k), np.where(np.abs(k) < 1e-100, 0.0, k), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_h = np.where(hf == 0, np.sign(kf - r * hf) * np.inf, (kf - r * hf) / (hf * s))
        a_k = np.where(kf == 0, np.sign(hf - r * kf) * np.inf, (hf - r * kf) / (kf * s))
    opposite = np.sign(hf) * np.sign(kf) < 0  # signs, not the product: it can underflow
    beta = np.where(opposite | (((hf == 0) | (kf == 0)) & (hf + kf < 0)), 0.5, 0.0)
    owen = 0.5 * (ph + pk) - special.owens_t(hf, a_h) - special.owens_t(kf, a_k) - beta
    owen = np.where((hf == 0) & (kf == 0), 0.25 + np.arcsin(r) / (2 * np.pi), owen)
    # infinite limits: the other margin, or 0
    owen = np.where(np.isposinf(h), pk, owen)
    owen = np.where(np.isposinf(k), ph, owen)
    owen = np.where(np.isneginf(h) | np.isneginf(k), 0.0, owen)
    out = np.where(rho >= 1, np.minimum(ph, pk), owen)
    out = np.where(rho <= -1, np.maximum(0.0, ph + pk - 1), out)
    return np.clip(out, 0.0, np.minimum(ph, pk))[()]


def _false_positive_rate(precision: np.ndarray, recall: np.ndarray, prevalence: np.ndarray,
                         name: str) -> np.ndarray:
    """Find the false-positive rate that gives ``precision`` at this recall and prevalence."""
    fpr = prevalence * recall * (1 - precision) / ((1 - prevalence) * precision)
    if np.any(fpr > 1):
        raise ValueError(
            f"{name} is too low for this recall and prevalence: it would need a false-positive "
            f"rate above 1 (precision must be at least prevalence*recall / (prevalence*recall "
            f"+ 1 - prevalence))"
        )
    return fpr


def paired_cell_probabilities(
    precision_a: npt.ArrayLike,
    precision_b: npt.ArrayLike,
    *,
    correlation: npt.ArrayLike = 0.5,
    prevalence: npt.ArrayLike = 0.3,
    recall_a: npt.ArrayLike = 0.7,
    recall_b: npt.ArrayLike | None = None,
) -> np.ndarray:
    """Probabilities of the 8 joint cells ``n[d][a][b]`` for two correlated classifiers.

    Parameters
    ----------
    precision_a, precision_b : float or array-like in (0, 1]
        Population precision of A and B for the class.
    correlation : float or array-like in [-1, 1]
        Correlation of the two classifiers' latent scores within each truth value (Gaussian
        copula). 0 makes the classifiers conditionally independent; 1 makes them agree as much
        as their error rates allow.
    prevalence : float or array-like in (0, 1)
        Share of observations that truly are the class.
    recall_a, recall_b : float or array-like in (0, 1]
        Recall (sensitivity) of A and of B (``recall_b`` defaults to ``recall_a``).

    Returns
    -------
    ndarray of shape (..., 2, 2, 2)
        Cell probabilities (summing to 1) over the broadcast shape of the arguments.

    Notes
    -----
    Within truth value d the pair (A predicts the class, B predicts it) is
    ``(Z_a <= Phi^-1(r_a,d), Z_b <= Phi^-1(r_b,d))`` with ``(Z_a, Z_b)`` standard bivariate
    normal with correlation ``correlation``, ``r_j,1`` = recall and ``r_j,0`` the
    false-positive rate that yields the precision:
    ``FPR_j = prevalence * recall_j * (1 - P_j) / ((1 - prevalence) P_j)``. So the marginal
    precisions, recalls and prevalence are exact, and only the dependence moves with
    ``correlation``. Gondara's Figure 1 used "copula based simulations" without naming the
    copula; the Gaussian copula is the standard choice.

    References
    ----------
    Nelsen (2006), An Introduction to Copulas, 2nd ed., Springer. Gondara (2016), Figure 1.

    Examples
    --------
    >>> cells = paired_cell_probabilities(0.8, 0.8, correlation=0.0, prevalence=0.5, recall_a=0.5)
    >>> float(cells.sum()), round(float(cells[1, 1, 1]), 4)  # independent: 0.5 * 0.5 * 0.5
    (1.0, 0.125)
    """
    pa, pb, rho, prev, ra = np.broadcast_arrays(*_floats(
        precision_a=precision_a, precision_b=precision_b, correlation=correlation,
        prevalence=prevalence, recall_a=recall_a))
    rb = ra if recall_b is None else np.broadcast_to(_floats(recall_b=recall_b)[0], ra.shape)
    for name, value, lo_open in (("precision_a", pa, True), ("precision_b", pb, True),
                                 ("recall_a", ra, True), ("recall_b", rb, True)):
        if np.any(~np.isfinite(value)) or np.any(value > 1) or np.any(value <= 0 if lo_open else value < 0):
            raise ValueError(f"{name} must lie in (0, 1]; got {np.asarray(value).ravel()[:3]}")
    if np.any(~((prev > 0) & (prev < 1))):
        raise ValueError(f"prevalence must lie in (0, 1); got {prev.ravel()[:3]}")
    if np.any(~(np.abs(rho) <= 1)):
        raise ValueError(f"correlation must lie in [-1, 1]; got {rho.ravel()[:3]}")
    fpr_a = _false_positive_rate(pa, ra, prev, "precision_a")
    fpr_b = _false_positive_rate(pb, rb, prev, "precision_b")
    cells = np.empty((*pa.shape, 2, 2, 2))
    for d, (ma, mb, weight) in enumerate(((fpr_a, fpr_b, 1 - prev), (ra, rb, prev))):
        both = bivariate_normal_cdf(special.ndtri(ma), special.ndtri(mb), rho)
        cells[..., d, 1, 1] = weight * both
        cells[..., d, 1, 0] = weight * (ma - both)
        cells[..., d, 0, 1] = weight * (mb - both)
        cells[..., d, 0, 0] = weight * (1 - ma - mb + both)
    return np.clip(cells, 0.0, 1.0)


def simulate_cells(
    n: int,
    precision_a: npt.ArrayLike,
    precision_b: npt.ArrayLike,
    *,
    correlation: npt.ArrayLike = 0.5,
    prevalence: npt.ArrayLike = 0.3,
    recall_a: npt.ArrayLike = 0.7,
    recall_b: npt.ArrayLike | None = None,
    n_sim: int = 1000,
    random_state: RandomStateLike = None,
) -> np.ndarray:
    """Monte Carlo draws of the 8 joint counts of two correlated classifiers on n observations.

    Parameters
    ----------
    n : int
        Test-set size (observations per simulated data set).
    precision_a, precision_b, correlation, prevalence, recall_a, recall_b
        As :func:`paired_cell_probabilities` (broadcast together).
    n_sim : int
        Number of simulated data sets.
    random_state : int, Generator or None
        Seed for ``numpy.random.default_rng``.

    Returns
    -------
    ndarray of int64, shape (n_sim, ..., 2, 2, 2)
        Cell counts, each table summing to ``n``: one multinomial draw per table, in one call.

    Notes
    -----
    With independent observations the 8 cell counts of a test set are multinomial with the
    probabilities of :func:`paired_cell_probabilities`, and every precision test depends on the
    data only through them: drawing the counts is exact and needs no per-observation loop.

    References
    ----------
    Gondara (2016), Figure 1 (the simulation design it reproduces).

    Examples
    --------
    >>> sims = simulate_cells(500, 0.8, [0.8, 0.9], n_sim=3, random_state=0)
    >>> sims.shape, int(sims[0, 1].sum())
    ((3, 2, 2, 2, 2), 500)
    """
    n = check_positive_int(n, "n")
    n_sim = check_positive_int(n_sim, "n_sim")
    probs = paired_cell_probabilities(precision_a, precision_b, correlation=correlation,
                                      prevalence=prevalence, recall_a=recall_a, recall_b=recall_b)
    batch = probs.shape[:-3]
    flat = probs.reshape(-1, 8)
    flat = flat / flat.sum(axis=1, keepdims=True)
    rng = check_random_state(random_state)
    draws = rng.multinomial(n, flat, size=(n_sim, flat.shape[0]))
    return draws.reshape(n_sim, *batch, 2, 2, 2)


def correlated_predictions(
    n: int,
    *,
    precision_a: float,
    precision_b: float,
    correlation: float = 0.5,
    prevalence: float = 0.3,
    recall_a: float = 0.7,
    recall_b: float | None = None,
    random_state: RandomStateLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-observation truth and predictions of two correlated binary classifiers.

    The same Gaussian-copula scheme as :func:`paired_cell_probabilities`, drawn observation by
    observation (vectorised) for code that needs label arrays rather than counts.

    Parameters
    ----------
    n : int
        Number of observations.
    precision_a, precision_b, correlation, prevalence, recall_a, recall_b
        As :func:`paired_cell_probabilities` (scalars).
    random_state : int, Generator or None
        Seed for ``numpy.random.default_rng``.

    Returns
    -------
    y_true, y_pred_a, y_pred_b : ndarray of int64 (0/1), shape (n,)
        1 = the class of interest.

    Notes
    -----
    Truth ``D ~ Bernoulli(prevalence)``; latent ``(Z_a, Z_b)`` standard bivariate normal with
    correlation ``correlation``; A predicts the class when ``Z_a <= Phi^-1(r_a,D)`` (recall for
    D = 1, the false-positive rate that yields ``precision_a`` for D = 0), B likewise.

    References
    ----------
    Nelsen (2006), An Introduction to Copulas, 2nd ed., Springer.

    Examples
    --------
    >>> y, a, b = correlated_predictions(20000, precision_a=0.8, precision_b=0.7, random_state=1)
    >>> round(float(y[a == 1].mean()), 2), round(float(y[b == 1].mean()), 2)  # targets 0.8, 0.7
    (0.81, 0.71)
    """
    n = check_positive_int(n, "n")
    scalars = {"precision_a": precision_a, "precision_b": precision_b,
               "correlation": correlation, "prevalence": prevalence, "recall_a": recall_a}
    for name, value in scalars.items():
        if isinstance(value, bool) or not isinstance(value, Real):
            raise ValueError(f"{name} must be a number; got {type(value).__name__} {value!r:.60}")
    rb = recall_a if recall_b is None else recall_b
    probs = paired_cell_probabilities(precision_a, precision_b, correlation=correlation,
                                      prevalence=prevalence, recall_a=recall_a, recall_b=rb)
    rng = check_random_state(random_state)
    y = (rng.random(n) < prevalence).astype(np.int64)
    fpr_a = float(probs[0, 1].sum() / (1 - prevalence))
    fpr_b = float(probs[0, :, 1].sum() / (1 - prevalence))
    rho = float(correlation)
    z_a = rng.standard_normal(n)
    z_b = rho * z_a + np.sqrt(max(1 - rho * rho, 0.0)) * rng.standard_normal(n)
    t_a = special.ndtri(np.where(y == 1, recall_a, fpr_a))
    t_b = special.ndtri(np.where(y == 1, rb, fpr_b))
    return y, (z_a <= t_a).astype(np.int64), (z_b <= t_b).astype(np.int64)


def prediction_correlation(cells: npt.ArrayLike) -> np.ndarray:
    """Phi coefficient between A's and B's positive predictions, from cells (..., 2, 2, 2).

    Parameters
    ----------
    cells : array-like of shape (..., 2, 2, 2)
        Counts or probabilities ``n[d][a][b]``.

    Returns
    -------
    ndarray (or float)
        Pearson correlation of the two 0/1 prediction indicators, over all observations.

    Notes
    -----
    ``phi = (p11 - p1. p.1) / sqrt(p1. (1 - p1.) p.1 (1 - p.1))`` on the A-by-B margin summed
    over the truth. Even conditionally independent classifiers correlate through the truth.

    References
    ----------
    Yule (1912), Journal of the Royal Statistical Society 75:579-652.

    Examples
    --------
    >>> cells = paired_cell_probabilities(0.8, 0.8, correlation=0.0)
    >>> round(float(prediction_correlation(cells)), 6)  # not exactly 0: both track the truth
    0.423729
    """
    arr = check_counts(cells, "cells", integer=False)  # expected counts are fine here
    if arr.ndim < 3 or arr.shape[-3:] != (2, 2, 2):
        raise ValueError(f"cells must have shape (..., 2, 2, 2); got shape {arr.shape}")
    t = arr.sum(axis=-3)  # (..., 2, 2) over truth: [A][B]
    n = t.sum(axis=(-2, -1))
    pa = t[..., 1, :].sum(axis=-1) / n
    pb = t[..., :, 1].sum(axis=-1) / n
    pab = t[..., 1, 1] / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return ((pab - pa * pb) / np.sqrt(pa * (1 - pa) * pb * (1 - pb)))[()]


def _pvalues(cells: np.ndarray, method: str) -> np.ndarray:
    if method in ("gs", "wgs"):
        return np.asarray(gs_from_cells(cells, weighted=method == "wgs").pvalue)
    if method == "gw":
        return np.asarray(gw_from_cells(cells).pvalue)
    if method == "wald":
        return np.asarray(wald_from_cells(cells).pvalue)
    if method == "rp":
        return np.asarray(rp_from_cells(cells).pvalue)
    return np.asarray(naive_z_from_cells(cells).pvalue)


def power_curve(
    differences: Sequence[float] | np.ndarray,
    *,
    n: int = 1000,
    precision_b: float = 0.75,
    correlation: float | Sequence[float] = 0.5,
    prevalence: float = 0.3,
    recall: float = 0.7,
    alpha: float = 0.05,
    n_sim: int = 2000,
    methods: Sequence[str] = ("gs", "wgs", "naive_z"),
    random_state: RandomStateLike = 0,
) -> pd.DataFrame:
    """Rejection rates of tests of equal precision over differences in precision (seed Figure 1).

    Parameters
    ----------
    differences : sequence of float
        Values of ``P_a - P_b`` to simulate (0 gives the type-I error rate).
    n : int
        Test-set size of each simulated data set.
    precision_b : float
        Precision of B; A's is ``precision_b + difference``.
    correlation : float or sequence of float
        Latent correlation(s) between the classifiers (Gaussian copula).
    prevalence, recall : float
        Prevalence of the class and the recall of both classifiers.
    alpha : float
        Level of the tests.
    n_sim : int
        Simulated data sets per setting.
    methods : sequence of str
        Among ``"gs"``, ``"wgs"``, ``"gw"``, ``"wald"``, ``"rp"`` and ``"naive_z"`` (the z test
        for independent proportions, which ignores the pairing).
    random_state : int, Generator or None

    Returns
    -------
    DataFrame
        One row per (correlation, difference, method): ``correlation``, ``difference``,
        ``precision_a``, ``precision_b``, ``method``, ``label``, ``power`` (share of valid
        simulations with p <= alpha), ``mc_se`` (its Monte Carlo standard error) and
        ``n_valid`` (simulations where the test was defined).

    Notes
    -----
    All settings are drawn in one multinomial call and every test is one vectorised kernel
    call over all simulated tables. With positive correlation the naive z test is
    conservative (its variance ignores the positive covariance of the two precisions), so it
    rejects less often than the paired tests at every difference.

    References
    ----------
    Gondara (2016), Figure 1. Leisenring, Alonzo & Pepe (2000). Kosinski (2013).

    Examples
    --------
    >>> curve = power_curve([0.0, 0.05], n=800, correlation=0.7, n_sim=400, random_state=1)
    >>> curve.pivot(index="difference", columns="method", values="power").round(3)
    method         gs  naive_z    wgs
    difference
    0.00        0.035    0.005  0.032
    0.05        0.432    0.135  0.425

    At a difference of 0.05 the paired GS rejects in 43 % of the data sets, the naive z test
    in 14 %; under H0 the naive test almost never rejects (far below its nominal 5 %).
    """
    for method in methods:
        check_choice(method, "methods", POWER_METHODS)
    level = check_probability(alpha, "alpha")
    n_sim = check_positive_int(n_sim, "n_sim")
    diffs = np.asarray(differences, dtype=float).ravel()
    corrs = np.atleast_1d(np.asarray(correlation, dtype=float)).ravel()
    pa = precision_b + diffs
    if np.any((pa <= 0) | (pa > 1)):
        raise ValueError(
            f"differences must keep precision_a = precision_b + difference in (0, 1]; got "
            f"precision_a from {pa.min():g} to {pa.max():g}"
        )
    sims = simulate_cells(n, pa[None, :], precision_b, correlation=corrs[:, None],
                          prevalence=prevalence, recall_a=recall, n_sim=n_sim,
                          random_state=random_state)  # (n_sim, C, D, 2, 2, 2)
    rows = []
    for method in methods:
        p = _pvalues(sims, method)
        valid = ~np.isnan(p)
        n_valid = valid.sum(axis=0)
        power = np.where(valid, p <= level, False).sum(axis=0) / np.maximum(n_valid, 1)
        mc_se = np.sqrt(power * (1 - power) / np.maximum(n_valid, 1))
        for ci, rho in enumerate(corrs):
            for di, diff in enumerate(diffs):
                rows.append({
                    "correlation": rho, "difference": diff, "precision_a": pa[di],
                    "precision_b": precision_b, "method": method, "label": _POWER_LABELS[method],
                    "power": power[ci, di], "mc_se": mc_se[ci, di], "n_valid": int(n_valid[ci, di]),
                })
    return pd.DataFrame(rows)
