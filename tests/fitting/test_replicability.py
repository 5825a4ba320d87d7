"""Bouckaert's R(e), Demšar's R(p) and the replicability experiment."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB

import precmp_lib as pc
from precmp_lib.fitting.replicability import replicability_experiment
from precmp_lib.stats.precision_cells import gs_from_cells

# ---- R(e): docs/methods.md §10 worked examples -------------------------------------------------


def test_seven_accept_three_reject():
    # docs/methods.md §10: n = 10, p = 7, q = 3 -> 48/90 = 24 equal pairs of 45
    assert pc.replicability([1] * 7 + [0] * 3) == pytest.approx(0.533333, abs=5e-7)


def test_all_equal_is_one():
    # docs/methods.md §10: all 10 rejected -> 1.0 (and all accepted too)
    assert pc.replicability([0] * 10) == 1.0
    assert pc.replicability([True] * 10) == 1.0


def test_even_split_is_the_minimum():
    # docs/methods.md §10: p = q = 5 -> 0.444444 = (n/2 - 1)/(n - 1)
    assert pc.replicability([1, 0] * 5) == pytest.approx(0.444444, abs=5e-7)
    assert pc.replicability([1, 0] * 5) == pytest.approx((10 / 2 - 1) / (10 - 1))


def test_three_repetitions():
    # docs/methods.md §10: n = 3, e = (1, 1, 0) -> 0.333333
    assert pc.replicability(np.array([1, 1, 0])) == pytest.approx(1 / 3)


def test_seed_eq30_without_brackets_is_not_what_we_compute():
    # docs/methods.md §0.4: the seed's eq 30 as printed, p(p-1) + q(q-1)/n(n-1), gives 42.07 for p=7
    p, q, n = 7, 3, 10
    assert p * (p - 1) + q * (q - 1) / (n * (n - 1)) == pytest.approx(42.0667, rel=1e-4)
    assert pc.replicability([1] * p + [0] * q) < 1


@given(st.lists(st.booleans(), min_size=2, max_size=60))
def test_equals_share_of_agreeing_pairs(outcomes):
    # the definition (eq 29): the share of the n(n-1)/2 pairs of repetitions that agree
    pairs = list(combinations(outcomes, 2))
    expected = sum(a == b for a, b in pairs) / len(pairs)
    r = pc.replicability(outcomes)
    assert r == pytest.approx(expected, abs=1e-12)
    assert 0 <= r <= 1
    # docs/methods.md §10 third form: 1 - 2 sum (e - mean)^2 / (n - 1)
    e = np.asarray(outcomes, dtype=float)
    n = len(e)
    assert r == pytest.approx(1 - 2 * np.sum((e - e.mean()) ** 2) / (n - 1), abs=1e-12)


@given(st.lists(st.booleans(), min_size=2, max_size=40), st.randoms())
def test_order_and_coding_do_not_matter(outcomes, random):
    shuffled = list(outcomes)
    random.shuffle(shuffled)
    assert pc.replicability(shuffled) == pytest.approx(pc.replicability(outcomes))
    flipped = [not o for o in outcomes]  # R counts agreements: swapping accept/reject changes nothing
    assert pc.replicability(flipped) == pytest.approx(pc.replicability(outcomes))


@pytest.mark.parametrize(
    ("outcomes", "message"),
    [
        ([1], "at least 2 repetitions"),
        ([], "at least 2 repetitions"),
        ([1, 0, 2], "only 0 and 1"),
        ([0.5, 1], "only 0 and 1"),
        ([1, float("nan")], "only 0 and 1"),
        (["yes", "no"], "0/1 decisions"),
        ([[1, 0], [0, 1]], "one-dimensional"),
    ],
)
def test_bad_outcomes(outcomes, message):
    with pytest.raises(ValueError, match=message):
        pc.replicability(outcomes)


# ---- R(p) -----------------------------------------------------------------------------------


def test_pvalue_replicability_worked_example():
    # docs/methods.md §10: R(p) for p = (0.01, 0.04, 0.20, 0.03, 0.07) is 0.98850
    assert pc.replicability_pvalues([0.01, 0.04, 0.20, 0.03, 0.07]) == pytest.approx(0.98850, rel=1e-5)


def test_pvalue_replicability_uses_sample_variance():
    p = np.array([0.0, 1.0, 0.0, 1.0])
    assert pc.replicability_pvalues(p) == pytest.approx(1 - 2 * np.var(p, ddof=1))
    assert pc.replicability_pvalues([0.3, 0.3]) == 1.0


@pytest.mark.parametrize(
    ("pvalues", "message"),
    [([0.2], "at least 2"), ([0.2, 1.5], r"lie in \[0, 1\]"), ([0.2, np.nan], r"lie in \[0, 1\]"),
     (["a", "b"], "numbers")],
)
def test_bad_pvalues(pvalues, message):
    with pytest.raises(ValueError, match=message):
        pc.replicability_pvalues(pvalues)


# ---- the experiment -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


@pytest.fixture(scope="module")
def small_run(cancer):
    X, y = cancer
    return replicability_experiment(
        X, y, positive=0, sample_fractions=[1.0, 0.25], test_fractions=[0.5, 0.2],
        n_repeats=6, n_trees=5, n_initial=400, random_state=3, progress=False,
    )


def test_experiment_table(small_run):
    res = small_run
    assert list(res.columns) == [
        "sample_fraction", "test_fraction", "n_sample", "n_test", "n_repeats", "n_valid",
        "rejection_rate", "replicability", "replicability_p", "median_pvalue",
        "median_precision_a", "median_precision_b",
    ]
    assert res[["sample_fraction", "test_fraction"]].to_numpy().tolist() == [
        [1.0, 0.5], [1.0, 0.2], [0.25, 0.5], [0.25, 0.2]]
    # sizes follow the fractions of the initial sample of 400
    assert res["n_sample"].tolist() == [400, 400, 100, 100]
    assert res["n_test"].tolist() == [200, 80, 50, 20]
    assert (res["n_repeats"] == 6).all() and (res["n_valid"] <= 6).all()
    assert res["replicability"].between(0, 1).all() and res["rejection_rate"].between(0, 1).all()
    assert res.attrs["models"] == ["naive_bayes", "random_forest"]


def test_experiment_is_seeded(cancer, small_run):
    X, y = cancer
    again = replicability_experiment(
        X, y, positive=0, sample_fractions=[1.0, 0.25], test_fractions=[0.5, 0.2],
        n_repeats=6, n_trees=5, n_initial=400, random_state=3, progress=False,
    )
    assert again.equals(small_run)


def test_replicability_and_rejection_rate_agree_with_r_of_e(small_run):
    # with every repetition valid, R(e) is the closed form of the rejection rate q/n
    res = small_run[small_run["n_valid"] == 6]
    q = np.rint(res["rejection_rate"] * 6)
    expected = [pc.replicability([0] * int(k) + [1] * (6 - int(k))) for k in q]
    assert res["replicability"].to_numpy() == pytest.approx(expected)


def test_experiment_decisions_come_from_the_gs_test(cancer):
    # two deterministic classifiers: every repetition's p-value must equal gs_from_cells on the
    # test split the experiment drew, so R(e) must equal R(e) recomputed here
    X, y = cancer
    est = {"nb": GaussianNB(), "prior": DummyClassifier(strategy="stratified")}
    res = replicability_experiment(
        X, y, positive=1, sample_fractions=[1.0], test_fractions=[0.3], n_repeats=8,
        estimators=est, random_state=11, progress=False,
    )
    # replay the draws: same generator, same order of calls
    rng = np.random.default_rng(11)
    from sklearn.base import clone

    decisions = []
    for _ in range(8):
        rows = rng.choice(np.arange(len(y)), size=len(y), replace=False)
        test, train = rows[:171], rows[171:]
        seed = int(rng.integers(2**31 - 1))
        preds = []
        for e in est.values():
            m = clone(e)
            if "random_state" in m.get_params():
                m.set_params(random_state=seed)
            preds.append(m.fit(X[train], y[train]).predict(X[test]) == 1)
        d = y[test] == 1
        cells = np.zeros((2, 2, 2))
        np.add.at(cells, (d.astype(int), preds[0].astype(int), preds[1].astype(int)), 1)
        decisions.append(gs_from_cells(cells).pvalue > 0.05)
    assert res["replicability"].iloc[0] == pytest.approx(pc.replicability(decisions))
    assert res["rejection_rate"].iloc[0] == pytest.approx(1 - np.mean(decisions))


def test_undefined_repetitions_are_left_out(cancer):
    # a classifier that always predicts class 1 never predicts class 0: no precision, no test
    X, y = cancer
    est = {"nb": GaussianNB(), "always_1": DummyClassifier(strategy="constant", constant=1)}
    res = replicability_experiment(
        X, y, positive=0, sample_fractions=[0.5], test_fractions=[0.3], n_repeats=3,
        estimators=est, progress=False,
    )
    assert res["n_valid"].item() == 0
    assert np.isnan(res["replicability"].item()) and np.isnan(res["rejection_rate"].item())


def test_string_positive_label_matches_integer_classes(cancer):
    X, y = cancer
    kw = dict(sample_fractions=[1.0], test_fractions=[0.3], n_repeats=3, n_trees=3,
              random_state=0, progress=False)
    a = replicability_experiment(X, y, positive=0, **kw)
    b = replicability_experiment(X, y, positive="0", **kw)
    assert a.equals(b)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"positive": 7}, "positive=7 is not among the labels"),
        ({"positive": 0, "n_repeats": 1}, "n_repeats must be an integer >= 2"),
        ({"positive": 0, "alpha": 1.5}, r"alpha must lie in \(0, 1\)"),
        ({"positive": 0, "test_fractions": [1.0]}, r"test_fractions must lie in \(0, 1\)"),
        ({"positive": 0, "sample_fractions": [0.0]}, r"sample_fractions must lie in \(0, 1\]"),
        ({"positive": 0, "n_initial": 10_000}, "n_initial must be at most"),
        ({"positive": 0, "sample_fractions": [0.005]}, "choose larger fractions"),
        ({"positive": 0, "estimators": {"nb": GaussianNB()}}, "exactly two classifiers"),
    ],
)
def test_experiment_bad_input(cancer, kwargs, message):
    X, y = cancer
    with pytest.raises(ValueError, match=message):
        replicability_experiment(X, y, progress=False, **kwargs)


def test_experiment_rejects_misaligned_x(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="X must be a 2-D array with one row per label"):
        replicability_experiment(X[:-1], y, positive=0, progress=False)
