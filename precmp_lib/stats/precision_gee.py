"""Precision of c classifiers at once: the GEE Wald tests in closed form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from .._lib.checks import (
    check_positive_int,
    check_probability,
)
from .._lib.dist import chi2_sf, norm_isf, norm_sf
from .._lib.jsonable import python_value
from ..core.counts import (
    PatternCounts,
    PrecisionMoments,
    as_prediction_mapping,
    precision_moments,
)
from .multiple import adjust_pvalues
from .precision import _COMPARE_COLUMNS
from .precision_cells import _SMALL_M, _ZERO_TOL, _ratio

__all__ = ['GEEPrecisionResult', 'compare_precision_from_moments', 'gee_precision', 'gee_precision_from_counts']


# c classifiers: GEE in closed form
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GEEPrecisionResult:
    """Per-class comparison of the precision of several classifiers by GEE (closed form).

    Attributes
    ----------
    precision : DataFrame
        ``class``, ``model``, ``n_predicted``, ``n_correct``, ``precision``.
    coefficients : DataFrame
        Each model against the reference, per class: ``class``, ``model``,
        ``log_odds_ratio`` (logit P_model - logit P_reference), ``se`` (robust),
        ``odds_ratio``, ``ci_low``, ``ci_high`` (interval for the odds ratio),
        ``statistic`` (Wald chi-square, 1 df), ``pvalue``, ``note``.
    joint : DataFrame
        The omnibus Wald test of equal precision of all models, per class: ``class``,
        ``statistic``, ``df`` (c - 1, less if the covariance is singular), ``pvalue``,
        ``note``.
    pairwise : DataFrame
        Every pair, per class: ``class``, ``model_a``, ``model_b``, ``statistic`` (Wald
        chi-square of logit P_a - logit P_b), ``pvalue``, ``pvalue_holm`` (Holm over the
        pairs of that class), ``note``. The one exception to the library's naming of
        adjusted p-values (``pvalue_adjusted``, with the method in ``attrs["adjustment"]``):
        the public API contract names this column ``pvalue_holm``, and it keeps that name.
    reference : str
        The reference model.
    models : tuple of str
    confidence_level : float
    n_rows, n_clusters : int
        Rows used and distinct observations (clusters).
    covariance : dict
        Per class, the robust covariance of (intercept, coefficients) in reference coding,
        as a DataFrame (the ``cov_params()`` of the equivalent fitted GEE).
    """

    precision: pd.DataFrame
    coefficients: pd.DataFrame
    joint: pd.DataFrame
    pairwise: pd.DataFrame
    reference: str
    models: tuple[str, ...]
    confidence_level: float
    n_rows: int
    n_clusters: int
    covariance: Mapping[Any, pd.DataFrame] = field(default_factory=dict, repr=False)

    def _repr_html_(self) -> str:
        return (
            f"<div><strong>GEE precision comparison</strong> (reference: "
            f"{self.reference}; {self.n_clusters} observations)"
            f"<p>Joint Wald test per class</p>{self.joint.to_html(index=False)}"
            f"<p>Odds ratios against the reference</p>"
            f"{self.coefficients.to_html(index=False)}</div>"
        )


def gee_precision_from_counts(
    counts: PatternCounts | PrecisionMoments,
    *,
    reference: str | None = None,
    confidence_level: float = 0.95,
    pairs: Sequence[tuple[int, int]] | None = None,
) -> GEEPrecisionResult:
    """Multi-classifier GEE comparison of precision from pattern counts or moments.

    The counts entry point of :func:`gee_precision`.

    Parameters
    ----------
    counts : PatternCounts or PrecisionMoments
        From :func:`precmp_lib.core.counts.pattern_counts` (or ``PatternCounts.from_patterns``)
        or :func:`precmp_lib.core.counts.precision_moments`.
    reference : str, optional
        Name of the reference model (default: the first).
    confidence_level : float
        Level of the odds-ratio intervals.
    pairs : sequence of (int, int), optional
        The pairs of model positions of the pairwise table (its Holm adjustment runs over
        them, class by class); default every pair. Many models: each against one keeps the
        table at m − 1 rows per class instead of m (m − 1) / 2.

    Returns
    -------
    GEEPrecisionResult

    Notes
    -----
    See :func:`gee_precision` for the model and the closed-form sandwich (docs/methods.md §7).

    References
    ----------
    Liang & Zeger (1986), Biometrika 73:13-22. Gondara (2016), Algorithms 1-2.

    Examples
    --------
    docs/methods.md §7, worked example 2 (three classifiers, one class):

    >>> from precmp_lib.core.counts import PatternCounts
    >>> pc = PatternCounts.from_patterns(
    ...     {"111": 40, "110": 8, "101": 6, "011": 5, "100": 4, "010": 3, "001": 7},
    ...     {"111": 6, "110": 3, "101": 4, "011": 2, "100": 5, "010": 6, "001": 9})
    >>> res = gee_precision_from_counts(pc)
    >>> res.joint[["statistic", "df", "pvalue"]].round(6)
       statistic  df    pvalue
    0   0.569331   2  0.752266
    """
    level = check_probability(confidence_level, "confidence_level")
    z = float(norm_isf((1 - level) / 2))
    moments = _as_moments(counts)
    names = tuple(moments.names)
    ref = _reference_position(names, reference)
    prec_rows, coef_rows, joint_rows, pair_rows = [], [], [], []
    covariance = {}
    for fit in _class_fits(moments, ref):
        prec_rows += [{"class": fit.label, "model": name, "n_predicted": int(fit.m[j]),
                       "n_correct": int(fit.tp[j]), "precision": fit.p[j]}
                      for j, name in enumerate(names)]
        coef_rows += [_coefficient_row(fit, j, z) for j in fit.others]
        pair_rows += _pairwise_rows(fit, pairs)
        joint_rows.append(_joint_row(fit))
        covariance[fit.label] = _reference_covariance(fit)
    return GEEPrecisionResult(
        precision=pd.DataFrame(prec_rows, columns=["class", "model", "n_predicted",
                                                   "n_correct", "precision"]),
        coefficients=pd.DataFrame(coef_rows, columns=[
            "class", "model", "log_odds_ratio", "se", "odds_ratio", "ci_low", "ci_high",
            "statistic", "pvalue", "note"]),
        joint=pd.DataFrame(joint_rows, columns=["class", "statistic", "df", "pvalue", "note"]),
        pairwise=pd.DataFrame(pair_rows, columns=["class", "model_a", "model_b", "statistic",
                                                  "pvalue", "pvalue_holm", "note"]),
        reference=names[ref], models=names, confidence_level=level,
        n_rows=int(moments.n_rows), n_clusters=int(moments.n_clusters), covariance=covariance,
    )


def _as_moments(counts: Any) -> PrecisionMoments:
    """Return the moments of pattern counts (or the moments themselves)."""
    if isinstance(counts, PatternCounts):
        return counts.moments()
    if isinstance(counts, PrecisionMoments):
        return counts
    raise ValueError(
        f"counts must be PatternCounts or PrecisionMoments; got {type(counts).__name__}"
    )


def _reference_position(names: tuple[str, ...], reference: str | None) -> int:
    """Return the position of the reference model (default the first); check there are two."""
    if len(names) < 2:
        raise ValueError(f"y_preds must hold at least 2 classifiers; got {len(names)}")
    if reference is None:
        reference = names[0]
    if str(reference) not in names:
        raise ValueError(f"reference must be one of the models {list(names)}; got {reference!r}")
    return names.index(str(reference))


@dataclass(frozen=True)
class _ClassFit:
    """The closed-form GEE of one class: counts, precisions, robust covariance of the logits.

    ``v`` is the sandwich covariance of (logit P_1, ..., logit P_c); ``why`` says, for each
    model whose logit is not finite, why (it never predicts the class, or its precision is
    0 or 1).
    """

    label: Any
    names: tuple[str, ...]
    ref: int
    tp: np.ndarray
    fp: np.ndarray
    m: np.ndarray
    p: np.ndarray
    v: np.ndarray
    why: dict[str, str]

    @property
    def others(self) -> list[int]:
        """Positions of the models other than the reference."""
        return [j for j in range(len(self.names)) if j != self.ref]

    def log_odds_ratio(self, j: int, i: int) -> float:
        """Logit P_j - logit P_i from count products (exactly 0 when the odds are equal)."""
        return float(np.log((self.tp[j] * self.fp[i]) / (self.fp[j] * self.tp[i])))

    def contrast(self, j: int, i: int) -> tuple[float, float, float, bool]:
        """Wald test of logit P_j = logit P_i: estimate, variance, statistic, degenerate."""
        estimate = self.log_odds_ratio(j, i)
        v = self.v
        var = v[j, j] + v[i, i] - 2 * v[j, i]
        stat, deg = _ratio(np.asarray(estimate**2), np.asarray(var), np.asarray(v[j, j] + v[i, i]))
        return estimate, float(var), float(stat), bool(deg)

    def reason(self, *models: int) -> str:
        """Why some of ``models`` have no finite logit ("" when all have one)."""
        return "; ".join(self.why[self.names[j]] for j in models if self.names[j] in self.why)


def _class_fits(moments: PrecisionMoments, ref: int) -> list[_ClassFit]:
    """Fit every class: the sandwich ``V = A^-1 B A^-1`` of docs/methods.md §7 in the moments."""
    tp = moments.n_correct.astype(float)
    fp = moments.n_wrong.astype(float)
    m = tp + fp
    with np.errstate(divide="ignore", invalid="ignore"):
        p = tp / m
        q = fp / m
        info = tp * fp / m  # M_j P_j Q_j: the bread, diagonal
        pj, qj = p[:, :, None], q[:, :, None]
        pl, ql = p[:, None, :], q[:, None, :]
        meat = (qj * ql * moments.cc - qj * pl * moments.cw
                - pj * ql * np.swapaxes(moments.cw, 1, 2) + pj * pl * moments.ww)
        v_eta = meat / (info[:, :, None] * info[:, None, :])
    valid = (tp > 0) & (fp > 0)
    names = tuple(moments.names)
    fits = []
    for k, label in enumerate(moments.classes):
        why = {}
        for j, name in enumerate(names):
            if m[k, j] == 0:
                why[name] = f"{name} never predicts this class"
            elif not valid[k, j]:
                why[name] = f"precision of {name} is {p[k, j]:g} (logit infinite)"
        fits.append(_ClassFit(label=python_value(label), names=names, ref=ref, tp=tp[k], fp=fp[k],
                              m=m[k], p=p[k], v=v_eta[k], why=why))
    return fits


def _coefficient_row(fit: _ClassFit, j: int, z: float) -> dict[str, Any]:
    """Model j against the reference: log odds ratio, its interval and Wald test."""
    row: dict[str, Any] = {"class": fit.label, "model": fit.names[j]}
    reason = fit.reason(fit.ref, j)
    if reason:
        row.update(log_odds_ratio=np.nan, se=np.nan, odds_ratio=np.nan, ci_low=np.nan,
                   ci_high=np.nan, statistic=np.nan, pvalue=np.nan,
                   note=f"{reason}: no Wald estimate")
        return row
    beta, var, stat, deg = fit.contrast(j, fit.ref)
    se = 0.0 if deg else float(np.sqrt(max(var, 0.0)))
    row.update(log_odds_ratio=beta, se=se, odds_ratio=np.exp(beta),
               ci_low=np.exp(beta - z * se), ci_high=np.exp(beta + z * se),
               statistic=stat, pvalue=float(chi2_sf(stat, 1)),
               note=(f"{fit.names[j]} and {fit.names[fit.ref]} predict this class identically"
                     if deg else ""))
    return row


def _pairwise_rows(fit: _ClassFit,
                   pairs: Sequence[tuple[int, int]] | None = None) -> list[dict[str, Any]]:
    """Every pair of models (or ``pairs``): Wald test of equal logits, Holm-adjusted within the class."""
    rows: list[dict[str, Any]] = []
    for i, j in (combinations(range(len(fit.names)), 2) if pairs is None else pairs):
        row: dict[str, Any] = {"class": fit.label, "model_a": fit.names[i],
                               "model_b": fit.names[j]}
        reason = fit.reason(i, j)
        if reason:
            row.update(statistic=np.nan, pvalue=np.nan, note=f"{reason}: no Wald test")
        else:
            _, _, stat, deg = fit.contrast(i, j)
            row.update(statistic=stat, pvalue=float(chi2_sf(stat, 1)),
                       note=(f"{fit.names[i]} and {fit.names[j]} predict this class identically"
                             if deg else ""))
        rows.append(row)
    holm = adjust_pvalues(np.array([row["pvalue"] for row in rows], dtype=float), "holm")
    for row, value in zip(rows, holm, strict=True):
        row["pvalue_holm"] = value
    return rows


def _joint_row(fit: _ClassFit) -> dict[str, Any]:
    """Omnibus Wald test of equal precision of all models (pseudo-inverse when singular)."""
    c = len(fit.names)
    if fit.why:
        return {"class": fit.label, "statistic": np.nan, "df": c - 1, "pvalue": np.nan,
                "note": "; ".join(fit.why.values()) + ": no joint Wald test"}
    others = fit.others
    contrast = np.zeros((c - 1, c))
    contrast[np.arange(c - 1), others] = 1.0
    contrast[:, fit.ref] = -1.0
    beta = np.array([fit.log_odds_ratio(j, fit.ref) for j in others])
    w_eig, u_eig = np.linalg.eigh(contrast @ fit.v @ contrast.T)
    keep = w_eig > 1e-10 * np.nanmax(np.abs(np.diag(fit.v)))
    rank = int(keep.sum())
    if rank == 0:
        return {"class": fit.label, "statistic": 0.0, "df": c - 1, "pvalue": 1.0,
                "note": "all models predict this class identically: statistic 0, p-value 1"}
    proj = u_eig.T @ beta
    stat = float(np.sum(proj[keep] ** 2 / w_eig[keep]))
    note = ""
    if rank < c - 1:
        note = (f"covariance singular (some models predict this class identically): "
                f"pseudo-inverse, df = {rank}")
    return {"class": fit.label, "statistic": stat, "df": rank,
            "pvalue": float(chi2_sf(stat, rank)), "note": note}


def _reference_covariance(fit: _ClassFit) -> pd.DataFrame:
    """Robust covariance of (intercept, coefficients) in reference coding."""
    c = len(fit.names)
    coding = np.zeros((c, c))
    coding[0, fit.ref] = 1.0
    for r, j in enumerate(fit.others, start=1):
        coding[r, j], coding[r, fit.ref] = 1.0, -1.0
    labels_theta = ["(intercept)", *(fit.names[j] for j in fit.others)]
    cov = coding @ np.where(np.isfinite(fit.v), fit.v, np.nan) @ coding.T
    return pd.DataFrame(cov, index=labels_theta, columns=labels_theta)


def gee_precision(
    y_true: Any,
    y_preds: Any,
    *,
    reference: str | None = None,
    groups: Any = None,
    confidence_level: float = 0.95,
    labels: Sequence[Any] | None = None,
) -> GEEPrecisionResult:
    """Compare the precision of any number of classifiers per class: GEE logistic model, closed form.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True label of each row.
    y_preds : mapping name -> predictions, DataFrame of prediction columns, 2-D array or sequence
        Each classifier's predicted label of each row (at least two classifiers).
    reference : str, optional
        The reference model (the state of the art you compare against); default the first.
    groups : array-like of shape (n,), optional
        Observation id of each row when rows repeat — stacked out-of-fold predictions of
        repeated cross-validation (Gondara's Algorithm 2): the cluster is the observation.
    confidence_level : float
        Level of the odds-ratio intervals.
    labels : sequence, optional
        The classes, in order.

    Returns
    -------
    GEEPrecisionResult
        ``.precision``, ``.coefficients`` (odds ratios against the reference with CIs),
        ``.joint`` (omnibus Wald test, df = c - 1) and ``.pairwise`` (every pair, Holm-adjusted
        within the class) DataFrames, one block per class.

    Notes
    -----
    For each class k the model (Gondara's Algorithm 1) is ``logit Pr(D = 1 | model j,
    predicted k) = alpha + beta_j`` on the rows each model predicts as k, with observations as
    clusters, independence working correlation and the robust sandwich covariance. It is
    saturated, so ``alpha = logit P_ref`` and ``beta_j = logit P_j - logit P_ref``; the
    sandwich has the closed form of docs/methods.md §7 in the per-observation counts::

        A = diag(M_j P_j Q_j),  B_jl = sum_i (a_ij - P_j m_ij)(a_il - P_l m_il),  V = A^-1 B A^-1

    (``m_ij`` rows of observation i that model j predicts as k, ``a_ij`` of them correct), so
    nothing is fitted and the result equals statsmodels ``GEE`` (Binomial, Independence) and
    geepack ``geeglm`` to rounding. Joint test ``W = beta' V_beta^-1 beta ~ chi2(c - 1)``
    (a pseudo-inverse with reduced df when models coincide); pairwise
    ``(eta_j - eta_l)^2 / (V_jj + V_ll - 2 V_jl) ~ chi2(1)``. Identical repeats of every row
    (the same folds reused) leave every statistic unchanged.

    An odds ratio of 1.5 means the model's positive predictions have 1.5 times the odds of
    being correct of the reference's — precision odds, not "50 % higher chances of detecting"
    the class (that would be recall). A model with precision 0 or 1 for a class has an
    infinite logit: its rows are NaN with a note.

    References
    ----------
    Liang & Zeger (1986), Biometrika 73:13-22. Leisenring, Alonzo & Pepe (2000).
    Gondara (2016), "Classifier comparison using precision", Algorithms 1-2, Tables 8-9.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 4000)
    >>> preds = {name: np.where(rng.random(4000) < acc, y, 1 - y)
    ...          for name, acc in [("ref", 0.80), ("same", 0.80), ("better", 0.88)]}
    >>> res = gee_precision(y, preds)
    >>> res.joint.round(4)[["class", "df", "pvalue"]]
       class  df  pvalue
    0      0   2     0.0
    1      1   2     0.0
    >>> res.coefficients.query("`class` == 1")[["model", "odds_ratio", "ci_low", "ci_high"]].round(2)
        model  odds_ratio  ci_low  ci_high
    2    same        1.00    0.87     1.14
    3  better        1.83    1.57     2.14

    For class 1, the positive predictions of "better" have 1.8 times the odds of being right
    of the reference's; "same" is indistinguishable from it.
    """
    mapping = as_prediction_mapping(y_preds)
    if len(mapping) < 2:
        raise ValueError(f"y_preds must hold at least 2 classifiers; got {len(mapping)}")
    moments = precision_moments(y_true, mapping, groups=groups, labels=labels)
    return gee_precision_from_counts(moments, reference=reference,
                                     confidence_level=confidence_level)


def _moment_square(mo: PrecisionMoments, i: int, j: int, coef: tuple) -> np.ndarray:
    """Return ``sum_i L_i^2`` per class for ``L_i = al1 a_i1 + be1 w_i1 + al2 a_i2 + be2 w_i2``.

    ``a_ij`` (``w_ij``) counts the rows of cluster i that classifier j predicts as the class
    rightly (wrongly); every coefficient is an array over classes.
    """
    al1, be1, al2, be2 = coef
    cc, ww, cw = (x.astype(float) for x in (mo.cc, mo.ww, mo.cw))
    return (al1**2 * cc[:, i, i] + be1**2 * ww[:, i, i] + al2**2 * cc[:, j, j]
            + be2**2 * ww[:, j, j] + 2 * al1 * be1 * cw[:, i, i] + 2 * al2 * be2 * cw[:, j, j]
            + 2 * al1 * al2 * cc[:, i, j] + 2 * be1 * be2 * ww[:, i, j]
            + 2 * al1 * be2 * cw[:, i, j] + 2 * be1 * al2 * cw[:, j, i])


def _chi2_or_degenerate(num: np.ndarray, var: np.ndarray, scale: np.ndarray):
    """num^2/var with chi2(1) p-values; a variance at rounding level of its scale gives 0, 1."""
    zero = ~(var > _ZERO_TOL * np.where(scale > 0, scale, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(zero, 0.0, num**2 / np.where(zero, 1.0, var))
    return stat, chi2_sf(stat, 1), zero


def _check_pair(moments: Any, a: Any, b: Any) -> None:
    """Check that ``a`` and ``b`` are two positions of classifiers in ``moments.names``."""
    if not isinstance(moments, PrecisionMoments):
        raise TypeError(f"moments must be PrecisionMoments; got {type(moments).__name__}")
    n_models = len(moments.names)
    for name, j in (("a", a), ("b", b)):
        check_positive_int(j, name, minimum=0)
        if j >= n_models:
            raise ValueError(f"{name} must be the position of a classifier in moments.names "
                             f"(0 to {n_models - 1}); got {j}")
    if a == b:
        raise ValueError(f"a and b must be two different classifiers; got a = b = {a}")


def _moment_notes(m1: np.ndarray, m2: np.ndarray, identical: np.ndarray, logit_ok: np.ndarray,
                  rp_ok: np.ndarray) -> list[str]:
    """Write one plain-language note per class of the clustered table: why a test is missing."""
    notes = []
    for k in range(len(m1)):
        if m1[k] == 0 or m2[k] == 0:
            never = " and ".join(n for n, m in (("A", m1[k]), ("B", m2[k])) if m == 0)
            notes.append(f"never predicted by {never}: precision undefined, no test")
            continue
        parts = []
        if identical[k]:
            parts.append("A and B predict this class alike: statistics 0, p-values 1")
        if not logit_ok[k]:
            parts.append("a precision is 0 or 1: logit infinite, no GEE Wald test")
        if not rp_ok[k]:
            parts.append("a precision is 0: relative precision undefined")
        if min(m1[k], m2[k]) < _SMALL_M:
            parts.append(f"only {int(min(m1[k], m2[k]))} positive predictions by one "
                         "classifier: p-values unreliable")
        notes.append("; ".join(parts))
    return notes


def compare_precision_from_moments(
    moments: PrecisionMoments,
    *,
    a: int = 0,
    b: int = 1,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Per-class precision comparison of two classifiers, clustered on the observation.

    The four tests of :func:`compare_precision` (GS, weighted GS, GEE Wald, relative
    precision) written as sums over clusters, for predictions that repeat observations
    (repeated cross-validation; the cluster is the observation).

    Parameters
    ----------
    moments : PrecisionMoments
        From :func:`precmp_lib.core.counts.moments_from_patterns` (with ``clusters``) or
        :func:`precmp_lib.core.counts.precision_moments` (with ``groups``).
    a, b : int
        Positions of classifiers A and B in ``moments.names``.
    confidence_level : float
        Level of the RP intervals.

    Returns
    -------
    DataFrame
        One row per class, columns as :func:`compare_precision`.

    Notes
    -----
    Let ``a_ij`` (``w_ij``) be the rows of observation i that classifier j predicts as the
    class with the truth being (not being) the class. Each statistic is a squared estimate
    over the robust variance ``sum_i L_i^2`` of its per-cluster influence ``L_i``:

    * GS (docs/methods.md §6.2, Gondara, eq. 9 with clusters): ``U = TP_B (1 - Z) - TP_A Z``, ``Z =
      M_B / (M_A + M_B)``, ``L_i = sum over the cluster's positive rows of (D - P)(Z_r - Z)``;
    * weighted GS: ``(P_A - P_B)^2 / [P Q (sum m_iA^2/M_A^2 + sum m_iB^2/M_B^2)
      - 2 sum m_iA m_iB (D_i - P)^2 / (M_A M_B)]``, ``P`` the pooled precision;
    * GEE Wald on the logit scale: ``L_i = (a_iA Q_A - w_iA P_A)/(M_A P_A Q_A) - (same for
      B)`` (docs/methods.md §7, Algorithm 2);
    * RP: ``log P_A - log P_B`` with ``L_i = (a_iA Q_A - w_iA P_A)/TP_A - (same for B)``.

    Without repetitions (clusters of one row) these are exactly the closed forms of
    :func:`compare_precision_from_counts` (Kosinski's GS and WGS, the empirical Wald and
    Moskowitz & Pepe's variance); with repeated rows, the clusters carry the dependence.

    References
    ----------
    Leisenring, Alonzo & Pepe (2000), Biometrics 56:345-351. Kosinski (2013), Stat Med
    32:964-977. Moskowitz & Pepe (2006), Clin Trials 3:272-279. Gondara (2016), Algorithm 2.

    Examples
    --------
    >>> from precmp_lib.core.counts import moments_from_patterns
    >>> mo = moments_from_patterns([1, 1, 0, 1], [[1, 1], [1, 0], [1, 0], [0, 1]], [5, 3, 2, 1],
    ...                            classes=[0, 1], names=["a", "b"])
    >>> compare_precision_from_moments(mo)[["class", "precision_a", "precision_b"]].round(3)
       class  precision_a  precision_b
    0      0          0.0          0.4
    1      1          0.8          1.0

    Classifier A predicts class 1 ten times, eight of them rightly; B predicts it six times,
    all rightly.
    """
    _check_pair(moments, a, b)
    level = check_probability(confidence_level, "confidence_level")
    z = float(norm_isf((1 - level) / 2))
    tp1, tp2 = (moments.n_correct[:, j].astype(float) for j in (a, b))
    fp1, fp2 = (moments.n_wrong[:, j].astype(float) for j in (a, b))
    m1, m2 = tp1 + fp1, tp2 + fp2
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = tp1 / m1, tp2 / m2
        q1, q2 = 1 - p1, 1 - p2
        pbar = (tp1 + tp2) / (m1 + m2)
        qbar = 1 - pbar
        zb = m2 / (m1 + m2)
        # generalized score
        u = tp2 * (1 - zb) - tp1 * zb
        v_gs = _moment_square(moments, a, b, (-qbar * zb, pbar * zb, qbar * (1 - zb),
                                              -pbar * (1 - zb)))
        # weighted generalized score: pooled-precision variance of P_A - P_B
        sq1 = _moment_square(moments, a, b, (1 / m1, 1 / m1, 0 * m1, 0 * m1))
        sq2 = _moment_square(moments, a, b, (0 * m1, 0 * m1, 1 / m2, 1 / m2))
        cross = (qbar**2 * moments.cc[:, a, b] + pbar**2 * moments.ww[:, a, b]) / (m1 * m2)
        v_wgs = pbar * qbar * (sq1 + sq2) - 2 * cross
        # GEE Wald, logit scale
        eta = np.log(tp1 * fp2 / (fp1 * tp2))
        v_gw = _moment_square(moments, a, b, (1 / tp1, -1 / fp1, -1 / tp2, 1 / fp2))
        # relative precision, log scale
        log_rp = np.log(p1 / p2)
        v_rp = _moment_square(moments, a, b, (q1 / tp1, -1 / m1, -q2 / tp2, 1 / m2))
    defined = (m1 > 0) & (m2 > 0)
    gs_stat, gs_p, gs_zero = _chi2_or_degenerate(u, v_gs, (m1 + m2) ** 2 / 4)
    wgs_stat, wgs_p, _ = _chi2_or_degenerate(p1 - p2, v_wgs, pbar * qbar * (sq1 + sq2))
    logit_ok = defined & (tp1 > 0) & (fp1 > 0) & (tp2 > 0) & (fp2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gw_scale = np.where(logit_ok, 1 / tp1 + 1 / fp1, 1.0)
    gw_stat, gw_p, _ = _chi2_or_degenerate(np.where(logit_ok, eta, 0.0), v_gw, gw_scale)
    rp_ok = defined & (tp1 > 0) & (tp2 > 0)
    se = np.sqrt(np.clip(v_rp, 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        rp_z = np.where(se > 0, log_rp / se, 0.0)
    identical = defined & gs_zero & (p1 == p2)
    notes = _moment_notes(m1, m2, identical, logit_ok, rp_ok)
    nan = np.nan
    out = pd.DataFrame({
        "class": [python_value(c) for c in moments.classes],
        "precision_a": np.where(m1 > 0, p1, nan),
        "precision_b": np.where(m2 > 0, p2, nan),
        "n_pred_a": m1.astype(np.int64),
        "n_pred_b": m2.astype(np.int64),
        "gs_statistic": np.where(defined, gs_stat, nan),
        "gs_pvalue": np.where(defined, gs_p, nan),
        "wgs_statistic": np.where(defined, wgs_stat, nan),
        "wgs_pvalue": np.where(defined, wgs_p, nan),
        "gw_statistic": np.where(logit_ok, gw_stat, nan),
        "gw_pvalue": np.where(logit_ok, gw_p, nan),
        "rp": np.where(rp_ok, np.exp(log_rp), nan),
        "rp_ci_low": np.where(rp_ok, np.exp(log_rp - z * se), nan),
        "rp_ci_high": np.where(rp_ok, np.exp(log_rp + z * se), nan),
        "rp_pvalue": np.where(rp_ok, 2 * norm_sf(np.abs(rp_z)), nan),
        "note": notes,
    })
    return out[_COMPARE_COLUMNS]
