"""The probabilities route (precmp_lib/compare/probability_route.py) through the command.

Chosen by --proba; bad input is one line, exit 2 and nothing written; --json carries every AUC,
interval, z and p at full precision (compared with :func:`precmp_lib.stats.auc.delong_test`,
itself checked against pROC in tests/stats/test_auc.py).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from precmp_lib.cli import main
from precmp_lib.compare.probability_route import parse_threshold
from precmp_lib.stats.auc import delong_test


def _file(tmp_path, n: int = 160):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"label": np.where(y == 1, "sick", "well")})
    for name, k in (("lr", 2.0), ("nb", 1.0), ("knn", 1.5)):
        df[name] = np.round(1 / (1 + np.exp(-k * (2 * y - 1) - rng.normal(size=n))), 3)
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    return path, df


def test_page_and_json(tmp_path):
    path, df = _file(tmp_path)
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    code = main(["report", str(path), "--y-true", "label", "--proba", "lr", "nb", "knn",
                 "--out", str(out), "--json", str(js), "--quiet"])
    assert code == 0 and out.is_file()
    data = json.loads(js.read_text())
    assert data["kind"] == "probabilities" and data["positive"] == "well"
    y = (df["label"] == "well").astype(int)
    rec = data["auc_pairs"]["records"][0]
    ref = delong_test(y, df[rec["model_a"]], df[rec["model_b"]])
    assert rec["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert rec["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
    page = out.read_text()
    assert "P(well)" in page and "Pairs of models: AUC by DeLong" in page
    assert "at least 0.5 (--threshold)" in page


def test_positive_and_metric(tmp_path):
    path, _ = _file(tmp_path)
    js = tmp_path / "r.json"
    assert main(["report", str(path), "--y-true", "label", "--proba", "lr", "nb", "--positive",
                 "sick", "--metric", "logloss", "--threshold", "0.3", "--out",
                 str(tmp_path / "r.html"), "--json", str(js), "--quiet"]) == 0
    data = json.loads(js.read_text())
    assert data["positive"] == "sick" and data["metric"] == "logloss"
    assert data["threshold"] == 0.3 and "log loss" in data["recommendation"]


@pytest.mark.parametrize("args, message", [
    (["--proba", "lr", "nb", "--metric", "f1"], "--metric with --proba takes"),
    (["--proba", "lr", "zz"], "neither a column nor the prefix"),
    (["--proba", "lr", "nb", "--positive", "other"], "--positive 'other' is not a class"),
    (["--proba", "lr", "nb", "--prevalence", "sick=0.1"], "--prevalence applies to predictions"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    path, _ = _file(tmp_path)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "--y-true", "label", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_a_probability_column_given_as_labels_is_refused(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 100)
    p = np.clip(np.round(y * 0.6 + rng.random(100) * 0.5, 2), 0, 1)
    p[:2] = [0.0, 1.0]
    df = pd.DataFrame({"label": y, "knn": (p >= 0.5).astype(int), "knn_p": p})
    path = tmp_path / "m.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "--y-true", "label", "--models", "knn", "knn_p",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "looks like probabilities: use --proba knn_p" in err and not out.exists()


def test_parse_threshold():
    assert parse_threshold("0.25") == 0.25
    for bad in ("0", "1", "x", "nan"):
        with pytest.raises(Exception, match="--threshold"):
            parse_threshold(bad)
