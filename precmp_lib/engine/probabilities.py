"""The probabilities route's counting: scores of several models, reduced where the data live.

Each model gives a probability (or any score) of the positive class per observation; the
comparison needs, per model and pair, DeLong's placement sums (:class:`~precmp_lib.stats.auc.DelongSums`
or, for clustered observations, Obuchowski's covariance), the sums of per-observation Brier
scores and log losses (:func:`~precmp_lib.stats.auc.loss_sums`), the ROC curve at a bounded
number of thresholds, the reliability table (ten bins of predicted probability), and the
labels each model predicts at the threshold, which the predictions route counts as any
predicted labels (:func:`precmp_lib.engine.predictions.count_predictions`).

Layouts
-------
wide, binary
    The truth column and one column per model holding P(positive): ``--proba m1 m2``.
wide, multiclass
    One column per model and class, named ``MODEL:CLASS`` (``m1:setosa``); ``--proba m1 m2``
    names the models.
long
    One row per observation and model: ``id``, ``model``, the truth and the score column
    (``--proba COL``), optionally ``y_pred`` (the model's own labels); multiclass, one row per
    observation, model and class, the class in a column named ``class``.

The positive class of a binary truth is ``positive`` when given, else the larger of the two
labels in sorted order. Scores must be finite; Brier score and log loss need probabilities in
[0, 1] (and, multiclass, rows summing to 1 within
:data:`~precmp_lib.stats.auc.SUM_TOLERANCE`).

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"y": [0, 0, 1, 1, 0, 1], "a": [0.1, 0.4, 0.35, 0.8, 0.2, 0.9],
...                    "b": [0.3, 0.6, 0.5, 0.7, 0.2, 0.4]})
>>> c = count_probabilities(df, y_true="y", proba=["a", "b"])
>>> c.models, c.positive, c.aucs.round(4).tolist()
(('a', 'b'), 1, [0.8889, 0.7778])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.items import ItemSums
from ..core.predictions import Counts
from ..stats.auc import (
    LOG_LOSS_EPSILON,
    DelongSums,
    auc_covariance,
    brier_scores,
    clustered_auc_covariance,
    clustered_covariance_from_sums,
    delong_sums,
    fold_aucs,
    hand_till_m,
    log_losses,
    loss_sums,
)
from .base import PredictionFileError, _spec
from .dispatch import Counters, Opened, Source, count, register
from .duckdb_engine import DUCKDB_MEMORY

__all__ = ["CLASS_COLUMN", "CLASS_SEPARATOR", "ROC_POINTS", "ProbabilityCounts", "count_probabilities"]

#: Multiclass wide columns are named MODEL + CLASS_SEPARATOR + CLASS.
CLASS_SEPARATOR = ":"
#: A long file with this column holds one row per observation, model and class (multiclass).
CLASS_COLUMN = "class"
#: The ROC curve of each model is kept at most at this many thresholds (evenly spaced in rank).
ROC_POINTS = 400
#: Reliability bins: equal widths over [0, 1].
CALIBRATION_BINS = 10


@dataclass(frozen=True)
class ProbabilityCounts:
    """What the probabilities route compares: AUCs, their covariance, loss sums, curves.

    Attributes
    ----------
    source, engine : str
    models : tuple of str
    classes : tuple
        The truth's classes in sorted order (binary: negative, positive).
    positive : label or None
        Binary: the positive class; multiclass: None.
    n_rows : int
        Scores per model.
    n_positive, n_negative : int
        Binary: observations of each class (multiclass: 0).
    design : dict
        ``design`` ("test set", "clustered", "repeated cv"), ``n_clusters``, ``folds``,
        ``repeats``, ``test_train_ratio``.
    aucs, auc_covariance : ndarray
        Binary: each model's AUC and their covariance matrix (DeLong, or Obuchowski over the
        clusters); multiclass: Hand and Till's M of each model and no covariance (NaN).
    fold_aucs : DataFrame
        Cross-validation: ``model``, ``fold``, ``auc`` (empty otherwise).
    brier, log_loss : ItemSums or None
        Sums of per-observation losses (:func:`~precmp_lib.stats.auc.loss_sums`); None when
        the scores are not probabilities (some outside [0, 1]).
    roc : DataFrame
        ``model``, ``fpr``, ``tpr`` (binary; multiclass: empty).
    calibration : DataFrame
        ``model``, ``bin``, ``n``, ``mean_predicted``, ``observed`` (binary).
    per_class : DataFrame
        Multiclass: ``class``, ``model``, ``auc`` one-vs-rest, ``variance``, ``n_positive``
        (observations of the class).
    class_covariance : dict
        Multiclass: class -> (k, k) DeLong covariance of the models' one-vs-rest AUCs.
    labels : DataFrame or Counts
        The truth, the keys and each model's predicted labels (numpy), or their pattern counts
        (DuckDB, Spark), for the predictions route.
    label_source : str
        Where the labels come from: ``"threshold"`` or the long file's label column.
    notes : list of str
    """

    source: str
    engine: str
    models: tuple[str, ...]
    classes: tuple
    positive: Any
    n_rows: int
    n_positive: int
    n_negative: int
    design: dict
    aucs: np.ndarray
    auc_covariance: np.ndarray
    fold_aucs: pd.DataFrame
    brier: ItemSums | None
    log_loss: ItemSums | None
    roc: pd.DataFrame
    calibration: pd.DataFrame
    per_class: pd.DataFrame
    class_covariance: dict
    labels: pd.DataFrame | Counts
    label_source: str
    notes: list[str] = field(default_factory=list)

    @property
    def multiclass(self) -> bool:
        """More than two classes: one-vs-rest AUCs and Hand and Till's M."""
        return self.positive is None


@dataclass
class _Request:
    name: str
    y: str
    models: list[str]
    layout: str                      # "wide" or "long"
    columns: dict[str, Any]          # wide: model -> column, or model -> {class: column}
    multiclass: bool
    proba_col: str | None = None     # long: the score column
    model_col: str = "model"
    pred_col: str | None = None      # long: the label column when the file has one
    class_col: str | None = None     # long, multiclass: the class each row's probability is of
    id: str | None = None
    repeat: str | None = None
    fold: str | None = None
    cluster: str | None = None
    positive: Any = None
    threshold: float = 0.5
    losses: bool = False             # Brier score or log loss asked for: scores must be in [0, 1]
    auto: bool = False               # engine "auto": the SQL engines hand what they cannot do to numpy
    text_numbers: bool = False
    notes: list[str] = field(default_factory=list)

    def fail(self, message: str) -> PredictionFileError:
        return PredictionFileError(f"{self.name}: {message}")

    def reads(self) -> list[str]:
        cols: list[str] = [self.y]
        if self.layout == "wide":
            for c in self.columns.values():
                cols += list(c.values()) if isinstance(c, dict) else [c]
        else:
            cols += [self.model_col, self.proba_col or ""]
            if self.pred_col:
                cols.append(self.pred_col)
            if self.class_col:
                cols.append(self.class_col)
        cols += [c for c in (self.id, self.repeat, self.fold, self.cluster) if c]
        return list(dict.fromkeys(c for c in cols if c))


def count_probabilities(source: Any, *, y_true: str, proba: Sequence[str],
                        positive: Any = None, threshold: float = 0.5, id: str | None = None,
                        cluster: str | None = None, layout: str = "auto",
                        model_column: str = "model", pred_column: str = "y_pred",
                        engine: str = "auto", losses: bool = False) -> ProbabilityCounts:
    """Reduce several models' probabilities to what the probabilities route compares.

    Parameters
    ----------
    source : DataFrame, mapping of arrays, path or glob
        Wide: the truth and one column per model (``MODEL:CLASS`` per class when multiclass).
        Long: ``id``, ``model``, the truth and one score column.
    y_true : str
        The truth column.
    proba : sequence of str
        Wide: the models (each a column of P(positive), or the prefix of its class columns);
        long: one name, the score column.
    positive : label, optional
        Binary: the positive class (default: the larger of the two labels in sorted order).
    threshold : float
        Binary: a model predicts the positive class when its probability is at least this.
    id, cluster : str, optional
        Observation id (repeated cross-validation, long files) and cluster columns.
    layout : {"auto", "wide", "long"}
        ``"auto"``: long when ``proba`` names one column and the source has a model column.
    model_column, pred_column : str
        Long: the model column, and the label column used when present.
    engine : {"auto", "numpy", "duckdb", "spark"}
        ``"auto"``: numpy for data in memory, DuckDB for files. DuckDB and Spark reduce wide
        binary probabilities where the data live (window functions for DeLong's placements;
        only sums, binned curves and label patterns come back); a long, multiclass or
        cross-validated file is read in memory with ``"auto"``, refused otherwise.
    losses : bool
        Brier score or log loss is what matters: scores outside [0, 1] are an error (otherwise
        such scores are compared by AUC only, with a note).

    Returns
    -------
    ProbabilityCounts

    Raises
    ------
    PredictionFileError
        Naming the source, the column and the problem: a missing column, a class of the truth
        absent (its AUC undefined), NaN or constant scores, probabilities outside [0, 1],
        multiclass rows not summing to 1.
    """
    args = {"y_true": y_true, "proba": list(proba), "positive": positive,
            "threshold": float(threshold), "id": id, "cluster": cluster, "layout": layout,
            "model_column": model_column, "pred_column": pred_column, "losses": losses,
            "auto": engine == "auto"}
    return count("probabilities", source, args, engine=engine)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------------------------
# the request: which columns play which part
# --------------------------------------------------------------------------------------------


def _request(source: Source, args: dict[str, Any]) -> _Request:
    columns = source.columns
    proba = [str(p) for p in args["proba"]]
    layout = args["layout"]
    if layout == "auto":
        long = len(proba) == 1 and args["model_column"] in columns and proba[0] in columns
        layout = "long" if long else "wide"
    if layout == "long":
        if len(proba) != 1:
            raise PredictionFileError(f"{source.name}: a long file takes one --proba column "
                                      f"(the score column); got {len(proba)}")
        spec = _spec(source.name, columns, y_true=args["y_true"], models=None, id=args["id"],
                     repeat=None, fold=None, layout="long", model_column=args["model_column"],
                     pred_column=proba[0])
        pred = args["pred_column"] if args["pred_column"] in columns else None
        klass = CLASS_COLUMN if CLASS_COLUMN in columns else None
        req = _Request(source.name, spec.y, [], "long", {}, klass is not None,
                       proba_col=proba[0], model_col=spec.model_col,
                       pred_col=None if klass else pred, id=spec.id, repeat=spec.repeat,
                       fold=spec.fold, class_col=klass, notes=list(spec.notes))
    else:
        req = _wide_request(source, args, proba, columns)
    req.cluster = args["cluster"]
    if req.cluster is not None and req.cluster not in columns:
        raise req.fail(f"column {req.cluster!r} (cluster) is missing")
    req.positive = args["positive"]
    req.threshold = args["threshold"]
    req.losses = bool(args.get("losses"))
    req.auto = bool(args.get("auto"))
    req.text_numbers = source.kind == "csv"
    return req


def _wide_request(source: Source, args: dict[str, Any], proba: list[str],
                  columns: list[str]) -> _Request:
    have = set(columns)
    per_class = {m: {c.split(CLASS_SEPARATOR, 1)[1]: c for c in columns
                     if c.startswith(m + CLASS_SEPARATOR)} for m in proba if m not in have}
    multiclass = bool(per_class)
    missing = [m for m in proba if m not in have and not per_class.get(m)]
    if missing:
        raise PredictionFileError(
            f"{source.name}: --proba {missing[0]!r} is neither a column nor the prefix of "
            f"columns {missing[0]}{CLASS_SEPARATOR}CLASS; columns are: {', '.join(columns[:20])}")
    if multiclass and len(per_class) != len(proba):
        raise PredictionFileError(f"{source.name}: give every model one column per class "
                                  f"(MODEL{CLASS_SEPARATOR}CLASS) or every model one column of "
                                  "P(positive), not a mix")
    if multiclass:
        classes = [sorted(v) for v in per_class.values()]
        if any(c != classes[0] for c in classes):
            raise PredictionFileError(f"{source.name}: the models' class columns differ "
                                      f"({', '.join(classes[0])} against another model's)")
    used = [c for m in proba for c in (per_class[m].values() if multiclass else [m])]
    spec = _spec(source.name, columns, y_true=args["y_true"], models=used, id=args["id"],
                 repeat=None, fold=None, layout="wide")
    cols: dict[str, Any] = {m: (dict(sorted(per_class[m].items())) if multiclass else m)
                            for m in proba}
    return _Request(source.name, spec.y, proba, "wide", cols, multiclass, id=spec.id,
                    repeat=spec.repeat, fold=spec.fold, notes=list(spec.notes))


# --------------------------------------------------------------------------------------------
# numpy: read the columns, check them, reduce them
# --------------------------------------------------------------------------------------------


def _numbers(req: _Request, values: pd.Series, column: str) -> np.ndarray:
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        raise req.fail(f"column {column!r} holds a missing or non-numeric score "
                       f"({values.iloc[bad[0]]!r}, row {bad[0]}): every model needs a score "
                       "for every observation")
    return x


def _truth_labels(req: _Request, values: pd.Series) -> np.ndarray:
    """Return the truth as labels: numbers when every label reads as a number, else text."""
    if values.isna().any():
        raise req.fail(f"column {req.y!r} (true labels) has a missing value at row "
                       f"{int(np.flatnonzero(values.isna().to_numpy())[0])}")
    num = pd.to_numeric(values, errors="coerce")
    if not num.isna().any():
        if (num == num.round()).all():
            return num.astype(np.int64).to_numpy()
        return num.to_numpy(dtype=float)
    return values.astype(str).to_numpy()


def _pivot_long(req: _Request, frame: pd.DataFrame, by: list[str], values: Any, *,
                twice: str, missing: str) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Pivot a long file to one row per observation (its id and repeat).

    ``frame`` has its model (and class) columns as text already; ``by`` are the columns the
    values spread over. Returns the wide values, the observations' own columns (the truth,
    the keys, the fold and the cluster, in the wide rows' order) and the models, refusing
    fewer than two models, a row given twice (``twice``) and a missing cell (``missing``).
    """
    keys = [c for c in (req.id, req.repeat) if c]
    models = list(dict.fromkeys(frame[req.model_col]))
    if len(models) < 2:
        raise req.fail(f"column {req.model_col!r} names {len(models)} model; need at least two")
    if frame.duplicated([*keys, *by]).any():
        raise req.fail(f"{twice} (columns {[*keys, *by]})")
    wide = frame.pivot(index=keys, columns=by, values=values)
    if wide.isna().any().any():
        raise req.fail(missing)
    firsts = frame.drop_duplicates(keys).set_index(keys)
    out = pd.DataFrame({req.y: firsts.loc[wide.index, req.y].to_numpy()})
    for k in keys:
        out[k] = wide.index.get_level_values(k).to_numpy()
    for extra in (req.fold, req.cluster):
        if extra:
            out[extra] = firsts.loc[wide.index, extra].to_numpy()
    return wide, out, models


def _long_classes_to_wide(req: _Request, frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Long multiclass: one row per observation, model and class -> columns MODEL:CLASS."""
    assert req.class_col is not None and req.proba_col is not None
    frame = frame.assign(**{req.model_col: frame[req.model_col].astype(str),
                            req.class_col: frame[req.class_col].astype(str)})
    wide, out, models = _pivot_long(
        req, frame, [req.model_col, req.class_col], req.proba_col,
        twice="an observation has two rows for one model and class",
        missing="not every model gives every observation a probability of every class (a long "
                "multiclass file needs one row per observation, model and class)")
    classes = sorted(set(frame[req.class_col]))
    columns: dict[str, Any] = {}
    for m in models:
        columns[m] = {}
        for c in classes:
            out[f"{m}{CLASS_SEPARATOR}{c}"] = wide[(m, c)].to_numpy()
            columns[m][c] = f"{m}{CLASS_SEPARATOR}{c}"
    req.models = models
    return out, columns


def _long_to_wide(req: _Request, frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    if req.class_col is not None:
        return _long_classes_to_wide(req, frame)
    frame = frame.assign(**{req.model_col: frame[req.model_col].astype(str)})
    values = [req.proba_col] + ([req.pred_col] if req.pred_col else [])
    wide, out, models = _pivot_long(
        req, frame, [req.model_col], values,
        twice="an observation has two rows for one model",
        missing="not every model scores every observation (a long file needs one row per "
                "observation and model)")
    for m in models:
        out[m] = wide[(req.proba_col, m)].to_numpy()
        if req.pred_col:
            out[f"{m}\x00label"] = wide[(req.pred_col, m)].to_numpy()
    req.models = models
    return out, {m: m for m in models}


def _positive(req: _Request, classes: list) -> Any:
    if len(classes) < 2:
        raise req.fail(f"column {req.y!r} holds one class ({classes[0]!r}): the AUC needs "
                       "positives and negatives")
    if len(classes) > 2:
        raise req.fail(f"column {req.y!r} holds {len(classes)} classes: binary probabilities "
                       f"need two; give one column per class and model (MODEL{CLASS_SEPARATOR}"
                       "CLASS) for a multiclass comparison")
    if req.positive is None:
        return classes[1]
    match = [c for c in classes if str(c) == str(req.positive)]
    if not match:
        raise req.fail(f"--positive {req.positive!r} is not a class of column {req.y!r} "
                       f"({', '.join(map(str, classes))})")
    return match[0]


def _roc(y: np.ndarray, scores: np.ndarray, models: Sequence[str]) -> pd.DataFrame:
    parts = []
    for name, s in zip(models, scores):
        order = np.argsort(-s, kind="stable")
        ss, yy = s[order], y[order]
        last = np.r_[np.flatnonzero(np.diff(ss) != 0), ss.size - 1]  # end of each tie block
        tp = np.cumsum(yy)[last]
        fp = (last + 1) - tp
        tpr = np.r_[0.0, tp / max(yy.sum(), 1)]
        fpr = np.r_[0.0, fp / max((~yy).sum(), 1)]
        if tpr.size > ROC_POINTS:
            keep = np.unique(np.linspace(0, tpr.size - 1, ROC_POINTS).round().astype(int))
            tpr, fpr = tpr[keep], fpr[keep]
        parts.append(pd.DataFrame({"model": name, "fpr": fpr, "tpr": tpr}))
    return pd.concat(parts, ignore_index=True)


def _calibration(y: np.ndarray, proba: np.ndarray, models: Sequence[str]) -> pd.DataFrame:
    rows = []
    for name, p in zip(models, proba):
        b = np.minimum((p * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
        n = np.bincount(b, minlength=CALIBRATION_BINS)
        sp = np.bincount(b, weights=p, minlength=CALIBRATION_BINS)
        sy = np.bincount(b, weights=y.astype(float), minlength=CALIBRATION_BINS)
        for i in np.flatnonzero(n):
            rows.append({"model": name, "bin": int(i), "n": int(n[i]),
                         "mean_predicted": sp[i] / n[i], "observed": sy[i] / n[i]})
    return pd.DataFrame(rows, columns=["model", "bin", "n", "mean_predicted", "observed"])


def _check_scores(req: _Request, scores: np.ndarray, models: Sequence[str]) -> None:
    for name, s in zip(models, scores):
        if np.all(s == s[0]):
            raise req.fail(f"model {name!r} gives every observation the same score ({s[0]:g}): "
                           "it ranks nothing (AUC 0.5 by ties) and is not a model to compare")


def _unit(req: _Request, proba: np.ndarray, models: Sequence[str]) -> None:
    for name, p in zip(models, proba):
        if (p < 0).any() or (p > 1).any():
            bad = p[(p < 0) | (p > 1)][0]
            raise req.fail(f"model {name!r} has a score outside [0, 1] ({bad:g}): Brier score and "
                           "log loss need probabilities")


def _design(req: _Request, table: pd.DataFrame) -> tuple[dict, np.ndarray | None, np.ndarray | None]:
    """Return the design, the clusters (if any) and the fold of each row (if any)."""
    clusters = folds = None
    design: dict[str, Any] = {"design": "test set", "n_clusters": None, "folds": None,
                              "repeats": None, "test_train_ratio": None}
    if req.fold is not None:
        fold = table[req.fold].astype(str).to_numpy()
        rep = (table[req.repeat].astype(str).to_numpy() if req.repeat
               else np.full(len(table), ""))
        folds = np.char.add(np.char.add(rep.astype(str), "\x00"), fold.astype(str))
        k = len(np.unique(fold))
        r = len(np.unique(rep))
        design.update(design="repeated cv", folds=k, repeats=r,
                      test_train_ratio=1.0 / (k - 1) if k > 1 else None)
        if r > 1 and req.id is not None:
            clusters = table[req.id].astype(str).to_numpy()
    if req.cluster is not None:
        clusters = table[req.cluster].astype(str).to_numpy()
        if design["design"] == "test set":
            design["design"] = "clustered"
    if clusters is not None:
        design["n_clusters"] = len(np.unique(clusters))
    return design, clusters, folds


def _binary(req: _Request, table: pd.DataFrame, y_lab: np.ndarray, models: list[str],
            classes: list) -> dict[str, Any]:
    pos = _positive(req, classes)
    y = y_lab == pos
    scores = np.stack([_numbers(req, table[req.columns[m]], req.columns[m]) for m in models])
    _check_scores(req, scores, models)
    unit = bool(((scores >= 0) & (scores <= 1)).all())
    if not unit:
        if req.losses:
            _unit(req, scores, models)
        req.notes.append("the scores are not all in [0, 1]: they are compared by AUC only (no "
                         "Brier score, log loss or calibration), and labels are taken at "
                         f"score >= {req.threshold:g}")
    design, clusters, folds = _design(req, table)
    if clusters is not None:
        aucs, cov, _ = clustered_auc_covariance(y, scores, clusters)
    else:
        aucs, cov = auc_covariance(delong_sums(y, scores, models))
    per_fold = pd.DataFrame(columns=["model", "fold", "auc"])
    if folds is not None:
        try:
            fa = fold_aucs(y, scores, folds)
        except ValueError as exc:
            raise req.fail(str(exc).replace("\x00", " ")) from None
        ids = np.unique(folds)
        per_fold = pd.DataFrame([{"model": m, "fold": str(f).replace("\x00", " ").strip(),
                                  "auc": fa[i, j]} for i, m in enumerate(models)
                                 for j, f in enumerate(ids)])
    neg = next(c for c in classes if c != pos)
    labels = {m: np.where(scores[i] >= req.threshold, pos, neg) for i, m in enumerate(models)}
    return {"positive": pos, "y": y, "scores": scores, "design": design, "clusters": clusters,
            "aucs": aucs, "cov": cov, "fold_aucs": per_fold, "labels": labels,
            "brier": np.stack([brier_scores(y, s) for s in scores]) if unit else None,
            "log_loss": np.stack([log_losses(y, s) for s in scores]) if unit else None,
            "roc": _roc(y, scores, models),
            "calibration": _calibration(y, scores, models) if unit else None}


def _multiclass(req: _Request, table: pd.DataFrame, y_lab: np.ndarray, models: list[str],
                classes: list) -> dict[str, Any]:
    by_text = {str(c): c for c in classes}
    first = req.columns[models[0]]
    absent = [c for c in first if c not in by_text]
    if absent:
        raise req.fail(f"class {absent[0]!r} of the probability columns never occurs in column "
                       f"{req.y!r}: its one-vs-rest AUC is undefined")
    unscored = [str(c) for c in classes if str(c) not in first]
    if unscored:
        raise req.fail(f"class {unscored[0]!r} of column {req.y!r} has no probability column "
                       f"({models[0]}{CLASS_SEPARATOR}{unscored[0]})")
    order = [str(c) for c in classes]
    codes = _codes_of(y_lab, order)
    proba = np.stack([np.column_stack([_numbers(req, table[req.columns[m][c]], req.columns[m][c])
                                       for c in order]) for m in models])
    _unit(req, proba.reshape(len(models), -1), models)
    try:
        brier = np.stack([brier_scores(codes, p) for p in proba])
        logl = np.stack([log_losses(codes, p) for p in proba])
    except ValueError as exc:
        raise req.fail(str(exc).replace("proba:", "a model's probabilities:")) from None
    for name, p in zip(models, proba):
        _check_scores(req, p.T, [f"{name}{CLASS_SEPARATOR}{c}" for c in order])
    design, clusters, _ = _design(req, table)
    rows, cov_by_class = [], {}
    for j, c in enumerate(classes):
        scores = proba[:, :, j]
        if clusters is not None:
            aucs, cov, _ = clustered_auc_covariance(codes == j, scores, clusters)
        else:
            aucs, cov = auc_covariance(delong_sums(codes == j, scores, models))
        cov_by_class[str(c)] = cov
        rows += [{"class": c, "model": m, "auc": aucs[i], "variance": cov[i, i],
                  "n_positive": int((codes == j).sum())} for i, m in enumerate(models)]
    labels = {m: np.asarray(classes, dtype=object)[proba[i].argmax(axis=1)]
              for i, m in enumerate(models)}
    return {"positive": None, "design": design, "clusters": clusters,
            "aucs": np.array([hand_till_m(codes, p) for p in proba]),
            "cov": np.full((len(models), len(models)), np.nan),
            "fold_aucs": pd.DataFrame(columns=["model", "fold", "auc"]), "labels": labels,
            "brier": brier, "log_loss": logl, "per_class": pd.DataFrame(rows),
            "class_covariance": cov_by_class}


def _codes_of(values: np.ndarray, order: list[str]) -> np.ndarray:
    index = {c: i for i, c in enumerate(order)}
    return np.array([index[str(v)] for v in values], dtype=np.int64)


def _numpy(source: Opened, req: _Request, frame: pd.DataFrame | None = None) -> ProbabilityCounts:
    table: pd.DataFrame = source.data if frame is None else frame
    if len(table) == 0:
        raise req.fail("no rows")
    if req.layout == "long":
        table, req.columns = _long_to_wide(req, table)
    models = req.models
    y_lab = _truth_labels(req, table[req.y])
    classes = sorted(set(y_lab.tolist()), key=lambda v: (str(type(v)), v))
    if req.multiclass:
        part = _multiclass(req, table, y_lab, models, classes)
    else:
        part = _binary(req, table, y_lab, models, classes)
    clusters = part["clusters"]
    label_source = "threshold"
    labels = pd.DataFrame({req.y: y_lab})
    for k in (req.id, req.repeat, req.fold):
        if k:
            labels[k] = table[k].to_numpy()
    for m in models:
        own = f"{m}\x00label"
        if own in table:
            labels[m] = _truth_labels(req, table[own]) if table[own].notna().all() else table[own]
            label_source = req.pred_col or "threshold"
        else:
            labels[m] = part["labels"][m]
    n_pos = int(part["y"].sum()) if "y" in part else 0
    return ProbabilityCounts(
        source=req.name, engine="numpy", models=tuple(models), classes=tuple(classes),
        positive=part["positive"], n_rows=len(table), n_positive=n_pos,
        n_negative=(len(table) - n_pos) if n_pos else 0, design=part["design"],
        aucs=np.asarray(part["aucs"]), auc_covariance=np.asarray(part["cov"]),
        fold_aucs=part["fold_aucs"],
        brier=None if part["brier"] is None else loss_sums(part["brier"], models,
                                                           clusters=clusters, name="Brier score"),
        log_loss=None if part["log_loss"] is None else loss_sums(part["log_loss"], models,
                                                                 clusters=clusters,
                                                                 name="log loss"),
        roc=part.get("roc", pd.DataFrame(columns=["model", "fpr", "tpr"])),
        calibration=(part.get("calibration") if part.get("calibration") is not None else
                     pd.DataFrame(columns=["model", "bin", "n", "mean_predicted", "observed"])),
        per_class=part.get("per_class", pd.DataFrame(columns=["class", "model", "auc",
                                                              "variance"])),
        class_covariance=part.get("class_covariance", {}), labels=labels,
        label_source=label_source, notes=list(req.notes))


def _reads(req: _Request) -> list[str]:
    return req.reads()


def _sql_supported(req: _Request) -> str | None:
    """Why the SQL engines cannot reduce this request (None when they can)."""
    if req.layout != "wide":
        return "a long file"
    if req.multiclass:
        return "multiclass probabilities"
    if req.fold is not None:
        return "cross-validated scores (a fold column)"
    return None


def _sql_roles(req: _Request) -> list[tuple[str, str]]:
    roles = [("k_y", req.y)] + [(f"k_s{j}", req.columns[m]) for j, m in enumerate(req.models)]
    return roles + ([("k_c", req.cluster)] if req.cluster else [])


def _checked_scores(req: _Request, check: pd.DataFrame) -> bool:
    """Refuse missing and constant scores; return whether every score lies in [0, 1].

    ``check`` holds :func:`~precmp_lib.engine.probability_sql.proba_check_sql`'s rows, one per
    value of the truth.
    """
    models, k = req.models, len(req.models)
    if int(check["n"].sum()) == 0:
        raise req.fail("no rows")
    if int(check["ny"].max()):
        raise req.fail(f"column {req.y!r} (true labels) has a missing value")
    lo = np.array([check[f"lo{j}"].min() for j in range(k)], dtype=float)
    hi = np.array([check[f"hi{j}"].max() for j in range(k)], dtype=float)
    for j, m in enumerate(models):
        if int(check[f"bad{j}"].sum()):
            raise req.fail(f"column {req.columns[m]!r} holds a missing or non-numeric score: "
                           "every model needs a score for every observation")
        if lo[j] == hi[j]:
            raise req.fail(f"model {m!r} gives every observation the same score "
                           f"({lo[j]:g}): it ranks nothing (AUC 0.5 by ties) and is "
                           "not a model to compare")
    unit = bool((lo >= 0).all() and (hi <= 1).all())
    if not unit:
        j = int(np.flatnonzero((lo < 0) | (hi > 1))[0])
        if req.losses:
            bad = lo[j] if lo[j] < 0 else hi[j]
            raise req.fail(f"model {models[j]!r} has a score outside [0, 1] ({bad:g}): Brier "
                           "score and log loss need probabilities")
        req.notes.append("the scores are not all in [0, 1]: they are compared by AUC only (no "
                         "Brier score, log loss or calibration), and labels are taken at "
                         f"score >= {req.threshold:g}")
    return unit


def _sql_classes(req: _Request, raw: pd.DataFrame) -> tuple[list, Any, str, int, int]:
    """Return the classes, the positive one, its place in the engine's order, m and n.

    ``raw``: the check's rows of the non-missing truth values, in the engine's order.
    """
    labels = _truth_labels(req, raw["k_y"])
    classes = sorted(set(labels.tolist()), key=lambda v: (str(type(v)), v))
    if len(raw) != len(classes):
        raise req.fail(f"column {req.y!r} writes one label in two ways")
    pos = _positive(req, classes)
    at = int(np.flatnonzero(labels == pos)[0])
    m_pos = int(raw["n"].iloc[at])
    return classes, pos, "MIN" if at == 0 else "MAX", m_pos, int(raw["n"].sum()) - m_pos


def _reduce_sql(req: _Request, roles: Any, run: Any, keep: Any,
                engine: str) -> ProbabilityCounts:
    """Reduce the scores where the data live: every query below returns a bounded table.

    ``run(obj, name, sql, fetch)`` runs ``sql`` over ``obj`` known as ``name`` and returns the
    result as a relation (``fetch=False``) or a pandas frame; ``keep(obj, name, sql)`` stores
    the result in the engine (a table of the distinct scores, read twice) and returns the name
    later queries read it by. Five passes over the rows: the check (classes, bad values, range),
    each model's distinct scores, the placements joined back and summed, the labels' patterns;
    the ROC and reliability bins read the distinct scores only.
    """
    from .probability_sql import (
        proba_base_sql,
        proba_bins_sql,
        proba_check_sql,
        proba_cluster_sums_sql,
        proba_patterns_sql,
        proba_places_sql,
        proba_rows_sql,
        proba_sums_sql,
    )

    models, k = req.models, len(req.models)
    check = run(roles, "roles", proba_check_sql(k), True)
    unit = _checked_scores(req, check)
    lo = [float(check[f"lo{j}"].min()) for j in range(k)]
    hi = [float(check[f"hi{j}"].max()) for j in range(k)]
    classes, pos, which, m_pos, n_neg = _sql_classes(
        req, check.loc[check["ny"] == 0, ["k_y", "n"]].reset_index(drop=True))
    pb = run(roles, "roles", proba_base_sql(k, "roles", which, bool(req.cluster)), False)
    places = [keep(pb, "pb", proba_places_sql(j, m_pos, n_neg)) for j in range(k)]
    pr = run(pb, "pb", proba_rows_sql(k, LOG_LOSS_EPSILON, places, losses=unit,
                                      clustered=bool(req.cluster)), False)
    by_y = run(pr, "pr", proba_sums_sql(k, unit), True).set_index("y")
    p, q = by_y.loc[1], by_y.loc[0]

    def vec(row: Any, prefix: str) -> np.ndarray:
        return np.array([float(row[f"{prefix}{j}"]) for j in range(k)])

    def mat(row: Any, prefix: str) -> np.ndarray:
        out = np.empty((k, k))
        for a in range(k):
            for b in range(a, k):
                out[a, b] = out[b, a] = float(row[f"{prefix}{a}_{b}"])
        return out

    sums = DelongSums(tuple(models), m_pos, n_neg, vec(p, "sv"), vec(q, "sv"), mat(p, "pv"),
                      mat(q, "pv"))
    aucs, cov = auc_covariance(sums)
    design: dict[str, Any] = {"design": "test set", "n_clusters": None, "folds": None,
                              "repeats": None, "test_train_ratio": None}
    n_rows = m_pos + n_neg
    cl = None
    if req.cluster:
        cl = run(pr, "pr", proba_cluster_sums_sql(k, m_pos, n_neg, unit), True).iloc[0]
        c = int(cl["nclusters"])
        if c < 2:
            raise req.fail(f"column {req.cluster!r} (cluster) holds one cluster")
        cov = clustered_covariance_from_sums(aucs, mat(cl, "pp"), vec(cl, "pw"),
                                             float(cl["ww"]), c)
        design.update(design="clustered", n_clusters=c)

    def losses(x: str, name: str) -> ItemSums | None:
        if not unit:
            return None
        total = vec(p, f"s{x}") + vec(q, f"s{x}")
        gram = mat(p, f"p{x}") + mat(q, f"p{x}")
        if cl is None:
            nc, sum_n2, cns, cgram = None, float(n_rows), total, gram
        else:
            nc, sum_n2 = int(cl["nclusters"]), float(cl["n2"])
            cns, cgram = vec(cl, f"n{x}"), mat(cl, f"c{x}")
        return ItemSums(task=name, models=tuple(models), n_items=n_rows, n_clusters=nc,
                        sum_n2=sum_n2, sums=total, item_gram=gram, cluster_ns=cns,
                        cluster_gram=cgram, answers=np.full(k, n_rows), within=np.zeros(k),
                        within_over_k=np.zeros(k), k_min=1, k_max=1, binary=False, unit=True,
                        engine=engine)

    # the bins read the stored distinct scores only (``pb`` is named, not read)
    bins = run(pb, "pb", proba_bins_sql(places, lo, hi), True)
    roc = _roc_from_bins(bins, models)
    cal = _calibration_from_bins(bins, models) if unit else None
    pat = run(pb, "pb", proba_patterns_sql(k, req.threshold), True)
    neg = next(cl_ for cl_ in classes if cl_ != pos)
    counts = _label_counts(pat, models, (neg, pos) if classes[0] == neg else (pos, neg),
                           pos, n_rows, engine, req.name)
    return ProbabilityCounts(
        source=req.name, engine=engine, models=tuple(models), classes=tuple(classes),
        positive=pos, n_rows=n_rows, n_positive=m_pos, n_negative=n_neg, design=design,
        aucs=aucs, auc_covariance=cov, fold_aucs=pd.DataFrame(columns=["model", "fold", "auc"]),
        brier=losses("b", "Brier score"), log_loss=losses("l", "log loss"), roc=roc,
        calibration=cal if cal is not None else pd.DataFrame(
            columns=["model", "bin", "n", "mean_predicted", "observed"]),
        per_class=pd.DataFrame(columns=["class", "model", "auc", "variance"]),
        class_covariance={}, labels=counts, label_source="threshold", notes=list(req.notes))


def _roc_from_bins(bins: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Return each model's ROC points from :func:`proba_bins_sql`'s rows (by ``rbin``)."""
    parts = []
    for j, name in enumerate(models):
        part = (bins[bins["j"] == j].groupby("rbin")[["pos", "neg"]].sum()
                .sort_index(ascending=False))
        tp = np.r_[0.0, np.cumsum(part["pos"].to_numpy(float))]
        fp = np.r_[0.0, np.cumsum(part["neg"].to_numpy(float))]
        parts.append(pd.DataFrame({"model": name, "fpr": fp / max(fp[-1], 1),
                                   "tpr": tp / max(tp[-1], 1)}))
    return pd.concat(parts, ignore_index=True)


def _calibration_from_bins(bins: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Return each model's reliability table from :func:`proba_bins_sql`'s rows (by ``cbin``)."""
    tenths = bins.groupby(["j", "cbin"])[["pos", "neg", "sp"]].sum().sort_index()
    rows = []
    for (j, b), r in tenths.iterrows():
        n = float(r["pos"]) + float(r["neg"])
        rows.append({"model": models[int(j)], "bin": int(b), "n": int(n),
                     "mean_predicted": float(r["sp"]) / n, "observed": float(r["pos"]) / n})
    return pd.DataFrame(rows, columns=["model", "bin", "n", "mean_predicted", "observed"])


def _label_counts(pat: pd.DataFrame, models: Sequence[str], classes: tuple, positive: Any,
                  n_rows: int, engine: str, source: str) -> Counts:
    """Return the labels at the threshold as the predictions route's counts (class order)."""
    code = {0: classes.index(next(c for c in classes if c != positive)),
            1: classes.index(positive)}
    out = pd.DataFrame({"y": pat["y"].astype(int).map(code)})
    for j in range(len(models)):
        out[f"p{j}"] = pat[f"p{j}"].astype(int).map(code)
    out["count"] = pat["count"].astype(np.int64)
    out = out.sort_values(list(out.columns[:-1])).reset_index(drop=True).astype(np.int64)
    return Counts(classes=classes, models=tuple(models), patterns=out, observations=None,
                  design="test set", n_rows=n_rows, n_observations=n_rows, engine=engine,
                  source=source)


def _duckdb(source: Opened, req: _Request) -> ProbabilityCounts:
    why = _sql_supported(req)
    if why is not None:
        if not req.auto:
            raise req.fail(f"{why} is read with --engine numpy (in memory); DuckDB and Spark "
                           "reduce wide binary probabilities")
        return _numpy(source, req, frame=_in_memory(source, req))
    import uuid

    from .sql import roles_sql

    tag = uuid.uuid4().hex
    kept: list[tuple[Any, str, str]] = []

    def run(obj: Any, name: str, sql: str, fetch: bool) -> Any:
        rel = obj.query(name, sql)
        return rel.df() if fetch else rel

    def keep(obj: Any, name: str, sql: str) -> str:
        # a temporary table of the relation's own connection, which may be a user's database
        # (read-only, or a file no table of ours may be written into); dropped through it
        table = f"precmp_kept{len(kept)}_{tag}"
        obj.query(name, f"CREATE TEMP TABLE {table} AS {sql}")
        kept.append((obj, name, table))
        return table

    try:
        roles = source.data.query("src", roles_sql(_sql_roles(req), source.columns, "src"))
        return _reduce_sql(req, roles, run, keep, "duckdb")
    except PredictionFileError:
        raise
    except Exception as exc:  # duckdb.Error: a parse failure of the user's file
        raise source.duckdb_failure(exc) from None
    finally:
        for obj, name, table in kept:
            obj.query(name, f"DROP TABLE IF EXISTS temp.main.{table}")


def _in_memory(source: Opened, req: _Request) -> pd.DataFrame:
    """Read the request's columns into memory (engine "auto", a file DuckDB cannot reduce)."""
    from .sql import roles_sql

    reads = req.reads()
    sql = roles_sql([(f"k{i}", c) for i, c in enumerate(reads)], source.columns, "src")
    frame = source.data.query("src", sql).df()
    frame.columns = reads
    return frame


def _spark(source: Opened, req: _Request) -> ProbabilityCounts:
    import uuid

    why = _sql_supported(req)
    if why is not None:
        raise req.fail(f"{why} is read with --engine numpy (in memory); DuckDB and Spark "
                       "reduce wide binary probabilities")
    from .sql import roles_sql

    spark = source.data.sparkSession
    tag = uuid.uuid4().hex
    views: list[str] = []

    def run(obj: Any, name: str, sql: str, fetch: bool) -> Any:
        view = f"precmp_{name}_{tag}"
        if view not in views:
            obj.createOrReplaceTempView(view)
            views.append(view)
        df = spark.sql(sql.replace(f"FROM {name}", f"FROM {view}").replace(
            f"FROM {name} ", f"FROM {view} "))
        if not fetch:
            return df
        rows = df.collect()
        return pd.DataFrame([r.asDict() for r in rows], columns=df.columns)

    cached: list[Any] = []

    def keep(obj: Any, name: str, sql: str) -> str:
        df = run(obj, name, sql, False).cache()
        cached.append(df)
        view = f"precmp_kept{len(cached)}_{tag}"
        df.createOrReplaceTempView(view)
        views.append(view)
        return view

    try:
        roles = spark.sql(roles_sql(_sql_roles(req), source.columns, _view(source, tag, views)))
        return _reduce_sql(req, roles, run, keep, "spark")
    finally:
        for v in views:
            spark.catalog.dropTempView(v)
        for df in cached:
            df.unpersist()


def _view(source: Opened, tag: str, views: list[str]) -> str:
    view = f"precmp_src_{tag}"
    source.data.createOrReplaceTempView(view)
    views.append(view)
    return view


register(Counters("probabilities", request=_request, reads=_reads, numpy=_numpy,
                  duckdb=_duckdb, spark=_spark, error=PredictionFileError,
                  memory=DUCKDB_MEMORY))
