"""Tests on resampled scores: Nadeau–Bengio corrected t, 5x2cv t and F, k-fold and resampled t.

When one data set is split many times, the per-split scores share training and test
observations, so they are not independent and the textbook paired t-test rejects far too often
(Dietterich 1998). This module has the tests that account for it — the corrected resampled t of
Nadeau & Bengio (2003) (with repeated k-fold it is Bouckaert & Frank's corrected repeated-CV t),
Dietterich's 5x2cv t and Alpaydın's combined 5x2cv F — plus the uncorrected k-fold and resampled
t, kept for teaching their failure. The scores come from elsewhere (scikit-learn estimators are
fitted on identical splits by :func:`precmp_lib.fitting.resampling.paired_cv_scores`).
:func:`resampled_t_pvalues` and :func:`cv5x2_pvalues` run the tests on whole batches of score
differences at once, as :func:`precmp_lib.course.type1.type1_error_simulation` does to measure
how often each test rejects a true null.

Every test takes the scores of classifier A and of classifier B, paired by split, and works on
the differences ``d = score_a - score_b`` (A minus B). With a score where higher is better
(accuracy), ``alternative="greater"`` says "A is better"; with an error rate it says "A is worse".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.checks import (
    as_paired_scores,
    as_score_matrix,
    check_choice,
    check_positive_float,
    check_probability,
)
from .._lib.dist import f_sf, t_isf, t_sf
from .results import ALTERNATIVES, TestResult

__all__ = [
    "corrected_resampled_ttest",
    "cv5x2_pvalues",
    "ftest_5x2cv",
    "paired_ttest_kfold",
    "paired_ttest_resampled",
    "pairwise_corrected_ttest",
    "resampled_t_pvalues",
    "resampling_test_guide",
    "ttest_5x2cv",
]


# Differences whose spread is below this fraction of the scores' magnitude count as equal: the
# variance is zero up to the rounding of ``score_a - score_b``.
_RTOL = 1e-12

_UNCORRECTED_NOTE = (
    "uncorrected: the resamples share training and test observations, so their scores are "
    "correlated and this test rejects a true null far more often than alpha (Dietterich 1998); "
    "use corrected_resampled_ttest for decisions"
)


# --------------------------------------------------------------------------------------------
# vectorised cores (any leading shape; the simulation calls them on whole batches)
# --------------------------------------------------------------------------------------------


def _t_core(d: np.ndarray, factor: Any, scale: Any) -> dict[str, np.ndarray]:
    """Mean, SE, t for differences ``d`` (..., J) with variance factor ``factor`` (S² multiplier)."""
    m = d.mean(axis=-1)
    s2 = d.var(axis=-1, ddof=1)
    tol = _RTOL * np.maximum(scale, 1e-300)
    flat = (np.ptp(d, axis=-1) <= tol) | (s2 == 0)  # s2 == 0: squares underflowed
    zero = flat & (np.abs(m) <= tol)
    se = np.sqrt(factor * s2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(flat, np.where(zero, 0.0, np.sign(m) * np.inf), m / np.where(flat, 1.0, se))
    return {"mean": m, "s2": s2, "se": se, "t": t, "flat": flat, "zero": zero}


def _t_pvalue(t: Any, df: float, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        p = 2.0 * t_sf(np.abs(t), df)
    elif alternative == "greater":
        p = t_sf(t, df)
    else:
        p = t_sf(-np.asarray(t), df)
    return np.minimum(p, 1.0)


def _core_5x2(d: np.ndarray, scale: Any) -> dict[str, np.ndarray]:
    """Dietterich's t and Alpaydın's F for differences ``d`` of shape (..., 5, 2)."""
    pbar = d.mean(axis=-1, keepdims=True)
    s2 = ((d - pbar) ** 2).sum(axis=-1)
    var_sum = s2.sum(axis=-1)
    tol = _RTOL * np.maximum(scale, 1e-300)
    flat = (np.max(np.ptp(d, axis=-1), axis=-1) <= tol) | (var_sum == 0)
    first = d[..., 0, 0]
    first_zero = np.abs(first) <= tol
    squares = (d**2).sum(axis=(-2, -1))
    all_zero = (np.max(np.abs(d), axis=(-2, -1)) <= tol) | (squares == 0)
    se = np.sqrt(var_sum / 5.0)
    safe = np.where(flat, 1.0, var_sum)
    with np.errstate(invalid="ignore"):
        t = np.where(flat, np.where(first_zero, 0.0, np.sign(first) * np.inf),
                     first / np.sqrt(safe / 5.0))
    f = np.where(flat, np.where(all_zero, 0.0, np.inf), squares / (2.0 * safe))
    return {"mean": d.mean(axis=(-2, -1)), "first": first, "se": se, "var_sum": var_sum, "t": t,
            "f": f, "flat": flat, "first_zero": first_zero, "all_zero": all_zero}


def resampled_t_pvalues(
    differences: npt.ArrayLike,
    *,
    test_train_ratio: float = 0.0,
    alternative: str = "two-sided",
    scale: float = 1.0,
) -> np.ndarray:
    """P-values of the (corrected) resampled t-test on many sets of score differences at once.

    Parameters
    ----------
    differences : array-like of shape (..., J)
        Score differences ``A - B`` of J resamples; the leading axes hold independent sets
        (for example simulated data sets), each tested on its own.
    test_train_ratio : float
        ``n_test / n_train`` of the Nadeau–Bengio correction; 0 gives the uncorrected resampled
        (or k-fold) t-test.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's mean score is higher.
    scale : float
        The magnitude of the scores: differences whose spread is below ``1e-12 * scale`` count
        as equal (1 suits accuracies).

    Returns
    -------
    ndarray of shape (...)
        The p-values, from a t distribution with J - 1 degrees of freedom. A set whose
        differences are all 0 gets 1; a set of equal non-zero differences gets 0 (or 1 when
        the alternative points the other way).

    Notes
    -----
    ``t = mean(d) / sqrt((1/J + n_test/n_train) S^2)``, as :func:`corrected_resampled_ttest`
    computes for one set (Nadeau & Bengio 2003), vectorised over the leading axes.

    Examples
    --------
    >>> d = np.array([[0.02, 0.03, 0.01, 0.02, 0.04], [0.01, -0.01, 0.02, 0.0, -0.02]])
    >>> resampled_t_pvalues(d).round(4).tolist()
    [0.0093, 1.0]
    >>> resampled_t_pvalues(d, test_train_ratio=0.25).round(4).tolist()
    [0.0349, 1.0]

    The first set favours A on every resample; the correction for overlapping training sets
    raises its p-value almost four-fold, still below 0.05 (the same as
    ``corrected_resampled_ttest(d[0], np.zeros(5), test_train_ratio=0.25).pvalue``). The
    second set's differences average exactly 0.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    ratio = 0.0 if test_train_ratio == 0 else check_positive_float(
        test_train_ratio, "test_train_ratio")
    d = np.asarray(differences, dtype=float)
    if d.ndim < 1 or d.shape[-1] < 2:
        raise ValueError(f"differences must have at least 2 resamples on the last axis; got "
                         f"shape {d.shape}")
    J = d.shape[-1]
    core = _t_core(d, 1.0 / J + ratio, scale)
    return _t_pvalue(core["t"], J - 1, alternative)


def cv5x2_pvalues(differences: npt.ArrayLike, *, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """P-values of the 5x2cv t-test and F-test on many 5 x 2 sets of score differences at once.

    Parameters
    ----------
    differences : array-like of shape (..., 5, 2)
        Score differences ``A - B`` of the two folds of 5 replications; the leading axes hold
        independent sets, each tested on its own.
    scale : float
        The magnitude of the scores: differences below ``1e-12 * scale`` count as 0.

    Returns
    -------
    t_pvalue, f_pvalue : ndarray of shape (...)
        Two-sided p-values of Dietterich's t (5 degrees of freedom) and of Alpaydın's
        F (10 and 5 degrees of freedom), as :func:`ttest_5x2cv` and :func:`ftest_5x2cv` compute
        them for one set; all differences 0 give an F p-value of 1.

    Examples
    --------
    >>> d = np.array([[0.02, 0.03], [0.01, 0.02], [0.04, 0.02], [0.03, 0.01], [0.02, 0.02]])
    >>> t_p, f_p = cv5x2_pvalues(d)
    >>> round(float(t_p), 4), round(float(f_p), 4)
    (0.1019, 0.0355)

    A is better in every fold; the F test, which uses all ten differences, rejects at 5 %
    where Dietterich's t, whose numerator is the first difference alone, does not.
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim < 2 or d.shape[-2:] != (5, 2):
        raise ValueError(f"differences must have shape (..., 5, 2); got shape {d.shape}")
    c52 = _core_5x2(d, scale)
    f_p = np.where(c52["all_zero"], 1.0, f_sf(c52["f"], 10, 5))
    return _t_pvalue(c52["t"], 5, "two-sided"), f_p


def _scale(a: np.ndarray, b: np.ndarray) -> float:
    return float(max(np.max(np.abs(a)), np.max(np.abs(b)), np.finfo(float).tiny))


def _interval(
    mean: float, se: float, df: float, alternative: str, level: float
) -> tuple[float, float]:
    alpha = 1.0 - level
    if alternative == "two-sided":
        q = t_isf(alpha / 2.0, df)
        return mean - q * se, mean + q * se
    q = t_isf(alpha, df)
    if alternative == "greater":
        return mean - q * se, math.inf
    return -math.inf, mean + q * se


def _paired_t(
    scores_a: Any,
    scores_b: Any,
    *,
    ratio: float,
    method: str,
    alternative: str,
    confidence_level: float,
    caveat: str = "",
) -> TestResult:
    check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_probability(confidence_level, "confidence_level")
    a, b = as_paired_scores(scores_a, scores_b)
    d = a - b
    J = d.size
    factor = 1.0 / J + ratio
    core = _t_core(d, factor, _scale(a, b))
    m, se, t = float(core["mean"]), float(core["se"]), float(core["t"])
    df = float(J - 1)
    details = {"se": se, "sd": float(np.sqrt(core["s2"])), "variance_factor": factor,
               "test_train_ratio": ratio}
    common: dict[str, Any] = {"df": df, "alternative": alternative, "n": J, "details": details,
              "confidence_level": level}
    if core["zero"]:
        return TestResult.indistinguishable(
            method, "every paired difference is zero: A and B scored the same on every resample",
            estimate=0.0, **common,
        )
    p = float(_t_pvalue(t, df, alternative))
    if core["flat"]:
        note = (f"every paired difference equals {m:.6g}: the variance is zero, so the t "
                "statistic is infinite")
        return TestResult(statistic=t, pvalue=p, method=method, estimate=m, degenerate=True,
                          note=note, **common)
    lo, hi = _interval(m, se, df, alternative, level)
    return TestResult(statistic=t, pvalue=p, method=method, estimate=m, ci_low=lo, ci_high=hi,
                      note=caveat, **common)


# --------------------------------------------------------------------------------------------
# the tests
# --------------------------------------------------------------------------------------------


def corrected_resampled_ttest(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    *,
    test_train_ratio: float,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> TestResult:
    """Nadeau–Bengio corrected resampled t-test of equal expected scores of two classifiers.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (J,)
        Scores of classifiers A and B on the same J resamples (random train/test splits, or the
        folds of a k-fold or repeated k-fold cross-validation), paired by position.
    test_train_ratio : float
        ``n_test / n_train`` of each resample (> 0); with unequal sizes the mean test size over
        the mean training size. Random 70/30 splits: ``3 / 7``. K-fold and r x K repeated
        cross-validation: ``1 / (K - 1)``
        (:attr:`precmp_lib.fitting.resampling.PairedScores.test_train_ratio` gives it from the
        actual sizes).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the expected score of A exceeds that of B (H1: mean of ``a - b`` > 0).
    confidence_level : float
        Level of the interval for the mean difference.

    Returns
    -------
    TestResult
        ``statistic`` t with ``df = J - 1``; ``estimate`` the mean difference ``mean(a - b)``
        with its interval (one-sided for one-sided alternatives); ``details`` holds the
        corrected standard error ``se``, the standard deviation ``sd`` of the differences and
        the ``variance_factor`` ``1/J + test_train_ratio``.

    Notes
    -----
    With ``d_j = a_j - b_j``, ``m`` their mean and ``S²`` their variance (ddof = 1)::

        t = m / sqrt((1/J + n_test/n_train) · S²),    df = J - 1

    The plain paired t uses ``1/J`` alone and so assumes independent resamples; the added
    ``n_test/n_train`` accounts for the correlation that overlapping training sets induce
    (Nadeau & Bengio 2003). For r-times repeated K-fold cross-validation, pass all ``J = rK``
    fold scores and ``test_train_ratio = 1/(K - 1)``: this is Bouckaert & Frank's (2004)
    corrected repeated cross-validation t, and ``r = 1`` is the corrected k-fold t. The
    correction was derived for random splits; for k-fold it is a well-tested heuristic.

    If all differences are equal the variance is zero: all zero gives statistic 0, p-value 1;
    a common non-zero value gives an infinite statistic. Both set ``degenerate=True``.

    References
    ----------
    Nadeau & Bengio (2003), Inference for the generalization error, Machine Learning 52:239-281.
    Bouckaert & Frank (2004), Evaluating the replicability of significance tests for comparing
    learning algorithms, PAKDD, LNCS 3056:3-12.

    Examples
    --------
    Ten random 70/30 splits (docs/methods.md §4, worked example 1); A is more accurate on nine:

    >>> a = np.array([0.841, 0.833, 0.850, 0.828, 0.837, 0.845, 0.816, 0.839, 0.832, 0.846])
    >>> b = np.full(10, 0.82)
    >>> res = corrected_resampled_ttest(a, b, test_train_ratio=3 / 7)
    >>> round(res.statistic, 4), round(res.pvalue, 4), round(res.estimate, 4)
    (2.302, 0.0468, 0.0167)

    The corrected test still finds A better at the 5 % level, but only just; the plain
    paired t on the same scores claims p = 0.0005 (:func:`paired_ttest_resampled`).
    """
    ratio = check_positive_float(test_train_ratio, "test_train_ratio")
    return _paired_t(
        scores_a, scores_b, ratio=ratio, method="Nadeau-Bengio corrected resampled t",
        alternative=alternative, confidence_level=confidence_level,
    )


def paired_ttest_resampled(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> TestResult:
    """Run the uncorrected resampled paired t-test — for teaching its failure, not decisions.

    The textbook paired t on the scores of J random train/test splits of one data set. The
    splits overlap, so the scores are correlated, the variance is underestimated and the test
    rejects a true null much more often than its level (Dietterich 1998 measured type-I error
    rates far above 0.05). Use :func:`corrected_resampled_ttest` instead.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (J,)
        Scores of A and B on the same J resamples.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: mean of ``a - b`` > 0.
    confidence_level : float
        Level of the (too narrow) interval for the mean difference.

    Returns
    -------
    TestResult
        As :func:`corrected_resampled_ttest`, with ``se = S / sqrt(J)`` and a ``note`` that
        the test is uncorrected.

    Notes
    -----
    ``t = m / sqrt(S²/J)``, ``df = J - 1`` — identical to ``scipy.stats.ttest_rel`` and to
    mlxtend's ``paired_ttest_resampled`` on the same scores.

    References
    ----------
    Dietterich (1998), Approximate statistical tests for comparing supervised classification
    learning algorithms, Neural Computation 10:1895-1923.

    Examples
    --------
    >>> a = np.array([0.841, 0.833, 0.850, 0.828, 0.837, 0.845, 0.816, 0.839, 0.832, 0.846])
    >>> res = paired_ttest_resampled(a, np.full(10, 0.82))
    >>> round(res.statistic, 4), round(res.pvalue, 6)
    (5.2925, 0.000499)

    A p-value a hundred times smaller than the corrected test's 0.047 on the same scores: the
    overconfidence the correction removes.
    """
    return _paired_t(
        scores_a, scores_b, ratio=0.0, method="resampled paired t (uncorrected)",
        alternative=alternative, confidence_level=confidence_level, caveat=_UNCORRECTED_NOTE,
    )


def paired_ttest_kfold(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> TestResult:
    """Run the uncorrected k-fold cross-validated paired t-test — for teaching its failure.

    The paired t on the K fold scores of one cross-validation. Each pair of training sets
    shares a fraction (K - 2)/(K - 1) of its observations, so the fold differences are
    correlated and the test rejects a true null too often (Dietterich 1998). Use
    :func:`corrected_resampled_ttest` with ``test_train_ratio = 1/(K - 1)`` instead.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (K,)
        Scores of A and B on the same K folds.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: mean of ``a - b`` > 0.
    confidence_level : float
        Level of the (too narrow) interval for the mean difference.

    Returns
    -------
    TestResult
        As :func:`paired_ttest_resampled`.

    Notes
    -----
    ``t = m / sqrt(S²/K)``, ``df = K - 1`` (equal to mlxtend's ``paired_ttest_kfold_cv`` on the
    same folds).

    References
    ----------
    Dietterich (1998), Neural Computation 10:1895-1923.

    Examples
    --------
    docs/methods.md §4, worked example 2 (10-fold differences):

    >>> d = np.array([0.010, -0.005, 0.020, 0.015, 0.000, 0.025, 0.010, 0.005, 0.030, -0.010])
    >>> b = np.full(10, 0.9)
    >>> round(paired_ttest_kfold(b + d, b).pvalue, 4)
    0.0368
    >>> round(corrected_resampled_ttest(b + d, b, test_train_ratio=1 / 9).pvalue, 4)
    0.1261

    The uncorrected test would declare A better; the corrected one does not.
    """
    return _paired_t(
        scores_a, scores_b, ratio=0.0, method="k-fold cross-validated paired t (uncorrected)",
        alternative=alternative, confidence_level=confidence_level, caveat=_UNCORRECTED_NOTE,
    )


def ttest_5x2cv(scores_a: npt.ArrayLike, scores_b: npt.ArrayLike, *, alternative: str = "two-sided") -> TestResult:
    """Dietterich's 5x2cv paired t-test.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Scores of A and B: row i is replication i (a fresh random 50/50 split of the data),
        column j the fold (column 0: trained on one half and tested on the other; column 1:
        the reverse).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's expected score exceeds B's.

    Returns
    -------
    TestResult
        ``statistic`` t with ``df = 5``; ``estimate`` the mean of all ten differences
        ``a - b`` (no interval: the statistic is built on the first difference only);
        ``details`` holds ``first_difference`` ``p_1^(1)``, its standard error ``se`` (the
        denominator of t) and the per-replication variances ``s2``.

    Notes
    -----
    With ``p_i^(j) = a_ij - b_ij``, ``p̄_i = (p_i^(1) + p_i^(2))/2`` and
    ``s_i² = (p_i^(1) - p̄_i)² + (p_i^(2) - p̄_i)²``::

        t = p_1^(1) / sqrt((1/5) Σ_i s_i²),    df = 5

    The numerator uses the first fold of the first replication only, so the result depends
    on which fold is listed first; :func:`ftest_5x2cv` uses all ten and is preferred
    (Alpaydın 1999). Zero variance (``Σ s_i² = 0``) follows the degenerate policy: statistic
    0 and p-value 1 if ``p_1^(1) = 0``, else an infinite statistic.

    References
    ----------
    Dietterich (1998), Neural Computation 10:1895-1923.

    Examples
    --------
    docs/methods.md §4, worked example 4 (differences per replication and fold):

    >>> d = np.array([[0.03, 0.01], [0.02, 0.04], [-0.01, 0.02], [0.05, 0.0], [0.02, 0.03]])
    >>> b = np.full((5, 2), 0.8)
    >>> res = ttest_5x2cv(b + d, b)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (1.4467, 0.2076)

    A is ahead in nine of ten folds, yet five degrees of freedom leave the difference
    unproven at the 5 % level.
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    a, b = as_paired_scores(scores_a, scores_b, shape=(5, 2))
    d = a - b
    core = _core_5x2(d, _scale(a, b))
    method = "5x2cv paired t (Dietterich)"
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    details = {"first_difference": float(core["first"]), "se": float(core["se"]),
               "s2": s2.tolist()}
    common: dict[str, Any] = {"df": 5.0, "alternative": alternative, "n": 10, "details": details,
              "estimate": float(core["mean"])}
    t = float(core["t"])
    if core["flat"] and core["first_zero"]:
        return TestResult.indistinguishable(
            method, "both folds of every replication give the same difference and the first is "
            "zero: t is 0/0", **common,
        )
    p = float(_t_pvalue(t, 5.0, alternative))
    if core["flat"]:
        return TestResult(
            statistic=t, pvalue=p, method=method, degenerate=True,
            note="both folds of every replication give the same difference: the variance is "
            "zero, so the t statistic is infinite", **common,
        )
    return TestResult(statistic=t, pvalue=p, method=method, **common)


def ftest_5x2cv(scores_a: npt.ArrayLike, scores_b: npt.ArrayLike) -> TestResult:
    """Alpaydın's combined 5x2cv F test.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (5, 2)
        Scores of A and B per replication (rows) and fold (columns), as for
        :func:`ttest_5x2cv`.

    Returns
    -------
    TestResult
        ``statistic`` f with ``df = (10, 5)``; ``alternative`` is always ``"two-sided"`` (the
        statistic squares the differences, so it cannot tell which classifier is better —
        read the sign from ``estimate``, the mean of the ten differences ``a - b``);
        ``details`` holds ``se`` = sqrt(Σ s_i² / 5) as in :func:`ttest_5x2cv`.

    Notes
    -----
    ::

        f = Σ_i Σ_j (p_i^(j))² / (2 Σ_i s_i²),    F(10, 5) upper tail

    It uses all ten differences, so unlike the 5x2cv t it does not depend on the fold order,
    and it has lower type-I error and higher power (Alpaydın 1999). Zero variance: statistic 0,
    p-value 1 when every difference is zero, else ``inf`` with p-value 0 (degenerate).

    References
    ----------
    Alpaydın (1999), Combined 5x2 cv F test for comparing supervised classification learning
    algorithms, Neural Computation 11:1885-1892.

    Examples
    --------
    >>> d = np.array([[0.03, 0.01], [0.02, 0.04], [-0.01, 0.02], [0.05, 0.0], [0.02, 0.03]])
    >>> b = np.full((5, 2), 0.8)
    >>> res = ftest_5x2cv(b + d, b)
    >>> round(res.statistic, 4), round(res.pvalue, 4)
    (1.6977, 0.2909)

    The combined F agrees with the 5x2cv t: no demonstrated difference.
    """
    a, b = as_paired_scores(scores_a, scores_b, shape=(5, 2))
    d = a - b
    core = _core_5x2(d, _scale(a, b))
    method = "5x2cv combined F (Alpaydin)"
    common: dict[str, Any] = {"df": (10.0, 5.0), "alternative": "two-sided", "n": 10,
              "estimate": float(core["mean"]), "details": {"se": float(core["se"])}}
    if core["all_zero"]:
        return TestResult.indistinguishable(
            method, "every paired difference is zero: A and B scored the same on every fold",
            **common,
        )
    f = float(core["f"])
    if core["flat"]:
        return TestResult(
            statistic=f, pvalue=0.0, method=method, degenerate=True,
            note="both folds of every replication give the same non-zero difference: the "
            "variance is zero, so F is infinite", **common,
        )
    return TestResult(statistic=f, pvalue=float(f_sf(f, 10, 5)), method=method, **common)


def pairwise_corrected_ttest(
    scores: npt.ArrayLike,
    *,
    test_train_ratio: float,
    adjust: str = "holm",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Run the corrected resampled t for every pair of classifiers, adjusted for multiplicity.

    Parameters
    ----------
    scores : J x k array-like or DataFrame
        Scores of k classifiers (columns) on the same J resamples (rows), e.g. the estimator
        columns of :func:`precmp_lib.fitting.resampling.cv_scores`.
    test_train_ratio : float
        ``n_test / n_train`` of the resamples, as for :func:`corrected_resampled_ttest`
        (``1/(K - 1)`` for K-fold and repeated K-fold cross-validation).
    adjust : {"holm", "bonferroni", "fdr_bh", "none"}
        Adjustment of the p-values over the pairs (:func:`adjust_pvalues`).
    alpha : float
        Level of the ``reject`` column.

    Returns
    -------
    DataFrame
        One row per pair: ``model_a``, ``model_b``, ``estimate`` (mean of A minus B), ``se``
        (corrected), ``statistic``, ``df``, ``pvalue``, ``pvalue_adjusted``, ``reject``
        (adjusted p-value at most ``alpha``), ``degenerate``. ``attrs["adjustment"]`` names
        the adjustment.

    Notes
    -----
    Each row is :func:`corrected_resampled_ttest` on one pair (two-sided); Holm's step-down
    adjustment (the default) controls the family-wise error rate over the ``k(k-1)/2`` pairs.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(0.8, 0.02, size=20)
    >>> scores = pd.DataFrame({"a": base + 0.03, "b": base + rng.normal(0, 0.01, 20),
    ...                        "c": base + rng.normal(0, 0.01, 20)})
    >>> tab = pairwise_corrected_ttest(scores, test_train_ratio=1 / 9)
    >>> tab[["model_a", "model_b", "reject"]]
      model_a model_b  reject
    0       a       b    True
    1       a       c    True
    2       b       c   False

    Classifier a is better than both b and c, which cannot be told apart.
    """
    from itertools import combinations

    from .multiple import ADJUST_METHODS, adjust_pvalues

    arr, _, cols = as_score_matrix(scores, "scores", min_rows=2, min_cols=2)
    ratio = check_positive_float(test_train_ratio, "test_train_ratio")
    check_choice(adjust, "adjust", ADJUST_METHODS)
    check_probability(alpha, "alpha")
    rows = []
    for i, j in combinations(range(len(cols)), 2):
        res = corrected_resampled_ttest(arr[:, i], arr[:, j], test_train_ratio=ratio)
        rows.append({"model_a": cols[i], "model_b": cols[j], "estimate": res.estimate,
                     "se": res.details["se"], "statistic": res.statistic, "df": res.df,
                     "pvalue": res.pvalue, "degenerate": res.degenerate})
    out = pd.DataFrame(rows)
    out["pvalue_adjusted"] = adjust_pvalues(out["pvalue"].to_numpy(), adjust)
    out["reject"] = out["pvalue_adjusted"] <= alpha
    out = out[["model_a", "model_b", "estimate", "se", "statistic", "df", "pvalue",
               "pvalue_adjusted", "reject", "degenerate"]]
    out.attrs["adjustment"] = adjust
    return out


# --------------------------------------------------------------------------------------------
# which test when
# --------------------------------------------------------------------------------------------

# key -> (label, function call, splits, df, when to use)
_GUIDE = {
    "resampled_t": (
        "resampled t (uncorrected)", "paired_ttest_resampled", "J random train/test splits",
        "J-1", "never for decisions: shows why correction is needed"),
    "corrected_resampled_t": (
        "corrected resampled t (Nadeau-Bengio)",
        "corrected_resampled_ttest(test_train_ratio=n_test/n_train)", "J random train/test splits",
        "J-1", "random splits, e.g. 30 x 70/30; the default for repeated hold-out"),
    "kfold_t": (
        "k-fold t (uncorrected)", "paired_ttest_kfold", "one K-fold CV", "K-1",
        "never for decisions: shows why correction is needed"),
    "corrected_kfold_t": (
        "corrected k-fold t", "corrected_resampled_ttest(test_train_ratio=1/(K-1))",
        "one K-fold CV", "K-1", "only one cross-validation is affordable"),
    "repeated_kfold_t": (
        "r x K-fold t (uncorrected)", "paired_ttest_kfold on all rK folds", "r x K-fold CV",
        "rK-1", "never: the more repetitions, the more it over-rejects"),
    "corrected_repeated_kfold_t": (
        "corrected repeated CV t (Bouckaert-Frank)",
        "corrected_resampled_ttest(test_train_ratio=1/(K-1))", "r x K-fold CV", "rK-1",
        "the default with cross-validation (r = K = 10): best replicability"),
    "ttest_5x2cv": (
        "5x2cv t (Dietterich)", "ttest_5x2cv", "5 x 2-fold CV", "5",
        "superseded by the F test (depends on which fold is listed first)"),
    "ftest_5x2cv": (
        "5x2cv F (Alpaydin)", "ftest_5x2cv", "5 x 2-fold CV", "(10, 5)",
        "when learners are costly (10 fits each); can over-reject with unstable learners"),
}


def resampling_test_guide(
    rates: pd.DataFrame | Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Which test when: each resampling test with its splits, df and when to use it.

    Parameters
    ----------
    rates : DataFrame or mapping of column name -> DataFrame, optional
        :attr:`precmp_lib.course.type1.Type1ErrorSimulation.rates`. One table adds the measured ``type1_error`` with
        its interval (``ci_low``, ``ci_high``); a mapping adds one column of rejection rates
        per entry (e.g. ``{"type1_error": ..., "power": ...}``).

    Returns
    -------
    DataFrame indexed by test key with ``test``, ``call``, ``splits``, ``df``, ``use_when``
    and the measured columns.

    Examples
    --------
    >>> resampling_test_guide().loc["corrected_resampled_t", "df"]
    'J-1'
    """
    guide = pd.DataFrame.from_dict(
        _GUIDE, orient="index", columns=["test", "call", "splits", "df", "use_when"]
    )
    guide.index.name = "key"
    tables = {"rates": rates} if isinstance(rates, pd.DataFrame) else rates
    if tables is not None and not isinstance(tables, Mapping):
        raise ValueError(f"rates must be a DataFrame or a mapping of DataFrames; got "
                         f"{type(rates).__name__}")
    needed = {"key", "rejection_rate"} | ({"ci_low", "ci_high"} if tables is not rates else set())
    for name, tab in (tables or {}).items():
        if not isinstance(tab, pd.DataFrame) or not needed <= set(tab.columns):
            raise ValueError(f"rates[{name!r}] must be a DataFrame with columns "
                             f"{', '.join(sorted(needed))} (Type1ErrorSimulation.rates)")
    if isinstance(rates, pd.DataFrame):
        measured = rates.set_index("key")[["rejection_rate", "ci_low", "ci_high"]]
        guide = guide.join(measured.rename(columns={"rejection_rate": "type1_error"}))
    elif rates is not None:
        for name, tab in rates.items():
            guide[str(name)] = tab.set_index("key")["rejection_rate"]
    return guide
