"""Several models compared on the same evaluation items: every number the item report shows.

:func:`compare_items` reads an item table once (:func:`precmp_lib.engine.items.count_items`) and, per
task and for all tasks together, computes from the returned sums

- each model's mean score with a cluster-robust (CR1) interval;
- every pair by the clustered McNemar test (Obuchowski) when every item score is 0 or 1, else by
  the cluster-robust paired difference (referred to t with units - 1 degrees of freedom below 50
  independent units: clusters, or items when there are none), Holm-adjusted across the pairs of the task; the
  difference with its CR1 interval; the flips (items right for A and wrong for B, and the
  reverse); TOST equivalence at a margin when one is given;
- the minimum difference detectable with 80 % power by these items and clusters, and the items
  the observed difference would need;
- the best group: the models not shown worse than the top one after Holm's adjustment.

The result, :class:`ItemComparison`, holds plain tables and sentences; the report only shows
them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._lib.dist import norm_isf, norm_sf, t_isf, t_sf
from .._lib.text import shorten
from ..core.items import ItemSums
from ..engine.items import count_items
from ..stats.allpairs import (
    clustered_mcnemar_all,
    discordant_counts,
    mcnemar_all,
    pair_index,
    paired_differences_all,
)
from ..stats.contingency import mcnemar
from ..stats.multiple import adjust_pvalues
from ..stats.paired import (
    FEW_CLUSTERS,
    PairedSums,
    clustered_mcnemar_from_sums,
    equivalence_test_from_sums,
    paired_difference_from_sums,
    t_df,
)
from ..stats.power import (
    minimum_detectable_difference,
    paired_sample_size,
    repeated_answers_plan,
)
from .base import Comparison, best_group, by_score

__all__ = ["ALL_TASKS", "ALL_TASKS_LINE", "FAMILIES", "HOLM_OVER", "ITEM_TESTS", "MANY_MODELS",
           "WEIGHTS", "ItemComparison", "compare_items"]

ITEM_TESTS = ("auto", "mcnemar", "difference")
# how the all-tasks line weighs the tasks: every item alike (micro), or every task alike (macro)
WEIGHTS = ("items", "tasks")
WEIGHT_SAID = {
    "items": "weighted by items: the mean over every item of every task (micro; lm-eval's "
             "weight_by_size: true), so a larger task counts for more",
    "tasks": "weighted by tasks: the mean of the task means (macro; lm-eval's weight_by_size: "
             "false, HELM's mean over subjects), each task counting alike, its standard error "
             "from the tasks' own cluster-robust ones"}
# what Holm's adjustment runs over: the pairs within each task, or every pair of every task
HOLM_OVER = ("pairs", "pairs-tasks")
ALL_TASKS = "all tasks"
# How each conclusion about all tasks together begins (a task's own begin with its name).
ALL_TASKS_LINE = "All tasks together: "
POWER = 0.8
# the pairs tested: every pair, or each model against the leader (the top model of each task)
FAMILIES = ("auto", "all", "leader")
# beyond this many models "auto" tests each model against the leader (k - 1 pairs per task, not
# k (k - 1) / 2), and every pair of the whole comparison is kept for the heat map (all_pairs)
MANY_MODELS = 10
# Fewer discordant items than this: McNemar's chi-square is a poor approximation and the exact
# binomial p-value is given beside it
FEW_DISCORDANT = 25


@dataclass(frozen=True, kw_only=True)
class ItemComparison(Comparison):
    """The comparison of several models on the same evaluation items (route ``"items"``).

    The core fields and the JSON codec are :class:`~precmp_lib.compare.base.Comparison`'s.

    Attributes
    ----------
    summary : DataFrame
        One row per (task, model): ``task``, ``model``, ``n`` (items), ``score`` (mean item
        score), ``ci_low``, ``ci_high`` (cluster-robust), ``se``, ``rank`` (1 = best),
        ``best`` (in the best group of its task).
    pairs : DataFrame
        One row per (task, pair), the better-ranked model as A (so that the estimate is rarely
        negative): ``task``, ``model_a``, ``model_b``, ``test``, ``estimate``
        (score A - B), ``ci_low``, ``ci_high``, ``statistic``, ``pvalue``, ``pvalue_adjusted``
        (Holm within the task), ``reject``, ``a_right_b_wrong``, ``a_wrong_b_right`` (0/1
        scores), ``se``, ``design_effect``, ``correlation``, ``mde`` (difference detectable
        with 80 % power), ``items_needed`` (items that would detect the observed difference
        with 80 % power), ``note`` (what qualifies the row: fewer than 20 clusters under the
        clustered McNemar test; fewer than 25 discordant items under McNemar's χ², with the
        exact test's p-value; t with units - 1 degrees of freedom for the paired difference on
        fewer than 50 independent units, clusters or unclustered items; else empty), ``tost_pvalue`` and ``equivalent`` (with a
        margin).
    design : dict
        The whole comparison: ``design`` (``"clustered items"`` or ``"independent items"``),
        ``tasks``, ``items``, ``clusters`` (None without a cluster column), ``answers_max``
        (answers per item and model), ``rows`` (answers read), ``description``.
    design_table : DataFrame
        One row per task: ``task``, ``items``, ``clusters``, ``answers_min``, ``answers_max``
        (answers per item and model), ``answers_mean``, ``design_effect`` (median over models of
        the variance of the mean score over its value for independent items), ``binary``,
        ``test``, ``variance_reduction`` (mean over models: the share of the variance of the
        mean score removed by answering each item several times).
    best : list of str
        The best group of the whole comparison: all tasks together when there are several (the
        one task's otherwise; empty when tasks on different scales are not pooled), by
        :func:`~precmp_lib.compare.base.best_group`.
    best_by_task : dict
        Task -> the models of its best group.
    all_pairs : DataFrame
        With more than ``MANY_MODELS`` models: every pair of the whole comparison (all tasks
        together, or the one task), ``model_a``, ``model_b``, ``estimate``, ``ci_low``,
        ``ci_high``, ``statistic``, ``pvalue``, ``pvalue_adjusted`` (Holm over all
        k (k - 1) / 2 pairs), ``reject``; empty otherwise.
    conclusions : list of str
        Plain sentences.
    recommendation : str
        One sentence on what to use, from the best group over all tasks (or the one task).
    tasks : list of str
        The tasks, then ``"all tasks"`` when there are several.

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import compare_items
    >>> frame = pd.DataFrame({"item": list(range(8)) * 2, "model": ["a"] * 8 + ["b"] * 8,
    ...                       "score": [1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0]})
    >>> cmp = compare_items(frame)
    >>> cmp.models, cmp.best, cmp.best_by_task
    (['a', 'b'], ['a', 'b'], {'': ['a', 'b']})
    >>> cmp.design["description"]
    '8 items, taken as independent'
    >>> ItemComparison.from_json(cmp.to_json()).design_table["items"].tolist()
    [8]
    """

    kind: ClassVar[str] = "items"
    tasks: list[str]
    margin: float | None = None
    design_table: pd.DataFrame
    best_by_task: dict[str, list[str]] = field(default_factory=dict)
    all_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def source_name(self) -> str:
        """How a page names what was read: the eval logs of the models, or the ``source``."""
        if self.settings.get("eval_logs") is not None:
            return "eval logs of " + ", ".join(self.models)
        return self.source


def _finite(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


# --------------------------------------------------------------------------------------------
# the pieces
# --------------------------------------------------------------------------------------------


def _t_df(s: ItemSums, use_mcnemar: bool) -> int | None:
    """Return the t degrees of freedom of a task's paired difference, or None for z.

    :func:`~precmp_lib.stats.paired.t_df` of the task's independent units: its clusters, or
    its items when it has none (p-values and intervals then come from t with units - 1 df).

    The McNemar tests keep their chi-square reference, whose notes say when it is optimistic.
    """
    if use_mcnemar:
        return None
    return t_df(s.n_clusters if s.n_clusters is not None else s.n_items)


def _summary(s: ItemSums, level: float, df: int | None = None) -> pd.DataFrame:
    # every model's mean score with its CR1 interval at once (a difference from a zero model)
    res = paired_differences_all(s, np.arange(s.n_models), None, confidence_level=level, df=df)
    out = pd.DataFrame({"task": s.task, "model": list(s.models), "n": s.n_items,
                        "score": res.estimate, "ci_low": res.ci_low, "ci_high": res.ci_high,
                        "se": res.se, "design_effect": res.design_effect})
    out["rank"] = out["score"].rank(ascending=False, method="min").astype(int)
    return out


def _use_mcnemar(s: ItemSums, test: str) -> bool:
    if test == "mcnemar" and not s.binary:
        raise ValueError("test 'mcnemar' needs every item score to be 0 or 1 (one right/wrong "
                         "answer per item); these scores are not: use the paired difference")
    return test == "mcnemar" or (test == "auto" and s.binary)


def _pair_row(s: ItemSums, a: int, b: int, use_mcnemar: bool, level: float, alpha: float,
              margin: float | None) -> dict[str, Any]:
    ps = PairedSums.from_items(s, a, b)
    df = _t_df(s, use_mcnemar)
    diff = paired_difference_from_sums(ps, confidence_level=level, df=df)
    d = diff.details
    note = ""
    row: dict[str, Any] = {"task": s.task, "model_a": s.models[a], "model_b": s.models[b]}
    if use_mcnemar and s.n_clusters is not None:
        test = clustered_mcnemar_from_sums(float(ps.sum_a - ps.sum_b), s.cluster_sum_d2(a, b),
                                           s.n_clusters, n_items=s.n_items)
        row["test"] = "Obuchowski clustered McNemar"
        stat, p = test.statistic, test.pvalue
        if s.n_clusters < FEW_CLUSTERS:
            note = (f"only {s.n_clusters} clusters: a variance estimated from so few clusters is "
                    "biased low, so the p-value and interval are optimistic")
    elif use_mcnemar:  # independent items: McNemar's chi-square on the discordant items
        only_a, only_b = s.flips(a, b)
        both = float(ps.sum_ab)
        table = [[both, only_a], [only_b, s.n_items - both - only_a - only_b]]
        test = mcnemar(table, method="chi2")
        row["test"] = "McNemar χ² (items independent)"
        stat, p = test.statistic, test.pvalue
        if only_a + only_b < FEW_DISCORDANT:
            exact = mcnemar(table, method="exact").pvalue
            note = (f"only {int(only_a + only_b)} discordant items: the χ² p-value is "
                    f"asymptotic and poor here; the exact test gives p = {exact:.3g}")
    else:
        clustered = s.n_clusters is not None
        ref = "z" if df is None else f"t ({df} df)"
        row["test"] = f"paired difference, CR1 {ref}" if clustered else f"paired difference {ref}"
        stat, p = diff.statistic, diff.pvalue
        if df is not None:
            note = (f"t with C−1 = {df} df: few clusters, where z would reject too often"
                    if clustered else
                    f"t with n−1 = {df} df: few independent items, where z would reject too often")
    flips = s.flips(a, b) if s.binary else (math.nan, math.nan)
    sd = math.sqrt(ps.variance_unclustered() * s.n_items) if s.n_items > 1 else math.nan
    deff = d["design_effect"] if math.isfinite(d["design_effect"]) else 1.0
    # no spread of the differences (or none between clusters): nothing to plan from
    plan = sd > 0 and deff > 0
    mde = (minimum_detectable_difference(s.n_items, sd, design_effect=deff, power=POWER, alpha=alpha)
           if plan else math.nan)
    need = (paired_sample_size(diff.estimate, sd, design_effect=deff, power=POWER, alpha=alpha)
            if plan and diff.estimate != 0 else math.nan)
    row.update({"estimate": diff.estimate, "ci_low": diff.ci_low, "ci_high": diff.ci_high,
                "statistic": stat, "pvalue": p, "a_right_b_wrong": flips[0],
                "a_wrong_b_right": flips[1], "se": d["se"], "design_effect": d["design_effect"],
                "correlation": d["correlation"], "mde": mde, "items_needed": need, "note": note})
    if margin is not None:
        eq = equivalence_test_from_sums(ps, margin=margin, alpha=alpha, df=df)
        row.update({"margin": margin, "tost_pvalue": eq.pvalue,
                    "equivalent": bool(eq.details["equivalent"])})
    if s.k_max > 1:
        row.update(_repeated_plan(s, a, b, deff, alpha))
    return row


def _repeated_plan(s: ItemSums, a: int, b: int, deff: float, alpha: float) -> dict[str, float]:
    """Plan the pair's repeated answers: the items needed at 1, K and 2K answers.

    The within- and between-item variance of the difference feed :func:`repeated_answers_plan`.

    The two models answer independently, so the within-item variance of the difference is the
    sum of theirs; the between-item variance is the observed variance of the item differences
    less the part the K answers leave of the within-item variance, at least 0.
    """
    n = s.n_items
    ps = PairedSums.from_items(s, a, b)
    within = float(s.within[a] + s.within[b]) / n
    between = max(ps.variance_unclustered() * n - float(s.within_over_k[a] + s.within_over_k[b]) / n,
                  0.0)
    k = float(s.answers[a] + s.answers[b]) / (2 * n)
    if not deff > 0:  # differences that cancel within every cluster: nothing to plan from
        nan = math.nan
        plan = dict.fromkeys(("variance_reduction", "mde", "items_one", "items_now",
                              "items_double"), nan)
    else:
        plan = repeated_answers_plan(between, within, k, n, design_effect=deff, power=POWER,
                                     alpha=alpha)
    return {"var_between": between, "var_within": within, "answers_k": k,
            "reduction_diff": plan["variance_reduction"], "plan_mde": plan["mde"],
            "items_k1": plan["items_one"], "items_k": plan["items_now"],
            "items_2k": plan["items_double"]}


def _pairs(s: ItemSums, summary: pd.DataFrame, test: str, level: float, alpha: float,
           margin: float | None, against: int | None = None) -> pd.DataFrame:
    """Return the pairs of the family tested, the better-ranked model as A (ties keep the models' order).

    Every pair (``against`` None, in the order of a nested loop), or each model against model
    ``against``. The statistics of all the pairs come at once from the sums matrices
    (:mod:`precmp_lib.stats.allpairs`); they equal :func:`_pair_row`'s, pair by pair. The
    equivalence test and the plan for repeated answers, when asked for, are made pair by pair.
    """
    chosen = _use_mcnemar(s, test)
    rank = summary["rank"].to_numpy()
    ia, ib = pair_index(s.n_models, against)
    swap = rank[ib] < rank[ia]
    a, b = np.where(swap, ib, ia), np.where(swap, ia, ib)
    df = _t_df(s, chosen)
    diff = paired_differences_all(s, a, b, confidence_level=level, df=df)
    names = np.asarray(s.models, dtype=object)
    out = pd.DataFrame({"task": s.task, "model_a": names[a], "model_b": names[b]})
    note = np.full(len(a), "", dtype=object)
    if chosen and s.n_clusters is not None:
        out["test"] = "Obuchowski clustered McNemar"
        stat, p = clustered_mcnemar_all(s, a, b)
        if s.n_clusters < FEW_CLUSTERS:
            note[:] = (f"only {s.n_clusters} clusters: a variance estimated from so few clusters "
                       "is biased low, so the p-value and interval are optimistic")
    elif chosen:  # independent items: McNemar's chi-square on the discordant items
        out["test"] = "McNemar χ² (items independent)"
        only_a, only_b = discordant_counts(s.sums, s.item_gram, a, b)
        stat, p = mcnemar_all(only_a, only_b, "chi2")
        few = np.flatnonzero(only_a + only_b < FEW_DISCORDANT)
        if len(few):
            exact = mcnemar_all(only_a[few], only_b[few], "exact")[1]
            for i, e in zip(few, exact):
                note[i] = (f"only {int(only_a[i] + only_b[i])} discordant items: the χ² p-value "
                           f"is asymptotic and poor here; the exact test gives p = {e:.3g}")
    else:
        clustered = s.n_clusters is not None
        ref = "z" if df is None else f"t ({df} df)"
        out["test"] = f"paired difference, CR1 {ref}" if clustered else f"paired difference {ref}"
        stat, p = diff.statistic, diff.pvalue
        if df is not None:
            note[:] = (f"t with C−1 = {df} df: few clusters, where z would reject too often"
                       if clustered else
                       f"t with n−1 = {df} df: few independent items, where z would reject too "
                       "often")
    if s.binary:
        only_a, only_b = discordant_counts(s.sums, s.item_gram, a, b)
    else:
        only_a = only_b = np.full(len(a), math.nan)
    n = s.n_items
    sd = np.sqrt(diff.var_unclustered * n) if n > 1 else np.full(len(a), math.nan)
    deff = np.where(np.isfinite(diff.design_effect), diff.design_effect, 1.0)
    # no spread of the differences (or none between clusters): nothing to plan from
    plan = (sd > 0) & (deff > 0)
    z = float(norm_isf(alpha / 2.0)) + float(norm_isf(1.0 - POWER))
    with np.errstate(invalid="ignore", divide="ignore"):
        mde = np.where(plan, z * sd * np.sqrt(deff / n), math.nan)
        need = np.where(plan & (diff.estimate != 0),
                        (z * sd / np.abs(diff.estimate)) ** 2 * deff, math.nan)
    out = out.assign(estimate=diff.estimate, ci_low=diff.ci_low, ci_high=diff.ci_high,
                     statistic=stat, pvalue=p, a_right_b_wrong=only_a, a_wrong_b_right=only_b,
                     se=diff.se, design_effect=diff.design_effect, correlation=diff.correlation,
                     mde=mde, items_needed=need, note=note)
    if margin is not None:
        rows = []
        for i, j in zip(a, b):
            eq = equivalence_test_from_sums(PairedSums.from_items(s, int(i), int(j)),
                                            margin=margin, alpha=alpha, df=df)
            rows.append((margin, eq.pvalue, bool(eq.details["equivalent"])))
        out["margin"], out["tost_pvalue"], out["equivalent"] = (
            [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    if s.k_max > 1:
        plans = pd.DataFrame([_repeated_plan(s, int(i), int(j), float(d), alpha)
                              for i, j, d in zip(a, b, deff)])
        out = pd.concat([out, plans], axis=1)
    out["pvalue_adjusted"] = adjust_pvalues(out["pvalue"].to_numpy(float), "holm")
    out["reject"] = out["pvalue_adjusted"] < alpha
    return out


def _holm_over_tasks(frames: list[pd.DataFrame], alpha: float) -> None:
    """Adjust the p-values of every pair of every task together (Holm), in place.

    The all-tasks line, an average of the tasks and not a further hypothesis of its own, keeps
    Holm over its pairs.
    """
    own = [f for f in frames if not (f["task"] == ALL_TASKS).all()]
    if len(own) < 2:
        return
    p = np.concatenate([f["pvalue"].to_numpy(float) for f in own])
    adjusted = adjust_pvalues(p, "holm")
    start = 0
    for f in own:
        f["pvalue_adjusted"] = adjusted[start:start + len(f)]
        f["reject"] = f["pvalue_adjusted"] < alpha
        start += len(f)


def _design_row(s: ItemSums, summary: pd.DataFrame, use_mcnemar: bool) -> dict[str, Any]:
    k_mean = float(np.mean(s.answers)) / s.n_items
    reduction = math.nan
    if s.k_max > 1:
        shares = []
        for a in range(s.n_models):
            ps = PairedSums.from_items(s, a)
            var = ps.variance_unclustered() * s.n_items
            within, sampling = s.within[a] / s.n_items, s.within_over_k[a] / s.n_items
            one = max(var - sampling + within, var)
            shares.append(1 - var / one if one > 0 else 0.0)
        reduction = float(np.mean(shares))
    df = _t_df(s, use_mcnemar)
    return {"task": s.task, "items": s.n_items, "clusters": s.n_clusters,
            "answers_min": s.k_min, "answers_max": s.k_max, "answers_mean": k_mean,
            "design_effect": float(np.nanmedian(summary["design_effect"].to_numpy(float)))
            if summary["design_effect"].notna().any() else math.nan,
            "binary": s.binary, "unit": s.unit,
            "test": ("McNemar" if s.n_clusters is None else "clustered McNemar (Obuchowski)")
            if use_mcnemar else ("paired difference (CR1)" if df is None
                                 else f"paired difference (CR1, t with {df} df)"),
            "variance_reduction": reduction}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def amount(x: float, unit: bool) -> str:
    """Say a difference of mean scores: in points on a 0-1 scale, else in score units.

    >>> amount(0.0673, True), amount(2.42, False)
    ('6.7 points', '2.42 in score units')
    """
    return f"{_pct(x)} points" if unit else f"{x:.3g} in score units"


def median_mde(pairs: pd.DataFrame) -> float:
    """Return the median over pairs of the difference detectable with 80 % power (NaN if none).

    A pair has none when its items give nothing to plan from (:func:`no_plan`).

    >>> median_mde(pd.DataFrame({"mde": [0.05, math.nan, 0.07]})), median_mde(pd.DataFrame({"mde": [math.nan]}))
    (0.06, nan)
    """
    return float(np.nanmedian(pairs["mde"])) if pairs["mde"].notna().any() else math.nan


def no_plan(clustered: bool) -> str:
    """Say why no detectable difference is given: the score differences do not vary.

    Either the two models differ by the same amount on every item (on none, mostly), or their
    differences cancel within every cluster; either way the spread a plan needs is zero.

    >>> no_plan(True)
    'the score differences of these items do not vary from one cluster to another, so the difference they could detect cannot be estimated'
    """
    unit = "cluster" if clustered else "item"
    return (f"the score differences of these items do not vary from one {unit} to another, so "
            "the difference they could detect cannot be estimated")


def _conclusions(task: str, summary: pd.DataFrame, pairs: pd.DataFrame, best: list[str],
                 design: dict[str, Any], alpha: float, margin: float | None,
                 level: float, reference: str | None = None) -> list[str]:
    where = ALL_TASKS_LINE if task == ALL_TASKS else (f"{task}: " if task else "")
    top = best[0] if best else by_score(dict(zip(summary["model"], summary["score"])))[0]
    score = float(summary.set_index("model").loc[top, "score"])
    lines = []
    if reference is not None:
        lines.append(where + _against_reference("", pairs, reference, alpha))
    elif len(best) == 1:
        lines.append(f"{where}{top} scores highest ({score:.3f}) and every other model is shown "
                     f"worse after Holm's adjustment at α = {alpha:g}.")
    elif len(best) > 12:  # a leaderboard's group: its size and first names, all in the tables
        from .prediction_conclusions import join_names

        lines.append(f"{where}{top} scores highest ({score:.3f}); {len(best) - 1:,} more are not "
                     f"shown worse after Holm's adjustment at α = {alpha:g}: the best group of "
                     f"{len(best):,} is {join_names(best, most=12)} (every one in the tables).")
    else:
        others = ", ".join(best[1:])
        lines.append(f"{where}{top} scores highest ({score:.3f}); {others} "
                     f"{'is' if len(best) == 2 else 'are'} not shown worse after Holm's "
                     f"adjustment at α = {alpha:g}: the best group is {', '.join(best)}.")
    if design["clusters"] is not None:
        design_text = (f"{design['items']:,} items in {design['clusters']:,} clusters; clustering "
                       f"multiplies the variance of a model's mean score by "
                       f"{design['design_effect']:.2f} (median over models).")
    else:
        design_text = (f"{design['items']:,} items, taken as independent (no cluster column).")
    mde = median_mde(pairs)
    if math.isnan(mde):
        plan = no_plan(design["clusters"] is not None)
        lines.append(f"{where}{design_text} No difference is planned: {plan}.")
    else:
        lines.append(f"{where}{design_text} With these items, a difference of "
                     f"{amount(mde, design['unit'])} is detected with {100 * POWER:g} % power (median over pairs).")
    if margin is not None:
        eq = pairs[pairs["equivalent"]]
        shown = "; ".join(f"{r.model_a} and {r.model_b}" for r in eq.itertuples())
        lines.append(f"{where}{'p' if where else 'P'}airs equivalent within ±{margin:g} (TOST at α = {alpha:g}): "
                     f"{shown if shown else 'none'}.")
    return lines


def _recommend(task: str, summary: pd.DataFrame, pairs: pd.DataFrame, best: list[str],
               alpha: float, clustered: bool = False, unit: bool = True) -> str:
    """Write what to use in one sentence, from one task's best group (or all tasks').

    >>> summary = pd.DataFrame({"model": ["a", "b", "c"], "score": [.8, .7, .6]})
    >>> pairs = pd.DataFrame({"model_a": ["a", "a", "b"], "model_b": ["b", "c", "c"],
    ...                       "estimate": [.1, .2, .1], "mde": [.05, .06, .07]})
    >>> print(_recommend("", summary, pairs, ["a"], 0.05))
    Use a: it scores highest (0.800), and every other model is shown worse after Holm's adjustment at α = 0.05.
    >>> print(_recommend("", summary, pairs, ["a", "b"], 0.05))
    a and b are tied for best (0.800 and 0.700, not shown to differ after Holm's adjustment); choose on cost or simplicity.
    >>> print(_recommend("all tasks", summary, pairs, ["a", "b", "c"], 0.05))
    No model is shown better than another over all tasks: with these items only a difference of about 6.0 points is detected with 80 % power; more items would be needed to tell them apart.
    >>> print(_recommend("", summary, pairs.assign(mde=math.nan), ["a", "b", "c"], 0.05))
    No model is shown better than another: the score differences of these items do not vary from one item to another, so the difference they could detect cannot be estimated.
    """
    from .prediction_conclusions import join_names

    where = " over all tasks" if task == ALL_TASKS else ""
    score = summary.set_index("model")["score"]
    top = best[0]
    if len(best) == 1:
        return (f"Use {top}: it scores highest{where} ({score[top]:.3f}), and every other model "
                f"is shown worse after Holm's adjustment at α = {alpha:g}.")
    if len(best) < len(summary):
        scores = join_names([f"{score[m]:.3f}" for m in best])
        return (f"{join_names(best)} are tied for best{where} ({scores}, not shown to differ after "
                "Holm's adjustment); choose on cost or simplicity.")
    mde = median_mde(pairs)
    if math.isnan(mde):
        return f"No model is shown better than another{where}: {no_plan(clustered)}."
    return (f"No model is shown better than another{where}: with these items only a difference "
            f"of about {amount(mde, unit)} is detected with {100 * POWER:g} % power; more items would "
            "be needed to tell them apart.")


# --------------------------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------------------------


def compare_items(
    source: Any,
    *,
    item: str = "item",
    model: str = "model",
    score: str = "score",
    cluster: str | None = None,
    sample: str | None = None,
    task: str | None = None,
    models: Sequence[str] | None = None,
    test: str = "auto",
    margin: float | Mapping[str | None, float] | None = None,
    alpha: float = 0.05,
    engine: str = "auto",
    common_items: bool = False,
    holm_over: str = "pairs",
    family: str = "auto",
    reference: str | None = None,
    weight: str = "items",
) -> ItemComparison:
    """Compare several models on the same evaluation items, per task and for all tasks.

    Parameters
    ----------
    source : DataFrame, path, glob, DuckDB relation, Spark DataFrame, list of ItemSums, or logs
        One row per answer (see :func:`precmp_lib.engine.items.count_items`), or sums already
        read; or eval logs, read by :func:`precmp_lib.sources.evallogs.read_eval_logs`: an
        inspect ``EvalLog``, the dict ``lm_eval.simple_evaluate`` returns, or a mapping model ->
        such a log, a log path or a list of them (``cluster`` is then the log's field,
        ``metadata.<key>`` or ``doc.<key>``; an unfinished run is read with ``common_items``).
    item, model, score, cluster, sample, task : str
        Column roles (see :func:`precmp_lib.engine.items.count_items`).
    models : sequence of str, optional
        Models to keep.
    test : {"auto", "mcnemar", "difference"}
        ``"auto"``: the clustered McNemar test when every item score is 0 or 1 (one right/wrong
        answer per item), else the cluster-robust paired difference. ``"mcnemar"`` with other
        scores is an error; ``"difference"`` always uses the paired difference.
    margin : float or mapping, optional
        Equivalence margin on the score scale (TOST), e.g. 0.02: one number for every task, or
        a mapping from task to margin (the key None: every task not named; a task without a
        margin has no equivalence test). One number for tasks on different scales (some
        scores within 0 to 1, some not) is an error: give it per task.
    alpha : float
        Level of the tests; intervals are at 1 - alpha.
    engine : {"auto", "numpy", "duckdb", "spark"}
        Who reads the rows.
    common_items : bool
        Compare on the items every model answered, per task; the items left out are counted
        per model (``settings["dropped"]``). Without it, an item some model did not answer is
        an error naming the model, the task and the item.
    holm_over : {"pairs", "pairs-tasks"}
        ``"pairs"``: Holm's adjustment over the pairs of each task. ``"pairs-tasks"``: over
        every pair of every task together (the all-tasks line keeps Holm over its pairs).
    family : {"auto", "all", "leader"}
        The pairs tested, over which Holm's adjustment runs: ``"all"`` every pair
        (k (k - 1) / 2 per task), ``"leader"`` each model against the top model of its task
        (k - 1); ``"auto"``: all pairs up to ``MANY_MODELS`` models, the leader beyond.
    reference : str, optional
        Test each model against this one instead (k - 1 pairs per task); the best group is then
        the models shown better than it, or, when none is, it and the models not shown to
        differ from it.
    weight : {"items", "tasks"}
        How the all-tasks line weighs the tasks. ``"items"`` (the default): the mean over
        every item (micro), each item counting alike, as the paired tests on items do and as
        lm-eval's groups with ``weight_by_size: true``. ``"tasks"``: the mean of the task means
        (macro, lm-eval's ``weight_by_size: false``), its standard error
        ``sqrt(sum of the tasks' CR1 variances) / T`` (the tasks share no item), tested by a
        Wald test with t on the units - 1 df below 50 units. The line says which.

    Returns
    -------
    ItemComparison

    Examples
    --------
    Three models on 40 items in 8 passages:

    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"item": np.tile(np.arange(40), 3),
    ...                       "model": np.repeat(["a", "b", "c"], 40),
    ...                       "score": (rng.random(120) < np.repeat([0.9, 0.6, 0.5], 40)).astype(int),
    ...                       "passage": np.tile(np.arange(40) // 5, 3)})
    >>> cmp = compare_items(frame, cluster="passage")
    >>> cmp.best, cmp.pairs["test"].iloc[0]
    (['a', 'b'], 'Obuchowski clustered McNemar')

    With 40 items in 8 passages, b is not shown worse than a after Holm's adjustment: both are
    in the best group.
    """
    for name, chosen, choices in (("test", test, ITEM_TESTS), ("holm_over", holm_over, HOLM_OVER),
                                  ("family", family, FAMILIES), ("weight", weight, WEIGHTS)):
        if chosen not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}; got {chosen!r}")
    if not (isinstance(alpha, float | int) and 0 < alpha < 0.5):
        raise ValueError(f"alpha must lie in (0, 0.5); got {alpha!r}")
    given: dict[str | None, float | None] = (dict(margin) if isinstance(margin, Mapping)
                                             else {None: margin})
    for value in given.values():
        if value is not None and not (isinstance(value, float | int) and 0 < value
                                      and math.isfinite(value)):
            raise ValueError(f"margin must be a positive number; got {value!r}")
    logs = _logs_given(source)
    if logs is not None:  # eval logs, in memory or as paths: read them into an item table
        from ..sources.evallogs import read_eval_logs

        source = read_eval_logs(logs, cluster=cluster, incomplete=common_items)
        epochs = source.groupby(["task", "item", "model"]).size().max() > 1
        item, model, score, task = "item", "model", "score", "task"
        sample, cluster = ("epoch" if epochs else None), ("cluster" if cluster else None)
    if isinstance(source, list) and source and isinstance(source[0], ItemSums):
        parts = source
    else:
        parts = count_items(source, item=item, model=model, score=score, cluster=cluster,
                            sample=sample, task=task, models=models, engine=engine,
                            common_items=common_items)
    _check_finite(parts, score)
    margins = _task_margins(given, parts)
    if len(parts) > 1 and all(p.unit for p in parts):
        parts = [*parts, ItemSums.combine(parts, ALL_TASKS)]
        shared = set(margins.values())
        margins[ALL_TASKS] = shared.pop() if len(shared) == 1 and len(margins) == len(parts) - 1 \
            else None
    if reference is not None and reference not in parts[0].models:
        raise ValueError(f"reference {reference!r} is not one of the models "
                         f"({', '.join(parts[0].models[:8])}{' ...' if parts[0].n_models > 8 else ''})")
    if family == "auto":
        family = "all" if parts[0].n_models <= MANY_MODELS else "leader"
    out = _compare_sums(parts, test=test, margins=margins, alpha=float(alpha),
                        holm_over=holm_over, family=family, reference=reference)
    if parts[-1].task == ALL_TASKS:
        out = _weighted(out, parts, weight)
    if common_items:
        out.settings["dropped"] = {p.task: dict(zip(p.models, p.dropped)) for p in parts}
    read = source.attrs.get("eval_logs") if isinstance(source, pd.DataFrame) else None
    if read is not None:
        out = _with_runs(out, read, len(parts) > 1)
    if len(parts) > 1 and not all(p.unit for p in parts):
        other = ", ".join(p.task for p in parts if not p.unit)
        out.settings["notes"].append(
            f"Tasks not pooled: the scores of {other} lie outside 0 to 1, so an average over "
            "tasks would mix scales; each task is compared on its own")
        out = replace(out, recommendation=(
            f"No answer over all tasks: the scores of {other} lie outside 0 to 1, and tasks on "
            "different scales are not averaged; each task's answer is below."))
    return out


def _check_finite(parts: list[ItemSums], score: str) -> None:
    """Refuse scores whose sums of squares overflow a double, naming the source and column.

    Scores beyond about 1e154 square to infinity: the variances, and every test after them,
    would be infinite or NaN.
    """
    for part in parts:
        arrays = (part.sums, part.item_gram, part.cluster_ns, part.cluster_gram, part.within)
        if not all(np.isfinite(np.asarray(a, dtype=float)).all() for a in arrays):
            task = f" (task {shorten(part.task)!r})" if part.task else ""
            raise ValueError(f"{part.source}: column {shorten(score)!r}{task}: the scores are "
                             "too large to compare: their squares overflow a double (the sums "
                             "of squares are infinite; scores beyond about 1e154 do); rescale "
                             "the scores")


def _logs_given(source: Any) -> Any:
    """Return the eval logs given as the source, or None for an item table.

    Logs are inspect's ``EvalLog`` or the result of ``lm_eval.simple_evaluate`` (one model,
    named by the log), or a mapping model -> log, path or list of them; a mapping of columns
    (arrays, lists) is an item table.
    """
    from ..sources.evallogs import is_log_object

    if is_log_object(source):
        return {_log_model(source): source}
    if not isinstance(source, Mapping) or not source:
        return None
    values = list(source.values())
    if all(is_log_object(v) or isinstance(v, str | os.PathLike) for v in values):
        return source
    return None


def _log_model(log: Any) -> str:
    """Return the model a log object names: ``EvalLog.eval.model``, lm-eval's ``model_args``."""
    eval_ = getattr(log, "eval", None)
    if eval_ is not None:
        return str(eval_.model)
    config = log.get("config") or {}
    return str(config.get("model_args") or config.get("model") or "model")


def _with_runs(out: ItemComparison, read: Mapping[str, Any], several: bool) -> ItemComparison:
    """Carry what the eval logs were read as; say first which runs did not finish.

    A run that stopped before its last sample (compared on the items every model answered)
    is stated at the start of the recommendation, the page's first sentence; samples with no
    score (NaN, null) are named in the notes.
    """
    out.settings["eval_logs"] = dict(read)
    said = [f"model {model}: {how}" + (f" in task {task}" if several else "")
            for model, tasks in (read.get("runs") or {}).items() for task, how in tasks.items()]
    unscored = read.get("unscored") or {}
    if unscored:
        out.settings["notes"].append(
            "Samples with no score (NaN or null), skipped: " + "; ".join(
                f"{where}: {len(ids)} ({', '.join(ids[:5])}{', …' if len(ids) > 5 else ''})"
                for where, ids in unscored.items()))
    if not said:
        return out
    said[0] = said[0][0].upper() + said[0][1:]  # the page's first sentence begins here
    runs = ("; ".join(said) + " — compared on the items every model answered "
            "(--common-items), not on the whole task.")
    out.settings["notes"].insert(0, runs)
    out.settings["runs_said"] = runs  # the page says it before anything else
    return replace(out, recommendation=f"{runs} {out.recommendation}".strip())


def _weighted(out: ItemComparison, parts: list[ItemSums], weight: str) -> ItemComparison:
    """State the all-tasks line's weighting; with ``"tasks"``, make it the mean of the tasks.

    The macro line: each model's score is the mean of its task scores, its SE
    ``sqrt(sum SE_t^2) / T``; each pair's difference the mean of its task differences with
    ``sqrt(sum SE_t^2) / T`` (the tasks' paired-difference CR1 SEs); p-values from the Wald
    statistic, t with units - 1 df below 50 units (the one rule, on all tasks' units), Holm
    over the all-tasks pairs; the detectable difference ``(z_{1-α/2} + z_{0.8}) · SE``.
    """
    out.settings["weight"] = weight
    lines = list(out.conclusions)
    if weight == "items":
        return replace(out, conclusions=_said_weight(lines, weight))
    alpha, level = out.alpha, 1 - out.alpha
    own = [p for p in parts if p.task != ALL_TASKS]
    n_tasks = len(own)
    units = sum(p.n_clusters if p.n_clusters is not None else p.n_items for p in own)
    df = t_df(units)
    q = float(norm_isf(alpha / 2) if df is None else t_isf(alpha / 2, df))
    summary = out.summary[out.summary["task"] != ALL_TASKS]
    by_model = summary.groupby("model", sort=False)
    every = pd.DataFrame({"task": ALL_TASKS, "model": list(out.models)})
    every["n"] = int(sum(p.n_items for p in own))
    every["score"] = every["model"].map(by_model["score"].mean())
    every["se"] = every["model"].map(by_model["se"].apply(lambda v: math.sqrt(float(
        (v.to_numpy(float) ** 2).sum())) / n_tasks))
    every["ci_low"], every["ci_high"] = every["score"] - q * every["se"], every["score"] + q * every["se"]
    every["design_effect"] = math.nan
    every["rank"] = every["score"].rank(ascending=False, method="min").astype(int)
    pairs = out.pairs[out.pairs["task"] != ALL_TASKS]
    family = out.pairs[out.pairs["task"] == ALL_TASKS]
    rows = []
    # each pair from every task's sums: a task's own pairs are tested against its own leader,
    # which need not be the all-tasks line's
    for r, est, se in zip(family.itertuples(), *_macro_differences(family, own)):
        est, se = float(est), float(se)
        stat = est / se if se > 0 else (0.0 if est == 0 else math.copysign(math.inf, est))
        p = (float(2 * norm_sf(abs(stat))) if df is None else float(2 * t_sf(abs(stat), df))) \
            if se > 0 else float(est == 0)
        rows.append({"task": ALL_TASKS, "model_a": r.model_a, "model_b": r.model_b,
                     "test": "mean of task differences (macro), Wald "
                             + ("z" if df is None else f"t ({df} df)"),
                     "estimate": est, "ci_low": est - q * se, "ci_high": est + q * se,
                     "statistic": stat, "pvalue": min(p, 1.0), "se": se,
                     "mde": (float(norm_isf(alpha / 2)) + float(norm_isf(1 - POWER))) * se,
                     "items_needed": math.nan, "note": "", "a_right_b_wrong": math.nan,
                     "a_wrong_b_right": math.nan, "design_effect": math.nan,
                     "correlation": math.nan})
    macro = pd.DataFrame(rows, columns=list(dict.fromkeys([*out.pairs.columns, *rows[0]])))
    macro["pvalue_adjusted"] = adjust_pvalues(macro["pvalue"].to_numpy(float), "holm")
    macro["reject"] = macro["pvalue_adjusted"] < alpha
    group = best_group(dict(zip(every["model"], every["score"])), macro)
    every["best"] = every["model"].isin(group)
    design = out.design_table.set_index("task").loc[ALL_TASKS].to_dict()
    design["task"] = ALL_TASKS
    lines = [line for line in lines if not line.startswith(ALL_TASKS_LINE)]
    lines += _conclusions(ALL_TASKS, every, macro, group, design, alpha, None, level)
    last = parts[-1]
    out.best_by_task[ALL_TASKS] = group
    all_pairs = out.all_pairs if out.all_pairs.empty else _macro_all_pairs(
        out.all_pairs, own, alpha, q, df)
    return replace(
        out, summary=pd.concat([summary, every[summary.columns]], ignore_index=True),
        pairs=pd.concat([pairs, macro[pairs.columns]], ignore_index=True), best=group,
        all_pairs=all_pairs,
        conclusions=_said_weight(lines, weight),
        recommendation=_recommend(ALL_TASKS, every, macro, group, alpha,
                                  clustered=last.n_clusters is not None, unit=last.unit))


def _macro_differences(pairs: pd.DataFrame, own: list[ItemSums]) -> tuple[np.ndarray, np.ndarray]:
    """Return each pair's mean of task differences and its SE, ``sqrt(sum SE_t^2) / T``.

    ``pairs`` names the pairs (``model_a``, ``model_b``); each task's paired differences and
    CR1 SEs come from its sums, every pair at once, whichever pairs the task itself tested.
    """
    est = np.zeros(len(pairs))
    var = np.zeros(len(pairs))
    for p in own:
        at = {m: i for i, m in enumerate(p.models)}
        a = pairs["model_a"].map(at).to_numpy(int)
        b = pairs["model_b"].map(at).to_numpy(int)
        diff = paired_differences_all(p, a, b)
        est += diff.estimate
        var += diff.se ** 2
    return est / len(own), np.sqrt(var) / len(own)


def _macro_all_pairs(all_pairs: pd.DataFrame, own: list[ItemSums], alpha: float, q: float,
                     df: int | None) -> pd.DataFrame:
    """Every pair of the all-tasks line as the mean of its task differences (the heat map's).

    As the macro pairs of :func:`_weighted`, for all k (k − 1) / 2 pairs at once: each task's
    paired differences and CR1 SEs from its sums (vectorised), their mean and
    ``sqrt(sum SE_t^2) / T``, the Wald statistic with the same z or t, Holm over every pair.
    """
    est, se = _macro_differences(all_pairs, own)
    flat = se == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(flat, np.where(est == 0, 0.0, np.copysign(np.inf, est)),
                        est / np.where(flat, 1.0, se))
    sf = norm_sf(np.abs(stat)) if df is None else t_sf(np.abs(stat), df)
    pvalue = np.where(flat, (est == 0).astype(float), np.minimum(1.0, 2 * np.asarray(sf, float)))
    out = all_pairs[["model_a", "model_b"]].copy()
    out["estimate"], out["ci_low"], out["ci_high"] = est, est - q * se, est + q * se
    out["statistic"], out["pvalue"] = stat, pvalue
    out["pvalue_adjusted"] = adjust_pvalues(pvalue, "holm")
    out["reject"] = out["pvalue_adjusted"] < alpha
    return out[ALL_PAIR_COLUMNS]


def _said_weight(lines: list[str], weight: str) -> list[str]:
    """Put the line that says the all-tasks weighting after the first all-tasks line."""
    first = next((i for i, line in enumerate(lines) if line.startswith(ALL_TASKS_LINE)), None)
    if first is None:
        return lines
    return [*lines[:first + 1], f"{ALL_TASKS_LINE}{WEIGHT_SAID[weight]}.", *lines[first + 1:]]


def _task_margins(given: dict[str | None, float | None],
                  parts: list[ItemSums]) -> dict[str, float | None]:
    """Give each task its margin: its own, else the one for every task (key None), else none.

    One margin for tasks on different scales would mean different things in each: refused.
    """
    tasks = [p.task for p in parts]
    unknown = [t for t in given if t is not None and t not in tasks]
    if unknown:
        raise ValueError(f"margin for task {unknown[0]!r}, which is not among the tasks "
                         f"({', '.join(repr(t) for t in tasks[:8])})")
    out: dict[str, float | None] = {t: given[t] for t in tasks if given.get(t) is not None}
    default = given.get(None)
    if default is None:
        return out
    rest = [p for p in parts if p.task not in out]
    if len({p.unit for p in rest}) > 1:
        unit = next(p.task for p in rest if p.unit)
        other = next(p.task for p in rest if not p.unit)
        raise ValueError(f"one margin ({default:g}) for tasks on different scales ({unit!r} "
                         f"scores within 0 to 1, {other!r} not): give the margin per task, "
                         "--margin TASK=X")
    out.update({p.task: float(default) for p in rest})
    return out


def _compare_sums(parts: list[ItemSums], *, test: str, margins: dict[str, float | None],
                  alpha: float, holm_over: str = "pairs", family: str = "all",
                  reference: str | None = None) -> ItemComparison:
    level = 1 - alpha
    summaries, pair_frames, designs, best, lines = [], [], [], {}, []
    for s in parts:
        if s.n_items < 2:
            raise ValueError(f"task {s.task!r} has {s.n_items} item(s); at least 2 are needed")
        summary = _summary(s, level, _t_df(s, _use_mcnemar(s, test)))
        summaries.append(summary)
        against = _against(s, summary, family, reference)
        pair_frames.append(_pairs(s, summary, test, level, alpha, margins.get(s.task), against))
    if holm_over == "pairs-tasks":
        _holm_over_tasks(pair_frames, alpha)
    for s, summary, pairs in zip(parts, summaries, pair_frames):
        group = best_group(dict(zip(summary["model"], summary["score"])), pairs, reference)
        summary["best"] = summary["model"].isin(group)
        design = _design_row(s, summary, _use_mcnemar(s, test))
        design["margin"] = margins.get(s.task)
        best[s.task] = group
        lines += _conclusions(s.task, summary, pairs, group, design, alpha, margins.get(s.task),
                              level, reference)
        designs.append(design)
    if holm_over == "pairs-tasks" and len(parts) > 1:
        lines = [line if line.startswith(ALL_TASKS_LINE) else
                 line.replace("Holm's adjustment", "Holm's adjustment over every pair of every task")
                 for line in lines]
    first = parts[0]
    # what to use: from the last part, all tasks together when there are several
    recommendation = (_recommend(parts[-1].task, summary, pairs, group, alpha,
                                 clustered=parts[-1].n_clusters is not None, unit=parts[-1].unit)
                      if reference is None else _against_reference(parts[-1].task, pairs,
                                                                   reference, alpha))
    n_rows = int(sum(s.n_rows for s in parts if s.task != ALL_TASKS))
    return ItemComparison(
        summary=pd.concat(summaries, ignore_index=True), pairs=pd.concat(pair_frames, ignore_index=True),
        design=_whole_design(parts, n_rows), design_table=pd.DataFrame(designs),
        # the best group of the whole: all tasks together, or the one task (tasks not pooled
        # have none)
        best=group if len(parts) == 1 or parts[-1].task == ALL_TASKS else [],
        best_by_task=best, conclusions=lines,
        all_pairs=(_all_pairs(parts[-1], summary, test, level, alpha)
                   if first.n_models > MANY_MODELS else pd.DataFrame()),
        tasks=[s.task for s in parts], models=list(first.models), alpha=alpha,
        margin=_one_margin(margins, parts),
        recommendation=recommendation,
        engine=first.engine, source=first.source, n_rows=n_rows,
        settings={"test": test, "power": POWER, "notes": list(first.notes),
                  "holm_over": holm_over, "family": "reference" if reference else family,
                  "reference": reference,
                  "margins": {s.task: margins.get(s.task) for s in parts}})


def _against(s: ItemSums, summary: pd.DataFrame, family: str,
             reference: str | None) -> int | None:
    """Return the model every other one is tested against (None: every pair is tested)."""
    if reference is not None:
        return s.models.index(reference)
    if family == "all":
        return None
    return s.models.index(by_score(dict(zip(summary["model"], summary["score"])))[0])


ALL_PAIR_COLUMNS = ["model_a", "model_b", "estimate", "ci_low", "ci_high", "statistic", "pvalue",
                    "pvalue_adjusted", "reject"]


def _all_pairs(s: ItemSums, summary: pd.DataFrame, test: str, level: float,
               alpha: float) -> pd.DataFrame:
    """Every pair of one line (all tasks together, or the one task), Holm over all of them."""
    plain = replace(s, k_max=1)  # the plan for repeated answers is made for the pairs tested
    return _pairs(plain, summary, test, level, alpha, None)[ALL_PAIR_COLUMNS]


def _against_reference(task: str, pairs: pd.DataFrame, reference: str, alpha: float) -> str:
    """Say, in one sentence, which models are shown better or worse than the reference.

    >>> pairs = pd.DataFrame({"model_a": ["a", "r"], "model_b": ["r", "c"],
    ...                       "estimate": [0.1, 0.2], "reject": [True, False]})
    >>> print(_against_reference("", pairs, "r", 0.05))
    Against r (each model against it, Holm over 2 pairs at α = 0.05): shown better: a; shown worse: none; not shown to differ: c.
    """
    from .prediction_conclusions import join_names

    better: list[str] = []
    worse: list[str] = []
    same: list[str] = []
    for r in pairs.itertuples():
        other = r.model_b if r.model_a == reference else r.model_a
        sign = 1 if r.model_b == reference else -1
        (same if not r.reject else better if sign * r.estimate > 0 else worse).append(other)
    where = " over all tasks" if task == ALL_TASKS else ""

    def said(names: list[str]) -> str:
        return join_names(names) if names else "none"

    return (f"Against {reference}{where} (each model against it, Holm over {len(pairs)} pairs "
            f"at α = {alpha:g}): shown better: {said(better)}; shown worse: {said(worse)}; "
            f"not shown to differ: {said(same)}.")


def _whole_design(parts: list[ItemSums], n_rows: int) -> dict[str, Any]:
    """Describe the design of the whole comparison (each task's is a row of ``design_table``).

    >>> frame = pd.DataFrame({"item": [1, 2, 3, 4] * 2, "model": ["a"] * 4 + ["b"] * 4,
    ...                       "score": [1, 0, 1, 1, 0, 0, 1, 1], "doc": [0, 0, 1, 1] * 2})
    >>> _whole_design(count_items(frame, cluster="doc"), 8)["description"]
    '4 items in 2 clusters'
    """
    own = [p for p in parts if p.task != ALL_TASKS]
    items = int(sum(p.n_items for p in own))
    clustered = all(p.n_clusters is not None for p in own)
    clusters = int(sum(p.n_clusters or 0 for p in own)) if clustered else None
    answers = int(max(p.k_max for p in own))
    said = [f"{len(own)} tasks"] if len(own) > 1 else []
    said.append(f"{items:,} items in {clusters:,} clusters" if clusters is not None
                else f"{items:,} items, taken as independent")
    if answers > 1:
        said.append(f"up to {answers} answers per item and model")
    return {"design": "clustered items" if clustered else "independent items",
            "tasks": len(own), "items": items, "clusters": clusters, "answers_max": answers,
            "rows": n_rows, "description": ", ".join(said)}


def _one_margin(margins: dict[str, float | None], parts: list[ItemSums]) -> float | None:
    """Return the margin when every task has the same one, else None (each task's: settings)."""
    values = {margins.get(s.task) for s in parts}
    return values.pop() if len(values) == 1 else None
