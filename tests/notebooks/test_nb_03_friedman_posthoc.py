"""Contract of notebooks/03_friedman_posthoc.ipynb and its solutions: each checked on its one run at
its defaults (nbval does not execute them again).

Reference values: Demšar (2006) §3.2.2 as recomputed in docs/methods.md §5.2–5.3, and scipy and
statsmodels called here on the score matrix the notebook saved.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest
from conftest import notebook_parameters
from scipy import stats
from stated import assert_states
from statsmodels.stats.multitest import multipletests

pytestmark = pytest.mark.notebook
PARAMS = notebook_parameters("03_friedman_posthoc")

SKLEARN_SETS = ["breast_cancer", "digits", "wine", "iris"]
UCI_SETS = ["wilt", "diabetic_retinopathy", "phishing", "banknote", "magic", "urban_land_cover"]


def _uci_loaders_available() -> bool:
    from precmp_lib.sources.datasets import load_dataset

    try:
        load_dataset("banknote")
    except ValueError:
        return False
    return True


@pytest.mark.runs_notebook("03_friedman_posthoc")
def test_notebook_03_contract(notebook_defaults):
    # the UCI sets (urban_land_cover: string labels) where the mirror has them
    assert PARAMS["datasets"] == SKLEARN_SETS + UCI_SETS
    datasets = SKLEARN_SETS
    if os.environ.get("PRECMP_DATA_MIRROR") and _uci_loaders_available():
        datasets = SKLEARN_SETS + UCI_SETS
    control, (first, second) = PARAMS["control"], PARAMS["pair"]
    assert second == control == "logistic_regression" and first == "random_forest"
    res = notebook_defaults
    check_conclusion(res)
    scores = pd.DataFrame.from_dict(res["scores"], orient="index")
    n, k = scores.shape
    assert list(scores.index) == datasets and k == len(res["classifiers"]) >= 5
    assert ((scores > 0) & (scores <= 1)).all().all()

    # Friedman: equal to scipy.stats.friedmanchisquare on the saved score matrix
    ref = stats.friedmanchisquare(*scores.to_numpy().T)
    assert res["friedman"]["statistic"] == pytest.approx(ref.statistic, rel=1e-9)
    assert res["friedman"]["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    # Iman–Davenport from that statistic (Iman & Davenport 1980; docs/methods.md §5.2)
    chi2 = ref.statistic
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert res["iman_davenport"]["statistic"] == pytest.approx(f, rel=1e-9)
    assert res["iman_davenport"]["df"] == [k - 1, (k - 1) * (n - 1)]
    assert res["iman_davenport"]["pvalue"] == pytest.approx(
        stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-9)

    # Nemenyi CD from scipy's studentized range (docs/methods.md §5.3)
    cd = stats.studentized_range.ppf(0.95, k, np.inf) / math.sqrt(2) * math.sqrt(k * (k + 1) / (6 * n))
    assert res["nemenyi"]["critical_difference"] == pytest.approx(cd, rel=1e-9)
    ranks = pd.Series(res["average_ranks"])
    assert ranks.sum() == pytest.approx(k * (k + 1) / 2)
    for clique in res["nemenyi"]["cliques"]:
        assert ranks[clique].max() - ranks[clique].min() < cd

    # Holm against the chosen control: statsmodels' Holm on the saved unadjusted p-values
    holm = pd.DataFrame(res["holm_control"])
    assert set(holm["control"]) == {control} and len(holm) == k - 1
    np.testing.assert_allclose(holm["pvalue_adjusted"],
                               multipletests(holm["pvalue"], method="holm")[1], rtol=1e-12)
    best = pd.DataFrame(res["holm_best"])
    assert set(best["control"]) == {ranks.idxmin()}

    # Wilcoxon for the pair equals scipy with R's choice of distribution
    w = res["wilcoxon"]
    d = np.round((scores[first] - scores[second]).to_numpy(), 12)
    if w["distribution"] == "exact":
        ref_w = stats.wilcoxon(d, method="exact")
    else:
        ref_w = stats.wilcoxon(d, method="asymptotic", correction=True, zero_method="wilcox")
    assert w["pvalue"] == pytest.approx(ref_w.pvalue, rel=1e-9)

    # compare_datasets: every pair by Wilcoxon's exact test (scipy where no difference ties or
    # is zero), Holm over the pairs (statsmodels), Nemenyi beside it
    route = pd.DataFrame(res["route"]["pairs"])
    assert len(route) == k * (k - 1) // 2
    for r in route.itertuples():
        d = np.round((scores[r.model_a] - scores[r.model_b]).to_numpy(), 12)
        if np.all(d != 0) and len(np.unique(np.abs(d))) == n:
            assert r.pvalue == pytest.approx(stats.wilcoxon(d, method="exact").pvalue, rel=1e-9)
    np.testing.assert_allclose(route["pvalue_adjusted"],
                               multipletests(route["pvalue"], method="holm")[1], rtol=1e-12)
    assert res["results_file"] == ""

    # the static start of the widget: the CD of this run's k and N, by the same formula
    start = pd.DataFrame(res["widget_start"]).set_index("n_datasets")
    assert start.loc[n, "current"] and start.loc[n, "cd_nemenyi"] == pytest.approx(cd, rel=1e-9)
    assert (start["max_rank_difference"] == k - 1).all()

    # Bayesian sign / signed-rank on the pair: the library's tests with baycomp's default priors,
    # rerun here on the saved scores with the notebook's seed (0)
    import precmp_lib as pc

    x, y = scores[first].to_numpy(), scores[second].to_numpy()
    for name, test in (("Bayesian sign", pc.bayes_sign_test), ("Bayesian signed-rank", pc.bayes_signed_rank_test)):
        ref = test(x, y, rope=res["rope"], random_state=0)
        got = res["bayes"][name]
        assert (got["p_a_better"], got["p_rope"], got["p_b_better"]) == pytest.approx(tuple(ref), abs=1e-12)
    rope_start = pd.DataFrame(res["rope_start"]).set_index("rope")
    assert rope_start.loc[0.0, "p_rope"] == 0
    assert rope_start[["p_a_better", "p_rope", "p_b_better"]].sum(axis=1).to_numpy() == pytest.approx(1)

    # Demšar's worked numbers (docs/methods.md §5.2 example 1 and §5.3 worked example)
    dm = res["demsar"]
    assert dm["friedman"] == pytest.approx(9.28363, rel=1e-6)
    assert dm["iman_davenport"] == pytest.approx(3.688893, rel=1e-6)
    assert dm["cd_nemenyi"] == pytest.approx(1.253559, abs=5e-7)
    assert dm["cd_bonferroni_dunn"] == pytest.approx(1.168143, abs=5e-7)
    demsar_holm = pd.DataFrame(dm["holm"])
    assert demsar_holm["reject"].tolist() == [True, True, False]
    np.testing.assert_allclose(demsar_holm["pvalue_adjusted"], [0.04705, 0.04705, 0.60841],
                               atol=5e-6)


@pytest.mark.runs_notebook("solutions/03_friedman_posthoc")
def test_solutions_03(notebook_defaults):
    """CD ratio 2 (CD ~ 1/sqrt(N)); exact Wilcoxon 2 / 2^N; Demšar's Holm (2 rejections) against
    Nemenyi (none, CD 1.254 > 1.179); Friedman's floor chi2.sf(N(k - 1), k - 1) at full agreement."""
    res = notebook_defaults
    assert notebook_parameters("solutions/03_friedman_posthoc")["exercise_datasets"] == SKLEARN_SETS
    assert res["ex1_ratio"] == pytest.approx(2.0, rel=1e-12)
    for n, p in res["ex2"].items():
        assert p == pytest.approx(2 / 2 ** int(n), rel=1e-9)
    assert res["ex2_smallest"] == 6
    assert res["ex3_holm_rejects"] == 2 and res["ex3_nemenyi_rejects"] == 0
    ex4 = res["ex4"]
    assert (ex4["n"], ex4["k"]) == (4, 3)
    assert ex4["best_possible_pvalue"] == pytest.approx(stats.chi2.sf(4 * 2, 2), rel=1e-9)
    assert ex4["friedman_pvalue"] >= ex4["best_possible_pvalue"] - 1e-12
    # exercise 6: adding worse classifiers leaves the pair's Wilcoxon p-value as it is and
    # moves its Nemenyi p-value (up: the CD grows with k) and its Holm p-value (more pairs)
    small, large = res["ex6"]["A, B, C"], res["ex6"]["A to F"]
    assert small["wilcoxon_pvalue"] == large["wilcoxon_pvalue"]
    assert large["nemenyi_pvalue"] > small["nemenyi_pvalue"]
    assert large["holm_pvalue"] != small["holm_pvalue"]


def check_conclusion(res):
    """The conclusion states the numbers of results.json (ranks, F, p, CD, V) and no others."""
    ranks = pd.Series(res["average_ranks"]).sort_values()
    fid, fr, nem, w = res["iman_davenport"], res["friedman"], res["nemenyi"], res["wilcoxon"]
    text = res["statements"]["conclusion"]
    assert_states(text, [
        len(res["datasets"]), len(res["classifiers"]), f"{ranks.iloc[0]:.2f}", f"{ranks.iloc[-1]:.2f}",
        f"{fid['statistic']:.3f}", f"{fid['pvalue']:.4g}", f"{fr['pvalue']:.4g}",
        f"{nem['critical_difference']:.3f}", nem["alpha"], f"{w['statistic']:g}", f"{w['pvalue']:.4g}",
        # the last line is compare_datasets' answer: N, the top model's mean rank, alpha
        len(res["datasets"]), f"{ranks.iloc[0]:.2f}", nem["alpha"],
    ], ignore=[*res["classifiers"], w["distribution"]])
    assert text.splitlines()[-1] == res["route"]["answer"]
    assert ("not all equivalent" in text) == (fid["pvalue"] <= nem["alpha"])
    assert ranks.index[0] in text.splitlines()[0].split("best average rank: ")[1].split(",")[0]
