"""Datasets: the registry in ``data/datasets.csv``, scikit-learn's bundled sets and the paper's UCI sets.

``load_dataset(name)`` returns a :class:`Dataset` with features ``X`` (DataFrame), labels ``y``
(Series) and ``split`` (a Series of ``"train"``/``"test"`` where the source is pre-partitioned,
else None).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

__all__ = ["Dataset", "list_datasets", "load_dataset"]

REGISTRY = Path(__file__).resolve().parent.parent / "data" / "datasets.csv"


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset.

    Attributes
    ----------
    name : str
        Registry name.
    X : DataFrame
        Features, one row per observation.
    y : Series
        Class labels (ints or clean strings), aligned with ``X``.
    split : Series or None
        ``"train"``/``"test"`` per row where the source comes pre-partitioned, else None.
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    split: pd.Series | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}: {v}" for k, v in self.y.value_counts().sort_index().items())
        split = "" if self.split is None else ", pre-split"
        return f"Dataset({self.name!r}, {self.X.shape[0]} rows x {self.X.shape[1]} features, classes {{{counts}}}{split})"


@cache
def _registry() -> pd.DataFrame:
    return pd.read_csv(REGISTRY, dtype={"split": "string"}, keep_default_na=False)


def list_datasets() -> pd.DataFrame:
    """The dataset registry: name, loader, title, source, license, citation, rows, columns, classes.

    >>> reg = list_datasets()
    >>> reg.loc[reg["name"] == "iris", ["rows", "columns", "classes"]].to_numpy().tolist()
    [[150, 4, 3]]
    """
    return _registry().copy()


def _load_sklearn(name: str) -> Dataset:
    from sklearn import datasets

    loader = getattr(datasets, f"load_{name}")
    bunch = loader(as_frame=True)
    X = bunch.data.copy()
    y = bunch.target.rename("class").astype("int64")
    return Dataset(name=name, X=X, y=y)


def load_dataset(name: str) -> Dataset:
    """Load a dataset from the registry by name.

    Parameters
    ----------
    name : str
        One of ``list_datasets()["name"]``.

    Examples
    --------
    >>> ds = load_dataset("breast_cancer")
    >>> ds.X.shape, ds.y.value_counts().sort_index().tolist()
    ((569, 30), [212, 357])
    """
    reg = _registry()
    if name not in set(reg["name"]):
        known = ", ".join(reg["name"])
        raise ValueError(f"name must be one of the registered datasets ({known}); got {name!r}")
    loader = reg.loc[reg["name"] == name, "loader"].item()
    if loader == "sklearn":
        return _load_sklearn(name)
    raise ValueError(f"dataset {name!r} comes from UCI; run `make data` or set PRECMP_DATA_MIRROR")
