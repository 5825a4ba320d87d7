"""Score matrices over the registry's data sets (precmp_lib.course.scores)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from precmp_lib.course import scores
from precmp_lib.course.scores import score_matrix


class TestScoreMatrix:
    def test_equals_cross_val_score_with_the_same_folds(self):
        from sklearn.datasets import load_iris
        from sklearn.model_selection import StratifiedKFold, cross_val_score
        from sklearn.naive_bayes import GaussianNB
        from sklearn.tree import DecisionTreeClassifier

        est = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
        s = score_matrix(est, ["iris", "wine"], cv=3, random_state=7, progress=False)
        assert s.shape == (2, 2) and s.index.name == "dataset"
        assert list(s.index) == ["iris", "wine"] and list(s.columns) == ["nb", "tree"]
        X, y = load_iris(return_X_y=True)
        folds = StratifiedKFold(3, shuffle=True, random_state=7)
        ref = cross_val_score(DecisionTreeClassifier(random_state=0), X, y, cv=folds).mean()
        assert s.loc["iris", "tree"] == pytest.approx(ref, rel=1e-12)
        again = score_matrix(est, ["iris", "wine"], cv=3, random_state=7, progress=False,
                             threads=None)
        pd.testing.assert_frame_equal(s, again)

    def test_subsample_is_stratified_and_seeded(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(1000, 3))
        y = np.repeat([0, 1], [800, 200])
        Xs, ys = scores._subsample(X, y, 100, 0)
        assert Xs.shape == (100, 3) and np.bincount(ys).tolist() == [80, 20]
        Xt, _ = scores._subsample(X, y, 100, 0)
        np.testing.assert_array_equal(Xs, Xt)
        assert scores._subsample(X, y, None, 0)[0] is X

    def test_mapping_of_arrays_and_max_rows(self):
        from sklearn.naive_bayes import GaussianNB

        rng = np.random.default_rng(1)
        X = rng.normal(size=(400, 2))
        y = (X[:, 0] > 0).astype(int)
        s = score_matrix({"nb": GaussianNB()}, {"toy": (X, y)}, cv=4, max_rows=80,
                         progress=False)
        assert s.shape == (1, 1) and 0.5 < s.iloc[0, 0] <= 1

    def test_bad_input(self):
        from sklearn.naive_bayes import GaussianNB

        with pytest.raises(ValueError, match="estimators must be a non-empty mapping"):
            score_matrix({}, ["iris"])
        with pytest.raises(ValueError, match="datasets must be a list"):
            score_matrix({"nb": GaussianNB()}, "iris")
        with pytest.raises(ValueError, match="registered datasets"):
            score_matrix({"nb": GaussianNB()}, ["no_such_set"], progress=False)
        with pytest.raises(ValueError, match="cv must be an integer >= 2"):
            score_matrix({"nb": GaussianNB()}, ["iris"], cv=1)
        with pytest.raises(ValueError, match="threads must be an integer >= 1"):
            score_matrix({"nb": GaussianNB()}, ["iris"], threads=0)
        with pytest.raises(ValueError, match="Dataset or an"):
            score_matrix({"nb": GaussianNB()}, {"x": [1, 2, 3]}, progress=False)
