"""The replicability experiment: a precision comparison repeated over sample sizes and test sets.

Gondara's §4 and Figure 3, after Bouckaert (2004): :func:`replicability_experiment` draws
subsamples of one data set, splits each at random, fits two scikit-learn classifiers on the
training part and tests equal precision of one class on the test part with the GS test, over a
grid of sample fractions and test-set proportions. Each cell of the grid reports R(e)
(:func:`precmp_lib.replicability`) and R(p) of its decisions with the rejection rate. The
statistics come from :mod:`precmp_lib.stats.replicability` and
:mod:`precmp_lib.stats.precision_cells`; only the fits live here.
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
from ..stats.precision_cells import gs_from_cells
from ..stats.replicability import replicability

__all__ = ["replicability_experiment"]


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
    accepted = np.where(valid, pvalues > alpha, False)
    agreement = [replicability(a[v]) if n >= 2 else np.nan
                 for a, v, n in zip(accepted, valid, n_valid)]
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
        "rejection_rate": np.where(n_valid > 0, (n_valid - accepted.sum(axis=1))
                                   / np.maximum(n_valid, 1), np.nan),
        "replicability": agreement,
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
    R(e) per cell from the decisions (:func:`precmp_lib.replicability`). Only the model fits
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
