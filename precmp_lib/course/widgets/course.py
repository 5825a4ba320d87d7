"""Widgets for the course's own pages.

Replicability, the paper's data sets, the course map and the power of a comparison on
evaluation items.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .designs import _html_table
from .one_test_set import _png

__all__ = [
    "course_map_explorer",
    "course_map_state",
    "item_power_curve",
    "item_power_explorer",
    "item_power_figure",
    "item_power_state",
    "paper_dataset_explorer",
    "paper_dataset_plot",
    "paper_dataset_state",
    "replicability_size_explorer",
    "replicability_size_plot",
    "replicability_size_state",
]


def replicability_size_state(cells: Any, n_test: Any, *, alpha: float = 0.05, n_draws: int = 400,
                    random_state: int = 0) -> pd.DataFrame:
    """Rejection rate and replicability of the GS test on new test sets of a given size.

    The two fitted classifiers stay fixed; only the test set is drawn anew: ``n_draws`` test
    sets of ``n_test`` observations each, drawn from the observed joint table of truth and
    both predictions (a multinomial draw of the 2 x 2 x 2 cells: the bootstrap of the test set).

    Parameters
    ----------
    cells : array-like of shape (2, 2, 2)
        Observed counts ``n[truly the class][A predicts it][B predicts it]``.
    n_test : int or sequence of int
        Test-set sizes.
    alpha, n_draws, random_state
        Level of the decisions, test sets per size, seed.

    Returns
    -------
    DataFrame indexed by ``n_test`` with ``n_valid`` (drawn test sets on which the test
    exists: both classifiers predict the class at least once), ``rejection_rate``,
    ``replicability`` (Bouckaert's R(e) of their decisions) and ``replicability_p``
    (R(p) = 1 − 2 var(p)).

    Examples
    --------
    >>> cells = [[[103, 45], [6, 11]], [[63, 64], [1, 53]]]  # diabetic retinopathy, class 1
    >>> replicability_size_state(cells, [50, 400])[["rejection_rate", "replicability"]].round(2)
            rejection_rate  replicability
    n_test
    50                0.16           0.73
    400               0.50           0.50

    On 50 test observations the test seldom rejects and so mostly agrees with itself; at 400
    it rejects half of the time and whether a new test set rejects is a coin flip.
    """
    import numpy as np

    from ...stats.precision_cells import gs_from_cells
    from ...stats.replicability import replicability, replicability_pvalues

    counts = np.asarray(cells, dtype=float).reshape(8)
    if counts.sum() <= 0:
        raise ValueError("cells must hold at least one observation")
    sizes = np.atleast_1d(np.asarray(n_test, dtype=int))
    rng = np.random.default_rng(random_state)
    rows = {}
    for m in sizes:
        draws = rng.multinomial(int(m), counts / counts.sum(), size=n_draws).reshape(-1, 2, 2, 2)
        p = np.asarray(gs_from_cells(draws).pvalue, dtype=float)
        p = p[~np.isnan(p)]
        rows[int(m)] = {"n_valid": int(p.size),
                        "rejection_rate": float(np.mean(p <= alpha)) if p.size else np.nan,
                        "replicability": replicability(p > alpha) if p.size > 1 else np.nan,
                        "replicability_p": replicability_pvalues(p) if p.size > 1 else np.nan}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("n_test")


def replicability_size_explorer(cells: Any, *, n_test: int = 100, max_test: int = 1000,
                       alpha: float = 0.05, n_draws: int = 400) -> Any:
    """Move the test-set size: rejection rate and R(e) of the GS test for fixed classifiers.

    Parameters
    ----------
    cells : array-like of shape (2, 2, 2)
        Observed counts, as for :func:`replicability_size_state`.
    n_test : int
        Starting value of the slider.
    max_test : int
        End of the slider and of the curve.
    alpha, n_draws
        As :func:`replicability_size_state`.

    Returns
    -------
    ipywidgets.VBox
        The slider above the :func:`replicability_size_state` table and the
        :func:`replicability_size_plot` image.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    grid = sorted({int(v) for v in range(20, max_test + 1, max(1, (max_test - 20) // 24))})
    curve = replicability_size_state(cells, grid, alpha=alpha, n_draws=n_draws)
    slider = w.IntSlider(value=n_test, min=20, max=max_test, step=10, description="test size",
                         continuous_update=False)
    table = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = replicability_size_state(cells, slider.value, alpha=alpha, n_draws=n_draws)
        table.value = _html_table(state, digits=3)
        fig, ax = plt.subplots(figsize=(5.4, 3.0), layout="constrained")
        replicability_size_plot(curve, state, ax=ax)
        image.value = _png(fig)

    slider.observe(update, names="value")
    update()
    return w.VBox([slider, table, image])


def replicability_size_plot(curve: pd.DataFrame, state: pd.DataFrame | None = None, *, ax: Any = None) -> Any:
    """Plot the rejection rate and R(e) against the test-set size.

    Parameters
    ----------
    curve : DataFrame
        From :func:`replicability_size_state` over a grid of sizes.
    state : DataFrame, optional
        From :func:`replicability_size_state` at the current size, marked with points.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        Two lines (rejection rate, R(e)) and, with ``state``, their points at its size.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.4, 3.0), layout="constrained")
    ax.plot(curve.index, curve["rejection_rate"], label="rejection rate", color="C0")
    ax.plot(curve.index, curve["replicability"], label="R(e)", color="C1")
    if state is not None:
        for col, color in (("rejection_rate", "C0"), ("replicability", "C1")):
            ax.plot(state.index, state[col], "o", color=color, markersize=9)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("test-set size")
    ax.legend(frameon=False)
    return ax


# ---- 11: the paper's datasets, printed against ours ----------------------------------------


def paper_dataset_state(spread: pd.DataFrame, dataset: str, *, table: int = 5) -> pd.DataFrame:
    """One dataset's printed numbers of one table beside the range of our seeded runs.

    Parameters
    ----------
    spread : DataFrame
        From :func:`precmp_lib.course.paper.seed_spread`.
    dataset : str
        Registry name of one of the paper's datasets.
    table : int
        The paper's table (5 by default: precisions and p-values).

    Returns
    -------
    DataFrame with ``class``, ``quantity``, ``printed``, ``low``, ``high`` and ``verdict``.

    Examples
    --------
    >>> spread = pd.DataFrame({"table": 5, "dataset": ["wilt", "magic"], "class": ["n", "g"],
    ...     "quantity": "precision_rf", "printed": ["0.74", "0.88"], "low": [0.73, 0.87],
    ...     "high": [0.75, 0.88], "verdict": "inside range"})
    >>> paper_dataset_state(spread, "wilt")[["class", "printed", "verdict"]]
      class printed       verdict
    0     n    0.74  inside range
    """
    rows = spread[(spread["table"] == table) & (spread["dataset"] == dataset)]
    if rows.empty:
        raise ValueError(f"no printed numbers of Table {table} for dataset {dataset!r}")
    return rows[["class", "quantity", "printed", "low", "high", "verdict"]].reset_index(drop=True)


def paper_dataset_plot(state: pd.DataFrame, *, ax: Any = None) -> Any:
    """Plot printed precisions (dots) against the range of our runs (bars), a row per class.

    Parameters
    ----------
    state : DataFrame
        From :func:`paper_dataset_state`; only its precision rows are drawn.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One bar with end ticks per precision and one dot for the printed value.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    prec = state[state["quantity"].str.startswith("precision")]
    if ax is None:
        _, ax = plt.subplots(figsize=(5.4, 0.5 + 0.35 * len(prec)), layout="constrained")
    y = np.arange(len(prec))
    ax.hlines(y, prec["low"], prec["high"], color="0.6", linewidth=6, label="our runs (range)")
    # a deterministic number has a range of width 0: end ticks keep it visible
    ax.plot(prec["low"], y, "|", color="0.3", markersize=14)
    ax.plot(prec["high"], y, "|", color="0.3", markersize=14)
    ax.plot(pd.to_numeric(prec["printed"], errors="coerce"), y, "o", color="C3",
            label="printed", zorder=3)
    ax.set_yticks(y, [f"{c}  {q.removeprefix('precision_')}" for c, q in
                      zip(prec["class"], prec["quantity"])])
    ax.set_xlabel("precision")
    ax.legend(frameon=False, fontsize="small", loc="lower left", bbox_to_anchor=(0, 1), ncols=2)
    return ax


def paper_dataset_explorer(spread: pd.DataFrame, *, dataset: str = "diabetic_retinopathy",
                           table: int = 5) -> Any:
    """Choose a dataset: the paper's printed numbers against the range of our seeded runs.

    Parameters
    ----------
    spread : DataFrame
        From :func:`precmp_lib.course.paper.seed_spread`.
    dataset : str
        Starting dataset.
    table : int
        The paper's table.

    Returns
    -------
    ipywidgets.VBox
        The dataset dropdown above the :func:`paper_dataset_state` table and the
        :func:`paper_dataset_plot` image.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(spread.loc[spread["table"] == table, "dataset"]))
    choice = w.Dropdown(options=names, value=dataset, description="dataset")
    out = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = paper_dataset_state(spread, choice.value, table=table)
        out.value = _html_table(state)
        fig, ax = plt.subplots(figsize=(5.4, 0.8 + 0.3 * len(state)), layout="constrained")
        paper_dataset_plot(state, ax=ax)
        image.value = _png(fig)

    choice.observe(update, names="value")
    update()
    return w.VBox([choice, out, image])


# ---- 00: the test chooser of the course map ---------------------------------------------------


COURSE_MAP_COMPARE = ("accuracy", "precision", "scores")
COURSE_MAP_DESIGNS = {  # the choice of the chooser -> the ``data`` column of the course map
    "one test set": "one test set",
    "resampling": "resampled scores",
    "several data sets": "many datasets",
    "evaluation items": "evaluation items",
}

# Each test named in a row of :func:`precmp_lib.course.maps.course_map_table` (its ``test`` column,
# split at "; ") -> the call that runs it, one line on why, and the notebook that shows it when it
# is not the row's own. The cases, tests and notebooks come from the table; only what the table
# does not hold is written here, and a test of the table missing here raises a KeyError.
_COURSE_MAP_CALLS: dict[str, tuple[str, str, str | None]] = {
    "McNemar (exact or mid-p)": (
        'pc.mcnemar(pc.mcnemar_table(y_true, pred_a, pred_b), method="exact")',
        "both classifiers judge the same items, so only the items exactly one of them gets "
        "right carry evidence", None),
    "Cochran's Q (or Looney's F), then pairwise McNemar with Holm": (
        "pc.cochrans_q(pc.stats.contingency.correctness_matrix(y_true, preds)); pc.pairwise_mcnemar(y_true, preds)",
        "one omnibus test over all classifiers first, then pairwise tests corrected for "
        "testing many pairs", None),
    "GS, weighted GS, GW and Wald per class": (
        "pc.compare_precision(y_true, pred_a, pred_b)",
        "the precision of a class rests only on the items each classifier assigns to it, and "
        "these tests allow for the overlap of the two sets of predictions", None),
    "relative precision": (
        "pc.rp_test(y_true, pred_a, pred_b, positive=cls)",
        "a ratio of the two precisions with a paired confidence interval says by how much, "
        "not only whether", "05_relative_precision"),
    "combined p-values over classes": (
        "pc.combined_precision_test(y_true, pred_a, pred_b)",
        "the per-class tests share the same predictions and so are dependent; the combination "
        "accounts for that and gives one p-value for 'any class differs'",
        "06_combining_pvalues"),
    "GEE logistic model: odds ratios against a reference classifier": (
        "pc.gee_precision(y_true, preds, reference=name)",
        "one model for all classifiers on the same items, clustered on the item, compares each "
        "with a reference", None),
    "Nadeau–Bengio corrected t (two- or one-sided)": (
        "pc.corrected_resampled_ttest(scores_a, scores_b, test_train_ratio=n_test / n_train)",
        "resampled training sets overlap, so the scores are correlated and the plain t-test's "
        "variance is too small", None),
    "5x2cv F": (
        "pc.ftest_5x2cv(scores_a, scores_b)",
        "five repetitions of two-fold cross-validation keep the overlap small enough for an "
        "F test with a controlled type-I error", None),
    "Bayesian correlated t with a ROPE": (
        "pc.bayes_correlated_ttest(scores_a, scores_b, rope=0.01, test_train_ratio=n_test / n_train)",
        "the posterior of the mean difference, with the same correction for overlap, tells "
        "practically equivalent apart from better", None),
    "corrected t for each pair, Holm-adjusted": (
        "pc.pairwise_corrected_ttest(scores, test_train_ratio=n_test / n_train)",
        "every pair needs the correction for overlapping training sets, and many pairs need a "
        "correction for multiple testing", None),
    "GEE on stacked cross-validated predictions": (
        "pc.gee_from_long(pc.cross_val_predictions(estimators, X, y, n_repeats=10))",
        "each item is predicted once per repetition; the GEE clusters on the item so that "
        "repeated predictions do not count as new evidence", None),
    "Wilcoxon signed-rank": (
        "pc.wilcoxon(scores_a, scores_b)",
        "the data sets are the sample; ranks of the differences need no common scale and no "
        "normality across data sets", None),
    "Bayesian sign and signed-rank tests with a ROPE": (
        "pc.bayes_signed_rank_test(scores_a, scores_b, rope=0.01)",
        "the probability that one classifier is practically better over data sets, not only a "
        "p-value", None),
    "clustered McNemar, Holm across pairs": (
        "pc.clustered_mcnemar(correct_a, correct_b, clusters); pc.adjust_pvalues(pvalues)",
        "both models answer the same items, and items that share a passage are not independent: "
        "the test takes its variance from the spread between passages", None),
    "cluster-robust paired difference": (
        "pc.paired_difference(scores_a, scores_b, clusters=clusters)",
        "the mean difference of the item scores with a standard error that allows for the "
        "items of one passage being alike", None),
    "cluster-robust paired difference, Holm across pairs": (
        "pc.paired_difference(scores_a, scores_b, clusters=clusters); pc.adjust_pvalues(pvalues)",
        "any item score (0/1 or a number) compared pair by pair on the same items, with a "
        "cluster-robust standard error and a correction for testing many pairs", None),
    "TOST equivalence": (
        "pc.equivalence_test(scores_a, scores_b, margin=0.02, clusters=clusters)",
        "'not significantly different' is not 'the same': two one-sided tests show that the "
        "difference is smaller than a margin", "14_planning_item_evaluations"),
    "power and items needed": (
        "pc.paired_sample_size(difference, sd, cluster_size=m, icc=rho); "
        "pc.mcnemar_sample_size(p_a_only, p_b_only)",
        "how many items (and passages) a comparison needs to detect the difference that matters, "
        "planned before the items are collected", "14_planning_item_evaluations"),
    "Friedman (Iman–Davenport), then Nemenyi or Holm against a control": (
        "pc.iman_davenport(scores); pc.nemenyi(scores) or pc.tests_against_control(scores)",
        "average ranks over data sets, an omnibus test first, then pairwise comparisons "
        "corrected for multiple testing", None),
}

_COURSE_MAP_STATE_COLUMNS = ["test", "call", "notebook", "why"]


# the map's row for equivalence and the size of the next benchmark on evaluation items
EVALUATION_PLANNING = "equivalence or the next benchmark"


def course_map_state(compare: str, design: str, n_models: int,
                     across_classes: bool = False) -> pd.DataFrame:
    """List the tests the course map recommends for one case, with the call and the notebook.

    The case is looked up in :func:`precmp_lib.course.maps.course_map_table`: ``design`` picks its
    ``data``, ``compare`` its ``metric`` and ``n_models`` its ``classifiers``. Every test named
    in the matching rows becomes one row of the result.

    Parameters
    ----------
    compare : {"accuracy", "precision", "scores"}
        What is compared: accuracy, the precision of each class, or any other score
        (F1, AUC, ...). Over several data sets any of them is one score per data set; under
        resampling a score per split is tested like accuracy (the resampling functions take a
        ``scoring``).
    design : {"one test set", "resampling", "several data sets", "evaluation items"}
        Predictions on one test set; resampling or cross-validation of one data set; one
        score per data set over several data sets; models scored on the same benchmark items
        (right/wrong or a number), possibly grouped in passages.
    n_models : int
        Number of classifiers compared: 2, or more than 2.
    across_classes : bool
        For ``compare="precision"``: whether one answer for all classes together is wanted
        (rather than one per class). Ignored for the other comparisons.

    Returns
    -------
    DataFrame
        One row per recommended test with ``test`` (as the course map names it), ``call``
        (the ``precmp_lib`` call, with ``pc`` for ``precmp_lib``), ``notebook`` (file stem) and
        ``why`` (one line). A case the map has no test for gives one row with an empty
        ``call`` and ``notebook`` whose ``why`` says what to do instead.

    Raises
    ------
    ValueError
        If ``compare``, ``design`` or ``n_models`` is not one of the choices above.

    Examples
    --------
    >>> course_map_state("accuracy", "one test set", 2)[["test", "notebook"]]
                           test            notebook
    0  McNemar (exact or mid-p)  01_mcnemar_cochran
    >>> course_map_state("precision", "one test set", 2, across_classes=True)["notebook"].tolist()
    ['06_combining_pvalues']
    """
    from ..maps import course_map_table

    if compare not in COURSE_MAP_COMPARE:
        raise ValueError(f"compare must be one of {list(COURSE_MAP_COMPARE)}; got {compare!r}")
    if design not in COURSE_MAP_DESIGNS:
        raise ValueError(f"design must be one of {list(COURSE_MAP_DESIGNS)}; got {design!r}")
    if isinstance(n_models, bool) or not isinstance(n_models, (int, np.integer)) or n_models < 2:
        raise ValueError(f"n_models must be an integer of at least 2; got {n_models!r}")

    data = COURSE_MAP_DESIGNS[design]
    if data == "evaluation items" and compare == "precision":
        return pd.DataFrame([{
            "test": "no test in the map", "call": "", "notebook": "",
            "why": "items scored right or wrong (or with a number) have no predicted class whose "
                   "precision could be compared; compare the accuracy or the item score"}],
            columns=_COURSE_MAP_STATE_COLUMNS)
    if data == "one test set" and compare == "scores":
        return pd.DataFrame([{
            "test": "no test in the map", "call": "", "notebook": "",
            "why": "one score per classifier on one test set is a sample of one; compare "
                   "accuracy or precision on the predictions, or resample to get one score "
                   "per split"}], columns=_COURSE_MAP_STATE_COLUMNS)
    # the rows of the map for this case: over several data sets the metric is "any score";
    # under resampling any per-split score is tested like accuracy
    metric = {"many datasets": "any score"}.get(
        data, "accuracy" if compare == "scores" else compare)
    metrics = {metric}
    if data == "evaluation items":  # the clustered tests, then equivalence and planning (14)
        metrics = {"any score" if compare == "scores" else compare, EVALUATION_PLANNING}
    table = course_map_table()
    wanted = {"two", "two or more"} if n_models == 2 else {"three or more", "two or more"}
    rows = table[(table["data"] == data) & table["metric"].isin(metrics)
                 & table["classifiers"].isin(wanted)]

    out = []
    for r in rows.itertuples(index=False):
        for test in str(r.test).split("; "):
            call, why, notebook = _COURSE_MAP_CALLS[test]
            out.append({"test": test, "call": call, "notebook": notebook or r.notebook,
                        "why": why})
    state = pd.DataFrame(out, columns=_COURSE_MAP_STATE_COLUMNS)
    if compare == "precision" and across_classes:
        combined = state["test"].str.contains("over classes")
        if combined.any():
            state = state[combined]
        else:
            state = state.assign(why=state["why"] + "; the map has no single test over "
                                 "classes here: test each class and adjust the p-values "
                                 "(pc.adjust_pvalues)")
    elif compare == "precision":
        state = state[~state["test"].str.contains("over classes")]
    return state.reset_index(drop=True)


def _course_map_html(state: pd.DataFrame) -> str:
    """Render the state as an HTML table whose notebooks link to ``<notebook>.ipynb``."""
    from html import escape

    def link(nb: str) -> str:
        return f'<a href="{escape(nb)}.ipynb">{escape(nb)}</a>' if nb else ""

    shown = state.assign(call=state["call"].map(lambda c: f"<code>{escape(c)}</code>" if c else ""),
                         notebook=state["notebook"].map(link),
                         test=state["test"].map(escape), why=state["why"].map(escape))
    return shown.to_html(index=False, escape=False, border=0)


def course_map_explorer(compare: str = "accuracy", design: str = "one test set",
                        n_models: int = 2, across_classes: bool = False) -> Any:
    """Choose a test: pick what you compare, the design and the number of classifiers.

    Parameters
    ----------
    compare, design, n_models, across_classes
        The starting choices, as in :func:`course_map_state`.

    Returns
    -------
    ipywidgets.VBox
        The controls (a Dropdown for the design, ToggleButtons for the rest) above an HTML
        widget holding :func:`course_map_state` with links to the notebooks; the HTML is
        replaced whenever a control changes (no ``Output`` capture, which can stall headless
        notebook runs). The across-classes control is disabled unless precision is compared.
    """
    import ipywidgets as w

    course_map_state(compare, design, n_models, across_classes)  # reject bad starting values
    what = w.ToggleButtons(options=[("accuracy", "accuracy"), ("per-class precision", "precision"),
                                    ("scores (F1, AUC, ...)", "scores")],
                           value=compare, description="compare")
    how = w.Dropdown(options=[("one test set", "one test set"),
                              ("resampling / cross-validation of one data set", "resampling"),
                              ("several data sets", "several data sets"),
                              ("models on the same benchmark items", "evaluation items")],
                     value=design, description="design")
    many = w.ToggleButtons(options=[("2", 2), ("more than 2", 3)],
                           value=2 if n_models == 2 else 3, description="models")
    classes = w.ToggleButtons(options=[("one per class", False), ("one across classes", True)],
                              value=bool(across_classes), description="answer")
    table = w.HTML()

    def update(*_: Any) -> None:
        classes.disabled = what.value != "precision"
        state = course_map_state(what.value, how.value, many.value, classes.value)
        table.value = _course_map_html(state)

    for control in (what, how, many, classes):
        control.observe(update, names="value")
    update()
    return w.VBox([what, how, many, classes, table])


# --------------------------------------------------------------------------------------------
# evaluation items: power and sample size of a clustered paired comparison
# --------------------------------------------------------------------------------------------


_ITEM_DESIGNS = ("independent items", "more clusters of the same size", "more items in the same clusters")


def item_power_state(n_items: int, n_clusters: int, icc: float, difference: float, *,
                     sd: float = 0.5, power: float = 0.8, alpha: float = 0.05) -> pd.DataFrame:
    """Power, minimum detectable difference and items needed for a paired comparison on items.

    Parameters
    ----------
    n_items : int
        Items both models answer.
    n_clusters : int
        Clusters (passages) the items fall in, of equal size ``n_items / n_clusters``.
    icc : float
        Intra-cluster correlation of the per-item differences, in [0, 1].
    difference : float
        The true difference of the mean scores, A minus B (> 0).
    sd : float
        Standard deviation of the per-item differences (about √(share of discordant items)
        for right/wrong scores).
    power, alpha : float
        The wanted power and the level of the two-sided test.

    Returns
    -------
    DataFrame indexed by ``design`` (``"independent items"``, ``"more clusters of the same
    size"``, ``"more items in the same clusters"``) with ``design_effect``, ``power`` (at
    ``n_items``), ``minimum_detectable_difference`` (at ``n_items``, for ``power``) and
    ``items_needed`` (whole items, rounded up, to reach ``power`` for ``difference``, growing
    the design the row names; ``inf`` when the fixed clusters cannot). The two clustered rows
    differ only in ``items_needed``.

    Examples
    --------
    >>> s = item_power_state(2000, 200, 0.1, 0.03)
    >>> s["power"].round(3).tolist()
    [0.765, 0.495, 0.495]
    >>> s["items_needed"].tolist()  # paired_sample_size gives 2180.2 and 4142.5 items
    [2181.0, 4143.0, inf]

    Ignoring the 200 passages promises 77 % power; with them it is one chance in two, and no
    number of questions on these 200 passages reaches 80 %.
    """
    from ...stats.power import minimum_detectable_difference, paired_power, paired_sample_size

    size = n_items / n_clusters
    common: dict[str, Any] = {"power": power, "alpha": alpha}
    test: dict[str, Any] = {"alpha": alpha}
    rows = {
        _ITEM_DESIGNS[0]: (1.0, paired_power(n_items, difference, sd, **test),
                           minimum_detectable_difference(n_items, sd, **common),
                           paired_sample_size(difference, sd, **common)),
    }
    deff = 1.0 + (size - 1.0) * icc
    clustered_power = paired_power(n_items, difference, sd, n_clusters=n_clusters, icc=icc, **test)
    mde = minimum_detectable_difference(n_items, sd, n_clusters=n_clusters, icc=icc, **common)
    rows[_ITEM_DESIGNS[1]] = (deff, clustered_power, mde, paired_sample_size(
        difference, sd, cluster_size=size, icc=icc, **common))
    rows[_ITEM_DESIGNS[2]] = (deff, clustered_power, mde, paired_sample_size(
        difference, sd, n_clusters=n_clusters, icc=icc, **common))
    state = pd.DataFrame.from_dict(
        rows, orient="index",
        columns=["design_effect", "power", "minimum_detectable_difference", "items_needed"],
    ).rename_axis("design")
    state["items_needed"] = np.ceil(state["items_needed"])  # a benchmark holds whole items
    return state


def item_power_curve(n_items: int, n_clusters: int, icc: float, difference: float, *,
                     sd: float = 0.5, alpha: float = 0.05, points: int = 50) -> pd.DataFrame:
    """Power against the number of items, for the three ways of growing a benchmark.

    Parameters
    ----------
    n_items, n_clusters, icc, difference, sd, alpha
        As :func:`item_power_state`; the curve runs from ``n_clusters`` to ten times
        ``n_items`` items.
    points : int
        Item counts on the curve (log-spaced).

    Returns
    -------
    DataFrame indexed by ``n_items`` with one column of power per design of
    :func:`item_power_state`: independent items; clusters of ``n_items / n_clusters`` items,
    more of them; the same ``n_clusters`` clusters with more items each.

    Examples
    --------
    >>> c = item_power_curve(2000, 200, 0.1, 0.03)
    >>> round(float(c["more items in the same clusters"].iloc[-1]), 3)
    0.729

    Twenty thousand questions on the same 200 passages still fall short of 80 % power.
    """
    from ...stats.power import paired_power

    grid = np.unique(np.geomspace(n_clusters, 10 * n_items, points).round())
    size = n_items / n_clusters
    deff = 1.0 + (size - 1.0) * icc
    out = {
        _ITEM_DESIGNS[0]: [paired_power(n, difference, sd, alpha=alpha) for n in grid],
        _ITEM_DESIGNS[1]: [paired_power(n, difference, sd, design_effect=deff, alpha=alpha)
                           for n in grid],
        _ITEM_DESIGNS[2]: [paired_power(n, difference, sd, n_clusters=n_clusters, icc=icc,
                                        alpha=alpha) for n in grid],
    }
    return pd.DataFrame(out, index=pd.Index(grid.astype(int), name="n_items"))


def item_power_figure(curve: pd.DataFrame, *, n_items: int | None = None, power: float = 0.8,
                      title: str | None = None) -> Any:
    """Plot :func:`item_power_curve`: power against items (log scale), one line per design.

    Parameters
    ----------
    curve : DataFrame
        From :func:`item_power_curve`.
    n_items : int, optional
        The benchmark's own number of items, marked with a dotted line.
    power : float
        The wanted power, drawn as a dashed line.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    from ...report.html import DARK_GREY

    styles = {_ITEM_DESIGNS[0]: ("#D55E00", ":"), _ITEM_DESIGNS[1]: ("#0072B2", "-"),
              _ITEM_DESIGNS[2]: ("#009E73", "--")}
    fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    for design in curve.columns:
        color, ls = styles[design]
        ax.plot(curve.index, curve[design], color=color, ls=ls, lw=1.8, label=design)
    ax.axhline(power, color=DARK_GREY, lw=1, ls="--")
    if n_items is not None:
        ax.axvline(n_items, color=DARK_GREY, lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("items both models answer")
    ax.set_ylabel("power of the paired test")
    if title:
        ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small", frameon=False, loc="center left")
    return fig


def item_power_explorer(n_items: int = 2000, n_clusters: int = 200, icc: float = 0.1,
                        difference: float = 0.03, *, sd: float = 0.5, power: float = 0.8,
                        alpha: float = 0.05) -> Any:
    """Sliders for items, clusters, intra-cluster correlation and difference: power and size.

    Parameters
    ----------
    n_items, n_clusters, icc, difference
        Starting values of the sliders.
    sd, power, alpha
        As :func:`item_power_state`.

    Returns
    -------
    ipywidgets.VBox
        Four sliders above an HTML table (:func:`item_power_state`) and the
        :func:`item_power_figure` image. Clusters above the items are read as one item per
        cluster.
    """
    import ipywidgets as w

    item_power_state(n_items, n_clusters, icc, difference, sd=sd, power=power, alpha=alpha)
    style = {"description_width": "initial"}
    s_items = w.IntSlider(value=n_items, min=100, max=20000, step=100, description="items",
                          continuous_update=False, style=style)
    s_clusters = w.IntSlider(value=n_clusters, min=2, max=5000, step=1, description="clusters",
                             continuous_update=False, style=style)
    s_icc = w.FloatSlider(value=icc, min=0.0, max=0.5, step=0.01, description="intra-cluster corr.",
                          continuous_update=False, style=style)
    s_diff = w.FloatSlider(value=difference, min=0.005, max=0.1, step=0.005,
                           description="difference", continuous_update=False, style=style,
                           readout_format=".3f")
    table = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        n, c = s_items.value, min(s_clusters.value, s_items.value)
        state = item_power_state(n, c, s_icc.value, s_diff.value, sd=sd, power=power, alpha=alpha)
        table.value = state.to_html(float_format=lambda v: f"{v:.4g}", border=0)
        curve = item_power_curve(n, c, s_icc.value, s_diff.value, sd=sd, alpha=alpha)
        image.value = _png(item_power_figure(curve, n_items=n, power=power,
                                             title=f"{c} clusters, ICC {s_icc.value:.2f}"))

    for s in (s_items, s_clusters, s_icc, s_diff):
        s.observe(update, names="value")
    update()
    return w.VBox([w.HBox([s_items, s_clusters]), w.HBox([s_icc, s_diff]), table, image])
