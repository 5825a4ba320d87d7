"""Contract of notebooks/13_evaluating_on_items.ipynb and its solution notebook, each checked on
its one run at its defaults (nbval does not execute them again).

Every number the notebook reports is recomputed here from the items it saved, by formulas
written out in this file: McNemar's χ² = (b − c)² / (b + c); Obuchowski's (1998)
χ² = (Σ D_c)² / [C/(C − 1) Σ D_c²] over passages; the cluster-robust standard error from
statsmodels' OLS with ``cov_type="cluster"``. The conclusion's sentences are checked to state
exactly those numbers. The planning part (equivalence, repeated answers, power) is notebook 14's,
tests/notebooks/test_nb_14_planning_item_evaluations.py.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import cr1_se, notebook_parameters
from scipy import stats

PARAMS = notebook_parameters("13_evaluating_on_items")
pytestmark = pytest.mark.runs_notebook("13_evaluating_on_items")


@pytest.fixture
def results(notebook_defaults):
    return notebook_defaults


@pytest.mark.notebook
def test_tests_on_the_benchmark(results):
    items = pd.DataFrame(results["items"])
    c, m = PARAMS["n_clusters"], PARAMS["cluster_size"]
    assert len(items) == results["n_items"] == c * m
    a, b, g = (items[k].to_numpy(float) for k in ("correct_a", "correct_b", "cluster"))
    only_a, only_b = int(np.sum(a > b)), int(np.sum(b > a))
    assert results["mcnemar"]["statistic"] == pytest.approx((only_a - only_b) ** 2
                                                            / (only_a + only_b), rel=1e-12)
    dc = pd.Series(a - b).groupby(g).sum().to_numpy()
    obuchowski = dc.sum() ** 2 / (c / (c - 1) * np.sum(dc**2))
    assert results["clustered_mcnemar"]["statistic"] == pytest.approx(obuchowski, rel=1e-12)
    assert results["clustered_mcnemar"]["pvalue"] == pytest.approx(stats.chi2.sf(obuchowski, 1),
                                                                   rel=1e-9)
    se = cr1_se(a - b, g)
    assert results["cr1"]["se"] == pytest.approx(se, rel=1e-9)
    se_plain = np.std(a - b, ddof=1) / np.sqrt(len(a))
    assert results["cr1"]["design_effect"] == pytest.approx((se / se_plain) ** 2, rel=1e-9)
    assert results["paired"]["correlation"] == pytest.approx(np.corrcoef(a, b)[0, 1], rel=1e-9)


@pytest.mark.notebook
def test_tests_on_the_shipped_logs(results):
    """Section 7 reads inspect_ai's logs (not the simulated benchmark above); its tests are those
    of the benchmark the logs hold, the script's ``simulate_items``, by the formulas above."""
    from simulate_logs_reference import logged_benchmark

    logged = logged_benchmark()
    a, b, g = (logged[k].to_numpy(float) for k in ("correct_a", "correct_b", "cluster"))
    c = len(np.unique(g))
    assert results["log_items"] == len(logged) == 100
    dc = pd.Series(a - b).groupby(g).sum().to_numpy()
    obuchowski = dc.sum() ** 2 / (c / (c - 1) * np.sum(dc**2))
    assert results["from_log"]["statistic"] == pytest.approx(obuchowski, rel=1e-12)
    only_a, only_b = int(np.sum(a > b)), int(np.sum(b > a))
    assert results["log_mcnemar"]["statistic"] == pytest.approx((only_a - only_b) ** 2
                                                                / (only_a + only_b), rel=1e-12)
    assert results["log_cr1"]["se"] == pytest.approx(cr1_se(a - b, g), rel=1e-9)
    assert results["log_cr1"]["estimate"] == pytest.approx(a.mean() - b.mean(), rel=1e-12)


@pytest.mark.notebook
def test_type1_study(results):
    type1 = pd.DataFrame(results["type1"])
    study = sorted(set(PARAMS["skill_grid"]) | {PARAMS["skill_sd"]})  # the run's own row included
    assert sorted(type1["skill_sd"].unique()) == study
    assert type1.groupby("skill_sd").size().tolist() == [4] * len(study)
    # rejection rates are counts out of n_sim
    counts = type1["rejection_rate"] * PARAMS["n_sim"]
    np.testing.assert_allclose(counts, counts.round(), atol=1e-9)
    # few passages: the same statistics against t(C - 1), whose tails are heavier, reject no more often
    few = pd.DataFrame(results["few_clusters"]).set_index("passages")
    assert few.index.tolist() == PARAMS["few_clusters"] == [12, 30]
    np.testing.assert_allclose(few * PARAMS["n_sim"], (few * PARAMS["n_sim"]).round(), atol=1e-9)
    assert (few["CR1, t with C − 1 df"] <= few["CR1, normal reference"]).all()


@pytest.mark.notebook
def test_conclusion_states_the_computed_numbers(results):
    text = results["conclusion"]
    items = pd.DataFrame(results["items"])
    a, b = items["correct_a"].mean(), items["correct_b"].mean()
    assert f"A answered {a:.3f} of the items right and B {b:.3f}" in text
    assert f"(A − B = {a - b:+.3f})" in text
    assert f"McNemar's test gives p = {results['mcnemar']['pvalue']:.4f}" in text
    p_ob = results["clustered_mcnemar"]["pvalue"]
    verdict = "finds" if p_ob <= 0.05 else "does not find"
    assert f"Obuchowski's test gives p = {p_ob:.4f} and {verdict} a difference" in text
    cr1 = results["cr1"]
    assert f"({cr1['ci_low']:+.3f}, {cr1['ci_high']:+.3f})" in text
    assert f"design effect of {cr1['design_effect']:.2f}" in text
    type1 = pd.DataFrame(results["type1"])
    mine = type1[type1["skill_sd"] == PARAMS["skill_sd"]].set_index("test")  # this run's row
    rate_mc = mine.loc["McNemar (items independent)", "rejection_rate"]
    rate_ob = mine.loc["Obuchowski clustered McNemar", "rejection_rate"]
    assert f"passage effect of {PARAMS['skill_sd']:g} (mean design effect " \
        f"{mine['mean_design_effect'].iloc[0]:.2f})" in text
    assert f"McNemar's test rejected in {rate_mc:.1%} of {PARAMS['n_sim']}" in text
    assert f"Obuchowski's in {rate_ob:.1%}" in text
    # the clustered SE exceeds the naive one here (skill_sd > 0), so the sentence's direction holds
    assert cr1["se"] > cr1["se_unclustered"]
    assert math.isfinite(rate_mc) and rate_mc > rate_ob
    assert "items needed" not in text and "answers per item" not in text  # planning is notebook 14's


@pytest.mark.notebook
def test_same_seed_table_holds_the_draws_fixed(results):
    """The table of section 3 redraws the benchmark at each passage effect from the run's seed;
    at the run's own skill_sd it is the run's benchmark, recomputed here."""
    same = pd.DataFrame(results["same_seed"]).set_index("skill_sd")
    assert same.index.tolist() == sorted(set(PARAMS["skill_grid"]) | {PARAMS["skill_sd"]})
    items = pd.DataFrame(results["items"])
    row = same.loc[PARAMS["skill_sd"]]
    assert row["A − B"] == pytest.approx(items["correct_a"].mean() - items["correct_b"].mean(),
                                         abs=1e-12)
    assert row["design_effect"] == pytest.approx(results["cr1"]["design_effect"], rel=1e-12)
    # every row's design effect is its two standard errors' ratio squared
    np.testing.assert_allclose(same["design_effect"],
                               (same["se_CR1"] / same["se_items_independent"]) ** 2, rtol=1e-9)


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/13_evaluating_on_items")
def test_solution_notebook(notebook_defaults):
    res = notebook_defaults
    c = notebook_parameters("solutions/13_evaluating_on_items")["n_clusters"]
    assert res["n_clusters"] == c
    ex2 = pd.DataFrame(res["ex2"]).set_index(["passages", "method"])["statistic"]
    assert ex2[("equal passages", "durkalski")] == pytest.approx(
        ex2[("equal passages", "obuchowski")] * c / (c - 1), rel=1e-12)
    unequal = ex2[("unequal passages", "durkalski")] / ex2[("unequal passages", "obuchowski")]
    assert abs(unequal - c / (c - 1)) > 1e-3  # "no longer stand in that ratio"
    ex1 = pd.DataFrame(res["ex1_type1"])
    assert (ex1["rejection_rate"] < 0.15).all()  # 300 benchmarks: all near 0.05 without clustering
    assert set(res) == {"ex1_design_effect", "ex1_type1", "ex2", "n_clusters"}
