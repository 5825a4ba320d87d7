"""``compare_probabilities``: models compared by their probabilities (route ``"probabilities"``).

Every number comes from :func:`precmp_lib.engine.probabilities.count_probabilities`: each
model's AUC with DeLong's interval (Obuchowski's over clusters), each pair by DeLong's paired
test with Holm's adjustment (over folds, the Nadeau–Bengio corrected t of per-fold AUCs), each
model's Brier score and log loss with intervals and each pair's paired difference of
per-observation losses (CR1 over clusters, t with C - 1 df under
:data:`~precmp_lib.stats.paired.T_CLUSTERS` clusters), the ROC curves and the reliability
table. The labels (the file's own, or each model's at the threshold) are compared by the
predictions route (:func:`~precmp_lib.compare.predictions.compare_models`), whose comparison
this one carries whole (:attr:`ProbabilityComparison.labels`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..engine.probabilities import ProbabilityCounts, count_probabilities
from ..stats.auc import LOG_LOSS_EPSILON, auc_difference, auc_results
from ..stats.multiple import adjust_pvalues
from ..stats.paired import T_CLUSTERS, PairedSums, paired_difference_from_sums
from ..stats.resampling import corrected_resampled_ttest
from .base import Comparison, best_group
from .predictions import ModelComparison, compare_models, model_pairs

__all__ = ["METRICS", "ProbabilityComparison", "compare_probabilities"]

#: The metrics a recommendation can rest on, with how the page names them and whether higher
#: is better.
METRICS: dict[str, tuple[str, bool]] = {"auc": ("AUC", True), "brier": ("Brier score", False),
                                        "logloss": ("log loss", False),
                                        "accuracy": ("accuracy", True)}


@dataclass(frozen=True, kw_only=True)
class ProbabilityComparison(Comparison):
    """Models compared by their probabilities: AUC, Brier score, log loss, and their labels.

    Attributes (besides those of :class:`~precmp_lib.compare.base.Comparison`)
    ----------------------------------------------------------------------------
    metric : str
        What ``summary``, ``pairs``, ``best`` and the recommendation rest on: ``"auc"``,
        ``"brier"``, ``"logloss"`` or ``"accuracy"``.
    classes : list
        The truth's classes; ``positive`` the positive one (binary) or None.
    threshold : float
        Binary labels are the positive class where the probability is at least this.
    epsilon : float
        Log loss clips probabilities to [epsilon, 1 - epsilon].
    auc : DataFrame
        ``model``, ``auc``, ``ci_low``, ``ci_high``, ``se``, ``statistic`` (z against 0.5),
        ``pvalue``, ``note`` (multiclass: ``auc`` is Hand and Till's M, no interval).
    auc_pairs : DataFrame
        ``model_a``, ``model_b``, ``test``, ``estimate`` (AUC A - B), ``ci_low``, ``ci_high``,
        ``statistic``, ``df``, ``pvalue``, ``pvalue_adjusted`` (Holm), ``reject``, ``auc_a``,
        ``auc_b``, ``note``.
    brier, log_loss : DataFrame
        ``model``, ``estimate`` (mean loss), ``ci_low``, ``ci_high``, ``se``.
    brier_pairs, log_loss_pairs : DataFrame
        As ``auc_pairs``, ``estimate`` the mean loss of A minus B (negative: A better).
    per_class, class_pairs : DataFrame
        Multiclass: each model's one-vs-rest AUC per class with its interval; each pair per
        class by DeLong, Holm over all rows.
    fold_aucs : DataFrame
        Cross-validation: ``model``, ``fold``, ``auc``.
    roc, calibration : DataFrame
        The ROC curve points and the reliability table (binary).
    labels : dict
        The labels' :class:`~precmp_lib.compare.predictions.ModelComparison` as its JSON
        object (:attr:`label_comparison` reads it back).
    label_source : str
        ``"threshold"``, or the column of labels the file gave.
    notes : list of str
    """

    kind: ClassVar[str] = "probabilities"
    metric: str = "auc"
    classes: list = field(default_factory=list)
    positive: Any = None
    threshold: float = 0.5
    epsilon: float = LOG_LOSS_EPSILON
    reference: str | None = None
    auc: pd.DataFrame = field(default_factory=pd.DataFrame)
    auc_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    brier: pd.DataFrame = field(default_factory=pd.DataFrame)
    brier_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    log_loss: pd.DataFrame = field(default_factory=pd.DataFrame)
    log_loss_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    per_class: pd.DataFrame = field(default_factory=pd.DataFrame)
    class_pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    fold_aucs: pd.DataFrame = field(default_factory=pd.DataFrame)
    roc: pd.DataFrame = field(default_factory=pd.DataFrame)
    calibration: pd.DataFrame = field(default_factory=pd.DataFrame)
    labels: dict = field(default_factory=dict)
    label_source: str = "threshold"
    notes: list = field(default_factory=list)

    @property
    def label_comparison(self) -> ModelComparison:
        """The comparison of the models' labels (accuracy, precision), read back."""
        return ModelComparison.from_json(json.dumps(self.labels))

    @property
    def multiclass(self) -> bool:
        """More than two classes."""
        return self.positive is None

    @property
    def has_losses(self) -> bool:
        """The scores are probabilities: Brier score and log loss were computed."""
        return bool(len(self.brier)) and bool(np.isfinite(self.brier["estimate"]).all())


# --------------------------------------------------------------------------------------------
# pieces
# --------------------------------------------------------------------------------------------


def _holm(frame: pd.DataFrame, alpha: float) -> pd.DataFrame:
    if len(frame):
        frame["pvalue_adjusted"] = adjust_pvalues(frame["pvalue"].to_numpy(float), "holm")
        frame["reject"] = frame["pvalue_adjusted"] < alpha
    else:
        frame["pvalue_adjusted"], frame["reject"] = [], []
    frame.attrs["adjustment"] = "holm"
    return frame


def _auc_table(counts: ProbabilityCounts, level: float) -> pd.DataFrame:
    if counts.multiclass:
        return pd.DataFrame({"model": list(counts.models), "auc": counts.aucs,
                             "ci_low": np.nan, "ci_high": np.nan, "se": np.nan,
                             "statistic": np.nan, "pvalue": np.nan,
                             "note": "Hand and Till's M (mean of the two-class AUCs)"})
    method = _auc_method(counts)
    res = auc_results(counts.aucs, counts.auc_covariance, counts.n_positive, counts.n_negative,
                      confidence_level=level, method=method)
    return pd.DataFrame([{"model": m, "auc": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                          "se": r.details["se"], "statistic": r.statistic, "pvalue": r.pvalue,
                          "note": r.note if r.degenerate else ""} for m, r in zip(counts.models, res)])


def _auc_method(counts: ProbabilityCounts) -> str:
    c = counts.design.get("n_clusters")
    return (f"Obuchowski's clustered AUC variance ({c} clusters)" if c else
            "DeLong")


def _auc_pairs(counts: ProbabilityCounts, pairs: list, level: float) -> pd.DataFrame:
    idx = {m: i for i, m in enumerate(counts.models)}
    rows = []
    if counts.design["design"] == "repeated cv":
        ratio = counts.design["test_train_ratio"]
        per = counts.fold_aucs.pivot(index="fold", columns="model", values="auc")
        for a, b in pairs:
            r = corrected_resampled_ttest(per[a].to_numpy(float), per[b].to_numpy(float),
                                          test_train_ratio=ratio, confidence_level=level)
            rows.append({"model_a": a, "model_b": b,
                         "test": "AUC per fold, corrected resampled t (Nadeau-Bengio)",
                         "estimate": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high,
                         "statistic": r.statistic, "df": r.df, "pvalue": r.pvalue,
                         "auc_a": float(per[a].mean()), "auc_b": float(per[b].mean()),
                         "note": r.note})
        return pd.DataFrame(rows)
    test = ("DeLong paired z" if not counts.design.get("n_clusters")
            else "paired z, Obuchowski's clustered covariance")
    for a, b in pairs:
        r = auc_difference(counts.aucs, counts.auc_covariance, idx[a], idx[b],
                           confidence_level=level, n=counts.n_rows)
        rows.append({"model_a": a, "model_b": b, "test": test, "estimate": r.estimate,
                     "ci_low": r.ci_low, "ci_high": r.ci_high, "statistic": r.statistic,
                     "df": np.nan, "pvalue": r.pvalue, "auc_a": r.details["auc_a"],
                     "auc_b": r.details["auc_b"], "note": r.note})
    return pd.DataFrame(rows)


def _df(sums: Any) -> int | None:
    c = sums.n_clusters
    return c - 1 if c is not None and c < T_CLUSTERS else None


def _loss_tables(sums: Any, models: Sequence[str], pairs: list,
                 level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    if sums is None:  # scores, not probabilities: no losses
        nan = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "se": np.nan}
        return (pd.DataFrame([{"model": m, **nan} for m in models]),
                pd.DataFrame(columns=["model_a", "model_b", "test", "estimate", "ci_low",
                                      "ci_high", "statistic", "df", "pvalue", "note"]))
    idx = {m: i for i, m in enumerate(models)}
    df = _df(sums)
    single = []
    for m in models:
        r = paired_difference_from_sums(PairedSums.from_items(sums, idx[m]),
                                        confidence_level=level, df=df)
        single.append({"model": m, "estimate": r.estimate, "ci_low": r.ci_low,
                       "ci_high": r.ci_high, "se": r.details["se"]})
    rows = []
    for a, b in pairs:
        r = paired_difference_from_sums(PairedSums.from_items(sums, idx[a], idx[b]),
                                        confidence_level=level, df=df)
        rows.append({"model_a": a, "model_b": b, "test": r.method, "estimate": r.estimate,
                     "ci_low": r.ci_low, "ci_high": r.ci_high, "statistic": r.statistic,
                     "df": df if df is not None else np.nan, "pvalue": r.pvalue,
                     "note": r.note})
    return pd.DataFrame(single), pd.DataFrame(rows)


def _class_tables(counts: ProbabilityCounts, pairs: list,
                  level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    if not counts.multiclass:
        return pd.DataFrame(), pd.DataFrame()
    idx = {m: i for i, m in enumerate(counts.models)}
    singles, rows = [], []
    pc = counts.per_class
    for c in counts.classes:
        part = pc[pc["class"].astype(str) == str(c)]
        aucs = part["auc"].to_numpy(float)
        cov = counts.class_covariance[str(c)]
        n_pos = int(part["n_positive"].iloc[0])
        for m, r in zip(counts.models, auc_results(aucs, cov, n_pos, counts.n_rows - n_pos,
                                                   confidence_level=level)):
            singles.append({"class": c, "model": m, "auc": r.estimate, "ci_low": r.ci_low,
                            "ci_high": r.ci_high, "se": r.details["se"],
                            "note": r.note if r.degenerate else ""})
        for a, b in pairs:
            r = auc_difference(aucs, cov, idx[a], idx[b], confidence_level=level)
            rows.append({"class": c, "model_a": a, "model_b": b, "estimate": r.estimate,
                         "ci_low": r.ci_low, "ci_high": r.ci_high, "statistic": r.statistic,
                         "pvalue": r.pvalue, "note": r.note})
    return pd.DataFrame(singles), pd.DataFrame(rows)


def _ranked(values: pd.Series, higher: bool) -> pd.Series:
    return (values if higher else -values).rank(ascending=False, method="min").astype(int)


def _summary(models: list[str], auc: pd.DataFrame, brier: pd.DataFrame, logloss: pd.DataFrame,
             labels: ModelComparison, metric: str) -> pd.DataFrame:
    acc = labels.summary.set_index("model")["accuracy"]
    s = pd.DataFrame({"model": models, "auc": auc["auc"].to_numpy(float),
                      "auc_ci_low": auc["ci_low"].to_numpy(float),
                      "auc_ci_high": auc["ci_high"].to_numpy(float),
                      "brier": brier["estimate"].to_numpy(float),
                      "log_loss": logloss["estimate"].to_numpy(float),
                      "accuracy": [float(acc[m]) for m in models]})
    column = {"auc": "auc", "brier": "brier", "logloss": "log_loss", "accuracy": "accuracy"}
    s["rank"] = _ranked(s[column[metric]], METRICS[metric][1])
    return s


def _sentences(cmp: dict[str, Any], metric: str, alpha: float) -> tuple[str, list[str]]:
    name, higher = METRICS[metric]
    s, pairs, best = cmp["summary"], cmp["pairs"], cmp["best"]
    column = {"auc": "auc", "brier": "brier", "logloss": "log_loss", "accuracy": "accuracy"}
    value = dict(zip(s["model"], s[column[metric]]))
    top = best[0]
    others = [m for m in best if m != top]
    test = (pairs["test"].iloc[0] if len(pairs) and "test" in pairs else "the paired test")
    direction = "highest" if higher else "lowest"
    rec = f"Use {top}: it has the {direction} {name} ({value[top]:.4g})"
    if cmp.get("multiclass") and metric == "auc":
        rec = (f"{top} has the highest Hand and Till M ({value[top]:.4g}); M has no paired "
               "test here: the one-vs-rest AUCs are compared class by class (DeLong, Holm).")
    elif others:
        rec += (f", and {', '.join(others)} {'is' if len(others) == 1 else 'are'} not shown "
                f"worse than it ({test}, Holm-adjusted at "
                f"α = {alpha:g}): any of them will do on this {name}.")
    elif len(s) > 1:
        rec += (f", and every other model is shown worse than it ({test}, Holm-adjusted at "
                f"α = {alpha:g}).")
    else:
        rec += "."
    points = []
    auc_pairs = cmp["auc_pairs"]
    if len(auc_pairs):
        row = auc_pairs.sort_values("pvalue_adjusted").iloc[0]
        points.append(f"AUC {row.model_a} {row.auc_a:.4f} against {row.model_b} "
                      f"{row.auc_b:.4f}: difference {row.estimate:+.4f}, "
                      f"{'t' if 'corrected' in row.test else 'z'} = {row.statistic:.2f}, "
                      f"p = {row.pvalue:.2g} (Holm {row.pvalue_adjusted:.2g}).")
    for label, table in (("Brier score", cmp["brier"]), ("log loss", cmp["log_loss"])):
        t = table.sort_values("estimate")
        if not np.isfinite(t["estimate"].iloc[0]):
            continue
        points.append(f"Lowest {label}: {t['model'].iloc[0]} ({t['estimate'].iloc[0]:.4g}).")
    return rec, points


def compare_probabilities(
    source: Any,
    *,
    y_true: str | None = None,
    proba: Sequence[str] | None = None,
    positive: Any = None,
    threshold: float = 0.5,
    metric: str = "auc",
    reference: str | None = None,
    alpha: float = 0.05,
    id: str | None = None,
    cluster: str | None = None,
    layout: str = "auto",
    model_column: str = "model",
    pred_column: str = "y_pred",
    engine: str = "auto",
    n_boot: int = 1000,
    seed: int = 0,
) -> ProbabilityComparison:
    """Compare several models' probabilities of the same observations.

    Parameters
    ----------
    source : ProbabilityCounts, or anything :func:`~precmp_lib.engine.probabilities.count_probabilities` takes
    y_true, proba, positive, threshold, id, cluster, layout, model_column, pred_column, engine
        Passed to :func:`~precmp_lib.engine.probabilities.count_probabilities`.
    metric : {"auc", "brier", "logloss", "accuracy"}
        What the summary's rank, the pairs, the best group and the recommendation rest on.
    reference : str, optional
        Compare every model with this one instead of every pair.
    alpha : float
        Level of the decisions; intervals are at 1 - alpha.
    n_boot, seed
        Passed to :func:`~precmp_lib.compare.predictions.compare_models` for the labels.

    Returns
    -------
    ProbabilityComparison

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> df = pd.DataFrame({"y": y, "good": 1 / (1 + np.exp(-(2 * y - 1) - rng.normal(size=200))),
    ...                    "weak": 1 / (1 + np.exp(-0.4 * (2 * y - 1) - rng.normal(size=200)))})
    >>> cmp = compare_probabilities(df, y_true="y", proba=["good", "weak"])
    >>> cmp.best, round(float(cmp.auc_pairs["pvalue"].iloc[0]), 6) < 0.05
    (['good'], True)
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}")
    if isinstance(source, ProbabilityCounts):
        counts = source
    else:
        if y_true is None or not proba:
            raise ValueError("y_true and proba are required unless source is ProbabilityCounts")
        counts = count_probabilities(source, y_true=y_true, proba=proba, positive=positive,
                                     threshold=threshold, id=id, cluster=cluster, layout=layout,
                                     model_column=model_column, pred_column=pred_column,
                                     engine=engine, losses=metric in ("brier", "logloss"))
    level = 1 - alpha
    models = list(counts.models)
    pairs = model_pairs(models, reference)
    if isinstance(counts.labels, pd.DataFrame):
        labels = compare_models(counts.labels, y_true=str(counts.labels.columns[0]),
                                models=models, layout="wide", reference=reference, alpha=alpha,
                                engine="numpy", n_boot=n_boot, seed=seed)
    else:  # the SQL engines' label patterns
        labels = compare_models(counts.labels, reference=reference, alpha=alpha, n_boot=n_boot,
                                seed=seed)
    auc = _auc_table(counts, level)
    auc_pairs = (_holm(_auc_pairs(counts, pairs, level), alpha) if not counts.multiclass
                 else pd.DataFrame())
    if metric in ("brier", "logloss") and counts.brier is None:
        raise ValueError(f"{counts.source}: --metric {metric} needs probabilities in [0, 1]")
    brier, brier_pairs = _loss_tables(counts.brier, models, pairs, level)
    logloss, logloss_pairs = _loss_tables(counts.log_loss, models, pairs, level)
    brier_pairs, logloss_pairs = _holm(brier_pairs, alpha), _holm(logloss_pairs, alpha)
    per_class, class_pairs = _class_tables(counts, pairs, level)
    if len(class_pairs):
        class_pairs = _holm(class_pairs, alpha)
    summary = _summary(models, auc, brier, logloss, labels, metric)
    chosen = {"auc": auc_pairs, "brier": brier_pairs, "logloss": logloss_pairs,
              "accuracy": labels.pairs}[metric]
    if metric == "auc" and counts.multiclass:
        chosen = pd.DataFrame(columns=["model_a", "model_b", "reject", "estimate"])
    column = {"auc": "auc", "brier": "brier", "logloss": "log_loss", "accuracy": "accuracy"}
    higher = METRICS[metric][1]
    scores = {m: (v if higher else -v) for m, v in zip(summary["model"], summary[column[metric]])}
    oriented = chosen.copy()
    if not higher and "estimate" in oriented:
        oriented["estimate"] = -oriented["estimate"]
    best = best_group(scores, oriented, reference)
    summary["best"] = summary["model"].isin(best)
    notes = list(counts.notes)
    if not counts.multiclass and (counts.aucs < 0.5).all():
        notes.append(f"every model's AUC is below 0.5: are the probabilities those of class "
                     f"{counts.positive!r}? (--positive names the class they are of)")
    parts = {"summary": summary, "pairs": chosen, "best": best, "auc_pairs": auc_pairs,
             "brier": brier, "log_loss": logloss, "multiclass": counts.multiclass}
    recommendation, points = _sentences(parts, metric, alpha)
    design = dict(counts.design)
    design["description"] = _description(counts)
    return ProbabilityComparison(
        models=models, summary=summary, pairs=chosen.reset_index(drop=True), best=best,
        design=design, alpha=alpha, engine=counts.engine, source=counts.source,
        n_rows=counts.n_rows, recommendation=recommendation, conclusions=points,
        settings={"alpha": alpha, "metric": metric, "threshold": threshold,
                  "positive": None if counts.positive is None else str(counts.positive),
                  "reference": reference, "epsilon": LOG_LOSS_EPSILON, "n_boot": int(n_boot),
                  "seed": seed},
        metric=metric, classes=[_plain(c) for c in counts.classes],
        positive=None if counts.positive is None else _plain(counts.positive),
        threshold=float(threshold), reference=reference, auc=auc, auc_pairs=auc_pairs,
        brier=brier, brier_pairs=brier_pairs, log_loss=logloss, log_loss_pairs=logloss_pairs,
        per_class=per_class, class_pairs=class_pairs, fold_aucs=counts.fold_aucs,
        roc=counts.roc, calibration=counts.calibration, labels=json.loads(labels.to_json()),
        label_source=counts.label_source, notes=notes)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _description(counts: ProbabilityCounts) -> str:
    d = counts.design
    if d["design"] == "repeated cv":
        what = (f"cross-validation, {d['repeats']} repeat{'s' if d['repeats'] != 1 else ''} × "
                f"{d['folds']} folds")
    elif d["design"] == "clustered":
        what = f"one test set in {d['n_clusters']:,} clusters"
    else:
        what = "one test set"
    if counts.multiclass:
        return f"{what}, {len(counts.classes)} classes"
    return (f"{what}, positive class {counts.positive} ({counts.n_positive:,} positive, "
            f"{counts.n_negative:,} negative)")
