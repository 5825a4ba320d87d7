"""Simulated clustered evaluation items (precmp_lib/course/items_simulation.py) and the power widget's logic.

The simulation's claims are checked against what it is built from: with equal accuracies the
models are exchangeable (mean difference 0); the accuracy it is asked for comes out; without a
model-specific cluster effect the independent-item tests keep their level; with one, the
clustered tests keep it and the others do not. The widget's numbers are those of
precmp_lib.stats.power, called here.
"""

from __future__ import annotations

import math

import matplotlib.figure
import numpy as np
import pytest

import precmp_lib as pc
from precmp_lib.course import widgets
from precmp_lib.course.items_simulation import clustered_type1_error, simulate_items


def test_simulated_items_have_the_asked_accuracy_and_design():
    items = simulate_items(400, 5, accuracy_a=0.8, accuracy_b=0.6, random_state=3)
    assert len(items) == 2000 and items["cluster"].nunique() == 400
    assert (items.groupby("cluster").size() == 5).all()
    assert items["correct_a"].mean() == pytest.approx(0.8, abs=0.03)
    assert items["correct_b"].mean() == pytest.approx(0.6, abs=0.03)
    assert set(np.unique(items[["correct_a", "correct_b"]])) <= {0, 1}


def test_the_model_specific_cluster_effect_is_what_clusters_the_differences():
    flat = simulate_items(300, 10, skill_sd=0.0, random_state=1)
    skilled = simulate_items(300, 10, skill_sd=1.0, random_state=1)
    deff = [pc.paired_difference(t["correct_a"], t["correct_b"], clusters=t["cluster"])
            .details["design_effect"] for t in (flat, skilled)]
    assert deff[0] == pytest.approx(1.0, abs=0.25)
    assert deff[1] > 2


def test_type1_error_of_tests_that_ignore_the_clusters():
    table = clustered_type1_error(40, 8, skill_sd=1.0, n_sim=400, random_state=2)
    rate = table["rejection_rate"]
    for name in ("McNemar (items independent)", "paired z (items independent)"):
        assert rate[name] > 0.12  # far above alpha = 0.05 (Monte Carlo SE about 0.011)
    for name in ("Obuchowski clustered McNemar", "paired z, cluster-robust (CR1)"):
        assert rate[name] < 0.085
    assert table["clusters_used"].tolist() == [False, False, True, True]
    assert (table["mc_se"] == np.sqrt(rate * (1 - rate) / 400)).all()


def test_without_clustering_every_test_keeps_its_level():
    table = clustered_type1_error(40, 8, skill_sd=0.0, n_sim=400, random_state=4)
    assert (table["rejection_rate"] < 0.09).all()
    assert table["mean_design_effect"].iloc[0] == pytest.approx(1.0, abs=0.1)


def test_simulation_arguments_are_checked():
    with pytest.raises(ValueError, match="skill_sd must be a finite number >= 0"):
        simulate_items(10, 3, skill_sd=-1)
    with pytest.raises(ValueError, match="n_clusters must be an integer >= 2"):
        simulate_items(1, 3)
    with pytest.raises(ValueError, match="accuracy_a must lie in"):
        simulate_items(10, 3, accuracy_a=1.0)
    with pytest.raises(ValueError, match="n_sim must be an integer >= 1"):
        clustered_type1_error(10, 3, n_sim=0)


def test_item_power_state_is_the_power_module():
    s = widgets.item_power_state(2000, 200, 0.1, 0.03, sd=0.5)
    assert list(s.index) == ["independent items", "more clusters of the same size",
                             "more items in the same clusters"]
    assert s.loc["independent items", "power"] == pytest.approx(pc.paired_power(2000, 0.03, 0.5))
    assert s.iloc[1]["power"] == pytest.approx(
        pc.paired_power(2000, 0.03, 0.5, n_clusters=200, icc=0.1))
    assert s.iloc[1]["design_effect"] == pytest.approx(pc.design_effect(10, 0.1))
    # whole items, rounded up (paired_sample_size: 4142.5, its doctest)
    assert s.iloc[1]["items_needed"] == math.ceil(
        pc.paired_sample_size(0.03, 0.5, cluster_size=10, icc=0.1)) == 4143
    assert s.iloc[0]["items_needed"] == math.ceil(pc.paired_sample_size(0.03, 0.5)) == 2181
    assert s.iloc[2]["items_needed"] == math.inf  # K rho = 218 > 200 clusters
    assert s.iloc[1]["minimum_detectable_difference"] == pytest.approx(
        pc.minimum_detectable_difference(2000, 0.5, n_clusters=200, icc=0.1))


def test_item_power_curve_and_figure():
    curve = widgets.item_power_curve(1000, 100, 0.2, 0.05)
    assert curve.index[0] == 100 and curve.index[-1] == 10_000
    assert curve.index.is_monotonic_increasing
    # power grows with items in every design; fixed clusters fall behind more clusters
    assert all(curve[c].is_monotonic_increasing for c in curve.columns)
    assert (curve.iloc[:, 2] <= curve.iloc[:, 1] + 1e-12).loc[1000:].all()
    assert (curve.iloc[:, 1] <= curve.iloc[:, 0] + 1e-12).all()
    fig = widgets.item_power_figure(curve, n_items=1000)
    assert isinstance(fig, matplotlib.figure.Figure)
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 3 + 2 and ax.get_xscale() == "log"


def test_item_power_explorer_builds():
    pytest.importorskip("ipywidgets")
    box = widgets.item_power_explorer(1000, 50, 0.05, 0.04)
    assert len(box.children) == 4 and box.children[3].value[:4] == b"\x89PNG"
    assert "independent items" in box.children[2].value
