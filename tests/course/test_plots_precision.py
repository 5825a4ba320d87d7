"""Structural tests of the precision plots (forest plot, power curves): returned Axes and artists."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PathCollection

from precmp_lib.course.plots import forest_plot, power_plot
from precmp_lib.course.simulate import power_curve
from precmp_lib.report.html import BLUE, VERMILLION
from precmp_lib.stats.precision import compare_precision
from precmp_lib.stats.precision_gee import gee_precision


def rp_table():
    return pd.DataFrame({
        "class": ["a", "b", "c", "d"],
        "rp": [0.9, 1.05, np.nan, 1.3],
        "rp_ci_low": [0.85, 0.95, np.nan, 1.1],
        "rp_ci_high": [0.95, 1.15, np.nan, 1.5],
    })


def test_forest_plot_draws_one_interval_per_defined_row():
    ax = forest_plot(rp_table(), title="RP")
    assert isinstance(ax, plt.Axes)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d"]
    segments = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(segments) == 1 and len(segments[0].get_segments()) == 3
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(points) == 1 and len(points[0].get_offsets()) == 3
    # the reference line at 1 and the n/a label for the undefined row
    assert any(np.allclose(line.get_xdata(), 1.0) for line in ax.get_lines())
    assert [t.get_text() for t in ax.texts] == ["n/a"]
    assert ax.get_xscale() == "log" and ax.get_title() == "RP"
    # rows top to bottom in table order: "a" highest
    ys = points[0].get_offsets()[:, 1]
    assert ys[0] > ys[1] > ys[2]


def test_forest_plot_colours_intervals_that_exclude_the_reference():
    ax = forest_plot(rp_table())
    colours = [tuple(c) for c in ax.collections[1].get_facecolors()]
    sig = plt.matplotlib.colors.to_rgba(VERMILLION)
    neu = plt.matplotlib.colors.to_rgba(BLUE)
    assert colours == [sig, neu, sig]


def test_forest_plot_from_library_tables():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    a = np.where(rng.random(600) < 0.7, y, rng.integers(0, 3, 600))
    b = np.where(rng.random(600) < 0.8, y, rng.integers(0, 3, 600))
    table = compare_precision(y, a, b).assign(dataset="toy")
    ax = forest_plot(table, label=["dataset", "class"])
    assert ax.get_yticklabels()[0].get_text() == "toy · 0"
    coef = gee_precision(y, {"a": a, "b": b, "c": a}).coefficients
    ax = forest_plot(coef, estimate="odds_ratio", ci_low="ci_low", ci_high="ci_high",
                     label=["class", "model"], xlabel="odds ratio vs a")
    assert ax.get_xlabel() == "odds ratio vs a" and len(ax.get_yticklabels()) == 6


def test_forest_plot_bad_input():
    with pytest.raises(ValueError, match="table has no column 'rp'"):
        forest_plot(pd.DataFrame({"class": [1]}))
    with pytest.raises(ValueError, match="at least one row"):
        forest_plot(rp_table().iloc[:0])


def test_power_plot_lines_per_method():
    curve = power_curve([0.0, 0.05, 0.1], correlation=[0.0, 0.7], n_sim=50, random_state=0)
    _, axes = plt.subplots(1, 2)
    for ax, rho in zip(axes, (0.0, 0.7)):
        out = power_plot(curve, correlation=rho, ax=ax)
        assert out is ax
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["GS (paired)", "weighted GS (paired)",
                          "z test for independent proportions", "α = 0.05"]
        data_lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 3]
        assert len(data_lines) == 3
        assert ax.get_title() == f"latent correlation {rho:g}"
    with pytest.raises(ValueError, match="several correlations"):
        power_plot(curve)
    with pytest.raises(ValueError, match=r"no rows with correlation 0\.3"):
        power_plot(curve, correlation=0.3)
    with pytest.raises(ValueError, match="pass the output of power_curve"):
        power_plot(pd.DataFrame({"x": [1]}))
