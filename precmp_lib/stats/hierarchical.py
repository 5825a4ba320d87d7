"""The hierarchical Bayesian model of two classifiers across data sets (Corani et al. 2017).

With per-fold scores of two models on q data sets, each data set's K = folds x repeats
differences of score (A - B) carry more than their mean: the model of Corani, Benavoli, Demšar,
Mangili and Zaffalon (2017, "Statistical comparison of classifiers through Bayesian
hierarchical modelling", *Machine Learning* 106) pools them.

**The model.** For data set i the vector x_i of its K differences is multivariate normal with
mean δ_i on every fold, variance σ_i² and the same correlation ρ between any two folds, ρ = 1 /
folds (the test fraction of a K-fold cross-validation, Nadeau and Bengio's correlation of
overlapping training sets). The data sets' means are drawn from a Student t,
δ_i ~ t(ν, δ₀, σ₀), whose heavy tails keep one odd data set from dragging δ₀. The priors are
those of the paper (and of baycomp 1.0.3's ``HierarchicalTest``), on the data rescaled by the
mean of the data sets' standard deviations s̄ (the ROPE rescaled alike):

- δ₀ ~ U(-m, m), m the largest absolute difference;
- σ₀ ~ U(0, 1000 s_among), s_among the standard deviation of the data sets' mean differences;
- σ_i ~ U(0, 1000 s_within), s_within the mean of the data sets' standard deviations;
- ν - 1 ~ Gamma(α, β) with α ~ U(1, 2) and β ~ U(0.01, 0.1) (shape, rate).

A data set whose differences are all equal gets K/2 draws from U(-rope, rope) and their
negatives, as baycomp does, so that its σ_i is not zero.

**The answer** is about the next data set: its δ is t(ν, δ₀, σ₀), and each posterior draw gives
the probabilities that δ > rope (A better), |δ| <= rope, δ < -rope (B better). Following baycomp,
``p_a_better``, ``p_rope`` and ``p_b_better`` are the shares of posterior draws in which each
region is the most probable; the posterior means of the three (the predictive probabilities)
and the posterior of δ₀ in score units are in ``details``.

**The sampler** is NUTS (the no-U-turn sampler) in NumPyro, an optional extra (the file
``requirements-bayes.txt``): NumPyro is maintained, installs from pip as CPU wheels (JAX and
jaxlib) with no compiler, and compiles this model with XLA once per shape of the data; the
ten pairs of five models on 20 data sets take some 25 s of CPU time after a compilation of
about 14 s (``bench/bench_datasets.py``). Stan, the library of the paper and of
baycomp, compiles each model with a C++ toolchain at run time. NumPyro is imported only when
this model is asked for. The likelihood uses the closed forms of the equicorrelated normal: with
m_i the mean and S_i the centred sum of squares of x_i,
(x_i - δ_i)ᵀ M⁻¹ (x_i - δ_i) = S_i / (1 - ρ) + K (m_i - δ_i)² / (1 + (K - 1) ρ) and
log det M = (K - 1) log(1 - ρ) + log(1 + (K - 1) ρ), M the correlation matrix; the δ_i are
sampled as δ₀ + σ₀ z_i with z_i ~ t(ν, 0, 1), and each σ_i is integrated out in closed form
(an upper incomplete gamma function, docs/methods.md 5.4): the same posterior of δ₀, σ₀ and ν
in a form NUTS explores with fewer steps and no divergences.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lib.dist import stats
from .bayesian import BayesianComparison, _winner_probabilities

__all__ = ["REQUIREMENTS", "HierarchicalUnavailable", "hierarchical_test", "hierarchical_tests"]

REQUIREMENTS = "requirements-bayes.txt"
CITATION = ("Corani, Benavoli, Demšar, Mangili & Zaffalon (2017), Statistical comparison of "
            "classifiers through Bayesian hierarchical modelling, Machine Learning 106")
METHOD = "Bayesian hierarchical model (Corani et al. 2017)"
# baycomp's bounds of the hyper-priors (HierarchicalTest's defaults)
LOWER_ALPHA, UPPER_ALPHA = 1.0, 2.0
LOWER_BETA, UPPER_BETA = 0.01, 0.1
UPPER_SIGMA = 1000.0


class HierarchicalUnavailable(ImportError):
    """NumPyro (the optional extra of the hierarchical model) is not installed."""


def _numpyro() -> Any:
    """Import NumPyro (and JAX in double precision), or say in one line what to install."""
    try:
        import jax
        import numpyro
    except ImportError:
        raise HierarchicalUnavailable(
            "the hierarchical Bayesian model needs NumPyro: pip install -r "
            f"{REQUIREMENTS}") from None
    jax.config.update("jax_enable_x64", True)
    return numpyro


_SAMPLERS: dict[tuple[int, ...], Any] = {}


def _model(numpyro: Any) -> Any:
    """Return the model of P pairs at once: P independent posteriors as one density."""
    dist = numpyro.distributions
    import jax.numpy as jnp
    from jax.scipy.special import gammaincc, gammaln

    def model(mean: Any, ss: Any, k: Any, rho: Any, delta_hi: Any, std0_hi: Any,
              std_hi: Any) -> None:
        pairs, q = mean.shape
        with numpyro.plate("pairs", pairs, dim=-1):
            delta0 = numpyro.sample("delta0", dist.Uniform(-delta_hi, delta_hi))
            std0 = numpyro.sample("std0", dist.Uniform(0.0, std0_hi))
            alpha = numpyro.sample("gamma_alpha", dist.Uniform(LOWER_ALPHA, UPPER_ALPHA))
            beta = numpyro.sample("gamma_beta", dist.Uniform(LOWER_BETA, UPPER_BETA))
            nu = numpyro.deterministic("nu", numpyro.sample("nu_minus_one",
                                                            dist.Gamma(alpha, beta)) + 1.0)
        with numpyro.plate("pairs_", pairs, dim=-2), numpyro.plate("datasets", q, dim=-1):
            z = numpyro.sample("z", dist.StudentT(nu[:, None], 0.0, 1.0))
        delta = delta0[:, None] + std0[:, None] * z
        quad = ss / (1.0 - rho) + k * (mean - delta) ** 2 / (1.0 + (k - 1.0) * rho)
        # σ_i ~ U(0, H) integrated out: ∫ σ^-K exp(-Q / 2σ²) dσ / H
        #   = Γ(s) Q(s, Q / 2H²) (Q / 2)^-s / 2H, s = (K - 1) / 2, Q(s, x) the regularised
        # upper incomplete gamma function
        s = (k - 1.0) / 2.0
        h = std_hi[:, None]
        log_lik = (-s * jnp.log(quad / 2.0) + jnp.log(gammaincc(s, quad / (2.0 * h ** 2)))
                   + gammaln(s) - jnp.log(2.0 * h)
                   - 0.5 * ((k - 1.0) * jnp.log1p(-rho) + jnp.log1p((k - 1.0) * rho))
                   - 0.5 * k * math.log(2 * math.pi))
        numpyro.factor("folds", jnp.sum(log_lik))

    return model


def _sampler(chains: int, warmup: int, samples: int, shape: tuple[int, int]) -> Any:
    """One NUTS sampler per setting and shape of the data, its compiled model reused."""
    key = (chains, warmup, samples, *shape)
    if key not in _SAMPLERS:
        numpyro = _numpyro()
        from numpyro.infer import MCMC, NUTS

        _SAMPLERS[key] = MCMC(NUTS(_model(numpyro)), num_warmup=warmup, num_samples=samples,
                              num_chains=chains, chain_method="vectorized",
                              progress_bar=False, jit_model_args=True)
    return _SAMPLERS[key]


def _prepared(diff: np.ndarray, rope: float, rng: np.random.Generator
              ) -> tuple[np.ndarray, float, float]:
    """Rescale the differences as baycomp does; fill data sets of zero variance."""
    scale = float(np.mean(np.std(diff, axis=1)))
    diff = diff / scale
    rope = rope / scale
    half = diff.shape[1] // 2
    for row in diff:
        if np.ptp(row) == 0:
            row[:half] = rng.uniform(-rope, rope, half)
            row[half:2 * half] = -row[:half]
    return diff, rope, scale


def _diagnostics(grouped: dict[str, np.ndarray], p: int) -> dict[str, float]:
    """Largest split R-hat and smallest effective sample size of pair p's δ₀, σ₀ and ν."""
    from numpyro.diagnostics import effective_sample_size, split_gelman_rubin

    rhat, ess = [], []
    for name in ("delta0", "std0", "nu"):
        draws = grouped[name][:, :, p]
        rhat.append(float(split_gelman_rubin(draws)) if draws.shape[0] > 1 else math.nan)
        ess.append(float(effective_sample_size(draws)))
    return {"rhat_max": max(rhat), "ess_min": min(ess)}


def hierarchical_tests(differences: npt.ArrayLike, rope: float, *, folds: int,
                       chains: int = 4, warmup: int = 500, samples: int = 1000,
                       random_state: int = 0) -> list[BayesianComparison]:
    """Fit the hierarchical model to each pair's per-fold differences (A - B).

    Parameters
    ----------
    differences : array of shape (pairs, q, K)
        For each pair, each data set's K = folds x repeats differences of score, A - B (higher
        is better; negate errors).
    rope : float
        Half-width of the region of practical equivalence, score units (>= 0).
    folds : int
        The K of K-fold cross-validation: the correlation of two folds' differences is 1 /
        folds.
    chains, warmup, samples : int
        NUTS chains (run side by side, vectorised), warm-up iterations and kept draws per chain.
        The pairs are sampled together, as one density that is the product of their
        independent posteriors (the mass matrix is adapted per parameter, the step size is
        shared): the model is compiled once and each step serves every pair.
    random_state : int
        Seed of the sampler (and of the fill of data sets whose differences are constant).

    Returns
    -------
    list of BayesianComparison
        One per pair; ``details`` holds ``delta0_mean``, ``delta0_low``, ``delta0_high`` (95%
        central interval, score units), the predictive probabilities ``predictive_a_better``,
        ``predictive_rope``, ``predictive_b_better``, the diagnostics ``rhat_max`` and
        ``ess_min`` (over δ₀, σ₀ and ν), ``divergences`` (of the joint run), and the
        sampler's settings.

    Raises
    ------
    HierarchicalUnavailable
        When NumPyro is not installed (an ``ImportError`` naming ``requirements-bayes.txt``).
    """
    d = np.array(differences, dtype=float)
    if d.ndim != 3 or d.shape[1] < 2 or d.shape[2] < 2:
        raise ValueError("the hierarchical model needs, per pair, at least two data sets of at "
                         f"least two folds each; got differences of shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("the hierarchical model needs finite per-fold differences")
    if not (math.isfinite(rope) and rope >= 0):
        raise ValueError(f"rope must be a finite number >= 0; got {rope!r}")
    if folds < 2:
        raise ValueError(f"folds must be at least 2; got {folds}")
    numpyro = _numpyro()
    import jax

    k = d.shape[2]
    rho = 1.0 / folds
    out: list[BayesianComparison | None] = [None] * len(d)
    live, prepared = [], []
    rng = np.random.default_rng(random_state)
    for p, pair in enumerate(d):
        if np.all(np.ptp(pair, axis=1) == 0):
            out[p] = _constant(pair, rope, k)
        else:
            live.append(p)
            prepared.append(_prepared(pair.copy(), rope, rng))
    if live:
        x = np.stack([e[0] for e in prepared])
        mean = x.mean(axis=2)
        ss = ((x - mean[:, :, None]) ** 2).sum(axis=2)
        mcmc = _sampler(chains, warmup, samples, mean.shape)
        mcmc.run(jax.random.PRNGKey(random_state), mean, ss, float(k), rho,
                 np.abs(x).max(axis=(1, 2)), np.std(mean, axis=1) * UPPER_SIGMA,
                 np.std(x, axis=2).mean(axis=1) * UPPER_SIGMA, extra_fields=("diverging",))
        grouped = {n: np.asarray(v) for n, v in mcmc.get_samples(group_by_chain=True).items()}
        divergences = int(np.sum(np.asarray(mcmc.get_extra_fields()["diverging"])))
        for i, p in enumerate(live):
            out[p] = _summary(grouped, i, prepared[i][1], prepared[i][2], rope, divergences,
                              {"chains": chains, "warmup": warmup, "samples": samples,
                               "rho": rho, "datasets": int(d.shape[1]),
                               "folds_per_dataset": k, "pairs_sampled_together": len(live),
                               "sampler": f"NUTS (NumPyro {numpyro.__version__})"})
    return [r for r in out if r is not None]


def _summary(grouped: dict[str, np.ndarray], i: int, r: float, scale: float, rope: float,
             divergences: int, settings: dict[str, Any]) -> BayesianComparison:
    """Pair i's probabilities for the next data set, δ₀ in score units and diagnostics."""
    mu = grouped["delta0"][:, :, i].ravel()
    sd = grouped["std0"][:, :, i].ravel()
    nu = grouped["nu"][:, :, i].ravel()
    b_better = stats.t.cdf(-r, nu, mu, sd)
    a_better = stats.t.sf(r, nu, mu, sd)
    sample = np.column_stack([a_better, 1.0 - a_better - b_better, b_better])
    (pa, pr, pb), _ = _winner_probabilities(sample, r)
    low, high = np.quantile(mu * scale, [0.025, 0.975])
    details = {"delta0_mean": float(mu.mean() * scale), "delta0_low": float(low),
               "delta0_high": float(high),
               "predictive_a_better": float(a_better.mean()),
               "predictive_rope": float(sample[:, 1].mean()),
               "predictive_b_better": float(b_better.mean()),
               **_diagnostics(grouped, i), "divergences": divergences, **settings}
    return BayesianComparison(pa, pr, pb, rope=rope, method=METHOD,
                              n=int(settings["datasets"]), sample=sample, details=details)


def _constant(pair: np.ndarray, rope: float, k: int) -> BayesianComparison:
    """Every data set's differences are constant: the model has no spread to scale by."""
    m = float(pair.mean())
    a, b = float(m > rope), float(m < -rope)
    if rope == 0 and m == 0:
        a = b = 0.5
    return BayesianComparison(a, 1.0 - a - b, b, rope=rope, method=METHOD, n=pair.shape[0],
                              degenerate=True,
                              note="every data set's differences are constant: no spread to "
                                   "model; the probabilities say where the common mean lies",
                              details={"delta0_mean": m, "delta0_low": m, "delta0_high": m,
                                       "folds_per_dataset": k})


def hierarchical_test(scores_a: npt.ArrayLike, scores_b: npt.ArrayLike, rope: float = 0.01, *,
                      folds: int, chains: int = 4, warmup: int = 500, samples: int = 1000,
                      random_state: int = 0) -> BayesianComparison:
    """Compare A and B across data sets from their per-fold scores (Corani et al. 2017).

    Parameters
    ----------
    scores_a, scores_b : array of shape (q, K)
        Each data set's scores on its K = folds x repeats folds, the same folds for A and B,
        higher is better.
    rope : float
        Half-width of the region of practical equivalence, score units.
    folds : int
        The K of K-fold cross-validation (the correlation of two folds is 1 / folds).
    chains, warmup, samples, random_state
        As :func:`hierarchical_tests`.

    Returns
    -------
    BayesianComparison
        ``p_a_better``, ``p_rope``, ``p_b_better`` for the next data set (see the module text),
        with the posterior of δ₀ and the sampler's diagnostics in ``details``.
    """
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError("scores_a and scores_b must be arrays of the same shape (data sets, "
                         f"folds); got {a.shape} and {b.shape}")
    return hierarchical_tests((a - b)[None], rope, folds=folds, chains=chains, warmup=warmup,
                              samples=samples, random_state=random_state)[0]
