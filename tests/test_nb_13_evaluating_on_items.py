"""Contract of notebooks/13_evaluating_on_items.ipynb and its solution notebook, run through
papermill with small parameters.

Every number the notebook reports is recomputed here from the items it saved, by formulas
written out in this file: McNemar's χ² = (b − c)² / (b + c); Obuchowski's (1998)
χ² = (Σ D_c)² / [C/(C − 1) Σ D_c²] over passages; the cluster-robust standard error from
statsmodels' OLS with ``cov_type="cluster"``; TOST p = max(P(Z > (d̄ + m)/SE), P(Z < (d̄ − m)/SE));
the items needed (z_{1−α/2} + z_{1−β})² σ² deff / δ² (Miller 2024). The conclusion's sentences
are checked to state exactly those numbers.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import NOTEBOOKS
from scipy import stats

PARAMS = {"seed": 3, "n_clusters": 30, "cluster_size": 6, "skill_grid": [0.0, 1.0], "n_sim": 60,
          "n_answers": 3, "margin": 0.05}


def _cr1_se(d: np.ndarray, groups: np.ndarray) -> float:
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    import papermill as pm

    out = tmp_path_factory.mktemp("nb13")
    pm.execute_notebook(str(NOTEBOOKS / "13_evaluating_on_items.ipynb"),
                        str(out / "executed.ipynb"), parameters={**PARAMS, "output_dir": str(out)},
                        cwd=str(NOTEBOOKS), kernel_name="python3", progress_bar=False)
    return json.loads((out / "results.json").read_text())


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
    se = _cr1_se(a - b, g)
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
    assert results["log_cr1"]["se"] == pytest.approx(_cr1_se(a - b, g), rel=1e-9)
    assert results["log_cr1"]["estimate"] == pytest.approx(a.mean() - b.mean(), rel=1e-12)


@pytest.mark.notebook
def test_type1_study_and_equivalence(results):
    type1 = pd.DataFrame(results["type1"])
    assert sorted(type1["skill_sd"].unique()) == PARAMS["skill_grid"]
    assert type1.groupby("skill_sd").size().tolist() == [4, 4]
    # rejection rates are counts out of n_sim
    counts = type1["rejection_rate"] * PARAMS["n_sim"]
    np.testing.assert_allclose(counts, counts.round(), atol=1e-9)
    # few passages: the same statistics against t(C - 1), whose tails are heavier, reject no more often
    few = pd.DataFrame(results["few_clusters"]).set_index("passages")
    assert few.index.tolist() == [12, 30]
    np.testing.assert_allclose(few * PARAMS["n_sim"], (few * PARAMS["n_sim"]).round(), atol=1e-9)
    assert (few["CR1, t with C − 1 df"] <= few["CR1, normal reference"]).all()
    twins = pd.DataFrame(results["twins"])
    d = (twins["correct_a"] - twins["correct_b"]).to_numpy(float)
    se = _cr1_se(d, twins["cluster"].to_numpy())
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
    delta = 0.03  # planned_difference default
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
    worst = type1[type1["skill_sd"] == max(PARAMS["skill_grid"])].set_index("test")
    rate_mc = worst.loc["McNemar (items independent)", "rejection_rate"]
    rate_ob = worst.loc["Obuchowski clustered McNemar", "rejection_rate"]
    assert f"McNemar's test rejected in {rate_mc:.1%} of {PARAMS['n_sim']}" in text
    assert f"Obuchowski's in {rate_ob:.1%}" in text
    assert (f"fell from {results['one_answer']['se']:.4f} to {results['k_answers']['se']:.4f}"
            in text)
    plan = results["plan"]
    assert f"{plan['items needed, independent']:,.0f} independent items" in text
    assert f"{plan['items needed, passages of 6']:,.0f} items in passages of 6" in text
    # the clustered SE exceeds the naive one here (skill_sd > 0), so the sentence's direction holds
    assert cr1["se"] > cr1["se_unclustered"]
    assert math.isfinite(rate_mc) and rate_mc > rate_ob


@pytest.mark.notebook
def test_solution_notebook(run_notebook):
    res = run_notebook("solutions/13_evaluating_on_items", n_clusters=30, cluster_size=6,
                       n_sim=60, answer_grid=[2, 4])
    ex2 = pd.DataFrame(res["ex2"]).set_index(["passages", "method"])["statistic"]
    assert ex2[("equal passages", "durkalski")] == pytest.approx(
        ex2[("equal passages", "obuchowski")] * 30 / 29, rel=1e-12)
    unequal = ex2[("unequal passages", "durkalski")] / ex2[("unequal passages", "obuchowski")]
    assert abs(unequal - 30 / 29) > 1e-3  # "no longer stand in that ratio"
    ex1 = pd.DataFrame(res["ex1_type1"])
    assert (ex1["rejection_rate"] < 0.15).all()  # 60 benchmarks: all near 0.05 without clustering
    ex3 = res["ex3"]
    assert ex3["half_width"] == pytest.approx(ex3["margin"], rel=1e-9)
    z = stats.norm.ppf(0.95)
    assert ex3["items"] == pytest.approx((z * ex3["sd"] / ex3["margin"]) ** 2
                                         * ex3["design_effect"], rel=1e-9)
    # half of the time: z_{0.95} + z_{0.75}; 80 %: z_{0.95} + z_{0.90} (TOST of two equal models)
    for key, q in (("items_50", 0.75), ("items_80", 0.90)):
        assert ex3[key] == pytest.approx(((z + stats.norm.ppf(q)) * ex3["sd"] / ex3["margin"]) ** 2
                                          * ex3["design_effect"], rel=1e-9)
    rates = pd.DataFrame(res["ex3_rates"]).set_index("size")["equivalence_shown"]
    counts = rates * 60
    np.testing.assert_allclose(counts, counts.round(), atol=1e-9)  # shares of the 60 benchmarks
    assert rates.is_monotonic_increasing  # more items, more often shown
    assert "at least 2 answers" in res["ex4_one_answer"]
    ex5 = pd.DataFrame(res["ex5"]).set_index("design")
    assert ex5.loc["150 fixed passages", "items_needed"] == "inf"  # Kρ = 218 >= 150
    # whole items and passages, rounded up: paired_sample_size gives 4142.5 items (its doctest)
    assert ex5.loc["passages of 10", "items_needed"] == 4143
    assert ex5.loc["passages of 10", "passages_needed"] == 415
    ex6 = pd.DataFrame(res["ex6"])
    assert (ex6["exact"] <= ex6["normal"]).all() and ex6["exact"].is_monotonic_increasing
