"""Out-of-fold predictions of several classifiers on the same folds (Gondara's Algorithm 2).

Cross-validation lets every observation be a test observation once per repetition, so the
precision comparison uses all n observations instead of a held-out fraction. The price is that
rows repeat: with r repetitions each observation appears r times per classifier, and the GEE
must cluster on the *original observation id* (docs/methods.md §7). Clustering on (id, repeat)
treats the repetitions as new observations and inflates the Wald statistic about r-fold.

:func:`cross_val_predictions` produces the long table ``id, repeat, fold, model, y_true,
y_pred``; :func:`to_wide` pivots it to one row per (id, repeat) with a column per model;
:func:`gee_from_long` runs the multi-classifier GEE on it with the clustering you choose.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._lib.checks import check_choice, check_positive_int
from ..core.labels import as_label_array

if TYPE_CHECKING:
    from ..core.counts import PrecisionMoments
    from ..stats.precision_gee import GEEPrecisionResult

__all__ = [
    "LONG_COLUMNS",
    "clustering_comparison",
    "cross_val_predictions",
    "gee_from_long",
    "to_wide",
]

LONG_COLUMNS = ("id", "repeat", "fold", "model", "y_true", "y_pred")

CLUSTERINGS = ("id", "id_repeat", "none")


def _estimator_mapping(estimators: Any) -> dict[str, Any]:
    if isinstance(estimators, Mapping):
        models = {str(k): v for k, v in estimators.items()}
    elif isinstance(estimators, Sequence) and not isinstance(estimators, str | bytes):
        models = {}
        for est in estimators:
            name = type(est).__name__
            models[name if name not in models else f"{name}_{len(models)}"] = est
    else:
        raise ValueError(
            "estimators must be a mapping name -> scikit-learn estimator or a sequence of "
            f"estimators; got {type(estimators).__name__}"
        )
    if not models:
        raise ValueError("estimators must hold at least one estimator; got none")
    for name, est in models.items():
        if not (hasattr(est, "fit") and hasattr(est, "predict") and hasattr(est, "get_params")):
            raise ValueError(
                f"estimators[{name!r}] must be a scikit-learn estimator with fit and predict; "
                f"got {type(est).__name__}"
            )
    return models


def _rows(X: Any, index: np.ndarray) -> Any:
    return X.iloc[index] if isinstance(X, pd.DataFrame | pd.Series) else X[index]


def cross_val_predictions(
    estimators: Mapping[str, Any] | Sequence[Any],
    X: Any,
    y: Any,
    *,
    n_splits: int = 10,
    n_repeats: int = 1,
    stratified: bool = True,
    ids: Any = None,
    random_state: int = 0,
    progress: bool = True,
) -> pd.DataFrame:
    """Out-of-fold predictions of several estimators on the same k-fold or r x k-fold splits.

    Parameters
    ----------
    estimators : mapping name -> scikit-learn estimator, or sequence of estimators
        The classifiers to compare. Each fold fits a fresh clone of each; give estimators
        with randomness a fixed ``random_state`` so that the table is reproducible.
    X : array-like or DataFrame of shape (n, p)
        Features.
    y : array-like of shape (n,)
        Class labels.
    n_splits : int
        Folds per repetition (k >= 2).
    n_repeats : int
        Repetitions of the k-fold split, each with another shuffle (r >= 1).
    stratified : bool
        Keep the class proportions in every fold (``RepeatedStratifiedKFold``) or not
        (``RepeatedKFold``).
    ids : array-like of shape (n,), optional
        Observation ids (default ``0 .. n-1``, the row positions).
    random_state : int
        Seed of the shuffles. Repetition 0 of an r x k run is the same split as the k-fold run
        with the same seed, so 10-fold results are the first repetition of 10 x 10-fold ones.
    progress : bool
        Show a progress bar over the r x k splits.

    Returns
    -------
    DataFrame with columns ``id, repeat, fold, model, y_true, y_pred``
        One row per (repetition, observation, model): ``n x r x len(estimators)`` rows,
        ordered by repetition, fold, model and id. ``repeat`` and ``fold`` count from 0.

    Raises
    ------
    ValueError
        ``estimators`` is empty or holds something without ``fit``/``predict``; ``X`` or
        ``ids`` do not have one entry per label; ``ids`` repeat; ``n_splits`` is below 2 or
        above the number of rows; ``n_repeats`` is below 1.

    Notes
    -----
    Every estimator sees exactly the same training and test rows in each split, so the
    predictions are paired, as the precision tests require. Feed the table to
    :func:`gee_from_long` (or pivot it with :func:`to_wide` and call ``gee_precision`` with
    ``groups=id``).

    References
    ----------
    Gondara, "Classifier comparison using precision", Algorithm 2.

    Examples
    --------
    Two classifiers, 3 x 5-fold cross-validation on the wine data:

    >>> from sklearn.datasets import load_wine
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_wine(return_X_y=True)
    >>> long = cross_val_predictions(
    ...     {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}, X, y,
    ...     n_splits=5, n_repeats=3, progress=False)
    >>> long.shape, list(long.columns)
    ((1068, 6), ['id', 'repeat', 'fold', 'model', 'y_true', 'y_pred'])
    >>> long.groupby("model")["y_pred"].size().tolist()  # 178 wines x 3 repetitions each
    [534, 534]

    Every wine is predicted three times by each model, once per repetition, always by a model
    that did not see it during training.
    """
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
    from tqdm.auto import tqdm

    models = _estimator_mapping(estimators)
    n_splits = check_positive_int(n_splits, "n_splits", minimum=2)
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    labels = as_label_array(y, "y")
    id_values = _observation_ids(X, labels, ids, n_splits)
    kind = RepeatedStratifiedKFold if stratified else RepeatedKFold
    splitter = kind(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
    splits = splitter.split(np.zeros((len(labels), 1)), labels)
    splits = tqdm(splits, total=n_splits * n_repeats, desc="folds", disable=not progress,
                  leave=False)
    y_fit = y.iloc if isinstance(y, pd.Series) else labels
    return _out_of_fold(models, X, y_fit, labels, id_values, splits, n_splits)


def _observation_ids(X: Any, labels: np.ndarray, ids: Any, n_splits: int) -> np.ndarray:
    """Check that ``X``, ``ids`` and ``n_splits`` fit the labels; return the ids (default 0..n-1)."""
    n = len(labels)
    if len(X) != n:
        raise ValueError(f"X must have one row per label ({n}); got {len(X)} rows")
    if n_splits > n:
        raise ValueError(f"n_splits must be at most the number of rows ({n}); got {n_splits}")
    id_values = np.arange(n) if ids is None else as_label_array(ids, "ids")
    if len(id_values) != n:
        raise ValueError(f"ids must have one entry per label ({n}); got {len(id_values)}")
    if pd.Index(id_values).has_duplicates:
        raise ValueError("ids must be unique: one id per observation")
    return id_values


def _out_of_fold(
    models: Mapping[str, Any],
    X: Any,
    y_fit: Any,
    labels: np.ndarray,
    id_values: np.ndarray,
    splits: Iterable[tuple[np.ndarray, np.ndarray]],
    n_splits: int,
) -> pd.DataFrame:
    """Fit a clone of every model on each split's training rows; stack the test predictions."""
    from sklearn.base import clone

    pieces: dict[str, list[np.ndarray]] = {c: [] for c in LONG_COLUMNS}
    for s, (train, test) in enumerate(splits):
        repeat, fold = divmod(s, n_splits)
        test = np.sort(test)
        for name, est in models.items():
            model = clone(est).fit(_rows(X, train), y_fit[train])
            pred = np.asarray(model.predict(_rows(X, test)))
            pieces["id"].append(id_values[test])
            pieces["repeat"].append(np.full(len(test), repeat))
            pieces["fold"].append(np.full(len(test), fold))
            pieces["model"].append(np.full(len(test), name, dtype=object))
            pieces["y_true"].append(labels[test])
            pieces["y_pred"].append(pred)
    return pd.DataFrame({c: np.concatenate(v) for c, v in pieces.items()})


def _check_long(long_table: Any) -> pd.DataFrame:
    if not isinstance(long_table, pd.DataFrame):
        raise ValueError(f"long_table must be a DataFrame; got {type(long_table).__name__}")
    needed = ["id", "model", "y_true", "y_pred"]
    missing = [c for c in needed if c not in long_table.columns]
    if missing:
        raise ValueError(
            f"long_table must have columns {', '.join(LONG_COLUMNS)} ('repeat' and 'fold' "
            f"optional); missing {missing}"
        )
    if len(long_table) == 0:
        raise ValueError("long_table must have at least one row")
    for column in needed:
        missing_rows = long_table[column].isna().to_numpy()
        if missing_rows.any():
            row = long_table.index[np.flatnonzero(missing_rows)[0]]
            raise ValueError(f"long_table has a missing {column} in row {row!r}")
    return long_table


def to_wide(long_table: pd.DataFrame) -> pd.DataFrame:
    """Pivot a long table of out-of-fold predictions to one row per (id, repeat).

    Parameters
    ----------
    long_table : DataFrame
        Columns ``id, repeat, fold, model, y_true, y_pred`` as made by
        :func:`cross_val_predictions` (``repeat`` and ``fold`` optional: without ``repeat``
        every id must appear once per model).

    Returns
    -------
    DataFrame
        Columns ``id``, ``repeat``, ``y_true`` and one column of predictions per model (in
        order of first appearance), sorted by ``repeat`` and ``id``.

    Raises
    ------
    ValueError
        A required column is missing; an (id, repeat, model) appears twice; a model has no
        prediction for some (id, repeat); an id has two different true labels.

    Examples
    --------
    >>> long = pd.DataFrame({
    ...     "id": [0, 1, 0, 1], "repeat": 0, "fold": [0, 1, 0, 1],
    ...     "model": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0]})
    >>> to_wide(long)
       id  repeat  y_true  a  b
    0   0       0       1  1  0
    1   1       0       0  1  0
    """
    long_table = _check_long(long_table)
    frame = long_table if "repeat" in long_table.columns else long_table.assign(repeat=0)
    key = ["id", "repeat", "model"]
    dup = frame.duplicated(key)
    if dup.any():
        row = frame.loc[dup.to_numpy()].iloc[0]
        raise ValueError(
            f"long_table has more than one prediction for id={row['id']!r}, "
            f"repeat={row['repeat']!r}, model={row['model']!r}"
        )
    truth = frame.groupby("id", sort=False)["y_true"].nunique()
    if (truth > 1).any():
        bad = truth.index[truth.to_numpy() > 1][0]
        raise ValueError(f"long_table gives id={bad!r} more than one true label")
    models = list(pd.unique(frame["model"]))
    wide = frame.pivot(index=["id", "repeat"], columns="model", values="y_pred")
    if wide.isna().to_numpy().any():
        counts = wide.notna().sum()
        short = counts.idxmin()
        raise ValueError(
            f"model {short!r} has predictions for {counts[short]} of the {len(wide)} "
            "(id, repeat) rows; every model must predict every row"
        )
    wide = wide[models]
    y_first = frame.drop_duplicates(["id"]).set_index("id")["y_true"]
    wide.columns = [str(m) for m in models]
    wide = wide.reset_index()
    wide.insert(2, "y_true", y_first.loc[wide["id"]].to_numpy())
    for m in wide.columns[3:]:  # pivot makes object columns; give back the labels' own dtype
        wide[m] = wide[m].astype(frame["y_pred"].dtype)
    return wide.sort_values(["repeat", "id"], kind="stable").reset_index(drop=True)


def _independent_moments(moments: PrecisionMoments) -> PrecisionMoments:
    """Recast moments as "every prediction its own cluster": cross-products between models vanish.

    Without repetitions each model's count per row is 0 or 1, so ``sum_i a_ij^2 = sum_i a_ij``:
    the diagonals are the counts themselves and ``a_ij w_ij = 0``.
    """
    from dataclasses import replace

    k, c = moments.n_correct.shape
    eye = np.eye(c, dtype=moments.cc.dtype)
    return replace(
        moments,
        cc=moments.n_correct[:, :, None] * eye,
        cw=np.zeros((k, c, c), dtype=moments.cw.dtype),
        ww=moments.n_wrong[:, :, None] * eye,
        n_clusters=moments.n_rows * c,
    )


def gee_from_long(
    long_table: pd.DataFrame,
    *,
    cluster: str = "id",
    reference: str | None = None,
    confidence_level: float = 0.95,
) -> GEEPrecisionResult:
    """Compare the precision of several classifiers by GEE on stacked out-of-fold predictions.

    Parameters
    ----------
    long_table : DataFrame
        Columns ``id, repeat, fold, model, y_true, y_pred`` (:func:`cross_val_predictions`).
    cluster : {"id", "id_repeat", "none"}
        ``"id"`` (right): all rows of an observation, over models and repetitions, form one
        cluster (Algorithm 2, docs/methods.md §7). The two wrong choices, for teaching:
        ``"id_repeat"``: each (id, repeat) is its own cluster, as if every repetition brought
        new observations; ``"none"``: every prediction is its own cluster, which also ignores
        that the models predicted the same observations (the pairing).
    reference : str, optional
        The model every other is compared with (default: the first model).
    confidence_level : float
        Level of the odds-ratio intervals.

    Returns
    -------
    GEEPrecisionResult
        As :func:`precmp_lib.stats.precision_gee.gee_precision` returns on the wide table
        (:func:`to_wide`) with ``groups`` set by ``cluster``: ``.precision``,
        ``.coefficients``, ``.joint``, ``.pairwise``.

    Raises
    ------
    ValueError
        ``cluster`` is not one of the three choices; ``long_table`` is not a valid long table
        (as for :func:`to_wide`); ``reference`` is not one of its models.

    Notes
    -----
    With r repetitions the bread of the sandwich grows like r, and so does the meat when
    each (id, repeat) is a cluster, but the meat grows like r^2 when the repetitions of an
    observation are one cluster (docs/methods.md §7). Clustering on ``(id, repeat)`` therefore
    inflates the Wald statistic about r-fold: a 10 x 10-fold analysis reports ten times the
    evidence the data hold. Identical repetitions (the same folds reused) leave the statistic
    clustered on ``id`` exactly unchanged, which is why Gondara's Table 11 shows the same
    statistics for 10-fold and 10 x 10-fold cross-validation.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    >>> long = cross_val_predictions(models, X, y, n_splits=5, n_repeats=4, progress=False)
    >>> right = gee_from_long(long).joint
    >>> wrong = gee_from_long(long, cluster="id_repeat").joint
    >>> (wrong["statistic"] / right["statistic"]).round(1).tolist()
    [3.0, 2.2]

    Clustered on (id, repeat), four repetitions of 5-fold cross-validation report two to three
    times the evidence the 569 tumours hold (the repetitions differ only in their folds).
    """
    from ..core.counts import precision_moments
    from ..stats.precision_gee import gee_precision, gee_precision_from_counts

    check_choice(cluster, "cluster", CLUSTERINGS)
    wide = to_wide(long_table)
    models = wide[wide.columns[3:]]
    if cluster == "none":
        moments = _independent_moments(precision_moments(wide["y_true"], models))
        return gee_precision_from_counts(moments, reference=reference,
                                         confidence_level=confidence_level)
    groups = wide["id"].to_numpy() if cluster == "id" else None  # a wide row is one (id, repeat)
    return gee_precision(wide["y_true"], models, reference=reference, groups=groups,
                         confidence_level=confidence_level)


def clustering_comparison(long_table: pd.DataFrame, *, reference: str | None = None) -> pd.DataFrame:
    """Tabulate the joint GEE test of equal precision per class under each choice of clusters.

    Parameters
    ----------
    long_table : DataFrame
        Out-of-fold predictions (:func:`cross_val_predictions`).
    reference : str, optional
        Reference model (the joint test does not depend on it).

    Returns
    -------
    DataFrame
        One row per (class, cluster) with ``class``, ``cluster`` (``"id"``, ``"id_repeat"``,
        ``"none"``), ``n_clusters``, ``statistic``, ``df``, ``pvalue`` and ``inflation``
        (statistic over the statistic clustered on ``id``, the right choice).

    Raises
    ------
    ValueError
        ``long_table`` is not a valid long table (as for :func:`to_wide`), or ``reference``
        is not one of its models.

    Examples
    --------
    Four repetitions of 5-fold cross-validation of two classifiers on the breast cancer data
    (as in :func:`gee_from_long`):

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    >>> long = cross_val_predictions(models, X, y, n_splits=5, n_repeats=4, progress=False)
    >>> table = clustering_comparison(long)
    >>> table[["class", "cluster", "n_clusters", "inflation"]].round(1)
       class    cluster  n_clusters  inflation
    0      0         id         569        1.0
    1      0  id_repeat        2276        3.0
    2      0       none        4552        1.7
    3      1         id         569        1.0
    4      1  id_repeat        2276        2.2
    5      1       none        4552        0.7

    The 569 tumours are 569 clusters; counting each repetition as new observations (2276
    clusters) inflates the evidence two- to threefold. With one repetition ``"id"`` and
    ``"id_repeat"`` coincide.
    """
    frames = []
    for cluster in CLUSTERINGS:
        res = gee_from_long(long_table, cluster=cluster, reference=reference)
        joint = res.joint[["class", "statistic", "df", "pvalue"]].copy()
        joint.insert(1, "cluster", cluster)
        joint.insert(2, "n_clusters", res.n_clusters)
        frames.append(joint)
    table = pd.concat(frames, ignore_index=True)
    right = table[table["cluster"] == "id"].set_index("class")["statistic"]
    with np.errstate(divide="ignore", invalid="ignore"):
        table["inflation"] = table["statistic"].to_numpy() / right.loc[table["class"]].to_numpy()
    position = {c: i for i, c in enumerate(frames[0]["class"])}  # each class: id, id_repeat, none
    order = np.argsort(table["class"].map(position).to_numpy(), kind="stable")
    return table.iloc[order].reset_index(drop=True)
