"""compare_datasets against its peers, each called here on the same table.

scipy 1.17 (friedmanchisquare, wilcoxon, binomtest), scikit-posthocs 0.17.1
(posthoc_nemenyi_friedman), baycomp 1.0.3 (SignedRankTest, within Monte Carlo error),
statsmodels 0.15 (multipletests, Holm) and autorank 1.3.0 (mean ranks, Friedman p, critical
difference, Nemenyi groups), with ties and with lower-is-better scores.
"""

from __future__ import annotations

import sys
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from precmp_lib import compare_datasets
from precmp_lib.compare.datasets import DatasetComparison
from precmp_lib.compare.routes import comparison_from_json

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from make_example_dataset_comparison import results  # noqa: E402  (the shipped example's data)


def _table(seed: int = 1, n: int = 20, ties: bool = True) -> pd.DataFrame:
    """Five models on n data sets; scores on a grid of 0.005 when ``ties`` (equal scores occur)."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.65, 0.92, n)
    edge = {"rf": 0.03, "knn": 0.015, "lr": 0.02, "nb": -0.02, "tree": -0.01}
    out = {"dataset": [f"d{i:02d}" for i in range(n)]}
    for m, e in edge.items():
        s = base + e + rng.normal(0, 0.02, n)
        out[m] = np.round(s / 0.005) * 0.005 if ties else s
    return pd.DataFrame(out)


def _matrix(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("dataset")


@pytest.mark.parametrize("lower", [False, True])
def test_friedman_wilcoxon_sign_and_holm_equal_scipy_and_statsmodels(lower):
    from statsmodels.stats.multitest import multipletests

    frame = _table(ties=True)
    if lower:  # errors: 1 - accuracy, the lowest is best
        frame[frame.columns[1:]] = 1 - frame[frame.columns[1:]]
    cmp = compare_datasets(frame, lower_is_better=lower)
    m = _matrix(frame)
    f = stats.friedmanchisquare(*[m[c] for c in m.columns])
    row = cmp.omnibus.iloc[0]
    assert row["statistic"] == pytest.approx(f.statistic, rel=1e-12)
    assert row["pvalue"] == pytest.approx(f.pvalue, rel=1e-9)
    for r in cmp.pairs.itertuples():
        a, b = m[r.model_a].to_numpy(), m[r.model_b].to_numpy()
        d = np.round(a - b, 12)
        wins = int(np.sum(d < 0 if lower else d > 0))
        losses = int(np.sum(d > 0 if lower else d < 0))
        assert (r.wins, r.ties, r.losses) == (wins, int(np.sum(d == 0)), losses)
        assert r.sign_pvalue == pytest.approx(stats.binomtest(wins, wins + losses).pvalue)
        # scipy's normal approximation with tie correction and continuity correction drops the
        # zeros as R does ("wilcox"); ours with the exact distribution is checked below
        if r.ties == 0 and len(np.unique(np.abs(d))) == len(d):
            ref = stats.wilcoxon(a, b, method="exact").pvalue
            assert r.pvalue == pytest.approx(ref, rel=1e-9)
    holm = multipletests(cmp.pairs["pvalue"], method="holm")[1]
    np.testing.assert_allclose(cmp.pairs["pvalue_adjusted"], holm, rtol=1e-12)


def test_wilcoxon_exact_without_ties_equals_scipy_for_every_pair():
    frame = _table(seed=3, ties=False)
    cmp = compare_datasets(frame)
    m = _matrix(frame)
    for r in cmp.pairs.itertuples():
        ref = stats.wilcoxon(m[r.model_a], m[r.model_b], method="exact")
        assert r.statistic == pytest.approx(ref.statistic) or r.statistic == pytest.approx(
            len(m) * (len(m) + 1) / 2 - ref.statistic)  # scipy gives min(R+, R-), ours R+
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("lower", [False, True])
def test_nemenyi_equals_scikit_posthocs(lower):
    import scikit_posthocs as sp

    frame = _table(seed=5, ties=True)
    cmp = compare_datasets(frame, lower_is_better=lower)
    m = _matrix(frame)
    # scikit-posthocs ranks the columns as given; its p-values depend on |R_i - R_j|, which
    # the direction does not change, so the same call checks both directions
    ref = sp.posthoc_nemenyi_friedman(m.to_numpy())
    names = list(m.columns)
    for r in cmp.pairs.itertuples():
        i, j = names.index(r.model_a), names.index(r.model_b)
        assert r.nemenyi_pvalue == pytest.approx(ref.iloc[i, j], abs=1e-12)


def test_bayesian_signed_rank_equals_baycomp_within_monte_carlo_error():
    import baycomp

    frame = _table(seed=7, ties=False)
    cmp = compare_datasets(frame, rope=0.01)
    m = _matrix(frame)
    for r in cmp.pairs.itertuples():
        ref = baycomp.SignedRankTest.probs(m[r.model_a].to_numpy(), m[r.model_b].to_numpy(),
                                           rope=0.01, nsamples=50000, random_state=0)
        # 20,000 draws of ours and 50,000 of baycomp's: a probability's Monte Carlo sd is at
        # most 0.5/sqrt(20000) = 0.0035; 0.02 is more than five of them
        got = (r.bayes_a_better, r.bayes_rope, r.bayes_b_better)
        np.testing.assert_allclose(got, ref, atol=0.02)


def test_lower_is_better_bayes_reads_errors_the_right_way():
    import baycomp

    frame = _table(seed=7, ties=False)
    errors = frame.assign(**{c: 1 - frame[c] for c in frame.columns[1:]})
    acc, err = compare_datasets(frame), compare_datasets(errors, lower_is_better=True)
    assert acc.summary["model"].tolist() == err.summary["model"].tolist()
    np.testing.assert_allclose(acc.pairs["bayes_a_better"], err.pairs["bayes_a_better"])
    first = err.pairs.iloc[0]
    m = _matrix(errors)
    ref = baycomp.SignedRankTest.probs(-m[first.model_a].to_numpy(), -m[first.model_b].to_numpy(),
                                       rope=0.01, nsamples=50000, random_state=0)
    assert first.bayes_a_better == pytest.approx(ref[0], abs=0.02)


def _autorank(m: pd.DataFrame, order: str = "descending"):
    autorank = pytest.importorskip("autorank")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return autorank.autorank(m, alpha=0.05, verbose=False, order=order,
                                 force_mode="nonparametric")


@pytest.mark.parametrize("lower", [False, True])
def test_mean_ranks_friedman_cd_and_nemenyi_groups_equal_autorank(lower):
    # a table with real ties (a grid of 0.005) and no float-noise ties, where the two agree
    frame = _table(seed=11, ties=True)
    if lower:
        frame[frame.columns[1:]] = np.round(1 - frame[frame.columns[1:]], 6)
    cmp = compare_datasets(frame, lower_is_better=lower)
    m = _matrix(frame)
    ref = _autorank(m, "ascending" if lower else "descending")
    assert ref.omnibus == "friedman" and ref.posthoc == "nemenyi"
    ours = cmp.summary.set_index("model")["mean_rank"]
    for model, rank in ref.rankdf["meanrank"].items():
        assert ours[model] == pytest.approx(rank, abs=1e-12)
    assert cmp.omnibus.iloc[0]["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    # autorank's q_alpha is a table value to 3 decimals; ours the studentized-range quantile
    assert cmp.critical_difference == pytest.approx(ref.cd, abs=2e-4)
    # autorank's Nemenyi decision: two models differ when their mean ranks are at least CD
    # apart; ours by the Nemenyi p-value at alpha, the same rule
    for r in cmp.pairs.itertuples():
        apart = abs(r.rank_a - r.rank_b) >= ref.cd
        if abs(abs(r.rank_a - r.rank_b) - ref.cd) > 1e-3:  # not on the rounded boundary
            assert r.nemenyi_reject == apart, (r.model_a, r.model_b)


def test_float_noise_is_a_tie_where_autorank_splits_it():
    # 0.1 + 0.2 and 0.3 differ by one unit in the last place: one score, ranked as a tie here
    frame = pd.DataFrame({"dataset": ["a", "b", "c", "d"], "x": [0.1 + 0.2, 0.5, 0.6, 0.7],
                          "y": [0.3, 0.4, 0.5, 0.6], "z": [0.2, 0.3, 0.4, 0.5]})
    cmp = compare_datasets(frame)
    ranks = cmp.per_dataset[cmp.per_dataset["dataset"] == "a"].set_index("model")["rank"]
    assert ranks["x"] == ranks["y"] == 1.5


def test_first_sentence_answers_the_question_and_the_json_round_trips():
    cmp = compare_datasets(results(), engine="numpy")
    first = cmp.conclusions[0]
    assert first.startswith("Over 20 data sets, rf ranks first (mean rank ")
    top = cmp.pairs[cmp.pairs["model_a"] == "rf"]
    beaten = top.loc[top["reject"], "model_b"].tolist()
    same = top.loc[~top["reject"], "model_b"].tolist()
    assert all(m in first.split("it beats")[1] for m in beaten)
    assert all(m in first.split("it beats")[0] for m in same)
    back = comparison_from_json(cmp.to_json())
    assert isinstance(back, DatasetComparison) and back.to_json() == cmp.to_json()
    pd.testing.assert_frame_equal(back.matrix(), cmp.matrix(), check_dtype=False)
    assert back.groups == cmp.groups and back.critical_difference == cmp.critical_difference


def test_per_fold_scores_give_each_data_set_its_corrected_t():
    frame = results()
    cmp = compare_datasets(frame, engine="numpy")
    row = cmp.fold_tests.iloc[0]
    part = frame[frame["dataset"] == row["dataset"]]
    a = part[part["model"] == row["model_a"]].sort_values(["repeat", "fold"])["score"].to_numpy()
    b = part[part["model"] == row["model_b"]].sort_values(["repeat", "fold"])["score"].to_numpy()
    d = a - b
    j = d.size  # 3 repeats x 10 folds; n_test / n_train = 1 / 9 (Nadeau & Bengio 2003)
    t = d.mean() / np.sqrt((1 / j + 1 / 9) * d.var(ddof=1))
    assert row["folds"] == 30 and row["statistic"] == pytest.approx(t, rel=1e-12)
    assert row["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), j - 1), rel=1e-9)
    # the across-data-sets test runs on each data set's mean over its folds
    assert cmp.matrix().loc[row["dataset"], row["model_a"]] == pytest.approx(a.mean())


def test_two_models_get_wilcoxon_and_the_sign_test_as_the_omnibus():
    frame = _table(ties=False)[["dataset", "rf", "nb"]]
    cmp = compare_datasets(frame)
    assert cmp.omnibus["test"].tolist()[0].startswith("Wilcoxon signed-rank")
    assert cmp.omnibus["test"].tolist()[1].startswith("sign test")
    assert cmp.critical_difference is None and "nemenyi" not in cmp.groups


def test_against_a_reference_holm_runs_over_its_pairs():
    frame = _table(seed=2, ties=False)
    cmp = compare_datasets(frame, reference="nb")
    ref = cmp.reference_pairs
    assert set(ref["model_b"]) == {"nb"} and len(ref) == 4
    from statsmodels.stats.multitest import multipletests

    np.testing.assert_allclose(ref["pvalue_adjusted"], multipletests(ref["pvalue"], method="holm")[1])
    assert cmp.conclusions[1].startswith("Against the reference nb: ")


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: f.rename(columns={"lr": "knn"}), "column 'knn' is named twice"),
    (lambda f: pd.concat([f, f.iloc[[0]]]), "data set 'd00' is named twice"),
    (lambda f: f.assign(lr=f["lr"].where(f.index != 3)), "data set 'd03', model 'lr': score is "
                                                         "missing"),
    (lambda f: f.assign(lr=f["lr"].where(f.index != 4, np.inf)), "data set 'd04', model 'lr': "
                                                                  "score is inf"),
    (lambda f: f[["dataset", "rf"]], "need at least two models"),
    (lambda f: f.iloc[:2], "need at least three data sets to compare models across data sets; "
                           "found 2"),
    (lambda f: f.assign(lr=f["lr"].astype(object).where(f.index != 5, "0.9x")),
     "data set 'd05', model 'lr': score '0.9x' is not a number"),
])
def test_bad_tables_are_refused_in_one_line(change, message):
    with pytest.raises(ValueError, match="^DataFrame: " + message.replace("(", r"\(")):
        compare_datasets(change(_table()))


def test_a_data_set_missing_a_model_is_named_and_common_datasets_drops_it():
    long = _table().melt(id_vars="dataset", var_name="model", value_name="score")
    long = long[~((long["dataset"] == "d07") & (long["model"] == "nb"))]
    with pytest.raises(ValueError, match=r"data set 'd07' has no score of model 'nb'; .*"
                                         r"--common-datasets"):
        compare_datasets(long)
    cmp = compare_datasets(long, common_datasets=True)
    assert cmp.dropped == ["d07"] and len(cmp.datasets) == 19
    assert any("1 data sets were left out" in n for n in cmp.notes)


def test_duplicate_long_rows_are_refused():
    long = _table().melt(id_vars="dataset", var_name="model", value_name="score")
    with pytest.raises(ValueError, match="data set 'd00': model 'rf' has two scores"):
        compare_datasets(pd.concat([long, long.iloc[[0]]]))


def test_pairs_in_mean_rank_order_with_effect_sizes():
    frame = _table(seed=4, ties=False)
    cmp = compare_datasets(frame)
    m = _matrix(frame)
    ranks = cmp.summary.set_index("model")["mean_rank"]
    for r in cmp.pairs.itertuples():
        assert ranks[r.model_a] <= ranks[r.model_b]
        a, b = m[r.model_a].to_numpy(), m[r.model_b].to_numpy()
        # Cliff's delta by its definition over every pair of scores
        delta = np.mean(np.sign(a[:, None] - b[None, :]))
        assert r.cliffs_delta == pytest.approx(delta)
        walsh = [(x + y) / 2 for i, x in enumerate(a - b) for y in (a - b)[i:]]
        assert r.estimate == pytest.approx(np.median(walsh))
        assert r.ci_low <= r.estimate <= r.ci_high
    assert list(combinations(cmp.summary["model"], 2)) == list(zip(cmp.pairs.model_a,
                                                                   cmp.pairs.model_b))
