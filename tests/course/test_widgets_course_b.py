"""Tests of the widgets of notebooks 06-11: their state functions, and that moving a control
changes what the explorer shows.

References: Fisher's and Simes' combined p-values of Gondara's diabetic-retinopathy classes
(docs/methods.md §8, worked example 2: 1.9096e-04 from p = 2.1269e-04 and 0.074489; here the
printed 0.0002 and 0.07); R(e) as the closed form of the rejection rate (docs/methods.md §10);
identical repetitions leave the GEE statistic clustered on id unchanged (docs/methods.md §7).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.datasets import load_breast_cancer
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from precmp_lib.compare.crossval import cross_val_predictions
from precmp_lib.course import widgets as wd
from precmp_lib.stats.precision import compare_precision

# ---- 06 --------------------------------------------------------------------------------------


def test_combination_state_fisher_and_simes_by_hand():
    state = wd.combination_state(0.0, pvalues=(0.0002, 0.07), n_sim=2000)
    t = -2 * np.log(0.0002) - 2 * np.log(0.07)
    assert state.loc["fisher", "combined_pvalue"] == pytest.approx(stats.chi2.sf(t, 4), rel=1e-9)
    assert state.loc["simes", "combined_pvalue"] == pytest.approx(min(2 * 0.0002, 0.07), rel=1e-9)
    # without correlation the rescaled statistic is Fisher's
    assert state.loc["brown / dai_cui", "combined_pvalue"] == pytest.approx(
        state.loc["fisher", "combined_pvalue"], rel=1e-6)


def test_combination_state_dependence_breaks_fisher_only():
    low, high = wd.combination_state(0.0, n_sim=4000), wd.combination_state(0.9, n_sim=4000)
    # Fisher ignores the correlation: same p-value, type-I error far above 5 % at 0.9
    assert high.loc["fisher", "combined_pvalue"] == low.loc["fisher", "combined_pvalue"]
    assert high.loc["fisher", "type1_error"] > 0.05 + 4 * high.loc["fisher", "mc_se"]
    # the rescaled statistic holds the level and its p-value grows with the correlation
    assert abs(high.loc["brown / dai_cui", "type1_error"] - 0.05) < 4 * high.loc["fisher", "mc_se"]
    assert high.loc["brown / dai_cui", "combined_pvalue"] > 10 * low.loc["brown / dai_cui",
                                                                          "combined_pvalue"]


def test_combination_state_three_tests_equicorrelated():
    state = wd.combination_state(0.0, pvalues=(0.01, 0.02, 0.3), n_sim=500)
    t = -2 * np.log([0.01, 0.02, 0.3]).sum()
    assert state.loc["fisher", "combined_pvalue"] == pytest.approx(stats.chi2.sf(t, 6), rel=1e-9)
    assert state.loc["simes", "combined_pvalue"] == pytest.approx(min(3 * 0.01, 3 * 0.02 / 2, 0.3))


def test_combination_state_rejects_bad_correlation():
    with pytest.raises(ValueError, match="correlation must be in"):
        wd.combination_state(1.0)


def test_combination_explorer_moves():
    box = wd.combination_explorer(0.0, n_sim=500)
    slider, table, image = box.children
    before, picture = table.value, image.value
    slider.value = 0.9
    assert table.value != before and image.value != picture


# ---- 08 --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cv_long():
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, "benign", "malignant")  # string labels
    models = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    return cross_val_predictions(models, X, y, n_splits=5, n_repeats=3, random_state=0,
                                 progress=False)


def test_clustering_state_id_is_reference(cv_long):
    state = wd.clustering_state(cv_long, n_repeats=3, cluster="id")
    assert list(state.index) == ["benign", "malignant"]
    np.testing.assert_allclose(state["inflation"], 1.0)
    assert (state["n_clusters"] == 569).all()


def test_clustering_state_identical_repeats(cv_long):
    first = cv_long[cv_long["repeat"] == 0]
    copies = pd.concat([first.assign(repeat=r) for r in range(3)], ignore_index=True)
    once = wd.clustering_state(first, n_repeats=1, cluster="id")
    right = wd.clustering_state(copies, n_repeats=3, cluster="id")
    wrong = wd.clustering_state(copies, n_repeats=3, cluster="id_repeat")
    np.testing.assert_allclose(right["statistic"], once["statistic"], rtol=1e-9)
    np.testing.assert_allclose(wrong["statistic"], 3 * once["statistic"], rtol=1e-9)
    assert (wrong["n_clusters"] == 3 * 569).all()


def test_clustering_curves_match_states(cv_long):
    curves = wd.clustering_curves(cv_long)
    for cluster in ("id", "id_repeat", "none"):
        for r in (1, 3):
            state = wd.clustering_state(cv_long, n_repeats=r, cluster=cluster)
            np.testing.assert_allclose(curves[cluster].loc[r], state["statistic"], rtol=1e-12)


def test_clustering_explorer_moves(cv_long):
    box = wd.clustering_explorer(cv_long, cluster="id_repeat")
    (slider, choice), table, image = box.children[0].children, box.children[1], box.children[2]
    assert slider.value == 3
    before, picture = table.value, image.value
    slider.value = 1
    assert table.value != before and image.value != picture
    before = table.value
    choice.value = "none"
    assert table.value != before


# ---- 09 --------------------------------------------------------------------------------------


def test_deep_class_state_counts_and_precisions():
    rng = np.random.default_rng(0)
    y = rng.choice(["cat", "dog", "fox"], size=300)
    a = np.where(rng.random(300) < 0.8, y, rng.choice(["cat", "dog", "fox"], size=300))
    b = np.where(rng.random(300) < 0.7, y, rng.choice(["cat", "dog", "fox"], size=300))
    state = wd.deep_class_state(y, a, b, "dog", names=("a", "b"))
    assert list(state.index) == ["both", "only a", "only b"]
    assert state.loc[["both", "only a"]].to_numpy().sum() == (a == "dog").sum()
    assert state.loc[["both", "only b"]].to_numpy().sum() == (b == "dog").sum()
    ref = compare_precision(y, a, b).set_index("class").loc["dog"]
    assert state.attrs["precision_a"] == pytest.approx(ref["precision_a"])
    assert state.attrs["gs_pvalue"] == pytest.approx(ref["gs_pvalue"])
    tp_a = state.loc["both", "correct"] + state.loc["only a", "correct"]
    assert state.attrs["precision_a"] == pytest.approx(tp_a / (a == "dog").sum())


def test_deep_class_explorer_moves():
    y, a, b = [0, 1, 2, 1, 0, 2], [0, 1, 1, 1, 0, 2], [0, 2, 2, 1, 1, 2]
    box = wd.deep_class_explorer(y, a, b)
    choice, table = box.children
    before = table.value
    choice.value = 2
    assert table.value != before


# ---- 10 --------------------------------------------------------------------------------------

CELLS = [[[103, 45], [6, 11]], [[63, 64], [1, 53]]]  # diabetic retinopathy (R split), class 1


def test_replicability_size_state_is_closed_form_of_rejection_rate():
    state = wd.replicability_size_state(CELLS, [40, 200, 2000], n_draws=300)
    assert (state["n_valid"] == 300).all()
    for row in state.itertuples():
        q = round(row.rejection_rate * 300)
        assert row.replicability == pytest.approx((q * (q - 1) + (300 - q) * (299 - q)) / (300 * 299))
    # power grows with the test set: GS rejects more often on larger test sets
    assert state["rejection_rate"].is_monotonic_increasing
    assert state.loc[2000, "rejection_rate"] > 0.95 and state.loc[2000, "replicability"] > 0.9


def test_replicability_size_state_identical_classifiers_never_reject():
    cells = np.zeros((2, 2, 2))
    cells[1, 1, 1], cells[0, 1, 1], cells[0, 0, 0], cells[1, 0, 0] = 50, 20, 80, 10
    state = wd.replicability_size_state(cells, 100, n_draws=50)
    assert state.loc[100, "rejection_rate"] == 0 and state.loc[100, "replicability"] == 1


def test_replicability_size_explorer_moves():
    box = wd.replicability_size_explorer(CELLS, n_test=100, max_test=400, n_draws=100)
    slider, table, image = box.children
    before, picture = table.value, image.value
    slider.value = 400
    assert table.value != before and image.value != picture


# ---- 11 --------------------------------------------------------------------------------------

SPREAD = pd.DataFrame({
    "table": 5, "dataset": ["wilt", "wilt", "magic"], "class": ["n", "n", "g"],
    "quantity": ["precision_nb", "precision_rf", "precision_rf"],
    "printed": ["0.65", "0.74", "0.88"], "low": [0.6544, 0.73, 0.87], "high": [0.6544, 0.75, 0.875],
    "verdict": ["reproduced", "inside range", "inside range"]})


def test_paper_dataset_state_selects_one_dataset():
    state = wd.paper_dataset_state(SPREAD, "wilt")
    assert state["quantity"].tolist() == ["precision_nb", "precision_rf"]
    with pytest.raises(ValueError, match="no printed numbers of Table 5 for dataset 'iris'"):
        wd.paper_dataset_state(SPREAD, "iris")


def test_paper_dataset_explorer_moves():
    box = wd.paper_dataset_explorer(SPREAD, dataset="wilt")
    choice, table, image = box.children
    before, picture = table.value, image.value
    choice.value = "magic"
    assert table.value != before and image.value != picture
