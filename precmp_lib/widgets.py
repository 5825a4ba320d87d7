"""Interactive explorers for the notebooks (ipywidgets).

Each explorer is a thin shell around a plain ``*_state`` function that computes everything it
shows; the tests call those functions directly, so the widgets' logic is tested without a browser.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .contingency import MCNEMAR_METHODS, mcnemar
from .precision import naive_rp_from_cells, rp_from_cells
from .simulate import paired_cell_probabilities, prediction_correlation

__all__ = ["mcnemar_explorer", "mcnemar_state", "rp_correlation_explorer", "rp_correlation_state"]


def _png(fig: Any) -> bytes:
    """The figure as PNG bytes for an ``ipywidgets.Image``; the figure is closed.

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

    ``n_agree`` items on which both classifiers agree complete the table; they do not change
    the p-values, only the accuracy difference.

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
    (:func:`precmp_lib.simulate.paired_cell_probabilities`), so it moves smoothly with the
    correlation and carries no simulation noise.

    Parameters
    ----------
    correlation : float
        Latent correlation of the two classifiers (Gaussian copula), in [-1, 1].
    n : int
        Test-set size behind the expected counts.
    precision_a, precision_b, prevalence, recall : float
        As :func:`precmp_lib.simulate.paired_cell_probabilities` (both recalls equal).
    confidence_level : float
        Level of the intervals.

    Returns
    -------
    DataFrame indexed by ``interval`` (``"paired"``: Moskowitz & Pepe; ``"naive"``: Katz's
    interval for independent samples) with ``rp``, ``ci_low``, ``ci_high``, ``width``,
    ``pvalue``, ``excludes_1`` and ``prediction_correlation`` (phi between the predictions).

    Notes
    -----
    The paired variance of log RP (METHODS.md §6.5) subtracts the covariance of the two
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
    """A slider for the correlation between two classifiers: paired vs naive RP intervals.

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
        From :func:`precmp_lib.bayes.prevalence_bootstrap` (one or two classifiers).
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
    >>> from precmp_lib.bayes import prevalence_bootstrap
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

    from .bayes import _percentile
    from .validation import check_probability

    level = check_probability(confidence_level, "confidence_level")
    if cls is None:
        if len(boot.classes) != 2:
            raise ValueError("cls is needed when there are more than two classes")
        cls = boot.classes[1]
    k = boot.code(cls, "cls")
    point, reps = boot.updated(cls, prevalence)
    lo, hi, skipped = _percentile(reps, level)
    rows = {
        name: {"precision": boot.precision[j, k], "updated": point[j], "ci_low": lo[j],
               "ci_high": hi[j], "n_skipped": int(skipped[j])}
        for j, name in enumerate(boot.names)
    }
    if len(boot.names) == 2:
        updated_ratio, ratio = boot.ratio(cls, prevalence)
        with np.errstate(invalid="ignore", divide="ignore"):
            test_ratio = boot.precision[0, k] / boot.precision[1, k]
        r_lo, r_hi, r_skip = _percentile(ratio[:, None], level)
        rows[f"{boot.names[0]} / {boot.names[1]}"] = {
            "precision": test_ratio, "updated": updated_ratio, "ci_low": r_lo[0],
            "ci_high": r_hi[0], "n_skipped": int(r_skip[0])}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("model").astype(
        {"precision": float, "updated": float, "ci_low": float, "ci_high": float})


def prevalence_explorer(
    boot: Any, *, cls: Any = None, prevalence: float | None = None,
    confidence_level: float = 0.95,
) -> Any:
    """A prevalence slider showing both classifiers' updated precisions, intervals and ratio.

    ``boot`` comes from :func:`precmp_lib.bayes.prevalence_bootstrap`; the bootstrap replicates
    of sensitivity and specificity do not depend on the prevalence, so moving the slider only
    re-evaluates Bayes' rule on them. The table is an HTML widget and the curve an image widget
    (no Output widget, whose echo of every display through the executing client can stall
    headless runs).
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
