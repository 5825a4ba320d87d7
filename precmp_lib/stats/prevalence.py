"""Prevalence (Bayes) update of precision with bootstrap intervals.

A test set's class mix is rarely the population's. Precision depends on it; sensitivity and
specificity do not. Given a known population prevalence, Bayes' rule turns a classifier's
sensitivity and specificity into the precision it would have in that population (Gondara, eq. 28).
Intervals come from resampling the confusion counts (multinomial, equivalent to resampling
rows), and two classifiers' updated precisions are compared by their ratio on the paired
joint counts.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.aliases import RandomStateLike
from .._lib.checks import (
    as_unit_interval,
    check_counts,
    check_positive_int,
    check_probability,
    check_random_state,
)
from .._lib.dist import norm_isf
from ..core import counts as _counts
from ..core.clusters import ClassProfiles, class_profiles
from ..core.labels import as_label_array, encode_labels
from .intervals import _wilson

__all__ = [
    "PatternPrevalenceBootstrap",
    "PrevalenceBootstrap",
    "bayes_update_precision",
    "compare_updated_precision",
    "percentile_interval",
    "prevalence_adjusted_precision",
    "prevalence_bootstrap",
    "prevalence_bootstrap_from_patterns",
    "prevalence_bootstrap_from_profiles",
    "prevalence_interval",
]


def _ppv(se: Any, sp: Any, pi: Any) -> np.ndarray:
    """Eq 28 elementwise; NaN where undefined (Se = 0 and Sp = 1, or Se/Sp NaN)."""
    se, sp, pi = (np.asarray(v, dtype=float) for v in (se, sp, pi))
    num = se * pi
    den = num + (1.0 - sp) * (1.0 - pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = num / den
    undefined = (se == 0) & (sp == 1)
    out = np.where(pi == 0, 0.0, np.where(pi == 1, 1.0, out))
    return np.where(undefined | np.isnan(se) | np.isnan(sp), np.nan, out)


def prevalence_adjusted_precision(
    sensitivity: npt.ArrayLike, specificity: npt.ArrayLike, prevalence: npt.ArrayLike
) -> float | np.ndarray:
    """Precision a classifier would have at a given population prevalence (Gondara, eq. 28).

    Parameters
    ----------
    sensitivity : float or array-like
        Se, the recall of the class (one-vs-rest), in [0, 1].
    specificity : float or array-like
        Sp, the true-negative rate of "not the class", in [0, 1].
    prevalence : float or array-like
        pi, the population prevalence of the class, in [0, 1].

    Returns
    -------
    float or ndarray
        The updated precision, broadcast over the three inputs; a float when all are scalars.

    Notes
    -----
    Bayes' rule::

        P(pi) = Se pi / (Se pi + (1 - Sp)(1 - pi)) = 1 / (1 + ((1 - pi)/pi) (1 - Sp)/Se)

    Equivalently ``odds(P(pi)) = odds(P) * odds(pi) / odds(pi_s)`` with P the test-set precision
    and pi_s the test-set prevalence, and DTComPair's ``pv.prev`` PPV. Edge cases (docs/methods.md §9): pi = 0 gives 0 and pi = 1 gives 1; Sp = 1 with Se > 0 gives 1; Se = 0 with Sp < 1
    gives 0; Se = 0 with Sp = 1 (the classifier never predicts the class) has no precision and
    raises.

    References
    ----------
    Gondara (2018), "Classifier comparison using precision", eq 28. Altman & Bland (1994),
    BMJ 309:102.

    Examples
    --------
    A classifier with Se = 0.75 and Sp = 0.9286 has precision 0.818 on a test set where the
    class makes up 30 % (docs/methods.md §9, worked example 1). Where it makes up 10 %:

    >>> round(prevalence_adjusted_precision(0.75, 130 / 140, 0.1), 6)
    0.538462

    Almost half of its positive predictions would then be wrong. A whole curve at once:

    >>> prevalence_adjusted_precision(0.75, 130 / 140, [0.01, 0.3, 0.5]).round(4)
    array([0.0959, 0.8182, 0.913 ])
    """
    se = as_unit_interval(sensitivity, "sensitivity")
    sp = as_unit_interval(specificity, "specificity")
    pi = as_unit_interval(prevalence, "prevalence")
    try:
        se_b, sp_b, pi_b = np.broadcast_arrays(se, sp, pi)
    except ValueError:
        raise ValueError(
            f"sensitivity, specificity and prevalence must broadcast together; got shapes "
            f"{se.shape}, {sp.shape}, {pi.shape}"
        ) from None
    undefined = (se_b == 0) & (sp_b == 1)
    if undefined.any():
        raise ValueError(
            "sensitivity 0 with specificity 1 means the classifier never predicts the class: "
            "its precision is undefined at every prevalence"
        )
    out = _ppv(se_b, sp_b, pi_b)
    return float(out) if out.ndim == 0 else out


def prevalence_interval(
    tp: npt.ArrayLike, positives: npt.ArrayLike, fp: npt.ArrayLike, negatives: npt.ArrayLike,
    prevalence: npt.ArrayLike, *, confidence_level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """Interval for precision at a population prevalence that stays valid at 0 or 1.

    Precision at prevalence pi, ``Se pi / (Se pi + FPR (1 - pi))``, rises with the sensitivity
    Se = TP / positives and falls with the false-positive rate FPR = FP / negatives. Each rate
    gets Wilson's score interval at level ``1 - alpha / 2``; the rectangle of the two holds both
    rates with probability at least ``1 - alpha`` (Bonferroni), and the interval is the
    precision at its two corners: low at (Se low, FPR high), high at (Se high, FPR low).

    Parameters
    ----------
    tp, positives : array-like
        True positives and the observations truly of the class (counts; fractional counts are
        taken as effective sample sizes).
    fp, negatives : array-like
        False positives and the observations truly of another class.
    prevalence : array-like
        The population prevalence pi, in (0, 1).
    confidence_level : float
        1 - alpha.

    Returns
    -------
    low, high : ndarray
        Broadcast over the inputs; NaN where the model never predicts the class (TP = FP = 0)
        or a group is empty.

    Notes
    -----
    With no false positives the false-positive rate's lower end is 0, so the interval reaches
    precision 1, and its upper end is positive, so the interval reaches below 1: 0 of 188
    negatives called positive still allows an FPR of 0.026 at 97.5 %, and precision at a
    prevalence of 2 % with 28 of 40 positives found down to 0.29. Exact coverage over a grid of 540
    designs (TP and FP binomial; 10 to 200 positives, 40 to 1,000 negatives, FPR from 0 to 0.1,
    prevalence 0.02 to 0.3) is at least 95.4 % at nominal 95 % (docs/methods.md §9);
    the percentile bootstrap it replaces covered as little as 17 % where false positives are
    rare, and never moves off 1 when there are none.

    References
    ----------
    Wilson (1927), JASA 22:209-212. Mercaldo, Lau & Zhou (2007), Stat Med 26:2170-2183
    (intervals for predictive values at a known prevalence).

    Examples
    --------
    No false positives among 188 negatives, 28 of 40 positives found, prevalence 2 %:

    >>> low, high = prevalence_interval(28, 40, 0, 188, 0.02)
    >>> round(float(low), 3), float(high)
    (0.291, 1.0)
    """
    level = check_probability(confidence_level, "confidence_level")
    tp, pos, fp, neg = (np.asarray(v, dtype=float) for v in (tp, positives, fp, negatives))
    pi = np.asarray(prevalence, dtype=float)
    alpha = 1.0 - level
    z = norm_isf(alpha / 4)  # each rate at level 1 - alpha / 2
    se_lo, se_hi = _wilson(tp, pos, z)
    fpr_lo, fpr_hi = _wilson(fp, neg, z)
    low = _ppv(se_lo, 1.0 - fpr_hi, pi)
    high = _ppv(se_hi, 1.0 - fpr_lo, pi)
    never = (tp == 0) & (fp == 0)
    empty = ~((pos > 0) & (neg > 0))
    low = np.where(never | empty, np.nan, np.where(np.isnan(low), 0.0, low))
    high = np.where(never | empty, np.nan, np.where(np.isnan(high), 1.0, high))
    return low, high


# --------------------------------------------------------------------------------------------
# Bootstrap of sensitivity and specificity from the confusion counts
# --------------------------------------------------------------------------------------------


def _rates(confusion: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Se, Sp and precision per class from confusion counts (..., K, K) [true, predicted]."""
    c = confusion.astype(float)
    tp = np.einsum("...kk->...k", c)
    pos = c.sum(axis=-1)
    pred = c.sum(axis=-2)
    n = c.sum(axis=(-2, -1))[..., None]
    tn = n - pos - pred + tp
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(pos > 0, tp / pos, np.nan)
        sp = np.where(n - pos > 0, tn / (n - pos), np.nan)
        precision = np.where(pred > 0, tp / pred, np.nan)
    return se, sp, precision


@dataclass(frozen=True)
class PrevalenceBootstrap:
    """Sensitivities and specificities of one or two classifiers with bootstrap replicates.

    Built by :func:`prevalence_bootstrap`; the replicates do not depend on the prevalence, so
    updated precisions and their intervals at any prevalence come from them without resampling
    again.

    Attributes
    ----------
    classes : tuple
        Class labels, in code order.
    names : tuple of str
        Classifier names.
    sensitivity, specificity, precision : ndarray of shape (m, K)
        Test-set values per classifier and class (NaN where undefined).
    sample_prevalence : ndarray of shape (K,)
        Test-set proportion of each class.
    boot_sensitivity, boot_specificity : ndarray of shape (B, m, K)
        The same on each multinomial resample of the confusion counts.
    n : int
        Number of test observations.
    """

    classes: tuple[Any, ...]
    names: tuple[str, ...]
    sensitivity: np.ndarray
    specificity: np.ndarray
    precision: np.ndarray
    sample_prevalence: np.ndarray
    boot_sensitivity: np.ndarray
    boot_specificity: np.ndarray
    n: int

    @property
    def n_resamples(self) -> int:
        """Number of bootstrap resamples."""
        return int(self.boot_sensitivity.shape[0])

    def code(self, label: Any, name: str = "class") -> int:
        """Find the position of a class label in ``classes``.

        Parameters
        ----------
        label : label
            A class label (compared as is, then as text).
        name : str
            Argument name used in the error message.

        Returns
        -------
        int
            Index of ``label`` in ``classes``.

        Raises
        ------
        ValueError
            If ``label`` is not among the classes.
        """
        for i, c in enumerate(self.classes):
            if c == label or str(c) == str(label):
                return i
        raise ValueError(f"{name}={label!r} is not among the classes {list(self.classes)!r}")

    def updated(self, cls: Any, prevalence: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Compute the updated precision of each classifier for class ``cls`` at ``prevalence``.

        Parameters
        ----------
        cls : label
            The class whose precision is updated.
        prevalence : float or array-like in (0, 1)
            Prevalence(s) of ``cls`` in the target population.

        Returns
        -------
        point : ndarray of shape (m, *prevalence.shape)
            The point estimates, one row per classifier.
        boot : ndarray of shape (B, m, *prevalence.shape)
            The bootstrap replicates (NaN where a resample leaves the precision undefined).
        """
        k = self.code(cls)
        pi = as_unit_interval(prevalence, "prevalence")
        extra = (None,) * pi.ndim
        point = _ppv(self.sensitivity[(slice(None), k, *extra)],
                     self.specificity[(slice(None), k, *extra)], pi)
        boot = _ppv(self.boot_sensitivity[(slice(None), slice(None), k, *extra)],
                    self.boot_specificity[(slice(None), slice(None), k, *extra)], pi)
        return point, boot

    def ratio(self, cls: Any, prevalence: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Compute the ratio of the two classifiers' updated precisions (A over B) for ``cls``.

        Parameters
        ----------
        cls : label
            The class whose precisions are compared.
        prevalence : float or array-like in (0, 1)
            Prevalence(s) of ``cls`` in the target population.

        Returns
        -------
        point : ndarray of shape prevalence.shape
            The point estimate of the ratio.
        boot : ndarray of shape (B, *prevalence.shape)
            The bootstrap replicates; NaN where either precision is undefined or B's is 0.
        """
        if len(self.names) != 2:
            raise ValueError(f"a ratio needs two classifiers; this bootstrap has {len(self.names)}")
        point, boot = self.updated(cls, prevalence)
        return _safe_ratio(point[0], point[1]), _safe_ratio(boot[:, 0], boot[:, 1])

    def ratio_curve(
        self, cls: Any, prevalences: npt.ArrayLike | None = None, *, confidence_level: float = 0.95
    ) -> pd.DataFrame:
        """Tabulate the ratio of updated precisions (A over B) over prevalences, with intervals.

        Parameters
        ----------
        cls : label
            The class whose precisions are compared.
        prevalences : array-like in (0, 1), optional
            The grid; by default 0.01, 0.02, ..., 0.99.
        confidence_level : float
            Level of the percentile bootstrap intervals.

        Returns
        -------
        DataFrame
            One row per prevalence: ``class``, ``prevalence``, ``rp``, ``rp_ci_low``,
            ``rp_ci_high``, ``n_skipped`` (replicates left out as undefined).
        """
        level = check_probability(confidence_level, "confidence_level")
        grid = np.linspace(0.01, 0.99, 99) if prevalences is None else np.asarray(prevalences)
        point, boot = self.ratio(cls, grid)
        lo, hi, skipped = percentile_interval(boot, level)
        return pd.DataFrame({"class": self.classes[self.code(cls)], "prevalence": grid,
                             "rp": point, "rp_ci_low": lo, "rp_ci_high": hi,
                             "n_skipped": skipped})

    def curve(
        self, cls: Any, prevalences: npt.ArrayLike | None = None, *, confidence_level: float = 0.95
    ) -> pd.DataFrame:
        """Tabulate each classifier's updated precision over a grid of prevalences, with intervals.

        Parameters
        ----------
        cls : label
            The class whose precision is updated.
        prevalences : array-like in (0, 1), optional
            The grid; by default 0.01, 0.02, ..., 0.99.
        confidence_level : float
            Level of the percentile bootstrap intervals.

        Returns
        -------
        DataFrame
            Long format, one row per classifier and prevalence: ``class``, ``model``,
            ``prevalence``, ``precision_updated``, ``ci_low``, ``ci_high``, ``n_skipped``.
        """
        level = check_probability(confidence_level, "confidence_level")
        grid = np.linspace(0.01, 0.99, 99) if prevalences is None else np.asarray(prevalences)
        point, boot = self.updated(cls, grid)
        lo, hi, skipped = percentile_interval(boot, level)
        label = self.classes[self.code(cls)]
        frames = [
            pd.DataFrame({"class": label, "model": name, "prevalence": grid,
                          "precision_updated": point[j], "ci_low": lo[j], "ci_high": hi[j],
                          "n_skipped": skipped[j]})
            for j, name in enumerate(self.names)
        ]
        return pd.concat(frames, ignore_index=True)


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Divide ``num`` by ``den``, NaN where ``den`` is 0 or either is NaN."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def percentile_interval(boot: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval of bootstrap replicates over axis 0, ignoring NaN replicates.

    Parameters
    ----------
    boot : ndarray of shape (B, ...)
        B bootstrap replicates of one or more quantities; NaN marks a replicate where the
        quantity was undefined.
    level : float
        Confidence level of the interval, in (0, 1).

    Returns
    -------
    ci_low, ci_high : ndarray of shape (...)
        The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the defined replicates
        (NaN where no replicate is defined).
    skipped : ndarray of int, shape (...)
        The number of NaN replicates of each quantity.

    Examples
    --------
    >>> boot = np.array([[0.1], [0.2], [np.nan], [0.3], [0.4]])
    >>> lo, hi, skipped = percentile_interval(boot, 0.5)
    >>> lo.round(3).tolist(), hi.round(3).tolist(), skipped.tolist()
    ([0.175], [0.325], [1])
    """
    alpha = 1.0 - check_probability(level, "level")
    skipped = np.isnan(boot).sum(axis=0)
    with np.errstate(invalid="ignore"):
        if np.all(skipped == boot.shape[0]):
            nan = np.full(boot.shape[1:], np.nan)
            return nan, nan.copy(), skipped
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN
            lo, hi = np.nanquantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    return lo, hi, skipped


def _resample(counts: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """B multinomial resamples of a table of counts, as (B, *counts.shape)."""
    n = int(counts.sum())
    probs = counts.ravel() / n
    return rng.multinomial(n, probs, size=n_resamples).reshape(n_resamples, *counts.shape)


def _from_table(
    table: np.ndarray,
    classes: Sequence[Any],
    names: tuple[str, ...],
    n_resamples: int,
    rng: np.random.Generator,
) -> PrevalenceBootstrap:
    """Bootstrap from a confusion matrix (K, K) or a joint table (K, K, K)."""
    def per_classifier(t: np.ndarray) -> np.ndarray:
        # (..., K, K) for one classifier or (..., K, K, K) -> (..., m, K, K)
        if len(names) == 1:
            return t[..., None, :, :]
        return np.stack([t.sum(axis=-1), t.sum(axis=-2)], axis=-3)

    se, sp, precision = _rates(per_classifier(table))
    boot_se, boot_sp, _ = _rates(per_classifier(_resample(table, n_resamples, rng)))
    rows = table.sum(axis=tuple(range(1, table.ndim)))
    return PrevalenceBootstrap(
        classes=tuple(c.item() if isinstance(c, np.generic) else c for c in classes),
        names=names, sensitivity=se, specificity=sp, precision=precision,
        sample_prevalence=rows / rows.sum(), boot_sensitivity=boot_se,
        boot_specificity=boot_sp, n=int(table.sum()),
    )


def prevalence_bootstrap(
    y_true: npt.ArrayLike,
    y_pred_a: npt.ArrayLike,
    y_pred_b: npt.ArrayLike | None = None,
    *,
    names: Sequence[str] | None = None,
    labels: Sequence[Any] | None = None,
    n_resamples: int = 2000,
    random_state: RandomStateLike = None,
) -> PrevalenceBootstrap:
    """Bootstrap the sensitivity and specificity of one classifier, or of two jointly.

    Parameters
    ----------
    y_true, y_pred_a : array-like of shape (n,)
        True labels and a classifier's predictions.
    y_pred_b : array-like of shape (n,), optional
        A second classifier's predictions on the same observations; the two are resampled
        together (paired), through their joint confusion counts.
    names : sequence of str, optional
        Classifier names (default ``"A"``, ``"B"``).
    labels : sequence, optional
        The class list, in order.
    n_resamples : int
        Number of bootstrap resamples B.
    random_state : None, int or numpy Generator

    Returns
    -------
    PrevalenceBootstrap

    Notes
    -----
    Resampling n rows with replacement gives a multinomial draw of the table of counts with
    the observed cell proportions, so one ``Generator.multinomial(n, p, size=B)`` replaces B
    passes over the rows: the K x K confusion matrix for one classifier, the K x K x K joint
    table for two (which keeps their pairing).

    Examples
    --------
    >>> boot = prevalence_bootstrap([0, 0, 1, 1, 1], [0, 1, 1, 1, 1], n_resamples=100,
    ...                             random_state=0)
    >>> boot.sensitivity.round(3).tolist()
    [[0.5, 1.0]]
    """
    B = check_positive_int(n_resamples, "n_resamples")
    rng = check_random_state(random_state)
    if y_pred_b is None:
        names = tuple(names) if names is not None else ("A",)
        if len(names) != 1:
            raise ValueError(f"names must hold one name for one classifier; got {names!r}")
        enc = encode_labels(y_true, {names[0]: y_pred_a}, labels=labels)
        K = enc.n_classes
        table = np.bincount(enc.y.astype(np.int64) * K + enc.preds[:, 0],
                            minlength=K * K).reshape(K, K)
        classes = list(enc.classes)
    else:
        names = tuple(names) if names is not None else ("A", "B")
        if len(names) != 2:
            raise ValueError(f"names must hold two names for two classifiers; got {names!r}")
        joint = _counts.joint_confusion(y_true, y_pred_a, y_pred_b, labels=labels)
        table, classes = np.asarray(joint.table, dtype=np.int64), list(joint.classes)
    return _from_table(table, classes, names, B, rng)


def _prevalence_map(
    boot: PrevalenceBootstrap, prevalence: Any, positive: Any
) -> tuple[dict[int, float], str]:
    if isinstance(prevalence, Mapping):
        if positive is not None:
            raise ValueError("positive is not used when prevalence is a mapping of classes")
        if not prevalence:
            raise ValueError("prevalence must name at least one class")
        out = {boot.code(label, "prevalence class"): check_probability(
            value, f"prevalence[{label!r}]", low_open=False, high_open=False)
            for label, value in prevalence.items()}
    else:
        if positive is None:
            if len(boot.classes) != 2:
                raise ValueError(
                    "prevalence is a single number: pass positive= to say which class it is for"
                )
            positive = boot.classes[1]
        out = {boot.code(positive, "positive"): check_probability(
            prevalence, "prevalence", low_open=False, high_open=False)}
    note = ""
    if len(out) == len(boot.classes) and not math.isclose(sum(out.values()), 1.0, abs_tol=1e-6):
        note = f"the prevalences of all classes sum to {sum(out.values()):.4g}, not 1"
    return out, note


def _finish_note(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def bayes_update_precision(
    y_true: npt.ArrayLike,
    y_pred: npt.ArrayLike,
    *,
    prevalence: npt.ArrayLike,
    positive: Any = None,
    confusion: npt.ArrayLike | None = None,
    labels: Sequence[Any] | None = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Precision updated to a known population prevalence, with a bootstrap interval.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True labels and predictions (pass ``None`` for both when giving ``confusion``).
    prevalence : float or mapping label -> float
        Population prevalence of the class ``positive``, or of several classes.
    positive : label, optional
        The class a single-number ``prevalence`` belongs to (default: the second of two classes).
    confusion : array-like of shape (K, K), optional
        Confusion counts [true class, predicted class] instead of labels; ``labels`` names
        its classes (default 0..K-1).
    labels : sequence, optional
        The class list, in order.
    n_resamples : int
        Bootstrap resamples B (multinomial on the confusion counts, equivalent to rows).
    confidence_level : float
        Level of the percentile interval.
    random_state : None, int or numpy Generator

    Returns
    -------
    DataFrame
        One row per class updated: ``class``, ``prevalence``, ``sample_prevalence``,
        ``sensitivity``, ``specificity``, ``precision`` (test set), ``precision_updated``,
        ``ci_low``, ``ci_high`` (percentile interval), ``n_resamples``, ``n_skipped`` (resamples
        where the updated precision was undefined, left out of the interval), ``note``.

    Notes
    -----
    ``P(pi) = Se pi / (Se pi + (1 - Sp)(1 - pi))`` (Gondara, eq. 28) with Se and Sp of the class
    against the rest. Se and Sp do not depend on the test set's class mix, precision does.
    Updated precisions of several classes need prevalences that sum to 1 over all classes; a
    ``note`` says when a full set does not.

    References
    ----------
    Gondara (2018), "Classifier comparison using precision", §3.6, Table 10.
    Efron & Tibshirani (1993), An Introduction to the Bootstrap, ch. 13 (percentile interval).

    Examples
    --------
    TP = 45, FN = 15, FP = 10, TN = 130: precision 0.818 on a test set with 30 % positives
    (docs/methods.md §9, worked example 1). In a population with 10 % positives:

    >>> tab = bayes_update_precision(None, None, confusion=[[130, 10], [15, 45]],
    ...                              prevalence=0.1, n_resamples=4000, random_state=12345)
    >>> tab[["precision", "precision_updated"]].round(4)
       precision  precision_updated
    0     0.8182             0.5385
    >>> bool(0.38 < tab.ci_low[0] < 0.44 and 0.70 < tab.ci_high[0] < 0.76)
    True

    The interval (about 0.41 to 0.73) is wide: the ten false positives are few, and at a low
    prevalence their rate weighs heavily.
    """
    level = check_probability(confidence_level, "confidence_level")
    B = check_positive_int(n_resamples, "n_resamples")
    if confusion is not None:
        if y_true is not None or y_pred is not None:
            raise ValueError("pass either y_true and y_pred or confusion, not both")
        table = check_counts(confusion, "confusion").astype(np.int64)
        if table.ndim != 2 or table.shape[0] != table.shape[1] or table.shape[0] < 2:
            raise ValueError(f"confusion must be a K x K matrix with K >= 2; got shape {table.shape}")
        if table.sum() == 0:
            raise ValueError("confusion must hold at least one observation")
        classes = list(labels) if labels is not None else list(range(table.shape[0]))
        if len(classes) != table.shape[0]:
            raise ValueError(f"labels must name the {table.shape[0]} classes; got {len(classes)}")
        boot = _from_table(table, classes, ("A",), B, check_random_state(random_state))
    else:
        if y_true is None or y_pred is None:
            raise ValueError("pass y_true and y_pred (or confusion)")
        n_true, n_pred = len(as_label_array(y_true, "y_true")), len(as_label_array(y_pred, "y_pred"))
        if n_pred != n_true:
            raise ValueError(f"y_pred must have the same length as y_true ({n_true}); got {n_pred}")
        boot = prevalence_bootstrap(y_true, y_pred, labels=labels, n_resamples=B,
                                    random_state=random_state)
    prevalences, sum_note = _prevalence_map(boot, prevalence, positive)
    rows = []
    for k, pi in prevalences.items():
        point, reps = boot.updated(boot.classes[k], pi)
        lo, hi, skipped = percentile_interval(reps, level)
        note = ""
        if np.isnan(point[0]):
            note = f"class {boot.classes[k]!r}: " + (
                "never predicted, precision undefined" if boot.specificity[0, k] == 1
                else "absent from the test set (sensitivity undefined)")
        rows.append({
            "class": boot.classes[k], "prevalence": pi,
            "sample_prevalence": boot.sample_prevalence[k],
            "sensitivity": boot.sensitivity[0, k], "specificity": boot.specificity[0, k],
            "precision": boot.precision[0, k], "precision_updated": float(point[0]),
            "ci_low": float(lo[0]), "ci_high": float(hi[0]), "n_resamples": B,
            "n_skipped": int(skipped[0]), "note": _finish_note(note, sum_note),
        })
    return pd.DataFrame(rows)


def compare_updated_precision(
    y_true: npt.ArrayLike,
    y_pred_a: npt.ArrayLike,
    y_pred_b: npt.ArrayLike,
    *,
    prevalence: npt.ArrayLike,
    positive: Any = None,
    labels: Sequence[Any] | None = None,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Two classifiers' precisions updated to a population prevalence, and their ratio.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like of shape (n,)
        True labels and the two classifiers' predictions on the same observations.
    prevalence : float or mapping label -> float
        Population prevalence of the class ``positive``, or of several classes.
    positive : label, optional
        The class a single-number ``prevalence`` belongs to (default: the second of two classes).
    labels : sequence, optional
        The class list, in order.
    n_resamples : int
        Bootstrap resamples B of the paired joint confusion counts.
    confidence_level : float
        Level of the percentile intervals.
    random_state : None, int or numpy Generator

    Returns
    -------
    DataFrame
        One row per class: ``class``, ``prevalence``, ``sample_prevalence``, ``precision_a``,
        ``precision_b`` (test set), ``updated_a``, ``updated_a_ci_low``, ``updated_a_ci_high``,
        ``updated_b``, ``updated_b_ci_low``, ``updated_b_ci_high``, ``rp`` (updated A over
        updated B), ``rp_ci_low``, ``rp_ci_high``, ``n_resamples``, ``n_skipped`` (resamples
        where a ratio was undefined), ``note``.

    Notes
    -----
    Relative precision of the updated values, ``RP(pi) = P_A(pi) / P_B(pi)``, with a percentile
    interval from resampling the joint (truth, A, B) counts, so that the correlation of the two
    classifiers on shared observations is kept. The delta-method variance of RP (Gondara, eq. 18)
    does not apply to updated precisions. Since ``odds(P(pi))`` is ``Se/(1 - Sp)`` times the
    prior odds, the order of the two updated precisions is the order of their positive
    likelihood ratios at every prevalence; only the size of the ratio moves (towards the ratio
    of likelihood ratios as pi -> 0, towards 1 as pi -> 1).

    References
    ----------
    Gondara (2018), "Classifier comparison using precision", §3.6, Table 10.
    Moskowitz & Pepe (2006), Clin Trials 3:272-279 (relative predictive values).

    Examples
    --------
    Gondara's Table 10 from the reproduced diabetic retinopathy test set (docs/methods.md §9,
    worked example 2), NB as A and RF as B, prevalences 0.3 (class 0) and 0.7 (class 1):

    >>> t = np.zeros((2, 2, 2), dtype=int)
    >>> t[0] = [[103, 45], [6, 11]]
    >>> t[1] = [[63, 64], [1, 53]]
    >>> y, a, b = np.unravel_index(np.repeat(np.arange(8), t.ravel()), t.shape)
    >>> tab = compare_updated_precision(y, a, b, prevalence={0: 0.3, 1: 0.7},
    ...                                 n_resamples=500, random_state=0)
    >>> tab[["class", "precision_a", "updated_a", "precision_b", "updated_b"]].round(4)
       class  precision_a  updated_a  precision_b  updated_b
    0      0       0.5382     0.3540       0.6301     0.4447
    1      1       0.7606     0.8711       0.6763     0.8163

    The paper prints 0.35, 0.45, 0.87 and 0.81. Class 0 loses precision because it is rarer
    in the population than in the test set; class 1 gains.
    """
    if y_pred_b is None:
        raise ValueError("y_pred_b must hold the predictions of classifier B; got None")
    level = check_probability(confidence_level, "confidence_level")
    B = check_positive_int(n_resamples, "n_resamples")
    boot = prevalence_bootstrap(y_true, y_pred_a, y_pred_b, labels=labels, n_resamples=B,
                                random_state=random_state)
    prevalences, sum_note = _prevalence_map(boot, prevalence, positive)
    rows = []
    for k, pi in prevalences.items():
        point, reps = boot.updated(boot.classes[k], pi)
        lo, hi, _ = percentile_interval(reps, level)
        rp, ratio = boot.ratio(boot.classes[k], pi)
        r_lo, r_hi, r_skipped = percentile_interval(ratio[:, None], level)
        notes = [f"class {boot.classes[k]!r}: precision of {boot.names[j]} undefined "
                 "(never predicted)" for j in range(2) if np.isnan(point[j])]
        rows.append({
            "class": boot.classes[k], "prevalence": pi,
            "sample_prevalence": boot.sample_prevalence[k],
            "precision_a": boot.precision[0, k], "precision_b": boot.precision[1, k],
            "updated_a": float(point[0]), "updated_a_ci_low": float(lo[0]),
            "updated_a_ci_high": float(hi[0]),
            "updated_b": float(point[1]), "updated_b_ci_low": float(lo[1]),
            "updated_b_ci_high": float(hi[1]),
            "rp": float(rp), "rp_ci_low": float(r_lo[0]), "rp_ci_high": float(r_hi[0]),
            "n_resamples": B, "n_skipped": int(r_skipped[0]),
            "note": _finish_note(*notes, sum_note),
        })
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PatternPrevalenceBootstrap:
    """Prevalence-adjusted precision of several models from pattern counts, with intervals.

    Attributes
    ----------
    test_prevalence : ndarray (C,)
        Share of the counted rows truly in each requested class.
    precision, adjusted, ci_low, ci_high : ndarray (C, m)
        Test-set precision; precision at the given prevalence and its interval
        (:func:`prevalence_interval`: Wilson bounds on sensitivity and false-positive rate).
    notes : list of list of str
        Why a value is missing, or how many resamples were skipped.
    boot : ndarray (B, C, m)
        The bootstrap replicates of the adjusted precision (paired across models).
    confidence_level : float
    half_low, half_high : ndarray (C, m), optional
        The same interval at level ``1 - alpha / 2``, for ratios at a boundary.
    boundary : ndarray of bool (C, m), optional
        The model has no false positives or no true positives for the class: its bootstrap
        replicates cannot move off 1 (or 0).
    """

    test_prevalence: np.ndarray
    precision: np.ndarray
    adjusted: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    notes: list
    boot: np.ndarray
    confidence_level: float
    half_low: np.ndarray | None = None
    half_high: np.ndarray | None = None
    boundary: np.ndarray | None = None

    def ratio(self, c: int, a: int, b: int) -> tuple[float, float, float]:
        """Return the ratio of adjusted precisions of model ``a`` over model ``b`` for class ``c``.

        The interval is the percentile interval of the paired bootstrap replicates' ratio. Where
        either model has no false or no true positives for the class its replicates cannot
        move, and the percentile interval would understate the uncertainty (two models with no
        false positives give [1, 1]); there the ratio's ends are those of the two models'
        intervals, each at level ``1 - alpha / 2`` (Bonferroni): ``low_a / high_b`` and
        ``high_a / low_b``, conservative.

        Parameters
        ----------
        c, a, b : int
            Class index and the indices of the two models.

        Returns
        -------
        tuple of float
            ``(low, estimate, high)``.
        """
        est = float(_safe_ratio(self.adjusted[c, a], self.adjusted[c, b]))
        if self.boundary is not None and (self.boundary[c, a] or self.boundary[c, b]):
            assert self.half_low is not None and self.half_high is not None
            low = float(_safe_ratio(self.half_low[c, a], self.half_high[c, b]))
            high = float(_safe_ratio(self.half_high[c, a], self.half_low[c, b]))
            if not (np.isfinite(est) and np.isfinite(low) and np.isfinite(high)):
                return np.nan, est, np.nan  # B's precision may be 0: the ratio is unbounded
            return low, est, high
        rep = _safe_ratio(self.boot[:, c, a], self.boot[:, c, b])
        lo, hi, _ = percentile_interval(rep[:, None], self.confidence_level)
        return float(lo[0]), est, float(hi[0])


def _one_vs_rest(y: np.ndarray, p: np.ndarray, classes: npt.ArrayLike):
    """Per-row indicators (P, C) of the truth and (P, C, m) of the predictions."""
    codes = np.asarray(classes, dtype=np.int64)
    truth = (y[:, None] == codes[None, :]).astype(float)
    pred = (p[:, None, :] == codes[None, :, None]).astype(float)
    return truth, pred


def _rates_from_weights(weights: np.ndarray, true: np.ndarray, called: np.ndarray,
                        hit: np.ndarray, size: np.ndarray):
    """Se, Sp and precision of every model for every class under unit weights (B, G).

    Unit ``g`` has ``size[g]`` rows, ``true[g, c]`` of true class ``c``, ``called[g, c, j]``
    predicted as class ``c`` by model ``j`` and ``hit[g, c, j]`` of those truly of it. Every
    sum is of whole numbers, so it is exact in any order.
    """
    n = (weights @ size)[:, None, None]
    pos = (weights @ true)[:, :, None]
    shape = (len(weights), *called.shape[1:])
    c = (weights @ called.reshape(len(called), -1)).reshape(shape)
    tp = (weights @ hit.reshape(len(hit), -1)).reshape(shape)
    se = _safe_ratio(tp, pos + 0 * tp)
    sp = _safe_ratio((n - pos) - (c - tp), (n - pos) + 0 * tp)
    return se, sp, _safe_ratio(tp, c)


def _unit_bootstrap(true: np.ndarray, called: np.ndarray, hit: np.ndarray, size: np.ndarray,
                    count: np.ndarray, pi: np.ndarray, b_total: int, level: float,
                    rng: np.random.Generator) -> PatternPrevalenceBootstrap:
    """Run the bootstrap of :func:`prevalence_bootstrap_from_patterns` on units and their counts.

    ``count[g]`` units are alike (the sums of :func:`_rates_from_weights`); a resample draws
    ``sum(count)`` units, each equally likely, as a multinomial draw of the counts.
    """
    w = count.astype(float)
    se, sp, prec = (v[0] for v in _rates_from_weights(w[None, :], true, called, hit, size))
    adjusted = _ppv(se, sp, pi[:, None])
    total = int(count.sum())
    chunk = max(1, int(2e7 // max(len(w), 1)))
    reps = []
    for start in range(0, b_total, chunk):
        draws = rng.multinomial(total, w / total, size=min(chunk, b_total - start)).astype(float)
        s, q, _ = _rates_from_weights(draws, true, called, hit, size)
        reps.append(_ppv(s, q, pi[None, :, None]))
    boot = np.concatenate(reps, axis=0)
    _, _, skipped = percentile_interval(boot, level)
    lo, hi, half_lo, half_hi, boundary = _rate_intervals(w, true, called, hit, size, pi, level)
    notes = []
    for c in range(len(pi)):
        row = []
        for j in range(called.shape[2]):
            if np.isnan(adjusted[c, j]):
                row.append("never predicted and never missed: sensitivity 0, specificity 1")
            elif skipped[c, j]:
                row.append(f"{int(skipped[c, j])} of {b_total} resamples undefined, skipped")
            else:
                row.append("")
        notes.append(row)
    test_prev = (w @ true) / (w @ size)
    return PatternPrevalenceBootstrap(
        test_prevalence=test_prev, precision=prec, adjusted=adjusted, ci_low=lo, ci_high=hi,
        notes=notes, boot=boot, confidence_level=level, half_low=half_lo, half_high=half_hi,
        boundary=boundary)


def _rate_intervals(w: np.ndarray, true: np.ndarray, called: np.ndarray, hit: np.ndarray,
                    size: np.ndarray, pi: np.ndarray, level: float) -> tuple[np.ndarray, ...]:
    """:func:`prevalence_interval` of every class and model from unit counts, (C, m) each.

    Units of several rows (an observation's repeats in cross-validation) count as one
    observation each: the counts are divided by the mean rows per unit, so that repeated
    predictions of an observation do not pass for independent ones.
    """
    per_unit = float(w @ size) / float(w.sum())
    n = float(w @ size) / per_unit
    pos = (w @ true)[:, None] / per_unit
    called_n = np.einsum("g,gcj->cj", w, called) / per_unit
    tp = np.einsum("g,gcj->cj", w, hit) / per_unit
    fp, neg = called_n - tp, n - pos
    prev = pi[:, None]
    lo, hi = prevalence_interval(tp, pos + 0 * tp, fp, neg + 0 * tp, prev, confidence_level=level)
    half = 1 - (1 - level) / 2
    half_lo, half_hi = prevalence_interval(tp, pos + 0 * tp, fp, neg + 0 * tp, prev,
                                           confidence_level=half)
    return lo, hi, half_lo, half_hi, (fp == 0) | (tp == 0)


def prevalence_bootstrap_from_patterns(
    y: Any,
    preds: Any,
    weights: Any,
    *,
    classes: Sequence[int],
    prevalence: Sequence[float],
    clusters: Any = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    random_state: Any = None,
) -> PatternPrevalenceBootstrap:
    """Precision at a population prevalence (Gondara, eq. 28) for m models, from pattern counts.

    Parameters
    ----------
    y : array-like of int (P,)
        True class code of each pattern row.
    preds : array-like of int (P, m)
        Predicted class codes of the m models.
    weights : array-like of int (P,)
        Rows with each pattern.
    classes : sequence of int
        The class codes to update (C of them).
    prevalence : sequence of float
        Population prevalence of each, in [0, 1].
    clusters : array-like of int >= 0 (P,), optional
        Observation of each pattern row when rows repeat observations (repeated
        cross-validation): the observations are resampled, each with all its rows.
    n_resamples : int
    confidence_level : float
    random_state : None, int or Generator

    Returns
    -------
    PatternPrevalenceBootstrap

    Notes
    -----
    The bootstrap never touches rows: a resample is a multinomial draw of the pattern counts
    (probabilities ``count / n``), or of the observations (each equally likely) when
    ``clusters`` is given, drawn through the observations' profiles
    (:func:`prevalence_bootstrap_from_profiles`); sensitivity, specificity and the updated
    precision are recomputed
    from the resampled counts, paired across models, so the ratio of two models' updated
    precisions has a percentile interval too (docs/methods.md §9).

    Examples
    --------
    docs/methods.md §9, worked example 1 (TP 45, FN 15, FP 10, TN 130; prevalence 0.1):

    >>> res = prevalence_bootstrap_from_patterns([1, 1, 0, 0], [[1], [0], [1], [0]],
    ...                                          [45, 15, 10, 130], classes=[1],
    ...                                          prevalence=[0.1], random_state=0)
    >>> round(float(res.adjusted[0, 0]), 6)
    0.538462
    """
    y = _counts.check_pattern_codes(y, "y")
    p = _counts.check_pattern_codes(preds, "preds", n_rows=len(y), ndims=(1, 2)).reshape(len(y), -1)
    w = _counts.check_pattern_weights(weights, len(y))
    if not w.sum():
        raise ValueError("weights must not all be zero")
    class_codes = _counts.check_pattern_codes(classes, "classes")
    b_total = check_positive_int(n_resamples, "n_resamples")
    level = check_probability(confidence_level, "confidence_level")
    pi = as_unit_interval(prevalence, "prevalence", ndim=1)
    if len(pi) != len(class_codes):
        raise ValueError(f"prevalence must hold one value per entry of classes ({len(class_codes)}); "
                         f"got {len(pi)}")
    if clusters is not None:
        clusters = _counts.check_pattern_codes(clusters, "clusters", n_rows=len(y),
                                        what="observation codes")
        profiles = [class_profiles(clusters, y, p, w, classes=[c]) for c in class_codes]
        return prevalence_bootstrap_from_profiles(
            profiles, prevalence=pi, n_resamples=b_total, confidence_level=level,
            random_state=random_state)
    rng = check_random_state(random_state)
    truth, pred = _one_vs_rest(y, p, class_codes)
    return _unit_bootstrap(truth, pred, pred * truth[:, :, None], np.ones(len(y)), w, pi,
                           b_total, level, rng)


def prevalence_bootstrap_from_profiles(
    profiles: ClassProfiles | Sequence[ClassProfiles],
    *,
    prevalence: npt.ArrayLike,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    random_state: Any = None,
) -> PatternPrevalenceBootstrap:
    """Precision at a population prevalence for m models, resampling clusters by their profiles.

    The cluster bootstrap of :func:`prevalence_bootstrap_from_patterns` (``clusters`` given)
    from :class:`precmp_lib.core.clusters.ClassProfiles`, which an engine computes where the data
    live: a resample draws as many clusters as there are, each equally likely, as a
    multinomial draw of the profiles' cluster counts (clusters with one profile are
    interchangeable), so nothing per observation is needed.

    Parameters
    ----------
    profiles : ClassProfiles, or a sequence of them
        The clusters' profiles over the classes to update. Given a sequence (one
        ``ClassProfiles`` a class, as :func:`precmp_lib.count_predictions` returns them), each
        is resampled on its own, in order, from the one random stream: the result's classes
        are theirs in turn. A class's profiles are far fewer than those over several classes
        at once, and nothing the result reports is joint across classes.
    prevalence : sequence of float
        Population prevalence of each profiled class, in [0, 1].
    n_resamples : int
    confidence_level : float
    random_state : None, int or Generator

    Returns
    -------
    PatternPrevalenceBootstrap

    Examples
    --------
    Ten observations predicted twice by one model; class 1 at a prevalence of 0.2:

    >>> obs = np.repeat(np.arange(10), 2)
    >>> y = np.repeat([1] * 4 + [0] * 6, 2)
    >>> pred = np.array([1, 1, 1, 0, 1, 1, 0, 0] + [0, 0] * 5 + [1, 0])
    >>> prof = class_profiles(obs, y, pred[:, None], np.ones(20, int), classes=[1])
    >>> res = prevalence_bootstrap_from_profiles(prof, prevalence=[0.2], random_state=0)
    >>> # sensitivity 5/8, specificity 11/12: 0.2 * 5/8 / (0.2 * 5/8 + 0.8 / 12)
    >>> round(float(res.adjusted[0, 0]), 6), round(0.125 / (0.125 + 0.8 / 12), 6)
    (0.652174, 0.652174)
    """
    parts = [profiles] if isinstance(profiles, ClassProfiles) else profiles
    if isinstance(parts, str | bytes) or not isinstance(parts, Sequence) or not parts or not all(
            isinstance(q, ClassProfiles) for q in parts):
        raise TypeError("profiles must be ClassProfiles or a non-empty sequence of them; got "
                        f"{type(profiles).__name__}")
    b_total = check_positive_int(n_resamples, "n_resamples")
    level = check_probability(confidence_level, "confidence_level")
    pi = as_unit_interval(prevalence, "prevalence", ndim=1)
    c = sum(len(q.classes) for q in parts)
    if len(pi) != c:
        raise ValueError(f"prevalence must hold one value per profiled class ({c}); got {len(pi)}")
    if any(q.called.shape[2] != parts[0].called.shape[2] for q in parts):
        raise ValueError("profiles must all be of the same models")
    if not all(q.n_clusters for q in parts):
        raise ValueError("profiles must count at least one cluster")
    rng = check_random_state(random_state)
    results, at = [], 0
    for q in parts:
        k = len(q.classes)
        results.append(_unit_bootstrap(q.true.astype(float), q.called.astype(float),
                                       q.hit.astype(float), q.size.astype(float), q.count,
                                       pi[at:at + k], b_total, level, rng))
        at += k
    if len(results) == 1:
        return results[0]
    return PatternPrevalenceBootstrap(
        test_prevalence=np.concatenate([r.test_prevalence for r in results]),
        precision=np.concatenate([r.precision for r in results]),
        adjusted=np.concatenate([r.adjusted for r in results]),
        ci_low=np.concatenate([r.ci_low for r in results]),
        ci_high=np.concatenate([r.ci_high for r in results]),
        notes=[row for r in results for row in r.notes],
        boot=np.concatenate([r.boot for r in results], axis=1), confidence_level=level,
        **{name: np.concatenate([getattr(r, name) for r in results])
           for name in ("half_low", "half_high", "boundary")})
