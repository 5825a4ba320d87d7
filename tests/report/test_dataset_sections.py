"""The data-set page: its first sentence, escaping, the CD diagram (structure, not pixels), the
LaTeX table, and the shipped template rendering the shipped example."""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from precmp_lib import compare_datasets
from precmp_lib.compare.datasets import DatasetComparison
from precmp_lib.report.dataset_sections import (
    cd_figure,
    dataset_header,
    dataset_sections,
    latex_table,
)
from precmp_lib.report.render import render_report

ROOT = Path(__file__).resolve().parents[2]


def _table(names) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    base = rng.uniform(0.6, 0.9, 12)
    out = {"dataset": [f"d&{i}" for i in range(12)]}
    for j, name in enumerate(names):
        out[name] = base + 0.01 * (len(names) - j) + rng.normal(0, 0.01, 12)
    return pd.DataFrame(out)


def test_the_page_opens_with_the_answer_and_escapes_every_name(tmp_path):
    cmp = compare_datasets(_table(["<b>rf</b>", "lr", "nb"]))
    page = dataset_sections(cmp)
    header = dataset_header(cmp)
    assert "Over 12 data sets, &lt;b&gt;rf&lt;/b&gt; ranks first" in header
    assert header.index('class="rec"') < header.index("class='lead'")
    assert "&lt;b&gt;rf&lt;/b&gt;" in page and "<b>rf</b>" not in page
    assert "d&amp;0" in page
    out = render_report(cmp, tmp_path / "p.html", quiet=True)
    html = out.read_text()
    assert "Over 12 data sets, &lt;b&gt;rf&lt;/b&gt; ranks first" in html
    assert "http://" not in html.split("<body", 1)[1] or "src=\"http" not in html


def test_the_cd_diagram_draws_the_nemenyi_groups_and_the_cd_bar():
    cmp = compare_datasets(_table(["rf", "lr", "knn", "tree", "nb"]))
    ax = cd_figure(cmp).axes[0]
    cliques = [line for line in ax.lines if line.get_gid() == "cd-clique"]
    assert len(cliques) == len(cmp.groups["nemenyi"])
    bar = next(line for line in ax.lines if line.get_gid() == "cd-bar")
    assert np.ptp(bar.get_xdata()) == pytest.approx(cmp.critical_difference, rel=1e-12)
    labels = sorted(t.get_text() for t in ax.texts if t.get_gid() == "cd-label")
    assert labels == sorted(cmp.models)


def test_beyond_twenty_models_the_page_ranks_them_in_a_table():
    cmp = compare_datasets(_table([f"m{i}" for i in range(22)]))
    page = dataset_sections(cmp)
    assert "With 22 models the diagram would not be readable" in page
    assert "Critical-difference diagram" not in page


def test_latex_escapes_names_and_marks_the_best_of_each_data_set():
    cmp = compare_datasets(_table(["rf_1", "lr%", "nb"]))
    text = latex_table(cmp)
    assert "rf\\_1" in text and "lr\\%" in text and "d\\&0" in text
    rows = [line for line in text.splitlines() if line.startswith("d\\&")]
    assert len(rows) == 12 and all("\\textbf{" in r for r in rows)


def test_the_template_shows_the_shipped_example(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    from make_example_dataset_comparison import comparison_json

    shipped = (files("precmp_lib") / "_resources" / "example_dataset_comparison.json").read_text(
        encoding="utf-8")
    assert shipped == comparison_json()
    cmp = DatasetComparison.from_json(shipped)
    html = render_report(cmp, tmp_path / "p.html", quiet=True).read_text()
    assert "Over 20 data sets, rf ranks first" in html and "Methods paragraph" in html


def test_hostile_names_reach_the_latex_table_as_text():
    # a model or data-set name is text in the table, never a LaTeX command (\input reads files)
    wide = pd.DataFrame({"dataset": ["a", "b$x$", "c", "d"],
                         "\\input{/etc/passwd}": [.9, .8, .85, .7], "lr_1 & 50%": [.8, .7, .8, .6]})
    tex = latex_table(compare_datasets(wide))
    assert r"\textbackslash{}input\{/etc/passwd\}" in tex and r"lr\_1 \& 50\%" in tex
    assert r"b\$x\$" in tex and "\\input{" not in tex
