"""Tests of precmp_lib.stats.hierarchical: the hierarchical Bayesian model across data sets.

The model needs NumPyro (requirements-bayes.txt, installed by `make test`); without it the
tests of the sampler are skipped and the one-line message is tested.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from precmp_lib.stats.hierarchical import (
    REQUIREMENTS,
    HierarchicalUnavailable,
    hierarchical_test,
    hierarchical_tests,
)

# The shared case: 10 data sets x 10 folds of two models, made by
#   rng = np.random.default_rng(2017); q, k = 10, 10
#   base = rng.uniform(0.70, 0.90, (q, 1)) + rng.normal(0, 0.02, (q, k))
#   delta = rng.normal(0.008, 0.01, (q, 1))
#   A = round(base + delta + rng.normal(0, 0.015, (q, k)), 3); B = round(base, 3)
A = np.array([
    [0.881, 0.940, 0.939, 0.898, 0.900, 0.953, 0.923, 0.858, 0.930, 0.925],
    [0.855, 0.826, 0.848, 0.863, 0.807, 0.833, 0.860, 0.800, 0.841, 0.842],
    [0.852, 0.889, 0.868, 0.888, 0.862, 0.884, 0.895, 0.878, 0.864, 0.897],
    [0.770, 0.813, 0.795, 0.814, 0.854, 0.787, 0.817, 0.771, 0.844, 0.790],
    [0.686, 0.758, 0.697, 0.730, 0.713, 0.690, 0.729, 0.718, 0.704, 0.681],
    [0.858, 0.894, 0.862, 0.855, 0.872, 0.887, 0.892, 0.863, 0.850, 0.813],
    [0.779, 0.829, 0.773, 0.798, 0.817, 0.772, 0.778, 0.790, 0.783, 0.805],
    [0.755, 0.765, 0.754, 0.735, 0.831, 0.762, 0.779, 0.760, 0.810, 0.775],
    [0.774, 0.777, 0.764, 0.745, 0.765, 0.774, 0.724, 0.721, 0.726, 0.783],
    [0.841, 0.851, 0.829, 0.807, 0.821, 0.849, 0.809, 0.872, 0.823, 0.842],
])
B = np.array([
    [0.863, 0.913, 0.913, 0.894, 0.877, 0.931, 0.930, 0.856, 0.890, 0.893],
    [0.820, 0.815, 0.801, 0.822, 0.795, 0.814, 0.827, 0.790, 0.817, 0.795],
    [0.855, 0.854, 0.863, 0.871, 0.841, 0.859, 0.868, 0.862, 0.859, 0.878],
    [0.801, 0.777, 0.776, 0.771, 0.821, 0.748, 0.801, 0.763, 0.800, 0.755],
    [0.689, 0.725, 0.698, 0.726, 0.709, 0.693, 0.702, 0.700, 0.710, 0.680],
    [0.844, 0.873, 0.851, 0.843, 0.877, 0.864, 0.886, 0.858, 0.837, 0.819],
    [0.810, 0.809, 0.771, 0.782, 0.816, 0.777, 0.784, 0.803, 0.767, 0.799],
    [0.751, 0.730, 0.747, 0.753, 0.802, 0.752, 0.770, 0.771, 0.792, 0.794],
    [0.755, 0.752, 0.759, 0.743, 0.735, 0.751, 0.734, 0.728, 0.720, 0.765],
    [0.817, 0.821, 0.811, 0.804, 0.809, 0.844, 0.815, 0.839, 0.815, 0.811],
])
# baycomp 1.0.3's HierarchicalTest on this case, with pystan 3.10.0 (httpstan 4.13.0; pystan
# 3.14 needs Python 3.12) in a separate Python 3.11 environment:
#   HierarchicalTest(A, B, rope=0.01, runs=1, chains=4, nsamples=10000,
#                    random_state=1).probs()
# (4 chains x 10,000 draws after Stan's 1,000 warm-up iterations; baycomp passes no seed to
# Stan, so each run differs by Monte Carlo error; its cached last-sample.pickle was removed
# between runs). Two runs: BAYCOMP_RUNS; the means of the per-draw probabilities (baycomp's
# Posterior.sample.mean(0)), the predictive probabilities, of the two runs: BAYCOMP_PREDICTIVE.
BAYCOMP_RUNS = [(0.884225, 0.115625, 0.00015), (0.875525, 0.12445, 2.5e-05)]
BAYCOMP_PREDICTIVE = [(0.7538474832569003, 0.24042114507159376, 0.005731371671519152),
                      (0.7441212272612115, 0.2502565127834446, 0.005622259955347837)]


def _needs_numpyro() -> None:
    pytest.importorskip("numpyro", reason=f"the optional extra ({REQUIREMENTS}) is not "
                                          "installed")


def test_equal_to_baycomp_hierarchical_test_within_monte_carlo_error():
    _needs_numpyro()
    res = hierarchical_test(A, B, rope=0.01, folds=10, random_state=0)
    reference = np.mean(BAYCOMP_RUNS, axis=0)
    # Monte Carlo error: ours keeps 4,000 draws, some 600 effective for the slowest of δ₀,
    # σ₀ and ν (sd of a share near 0.88 about 0.013), baycomp's two runs differ by 0.009;
    # 0.035 is about two and a half combined sd
    assert res.details["ess_min"] > 400 and res.details["rhat_max"] < 1.01
    assert np.allclose(res.probabilities(), reference, atol=0.035), (res, reference)
    predictive = [res.details[f"predictive_{k}"] for k in ("a_better", "rope", "b_better")]
    assert np.allclose(predictive, np.mean(BAYCOMP_PREDICTIVE, axis=0), atol=0.025), predictive
    assert res.p_a_better > 0.8 and res.p_b_better < 0.01
    # δ₀ in score units: near the mean of the data sets' mean differences (0.0135)
    assert abs(res.details["delta0_mean"] - (A - B).mean()) < 0.003
    assert res.details["delta0_low"] < res.details["delta0_mean"] < res.details["delta0_high"]


def test_pairs_sampled_together_equal_each_alone_and_swapping_swaps():
    _needs_numpyro()
    both = hierarchical_tests(np.stack([A - B, B - A]), 0.01, folds=10, random_state=3)
    assert np.allclose(both[0].probabilities(), both[1].probabilities()[::-1], atol=0.03)
    assert both[0].details["delta0_mean"] == pytest.approx(-both[1].details["delta0_mean"],
                                                           abs=0.002)


def test_constant_differences_are_degenerate_not_a_crash():
    _needs_numpyro()
    d = np.full((1, 5, 10), 0.02)
    (res,) = hierarchical_tests(d, 0.01, folds=10)
    assert res.degenerate and res.probabilities() == (1.0, 0.0, 0.0)


@pytest.mark.parametrize(("args", "message"), [
    ((np.zeros((2, 1, 10)), 0.01), "at least two data sets"),
    ((np.full((1, 3, 4), np.nan), 0.01), "finite per-fold differences"),
    ((np.ones((1, 3, 4)), -1.0), "rope must be a finite number >= 0"),
])
def test_bad_input_is_refused(args, message):
    with pytest.raises(ValueError, match=message):
        hierarchical_tests(*args, folds=10)


def test_without_numpyro_one_line_names_the_requirements_file(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpyro", None)
    with pytest.raises(HierarchicalUnavailable) as err:
        hierarchical_test(A, B, folds=10)
    assert str(err.value) == ("the hierarchical Bayesian model needs NumPyro: pip install -r "
                              "requirements-bayes.txt")
    assert isinstance(err.value, ImportError)
