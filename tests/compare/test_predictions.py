"""compare_models: every number of a report, from counts.

References: per-fold accuracies and the corrected repeated k-fold t recomputed here with pandas
and the formula of docs/methods.md §4 (Bouckaert & Frank's r x k form of Nadeau & Bengio);
McNemar's exact p-value from ``scipy.stats.binomtest`` and the mid-p from its definition
(docs/methods.md §2); Holm from statsmodels' ``multipletests``; per-class tests from the
library's raw-label functions (``compare_precision``, ``gee_precision``), themselves checked
against DTComPair and geepack in test_precision.py; prevalence-adjusted precision from
docs/methods.md §9, worked example 1.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

import precmp_lib as pc
from precmp_lib.compare.prediction_conclusions import format_pvalue
from precmp_lib.compare.predictions import ModelComparison, compare_models, model_pairs
from precmp_lib.core.counts import (
    class_cells,
    joint_confusion,
    moments_from_patterns,
    pair_cells_from_patterns,
    precision_moments,
)
from precmp_lib.engine.predictions import count_predictions
from precmp_lib.stats.precision import compare_precision_from_counts
from precmp_lib.stats.precision_gee import compare_precision_from_moments
from precmp_lib.stats.prevalence import prevalence_bootstrap_from_patterns


def _noisy(rng, y, acc, k):
    return np.where(rng.random(len(y)) < acc, y, rng.integers(0, k, len(y)))


@pytest.fixture(scope="module")
def test_set():
    rng = np.random.default_rng(7)
    names = np.array(["bird", "cat", "dog"])
    y = rng.integers(0, 3, 600)
    frame = pd.DataFrame({"truth": names[y]})
    for model, acc in [("lr", 0.9), ("nb", 0.7), ("rf", 0.88)]:
        frame[model] = names[_noisy(rng, y, acc, 3)]
    return frame


def _cv_frame(n=200, repeats=3, folds=5, seed=3, models=(("a", 0.85), ("b", 0.8), ("c", 0.7))):
    """Long out-of-fold predictions of a simulated r x k cross-validation."""
    rng = np.random.default_rng(seed)
    names = np.array(["no", "yes", "maybe"])
    y = rng.integers(0, 3, n)
    rows = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % folds)
        for model, acc in models:
            pred = _noisy(rng, y, acc, 3)
            rows.append(pd.DataFrame({"id": np.arange(n), "repeat": r, "fold": fold, "model": model,
                                      "y_true": names[y], "y_pred": names[pred]}))
    return pd.concat(rows, ignore_index=True)


# ------------------------------------------------------------------------------------------
# test set
# ------------------------------------------------------------------------------------------


def test_design_and_summary_of_a_test_set(test_set):
    cmp = compare_models(test_set, y_true="truth")
    assert cmp.design["design"] == "test set"
    assert cmp.design["description"] == "one test set of 600 observations"
    acc = cmp.summary.set_index("model")
    for m in ("lr", "nb", "rf"):
        k = int((test_set[m] == test_set.truth).sum())
        assert acc.loc[m, "accuracy"] == k / 600
        # Wilson interval, as statsmodels computes it
        from statsmodels.stats.proportion import proportion_confint

        lo, hi = proportion_confint(k, 600, method="wilson")
        assert (acc.loc[m, "ci_low"], acc.loc[m, "ci_high"]) == pytest.approx((lo, hi))
    # models in the order of the data; rank 1 = most accurate (lr 0.9, rf 0.88, nb 0.7 simulated)
    assert cmp.summary["model"].tolist() == ["lr", "nb", "rf"]
    assert cmp.summary["rank"].tolist() == [1, 3, 2]


def test_mcnemar_exact_equals_binomtest_and_holm_across_pairs(test_set):
    cmp = compare_models(test_set, y_true="truth")
    for r in cmp.pairs.itertuples():
        ra = test_set[r.model_a] == test_set.truth
        rb = test_set[r.model_b] == test_set.truth
        b, c = int((ra & ~rb).sum()), int((~ra & rb).sum())
        assert (r.b, r.c) == (b, c)
        assert b + c >= 25 and r.test == "McNemar exact"
        assert r.pvalue == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-10)
        assert r.estimate == pytest.approx(ra.mean() - rb.mean())
        assert r.ci_low < r.estimate < r.ci_high
    holm = multipletests(cmp.pairs["pvalue"], method="holm")[1]
    np.testing.assert_allclose(cmp.pairs["pvalue_adjusted"], holm)


def test_few_discordant_pairs_use_the_mid_p_and_say_so():
    y = np.array([0, 1] * 40)
    a = y.copy()
    b = y.copy()
    b[:7] = 1 - b[:7]  # b wrong on 7, a right there
    a[10:12] = 1 - a[10:12]  # a wrong on 2
    cmp = compare_models(pd.DataFrame({"y": y, "a": a, "b": b}), y_true="y")
    r = cmp.pairs.iloc[0]
    assert (r.b, r.c) == (7, 2) and r.test == "McNemar mid-p" and "mid-p" in r.note
    midp = 2 * stats.binom.cdf(2, 9, 0.5) - stats.binom.pmf(2, 9, 0.5)  # methods.md §2
    assert r.pvalue == pytest.approx(midp)
    assert cmp.warnings == ["1 pair of models disagrees on fewer than 10 observations "
                            "(b + c < 10): McNemar has little power there."]
    assert cmp.warning_items == [["a − b: disagree on only 9 observations"]]


def test_per_class_equals_the_raw_label_tests_with_holm_over_classes_and_pairs(test_set):
    cmp = compare_models(test_set, y_true="truth")
    for a, b in [("lr", "nb"), ("lr", "rf"), ("rf", "nb")]:  # better-ranked model first
        ours = cmp.per_class[(cmp.per_class.model_a == a) & (cmp.per_class.model_b == b)]
        direct = pc.compare_precision(test_set.truth, test_set[a], test_set[b])
        assert ours["class"].tolist() == direct["class"].tolist() == ["bird", "cat", "dog"]
        for col in ("gs_pvalue", "wgs_pvalue", "gw_pvalue", "rp", "rp_ci_low", "rp_ci_high"):
            np.testing.assert_allclose(ours[col], direct[col], rtol=1e-10)
    holm = multipletests(cmp.per_class["gs_pvalue"], method="holm")[1]
    np.testing.assert_allclose(cmp.per_class["gs_pvalue_adjusted"], holm)
    assert len(cmp.combined) == 3 and cmp.combined["method"].str.startswith("Dai").all()


def test_gee_joint_equals_the_raw_label_gee(test_set):
    cmp = compare_models(test_set, y_true="truth", reference="nb")
    direct = pc.gee_precision(test_set.truth, test_set[["lr", "nb", "rf"]], reference="nb")
    np.testing.assert_allclose(cmp.gee["statistic"], direct.joint["statistic"], rtol=1e-10)
    assert [tuple(p) for p in cmp.pairs[["model_a", "model_b"]].to_numpy()] == [("lr", "nb"),
                                                                               ("rf", "nb")]


def test_class_counts_and_precision_by_hand(test_set):
    cmp = compare_models(test_set, y_true="truth")
    counts = cmp.class_counts.set_index("class")
    assert counts["n_true"].tolist() == test_set.truth.value_counts().sort_index().tolist()
    assert counts["n_pred_1"].tolist() == test_set.nb.value_counts().sort_index().tolist()
    prec = cmp.precision.set_index("class")
    sel = test_set.rf == "cat"
    assert prec.loc["cat", "rf"] == pytest.approx((test_set.truth[sel] == "cat").mean())
    never = compare_models(pd.DataFrame({"y": [0, 1, 2, 2], "a": [0, 1, 1, 1], "b": [0, 1, 2, 2]}),
                           y_true="y")
    p = never.precision.set_index("class")
    assert np.isnan(p.loc[2, "a"]) and p.loc[1, "a"] == pytest.approx(1 / 3)
    # b is more accurate, so the pair reads b − a and a is model B of the per-class table
    assert "never predicted by B" in never.per_class.set_index("class").loc[2, "note"]


def _close_pair(test_set):
    """rf: lr's predictions, made wrong on 8 rows lr gets right and right on 3 it gets wrong."""
    frame = test_set.copy()
    right = np.flatnonzero(frame.lr == frame.truth)
    wrong = np.flatnonzero(frame.lr != frame.truth)
    frame["rf"] = frame.lr
    frame.loc[right[:8], "rf"] = np.where(frame.truth[right[:8]] == "cat", "dog", "cat")
    frame.loc[wrong[:3], "rf"] = frame.truth[wrong[:3]]
    return frame


def test_best_group_and_conclusions_in_words(test_set):
    cmp = compare_models(_close_pair(test_set), y_true="truth")
    assert cmp.pairs.set_index(["model_a", "model_b"]).loc[("lr", "rf"), ["b", "c"]].tolist() == [8, 3]
    assert cmp.best == ["lr", "rf"]  # nb is far worse; lr and rf are not shown to differ
    assert cmp.summary.set_index("model")["best"].to_dict() == {"lr": True, "rf": True, "nb": False}
    assert cmp.recommendation.startswith("lr and rf are not shown to differ in accuracy from the "
                                         "most accurate, lr (these data detect a difference of ")
    assert "tied" not in cmp.recommendation
    text = " ".join(cmp.conclusions)
    assert "not shown to differ" in text and "equal" not in text
    assert "Shown less accurate than lr: nb." in text
    assert 1 <= len(cmp.conclusions) <= 5


def test_pairs_put_the_better_ranked_model_first(test_set):
    # file order lr, nb, rf; accuracy order lr, rf, nb: the pair of nb and rf reads rf − nb
    cmp = compare_models(test_set, y_true="truth")
    assert [tuple(p) for p in cmp.pairs[["model_a", "model_b"]].to_numpy()] == [
        ("lr", "nb"), ("lr", "rf"), ("rf", "nb")]
    assert (cmp.pairs["estimate"] >= 0).all()
    acc = cmp.summary.set_index("model")["accuracy"]
    row = cmp.pairs.iloc[2]
    assert row.estimate == pytest.approx(acc["rf"] - acc["nb"])


def test_one_winner_is_recommended_with_its_smallest_lead(test_set):
    cmp = compare_models(test_set, y_true="truth")
    assert cmp.best == ["lr"]
    closest = cmp.pairs.iloc[1]  # lr − rf, the smaller lead of lr (0.9 against 0.88 simulated)
    assert (closest.model_a, closest.model_b) == ("lr", "rf")
    # the interval beside the decision is the Holm-consistent one, at the pair's step level
    assert cmp.recommendation == (
        f"Use lr: it is more accurate than every other model by at least "
        f"{100 * closest.estimate:.1f} points, {100 * closest.holm_level:.4g} % CI "
        f"{100 * closest.holm_ci_low:.1f} to {100 * closest.holm_ci_high:.1f} against rf.")


def _quoted_pvalues(lines):
    """(model A, model B, p text) of every "A − B: ... p = X after Holm" in ``lines``."""
    import re

    found = []
    for line in lines:
        for m in re.finditer(r"(\S+) − (\S+): .*?p (?:= )?(< 0\.0001|[0-9.]+[0-9]) after Holm", line):
            found.append(m.groups())
    return found


def test_a_reference_page_is_one_family(test_set):
    # With a reference the page tests each model against it, one Holm family of m - 1 pairs;
    # every sentence quotes that table's adjusted p-values and no other pair is tested.
    cmp = compare_models(_close_pair(test_set), y_true="truth", reference="nb")
    holm = multipletests(cmp.pairs["pvalue"], method="holm")[1]
    np.testing.assert_allclose(cmp.pairs["pvalue_adjusted"], holm)
    table = {(r.model_a, r.model_b): format_pvalue(r.pvalue_adjusted) for r in cmp.pairs.itertuples()}
    quoted = _quoted_pvalues([cmp.recommendation, *cmp.conclusions, *cmp.details])
    assert len(quoted) == len(cmp.pairs)
    for a, b, p in quoted:
        assert table[(a, b)] == p, (a, b)
    # lr and rf both beat nb (0.9 and about 0.89 against 0.7 simulated); lr − rf is not a pair
    assert cmp.best == ["lr", "rf"]
    assert cmp.recommendation.startswith("lr and rf are more accurate than the reference nb")
    assert "Shown more accurate than the reference nb: lr and rf" in " ".join(cmp.conclusions)


def test_a_reference_no_one_beats_is_kept():
    y = np.array([0, 1] * 60)
    ref = y.copy()
    ref[:4] = 1 - ref[:4]
    close = ref.copy()
    close[10:13] = 1 - close[10:13]  # 3 more errors: not shown to differ
    far = y.copy()
    far[:40] = 1 - far[:40]
    cmp = compare_models(pd.DataFrame({"y": y, "ref": ref, "close": close, "far": far}), y_true="y",
                         reference="ref")
    assert cmp.best == ["ref", "close"]
    assert cmp.recommendation == ("Keep the reference ref or take close, which is not shown to "
                                  "differ from it; choose on cost or simplicity.")


def test_every_pair_quotes_the_table(test_set):
    cmp = compare_models(_close_pair(test_set), y_true="truth")
    table = {(r.model_a, r.model_b): format_pvalue(r.pvalue_adjusted) for r in cmp.pairs.itertuples()}
    quoted = _quoted_pvalues([cmp.recommendation, *cmp.conclusions, *cmp.details])
    assert quoted and all(table[(a, b)] == p for a, b, p in quoted)


def test_prevalence_adjusted_precision_with_intervals_and_ratio(test_set):
    cmp = compare_models(test_set, y_true="truth", prevalence={"cat": 0.1}, n_boot=300)
    t = cmp.prevalence.set_index("model")
    for m in ("lr", "nb", "rf"):
        truth, pred = test_set.truth == "cat", test_set[m] == "cat"
        se, sp = (truth & pred).sum() / truth.sum(), (~truth & ~pred).sum() / (~truth).sum()
        expected = pc.prevalence_adjusted_precision(se, sp, 0.1)
        assert t.loc[m, "precision_at_prevalence"] == pytest.approx(expected)
        assert t.loc[m, "ci_low"] < expected < t.loc[m, "ci_high"]
    r = cmp.prevalence_ratio.set_index(["model_a", "model_b"]).loc[("lr", "nb")]
    assert r.ratio == pytest.approx(t.loc["lr", "precision_at_prevalence"]
                                    / t.loc["nb", "precision_at_prevalence"])
    assert r.ci_low < r.ratio < r.ci_high
    with pytest.raises(ValueError, match="prevalence: 'fish' is not one of the classes"):
        compare_models(test_set, y_true="truth", prevalence={"fish": 0.1})


def test_prevalence_bootstrap_from_counts_matches_methods_example():
    # docs/methods.md §9 worked example 1: TP 45, FN 15, FP 10, TN 130, prevalence 0.1
    res = prevalence_bootstrap_from_patterns([1, 1, 0, 0], [[1], [0], [1], [0]],
                                                [45, 15, 10, 130], classes=[1], prevalence=[0.1],
                                                n_resamples=4000, random_state=12345)
    assert res.adjusted[0, 0] == pytest.approx(0.538462, abs=1e-6)
    # the interval: Bayes' rule at the corners of statsmodels' Wilson intervals of Se (45 of
    # 60) and FPR (10 of 140), each at 97.5 % (docs/methods.md §9: 0.3314 to 0.7241)
    se_lo, se_hi = proportion_confint(45, 60, alpha=0.025, method="wilson")
    f_lo, f_hi = proportion_confint(10, 140, alpha=0.025, method="wilson")
    assert res.ci_low[0, 0] == pytest.approx(_ppv(se_lo, f_hi, 0.1), rel=1e-9)
    assert res.ci_high[0, 0] == pytest.approx(_ppv(se_hi, f_lo, 0.1), rel=1e-9)


def _ppv(se, fpr, pi):
    """Precision at prevalence pi (Bayes' rule, docs/methods.md §9)."""
    return se * pi / (se * pi + fpr * (1 - pi))


def test_counts_input_gives_the_same_comparison(test_set):
    counts = count_predictions(test_set, y_true="truth")
    a = compare_models(counts)
    b = compare_models(test_set, y_true="truth")
    assert a.to_json() == b.to_json()


def test_json_round_trip(test_set):
    cmp = compare_models(test_set, y_true="truth", prevalence={"dog": 0.5}, n_boot=200)
    text = cmp.to_json()
    json.loads(text)  # strict JSON: NaN written as null
    assert "NaN" not in text
    back = ModelComparison.from_json(text)
    assert back.to_json() == text
    pd.testing.assert_frame_equal(back.per_class, cmp.per_class, check_dtype=False)
    assert back.best == cmp.best and back.design == cmp.design
    # every table with an adjusted p-value names its adjustment, and keeps it through JSON
    for name in ("pairs", "per_class", "gee", "combined"):
        assert getattr(cmp, name).attrs["adjustment"] == "holm"
        assert getattr(back, name).attrs == getattr(cmp, name).attrs


def test_bad_arguments():
    frame = pd.DataFrame({"y": [0, 1], "a": [0, 1]})
    with pytest.raises(ValueError, match="at least two models"):
        compare_models(frame, y_true="y")
    with pytest.raises(ValueError, match="y_true"):
        compare_models(frame)
    with pytest.raises(ValueError, match="alpha must lie in"):
        compare_models(frame, y_true="y", alpha=1.5)
    with pytest.raises(ValueError, match="reference must be one of the models"):
        model_pairs(["a", "b"], reference="c")


def test_format_pvalue_one_format():
    assert format_pvalue(0.0) == "< 0.0001"
    assert format_pvalue(9.99e-5) == "< 0.0001"
    assert format_pvalue(0.38298) == "0.3830"
    assert format_pvalue(0.0001234) == "0.0001234"
    assert format_pvalue(1.0) == "1.000"
    assert format_pvalue(float("nan")) == ""


# ------------------------------------------------------------------------------------------
# repeated cross-validation
# ------------------------------------------------------------------------------------------


def test_corrected_repeated_kfold_t_from_per_fold_accuracies():
    long = _cv_frame()
    cmp = compare_models(long, y_true="y_true")
    assert cmp.design["description"] == "3 × 5 cross-validation of 200 observations"
    # per-fold accuracies, computed here with pandas
    long = long.assign(right=long.y_true == long.y_pred)
    acc = long.groupby(["repeat", "fold", "model"])["right"].mean().unstack("model")
    n_test = long[long.model == "a"].groupby(["repeat", "fold"]).size()
    ratio = (n_test / (200 - n_test)).mean() if n_test.nunique() == 1 else n_test.mean() / (200 - n_test).mean()
    for r in cmp.pairs.itertuples():
        d = (acc[r.model_a] - acc[r.model_b]).to_numpy()
        j = len(d)
        t = d.mean() / np.sqrt((1 / j + ratio) * d.var(ddof=1))  # methods.md §4, r x k form
        p = 2 * stats.t.sf(abs(t), j - 1)
        assert r.test.startswith("corrected repeated k-fold t")
        assert r.statistic == pytest.approx(t, rel=1e-10)
        assert r.pvalue == pytest.approx(p, rel=1e-10)
        assert r.df == j - 1
        assert r.estimate == pytest.approx(d.mean())
        half = stats.t.isf(0.025, j - 1) * np.sqrt((1 / j + ratio) * d.var(ddof=1))
        assert (r.ci_low, r.ci_high) == pytest.approx((d.mean() - half, d.mean() + half))
    np.testing.assert_allclose(cmp.pairs["pvalue_adjusted"],
                               multipletests(cmp.pairs["pvalue"], method="holm")[1])
    # Bayesian correlated t on the same per-fold accuracies (precmp_lib.stats.bayesian, tested there
    # against baycomp's formulas), with the region of practical equivalence of one point
    r = cmp.pairs.iloc[0]
    bayes = pc.bayes_correlated_ttest(acc[r.model_a].to_numpy(), acc[r.model_b].to_numpy(),
                                      rope=0.01, runs=3, test_train_ratio=ratio)
    assert (r.p_a_better, r.p_rope, r.p_b_better) == pytest.approx(
        (bayes.p_a_better, bayes.p_rope, bayes.p_b_better))
    assert r.p_a_better + r.p_rope + r.p_b_better == pytest.approx(1)


def test_cv_accuracy_interval_is_clustered_on_the_observation():
    long = _cv_frame()
    cmp = compare_models(long, y_true="y_true")
    row = cmp.summary.set_index("model").loc["a"]
    sub = long[long.model == "a"].assign(right=lambda f: f.y_true == f.y_pred)
    per_obs = sub.groupby("id")["right"].agg(["sum", "size"])
    acc = per_obs["sum"].sum() / per_obs["size"].sum()
    g = len(per_obs)
    var = g / (g - 1) * ((per_obs["sum"] - acc * per_obs["size"]) ** 2).sum() / per_obs["size"].sum() ** 2
    half = stats.norm.isf(0.025) * np.sqrt(var)
    assert row.accuracy == pytest.approx(acc)
    assert (row.ci_low, row.ci_high) == pytest.approx((acc - half, acc + half))
    naive = stats.norm.isf(0.025) * np.sqrt(acc * (1 - acc) / len(sub))
    assert half > naive  # the repeated predictions of one observation are not independent


def test_5x2_design_adds_the_5x2cv_t_and_f():
    long = _cv_frame(n=120, repeats=5, folds=2, seed=5)
    cmp = compare_models(long, y_true="y_true")
    long = long.assign(right=long.y_true == long.y_pred)
    acc = long.groupby(["repeat", "fold", "model"])["right"].mean().unstack("model")
    r = cmp.pairs.iloc[0]
    a = acc[r.model_a].to_numpy().reshape(5, 2)
    b = acc[r.model_b].to_numpy().reshape(5, 2)
    assert r.t5x2_pvalue == pytest.approx(pc.ttest_5x2cv(a, b).pvalue)
    assert r.f5x2_pvalue == pytest.approx(pc.ftest_5x2cv(a, b).pvalue)


def test_cv_per_class_tests_are_clustered():
    # identical repeats (the same predictions three times): clustering on the observation leaves
    # every statistic as on one copy (methods.md §7, "Cross-validation")
    rng = np.random.default_rng(11)
    n = 300
    y = rng.integers(0, 3, n)
    a, b = _noisy(rng, y, 0.8, 3), _noisy(rng, y, 0.7, 3)
    one = pd.DataFrame({"y": y, "a": a, "b": b})
    rows = [pd.DataFrame({"id": np.arange(n), "repeat": r, "fold": np.arange(n) % 3, "model": m,
                          "y_true": y, "y_pred": p}) for r in range(3) for m, p in (("a", a), ("b", b))]
    cmp = compare_models(pd.concat(rows, ignore_index=True), y_true="y_true")
    ref = compare_models(one, y_true="y")
    for col in ("gs_statistic", "wgs_statistic", "gw_statistic", "rp", "rp_ci_low", "rp_ci_high"):
        np.testing.assert_allclose(cmp.per_class[col], ref.per_class[col], rtol=1e-9)
    np.testing.assert_allclose(cmp.gee["statistic"], ref.gee["statistic"], rtol=1e-9)


def test_cv_gee_equals_the_raw_rows_clustered_on_the_id():
    long = _cv_frame()
    cmp = compare_models(long, y_true="y_true")
    wide = long.pivot(index=["id", "repeat"], columns="model", values="y_pred").reset_index()
    truth = long.drop_duplicates(["id"]).set_index("id")["y_true"]
    direct = pc.gee_precision(truth.loc[wide.id].to_numpy(), wide[["a", "b", "c"]], groups=wide.id)
    np.testing.assert_allclose(cmp.gee["statistic"], direct.joint["statistic"], rtol=1e-10)


def test_pair_cells_and_moments_from_patterns_equal_the_raw_row_counts():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 5, 500)
    a, b = _noisy(rng, y, 0.6, 5), _noisy(rng, y, 0.5, 5)
    pat = pd.DataFrame({"y": y, "a": a, "b": b}).value_counts().rename("n").reset_index()
    cells = pair_cells_from_patterns(pat.y, pat.a, pat.b, pat.n, n_classes=5)
    np.testing.assert_array_equal(cells, class_cells(joint_confusion(y, a, b, labels=range(5)).table))
    mo = moments_from_patterns(pat.y, pat[["a", "b"]], pat.n, classes=range(5), names=["a", "b"])
    raw = precision_moments(y, {"a": a, "b": b}, labels=range(5))
    for f in ("n_correct", "n_wrong", "cc", "ww"):
        np.testing.assert_array_equal(getattr(mo, f), getattr(raw, f))
    groups = rng.integers(0, 100, 500)
    pat = pd.DataFrame({"g": groups, "y": y, "a": a, "b": b}).value_counts().rename("n").reset_index()
    mo = moments_from_patterns(pat.y, pat[["a", "b"]], pat.n, classes=range(5), names=["a", "b"],
                                  clusters=pat.g)
    raw = precision_moments(y, {"a": a, "b": b}, groups=groups, labels=range(5))
    for f in ("n_correct", "n_wrong", "cc", "cw", "ww"):
        np.testing.assert_array_equal(getattr(mo, f), getattr(raw, f))
    np.testing.assert_allclose(
        compare_precision_from_moments(
            moments_from_patterns(y, np.c_[a, b], np.ones(500), classes=range(5),
                                     names=["a", "b"]))["gs_statistic"],
        compare_precision_from_counts(class_cells(
            joint_confusion(y, a, b, labels=range(5)).table))["gs_statistic"], rtol=1e-10)


def test_pattern_table_functions_say_which_argument_is_wrong():
    # the fuzz test cannot tell "y", "a" or "b" in a message from any other word: the message
    # must start with the argument here
    y, a, b, w = [0, 1], [0, 1], [1, 1], [3, 2]
    with pytest.raises(ValueError, match=r"^y must hold class codes below 2 \(the number of "
                                         r"classes, from n_classes\); got 2"):
        pair_cells_from_patterns([0, 2], a, b, w, n_classes=2)
    with pytest.raises(ValueError, match=r"^b must hold class codes >= 0; got -1"):
        pair_cells_from_patterns(y, a, [0, -1], w, n_classes=2)
    with pytest.raises(ValueError, match=r"^a must have one entry per pattern row of y \(2\)"):
        pair_cells_from_patterns(y, [0, 1, 1], b, w, n_classes=2)
    with pytest.raises(ValueError, match=r"^a must hold class codes \(whole numbers\); got 0.5"):
        pair_cells_from_patterns(y, [0.5, 1], b, w, n_classes=2)
    with pytest.raises(ValueError, match=r"^weights must hold one count per pattern row of y"):
        pair_cells_from_patterns(y, a, b, [3], n_classes=2)
    with pytest.raises(ValueError, match=r"^names must name each of the 2 models"):
        moments_from_patterns(y, np.c_[a, b], w, classes=[0, 1], names=["a"])
    with pytest.raises(ValueError, match=r"^y must hold class codes below 1 .*from classes"):
        moments_from_patterns(y, np.c_[a, b], w, classes=[0], names=["a", "b"])
    mo = moments_from_patterns(y, np.c_[a, b], w, classes=[0, 1], names=["a", "b"])
    with pytest.raises(ValueError, match=r"^b must be the position of a classifier in "
                                         r"moments.names \(0 to 1\); got 2"):
        compare_precision_from_moments(mo, b=2)
    with pytest.raises(ValueError, match=r"^a must be an integer >= 0; got -1"):
        compare_precision_from_moments(mo, a=-1)
    with pytest.raises(ValueError, match=r"^a and b must be two different classifiers"):
        compare_precision_from_moments(mo, a=1, b=1)


def test_compare_models_checks_its_options_before_counting(test_set):
    with pytest.raises(ValueError, match=r"^y_true='label' is not a column of the data"):
        compare_models(test_set, y_true="label")
    with pytest.raises(ValueError, match=r"^n_boot must be an integer >= 2; got 1"):
        compare_models(test_set, y_true="truth", n_boot=1)
    with pytest.raises(ValueError, match=r"^prevalence\['cat'\] must lie in \[0, 1\]; got 1.5"):
        compare_models(test_set, y_true="truth", prevalence={"cat": 1.5})
    with pytest.raises(ValueError, match=r"^seed must be None, a non-negative integer"):
        compare_models(test_set, y_true="truth", seed="7")
    with pytest.raises(ValueError, match=r"^models must name at least two models, each once"):
        model_pairs(["a", "a"])


# ------------------------------------------------------------------------------------------
# scale
# ------------------------------------------------------------------------------------------


def test_200_classes_and_3_models():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 200, 20_000)
    frame = pd.DataFrame({"y": y, **{m: _noisy(rng, y, acc, 200) for m, acc in
                                     (("a", .8), ("b", .75), ("c", .7))}})
    cmp = compare_models(frame, y_true="y", n_boot=200)
    assert len(cmp.per_class) == 3 * 200 and len(cmp.gee) == 200
    assert cmp.combined["method"].eq("Simes").all()  # no K^3 permutation table for 200 classes
    assert cmp.best == ["a"]


def test_30_models_and_10_classes():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 10, 3000)
    frame = pd.DataFrame({"y": y, **{f"m{j:02d}": _noisy(rng, y, 0.6 + 0.01 * j, 10)
                                     for j in range(30)}})
    # beyond 10 models each is tested against the leader; every pair's accuracy in all_pairs
    cmp = compare_models(frame, y_true="y", n_boot=100)
    assert len(cmp.pairs) == 29 and len(cmp.per_class) == 290 and len(cmp.all_pairs) == 435
    assert cmp.summary.loc[cmp.summary["rank"] == 1, "model"].iloc[0] == cmp.best[0]
    every = compare_models(frame, y_true="y", n_boot=100, family="all")
    assert len(every.pairs) == 435 and len(every.per_class) == 4350
    assert every.best[0] == cmp.best[0]


def test_small_sample_warnings():
    # 20 observations (< 30); model b predicts class 2 only twice (< 5)
    y = np.array([0, 1, 2, 0] * 5)
    a = y.copy()
    b = np.where(y == 2, 0, y)
    b[[2, 6]] = 2
    cmp = compare_models(pd.DataFrame({"y": y, "a": a, "b": b}), y_true="y")
    assert cmp.warnings == [
        "Only 20 observations, fewer than 30: every interval and p-value here is rough.",
        "1 pair of models disagrees on fewer than 10 observations (b + c < 10): McNemar has "
        "little power there.",
        "1 model predicts some classes fewer than 5 times: their precision there is unreliable."]
    assert cmp.warning_items == [[], ["a − b: disagree on only 3 observations"],
                                 ["b predicts 1 class fewer than 5 times: 2"]]


def test_when_no_pair_differs_no_model_is_shown_better():
    y = np.array([0, 1] * 30)
    a, b, c = y.copy(), y.copy(), y.copy()
    b[:2], c[2:5] = 1 - b[:2], 1 - c[2:5]  # 2 and 3 errors: no pair differs
    cmp = compare_models(pd.DataFrame({"y": y, "a": a, "b": b, "c": c}), y_true="y")
    assert not cmp.pairs["reject"].any()
    # a − c: b = 3, c = 0 of n = 60; sd of the paired differences sqrt(3/60 - (3/60)^2), and
    # (z_0.975 + z_0.8) sd / sqrt(60) = 0.0788: the larger of the top model's two pairs
    sd = np.sqrt(3 / 60 - (3 / 60) ** 2)
    mde = (stats.norm.isf(0.025) + stats.norm.isf(0.2)) * sd / np.sqrt(60)
    assert cmp.recommendation == ("All 3 models are not shown to differ in accuracy: a, b and c "
                                  f"(these data detect a difference of {100 * mde:.1f} points "
                                  "with 80 % power; smaller ones could go unseen); choose on cost "
                                  "or simplicity.")


def _clustered_cv(n=300, repeats=6, seed=11):
    """Long cv predictions whose repeats of an observation mostly agree (each model keeps an
    observation's own prediction in 9 of 10 repeats): strongly clustered rows."""
    rng = np.random.default_rng(seed)
    names = np.array(["no", "yes", "maybe"])
    y = rng.choice(3, n, p=[0.6, 0.25, 0.15])
    rows = []
    base = {m: _noisy(rng, y, acc, 3) for m, acc in (("a", 0.8), ("b", 0.7))}
    for r in range(repeats):
        fold = rng.permutation(np.arange(n) % 5)
        for m, own in base.items():
            pred = np.where(rng.random(n) < 0.9, own, rng.integers(0, 3, n))
            rows.append(pd.DataFrame({"id": np.arange(n), "repeat": r, "fold": fold, "model": m,
                                      "y_true": names[y], "y_pred": names[pred]}))
    return pd.concat(rows, ignore_index=True)


def _direct_prevalence_bootstrap(frame, label, pi, n_boot, seed, by_row):
    """Independent reference: resample the observations (or the rows) of the long table with
    replacement and recompute sensitivity, specificity and the precision at ``pi`` (eq. 28)."""
    models = ["a", "b"]
    ids = np.sort(frame["id"].unique())
    per = {}
    for m in models:
        part = frame[frame["model"] == m]
        truth = (part["y_true"] == label).to_numpy()
        pred = (part["y_pred"] == label).to_numpy()
        unit = np.arange(len(part)) if by_row else np.searchsorted(ids, part["id"].to_numpy())
        n_units = len(part) if by_row else len(ids)
        per[m] = [np.bincount(unit, weights=v, minlength=n_units)
                  for v in (truth & pred, truth, pred, np.ones(len(part)))]
    rng = np.random.default_rng(seed)

    def ppv(weights):
        out = []
        for m in models:
            tp, pos, called, rows = (weights @ v for v in per[m])
            se, sp = tp / pos, (rows - pos - (called - tp)) / (rows - pos)
            out.append(se * pi / (se * pi + (1 - sp) * (1 - pi)))
        return np.array(out)

    n_units = len(per["a"][0])
    boot = np.array([ppv(np.bincount(rng.integers(0, n_units, n_units), minlength=n_units))
                     for _ in range(n_boot)])
    return ppv(np.ones(n_units)), np.percentile(boot, [2.5, 97.5], axis=0)


def test_prevalence_on_repeated_cv_resamples_observations(tmp_path):
    frame = _clustered_cv()
    cmp = compare_models(frame, y_true="y_true", prevalence={"maybe": 0.05}, n_boot=2000, seed=3)
    t = cmp.prevalence.set_index("model")
    est, _ = _direct_prevalence_bootstrap(frame, "maybe", 0.05, 2000, 5, by_row=False)
    for j, m in enumerate(["a", "b"]):
        assert t.loc[m, "precision_at_prevalence"] == pytest.approx(est[j], rel=1e-12)
        # the interval counts each observation once: the rows' counts over the 6 repeats,
        # statsmodels' Wilson bounds at 97.5 % on Se and FPR, Bayes' rule at the corners
        part = frame[frame.model == m]
        truth, pred = part.y_true == "maybe", part.y_pred == "maybe"
        r = part["repeat"].nunique()
        tp, pos = (truth & pred).sum() / r, truth.sum() / r
        fp, neg = (~truth & pred).sum() / r, (~truth).sum() / r
        se_lo, se_hi = proportion_confint(tp, pos, alpha=0.025, method="wilson")
        f_lo, f_hi = proportion_confint(fp, neg, alpha=0.025, method="wilson")
        assert t.loc[m, "ci_low"] == pytest.approx(_ppv(se_lo, f_hi, 0.05), rel=1e-9)
        assert t.loc[m, "ci_high"] == pytest.approx(_ppv(se_hi, f_lo, 0.05), rel=1e-9)
        # wider than the rows counted as independent observations
        rows_lo, rows_hi = proportion_confint(fp * r, neg * r, alpha=0.025, method="wilson")
        assert t.loc[m, "ci_high"] - t.loc[m, "ci_low"] > (
            _ppv(se_hi, rows_lo, 0.05) - _ppv(se_lo, rows_hi, 0.05))
    # DuckDB groups the observations by profile in the engine: the same numbers, bit for bit
    path = tmp_path / "cv.parquet"
    frame.to_parquet(path, index=False)
    counts = count_predictions(str(path), y_true="y_true", prevalence_classes=["maybe"])
    assert counts.observations is None and counts.profiles is not None
    in_engine = compare_models(counts, prevalence={"maybe": 0.05}, n_boot=2000, seed=3)
    pd.testing.assert_frame_equal(in_engine.prevalence, cmp.prevalence)
    pd.testing.assert_frame_equal(in_engine.prevalence_ratio, cmp.prevalence_ratio)
    # counts without the profiles of that class say how to count them
    with pytest.raises(ValueError, match=r"prevalence_classes=\['yes'\]"):
        compare_models(counts, prevalence={"yes": 0.05})
    # two models, neither shown more accurate: 'both', not 'all 2'
    assert cmp.recommendation.startswith("Both models are not shown to differ in accuracy: a and b")


# ------------------------------------------------------------------------------------------
# intervals beside Holm's decisions; the 5 x 2cv t's sign
# ------------------------------------------------------------------------------------------


def _five_models(seed, n=400, accs=(0.86, 0.84, 0.83, 0.82, 0.8)):
    """Five models on one test set whose pairs sit near Holm's thresholds at alpha = 0.1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame({"y": y})
    for i, acc in enumerate(accs):
        frame[f"m{i}"] = _noisy(rng, y, acc, 3)
    return frame


def _holm_levels_by_hand(p, alpha):
    """Holm's step-down, written out: step i of m sorted p-values tests p_(i) <= alpha/(m-i+1).

    Each pair's level is 1 - that step's alpha; after the first failing step every pair keeps
    the failing step's level (Holm stops there).
    """
    order = np.argsort(p, kind="stable")
    m, out, failed = len(p), np.empty(len(p)), None
    for i, at in enumerate(order, start=1):
        step = alpha / (m - i + 1)
        if failed is None and p[at] > step:
            failed = step
        out[at] = 1 - (failed if failed is not None else step)
    return out


def _midp_interval(b, d, level):
    """The mid-p interval of b of d: where the mid-p tails equal (1 - level)/2 (scipy's brentq)."""
    half = (1 - level) / 2

    def up(q):
        return stats.binom.sf(b, d, q) + stats.binom.pmf(b, d, q) / 2 - half

    def down(q):
        return stats.binom.cdf(b - 1, d, q) + stats.binom.pmf(b, d, q) / 2 - half

    return (0.0 if up(0.0) >= 0 else optimize.brentq(up, 0, 1, xtol=1e-14),
            1.0 if down(1.0) >= 0 else optimize.brentq(down, 0, 1, xtol=1e-14))


@pytest.mark.parametrize(("seed", "n"), [(0, 400), (2, 400), (3, 400), (5, 400), (7, 60)])
def test_test_set_intervals_beside_holm_invert_mcnemar_at_the_step_level(seed, n):
    # 60 rows, accuracies far apart: few discordant pairs (the mid-p test), some rejected
    accs = (0.97, 0.9, 0.85, 0.75, 0.6) if n == 60 else (0.86, 0.84, 0.83, 0.82, 0.8)
    cmp = compare_models(_five_models(seed, n=n, accs=accs), y_true="y", alpha=0.1, n_boot=50)
    p = cmp.pairs
    if n == 60:
        assert ((p["test"] == "McNemar mid-p") & p["reject"]).any()
    np.testing.assert_allclose(p["holm_level"], _holm_levels_by_hand(p["pvalue"].to_numpy(), 0.1))
    for r in p.itertuples():
        b, d = int(r.b), int(r.b + r.c)
        # psi, the share of discordant observations: Clopper–Pearson from scipy
        psi = stats.binomtest(d, n).proportion_ci(r.holm_level, "exact")
        if r.test == "McNemar exact":  # pi, the share of those A gets right: Clopper–Pearson
            pi = stats.binomtest(b, d).proportion_ci(r.holm_level, "exact")
            pi = (pi.low, pi.high)
        else:  # the mid-p interval: where the mid-p tails equal (1 - level)/2 (brentq)
            pi = _midp_interval(b, d, r.holm_level)
        # the range of psi (2 pi - 1) over both intervals
        ends = [s_ * (2 * q - 1) for q in pi for s_ in (psi.low, psi.high)]
        assert (r.holm_ci_low, r.holm_ci_high) == pytest.approx((min(ends), max(ends)), abs=1e-9)
    # the interval beside the decision excludes 0 exactly when Holm rejects
    excludes = (p["holm_ci_low"] > 0) | (p["holm_ci_high"] < 0)
    assert (excludes == p["reject"]).all()


def test_holm_consistent_intervals_differ_from_the_unadjusted_where_it_matters():
    # seed 5: three pairs whose unadjusted Newcombe interval excludes 0 but Holm does not reject
    cmp = compare_models(_five_models(5), y_true="y", alpha=0.1, n_boot=50)
    p = cmp.pairs
    unadjusted = (p["ci_low"] > 0) | (p["ci_high"] < 0)
    assert (unadjusted != p["reject"]).sum() == 3
    holm = (p["holm_ci_low"] > 0) | (p["holm_ci_high"] < 0)
    assert (holm == p["reject"]).all()
    # and the sentences quote the Holm-consistent interval beside the adjusted p-value
    for line in cmp.details:
        if " − " in line and "after Holm" in line:
            a, b = line.split(":")[0].split(" − ")
            r = p[(p.model_a == a) & (p.model_b == b)].iloc[0]
            assert (f"{100 * r.holm_level:.4g} % CI {r.holm_ci_low:+.4f} to "
                    f"{r.holm_ci_high:+.4f} at Holm's step") in line


@pytest.mark.parametrize("design", [(3, 5), (5, 2)])
def test_cv_intervals_beside_holm_are_the_corrected_t_at_the_step_level(design):
    repeats, folds = design
    long = _cv_frame(n=240, repeats=repeats, folds=folds, seed=11,
                     models=(("a", 0.86), ("b", 0.83), ("c", 0.81), ("d", 0.78)))
    cmp = compare_models(long, y_true="y_true", alpha=0.1)
    long = long.assign(right=long.y_true == long.y_pred)
    acc = long.groupby(["repeat", "fold", "model"])["right"].mean().unstack("model")
    n_test = long[long.model == "a"].groupby(["repeat", "fold"]).size()
    ratio = n_test.mean() / (240 - n_test).mean()
    p = cmp.pairs
    np.testing.assert_allclose(p["holm_level"], _holm_levels_by_hand(p["pvalue"].to_numpy(), 0.1))
    for r in p.itertuples():
        d = (acc[r.model_a] - acc[r.model_b]).to_numpy()
        j = len(d)
        # methods.md §4: mean ± t_{1 - (1 - level)/2, J - 1} sqrt((1/J + n_test/n_train) s²)
        half = stats.t.isf((1 - r.holm_level) / 2, j - 1) * np.sqrt((1 / j + ratio) * d.var(ddof=1))
        assert (r.holm_ci_low, r.holm_ci_high) == pytest.approx((d.mean() - half, d.mean() + half))
    excludes = (p["holm_ci_low"] > 0) | (p["holm_ci_high"] < 0)
    assert (excludes == p["reject"]).all()


def _five_by_two(first_a, first_b):
    """A 5 x 2 cross-validation of two models whose per-fold accuracies are set by hand.

    Each fold tests 10 observations; ``a`` and ``b`` give the number each model gets right per
    (repeat, fold), so the per-fold accuracies are those counts over 10.
    """
    rows = []
    for r in range(5):
        ids = np.random.default_rng(r).permutation(20)
        for f in range(2):
            test = ids[f * 10:(f + 1) * 10]
            for model, right in (("a", first_a[r][f]), ("b", first_b[r][f])):
                pred = np.where(np.arange(10) < right, "x", "y")
                rows.append(pd.DataFrame({"id": test, "repeat": r, "fold": f, "model": model,
                                          "y_true": "x", "y_pred": pred}))
    return pd.concat(rows, ignore_index=True)


def test_the_5x2cv_t_sign_is_the_first_folds_and_a_note_says_when_it_is_opposite():
    # a is better on nine of ten folds, worse on the first: the mean difference is positive,
    # Dietterich's t (numerator: the first fold's difference) negative
    a = [[6, 9], [9, 8], [9, 9], [8, 9], [9, 8]]
    b = [[8, 7], [7, 6], [7, 7], [6, 7], [7, 6]]
    cmp = compare_models(_five_by_two(a, b), y_true="y_true")
    r = cmp.pairs.set_index(["model_a", "model_b"]).loc[("a", "b")]
    d = (np.array(a) - np.array(b)) / 10
    assert r.estimate == pytest.approx(d.mean()) and r.estimate > 0
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    t = d[0, 0] / np.sqrt(s2.mean())  # Dietterich (1998), eq. for the 5 x 2cv t
    assert r.t5x2_statistic == pytest.approx(t) and t < 0
    assert "sign of the first fold's difference (-0.2000)" in r.note
    assert "opposite to the estimate" in r.note
    # same signs: no such note
    same = compare_models(_five_by_two([[9, 9], *a[1:]], b), y_true="y_true").pairs
    assert not same["note"].fillna("").str.contains("first fold").any()


# --------------------------------------------------------------------------------------------
# many models: every pair's accuracy test from the correctness matrix products
# --------------------------------------------------------------------------------------------


def _many_models(seed: int, n: int = 240, m: int = 13, k: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    # accuracies from 0.45 to 0.81, and the last model the one before it on all but 12 rows:
    # pairs with few discordant rows (mid-p) and with many (exact)
    frame = pd.DataFrame({"y": y, **{f"m{j}": _noisy(rng, y, 0.45 + 0.03 * j, k)
                                     for j in range(m)}})
    last = frame[f"m{m - 2}"].to_numpy().copy()
    last[:12] = (last[:12] + 1) % k
    frame[f"m{m - 1}"] = last
    return frame


def _prediction_source(frame: pd.DataFrame, engine: str, tmp_path) -> object:
    if engine == "numpy":
        return frame
    path = tmp_path / "wide.parquet"
    frame.to_parquet(path, index=False)
    return str(path)


@pytest.mark.parametrize("engine", ["numpy", "duckdb", "spark"])
def test_every_pairs_mcnemar_from_the_matrix_equals_the_per_pair_tables(engine, tmp_path):
    # reference: the McNemar table of each pair counted from the raw rows with numpy, and
    # stats.contingency.mcnemar (itself checked against scipy's binomtest) pair by pair
    from precmp_lib.compare.predictions import all_pairs_accuracy, correctness_products
    from precmp_lib.stats.contingency import mcnemar

    frame = _many_models(seed=3)
    counts = count_predictions(_prediction_source(frame, engine, tmp_path), y_true="y",
                               engine=engine)
    names = [f"m{j}" for j in range(13)]
    assert list(counts.models) == names
    right = np.stack([(frame[c] == frame["y"]).to_numpy() for c in names], axis=1)
    sums, gram = correctness_products(counts)
    # the counts exactly: X'1 and X'X of the rows' 0/1 correctness matrix
    assert sums.tolist() == right.sum(0).astype(float).tolist()
    r = right.astype(np.int64)
    assert gram.tolist() == (r.T @ r).astype(float).tolist()
    table = all_pairs_accuracy(counts, alpha=0.05)
    assert len(table) == 13 * 12 // 2
    loop_p, loop_stat, loop_b, loop_c = [], [], [], []
    for row in table.itertuples():
        i, j = names.index(row.model_a), names.index(row.model_b)
        ri, rj = right[:, i], right[:, j]
        cells = [[int(np.sum(ri & rj)), int(np.sum(ri & ~rj))],
                 [int(np.sum(~ri & rj)), int(np.sum(~ri & ~rj))]]
        small = cells[0][1] + cells[1][0] < 25
        res = mcnemar(cells, method="midp" if small else "exact")
        assert row.test == ("McNemar mid-p" if small else "McNemar exact")
        loop_p.append(res.pvalue)
        loop_stat.append(res.statistic)
        loop_b.append(cells[0][1])
        loop_c.append(cells[1][0])
    assert table["b"].tolist() == loop_b and table["c"].tolist() == loop_c
    assert set(table["test"]) == {"McNemar mid-p", "McNemar exact"}  # both kinds are checked
    np.testing.assert_allclose(table["pvalue"], loop_p, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(table["statistic"], loop_stat, rtol=1e-12, atol=0)
    np.testing.assert_allclose(table["pvalue_adjusted"],
                               multipletests(loop_p, method="holm")[1], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(table["estimate"], (np.array(loop_b) - np.array(loop_c)) / 240,
                               rtol=1e-12, atol=1e-15)


def test_the_pairs_of_many_models_are_each_against_the_leader_and_all_pairs_in_the_heat_map_table():
    frame = _many_models(seed=4)
    cmp = compare_models(frame, y_true="y", n_boot=100)
    leader = cmp.summary.sort_values("accuracy", ascending=False)["model"].iloc[0]
    assert cmp.settings["family"] == "leader" and cmp.settings["leader"] == leader
    assert len(cmp.pairs) == 12
    assert all(leader in (a, b) for a, b in zip(cmp.pairs["model_a"], cmp.pairs["model_b"]))
    # the precision tables hold the same k - 1 pairs, Holm over them
    assert set(zip(cmp.per_class["model_a"], cmp.per_class["model_b"])) == set(
        zip(cmp.pairs["model_a"], cmp.pairs["model_b"]))
    assert len(cmp.all_pairs) == 78
    # each leader pair's unadjusted test is the same in the per-pair table and the matrix one
    both = cmp.pairs.merge(cmp.all_pairs, on=["model_a", "model_b"], how="inner",
                           suffixes=("", "_all"))
    swapped = cmp.pairs.merge(cmp.all_pairs, left_on=["model_a", "model_b"],
                              right_on=["model_b", "model_a"], suffixes=("", "_all"))
    assert len(both) + len(swapped) == 12
    np.testing.assert_allclose(np.r_[both["pvalue"], swapped["pvalue"]],
                               np.r_[both["pvalue_all"], swapped["pvalue_all"]], rtol=1e-12)
    every = compare_models(frame, y_true="y", n_boot=100, family="all")
    assert len(every.pairs) == 78 and every.settings["family"] == "all"
    back = ModelComparison.from_json(cmp.to_json())
    pd.testing.assert_frame_equal(back.all_pairs, cmp.all_pairs, check_dtype=False)
    small = compare_models(frame[["y", *[f"m{j}" for j in range(10)]]], y_true="y", n_boot=100)
    assert len(small.pairs) == 45 and small.all_pairs.empty  # up to 10 models: as before
    with pytest.raises(ValueError, match="family must be one of"):
        compare_models(frame, y_true="y", family="some")
