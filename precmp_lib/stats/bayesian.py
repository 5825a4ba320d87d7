"""Bayesian comparison of two classifiers: on one data set by cross-validation, or over many data sets.

A p-value answers "how surprising are these scores if the classifiers were equal?". The Bayesian
tests here answer the question an analyst usually asks: **how probable is it that A is better,
that B is better, or that they are practically equivalent?** Practical equivalence is a region of
practical equivalence (ROPE), the interval ``[-rope, rope]`` of score differences too small to
matter (for example one percentage point of accuracy, ``rope=0.01``).

- :func:`bayes_correlated_ttest`: the scores of A and B on the folds of one (repeated)
  cross-validation. The posterior of the mean difference is a Student t whose scale carries the
  Nadeau–Bengio correlation of overlapping training sets (Corani & Benavoli 2015). Closed form.
- :func:`bayes_sign_test` and :func:`bayes_signed_rank_test`: the mean scores of A and B on N data
  sets. Posteriors of a Dirichlet (process) model, sampled by Monte Carlo (Benavoli et al. 2014,
  2017).

**Direction.** A is the first argument, and scores are "higher is better" (accuracy, AUC). Every
difference is **A minus B**: ``p_a_better`` is the posterior probability that A's score exceeds B's
by more than ``rope``. To compare error rates, pass them negated or swap the arguments.

The defaults (prior strength and place, number of samples) are those of the baycomp package
(version 1.0.3), whose ``(p_left, p_rope, p_right)`` for ``(x, y)`` equal our ``(p_a_better,
p_rope, p_b_better)`` for ``(a, b) = (x, y)``: baycomp takes differences ``y - x`` and calls the
region ``y - x < -rope`` "left", which is where the first classifier is better. Nothing here needs a
compiler or Stan; the signed-rank posterior is sampled with a vectorised quadratic form.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.aliases import RandomStateLike
from .._lib.checks import (
    as_paired_scores,
    check_choice,
    check_positive_float,
    check_positive_int,
    check_random_state,
)
from .._lib.dist import stats, t_cdf, t_ppf, t_sf

__all__ = [
    "PRIOR_PLACES",
    "BayesianComparison",
    "StudentPosterior",
    "bayes_correlated_ttest",
    "bayes_sign_test",
    "bayes_signed_rank_test",
]

PRIOR_PLACES = ("rope", "a_better", "b_better")
_COLUMNS = {"a_better": 0, "rope": 1, "b_better": 2}
# Added to every Dirichlet parameter of the sign test so that an empty region still has a
# proper (if tiny) parameter; the value baycomp uses.
_DIRICHLET_FLOOR = 1e-4
# Spread of the differences below this fraction of the scores' magnitude counts as zero.
_RTOL = 1e-12
# Weights times pseudo-observations per block of the signed-rank quadratic form (memory bound).
_BLOCK_ELEMENTS = 1 << 22


def _float_or_array(values: Any) -> float | np.ndarray:
    arr = np.asarray(values, dtype=float)
    return float(arr) if arr.ndim == 0 else arr


@dataclass(frozen=True)
class StudentPosterior:
    """A location-scale Student t: the posterior of the mean score difference (A minus B).

    Attributes
    ----------
    df : float
        Degrees of freedom (number of folds minus one).
    loc : float
        Location: the mean difference of the scores.
    scale : float
        Scale: ``sqrt((1/n + n_test/n_train) · S²)``; 0 when every difference is the same
        (the posterior is then a point mass at ``loc``).

    Examples
    --------
    >>> post = StudentPosterior(df=9, loc=0.02, scale=0.01)
    >>> round(post.sf(0.0), 4)  # posterior probability that A is better
    0.9617
    """

    df: float
    loc: float
    scale: float

    def _dist(self) -> Any:
        return stats.t(self.df, loc=self.loc, scale=self.scale)

    def _standard(self, x: npt.ArrayLike) -> Any:
        # the standardised value, computed as scipy.stats does, so tails equal its bits
        return np.asarray((np.asarray(x) - self.loc) / self.scale, dtype=float)

    def cdf(self, x: npt.ArrayLike) -> float | np.ndarray:
        """Posterior probability that the mean difference is at most ``x``.

        Parameters
        ----------
        x : float or array-like
            Values of the mean difference (A minus B).

        Returns
        -------
        float or ndarray
            P(difference <= x); a float for a scalar ``x``, else an array of its shape.
        """
        if self.scale == 0:
            return _float_or_array(np.where(np.asarray(x) >= self.loc, 1.0, 0.0))
        return _float_or_array(t_cdf(self._standard(x), self.df))

    def sf(self, x: npt.ArrayLike) -> float | np.ndarray:
        """Posterior probability that the mean difference exceeds ``x``.

        Parameters
        ----------
        x : float or array-like
            Values of the mean difference (A minus B).

        Returns
        -------
        float or ndarray
            P(difference > x), from the survival function (no ``1 - cdf`` cancellation); a
            float for a scalar ``x``, else an array of its shape.
        """
        if self.scale == 0:
            return _float_or_array(np.where(np.asarray(x) < self.loc, 1.0, 0.0))
        return _float_or_array(t_sf(self._standard(x), self.df))

    def pdf(self, x: npt.ArrayLike) -> float | np.ndarray:
        """Posterior density of the mean difference.

        Parameters
        ----------
        x : float or array-like
            Values of the mean difference (A minus B).

        Returns
        -------
        float or ndarray
            The density at ``x`` (undefined, NaN, for a point mass); a float for a scalar
            ``x``, else an array of its shape.
        """
        if self.scale == 0:
            return _float_or_array(np.full(np.shape(x), np.nan))
        return _float_or_array(self._dist().pdf(x))

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Central credible interval of the mean difference.

        Parameters
        ----------
        level : float
            Posterior probability the interval holds, in (0, 1).

        Returns
        -------
        tuple of float
            ``(low, high)``; both equal the location for a point mass.
        """
        if self.scale == 0:
            return (self.loc, self.loc)
        # as scipy.stats' interval: the quantiles at (1 - level) / 2 and (1 + level) / 2
        low, high = (t_ppf(q, self.df) * self.scale + self.loc
                     for q in ((1.0 - level) / 2, (1.0 + level) / 2))
        return float(low), float(high)

    def sample(self, size: int, random_state: RandomStateLike = None) -> np.ndarray:
        """Draw from the posterior of the mean difference.

        Parameters
        ----------
        size : int
            Number of draws.
        random_state : int, Generator or None
            Seed of the draws.

        Returns
        -------
        ndarray of shape (size,)
            The draws (all equal to the location for a point mass).
        """
        rng = check_random_state(random_state)
        if self.scale == 0:
            return np.full(size, self.loc)
        return self.loc + self.scale * rng.standard_t(self.df, size)


@dataclass(frozen=True)
class BayesianComparison:
    """Posterior probabilities that A is better, that A and B are equivalent, that B is better.

    Unpacks as ``p_a_better, p_rope, p_b_better`` (always three numbers; ``p_rope`` is 0 when
    ``rope`` is 0).

    Attributes
    ----------
    p_a_better : float
        Posterior probability that A's score exceeds B's by more than ``rope``.
    p_rope : float
        Posterior probability that the difference lies within ``[-rope, rope]``.
    p_b_better : float
        Posterior probability that B's score exceeds A's by more than ``rope``.
    rope : float
        Half-width of the region of practical equivalence, in score units.
    method : str
        The test that produced the result.
    n : int
        Number of paired scores (folds, or data sets).
    posterior : StudentPosterior or None
        The closed-form posterior of the mean difference (correlated t-test), else None.
    sample : ndarray of shape (n_samples, 3) or None
        Monte Carlo sample of the simplex ``(θ_a_better, θ_rope, θ_b_better)`` (sign and
        signed-rank tests), else None. Read-only.
    degenerate : bool
        True when every difference is the same, so the data carry no information on spread.
    note : str
        Why a result is degenerate, or a caveat.
    details : Mapping
        Test-specific numbers: counts per region, prior, the posterior's parameters.
    """

    p_a_better: float
    p_rope: float
    p_b_better: float
    rope: float
    method: str
    n: int
    posterior: StudentPosterior | None = None
    sample: np.ndarray | None = field(default=None, repr=False, compare=False)
    degenerate: bool = False
    note: str = ""
    details: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("p_a_better", "p_rope", "p_b_better"):
            value = float(getattr(self, name))
            if not (math.isnan(value) or -1e-12 <= value <= 1 + 1e-12):
                raise ValueError(f"{name} must lie in [0, 1]; got {value!r}")
            object.__setattr__(self, name, min(1.0, max(0.0, value)))
        if self.sample is not None:
            arr = np.array(self.sample, dtype=float)
            arr.setflags(write=False)
            object.__setattr__(self, "sample", arr)
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    def __iter__(self) -> Iterator[float]:
        yield from self.probabilities()

    def __len__(self) -> int:
        return 3

    def probabilities(self) -> tuple[float, float, float]:
        """Return the three probabilities ``(p_a_better, p_rope, p_b_better)``."""
        return (self.p_a_better, self.p_rope, self.p_b_better)

    def decision(self, threshold: float = 0.95, names: tuple[str, str] = ("A", "B")) -> str:
        """Give a plain-language verdict: the region whose probability reaches ``threshold``.

        Parameters
        ----------
        threshold : float
            Posterior probability a region needs for a verdict.
        names : pair of str
            How to call A and B in the sentence.

        Returns
        -------
        str
            ``"A is better"``, ``"B is better"``, ``"A and B are practically equivalent"``, or
            ``"undecided: ..."`` when no region reaches ``threshold``.

        Examples
        --------
        >>> BayesianComparison(0.97, 0.02, 0.01, rope=0.01, method="m", n=10).decision()
        'A is better'
        """
        a, b = names
        verdicts = {"p_a_better": f"{a} is better", "p_b_better": f"{b} is better",
                    "p_rope": f"{a} and {b} are practically equivalent"}
        for key, text in verdicts.items():
            if getattr(self, key) >= threshold:
                return text
        return f"undecided: no region reaches probability {threshold:g}"

    def to_dict(self) -> dict[str, Any]:
        """Return probabilities, rope, method, n, degenerate, note and details as a flat dict."""
        skip = {"posterior", "sample", "details"}
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        for key, value in self.details.items():
            out.setdefault(key, value)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return a one-row DataFrame of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])

    def __str__(self) -> str:
        text = (f"{self.method}: P(A better) = {self.p_a_better:.4f}, P(rope) = {self.p_rope:.4f}, "
                f"P(B better) = {self.p_b_better:.4f} (rope = {self.rope:g}, n = {self.n})")
        return text + (f"\n  note: {self.note}" if self.note else "")

    def _repr_html_(self) -> str:
        rows = [("P(A better)", self.p_a_better), ("P(practically equivalent)", self.p_rope),
                ("P(B better)", self.p_b_better), ("rope", self.rope), ("n", self.n)]
        body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                       f"<td style='text-align:right'>{v:.4g}</td></tr>" for k, v in rows)
        note = f"<p><em>{html.escape(self.note)}</em></p>" if self.note else ""
        return f"<div><strong>{html.escape(self.method)}</strong><table>{body}</table>{note}</div>"


# --------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------


def _paired(x: Any, y: Any, names: tuple[str, str], min_size: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        return as_paired_scores(x, y, min_size=min_size)
    except ValueError as err:
        message = str(err).replace("scores_a", names[0]).replace("scores_b", names[1])
        raise ValueError(message) from None


def _check_rope(rope: Any) -> float:
    if isinstance(rope, bool) or not isinstance(rope, int | float | np.integer | np.floating):
        raise ValueError(f"rope must be a number >= 0; got {rope!r}")
    value = float(rope)
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"rope must be a finite number >= 0; got {value!r}")
    return value


def _check_prior_strength(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"prior_strength must be a number >= 0; got {value!r}")
    v = float(value)
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"prior_strength must be a finite number >= 0; got {v!r}")
    return v


def _all_equal(d: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))), np.finfo(float).tiny)
    return bool(np.ptp(d) <= _RTOL * scale)


# --------------------------------------------------------------------------------------------
# correlated t-test (one data set, cross-validation)
# --------------------------------------------------------------------------------------------


def _student_probabilities(post: StudentPosterior, rope: float) -> tuple[float, float, float]:
    if post.scale == 0:
        if rope == 0:
            a = 1.0 if post.loc > 0 else (0.5 if post.loc == 0 else 0.0)
            return a, 0.0, 1.0 - a
        a, b = float(post.loc > rope), float(post.loc < -rope)
        return a, 1.0 - a - b, b
    p_a = float(post.sf(rope))
    p_b = float(post.cdf(-rope))
    p_rope = 0.0 if rope == 0 else max(0.0, float(post.cdf(rope) - p_b))
    return p_a, p_rope, p_b


def bayes_correlated_ttest(
    scores_a: npt.ArrayLike,
    scores_b: npt.ArrayLike,
    *,
    rope: float = 0.0,
    runs: int = 1,
    test_train_ratio: float | None = None,
) -> BayesianComparison:
    """Bayesian correlated t-test of two classifiers' cross-validated scores on one data set.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n,)
        Scores (higher is better) of classifiers A and B on the same n folds, paired by
        position; for r runs of K-fold cross-validation, all ``n = r·K`` fold scores.
    rope : float
        Half-width of the region of practical equivalence, in score units (0: none).
    runs : int
        Number of repetitions of the cross-validation; ``n`` must be a multiple of it.
    test_train_ratio : float, optional
        ``n_test / n_train`` of each fold, i.e. ``ρ / (1 - ρ)`` for the correlation
        ``ρ = n_test / n_total``. Default: K-fold with ``K = n / runs`` folds, ratio
        ``1 / (K - 1)`` (baycomp's choice). Pass the actual ratio for random train/test splits.

    Returns
    -------
    BayesianComparison
        ``p_a_better``, ``p_rope``, ``p_b_better`` and ``posterior`` (:class:`StudentPosterior`
        of the mean difference A minus B); ``details`` holds ``mean_a``, ``mean_b``, ``df``,
        ``loc``, ``scale``, ``runs`` and ``test_train_ratio``.

    Notes
    -----
    With ``d_i = a_i - b_i``, their mean ``d̄`` and variance ``S²`` (ddof 1), the posterior of
    the expected difference under the correlated Gaussian model with a non-informative prior
    (Corani & Benavoli 2015) is::

        μ | d  ~  Student(df = n - 1, loc = d̄, scale = sqrt((1/n + ρ/(1 - ρ)) · S²))

    the same variance factor as the Nadeau–Bengio corrected t-test. Then
    ``p_a_better = P(μ > rope)``, ``p_b_better = P(μ < -rope)`` and ``p_rope`` the rest; all
    three in closed form from the Student distribution. With ``rope = 0``, ``p_rope = 0`` and
    ``p_a_better`` equals the one-sided p-value of the corrected t-test for "B better".

    When every difference is the same the scale is zero: the posterior is a point mass at
    ``d̄`` (with ``d̄ = 0`` and ``rope = 0`` the two sides get 1/2 each) and the result is
    marked ``degenerate``.

    References
    ----------
    Corani & Benavoli (2015), A Bayesian approach for comparing cross-validated algorithms on
    multiple data sets, Machine Learning 100:285-304. Benavoli, Corani, Demšar & Zaffalon
    (2017), Time for a change: a tutorial for comparing multiple classifiers through Bayesian
    analysis, JMLR 18(77):1-36. Nadeau & Bengio (2003), Machine Learning 52:239-281.

    Examples
    --------
    Ten folds; A is about two points more accurate, with some spread:

    >>> a = np.array([0.86, 0.84, 0.88, 0.85, 0.83, 0.87, 0.86, 0.85, 0.88, 0.84])
    >>> b = np.array([0.84, 0.83, 0.85, 0.84, 0.82, 0.84, 0.85, 0.82, 0.86, 0.83])
    >>> res = bayes_correlated_ttest(a, b, rope=0.01)
    >>> [round(p, 3) for p in res]
    [0.955, 0.045, 0.0]
    >>> res.decision()
    'A is better'

    A is better by more than one point with posterior probability 0.955, just past the usual
    0.95; that B is better is all but excluded.
    """
    a, b = as_paired_scores(scores_a, scores_b, min_size=2)
    rope = _check_rope(rope)
    runs = check_positive_int(runs, "runs")
    n = a.size
    if n % runs:
        raise ValueError(f"runs must divide the number of scores ({n}); got runs={runs}")
    if test_train_ratio is None:
        folds = n // runs
        if folds < 2:
            raise ValueError(f"each run must have at least 2 folds to derive test_train_ratio; "
                             f"got {n} scores in {runs} runs")
        ratio = 1.0 / (folds - 1)
    else:
        ratio = check_positive_float(test_train_ratio, "test_train_ratio")
    d = a - b
    flat = _all_equal(d, a, b)
    loc = float(d.mean())
    scale = 0.0 if flat else float(np.sqrt((1.0 / n + ratio) * d.var(ddof=1)))
    post = StudentPosterior(df=float(n - 1), loc=loc, scale=scale)
    p_a, p_rope, p_b = _student_probabilities(post, rope)
    details = {"mean_a": float(a.mean()), "mean_b": float(b.mean()), "df": post.df, "loc": loc,
               "scale": scale, "runs": runs, "test_train_ratio": ratio}
    note = ("every fold gives the same difference: the posterior is a point mass at "
            f"{loc:.6g}") if flat else ""
    return BayesianComparison(p_a, p_rope, p_b, rope=rope, method="Bayesian correlated t-test",
                              n=n, posterior=post, degenerate=flat, note=note, details=details)


# --------------------------------------------------------------------------------------------
# sign and signed-rank tests (many data sets), Monte Carlo
# --------------------------------------------------------------------------------------------


def _winner_probabilities(
    sample: np.ndarray, rope: float
) -> tuple[tuple[float, float, float], bool]:
    """Share of samples in which each region has the largest probability (ties split evenly).

    With ``rope = 0`` the rope column is dropped and the two sides renormalised. Returns the
    three probabilities and whether they were undefined (every sample won by the rope).
    """
    is_max = sample == sample.max(axis=1, keepdims=True)
    wins = (is_max / is_max.sum(axis=1, keepdims=True)).mean(axis=0)
    if rope > 0:
        return (float(wins[0]), float(wins[1]), float(wins[2])), False
    sides = wins[0] + wins[2]
    if sides == 0:
        return (0.5, 0.0, 0.5), True
    return (float(wins[0] / sides), 0.0, float(wins[2] / sides)), False


def bayes_sign_test(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    rope: float = 0.0,
    prior_strength: float = 1.0,
    prior_place: str = "rope",
    n_samples: int = 50000,
    random_state: RandomStateLike = None,
) -> BayesianComparison:
    """Bayesian sign test of two classifiers over N data sets.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        Mean scores (higher is better) of classifier A (``x``) and classifier B (``y``) on the
        same N data sets, paired by position.
    rope : float
        Half-width of the region of practical equivalence, in score units (0: none).
    prior_strength : float
        Weight of the prior pseudo-observation (>= 0); baycomp's default 1.
    prior_place : {"rope", "a_better", "b_better"}
        Region that receives the prior weight; baycomp's default ``"rope"``.
    n_samples : int
        Monte Carlo draws from the posterior.
    random_state : None, int or numpy Generator
        Seed of the draws.

    Returns
    -------
    BayesianComparison
        The three probabilities and ``sample``, the posterior draws of
        ``(θ_a_better, θ_rope, θ_b_better)``; ``details`` holds the counts ``n_a_better``,
        ``n_rope``, ``n_b_better`` and the Dirichlet parameters ``alpha``.

    Notes
    -----
    Each data set falls in one region: ``a - b > rope`` (A better), ``b - a > rope`` (B better)
    or the rope. With counts ``(n_A, n_0, n_B)`` the posterior of the region probabilities is::

        θ ~ Dirichlet(n_A + ε, n_0 + ε, n_B + ε)  plus prior_strength on prior_place

    with ``ε = 1e-4`` keeping empty regions proper. ``p_a_better`` is the posterior probability
    that A-better is the most probable region: the share of draws in which ``θ_a_better`` is the
    largest. With ``rope = 0`` the two sides are renormalised to sum to one and ``p_rope = 0``
    (the prior, placed on the rope, still enters the draws), as baycomp does. The Monte Carlo
    error of each probability is about ``sqrt(p (1 - p) / n_samples)``.

    References
    ----------
    Benavoli, Corani, Mangili, Zaffalon & Ruggeri (2014), A Bayesian Wilcoxon signed-rank test
    based on the Dirichlet process, ICML, PMLR 32:1026-1034. Benavoli, Corani, Demšar &
    Zaffalon (2017), JMLR 18(77):1-36.

    Examples
    --------
    A beats B by more than one point on 9 of 12 data sets, is within a point on 2, worse on 1:

    >>> a = np.array([.91, .85, .78, .88, .95, .70, .83, .90, .86, .80, .75, .92])
    >>> b = np.array([.88, .83, .74, .86, .95, .66, .80, .86, .82, .80, .77, .89])
    >>> res = bayes_sign_test(a, b, rope=0.01, random_state=0)
    >>> res.details["n_a_better"], res.details["n_rope"], res.details["n_b_better"]
    (9, 2, 1)
    >>> round(res.p_a_better, 2)
    0.97

    With probability about 0.97 "A better" is the most probable of the three regions.
    """
    a, b = _paired(x, y, ("x", "y"), 1)
    rope = _check_rope(rope)
    strength = _check_prior_strength(prior_strength)
    check_choice(prior_place, "prior_place", PRIOR_PLACES)
    n_samples = check_positive_int(n_samples, "n_samples")
    d = a - b
    n_a, n_b = int(np.sum(d > rope)), int(np.sum(d < -rope))
    counts = np.array([n_a, d.size - n_a - n_b, n_b], dtype=float)
    alpha = counts + _DIRICHLET_FLOOR
    alpha[_COLUMNS[prior_place]] += strength
    sample = check_random_state(random_state).dirichlet(alpha, n_samples)
    probs, undefined = _winner_probabilities(sample, rope)
    degenerate = undefined or (rope == 0 and bool(np.all(d == 0)))
    note = ""
    if degenerate:
        probs = (0.5, 0.0, 0.5)
        note = "every difference is zero: with rope = 0 neither side is favoured"
    details = {"n_a_better": n_a, "n_rope": int(counts[1]), "n_b_better": n_b,
               "alpha": tuple(alpha.tolist()), "prior_strength": strength,
               "prior_place": prior_place, "n_samples": n_samples}
    return BayesianComparison(*probs, rope=rope, method="Bayesian sign test", n=d.size,
                              sample=sample, degenerate=degenerate, note=note, details=details)


def _heaviside(values: np.ndarray) -> np.ndarray:
    """1 above zero, 1/2 at zero, 0 below."""
    return (values > 0).astype(float) + 0.5 * (values == 0)


def _quadratic_forms(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``w_s^T M w_s`` for every row ``w_s`` of ``weights``, in memory-bounded blocks."""
    out = np.empty(weights.shape[0])
    step = max(1, _BLOCK_ELEMENTS // weights.shape[1])
    for start in range(0, weights.shape[0], step):
        w = weights[start : start + step]
        out[start : start + step] = np.einsum("ij,ij->i", w @ matrix, w)
    return out


def bayes_signed_rank_test(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    rope: float = 0.0,
    prior_strength: float = 0.5,
    prior_place: str = "rope",
    n_samples: int = 50000,
    random_state: RandomStateLike = None,
) -> BayesianComparison:
    """Bayesian signed-rank test of two classifiers over N data sets.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        Mean scores (higher is better) of classifier A (``x``) and classifier B (``y``) on the
        same N data sets, paired by position.
    rope : float
        Half-width of the region of practical equivalence, in score units (0: none).
    prior_strength : float
        Weight ``s`` of the prior pseudo-observation (>= 0); baycomp's default 0.5.
    prior_place : {"rope", "a_better", "b_better"}
        Where the pseudo-observation sits: at a difference of 0 (``"rope"``, baycomp's choice),
        or at ``+∞`` / ``-∞`` (the most favourable priors to A or to B, the two extremes of
        the imprecise Dirichlet process).
    n_samples : int
        Monte Carlo draws from the posterior.
    random_state : None, int or numpy Generator
        Seed of the draws.

    Returns
    -------
    BayesianComparison
        The three probabilities and ``sample``, the posterior draws of
        ``(θ_a_better, θ_rope, θ_b_better)``; ``details`` holds the prior.

    Notes
    -----
    The differences ``z_i = a_i - b_i`` and a pseudo-observation ``z_0`` get Dirichlet process
    weights ``w ~ Dirichlet(s, 1, ..., 1)``. For each draw of ``w``::

        θ_a_better = Σ_i Σ_j w_i w_j H(z_i + z_j - 2 rope)
        θ_b_better = Σ_i Σ_j w_i w_j H(-z_i - z_j - 2 rope)
        θ_rope     = 1 - θ_a_better - θ_b_better

    with ``H`` the Heaviside step (1/2 at 0): the posterior probabilities that the average of
    two random differences lies above the rope, below it, or inside (Walsh averages, as in the
    Wilcoxon signed-rank statistic). Without a rope, ``θ_b_better = 1 - θ_a_better``.
    ``p_a_better`` is the share of draws in which ``θ_a_better`` is the largest of the three.
    Every draw is a quadratic form ``w^T H w``, computed for all draws at once.

    If every difference is zero and ``rope = 0`` the sides tie in every draw: 1/2 each,
    ``degenerate=True``.

    References
    ----------
    Benavoli, Corani, Mangili, Zaffalon & Ruggeri (2014), A Bayesian Wilcoxon signed-rank test
    based on the Dirichlet process, ICML, PMLR 32:1026-1034. Benavoli, Corani, Demšar &
    Zaffalon (2017), JMLR 18(77):1-36.

    Examples
    --------
    The 12 data sets of :func:`bayes_sign_test`:

    >>> a = np.array([.91, .85, .78, .88, .95, .70, .83, .90, .86, .80, .75, .92])
    >>> b = np.array([.88, .83, .74, .86, .95, .66, .80, .86, .82, .80, .77, .89])
    >>> res = bayes_signed_rank_test(a, b, rope=0.01, random_state=0)
    >>> round(res.p_a_better, 2), round(res.p_b_better, 2)
    (1.0, 0.0)

    Using the sizes of the differences, not only their signs, the signed-rank test is surer
    than the sign test that A is better.
    """
    a, b = _paired(x, y, ("x", "y"), 1)
    rope = _check_rope(rope)
    strength = _check_prior_strength(prior_strength)
    check_choice(prior_place, "prior_place", PRIOR_PLACES)
    n_samples = check_positive_int(n_samples, "n_samples")
    d = a - b
    z0 = {"rope": 0.0, "a_better": math.inf, "b_better": -math.inf}[prior_place]
    if strength > 0:
        z = np.concatenate(([z0], d))
        concentration = np.concatenate(([strength], np.ones(d.size)))
    else:
        z, concentration = d, np.ones(d.size)
    sums = np.add.outer(z, z)
    weights = check_random_state(random_state).dirichlet(concentration, n_samples)
    theta_a = _quadratic_forms(weights, _heaviside(sums - 2 * rope))
    if rope > 0:
        theta_b = _quadratic_forms(weights, _heaviside(-sums - 2 * rope))
        theta_rope = np.clip(1.0 - theta_a - theta_b, 0.0, 1.0)
    else:
        theta_b, theta_rope = 1.0 - theta_a, np.zeros(n_samples)
    sample = np.column_stack([theta_a, theta_rope, theta_b])
    probs, _ = _winner_probabilities(sample, rope)
    degenerate = rope == 0 and bool(np.all(d == 0)) and (strength == 0 or prior_place == "rope")
    note = "every difference is zero: neither side is favoured" if degenerate else ""
    if degenerate:
        probs = (0.5, 0.0, 0.5)
    details = {"prior_strength": strength, "prior_place": prior_place, "n_samples": n_samples}
    return BayesianComparison(*probs, rope=rope, method="Bayesian signed-rank test", n=d.size,
                              sample=sample, degenerate=degenerate, note=note, details=details)
