"""The data-set route through the command: `precmp report results.csv` and its outputs.

Bad input exits 2 with one line and writes nothing; good input writes the page, the JSON, the
CD diagram as SVG and PDF beside the page and the LaTeX table, all or none.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from precmp_lib.cli import main
from precmp_lib.compare.dataset_route import cd_paths
from precmp_lib.compare.item_route import datasets_hint
from precmp_lib.compare.routes import comparison_from_json


def run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err.strip().splitlines()


def _wide(n: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    base = rng.uniform(0.6, 0.9, n)
    return pd.DataFrame({"dataset": [f"set_{i}" for i in range(n)], "rf": base + 0.03,
                         "knn": base + rng.normal(0, 0.01, n), "nb": base - 0.02})


def test_a_results_table_becomes_a_page_with_its_figures_and_latex(tmp_path, capsys):
    path = tmp_path / "results.csv"
    _wide().to_csv(path, index=False)
    out, tex = tmp_path / "page.html", tmp_path / "t.tex"
    code, err = run(["report", str(path), "--out", str(out), "--json", str(tmp_path / "c.json"),
                     "--latex", str(tex), "--quiet"], capsys)
    assert code == 0 and err == []
    cmp = comparison_from_json((tmp_path / "c.json").read_text())
    assert cmp.kind == "datasets" and cmp.engine == "duckdb"
    page = out.read_text()
    assert cmp.conclusions[0].replace("α", "&alpha;") in page or cmp.conclusions[0] in page
    svg, pdf = cd_paths(out)
    assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    assert pdf.read_bytes().startswith(b"%PDF")
    text = tex.read_text()
    assert "\\toprule" in text and "set\\_0" in text and "\\bottomrule" in text


def test_parquet_long_lower_is_better_reference_and_named_dataset_column(tmp_path, capsys):
    wide = _wide().rename(columns={"dataset": "problem"})
    long = wide.melt(id_vars="problem", var_name="model", value_name="score")
    long["score"] = 1 - long["score"]  # errors
    path = tmp_path / "errors.parquet"
    long.to_parquet(path)
    code, err = run(["report", str(path), "--dataset", "problem", "--lower-is-better",
                     "--reference", "nb", "--engine", "numpy", "--out", str(tmp_path / "p.html"),
                     "--json", str(tmp_path / "c.json"), "--quiet"], capsys)
    assert code == 0, err
    cmp = comparison_from_json((tmp_path / "c.json").read_text())
    assert cmp.lower_is_better and cmp.reference == "nb" and cmp.summary["model"][0] == "rf"
    assert len(cmp.reference_pairs) == 2


@pytest.mark.parametrize(("table", "args", "message"), [
    (lambda f: f.rename(columns={"knn": "rf"}), [], "column 'rf' is named twice"),
    (lambda f: pd.concat([f, f.iloc[[2]]]), [], "data set 'set_2' is named twice"),
    (lambda f: f.assign(nb=f["nb"].where(f.index != 1)), [],
     "data set 'set_1', model 'nb': score is missing"),
    (lambda f: f.assign(nb=f["nb"].where(f.index != 1, np.inf)), [],
     "data set 'set_1', model 'nb': score is inf"),
    (lambda f: f.assign(nb=f["nb"].astype(object).where(f.index != 1, "0,8")), [],
     "data set 'set_1', model 'nb': score '0,8' is not a number"),
    (lambda f: f[["dataset", "rf"]], [], "need at least two models"),
    (lambda f: f.iloc[:2], [], "need at least three data sets"),
    (lambda f: f, ["--reference", "svm"], "--reference 'svm' is not one of the models"),
    (lambda f: f.rename(columns={"dataset": "x"}), [],
     "no column names the data sets (such as 'dataset'); name it with --dataset COL"),
    (lambda f: f, ["--seed", "3"], "--seed applies to predictions files or probabilities, not to results across"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, table, args,
                                                            message):
    path = tmp_path / "r.csv"
    table(_wide()).to_csv(path, index=False)
    code, err = run(["report", str(path), "--out", str(tmp_path / "p.html"), "--json",
                     str(tmp_path / "c.json"), "--latex", str(tmp_path / "t.tex"), *args], capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("precmp: error: "), err
    assert message in err[0], err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_a_missing_model_is_named_and_common_datasets_counts_the_dropped(tmp_path, capsys):
    long = _wide().melt(id_vars="dataset", var_name="model", value_name="score")
    long = long[~((long["dataset"] == "set_4") & (long["model"] == "knn"))]
    path = tmp_path / "r.csv"
    long.to_csv(path, index=False)
    code, err = run(["report", str(path), "--out", str(tmp_path / "p.html")], capsys)
    assert code == 2 and "data set 'set_4' has no score of model 'knn'" in err[0]
    code, err = run(["report", str(path), "--common-datasets", "--quiet", "--out",
                     str(tmp_path / "p.html")], capsys)
    assert code == 0
    assert "1 data sets were left out because a model had no score on them" in \
        (tmp_path / "p.html").read_text()


def test_the_item_route_sends_results_across_data_sets_to_this_route(tmp_path, capsys):
    long = _wide().melt(id_vars="dataset", var_name="model", value_name="score")
    path = tmp_path / "r.csv"
    long.to_csv(path, index=False)
    code, err = run(["report", str(path), "--item", "dataset", "--out",
                     str(tmp_path / "p.html")], capsys)
    assert code == 2 and err[0] == "precmp: error: " + datasets_hint("dataset")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_the_json_is_exactly_to_json(tmp_path, capsys):
    path = tmp_path / "r.csv"
    _wide().to_csv(path, index=False)
    code, _ = run(["report", str(path), "--out", str(tmp_path / "p.html"), "--json",
                   str(tmp_path / "c.json"), "--quiet"], capsys)
    text = (tmp_path / "c.json").read_text()
    assert code == 0 and comparison_from_json(text).to_json() == text
    assert json.loads(text)["kind"] == "datasets"


def test_predictions_per_data_set_give_both_levels_side_by_side(tmp_path, capsys):
    rng = np.random.default_rng(5)
    parts = []
    for d in range(8):
        y = rng.integers(0, 3, 150).astype(str)
        big = np.where(rng.random(150) < 0.92, y, "9")  # right with probability 0.92
        small = np.where(rng.random(150) < 0.85, y, "9")
        parts.append(pd.DataFrame({"set": f"s{d}", "label": y, "big": big, "small": small}))
    frame = pd.concat(parts)
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    code, err = run(["report", str(path), "--dataset", "set", "--y-true", "label", "--quiet",
                     "--out", str(tmp_path / "p.html"), "--json", str(tmp_path / "c.json")],
                    capsys)
    assert code == 0, err
    cmp = comparison_from_json((tmp_path / "c.json").read_text())
    within = cmp.fold_tests
    assert set(within["dataset"]) == {f"s{d}" for d in range(8)}
    assert set(within["test"]) == {"McNemar exact"} or within["test"].str.contains("McNemar").all()
    # the across-data-sets table is each data set's accuracy
    part = frame[frame["set"] == "s0"]
    assert cmp.matrix().loc["s0", "big"] == pytest.approx((part["big"] == part["label"]).mean())
    better = int((within["estimate"] > 0).sum())
    assert cmp.conclusions[1].startswith(f"big is more accurate than small on {better} of 8 "
                                         "data sets, significantly on ")
    assert "Within each data set: its own tests" in (tmp_path / "p.html").read_text()


def test_a_folder_of_prediction_files_is_one_data_set_per_file(tmp_path, capsys):
    rng = np.random.default_rng(6)
    folder = tmp_path / "preds"
    folder.mkdir()
    for d in range(5):
        y = rng.integers(0, 2, 120)
        pd.DataFrame({"y": y, "a": np.where(rng.random(120) < 0.9, y, 1 - y),
                      "b": np.where(rng.random(120) < 0.7, y, 1 - y)}).to_csv(
            folder / f"set{d}.csv", index=False)
    code, err = run(["report", str(folder), "--dataset", "file", "--y-true", "y", "--quiet",
                     "--out", str(tmp_path / "p.html"), "--json", str(tmp_path / "c.json")],
                    capsys)
    assert code == 0, err
    cmp = comparison_from_json((tmp_path / "c.json").read_text())
    assert cmp.datasets == [f"set{d}" for d in range(5)]
    part = pd.read_csv(folder / "set3.csv")
    assert cmp.matrix().loc["set3", "a"] == pytest.approx((part["a"] == part["y"]).mean())
    (folder / "set9.csv").write_text("y,a\n1,1\n")
    code, err = run(["report", str(folder), "--dataset", "file", "--y-true", "y",
                     "--out", str(tmp_path / "q.html")], capsys)
    assert code == 2 and "set9.csv: its columns differ from those of set0.csv" in err[0]


def _per_fold(n: int = 6, folds: int = 5) -> pd.DataFrame:
    """Long per-fold scores of three models: rf 0.04 above nb on every data set, knn near nb."""
    rng = np.random.default_rng(11)
    rows = []
    for d in range(n):
        base = rng.uniform(0.6, 0.9)
        for f in range(folds):
            noise = rng.normal(0, 0.01)
            rows += [{"dataset": f"set_{d}", "fold": f, "model": "rf",
                      "score": base + 0.04 + noise + rng.normal(0, 0.005)},
                     {"dataset": f"set_{d}", "fold": f, "model": "knn",
                      "score": base + noise + rng.normal(0, 0.005)},
                     {"dataset": f"set_{d}", "fold": f, "model": "nb",
                      "score": base + noise + rng.normal(0, 0.005)}]
    return pd.DataFrame(rows)


def test_hierarchical_section_from_per_fold_scores(tmp_path, capsys):
    pytest.importorskip("numpyro", reason="the hierarchical model's extra "
                                          "(requirements-bayes.txt) is not installed")
    path = tmp_path / "folds.csv"
    _per_fold().to_csv(path, index=False)
    out, js = tmp_path / "p.html", tmp_path / "c.json"
    code, err = run(["report", str(path), "--hierarchical", "--reference", "nb", "--out",
                     str(out), "--json", str(js), "--quiet"], capsys)
    assert code == 0, err
    cmp = comparison_from_json(js.read_text())
    h = cmp.hierarchical.set_index("model_a")
    assert list(h["model_b"]) == ["nb", "nb"]
    # rf is 0.04 above nb on every data set, beyond the ROPE of 0.01: the model says so
    assert h.loc["rf", "p_a_better"] > 0.95 and h.loc["rf", "decision"] == "rf is better"
    assert 0.03 < h.loc["rf", "delta0_mean"] < 0.05
    assert h.loc["rf", "delta0_low"] < 0.04 < h.loc["rf", "delta0_high"]
    # knn and nb differ by noise only: not A better
    assert h.loc["knn", "p_a_better"] < 0.5
    assert (h["rhat_max"] < 1.05).all() and (h["ess_min"] > 100).all()
    settings = cmp.settings["hierarchical"]
    assert settings["folds"] == 5 and settings["sampler"].startswith("NUTS (NumPyro ")
    page = out.read_text()
    assert "Across data sets from the folds: the hierarchical Bayesian model" in page
    assert "Corani, Benavoli, Demšar, Mangili and Zaffalon" in page
    assert "largest R-hat" in page and "divergent" in page and "ρ = 1/5" in page
    assert "hierarchical model of Corani" in cmp.methods


def test_hierarchical_needs_per_fold_scores_and_says_what_to_install(tmp_path, capsys,
                                                                     monkeypatch):
    path = tmp_path / "r.csv"
    _wide().to_csv(path, index=False)
    code, err = run(["report", str(path), "--hierarchical", "--out", str(tmp_path / "p.html")],
                    capsys)
    assert code == 2 and len(err) == 1 and "needs per-fold scores" in err[0], err
    folds = tmp_path / "f.csv"
    _per_fold().to_csv(folds, index=False)
    monkeypatch.setitem(__import__("sys").modules, "numpyro", None)  # as if not installed
    code, err = run(["report", str(folds), "--hierarchical", "--out",
                     str(tmp_path / "p.html")], capsys)
    assert code == 2 and len(err) == 1, err
    assert "needs NumPyro: pip install -r requirements-bayes.txt" in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.csv", "r.csv"]
