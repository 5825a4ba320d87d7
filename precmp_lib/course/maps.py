"""The course map: which test answers which question, and the notebook that shows it.

Notebook 00 opens the course with this table and its decision chart; the test chooser in
:mod:`precmp_lib.course.widgets` filters the same table.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import FancyBboxPatch

from ..report.html import DARK_GREY

__all__ = ["course_map_chart", "course_map_table"]


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


# (what you have, what you compare, how many classifiers, the test, the notebook that shows it;
# on evaluation items, equivalence and power are notebook 14's, as in precmp_lib.course.widgets.course)
_COURSE_MAP = (
    ("one test set", "accuracy", "one vs a reference",
     "exact binomial test with a Clopper–Pearson interval", "01_mcnemar_cochran"),
    ("one test set", "accuracy", "two", "McNemar (exact or mid-p)", "01_mcnemar_cochran"),
    ("one test set", "accuracy", "three or more",
     "Cochran's Q (or Looney's F), then pairwise McNemar with Holm", "01_mcnemar_cochran"),
    ("one test set", "precision", "two",
     "GS, weighted GS, GW and Wald per class; relative precision; combined p-values over classes",
     "04_precision_gs_gw"),
    ("one test set", "precision", "three or more",
     "GEE logistic model: odds ratios against a reference classifier", "04_precision_gs_gw"),
    ("resampled scores", "accuracy", "two",
     "Nadeau–Bengio corrected t (two- or one-sided); 5x2cv F; Bayesian correlated t with a ROPE",
     "02_cv_ttests"),
    ("resampled scores", "accuracy", "three or more",
     "corrected t for each pair, Holm-adjusted", "02_cv_ttests"),
    ("resampled scores", "accuracy", "algorithms with tuning",
     "nested cross-validation; corrected t and Bayesian correlated t on the outer folds",
     "12_algorithm_selection"),
    ("resampled scores", "precision", "two or more",
     "GEE on stacked cross-validated predictions", "08_cross_validation"),
    ("many datasets", "any score", "two",
     "Wilcoxon signed-rank; Bayesian sign and signed-rank tests with a ROPE",
     "03_friedman_posthoc"),
    ("many datasets", "any score", "three or more",
     "Friedman (Iman–Davenport), then Nemenyi or Holm against a control", "03_friedman_posthoc"),
    ("evaluation items", "accuracy", "two or more",
     "clustered McNemar, Holm across pairs; cluster-robust paired difference",
     "13_evaluating_on_items"),
    ("evaluation items", "any score", "two or more",
     "cluster-robust paired difference, Holm across pairs", "13_evaluating_on_items"),
    ("evaluation items", "equivalence or the next benchmark", "two or more",
     "TOST equivalence; power and items needed", "14_planning_item_evaluations"),
)
_COURSE_MAP_COLUMNS = ["data", "metric", "classifiers", "test", "notebook"]


def course_map_table() -> pd.DataFrame:
    """Which test answers which question, and the notebook that shows it.

    Returns
    -------
    DataFrame
        ``data`` (one test set, resampled scores, many datasets or evaluation items: models
        scored on the same benchmark items, possibly in clusters), ``metric`` (accuracy,
        precision or any score), ``classifiers`` (two, three or more), ``test`` and ``notebook``
        (file stem; the rendered report is ``<notebook>.html``), one row per leaf of
        :func:`course_map_chart`.

    Examples
    --------
    >>> t = course_map_table()
    >>> t.loc[(t["data"] == "one test set") & (t["classifiers"] == "two"), "test"].tolist()
    ['McNemar (exact or mid-p)', 'GS, weighted GS, GW and Wald per class; relative precision; combined p-values over classes']
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
    >>> len(ax.patches)  # 1 root + 4 kinds of data + 8 metrics + 14 classifier counts + 14 tests
    41
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
                    arrowprops=dict(arrowstyle="-|>", color=DARK_GREY, lw=0.8,
                                    shrinkA=0, shrinkB=0, mutation_scale=9))

    levels = ["data", "metric", "classifiers"]
    positions: dict[tuple[str, ...], float] = {(): float(leaf_y.mean())}
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
