"""The data-set report as HTML: display only, from a :class:`DatasetComparison`.

Every function formats what :func:`precmp_lib.compare_datasets` computed; none runs a test.
User strings (model and data-set names, file names) go through
:func:`~precmp_lib.report.html.esc`; plots are PNG data URIs with escaped alt text, and each
table carries its own CSV. :func:`write_outputs` writes what the command writes beside the
page: the critical-difference diagram as SVG and PDF, and the LaTeX table (``--latex``).
"""

from __future__ import annotations

import argparse
import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..compare.datasets import CD_MODELS, DatasetComparison
from ..compare.prediction_conclusions import format_pvalue
from .dataset_figures import CD_INK, cd_figsize, draw_cd_diagram
from .html import CSS, Html, bidi_note, esc, settings_table, table_html
from .prediction_figures import _mpl
from .prediction_sections import figure_html

__all__ = ["DATASET_SECTIONS", "cd_figure", "dataset_header", "dataset_sections", "dataset_toc",
           "latex_table", "write_outputs"]

DATASET_SECTIONS = [
    ("pd-conclusion", "Conclusion"),
    ("pd-omnibus", "Do the models differ at all?"),
    ("pd-pairs", "Pairs of models: Wilcoxon signed-rank with Holm"),
    ("pd-reference", "Against the reference"),
    ("pd-ranks", "Mean ranks and the critical-difference diagram (Nemenyi)"),
    ("pd-effects", "Effect sizes"),
    ("pd-datasets", "Data set by data set"),
    ("pd-bayes", "Bayesian signed-rank test"),
    ("pd-folds", "Within each data set: its own tests"),
    ("pd-hierarchical", "Across data sets from the folds: the hierarchical Bayesian model"),
    ("pd-assumptions", "Assumptions and notes"),
    ("pd-methods", "Methods paragraph"),
    ("pd-details", "Data and settings"),
]
# Cliff's delta: negligible, small, medium, large (Romano et al. 2006)
_CLIFF_BOUNDS = ((0.147, "negligible"), (0.33, "small"), (0.474, "medium"), (math.inf, "large"))


def _wrap(body: str) -> Html:
    return Html(f'<div class="pcr">{body}</div>')


def _h2(key: str) -> str:
    return f'<h2 id="{key}">{esc(dict(DATASET_SECTIONS)[key])}</h2>'


def _keys(cmp: DatasetComparison) -> list[tuple[str, str]]:
    """Return the sections this comparison has (no reference, no folds: those are left out)."""
    skip = set()
    if cmp.reference is None:
        skip.add("pd-reference")
    if cmp.fold_tests.empty:
        skip.add("pd-folds")
    if "bayes_a_better" not in cmp.pairs:
        skip.add("pd-bayes")
    if cmp.hierarchical.empty:
        skip.add("pd-hierarchical")
    return [(k, t) for k, t in DATASET_SECTIONS if k not in skip]


def dataset_header(cmp: DatasetComparison, source_name: str = "") -> Html:
    """Render the answer (the comparison's first sentence), then what was compared.

    Parameters
    ----------
    cmp : DatasetComparison
    source_name : str
        How the page names the source.

    Returns
    -------
    Html
    """
    name = source_name or cmp.source or "the results"
    models = ", ".join(esc(m) for m in cmp.models[:12]) + (
        f" and {len(cmp.models) - 12} more" if len(cmp.models) > 12 else "")
    direction = "lower is better" if cmp.lower_is_better else "higher is better"
    folds = ", scores per fold (averaged within each data set)" if cmp.design.get("folds") else ""
    answer = f'<p class="rec">{esc(cmp.conclusions[0])}</p>' if cmp.conclusions else ""
    return _wrap(CSS + answer + f"<p class='lead'>Results across data sets from <strong>"
                 f"{esc(name)}</strong>: {len(cmp.models)} models ({models}) on "
                 f"{len(cmp.datasets)} data sets, {direction}{folds}.</p>"
                 + bidi_note([name, *cmp.models, *cmp.datasets]))


def dataset_toc(cmp: DatasetComparison) -> Html:
    """Render the table of contents.

    Parameters
    ----------
    cmp : DatasetComparison

    Returns
    -------
    Html
    """
    links = "".join(f'<li><a href="#{k}">{esc(t)}</a></li>' for k, t in _keys(cmp))
    return _wrap(f'<nav class="toc"><strong>Contents</strong><ol>{links}</ol></nav>')


def _p(p: float) -> str:
    text = format_pvalue(p)
    return text if text.startswith("<") else f"= {text}"


def _omnibus_line(cmp: DatasetComparison) -> str:
    row = cmp.omnibus.iloc[-1] if len(cmp.models) > 2 else cmp.omnibus.iloc[0]
    verdict = "the models do not all perform alike" if row["pvalue"] <= cmp.alpha else \
        "the data do not show that the models differ overall"
    return (f"{row['test']}: p {_p(float(row['pvalue']))}; at α = {cmp.alpha:g} {verdict}.")


def _conclusion(cmp: DatasetComparison) -> str:
    lines = list(cmp.conclusions)[1:]  # the first, the answer, opens the page (the header)
    groups = cmp.summary[["model", "group"]]
    letters = "; ".join(f"{m} {g}" for m, g in zip(groups["model"], groups["group"]))
    more = [_omnibus_line(cmp), f"Groups (models sharing a letter are not shown to differ): "
                                f"{letters}.", *lines]
    if cmp.dropped:
        more.append(f"{len(cmp.dropped)} data sets were left out because a model had no score "
                    "on them (--common-datasets).")
    return (_h2("pd-conclusion")
            + "<ul class='points'>" + "".join(f"<li>{esc(x)}</li>" for x in more) + "</ul>")


def _omnibus(cmp: DatasetComparison) -> str:
    if len(cmp.models) == 2:
        intro = ("<p>With two models the omnibus test is the pair's own: the Wilcoxon "
                 "signed-rank test on the per-data-set differences, and the sign test on the "
                 "wins and losses.</p>")
    else:
        w = cmp.omnibus["kendall_w"].iloc[0]
        intro = ("<p>Friedman's test ranks the models within each data set and asks whether "
                 "the mean ranks differ more than chance allows; Iman and Davenport's F is its "
                 "less conservative form (Demšar 2006). Kendall's W = "
                 f"{esc(f'{w:.3f}')} says how much the data sets agree on the order (0: not "
                 "at all, 1: the same order on every data set).</p>")
    table = cmp.omnibus.drop(columns=[c for c in ("kendall_w",) if c in cmp.omnibus])
    return _h2("pd-omnibus") + intro + table_html(table, "omnibus")


_PAIR_VIEWS = [
    ("", ["estimate", "ci_low", "ci_high", "pvalue_adjusted", "reject", "wins", "ties",
          "losses"], False),
    ("The tests' own numbers", ["statistic", "pvalue", "distribution", "sign_pvalue",
                                "rank_a", "rank_b", "nemenyi_pvalue", "nemenyi_reject"], True),
]


def _pairs(cmp: DatasetComparison) -> str:
    n_pairs = len(cmp.pairs)
    intro = (f"<p>Each pair is compared on its {len(cmp.datasets)} paired scores by the Wilcoxon "
             f"signed-rank test; the p-values are adjusted by Holm's method over the {n_pairs} "
             f"pairs and <em>reject</em> is the decision at α = {cmp.alpha:g}. This is the "
             "post-hoc recommended by Benavoli, Corani and Mangili (2016): a test of mean ranks "
             "(Nemenyi, below) gives a pair a p-value that depends on which other models are in "
             "the pool, while the Wilcoxon test of a pair reads only that pair's scores. The "
             "estimate is the Hodges–Lehmann median of score A − B with its distribution-free "
             f"{100 * (1 - cmp.alpha):g} % interval (unadjusted); wins, ties and losses count "
             "the data sets where A scores better, equal or worse.</p>")
    cols = ["model_a", "model_b", *[c for _, cs, _ in _PAIR_VIEWS for c in cs if c in cmp.pairs]]
    return _h2("pd-pairs") + intro + table_html(cmp.pairs[cols], "pairs",
                                                key=["model_a", "model_b"], views=_PAIR_VIEWS)


def _reference(cmp: DatasetComparison) -> str:
    if cmp.reference is None:
        return ""
    ref = cmp.reference_pairs
    intro = (f"<p>Every model against {esc(cmp.reference)}: the Wilcoxon signed-rank test with "
             f"Holm's adjustment over these {len(ref)} pairs only (more power than over every "
             "pair); rank_pvalue_adjusted is the mean-rank z test against the reference with "
             "Holm's adjustment (Demšar 2006), for comparison.</p>")
    cols = ["model_a", "model_b", "estimate", "ci_low", "ci_high", "pvalue",
            "pvalue_adjusted", "reject", "wins", "ties", "losses", "rank_pvalue_adjusted"]
    return _h2("pd-reference") + intro + table_html(ref[cols], "reference", key=["model_a"])


def cd_figure(cmp: DatasetComparison) -> Any:
    """Draw the critical-difference diagram of a comparison (Nemenyi's CD and groups).

    Parameters
    ----------
    cmp : DatasetComparison
        With two models the diagram shows their mean ranks, joined when the Wilcoxon test
        does not separate them (no CD: Nemenyi needs three models).

    Returns
    -------
    matplotlib.figure.Figure
        Outside pyplot (no global state is touched).
    """
    from matplotlib.figure import Figure

    ranks = pd.Series(cmp.summary["mean_rank"].to_numpy(),
                      index=[_mpl(m, 30) for m in cmp.summary["model"]])
    short = dict(zip(cmp.summary["model"], ranks.index))
    which = "nemenyi" if "nemenyi" in cmp.groups else "wilcoxon_holm"
    groups = [[short[m] for m in g] for g in cmp.groups.get(which, [])]
    cd = cmp.critical_difference
    fig = Figure(figsize=cd_figsize(len(ranks), len(groups)), layout="constrained")
    label = f"CD = {cd:.3f} (Nemenyi, α = {cmp.alpha:g})" if cd is not None else ""
    draw_cd_diagram(ranks, groups, cd, label, ax=fig.subplots(), clique_ink=CD_INK)
    return fig


def _ranks(cmp: DatasetComparison) -> str:
    out = [_h2("pd-ranks")]
    k = len(cmp.models)
    if k > 2 and cmp.critical_difference is not None:
        out.append("<p>The classic view (Demšar 2006): mean ranks (1 = best) on the axis; "
                   "models joined by a thick bar are not shown to differ by Nemenyi's test, "
                   "whose critical difference (CD) of mean ranks is drawn above. Nemenyi's "
                   "p-values depend on every model in the pool: the Wilcoxon–Holm decisions "
                   "above are the ones this page's conclusion reads.</p>")
        if k <= CD_MODELS:
            groups = "; ".join(", ".join(g) for g in cmp.groups.get("nemenyi", [])) or "none"
            out.append(figure_html(cd_figure(cmp), "Critical-difference diagram; groups not "
                                   f"shown to differ by Nemenyi: {groups}"))
        else:
            out.append(f"<p>With {k} models the diagram would not be readable: the table below "
                       "ranks them, and the group letters say the same.</p>")
    out.append(table_html(cmp.summary, "ranks"))
    return "".join(out)


def _magnitude(delta: float) -> str:
    """Name the size of a Cliff's delta (Romano et al. 2006).

    >>> _magnitude(0.1), _magnitude(-0.4), _magnitude(0.9)
    ('negligible', 'medium', 'large')
    """
    return next(name for bound, name in _CLIFF_BOUNDS if abs(delta) < bound)


def _effects(cmp: DatasetComparison) -> str:
    p = cmp.pairs[["model_a", "model_b", "estimate", "ci_low", "ci_high", "prob_superiority",
                   "cliffs_delta"]].copy()
    p["cliffs_magnitude"] = p["cliffs_delta"].map(_magnitude)
    intro = ("<p>How large each difference is, whatever its p-value: the Hodges–Lehmann median "
             "of score A − B with its interval; prob_superiority, the share of data sets on "
             "which A scores better (ties counted half); Cliff's delta of A's and B's scores "
             "(P(A > B) − P(A < B) over every pair of scores, in the direction of the scores), "
             "named negligible, small, medium or large at 0.147, 0.33 and 0.474 (Romano et al. "
             "2006).</p>")
    return _h2("pd-effects") + intro + table_html(p, "effects", key=["model_a", "model_b"])


def _datasets(cmp: DatasetComparison) -> str:
    wide = cmp.per_dataset.pivot(index="dataset", columns="model", values="score")
    rank = cmp.per_dataset.pivot(index="dataset", columns="model", values="rank")
    order = list(cmp.summary["model"])
    wide, rank = wide.loc[cmp.datasets, order], rank.loc[cmp.datasets, order]
    table = wide.copy()
    r = rank.to_numpy()
    tops = r == r.min(axis=1, keepdims=True)
    table.insert(0, "first", [", ".join(m for m, top in zip(order, row) if top) for row in tops])
    table = table.reset_index()
    intro = ("<p>Each data set's scores, the models in the order of their mean rank; first "
             "names the model (or the tied models) ranked first on that data set. The ranks "
             "table beside it holds every model's rank on every data set.</p>")
    return (_h2("pd-datasets") + intro + table_html(table, "scores", max_rows=60)
            + "<details class='more'><summary>Ranks on each data set</summary>"
            + table_html(rank.reset_index(), "ranks_per_dataset", max_rows=60) + "</details>")


def _bayes(cmp: DatasetComparison) -> str:
    if "bayes_a_better" not in cmp.pairs:
        return ""
    p = cmp.pairs[["model_a", "model_b", "bayes_a_better", "bayes_rope", "bayes_b_better",
                   "bayes_decision"]]
    order = list(cmp.summary["model"])
    matrix = pd.DataFrame("", index=order, columns=order)
    for r in p.itertuples():
        matrix.loc[r.model_a, r.model_b] = f"{r.bayes_a_better:.2f} / {r.bayes_rope:.2f}"
        matrix.loc[r.model_b, r.model_a] = f"{r.bayes_b_better:.2f} / {r.bayes_rope:.2f}"
    intro = (f"<p>The Bayesian signed-rank test (Benavoli et al. 2017) of every pair, with a "
             f"region of practical equivalence (ROPE) of ±{cmp.rope:g} in score units "
             "(--rope): the posterior probabilities that A is better by more than the ROPE, that "
             "the two are practically equivalent, and that B is better. A decision is made "
             "when one of them reaches 0.95. The matrix reads P(row better) / P(equivalent); "
             f"{cmp.settings.get('bayes_samples', 0):,} Monte Carlo draws per pair.</p>")
    return (_h2("pd-bayes") + intro + table_html(matrix.reset_index(names="model"), "bayes_matrix")
            + table_html(p, "bayes", key=["model_a", "model_b"]))


def _folds(cmp: DatasetComparison) -> str:
    if cmp.fold_tests.empty:
        return ""
    if "test" in cmp.fold_tests:  # from predictions per data set
        intro = ("<p>Within each data set, each pair compared on that data set's own "
                 "predictions by the predictions report's test (McNemar's test on a test set, "
                 "the corrected resampled t under cross-validation; the test column names it), "
                 "Holm-adjusted over the pairs of the data set; estimate is accuracy A − B. "
                 "The conclusion sets these beside the test across data sets.</p>")
    else:
        intro = ("<p>Within each data set, the per-fold scores of each pair by the corrected "
                 "resampled t-test (Nadeau and Bengio 2003; n_test/n_train = 1/(K − 1) for K "
                 "folds), Holm-adjusted over the pairs of the data set. The folds of one data "
                 "set share training data, so the plain paired t would be too liberal.</p>")
    return _h2("pd-folds") + intro + table_html(cmp.fold_tests, "fold_tests", max_rows=100)


def _hierarchical(cmp: DatasetComparison) -> str:
    if cmp.hierarchical.empty:
        return ""
    st = cmp.settings.get("hierarchical") or {}
    h = cmp.hierarchical
    worst_rhat, least_ess = float(h["rhat_max"].max()), float(h["ess_min"].min())
    warn = ""
    if worst_rhat > 1.01 or int(st.get("divergences", 0)) > 0:
        warn = (" <strong>The diagnostics call for caution: an R-hat above 1.01 or divergent "
                "transitions mean the sampler may not have explored the posterior.</strong>")
    intro = (
        "<p>The Bayesian hierarchical model of Corani, Benavoli, Demšar, Mangili and Zaffalon "
        "(2017, <em>Statistical comparison of classifiers through Bayesian hierarchical "
        "modelling</em>, Machine Learning 106) pools the per-fold differences of every data "
        "set: each data set's differences are normal with their own mean δ<sub>i</sub> and "
        f"variance, two folds correlated by ρ = 1/{st.get('folds', '?')} (the test fraction, as "
        "Nadeau and Bengio), and the δ<sub>i</sub> come from a Student t around δ<sub>0</sub>. "
        "The probabilities are about the <em>next</em> data set: that A is better by more than "
        f"the ROPE (±{cmp.rope:g}), that the two are practically equivalent, that B is better "
        "(the share of posterior draws in which each is the most probable, as baycomp reports "
        "them; the predictive columns are their posterior means). δ<sub>0</sub> is A's mean "
        "advantage across data sets, score units, with its 95% interval. A decision is made "
        f"when one probability reaches {1 - cmp.alpha:g}.</p>"
        f"<p class='meta'>Sampler: {esc(st.get('sampler', ''))}, {st.get('chains')} chains × "
        f"{st.get('samples')} draws after {st.get('warmup')} warm-up iterations, "
        f"{st.get('scores_per_dataset')} scores per data set; largest R-hat {worst_rhat:.3f}, "
        f"smallest effective sample size {least_ess:,.0f}, {st.get('divergences', 0)} divergent "
        f"transitions.{warn}</p>")
    return _h2("pd-hierarchical") + intro + table_html(h, "hierarchical",
                                                        key=["model_a", "model_b"])


def _assumptions(cmp: DatasetComparison) -> str:
    return _h2("pd-assumptions") + "<ul class='points'>" + "".join(
        f"<li>{esc(n)}</li>" for n in cmp.notes) + "</ul>"


def _methods(cmp: DatasetComparison) -> str:
    return (_h2("pd-methods") + "<p class='meta'>To paste into a paper's methods section:</p>"
            f"<blockquote>{esc(cmp.methods)}</blockquote>")


def _details(cmp: DatasetComparison, versions: dict | None) -> str:
    rows = {"source": cmp.source, "engine": cmp.engine, "rows read": f"{cmp.n_rows:,}",
            "layout": cmp.settings.get("layout"), "data sets": len(cmp.datasets),
            "models": len(cmp.models), "alpha": cmp.alpha,
            "direction": "lower is better" if cmp.lower_is_better else "higher is better",
            "reference": cmp.reference or "(none)", "ROPE": cmp.rope}
    return _h2("pd-details") + settings_table(rows, cmp.settings.get("notes") or [], versions)


def dataset_sections(cmp: DatasetComparison, versions: dict | None = None) -> Html:
    """Render every section of the data-set report, in order.

    Parameters
    ----------
    cmp : DatasetComparison
    versions : dict, optional
        Extra rows for the settings table (library versions).

    Returns
    -------
    Html

    Examples
    --------
    >>> from precmp_lib import compare_datasets
    >>> wide = pd.DataFrame({"dataset": list("abcdef"), "<rf>": [.9, .8, .85, .7, .95, .6],
    ...                      "lr": [.85, .8, .8, .65, .9, .55], "nb": [.7, .6, .8, .6, .8, .5]})
    >>> page = dataset_sections(compare_datasets(wide))
    >>> "Pairs of models: Wilcoxon signed-rank with Holm" in page, "&lt;rf&gt;" in page
    (True, True)
    >>> "<rf>" in page
    False
    """
    body = [_conclusion(cmp), _omnibus(cmp), _pairs(cmp), _reference(cmp), _ranks(cmp),
            _effects(cmp), _datasets(cmp), _bayes(cmp), _folds(cmp),
            _hierarchical(cmp), _assumptions(cmp),
            _methods(cmp), _details(cmp, versions)]
    return _wrap("".join(body))


# --------------------------------------------------------------------------------------------
# what the command writes beside the page
# --------------------------------------------------------------------------------------------

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def _tex(text: Any) -> str:
    r"""Escape text for LaTeX: its ten special characters, control characters dropped.

    >>> print(_tex("rf_100 & 5%"))
    rf\_100 \& 5\%
    """
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text) if c.isprintable())


def latex_table(cmp: DatasetComparison, digits: int = 3) -> str:
    r"""Write the scores as a booktabs table: a row per data set, each score with its rank.

    The best score of each data set is bold; the last rows give each model's mean rank and its
    post-hoc group letters (Wilcoxon signed-rank tests with Holm's adjustment: models sharing a
    letter are not shown to differ). Needs ``\usepackage{booktabs}``.

    Parameters
    ----------
    cmp : DatasetComparison
    digits : int
        Decimals of the scores.

    Returns
    -------
    str

    Examples
    --------
    >>> from precmp_lib import compare_datasets
    >>> wide = pd.DataFrame({"dataset": ["iris", "wine", "digits_2"], "rf": [.95, .97, .97],
    ...                      "nb": [.95, .96, .81]})
    >>> text = latex_table(compare_datasets(wide))
    >>> print(text.splitlines()[5])
    iris & \textbf{0.950} (1.5) & \textbf{0.950} (1.5) \\
    >>> print(text.splitlines()[7])
    digits\_2 & \textbf{0.970} (1) & 0.810 (2) \\

    The two models tie on iris and share ranks 1 and 2.
    """
    order = list(cmp.summary["model"])
    score = cmp.per_dataset.pivot(index="dataset", columns="model", values="score")
    rank = cmp.per_dataset.pivot(index="dataset", columns="model", values="rank")
    lines = [r"\begin{tabular}{l" + "r" * len(order) + "}", r"\toprule",
             "Data set & " + " & ".join(_tex(m) for m in order) + r" \\", r"\midrule"]
    s = score.loc[cmp.datasets, order].to_numpy()
    r = rank.loc[cmp.datasets, order].to_numpy()
    tops = r == r.min(axis=1, keepdims=True)
    for d, values, ranks, top in zip(cmp.datasets, s, r, tops):
        cells = [(rf"\textbf{{{v:.{digits}f}}}" if t else f"{v:.{digits}f}") + f" ({q:g})"
                 for v, q, t in zip(values, ranks, top)]
        lines.append(_tex(d) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\midrule",
              "Mean rank & " + " & ".join(f"{r:.2f}" for r in cmp.summary["mean_rank"]) + r" \\",
              "Group & " + " & ".join(_tex(g) for g in cmp.summary["group"]) + r" \\",
              r"\bottomrule", r"\end{tabular}"]
    direction = "lower is better" if cmp.lower_is_better else "higher is better"
    caption = (f"% Scores ({direction}) with the rank on each data set in parentheses; groups: "
               f"Wilcoxon signed-rank tests, Holm-adjusted, alpha = {cmp.alpha:g}.")
    return caption + "\n" + "\n".join(lines) + "\n"


def write_outputs(cmp: DatasetComparison, options: argparse.Namespace,
                  paths: Mapping[Path, Path]) -> None:
    """Write the route's files beside the page: the CD diagram (SVG, PDF) and ``--latex``.

    Parameters
    ----------
    cmp : DatasetComparison
    options : argparse.Namespace
        The command's options (``out``, ``latex``).
    paths : mapping of Path to Path
        Each output to the temporary file to write (the command moves them into place with
        the page).
    """
    from ..compare.dataset_route import cd_paths

    fig = cd_figure(cmp)
    for out, kind in zip(cd_paths(options.out), ("svg", "pdf")):
        buf = io.BytesIO()  # no date in the files: the same comparison gives the same bytes
        fig.savefig(buf, format=kind,
                    metadata={"Date": None} if kind == "svg" else {"CreationDate": None})
        paths[out].write_bytes(buf.getvalue())
    if options.latex:
        paths[Path(options.latex)].write_text(latex_table(cmp), encoding="utf-8")
