"""The sums of the items route: what every engine returns for models scored on the same items.

:class:`ItemSums` holds, per task, sums over items and second-level sums over clusters of
several models' item scores, never rows: their size is bounded by models², whatever the number
of items or clusters. Every paired statistic of two models (the clustered McNemar test, the
cluster-robust paired difference, TOST) and every model's clustered mean is a function of them
(:meth:`precmp_lib.stats.paired.PairedSums.from_items`). The engines
(:func:`precmp_lib.engine.items.count_items`) build them where the rows live.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

__all__ = ["ItemSums"]


@dataclass(frozen=True)
class ItemSums:
    """Sums over items and clusters of several models' item scores, for one task.

    Attributes
    ----------
    task : str
        The task (``""`` without a task column; ``"all tasks"`` after :meth:`combine`).
    models : tuple of str
        Model names, sorted; index j of the arrays is ``models[j]``.
    n_items : int
        Items every model answered.
    n_clusters : int or None
        Clusters; None when the source has no cluster column (every item its own cluster).
    sum_n2 : float
        Σ_c n_c² (``n_items`` without clusters).
    sums : ndarray (m,)
        Σ_i a_ij, the sum of model j's item scores.
    item_gram : ndarray (m, m)
        Σ_i a_ij a_ik.
    cluster_ns : ndarray (m,)
        Σ_c n_c S_cj.
    cluster_gram : ndarray (m, m)
        Σ_c S_cj S_ck.
    answers : ndarray (m,)
        Answers per model (Σ_i K_ij).
    within : ndarray (m,)
        Σ_i w_ij, w the variance (ddof 1) of an item's answers (items answered once add 0).
    within_over_k : ndarray (m,)
        Σ_i w_ij / K_ij.
    k_min, k_max : int
        Fewest and most answers of one model to one item.
    binary : bool
        Every item score is 0 or 1 (one answer per item, scored right or wrong).
    engine : str
        Who read the rows: ``"numpy"``, ``"duckdb"`` or ``"spark"``.
    source : str
        What was read, for messages and reports.
    n_rows : int
        Rows (answers) read.
    notes : tuple of str
        Notes of the reader.
    unit : bool
        Every item score lies between 0 and 1 (a difference of means reads as points).
    dropped : tuple of int
        With ``common_items``: per model, the items it answered that were left out because
        some other model did not answer them (empty otherwise).
    """

    task: str
    models: tuple[str, ...]
    n_items: int
    n_clusters: int | None
    sum_n2: float
    sums: np.ndarray
    item_gram: np.ndarray
    cluster_ns: np.ndarray
    cluster_gram: np.ndarray
    answers: np.ndarray
    within: np.ndarray
    within_over_k: np.ndarray
    k_min: int
    k_max: int
    binary: bool
    engine: str = "numpy"
    source: str = ""
    n_rows: int = 0
    notes: tuple[str, ...] = field(default=())
    unit: bool = True
    dropped: tuple[int, ...] = field(default=())

    @property
    def n_models(self) -> int:
        """Number of models."""
        return len(self.models)

    def _c(self) -> int | None:
        return self.n_clusters

    def flips(self, a: int, b: int) -> tuple[float, float]:
        """Items only ``a`` gets right and items only ``b`` gets right (0/1 scores).

        Parameters
        ----------
        a, b : int
            Model indices.

        Returns
        -------
        (float, float)
            Σ a (1 - b) and Σ b (1 - a): going from A to B, the items that flip from right to
            wrong and from wrong to right.
        """
        g = self.item_gram
        return float(self.sums[a] - g[a, b]), float(self.sums[b] - g[a, b])

    def cluster_sum_d2(self, a: int, b: int) -> float:
        """Σ_c D_c² with D_c = S_ca - S_cb (Obuchowski's denominator for 0/1 scores).

        Parameters
        ----------
        a, b : int
            Model indices.

        Returns
        -------
        float
        """
        h = self.cluster_gram
        if self.n_clusters is None:
            g = self.item_gram
            return float(max(g[a, a] - 2 * g[a, b] + g[b, b], 0.0))
        return float(max(h[a, a] - 2 * h[a, b] + h[b, b], 0.0))

    @staticmethod
    def combine(parts: Sequence[ItemSums], task: str = "all tasks") -> ItemSums:
        """Add the sums of disjoint sets of items (tasks), model by model.

        Parameters
        ----------
        parts : sequence of ItemSums
            With the same models; either all clustered or none.
        task : str
            The combined task's name.

        Returns
        -------
        ItemSums
        """
        first = parts[0]
        clustered = first.n_clusters is not None
        if any(p.models != first.models or (p.n_clusters is not None) != clustered for p in parts):
            raise ValueError("parts must have the same models and all or none clustered")

        def add(name: str) -> Any:
            return sum((getattr(p, name) for p in parts[1:]), getattr(first, name))

        return replace(first, task=task, n_items=add("n_items"),
                       n_clusters=add("n_clusters") if clustered else None,
                       sum_n2=add("sum_n2"), sums=add("sums"), item_gram=add("item_gram"),
                       cluster_ns=add("cluster_ns"), cluster_gram=add("cluster_gram"),
                       answers=add("answers"), within=add("within"),
                       within_over_k=add("within_over_k"),
                       k_min=min(p.k_min for p in parts), k_max=max(p.k_max for p in parts),
                       binary=all(p.binary for p in parts), unit=all(p.unit for p in parts),
                       n_rows=add("n_rows"),
                       dropped=tuple(int(sum(v)) for v in zip(*(p.dropped for p in parts)))
                       if all(p.dropped for p in parts) else ())

    def to_dict(self) -> dict[str, Any]:
        """Return the sums as plain lists and numbers (JSON-ready).

        Returns
        -------
        dict
        """
        out: dict[str, Any] = {}
        for k in self.__dataclass_fields__:
            v = getattr(self, k)
            out[k] = v.tolist() if isinstance(v, np.ndarray) else (list(v) if isinstance(v, tuple) else v)
        return out
