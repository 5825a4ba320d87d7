"""The course's hand-written claims, notebook by notebook, each with the computation that checks it.

A claim is a phrase in a notebook's markdown, a solution or an instructor note that states a
number, a direction or a rate which no cell of the notebook computes. Every entry quotes the
phrase (line breaks and runs of spaces do not matter) and names a function that computes what the
phrase says: closed forms where there are any, small simulations (their tolerances are a few
Monte Carlo standard errors, written next to them) where there are not. ``test_claims.py`` checks
that each phrase still stands where it is registered and that its computation agrees, so an edit
of the prose needs an edit of its claim.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import precmp_lib as pc
from precmp_lib.course.items_simulation import simulate_items
from precmp_lib.course.widgets import gs_power_state


@dataclass(frozen=True)
class Claim:
    """One phrase of the course and the computation that holds it to its word."""

    file: str  # relative to the repository root
    says: str  # the phrase as written; whitespace is normalised before it is looked up
    check: Callable[[], None]  # raises AssertionError when the computation disagrees
    reference: str  # where the value checked against comes from


def _mc_se(p: float, n: int) -> float:
    return float(np.sqrt(p * (1 - p) / n))


# --- 14: equivalence (TOST) at the planned sizes -----------------------------------------------
# A benchmark of 8 questions per passage, two models of equal accuracy 0.66 whose passage
# effects have SD 0.8 (the notebook's design), margin 0.06 so that the sizes stay small. The SD
# of the differences and the design effect come from one large benchmark of the same design,
# so the planned sizes carry no estimation error of their own.
_TOST = {"cluster_size": 8, "accuracy": 0.66, "skill_sd": 0.8, "margin": 0.06, "n_sim": 400}


@cache
def _tost_design() -> tuple[float, float]:
    big = simulate_items(3000, _TOST["cluster_size"], accuracy_a=_TOST["accuracy"],
                         accuracy_b=_TOST["accuracy"], skill_sd=_TOST["skill_sd"], random_state=7)
    res = pc.paired_difference(big["correct_a"], big["correct_b"], clusters=big["cluster"])
    return float((big["correct_a"] - big["correct_b"]).std(ddof=1)), res.details["design_effect"]


def _tost_items(power: float) -> float:
    sd, deff = _tost_design()
    return pc.paired_sample_size(_TOST["margin"], sd, design_effect=deff, power=power, alpha=0.1)


@cache
def _tost_rate(power: float) -> float:
    """Share of simulated benchmarks of two equal models where TOST (α = 0.05) shows equivalence,
    at the size `paired_sample_size(..., power=power, alpha=0.1)` plans."""
    m = _TOST["cluster_size"]
    passages = int(np.ceil(_tost_items(power) / m))
    rng = np.random.default_rng(11)
    shown = 0
    for _ in range(_TOST["n_sim"]):
        b = simulate_items(passages, m, accuracy_a=_TOST["accuracy"], accuracy_b=_TOST["accuracy"],
                           skill_sd=_TOST["skill_sd"], random_state=rng)
        res = pc.equivalence_test(b["correct_a"], b["correct_b"], margin=_TOST["margin"],
                                  clusters=b["cluster"], alpha=0.05)
        shown += bool(res.details["equivalent"])
    return shown / _TOST["n_sim"]


def tost_rare_at_the_half_width() -> None:
    # at n = z_{0.95}² σ² deff / m² the 90 % interval reaches ±m even at an estimate of 0
    rate = _tost_rate(0.5)
    assert rate < 0.10, rate  # "rarely", "a few per cent": the formula gives 0 up to discreteness


def tost_half_and_eighty() -> None:
    for power, target in ((0.75, 0.5), (0.9, 0.8)):
        rate = _tost_rate(power)
        assert abs(rate - target) < 4 * _mc_se(target, _TOST["n_sim"]), (power, rate)


def tost_twice_and_three_times() -> None:
    z95, z75, z90 = stats.norm.ppf([0.95, 0.75, 0.90])
    assert 1.9 < ((z95 + z75) / z95) ** 2 < 2.1  # "about twice the items"
    assert 2.9 < ((z95 + z90) / z95) ** 2 < 3.3  # "about three times"
    # and the library's planned sizes stand in that ratio
    assert _tost_items(0.75) / _tost_items(0.5) == pytest.approx(((z95 + z75) / z95) ** 2, rel=1e-9)


def observed_power_half_at_alpha() -> None:
    # McNemar's statistic n δ² / ψ at p = α, and Connor's power at those observed shares
    z = stats.norm.ppf(0.975)
    for n, psi in ((200, 0.3), (500, 0.2), (2000, 0.1)):
        delta = z * np.sqrt(psi / n)
        power = pc.mcnemar_power(n, (psi + delta) / 2, (psi - delta) / 2, alpha=0.05)
        assert abs(power - 0.5) < 0.05, (n, psi, power)


# --- 12: the inner score and the rows behind it ------------------------------------------------
def _logistic_nested(seed: int) -> tuple[pd.DataFrame, list[float]]:
    """Nested CV of the notebook's logistic regression on breast_cancer (5 outer, 3 inner folds);
    with each outer fold's chosen C refitted on the inner training folds and scored on the outer
    test fold."""
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    data = pc.load_dataset("breast_cancer")
    X, y = np.asarray(data.X), np.asarray(data.y)
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    outer = StratifiedKFold(5, shuffle=True, random_state=seed)
    inner = StratifiedKFold(3, shuffle=True, random_state=seed)
    nested = pc.nested_cv_scores({"lr": est}, {"lr": {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}},
                                 X, y, outer=outer, inner=inner, progress=False)
    fewer = []
    for (train, test), params in zip(outer.split(X, y), nested.attrs["best_params"]):
        fits = [clone(est).set_params(**params).fit(X[train][part], y[train][part])
                for part, _ in inner.split(X[train], y[train])]
        fewer.append(np.mean([f.score(X[test], y[test]) for f in fits]))
    return nested, fewer


def inner_below_outer_at_the_defaults() -> None:
    nested, _ = _logistic_nested(0)  # the notebook's seed; LR's folds do not depend on the others
    assert nested["inner_score"].mean() < nested["score"].mean()


def fewer_rows_pull_down() -> None:
    # the learning curve of logistic regression on breast_cancer still rises between 2/3 and all
    # of the outer training rows: over seeds, the refit on fewer rows scores lower on average
    effect = [np.mean(fewer) - nested["score"].mean()
              for nested, fewer in (_logistic_nested(s) for s in range(1, 4))]
    assert np.mean(effect) < 0, effect


# --- 04: sizes for 80 % power and the Wald test at precision 1 ---------------------------------
def _smallest_n(correlation: float) -> int:
    for n in range(1000, 20001, 500):  # the widget's slider
        if gs_power_state(correlation, n, differences=[0.025]).loc[0.025, "gs"] >= 0.8:
            return n
    raise AssertionError("no n up to 20 000 reaches 80 % power")


def gs_sizes_for_80_percent() -> None:
    for correlation, stated in ((0.8, 6500), (0.5, 9500)):
        n = _smallest_n(correlation)
        assert abs(n - stated) <= 1000, (correlation, n)  # "about": within two slider steps


def _wine_precision(test_size: float) -> tuple[pd.DataFrame, object]:
    """Notebook 04's LDA and forest on wine at a share held out; its table and Wald tests."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split

    from precmp_lib.core.counts import class_cells, joint_confusion
    from precmp_lib.stats.precision_cells import wald_from_cells

    d = pc.load_dataset("wine")
    X_tr, X_te, y_tr, y_te = train_test_split(d.X, d.y, test_size=test_size, stratify=d.y, random_state=0)
    a = LinearDiscriminantAnalysis().fit(X_tr, y_tr).predict(X_te)
    b = RandomForestClassifier(n_estimators=100, random_state=0).fit(X_tr, y_tr).predict(X_te)
    return pc.compare_precision(y_te, a, b), wald_from_cells(class_cells(joint_confusion(y_te, a, b).table))


def gw_undefined_where_one_precision_is_one() -> None:
    table, wald = _wine_precision(0.7)  # the notebook's split
    one = ((table["precision_a"] == 1) ^ (table["precision_b"] == 1)).to_numpy()
    assert one.sum() == 2
    assert np.array_equal(np.isnan(table["gw_pvalue"].to_numpy(float)), one)
    assert np.isfinite(wald.statistic[one]).all() and (wald.ci_low[one] < wald.ci_high[one]).all()


def wald_zero_where_both_precisions_are_one() -> None:
    table, wald = _wine_precision(0.5)
    both = np.flatnonzero((table["precision_a"] == 1) & (table["precision_b"] == 1))
    assert [table["class"].iloc[k] for k in both] == [2]
    for k in both:
        assert wald.statistic[k] == 0 and wald.ci_low[k] == 0 and wald.ci_high[k] == 0


# --- 08: repetitions, clusters and the size of the test set ------------------------------------
def id_repeat_grows_with_repetitions() -> None:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB

    from precmp_lib.compare.crossval import clustering_comparison

    d = pc.load_dataset("breast_cancer")
    models = {"naive_bayes": GaussianNB(),
              "random_forest": RandomForestClassifier(n_estimators=10, random_state=0, n_jobs=1)}
    r = 4
    cv = pc.cross_val_predictions(models, d.X, d.y, n_splits=5, n_repeats=r, random_state=0,
                                  progress=False)
    inflation = clustering_comparison(cv).pivot(index="class", columns="cluster", values="inflation")
    # above the id statistic, and at most r times it (exactly r for reused folds, docs/methods.md §7)
    assert ((inflation["id_repeat"] > 1) & (inflation["id_repeat"] <= r + 1e-9)).all(), inflation


@cache
def _wald_by_size(n: int, n_sim: int = 200) -> np.ndarray:
    """GEE Wald statistics of equal precision for two classifiers on n test items: truth of two
    balanced classes, A wrong on 10 % of the items, B on 14 %, independently."""
    rng = np.random.default_rng(n)
    out = []
    for _ in range(n_sim):
        y = rng.integers(0, 2, n)
        a = np.where(rng.random(n) < 0.10, 1 - y, y)
        b = np.where(rng.random(n) < 0.14, 1 - y, y)
        joint = pc.gee_precision(y, {"A": a, "B": b}).joint
        out.append(float(joint["statistic"].iloc[0]))
    return np.array(out)


def evidence_grows_with_observations() -> None:
    big, small = _wald_by_size(1000), _wald_by_size(300)
    share = (small.mean() - 1) / (big.mean() - 1)
    # noncentrality n δ² / σ²: the share of observations, 0.3; MC error of the ratio about 0.05
    assert 0.2 < share < 0.4, share


def z_scatters_by_one() -> None:
    spread = np.sqrt(_wald_by_size(1000)).std(ddof=1)
    assert 0.85 < spread < 1.15, spread


# --- 01 and 02: McNemar's test over training sets ----------------------------------------------
def _mcnemar_over_training_sets(n_test: int, n_train: int, n_sets: int, seed: int) -> float:
    """Notebook 01's design written again: nearest-centroid learners on two blocks of five
    features that separate two Gaussian classes equally well (shift ±0.35), uncorrelated errors;
    a new training and test set per run; McNemar's exact test at 5 %."""
    rng = np.random.default_rng(seed)

    def draw(n):
        y = rng.integers(0, 2, n)
        return (2 * y[:, None] - 1) * 0.35 + rng.normal(size=(n, 10)), y

    def right(x_tr, y_tr, x_te, y_te, cols):
        c0, c1 = x_tr[y_tr == 0][:, cols].mean(0), x_tr[y_tr == 1][:, cols].mean(0)
        pred = ((x_te[:, cols] - c1) ** 2).sum(1) < ((x_te[:, cols] - c0) ** 2).sum(1)
        return pred.astype(int) == y_te

    rejects = 0
    for _ in range(n_sets):
        (x_tr, y_tr), (x_te, y_te) = draw(n_train), draw(n_test)
        ra, rb = right(x_tr, y_tr, x_te, y_te, slice(0, 5)), right(x_tr, y_tr, x_te, y_te, slice(5, 10))
        table = [[0, int(np.sum(ra & ~rb))], [int(np.sum(~ra & rb)), 0]]
        rejects += pc.mcnemar(table, method="exact").pvalue <= 0.05
    return rejects / n_sets


def mcnemar_depends_on_the_test_set() -> None:
    small = _mcnemar_over_training_sets(100, 30, 400, seed=1)
    large = _mcnemar_over_training_sets(1000, 30, 400, seed=2)
    assert small < 0.05 + 3 * _mc_se(0.05, 400), small  # near α (at most 3 MC SE above)
    assert large > 0.05 + 6 * _mc_se(0.05, 400), large  # far above α


def mcnemar_near_alpha_with_100_test_items() -> None:
    # notebook 02's "one run": 200 rows, a 50/50 split, learners as in 01
    rate = _mcnemar_over_training_sets(100, 100, 400, seed=3)
    assert rate < 0.05 + 3 * _mc_se(0.05, 400), rate


# notebook 15: breast_cancer split as the notebook splits it; bootstraps written out here
def _breast_cancer(test_size: float, seed: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, stratify=y,
                                              random_state=seed)
    models = {"logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
              "naive Bayes": GaussianNB()}
    return y_te.astype(bool), {k: m.fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
                               for k, m in models.items()}


def _paired_f1_width(test_size: float, seed: int, n_resamples: int = 2000) -> float:
    from sklearn.metrics import f1_score

    truth, prob = _breast_cancer(test_size, seed)
    a, b = prob["logistic"] >= 0.5, prob["naive Bayes"] >= 0.5
    def f1(t: np.ndarray, c: np.ndarray) -> np.ndarray:  # 2TP / (2TP + FP + FN), row by row
        tp, fp, fn = (np.sum(x, axis=-1) for x in (t & c, ~t & c, t & ~c))
        return 2 * tp / (2 * tp + fp + fn)

    assert f1(truth, a) == pytest.approx(f1_score(truth, a), rel=1e-12)
    r = np.random.default_rng(seed).integers(0, len(truth), size=(n_resamples, len(truth)))
    d = f1(truth[r], a[r]) - f1(truth[r], b[r])
    low, high = np.quantile(d, [0.025, 0.975])
    return float(high - low)


def naive_bayes_probabilities_extreme() -> None:
    _, prob = _breast_cancer(0.5, 0)
    share = {k: float(np.mean((p < 0.01) | (p > 0.99))) for k, p in prob.items()}
    assert share["naive Bayes"] > 0.9 and share["naive Bayes"] > share["logistic"], share


def f1_width_at_a_fifth_of_the_data() -> None:
    # the notebook's seed: about sqrt(285/114) = 1.58 times as wide; seeds 1 and 2: one narrower
    ratios = [_paired_f1_width(0.2, s) / _paired_f1_width(0.5, s) for s in range(3)]
    assert abs(ratios[0] - np.sqrt(285 / 114)) < 0.1, ratios
    assert min(ratios[1:]) < 1, ratios


def _unit_ses(skill_sd: float, seed: int, n_resamples: int = 2000) -> tuple[float, float, float]:
    """Item bootstrap, passage bootstrap and CR1 standard errors of A − B, notebook 15's design."""
    items = simulate_items(60, 8, accuracy_a=0.7, accuracy_b=0.7, skill_sd=skill_sd,
                           random_state=seed)
    d = (items["correct_a"] - items["correct_b"]).to_numpy(float)
    g = items["cluster"].to_numpy()
    rng = np.random.default_rng(seed + 1000)
    item = d[rng.integers(0, len(d), size=(n_resamples, len(d)))].mean(axis=1).std(ddof=1)
    labels = np.unique(g)
    drawn = rng.choice(labels, size=(n_resamples, len(labels)))
    sums = {c: d[g == c].sum() for c in labels}
    sizes = {c: np.sum(g == c) for c in labels}
    means = [sum(sums[c] for c in row) / sum(sizes[c] for c in row) for row in drawn]
    # CR1 written out: C/(C − 1) · Σ_c (Σ_i e_ci)² / n² for the mean
    e = d - d.mean()
    cr1 = np.sqrt(len(labels) / (len(labels) - 1) * sum(e[g == c].sum() ** 2 for c in labels)) / len(d)
    return float(item), float(np.std(means, ddof=1)), float(cr1)


def item_bootstrap_too_small_when_clustered() -> None:
    for seed in range(3):
        item, passage, cr1 = _unit_ses(0.8, seed)
        assert item < 0.8 * cr1 and item < 0.8 * passage, (seed, item, passage, cr1)


def aucs_near_one_bootstrap_lopsided() -> None:
    # both AUCs above 0.98; a paired bootstrap of the logistic AUC (rows drawn here, 1000
    # resamples) is skewed to the left, away from the bound at 1 (skewness about -0.9)
    from sklearn.metrics import roc_auc_score

    truth, prob = _breast_cancer(0.5, 0)
    aucs = {k: roc_auc_score(truth, p) for k, p in prob.items()}
    assert min(aucs.values()) > 0.98, aucs
    rows = np.random.default_rng(1).integers(0, len(truth), size=(1000, len(truth)))
    boot = np.array([roc_auc_score(truth[r], prob["logistic"][r]) for r in rows])
    assert stats.skew(boot) < -0.4, stats.skew(boot)


def delong_variance_zero_at_one() -> None:
    # a perfect ranking: every placement is 1 (positives) or 0 (negatives), so S10 = S01 = 0
    from precmp_lib.stats.auc import auc_interval, placements

    truth, _ = _breast_cancer(0.5, 0)
    score = truth + 0.5 * np.random.default_rng(0).random(len(truth))
    v10, v01 = placements(truth, score)
    assert np.all(v10 == 1) and np.all(v01 == 1)
    res = auc_interval(truth, score)
    assert res.details["variance"] == 0 and res.estimate == 1 and res.ci_low < 1


def units_agree_without_passage_effect() -> None:
    for seed in range(3):
        ses = _unit_ses(0.0, seed)
        assert max(ses) / min(ses) < 1.25, (seed, ses)


def percentile_interval_collapses_at_one() -> None:
    rng = np.random.default_rng(0)
    boot = np.ones(20)[rng.integers(0, 20, size=(2000, 20))].mean(axis=1)
    assert np.quantile(boot, [0.025, 0.975]).tolist() == [1.0, 1.0]


def clopper_pearson_does_not_collapse() -> None:
    # Clopper–Pearson for x = n: lower bound (α/2)^(1/n) (the Beta(n, 1) quantile), upper 1
    r = pc.binomial_test(20, 20, 0.5)
    assert r.ci_low == pytest.approx(0.025 ** (1 / 20), rel=1e-9) and r.ci_low < 1
    assert r.ci_high == 1.0


CLAIMS: dict[str, list[Claim]] = {
    "01_mcnemar_cochran": [
        Claim("notebooks/01_mcnemar_cochran.ipynb",
              "the luck of one training set goes unnoticed while the test set is small (its noise hides "
              "that luck) and shows as false positives when the test set is large beside the training set",
              mcnemar_depends_on_the_test_set, "notebook 01's design, simulated again here"),
        Claim("notebooks/01_mcnemar_cochran.ipynb",
              "Notebook 02 (\"One run or ten\") uses 100 test items per training set, where its "
              "false-positive rate stays near α",
              mcnemar_near_alpha_with_100_test_items, "simulation, 100 training and 100 test items"),
    ],
    "02_cv_ttests": [
        Claim("notebooks/02_cv_ttests.ipynb",
              "it sees only the test set's noise, so with large test sets and small training sets it "
              "over-rejects", mcnemar_depends_on_the_test_set, "notebook 01's design, simulated again"),
        Claim("docs/instructor/00-05.md",
              "notebook 01's simulation over training sets (1000 test items, 30 training items) shows it "
              "far above α", mcnemar_depends_on_the_test_set, "notebook 01's design, simulated again"),
    ],
    "04_precision_gs_gw": [
        Claim("docs/instructor/00-05.md", "about 6 500 at correlation 0.8 and 9 500 at 0.5",
              gs_sizes_for_80_percent, "the widget's own simulation (gs_power_state, seed 0)"),
        Claim("docs/instructor/00-05.md",
              "on wine at the notebook's split GW is undefined for the two classes where one precision "
              "is 1, while the Wald test gives a statistic and an interval",
              gw_undefined_where_one_precision_is_one, "notebook 04's classifiers on wine, Wald from counts"),
        Claim("docs/instructor/00-05.md",
              "Where *both* precisions are 1 (wine split 50/50: class 2) the Wald test gives a statistic "
              "of 0 with the interval [0, 0]",
              wald_zero_where_both_precisions_are_one, "notebook 04's classifiers on wine, Wald from counts"),
    ],
    "08_cross_validation": [
        Claim("notebooks/08_cross_validation.ipynb",
              "With `id_repeat` it grows with the repetitions themselves, up to r times the `id` "
              "statistic (exactly r times when the folds are reused)",
              id_repeat_grows_with_repetitions, "4 × 5-fold CV of breast_cancer; docs/methods.md §7"),
        Claim("notebooks/08_cross_validation.ipynb",
              "grows in proportion to the observations predicted, so on average a split holds about "
              "`test_size` of the cross-validated statistic's", evidence_grows_with_observations,
              "simulated GEE Wald statistics at 1000 and 300 items"),
        Claim("notebooks/08_cross_validation.ipynb",
              "A z statistic (here √W) scatters by about ±1 from one sample to another", z_scatters_by_one,
              "simulated GEE Wald statistics at 1000 items"),
        Claim("notebooks/solutions/08_cross_validation.ipynb",
              "A z statistic scatters by about ±1 between samples", z_scatters_by_one,
              "simulated GEE Wald statistics at 1000 items"),
    ],
    "12_algorithm_selection": [
        Claim("notebooks/12_algorithm_selection.ipynb",
              "It also comes from models trained on an inner training fold, (k − 1)/k of the outer "
              "training rows, which pushes it down", fewer_rows_pull_down,
              "nested CV of logistic regression on breast_cancer, three seeds"),
        Claim("docs/instructor/12.md",
              "at the defaults logistic regression's inner score is below its outer score",
              inner_below_outer_at_the_defaults, "nested CV at the notebook's defaults"),
    ],
    "14_planning_item_evaluations": [
        Claim("notebooks/solutions/14_planning_item_evaluations.ipynb",
              "so TOST shows equivalence only when the estimate lands very near 0: rarely",
              tost_rare_at_the_half_width, "simulated benchmarks of two equal models"),
        Claim("notebooks/solutions/14_planning_item_evaluations.ipynb",
              "`power=0.75` for half of the time (about twice the items) and `power=0.9` for 80 %",
              tost_half_and_eighty, "simulated benchmarks of two equal models"),
        Claim("docs/instructor/14.md",
              "the simulation shows equivalence only rarely (a few per cent)",
              tost_rare_at_the_half_width, "simulated benchmarks of two equal models"),
        Claim("docs/instructor/14.md",
              "(about twice the items), 80 % needs `z_{0.95} + z_{0.90}` (about three times)",
              tost_twice_and_three_times, "normal quantiles"),
        Claim("notebooks/14_planning_item_evaluations.ipynb",
              "is a function of the p-value alone, about 50 % for a result at p = α",
              observed_power_half_at_alpha, "Connor's power at the shares of a table at p = α"),
    ],
    "15_bootstrap_permutation": [
        Claim("notebooks/15_bootstrap_permutation.ipynb",
              "naive Bayes pushes its probabilities to 0 and 1", naive_bayes_probabilities_extreme,
              "the notebook's split of breast_cancer, shares within 0.01 of 0 or 1"),
        Claim("notebooks/15_bootstrap_permutation.ipynb",
              "resampling items one by one then gives too small a standard error",
              item_bootstrap_too_small_when_clustered,
              "item and passage bootstraps and CR1 written out, notebook 15's design, three seeds"),
        Claim("notebooks/15_bootstrap_permutation.ipynb",
              "so the percentile interval of its accuracy (or recall) on the slice is [1, 1]",
              percentile_interval_collapses_at_one, "a bootstrap of 20 right answers"),
        Claim("notebooks/15_bootstrap_permutation.ipynb",
              "An exact interval for a proportion (Clopper–Pearson, `pc.binomial_test`) does not "
              "collapse", clopper_pearson_does_not_collapse, "Clopper–Pearson's closed form at x = n"),
        Claim("notebooks/15_bootstrap_permutation.ipynb",
              "both AUCs sit near 1, where its distribution is lopsided",
              aucs_near_one_bootstrap_lopsided,
              "the notebook's split, sklearn's roc_auc_score, a paired bootstrap drawn here"),
        Claim("notebooks/15_bootstrap_permutation.ipynb",
              "at an AUC of exactly 1 every placement is 1, its variance is 0 and its interval [1, 1]",
              delong_variance_zero_at_one,
              "DeLong's placements on a perfect ranking; pROC 1.18.0's ci.auc of an AUC of 1 is "
              "1-1 (tests/stats/test_auc.py, PROC['perfect'])"),
        Claim("docs/instructor/15.md",
              "At the default seed the paired F1 interval is about 1.6 times as wide, but other "
              "seeds scatter widely and one of the next two gives a narrower interval",
              f1_width_at_a_fifth_of_the_data, "paired bootstraps with sklearn's f1_score, seeds 0–2"),
        Claim("docs/instructor/15.md",
              "agree within about a fifth of each other", units_agree_without_passage_effect,
              "item and passage bootstraps and CR1 written out, skill_sd = 0, three seeds"),
    ],
}
