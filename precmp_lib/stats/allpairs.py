"""Every pair of many models at once: the paired tests as array operations on sums matrices.

With X the items x models matrix of item scores (0/1 correctness, or any score) and S the
clusters x models matrix of per-cluster sums, every pair's sums are entries of two products:

- the item Gram matrix G = XᵀX: for 0/1 scores the items only model a gets right against b
  are ``B = Xᵀ(1 − X) = Xᵀ1 − G`` (McNemar's discordant counts of every pair at once);
- the cluster Gram matrix H = SᵀS: the clustered variance of every pair's difference,
  Σ_c (S_ca − S_cb)² = H_aa − 2 H_ab + H_bb.

:class:`~precmp_lib.core.items.ItemSums` holds both (the engines return them, never a pass per
pair). The functions here take those matrices and two arrays of model indices (the pairs of the
family tested: all k(k − 1)/2 pairs, or each model against one) and return, pair by pair, what
the per-pair functions :func:`~precmp_lib.stats.contingency.mcnemar`,
:func:`~precmp_lib.stats.paired.clustered_mcnemar_from_sums` and
:func:`~precmp_lib.stats.paired.paired_difference_from_sums` return for one pair: the same
formulas, evaluated on arrays (equal to them within 1e-12; the discordant counts exactly).
Holm's adjustment over the family is :func:`~precmp_lib.stats.multiple.adjust_pvalues`, which
is vectorised already.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._lib.dist import chi2_sf, norm_isf, norm_sf, stats, t_isf, t_sf
from ..core.items import ItemSums

__all__ = ["PairDifferences", "clustered_mcnemar_all", "discordant_counts", "mcnemar_all",
           "pair_index", "paired_differences_all"]

_RTOL = 1e-12  # as :mod:`precmp_lib.stats.paired`: a sum of squares within rounding of 0 is 0


def pair_index(m: int, reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Return the model indices (a, b) of the family of pairs: all pairs, or each against one.

    Parameters
    ----------
    m : int
        Models.
    reference : int, optional
        Pair every other model with this one (m − 1 pairs, the reference as ``a``); None gives
        every pair a < b (m (m − 1) / 2 pairs, in the order of a nested loop).

    Returns
    -------
    (ndarray, ndarray)
        Integer arrays of equal length.

    Examples
    --------
    >>> [x.tolist() for x in pair_index(3)]
    [[0, 0, 1], [1, 2, 2]]
    >>> [x.tolist() for x in pair_index(3, reference=1)]
    [[1, 1], [0, 2]]
    """
    if reference is None:
        a, b = np.triu_indices(m, k=1)
        return a.astype(np.int64), b.astype(np.int64)
    others = np.array([j for j in range(m) if j != reference], dtype=np.int64)
    return np.full(len(others), reference, dtype=np.int64), others


def discordant_counts(sums: npt.ArrayLike, gram: npt.ArrayLike, a: np.ndarray,
                      b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items only a gets right and only b gets right, for 0/1 scores: B = Xᵀ(1 − X).

    Parameters
    ----------
    sums : array (m,)
        Σ_i x_ij, the items each model gets right.
    gram : array (m, m)
        XᵀX, the items both get right.
    a, b : int arrays
        The pairs.

    Returns
    -------
    (ndarray, ndarray)
        ``sums[a] − G[a, b]`` and ``sums[b] − G[a, b]``.

    Examples
    --------
    >>> x = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=float)
    >>> only_a, only_b = discordant_counts(x.sum(0), x.T @ x, *pair_index(3))
    >>> only_a.tolist(), only_b.tolist()
    ([2.0, 2.0, 1.0], [0.0, 1.0, 2.0])
    """
    s, g = np.asarray(sums, dtype=float), np.asarray(gram, dtype=float)
    both = g[a, b]
    return s[a] - both, s[b] - both


def mcnemar_all(only_a: npt.ArrayLike, only_b: npt.ArrayLike,
                method: str = "chi2") -> tuple[np.ndarray, np.ndarray]:
    """McNemar's test for every pair from its discordant counts: (statistic, p-value) arrays.

    Parameters
    ----------
    only_a, only_b : arrays
        b and c of every pair.
    method : {"chi2", "chi2_corrected", "exact", "midp"}
        As :func:`~precmp_lib.stats.contingency.mcnemar`: the statistic is χ², or min(b, c) for
        the exact and mid-p tests. Pairs without discordant items get statistic 0 and p = 1.

    Returns
    -------
    (ndarray, ndarray)

    Examples
    --------
    Raschka's scenario B (25 items only A gets right, 15 only B) and a pair without
    discordant items:

    >>> stat, p = mcnemar_all([25, 0], [15, 0], "exact")
    >>> stat.tolist(), p.round(5).tolist()
    ([15.0, 0.0], [0.15386, 1.0])
    """
    b, c = np.asarray(only_a, dtype=float), np.asarray(only_b, dtype=float)
    n = b + c
    none = n == 0
    safe = np.where(none, 1.0, n)
    if method in ("chi2", "chi2_corrected"):
        d = np.abs(b - c) if method == "chi2" else np.maximum(np.abs(b - c) - 1.0, 0.0)
        stat = np.where(none, 0.0, d * d / safe)
        p = np.minimum(1.0, np.asarray(chi2_sf(stat, 1), dtype=float))
    elif method in ("exact", "midp"):
        k = np.minimum(b, c)
        cdf = np.asarray(stats.binom.cdf(k, safe, 0.5), dtype=float)
        if method == "exact":
            p = np.minimum(1.0, 2 * cdf)
        else:
            p = np.minimum(1.0, 2 * cdf - np.asarray(stats.binom.pmf(k, safe, 0.5), dtype=float))
        stat = np.where(none, 0.0, k)
    else:
        raise ValueError(f"method must be one of chi2, chi2_corrected, exact, midp; got {method!r}")
    return stat, np.where(none, 1.0, p)


def clustered_mcnemar_all(sums: ItemSums, a: np.ndarray,
                          b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Obuchowski's clustered McNemar test for every pair: (χ², p-value) arrays.

    χ² = (Σ_c D_c)² / [C/(C − 1) Σ_c D_c²] with Σ_c D_c = Σ a − Σ b and Σ_c D_c² = H_aa − 2 H_ab +
    H_bb from the cluster Gram matrix (the item Gram matrix without clusters), as
    :func:`~precmp_lib.stats.paired.clustered_mcnemar_from_sums` with
    :meth:`~precmp_lib.core.items.ItemSums.cluster_sum_d2`. Where Σ_c D_c² = 0: χ² 0, p 1.

    Parameters
    ----------
    sums : ItemSums
        One task's sums (clustered).
    a, b : int arrays
        The pairs.

    Returns
    -------
    (ndarray, ndarray)
    """
    c = sums.n_clusters if sums.n_clusters is not None else sums.n_items
    h = sums.cluster_gram if sums.n_clusters is not None else sums.item_gram
    d = sums.sums[a] - sums.sums[b]
    d2 = np.maximum(h[a, a] - 2 * h[a, b] + h[b, b], 0.0)
    zero = d2 == 0
    stat = np.where(zero, 0.0, d * d / np.where(zero, 1.0, d2 * (c / (c - 1))))
    p = np.minimum(1.0, np.asarray(chi2_sf(stat, 1), dtype=float))
    return stat, np.where(zero, 1.0, p)


def _sum_of_squares(total: np.ndarray, *terms: np.ndarray) -> np.ndarray:
    out = total - sum(terms)
    scale = np.abs(total) + sum(np.abs(t) for t in terms)
    return np.where(out <= _RTOL * scale, 0.0, out)


@dataclass(frozen=True)
class PairDifferences:
    """The paired difference of every pair (arrays, one entry per pair).

    Attributes
    ----------
    estimate, se, se_unclustered, correlation, design_effect, statistic, pvalue, ci_low, ci_high : ndarray
        As :func:`~precmp_lib.stats.paired.paired_difference_from_sums` returns for one pair
        (``estimate`` the mean of a − b; ``se`` cluster-robust CR1; the statistic z, or t with
        ``df`` degrees of freedom). A pair whose differences do not vary (``se`` 0) has
        statistic 0 and p-value 1 when the difference is 0, else an infinite statistic and p 0,
        and no interval.
    var_unclustered : ndarray
        Var(d̄) for independent items, Σ (d_i − d̄)² / (n (n − 1)).
    """

    estimate: np.ndarray
    se: np.ndarray
    se_unclustered: np.ndarray
    var_unclustered: np.ndarray
    correlation: np.ndarray
    design_effect: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


def paired_differences_all(sums: ItemSums, a: np.ndarray, b: np.ndarray | None, *,
                           confidence_level: float = 0.95,
                           df: int | None = None) -> PairDifferences:
    """Cluster-robust (CR1) paired differences of every pair, two-sided, from one task's sums.

    Parameters
    ----------
    sums : ItemSums
        One task's sums.
    a : int array
        Model A of every pair.
    b : int array, optional
        Model B of every pair; None compares each model ``a`` with a model scoring 0 on every
        item (its mean score with a CR1 interval, as :meth:`PairedSums.from_items` with
        ``b=None``).
    confidence_level : float
        Level of the intervals.
    df : int, optional
        Refer the statistic to t with ``df`` degrees of freedom instead of the normal.

    Returns
    -------
    PairDifferences

    Examples
    --------
    >>> from precmp_lib.stats.paired import PairedSums, paired_difference_from_sums
    >>> x = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [1, 1, 1]], dtype=float)
    >>> s = ItemSums(task="", models=("p", "q", "r"), n_items=5, n_clusters=None, sum_n2=5.0,
    ...              sums=x.sum(0), item_gram=x.T @ x, cluster_ns=x.sum(0),
    ...              cluster_gram=x.T @ x, answers=np.full(3, 5.0), within=np.zeros(3),
    ...              within_over_k=np.zeros(3), k_min=1, k_max=1, binary=True)
    >>> all_pairs = paired_differences_all(s, *pair_index(3))
    >>> one = paired_difference_from_sums(PairedSums.from_items(s, 0, 1))
    >>> bool(np.isclose(all_pairs.pvalue[0], one.pvalue, rtol=1e-12, atol=0))
    True
    """
    n = float(sums.n_items)
    g, sa = sums.item_gram, sums.sums[a]
    if b is None:
        sb = np.zeros(len(a))
        a2, b2, ab = g[a, a], np.zeros(len(a)), np.zeros(len(a))
    else:
        sb, a2, b2, ab = sums.sums[b], g[a, a], g[b, b], g[a, b]
    mean = (sa - sb) / n
    var_u = _sum_of_squares(a2 + b2, 2 * ab, n * mean * mean) / (n * (n - 1))
    if sums.n_clusters is None:
        var_c = var_u
    else:
        c, h = float(sums.n_clusters), sums.cluster_gram
        if b is None:
            s2, ns = h[a, a], sums.cluster_ns[a]
        else:
            s2 = np.maximum(h[a, a] - 2 * h[a, b] + h[b, b], 0.0)
            ns = sums.cluster_ns[a] - sums.cluster_ns[b]
        var_c = c / (c - 1) * _sum_of_squares(s2 + mean * mean * sums.sum_n2, 2 * mean * ns) / (n * n)
    va = _sum_of_squares(a2, sa * sa / n)
    vb = _sum_of_squares(b2, sb * sb / n)
    flat_model = (va == 0) | (vb == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.where(flat_model, np.nan,
                        np.clip((ab - sa * sb / n) / np.sqrt(np.where(flat_model, 1.0, va * vb)),
                                -1.0, 1.0))
        deff = np.where(var_u > 0, var_c / np.where(var_u > 0, var_u, 1.0), np.nan)
        se = np.sqrt(var_c)
        flat = se == 0
        z = np.where(flat, 0.0, mean / np.where(flat, 1.0, se))
    level = float(confidence_level)
    if df is None:
        p = np.minimum(1.0, 2.0 * np.asarray(norm_sf(np.abs(z)), dtype=float))
        q = float(norm_isf((1.0 - level) / 2.0))
    else:
        p = np.minimum(1.0, 2.0 * np.asarray(t_sf(np.abs(z), df), dtype=float))
        q = float(t_isf((1.0 - level) / 2.0, df))
    lo, hi = mean - q * se, mean + q * se
    # no spread: 0 and p 1 for a zero difference, else an infinite statistic and p 0; no interval
    z = np.where(flat, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)), z)
    p = np.where(flat, np.where(mean == 0, 1.0, 0.0), p)
    lo, hi = np.where(flat, np.nan, lo), np.where(flat, np.nan, hi)
    return PairDifferences(estimate=mean, se=se, se_unclustered=np.sqrt(var_u), var_unclustered=var_u,
                           correlation=corr, design_effect=deff, statistic=z, pvalue=p,
                           ci_low=lo, ci_high=hi)
