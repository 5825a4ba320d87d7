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
    "precision_heatmap",
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
    ax.grid(False)
    ax.figure.colorbar(im, ax=ax, label=f"p({variant}) − p({reference})")
    if annotate_alpha is not None:
        disagree = (grid.pivot(index="c", columns="b", values=variant) <= annotate_alpha) != (
            grid.pivot(index="c", columns="b", values=reference) <= annotate_alpha
        )
        ys, xs = np.nonzero(disagree.to_numpy())
        ax.scatter(xs, ys, marker="s", s=12, facecolors="none", edgecolors="black", linewidths=0.6,
                   label=f"decisions differ at α = {annotate_alpha}")
        if len(xs):
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.07), fontsize="small", frameon=False)
    ax.set_xlabel("b (only A correct)")
    ax.set_ylabel("c (only B correct)")
    ax.set_title(f"{variant} vs {reference}", pad=22 if annotate_alpha is not None else 6)
    return ax


# --------------------------------------------------------------------------------------------
# reports (precision per class and model)
# --------------------------------------------------------------------------------------------


def precision_heatmap(table: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """Heat map of precision per class (rows) and model (columns), annotated with the values.

    Parameters
    ----------
    table : DataFrame
        Precision values in [0, 1], classes as the index and models as columns (NaN: never
        predicted), e.g. from :func:`precmp_lib.report.precision_table`.
    """
    values = table.to_numpy(dtype=float)
    if values.size == 0:
        raise ValueError("table must hold at least one class and one model")
    ax = _axes(ax, (1.6 + 1.1 * table.shape[1], 1.0 + 0.38 * table.shape[0]))
    sns.heatmap(table.astype(float), annot=True, fmt=".2f", cmap="viridis", vmin=0, vmax=1, ax=ax,
                cbar_kws={"label": "precision"}, linewidths=0.5, linecolor="white")
    ax.set_xlabel("model")
    ax.set_ylabel(str(table.index.name or "class"))
    ax.set_title(title or "Precision per class and model")
    return ax


# --------------------------------------------------------------------------------------------
# precision (forest plot, power curves)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# ranks (critical-difference diagram)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# combining p-values and the Bayes update
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# cross-validation and replicability
# --------------------------------------------------------------------------------------------

