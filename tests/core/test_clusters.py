"""Cluster sums: numpy and the SQL text agree, and equal the per-cluster computations.

References: :func:`precmp_lib.core.counts.moments_from_patterns` (clustered moments built from the
per-cluster counts) and :func:`precmp_lib.core.counts.clustered_accuracy` (the sandwich variance
on per-cluster right and total counts); a hand computation for the small case.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

from precmp_lib.core.clusters import (
    cluster_sums,
    cluster_sums_from_rows,
    clustered_accuracy_from_sums,
    packed_bits,
    packed_terms,
)
from precmp_lib.core.counts import clustered_accuracy, moments_from_patterns
from precmp_lib.engine.sql import cluster_sums_sql


def _table(seed: int, rows: int = 400, clusters: int = 50, k: int = 4, c: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = {"cl": rng.integers(0, clusters, rows) * 7 + 3, "y": rng.integers(0, k, rows)}
    for j in range(c):
        out[f"p{j}"] = np.where(rng.random(rows) < 0.6, out["y"], rng.integers(0, k, rows))
    out["n"] = rng.integers(1, 5, rows)
    return pd.DataFrame(out)


def test_hand_computed_case():
    # cluster 0: truth 1, rows (p=1) x2, (p=0) x1 -> m = 3, r = 2; cluster 1: truth 0, (p=0) x3
    # -> m = 3, r = 3. sum m = 6, sum m^2 = 18, sum r = 5, sum r^2 = 13, sum r m = 15.
    # class 1: a = 2 (cluster 0), w = 0; class 0: a = 3 (cluster 1), w = 1 (cluster 0).
    s = cluster_sums([0, 0, 1], [1, 1, 0], [[1], [0], [0]], [2, 1, 3], n_classes=2)
    assert (s.n_clusters, s.size, s.size_sq) == (2, 6, 18)
    assert (s.right.tolist(), s.right_sq.tolist(), s.right_size.tolist()) == ([5], [13], [15])
    assert s.n_correct.tolist() == [[3], [2]] and s.n_wrong.tolist() == [[1], [0]]
    assert s.cc[:, 0, 0].tolist() == [9, 4] and s.ww[:, 0, 0].tolist() == [1, 0]
    assert s.cw[:, 0, 0].tolist() == [0, 0] and s.mixed_truth == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_numpy_and_sql_equal_the_per_cluster_computations(seed):
    t = _table(seed)
    pcols = ["p0", "p1", "p2"]
    s = cluster_sums(t["cl"], t["y"], t[pcols], t["n"], n_classes=4)
    rows = duckdb.sql(cluster_sums_sql(3, "t")).df()
    assert s.equals(cluster_sums_from_rows(rows, 3, 4))
    assert len(rows) <= 4 + 1  # one row per class and one: nothing per cluster comes back
    ref = moments_from_patterns(t["y"], t[pcols], t["n"], classes=[0, 1, 2, 3],
                                names=["a", "b", "c"], clusters=t["cl"] // 7)
    for name in ("n_correct", "n_wrong", "cc", "cw", "ww"):
        assert np.array_equal(getattr(s, name), getattr(ref, name)), name
    assert s.n_clusters == ref.n_clusters
    # truth varies inside these clusters: they count as mixed, and cw is not all zero
    assert s.mixed_truth > 0 and s.cw.any()
    g = np.unique(t["cl"], return_inverse=True)[1]
    size = np.bincount(g, weights=t["n"])
    for j, p in enumerate(pcols):
        right = np.bincount(g, weights=t["n"] * (t[p] == t["y"]))
        expected = clustered_accuracy(right, size, confidence_level=0.9)
        got = clustered_accuracy_from_sums(s, j, confidence_level=0.9)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_too_few_clusters_is_an_error():
    s = cluster_sums([4, 4], [0, 1], [[0], [1]], [1, 1], n_classes=2)
    with pytest.raises(ValueError, match="at least 2 clusters; got 1"):
        clustered_accuracy_from_sums(s, 0)


def _one_truth(seed: int, repeats: int = 6) -> pd.DataFrame:
    """Clusters of one true class and at most ``repeats`` rows, one per repeat code ``r``."""
    t = _table(seed, rows=300, clusters=60)
    t["y"] = t.groupby("cl")["y"].transform("min")
    t["r"] = t.groupby("cl").cumcount()
    t = t.loc[t["r"] < repeats].assign(n=1).reset_index(drop=True)
    return t


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_packed_form_equals_numpy(seed):
    # reference: cluster_sums (numpy), checked above against the per-cluster computations
    t = _one_truth(seed)
    pcols = ["p0", "p1", "p2"]
    ref = cluster_sums(t["cl"], t["y"], t[pcols], t["n"], n_classes=4)
    words = packed_terms(t["y"], t[pcols], n_classes=4, max_size=6)
    tp = t[["cl", "y", "n", "r"]].copy()
    for w in range(words.shape[1]):
        tp[f"v{w}"] = words[:, w]
    tp["dm"] = 2 ** tp["r"]
    queries = [cluster_sums_sql(3, "t", n_classes=4, max_size=6),
               cluster_sums_sql(3, "t", n_classes=4, max_size=6, max_rows=len(t)),
               cluster_sums_sql(3, "t", n_classes=4, max_size=6, distinct="r", distinct_codes=6),
               cluster_sums_sql(3, "t", n_classes=4, max_size=6, distinct="r"),
               cluster_sums_sql(3, "tp", n_classes=4, max_size=6, distinct="r", distinct_codes=6,
                                packed=True, max_rows=len(t))]
    assert "DOUBLE" in queries[1] and "GROUP BY cl, k" not in queries[1]
    for sql in queries:
        rows = duckdb.sql(sql).df()
        assert len(rows) == 4 + 1
        assert ref.equals(cluster_sums_from_rows(rows, 3, 4))
        if "dup" in rows:  # no repeat code repeats within a cluster
            assert int(rows.loc[rows["g"] == 1, "dup"].iloc[0]) == 0


def test_packed_form_finds_a_repeated_code_and_refuses_what_it_cannot_sum():
    t = _one_truth(7)
    extra = t.iloc[[0]].copy()  # a second row with the same cluster and repeat code
    con = duckdb.connect()
    con.register("doubled", pd.concat([t, extra], ignore_index=True))
    for codes in (6, None):
        sql = cluster_sums_sql(3, "doubled", n_classes=4, max_size=6, distinct="r",
                               distinct_codes=codes)
        rows = con.sql(sql).df()
        assert int(rows.loc[rows["g"] == 1, "dup"].iloc[0]) > 0
    # a cluster beyond max_size: its fields may overflow, so the sums are refused
    con.register("big", pd.concat([t] + [t.loc[t["cl"] == t["cl"].iloc[0]]] * 3, ignore_index=True))
    rows = con.sql(cluster_sums_sql(3, "big", n_classes=4, max_size=6)).df()
    with pytest.raises(ValueError, match="more rows than the max_size"):
        cluster_sums_from_rows(rows, 3, 4)
    # two true classes in one cluster: the packed form's class moments would not be exact
    mixed = t.copy()
    mixed.loc[0, "y"] = (mixed.loc[0, "y"] + 1) % 4
    rows = duckdb.sql(cluster_sums_sql(3, "mixed", n_classes=4, max_size=6)).df()
    with pytest.raises(ValueError, match="more than one true class"):
        cluster_sums_from_rows(rows, 3, 4)
    # the unpacked form sums them exactly (mixed counted, as numpy does)
    rows = duckdb.sql(cluster_sums_sql(3, "mixed")).df()
    ref = cluster_sums(mixed["cl"], mixed["y"], mixed[["p0", "p1", "p2"]], mixed["n"], n_classes=4)
    assert ref.equals(cluster_sums_from_rows(rows, 3, 4)) and ref.mixed_truth == 1


def test_packed_terms_fields():
    # hand computed: 2 models, 3 classes, max_size 3 -> 2-bit fields, 26 a word; fields:
    # right0, right1, wrong0 per class (3), wrong1 per class (3). Row truth 2: model 0 right
    # (field 0 -> 1), model 1 predicts 0 (field 2 + 3 + 0 = 5 -> 2^10)
    assert packed_terms([2], [[2, 0]], n_classes=3, max_size=3).tolist() == [[1 + 2 ** 10]]
    assert packed_bits(3) == 2 and packed_bits(4) == 3


def test_many_classes_take_the_unpivoting_form():
    # 300 classes x (3 + 6) sums per truth group exceed PACKED_SUMS_MAX (2048): the packed form's
    # text would grow with K; the unpivoting form gives the same sums (reference: numpy)
    t = _one_truth(8)
    assert packed_bits(6, 3, 300) is None and packed_bits(6, 3, 4) == 3
    sql = cluster_sums_sql(3, "t", n_classes=300, max_size=6, distinct="r", distinct_codes=6)
    assert "GROUP BY cl, k" in sql
    rows = duckdb.sql(sql).df()
    ref = cluster_sums(t["cl"], t["y"], t[["p0", "p1", "p2"]], t["n"], n_classes=300)
    assert ref.equals(cluster_sums_from_rows(rows, 3, 300))
    assert int(rows.loc[rows["g"] == 1, "dup"].iloc[0]) == 0
