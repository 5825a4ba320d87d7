"""The paper's printed values, its split, and the models as R fits them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin

from ..._lib.checks import check_choice, check_positive_int, check_probability
from ...sources.datasets import load_dataset, resource_path

__all__ = ['PAPER_DATASETS', 'PAPER_MODELS', 'PaperFit', 'RNaiveBayes', 'fit_paper_models', 'paper_estimators', 'paper_split', 'printed_values', 'r_sample']


PRINTED = resource_path("paper_tables.csv")

#: The paper's datasets (registry names), in the order of its tables.
PAPER_DATASETS = (
    "wilt", "diabetic_retinopathy", "phishing", "banknote", "magic", "urban_land_cover",
)

#: Model keys and what they are. "RF" is Table 8's "RF1".
PAPER_MODELS = {
    "NB": "naive Bayes (as R's e1071::naiveBayes, or scikit-learn's GaussianNB)",
    "RF": "random forest, n_trees trees (the paper: 1000)",
    "SVM": "RBF support vector machine on standardised features, C = 1, gamma = 1/p",
    "RF2": "random forest, 50 trees",
}

# Datasets whose source file declares the features nominal (R reads them as factors).
_NOMINAL = frozenset({"phishing"})

_KEYS = ("dataset", "class", "comparison")


# --------------------------------------------------------------------------------------------
# the printed values
# --------------------------------------------------------------------------------------------


@cache
def _printed() -> pd.DataFrame:
    frame = pd.read_csv(
        PRINTED, comment="#", keep_default_na=False,
        dtype={"class": str, "printed": str, "comparison": str, "note": str},
    )
    frame["value"] = frame["value"].astype(float)
    return frame


def printed_values(table: int | None = None) -> pd.DataFrame:
    """Return the numbers printed in the paper's Tables 4-11, one row per number.

    Parameters
    ----------
    table : int, optional
        A table number from 4 to 11; all tables when omitted.

    Returns
    -------
    DataFrame
        Columns ``table``, ``row`` (the printed row, 1 = first data row), ``dataset`` (registry
        name), ``printed_dataset``, ``class`` (the label as in the data, as text),
        ``printed_class``, ``comparison`` (model, pair of models or CV scheme; "" where the table
        has none), ``printed_column``, ``quantity`` (our key for the value), ``printed`` (the
        text as printed), ``value`` (its number; the bound for "<0.0001"), ``relation``
        ("=" or "<") and ``note``.

    Raises
    ------
    ValueError
        ``table`` is not one of 4 to 11.

    Examples
    --------
    Table 5's diabetic-retinopathy row for class 0 prints a GS p-value of "0.002", a typo for
    0.0002 (docs/methods.md §12 item 9):

    >>> t5 = printed_values(5)
    >>> row = t5[(t5["dataset"] == "diabetic_retinopathy") & (t5["class"] == "0")]
    >>> row.set_index("quantity")["printed"].to_dict()
    {'precision_nb': '0.54', 'precision_rf': '0.63', 'gs_pvalue': '0.002', 'gw_pvalue': '0.0002'}
    """
    frame = _printed()
    if table is not None:
        if table not in set(frame["table"]):
            raise ValueError(f"table must be one of 4 to 11; got {table!r}")
        frame = frame[frame["table"] == table]
    return frame.reset_index(drop=True).copy()


# --------------------------------------------------------------------------------------------
# the author's split and naive Bayes, as R computes them
# --------------------------------------------------------------------------------------------


def r_sample(n: int, size: int, *, seed: int) -> np.ndarray:
    """Draw indices as R (before 3.6.0) does for ``set.seed(seed); sample(n, size)``.

    Parameters
    ----------
    n : int
        Population size; the result indexes ``0 .. n-1``.
    size : int
        Number of indices drawn without replacement (``size <= n``).
    seed : int
        The value given to R's ``set.seed``.

    Returns
    -------
    ndarray of int64, shape (size,)
        Zero-based indices in the order R returns them (R's values minus 1).

    Raises
    ------
    ValueError
        ``n`` is not a positive integer, ``size`` not a non-negative one, or ``size > n``.

    Notes
    -----
    R's default generator is the Mersenne Twister. ``set.seed(s)`` scrambles the seed with the
    linear congruential map ``s <- 69069 s + 1 (mod 2^32)``, 50 times, then fills the 625-word
    state with 625 more steps (word 0 is the position, set to 624). Uniforms are
    ``u = y * 2.3283064365386963e-10`` from the tempered 32-bit outputs ``y``. Before R 3.6.0,
    ``sample`` drew without replacement by "rounding": ``j = floor(m u)`` from the ``m``
    remaining items, then moved the last remaining item into slot ``j``. The author's script
    (``lgondara/prec_compare``) splits the diabetic retinopathy data with ``set.seed(123)`` and
    ``sample(seq_len(1151), size = 805)``; this function reproduces that split exactly (test set
    of 346 rows, 165 of class 0 and 181 of class 1, docs/methods.md §13).

    References
    ----------
    Matsumoto & Nishimura (1998), ACM TOMACS 8:3-30. R source ``src/main/RNG.c`` and
    ``src/main/random.c`` (R 3.5).

    Examples
    --------
    R 3.5's ``set.seed(123); sample(10)`` is 3 8 4 7 6 1 10 9 2 5:

    >>> (r_sample(10, 10, seed=123) + 1).tolist()
    [3, 8, 4, 7, 6, 1, 10, 9, 2, 5]
    """
    n = check_positive_int(n, "n")
    size = check_positive_int(size, "size", minimum=0)
    if size > n:
        raise ValueError(f"size must be at most n = {n} (sampling without replacement); got {size}")
    s = int(seed) & 0xFFFFFFFF
    for _ in range(50):
        s = (69069 * s + 1) & 0xFFFFFFFF
    state = np.empty(625, dtype=np.uint32)
    for j in range(625):
        s = (69069 * s + 1) & 0xFFFFFFFF
        state[j] = s
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": {"key": state[1:], "pos": 624}}
    uniforms = generator.random_raw(size).astype(np.float64) * 2.3283064365386963e-10
    # The draw itself is sequential (each step depends on the previous swap): O(size) scalar work.
    pool = np.arange(n, dtype=np.int64)
    out = np.empty(size, dtype=np.int64)
    remaining = n
    for i, u in enumerate(uniforms):
        j = int(remaining * u)
        out[i] = pool[j]
        remaining -= 1
        pool[j] = pool[remaining]
    return out


class RNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes that predicts as R's ``e1071::naiveBayes`` (default arguments).

    Parameters
    ----------
    categorical : bool
        False: every feature is numeric, with a normal density per class (mean and sample
        standard deviation, ``ddof = 1``). True: every feature is nominal, with the relative
        frequency of each value per class (no Laplace smoothing, as e1071's default).
    threshold : float
        Replaces a standard deviation of 0 and any density or frequency of 0 (e1071's
        ``threshold = 0.001`` with ``eps = 0``).

    Attributes
    ----------
    classes_ : ndarray
        The class labels seen by :meth:`fit`, sorted.
    log_prior_ : ndarray of shape (n_classes,)
        Log of each class's share of the training rows.
    mean_, sd_ : ndarray of shape (n_classes, n_features)
        Per-class mean and sample standard deviation of each feature (numeric features).
    values_ : list of ndarray
        The sorted values seen in each feature (nominal features).
    tables_ : list of ndarray of shape (n_classes, n_values)
        Per feature, the relative frequency of each value within each class (nominal features).

    Notes
    -----
    The predicted class maximises ``log prior + sum_j log f_j(x_j | class)``; ties go to the
    first class in sorted order. scikit-learn's ``GaussianNB`` differs in two ways that move a
    few predictions: it uses the variance with ``ddof = 0`` plus a small smoothing term, and it
    works with log densities, where R's densities underflow to 0 and are then replaced by the
    threshold.

    Examples
    --------
    >>> X = np.array([[0.0], [0.2], [0.4], [2.0], [2.2], [2.6]])
    >>> y = np.array(["a", "a", "a", "b", "b", "b"])
    >>> RNaiveBayes().fit(X, y).predict(np.array([[0.1], [1.0], [1.6], [9.0]])).tolist()
    ['a', 'a', 'b', 'a']

    The last call is R's quirk: at 9.0 the density of class "a" underflows to 0 and becomes
    0.001, far above class "b"'s 4e-106, so R (and this class) predicts "a" where
    ``GaussianNB`` predicts "b".
    """

    def __init__(self, *, categorical: bool = False, threshold: float = 0.001) -> None:
        self.categorical = categorical
        self.threshold = threshold

    def fit(self, X: Any, y: Any) -> RNaiveBayes:
        """Estimate the class priors and each feature's density or frequency table per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features (numbers; nominal values coded as numbers).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        RNaiveBayes
            The fitted estimator itself.
        """
        X = np.asarray(X, dtype=float)
        y = np.asarray(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        counts = np.bincount(codes, minlength=len(self.classes_))
        self.log_prior_ = np.log(counts / counts.sum())
        if self.categorical:
            self.values_ = [np.unique(X[:, j]) for j in range(X.shape[1])]
            self.tables_ = []
            for j, values in enumerate(self.values_):
                v = np.searchsorted(values, X[:, j])
                table = np.zeros((len(self.classes_), len(values)))
                np.add.at(table, (codes, v), 1.0)
                self.tables_.append(table / counts[:, None])
        else:
            onehot = np.eye(len(self.classes_))[codes]
            self.mean_ = onehot.T @ X / counts[:, None]
            sq = onehot.T @ (X - self.mean_[codes]) ** 2
            with np.errstate(divide="ignore", invalid="ignore"):
                sd = np.sqrt(sq / (counts[:, None] - 1))
            self.sd_ = np.where(np.isfinite(sd) & (sd > 0), sd, self.threshold)
        return self

    def _log_likelihood(self, X: Any) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if self.categorical:
            total = np.zeros((X.shape[0], len(self.classes_)))
            for j, (values, table) in enumerate(zip(self.values_, self.tables_)):
                v = np.clip(np.searchsorted(values, X[:, j]), 0, len(values) - 1)
                seen = values[v] == X[:, j]
                prob = np.where(seen[:, None], table[:, v].T, 0.0)
                total += np.log(np.where(prob > 0, prob, self.threshold))
            return total
        density = stats.norm.pdf(X[:, None, :], self.mean_, self.sd_)
        return np.log(np.where(density > 0, density, self.threshold)).sum(axis=2)

    def predict(self, X: Any) -> np.ndarray:
        """Predict the class of each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features, in the columns seen by :meth:`fit`. A nominal value not seen in training
            has frequency 0 (replaced by ``threshold``) in every class.

        Returns
        -------
        ndarray of shape (n_samples,)
            The class with the largest posterior, from ``classes_``; ties go to the first.
        """
        return self.classes_[np.argmax(self._log_likelihood(X) + self.log_prior_, axis=1)]


# --------------------------------------------------------------------------------------------
# splits, models and cached predictions
# --------------------------------------------------------------------------------------------


def paper_split(
    name: str, *, split: str = "r", split_seed: int = 123, test_size: float = 0.3
) -> tuple[np.ndarray, np.ndarray, str]:
    """Row indices of the training and test sets of a paper dataset.

    Parameters
    ----------
    name : str
        Registry name of the dataset (one of :data:`PAPER_DATASETS` or any registered set).
    split : {"r", "sklearn"}
        How to split a dataset that does not come partitioned: "r" draws the training rows as
        the author's R script does (``set.seed(split_seed); sample(n, floor((1 - test_size) n))``);
        "sklearn" uses ``train_test_split(test_size=test_size, random_state=split_seed)``.
        A dataset with a given split (Wilt, Urban land cover) always uses it.
    split_seed : int
        Seed of the split (123 in the author's script).
    test_size : float
        Fraction held out (0.3 in the paper).

    Returns
    -------
    train, test : ndarray of int64
        Row positions in ``load_dataset(name).X``; ``test`` is in increasing order.
    description : str
        For example ``"given (4339 train / 500 test)"`` or ``"R sample, seed 123 (805 / 346)"``.

    Raises
    ------
    ValueError
        ``split`` is not "r" or "sklearn", ``test_size`` is not in (0, 1), or ``name`` is not
        a registered dataset (:func:`precmp_lib.sources.datasets.load_dataset`).

    Examples
    --------
    >>> train, test, how = paper_split("iris", split="sklearn", split_seed=0)
    >>> len(train), len(test), how
    (105, 45, 'train_test_split, seed 0 (105 train / 45 test)')
    """
    check_choice(split, "split", ("r", "sklearn"))
    test_size = check_probability(test_size, "test_size")
    ds = load_dataset(name)
    n = len(ds.y)
    if ds.split is not None:
        is_train = (ds.split.to_numpy() == "train")
        train, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
        return train, test, f"given ({len(train)} train / {len(test)} test)"
    if split == "r":
        train = r_sample(n, int(np.floor((1 - test_size) * n)), seed=split_seed)
        how = f"R sample, seed {split_seed}"
    else:
        from sklearn.model_selection import train_test_split

        train, _ = train_test_split(np.arange(n), test_size=test_size, random_state=split_seed)
        how = f"train_test_split, seed {split_seed}"
    test = np.setdiff1d(np.arange(n), train)
    return np.asarray(train), test, f"{how} ({len(train)} train / {len(test)} test)"


def _model(key: str, *, name: str, n_trees: int, seed: int, naive_bayes: str) -> BaseEstimator:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    if key == "NB":
        if naive_bayes == "gaussian":
            return GaussianNB()
        return RNaiveBayes(categorical=name in _NOMINAL)
    if key in ("RF", "RF2"):
        trees = n_trees if key == "RF" else 50
        return RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=1)
    return make_pipeline(StandardScaler(), SVC(C=1.0, kernel="rbf", gamma="scale"))


def paper_estimators(
    name: str = "diabetic_retinopathy",
    *,
    models: Sequence[str] = ("NB", "RF"),
    n_trees: int = 1000,
    seed: int = 0,
    naive_bayes: str = "r",
) -> dict[str, Any]:
    """Build unfitted scikit-learn estimators of the paper's models (see :data:`PAPER_MODELS`).

    Parameters
    ----------
    name : str
        Registry name of the dataset the models are for: naive Bayes treats the features of a
        dataset whose file declares them nominal (Phishing) as nominal.
    models : sequence of {"NB", "RF", "SVM", "RF2"}
        Which models to build.
    n_trees : int
        Trees in the "RF" forest (the paper: 1000). "RF2" always has 50.
    seed : int
        ``random_state`` of the forests.
    naive_bayes : {"r", "gaussian"}
        "r": :class:`RNaiveBayes`; "gaussian": scikit-learn's ``GaussianNB``.

    Returns
    -------
    dict
        Model key -> unfitted estimator, in the order of ``models``.

    Raises
    ------
    ValueError
        An unknown model key or ``naive_bayes``, or ``n_trees`` not a positive integer.

    Examples
    --------
    >>> sorted(paper_estimators(models=("NB", "RF2")))
    ['NB', 'RF2']
    """
    for key in models:
        check_choice(key, "models", tuple(PAPER_MODELS))
    check_choice(naive_bayes, "naive_bayes", ("r", "gaussian"))
    n_trees = check_positive_int(n_trees, "n_trees")
    return {key: _model(key, name=name, n_trees=n_trees, seed=seed, naive_bayes=naive_bayes)
            for key in models}


@cache
def _predict(
    name: str, key: str, n_trees: int, seed: int, split: str, split_seed: int, naive_bayes: str
) -> np.ndarray:
    ds = load_dataset(name)
    train, test, _ = paper_split(name, split=split, split_seed=split_seed)
    X = ds.X.to_numpy(dtype=float)
    y = ds.y.to_numpy()
    model = _model(key, name=name, n_trees=n_trees, seed=seed, naive_bayes=naive_bayes)
    pred = np.asarray(model.fit(X[train], y[train]).predict(X[test]))
    pred.setflags(write=False)
    return pred


@dataclass(frozen=True)
class PaperFit:
    """Test-set labels and predictions of the paper's models on one dataset.

    Attributes
    ----------
    dataset : str
        Registry name.
    y_test : ndarray
        True labels of the test set.
    predictions : dict
        Model key (``"NB"``, ``"RF"``, ``"SVM"``, ``"RF2"``) -> predicted labels on the test set.
    split : str
        How the test set was chosen (see :func:`paper_split`).
    n_train, n_test : int
        Sizes of the training and test sets.
    settings : dict
        ``n_trees``, ``seed``, ``split``, ``split_seed`` and ``naive_bayes``.
    """

    dataset: str
    y_test: np.ndarray
    predictions: dict[str, np.ndarray]
    split: str
    n_train: int
    n_test: int
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def classes(self) -> np.ndarray:
        """The class labels of the test set, sorted."""
        return np.unique(self.y_test)


def fit_paper_models(
    name: str,
    *,
    models: Sequence[str] = ("NB", "RF"),
    n_trees: int = 1000,
    seed: int = 0,
    split: str = "r",
    split_seed: int = 123,
    naive_bayes: str = "r",
) -> PaperFit:
    """Fit the paper's models on one dataset and predict its test set (cached per process).

    Parameters
    ----------
    name : str
        Registry name of the dataset.
    models : sequence of {"NB", "RF", "SVM", "RF2"}
        Which models to fit (see :data:`PAPER_MODELS`). Tables 5-7 use NB and RF; Tables 8-9
        add SVM and RF2.
    n_trees : int
        Trees in the "RF" forest (the paper: 1000). "RF2" always has 50.
    seed : int
        ``random_state`` of the forests.
    split, split_seed : see :func:`paper_split`.
    naive_bayes : {"r", "gaussian"}
        "r": :class:`RNaiveBayes` (Gaussian for numeric features, frequency tables for nominal
        ones, as e1071); "gaussian": scikit-learn's ``GaussianNB`` on every dataset.

    Returns
    -------
    PaperFit
        Test-set labels, each model's predictions of them, the split and the settings.

    Raises
    ------
    ValueError
        An unknown model key, ``split`` or ``naive_bayes``, ``n_trees`` not a positive
        integer, or an unknown dataset.

    Examples
    --------
    >>> fit = fit_paper_models("iris", models=("NB", "RF2"), split="sklearn", split_seed=0)
    >>> fit.n_test, sorted(fit.predictions)
    (45, ['NB', 'RF2'])
    >>> float(np.mean(fit.predictions["NB"] == fit.y_test))  # naive Bayes is right on all 45
    1.0
    """
    models = tuple(models)
    for key in models:
        check_choice(key, "models", tuple(PAPER_MODELS))
    n_trees = check_positive_int(n_trees, "n_trees")
    check_choice(naive_bayes, "naive_bayes", ("r", "gaussian"))
    train, test, how = paper_split(name, split=split, split_seed=split_seed)
    # Naive Bayes and the SVM use no random numbers: one cached fit serves every seed.
    predictions = {
        key: _predict(name, key, n_trees if key == "RF" else 0,
                      int(seed) if key in ("RF", "RF2") else 0, split, int(split_seed), naive_bayes)
        for key in models
    }
    y_test = load_dataset(name).y.to_numpy()[test]
    settings = {"n_trees": n_trees, "seed": seed, "split": split, "split_seed": split_seed,
                "naive_bayes": naive_bayes}
    return PaperFit(name, y_test, predictions, how, len(train), len(test), settings)


# --------------------------------------------------------------------------------------------
