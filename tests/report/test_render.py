"""Contract of the report template (precmp_lib/_resources/prediction_report.ipynb) through `precmp report`.

The shipped example files are made by scripts/make_example_predictions.py (provenance there).
Reference values: accuracies and precisions recomputed here from the same file with pandas, and
the library's own tests called directly on the same columns.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import precmp_lib as pc
from precmp_lib.__main__ import main
from precmp_lib.sources.datasets import resource_path

pytestmark = pytest.mark.notebook



def test_wide_report_with_string_classes_and_four_models(tmp_path):
    src = resource_path("examples/digits_wide.csv")
    out, js = tmp_path / "digits.html", tmp_path / "digits.json"
    code = main(["report", str(src), "--y-true", "digit", "--id", "id", "--prevalence", "eight=0.05",
                 "--n-resamples", "200", "--out", str(out), "--json", str(js), "--quiet"])
    assert code == 0 and out.is_file()
    html = out.read_text()
    assert "data:image/png;base64" in html  # plots embedded: one self-contained file
    assert "hl-ipython3" not in html  # code hidden for analysts
    assert "one test set of 899 observations" in html
    res = json.loads(js.read_text())
    cmp = pc.ModelComparison.from_json(js.read_text())
    frame = pd.read_csv(src)
    assert res["models"] == ["logistic", "naive_bayes", "random_forest", "svm"]
    assert res["classes"] == sorted(frame.digit.unique())
    acc = cmp.summary.set_index("model")["accuracy"]
    assert acc["svm"] == pytest.approx((frame.svm == frame.digit).mean())
    assert len(cmp.pairs) == 6 and len(cmp.per_class) == 60 and len(cmp.combined) == 6
    row = cmp.per_class[(cmp.per_class.model_a == "logistic") & (cmp.per_class.model_b == "naive_bayes")
                        & (cmp.per_class["class"] == "eight")].iloc[0]
    direct = pc.gs_test(frame.digit, frame.logistic, frame.naive_bayes, positive="eight")
    assert row["gs_pvalue"] == pytest.approx(direct.pvalue, rel=1e-12)
    adj = cmp.prevalence.set_index("model")["precision_at_prevalence"]
    assert 0 < adj["naive_bayes"] < adj["svm"] < 1
    assert cmp.best[0] == "svm"


def test_long_cross_validated_report_clusters_on_the_id(tmp_path):
    src = resource_path("examples/breast_cancer_cv_long.csv")
    out, js = tmp_path / "cv.html", tmp_path / "cv.json"
    code = main(["report", str(src), "--y-true", "y_true", "--format", "long", "--reference", "logistic",
                 "--out", str(out), "--json", str(js), "--quiet"])
    assert code == 0 and out.is_file()
    cmp = pc.ModelComparison.from_json(js.read_text())
    assert cmp.design["design"] == "repeated cv" and cmp.n_rows == 569 * 3
    assert cmp.pairs["test"].str.startswith("corrected repeated k-fold t").all()
    long = pd.read_csv(src)
    wide = long.pivot(index=["id", "repeat"], columns="model", values="y_pred").reset_index()
    truth = long.drop_duplicates(["id", "repeat"]).set_index(["id", "repeat"])["y_true"]
    wide["y_true"] = truth.loc[list(zip(wide.id, wide.repeat))].to_numpy()
    gee = pc.gee_precision(wide.y_true, wide[["logistic", "naive_bayes", "random_forest"]],
                           reference="logistic", groups=wide.id)
    ours = dict(zip(cmp.gee["class"], cmp.gee["pvalue"]))
    for r in gee.joint.itertuples():
        assert ours[r[1]] == pytest.approx(r.pvalue, rel=1e-10)


def _outside_loads(page: str) -> list[str]:
    """Addresses the page would fetch from elsewhere: script and stylesheet sources, imports."""
    import re

    found = re.findall(r"<script[^>]*\bsrc=[\"']?([^\"' >]+)", page)
    found += re.findall(r"<link[^>]*\bhref=[\"']?([^\"' >]+)", page)
    found += re.findall(r"@import\s+(?:url\()?[\"']?([^\"') ;]+)", page)
    found += re.findall(r"\bimport\(\s*[\"'`]?([^\"'`)]+)", page)
    return [u for u in found if not u.startswith(("data:", "#"))]


def test_the_notebook_route_runs_again_and_converts_without_loading_anything(tmp_path,
                                                                               executed_outputs):
    import nbformat
    import papermill as pm
    from nbconvert import HTMLExporter

    from precmp_lib.report.html import esc
    from precmp_lib.report.render import nbconvert_template

    src = resource_path("examples/breast_cancer_cv_long.csv")
    nb_path, page = tmp_path / "out" / "cv.ipynb", tmp_path / "cv.html"
    nb_path.parent.mkdir()
    code = main(["report", str(src), "--y-true", "y_true", "--n-resamples", "200", "--quiet",
                 "--out", str(page), "--notebook", str(nb_path)])
    assert code == 0
    # the comparison it reads sits beside it, named relative to its folder
    assert (tmp_path / "out" / "cv.json").is_file()
    shown = executed_outputs(nb_path, "cv.json")
    cmp = pc.ModelComparison.from_json((tmp_path / "out" / "cv.json").read_text())
    assert cmp.recommendation and esc(cmp.recommendation) in shown
    assert esc(cmp.recommendation) in page.read_text()
    # papermill runs it again from its folder, with the same outputs
    again = tmp_path / "out" / "again.ipynb"
    pm.execute_notebook(str(nb_path), str(again), cwd=str(nb_path.parent), progress_bar=False,
                        kernel_name="python3")
    rerun = nbformat.read(again, as_version=4)
    assert esc(cmp.recommendation) in "".join(
        o.get("data", {}).get("text/html", "") for c in rerun.cells if c.cell_type == "code"
        for o in c.outputs)
    # nbconvert's page with the shipped template loads nothing from elsewhere; the default
    # lab page would (require.js and MathJax from a CDN)
    exporter = HTMLExporter(template_file=str(nbconvert_template()))
    exporter.exclude_input = True
    body, _ = exporter.from_notebook_node(rerun)
    assert "Comparison report" in body and "data:image/png;base64" in body
    assert _outside_loads(body) == []
    default, _ = HTMLExporter(template_name="lab").from_notebook_node(rerun)
    assert any(u.startswith("https://") for u in _outside_loads(default))


def test_a_p_value_of_zero_is_shown_as_below_the_smallest_printed():
    # a column of p-values that underflowed to 0.0 was taken for whole numbers and shown "0"
    from precmp_lib.report.html import table_html

    page = table_html(pd.DataFrame({"model": ["a"], "p_vs_0.5": [0.0], "pvalue": [0.0],
                                    "n": [3.0]}), "x")
    assert page.count("<td class=\"\">&lt; 0.0001</td>") == 2 and "<td class=\"\">3</td>" in page
