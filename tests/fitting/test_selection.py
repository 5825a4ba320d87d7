"""Nested cross-validation: the user's estimators are never fitted or changed, every algorithm
sees the same outer folds, and each outer score is the refitted best model's score on its fold
(recomputed here with scikit-learn's GridSearchCV on the same splits)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import precmp_lib as pc
from precmp_lib.fitting.selection import HOLDOUT_COLUMNS, NESTED_CV_COLUMNS, holdout_selection


def _fitted_attributes(est):
    """Attributes scikit-learn sets in fit (trailing underscore), over a pipeline's steps too."""
    objs = [est] + [step for _, step in getattr(est, "steps", [])]
    return {(type(o).__name__, k) for o in objs for k in vars(o)
            if k.endswith("_") and not k.startswith("_")}


def _models():
    return (
        {"logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
         "knn": make_pipeline(StandardScaler(), KNeighborsClassifier()),
         "tree": DecisionTreeClassifier(random_state=0)},
        {"logreg": {"logisticregression__C": [0.1, 1.0]},
         "knn": {"kneighborsclassifier__n_neighbors": [3, 9]},
         "tree": {"max_depth": [2, 4]}},
    )


def test_never_mutates_estimators():
    X, y = load_wine(return_X_y=True)
    estimators, grids = _models()
    before = {k: copy.deepcopy(v.get_params(deep=True)) for k, v in estimators.items()}
    ids = {k: id(v) for k, v in estimators.items()}
    grids_before = copy.deepcopy(grids)
    pc.nested_cv_scores(estimators, grids, X, y, outer=3, inner=2, random_state=0,
                        progress=False)
    for name, est in estimators.items():
        assert id(est) == ids[name]
        after = est.get_params(deep=True)
        assert {k: repr(v) for k, v in after.items()} == {k: repr(v) for k, v in
                                                          before[name].items()}
        assert _fitted_attributes(est) == set(), f"{name} was fitted"
    assert grids == grids_before


def test_outer_scores_match_gridsearch_on_same_splits():
    X, y = load_iris(return_X_y=True)
    estimators, grids = _models()
    outer = StratifiedKFold(4, shuffle=True, random_state=1)
    inner = KFold(3, shuffle=True, random_state=2)
    frame = pc.nested_cv_scores(estimators, grids, X, y, outer=outer, inner=inner,
                                progress=False)
    assert list(frame.columns) == NESTED_CV_COLUMNS
    assert frame["algorithm"].tolist() == [n for n in estimators for _ in range(4)]
    for fold, (train, test) in enumerate(outer.split(X, y)):
        for name, est in estimators.items():
            search = GridSearchCV(clone(est), grids[name], cv=inner, scoring="accuracy")
            search.fit(X[train], y[train])
            row = frame[(frame["algorithm"] == name) & (frame["outer_fold"] == fold)].iloc[0]
            assert row["score"] == pytest.approx(accuracy_score(y[test],
                                                                search.predict(X[test])))
            assert row["inner_score"] == pytest.approx(search.best_score_)
            assert (row["n_train"], row["n_test"]) == (len(train), len(test))
            i = int(row.name)
            assert frame.attrs["best_params"][i] == search.best_params_
            for key, value in search.best_params_.items():
                assert f"{key}={value!r}" in row["best_params"]
    ratio = frame["n_test"].mean() / frame["n_train"].mean()
    assert frame.attrs["test_train_ratio"] == pytest.approx(ratio)


def test_same_outer_folds_for_all_and_reproducible():
    X, y = load_wine(return_X_y=True)
    estimators, grids = _models()
    a = pc.nested_cv_scores(estimators, grids, X, y, outer=3, inner=2, random_state=4,
                            progress=False)
    b = pc.nested_cv_scores(estimators, grids, X, y, outer=3, inner=2, random_state=4,
                            progress=False)
    pd.testing.assert_frame_equal(a, b)
    sizes = a.pivot(index="outer_fold", columns="algorithm", values="n_test")
    assert (sizes.nunique(axis=1) == 1).all()  # paired: each fold has one test size
    wide = a.pivot(index="outer_fold", columns="algorithm", values="score")
    res = pc.corrected_resampled_ttest(wide["logreg"], wide["tree"],
                                       test_train_ratio=a.attrs["test_train_ratio"])
    assert 0 <= res.pvalue <= 1 and res.n == 3


def test_string_labels_dataframe_and_no_tuning():
    X, y = load_iris(return_X_y=True, as_frame=True)
    names = pd.Series(np.array(["setosa", "versicolor", "virginica"])[y], name="species")
    frame = pc.nested_cv_scores({"tree": DecisionTreeClassifier(random_state=0)}, {"tree": {}},
                                X, names, outer=3, inner=2, random_state=0, progress=False)
    assert frame["best_params"].tolist() == ["(defaults)"] * 3
    assert frame["score"].between(0.8, 1.0).all()


def test_progress_bar_on_stderr(capsys):
    X, y = load_iris(return_X_y=True)
    pc.nested_cv_scores({"tree": DecisionTreeClassifier()}, {"tree": {"max_depth": [1, 2]}},
                        X, y, outer=2, inner=2, random_state=0, progress=True)
    assert "nested CV fits" in capsys.readouterr().err
    pc.nested_cv_scores({"tree": DecisionTreeClassifier()}, {"tree": {"max_depth": [1, 2]}},
                        X, y, outer=2, inner=2, random_state=0, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("kwargs, match", [
    ({"param_grids": {"tree": {}, "knn": {}}}, "same names as estimators"),
    ({"param_grids": {}}, "same names as estimators"),
    ({"estimators": {}}, "non-empty mapping"),
    ({"estimators": {"tree": "not a model"}}, "must be a scikit-learn estimator"),
    ({"outer": 1}, "outer must be an integer >= 2"),
    ({"inner": "five"}, "inner must be an integer >= 2 or a scikit-learn splitter"),
    ({"y": [0, 1]}, "X must have one row per label"),
    ({"random_state": -3}, "random_state must be an integer >= 0"),
])
def test_bad_input(kwargs, match):
    X, y = load_iris(return_X_y=True)
    args = {"estimators": {"tree": DecisionTreeClassifier()}, "param_grids": {"tree": {}},
            "X": X, "y": y, "progress": False, **kwargs}
    with pytest.raises(ValueError, match=match):
        pc.nested_cv_scores(args.pop("estimators"), args.pop("param_grids"), args.pop("X"),
                            args.pop("y"), **args)


# --------------------------------------------------------------------------------------------
# holdout_selection: three-way holdout and k-fold model selection
# --------------------------------------------------------------------------------------------


def test_three_way_holdout_by_hand():
    """Fit every setting on the fit rows, score on the validation rows, keep the best, refit on
    fit + validation rows, score once on the test rows."""
    from sklearn.model_selection import train_test_split

    X, y = load_wine(return_X_y=True)
    est = make_pipeline(StandardScaler(), KNeighborsClassifier())
    grid = {"kneighborsclassifier__n_neighbors": [1, 5, 25]}
    table = holdout_selection({"knn": est}, {"knn": grid}, X, y, test_size=0.25,
                                 validation=0.3, random_state=3)
    train, test = train_test_split(np.arange(len(y)), test_size=0.25, random_state=3, stratify=y)
    fit, valid = train_test_split(np.arange(len(train)), test_size=0.3, random_state=3,
                                  stratify=y[train])
    fit, valid = train[fit], train[valid]
    scores = {}
    for k in grid["kneighborsclassifier__n_neighbors"]:
        model = clone(est).set_params(kneighborsclassifier__n_neighbors=k).fit(X[fit], y[fit])
        scores[k] = accuracy_score(y[valid], model.predict(X[valid]))
    best = max(scores, key=scores.get)
    final = clone(est).set_params(kneighborsclassifier__n_neighbors=best).fit(X[train], y[train])
    row = table.iloc[0]
    assert row["selection"] == "three-way holdout"
    assert row["selection_score"] == pytest.approx(scores[best])
    assert row["best_params"] == f"kneighborsclassifier__n_neighbors={best}"
    assert row["test_score"] == pytest.approx(accuracy_score(y[test], final.predict(X[test])))
    assert (row["n_train"], row["n_test"]) == (len(train), len(test))
    assert _fitted_attributes(est) == set()


def test_kfold_selection_and_columns():
    from sklearn.model_selection import cross_val_score, train_test_split

    X, y = load_iris(return_X_y=True)
    estimators, grids = _models()
    table = holdout_selection(estimators, grids, X, y, validation=4, random_state=0)
    assert list(table.columns) == HOLDOUT_COLUMNS
    assert table["selection"].unique().tolist() == ["4-fold CV"]
    train, _ = train_test_split(np.arange(len(y)), test_size=0.2, random_state=0, stratify=y)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    for i, name in enumerate(estimators):
        params = table.attrs["best_params"][i]
        model = clone(estimators[name]).set_params(**params)
        mean = cross_val_score(model, X[train], y[train], cv=cv, scoring="accuracy").mean()
        assert table.loc[i, "selection_score"] == pytest.approx(mean)


def test_holdout_selection_bad_input():
    X, y = load_iris(return_X_y=True)
    est, grid = {"tree": DecisionTreeClassifier()}, {"tree": {}}
    with pytest.raises(ValueError, match="test_size must lie in"):
        holdout_selection(est, grid, X, y, test_size=1.5)
    with pytest.raises(ValueError, match="validation must be an integer >= 2"):
        holdout_selection(est, grid, X, y, validation=1)
    with pytest.raises(ValueError, match="validation must lie in"):
        holdout_selection(est, grid, X, y, validation=1.0)
