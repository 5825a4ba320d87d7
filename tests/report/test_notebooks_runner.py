"""The course-notebook runner: results.json, HTML pages, failures that leave nothing (the site: test_site)."""

from __future__ import annotations

import json

import nbformat
import numpy as np
import pandas as pd
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from precmp_lib.report import notebooks as notebook_runner


def tiny_notebook(path, body="print(f'value is {value * 2}')"):
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Tiny\n\n**Question:** Does rendering work?"),
            new_code_cell("value: int = 1  # a number\noutput_dir: str = 'out'  # results",
                          metadata={"tags": ["parameters"]}),
            new_code_cell(body),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    nbformat.write(nb, path)
    return path


def test_save_results_is_strict_json(tmp_path):
    path = notebook_runner.save_results(tmp_path / "r", {
        "nan": float("nan"), "inf": np.inf, "arr": np.array([1.5, 2.5]), "i": np.int64(3),
        "frame": pd.DataFrame({"a": [1, 2]}), "nested": {1: (np.float32(0.5),)},
    })
    data = json.loads(path.read_text())
    assert data == {"nan": None, "inf": "inf", "arr": [1.5, 2.5], "i": 3,
                    "frame": [{"a": 1}, {"a": 2}], "nested": {"1": [0.5]}}


def test_notebook_question(tmp_path):
    title, question = notebook_runner.notebook_question(tiny_notebook(tmp_path / "t.ipynb"))
    assert (title, question) == ("Tiny", "Does rendering work?")


@pytest.mark.notebook
def test_render_with_parameters_and_hidden_code(tmp_path):
    nb = tiny_notebook(tmp_path / "t.ipynb")
    out = notebook_runner.render_notebook(nb, tmp_path / "t.html", parameters={"value": 21},
                                 executed_path=tmp_path / "exec" / "t.ipynb")
    html = out.read_text()
    assert "value is 42" in html and "hl-ipython3" in html
    assert (tmp_path / "exec" / "t.ipynb").is_file()
    hidden = notebook_runner.render_notebook(nb, tmp_path / "h.html", hide_code=True).read_text()
    assert "value is 2" in hidden and "hl-ipython3" not in hidden


@pytest.mark.notebook
def test_failing_notebook_names_itself_and_leaves_no_report(tmp_path):
    nb = tiny_notebook(tmp_path / "broken.ipynb", body="raise ValueError('column y_true is missing')")
    with pytest.raises(notebook_runner.NotebookError, match=r"broken.ipynb: ValueError.*column y_true is missing"):
        notebook_runner.render_notebook(nb, tmp_path / "broken.html")
    assert not (tmp_path / "broken.html").exists()
    assert not list(tmp_path.glob(".broken.html.*"))
