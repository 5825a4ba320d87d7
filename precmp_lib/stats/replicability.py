"""Bouckaert's replicability R(e), Demšar's R(p), and the 2 x 2 x 2 counts of one class.

A test is *replicable* when the same experiment, repeated on other random partitions of the
same data, reaches the same decision. Bouckaert (2004) measures it by the share of pairs of
repetitions whose decisions agree (:func:`replicability`); Demšar (2006) by the spread of their
p-values (:func:`replicability_pvalues`). The experiment that repeats a precision comparison over
a grid of sample sizes and test-set proportions, fitting models, is
:func:`precmp_lib.fitting.replicability.replicability_experiment`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..core.labels import as_label_array

__all__ = [
    "precision_cells",
    "replicability",
    "replicability_pvalues",
]


def _agreement(accepted: npt.ArrayLike, n: npt.ArrayLike) -> np.ndarray:
    """R(e) from the number accepted ``p`` out of ``n`` (elementwise; NaN where n < 2)."""
    p = np.asarray(accepted, dtype=float)
    total = np.asarray(n, dtype=float)
    q = total - p
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (p * (p - 1) + q * (q - 1)) / (total * (total - 1))
    return np.where(total >= 2, r, np.nan)


def _as_sample(values: Any, name: str) -> np.ndarray:
    if isinstance(values, pd.Series | pd.Index):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.size < 2:
        raise ValueError(
            f"{name} must hold at least 2 repetitions (R is a share of pairs); got {arr.size}"
        )
    return arr


def replicability(outcomes: npt.ArrayLike) -> float:
    """Bouckaert's replicability R(e): the share of pairs of repetitions that agree.

    Parameters
    ----------
    outcomes : array-like of shape (n,), n >= 2
        The decision of each repetition of an experiment (same algorithms, same data, another
        random partition or seed): 1 (or True) where H0 was accepted, 0 (or False) where it
        was rejected.

    Returns
    -------
    float
        R(e) in [0, 1]; 1 when every repetition decides alike.

    Raises
    ------
    ValueError
        Fewer than 2 outcomes, or outcomes other than 0/1 (booleans are accepted).

    Notes
    -----
    With ``p`` acceptances and ``q`` rejections among ``n = p + q`` repetitions
    (Bouckaert 2004; docs/methods.md §10, with the brackets Gondara's eq. 30 lacks)::

        R(e) = sum_{i<j} I(e_i = e_j) / (n(n - 1)/2) = [p(p - 1) + q(q - 1)] / [n(n - 1)]

    R(e) is 1 whether all repetitions reject or all accept: read it together with the
    rejection rate ``q / n``. Its minimum for even n is ``(n/2 - 1)/(n - 1)`` (4/9 for
    n = 10), approaching 1/2 for large n. p-values close to the level make decisions flip
    from one partition to the next and lower R(e) mechanically.

    References
    ----------
    Bouckaert (2004), "Estimating replicability of classifier learning experiments", ICML.
    Demšar (2006), JMLR 7:1-30, §2 (quotes the simplified formula).
    Gondara, "Classifier comparison using precision", §4, eq 29-30.

    Examples
    --------
    Ten repetitions of a comparison, seven accepting H0 and three rejecting it
    (docs/methods.md §10):

    >>> replicability([1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    0.5333333333333333

    Only 24 of the 45 pairs of repetitions agree: the decision depends on the split, so one
    run alone should not be trusted. When all ten reject, the decision replicates perfectly:

    >>> replicability([0] * 10)
    1.0
    """
    arr = _as_sample(outcomes, "outcomes")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    try:
        num = arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError("outcomes must hold 0/1 decisions (1 = H0 accepted)") from None
    binary = (num == 0) | (num == 1)
    if not binary.all():
        bad = arr[~binary][0]
        raise ValueError(
            f"outcomes must hold only 0 and 1 (1 = H0 accepted, 0 = rejected); found {bad!r}"
        )
    return float(_agreement(num.sum(), num.size))


def replicability_pvalues(pvalues: npt.ArrayLike) -> float:
    """Demšar's replicability of p-values, ``R(p) = 1 - 2 var(p)``.

    Parameters
    ----------
    pvalues : array-like of shape (n,), n >= 2
        The p-values of the repetitions of an experiment, each in [0, 1].

    Returns
    -------
    float
        R(p); 1 when all p-values are equal.

    Notes
    -----
    ``var`` is the sample variance (ddof = 1). Unlike R(e) it does not depend on a level α,
    so it is not lowered by p-values that merely straddle α (Demšar 2006; docs/methods.md §10).

    Examples
    --------
    Five repetitions whose p-values all stay small (docs/methods.md §10):

    >>> round(replicability_pvalues([0.01, 0.04, 0.20, 0.03, 0.07]), 5)
    0.9885

    The p-values barely move, so the evidence replicates even though a fixed α = 0.05 would
    split the decisions 3 to 2.
    """
    arr = _as_sample(pvalues, "pvalues")
    try:
        num = arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError("pvalues must hold numbers in [0, 1]") from None
    bad = ~np.isfinite(num) | (num < 0) | (num > 1)
    if bad.any():
        raise ValueError(f"pvalues must lie in [0, 1]; found {arr[bad][0]!r}")
    return float(1 - 2 * np.var(num, ddof=1))


def precision_cells(y_true: Any, y_pred_a: Any, y_pred_b: Any, *, positive: Any) -> np.ndarray:
    """Count the 2 x 2 x 2 table ``n[truly positive][A predicts it][B predicts it]`` of one class.

    The counts every paired precision test of class ``positive`` is a function of
    (docs/methods.md §6.1); :func:`precmp_lib.course.widgets.course.replicability_size_state` draws new test
    sets from them.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like
        Labels (ints or strings) of the same observations.
    positive : label
        The class; matched as text when the labels are text and ``positive`` is not (``0`` and
        ``"0"``). A class none of the three arrays holds is a ValueError.

    Returns
    -------
    ndarray of int64, shape (2, 2, 2)

    Examples
    --------
    >>> precision_cells(["a", "b", "a", "b"], ["a", "a", "a", "b"], ["a", "b", "b", "b"],
    ...                 positive="a").tolist()
    [[[1, 0], [1, 0]], [[0, 0], [1, 1]]]

    One observation of class "a" is predicted "a" by both, one only by A; the only false alarm
    is A's.
    """
    y = as_label_array(y_true, "y_true")
    a = as_label_array(y_pred_a, "y_pred_a")
    b = as_label_array(y_pred_b, "y_pred_b")
    if not len(y) == len(a) == len(b):
        raise ValueError(
            f"y_true, y_pred_a and y_pred_b must have the same length; got {len(y)}, {len(a)}, {len(b)}"
        )
    by_text = not (np.any(y == positive) or np.any(a == positive) or np.any(b == positive))

    def hit(values: np.ndarray) -> np.ndarray:
        return (values.astype(str) == str(positive)) if by_text else (values == positive)

    hits = [hit(v) for v in (y, a, b)]
    if not any(h.any() for h in hits):
        raise ValueError(f"positive={positive!r} is not among the labels of y_true, y_pred_a "
                         "and y_pred_b")
    code = 4 * hits[0].astype(np.int64) + 2 * hits[1] + hits[2]
    return np.bincount(code, minlength=8).reshape(2, 2, 2)
