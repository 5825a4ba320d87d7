"""Reading prediction files: wide and long, CSV and Parquet, and every bad-input message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from precmp_lib.sources.predictions import PredictionFileError, read_predictions


@pytest.fixture
def wide_csv(tmp_path):
    path = tmp_path / "wide.csv"
    pd.DataFrame({
        "truth": ["cat", "dog", "bird", "dog", "cat"],
        "lr": ["cat", "dog", "dog", "dog", "bird"],
        "rf": ["cat ", "cat", "bird", "dog", "cat"],  # trailing space is stripped
    }).to_csv(path, index=False)
    return path


def test_wide_csv_string_labels(wide_csv):
    p = read_predictions(wide_csv, y_true="truth")
    assert p.models == ["lr", "rf"]
    assert p.classes.tolist() == ["bird", "cat", "dog"]
    assert p.y_true.tolist() == ["cat", "dog", "bird", "dog", "cat"]
    assert p.preds["rf"].tolist() == ["cat", "cat", "bird", "dog", "cat"]
    enc = p.encoded()
    assert enc.preds.shape == (5, 2) and enc.names == ("lr", "rf")
    assert p.groups is None and p.notes == ()


def test_wide_parquet_matches_csv(wide_csv, tmp_path):
    pq = tmp_path / "wide.parquet"
    pd.read_csv(wide_csv).to_parquet(pq)
    a, b = read_predictions(wide_csv, y_true="truth"), read_predictions(pq, y_true="truth")
    assert a.classes.tolist() == b.classes.tolist()
    assert np.array_equal(a.codes_true, b.codes_true)
    assert all(np.array_equal(a.codes[m], b.codes[m]) for m in a.models)


def test_wide_int_labels_and_model_selection(tmp_path):
    path = tmp_path / "ints.csv"
    pd.DataFrame({"id": [1, 2, 3], "y": [0, 1, 2], "a": [0, 1, 1], "b": [2, 1, 2], "c": [0, 0, 0]}).to_csv(path, index=False)
    p = read_predictions(path, y_true="y", models=["a", "b"], id_column="id")
    assert p.models == ["a", "b"] and p.classes.tolist() == [0, 1, 2] and p.groups is None


def test_long_format_with_repeats_gives_groups(tmp_path):
    rows = []
    for rep in range(2):
        for i, y in enumerate([0, 1, 1]):
            rows += [{"id": i, "repeat": rep, "model": m, "y_true": y, "y_pred": (y + rep + k) % 2}
                     for k, m in enumerate(["nb", "rf"])]
    path = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    p = read_predictions(path, layout="long")
    assert p.n_rows == 6 and p.models == ["nb", "rf"]
    assert sorted(p.groups.tolist()) == [0, 0, 1, 1, 2, 2]
    frame = p.frame()
    assert set(frame.columns) == {"id", "y_true", "nb", "rf"}


def test_long_format_single_test_set(tmp_path):
    path = tmp_path / "long1.csv"
    pd.DataFrame({"id": [1, 1, 2, 2], "model": ["a", "b", "a", "b"], "y_true": ["x", "x", "y", "y"],
                  "y_pred": ["x", "y", "y", "y"]}).to_csv(path, index=False)
    p = read_predictions(path, layout="long")
    assert p.groups is None and p.y_true.tolist() == ["x", "y"] and p.preds["b"].tolist() == ["y", "y"]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "text", "kwargs", "message"),
    [
        ("a.csv", "y,lr\n0,1\n", {"y_true": "truth"},
         r"a\.csv: column 'truth' \(true labels, y_true\) is missing; columns are: y, lr"),
        ("b.csv", "y,lr,rf\n0,1,0\n1,,1\n", {"y_true": "y"},
         r"b\.csv: column 'lr' has a missing label \(line 3\)"),
        ("c.csv", "", {"y_true": "y"}, r"c\.csv: the file is empty"),
        ("d.csv", "y,lr\n", {"y_true": "y"}, r"d\.csv: the file has a header but no rows"),
        ("e.parquet", "not parquet at all", {"y_true": "y"}, r"e\.parquet: cannot be read as PARQUET"),
        ("f.csv", "y,lr,rf\n0,cat,0\n1,dog,1\n", {"y_true": "y"},
         r"f\.csv: column 'lr': none of its labels \(cat, dog\) occurs in the truth column"),
        ("g.csv", "y,lr\n0,1\n", {"y_true": "y", "models": ["lr", "svm"]},
         r"g\.csv: column 'svm' \(model predictions, models\) is missing"),
        ("h.csv", "id,model,y_true,y_pred\n1,a,0,0\n1,a,0,1\n1,b,0,0\n", {"layout": "long"},
         r"h\.csv: duplicated \(id, model\) rows for model 'a' \(line 3\)"),
        ("i.csv", "id,model,y_true,y_pred\n1,a,0,0\n1,b,1,0\n", {"layout": "long"},
         r"i\.csv: column 'y_true': an observation has more than one true label \(observation id=1\)"),
        ("j.csv", "id,model,y_true,y_pred\n1,a,0,0\n2,a,1,1\n1,b,0,0\n", {"layout": "long"},
         r"j\.csv: column 'model': model 'b' lacks predictions"),
        ("k.xlsx", "x", {"y_true": "y"}, r"k\.xlsx: unknown file type '\.xlsx'"),
        ("l.csv", "y\n0\n", {"y_true": "y"}, r"l\.csv: no model columns besides the truth"),
    ],
)
def test_bad_files_name_file_column_and_problem(tmp_path, name, text, kwargs, message):
    path = write(tmp_path, name, text)
    with pytest.raises(PredictionFileError, match=message):
        read_predictions(path, **kwargs)


def test_missing_file_and_bad_layout(tmp_path):
    with pytest.raises(PredictionFileError, match="no such file"):
        read_predictions(tmp_path / "nope.csv")
    with pytest.raises(PredictionFileError, match="layout must be 'wide' or 'long'"):
        read_predictions(tmp_path / "nope.csv", layout="tall")


def test_extra_predicted_label_is_a_note_not_an_error(tmp_path):
    path = write(tmp_path, "n.csv", "y,lr,rf\n0,0,0\n1,2,1\n")
    p = read_predictions(path, y_true="y")
    assert p.notes and "'lr' predicts labels never seen in the truth: [2]" in p.notes[0]


def test_long_k_fold_file_with_named_columns_reads_one_row_per_observation(tmp_path):
    # a fold column and no repeat column: k-fold cross-validation, one repeat, each id once
    path = tmp_path / "kfold.csv"
    pd.DataFrame({"id": [1, 1, 2, 2, 3, 3], "fold": [0, 0, 1, 1, 2, 2],
                  "clf": ["a", "b"] * 3, "y_true": ["x", "x", "y", "y", "x", "x"],
                  "label": ["x", "y", "y", "y", "y", "x"]}).to_csv(path, index=False)
    p = read_predictions(path, layout="long", model_column="clf", pred_column="label")
    assert p.models == ["a", "b"] and p.n_rows == 3
    assert p.y_true.tolist() == ["x", "y", "x"]
    assert p.preds["a"].tolist() == ["x", "y", "y"] and p.preds["b"].tolist() == ["y", "y", "x"]
