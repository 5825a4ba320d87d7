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
    "mcnemar_deviation_heatmap",
    "set_style",
    "type1_error_plot",
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


# --------------------------------------------------------------------------------------------
# resampling (type-I error of the resampled-score tests)
# --------------------------------------------------------------------------------------------


def type1_error_plot(
    rates: pd.DataFrame | dict[str, pd.DataFrame],
    *,
    alpha: float = 0.05,
    ax: Axes | None = None,
    xlabel: str = "rejection rate under a true null",
    title: str = "Type-I error of each test",
) -> Axes:
    """Rejection rate of each test under a true null, with its Monte Carlo interval.

    Parameters
    ----------
    rates : DataFrame or dict of name -> DataFrame
        :attr:`precmp_lib.resampling.Type1ErrorSimulation.rates` (columns ``test``,
        ``rejection_rate``, ``ci_low``, ``ci_high``). With one table, tests whose whole interval
        lies above ``alpha`` are drawn in the warning colour; with several (e.g. two simulated
        settings) each gets a palette colour and a legend entry.
    alpha : float
        The nominal level, drawn as a dashed reference line.
    ax : Axes, optional
    xlabel, title : str
        Axis label and title (change them when the rates are power, not type-I error).

    Returns
    -------
    Axes
        One errorbar container per table (or per colour group), plus the reference line.
    """
    tables = {"": rates} if isinstance(rates, pd.DataFrame) else dict(rates)
    if not tables:
        raise ValueError("rates must hold at least one table of rejection rates")
    needed = {"test", "rejection_rate", "ci_low", "ci_high"}
    for name, tab in tables.items():
        missing = needed - set(tab.columns)
        if missing:
            raise ValueError(f"rates{f' [{name!r}]' if name else ''} lacks columns "
                             f"{sorted(missing)}; pass Type1ErrorSimulation.rates")
    labels = list(dict.fromkeys(t for tab in tables.values() for t in tab["test"]))
    ax = _axes(ax, (8.0, 0.45 * len(labels) + 1.4))
    pos = {t: i for i, t in enumerate(labels)}
    width = 0.5 if len(tables) > 1 else 0.0
    for k, (name, tab) in enumerate(tables.items()):
        offset = (k / max(len(tables) - 1, 1) - 0.5) * width if len(tables) > 1 else 0.0
        y = np.array([pos[t] for t in tab["test"]], dtype=float) + offset
        x = tab["rejection_rate"].to_numpy(dtype=float)
        err = np.vstack([x - tab["ci_low"].to_numpy(dtype=float),
                         tab["ci_high"].to_numpy(dtype=float) - x])
        if len(tables) == 1:
            over = tab["ci_low"].to_numpy(dtype=float) > alpha
            for mask, color, label in ((over, SIGNIFICANT_COLOR, "rejects more often than α"),
                                       (~over, NEUTRAL_COLOR, "consistent with α or below")):
                if mask.any():
                    ax.errorbar(x[mask], y[mask], xerr=err[:, mask], fmt="o", color=color,
                                capsize=3, label=label)
        else:
            ax.errorbar(x, y, xerr=err, fmt="o", color=PALETTE[k % len(PALETTE)], capsize=3,
                        label=str(name))
    ax.axvline(alpha, color=REFERENCE_COLOR, linestyle="--", linewidth=1, label=f"α = {alpha:g}")
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, max(1.05 * max(float(t["ci_high"].max()) for t in tables.values()),
                       2 * alpha))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize="small", frameon=True)
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

