"""Contract of notebooks/02_cv_ttests.ipynb and its solutions: each checked on its one run at its
defaults (nbval does not execute them again), the notebook also on string labels.

Each p-value the notebook reports is recomputed here from the scores it saved, with the formulas
of docs/methods.md §4 written out in numpy and with ``scipy.stats.ttest_rel`` for the uncorrected
tests; the type-I error table is checked against a fresh library run with the same seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import needs_mirror, notebook_parameters
from scipy import stats
from stated import assert_states

import precmp_lib as pc
from precmp_lib.course.type1 import type1_error_simulation

PARAMS = notebook_parameters("02_cv_ttests")
SOLUTION = notebook_parameters("solutions/02_cv_ttests")
# the string-label run: the defaults, smaller
SMALL = {"seed": 3, "n_trees": 10, "n_repeats": 1, "n_resamples": 4, "n_simulations": 20}


def _t_formula(d: np.ndarray, ratio: float) -> tuple[float, float]:
    """docs/methods.md §4: t = m / sqrt((1/J + ratio) S²), df = J - 1, two-sided."""
    t = d.mean() / np.sqrt((1 / d.size + ratio) * d.var(ddof=1))
    return t, 2 * stats.t.sf(abs(t), d.size - 1)


@pytest.mark.notebook
@pytest.mark.runs_notebook("02_cv_ttests")
def test_notebook_contract(notebook_defaults):
    results = notebook_defaults
    _check_reported_tests(results)
    _check_type1_error_table(results)
    _check_pairwise(results)
    _check_one_sided(results)
    _check_widget_start(results)
    _check_bayesian_t(results)
    _check_statements(results)


def _check_one_sided(results):
    """The one-sided corrected t is the upper tail (alternative "greater") of the same t."""
    block = results["scores"]["repeated_kfold"]
    d = (np.array(block["scores_a"]) - np.array(block["scores_b"])).ravel()
    t, p_two = _t_formula(d, block["test_train_ratio"])
    assert results["alternative"] == "greater"
    assert results["one_sided"]["statistic"] == pytest.approx(t, rel=1e-9)
    assert results["one_sided"]["pvalue"] == pytest.approx(stats.t.sf(t, d.size - 1), rel=1e-9)
    assert results["two_sided_corrected"]["pvalue"] == pytest.approx(p_two, rel=1e-9)


def _check_bayesian_t(results):
    """Corani & Benavoli's posterior: Student(n - 1, mean d, sqrt((1/n + ratio) S^2)) (docs/methods.md),
    so P(A better) = P(mu > rope) from scipy's t distribution."""
    block = results["scores"]["repeated_kfold"]
    d = (np.array(block["scores_a"]) - np.array(block["scores_b"])).ravel()
    scale = np.sqrt((1 / d.size + block["test_train_ratio"]) * d.var(ddof=1))
    post = stats.t(d.size - 1, loc=d.mean(), scale=scale)
    rope = results["rope"]
    bt = results["bayes_correlated_t"]
    assert bt["p_a_better"] == pytest.approx(post.sf(rope), abs=1e-9)
    assert bt["p_b_better"] == pytest.approx(post.cdf(-rope), abs=1e-9)
    assert bt["p_a_better"] + bt["p_rope"] + bt["p_b_better"] == pytest.approx(1)
    start = pd.DataFrame(results["rope_start"]).set_index("rope")
    assert start.loc[0.0, "p_rope"] == 0 and start["p_rope"].is_monotonic_increasing
    assert start.loc[start["current"]].iloc[0]["p_a_better"] == pytest.approx(bt["p_a_better"])


def _check_widget_start(results):
    """The static rendering under the widget is the corrected t at the 70/30 splits' ratio."""
    start = pd.DataFrame(results["widget_start"]).set_index("n_resamples")
    w = results["widget_inputs"]
    block = results["scores"]["resampled"]
    d = np.array(block["scores_a"]) - np.array(block["scores_b"])
    assert w["mean"] == pytest.approx(d.mean()) and w["sd"] == pytest.approx(d.std(ddof=1))
    for j, row in start.iterrows():
        t = w["mean"] / (w["sd"] * np.sqrt(1 / j + w["ratio"]))
        assert row["corrected_pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), j - 1), rel=1e-9)
    assert start["uncorrected_pvalue"].iloc[-1] < start["corrected_pvalue"].iloc[-1]


@needs_mirror
@pytest.mark.notebook
def test_notebook_runs_on_string_labels(run_notebook):
    results = run_notebook("02_cv_ttests", dataset="urban_land_cover", **SMALL)
    assert results["dataset"] == "urban_land_cover"
    _check_reported_tests(results, SMALL)
    _check_one_sided(results)
    _check_bayesian_t(results)


def _check_reported_tests(results, params=PARAMS):
    """Every reported test follows from the scores the notebook saved."""
    tests = pd.DataFrame(results["tests"])
    assert set(tests["scheme"]) == {"5x2", "kfold", "repeated_kfold", "resampled"}
    for scheme, block in results["scores"].items():
        a, b = np.array(block["scores_a"]), np.array(block["scores_b"])
        rows = tests[tests["scheme"] == scheme].set_index("test")
        d = (a - b).ravel()
        ratio = np.mean(block["n_test"]) / np.mean(block["n_train"])
        assert block["test_train_ratio"] == pytest.approx(ratio)
        t, p = _t_formula(d, ratio)
        assert rows.loc["corrected_resampled_ttest", "statistic"] == pytest.approx(t, rel=1e-9)
        assert rows.loc["corrected_resampled_ttest", "pvalue"] == pytest.approx(p, rel=1e-9)
        plain = rows.drop(index="corrected_resampled_ttest").filter(like="paired_", axis=0)
        ref = stats.ttest_rel(a.ravel(), b.ravel())
        assert plain["statistic"].item() == pytest.approx(ref.statistic, rel=1e-9)
        assert plain["pvalue"].item() == pytest.approx(ref.pvalue, rel=1e-9)
        if scheme == "5x2":
            assert a.shape == (5, 2) and ratio == pytest.approx(1.0, abs=0.01)
            p5 = a - b
            s2 = ((p5 - p5.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
            t5 = p5[0, 0] / np.sqrt(s2.sum() / 5)
            f5 = (p5**2).sum() / (2 * s2.sum())
            assert rows.loc["ttest_5x2cv", "pvalue"] == pytest.approx(2 * stats.t.sf(abs(t5), 5))
            assert rows.loc["ftest_5x2cv", "statistic"] == pytest.approx(f5)
            assert rows.loc["ftest_5x2cv", "pvalue"] == pytest.approx(stats.f.sf(f5, 10, 5))
        elif scheme in ("kfold", "repeated_kfold"):
            assert a.shape == (10 * (params["n_repeats"] if scheme != "kfold" else 1),)
            assert ratio == pytest.approx(1 / 9, rel=0.01)
        else:
            assert a.shape == (params["n_resamples"],)
            assert ratio == pytest.approx(3 / 7, rel=0.02)
    assert tests["reject"].tolist() == (tests["pvalue"] <= results["alpha"]).tolist()
    rk = tests[(tests["scheme"] == "repeated_kfold")].set_index("test")
    assert results["pvalue_corrected_repeated_cv"] == rk.loc["corrected_resampled_ttest", "pvalue"]
    assert results["pvalue_uncorrected_repeated_cv"] == rk.loc["paired_ttest_kfold", "pvalue"]


def _check_type1_error_table(results):
    """The type-I error and power tables carry the rates a fresh run with the same seed gives."""
    rng = np.random.default_rng(PARAMS["seed"])  # the notebook's rng, used in the same order
    n = PARAMS["n_simulations"]
    fresh = {
        "type1_error": type1_error_simulation(n_simulations=n, random_state=rng,
                                                 progress=False),
        "type1_error_hard": type1_error_simulation(n_simulations=n, n_features=50,
                                                      separation=1.0, random_state=rng,
                                                      progress=False),
        "power": type1_error_simulation(n_simulations=n, effect=0.5, random_state=rng,
                                           progress=False),
    }
    guide = pd.DataFrame(results["guide"]).set_index("key")
    for name, sim in fresh.items():
        saved = pd.DataFrame(results[name])
        np.testing.assert_allclose(saved["rejection_rate"], sim.rates["rejection_rate"])
        assert (saved["n_simulations"] == n).all()
        np.testing.assert_allclose(guide[name], saved.set_index("key")["rejection_rate"])
    null = pd.DataFrame(results["type1_error"]).set_index("key")["rejection_rate"]
    assert null["resampled_t"] > null["corrected_resampled_t"]  # Dietterich 1998
    power = pd.DataFrame(results["power"]).set_index("key")["rejection_rate"]
    assert power["corrected_resampled_t"] > null["corrected_resampled_t"]
    assert results["simulation_settings"]["power"]["effect"] == 0.5


def _check_pairwise(results):
    """The three-classifier scores reuse the repeated-CV folds; each pair is the formula."""
    trio = pd.DataFrame(results["trio_scores"])
    repeated = results["scores"]["repeated_kfold"]
    names = results["names"]
    np.testing.assert_array_equal(trio[names[0]], repeated["scores_a"])
    np.testing.assert_array_equal(trio[names[1]], repeated["scores_b"])
    pairwise = pd.DataFrame(results["pairwise"])
    assert len(pairwise) == 3
    ratio = trio["n_test"].mean() / trio["n_train"].mean()
    for row in pairwise.itertuples():
        t, p = _t_formula((trio[row.model_a] - trio[row.model_b]).to_numpy(), ratio)
        assert row.statistic == pytest.approx(t, rel=1e-9)
        assert row.pvalue == pytest.approx(p, rel=1e-9)
    holm = pairwise.sort_values("pvalue")
    m = len(holm)
    expected = np.maximum.accumulate(np.minimum(1, (m - np.arange(m)) * holm["pvalue"]))
    np.testing.assert_allclose(holm["pvalue_adjusted"], expected)  # docs/methods.md §3 Holm step-down


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/02_cv_ttests")
def test_solutions_02(notebook_defaults):
    """Answers: the standard-error ratio sqrt(1 + J/9); p-values that follow the corrected formula;
    the one-sided p-values as tails of the same t (docs/methods.md §4)."""
    res = notebook_defaults
    assert res["ex1_factor"] == pytest.approx(np.sqrt(1 + 100 / 9), rel=1e-12)
    ex2 = pd.DataFrame(res["ex2"]).set_index("n_repeats")
    assert list(ex2.index) == SOLUTION["repeats"] == [1, 3, 10]
    a, b = np.array(res["scores_a"]), np.array(res["scores_b"])
    _t, p = _t_formula(a - b, res["test_train_ratio"])
    assert ex2.loc[SOLUTION["n_repeats"], "corrected_pvalue"] == pytest.approx(p, rel=1e-9)
    ex3 = res["ex3"]
    with_data = next(v for k, v in ex3.items() if "with the data" in k)
    against = next(v for k, v in ex3.items() if "against the data" in k)
    assert with_data == pytest.approx(ex3["two-sided"] / 2, rel=1e-9)
    assert against == pytest.approx(1 - ex3["two-sided"] / 2, rel=1e-9)
    assert res["ex4"]["dataset"] == "wine" and 0 <= res["ex4"]["pvalue_corrected"] <= 1
    # exercise 2's sentence states the p-values and variance factors of its table, 1/(10 r) + 1/9
    factors = [1 / (10 * r) + 1 / 9 for r in ex2.index]
    assert ex2["variance_factor"].tolist() == pytest.approx(factors, rel=1e-12)
    assert_states(res["ex2_sentence"], [
        *ex2.index, *(f"{v:.2g}" for v in ex2["uncorrected_pvalue"]), *(f"{v:.3f}" for v in ex2["corrected_pvalue"]),
        f"{ex2['uncorrected_pvalue'].iloc[0]:.2g}", f"{ex2['uncorrected_pvalue'].iloc[-1]:.2g}",
        *(f"{v:.3f}" for v in factors), 1, 9, f"{1 / 9:.3f}"])
    falls = ex2["uncorrected_pvalue"].is_monotonic_decreasing
    # the r = 1 row, read from the first repetition of the longer run, is a separate r = 1 run
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    data = pc.load_dataset("breast_cancer")
    once = pc.paired_cv_scores(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
                               RandomForestClassifier(n_estimators=SOLUTION["n_trees"], random_state=0),
                               data.X, data.y,
                               scheme="repeated_kfold", n_splits=10, n_repeats=1, random_state=0,
                               progress=False).tests().set_index("test")
    assert ex2.loc[1, "corrected_pvalue"] == pytest.approx(once.loc["corrected_resampled_ttest", "pvalue"], rel=1e-9)
    assert ex2.loc[1, "uncorrected_pvalue"] == pytest.approx(once.loc["paired_ttest_kfold", "pvalue"], rel=1e-9)
    assert ("falls with every repetition" in res["ex2_sentence"]) == falls


def _check_statements(results):
    """Every number of the conclusion and of the McNemar/5x2cv sentence, formatted again from
    results.json; the directions they state follow the numbers."""
    r0, r1, rp = (pd.DataFrame(results[k]).set_index("key")["rejection_rate"]
                  for k in ("type1_error", "type1_error_hard", "power"))
    alpha, n_sim = results["alpha"], PARAMS["n_simulations"]
    block = results["scores"]["repeated_kfold"]
    n_folds = np.array(block["scores_a"]).size
    s = results["statements"]
    assert_states(s["conclusion"], [
        f"{r0['resampled_t']:.1%}", n_sim, f"{r0['resampled_t'] / alpha:.0f}", f"{alpha:g}",
        f"{r0['repeated_kfold_t']:.1%}", f"{r0['corrected_resampled_t']:.1%}",
        f"{r0['corrected_repeated_kfold_t']:.1%}", f"{r0['ftest_5x2cv']:.1%}",
        f"{r1['corrected_repeated_kfold_t']:.1%}", f"{r1['ftest_5x2cv']:.1%}",
        f"{rp['corrected_repeated_kfold_t']:.1%}", f"{rp['ftest_5x2cv']:.1%}",
        f"{results['mean_difference_repeated_cv']:+.4f}", n_folds,
        f"{results['pvalue_uncorrected_repeated_cv']:.2g}", f"{results['pvalue_corrected_repeated_cv']:.3f}",
        f"{results['pvalue_ftest_5x2cv']:.3f}", f"{alpha:g}",
    ], ignore=["5x2cv", results["dataset"]])
    one = pd.DataFrame(results["one_run_or_ten"])
    mc, f5 = one["McNemar, one run"], one["5x2cv F, ten runs"]
    assert (mc["fits per learner"], f5["fits per learner"]) == (1, 10)
    assert_states(s["tradeoff"], [
        f"{mc['type-I error (equal learners)']:.1%}", n_sim, f"{f5['type-I error (equal learners)']:.1%}",
        f"{mc['power (A better)']:.1%}", f"{f5['power (A better)']:.1%}", 10, 1], ignore=["5×2cv"])
    assert (", more, for" in s["tradeoff"]) == (f5["power (A better)"] > mc["power (A better)"])
