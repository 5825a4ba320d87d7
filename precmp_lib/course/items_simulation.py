"""Simulated evaluation items in clusters, and the type-I error of paired tests that ignore them.

Notebook 13 shows why a test on benchmark items must know the items' clusters (the passage
several questions share). :func:`simulate_items` draws the correctness of two models on items
grouped in clusters, from a probit model with three sources of variation:

- ``difficulty_sd``: how hard a cluster is for every model (it moves both models together, so
  pairing removes it);
- ``skill_sd``: how much better or worse one model does on a cluster than on average (a model
  that knows a topic well); it differs between the models, so it makes the *differences* of the
  items of one cluster alike;
- ``item_sd``: how hard an item is for every model.

With equal accuracies the two models are exchangeable, so the null hypothesis of equal accuracy
holds exactly, whatever the clusters. :func:`clustered_type1_error` counts how often each paired
test rejects it: those that take items as independent reject too often once ``skill_sd`` is
above 0; the clustered ones stay near alpha.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from .._lib.aliases import RandomStateLike
from .._lib.checks import check_positive_int, check_probability, check_random_state
from .._lib.dist import norm_isf
from ..stats.contingency import mcnemar
from ..stats.paired import PairedSums, clustered_mcnemar_from_counts, paired_difference_from_sums

__all__ = ["CLUSTERED_TESTS", "clustered_type1_error", "clustered_type1_plot", "simulate_answers",
           "simulate_items"]

# label of each test in clustered_type1_error -> (uses the clusters, what it assumes)
CLUSTERED_TESTS = {
    "McNemar (items independent)": (False, "every item an independent pair"),
    "paired z (items independent)": (False, "every item an independent pair"),
    "Obuchowski clustered McNemar": (True, "clusters independent, items within them not"),
    "paired z, cluster-robust (CR1)": (True, "clusters independent, items within them not"),
}


def _check_sd(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number >= 0; got {value!r:.60}")
    v = float(value)
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be a finite number >= 0; got {v!r}")
    return v


def simulate_items(
    n_clusters: int,
    cluster_size: int,
    *,
    accuracy_a: float = 0.7,
    accuracy_b: float = 0.7,
    difficulty_sd: float = 1.0,
    skill_sd: float = 0.5,
    item_sd: float = 0.5,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Draw two models' right/wrong answers on items grouped in clusters.

    Parameters
    ----------
    n_clusters : int
        Clusters (passages), at least 2.
    cluster_size : int
        Items per cluster.
    accuracy_a, accuracy_b : float
        Expected accuracy of each model over clusters and items.
    difficulty_sd : float
        SD of the cluster difficulty shared by both models (probit scale).
    skill_sd : float
        SD of each model's own cluster effect; it clusters the differences.
    item_sd : float
        SD of the item difficulty shared by both models.
    random_state : int, Generator or None
        Seed.

    Returns
    -------
    DataFrame
        One row per item: ``item``, ``cluster``, ``correct_a``, ``correct_b`` (0/1).

    Notes
    -----
    Model m answers item i of cluster c right when
    ``t_m + u_c + w_cm + v_i + e_im > 0`` with u, w, v, e independent normal with SDs
    ``difficulty_sd``, ``skill_sd``, ``item_sd`` and 1; ``t_m`` is set so that the expected
    accuracy is ``accuracy_m``: ``t_m = z(accuracy_m) · sqrt(1 + Σ SD²)``.

    Examples
    --------
    >>> items = simulate_items(50, 4, random_state=0)
    >>> items.shape, sorted(items.columns)
    ((200, 4), ['cluster', 'correct_a', 'correct_b', 'item'])
    """
    c = check_positive_int(n_clusters, "n_clusters", minimum=2)
    m = check_positive_int(cluster_size, "cluster_size")
    acc = [check_probability(accuracy_a, "accuracy_a"), check_probability(accuracy_b, "accuracy_b")]
    sds = [_check_sd(difficulty_sd, "difficulty_sd"), _check_sd(skill_sd, "skill_sd"),
           _check_sd(item_sd, "item_sd")]
    rng = check_random_state(random_state)
    correct_a, correct_b, cluster = _draw(rng, c, m, acc, sds)
    return pd.DataFrame({"item": np.arange(c * m), "cluster": cluster,
                         "correct_a": correct_a.astype(np.int8),
                         "correct_b": correct_b.astype(np.int8)})


def _latent(rng: np.random.Generator, c: int, m: int, acc: list[float], sds: list[float]
            ) -> tuple[list[np.ndarray], np.ndarray]:
    """Each model's latent item mean t_m + u_c + w_cm + v_i, and the cluster of each item."""
    scale = np.sqrt(1.0 + sum(s * s for s in sds))
    cluster = np.repeat(np.arange(c), m)
    shared = rng.normal(0, sds[0], c)[cluster] + rng.normal(0, sds[2], c * m)
    means = [-float(norm_isf(a)) * scale + shared + rng.normal(0, sds[1], c)[cluster]
             for a in acc]
    return means, cluster


def _draw(rng: np.random.Generator, c: int, m: int, acc: list[float], sds: list[float]
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Correctness of the two models (floats 0/1) and the cluster of each item."""
    means, cluster = _latent(rng, c, m, acc, sds)
    correct = [(mu + rng.normal(0, 1, mu.size) > 0).astype(float) for mu in means]
    return correct[0], correct[1], cluster


def simulate_answers(
    n_clusters: int,
    cluster_size: int,
    n_answers: int,
    *,
    accuracy_a: float = 0.7,
    accuracy_b: float = 0.7,
    difficulty_sd: float = 1.0,
    skill_sd: float = 0.5,
    item_sd: float = 0.5,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Draw two models' answers, ``n_answers`` to every item, on items grouped in clusters.

    The model of :func:`simulate_items`, with each item's K answers sharing its latent mean and
    differing only in the answer noise e (a model sampled at a temperature).

    Parameters
    ----------
    n_clusters, cluster_size : int
        The design, as in :func:`simulate_items`.
    n_answers : int
        Answers per item and model (K).
    accuracy_a, accuracy_b, difficulty_sd, skill_sd, item_sd : float
        As :func:`simulate_items`.
    random_state : int, Generator or None
        Seed.

    Returns
    -------
    DataFrame
        One row per answer, in the long shape of an item file: ``item``, ``cluster``,
        ``model`` (``"A"``, ``"B"``), ``sample`` (0..K-1) and ``score`` (0/1).

    Examples
    --------
    >>> answers = simulate_answers(20, 3, 4, random_state=0)
    >>> answers.shape, answers.groupby(["model", "item"]).size().unique().tolist()
    ((480, 5), [4])
    """
    c = check_positive_int(n_clusters, "n_clusters", minimum=2)
    m = check_positive_int(cluster_size, "cluster_size")
    k = check_positive_int(n_answers, "n_answers")
    acc = [check_probability(accuracy_a, "accuracy_a"), check_probability(accuracy_b, "accuracy_b")]
    sds = [_check_sd(difficulty_sd, "difficulty_sd"), _check_sd(skill_sd, "skill_sd"),
           _check_sd(item_sd, "item_sd")]
    rng = check_random_state(random_state)
    means, cluster = _latent(rng, c, m, acc, sds)
    frames = []
    for name, mu in zip(("A", "B"), means):
        score = (mu[:, None] + rng.normal(0, 1, (mu.size, k)) > 0).astype(np.int8)
        frames.append(pd.DataFrame({"item": np.repeat(np.arange(c * m), k),
                                    "cluster": np.repeat(cluster, k), "model": name,
                                    "sample": np.tile(np.arange(k), c * m),
                                    "score": score.ravel()}))
    return pd.concat(frames, ignore_index=True)


def clustered_type1_error(
    n_clusters: int,
    cluster_size: int,
    *,
    skill_sd: float = 0.5,
    accuracy: float = 0.7,
    difficulty_sd: float = 1.0,
    item_sd: float = 0.5,
    n_sim: int = 1000,
    alpha: float = 0.05,
    random_state: RandomStateLike = None,
) -> pd.DataFrame:
    """Rejection rates of paired tests that ignore or use the clusters, under a true null.

    Both models have expected accuracy ``accuracy``; items come from :func:`simulate_items`.
    Every simulated benchmark is tested with the library's functions: McNemar's chi-square
    (:func:`precmp_lib.mcnemar`), Obuchowski's clustered McNemar
    (:func:`precmp_lib.stats.paired.clustered_mcnemar_from_counts`) and the paired z with the independent
    and the cluster-robust standard error (:func:`precmp_lib.stats.paired.paired_difference_from_sums`).

    Parameters
    ----------
    n_clusters, cluster_size : int
        The design of each simulated benchmark.
    skill_sd : float
        SD of each model's own cluster effect (0: the differences are not clustered).
    accuracy, difficulty_sd, item_sd : float
        As :func:`simulate_items` (the same accuracy for both models).
    n_sim : int
        Simulated benchmarks.
    alpha : float
        Level of every test.
    random_state : int, Generator or None
        Seed.

    Returns
    -------
    DataFrame
        Indexed by ``test`` (the keys of ``CLUSTERED_TESTS``), with ``clusters_used``,
        ``rejection_rate`` (share of benchmarks with p <= alpha), its Monte Carlo standard
        error ``mc_se``, and ``mean_design_effect`` (the mean ratio of the cluster-robust to
        the independent variance of the difference, the same in every row).

    Examples
    --------
    >>> t = clustered_type1_error(40, 10, skill_sd=0.8, n_sim=200, random_state=1)
    >>> bool(t.loc["McNemar (items independent)", "rejection_rate"]
    ...      > t.loc["Obuchowski clustered McNemar", "rejection_rate"])
    True

    With passages that suit one model more than the other, McNemar's test, which takes the 400
    items as independent, finds a difference between two equally good models far more often
    than 5 % of the time.
    """
    n = check_positive_int(n_sim, "n_sim")
    a = check_probability(alpha, "alpha")
    rng = check_random_state(random_state)
    c = check_positive_int(n_clusters, "n_clusters", minimum=2)
    m = check_positive_int(cluster_size, "cluster_size")
    acc = check_probability(accuracy, "accuracy")
    sds = [_check_sd(difficulty_sd, "difficulty_sd"), _check_sd(skill_sd, "skill_sd"),
           _check_sd(item_sd, "item_sd")]
    rejected = dict.fromkeys(CLUSTERED_TESTS, 0)
    deff = []
    for _ in range(n):
        ca, cb, g = _draw(rng, c, m, [acc, acc], sds)
        only_a = np.bincount(g, weights=ca * (1 - cb), minlength=c)
        only_b = np.bincount(g, weights=cb * (1 - ca), minlength=c)
        both = float(np.sum(ca * cb))
        table = [[both, only_a.sum()], [only_b.sum(), len(g) - both - only_a.sum() - only_b.sum()]]
        sums = PairedSums.from_scores(ca, cb, g)
        plain = PairedSums(*[getattr(sums, f) for f in ("n_items", "sum_a", "sum_b", "sum_a2",
                                                        "sum_b2", "sum_ab")])
        results = {
            "McNemar (items independent)": mcnemar(table, method="chi2"),
            "paired z (items independent)": paired_difference_from_sums(plain),
            "Obuchowski clustered McNemar": clustered_mcnemar_from_counts(
                only_a, only_b, np.full(c, float(m))),
            "paired z, cluster-robust (CR1)": paired_difference_from_sums(sums),
        }
        for name, res in results.items():
            rejected[name] += res.pvalue <= a
        design = results["paired z, cluster-robust (CR1)"].details["design_effect"]
        if np.isfinite(design):
            deff.append(design)
    rate = pd.Series(rejected, dtype=float) / n
    return pd.DataFrame({
        "clusters_used": [CLUSTERED_TESTS[t][0] for t in rate.index],
        "rejection_rate": rate,
        "mc_se": np.sqrt(rate * (1 - rate) / n),
        "mean_design_effect": float(np.mean(deff)) if deff else float("nan"),
    }).rename_axis("test")


def clustered_type1_plot(table: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Plot rejection rates under a true null against the model-specific cluster effect.

    Parameters
    ----------
    table : DataFrame
        Rows of :func:`clustered_type1_error` with an added column ``skill_sd`` (one block per
        setting), as ``pd.concat`` of several runs gives.
    alpha : float
        The tests' level, drawn as a dashed line.
    ax : Axes, optional
        Where to draw.

    Returns
    -------
    Axes
        One line per test with ±2 Monte Carlo standard errors as bars, the tests set slightly
        apart along the x axis; solid lines for the tests that use the clusters, dotted for
        those that do not.

    Examples
    --------
    >>> runs = [clustered_type1_error(20, 5, skill_sd=s, n_sim=50, random_state=0)
    ...         .assign(skill_sd=s) for s in (0.0, 1.0)]
    >>> ax = clustered_type1_plot(pd.concat(runs))
    >>> len(ax.get_lines()) >= 4
    True
    """
    import matplotlib.pyplot as plt

    from ..report.html import DARK_GREY

    if "skill_sd" not in table.columns:
        raise ValueError("table needs a skill_sd column (one block of rows per setting)")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    colors = dict(zip(CLUSTERED_TESTS, ("#D55E00", "#CC79A7", "#0072B2", "#009E73")))
    markers = dict(zip(CLUSTERED_TESTS, ("o", "s", "D", "^")))
    settings = np.sort(table["skill_sd"].unique())
    step = float(np.min(np.diff(settings))) if len(settings) > 1 else 1.0
    for i, (test, rows) in enumerate(table.reset_index().groupby("test", sort=False)):
        rows = rows.sort_values("skill_sd")
        clustered = bool(rows["clusters_used"].iloc[0])
        dodge = (i - 1.5) * 0.04 * step  # side by side, so equal rates stay visible
        ax.errorbar(rows["skill_sd"] + dodge, rows["rejection_rate"], yerr=2 * rows["mc_se"],
                    color=colors.get(test), ls="-" if clustered else ":",
                    marker=markers.get(test, "o"), ms=4, capsize=2, label=test)
    ax.axhline(alpha, color=DARK_GREY, lw=1, ls="--")
    ax.set_xlabel("SD of each model's own passage effect (0: differences not clustered)")
    ax.set_ylabel("rejection rate, equal models")
    ax.set_ylim(0, None)
    ax.legend(fontsize="small", frameon=False, loc="upper left")
    return ax
