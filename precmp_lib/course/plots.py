"""The notebooks' plots, in one style: each function draws on an Axes (new or given) and returns it.

Sections follow the library's topics: contingency (McNemar), precision (forest plot, power),
ranks (critical-difference diagram), combining p-values, Bayes update, replicability. The
colours are the package's one palette (:mod:`precmp_lib.report.html`); the report pages draw
their own figures (:mod:`precmp_lib.report.prediction_figures`) and never load this module.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm

from ..report.dataset_figures import CD_INK as _CD_INK
from ..report.dataset_figures import cd_figsize, draw_cd_diagram
from ..report.html import BLUE, DARK_GREY, PALETTE, VERMILLION

__all__ = [
    "clustering_plot",
    "critical_difference_diagram",
    "forest_plot",
    "mcnemar_deviation_heatmap",
    "power_plot",
    "replicability_curve",
    "replicability_heatmap",
    "resampling_type1_plot",
    "set_style",
]


def set_style(context: str = "notebook") -> None:
    """Apply the precmp look: white grid, the Okabe–Ito palette, readable fonts.

    Parameters
    ----------
    context : str
        Seaborn's plotting context (``"paper"``, ``"notebook"``, ``"talk"`` or ``"poster"``),
        which scales fonts and lines.
    """
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
        From :func:`precmp_lib.stats.contingency.mcnemar_pvalue_grid`.
    variant, reference : str
        Columns of ``grid``; the colour is ``variant - reference`` (red: the variant is more
        conservative, blue: it rejects more easily).
    ax : Axes, optional
        Where to draw (a new figure when omitted).
    annotate_alpha : float or None
        Outline the cells where the two disagree about rejection at this level.

    Returns
    -------
    Axes
        One image of ``variant - reference`` (b across, c up) with a colour bar; with
        ``annotate_alpha``, one scatter collection of outlined cells (and a legend when any
        cell is outlined).
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
        if len(xs):  # under the x label, clear of the title and of a neighbour's colour bar
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), fontsize="small", frameon=False)
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
        One row per item, e.g. :func:`precmp_lib.stats.precision.compare_precision` (relative
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
    colours = np.where(excludes, VERMILLION, BLUE)
    ax.axvline(reference, color=DARK_GREY, linestyle="--", linewidth=1, zorder=1)
    ax.hlines(y[ok], lo[ok], hi[ok], colors=colours[ok], linewidth=2, zorder=2)
    ax.scatter(est[ok], y[ok], c=colours[ok], marker="s", s=36, zorder=3)
    for yi in y[~ok]:
        ax.text(reference, yi, "n/a", ha="center", va="center", color=DARK_GREY,
                fontsize="small")
    if log_scale:
        ax.set_xscale("log")
        plain = mticker.FuncFormatter(lambda v, _: f"{v:.3g}")
        ax.xaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_minor_locator(mticker.LogLocator(base=10, subs=[float(m) for m in range(1, 10)]))
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(mticker.FuncFormatter(
            lambda v, _: f"{v:.2g}" if np.log10(ax.get_xlim()[1] / ax.get_xlim()[0]) < 0.6 else ""))
    ax.set_yticks(y, names)
    ax.set_ylim(-0.7, len(table) - 0.3)
    default_labels = {"rp": "relative precision (A / B)", "odds_ratio": "odds ratio"}
    ax.set_xlabel(xlabel or default_labels.get(estimate, estimate))
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
        From :func:`precmp_lib.course.simulate.power_curve`.
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
    >>> from precmp_lib.course.simulate import power_curve
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
        ax.axhline(alpha, color=DARK_GREY, linestyle=":", linewidth=1,
                   label=f"α = {alpha:g}")
    rho = curve["correlation"].iloc[0]
    ax.set_xlabel("difference in precision, A − B")
    ax.set_ylabel("rejection rate")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"latent correlation {rho:g}")
    ax.legend(loc="upper left", fontsize="small", frameon=True)
    return ax



# --------------------------------------------------------------------------------------------
# resampling (type-I error of the resampled-score tests)
# --------------------------------------------------------------------------------------------


def resampling_type1_plot(
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
        :attr:`precmp_lib.course.type1.Type1ErrorSimulation.rates` (columns ``test``,
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
            for mask, color, label in ((over, VERMILLION, "rejects more often than α"),
                                       (~over, BLUE, "consistent with α or below")):
                if mask.any():
                    ax.errorbar(x[mask], y[mask], xerr=err[:, mask], fmt="o", color=color,
                                capsize=3, label=label)
        else:
            ax.errorbar(x, y, xerr=err, fmt="o", color=PALETTE[k % len(PALETTE)], capsize=3,
                        label=str(name))
    ax.axvline(alpha, color=DARK_GREY, linestyle="--", linewidth=1, label=f"α = {alpha:g}")
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

_CD_ALL_PAIRS = ("nemenyi", "holm", "shaffer", "bonferroni")
_CD_CONTROL = ("bonferroni_dunn", "holm", "hochberg")
_CD_POSTHOC_NAMES = {
    "nemenyi": "Nemenyi", "holm": "Holm", "shaffer": "Shaffer", "bonferroni": "Bonferroni",
    "bonferroni_dunn": "Bonferroni–Dunn", "hochberg": "Hochberg",
}


def _cd_groups(
    scores: pd.DataFrame | pd.Series | np.ndarray, posthoc: str, alpha: float,
    control: str | int | None, higher_is_better: bool, n_datasets: int | None,
) -> tuple[pd.Series, list[tuple[str, ...]], float | None, str | None]:
    """Find the average ranks, the groups to join, the critical difference and the control.

    The critical difference is None for post-hocs that have none, the control None for
    all-pairs post-hocs.
    """
    from .._lib.checks import check_choice
    from ..stats.posthoc import (
        critical_difference,
        pairwise_rank_tests,
        rank_cliques,
        tests_against_control,
    )
    from ..stats.ranks import rank_data

    use_control = control is not None or posthoc == "bonferroni_dunn"
    check_choice(posthoc, "posthoc", _CD_CONTROL if use_control else _CD_ALL_PAIRS)
    data = rank_data(scores, n_datasets=n_datasets, higher_is_better=higher_is_better)
    ranks, names = data.ranks, data.names
    if use_control:
        tab = tests_against_control(scores, control, method=posthoc, alpha=alpha,
                                    higher_is_better=higher_is_better, n_datasets=n_datasets)
        ctrl = str(tab["control"].iloc[0])
        keep = {ctrl, *tab.loc[~tab["reject"], "model"].astype(str)}
        group = tuple(names[j] for j in np.argsort(ranks.to_numpy(), kind="stable")
                      if names[j] in keep)
        cd = None
        if posthoc == "bonferroni_dunn":
            cd = critical_difference(data.k, data.n, alpha=alpha, method="bonferroni_dunn")
        return ranks, [group] if len(group) > 1 else [], cd, ctrl
    tab = pairwise_rank_tests(scores, method=posthoc, alpha=alpha,
                              higher_is_better=higher_is_better, n_datasets=n_datasets)
    sig = pd.DataFrame(False, index=names, columns=names)
    for a, b in tab.loc[tab["reject"], ["model_a", "model_b"]].itertuples(index=False):
        sig.loc[a, b] = sig.loc[b, a] = True
    cd = critical_difference(data.k, data.n, alpha=alpha) if posthoc == "nemenyi" else None
    return ranks, rank_cliques(ranks, sig), cd, None


def critical_difference_diagram(
    scores: pd.DataFrame | pd.Series | np.ndarray,
    *,
    posthoc: str = "nemenyi",
    alpha: float = 0.05,
    control: str | int | None = None,
    higher_is_better: bool = True,
    n_datasets: int | None = None,
    best: str = "left",
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Demšar's critical-difference diagram: average ranks, the CD, and groups that do not differ.

    Parameters
    ----------
    scores : array-like or DataFrame of shape (N, k), or Series of k average ranks
        One row per data set, one column per classifier (names from the columns), or published
        average ranks with ``n_datasets``.
    posthoc : str
        Without a control: ``"nemenyi"`` (default), ``"holm"``, ``"shaffer"`` or
        ``"bonferroni"`` over all pairs (:func:`precmp_lib.stats.posthoc.pairwise_rank_tests`).
        Against a control: ``"bonferroni_dunn"``, ``"holm"`` or ``"hochberg"``
        (:func:`precmp_lib.stats.posthoc.tests_against_control`).
    alpha : float
        Family-wise level of the post-hoc test (for the bars and the CD).
    control : str, int or None
        A control classifier switches to comparisons against it; ``posthoc="bonferroni_dunn"``
        without a control uses the best-ranked classifier.
    higher_is_better : bool
        Direction of the score.
    n_datasets : int, optional
        Number of data sets behind average-rank input.
    best : {"left", "right"}
        Side of rank 1. Left reads like the rank axis 1, 2, ..., k; Demšar (2006, Figure 1)
        puts the best on the right.
    ax : Axes, optional
        Axes to draw on (its axis frame is switched off); a new figure otherwise.
    title : str, optional
        Axes title.

    Returns
    -------
    Axes
        Artists carry ``gid`` labels for inspection: ``"cd-axis"``, ``"cd-tick"`` (tick
        labels), ``"cd-bar"`` (length = the critical difference in rank units, drawn only for
        Nemenyi and Bonferroni–Dunn, which have one), ``"cd-bar-label"``, ``"cd-clique"`` (one
        thick line per group), ``"cd-elbow"``, ``"cd-label"`` (one per classifier),
        ``"cd-rank"`` (the average rank printed at each label) and ``"cd-control-band"``
        (control ± CD for Bonferroni–Dunn).

    Notes
    -----
    Each classifier hangs from its average rank by an elbow line to its name; the better half
    is labelled on the best side. A thick bar joins classifiers that the post-hoc test does not
    separate: all-pairs post-hocs give the maximal runs in rank order with no significant pair
    inside (:func:`precmp_lib.stats.posthoc.rank_cliques`); a control post-hoc gives one bar joining
    the control (bold) with every classifier not significantly different from it. A classifier
    under two bars belongs to neither group for sure (Demšar 2006, §3.2.4).

    References
    ----------
    Demšar (2006), JMLR 7:1-30, §3.2.4 and Figure 1.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})
    >>> ax = critical_difference_diagram(r, n_datasets=14, alpha=0.10)
    >>> sum(line.get_gid() == "cd-clique" for line in ax.lines)
    2
    >>> plt.close(ax.figure)

    Demšar's Figure 1(a): two overlapping groups, with C4.5+cf in both.
    """
    from .._lib.checks import check_choice

    check_choice(best, "best", ("left", "right"))
    ranks, groups, cd, ctrl = _cd_groups(scores, posthoc, alpha, control, higher_is_better,
                                         n_datasets)
    clique_ink = VERMILLION if ctrl else _CD_INK
    label = (f"CD = {cd:.3f} ({_CD_POSTHOC_NAMES[posthoc]}, α = {alpha:g})"
             if cd is not None else "")
    return draw_cd_diagram(ranks, groups, cd, label, control=ctrl, best=best,
                           ax=_axes(ax, cd_figsize(len(ranks), len(groups))), title=title,
                           clique_ink=clique_ink)


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
        detail of :func:`precmp_lib.stats.combine.combined_precision_test`.
    pvalues : array of shape (L,), optional
        The observed p-values, marked as a point.
    classes : list, optional
        Names of the L tests (default their positions).
    pair : pair of int
        Which two tests to plot.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One scatter collection of the resamples whose two terms are finite, a second (a star)
        for the observed p-values when given, and a title with the sample correlation.

    Notes
    -----
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
    ax.scatter(x[ok], y[ok], s=8, alpha=0.35, color=BLUE, linewidths=0,
               label=f"{int(ok.sum())} null resamples")
    if pvalues is not None:
        p = np.asarray(pvalues, dtype=float)
        ax.scatter([-2 * np.log(p[i])], [-2 * np.log(p[j])], s=70, marker="*",
                   color=VERMILLION, zorder=3, label="observed")
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
        From :func:`precmp_lib.stats.combine.combined_precision_table` (columns ``dataset`` and
        ``<method>_pvalue``).
    methods : list of str, optional
        Which methods to show (default every ``*_pvalue`` column except ``gs_pvalue``).
    alpha : float
        Level drawn as a reference line.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One scatter collection per method (a row per data set, methods side by side) and a
        dashed line at ``-log10(alpha)``.

    Notes
    -----
    A p-value of exactly 0 (floating-point underflow) is drawn at the smallest normal float,
    about 308 on this scale.
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
    ax.axvline(-np.log10(alpha), color=DARK_GREY, lw=1, ls="--", label=f"α = {alpha}")
    ax.set_yticks(ypos, per.index)
    ax.invert_yaxis()
    ax.set_xlabel("combined p-value (-log10)")
    ax.set_title("Global test of equal per-class precision")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    return ax


def covariance_curves_plot(*, weights: float = 2.0, ax: Axes | None = None) -> Axes:
    """Plot the covariance of two Lancaster terms against the correlation of the statistics.

    Draws the exact covariance for two-sided and for one-sided p-values
    (:func:`precmp_lib.stats.combine.lancaster_covariance`) and, for Fisher terms (``weights=2``),
    the one-sided Kost–McDermott polynomial: the polynomial only fits one-sided p-values.

    Parameters
    ----------
    weights : float
        Lancaster weight (chi-square degrees of freedom) of both terms; 2 is Fisher's
        ``-2 ln p``.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        Two lines (exact covariance, two-sided and one-sided p-values), a third for the
        polynomial when ``weights`` is 2, and a horizontal line at 0.
    """
    from ..stats.combine import lancaster_covariance

    rho = np.linspace(-1, 1, 201)
    ax = _axes(ax, (5.2, 3.8))
    for k, sides in enumerate(("two-sided", "one-sided")):
        ax.plot(rho, lancaster_covariance(rho, weights=(weights, weights), sides=sides),
                color=PALETTE[k], lw=2, label=f"exact, {sides} p-values")
    if weights == 2.0:
        ax.plot(rho, 3.263 * rho + 0.710 * rho**2 + 0.027 * rho**3, color=DARK_GREY,
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
        From :func:`precmp_lib.course.type1.combination_type1_error` (lines over ``correlation``) or
        :func:`precmp_lib.course.type1.swap_combination_type1_error` (one bar per method).
    alpha : float
        The nominal level, drawn as a reference line.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        With a ``correlation`` column, one line and a ±2 MC s.e. band per method; otherwise one
        bar per method with ±2 MC s.e. error bars. A dashed line at ``alpha``.
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
    ax.axhline(alpha, color=DARK_GREY, ls="--", lw=1, label=f"nominal α = {alpha}")
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
    """Plot updated precision against population prevalence, a line and band per classifier.

    Parameters
    ----------
    curve : DataFrame
        From :meth:`precmp_lib.stats.prevalence.PrevalenceBootstrap.curve` (``model``, ``prevalence``,
        ``precision_updated``, ``ci_low``, ``ci_high``).
    sample_prevalence : float, optional
        The test set's prevalence of the class (where the updated precision equals the test-set
        precision), marked by a dotted line.
    prevalence : float, optional
        A population prevalence of interest, marked by a dashed line.
    ax : Axes, optional
        Where to draw (a new figure when omitted).

    Returns
    -------
    Axes
        One line and one confidence band per model, and the vertical lines asked for.
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
        ax.axvline(sample_prevalence, color=DARK_GREY, ls=":", lw=1.2,
                   label=f"test-set prevalence {sample_prevalence:.2f}")
    if prevalence is not None:
        ax.axvline(prevalence, color=VERMILLION, ls="--", lw=1.2,
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


def replicability_heatmap(
    table: pd.DataFrame,
    *,
    value: str = "replicability",
    annotate: bool = True,
    ax: Axes | None = None,
) -> Axes:
    """Heat map of replicability over sample size (rows) and test-set proportion (columns).

    Parameters
    ----------
    table : DataFrame
        From :func:`precmp_lib.fitting.replicability.replicability_experiment`: columns
        ``sample_fraction``, ``test_fraction``, ``value`` and ``rejection_rate``.
    value : str
        The column shown in colour: ``"replicability"`` (R(e), default),
        ``"replicability_p"`` (R(p)) or ``"rejection_rate"``.
    annotate : bool
        Write the value and the rejection rate in every cell: R(e) = 1 can mean "always
        rejects" or "never rejects", and only the rejection rate tells which.

    Returns
    -------
    Axes
        One image (rows: sample fractions, largest at the top; columns: test fractions,
        largest at the left), a colour bar, and one text per annotated cell.
    """
    needed = ["sample_fraction", "test_fraction", value, "rejection_rate"]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(f"table has no column(s) {missing}; columns are {list(table.columns)}")
    if len(table) == 0:
        raise ValueError("table must have at least one row")
    grid = table.pivot(index="sample_fraction", columns="test_fraction", values=value)
    grid = grid.sort_index(ascending=False).sort_index(axis=1, ascending=False)
    rate = table.pivot(index="sample_fraction", columns="test_fraction", values="rejection_rate")
    rate = rate.reindex(index=grid.index, columns=grid.columns)
    ax = _axes(ax, (1.8 + 1.05 * grid.shape[1], 1.4 + 0.75 * grid.shape[0]))
    low = 0.0 if value == "rejection_rate" else 0.4
    cmap = plt.get_cmap("viridis").with_extremes(bad="#DDDDDD")
    im = ax.imshow(np.ma.masked_invalid(grid.to_numpy(dtype=float)), cmap=cmap, vmin=low, vmax=1,
                   aspect="auto", interpolation="nearest")
    ax.grid(False)
    labels = {"replicability": "R(e)", "replicability_p": "R(p)", "rejection_rate": "rejection rate"}
    ax.figure.colorbar(im, ax=ax, label=labels.get(value, value))
    ax.set_xticks(range(grid.shape[1]), [f"{t:.0%}" for t in grid.columns])
    ax.set_yticks(range(grid.shape[0]), [f"{f:.0%}" for f in grid.index])
    ax.set_xlabel("test-set proportion")
    ax.set_ylabel("share of the sample used")
    if annotate:
        for (i, j), v in np.ndenumerate(grid.to_numpy(dtype=float)):
            r = rate.to_numpy(dtype=float)[i, j]
            text = "n/a" if np.isnan(v) else f"{v:.2f}\n{r:.0%} rej."
            ax.text(j, i, text, ha="center", va="center", fontsize="small",
                    color="black" if np.isnan(v) or v > 0.75 else "white")
    ax.set_title(f"{labels.get(value, value)} by sample size and test-set proportion")
    return ax


def replicability_curve(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """R(e) of each cell of a replicability experiment against its rejection rate.

    With r the rejection rate of n valid repetitions, ``R(e) = 1 - 2 r (1 - r) n / (n - 1)``:
    the grey curve (drawn for the largest ``n_valid``). Every cell lies on it, so R(e) says
    nothing the rejection rate does not; it is lowest where the test rejects half the time.

    Parameters
    ----------
    table : DataFrame
        From :func:`precmp_lib.fitting.replicability.replicability_experiment`.

    Returns
    -------
    Axes
        One line (the curve) and one scatter collection (the cells, coloured by sample share).
    """
    needed = ["sample_fraction", "rejection_rate", "replicability", "n_valid"]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(f"table has no column(s) {missing}; columns are {list(table.columns)}")
    n = int(table["n_valid"].max())
    if n < 2:
        raise ValueError("table has no cell with at least 2 valid repetitions")
    ax = _axes(ax, (5.8, 4.0))
    r = np.linspace(0, 1, 201)
    ax.plot(r, 1 - 2 * r * (1 - r) * n / (n - 1), color=DARK_GREY, lw=1.2,
            label=f"1 − 2r(1 − r)·n/(n − 1), n = {n}")
    points = ax.scatter(table["rejection_rate"], table["replicability"], c=table["sample_fraction"],
                        cmap="viridis", zorder=3, edgecolors="black", linewidths=0.4)
    ax.figure.colorbar(points, ax=ax, label="share of the sample used")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(min(0.4, float(np.nanmin(table["replicability"])) - 0.02), 1.02)
    ax.set_xlabel("rejection rate")
    ax.set_ylabel("R(e)")
    ax.legend(loc="upper center", fontsize="small", frameon=False)
    ax.set_title("R(e) is a function of the rejection rate")
    return ax


_CLUSTER_LABELS = {"id": "id (right)", "id_repeat": "(id, repeat)", "none": "none"}


def clustering_plot(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Joint Wald statistic per class under each choice of GEE cluster, as grouped bars.

    Parameters
    ----------
    table : DataFrame
        From :func:`precmp_lib.compare.crossval.clustering_comparison`: columns ``class``,
        ``cluster``, ``statistic``, ``inflation``.

    Returns
    -------
    Axes
        One bar per (class, cluster), grouped by class, each wrong choice labelled with its
        inflation factor ("×7.3") over the statistic clustered on ``id``.
    """
    needed = ["class", "cluster", "statistic", "inflation"]
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(f"table has no column(s) {missing}; columns are {list(table.columns)}")
    if len(table) == 0:
        raise ValueError("table must have at least one row")
    classes = list(dict.fromkeys(table["class"]))
    clusters = list(dict.fromkeys(table["cluster"]))
    ax = _axes(ax, (1.8 + 1.6 * len(classes), 3.6))
    width = 0.8 / len(clusters)
    for j, cluster in enumerate(clusters):
        rows = table[table["cluster"] == cluster].set_index("class").reindex(classes)
        x = np.arange(len(classes)) + (j - (len(clusters) - 1) / 2) * width
        bars = ax.bar(x, rows["statistic"], width, color=PALETTE[j % len(PALETTE)],
                      label=_CLUSTER_LABELS.get(cluster, str(cluster)))
        if cluster != "id":
            ax.bar_label(bars, [f"×{v:.1f}" for v in rows["inflation"]], fontsize="small", padding=2)
    ax.set_xticks(range(len(classes)), [str(c) for c in classes])
    ax.set_xlabel("class")
    ax.set_ylabel("joint Wald statistic")
    ax.legend(title="cluster", fontsize="small", frameon=False)
    ax.set_title("The same predictions under three choices of cluster")
    return ax


# --------------------------------------------------------------------------------------------
# Bayesian comparison (posterior of the correlated t-test, simplex of the sign tests)
# --------------------------------------------------------------------------------------------


__all__ += ["bayesian_posterior_plot", "bayesian_simplex_plot"]

_ROPE_COLOR = "#BBBBBB"


def bayesian_posterior_plot(
    result,
    *,
    names: tuple[str, str] = ("A", "B"),
    ax: Axes | None = None,
) -> Axes:
    """Posterior density of the mean score difference (A minus B), with the ROPE shaded.

    Parameters
    ----------
    result : BayesianComparison
        A result with a Student ``posterior`` (:func:`precmp_lib.bayes_correlated_ttest`).
    names : pair of str
        Names of classifiers A and B, for the labels.
    ax : Axes, optional
        Where to draw.

    Returns
    -------
    Axes
        The density curve (one line), one filled area per region with positive width (A better
        right of ``rope``, B better left of ``-rope``, the ROPE between, grey), a dashed line at
        0, and a legend giving each region's posterior probability. A point-mass posterior
        (every fold the same difference) is drawn as one vertical line.
    """
    post = getattr(result, "posterior", None)
    if post is None:
        raise ValueError("result must carry a Student posterior (from bayes_correlated_ttest); "
                         f"got {type(result).__name__} without one")
    a, b = names
    rope = float(result.rope)
    ax = _axes(ax, (8.4, 3.6))
    labels = {"a": f"{a} better: {result.p_a_better:.3f}", "b": f"{b} better: "
              f"{result.p_b_better:.3f}", "rope": f"practically equivalent: {result.p_rope:.3f}"}
    if post.scale == 0:
        ax.axvline(post.loc, color=BLUE, lw=2, label="all posterior mass")
        span = max(abs(post.loc), rope, 1e-3) * 1.5
        ax.set_xlim(-span, span)
    else:
        lo, hi = post.interval(0.998)
        lo, hi = min(lo, -1.1 * rope), max(hi, 1.1 * rope)
        xs = np.linspace(lo, hi, 400)
        ys = post.pdf(xs)
        ax.plot(xs, ys, color="#333333", lw=1.5)
        regions = [("b", xs <= -rope, PALETTE[1]), ("a", xs >= rope, PALETTE[0])]
        if rope > 0:
            regions.insert(1, ("rope", (xs >= -rope) & (xs <= rope), _ROPE_COLOR))
        for key, mask, color in regions:
            if mask.sum() > 1:
                ax.fill_between(xs[mask], ys[mask], color=color, alpha=0.6, lw=0,
                                label=labels[key])
        ax.set_ylim(bottom=0)
    if rope > 0 and post.scale == 0:
        ax.axvspan(-rope, rope, color=_ROPE_COLOR, alpha=0.5, lw=0, label=labels["rope"])
    ax.axvline(0, color=DARK_GREY, ls="--", lw=0.8)
    ax.set_xlabel(f"mean score difference, {a} minus {b}")
    ax.set_ylabel("posterior density")
    rope_text = f"ROPE ±{rope:g}" if rope > 0 else "no ROPE"
    ax.set_title(f"Posterior of the mean difference ({rope_text})")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small", frameon=False,
              title="posterior probability", title_fontsize="small")
    return ax


def _simplex_xy(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Barycentric (a_better, rope, b_better) to the plane: A at (0, 0), B at (1, 0), rope on top."""
    theta = np.atleast_2d(theta)
    x = theta[:, 2] + 0.5 * theta[:, 1]
    y = theta[:, 1] * np.sqrt(3) / 2
    return x, y


def bayesian_simplex_plot(
    result,
    *,
    names: tuple[str, str] = ("A", "B"),
    max_points: int = 5000,
    ax: Axes | None = None,
) -> Axes:
    """Posterior draws of (A better, practically equivalent, B better) in a triangle.

    Parameters
    ----------
    result : BayesianComparison
        A result with a Monte Carlo ``sample`` (:func:`precmp_lib.bayes_sign_test`,
        :func:`precmp_lib.bayes_signed_rank_test`).
    names : pair of str
        Names of classifiers A and B, for the corner labels.
    max_points : int
        At most this many draws are drawn (evenly thinned).
    ax : Axes, optional
        Where to draw.

    Returns
    -------
    Axes
        The triangle (one line) with corners "A better" (bottom left), "B better" (bottom right)
        and "rope" (top); three lines from the centre to the edge midpoints bounding the areas
        where each region is the most probable; the draws as one scatter collection; one text
        per corner with its posterior probability. A draw near a corner gives that region
        most of the probability; without a ROPE all draws lie on the bottom edge.
    """
    sample = getattr(result, "sample", None)
    if sample is None:
        raise ValueError("result must carry a posterior sample (from bayes_sign_test or "
                         f"bayes_signed_rank_test); got {type(result).__name__} without one")
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 1:
        raise ValueError(f"max_points must be an integer >= 1; got {max_points!r}")
    a, b = names
    step = max(1, int(np.ceil(len(sample) / max_points)))
    x, y = _simplex_xy(sample[::step])
    ax = _axes(ax, (5.2, 4.8))
    h = np.sqrt(3) / 2
    ax.plot([0, 1, 0.5, 0], [0, 0, h, 0], color="#333333", lw=1.2)
    cx, cy = 0.5, h / 3
    for mx, my in [(0.5, 0.0), (0.25, h / 2), (0.75, h / 2)]:
        ax.plot([cx, mx], [cy, my], color=DARK_GREY, lw=0.8, ls="--")
    ax.scatter(x, y, s=4, alpha=0.25, color=BLUE, linewidths=0, rasterized=True)
    ax.text(0, -0.05, f"{a} better\n{result.p_a_better:.3f}", ha="center", va="top")
    ax.text(1, -0.05, f"{b} better\n{result.p_b_better:.3f}", ha="center", va="top")
    ax.text(0.5, h + 0.03, f"practically equivalent\n{result.p_rope:.3f}", ha="center",
            va="bottom")
    ax.set_xlim(-0.15, 1.15)
    ax.set_ylim(-0.2, h + 0.18)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"{result.method}: posterior draws (rope = {result.rope:g})")
    return ax
