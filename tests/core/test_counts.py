"""Tests for precmp_lib.core.counts: joint confusion tensor, per-class cells, pattern counts, moments.

Reference values are brute-force counts computed in the test with explicit boolean masks, one
class at a time (the definition in docs/methods.md §6.1 and §7), never copied numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from precmp_lib.core.counts import (
    JointConfusion,
    PatternCounts,
    cells_from_tab_paired,
    class_cells,
    joint_confusion,
    joint_confusion_or_cells,
    pattern_counts,
    precision_moments,
)


def brute_cells(y, a, b, label):
    d, x, z = (np.asarray(y) == label), (np.asarray(a) == label), (np.asarray(b) == label)
    return np.bincount(4 * d + 2 * x + z, minlength=8).reshape(2, 2, 2)


def brute_patterns(y, preds, label):
    preds = np.column_stack(preds)
    pat = ((preds == label) * (1 << np.arange(preds.shape[1]))).sum(axis=1)
    d = np.asarray(y) == label
    size = 1 << preds.shape[1]
    return np.stack([np.bincount(pat[~d], minlength=size), np.bincount(pat[d], minlength=size)])


labels_strategy = st.lists(st.integers(0, 4), min_size=1, max_size=60)


@st.composite
def three_label_arrays(draw):
    n = draw(st.integers(1, 60))
    arr = st.lists(st.integers(0, 4), min_size=n, max_size=n)
    return np.array(draw(arr)), np.array(draw(arr)), np.array(draw(arr))


# ---- joint_confusion ------------------------------------------------------------------------


def test_joint_confusion_counts_every_triple():
    rng = np.random.default_rng(0)
    y, a, b = (rng.integers(0, 4, 300) for _ in range(3))
    jc = joint_confusion(y, a, b)
    assert isinstance(jc, JointConfusion)
    assert jc.table.dtype == np.int64 and jc.table.shape == (4, 4, 4)
    assert jc.n == 300 and jc.classes.tolist() == [0, 1, 2, 3]
    for t in range(4):
        for i in range(4):
            for j in range(4):
                assert jc.table[t, i, j] == np.sum((y == t) & (a == i) & (b == j))


def test_joint_confusion_string_labels_equal_int_labels():
    rng = np.random.default_rng(1)
    names = np.array(["cat", "dog", "owl"])
    y, a, b = (rng.integers(0, 3, 200) for _ in range(3))
    jc_int = joint_confusion(y, a, b)
    jc_str = joint_confusion(names[y], names[a], list(names[b]))
    assert jc_str.classes.tolist() == ["cat", "dog", "owl"]
    np.testing.assert_array_equal(jc_str.table, jc_int.table)


@pytest.mark.parametrize("k", [3, 31, 32, 128], ids=["K=3", "K=31", "K=32", "K=128"])
def test_joint_confusion_or_cells_of_text_labels_counts_every_triple(k):
    # text labels are coded, then counted through one combined code in 16-bit integers up to
    # K = 31 (K^3 < 2^15) and 32-bit ones beyond; reference: the count of each observed
    # (true, A, B) triple, by pandas' groupby
    rng = np.random.default_rng(k)
    names = np.array([f"c{i:03d}" for i in range(k)])
    y, a, b = (rng.integers(0, k, 5000) for _ in range(3))
    jc = joint_confusion_or_cells(pd.Series(names[y], dtype="str"), names[a], names[b].astype(object))
    assert isinstance(jc, JointConfusion)
    present = np.unique(np.concatenate([y, a, b]))
    assert jc.classes.tolist() == names[present].tolist()
    position = np.full(k, -1)
    position[present] = np.arange(len(present))
    expected = np.zeros((len(present),) * 3, dtype=np.int64)
    triples = pd.DataFrame({"y": position[y], "a": position[a], "b": position[b]})
    for (t, i, j), count in triples.groupby(["y", "a", "b"]).size().items():
        expected[t, i, j] = count
    np.testing.assert_array_equal(jc.table, expected)


@pytest.mark.parametrize("form", ["int", "int-with-labels", "text"])
def test_joint_counts_of_many_rows_are_summed_over_blocks(form):
    # 200 003 rows: more than three blocks of rows (the last one partial) are combined and
    # counted one at a time; reference: the count of each (true, A, B) triple by groupby
    rng = np.random.default_rng(11)
    y, a, b = (rng.integers(0, 4, 200_003) for _ in range(3))
    names = np.array(["ant", "bee", "cat", "dog"])
    if form == "int":
        jc = joint_confusion(y, a, b)
    elif form == "int-with-labels":
        jc = joint_confusion(y, a, b, labels=[0, 1, 2, 3])
    else:
        jc = joint_confusion_or_cells(pd.Series(names[y], dtype="str"), names[a],
                                      names[b].astype(object))
    expected = np.zeros((4, 4, 4), dtype=np.int64)
    triples = pd.DataFrame({"y": y, "a": a, "b": b})
    for (t, i, j), count in triples.groupby(["y", "a", "b"]).size().items():
        expected[t, i, j] = count
    np.testing.assert_array_equal(jc.table, expected)


def test_joint_confusion_sparse_and_wide_integer_labels():
    rng = np.random.default_rng(2)
    y, a, b = (rng.integers(0, 3, 200) for _ in range(3))
    base = joint_confusion(y, a, b).table
    # values 5, 105, 205: outside the direct range, go through encode_labels
    wide = joint_confusion(y * 100 + 5, a * 100 + 5, b * 100 + 5)
    assert wide.classes.tolist() == [5, 105, 205]
    np.testing.assert_array_equal(wide.table, base)
    # values 0, 2, 4 with gaps inside the direct range: absent values dropped
    gaps = joint_confusion(y * 2, a * 2, b * 2)
    assert gaps.classes.tolist() == [0, 2, 4]
    np.testing.assert_array_equal(gaps.table, base)
    # uint8 and negative labels
    np.testing.assert_array_equal(
        joint_confusion(y.astype(np.uint8), a.astype(np.uint8), b.astype(np.uint8)).table, base)
    np.testing.assert_array_equal(joint_confusion(y - 1, a - 1, b - 1).table, base)


def test_joint_confusion_labels_fix_order_and_add_empty_classes():
    jc = joint_confusion([1, 0, 1], [1, 1, 0], [0, 0, 1], labels=[1, 0, 9])
    assert jc.classes.tolist() == [1, 0, 9]
    assert jc.table[0, 0, 1] == 1  # truth 1, A says 1, B says 0
    assert jc.table[2].sum() == 0 and jc.table[:, 2].sum() == 0


def test_joint_confusion_confusion_matrices_are_margins():
    y, a, b = [0, 1, 1, 2], [0, 1, 2, 2], [1, 1, 1, 2]
    jc = joint_confusion(y, a, b)
    assert jc.confusion_a().to_numpy().tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    assert jc.confusion_b().loc[0, 1] == 1


def test_joint_confusion_bad_input():
    with pytest.raises(ValueError, match="y_pred_b must have the same length"):
        joint_confusion([0, 1], [0, 1], [0])
    with pytest.raises(ValueError, match="y_true must not contain NaN"):
        joint_confusion([0.0, np.nan], [0, 1], [0, 1])
    with pytest.raises(ValueError, match="y_pred_a must not be empty"):
        joint_confusion([0], [], [0])
    with pytest.raises(ValueError, match="not in labels"):
        joint_confusion([0, 1], [0, 1], [0, 2], labels=[0, 1])


@settings(max_examples=60, deadline=None)
@given(three_label_arrays())
def test_joint_confusion_row_order_invariant(arrays):
    y, a, b = arrays
    perm = np.random.default_rng(len(y)).permutation(len(y))
    np.testing.assert_array_equal(
        joint_confusion(y, a, b).table, joint_confusion(y[perm], a[perm], b[perm]).table
    )


# ---- class_cells ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(three_label_arrays())
def test_class_cells_equal_brute_force(arrays):
    y, a, b = arrays
    jc = joint_confusion(y, a, b)
    cells = class_cells(jc.table)
    assert cells.shape == (len(jc.classes), 2, 2, 2)
    for k, label in enumerate(jc.classes):
        np.testing.assert_array_equal(cells[k], brute_cells(y, a, b, label))


def test_class_cells_batch_without_loops_matches_per_table():
    rng = np.random.default_rng(3)
    y, a, b = (rng.integers(0, 5, 400) for _ in range(3))
    tables = np.stack([
        joint_confusion(y[idx], a[idx], b[idx], labels=range(5)).table
        for idx in rng.integers(0, 400, (7, 400))
    ])
    batch = class_cells(tables)
    assert batch.shape == (7, 5, 2, 2, 2)
    for i in range(7):
        np.testing.assert_array_equal(batch[i], class_cells(tables[i]))
    np.testing.assert_array_equal(batch.sum(axis=(-3, -2, -1)), np.full((7, 5), 400))


def test_class_cells_swapping_classifiers_transposes_cells():
    rng = np.random.default_rng(4)
    y, a, b = (rng.integers(0, 3, 100) for _ in range(3))
    cells_ab = class_cells(joint_confusion(y, a, b, labels=[0, 1, 2]).table)
    cells_ba = class_cells(joint_confusion(y, b, a, labels=[0, 1, 2]).table)
    np.testing.assert_array_equal(cells_ab, cells_ba.transpose(0, 1, 3, 2))


def test_class_cells_bad_shape():
    with pytest.raises(ValueError, match=r"table must have shape \(\.\.\., K, K, K\)"):
        class_cells(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="got shape"):
        class_cells(np.zeros((3, 3, 2)))


def test_cells_from_tab_paired_maps_dtcompair_layout():
    # DTComPair read.tab.paired(d.a, d.b, d.c, d.d, nd.a, nd.b, nd.c, nd.d): rows Test2, cols
    # Test1, so d.b = (Test1 negative, Test2 positive) = s01 and d.c = s10 (docs/methods.md §6.1).
    cells = cells_from_tab_paired(30, 4, 10, 6, 5, 3, 8, 60)
    expected = {(1, 1, 1): 30, (1, 0, 1): 4, (1, 1, 0): 10, (1, 0, 0): 6,
                (0, 1, 1): 5, (0, 0, 1): 3, (0, 1, 0): 8, (0, 0, 0): 60}
    for idx, value in expected.items():
        assert cells[idx] == value
    with pytest.raises(ValueError, match="non-negative"):
        cells_from_tab_paired(-1, 0, 0, 0, 0, 0, 0, 0)


# ---- pattern counts and moments -------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 80), st.integers(2, 5), st.integers(2, 5), st.integers(0, 10**6))
def test_pattern_counts_equal_brute_force(n, c, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    preds = [rng.integers(0, k, n) for _ in range(c)]
    pc = pattern_counts(y, preds)
    assert pc.counts.shape == (len(pc.classes), 2, 2**c)
    for i, label in enumerate(pc.classes):
        np.testing.assert_array_equal(pc.counts[i], brute_patterns(y, preds, label))


def test_pattern_counts_from_patterns_reads_left_to_right():
    pc = PatternCounts.from_patterns({"110": 8, "001": 7}, {"100": 5}, names=["x", "y", "z"])
    assert pc.names == ("x", "y", "z")
    assert pc.counts[0, 1, 0b011] == 8 and pc.counts[0, 1, 0b100] == 7
    assert pc.counts[0, 0, 0b001] == 5
    mo = pc.moments()
    assert mo.n_correct[0].tolist() == [8, 8, 7] and mo.n_wrong[0].tolist() == [5, 0, 0]
    with pytest.raises(ValueError, match="strings of 0/1 of equal length"):
        PatternCounts.from_patterns({"11": 1}, {"1": 2})
    with pytest.raises(ValueError, match="names must have 3 entries"):
        PatternCounts.from_patterns({"110": 1}, {}, names=["a"])


def brute_moments(y, preds, groups, label):
    """Per-cluster counts a_ij, w_ij by explicit loops over clusters (docs/methods.md §7)."""
    y = np.asarray(y)
    preds = np.column_stack(preds)
    ids = pd.unique(np.asarray(groups))
    a = np.array([[np.sum((groups == g) & (preds[:, j] == label) & (y == label))
                   for j in range(preds.shape[1])] for g in ids])
    w = np.array([[np.sum((groups == g) & (preds[:, j] == label) & (y != label))
                   for j in range(preds.shape[1])] for g in ids])
    return a.sum(0), w.sum(0), a.T @ a, a.T @ w, w.T @ w


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(2, 4), st.integers(2, 4), st.integers(1, 4),
       st.integers(0, 10**6))
def test_precision_moments_with_groups_equal_brute_force(n_obs, c, k, reps, seed):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_obs), reps)
    rng.shuffle(groups)
    truth = rng.integers(0, k, n_obs)
    y = truth[groups]
    preds = [rng.integers(0, k, len(groups)) for _ in range(c)]
    mo = precision_moments(y, preds, groups=groups)
    assert mo.n_rows == n_obs * reps and mo.n_clusters == n_obs
    for i, label in enumerate(mo.classes):
        tp, fp, cc, cw, ww = brute_moments(y, preds, groups, label)
        np.testing.assert_array_equal(mo.n_correct[i], tp)
        np.testing.assert_array_equal(mo.n_wrong[i], fp)
        np.testing.assert_array_equal(mo.cc[i], cc)
        np.testing.assert_array_equal(mo.cw[i], cw)
        np.testing.assert_array_equal(mo.ww[i], ww)


def test_moments_from_patterns_equal_moments_with_singleton_groups():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 500)
    preds = {f"m{j}": rng.integers(0, 4, 500) for j in range(5)}
    from_patterns = pattern_counts(y, preds).moments()
    from_groups = precision_moments(y, preds, groups=[f"id{i}" for i in range(500)])
    for field in ("n_correct", "n_wrong", "cc", "cw", "ww"):
        np.testing.assert_array_equal(getattr(from_patterns, field), getattr(from_groups, field))
    assert from_patterns.names == from_groups.names == ("m0", "m1", "m2", "m3", "m4")


def test_precision_moments_identical_repeats_scale_by_r_and_r_squared():
    # docs/methods.md §7: replicating every row R times scales A by R and B by R^2
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 200)
    preds = np.column_stack([rng.integers(0, 3, 200) for _ in range(3)])
    one = precision_moments(y, preds)
    rep = precision_moments(np.tile(y, 4), np.tile(preds, (4, 1)), groups=np.tile(np.arange(200), 4))
    np.testing.assert_array_equal(rep.n_correct, 4 * one.n_correct)
    np.testing.assert_array_equal(rep.cc, 16 * one.cc)
    np.testing.assert_array_equal(rep.ww, 16 * one.ww)


def test_prediction_inputs_and_errors():
    y = [0, 1, 1, 0]
    frame = pd.DataFrame({"lr": [0, 1, 0, 0], "rf": [1, 1, 1, 0]})
    a = pattern_counts(y, frame)
    b = pattern_counts(y, frame.to_numpy())
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.names == ("lr", "rf") and b.names == ("clf_0", "clf_1")
    with pytest.raises(ValueError, match="groups must have the same length"):
        precision_moments(y, frame, groups=[0, 1])
    with pytest.raises(ValueError, match="y_preds must be a mapping"):
        pattern_counts(y, "abc")
    with pytest.raises(ValueError, match="2-D array"):
        pattern_counts(y, np.zeros(4))
    with pytest.raises(ValueError, match="at most 16 classifiers"):
        pattern_counts(y, np.zeros((4, 17), dtype=int))


@pytest.mark.parametrize("high", [3, 100_000])  # Σ w below 2**24 (single precision), above
def test_weighted_gram_equals_the_integer_product(high):
    # reference: numpy's product of the int64 matrices, Iᵀ diag(w) I, exact in integers
    from precmp_lib.core.counts import weighted_gram

    rng = np.random.default_rng(5)
    ind = rng.random((40_000, 23)) < 0.4
    w = rng.integers(1, high, 40_000)
    i = ind.astype(np.int64)
    got = weighted_gram(ind, w, block=7_000)
    assert got.dtype == np.int64
    assert np.array_equal(got, i.T @ (i * w[:, None]))
    assert (int(w.sum()) < 2**24) == (high == 3)
