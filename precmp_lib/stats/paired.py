"""Two models on the same evaluation items: clustered paired tests and equivalence.

Benchmark items are rarely independent: several questions share a passage, a source document or
a template, and an item may be answered several times. The tests here compare two models on the
*same* items (a paired design, which removes the spread of item difficulty from the comparison)
and, given the cluster of every item, let the items of one cluster be correlated:

- :func:`clustered_mcnemar` -- McNemar's test for right/wrong scores with items grouped in
  clusters (Obuchowski 1998; Durkalski et al. 2003);
- :func:`paired_difference` -- the mean difference of two models' item scores (0/1 or any
  number) with a cluster-robust (CR1) standard error, z test and interval;
- :func:`equivalence_test` -- two one-sided tests (TOST) that the difference lies within a
  margin.

An item answered several times is scored by the mean of its answers
(:mod:`precmp_lib.stats.repeated`).

Every test is a function of a few sums, and each has a ``*_from_counts`` or ``*_from_sums`` form
that takes those sums, so an engine (DuckDB, Spark) can return them instead of the rows:

==================================  ========================================================
rows                                sufficient statistics
==================================  ========================================================
:func:`clustered_mcnemar`           :func:`clustered_mcnemar_from_counts` (per cluster:
                                    ``only_a``, ``only_b``, ``size``);
                                    :func:`clustered_mcnemar_from_sums` (Σ D_c, Σ D_c², C)
:func:`paired_difference`           :func:`paired_difference_from_sums` (:class:`PairedSums`)
:func:`equivalence_test`            :func:`equivalence_test_from_sums` (:class:`PairedSums`)
==================================  ========================================================

The formulas, with worked numbers, are in docs/methods.md (section "Comparing models on
evaluation items").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.dist import norm_isf, norm_logsf, norm_sf, t_isf, t_sf
from .._lib.tails import chi2_logsf
from .results import ALTERNATIVES, TestResult

if TYPE_CHECKING:
    from ..core.items import ItemSums
from .._lib.checks import check_choice, check_counts, check_positive_float, check_probability
from ..core.labels import as_label_array

__all__ = [
    "CLUSTERED_MCNEMAR_METHODS",
    "FEW_CLUSTERS",
    "T_CLUSTERS",
    "PairedSums",
    "clustered_mcnemar",
    "clustered_mcnemar_from_counts",
    "clustered_mcnemar_from_sums",
    "equivalence_test",
    "equivalence_test_from_sums",
    "paired_difference",
    "paired_difference_from_sums",
    "t_df",
]

CLUSTERED_MCNEMAR_METHODS = ("obuchowski", "durkalski")
_MCNEMAR_NAMES = {"obuchowski": "Obuchowski clustered McNemar chi-square",
                  "durkalski": "Durkalski clustered McNemar chi-square"}

# With fewer clusters than this, a variance estimated from between-cluster spread is biased low
# and its chi-square or normal reference is optimistic; results say so in their note.
FEW_CLUSTERS = 20
# Below this many independent units (clusters, or items when there are none) the paired
# difference of scores other than 0/1 takes its tail from Student's t with units - 1 degrees of
# freedom: with equal units and normal unit means z's size is P(|T_{U-1}| > 1.96), 0.076 at
# 12 units, 0.060 at 30, 0.056 at 50; t holds 0.05 (Cameron & Miller 2015, section VI;
# docs/methods.md, section 15.2). One rule for clusters and unclustered items: :func:`t_df`.
T_CLUSTERS = 50


def t_df(n_units: int) -> int | None:
    """Return the t degrees of freedom of a paired difference on ``n_units`` independent units.

    The one rule for z or t: units - 1 below ``T_CLUSTERS`` units, else None (the normal). The
    units are the clusters when the items are clustered, else the items themselves, so 20
    unclustered items and the same items each its own cluster get the same t(19).

    >>> t_df(20), t_df(12), t_df(50)
    (19, 11, None)
    """
    return int(n_units) - 1 if 1 < n_units < T_CLUSTERS else None

# A sum of squares computed as a difference of sums is zero when it is within this fraction of
# the terms it was computed from (rounding of the terms, not spread of the data).
_RTOL = 1e-12


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------


def _score_vector(values: Any, name: str) -> np.ndarray:
    """One score per item as a 1-D float array of finite numbers (booleans count 0/1)."""
    if isinstance(values, pd.Series | pd.DataFrame | pd.Index):
        values = values.to_numpy()
    if isinstance(values, str | bytes) or values is None:
        raise ValueError(f"{name} must be an array of scores, one per item; got {values!r:.60}")
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers (scores, one per item); "
                         f"got {type(values).__name__} with non-numeric entries") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one score per item); got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one score; got an empty array")
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise ValueError(f"{name} must hold finite scores; got {arr[bad[0]]} at position {bad[0]}")
    return arr


def _paired_vectors(a: Any, b: Any, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    x, y = _score_vector(a, names[0]), _score_vector(b, names[1])
    if x.size != y.size:
        raise ValueError(f"{names[0]} and {names[1]} must have the same length (one score per "
                         f"item, paired by position); got {x.size} and {y.size}")
    return x, y


def _zero_one(arr: np.ndarray, name: str) -> None:
    bad = np.flatnonzero((arr != 0) & (arr != 1))
    if len(bad):
        raise ValueError(f"{name} must hold 0/1 (or False/True) correctness, one per item; got "
                         f"{arr[bad[0]]:g} at position {bad[0]}")


def _cluster_codes(clusters: Any, n: int, *, name: str = "clusters") -> tuple[np.ndarray, int]:
    """Codes 0..C-1 of the cluster of each item, and C (at least 2)."""
    if clusters is None or isinstance(clusters, str | bytes) or np.ndim(clusters) == 0:
        raise ValueError(f"{name} must be an array with the cluster of each item; got "
                         f"{clusters!r:.60}")
    labels = as_label_array(clusters, name)
    if np.ndim(labels) != 1:
        raise ValueError(f"{name} must be one-dimensional (one cluster per item); "
                         f"got shape {np.shape(labels)}")
    if len(labels) != n:
        raise ValueError(f"{name} must give one cluster per item: {n} items; got {len(labels)} "
                         "cluster labels")
    codes, uniques = pd.factorize(np.asarray(labels), sort=False)
    _check_cluster_count(len(uniques), name)
    return codes.astype(np.intp), len(uniques)


def _check_cluster_count(n_clusters: int, name: str) -> None:
    if n_clusters < 2:
        raise ValueError(f"{name} must hold at least 2 clusters (the variance is estimated from "
                         f"the spread between clusters); got {n_clusters}")


# Numbers as engines return their sums: Python and numpy numbers, and the Decimal that DuckDB and
# Spark give for sums of decimal columns.
_NUMBER = (int, float, np.integer, np.floating, Decimal)


def _whole(value: Any, name: str, minimum: int) -> int:
    """Return ``value`` as an int >= minimum (an int, or a whole float as engines sum)."""
    if isinstance(value, bool) or not isinstance(value, _NUMBER):
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r:.60}")
    v = float(value)
    if not math.isfinite(v) or v != round(v) or v < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r:.60}")
    return int(v)


def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, _NUMBER):
        raise ValueError(f"{name} must be a finite number; got {value!r:.60}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number; got {v!r}")
    return v


def _sum_of_squares(total: float, *terms: float) -> float:
    """``total - sum(terms)``, a sum of squared deviations: 0 within rounding, never negative."""
    out = total - sum(terms)
    scale = abs(total) + sum(abs(t) for t in terms)
    return 0.0 if out <= _RTOL * scale else out


def _z_pvalue(z: float, alternative: str) -> tuple[float, float]:
    """(p-value, log p-value) of a standard normal statistic."""
    if alternative == "two-sided":
        log_p = min(0.0, math.log(2.0) + float(norm_logsf(abs(z))))
        return min(1.0, 2.0 * float(norm_sf(abs(z)))), log_p
    zz = z if alternative == "greater" else -z
    return float(norm_sf(zz)), float(norm_logsf(zz))


def _z_interval(mean: float, se: float, alternative: str, level: float) -> tuple[float, float]:
    if alternative == "two-sided":
        q = float(norm_isf((1.0 - level) / 2.0))
        return mean - q * se, mean + q * se
    q = float(norm_isf(1.0 - level))
    if alternative == "greater":
        return mean - q * se, math.inf
    return -math.inf, mean + q * se


def _few_clusters(n_clusters: int | None) -> str:
    if n_clusters is None or n_clusters >= FEW_CLUSTERS:
        return ""
    return (f"only {n_clusters} clusters: a variance estimated from so few clusters is biased "
            "low, so the p-value and interval are optimistic")


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


# --------------------------------------------------------------------------------------------
# clustered McNemar
# --------------------------------------------------------------------------------------------


def clustered_mcnemar_from_sums(
    sum_d: float,
    sum_d2: float,
    n_clusters: int,
    *,
    n_items: int,
    method: str = "obuchowski",
    difference: float | None = None,
) -> TestResult:
    """Clustered McNemar test from the second-level sums over clusters.

    The form an engine calls: it counts, per cluster c, the items only model A gets right
    (``b_c``) and only model B gets right (``c_c``), then returns two sums over clusters.

    Parameters
    ----------
    sum_d, sum_d2 : float
        ``"obuchowski"``: Σ_c D_c and Σ_c D_c² with ``D_c = b_c - c_c``.
        ``"durkalski"``: Σ_c d_c and Σ_c d_c² with ``d_c = (b_c - c_c) / n_c``, ``n_c`` the
        items of cluster c.
    n_clusters : int
        C, the number of clusters, those without discordant items included (at least 2).
    n_items : int
        The number of items (Σ_c n_c), for the estimate and ``n``.
    method : {"obuchowski", "durkalski"}
        Which statistic the sums belong to.
    difference : float, optional
        The accuracy difference acc_A - acc_B = Σ_c (b_c - c_c) / n_items. For
        ``"obuchowski"`` it defaults to ``sum_d / n_items``; for ``"durkalski"`` it cannot be
        computed from the sums and is NaN unless given.

    Returns
    -------
    TestResult
        ``statistic`` χ² with ``df = 1``; ``estimate`` the accuracy difference (no interval:
        that needs the cluster sizes, see :func:`clustered_mcnemar_from_counts` or
        :func:`paired_difference_from_sums`); ``n`` the items; ``note`` the number of items and
        clusters; ``details`` ``n_clusters``, ``sum_d``, ``sum_d2``.

    Notes
    -----
    Obuchowski (1998), in Yang et al.'s (2010) form: χ² = (Σ_c D_c)² / [C/(C-1) · Σ_c D_c²].
    Durkalski et al. (2003): χ² = (Σ_c d_c)² / Σ_c d_c². Both are referred to χ² with one
    degree of freedom. When Σ_c D_c² = 0 every cluster has as many items only A gets right as
    items only B gets right (in particular when no item is discordant): statistic 0, p-value 1,
    ``degenerate=True``. The sums must be consistent: Σ D_c² ≥ (Σ D_c)² / C.

    References
    ----------
    Obuchowski (1998), On the comparison of correlated proportions for clustered data,
    Stat Med 17:1495-1507. Durkalski, Palesch, Lipsitz & Rust (2003), Analysis of clustered
    matched-pair data, Stat Med 22:2417-2428. Yang, Sun & Hardin (2010), Testing marginal
    homogeneity in clustered matched-pair data, Biometrical Journal 52:578-594.

    Examples
    --------
    Obuchowski's thyroid example: 51 glands of 21 patients; the per-patient differences
    D_c are +1 (one patient), -2, -1, -1, -2, -1 (five patients) and 0 for the other fifteen,
    so Σ D_c = -6 and Σ D_c² = 12:

    >>> res = clustered_mcnemar_from_sums(-6, 12, 21, n_items=51)
    >>> round(res.statistic, 3), round(res.pvalue, 4), round(res.estimate, 4)
    (2.857, 0.091, -0.1176)

    McNemar's test, which takes the 51 glands as independent, gives χ² = 36/8 = 4.5 and
    p = 0.034; allowing for the patients, the difference is no longer significant at 5 %.
    """
    check_choice(method, "method", CLUSTERED_MCNEMAR_METHODS)
    s1, s2 = _finite(sum_d, "sum_d"), _finite(sum_d2, "sum_d2")
    c = _whole(n_clusters, "n_clusters", 0)
    _check_cluster_count(c, "n_clusters")
    n = _whole(n_items, "n_items", 1)
    if c > n:
        raise ValueError(f"n_clusters must not exceed n_items; got {c} clusters of {n} items")
    if s2 < 0 or s1 * s1 > c * s2 * (1 + 1e-9) + 1e-12:
        raise ValueError(f"sum_d2 must be at least sum_d**2 / n_clusters (a sum of squares over "
                         f"{c} clusters); got sum_d = {s1:g}, sum_d2 = {s2:g}")
    if difference is None:
        diff = s1 / n if method == "obuchowski" else math.nan
    else:
        diff = _finite(difference, "difference")
        if abs(diff) > 1:
            raise ValueError(f"difference must be an accuracy difference in [-1, 1]; got {diff:g}")
    name = _MCNEMAR_NAMES[method]
    details = {"n_clusters": c, "sum_d": s1, "sum_d2": s2}
    common: dict[str, Any] = {"df": 1.0, "n": n, "estimate": diff, "details": details}
    design = f"{n} items in {c} clusters"
    if s2 == 0:
        return TestResult.indistinguishable(
            name, _join(design, "no cluster has more items right by one model than by the "
                                "other: the data cannot tell the models apart"), **common)
    denominator = s2 * (c / (c - 1) if method == "obuchowski" else 1.0)
    stat = s1 * s1 / denominator
    log_p = chi2_logsf(stat, 1)
    return TestResult(statistic=stat, pvalue=min(1.0, math.exp(log_p)), log_pvalue=log_p,
                      method=name, note=_join(design, _few_clusters(c)), **common)


def clustered_mcnemar_from_counts(
    only_a: npt.ArrayLike,
    only_b: npt.ArrayLike,
    size: npt.ArrayLike,
    *,
    method: str = "obuchowski",
    confidence_level: float = 0.95,
) -> TestResult:
    """Clustered McNemar test from per-cluster counts of discordant items.

    Parameters
    ----------
    only_a : array-like of shape (C,)
        ``b_c``: items of cluster c that only model A gets right.
    only_b : array-like of shape (C,)
        ``c_c``: items of cluster c that only model B gets right.
    size : array-like of shape (C,)
        ``n_c``: items in cluster c (at least 1, at least ``b_c + c_c``).
    method : {"obuchowski", "durkalski"}
        The statistic (see :func:`clustered_mcnemar_from_sums`).
    confidence_level : float
        Level of the interval for the accuracy difference.

    Returns
    -------
    TestResult
        As :func:`clustered_mcnemar_from_sums`, with the interval of the accuracy difference
        from its cluster-robust (CR1) standard error, as :func:`paired_difference` gives on
        0/1 scores. ``details`` adds ``only_a`` and ``only_b`` (Σ b_c, Σ c_c),
        ``n_discordant``, ``se`` and ``variance_ratio``: Obuchowski's variance of Σ D_c over
        McNemar's (Σ b_c + Σ c_c), by which clustering widened the test (NaN for Durkalski).

    Examples
    --------
    The thyroid example by patient: glands per patient, and the glands where only PET (A) or
    only SPECT (B) found the disease.

    >>> size = [3, 3, 3, 1, 3, 4, 3, 2, 2, 1, 3, 2, 3, 2, 2, 3, 3, 3, 2, 1, 2]
    >>> only_a = [0] * 8 + [1] + [0] * 12
    >>> only_b = [2, 1, 0, 0, 1] + [0] * 9 + [2, 0, 0, 1, 0, 0, 0]
    >>> res = clustered_mcnemar_from_counts(only_a, only_b, size)
    >>> round(res.statistic, 3), round(res.details["variance_ratio"], 3)
    (2.857, 1.575)

    Clustering by patient made the variance of the discordance 1.575 times what McNemar's
    test assumes, and the statistic 4.5 shrinks by that factor.
    """
    check_choice(method, "method", CLUSTERED_MCNEMAR_METHODS)
    level = check_probability(confidence_level, "confidence_level")
    b, c, m = _cluster_counts(only_a, only_b, size)
    d = b - c
    n_items = float(m.sum())
    if method == "obuchowski":
        s1, s2 = float(d.sum()), float(np.sum(d * d))
    else:
        dc = d / m
        s1, s2 = float(dc.sum()), float(np.sum(dc * dc))
    diff = float(d.sum()) / n_items
    res = clustered_mcnemar_from_sums(s1, s2, len(d), n_items=int(n_items), method=method,
                                      difference=diff)
    k = len(d)
    se = math.sqrt(k / (k - 1) * float(np.sum((d - diff * m) ** 2))) / n_items
    n_disc = float(b.sum() + c.sum())
    ratio = k / (k - 1) * float(np.sum(d * d)) / n_disc if n_disc > 0 else math.nan
    details = {**res.details, "only_a": float(b.sum()), "only_b": float(c.sum()),
               "n_discordant": n_disc, "se": se,
               "variance_ratio": ratio if method == "obuchowski" else math.nan}
    lo, hi = _z_interval(diff, se, "two-sided", level) if se > 0 else (math.nan, math.nan)
    note = res.note
    if n_disc == 0:
        note = _join(note.split("; ")[0], "no discordant items: both models are right and wrong "
                                          "on the same items")
    return replace(res, ci_low=lo, ci_high=hi, confidence_level=level, details=details, note=note)


def _cluster_counts(only_a: Any, only_b: Any, size: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    arrays = []
    for name, raw in (("only_a", only_a), ("only_b", only_b), ("size", size)):
        if raw is None or isinstance(raw, str | bytes):
            raise ValueError(f"{name} must be an array of counts, one per cluster; got {raw!r:.60}")
        arr = check_counts(raw, name)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one count per cluster); got shape "
                             f"{arr.shape}")
        arrays.append(arr)
    b, c, m = arrays
    if not len(b) == len(c) == len(m):
        raise ValueError(f"only_a, only_b and size must have one entry per cluster; got lengths "
                         f"{len(b)}, {len(c)} and {len(m)}")
    _check_cluster_count(len(m), "size")
    empty = np.flatnonzero(m < 1)
    if len(empty):
        raise ValueError(f"size must count at least 1 item in every cluster; cluster {empty[0]} "
                         "has 0")
    over = np.flatnonzero(b + c > m)
    if len(over):
        i = int(over[0])
        raise ValueError(f"size must be at least only_a + only_b in every cluster; cluster {i} "
                         f"has {b[i]:g} + {c[i]:g} discordant items of {m[i]:g}")
    return b, c, m


def clustered_mcnemar(
    correct_a: npt.ArrayLike,
    correct_b: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    method: str = "obuchowski",
    confidence_level: float = 0.95,
) -> TestResult:
    """McNemar's test of equal accuracy of two models on items grouped in clusters.

    Parameters
    ----------
    correct_a, correct_b : array-like of shape (n,)
        1/True where model A (B) answered the item right, 0/False where wrong; the same items in
        the same order.
    clusters : array-like of shape (n,)
        The cluster of every item (a passage, a source document, a patient): any labels.
    method : {"obuchowski", "durkalski"}
        ``"obuchowski"`` (default): Obuchowski's (1998) statistic, which weights clusters by
        their discordant items. ``"durkalski"``: Durkalski et al.'s (2003), on per-cluster
        proportions, which weights clusters equally.
    confidence_level : float
        Level of the interval for the accuracy difference.

    Returns
    -------
    TestResult
        ``statistic`` χ² (df 1), ``pvalue``, ``estimate`` = accuracy A - accuracy B with its
        cluster-robust interval, ``n`` = items, ``note`` the items and clusters; ``details`` as
        in :func:`clustered_mcnemar_from_counts`.

    Notes
    -----
    With ``b_c`` and ``c_c`` the items of cluster c only A and only B get right, ``n_c`` its
    items and C the clusters: Obuchowski's χ² = (Σ D_c)² / [C/(C-1) · Σ D_c²] with
    ``D_c = b_c - c_c``; Durkalski's χ² = (Σ d_c)² / Σ d_c² with ``d_c = D_c / n_c``. With one
    item per cluster Obuchowski's statistic is (C-1)/C times McNemar's (b - c)² / (b + c).
    With no discordant item: statistic 0, p-value 1, ``degenerate=True``.

    References
    ----------
    Obuchowski (1998), Stat Med 17:1495-1507. Durkalski et al. (2003), Stat Med 22:2417-2428.

    Examples
    --------
    Six items from three passages; A is right on five, B on two:

    >>> a = [1, 1, 1, 1, 0, 1]
    >>> b = [0, 0, 1, 0, 0, 1]
    >>> res = clustered_mcnemar(a, b, ["p1", "p1", "p2", "p2", "p3", "p3"])
    >>> round(res.statistic, 3), round(res.pvalue, 3), round(res.estimate, 3)
    (1.2, 0.273, 0.5)

    McNemar's test would count three independent discordant items, all for A (χ² = 3,
    p = 0.083); two of them share passage p1, and the clustered statistic is 1.2 (p = 0.27).
    Three clusters are far too few for any variance estimate, as the note says.
    """
    a, b = _paired_vectors(correct_a, correct_b, ("correct_a", "correct_b"))
    _zero_one(a, "correct_a")
    _zero_one(b, "correct_b")
    codes, k = _cluster_codes(clusters, a.size)
    only_a = np.bincount(codes, weights=(a > b), minlength=k)
    only_b = np.bincount(codes, weights=(b > a), minlength=k)
    size = np.bincount(codes, minlength=k).astype(float)
    return clustered_mcnemar_from_counts(only_a, only_b, size, method=method,
                                         confidence_level=confidence_level)


# --------------------------------------------------------------------------------------------
# paired difference with a cluster-robust standard error
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedSums:
    """The sums from which the paired difference of two models' item scores is tested.

    With ``a_i``, ``b_i`` the scores of models A and B on item i, ``d_i = a_i - b_i``, and, when
    items are clustered, ``S_c = Σ_{i in c} d_i`` and ``n_c`` the items of cluster c. An engine
    computes the item-level sums in one pass and the cluster sums in a second level of
    aggregation (``GROUP BY cluster``, then sums over its result); nothing here needs the rows.

    Parameters
    ----------
    n_items : int
        n, the items (at least 2).
    sum_a, sum_b : float
        Σ a_i and Σ b_i.
    sum_a2, sum_b2, sum_ab : float
        Σ a_i², Σ b_i² and Σ a_i b_i (for 0/1 scores: the items A, B and both get right).
    n_clusters : int or None
        C, the clusters (at least 2); None when every item is its own cluster.
    sum_s2 : float
        Σ_c S_c² (NaN without clusters).
    sum_ns : float
        Σ_c n_c S_c (NaN without clusters).
    sum_n2 : float
        Σ_c n_c² (NaN without clusters).

    Notes
    -----
    The mean difference is d̄ = (Σ a - Σ b) / n, and

    - Σ_i (d_i - d̄)² = Σ a² - 2 Σ ab + Σ b² - n d̄² (the unclustered variance);
    - Σ_c (S_c - n_c d̄)² = Σ S_c² - 2 d̄ Σ n_c S_c + d̄² Σ n_c² (the cluster-robust one).

    Examples
    --------
    >>> s = PairedSums.from_scores([1, 1, 0, 1], [0, 1, 0, 0], clusters=["x", "x", "y", "y"])
    >>> s.n_items, s.n_clusters, s.sum_s2, s.mean_difference
    (4, 2, 2.0, 0.5)
    """

    n_items: int
    sum_a: float
    sum_b: float
    sum_a2: float
    sum_b2: float
    sum_ab: float
    n_clusters: int | None = None
    sum_s2: float = math.nan
    sum_ns: float = math.nan
    sum_n2: float = math.nan

    def __post_init__(self) -> None:
        n = _whole(self.n_items, "n_items", 2)
        object.__setattr__(self, "n_items", n)
        for name in ("sum_a", "sum_b", "sum_a2", "sum_b2", "sum_ab"):
            object.__setattr__(self, name, _finite(getattr(self, name), name))
        for name in ("sum_a2", "sum_b2"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be a sum of squares (>= 0); got {getattr(self, name):g}")
        if self.n_clusters is None:
            return
        c = _whole(self.n_clusters, "n_clusters", 0)
        _check_cluster_count(c, "n_clusters")
        if c > n:
            raise ValueError(f"n_clusters must not exceed n_items; got {c} clusters of {n} items")
        object.__setattr__(self, "n_clusters", c)
        for name in ("sum_s2", "sum_ns", "sum_n2"):
            object.__setattr__(self, name, _finite(getattr(self, name), name))
        if not (n * n / c) * (1 - 1e-12) <= self.sum_n2 <= n * n * (1 + 1e-12):
            raise ValueError(f"sum_n2 must lie between n_items**2 / n_clusters and n_items**2 (a "
                             f"sum of squared cluster sizes); got {self.sum_n2:g}")
        if self.sum_s2 < 0:
            raise ValueError(f"sum_s2 must be a sum of squares (>= 0); got {self.sum_s2:g}")

    @classmethod
    def from_scores(cls, scores_a: npt.ArrayLike, scores_b: npt.ArrayLike,
                    clusters: npt.ArrayLike | None = None) -> PairedSums:
        """Compute the sums from per-item scores (and clusters).

        Parameters
        ----------
        scores_a, scores_b : array-like of shape (n,)
            Scores of A and B on the same items, in the same order.
        clusters : array-like of shape (n,), optional
            The cluster of every item; None for independent items.

        Returns
        -------
        PairedSums
        """
        a, b = _paired_vectors(scores_a, scores_b, ("scores_a", "scores_b"))
        if a.size < 2:
            raise ValueError(f"scores_a and scores_b must hold at least 2 items; got {a.size}")
        item = (a.size, float(a.sum()), float(b.sum()), float(a @ a), float(b @ b), float(a @ b))
        if clusters is None:
            return cls(*item)
        codes, k = _cluster_codes(clusters, a.size)
        s = np.bincount(codes, weights=a - b, minlength=k)
        m = np.bincount(codes, minlength=k).astype(float)
        return cls(*item, n_clusters=k, sum_s2=float(s @ s), sum_ns=float(m @ s),
                   sum_n2=float(m @ m))

    @classmethod
    def from_items(cls, sums: ItemSums, a: int, b: int | None = None) -> PairedSums:
        """Return the sums of model ``a`` against model ``b`` on counted evaluation items.

        Parameters
        ----------
        sums : ItemSums
            One task's sums, as :func:`precmp_lib.engine.items.count_items` returns them.
        a : int
            Model index of A.
        b : int, optional
            Model index of B; None gives model ``a`` alone, as a difference from a model that
            scores 0 on every item (its ``mean_difference`` is A's mean score, its variances
            those of that mean).

        Returns
        -------
        PairedSums
            With d = a - b; clustered when the source has clusters.

        Examples
        --------
        >>> from precmp_lib.engine.items import count_items
        >>> frame = pd.DataFrame({"item": [1, 2, 3, 4] * 2, "model": ["a"] * 4 + ["b"] * 4,
        ...                       "score": [1, 1, 0, 1, 1, 0, 0, 0], "doc": ["p", "p", "q", "q"] * 2})
        >>> [s] = count_items(frame, cluster="doc")
        >>> p = PairedSums.from_items(s, 0, 1)
        >>> p.mean_difference, p.n_clusters, p.sum_s2
        (0.5, 2, 2.0)

        Per document the differences sum to 1 and 1, so Σ_c S_c² = 2.
        """
        g, h = sums.item_gram, sums.cluster_gram
        if b is None:
            common = (sums.n_items, sums.sums[a], 0.0, g[a, a], 0.0, 0.0)
            if sums.n_clusters is None:
                return cls(*common)
            return cls(*common, n_clusters=sums.n_clusters, sum_s2=h[a, a],
                       sum_ns=sums.cluster_ns[a], sum_n2=sums.sum_n2)
        common = (sums.n_items, sums.sums[a], sums.sums[b], g[a, a], g[b, b], g[a, b])
        if sums.n_clusters is None:
            return cls(*common)
        return cls(*common, n_clusters=sums.n_clusters,
                   sum_s2=max(h[a, a] - 2 * h[a, b] + h[b, b], 0.0),
                   sum_ns=sums.cluster_ns[a] - sums.cluster_ns[b], sum_n2=sums.sum_n2)

    @property
    def mean_difference(self) -> float:
        """d̄ = mean(a - b)."""
        return (self.sum_a - self.sum_b) / self.n_items

    def variance_unclustered(self) -> float:
        """Var(d̄) for independent items: Σ (d_i - d̄)² / (n (n - 1)).

        Returns
        -------
        float
        """
        n, m = self.n_items, self.mean_difference
        ss = _sum_of_squares(self.sum_a2 + self.sum_b2, 2 * self.sum_ab, n * m * m)
        return ss / (n * (n - 1))

    def variance_clustered(self) -> float:
        """Var(d̄), cluster-robust (CR1): C/(C-1) Σ_c (S_c - n_c d̄)² / n².

        Returns
        -------
        float
            The unclustered variance when there are no clusters (they agree when every item is
            its own cluster).
        """
        if self.n_clusters is None:
            return self.variance_unclustered()
        c, n, m = self.n_clusters, self.n_items, self.mean_difference
        ss = _sum_of_squares(self.sum_s2 + m * m * self.sum_n2, 2 * m * self.sum_ns)
        return c / (c - 1) * ss / (n * n)

    def correlation(self) -> float:
        """Pearson correlation of the two models' item scores (NaN when one is constant).

        Returns
        -------
        float
        """
        n = self.n_items
        va = _sum_of_squares(self.sum_a2, self.sum_a**2 / n)
        vb = _sum_of_squares(self.sum_b2, self.sum_b**2 / n)
        if va == 0 or vb == 0:
            return math.nan
        cov = self.sum_ab - self.sum_a * self.sum_b / n
        return float(np.clip(cov / math.sqrt(va * vb), -1.0, 1.0))


def _difference_details(sums: PairedSums) -> dict[str, Any]:
    var_c, var_u = sums.variance_clustered(), sums.variance_unclustered()
    return {"se": math.sqrt(var_c), "se_unclustered": math.sqrt(var_u),
            "n_clusters": sums.n_clusters if sums.n_clusters is not None else sums.n_items,
            "correlation": sums.correlation(),
            "design_effect": var_c / var_u if var_u > 0 else math.nan,
            "mean_a": sums.sum_a / sums.n_items, "mean_b": sums.sum_b / sums.n_items}


def _check_sums(sums: Any) -> PairedSums:
    if not isinstance(sums, PairedSums):
        raise TypeError(f"sums must be a PairedSums (see PairedSums.from_scores); got "
                        f"{type(sums).__name__}")
    return sums


def paired_difference_from_sums(
    sums: PairedSums,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    df: int | None = None,
) -> TestResult:
    """Paired difference of two models' mean item scores from :class:`PairedSums`.

    Parameters
    ----------
    sums : PairedSums
        The item-level sums and, for clustered items, the cluster sums.
    confidence_level : float
        Level of the interval for the mean difference.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's expected item score exceeds B's.
    df : int, optional
        Take the p-value and interval from Student's t with ``df`` degrees of freedom instead
        of the standard normal (C - 1 for C clusters, as inspect's ``ci()`` and Cameron &
        Miller 2015 do with few clusters); the note then says so.

    Returns
    -------
    TestResult
        See :func:`paired_difference`.

    Examples
    --------
    Sums an engine returned for 400 items in 40 passages:

    >>> s = PairedSums(n_items=400, sum_a=300, sum_b=270, sum_a2=300, sum_b2=270, sum_ab=250,
    ...                n_clusters=40, sum_s2=260, sum_ns=300, sum_n2=4000)
    >>> res = paired_difference_from_sums(s)
    >>> round(res.estimate, 3), round(res.details["se"], 4), round(res.details["design_effect"], 2)
    (0.075, 0.039, 3.59)

    The passages multiply the variance of the difference by 3.6: the standard error is 0.039,
    not the 0.021 that independent items would give.
    """
    sums = _check_sums(sums)
    check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_probability(confidence_level, "confidence_level")
    details = _difference_details(sums)
    m, se = sums.mean_difference, details["se"]
    clustered = sums.n_clusters is not None
    method = ("paired difference, cluster-robust (CR1) z" if clustered
              else "paired difference z (independent items)")
    common: dict[str, Any] = {"method": method, "alternative": alternative, "n": sums.n_items,
                              "estimate": m, "confidence_level": level, "details": details}
    design = (f"{sums.n_items} items in {sums.n_clusters} clusters" if clustered
              else f"{sums.n_items} independent items")
    df = _check_df(df)
    if df is not None:
        common["method"] = (f"paired difference, cluster-robust (CR1) t ({df} df)" if clustered
                            else f"paired difference t ({df} df, independent items)")
    if se == 0:
        return _flat_difference(m, design, common)
    z = m / se
    if df is None:
        p, log_p = _z_pvalue(z, alternative)
        lo, hi = _z_interval(m, se, alternative, level)
        few = _few_clusters(sums.n_clusters)
    else:
        p, lo, hi = _t_test(z, m, se, df, alternative, level)
        log_p = math.log(p) if p > 0 else -math.inf
        few = _t_note(df, clustered)
    return TestResult(statistic=z, pvalue=p, log_pvalue=log_p, ci_low=lo, ci_high=hi,
                      note=_join(design, few), **common)


def _check_df(df: Any) -> int | None:
    """Return ``df`` as an int (None for the normal), refusing anything but a positive integer."""
    if df is not None and not (isinstance(df, int | np.integer) and df >= 1):
        raise ValueError(f"df must be a positive integer; got {df!r}")
    return None if df is None else int(df)


def _t_note(df: int, clustered: bool = True) -> str:
    """Say which reference distribution a test on few independent units used.

    >>> _t_note(11)
    't with C−1 = 11 df (few clusters: z would reject too often)'
    >>> _t_note(19, clustered=False)
    't with n−1 = 19 df (few items: z would reject too often)'
    """
    if not clustered:
        return f"t with n−1 = {df} df (few items: z would reject too often)"
    return f"t with C−1 = {df} df (few clusters: z would reject too often)"


def _t_test(t: float, mean: float, se: float, df: int, alternative: str,
            level: float) -> tuple[float, float, float]:
    """(p-value, interval) of a statistic referred to Student's t with ``df`` degrees of freedom."""
    if alternative == "two-sided":
        p = min(1.0, 2.0 * float(t_sf(abs(t), df)))
        q = float(t_isf((1.0 - level) / 2.0, df))
        return p, mean - q * se, mean + q * se
    q = float(t_isf(1.0 - level, df))
    if alternative == "greater":
        return float(t_sf(t, df)), mean - q * se, math.inf
    return float(t_sf(-t, df)), -math.inf, mean + q * se


def _flat_difference(mean: float, design: str, common: dict[str, Any]) -> TestResult:
    """Build the result for a standard error of 0: no spread of the differences to test."""
    if mean == 0:
        return TestResult.indistinguishable(
            common.pop("method"), _join(design, "the differences are zero in every cluster (or "
                                                "item): the data cannot tell the models apart"),
            **common)
    note = _join(design, f"every item (or cluster) differs by the same {mean:.6g}: the standard "
                         "error is 0, so the statistic is infinite")
    alt = common["alternative"]
    wrong_side = (alt == "greater" and mean < 0) or (alt == "less" and mean > 0)
    return TestResult(statistic=math.copysign(math.inf, mean), pvalue=1.0 if wrong_side else 0.0,
                      log_pvalue=0.0 if wrong_side else -math.inf, degenerate=True, note=note,
                      **common)


def paired_difference(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    *,
    clusters: npt.ArrayLike | None = None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> TestResult:
    """Mean difference of two models' item scores, with a cluster-robust z test and interval.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n,)
        Scores of models A and B on the same n items, in the same order: 0/1 correctness, or any
        number (a probability, F1, a rating; the mean of K answers, :func:`repeated_answers`).
    clusters : array-like of shape (n,), optional
        The cluster of every item (passage, document, template); None for independent items.
    confidence_level : float
        Level of the interval for the mean difference.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's expected item score exceeds B's.

    Returns
    -------
    TestResult
        ``statistic`` z = d̄ / SE (``df`` None); ``estimate`` d̄ = mean(a - b) with its normal
        interval; ``n`` the items; ``note`` the design. ``details``: ``se`` (the standard error
        used), ``se_unclustered`` (the paired SE that treats items as independent),
        ``n_clusters`` (n without clusters), ``correlation`` (Pearson, of A's and B's item
        scores), ``design_effect`` (clustered over unclustered variance), ``mean_a``, ``mean_b``.

    Notes
    -----
    With d_i = a_i - b_i and, for cluster c of n_c items, S_c = Σ_{i in c} d_i:

    - clustered (CR1): SE² = C/(C-1) · Σ_c (S_c - n_c d̄)² / n², the same as statsmodels'
      ``OLS(d, ones).fit(cov_type="cluster", cov_kwds={"groups": clusters}).bse``;
    - independent items: SE² = Σ (d_i - d̄)² / (n (n - 1)), the paired CLT standard error, which
      is the CR1 SE with every item its own cluster.

    The normal reference is a large-sample one: with fewer than 20 clusters the note says the
    interval is optimistic. A standard error of 0 (every difference 0, or all the same) gives
    ``degenerate=True``: statistic 0 and p-value 1 when the mean difference is 0, else an
    infinite statistic.

    References
    ----------
    Cameron & Miller (2015), A practitioner's guide to cluster-robust inference, J Human
    Resources 50:317-372. Miller (2024), Adding error bars to evals, arXiv:2411.00640.

    Examples
    --------
    Twelve items in four passages; A is right on nine, B on six:

    >>> a = [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0]
    >>> b = [1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1]
    >>> passage = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> res = paired_difference(a, b, clusters=passage)
    >>> round(res.estimate, 3), round(res.details["se"], 3), round(res.pvalue, 3)
    (0.25, 0.16, 0.117)

    A is ahead by a quarter of the items, but with four passages the interval
    (about -0.06 to 0.56) still holds zero.
    """
    sums = PairedSums.from_scores(scores_a, scores_b, clusters)
    return paired_difference_from_sums(sums, confidence_level=confidence_level,
                                       alternative=alternative)


# --------------------------------------------------------------------------------------------
# equivalence
# --------------------------------------------------------------------------------------------


def equivalence_test_from_sums(sums: PairedSums, *, margin: float, alpha: float = 0.05,
                               df: int | None = None) -> TestResult:
    """Two one-sided tests (TOST) that |mean(a - b)| < margin, from :class:`PairedSums`.

    Parameters
    ----------
    sums : PairedSums
        The item-level sums and, for clustered items, the cluster sums.
    margin : float
        m > 0: differences within ±m count as equivalent (on the scale of the scores).
    alpha : float
        Level of each one-sided test, in (0, 0.5).
    df : int, optional
        Take both one-sided p-values and the interval from Student's t with ``df`` degrees of
        freedom instead of the normal (C - 1 for C clusters, as
        :func:`paired_difference_from_sums` takes it below ``T_CLUSTERS`` clusters).

    Returns
    -------
    TestResult
        See :func:`equivalence_test`.

    Examples
    --------
    >>> s = PairedSums(n_items=400, sum_a=300, sum_b=296, sum_a2=300, sum_b2=296, sum_ab=280,
    ...                n_clusters=400, sum_s2=36, sum_ns=4, sum_n2=400)
    >>> res = equivalence_test_from_sums(s, margin=0.05)
    >>> round(res.pvalue, 4), res.details["equivalent"]
    (0.0039, True)

    The same differences in 12 passages, referred to t with 11 df, are not shown equivalent:

    >>> c = PairedSums(n_items=400, sum_a=300, sum_b=296, sum_a2=300, sum_b2=296, sum_ab=280,
    ...                n_clusters=12, sum_s2=80, sum_ns=130, sum_n2=13400)
    >>> z, t = (equivalence_test_from_sums(c, margin=0.05, df=d) for d in (None, 11))
    >>> round(z.pvalue, 4), round(t.pvalue, 4), t.method
    (0.0421, 0.0561, 'TOST equivalence of paired scores (t, 11 df)')
    """
    sums = _check_sums(sums)
    m = check_positive_float(margin, "margin")
    a = check_probability(alpha, "alpha")
    if a >= 0.5:
        raise ValueError(f"alpha must lie in (0, 0.5) for two one-sided tests; got {a!r}")
    d = sums.mean_difference
    details = _difference_details(sums)
    se = details["se"]
    level = 1.0 - 2.0 * a
    design = (f"{sums.n_items} items in {sums.n_clusters} clusters" if sums.n_clusters
              else f"{sums.n_items} independent items")
    df = _check_df(df)
    common: dict[str, Any] = {"method": ("TOST equivalence of paired scores (z)" if df is None
                                         else f"TOST equivalence of paired scores (t, {df} df)"),
                              "alternative": "equivalence", "n": sums.n_items, "estimate": d,
                              "confidence_level": level}
    if se == 0:
        note = _join(design, "the differences have no spread (standard error 0): equivalence "
                             "cannot be shown from these items")
        return TestResult.indistinguishable(
            common.pop("method"), note,
            details={**details, "margin": m, "equivalent": False}, **common)
    z_lower, z_upper = (d + m) / se, (d - m) / se
    if df is None:
        p_lower, p_upper = float(norm_sf(z_lower)), float(norm_sf(-z_upper))
        log_p = max(float(norm_logsf(z_lower)), float(norm_logsf(-z_upper)))
        lo, hi = _z_interval(d, se, "two-sided", level)
        few = _few_clusters(sums.n_clusters)
    else:
        p_lower, p_upper = float(t_sf(z_lower, df)), float(t_sf(-z_upper, df))
        log_p = math.log(max(p_lower, p_upper)) if max(p_lower, p_upper) > 0 else -math.inf
        q = float(t_isf(a, df))  # the (1 - 2 alpha) interval
        lo, hi = d - q * se, d + q * se
        few = _t_note(df, sums.n_clusters is not None)
    p = max(p_lower, p_upper)
    equivalent = p < a
    verdict = (f"equivalent within ±{m:g}" if equivalent
               else f"not shown equivalent within ±{m:g}")
    details.update({"margin": m, "z_lower": z_lower, "z_upper": z_upper, "p_lower": p_lower,
                    "p_upper": p_upper, "equivalent": equivalent})
    return TestResult(statistic=min(z_lower, -z_upper), pvalue=p, log_pvalue=log_p, ci_low=lo,
                      ci_high=hi, details=details,
                      note=_join(verdict, design, few), **common)


def equivalence_test(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    *,
    margin: float,
    clusters: npt.ArrayLike | None = None,
    alpha: float = 0.05,
) -> TestResult:
    """Test that two models' mean item scores differ by less than a margin (TOST).

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n,)
        Scores of models A and B on the same items, in the same order.
    margin : float
        m > 0: the largest difference that does not matter, on the scale of the scores (0.02 =
        two points of accuracy).
    clusters : array-like of shape (n,), optional
        The cluster of every item; the standard error is then cluster-robust (CR1), as in
        :func:`paired_difference`.
    alpha : float
        Level of each one-sided test, in (0, 0.5).

    Returns
    -------
    TestResult
        ``pvalue`` the larger of the two one-sided p-values; ``statistic`` the z of the test
        that gave it; ``estimate`` d̄ = mean(a - b) with its (1 - 2 alpha) interval;
        ``alternative`` ``"equivalence"``; ``note`` begins "equivalent within ±m" only when
        ``pvalue < alpha``, else "not shown equivalent within ±m". ``details``: ``margin``,
        ``z_lower``, ``z_upper``, ``p_lower``, ``p_upper``, ``equivalent``, and those of
        :func:`paired_difference` (``se``, ``design_effect``, ...).

    Notes
    -----
    With SE the standard error of d̄: p_lower = P(Z > (d̄ + m) / SE) tests H0: δ ≤ -m,
    p_upper = P(Z < (d̄ - m) / SE) tests H0: δ ≥ m, and p = max(p_lower, p_upper) (Schuirmann
    1987). Equivalently, the (1 - 2 alpha) interval lies inside (-m, m). When the standard error
    is 0 the result is degenerate (p-value 1): no spread, no evidence of equivalence.

    References
    ----------
    Schuirmann (1987), A comparison of the two one-sided tests procedure and the power approach
    for assessing the equivalence of average bioavailability, J Pharmacokin Biopharm 15:657-680.

    Examples
    --------
    400 items; B is a cheaper model that agrees with A on most of them:

    >>> rng = np.random.default_rng(0)
    >>> a = rng.random(400) < 0.75
    >>> b = np.where(rng.random(400) < 0.9, a, rng.random(400) < 0.75)
    >>> res = equivalence_test(a, b, margin=0.05)
    >>> res.note.split(";")[0], f"{res.pvalue:.1e}"
    ('equivalent within ±0.05', '1.2e-06')

    At a margin of one point the same items cannot show it:

    >>> equivalence_test(a, b, margin=0.01).note.split(";")[0]
    'not shown equivalent within ±0.01'
    """
    sums = PairedSums.from_scores(scores_a, scores_b, clusters)
    return equivalence_test_from_sums(sums, margin=margin, alpha=alpha)
