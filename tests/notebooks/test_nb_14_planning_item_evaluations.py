"""Contract of notebooks/14_planning_item_evaluations.ipynb and its solution notebook, each checked
on its one run at its defaults (nbval does not execute them again).

Every number the notebook reports is recomputed here from the items it saved, by formulas
written out in this file: the cluster-robust standard error from
statsmodels' OLS with ``cov_type="cluster"``; TOST p = max(P(Z > (d̄ + m)/SE), P(Z < (d̄ − m)/SE));
the items needed (z_{1−α/2} + z_{1−β})² σ² deff / δ² (Miller 2024). The conclusion's sentences
are checked to state exactly those numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import cr1_se, notebook_parameters
from scipy import stats

PARAMS = notebook_parameters("14_planning_item_evaluations")
pytestmark = pytest.mark.runs_notebook("14_planning_item_evaluations")


@pytest.fixture
def results(notebook_defaults):
    return notebook_defaults


@pytest.mark.notebook
def test_the_pilot_is_notebook_13s_benchmark(results):
    """Section 1 draws notebook 13's benchmark (same simulation, parameters and seed) and plans
    from its cluster-robust standard error and design effect."""
    from precmp_lib.course.items_simulation import simulate_items

    items = pd.DataFrame(results["items"])
    c, m = PARAMS["n_clusters"], PARAMS["cluster_size"]
    assert len(items) == results["n_items"] == c * m
    again = simulate_items(c, m, accuracy_a=0.72, accuracy_b=0.66, skill_sd=0.8,
                           random_state=PARAMS["seed"])  # notebook 13's defaults
    np.testing.assert_array_equal(items[["correct_a", "correct_b", "cluster"]].to_numpy(),
                                  again[["correct_a", "correct_b", "cluster"]].to_numpy())
    a, b, g = (items[k].to_numpy(float) for k in ("correct_a", "correct_b", "cluster"))
    se = cr1_se(a - b, g)
    assert results["cr1"]["se"] == pytest.approx(se, rel=1e-9)
    se_plain = np.std(a - b, ddof=1) / np.sqrt(len(a))
    assert results["cr1"]["design_effect"] == pytest.approx((se / se_plain) ** 2, rel=1e-9)


@pytest.mark.notebook
def test_equivalence(results):
    twins = pd.DataFrame(results["twins"])
    d = (twins["correct_a"] - twins["correct_b"]).to_numpy(float)
    se = cr1_se(d, twins["cluster"].to_numpy())
    mrg = PARAMS["margin"]
    p = max(stats.norm.sf((d.mean() + mrg) / se), stats.norm.cdf((d.mean() - mrg) / se))
    eq = results["equivalence"]
    assert eq["pvalue"] == pytest.approx(p, rel=1e-8)
    assert eq["equivalent"] is bool(p < 0.05)
    assert eq["note"].startswith("equivalent" if p < 0.05 else "not shown equivalent")


@pytest.mark.notebook
def test_repeated_answers_and_plan(results):
    answers = pd.DataFrame(results["answers"])
    k = PARAMS["n_answers"]
    assert (answers.groupby(["model", "item"]).size() == k).all()
    a = answers[answers["model"] == "A"].groupby("item")["score"]
    means, within = a.mean(), a.var(ddof=1)
    var_one = means.var(ddof=1) - (within / k).mean() + within.mean()
    assert results["repeated"]["A"]["variance_reduction"] == pytest.approx(
        1 - means.var(ddof=1) / var_one, rel=1e-9)
    items = pd.DataFrame(results["items"])
    d = (items["correct_a"] - items["correct_b"]).to_numpy(float)
    plan = results["plan"]
    sd, deff = np.std(d, ddof=1), results["cr1"]["design_effect"]
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    delta = PARAMS["planned_difference"]
    # whole items: the formula's value rounded up
    assert plan["items needed, independent"] == math.ceil((z * sd / delta) ** 2)
    icc = min(max((deff - 1) / (PARAMS["cluster_size"] - 1), 0), 1)
    assert plan["intra-cluster correlation"] == pytest.approx(icc, rel=1e-9)
    needed = (z * sd / delta) ** 2 * (1 + (PARAMS["cluster_size"] - 1) * icc)
    assert plan[f"items needed, passages of {PARAMS['cluster_size']}"] == math.ceil(needed)
    # McNemar at the planned difference (Connor 1987), the observed share of discordant items kept,
    # times the design effect; no power at the observed difference is shown
    psi = float(np.mean(d != 0))
    connor = (stats.norm.ppf(0.975) * math.sqrt(psi) + stats.norm.ppf(0.8) * math.sqrt(psi - delta**2)) ** 2 / delta**2
    assert plan[f"McNemar items needed (Connor), passages of {PARAMS['cluster_size']}"] == math.ceil(deff * connor)
    assert not any("power" in key for key in plan)


@pytest.mark.notebook
def test_conclusion_states_the_computed_numbers(results):
    text = results["conclusion"]
    twins = pd.DataFrame(results["twins"])
    eq = results["equivalence"]
    verdict = "shows" if eq["equivalent"] else "does not show"
    assert (f"On {len(twins)} items in {PARAMS['n_clusters']} passages, TOST {verdict} two models"
            in text)
    assert f"within ±{PARAMS['margin']:g} (p = {eq['pvalue']:.3f})" in text
    assert (f"fell from {results['one_answer']['se']:.4f} to {results['k_answers']['se']:.4f}"
            in text)
    plan = results["plan"]
    assert f"{plan['items needed, independent']:,.0f} independent items" in text
    m = PARAMS["cluster_size"]
    assert f"{plan[f'items needed, passages of {m}']:,.0f} items in passages of {m}" in text
    assert "McNemar" not in text  # the clustered tests are notebook 13's conclusion


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/14_planning_item_evaluations")
def test_solution_notebook(notebook_defaults):
    res = notebook_defaults
    n_sim = notebook_parameters("solutions/14_planning_item_evaluations")["n_sim"]
    ex1 = res["ex1"]
    assert ex1["half_width"] == pytest.approx(ex1["margin"], rel=1e-9)
    z = stats.norm.ppf(0.95)
    assert ex1["items"] == pytest.approx((z * ex1["sd"] / ex1["margin"]) ** 2
                                         * ex1["design_effect"], rel=1e-9)
    # half of the time: z_{0.95} + z_{0.75}; 80 %: z_{0.95} + z_{0.90} (TOST of two equal models)
    for key, q in (("items_50", 0.75), ("items_80", 0.90)):
        assert ex1[key] == pytest.approx(((z + stats.norm.ppf(q)) * ex1["sd"] / ex1["margin"]) ** 2
                                          * ex1["design_effect"], rel=1e-9)
    rates = pd.DataFrame(res["ex1_rates"]).set_index("size")["equivalence_shown"]
    counts = rates * n_sim
    np.testing.assert_allclose(counts, counts.round(), atol=1e-9)  # shares of the n_sim benchmarks
    assert rates.is_monotonic_increasing  # more items, more often shown
    assert "at least 2 answers" in res["ex2_one_answer"]
    ex3 = pd.DataFrame(res["ex3"]).set_index("design")
    assert ex3.loc["150 fixed passages", "items_needed"] == "inf"  # Kρ = 218 >= 150
    # whole items and passages, rounded up: paired_sample_size gives 4142.5 items (its doctest)
    assert ex3.loc["passages of 10", "items_needed"] == 4143
    assert ex3.loc["passages of 10", "passages_needed"] == 415
    ex4 = pd.DataFrame(res["ex4"])
    assert (ex4["exact"] <= ex4["normal"]).all() and ex4["exact"].is_monotonic_increasing
