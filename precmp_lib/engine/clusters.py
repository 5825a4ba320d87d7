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
:func:`cluster_sums_sql` writes the same as one SQL text that DuckDB and Spark run where the
data live, so what comes back has ``K + 1`` rows whatever the number of rows or clusters.
:func:`cluster_sums_from_rows` reads those rows back. The two routes give the same integers.

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

__all__ = ["ClassProfiles", "ClusterSums", "class_profiles", "class_profiles_from_rows",
           "class_profiles_sql", "cluster_sums", "cluster_sums_from_rows", "cluster_sums_sql",
           "clustered_accuracy_from_sums", "packed_bits", "packed_terms", "profile_terms"]


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


def cluster_sums_sql(n_models: int, table: str, ctes: str = "", *,
                     n_classes: int | None = None, max_size: int | None = None,
                     distinct: str | None = None, distinct_codes: int | None = None,
                     packed: bool = False, max_rows: int | None = None) -> str:
    """Write the two-level aggregation of :func:`cluster_sums` as one SQL text.

    Parameters
    ----------
    n_models : int
        ``c``, the number of models.
    table : str
        A table (or a CTE name) with the integer columns ``cl`` (the cluster), ``y`` (true
        class code), ``p0`` .. ``p{c-1}`` (predicted class codes) and ``n`` (rows). It is the
        caller's internal name, never user text.
    ctes : str
        The caller's common table expressions (``"a AS (...), t AS (...)"``) that define
        ``table``; they open the query's ``WITH``.
    n_classes, max_size : int, optional
        ``K``, and a bound the caller knows on the rows of a cluster if all is well (the
        repeats, when an observation has one row per repeat). With both, when
        :func:`packed_bits` allows it, the first level is one ``GROUP BY cl`` of packed
        counts (see Notes) and the top row also has ``over``, the clusters of more than ``max_size`` rows, whose sums are then not
        exact (:func:`cluster_sums_from_rows` refuses them). Otherwise the classes are
        found by unpivoting.
    distinct, distinct_codes : str and int, optional
        A column of ``table`` (the caller's internal name) that should not repeat within a
        cluster, and, if it holds codes ``0 .. distinct_codes - 1``, their number; the top
        row then also has ``dup``, 0 when no value repeats within a cluster and positive
        otherwise (from a bit mask when there are at most 30 codes: a cluster's sum of
        ``2^code`` has as many bits set as rows exactly when no code repeats; else from
        ``COUNT(DISTINCT)``).
    packed : bool
        The packed form only: ``table`` already holds each row's words ``v<w>``
        (:func:`packed_terms` times ``n``) and, with ``distinct``, ``dm`` (``n * 2^code``),
        as the caller's table of codes can give them at no cost per row; ``p<j>`` are not
        read.
    max_rows : int, optional
        The packed form only: a bound on the rows of ``table`` (the sum of ``n``). When
        ``max_size * max_rows < 2^53`` every sum over clusters is below ``2^53`` (a sum of
        products of a cluster's counts is at most ``sum_i m_i^2 <= max_size sum_i m_i``),
        so the second level sums in double precision, exactly and faster than in integers
        (DuckDB sums BIGINT into 128-bit integers).

    Returns
    -------
    str
        One query (``WITH ... SELECT``) that DuckDB and Spark both run. Its rows:
        one with ``g = 1`` (the per-cluster sums: ``clusters``, ``s``, ``ss``, ``mixed``,
        ``r<j>``, ``rr<j>``, ``rs<j>``) and one per class ``k`` predicted somewhere with
        ``g = 0`` (``a<j>``, ``w<j>``, ``aa<j>_<l>``, ``aw<j>_<l>``, ``ww<j>_<l>``).
        :func:`cluster_sums_from_rows` turns them into :class:`ClusterSums`.

    Notes
    -----
    With ``n_classes`` and ``max_size`` (the packed form), the table is read once, grouped
    by cluster, into a few sums: ``m``, the smallest and largest truth, and words of
    :data:`PACKED_BITS` bits holding ``b``-bit fields (``2^b > max_size``): per model ``j``
    its right rows ``r_ij`` and its wrong rows per predicted class ``w_ijk``
    (:func:`packed_terms`; a row adds ``n * 2^shift`` to each of its fields). A cluster of
    at most ``max_size`` rows fills no field beyond ``2^b - 1``, so the fields are exact,
    read back from the word, cast to BIGINT, with a shift and a mask (``(v >> s) & (2^b - 1)``). In a
    cluster of one true class ``y``, ``a_ijk`` is ``r_ij`` for ``k = y`` and 0 otherwise,
    so ``cw`` is 0 and ``cc`` sums ``r_ij r_il`` over the clusters of truth ``k``: the second
    level groups the clusters by truth, the third sums across the ``K`` groups into one row,
    which a cross join with the ``K + 1`` row numbers turns into the rows described above
    (every class has its row). The top row also has ``over`` (clusters beyond
    ``max_size``); :func:`cluster_sums_from_rows` refuses the sums when it or ``mixed`` is
    not 0. Nothing groups by pattern or by (cluster, class): one pass over the table and
    one hash table of ``G`` rows with few columns.

    Without it, the table is unpivoted once against the model index, keeping each row only under the
    first model that predicts each class (``jx.j``; the rows of a (cluster, class) cell are
    then each counted once); the first level groups the unpivoted rows by ``(cl, k)`` and the
    table by ``cl``, the second sums across clusters (by ``k`` for the class moments). Only the
    fixed names above and integers appear in the text.

    Examples
    --------
    >>> sql = cluster_sums_sql(2, "t0")
    >>> "GROUP BY cl, k" in sql, sql.count("UNION ALL")
    (True, 2)
    >>> sql = cluster_sums_sql(2, "t0", n_classes=3, max_size=10, distinct="rep",
    ...                        distinct_codes=10)
    >>> "GROUP BY cl, k" in sql, "bit_count" in sql
    (False, True)
    """
    c = check_positive_int(n_models, "n_models")
    js = range(c)
    mask = distinct is not None and distinct_codes is not None and (
        check_positive_int(distinct_codes, "distinct_codes") <= 30)
    check = ""
    if distinct is not None:
        check = (", SUM(n) - bit_count(CAST(SUM(dm) AS BIGINT)) AS d" if mask
                 else f", SUM(n) - COUNT(DISTINCT {distinct}) AS d")
    bits = None if n_classes is None or max_size is None else packed_bits(max_size, c, n_classes)
    if bits is not None:
        assert n_classes is not None and max_size is not None
        k = check_positive_int(n_classes, "n_classes")
        if not packed:  # the packed terms of each row, from its codes
            ctes, table = _terms_cte(c, k, bits, table, ctes, distinct, mask), "pk"
        in_double = max_rows is not None and max_size * check_positive_int(max_rows, "max_rows") < 2 ** 53
        unique = None if distinct is None else ("mask" if mask else distinct)
        return _packed_sql(c, k, bits, max_size, table, ctes, unique, packed, in_double)
    if packed:
        raise ValueError(f"packed terms need n_classes and a max_size below 2^{PACKED_BITS}; "
                         f"got n_classes={n_classes}, max_size={max_size}")
    if mask:  # the bit mask of each row
        ctes = (f"{ctes + ', ' if ctes else ''}pk AS (SELECT *, CAST(POWER(2, {distinct}) AS "
                f"BIGINT) * n AS dm FROM {table})")
        table = "pk"
    index = " UNION ALL ".join(f"SELECT {j} AS j" for j in js)
    pick = "CASE jx.j " + " ".join(f"WHEN {j} THEN p{j}" for j in js) + " END"
    first = " OR ".join(
        "(jx.j = {j}{rest})".format(j=j, rest="".join(f" AND p{j} <> p{i}" for i in range(j)))
        for j in js)
    u = (f"SELECT cl, y, {', '.join(f'p{j}' for j in js)}, n, jx.j AS j, {pick} AS k "
         f"FROM {table} CROSS JOIN ({index}) jx WHERE {first}")
    # first level: per (cluster, class) from the unpivoted rows, per cluster from the table;
    # sums kept as BIGINT (DuckDB would sum into 128-bit integers, whose products cost more)
    per_cell = ["cl", "k"]
    for j in js:
        per_cell += [f"CAST(SUM(CASE WHEN p{j} = k AND y = k THEN n ELSE 0 END) AS BIGINT) AS a{j}",
                     f"CAST(SUM(CASE WHEN p{j} = k AND y <> k THEN n ELSE 0 END) AS BIGINT) AS w{j}"]
    per_cluster = ["cl", "CAST(SUM(n) AS BIGINT) AS m", "MIN(y) AS ylo", "MAX(y) AS yhi",
                   *(f"CAST(SUM(CASE WHEN p{j} = y THEN n ELSE 0 END) AS BIGINT) AS r{j}"
                     for j in js)]
    if distinct is not None:
        per_cluster.append(check[2:])
    # second level: across clusters; the two parts share one column list (0 where unused)
    top = {"clusters": "COUNT(*)", "s": "SUM(m)", "ss": "SUM(m * m)",
           "mixed": "SUM(CASE WHEN ylo <> yhi THEN 1 ELSE 0 END)"}
    if distinct is not None:
        top["dup"] = "SUM(d)"
    cells: dict[str, str] = {}
    for j in js:
        top.update({f"r{j}": f"SUM(r{j})", f"rr{j}": f"SUM(r{j} * r{j})",
                    f"rs{j}": f"SUM(r{j} * m)"})
        cells.update({f"a{j}": f"SUM(a{j})", f"w{j}": f"SUM(w{j})"})
        for i in js:
            cells[f"aw{j}_{i}"] = f"SUM(a{j} * w{i})"
            if i >= j:
                cells[f"aa{j}_{i}"] = f"SUM(a{j} * a{i})"
                cells[f"ww{j}_{i}"] = f"SUM(w{j} * w{i})"
    cells["clusters"] = "COUNT(*)"
    names = list(dict.fromkeys([*top, *cells]))

    def select(parts: dict[str, str]) -> str:
        return ", ".join(f"CAST({parts.get(c, '0')} AS BIGINT) AS {c}" for c in names)

    return (f"WITH {ctes + ', ' if ctes else ''}u AS ({u}), "
            f"ck AS (SELECT {', '.join(per_cell)} FROM u GROUP BY cl, k), "
            f"c1 AS (SELECT {', '.join(per_cluster)} FROM {table} GROUP BY cl) "
            f"SELECT 1 AS g, CAST(NULL AS BIGINT) AS k, {select(top)} FROM c1 "
            f"UNION ALL SELECT 0 AS g, CAST(k AS BIGINT) AS k, {select(cells)} FROM ck GROUP BY k")


# the bits of a packed word: words are summed per cluster in double precision, exact below
# 2^53, which a cluster of at most max_size rows never reaches (larger ones are refused)
PACKED_BITS = 52
# the most sums over clusters per class-truth group the packed form writes, K (c + c(c+1)/2);
# beyond it (many classes) the unpivoting form's text stays short
PACKED_SUMS_MAX = 2048


def packed_bits(max_size: int, n_models: int = 1, n_classes: int = 1) -> int | None:
    """Return the bits of a field of :func:`cluster_sums_sql`'s packed form, or None.

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


def _fields(c: int, k: int) -> list[tuple[int, int | None]]:
    """Return the packed fields in order: (model, None), then (model, class) for wrong rows."""
    return [*((j, None) for j in range(c)), *((j, q) for j in range(c) for q in range(k))]


def _position(field: int, bits: int) -> tuple[int, int]:
    """Return the word of a field and its shift in bits (``PACKED_BITS // bits`` a word)."""
    per = PACKED_BITS // bits
    return field // per, bits * (field % per)


def packed_terms(y: object, preds: object, *, n_classes: int, max_size: int) -> np.ndarray:
    """Each row's words of :func:`cluster_sums_sql`'s packed form (``packed=True``), for n = 1.

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
    fields = _fields(c, k)
    out = np.zeros((len(yv), _position(len(fields) - 1, bits)[0] + 1), dtype=np.int64)
    for f, (j, q) in enumerate(fields):
        word, shift = _position(f, bits)
        on = p[:, j] == yv if q is None else (p[:, j] == q) & (yv != q)
        out[:, word] += np.where(on, np.int64(1) << shift, 0).astype(np.int64)
    return out


def _terms_cte(c: int, k: int, bits: int, table: str, ctes: str, distinct: str | None,
               mask: bool) -> str:
    """Return the CTEs followed by ``pk``: each row's packed words from its codes, times n."""
    words: dict[int, list[str]] = {}
    for f, (j, q) in enumerate(_fields(c, k)):
        word, shift = _position(f, bits)
        cond = f"p{j} = y" if q is None else f"p{j} = {q} AND y <> {q}"
        words.setdefault(word, []).append(f"CASE WHEN {cond} THEN {2 ** shift} ELSE 0 END")
    terms = ["cl", "y", "n", *(f"CAST({' + '.join(v)} AS BIGINT) * n AS v{w}"
                               for w, v in words.items())]
    if mask:
        terms.append(f"CAST(POWER(2, {distinct}) AS BIGINT) * n AS dm")
    elif distinct is not None:
        terms.append(distinct)
    return f"{ctes + ', ' if ctes else ''}pk AS (SELECT {', '.join(terms)} FROM {table})"


def _packed_sql(c: int, k: int, bits: int, max_size: int, table: str, ctes: str,
                unique: str | None, single: bool, in_double: bool) -> str:
    """Write the one-pass form of :func:`cluster_sums_sql` (packed counts); see its Notes."""
    js, ks = range(c), range(k)
    pairs = [(j, i) for j in js for i in js if i >= j]
    fields = _fields(c, k)
    n_words = _position(len(fields) - 1, bits)[0] + 1
    # a row of the caller's packed terms is one row (n = 1): COUNT(*), whose state is smaller
    # than a sum's; the words and the mask summed in double precision (exact, see PACKED_BITS)
    first = ["cl", "COUNT(*) AS m" if single else "CAST(SUM(n) AS BIGINT) AS m",
             "MIN(y) AS ylo", "MAX(y) AS yhi",
             *(f"SUM(CAST(v{w} AS DOUBLE)) AS v{w}" for w in range(n_words))]
    if unique == "mask":
        first.append("SUM(CAST(dm AS DOUBLE)) AS dm")
    elif unique is not None:
        first.append(f"{first[1][:-5]} - COUNT(DISTINCT {unique}) AS d")
    # a cluster beyond max_size (refused) has its words read as 0, never cast out of range
    big = f"m > {int(max_size)}"

    def field(f: int) -> str:
        # a shift and a mask of the word as a BIGINT (integer operations, cheaper than
        # dividing and taking remainders in double precision)
        word, shift = _position(f, bits)
        return f"((v{word} >> {shift}) & {2 ** bits - 1})"

    # per cluster: the checks, and the words as BIGINTs (exact: a word's sum is an integer
    # below 2^53); 0 for a cluster beyond max_size
    check = unique is not None
    guarded = ["m", "ylo", "yhi", *(f"CAST(CASE WHEN {big} THEN 0 ELSE v{w} END AS BIGINT) AS v{w}"
                                    for w in range(n_words))]
    if unique == "mask":  # as many bits set as rows when no code repeats
        guarded.append(f"CASE WHEN {big} THEN m ELSE m - bit_count(CAST(dm AS BIGINT)) END AS d")
    elif check:
        guarded.append("d")
    # the counts unpacked
    # (in double precision when the sums are: the products of the next level are then
    # computed on doubles, with no cast per product)
    def number(value: str) -> str:
        return f"CAST({value} AS DOUBLE)" if in_double else value

    unpacked = [f"{number('m')} AS m", "ylo", "yhi", *(["d"] if check else [])]
    unpacked += [f"{number(field(f))} AS {'r' if q is None else 'w'}{j}{'' if q is None else f'_{q}'}"
                 for f, (j, q) in enumerate(fields)]
    # per true class of the clusters (ylo): sums over its clusters
    by_truth = {"clusters": "COUNT(*)", "s": "SUM(m)", "ss": "SUM(m * m)",
                "mixed": "SUM(CASE WHEN ylo <> yhi THEN 1 ELSE 0 END)",
                "over": f"SUM(CASE WHEN m > {int(max_size)} THEN 1 ELSE 0 END)",
                **({"dup": "SUM(d)"} if check else {})}
    for j in js:
        by_truth.update({f"r{j}": f"SUM(r{j})", f"rs{j}": f"SUM(r{j} * m)"})
    by_truth.update({f"rr{j}_{i}": f"SUM(r{j} * r{i})" for j, i in pairs})
    for q in ks:
        by_truth.update({f"w{j}_{q}": f"SUM(w{j}_{q})" for j in js})
        by_truth.update({f"ww{j}_{i}_{q}": f"SUM(w{j}_{q} * w{i}_{q})" for j, i in pairs})
    if in_double:  # SUM(x) -> SUM(CAST(x AS DOUBLE)): exact below 2^53 (see max_rows)
        by_truth = {n: f"SUM(CAST({v[4:-1]} AS DOUBLE))" for n, v in by_truth.items()
                    if v.startswith("SUM(")} | {n: v for n, v in by_truth.items()
                                               if not v.startswith("SUM(")}
    second = ["ylo", *(f"{v} AS {n}" for n, v in by_truth.items())]
    # over the true classes: the top sums, and per class the columns of its row; a cluster
    # of one true class y has a_ijk = r_ij for k = y and 0 for the others, so cw is 0
    top = {n: f"SUM({n})" for n in ("clusters", "s", "ss", "mixed", "over",
                                     *(["dup"] if check else []))}
    for j in js:
        top.update({f"r{j}": f"SUM(r{j})", f"rr{j}": f"SUM(rr{j}_{j})", f"rs{j}": f"SUM(rs{j})"})
    cells: dict[str, list[str]] = {}
    for j in js:
        cells[f"a{j}"] = [f"SUM(CASE WHEN ylo = {q} THEN r{j} ELSE 0 END)" for q in ks]
        cells[f"w{j}"] = [f"SUM(w{j}_{q})" for q in ks]
    for j, i in pairs:
        cells[f"aa{j}_{i}"] = [f"SUM(CASE WHEN ylo = {q} THEN rr{j}_{i} ELSE 0 END)" for q in ks]
        cells[f"ww{j}_{i}"] = [f"SUM(ww{j}_{i}_{q})" for q in ks]
    third = [f"CAST({v} AS BIGINT) AS t_{n}" for n, v in top.items()]
    third += [f"CAST({v} AS BIGINT) AS x_{n}_{q}" for n, vs in cells.items()
              for q, v in enumerate(vs)]
    names = list(dict.fromkeys([*top, *cells, *(f"aw{j}_{i}" for j in js for i in js)]))

    def column(name: str) -> str:
        on_top = f"WHEN kx.k < 0 THEN t_{name} " if name in top else ""
        per_class = (" ".join(f"WHEN kx.k = {q} THEN x_{name}_{q}" for q in ks) + " "
                     if name in cells else "")
        if not on_top and not per_class:  # cw: 0 in every row
            return f"CAST(0 AS BIGINT) AS {name}"
        return f"CAST(CASE {on_top}{per_class}ELSE 0 END AS BIGINT) AS {name}"

    index = " UNION ALL ".join(f"SELECT {q} AS k" for q in range(-1, k))
    return (f"WITH {ctes + ', ' if ctes else ''}"
            f"c1 AS (SELECT {', '.join(first)} FROM {table} GROUP BY cl), "
            f"cw AS (SELECT {', '.join(guarded)} FROM c1), "
            f"c2 AS (SELECT {', '.join(unpacked)} FROM cw), "
            f"s2 AS (SELECT {', '.join(second)} FROM c2 GROUP BY ylo), "
            f"s3 AS (SELECT {', '.join(third)} FROM s2) "
            f"SELECT CASE WHEN kx.k < 0 THEN 1 ELSE 0 END AS g, "
            f"CASE WHEN kx.k < 0 THEN CAST(NULL AS BIGINT) ELSE CAST(kx.k AS BIGINT) END AS k, "
            f"{', '.join(column(n) for n in names)} FROM s3 CROSS JOIN ({index}) kx")


def cluster_sums_from_rows(rows: pd.DataFrame, n_models: int, n_classes: int) -> ClusterSums:
    """Read the rows of :func:`cluster_sums_sql` into :class:`ClusterSums`.

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

    The same estimate and interval as :func:`precmp_lib.engine.counts.clustered_accuracy` on the
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
    The clusters of :func:`precmp_lib.engine.counts.clustered_accuracy`'s example (3, 0, 3, 3 right
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


def _profile_words(n_models: int, max_size: int) -> int:
    """Return the packed words of one class's profile."""
    return _position(len(_profile_fields(n_models)) - 1, _profile_bits(max_size))[0] + 1


def profile_terms(y: object, preds: object, *, classes: object, max_size: int) -> pd.DataFrame:
    """Return each row's packed words for :func:`class_profiles_sql` (a row counts once).

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
        words = np.zeros((len(yv), _profile_words(m, max_size)), dtype=np.int64)
        for f, flag in enumerate(on):
            word, shift = _position(f, bits)
            words[:, word] += flag.astype(np.int64) << shift
        out.update({f"v{c}_{w}": words[:, w] for w in range(words.shape[1])})
    return pd.DataFrame(out)


def class_profiles_sql(n_models: int, n_profiled: int, table: str, ctes: str = "", *,
                       max_size: int) -> str:
    """Write :func:`class_profiles` of each class as one SQL text: per cluster, then per profile.

    Parameters
    ----------
    n_models, n_profiled : int
        ``m`` and ``C``, the classes profiled.
    table : str
        A table (or CTE name, the caller's internal name) with the integer column ``cl`` (the
        cluster) and the words ``v<c>_<w>`` of :func:`profile_terms`, one row per row counted.
    ctes : str
        The caller's common table expressions that define ``table``.
    max_size : int
        The most rows of a cluster (the caller has checked it): the fields' width.

    Returns
    -------
    str
        The query: for each class, one row per distinct profile over that class: the class's
        packed words (a cluster's sums of its rows' words), ``k``, the clusters with the
        profile, and ``g<c>``, 0 on the rows of class ``c``.
        :func:`class_profiles_from_rows` reads them.

    Notes
    -----
    The first level sums each cluster's words in double precision (exact, and a smaller state
    than an integer sum); the second groups the clusters by each class's words (``GROUPING
    SETS``, one pass), which hold the class's whole profile. A class's profiles are bounded by
    the repeats and the models (each field holds at most ``max_size``), not by the clusters.

    Examples
    --------
    >>> import duckdb
    >>> t = pd.DataFrame({"cl": [0, 0, 1, 1, 2, 2], "y": [1, 1, 1, 1, 0, 0],
    ...                   "p0": [1, 0, 1, 1, 0, 1], "p1": [1, 1, 1, 1, 0, 0]})
    >>> t = pd.concat([t, profile_terms(t["y"], t[["p0", "p1"]], classes=[1, 0], max_size=2)], axis=1)
    >>> rows = duckdb.sql(class_profiles_sql(2, 2, "t", max_size=2)).df()
    >>> got = class_profiles_from_rows(rows, [1, 0], 2, max_size=2)
    >>> [g.equals(class_profiles(t["cl"], t["y"], t[["p0", "p1"]], [1] * 6, classes=[c]))
    ...  for g, c in zip(got, [1, 0])]
    [True, True]
    """
    m = check_positive_int(n_models, "n_models")
    c = check_positive_int(n_profiled, "n_profiled")
    n_words = _profile_words(m, max_size)
    words = [[f"v{q}_{w}" for w in range(n_words)] for q in range(c)]
    flat = [v for group in words for v in group]
    per = ("s AS (SELECT " + ", ".join(f"CAST(SUM(CAST({v} AS DOUBLE)) AS BIGINT) AS {v}"
                                        for v in flat) + f" FROM {table} GROUP BY cl)")
    sets = ", ".join(f"({', '.join(group)})" for group in words)
    flags = ", ".join(f"GROUPING({group[0]}) AS g{q}" for q, group in enumerate(words))
    return (f"WITH {ctes + ', ' if ctes else ''}{per} "
            f"SELECT {flags}, {', '.join(flat)}, COUNT(*) AS k FROM s "
            f"GROUP BY GROUPING SETS ({sets})")


def class_profiles_from_rows(rows: pd.DataFrame, classes: object, n_models: int, *,
                             max_size: int) -> tuple[ClassProfiles, ...]:
    """Read the rows of :func:`class_profiles_sql` (in any order): each class's profiles."""
    codes = _profile_classes(classes)
    m = check_positive_int(n_models, "n_models")
    bits = _profile_bits(max_size)
    n_fields, n_words = len(_profile_fields(m)), _profile_words(m, max_size)
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
            word, shift = _position(f, bits)
            table[:, f] = (part[f"v{q}_{word}"].to_numpy().astype(np.int64) >> shift) & (2 ** bits - 1)
        table[:, -1] = part["k"].to_numpy().astype(np.int64)
        out.append(_sorted_profiles((code,), table, m))
    return tuple(out)
