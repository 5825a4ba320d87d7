"""The figures of the data-set report: Demšar's critical-difference diagram, drawn from numbers.

:func:`draw_cd_diagram` draws the mean ranks, the critical difference and the groups a
post-hoc test does not separate, given those numbers (the page's
:class:`~precmp_lib.compare.datasets.DatasetComparison` holds them);
:func:`precmp_lib.course.plots.critical_difference_diagram` computes them from a score matrix
and draws with it, so the page and the course draw one diagram. :func:`cd_figure` makes the
page's figure (outside pyplot: no global state is touched), which is also written beside the
page as SVG and PDF.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text

from .html import BLUE, DARK_GREY

__all__ = ["CD_INK", "cd_figsize", "draw_cd_diagram"]

CD_INK = "#222222"


def cd_figsize(k: int, n_groups: int) -> tuple[float, float]:
    """Return the size in inches of a CD diagram of ``k`` models and ``n_groups`` bars.

    >>> cd_figsize(5, 2)
    (7.5, 2.5)
    """
    rows = (k + 1) // 2
    return 7.5, round(1.3 + 0.28 * rows + 0.18 * n_groups, 4)


def draw_cd_diagram(
    ranks: pd.Series,
    groups: Sequence[Sequence[str]],
    cd: float | None,
    cd_label: str = "",
    *,
    control: str | None = None,
    best: str = "left",
    ax: Axes | None = None,
    title: str | None = None,
    clique_ink: str = CD_INK,
) -> Axes:
    """Draw Demšar's critical-difference diagram from mean ranks, groups and the CD.

    Parameters
    ----------
    ranks : Series
        Mean rank of each model (1 = best), indexed by name.
    groups : sequence of sequences of str
        The groups of models not shown to differ, each drawn as one thick bar.
    cd : float or None
        The critical difference, drawn as a bar from rank 1 (None: no bar).
    cd_label : str
        The text under the CD bar.
    control : str, optional
        A control model: its name in bold, and a band of ± CD around its rank.
    best : {"left", "right"}
        Side of rank 1.
    ax : Axes, optional
        Where to draw; a new figure (outside pyplot) otherwise.
    title : str, optional
    clique_ink : str
        Colour of the group bars.

    Returns
    -------
    Axes
        Artists carry ``gid`` labels: ``"cd-axis"``, ``"cd-tick"``, ``"cd-bar"``,
        ``"cd-bar-label"``, ``"cd-clique"``, ``"cd-elbow"``, ``"cd-label"``, ``"cd-rank"``,
        ``"cd-control-band"``.

    Examples
    --------
    >>> r = pd.Series({"rf": 1.9, "knn": 2.4, "lr": 2.6, "nb": 3.9, "tree": 4.2})
    >>> ax = draw_cd_diagram(r, [["rf", "knn", "lr"], ["nb", "tree"]], 1.364, "CD = 1.364")
    >>> sum(line.get_gid() == "cd-clique" for line in ax.lines)
    2
    """
    ctrl = control
    groups = [tuple(g) for g in groups]
    names = [str(i) for i in ranks.index]
    values = ranks.to_numpy(dtype=float)
    k = len(names)
    order = np.argsort(values, kind="stable")
    n_best = (k + 1) // 2
    best_side, worst_side = order[:n_best], order[n_best:][::-1]
    rows = max(len(best_side), len(worst_side))

    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=cd_figsize(k, len(groups)), layout="constrained").subplots()
    ax.set_axis_off()

    # classifier labels first: their rendered width sets the room beside the rank axis
    labels = [
        ax.text(0, 0, name, va="center", color=CD_INK, gid="cd-label", clip_on=False,
                fontweight="bold" if name == ctrl else "normal")
        for name in names
    ]
    width_in = max(_figure_width_inches(ax) * ax.get_position().width, 1.0)
    frac = min(_longest_text_inches(ax, labels) / width_in, 0.4)  # as a fraction of the axes
    reach = 0.25 + 0.05 * (k - 1)  # how far the elbows run past the ends of the axis
    gap = 0.03 + 0.01 * (k - 1)
    # margin m holds reach + gap + the label: m = reach + gap + frac * (k - 1 + 2m)
    margin = (reach + gap + frac * (k - 1)) / (1 - 2 * frac) * 1.05

    y_axis = 0.0
    _cd_rank_axis(ax, k, y_axis)
    y_cd = y_axis - 0.75
    if cd is not None:
        _cd_bar(ax, cd, y_cd, cd_label)
        if ctrl is not None:
            rc = float(ranks[ctrl])
            ax.fill_between([max(1.0, rc - cd), min(float(k), rc + cd)], y_axis - 0.05,
                            y_axis + 0.05, color=BLUE, alpha=0.25, lw=0,
                            gid="cd-control-band")

    y_group0, group_step = y_axis + 0.25, 0.18
    _cd_cliques(ax, [tuple(g) for g in groups], ranks, y_group0, group_step, clique_ink)

    # classifiers: elbow from the rank down to a row, then out to the side
    y_row0 = y_group0 + max(len(groups), 1) * group_step + 0.2
    row_step = 0.28
    best_left = best == "left"
    for side, members in ((0, best_side), (1, worst_side)):
        end = 1 - reach if side == 0 else k + reach
        ys = y_row0 + np.arange(len(members)) * row_step
        _cd_elbows(ax, [labels[j] for j in members], values[members], ys, end,
                   end - gap if side == 0 else end + gap,
                   "right" if (side == 0) == best_left else "left")

    ax.set_xlim(1 - margin, k + margin)
    if not best_left:
        ax.invert_xaxis()
    y_bottom = y_row0 + (rows - 1) * row_step + 0.25
    ax.set_ylim(y_bottom, y_cd - 0.45 if cd is not None else y_axis - 0.55)
    if title:
        ax.set_title(title)
    return ax




def _figure_width_inches(ax: Axes) -> float:
    """Width in inches of the figure, or of the subfigure, that holds ``ax``."""
    fig = ax.figure
    if isinstance(fig, Figure):
        return float(fig.get_figwidth())
    return float(fig.bbox.width / fig.dpi)


def _longest_text_inches(ax: Axes, texts: list[Text]) -> float:
    """Measure the widest text in inches; estimate it when the canvas cannot render."""
    fig = ax.figure
    get_renderer = getattr(fig.canvas, "get_renderer", None)  # Agg and the canvases built on it
    if get_renderer is not None:
        try:
            renderer = get_renderer()
            return max(t.get_window_extent(renderer).width for t in texts) / fig.dpi
        except (AttributeError, RuntimeError):
            pass
    # a canvas without a renderer: estimate
    return max(len(t.get_text()) for t in texts) * 0.6 * plt.rcParams["font.size"] / 72


def _cd_rank_axis(ax: Axes, k: int, y_axis: float) -> None:
    """Draw the rank axis from 1 to k with ticks at integers and half-integers, labels above."""
    ax.plot([1, k], [y_axis, y_axis], color=CD_INK, lw=1.2, gid="cd-axis",
            solid_capstyle="butt")
    for t in np.arange(1, k + 0.01, 0.5):
        major = float(t).is_integer()
        ax.plot([t, t], [y_axis, y_axis - (0.12 if major else 0.06)], color=CD_INK, lw=1.0,
                gid="cd-tick-mark")
        if major:
            ax.text(t, y_axis - 0.18, f"{int(t)}", ha="center", va="bottom", color=CD_INK,
                    fontsize="small", gid="cd-tick", clip_on=False)


def _cd_bar(ax: Axes, cd: float, y: float, label: str) -> None:
    """Draw the critical-difference bar from rank 1 to 1 + ``cd``, with caps and a label."""
    ax.plot([1, 1 + cd], [y, y], color=CD_INK, lw=1.6, gid="cd-bar", solid_capstyle="butt")
    for end in (1, 1 + cd):
        ax.plot([end, end], [y - 0.06, y + 0.06], color=CD_INK, lw=1.2, gid="cd-bar-cap")
    ax.text(1 + cd / 2, y - 0.1, label, ha="center", va="bottom", fontsize="small",
            color=CD_INK, gid="cd-bar-label", clip_on=False)


def _cd_cliques(ax: Axes, groups: list[tuple[str, ...]], ranks: pd.Series, y0: float,
                step: float, color: str) -> None:
    """Draw one thick bar per group that the post-hoc does not separate, each a row lower."""
    for g, members in enumerate(groups):
        lo = min(float(ranks[m]) for m in members)
        hi = max(float(ranks[m]) for m in members)
        y = y0 + g * step
        ax.plot([lo - 0.04, hi + 0.04], [y, y], color=color, lw=4, solid_capstyle="round",
                gid="cd-clique")


def _cd_elbows(ax: Axes, labels: list[Text], ranks: np.ndarray, ys: np.ndarray, end: float,
               label_x: float, align: Literal["left", "right"]) -> None:
    """Hang classifiers from their ranks: an elbow down to row ``y``, out to ``end``.

    Each label moves to ``(label_x, y)`` with horizontal alignment ``align``; the average rank
    is printed on the horizontal part of the elbow.
    """
    for label, r, y in zip(labels, ranks, ys):
        ax.plot([r, r, end], [0.0, y, y], color=CD_INK, lw=0.9, gid="cd-elbow")
        label.set_position((label_x, y))
        label.set_horizontalalignment(align)
        ax.text((r + end) / 2, y - 0.03, f"{r:.2f}", ha="center", va="bottom",
                fontsize="x-small", color=DARK_GREY, gid="cd-rank", clip_on=False)
