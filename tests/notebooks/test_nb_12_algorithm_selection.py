"""Contract of notebooks/12_algorithm_selection.ipynb and its solution notebook, each checked on its
one run at its defaults (breast_cancer, integer labels; nbval does not execute them again), the
notebook also with small parameters on a data set with text labels.

Every test the notebook reports is recomputed here from the outer-fold scores it saved: the
corrected resampled t of Nadeau & Bengio (2003), t = mean(d) / sqrt((1/K + n_test/n_train) var(d))
with K - 1 degrees of freedom, and the Bayesian correlated t posterior of Corani & Benavoli (2015),
Student(K - 1, mean(d), sqrt((1/K + n_test/n_train) var(d))), both written out with scipy.stats.
The nested scores themselves are checked against a fresh library run on the same rows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import needs_mirror, notebook_parameters
from scipy import stats
from stated import assert_states

import precmp_lib as pc
from precmp_lib.fitting.selection import NESTED_CV_COLUMNS

PARAMS = notebook_parameters("12_algorithm_selection")
SMALL = {"seed": 1, "max_rows": 300, "outer_folds": 3, "inner_folds": 2, "selection_folds": 3,
         "rope": 0.02}  # the run on text labels
ALGORITHMS = ["logistic regression", "k-nearest neighbours", "decision tree"]


def _corrected_t(d: np.ndarray, ratio: float) -> tuple[float, float]:
    t = d.mean() / math.sqrt((1 / d.size + ratio) * d.var(ddof=1))
    return t, 2 * stats.t.sf(abs(t), d.size - 1)


def _check_common(results: dict, n_classes: int, n_rows: int, params=PARAMS) -> pd.DataFrame:
    k = params["outer_folds"]
    nested = pd.DataFrame(results["nested"])
    assert list(nested.columns) == NESTED_CV_COLUMNS
    assert results["algorithms"] == ALGORITHMS
    assert nested["algorithm"].tolist() == [a for a in ALGORITHMS for _ in range(k)]
    assert nested["score"].between(0, 1).all() and nested["inner_score"].between(0, 1).all()
    assert (nested.groupby("outer_fold")["n_test"].nunique() == 1).all()  # paired folds
    assert (nested["n_train"] + nested["n_test"] == results["n_rows"]).all()
    assert results["n_rows"] == n_rows and len(results["classes"]) == n_classes
    ratio = nested["n_test"].mean() / nested["n_train"].mean()
    assert results["test_train_ratio"] == pytest.approx(ratio, rel=1e-12)
    assert ratio == pytest.approx(1 / (k - 1), rel=0.02)

    wide = nested.pivot(index="outer_fold", columns="algorithm", values="score")
    means = wide.mean().sort_values(ascending=False)
    assert [results["best"], results["runner_up"]] == list(means.index[:2])
    summary = pd.DataFrame(results["summary"]).set_index("algorithm")
    np.testing.assert_allclose(summary.loc[means.index, "outer_mean"], means, rtol=1e-12)
    inner = nested.groupby("algorithm")["inner_score"].mean()
    np.testing.assert_allclose(summary["inner_minus_outer"], inner[summary.index] - summary["outer_mean"],
                               rtol=1e-9, atol=1e-15)
    # the gap splits into the optimism of selection and the effect of training on fewer rows
    np.testing.assert_allclose(summary["selection"] + summary["fewer_rows"], summary["inner_minus_outer"],
                               rtol=1e-9, atol=1e-15)
    assert summary["outer_fewer_rows"].between(0, 1).all()

    d = (wide[results["best"]] - wide[results["runner_up"]]).to_numpy()
    t, p = _corrected_t(d, ratio)
    assert results["ttest"]["statistic"] == pytest.approx(t, rel=1e-9)
    assert results["ttest"]["pvalue"] == pytest.approx(p, rel=1e-9)
    assert results["ttest"]["df"] == k - 1

    rope = params["rope"]
    post = stats.t(k - 1, loc=d.mean(), scale=math.sqrt((1 / k + ratio) * d.var(ddof=1)))
    bayes = results["bayes"]
    assert bayes["rope"] == rope
    assert bayes["p_a_better"] == pytest.approx(post.sf(rope), rel=1e-9)
    assert bayes["p_b_better"] == pytest.approx(post.cdf(-rope), rel=1e-9, abs=1e-15)
    assert bayes["p_rope"] == pytest.approx(post.cdf(rope) - post.cdf(-rope), rel=1e-9)

    pairwise = pd.DataFrame(results["pairwise"])
    assert len(pairwise) == 3
    for row in pairwise.itertuples():
        t_ab, p_ab = _corrected_t((wide[row.model_a] - wide[row.model_b]).to_numpy(), ratio)
        assert row.statistic == pytest.approx(t_ab, rel=1e-9)
        assert row.pvalue == pytest.approx(p_ab, rel=1e-9)

    n_test = math.ceil(0.2 * results["n_rows"])  # test_size default 0.2, rounded up as sklearn
    for key, label in (("holdout", "three-way holdout"),
                       ("kfold_selection", f"{params['selection_folds']}-fold CV")):
        table = pd.DataFrame(results[key])
        assert table["algorithm"].tolist() == ALGORITHMS
        assert (table["selection"] == label).all()
        assert (table["n_test"] == n_test).all()
        assert (table["n_train"] == results["n_rows"] - n_test).all()
        assert table["test_score"].between(0, 1).all()
    return nested


@pytest.mark.notebook
@pytest.mark.runs_notebook("12_algorithm_selection")
def test_notebook_contract_default(notebook_defaults):
    results = notebook_defaults
    assert results["dataset"] == "breast_cancer" and results["classes"] == [0, 1]
    assert PARAMS["max_rows"] == 600  # more than breast_cancer's 569 rows: none is cut
    nested = _check_common(results, n_classes=2, n_rows=569)
    # the notebook's nested scores are those of a fresh library run on the same rows, with the
    # estimators and grids of its setup cells
    estimators, grids = _notebook_models()
    assert results["param_grids"] == {name: {key: [str(v) for v in values]
                                             for key, values in grid.items()}
                                      for name, grid in grids.items()}
    data = pc.load_dataset("breast_cancer")
    X, y = data.X, data.y
    fresh = pc.nested_cv_scores(estimators, grids, X, y, outer=PARAMS["outer_folds"],
                                inner=PARAMS["inner_folds"], random_state=PARAMS["seed"],
                                progress=False)
    np.testing.assert_allclose(nested["score"], fresh["score"], rtol=1e-12)
    assert nested["best_params"].tolist() == fresh["best_params"].tolist()
    _check_conclusion(results)


def _check_conclusion(results: dict) -> None:
    """The conclusion states the numbers of results.json and no others; significance and the
    above/below of the optimism follow them."""
    text = results["statements"]["conclusion"]
    summary = pd.DataFrame(results["summary"]).set_index("algorithm")
    best, runner_up = results["best"], results["runner_up"]
    t, b, alpha = results["ttest"], results["bayes"], results["alpha"]
    decision = text[text.index("verdict at the 0.95 threshold: ") + 31:]
    optimism = summary.loc[best, "inner_minus_outer"]
    assert_states(text, [
        results["n_rows"], results["outer_folds"], results["inner_folds"],
        f"{summary.loc[best, 'outer_mean']:.3f}", f"{summary.loc[runner_up, 'outer_mean']:.3f}",
        f"{summary['outer_mean'].iloc[2]:.3f}", f"{abs(optimism):.3f}", f"{summary['inner_minus_outer'].mean():+.3f}",
        summary.loc[best, "settings_chosen"], f"{t['estimate']:+.4f}", f"{alpha:g}", f"{t['pvalue']:.3f}",
        f"{t['df']:g}", f"{b['p_a_better']:.3f}", f"{b['rope']:g}", f"{b['p_rope']:.3f}",
        f"{b['p_b_better']:.3f}", "0.95"], ignore=[results["dataset"], decision])
    assert (" is significant" in text) == (t["pvalue"] <= alpha)
    assert ("above its mean outer" in text) == (optimism > 0)


@needs_mirror
@pytest.mark.notebook
def test_notebook_contract_text_labels(run_notebook):
    results = run_notebook("12_algorithm_selection", dataset="wilt", **SMALL)
    assert results["dataset"] == "wilt"
    assert results["classes"] == ["n", "w"]  # the labels as the data set spells them
    _check_common(results, n_classes=2, n_rows=SMALL["max_rows"], params=SMALL)


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/12_algorithm_selection")
def test_solution_notebook(notebook_defaults):
    results = notebook_defaults
    params = notebook_parameters("solutions/12_algorithm_selection")
    assert (params["seed"], params["outer_folds"], params["n_holdout_seeds"]) == (0, 5, 5)
    ex1 = pd.DataFrame(results["exercise_1"])
    assert ex1["folds"].tolist() == [5, 10]  # exercise 1 doubles the outer folds
    ex2 = pd.DataFrame(results["exercise_2"])
    assert ex2["rope"].tolist() == [0.0, 0.01, 0.03]
    assert ex2["p_rope"].iloc[0] == 0.0 and ex2["p_rope"].is_monotonic_increasing
    assert ex2["p_a_better"].is_monotonic_decreasing
    np.testing.assert_allclose(ex2[["p_a_better", "p_rope", "p_b_better"]].sum(axis=1), 1.0)
    base = pd.DataFrame(results["base"])
    wide = base.pivot(index="outer_fold", columns="algorithm", values="score")
    d = (wide[results["best"]] - wide[results["runner_up"]]).to_numpy()
    ratio = base["n_test"].mean() / base["n_train"].mean()
    post = stats.t(d.size - 1, loc=d.mean(), scale=math.sqrt((1 / d.size + ratio) * d.var(ddof=1)))
    np.testing.assert_allclose(ex2["p_b_better"], post.cdf(-ex2["rope"]), rtol=1e-9, atol=1e-15)
    # finer grids contain the original ones and use the same inner folds: the best inner score of
    # each outer fold cannot fall
    finer = pd.DataFrame(results["exercise_3"]["finer"])
    assert (finer["inner_score"].to_numpy() >= base["inner_score"].to_numpy() - 1e-12).all()
    ranking = pd.DataFrame(results["exercise_4"])
    assert set(ranking.columns) == {"algorithm", results["dataset"], params["other_dataset"]}
    assert params["other_dataset"] == "wine"
    runs = pd.DataFrame(results["holdout_runs"])
    assert sorted(runs["seed"].unique().tolist()) == [0, 1, 2, 3, 4]


def _notebook_models():
    """The estimators and grids of the notebook's section 2."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    estimators = {
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "k-nearest neighbours": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "decision tree": DecisionTreeClassifier(random_state=PARAMS["seed"]),
    }
    grids = {
        "logistic regression": {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
        "k-nearest neighbours": {"kneighborsclassifier__n_neighbors": [3, 7, 15, 31]},
        "decision tree": {"max_depth": [2, 4, 8, None]},
    }
    return estimators, grids
