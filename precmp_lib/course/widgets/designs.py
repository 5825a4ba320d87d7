"""Widgets on designs.

Accuracy and the Bayesian ROPE, combining p-values, clustering of repeated cross-validation,
deep models' classes.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd

from .one_test_set import _png

__all__ = [
    "bayes_rope_explorer",
    "bayes_rope_figure",
    "bayes_rope_state",
    "clustering_curve_plot",
    "clustering_curves",
    "clustering_explorer",
    "clustering_state",
    "combination_explorer",
    "combination_state",
    "combination_state_plot",
    "deep_class_explorer",
    "deep_class_state",
    "proportions_type1_state",
]

# accuracy on one test set (difference of proportions) and Bayesian comparison (ROPE)
# --------------------------------------------------------------------------------------------



def proportions_type1_state(
    correlations: Any = (-0.2, 0.0, 0.2, 0.4, 0.6, 0.8),
    *,
    n: int = 200,
    accuracy: float = 0.8,
    n_sim: int = 4000,
    alpha: float = 0.05,
    random_state: Any = 0,
) -> pd.DataFrame:
    """Type-I error of the difference-of-proportions z test and McNemar's test on one test set.

    Two classifiers of equal accuracy ``accuracy`` label the same ``n`` items; the correlation
    of their correctness (phi) is ``correlation``. Each simulated test set is one draw of the
    McNemar table from the multinomial with cell probabilities ``p² + φ p q`` (both right),
    ``p q (1 − φ)`` (only A, and only B) and ``q² + φ p q`` (both wrong), ``q = 1 − p``; both
    tests are applied at level ``alpha``.

    Parameters
    ----------
    correlations : sequence of float
        Correlations phi of the two classifiers' correctness.
    n : int
        Test-set size.
    accuracy : float
        Accuracy of both classifiers, strictly between 0 and 1.
    n_sim : int
        Simulated test sets per correlation.
    alpha : float
        Level of both tests.
    random_state : int or Generator
        Seed of the simulation.

    Returns
    -------
    DataFrame indexed by ``correlation`` with ``proportions_z`` and ``mcnemar_exact`` (rejection
    rates) and ``mc_se`` (Monte Carlo standard error of a rate of ``alpha``).

    Notes
    -----
    The z statistic is ``(p_A − p_B) / sqrt(2 p̄ (1 − p̄) / n)`` with the pooled accuracy p̄
    (:func:`precmp_lib.proportions_test`), the exact McNemar p-value
    ``min(1, 2 P(X ≤ min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``. The z test treats the two
    accuracies as independent; on one shared test set they are not, so its type-I error is
    below α for positively correlated classifiers (and its power low) and above α for
    negatively correlated ones.

    Examples
    --------
    >>> s = proportions_type1_state([0.0, 0.8], n_sim=2000)
    >>> bool(s.loc[0.8, "proportions_z"] < 0.01 < s.loc[0.8, "mcnemar_exact"])
    True
    """
    from scipy import stats

    from ..._lib.checks import check_probability

    alpha = check_probability(alpha, "alpha")
    p = float(accuracy)
    if not 0 < p < 1:
        raise ValueError(f"accuracy must be strictly between 0 and 1; got {accuracy!r}")
    rng = np.random.default_rng(random_state)
    q = 1 - p
    rows = {}
    for phi in correlations:
        phi = float(phi)
        probs = np.array([p * p + phi * p * q, p * q * (1 - phi), p * q * (1 - phi), q * q + phi * p * q])
        if (probs < 0).any():
            raise ValueError(f"correlation {phi} is impossible at accuracy {p}")
        t = rng.multinomial(int(n), probs / probs.sum(), size=int(n_sim))
        pa, pb = (t[:, 0] + t[:, 1]) / n, (t[:, 0] + t[:, 2]) / n
        pooled = (pa + pb) / 2
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(pooled * (1 - pooled) > 0,
                         (pa - pb) / np.sqrt(2 * pooled * (1 - pooled) / n), 0.0)
        p_z = 2 * stats.norm.sf(np.abs(z))
        b, c = t[:, 1], t[:, 2]
        p_exact = np.where(b + c > 0, np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(b, c), b + c, 0.5)), 1.0)
        rows[phi] = {"proportions_z": float(np.mean(p_z <= alpha)),
                     "mcnemar_exact": float(np.mean(p_exact <= alpha)),
                     "mc_se": float(np.sqrt(alpha * (1 - alpha) / n_sim))}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("correlation")


_BAYES_METHODS = ("correlated_t", "sign", "signed_rank")


def _bayes_result(x: Any, y: Any, rope: float, method: str, options: dict[str, Any]) -> Any:
    from ...stats.bayesian import bayes_correlated_ttest, bayes_sign_test, bayes_signed_rank_test

    if method == "correlated_t":
        return bayes_correlated_ttest(x, y, rope=rope, **options)
    test = bayes_sign_test if method == "sign" else bayes_signed_rank_test
    return test(x, y, rope=rope, **{"n_samples": 20000, "random_state": 0, **options})


def bayes_rope_state(
    x: Any,
    y: Any,
    rope: float,
    *,
    method: str = "correlated_t",
    ropes: Any = None,
    **options: Any,
) -> pd.DataFrame:
    """Posterior probabilities (A better, equivalent, B better) as the ROPE widens.

    Parameters
    ----------
    x, y : array-like
        Scores of A and B: fold scores of one data set (``method="correlated_t"``) or mean
        scores over data sets (``"sign"``, ``"signed_rank"``).
    rope : float
        The half-width of interest (flagged in the ``current`` column).
    method : {"correlated_t", "sign", "signed_rank"}
        :func:`precmp_lib.bayes_correlated_ttest`, :func:`precmp_lib.bayes_sign_test` or
        :func:`precmp_lib.bayes_signed_rank_test`.
    ropes : sequence of float, optional
        The grid (default: 0 to twice the largest of ``rope`` and 0.01, eleven steps, plus
        ``rope``).
    **options
        Passed to the test (``runs`` and ``test_train_ratio`` for the correlated t;
        ``prior_strength``, ``n_samples``, ``random_state`` for the others, whose sampling
        defaults here to 20 000 draws with ``random_state=0`` so a slider is reproducible).

    Returns
    -------
    DataFrame indexed by ``rope`` with ``p_a_better``, ``p_rope``, ``p_b_better``, ``decision``
    (the region holding at least 95 % of the posterior, else "undecided") and ``current``.

    Examples
    --------
    >>> a = [0.81, 0.84, 0.80, 0.83, 0.82, 0.85, 0.80, 0.83, 0.84, 0.82]
    >>> b = [0.80, 0.82, 0.80, 0.81, 0.80, 0.83, 0.79, 0.82, 0.82, 0.80]
    >>> s = bayes_rope_state(a, b, 0.01, ropes=[0.0, 0.01, 0.05])
    >>> s[["p_a_better", "p_rope", "p_b_better"]].round(3)
          p_a_better  p_rope  p_b_better
    rope
    0.00       0.999   0.000       0.001
    0.01       0.921   0.079       0.000
    0.05       0.000   1.000       0.000

    A beats B by 1.5 points on average: with no ROPE the posterior is all but sure that A is
    better; with a ROPE of one point "A better by more than a point" keeps 0.92; with five points
    A and B are equivalent for any practical purpose.
    """
    if method not in _BAYES_METHODS:
        raise ValueError(f"method must be one of {_BAYES_METHODS}; got {method!r}")
    if not rope >= 0:
        raise ValueError(f"rope must be a number >= 0; got {rope!r}")
    if ropes is None:
        top = 2 * max(float(rope), 0.01)
        ropes = np.linspace(0, top, 11)
    grid = sorted({round(float(r), 10) for r in ropes} | {round(float(rope), 10)})
    rows = {}
    for r in grid:
        res = _bayes_result(x, y, r, method, dict(options))
        probs = {"p_a_better": res.p_a_better, "p_rope": res.p_rope, "p_b_better": res.p_b_better}
        best = max(probs, key=lambda name: probs[name])
        rows[r] = {**probs, "decision": best[2:] if probs[best] >= 0.95 else "undecided"}
    out = pd.DataFrame.from_dict(rows, orient="index").rename_axis("rope")
    out["current"] = np.isclose(out.index.to_numpy(dtype=float), float(rope))
    return out


def bayes_rope_figure(
    x: Any,
    y: Any,
    state: pd.DataFrame,
    *,
    method: str = "correlated_t",
    names: tuple[str, str] = ("A", "B"),
    **options: Any,
) -> Any:
    """Plot the three probabilities against the ROPE and the posterior at the current ROPE.

    Parameters
    ----------
    x, y : array-like
        Scores of A and B, as for :func:`bayes_rope_state`.
    state : DataFrame
        From :func:`bayes_rope_state`; its ``current`` row gives the ROPE of the right panel.
    method : {"correlated_t", "sign", "signed_rank"}
        The test, as for :func:`bayes_rope_state`.
    names : pair of str
        Names of A and B, for the labels.
    **options
        Passed to the test, as for :func:`bayes_rope_state`.

    Returns
    -------
    matplotlib.figure.Figure
        Left, the three probabilities stacked against the ROPE; right, the posterior density
        with the ROPE shaded (correlated t) or the simplex of posterior draws (the others).
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from ...report.html import DARK_GREY
    from ..plots import bayesian_posterior_plot, bayesian_simplex_plot

    rope = float(state.index[state["current"]][0])
    # the legends go under the panels, so that neither the title nor the other panel is covered
    # and each panel keeps its share of the width whatever the length of the names
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.6), layout="constrained",
                                      gridspec_kw={"width_ratios": [1, 1]})
    r = state.index.to_numpy(dtype=float)
    left.stackplot(r, state["p_a_better"], state["p_rope"], state["p_b_better"],
                   colors=["#0072B2", "#BBBBBB", "#E69F00"],
                   labels=[f"{names[0]} better", "equivalent (ROPE)", f"{names[1]} better"])
    left.axvline(rope, color=DARK_GREY, lw=1, ls="--")
    left.set_xlim(r.min(), r.max())
    left.set_ylim(0, 1)
    left.set_xlabel("ROPE half-width (score units)")
    left.set_ylabel("posterior probability")
    left.set_title("Probabilities against the ROPE", fontsize="medium")
    res = _bayes_result(x, y, rope, method, dict(options))
    if method == "correlated_t":
        bayesian_posterior_plot(res, names=names, ax=right)
        right.get_legend().remove()
    else:
        bayesian_simplex_plot(res, names=names, max_points=2000, ax=right)
    for ax in (left, right):
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.set_xlabel(textwrap.fill(ax.get_xlabel(), 48))  # long names would run off the figure
    lines = max(ax.get_xlabel().count("\n") + 1 for ax in (left, right))
    below = (0.5, -0.1 - 0.08 * lines)  # under the tick labels and the (wrapped) x label
    left.legend(fontsize="small", frameon=False, loc="upper center", bbox_to_anchor=below)
    if method == "correlated_t":
        right.legend(fontsize="small", frameon=False, loc="upper center", bbox_to_anchor=below,
                     title="posterior probability", title_fontsize="small")
    right.set_title(f"Posterior at ROPE = {rope:g}", fontsize="medium")
    return fig


def bayes_rope_explorer(
    x: Any,
    y: Any,
    *,
    method: str = "correlated_t",
    rope: float = 0.01,
    max_rope: float | None = None,
    names: tuple[str, str] = ("A", "B"),
    **options: Any,
) -> Any:
    """Move the ROPE of a Bayesian comparison: the three probabilities and the posterior.

    Parameters
    ----------
    x, y, method, **options
        As :func:`bayes_rope_state`.
    rope : float
        Starting value of the slider.
    max_rope : float, optional
        End of the slider (default: twice the larger of ``rope`` and 0.01).
    names : pair of str
        Names of A and B, for the labels.

    Returns
    -------
    ipywidgets.VBox
        The slider above an HTML line with the three probabilities and the verdict, and the
        :func:`bayes_rope_figure` image.
    """
    import ipywidgets as w

    top = max_rope if max_rope is not None else 2 * max(float(rope), 0.01)
    slider = w.FloatSlider(value=rope, min=0.0, max=top, step=top / 40, description="ROPE",
                           readout_format=".4f", continuous_update=False)
    line = w.HTML()
    image = w.Image(format="png")
    grid = [top * i / 10 for i in range(11)]

    def update(*_: Any) -> None:
        state = bayes_rope_state(x, y, slider.value, method=method, ropes=grid, **options)
        row = state[state["current"]].iloc[0]
        verdict = {"a_better": f"{names[0]} better", "b_better": f"{names[1]} better",
                   "rope": "practically equivalent"}.get(row["decision"], "no answer reaches 0.95")
        line.value = (f"<p>ROPE ±{slider.value:.4f}: P({names[0]} better) = <b>{row['p_a_better']:.3f}</b>, "
                      f"P(equivalent) = <b>{row['p_rope']:.3f}</b>, P({names[1]} better) = "
                      f"<b>{row['p_b_better']:.3f}</b> — {verdict}.</p>")
        image.value = _png(bayes_rope_figure(x, y, state, method=method, names=names, **options))

    slider.observe(update, names="value")
    update()
    return w.VBox([slider, line, image])


# ============================================================================================
# notebooks 06-11: dependence of combined p-values, clustering in CV, the deep-model pair,
# replicability against test size, the paper's datasets
# ============================================================================================



def _html_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """Render a state table as HTML with numbers rounded for reading."""
    return frame.to_html(float_format=lambda v: f"{v:.{digits}g}", border=0)


# ---- 06: combining two dependent p-values --------------------------------------------------


def combination_state(
    correlation: float,
    *,
    pvalues: Any = (0.0002, 0.07),
    alpha: float = 0.05,
    n_sim: int = 4000,
    random_state: int = 0,
) -> pd.DataFrame:
    """Compute the combined p-value and type-I error of three methods when two tests correlate.

    Parameters
    ----------
    correlation : float
        Correlation of the two tests' normal statistics, in [0, 1).
    pvalues : pair of float
        The observed two-sided p-values to combine (default: Gondara's diabetic-retinopathy
        classes, Table 5).
    alpha : float
        Level of the simulated type-I error.
    n_sim, random_state
        Size and seed of the simulation under the null hypothesis
        (:func:`precmp_lib.course.type1.combination_type1_error`).

    Returns
    -------
    DataFrame indexed by ``method`` (``"fisher"``: assumes independence; ``"brown / dai_cui"``:
    Fisher's statistic rescaled with the exact two-sided covariance at this correlation;
    ``"simes"``) with ``combined_pvalue`` (of ``pvalues``) and ``type1_error`` (simulated
    rejection rate under the null at ``alpha``, with ``mc_se`` its Monte Carlo standard error).

    Examples
    --------
    >>> state = combination_state(0.9, n_sim=4000)
    >>> state["combined_pvalue"].round(5).tolist()
    [0.00017, 0.00266, 0.0004]
    >>> bool(state.loc["fisher", "type1_error"] > 0.08)
    True

    Fisher's p-value ignores the correlation and so stays at 0.00017 while its type-I error
    is far above 5 %; the rescaled statistic holds the level and gives a p-value 15 times larger.
    """
    from ...stats.combine import combine_pvalues
    from ..type1 import combination_type1_error

    rho = float(correlation)
    if not 0 <= rho < 1:
        raise ValueError(f"correlation must be in [0, 1); got {correlation!r}")
    p = [float(v) for v in pvalues]
    corr = [[1.0 if i == j else rho for j in range(len(p))] for i in range(len(p))]
    combined = {
        "fisher": combine_pvalues(p, method="fisher").pvalue,
        "brown / dai_cui": combine_pvalues(p, method="brown", correlation=corr).pvalue,
        "simes": combine_pvalues(p, method="simes").pvalue,
    }
    sim = combination_type1_error([rho], methods=["fisher", "dai_cui", "simes"], n_tests=len(p),
                                  n_sim=n_sim, alpha=alpha, random_state=random_state)
    sim = sim.assign(method=sim["method"].replace({"dai_cui": "brown / dai_cui"}))
    sim = sim.set_index("method")
    out = pd.DataFrame({"combined_pvalue": pd.Series(combined),
                        "type1_error": sim["rejection_rate"], "mc_se": sim["mc_se"]})
    return out.rename_axis("method")


def combination_explorer(correlation: float = 0.5, **kwargs: Any) -> Any:
    """Move the correlation: how Fisher, the rescaled Fisher and Simes respond to dependence.

    Parameters
    ----------
    correlation : float
        Starting value of the slider.
    **kwargs
        Passed to :func:`combination_state`.

    Returns
    -------
    ipywidgets.VBox
        The slider above the :func:`combination_state` table and a bar chart of the type-I
        errors against the nominal level (:func:`combination_state_plot`).
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    alpha = kwargs.get("alpha", 0.05)
    slider = w.FloatSlider(value=correlation, min=0.0, max=0.95, step=0.05,
                           description="correlation", continuous_update=False)
    table = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = combination_state(slider.value, **kwargs)
        table.value = _html_table(state)
        fig, ax = plt.subplots(figsize=(5.4, 2.6), layout="constrained")
        combination_state_plot(state, alpha=alpha, ax=ax)
        image.value = _png(fig)

    slider.observe(update, names="value")
    update()
    return w.VBox([slider, table, image])


def combination_state_plot(state: pd.DataFrame, *, alpha: float = 0.05, ax: Any = None) -> Any:
    """Plot the type-I error of each method as bars with ±2 Monte Carlo SE, a line at alpha.

    Parameters
    ----------
    state : DataFrame
        From :func:`combination_state`.
    alpha : float
        The nominal level, drawn as a dashed line.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One horizontal bar per method.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.4, 2.6), layout="constrained")
    y = range(len(state))
    ax.barh(list(y), state["type1_error"], xerr=2 * state["mc_se"], color="0.6")
    ax.axvline(alpha, color="C3", linestyle="--", label=f"α = {alpha}")
    ax.set_yticks(list(y), state.index)
    ax.set_xlabel("type-I error (simulated)")
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1), frameon=False)
    return ax


# ---- 08: the clustering choice in repeated cross-validation ---------------------------------


def clustering_state(long_table: pd.DataFrame, *, n_repeats: int, cluster: str) -> pd.DataFrame:
    """Run the GEE Wald test per class on the first ``n_repeats`` repetitions, one clustering.

    Parameters
    ----------
    long_table : DataFrame
        Out-of-fold predictions (:func:`precmp_lib.compare.crossval.cross_val_predictions`).
    n_repeats : int
        How many repetitions (from the first) enter the analysis.
    cluster : {"id", "id_repeat", "none"}
        The cluster of the sandwich variance (:func:`precmp_lib.compare.crossval.gee_from_long`).

    Returns
    -------
    DataFrame indexed by ``class`` with ``statistic``, ``pvalue``, ``statistic_id`` (the same
    rows clustered on ``id``, the right choice), ``inflation`` (their ratio) and
    ``n_clusters``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from precmp_lib.compare.crossval import cross_val_predictions
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cv = cross_val_predictions({"nb": GaussianNB(), "tree": DecisionTreeClassifier(
    ...     random_state=0)}, X, y, n_splits=5, n_repeats=4, random_state=0, progress=False)
    >>> state = clustering_state(cv, n_repeats=4, cluster="id_repeat")
    >>> state["inflation"].round(1).tolist()
    [3.0, 1.8]

    Counting each of four repetitions as new observations inflates the Wald statistic (here
    3 and 1.8 times): the repetitions are taken for new evidence.
    """
    from ..._lib.checks import check_positive_int
    from ...compare.crossval import gee_from_long

    n_repeats = check_positive_int(n_repeats, "n_repeats")
    subset = long_table[long_table["repeat"] < n_repeats]
    chosen = gee_from_long(subset, cluster=cluster)
    right = gee_from_long(subset, cluster="id")
    out = chosen.joint.set_index("class")[["statistic", "pvalue"]].copy()
    out["statistic_id"] = right.joint.set_index("class")["statistic"]
    out["inflation"] = out["statistic"] / out["statistic_id"]
    out["n_clusters"] = chosen.n_clusters
    return out


def clustering_explorer(long_table: pd.DataFrame, *, cluster: str = "id_repeat",
                        curves: dict[str, pd.DataFrame] | None = None) -> Any:
    """Move the number of repetitions and the choice of cluster: watch the statistic.

    Clustered on ``id`` the Wald statistic stays about the same as repetitions are added;
    clustered on ``(id, repeat)`` or on nothing it grows with them.

    Parameters
    ----------
    long_table : DataFrame
        Out-of-fold predictions (:func:`precmp_lib.compare.crossval.cross_val_predictions`).
    cluster : {"id", "id_repeat", "none"}
        Starting choice of cluster.
    curves : dict, optional
        From :func:`clustering_curves`; saves computing them again when the caller has them.

    Returns
    -------
    ipywidgets.VBox
        The slider and the cluster buttons above the :func:`clustering_state` table and the
        :func:`clustering_curve_plot` image.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    top = int(long_table["repeat"].max()) + 1
    slider = w.IntSlider(value=top, min=1, max=top, description="repetitions",
                         continuous_update=False)
    choice = w.ToggleButtons(options=["id", "id_repeat", "none"], value=cluster,
                             description="cluster")
    table = w.HTML()
    image = w.Image(format="png")
    curves = clustering_curves(long_table) if curves is None else curves

    def update(*_: Any) -> None:
        state = clustering_state(long_table, n_repeats=slider.value, cluster=choice.value)
        table.value = _html_table(state)
        fig, ax = plt.subplots(figsize=(7.0, 3.2), layout="constrained")
        clustering_curve_plot(curves, cluster=choice.value, n_repeats=slider.value, ax=ax)
        image.value = _png(fig)

    slider.observe(update, names="value")
    choice.observe(update, names="value")
    update()
    return w.VBox([w.HBox([slider, choice]), table, image])


def clustering_curves(long_table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Compute the Wald statistic of every class for 1, 2, ... repetitions, each clustering.

    Parameters
    ----------
    long_table : DataFrame
        Out-of-fold predictions (:func:`precmp_lib.compare.crossval.cross_val_predictions`).

    Returns
    -------
    dict
        ``"id"``, ``"id_repeat"``, ``"none"`` -> DataFrame indexed by ``repeats`` with one
        column per class (:func:`clustering_state`'s ``statistic``).
    """
    from ...compare.crossval import gee_from_long

    top = int(long_table["repeat"].max()) + 1
    stats_: dict[str, dict[int, pd.Series]] = {c: {} for c in ("id", "id_repeat", "none")}
    for r in range(1, top + 1):
        subset = long_table[long_table["repeat"] < r]
        for c in stats_:
            stats_[c][r] = gee_from_long(subset, cluster=c).joint.set_index("class")["statistic"]
    return {c: pd.concat(by_r, names=["repeats"]).unstack("class") for c, by_r in stats_.items()}


def clustering_curve_plot(curves: dict, *, cluster: str, n_repeats: int, ax: Any = None) -> Any:
    """Plot the Wald statistic against the number of repetitions, per class, one clustering.

    Parameters
    ----------
    curves : dict
        From :func:`clustering_curves`: a clustering -> a frame indexed by repetitions with a
        column per class.
    cluster : {"id", "id_repeat", "none"}
        The clustering drawn.
    n_repeats : int
        The current number of repetitions, marked with a circle on every line.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One line per class; for a cluster other than ``id`` also the ``id`` curves, dashed,
        for comparison.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 3.2), layout="constrained")
    for i, cls in enumerate(curves[cluster].columns):
        color = f"C{i % 10}"
        ax.plot(curves[cluster].index, curves[cluster][cls], marker="o", color=color,
                label=f"class {cls}")
        if cluster != "id":
            ax.plot(curves["id"].index, curves["id"][cls], linestyle="--", color=color)
        ax.plot([n_repeats], [curves[cluster].loc[n_repeats, cls]], "o", markersize=11,
                markerfacecolor="none", color="k")
    if cluster != "id":
        ax.plot([], [], linestyle="--", color="0.4", label="cluster id (right)")
    ax.set_title(f"cluster: {cluster}", fontsize="medium")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("repetitions of the k-fold split")
    ax.set_ylabel("GEE Wald statistic")
    ax.legend(frameon=False, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return ax


# ---- 09: two networks, one class at a time --------------------------------------------------


def deep_class_state(y_true: Any, pred_a: Any, pred_b: Any, cls: Any, *,
                     names: tuple[str, str] = ("A", "B")) -> pd.DataFrame:
    """Where two classifiers' predictions of one class agree and differ, with their precisions.

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like
        True labels and the two classifiers' predictions.
    cls : label
        The class.
    names : pair of str
        Names of A and B, for the row labels.

    Returns
    -------
    DataFrame indexed by who predicts the class (``"both"``, ``"only <A>"``, ``"only <B>"``)
    with ``correct`` and ``wrong`` counts; ``attrs`` holds ``precision_a``, ``precision_b``,
    ``gs_pvalue``, ``rp``, ``rp_ci_low`` and ``rp_ci_high`` for the class.

    Examples
    --------
    >>> state = deep_class_state([1, 1, 0, 0, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 1], 1)
    >>> state
            correct  wrong
    both          1      0
    only A        1      1
    only B        1      0
    >>> round(state.attrs["precision_a"], 3), state.attrs["precision_b"]
    (0.667, 1.0)

    Only the observations that one classifier predicts as the class and the other does not
    can separate their precisions.
    """
    from ...stats.precision import compare_precision

    y, a, b = (np.asarray(v) for v in (y_true, pred_a, pred_b))
    hit, pa, pb = y == cls, a == cls, b == cls
    rows = {"both": pa & pb, f"only {names[0]}": pa & ~pb, f"only {names[1]}": ~pa & pb}
    out = pd.DataFrame({k: {"correct": int((m & hit).sum()), "wrong": int((m & ~hit).sum())}
                        for k, m in rows.items()}).T
    table = compare_precision(y, a, b)
    row = table[table["class"].astype(str) == str(cls)].iloc[0]
    out.attrs = {k: float(row[k]) for k in ("precision_a", "precision_b", "gs_pvalue", "rp",
                                            "rp_ci_low", "rp_ci_high")}
    return out


def deep_class_explorer(y_true: Any, pred_a: Any, pred_b: Any, *,
                        names: tuple[str, str] = ("A", "B"), cls: Any = None) -> Any:
    """Choose a class: the discordant predictions behind its precision comparison.

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like
        True labels and the two classifiers' predictions.
    names : pair of str
        Names of A and B.
    cls : label, optional
        Starting class (default: the first).

    Returns
    -------
    ipywidgets.VBox
        The class dropdown above the :func:`deep_class_state` table and a line with both
        precisions, the GS p-value and the relative precision with its interval.
    """
    import ipywidgets as w

    classes = sorted(np.unique(np.asarray(y_true)).tolist(), key=str)
    choice = w.Dropdown(options=classes, value=classes[0] if cls is None else cls,
                        description="class")
    table = w.HTML()

    def update(*_: Any) -> None:
        state = deep_class_state(y_true, pred_a, pred_b, choice.value, names=names)
        a = state.attrs
        table.value = (state.to_html(border=0) + f"<p>precision {names[0]} {a['precision_a']:.3f}, "
                       f"{names[1]} {a['precision_b']:.3f}; GS p = {a['gs_pvalue']:.3g}; RP = "
                       f"{a['rp']:.3f} ({a['rp_ci_low']:.3f} to {a['rp_ci_high']:.3f})</p>")

    choice.observe(update, names="value")
    update()
    return w.VBox([choice, table])


# ---- 10: replicability against test size -----------------------------------------------------


