"""``compare_models``: every number a comparison report shows, computed from counts.

The raw predictions are counted once (:func:`precmp_lib.engine.predictions.count_predictions`, or a
:class:`~precmp_lib.core.predictions.Counts` passed in); every table below is a pure function of those
pattern counts, through the count-taking functions of the core modules. The result,
:class:`ModelComparison`, is frozen and round-trips through JSON, which is what the report
template receives: the report only displays it.

Two designs are recognised from the counts:

one test set of n observations
    accuracy with Wilson intervals; exact McNemar per pair (mid-p when b + c < 25); per-class
    GS, weighted GS, GEE Wald and relative precision from each pair's joint cells.
r x k cross-validation of n observations
    accuracy with intervals clustered on the observation; the corrected repeated k-fold t-test
    (Nadeau & Bengio with Bouckaert & Frank's r x k form) on per-fold accuracy differences, and
    the 5 x 2cv t and F when the design is 5 x 2; the per-class tests clustered on the
    observation (docs/methods.md §7, Algorithm 2).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._lib.checks import check_positive_int, check_probability, check_random_state
from ..core.clusters import (
    ClassProfiles,
    ClusterSums,
    class_profiles,
    clustered_accuracy_from_sums,
)
from ..core.counts import (
    PrecisionMoments,
    moments_from_patterns,
    pair_cells_from_patterns,
    weighted_gram,
)
from ..core.predictions import Counts
from ..engine.base import REPEATED_CV
from ..engine.predictions import count_predictions
from ..stats.allpairs import discordant_counts, mcnemar_all, pair_index
from ..stats.bayesian import bayes_correlated_ttest
from ..stats.combine import combine_pvalues, combined_precision_test
from ..stats.contingency import mcnemar
from ..stats.intervals import mcnemar_dual_interval, wilson_interval
from ..stats.multiple import adjust_pvalues, holm_levels
from ..stats.paired import PairedSums, equivalence_test_from_sums
from ..stats.power import (
    minimum_detectable_difference_from_counts,
    minimum_detectable_difference_from_interval,
)
from ..stats.precision import compare_precision_from_counts
from ..stats.precision_gee import compare_precision_from_moments, gee_precision_from_counts
from ..stats.prevalence import (
    prevalence_bootstrap_from_patterns,
    prevalence_bootstrap_from_profiles,
)
from ..stats.resampling import corrected_resampled_ttest, ftest_5x2cv, ttest_5x2cv
from .base import Comparison, best_group, by_score
from .items import FAMILIES, MANY_MODELS
from .prediction_conclusions import NOT_ESTIMABLE, POWER, ROPE, _conclusions, count_of

__all__ = ["ModelComparison", "all_pairs_accuracy", "compare_models", "correctness_products",
           "model_pairs"]

# Exact McNemar is conservative with few discordant pairs; below this the mid-p is used.
MIDP_BELOW = 25
# Warnings: fewer observations, discordant pairs or predictions of a class than these.
SMALL_N, SMALL_DISCORDANT, SMALL_PREDICTED = 30, 10, 5
# Dai–Cui's swap-permutation null needs the K^3 joint table of a pair: up to this many classes.
DAI_CUI_MAX_CLASSES = 30
# ... and each pair draws its own permutations: beyond this many pairs, Simes alone (the
# permutations of 435 pairs of 30 models would dominate the run time).
DAI_CUI_MAX_PAIRS = 45


@dataclass(frozen=True, kw_only=True)
class ModelComparison(Comparison):
    """Everything a comparison of several classifiers on one data set shows (route ``"predictions"``).

    The core fields and the JSON codec are :class:`~precmp_lib.compare.base.Comparison`'s.

    Attributes
    ----------
    summary : DataFrame
        ``model``, ``n`` (predictions), ``n_observations``, ``accuracy``, ``ci_low``,
        ``ci_high``, ``rank`` (1 = most accurate), ``best`` (in the best group); one row per
        model in the order of the data (or of ``models``).
    pairs : DataFrame
        ``model_a``, ``model_b``, ``test``, ``estimate`` (accuracy A - B), ``ci_low``,
        ``ci_high``, ``statistic``, ``df``, ``pvalue``, ``pvalue_adjusted`` (Holm across pairs),
        ``reject``, ``b``, ``c`` (test set: only A right, only B right), ``note``; for a 5 x 2
        design also ``t5x2_statistic``, ``t5x2_pvalue``, ``f5x2_statistic``, ``f5x2_pvalue``;
        for repeated cv with the Bayesian correlated t, ``p_a_better``, ``p_rope``,
        ``p_b_better``. One family: every pair, the better-ranked model as A; or, with a
        reference, each model against the reference (the reference as B).
    per_class : DataFrame
        The columns of :func:`precmp_lib.stats.precision.compare_precision` with ``model_a``,
        ``model_b`` in front and ``gs_pvalue_adjusted`` (Holm across classes x pairs).
    gee, gee_pairwise, gee_coefficients : DataFrame
        Joint Wald test of equal precision of all models per class (``class``, ``statistic``,
        ``df``, ``pvalue``, ``pvalue_adjusted`` (Holm across classes), ``note``), the GEE
        pairwise table (:attr:`precmp_lib.stats.precision_gee.GEEPrecisionResult.pairwise`, whose
        ``pvalue_holm`` keeps the name the public API gives it) and each model's precision
        odds ratio against the reference (the first model by default).
    combined : DataFrame
        One p-value per pair across classes: ``model_a``, ``model_b``, ``method``, ``pvalue``,
        ``pvalue_adjusted``, ``simes_pvalue``, ``dai_cui_pvalue``, ``n_classes``, ``classes_driving``.
    prevalence, prevalence_ratio : DataFrame
        Precision at a given population prevalence with bootstrap intervals, and the ratio
        between models (empty when no prevalence is given).
    class_counts, precision : DataFrame
        Per class: ``n_true`` and ``n_pred_<j>`` counts; precision of every model per class.
    fold_scores : DataFrame
        Repeated cv: ``repeat``, ``fold``, ``n_test`` and one accuracy column per model.
    all_pairs : DataFrame
        With more than ``MANY_MODELS`` models on one test set: every pair's McNemar test at
        once from the correctness matrix products (:func:`all_pairs_accuracy`), ``model_a``,
        ``model_b``, ``estimate``, ``b``, ``c``, ``test``, ``statistic``, ``pvalue``,
        ``pvalue_adjusted`` (Holm over all k (k - 1) / 2 pairs), ``reject``; empty otherwise.
    best : list of str
        The recommended group, most accurate first, decided by the pairs table alone: with
        every pair, the most accurate model and the models not shown worse than it at
        ``alpha`` after Holm's adjustment; against a reference, the models shown more accurate
        than the reference or, when none is, the reference and the models not shown to differ
        from it (:func:`~precmp_lib.compare.base.best_group`: equal accuracies keep the
        models' order).
    recommendation : str
        One sentence saying what to use (or that the best are not shown to differ, with the
        difference the data would detect).
    conclusions : list of str
        At most five short points behind the recommendation.
    details : list of str
        Longer lines: each quoted pair with its difference, interval and adjusted p-value
        (the pair named first, as the pairs table writes it), the classes that drive a
        precision difference, precision at the given prevalence.
    warnings : list of str
        Small-sample warnings, one line per kind.
    warning_items : list of list of str
        For each warning, the pairs or models it is about (empty when it is about the data).
    design : dict
        ``design`` ("test set" or "repeated cv"), ``repeats``, ``folds``, ``observations``,
        ``rows``, ``description``.

    Notes
    -----
    Every table with an adjusted p-value (``pairs``, ``per_class``, ``gee``, ``combined``)
    names the adjustment in ``attrs["adjustment"]`` (``"holm"``); :meth:`to_json` keeps a
    table's ``attrs`` and :meth:`from_json` restores them:

    >>> df = pd.DataFrame({"y": [0, 1] * 20, "a": [0, 1] * 20, "b": [1, 1] * 20})
    >>> back = ModelComparison.from_json(compare_models(df, y_true="y").to_json())
    >>> back.best, back.pairs.attrs["adjustment"]
    (['a'], 'holm')

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import compare_models
    >>> df = pd.DataFrame({"y": [0, 1] * 20, "a": [0, 1] * 20, "b": [0, 0] * 20})
    >>> cmp = compare_models(df, y_true="y")
    >>> cmp.summary[["model", "accuracy"]].to_dict("list")
    {'model': ['a', 'b'], 'accuracy': [1.0, 0.5]}
    >>> cmp.best
    ['a']

    Model ``a`` is right on all 40 rows and ``b`` on half of them: only ``a`` is recommended.
    """

    kind: ClassVar[str] = "predictions"
    classes: list
    reference: str | None
    per_class: pd.DataFrame
    gee: pd.DataFrame
    gee_pairwise: pd.DataFrame
    gee_coefficients: pd.DataFrame
    combined: pd.DataFrame
    prevalence: pd.DataFrame
    prevalence_ratio: pd.DataFrame
    class_counts: pd.DataFrame
    precision: pd.DataFrame
    fold_scores: pd.DataFrame
    all_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    details: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    warning_items: list = field(default_factory=list)


def model_pairs(models: Sequence[str], reference: str | None = None) -> list[tuple[str, str]]:
    """List every pair of models, or each model against ``reference``.

    Parameters
    ----------
    models : sequence of str
        At least two model names, each once.
    reference : str, optional
        One of ``models``: pair every other model with it.

    Returns
    -------
    list of (str, str)
        The pairs (model A, model B) in the order of ``models``; against a reference, the
        reference is always model B.

    Raises
    ------
    ValueError
        When ``models`` is not a sequence of at least two distinct names, or ``reference`` is
        not one of them.

    Examples
    --------
    >>> model_pairs(["a", "b", "c"])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> model_pairs(["a", "b", "c"], reference="b")
    [('a', 'b'), ('c', 'b')]
    """
    if isinstance(models, str | bytes) or not isinstance(models, Iterable):
        raise ValueError(f"models must be a sequence of model names; got {models!r:.80}")
    models = list(models)
    if len(models) < 2 or len(set(models)) != len(models):
        raise ValueError(f"models must name at least two models, each once; got {models!r:.80}")
    if reference is None:
        return list(combinations(models, 2))
    if reference not in models:
        raise ValueError(f"reference must be one of the models {models}; got {reference!r}")
    return [(m, reference) for m in models if m != reference]


# --------------------------------------------------------------------------------------------
# the pieces, each a function of the counts
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Arrays:
    """The pattern table as arrays: truth, predictions (P x m), counts."""

    y: np.ndarray
    p: np.ndarray
    w: np.ndarray

    @classmethod
    def of(cls, table: pd.DataFrame, m: int) -> _Arrays:
        """Read the columns ``y``, ``p0`` .. ``p{m-1}`` and ``count`` of a pattern table."""
        return cls(y=table["y"].to_numpy(np.int64),
                   p=table[[f"p{j}" for j in range(m)]].to_numpy(np.int64).reshape(len(table), m),
                   w=table["count"].to_numpy(np.int64))


@dataclass(frozen=True)
class _Observations(_Arrays):
    """The per-observation pattern table (repeated cv) as arrays, with each row's observation."""

    ids: np.ndarray

    @classmethod
    def of(cls, table: pd.DataFrame, m: int) -> _Observations:
        """Read a per-observation table: the pattern columns and ``obs``."""
        base = _Arrays.of(table, m)
        return cls(y=base.y, p=base.p, w=base.w, ids=table["obs"].to_numpy(np.int64))


def _design(counts: Counts) -> dict:
    n = counts.n_observations
    if counts.design == REPEATED_CV:
        text = f"{counts.repeats} × {counts.folds} cross-validation of {n:,} observations"
        if counts.repeats == 1:  # plain k-fold: a fold column and no repeat column
            text = (f"k-fold cross-validation, 1 repeat, {counts.folds} folds, of {n:,} "
                    "observations")
        return {"design": REPEATED_CV, "repeats": counts.repeats, "folds": counts.folds,
                "observations": n, "rows": counts.n_rows, "description": text}
    return {"design": "test set", "repeats": None, "folds": None, "observations": n,
            "rows": counts.n_rows, "description": f"one test set of {n:,} observations"}


def _summary(counts: Counts, pat: _Arrays, sums: ClusterSums | None,
             level: float) -> pd.DataFrame:
    rows = []
    for j, name in enumerate(counts.models):
        right = int(pat.w[pat.p[:, j] == pat.y].sum())
        if sums is None:
            acc = right / counts.n_rows
            lo, hi = wilson_interval(right, counts.n_rows, confidence_level=level)
        else:
            acc, lo, hi = clustered_accuracy_from_sums(sums, j, confidence_level=level)
            if not hi > lo:  # right (or wrong) on every row: no spread to cluster on
                lo, hi = wilson_interval(acc * counts.n_observations, counts.n_observations,
                                         confidence_level=level)
        rows.append({"model": name, "n": counts.n_rows, "n_observations": counts.n_observations,
                     "accuracy": acc, "ci_low": lo, "ci_high": hi})
    out = pd.DataFrame(rows)
    out["rank"] = out["accuracy"].rank(ascending=False, method="min").astype(int)
    return out  # models in the order of the data (or of ``models``)


def _fold_scores(counts: Counts, pat: _Arrays) -> pd.DataFrame:
    t = counts.patterns
    key = t["repeat"].to_numpy(np.int64) * (counts.folds or 1) + t["fold"].to_numpy(np.int64)
    uniq, inv = np.unique(key, return_inverse=True)
    size = np.bincount(inv, weights=pat.w)
    out = pd.DataFrame({"repeat": uniq // (counts.folds or 1), "fold": uniq % (counts.folds or 1),
                        "n_test": size.astype(np.int64)})
    for j, name in enumerate(counts.models):
        out[name] = np.bincount(inv, weights=pat.w * (pat.p[:, j] == pat.y)) / size
    return out


def correctness_products(counts: Counts) -> tuple[np.ndarray, np.ndarray]:
    """Return every model's right predictions and the correctness matrix product, from the counts.

    With R the rows x models 0/1 matrix "model j is right on this row", ``sums = Rᵀ1`` and
    ``gram = RᵀR`` (the rows both models of a pair get right). The counts hold each distinct
    pattern of predictions once with its count w, so both come from the pattern table in one
    product, ``Rₚᵀ diag(w) Rₚ``: every pair's McNemar table follows (B = Rᵀ1 − RᵀR), and
    no pass over the rows or the patterns is made per pair.

    Parameters
    ----------
    counts : Counts
        The prediction patterns of any engine.

    Returns
    -------
    (ndarray (m,), ndarray (m, m))
        Integral floats: right predictions per model, and per pair of models.

    Examples
    --------
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0], "a": [0, 1, 0, 0], "b": [1, 1, 1, 0]})
    >>> sums, gram = correctness_products(count_predictions(df, y_true="y"))
    >>> sums.tolist(), gram.tolist()
    ([3.0, 3.0], [[3.0, 2.0], [2.0, 3.0]])
    """
    pat = _Arrays.of(counts.patterns, counts.n_models)
    gram = weighted_gram(pat.p == pat.y[:, None], pat.w).astype(np.float64)
    return np.diagonal(gram).copy(), gram


def all_pairs_accuracy(counts: Counts, alpha: float = 0.05,
                       reference: int | None = None) -> pd.DataFrame:
    """Every pair's McNemar test of accuracy at once, from :func:`correctness_products`.

    The test each pair gets is the per-pair table's (:func:`compare_models`' ``pairs``): exact
    McNemar, or the mid-p when b + c < ``MIDP_BELOW``; Holm's adjustment over the family.
    A one-test-set design only (cross-validated predictions are compared fold by fold).

    Parameters
    ----------
    counts : Counts
    alpha : float
        Level of ``reject``.
    reference : int, optional
        Each model against this one (m − 1 pairs) instead of every pair.

    Returns
    -------
    DataFrame
        ``model_a``, ``model_b`` (the models' order: a before b, or the reference as a),
        ``estimate`` (accuracy a − b), ``b``, ``c``, ``test``, ``statistic``, ``pvalue``,
        ``pvalue_adjusted``, ``reject``.

    Examples
    --------
    >>> df = pd.DataFrame({"y": [0, 1] * 20, "a": [0, 1] * 20, "b": [0, 0] * 20,
    ...                    "c": [1, 1] * 20})
    >>> t = all_pairs_accuracy(count_predictions(df, y_true="y"))
    >>> t[["model_a", "model_b", "b", "c", "test", "reject"]]
      model_a model_b   b   c           test  reject
    0       a       b  20   0  McNemar mid-p    True
    1       a       c  20   0  McNemar mid-p    True
    2       b       c  20  20  McNemar exact   False

    Model a is right on every row, b and c each on half of them, never the same half.
    """
    sums, gram = correctness_products(counts)
    a, b = pair_index(counts.n_models, reference)
    only_a, only_b = discordant_counts(sums, gram, a, b)
    stat, p = mcnemar_all(only_a, only_b, "exact")
    small = (only_a + only_b) < MIDP_BELOW
    if small.any():
        stat_m, p_m = mcnemar_all(only_a[small], only_b[small], "midp")
        stat[small], p[small] = stat_m, p_m
    names = np.asarray(counts.models, dtype=object)
    out = pd.DataFrame({"model_a": names[a], "model_b": names[b],
                        "estimate": (only_a - only_b) / counts.n_rows,
                        "b": only_a.astype(np.int64), "c": only_b.astype(np.int64),
                        "test": np.where(small, "McNemar mid-p", "McNemar exact"),
                        "statistic": stat, "pvalue": p})
    out["pvalue_adjusted"] = adjust_pvalues(p, "holm")
    out["reject"] = out["pvalue_adjusted"] <= alpha
    out.attrs["adjustment"] = "holm"
    return out


def _test_set_pair(gram: np.ndarray, n: int, i: int, j: int, level: float) -> dict:
    """McNemar's test of one pair from the correctness product RᵀR (no pass over the rows)."""
    both = int(gram[i, j])
    only_a, only_b = int(gram[i, i]) - both, int(gram[j, j]) - both
    neither = n - both - only_a - only_b
    small = only_a + only_b < MIDP_BELOW
    res = mcnemar([[both, only_a], [only_b, neither]], method="midp" if small else "exact",
                  confidence_level=level)
    note = res.note
    if small and only_a + only_b:
        note = (f"b + c = {only_a + only_b} < {MIDP_BELOW}: mid-p (the exact test is "
                "conservative with few discordant pairs)")
    test = "McNemar mid-p" if small else "McNemar exact"
    return {"test": test, "estimate": res.estimate, "ci_low": res.ci_low, "ci_high": res.ci_high,
            "statistic": res.statistic, "df": np.nan, "pvalue": res.pvalue, "b": only_a,
            "c": only_b, "note": note}


POOLED_CAVEAT = ("pooled out-of-fold McNemar: each fold's predictions come from a model "
                 "trained on the other folds, and the test treats the k fitted models as one, so "
                 "it ignores the variation from training sets; the corrected t allows for it")


def _pooled_mcnemar(gram: np.ndarray, n: int, i: int, j: int, level: float) -> dict:
    """One repeat (plain k-fold): McNemar on the pooled out-of-fold predictions, each once."""
    res = _test_set_pair(gram, n, i, j, level)
    return {"pooled_test": res["test"], "pooled_pvalue": res["pvalue"], "pooled_b": res["b"],
            "pooled_c": res["c"]}


def _equivalence(pat: _Arrays, scores: pd.DataFrame | None, a: int, b: int, names: tuple,
                 ratio: float | None, margin: float, alpha: float) -> dict:
    """Two one-sided tests (TOST) that |accuracy A − B| < margin, each at ``alpha``.

    One test set: the z test of the paired difference of the 0/1 scores (Schuirmann's two
    one-sided tests on McNemar's table). Cross-validation: the corrected t on the per-fold
    differences, shifted by ∓margin (Nadeau & Bengio's variance, J - 1 degrees of freedom).
    """
    if scores is None:
        ra, rb = pat.p[:, a] == pat.y, pat.p[:, b] == pat.y
        sa, sb, both = (float(pat.w[ra].sum()), float(pat.w[rb].sum()),
                        float(pat.w[ra & rb].sum()))
        sums = PairedSums(n_items=int(pat.w.sum()), sum_a=sa, sum_b=sb, sum_a2=sa, sum_b2=sb,
                          sum_ab=both)
        res = equivalence_test_from_sums(sums, margin=margin, alpha=alpha)
        p_low, p_up = res.details.get("p_lower", np.nan), res.details.get("p_upper", np.nan)
        p = res.pvalue
    else:
        assert ratio is not None
        da, db = scores[names[0]].to_numpy(), scores[names[1]].to_numpy()
        p_low = corrected_resampled_ttest(da, db - margin, test_train_ratio=ratio,
                                          alternative="greater").pvalue
        p_up = corrected_resampled_ttest(da, db + margin, test_train_ratio=ratio,
                                         alternative="less").pvalue
        p = max(p_low, p_up)
    p = float(p) if np.isfinite(p) else 1.0  # no spread: equivalence is not shown
    return {"tost_pvalue": p, "tost_p_lower": float(p_low), "tost_p_upper": float(p_up),
            "equivalent": bool(p < alpha)}


def _cv_pair(scores: pd.DataFrame, a: str, b: str, ratio: float, counts: Counts,
             level: float) -> dict:
    res = corrected_resampled_ttest(scores[a].to_numpy(), scores[b].to_numpy(),
                                    test_train_ratio=ratio, confidence_level=level)
    row = {"test": f"corrected repeated k-fold t ({counts.repeats} × {counts.folds})",
           "estimate": res.estimate, "ci_low": res.ci_low, "ci_high": res.ci_high,
           "statistic": res.statistic, "df": res.df, "pvalue": res.pvalue, "b": np.nan,
           "c": np.nan, "note": res.note}
    if counts.repeats == 5 and counts.folds == 2:
        sa = scores[a].to_numpy().reshape(5, 2)
        sb = scores[b].to_numpy().reshape(5, 2)
        t5, f5 = ttest_5x2cv(sa, sb), ftest_5x2cv(sa, sb)
        row.update(t5x2_statistic=t5.statistic, t5x2_pvalue=t5.pvalue,
                   f5x2_statistic=f5.statistic, f5x2_pvalue=f5.pvalue)
        if t5.statistic * res.estimate < 0:
            sign = T5X2_SIGN.format(first=t5.details["first_difference"], estimate=res.estimate)
            row["note"] = f"{res.note}; {sign}" if res.note else sign
    return row


# The 5 x 2cv t's numerator is the first fold's difference alone (Dietterich 1998), so its sign
# is that fold's and can be opposite to the mean of all ten differences, the pair's estimate.
T5X2_SIGN = ("the 5 × 2cv t has the sign of the first fold's difference ({first:+.4f}), its "
             "numerator (Dietterich), opposite to the estimate, the mean of all ten "
             "({estimate:+.4f}); its p-value is two-sided, so only the sign differs")


def _test_train_ratio(scores: pd.DataFrame, n_obs: int) -> float:
    n_test = scores["n_test"].to_numpy(float)
    per_repeat = scores.groupby("repeat")["n_test"].transform("sum").to_numpy(float)
    train = (per_repeat - n_test).mean()
    if not train > 0:
        raise ValueError("the fold column holds one fold per repeat: every observation is in "
                         "the test fold and none is left to train on, so this is not "
                         "cross-validation; give each repeat two or more folds, or drop the "
                         "fold column (and the repeat column, if any) for one test set")
    return float(n_test.mean() / train)


def _pairs(counts: Counts, pat: _Arrays, scores: pd.DataFrame | None, pairs: list, alpha: float,
           level: float, margin: float | None = None) -> pd.DataFrame:
    index = {m: j for j, m in enumerate(counts.models)}
    ratio: float | None = None
    if scores is None or counts.repeats == 1:  # every pair's McNemar table at once
        gram = correctness_products(counts)[1]
    if scores is None:
        rows = [{"model_a": a, "model_b": b,
                 **_test_set_pair(gram, counts.n_rows, index[a], index[b], level)}
                for a, b in pairs]
    else:
        ratio = _test_train_ratio(scores, counts.n_observations)
        rows = [{"model_a": a, "model_b": b, **_cv_pair(scores, a, b, ratio, counts, level)}
                for a, b in pairs]
        if counts.repeats == 1:  # each observation once: its pooled McNemar table exists
            for row in rows:
                row.update(_pooled_mcnemar(gram, counts.n_rows, index[row["model_a"]],
                                           index[row["model_b"]], level))
                row["note"] = "; ".join(x for x in (row.get("note"), POOLED_CAVEAT) if x)
    if margin is not None:
        for row in rows:
            row.update(_equivalence(pat, scores, index[row["model_a"]], index[row["model_b"]],
                                    (row["model_a"], row["model_b"]), ratio, margin, alpha))
    out = not_estimable(pd.DataFrame(rows), "ci_low", "ci_high")
    out["mde"] = [_pair_mde(r, counts.n_rows, alpha) for r in out.itertuples()]
    out["pvalue_adjusted"] = adjust_pvalues(out["pvalue"].to_numpy(float), "holm")
    if "pooled_pvalue" in out:
        out["pooled_pvalue_adjusted"] = adjust_pvalues(out["pooled_pvalue"].to_numpy(float),
                                                       "holm")
    out["reject"] = out["pvalue_adjusted"] <= alpha
    out["holm_level"] = holm_levels(out["pvalue"].to_numpy(float), alpha)
    if scores is None:
        ends = [mcnemar_dual_interval(int(r.b), int(r.c), counts.n_rows,
                                      confidence_level=r.holm_level,
                                      method="midp" if r.test.endswith("mid-p") else "exact")
                if np.isfinite(r.holm_level) else (np.nan, np.nan) for r in out.itertuples()]
    else:
        ends = [_cv_interval(scores, r.model_a, r.model_b, ratio, r.holm_level)
                for r in out.itertuples()]
    lo, hi = (np.array([e[i] for e in ends], dtype=float).reshape(len(out)) for i in (0, 1))
    flat = ~(hi > lo)  # no width (or not defined): not estimable, as the unadjusted interval
    out["holm_ci_low"], out["holm_ci_high"] = np.where(flat, np.nan, lo), np.where(flat, np.nan, hi)
    out.attrs["adjustment"] = "holm"
    if ratio is not None:
        out.attrs["test_train_ratio"] = ratio
    first = ["model_a", "model_b", "test", "estimate", "ci_low", "ci_high", "statistic", "df",
             "pvalue", "pvalue_adjusted", "reject", "holm_level", "holm_ci_low", "holm_ci_high",
             "mde", "b", "c", "note"]
    return out[first + [c for c in out.columns if c not in first]]


def _cv_interval(scores: pd.DataFrame, a: str, b: str, ratio: float | None,
                 level: float) -> tuple[float, float]:
    """Return the corrected repeated k-fold t's interval of A - B at ``level`` (it inverts the t)."""
    if not np.isfinite(level) or ratio is None:
        return np.nan, np.nan
    res = corrected_resampled_ttest(scores[a].to_numpy(), scores[b].to_numpy(),
                                    test_train_ratio=ratio, confidence_level=level)
    return res.ci_low, res.ci_high


def _pair_mde(r: Any, n: int, alpha: float) -> float:
    """Return the accuracy difference the pair's data detect with 80 % power (two-sided).

    Test set: from McNemar's discordant counts; cross-validation: from the corrected t's
    interval (:mod:`precmp_lib.stats.power`). NaN when the differences do not vary.
    """
    if np.isfinite(r.b):
        return minimum_detectable_difference_from_counts(int(r.b), int(r.c), n, power=POWER,
                                                         alpha=alpha)
    return minimum_detectable_difference_from_interval(r.ci_low, r.ci_high, r.df, power=POWER,
                                                       alpha=alpha)


def _bayesian_columns(pairs: pd.DataFrame, scores: pd.DataFrame, counts: Counts,
                      ratio: float, rope: float = ROPE) -> pd.DataFrame:
    """Add P(A better), P(practically equivalent) and P(B better) to the pair table.

    From the Bayesian correlated t-test on the per-fold accuracies (Corani & Benavoli 2015);
    practically equivalent means ``|difference| <= rope`` (default ``ROPE``, one point).
    """
    assert counts.repeats is not None  # repeated cv: count_predictions sets the repeats
    cols: dict[str, list[float]] = {"p_a_better": [], "p_rope": [], "p_b_better": []}
    for a, b in zip(pairs["model_a"], pairs["model_b"]):
        res = bayes_correlated_ttest(scores[a].to_numpy(), scores[b].to_numpy(), rope=rope,
                                     runs=counts.repeats, test_train_ratio=ratio)
        cols["p_a_better"].append(res.p_a_better)
        cols["p_rope"].append(res.p_rope)
        cols["p_b_better"].append(res.p_b_better)
    return pairs.assign(**cols)


def _per_class(counts: Counts, pat: _Arrays, moments: Any, pairs: list,
               level: float, progress: bool = False) -> pd.DataFrame:
    index = {m: j for j, m in enumerate(counts.models)}
    frames = []
    for a, b in _bar(pairs, "pairs, class by class", progress):
        i, j = index[a], index[b]
        if counts.design == REPEATED_CV:
            tab = compare_precision_from_moments(moments, a=i, b=j, confidence_level=level)
        else:
            cells = pair_cells_from_patterns(pat.y, pat.p[:, i], pat.p[:, j], pat.w,
                                             n_classes=counts.n_classes)
            tab = compare_precision_from_counts(cells, classes=list(counts.classes),
                                                confidence_level=level)
        frames.append(tab)
    out = pd.concat(frames, ignore_index=True)
    # each pair's names beside its rows, set once (two inserts per pair cost more than its test)
    sizes = [len(tab) for tab in frames]
    out.insert(0, "model_b", np.repeat([b for _, b in pairs], sizes))
    out.insert(0, "model_a", np.repeat([a for a, _ in pairs], sizes))
    out["gs_pvalue_adjusted"] = adjust_pvalues(out["gs_pvalue"].to_numpy(float), "holm")
    out.attrs["adjustment"] = "holm"
    return not_estimable(out, "rp_ci_low", "rp_ci_high")


EQUAL_NOT_ESTIMABLE = "equal on these data; the interval is not estimable"


def not_estimable(frame: pd.DataFrame, low: str, high: str) -> pd.DataFrame:
    """Blank the intervals of no width and say why in ``note``: equal on these data.

    Two models that predict a class alike (or are both always right) give a ratio of 1 and
    an interval [1, 1]: the data hold no variation to estimate it from, which is not
    certainty. The ends become NaN (shown blank) and the note says so.

    >>> t = pd.DataFrame({"lo": [1.0, 0.9], "hi": [1.0, 1.2], "note": ["", "x"]})
    >>> not_estimable(t, "lo", "hi").to_dict("list")["note"]
    ['equal on these data; the interval is not estimable', 'x']
    """
    lo, hi = frame[low].to_numpy(float), frame[high].to_numpy(float)
    flat = np.isfinite(lo) & np.isfinite(hi) & (hi <= lo)
    if not flat.any():
        return frame
    out = frame.copy()
    out.loc[flat, [low, high]] = np.nan
    notes = out["note"].fillna("").astype(str)
    out.loc[flat, "note"] = [f"{n}; {EQUAL_NOT_ESTIMABLE}" if n else EQUAL_NOT_ESTIMABLE
                             for n in notes[flat]]
    return out


def _bar(items: list, desc: str, progress: bool) -> Any:
    """Return ``items``, behind a tqdm bar on stderr when ``progress`` (shown after a second)."""
    if not progress:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, delay=1.0, leave=False, file=sys.stderr)


def _joint_table(pat: _Arrays, i: int, j: int, k: int) -> np.ndarray:
    code = (pat.y * k + pat.p[:, i]) * k + pat.p[:, j]
    return np.bincount(code, weights=pat.w, minlength=k**3).round().astype(np.int64).reshape(k, k, k)


def _combined(counts: Counts, pat: _Arrays, per_class: pd.DataFrame, pairs: list, alpha: float,
              n_boot: int, seed: int) -> pd.DataFrame:
    index = {m: j for j, m in enumerate(counts.models)}
    k = counts.n_classes
    permute = (counts.design != REPEATED_CV and 2 <= k <= DAI_CUI_MAX_CLASSES
               and len(pairs) <= DAI_CUI_MAX_PAIRS)
    rng = np.random.default_rng(seed)
    # each pair's rows of the per-class table, found once (a mask per pair costs pairs x rows)
    rows_of = per_class.groupby(["model_a", "model_b"], sort=False).indices
    none = np.zeros(0, dtype=np.intp)
    gs = per_class["gs_pvalue"].to_numpy(float)
    gs_adjusted = per_class["gs_pvalue_adjusted"].to_numpy(float)
    classes = per_class["class"].to_numpy(object)
    rows = []
    for a, b in pairs:
        at = rows_of.get((a, b), none)
        p = gs[at][~np.isnan(gs[at])]
        simes = combine_pvalues(p, method="simes").pvalue if len(p) else np.nan
        dai = np.nan
        if permute and len(p):
            table = _joint_table(pat, index[a], index[b], k)
            dai = combined_precision_test(None, table=table, method="dai_cui",
                                          n_resamples=n_boot, random_state=rng).pvalue
        driving = classes[at][gs_adjusted[at] <= alpha]
        rows.append({"model_a": a, "model_b": b,
                     "method": "Dai–Cui (swap permutations)" if np.isfinite(dai) else "Simes",
                     "pvalue": dai if np.isfinite(dai) else simes, "simes_pvalue": simes,
                     "dai_cui_pvalue": dai, "n_classes": len(p),
                     "classes_driving": [_scalar(c) for c in driving]})
    out = pd.DataFrame(rows, columns=["model_a", "model_b", "method", "pvalue", "simes_pvalue",
                                      "dai_cui_pvalue", "n_classes", "classes_driving"])
    out.insert(4, "pvalue_adjusted", adjust_pvalues(out["pvalue"].to_numpy(float), "holm"))
    out.attrs["adjustment"] = "holm"
    return out


def _scalar(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def _class_tables(counts: Counts, pat: _Arrays, moments: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    k = counts.n_classes
    cc = pd.DataFrame({"class": list(counts.classes),
                       "n_true": np.bincount(pat.y, weights=pat.w, minlength=k).astype(np.int64),
                       **{f"n_pred_{j}": np.bincount(pat.p[:, j], weights=pat.w,
                                                     minlength=k).astype(np.int64)
                          for j in range(counts.n_models)}})
    tp, fp = moments.n_correct.astype(float), moments.n_wrong.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
    precision = pd.DataFrame(prec, columns=list(counts.models))
    precision.insert(0, "class", list(counts.classes))
    return cc, precision


def _oriented(pairs: list, summary: pd.DataFrame) -> list:
    """Put the better-ranked model of each pair first (ties keep the models' order)."""
    rank = dict(zip(summary["model"], summary["rank"]))
    return [(a, b) if rank[a] <= rank[b] else (b, a) for a, b in pairs]


def _prevalence_codes(counts: Counts, prevalence: Mapping[Any, float]
                      ) -> tuple[list[int], list[float]]:
    """Return the class code and the value of each entry of ``prevalence``.

    A class the data do not hold is a ValueError.
    """
    by_text = {str(c): code for code, c in enumerate(counts.classes)}
    codes, values = [], []
    for label, value in prevalence.items():
        if str(label) not in by_text:
            raise ValueError(f"prevalence: {label!r} is not one of the classes "
                             f"{[str(c) for c in counts.classes]}")
        codes.append(by_text[str(label)])
        values.append(float(value))
    return codes, values


def _profiles(counts: Counts, obs: _Observations | None,
              codes: list[int]) -> tuple[ClassProfiles, ...]:
    """Return the observations' profiles over each class of ``codes``.

    They are the engine's when it counted them, else made from the per-observation table.
    """
    have = {q.classes: q for q in counts.profiles or ()}
    if all((c,) in have for c in codes):
        return tuple(have[(c,)] for c in codes)
    if obs is None:
        labels = [counts.classes[c] for c in codes]
        raise ValueError("prevalence on repeated cross-validation resamples observations: count "
                         f"the predictions with prevalence_classes={labels!r} (or "
                         "observations=True)")
    return tuple(class_profiles(obs.ids, obs.y, obs.p, obs.w, classes=[c]) for c in codes)


def _prevalence(counts: Counts, pat: _Arrays, obs: _Observations | None,
                prevalence: Mapping[Any, float], pairs: list, level: float, n_boot: int,
                seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    cols = ["class", "model", "prevalence", "test_set_prevalence", "precision_test_set",
            "precision_at_prevalence", "ci_low", "ci_high", "note"]
    rcols = ["class", "model_a", "model_b", "ratio", "ci_low", "ci_high", "note"]
    if not prevalence:
        return pd.DataFrame(columns=cols), pd.DataFrame(columns=rcols)
    codes, values = _prevalence_codes(counts, prevalence)
    if counts.design == REPEATED_CV:
        res = prevalence_bootstrap_from_profiles(
            _profiles(counts, obs, codes), prevalence=values, n_resamples=n_boot,
            confidence_level=level, random_state=seed)
    else:
        res = prevalence_bootstrap_from_patterns(
            pat.y, pat.p, pat.w, classes=codes, prevalence=values, n_resamples=n_boot,
            confidence_level=level, random_state=seed)
    rows, ratios = [], []
    index = {m: j for j, m in enumerate(counts.models)}
    for c, (code, value) in enumerate(zip(codes, values)):
        label = counts.classes[code]
        for j, name in enumerate(counts.models):
            rows.append({"class": label, "model": name, "prevalence": value,
                         "test_set_prevalence": res.test_prevalence[c],
                         "precision_test_set": res.precision[c, j],
                         "precision_at_prevalence": res.adjusted[c, j],
                         "ci_low": res.ci_low[c, j], "ci_high": res.ci_high[c, j],
                         "note": res.notes[c][j]})
        for a, b in pairs:
            lo, est, hi = res.ratio(c, index[a], index[b])
            note = ""
            if np.isfinite(est) and not (np.isfinite(lo) and np.isfinite(hi)):
                note = f"{b}'s precision may be 0 here: the ratio is unbounded; {NOT_ESTIMABLE}"
            ratios.append({"class": label, "model_a": a, "model_b": b, "ratio": est,
                           "ci_low": lo, "ci_high": hi, "note": note})
    # two models that predict the class alike move together in every resample: ratio 1, [1, 1]
    return pd.DataFrame(rows, columns=cols), not_estimable(pd.DataFrame(ratios, columns=rcols),
                                                           "ci_low", "ci_high")


def _warnings(counts: Counts, pairs: pd.DataFrame,
              class_counts: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Small-sample warnings, one line per kind, and the pairs or models each line is about."""
    lines: list[str] = []
    items: list[list[str]] = []
    if counts.n_observations < SMALL_N:
        lines.append(f"Only {counts.n_observations} observations, fewer than {SMALL_N}: every "
                     "interval and p-value here is rough.")
        items.append([])
    if counts.design != REPEATED_CV:
        few = pairs[(pairs["b"] + pairs["c"]) < SMALL_DISCORDANT]
        if len(few):
            verb = "disagrees" if len(few) == 1 else "disagree"
            lines.append(f"{count_of(len(few), 'pair')} of models {verb} on fewer than "
                         f"{SMALL_DISCORDANT} observations (b + c < {SMALL_DISCORDANT}): "
                         "McNemar has little power there.")
            items.append([f"{r.model_a} − {r.model_b}: disagree on only {int(r.b + r.c)} "
                          "observations" for r in few.itertuples()])
    rare = []
    for j, name in enumerate(counts.models):
        low = class_counts.loc[class_counts[f"n_pred_{j}"] < SMALL_PREDICTED, "class"].tolist()
        if low:
            shown = ", ".join(map(str, low[:8])) + (f" and {len(low) - 8:,} more" if len(low) > 8 else "")
            rare.append(f"{name} predicts {count_of(len(low), 'class')} fewer than "
                        f"{SMALL_PREDICTED} times: {shown}")
    if rare:
        verb = "predicts" if len(rare) == 1 else "predict"
        lines.append(f"{count_of(len(rare), 'model')} {verb} some classes fewer than "
                     f"{SMALL_PREDICTED} times: their precision there is unreliable.")
        items.append(rare)
    return lines, items


# --------------------------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------------------------


def compare_models(
    source: Any,
    *,
    y_true: str | None = None,
    models: Sequence[str] | None = None,
    id: str | None = None,
    repeat: str | None = None,
    fold: str | None = None,
    layout: str = "auto",
    reference: str | None = None,
    alpha: float = 0.05,
    prevalence: Mapping[Any, float] | None = None,
    engine: str = "auto",
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    rope: float = ROPE,
    margin: float | None = None,
    model_column: str = "model",
    pred_column: str = "y_pred",
    family: str = "auto",
) -> ModelComparison:
    """Compare several classifiers' predictions of the same observations.

    Parameters
    ----------
    source : Counts, or anything :func:`precmp_lib.engine.predictions.count_predictions` takes
        The predictions, or their counts (then nothing is read again).
    y_true, models, id, repeat, fold, layout, engine, model_column, pred_column
        Passed to :func:`~precmp_lib.engine.predictions.count_predictions` (ignored for ``Counts``).
    reference : str, optional
        Compare every model with this one instead of every pair.
    alpha : float
        Level for decisions; intervals are at ``1 - alpha``.
    prevalence : mapping class -> float, optional
        Population prevalences for the prevalence-adjusted precision.
    n_boot : int
        Bootstrap resamples (prevalence intervals) and swap permutations (Dai–Cui); at least 2.
    seed : int
        Random seed of those resamples.
    progress : bool
        A progress bar on stderr over the pairs' class-by-class tests, shown when they take
        more than a second (many models: 200 take about half a minute).
    rope : float
        Cross-validation: the region of practical equivalence of the Bayesian correlated t,
        ``|accuracy A − B| <= rope`` (default 0.01, one point of accuracy).
    margin : float, optional
        Equivalence margin on the accuracy scale: each pair also gets two one-sided tests
        (TOST) at ``alpha`` that ``|accuracy A − B| < margin`` (``tost_pvalue``,
        ``equivalent``).
    family : {"auto", "all", "leader"}
        The pairs of the pair, class-by-class and combined tables, over which Holm's
        adjustment runs: ``"all"`` every pair (k (k - 1) / 2), ``"leader"`` each model against
        the most accurate one (k - 1); ``"auto"``: all pairs up to ``MANY_MODELS`` (10)
        models, the leader beyond. ``reference`` takes precedence. Beyond ``MANY_MODELS``
        models on one test set, every pair's accuracy McNemar test is also made at once
        from the correctness matrix (``all_pairs``, Holm over all pairs).

    Returns
    -------
    ModelComparison
        Every table and sentence of the comparison (see its attributes).

    Raises
    ------
    ValueError
        For an option out of range, a ``y_true`` that is not a column, fewer than two models,
        a ``reference`` that is not a model or a ``prevalence`` class the data do not hold.
    PredictionFileError
        (a ValueError) from :func:`~precmp_lib.engine.predictions.count_predictions` for predictions that
        cannot be counted.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [0, 1] * 50, "a": [0, 1] * 45 + [1, 0] * 5, "b": [0, 1] * 50})
    >>> cmp = compare_models(df, y_true="y")
    >>> cmp.design["description"], cmp.best
    ('one test set of 100 observations', ['b'])
    >>> cmp.pairs[["model_a", "model_b", "test", "b", "c"]]
      model_a model_b           test   b  c
    0       b       a  McNemar mid-p  10  0

    Model b is right on the ten observations where they disagree; with so few discordant
    pairs the mid-p McNemar test is used, and it shows b more accurate. The pair reads b − a:
    the better-ranked model comes first.

    >>> r = cmp.pairs.iloc[0]
    >>> cmp.recommendation == (f"Use b: it is more accurate than every other model by at least "
    ...                        f"10.0 points, 95 % CI {100 * r.holm_ci_low:.1f} to "
    ...                        f"{100 * r.holm_ci_high:.1f} against a.")
    True

    The interval beside a decision inverts the pair's test at the level of its Holm step
    (one pair: 95 %), so it excludes 0 exactly when the pair is shown to differ.

    """
    alpha, n_boot = _checked_options(alpha, n_boot, seed, prevalence)
    rope, margin = _checked_margins(rope, margin, alpha)
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}; got {family!r}")
    if isinstance(source, Counts):
        counts = source
    else:
        counts = _count(source, y_true, models=models, id=id, repeat=repeat, fold=fold,
                        layout=layout, engine=engine, model_column=model_column,
                        pred_column=pred_column,
                        prevalence_classes=list(prevalence) if prevalence else None)
    if counts.n_models < 2:
        raise ValueError(f"need at least two models to compare; got {list(counts.models)}")
    _prevalence_codes(counts, prevalence or {})
    return _compare_counts(counts, reference=reference, alpha=alpha, prevalence=prevalence or {},
                           n_boot=n_boot, seed=seed, progress=progress, rope=rope,
                           margin=margin, family=family)


def _checked_margins(rope: Any, margin: Any, alpha: float) -> tuple[float, float | None]:
    """Check the ROPE (>= 0) and the equivalence margin (> 0, with alpha below 0.5)."""
    def number(v: Any) -> bool:
        return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool) \
            and math.isfinite(float(v))
    if not number(rope) or float(rope) < 0:
        raise ValueError(f"rope must be a finite number >= 0; got {rope!r}")
    if margin is not None:
        if not number(margin) or not float(margin) > 0:
            raise ValueError(f"margin must be a positive number; got {margin!r}")
        if alpha >= 0.5:
            raise ValueError(f"margin: two one-sided tests need alpha below 0.5; got {alpha:g}")
        margin = float(margin)
    return float(rope), margin


def _checked_options(alpha: float, n_boot: int, seed: int,
                     prevalence: Mapping[Any, float] | None) -> tuple[float, int]:
    """Check the options of :func:`compare_models`; return ``alpha`` and ``n_boot`` as checked."""
    alpha = check_probability(alpha, "alpha")
    # at least 2: the swap permutations of Dai–Cui's test need two
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    check_random_state(seed, "seed")
    if prevalence is not None:
        if not isinstance(prevalence, Mapping):
            raise ValueError(f"prevalence must be a mapping class -> prevalence; "
                             f"got {type(prevalence).__name__}")
        for label, value in prevalence.items():
            check_probability(value, f"prevalence[{label!r}]", low_open=False, high_open=False)
    return alpha, n_boot


def _cluster_sums(counts: Counts) -> ClusterSums:
    """Return the cluster sums of repeated-cv counts (from the per-observation table if need be)."""
    if counts.clusters is not None:
        return counts.clusters
    if counts.observations is None:
        raise ValueError("repeated cross-validation counts need their cluster sums "
                         "(Counts.clusters) or the per-observation table; count them with "
                         "count_predictions")
    from ..core.clusters import cluster_sums

    t = counts.observations
    return cluster_sums(t["obs"], t["y"], t[[f"p{j}" for j in range(counts.n_models)]],
                        t["count"], n_classes=counts.n_classes)


def _count(source: Any, y_true: str | None, **kwargs: Any) -> Counts:
    """Count the predictions with :func:`~precmp_lib.engine.predictions.count_predictions`."""
    if y_true is None:
        raise ValueError("y_true (the column of true labels) is required unless source is Counts")
    if isinstance(source, pd.DataFrame) and (not isinstance(y_true, Hashable)
                                             or y_true not in source.columns):
        raise ValueError(f"y_true={y_true!r} is not a column of the data; columns are: "
                         f"{', '.join(map(str, source.columns))}")
    return count_predictions(source, y_true=y_true, **kwargs)


def _compare_counts(counts: Counts, *, reference: str | None, alpha: float,
                    prevalence: Mapping[Any, float], n_boot: int, seed: int,
                    progress: bool = False, rope: float = ROPE,
                    margin: float | None = None, family: str = "auto") -> ModelComparison:
    """Compute every table of a :class:`ModelComparison` from checked counts and options."""
    level = 1 - alpha
    m = counts.n_models
    if family == "auto":
        family = "all" if m <= MANY_MODELS else "leader"
    pat = _Arrays.of(counts.patterns, m)
    cv = counts.design == REPEATED_CV
    obs = (_Observations.of(counts.observations, m)
           if cv and counts.observations is not None else None)
    sums = _cluster_sums(counts) if cv else None
    if sums is None:
        moments = moments_from_patterns(pat.y, pat.p, pat.w, classes=list(counts.classes),
                                        names=list(counts.models))
    else:
        moments = PrecisionMoments(
            n_correct=sums.n_correct, n_wrong=sums.n_wrong, cc=sums.cc, cw=sums.cw, ww=sums.ww,
            classes=np.asarray(counts.classes, dtype=object), names=tuple(counts.models),
            n_rows=int(sums.size), n_clusters=int(sums.n_clusters))
    summary = _summary(counts, pat, sums, level)
    leader = None
    if reference is None and family == "leader":  # each model against the most accurate
        leader = by_score(dict(zip(summary["model"], summary["accuracy"])))[0]
    pairs = model_pairs(counts.models, reference or leader)
    if reference is None:
        pairs = _oriented(pairs, summary)
    scores = _fold_scores(counts, pat) if cv else None
    pair_table = _pairs(counts, pat, scores, pairs, alpha, level, margin)
    if scores is not None:
        pair_table = _bayesian_columns(pair_table, scores, counts,
                                       pair_table.attrs.get("test_train_ratio", np.nan), rope)
    per_class = _per_class(counts, pat, moments, pairs, level, progress)
    index = {name: j for j, name in enumerate(counts.models)}
    # the GEE pairwise table holds the family tested: all pairs, or each against one
    gee = gee_precision_from_counts(moments, reference=reference or counts.models[0],
                                    confidence_level=level,
                                    pairs=(None if reference is None and leader is None else
                                           [(min(index[a], index[b]), max(index[a], index[b]))
                                            for a, b in pairs]))
    joint = gee.joint.copy()
    joint.insert(4, "pvalue_adjusted", adjust_pvalues(joint["pvalue"].to_numpy(float), "holm"))
    joint.attrs["adjustment"] = "holm"
    combined = _combined(counts, pat, per_class, pairs, alpha, int(n_boot), seed)
    best = best_group(dict(zip(summary["model"], summary["accuracy"])), pair_table, reference)
    summary["best"] = summary["model"].isin(best)
    class_counts, precision = _class_tables(counts, pat, moments)
    prev, prev_ratio = _prevalence(counts, pat, obs, prevalence, pairs, level, int(n_boot), seed)
    design = _design(counts)
    parts = {"summary": summary, "pairs": pair_table, "best": best, "reference": reference,
             "per_class": per_class, "combined": combined, "design": design, "alpha": alpha,
             "prevalence": prev, "gee": joint, "rope": rope, "margin": margin}
    recommendation, bullets, details = _conclusions(parts, level)
    warning_lines, warning_items = _warnings(counts, pair_table, class_counts)
    return ModelComparison(
        models=list(counts.models), classes=[_scalar(c) for c in counts.classes], design=design,
        engine=counts.engine, n_rows=int(counts.n_rows), source=str(counts.source), alpha=alpha,
        reference=reference, summary=summary, pairs=pair_table, per_class=per_class, gee=joint,
        gee_pairwise=gee.pairwise,
        gee_coefficients=not_estimable(gee.coefficients, "ci_low", "ci_high"), combined=combined,
        prevalence=prev, prevalence_ratio=prev_ratio, class_counts=class_counts,
        precision=precision,
        fold_scores=scores if scores is not None else pd.DataFrame(columns=["repeat", "fold",
                                                                            "n_test"]),
        all_pairs=(all_pairs_accuracy(counts, alpha) if m > MANY_MODELS and not cv
                   else pd.DataFrame()),
        best=best, recommendation=recommendation, conclusions=bullets, details=details,
        warnings=warning_lines, warning_items=warning_items,
        settings={"alpha": alpha, "reference": reference, "n_boot": int(n_boot), "seed": seed,
                  "rope": rope if cv else None, "margin": margin,
                  "family": "reference" if reference else family, "leader": leader,
                  "prevalence": {str(k): float(v) for k, v in prevalence.items()},
                  "test_train_ratio": pair_table.attrs.get("test_train_ratio"),
                  "notes": list(counts.notes)},
    )
