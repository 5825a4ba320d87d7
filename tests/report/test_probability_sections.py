"""The probabilities page's sections (precmp_lib/report/probability_sections.py), structurally.

Plots are checked by their artists (Agg backend), not by pixels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from precmp_lib.compare.probabilities import compare_probabilities
from precmp_lib.report import probability_sections as view
from precmp_lib.report.html import BETTER, REFERENCE, WORSE


def _cmp(**kwargs):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 250)
    df = pd.DataFrame({"y": y})
    for name, k in (("a", 2.5), ("b", 0.3), ("c", 2.2)):
        df[name] = 1 / (1 + np.exp(-k * (2 * y - 1) - rng.normal(size=250)))
    return compare_probabilities(df, y_true="y", proba=["a", "b", "c"], **kwargs)


def test_roc_plot_draws_every_model_and_chance_in_black():
    cmp = _cmp()
    fig = view.roc_plot(cmp)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 4
    assert lines[0].get_color() == REFERENCE  # the chance diagonal, no reference model
    colours = {ln.get_label().split(". ")[1].split(" ")[0]: ln.get_color() for ln in lines[1:]}
    assert colours["b"] == WORSE and colours["a"] == BETTER
    # in rank order of the AUC
    assert [ln.get_label()[:2] for ln in lines[1:]] == ["1.", "2.", "3."]


def test_reference_model_is_black():
    cmp = _cmp(reference="b")
    colours = view.model_colours(cmp)
    assert colours["b"][0] == REFERENCE and colours["a"][0] == BETTER


def test_calibration_plot_has_a_line_per_model():
    cmp = _cmp()
    fig = view.calibration_plot(cmp)
    assert len(fig.axes[0].get_lines()) == 4
    sizes = fig.axes[0].collections[0].get_sizes()  # the first model's bins, area by count
    part = cmp.calibration[cmp.calibration["model"] == view.by_rank(cmp)[0]]
    assert sizes.argmax() == part["n"].to_numpy().argmax()


def test_sections_name_the_scores_and_the_metric():
    cmp = _cmp(metric="brier")
    head = str(view.page_header(cmp, "x.csv"))
    assert "P(1)" in head and "3 models" in head
    assert "Brier score" in str(view.section_conclusion(cmp))
    losses = str(view.section_losses(cmp))
    assert "ε = 1e-15" in losses
    toc = str(view.table_of_contents(cmp))
    assert "pp-folds" not in toc and "pp-classes" not in toc and "pp-calibration" in toc


def test_names_are_escaped_on_the_page(tmp_path):
    from precmp_lib.report.render import render_report

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 120)
    df = pd.DataFrame({"y": np.where(y == 1, "<i>sick</i>", "well")})
    for name, k in (("<script>a</script>", 2.0), ("b$x$", 1.0)):
        df[name] = 1 / (1 + np.exp(-k * (2 * y - 1) - rng.normal(size=120)))
    cmp = compare_probabilities(df, y_true="y", proba=["<script>a</script>", "b$x$"],
                                positive="<i>sick</i>")
    page = render_report(cmp, tmp_path / "p.html", quiet=True).read_text(encoding="utf-8")
    assert "<script>a</script>" not in page and "&lt;script&gt;a&lt;/script&gt;" in page
    assert "<i>sick</i>" not in page
