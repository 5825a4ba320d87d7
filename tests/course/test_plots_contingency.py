"""McNemar heat map, tested structurally."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.image import AxesImage

from precmp_lib.course import plots
from precmp_lib.stats.contingency import mcnemar_pvalue_grid


def test_deviation_heatmap_structure():
    grid = mcnemar_pvalue_grid(20, 15)
    ax = plots.mcnemar_deviation_heatmap(grid, "chi2")
    images = [a for a in ax.get_children() if isinstance(a, AxesImage)]
    assert len(images) == 1
    data = images[0].get_array()
    assert data.shape == (16, 21)  # rows c = 0..15, columns b = 0..20
    # the colour is p(chi2) - p(exact) at (b, c)
    row = grid[(grid.b == 6) & (grid.c == 0)].iloc[0]
    assert data[0, 6] == pytest.approx(row.chi2 - row.exact)
    # outlined cells are exactly those whose decisions differ at 0.05
    differ = ((grid.chi2 <= 0.05) != (grid.exact <= 0.05)).sum()
    assert len(ax.collections[0].get_offsets()) == differ
    assert ax.get_xlabel().startswith("b") and ax.get_ylabel().startswith("c")


def test_deviation_heatmap_unknown_column():
    with pytest.raises(ValueError, match="grid has no column 'fisher'"):
        plots.mcnemar_deviation_heatmap(mcnemar_pvalue_grid(3), "fisher")


def test_exact_vs_exact_is_all_zero():
    ax = plots.mcnemar_deviation_heatmap(mcnemar_pvalue_grid(5), "exact", annotate_alpha=None)
    assert np.all(ax.images[0].get_array() == 0)
