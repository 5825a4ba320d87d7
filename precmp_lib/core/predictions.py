"""The counts of the predictions route: what every engine returns for a comparison of models.

:class:`Counts` holds the pattern counts of several models' predictions on one test set or on
repeated cross-validation, with the cluster sums and class profiles a clustered statistic
needs (:mod:`precmp_lib.core.clusters`). The engines (:mod:`precmp_lib.engine`) build it
where the rows live; the tests and the comparison read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .clusters import ClassProfiles, ClusterSums

__all__ = ["Counts"]


@dataclass(frozen=True)
class Counts:
    """Sufficient statistics of a comparison of several models' predictions.

    Attributes
    ----------
    classes : tuple
        Class labels in code order (code ``k`` is ``classes[k]``).
    models : tuple of str
        Model names; model ``j``'s predicted code is column ``p{j}``.
    patterns : DataFrame
        Columns ``repeat``, ``fold`` (repeated cv only), ``y``, ``p0`` .. ``p{m-1}``, ``count``
        (int64): number of rows with that pattern. Only observed patterns are listed, sorted by
        the key columns.
    observations : DataFrame or None
        Repeated cv counted with ``observations=True`` only: columns ``obs`` (dense code of the
        observation id, in sorted id order), ``y``, ``p0`` .. ``p{m-1}``, ``count`` (number of
        repeats of that observation with that pattern).
    design : str
        ``"test set"`` or ``"repeated cv"``.
    n_rows : int
        Prediction events counted (rows of the wide table: observations x repeats).
    n_observations : int
        Distinct observations.
    repeats, folds : int or None
        Repeated cv only: number of repeats and of folds per repeat.
    engine : str
        The engine that counted: ``"numpy"``, ``"duckdb"`` or ``"spark"``.
    source : str
        What was counted, for messages and reports (a file name, "DataFrame", ...).
    notes : tuple of str
        Remarks found while reading (e.g. a model predicting a label the truth never has).
    clusters : ClusterSums or None
        Repeated cv only: sums over observations (the clusters) of products of
        per-observation counts, which the clustered accuracy intervals and the clustered GS and
        GEE tests use.
    profiles : tuple of ClassProfiles, or None
        Repeated cv counted with ``prevalence_classes`` only: for each of those classes (in
        order; its code in ``classes``), the observations grouped by their profile over it,
        which a bootstrap over observations resamples (the prevalence update).

    Examples
    --------
    >>> import pandas as pd
    >>> from precmp_lib import count_predictions
    >>> c = count_predictions(pd.DataFrame({"y": [0, 1, 1], "m": [0, 1, 0]}), y_true="y")
    >>> c.models, c.classes, c.n_rows
    (('m',), (0, 1), 3)
    """

    classes: tuple
    models: tuple[str, ...]
    patterns: pd.DataFrame
    observations: pd.DataFrame | None
    design: str
    n_rows: int
    n_observations: int
    repeats: int | None = None
    folds: int | None = None
    engine: str = "numpy"
    source: str = ""
    notes: tuple[str, ...] = field(default=())
    clusters: ClusterSums | None = None
    profiles: tuple[ClassProfiles, ...] | None = None

    @property
    def n_models(self) -> int:
        """Number of models compared."""
        return len(self.models)

    @property
    def n_classes(self) -> int:
        """Number of classes (labels seen in the truth or in any prediction)."""
        return len(self.classes)

    @property
    def pred_columns(self) -> list[str]:
        """Names of the prediction code columns, in model order."""
        return [f"p{j}" for j in range(len(self.models))]
