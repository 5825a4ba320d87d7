"""Type-I error of the resampling tests and of the p-value combinations, by simulation.

The course notebooks show where tests break by simulating data where the null hypothesis
holds and counting how often each test rejects. :func:`type1_error_simulation` does it for the
tests on resampled scores (notebook 02): two equally good learners scored on the same splits,
so the uncorrected t-tests reject far more often than alpha. :func:`combination_type1_error`
and :func:`swap_combination_type1_error` do it for combinations of dependent p-values
(notebook 06). The tests are the library's, run on whole batches of simulated data sets at
once (:func:`precmp_lib.stats.resampling.resampled_t_pvalues`,
:func:`precmp_lib.stats.combine.combine_pvalue_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from .._lib.aliases import RandomStateLike
from .._lib.checks import (
    as_unit_interval,
    check_choice,
    check_choices,
    check_positive_int,
    check_probability,
    check_random_state,
)
from ..stats.combine import (
    COMBINE_METHODS,
    COMBINED_PRECISION_METHODS,
    SwapPermutationNull,
    combine_pvalue_rows,
    combined_precision_test,
    swap_permutation_null,
)
from ..stats.resampling import cv5x2_pvalues, resampled_t_pvalues, resampling_test_guide

__all__ = [
    "Type1ErrorSimulation",
    "combination_type1_error",
    "swap_combination_type1_error",
    "type1_error_simulation",
]


# --------------------------------------------------------------------------------------------
# resampling tests on two equally good learners
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Type1ErrorSimulation:
    """P-values of every resampling test over simulated data sets.

    Attributes
    ----------
    pvalues : DataFrame
        One row per simulated data set, one column per test key (see
        :func:`precmp_lib.stats.resampling.resampling_test_guide`).
    alpha : float
        Level at which a p-value counts as a rejection.
    settings : dict
        The simulation's parameters, and the mean accuracies of A and B it produced.
    """

    pvalues: pd.DataFrame
    alpha: float = 0.05
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def rates(self) -> pd.DataFrame:
        """Rejection rate of each test with its Monte Carlo SE and 95 % Wilson interval.

        Columns: ``key``, ``test``, ``n_resamples``, ``rejections``, ``n_simulations``,
        ``rejection_rate``, ``mc_se``, ``ci_low``, ``ci_high``.
        """
        n = len(self.pvalues)
        k = (self.pvalues.to_numpy() <= self.alpha).sum(axis=0).astype(float)
        rate = k / n
        z = stats.norm.isf(0.025)
        centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        keys = list(self.pvalues.columns)
        j = self.settings.get("n_resamples_by_test", {})
        labels = resampling_test_guide()["test"]
        return pd.DataFrame({
            "key": keys, "test": [labels[key] for key in keys],
            "n_resamples": [j.get(key) for key in keys],
            "rejections": k.astype(int), "n_simulations": n, "rejection_rate": rate,
            "mc_se": np.sqrt(rate * (1 - rate) / n), "ci_low": centre - half,
            "ci_high": centre + half,
        })


def _stratified_labels(rng: np.random.Generator, shape: tuple[int, ...], n0: int, n1: int,
                       base0: np.ndarray, base1: np.ndarray) -> np.ndarray:
    """Per-observation labels (e.g. fold numbers) permuted within each class independently."""
    lab0 = rng.permuted(np.broadcast_to(base0, (*shape, n0)), axis=-1)
    lab1 = rng.permuted(np.broadcast_to(base1, (*shape, n1)), axis=-1)
    return np.concatenate([lab0, lab1], axis=-1)


def _centroid_accuracies(
    X: np.ndarray, is1: np.ndarray, test: np.ndarray, h: int
) -> list[np.ndarray]:
    """Test accuracy of nearest-centroid learners on features [:h] (A) and [h:] (B).

    X (R, n, 2h); is1 (n,) bool; test (R, J, n) bool. Returns two (R, J) arrays.
    """
    train = ~test
    w1 = (train & is1).astype(float)
    w0 = (train & ~is1).astype(float)
    mu1 = np.einsum("rjn,rnp->rjp", w1, X) / w1.sum(axis=-1, keepdims=True)
    mu0 = np.einsum("rjn,rnp->rjp", w0, X) / w0.sum(axis=-1, keepdims=True)
    n_test = test.sum(axis=-1)
    out: list[np.ndarray] = []
    for block in (slice(0, h), slice(h, 2 * h)):
        m1, m0 = mu1[..., block], mu0[..., block]
        w = m1 - m0
        b = 0.5 * ((m1**2).sum(-1) - (m0**2).sum(-1))
        score = np.einsum("rnp,rjp->rjn", X[..., block], w) - b[..., None]
        correct = (score > 0) == is1
        out.append((correct & test).sum(axis=-1) / n_test)
    return out


@dataclass(frozen=True)
class _SimulationDesign:
    """The checked sizes of :func:`type1_error_simulation` and the quantities derived from them."""

    n: int
    h: int
    J: int
    K: int
    r: int
    size: float
    sep: float
    eff: float
    n0: int
    n1: int
    t0: int
    t1: int


def _checked_design(
    n: int, h: int, J: int, K: int, r: int, size: float, separation: float, effect: float
) -> _SimulationDesign:
    """Check the separation and the split sizes of :func:`type1_error_simulation`."""
    sep = float(separation)
    eff = float(effect)
    if not (np.isfinite(sep) and sep >= 0 and np.isfinite(eff)):
        raise ValueError(f"separation must be finite and >= 0 and effect finite; got "
                         f"{separation!r}, {effect!r}")
    n0 = n // 2
    n1 = n - n0
    if n0 < 2 * K:
        raise ValueError(f"n_samples must give every fold at least 2 observations per class "
                         f"(n_samples >= {4 * K} for n_folds={K}); got {n}")
    t0, t1 = round(size * n0), round(size * n1)
    if not (0 < t0 < n0 - 1 and 0 < t1 < n1 - 1):
        raise ValueError(f"test_size={size} leaves an empty test or training class for "
                         f"n_samples={n}")
    return _SimulationDesign(n=n, h=h, J=J, K=K, r=r, size=size, sep=sep, eff=eff,
                             n0=n0, n1=n1, t0=t0, t1=t1)


def _simulate_batch(
    rng: np.random.Generator, design: _SimulationDesign, R: int
) -> tuple[np.ndarray, float, float]:
    """Simulate ``R`` data sets and test A against B on each split scheme.

    Returns the (R, 8) p-values, in the row order of ``resampling_test_guide()``, and the
    sums over data sets of A's and B's mean accuracy on the random splits.
    """
    n, h, J, K, r = design.n, design.h, design.J, design.K, design.r
    n0, n1, t0, t1 = design.n0, design.n1, design.t0, design.t1
    is1 = np.arange(n) >= n0
    shift = np.concatenate([np.full(h, (design.sep + design.eff) / np.sqrt(h)),
                            np.full(h, design.sep / np.sqrt(h))])
    X = rng.standard_normal((R, n, 2 * h))
    X[:, is1, :] += shift
    # random splits (stratified): test = first t_c of a random order within each class
    test_hold = _stratified_labels(rng, (R, J), n0, n1, np.arange(n0) < t0, np.arange(n1) < t1)
    acc_a, acc_b = _centroid_accuracies(X, is1, test_hold, h)
    d_hold = acc_a - acc_b
    acc_sum_a, acc_sum_b = acc_a.mean(axis=1).sum(), acc_b.mean(axis=1).sum()
    # r x K-fold CV (stratified); the first repetition is the single K-fold CV
    folds = _stratified_labels(rng, (R, r), n0, n1, np.arange(n0) % K, np.arange(n1) % K)
    test_cv = (folds[:, :, None, :] == np.arange(K)[None, None, :, None]).reshape(R, r * K, n)
    acc_a, acc_b = _centroid_accuracies(X, is1, test_cv, h)
    d_cv = acc_a - acc_b
    # 5 x 2-fold CV (stratified)
    halves = _stratified_labels(rng, (R, 5), n0, n1, np.arange(n0) % 2, np.arange(n1) % 2)
    test_52 = (halves[:, :, None, :] == np.arange(2)[None, None, :, None]).reshape(R, 10, n)
    acc_a, acc_b = _centroid_accuracies(X, is1, test_52, h)
    d_52 = (acc_a - acc_b).reshape(R, 5, 2)
    ratio_hold = (t0 + t1) / (n - t0 - t1)
    ratio_k = 1.0 / (K - 1)  # exact when K divides both class sizes; close otherwise
    t_52, f_52 = cv5x2_pvalues(d_52)
    pvals = np.column_stack([
        resampled_t_pvalues(d_hold),
        resampled_t_pvalues(d_hold, test_train_ratio=ratio_hold),
        resampled_t_pvalues(d_cv[:, :K]),
        resampled_t_pvalues(d_cv[:, :K], test_train_ratio=ratio_k),
        resampled_t_pvalues(d_cv),
        resampled_t_pvalues(d_cv, test_train_ratio=ratio_k),
        t_52,
        f_52,
    ])
    return pvals, float(acc_sum_a), float(acc_sum_b)


def type1_error_simulation(
    *,
    n_simulations: int = 500,
    n_samples: int = 200,
    n_features: int = 5,
    separation: float = 1.5,
    effect: float = 0.0,
    n_resamples: int = 30,
    test_size: float = 0.3,
    n_folds: int = 10,
    n_repeats: int = 10,
    alpha: float = 0.05,
    random_state: RandomStateLike = None,
    chunk_size: int = 100,
    progress: bool = True,
) -> Type1ErrorSimulation:
    """How often each resampling test rejects when two learners are equally good.

    Each simulated data set has ``n_samples`` observations of two balanced Gaussian classes and
    ``2 * n_features`` independent features. Learner A is a nearest-centroid classifier on the
    first ``n_features``, learner B the same on the other ``n_features``; both blocks separate
    the classes equally (Mahalanobis distance ``separation``), so A and B have the same expected
    accuracy at every training size — a true null. On each data set both learners are scored on
    the same splits of every scheme (random 70/30 splits, K-fold, r x K-fold, 5x2cv) and every
    test is applied. Everything is vectorised over data sets and splits.

    Parameters
    ----------
    n_simulations : int
        Number of simulated data sets (the Monte Carlo SE of a rate near 0.05 is
        ``sqrt(0.05 · 0.95 / n_simulations)``).
    n_samples : int
        Observations per data set (split evenly between the classes).
    n_features : int
        Features per learner.
    separation : float
        Mahalanobis distance between the class means in each learner's features (1.5 gives a
        Bayes accuracy of Φ(0.75) = 0.77).
    effect : float
        Extra separation for A's features: 0 gives the null; > 0 makes A better (power).
    n_resamples : int
        Random splits J for the resampled tests.
    test_size : float
        Test fraction of the random splits.
    n_folds, n_repeats : int
        K and r of the cross-validations (the K-fold tests use the first repetition).
    alpha : float
        Level of the tests.
    random_state : int, Generator or None
        Seed of the simulation.
    chunk_size : int
        Data sets simulated per vectorised batch (bounds memory).
    progress : bool
        Show a progress bar over the batches.

    Returns
    -------
    Type1ErrorSimulation
        ``pvalues`` (one column per test) and ``rates`` (rejection rates with intervals).

    Notes
    -----
    This is the design of Dietterich (1998) and Nadeau & Bengio (2003) in miniature: the
    tests only see two learners' scores on overlapping splits of one data set; what the
    uncorrected tests miss is that a data set that happens to favour A favours it on every
    split.

    References
    ----------
    Dietterich (1998), Neural Computation 10:1895-1923. Nadeau & Bengio (2003), Machine
    Learning 52:239-281. Bouckaert & Frank (2004), PAKDD. Alpaydın (1999), Neural Computation
    11:1885-1892.

    Examples
    --------
    >>> sim = type1_error_simulation(n_simulations=200, random_state=1, progress=False)
    >>> r = sim.rates.set_index("key")["rejection_rate"]
    >>> bool(r["resampled_t"] > 2 * r["corrected_resampled_t"])
    True

    Under a true null the uncorrected resampled t rejects far more often than the
    Nadeau–Bengio corrected test on the same scores.
    """
    from tqdm.auto import tqdm

    n_sim = check_positive_int(n_simulations, "n_simulations")
    n = check_positive_int(n_samples, "n_samples", minimum=4)
    h = check_positive_int(n_features, "n_features")
    J = check_positive_int(n_resamples, "n_resamples", minimum=2)
    K = check_positive_int(n_folds, "n_folds", minimum=2)
    r = check_positive_int(n_repeats, "n_repeats")
    chunk = check_positive_int(chunk_size, "chunk_size")
    size = check_probability(test_size, "test_size")
    level = check_probability(alpha, "alpha")
    design = _checked_design(n, h, J, K, r, size, separation, effect)
    rng = np.random.default_rng(random_state)
    keys = list(resampling_test_guide().index)
    pvals = np.empty((n_sim, len(keys)))
    acc_sums = np.zeros(2)
    starts = range(0, n_sim, chunk)
    for start in tqdm(starts, disable=not progress, desc="simulated data sets"):
        R = min(chunk, n_sim - start)
        pvals[start:start + R], acc_sum_a, acc_sum_b = _simulate_batch(rng, design, R)
        acc_sums += [acc_sum_a, acc_sum_b]
    settings = {
        "n_simulations": n_sim, "n_samples": n, "n_features": h, "separation": design.sep,
        "effect": design.eff, "n_resamples": J, "test_size": size, "n_folds": K,
        "n_repeats": r,
        "random_state": random_state if isinstance(random_state, int | None) else None,
        "mean_accuracy_a": float(acc_sums[0] / n_sim),
        "mean_accuracy_b": float(acc_sums[1] / n_sim),
        "n_resamples_by_test": {
            "resampled_t": J, "corrected_resampled_t": J, "kfold_t": K, "corrected_kfold_t": K,
            "repeated_kfold_t": r * K, "corrected_repeated_kfold_t": r * K, "ttest_5x2cv": 10,
            "ftest_5x2cv": 10,
        },
    }
    return Type1ErrorSimulation(pvalues=pd.DataFrame(pvals, columns=keys), alpha=level,
                                settings=settings)


# --------------------------------------------------------------------------------------------
# combinations of dependent p-values
# --------------------------------------------------------------------------------------------


def _equicorrelation_factor(rho: float, L: int) -> tuple[np.ndarray, np.ndarray]:
    """Factor ``F`` with ``F F' = R`` for the L x L equicorrelation matrix ``R``; also ``R``."""
    R = np.full((L, L), rho) + (1 - rho) * np.eye(L)
    vals, vecs = np.linalg.eigh(R)
    if vals.min() < -1e-10:
        raise ValueError(f"correlation {rho} is below -1/(L-1) = {-1 / (L - 1):.3g}")
    return vecs * np.sqrt(np.clip(vals, 0, None)), R


def combination_type1_error(
    correlations: npt.ArrayLike,
    *,
    n_tests: int = 2,
    methods: Sequence[str] = ("fisher", "dai_cui", "simes"),
    n_sim: int = 10000,
    alpha: float = 0.05,
    sides: str = "two-sided",
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Type-I error of combination methods when the tests' normal statistics are correlated.

    Draws ``n_sim`` vectors of ``n_tests`` equicorrelated standard normal statistics for each
    correlation, turns them into p-values (two-sided ``2 P(N > |z|)`` or one-sided) and counts
    how often each method rejects at ``alpha``. ``"dai_cui"`` and ``"brown"`` are given the true
    correlation (exact covariances); ``"stouffer"`` gets it too (Strube), which is right only
    for one-sided p-values, so it requires ``sides="one-sided"``.

    Parameters
    ----------
    correlations : float or sequence of float
        Correlations of the statistics, each at least ``-1/(n_tests - 1)``.
    n_tests : int
        L, the number of p-values combined.
    methods : sequence of str
        Methods of :func:`precmp_lib.stats.combine.combine_pvalues`.
    n_sim : int
        Simulated data sets per correlation.
    alpha : float
        Nominal level.
    sides : {"two-sided", "one-sided"}
        How the p-values are formed.
    random_state : None, int or numpy Generator

    Returns
    -------
    DataFrame
        ``correlation``, ``method``, ``rejection_rate``, ``mc_se`` (Monte Carlo standard error
        ``sqrt(r (1 - r) / n_sim)``), ``n_sim``.

    Examples
    --------
    >>> tab = combination_type1_error([0.0, 0.9], n_sim=4000, random_state=0)
    >>> fisher = tab.query("method == 'fisher'").set_index("correlation")["rejection_rate"]
    >>> bool(fisher[0.0] < 0.07 < fisher[0.9])
    True

    Fisher's method holds its level for independent tests and rejects far too often when they
    are strongly correlated.
    """
    check_choices(methods, "methods", COMBINE_METHODS)
    L = check_positive_int(n_tests, "n_tests", minimum=2)
    n = check_positive_int(n_sim, "n_sim")
    check_probability(alpha, "alpha")
    check_choice(sides, "sides", ("two-sided", "one-sided"))
    if "stouffer" in methods and sides != "one-sided":
        raise ValueError(
            "methods includes 'stouffer', whose correlated form needs one-sided p-values; "
            "pass sides='one-sided' or drop it"
        )
    rng = check_random_state(random_state)
    rows = []
    try:
        rhos = np.atleast_1d(np.asarray(correlations, dtype=float))
    except (TypeError, ValueError):
        rhos = np.array([np.nan])
    if rhos.ndim != 1 or rhos.size == 0 or not np.all(np.abs(rhos) <= 1):
        raise ValueError(f"correlations must be one or more numbers in [-1, 1]; got "
                         f"{correlations!r:.80}")
    for rho in rhos:
        factor, R = _equicorrelation_factor(float(rho), L)
        z = rng.standard_normal((n, L)) @ factor.T
        p = 2 * stats.norm.sf(np.abs(z)) if sides == "two-sided" else stats.norm.sf(z)
        for m in methods:
            # dai_cui and brown: Satterthwaite's scaling with the true covariances
            pv = combine_pvalue_rows(p, method=m, correlation=R, sides=sides)
            r = float(np.mean(pv <= alpha))
            rows.append({"correlation": float(rho), "method": m, "rejection_rate": r,
                         "mc_se": math.sqrt(r * (1 - r) / n), "n_sim": n})
    return pd.DataFrame(rows)


def _exchangeable_joint(prevalence: np.ndarray, accuracy: float, agreement: float) -> np.ndarray:
    """Joint probabilities p[y, a, b], symmetric in a and b (so H0 holds exactly).

    Given the truth y, each classifier predicts y with probability ``accuracy`` and any other
    class uniformly; with probability ``agreement`` the two share one draw, else they draw
    independently.
    """
    K = prevalence.size
    q = np.full((K, K), (1 - accuracy) / (K - 1))
    np.fill_diagonal(q, accuracy)
    independent = q[:, :, None] * q[:, None, :]
    shared = q[:, :, None] * np.eye(K)[None]
    return prevalence[:, None, None] * (agreement * shared + (1 - agreement) * independent)


def swap_combination_type1_error(
    *,
    n: int = 300,
    prevalence: Sequence[float] = (0.5, 0.5),
    accuracy: float = 0.7,
    agreement: float = 0.5,
    methods: Sequence[str] = ("fisher", "dai_cui", "simes"),
    n_sim: int = 200,
    n_resamples: int = 200,
    alpha: float = 0.05,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Type-I error of the combined per-class precision test on simulated test sets.

    Each simulated test set has ``n`` observations whose joint (truth, A, B) labels are drawn
    from a distribution that is symmetric in A and B, so the two classifiers have equal
    precision on every class; the per-class GS p-values are combined by
    :func:`precmp_lib.stats.combine.combined_precision_test` (swap-permutation covariance for
    ``"dai_cui"``), each test set with its slice of one batched swap-permutation null.

    Parameters
    ----------
    n : int
        Test-set size.
    prevalence : sequence of float
        Class proportions (K >= 2), summing to 1.
    accuracy : float
        Probability that a classifier predicts the true class.
    agreement : float
        Probability that the two classifiers share one prediction; it drives the dependence
        between the per-class tests.
    methods : sequence of str
        Methods of :func:`precmp_lib.stats.combine.combined_precision_test`.
    n_sim : int
        Simulated test sets.
    n_resamples : int
        Swap permutations per test set.
    alpha : float
        Nominal level.
    random_state : None, int or numpy Generator

    Returns
    -------
    DataFrame
        ``method``, ``rejection_rate``, ``mc_se``, ``n_sim`` (test sets used) and ``n_skipped``
        (test sets where no class comparison was defined).

    Examples
    --------
    >>> tab = swap_combination_type1_error(n_sim=100, n_resamples=100, random_state=0)
    >>> tab["method"].tolist()
    ['fisher', 'dai_cui', 'simes']
    """
    check_choices(methods, "methods", COMBINED_PRECISION_METHODS)
    n_obs = check_positive_int(n, "n", minimum=2)
    R = check_positive_int(n_sim, "n_sim")
    B = check_positive_int(n_resamples, "n_resamples", minimum=2)
    check_probability(alpha, "alpha")
    check_probability(accuracy, "accuracy", low_open=False, high_open=False)
    check_probability(agreement, "agreement", low_open=False, high_open=False)
    prev = as_unit_interval(prevalence, "prevalence", ndim=1)
    if prev.size < 2 or not math.isclose(prev.sum(), 1.0, abs_tol=1e-9):
        raise ValueError(f"prevalence must hold K >= 2 proportions summing to 1; got {prev.tolist()}")
    rng = check_random_state(random_state)
    K = prev.size
    probs = _exchangeable_joint(prev, accuracy, agreement)
    tables = rng.multinomial(n_obs, probs.ravel(), size=R).reshape(R, K, K, K)
    null = swap_permutation_null(tables, n_resamples=B, random_state=rng)
    rejected: dict[str, list[bool]] = {m: [] for m in methods}
    skipped = 0
    classes = list(range(K))
    for r in range(R):
        t = tables[r]
        null_r = SwapPermutationNull(null.pvalues[r], null.statistics[r], null.z[r], B)
        try:
            results = {
                m: combined_precision_test(None, table=t, method=m, labels=classes,
                                           random_state=rng, null=null_r)
                for m in methods
            }
        except ValueError:
            skipped += 1
            continue
        for m, res in results.items():
            rejected[m].append(res.pvalue <= alpha)
    rows = []
    for m in methods:
        used = len(rejected[m])
        rate = float(np.mean(rejected[m])) if used else math.nan
        rows.append({"method": m, "rejection_rate": rate,
                     "mc_se": math.sqrt(rate * (1 - rate) / used) if used else math.nan,
                     "n_sim": used, "n_skipped": skipped})
    return pd.DataFrame(rows)
