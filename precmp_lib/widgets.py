"""Interactive explorers for the notebooks (ipywidgets).

Each explorer is a thin shell around a plain ``*_state`` function that computes everything it
shows; the tests call those functions directly, so the widgets' logic is tested without a browser.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd

from .contingency import MCNEMAR_METHODS, mcnemar
from .course.simulate import paired_cell_probabilities, prediction_correlation
from .precision import naive_rp_from_cells, rp_from_cells

__all__ = ["mcnemar_explorer", "mcnemar_state", "rp_correlation_explorer", "rp_correlation_state"]


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

    from .plots import forest_plot

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

__all__ += ["prevalence_explorer", "prevalence_state"]


def prevalence_state(
    boot: Any, prevalence: float, *, cls: Any = None, confidence_level: float = 0.95
) -> pd.DataFrame:
    """Test-set and updated precision of each classifier at ``prevalence``, with intervals.

    Parameters
    ----------
    boot : PrevalenceBootstrap
        From :func:`precmp_lib.prevalence.prevalence_bootstrap` (one or two classifiers).
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
    >>> from precmp_lib.prevalence import prevalence_bootstrap
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

    from .prevalence import percentile_interval
    from .validation import check_probability

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
        From :func:`precmp_lib.prevalence.prevalence_bootstrap`.
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
        :func:`precmp_lib.plots.prevalence_curve_plot` image, both redrawn on every move.
    """
    import ipywidgets as w
    import matplotlib.pyplot as plt

    from .plots import prevalence_curve_plot

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

__all__ += [
    "critical_difference_explorer", "critical_difference_figure", "critical_difference_state",
    "cv_correction_explorer", "cv_correction_figure", "cv_correction_state",
    "gs_power_explorer", "gs_power_figure", "gs_power_state",
]

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

    from .validation import check_probability

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

    from .plots import REFERENCE_COLOR, SIGNIFICANT_COLOR

    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    j = state.index.to_numpy()
    ax.plot(j, state["uncorrected_pvalue"], "o-", color=SIGNIFICANT_COLOR, label="uncorrected t (1/J)")
    ax.plot(j, state["corrected_pvalue"], "s-", color="#0072B2", label="corrected t (1/J + ratio)")
    ax.axhline(alpha, color=REFERENCE_COLOR, ls="--", lw=1, label=f"α = {alpha:g}")
    if marker is not None:
        ax.axvline(marker, color=REFERENCE_COLOR, lw=0.8, ls=":")
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

    from .ranks import critical_difference
    from .validation import check_probability

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

    from .plots import REFERENCE_COLOR, SIGNIFICANT_COLOR

    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    n = state.index.to_numpy()
    ax.plot(n, state["cd_nemenyi"], color="#0072B2", label="Nemenyi (all pairs)")
    ax.plot(n, state["cd_bonferroni_dunn"], color="#009E73", ls="--",
            label="Bonferroni–Dunn (against a control)")
    ax.axhline(state["max_rank_difference"].iloc[0], color=REFERENCE_COLOR, lw=1, ls=":",
               label="k − 1: largest possible rank gap")
    now = state[state["current"]]
    if len(now):
        ax.plot(now.index, now["cd_nemenyi"], "o", color=SIGNIFICANT_COLOR, ms=8,
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
    from .course.simulate import power_curve

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

    from .plots import REFERENCE_COLOR

    labels = {"gs": "GS (paired)", "wgs": "weighted GS (paired)", "naive_z": "z test (independent)"}
    styles = {"gs": ("#0072B2", "-"), "wgs": ("#009E73", "--"), "naive_z": ("#D55E00", ":")}
    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    for method in state.columns:
        color, ls = styles[method]
        ax.plot(state.index, state[method], marker="o", ms=3, color=color, ls=ls,
                label=labels[method])
    ax.axhline(alpha, color=REFERENCE_COLOR, lw=1, ls="--")
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
# accuracy on one test set (difference of proportions) and Bayesian comparison (ROPE)
# --------------------------------------------------------------------------------------------

__all__ += ["bayes_rope_explorer", "bayes_rope_figure", "bayes_rope_state",
            "proportions_type1_state"]


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
    import numpy as np
    from scipy import stats

    from .validation import check_probability

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
    from .bayesian import bayes_correlated_ttest, bayes_sign_test, bayes_signed_rank_test

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
    import numpy as np

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

    from .plots import REFERENCE_COLOR, bayesian_posterior_plot, bayesian_simplex_plot

    rope = float(state.index[state["current"]][0])
    # the legends go under the panels, so that neither the title nor the other panel is covered
    # and each panel keeps its share of the width whatever the length of the names
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.6), layout="constrained",
                                      gridspec_kw={"width_ratios": [1, 1]})
    r = state.index.to_numpy(dtype=float)
    left.stackplot(r, state["p_a_better"], state["p_rope"], state["p_b_better"],
                   colors=["#0072B2", "#BBBBBB", "#E69F00"],
                   labels=[f"{names[0]} better", "equivalent (ROPE)", f"{names[1]} better"])
    left.axvline(rope, color=REFERENCE_COLOR, lw=1, ls="--")
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

__all__ += [
    "clustering_curve_plot", "clustering_curves", "clustering_explorer", "clustering_state",
    "combination_explorer", "combination_state", "combination_state_plot",
    "deep_class_explorer", "deep_class_state",
    "paper_dataset_explorer", "paper_dataset_plot", "paper_dataset_state",
    "replicability_size_explorer", "replicability_size_plot", "replicability_size_state",
]


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
    from .combine import combine_pvalues
    from .course.type1 import combination_type1_error

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
        Out-of-fold predictions (:func:`precmp_lib.crossval.cross_val_predictions`).
    n_repeats : int
        How many repetitions (from the first) enter the analysis.
    cluster : {"id", "id_repeat", "none"}
        The cluster of the sandwich variance (:func:`precmp_lib.crossval.gee_from_long`).

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
    >>> from precmp_lib.crossval import cross_val_predictions
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cv = cross_val_predictions({"nb": GaussianNB(), "tree": DecisionTreeClassifier(
    ...     random_state=0)}, X, y, n_splits=5, n_repeats=4, random_state=0, progress=False)
    >>> state = clustering_state(cv, n_repeats=4, cluster="id_repeat")
    >>> state["inflation"].round(1).tolist()
    [3.0, 1.8]

    Counting each of four repetitions as new observations inflates the Wald statistic (here
    3 and 1.8 times): the repetitions are taken for new evidence.
    """
    from .crossval import gee_from_long
    from .validation import check_positive_int

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
        Out-of-fold predictions (:func:`precmp_lib.crossval.cross_val_predictions`).
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
        Out-of-fold predictions (:func:`precmp_lib.crossval.cross_val_predictions`).

    Returns
    -------
    dict
        ``"id"``, ``"id_repeat"``, ``"none"`` -> DataFrame indexed by ``repeats`` with one
        column per class (:func:`clustering_state`'s ``statistic``).
    """
    from .crossval import gee_from_long

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
    import numpy as np

    from .precision import compare_precision

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
    import numpy as np

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

    from .precision import gs_from_cells
    from .replicability import replicability, replicability_pvalues

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

__all__ += ["course_map_explorer", "course_map_state"]

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
        "pc.cochrans_q(pc.correctness_matrix(y_true, preds)); pc.pairwise_mcnemar(y_true, preds)",
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
        "difference is smaller than a margin", None),
    "power and items needed": (
        "pc.paired_sample_size(difference, sd, cluster_size=m, icc=rho); "
        "pc.mcnemar_sample_size(p_a_only, p_b_only)",
        "how many items (and passages) a comparison needs to detect the difference that matters, "
        "planned before the items are collected", None),
    "Friedman (Iman–Davenport), then Nemenyi or Holm against a control": (
        "pc.iman_davenport(scores); pc.nemenyi(scores) or pc.tests_against_control(scores)",
        "average ranks over data sets, an omnibus test first, then pairwise comparisons "
        "corrected for multiple testing", None),
}

_COURSE_MAP_STATE_COLUMNS = ["test", "call", "notebook", "why"]


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
    from .course.maps import course_map_table

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
    if data == "evaluation items":
        metric = "any score" if compare == "scores" else compare
    table = course_map_table()
    wanted = {"two", "two or more"} if n_models == 2 else {"three or more", "two or more"}
    rows = table[(table["data"] == data) & (table["metric"] == metric)
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

__all__ += ["item_power_curve", "item_power_explorer", "item_power_figure", "item_power_state"]

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
    from .power import minimum_detectable_difference, paired_power, paired_sample_size

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
    from .power import paired_power

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

    from .plots import REFERENCE_COLOR

    styles = {_ITEM_DESIGNS[0]: ("#D55E00", ":"), _ITEM_DESIGNS[1]: ("#0072B2", "-"),
              _ITEM_DESIGNS[2]: ("#009E73", "--")}
    fig, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    for design in curve.columns:
        color, ls = styles[design]
        ax.plot(curve.index, curve[design], color=color, ls=ls, lw=1.8, label=design)
    ax.axhline(power, color=REFERENCE_COLOR, lw=1, ls="--")
    if n_items is not None:
        ax.axvline(n_items, color=REFERENCE_COLOR, lw=0.8, ls=":")
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
