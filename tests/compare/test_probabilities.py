"""Comparing models by their probabilities (precmp_lib/compare/probabilities.py).

Reference values: :func:`precmp_lib.stats.auc.delong_test` (itself checked against pROC in
tests/stats/test_auc.py), statsmodels' OLS with a cluster covariance for the paired loss
differences, statsmodels' ``multipletests(method="holm")``, and the corrected resampled t of
per-fold AUCs computed here with scikit-learn's ``roc_auc_score``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from sklearn.metrics import roc_auc_score
from statsmodels.stats.multitest import multipletests

from precmp_lib.compare.probabilities import ProbabilityComparison, compare_probabilities
from precmp_lib.compare.routes import comparison_from_json
from precmp_lib.stats.auc import brier_scores, delong_test, log_losses
from precmp_lib.stats.resampling import corrected_resampled_ttest


def frame(seed: int = 0, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    out = pd.DataFrame({"y": y})
    for name, k in (("good", 2.0), ("fair", 1.2), ("weak", 0.4)):
        out[name] = 1 / (1 + np.exp(-k * (2 * y - 1) - rng.normal(size=n)))
    return out


def test_auc_pairs_are_delong_with_holm():
    df = frame()
    cmp = compare_probabilities(df, y_true="y", proba=["good", "fair", "weak"])
    for r in cmp.auc_pairs.itertuples():
        ref = delong_test(df["y"], df[r.model_a], df[r.model_b])
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    holm = multipletests(cmp.auc_pairs["pvalue"], method="holm")[1]
    np.testing.assert_allclose(cmp.auc_pairs["pvalue_adjusted"], holm)
    assert cmp.best == ["good"] and cmp.summary.set_index("model")["rank"]["good"] == 1
    assert cmp.recommendation.startswith("Use good: it has the highest AUC")


def test_loss_pairs_equal_statsmodels_cluster_ols():
    df = frame(n=240)
    df["patient"] = np.repeat(np.arange(60), 4)
    cmp = compare_probabilities(df, y_true="y", proba=["good", "fair"], cluster="patient",
                                metric="brier")
    d = brier_scores(df["y"], df["good"]) - brier_scores(df["y"], df["fair"])
    fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", cov_kwds={"groups": df["patient"]})
    row = cmp.brier_pairs.iloc[0]
    assert row.estimate == pytest.approx(fit.params[0])
    assert (row.ci_high - row.estimate) / 1.959963984540054 == pytest.approx(fit.bse[0], rel=1e-9)
    assert "Obuchowski" in cmp.auc_pairs["test"].iloc[0]
    assert cmp.metric == "brier" and cmp.pairs.equals(cmp.brier_pairs)
    ll = log_losses(df["y"], df["good"]).mean()
    assert cmp.log_loss.set_index("model")["estimate"]["good"] == pytest.approx(ll)


def test_few_clusters_use_t():
    df = frame(n=200)
    df["site"] = np.repeat(np.arange(10), 20)
    cmp = compare_probabilities(df, y_true="y", proba=["good", "fair"], cluster="site")
    assert cmp.brier_pairs["df"].iloc[0] == 9 and "t (9 df)" in cmp.brier_pairs["test"].iloc[0]


def test_cross_validation_uses_the_corrected_t_of_fold_aucs():
    df = frame(n=300)
    df["fold"] = np.tile(np.arange(10), 30)
    df["id"] = np.arange(300)
    cmp = compare_probabilities(df, y_true="y", proba=["good", "weak"])
    per = {m: [roc_auc_score(df.y[df.fold == f], df[m][df.fold == f]) for f in range(10)]
           for m in ("good", "weak")}
    ref = corrected_resampled_ttest(per["good"], per["weak"], test_train_ratio=1 / 9)
    row = cmp.auc_pairs.iloc[0]
    assert row.statistic == pytest.approx(ref.statistic) and row.df == 9
    assert "Nadeau-Bengio" in row.test


def test_accuracy_metric_rests_on_the_labels():
    df = frame()
    cmp = compare_probabilities(df, y_true="y", proba=["good", "fair", "weak"], metric="accuracy",
                                threshold=0.6)
    labels = cmp.label_comparison
    acc = {m: float(((df[m] >= 0.6).astype(int) == df["y"]).mean()) for m in ("good", "fair", "weak")}
    assert labels.summary.set_index("model")["accuracy"].to_dict() == pytest.approx(acc)
    assert cmp.pairs.equals(labels.pairs) and cmp.best == labels.best


def test_json_round_trip_at_full_precision():
    cmp = compare_probabilities(frame(), y_true="y", proba=["good", "fair"])
    text = cmp.to_json()
    back = comparison_from_json(text)
    assert isinstance(back, ProbabilityComparison)
    data = json.loads(text)
    assert data["auc_pairs"]["records"][0]["pvalue"] == cmp.auc_pairs["pvalue"].iloc[0]
    assert data["auc"]["records"][0]["auc"] == cmp.auc["auc"].iloc[0]
    assert back.label_comparison.summary.equals(cmp.label_comparison.summary)
    pd.testing.assert_frame_equal(back.auc_pairs, cmp.auc_pairs, check_dtype=False)


def test_a_perfect_model_keeps_a_valid_interval():
    df = frame()
    df["oracle"] = df["y"] * 0.5 + 0.25
    cmp = compare_probabilities(df, y_true="y", proba=["oracle", "good"])
    row = cmp.auc.set_index("model").loc["oracle"]
    assert row["auc"] == 1.0 and row["ci_low"] < 1.0 and "Clopper-Pearson" in row["note"]


def test_unknown_metric():
    with pytest.raises(ValueError, match="metric must be one of"):
        compare_probabilities(frame(), y_true="y", proba=["good", "fair"], metric="f1")
