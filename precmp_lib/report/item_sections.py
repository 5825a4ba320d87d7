"""The item report as HTML: display only, from an :class:`ItemComparison`.

Every function formats what :func:`precmp_lib.compare_items` computed; none runs a test. It
keeps the comparison report's page style (:mod:`precmp_lib.report_view`): user strings (model
and task names, file names) go through :func:`~precmp_lib.report.html.esc`, plots are PNG data
URIs with escaped alt text, and each table carries its own CSV.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..compare.base import by_score
from ..compare.items import (
    ALL_TASKS,
    ALL_TASKS_LINE,
    MANY_MODELS,
    ItemComparison,
    amount,
    median_mde,
    no_plan,
)
from ..compare.prediction_conclusions import format_pvalue
from .html import (
    BETTER,
    CSS,
    HEAT_MAP_LEGEND,
    NOT_SHOWN,
    WORSE,
    Html,
    bidi_note,
    esc,
    family_sentence,
    heat_map_html,
    settings_table,
    table_html,
)
from .prediction_sections import figure_html, interval_plot, legend_html

__all__ = ["ITEM_SECTIONS", "item_header", "item_sections", "item_toc"]

ITEM_SECTIONS = [
    ("pi-conclusion", "Conclusion"),
    ("pi-design", "Design: items, clusters, answers"),
    ("pi-scores", "Mean score per model"),
    ("pi-pairs", "Pairs of models on the same items"),
    ("pi-power", "Power: what these items can detect"),
    ("pi-details", "Data and settings"),
]


# the page for many models: the ranking and the heat map lead, the per-task results are folded
MANY_SECTIONS = [
    ("pi-conclusion", "Conclusion"),
    ("pi-ranking", "Ranking, each model against the leader"),
    ("pi-heatmap", "Every pair: heat map"),
    ("pi-tasks", "Per task"),
    ("pi-design", "Design: items, clusters, answers"),
    ("pi-power", "Power: what these items can detect"),
    ("pi-details", "Data and settings"),
]


def _many(cmp: ItemComparison) -> bool:
    return len(cmp.models) > MANY_MODELS


def _wrap(body: str) -> Html:
    return Html(f'<div class="pcr">{body}</div>')


def _h2(key: str, suffix: str = "") -> str:
    return f'<h2 id="{key}">{esc({**dict(ITEM_SECTIONS), **dict(MANY_SECTIONS)}[key] + suffix)}</h2>'


def _role(cmp: ItemComparison) -> str:
    """Return what a many-model page sets each model against: the reference, else the leader."""
    return "reference" if cmp.settings.get("reference") else "leader"


def _title(cmp: ItemComparison, key: str, title: str) -> str:
    """Return a section's title as this page says it (the ranking is against the reference)."""
    return title.replace("the leader", f"the {_role(cmp)}") if key == "pi-ranking" else title


def _task_label(task: str) -> str:
    return "all tasks together" if task == ALL_TASKS else (task or "")


def item_header(cmp: ItemComparison, source_name: str = "") -> Html:
    """Render what was compared, in one paragraph.

    Parameters
    ----------
    cmp : ItemComparison
    source_name : str
        How the page names the source.

    Returns
    -------
    Html
    """
    name = source_name or cmp.source or "the items"
    models = ", ".join(esc(m) for m in cmp.models[:12]) + (
        f" and {len(cmp.models) - 12} more" if len(cmp.models) > 12 else "")
    tasks = [t for t in cmp.tasks if t != ALL_TASKS]
    more = f" and {len(tasks) - 8} more" if len(tasks) > 8 else ""
    task_text = (f", {len(tasks)} tasks ({', '.join(esc(t) for t in tasks[:8])}{more})"
                 if len(tasks) > 1 else "")
    return _wrap(CSS + f"<p class='lead'>Evaluation items from <strong>{esc(name)}</strong>: "
                 f"{len(cmp.models)} models ({models}){task_text}, {cmp.n_rows:,} answers.</p>"
                 + bidi_note([name, *cmp.models, *tasks]))


def item_toc(cmp: ItemComparison) -> Html:
    """Render the table of contents.

    Parameters
    ----------
    cmp : ItemComparison

    Returns
    -------
    Html
    """
    links = "".join(f'<li><a href="#{k}">{esc(_title(cmp, k, t))}</a></li>'
                    for k, t in (MANY_SECTIONS if _many(cmp) else ITEM_SECTIONS))
    return _wrap(f'<nav class="toc"><strong>Contents</strong><ol>{links}</ol></nav>')


# a task whose logs lost more than this share of their samples to errors says so first
ERRORED_SHARE = 0.05
# more tasks than this: the first screen gives the answer over all tasks and folds the
# per-task lines; the page draws the all-tasks figures and one figure with a row per task, and
# folds the tasks' pairs into one table (57 subjects are one look, not 114 figures, which took
# most of the page's time)
FOLD_TASKS = 6


def _errored_notes(cmp: ItemComparison) -> dict[str, str]:
    """Task -> a sentence on the models whose logs of it lost more than 5 % of their samples.

    >>> from types import SimpleNamespace as N
    >>> cmp = N(tasks=["race", "arc"], settings={"eval_logs": {
    ...     "errored": {"a: race": ["q3 epoch 2"] * 3, "b: arc": ["q1 epoch 1"]},
    ...     "samples": {"a: race": 40, "b: arc": 40}}})
    >>> _errored_notes(cmp)
    {'race': 'a: 3 of 40 samples errored (7.5 %) and were skipped.'}
    """
    logs = cmp.settings.get("eval_logs") or {}
    errored, samples = logs.get("errored") or {}, logs.get("samples") or {}
    said: dict[str, list[str]] = {}
    for key, ids in errored.items():
        total = samples.get(key) or 0
        task = next((t for t in cmp.tasks if key.endswith(f": {t}")), None)
        if task is None or total <= 0 or len(ids) / total <= ERRORED_SHARE:
            continue
        model = key[: -len(f": {task}")]
        said.setdefault(task, []).append(
            f"{model}: {len(ids):,} of {total:,} samples errored ({100 * len(ids) / total:.1f} %) "
            "and were skipped.")
    return {task: " ".join(lines) for task, lines in said.items()}


def _top_pair(cmp: ItemComparison, task: str) -> tuple[str, str, Any] | None:
    """Return the top two models of a line and their pair's row (pairs tested, else all_pairs)."""
    summary = cmp.summary[cmp.summary["task"] == task]
    if len(summary) < 2:
        return None
    top, second = by_score(dict(zip(summary["model"], summary["score"])))[:2]
    for table in (cmp.pairs[cmp.pairs["task"] == task], cmp.all_pairs):
        if table.empty:
            continue
        hit = table[((table.model_a == top) & (table.model_b == second))
                    | ((table.model_a == second) & (table.model_b == top))]
        if len(hit):
            return top, second, hit.iloc[0]
    return None


def _suite_answer(cmp: ItemComparison) -> str:
    """Say the answer in one sentence: the difference of the top two models and its interval.

    It names the metric (over several tasks), the top model against the next one, their
    difference with its interval and the Holm-adjusted p-value: the first sentence of every
    item page. Empty when tasks on different scales are not pooled.
    """
    task = cmp.tasks[-1]
    if len(cmp.tasks) > 1 and task != ALL_TASKS:
        return ""
    found = _top_pair(cmp, task)
    if found is None:
        return ""
    top, second, row = found
    sign = 1 if row.model_a == top else -1
    est = sign * row.estimate
    lo, hi = sorted([sign * row.ci_low, sign * row.ci_high])
    unit = bool(cmp.design_table.set_index("task").loc[task].get("unit", True))
    scale = 100 if unit else 1
    fmt = "{:+.1f}" if unit else "{:+.3g}"
    what = " points" if unit else " in score units"
    p = format_pvalue(float(row.pvalue_adjusted))
    interval = (f"{100 * (1 - cmp.alpha):g} % interval {fmt.format(scale * lo)} to "
                f"{fmt.format(scale * hi)}" if math.isfinite(lo) and math.isfinite(hi)
                else "no interval (the differences do not vary)")
    said = (f"{top} − {second} = {fmt.format(scale * est)}{what}, {interval}, Holm-adjusted p "
            f"{p if p.startswith('<') else '= ' + p}.")
    if task != ALL_TASKS:
        return (f"{task}: " if task else "") + said
    scoring = (cmp.settings.get("eval_logs") or {}).get("scoring") or {}
    ways = sorted(set(scoring.values()))
    metric = (f"scored by {ways[0]}" if len(ways) == 1 else
              f"scored per task ({len(ways)} ways, named in the design section)" if ways
              else "mean item score")
    n_tasks = len([t for t in cmp.tasks if t != ALL_TASKS])
    return f"Over all {n_tasks} tasks ({metric}): {said}"


def _conclusion(cmp: ItemComparison) -> str:
    """Render the recommendation, then the conclusions that do not say it again.

    The recommendation is made from the best group of the last task (all tasks together when
    there are several), whose own line would say the same again; that line is left out. A task
    whose logs lost more than 5 % of their samples to errors says so at the start of its first
    line. The difference of the top two models with its interval leads every page (over all
    tasks: with the metric); with more than ``FOLD_TASKS`` tasks the per-task lines are folded.
    """
    lines = list(cmp.conclusions)
    rec = ""
    warn = _errored_notes(cmp)
    runs = str(cmp.settings.get("runs_said") or "")  # runs that did not finish: said first
    if cmp.recommendation:
        rec = cmp.recommendation
        if runs and rec.startswith(runs):
            rec = rec[len(runs):].strip()
        prefix = ALL_TASKS_LINE if len(cmp.tasks) > 1 else ""
        said = next((i for i, line in enumerate(lines) if line.startswith(prefix)), None)
        if said is not None:
            lines.pop(said)
        if len(cmp.tasks) == 1 and cmp.tasks[0] in warn:
            rec = f"{cmp.tasks[0] or 'The task'}: {warn.pop(cmp.tasks[0])} {rec}"
        rec = f'<p class="rec">{esc(rec)}</p>'
    for task, text in warn.items():  # the first line of each such task
        start = f"{task}: "
        i = next((i for i, line in enumerate(lines) if line.startswith(start)), None)
        if i is not None:
            lines[i] = f"{start}{text} {lines[i][len(start):]}"
    tasks = [t for t in cmp.tasks if t != ALL_TASKS]
    answer = " ".join(x for x in (runs, _suite_answer(cmp)) if x)
    lead = f'<p class="rec">{esc(answer)}</p>' if answer else ""
    if len(tasks) <= FOLD_TASKS:
        return (_h2("pi-conclusion") + lead + rec
                + "".join(f"<p>{esc(line)}</p>" for line in lines))
    every = [line for line in lines if line.startswith(ALL_TASKS_LINE)]
    each = [line for line in lines if not line.startswith(ALL_TASKS_LINE)]
    flagged = "".join(f"<p>{esc(line)}</p>" for line in each
                      if any(line.startswith(f"{t}: {w}") for t, w in warn.items()))
    folded = (f"<details><summary>{esc(f'Each of the {len(tasks)} tasks ({len(each)} lines)')}"
              f"</summary>{''.join(f'<p>{esc(line)}</p>' for line in each)}</details>")
    return (_h2("pi-conclusion") + lead + rec + "".join(f"<p>{esc(line)}</p>" for line in every)
            + flagged + folded)


def _design(cmp: ItemComparison) -> str:
    d = cmp.design_table.copy()
    d["task"] = d["task"].map(_task_label)
    intro = ("<p>Models are compared on the same items (a paired design: item difficulty cancels). "
             "Items that share a cluster are not independent: the intervals and tests below are "
             "cluster-robust (CR1), and the design effect says how much clustering widened the "
             "variance of a model's mean score. An item answered several times is scored by the "
             "mean of its answers; variance_reduction is the share of the variance of the mean "
             "score that the repeated answers removed.</p>")
    if "margin" in d and d["margin"].isna().all():
        d = d.drop(columns=["margin"])
    return _h2("pi-design") + intro + _log_scoring(cmp.settings.get("eval_logs")) + \
        _dropped(cmp.settings.get("dropped")) + table_html(d, "design")


def _dropped(dropped: dict | None) -> str:
    """Say how many answered items each model lost to the items every model answered.

    >>> print(_dropped({"race": {"a": 2, "b": 0}}))
    <p>Compared on the items every model answered (--common-items); items answered but left out because another model did not answer them: race: a 2, b 0.</p>
    """
    if dropped is None:
        return ""
    text = "; ".join(f"{_task_label(task)}: " + ", ".join(f"{m} {n:,}" for m, n in by.items())
                     for task, by in dropped.items() if task != ALL_TASKS and any(by.values()))
    return ("<p>Compared on the items every model answered (--common-items); items answered but "
            "left out because another model did not answer them: " + esc(text or "none") + ".</p>")


def _log_scoring(logs: dict | None) -> str:
    """Say what the eval logs were read as: each task's scoring, errored samples, logs left out.

    >>> print(_log_scoring({"scoring": {"race": "scorer match, 3 epochs"},
    ...                     "errored": {"a: race": ["q3 epoch 2"]}, "left_out": []}))
    <p>Read from the eval logs: race: scorer match, 3 epochs.</p><p>Errored samples, skipped: a: race: 1 (q3 epoch 2).</p>
    >>> print(_log_scoring({"scoring": {"t1": "metric acc", "t2": "metric acc"}}))
    <p>Read from the eval logs: every task (2): metric acc.</p>
    """
    if not logs:
        return ""
    scoring = logs.get("scoring", {})
    if len(scoring) > 1 and len(set(scoring.values())) == 1:  # a suite scored one way: once
        said = f"every task ({len(scoring)}): {next(iter(scoring.values()))}"
    else:
        said = "; ".join(f"{_task_label(task)}: {how}" for task, how in scoring.items())
    out = ["<p>Read from the eval logs: " + esc(said) + ".</p>"]
    errored = logs.get("errored") or {}
    if errored:
        out.append("<p>Errored samples, skipped: " + esc("; ".join(
            f"{where}: {len(ids)} ({', '.join(ids[:5])}{', …' if len(ids) > 5 else ''})"
            for where, ids in errored.items())) + ".</p>")
    if logs.get("left_out"):
        out.append("<p>Older logs of the same model and task, left out (--latest): "
                   + esc(", ".join(logs["left_out"])) + ".</p>")
    return "".join(out)


_SCORE_LEGEND = [(BETTER, "best group: the top model and those not shown worse than it"),
                 (WORSE, "shown worse than the top model after Holm's adjustment")]
_PAIR_LEGEND = [(BETTER, "the first model is shown better after Holm's adjustment"),
                (NOT_SHOWN, "not shown to differ after Holm's adjustment"),
                (WORSE, "the first model is shown worse after Holm's adjustment")]


def _pair_colour(reject: bool, estimate: float) -> str:
    if not reject:
        return NOT_SHOWN
    return BETTER if estimate > 0 else WORSE


def _scores_plot(summary: pd.DataFrame, alpha: float) -> str:
    s = summary.sort_values("score", ascending=False)
    colors = [BETTER if b else WORSE for b in s["best"]]
    fig = interval_plot(list(s["model"]), s["score"], s["ci_low"], s["ci_high"], colors,
                        xlabel=f"mean item score with {100 * (1 - alpha):g} % cluster-robust interval",
                        legend=_SCORE_LEGEND)
    return figure_html(fig, "Mean score of each model with its interval; best group: "
                       + ", ".join(s.loc[s["best"], "model"]))


def _folded(cmp: ItemComparison) -> bool:
    """Whether the tasks are many: one figure for all of them instead of two for each."""
    return len([t for t in cmp.tasks if t != ALL_TASKS]) > FOLD_TASKS


# Marker of each model in the figure of every task (colour keeps its meaning: the best group)
_MARKERS = "osD^vPX*hp<>"


def _tasks_plot(cmp: ItemComparison) -> str:
    """Draw each model's mean score on each task in one figure.

    A row per task, a marker per model; blue where the model is in the task's best group,
    vermillion where it is shown worse than the task's top model.
    """
    from matplotlib.lines import Line2D

    from .prediction_figures import _mpl, _subplots

    tasks = [t for t in cmp.tasks if t != ALL_TASKS]
    summary = cmp.summary.set_index(["task", "model"])
    last = cmp.summary[cmp.summary["task"] == cmp.tasks[-1]]
    order = by_score(dict(zip(last["model"], last["score"])))
    n = len(tasks)
    fig, ax = _subplots(figsize=(7.5, 1.4 + 0.19 * n), layout="constrained")
    y = np.arange(n)[::-1]
    handles = []
    for i, m in enumerate(order):
        rows = summary.loc[[(t, m) for t in tasks]]
        colours = [BETTER if b else WORSE for b in rows["best"]]
        marker = _MARKERS[i % len(_MARKERS)]
        ax.scatter(rows["score"], y, marker=marker, s=22, zorder=3, edgecolors=colours,
                   facecolors="none" if i % 2 else colours, linewidths=1.2)
        handles.append(Line2D([], [], color="#333333", marker=marker, ls="",
                              markerfacecolor="none" if i % 2 else "#333333",
                              label=_mpl(m, 40)))
    ax.set_yticks(y, [_mpl(t, 40) for t in tasks], fontsize=7)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_xlabel("mean item score on the task")
    ax.grid(axis="x", alpha=.4)
    ax.grid(axis="y", alpha=.15)
    handles += [Line2D([], [], color=c, marker="o", ls="", label=t) for c, t in (
        (BETTER, "in the task's best group"),
        (WORSE, "shown worse than the task's top model (Holm)"))]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    return figure_html(fig, f"Each model's mean score on each of the {n} tasks; a marker per "
                       "model, blue in the task's best group")


def _scores(cmp: ItemComparison) -> str:
    out = [_h2("pi-scores"), "<p>The mean item score of each model with its cluster-robust "
           "interval; the best group (blue) holds the models not shown worse than the top one "
           "after Holm's adjustment.</p>"]
    folded = _folded(cmp)
    for task in cmp.tasks:
        if folded and task != ALL_TASKS:
            continue
        s = cmp.summary[cmp.summary["task"] == task]
        if len(cmp.tasks) > 1:
            out.append(f"<h3>{esc(_task_label(task))}</h3>")
        out.append(_scores_plot(s, cmp.alpha))
    out.append(legend_html(_SCORE_LEGEND))
    if folded:
        n = len(cmp.tasks) - (ALL_TASKS in cmp.tasks)
        out.append(f"<h3>{esc(f'Each of the {n} tasks')}</h3><p>One row per task, one marker "
                   "per model; a task's intervals and pairs are in the tables below.</p>")
        out.append(_tasks_plot(cmp))
    out.append(table_html(cmp.summary.drop(columns=["task"]) if len(cmp.tasks) == 1 else cmp.summary,
                          "scores"))
    return "".join(out)


def _pairs_plot(pairs: pd.DataFrame) -> str:
    labels = [f"{a} − {b}" for a, b in zip(pairs["model_a"], pairs["model_b"])]
    colors = [_pair_colour(bool(r), float(e)) for r, e in zip(pairs["reject"], pairs["estimate"])]
    fig = interval_plot(labels, pairs["estimate"], pairs["ci_low"], pairs["ci_high"], colors,
                        xlabel="score A − B with its cluster-robust interval", ref=0.0,
                        legend=[(c, t) for c, t in _PAIR_LEGEND if c in set(colors)])
    return figure_html(fig, "Differences of each pair, coloured by the Holm-adjusted decision")


_PAIR_COLUMNS = ["model_a", "model_b", "test", "estimate", "ci_low", "ci_high", "statistic",
                 "pvalue", "pvalue_adjusted", "reject", "a_right_b_wrong", "a_wrong_b_right",
                 "design_effect", "tost_pvalue", "equivalent", "note"]


# the decision first; the test's own numbers, the flips and the equivalence test below it, so
# that no table is wider than the page
_PAIR_VIEWS = [
    ("", ["estimate", "ci_low", "ci_high", "pvalue_adjusted", "reject", "note"], False),
    ("Equivalence (two one-sided tests)", ["tost_pvalue", "equivalent"], False),
    ("The test and the flips", ["test", "statistic", "pvalue", "a_right_b_wrong",
                                "a_wrong_b_right", "design_effect"], True),
]


def _pairs(cmp: ItemComparison) -> str:
    used = set(cmp.design_table["test"])
    if used == {"clustered McNemar (Obuchowski)"}:
        test = ("the clustered McNemar test (Obuchowski 1998), which weighs the items only one "
                "model gets right cluster by cluster")
    elif used == {"McNemar"}:
        test = "McNemar's χ² test on the items only one model gets right (items independent)"
    else:
        test = ("the paired difference of item scores (the mean of an item's answers) with a "
                "cluster-robust (CR1) test, referred to z, or to Student's t with C − 1 degrees "
                "of freedom when a task has fewer than 50 clusters (the row says so)")
    over = ("across every pair of every task together (--holm-over pairs-tasks; the all-tasks "
            "line across its own pairs)" if cmp.settings.get("holm_over") == "pairs-tasks"
            else "across the pairs of a task (--holm-over pairs, the default)")
    intro = (f"<p>Each pair is compared on the same items by {test}; p-values are adjusted by "
             f"Holm's method {over}, and <em>reject</em> is the decision at "
             f"α = {cmp.alpha:g}. The estimate is the mean score of A minus that of B with its "
             "cluster-robust interval (unadjusted). Flips: a_right_b_wrong counts the items A gets "
             "right and B wrong (right → wrong going from A to B); a_wrong_b_right the reverse.")
    margins = _margin_text(cmp)
    if margins:
        intro += (f" Equivalence: two one-sided tests at ±{margins}, referred to the pair's z "
                  "or t; equivalent only when the TOST p-value is below α.")
    out = [_h2("pi-pairs"), intro + "</p>"]
    folded = _folded(cmp)
    for task in cmp.tasks:
        if folded and task != ALL_TASKS:
            continue
        p = cmp.pairs[cmp.pairs["task"] == task]
        if len(cmp.tasks) > 1:
            out.append(f"<h3>{esc(_task_label(task))}</h3>")
        if len(p) <= 28:
            out.append(_pairs_plot(p))
        out.append(_pairs_table(p, f"pairs_{len(out)}", ["model_a", "model_b"]))
    if folded:  # every task's pairs in one table, under a fold
        p = cmp.pairs[cmp.pairs["task"] != ALL_TASKS].assign(
            task=lambda d: d["task"].map(_task_label))
        n = len(cmp.tasks) - (ALL_TASKS in cmp.tasks)
        out.append(f'<details class="more"><summary>'
                   f'{esc(f"The pairs on each of the {n} tasks ({len(p):,} rows)")}</summary>'
                   + _pairs_table(p, "pairs_tasks", ["task", "model_a", "model_b"])
                   + "</details>")
    out.append(legend_html(_PAIR_LEGEND))
    return "".join(out)


def _pairs_table(p: pd.DataFrame, name: str, key: list[str]) -> str:
    # a note stands beside the row it qualifies; a table without any shows no empty column
    cols = list(dict.fromkeys(key + [
        c for c in _PAIR_COLUMNS if c in p.columns
        and (c != "note" or p["note"].fillna("").astype(str).ne("").any())]))
    return table_html(p[cols], name, key=key, views=_PAIR_VIEWS)


def _margin_text(cmp: ItemComparison) -> str:
    """Say the equivalence margin: one number, or each task's ("" without one)."""
    if cmp.margin is not None:
        return f"{cmp.margin:g}"
    margins = {t: m for t, m in (cmp.settings.get("margins") or {}).items() if m is not None}
    return "; ".join(f"{m:g} for {_task_label(t)}" for t, m in margins.items())


_PLAN_COLUMNS = ["task", "model_a", "model_b", "answers_k", "var_between", "var_within",
                 "reduction_diff", "plan_mde", "items_k1", "items_k", "items_2k"]


def _repeated(cmp: ItemComparison) -> str:
    """Render the plan for repeated answers (Miller 2024) when an item was answered twice or more."""
    if "items_k1" not in cmp.pairs or cmp.pairs["items_k1"].isna().all():
        return ""
    p = cmp.pairs[cmp.pairs["items_k1"].notna()][_PLAN_COLUMNS].copy()
    p["task"] = p["task"].map(_task_label)
    for col in ("items_k1", "items_k", "items_2k"):
        p[col] = np.ceil(p[col])
    if len(cmp.tasks) == 1:
        p = p.drop(columns=["task"])
    intro = ("<h3>Repeated answers: items against answers per item</h3><p>Averaging K answers "
             "per item shrinks only the within-item part of the variance of the difference: "
             "Var(A − B) = deff (σ²_between + σ²_within / K) / n (Miller 2024). var_within is "
             "the variance of the difference between two answers to an item (the two models' "
             "within-item variances added), var_between that of the answer-averaged difference "
             "over items, reduction_diff the share of the variance of the difference that the "
             "K answers remove against one answer, plan_mde the difference these items detect "
             "with 80 % power, and items_k1, items_k, items_2k the items that detect plan_mde "
             "with one answer per item, with K and with 2K. A between-item variance estimated below 0 is taken as 0, so plan_mde can exceed the mde above.</p>")
    return intro + table_html(p, "repeated")


def _power(cmp: ItemComparison) -> str:
    p = cmp.pairs[["task", "model_a", "model_b", "estimate", "se", "design_effect", "mde",
                   "items_needed"]].copy()
    p["task"] = p["task"].map(_task_label)
    p["items_needed"] = np.ceil(p["items_needed"])  # a number of items: rounded up
    if len(cmp.tasks) == 1:
        p = p.drop(columns=["task"])
    rows = []
    for task in cmp.tasks:
        d = cmp.design_table[cmp.design_table["task"] == task].iloc[0]
        q = cmp.pairs[cmp.pairs["task"] == task]
        mde = median_mde(q)
        where = f"{_task_label(task)}: " if len(cmp.tasks) > 1 else ""
        clusters = "" if pd.isna(d["clusters"]) else f" in {int(d['clusters']):,} clusters"
        items = f"{'with' if where else 'With'} {int(d['items']):,} items{clusters}"
        if math.isnan(mde):
            said = f"{items}, no difference is planned: {no_plan(not pd.isna(d['clusters']))}."
        else:
            said = (f"{items}, a difference of {amount(mde, bool(d.get('unit', True)))} is "
                    "detected with 80 % power "
                    f"at α = {cmp.alpha:g} (median over pairs, two-sided paired test with the "
                    "observed spread and design effect).")
        rows.append(f"<p>{esc(where + said)}</p>")
    intro = ("<p>In the table, mde is the smallest difference of mean scores these items detect with 80 % "
             "power; items_needed is how many items (clusters growing with them, the same design "
             "effect) would detect the observed difference with 80 % power.</p>")
    if _folded(cmp):  # the all-tasks line stays in view; each task's under a fold
        overall = rows.pop() if cmp.tasks[-1] == ALL_TASKS else ""
        rows = [overall, f'<details class="more"><summary>{esc(f"Each of the {len(rows)} tasks")}'
                         f"</summary>{''.join(rows)}</details>"]
    return _h2("pi-power") + intro + "".join(rows) + table_html(p, "power") + _repeated(cmp)


def _family_text(cmp: ItemComparison) -> str:
    """Say which pairs were tested, and over which Holm's adjustment runs."""
    return family_sentence(len(cmp.models), cmp.settings.get("family", "all"),
                           reference=cmp.settings.get("reference"),
                           leader="the top model of each task", many=MANY_MODELS,
                           per=" per task", heat="" if cmp.all_pairs.empty else "every pair")


def _against_leader(cmp: ItemComparison, task: str) -> pd.DataFrame:
    """Return one row per model of a line, ranked: score, interval, and its pair with the leader."""
    summary = cmp.summary[cmp.summary["task"] == task]
    order = by_score(dict(zip(summary["model"], summary["score"])))
    s = summary.set_index("model").loc[order]
    ref = cmp.settings.get("reference")
    leader = ref if ref else order[0]
    pairs = cmp.pairs[cmp.pairs["task"] == task]
    if not ((pairs.model_a == leader) | (pairs.model_b == leader)).all() and not cmp.all_pairs.empty:
        pairs = pairs[(pairs.model_a == leader) | (pairs.model_b == leader)]
    cols: dict[str, list[float]] = {"diff": [], "diff_low": [], "diff_high": [], "p_holm": []}
    shown: list[str] = []
    by_other = {}
    for r in pairs.itertuples():
        if leader in (r.model_a, r.model_b):
            by_other[r.model_b if r.model_a == leader else r.model_a] = r
    for m in order:
        r = by_other.get(m)
        if r is None:
            for c in cols:
                cols[c].append(math.nan)
            shown.append(_role(cmp) if m == leader else "")
            continue
        sign = 1 if r.model_a == m else -1  # the model minus the leader
        lo, hi = sorted([sign * r.ci_low, sign * r.ci_high])
        cols["diff"].append(sign * r.estimate)
        cols["diff_low"].append(lo)
        cols["diff_high"].append(hi)
        cols["p_holm"].append(r.pvalue_adjusted)
        shown.append("not shown to differ" if not r.reject
                     else "shown better" if sign * r.estimate > 0 else "shown worse")
    out = pd.DataFrame({"rank": s["rank"].to_numpy(), "model": order,
                        "score": s["score"].to_numpy(), "ci_low": s["ci_low"].to_numpy(),
                        "ci_high": s["ci_high"].to_numpy(), "best": s["best"].to_numpy(),
                        f"minus {leader}": cols["diff"], "low": cols["diff_low"],
                        "high": cols["diff_high"], "p_holm": cols["p_holm"],
                        f"against the {_role(cmp)}": shown})
    return out


def _ranking(cmp: ItemComparison) -> str:
    """Render the ranked list with intervals, the best group and each model against the leader."""
    task = cmp.tasks[-1]
    table = _against_leader(cmp, task)
    where = " over all tasks" if task == ALL_TASKS else (f" on {task}" if task else "")
    best = list(table.loc[table["best"], "model"])
    from ..compare.prediction_conclusions import join_names

    group = (f"The best group{where}: {join_names(best, most=12)} ({len(best):,} of "
             f"{len(table):,} models not shown worse than the top one)." if best
             else "No best group: tasks on different scales are not pooled.")
    intro = (f"<p>{esc(group)}</p><p>{esc(_family_text(cmp))} Each row: the model's mean score "
             f"with its {100 * (1 - cmp.alpha):g} % cluster-robust interval, then its difference "
             f"from the {_role(cmp)} with its "
             "interval and the Holm-adjusted p-value.</p>")
    title = _title(cmp, "pi-ranking", dict(MANY_SECTIONS)["pi-ranking"])
    return f'<h2 id="pi-ranking">{esc(title)}</h2>' + intro + table_html(table, "ranking")


def _heat_map(cmp: ItemComparison) -> str:
    """Render every pair as one heat map, drawn once in the page (a canvas, an inline script)."""
    if cmp.all_pairs.empty:
        return ""
    task = cmp.tasks[-1]
    summary = cmp.summary[cmp.summary["task"] == task]
    names = by_score(dict(zip(summary["model"], summary["score"])))
    k = len(names)
    unit = bool(cmp.design_table.set_index("task").loc[task].get("unit", True))
    where = "all tasks together" if task == ALL_TASKS else (task or "the items")
    if task == ALL_TASKS:  # the map's differences are those of the all-tasks line
        where += (" (the mean of the task means: --weight tasks)"
                  if cmp.settings.get("weight") == "tasks" else
                  " (the mean over every item: --weight items)")
    intro = (f"<p>Every pair of the {k:,} models on {esc(where)}: {k * (k - 1) // 2:,} pairs, "
             f"Holm's adjustment over all of them. {HEAT_MAP_LEGEND.format(alpha=cmp.alpha)} "
             "The table of every pair is in the comparison's JSON (--json, all_pairs), and "
             "below as CSV up to 2,000 pairs.</p>")
    return _h2("pi-heatmap") + intro + heat_map_html(cmp.all_pairs, names, cmp.alpha, unit)


def _tasks_folded(cmp: ItemComparison) -> str:
    """Render the tasks, folded: one table of every model's score on every task (ranked overall)."""
    tasks = [t for t in cmp.tasks if t != ALL_TASKS]
    task = cmp.tasks[-1]
    summary = cmp.summary
    last = summary[summary["task"] == task]
    order = by_score(dict(zip(last["model"], last["score"])))
    wide = summary.pivot(index="model", columns="task", values="score").loc[order]
    best = summary.pivot(index="model", columns="task", values="best").loc[order]
    head = "".join(f'<th>{esc(_task_label(t))}</th>' for t in tasks)
    rows = []
    for m in order:
        cells = "".join(f"<td>{'<b>' if best.at[m, t] else ''}{wide.at[m, t]:.3f}"
                        f"{'</b>' if best.at[m, t] else ''}</td>" for t in tasks)
        rows.append(f'<tr><td class="s">{esc(m)}</td>{cells}</tr>')
    groups = "".join(f"<li>{esc(_task_label(t))}: {esc(', '.join(cmp.best_by_task.get(t, [])[:12]))}"
                     f"{esc(' and more' if len(cmp.best_by_task.get(t, [])) > 12 else '')}</li>"
                     for t in tasks)
    table = (f'<div class="box"><table class="t"><thead><tr><th class="s">model</th>{head}</tr>'
             f'</thead><tbody>{"".join(rows)}</tbody></table></div>')
    if len(tasks) <= 1:
        return ""
    return (_h2("pi-tasks") + f"<p>Each model's mean score on each of the {len(tasks)} tasks, "
            "in bold where the model is in the task's best group; each task's pairs are in the "
            "comparison's JSON (--json).</p>"
            f'<details class="more"><summary>{esc(f"Scores on each of the {len(tasks)} tasks")}'
            f"</summary>{table}</details>"
            f'<details class="more"><summary>{esc("The best group of each task")}</summary>'
            f"<ul>{groups}</ul></details>")


def _power_many(cmp: ItemComparison) -> str:
    """Render the power of each line in one sentence (the pairs' table is in the JSON)."""
    rows = []
    for task in cmp.tasks:
        d = cmp.design_table[cmp.design_table["task"] == task].iloc[0]
        mde = median_mde(cmp.pairs[cmp.pairs["task"] == task])
        if math.isnan(mde):
            continue
        where = f"{_task_label(task)}: " if len(cmp.tasks) > 1 else ""
        rows.append(f"<li>{esc(where)}{esc(amount(mde, bool(d.get('unit', True))))}</li>")
    intro = ("<p>The smallest difference of mean scores the items detect with 80 % power "
             "(median over the pairs tested):</p>")
    if len(rows) <= 1:  # one line is said, not folded
        return _h2("pi-power") + intro + f"<ul>{''.join(rows)}</ul>"
    return (_h2("pi-power") + intro
            + f'<details class="more"><summary>{esc(f"{len(rows)} lines")}</summary>'
            f"<ul>{''.join(rows)}</ul></details>")


def _details(cmp: ItemComparison, versions: dict | None) -> str:
    rows = {"source": cmp.source, "engine": cmp.engine, "answers read": f"{cmp.n_rows:,}",
            "alpha": cmp.alpha, "test": cmp.settings.get("test"),
            "equivalence margin": _margin_text(cmp) or "(none)",
            "Holm's adjustment over": "every pair of every task (pairs-tasks)"
            if cmp.settings.get("holm_over") == "pairs-tasks"
            else "the pairs of each task (pairs, the default)"}
    return _h2("pi-details") + settings_table(rows, cmp.settings.get("notes") or [], versions)


def item_sections(cmp: ItemComparison, versions: dict | None = None) -> Html:
    """Render every section of the item report, in order.

    Parameters
    ----------
    cmp : ItemComparison
    versions : dict, optional
        Extra rows for the settings table (library versions).

    Returns
    -------
    Html

    Examples
    --------
    >>> from precmp_lib import compare_items
    >>> frame = pd.DataFrame({"item": list(range(6)) * 2, "model": ["<a>"] * 6 + ["b"] * 6,
    ...                       "score": [1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1]})
    >>> page = item_sections(compare_items(frame))
    >>> "Pairs of models on the same items" in page, "&lt;a&gt;" in page, "<a>" in page
    (True, True, False)
    """
    if _many(cmp):
        body: list[Any] = [_conclusion(cmp), _ranking(cmp), _heat_map(cmp), _tasks_folded(cmp),
                           _design(cmp), _power_many(cmp), _details(cmp, versions)]
    else:
        body = [_conclusion(cmp), _design(cmp), _scores(cmp), _pairs(cmp), _power(cmp),
                _details(cmp, versions)]
    return _wrap("".join(body))
