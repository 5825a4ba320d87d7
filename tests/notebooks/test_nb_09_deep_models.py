"""Contract of notebooks/09_deep_models.ipynb: the shipped file, the training path, a user's file.

The training path is the notebook's one run at its defaults (nbval does not execute it again), as
is the solutions notebook's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import notebook_parameters
from stated import assert_states

import precmp_lib as pc
from precmp_lib.course import deep

pytestmark = pytest.mark.notebook
PARAMS = notebook_parameters("09_deep_models")


def _expected_per_class(frame, a, b):
    table = pc.compare_precision(frame["y_true"], frame[a], frame[b])
    table["gs_pvalue_adjusted"] = pc.adjust_pvalues(table["gs_pvalue"], method="holm")
    return table


def _check_per_class(res, expected):
    got = pd.DataFrame(res["per_class"])
    assert got["class"].astype(str).tolist() == expected["class"].astype(str).tolist()
    for col in ("precision_a", "precision_b", "gs_pvalue", "gs_pvalue_adjusted", "rp", "rp_pvalue"):
        np.testing.assert_allclose(got[col].astype(float), expected[col].astype(float), rtol=1e-9)


def test_notebook_09_shipped_predictions(run_notebook):
    res = run_notebook("09_deep_models", train=False)
    assert res["source"] == "shipped" and res["training_seconds"] == {}
    _check_conclusion(res)
    assert res["models"] == ["cnn_dropout_0.5", "cnn_dropout_0.7"]
    shipped = pd.read_csv(deep.SHIPPED_PREDICTIONS)
    assert res["n_test"] == len(shipped) == 899
    for m in res["models"]:
        assert res["accuracy"][m] == pytest.approx((shipped[m] == shipped["y_true"]).mean())
    # McNemar and per-class GS / RP recomputed here from the shipped file
    table = pc.mcnemar_table(shipped["y_true"], shipped["cnn_dropout_0.5"], shipped["cnn_dropout_0.7"])
    assert res["mcnemar_pvalue"] == pytest.approx(pc.mcnemar(table).pvalue)
    _check_per_class(res, _expected_per_class(shipped, "cnn_dropout_0.5", "cnn_dropout_0.7"))


@pytest.mark.runs_notebook("09_deep_models")
def test_notebook_09_trains(notebook_defaults):
    res = notebook_defaults
    if not deep.torch_available():  # the notebook ran on the shipped file instead
        assert res["source"] == "shipped"
        pytest.skip("PyTorch is not installed: the notebook read the shipped predictions")
    assert PARAMS["train"] and not PARAMS["predictions_file"]
    assert res["source"] == "trained"
    assert set(res["training_seconds"]) == {"cnn_dropout_0.5", "cnn_dropout_0.7"}
    epochs, seed = PARAMS["epochs"], PARAMS["seed"]
    assert res["settings"]["epochs"] == epochs and res["settings"]["torch"].startswith("2.")
    # training is deterministic: the same settings here give the same predictions and tests
    run = deep.train_digits_cnns(epochs=epochs, seed=seed, test_size=PARAMS["test_size"],
                                 threads=PARAMS["threads"])
    _check_per_class(res, _expected_per_class(run.predictions, *run.models))


def test_notebook_09_user_file(run_notebook):
    path = deep.SHIPPED_PREDICTIONS.parent / "examples" / "digits_wide.csv"
    res = run_notebook("09_deep_models", predictions_file=str(path), y_true_column="digit",
                       id_column="id", models=["logistic", "svm"])
    assert res["source"] == "file" and res["models"] == ["logistic", "svm"]
    frame = pd.read_csv(path).rename(columns={"digit": "y_true"})
    assert res["n_test"] == len(frame)
    _check_per_class(res, _expected_per_class(frame, "logistic", "svm"))


def test_notebook_09_string_labels(run_notebook, tmp_path):
    # the shipped predictions with the digits written as words: a user's file with string labels
    words = dict(enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                            "nine"]))
    frame = pd.read_csv(deep.SHIPPED_PREDICTIONS)
    named = frame.assign(**{c: frame[c].map(words) for c in ("y_true", "cnn_dropout_0.5",
                                                             "cnn_dropout_0.7")})
    path = tmp_path / "named.csv"
    named.to_csv(path, index=False)
    res = run_notebook("09_deep_models", predictions_file=str(path), id_column="id")
    assert res["source"] == "file" and res["models"] == ["cnn_dropout_0.5", "cnn_dropout_0.7"]
    expected = _expected_per_class(named, "cnn_dropout_0.5", "cnn_dropout_0.7")
    _check_per_class(res, expected)
    # the widget starts at the class with the smallest GS p-value; its counts add up to the
    # predictions of that class by either network
    cls = expected.loc[expected["gs_pvalue"].idxmin(), "class"]
    assert res["widget_class"] == cls
    start = {r["predicted_by"]: r for r in res["widget_start"]}
    either = ((named["cnn_dropout_0.5"] == cls) | (named["cnn_dropout_0.7"] == cls)).sum()
    assert sum(r["correct"] + r["wrong"] for r in start.values()) == either


@pytest.mark.runs_notebook("solutions/09_deep_models")
def test_solutions_09(notebook_defaults):
    res = notebook_defaults
    shipped = pd.read_csv(deep.SHIPPED_PREDICTIONS)
    table = pc.mcnemar_table(shipped["y_true"], shipped["cnn_dropout_0.5"], shipped["cnn_dropout_0.7"])
    assert res["mcnemar_pvalue"] == pytest.approx(pc.mcnemar(table).pvalue)
    assert res["ex2"]["Holm at 0.05"] <= res["ex2"]["Holm at 0.2"]
    assert res["ex2"]["Holm at 0.05"] <= res["ex2"]["unadjusted at 0.05"]
    assert len(res["ex3"]) == 10
    # exercise 4: the shipped logistic/SVM pair, McNemar recomputed here
    other = pd.read_csv(deep.SHIPPED_PREDICTIONS.parent / "examples" / "digits_wide.csv")
    table = pc.mcnemar_table(other["digit"], other["logistic"], other["svm"])
    assert res["ex4"]["mcnemar_pvalue"] == pytest.approx(pc.mcnemar(table).pvalue)
    assert res["ex4"]["logistic vs SVM"] > res["ex4"]["two networks"]


def _check_conclusion(res):
    """The conclusion states the accuracies, McNemar's p, the per-class counts and the smallest GS
    p-value of results.json, and no other number."""
    pc_ = pd.DataFrame(res["per_class"])
    a, b = res["models"]
    diff = pc_["precision_a"] - pc_["precision_b"]
    small = pc_.loc[pc_["gs_pvalue"].idxmin()]
    alpha = 0.05
    significant = pc_.loc[pc_["gs_pvalue_adjusted"] <= alpha, "class"].tolist()
    label = small["class"] if isinstance(small["class"], str) else int(small["class"])  # digits 0-9
    text = res["statements"]["conclusion"]
    assert_states(text, [
        f"{res['accuracy'][a]:.4f}", f"{res['accuracy'][b]:.4f}", f"{res['mcnemar_pvalue']:.3f}",
        int((diff > 0).sum()), int((diff < 0).sum()), f"{diff.abs().max():.3f}", label,
        f"{small['precision_a']:.3f}", f"{small['precision_b']:.3f}", f"{small['gs_pvalue']:.4f}",
        f"{small['gs_pvalue_adjusted']:.4f}", alpha, *significant], ignore=[a, b])
    assert ("no evidence that the accuracies differ" in text) == (res["mcnemar_pvalue"] > alpha)
