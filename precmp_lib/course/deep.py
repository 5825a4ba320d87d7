"""Two small convolutional networks on scikit-learn's 8 x 8 digits, trained deterministically.

Gondara's §3.8 compares two CNNs that are identical but for the dropout rate (0.5 and 0.7):
nearly equal accuracy, yet per-class precisions that differ. This module reproduces the setting
on data that ships with scikit-learn, on the CPU, in seconds: same architecture, same initial
weights and same order of mini-batches for both networks, so the dropout rate is the only
difference. PyTorch is optional: it is imported inside the functions that need it, and
:func:`cnn_predictions` falls back to a predictions file made by
``scripts/make_deep_predictions.py`` when it is not installed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._lib.checks import check_positive_int, check_probability
from ..sources.datasets import resource_path

if TYPE_CHECKING:  # optional at run time: imported inside the functions that train
    from torch import nn

__all__ = [
    "SHIPPED_PREDICTIONS",
    "DeepRun",
    "DigitsSplit",
    "cnn_predictions",
    "digits_split",
    "make_cnn",
    "predict_cnn",
    "torch_available",
    "train_cnn",
    "train_digits_cnns",
]

SHIPPED_PREDICTIONS = resource_path("deep_digits_predictions.csv")


def torch_available() -> bool:
    """Return True when PyTorch can be imported.

    Returns
    -------
    bool
        Whether ``import torch`` would find the package (it is not imported here).

    Examples
    --------
    >>> isinstance(torch_available(), bool)
    True
    """
    return importlib.util.find_spec("torch") is not None


@dataclass(frozen=True)
class DigitsSplit:
    """A fixed, stratified train/test split of scikit-learn's digits as image tensors.

    Attributes
    ----------
    X_train, X_test : ndarray of float32, shape (n, 1, 8, 8)
        Images scaled to [0, 1] (pixel counts 0..16 divided by 16).
    y_train, y_test : ndarray of int64
        Digit labels 0..9.
    id_test : ndarray of int64
        Row of each test image in ``sklearn.datasets.load_digits()``.
    """

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    id_test: np.ndarray


def digits_split(*, test_size: float = 0.5, random_state: int = 0) -> DigitsSplit:
    """Split the 1797 8 x 8 digit images into a training and a test set.

    Parameters
    ----------
    test_size : float
        Proportion of images in the test set (stratified by digit).
    random_state : int
        Seed of the split.

    Returns
    -------
    DigitsSplit
        Training and test images, their labels and the test images' rows in the digits data.

    Raises
    ------
    ValueError
        ``test_size`` is not in (0, 1).

    Examples
    --------
    >>> split = digits_split(test_size=0.5, random_state=0)
    >>> split.X_train.shape, split.X_test.shape
    ((898, 1, 8, 8), (899, 1, 8, 8))
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    test_size = check_probability(test_size, "test_size")
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    ids = np.arange(len(images))
    tr, te = train_test_split(ids, test_size=test_size, stratify=digits.target,
                              random_state=random_state)
    return DigitsSplit(
        X_train=images[tr], X_test=images[te],
        y_train=digits.target[tr].astype(np.int64), y_test=digits.target[te].astype(np.int64),
        id_test=te.astype(np.int64),
    )


@contextlib.contextmanager
def _deterministic(seed: int, threads: int) -> Iterator[None]:
    """Seed torch, fix the thread count and force deterministic kernels; restore on exit."""
    import torch

    old_threads = torch.get_num_threads()
    old_det = torch.are_deterministic_algorithms_enabled()
    old_state = torch.random.get_rng_state()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)
    try:
        yield
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_det)
        torch.random.set_rng_state(old_state)


def make_cnn(dropout: float, *, n_classes: int = 10, channels: tuple[int, int] = (16, 32),
             hidden: int = 64) -> nn.Sequential:
    """Build a small CNN for 8 x 8 images: two 3 x 3 convolutions, max-pooling, two dense layers.

    ``conv(1 -> c1) - ReLU - conv(c1 -> c2) - ReLU - maxpool 2 - dropout - dense(16 c2 ->
    hidden) - ReLU - dropout - dense(hidden -> n_classes)``. The dropout rate is the only
    argument that differs between the two networks of the comparison. Requires PyTorch; the
    initial weights come from torch's global generator (seed it, as :func:`train_cnn` does).

    Parameters
    ----------
    dropout : float
        Rate of both dropout layers, in [0, 1).
    n_classes : int
        Outputs of the last layer, one per class.
    channels : (int, int)
        Output channels ``c1`` and ``c2`` of the two convolutions.
    hidden : int
        Units of the hidden dense layer.

    Returns
    -------
    torch.nn.Sequential
        The untrained network, in float32 and in training mode.

    Raises
    ------
    ValueError
        ``dropout`` is not in [0, 1).

    Examples
    --------
    Weights and biases, layer by layer, with the default sizes:

    >>> (1 * 16 * 9 + 16) + (16 * 32 * 9 + 32) + (32 * 16 * 64 + 64) + (64 * 10 + 10)
    38282
    >>> torch_available() is False or sum(p.numel() for p in make_cnn(0.5).parameters()) == 38282
    True

    About 38 thousand weights: small enough to train on 900 images in seconds on one core.
    """
    import torch
    from torch import nn

    check_probability(dropout, "dropout", low_open=False)
    c1, c2 = channels
    return nn.Sequential(
        nn.Conv2d(1, c1, kernel_size=3, padding=1), nn.ReLU(),
        nn.Conv2d(c1, c2, kernel_size=3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(dropout),
        nn.Linear(c2 * 16, hidden), nn.ReLU(), nn.Dropout(dropout),
        nn.Linear(hidden, n_classes),
    ).to(torch.float32)


def train_cnn(
    X: np.ndarray,
    y: np.ndarray,
    *,
    dropout: float,
    epochs: int = 60,
    batch_size: int = 64,
    learning_rate: float = 2e-3,
    seed: int = 0,
    threads: int = 1,
) -> nn.Module:
    """Train :func:`make_cnn` with Adam on cross-entropy, deterministically on the CPU.

    Parameters
    ----------
    X : ndarray of shape (n, 1, 8, 8)
        Training images.
    y : ndarray of shape (n,)
        Labels 0..n_classes-1.
    dropout : float
        Dropout rate of both dropout layers.
    epochs, batch_size, learning_rate : training schedule.
    seed : int
        Seeds the initial weights, the order of the mini-batches and the dropout masks. Two
        networks trained with the same seed start from the same weights and see the same
        batches; only their dropout masks (and rate) differ.
    threads : int
        CPU threads torch may use. Results are reproducible for a fixed thread count (they
        can change with it). One thread is the default: for a network this small, a second
        thread costs more in synchronisation than it gains (about 7 times the CPU time on
        a busy 2-core machine).

    Returns
    -------
    torch.nn.Module
        The trained network, in evaluation mode.

    Raises
    ------
    ValueError
        ``X`` is not of shape (n, 1, 8, 8) with ``n = len(y)``, ``dropout`` is not in [0, 1),
        or ``epochs``, ``batch_size`` or ``threads`` is not a positive integer.
    """
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    threads = check_positive_int(threads, "threads")
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y, dtype=np.int64)
    if X.ndim != 4 or len(X) != len(y):
        raise ValueError(f"X must have shape (n, 1, 8, 8) with n = len(y) = {len(y)}; got {X.shape}")
    import torch

    with _deterministic(seed, threads):
        net = make_cnn(dropout, n_classes=int(y.max()) + 1)
        generator = torch.Generator().manual_seed(seed)
        Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
        optimiser = torch.optim.Adam(net.parameters(), lr=learning_rate)
        loss_fn = torch.nn.CrossEntropyLoss()
        net.train()
        for _ in range(epochs):
            order = torch.randperm(len(yt), generator=generator)
            for start in range(0, len(order), batch_size):
                batch = order[start:start + batch_size]
                optimiser.zero_grad()
                loss = loss_fn(net(Xt[batch]), yt[batch])
                loss.backward()
                optimiser.step()
        net.eval()
    return net


def predict_cnn(net: nn.Module, X: np.ndarray, *, threads: int = 1) -> np.ndarray:
    """Predict the label of each image: the arg-max of the network's outputs.

    Parameters
    ----------
    net : torch.nn.Module
        A network from :func:`train_cnn` (in evaluation mode).
    X : ndarray of shape (n, 1, 8, 8)
        Images.
    threads : int
        CPU threads torch may use (see :func:`train_cnn`).

    Returns
    -------
    ndarray of int64, shape (n,)
        The predicted label of each image.
    """
    import torch

    with _deterministic(0, threads), torch.no_grad():
        return net(torch.from_numpy(np.asarray(X, dtype=np.float32))).argmax(dim=1).numpy()


@dataclass(frozen=True)
class DeepRun:
    """Predictions of the CNNs on the digits test set and how they were obtained.

    Attributes
    ----------
    predictions : DataFrame
        ``id``, ``y_true`` and one column per network (``cnn_dropout_0.5``, ...).
    source : str
        ``"trained"`` (trained now), ``"shipped"`` (the project's file, PyTorch missing) or
        ``"file"`` (a user's file).
    seconds : dict name -> float
        Training time of each network (empty unless trained now).
    settings : dict
        Seed, epochs, test size, threads, torch version (where trained).
    """

    predictions: pd.DataFrame
    source: str
    seconds: dict[str, float] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def models(self) -> list[str]:
        """The network (model) columns of ``predictions``, in order."""
        return [c for c in self.predictions.columns if c not in ("id", "y_true")]

    def describe(self) -> str:
        """Say in one line where the predictions come from.

        Returns
        -------
        str
            A sentence for the notebook: the torch version, epochs, seed and training times;
            the file read; or that the shipped file stands in for a missing PyTorch.

        Examples
        --------
        >>> DeepRun(pd.DataFrame({"y_true": [1], "a": [1]}), "shipped").describe()[:24]
        'PyTorch is not installed'
        """
        if self.source == "trained":
            times = ", ".join(f"{m} in {s:.1f} s" for m, s in self.seconds.items())
            return (f"Trained now with torch {self.settings.get('torch', '?')} "
                    f"({self.settings.get('epochs')} epochs, seed {self.settings.get('seed')}): {times}.")
        if self.source == "file":
            return f"Predictions read from {self.settings.get('file')}: models {', '.join(self.models)}."
        return ("PyTorch is not installed: using the shipped deep_digits_predictions.csv, made by "
                "scripts/make_deep_predictions.py with the default settings (see data/README.md).")


def _model_name(dropout: float) -> str:
    return f"cnn_dropout_{dropout:g}"


def train_digits_cnns(
    *,
    dropouts: Sequence[float] = (0.5, 0.7),
    epochs: int = 60,
    test_size: float = 0.5,
    seed: int = 0,
    threads: int = 1,
) -> DeepRun:
    """Train one CNN per dropout rate on the digits split and predict its test set.

    All networks share the split, the seed (initial weights, batch order) and the schedule,
    so they differ only in the dropout rate. Requires PyTorch.

    Parameters
    ----------
    dropouts : sequence of float
        One network per dropout rate, named ``cnn_dropout_<rate>``.
    epochs : int
        Passes over the training set.
    test_size : float
        Proportion of the digits in the test set (:func:`digits_split`).
    seed : int
        Seed of the split, the initial weights, the batch order and the dropout masks.
    threads : int
        CPU threads torch may use (see :func:`train_cnn`).

    Returns
    -------
    DeepRun
        ``source="trained"``: the test-set predictions sorted by ``id``, the training time of
        each network and the settings (with the torch version).

    Raises
    ------
    ValueError
        As :func:`digits_split` and :func:`train_cnn`.
    """
    import torch

    split = digits_split(test_size=test_size, random_state=seed)
    frame = pd.DataFrame({"id": split.id_test, "y_true": split.y_test})
    seconds: dict[str, float] = {}
    for rate in dropouts:
        start = time.perf_counter()
        net = train_cnn(split.X_train, split.y_train, dropout=rate, epochs=epochs, seed=seed,
                        threads=threads)
        seconds[_model_name(rate)] = time.perf_counter() - start
        frame[_model_name(rate)] = predict_cnn(net, split.X_test, threads=threads)
    frame = frame.sort_values("id", kind="stable").reset_index(drop=True)
    settings = {"seed": seed, "epochs": epochs, "test_size": test_size, "threads": threads,
                "dropouts": list(dropouts), "torch": torch.__version__}
    return DeepRun(frame, "trained", seconds, settings)


def cnn_predictions(
    predictions_file: str = "",
    *,
    y_true: str = "y_true",
    id_column: str | None = None,
    models: Sequence[str] | None = None,
    train: bool | None = None,
    dropouts: Sequence[float] = (0.5, 0.7),
    epochs: int = 60,
    test_size: float = 0.5,
    seed: int = 0,
    threads: int = 1,
) -> DeepRun:
    """Get the predictions to compare: from a user's file, a fresh training run or the shipped file.

    Parameters
    ----------
    predictions_file : str
        A predictions file (wide layout: a truth column and one column per model; see
        :func:`precmp_lib.sources.predictions.read_predictions`). When given, nothing is trained.
    y_true : str
        The truth column of ``predictions_file``.
    id_column : str, optional
        An observation-id column of ``predictions_file`` (kept, not a model).
    models : sequence of str, optional
        The model columns of ``predictions_file`` to read (default: all but truth and id).
    train : bool, optional
        Train the CNNs now (default: when PyTorch is installed). Without PyTorch the
        predictions come from the shipped ``deep_digits_predictions.csv``, which
        ``scripts/make_deep_predictions.py`` made with the default settings.
    dropouts, epochs, test_size, seed, threads
        Passed to :func:`train_digits_cnns`.

    Returns
    -------
    DeepRun
        The predictions (``id`` where known, ``y_true`` and one column per model) and their
        ``source``: ``"file"``, ``"trained"`` or ``"shipped"``.

    Raises
    ------
    ValueError
        As :func:`precmp_lib.sources.predictions.read_predictions` for a bad file, or as
        :func:`train_digits_cnns` when training.

    Examples
    --------
    >>> run = cnn_predictions(train=False)
    >>> run.source, run.models, len(run.predictions)
    ('shipped', ['cnn_dropout_0.5', 'cnn_dropout_0.7'], 899)
    """
    from ..sources.predictions import read_predictions

    if predictions_file:
        preds = read_predictions(predictions_file, y_true=y_true, id_column=id_column or None,
                                 models=list(models) if models else None)
        return DeepRun(preds.frame(), "file", settings={"file": Path(predictions_file).name})
    if train is None:
        train = torch_available()
    if train:
        return train_digits_cnns(dropouts=dropouts, epochs=epochs, test_size=test_size, seed=seed,
                                 threads=threads)
    return DeepRun(pd.read_csv(SHIPPED_PREDICTIONS), "shipped", settings={"file": SHIPPED_PREDICTIONS.name})
