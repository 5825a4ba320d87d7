"""Bayesian comparisons against their formulas (written out here) and against baycomp 1.0.3.

Closed forms (correlated t) agree to 1e-9 relative. Monte Carlo results (sign and signed-rank
tests) are compared with a tolerance of four Monte Carlo standard errors, sqrt(p (1 - p) / S) for
each of the two samples compared, or with the spread of our result over several seeds.
"""

from __future__ import annotations

import math

import baycomp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate, stats

import precmp_lib as pc

# Twelve data sets' mean accuracies of two classifiers (invented for the tests): A beats B by more
# than a point on nine, is within a point on two, loses on one.
A12 = np.array([.91, .85, .78, .88, .95, .70, .83, .90, .86, .80, .75, .92])
B12 = np.array([.88, .83, .74, .86, .95, .66, .80, .86, .82, .80, .77, .89])


def _fold_scores(seed, n=10, shift=0.01, spread=0.015):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.75, 0.9, n)
    return b + shift + rng.normal(0, spread, n), b


def _mc_tolerance(p, *sizes):
    """Four standard errors of the difference of independent Monte Carlo estimates of p."""
    p = min(max(p, 1e-3), 1 - 1e-3)
    return 4 * math.sqrt(p * (1 - p) * sum(1 / s for s in sizes))


# --------------------------------------------------------------------------------------------
# correlated t-test: closed form
# --------------------------------------------------------------------------------------------


def _student_formula(a, b, rope, ratio):
    """Corani & Benavoli (2015): Student(n-1, mean d, sqrt((1/n + ratio) var d)) of d = a - b."""
    d = a - b
    n = d.size
    post = stats.t(n - 1, loc=d.mean(), scale=np.sqrt((1 / n + ratio) * d.var(ddof=1)))
    p_a, p_b = post.sf(rope), post.cdf(-rope)
    return p_a, (post.cdf(rope) - p_b) if rope else 0.0, p_b


@pytest.mark.parametrize("seed, runs, rope", [(0, 1, 0.0), (1, 1, 0.01), (2, 2, 0.005),
                                              (3, 5, 0.0), (4, 1, 0.02)])
def test_correlated_ttest_formula_and_baycomp(seed, runs, rope):
    a, b = _fold_scores(seed, n=10 * runs)
    res = pc.bayes_correlated_ttest(a, b, rope=rope, runs=runs)
    expected = _student_formula(a, b, rope, 1 / (10 - 1))
    np.testing.assert_allclose(tuple(res), expected, rtol=1e-9, atol=1e-15)
    # baycomp: x is the first classifier, and its p_left ("y - x < -rope") is P(A better)
    ref = baycomp.CorrelatedTTest.probs(a, b, rope=rope, runs=runs)
    if rope == 0:
        np.testing.assert_allclose((res.p_a_better, res.p_b_better), ref, rtol=1e-9, atol=1e-15)
        assert res.p_rope == 0.0
    else:
        np.testing.assert_allclose(tuple(res), ref, rtol=1e-9, atol=1e-12)
    post = res.posterior
    assert post.df == a.size - 1
    assert post.loc == pytest.approx(np.mean(a - b), rel=1e-12)
    assert post.scale == pytest.approx(
        np.sqrt((1 / a.size + 1 / 9) * np.var(a - b, ddof=1)), rel=1e-12)


def test_correlated_ttest_direction_mapping():
    """A clearly better: p_a_better is near 1, baycomp's p_left too; swapping swaps them."""
    a, b = _fold_scores(7, shift=0.05, spread=0.01)
    res = pc.bayes_correlated_ttest(a, b, rope=0.01)
    p_left, _, p_right = baycomp.two_on_single(a, b, rope=0.01)
    assert res.p_a_better > 0.95 and p_left > 0.95
    assert res.p_a_better == pytest.approx(p_left, rel=1e-9)
    assert res.p_b_better == pytest.approx(p_right, rel=1e-6, abs=1e-12)
    assert res.decision() == "A is better"
    swapped = pc.bayes_correlated_ttest(b, a, rope=0.01)
    assert swapped.p_b_better == pytest.approx(res.p_a_better, rel=1e-12)
    assert swapped.p_rope == pytest.approx(res.p_rope, rel=1e-9)


def test_correlated_ttest_random_splits_ratio():
    """Random 70/30 splits: the variance factor is 1/n + 3/7, and the posterior's P(A better)
    with rope 0 is one minus the one-sided corrected t p-value for 'A better'."""
    a, b = _fold_scores(11, n=15)
    res = pc.bayes_correlated_ttest(a, b, test_train_ratio=3 / 7)
    np.testing.assert_allclose(tuple(res), _student_formula(a, b, 0.0, 3 / 7), rtol=1e-9)
    freq = pc.corrected_resampled_ttest(a, b, test_train_ratio=3 / 7, alternative="greater")
    assert res.p_b_better == pytest.approx(freq.pvalue, rel=1e-9)
    assert res.details["test_train_ratio"] == pytest.approx(3 / 7)


@given(a=arrays(float, st.integers(2, 30), elements=st.floats(0, 1)),
       noise=st.integers(0, 2**32 - 1), rope=st.sampled_from([0.0, 0.005, 0.05]))
def test_correlated_ttest_properties(a, noise, rope):
    """Probabilities lie in [0, 1] and sum to one; swapping A and B swaps the two sides."""
    b = np.clip(a + np.random.default_rng(noise).normal(0, 0.05, a.size), 0, 1)
    ab = pc.bayes_correlated_ttest(a, b, rope=rope)
    ba = pc.bayes_correlated_ttest(b, a, rope=rope)
    assert all(0.0 <= p <= 1.0 for p in ab)
    assert sum(ab) == pytest.approx(1.0)
    if rope == 0.0:
        assert ab.p_rope == 0.0
    assert ba.p_a_better == pytest.approx(ab.p_b_better, abs=1e-12)
    assert ba.p_b_better == pytest.approx(ab.p_a_better, abs=1e-12)


def test_correlated_ttest_degenerate():
    a = np.array([0.8, 0.82, 0.79, 0.81])
    same = pc.bayes_correlated_ttest(a, a)
    assert tuple(same) == (0.5, 0.0, 0.5) and same.degenerate and same.posterior.scale == 0
    assert "point mass" in same.note
    in_rope = pc.bayes_correlated_ttest(a, a, rope=0.01)
    assert tuple(in_rope) == (0.0, 1.0, 0.0)
    shifted = pc.bayes_correlated_ttest(a + 0.02, a, rope=0.01)
    assert tuple(shifted) == (1.0, 0.0, 0.0) and shifted.degenerate


@pytest.mark.parametrize("kwargs, match", [
    ({"rope": -0.1}, "rope must be a finite number >= 0"),
    ({"runs": 3}, "runs must divide the number of scores"),
    ({"runs": 0}, "runs must be an integer >= 1"),
    ({"runs": 10}, "at least 2 folds"),
    ({"test_train_ratio": 0}, "test_train_ratio must be a finite number > 0"),
])
def test_correlated_ttest_bad_input(kwargs, match):
    a, b = _fold_scores(0)
    with pytest.raises(ValueError, match=match):
        pc.bayes_correlated_ttest(a, b, **kwargs)


def test_correlated_ttest_bad_scores():
    with pytest.raises(ValueError, match="same shape"):
        pc.bayes_correlated_ttest([0.8, 0.9, 0.7], [0.8, 0.9])
    with pytest.raises(ValueError, match="finite"):
        pc.bayes_correlated_ttest([0.8, np.nan, 0.7], [0.8, 0.9, 0.7])


# --------------------------------------------------------------------------------------------
# sign test: Dirichlet posterior
# --------------------------------------------------------------------------------------------


def _prob_largest(alpha, index):
    """P(component ``index`` of Dirichlet(alpha) is the largest), by one-dimensional quadrature.

    With independent G_i ~ Gamma(alpha_i), theta = G / sum G, so the probability is
    the integral of f_index(g) * prod_{j != index} F_j(g) over g > 0.
    """
    others = [a for j, a in enumerate(alpha) if j != index]

    def integrand(g):
        return stats.gamma.pdf(g, alpha[index]) * np.prod([stats.gamma.cdf(g, a) for a in others])

    upper = stats.gamma.isf(1e-14, alpha[index])
    value, _ = integrate.quad(integrand, 0, upper, limit=200)
    return value


@pytest.mark.parametrize("rope, place", [(0.01, "rope"), (0.01, "a_better"), (0.03, "b_better"),
                                         (0.0, "rope")])
def test_sign_test_formula(rope, place):
    res = pc.bayes_sign_test(A12, B12, rope=rope, prior_place=place, random_state=3)
    d = A12 - B12
    counts = np.array([np.sum(d > rope), np.sum(np.abs(d) <= rope), np.sum(d < -rope)], float)
    alpha = counts + 1e-4
    alpha[{"a_better": 0, "rope": 1, "b_better": 2}[place]] += 1.0
    assert res.details["alpha"] == pytest.approx(tuple(alpha))
    # posterior mean of the sample: E theta = alpha / sum alpha
    np.testing.assert_allclose(res.sample.mean(axis=0), alpha / alpha.sum(), atol=0.01)
    wins = [_prob_largest(alpha, i) for i in (0, 1)]
    if rope > 0:
        expected = (wins[0], wins[1], 1 - wins[0] - wins[1])
    else:
        p_b = 1 - wins[0] - wins[1]
        expected = (wins[0] / (wins[0] + p_b), 0.0, p_b / (wins[0] + p_b))
    for ours, exact in zip(res, expected):
        assert abs(ours - exact) <= _mc_tolerance(exact, 50000)


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.03])
def test_sign_test_equals_baycomp(rope):
    ours = pc.bayes_sign_test(A12, B12, rope=rope, random_state=1)
    ref = baycomp.SignTest.probs(A12, B12, rope=rope, random_state=2)
    ref = (ref[0], 0.0, ref[1]) if rope == 0 else ref
    for p, q in zip(ours, ref):
        assert abs(p - q) <= _mc_tolerance(q, 50000, 50000)


def test_sign_test_direction_and_prior_place():
    res = pc.bayes_sign_test(A12, B12, rope=0.01, random_state=0)
    assert res.details["n_a_better"] == 9 and res.details["n_b_better"] == 1
    swapped = pc.bayes_sign_test(B12, A12, rope=0.01, random_state=0)
    assert swapped.details["n_b_better"] == 9
    assert abs(swapped.p_b_better - res.p_a_better) <= _mc_tolerance(res.p_a_better, 5e4, 5e4)
    favour_b = pc.bayes_sign_test(A12, B12, rope=0.01, prior_strength=3, prior_place="b_better",
                                  random_state=0)
    assert favour_b.p_a_better < res.p_a_better


def test_sign_test_degenerate_and_reproducible():
    same = pc.bayes_sign_test(A12, A12)
    assert tuple(same) == (0.5, 0.0, 0.5) and same.degenerate
    in_rope = pc.bayes_sign_test(A12, A12, rope=0.01, random_state=0)
    assert in_rope.p_rope > 0.99 and not in_rope.degenerate
    r1 = pc.bayes_sign_test(A12, B12, rope=0.01, random_state=5, n_samples=1000)
    r2 = pc.bayes_sign_test(A12, B12, rope=0.01, random_state=np.random.default_rng(5),
                            n_samples=1000)
    np.testing.assert_array_equal(r1.sample, r2.sample)
    assert r1.sample.shape == (1000, 3)
    np.testing.assert_allclose(r1.sample.sum(axis=1), 1.0)
    with pytest.raises(ValueError):
        r1.sample[0, 0] = 1.0  # read-only


# --------------------------------------------------------------------------------------------
# signed-rank test: Dirichlet process posterior
# --------------------------------------------------------------------------------------------


def _signed_rank_mean(d, rope, strength, z0=0.0):
    """E theta_a_better = sum_ij E[w_i w_j] H(z_i + z_j - 2 rope) for w ~ Dirichlet(s, 1, ..., 1).

    Dirichlet moments: E[w_i w_j] = a_i a_j / (A (A + 1)) for i != j, a_i (a_i + 1) / (A (A + 1))
    on the diagonal, with A the sum of the parameters.
    """
    z = np.concatenate(([z0], d))
    a = np.concatenate(([strength], np.ones(d.size)))
    total = a.sum()
    moments = np.outer(a, a) / (total * (total + 1))
    moments[np.diag_indices_from(moments)] = a * (a + 1) / (total * (total + 1))
    s = z[:, None] + z[None, :]
    h = (s - 2 * rope > 0) + 0.5 * (s - 2 * rope == 0)
    return float((moments * h).sum())


def _signed_rank_reference(d, rope, strength, n_samples, seed):
    """An independent Monte Carlo of the posterior, pair by pair, with scipy's Dirichlet."""
    z = np.concatenate(([0.0], d))
    w = stats.dirichlet.rvs(np.concatenate(([strength], np.ones(d.size))), size=n_samples,
                            random_state=seed)
    theta_a = np.zeros(n_samples)
    theta_b = np.zeros(n_samples)
    for i in range(z.size):
        for j in range(z.size):
            s = z[i] + z[j]
            theta_a += w[:, i] * w[:, j] * ((s > 2 * rope) + 0.5 * (s == 2 * rope))
            theta_b += w[:, i] * w[:, j] * ((-s > 2 * rope) + 0.5 * (-s == 2 * rope))
    if rope == 0:
        return np.mean(theta_a > theta_b) + 0.5 * np.mean(theta_a == theta_b)
    theta = np.column_stack([theta_a, 1 - theta_a - theta_b, theta_b])
    return np.mean(theta.argmax(axis=1) == 0)


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.03])
def test_signed_rank_formula(rope):
    res = pc.bayes_signed_rank_test(A12, B12, rope=rope, random_state=4)
    d = A12 - B12
    mean_a = _signed_rank_mean(d, rope, 0.5)
    sd = res.sample[:, 0].std()
    assert abs(res.sample[:, 0].mean() - mean_a) <= 4 * sd / math.sqrt(res.sample.shape[0])
    ref = _signed_rank_reference(d, rope, 0.5, 20000, seed=9)
    assert abs(res.p_a_better - ref) <= _mc_tolerance(ref, 50000, 20000)
    np.testing.assert_allclose(res.sample.sum(axis=1), 1.0)
    if rope == 0:
        assert np.all(res.sample[:, 1] == 0) and res.p_rope == 0.0


@pytest.mark.parametrize("rope", [0.0, 0.01])
def test_signed_rank_equals_baycomp_within_seed_spread(rope):
    # a close contest (8 wins for A, 7 for B), so the probabilities are away from 0 and 1
    rng = np.random.default_rng(21)
    b = rng.uniform(0.7, 0.9, 15)
    a = b + rng.normal(-0.01, 0.03, 15)
    ours = np.array([tuple(pc.bayes_signed_rank_test(a, b, rope=rope, random_state=s,
                                                     n_samples=20000)) for s in range(5)])
    ref = baycomp.SignedRankTest.probs(a, b, rope=rope, nsamples=20000, random_state=0)
    ref = np.array((ref[0], 0.0, ref[1]) if rope == 0 else ref)
    centre, spread = ours.mean(axis=0), ours.std(axis=0, ddof=1)
    for k in range(3):
        tol = 4 * max(spread[k], math.sqrt(max(ref[k] * (1 - ref[k]), 1e-6) / 20000))
        assert abs(centre[k] - ref[k]) <= tol
    assert 0.1 < ref[0] < 0.9  # the comparison is informative


def test_signed_rank_prior_place_and_degenerate():
    d_a, d_b = A12, B12
    base = pc.bayes_signed_rank_test(d_a, d_b, rope=0.03, random_state=0)
    for_a = pc.bayes_signed_rank_test(d_a, d_b, rope=0.03, prior_place="a_better",
                                      random_state=0)
    for_b = pc.bayes_signed_rank_test(d_a, d_b, rope=0.03, prior_place="b_better",
                                      random_state=0)
    assert for_b.sample[:, 0].mean() <= base.sample[:, 0].mean() <= for_a.sample[:, 0].mean()
    same = pc.bayes_signed_rank_test(d_a, d_a, n_samples=2000, random_state=0)
    assert tuple(same) == (0.5, 0.0, 0.5) and same.degenerate
    # (here every draw has theta_a = theta_b = 1/2 up to rounding, so comparing the two draw by
    # draw, as baycomp does, returns whatever the rounding favours)
    no_prior = pc.bayes_signed_rank_test(d_a, d_b, prior_strength=0, n_samples=2000,
                                         random_state=0)
    assert no_prior.p_a_better > 0.9


@pytest.mark.parametrize("func", [pc.bayes_sign_test, pc.bayes_signed_rank_test])
@pytest.mark.parametrize("kwargs, match", [
    ({"rope": -1}, "rope must be a finite number >= 0"),
    ({"prior_strength": -1}, "prior_strength must be a finite number >= 0"),
    ({"prior_place": "left"}, "prior_place must be one of"),
    ({"n_samples": 0}, "n_samples must be an integer >= 1"),
])
def test_multiple_bad_input(func, kwargs, match):
    with pytest.raises(ValueError, match=match):
        func(A12, B12, **kwargs)


@pytest.mark.parametrize("func", [pc.bayes_sign_test, pc.bayes_signed_rank_test])
def test_multiple_bad_scores_name_arguments(func):
    with pytest.raises(ValueError, match="x and y must have the same shape"):
        func(A12, B12[:5])
    with pytest.raises(ValueError, match="y must hold finite scores"):
        func(A12, np.where(np.arange(12) == 3, np.nan, B12))


def test_result_object():
    res = pc.bayes_sign_test(A12, B12, rope=0.01, n_samples=500, random_state=0)
    p_a, p_rope, p_b = res
    assert len(res) == 3 and p_a + p_rope + p_b == pytest.approx(1.0)
    frame = res.to_frame()
    assert {"p_a_better", "p_rope", "p_b_better", "rope", "method", "n", "n_a_better"} <= set(
        frame.columns)
    assert "P(A better)" in str(res) and "P(A better)" in res._repr_html_()
    assert res.decision(0.999, names=("svm", "tree")).startswith("undecided")
    with pytest.raises(ValueError, match="p_a_better must lie in"):
        pc.stats.bayesian.BayesianComparison(1.5, 0.0, 0.0, rope=0.0, method="m", n=1)


# --------------------------------------------------------------------------------------------
# plots (structure, not pixels)
# --------------------------------------------------------------------------------------------


def test_posterior_plot_regions():
    import precmp_lib.course.plots as plots

    a, b = _fold_scores(3)
    res = pc.bayes_correlated_ttest(a, b, rope=0.01)
    ax = plots.bayesian_posterior_plot(res, names=("svm", "tree"))
    assert len(ax.lines) == 2  # density and the dashed zero line
    assert len(ax.collections) == 3  # B better, rope, A better
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == f"tree better: {res.p_b_better:.3f}"
    assert legend[2] == f"svm better: {res.p_a_better:.3f}"
    x = ax.lines[0].get_xdata()
    assert x.min() <= -0.011 and x.max() >= 0.011
    no_rope = plots.bayesian_posterior_plot(pc.bayes_correlated_ttest(a, b))
    assert len(no_rope.collections) == 2
    point = plots.bayesian_posterior_plot(pc.bayes_correlated_ttest(a, a, rope=0.01))
    assert len(point.patches) == 1  # the rope span around a point mass


def test_simplex_plot_points_and_labels():
    import precmp_lib.course.plots as plots

    res = pc.bayes_sign_test(A12, B12, rope=0.01, n_samples=3000, random_state=0)
    ax = plots.bayesian_simplex_plot(res, max_points=1000)
    assert len(ax.collections) == 1
    offsets = ax.collections[0].get_offsets()
    assert len(offsets) == 1000
    x, y = np.asarray(offsets).T
    assert np.all(y >= -1e-12) and np.all(y <= np.sqrt(3) * np.minimum(x, 1 - x) + 1e-9)
    # draws favour A: their mean lies in A's third (left of the rope-A/B dividing lines)
    assert x.mean() < 0.5
    texts = [t.get_text() for t in ax.texts]
    assert f"A better\n{res.p_a_better:.3f}" in texts
    assert len(ax.lines) == 4  # triangle and three dividing lines
    with pytest.raises(ValueError, match="posterior sample"):
        plots.bayesian_simplex_plot(pc.bayes_correlated_ttest(A12, B12))
    with pytest.raises(ValueError, match="Student posterior"):
        plots.bayesian_posterior_plot(res)
