"""Bouckaert's replicability R(e) and the replicability experiment (Gondara §4, Figure 3).

A test is *replicable* when the same experiment, repeated on other random partitions of the
same data, reaches the same decision. Bouckaert (2004) measures it by the share of pairs of
repetitions whose decisions agree. :func:`replicability_experiment` repeats a precision
comparison over a grid of sample sizes and test-set proportions and reports R(e) with the
rejection rate for each cell of the grid.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.checks import check_positive_int, check_probability
from ..core.labels import as_label_array
from .precision_cells import gs_from_cells

__all__ = [
    "precision_cells",
    "replicability",
    "replicability_experiment",
    "replicability_pvalues",
]


def _agreement(accepted: npt.ArrayLike, n: npt.ArrayLike) -> np.ndarray:
    """R(e) from the number accepted ``p`` out of ``n`` (elementwise; NaN where n < 2)."""
    p = np.asarray(accepted, dtype=float)
    total = np.asarray(n, dtype=float)
    q = total - p
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (p * (p - 1) + q * (q - 1)) / (total * (total - 1))
    return np.where(total >= 2, r, np.nan)


def _as_sample(values: Any, name: str) -> np.ndarray:
    if isinstance(values, pd.Series | pd.Index):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.size < 2:
        raise ValueError(
            f"{name} must hold at least 2 repetitions (R is a share of pairs); got {arr.size}"
        )
    return arr


def replicability(outcomes: npt.ArrayLike) -> float:
    """Bouckaert's replicability R(e): the share of pairs of repetitions that agree.

    Parameters
    ----------
    outcomes : array-like of shape (n,), n >= 2
        The decision of each repetition of an experiment (same algorithms, same data, another
        random partition or seed): 1 (or True) where H0 was accepted, 0 (or False) where it
        was rejected.

    Returns
    -------
    float
        R(e) in [0, 1]; 1 when every repetition decides alike.

    Raises
    ------
    ValueError
        Fewer than 2 outcomes, or outcomes other than 0/1 (booleans are accepted).

    Notes
    -----
    With ``p`` acceptances and ``q`` rejections among ``n = p + q`` repetitions
    (Bouckaert 2004; docs/methods.md §10, with the brackets Gondara's eq. 30 lacks)::

        R(e) = sum_{i<j} I(e_i = e_j) / (n(n - 1)/2) = [p(p - 1) + q(q - 1)] / [n(n - 1)]

    R(e) is 1 whether all repetitions reject or all accept: read it together with the
    rejection rate ``q / n``. Its minimum for even n is ``(n/2 - 1)/(n - 1)`` (4/9 for
    n = 10), approaching 1/2 for large n. p-values close to the level make decisions flip
    from one partition to the next and lower R(e) mechanically.

    References
    ----------
    Bouckaert (2004), "Estimating replicability of classifier learning experiments", ICML.
    Demšar (2006), JMLR 7:1-30, §2 (quotes the simplified formula).
    Gondara, "Classifier comparison using precision", §4, eq 29-30.

    Examples
    --------
    Ten repetitions of a comparison, seven accepting H0 and three rejecting it
    (docs/methods.md §10):

    >>> replicability([1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    0.5333333333333333

    Only 24 of the 45 pairs of repetitions agree: the decision depends on the split, so one
    run alone should not be trusted. When all ten reject, the decision replicates perfectly:

    >>> replicability([0] * 10)
    1.0
    """
    arr = _as_sample(outcomes, "outcomes")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    try:
        num = arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError("outcomes must hold 0/1 decisions (1 = H0 accepted)") from None
    binary = (num == 0) | (num == 1)
    if not binary.all():
        bad = arr[~binary][0]
        raise ValueError(
            f"outcomes must hold only 0 and 1 (1 = H0 accepted, 0 = rejected); found {bad!r}"
        )
    return float(_agreement(num.sum(), num.size))


def replicability_pvalues(pvalues: npt.ArrayLike) -> float:
    """Demšar's replicability of p-values, ``R(p) = 1 - 2 var(p)``.

    Parameters
    ----------
    pvalues : array-like of shape (n,), n >= 2
        The p-values of the repetitions of an experiment, each in [0, 1].

    Returns
    -------
    float
        R(p); 1 when all p-values are equal.

    Notes
    -----
    ``var`` is the sample variance (ddof = 1). Unlike R(e) it does not depend on a level α,
    so it is not lowered by p-values that merely straddle α (Demšar 2006; docs/methods.md §10).

    Examples
    --------
    Five repetitions whose p-values all stay small (docs/methods.md §10):

    >>> round(replicability_pvalues([0.01, 0.04, 0.20, 0.03, 0.07]), 5)
    0.9885

    The p-values barely move, so the evidence replicates even though a fixed α = 0.05 would
    split the decisions 3 to 2.
    """
    arr = _as_sample(pvalues, "pvalues")
    try:
        num = arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError("pvalues must hold numbers in [0, 1]") from None
    bad = ~np.isfinite(num) | (num < 0) | (num > 1)
    if bad.any():
        raise ValueError(f"pvalues must lie in [0, 1]; found {arr[bad][0]!r}")
    return float(1 - 2 * np.var(num, ddof=1))


def _default_estimators(n_trees: int) -> dict[str, Any]:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB

    return {
        "naive_bayes": GaussianNB(),
        "random_forest": RandomForestClassifier(n_estimators=n_trees, n_jobs=1),
    }


def _fractions(values: Any, name: str, *, high_open: bool) -> np.ndarray:
    vals = np.atleast_1d(np.asarray(values, dtype=float))
    if vals.ndim != 1 or vals.size == 0:
        raise ValueError(f"{name} must be a non-empty sequence of fractions; got {values!r}")
    for v in vals:
        check_probability(float(v), name, high_open=high_open)
    return vals


def _grid_sizes(grid: list[tuple[float, float]], n0: int) -> list[tuple[int, int]]:
    """Rows drawn and test rows of each (sample fraction, test fraction) out of ``n0``."""
    sizes = []
    for f, t in grid:
        n_sample = round(f * n0)
        n_test = round(t * n_sample)
        if n_test < 1 or n_sample - n_test < 2:
            raise ValueError(
                f"sample_fraction {f} with test_fraction {t} leaves {n_sample - n_test} training "
                f"and {n_test} test rows of {n0}; choose larger fractions"
            )
        sizes.append((n_sample, n_test))
    return sizes


def _fit_cells(
    X_arr: np.ndarray,
    labels: np.ndarray,
    is_positive: Callable[[np.ndarray], np.ndarray],
    models: dict[str, Any],
    pool: np.ndarray,
    sizes: list[tuple[int, int]],
    n_repeats: int,
    rng: np.random.Generator,
    progress: bool,
) -> np.ndarray:
    """Fit both models on every repetition of every cell; the 2 x 2 x 2 table of each."""
    from sklearn.base import clone
    from tqdm.auto import tqdm

    is_pos = is_positive(labels)
    cells = np.zeros((len(sizes), n_repeats, 2, 2, 2), dtype=np.int64)
    bar = tqdm(total=len(sizes) * n_repeats, desc="fits", disable=not progress, leave=False)
    for g, (n_sample, n_test) in enumerate(sizes):
        for r in range(n_repeats):
            rows = rng.choice(pool, size=n_sample, replace=False)  # a random subsample, shuffled
            test, train = rows[:n_test], rows[n_test:]
            seed = int(rng.integers(2**31 - 1))
            hits = []
            for est in models.values():
                model = clone(est)
                if "random_state" in model.get_params():
                    model.set_params(random_state=seed)
                pred = model.fit(X_arr[train], labels[train]).predict(X_arr[test])
                hits.append(is_positive(pred))
            # the 2 x 2 x 2 table n[d][a][b] of this repetition, one bincount
            code = 4 * is_pos[test].astype(np.int64) + 2 * hits[0] + hits[1]
            cells[g, r] = np.bincount(code, minlength=8).reshape(2, 2, 2)
            bar.update(1)
    bar.close()
    return cells


def _experiment_frame(
    cells: np.ndarray,
    grid: list[tuple[float, float]],
    sizes: list[tuple[int, int]],
    n_repeats: int,
    alpha: float,
) -> pd.DataFrame:
    """One row per cell of the grid: the GS decisions' R(e), R(p), rates and medians."""
    pvalues = np.asarray(gs_from_cells(cells).pvalue, dtype=float).reshape(len(grid), n_repeats)
    valid = ~np.isnan(pvalues)
    n_valid = valid.sum(axis=1)
    accepted = np.where(valid, pvalues > alpha, False).sum(axis=1)
    tp = cells[..., 1, :, :]
    m_a = cells[..., :, 1, :].sum(axis=(-2, -1))
    m_b = cells[..., :, :, 1].sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN cells give NaN, as documented
        prec_a = np.where(m_a > 0, tp[..., 1, :].sum(axis=-1) / m_a, np.nan)
        prec_b = np.where(m_b > 0, tp[..., :, 1].sum(axis=-1) / m_b, np.nan)
        rep_p = np.where(n_valid >= 2, 1 - 2 * np.nanvar(pvalues, axis=1, ddof=1), np.nan)
        medians = [np.nanmedian(a, axis=1) for a in (pvalues, prec_a, prec_b)]
    frame = pd.DataFrame({
        "sample_fraction": [f for f, _ in grid],
        "test_fraction": [t for _, t in grid],
        "n_sample": [s for s, _ in sizes],
        "n_test": [t for _, t in sizes],
        "n_repeats": n_repeats,
        "n_valid": n_valid,
        "rejection_rate": np.where(n_valid > 0, (n_valid - accepted) / np.maximum(n_valid, 1), np.nan),
        "replicability": _agreement(accepted, n_valid),
        "replicability_p": rep_p,
        "median_pvalue": medians[0],
        "median_precision_a": medians[1],
        "median_precision_b": medians[2],
    })
    return frame


def replicability_experiment(
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    positive: Any,
    sample_fractions: Sequence[float] = (1.0, 0.6, 0.2),
    test_fractions: Sequence[float] = (0.5, 0.3, 0.1),
    n_repeats: int = 20,
    alpha: float = 0.05,
    n_initial: int | None = None,
    estimators: Mapping[str, Any] | None = None,
    n_trees: int = 25,
    random_state: int = 0,
    progress: bool = True,
) -> pd.DataFrame:
    """Replicability of the GS precision test over sample sizes and test-set proportions.

    For every pair (sample fraction f, test fraction t) and every repetition: draw ``f`` of
    the initial sample without replacement, split it at random into a training set and a test
    set of proportion ``t``, fit both estimators on the training set, and test equal precision
    of class ``positive`` on the test set with the generalized score (GS) test. Each cell of
    the grid reports R(e) of the decisions at level ``alpha`` and the rejection rate.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n, p)
        Features.
    y : array-like of shape (n,)
        Class labels.
    positive : label
        The class whose precision is compared (Gondara: class "0" of Diabetic Retinopathy).
    sample_fractions : sequence of float in (0, 1]
        Fractions of the initial sample used in each repetition.
    test_fractions : sequence of float in (0, 1)
        Proportions of the subsample held out as the test set.
    n_repeats : int
        Repetitions per cell (at least 2). Gondara does not state it; docs/methods.md §10
        suggests 100 for the paper-scale run.
    alpha : float
        Level of the decisions whose replicability is measured.
    n_initial : int, optional
        Draw this many rows once (without replacement) as the initial sample (Gondara: 600).
        By default all rows.
    estimators : mapping name -> scikit-learn estimator, optional
        Exactly two classifiers, A and B. Default: Gaussian naive Bayes and a random forest of
        ``n_trees`` trees, the paper's pair. Each fit gets a fresh clone with its own
        ``random_state`` where the estimator has one.
    n_trees : int
        Trees of the default random forest.
    random_state : int
        Seed of every draw, split and estimator seed; the result is a function of it.
    progress : bool
        Show a progress bar over the fits.

    Returns
    -------
    DataFrame, one row per cell of the grid, with columns
        ``sample_fraction``, ``test_fraction``, ``n_sample`` (rows drawn), ``n_test`` (test
        rows), ``n_repeats``, ``n_valid`` (repetitions where both classifiers predicted the
        class at least once, so that the test exists), ``rejection_rate`` (share of valid
        repetitions rejecting H0 at ``alpha``), ``replicability`` (R(e) over the valid
        repetitions; NaN with fewer than 2), ``replicability_p`` (R(p), Demšar's version on
        p-values), ``median_pvalue``, ``median_precision_a``, ``median_precision_b``.

    Notes
    -----
    Each repetition is reduced to its 2 x 2 x 2 table of counts ``n[d][a][b]`` (truth is
    ``positive``, A predicts it, B predicts it); the GS statistics of all repetitions of all
    cells come from one vectorised call of :func:`precmp_lib.stats.precision_cells.gs_from_cells`, and
    R(e) per cell from the counts of acceptances (:func:`replicability`). Only the model fits
    loop. Repetitions where a classifier never predicts ``positive`` have no precision to
    compare; they are left out of R(e) and counted in ``n_repeats - n_valid``.

    References
    ----------
    Bouckaert (2004), ICML. Gondara, "Classifier comparison using precision", §4, Figure 3.

    Examples
    --------
    Naive Bayes against a small forest on the breast cancer data, class 0 (malignant):

    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> res = replicability_experiment(X, y, positive=0, sample_fractions=[1.0, 0.3],
    ...                                test_fractions=[0.3], n_repeats=5, n_trees=10,
    ...                                progress=False)
    >>> res[["sample_fraction", "n_test", "n_valid"]].to_numpy().tolist()
    [[1.0, 171.0, 5.0], [0.3, 51.0, 5.0]]
    >>> bool(res["replicability"].between(0, 1).all())
    True

    Each row says how often five repetitions on other splits agree about whether the two
    classifiers differ in precision for malignant tumours.
    """
    n_repeats = check_positive_int(n_repeats, "n_repeats", minimum=2)
    alpha = check_probability(alpha, "alpha")
    n_trees = check_positive_int(n_trees, "n_trees")
    fs = _fractions(sample_fractions, "sample_fractions", high_open=False)
    ts = _fractions(test_fractions, "test_fractions", high_open=True)
    labels = as_label_array(y, "y")
    X_arr = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
    if X_arr.ndim != 2 or len(X_arr) != len(labels):
        raise ValueError(
            f"X must be a 2-D array with one row per label ({len(labels)}); got shape {X_arr.shape}"
        )
    by_text = not np.any(labels == positive)  # compare as text when 0 is given as "0"

    def is_positive(values: np.ndarray) -> np.ndarray:
        return values.astype(str) == str(positive) if by_text else values == positive

    is_pos = is_positive(labels)
    if not is_pos.any():
        shown = ", ".join(map(str, pd.unique(labels)[:10]))
        raise ValueError(f"positive={positive!r} is not among the labels of y ({shown})")
    models = dict(estimators) if estimators is not None else _default_estimators(n_trees)
    if len(models) != 2:
        raise ValueError(f"estimators must hold exactly two classifiers; got {len(models)}")
    rng = np.random.default_rng(random_state)
    pool = np.arange(len(labels))
    if n_initial is not None:
        n_initial = check_positive_int(n_initial, "n_initial", minimum=4)
        if n_initial > len(labels):
            raise ValueError(f"n_initial must be at most the number of rows ({len(labels)}); got {n_initial}")
        pool = rng.choice(pool, size=n_initial, replace=False)
    grid = [(f, t) for f in fs for t in ts]
    sizes = _grid_sizes(grid, len(pool))
    cells = _fit_cells(X_arr, labels, is_positive, models, pool, sizes, n_repeats, rng, progress)
    frame = _experiment_frame(cells, grid, sizes, n_repeats, alpha)
    frame.attrs["models"] = list(models)
    frame.attrs["positive"] = positive
    frame.attrs["alpha"] = alpha
    return frame


def precision_cells(y_true: Any, y_pred_a: Any, y_pred_b: Any, *, positive: Any) -> np.ndarray:
    """Count the 2 x 2 x 2 table ``n[truly positive][A predicts it][B predicts it]`` of one class.

    The counts every paired precision test of class ``positive`` is a function of
    (docs/methods.md §6.1); :func:`precmp_lib.course.widgets.course.replicability_size_state` draws new test
    sets from them.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like
        Labels (ints or strings) of the same observations.
    positive : label
        The class; matched as text when the labels are text and ``positive`` is not (``0`` and
        ``"0"``). A class none of the three arrays holds is a ValueError.

    Returns
    -------
    ndarray of int64, shape (2, 2, 2)

    Examples
    --------
    >>> precision_cells(["a", "b", "a", "b"], ["a", "a", "a", "b"], ["a", "b", "b", "b"],
    ...                 positive="a").tolist()
    [[[1, 0], [1, 0]], [[0, 0], [1, 1]]]

    One observation of class "a" is predicted "a" by both, one only by A; the only false alarm
    is A's.
    """
    y = as_label_array(y_true, "y_true")
    a = as_label_array(y_pred_a, "y_pred_a")
    b = as_label_array(y_pred_b, "y_pred_b")
    if not len(y) == len(a) == len(b):
        raise ValueError(
            f"y_true, y_pred_a and y_pred_b must have the same length; got {len(y)}, {len(a)}, {len(b)}"
        )
    by_text = not (np.any(y == positive) or np.any(a == positive) or np.any(b == positive))

    def hit(values: np.ndarray) -> np.ndarray:
        return (values.astype(str) == str(positive)) if by_text else (values == positive)

    hits = [hit(v) for v in (y, a, b)]
    if not any(h.any() for h in hits):
        raise ValueError(f"positive={positive!r} is not among the labels of y_true, y_pred_a "
                         "and y_pred_b")
    code = 4 * hits[0].astype(np.int64) + 2 * hits[1] + hits[2]
    return np.bincount(code, minlength=8).reshape(2, 2, 2)
