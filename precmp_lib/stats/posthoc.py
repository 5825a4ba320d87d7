"""Post-hoc tests on average ranks: critical difference, Nemenyi, pairwise and against a control."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from .._lib.checks import check_choice, check_positive_int
from .._lib.dist import norm_isf, norm_sf, stats
from .multiple import adjust_pvalues
from .ranks import CD_METHODS, CONTROL_METHODS, PAIRWISE_METHODS, RankData, _check_alpha, rank_data

__all__ = ['NemenyiResult', 'critical_difference', 'nemenyi', 'pairwise_rank_tests', 'rank_cliques', 'shaffer_true_hypotheses', 'tests_against_control']


# post-hoc tests on average ranks
# --------------------------------------------------------------------------------------------


@cache
def _q_alpha(k: int, alpha: float, method: str) -> float:
    # The studentized-range quantile is a root search over a numerical integral (milliseconds);
    # it depends only on (k, alpha), so it is computed once per process for each.
    if method == "nemenyi":
        return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))
    return float(norm_isf(alpha / (2 * (k - 1))))


def critical_difference(
    k: int, n_datasets: int, *, alpha: float = 0.05, method: str = "nemenyi"
) -> float:
    """Compute the critical difference of average ranks for Nemenyi or Bonferroni–Dunn.

    Parameters
    ----------
    k : int
        Number of classifiers (including the control for Bonferroni–Dunn).
    n_datasets : int
        Number of data sets N.
    alpha : float
        Family-wise significance level.
    method : {"nemenyi", "bonferroni_dunn"}
        Nemenyi compares all pairs; Bonferroni–Dunn compares k - 1 classifiers with a control.

    Returns
    -------
    float
        Two classifiers (or a classifier and the control) differ significantly when their
        average ranks differ by at least this much.

    Notes
    -----
    ``CD = q_alpha sqrt(k(k+1)/(6N))`` with ``q_alpha = Q_{1-alpha}(k, inf) / sqrt(2)``
    (studentized range) for Nemenyi and ``q_alpha = z_{1 - alpha/(2(k-1))}`` for
    Bonferroni–Dunn. Demšar's Table 5 prints these q_alpha truncated to three decimals (and
    2.724 for Bonferroni–Dunn, k = 9, alpha = 0.05, where 2.734 is right).

    References
    ----------
    Nemenyi (1963), PhD thesis, Princeton. Dunn (1961), JASA 56:52-64. Demšar (2006), §3.2.2.

    Examples
    --------
    Demšar's example, four classifiers on 14 data sets:

    >>> round(critical_difference(4, 14), 6)
    1.253559
    >>> round(critical_difference(4, 14, method="bonferroni_dunn"), 6)
    1.168143

    Comparing against a control needs a smaller rank difference than comparing all pairs.
    """
    k = check_positive_int(k, "k", minimum=2)
    n = check_positive_int(n_datasets, "n_datasets", minimum=1)
    alpha = _check_alpha(alpha)
    check_choice(method, "method", CD_METHODS)
    return _q_alpha(k, alpha, method) * math.sqrt(k * (k + 1) / (6.0 * n))


def rank_cliques(ranks: Any, significant: Any) -> list[tuple[str, ...]]:
    """Maximal runs of classifiers, in rank order, with no significant difference inside.

    Parameters
    ----------
    ranks : Series
        Average rank of each classifier (index = names).
    significant : DataFrame or k x k boolean array
        True where a pair differs significantly (rows and columns in the order of ``ranks``
        when an array; matched by name when a DataFrame).

    Returns
    -------
    list of tuples of names
        Each tuple lists classifiers from best to worst average rank; every pair inside it is
        not significantly different and no classifier adjacent in rank order can be added.
        Groups of one are left out. These are the bars of a critical-difference diagram.

    Notes
    -----
    For Nemenyi, and for any post-hoc whose decision depends only on ``|R_i - R_j|`` (Holm,
    Shaffer, Bonferroni on the rank z statistics), "not significantly different" links exactly
    the classifiers closer than a threshold, so these runs are all the maximal groups. For a
    decision matrix of another kind (e.g. pairwise Wilcoxon tests) a non-significant pair that
    is not adjacent in rank order cannot be drawn as one bar and is not reported.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.Series({"a": 1.2, "b": 1.9, "c": 2.9})
    >>> sig = pd.DataFrame(False, index=r.index, columns=r.index)
    >>> sig.loc["a", "c"] = sig.loc["c", "a"] = True
    >>> rank_cliques(r, sig)
    [('a', 'b'), ('b', 'c')]

    Classifier b cannot be separated from either neighbour, while a and c differ.
    """
    if not isinstance(ranks, pd.Series):
        raise ValueError(f"ranks must be a pandas Series of average ranks; got {type(ranks).__name__}")
    names = [str(i) for i in ranks.index]
    k = len(names)
    if isinstance(significant, pd.DataFrame):
        sig = significant.copy()
        sig.index = [str(i) for i in sig.index]
        sig.columns = [str(c) for c in sig.columns]
        missing = sorted(set(names) - set(sig.index) | set(names) - set(sig.columns))
        if missing:
            raise ValueError(f"significant lacks rows or columns for {missing}")
        mat = sig.loc[names, names].to_numpy(dtype=bool)
    else:
        mat = np.asarray(significant, dtype=bool)
        if mat.shape != (k, k):
            raise ValueError(f"significant must be a {k} x {k} matrix; got shape {mat.shape}")
    mat = mat | mat.T
    order = np.argsort(ranks.to_numpy(dtype=float), kind="stable")
    m = mat[np.ix_(order, order)]
    # end[i] = last index j such that no pair inside order[i..j] is significant
    end = np.empty(k, dtype=int)
    for i in range(k):
        j = i
        while j + 1 < k and not m[i : j + 2, j + 1].any():
            j += 1
        end[i] = j
    cliques, reach = [], -1
    for i in range(k):
        if end[i] > i and end[i] > reach:
            cliques.append(tuple(names[order[t]] for t in range(i, end[i] + 1)))
        reach = max(reach, end[i])
    return cliques


@dataclass(frozen=True)
class NemenyiResult:
    """Nemenyi's all-pairs comparison of average ranks.

    Attributes
    ----------
    ranks : Series
        Average rank of each classifier (1 = best), in input order.
    critical_difference : float
        Pairs whose average ranks differ by at least this much differ at level ``alpha``.
    pvalues : DataFrame
        k x k adjusted p-values (single-step, studentized range); 1 on the diagonal.
    statistics : DataFrame
        k x k rank z statistics ``(R_row - R_col) / SE``.
    alpha : float
        The family-wise level of ``critical_difference`` and ``significant``.
    n_datasets : int
        Number of data sets N.
    q_alpha : float
        Critical value ``Q_{1-alpha}(k, inf) / sqrt(2)``.
    se : float
        ``sqrt(k(k+1)/(6N))``.
    """

    ranks: pd.Series
    critical_difference: float
    pvalues: pd.DataFrame
    statistics: pd.DataFrame
    alpha: float
    n_datasets: int
    q_alpha: float
    se: float

    @property
    def significant(self) -> pd.DataFrame:
        """Significant pairs, k x k booleans: adjusted p-value at most ``alpha``.

        False on the diagonal.
        """
        sig = self.pvalues.to_numpy() <= self.alpha
        np.fill_diagonal(sig, False)
        return pd.DataFrame(sig, index=self.pvalues.index, columns=self.pvalues.columns)

    @property
    def cliques(self) -> list[tuple[str, ...]]:
        """Maximal groups of classifiers not significantly different (see :func:`rank_cliques`)."""
        return rank_cliques(self.ranks, self.significant)

    def to_frame(self) -> pd.DataFrame:
        """Tabulate the pairs, one row each.

        Returns
        -------
        DataFrame
            One row per pair (i < j in input order): ``model_a``, ``model_b``, ``rank_a``,
            ``rank_b``, ``rank_difference`` (``rank_a - rank_b``), ``statistic`` (the rank z
            statistic), ``pvalue`` (adjusted), ``reject`` (``pvalue <= alpha``).
        """
        names = list(self.ranks.index)
        pairs = list(combinations(range(len(names)), 2))
        a = np.array([p[0] for p in pairs], dtype=int)
        b = np.array([p[1] for p in pairs], dtype=int)
        r = self.ranks.to_numpy()
        p = self.pvalues.to_numpy()[a, b]
        return pd.DataFrame({
            "model_a": [names[i] for i in a], "model_b": [names[j] for j in b],
            "rank_a": r[a], "rank_b": r[b], "rank_difference": r[a] - r[b],
            "statistic": self.statistics.to_numpy()[a, b], "pvalue": p,
            "reject": p <= self.alpha,
        })

    def _repr_html_(self) -> str:
        ranks = self.ranks.sort_values().to_frame().to_html(float_format=lambda v: f"{v:.3f}")
        groups = "; ".join(", ".join(c) for c in self.cliques) or "none"
        return (
            f"<div><strong>Nemenyi test (α = {self.alpha:g}, N = {self.n_datasets})</strong>"
            f"<p>critical difference {self.critical_difference:.4f}; groups not significantly "
            f"different: {html.escape(groups)}</p>{ranks}</div>"
        )


def _pair_statistics(data: RankData) -> tuple[np.ndarray, np.ndarray]:
    """Rank z statistics (R_i - R_j)/SE and their two-sided normal p-values, k x k."""
    r = data.values
    z = (r[:, None] - r[None, :]) / data.se
    return z, np.minimum(1.0, 2.0 * norm_sf(np.abs(z)))


def _nemenyi_pvalues(data: RankData) -> np.ndarray:
    """Compute the k x k studentized-range p-values of all pairs.

    The survival function is evaluated once per distinct rank difference (it is a numerical
    integral, by far the dearest step).

    From a score matrix the differences come from the rank sums, which are exact (sums of
    half-integers), so pairs whose rank sums differ by the same amount share one evaluation.
    """
    k = data.k
    upper_i, upper_j = np.triu_indices(k, 1)
    if data.matrix is not None:
        sums = data.matrix.sum(axis=0)
        diff = np.abs(sums[upper_i] - sums[upper_j]) / data.n
    else:
        r = data.values
        diff = np.abs(r[upper_i] - r[upper_j])
    distinct, where = np.unique(diff / data.se * math.sqrt(2), return_inverse=True)
    upper = np.clip(stats.studentized_range.sf(distinct, k, np.inf), 0.0, 1.0)[where]
    p = np.ones((k, k))
    p[upper_i, upper_j] = upper
    p[upper_j, upper_i] = upper
    return p


def nemenyi(
    scores: Any,
    *,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    n_datasets: int | None = None,
) -> NemenyiResult:
    """Nemenyi's post-hoc test: every pair of classifiers, after a Friedman test.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series of k average ranks
        One row per data set, one column per classifier (or published average ranks with
        ``n_datasets``).
    alpha : float
        Family-wise level for the critical difference and the ``significant`` matrix.
    higher_is_better : bool
        Direction of the score.
    n_datasets : int, optional
        Number of data sets behind average-rank input.

    Returns
    -------
    NemenyiResult
        ``.ranks``, ``.critical_difference``, ``.pvalues`` (k x k DataFrame), ``.statistics``,
        ``.significant``, ``.cliques``, ``.to_frame()``.

    Notes
    -----
    ``SE = sqrt(k(k+1)/(6N))``, ``CD = q_alpha SE`` with ``q_alpha = Q_{1-alpha}(k, inf)/sqrt(2)``.
    The adjusted p-value of a pair is ``P[Q(k, inf) >= |R_i - R_j| sqrt(2) / SE]`` (the
    studentized-range survival function), so ``p <= alpha`` exactly when the rank difference
    reaches CD. With k = 2 it reduces to the two-sided z test. The survival function is
    evaluated once per distinct rank difference among the k(k-1)/2 pairs (as
    scikit-posthocs' ``posthoc_nemenyi_friedman``, whose p-values these equal).

    References
    ----------
    Nemenyi (1963); Demšar (2006), JMLR 7:1-30, §3.2.2 and Table 5(a).

    Examples
    --------
    Demšar's published ranks (N = 14) at alpha = 0.10:

    >>> import pandas as pd
    >>> r = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> res = nemenyi(r, n_datasets=14, alpha=0.10)
    >>> round(res.critical_difference, 4)
    1.1181
    >>> res.cliques
    [('C4.5+m+cf', 'C4.5+m', 'C4.5+cf'), ('C4.5+cf', 'C4.5')]

    Plain C4.5 is worse than the two variants that tune m, while C4.5+cf cannot be placed in
    either group: the data do not decide.
    """
    alpha = _check_alpha(alpha)
    data = rank_data(scores, n_datasets=n_datasets, higher_is_better=higher_is_better)
    k = data.k
    z, _ = _pair_statistics(data)
    p = _nemenyi_pvalues(data)
    names = pd.Index(data.names, name="classifier")
    q = _q_alpha(k, alpha, "nemenyi")
    return NemenyiResult(
        ranks=data.ranks,
        critical_difference=q * data.se,
        pvalues=pd.DataFrame(p, index=names, columns=names.rename(None)),
        statistics=pd.DataFrame(z, index=names, columns=names.rename(None)),
        alpha=alpha,
        n_datasets=data.n,
        q_alpha=q,
        se=data.se,
    )


@cache
def _shaffer_sets(k: int) -> frozenset[int]:
    if k <= 1:
        return frozenset({0})
    out: set[int] = set()
    for j in range(1, k + 1):
        base = j * (j - 1) // 2
        out.update(base + s for s in _shaffer_sets(k - j))
    return frozenset(out)


def shaffer_true_hypotheses(k: int) -> list[int]:
    """Possible numbers of true hypotheses among the k(k-1)/2 pairwise equalities.

    Parameters
    ----------
    k : int
        Number of classifiers.

    Returns
    -------
    list of int, ascending
        Every value the number of true "classifier i = classifier j" hypotheses can take.

    Notes
    -----
    The true hypotheses are those inside groups of equal classifiers; a partition of the k
    classifiers into groups of sizes j_1, j_2, ... makes ``sum C(j, 2)`` of them true.
    Recursively ``S(k) = union_{j=1..k} {C(j, 2) + x : x in S(k - j)}``, ``S(0) = {0}``
    (Shaffer 1986).

    References
    ----------
    Shaffer (1986), JASA 81:826-831. García & Herrera (2008), JMLR 9:2677-2694.

    Examples
    --------
    >>> shaffer_true_hypotheses(4)
    [0, 1, 2, 3, 6]

    With four classifiers, once one pair is found different at most three of the six equalities
    can still hold, so Shaffer tests the second hypothesis at alpha/3 instead of Holm's alpha/5.
    """
    k = check_positive_int(k, "k", minimum=1)
    return sorted(_shaffer_sets(k))


def _shaffer_adjust(p: np.ndarray, k: int) -> np.ndarray:
    """Shaffer's static (S1) step-down adjusted p-values for the k(k-1)/2 pairwise tests."""
    m = p.size
    possible = np.array(shaffer_true_hypotheses(k))
    order = np.argsort(p, kind="stable")
    remaining = m - np.arange(m)  # hypotheses not yet rejected before step i
    t = possible[np.searchsorted(possible, remaining, side="right") - 1]
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, t * p[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out


def pairwise_rank_tests(
    scores: Any,
    *,
    method: str = "nemenyi",
    alpha: float = 0.05,
    higher_is_better: bool = True,
    n_datasets: int | None = None,
) -> pd.DataFrame:
    """All pairwise comparisons of average ranks with a family-wise error control.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series of k average ranks
        One row per data set, one column per classifier (or average ranks with
        ``n_datasets``).
    method : {"nemenyi", "holm", "shaffer", "bonferroni"}
        Nemenyi's single-step studentized-range test, Holm's step-down, Shaffer's static
        step-down (which uses the logical relations between pairwise hypotheses and is never
        less powerful than Holm), or Bonferroni over the k(k-1)/2 pairs.
    alpha : float
        Level for the ``reject`` column.
    higher_is_better : bool
        Direction of the score.
    n_datasets : int, optional
        Number of data sets behind average-rank input.

    Returns
    -------
    DataFrame
        One row per pair, most significant first: ``model_a``, ``model_b``, ``rank_a``,
        ``rank_b``, ``rank_difference`` (a - b; negative = a ranked better), ``statistic``
        (``z = (R_a - R_b)/SE``), ``pvalue`` (unadjusted two-sided normal), ``pvalue_adjusted``,
        ``reject`` (adjusted p-value at most ``alpha``), ``method``. ``attrs["adjustment"]``
        names the adjustment (``method``).

    Notes
    -----
    Holm: with sorted p-values, ``p~_(i) = max_{j<=i} min(1, (m - j + 1) p_(j))``.
    Shaffer: replace ``m - j + 1`` by ``t_j``, the largest number of hypotheses that can still
    be true given that j - 1 were rejected (:func:`shaffer_true_hypotheses`).

    References
    ----------
    Holm (1979), Scand J Stat 6:65-70. Shaffer (1986), JASA 81:826-831.
    García & Herrera (2008), JMLR 9:2677-2694.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> tab = pairwise_rank_tests(r, n_datasets=14, method="shaffer")
    >>> tab.loc[:1, ["model_a", "model_b", "pvalue_adjusted"]].round(4)
      model_a    model_b  pvalue_adjusted
    0    C4.5  C4.5+m+cf           0.0941
    1    C4.5     C4.5+m           0.0941

    Even Shaffer's procedure keeps every pair at the 5 % level here; comparing against a
    control (:func:`tests_against_control`) has more power.
    """
    check_choice(method, "method", PAIRWISE_METHODS)
    alpha = _check_alpha(alpha)
    data = rank_data(scores, n_datasets=n_datasets, higher_is_better=higher_is_better)
    k = data.k
    z, p = _pair_statistics(data)
    a, b = np.triu_indices(k, 1)
    za, pa = z[a, b], p[a, b]
    if method == "nemenyi":
        adj = np.clip(stats.studentized_range.sf(np.abs(za) * math.sqrt(2), k, np.inf), 0, 1)
    elif method == "shaffer":
        adj = _shaffer_adjust(pa, k)
    else:
        adj = adjust_pvalues(pa, method)
    r = data.values
    names = np.array(data.names, dtype=object)
    out = pd.DataFrame({
        "model_a": names[a], "model_b": names[b], "rank_a": r[a], "rank_b": r[b],
        "rank_difference": r[a] - r[b], "statistic": za, "pvalue": pa,
        "pvalue_adjusted": adj, "reject": adj <= alpha, "method": method,
    })
    out = out.sort_values(["pvalue", "model_a", "model_b"], kind="stable").reset_index(drop=True)
    out.attrs["adjustment"] = method
    return out


def _hochberg(p: np.ndarray) -> np.ndarray:
    """Hochberg's step-up adjusted p-values ``min_{j>=i} min(1, (m - j + 1) p_(j))``."""
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adj = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m)
    out[order] = adj
    return out


def _control_index(control: Any, data: RankData) -> int:
    if control is None:
        return int(np.argmin(data.values))
    names = data.names
    if isinstance(control, int | np.integer) and not isinstance(control, bool):
        if not 0 <= control < data.k:
            raise ValueError(f"control must be a classifier name or a column position in "
                             f"[0, {data.k - 1}]; got {control}")
        return int(control)
    if str(control) in names:
        return names.index(str(control))
    raise ValueError(f"control must be one of the classifiers {names} (or None for the "
                     f"best-ranked); got {control!r}")


def tests_against_control(
    scores: Any,
    control: Any = None,
    *,
    method: str = "holm",
    alpha: float = 0.05,
    higher_is_better: bool = True,
    n_datasets: int | None = None,
) -> pd.DataFrame:
    """Compare every classifier with one control classifier (k - 1 tests on average ranks).

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series of k average ranks
        One row per data set, one column per classifier (or average ranks with
        ``n_datasets``).
    control : str, int or None
        The control's name (or column position). None takes the best-ranked classifier —
        then the comparisons were chosen after seeing the data, which favours finding
        differences; name the control in advance when you can.
    method : {"holm", "hochberg", "bonferroni_dunn"}
        Holm's step-down (default; never less powerful than Bonferroni–Dunn and valid without
        extra assumptions), Hochberg's step-up (relies on Simes' inequality), or
        Bonferroni–Dunn (one critical difference for all).
    alpha : float
        Family-wise level for ``threshold`` and ``reject``.
    higher_is_better : bool
        Direction of the score.
    n_datasets : int, optional
        Number of data sets behind average-rank input.

    Returns
    -------
    DataFrame
        One row per non-control classifier, smallest p-value first: ``control``, ``model``,
        ``rank_control``, ``rank``, ``rank_difference`` (``rank - rank_control``; positive =
        the model ranked worse than the control), ``statistic`` (``z`` = rank_difference / SE),
        ``pvalue`` (two-sided normal), ``threshold`` (the level the p-value is compared with:
        ``alpha/(k - i)`` at step i for Holm and Hochberg, ``alpha/(k - 1)`` for
        Bonferroni–Dunn), ``pvalue_adjusted``, ``reject``, ``method``. ``attrs["adjustment"]``
        names the adjustment (``method``).

    Notes
    -----
    ``z = (R_j - R_control) / sqrt(k(k+1)/(6N))``, ``p = 2 Phi(-|z|)``. Bonferroni–Dunn:
    ``p~ = min(1, (k - 1) p)``, equivalent to the critical difference
    ``z_{1 - alpha/(2(k-1))} SE``. Holm: sorted ``p_(1) <= ... <= p_(k-1)``; reject while
    ``p_(i) <= alpha/(k - i)`` and stop at the first that is not (Demšar's table header
    ``alpha/i`` is a typo for this). Hochberg starts from the largest p-value.

    References
    ----------
    Dunn (1961), JASA 56:52-64. Holm (1979), Scand J Stat 6:65-70.
    Hochberg (1988), Biometrika 75:800-802. Demšar (2006), §3.2.2.

    Examples
    --------
    Demšar's question: does tuning improve on plain C4.5 (the control)?

    >>> import pandas as pd
    >>> r = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> tab = tests_against_control(r, "C4.5", n_datasets=14)
    >>> tab[["model", "statistic", "pvalue", "threshold", "reject"]].round(4)
           model  statistic  pvalue  threshold  reject
    0  C4.5+m+cf    -2.4162  0.0157     0.0167    True
    1     C4.5+m    -2.3425  0.0192     0.0250    True
    2    C4.5+cf    -0.5123  0.6084     0.0500   False

    Holm finds that tuning m (alone or with cf) helps; tuning cf alone shows no effect.
    """
    check_choice(method, "method", CONTROL_METHODS)
    alpha = _check_alpha(alpha)
    data = rank_data(scores, n_datasets=n_datasets, higher_is_better=higher_is_better)
    c = _control_index(control, data)
    k = data.k
    others = np.array([j for j in range(k) if j != c], dtype=int)
    r = data.values
    z = (r[others] - r[c]) / data.se
    p = np.minimum(1.0, 2.0 * norm_sf(np.abs(z)))
    order = np.argsort(p, kind="stable")
    steps = np.empty(k - 1, dtype=int)
    steps[order] = np.arange(1, k)
    if method == "bonferroni_dunn":
        adj = np.minimum(1.0, (k - 1) * p)
        threshold = np.full(k - 1, alpha / (k - 1))
    else:
        adj = adjust_pvalues(p, "holm") if method == "holm" else _hochberg(p)
        threshold = alpha / (k - steps)
    names = np.array(data.names, dtype=object)
    out = pd.DataFrame({
        "control": names[c], "model": names[others], "rank_control": r[c], "rank": r[others],
        "rank_difference": r[others] - r[c], "statistic": z, "pvalue": p,
        "threshold": threshold, "pvalue_adjusted": adj, "reject": adj <= alpha,
        "method": method,
    })
    out = out.iloc[order].reset_index(drop=True)
    out.attrs["adjustment"] = method
    return out


# A library function, not a pytest test, although its name starts with "test". Set through
# ``__dict__``: a function's type declares no ``__test__`` attribute.
tests_against_control.__dict__["__test__"] = False

