"""Bad input at the library's boundary: every public function, every kind of bad argument.

The public functions are those of the ``precmp_lib`` namespace, of ``precmp_lib.course`` and
every name in the ``__all__`` of a core or course module (the helpers that stay in their
modules, such as ``precmp_lib._lib.checks.check_probability``). For each there is one valid
call (checked to succeed), and
for each of its data and parameter arguments a kind of value (labels, counts, a probability,
a method name, ...). Hypothesis draws bad values of that kind, in categories (wrong type,
NaN/inf, empty, length mismatch, negative or non-integer counts, out of range, unknown method,
wrong shape), puts one into the valid call and requires a ``ValueError`` or ``TypeError`` whose
message names the argument (DESIGN.md, "Degenerate and bad input"). Anything else -- no error,
an error that does not say which argument, or another exception from deep inside numpy -- fails.

Functions that read files or the network, draw, run widgets, or train models for the course
are listed in ``SKIPPED`` with the reason; every other public function must have a spec here,
so a new one cannot slip past.

``PRECMP_FUZZ_TALLY=path.json pytest tests/test_fuzz.py`` writes the count of bad inputs per
category and outcome.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import precmp_lib as pc
import precmp_lib.course
from precmp_lib.core.clusters import ClassProfiles, class_profiles
from precmp_lib.core.counts import pattern_counts, precision_moments
from precmp_lib.stats.bayesian import PRIOR_PLACES
from precmp_lib.stats.combine import COMBINE_METHODS

# --------------------------------------------------------------------------------------------
# Valid data the calls start from
# --------------------------------------------------------------------------------------------

Y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0] * 4)
A = np.array([0, 1, 0, 0, 1, 1, 1, 1, 0, 0] * 4)
B = np.array([0, 1, 1, 1, 1, 0, 0, 1, 0, 1] * 4)
C = np.array([1, 1, 1, 0, 1, 0, 1, 0, 0, 0] * 4)
PREDS = {"a": A, "b": B, "c": C}
CELLS = np.array([[[155, 22], [53, 31]], [[32, 22], [78, 319]]])  # docs/methods.md §6.6a
JOINT = np.array([[[103, 45], [6, 11]], [[63, 64], [1, 53]]])  # docs/methods.md §8 example 2
SCORES = np.array([[0.80, 0.75, 0.70], [0.90, 0.85, 0.88], [0.70, 0.72, 0.60],
                   [0.85, 0.80, 0.81], [0.95, 0.90, 0.93], [0.60, 0.66, 0.58]])
CV_A = np.array([0.81, 0.83, 0.79, 0.85, 0.80, 0.82, 0.84, 0.78, 0.83, 0.81])
CV_B = np.array([0.79, 0.80, 0.78, 0.82, 0.80, 0.79, 0.81, 0.77, 0.80, 0.80])
FIVE_A = CV_A.reshape(5, 2)
FIVE_B = CV_B.reshape(5, 2)
CORRECT = pc.stats.contingency.correctness_matrix(Y, PREDS).to_numpy()


def _long_table() -> pd.DataFrame:
    rows = []
    for r in range(2):
        for i, y in enumerate(Y[:20]):
            for name, pred in (("a", A), ("b", B)):
                rows.append({"id": i, "repeat": r, "fold": i % 2, "model": name, "y_true": y,
                             "y_pred": pred[(i + r) % 20]})
    return pd.DataFrame(rows)


LONG = _long_table()
WIDE = pd.DataFrame({"y": Y, **PREDS})
MOMENTS = precision_moments(Y, PREDS)
# A table of pattern counts (the counting engine's output): class codes of the truth and of two
# models, the rows with each pattern and the observation (cluster) each row belongs to
# Per-(cluster, class) cells: counts right and wrong per model (rows) and cell, as
# precmp_lib.core.counts.class_moments takes them (its docstring example)
CELL_RIGHT = np.array([[2, 1, 3], [1, 1, 2]])
CELL_WRONG = np.array([[0, 1, 0], [1, 0, 1]])
PAT_Y = np.array([1, 1, 0, 0, 1, 0])
PAT_P = np.array([[1, 1], [0, 1], [1, 0], [0, 0], [1, 0], [0, 1]])
PAT_W = np.array([45, 15, 10, 130, 4, 6])
PAT_G = np.array([0, 1, 2, 3, 0, 1])


# --------------------------------------------------------------------------------------------
# Bad values, by kind of argument; each draw is (category, value)
# --------------------------------------------------------------------------------------------

WRONG_TYPE, NAN, EMPTY, MISMATCH = "wrong type", "NaN/inf", "empty", "length mismatch"
NEGATIVE, NON_INTEGER, OUT_OF_RANGE = "negative count", "non-integer count", "out of range"
UNKNOWN, SHAPE = "unknown method", "wrong shape"


def _tagged(category: str, values: st.SearchStrategy) -> st.SearchStrategy:
    return values.map(lambda v: (category, v))


def _with_nan(base: np.ndarray) -> st.SearchStrategy:
    def put(args):
        index, value = args
        arr = np.array(base, dtype=float)
        arr.flat[index % arr.size] = value
        return arr

    return _tagged(NAN, st.tuples(st.integers(0, 10_000),
                                  st.sampled_from([np.nan, np.inf, -np.inf])).map(put))


def _labels(base: np.ndarray, *, none_ok: bool = False, single: bool = False
            ) -> st.SearchStrategy:
    """Bad label arrays; ``none_ok`` when None is a valid value (an optional argument),
    ``single`` for a function of one array (no length to mismatch)."""
    n = len(base)
    wrong = [5, 2.5, "abc", object()] + ([] if none_ok else [None])
    mismatch = [] if single else [
        _tagged(MISMATCH, st.integers(1, n - 1).map(lambda k: base[:-k])),
        _tagged(MISMATCH, st.integers(1, 5).map(lambda k: np.r_[base, base[:k]])),
    ]

    def with_none(i):
        out = base.astype(object)
        out[i % n] = None
        return out

    return st.one_of(
        _tagged(WRONG_TYPE, st.sampled_from(wrong)),
        _with_nan(base),
        _tagged(NAN, st.integers(0, n - 1).map(with_none)),
        _tagged(EMPTY, st.just([])),
        *mismatch,
        _tagged(SHAPE, st.just(np.column_stack([base, base]))),
    )


def _prediction_mapping(base: dict) -> st.SearchStrategy:
    first = next(iter(base))
    n = len(base[first])

    def short(k):
        return {**base, first: base[first][:-k]}

    def nan(i):
        arr = base[first].astype(float)
        arr[i % n] = np.nan
        return {**base, first: arr}

    return st.one_of(
        _tagged(WRONG_TYPE, st.sampled_from([5, "abc", None])),
        _tagged(EMPTY, st.just({})),
        _tagged(MISMATCH, st.integers(1, n - 1).map(short)),
        _tagged(NAN, st.integers(0, n - 1).map(nan)),
    )


def _counts(base: np.ndarray, *, integer: bool = True, none_ok: bool = False
            ) -> st.SearchStrategy:
    """Bad tables of counts; ``integer`` off where expected (fractional) counts are valid,
    ``none_ok`` for an optional table."""
    base = np.asarray(base)

    def change(delta):
        def f(i):
            arr = base.astype(float)
            arr.flat[i % arr.size] += delta
            return arr
        return f

    def negative(i):
        arr = base.astype(float)
        arr.flat[i % arr.size] = -1 - arr.flat[i % arr.size]
        return arr

    return st.one_of(
        _tagged(NEGATIVE, st.integers(0, 10_000).map(negative)),
        *([_tagged(NON_INTEGER, st.integers(0, 10_000).map(change(0.5)))] if integer else []),
        _with_nan(base),
        _tagged(SHAPE, st.sampled_from([base.ravel()[:3], base[..., 0], np.ones((3, 3))])),
        _tagged(EMPTY, st.just([])),
        _tagged(WRONG_TYPE, st.sampled_from(["abc", object()] + ([] if none_ok else [None]))),
    )


def _matrix(base: np.ndarray, *, zero_one: bool = False) -> st.SearchStrategy:
    base = np.asarray(base)
    out = [
        _with_nan(base),
        _tagged(EMPTY, st.just(np.empty((0, base.shape[1])))),
        _tagged(SHAPE, st.sampled_from([base[:, 0], base[:, :1]])),
        _tagged(WRONG_TYPE, st.sampled_from(["abc", None, base.astype(str).astype(object) + "x"])),
    ]
    if zero_one:
        def put(args):
            i, v = args
            arr = base.astype(float)
            arr.flat[i % arr.size] = v
            return arr
        out.append(_tagged(OUT_OF_RANGE, st.tuples(st.integers(0, 10_000),
                                                   st.sampled_from([2, -1, 0.5])).map(put)))
    return st.one_of(*out)


def _paired(base: np.ndarray, *, fixed_shape: bool = False) -> st.SearchStrategy:
    base = np.asarray(base)
    out = [
        _with_nan(base),
        _tagged(WRONG_TYPE, st.sampled_from(["abc", None, ["x"] * base.size])),
        _tagged(MISMATCH, st.just(base.ravel()[:-1])),
        _tagged(EMPTY, st.just([])),
    ]
    if not fixed_shape:
        out.append(_tagged(SHAPE, st.just(np.column_stack([base, base]))))
    return st.one_of(*out)


def _unit_vector(base: np.ndarray, *, empty: bool = True, shape: bool = True, nan: bool = True
                 ) -> st.SearchStrategy:
    """Bad p-values or proportions; ``empty``/``shape``/``nan`` off where an empty family,
    any shape (elementwise functions) or NaN (documented as "not tested") is valid."""
    def put(args):
        i, v = args
        arr = np.array(base, dtype=float)
        arr.flat[i % arr.size] = v
        return arr

    return st.one_of(
        _tagged(NAN, st.integers(0, 100).map(lambda i: put((i, np.nan if nan else np.inf)))),
        _tagged(OUT_OF_RANGE, st.tuples(st.integers(0, 100), st.one_of(
            st.floats(min_value=1.0001, max_value=1e300), st.floats(max_value=-1e-9,
                                                                     min_value=-1e300))).map(put)),
        *([_tagged(EMPTY, st.just([]))] if empty else []),
        *([_tagged(SHAPE, st.just(np.full((2, 2), 0.5)))] if shape else []),
        _tagged(WRONG_TYPE, st.sampled_from(["abc", None, ["a", "b"]])),
    )


def _probability(*, closed: bool = False, high_closed: bool | None = None,
                 array_ok: bool = False) -> st.SearchStrategy:
    """Bad values for a probability in (0, 1), or [0, 1] when ``closed``; ``high_closed``
    for (0, 1]; ``array_ok`` for vectorised functions, where a list of values is valid."""
    high_closed = closed if high_closed is None else high_closed
    low = st.floats(max_value=-1e-9 if closed else 0.0, allow_nan=False)
    high = st.floats(min_value=1.0 + 1e-9 if high_closed else 1.0, allow_nan=False)
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.one_of(low, high)),
        _tagged(NAN, st.sampled_from([np.nan])),
        _tagged(WRONG_TYPE, st.sampled_from(["0.5", None, True] + ([] if array_ok else [[0.5]]))),
    )


def _correlation(*, array_ok: bool = False) -> st.SearchStrategy:
    """Bad values for a correlation in [-1, 1]."""
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.one_of(st.floats(min_value=1 + 1e-9, allow_nan=False),
                                        st.floats(max_value=-1 - 1e-9, allow_nan=False))),
        _tagged(NAN, st.just(np.nan)),
        _tagged(WRONG_TYPE, st.sampled_from(["0.5", None, True] + ([] if array_ok else [[0.5]]))),
    )


def _count_param(minimum: int = 1, *, none_ok: bool = False) -> st.SearchStrategy:
    wrong = ["10", [3], True] + ([] if none_ok else [None])
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.integers(max_value=minimum - 1, min_value=-10**9)),
        _tagged(NON_INTEGER, st.floats(min_value=minimum + 0.1, max_value=1e6).filter(
            lambda v: v != int(v))),
        _tagged(NAN, st.sampled_from([np.nan, np.inf])),
        _tagged(WRONG_TYPE, st.sampled_from(wrong)),
    )


def _positive_real(*, none_ok: bool = False) -> st.SearchStrategy:
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.floats(max_value=0.0, allow_nan=False)),
        _tagged(NAN, st.sampled_from([np.nan, np.inf])),
        _tagged(WRONG_TYPE, st.sampled_from(["0.5", [0.5]] + ([] if none_ok else [None]))),
    )


def _nonnegative_real() -> st.SearchStrategy:
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.floats(max_value=-1e-9, allow_nan=False)),
        _tagged(NAN, st.sampled_from([np.nan, np.inf])),
        _tagged(WRONG_TYPE, st.sampled_from(["0.5", None, [0.5]])),
    )


def _choice(valid: tuple, *, none_ok: bool = False) -> st.SearchStrategy:
    wrong = [3, 2.5, ["holm"]] + ([] if none_ok else [None])
    return st.one_of(
        _tagged(UNKNOWN, st.text(max_size=12).filter(lambda s: s not in valid)),
        _tagged(WRONG_TYPE, st.sampled_from(wrong)),
    )


def _choices(valid: tuple) -> st.SearchStrategy:
    return st.one_of(
        _tagged(UNKNOWN, st.text(min_size=1, max_size=12).filter(lambda s: s not in valid).map(
            lambda s: (s,))),
        _tagged(WRONG_TYPE, st.sampled_from([3, None])),
    )


def _flag() -> st.SearchStrategy:
    return _tagged(WRONG_TYPE, st.sampled_from(["yes", "no", 2, [True], None]))


def _seed() -> st.SearchStrategy:
    return st.one_of(_tagged(WRONG_TYPE, st.sampled_from(["seed", 2.5, [1.5], object()])),
                     _tagged(OUT_OF_RANGE, st.integers(max_value=-1, min_value=-10**6)))


def _label(valid_labels) -> st.SearchStrategy:
    return _tagged(OUT_OF_RANGE, st.sampled_from([7, "zzz", -1, 2.5]).filter(
        lambda v: v not in valid_labels))


def _label_list() -> st.SearchStrategy:
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.sampled_from([[0, 0, 1], [5, 6], [1]])),
        _tagged(WRONG_TYPE, st.sampled_from([5, "ab"])),
    )


def _frame(base: pd.DataFrame) -> st.SearchStrategy:
    return st.one_of(
        _tagged(WRONG_TYPE, st.sampled_from([5, "abc", None, base.to_numpy()])),
        _tagged(EMPTY, st.just(base.iloc[0:0])),
        _tagged(SHAPE, st.sampled_from([base.drop(columns=["model"]),
                                        base.drop(columns=["y_pred"])])),
        _tagged(NAN, st.integers(0, len(base) - 1).map(
            lambda i: base.assign(y_true=base["y_true"].astype(float).where(
                base.index != i, np.nan)))),
    )


def _name_in(valid) -> st.SearchStrategy:
    return _tagged(OUT_OF_RANGE, st.sampled_from(["nope", 3]).filter(lambda v: v not in valid))


def _codes(base: np.ndarray, *, n_classes: int | None = None, columns: bool = True,
           none_ok: bool = False) -> st.SearchStrategy:
    """Bad arrays of codes (whole numbers 0..K-1, one row per pattern); ``n_classes`` where K
    is known, so a code K is out of range; ``columns`` off where a table of one column per
    model is valid; ``none_ok`` for an optional array."""
    base = np.asarray(base)

    def put(value):
        def f(i):
            arr = base.astype(float)
            arr.flat[i % arr.size] = value
            return arr
        return f

    def shift(delta):
        def f(i):
            arr = base.astype(float)
            arr.flat[i % arr.size] += delta
            return arr
        return f

    high = [] if n_classes is None else [_tagged(OUT_OF_RANGE, st.integers(0, 100).map(
        put(n_classes)))]
    wider = base[..., None] if base.ndim == 2 else np.column_stack([base, base])
    return st.one_of(
        _tagged(NEGATIVE, st.integers(0, 100).map(put(-1))),
        _tagged(NON_INTEGER, st.integers(0, 100).map(shift(0.5))),
        *high,
        _with_nan(base),
        _tagged(EMPTY, st.just([])),
        _tagged(MISMATCH, st.sampled_from([base[:-1], np.concatenate([base, base[:1]])])),
        *([_tagged(SHAPE, st.just(wider))] if columns else []),
        _tagged(WRONG_TYPE, st.sampled_from(["abc", 5, object()] + ([] if none_ok else [None]))),
    )


def _position(n: int, other: int) -> st.SearchStrategy:
    """Bad positions of a model among ``n`` (``other``: the position of the model it is
    compared with)."""
    return st.one_of(
        _tagged(OUT_OF_RANGE, st.sampled_from([n, n + 4, -1, other])),
        _tagged(NON_INTEGER, st.sampled_from([0.5, 1.5])),
        _tagged(NAN, st.sampled_from([np.nan, np.inf])),
        _tagged(WRONG_TYPE, st.sampled_from(["0", None, True, [0]])),
    )


def _prevalence_mapping() -> st.SearchStrategy:
    """Bad mappings class -> population prevalence (the valid data's classes are 0 and 1)."""
    return st.one_of(
        _tagged(WRONG_TYPE, st.sampled_from([5, 0.3, "abc", [0.3], {1: "0.3"}, {1: None},
                                             {1: [0.3]}])),
        _tagged(OUT_OF_RANGE, st.sampled_from([{"zzz": 0.3}, {7: 0.3}, {1: 1.5}, {1: -0.2}])),
        _tagged(NAN, st.sampled_from([{1: np.nan}, {0: np.inf}])),
    )


# --------------------------------------------------------------------------------------------
# One spec per public function: a valid call and the kind of each argument fuzzed
# --------------------------------------------------------------------------------------------


@dataclass
class Spec:
    call: dict[str, Any]
    kinds: dict[str, st.SearchStrategy]
    # Words a message may use for the argument instead of its name (e.g. the key of a mapping)
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)


PRED_NAMES = ("a", "b", "c")
LONG_WORDS = ("y_true", "y_pred", "model", " id")  # a long table's errors name its column
LABEL_ARGS = {"y_true": _labels(Y), "y_pred_a": _labels(A), "y_pred_b": _labels(B)}
METHODS_MC = ("exact", "midp", "chi2", "chi2_corrected")
ADJUST_METHODS = ("holm", "bonferroni", "fdr_bh", "none")  # precmp_lib.stats.multiple.ADJUST_METHODS
ALTERNATIVES = ("two-sided", "greater", "less")

SPECS: dict[str, Spec] = {
    # an empty family adjusts to an empty array; NaN marks a test not done (documented)
    "adjust_pvalues": Spec({"pvalues": [0.01, 0.2, 0.5], "method": "holm"},
                           {"pvalues": _unit_vector(np.array([0.01, 0.2, 0.5]), empty=False,
                                                    nan=False),
                            "method": _choice(("holm", "bonferroni", "fdr_bh", "none"))}),
    "as_label_array": Spec({"values": Y, "name": "y_true"}, {"values": _labels(Y, single=True)},
                           {"values": ("y_true",)}),
    "as_paired_scores": Spec({"scores_a": CV_A, "scores_b": CV_B},
                             {"scores_a": _paired(CV_A), "scores_b": _paired(CV_B)}),
    "as_score_matrix": Spec({"scores": SCORES}, {"scores": _matrix(SCORES)}),
    "as_unit_interval": Spec({"values": [0.1, 0.5], "name": "pvalues"},
                             {"values": _unit_vector(np.array([0.1, 0.5]), shape=False)},
                             {"values": ("pvalues",)}),
    "average_ranks": Spec({"scores": SCORES}, {"scores": _matrix(SCORES),
                                               "higher_is_better": _flag()}),
    "bayes_update_precision": Spec(
        {"y_true": Y, "y_pred": A, "prevalence": 0.3, "positive": 1, "n_resamples": 20,
         "random_state": 0},
        {"y_true": _labels(Y), "y_pred": _labels(A), "prevalence": _probability(closed=True),
         "positive": _label((0, 1)), "n_resamples": _count_param(0),
         "confidence_level": _probability(), "random_state": _seed(),
         "labels": _label_list()}),
    "bayes_correlated_ttest": Spec(
        {"scores_a": CV_A, "scores_b": CV_B, "rope": 0.01},
        {"scores_a": _paired(CV_A), "scores_b": _paired(CV_B), "rope": _nonnegative_real(),
         "runs": _count_param(1), "test_train_ratio": _positive_real(none_ok=True)}),
    "bayes_sign_test": Spec(
        {"x": CV_A, "y": CV_B, "rope": 0.01, "n_samples": 500, "random_state": 0},
        {"x": _paired(CV_A), "y": _paired(CV_B), "rope": _nonnegative_real(),
         "prior_strength": _nonnegative_real(), "prior_place": _choice(PRIOR_PLACES),
         "n_samples": _count_param(1), "random_state": _seed()}),
    "bayes_signed_rank_test": Spec(
        {"x": CV_A, "y": CV_B, "rope": 0.01, "n_samples": 500, "random_state": 0},
        {"x": _paired(CV_A), "y": _paired(CV_B), "rope": _nonnegative_real(),
         "prior_strength": _nonnegative_real(), "prior_place": _choice(PRIOR_PLACES),
         "n_samples": _count_param(1), "random_state": _seed()}),
    "binomial_test": Spec({"n_correct": 87, "n": 100, "reference": 0.8},
                          {"n_correct": _count_param(0), "n": _count_param(1),
                           "reference": _probability(),
                           "alternative": _choice(ALTERNATIVES),
                           "confidence_level": _probability()}),
    "bivariate_normal_cdf": Spec({"h": 0.3, "k": -0.2, "rho": 0.5},
                                 {"h": _tagged(WRONG_TYPE, st.sampled_from(["a", None])),
                                  "rho": _correlation(array_ok=True)}),
    "cells_from_tab_paired": Spec(
        dict(zip(["d_a", "d_b", "d_c", "d_d", "nd_a", "nd_b", "nd_c", "nd_d"],
                 [30, 4, 10, 6, 5, 3, 8, 60])),
        {k: st.one_of(_tagged(NEGATIVE, st.integers(max_value=-1)),
                      _tagged(NON_INTEGER, st.floats(0.1, 1e6).filter(lambda v: v != int(v))),
                      _tagged(NAN, st.sampled_from([np.nan, np.inf])),
                      _tagged(WRONG_TYPE, st.sampled_from(["abc", None])))
         for k in ["d_a", "nd_d"]},
        {"d_a": ("counts",), "nd_d": ("counts",)}),
    "check_bool": Spec({"value": True, "name": "weighted"}, {"value": _flag()},
                       {"value": ("weighted",)}),
    "check_random_state": Spec({"value": 3}, {"value": _seed()}, {"value": ("random_state",)}),
    "check_choice": Spec({"value": "exact", "name": "method", "choices": ("exact", "chi2")},
                         {"value": _choice(("exact", "chi2"))}, {"value": ("method",)}),
    "check_counts": Spec({"table": [[1, 2], [3, 4]], "shape": (2, 2)},
                         {"table": _counts(np.array([[1, 2], [3, 4]]))}),
    "check_positive_float": Spec({"value": 0.5, "name": "test_train_ratio"},
                                 {"value": _positive_real()}, {"value": ("test_train_ratio",)}),
    "check_positive_int": Spec({"value": 5, "name": "n_resamples"},
                               {"value": _count_param(1)}, {"value": ("n_resamples",)}),
    "check_probability": Spec({"value": 0.5, "name": "alpha"}, {"value": _probability()},
                              {"value": ("alpha",)}),
    "class_cells": Spec({"table": JOINT}, {"table": _counts(JOINT)}),
    "clustered_accuracy": Spec(
        {"correct": [3, 0, 3, 2, 1], "size": [3, 3, 3, 3, 2]},
        # out of range: more correct predictions than predictions in a cluster
        {"correct": st.one_of(_counts(np.array([3, 0, 3, 2, 1])),
                              _tagged(OUT_OF_RANGE, st.just([3, 0, 3, 4, 1]))),
         "size": st.one_of(_counts(np.array([3, 3, 3, 3, 2])),
                           _tagged(OUT_OF_RANGE, st.just([3, 3, 3, 1, 2]))),
         "confidence_level": _probability()}),
    "clustering_comparison": Spec({"long_table": LONG}, {"long_table": _frame(LONG),
                                                         "reference": _name_in(("a", "b"))},
                                  {"long_table": LONG_WORDS}),
    "cochrans_q": Spec({"correct": CORRECT}, {"correct": _matrix(CORRECT, zero_one=True)}),
    "combination_type1_error": Spec(
        {"correlations": [0.0, 0.5], "n_sim": 50, "random_state": 0},
        {"correlations": _unit_vector(np.array([0.0, 0.5])).filter(
            lambda cv: cv[0] != OUT_OF_RANGE), "n_tests": _count_param(2),
         "methods": _choices(COMBINE_METHODS), "n_sim": _count_param(1),
         "alpha": _probability(), "sides": _choice(("two-sided", "one-sided")),
         "random_state": _seed()}),
    "combine_pvalues": Spec(
        {"pvalues": [0.01, 0.2, 0.5], "method": "fisher"},
        {"pvalues": _unit_vector(np.array([0.01, 0.2, 0.5])),
         "method": _choice(COMBINE_METHODS)}),
    "combined_precision_table": Spec(
        {"predictions": {"toy": (Y, A, B)}, "n_resamples": 20, "random_state": 0},
        {"predictions": st.one_of(
            _tagged(WRONG_TYPE, st.sampled_from([5, None, {"toy": (Y, A)}])),
            _tagged(MISMATCH, st.just({"toy": (Y, A[:-3], B)})),
            _tagged(EMPTY, st.just({}))),
         "methods": _choices(("dai_cui", "fisher", "simes", "brown")),
         "n_resamples": _count_param(2), "weighted": _flag(), "random_state": _seed()},
        {"predictions": ("toy", "y_pred_a")}),
    "combined_precision_test": Spec(
        {"y_true": Y, "y_pred_a": A, "y_pred_b": B, "n_resamples": 20, "random_state": 0},
        {**LABEL_ARGS, "method": _choice(("dai_cui", "fisher", "simes", "brown")),
         "n_resamples": _count_param(2), "weighted": _flag(), "random_state": _seed(),
         "table": _counts(JOINT, none_ok=True), "labels": _label_list()}),
    "compare_models": Spec(
        {"source": WIDE, "y_true": "y", "n_boot": 20},
        {"y_true": st.one_of(_tagged(OUT_OF_RANGE, st.sampled_from(["nope", 3])),
                             _tagged(WRONG_TYPE, st.sampled_from([None, ["y"]]))),
         "layout": _choice(("auto", "wide", "long")),
         "reference": _name_in(PRED_NAMES), "alpha": _probability(),
         "prevalence": _prevalence_mapping(),
         "engine": _choice(("auto", "numpy", "duckdb", "spark")),
         "n_boot": _count_param(2), "seed": _seed()}),
    "count_predictions": Spec(
        {"source": WIDE, "y_true": "y"},
        {"y_true": st.one_of(_tagged(OUT_OF_RANGE, st.sampled_from(["nope", "z"])),
                             _tagged(WRONG_TYPE, st.sampled_from([None, ["y"], 3]))),
         "models": _tagged(OUT_OF_RANGE, st.sampled_from([["nope"], ["a", "nope"]])),
         "layout": _choice(("auto", "wide", "long")),
         "engine": _choice(("auto", "numpy", "duckdb", "spark"))}),
    "compare_precision": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                              {**LABEL_ARGS, "confidence_level": _probability(),
                               "labels": _label_list()}),
    "compare_precision_from_counts": Spec(
        {"counts": JOINT}, {"counts": _counts(JOINT), "confidence_level": _probability()},
        {"counts": ("table", "counts")}),
    "compare_precision_from_moments": Spec(
        {"moments": MOMENTS, "a": 0, "b": 1},
        {"moments": _tagged(WRONG_TYPE, st.sampled_from([JOINT, None, "abc",
                                                         pattern_counts(Y, PREDS)])),
         "a": _position(3, 1), "b": _position(3, 0), "confidence_level": _probability()}),
    "compare_updated_precision": Spec(
        {"y_true": Y, "y_pred_a": A, "y_pred_b": B, "prevalence": 0.3, "positive": 1,
         "n_resamples": 20, "random_state": 0},
        {**LABEL_ARGS, "prevalence": _probability(closed=True), "positive": _label((0, 1)),
         "n_resamples": _count_param(0), "confidence_level": _probability(),
         "random_state": _seed()}),
    "corrected_resampled_ttest": Spec(
        {"scores_a": CV_A, "scores_b": CV_B, "test_train_ratio": 0.25},
        {"scores_a": _paired(CV_A), "scores_b": _paired(CV_B),
         "test_train_ratio": _positive_real(), "alternative": _choice(ALTERNATIVES),
         "confidence_level": _probability()}),
    "correctness_matrix": Spec({"y_true": Y, "y_preds": PREDS},
                               {"y_true": _labels(Y), "y_preds": _prediction_mapping(PREDS)},
                               {"y_preds": PRED_NAMES}),
    "correlated_predictions": Spec(
        {"n": 50, "precision_a": 0.8, "precision_b": 0.7, "random_state": 0},
        {"n": _count_param(1), "precision_a": _probability(high_closed=True),
         "precision_b": _probability(high_closed=True),
         "correlation": _correlation(),
         "prevalence": _probability(), "recall_a": _probability(high_closed=True),
         "random_state": _seed()}),
    "critical_difference": Spec({"k": 4, "n_datasets": 10},
                                {"k": _count_param(2), "n_datasets": _count_param(2),
                                 "alpha": _probability(),
                                 "method": _choice(("nemenyi", "bonferroni_dunn"))}),
    "encode_labels": Spec({"y_true": Y, "predictions": PREDS},
                          {"y_true": _labels(Y), "predictions": _prediction_mapping(PREDS),
                           "labels": _label_list()},
                          {"predictions": PRED_NAMES}),
    "friedman": Spec({"scores": SCORES}, {"scores": _matrix(SCORES),
                                          "higher_is_better": _flag(), "tie_correction": _flag(),
                                          "n_datasets": _count_param(1, none_ok=True)}),
    "ftest_5x2cv": Spec({"scores_a": FIVE_A, "scores_b": FIVE_B},
                        {"scores_a": _paired(FIVE_A, fixed_shape=True),
                         "scores_b": _paired(FIVE_B, fixed_shape=True)}),
    "ftest_looney": Spec({"y_true": Y, "predictions": PREDS},
                         {"y_true": _labels(Y), "predictions": _prediction_mapping(PREDS)},
                         {"predictions": PRED_NAMES}),
    "gee_from_long": Spec({"long_table": LONG}, {"long_table": _frame(LONG),
                                                 "cluster": _name_in(("id",)),
                                                 "reference": _name_in(("a", "b")),
                                                 "confidence_level": _probability()},
                          {"long_table": LONG_WORDS}),
    "gee_precision": Spec({"y_true": Y, "y_preds": PREDS},
                          {"y_true": _labels(Y), "y_preds": _prediction_mapping(PREDS),
                           "reference": _name_in(PRED_NAMES), "groups": _labels(Y, none_ok=True),
                           "confidence_level": _probability(), "labels": _label_list()},
                          {"y_preds": PRED_NAMES}),
    "gee_precision_from_counts": Spec(
        {"counts": pattern_counts(Y, PREDS)},
        {"counts": _tagged(WRONG_TYPE, st.sampled_from([JOINT, None, "abc", {"a": 1}])),
         "reference": _name_in(PRED_NAMES), "confidence_level": _probability()}),
    "gs_from_cells": Spec({"cells": CELLS}, {"cells": _counts(CELLS), "weighted": _flag()}),
    "gs_test": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                    {**LABEL_ARGS, "positive": _label((0, 1)), "weighted": _flag()}),
    "gw_from_cells": Spec({"cells": CELLS}, {"cells": _counts(CELLS),
                                             "confidence_level": _probability()}),
    "gw_test": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                    {**LABEL_ARGS, "positive": _label((0, 1)),
                     "confidence_level": _probability()}),
    "iman_davenport": Spec({"scores": SCORES}, {"scores": _matrix(SCORES),
                                                "higher_is_better": _flag(),
                                                "tie_correction": _flag(),
                                                "n_datasets": _count_param(1, none_ok=True)}),
    "joint_confusion": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                            {**LABEL_ARGS, "labels": _label_list()}),
    "lancaster_covariance": Spec({"correlation": 0.5},
                                 {"correlation": _correlation(array_ok=True),
                                  "weights": _tagged(OUT_OF_RANGE, st.sampled_from(
                                      [(0, 2), (-1, 2), (2,), (np.nan, 2), "ab"])),
                                  "sides": _choice(("two-sided", "one-sided"))}),
    "mcnemar": Spec({"table": [[30, 12], [4, 6]]},
                    {"table": _counts(np.array([[30, 12], [4, 6]])),
                     "method": _choice(METHODS_MC), "confidence_level": _probability()}),
    "mcnemar_pvalue_grid": Spec({"max_b": 5}, {"max_b": _count_param(0),
                                               "max_c": _count_param(0, none_ok=True)}),
    "mcnemar_table": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B}, dict(LABEL_ARGS)),
    "model_pairs": Spec({"models": list(PRED_NAMES)},
                        {"models": st.one_of(
                            _tagged(WRONG_TYPE, st.sampled_from([5, None, "abc"])),
                            _tagged(EMPTY, st.just([])),
                            _tagged(OUT_OF_RANGE, st.sampled_from([["a"], ["a", "a", "b"]]))),
                         "reference": _name_in(PRED_NAMES)}),
    "moments_from_patterns": Spec(
        {"y": PAT_Y, "preds": PAT_P, "weights": PAT_W, "classes": [0, 1], "names": ["a", "b"],
         "clusters": PAT_G},
        {"y": _codes(PAT_Y, n_classes=2),
         "preds": st.one_of(_codes(PAT_P, n_classes=2), _tagged(SHAPE, st.just(PAT_P[:, :1]))),
         "weights": _counts(PAT_W),
         "classes": st.one_of(_tagged(WRONG_TYPE, st.sampled_from([5, None, "ab"])),
                              _tagged(EMPTY, st.just([])),
                              _tagged(OUT_OF_RANGE, st.sampled_from([[0], [0, 0]]))),
         "names": st.one_of(_tagged(WRONG_TYPE, st.sampled_from([5, None, "ab"])),
                            _tagged(MISMATCH, st.sampled_from([["a"], ["a", "b", "c"]])),
                            _tagged(OUT_OF_RANGE, st.just(["a", "a"]))),
         "clusters": _codes(PAT_G, none_ok=True)}),
    "naive_rp_from_cells": Spec({"cells": CELLS}, {"cells": _counts(CELLS),
                                                   "confidence_level": _probability()}),
    "naive_z_from_cells": Spec({"cells": CELLS}, {"cells": _counts(CELLS)}),
    "nemenyi": Spec({"scores": SCORES}, {"scores": _matrix(SCORES), "alpha": _probability(),
                                         "higher_is_better": _flag(),
                                         "n_datasets": _count_param(1, none_ok=True)}),
    "pair_cells_from_patterns": Spec(
        {"y": PAT_Y, "a": PAT_P[:, 0], "b": PAT_P[:, 1], "weights": PAT_W, "n_classes": 2},
        {"y": _codes(PAT_Y, n_classes=2), "a": _codes(PAT_P[:, 0], n_classes=2),
         "b": _codes(PAT_P[:, 1], n_classes=2), "weights": _counts(PAT_W),
         "n_classes": _count_param(1)}),
    "paired_cell_probabilities": Spec(
        {"precision_a": 0.8, "precision_b": 0.7},
        {"precision_a": _probability(high_closed=True, array_ok=True),
         "precision_b": _probability(high_closed=True, array_ok=True),
         "correlation": _correlation(array_ok=True),
         "prevalence": _probability(array_ok=True),
         "recall_a": _probability(high_closed=True, array_ok=True)}),
    "paired_ttest_kfold": Spec({"scores_a": CV_A, "scores_b": CV_B},
                               {"scores_a": _paired(CV_A), "scores_b": _paired(CV_B),
                                "alternative": _choice(ALTERNATIVES),
                                "confidence_level": _probability()}),
    "paired_ttest_resampled": Spec({"scores_a": CV_A, "scores_b": CV_B},
                                   {"scores_a": _paired(CV_A), "scores_b": _paired(CV_B),
                                    "alternative": _choice(ALTERNATIVES),
                                    "confidence_level": _probability()}),
    "pairwise_corrected_ttest": Spec({"scores": SCORES, "test_train_ratio": 0.25},
                                     {"scores": _matrix(SCORES),
                                      "test_train_ratio": _positive_real(),
                                      "adjust": _choice(ADJUST_METHODS),
                                      "alpha": _probability()}),
    "pairwise_mcnemar": Spec({"y_true": Y, "y_preds": PREDS},
                             {"y_true": _labels(Y), "y_preds": _prediction_mapping(PREDS),
                              "method": _choice(METHODS_MC), "adjust": _choice(ADJUST_METHODS),
                              "alpha": _probability()},
                             {"y_preds": PRED_NAMES}),
    "pairwise_rank_tests": Spec({"scores": SCORES}, {"scores": _matrix(SCORES),
                                                     "method": _choice(("nemenyi",)),
                                                     "alpha": _probability(),
                                                     "higher_is_better": _flag()}),
    "pattern_counts": Spec({"y_true": Y, "y_preds": PREDS},
                           {"y_true": _labels(Y), "y_preds": _prediction_mapping(PREDS),
                            "labels": _label_list()},
                           {"y_preds": PRED_NAMES}),
    "precision_cells": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B, "positive": 1},
                            {**LABEL_ARGS, "positive": _label((0, 1))}),
    "precision_moments": Spec({"y_true": Y, "y_preds": PREDS},
                              {"y_true": _labels(Y), "y_preds": _prediction_mapping(PREDS),
                               "groups": _labels(Y, none_ok=True), "labels": _label_list()},
                              {"y_preds": PRED_NAMES}),
    "precision_test_from_cells": Spec(
        {"cells": CELLS}, {"cells": _counts(CELLS),
                           "method": _choice(("gs", "wgs", "gw", "wald", "rp")),
                           "confidence_level": _probability()}),
    # takes probabilities or expected counts as well as counts
    "prediction_correlation": Spec({"cells": CELLS}, {"cells": _counts(CELLS, integer=False)}),
    # the counts come from an engine's tables (prevalence_bootstrap_from_patterns and the report
    # call it); the level is the argument a user sets
    "repeated_answers_plan": Spec(
        {"between": 0.04, "within": 0.12, "answers": 4, "n_items": 500},
        {"between": _nonnegative_real(), "within": _nonnegative_real(),
         "answers": _positive_real(), "n_items": _positive_real(),
         "design_effect": _positive_real(), "power": _probability(),
         "alpha": _probability()}),
    "prevalence_interval": Spec({"tp": 8, "positives": 10, "fp": 1, "negatives": 20,
                                 "prevalence": 0.2}, {"confidence_level": _probability()}),
    "prevalence_adjusted_precision": Spec(
        {"sensitivity": 0.8, "specificity": 0.9, "prevalence": 0.2},
        # elementwise: arrays of any shape are valid
        {name: _unit_vector(np.array([v]), shape=False)
         for name, v in (("sensitivity", 0.8), ("specificity", 0.9), ("prevalence", 0.2))}),
    "prevalence_bootstrap": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B, "n_resamples": 20,
                                  "random_state": 0},
                                 {**LABEL_ARGS, "y_pred_b": _labels(B, none_ok=True),
                                  "n_resamples": _count_param(1),
                                  "random_state": _seed(), "labels": _label_list()}),
    "prevalence_bootstrap_from_patterns": Spec(
        {"y": PAT_Y, "preds": PAT_P, "weights": PAT_W, "classes": [1], "prevalence": [0.1],
         "clusters": PAT_G, "n_resamples": 20, "random_state": 0},
        {"y": _codes(PAT_Y), "preds": _codes(PAT_P), "weights": _counts(PAT_W),
         "classes": st.one_of(_tagged(WRONG_TYPE, st.sampled_from([5, None, "ab"])),
                              _tagged(EMPTY, st.just([])),
                              _tagged(NON_INTEGER, st.just([0.5])),
                              _tagged(NEGATIVE, st.just([-1])),
                              _tagged(MISMATCH, st.just([0, 1]))),
         "prevalence": _unit_vector(np.array([0.1])), "clusters": _codes(PAT_G, none_ok=True),
         "n_resamples": _count_param(1), "confidence_level": _probability(),
         "random_state": _seed()}),
    "prevalence_bootstrap_from_profiles": Spec(
        {"profiles": class_profiles(PAT_G, PAT_Y, PAT_P, PAT_W, classes=[1]),
         "prevalence": [0.1], "n_resamples": 20, "random_state": 0},
        {"profiles": st.one_of(
            _tagged(WRONG_TYPE, st.sampled_from([5, None, "ab", PAT_W])),
            _tagged(EMPTY, st.just(ClassProfiles(
                classes=(1,), size=np.zeros(0, np.int64), true=np.zeros((0, 1), np.int64),
                called=np.zeros((0, 1, 2), np.int64), hit=np.zeros((0, 1, 2), np.int64),
                count=np.zeros(0, np.int64))))),
         "prevalence": _unit_vector(np.array([0.1])), "n_resamples": _count_param(1),
         "confidence_level": _probability(), "random_state": _seed()}),
    "proportions_test": Spec({"n_correct_a": 85, "n_correct_b": 78, "n": 100},
                             {"n_correct_a": _count_param(0), "n_correct_b": _count_param(0),
                              "n": _count_param(1), "n_b": _count_param(1, none_ok=True),
                              "alternative": _choice(ALTERNATIVES),
                              "confidence_level": _probability()}),
    "rank_cliques": Spec(
        {"ranks": pd.Series([1.5, 2.0, 2.5], index=list("xyz")),
         "significant": pd.DataFrame(False, index=list("xyz"), columns=list("xyz"))},
        {"ranks": _tagged(WRONG_TYPE, st.sampled_from([5, "abc", None, [np.nan, 1.0, 2.0]])),
         "significant": _tagged(SHAPE, st.sampled_from(
             [5, None, pd.DataFrame(False, index=list("xy"), columns=list("xy"))]))}),
    "rank_matrix": Spec({"scores": SCORES}, {"scores": _matrix(SCORES),
                                             "higher_is_better": _flag()}),
    "replicability": Spec({"outcomes": [True, False, True, True]},
                          {"outcomes": st.one_of(
                              _tagged(EMPTY, st.just([])),
                              _tagged(OUT_OF_RANGE, st.sampled_from([[2, 0, 1], [0.5, 1]])),
                              _tagged(NAN, st.just([1, np.nan])),
                              _tagged(SHAPE, st.just([[1, 0], [0, 1]])),
                              _tagged(WRONG_TYPE, st.sampled_from(["abc", None, 5])))}),
    "replicability_pvalues": Spec({"pvalues": [0.01, 0.2, 0.03, 0.5]},
                                  {"pvalues": _unit_vector(np.array([0.01, 0.2, 0.03, 0.5]))}),
    "resampling_test_guide": Spec({}, {"rates": _tagged(WRONG_TYPE, st.sampled_from(
        [5, "abc", pd.DataFrame({"x": [1]})]))}),
    "rp_from_cells": Spec({"cells": CELLS}, {"cells": _counts(CELLS),
                                             "confidence_level": _probability()}),
    "rp_test": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                    {**LABEL_ARGS, "positive": _label((0, 1)),
                     "confidence_level": _probability()}),
    # S(1) = {0} is the base case of the recursion
    "shaffer_true_hypotheses": Spec({"k": 4}, {"k": _count_param(1)}),
    "simulate_cells": Spec({"n": 50, "precision_a": 0.8, "precision_b": 0.7, "n_sim": 3,
                            "random_state": 0},
                           {"n": _count_param(1),
                            "precision_a": _probability(high_closed=True, array_ok=True),
                            "precision_b": _probability(high_closed=True, array_ok=True),
                            "prevalence": _probability(array_ok=True),
                            "n_sim": _count_param(1), "random_state": _seed()}),
    "swap_permutation_null": Spec({"table": JOINT, "n_resamples": 20, "random_state": 0},
                                  {"table": _counts(JOINT), "n_resamples": _count_param(1),
                                   "weighted": _flag(), "random_state": _seed()}),
    "tests_against_control": Spec({"scores": SCORES}, {"scores": _matrix(SCORES),
                                                       "control": _name_in(("clf_0",)),
                                                       "method": _choice(("holm",)),
                                                       "alpha": _probability()}),
    "to_wide": Spec({"long_table": LONG}, {"long_table": _frame(LONG)},
                    {"long_table": LONG_WORDS}),
    "ttest_5x2cv": Spec({"scores_a": FIVE_A, "scores_b": FIVE_B},
                        {"scores_a": _paired(FIVE_A, fixed_shape=True),
                         "scores_b": _paired(FIVE_B, fixed_shape=True),
                         "alternative": _choice(ALTERNATIVES)}),
    "wald_from_cells": Spec({"cells": CELLS}, {"cells": _counts(CELLS),
                                               "confidence_level": _probability()}),
    "wald_test": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                      {**LABEL_ARGS, "positive": _label((0, 1)),
                       "confidence_level": _probability()}),
    "as_prediction_mapping": Spec(
        {"y_preds": PREDS},
        {"y_preds": st.one_of(_tagged(WRONG_TYPE, st.sampled_from([5, "abc", None, object()])),
                              _tagged(SHAPE, st.just(A)))}),
    "check_choices": Spec(
        {"values": ["fisher"], "name": "methods", "choices": COMBINE_METHODS},
        {"values": _choices(COMBINE_METHODS).filter(lambda cv: cv[1] is not None)},
        {"values": ("methods",)}),
    "check_pattern_codes": Spec({"values": PAT_Y, "name": "y", "n_classes": 2},
                                {"values": _codes(PAT_Y, n_classes=2, columns=False).filter(
                                    lambda cv: cv[0] != MISMATCH)},
                                {"values": ("y",)}),
    "class_moments": Spec(
        {"right": CELL_RIGHT, "wrong": CELL_WRONG, "classes": [1, 1, 0], "n_classes": 2},
        {"right": _counts(CELL_RIGHT), "wrong": _counts(CELL_WRONG),
         "classes": _codes(np.array([1, 1, 0]), n_classes=2, columns=False),
         "n_classes": _count_param(1)}),
    "check_pattern_weights": Spec({"weights": PAT_W, "n_rows": len(PAT_W)},
                                  {"weights": _counts(PAT_W)}),
    "combine_pvalue_rows": Spec(
        {"pvalues": [[0.01, 0.2, 0.5], [0.3, 0.4, 0.9]], "method": "dai_cui",
         "correlation": np.full((3, 3), 0.5) + 0.5 * np.eye(3)},
        {"pvalues": _unit_vector(np.array([0.01, 0.2, 0.5]), shape=False),
         "method": _choice(COMBINE_METHODS),
         "correlation": _tagged(SHAPE, st.sampled_from([np.eye(2), [[1.0, 2.0], [2.0, 1.0]],
                                                        "abc"])),
         "sides": _choice(("two-sided", "one-sided"))}),
    "cv5x2_pvalues": Spec({"differences": FIVE_A - FIVE_B},
                          {"differences": _tagged(SHAPE, st.sampled_from(
                              [CV_A, np.zeros((5, 3)), np.zeros((4, 2)), 5]))}),
    "joint_confusion_or_cells": Spec({"y_true": Y, "y_pred_a": A, "y_pred_b": B},
                                     {**LABEL_ARGS, "labels": _label_list()}),
    "percentile_interval": Spec(
        {"boot": np.linspace(0, 1, 20)[:, None], "level": 0.9},
        {"level": _probability()}),
    "r_sample": Spec({"n": 10, "size": 5, "seed": 123},
                     {"n": _count_param(1), "size": st.one_of(
                         _count_param(0), _tagged(OUT_OF_RANGE, st.integers(11, 100)))}),
    "rank_data": Spec({"scores": SCORES}, {"scores": _matrix(SCORES), "higher_is_better": _flag(),
                                           "n_datasets": _count_param(2, none_ok=True)}),
    "resampled_t_pvalues": Spec(
        {"differences": CV_A - CV_B, "test_train_ratio": 0.25},
        {"differences": _tagged(SHAPE, st.sampled_from([CV_A[:1], 5.0, np.zeros((3, 1))])),
         # 0 is valid here: the uncorrected test
         "test_train_ratio": _positive_real().filter(lambda cv: cv[1] != 0),
         "alternative": _choice(ALTERNATIVES)}),
    "wilcoxon": Spec({"x": CV_A, "y": CV_B},
                     {"x": _paired(CV_A), "y": _paired(CV_B),
                      "method": _choice(("auto", "exact", "normal")), "correction": _flag(),
                      "zero_method": _choice(("wilcox", "pratt", "zsplit")),
                      "alternative": _choice(ALTERNATIVES)}),
}


# Paired comparisons on evaluation items and power (precmp_lib.stats.paired, precmp_lib.stats.power)
ITEM_A = A.astype(float)
ITEM_B = B.astype(float)
ITEM_CLUSTERS = np.arange(40) % 10
ANSWER_ITEMS = np.repeat(np.arange(20), 2)
ONLY_A, ONLY_B, SIZES = np.array([2, 0, 1, 3]), np.array([0, 1, 1, 0]), np.array([4, 3, 2, 5])
PAIRED_SUMS = pc.stats.paired.PairedSums.from_scores(ITEM_A, ITEM_B, ITEM_CLUSTERS)


def _real_number(*, none_ok: bool = False) -> st.SearchStrategy:
    """Bad values for any finite real number."""
    return st.one_of(_tagged(NAN, st.sampled_from([np.nan, np.inf, -np.inf])),
                     _tagged(WRONG_TYPE, st.sampled_from(
                         ["0.5", [0.5], True] + ([] if none_ok else [None]))))


def _zero_one_scores(base: np.ndarray) -> st.SearchStrategy:
    def put(args):
        i, v = args
        arr = base.astype(float)
        arr[i % arr.size] = v
        return arr
    return st.one_of(_labels(base), _tagged(OUT_OF_RANGE, st.tuples(
        st.integers(0, 1000), st.sampled_from([2, -1, 0.5])).map(put)))


_SUMS_ARG = _tagged(WRONG_TYPE, st.sampled_from([5, None, "abc", {"n_items": 40}, JOINT]))
_CLUSTER_DESIGN = {"n_clusters": _positive_real(none_ok=True), "icc": _probability(closed=True),
                   "design_effect": _positive_real(none_ok=True), "alpha": _probability(),
                   "alternative": _choice(ALTERNATIVES)}
SPECS.update({
    "clustered_mcnemar": Spec(
        {"correct_a": A, "correct_b": B, "clusters": ITEM_CLUSTERS},
        {"correct_a": _zero_one_scores(A), "correct_b": _zero_one_scores(B),
         "clusters": _labels(ITEM_CLUSTERS), "method": _choice(("obuchowski", "durkalski")),
         "confidence_level": _probability()}),
    "clustered_mcnemar_from_counts": Spec(
        {"only_a": ONLY_A, "only_b": ONLY_B, "size": SIZES},
        {"only_a": _counts(ONLY_A), "only_b": _counts(ONLY_B), "size": _counts(SIZES),
         "method": _choice(("obuchowski", "durkalski")), "confidence_level": _probability()}),
    "clustered_mcnemar_from_sums": Spec(
        {"sum_d": -6, "sum_d2": 12, "n_clusters": 21, "n_items": 51},
        {"sum_d": _real_number(), "sum_d2": st.one_of(
            _real_number(), _tagged(OUT_OF_RANGE, st.sampled_from([-1.0, 0.5]))),
         "n_clusters": _count_param(2), "n_items": _count_param(1),
         "method": _choice(("obuchowski", "durkalski")),
         "difference": st.one_of(_real_number(none_ok=True),
                                 _tagged(OUT_OF_RANGE, st.sampled_from([1.5, -2.0])))}),
    "paired_difference": Spec(
        {"scores_a": ITEM_A, "scores_b": ITEM_B, "clusters": ITEM_CLUSTERS},
        {"scores_a": _paired(ITEM_A), "scores_b": _paired(ITEM_B),
         "clusters": _labels(ITEM_CLUSTERS, none_ok=True), "confidence_level": _probability(),
         "alternative": _choice(ALTERNATIVES)}),
    "paired_difference_from_sums": Spec(
        {"sums": PAIRED_SUMS},
        {"sums": _SUMS_ARG, "confidence_level": _probability(),
         "alternative": _choice(ALTERNATIVES)}),
    "equivalence_test": Spec(
        {"scores_a": ITEM_A, "scores_b": ITEM_B, "margin": 0.1, "clusters": ITEM_CLUSTERS},
        {"scores_a": _paired(ITEM_A), "scores_b": _paired(ITEM_B), "margin": _positive_real(),
         "clusters": _labels(ITEM_CLUSTERS, none_ok=True), "alpha": _probability()}),
    "equivalence_test_from_sums": Spec(
        {"sums": PAIRED_SUMS, "margin": 0.1},
        {"sums": _SUMS_ARG, "margin": _positive_real(), "alpha": _probability()}),
    "repeated_answers": Spec(
        {"scores": ITEM_A, "items": ANSWER_ITEMS},
        {"scores": _paired(ITEM_A), "items": _labels(ANSWER_ITEMS)}),
    "repeated_answers_from_sums": Spec(
        {"n_items": 4, "n_answers": 20, "sum_mean": 2.6, "sum_mean2": 2.04, "sum_within": 0.7,
         "sum_within_over_k": 0.14},
        {"n_items": _count_param(2), "n_answers": _count_param(8),
         "sum_mean": _real_number(), "sum_mean2": _real_number(),
         "sum_within": st.one_of(_real_number(), _tagged(NEGATIVE, st.just(-0.5))),
         "sum_within_over_k": st.one_of(_real_number(), _tagged(OUT_OF_RANGE, st.just(0.5)))}),
    "mcnemar_power": Spec(
        {"n": 500, "p_a_only": 0.15, "p_b_only": 0.1},
        {"n": _positive_real(), "p_a_only": _probability(closed=True),
         "p_b_only": _probability(closed=True), "alpha": _probability(),
         "alternative": _choice(ALTERNATIVES), "method": _choice(("normal", "exact"))}),
    "mcnemar_sample_size": Spec(
        {"p_a_only": 0.15, "p_b_only": 0.1},
        {"p_a_only": _probability(closed=True), "p_b_only": _probability(closed=True),
         "power": _probability(), "alpha": _probability(),
         "alternative": _choice(ALTERNATIVES)}),
    "design_effect": Spec({"cluster_size": 10, "icc": 0.1},
                          {"cluster_size": _positive_real(), "icc": _probability(closed=True)}),
    "paired_power": Spec(
        {"n_items": 2000, "difference": 0.03, "sd": 0.5, "n_clusters": 200, "icc": 0.1},
        {"n_items": _positive_real(), "difference": _real_number(), "sd": _positive_real(),
         **_CLUSTER_DESIGN}),
    "minimum_detectable_difference": Spec(
        {"n_items": 2000, "sd": 0.5, "n_clusters": 200, "icc": 0.1},
        {"n_items": _positive_real(), "sd": _positive_real(), "power": _probability(),
         **_CLUSTER_DESIGN}),
    "paired_sample_size": Spec(
        {"difference": 0.03, "sd": 0.5, "cluster_size": 10, "icc": 0.1},
        {"difference": _real_number(), "sd": _positive_real(),
         "cluster_size": _positive_real(none_ok=True), "n_clusters": _positive_real(none_ok=True),
         "icc": _probability(closed=True), "design_effect": _positive_real(none_ok=True),
         "power": _probability(), "alpha": _probability(), "alternative": _choice(ALTERNATIVES)}),
    "corrected_ttest_power": Spec(
        {"difference": 0.01, "sd": 0.02, "n_folds": 10, "n_repeats": 2},
        {"difference": _real_number(), "sd": _positive_real(), "n_folds": _count_param(2),
         "n_repeats": _count_param(1), "test_train_ratio": _positive_real(none_ok=True),
         "alpha": _probability(), "alternative": _choice(ALTERNATIVES)}),
})


def _real_count(*, above: float | None = None) -> st.SearchStrategy:
    """Bad values for a count that may be fractional (an effective sample size); ``above``:
    values larger than that are out of range too (more successes than trials)."""
    return st.one_of(
        _tagged(NEGATIVE, st.floats(max_value=-1e-9, min_value=-1e300)),
        _tagged(NAN, st.sampled_from([np.nan, np.inf])),
        _tagged(WRONG_TYPE, st.sampled_from(["abc", object(), None])),
        *([_tagged(OUT_OF_RANGE, st.floats(min_value=above + 1e-6, max_value=1e6))]
          if above is not None else []),
    )


BINOMIAL_METHODS = ("exact", "midp")  # precmp_lib.stats.intervals.INTERVAL_METHODS
# Intervals, Holm's levels and what a pair of models detects (stats.intervals, stats.multiple,
# stats.power)
SPECS.update({
    "wilson_interval": Spec(
        {"successes": 8, "trials": 10},
        {"successes": _real_count(above=10), "trials": st.one_of(
            _real_count(), _tagged(OUT_OF_RANGE, st.floats(min_value=0, max_value=7.9))),
         "confidence_level": _probability()}),
    "binomial_interval": Spec(
        {"successes": 8, "trials": 10},
        {"successes": _count_param(0), "trials": _count_param(1),
         "confidence_level": _probability(), "method": _choice(BINOMIAL_METHODS)}),
    "mcnemar_dual_interval": Spec(
        {"b": 25, "c": 15, "n": 10_000},
        {"b": _count_param(0), "c": _count_param(0), "n": _count_param(1),
         "confidence_level": _probability(), "method": _choice(BINOMIAL_METHODS)}),
    # NaN marks a test not done and an empty family has no levels (documented)
    "holm_levels": Spec({"pvalues": [0.01, 0.04, 0.03], "alpha": 0.1},
                        {"pvalues": _unit_vector(np.array([0.01, 0.04, 0.03]), empty=False,
                                                 nan=False),
                         "alpha": _probability()}),
    "minimum_detectable_difference_from_counts": Spec(
        {"b": 25, "c": 15, "n": 10_000},
        {"b": _count_param(0), "c": _count_param(0), "n": _count_param(1),
         "power": _probability(), "alpha": _probability()}),
    # a NaN end is an interval not estimable: the answer is NaN (documented)
    "minimum_detectable_difference_from_interval": Spec(
        {"ci_low": -0.01, "ci_high": 0.03, "df": 9},
        {"ci_low": _tagged(WRONG_TYPE, st.sampled_from(["0.5", [0.5], True, None])),
         "ci_high": _tagged(WRONG_TYPE, st.sampled_from(["0.5", [0.5], True, None])),
         "df": _positive_real(), "power": _probability(), "alpha": _probability()}),
})


def _item_frame() -> pd.DataFrame:
    """One row per answer: 20 items of 10 passages in two tasks, models a, b, c, 0/1 scores."""
    rows = [{"item": f"q{i}", "model": m, "score": int(right[i]), "passage": i // 2,
             "task": f"t{i % 2}"}
            for m, right in (("a", A), ("b", B), ("c", C)) for i in range(20)]
    return pd.DataFrame(rows)


ITEM_FRAME = _item_frame()


def _bad_item_frame(base: pd.DataFrame) -> st.SearchStrategy:
    """Bad answer tables: not a table, no rows, a role column missing, an empty or unreadable
    score, an item answered twice by one model, a passage changing within an item."""
    def put(i: int, col: str, value: Any) -> pd.DataFrame:
        return base.assign(**{col: base[col].astype(object).where(base.index != i, value)})

    n = len(base)
    return st.one_of(
        _tagged(WRONG_TYPE, st.sampled_from([5, None, base.to_numpy(), [1, 2]])),
        _tagged(EMPTY, st.just(base.iloc[0:0])),
        _tagged(SHAPE, st.sampled_from([base.drop(columns=c) for c in ("item", "model", "score")])),
        _tagged(NAN, st.tuples(st.integers(0, n - 1), st.sampled_from([None, np.nan])).map(
            lambda a: put(a[0], "score", a[1]))),
        _tagged(OUT_OF_RANGE, st.tuples(st.integers(0, n - 1), st.sampled_from(["maybe", "x"])).map(
            lambda a: put(a[0], "score", a[1]))),
        _tagged(SHAPE, st.integers(0, n - 1).map(
            lambda i: pd.concat([base, base.iloc[[i]]], ignore_index=True))),
        _tagged(OUT_OF_RANGE, st.integers(0, n - 1).filter(lambda i: i % 20 % 2 == 1).map(
            lambda i: put(i, "passage", 99))),
    )


def _column_role(*, optional: bool) -> st.SearchStrategy:
    """Bad column names for a role: a name not in the table, not a string."""
    return st.one_of(_tagged(OUT_OF_RANGE, st.sampled_from(["nope", "Item "])),
                     _tagged(WRONG_TYPE, st.sampled_from(
                         [3, ["item"], 1.5] + ([] if optional else [None]))))


_ITEM_ROLES = {
    "source": _bad_item_frame(ITEM_FRAME),
    "item": _column_role(optional=False), "model": _column_role(optional=False),
    "score": _column_role(optional=False), "cluster": _column_role(optional=True),
    "sample": _column_role(optional=True), "task": _column_role(optional=True),
    "models": st.one_of(_tagged(OUT_OF_RANGE, st.sampled_from([["nope"], ["a", "nope"], ["a"]])),
                        _tagged(WRONG_TYPE, st.sampled_from(["ab", 3]))),
    "engine": _choice(("auto", "numpy", "duckdb", "spark")),
}
# the errors about the table name the column or the model at fault, as the command's do
_ITEM_ALIASES = {"source": ("score", "item", "model", "passage", "rows"),
                 "models": ("model",)}
SPECS.update({
    "count_items": Spec({"source": ITEM_FRAME, "cluster": "passage", "task": "task"},
                        _ITEM_ROLES, _ITEM_ALIASES),
    "compare_items": Spec(
        {"source": ITEM_FRAME, "cluster": "passage", "task": "task", "margin": 0.1},
        {**_ITEM_ROLES, "test": _choice(("auto", "mcnemar", "difference")),
         "margin": _positive_real(none_ok=True), "alpha": _probability()},
        _ITEM_ALIASES),
})

# Public functions not fuzzed here, and why.
_IO = "reads files or the network (covered by the data and report tests)"
_COURSE = "course helper that fits models or runs simulations (argument checks in its own tests)"
_DEEP = "course helper for the deep-learning notebook (needs PyTorch)"
_PAPER = ("course helper for the paper's replication: fits the paper's models on its data sets "
          "or rearranges the shipped printed tables (argument checks in tests/course/test_paper.py)")
_DRAWS = "draws a figure (structure checked in the plot tests)"
# The comparisons across data sets: paired score vectors, a score matrix, counts of signs
SPECS.update({
    # two samples of any lengths (not paired): no length mismatch to refuse
    "cliffs_delta": Spec({"x": CV_A, "y": CV_B[:7]},
                         {"x": st.one_of(_with_nan(CV_A), _tagged(EMPTY, st.just([])),
                                         _tagged(WRONG_TYPE, st.sampled_from(["abc", None]))),
                          "y": st.one_of(_with_nan(CV_B[:7]), _tagged(EMPTY, st.just([])),
                                         _tagged(WRONG_TYPE, st.sampled_from(["abc", None])))}),
    "hodges_lehmann_interval": Spec({"x": CV_A, "y": CV_B},
                                    {"x": _paired(CV_A), "y": _paired(CV_B),
                                     "confidence_level": _probability()}),
    "sign_counts": Spec({"x": CV_A, "y": CV_B}, {"x": _paired(CV_A), "y": _paired(CV_B),
                                                 "higher_is_better": _flag()}),
    "sign_test": Spec({"x": CV_A, "y": CV_B}, {"x": _paired(CV_A), "y": _paired(CV_B),
                                               "higher_is_better": _flag()}),
    # many pairs at once: x and y are matrices of one shape (data sets x pairs)
    "signed_rank_normal": Spec({"x": SCORES, "y": SCORES[:, ::-1]},
                               {"x": _matrix(SCORES), "y": _matrix(SCORES[:, ::-1]),
                                "correction": _flag()}),
    "cliffs_delta_matrix": Spec({"scores": SCORES}, {"scores": _matrix(SCORES)}),
})

SKIPPED: dict[str, str] = {
    "t_df": "one rule from a count of units: every whole number has an answer (below 2 units, "
            "None: the normal), shown by its doctest and tests/compare/test_items.py",
    "sign_pvalues": "vectorised tail of the sign test on counts that sign_counts made (fuzzed "
                    "through sign_counts and sign_test)",
    "compare_datasets": "a route's entry: every bad table is refused in one line in "
                        "tests/compare/test_dataset_route.py and tests/compare/test_datasets.py",
    "all_pairs_accuracy": "takes the Counts an engine made (already checked there); equal to the "
                          "per-pair tables in tests/compare/test_predictions.py",
    "correctness_products": "takes the Counts an engine made (already checked there); exact "
                            "products checked in tests/compare/test_predictions.py",
    "weighted_gram": "an internal product over the pattern table the engines made; exact against "
                     "the integer product in tests/core/test_counts.py",
    "describe_value": "words for any value inside another check's error message: every input is "
                      "valid and nothing is refused (its doctest shows what it says)",
    "available_datasets": _IO, "describe_datasets": _IO, "download_datasets": _IO,
    "list_datasets": _IO, "load_dataset": _IO, "read_predictions": _IO,
    "example_predictions": _IO, "resource_path": _IO, "resource_text": _IO,
    "spark_session": "starts (or returns) a Spark session, local or on a cluster: its arguments "
                     "go to Spark (covered by the engine, cluster and Spark Connect tests)",
    "default_cache_dir": "takes no argument: the folder comes from the environment "
                         "(covered by the data tests)",
    "cache_folder": "resolves a folder: the environment and the file system decide "
                    "(covered by the data tests)",
    "check_uci_files": _IO, "uci_files": _IO,
    "cnn_predictions": _DEEP, "digits_split": _DEEP, "make_cnn": _DEEP, "predict_cnn": _DEEP,
    "torch_available": _DEEP, "train_cnn": _DEEP, "train_digits_cnns": _DEEP,
    "cross_val_predictions": _COURSE, "cv_scores": _COURSE, "paired_cv_scores": _COURSE,
    "holdout_selection": _COURSE, "nested_cv_scores": _COURSE,
    "power_curve": _COURSE, "replicability_experiment": _COURSE, "score_matrix": _COURSE,
    "simulate_items": _COURSE, "clustered_type1_error": _COURSE,
    "simulate_answers": _COURSE, "clustered_type1_plot": _DRAWS,
    "swap_combination_type1_error": _COURSE, "type1_error_simulation": _COURSE,
    "course_map_chart": _DRAWS,
    "course_map_table": "takes no argument: the course map is a fixed table",
    "read_eval_logs": _IO,
    **{name: _PAPER for name in (
        "compare_with_printed", "cv_predictions", "figure3", "fit_paper_models",
        "paper_estimators", "paper_split", "printed_values", "seed_runs", "seed_spread",
        "seed_spread_counts", "side_by_side", "table4", "table5", "table5_agreement", "table6",
        "table7", "table8", "table9", "table10", "table11")},
}


# Where public functions live: the top-level namespace, the course subpackage and the modules
# whose helpers stay out of the top level (the views -- plots, widgets, report, CLI -- are
# tested in their own files).
MODULES = ["stats.accuracy", "stats.bayesian", "stats.combine", "compare.predictions",
           "stats.contingency", "core.counts", "compare.crossval", "sources.datasets",
           "engine.base", "engine.predictions", "engine.spark_engine", "stats.multiple",
           "stats.paired", "stats.repeated", "stats.power", "stats.precision_cells", "stats.precision",
           "stats.precision_gee", "sources.predictions", "stats.prevalence", "stats.ranks",
           "stats.posthoc", "stats.replicability", "stats.resampling", "stats.results",
           "fitting.replicability", "fitting.resampling", "fitting.selection", "_lib.checks",
           "core.labels", "stats.intervals", "course.deep", "course.download",
           "course.items_simulation", "course.maps", "course.paper",
           "course.scores", "course.simulate", "course.type1"]


def _public_functions() -> dict[str, Callable]:
    found: dict[str, Callable] = {}
    spaces = [pc, precmp_lib.course,
              *(importlib.import_module(f"precmp_lib.{m}") for m in MODULES)]
    for space in spaces:
        for name in space.__all__:
            obj = getattr(space, name)
            if not inspect.isfunction(obj):
                continue
            assert found.setdefault(name, obj) is obj, f"two public functions named {name}"
    return found


PUBLIC = _public_functions()


def public_functions() -> list[str]:
    """The names of the public functions (top level, course and module helpers)."""
    return sorted(PUBLIC)


def test_the_top_level_and_course_namespaces_are_covered():
    assert set(pc.__all__) <= set(dir(pc)) and set(precmp_lib.course.__all__) <= set(
        dir(precmp_lib.course))
    top = [n for n in pc.__all__ if inspect.isfunction(getattr(pc, n))]
    assert "compare_models" in top and set(top) <= set(PUBLIC)
    assert "type1_error_simulation" in PUBLIC and "check_probability" in PUBLIC


def test_every_public_function_is_fuzzed_or_skipped_with_a_reason():
    missing = [n for n in public_functions() if n not in SPECS and n not in SKIPPED]
    assert not missing, f"public functions without a fuzz spec or a stated skip: {missing}"
    stale = sorted((set(SPECS) | set(SKIPPED)) - set(PUBLIC))
    assert not stale, f"specs or skips for names that are no public function: {stale}"
    for name, spec in SPECS.items():
        params = inspect.signature(PUBLIC[name]).parameters
        unknown = set(spec.kinds) - set(params)
        assert not unknown, f"{name} has no parameters {sorted(unknown)}"


CASES = [(name, arg) for name in sorted(SPECS) for arg in SPECS[name].kinds]


@pytest.mark.parametrize("name", sorted(SPECS))
def test_valid_call_succeeds(name):
    """The starting point of every bad call is a good call: only the bad argument breaks it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PUBLIC[name](**SPECS[name].call)


# --------------------------------------------------------------------------------------------
# The fuzz test
# --------------------------------------------------------------------------------------------

TALLY: Counter = Counter()

_ESCAPED = "other exception"
_UNNAMED = "error without the argument's name"
_ACCEPTED = "accepted"
_CLEAR = "clear ValueError/TypeError"


def classify(func: Callable, kwargs: dict, arg: str, aliases: tuple[str, ...]) -> tuple[str, str]:
    """Outcome of one bad call and the text to show when it is not a clear error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            func(**kwargs)
    except (ValueError, TypeError) as exc:
        text = str(exc)
        if any(word in text for word in (arg, *aliases)):
            return _CLEAR, text
        return _UNNAMED, f"{type(exc).__name__}: {text}"
    except Exception as exc:  # what escapes is exactly what is tested
        return _ESCAPED, f"{type(exc).__name__}: {exc}"
    return _ACCEPTED, "no error"


@pytest.fixture(scope="module", autouse=True)
def _write_tally():
    yield
    path = os.environ.get("PRECMP_FUZZ_TALLY")
    if path:
        rows = [{"category": c, "outcome": o, "count": n} for (c, o), n in sorted(TALLY.items())]
        with open(path, "w") as fh:
            json.dump(rows, fh, indent=1)


@pytest.mark.parametrize(("name", "arg"), CASES)
@settings(max_examples=int(os.environ.get("PRECMP_FUZZ_EXAMPLES", "12")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_bad_argument_gets_a_clear_error(name, arg, data):
    spec = SPECS[name]
    category, value = data.draw(spec.kinds[arg], label=f"{name}({arg}=...)")
    kwargs = {**spec.call, arg: value}
    outcome, text = classify(PUBLIC[name], kwargs, arg, spec.aliases.get(arg, ()))
    TALLY[(category, outcome)] += 1
    assert outcome == _CLEAR, f"{name}({arg}={value!r:.80}) [{category}]: {outcome}: {text}"
