"""Tests of accuracy on one test set: one classifier against a reference, two or more against each other.

:func:`binomial_test` asks whether one classifier's accuracy differs from a fixed reference value
(the exact binomial test with its Clopper–Pearson interval). :func:`proportions_test` is the
difference-of-proportions z test that Dietterich (1998) examined and advised against for two
classifiers scored on the same test set; it is here so the course can show why, and for the case it
fits (two independent test sets). :func:`ftest_looney` is Looney's (1988) F test of equal accuracy
of two or more classifiers on the same items, the ANOVA counterpart of Cochran's Q.

Every difference is **A minus B**; for :func:`binomial_test` the estimate is the accuracy itself.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lib.aliases import PredictionsLike
from .._lib.checks import check_choice, check_probability
from .._lib.dist import norm_isf, norm_sf, stats
from .contingency import correctness_matrix
from .results import ALTERNATIVES, TestResult

__all__ = ["binomial_test", "ftest_looney", "proportions_test"]

# Outcomes whose probability is within this relative distance of the observed one count as "as
# extreme" in the two-sided binomial p-value (guards against rounding in the pmf).
_PMF_RTOL = 1e-7


def _check_count(value: Any, name: str, *, upper: int | None = None, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be a whole number; got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}")
    if upper is not None and value > upper:
        raise ValueError(f"{name} must not exceed {upper}; got {value}")
    return value


def _first_at_most(lo: int, hi: int, threshold: float, n: int, p: float, step: int) -> int:
    """Find the first outcome whose pmf is <= ``threshold`` on a monotone stretch.

    On a stretch where the pmf falls monotonically (``step = +1``: from ``lo`` up to ``hi``;
    ``step = -1``: from ``hi`` down to ``lo``), return the first outcome whose pmf is
    <= ``threshold``; one step past the end when there is none. Bisection: O(log n) pmf
    evaluations.
    """
    if step > 0:
        while lo < hi:
            mid = (lo + hi) // 2
            if stats.binom.pmf(mid, n, p) <= threshold:
                hi = mid
            else:
                lo = mid + 1
        return lo if stats.binom.pmf(lo, n, p) <= threshold else lo + 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if stats.binom.pmf(mid, n, p) <= threshold:
            lo = mid
        else:
            hi = mid - 1
    return lo if stats.binom.pmf(lo, n, p) <= threshold else lo - 1


def _binomial_pvalue(k: int, n: int, p: float, alternative: str) -> float:
    """Exact binomial p-value; two-sided sums the outcomes no more probable than ``k``."""
    if alternative == "greater":
        return float(stats.binom.sf(k - 1, n, p))
    if alternative == "less":
        return float(stats.binom.cdf(k, n, p))
    threshold = stats.binom.pmf(k, n, p) * (1 + _PMF_RTOL)
    mode = min(n, math.floor((n + 1) * p))
    if stats.binom.pmf(mode, n, p) <= threshold:
        return 1.0
    # the pmf rises up to the mode and falls after it: the outcomes as probable as k or less
    # are k's own tail and a tail on the far side of the mode
    if k < mode:
        start = _first_at_most(mode, n, threshold, n, p, +1)
        far = float(stats.binom.sf(start - 1, n, p)) if start <= n else 0.0
        return min(1.0, float(stats.binom.cdf(k, n, p)) + far)
    end = _first_at_most(0, mode, threshold, n, p, -1)
    far = float(stats.binom.cdf(end, n, p)) if end >= 0 else 0.0
    return min(1.0, float(stats.binom.sf(k - 1, n, p)) + far)


def _clopper_pearson(k: int, n: int, alternative: str, level: float) -> tuple[float, float]:
    """Exact interval for a binomial proportion from the beta quantiles."""
    tail = 1.0 - level if alternative != "two-sided" else (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(stats.beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.isf(tail, k + 1, n - k))
    if alternative == "greater":
        high = 1.0
    elif alternative == "less":
        low = 0.0
    return low, high


def binomial_test(
    n_correct: int,
    n: int,
    reference: float,
    *,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> TestResult:
    """Exact binomial test of one classifier's accuracy against a reference accuracy.

    Parameters
    ----------
    n_correct : int
        Items of the test set the classifier got right (0 <= n_correct <= n).
    n : int
        Size of the test set (>= 1).
    reference : float
        The accuracy under the null hypothesis, strictly between 0 and 1 (a baseline such as the
        majority-class rate, or a published accuracy).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the classifier's true accuracy exceeds ``reference``.
    confidence_level : float
        Level of the Clopper–Pearson interval for the accuracy (one-sided for one-sided
        alternatives).

    Returns
    -------
    TestResult
        ``statistic`` the number correct; ``estimate`` the accuracy ``n_correct / n`` with its
        exact interval ``ci_low``, ``ci_high``; ``df`` None; ``n`` the test-set size;
        ``details`` holds ``reference``.

    Notes
    -----
    Under H0 the number correct is Binomial(n, reference). The two-sided p-value adds the
    probabilities of every outcome no more likely than the observed one (the "minimum
    likelihood" definition, with a relative tolerance of 1e-7 for ties); the one-sided ones
    are binomial tails from survival functions. The Clopper–Pearson interval inverts the two
    one-sided tests: its limits are the ``(1 - level)/2`` quantile of Beta(k, n - k + 1) and the
    upper ``(1 - level)/2`` quantile of Beta(k + 1, n - k). It matches
    ``scipy.stats.binomtest(k, n, p).proportion_ci(method="exact")``.

    The test treats the test items as independent draws; it says nothing about how the accuracy
    would vary with another training set.

    References
    ----------
    Clopper & Pearson (1934), The use of confidence or fiducial limits illustrated in the case
    of the binomial, Biometrika 26:404-413.

    Examples
    --------
    A classifier right on 87 of 100 test items, against a published accuracy of 80 %:

    >>> res = binomial_test(87, 100, 0.80)
    >>> round(res.pvalue, 4), round(res.ci_low, 3), round(res.ci_high, 3)
    (0.0811, 0.788, 0.929)

    The interval still contains 0.80, so these 100 items cannot show that the classifier beats
    the published figure at the 5 % level.
    """
    n = _check_count(n, "n", minimum=1)
    k = _check_count(n_correct, "n_correct", upper=n)
    p = check_probability(reference, "reference")
    check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_probability(confidence_level, "confidence_level")
    pvalue = _binomial_pvalue(k, n, p, alternative)
    low, high = _clopper_pearson(k, n, alternative, level)
    return TestResult(
        statistic=float(k), pvalue=pvalue, df=None, method="exact binomial test",
        alternative=alternative, estimate=k / n, ci_low=low, ci_high=high,
        confidence_level=level, n=n, details={"reference": p},
    )


def _wald_difference_interval(
    pa: float, pb: float, se: float, alternative: str, level: float
) -> tuple[float, float]:
    diff = pa - pb
    if alternative == "two-sided":
        q = norm_isf((1 - level) / 2)
        return diff - q * se, diff + q * se
    q = norm_isf(1 - level)
    return (diff - q * se, math.inf) if alternative == "greater" else (-math.inf, diff + q * se)


def proportions_test(
    n_correct_a: int,
    n_correct_b: int,
    n: int,
    *,
    n_b: int | None = None,
    alternative: str = "two-sided",
    confidence_level: float = 0.95,
) -> TestResult:
    """Difference-of-proportions z test of two accuracies (not advised for one shared test set).

    Parameters
    ----------
    n_correct_a, n_correct_b : int
        Items classifier A and classifier B got right.
    n : int
        Size of A's test set (and of B's, unless ``n_b`` is given).
    n_b : int, optional
        Size of B's test set when it differs from A's (two independent test sets, the one case
        where the test is valid).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: A's accuracy exceeds B's.
    confidence_level : float
        Level of the Wald interval for the difference of accuracies.

    Returns
    -------
    TestResult
        ``statistic`` z; ``estimate`` accuracy of A minus accuracy of B with a Wald interval
        (unpooled standard error); ``n`` the number of items of A's test set; ``details``
        holds both accuracies, the pooled accuracy, ``n_b`` and the pooled (``se_pooled``, used
        by z) and unpooled (``se_unpooled``, used by the interval) standard errors. When both
        classifiers are right on every item or wrong on every item the variance is zero:
        statistic 0, p-value 1, ``degenerate=True``.

    Notes
    -----
    With ``p_A = n_correct_a / n``, ``p_B = n_correct_b / n_b`` and the pooled accuracy
    ``p = (n_correct_a + n_correct_b) / (n + n_b)``::

        z = (p_A - p_B) / sqrt(p (1 - p) (1/n + 1/n_b))

    For one test set (``n_b = n``) this is Dietterich's (1998) form ``p = (p_A + p_B) / 2`` and
    ``z = (p_A - p_B) / sqrt(2 p (1 - p) / n)``.

    **Why it is not advised for two classifiers on the same test set.** The z statistic treats
    ``p_A`` and ``p_B`` as proportions of two independent samples. On one test set they are
    measured on the very same items, so they are correlated: items that are easy for A are easy
    for B. The difference depends only on the items where the two disagree, which is what
    McNemar's test (:func:`precmp_lib.mcnemar`) uses; the independent-samples variance has the
    wrong size, and the test also ignores that another training set would give other
    classifiers. In Dietterich's simulations it rejected a true null more often than its nominal
    level. Use it only for accuracies measured on different, independent test sets.

    References
    ----------
    Dietterich (1998), Approximate statistical tests for comparing supervised classification
    learning algorithms, Neural Computation 10:1895-1923. Snedecor & Cochran (1989), Statistical
    Methods, 8th ed.

    Examples
    --------
    A is right on 85 and B on 78 of the same 100 items:

    >>> res = proportions_test(85, 78, 100)
    >>> round(res.statistic, 3), round(res.pvalue, 3), round(res.estimate, 2)
    (1.275, 0.202, 0.07)

    The z test sees no difference at 5 %; whether the items A and B disagree on favour A is the
    question McNemar's test answers with the same data.
    """
    n = _check_count(n, "n", minimum=1)
    nb = n if n_b is None else _check_count(n_b, "n_b", minimum=1)
    xa = _check_count(n_correct_a, "n_correct_a", upper=n)
    xb = _check_count(n_correct_b, "n_correct_b", upper=nb)
    check_choice(alternative, "alternative", ALTERNATIVES)
    level = check_probability(confidence_level, "confidence_level")
    pa, pb = xa / n, xb / nb
    pooled = (xa + xb) / (n + nb)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / nb))
    se1 = math.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / nb)
    details = {"accuracy_a": pa, "accuracy_b": pb, "pooled_accuracy": pooled, "se_pooled": se0,
               "se_unpooled": se1, "n_b": nb}
    method = "difference of proportions z" + (" (one test set)" if n_b is None else "")
    common: dict[str, Any] = {"alternative": alternative, "n": n, "confidence_level": level, "details": details}
    if se0 == 0.0:
        return TestResult.indistinguishable(
            method, "both classifiers are right on every item, or wrong on every item: the "
            "variance is zero", estimate=0.0, **common,
        )
    z = (pa - pb) / se0
    if alternative == "two-sided":
        p = 2 * norm_sf(abs(z))
    else:
        p = norm_sf(z if alternative == "greater" else -z)
    low, high = _wald_difference_interval(pa, pb, se1, alternative, level)
    note = ("both accuracies come from the same test items, which this test treats as independent "
            "samples; prefer McNemar's test") if n_b is None else ""
    return TestResult(statistic=z, pvalue=min(1.0, float(p)), method=method, estimate=pa - pb,
                      ci_low=low, ci_high=high, note=note, **common)


def ftest_looney(y_true: npt.ArrayLike, predictions: PredictionsLike) -> TestResult:
    """Looney's F test of equal accuracy of two or more classifiers on the same test set.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings).
    predictions : mapping name -> predictions, DataFrame of prediction columns, or sequence
        The predicted labels of k >= 2 classifiers, each of length n.

    Returns
    -------
    TestResult
        ``statistic`` F; ``pvalue`` from F with ``df = (k - 1, (k - 1)(n - 1))``; ``n`` the
        number of items; ``details`` holds each classifier's ``accuracy`` and the sums of
        squares ``ss_classifiers``, ``ss_items``, ``ss_interaction``, ``ss_total``.
        Classifiers right on exactly the same items give 0/0: statistic 0, p-value 1,
        ``degenerate=True``; a zero interaction with unequal accuracies gives an infinite
        statistic and p-value 0, also degenerate.

    Notes
    -----
    The 0/1 correctness ``x_ij`` of classifier j on item i is analysed as a two-way layout
    without replication (classifiers × items). With accuracies ``a_j``, their mean ``ā`` and
    ``L_i`` the number of classifiers right on item i::

        SSA  = n Σ a_j² − n k ā²                 (classifiers)
        SSB  = (1/k) Σ L_i² − n k ā²             (items)
        SST  = n k ā (1 − ā)                     (total)
        SSAB = SST − SSA − SSB                   (classifier × item interaction)
        F    = [SSA / (k − 1)] / [SSAB / ((k − 1)(n − 1))]

    The statistic is computed from the integer counts ``Σ G_j²``, ``Σ L_i²`` and ``T`` (number
    correct per classifier, squared row sums, total correct), so it is exact. It equals
    mlxtend's ``ftest``. The denominator degrees of freedom are those of the interaction mean
    square, ``(k − 1)(n − 1)``; mlxtend divides by the same number in the mean square but takes
    the p-value from ``(k − 1) n`` degrees of freedom, so its p-value differs slightly (it is
    ``scipy.stats.f.sf(F, k − 1, (k − 1) n)``).

    References
    ----------
    Looney (1988), A statistical technique for comparing the accuracies of several classifiers,
    Pattern Recognition Letters 8:5-9. Kuncheva (2014), Combining Pattern Classifiers, 2nd ed.

    Examples
    --------
    Three classifiers on 100 items, wrong on 16, 8 and 8 of them:

    >>> y = np.zeros(100, dtype=int)
    >>> preds = {"a": y.copy(), "b": y.copy(), "c": y.copy()}
    >>> preds["a"][:16] = 1
    >>> preds["b"][[0, 1, 2, 3, 4, 5, 20, 21]] = 1
    >>> preds["c"][[0, 1, 2, 6, 20, 21, 98, 99]] = 1
    >>> res = ftest_looney(y, preds)
    >>> round(res.statistic, 3), round(res.pvalue, 4), res.df
    (3.873, 0.0224, (2.0, 198.0))

    At the 5 % level the three accuracies (84 %, 92 %, 92 %) are not all equal, as Cochran's Q
    finds on the same items.
    """
    correct = correctness_matrix(y_true, predictions)
    if correct.shape[1] < 2:
        raise ValueError(f"predictions must hold at least 2 classifiers; got {correct.shape[1]}")
    arr = correct.to_numpy().astype(np.int64)
    n, k = arr.shape
    if n < 2:
        raise ValueError(f"y_true must hold at least 2 items for Looney's F; got {n}")
    g = arr.sum(axis=0)
    rows = np.bincount(arr.sum(axis=1), minlength=k + 1)  # items right for 0..k classifiers
    total = int(g.sum())
    sum_g2 = int((g.astype(object) ** 2).sum())
    sum_l2 = int(sum(i * i * int(c) for i, c in enumerate(rows)))
    # n k times each sum of squares, in exact integers
    nk_ssa = k * sum_g2 - total**2
    nk_ssb = n * sum_l2 - total**2
    nk_sst = n * k * total - total**2
    nk_ssab = nk_sst - nk_ssa - nk_ssb
    df = (float(k - 1), float((k - 1) * (n - 1)))
    details = {
        "accuracy": dict(zip(correct.columns, (g / n).tolist())),
        "ss_classifiers": nk_ssa / (n * k), "ss_items": nk_ssb / (n * k),
        "ss_interaction": nk_ssab / (n * k), "ss_total": nk_sst / (n * k),
    }
    method = "Looney's F"
    if nk_ssab == 0 and nk_ssa == 0:
        return TestResult.indistinguishable(
            method, "the classifiers are right on exactly the same items: no information",
            df=df, n=n, details=details,
        )
    if nk_ssab == 0:
        return TestResult(statistic=math.inf, pvalue=0.0, df=df, method=method, n=n,
                          degenerate=True, details=details,
                          note="the classifier-by-item interaction is zero while the accuracies "
                               "differ: the F ratio is infinite")
    f = (n - 1) * nk_ssa / nk_ssab
    return TestResult(statistic=f, pvalue=float(stats.f.sf(f, *df)), df=df, method=method, n=n,
                      details=details)
