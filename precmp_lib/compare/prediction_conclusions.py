"""The comparison's conclusions in words: every sentence the pages show, from the numbers.

The sentences are written once, here, from a comparison's tables (:mod:`precmp_lib.compare.predictions`
computes them); the report and its first screen only display them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

# The power at which the page states the difference a pair's data would detect.
POWER = 0.8
# Region of practical equivalence of the Bayesian correlated t: one point of accuracy.
ROPE = 0.01


def count_of(n: int, noun: str) -> str:
    """Return ``n`` and the noun, plural when ``n`` is not one, the digits grouped.

    >>> count_of(1, "pair"), count_of(3, "class"), count_of(1200, "row")
    ('1 pair', '3 classes', '1,200 rows')
    """
    plural = noun + ("es" if noun.endswith("s") else "s")
    return f"{n:,} {noun if n == 1 else plural}"


# --------------------------------------------------------------------------------------------
# conclusions in words
# --------------------------------------------------------------------------------------------


def format_pvalue(p: float | None) -> str:
    """Format a p-value for reports: ``< 0.0001`` below 1e-4, else 4 significant digits.

    Parameters
    ----------
    p : float or None
        The p-value.

    Returns
    -------
    str
        The text; empty for a missing value (None or NaN).

    Examples
    --------
    >>> format_pvalue(3.2e-7), format_pvalue(0.012345), format_pvalue(0.38298)
    ('< 0.0001', '0.01235', '0.3830')
    """
    if p is None or not np.isfinite(p):
        return ""
    if p < 1e-4:
        return "< 0.0001"
    return f"{p:#.4g}"


def _p(p: float) -> str:
    text = format_pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _points(x: float) -> str:
    """Write an accuracy difference in percentage points, one decimal."""
    return f"{100 * x:.1f}"


NOT_ESTIMABLE = "the interval is not estimable"


def _interval(low: float, high: float, level: float, fmt: Any) -> str:
    """Write "95 % CI low to high", or say that the interval is not estimable.

    An interval is not estimable when an end is missing, or when it has no width: the data
    leave no variation to estimate it from (two models alike on every fold, both precisions 1).

    >>> _interval(0.01, 0.03, 0.95, lambda x: f"{x:+.2f}"), _interval(1.0, 1.0, 0.95, str)
    ('95 % CI +0.01 to +0.03', 'the interval is not estimable')
    """
    if not (np.isfinite(low) and np.isfinite(high)) or high <= low:
        return NOT_ESTIMABLE
    return f"{100 * level:.4g} % CI {fmt(low)} to {fmt(high)}"


def _pair_sentence(r: Any, level: float) -> str:
    """One pair's accuracy difference, the pair named first: "a − b: +0.0120, 97.5 % CI ...".

    The interval is the Holm-consistent one (at the level of the pair's Holm step), so it
    excludes 0 exactly when the adjusted p-value beside it is at most alpha.
    """
    ci = _interval(r.holm_ci_low, r.holm_ci_high, r.holm_level, lambda x: f"{x:+.4f}")
    ci += "" if ci == NOT_ESTIMABLE else " at Holm's step"
    seen = ""
    if not r.reject:
        mde = getattr(r, "mde", np.nan)
        seen = " Not shown to differ" + (
            f"; these data detect {_points(mde)} points with {100 * POWER:g} % power."
            if np.isfinite(mde) else ".")
    return (f"{r.model_a} − {r.model_b}: difference {r.estimate:+.4f}, {ci}; "
            f"{_short_test(r.test)} {_p(r.pvalue_adjusted)} after Holm.{seen}")


def _short_test(test: str) -> str:
    return "corrected t" if test.startswith("corrected") else test


def join_names(names: Sequence[str], most: int = 6) -> str:
    """Join names for a sentence: "a", "a and b", "a, b and c"; beyond ``most``, "... and 3 more".

    Parameters
    ----------
    names : sequence of str
        At least one name.
    most : int
        The most names written out.

    Returns
    -------
    str

    Examples
    --------
    >>> join_names(["svm"]), join_names(["svm", "rf"]), join_names(["a", "b", "c"])
    ('svm', 'svm and rf', 'a, b and c')
    >>> join_names(list("abcdefgh"))
    'a, b, c, d, e, f and 2 more'
    """
    names = list(map(str, names))
    if len(names) > most:
        return ", ".join(names[:most]) + f" and {len(names) - most:,} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _conclusions(cmp: dict, level: float) -> tuple[str, list[str], list[str]]:
    """Write the recommendation (one sentence), at most five short bullets and the details.

    Every p-value quoted is the Holm-adjusted p-value of a row of the page's pairs table, and
    every pair is written as that row writes it (model A − model B).
    """
    summary, pairs, best = cmp["summary"], cmp["pairs"], cmp["best"]
    acc = dict(zip(summary["model"], summary["accuracy"]))
    reference = cmp["reference"]
    if reference is None:
        recommendation = _recommend_all_pairs(best, pairs, level)
        bullets = _bullets_all_pairs(best, summary, pairs, cmp["alpha"])
        top = best[0]
        details = [_pair_sentence(r, level) for r in pairs.itertuples()
                   if top in (r.model_a, r.model_b)]
    else:
        recommendation = _recommend_reference(reference, best, pairs, acc, level)
        bullets = _bullets_reference(reference, summary, pairs, cmp["alpha"])
        details = [_pair_sentence(r, level) for r in pairs.itertuples()]
    if "p_rope" in pairs and len(best) > 1 and reference is None:
        bullets += _bayesian_bullet(best, pairs, cmp.get("rope", ROPE))
    bullets.append(_precision_bullet(cmp["per_class"], cmp["gee"], cmp["combined"], cmp["alpha"]))
    details += _precision_details(cmp["per_class"], cmp["combined"], cmp["alpha"])
    details += _prevalence_sentences(cmp["prevalence"], level)
    bullets = bullets[:5]
    if cmp.get("margin") is not None and "tost_pvalue" in pairs:  # asked for: always said
        bullets.append(_equivalence_bullet(pairs, cmp["margin"], cmp["alpha"]))
    return recommendation, bullets, details


def _row(pairs: pd.DataFrame, a: str, b: str) -> Any:
    """Return the table's row of the pair {a, b} as the table writes it; None if absent."""
    hit = pairs[((pairs.model_a == a) & (pairs.model_b == b))
                | ((pairs.model_a == b) & (pairs.model_b == a))]
    return hit.iloc[0] if len(hit) else None


def _pairs_models(pairs: pd.DataFrame) -> set:
    """Return the models that appear in a pairs table."""
    return set(pairs["model_a"]) | set(pairs["model_b"])


def _detectable(best: list, pairs: pd.DataFrame) -> str:
    """Say the largest difference the top model's untold pairs would detect with 80 % power."""
    rows = pairs[(pairs.model_a == best[0]) & pairs.model_b.isin(best[1:])]
    mde = rows["mde"].dropna() if "mde" in rows else pd.Series(dtype=float)
    if not len(mde):
        return ""
    return (f" (these data detect a difference of {_points(mde.max())} points with "
            f"{100 * POWER:g} % power; smaller ones could go unseen)")


def _recommend_all_pairs(best: list, pairs: pd.DataFrame, level: float) -> str:
    top = best[0]
    if len(best) > 1:
        seen = _detectable(best, pairs)
        if len(best) == len(_pairs_models(pairs)):
            every = "Both" if len(best) == 2 else f"All {len(best):,}"
            return (f"{every} models are not shown to differ in accuracy: {join_names(best)}"
                    f"{seen}; choose on cost or simplicity.")
        return (f"{join_names(best)} are not shown to differ in accuracy from the most accurate, "
                f"{top}{seen}; choose on cost or simplicity.")
    rows = [r for r in pairs.itertuples() if top in (r.model_a, r.model_b)]
    closest = min(rows, key=lambda r: r.estimate)  # the top model is model A of each
    return (f"Use {top}: it is more accurate than every other model by at least "
            f"{_points(closest.estimate)} points, "
            f"{_interval(closest.holm_ci_low, closest.holm_ci_high, closest.holm_level, _points)}"
            " against "
            f"{closest.model_b}.")


def _recommend_reference(reference: str, best: list, pairs: pd.DataFrame, acc: dict,
                         level: float) -> str:
    others = [m for m in best if m != reference]
    if reference not in best and len(others) == 1:
        r = _row(pairs, others[0], reference)
        return (f"Use {others[0]}: it is more accurate than the reference {reference} by "
                f"{_points(r.estimate)} points, "
                f"{_interval(r.holm_ci_low, r.holm_ci_high, r.holm_level, _points)}.")
    if reference not in best:
        return (f"{join_names(others)} are more accurate than the reference {reference}; this page "
                "compares each model with the reference only, so compare them with each other "
                "on a page of every pair.")
    if others:
        verb = "is" if len(others) == 1 else "are"
        return (f"Keep the reference {reference} or take {join_names(others)}, which {verb} not "
                "shown to differ from it; choose on cost or simplicity.")
    return f"Keep the reference {reference}: every other model is shown less accurate than it."


def _bullets_all_pairs(best: list, summary: pd.DataFrame, pairs: pd.DataFrame,
                       alpha: float) -> list[str]:
    ranked = summary.sort_values("rank", kind="stable")
    out = ["Accuracy, best first: " + join_names([f"{m} {a:.3f}" for m, a in
                                              zip(ranked["model"], ranked["accuracy"])], 8) + "."]
    worse = [m for m in ranked["model"] if m not in best]
    if worse:
        out.append(f"Shown less accurate than {best[0]}: {join_names(worse, 8)}.")
    k = int(pairs["reject"].sum())
    rest = ("" if k in (0, len(pairs)) else "; the other is not shown to differ"
            if len(pairs) - k == 1 else "; the others are not shown to differ")
    out.append(f"Pairs that differ in accuracy after Holm's adjustment at α = {alpha:g}: {k:,} "
               f"of {len(pairs):,}{rest}.")
    return out


def _bullets_reference(reference: str, summary: pd.DataFrame, pairs: pd.DataFrame,
                       alpha: float) -> list[str]:
    ranked = summary.sort_values("rank", kind="stable")
    out = ["Accuracy, best first: " + join_names([f"{m} {a:.3f}" for m, a in
                                              zip(ranked["model"], ranked["accuracy"])], 8) + "."]
    groups = [("Shown more accurate than", pairs[pairs.reject & (pairs.estimate > 0)]),
              ("Not shown to differ from", pairs[~pairs.reject]),
              ("Shown less accurate than", pairs[pairs.reject & (pairs.estimate <= 0)])]
    for words, rows in groups:
        if len(rows):
            out.append(f"{words} the reference {reference}: {join_names(list(rows.model_a), 8)}.")
    out[-1] = out[-1][:-1] + (f"; Holm's adjustment over the {len(pairs):,} pairs with the "
                              f"reference, α = {alpha:g}.")
    return out


def _equivalence_bullet(pairs: pd.DataFrame, margin: float, alpha: float) -> str:
    """Say which pairs the two one-sided tests show equivalent within ±margin.

    >>> t = pd.DataFrame({"model_a": ["a", "a"], "model_b": ["b", "c"],
    ...                   "tost_pvalue": [0.01, 0.3], "equivalent": [True, False]})
    >>> _equivalence_bullet(t, 0.02, 0.05)
    'Equivalent within ±0.02 (two one-sided tests at α = 0.05 each): a − b (p = 0.0100); not shown equivalent: 1 pair.'
    """
    eq = pairs[pairs["equivalent"].astype(bool)]
    shown = ", ".join(f"{r.model_a} − {r.model_b} (p = {format_pvalue(r.tost_pvalue)})"
                      for r in eq.head(6).itertuples())
    if len(eq) > 6:
        shown += f" and {len(eq) - 6:,} more"
    head = (f"Equivalent within ±{margin:g} (two one-sided tests at α = {alpha:g} each): "
            f"{shown or 'no pair'}")
    rest = len(pairs) - len(eq)
    return head + (f"; not shown equivalent: {count_of(rest, 'pair')}." if rest else ".")


def _bayesian_bullet(best: list, pairs: pd.DataFrame, rope: float = ROPE) -> list[str]:
    """State the Bayesian correlated t's probabilities for the top model and the next one."""
    r = _row(pairs, best[0], best[1])
    if r is None or not np.isfinite(r.get("p_rope", np.nan)):
        return []
    return [f"{r.model_a} − {r.model_b}, Bayesian correlated t on the per-fold accuracies: "
            f"P({r.model_a} better) = {r.p_a_better:.2f}, P(within ±{rope:g}) = "
            f"{r.p_rope:.2f}, P({r.model_b} better) = {r.p_b_better:.2f}."]


def _prevalence_sentences(prev: pd.DataFrame, level: float) -> list[str]:
    """State each class's precision at the given prevalence (the four highest models)."""
    lines = []
    for label in dict.fromkeys(prev["class"]) if len(prev) else []:
        block = prev[prev["class"] == label].dropna(subset=["precision_at_prevalence"])
        block = block.sort_values("precision_at_prevalence", ascending=False).head(4)
        if len(block):
            parts = [f"{r.model} {r.precision_at_prevalence:.3f}, {100 * level:g} % CI "
                     f"{r.ci_low:.3f} to {r.ci_high:.3f}" for r in block.itertuples()]
            lines.append(f"Class {label} at a prevalence of {block['prevalence'].iloc[0]:g}, "
                         f"against {block['test_set_prevalence'].iloc[0]:.3f} in these data: "
                         "precision would be " + "; ".join(parts) + ".")
    return lines


def _precision_bullet(per_class: pd.DataFrame, gee: pd.DataFrame, combined: pd.DataFrame,
                      alpha: float) -> str:
    """Say in one line whether precision differs, by each of the page's three tests.

    The tests answer different questions, so the line names each with its count after Holm's
    adjustment: per class and pair (GS), all models at once per class (GEE Wald) and one answer
    per pair across classes.
    """
    sig = per_class[per_class["gs_pvalue_adjusted"] <= alpha]
    tested = len(per_class.dropna(subset=["gs_pvalue"]))
    gee_tested = gee.dropna(subset=["pvalue_adjusted"])
    gee_sig = gee_tested[gee_tested["pvalue_adjusted"] <= alpha]
    both = combined.dropna(subset=["pvalue_adjusted"])
    across = both[both["pvalue_adjusted"] <= alpha]
    parts = [f"{len(k):,} of {count_of(n, noun)} ({test})" for k, n, noun, test in (
        (sig, tested, "class comparison", "GS test"),
        (gee_sig, len(gee_tested), "class", "GEE, all models"),
        (across, len(both), "pair", "across classes")) if n]
    shown = list(dict.fromkeys(map(str, [*sig["class"], *gee_sig["class"]])))
    if not shown and not len(across):
        return "Precision after Holm's adjustment: no difference shown; " + ", ".join(parts) + "."
    where = f"; classes: {join_names(shown, 4)}" if shown else ""
    return "Precision after Holm's adjustment: differs in " + ", ".join(parts) + where + "."


def _ratio_with_ci(ratio: float, low: float, high: float) -> str:
    """"1.05, CI 1.02 to 1.08": two decimals, more (up to four) while the ends read the same.

    A ratio that is not defined (a precision 0) or an interval of no width (both precisions 1)
    is said in words.

    >>> _ratio_with_ci(1.0512, 1.0498, 1.0527)
    '1.051, CI 1.050 to 1.053'
    >>> _ratio_with_ci(1.0, 1.0, 1.0), _ratio_with_ci(float("nan"), float("nan"), float("nan"))
    ('1, equal on these data; the interval is not estimable', 'not defined (a precision is 0)')
    """
    if not np.isfinite(ratio):
        return "not defined (a precision is 0)"
    if not (np.isfinite(low) and np.isfinite(high)) or high <= low:
        return f"{ratio:g}, equal on these data; {NOT_ESTIMABLE}"
    d = 2
    while d < 4 and f"{low:.{d}f}" == f"{high:.{d}f}":
        d += 1
    return f"{ratio:.{d}f}, CI {low:.{d}f} to {high:.{d}f}"


def _precision_details(per_class: pd.DataFrame, combined: pd.DataFrame, alpha: float) -> list[str]:
    """Per pair (the first four with a difference), the classes that drive it."""
    sig = per_class[per_class["gs_pvalue_adjusted"] <= alpha]
    lines = []
    for r in combined[combined["classes_driving"].map(len) > 0].head(4).itertuples():
        block = sig[(sig.model_a == r.model_a) & (sig.model_b == r.model_b)]
        top_rows = block.reindex(block["rp"].map(lambda v: abs(math.log(v)) if v and v > 0
                                                 else 0).sort_values(ascending=False).index)
        cls = [f"{row['class']} RP {_ratio_with_ci(row['rp'], row['rp_ci_low'], row['rp_ci_high'])}"
               for _, row in top_rows.head(3).iterrows()]
        more = f"; and {len(block) - 3:,} more" if len(block) > 3 else ""
        lines.append(f"{r.model_a} / {r.model_b}, precision by class: " + "; ".join(cls)
                     + more + ".")
    return lines
