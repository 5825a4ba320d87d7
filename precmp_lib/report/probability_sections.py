"""The probabilities report as HTML: display only, from a :class:`ProbabilityComparison`.

Every function formats what :func:`precmp_lib.compare.probabilities.compare_probabilities`
computed; none runs a test. The colour language and the rank order are those of the
predictions page (:mod:`precmp_lib.report.html`): blue the best group, vermillion shown worse
than its top model, grey not shown to differ, black the reference. The labels' sections are the
predictions page's own (:mod:`precmp_lib.report.prediction_sections`), shown on
:attr:`~precmp_lib.compare.probabilities.ProbabilityComparison.label_comparison`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..compare.probabilities import METRICS, ProbabilityComparison
from .html import (
    BETTER,
    CSS,
    DARK_GREY,
    NOT_SHOWN,
    REFERENCE,
    WORSE,
    _html,
    bidi_note,
    esc,
    settings_table,
    table_html,
)
from .prediction_figures import _figure_html, _interval_plot, _mpl, _subplots

__all__ = ["SECTIONS", "model_colours", "page_header", "section_auc", "section_auc_pairs",
           "section_calibration", "section_classes", "section_conclusion", "section_details",
           "section_folds", "section_labels", "section_losses", "table_of_contents"]

SECTIONS = [
    ("pp-conclusion", "Recommendation"),
    ("pp-auc", "AUC and ROC curves"),
    ("pp-auc-pairs", "Pairs of models: AUC by DeLong"),
    ("pp-classes", "One class against the rest"),
    ("pp-folds", "AUC per fold"),
    ("pp-losses", "Brier score and log loss"),
    ("pp-calibration", "Calibration"),
    ("pp-labels", "Labels: accuracy and precision"),
    ("pp-details", "Data and settings"),
]

# line styles that tell the curves of one colour apart, in rank order
_STYLES = ["-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (3, 1, 1, 1, 1, 1))]


def _h2(key: str) -> str:
    return f'<h2 id="{key}">{esc(dict(SECTIONS)[key])}</h2>'


def _wrap(body: str) -> Any:
    return _html(f'<div class="pcr">{body}</div>')


def _level(cmp: ProbabilityComparison) -> str:
    return f"{100 * (1 - cmp.alpha):g} %"


def by_rank(cmp: ProbabilityComparison) -> list[str]:
    """Return the models in rank order of the metric asked for (ties in the data's order)."""
    return list(cmp.summary.sort_values("rank", kind="stable")["model"])


def model_colours(cmp: ProbabilityComparison) -> dict[str, tuple[str, str]]:
    """Return each model's colour and its meaning, decided by the metric asked for.

    Parameters
    ----------
    cmp : ProbabilityComparison

    Returns
    -------
    dict
        Model name to (colour, meaning).
    """
    name = METRICS[cmp.metric][0]
    if cmp.reference is None:
        top = cmp.best[0]
        return {m: (BETTER, f"best group: {top} and the models not shown worse than it by "
                            f"{name}") if m in cmp.best
                else (WORSE, f"shown worse than {top} by {name} after Holm's adjustment")
                for m in cmp.models}
    out = {cmp.reference: (REFERENCE, f"the reference, {cmp.reference}")}
    higher = METRICS[cmp.metric][1]
    for r in cmp.pairs.itertuples():
        better = (r.estimate > 0) == higher
        out[r.model_a] = ((NOT_SHOWN, f"not shown to differ from {cmp.reference}")
                          if not r.reject else
                          (BETTER, f"shown better than {cmp.reference}") if better else
                          (WORSE, f"shown worse than {cmp.reference}"))
    return out


def _legend(colours: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    order = {BETTER: 0, NOT_SHOWN: 1, WORSE: 2, REFERENCE: 3}
    return sorted(dict.fromkeys(colours.values()), key=lambda cm: order.get(cm[0], 9))


def _legend_html(items: list[tuple[str, str]]) -> str:
    parts = [f'<span style="color:{c}">●</span> {esc(text)}' for c, text in items]
    return f'<p class="legend">Legend: {"; ".join(parts)}.</p>'


# --------------------------------------------------------------------------------------------
# header, conclusion, contents
# --------------------------------------------------------------------------------------------


def _design_line(cmp: ProbabilityComparison, name: str) -> str:
    models = ", ".join(cmp.models[:8]) + (
        f" and {len(cmp.models) - 8} more" if len(cmp.models) > 8 else "")
    scores = (f"scores: P({cmp.positive}) of each model" if not cmp.multiclass else
              f"scores: P(class) of each model for {len(cmp.classes)} classes")
    return (f"{name} · {cmp.design['description']} · {len(cmp.models):,} models: {models} · "
            f"{scores} · {cmp.n_rows:,} per model")


def page_header(cmp: ProbabilityComparison, source_name: str = "") -> Any:
    """Render the page's style and the design in one line (naming the scores compared)."""
    name = source_name or cmp.source or "the probabilities"
    return _wrap(CSS + f'<p class="design">{esc(_design_line(cmp, name))}</p>'
                 + bidi_note([name, *cmp.models, *map(str, cmp.classes)]))


def _shown(cmp: ProbabilityComparison) -> list[tuple[str, str]]:
    skip = set()
    if cmp.multiclass:
        skip |= {"pp-auc-pairs", "pp-calibration"}
    else:
        skip.add("pp-classes")
    if not len(cmp.fold_aucs):
        skip.add("pp-folds")
    if not cmp.has_losses:
        skip |= {"pp-losses", "pp-calibration"}
    return [(k, t) for k, t in SECTIONS if k not in skip]


def table_of_contents(cmp: ProbabilityComparison) -> Any:
    """Render the table of contents, with links to the sections shown."""
    links = "".join(f'<li><a href="#{k}">{esc(t)}</a></li>' for k, t in _shown(cmp))
    return _wrap(f'<nav class="toc"><strong>Contents</strong><ol>{links}</ol></nav>')


def section_conclusion(cmp: ProbabilityComparison) -> Any:
    """Render the recommendation (by the metric asked for), its points and the notes."""
    parts = [_h2("pp-conclusion"), f'<p class="rec">{esc(cmp.recommendation)}</p>']
    points = "".join(f"<li>{esc(line)}</li>" for line in cmp.conclusions[:6])
    parts.append(f'<ul class="points">{points}</ul>')
    name = METRICS[cmp.metric][0]
    parts.append(f'<p class="meta">The recommendation rests on the {esc(name)} (--metric '
                 f'{esc(cmp.metric)}); the other measures follow below.</p>')
    if cmp.notes:
        lines = "".join(f"<li>{esc(n)}</li>" for n in cmp.notes)
        parts.append(f'<div class="warn"><strong>Notes</strong><ul>{lines}</ul></div>')
    return _wrap("".join(parts))


# --------------------------------------------------------------------------------------------
# AUC
# --------------------------------------------------------------------------------------------


def roc_plot(cmp: ProbabilityComparison) -> Any:
    """ROC curves of every model in one plot, in rank order, coloured by the decision."""
    colours = model_colours(cmp)
    fig, ax = _subplots(figsize=(6.4, 6.0), layout="constrained")
    chance = REFERENCE if cmp.reference is None else DARK_GREY
    ax.plot([0, 1], [0, 1], color=chance, lw=.9, ls="--", label="chance (AUC 0.5)")
    auc = cmp.auc.set_index("model")["auc"]
    for i, m in enumerate(by_rank(cmp)):
        part = cmp.roc[cmp.roc["model"] == m]
        ax.plot(part["fpr"], part["tpr"], color=colours[m][0], ls=_STYLES[i % len(_STYLES)],
                lw=1.8, label=_mpl(f"{i + 1}. {m} (AUC {auc[m]:.3f})", 50))
    ax.set_xlabel(f"false positive rate (1 − specificity; positive class {_mpl(cmp.positive)})")
    ax.set_ylabel("true positive rate (sensitivity)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_aspect("equal")
    ax.grid(alpha=.4)
    ax.legend(loc="lower right", fontsize=8)
    return fig


def section_auc(cmp: ProbabilityComparison) -> Any:
    """Render each model's AUC with its interval (plot and table) and the ROC curves."""
    if cmp.multiclass:
        intro = ("<p>Each model's Hand and Till M: the mean over pairs of classes of the "
                 "two-class AUCs (one-vs-rest AUCs per class in the next section).</p>")
        table = cmp.auc.set_index("model").loc[by_rank(cmp)].reset_index()[["model", "auc",
                                                                               "note"]]
        return _wrap(_h2("pp-auc") + intro + table_html(table, "auc"))
    colours = model_colours(cmp)
    design = cmp.design
    how = (f"Obuchowski's clustered variance over {design['n_clusters']:,} clusters"
           if design.get("n_clusters") else "DeLong's variance")
    intro = (f"<p>The AUC is the chance that a model scores a random positive ({esc(cmp.positive)}) "
             f"above a random negative (ties count one half). Intervals at {_level(cmp)} from "
             f"{esc(how)}, clipped to [0, 1]. An AUC of exactly 0 or 1 has variance 0: its "
             "interval is then the exact Clopper–Pearson bound from min(positives, negatives) "
             "disjoint positive–negative pairs, never a zero-width interval. Models are in rank "
             f"order of the {esc(METRICS[cmp.metric][0])}.</p>")
    order = by_rank(cmp)
    t = cmp.auc.set_index("model").loc[order]
    shown = [colours[m] for m in order]
    plot = _interval_plot([f"{i + 1}. {m}" for i, m in enumerate(order)], t["auc"], t["ci_low"],
                          t["ci_high"], [c for c, _ in shown], legend=_legend(colours),
                          xlabel=f"AUC with {_level(cmp)} interval (models by rank)")
    table = t.reset_index()
    table.insert(1, "rank", cmp.summary.set_index("model").loc[order, "rank"].to_numpy())
    table.insert(2, "best", [m in cmp.best for m in order])
    table = table.rename(columns={"statistic": "z_vs_0.5", "pvalue": "p_vs_0.5"})
    return _wrap(_h2("pp-auc") + intro + _figure_html(plot, "AUC of each model with its interval")
                 + _figure_html(roc_plot(cmp), "ROC curves of every model")
                 + _legend_html(_legend(colours)) + table_html(table, "auc"))


def _pairs_sorted(cmp: ProbabilityComparison, frame: pd.DataFrame) -> pd.DataFrame:
    if not len(frame):
        return frame
    pos = {m: i for i, m in enumerate(by_rank(cmp))}
    key = frame["model_a"].map(pos) * (len(pos) + 1) + frame["model_b"].map(pos)
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")]


def _pairs_plot(frame: pd.DataFrame, xlabel: str, higher: bool) -> Any:
    colours = []
    for r in frame.itertuples():
        better = (r.estimate > 0) == higher
        colours.append(NOT_SHOWN if not r.reject else BETTER if better else WORSE)
    legend = [(BETTER, "A shown better than B (Holm)"), (NOT_SHOWN, "not shown to differ"),
              (WORSE, "A shown worse than B (Holm)")]
    return _interval_plot([f"{a} − {b}" for a, b in zip(frame["model_a"], frame["model_b"])],
                          frame["estimate"], frame["ci_low"], frame["ci_high"], colours,
                          xlabel=xlabel, legend=legend, ref=0.0)


def section_auc_pairs(cmp: ProbabilityComparison) -> Any:
    """Render each pair's AUC difference by DeLong's paired test (or the corrected t), Holm."""
    if cmp.multiclass or not len(cmp.auc_pairs):
        return _wrap("")
    frame = _pairs_sorted(cmp, cmp.auc_pairs)
    test = frame["test"].iloc[0]
    intro = (f"<p>AUC of A minus AUC of B on the same observations, by {esc(test)}; "
             f"{len(frame)} pairs, p-values adjusted by Holm over them (one family). "
             f"Unadjusted {_level(cmp)} intervals.</p>")
    plot = _pairs_plot(frame, f"AUC A − B with {_level(cmp)} interval", True)
    return _wrap(_h2("pp-auc-pairs") + intro + _figure_html(plot, "AUC differences of the pairs")
                 + table_html(frame, "auc_pairs", key=["model_a", "model_b"], views=[
                     ("", ["estimate", "ci_low", "ci_high", "statistic", "pvalue",
                           "pvalue_adjusted", "reject"], False),
                     ("AUCs and test", ["auc_a", "auc_b", "df", "test", "note"], True)]))


def section_classes(cmp: ProbabilityComparison) -> Any:
    """Multiclass: each model's one-vs-rest AUC per class, and the pairs per class (Holm)."""
    if not cmp.multiclass:
        return _wrap("")
    intro = (f"<p>Each class against the rest, scored by the model's probability of it, with "
             f"DeLong {_level(cmp)} intervals; then each pair of models per class by DeLong's "
             f"paired test, Holm over every row ({len(cmp.class_pairs)} tests).</p>")
    return _wrap(_h2("pp-classes") + intro + table_html(cmp.per_class, "auc_per_class")
                 + table_html(cmp.class_pairs, "auc_pairs_per_class"))


def section_folds(cmp: ProbabilityComparison) -> Any:
    """Cross-validation: each model's AUC per fold (the corrected t compares these)."""
    if not len(cmp.fold_aucs):
        return _wrap("")
    d = cmp.design
    wide = cmp.fold_aucs.pivot(index="fold", columns="model", values="auc")[by_rank(cmp)]
    intro = (f"<p>Each model's AUC on each of {len(wide)} folds ({d['repeats']} × "
             f"{d['folds']}). Pairs are compared by the corrected resampled t of Nadeau and "
             f"Bengio on these per-fold AUCs (test/train ratio 1/{d['folds'] - 1}, df "
             f"{len(wide) - 1}): folds share training data, so the plain t would be too "
             "liberal.</p>")
    return _wrap(_h2("pp-folds") + intro + table_html(wide.reset_index(), "auc_per_fold"))


# --------------------------------------------------------------------------------------------
# losses and calibration
# --------------------------------------------------------------------------------------------


def section_losses(cmp: ProbabilityComparison) -> Any:
    """Render Brier score and log loss per model and per pair, with intervals (Holm)."""
    if not cmp.has_losses:
        return _wrap("")
    clustered = cmp.design.get("n_clusters")
    how = (f"cluster-robust (CR1) over {clustered:,} clusters" if clustered
           else "observations taken as independent")
    intro = (f"<p>Lower is better. Brier score: the mean of (p − y)²"
             f"{' summed over classes' if cmp.multiclass else ''}; log loss: the mean of "
             f"−log p(true class), probabilities clipped to [ε, 1 − ε] with ε = {cmp.epsilon:g}. "
             f"Intervals at {_level(cmp)}, {esc(how)}; pairs by the paired difference of "
             "per-observation losses (A − B: negative means A is better), Holm over each "
             "measure's pairs.</p>")
    parts = [_h2("pp-losses"), intro]
    order = by_rank(cmp)
    for label, table, pairs, key in (("Brier score", cmp.brier, cmp.brier_pairs, "brier"),
                                     ("Log loss", cmp.log_loss, cmp.log_loss_pairs, "log_loss")):
        t = table.set_index("model").loc[order].reset_index()
        frame = _pairs_sorted(cmp, pairs)
        plot = _pairs_plot(frame, f"{label} A − B with {_level(cmp)} interval", False)
        parts += [f"<h3>{esc(label)}</h3>", table_html(t, key),
                  _figure_html(plot, f"{label} differences of the pairs"),
                  table_html(frame, f"{key}_pairs", key=["model_a", "model_b"], views=[
                      ("", ["estimate", "ci_low", "ci_high", "statistic", "pvalue",
                            "pvalue_adjusted", "reject"], False),
                      ("Test", ["df", "test", "note"], True)])]
    return _wrap("".join(parts))


def calibration_plot(cmp: ProbabilityComparison) -> Any:
    """Reliability diagram: observed share of positives against the mean predicted probability."""
    colours = model_colours(cmp)
    fig, ax = _subplots(figsize=(6.4, 6.0), layout="constrained")
    ax.plot([0, 1], [0, 1], color=REFERENCE, lw=.9, ls="--", label="perfect calibration")
    for i, m in enumerate(by_rank(cmp)):
        part = cmp.calibration[cmp.calibration["model"] == m]
        ax.plot(part["mean_predicted"], part["observed"], color=colours[m][0],
                ls=_STYLES[i % len(_STYLES)], lw=1.2, alpha=.8, label=_mpl(f"{i + 1}. {m}", 50))
        # a point's area grows with its bin's observations: a bin of one is a small dot
        share = part["n"].to_numpy(float) / max(float(part["n"].sum()), 1.0)
        ax.scatter(part["mean_predicted"], part["observed"], s=8 + 400 * share,
                   color=colours[m][0], alpha=.8, zorder=3)
    ax.set_xlabel(f"mean predicted P({_mpl(cmp.positive)}) in the bin")
    ax.set_ylabel(f"observed share of {_mpl(cmp.positive)}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.grid(alpha=.4)
    ax.legend(loc="upper left", fontsize=8)
    return fig


def section_calibration(cmp: ProbabilityComparison) -> Any:
    """Render the reliability diagram and its table (ten bins of width 0.1)."""
    if cmp.multiclass or not cmp.has_losses or not len(cmp.calibration):
        return _wrap("")
    intro = ("<p>Observations binned by predicted probability (ten bins of width 0.1, empty bins "
             "left out): a calibrated model's points lie on the diagonal. Points above it: the "
             "model under-predicts the positive class in that range; below: over-predicts. A "
             "point's area grows with the observations in its bin: a bin of a few observations "
             "says little.</p>")
    return _wrap(_h2("pp-calibration") + intro
                 + _figure_html(calibration_plot(cmp), "Reliability diagram of every model")
                 + _legend_html(_legend(model_colours(cmp)))
                 + table_html(cmp.calibration, "calibration", max_rows=60))


def section_labels(cmp: ProbabilityComparison) -> Any:
    """Say where the labels of the accuracy and precision sections come from."""
    if cmp.label_source == "threshold":
        if cmp.multiclass:
            how = "each model's label is its most probable class"
        else:
            negative = [c for c in cmp.classes if c != cmp.positive]
            how = (f"each model's label is {cmp.positive} where its probability of "
                   f"{cmp.positive} is at least {cmp.threshold:g} (--threshold), else "
                   f"{negative[0] if negative else 'the other class'}")
    else:
        how = f"the labels are the file's own (column {cmp.label_source})"
    return _wrap(_h2("pp-labels") + f"<p>The sections below compare the models' predicted "
                 f"labels as the predictions report does: {esc(how)}.</p>")


def section_details(cmp: ProbabilityComparison, versions: dict | None = None) -> Any:
    """Render the data and settings the comparison used, for the record."""
    rows = {"source": cmp.source, "engine": cmp.engine, "scores per model": f"{cmp.n_rows:,}",
            "design": cmp.design["description"], "metric": cmp.metric, "alpha": cmp.alpha,
            "positive class": cmp.positive if cmp.positive is not None else "(multiclass)",
            "threshold": cmp.threshold, "log loss epsilon": f"{cmp.epsilon:g}",
            "reference": cmp.reference or "(every pair)",
            "labels": cmp.label_source}
    return _wrap(_h2("pp-details") + settings_table(rows, versions=versions))
