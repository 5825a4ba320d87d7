"""Type-I error by simulation (precmp_lib.course.type1): resampling tests and combinations."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.neighbors import NearestCentroid

import precmp_lib as pc
from precmp_lib.course import type1
from precmp_lib.course.type1 import (
    combination_type1_error,
    swap_combination_type1_error,
    type1_error_simulation,
)

# --------------------------------------------------------------------------------------------
# resampling tests on two equally good learners
# --------------------------------------------------------------------------------------------


def test_simulated_learners_equal_sklearn_nearest_centroid():
    rng = np.random.default_rng(0)
    R, n, h, J = 2, 40, 3, 4
    X = rng.standard_normal((R, n, 2 * h))
    is1 = np.arange(n) >= n // 2
    X[:, is1] += 0.7
    test = np.zeros((R, J, n), dtype=bool)
    for r in range(R):
        for j in range(J):
            idx = np.r_[rng.choice(n // 2, 5, replace=False),
                        n // 2 + rng.choice(n // 2, 5, replace=False)]
            test[r, j, idx] = True
    acc_a, acc_b = type1._centroid_accuracies(X, is1, test, h)
    for r in range(R):
        for j in range(J):
            te, tr = test[r, j], ~test[r, j]
            for acc, block in ((acc_a, slice(0, h)), (acc_b, slice(h, 2 * h))):
                clf = NearestCentroid().fit(X[r][tr][:, block], is1[tr])
                assert acc[r, j] == pytest.approx(clf.score(X[r][te][:, block], is1[te]))


def test_simulation_shows_inflation_and_control():
    """Dietterich (1998), Nadeau & Bengio (2003): under a true null the uncorrected resampled
    and repeated-CV t reject far above alpha, the corrected tests near or below it."""
    sim = type1_error_simulation(n_simulations=300, random_state=0, progress=False)
    assert sim.pvalues.shape == (300, 8)
    assert list(sim.pvalues.columns) == list(pc.stats.resampling.resampling_test_guide().index)
    rates = sim.rates.set_index("key")
    assert rates["rejection_rate"].between(0, 1).all()
    assert rates.loc["resampled_t", "rejection_rate"] > 0.3
    assert rates.loc["repeated_kfold_t", "rejection_rate"] > 0.3
    for key in ("corrected_resampled_t", "corrected_kfold_t", "corrected_repeated_kfold_t",
                "ftest_5x2cv"):
        assert rates.loc[key, "ci_low"] < 0.05  # consistent with alpha or below
    assert rates.loc["resampled_t", "ci_low"] > 0.05
    assert (rates["ci_low"] <= rates["rejection_rate"]).all()
    assert (rates["rejection_rate"] <= rates["ci_high"]).all()
    assert rates.loc["repeated_kfold_t", "n_resamples"] == 100
    s = sim.settings
    assert abs(s["mean_accuracy_a"] - s["mean_accuracy_b"]) < 0.01  # the null holds
    assert s["mean_accuracy_a"] == pytest.approx(stats.norm.cdf(0.75), abs=0.03)


def test_simulation_reproducible_and_powerful():
    one = type1_error_simulation(n_simulations=60, chunk_size=25, random_state=5,
                                    progress=False)
    two = type1_error_simulation(n_simulations=60, chunk_size=25, random_state=5,
                                    progress=False)
    pd.testing.assert_frame_equal(one.pvalues, two.pvalues)
    power = type1_error_simulation(n_simulations=60, effect=1.5, random_state=5,
                                      progress=False)
    assert power.settings["mean_accuracy_a"] > power.settings["mean_accuracy_b"] + 0.05
    r0 = one.rates.set_index("key")["rejection_rate"]
    r1 = power.rates.set_index("key")["rejection_rate"]
    assert r1["corrected_resampled_t"] > r0["corrected_resampled_t"] + 0.3


def test_simulation_bad_inputs():
    with pytest.raises(ValueError, match="n_samples must give every fold at least 2"):
        type1_error_simulation(n_samples=30, progress=False)
    with pytest.raises(ValueError, match="test_size must lie in"):
        type1_error_simulation(test_size=0, progress=False)
    with pytest.raises(ValueError, match="n_simulations must be an integer >= 1"):
        type1_error_simulation(n_simulations=0, progress=False)
    with pytest.raises(ValueError, match="separation must be finite and >= 0"):
        type1_error_simulation(separation=-1, progress=False)
    with pytest.raises(ValueError, match=r"test_size=0\.001 leaves an empty test"):
        type1_error_simulation(test_size=0.001, progress=False)


def test_guide_carries_measured_rates():
    sim = type1_error_simulation(n_simulations=50, random_state=2, progress=False)
    guide = pc.stats.resampling.resampling_test_guide(sim.rates)
    assert {"test", "call", "splits", "df", "use_when", "type1_error", "ci_low",
            "ci_high"} <= set(guide.columns)
    assert guide.loc["ftest_5x2cv", "df"] == "(10, 5)"
    np.testing.assert_allclose(guide["type1_error"].to_numpy(),
                               sim.rates["rejection_rate"].to_numpy())
    both = pc.stats.resampling.resampling_test_guide({"null": sim.rates, "again": sim.rates})
    np.testing.assert_allclose(both["null"], both["again"])


# --------------------------------------------------------------------------------------------
# combinations of dependent p-values
# --------------------------------------------------------------------------------------------


def test_gaussian_type1_error():
    tab = combination_type1_error([0.0, 0.8], methods=("fisher", "dai_cui", "brown", "simes"),
                                     n_sim=20000, random_state=0)
    assert list(tab.columns) == ["correlation", "method", "rejection_rate", "mc_se", "n_sim"]
    rate = tab.set_index(["correlation", "method"])["rejection_rate"]
    for m in ("fisher", "dai_cui", "brown", "simes"):
        assert abs(rate[(0.0, m)] - 0.05) < 4 * math.sqrt(0.05 * 0.95 / 20000)
    # with correlated two-sided tests Fisher is anti-conservative, Dai–Cui keeps the level,
    # Simes stays at or below it (positive dependence)
    assert rate[(0.8, "fisher")] > 0.075
    assert abs(rate[(0.8, "dai_cui")] - 0.05) < 0.007
    assert rate[(0.8, "simes")] <= 0.05 + 0.005
    assert rate[(0.8, "brown")] == rate[(0.8, "dai_cui")]


def test_gaussian_type1_error_stouffer_one_sided_only():
    tab = combination_type1_error([0.5], methods=("stouffer",), sides="one-sided",
                                     n_sim=20000, random_state=1)
    assert abs(tab.rejection_rate.iloc[0] - 0.05) < 0.007  # Strube holds the level
    with pytest.raises(ValueError, match="one-sided"):
        combination_type1_error([0.5], methods=("stouffer",))
    with pytest.raises(ValueError, match="below"):
        combination_type1_error([-0.6], n_tests=3)


def test_swap_type1_error():
    tab = swap_combination_type1_error(n=200, n_sim=150, n_resamples=100,
                                          methods=("fisher", "dai_cui", "simes"), random_state=0)
    assert list(tab.columns) == ["method", "rejection_rate", "mc_se", "n_sim", "n_skipped"]
    assert tab.n_sim.tolist() == [150, 150, 150]
    rate = tab.set_index("method")["rejection_rate"]
    # every method rejects on a subset of the data sets where Fisher's p is smallest; Dai–Cui's
    # p-value is never below Fisher's under positive dependence
    assert rate["dai_cui"] <= rate["fisher"]
    with pytest.raises(ValueError, match="summing to 1"):
        swap_combination_type1_error(prevalence=(0.5, 0.6))
    with pytest.raises(ValueError, match="methods must be one of"):
        swap_combination_type1_error(methods=("stouffer",))
