"""The comparison report as HTML: display only, from a :class:`ModelComparison`.

Every function here formats what :func:`precmp_lib.compare.predictions.compare_models` computed; none
runs a test. Every user-supplied string (labels, model and column names, file names) goes
through :func:`esc` before it reaches the page, plot labels are drawn into PNG images (never
live SVG text) and their alt text is escaped. The page loads nothing from outside itself:
plots are data: URIs, and each table carries its own CSV as a data: URI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..compare.items import MANY_MODELS
from ..compare.prediction_conclusions import count_of, join_names
from ..compare.predictions import ModelComparison
from .html import (
    CSS,
    HEAT_MAP_LEGEND,
    SECTIONS,
    _chunks,
    _html,
    bidi_note,
    esc,
    family_sentence,
    heat_map_html,
    settings_table,
    table_html,
)
from .prediction_figures import (
    _figure_html,
    _interval_plot,
    by_rank,
    heatmap_comparator,
    model_colours,
    pairs_by_rank,
    pairs_forest,
    pairs_matrix,
    precision_heatmap,
    ranking_plot,
    rp_forest,
    rp_matrix,
)

__all__ = ['legend_html', 'page_header', 'section_accuracy', 'section_combined', 'section_conclusion', 'section_cv_folds', 'section_details', 'section_gee', 'section_pairs', 'section_per_class', 'section_prevalence', 'table_of_contents']


# sections
# --------------------------------------------------------------------------------------------


def legend_html(items: Sequence[tuple[str, str]]) -> str:
    """Return a caption saying what each plot colour means.

    Parameters
    ----------
    items : sequence of (str, str)
        ``(colour, meaning)`` pairs; the meanings are escaped.

    Returns
    -------
    str
        A ``<p class="legend">`` element.
    """
    parts = [f'<span style="color:{c}">●</span> {esc(text)}' for c, text in items]
    return f'<p class="legend">Legend: {"; ".join(parts)}.</p>'


def _h2(key: str) -> str:
    title = dict(SECTIONS)[key]
    return f'<h2 id="{key}">{esc(title)}</h2>'


def _wrap(body: str) -> Any:
    return _html(f'<div class="pcr">{body}</div>')


def _design_line(cmp: ModelComparison, name: str) -> str:
    """Write the design in one line: file, design, models, classes, what the counts count."""
    models = ", ".join(cmp.models[:8]) + (
        f" and {len(cmp.models) - 8} more" if len(cmp.models) > 8 else "")
    per = f"{cmp.n_rows:,} predictions per model"
    if cmp.design["design"] == "repeated cv":
        per += (", one per observation" if cmp.design.get("repeats") == 1
                else ", one per observation and repeat")
    return (f"{name} · {cmp.design['description']} · {len(cmp.models):,} models: {models} · "
            f"{len(cmp.classes):,} classes · {per}")


def page_header(cmp: ModelComparison, source_name: str = "") -> Any:
    """Render the page's style and the design in one line.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.
    source_name : str
        How the page names the predictions (default: the comparison's source).

    Returns
    -------
    Html
        The block, ready for a notebook cell's output.
    """
    name = source_name or cmp.source or "the predictions"
    return _wrap(CSS + f'<p class="design">{esc(_design_line(cmp, name))}</p>'
                 + bidi_note([name, *cmp.models, *cmp.classes]))


def _sections_shown(cmp: ModelComparison) -> list[tuple[str, str]]:
    return [(k, t) for k, t in SECTIONS if k != "pc-prevalence" or len(cmp.prevalence)]


def table_of_contents(cmp: ModelComparison) -> Any:
    """Render the table of contents, with links to the sections shown.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    links = "".join(f'<li><a href="#{k}">{esc(t)}</a></li>' for k, t in _sections_shown(cmp))
    return _wrap(f'<nav class="toc"><strong>Contents</strong><ol>{links}</ol></nav>')


# The lines "In detail" shows before folding the rest behind a <details>.
DETAIL_LINES = 12


def _many(cmp: ModelComparison) -> bool:
    """More than ``MANY_MODELS`` models: the ranking and one heat map instead of a figure per pair."""
    return len(cmp.models) > MANY_MODELS


def _family_text(cmp: ModelComparison) -> str:
    """Say which pairs were tested, and over which Holm's adjustment runs."""
    return family_sentence(
        len(cmp.models), cmp.settings.get("family", "reference" if cmp.reference else "all"),
        reference=cmp.reference, many=MANY_MODELS,
        leader=f"the most accurate model, {cmp.settings.get('leader')}",
        measures=", for accuracy and for precision class by class",
        heat="every pair's accuracy" if len(cmp.all_pairs) else "")


def _against_leader(cmp: ModelComparison) -> pd.DataFrame:
    """Return one row per model, ranked: accuracy, interval, and its pair with the leader."""
    order = by_rank(cmp)
    s = cmp.summary.set_index("model").loc[order]
    leader = cmp.reference or cmp.settings.get("leader") or order[0]
    by_other = {}
    for r in cmp.pairs.itertuples():
        if leader in (r.model_a, r.model_b):
            by_other[r.model_b if r.model_a == leader else r.model_a] = r
    rows = []  # (difference, low, high, adjusted p, decision) of each model minus the leader
    for m in order:
        r = by_other.get(m)
        if r is None:
            rows.append((np.nan, np.nan, np.nan, np.nan, "reference" if m == cmp.reference
                         else "leader" if m == leader else ""))
            continue
        sign = 1 if r.model_a == m else -1
        lo, hi = sorted([sign * r.holm_ci_low, sign * r.holm_ci_high])
        rows.append((sign * r.estimate, lo, hi, r.pvalue_adjusted,
                     "not shown to differ" if not r.reject
                     else "shown more accurate" if sign * r.estimate > 0
                     else "shown less accurate"))
    diff, low, high, p_holm, shown = (list(c) for c in zip(*rows))
    return pd.DataFrame({"rank": s["rank"].to_numpy(), "model": order,
                         "accuracy": s["accuracy"].to_numpy(), "ci_low": s["ci_low"].to_numpy(),
                         "ci_high": s["ci_high"].to_numpy(), "best": s["best"].to_numpy(),
                         f"minus {leader}": diff, "holm_ci_low": low, "holm_ci_high": high,
                         "pvalue_adjusted": p_holm, f"against {leader}": shown})


def _ranking(cmp: ModelComparison) -> str:
    """Render the ranked list with intervals, the best group and each model against the leader."""
    table = _against_leader(cmp)
    best = list(table.loc[table["best"], "model"])
    group = (f"The best group: {join_names(best, most=12)} ({len(best):,} of {len(table):,} "
             "models" + (" not shown less accurate than the most accurate)."
                         if cmp.reference is None else ", decided against the reference)."))
    how = ("clustered on the observation" if cmp.design["design"] == "repeated cv"
           else "Wilson")
    intro = (f"<h3>Ranking, each model against the {'reference' if cmp.reference else 'leader'}"
             f"</h3><p>{esc(group)}</p><p>{esc(_family_text(cmp))} Each row: the model's "
             f"accuracy with its {100 * (1 - cmp.alpha):g} % interval ({how}), then its "
             f"difference from the {'reference' if cmp.reference else 'leader'} with the "
             "Holm-consistent interval and the Holm-adjusted p-value.</p>")
    return intro + table_html(table, "ranking")


def section_conclusion(cmp: ModelComparison) -> Any:
    """Render the first screen: the recommendation, at most five points, the warnings, details.

    The recommendation is one sentence; the points are short; each kind of small-sample
    warning is one line, with the pairs or models it is about in a list behind a
    ``<details>``; the lines with every quoted difference, interval and adjusted p-value
    follow under "In detail".

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    parts = [_h2("pc-conclusion"), f'<p class="rec">{esc(cmp.recommendation)}</p>']
    points = "".join(f"<li>{esc(line)}</li>" for line in cmp.conclusions[:6])
    parts.append(f'<ul class="points">{points}</ul>')
    if _many(cmp):  # many models: the ranking with each against the leader on the first screen
        parts.append(_ranking(cmp))
    if cmp.warnings:
        items = list(cmp.warning_items) + [[]] * (len(cmp.warnings) - len(cmp.warning_items))
        lines = []
        for line, which in zip(cmp.warnings, items):
            more = ""
            if which:
                listed = "".join(f"<li>{esc(w)}</li>" for w in which)
                label = "which one" if len(which) == 1 else f"which ones ({len(which):,})"
                more = (f" <details><summary>{label}</summary><ul>{listed}</ul></details>")
            lines.append(f"<li>{esc(line)}{more}</li>")
        parts.append(f'<div class="warn"><strong>Small samples</strong><ul>{"".join(lines)}'
                     "</ul></div>")
    if cmp.details:
        shown, rest = cmp.details[:DETAIL_LINES], cmp.details[DETAIL_LINES:]
        detail = "".join(f"<li>{esc(line)}</li>" for line in shown)
        more = ""
        if rest:  # many models: the first lines, the others folded (the tables have them all)
            folded = "".join(f"<li>{esc(line)}</li>" for line in rest)
            more = (f'<details class="more"><summary>{len(rest):,} more lines</summary>'
                    f"<ul>{folded}</ul></details>")
        parts.append(f"<h3>In detail</h3><ul>{detail}</ul>{more}")
    return _wrap("".join(parts))


def _family(cmp: ModelComparison) -> str:
    m = len(cmp.models)
    if cmp.reference is None and cmp.settings.get("family") == "leader":
        return (f"each model against the leader, the most accurate model "
                f"{cmp.settings.get('leader')}, {len(cmp.pairs):,} pairs (--pairs leader, the "
                f"default beyond {MANY_MODELS} models), the better-ranked model first")
    if cmp.reference is None:
        return (f"every pair of the {m} models, {len(cmp.pairs):,} pairs, the better-ranked model "
                "first")
    return (f"each model against the reference {cmp.reference}, {len(cmp.pairs):,} pairs; pairs "
            "without the reference are not tested on this page")


def section_accuracy(cmp: ModelComparison) -> Any:
    """Render the accuracy section: plot and table of each model's accuracy with its interval.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    cv = cmp.design["design"] == "repeated cv"
    how = ("clustered on the observation: each observation's repeated predictions form one "
           "cluster" if cv else "Wilson score intervals")
    if cmp.reference is None:
        colours = ("Blue: the best group, the most accurate model and those not shown less "
                   "accurate than it; vermillion: shown less accurate than it.")
    else:
        colours = (f"Black: the reference {cmp.reference}; blue, grey, vermillion: shown more "
                   "accurate, not shown to differ, shown less accurate than it.")
    intro = (f"<p>The share of predictions each model gets right, with {100 * (1 - cmp.alpha):g} % "
             f"intervals, {how}. Models are in the order of their rank, 1 = most accurate "
             f"(the plot writes it before the name; equal accuracies share a rank). "
             f"{esc(colours)} Decisions are Holm-adjusted over the pairs of the next section.</p>")
    plot = ("" if _many(cmp) else
            _figure_html(ranking_plot(cmp), "Accuracy of each model with its interval; best "
                         "group: " + ", ".join(cmp.best)))
    table = cmp.summary.set_index("model").loc[by_rank(cmp)].reset_index()
    if cmp.reference is not None:
        meaning = {m: text for m, (_, text) in model_colours(cmp).items()}
        table["against_reference"] = [meaning[m] for m in table["model"]]
    first = ["model", "rank", "accuracy", "ci_low", "ci_high", "best", "against_reference"]
    table = table[[c for c in first if c in table] + [c for c in table if c not in first]]
    return _wrap(_h2("pc-accuracy") + intro + plot + table_html(
        table, "accuracy", headers={"n": "predictions", "n_observations": "observations"}))


PAIR_VIEWS = [("", ["estimate", "holm_ci_low", "holm_ci_high", "holm_level", "pvalue_adjusted",
                    "reject", "mde", "test"], False),
              ("Unadjusted intervals: each pair alone at 1 − α (these can exclude 0 for a pair "
               "Holm does not reject)", ["ci_low", "ci_high"], True),
              ("5 × 2cv t and F tests of the same pairs, unadjusted",
               ["t5x2_statistic", "t5x2_pvalue", "f5x2_statistic", "f5x2_pvalue"], False),
              ("Bayesian correlated t: posterior probabilities",
               ["p_a_better", "p_rope", "p_b_better"], False),
              ("Equivalence within the margin: two one-sided tests (TOST)",
               ["tost_pvalue", "tost_p_lower", "tost_p_upper", "equivalent"], False),
              ("Pooled out-of-fold McNemar (one repeat), Holm-adjusted over the same pairs",
               ["pooled_test", "pooled_pvalue", "pooled_pvalue_adjusted", "pooled_b",
                "pooled_c"], False),
              ("Test statistics and unadjusted p-values",
               ["statistic", "df", "pvalue", "b", "c"], True),
              ("Notes", ["note"], True)]


def section_pairs(cmp: ModelComparison) -> Any:
    """Render the pairwise accuracy tests, Holm-adjusted, as a plot and tables.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    cv = cmp.design["design"] == "repeated cv"
    if cv:
        intro = ("<p>Each pair is compared by the corrected repeated k-fold t-test, Nadeau & "
                 "Bengio's correction in Bouckaert & Frank's r × k form, on the per-fold accuracy "
                 "differences; n_test / n_train comes from the fold sizes: "
                 f"{cmp.settings.get('test_train_ratio') or float('nan'):.4f}. ")
        if "t5x2_pvalue" in cmp.pairs:
            intro += ("The 5 × 2cv t and F tests are given as well. Dietterich's t has the "
                      "first fold's difference alone as its numerator, so its sign is that "
                      "fold's and can be opposite to the estimate, the mean of all ten; its "
                      "p-value is two-sided. ")
            flipped = (cmp.pairs["t5x2_statistic"] * cmp.pairs["estimate"] < 0).sum()
            if flipped:
                intro += (f"Its sign is opposite to the estimate in "
                          f"{count_of(int(flipped), 'pair')} here, as the notes say. ")
        if "p_a_better" in cmp.pairs:
            intro += ("The Bayesian correlated t of Corani & Benavoli gives the posterior "
                      "probabilities that A is better, that the two are practically equivalent "
                      f"with accuracies within ±{cmp.settings.get('rope') or 0:g}, and that B is "
                      "better: p_a_better, p_rope, p_b_better. ")
        if "pooled_pvalue" in cmp.pairs:
            intro += ("With one repeat (plain k-fold) each observation is predicted once, so "
                      "McNemar's test on the pooled out-of-fold predictions is given as well; it "
                      "treats the k models fitted on different training sets as one and so "
                      "ignores the variation from training, which the corrected t allows for. ")
        intro += "</p>"
    else:
        intro = ("<p>Each pair is compared by McNemar's exact test on the observations where "
                 "exactly one model is right, b: only A, c: only B; when b + c is below 25 the "
                 "mid-p version is used and the table says so. The estimate is accuracy A − B. "
                 "Its interval beside the decision agrees with the test: the difference is "
                 "ψ (2π − 1), with ψ = (b + c) / n the share of observations where the models "
                 "disagree and π = b / (b + c) the share of those A gets right; the interval is "
                 "its range over the Clopper–Pearson intervals of ψ and π (the mid-p interval of "
                 "π with the mid-p test), which holds 0 exactly when the test does not reject. "
                 "Newcombe's interval, which does not invert McNemar's test, is among the "
                 "unadjusted intervals.</p>")
    intro += (f"<p>The family: {esc(_family(cmp))}. p-values are adjusted with Holm's method "
              "across this family; colour and <em>reject</em> mark the adjusted decision at "
              f"α = {cmp.alpha:g}. The interval drawn and shown beside the decision "
              "(<em>holm_ci_low</em>, <em>holm_ci_high</em>) is Holm-consistent: the pair at "
              "Holm's step i (p-values sorted, m pairs) has level 1 − α / (m − i + 1), and once "
              "a step fails the remaining pairs keep the failing step's level "
              "(<em>holm_level</em>), so an interval excludes 0 exactly when Holm rejects, and "
              "its colour says the same. The unadjusted intervals, each pair alone at "
              f"{100 * (1 - cmp.alpha):g} %, are in the folded table. Pairs are ordered by the "
              "rank of A, then of B. <em>mde</em>: the difference the pair's data detect with "
              "80 % power at α.</p>")
    margin = cmp.settings.get("margin")
    if margin is not None and "tost_pvalue" in cmp.pairs:
        how = ("the corrected t on the per-fold differences, shifted by the margin" if cv else
               "the paired z test of the 0/1 scores")
        intro += (f"<p>Equivalence: two one-sided tests (TOST) that the accuracy difference "
                  f"lies within ±{margin:g}, each at α = {cmp.alpha:g} ({how}); "
                  "<em>tost_pvalue</em> is the larger of the two one-sided p-values, and "
                  "<em>equivalent</em> means it is below α. Not adjusted for the pairs.</p>")
    m = len(cmp.models)
    if _many(cmp):
        return _wrap(_h2("pc-pairs") + _heat_section(cmp) + intro + table_html(
            pairs_by_rank(cmp, cmp.pairs), "pairs", key=["model_a", "model_b"],
            views=PAIR_VIEWS))
    if len(cmp.pairs) <= 21 or cmp.reference is not None:
        plot = _figure_html(pairs_forest(cmp), "Accuracy differences of each pair with "
                            "Holm-consistent intervals, coloured by the interval drawn")
    else:
        plot = _figure_html(pairs_matrix(cmp), f"Matrix of accuracy differences of {m} models; "
                            "dots mark pairs that differ after Holm's adjustment")
    return _wrap(_h2("pc-pairs") + intro + plot + table_html(
        pairs_by_rank(cmp, cmp.pairs), "pairs", key=["model_a", "model_b"], views=PAIR_VIEWS))


def _heat_section(cmp: ModelComparison) -> str:
    """Render every pair's accuracy test as one heat map (many models, one test set)."""
    if cmp.all_pairs.empty:
        return ("<p>Cross-validated predictions are compared fold by fold: the pairs below are "
                "the family tested; no heat map of every pair is drawn.</p>")
    k = len(cmp.models)
    intro = (f"<h3>Every pair: heat map</h3><p>Every pair of the {k:,} models: "
             f"{k * (k - 1) // 2:,} pairs, each by McNemar's exact test (mid-p below 25 "
             "discordant observations), Holm's adjustment over all of them. "
             f"{HEAT_MAP_LEGEND.format(alpha=cmp.alpha)} The table of every pair is in the "
             "comparison's JSON (--json, all_pairs), and below as CSV up to 2,000 pairs. The "
             "tables after it hold the family tested.</p>")
    return intro + heat_map_html(cmp.all_pairs, by_rank(cmp), cmp.alpha, True)


def _class_counts_named(cmp: ModelComparison) -> pd.DataFrame:
    out = cmp.class_counts.copy()
    out.columns = ["class", "n_true"] + [f"n_pred {m}" for m in cmp.models]
    return out[["class", "n_true"] + [f"n_pred {m}" for m in by_rank(cmp)]]


PER_CLASS_VIEWS = [("", ["precision_a", "precision_b", "rp", "rp_ci_low", "rp_ci_high",
                         "gs_pvalue_adjusted"], False),
                   ("Test statistics and unadjusted p-values",
                    ["n_pred_a", "n_pred_b", "gs_statistic", "gs_pvalue", "wgs_statistic",
                     "wgs_pvalue", "gw_statistic", "gw_pvalue", "rp_pvalue"], True),
                   ("Notes", ["note"], True)]


def section_per_class(cmp: ModelComparison) -> Any:
    """Render the per-class precision section: precisions, counts and paired tests.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    k = len(cmp.classes)
    parts = [_h2("pc-precision"),
             "<p>Precision is the share of a model's predictions of a class that are right. For "
             "each pair of the page's family and each class: the generalized score test GS, "
             "Kosinski's weighted score test WGS, the GEE Wald test on the logit scale GW and "
             "the relative precision RP = precision A / precision B with its interval. "
             "<em>gs_pvalue_adjusted</em> is Holm's adjustment across all classes × pairs; "
             "colours in the plots mark that decision. A test that does not exist for a class "
             "is blank, with the reason in <em>note</em>. The relative-precision intervals are "
             "RP's own, unadjusted, at 1 − α; colours follow the GS test after Holm, another "
             "test, so a grey interval can exclude 1.</p>"]
    if cmp.design["design"] == "repeated cv":
        parts.append("<p>With repeated cross-validation every test is clustered on the "
                     "observation: an observation's repeated predictions count once in the "
                     "variance.</p>")
    comp = heatmap_comparator(cmp)
    role = "the reference" if cmp.reference is not None else "the most accurate model"
    if k <= 60:
        parts.append(f"<p>The map shows, per class, each model's precision minus that of {role}, "
                     f"{esc(comp)} (outlined, with its own precision): blue where a model is "
                     "more precise, red where less, on a scale centred at 0, and grey where the "
                     f"GS test after Holm's adjustment does not show it to differ from "
                     f"{esc(comp)}. Models are in the order of their accuracy rank.</p>")
        parts.append(_figure_html(precision_heatmap(cmp), "Precision per class: difference "
                                  f"from {comp}; grey where not shown to differ"))
    models = by_rank(cmp)
    parts.append("<h3>Precision per class and model</h3><p class='meta'>Models in the order of "
                 "their accuracy rank, 1 first.</p>")
    parts.append(table_html(cmp.precision[["class", *models]], "precision", key=["class"],
                            views=_chunks(models)))
    parts.append("<h3>How often each class is true and predicted</h3>")
    counted = _class_counts_named(cmp)
    parts.append(table_html(counted, "class_counts", key=["class", "n_true"],
                            views=_chunks([c for c in counted.columns if c.startswith("n_pred ")])))
    parts.append("<h3>Paired tests per class</h3>")
    pairs = list(dict.fromkeys(zip(cmp.per_class.model_a, cmp.per_class.model_b)))
    sig = cmp.per_class[cmp.per_class.gs_pvalue_adjusted <= cmp.alpha]
    if not cmp.per_class["rp"].notna().any():
        parts.append("<p>No relative precision is defined here: in every class a model of the "
                     "pair never predicts it or has precision 0 (see <em>note</em>).</p>")
    elif _many(cmp):  # many models: the table holds each pair of the family, no figure of them
        parts.append(f"<p>{esc(_family_text(cmp))}</p>")
    elif len(pairs) * k <= 40:
        parts.append(_figure_html(rp_forest(cmp), "Relative precision per class and pair, "
                                  "coloured by the adjusted decision"))
    else:
        shown = list(dict.fromkeys(sig["class"]))[:40] if k > 40 else list(cmp.classes)
        if shown:
            note = ("" if k <= 40 else f"<p class='meta'>The {len(shown):,} classes of {k:,} with at "
                    "least one adjusted difference.</p>")
            parts.append(note + _figure_html(rp_matrix(cmp, shown), "Relative precision per "
                                             "class and pair; dots mark adjusted differences"))
        else:
            parts.append("<p>No class shows a precision difference after Holm's adjustment.</p>")
    parts.append(table_html(pairs_by_rank(cmp, cmp.per_class), "per_class", max_rows=2000,
                            key=["model_a", "model_b", "class"], views=PER_CLASS_VIEWS))
    return _wrap("".join(parts))


def section_gee(cmp: ModelComparison) -> Any:
    """Render the GEE section: joint test per class, odds ratios and pairwise tests.

    The odds ratios against the reference appear only on a page with a reference; on such a
    page the pairwise GEE tests of every pair are a separate family, and say so.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    intro = ("<p>For each class, a logistic GEE model of “this prediction is right” on the model, "
             "clustered on the observation, in closed form: Gondara's Algorithms 1 and 2. The "
             "joint Wald test asks whether all models have the same precision for that class; "
             "<em>pvalue_adjusted</em> is Holm across classes.</p>")
    parts = [_h2("pc-gee"), intro, table_html(cmp.gee, "gee_joint")]
    if cmp.reference is not None:
        parts.append("<h3>Precision odds ratios against the reference</h3><p>The odds of a "
                     "prediction being right, each model over the reference model "
                     f"{esc(cmp.reference)}: an odds ratio, not a ratio of precisions.</p>"
                     + table_html(cmp.gee_coefficients, "gee_coefficients", max_rows=2000,
                                  key=["class", "model"],
                                  views=[("", ["odds_ratio", "ci_low", "ci_high", "pvalue"],
                                          False)]))
        parts.append("<h3>Beyond the reference: pairwise GEE Wald tests of every pair</h3><p>A "
                     "separate family from the rest of this page: every pair of models, not "
                     "only those with the reference. <em>pvalue_holm</em> is Holm's adjustment "
                     "across the pairs of each class.</p>")
    else:
        parts.append("<h3>Pairwise GEE Wald tests</h3><p><em>pvalue_holm</em> is Holm's "
                     "adjustment across the pairs of each class.</p>")
    parts.append(table_html(cmp.gee_pairwise, "gee_pairwise", max_rows=2000))
    return _wrap("".join(parts))


def section_combined(cmp: ModelComparison) -> Any:
    """Render the one-p-value-per-pair combination across classes.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    intro = ("<p>One p-value per pair across all classes. The per-class p-values come from the "
             "same observations and are dependent, so Fisher's method (which assumes "
             "independence) is not used. On one test set with at most 30 classes and 45 pairs "
             "the combination is Dai, Leeder & Cui's with the dependence estimated from "
             "classifier-swap permutations; otherwise Simes' test, valid under positive "
             "dependence. <em>pvalue_adjusted</em> is Holm's adjustment across pairs; "
             "<em>classes_driving</em> lists the classes whose GS test differs after "
             "adjustment.</p>")
    return _wrap(_h2("pc-combined") + intro + table_html(
        cmp.combined, "combined", key=["model_a", "model_b"],
        views=[("", ["method", "pvalue", "pvalue_adjusted", "n_classes", "classes_driving"],
                False)]))


def section_prevalence(cmp: ModelComparison) -> Any:
    """Render precision at the population's prevalence, if any was given.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    if not len(cmp.prevalence):
        return _wrap("")
    intro = ("<p>Precision changes with the class mix; sensitivity and specificity do not. Given "
             "the population prevalence, Bayes' rule gives the precision each model would have "
             "there. Each interval is the precision at the corners of Wilson intervals for "
             "sensitivity and false-positive rate, each at 1 − α/2 (Bonferroni), so it stays "
             "valid with no false or no true positives (cross-validation counts each observation "
             "once). The ratio compares two models on the same bootstrap resamples of the counts "
             "(of observations, for cross-validation); where a model has no false or no true "
             "positives its resamples cannot move, and the ratio's ends come from the two "
             "models' intervals at 1 − α/2 instead.</p>")
    return _wrap(_h2("pc-prevalence") + intro + table_html(cmp.prevalence, "prevalence")
                 + "<h3>Ratio between models</h3>"
                 + table_html(cmp.prevalence_ratio, "prevalence_ratio"))


def section_cv_folds(cmp: ModelComparison) -> Any:
    """Render the per-fold accuracies (repeated cross-validation only).

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    if cmp.design["design"] != "repeated cv":
        return _wrap("")
    models = [c for c in cmp.fold_scores.columns if c not in ("repeat", "fold", "n_test")]
    return _wrap("<h3>Accuracy per fold</h3><p>The per-fold accuracies the t-tests use.</p>"
                 + table_html(cmp.fold_scores, "fold_scores", key=["repeat", "fold", "n_test"],
                              views=_chunks(models)))


def section_details(cmp: ModelComparison, versions: dict | None = None) -> Any:
    """Render the data and settings the comparison used, for the record.

    Parameters
    ----------
    cmp : ModelComparison
        The comparison to show.
    versions : dict, optional
        Extra rows, e.g. library versions from :func:`versions`.

    Returns
    -------
    Html
        The section, ready for a notebook cell's output.
    """
    rows = {"source": cmp.source, "engine": cmp.engine, "predictions per model": f"{cmp.n_rows:,}",
            "observations": f"{cmp.design['observations']:,}",
            "design": cmp.design["description"], "alpha": cmp.alpha,
            "reference": cmp.reference or "(every pair)",
            "bootstrap resamples": cmp.settings.get("n_boot"), "seed": cmp.settings.get("seed"),
            "prevalence": ", ".join(f"{k} = {v}" for k, v in
                                    (cmp.settings.get("prevalence") or {}).items()) or "(none)"}
    if cmp.settings.get("rope") is not None:
        rows["ROPE (Bayesian correlated t)"] = f"±{cmp.settings['rope']:g}"
    margin = cmp.settings.get("margin")
    rows["equivalence margin (TOST)"] = f"±{margin:g}" if margin is not None else "(none)"
    return _wrap(_h2("pc-details") + settings_table(rows, cmp.settings.get("notes") or [],
                                                    versions, first_note="note"))


def versions() -> dict:
    """Versions of Python and the main libraries, for the record."""
    import platform

    import scipy

    from .. import __version__

    return {"python": platform.python_version(), "precmp": __version__, "numpy": np.__version__,
            "pandas": pd.__version__, "scipy": scipy.__version__}



# The plot helpers other report views (the item report) draw with, under public names.
figure_html = _figure_html
interval_plot = _interval_plot
