"""Algorithm selection by nested cross-validation.

Tuning hyperparameters on the same folds that score the tuned model makes the score optimistic:
the winning setting was chosen *because* it scored well on those folds. Nested cross-validation
keeps the two apart (Varma & Simon 2006; Raschka 2018, §4): an inner cross-validation on each
outer training set picks the hyperparameters, and the model refitted with them is scored once on
the outer test fold, which took no part in the choice. :func:`holdout_selection` shows the two
simpler recipes it grows out of: the three-way holdout (train / validation / test) and k-fold
model selection on a training part with one held-out test part.

:func:`nested_cv_scores` runs this for several algorithms, each with its own grid, on the same
outer folds, so the outer scores are paired by fold and go straight into
:func:`precmp_lib.corrected_resampled_ttest` or :func:`precmp_lib.bayes_correlated_ttest`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.checks import check_positive_int, check_probability
from ..core.labels import as_label_array

__all__ = ["HOLDOUT_COLUMNS", "NESTED_CV_COLUMNS", "holdout_selection", "nested_cv_scores"]

NESTED_CV_COLUMNS = ["algorithm", "outer_fold", "score", "best_params", "inner_score", "n_train",
                     "n_test"]
HOLDOUT_COLUMNS = ["algorithm", "selection", "best_params", "selection_score", "test_score",
                   "n_train", "n_test"]


def _rows(data: Any, index: np.ndarray) -> Any:
    """Rows ``index`` of an array, DataFrame or Series (by position)."""
    if isinstance(data, pd.DataFrame | pd.Series):
        return data.iloc[index]
    return np.asarray(data)[index]


def _splitter(cv: Any, name: str, classifier: bool, seed: int | None) -> Any:
    """Make a splitter: an int gives a shuffled (stratified for classifiers) K-fold, else as is."""
    from sklearn.model_selection import KFold, StratifiedKFold

    if isinstance(cv, int | np.integer) and not isinstance(cv, bool):
        k = check_positive_int(cv, name, minimum=2)
        kind = StratifiedKFold if classifier else KFold
        return kind(n_splits=k, shuffle=True, random_state=seed)
    if hasattr(cv, "split") and hasattr(cv, "get_n_splits"):
        return cv
    raise ValueError(f"{name} must be an integer >= 2 or a scikit-learn splitter; got {cv!r}")


def _format_params(params: Mapping[str, Any]) -> str:
    if not params:
        return "(defaults)"
    return ", ".join(f"{key}={value!r}" for key, value in sorted(params.items()))


def _check_models(estimators: Any, param_grids: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    if not isinstance(estimators, Mapping) or len(estimators) == 0:
        raise ValueError(f"estimators must be a non-empty mapping name -> estimator; got "
                         f"{type(estimators).__name__}")
    if not isinstance(param_grids, Mapping):
        raise ValueError(f"param_grids must be a mapping name -> grid; got "
                         f"{type(param_grids).__name__}")
    missing = [name for name in estimators if name not in param_grids]
    extra = [name for name in param_grids if name not in estimators]
    if missing or extra:
        raise ValueError(f"param_grids must have the same names as estimators; missing "
                         f"{missing}, unknown {extra}")
    for name, est in estimators.items():
        if not (hasattr(est, "fit") and hasattr(est, "get_params")):
            raise ValueError(f"estimators[{name!r}] must be a scikit-learn estimator; got "
                             f"{type(est).__name__}")
    return {str(k): v for k, v in estimators.items()}, {str(k): v for k, v in param_grids.items()}


def _seed(random_state: Any) -> int:
    """Return the seed of every split made here; one fresh seed when none is given."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    return check_positive_int(random_state, "random_state", minimum=0)


def holdout_selection(
    estimators: Mapping[str, Any],
    param_grids: Mapping[str, Any],
    X: Any,
    y: npt.ArrayLike,
    *,
    test_size: float = 0.2,
    validation: float | int = 0.25,
    scoring: str | Callable[..., Any] = "accuracy",
    random_state: int | None = None,
) -> pd.DataFrame:
    """Tune each algorithm on a training part, then score the tuned model once on a held-out test part.

    Parameters
    ----------
    estimators, param_grids : mappings name -> estimator and name -> grid
        As for :func:`nested_cv_scores`; estimators are cloned, never changed.
    X, y : features and labels
        As for :func:`nested_cv_scores`.
    test_size : float
        Share of the rows held out as the test part, in (0, 1) (stratified for classifiers).
    validation : float or int
        How the hyperparameters are chosen on the training part. A float in (0, 1): the
        **three-way holdout**, that share of the training part is a validation set, each setting
        is fitted on the rest and scored on it. An int K >= 2: **K-fold model selection**, each
        setting is scored by K-fold cross-validation of the whole training part. Either way the
        best setting is refitted on the whole training part before it meets the test part.
    scoring : str or callable
        Scikit-learn scorer (higher is better), to choose and to score.
    random_state : int, optional
        Seed of the splits.

    Returns
    -------
    DataFrame
        One row per algorithm: ``algorithm``, ``selection`` (``"three-way holdout"`` or
        ``"K-fold CV"``), ``best_params`` (readable string), ``selection_score`` (the best
        setting's validation or mean cross-validation score), ``test_score``, ``n_train``
        (training part, validation included) and ``n_test``. ``frame.attrs["best_params"]``
        lists the chosen parameter dicts.

    Notes
    -----
    The test part is used once, after every choice is made, so ``test_score`` is an unbiased
    estimate of the chosen model's score, from only ``n_test`` rows. ``selection_score`` is the
    maximum over the grid and so optimistic. Choosing *between algorithms* by their test
    scores would make the test part a second validation set; that is the job of nested
    cross-validation (:func:`nested_cv_scores`).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> table = holdout_selection({"knn": KNeighborsClassifier()},
    ...                           {"knn": {"n_neighbors": [1, 5, 15]}}, X, y, random_state=0)
    >>> row = table.iloc[0]
    >>> row["selection"], row["best_params"], int(row["n_train"]), int(row["n_test"])
    ('three-way holdout', 'n_neighbors=1', 120, 30)

    One neighbour did best on the validation set; the 30 test irises then score that choice.
    """
    from sklearn.base import clone, is_classifier
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import GridSearchCV, PredefinedSplit, train_test_split

    models, grids = _check_models(estimators, param_grids)
    labels = as_label_array(y, "y")
    n = len(labels)
    if len(X) != n:
        raise ValueError(f"X must have one row per label ({n}); got {len(X)} rows")
    test_size = check_probability(test_size, "test_size")
    classifier = all(is_classifier(est) for est in models.values())
    seed = _seed(random_state)
    rows = np.arange(n)
    train, test = train_test_split(rows, test_size=test_size, random_state=seed,
                                   stratify=labels if classifier else None)
    if isinstance(validation, float | np.floating):
        share = check_probability(validation, "validation")
        _, valid_rows = train_test_split(
            np.arange(len(train)), test_size=share, random_state=seed,
            stratify=labels[train] if classifier else None)
        fold = np.full(len(train), -1)
        fold[valid_rows] = 0
        cv, selection = PredefinedSplit(fold), "three-way holdout"
    else:
        cv = _splitter(validation, "validation", classifier, seed)
        selection = f"{cv.get_n_splits()}-fold CV"
    y_fit = y if isinstance(y, pd.Series) else labels
    out, chosen = [], []
    for name, est in models.items():
        search = GridSearchCV(clone(est), grids[name] or {}, cv=cv, scoring=scoring, refit=True)
        search.fit(_rows(X, train), _rows(y_fit, train))
        scorer = check_scoring(search.best_estimator_, scoring=scoring)
        out.append({"algorithm": name, "selection": selection,
                    "best_params": _format_params(search.best_params_),
                    "selection_score": float(search.best_score_),
                    "test_score": float(scorer(search.best_estimator_, _rows(X, test),
                                               _rows(y_fit, test))),
                    "n_train": len(train), "n_test": len(test)})
        chosen.append(dict(search.best_params_))
    frame = pd.DataFrame(out, columns=HOLDOUT_COLUMNS)
    frame.attrs["best_params"] = chosen
    return frame


def nested_cv_scores(
    estimators: Mapping[str, Any],
    param_grids: Mapping[str, Any],
    X: Any,
    y: npt.ArrayLike,
    *,
    outer: Any = 5,
    inner: Any = 3,
    scoring: str | Callable[..., Any] = "accuracy",
    random_state: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Nested cross-validation of several algorithms, each tuned on its own grid.

    Parameters
    ----------
    estimators : mapping name -> estimator
        Unfitted scikit-learn estimators or pipelines. Each fit uses a clone; the objects passed
        in are never fitted or changed.
    param_grids : mapping name -> grid
        For each name in ``estimators``, a ``GridSearchCV`` grid (dict or list of dicts; keys
        like ``"svc__C"`` for pipelines); an empty dict means "no tuning, defaults only".
    X : array-like or DataFrame of shape (n, p)
        Features.
    y : array-like of shape (n,)
        Labels (ints or strings) or targets.
    outer, inner : int or scikit-learn splitter
        Outer folds (that score) and inner folds (that tune). An int K gives a shuffled
        K-fold, stratified for classifiers, seeded by ``random_state``. The outer splits are
        made once, so every algorithm is scored on the same folds; the inner splits of an outer
        fold are the same for every algorithm too.
    scoring : str or callable
        A scikit-learn scorer name or callable (higher is better), used both to tune and to score.
    random_state : int, optional
        Seed of the splits made from ints (estimators keep their own ``random_state``).
    progress : bool
        Show a progress bar (tqdm: in notebooks a widget, otherwise on stderr).

    Returns
    -------
    DataFrame
        One row per algorithm and outer fold (sorted by algorithm in the order given, then
        fold), columns ``algorithm``, ``outer_fold``, ``score`` (outer test score of the model
        refitted on the whole outer training set with the chosen parameters),
        ``best_params`` (the chosen parameters, a readable ``"name=value, ..."`` string),
        ``inner_score`` (the chosen setting's mean inner-CV score), ``n_train``, ``n_test``.
        ``frame.attrs`` holds ``test_train_ratio`` (mean n_test over mean n_train of the outer
        folds, for the corrected tests) and ``best_params`` (a list of the chosen parameter
        dicts, row by row).

    Notes
    -----
    What the outer scores estimate: the performance of the whole *procedure* "tune this
    algorithm on this grid by inner cross-validation, then refit", trained on about
    ``(K-1)/K`` of the data. They do not estimate the performance of one particular tuned
    model, because each outer fold may choose different parameters (the ``best_params``
    column shows how stable the choice is). The inner scores are optimistic (they are the
    maximum over the grid) and are shown only for comparison. To deploy, tune the chosen
    algorithm once more on all the data.

    References
    ----------
    Varma & Simon (2006), Bias in error estimation when using cross-validation for model
    selection, BMC Bioinformatics 7:91. Raschka (2018), Model evaluation, model selection, and
    algorithm selection in machine learning, arXiv:1811.12808.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> scores = nested_cv_scores(
    ...     {"knn": KNeighborsClassifier(), "tree": DecisionTreeClassifier(random_state=0)},
    ...     {"knn": {"n_neighbors": [1, 5, 15]}, "tree": {"max_depth": [1, 3]}},
    ...     X, y, outer=5, inner=3, random_state=0, progress=False)
    >>> scores.shape
    (10, 7)
    >>> scores.groupby("algorithm", sort=False)["score"].mean().round(3).tolist()
    [0.96, 0.927]
    >>> scores.loc[0, "best_params"]
    'n_neighbors=15'

    Tuned nearest neighbours classify 96 % of unseen irises correctly, a tuned tree 93 %; the
    outer scores are paired by fold, ready for a corrected t-test.
    """
    from sklearn.base import clone, is_classifier
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import GridSearchCV
    from tqdm.auto import tqdm

    models, grids = _check_models(estimators, param_grids)
    labels = as_label_array(y, "y")
    n = len(labels)
    if len(X) != n:
        raise ValueError(f"X must have one row per label ({n}); got {len(X)} rows")
    classifier = all(is_classifier(est) for est in models.values())
    seed = _seed(random_state)  # one seed, so the inner folds match across algorithms
    outer_cv = _splitter(outer, "outer", classifier, seed)
    inner_cv = _splitter(inner, "inner", classifier, seed)
    y_fit = y if isinstance(y, pd.Series) else labels
    splits = list(outer_cv.split(X, labels))
    rows, chosen = [], []
    bar = tqdm(total=len(splits) * len(models), desc="nested CV fits", disable=not progress,
               leave=False)
    try:
        for fold, (train, test) in enumerate(splits):
            X_train, y_train = _rows(X, train), _rows(y_fit, train)
            X_test, y_test = _rows(X, test), _rows(y_fit, test)
            for name, est in models.items():
                search = GridSearchCV(clone(est), grids[name] or {}, cv=inner_cv,
                                      scoring=scoring, refit=True)
                search.fit(X_train, y_train)
                scorer = check_scoring(search.best_estimator_, scoring=scoring)
                score = float(scorer(search.best_estimator_, X_test, y_test))
                rows.append({"algorithm": name, "outer_fold": fold, "score": score,
                             "best_params": _format_params(search.best_params_),
                             "inner_score": float(search.best_score_),
                             "n_train": len(train), "n_test": len(test)})
                chosen.append(dict(search.best_params_))
                bar.update()
    finally:
        bar.close()
    frame = pd.DataFrame(rows, columns=NESTED_CV_COLUMNS)
    order = {name: i for i, name in enumerate(models)}
    keys = frame["algorithm"].map(order) * len(splits) + frame["outer_fold"]
    ranked = np.argsort(keys.to_numpy(), kind="stable")
    frame = frame.iloc[ranked].reset_index(drop=True)
    frame.attrs["best_params"] = [chosen[i] for i in ranked]
    frame.attrs["test_train_ratio"] = float(frame["n_test"].mean() / frame["n_train"].mean())
    return frame
