"""Contract of notebooks/report.ipynb through the `precmp report` command.

The shipped example files are made by scripts/make_example_predictions.py (provenance there).
Reference values: accuracies and precisions recomputed here from the same file with pandas, and
the library's own tests called directly on the same columns.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import precmp_lib as pc
from precmp_lib.__main__ import main

pytestmark = pytest.mark.notebook



def test_wide_report_with_string_classes_and_four_models(tmp_path):
    src = pc.resource_path("examples/digits_wide.csv")
    out, js = tmp_path / "digits.html", tmp_path / "digits.json"
    code = main(["report", str(src), "--y-true", "digit", "--id", "id", "--prevalence", "eight=0.05",
                 "--n-resamples", "200", "--out", str(out), "--json", str(js), "--quiet"])
    assert code == 0 and out.is_file()
    html = out.read_text()
    assert "data:image/png;base64" in html  # plots embedded: one self-contained file
    assert "hl-ipython3" not in html  # code hidden for analysts
    res = json.loads(js.read_text())
    frame = pd.read_csv(src)
    assert res["models"] == ["logistic", "naive_bayes", "random_forest", "svm"]
    assert res["classes"] == sorted(frame.digit.unique())
    acc = {r["model"]: r["accuracy"] for r in res["accuracy"]}
    assert acc["svm"] == pytest.approx((frame.svm == frame.digit).mean())
    assert len(res["mcnemar"]) == 6 and len(res["per_class"]) == 60 and len(res["combined"]) == 6
    row = next(r for r in res["per_class"] if r["model_a"] == "logistic" and r["model_b"] == "naive_bayes"
               and r["class"] == "eight")
    direct = pc.gs_test(frame.digit, frame.logistic, frame.naive_bayes, positive="eight")
    assert row["gs_pvalue"] == pytest.approx(direct.pvalue, rel=1e-12)
    assert res["cochrans_q"]["pvalue"] == pytest.approx(
        pc.cochrans_q(pc.correctness_matrix(frame.digit, frame[res["models"]])).pvalue, rel=1e-12)
    adj = {r["model"]: r["precision_at_prevalence"] for r in res["prevalence_adjusted"]}
    assert 0 < adj["naive_bayes"] < adj["svm"] < 1
    assert any(line.startswith("Accuracy: svm 0.964") for line in res["conclusion"])


def test_long_cross_validated_report_clusters_on_the_id(tmp_path):
    src = pc.resource_path("examples/breast_cancer_cv_long.csv")
    out, js = tmp_path / "cv.html", tmp_path / "cv.json"
    code = main(["report", str(src), "--y-true", "y_true", "--format", "long", "--reference", "logistic",
                 "--out", str(out), "--json", str(js), "--quiet"])
    assert code == 0 and out.is_file()
    res = json.loads(js.read_text())
    assert res["cross_validated"] is True and res["n_rows"] == 569 * 3
    assert res["mcnemar"] is None and res["per_class"] is None  # not valid with repeated rows
    long = pd.read_csv(src)
    wide = long.pivot(index=["id", "repeat"], columns="model", values="y_pred").reset_index()
    truth = long.drop_duplicates(["id", "repeat"]).set_index(["id", "repeat"])["y_true"]
    wide["y_true"] = truth.loc[list(zip(wide.id, wide.repeat))].to_numpy()
    gee = pc.gee_precision(wide.y_true, wide[["logistic", "naive_bayes", "random_forest"]],
                           reference="logistic", groups=wide.id)
    ours = {r["class"]: r["pvalue"] for r in res["gee_joint"]}
    for r in gee.joint.itertuples():
        assert ours[r[1]] == pytest.approx(r.pvalue, rel=1e-10) or (np.isnan(r.pvalue) and ours[r[1]] is None)
