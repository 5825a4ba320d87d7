"""Plots with one shared style. Every function draws on an Axes (new or given) and returns it.

Sections follow the library's topics: contingency (McNemar), precision (forest plot, power),
ranks (critical-difference diagram), combining p-values, Bayes update, replicability.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm

__all__ = [
    "PALETTE",
    "forest_plot",
    "mcnemar_deviation_heatmap",
    "power_plot",
    "set_style",
]

# Colour-blind-safe palette (Okabe & Ito 2008), used for classifiers in every plot.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
# Fixed colours for meaning, not for classifiers.
REFERENCE_COLOR = "#555555"
SIGNIFICANT_COLOR = "#D55E00"
NEUTRAL_COLOR = "#0072B2"


def set_style(context: str = "notebook") -> None:
    """Apply the precmp look: white grid, the Okabe–Ito palette, readable fonts."""
    sns.set_theme(context=context, style="whitegrid", palette=PALETTE)
    plt.rcParams.update({
        "figure.dpi": 100,
        "savefig.dpi": 120,
        "figure.autolayout": False,
        "axes.titleweight": "bold",
        "axes.titlesize": "medium",
    })


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


# --------------------------------------------------------------------------------------------
# contingency (McNemar)
# --------------------------------------------------------------------------------------------


def mcnemar_deviation_heatmap(
    grid: pd.DataFrame,
    variant: str = "chi2_corrected",
    *,
    reference: str = "exact",
    ax: Axes | None = None,
    annotate_alpha: float | None = 0.05,
) -> Axes:
    """Heat map over (b, c) of how far a McNemar variant's p-value is from the exact one.

    Parameters
    ----------
    grid : DataFrame
        From :func:`precmp_lib.contingency.mcnemar_pvalue_grid`.
    variant, reference : str
        Columns of ``grid``; the colour is ``variant - reference`` (red: the variant is more
        conservative, blue: it rejects more easily).
    annotate_alpha : float or None
        Outline the cells where the two disagree about rejection at this level.
    """
    for col in (variant, reference):
        if col not in grid.columns:
            raise ValueError(f"grid has no column {col!r}; columns are {list(grid.columns)}")
    ax = _axes(ax, (5.2, 4.4))
    diff = grid.pivot(index="c", columns="b", values=variant) - grid.pivot(
        index="c", columns="b", values=reference
    )
    lim = max(float(np.nanmax(np.abs(diff.to_numpy()))), 1e-12)
    im = ax.imshow(
        diff.to_numpy(), origin="lower", cmap="RdBu_r", norm=TwoSlopeNorm(0, -lim, lim),
        aspect="auto", interpolation="nearest",
    )
    ax.figure.colorbar(im, ax=ax, label=f"p({variant}) - p({reference})")
    if annotate_alpha is not None:
        disagree = (grid.pivot(index="c", columns="b", values=variant) <= annotate_alpha) != (
            grid.pivot(index="c", columns="b", values=reference) <= annotate_alpha
        )
        ys, xs = np.nonzero(disagree.to_numpy())
        ax.scatter(xs, ys, marker="s", s=12, facecolors="none", edgecolors="black", linewidths=0.6,
                   label=f"decisions differ at α = {annotate_alpha}")
        if len(xs):
            ax.legend(loc="upper right", fontsize="small", frameon=True)
    ax.set_xlabel("b (only A correct)")
    ax.set_ylabel("c (only B correct)")
    ax.set_title(f"{variant} vs {reference}")
    return ax


# --------------------------------------------------------------------------------------------
# precision (forest plot, power curves)
# --------------------------------------------------------------------------------------------


def forest_plot(
    table: pd.DataFrame,
    *,
    estimate: str = "rp",
    ci_low: str = "rp_ci_low",
    ci_high: str = "rp_ci_high",
    label: str | list[str] = "class",
    reference: float = 1.0,
    log_scale: bool = True,
    xlabel: str | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Forest plot: one estimate with its confidence interval per row, against a reference line.

    Parameters
    ----------
    table : DataFrame
        One row per item, e.g. :func:`precmp_lib.precision.compare_precision` (relative
        precision per class; the defaults), several of them concatenated with a ``dataset``
        column, or ``gee_precision(...).coefficients`` (``estimate="odds_ratio"``,
        ``ci_low="ci_low"``, ``ci_high="ci_high"``, ``label="model"``).
    estimate, ci_low, ci_high : str
        Columns of the estimate and its interval.
    label : str or list of str
        Column(s) naming each row (joined with " · ").
    reference : float
        Position of the "no difference" line (1 for ratios).
    log_scale : bool
        Log x axis (ratios are symmetric on it: 0.5 and 2 are equally far from 1).
    xlabel, title : str, optional
    ax : Axes, optional

    Returns
    -------
    Axes
        Rows from top to bottom in table order; intervals that exclude the reference are drawn
        in the "significant" colour, rows with no estimate are labelled "n/a".

    Notes
    -----
    Gondara's Figure 2 shows relative precision this way: an interval that excludes 1 is a
    significant difference at the matching level, and its position says how large it is.

    References
    ----------
    Lewis & Clarke (2001), "Forest plots: trying to see the wood and the trees", BMJ
    322:1479-1480. Gondara (2016), Figure 2.

    Examples
    --------
    >>> table = pd.DataFrame({"class": ["cat", "dog"], "rp": [0.9, 1.02],
    ...                       "rp_ci_low": [0.85, 0.97], "rp_ci_high": [0.96, 1.08]})
    >>> ax = forest_plot(table)
    >>> [t.get_text() for t in ax.get_yticklabels()], ax.get_xscale()
    (['cat', 'dog'], 'log')
    """
    cols = [label] if isinstance(label, str) else list(label)
    for col in (estimate, ci_low, ci_high, *cols):
        if col not in table.columns:
            raise ValueError(f"table has no column {col!r}; columns are {list(table.columns)}")
    if len(table) == 0:
        raise ValueError("table must have at least one row")
    ax = _axes(ax, (6.4, 0.45 * len(table) + 1.4))
    est = table[estimate].to_numpy(dtype=float)
    lo = table[ci_low].to_numpy(dtype=float)
    hi = table[ci_high].to_numpy(dtype=float)
    names = [" · ".join(str(v) for v in row) for row in table[cols].itertuples(index=False)]
    y = np.arange(len(table))[::-1].astype(float)
    ok = np.isfinite(est)
    excludes = ok & ((lo > reference) | (hi < reference))
    colours = np.where(excludes, SIGNIFICANT_COLOR, NEUTRAL_COLOR)
    ax.axvline(reference, color=REFERENCE_COLOR, linestyle="--", linewidth=1, zorder=1)
    ax.hlines(y[ok], lo[ok], hi[ok], colors=colours[ok], linewidth=2, zorder=2)
    ax.scatter(est[ok], y[ok], c=colours[ok], marker="s", s=36, zorder=3)
    for yi in y[~ok]:
        ax.text(reference, yi, "n/a", ha="center", va="center", color=REFERENCE_COLOR,
                fontsize="small")
    if log_scale:
        ax.set_xscale("log")
    ax.set_yticks(y, names)
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlabel(xlabel or estimate)
    if title:
        ax.set_title(title)
    ax.grid(axis="y", visible=False)
    return ax


def power_plot(
    curve: pd.DataFrame,
    *,
    correlation: float | None = None,
    alpha: float | None = 0.05,
    ax: Axes | None = None,
) -> Axes:
    """Rejection rate against the difference in precision, one line per test (seed Figure 1).

    Parameters
    ----------
    curve : DataFrame
        From :func:`precmp_lib.simulate.power_curve`.
    correlation : float, optional
        Which correlation to draw when ``curve`` holds several.
    alpha : float or None
        Draw the nominal level as a horizontal line.
    ax : Axes, optional

    Returns
    -------
    Axes
        One line per method with a band of two Monte Carlo standard errors.

    Notes
    -----
    At difference 0 the curve is the type-I error rate, which should sit at ``alpha``.

    References
    ----------
    Gondara (2016), Figure 1.

    Examples
    --------
    >>> from precmp_lib.simulate import power_curve
    >>> ax = power_plot(power_curve([0.0, 0.05], n_sim=50, random_state=0))
    >>> len(ax.get_legend().get_texts())  # GS, WGS, naive z and the alpha line
    4
    """
    for col in ("difference", "method", "power", "mc_se", "correlation"):
        if col not in curve.columns:
            raise ValueError(f"curve has no column {col!r}; pass the output of power_curve")
    if correlation is not None:
        curve = curve[np.isclose(curve["correlation"], correlation)]
        if curve.empty:
            raise ValueError(f"curve holds no rows with correlation {correlation}")
    if curve["correlation"].nunique() > 1:
        raise ValueError("curve holds several correlations; choose one with correlation=")
    ax = _axes(ax, (5.6, 3.8))
    for i, (method, part) in enumerate(curve.groupby("method", sort=False)):
        part = part.sort_values("difference")
        name = part["label"].iloc[0] if "label" in part.columns else method
        colour = PALETTE[i % len(PALETTE)]
        x = part["difference"].to_numpy()
        p = part["power"].to_numpy()
        se = part["mc_se"].to_numpy()
        ax.plot(x, p, marker="o", markersize=3, color=colour, label=name)
        ax.fill_between(x, np.clip(p - 2 * se, 0, 1), np.clip(p + 2 * se, 0, 1), color=colour,
                        alpha=0.15, linewidth=0)
    if alpha is not None:
        ax.axhline(alpha, color=REFERENCE_COLOR, linestyle=":", linewidth=1,
                   label=f"α = {alpha:g}")
    rho = curve["correlation"].iloc[0]
    ax.set_xlabel("difference in precision, A − B")
    ax.set_ylabel("rejection rate")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"latent correlation {rho:g}")
    ax.legend(loc="upper left", fontsize="small", frameon=True)
    return ax



# --------------------------------------------------------------------------------------------
# ranks (critical-difference diagram)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# combining p-values and the Bayes update
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# cross-validation and replicability
# --------------------------------------------------------------------------------------------

