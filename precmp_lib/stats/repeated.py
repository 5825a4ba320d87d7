"""One model's items answered several times: the item score as the mean of its K answers.

Sampling a model at a temperature (inspect's ``epochs``) gives each item K answers. The item's
score is their mean, and :func:`repeated_answers` says how much the K answers reduced the
variance of the mean score against one answer per item (Miller 2024);
:func:`repeated_answers_from_sums` takes the same from five sums an engine returns. The
formulas, with worked numbers, are in docs/methods.md (section "Repeated answers per item").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.jsonable import python_value
from ..core.labels import as_label_array
from .paired import _finite, _score_vector, _sum_of_squares, _whole

__all__ = ["RepeatedAnswers", "repeated_answers", "repeated_answers_from_sums"]


@dataclass(frozen=True)
class RepeatedAnswers:
    """One model's score on items it answered K times, and what the K answers bought.

    Attributes
    ----------
    n_items : int
        Items.
    n_answers : int
        Answers in all (Σ K_i); ``n_answers / n_items`` is the mean K.
    mean : float
        The mean score: the mean over items of each item's mean answer.
    variance : float
        Sample variance (ddof 1) of the item scores (item means), over items.
    within_variance : float
        Mean over items of the variance (ddof 1) of an item's K answers: the spread of answers
        to the same item.
    sampling_variance : float
        Mean over items of within-variance / K_i: the part of ``variance`` due to sampling
        answers.
    se : float
        Standard error of ``mean``: sqrt(variance / n_items).
    se_one_answer : float
        The standard error one answer per item would have had:
        sqrt((variance - sampling_variance + within_variance) / n_items).
    variance_reduction : float
        1 - se² / se_one_answer²: the share of the variance of the mean score the K answers
        removed.
    item_scores : pandas.Series or None
        Each item's score (mean of its answers), indexed by item; None from sums.
    """

    n_items: int
    n_answers: int
    mean: float
    variance: float
    within_variance: float
    sampling_variance: float
    se: float
    se_one_answer: float
    variance_reduction: float
    item_scores: pd.Series | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """Return the numbers as a flat dict (without ``item_scores``).

        Returns
        -------
        dict
        """
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "item_scores"}


def repeated_answers_from_sums(
    n_items: int,
    n_answers: int,
    sum_mean: float,
    sum_mean2: float,
    sum_within: float,
    sum_within_over_k: float,
) -> RepeatedAnswers:
    """Summarise repeated answers from per-item sums.

    Parameters
    ----------
    n_items : int
        Items (at least 2).
    n_answers : int
        Answers in all, Σ K_i (every K_i at least 2).
    sum_mean, sum_mean2 : float
        Σ_i s̄_i and Σ_i s̄_i², s̄_i the mean of item i's answers.
    sum_within : float
        Σ_i w_i, w_i the variance (ddof 1) of item i's answers.
    sum_within_over_k : float
        Σ_i w_i / K_i.

    Returns
    -------
    RepeatedAnswers
        With ``item_scores`` None.

    Examples
    --------
    Four items answered five times each, with item means 0.8, 0.2, 1.0, 0.6:

    >>> w = [0.2, 0.2, 0.0, 0.3]  # variance of each item's five 0/1 answers
    >>> r = repeated_answers_from_sums(4, 20, 2.6, 2.04, sum(w), sum(w) / 5)
    >>> round(r.mean, 2), round(r.se, 4), round(r.se_one_answer, 4)
    (0.65, 0.1708, 0.2533)
    """
    n = _whole(n_items, "n_items", 2)
    k = _whole(n_answers, "n_answers", 2 * n)
    s1, s2 = _finite(sum_mean, "sum_mean"), _finite(sum_mean2, "sum_mean2")
    w = _finite(sum_within, "sum_within")
    wk = _finite(sum_within_over_k, "sum_within_over_k")
    if w < 0 or wk < 0:
        raise ValueError(f"sum_within and sum_within_over_k must be sums of variances (>= 0); got "
                         f"{w:g} and {wk:g}")
    if wk > w / 2 * (1 + 1e-12):
        raise ValueError(f"sum_within_over_k must be at most sum_within / 2 (every item answered "
                         f"at least twice); got {wk:g} with sum_within {w:g}")
    var = _sum_of_squares(s2, s1 * s1 / n) / (n - 1)
    within, sampling = w / n, wk / n
    var_one = max(var - sampling + within, var)
    return RepeatedAnswers(
        n_items=n, n_answers=k, mean=s1 / n, variance=var, within_variance=within,
        sampling_variance=sampling, se=math.sqrt(var / n), se_one_answer=math.sqrt(var_one / n),
        variance_reduction=1.0 - var / var_one if var_one > 0 else 0.0)


def repeated_answers(scores: npt.ArrayLike, items: npt.ArrayLike) -> RepeatedAnswers:
    """Score items answered K times by the mean of their answers, and measure what K bought.

    Parameters
    ----------
    scores : array-like of shape (N,)
        One score per answer (0/1 or any number).
    items : array-like of shape (N,)
        The item each answer belongs to; every item answered at least twice.

    Returns
    -------
    RepeatedAnswers
        ``item_scores`` holds each item's score, the input to :func:`paired_difference` (align
        two models' series by item first); ``variance_reduction`` says how much of the variance
        of the mean score the K answers removed.

    Notes
    -----
    An item's answers vary around its own expected score; with s̄_i the mean of K_i answers,
    Var(s̄_i) = Var(item expected scores) + E[σ_i² / K_i] (Miller 2024, eq. for resampled
    answers). The within-item variances w_i (ddof 1) estimate σ_i², so one answer per item
    would have given Var = variance - mean(w_i / K_i) + mean(w_i). More answers shrink only the
    second term: when items differ much more than answers do, K buys little.

    References
    ----------
    Miller (2024), Adding error bars to evals: a statistical approach to language model
    evaluations, arXiv:2411.00640, section on reducing variance within questions.

    Examples
    --------
    Four items, five answers each:

    >>> answers = [1, 1, 1, 1, 0,  0, 0, 1, 0, 0,  1, 1, 1, 1, 1,  1, 0, 1, 0, 1]
    >>> items = np.repeat(["q1", "q2", "q3", "q4"], 5)
    >>> r = repeated_answers(answers, items)
    >>> r.item_scores.round(2).tolist(), round(r.variance_reduction, 3)
    ([0.8, 0.2, 1.0, 0.6], 0.545)

    Five answers per item removed about half of the variance of the mean score: these items'
    answers vary as much as the items do.
    """
    s = _score_vector(scores, "scores")
    if items is None or isinstance(items, str | bytes) or np.ndim(items) == 0:
        raise ValueError(f"items must be an array with the item of each answer; got {items!r:.60}")
    labels = np.asarray(as_label_array(items, "items"))
    if labels.ndim != 1:
        raise ValueError(f"items must be one-dimensional (one item per answer); got shape "
                         f"{labels.shape}")
    if len(labels) != s.size:
        raise ValueError(f"scores and items must have one entry per answer; got {s.size} scores "
                         f"and {len(labels)} items")
    codes, uniques = pd.factorize(labels, sort=False)
    k = np.bincount(codes).astype(float)
    once = np.flatnonzero(k < 2)
    if len(once):
        raise ValueError(f"items must have at least 2 answers each to measure their spread; item "
                         f"{python_value(uniques[once[0]])!r} has 1")
    means = np.bincount(codes, weights=s) / k
    dev = s - means[codes]
    within = np.bincount(codes, weights=dev * dev) / (k - 1)
    res = repeated_answers_from_sums(len(k), s.size, float(means.sum()), float(means @ means),
                                     float(within.sum()), float(np.sum(within / k)))
    return replace(res, item_scores=pd.Series(means, index=pd.Index(uniques, name="item"),
                                              name="score"))
