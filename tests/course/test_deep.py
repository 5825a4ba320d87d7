"""The digits CNNs: split, shipped predictions and their provenance, deterministic training."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_digits

from precmp_lib.course import deep
from precmp_lib.sources.datasets import resource_path

needs_torch = pytest.mark.skipif(not deep.torch_available(), reason="PyTorch is not installed")

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_deep_predictions", ROOT / "scripts" / "make_deep_predictions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_digits_split_is_fixed_stratified_and_disjoint():
    a = deep.digits_split(test_size=0.5, random_state=0)
    b = deep.digits_split(test_size=0.5, random_state=0)
    assert np.array_equal(a.id_test, b.id_test) and np.array_equal(a.X_train, b.X_train)
    assert a.X_train.shape == (898, 1, 8, 8) and a.X_test.shape == (899, 1, 8, 8)
    assert a.X_train.dtype == np.float32 and 0 <= a.X_test.min() and a.X_test.max() <= 1
    digits = load_digits()
    # test images and labels are the rows id_test of load_digits(), scaled by 1/16
    assert np.allclose(a.X_test[:, 0] * 16, digits.images[a.id_test])
    assert np.array_equal(a.y_test, digits.target[a.id_test])
    # stratified: every digit has about half its images in the test set
    share = np.bincount(a.y_test) / np.bincount(digits.target)
    assert np.all(np.abs(share - 0.5) < 0.01)
    assert len(set(a.id_test)) == 899
    other = deep.digits_split(test_size=0.5, random_state=1)
    assert not np.array_equal(a.id_test, other.id_test)


def test_shipped_predictions_are_the_digits_test_set():
    run = deep.cnn_predictions(train=False)
    frame = run.predictions
    assert run.source == "shipped" and run.seconds == {}
    assert list(frame.columns) == ["id", "y_true", "cnn_dropout_0.5", "cnn_dropout_0.7"]
    # the ids are the test split of digits_split(0.5, 0) and the truth is load_digits' target
    split = deep.digits_split(test_size=0.5, random_state=0)
    assert np.array_equal(frame["id"].to_numpy(), np.sort(split.id_test))
    assert np.array_equal(frame["y_true"].to_numpy(), load_digits().target[frame["id"]])
    # data/README.md records the test accuracies of the shipped file
    readme = (ROOT / "data" / "README.md").read_text()
    for m in run.models:
        acc = (frame[m] == frame["y_true"]).mean()
        assert f"{acc:.4f}" in readme


def test_user_predictions_file(tmp_path):
    path = tmp_path / "mine.csv"
    pd.DataFrame({"truth": ["cat", "dog", "dog"], "a": ["cat", "dog", "cat"],
                  "b": ["dog", "dog", "dog"]}).to_csv(path, index=False)
    run = deep.cnn_predictions(str(path), y_true="truth", train=True)  # a file wins over training
    assert run.source == "file" and run.models == ["a", "b"]
    assert run.predictions["y_true"].tolist() == ["cat", "dog", "dog"]


def test_user_predictions_file_with_id_and_chosen_models():
    path = resource_path("examples/digits_wide.csv")
    run = deep.cnn_predictions(str(path), y_true="digit", id_column="id", models=["svm", "logistic"])
    assert run.models == ["svm", "logistic"]
    # a unique id column only names rows (read_predictions keeps ids that repeat, as clusters)
    assert list(run.predictions.columns) == ["y_true", "svm", "logistic"]
    raw = pd.read_csv(path)
    assert run.predictions["y_true"].tolist() == raw["digit"].tolist()
    assert run.predictions["svm"].tolist() == raw["svm"].tolist()
    assert run.describe() == "Predictions read from digits_wide.csv: models svm, logistic."


def test_user_predictions_file_errors_name_the_file(tmp_path):
    path = tmp_path / "mine.csv"
    pd.DataFrame({"truth": [0, 1], "a": [0, 1]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"mine\.csv: column .y_true."):
        deep.cnn_predictions(str(path))


@needs_torch
def test_training_restores_torch_settings():
    import torch

    threads, det = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    split = deep.digits_split()
    deep.train_cnn(split.X_train[:64], split.y_train[:64], dropout=0.5, epochs=1, threads=1)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == det


@needs_torch
def test_networks_differ_only_in_dropout():
    import torch

    a, b = deep.make_cnn(0.5), deep.make_cnn(0.7)
    rates = [m.p for m in a.modules() if isinstance(m, torch.nn.Dropout)]
    assert rates == [0.5, 0.5]
    assert [m.p for m in b.modules() if isinstance(m, torch.nn.Dropout)] == [0.7, 0.7]
    assert [tuple(p.shape) for p in a.parameters()] == [tuple(p.shape) for p in b.parameters()]
    # conv 1->16, conv 16->32 (3 x 3), dense 32*4*4 -> 64 -> 10, each with biases
    assert sum(p.numel() for p in a.parameters()) == (9 + 1) * 16 + (16 * 9 + 1) * 32 + (512 + 1) * 64 + (64 + 1) * 10
    # same seed -> same initial weights, whatever the dropout rate
    with deep._deterministic(3, 1):
        w_a = deep.make_cnn(0.5).state_dict()
    with deep._deterministic(3, 1):
        w_b = deep.make_cnn(0.7).state_dict()
    assert all(torch.equal(w_a[k], w_b[k]) for k in w_a)


@needs_torch
def test_training_is_deterministic_and_learns():
    split = deep.digits_split()
    kw = dict(dropout=0.5, epochs=3, seed=5, threads=1)
    p1 = deep.predict_cnn(deep.train_cnn(split.X_train, split.y_train, **kw), split.X_test)
    p2 = deep.predict_cnn(deep.train_cnn(split.X_train, split.y_train, **kw), split.X_test)
    assert np.array_equal(p1, p2)
    assert np.mean(p1 == split.y_test) > 0.5  # ten classes: chance is 0.1


@needs_torch
def test_training_path_reproduces_the_shipped_file():
    import torch

    if not torch.__version__.startswith("2.13.0"):
        pytest.skip(f"the shipped file was made with torch 2.13.0; this is {torch.__version__}")
    settings = _script().SETTINGS
    run = deep.cnn_predictions(train=True, **settings)
    assert run.source == "trained" and set(run.seconds) == set(run.models)
    assert run.settings["torch"].startswith("2.13.0")
    shipped = pd.read_csv(deep.SHIPPED_PREDICTIONS)
    assert list(run.predictions.columns) == list(shipped.columns)
    assert len(run.predictions) == len(shipped)
    # Bit for bit on a processor whose vector kernels match the one that made the file; torch
    # picks its CPU kernels by instruction set (AVX2, AVX-512, ...), and their float rounding
    # differs, so a few of 60 epochs' predictions can flip on another processor (0.1 % of the
    # digits' 899 test rows on an AVX2-only machine, 0.56 % -- 5 rows -- of the dropout-0.5
    # network on a virtual Xeon with AVX-512; 1 % is 9 rows). The truth column is never trained.
    assert (run.predictions["y_true"].to_numpy() == shipped["y_true"].to_numpy()).all()
    for col in shipped.columns.drop("y_true"):
        differ = float(np.mean(run.predictions[col].to_numpy() != shipped[col].to_numpy()))
        assert differ <= 0.01, f"{col}: {differ:.2%} of the predictions differ from the file"


@needs_torch
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dropout": 1.5}, r"dropout must lie in \[0, 1\)"),
        ({"dropout": 0.5, "epochs": 0}, "epochs must be an integer >= 1"),
        ({"dropout": 0.5, "threads": 0}, "threads must be an integer >= 1"),
    ],
)
def test_training_bad_input(kwargs, message):
    split = deep.digits_split()
    with pytest.raises(ValueError, match=message):
        deep.train_cnn(split.X_train[:8], split.y_train[:8], **kwargs)


@needs_torch
def test_training_rejects_flat_images():
    split = deep.digits_split()
    with pytest.raises(ValueError, match=r"X must have shape \(n, 1, 8, 8\)"):
        deep.train_cnn(split.X_train.reshape(len(split.X_train), 64), split.y_train, dropout=0.5)


def test_library_imports_without_loading_torch():
    import subprocess
    import sys

    code = "import sys, precmp_lib; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
