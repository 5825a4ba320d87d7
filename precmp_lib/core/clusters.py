"""Cluster sums: the second-level sums every cluster-robust statistic of a comparison needs.

When rows repeat a unit (an observation predicted once per repeat of cross-validation, or
items that share a passage), the robust variances are sums over clusters of products of
per-cluster sums. For cluster ``i``, model ``j`` and class ``k`` let

* ``m_i`` be the rows of the cluster and ``r_ij`` the rows model ``j`` predicts rightly;
* ``a_ijk`` the rows of true class ``k`` that model ``j`` predicts as ``k`` and ``w_ijk`` the
  rows of another true class that model ``j`` predicts as ``k``.

Then the clustered accuracy interval needs ``G``, ``sum m_i``, ``sum m_i^2``, ``sum r_ij``,
``sum r_ij^2`` and ``sum r_ij m_i`` (:func:`clustered_accuracy_from_sums`), and the clustered
precision moments of the GS and GEE tests (docs/methods.md §7) are ``sum_i a_ijk``,
``sum_i w_ijk``, ``sum_i a_ijk a_ilk``, ``sum_i a_ijk w_ilk`` and ``sum_i w_ijk w_ilk``.

These are computed in two levels: per cluster (and per (cluster, class)), then across
clusters. :func:`cluster_sums` does it with numpy from a table of coded patterns per cluster;
:func:`precmp_lib.engine.sql.cluster_sums_sql` writes the same as one SQL text that DuckDB and
Spark run where the data live, so what comes back has ``K + 1`` rows whatever the number of rows
or clusters. :func:`cluster_sums_from_rows` reads those rows back. The two routes give the same
integers. This module holds the sums, their types and the layout of the packed form
(:func:`packed_bits`, :func:`packed_terms`, :func:`profile_terms`); the SQL text is in
:mod:`precmp_lib.engine.sql`.

Examples
--------
Two clusters (observations) of two rows each, classes 0 and 1, two models:

>>> s = cluster_sums([0, 0, 1, 1], [1, 1, 0, 0], [[1, 0], [1, 1], [0, 0], [1, 0]],
...                  [1, 1, 1, 1], n_classes=2)
>>> s.n_clusters, s.size, s.right.tolist(), s.right_sq.tolist()
(2, 4, [3, 3], [5, 5])
>>> s.cc[1].tolist()  # class 1: sum over clusters of a_i,j * a_i,l
[[4, 2], [2, 1]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._lib.checks import check_positive_int, check_probability
from .._lib.dist import norm_isf
from .counts import check_pattern_codes, check_pattern_weights, class_moments

__all__ = ["ClassProfiles", "ClusterSums", "class_profiles",
           "class_profiles_from_rows", "cluster_sums", "cluster_sums_from_rows",
           "clustered_accuracy_from_sums", "packed_bits", "packed_fields", "packed_position",
           "packed_terms", "profile_terms", "profile_words"]


@dataclass(frozen=True)
class ClusterSums:
    """Sums over clusters of per-cluster counts and their products (see the module text).

    Attributes
    ----------
    n_clusters : int
        ``G``, the number of clusters.
    size, size_sq : int
        ``sum_i m_i`` (rows) and ``sum_i m_i^2``.
    right, right_sq, right_size : ndarray of int64, shape (c,)
        ``sum_i r_ij``, ``sum_i r_ij^2`` and ``sum_i r_ij m_i`` per model.
    n_correct, n_wrong : ndarray of int64, shape (K, c)
        ``sum_i a_ijk`` and ``sum_i w_ijk``.
    cc, cw, ww : ndarray of int64, shape (K, c, c)
        ``sum_i a_ijk a_ilk``, ``sum_i a_ijk w_ilk`` and ``sum_i w_ijk w_ilk``.
    mixed_truth : int
        Clusters whose rows hold more than one true class (0 when a cluster is one
        observation).
    """

    n_clusters: int
    size: int
    size_sq: int
    right: np.ndarray
    right_sq: np.ndarray
    right_size: np.ndarray
    n_correct: np.ndarray
    n_wrong: np.ndarray
    cc: np.ndarray
    cw: np.ndarray
    ww: np.ndarray
    mixed_truth: int = 0

    def equals(self, other: ClusterSums) -> bool:
        """Tell whether every sum equals ``other``'s.

        Examples
        --------
        >>> a = cluster_sums([0, 1], [0, 1], [[0], [1]], [2, 3], n_classes=2)
        >>> a.equals(cluster_sums([1, 0], [1, 0], [[1], [0]], [3, 2], n_classes=2))
        True
        """
        names = ("n_clusters", "size", "size_sq", "mixed_truth", "right", "right_sq",
                 "right_size", "n_correct", "n_wrong", "cc", "cw", "ww")
        return all(np.array_equal(getattr(self, n), getattr(other, n)) for n in names)


def cluster_sums(clusters: object, y: object, preds: object, weights: object, *,
                 n_classes: int) -> ClusterSums:
    """Second-level sums from coded patterns per cluster, with numpy.

    Parameters
    ----------
    clusters : array-like of int >= 0, shape (P,)
        The cluster of each row of the table.
    y : array-like of int, shape (P,)
        True class code (0 .. K-1) of each row.
    preds : array-like of int, shape (P, c)
        Each model's predicted class code.
    weights : array-like of int, shape (P,)
        Rows with that cluster and pattern.
    n_classes : int
        ``K``.

    Returns
    -------
    ClusterSums

    Notes
    -----
    First level: ``np.bincount`` per cluster (``m_i``, ``r_ij``) and per occupied
    (cluster, class) cell (``a_ijk``, ``w_ijk``); second level: the products summed over
    clusters (per class for the moments). O(P c + U c^2) for U occupied cells.

    Examples
    --------
    One cluster of three rows, one model right twice:

    >>> s = cluster_sums([0, 0], [1, 1], [[1], [0]], [2, 1], n_classes=2)
    >>> s.size, s.size_sq, s.right.tolist(), s.right_size.tolist(), s.n_wrong.tolist()
    (3, 9, [2], [6], [[1], [0]])
    """
    k = check_positive_int(n_classes, "n_classes")
    yv = check_pattern_codes(y, "y", n_classes=k)
    p = check_pattern_codes(preds, "preds", n_rows=len(yv), n_classes=k, ndims=(1, 2))
    p = p.reshape(len(yv), -1)
    w = check_pattern_weights(weights, len(yv)).astype(np.int64)
    g_raw = check_pattern_codes(clusters, "clusters", n_rows=len(yv), what="cluster codes")
    _, g = np.unique(g_raw, return_inverse=True)
    g = g.ravel().astype(np.int64)
    n_g, c = int(g.max()) + 1, p.shape[1]

    def total(values: np.ndarray, at: np.ndarray, n: int) -> np.ndarray:
        return np.bincount(at, weights=values, minlength=n).round().astype(np.int64)

    size = total(w, g, n_g)
    right = [total(w * (p[:, j] == yv), g, n_g) for j in range(c)]
    ylo = np.full(n_g, k, dtype=np.int64)
    yhi = np.full(n_g, -1, dtype=np.int64)
    np.minimum.at(ylo, g, yv)
    np.maximum.at(yhi, g, yv)
    # the (cluster, class) cells that some model predicts
    cells, inv = np.unique(np.concatenate([g * k + p[:, j] for j in range(c)]),
                           return_inverse=True)
    idx = np.split(inv.ravel(), c)
    a = [total(w * (yv == p[:, j]), idx[j], len(cells)) for j in range(c)]
    wr = [total(w * (yv != p[:, j]), idx[j], len(cells)) for j in range(c)]

    n_correct, n_wrong, cc, cw, ww = class_moments(a, wr, cells % k, n_classes=k)
    return ClusterSums(
        n_clusters=n_g, size=int(size.sum()), size_sq=int((size * size).sum()),
        right=np.array([r.sum() for r in right], dtype=np.int64),
        right_sq=np.array([(r * r).sum() for r in right], dtype=np.int64),
        right_size=np.array([(r * size).sum() for r in right], dtype=np.int64),
        n_correct=n_correct, n_wrong=n_wrong, cc=cc, cw=cw, ww=ww, mixed_truth=int((ylo != yhi).sum()))


# the bits of a packed word: words are summed per cluster in double precision, exact below
# 2^53, which a cluster of at most max_size rows never reaches (larger ones are refused)
PACKED_BITS = 52
# the most sums over clusters per class-truth group the packed form writes, K (c + c(c+1)/2);
# beyond it (many classes) the unpivoting form's text stays short
PACKED_SUMS_MAX = 2048


def packed_bits(max_size: int, n_models: int = 1, n_classes: int = 1) -> int | None:
    """Return the bits of a field of the packed form of the cluster sums' query, or None.

    The query is :func:`~precmp_lib.engine.sql.cluster_sums_sql`.

    Parameters
    ----------
    max_size : int
        The most rows a cluster has (if all is well); a field holds up to ``max_size``.
    n_models, n_classes : int
        ``c`` and ``K``: the packed form writes ``K (c + c(c+1)/2)`` sums per truth group.

    Returns
    -------
    int or None
        ``b = max_size.bit_length()`` (``2^b > max_size``) when ``b <= PACKED_BITS`` and the
        sums are at most :data:`PACKED_SUMS_MAX`; else None (the unpivoting form is used).

    Examples
    --------
    >>> packed_bits(10), packed_bits(2 ** 60), packed_bits(10, n_models=4, n_classes=1000)
    (4, None, None)
    """
    bits = check_positive_int(max_size, "max_size").bit_length()
    c = check_positive_int(n_models, "n_models")
    wide = check_positive_int(n_classes, "n_classes") * (c + c * (c + 1) // 2) > PACKED_SUMS_MAX
    return bits if bits <= PACKED_BITS and not wide else None


def packed_fields(c: int, k: int) -> list[tuple[int, int | None]]:
    """Return the fields of the packed form in order.

    Parameters
    ----------
    c, k : int
        The number of models and of classes.

    Returns
    -------
    list of (int, int or None)
        ``(j, None)`` for model ``j``'s right rows, then ``(j, q)`` for its wrong rows
        predicted as class ``q``.

    Examples
    --------
    >>> packed_fields(1, 2)
    [(0, None), (0, 0), (0, 1)]
    """
    return [*((j, None) for j in range(c)), *((j, q) for j in range(c) for q in range(k))]


def packed_position(field: int, bits: int) -> tuple[int, int]:
    """Return the word of a packed field and its shift in bits.

    Parameters
    ----------
    field : int
        The field's index (in :func:`packed_fields` order).
    bits : int
        The width of a field (:func:`packed_bits`); a word holds ``PACKED_BITS // bits``.

    Returns
    -------
    (int, int)
        The word and the shift.

    Examples
    --------
    >>> packed_position(0, 4), packed_position(14, 4)
    ((0, 0), (1, 4))
    """
    per = PACKED_BITS // bits
    return field // per, bits * (field % per)


def packed_terms(y: object, preds: object, *, n_classes: int, max_size: int) -> np.ndarray:
    """Each row's words of the packed form of the cluster sums' query, for n = 1.

    The query is :func:`~precmp_lib.engine.sql.cluster_sums_sql` with ``packed=True``.

    Parameters
    ----------
    y : array-like of int, shape (P,)
        True class codes.
    preds : array-like of int, shape (P, c)
        Predicted class codes.
    n_classes, max_size : int
        ``K`` and the bound on a cluster's rows (:func:`packed_bits`).

    Returns
    -------
    ndarray of int64, shape (P, W)
        Column ``w`` is the term ``v<w>`` of each row: ``2^shift`` for each of its fields
        (model ``j`` right; model ``j`` wrong with class ``k``) that falls in word ``w``.

    Examples
    --------
    Two models, two classes, 4-bit fields: model 0 right (field 0), model 1 wrong with
    class 0 (field 2 + 2 * 1 + 0 = 4, shift 16):

    >>> packed_terms([1], [[1, 0]], n_classes=2, max_size=10).tolist()
    [[65537]]
    """
    k = check_positive_int(n_classes, "n_classes")
    yv = check_pattern_codes(y, "y", n_classes=k)
    p = check_pattern_codes(preds, "preds", n_rows=len(yv), n_classes=k, ndims=(1, 2))
    p = p.reshape(len(yv), -1)
    c = p.shape[1]
    bits = packed_bits(max_size)
    if bits is None:
        raise ValueError(f"max_size must be below 2^{PACKED_BITS}; got {max_size}")
    fields = packed_fields(c, k)
    out = np.zeros((len(yv), packed_position(len(fields) - 1, bits)[0] + 1), dtype=np.int64)
    for f, (j, q) in enumerate(fields):
        word, shift = packed_position(f, bits)
        on = p[:, j] == yv if q is None else (p[:, j] == q) & (yv != q)
        out[:, word] += np.where(on, np.int64(1) << shift, 0).astype(np.int64)
    return out


def cluster_sums_from_rows(rows: pd.DataFrame, n_models: int, n_classes: int) -> ClusterSums:
    """Read the rows of the cluster sums' query into :class:`ClusterSums`.

    The query is :func:`~precmp_lib.engine.sql.cluster_sums_sql`.

    Parameters
    ----------
    rows : DataFrame
        The query's result (any row order).
    n_models, n_classes : int
        ``c`` and ``K``.

    Returns
    -------
    ClusterSums

    Examples
    --------
    >>> import duckdb
    >>> from precmp_lib.engine.sql import cluster_sums_sql
    >>> t = pd.DataFrame({"cl": [0, 0, 1], "y": [1, 1, 0], "p0": [1, 0, 0], "n": [2, 1, 3]})
    >>> rows = duckdb.sql(cluster_sums_sql(1, "t")).df()
    >>> cluster_sums_from_rows(rows, 1, 2).equals(
    ...     cluster_sums(t["cl"], t["y"], t[["p0"]], t["n"], n_classes=2))
    True
    """
    c, k = n_models, n_classes
    g = rows["g"].to_numpy().astype(np.int64)
    top = rows.loc[g == 1]
    if len(top) != 1:
        raise ValueError(f"rows must hold one row of per-cluster sums (g = 1); got {len(top)}")
    one = top.iloc[0]
    if "over" in one and int(one["over"]) > 0:
        raise ValueError(f"{int(one['over'])} cluster(s) have more rows than the max_size the "
                         "query was written for: their packed counts are not exact")
    if "over" in one and int(one["mixed"]) > 0:
        raise ValueError(f"{int(one['mixed'])} cluster(s) hold more than one true class: the "
                         "packed form's class moments are not exact for them")

    def vec(prefix: str) -> np.ndarray:
        return np.array([int(one[f"{prefix}{j}"]) for j in range(c)], dtype=np.int64)

    n_correct = np.zeros((k, c), dtype=np.int64)
    n_wrong = np.zeros((k, c), dtype=np.int64)
    cc = np.zeros((k, c, c), dtype=np.int64)
    cw = np.zeros((k, c, c), dtype=np.int64)
    ww = np.zeros((k, c, c), dtype=np.int64)
    for _, r in rows.loc[g == 0].iterrows():
        kk = int(r["k"])
        for j in range(c):
            n_correct[kk, j], n_wrong[kk, j] = int(r[f"a{j}"]), int(r[f"w{j}"])
            for i in range(c):
                cw[kk, j, i] = int(r[f"aw{j}_{i}"])
                lo, hi = min(i, j), max(i, j)
                cc[kk, j, i] = int(r[f"aa{lo}_{hi}"])
                ww[kk, j, i] = int(r[f"ww{lo}_{hi}"])
    return ClusterSums(
        n_clusters=int(one["clusters"]), size=int(one["s"]), size_sq=int(one["ss"]),
        right=vec("r"), right_sq=vec("rr"), right_size=vec("rs"), n_correct=n_correct,
        n_wrong=n_wrong, cc=cc, cw=cw, ww=ww, mixed_truth=int(one["mixed"]))


def clustered_accuracy_from_sums(sums: ClusterSums, model: int, *,
                                 confidence_level: float = 0.95) -> tuple[float, float, float]:
    """Clustered accuracy and its interval from cluster sums.

    The same estimate and interval as :func:`precmp_lib.core.counts.clustered_accuracy` on the
    per-cluster counts: with ``C = sum r_i``, ``M = sum m_i`` and ``acc = C / M``,
    ``sum_i (r_i - acc m_i)^2 = (M^2 sum r_i^2 - 2 C M sum r_i m_i + C^2 sum m_i^2) / M^2``,
    whose numerator is computed in exact integers.

    Parameters
    ----------
    sums : ClusterSums
    model : int
        The model's index.
    confidence_level : float

    Returns
    -------
    (accuracy, ci_low, ci_high)

    Examples
    --------
    The clusters of :func:`precmp_lib.core.counts.clustered_accuracy`'s example (3, 0, 3, 3 right
    of 3 each):

    >>> s = cluster_sums([0, 1, 1, 2, 3], [0] * 5, [[0], [1], [1], [0], [0]], [3, 2, 1, 3, 3],
    ...                  n_classes=2)
    >>> acc, lo, hi = clustered_accuracy_from_sums(s, 0)
    >>> round(acc, 2), round(lo, 3), round(hi, 3)
    (0.75, 0.26, 1.0)
    """
    level = check_probability(confidence_level, "confidence_level")
    g = int(sums.n_clusters)
    if g < 2 or sums.size <= 0:
        raise ValueError(f"sums must describe at least 2 clusters; got {g}")
    big_c, big_m = int(sums.right[model]), int(sums.size)
    numer = (big_m * big_m * int(sums.right_sq[model]) - 2 * big_c * big_m * int(sums.right_size[model])
             + big_c * big_c * int(sums.size_sq))
    acc = big_c / big_m
    var = g / (g - 1) * (numer / big_m ** 4)
    half = norm_isf((1 - level) / 2) * np.sqrt(var)
    return float(acc), float(max(acc - half, 0.0)), float(min(acc + half, 1.0))


# --------------------------------------------------------------------------------------------
# class profiles: what a bootstrap of clusters needs for a few classes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassProfiles:
    """Clusters grouped by their profile over a few classes.

    A cluster's profile over the class codes ``classes`` (C of them) is its number of rows and,
    for each of those classes, its rows of that true class and, per model, its rows predicted
    as that class and those predicted so rightly. Sensitivity, specificity and precision of
    those classes are sums of profiles, so a bootstrap that resamples clusters sees the
    clusters only through their profiles: clusters with the same profile are
    interchangeable, and each distinct profile is kept once with the number of clusters that
    have it. The profiles are sorted by ``(size, true, called, hit)`` (read class by class,
    model by model), so that every route that builds them gives the same arrays.

    Attributes
    ----------
    classes : tuple of int
        The class codes profiled, in the order asked.
    size : ndarray of int64, shape (G,)
        Rows of each cluster with the profile.
    true : ndarray of int64, shape (G, C)
        Its rows of true class ``classes[c]``.
    called, hit : ndarray of int64, shape (G, C, m)
        Its rows that model ``j`` predicts as ``classes[c]``, and those of them truly of it.
    count : ndarray of int64, shape (G,)
        Clusters with the profile.
    """

    classes: tuple[int, ...]
    size: np.ndarray
    true: np.ndarray
    called: np.ndarray
    hit: np.ndarray
    count: np.ndarray

    @property
    def n_clusters(self) -> int:
        """Clusters counted (the sum of ``count``)."""
        return int(self.count.sum())

    def equals(self, other: ClassProfiles) -> bool:
        """Tell whether both hold the same profiles of the same classes.

        Examples
        --------
        >>> a = class_profiles([0, 0, 1], [1, 1, 0], [[1], [0], [0]], [1, 1, 1], classes=[1])
        >>> a.equals(class_profiles([5, 5, 2], [1, 1, 0], [[0], [1], [0]], [1, 1, 1], classes=[1]))
        True
        """
        return (tuple(self.classes) == tuple(other.classes)
                and all(np.array_equal(getattr(self, n), getattr(other, n))
                        for n in ("size", "true", "called", "hit", "count")))


def _sorted_profiles(classes: tuple[int, ...], table: np.ndarray, n_models: int) -> ClassProfiles:
    """Build :class:`ClassProfiles` from rows ``(size, true..., called..., hit..., count)``."""
    order = np.lexsort(table[:, :-1].T[::-1]) if len(table) else np.arange(0)
    table = table[order]
    g, c, m = len(table), len(classes), n_models
    at = 1 + c + c * m
    return ClassProfiles(classes=classes, size=table[:, 0].copy(), true=table[:, 1:1 + c].copy(),
                         called=table[:, 1 + c:at].reshape(g, c, m).copy(),
                         hit=table[:, at:at + c * m].reshape(g, c, m).copy(),
                         count=table[:, -1].copy())


def _profile_classes(classes: object) -> tuple[int, ...]:
    codes = check_pattern_codes(classes, "classes")
    if len(codes) == 0:
        raise ValueError("classes must name at least one class code")
    if len(np.unique(codes)) != len(codes):
        raise ValueError(f"classes must not repeat a code; got {codes.tolist()}")
    return tuple(int(v) for v in codes)


def class_profiles(clusters: object, y: object, preds: object, weights: object, *,
                   classes: object) -> ClassProfiles:
    """Group the clusters of a table of coded patterns by their profile over ``classes``.

    Parameters
    ----------
    clusters : array-like of int >= 0, shape (P,)
        The cluster of each row of the table.
    y : array-like of int, shape (P,)
        True class code of each row.
    preds : array-like of int, shape (P, m)
        Each model's predicted class code.
    weights : array-like of int, shape (P,)
        Rows with that cluster and pattern.
    classes : sequence of int
        The class codes to profile, in order.

    Returns
    -------
    ClassProfiles

    Examples
    --------
    Three observations predicted twice each, profiled over class 1. Observation 0 (truth 1)
    has model 0 predict 1 once and model 1 twice; observation 1 (truth 1, its pattern twice)
    has both predict 1 twice; observation 2 (truth 0) has model 0 predict 1 once:

    >>> p = class_profiles([0, 0, 1, 2, 2], [1, 1, 1, 0, 0], [[1, 1], [0, 1], [1, 1], [0, 0], [1, 0]],
    ...                    [1, 1, 2, 1, 1], classes=[1])
    >>> p.size.tolist(), p.true[:, 0].tolist(), p.called[:, 0].tolist(), p.hit[:, 0].tolist()
    ([2, 2, 2], [0, 2, 2], [[1, 0], [1, 2], [2, 2]], [[0, 0], [1, 2], [2, 2]])
    >>> p.count.tolist(), p.n_clusters
    ([1, 1, 1], 3)
    """
    yv = check_pattern_codes(y, "y")
    p = check_pattern_codes(preds, "preds", n_rows=len(yv), ndims=(1, 2)).reshape(len(yv), -1)
    w = check_pattern_weights(weights, len(yv)).astype(np.int64)
    g_raw = check_pattern_codes(clusters, "clusters", n_rows=len(yv), what="cluster codes")
    codes = _profile_classes(classes)
    m = p.shape[1]
    _, g = np.unique(g_raw, return_inverse=True)
    g = g.ravel().astype(np.int64)
    n_g = int(g.max()) + 1

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(g, weights=values, minlength=n_g).round().astype(np.int64)

    cols = [total(w * 1.0), *(total(w * (yv == code)) for code in codes)]
    cols += [total(w * (p[:, j] == code)) for code in codes for j in range(m)]
    cols += [total(w * ((p[:, j] == code) & (yv == code))) for code in codes for j in range(m)]
    rows, count = np.unique(np.column_stack(cols), axis=0, return_counts=True)
    return _sorted_profiles(codes, np.column_stack([rows, count]).astype(np.int64), m)


def _profile_fields(n_models: int) -> list[str]:
    """Return the fields of one class's packed profile in order."""
    return ["size", "true", *(f"called{j}" for j in range(n_models)),
            *(f"hit{j}" for j in range(n_models))]


def _profile_bits(max_size: int) -> int:
    bits = packed_bits(max_size)
    if bits is None:
        raise ValueError(f"max_size must be below 2^{PACKED_BITS}; got {max_size}")
    return bits


def profile_words(n_models: int, max_size: int) -> int:
    """Return the number of packed words of one class's profile (:func:`profile_terms`).

    Parameters
    ----------
    n_models : int
        The models.
    max_size : int
        The most rows of a cluster: the fields' width (:func:`packed_bits`).

    Returns
    -------
    int

    Examples
    --------
    >>> profile_words(2, 10), profile_words(20, 10)
    (1, 4)
    """
    return packed_position(len(_profile_fields(n_models)) - 1, _profile_bits(max_size))[0] + 1


def profile_terms(y: object, preds: object, *, classes: object, max_size: int) -> pd.DataFrame:
    """Return each row's packed words for the class profiles' query (a row counts once).

    The query is :func:`~precmp_lib.engine.sql.class_profiles_sql`.

    For the ``c``-th class of ``classes`` a row's fields are, in order: 1 (its row), whether
    its truth is the class, for each model whether it predicts the class, and for each model
    whether both hold. Each field has ``b = max_size.bit_length()`` bits
    (:func:`packed_bits`), :data:`PACKED_BITS` bits a word, and each class has words of its
    own (``v<c>_<w>``): summed over a cluster of at most ``max_size`` rows no field overflows
    into the next, and the words' sums are exact in double precision.

    Returns
    -------
    DataFrame
        Columns ``v0_0``, ``v0_1`` ... then ``v1_0`` ... (int64).

    Examples
    --------
    One model, class 1, 4-bit fields (size, truth 1, predicts 1, both): a row of truth 1
    predicted 1 sets all four, a row of truth 0 predicted 1 two of them.

    >>> profile_terms([1, 0], [[1], [1]], classes=[1], max_size=10).to_dict("list")
    {'v0_0': [4369, 257]}
    """
    yv = check_pattern_codes(y, "y")
    p = check_pattern_codes(preds, "preds", n_rows=len(yv), ndims=(1, 2)).reshape(len(yv), -1)
    codes = _profile_classes(classes)
    bits = _profile_bits(max_size)
    m = p.shape[1]
    out = {}
    for c, code in enumerate(codes):
        on = [np.ones(len(yv), bool), yv == code, *(p[:, j] == code for j in range(m)),
              *((p[:, j] == code) & (yv == code) for j in range(m))]
        words = np.zeros((len(yv), profile_words(m, max_size)), dtype=np.int64)
        for f, flag in enumerate(on):
            word, shift = packed_position(f, bits)
            words[:, word] += flag.astype(np.int64) << shift
        out.update({f"v{c}_{w}": words[:, w] for w in range(words.shape[1])})
    return pd.DataFrame(out)


def class_profiles_from_rows(rows: pd.DataFrame, classes: object, n_models: int, *,
                             max_size: int) -> tuple[ClassProfiles, ...]:
    """Read the rows of the class profiles' query (in any order): each class's profiles.

    The query is :func:`~precmp_lib.engine.sql.class_profiles_sql`, whose example reads them.
    """
    codes = _profile_classes(classes)
    m = check_positive_int(n_models, "n_models")
    bits = _profile_bits(max_size)
    n_fields, n_words = len(_profile_fields(m)), profile_words(m, max_size)
    names = [*(f"g{q}" for q in range(len(codes))),
             *(f"v{q}_{w}" for q in range(len(codes)) for w in range(n_words)), "k"]
    missing = [n for n in names if n not in rows.columns]
    if missing:
        raise ValueError(f"rows lack the column(s) {missing} of class_profiles_sql")
    out = []
    for q, code in enumerate(codes):
        part = rows.loc[rows[f"g{q}"].to_numpy().astype(np.int64) == 0]
        table = np.zeros((len(part), n_fields + 1), dtype=np.int64)
        for f in range(n_fields):
            word, shift = packed_position(f, bits)
            table[:, f] = (part[f"v{q}_{word}"].to_numpy().astype(np.int64) >> shift) & (2 ** bits - 1)
        table[:, -1] = part["k"].to_numpy().astype(np.int64)
        out.append(_sorted_profiles((code,), table, m))
    return tuple(out)
