"""Comparing classifiers over many data sets (Demšar 2006).

Wilcoxon, Friedman, Iman–Davenport, Nemenyi, tests against a control and Shaffer's all-pairs
procedure.

Every function takes an N x k score matrix (rows = data sets, columns = classifiers; an array or
a DataFrame whose column names become the classifier names) with ``higher_is_better`` stating the
direction of the score explicitly. Within each data set the classifiers are ranked with rank 1 =
best and average ranks for ties. Scores are rounded to 12 significant digits before ranking, so
floating-point noise such as ``0.1 + 0.2 != 0.3`` neither breaks a tie nor creates one.

The rank-based post-hoc tests also accept the k published *average* ranks with ``n_datasets``
(as in a paper's table); then no tie correction is possible.

:func:`precmp_lib.course.scores.score_matrix` produces the score matrix itself:
cross-validated scores of several scikit-learn estimators on several data sets, with the same
folds for every estimator.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from .._lib.checks import (
    as_score_matrix,
    check_bool,
    check_choice,
    check_positive_int,
    check_probability,
    describe_value,
)
from .._lib.dist import norm_sf, stats
from .results import ALTERNATIVES, TestResult

__all__ = ['RankData', 'average_ranks', 'friedman', 'iman_davenport', 'rank_data', 'rank_matrix', 'wilcoxon']


WILCOXON_METHODS = ("auto", "exact", "normal")
ZERO_METHODS = ("wilcox", "pratt", "zsplit", "demsar")
PAIRWISE_METHODS = ("nemenyi", "holm", "shaffer", "bonferroni")
CONTROL_METHODS = ("holm", "hochberg", "bonferroni_dunn")
CD_METHODS = ("nemenyi", "bonferroni_dunn")

# R's wilcox.test computes the exact distribution when there are fewer than 50 non-zero
# differences and neither ties nor zeros.
_EXACT_LIMIT = 50
_SIGNIFICANT_DIGITS = 12
_EXACT_POWER = 22  # 10**22 is the largest power of ten a double holds exactly


# --------------------------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------------------------


def _round_significant(values: Any, digits: int = _SIGNIFICANT_DIGITS) -> np.ndarray:
    """Round to ``digits`` significant decimal digits (equal decimals give equal floats).

    The result is the float that ``float(f"{x:.{digits}g}")`` gives, computed with numbers:
    scale by an exact power of ten to ``digits`` integer digits, round half to even, scale back
    (an exact power of ten, so one correctly rounded division or product, as a decimal parser
    does). Where the scaled value lies within 1e-3 of a half (its own rounding error could
    decide the tie) or the power of ten is not exact, the value is formatted as text instead.
    """
    arr = np.asarray(values, dtype=float)
    out = arr.copy()
    finite = np.isfinite(arr) & (arr != 0)
    if not finite.any():
        return out
    x = np.abs(arr[finite])
    shift = digits - 1 - np.floor(np.log10(x)).astype(np.int64)
    q = _times_power_of_ten(x, shift)
    # log10 can be off by one next to a power of ten: bring q to exactly `digits` digits
    fix = (q < 10.0 ** (digits - 1)).astype(np.int64) - (q >= 10.0**digits)
    if fix.any():
        shift += fix
        q = _times_power_of_ten(x, shift)
    rounded = _times_power_of_ten(np.rint(q), -shift)
    unsure = (np.abs(q - np.floor(q) - 0.5) < 1e-3) | (np.abs(shift) > _EXACT_POWER)
    if unsure.any():
        where = np.flatnonzero(unsure)
        rounded[where] = np.char.mod(f"%.{digits}g", x[where]).astype(float)
    out[finite] = np.copysign(rounded, arr[finite])
    return out


def _times_power_of_ten(x: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Compute ``x * 10**shift`` with one rounding.

    10**|shift| is exact for |shift| <= 22, and a negative shift divides by it (10**-n itself
    is not a float).
    """
    power = 10.0 ** np.minimum(np.abs(shift), _EXACT_POWER)
    with np.errstate(over="ignore", under="ignore"):
        return np.where(shift >= 0, x * power, x / power)


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def _check_alpha(alpha: Any) -> float:
    return check_probability(alpha, "alpha")


def _ranks_of(arr: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Within-row ranks, 1 = best, average ranks for ties (on 12-significant-digit scores)."""
    values = _round_significant(arr)
    return stats.rankdata(-values if higher_is_better else values, method="average", axis=1)


@dataclass(frozen=True)
class RankData:
    """Average ranks of k classifiers over N data sets (and the rank matrix when known).

    Attributes
    ----------
    values : ndarray of shape (k,)
        Average rank of each classifier (1 = best), in column order.
    names : list of str
        The classifiers' names, in order.
    n : int
        N, the number of data sets.
    matrix : ndarray of shape (N, k) or None
        The within-data-set ranks; None when published average ranks were given.
    k : int
        The number of classifiers.
    ranks : Series
        ``values`` named ``average_rank``, indexed by classifier (built on first use).
    se : float
        Standard error of a difference of two average ranks, ``sqrt(k(k+1)/(6N))``.
    """

    values: np.ndarray  # the k average ranks, in column order
    names: list[str]
    n: int
    matrix: np.ndarray | None  # N x k within-data-set ranks; None for published average ranks

    @property
    def k(self) -> int:
        """The number of classifiers."""
        return len(self.names)

    @cached_property
    def ranks(self) -> pd.Series:
        """The average ranks as a Series named ``average_rank``, indexed by ``classifier``.

        Built on first use: the omnibus tests need only ``values``, and an index of strings
        costs more than the whole Friedman statistic on a small matrix.
        """
        return pd.Series(self.values, index=pd.Index(self.names, name="classifier"),
                         name="average_rank")

    @property
    def se(self) -> float:
        """Standard error of a difference of two average ranks, sqrt(k(k+1)/(6N))."""
        return math.sqrt(self.k * (self.k + 1) / (6.0 * self.n))


def rank_data(scores: Any, *, n_datasets: Any = None, higher_is_better: Any = True) -> RankData:
    """Check the input of the rank tests and rank it: a score matrix, or k average ranks.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series / 1-D array of length k
        A score matrix (one row per data set, one column per classifier), or the average ranks
        of k classifiers as published (then ``n_datasets`` is required).
    n_datasets : int, optional
        N, the number of data sets the average ranks were taken over (1-D input only).
    higher_is_better : bool
        Direction of the score (True for accuracy, False for error rates).

    Returns
    -------
    RankData
        The average ranks, N and, for a score matrix, the within-data-set ranks.

    Examples
    --------
    >>> data = rank_data([[0.90, 0.80, 0.85], [0.70, 0.70, 0.60]])
    >>> data.ranks.tolist(), data.n, data.k
    ([1.25, 2.25, 2.5], 2, 3)
    >>> rank_data([1.5, 2.0, 2.5], n_datasets=10).names
    ['clf_0', 'clf_1', 'clf_2']
    """
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    one_dim = isinstance(scores, pd.Series) or (
        not isinstance(scores, pd.DataFrame) and np.ndim(scores) == 1
    )
    if not one_dim:
        if n_datasets is not None:
            raise ValueError(
                "n_datasets is only used with average ranks (a 1-D input); "
                f"got a score matrix and n_datasets={n_datasets!r}"
            )
        arr, _, cols = as_score_matrix(scores, "scores", min_rows=2, min_cols=2)
        matrix = _ranks_of(arr, higher_is_better)
        return RankData(values=matrix.mean(axis=0), names=cols, n=arr.shape[0], matrix=matrix)
    if n_datasets is None:
        raise ValueError(
            "scores is one-dimensional, so it is read as average ranks and n_datasets "
            "(the number of data sets they were averaged over) is required; got None"
        )
    n = check_positive_int(n_datasets, "n_datasets", minimum=2)
    if isinstance(scores, pd.Series):
        names = [str(i) for i in scores.index]
        values = scores.to_numpy()
    else:
        values = np.asarray(scores)
        names = [f"clf_{j}" for j in range(values.shape[0])]
    try:
        r = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("average ranks must be numbers") from None
    k = r.size
    if k < 2:
        raise ValueError(f"average ranks must hold at least 2 classifiers; got {k}")
    if not np.all(np.isfinite(r)):
        raise ValueError("average ranks must be finite numbers")
    # published ranks are rounded (typically to 3 decimals): allow that much slack
    slack = 1e-3 * k
    if np.any(r < 1 - 1e-3) or np.any(r > k + 1e-3):
        raise ValueError(f"average ranks must lie in [1, k] = [1, {k}]; got {r.tolist()}")
    if abs(r.sum() - k * (k + 1) / 2) > slack:
        raise ValueError(
            f"average ranks of k = {k} classifiers must sum to k(k+1)/2 = {k * (k + 1) / 2:g}; "
            f"got {r.sum():g}"
        )
    return RankData(values=r, names=names, n=n, matrix=None)


def rank_matrix(scores: Any, *, higher_is_better: bool = True) -> pd.DataFrame:
    """Rank the classifiers within each data set: 1 = best, average ranks for ties.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k)
        One row per data set, one column per classifier.
    higher_is_better : bool
        True for accuracy, AUC, F1 (the largest score gets rank 1); False for error rates and
        losses (the smallest gets rank 1).

    Returns
    -------
    DataFrame of shape (N, k) with the same row and column labels.

    Notes
    -----
    Scores are rounded to 12 significant digits first, so values that differ only by
    floating-point noise share a rank.

    Examples
    --------
    Two classifiers tie on the second data set and share ranks 1 and 2:

    >>> rank_matrix([[0.90, 0.80, 0.85], [0.70, 0.70, 0.60]])
       clf_0  clf_1  clf_2
    0    1.0    3.0    2.0
    1    1.5    1.5    3.0
    """
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    arr, _, cols = as_score_matrix(scores, "scores", min_rows=1, min_cols=2)
    out = pd.DataFrame(_ranks_of(arr, higher_is_better), columns=cols)
    if isinstance(scores, pd.DataFrame):
        out.index = scores.index
        out.columns = scores.columns
    return out


def average_ranks(scores: Any, higher_is_better: bool = True) -> pd.Series:
    """Average rank of each classifier over the data sets (1 = best).

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k)
        One row per data set, one column per classifier.
    higher_is_better : bool
        Direction of the score (True for accuracy, False for error rates).

    Returns
    -------
    Series named ``average_rank``, indexed by classifier, in column order.

    Notes
    -----
    ``R_j = (1/N) sum_i r_i^j`` with ``r_i^j`` the rank of classifier j on data set i
    (Demšar 2006, §3.2.2). The average ranks always sum to ``k(k+1)/2``.

    Examples
    --------
    Error rates of three classifiers on two data sets (lower is better):

    >>> import pandas as pd
    >>> err = pd.DataFrame({"tree": [0.20, 0.30], "forest": [0.10, 0.25], "knn": [0.15, 0.40]})
    >>> average_ranks(err, higher_is_better=False)
    classifier
    tree      2.5
    forest    1.0
    knn       2.5
    Name: average_rank, dtype: float64

    The forest is best on both data sets; the tree and k-NN share the rest.
    """
    return rank_data(scores, higher_is_better=higher_is_better).ranks


# --------------------------------------------------------------------------------------------
# Wilcoxon signed-rank test
# --------------------------------------------------------------------------------------------


def _signed_rank_null(weights: np.ndarray) -> np.ndarray:
    """Exact null pmf of sum_i w_i B_i, B_i iid Bernoulli(1/2), for integer weights w_i >= 1.

    Index s of the result is P(sum = s). Dynamic programming over the weights: each step
    halves the distribution and adds a copy shifted by the weight.
    """
    total = int(weights.sum())
    pmf = np.zeros(total + 1)
    pmf[0] = 1.0
    reach = 0
    for w in weights.astype(int):
        shifted = pmf[: reach + 1].copy()
        pmf[: reach + 1] *= 0.5
        pmf[w : w + reach + 1] += 0.5 * shifted
        reach += w
    return pmf


def _hodges_lehmann(d: np.ndarray) -> float:
    """Median of the Walsh averages (d_i + d_j)/2, i <= j (the one-sample pseudomedian)."""
    i, j = _walsh_pairs(d.size)
    return float(np.median((d[i] + d[j]) / 2.0))


_ZERO_LABELS = {"wilcox": "zeros dropped", "pratt": "Pratt zeros", "zsplit": "zeros split",
                "demsar": "zeros split, Demšar"}


def _paired_scores(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Check two classifiers' scores on the same data sets; return them as float arrays."""
    try:
        xa = np.asarray(x, dtype=float) if not isinstance(x, pd.Series) else x.to_numpy(float)
        ya = np.asarray(y, dtype=float) if not isinstance(y, pd.Series) else y.to_numpy(float)
    except (TypeError, ValueError):
        raise ValueError("x and y must hold numbers (one score per data set)") from None
    for name, arr in (("x", xa), ("y", ya)):
        if arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one score per data set); "
                             f"got shape {arr.shape}")
        if arr.size == 0:
            raise ValueError(f"{name} must not be empty")
        if not np.all(np.isfinite(arr)):
            where = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise ValueError(f"{name} must hold finite scores; found {arr[where]} at position {where}")
    if xa.size != ya.size:
        raise ValueError(f"x and y must have the same length (one score per data set); "
                         f"got {xa.size} and {ya.size}")
    return xa, ya


def _drop_zeros(d: np.ndarray, zero_method: str) -> np.ndarray:
    """Drop the zero differences that ``zero_method`` leaves out of the ranking.

    ``"wilcox"`` drops them all; ``"demsar"`` drops one when their number is odd; ``"pratt"``
    and ``"zsplit"`` keep them.
    """
    zero = d == 0
    if zero_method == "demsar" and int(zero.sum()) % 2 == 1:
        return np.delete(d, np.flatnonzero(zero)[0])
    if zero_method == "wilcox":
        return d[~zero]
    return d


@dataclass(frozen=True)
class _SignedRanks:
    """Ranks of the absolute differences ``|d|`` and the signed sums the tests are built on."""

    d: np.ndarray  # the differences that are ranked (zeros included unless dropped)
    ranks: np.ndarray  # average ranks of |d|
    tie_counts: np.ndarray  # size of each group of equal |d|, smallest |d| first
    zero_shift: float  # half the zeros' rank sum under zsplit/demsar, else 0
    r_plus: float  # ranks of the positive differences (plus zero_shift)
    r_minus: float  # ranks of the negative differences (plus zero_shift)
    n_tied: int  # non-zero differences sharing a rank

    @property
    def nonzero(self) -> np.ndarray:
        return self.d != 0


def _signed_ranks(d: np.ndarray, zero_method: str) -> _SignedRanks:
    """Rank ``|d|`` (average ranks for ties) and sum the ranks of each sign."""
    zero = d == 0
    absd = np.abs(d)
    r = stats.rankdata(absd, method="average")
    _, inverse, counts = np.unique(absd, return_inverse=True, return_counts=True)
    tied_nonzero = counts[inverse] > 1
    zero_rank_sum = float(r[zero].sum())
    zero_shift = zero_rank_sum / 2 if zero_method in ("zsplit", "demsar") else 0.0
    return _SignedRanks(
        d=d, ranks=r, tie_counts=counts, zero_shift=zero_shift,
        r_plus=float(r[d > 0].sum()) + zero_shift, r_minus=float(r[d < 0].sum()) + zero_shift,
        n_tied=int(np.sum(tied_nonzero & ~zero)),
    )


def _all_zero_result(n_used: int, n_zero: int, n_total: int, estimate: float,
                     zero_method: str, alternative: str) -> TestResult:
    """Build the Wilcoxon result when every difference that is ranked is zero."""
    stat = n_used * (n_used + 1) / 4.0 if zero_method in ("zsplit", "demsar") else 0.0
    return TestResult.indistinguishable(
        f"Wilcoxon signed-rank ({_ZERO_LABELS[zero_method]})",
        "every difference x - y is zero: the data cannot tell the classifiers apart",
        statistic=stat, alternative=alternative, n=n_total, estimate=estimate,
        details={"r_plus": stat, "r_minus": stat, "t": stat, "z": math.nan,
                 "n_used": n_used, "n_zero": n_zero, "n_tied": 0,
                 "distribution": "none", "rank_biserial": 0.0},
    )


def _exact_pvalue(sr: _SignedRanks, alternative: str) -> float:
    """P-value of ``V = R+`` under its exact permutation distribution (twice the ranks)."""
    weights = np.rint(2 * sr.ranks[sr.nonzero]).astype(int)  # twice the (mid-)ranks: integers
    pmf = _signed_rank_null(weights)
    s = int(np.rint(2 * (sr.r_plus - sr.zero_shift)))
    cdf = float(pmf[: s + 1].sum())
    sf = float(pmf[s:].sum())
    if alternative == "greater":
        return sf
    if alternative == "less":
        return cdf
    return 2.0 * min(cdf, sf)


def _normal_approximation(sr: _SignedRanks, n_zero: int, zero_method: str, alternative: str,
                          correction: bool) -> tuple[float, float]:
    """``(z, p)`` of ``V = R+`` from the normal approximation with tie-corrected variance."""
    n = sr.d.size
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0
    tie_counts = sr.tie_counts
    if zero_method == "pratt" and n_zero > 0:
        mean -= n_zero * (n_zero + 1) / 4.0
        var -= n_zero * (n_zero + 1) * (2 * n_zero + 1) / 24.0
        tie_counts = tie_counts[1:]  # the zeros' group is the smallest |d|
    var -= float(np.sum(tie_counts.astype(float) ** 3 - tie_counts)) / 48.0
    sigma = math.sqrt(var)
    diff = sr.r_plus - mean
    cc = 0.0
    if correction:
        cc = {"two-sided": 0.5 * np.sign(diff), "greater": 0.5, "less": -0.5}[alternative]
    z = float((diff - cc) / sigma)
    if alternative == "greater":
        return z, norm_sf(z)
    if alternative == "less":
        return z, norm_sf(-z)
    return z, 2.0 * norm_sf(abs(z))


def _wilcoxon_note(n_nonzero: int, alternative: str, method: str, use_exact: bool) -> str:
    """Warnings about too few differences and about the fall-back to the normal approximation."""
    one_sided = alternative != "two-sided"
    notes = []
    if 0.5 ** n_nonzero * (1 if one_sided else 2) > 0.05:
        notes.append(
            f"only {n_nonzero} non-zero differences: even if every one favoured the same "
            "classifier the exact p-value could not fall below 0.05"
        )
    if method == "auto" and not use_exact and n_nonzero < _EXACT_LIMIT:
        notes.append("ties or zeros among the differences: normal approximation (as R)")
    return "; ".join(notes)


def wilcoxon(
    x: Any,
    y: Any,
    *,
    method: str = "auto",
    correction: bool = True,
    zero_method: str = "wilcox",
    alternative: str = "two-sided",
) -> TestResult:
    """Wilcoxon signed-rank test for two classifiers scored on the same N data sets.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        Scores of classifiers X and Y, one per data set, in the same order. The test works on
        the differences ``d = x - y``.
    method : {"auto", "exact", "normal"}
        ``"auto"`` follows R's ``wilcox.test``: the exact null distribution when fewer than 50
        differences are non-zero and there are neither ties nor zeros, the normal
        approximation otherwise. ``"exact"`` always uses the exact permutation distribution of
        the statistic (with mid-ranks when there are ties, where R falls back to the normal
        approximation). ``"normal"``: the normal approximation with tie-corrected variance.
    correction : bool
        Continuity correction of 0.5 towards the mean in the normal approximation (R's
        default). Ignored by the exact distribution.
    zero_method : {"wilcox", "pratt", "zsplit", "demsar"}
        What to do with zero differences. ``"wilcox"`` (R, Wilcoxon 1945): drop them before
        ranking. ``"pratt"`` (Pratt 1959): rank them with the rest, then drop their ranks, with
        Cureton's (1967) mean and variance. ``"zsplit"``: rank them and add half of their
        ranks to each sign's sum. ``"demsar"``: ``"zsplit"`` after dropping one zero when their
        number is odd (Demšar 2006).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: X tends to score higher than Y (the differences are shifted above 0).

    Returns
    -------
    TestResult
        ``statistic`` is R's ``V``, the sum of the ranks of the positive differences (plus
        half the zeros' ranks under ``"zsplit"``/``"demsar"``). ``estimate`` is the
        Hodges–Lehmann pseudomedian of ``x - y`` (no interval). ``n`` is the number of data
        sets. ``details``: ``r_plus``, ``r_minus``, ``t`` (Demšar's ``T = min(R+, R-)``),
        ``z`` (normal approximation only, else NaN), ``n_used`` (differences ranked),
        ``n_zero``, ``n_tied`` (differences sharing a rank), ``distribution`` (``"exact"`` or
        ``"normal"``), ``rank_biserial`` (``(R+ - R-)/(R+ + R-)``).

    Notes
    -----
    With ranks ``r_i`` of ``|d_i|`` (average ranks for ties), ``V = sum_{d_i>0} r_i``. Under
    H0 each non-zero difference is equally likely positive or negative, so ``V`` is
    distributed as ``c + sum r_i B_i`` with ``B_i`` fair coin flips (``c`` = half the zeros'
    ranks under zsplit); the exact distribution is computed by dynamic programming on twice
    the ranks. Two-sided ``p = min(1, 2 min(P[V <= v], P[V >= v]))``.

    Normal approximation: ``z = (V - mu - cc) / sigma`` with, for n ranked differences,
    ``mu = n(n+1)/4``, ``sigma^2 = n(n+1)(2n+1)/24 - sum(t^3 - t)/48`` over groups of ``t``
    tied absolute differences, and ``cc = 0.5 sign(V - mu)`` (two-sided), ``+0.5``
    (greater), ``-0.5`` (less) or 0 without correction — R's ``wilcox.test``. Pratt subtracts
    the zeros' share ``n0(n0+1)/4`` from the mean and ``n0(n0+1)(2n0+1)/24`` from the
    variance and leaves the zeros out of the tie correction; zsplit keeps ``n`` = all
    differences, as ``scipy.stats.wilcoxon`` does.

    Scores and then their differences are rounded to 12 significant digits before ranking:
    ``0.3 - 0.1`` and ``0.9 - 0.7`` differ in floating point but are the same tie, and
    ``(0.1 + 0.2) - 0.3`` is a zero, not a difference of 5.6e-17.

    References
    ----------
    Wilcoxon (1945), Biometrics Bulletin 1:80-83. Pratt (1959), JASA 54:655-667.
    Cureton (1967), JASA 62:1068-1069. Demšar (2006), JMLR 7:1-30, §3.1.3.
    Hollander & Wolfe (1973), Nonparametric Statistical Methods, §3.1.

    Examples
    --------
    Hamilton depression scores of nine patients at the first (x) and second (y) visit
    (Hollander & Wolfe 1973, the example of R's ``wilcox.test``):

    >>> x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    >>> y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    >>> res = wilcoxon(x, y, alternative="greater")
    >>> res.statistic, round(res.pvalue, 5), res.details["distribution"]
    (40.0, 0.01953, 'exact')

    Seven of nine differences are positive and they carry 40 of the 45 rank points: so lopsided
    a split arises by chance with probability 10/512, evidence that scores fell after therapy.
    """
    check_choice(method, "method", WILCOXON_METHODS)
    check_choice(zero_method, "zero_method", ZERO_METHODS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    correction = _check_bool(correction, "correction")
    xa, ya = _paired_scores(x, y)
    n_total = int(xa.size)
    d = _round_significant(_round_significant(xa) - _round_significant(ya))
    estimate = _hodges_lehmann(d)
    n_zero = int(np.sum(d == 0))
    d = _drop_zeros(d, zero_method)
    n_nonzero = int(np.sum(d != 0))
    if n_nonzero == 0:
        return _all_zero_result(int(d.size), n_zero, n_total, estimate, zero_method, alternative)

    sr = _signed_ranks(d, zero_method)
    if method == "auto":
        use_exact = n_nonzero < _EXACT_LIMIT and sr.n_tied == 0 and n_zero == 0
    else:
        use_exact = method == "exact"
    if use_exact:
        z, p = math.nan, _exact_pvalue(sr, alternative)
        distribution = "exact"
        name = "Wilcoxon signed-rank, exact" + (" (mid-ranks)" if sr.n_tied > 0 else "")
    else:
        z, p = _normal_approximation(sr, n_zero, zero_method, alternative, correction)
        distribution = "normal"
        name = "Wilcoxon signed-rank, normal approximation"
        if correction:
            name += ", continuity correction"
    name += f" ({_ZERO_LABELS[zero_method]})"

    r_plus, r_minus = sr.r_plus, sr.r_minus
    total = r_plus + r_minus
    return TestResult(
        statistic=r_plus,
        pvalue=float(min(1.0, max(0.0, p))),
        method=name,
        alternative=alternative,
        estimate=estimate,
        n=n_total,
        note=_wilcoxon_note(n_nonzero, alternative, method, use_exact),
        details={
            "r_plus": r_plus, "r_minus": r_minus, "t": min(r_plus, r_minus), "z": z,
            "n_used": int(d.size), "n_zero": n_zero, "n_tied": sr.n_tied,
            "distribution": distribution,
            "rank_biserial": (r_plus - r_minus) / total if total > 0 else 0.0,
        },
    )


# --------------------------------------------------------------------------------------------
# Friedman and Iman–Davenport
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _FriedmanParts:
    chi2: float  # tie-corrected if requested and possible
    chi2_uncorrected: float
    tie_factor: float  # C = 1 - sum(t^3 - t) / (N k (k^2 - 1)); 1.0 without correction
    all_tied: bool
    corrected: bool


def _friedman_parts(data: RankData, tie_correction: bool) -> _FriedmanParts:
    k, n = data.k, data.n
    centred = data.values - (k + 1) / 2.0
    chi2_u = 12.0 * n / (k * (k + 1)) * float(np.sum(centred**2))
    if data.matrix is None:
        return _FriedmanParts(chi2_u, chi2_u, 1.0, all_tied=False, corrected=False)
    # sum over tie groups of (t^3 - t) in each row, from the ranks' sum of squares:
    # sum_j r_j^2 = k(k+1)(2k+1)/6 - sum(t^3 - t)/12 for mid-ranks
    sq = np.sum(data.matrix**2, axis=1)
    ties = 12.0 * (k * (k + 1) * (2 * k + 1) / 6.0 - sq)
    factor = 1.0 - float(np.sum(ties)) / (n * k * (k * k - 1))
    all_tied = factor <= 1e-12
    if not tie_correction or all_tied:
        return _FriedmanParts(chi2_u, chi2_u, 1.0, all_tied=all_tied, corrected=False)
    return _FriedmanParts(chi2_u / factor, chi2_u, factor, all_tied=False, corrected=True)


def _chi2_sf(x: float, df: int) -> float:
    """Chi-square survival function P[X >= x] with ``df`` degrees of freedom.

    ``scipy.special.chdtrc`` is what ``stats.chi2.sf`` evaluates; called directly it skips the
    distribution's argument handling, which on a small matrix costs more than the statistic.
    """
    return float(special.chdtrc(df, x))


def _approximation_note(k: int, n: int) -> str:
    if n <= 10 or k <= 5:
        return (f"N = {n} data sets, k = {k} classifiers: the chi-square approximation wants "
                "N > 10 and k > 5 (Demšar 2006); prefer Iman–Davenport's F")
    return ""


def friedman(
    scores: Any,
    *,
    higher_is_better: bool = True,
    tie_correction: bool = True,
    n_datasets: int | None = None,
) -> TestResult:
    """Friedman's test that k classifiers perform equally well over N data sets.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series of k average ranks
        One row per data set, one column per classifier. A one-dimensional input is read as
        published average ranks (1 = best) and needs ``n_datasets``.
    higher_is_better : bool
        Direction of the score; the statistic does not depend on it, the ranks do.
    tie_correction : bool
        Divide by the tie factor C (R's ``friedman.test``, ``scipy.stats.friedmanchisquare``).
        False gives Demšar's formula. Average-rank input cannot be tie-corrected.
    n_datasets : int, optional
        Number of data sets behind average-rank input.

    Returns
    -------
    TestResult
        ``statistic`` = chi-square_F, ``df`` = k - 1, ``n`` = N. ``details``: ``k``,
        ``tie_factor`` (C, 1 without correction), ``kendall_w`` (chi-square / (N (k-1)),
        Kendall's coefficient of concordance, 0 = no agreement between data sets, 1 = the same
        order on every one).

    Notes
    -----
    ``chi2_F = 12N / (k(k+1)) [sum_j R_j^2 - k(k+1)^2/4]`` with ``R_j`` the average ranks,
    referred to chi-square with k - 1 degrees of freedom. Tie correction (Conover):
    divide by ``C = 1 - sum_i sum_ties (t^3 - t) / (N k (k^2 - 1))``, which equals R's
    ``12 sum_j (S_j - N(k+1)/2)^2 / (N k (k+1) - sum(t^3 - t)/(k - 1))``. If every data set
    ties all classifiers, C = 0: the result is statistic 0, p-value 1, ``degenerate=True``
    (scipy returns NaN).

    References
    ----------
    Friedman (1937), JASA 32:675-701; (1940), Ann Math Stat 11:86-92.
    Conover (1999), Practical Nonparametric Statistics, 3rd ed., §5.8.
    Demšar (2006), JMLR 7:1-30, §3.2.2.

    Examples
    --------
    Demšar's (2006) published average ranks of four C4.5 variants over 14 data sets:

    >>> import pandas as pd
    >>> r = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> res = friedman(r, n_datasets=14)
    >>> round(res.statistic, 5), round(res.pvalue, 6), res.df
    (9.28363, 0.025748, 3.0)

    With p = 0.026 the four variants are not all equally good; the post-hoc tests say which
    differ.
    """
    tie_correction = _check_bool(tie_correction, "tie_correction")
    data = rank_data(scores, n_datasets=n_datasets, higher_is_better=higher_is_better)
    k, n = data.k, data.n
    parts = _friedman_parts(data, tie_correction)
    name = "Friedman chi-square" + (", tie-corrected" if parts.corrected else "")
    details = {"k": k, "tie_factor": parts.tie_factor, "kendall_w": parts.chi2 / (n * (k - 1))}
    if parts.all_tied:
        details["kendall_w"] = 0.0
        return TestResult.indistinguishable(
            name, "every data set ties all classifiers: the ranks carry no information",
            df=float(k - 1), n=n, details=details,
        )
    return TestResult(
        statistic=parts.chi2, pvalue=_chi2_sf(parts.chi2, k - 1), df=float(k - 1),
        method=name, n=n, note=_approximation_note(k, n), details=details,
    )


def iman_davenport(
    scores: Any,
    *,
    higher_is_better: bool = True,
    tie_correction: bool = True,
    n_datasets: int | None = None,
) -> TestResult:
    """Iman and Davenport's F version of Friedman's test (Demšar's recommended omnibus test).

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series of k average ranks
        As for :func:`friedman`.
    higher_is_better, tie_correction, n_datasets
        As for :func:`friedman`.

    Returns
    -------
    TestResult
        ``statistic`` = F_F, ``df`` = (k - 1, (k - 1)(N - 1)), ``n`` = N. ``details``:
        ``friedman_statistic``, ``friedman_pvalue``, ``k``, ``tie_factor``.

    Notes
    -----
    ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)`` referred to F(k - 1, (k - 1)(N - 1)).
    With the tie-corrected chi2_F this is Conover's tie-aware F. When every data set ranks the
    classifiers in the same order, ``chi2_F = N (k - 1)`` and F_F is infinite: statistic inf,
    p-value 0, ``degenerate=True``. (pingouin's ``friedman(method="f")`` computes the same F
    but with Marozzi's degrees of freedom, so its p-values differ.)

    References
    ----------
    Iman & Davenport (1980), Commun Stat Theory Methods 9:571-595. Demšar (2006), §3.2.2.

    Examples
    --------
    Demšar's four C4.5 variants again (published average ranks, N = 14):

    >>> import pandas as pd
    >>> r = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> res = iman_davenport(r, n_datasets=14)
    >>> round(res.statistic, 6), round(res.pvalue, 6), res.df
    (3.688893, 0.019768, (3.0, 39.0))

    F_F = 3.69 exceeds the 5 % critical value F(3, 39) = 2.85: reject equal performance, with a
    smaller p-value than the chi-square version gives.
    """
    tie_correction = _check_bool(tie_correction, "tie_correction")
    data = rank_data(scores, n_datasets=n_datasets, higher_is_better=higher_is_better)
    k, n = data.k, data.n
    parts = _friedman_parts(data, tie_correction)
    df = (float(k - 1), float((k - 1) * (n - 1)))
    name = "Iman–Davenport F" + (", tie-corrected" if parts.corrected else "")
    details = {"friedman_statistic": parts.chi2,
               "friedman_pvalue": _chi2_sf(parts.chi2, k - 1),
               "k": k, "tie_factor": parts.tie_factor}
    if parts.all_tied:
        details["friedman_pvalue"] = 1.0
        return TestResult.indistinguishable(
            name, "every data set ties all classifiers: the ranks carry no information",
            df=df, n=n, details=details,
        )
    bound = n * (k - 1)
    denominator = bound - parts.chi2
    if denominator <= 1e-12 * bound:
        return TestResult(
            statistic=math.inf, pvalue=0.0, df=df, method=name, n=n, degenerate=True,
            note="every data set ranks the classifiers in the same order: F is infinite",
            details=details,
        )
    f = (n - 1) * parts.chi2 / denominator
    return TestResult(
        statistic=f, pvalue=float(stats.f.sf(f, *df)), df=df, method=name, n=n,
        details=details,
    )


# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# two classifiers over N data sets: the sign test and the effect sizes
# --------------------------------------------------------------------------------------------

__all__ += ["cliffs_delta", "cliffs_delta_matrix", "hodges_lehmann_interval", "sign_counts", "sign_pvalues", "sign_test",
            "signed_rank_normal"]


def _finite(values: Any, name: str) -> np.ndarray:
    """Return scores as a float array, refusing text, empty arrays and NaN or inf by name."""
    try:
        out = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers; got {describe_value(values)}") from None
    if out.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.isfinite(out).all():
        raise ValueError(f"{name} holds NaN or infinite values")
    return out


def _pair_matrices(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return many pairs' scores (data sets x pairs, or one pair's vector) checked by name."""
    a, b = _finite(x, "x"), _finite(y, "y")
    if a.shape != b.shape:
        raise ValueError(f"x and y must have one shape (data sets x pairs); got {a.shape} and "
                         f"{b.shape}")
    return a, b


def sign_counts(x: Any, y: Any, *,
                higher_is_better: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, for many pairs at once, the data sets X wins, ties and loses against Y.

    Parameters
    ----------
    x, y : array-like of shape (N, P)
        Column p holds pair p's scores on the same N data sets.
    higher_is_better : bool
        A win is a higher score (False: a lower one).

    Returns
    -------
    (wins, ties, losses) : tuple of int arrays of shape (P,)
        Scores equal to 12 significant digits tie.

    Examples
    --------
    >>> [c.tolist() for c in sign_counts([[0.9], [0.1 + 0.2], [0.5]], [[0.8], [0.3], [0.6]])]
    [[1], [1], [1]]
    """
    a, b = _pair_matrices(x, y)
    d = _round_significant(a) - _round_significant(b)
    if not check_bool(higher_is_better, "higher_is_better"):
        d = -d
    wins, losses = (d > 0).sum(axis=0), (d < 0).sum(axis=0)
    return wins, d.shape[0] - wins - losses, losses


def sign_pvalues(wins: Any, losses: Any) -> np.ndarray:
    """Two-sided exact p-values of the sign test, for many pairs at once.

    Parameters
    ----------
    wins, losses : array-like of int
        Data sets won and lost by X (ties set aside), one entry per pair.

    Returns
    -------
    ndarray
        ``min(1, 2 min(P[W <= w], P[W >= w]))`` with ``W ~ Binomial(w + l, 1/2)``: the
        symmetric binomial's two-sided p-value, equal to ``scipy.stats.binomtest(w, w + l)``;
        1 where there is no win and no loss.

    Examples
    --------
    >>> sign_pvalues([5, 9], [0, 1]).round(4).tolist()
    [0.0625, 0.0215]
    """
    w = np.asarray(wins, dtype=float)
    n = w + np.asarray(losses, dtype=float)
    low = stats.binom.cdf(w, n, 0.5)
    high = stats.binom.sf(w - 1, n, 0.5)
    return np.where(n > 0, np.minimum(1.0, 2.0 * np.minimum(low, high)), 1.0)


def signed_rank_normal(x: Any, y: Any, *, correction: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank tests of many pairs at once, by the normal approximation.

    Parameters
    ----------
    x, y : array-like of shape (N, P)
        Column p holds the scores of pair p's two classifiers on the same N data sets.
    correction : bool
        Continuity correction of 0.5 (R's default).

    Returns
    -------
    (statistic, pvalue) : tuple of ndarray of shape (P,)
        R's V (the rank sum of the positive differences) and the two-sided p-value: what
        :func:`wilcoxon` gives with ``method="normal"`` and ``zero_method="wilcox"`` (zeros
        dropped, tie-corrected variance), pair by pair; p-value 1 where every difference is 0.

    Notes
    -----
    The ranks of the non-zero ``|d|`` are the ranks among all ``|d|`` less the number of zeros
    (the zeros rank lowest); the tie term ``Σ(t³ - t)`` comes from the sum of squared
    mid-ranks, ``n(n+1)(2n+1)/6 - Σ r² = Σ(t³ - t)/12``.

    Examples
    --------
    >>> x = [[1.83, 0.5], [0.5, 0.6], [1.62, 0.7], [2.48, 0.8], [1.68, 0.9], [1.88, 1.0]]
    >>> y = [[0.878, 0.45], [0.647, 0.65], [0.598, 0.6], [2.05, 0.85], [1.06, 0.9], [1.29, 1.1]]
    >>> v, p = signed_rank_normal(x, y)
    >>> v.tolist(), [round(float(q), 4) for q in p]
    ([20.0, 6.5], [0.0592, 0.8902])

    The first pair's six differences are mostly positive (V = 20 of 21), the second's split
    (one zero dropped): the same numbers as :func:`wilcoxon` with ``method="normal"``.
    """
    check_bool(correction, "correction")
    xa, ya = _pair_matrices(x, y)
    if xa.ndim != 2:
        raise ValueError(f"x and y must be matrices of one shape (N, P); got {xa.shape} and "
                         f"{ya.shape}")
    d = _round_significant(_round_significant(xa) - _round_significant(ya)).T
    zero = d == 0
    n_zero = zero.sum(axis=1)
    r = stats.rankdata(np.abs(d), method="average", axis=1) - n_zero[:, None]
    n = (d.shape[1] - n_zero).astype(float)
    v = np.where(d > 0, r, 0.0).sum(axis=1)
    ties = 12.0 * (n * (n + 1) * (2 * n + 1) / 6.0 - np.where(zero, 0.0, r**2).sum(axis=1))
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0 - ties / 48.0
    diff = v - mean
    cc = 0.5 * np.sign(diff) if correction else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (diff - cc) / np.sqrt(var)
    p = np.where(var > 0, np.minimum(1.0, 2.0 * norm_sf(np.abs(np.nan_to_num(z)))), 1.0)
    return v, p


def sign_test(x: Any, y: Any, *, higher_is_better: bool = True) -> TestResult:
    """Test on how many data sets X beats Y, ties set aside (the sign test).

    Parameters
    ----------
    x, y : array-like of shape (N,)
        Scores of classifiers X and Y on the same data sets, paired by position.
    higher_is_better : bool
        Direction of the score: a win is a higher score (False: a lower one).

    Returns
    -------
    TestResult
        ``statistic`` = the wins of X, ``pvalue`` the two-sided exact binomial p-value of the
        wins among the data sets that do not tie (``scipy.stats.binomtest(wins, wins +
        losses)``), ``estimate`` the share of wins among them, ``n`` = N. ``details``:
        ``wins``, ``ties``, ``losses``. Every data set tied: statistic 0, p-value 1,
        ``degenerate=True``.

    Notes
    -----
    Scores equal to 12 significant digits tie. Demšar (2006, §3.1.2) counts half of the ties
    for each side instead; setting them aside is the conditional test of Dixon and Mood (1946).

    References
    ----------
    Dixon & Mood (1946), JASA 41:557-566. Demšar (2006), JMLR 7:1-30, §3.1.2.

    Examples
    --------
    >>> res = sign_test([0.9, 0.8, 0.7, 0.6, 0.9, 0.8], [0.8, 0.7, 0.6, 0.6, 0.8, 0.7])
    >>> res.details["wins"], res.details["ties"], res.details["losses"], round(res.pvalue, 4)
    (5, 1, 0, 0.0625)

    X wins on five data sets and ties on one: five wins out of five is not rare enough at the
    5 % level.
    """
    a, b = _paired_scores(x, y)
    higher_is_better = _check_bool(higher_is_better, "higher_is_better")
    won, tied, lost = sign_counts(a[:, None], b[:, None], higher_is_better=higher_is_better)
    wins, ties, losses = int(won[0]), int(tied[0]), int(lost[0])
    details = {"wins": wins, "ties": ties, "losses": losses}
    if wins + losses == 0:
        return TestResult.indistinguishable("sign test", "every data set ties", n=int(a.size),
                                            details=details)
    p = float(sign_pvalues(np.array([wins]), np.array([losses]))[0])
    return TestResult(statistic=float(wins), pvalue=p, method="sign test",
                      estimate=wins / (wins + losses), n=int(a.size), details=details)


def hodges_lehmann_interval(x: Any, y: Any, *,
                            confidence_level: float = 0.95) -> tuple[float, float, float]:
    """Estimate the median difference of X and Y (Hodges–Lehmann) with its distribution-free interval.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        Paired scores.
    confidence_level : float
        Level of the interval.

    Returns
    -------
    (estimate, low, high) : tuple of float
        The median of the Walsh averages ``(d_i + d_j) / 2``, ``i <= j``, of ``d = x - y``, and
        the interval of the order statistics of those averages that inverts the Wilcoxon
        signed-rank test.

    Notes
    -----
    With the ``M = N(N+1)/2`` Walsh averages sorted, the interval is ``[W_(c), W_(M+1-c)]``,
    ``c`` the smallest count with ``P(V <= c) >= (1 - level)/2`` under the null distribution of
    the signed-rank statistic V (exact up to N = 50, the normal approximation above it;
    ``c >= 1``), as R's ``wilcox.test(conf.int = TRUE)`` computes it without ties. The interval
    holds every shift δ that a two-sided signed-rank test of ``d - δ`` does not reject.

    References
    ----------
    Hodges & Lehmann (1963), Ann Math Stat 34:598-611. Bauer (1972), JASA 67:687-690.

    Examples
    --------
    >>> hodges_lehmann_interval([0.91, 0.85, 0.78, 0.88, 0.95, 0.70, 0.83, 0.90],
    ...                         [0.88, 0.83, 0.74, 0.86, 0.95, 0.66, 0.80, 0.86])
    (0.03, 0.015, 0.04)

    X scores about 3 points higher than Y; the 95 % interval runs from 1.5 to 4 points.
    """
    a, b = _paired_scores(x, y)
    level = check_probability(confidence_level, "confidence_level")
    d = _round_significant(a - b)
    n = d.size
    i, j = _walsh_pairs(n)
    walsh = (d[i] + d[j]) / 2.0
    m = walsh.size
    tail = (1.0 - level) / 2.0
    if n <= _EXACT_LIMIT:
        cdf = np.cumsum(_signed_rank_null(np.arange(1, n + 1)))
        c = int(np.searchsorted(cdf, tail - 1e-12))  # smallest v with P(V <= v) >= tail
    else:
        mean, sd = n * (n + 1) / 4.0, math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
        c = math.floor(mean - float(stats.norm.isf(tail)) * sd)
    c = min(max(c, 1), (m + 1) // 2)
    # three order statistics of the M averages: a partial sort finds them in O(M)
    middle = ((m - 1) // 2, m // 2)
    part = np.partition(walsh, sorted({c - 1, m - c, *middle}))
    estimate = float((part[middle[0]] + part[middle[1]]) / 2.0)
    return estimate, float(part[c - 1]), float(part[m - c])


@functools.lru_cache(maxsize=8)
def _walsh_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the index pairs i <= j of N differences (kept: every pair of models has the same N)."""
    i, j = np.triu_indices(n)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def cliffs_delta(x: Any, y: Any) -> float:
    """Cliff's delta of two samples: P(X > Y) - P(X < Y) over every pair of values.

    Parameters
    ----------
    x, y : array-like
        The two samples (not paired: every value of X meets every value of Y).

    Returns
    -------
    float
        In [-1, 1]; 0 when neither sample tends to exceed the other.

    References
    ----------
    Cliff (1993), Psychol Bull 114:494-509.

    Examples
    --------
    >>> cliffs_delta([0.9, 0.8, 0.7], [0.6, 0.7, 0.5])
    0.8888888888888888
    """
    a = _round_significant(_finite(x, "x").ravel())
    b = np.sort(_round_significant(_finite(y, "y").ravel()))
    return _sorted_delta(a, b)


def _sorted_delta(a: np.ndarray, b_sorted: np.ndarray) -> float:
    below = np.searchsorted(b_sorted, a, side="left")  # values of y below each x
    above = b_sorted.size - np.searchsorted(b_sorted, a, side="right")
    return float((below.sum() - above.sum()) / (a.size * b_sorted.size))


def cliffs_delta_matrix(scores: Any) -> pd.DataFrame:
    """Cliff's delta of every ordered pair of columns of a score matrix.

    Parameters
    ----------
    scores : DataFrame or array-like of shape (N, k)

    Returns
    -------
    DataFrame
        k x k: row A, column B holds :func:`cliffs_delta` of A's and B's scores (0 on the
        diagonal; the matrix is antisymmetric). The scores are rounded and sorted once per
        column, not once per pair.

    Examples
    --------
    >>> import pandas as pd
    >>> m = cliffs_delta_matrix(pd.DataFrame({"a": [0.9, 0.8, 0.7], "b": [0.6, 0.7, 0.5]}))
    >>> round(float(m.loc["a", "b"]), 4), round(float(m.loc["b", "a"]), 4)
    (0.8889, -0.8889)
    """
    arr, _, cols = as_score_matrix(scores, "scores", min_rows=1, min_cols=2)
    rounded = _round_significant(arr)
    ordered = np.sort(rounded, axis=0)
    k = arr.shape[1]
    out = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            out[i, j] = _sorted_delta(rounded[:, i], ordered[:, j])
            out[j, i] = -out[i, j]
    return pd.DataFrame(out, index=cols, columns=cols)
