"""Models compared across data sets: every number the data-set report shows.

:func:`compare_datasets` reads a results table once
(:func:`precmp_lib.engine.datasets.count_datasets`: one score per data set and model, or per
fold) and computes, from the N x k table of scores,

- each model's mean rank (1 = best) and its mean and median score;
- the omnibus tests: Friedman's χ² and Iman and Davenport's F (with two models: the Wilcoxon
  signed-rank test, exact where it can be, and the sign test with wins, ties and losses);
- every pair by the Wilcoxon signed-rank test, Holm-adjusted over the pairs (the post-hoc that
  Benavoli, Corani and Mangili 2016 recommend: a mean-rank test's p-value for two models
  depends on which other models are in the pool), with Nemenyi's mean-rank test and critical
  difference beside it as the classic view; against a ``reference`` the same over its k - 1
  pairs;
- each pair's effect sizes: the median difference with its Hodges–Lehmann interval, the
  probability that A beats B on a data set and Cliff's delta;
- the Bayesian signed-rank test of every pair with a region of practical equivalence;
- with per-fold scores, each data set's own corrected resampled t (Nadeau–Bengio) for every
  pair, Holm-adjusted within the data set;
- the best group and the sentence that answers the question.

The result, :class:`DatasetComparison`, holds plain tables and sentences; the report only
shows them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._lib.dist import norm_sf
from ..engine.datasets import DatasetScores, count_datasets
from ..stats.bayesian import bayes_signed_rank_test
from ..stats.multiple import adjust_pvalues
from ..stats.posthoc import critical_difference, nemenyi, rank_cliques
from ..stats.ranks import (
    cliffs_delta_matrix,
    friedman,
    hodges_lehmann_interval,
    iman_davenport,
    rank_data,
    sign_counts,
    sign_pvalues,
    signed_rank_normal,
    wilcoxon,
)
from ..stats.resampling import corrected_resampled_ttest
from .base import Comparison, best_group

__all__ = ["BAYES_LIMIT", "CD_MODELS", "DatasetComparison", "compare_datasets",
           "compare_predictions_by_dataset"]

# The CD diagram is drawn up to this many models; beyond it the page shows a ranked table
CD_MODELS = 20
# The Bayesian signed-rank matrix runs while pairs x N² stays under this (each posterior draw
# is a quadratic form in the N + 1 Dirichlet weights)
BAYES_LIMIT = 2_000_000
BAYES_SAMPLES = 20_000
# The Hodges–Lehmann intervals of every pair are computed while the pairs' Walsh averages
# (N(N+1)/2 each) number at most this; beyond it, those of the top model's pairs only
WALSH_LIMIT = 20_000_000
# Up to this many data sets the Wilcoxon test uses its exact (permutation) distribution
EXACT_DATASETS = 50
CITATIONS = {
    "friedman": "Friedman (1937)",
    "iman": "Iman & Davenport (1980)",
    "demsar": "Demšar (2006)",
    "wilcoxon": "Wilcoxon (1945)",
    "holm": "Holm (1979)",
    "benavoli": "Benavoli, Corani & Mangili (2016)",
    "nemenyi": "Nemenyi (1963)",
    "bayes": "Benavoli, Corani, Demšar & Zaffalon (2017)",
    "hl": "Hodges & Lehmann (1963)",
    "cliff": "Cliff (1993)",
    "nb": "Nadeau & Bengio (2003)",
    "hierarchical": "Corani, Benavoli, Demšar, Mangili & Zaffalon (2017)",
}
# The hierarchical model's sampler (NUTS, NumPyro): chains, warm-up and kept draws per chain
HIERARCHICAL_SAMPLER = {"chains": 4, "warmup": 500, "samples": 1000}


@dataclass(frozen=True, kw_only=True)
class DatasetComparison(Comparison):
    """The comparison of several models across data sets (route ``"datasets"``).

    The core fields and the JSON codec are :class:`~precmp_lib.compare.base.Comparison`'s.

    Attributes
    ----------
    summary : DataFrame
        One row per model, best mean rank first: ``model``, ``mean_rank`` (1 = best),
        ``rank`` (1, 2, ... by mean rank), ``mean_score``, ``median_score``, ``firsts`` (data
        sets where the model ranks first, ties shared), ``group`` (letters: models sharing a
        letter are not shown to differ by the Holm-adjusted Wilcoxon tests), ``best``.
    pairs : DataFrame
        One row per pair, the better-ranked model as A: ``model_a``, ``model_b``, ``test``,
        ``estimate`` (the Hodges–Lehmann median of score A - B), ``ci_low``, ``ci_high``,
        ``statistic`` (Wilcoxon's V), ``pvalue``, ``pvalue_adjusted`` (Holm over the pairs),
        ``reject``, ``wins``, ``ties``, ``losses`` (data sets where A scores better, equal,
        worse), ``sign_pvalue``, ``prob_superiority`` (share of data sets A wins, ties
        counted half), ``cliffs_delta`` (of A's and B's scores, score units' direction),
        ``rank_a``, ``rank_b``, ``nemenyi_pvalue``, ``nemenyi_reject``, ``bayes_a_better``,
        ``bayes_rope``, ``bayes_b_better``, ``bayes_decision``.
    omnibus : DataFrame
        ``test``, ``statistic``, ``df``, ``pvalue``, ``note``: Friedman and Iman–Davenport (two
        models: Wilcoxon and the sign test).
    reference_pairs : DataFrame
        With a reference: one row per other model (``model_a`` the model, ``model_b`` the
        reference), the ``pairs`` columns with Holm over these k - 1 pairs, and
        ``rank_pvalue_adjusted`` (Holm on the mean-rank z tests); else empty.
    per_dataset : DataFrame
        One row per data set and model: ``dataset``, ``model``, ``score``, ``rank``.
    fold_tests : DataFrame
        With per-fold scores: one row per data set and pair: ``dataset``, ``model_a``,
        ``model_b``, ``folds``, ``estimate`` (mean of A - B), ``ci_low``, ``ci_high``,
        ``statistic`` (corrected t), ``df``, ``pvalue``, ``pvalue_adjusted`` (Holm within the
        data set), ``reject``; else empty.
    hierarchical : DataFrame
        With per-fold scores and ``hierarchical=True``: one row per pair (against the
        reference if given), the Bayesian hierarchical model of Corani et al. (2017):
        ``model_a``, ``model_b``, ``p_a_better``, ``p_rope``, ``p_b_better`` (for the next
        data set, baycomp's convention), ``decision``, ``predictive_a_better``,
        ``predictive_rope``, ``predictive_b_better``, ``delta0_mean``, ``delta0_low``,
        ``delta0_high`` (the mean advantage of A across data sets, score units, positive when
        A is better, with its 95% interval), ``rhat_max``, ``ess_min``, ``divergences``; else
        empty. The sampler's settings are in ``settings["hierarchical"]``.
    datasets : list of str
        The data sets compared.
    dropped : list of str
        Data sets left out because a model had no score on them (``common_datasets``).
    lower_is_better : bool
    reference : str or None
    rope : float
        Half-width of the region of practical equivalence of the Bayesian test, score units.
    critical_difference : float or None
        Nemenyi's critical difference of mean ranks (three models or more).
    groups : dict
        ``"wilcoxon_holm"`` and ``"nemenyi"``: lists of groups (models not shown to differ,
        adjacent in mean rank), the bars of a critical-difference diagram.
    notes : list of str
        What qualifies the tests: the χ² approximation for few data sets, ties, N and k.
    methods : str
        A paragraph to paste in a paper's methods section.
    """

    kind: ClassVar[str] = "datasets"
    omnibus: pd.DataFrame
    reference_pairs: pd.DataFrame
    per_dataset: pd.DataFrame
    fold_tests: pd.DataFrame
    datasets: list[str]
    dropped: list[str] = field(default_factory=list)
    lower_is_better: bool = False
    reference: str | None = None
    rope: float = 0.0
    critical_difference: float | None = None
    groups: dict[str, list[list[str]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    methods: str = ""
    hierarchical: pd.DataFrame = field(default_factory=pd.DataFrame)

    def matrix(self) -> pd.DataFrame:
        """Return the N x k table of scores (data sets x models), in the models' order.

        Returns
        -------
        DataFrame
        """
        table = self.per_dataset.pivot(index="dataset", columns="model", values="score")
        return table.loc[self.datasets, self.models]


def _direction(lower_is_better: bool) -> float:
    return -1.0 if lower_is_better else 1.0


def _checked(read: DatasetScores, reference: str | None) -> None:
    name = read.source
    if len(read.models) < 2:
        raise ValueError(f"{name}: need at least two models to compare; found "
                         f"{read.models}")
    if len(read.datasets) < 3:
        dropped = f" ({len(read.dropped)} left out by --common-datasets)" if read.dropped else ""
        raise ValueError(f"{name}: need at least three data sets to compare models across data "
                         f"sets; found {len(read.datasets)}{dropped}")
    if reference is not None and reference not in read.models:
        raise ValueError(f"{name}: --reference {reference!r} is not one of the models "
                         f"{read.models}")


def _signed_ranks(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """Every pair's Wilcoxon V and p-value: exact up to EXACT_DATASETS data sets, else normal.

    ``x`` and ``y`` are N x P: column p holds pair p's scores.
    """
    if x.shape[0] > EXACT_DATASETS:
        v, p = signed_rank_normal(x, y)
        return v, p, "normal"
    res = [wilcoxon(x[:, j], y[:, j], method="exact") for j in range(x.shape[1])]
    return (np.array([r.statistic for r in res]), np.array([r.pvalue for r in res]), "exact")


def _median_difference(a: np.ndarray, b: np.ndarray, level: float,
                       walsh: bool) -> dict[str, float]:
    """Return the Hodges–Lehmann median difference with its interval (NaN without ``walsh``)."""
    est, lo, hi = (hodges_lehmann_interval(a, b, confidence_level=level) if walsh
                   else (math.nan, math.nan, math.nan))
    return {"estimate": est, "ci_low": lo, "ci_high": hi}


def _bayes(x: np.ndarray, y: np.ndarray, sign: float, rope: float, seed: int) -> dict[str, Any]:
    res = bayes_signed_rank_test(sign * x, sign * y, rope=rope, n_samples=BAYES_SAMPLES,
                                 random_state=seed)
    return {"bayes_a_better": res.p_a_better, "bayes_rope": res.p_rope,
            "bayes_b_better": res.p_b_better, "bayes_decision": res.decision(0.95)}


def _pairs(matrix: pd.DataFrame, order: list[str], ranks: pd.Series, sign: float, alpha: float,
           rope: float, seed: int, pairs: Sequence[tuple[str, str]],
           nemenyi_p: pd.DataFrame | None, bayes: bool) -> pd.DataFrame:
    """Every pair asked for: Wilcoxon + Holm, sign test, effect sizes, Nemenyi, Bayes."""
    n = len(matrix)
    x = matrix[[a for a, _ in pairs]].to_numpy(float)
    y = matrix[[b for _, b in pairs]].to_numpy(float)
    v, p, distribution = _signed_ranks(x, y)
    wins, ties, losses = sign_counts(x, y, higher_is_better=sign > 0)
    sign_p = sign_pvalues(wins, losses)
    delta = cliffs_delta_matrix(matrix)
    # the Walsh averages of every pair, while they fit the budget; else the top model's pairs
    every = len(pairs) * n * (n + 1) / 2 <= WALSH_LIMIT
    rows = []
    for i, (a, b) in enumerate(pairs):
        row: dict[str, Any] = {"model_a": a, "model_b": b, "test": "Wilcoxon signed-rank"}
        row.update(_median_difference(x[:, i], y[:, i], 1 - alpha, every or order[0] in (a, b)))
        row["cliffs_delta"] = float(delta.loc[a, b])
        row.update({"statistic": v[i], "pvalue": p[i], "wins": int(wins[i]),
                    "ties": int(ties[i]), "losses": int(losses[i]), "sign_pvalue": sign_p[i],
                    "prob_superiority": (wins[i] + ties[i] / 2) / n,
                    "distribution": distribution,
                    "rank_a": float(ranks[a]), "rank_b": float(ranks[b])})
        if nemenyi_p is not None:
            row["nemenyi_pvalue"] = float(nemenyi_p.loc[a, b])
            row["nemenyi_reject"] = row["nemenyi_pvalue"] <= alpha
        if bayes:
            row.update(_bayes(x[:, i], y[:, i], sign, rope, seed + i))
        rows.append(row)
    out = pd.DataFrame(rows)
    cols = ["model_a", "model_b", "test", "estimate", "ci_low", "ci_high", "statistic", "pvalue"]
    out = out[cols + [c for c in out.columns if c not in cols]]
    out.insert(out.columns.get_loc("pvalue") + 1, "pvalue_adjusted",
               adjust_pvalues(out["pvalue"].to_numpy(), "holm"))
    out.insert(out.columns.get_loc("pvalue_adjusted") + 1, "reject",
               out["pvalue_adjusted"] <= alpha)
    out.attrs["adjustment"] = "holm"
    return out


def _omnibus(matrix: pd.DataFrame, sign: float, pairs: pd.DataFrame) -> pd.DataFrame:
    hib = sign > 0
    if matrix.shape[1] == 2:
        row = pairs.iloc[0]
        return pd.DataFrame([
            {"test": "Wilcoxon signed-rank (" + str(row["distribution"]) + ")",
             "statistic": row["statistic"], "df": np.nan, "pvalue": row["pvalue"], "note": ""},
            {"test": "sign test (exact binomial, ties set aside)", "statistic": row["wins"],
             "df": np.nan, "pvalue": row["sign_pvalue"],
             "note": f"{row['wins']} wins, {row['ties']} ties, {row['losses']} losses"}])
    f = friedman(matrix, higher_is_better=hib)
    i = iman_davenport(matrix, higher_is_better=hib)
    return pd.DataFrame([
        {"test": f.method, "statistic": f.statistic, "df": f"{f.df:g}", "pvalue": f.pvalue,
         "note": f.note, "kendall_w": f.details["kendall_w"]},
        {"test": i.method, "statistic": i.statistic,
         "df": ", ".join(f"{v:g}" for v in np.atleast_1d(np.asarray(i.df, dtype=float))),
         "pvalue": i.pvalue, "note": i.note, "kendall_w": np.nan}])


def _letters(order: list[str], groups: list[list[str]]) -> dict[str, str]:
    """Letters of the groups a model belongs to (a, b, ...; a model in no group gets its own)."""
    out = {m: "" for m in order}
    covered = {m for g in groups for m in g}
    blocks = [list(g) for g in groups] + [[m] for m in order if m not in covered]
    blocks.sort(key=lambda g: order.index(g[0]))
    for n, g in enumerate(blocks):
        letter = _letter(n)
        for m in g:
            out[m] += letter
    return out


def _letter(n: int) -> str:
    """Return the n-th group letter: a, b, ..., z, aa, ab, ...

    >>> _letter(0), _letter(25), _letter(26)
    ('a', 'z', 'aa')
    """
    text = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        text = chr(97 + r) + text
    return text


def _groups(order: list[str], ranks: pd.Series, pairs: pd.DataFrame, col: str) -> list[list[str]]:
    sig = pd.DataFrame(False, index=order, columns=order)
    for r in pairs.itertuples():
        if getattr(r, col):
            sig.loc[r.model_a, r.model_b] = sig.loc[r.model_b, r.model_a] = True
    return [list(g) for g in rank_cliques(ranks.loc[order], sig)]


def _fold_tests(read: DatasetScores, order: list[str], alpha: float) -> pd.DataFrame:
    """Each data set's corrected resampled t of every pair, Holm within the data set."""
    if not read.folds:
        return pd.DataFrame()
    keys = [k for k in ("repeat", "fold") if k in read.scores.columns]
    rows: list[dict[str, Any]] = []
    for ds, part in read.scores.groupby("dataset", sort=False):
        wide = part.pivot_table(index=keys, columns="model", values="score", aggfunc="first")
        folds = part[keys[-1]].nunique()  # K of K-fold: n_test / n_train = 1 / (K - 1)
        ratio = 1.0 / max(folds - 1, 1)
        start = len(rows)
        for a, b in combinations(order, 2):
            res = corrected_resampled_ttest(wide[a].to_numpy(float), wide[b].to_numpy(float),
                                            test_train_ratio=ratio, confidence_level=1 - alpha)
            rows.append({"dataset": ds, "model_a": a, "model_b": b, "folds": len(wide),
                         "estimate": res.estimate, "ci_low": res.ci_low, "ci_high": res.ci_high,
                         "statistic": res.statistic, "df": res.df, "pvalue": res.pvalue})
        p = np.array([r["pvalue"] for r in rows[start:]], dtype=float)
        adj = adjust_pvalues(np.where(np.isnan(p), 1.0, p), "holm")
        for r, q in zip(rows[start:], adj):
            r["pvalue_adjusted"], r["reject"] = float(q), bool(q <= alpha)
    return pd.DataFrame(rows)


def _hierarchical(read: DatasetScores, pairs: Sequence[tuple[str, str]], sign: float,
                  rope: float, alpha: float, seed: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Every pair's hierarchical Bayesian model across data sets from the per-fold scores."""
    from ..stats.hierarchical import hierarchical_tests

    if not read.folds or "fold" not in read.scores.columns:
        raise ValueError(f"{read.source}: the hierarchical model needs per-fold scores (a "
                         "'fold' column, and 'repeat' for repeated cross-validation)")
    keys = [k for k in ("repeat", "fold") if k in read.scores.columns]
    wide = {ds: part.pivot_table(index=keys, columns="model", values="score", aggfunc="first")
            for ds, part in read.scores.groupby("dataset", sort=False)}
    sizes = {ds: len(w) for ds, w in wide.items()}
    if len(set(sizes.values())) != 1:
        odd = sorted(sizes.items(), key=lambda kv: kv[1])[0]
        raise ValueError(f"{read.source}: the hierarchical model needs the same number of folds "
                         f"on every data set; {odd[0]!r} has {odd[1]}, others "
                         f"{max(sizes.values())}")
    folds = int(read.scores["fold"].nunique())
    diff = np.stack([np.stack([sign * (w[a].to_numpy(float) - w[b].to_numpy(float))
                               for w in wide.values()]) for a, b in pairs])
    results = hierarchical_tests(diff, rope, folds=folds, random_state=seed,
                                 **HIERARCHICAL_SAMPLER)
    rows = []
    for (a, b), res in zip(pairs, results):
        d = res.details
        rows.append({"model_a": a, "model_b": b, "p_a_better": res.p_a_better,
                     "p_rope": res.p_rope, "p_b_better": res.p_b_better,
                     "decision": res.decision(1 - alpha, (a, b)),
                     **{k: d.get(k, math.nan) for k in (
                         "predictive_a_better", "predictive_rope", "predictive_b_better",
                         "delta0_mean", "delta0_low", "delta0_high", "rhat_max", "ess_min")},
                     "divergences": int(d.get("divergences", 0))})
    first = next((r.details for r in results if "sampler" in r.details), {})
    settings = {**HIERARCHICAL_SAMPLER, "sampler": first.get("sampler", ""),
                "folds": folds, "scores_per_dataset": int(diff.shape[2]), "rho": 1.0 / folds,
                "divergences": int(first.get("divergences", 0)), "rope": rope}
    return pd.DataFrame(rows), settings


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def answer(n: int, summary: pd.DataFrame, pairs: pd.DataFrame, alpha: float,
           reference: str | None = None) -> str:
    """Say the answer in one sentence: who ranks first, and whom it is shown to beat.

    >>> s = pd.DataFrame({"model": ["rf", "knn", "nb"], "mean_rank": [1.2, 2.0, 2.8]})
    >>> p = pd.DataFrame({"model_a": ["rf", "rf", "knn"], "model_b": ["knn", "nb", "nb"],
    ...                   "reject": [False, True, False]})
    >>> answer(20, s, p, 0.05)
    'Over 20 data sets, rf ranks first (mean rank 1.2); it is not shown to differ from knn; it beats nb (Holm-adjusted Wilcoxon signed-rank tests, α = 0.05).'
    >>> tie = pd.DataFrame({"model": ["a", "b", "c"], "mean_rank": [1.5, 1.5, 3.0]})
    >>> q = pd.DataFrame({"model_a": ["a", "a", "b"], "model_b": ["b", "c", "c"],
    ...                   "reject": [False, True, True]})
    >>> answer(8, tie, q, 0.05)
    'Over 8 data sets, a and b share first place (mean rank 1.50); a beats c (Holm-adjusted Wilcoxon signed-rank tests, α = 0.05).'
    """
    top = str(summary["model"].iloc[0])
    rank = float(summary["mean_rank"].iloc[0])
    same: list[str] = []
    beaten: list[str] = []
    for m in summary["model"].iloc[1:]:
        row = pairs[((pairs.model_a == top) & (pairs.model_b == m))
                    | ((pairs.model_a == m) & (pairs.model_b == top))]
        if row.empty:
            continue
        (beaten if bool(row["reject"].iloc[0]) else same).append(str(m))
    shown = f"{rank:.2f}" if rank < 10 else f"{rank:.1f}"
    # models whose mean rank equals the top one share first place: none of them ranks first
    tied = [str(m) for m, r in zip(summary["model"], summary["mean_rank"])
            if abs(float(r) - rank) <= 1e-12]
    if len(tied) > 1:
        parts = [f"Over {n} data sets, {_and(tied)} share first place (mean rank {shown})"]
        same = [m for m in same if m not in tied]
        it = top
    else:
        parts = [f"Over {n} data sets, {top} ranks first (mean rank {shown})"]
        it = "it"
    if same:
        parts.append(f"{it} is not shown to differ from {_and(same)}")
    if beaten:
        parts.append(f"{it} beats {_and(beaten)}")
    if not same and not beaten and reference:
        parts.append(f"it was compared with the reference {reference} only")
    return "; ".join(parts) + f" (Holm-adjusted Wilcoxon signed-rank tests, α = {alpha:g})."


def _notes(read: DatasetScores, matrix: pd.DataFrame, sign: float, bayes: bool,
           n_pairs: int) -> list[str]:
    n, k = matrix.shape
    out = []
    if k > 2 and (n <= 10 or k <= 5):
        out.append(f"N = {n} data sets and k = {k} models: Friedman's χ² approximation wants N "
                   "> 10 and k > 5 (Demšar 2006); Iman–Davenport's F is the one to read.")
    if n <= EXACT_DATASETS:
        out.append(f"With N = {n} data sets the Wilcoxon p-values use the exact permutation "
                   "distribution of the signed ranks (mid-ranks for ties).")
    else:
        out.append(f"With N = {n} data sets the Wilcoxon p-values use the normal "
                   "approximation with tie-corrected variance.")
    ranks = rank_data(matrix, higher_is_better=sign > 0).matrix
    tied = 0 if ranks is None else int(np.sum([len(r) - len(np.unique(r)) > 0 for r in ranks]))
    if tied:
        out.append(f"{tied} of {n} data sets have tied scores (equal to 12 significant digits): "
                   "tied models share the mean of their ranks, Friedman's statistic is "
                   "tie-corrected, and the sign test sets ties aside.")
    if n < 6:
        out.append(f"With N = {n} data sets no two-sided Wilcoxon test can reach p < 0.05: "
                   "compare on more data sets.")
    if not bayes:
        out.append(f"The Bayesian signed-rank matrix was not computed: {n_pairs} pairs over "
                   f"{n} data sets exceed its budget ({BAYES_LIMIT:,} pair × N² terms).")
    if n_pairs * n * (n + 1) / 2 > WALSH_LIMIT:
        out.append(f"The Hodges–Lehmann median differences and intervals are given for the "
                   f"pairs of the top model only: {n_pairs} pairs over {n} data sets exceed "
                   f"their budget ({WALSH_LIMIT:,} Walsh averages); the other pairs' "
                   "Wilcoxon tests, win counts and Cliff's deltas are complete.")
    if k > CD_MODELS:
        out.append(f"{k} models: the critical-difference diagram is readable up to "
                   f"{CD_MODELS}; the ranked table shows the same groups.")
    if read.dropped:
        out.append(f"{len(read.dropped)} data sets were left out because a model had no score "
                   f"on them (--common-datasets): {', '.join(read.dropped[:10])}"
                   + (" ..." if len(read.dropped) > 10 else "") + ".")
    return out


def _methods(n: int, k: int, alpha: float, rope: float, reference: str | None, bayes: bool,
             folds: bool, lower: bool) -> str:
    c = CITATIONS
    what = "lower scores better" if lower else "higher scores better"
    text = [f"We compared {k} models on {n} data sets ({what}). Within each data set the "
            f"models were ranked (1 = best, ties sharing the mean rank) and compared by mean "
            f"rank."]
    if k > 2:
        text.append(f"Friedman's test ({c['friedman']}) with Iman and Davenport's F "
                    f"({c['iman']}) tested whether all models perform alike ({c['demsar']}).")
    text.append(f"Pairs of models were compared with the Wilcoxon signed-rank test "
                f"({c['wilcoxon']}) on the per-data-set scores, with Holm's adjustment "
                f"({c['holm']}) over the {k * (k - 1) // 2 if reference is None else k - 1} "
                f"comparisons{'' if reference is None else ' against ' + reference}, at "
                f"α = {alpha:g}, as recommended by {c['benavoli']} over mean-rank tests, whose "
                "p-values depend on the other models compared.")
    if k > 2:
        text.append(f"Nemenyi's test ({c['nemenyi']}) and its critical difference of mean ranks "
                    "are reported as the classic view.")
    text.append(f"Effect sizes are the Hodges–Lehmann median difference with its "
                f"distribution-free {100 * (1 - alpha):g} % interval ({c['hl']}), the share of "
                f"data sets won and Cliff's delta ({c['cliff']}).")
    if bayes:
        text.append(f"The Bayesian signed-rank test ({c['bayes']}) gave the posterior "
                    f"probabilities that one model is better, that the two are practically "
                    f"equivalent (a region of practical equivalence of ±{rope:g} in score "
                    "units), or that the other is better, with decisions at 0.95.")
    if folds:
        text.append(f"Within each data set, pairs were compared on the per-fold scores with the "
                    f"corrected resampled t-test ({c['nb']}), Holm-adjusted within the data "
                    "set.")
    return " ".join(text)


def compare_datasets(
    source: Any,
    *,
    dataset: str | None = None,
    model: str = "model",
    score: str = "score",
    models: Sequence[str] | None = None,
    layout: str = "auto",
    lower_is_better: bool = False,
    reference: str | None = None,
    rope: float = 0.01,
    alpha: float = 0.05,
    common_datasets: bool = False,
    engine: str = "auto",
    random_state: int = 0,
    hierarchical: bool = False,
) -> DatasetComparison:
    """Compare models across data sets: ranks, Friedman, post-hoc tests, effect sizes, Bayes.

    Parameters
    ----------
    source : DataFrame, mapping of arrays, path, glob, DuckDB relation, Spark DataFrame or DatasetScores
        A results table, wide (a data-set column and one numeric column per model) or long
        (``dataset``, ``model``, ``score`` [, ``repeat``, ``fold``]); see
        :func:`precmp_lib.engine.datasets.count_datasets`.
    dataset, model, score, models, layout, common_datasets, engine
        As for :func:`~precmp_lib.engine.datasets.count_datasets`.
    lower_is_better : bool
        The scores are errors or losses (the lowest is best).
    reference : str, optional
        Also compare every model with this one (Holm over its k - 1 pairs); the best group is
        then decided against it.
    rope : float
        Half-width of the region of practical equivalence of the Bayesian signed-rank test, in
        score units (default 0.01: one point of accuracy).
    alpha : float
        Level of the decisions.
    random_state : int
        Seed of the Bayesian test's Monte Carlo draws (and of the hierarchical model's sampler).
    hierarchical : bool
        With per-fold scores (``fold`` and optionally ``repeat`` columns), also fit the
        Bayesian hierarchical model across data sets (Corani et al. 2017) to every pair (to
        the pairs with the reference if given): :mod:`precmp_lib.stats.hierarchical`, sampled
        with NumPyro, an optional extra (``pip install -r requirements-bayes.txt``).

    Returns
    -------
    DatasetComparison

    Raises
    ------
    ValueError
        Fewer than two models or three data sets, a reference that is not a model, and the
        reader's errors (:class:`~precmp_lib.engine.datasets.DatasetFileError`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> base = rng.uniform(0.6, 0.9, 12)
    >>> wide = pd.DataFrame({"dataset": [f"d{i}" for i in range(12)],
    ...                      "rf": base + 0.04, "lr": base + 0.01, "nb": base - 0.03})
    >>> cmp = compare_datasets(wide)
    >>> cmp.summary["model"].tolist(), cmp.best
    (['rf', 'lr', 'nb'], ['rf'])
    >>> cmp.conclusions[0]
    'Over 12 data sets, rf ranks first (mean rank 1.00); it beats lr and nb (Holm-adjusted Wilcoxon signed-rank tests, α = 0.05).'
    """
    read = source if isinstance(source, DatasetScores) else count_datasets(
        source, dataset=dataset, model=model, score=score, models=models, layout=layout,
        common_datasets=common_datasets, engine=engine)
    _checked(read, reference)
    if not (isinstance(rope, int | float) and math.isfinite(rope) and rope >= 0):
        raise ValueError(f"rope must be a number >= 0; got {rope!r}")
    sign = _direction(lower_is_better)
    matrix = read.matrix()
    n, k = matrix.shape
    data = rank_data(matrix, higher_is_better=not lower_is_better)
    ranks = data.ranks.rename(None)
    ranks.index = list(matrix.columns)
    order = sorted(read.models, key=lambda m: (float(ranks[m]), read.models.index(m)))
    all_pairs = list(combinations(order, 2))
    bayes = len(all_pairs) * (n + 1) ** 2 <= BAYES_LIMIT
    nem = nemenyi(matrix, alpha=alpha, higher_is_better=not lower_is_better) if k > 2 else None
    pairs = _pairs(matrix, order, ranks, sign, alpha, rope, random_state, all_pairs,
                   None if nem is None else nem.pvalues, bayes)
    reference_pairs = pd.DataFrame()
    if reference is not None:
        others = [(m, reference) for m in order if m != reference]
        reference_pairs = _pairs(matrix, order, ranks, sign, alpha, rope, random_state,
                                 others, None, False)
        z = (reference_pairs["rank_a"] - reference_pairs["rank_b"]) / data.se
        p = np.minimum(1.0, 2.0 * norm_sf(np.abs(z.to_numpy())))
        reference_pairs["rank_pvalue_adjusted"] = adjust_pvalues(p, "holm")
    groups = {"wilcoxon_holm": _groups(order, ranks, pairs, "reject")}
    if nem is not None:
        groups["nemenyi"] = [list(g) for g in nem.cliques]
    letters = _letters(order, groups["wilcoxon_holm"])
    rank_matrix = pd.DataFrame(data.matrix, index=matrix.index, columns=matrix.columns)
    summary = pd.DataFrame({
        "model": order, "mean_rank": [float(ranks[m]) for m in order],
        "rank": np.arange(1, k + 1),
        "mean_score": [float(matrix[m].mean()) for m in order],
        "median_score": [float(matrix[m].median()) for m in order],
        "firsts": [float((rank_matrix[m] == rank_matrix.min(axis=1)).sum()) for m in order],
        "group": [letters[m] for m in order]})
    score_of = {m: -float(ranks[m]) for m in order}  # by_score ranks highest first
    if reference is None:
        best = best_group(score_of, pairs)
    else:
        signed = reference_pairs.assign(estimate=sign * reference_pairs["estimate"])
        best = best_group(score_of, signed, reference)
    summary["best"] = summary["model"].isin(best)
    per_dataset = matrix.reset_index().melt(id_vars="dataset", var_name="model",
                                            value_name="score")
    per_dataset["rank"] = rank_matrix.reset_index(drop=True).melt()["value"].to_numpy()
    cd = critical_difference(k, n, alpha=alpha) if k > 2 else None
    sentence = answer(n, summary, pairs, alpha)
    notes = _notes(read, matrix, sign, bayes, len(all_pairs))
    fold_tests = _fold_tests(read, order, alpha)
    hier, hier_settings = (_hierarchical(read, [(m, reference) for m in order if m != reference]
                                         if reference else all_pairs, sign, rope, alpha,
                                         random_state)
                           if hierarchical else (pd.DataFrame(), {}))
    conclusions = [sentence, *_reference_lines(reference, reference_pairs, sign),
                   *_fold_lines(fold_tests, n, reference or order[0])]
    settings = {"dataset": dataset, "layout": read.layout, "lower_is_better": lower_is_better,
                "reference": reference, "rope": rope, "common_datasets": common_datasets,
                "folds": read.folds, "bayes_samples": BAYES_SAMPLES if bayes else 0,
                "random_state": random_state, "notes": list(read.notes),
                "hierarchical": hier_settings}
    return DatasetComparison(
        models=list(read.models), summary=summary, pairs=pairs, best=best,
        design={"datasets": n, "models": k, "folds": read.folds,
                "description": f"{k} models on {n} data sets"
                               + (", scores per fold" if read.folds else "")},
        settings=settings, alpha=alpha, engine=read.engine, source=read.source,
        n_rows=read.n_rows, recommendation=sentence, conclusions=conclusions,
        omnibus=_omnibus(matrix, sign, pairs), reference_pairs=reference_pairs,
        per_dataset=per_dataset, fold_tests=fold_tests, datasets=list(read.datasets),
        dropped=list(read.dropped), lower_is_better=lower_is_better, reference=reference,
        rope=float(rope), critical_difference=cd, groups=groups, notes=notes,
        methods=_methods(n, k, alpha, rope, reference, bayes, read.folds, lower_is_better)
        + _hierarchical_methods(hier_settings),
        hierarchical=hier)


def _hierarchical_methods(settings: dict[str, Any]) -> str:
    if not settings:
        return ""
    return (f" With the per-fold scores, each pair was also compared by the Bayesian "
            f"hierarchical model of {CITATIONS['hierarchical']} (fold correlation "
            f"ρ = 1/{settings['folds']}, ROPE ±{settings['rope']:g}), sampled by NUTS in "
            f"NumPyro ({settings['chains']} chains of {settings['samples']} draws after "
            f"{settings['warmup']} warm-up iterations).")


def _reference_lines(reference: str | None, ref: pd.DataFrame, sign: float) -> list[str]:
    if reference is None or ref.empty:
        return []
    better = [r.model_a for r in ref.itertuples() if r.reject and sign * r.estimate > 0]
    worse = [r.model_a for r in ref.itertuples() if r.reject and sign * r.estimate < 0]
    same = [r.model_a for r in ref.itertuples() if not r.reject]
    parts = []
    if better:
        parts.append(f"{_and(better)} {'beats' if len(better) == 1 else 'beat'} it")
    if worse:
        parts.append(f"it beats {_and(worse)}")
    if same:
        parts.append(f"{_and(same)} {'is' if len(same) == 1 else 'are'} not shown to differ "
                     "from it")
    return [f"Against the reference {reference}: " + "; ".join(parts)
            + " (Holm over its pairs)."]


def _fold_lines(fold: pd.DataFrame, n: int, first: str) -> list[str]:
    """Say, for the top model (or the reference) against each other, the per-data-set tests."""
    if fold.empty:
        return []
    out = []
    mine = fold[(fold["model_a"] == first) | (fold["model_b"] == first)]
    for (a, b), part in mine.groupby(["model_a", "model_b"], sort=False):
        more = int((part["estimate"] > 0).sum())
        sig = int((part["reject"] & (part["estimate"] > 0)).sum())
        sig_b = int((part["reject"] & (part["estimate"] < 0)).sum())
        out.append(f"Within data sets ({a} − {b}): the mean score of {a} is higher on {more} of "
                   f"{n} data sets, significantly on {sig}; {b}'s significantly on {sig_b} "
                   "(corrected resampled t, Holm within each data set).")
    return out


# --------------------------------------------------------------------------------------------
# from predictions per data set: each data set's own test beside the answer across data sets
# --------------------------------------------------------------------------------------------


def _read_predictions(path: Any) -> pd.DataFrame:
    """Read one predictions file: Parquet, or CSV with every cell as text (only empty is missing)."""
    if str(path).lower().endswith((".parquet", ".pq")):
        return pd.read_parquet(path)
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])


def _prediction_frame(source: Any, dataset: str) -> tuple[pd.DataFrame, str]:
    """Read the predictions of several data sets: a frame, a file, or a folder or glob of files.

    A file of a folder or pattern that has no ``dataset`` column is one data set, named by its
    file name without the suffix.
    """
    if isinstance(source, pd.DataFrame):
        return source, "DataFrame"
    from pathlib import Path

    from ..engine.files import resolve_path

    path = Path(source)
    if path.is_dir():
        files = sorted(str(p) for p in path.iterdir()
                       if p.is_file() and p.name.lower().endswith((".csv", ".parquet", ".pq")))
    else:
        files = resolve_path(source)[0]
    files = [f for f in files if Path(f).is_file()]
    if not files:
        raise ValueError(f"{path.name}: no predictions file (CSV or Parquet) found")
    if len(files) == 1 and not path.is_dir():
        return _read_predictions(files[0]), path.name
    parts = []
    for f in files:
        part = _read_predictions(f)
        if dataset not in part.columns:
            part[dataset] = Path(f).name.split(".")[0]
        parts.append(part)
    first = set(parts[0].columns)
    for f, part in zip(files, parts):
        if set(part.columns) != first:
            raise ValueError(f"{Path(f).name}: its columns differ from those of "
                             f"{Path(files[0]).name}; every data set's file needs the same "
                             "truth and model columns")
    return pd.concat(parts, ignore_index=True), f"{path.name} ({len(files)} files)"


def compare_predictions_by_dataset(
    source: Any,
    *,
    dataset: str,
    y_true: str,
    models: Sequence[str] | None = None,
    reference: str | None = None,
    rope: float = 0.01,
    alpha: float = 0.05,
    random_state: int = 0,
) -> DatasetComparison:
    """Compare models on predictions of several data sets: within each, and across them.

    Each data set's rows (a ``dataset`` column) are compared by
    :func:`~precmp_lib.compare.predictions.compare_models` — McNemar's test on a test set, the
    corrected resampled t under cross-validation, Holm-adjusted within the data set — and the
    per-data-set accuracies by :func:`compare_datasets`.

    Parameters
    ----------
    source : DataFrame, path, folder or glob
        A wide predictions table (the truth and one column per model) with a data-set column;
        or a folder (or pattern) of such files, each file without that column being one data
        set named by its file name.
    dataset, y_true : str
        The data-set and truth columns.
    models, reference, rope, alpha, random_state
        As for :func:`compare_datasets` (``models``: the prediction columns).

    Returns
    -------
    DatasetComparison
        Its ``fold_tests`` holds each data set's pairs (``test`` names the test); its second
        conclusion sets the two levels side by side.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = []
    >>> for d in range(6):
    ...     y = rng.integers(0, 2, 200)
    ...     rows.append(pd.DataFrame({"set": f"d{d}", "y": y,
    ...         "a": np.where(rng.random(200) < 0.9, y, 1 - y),
    ...         "b": np.where(rng.random(200) < 0.8, y, 1 - y)}))
    >>> cmp = compare_predictions_by_dataset(pd.concat(rows), dataset="set", y_true="y")
    >>> cmp.conclusions[1][:60]
    'a is more accurate than b on 6 of 6 data sets, significantly'
    """
    from .predictions import compare_models

    frame, name = _prediction_frame(source, dataset)
    if dataset not in frame.columns:
        raise ValueError(f"{name}: column {dataset!r} (the data sets, --dataset) is missing")
    within, rows = [], []
    for ds, part in frame.groupby(dataset, sort=False):
        one = compare_models(part.drop(columns=[dataset]).reset_index(drop=True), y_true=y_true,
                             models=models, alpha=alpha, engine="numpy")
        rows += [{"dataset": str(ds), "model": m, "score": float(a)}
                 for m, a in zip(one.summary["model"], one.summary["accuracy"])]
        within.append(one.pairs.assign(dataset=str(ds)))
    scores = pd.DataFrame(rows)
    model_names = list(dict.fromkeys(scores["model"]))
    read = DatasetScores(scores=scores, models=model_names,
                         datasets=list(dict.fromkeys(scores["dataset"])), layout="predictions",
                         source=name, engine="numpy", n_rows=len(frame))
    out = compare_datasets(read, reference=reference, rope=rope, alpha=alpha,
                           random_state=random_state)
    keep = ["dataset", "model_a", "model_b", "test", "estimate", "ci_low", "ci_high",
            "statistic", "pvalue", "pvalue_adjusted", "reject"]
    pairs = pd.concat(within, ignore_index=True)
    pairs = pairs[[c for c in keep if c in pairs.columns]]
    first = reference or str(out.summary["model"].iloc[0])
    lines = [_two_levels(first, m, pairs, out.pairs, len(read.datasets))
             for m in out.summary["model"] if m != first]
    conclusions = [out.conclusions[0], *lines, *out.conclusions[1:]]
    return replace(out, fold_tests=pairs, conclusions=conclusions,
                   design={**out.design, "description": out.design["description"]
                           + ", from predictions per data set"})


def _two_levels(a: str, b: str, within: pd.DataFrame, across: pd.DataFrame, n: int) -> str:
    """Say how A fares against B within the data sets and across them, in one sentence."""
    mine = within[((within.model_a == a) & (within.model_b == b))
                  | ((within.model_a == b) & (within.model_b == a))]
    sign = np.where(mine.model_a == a, 1.0, -1.0)
    better = int(np.sum(sign * mine["estimate"] > 0))
    shown = int(np.sum((sign * mine["estimate"] > 0) & mine["reject"].astype(bool)))
    row = across[((across.model_a == a) & (across.model_b == b))
                 | ((across.model_a == b) & (across.model_b == a))].iloc[0]
    return (f"{a} is more accurate than {b} on {better} of {n} data sets, significantly on "
            f"{shown} (Holm within data sets); across data sets, Wilcoxon p = "
            f"{row['pvalue']:.3g} (Holm-adjusted {row['pvalue_adjusted']:.3g}).")
