"""Out-of-fold predictions on shared folds, the pivot to one row per (id, repeat), and the GEE
on repeated cross-validation clustered on the observation id (docs/methods.md §7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import precmp_lib as pc
from precmp_lib.compare.crossval import LONG_COLUMNS, clustering_comparison, to_wide


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True, as_frame=True)


def _models():
    return {
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000)),
    }


@pytest.fixture(scope="module")
def long_3x5(wine):
    X, y = wine
    return pc.cross_val_predictions(_models(), X, y, n_splits=5, n_repeats=3, random_state=7,
                                    progress=False)


def test_long_table_layout(long_3x5, wine):
    _, y = wine
    long = long_3x5
    assert tuple(long.columns) == LONG_COLUMNS == ("id", "repeat", "fold", "model", "y_true", "y_pred")
    assert len(long) == len(y) * 3 * 3
    # each (id, repeat, model) once; each id in exactly one fold per repeat
    assert not long.duplicated(["id", "repeat", "model"]).any()
    assert (long.groupby(["id", "repeat"])["fold"].nunique() == 1).all()
    assert sorted(long["repeat"].unique()) == [0, 1, 2] and sorted(long["fold"].unique()) == list(range(5))
    assert np.array_equal(long["y_true"].to_numpy(), y.to_numpy()[long["id"].to_numpy()])


def test_folds_are_sklearns_repeated_stratified_kfold(long_3x5, wine):
    X, y = wine
    splits = list(RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=7).split(X, y))
    for s, (_, test) in enumerate(splits):
        r, f = divmod(s, 5)
        rows = (long_3x5["repeat"] == r) & (long_3x5["fold"] == f) & (long_3x5["model"] == "nb")
        got = long_3x5.loc[rows, "id"].to_numpy()
        assert np.array_equal(np.sort(got), np.sort(test))


def test_predictions_are_out_of_fold(long_3x5, wine):
    # refit the tree on one training fold by hand: the table holds exactly its predictions
    X, y = wine
    train, test = list(RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=7).split(X, y))[7]
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X.iloc[train], y.iloc[train])
    got = long_3x5.query("repeat == 1 and fold == 2 and model == 'tree'").sort_values("id")
    assert np.array_equal(got["id"].to_numpy(), np.sort(test))
    assert np.array_equal(got["y_pred"].to_numpy(), tree.predict(X.iloc[np.sort(test)]))


def test_single_kfold_is_first_repeat(wine, long_3x5):
    X, y = wine
    one = pc.cross_val_predictions(_models(), X, y, n_splits=5, random_state=7, progress=False)
    first = long_3x5[long_3x5["repeat"] == 0].reset_index(drop=True)
    pd.testing.assert_frame_equal(one, first)
    # and the splits are those of StratifiedKFold(shuffle=True) driven by the same generator
    rng = np.random.RandomState(7)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=rng).split(X, y))
    assert np.array_equal(np.sort(one.query("fold == 0 and model == 'nb'")["id"]), np.sort(folds[0][1]))


def test_plain_kfold_and_own_ids():
    X = np.arange(40, dtype=float).reshape(20, 2)
    y = np.array(["a", "b"] * 10)
    ids = [f"obs{i:02d}" for i in range(20)]
    long = pc.cross_val_predictions([GaussianNB(), GaussianNB()], X, y, n_splits=4, stratified=False,
                                    ids=ids, progress=False)
    assert sorted(long["model"].unique()) == ["GaussianNB", "GaussianNB_1"]
    assert set(long["id"]) == set(ids)
    assert set(long["y_pred"]) <= {"a", "b"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_splits": 1}, "n_splits must be an integer >= 2"),
        ({"n_repeats": 0}, "n_repeats must be an integer >= 1"),
        ({"ids": [1] * 178}, "ids must be unique"),
        ({"ids": [1, 2]}, r"ids must have one entry per label \(178\)"),
        ({"n_splits": 500}, r"n_splits must be at most the number of rows \(178\)"),
    ],
)
def test_cross_val_bad_input(wine, kwargs, message):
    X, y = wine
    with pytest.raises(ValueError, match=message):
        pc.cross_val_predictions({"nb": GaussianNB()}, X, y, progress=False, **kwargs)


def test_cross_val_bad_estimators(wine):
    X, y = wine
    with pytest.raises(ValueError, match="at least one estimator"):
        pc.cross_val_predictions({}, X, y, progress=False)
    with pytest.raises(ValueError, match=r"estimators\['x'\] must be a scikit-learn estimator"):
        pc.cross_val_predictions({"x": 3}, X, y, progress=False)
    with pytest.raises(ValueError, match="estimators must be a mapping"):
        pc.cross_val_predictions(GaussianNB(), X, y, progress=False)
    with pytest.raises(ValueError, match=r"X must have one row per label \(178\)"):
        pc.cross_val_predictions({"nb": GaussianNB()}, X.iloc[:10], y, progress=False)


# ---- the pivot ------------------------------------------------------------------------------


def test_to_wide(long_3x5, wine):
    _, y = wine
    wide = to_wide(long_3x5)
    assert list(wide.columns) == ["id", "repeat", "y_true", "nb", "tree", "logistic"]
    assert len(wide) == len(y) * 3
    assert wide[["repeat", "id"]].equals(wide[["repeat", "id"]].sort_values(["repeat", "id"]))
    # every prediction of the long table is in its cell of the wide one
    merged = long_3x5.merge(wide.melt(["id", "repeat", "y_true"], var_name="model", value_name="w"),
                            on=["id", "repeat", "model"])
    assert len(merged) == len(long_3x5) and (merged["y_pred"] == merged["w"]).all()
    assert (merged["y_true_x"] == merged["y_true_y"]).all()
    assert wide["nb"].dtype == long_3x5["y_pred"].dtype


def test_to_wide_row_order_invariant(long_3x5):
    shuffled = long_3x5.sample(frac=1.0, random_state=0)
    assert to_wide(shuffled)[["id", "repeat", "y_true", "nb", "tree"]].equals(
        to_wide(long_3x5)[["id", "repeat", "y_true", "nb", "tree"]])


def test_to_wide_without_repeat_column():
    long = pd.DataFrame({"id": [3, 4, 3, 4], "model": ["a", "a", "b", "b"],
                         "y_true": ["x", "y", "x", "y"], "y_pred": ["x", "x", "y", "y"]})
    wide = to_wide(long)
    assert wide.to_dict("list") == {"id": [3, 4], "repeat": [0, 0], "y_true": ["x", "y"],
                                    "a": ["x", "x"], "b": ["y", "y"]}


def test_to_wide_errors(long_3x5):
    with pytest.raises(ValueError, match="missing"):
        to_wide(long_3x5.drop(columns="y_pred"))
    with pytest.raises(ValueError, match="more than one prediction for id="):
        to_wide(pd.concat([long_3x5, long_3x5.iloc[:1]]))
    with pytest.raises(ValueError, match="model 'tree' has predictions for 533 of the 534"):
        to_wide(long_3x5.drop(index=long_3x5.index[long_3x5["model"] == "tree"][0]))
    bad = long_3x5.copy()
    bad.loc[bad.index[0], "y_true"] = 99
    with pytest.raises(ValueError, match="more than one true label"):
        to_wide(bad)
    with pytest.raises(ValueError, match="must be a DataFrame"):
        to_wide([1, 2])
    with pytest.raises(ValueError, match="at least one row"):
        to_wide(long_3x5.iloc[:0])


# ---- the GEE on repeated cross-validation: statsmodels cross-check (docs/methods.md §7) ------------


@pytest.fixture(scope="module")
def cancer_long():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    models = {
        "nb": GaussianNB(),
        "stump": DecisionTreeClassifier(max_depth=1, random_state=0),
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(C=0.002, max_iter=2000)),
    }
    return pc.cross_val_predictions(models, X, y, n_splits=5, n_repeats=3, random_state=1,
                                    progress=False)


def _statsmodels_gee(long, label, groups_of):
    """statsmodels GEE of Algorithm 2 for one class: rows = positive predictions,
    D ~ model (reference = first model), Binomial, Independence, robust covariance."""
    import statsmodels.api as sm

    rows = long[long["y_pred"] == label]
    names = list(dict.fromkeys(long["model"]))
    exog = np.column_stack([np.ones(len(rows))] + [(rows["model"] == m).to_numpy(float) for m in names[1:]])
    endog = (rows["y_true"] == label).to_numpy(float)
    fit = sm.GEE(endog, exog, groups=groups_of(rows), family=sm.families.Binomial(),
                 cov_struct=sm.cov_struct.Independence()).fit(cov_type="robust")
    beta = fit.params[1:]
    cov = fit.cov_params()[1:, 1:]
    return beta, np.sqrt(np.diag(cov)), float(beta @ np.linalg.solve(cov, beta))


CLUSTER_IDS = {
    "id": lambda rows: rows["id"].to_numpy(),
    "id_repeat": lambda rows: (rows["id"] * 100 + rows["repeat"]).to_numpy(),
    "none": lambda rows: np.arange(len(rows)),
}


@pytest.mark.parametrize("cluster", ["id", "id_repeat", "none"])
def test_gee_from_long_equals_statsmodels(cancer_long, cluster):
    res = pc.gee_from_long(cancer_long, cluster=cluster)
    for label in (0, 1):
        beta, se, wald = _statsmodels_gee(cancer_long, label, CLUSTER_IDS[cluster])
        coef = res.coefficients[res.coefficients["class"] == label]
        assert coef["model"].tolist() == ["stump", "logistic"]
        np.testing.assert_allclose(coef["log_odds_ratio"], beta, rtol=1e-8)
        np.testing.assert_allclose(coef["se"], se, rtol=1e-6)
        joint = res.joint[res.joint["class"] == label].iloc[0]
        assert joint["df"] == 2
        assert joint["statistic"] == pytest.approx(wald, rel=1e-6)


def test_the_path_from_the_long_table_is_gee_precision_with_groups(cancer_long):
    wide = to_wide(cancer_long)
    direct = pc.gee_precision(wide["y_true"], wide[["nb", "stump", "logistic"]], groups=wide["id"])
    via = pc.gee_from_long(cancer_long)
    pd.testing.assert_frame_equal(direct.joint, via.joint)
    pd.testing.assert_frame_equal(direct.coefficients, via.coefficients)
    assert via.n_clusters == 569 and via.n_rows == 569 * 3


def test_clustering_on_id_repeat_is_a_different_answer(cancer_long):
    right = pc.gee_from_long(cancer_long, cluster="id").joint["statistic"].to_numpy()
    wrong = pc.gee_from_long(cancer_long, cluster="id_repeat").joint["statistic"].to_numpy()
    # three repetitions treated as new observations inflate the evidence (about up to 3-fold)
    assert np.all(wrong > 1.3 * right)
    assert np.all(wrong < 3.5 * right)


def test_identical_repeats_leave_the_statistic_unchanged(cancer_long):
    # docs/methods.md §7: A scales by R, B by R^2, so W is invariant to exact duplication;
    # why Gondara's Table 11 shows the same statistics for 10-fold and 10 x 10-fold
    once = cancer_long[cancer_long["repeat"] == 0]
    four = pd.concat([once.assign(repeat=r) for r in range(4)], ignore_index=True)
    a = pc.gee_from_long(once).joint
    b = pc.gee_from_long(four).joint
    np.testing.assert_allclose(b["statistic"], a["statistic"], rtol=1e-10)
    np.testing.assert_allclose(b["pvalue"], a["pvalue"], rtol=1e-8)
    # clustered on (id, repeat) the copies count as new data: exactly four times the statistic
    c = pc.gee_from_long(four, cluster="id_repeat").joint
    np.testing.assert_allclose(c["statistic"], 4 * a["statistic"], rtol=1e-10)


def test_clustering_comparison_table(cancer_long):
    table = clustering_comparison(cancer_long)
    assert list(table.columns) == ["class", "cluster", "n_clusters", "statistic", "df", "pvalue", "inflation"]
    assert table["cluster"].tolist() == ["id", "id_repeat", "none"] * 2
    assert table["class"].tolist() == [0, 0, 0, 1, 1, 1]
    assert table["n_clusters"].tolist() == [569, 569 * 3, 569 * 3 * 3] * 2
    right = table[table["cluster"] == "id"]
    assert (right["inflation"] == 1).all()
    for cluster in ("id_repeat", "none"):
        expected = pc.gee_from_long(cancer_long, cluster=cluster).joint["statistic"].to_numpy()
        np.testing.assert_allclose(table.loc[table["cluster"] == cluster, "statistic"], expected)
        np.testing.assert_allclose(table.loc[table["cluster"] == cluster, "inflation"],
                                   expected / right["statistic"].to_numpy())


def test_gee_from_long_bad_cluster(cancer_long):
    with pytest.raises(ValueError, match="cluster must be one of 'id', 'id_repeat', 'none'; got 'fold'"):
        pc.gee_from_long(cancer_long, cluster="fold")
