"""Contract of notebooks/15_bootstrap_permutation.ipynb, checked on its one run at its defaults
(nbval does not execute it again).

The notebook's numbers are recomputed here from the predictions and items it saved: F1 and AUC
by scikit-learn; the bootstrap standard error and the paired permutation p-value by SciPy
(``scipy.stats.bootstrap(..., paired=True)``, ``scipy.stats.permutation_test(...,
permutation_type="samples")``), which draw their own resamples, so those agree within Monte
Carlo error (bounds written beside them); the cluster-robust standard error by statsmodels' OLS
with ``cov_type="cluster"``; Clopper–Pearson's lower bound at x = n is (α/2)^(1/n).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import notebook_parameters
from scipy import stats
from sklearn.metrics import f1_score, roc_auc_score

PARAMS = notebook_parameters("15_bootstrap_permutation")
pytestmark = pytest.mark.runs_notebook("15_bootstrap_permutation")


@pytest.fixture
def results(notebook_defaults):
    return notebook_defaults


def _data(results):
    y = np.asarray(results["y_test"]).astype(bool)
    pred = {k: np.asarray(v).astype(bool) for k, v in results["pred"].items()}
    prob = {k: np.asarray(v, float) for k, v in results["prob"].items()}
    return y, pred, prob


@pytest.mark.notebook
def test_scores_and_their_difference(results):
    y, pred, prob = _data(results)
    # scikit-learn's train_test_split rounds the test share up
    assert results["n_test"] == len(y) == math.ceil(569 * PARAMS["test_size"])
    scores = pd.DataFrame(results["scores"]).set_index("index")
    for k in ("logistic", "naive Bayes"):
        assert scores.loc[k, "F1"] == pytest.approx(f1_score(y, pred[k]), rel=1e-12)
        assert scores.loc[k, "AUC"] == pytest.approx(roc_auc_score(y, prob[k]), rel=1e-12)
    assert results["observed"]["F1"] == pytest.approx(
        f1_score(y, pred["logistic"]) - f1_score(y, pred["naive Bayes"]), rel=1e-12)


@pytest.mark.notebook
def test_bootstrap_and_permutation_agree_with_scipy(results):
    y, pred, _ = _data(results)
    a, b = pred["logistic"], pred["naive Bayes"]
    intervals = pd.DataFrame(results["intervals"]).set_index("index")
    B = PARAMS["n_resamples"]  # the notebook's resamples
    R = 600  # scipy's: fewer (they are the slow part here); the bounds below count both

    def delta(t, u, v):
        return f1_score(t, u) - f1_score(t, v)

    ref = stats.bootstrap((y, a, b), delta, paired=True,
                          vectorized=False, n_resamples=R, method="percentile",
                          random_state=np.random.default_rng(99))
    # a bootstrap SE from B resamples has a relative error of about sqrt(1/(2B)); two of them,
    # from B and R resamples, differ by about sqrt(1/(2B) + 1/(2R)) (sqrt(1/B) when R = B)
    assert intervals.loc["F1, paired", "bootstrap SE"] == pytest.approx(
        ref.standard_error, rel=4 * np.sqrt(1 / (2 * B) + 1 / (2 * R)))
    perm = stats.permutation_test((a, b), lambda u, v: delta(y, u, v),
                                  permutation_type="samples", vectorized=False, n_resamples=R,
                                  random_state=np.random.default_rng(98))
    p, ref_p = results["permutation_pvalues"]["F1"], perm.pvalue
    # two Monte Carlo p-values from B and R draws: 4 SE of their difference, plus the
    # 1/(draws + 1) of the count that includes the observed arrangement
    se = np.sqrt(max(ref_p, 0.01) * (1 - ref_p) * (1 / B + 1 / R))
    assert abs(p - ref_p) <= 4 * se + 1 / (min(B, R) + 1)
    assert 1 / (B + 1) <= p <= 1


@pytest.mark.notebook
def test_boundary_and_units(results):
    n, alpha = PARAMS["boundary_n"], 0.05
    assert results["slice_interval"] == [1.0, 1.0]
    assert results["exact_interval"][0] == pytest.approx((alpha / 2) ** (1 / n), rel=1e-9)
    assert results["exact_interval"][1] == 1.0
    items = pd.DataFrame(results["items"])
    assert len(items) == PARAMS["n_clusters"] * PARAMS["cluster_size"]
    d = (items["correct_a"] - items["correct_b"]).to_numpy(float)
    g = items["cluster"].to_numpy()
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": g})
    units = results["units"]
    assert units["CR1 (paired_difference)"] == pytest.approx(float(fit.bse[0]), rel=1e-9)
    plain = np.std(d, ddof=0) / np.sqrt(len(d))  # the item bootstrap's SE, B → ∞
    assert units["item bootstrap"] == pytest.approx(plain, rel=0.15)
    # the passage bootstrap's SE, B → ∞: CR0 = sqrt((C − 1)/C) · CR1 for the mean
    c = PARAMS["n_clusters"]
    assert units["passage bootstrap"] == pytest.approx(np.sqrt((c - 1) / c) * fit.bse[0], rel=0.25)


@pytest.mark.notebook
def test_conclusion_states_the_results(results):
    text = results["conclusion"]
    intervals = pd.DataFrame(results["intervals"]).set_index("index")
    for value in (results["observed"]["F1"], intervals.loc["F1, paired", "2.5 %"],
                  intervals.loc["AUC, paired", "97.5 %"]):
        assert f"{value:+.4f}" in text
    assert f"p = {results['permutation_pvalues']['AUC']:.4f}" in text
    assert f"({results['units']['passage bootstrap']:.4f})" in text


def _slow_delong(y, a, b):
    """DeLong et al. (1988) by every positive-negative pair (psi = 1, 1/2, 0), written out here."""
    out = []
    for s in (a, b):
        pos, neg = s[y], s[~y]
        psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
        out.append((psi.mean(), psi.mean(axis=1), psi.mean(axis=0)))
    (ta, xa, ya), (tb, xb, yb) = out
    m, n = len(xa), len(ya)
    var = (np.var(xa - xb, ddof=1) / m + np.var(ya - yb, ddof=1) / n)
    z = (ta - tb) / np.sqrt(var)
    return ta, tb, z, 2 * stats.norm.sf(abs(z))


@pytest.mark.notebook
def test_delong_beside_the_bootstrap(results):
    y, _, prob = _data(results)
    ta, tb, z, p = _slow_delong(y, prob["logistic"], prob["naive Bayes"])
    d = results["delong"]
    assert (d["auc_a"], d["auc_b"]) == pytest.approx((ta, tb), rel=1e-12)
    assert d["statistic"] == pytest.approx(z, rel=1e-9) and d["pvalue"] == pytest.approx(p, rel=1e-8)
    # the exact bound at an AUC of 1: (alpha/2)^(1/k), k = min(positives, negatives)
    k = min(y.sum(), (~y).sum())
    perfect = results["perfect"]
    assert perfect["estimate"] == 1 and perfect["variance"] == 0
    assert perfect["ci_low"] == pytest.approx((PARAMS["alpha"] / 2) ** (1 / k))
    assert f"z = {d['statistic']:.2f}" in results["delong_sentence"]


SOLUTION = notebook_parameters("solutions/15_bootstrap_permutation")


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/15_bootstrap_permutation")
def test_solutions_15(notebook_defaults):
    """The solutions notebook: DeLong against the O(n²) form, the exact bound, the SEs' spread."""
    r = notebook_defaults
    y = np.asarray(r["y_tiny"]).astype(bool)
    prob = {k: np.asarray(v, float) for k, v in r["prob_tiny"].items()}
    ta, tb, z, _ = _slow_delong(y, prob["logistic"], prob["naive Bayes"])
    assert r["ex4_delong"]["statistic"] == pytest.approx(z, rel=1e-9)
    assert r["ex4_observed"] == pytest.approx(ta - tb, rel=1e-12)
    ex4 = pd.DataFrame(r["ex4"]).set_index("index")
    assert ex4.loc["DeLong", "below observed"] == pytest.approx(ex4.loc["DeLong", "above observed"])
    k = min(y.sum(), (~y).sum())
    assert r["ex4_perfect"]["exact"][0] == pytest.approx((SOLUTION["alpha"] / 2) ** (1 / k))
    assert r["ex4_perfect"]["bootstrap"] == [1.0, 1.0] and r["ex4_perfect"]["delong_variance"] == 0
    ex3 = r["ex3"]
    ses = [ex3["item_bootstrap"], ex3["passage_bootstrap"], ex3["cr1"]]
    assert max(ses) / min(ses) < 1.25  # "agree within about a fifth" (instructor notes)
    assert r["ex1"]["predicted"] == pytest.approx(np.sqrt(r["ex1"]["rows"][0] / r["ex1"]["rows"][1]))
    assert r["ex2"]["extreme_share"]["naive Bayes"] > r["ex2"]["extreme_share"]["logistic"]
