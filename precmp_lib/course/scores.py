"""Score matrices: the cross-validated score of several classifiers on several data sets.

Notebook 03 builds the N data sets x k classifiers matrix that the rank tests of
:mod:`precmp_lib.stats.ranks` (Friedman, Nemenyi, Wilcoxon) take, from the registry's data sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._lib.checks import check_bool, check_positive_int

__all__ = ["score_matrix"]


def _dataset_arrays(name: str, source: Any) -> tuple[np.ndarray, np.ndarray]:
    from ..sources.datasets import Dataset, load_dataset

    if source is None:
        source = load_dataset(name)
    if isinstance(source, Dataset):
        X, y = source.X, source.y
    elif isinstance(source, tuple) and len(source) == 2:
        X, y = source
    else:
        raise ValueError(f"datasets[{name!r}] must be a Dataset or an (X, y) pair; "
                         f"got {type(source).__name__}")
    try:
        Xa = np.asarray(X.to_numpy() if isinstance(X, pd.DataFrame) else X, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"dataset {name!r}: features must be numeric") from None
    ya = np.asarray(y.to_numpy() if isinstance(y, pd.Series) else y)
    if Xa.ndim != 2 or ya.ndim != 1 or Xa.shape[0] != ya.shape[0]:
        raise ValueError(f"dataset {name!r}: X must be n x p and y of length n; "
                         f"got {Xa.shape} and {ya.shape}")
    return Xa, ya


def _subsample(X: np.ndarray, y: np.ndarray, max_rows: int | None, random_state: int):
    """At most ``max_rows`` rows, drawn without replacement, stratified by class when possible."""
    if max_rows is None or X.shape[0] <= max_rows:
        return X, y
    from sklearn.model_selection import train_test_split

    try:
        keep, _ = train_test_split(np.arange(X.shape[0]), train_size=max_rows, stratify=y,
                                   random_state=random_state)
    except ValueError:  # a class too small to stratify
        keep, _ = train_test_split(np.arange(X.shape[0]), train_size=max_rows,
                                   random_state=random_state)
    keep = np.sort(keep)
    return X[keep], y[keep]


def score_matrix(
    estimators: Mapping[str, Any],
    datasets: Sequence[str] | Mapping[str, Any],
    *,
    cv: int = 5,
    scoring: str = "accuracy",
    max_rows: int | None = None,
    random_state: int = 0,
    progress: bool = True,
    threads: int | None = 1,
) -> pd.DataFrame:
    """Cross-validated score of every estimator on every data set: the N x k input of the rank tests.

    Parameters
    ----------
    estimators : mapping name -> scikit-learn estimator
        The classifiers to compare (cloned before each fit).
    datasets : sequence of registry names, or mapping name -> Dataset or (X, y)
        Names are loaded with :func:`precmp_lib.sources.datasets.load_dataset`.
    cv : int
        Number of stratified folds (shuffled with ``random_state``). Every estimator sees the
        same folds of a data set, so the scores are paired.
    scoring : str
        A scikit-learn scorer name; higher is better for all of them.
    max_rows : int, optional
        Larger data sets are subsampled (stratified, with ``random_state``) to this many rows.
    random_state : int
        Seed for subsampling and fold assignment.
    progress : bool
        Show a progress bar over the (data set, estimator) pairs.
    threads : int or None
        Threads of the BLAS and OpenMP pools while fitting (default 1). Benchmark models are
        small, and on a busy machine oversubscribed thread pools can slow such fits down a
        hundredfold; None leaves the libraries' defaults.

    Returns
    -------
    DataFrame of shape (N, k)
        Mean score over the folds; index ``dataset``, columns ``classifier``.

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> est = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    >>> s = score_matrix(est, ["iris", "wine"], cv=3, progress=False)
    >>> s.shape, list(s.columns), bool(s.to_numpy().min() > 0.8)
    ((2, 2), ['nb', 'tree'], True)

    Both classifiers are accurate on these two easy data sets; with this many data sets no
    test could separate them.
    """
    from contextlib import nullcontext

    from sklearn.base import clone
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
    from threadpoolctl import threadpool_limits
    from tqdm.auto import tqdm

    if not isinstance(estimators, Mapping) or len(estimators) == 0:
        raise ValueError("estimators must be a non-empty mapping name -> estimator; "
                         f"got {type(estimators).__name__}")
    cv = check_positive_int(cv, "cv", minimum=2)
    if max_rows is not None:
        max_rows = check_positive_int(max_rows, "max_rows", minimum=cv)
    progress = check_bool(progress, "progress")
    if threads is not None:
        threads = check_positive_int(threads, "threads")
    if isinstance(datasets, Mapping):
        sources = {str(k): v for k, v in datasets.items()}
    elif isinstance(datasets, str) or not isinstance(datasets, Sequence):
        raise ValueError("datasets must be a list of dataset names or a mapping name -> data; "
                         f"got {type(datasets).__name__}")
    else:
        sources = {str(name): None for name in datasets}
    if len(sources) == 0:
        raise ValueError("datasets must name at least one data set")
    names = [str(n) for n in estimators]
    out = np.empty((len(sources), len(names)))
    bar = tqdm(total=len(sources) * len(names), desc="cross-validating", disable=not progress)
    with bar, threadpool_limits(limits=threads) if threads else nullcontext():
        for i, (dname, source) in enumerate(sources.items()):
            X, y = _subsample(*_dataset_arrays(dname, source), max_rows, random_state)
            _, class_counts = np.unique(y, return_counts=True)
            splitter = (StratifiedKFold if class_counts.min() >= cv else KFold)(
                n_splits=cv, shuffle=True, random_state=random_state)
            folds = list(splitter.split(X, y))
            for j, est in enumerate(estimators.values()):
                bar.set_postfix_str(f"{dname} / {names[j]}")
                out[i, j] = cross_val_score(clone(est), X, y, cv=folds, scoring=scoring).mean()
                bar.update(1)
    return pd.DataFrame(out, index=pd.Index(list(sources), name="dataset"),
                        columns=pd.Index(names, name="classifier"))
