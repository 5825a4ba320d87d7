"""Power and sample size for comparing two models: how many items, clusters or repeats are enough.

Like statsmodels' ``stats.power`` classes, each question has its function and the answers are
unrounded numbers (round item counts up yourself):

- McNemar's test on the same items: :func:`mcnemar_power` (normal, Connor 1987, or exact) and
  :func:`mcnemar_sample_size`;
- a paired difference of item scores, items possibly in clusters: :func:`paired_power`,
  :func:`paired_sample_size`, :func:`minimum_detectable_difference`, with
  :func:`design_effect` for clusters of equal size;
- what a comparison's pair detects: :func:`minimum_detectable_difference_from_counts`
  (McNemar's table of a test set) and :func:`minimum_detectable_difference_from_interval` (a
  t interval, as of the corrected repeated k-fold t);
- the corrected repeated k-fold t-test of Nadeau & Bengio: :func:`corrected_ttest_power`.

``p_a_only`` is P(model A right and model B wrong) on an item, ``p_b_only`` P(B right and A
wrong); ``difference`` is the expected score of A minus that of B; ``sd`` the standard deviation
of the per-item (or per-fold) differences.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._lib.checks import check_choice, check_positive_float, check_probability
from .._lib.dist import norm_isf, norm_sf, stats, t_isf
from .results import ALTERNATIVES

__all__ = [
    "corrected_ttest_power",
    "design_effect",
    "mcnemar_power",
    "mcnemar_sample_size",
    "minimum_detectable_difference",
    "minimum_detectable_difference_from_counts",
    "minimum_detectable_difference_from_interval",
    "paired_power",
    "paired_sample_size",
    "repeated_answers_plan",
]

MCNEMAR_POWER_METHODS = ("normal", "exact")


def _z(alpha: float, alternative: str) -> float:
    """Return the critical normal value: z_{1-alpha/2} two-sided, z_{1-alpha} one-sided."""
    return float(norm_isf(alpha / 2.0 if alternative == "two-sided" else alpha))


def _phi(x: float) -> float:
    return float(norm_sf(-x))


def _discordance(p_a_only: Any, p_b_only: Any) -> tuple[float, float]:
    """(p_disc, delta) of two discordance probabilities, checked."""
    pa = check_probability(p_a_only, "p_a_only", low_open=False, high_open=False)
    pb = check_probability(p_b_only, "p_b_only", low_open=False, high_open=False)
    if pa + pb > 1:
        raise ValueError(f"p_a_only + p_b_only must be at most 1 (they are probabilities of "
                         f"disjoint events); got {pa:g} + {pb:g}")
    if pa + pb == 0:
        raise ValueError("p_a_only and p_b_only must not both be 0: with no discordant items "
                         "McNemar's test cannot reject")
    return pa + pb, pa - pb


def _signed(delta: float, alternative: str) -> float:
    """Return the effect in the direction of the alternative (|delta| when two-sided)."""
    if alternative == "two-sided":
        return abs(delta)
    return delta if alternative == "greater" else -delta


def mcnemar_power(
    n: float,
    p_a_only: float,
    p_b_only: float,
    *,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    method: str = "normal",
) -> float:
    """Power of McNemar's test of equal accuracy on n items.

    Parameters
    ----------
    n : float
        Items both models answer (> 0; a whole number for ``method="exact"``).
    p_a_only, p_b_only : float
        P(only A right) and P(only B right) on an item; their sum is the discordance.
    alpha : float
        Level of the test.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is more accurate.
    method : {"normal", "exact"}
        ``"normal"``: Connor's (1987) normal approximation, for the chi-square test.
        ``"exact"``: the unconditional power of the exact (binomial) test,
        :func:`precmp_lib.mcnemar` with ``method="exact"`` and rejection at p <= alpha.

    Returns
    -------
    float
        The probability that the test rejects, in [0, 1].

    Notes
    -----
    With p_disc = p_a + p_b and δ = p_a - p_b, Connor's power (two-sided) is
    Φ((|δ| √n - z_{1-α/2} √p_disc) / √(p_disc - δ²)); one-sided uses z_{1-α} and the signed δ.
    The exact power sums over the number m of discordant items:
    Σ_m Bin(m; n, p_disc) · P(the exact conditional test rejects | m), where given m the items
    only A gets right are Bin(m, p_a / p_disc).

    References
    ----------
    Connor (1987), Sample size for testing differences in proportions for the paired-sample
    design, Biometrics 43:207-211. Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol
    13:91.

    Examples
    --------
    A is right on 15 % of items B gets wrong, B on 10 % of items A gets wrong:

    >>> round(mcnemar_power(500, 0.15, 0.10), 3)
    0.609
    >>> round(mcnemar_power(500, 0.15, 0.10, method="exact"), 3)
    0.577

    With 500 items the five-point difference is found about six times in ten; the exact test,
    slightly conservative, a little less often.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(method, "method", MCNEMAR_POWER_METHODS)
    a = check_probability(alpha, "alpha")
    p_disc, delta = _discordance(p_a_only, p_b_only)
    if method == "exact":
        return _exact_mcnemar_power(_whole_items(n), p_a_only, p_disc, a, alternative)
    size = check_positive_float(n, "n")
    spread = p_disc - delta * delta
    effect = _signed(delta, alternative)
    top = effect * math.sqrt(size) - _z(a, alternative) * math.sqrt(p_disc)
    if spread <= 0:  # every item discordant one way: the test rejects once n clears the bar
        return 1.0 if top > 0 else 0.0
    return _phi(top / math.sqrt(spread))


def _whole_items(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int | float | np.integer | np.floating):
        raise ValueError(f"n must be a whole number of items >= 1; got {n!r:.60}")
    if not math.isfinite(float(n)) or float(n) != round(float(n)) or n < 1:
        raise ValueError(f"n must be a whole number of items >= 1 for method='exact'; got {n!r}")
    return int(n)


def _exact_mcnemar_power(n: int, p_a: float, p_disc: float, alpha: float,
                         alternative: str) -> float:
    m = np.arange(n + 1)
    weight = stats.binom.pmf(m, n, p_disc)
    q = p_a / p_disc
    if alternative == "two-sided":
        # largest k with 2 P(Bin(m, 1/2) <= k) <= alpha: reject when b <= k or b >= m - k
        k = _critical_low(m, alpha / 2.0)
        reject = stats.binom.cdf(k, m, q) + stats.binom.sf(m - k - 1, m, q)
        reject = np.where(k >= 0, reject, 0.0)
    else:
        k = _critical_low(m, alpha)
        side_q = q if alternative == "less" else 1.0 - q
        reject = np.where(k >= 0, stats.binom.cdf(k, m, side_q), 0.0)
    return float(np.clip(np.sum(weight * reject), 0.0, 1.0))


def _critical_low(m: np.ndarray, tail: float) -> np.ndarray:
    """Per m, the largest k with P(Bin(m, 1/2) <= k) <= tail (-1 when there is none)."""
    k = stats.binom.ppf(tail, m, 0.5).astype(int)
    k = np.where(stats.binom.cdf(k, m, 0.5) <= tail, k, k - 1)
    return k


def mcnemar_sample_size(
    p_a_only: float,
    p_b_only: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Items McNemar's test needs to detect a difference in accuracy (Connor 1987).

    Parameters
    ----------
    p_a_only, p_b_only : float
        P(only A right) and P(only B right) on an item (they must differ).
    power : float
        The wanted probability of rejecting.
    alpha : float
        Level of the test.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is more accurate (needs p_a_only > p_b_only).

    Returns
    -------
    float
        The number of items, unrounded (round up).

    Notes
    -----
    n = [z_{1-α/2} √p_disc + z_{1-β} √(p_disc - δ²)]² / δ² with p_disc = p_a + p_b,
    δ = p_a - p_b and 1 - β the power (z_{1-α} one-sided). It inverts the normal
    :func:`mcnemar_power` exactly.

    References
    ----------
    Connor (1987), Biometrics 43:207-211.

    Examples
    --------
    >>> round(mcnemar_sample_size(0.15, 0.10), 1)
    782.5

    Detecting the five-point difference with 80 % power needs about 782 items; the
    discordance matters as much as the difference: with p_a_only = 0.07, p_b_only = 0.02 it is

    >>> round(mcnemar_sample_size(0.07, 0.02), 1)
    280.2
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    a = check_probability(alpha, "alpha")
    pw = check_probability(power, "power")
    p_disc, delta = _discordance(p_a_only, p_b_only)
    effect = _signed(delta, alternative)
    if effect <= 0:
        raise ValueError(f"p_a_only and p_b_only must differ in the direction of the alternative "
                         f"({alternative!r}); got {p_a_only!r} and {p_b_only!r}")
    z_b = float(norm_isf(1.0 - pw))
    root = _z(a, alternative) * math.sqrt(p_disc) + z_b * math.sqrt(max(p_disc - delta * delta, 0))
    return root * root / (delta * delta)


def design_effect(cluster_size: float, icc: float) -> float:
    """Variance inflation of a mean over clusters of equal size: 1 + (m - 1) ρ.

    Parameters
    ----------
    cluster_size : float
        m, items per cluster (>= 1; a mean size is a fair approximation).
    icc : float
        ρ, the intra-cluster correlation of the item differences, in [0, 1].

    Returns
    -------
    float

    References
    ----------
    Kish (1965), Survey Sampling, Wiley, section 5.4.

    Examples
    --------
    Ten questions per passage that correlate at 0.2 count like 10 / 2.8 = 3.6 independent ones:

    >>> round(design_effect(10, 0.2), 2)
    2.8
    """
    return _inflation(cluster_size, icc)


def _inflation(cluster_size: Any, icc: Any) -> float:
    m = check_positive_float(cluster_size, "cluster_size")
    if m < 1:
        raise ValueError(f"cluster_size must be at least 1 item; got {m!r}")
    rho = check_probability(icc, "icc", low_open=False, high_open=False)
    return 1.0 + (m - 1.0) * rho


def _deff(n_items: float, n_clusters: Any, icc: Any, deff: Any) -> float:
    """Return the design effect from one description: ``deff``, or clusters and ``icc``."""
    if deff is not None:
        if n_clusters is not None:
            raise ValueError("design_effect and n_clusters must not both be given: the design "
                             "effect already describes the clusters")
        d = check_positive_float(deff, "design_effect")
        return d
    if n_clusters is None:
        rho = check_probability(icc, "icc", low_open=False, high_open=False)
        if rho != 0:
            raise ValueError(f"icc needs n_clusters (or pass design_effect); got icc={rho!r} "
                             "without clusters")
        return 1.0
    c = check_positive_float(n_clusters, "n_clusters")
    if c > n_items:
        raise ValueError(f"n_clusters must not exceed the items; got {c:g} clusters of "
                         f"{n_items:g} items")
    return _inflation(n_items / c, icc)


def paired_power(
    n_items: float,
    difference: float,
    sd: float,
    *,
    n_clusters: float | None = None,
    icc: float = 0.0,
    design_effect: float | None = None,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Power of the paired z test (:func:`precmp_lib.paired_difference`) on n items.

    Parameters
    ----------
    n_items : float
        Items both models answer (> 0).
    difference : float
        δ, the expected score of A minus that of B.
    sd : float
        σ_d, the standard deviation of the per-item differences a_i - b_i (for 0/1 scores
        √(p_disc - δ²)).
    n_clusters : float, optional
        Clusters the items fall in, of equal size n_items / n_clusters; None for independent
        items.
    icc : float
        Intra-cluster correlation of the differences (with ``n_clusters``).
    design_effect : float, optional
        The variance inflation directly, instead of ``n_clusters`` and ``icc``.
    alpha : float
        Level of the test.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is better.

    Returns
    -------
    float
        Φ(δ' / SE - z), SE = σ_d √(deff / n), δ' = |δ| two-sided (the far tail is left out, as
        in the sample-size formula it inverts).

    Examples
    --------
    2,000 items in 200 passages, differences of SD 0.5 correlated at 0.1 within a passage:

    >>> round(paired_power(2000, 0.03, 0.5, n_clusters=200, icc=0.1), 3)
    0.495
    >>> round(paired_power(2000, 0.03, 0.5), 3)
    0.765

    Ignoring the passages promises 77 % power; with them it is one chance in two.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    a = check_probability(alpha, "alpha")
    n = check_positive_float(n_items, "n_items")
    delta = _real(difference, "difference")
    s = check_positive_float(sd, "sd")
    deff = _deff(n, n_clusters, icc, design_effect)
    se = s * math.sqrt(deff / n)
    return _phi(_signed(delta, alternative) / se - _z(a, alternative))


def _real(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a finite number; got {value!r:.60}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number; got {v!r}")
    return v


def paired_sample_size(
    difference: float,
    sd: float,
    *,
    cluster_size: float | None = None,
    n_clusters: float | None = None,
    icc: float = 0.0,
    design_effect: float | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Items a paired comparison needs to detect a difference, items possibly in clusters.

    Parameters
    ----------
    difference : float
        δ, the expected score of A minus that of B (not 0).
    sd : float
        σ_d, the standard deviation of the per-item differences.
    cluster_size : float, optional
        Items per cluster, when clusters grow with the items (more passages).
    n_clusters : float, optional
        A fixed number of clusters, when only items per cluster can grow (more questions per
        passage).
    icc : float
        Intra-cluster correlation of the differences (with ``cluster_size`` or ``n_clusters``).
    design_effect : float, optional
        The variance inflation directly, instead of a cluster description.
    power : float
        The wanted probability of rejecting.
    alpha : float
        Level of the test.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is better (needs δ > 0).

    Returns
    -------
    float
        Items, unrounded; ``inf`` when a fixed number of clusters cannot reach the power however
        many items each holds.

    Notes
    -----
    With K = (z_{1-α/2} + z_{1-β})² σ_d² / δ² (Miller 2024): n = K · deff. For clusters of m
    items, deff = 1 + (m - 1) ρ. For C fixed clusters m = n / C, and solving
    n = K (1 + (n / C - 1) ρ) gives n = K (1 - ρ) / (1 - K ρ / C), finite only when K ρ < C:
    each cluster contributes at most 1/ρ items' worth of information.

    Examples
    --------
    >>> round(paired_sample_size(0.03, 0.5), 1)
    2180.2
    >>> round(paired_sample_size(0.03, 0.5, cluster_size=10, icc=0.1), 1)
    4142.5
    >>> paired_sample_size(0.03, 0.5, n_clusters=200, icc=0.1)
    inf

    Detecting three points needs about 2,200 independent items, twice that in passages of ten
    questions, and 200 passages are not enough at any number of questions each.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    a = check_probability(alpha, "alpha")
    pw = check_probability(power, "power")
    delta = _signed(_real(difference, "difference"), alternative)
    if delta <= 0:
        raise ValueError(f"difference must be non-zero and in the direction of the alternative "
                         f"({alternative!r}); got {difference!r}")
    s = check_positive_float(sd, "sd")
    k = ((_z(a, alternative) + float(norm_isf(1.0 - pw))) * s / delta) ** 2
    given = [x is not None for x in (cluster_size, n_clusters, design_effect)]
    if sum(given) > 1:
        raise ValueError("give at most one of cluster_size, n_clusters and design_effect")
    if design_effect is not None:
        return k * check_positive_float(design_effect, "design_effect")
    rho = check_probability(icc, "icc", low_open=False, high_open=False)
    if cluster_size is not None:
        return k * _inflation(cluster_size, rho)
    if n_clusters is None:
        if rho != 0:
            raise ValueError(f"icc needs cluster_size or n_clusters; got icc={rho!r} alone")
        return k
    c = check_positive_float(n_clusters, "n_clusters")
    if k * rho >= c:
        return math.inf
    return max(k * (1.0 - rho) / (1.0 - k * rho / c), c)


def minimum_detectable_difference(
    n_items: float,
    sd: float,
    *,
    n_clusters: float | None = None,
    icc: float = 0.0,
    design_effect: float | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Find the smallest difference n items detect with the given power (paired z test).

    Parameters
    ----------
    n_items : float
        Items both models answer.
    sd : float
        σ_d, the standard deviation of the per-item differences.
    n_clusters : float, optional
        Clusters the items fall in, of equal size; None for independent items.
    icc : float
        Intra-cluster correlation of the differences (with ``n_clusters``).
    design_effect : float, optional
        The variance inflation directly, instead of ``n_clusters`` and ``icc``.
    power : float
        The wanted probability of rejecting.
    alpha : float
        Level of the test.
    alternative : {"two-sided", "greater", "less"}
        The alternative the test will use (one-sided tests detect smaller differences).

    Returns
    -------
    float
        (z_{1-α/2} + z_{1-β}) · σ_d · √(deff / n), on the scale of the scores.

    Examples
    --------
    >>> round(minimum_detectable_difference(2000, 0.5, n_clusters=200, icc=0.1), 4)
    0.0432

    2,000 items in 200 passages detect a difference of about 4.3 points with 80 % power;
    smaller true differences will usually go unseen.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    a = check_probability(alpha, "alpha")
    pw = check_probability(power, "power")
    n = check_positive_float(n_items, "n_items")
    s = check_positive_float(sd, "sd")
    deff = _deff(n, n_clusters, icc, design_effect)
    return (_z(a, alternative) + float(norm_isf(1.0 - pw))) * s * math.sqrt(deff / n)


def minimum_detectable_difference_from_counts(b: int, c: int, n: int, *, power: float = 0.8,
                                              alpha: float = 0.05) -> float:
    """Find the accuracy difference a paired test set detects with the given power, from its counts.

    Parameters
    ----------
    b, c : int
        Observations only model A gets right, and only model B (McNemar's discordant counts).
    n : int
        Observations in all, at least ``b + c``.
    power : float
        The wanted probability of rejecting.
    alpha : float
        Level of the two-sided test.

    Returns
    -------
    float
        :func:`minimum_detectable_difference` of ``n`` observations whose 0/1 differences have
        the standard deviation the table shows, ``sqrt((b + c)/n - ((b - c)/n)^2)``; NaN when
        the differences do not vary (``b = c = 0``, or every observation discordant one way).

    Examples
    --------
    25 and 15 discordant observations of 10,000:

    >>> round(minimum_detectable_difference_from_counts(25, 15, 10_000), 5)
    0.00177

    A difference of 0.18 points is detected with 80 % power; the observed 0.1 is not.
    """
    b = _count(b, "b", 0)
    c = _count(c, "c", 0)
    n = _count(n, "n", 1)
    if b + c > n:
        raise ValueError(f"n must be at least b + c; got n = {n}, b + c = {b + c}")
    a = check_probability(alpha, "alpha")
    pw = check_probability(power, "power")
    var = (b + c) / n - ((b - c) / n) ** 2
    if not var > 0:
        return np.nan
    return minimum_detectable_difference(n, math.sqrt(var), power=pw, alpha=a)


def minimum_detectable_difference_from_interval(ci_low: float, ci_high: float, df: float, *,
                                                power: float = 0.8,
                                                alpha: float = 0.05) -> float:
    """Find the difference a t test detects with the given power, from its interval.

    Parameters
    ----------
    ci_low, ci_high : float
        The test's interval of the difference at level ``1 - alpha`` (a t interval with ``df``
        degrees of freedom, such as the corrected repeated k-fold t's); NaN ends give NaN.
    df : float
        Its degrees of freedom, > 0.
    power : float
        The wanted probability of rejecting.
    alpha : float
        Level of the two-sided test, and 1 minus the interval's level.

    Returns
    -------
    float
        ``(t_{1-alpha/2, df} + z_power) se``, the standard error ``se`` read from the interval's
        half-width; NaN when the interval has no width.

    Examples
    --------
    A corrected t interval (-0.01, 0.03) on 9 degrees of freedom:

    >>> round(minimum_detectable_difference_from_interval(-0.01, 0.03, 9), 4)
    0.0274
    """
    lo, hi = _number(ci_low, "ci_low"), _number(ci_high, "ci_high")
    dof = check_positive_float(df, "df")
    a = check_probability(alpha, "alpha")
    pw = check_probability(power, "power")
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        return np.nan
    crit = float(t_isf(a / 2, dof))
    se = (hi - lo) / (2 * crit)
    return float((crit + norm_isf(1 - pw)) * se)


def _number(value: Any, name: str) -> float:
    """Return ``value`` as a float (NaN allowed: a missing interval end)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number; got {value!r:.60}")
    return float(value)


def corrected_ttest_power(
    difference: float,
    sd: float,
    *,
    n_folds: int,
    n_repeats: int = 1,
    test_train_ratio: float | None = None,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> float:
    """Power of the corrected repeated k-fold t-test (Nadeau–Bengio; Bouckaert–Frank).

    Parameters
    ----------
    difference : float
        δ, the expected per-fold score of A minus that of B.
    sd : float
        σ, the standard deviation of the per-fold score differences.
    n_folds : int
        k, folds per repetition (>= 2).
    n_repeats : int
        r, repetitions of the k-fold split.
    test_train_ratio : float, optional
        n_test / n_train of each fold; default 1 / (k - 1).
    alpha : float
        Level of the test.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A is better.

    Returns
    -------
    float
        P(the test of :func:`precmp_lib.corrected_resampled_ttest` rejects).

    Notes
    -----
    The statistic is noncentral t with df = rk - 1 and noncentrality
    δ / (σ √(1/(rk) + n_test/n_train)). As r grows the noncentrality tends to
    δ / (σ √(n_test/n_train)): more repeats stop buying power, because the folds share their
    training data.

    References
    ----------
    Nadeau & Bengio (2003), Machine Learning 52:239-281. Bouckaert & Frank (2004), PAKDD,
    LNCS 3056:3-12.

    Examples
    --------
    >>> round(corrected_ttest_power(0.01, 0.02, n_folds=10), 3)
    0.164
    >>> round(corrected_ttest_power(0.01, 0.02, n_folds=10, n_repeats=10), 3)
    0.296
    >>> round(corrected_ttest_power(0.01, 0.02, n_folds=10, n_repeats=100), 3)
    0.32

    Ten repeats almost double the power of one 10-fold run; a hundred add little more.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    a = check_probability(alpha, "alpha")
    delta = _real(difference, "difference")
    s = check_positive_float(sd, "sd")
    k = _count(n_folds, "n_folds", 2)
    r = _count(n_repeats, "n_repeats", 1)
    ratio = 1.0 / (k - 1) if test_train_ratio is None else check_positive_float(
        test_train_ratio, "test_train_ratio")
    j = r * k
    df = j - 1
    ncp = delta / (s * math.sqrt(1.0 / j + ratio))
    if alternative == "two-sided":
        crit = float(stats.t.isf(a / 2.0, df))
        return float(stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp))
    crit = float(stats.t.isf(a, df))
    return float(stats.nct.sf(crit, df, ncp if alternative == "greater" else -ncp))


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r:.60}")
    return int(value)


def repeated_answers_plan(
    between: float,
    within: float,
    answers: float,
    n_items: float,
    *,
    design_effect: float = 1.0,
    power: float = 0.8,
    alpha: float = 0.05,
) -> dict[str, float]:
    """Plan the items of a paired comparison whose items are answered K times (Miller 2024).

    Averaging K answers per item shrinks only the within-item part of the variance of the mean
    difference: Var(d̄) = deff (σ²_between + σ²_within / K) / n (Miller 2024, "Adding Error Bars
    to Evals", the resampling equation). The difference these n items detect with the wanted
    power at K answers is δ = (z_{1-α/2} + z_{1-β}) √Var(d̄); the items that detect that same δ
    at K' answers are n (σ²_between + σ²_within / K') / (σ²_between + σ²_within / K).

    Parameters
    ----------
    between : float
        σ²_between, the variance over items of the true (answer-averaged) score difference.
    within : float
        σ²_within, the variance of the score difference between two answers to the same item
        (the sum of the two models' within-item variances when they answer independently).
    answers : float
        K, the answers per item and model now.
    n_items : float
        n, the items now.
    design_effect : float
        Inflation of the variance by clusters of items (1 for independent items).
    power, alpha : float
        The wanted power and the level of the two-sided test.

    Returns
    -------
    dict
        ``variance`` (Var(d̄) at K), ``variance_one`` (at K = 1), ``variance_reduction``
        (1 - variance / variance_one: the share removed by the K answers), ``mde`` (the
        difference detected at n and K), ``items_one``, ``items_now`` (= n), ``items_double``
        (items to detect ``mde`` at 1, K and 2K answers). NaN where the variance is 0.

    Examples
    --------
    >>> plan = repeated_answers_plan(0.04, 0.12, 4, 500)
    >>> round(plan["variance_reduction"], 3), round(plan["mde"], 4)
    (0.562, 0.0331)
    >>> round(plan["items_one"]), round(plan["items_now"]), round(plan["items_double"])
    (1143, 500, 393)

    With σ²_between = 0.04 and σ²_within = 0.12, four answers per item remove 56 % of the
    variance of one answer; the 3.3-point difference 500 items detect at K = 4 would take
    1,143 items answered once, and 393 items answered eight times.
    """
    a = check_probability(alpha, "alpha")
    pw = check_probability(power, "power")
    for name, value in (("between", between), ("within", within)):
        v = _real(value, name)
        if v < 0:
            raise ValueError(f"{name} must be a variance (>= 0); got {value!r}")
    k = check_positive_float(answers, "answers")
    n = check_positive_float(n_items, "n_items")
    deff = check_positive_float(design_effect, "design_effect")

    def var(kk: float) -> float:
        return deff * (float(between) + float(within) / kk) / n

    now, one = var(k), var(1.0)
    nan = math.nan
    mde = (_z(a, "two-sided") + float(norm_isf(1.0 - pw))) * math.sqrt(now) if now > 0 else nan
    return {"variance": now, "variance_one": one,
            "variance_reduction": 1.0 - now / one if one > 0 else nan, "mde": mde,
            "items_one": n * one / now if now > 0 else nan, "items_now": n if now > 0 else nan,
            "items_double": n * var(2 * k) / now if now > 0 else nan}
