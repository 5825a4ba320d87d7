"""Scores of scikit-learn estimators on identical splits of one data set, for the resampling tests.

:func:`paired_cv_scores` fits clones of two estimators on the same splits (five replications of
two folds, k-fold, repeated k-fold or random train/test splits) and returns
:class:`PairedScores`, whose :meth:`PairedScores.tests` runs every test of
:mod:`precmp_lib.stats.resampling` that fits the scheme; :func:`cv_scores` does the same for
several estimators, one column each, for :func:`precmp_lib.pairwise_corrected_ttest`. The
estimators passed in are never fitted or changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._lib.aliases import RandomStateLike
from .._lib.checks import check_choice, check_positive_int, check_probability
from ..stats.resampling import (
    corrected_resampled_ttest,
    ftest_5x2cv,
    paired_ttest_kfold,
    paired_ttest_resampled,
    ttest_5x2cv,
)
from ..stats.results import TestResult

__all__ = ["CV_SCHEMES", "PairedScores", "cv_scores", "paired_cv_scores"]

CV_SCHEMES = ("5x2", "kfold", "repeated_kfold", "resampled")


@dataclass(frozen=True)
class PairedScores:
    """Scores of two estimators on identical resamples, in the shapes the tests take.

    Attributes
    ----------
    scheme : str
        ``"5x2"``, ``"kfold"``, ``"repeated_kfold"`` or ``"resampled"``.
    scores_a, scores_b : ndarray
        Shape (5, 2) for ``"5x2"`` (replication x fold), else (J,) in split order.
    n_train, n_test : ndarray
        Training and test set sizes of each split, shaped like the scores.
    scoring : str
        The scorer's name.
    names : tuple of str
        Names of estimators A and B.
    n_folds : int or None
        Folds per repetition (2 for 5x2cv, K for k-fold schemes, None for random splits).
    """

    scheme: str
    scores_a: np.ndarray
    scores_b: np.ndarray
    n_train: np.ndarray
    n_test: np.ndarray
    scoring: str = "accuracy"
    names: tuple[str, str] = ("A", "B")
    n_folds: int | None = None

    @property
    def differences(self) -> np.ndarray:
        """``scores_a - scores_b``, shaped like the scores."""
        return self.scores_a - self.scores_b

    @property
    def n_resamples(self) -> int:
        """The number J of splits."""
        return int(self.scores_a.size)

    @property
    def test_train_ratio(self) -> float:
        """Mean test size over mean training size: the Nadeau–Bengio ``n_test / n_train``."""
        return float(np.mean(self.n_test) / np.mean(self.n_train))

    def to_frame(self) -> pd.DataFrame:
        """Tabulate the splits, one row each.

        Returns
        -------
        DataFrame
            Columns ``split``, ``repeat``, ``fold``, ``n_train``, ``n_test``, ``score_a``,
            ``score_b``, ``difference``.
        """
        J = self.n_resamples
        idx = np.arange(J)
        k = self.n_folds or 1
        return pd.DataFrame({
            "split": idx, "repeat": idx // k, "fold": idx % k,
            "n_train": self.n_train.ravel(), "n_test": self.n_test.ravel(),
            "score_a": self.scores_a.ravel(), "score_b": self.scores_b.ravel(),
            "difference": self.differences.ravel(),
        })

    def tests(self, *, alternative: str = "two-sided") -> pd.DataFrame:
        """Every test that fits this scheme, as a table.

        ``"5x2"``: combined F, 5x2cv t, and the corrected and uncorrected resampled t on the ten
        half-splits; ``"kfold"`` and ``"repeated_kfold"``: corrected (ratio from the actual
        sizes) and uncorrected t; ``"resampled"``: Nadeau–Bengio and the uncorrected t.

        Parameters
        ----------
        alternative : {"two-sided", "greater", "less"}
            Alternative of every test (``"greater"``: A scores higher).

        Returns
        -------
        DataFrame with ``test``, ``method``, ``statistic``, ``df``, ``pvalue``, ``alternative``,
        ``estimate``, ``se``, ``ci_low``, ``ci_high``, ``degenerate``, ``note``.
        """
        a, b = self.scores_a, self.scores_b
        ratio = self.test_train_ratio
        flat_a, flat_b = a.ravel(), b.ravel()
        corrected = corrected_resampled_ttest(flat_a, flat_b, test_train_ratio=ratio,
                                              alternative=alternative)
        runs: dict[str, TestResult] = {}
        if self.scheme == "5x2":
            runs["ftest_5x2cv"] = ftest_5x2cv(a, b)
            runs["ttest_5x2cv"] = ttest_5x2cv(a, b, alternative=alternative)
            runs["corrected_resampled_ttest"] = corrected
            runs["paired_ttest_resampled"] = paired_ttest_resampled(flat_a, flat_b,
                                                                    alternative=alternative)
        elif self.scheme in ("kfold", "repeated_kfold"):
            runs["corrected_resampled_ttest"] = corrected
            runs["paired_ttest_kfold"] = paired_ttest_kfold(flat_a, flat_b, alternative=alternative)
        else:
            runs["corrected_resampled_ttest"] = corrected
            runs["paired_ttest_resampled"] = paired_ttest_resampled(flat_a, flat_b,
                                                                    alternative=alternative)
        rows = []
        for name, res in runs.items():
            rows.append({
                "test": name, "method": res.method, "statistic": res.statistic,
                "df": str(res.df) if isinstance(res.df, tuple) else res.df,
                "pvalue": res.pvalue, "alternative": res.alternative, "estimate": res.estimate,
                "se": res.details.get("se", math.nan), "ci_low": res.ci_low,
                "ci_high": res.ci_high, "degenerate": res.degenerate, "note": res.note,
            })
        return pd.DataFrame(rows)


def _splitter(scheme: str, n_splits: int | None, n_repeats: int | None, test_size: float,
              stratify: bool, random_state: Any) -> Any:
    from sklearn import model_selection as ms

    if scheme == "5x2":
        for name, value, expected in (("n_splits", n_splits, 2), ("n_repeats", n_repeats, 5)):
            if value not in (None, expected):
                raise ValueError(f"{name} is fixed at {expected} for scheme='5x2'; got {value!r}")
        cls = ms.RepeatedStratifiedKFold if stratify else ms.RepeatedKFold
        return cls(n_splits=2, n_repeats=5, random_state=random_state), 2
    if scheme == "kfold":
        if n_repeats not in (None, 1):
            raise ValueError(f"n_repeats must be None for scheme='kfold' (use "
                             f"scheme='repeated_kfold'); got {n_repeats!r}")
        k = check_positive_int(10 if n_splits is None else n_splits, "n_splits", minimum=2)
        cls = ms.StratifiedKFold if stratify else ms.KFold
        return cls(n_splits=k, shuffle=True, random_state=random_state), k
    if scheme == "repeated_kfold":
        k = check_positive_int(10 if n_splits is None else n_splits, "n_splits", minimum=2)
        r = check_positive_int(10 if n_repeats is None else n_repeats, "n_repeats")
        cls = ms.RepeatedStratifiedKFold if stratify else ms.RepeatedKFold
        return cls(n_splits=k, n_repeats=r, random_state=random_state), k
    if n_repeats is not None:
        raise ValueError(f"n_repeats must be None for scheme='resampled' (n_splits counts the "
                         f"random splits); got {n_repeats!r}")
    j = check_positive_int(30 if n_splits is None else n_splits, "n_splits", minimum=2)
    size = check_probability(test_size, "test_size")
    cls = ms.StratifiedShuffleSplit if stratify else ms.ShuffleSplit
    return cls(n_splits=j, test_size=size, random_state=random_state), None


def _fit_and_score(
    estimators: Sequence[Any], X: Any, y: Any, train: np.ndarray, test: np.ndarray,
    scorers: Sequence[Any],
) -> tuple[float, ...]:
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    X_train, y_train = _safe_indexing(X, train), _safe_indexing(y, train)
    X_test, y_test = _safe_indexing(X, test), _safe_indexing(y, test)
    out = [float(scorer(clone(est).fit(X_train, y_train), X_test, y_test))
           for est, scorer in zip(estimators, scorers)]
    return (*out, len(train), len(test))


def _score_on_splits(
    estimators: Sequence[Any], X: Any, y: Any, *, scheme: str, n_splits: int | None,
    n_repeats: int | None, test_size: float, cv: Any, stratify: bool, scoring: Any,
    random_state: Any, n_jobs: int | None, progress: bool,
) -> tuple[np.ndarray, int | None]:
    """Fit clones of every estimator on the same splits; (J, k + 2) array and folds per repeat."""
    from sklearn.metrics import check_scoring
    from sklearn.utils.parallel import Parallel, delayed
    from tqdm.auto import tqdm

    check_choice(scheme, "scheme", CV_SCHEMES)
    n_folds: int | None
    if cv is None:
        splitter, n_folds = _splitter(scheme, n_splits, n_repeats, test_size, stratify,
                                      random_state)
        splits = list(splitter.split(X, y))
    else:
        source: Iterable[Any] = cv.split(X, y) if hasattr(cv, "split") else cv
        splits = [(np.asarray(tr), np.asarray(te)) for tr, te in source]
        n_folds = 2 if scheme == "5x2" else (n_splits if scheme != "resampled" else None)
        if scheme == "5x2" and len(splits) != 10:
            raise ValueError(f"cv must give exactly 10 splits for scheme='5x2' (5 replications x "
                             f"2 folds); got {len(splits)}")
        if len(splits) < 2:
            raise ValueError(f"cv must give at least 2 splits; got {len(splits)}")
    scorers = [check_scoring(est, scoring=scoring) for est in estimators]
    jobs = (delayed(_fit_and_score)(estimators, X, y, tr, te, scorers) for tr, te in splits)
    runner = Parallel(n_jobs=n_jobs, return_as="generator")
    out = list(tqdm(runner(jobs), total=len(splits), disable=not progress,
                    desc=f"{scheme} splits"))
    return np.asarray(out, dtype=float), n_folds


def _scoring_name(scoring: Any) -> str:
    if isinstance(scoring, str) or scoring is None:
        return scoring or "default"
    return getattr(scoring, "__name__", type(scoring).__name__)


def paired_cv_scores(
    estimator_a: Any,
    estimator_b: Any,
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    scheme: str = "5x2",
    n_splits: int | None = None,
    n_repeats: int | None = None,
    test_size: float = 0.3,
    cv: Any = None,
    stratify: bool = True,
    scoring: str | Callable[..., float] | None = "accuracy",
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    progress: bool = True,
    names: tuple[str, str] | None = None,
) -> PairedScores:
    """Score two scikit-learn estimators on identical splits of one data set.

    Each split fits a fresh clone of each estimator on the same training rows and scores both
    on the same test rows; the estimators passed in are never fitted or changed.

    Parameters
    ----------
    estimator_a, estimator_b : scikit-learn estimators
        Unfitted estimators (or pipelines). Fix their ``random_state`` for reproducible scores.
    X : array-like or DataFrame of shape (n, p)
    y : array-like of shape (n,)
    scheme : {"5x2", "kfold", "repeated_kfold", "resampled"}
        ``"5x2"``: five replications of a 50/50 two-fold split (for
        :func:`~precmp_lib.ttest_5x2cv` and :func:`~precmp_lib.ftest_5x2cv`); ``"kfold"``: one K-fold cross-validation; ``"repeated_kfold"``:
        ``n_repeats`` times K-fold (Bouckaert–Frank); ``"resampled"``: ``n_splits`` random
        train/test splits with ``test_size``.
    n_splits : int, optional
        K for the k-fold schemes (default 10); the number of random splits J for
        ``"resampled"`` (default 30). Fixed at 2 for ``"5x2"``.
    n_repeats : int, optional
        Repetitions for ``"repeated_kfold"`` (default 10); fixed at 5 for ``"5x2"``.
    test_size : float
        Test fraction of each random split (``"resampled"`` only).
    cv : splitter or iterable of (train, test) index arrays, optional
        Use these splits instead of drawing them (e.g. to reproduce another tool's splits);
        ``scheme="5x2"`` then needs exactly ten, in the order replication 1 fold 1,
        replication 1 fold 2, and so on.
    stratify : bool
        Keep class proportions in every split (classification); False for plain shuffling.
    scoring : str, callable or None
        Any scikit-learn scorer (``check_scoring``); higher is better by scikit-learn's
        convention (losses come negated).
    random_state : int, RandomState or None
        Seed of the splits. The same seed gives the same splits for both estimators, always.
    n_jobs : int or None
        Splits fitted in parallel with joblib (None: one process).
    progress : bool
        Show a progress bar over the splits.
    names : (str, str), optional
        Names of A and B (default: the estimators' class names).

    Returns
    -------
    PairedScores
        ``scores_a``, ``scores_b`` shaped (5, 2) for ``"5x2"`` and (J,) otherwise, with the
        training and test sizes of each split; ``test_train_ratio`` comes from those sizes.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> lr = make_pipeline(StandardScaler(), LogisticRegression())
    >>> ps = paired_cv_scores(lr, GaussianNB(), X, y, scheme="5x2", random_state=0,
    ...                       progress=False)
    >>> ps.scores_a.shape, ps.test_train_ratio
    ((5, 2), 1.0...)
    >>> res = ftest_5x2cv(ps.scores_a, ps.scores_b)
    >>> bool(res.estimate > 0), bool(res.pvalue < 0.05)
    (True, True)

    Logistic regression is more accurate than naive Bayes on these data, and the combined
    5x2cv F test says the difference is more than split-to-split noise.
    """
    arr, n_folds = _score_on_splits(
        [estimator_a, estimator_b], X, y, scheme=scheme, n_splits=n_splits, n_repeats=n_repeats,
        test_size=test_size, cv=cv, stratify=stratify, scoring=scoring,
        random_state=random_state, n_jobs=n_jobs, progress=progress,
    )
    if names is None:
        names = (type(estimator_a).__name__, type(estimator_b).__name__)
    shape = (5, 2) if scheme == "5x2" else (len(arr),)
    return PairedScores(
        scheme=scheme, scores_a=arr[:, 0].reshape(shape), scores_b=arr[:, 1].reshape(shape),
        n_train=arr[:, 2].astype(int).reshape(shape), n_test=arr[:, 3].astype(int).reshape(shape),
        scoring=_scoring_name(scoring), names=(str(names[0]), str(names[1])), n_folds=n_folds,
    )


def cv_scores(
    estimators: Mapping[str, Any],
    X: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    scheme: str = "repeated_kfold",
    n_splits: int | None = None,
    n_repeats: int | None = None,
    test_size: float = 0.3,
    cv: Any = None,
    stratify: bool = True,
    scoring: str | Callable[..., float] | None = "accuracy",
    random_state: RandomStateLike = None,
    n_jobs: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Score several scikit-learn estimators on identical splits: one row per split.

    The many-classifier form of :func:`paired_cv_scores` (same arguments, same splits for the
    same ``random_state``), for :func:`~precmp_lib.pairwise_corrected_ttest`.

    Parameters
    ----------
    estimators : mapping name -> estimator
        At least two unfitted estimators; clones are fitted, the originals never change.
    X, y, scheme, n_splits, n_repeats, test_size, cv, stratify, scoring, random_state, n_jobs, progress
        As for :func:`paired_cv_scores`.

    Returns
    -------
    DataFrame
        Index ``split``; columns ``repeat``, ``fold``, ``n_train``, ``n_test``, then one column
        of scores per estimator (named as in ``estimators``). The 5x2 scheme gives ten rows
        (replication = ``repeat``).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> models = {"nb": GaussianNB(), "stump": DecisionTreeClassifier(max_depth=1),
    ...           "tree": DecisionTreeClassifier(max_depth=3, random_state=0)}
    >>> tab = cv_scores(models, X, y, n_splits=5, n_repeats=2, random_state=0, progress=False)
    >>> tab.shape, tab.columns.tolist()[4:]
    ((10, 7), ['nb', 'stump', 'tree'])
    >>> tab[["nb", "stump", "tree"]].mean().round(2).tolist()
    [0.96, 0.67, 0.93]

    A one-split stump (0.67) is far behind naive Bayes and the depth-3 tree;
    :func:`~precmp_lib.pairwise_corrected_ttest` says which of these gaps exceed resampling noise.
    """
    if not isinstance(estimators, Mapping) or len(estimators) < 2:
        raise ValueError(f"estimators must be a mapping of at least two names to estimators; "
                         f"got {type(estimators).__name__} of length {len(estimators)}")
    names = [str(k) for k in estimators]
    arr, n_folds = _score_on_splits(
        list(estimators.values()), X, y, scheme=scheme, n_splits=n_splits, n_repeats=n_repeats,
        test_size=test_size, cv=cv, stratify=stratify, scoring=scoring,
        random_state=random_state, n_jobs=n_jobs, progress=progress,
    )
    k = len(names)
    idx = np.arange(len(arr))
    per = n_folds or 1
    out = pd.DataFrame({"repeat": idx // per, "fold": idx % per,
                        "n_train": arr[:, k].astype(int), "n_test": arr[:, k + 1].astype(int)},
                       index=pd.RangeIndex(len(arr), name="split"))
    for j, name in enumerate(names):
        out[name] = arr[:, j]
    return out
