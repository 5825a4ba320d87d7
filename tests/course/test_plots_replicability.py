"""Replicability heat map, tested structurally."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import AxesImage

from precmp_lib.course import plots


@pytest.fixture
def table():
    rows = []
    for f in (1.0, 0.5):
        for t in (0.1, 0.3, 0.5):
            rows.append({"sample_fraction": f, "test_fraction": t, "replicability": f * (1 - t),
                         "replicability_p": 0.9, "rejection_rate": t})
    frame = pd.DataFrame(rows)
    frame.loc[5, "replicability"] = np.nan  # a cell where no repetition had a test
    return frame


def test_heatmap_layout(table):
    ax = plots.replicability_heatmap(table)
    images = [a for a in ax.get_children() if isinstance(a, AxesImage)]
    assert len(images) == 1
    data = images[0].get_array()
    assert data.shape == (2, 3)
    # rows: largest sample at the top; columns: largest test fraction at the left
    assert [t.get_text() for t in ax.get_yticklabels()] == ["100%", "50%"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["50%", "30%", "10%"]
    assert data[0, 0] == pytest.approx(1.0 * (1 - 0.5))
    assert data[1, 2] == pytest.approx(0.5 * (1 - 0.1))
    assert np.ma.is_masked(data[1, 0])  # the NaN cell (0.5, 0.5) is masked, drawn grey
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 6 and "n/a" in texts
    assert "0.50\n50% rej." in texts  # value and rejection rate of the top-left cell
    assert ax.figure.axes[-1].get_ylabel() == "R(e)"


def test_heatmap_other_value_without_annotations(table):
    ax = plots.replicability_heatmap(table, value="rejection_rate", annotate=False)
    assert len(ax.texts) == 0
    assert ax.images[0].get_array()[0, 0] == pytest.approx(0.5)
    assert ax.figure.axes[-1].get_ylabel() == "rejection rate"


def test_heatmap_bad_table(table):
    with pytest.raises(ValueError, match=r"table has no column\(s\) \['rejection_rate'\]"):
        plots.replicability_heatmap(table.drop(columns="rejection_rate"))
    with pytest.raises(ValueError, match="at least one row"):
        plots.replicability_heatmap(table.iloc[:0])


def test_curve_structure(table):
    table = table.assign(n_valid=10)
    ax = plots.replicability_curve(table)
    (line,) = ax.get_lines()
    x, y = line.get_data()
    # the curve is 1 - 2 r (1 - r) n/(n - 1): 1 at r = 0 and r = 1, (n/2 - 1)/(n - 1) at r = 1/2
    assert y[0] == pytest.approx(1) and y[-1] == pytest.approx(1)
    assert y[np.argmin(np.abs(x - 0.5))] == pytest.approx((10 / 2 - 1) / (10 - 1))
    offsets = ax.collections[0].get_offsets()
    assert len(offsets) == 6
    assert np.allclose(np.asarray(offsets)[:, 0], table["rejection_rate"])
    assert ax.get_xlabel() == "rejection rate" and ax.get_ylabel() == "R(e)"


def test_curve_bad_table(table):
    with pytest.raises(ValueError, match=r"no column\(s\) \['n_valid'\]"):
        plots.replicability_curve(table)
    with pytest.raises(ValueError, match="at least 2 valid repetitions"):
        plots.replicability_curve(table.assign(n_valid=1))


def test_clustering_plot_structure():
    table = pd.DataFrame({
        "class": [0, 0, 0, 1, 1, 1],
        "cluster": ["id", "id_repeat", "none"] * 2,
        "statistic": [10.0, 70.0, 20.0, 4.0, 36.0, 2.0],
        "inflation": [1.0, 7.0, 2.0, 1.0, 9.0, 0.5],
    })
    ax = plots.clustering_plot(table)
    heights = [p.get_height() for p in ax.patches]
    # bars drawn cluster by cluster: id (classes 0, 1), id_repeat, none
    assert heights == [10.0, 4.0, 70.0, 36.0, 20.0, 2.0]
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["×7.0", "×9.0", "×2.0", "×0.5"]  # only the wrong choices are labelled
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["id (right)", "(id, repeat)", "none"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]


def test_clustering_plot_bad_table():
    with pytest.raises(ValueError, match=r"no column\(s\) \['inflation'\]"):
        plots.clustering_plot(pd.DataFrame({"class": [0], "cluster": ["id"], "statistic": [1.0]}))
