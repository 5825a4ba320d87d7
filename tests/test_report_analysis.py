"""The report template's analysis helpers: pure functions of a Predictions object.

References: accuracies and precisions counted by hand on small tables; McNemar and the
per-class tests are the library's (tested in their own modules), so here the check is that the
helpers select, label and adjust the right rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

import precmp_lib as pc
from precmp_lib import report
from precmp_lib.predictions import read_predictions


@pytest.fixture
def preds(tmp_path):
    rng = np.random.default_rng(7)
    names = np.array(["bird", "cat", "dog"])
    y = rng.integers(0, 3, 600)
    frame = pd.DataFrame({"truth": names[y]})
    for model, acc in [("lr", 0.9), ("nb", 0.7), ("rf", 0.88)]:
        frame[model] = names[np.where(rng.random(600) < acc, y, rng.integers(0, 3, 600))]
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    return read_predictions(path, y_true="truth"), frame


def test_class_summary_counts(preds):
    p, frame = preds
    s = report.class_summary(p)
    assert s.index.tolist() == ["bird", "cat", "dog"]
    assert s["n_true"].tolist() == frame.truth.value_counts().sort_index().tolist()
    assert s["n_pred_nb"].tolist() == frame.nb.value_counts().sort_index().tolist()


def test_accuracy_table_with_wilson_intervals(preds):
    p, frame = preds
    acc = report.accuracy_table(p)
    assert acc.model.tolist()[0] == "lr" and acc.accuracy.is_monotonic_decreasing
    row = acc.set_index("model").loc["nb"]
    k = int((frame.nb == frame.truth).sum())
    assert row.accuracy == k / 600
    lo, hi = proportion_confint(k, 600, method="wilson")
    assert (row.ci_low, row.ci_high) == pytest.approx((lo, hi))


def test_precision_table_by_hand_and_never_predicted_is_nan(preds, tmp_path):
    p, frame = preds
    tab = report.precision_table(p)
    sel = frame.rf == "cat"
    assert tab.loc["cat", "rf"] == pytest.approx((frame.truth[sel] == "cat").mean())
    path = tmp_path / "q.csv"
    pd.DataFrame({"y": [0, 1, 2, 2], "a": [0, 1, 1, 1], "b": [0, 1, 2, 2]}).to_csv(path, index=False)
    t2 = report.precision_table(read_predictions(path, y_true="y"))
    assert np.isnan(t2.loc[2, "a"]) and t2.loc[1, "a"] == pytest.approx(1 / 3)


def test_accuracy_tests_keep_only_requested_pairs_and_readjust(preds):
    p, _ = preds
    pairs = report.model_pairs(p.models, reference="lr")
    table, cochran = report.accuracy_tests(p, pairs)
    assert {frozenset(x) for x in zip(table.model_a, table.model_b)} == {frozenset(x) for x in pairs}
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(table.pvalue_holm, multipletests(table.pvalue, method="holm")[1])
    assert cochran is not None and cochran.df == 2
    correct = pc.correctness_matrix(p.codes_true, p.codes)
    assert cochran.statistic == pytest.approx(pc.cochrans_q(correct).statistic)


def test_pairwise_precision_labels_and_holm_across_classes(preds):
    p, frame = preds
    tab = report.pairwise_precision(p, [("lr", "nb")])
    assert tab["class"].tolist() == ["bird", "cat", "dog"]
    assert (tab.model_a == "lr").all() and (tab.model_b == "nb").all()
    direct = pc.compare_precision(frame.truth, frame.lr, frame.nb)
    np.testing.assert_allclose(tab.gs_pvalue, direct.gs_pvalue)
    np.testing.assert_allclose(tab.gs_pvalue_holm, pc.adjust_pvalues(direct.gs_pvalue.to_numpy()))


def test_model_pairs_bad_reference():
    with pytest.raises(ValueError, match="reference must be one of the models"):
        report.model_pairs(["a", "b"], reference="c")


def test_styled_keeps_small_pvalues_and_notes_on_one_line():
    frame = pd.DataFrame({"class": ["a", "b"], "gs_pvalue": [3.2e-9, 0.25], "rp": [1.5, np.nan],
                          "note": ["", "precision of A is 1 (logit infinite)"]})
    html = report.styled(frame).to_html()
    assert "3.20e-09" in html and "0.2500" in html and "1.5000" in html
    assert "white-space: nowrap" in html
    assert report.styled(None) is None


def test_prevalence_table_from_one_vs_rest_rates_by_hand(preds):
    p, frame = preds
    tab = report.prevalence_table(p, {"cat": 0.1, "dog": 0.5}).set_index(["class", "model"])
    truth, pred = frame.truth == "cat", frame.nb == "cat"
    se, sp = pred[truth].mean(), (~pred[~truth]).mean()  # seed eq 28 inputs, counted here
    row = tab.loc[("cat", "nb")]
    assert row.precision_at_prevalence == pytest.approx(pc.prevalence_adjusted_precision(se, sp, 0.1))
    assert row.test_set_prevalence == pytest.approx(truth.mean())
    assert row.precision_test_set == pytest.approx((frame.truth[pred] == "cat").mean())
    assert len(tab) == 6
