"""Tests of the precision widget's state function (the ipywidgets shell is only built once).

Reference: the paired RP interval must equal rp_from_cells on the expected counts of the
Gaussian-copula model, and the naive one Katz's interval (docs/methods.md §6.5; precmp's kernels).
"""

from __future__ import annotations

import numpy as np
import pytest

from precmp_lib.course.simulate import paired_cell_probabilities
from precmp_lib.course.widgets import rp_correlation_explorer, rp_correlation_state
from precmp_lib.stats.precision_cells import naive_rp_from_cells, rp_from_cells


def test_state_equals_kernels_on_expected_counts():
    state = rp_correlation_state(0.4, n=800, precision_a=0.7, precision_b=0.75)
    # the expected table of 800 items, rounded to whole counts as the kernels require
    cells = np.round(800 * paired_cell_probabilities(0.7, 0.75, correlation=0.4))
    paired, naive = rp_from_cells(cells), naive_rp_from_cells(cells)
    assert list(state.index) == ["paired", "naive"]
    assert state.loc["paired", "ci_low"] == pytest.approx(paired.ci_low, rel=1e-12)
    assert state.loc["naive", "ci_high"] == pytest.approx(naive.ci_high, rel=1e-12)
    assert state.loc["paired", "rp"] == pytest.approx(0.7 / 0.75, rel=5e-3)
    assert list(state.columns) == ["rp", "ci_low", "ci_high", "width", "pvalue", "excludes_1",
                                   "prediction_correlation"]


def test_paired_interval_narrows_as_correlation_grows():
    widths = [rp_correlation_state(r).loc[["paired", "naive"], "width"].to_numpy()
              for r in np.linspace(0.0, 0.9, 7)]
    paired = np.array([w[0] for w in widths])
    naive = np.array([w[1] for w in widths])
    assert np.all(np.diff(paired) < 0)
    assert np.all(paired < naive)
    # the naive interval ignores the pairing: it barely moves
    assert np.ptp(naive) < 0.2 * np.ptp(paired)


def test_explorer_builds():
    box = rp_correlation_explorer(0.3)
    assert box.children[0].value == 0.3 and box.children[0].description == "correlation"
