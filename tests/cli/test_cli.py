"""The `precmp report` command: every bad input exits 2 with one line naming the file, the column
and the problem, and leaves no report behind."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from precmp_lib.cli import main, report_parameters


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "preds.csv"
    pd.DataFrame({"y": ["cat", "dog", "dog", "bird"], "lr": ["cat", "dog", "cat", "bird"],
                  "rf": ["cat", "dog", "dog", "dog"]}).to_csv(path, index=False)
    return path


def run(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


CASES = {
    "missing column": ("y,lr,rf\n0,0,1\n", ["--y-true", "truth"],
                       "bad.csv: column 'truth' (true labels, y_true) is missing"),
    "missing label": ("y,lr,rf\n0,0,1\n1,,1\n", ["--y-true", "y"],
                      "bad.csv: column 'lr' has a missing label (line 3)"),
    "empty file": ("", ["--y-true", "y"], "bad.csv: the file is empty"),
    "header only": ("y,lr,rf\n", ["--y-true", "y"], "bad.csv: the file has a header but no rows"),
    "labels never in truth": ("y,lr,rf\n0,a,1\n1,b,0\n", ["--y-true", "y"],
                              "bad.csv: column 'lr': none of its labels (a, b) occurs in the truth column"),
    "duplicated long rows": ("id,model,y_true,y_pred\n1,a,0,0\n1,a,0,1\n1,b,0,0\n",
                             ["--y-true", "y_true", "--format", "long"],
                             "bad.csv: duplicated (id, model) rows for model 'a'"),
    "one model": ("y,lr\n0,0\n1,1\n", ["--y-true", "y"], "bad.csv: need at least two models"),
    "unknown reference": ("y,lr,rf\n0,0,1\n1,1,0\n", ["--y-true", "y", "--reference", "svm"],
                          "bad.csv: --reference 'svm' is not one of the models"),
    "unknown prevalence class": ("y,lr,rf\n0,0,1\n1,1,0\n", ["--y-true", "y", "--prevalence", "7=0.1"],
                                 "bad.csv: --prevalence class '7' is not a label of column 'y'"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input_exits_2_with_one_line_and_no_report(case, tmp_path, capsys):
    text, args, message = CASES[case]
    path = tmp_path / "bad.csv"
    path.write_text(text)
    out = tmp_path / "report.html"
    code, err = run(["report", str(path), *args, "--out", str(out)], capsys)
    assert code == 2
    assert len(err) == 1 and err[0].startswith("precmp: error: ") and message in err[0]
    assert not out.exists() and list(tmp_path.iterdir()) == [path]


def test_unreadable_parquet(tmp_path, capsys):
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"PAR1 not really")
    code, err = run(["report", str(path), "--y-true", "y", "--out", str(tmp_path / "r.html")], capsys)
    assert code == 2 and "bad.parquet: cannot be read as PARQUET" in err[0]


def test_missing_file(tmp_path, capsys):
    code, err = run(["report", str(tmp_path / "nope.csv"), "--y-true", "y"], capsys)
    assert code == 2 and "nope.csv: no such file" in err[0]


@pytest.mark.parametrize(("args", "message"), [
    (["--alpha", "2"], "--alpha must lie in (0, 1)"),
    (["--prevalence", "cat"], "--prevalence takes CLASS=P"),
    (["--prevalence", "cat=1.5"], "P must lie in (0, 1)"),
    (["--format", "tall"], "invalid choice: 'tall'"),
])
def test_bad_options_exit_2_in_one_line(args, message, good, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", str(good), "--y-true", "y", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_no_traceback_through_the_real_command(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("y,lr,rf\n0,0,1\n")
    proc = subprocess.run([sys.executable, "-m", "precmp_lib", "report", str(path), "--y-true", "nope"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("precmp: error: bad.csv: column 'nope' (true labels, y_true) is missing; "
                                   "columns are: y, lr, rf")
    assert "Traceback" not in proc.stderr


def test_report_parameters_from_registry_row():
    params = report_parameters({"predictions": "data/examples/digits_wide.csv", "y_true": "digit",
                                "models": "", "id": "id", "format": "wide", "reference": "",
                                "prevalence": "eight=0.05 one=0.2", "alpha": 0.01})
    assert params["models"] == [] and params["reference"] == "" and params["id_column"] == "id"
    assert params["prevalence"] == {"eight": 0.05, "one": 0.2} and params["alpha"] == 0.01
    assert params["predictions"].endswith("digits_wide.csv")


def test_a_glob_of_parquet_files_and_every_engine_give_one_comparison(tmp_path, capsys, monkeypatch):
    # the command counts a folder of Parquet parts as one table; numpy and DuckDB agree on it
    from precmp_lib.report import render as report

    seen = []
    monkeypatch.setattr(report, "render_report", lambda cmp, out, **kw: seen.append(cmp) or out)
    frame = pd.DataFrame({"y": ["a", "b", "b", "a", "c", "c"] * 5,
                          "m1": ["a", "b", "a", "a", "c", "b"] * 5,
                          "m2": ["b", "b", "b", "a", "c", "c"] * 5})
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:12].to_parquet(parts / "p0.parquet")
    frame.iloc[12:].to_parquet(parts / "p1.parquet")
    frame.to_csv(tmp_path / "all.csv", index=False)
    runs = [[str(parts / "*.parquet")], [str(tmp_path / "all.csv"), "--engine", "numpy"],
            [str(tmp_path / "all.csv"), "--engine", "duckdb"]]
    for args in runs:
        assert main(["report", *args, "--y-true", "y", "--quiet", "--out", str(tmp_path / "r.html")]) == 0
    assert [c.n_rows for c in seen] == [30, 30, 30]
    assert seen[0].summary.equals(seen[1].summary) and seen[1].summary.equals(seen[2].summary)
    assert seen[0].per_class.equals(seen[2].per_class)


def test_the_command_names_each_count_by_what_it_counts(tmp_path, capsys):
    from precmp_lib.sources.datasets import resource_path

    # 3 x 5-fold cv of 569 observations, 3 models, long layout: 5,121 rows of the file,
    # 1,707 predictions per model (scripts/make_example_predictions.py)
    src = resource_path("examples/breast_cancer_cv_long.csv")
    assert main(["report", str(src), "--y-true", "y_true", "--n-resamples", "100",
                 "--out", str(tmp_path / "r.html")]) == 0
    said = capsys.readouterr().err
    assert ("3 models, 2 classes, 1,707 predictions per model: 569 observations × 3 repeats"
            in said)
    assert " rows" not in said


@pytest.fixture
def items(tmp_path):
    path = tmp_path / "items.csv"
    pd.DataFrame({"q": list(range(30)) * 3, "model": ["x"] * 30 + ["y"] * 30 + ["z"] * 30,
                  "score": [i % 2 for i in range(30)] + [i % 3 > 0 for i in range(30)] + [1] * 30,
                  "doc": [i // 3 for i in range(30)] * 3}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("args", "message"), [
    (["--item", "q", "--positive", "x"],
     "--positive applies to probabilities, not to evaluation items (--item, --eval-log): give a "
     "predictions file, --y-true COL and --proba COL ..."),
    (["--item", "q", "--y-true", "score", "--prevalence", "a=0.1", "--seed", "3"],
     "--y-true, --prevalence, --seed apply to predictions files or results across data sets or "
     "probabilities, not to evaluation items"),
    (["--item", "q", "--n-resamples", "500", "--format", "long"],
     "--format, --n-resamples apply to predictions files"),
    (["--y-true", "score", "--cluster", "doc"],
     "--cluster applies to evaluation items or probabilities, not to predictions files (no "
     "--item or --eval-log): give --item COL or --eval-log NAME=PATH"),
    (["--y-true", "score", "--test", "mcnemar", "--sample", "s"],
     "--sample, --test apply to evaluation items"),
    (["--item", "q", "--y-pred", "p", "--rope", "0.02"],
     "--y-pred, --rope apply to predictions files or probabilities or results across data sets, "
     "not to evaluation items"),
])
def test_an_option_of_the_other_report_exits_2_and_writes_nothing(args, message, items, capsys):
    # each would otherwise be read by neither report and ignored without a word
    out = items.parent / "r.html"
    code, err = run(["report", str(items), *args, "--out", str(out), "--json",
                     str(items.parent / "r.json")], capsys)
    assert code == 2
    assert len(err) == 1 and err[0].startswith("precmp: error: ") and message in err[0]
    assert list(items.parent.iterdir()) == [items]


def test_the_item_report_writes_its_notebook_and_keeps_the_models_asked_for(items, capsys,
                                                                            executed_outputs):
    import json

    from precmp_lib.report.html import esc

    nb_path = items.parent / "nb" / "items.ipynb"
    code, err = run(["report", str(items), "--item", "q", "--cluster", "doc", "--models", "z",
                     "x", "--out", str(items.parent / "items.html"), "--notebook", str(nb_path),
                     "--quiet"], capsys)
    assert code == 0 and err == []
    saved = json.loads((nb_path.parent / "items.json").read_text(encoding="utf-8"))
    assert saved["models"] == ["z", "x"]  # in the order asked for
    assert {(p["model_a"], p["model_b"]) for p in saved["pairs"]["records"]} <= {("z", "x"),
                                                                                ("x", "z")}
    shown = executed_outputs(nb_path, "items.json")
    page = (items.parent / "items.html").read_text(encoding="utf-8")
    assert "Pairs of models on the same items" in shown and "Pairs of models on the same items" in page
    for said in (saved["recommendation"], saved["conclusions"][-1]):
        assert esc(said) in shown and esc(said) in page
