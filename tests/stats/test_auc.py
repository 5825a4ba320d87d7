"""AUC by DeLong, clustered and per fold, Brier score and log loss (precmp_lib/stats/auc.py).

Reference values:

- pROC 1.18.0 (R 4.2, Debian bookworm's r-cran-proc), computed once by the R script in
  ``PROC_SCRIPT`` below on the data of :func:`case` (written to ``<name>.csv`` with columns
  y, a, b) and stored in ``PROC``: ``roc.test(method = "delong", paired = TRUE)``,
  ``ci.auc(method = "delong")`` and ``var(method = "delong")``. R is not needed to run the tests.
- scikit-learn's ``roc_auc_score``, ``brier_score_loss`` and ``log_loss``, called here.
- an O(n^2) DeLong written out below from DeLong et al. (1988) (every positive-negative pair),
  and an Obuchowski (1997) clustered variance written from its S_X, S_Y, S_XY sums by a loop
  over clusters.
- statsmodels' OLS with a cluster covariance for the paired loss differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

from precmp_lib.stats import auc as A
from precmp_lib.stats.paired import paired_difference
from precmp_lib.stats.resampling import corrected_resampled_ttest

PROC_SCRIPT = """
library(pROC)   # 1.18.0
for (name in c("ties", "perfect", "near_one", "heavy_ties")) {
  d <- read.csv(paste0(name, ".csv"))
  ra <- roc(d$y, d$a, levels = c(0, 1), direction = "<", quiet = TRUE)
  rb <- roc(d$y, d$b, levels = c(0, 1), direction = "<", quiet = TRUE)
  t <- roc.test(ra, rb, method = "delong", paired = TRUE)
  ca <- ci.auc(ra, method = "delong"); cb <- ci.auc(rb, method = "delong")
  cat(sprintf('"%s": dict(auc_a=%.17g, auc_b=%.17g, z=%.17g, p=%.17g, diff_low=%.17g, ',
              name, as.numeric(auc(ra)), as.numeric(auc(rb)), t$statistic, t$p.value,
              t$conf.int[1]),
      sprintf('diff_high=%.17g, ci_a=(%.17g, %.17g), ci_b=(%.17g, %.17g), ', t$conf.int[2],
              ca[1], ca[3], cb[1], cb[3]),
      sprintf('var_a=%.17g, var_b=%.17g),\\n', var(ra, method = "delong"),
              var(rb, method = "delong")))
}
"""

CASES = {"ties": (1, 60, 1.5, 1), "perfect": (2, 80, 4.0, 2), "near_one": (4, 120, 3.0, 2),
         "heavy_ties": (3, 200, 1.0, 0)}

PROC = {
"ties": dict(auc_a=0.79460847240051347, auc_b=0.67201540436456997, z=1.6269364607070465, p=0.10375059326403439, diff_low=-0.025094321058708596, diff_high=0.27028045713059579, ci_a=(0.66245089818851433, 0.92676604661251283), ci_b=(0.51907680092252895, 0.82495400780661099), var_a=0.0045466124295051469, var_b=0.0060888890170571856),
"perfect": dict(auc_a=1, auc_b=0.91844729344729348, z=2.656334507987931, p=0.0078995212946318481, diff_low=0.021379423705832991, diff_high=0.14172598939958006, ci_a=(1, 1), ci_b=(0.85827401060041997, 0.97862057629416699), var_a=0, var_b=0.00094256482695175372),
"near_one": dict(auc_a=0.97293660287081341, auc_b=0.85571172248803828, z=3.7941023703431136, p=0.00014817853425755115, diff_low=0.056668648311082856, diff_high=0.17778111245446715, ci_a=(0.94340516658486606, 1), ci_b=(0.78181963762299045, 0.92960380735308612), var_a=0.00022702462002531038, var_b=0.0014213454993425734),
"heavy_ties": dict(auc_a=0.67083729278851223, auc_b=0.54983634251926938, z=3.3261930922175336, p=0.00088040915576574499, diff_low=0.04970096916540144, diff_high=0.19230093137308446, ci_a=(0.61261748254052106, 0.72905710303650362), ci_b=(0.48250347585038028, 0.61716920918815843), var_a=0.00088235914102539914, var_b=0.0011802065687720135),
}


def case(seed: int, n: int, shift: float, decimals: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truth and two models' rounded probabilities (rounding makes ties; 0 decimals: two values)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    base = rng.normal(size=n)
    a = np.round(1 / (1 + np.exp(-(shift * y + base))), decimals)
    b = np.round(1 / (1 + np.exp(-(0.6 * shift * y + 0.6 * base + 0.8 * rng.normal(size=n)))),
                 decimals)
    return y, a, b


def slow_delong(y: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong et al. (1988) by every positive-negative pair: psi = 1, 1/2, 0."""
    pos, neg = scores[:, y == 1], scores[:, y == 0]
    m, n = pos.shape[1], neg.shape[1]
    psi = (pos[:, :, None] > neg[:, None, :]) + 0.5 * (pos[:, :, None] == neg[:, None, :])
    theta = psi.mean(axis=(1, 2))
    v10, v01 = psi.mean(axis=2), psi.mean(axis=1)
    s10 = np.cov(v10) if len(scores) > 1 else np.array([[np.var(v10, ddof=1)]])
    s01 = np.cov(v01) if len(scores) > 1 else np.array([[np.var(v01, ddof=1)]])
    return theta, s10 / m + s01 / n


@pytest.mark.parametrize("name", list(PROC))
def test_paired_test_equals_proc(name):
    y, a, b = case(*CASES[name])
    ref = PROC[name]
    res = A.delong_test(y, a, b)
    assert res.details["auc_a"] == pytest.approx(ref["auc_a"], rel=1e-13)
    assert res.details["auc_b"] == pytest.approx(ref["auc_b"], rel=1e-13)
    assert res.statistic == pytest.approx(ref["z"], rel=1e-10)
    assert res.pvalue == pytest.approx(ref["p"], rel=1e-9)
    assert (res.ci_low, res.ci_high) == pytest.approx((ref["diff_low"], ref["diff_high"]), rel=1e-10)
    assert res.details["variance_a"] == pytest.approx(ref["var_a"], rel=1e-10, abs=1e-16)
    assert res.details["variance_b"] == pytest.approx(ref["var_b"], rel=1e-10)


@pytest.mark.parametrize("name", [n for n in PROC if PROC[n]["auc_a"] < 1])
def test_interval_equals_proc(name):
    y, a, b = case(*CASES[name])
    for scores, key in ((a, "ci_a"), (b, "ci_b")):
        res = A.auc_interval(y, scores)
        assert (res.ci_low, res.ci_high) == pytest.approx(PROC[name][key], rel=1e-10)
        assert not res.degenerate


def test_auc_of_one_has_an_exact_bound_not_zero_width():
    # pROC gives 1-1 here (PROC["perfect"]["ci_a"]) and warns that it is misleading
    y, a, _ = case(*CASES["perfect"])
    assert PROC["perfect"]["ci_a"] == (1, 1)
    res = A.auc_interval(y, a)
    k = min(int(y.sum()), int((1 - y).sum()))
    assert res.estimate == 1.0 and res.degenerate
    assert res.ci_low == pytest.approx(0.025 ** (1 / k)) and res.ci_high == 1.0
    assert res.ci_low < 1.0 and "Clopper-Pearson" in res.note
    flipped = A.auc_interval(y, -a)
    assert flipped.estimate == 0.0
    assert (flipped.ci_low, flipped.ci_high) == pytest.approx((0.0, 1 - res.ci_low))


def test_exact_bound_covers():
    """The bound at AUC 1 is wrong at most (1 - level) / 2 of the time (simulated, 4000 runs)."""
    rng = np.random.default_rng(7)
    m = n = 6
    theta_true = 0.9  # P(X > Y) for X ~ N(d, 1), Y ~ N(0, 1)
    d = math.sqrt(2) * 1.2815515655446004  # norm.ppf(0.9) * sqrt(2)
    misses = 0
    for _ in range(4000):
        x, yv = rng.normal(d, 1, m), rng.normal(0, 1, n)
        s = np.concatenate([x, yv])
        t = np.r_[np.ones(m), np.zeros(n)]
        res = A.auc_interval(t, s)
        misses += not (res.ci_low <= theta_true <= res.ci_high) and res.estimate == 1.0
    assert misses / 4000 < 0.025


def test_fast_equals_slow_and_sklearn():
    rng = np.random.default_rng(11)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.round(rng.normal(size=(4, 300)) + y, 1)  # many ties
    aucs, cov = A.auc_covariance(A.delong_sums(y, s))
    theta, slow = slow_delong(y, s)
    np.testing.assert_allclose(aucs, theta, rtol=1e-13)
    np.testing.assert_allclose(cov, slow, rtol=1e-10, atol=1e-16)
    np.testing.assert_allclose(aucs, [roc_auc_score(y, row) for row in s], rtol=1e-13)


def test_placements_ties_count_half():
    v10, v01 = A.placements([1, 0, 0], [0.5, 0.5, 0.2])
    assert v10.tolist() == [[0.75]] and v01.tolist() == [[0.5, 1.0]]


def test_swap_flips_the_difference():
    y, a, b = case(*CASES["ties"])
    ab, ba = A.delong_test(y, a, b), A.delong_test(y, b, a)
    assert ab.estimate == pytest.approx(-ba.estimate) and ab.pvalue == pytest.approx(ba.pvalue)


def test_identical_models_are_indistinguishable():
    y, a, _ = case(*CASES["ties"])
    res = A.delong_test(y, a, a)
    assert res.degenerate and res.statistic == 0.0 and res.pvalue == 1.0


def slow_obuchowski(y, s, clusters):
    """Obuchowski (1997), eqs. for S_X, S_Y, S_XY, by a loop over clusters (one model)."""
    pos, neg = s[y == 1], s[y == 0]
    m, n = pos.size, neg.size
    psi = lambda x, yy: float(np.mean((x > yy) + 0.5 * (x == yy)))  # noqa: E731
    theta = np.mean([psi(x, neg) for x in pos])
    ids = np.unique(clusters)
    big_i = len(ids)
    vx, vy, mi, ni = [], [], [], []
    for c in ids:
        rows = clusters == c
        xs, ys = s[rows & (y == 1)], s[rows & (y == 0)]
        vx.append(sum(psi(x, neg) for x in xs))
        vy.append(sum(float(np.mean((pos > yy) + 0.5 * (pos == yy))) for yy in ys))
        mi.append(xs.size)
        ni.append(ys.size)
    vx, vy, mi, ni = map(np.asarray, (vx, vy, mi, ni))
    sx = big_i / ((big_i - 1) * m) * np.sum((vx - mi * theta) ** 2)
    sy = big_i / ((big_i - 1) * n) * np.sum((vy - ni * theta) ** 2)
    sxy = big_i / (big_i - 1) * np.sum((vx - mi * theta) * (vy - ni * theta))
    return theta, sx / m + sy / n + 2 * sxy / (m * n)


def test_clustered_equals_obuchowski_written_out():
    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(40), rng.integers(1, 5, 40))
    effect = rng.normal(size=40)[clusters]
    y = (rng.random(clusters.size) < 0.45).astype(int)
    s = np.round(y + effect + rng.normal(size=(2, clusters.size)), 1)
    aucs, cov, k = A.clustered_auc_covariance(y, s, clusters)
    assert k == 40
    for i in range(2):
        theta, var = slow_obuchowski(y, s[i], clusters)
        assert aucs[i] == pytest.approx(theta, rel=1e-13)
        assert cov[i, i] == pytest.approx(var, rel=1e-10)
    diff = A.auc_difference(aucs, cov, 0, 1)
    assert diff.details["variance"] == pytest.approx(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])


def test_clustered_variance_exceeds_delong_when_clusters_are_alike():
    # six observations of one class per cluster (lesions of a patient) sharing the cluster's shift
    rng = np.random.default_rng(9)
    clusters = np.repeat(np.arange(30), 6)
    y = np.repeat(np.tile([1, 0], 15), 6)
    s = y + np.repeat(rng.normal(scale=1.5, size=30), 6) + rng.normal(scale=0.3, size=180)
    _, delong = A.auc_covariance(A.delong_sums(y, s))
    _, clustered, _ = A.clustered_auc_covariance(y, s, clusters)
    assert clustered[0, 0] > 1.5 * delong[0, 0]


def test_fold_test_is_the_corrected_t_of_fold_aucs():
    rng = np.random.default_rng(3)
    y = (rng.random(500) < 0.5).astype(int)
    a, b = y + rng.normal(size=500), y + 1.3 * rng.normal(size=500)
    folds = np.tile(np.arange(10), 50)
    res = A.fold_auc_test(y, a, b, folds, test_train_ratio=1 / 9)
    per_a = [roc_auc_score(y[folds == f], a[folds == f]) for f in range(10)]
    per_b = [roc_auc_score(y[folds == f], b[folds == f]) for f in range(10)]
    ref = corrected_resampled_ttest(per_a, per_b, test_train_ratio=1 / 9)
    assert res.statistic == pytest.approx(ref.statistic) and res.pvalue == pytest.approx(ref.pvalue)
    np.testing.assert_allclose(res.details["aucs_a"], per_a, rtol=1e-13)


def test_multiclass_equals_sklearn():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 400)
    logits = rng.normal(size=(400, 4)) + 1.2 * np.eye(4)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    ovr = A.one_vs_rest_aucs(y, p)
    np.testing.assert_allclose(ovr, [roc_auc_score(y == c, p[:, c]) for c in range(4)], rtol=1e-13)
    assert A.hand_till_m(y, p) == pytest.approx(roc_auc_score(y, p, multi_class="ovo"), rel=1e-13)
    assert A.brier_scores(y, p).mean() == pytest.approx(
        np.mean(np.sum((p - np.eye(4)[y]) ** 2, axis=1)))
    assert A.log_losses(y, p).mean() == pytest.approx(log_loss(y, p), rel=1e-12)


def test_binary_losses_equal_sklearn():
    rng = np.random.default_rng(4)
    y = (rng.random(200) < 0.4).astype(int)
    p = np.clip(np.round(rng.random(200), 2), 0, 1)
    p[:3] = [0.0, 1.0, 1.0]  # exact 0 and 1, as k-NN and forests give
    assert A.brier_scores(y, p).mean() == pytest.approx(brier_score_loss(y, p), rel=1e-13)
    clipped = np.clip(p, A.LOG_LOSS_EPSILON, 1 - A.LOG_LOSS_EPSILON)
    assert A.log_losses(y, p).mean() == pytest.approx(log_loss(y, clipped), rel=1e-12)


def test_paired_loss_difference_equals_statsmodels_cluster():
    rng = np.random.default_rng(6)
    clusters = np.repeat(np.arange(50), 4)
    y = (rng.random(200) < 0.5).astype(int)
    pa, pb = np.clip(0.5 + 0.3 * (y - 0.5) + 0.2 * rng.normal(size=(2, 200)), 0.01, 0.99)
    la, lb = A.log_losses(y, pa), A.log_losses(y, pb)
    res = paired_difference(la, lb, clusters=clusters)
    fit = sm.OLS(la - lb, np.ones(200)).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    assert res.estimate == pytest.approx(fit.params[0])
    assert res.details["se"] == pytest.approx(fit.bse[0], rel=1e-10)


@pytest.mark.parametrize("y, s, match", [
    ([1, 1, 1], [0.1, 0.2, 0.3], "no negative"),
    ([0, 0, 1], [0.1, np.nan, 0.3], "NaN"),
    ([0, 2, 1], [0.1, 0.2, 0.3], "only 0 and 1"),
    ([0, 1, 1], [0.1, 0.3], "3 values per model"),
])
def test_bad_auc_input(y, s, match):
    with pytest.raises(ValueError, match=match):
        A.auc_interval(y, s)


def test_bad_probabilities():
    with pytest.raises(ValueError, match="outside"):
        A.brier_scores([0, 1], [0.2, 1.3])
    with pytest.raises(ValueError, match="sum to 1"):
        A.log_losses([0, 1], [[0.2, 0.7], [0.5, 0.5]])
    with pytest.raises(ValueError, match="never occur"):
        A.one_vs_rest_aucs([0, 0, 1], [[0.2, 0.7, 0.1], [0.5, 0.4, 0.1], [0.3, 0.3, 0.4]])


# pROC 1.18.0 on the two models below (written to CSV with the truth as 0/1 = malignant/benign,
# benign positive): roc(y, p, levels = c(0, 1), direction = "<"), roc.test(method = "delong",
# paired = TRUE). docs/methods.md §16.1 quotes these numbers.
PROC_BREAST_CANCER = dict(auc_a=0.99654463183874953, auc_b=0.97852735499794319,
                          z=2.7245857967805085, p=0.0064382200284644354)


def test_breast_cancer_logistic_against_naive_bayes_equals_proc():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = load_breast_cancer(return_X_y=True)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.4, random_state=0, stratify=y)
    lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(xtr, ytr)
    nb = GaussianNB().fit(xtr, ytr)
    res = A.delong_test(yte, lr.predict_proba(xte)[:, 1], nb.predict_proba(xte)[:, 1])
    ref = PROC_BREAST_CANCER
    # the fits may move in the last digits between scikit-learn versions: 1e-6 relative
    assert res.details["auc_a"] == pytest.approx(ref["auc_a"], rel=1e-6)
    assert res.details["auc_b"] == pytest.approx(ref["auc_b"], rel=1e-6)
    assert res.statistic == pytest.approx(ref["z"], rel=1e-5)
    assert res.pvalue == pytest.approx(ref["p"], rel=1e-4)
