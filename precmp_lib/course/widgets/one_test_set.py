"""Widgets on one test set.

McNemar counts, relative precision, the Bayes update, the corrected t, critical differences and
GS power.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...stats.contingency import MCNEMAR_METHODS, mcnemar
from ...stats.precision_cells import naive_rp_from_cells, rp_from_cells
from ..simulate import paired_cell_probabilities, prediction_correlation

__all__ = [
    "critical_difference_explorer",
    "critical_difference_figure",
    "critical_difference_state",
    "cv_correction_explorer",
    "cv_correction_figure",
    "cv_correction_state",
    "gs_power_explorer",
    "gs_power_figure",
    "gs_power_state",
    "mcnemar_explorer",
    "mcnemar_state",
    "prevalence_explorer",
    "prevalence_state",
    "rp_correlation_explorer",
    "rp_correlation_state",
]



def _png(fig: Any) -> bytes:
    """Render the figure as PNG bytes for an ``ipywidgets.Image`` and close it.

    Explorers redraw into Image and HTML widgets rather than an ``Output`` widget, whose
    capture of every display through the executing client can stall headless notebook runs.
    """
    import io

    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


# --------------------------------------------------------------------------------------------
# contingency (McNemar)
# --------------------------------------------------------------------------------------------


def mcnemar_state(b: int, c: int, *, n_agree: int = 100, alpha: float = 0.05) -> pd.DataFrame:
    """All four McNemar variants for discordant counts ``b`` and ``c``, as a table.

    Parameters
    ----------
    b, c : int
        Discordant counts: items only A gets right, items only B gets right.
    n_agree : int
        Items on which both classifiers agree, completing the table; they do not change the
        p-values, only the accuracy difference.
    alpha : float
        Level of the ``reject`` column.

    Returns
    -------
    DataFrame indexed by method with ``statistic``, ``pvalue``, ``reject`` (at ``alpha``)
    and ``degenerate``.

    Examples
    --------
    >>> mcnemar_state(11, 1)["pvalue"].round(5).tolist()
    [0.00389, 0.00937, 0.00635, 0.00342]
    """
    rows = {}
    for method in MCNEMAR_METHODS:
        res = mcnemar([[n_agree, b], [c, 0]], method=method)
        rows[method] = {
            "statistic": res.statistic,
            "pvalue": res.pvalue,
            "reject": res.pvalue <= alpha,
            "degenerate": res.degenerate,
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("method")


def mcnemar_explorer(b: int = 11, c: int = 1, *, max_count: int = 60, alpha: float = 0.05) -> Any:
    """Sliders for ``b`` and ``c`` that show all four McNemar p-values as they move.

    The table is an HTML widget whose value is replaced on each move (no ``Output`` capture,
    which can stall headless notebook runs).

    Parameters
    ----------
    b, c : int
        Starting discordant counts.
    max_count : int
        End of both sliders.
    alpha : float
        Level of the table's ``reject`` column (:func:`mcnemar_state`).

    Returns
    -------
    ipywidgets.VBox
        The two sliders above the HTML table.
    """
    import ipywidgets as w

    sb = w.IntSlider(value=b, min=0, max=max_count, description="b (only A)")
    sc = w.IntSlider(value=c, min=0, max=max_count, description="c (only B)")
    table = w.HTML()

    def update(*_: Any) -> None:
        state = mcnemar_state(sb.value, sc.value, alpha=alpha)
        table.value = state.to_html(float_format=lambda v: f"{v:.5f}", border=0)

    sb.observe(update, names="value")
    sc.observe(update, names="value")
    update()
    return w.VBox([w.HBox([sb, sc]), table])


# --------------------------------------------------------------------------------------------
# precision (correlation and relative precision)
# --------------------------------------------------------------------------------------------


def rp_correlation_state(
    correlation: float,
    *,
    n: int = 1000,
    precision_a: float = 0.80,
    precision_b: float = 0.85,
    prevalence: float = 0.3,
    recall: float = 0.7,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Paired and naive intervals for the relative precision at a given classifier correlation.

    The table is computed on the expected cell counts ``n * p`` of the Gaussian-copula model
    (:func:`precmp_lib.course.simulate.paired_cell_probabilities`), so it moves smoothly with the
    correlation and carries no simulation noise.

    Parameters
    ----------
    correlation : float
        Latent correlation of the two classifiers (Gaussian copula), in [-1, 1].
    n : int
        Test-set size behind the expected counts.
    precision_a, precision_b, prevalence, recall : float
        As :func:`precmp_lib.course.simulate.paired_cell_probabilities` (both recalls equal).
    confidence_level : float
        Level of the intervals.

    Returns
    -------
    DataFrame indexed by ``interval`` (``"paired"``: Moskowitz & Pepe; ``"naive"``: Katz's
    interval for independent samples) with ``rp``, ``ci_low``, ``ci_high``, ``width``,
    ``pvalue``, ``excludes_1`` and ``prediction_correlation`` (phi between the predictions).

    Notes
    -----
    The paired variance of log RP (docs/methods.md §6.5) subtracts the covariance of the two
    precisions; the naive one does not, so it is too wide for positively correlated
    classifiers and too narrow for negatively correlated ones.

    References
    ----------
    Moskowitz & Pepe (2006), Clinical Trials 3:272-279.

    Examples
    --------
    >>> state = rp_correlation_state(0.8)
    >>> state[["ci_low", "ci_high"]].round(3)
              ci_low  ci_high
    interval
    paired     0.894    0.994
    naive      0.870    1.021

    With strongly correlated classifiers the paired interval excludes 1 (A is less precise)
    while the interval that ignores the pairing is wider and holds 1.
    """
    # the expected table of a test set of n items, rounded to whole counts
    cells = np.round(n * paired_cell_probabilities(precision_a, precision_b,
                                                   correlation=correlation,
                                                   prevalence=prevalence, recall_a=recall))
    phi = float(prediction_correlation(cells))
    rows = {}
    for name, kernel in (("paired", rp_from_cells), ("naive", naive_rp_from_cells)):
        res = kernel(cells, confidence_level=confidence_level)
        lo, hi = float(res.ci_low), float(res.ci_high)
        rows[name] = {"rp": float(res.estimate), "ci_low": lo, "ci_high": hi, "width": hi - lo,
                      "pvalue": float(res.pvalue), "excludes_1": bool(lo > 1 or hi < 1),
                      "prediction_correlation": phi}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("interval")


def rp_correlation_explorer(
    correlation: float = 0.5,
    *,
    n: int = 1000,
    precision_a: float = 0.80,
    precision_b: float = 0.85,
    prevalence: float = 0.3,
    recall: float = 0.7,
) -> Any:
    """Move the correlation between two classifiers: paired vs naive RP intervals.

    Parameters
    ----------
    correlation : float
        Starting value of the slider.
    n, precision_a, precision_b, prevalence, recall
        As :func:`rp_correlation_state`.

    Returns
    -------
    ipywidgets.VBox
        The slider above a table and a forest plot of both intervals, redrawn on every move.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    from ..plots import forest_plot

    slider = w.FloatSlider(value=correlation, min=-0.3, max=0.95, step=0.05,
                           description="correlation", continuous_update=False)
    table = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = rp_correlation_state(slider.value, n=n, precision_a=precision_a,
                                     precision_b=precision_b, prevalence=prevalence, recall=recall)
        table.value = state.style.format({
            "rp": "{:.3f}", "ci_low": "{:.3f}", "ci_high": "{:.3f}", "width": "{:.3f}",
            "pvalue": "{:.4f}", "prediction_correlation": "{:.2f}"}).to_html()
        fig, ax = plt.subplots(figsize=(6.4, 2.2), layout="constrained")
        forest_plot(state.reset_index(), ci_low="ci_low", ci_high="ci_high", label="interval",
                    xlabel="RP = P_A / P_B", ax=ax)
        ax.set_xlim(0.8, 1.1)
        image.value = _png(fig)

    slider.observe(update, names="value")
    update()
    return w.VBox([slider, table, image])



# --------------------------------------------------------------------------------------------
# Bayes update (prevalence)
# --------------------------------------------------------------------------------------------



def prevalence_state(
    boot: Any, prevalence: float, *, cls: Any = None, confidence_level: float = 0.95
) -> pd.DataFrame:
    """Test-set and updated precision of each classifier at ``prevalence``, with intervals.

    Parameters
    ----------
    boot : PrevalenceBootstrap
        From :func:`precmp_lib.stats.prevalence.prevalence_bootstrap` (one or two classifiers).
    prevalence : float
        Population prevalence of the class, in [0, 1].
    cls : label, optional
        The class (default: the second of two classes).
    confidence_level : float
        Level of the bootstrap percentile intervals.

    Returns
    -------
    DataFrame indexed by ``model`` (each classifier, then ``"A / B"`` for two) with
    ``precision`` (test set; for the ratio row the test-set ratio), ``updated``, ``ci_low``,
    ``ci_high`` and ``n_skipped``.

    Examples
    --------
    >>> from precmp_lib.stats.prevalence import prevalence_bootstrap
    >>> boot = prevalence_bootstrap([0, 0, 0, 1, 1, 1, 1, 0], [0, 0, 1, 1, 1, 1, 0, 0],
    ...                             [0, 1, 1, 1, 1, 1, 1, 0], n_resamples=200, random_state=0)
    >>> prevalence_state(boot, 0.5)[["precision", "updated"]].round(3)
           precision  updated
    model
    A          0.750    0.750
    B          0.667    0.667
    A / B      1.125    1.125
    """
    import numpy as np

    from ..._lib.checks import check_probability
    from ...stats.prevalence import percentile_interval

    level = check_probability(confidence_level, "confidence_level")
    if cls is None:
        if len(boot.classes) != 2:
            raise ValueError("cls is needed when there are more than two classes")
        cls = boot.classes[1]
    k = boot.code(cls, "cls")
    point, reps = boot.updated(cls, prevalence)
    lo, hi, skipped = percentile_interval(reps, level)
    rows = {
        name: {"precision": boot.precision[j, k], "updated": point[j], "ci_low": lo[j],
               "ci_high": hi[j], "n_skipped": int(skipped[j])}
        for j, name in enumerate(boot.names)
    }
    if len(boot.names) == 2:
        updated_ratio, ratio = boot.ratio(cls, prevalence)
        with np.errstate(invalid="ignore", divide="ignore"):
            test_ratio = boot.precision[0, k] / boot.precision[1, k]
        r_lo, r_hi, r_skip = percentile_interval(ratio[:, None], level)
        rows[f"{boot.names[0]} / {boot.names[1]}"] = {
            "precision": test_ratio, "updated": updated_ratio, "ci_low": r_lo[0],
            "ci_high": r_hi[0], "n_skipped": int(r_skip[0])}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("model").astype(
        {"precision": float, "updated": float, "ci_low": float, "ci_high": float})


def prevalence_explorer(
    boot: Any, *, cls: Any = None, prevalence: float | None = None,
    confidence_level: float = 0.95,
) -> Any:
    """Move the prevalence: both classifiers' updated precisions, intervals and ratio.

    The bootstrap replicates of sensitivity and specificity do not depend on the prevalence, so
    moving the slider only re-evaluates Bayes' rule on them. The table is an HTML widget and the
    curve an image widget (no Output widget, whose echo of every display through the executing
    client can stall headless runs).

    Parameters
    ----------
    boot : PrevalenceBootstrap
        From :func:`precmp_lib.stats.prevalence.prevalence_bootstrap`.
    cls : label, optional
        The class (default: the second of two classes, else the first).
    prevalence : float, optional
        Starting value of the slider (default: the class's prevalence in the test set).
    confidence_level : float
        Level of the bootstrap percentile intervals.

    Returns
    -------
    ipywidgets.VBox
        The slider above the :func:`prevalence_state` table and the
        :func:`precmp_lib.course.plots.prevalence_curve_plot` image, both redrawn on every move.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    from ..plots import prevalence_curve_plot

    if cls is None:
        cls = boot.classes[1] if len(boot.classes) == 2 else boot.classes[0]
    k = boot.code(cls, "cls")
    start = float(boot.sample_prevalence[k]) if prevalence is None else prevalence
    slider = w.FloatSlider(value=round(start, 2), min=0.01, max=0.99, step=0.01,
                           description="prevalence", continuous_update=False)
    table = w.HTML()
    image = w.Image(format="png")
    curve = boot.curve(cls, confidence_level=confidence_level)

    def update(*_: Any) -> None:
        state = prevalence_state(boot, slider.value, cls=cls, confidence_level=confidence_level)
        table.value = state.round(4).to_html()
        fig, ax = plt.subplots(figsize=(5.4, 3.8), layout="constrained")
        prevalence_curve_plot(curve, sample_prevalence=float(boot.sample_prevalence[k]),
                              prevalence=slider.value, ax=ax)
        image.value = _png(fig)

    slider.observe(update, names="value")
    update()
    return w.VBox([slider, table, image])


# --------------------------------------------------------------------------------------------
# resampled scores (corrected t), ranks (critical difference), precision (GS power)
# --------------------------------------------------------------------------------------------


_RESAMPLES = (2, 3, 5, 10, 20, 30, 50, 100, 200)


def cv_correction_state(
    test_train_ratio: float,
    *,
    mean_difference: float,
    sd_difference: float,
    n_resamples: Any = _RESAMPLES,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Tabulate the paired t on resampled scores, uncorrected and corrected, as J grows.

    The differences of the two classifiers' scores are held at a mean ``mean_difference`` and a
    standard deviation ``sd_difference``; only the number of splits J and the test/train ratio
    move. The uncorrected t divides the variance by J, as if the splits were independent; the
    Nadeau–Bengio corrected t multiplies it by ``1/J + n_test/n_train`` (docs/methods.md §4).

    Parameters
    ----------
    test_train_ratio : float
        n_test / n_train of one split (1/9 for 10-fold cross-validation, 3/7 for 70/30 splits).
    mean_difference, sd_difference : float
        Mean and standard deviation (ddof 1) of the J differences A minus B.
    n_resamples : sequence of int
        The values of J in the table.
    alpha : float
        Level of the two-sided tests.

    Returns
    -------
    DataFrame indexed by ``n_resamples``; the two tests share the table, so each column names
    its test: ``uncorrected_factor`` (1/J), ``corrected_factor`` (1/J + ratio),
    ``uncorrected_statistic``, ``uncorrected_pvalue``, ``corrected_statistic``,
    ``corrected_pvalue``, ``uncorrected_reject`` and ``corrected_reject``.

    Examples
    --------
    >>> s = cv_correction_state(1 / 9, mean_difference=0.01, sd_difference=0.03)
    >>> s.loc[[10, 200], ["uncorrected_pvalue", "corrected_pvalue"]].round(4)
                 uncorrected_pvalue  corrected_pvalue
    n_resamples
    10                       0.3193            0.4866
    200                      0.0000            0.3291

    With 200 splits the uncorrected test finds a "difference" that the corrected test, whose
    variance factor cannot fall below 1/9, does not.
    """
    import numpy as np
    from scipy import stats

    from ..._lib.checks import check_probability

    alpha = check_probability(alpha, "alpha")
    if not test_train_ratio >= 0:
        raise ValueError(f"test_train_ratio must be a non-negative number; got {test_train_ratio!r}")
    if not sd_difference > 0:
        raise ValueError(f"sd_difference must be positive; got {sd_difference!r}")
    j = np.asarray(list(n_resamples), dtype=int)
    if j.size == 0 or (j < 2).any():
        raise ValueError(f"n_resamples must hold integers >= 2; got {list(n_resamples)!r}")
    out = pd.DataFrame({"uncorrected_factor": 1 / j, "corrected_factor": 1 / j + test_train_ratio},
                       index=pd.Index(j, name="n_resamples"))
    for kind in ("uncorrected", "corrected"):
        t = mean_difference / (sd_difference * np.sqrt(out[f"{kind}_factor"].to_numpy()))
        p = 2 * stats.t.sf(np.abs(t), j - 1)
        out[f"{kind}_statistic"], out[f"{kind}_pvalue"] = t, p
    for kind in ("uncorrected", "corrected"):
        out[f"{kind}_reject"] = out[f"{kind}_pvalue"] <= alpha
    return out


def cv_correction_figure(state: pd.DataFrame, *, alpha: float = 0.05, marker: int | None = None) -> Any:
    """Plot the p-value against the number of splits, uncorrected and corrected (log scales).

    Parameters
    ----------
    state : DataFrame
        From :func:`cv_correction_state`.
    alpha : float
        Level drawn as a dashed line.
    marker : int, optional
        One J to mark with a dotted vertical line (the run's own).

    Returns
    -------
    matplotlib.figure.Figure
        One line per test (uncorrected, corrected) over J.
    """
    import matplotlib.pyplot as plt

    from ...report.html import DARK_GREY, VERMILLION

    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    j = state.index.to_numpy()
    ax.plot(j, state["uncorrected_pvalue"], "o-", color=VERMILLION, label="uncorrected t (1/J)")
    ax.plot(j, state["corrected_pvalue"], "s-", color="#0072B2", label="corrected t (1/J + ratio)")
    ax.axhline(alpha, color=DARK_GREY, ls="--", lw=1, label=f"α = {alpha:g}")
    if marker is not None:
        ax.axvline(marker, color=DARK_GREY, lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(max(1e-12, float(state[["uncorrected_pvalue", "corrected_pvalue"]].min().min()) / 2), 1.2)
    ax.set_xlabel("number of splits J")
    ax.set_ylabel("two-sided p-value")
    ax.legend(fontsize="small", frameon=False, loc="lower left")
    return fig


def cv_correction_explorer(
    test_train_ratio: float = 1 / 9,
    *,
    mean_difference: float,
    sd_difference: float,
    n_resamples: int | None = None,
    alpha: float = 0.05,
) -> Any:
    """Move the test/train ratio: uncorrected and corrected p-values against J.

    Parameters
    ----------
    test_train_ratio : float
        Starting value of the slider.
    mean_difference, sd_difference, alpha
        As :func:`cv_correction_state`.
    n_resamples : int, optional
        The run's own J, marked in the figure.

    Returns
    -------
    ipywidgets.VBox
        The slider above an HTML table and the :func:`cv_correction_figure` image.
    """
    import ipywidgets as w

    slider = w.FloatSlider(value=round(test_train_ratio, 3), min=0.0, max=1.0, step=0.01,
                           description="n_test/n_train", continuous_update=False,
                           style={"description_width": "initial"}, readout_format=".2f")
    table = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = cv_correction_state(slider.value, mean_difference=mean_difference,
                                    sd_difference=sd_difference, alpha=alpha)
        table.value = state[["uncorrected_factor", "corrected_factor", "uncorrected_pvalue",
                             "corrected_pvalue"]].to_html(float_format=lambda v: f"{v:.4g}", border=0)
        image.value = _png(cv_correction_figure(state, alpha=alpha, marker=n_resamples))

    slider.observe(update, names="value")
    update()
    return w.VBox([slider, w.HBox([table, image])])


def critical_difference_state(
    k: int, n_datasets: int, *, alpha: float = 0.05, max_datasets: int = 60
) -> pd.DataFrame:
    """Critical differences of average ranks against the number of data sets, for k classifiers.

    Parameters
    ----------
    k : int
        Number of classifiers (at least 2).
    n_datasets : int
        The number of data sets N of interest (flagged in the ``current`` column).
    alpha : float
        Family-wise level.
    max_datasets : int
        The table runs from N = 2 to ``max(max_datasets, n_datasets)``.

    Returns
    -------
    DataFrame indexed by ``n_datasets`` with ``cd_nemenyi``, ``cd_bonferroni_dunn``,
    ``max_rank_difference`` (k − 1, the largest possible gap between two average ranks),
    ``nemenyi_can_reject`` (CD below k − 1: some outcome of the ranks could separate a pair) and
    ``current``.

    Examples
    --------
    >>> s = critical_difference_state(4, 14)
    >>> s.loc[14, ["cd_nemenyi", "cd_bonferroni_dunn"]].astype(float).round(3).tolist()
    [1.254, 1.168]

    Demšar's (2006) worked example: four classifiers on 14 data sets.
    """
    import numpy as np

    from ..._lib.checks import check_probability
    from ...stats.posthoc import critical_difference

    alpha = check_probability(alpha, "alpha")
    if int(k) != k or k < 2:
        raise ValueError(f"k must be an integer >= 2; got {k!r}")
    if int(n_datasets) != n_datasets or n_datasets < 2:
        raise ValueError(f"n_datasets must be an integer >= 2; got {n_datasets!r}")
    n = np.arange(2, max(int(max_datasets), int(n_datasets)) + 1)
    out = pd.DataFrame({
        "cd_nemenyi": [critical_difference(int(k), int(m), alpha=alpha) for m in n],
        "cd_bonferroni_dunn": [critical_difference(int(k), int(m), alpha=alpha,
                                                   method="bonferroni_dunn") for m in n],
    }, index=pd.Index(n, name="n_datasets"))
    out["max_rank_difference"] = float(k - 1)
    out["nemenyi_can_reject"] = out["cd_nemenyi"] < out["max_rank_difference"]
    out["current"] = out.index == int(n_datasets)
    return out


def critical_difference_figure(state: pd.DataFrame, *, alpha: float = 0.05) -> Any:
    """Plot the critical difference against N (Nemenyi and Bonferroni–Dunn), current N marked.

    Parameters
    ----------
    state : DataFrame
        From :func:`critical_difference_state`.
    alpha : float
        The level, for the title.

    Returns
    -------
    matplotlib.figure.Figure
        One line per method, a dotted line at k − 1 and a point at the current N.
    """
    import matplotlib.pyplot as plt

    from ...report.html import DARK_GREY, VERMILLION

    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    n = state.index.to_numpy()
    ax.plot(n, state["cd_nemenyi"], color="#0072B2", label="Nemenyi (all pairs)")
    ax.plot(n, state["cd_bonferroni_dunn"], color="#009E73", ls="--",
            label="Bonferroni–Dunn (against a control)")
    ax.axhline(state["max_rank_difference"].iloc[0], color=DARK_GREY, lw=1, ls=":",
               label="k − 1: largest possible rank gap")
    now = state[state["current"]]
    if len(now):
        ax.plot(now.index, now["cd_nemenyi"], "o", color=VERMILLION, ms=8,
                label=f"N = {now.index[0]}: CD = {now['cd_nemenyi'].iloc[0]:.2f}")
    ax.set_xlabel("number of data sets N")
    ax.set_ylabel("critical difference of average ranks")
    ax.set_ylim(0, None)
    ax.set_title(f"k = {state['max_rank_difference'].iloc[0] + 1:.0f} classifiers, α = {alpha:g}",
                 fontsize="medium")
    ax.legend(fontsize="small", frameon=False)
    return fig


def critical_difference_explorer(
    k: int = 6, n_datasets: int = 10, *, alpha: float = 0.05
) -> Any:
    """Sliders for k and N and a choice of α: how large a rank gap the data must show.

    Parameters
    ----------
    k, n_datasets : int
        Starting numbers of classifiers and data sets.
    alpha : float
        Starting level (added to the choices 0.01, 0.05 and 0.10).

    Returns
    -------
    ipywidgets.VBox
        The controls above an HTML line with both critical differences and the
        :func:`critical_difference_figure` image.
    """
    import ipywidgets as w

    sk = w.IntSlider(value=k, min=2, max=15, description="k classifiers",
                     style={"description_width": "initial"}, continuous_update=False)
    sn = w.IntSlider(value=n_datasets, min=2, max=60, description="N data sets",
                     style={"description_width": "initial"}, continuous_update=False)
    sa = w.Dropdown(options=sorted({0.01, 0.05, 0.10, alpha}), value=alpha, description="α")
    line = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = critical_difference_state(sk.value, sn.value, alpha=sa.value)
        row = state.loc[sn.value]
        line.value = (f"<p>CD (Nemenyi) = <b>{row['cd_nemenyi']:.3f}</b>, Bonferroni–Dunn = "
                      f"<b>{row['cd_bonferroni_dunn']:.3f}</b>; two average ranks must differ by "
                      f"at least this much (the largest possible gap is {sk.value - 1}).</p>")
        image.value = _png(critical_difference_figure(state, alpha=sa.value))

    for control in (sk, sn, sa):
        control.observe(update, names="value")
    update()
    return w.VBox([w.HBox([sk, sn, sa]), line, image])


_DIFFERENCES = (0.0, 0.0125, 0.025, 0.0375, 0.05, 0.0625, 0.075, 0.0875, 0.1)


def gs_power_state(
    correlation: float,
    n: int,
    *,
    differences: Any = _DIFFERENCES,
    precision_b: float = 0.75,
    n_sim: int = 1000,
    alpha: float = 0.05,
    random_state: int = 0,
) -> pd.DataFrame:
    """Power of the paired GS, weighted GS and naive z test of equal precision, by simulation.

    Paired predictions come from the Gaussian copula of :func:`precmp_lib.course.simulate.power_curve`
    (prevalence 0.3, recall 0.7, B's precision ``precision_b``, A's ``precision_b +
    difference``); a fixed ``random_state`` makes every move of a slider reproducible.

    Parameters
    ----------
    correlation : float
        Latent correlation of the two classifiers.
    n : int
        Test-set size.
    differences : sequence of float
        Differences in precision, A minus B.
    precision_b : float
        Precision of B.
    n_sim : int
        Simulated test sets per difference.
    alpha : float
        Level of the tests.
    random_state : int
        Seed of the simulation.

    Returns
    -------
    DataFrame indexed by ``difference`` with one column of rejection rates per test
    (``gs``, ``wgs``, ``naive_z``).

    Examples
    --------
    >>> s = gs_power_state(0.8, 1000, n_sim=400)
    >>> bool(s.loc[0.05, "gs"] > s.loc[0.05, "naive_z"])
    True

    With strongly correlated classifiers the paired GS detects a difference of 0.05 far more
    often than the z test that treats the two precisions as independent.
    """
    from ..simulate import power_curve

    curve = power_curve(list(differences), n=int(n), precision_b=precision_b,
                        correlation=[float(correlation)], alpha=alpha, n_sim=int(n_sim),
                        random_state=random_state)
    table = curve.pivot_table(index="difference", columns="method", values="power")
    return table[["gs", "wgs", "naive_z"]].rename_axis(columns=None)


def gs_power_figure(state: pd.DataFrame, *, alpha: float = 0.05, title: str | None = None) -> Any:
    """Plot the power curves of :func:`gs_power_state`, one line per test.

    Parameters
    ----------
    state : DataFrame
        From :func:`gs_power_state`.
    alpha : float
        Level drawn as a dashed line.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.figure.Figure
        One line per test against the difference in precision.
    """
    import matplotlib.pyplot as plt

    from ...report.html import DARK_GREY

    labels = {"gs": "GS (paired)", "wgs": "weighted GS (paired)", "naive_z": "z test (independent)"}
    styles = {"gs": ("#0072B2", "-"), "wgs": ("#009E73", "--"), "naive_z": ("#D55E00", ":")}
    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    for method in state.columns:
        color, ls = styles[method]
        ax.plot(state.index, state[method], marker="o", ms=3, color=color, ls=ls,
                label=labels[method])
    ax.axhline(alpha, color=DARK_GREY, lw=1, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("difference in precision P_A − P_B")
    ax.set_ylabel("rejection rate")
    if title:
        ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small", frameon=False, loc="upper left")
    return fig


def gs_power_explorer(correlation: float = 0.5, n: int = 1000, *, n_sim: int = 1000,
                      alpha: float = 0.05) -> Any:
    """Sliders for the correlation of the two classifiers and the test-set size: power curves.

    Parameters
    ----------
    correlation, n
        Starting values of the sliders.
    n_sim, alpha
        As :func:`gs_power_state`.

    Returns
    -------
    ipywidgets.VBox
        The sliders above an HTML table (four differences) and the :func:`gs_power_figure`
        image.
    """
    import ipywidgets as w

    sr = w.FloatSlider(value=correlation, min=0.0, max=0.9, step=0.1, description="correlation",
                       continuous_update=False)
    # up to 20 000: at a difference of 0.025 the GS needs about 8 000 to 12 000 items for 80 % power
    sn = w.IntSlider(value=n, min=200, max=max(20_000, n), step=100, description="test size n",
                     continuous_update=False)
    table = w.HTML()
    image = w.Image(format="png")

    def update(*_: Any) -> None:
        state = gs_power_state(sr.value, sn.value, n_sim=n_sim, alpha=alpha)
        table.value = state.loc[[0.0, 0.025, 0.05, 0.1]].to_html(
            float_format=lambda v: f"{v:.3f}", border=0)
        image.value = _png(gs_power_figure(
            state, alpha=alpha, title=f"correlation {sr.value:.1f}, n = {sn.value}"))

    sr.observe(update, names="value")
    sn.observe(update, names="value")
    update()
    return w.VBox([w.HBox([sr, sn]), w.HBox([table, image])])


# --------------------------------------------------------------------------------------------
