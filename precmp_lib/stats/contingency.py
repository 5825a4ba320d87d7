"""Accuracy of classifiers on one test set: McNemar's test, Cochran's Q and pairwise post-hoc.

Only the discordant pairs carry information about a difference in accuracy: ``b`` items that
classifier A gets right and B gets wrong, ``c`` the other way round. McNemar tests b = c;
Cochran's Q extends it to L classifiers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.aliases import PredictionsLike
from .._lib.checks import check_choice, check_counts, check_positive_int, check_probability
from .._lib.dist import binom_cdf, binom_logpmf, binom_pmf, chi2_sf, norm_isf, stats
from .._lib.tails import binom_half_logcdf, chi2_logsf
from ..core.labels import encode_labels
from .intervals import _wilson
from .multiple import ADJUST_METHODS, adjust_pvalues
from .results import TestResult

__all__ = [
    "cochrans_q",
    "correctness_matrix",
    "mcnemar",
    "mcnemar_pvalue_grid",
    "mcnemar_table",
    "pairwise_mcnemar",
]

MCNEMAR_METHODS = ("chi2", "chi2_corrected", "exact", "midp")

_METHOD_NAMES = {
    "chi2": "McNemar chi-square",
    "chi2_corrected": "McNemar chi-square, Edwards continuity correction",
    "exact": "McNemar exact (binomial)",
    "midp": "McNemar mid-p (binomial)",
}


def _predictions_mapping(y_preds: Any) -> Mapping[str, Any]:
    if isinstance(y_preds, pd.DataFrame):
        return {str(c): y_preds[c] for c in y_preds.columns}
    if isinstance(y_preds, Mapping):
        return {str(k): v for k, v in y_preds.items()}
    if isinstance(y_preds, np.ndarray) and y_preds.ndim == 2:
        return {f"clf_{j}": y_preds[:, j] for j in range(y_preds.shape[1])}
    return {f"clf_{j}": p for j, p in enumerate(y_preds)}


def correctness_matrix(y_true: npt.ArrayLike, y_preds: PredictionsLike) -> pd.DataFrame:
    """Build the n x L 0/1 correctness matrix: 1 where a classifier's prediction equals the truth.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings).
    y_preds : mapping name -> predictions, DataFrame of prediction columns, or sequence of arrays

    Returns
    -------
    DataFrame of int8, one column per classifier.

    Examples
    --------
    >>> correctness_matrix([0, 1, 1], {"lr": [0, 1, 0], "nb": [1, 1, 1]})
       lr  nb
    0   1   0
    1   1   1
    2   0   1
    """
    enc = encode_labels(y_true, _predictions_mapping(y_preds))
    correct = (enc.preds == enc.y[:, None]).astype(np.int8)
    return pd.DataFrame(correct, columns=list(enc.names))


def mcnemar_table(
    y_true: npt.ArrayLike,
    y_pred_a: npt.ArrayLike,
    y_pred_b: npt.ArrayLike,
    *,
    names: tuple[str, str] = ("A", "B"),
) -> pd.DataFrame:
    """Build the labelled 2 x 2 table of joint correctness of two classifiers.

    Rows are classifier A correct / wrong, columns classifier B correct / wrong, so the table
    reads ``[[both correct, only A correct], [only B correct, both wrong]]`` and ``mcnemar``
    accepts it directly.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings; no missing values).
    y_pred_a, y_pred_b : array-like of shape (n,)
        Predictions of classifiers A and B, on the same items in the same order.
    names : pair of str
        Names of the row axis (classifier A) and the column axis (classifier B).

    Returns
    -------
    DataFrame
        2 x 2 counts with index and columns ``["correct", "wrong"]``, named by ``names``.

    Examples
    --------
    >>> y = [0, 0, 1, 1, 1, 0]
    >>> mcnemar_table(y, [0, 0, 1, 0, 1, 1], [0, 1, 1, 1, 0, 1])
    B          correct  wrong
    A
    correct          2      2
    wrong            1      1
    """
    enc = encode_labels(y_true, {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b})
    ca = enc.preds[:, 0] == enc.y
    cb = enc.preds[:, 1] == enc.y
    counts = np.bincount(2 * (~ca) + (~cb), minlength=4).reshape(2, 2)
    return pd.DataFrame(
        counts,
        index=pd.Index(["correct", "wrong"], name=names[0]),
        columns=pd.Index(["correct", "wrong"], name=names[1]),
    )


def _axis_order(labels: pd.Index, axis: str) -> list[Any]:
    """Find the labels of one axis of a labelled McNemar table, in the order (correct, wrong).

    Accepted: ``"correct"``/``"wrong"`` (:func:`mcnemar_table`) and boolean or 0/1 correctness
    (``pd.crosstab`` of correctness vectors; True and 1 mean correct).
    """
    values = list(labels)
    if len(values) == len(set(values)):
        if all(isinstance(v, str) and v in ("correct", "wrong") for v in values):
            return ["correct", "wrong"]
        if all(not isinstance(v, str) and v in (1, 0) for v in values):
            has_bool = any(isinstance(v, bool | np.bool_) for v in values)
            return [True, False] if has_bool else [1, 0]
    raise ValueError(
        f"table's {axis} labels must be 'correct'/'wrong' (as mcnemar_table gives) or boolean "
        f"or 0/1 correctness (as pd.crosstab of correctness gives); got {values!r}. Pass a "
        "plain 2 x 2 array [[both correct, only A correct], [only B correct, both wrong]] to "
        "be read by position"
    )


def _table_by_labels(table: pd.DataFrame) -> pd.DataFrame:
    """Reorder a labelled table to [[both correct, only A], [only B, both wrong]].

    An axis that is an unnamed default ``RangeIndex`` (a frame built from a bare array) carries
    no labels and is read by position; a labelled axis is read by its labels, and a missing
    row or column (one classifier always right, say) counts 0.
    """
    def positional(axis: pd.Index) -> bool:
        return isinstance(axis, pd.RangeIndex) and axis.name is None

    rows = None if positional(table.index) else _axis_order(table.index, "row (classifier A)")
    cols = (None if positional(table.columns)
            else _axis_order(table.columns, "column (classifier B)"))
    if rows is not None:
        table = table.reindex(index=rows, fill_value=0)
    if cols is not None:
        table = table.reindex(columns=cols, fill_value=0)
    return table


def _mcnemar_counts(table: Any) -> np.ndarray:
    """Read the 2 x 2 table as whole, non-negative counts; a DataFrame is read by its labels."""
    if isinstance(table, pd.DataFrame):
        table = _table_by_labels(table)
    return check_counts(table, "table", shape=(2, 2))


def _mcnemar_pvalue(method: str, b: float, c: float) -> tuple[float, float, float]:
    """(statistic, p-value, log p-value) of one McNemar variant with b + c > 0."""
    if method in ("chi2", "chi2_corrected"):
        diff = abs(b - c) if method == "chi2" else max(abs(b - c) - 1.0, 0.0)
        stat = diff**2 / (b + c)
        return stat, float(chi2_sf(stat, 1)), chi2_logsf(stat, 1)
    k, m = int(min(b, c)), int(b + c)
    log_cdf = binom_half_logcdf(k, m)
    cdf = binom_cdf(k, m, 0.5)
    if method == "exact":
        p = min(1.0, 2 * cdf)
        log_p = min(0.0, math.log(2.0) + log_cdf)
    else:  # mid-p: 2 P(X <= k) - P(X = k) = 2 P(X <= k - 1) + P(X = k)
        p = min(1.0, 2 * cdf - binom_pmf(k, m, 0.5))
        log_pmf = binom_logpmf(k, m, 0.5)
        log_below = math.log(2.0) + binom_half_logcdf(k - 1, m)
        log_p = min(0.0, float(np.logaddexp(log_below, log_pmf)))
    return float(k), float(p), float(log_p)


def _accuracy_difference_ci(
    a: float, b: float, c: float, d: float, level: float
) -> tuple[float, float]:
    """Newcombe's hybrid score interval (method 10) for acc_A - acc_B from a paired 2 x 2 table."""
    n = a + b + c + d
    z = norm_isf((1 - level) / 2)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = _wilson(a + b, n, z)
    l2, u2 = _wilson(a + c, n, z)
    denom = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / np.sqrt(denom) if denom > 0 else 0.0
    delta = np.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    eps = np.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    diff = p1 - p2
    return max(diff - delta, -1.0), min(diff + eps, 1.0)


def mcnemar(
    table: npt.ArrayLike,
    *,
    method: str = "exact",
    confidence_level: float = 0.95,
) -> TestResult:
    """McNemar's test of equal accuracy of two classifiers on the same test set.

    Parameters
    ----------
    table : 2 x 2 array-like or DataFrame of whole, non-negative counts
        ``[[both correct, only A correct], [only B correct, both wrong]]``, as returned by
        :func:`mcnemar_table`. Only the discordant counts ``b = table[0][1]`` and
        ``c = table[1][0]`` enter the test; the diagonal enters the effect size. A DataFrame
        is read by its labels, not by position: rows are classifier A, columns classifier B,
        each labelled ``"correct"``/``"wrong"`` (:func:`mcnemar_table`) or with boolean or
        0/1 correctness, True or 1 meaning correct (``pd.crosstab(a_correct, b_correct)``,
        whose rows and columns come in the order False, True); a missing row or column counts
        0, and other labels raise ValueError. An axis that is an unnamed default integer index
        (a frame built from a bare array) is read by position, like an array.
    method : {"exact", "midp", "chi2", "chi2_corrected"}
        ``"exact"`` (default): two-sided binomial test of b against Bin(b + c, 1/2), valid at
        every sample size. ``"midp"``: the mid-p version (Fagerland et al. 2013), less
        conservative. ``"chi2"``: McNemar's (1947) uncorrected chi-square.
        ``"chi2_corrected"``: Edwards' (1948) continuity correction, with ``|b - c| - 1``
        clipped at 0 as R's ``mcnemar.test`` does.
    confidence_level : float
        Level of the interval for the accuracy difference.

    Returns
    -------
    TestResult
        ``statistic`` is the chi-square value, or ``min(b, c)`` for the exact and mid-p tests
        (``df`` None). ``log_pvalue`` is computed in log space, so it stays finite (with a
        note) where the p-value underflows to 0, as with thousands of discordant pairs. ``estimate`` is the accuracy difference acc_A - acc_B = (b - c) / n with
        Newcombe's hybrid score interval (Newcombe 1998, method 10), the interval Fagerland,
        Lydersen & Laake (2014) recommend for paired proportions. ``details`` holds ``b``,
        ``c`` and the discordance odds ratio ``b / c``.

    Notes
    -----
    ``X2 = (b - c)^2 / (b + c)``; ``X2_cc = max(|b - c| - 1, 0)^2 / (b + c)``;
    exact ``p = min(1, 2 P[Bin(b + c, 1/2) <= min(b, c)])``; mid-p subtracts the point
    probability once. With no discordant pairs (``b + c = 0``) the classifiers cannot be told
    apart: every variant returns statistic 0, p-value 1 and ``degenerate=True`` (mlxtend and
    statsmodels return an infinite statistic with p = 0 for the corrected test).

    References
    ----------
    McNemar (1947), Psychometrika 12:153-157. Edwards (1948), Psychometrika 13:185-187.
    Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91.
    Newcombe (1998), Stat Med 17:2635-2650.

    Examples
    --------
    Raschka's scenario B: 25 items only model A gets right, 15 only model B.

    >>> res = mcnemar([[9945, 25], [15, 15]], method="chi2")
    >>> round(res.statistic, 4), round(res.pvalue, 5)
    (2.5, 0.11385)

    With a p-value of 0.11 the data do not show a difference in accuracy, even though A is
    right on ten more items. The exact test agrees:

    >>> round(mcnemar([[9945, 25], [15, 15]]).pvalue, 5)
    0.15386

    A cross-tabulation of correctness is read by its labels, whatever order they come in:

    >>> a_right = pd.Series([True] * 9970 + [False] * 30, name="A")
    >>> b_right = pd.Series([True] * 9945 + [False] * 25 + [True] * 15 + [False] * 15, name="B")
    >>> mcnemar(pd.crosstab(a_right, b_right)).details["b"]
    25.0
    """
    check_choice(method, "method", MCNEMAR_METHODS)
    level = check_probability(confidence_level, "confidence_level")
    t = _mcnemar_counts(table)
    a, b, c, d = float(t[0, 0]), float(t[0, 1]), float(t[1, 0]), float(t[1, 1])
    n = a + b + c + d
    if n == 0:
        raise ValueError("table must count at least one item; got an all-zero table")
    name = _METHOD_NAMES[method]
    exact = method in ("exact", "midp")
    df = None if exact else 1.0
    details = {"b": b, "c": c, "odds_ratio": b / c if c > 0 else (np.inf if b > 0 else np.nan)}
    lo, hi = _accuracy_difference_ci(a, b, c, d, level)
    effect: dict[str, Any] = {"estimate": (b - c) / n, "ci_low": lo, "ci_high": hi, "confidence_level": level}
    if b + c == 0:
        return TestResult.indistinguishable(
            name,
            "no discordant pairs: both classifiers are right and wrong on the same items",
            df=df, n=int(n), details=details, **effect,
        )
    stat, p, log_p = _mcnemar_pvalue(method, b, c)
    note = ""
    if not exact and b + c < 25:
        note = f"only {int(b + c)} discordant pairs: the chi-square approximation is poor; prefer the exact test"
    return TestResult(
        statistic=stat, pvalue=min(1.0, p), log_pvalue=log_p, df=df, method=name, n=int(n),
        note=note, details=details, **effect,
    )


def _as_correctness(correct: Any) -> tuple[np.ndarray, list[str]]:
    if isinstance(correct, pd.DataFrame):
        names = [str(c) for c in correct.columns]
        arr = correct.to_numpy()
    else:
        arr = np.asarray(correct)
        names = None
    if arr.ndim != 2:
        raise ValueError(f"correct must be a 2-D n x L matrix of 0/1; got shape {arr.shape}")
    if arr.shape[1] < 2:
        raise ValueError(f"correct must have at least 2 classifier columns; got {arr.shape[1]}")
    if arr.shape[0] == 0:
        raise ValueError("correct must have at least one row")
    hint = ("; it is the 0/1 correctness of each classifier on each item (1 = right), not its "
            "predictions: build it with correctness_matrix(y_true, y_preds)")
    try:
        num = arr.astype(float)
    except (TypeError, ValueError):
        bad = next((v for v in arr.ravel() if not isinstance(v, bool | int | float | np.number)),
                   arr.ravel()[0])
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(f"correct must hold only 0 and 1 (or booleans); found {bad!r}{hint}") from None
    ok = (num == 0) | (num == 1)
    if not np.all(ok):
        bad = arr[~ok][0]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(f"correct must hold only 0 and 1 (or booleans); found {bad!r}{hint}")
    names = names or [f"clf_{j}" for j in range(arr.shape[1])]
    return num.astype(np.int64), names


def cochrans_q(correct: npt.ArrayLike) -> TestResult:
    """Cochran's Q test of equal accuracy of L classifiers on the same test set.

    Parameters
    ----------
    correct : n x L array-like or DataFrame of 0/1
        1 where classifier j is right on item i, built from labels by
        :func:`correctness_matrix`. Not the predictions themselves: anything but 0/1 (or
        booleans) raises ValueError. The predictions of a binary problem coded 0/1 cannot be
        told apart from correctness by their values, so convert them first.

    Returns
    -------
    TestResult
        ``statistic`` Q, ``pvalue`` from chi-square with ``df = L - 1``; ``details`` holds the
        number correct per classifier (``n_correct``) and the number of informative items
        (rows that are neither all right nor all wrong).

    Notes
    -----
    With ``G_j`` the number correct of classifier j, ``L_i`` the number of classifiers right on
    item i and ``T = sum G_j``::

        Q = (L - 1) (L sum G_j^2 - T^2) / (L T - sum L_i^2)

    For L = 2 it equals the uncorrected McNemar chi-square. When every item is right for all
    or for none of the classifiers the ratio is 0/0: statistic 0, p-value 1, degenerate
    (mlxtend and statsmodels return NaN).

    References
    ----------
    Cochran (1950), Biometrika 37:256-266. Kuncheva (2014), Combining Pattern Classifiers.

    Examples
    --------
    The mlxtend user-guide example: 100 items, three models wrong on 16, 8 and 8 of them.

    >>> correct = np.ones((100, 3), dtype=int)
    >>> correct[:16, 0] = 0
    >>> correct[[0, 1, 2, 3, 4, 5, 20, 21], 1] = 0
    >>> correct[[0, 1, 2, 6, 20, 21, 98, 99], 2] = 0
    >>> res = cochrans_q(correct)
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (7.529, 0.023)

    At the 5 % level the three accuracies (84 %, 92 %, 92 %) are not all equal.
    """
    arr, names = _as_correctness(correct)
    n, L = arr.shape
    g = arr.sum(axis=0).astype(float)
    row = arr.sum(axis=1).astype(float)
    total = g.sum()
    num = (L - 1) * (L * np.sum(g**2) - total**2)
    den = L * total - np.sum(row**2)
    informative = int(np.sum((row > 0) & (row < L)))
    details = {"n_correct": dict(zip(names, g.astype(int).tolist())), "n_informative": informative}
    method = "Cochran's Q"
    if den <= 0:
        return TestResult.indistinguishable(
            method, "every item is right for all classifiers or for none: no information",
            df=float(L - 1), n=n, details=details,
        )
    q = num / den
    return TestResult(
        statistic=q, pvalue=float(chi2_sf(q, L - 1)), df=float(L - 1), method=method,
        n=n, details=details,
    )


def pairwise_mcnemar(
    y_true: npt.ArrayLike,
    y_preds: PredictionsLike | None = None,
    *,
    correct: npt.ArrayLike | None = None,
    method: str = "exact",
    adjust: str = "holm",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """McNemar's test for every pair of classifiers, adjusted for multiple testing.

    Parameters
    ----------
    y_true : array-like, or None when ``correct`` is given
    y_preds : mapping name -> predictions or DataFrame of prediction columns
    correct : n x L 0/1 matrix, optional
        A correctness matrix instead of ``y_true`` and ``y_preds``.
    method : {"exact", "midp", "chi2", "chi2_corrected"}
        The McNemar variant for each pair.
    adjust : {"holm", "bonferroni", "fdr_bh", "none"}
        Adjustment of the p-values over the k(k-1)/2 pairs (:func:`adjust_pvalues`): Holm's
        step-down (default) or Bonferroni control the family-wise error rate,
        Benjamini–Hochberg the false discovery rate.
    alpha : float
        Level for the ``reject`` column.

    Returns
    -------
    DataFrame
        One row per pair: ``model_a``, ``model_b``, ``b`` (only A right), ``c`` (only B right),
        ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``reject`` (adjusted p-value at most
        ``alpha``), ``degenerate``. ``attrs["adjustment"]`` names the adjustment.

    Examples
    --------
    >>> correct = np.ones((100, 3), dtype=int)
    >>> correct[:16, 0] = 0
    >>> correct[[0, 1, 2, 3, 4, 5, 20, 21], 1] = 0
    >>> correct[[0, 1, 2, 6, 20, 21, 98, 99], 2] = 0
    >>> tab = pairwise_mcnemar(None, correct=correct)
    >>> tab[["model_a", "model_b", "pvalue_adjusted"]].round(4)
      model_a model_b  pvalue_adjusted
    0   clf_0   clf_1           0.1157
    1   clf_0   clf_2           0.1536
    2   clf_1   clf_2           1.0000
    >>> tab.attrs["adjustment"]
    'holm'

    Cochran's Q rejects for these data (p = 0.023) while no adjusted pair does.
    """
    check_choice(method, "method", MCNEMAR_METHODS)
    check_choice(adjust, "adjust", ADJUST_METHODS)
    check_probability(alpha, "alpha")
    if correct is None:
        if y_true is None or y_preds is None:
            raise ValueError("pass y_true and y_preds, or correct")
        correct = correctness_matrix(y_true, y_preds)
    arr, names = _as_correctness(correct)
    rows = []
    for i, j in combinations(range(len(names)), 2):
        ci, cj = arr[:, i].astype(bool), arr[:, j].astype(bool)
        b, c = int(np.sum(ci & ~cj)), int(np.sum(~ci & cj))
        both, neither = int(np.sum(ci & cj)), int(np.sum(~ci & ~cj))
        res = mcnemar([[both, b], [c, neither]], method=method)
        rows.append({
            "model_a": names[i], "model_b": names[j], "b": b, "c": c,
            "statistic": res.statistic, "pvalue": res.pvalue, "degenerate": res.degenerate,
        })
    out = pd.DataFrame(rows)
    out["pvalue_adjusted"] = adjust_pvalues(out["pvalue"].to_numpy(), adjust)
    out["reject"] = out["pvalue_adjusted"] <= alpha
    out = out[["model_a", "model_b", "b", "c", "statistic", "pvalue", "pvalue_adjusted", "reject",
               "degenerate"]]
    out.attrs["adjustment"] = adjust
    return out


def mcnemar_pvalue_grid(max_b: int, max_c: int | None = None) -> pd.DataFrame:
    """p-values of all four McNemar variants for every (b, c) with 0 <= b <= max_b, 0 <= c <= max_c.

    Vectorised over the grid; cells with b + c = 0 get p = 1 as in :func:`mcnemar`.

    Parameters
    ----------
    max_b : int
        Largest count ``b`` (only A correct), at least 0.
    max_c : int, optional
        Largest count ``c`` (only B correct); by default ``max_b``.

    Returns
    -------
    DataFrame with columns ``b``, ``c``, ``chi2``, ``chi2_corrected``, ``exact``, ``midp``.

    Examples
    --------
    >>> g = mcnemar_pvalue_grid(12)
    >>> g.loc[(g.b == 11) & (g.c == 1), ["chi2", "exact"]].round(7).to_numpy().tolist()
    [[0.0038924, 0.0063477]]
    """
    max_b = check_positive_int(max_b, "max_b", minimum=0)
    max_c = max_b if max_c is None else check_positive_int(max_c, "max_c", minimum=0)
    b_grid, c_grid = np.meshgrid(np.arange(max_b + 1), np.arange(max_c + 1), indexing="ij")
    b, c = b_grid.ravel().astype(float), c_grid.ravel().astype(float)
    n = b + c
    safe = np.where(n > 0, n, 1.0)
    chi2 = np.where(n > 0, (b - c) ** 2 / safe, 0.0)
    chi2_cc = np.where(n > 0, np.maximum(np.abs(b - c) - 1, 0) ** 2 / safe, 0.0)
    k = np.minimum(b, c)
    cdf = stats.binom.cdf(k, n, 0.5)
    out = pd.DataFrame({
        "b": b.astype(int),
        "c": c.astype(int),
        "chi2": chi2_sf(chi2, 1),
        "chi2_corrected": chi2_sf(chi2_cc, 1),
        "exact": np.minimum(1.0, 2 * cdf),
        "midp": np.minimum(1.0, 2 * cdf - stats.binom.pmf(k, n, 0.5)),
    })
    out.loc[n == 0, ["chi2", "chi2_corrected", "exact", "midp"]] = 1.0
    return out
