"""Input validation and label encoding: one policy for every module."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from precmp_lib._lib.checks import (
    as_score_matrix,
    check_choice,
    check_counts,
    check_positive_int,
    check_probability,
)
from precmp_lib.core import factorize as validation
from precmp_lib.core.labels import (
    as_label_array,
    encode_label_columns,
    encode_labels,
    label_columns,
)


@pytest.fixture(autouse=True, params=["C-loops", "C-loops-threads", "numpy-kernels"])
def label_kernels(request, monkeypatch):
    """Run every test here three times: labels coded by the C loops one column after another,
    by the C loops a column a thread (as large columns are; here every column), and by the
    numpy kernels."""
    if request.param == "numpy-kernels":
        monkeypatch.setattr(validation, "_native", None)
    elif validation._native is None:
        pytest.skip("precmp_lib.core._native was not built (no C compiler at install)")
    elif request.param == "C-loops-threads":
        monkeypatch.setattr(validation, "_PARALLEL_ROWS", 1)
        monkeypatch.setattr(validation, "_usable_cores", lambda: 2)


def test_the_first_failing_column_names_the_error():
    # coded one after another or a column a thread, columns a and b both hold a missing label:
    # the error names a, the first of them, as it would without threads
    y = np.array(["x", "y"] * 4, dtype=object)
    a, b = y.copy(), y.copy()
    a[5], b[1] = None, None
    with pytest.raises(ValueError, match=r"^a must not contain missing labels; found one at "
                                         r"position 5"):
        encode_labels(y, {"a": a, "b": b})


def test_encode_int_labels_fast_path_keeps_sorted_classes():
    enc = encode_labels([3, 5, 5, 9], {"a": [3, 3, 9, 9], "b": [5, 5, 5, 3]})
    assert enc.classes.tolist() == [3, 5, 9]
    assert enc.y.tolist() == [0, 1, 1, 2]
    assert enc.preds.tolist() == [[0, 1], [0, 1], [2, 1], [2, 0]]
    assert enc.names == ("a", "b")


def test_encode_negative_and_wide_ints():
    enc = encode_labels([-1, 1, 1], {"a": [1, -1, 1]})
    assert enc.classes.tolist() == [-1, 1]
    wide = encode_labels([0, 10**9], {"a": [10**9, 0]})  # beyond the dense range: general path
    assert wide.classes.tolist() == [0, 10**9] and wide.preds[:, 0].tolist() == [1, 0]


def test_encode_string_and_categorical_labels():
    y = pd.Series(["grass", "tree", "car"], dtype="category")
    enc = encode_labels(y, {"m": np.array(["tree", "tree", "pool"])})
    assert enc.classes.tolist() == ["car", "grass", "pool", "tree"]
    assert enc.label(enc.y[0]) == "grass"
    assert enc.code("pool") == 2


def test_encode_mixed_int_and_str_compares_as_text():
    enc = encode_labels([1, 2], {"a": ["1", "2"]})
    assert (enc.preds[:, 0] == enc.y).all()


def test_encode_float_labels_that_are_whole_numbers_become_ints():
    enc = encode_labels(np.array([0.0, 1.0]), {"a": [1, 0]})
    assert enc.classes.dtype.kind == "i"


def test_encode_with_explicit_labels_order_and_unknown_label():
    enc = encode_labels(["b", "a"], {"m": ["a", "a"]}, labels=["b", "a", "c"])
    assert enc.y.tolist() == [0, 1] and enc.classes.tolist() == ["b", "a", "c"]
    with pytest.raises(ValueError, match="m holds labels not in labels"):
        encode_labels(["b", "a"], {"m": ["a", "z"]}, labels=["a", "b"])


def test_code_of_unknown_label_names_the_argument():
    enc = encode_labels([0, 1], {"a": [0, 1]})
    with pytest.raises(ValueError, match=r"positive=7 is not among the labels in the data \(0, 1\)"):
        enc.code(7)


@pytest.mark.parametrize(
    ("y", "pred", "message"),
    [
        ([0, 1, 1], [0, 1], r"a must have the same length as y_true \(3\); got 2"),
        ([0, np.nan, 1], [0, 1, 1], "y_true must not contain NaN labels; found one at position 1"),
        ([0, 1, 1], [0, 1, np.nan], "a must not contain NaN labels; found one at position 2"),
        (["x", None], ["x", "y"], "y_true must not contain missing labels; found one at position 1"),
        (pd.Series([1, None, 2]), [0, 1, 1], "y_true must not contain missing labels"),
        ([], [], "y_true must not be empty"),
        ([[0, 1], [1, 0]], [0, 1], "y_true must be one-dimensional"),
    ],
)
def test_encode_bad_input(y, pred, message):
    with pytest.raises(ValueError, match=message):
        encode_labels(y, {"a": pred})


def test_scalar_and_dataframe_labels_rejected():
    with pytest.raises(ValueError, match="y_true must be a sequence of labels"):
        as_label_array("abc", "y_true")
    with pytest.raises(ValueError, match="y_true must be one-dimensional labels; got a DataFrame"):
        as_label_array(pd.DataFrame({"a": [1]}), "y_true")


def test_no_predictions():
    with pytest.raises(ValueError, match="at least one classifier"):
        encode_labels([0, 1], {})


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-3, 40), min_size=1, max_size=60), st.integers(0, 2**32 - 1))
def test_encoding_is_a_bijection_on_observed_labels(y, seed):
    rng = np.random.default_rng(seed)
    y = np.array(y)
    pred = rng.permutation(y)
    enc = encode_labels(y, {"a": pred})
    assert np.array_equal(enc.classes[enc.y], y)
    assert np.array_equal(enc.classes[enc.preds[:, 0]], pred)
    assert np.all(np.diff(enc.classes) > 0)
    gen = encode_labels(y.astype(str), {"a": pred.astype(str)})  # general path agrees on equality
    assert np.array_equal(gen.y == gen.preds[:, 0], enc.y == enc.preds[:, 0])


def test_check_counts():
    assert check_counts([[1, 2], [3, 4]], shape=(2, 2)).dtype == float
    with pytest.raises(ValueError, match="table must hold numbers"):
        check_counts([["a", 1], [2, 3]])
    with pytest.raises(ValueError, match=r"cells must have shape \(2, 2, 2\)"):
        check_counts(np.zeros((2, 2)), "cells", shape=(2, 2, 2))


def test_check_choice_probability_positive_int():
    with pytest.raises(ValueError, match="method must be one of 'a', 'b'; got 'c'"):
        check_choice("c", "method", ("a", "b"))
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\); got 0.0"):
        check_probability(0.0, "alpha")
    assert check_probability(0.0, "p", low_open=False) == 0.0
    with pytest.raises(ValueError, match="alpha must be a number between 0 and 1"):
        check_probability("0.05", "alpha")
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1; got 0"):
        check_positive_int(0, "n_resamples")
    with pytest.raises(ValueError, match="n_resamples must be an integer >= 1"):
        check_positive_int(2.5, "n_resamples")


def test_score_matrix():
    arr, rows, cols = as_score_matrix(pd.DataFrame({"lr": [0.8, 0.9], "rf": [0.7, 0.95]}, index=["d1", "d2"]))
    assert rows == ["d1", "d2"] and cols == ["lr", "rf"] and arr.shape == (2, 2)
    with pytest.raises(ValueError, match="scores must be a 2-D matrix"):
        as_score_matrix([1, 2, 3])
    with pytest.raises(ValueError, match=r"scores must hold finite numbers; found nan at row 1, column 0"):
        as_score_matrix([[1, 2], [np.nan, 3]])
    with pytest.raises(ValueError, match="at least 1 rows and 2 columns"):
        as_score_matrix([[1], [2]])


# --------------------------------------------------------------------------------------------
# label rules: what is missing, 1.0 is 1, "1" and 1 in one column, every container the same
# --------------------------------------------------------------------------------------------


def test_text_that_pandas_reads_as_missing_is_a_label():
    words = ["NA", "None", "null", "", "nan", "N/A"]
    enc = encode_labels(words, {"a": pd.Series(words[::-1])})
    assert sorted(enc.classes.tolist()) == sorted(words)
    assert [enc.label(c) for c in enc.y] == words


@pytest.mark.parametrize(
    "missing", [None, np.nan, pd.NA, float("nan")], ids=["None", "np.nan", "pd.NA", "float-nan"]
)
def test_none_nan_and_pd_na_are_missing_in_every_container(missing):
    message = r"a must not contain (missing|NaN) labels; found one at position 1"
    for values in (
        ["x", missing, "y"],
        np.array(["x", missing, "y"], dtype=object),
        pd.Series(["x", missing, "y"], dtype=object),
        pd.Series(["x", missing, "y"], dtype="str"),
        pd.Series(["x", missing, "y"], dtype="category"),
    ):
        with pytest.raises(ValueError, match=message):
            encode_labels(["x", "y", "y"], {"a": values})
    with pytest.raises(ValueError, match="y_true must not contain missing labels; found one at position 2"):
        encode_labels(pd.array([1, 2, missing], dtype="Int64"), {"a": [1, 2, 2]})


def test_whole_number_floats_are_the_int_labels():
    # int truth, float predictions 0.0/1.0 (a CSV column with one NaN elsewhere is read as
    # floats): the same classes and codes as all-int input, computed here
    y = np.array([0, 1, 1, 0, 1])
    as_int = encode_labels(y, {"a": np.array([0, 1, 0, 0, 1]), "b": np.array([1, 1, 1, 0, 0])})
    as_float = encode_labels(y, {"a": np.array([0.0, 1.0, 0.0, 0.0, 1.0]),
                                 "b": pd.Series([1.0, 1.0, 1.0, 0.0, 0.0])})
    as_object = encode_labels(y.astype(object), {"a": np.array([0, 1.0, 0, 0.0, 1], dtype=object),
                                                 "b": [1.0, 1, 1, 0, 0.0]})
    for enc in (as_float, as_object):
        assert enc.classes.tolist() == [0, 1] and enc.classes.dtype.kind == "i"
        np.testing.assert_array_equal(enc.y, as_int.y)
        np.testing.assert_array_equal(enc.preds, as_int.preds)
    assert as_label_array(np.array([2.0, 1.0, 0.5]), "y").tolist() == [2.0, 1.0, 0.5]


@pytest.mark.parametrize(
    "values",
    [
        [1, "1", 2],
        np.array([1, "1", 2], dtype=object),
        pd.Series([2, "1", 1], dtype=object),
        ["1", 1.0, "2"],
    ],
    ids=["list", "object-array", "object-series", "text-and-float"],
)
def test_one_label_as_text_and_as_number_in_one_column_is_an_error(values):
    message = r"y_pred holds the label '1' both as text \('1'\) and as a number \(1(\.0)?\)"
    with pytest.raises(ValueError, match=message):
        encode_labels(["1", "2", "1"], {"y_pred": values})
    with pytest.raises(ValueError, match=message):
        as_label_array(values, "y_pred")


def test_text_and_numbers_that_differ_may_share_a_column():
    enc = encode_labels(["cat", 1, "dog"], {"a": ["cat", "dog", 1]})
    assert enc.label(enc.y[1]) == "1" and enc.n_classes == 3


def _containers(values):
    values = np.asarray(values)
    return {
        "unicode": values,
        "object": values.astype(object),
        "list": values.tolist(),
        "str": pd.Series(values, dtype="str"),
        "category": pd.Series(values, dtype="category"),
        "categorical-unused": pd.Categorical(values, categories=[*sorted(set(values)), "zzz"]),
    }


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once per test
@given(
    st.lists(st.sampled_from(["ant", "bee", "cat", "dog", "NA", "", "é"]), min_size=1, max_size=50),
    st.integers(0, 2**32 - 1),
)
def test_every_container_encodes_the_same(y, seed):
    pred = np.random.default_rng(seed).permutation(y)
    reference = encode_labels(np.array(y, dtype=object), {"a": np.array(pred, dtype=object)})
    assert reference.classes.tolist() == sorted(set(y))
    for name_y, cy in _containers(y).items():
        for name_p, cp in _containers(pred).items():
            enc = encode_labels(cy, {"a": cp})
            assert enc.classes.tolist() == reference.classes.tolist(), (name_y, name_p)
            np.testing.assert_array_equal(enc.y, reference.y)
            np.testing.assert_array_equal(enc.preds, reference.preds)


def test_fixed_width_text_with_a_label_the_sample_misses():
    # 10 000 rows: the dictionary is guessed from every 2nd row, so a label seen only at an odd
    # position is found by the check and the rows are hashed instead
    y = np.array(["a", "b"] * 5000, dtype="<U4")
    y[4999] = "rare"
    enc = encode_labels(y, {"m": y[::-1]})
    assert enc.classes.tolist() == ["a", "b", "rare"]
    assert enc.label(enc.y[4999]) == "rare" and enc.label(enc.preds[5000, 0]) == "rare"


def test_categorical_codes_follow_the_sorted_observed_labels():
    y = pd.Categorical(["low", "high", "mid", "high"], categories=["low", "mid", "high", "unused"])
    enc = encode_labels(y, {"a": pd.Categorical(["mid", "mid", "low", "high"])})
    assert enc.classes.tolist() == ["high", "low", "mid"]
    assert enc.y.tolist() == [1, 0, 2, 0] and enc.preds[:, 0].tolist() == [2, 2, 1, 0]


def test_ints_beyond_int64_and_fractional_floats_stay_exact():
    big = 2**70
    enc = encode_labels(np.array([1, big], dtype=object), {"a": [big, 1]})
    assert enc.classes.tolist() == [1, big] and enc.preds[:, 0].tolist() == [1, 0]
    frac = encode_labels([1, 2.5], {"a": [2.5, 1.0]})
    assert frac.classes.tolist() == [1.0, 2.5] and frac.preds[:, 0].tolist() == [1, 0]


def test_categories_seen_only_late_count_and_unused_ones_do_not():
    # presence is counted on the first 65536 rows, then searched for: a category first seen at
    # the last row still counts, one never seen does not
    values = np.array(["a", "b"] * 50_000, dtype=object)
    values[-1] = "late"
    y = pd.Categorical(values, categories=["a", "b", "late", "never"])
    enc = encode_labels(y, {"m": np.full(len(values), "a")})
    assert enc.classes.tolist() == ["a", "b", "late"]
    assert enc.label(enc.y[-1]) == "late"


# --------------------------------------------------------------------------------------------
# pandas text stored by Arrow: packed straight from the buffers, or hashed when it cannot be
# --------------------------------------------------------------------------------------------


def _arrow_text(values, *, large=True, chunks=1, start=0, stop=None):
    """An Arrow-backed pandas string array of ``values``, cut into chunks, then sliced."""
    pa = pytest.importorskip("pyarrow")
    kind = pa.large_string() if large else pa.string()
    bounds = np.linspace(0, len(values), chunks + 1).astype(int)
    stored = pa.chunked_array([pa.array(list(values[a:b]), kind)
                               for a, b in pairwise(bounds)], kind)
    return pd.arrays.ArrowStringArray(stored[start:stop])


def _assert_same_encoding(enc, reference):
    assert enc.classes.tolist() == reference.classes.tolist()
    np.testing.assert_array_equal(enc.y, reference.y)
    np.testing.assert_array_equal(enc.preds, reference.preds)


LABELS = np.array(["", "é", "日本", "car", "building", "tree", "grass", "asphalt"])


@pytest.mark.parametrize("large", [True, False], ids=["large_string", "string"])
@pytest.mark.parametrize("chunks, start, stop", [(1, 0, None), (3, 5, -7), (4, 40_001, 40_017)],
                         ids=["one-chunk", "chunked-sliced", "short-slice"])
def test_arrow_text_encodes_as_the_object_array_does(large, chunks, start, stop):
    # 50 000 rows: several blocks of packed rows, chunk bounds inside blocks, the last rows of a
    # data buffer; empty, non-ASCII and 8-byte labels. Reference: the same labels as a numpy
    # object array of separately built str objects, coded by hashing (pd.factorize).
    rng = np.random.default_rng(7)
    y = LABELS[rng.integers(0, len(LABELS), 50_000)]
    pred = np.where(rng.random(50_000) < 0.7, y, LABELS[rng.integers(0, len(LABELS), 50_000)])
    sl = slice(start, stop)
    reference = encode_labels(np.array([str(v) + "" for v in y[sl]], dtype=object),
                              {"a": np.array([v[:] for v in pred[sl].tolist()], dtype=object)})
    enc = encode_labels(_arrow_text(y, large=large, chunks=chunks, start=start, stop=stop),
                        {"a": _arrow_text(pred, large=large, chunks=chunks, start=start, stop=stop)})
    _assert_same_encoding(enc, reference)
    assert enc.classes.tolist() == sorted(set(y[sl]) | set(pred[sl]))


@pytest.mark.parametrize(
    "extra",
    [["a much longer label", "x"], ["a", "a\x00"], [f"label{i}" for i in range(40)], ["rare"]],
    ids=["longer-than-8-bytes", "NUL-byte", "many-labels", "missed-by-the-sample"],
)
def test_arrow_text_that_cannot_be_packed_or_guessed_is_hashed_the_same(extra):
    # texts over 8 bytes and NUL bytes fall back to Arrow's dictionary encoding; more than a
    # few labels, or one the sampled rows miss, to hashing the packed rows. Reference: the
    # object array, as above.
    values = np.array(["a", "b"] * 20_000, dtype=object)
    values[np.arange(len(extra)) * 990 + 1] = extra  # rows the sample (every 9th) skips
    enc = encode_labels(_arrow_text(values), {"m": _arrow_text(values[::-1], chunks=2)})
    reference = encode_labels(values, {"m": values[::-1].copy()})
    _assert_same_encoding(enc, reference)
    assert set(extra) <= set(enc.classes.tolist())


def test_arrow_text_with_a_missing_value_in_a_later_chunk_is_refused():
    values = np.array(["x", "y"] * 10, dtype=object)
    values[13] = None
    with pytest.raises(ValueError, match="a must not contain missing labels; found one at position 12"):
        encode_labels(["x"] * 19, {"a": _arrow_text(values, chunks=3, start=1)})


def test_arrow_text_and_int_labels_are_matched_by_text():
    enc = encode_labels(np.array([1, 2, 10, 2]), {"a": _arrow_text(np.array(["1", "2", "10", "1"]))})
    assert enc.classes.tolist() == ["1", "10", "2"]
    assert (enc.preds[:3, 0] == enc.y[:3]).all() and enc.label(enc.preds[3, 0]) == "1"
    with pytest.raises(ValueError, match=r"holds the label '1' both as text"):
        encode_labels(["1", "2"], {"y_pred": pd.Series(["1", 1], dtype=object)})


@pytest.mark.parametrize("form", ["unicode", "object"])
def test_numpy_text_with_a_label_only_in_a_later_block(form):
    # 40 000 rows coded block by block: a label that the sampled rows miss, in the last block,
    # makes the rows hashed instead; reference: pd.factorize of the same labels
    y = np.array(["b", "a"] * 20_000, dtype="<U4")
    y[39_999] = "late"
    arr = y if form == "unicode" else y.astype(object)
    enc = encode_labels(arr, {"m": arr[::-1]})
    codes, uniques = pd.factorize(y, sort=True)
    assert enc.classes.tolist() == uniques.tolist() == ["a", "b", "late"]
    np.testing.assert_array_equal(enc.y, codes)
    np.testing.assert_array_equal(enc.preds[:, 0], codes[::-1])


def test_a_column_given_twice_is_coded_once_and_the_same():
    # the same object as truth and as a prediction; reference: the same labels as copies
    y = pd.Series(np.array(["b", "a", "c"] * 5), dtype="str")
    pred = np.array(["a", "a", "b"] * 5)
    enc = encode_labels(y, {"same": y, "other": pred})
    reference = encode_labels(y.copy(), {"same": y.copy(), "other": pred.copy()})
    _assert_same_encoding(enc, reference)
    assert (enc.preds[:, 0] == enc.y).all()


def test_encode_label_columns_gives_the_codes_encode_labels_stacks():
    # the per-column codes of encode_label_columns are encode_labels' y and preds columns
    y, preds = label_columns(pd.Series(["x", "z", "y"], dtype="str"),
                             {"a": np.array(["z", "z", "x"]), "b": ["y", "x", "x"]})
    codes, classes = encode_label_columns({"y_true": y, **preds})
    enc = encode_labels(y, preds)
    assert classes.tolist() == enc.classes.tolist() == ["x", "y", "z"]
    np.testing.assert_array_equal(codes[0], enc.y)
    np.testing.assert_array_equal(np.column_stack(codes[1:]), enc.preds)
    with pytest.raises(ValueError, match=r"y_true holds labels not in labels: \['y'\]"):
        encode_label_columns({"y_true": y, **preds}, labels=["x", "z"])


def test_numpy_text_with_a_wide_character_only_in_a_later_block():
    # characters up to U+00FF are packed one byte each; a wider one found in a later block
    # (while packing) sends the column to the binary search instead; reference: pd.factorize
    y = np.array(["é", "b"] * 20_000, dtype="<U2")
    y[39_999] = "日本"
    enc = encode_labels(y, {"m": y[::-1]})
    codes, uniques = pd.factorize(y, sort=True)
    assert enc.classes.tolist() == uniques.tolist() == ["b", "é", "日本"]
    np.testing.assert_array_equal(enc.y, codes)
    np.testing.assert_array_equal(enc.preds[:, 0], codes[::-1])


def test_arrow_text_with_empty_chunks_between_and_around_rows():
    # chunks of 0, 3, 0, 0, 5 and 0 rows, then sliced from row 1: the rows of a block come from
    # several chunks, some empty; reference: the labels as a list of str (hashed)
    pa = pytest.importorskip("pyarrow")
    parts = [[], ["b", "é", ""], [], [], ["abcdefgh", "b", "", "é", "a"], []]
    stored = pa.chunked_array([pa.array(p, pa.large_string()) for p in parts], pa.large_string())
    values = [v for p in parts for v in p][1:]
    enc = encode_labels(pd.arrays.ArrowStringArray(stored[1:]), {"m": values[::-1]})
    reference = encode_labels(np.array(values, dtype=object), {"m": values[::-1]})
    _assert_same_encoding(enc, reference)
    assert [enc.label(c) for c in enc.y] == values


@pytest.mark.parametrize("form", ["unicode", "str", "object"])
def test_an_empty_label_the_sample_misses_keeps_its_own_class(form):
    # The empty text packs to the key 0. With "a" and "b" guessed from the sampled rows, 0 hashes
    # to a slot no guessed key uses; that slot must not pass it as a guessed label. Row 12 345 of
    # 100 000 is not sampled (every 24th row is). Reference: pd.factorize of the same labels.
    y = np.array(["a", "b"])[np.random.default_rng(0).integers(0, 2, 100_000)]
    y[12_345] = ""
    arr = {"unicode": y, "str": pd.Series(y, dtype="str"), "object": y.astype(object)}[form]
    enc = encode_labels(arr, {"m": arr})
    codes, uniques = pd.factorize(y, sort=True)
    assert enc.classes.tolist() == uniques.tolist() == ["", "a", "b"]
    np.testing.assert_array_equal(enc.y, codes)
    assert enc.label(enc.y[12_345]) == ""


# ---------------------------------------------------------------------------------------------
# labels arrive as they are: NUL characters, every integer width and sign, mixed categoricals
# ---------------------------------------------------------------------------------------------


def test_python_lists_keep_nul_characters():
    # numpy's fixed-width text drops trailing NULs: "a\x00" must stay a label of its own
    y = ["a", "a\x00", "a", "b"]
    enc = encode_labels(y, {"m": ["a", "a", "a", "b"], "n": ("a", "a\x00", "a", "b")})
    assert enc.classes.tolist() == ["a", "a\x00", "b"]
    assert enc.y.tolist() == [0, 1, 0, 2] and enc.preds.T.tolist() == [[0, 0, 0, 2], [0, 1, 0, 2]]
    assert as_label_array(["x\x00\x00", "x"], "y").tolist() == ["x\x00\x00", "x"]


def test_nul_labels_give_the_right_precision():
    from precmp_lib import compare_precision

    # A predicts "a" on rows 0, 1, 2; the truth is "a" on rows 0 and 2 and "a\x00" on row 1:
    # precision of A for "a" is 2/3 (hand count), of B (never wrong) 1. Merging the two labels
    # would give A 3/3.
    res = compare_precision(["a", "a\x00", "a", "b"], ["a", "a", "a", "b"],
                            ["a", "a\x00", "a", "b"])
    row = res.set_index("class").loc["a"]
    assert row["precision_a"] == pytest.approx(2 / 3) and row["precision_b"] == 1.0
    assert res["class"].tolist() == ["a", "a\x00", "b"]


INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _extremes(t):
    info = np.iinfo(t)
    return [int(info.min), int(info.min) + 1, 0, int(info.max) - 1, int(info.max),
            *([] if info.min == 0 else [-1]), *([2**31] if info.max >= 2**31 else []),
            *([2**63] if info.max >= 2**63 else [])]


@pytest.mark.parametrize("t", INT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("small", [False, True], ids=["extremes", "small-range"])
def test_integer_labels_of_every_width_and_sign(t, small):
    # reference: the same labels as exact Python ints, coded by their sorted order
    values = sorted(set(_extremes(t)))
    if small:  # a small range at each end of the type (the table look-up path)
        values = [v for v in values if v - values[0] < 3 or values[-1] - v < 3][:3]
    y = np.array(values * 2, dtype=t)
    pred = np.array(values[::-1] * 2, dtype=t)
    enc = encode_labels(y, {"m": pred})
    assert enc.classes.tolist() == values
    rank = {v: i for i, v in enumerate(values)}
    assert enc.y.tolist() == [rank[int(v)] for v in y]
    assert enc.preds[:, 0].tolist() == [rank[int(v)] for v in pred]


@pytest.mark.parametrize("ta", INT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("tb", INT_TYPES, ids=lambda t: t.__name__)
def test_integer_labels_of_two_types_share_one_class_list(ta, tb):
    # int64 [-1, 0] against uint64 [0, 1] and every other pair, near and far from zero
    for a_vals, b_vals in [([0, 1, 1], [1, 0, 1]),
                           ([*_extremes(ta)[:2], 0], [0, *_extremes(tb)[-2:]])]:
        y, pred = np.array(a_vals, dtype=ta), np.array(b_vals, dtype=tb)
        enc = encode_labels(y, {"m": pred})
        values = sorted({*map(int, a_vals), *map(int, b_vals)})
        assert enc.classes.tolist() == values
        assert [values[c] for c in enc.y] == list(map(int, a_vals))
        assert [values[c] for c in enc.preds[:, 0]] == list(map(int, b_vals))


def test_joint_counts_of_integer_labels_of_every_width():
    from precmp_lib.core.counts import joint_confusion

    # int8 [-128, 127], uint32 >= 2**31, uint64 >= 2**63, int64 with uint64: counted exactly
    for y, a in [(np.array([-128, 127, 127], np.int8), np.array([127, -128, 127], np.int8)),
                 (np.array([2**31, 2**31 + 1], np.uint32), np.array([2**31 + 1, 2**31], np.uint32)),
                 (np.array([2**63, 2**63 + 1], np.uint64), np.array([2**63 + 1, 2**63], np.uint64)),
                 (np.array([-1, 0], np.int64), np.array([0, 1], np.uint64))]:
        jc = joint_confusion(y, a, y)
        assert jc.classes.tolist() == sorted({*map(int, y), *map(int, a)})
        assert int(jc.table.sum()) == len(y)
        for t, p in zip(y, a, strict=True):  # each row's cell holds one count
            i, j = jc.classes.tolist().index(int(t)), jc.classes.tolist().index(int(p))
            assert jc.table[i, j, i] >= 1


@pytest.mark.parametrize("values", [[1, "1", 1], ["2", 2.0, "x"]], ids=["int", "float"])
def test_a_categorical_mixing_a_number_and_its_text_is_refused_like_a_list(values):
    with pytest.raises(ValueError, match="both as text") as as_list:
        encode_labels(values, {"m": values})
    for container in (pd.Categorical(values), pd.Series(values, dtype="category")):
        with pytest.raises(ValueError, match="both as text") as as_cat:
            encode_labels(container, {"m": values})
        assert str(as_cat.value) == str(as_list.value)
    # a category of the other form that no row uses is no conflict
    unused = pd.Categorical([1, 1], categories=[1, "1"])
    assert encode_labels(unused, {"m": [1, 1]}).classes.tolist() == [1]
