"""Plots with one shared style. Every function draws on an Axes (new or given) and returns it.

Sections follow the library's topics: contingency (McNemar), precision (forest plot, power),
ranks (critical-difference diagram), combining p-values, Bayes update, replicability.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import FancyBboxPatch

__all__ = [
    "PALETTE",
    "course_map_chart",
    "course_map_table",
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


__all__ += [
    "combined_pvalues_plot",
    "covariance_curves_plot",
    "null_dependence_plot",
    "prevalence_curve_plot",
    "type1_error_plot",
]


def null_dependence_plot(
    null_pvalues: np.ndarray,
    *,
    pvalues: np.ndarray | None = None,
    classes: list | None = None,
    pair: tuple[int, int] = (0, 1),
    ax: Axes | None = None,
) -> Axes:
    """Scatter of two per-class Fisher terms ``-2 ln p`` over null (swap-permutation) resamples.

    Parameters
    ----------
    null_pvalues : ndarray of shape (B, L)
        Null p-values, e.g. ``swap_permutation_null(...).pvalues`` or the ``null_pvalues``
        detail of :func:`precmp_lib.combine.combined_precision_test`.
    pvalues : array of shape (L,), optional
        The observed p-values, marked as a point.
    classes : list, optional
        Names of the L tests (default their positions).
    pair : pair of int
        Which two tests to plot.

    Under independence the cloud would have no trend; the title gives the sample correlation
    of the two terms, the dependence that Fisher's method ignores.
    """
    null = np.asarray(null_pvalues, dtype=float)
    if null.ndim != 2 or null.shape[1] < 2:
        raise ValueError(f"null_pvalues must have shape (B, L) with L >= 2; got {null.shape}")
    i, j = pair
    if not (0 <= i < null.shape[1] and 0 <= j < null.shape[1] and i != j):
        raise ValueError(f"pair must name two different tests among {null.shape[1]}; got {pair}")
    names = classes if classes is not None else list(range(null.shape[1]))
    with np.errstate(divide="ignore"):
        x, y = -2 * np.log(null[:, i]), -2 * np.log(null[:, j])
    ok = np.isfinite(x) & np.isfinite(y)
    ax = _axes(ax, (4.6, 4.2))
    ax.scatter(x[ok], y[ok], s=8, alpha=0.35, color=NEUTRAL_COLOR, linewidths=0,
               label=f"{int(ok.sum())} null resamples")
    if pvalues is not None:
        p = np.asarray(pvalues, dtype=float)
        ax.scatter([-2 * np.log(p[i])], [-2 * np.log(p[j])], s=70, marker="*",
                   color=SIGNIFICANT_COLOR, zorder=3, label="observed")
    r = np.corrcoef(x[ok], y[ok])[0, 1] if ok.sum() > 2 else np.nan
    ax.set_xlabel(f"-2 ln p, class {names[i]}")
    ax.set_ylabel(f"-2 ln p, class {names[j]}")
    ax.set_title(f"Per-class tests under the null: correlation {r:.2f}")
    ax.legend(loc="upper left", fontsize="small")
    return ax


def combined_pvalues_plot(
    table: pd.DataFrame,
    *,
    methods: list[str] | None = None,
    alpha: float = 0.05,
    ax: Axes | None = None,
) -> Axes:
    """Dot plot of each data set's combined p-value per method, on a -log10 scale.

    Parameters
    ----------
    table : DataFrame
        From :func:`precmp_lib.combine.combined_precision_table` (columns ``dataset`` and
        ``<method>_pvalue``).
    methods : list of str, optional
        Which methods to show (default every ``*_pvalue`` column except ``gs_pvalue``).
    alpha : float
        Level drawn as a reference line.
    """
    if "dataset" not in table.columns:
        raise ValueError("table must have a 'dataset' column (from combined_precision_table)")
    cols = [f"{m}_pvalue" for m in methods] if methods else [
        c for c in table.columns if c.endswith("_pvalue") and c != "gs_pvalue"]
    missing = [c for c in cols if c not in table.columns]
    if missing or not cols:
        raise ValueError(f"table has no column(s) {missing or '<method>_pvalue'}")
    per = table.groupby("dataset", sort=False)[cols].first()
    tiny = np.finfo(float).tiny
    ax = _axes(ax, (6.0, 0.9 + 0.45 * len(per)))
    ypos = np.arange(len(per))
    for k, col in enumerate(cols):
        score = -np.log10(np.maximum(per[col].to_numpy(dtype=float), tiny))
        ax.scatter(score, ypos + (k - (len(cols) - 1) / 2) * 0.18, s=36, color=PALETTE[k],
                   label=col.removesuffix("_pvalue"), zorder=3)
    ax.axvline(-np.log10(alpha), color=REFERENCE_COLOR, lw=1, ls="--", label=f"α = {alpha}")
    ax.set_yticks(ypos, per.index)
    ax.invert_yaxis()
    ax.set_xlabel("combined p-value (-log10)")
    ax.set_title("Global test of equal per-class precision")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def covariance_curves_plot(*, weights: float = 2.0, ax: Axes | None = None) -> Axes:
    """Covariance of two Lancaster terms against the correlation of the tests' statistics.

    Draws the exact covariance for two-sided and for one-sided p-values
    (:func:`precmp_lib.combine.lancaster_covariance`) and, for Fisher terms (``weights=2``),
    the one-sided Kost–McDermott polynomial: the polynomial only fits one-sided p-values.
    """
    from .combine import lancaster_covariance

    rho = np.linspace(-1, 1, 201)
    ax = _axes(ax, (5.2, 3.8))
    for k, sides in enumerate(("two-sided", "one-sided")):
        ax.plot(rho, lancaster_covariance(rho, weights=(weights, weights), sides=sides),
                color=PALETTE[k], lw=2, label=f"exact, {sides} p-values")
    if weights == 2.0:
        ax.plot(rho, 3.263 * rho + 0.710 * rho**2 + 0.027 * rho**3, color=REFERENCE_COLOR,
                ls="--", lw=1.2, label="Kost–McDermott polynomial")
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel("correlation of the test statistics ρ")
    ax.set_ylabel("covariance of the terms")
    ax.set_title(f"Dependence of chi-square({weights:g}) terms")
    ax.legend(fontsize="small")
    return ax


def type1_error_plot(table: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Rejection rate under the null hypothesis per combination method, with ±2 MC s.e.

    Parameters
    ----------
    table : DataFrame
        From :func:`precmp_lib.combine.combination_type1_error` (lines over ``correlation``) or
        :func:`precmp_lib.combine.swap_combination_type1_error` (one bar per method).
    alpha : float
        The nominal level, drawn as a reference line.
    """
    for col in ("method", "rejection_rate", "mc_se"):
        if col not in table.columns:
            raise ValueError(f"table needs a {col!r} column; columns are {list(table.columns)}")
    ax = _axes(ax, (5.4, 3.8))
    methods = list(dict.fromkeys(table["method"]))
    if "correlation" in table.columns:
        for k, m in enumerate(methods):
            sub = table[table["method"] == m].sort_values("correlation")
            x, r, se = sub["correlation"], sub["rejection_rate"], sub["mc_se"]
            ax.plot(x, r, marker="o", color=PALETTE[k], label=m)
            ax.fill_between(x, r - 2 * se, r + 2 * se, color=PALETTE[k], alpha=0.15, lw=0)
        ax.set_xlabel("correlation of the per-test statistics")
    else:
        r, se = table["rejection_rate"].to_numpy(), table["mc_se"].to_numpy()
        ax.bar(methods, r, yerr=2 * se, color=PALETTE[: len(methods)], capsize=4)
        ax.set_xlabel("combination method")
    ax.axhline(alpha, color=REFERENCE_COLOR, ls="--", lw=1, label=f"nominal α = {alpha}")
    ax.set_ylabel("type-I error (rejection rate)")
    ax.set_ylim(bottom=0)
    ax.set_title("Type-I error of the combined test")
    ax.legend(fontsize="small")
    return ax


def prevalence_curve_plot(
    curve: pd.DataFrame,
    *,
    sample_prevalence: float | None = None,
    prevalence: float | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Updated precision against population prevalence, one line and band per classifier.

    Parameters
    ----------
    curve : DataFrame
        From :meth:`precmp_lib.bayes.PrevalenceBootstrap.curve` (``model``, ``prevalence``,
        ``precision_updated``, ``ci_low``, ``ci_high``).
    sample_prevalence : float, optional
        The test set's prevalence of the class (where the updated precision equals the test-set
        precision), marked by a dotted line.
    prevalence : float, optional
        A population prevalence of interest, marked by a dashed line.
    """
    for col in ("model", "prevalence", "precision_updated", "ci_low", "ci_high"):
        if col not in curve.columns:
            raise ValueError(f"curve needs a {col!r} column; columns are {list(curve.columns)}")
    ax = _axes(ax, (5.4, 3.8))
    for k, (model, sub) in enumerate(curve.groupby("model", sort=False)):
        ax.plot(sub["prevalence"], sub["precision_updated"], color=PALETTE[k], lw=2, label=model)
        ax.fill_between(sub["prevalence"], sub["ci_low"], sub["ci_high"], color=PALETTE[k],
                        alpha=0.2, lw=0)
    if sample_prevalence is not None:
        ax.axvline(sample_prevalence, color=REFERENCE_COLOR, ls=":", lw=1.2,
                   label=f"test-set prevalence {sample_prevalence:.2f}")
    if prevalence is not None:
        ax.axvline(prevalence, color=SIGNIFICANT_COLOR, ls="--", lw=1.2,
                   label=f"population prevalence {prevalence:.2f}")
    label = curve["class"].iloc[0] if "class" in curve.columns and len(curve) else ""
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("population prevalence of the class")
    ax.set_ylabel("precision")
    ax.set_title(f"Precision moves with prevalence (class {label})")
    ax.legend(fontsize="small", loc="lower right")
    return ax


# --------------------------------------------------------------------------------------------
# cross-validation and replicability
# --------------------------------------------------------------------------------------------



# --------------------------------------------------------------------------------------------
# course map
# --------------------------------------------------------------------------------------------

# (what you have, what you compare, how many classifiers, the test, the notebook that shows it)
_COURSE_MAP = (
    ("one test set", "accuracy", "two", "McNemar (exact or mid-p)", "01_mcnemar_cochran"),
    ("one test set", "accuracy", "three or more",
     "Cochran's Q, then pairwise McNemar with Holm", "01_mcnemar_cochran"),
    ("one test set", "precision", "two",
     "GS, weighted GS and GW per class; relative precision; combined p-values over classes",
     "04_precision_gs_gw"),
    ("one test set", "precision", "three or more",
     "GEE logistic model: odds ratios against a reference classifier", "04_precision_gs_gw"),
    ("resampled scores", "accuracy", "two",
     "Nadeau–Bengio corrected t; 5x2cv F", "02_cv_ttests"),
    ("resampled scores", "accuracy", "three or more",
     "corrected t for each pair, Holm-adjusted", "02_cv_ttests"),
    ("resampled scores", "precision", "two or more",
     "GEE on stacked cross-validated predictions", "08_cross_validation"),
    ("many datasets", "any score", "two", "Wilcoxon signed-rank over datasets",
     "03_friedman_posthoc"),
    ("many datasets", "any score", "three or more",
     "Friedman (Iman–Davenport), then Nemenyi or Holm against a control", "03_friedman_posthoc"),
)
_COURSE_MAP_COLUMNS = ["data", "metric", "classifiers", "test", "notebook"]


def course_map_table() -> pd.DataFrame:
    """Which test answers which question, and the notebook that shows it.

    Returns
    -------
    DataFrame
        ``data`` (one test set, resampled scores or many datasets), ``metric`` (accuracy,
        precision or any score), ``classifiers`` (two, three or more), ``test`` and ``notebook``
        (file stem; the rendered report is ``<notebook>.html``), one row per leaf of
        :func:`course_map_chart`.

    Examples
    --------
    >>> t = course_map_table()
    >>> t.loc[(t["data"] == "one test set") & (t["classifiers"] == "two"), "test"].tolist()
    ['McNemar (exact or mid-p)', 'GS, weighted GS and GW per class; relative precision; combined p-values over classes']
    """
    return pd.DataFrame(list(_COURSE_MAP), columns=_COURSE_MAP_COLUMNS)


def course_map_chart(table: pd.DataFrame | None = None, *, ax: Axes | None = None) -> Axes:
    """Decision chart from left to right: what you have, what you compare, how many classifiers.

    Parameters
    ----------
    table : DataFrame, optional
        Rows of :func:`course_map_table` (default: all of them); the tree follows its row order.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One box (a patch with its text) per node: the root, the distinct ``data``, ``metric``
        and ``classifiers`` levels, and one leaf per row naming the test and the notebook number;
        one arrow per edge.

    Examples
    --------
    >>> ax = course_map_chart()
    >>> len(ax.patches)  # 1 root + 3 kinds of data + 5 metrics + 9 classifier counts + 9 tests
    27
    """
    table = course_map_table() if table is None else table
    missing = [c for c in _COURSE_MAP_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table needs columns {_COURSE_MAP_COLUMNS}; missing {missing}")
    if len(table) == 0:
        raise ValueError("table has no rows; expected rows of course_map_table()")
    n = len(table)
    ax = _axes(ax, (13.0, 0.55 * n + 1.0))
    # x centre and width of each level's boxes (root, data, metric, classifiers); leaves start at
    # x = 6.2 and are left-aligned.
    centres, widths, leaf_x, leaf_w = [0.55, 2.05, 3.55, 5.0], [1.1, 1.5, 1.1, 1.2], 6.2, 5.4
    fills = ["#EEEEEE", "#DCEBF5", "#FBEBD0", "#DDF0E8"]
    height = 0.62
    ax.set_xlim(-0.05, leaf_x + leaf_w + 0.05)
    ax.set_ylim(-0.6, n - 0.4)
    ax.axis("off")
    leaf_y = np.arange(n)[::-1].astype(float)

    def box(x0: float, y: float, w: float, label: str, fill: str, **text) -> None:
        ax.add_patch(FancyBboxPatch((x0, y - height / 2), w, height, facecolor=fill,
                                    edgecolor="#777777", lw=0.8,
                                    boxstyle="round,pad=0,rounding_size=0.08"))
        ax.text(x0 + (0.12 if text.get("ha") == "left" else w / 2), y, label,
                **{"ha": "center", "va": "center", **text})

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                    arrowprops=dict(arrowstyle="-|>", color=REFERENCE_COLOR, lw=0.8,
                                    shrinkA=0, shrinkB=0, mutation_scale=9))

    levels = ["data", "metric", "classifiers"]
    positions = {(): leaf_y.mean()}
    box(centres[0] - widths[0] / 2, positions[()], widths[0], "compare\nclassifiers", fills[0],
        fontweight="bold", fontsize="small")
    for depth in range(1, len(levels) + 1):
        keys = [tuple(r) for r in table[levels[:depth]].itertuples(index=False)]
        for key in dict.fromkeys(keys):
            y = float(leaf_y[[k == key for k in keys]].mean())
            positions[key] = y
            box(centres[depth] - widths[depth] / 2, y, widths[depth], str(key[-1]), fills[depth],
                fontsize="small")
            arrow(centres[depth - 1] + widths[depth - 1] / 2, positions[key[:-1]],
                  centres[depth] - widths[depth] / 2, y)
    for i, r in enumerate(table.itertuples(index=False)):
        label = textwrap.fill(f"{r.test}  [{str(r.notebook)[:2]}]", 78)
        box(leaf_x, float(leaf_y[i]), leaf_w, label, "#FFFFFF", ha="left", fontsize="x-small")
        arrow(centres[-1] + widths[-1] / 2, positions[(r.data, r.metric, r.classifiers)], leaf_x,
              float(leaf_y[i]))
    ax.set_title("Which test? Follow your case from left to right; [NN] is the notebook")
    return ax
