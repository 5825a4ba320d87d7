"""Gondara's "Classifier comparison using precision", Tables 4-11: our values next to the printed ones.

The printed numbers live in ``data/paper_tables.csv`` (one row per printed number, with the table,
the printed row and column, the text as printed and its numeric value; "<0.0001" is kept as text
with 0.0001 as an upper bound). This module fits the paper's models on its six UCI datasets the way
the author's published R script does, builds each table from the library's tests, and lines our
values up against the printed ones.

How the paper's set-up is reproduced:

* **Split.** Wilt and Urban land cover come partitioned; their given train/test split is used.
  The other four get a 70/30 split. ``split="r"`` draws it exactly as the author's script does,
  R's ``set.seed(123); sample(n, floor(0.7 n))`` (R < 3.6 sampling, see :func:`r_sample`);
  ``split="sklearn"`` uses ``train_test_split(test_size=0.3, random_state=split_seed)``.
* **Naive Bayes.** :class:`RNaiveBayes` predicts as R's ``e1071::naiveBayes``: Gaussian with the
  sample standard deviation for numeric features, frequency tables for nominal features
  (Phishing's ARFF declares all 30 nominal), densities of 0 replaced by 0.001.
* **Forests and SVM.** scikit-learn's random forest (1000 trees; 50 for "RF2") and an RBF SVM on
  standardised features with ``C = 1`` and ``gamma = 1 / n_features`` (e1071's defaults). Forests
  are random: their precisions move in the second decimal between seeds and libraries.

Predictions are cached per dataset, model and settings for the life of the process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .data import load_dataset
from .validation import check_choice, check_positive_int, check_probability

__all__ = [
    "PAPER_DATASETS",
    "PAPER_MODELS",
    "PaperFit",
    "RNaiveBayes",
    "compare_with_printed",
    "fit_paper_models",
    "paper_split",
    "printed_values",
    "r_sample",
    "side_by_side",
    "table4",
    "table5_agreement",
]

PRINTED = Path(__file__).resolve().parent.parent / "data" / "paper_tables.csv"

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
    """The numbers printed in the paper's Tables 4-11, one row per number.

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

    Examples
    --------
    Table 5's diabetic-retinopathy row for class 0 prints a GS p-value of "0.002", a typo for
    0.0002 (METHODS.md §12 item 9):

    >>> t5 = printed_values(5)
    >>> row = t5[(t5["dataset"] == "diabetic_retinopathy") & (t5["class"] == "0")]
    >>> row.set_index("quantity")["printed"].to_dict()
    {'precision_nb': '0.54', 'precision_rf': '0.63', 'pvalue_gs': '0.002', 'pvalue_gw': '0.0002'}
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
    """Indices drawn as R (before 3.6.0) draws ``set.seed(seed); sample(n, size)``.

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
    of 346 rows, 165 of class 0 and 181 of class 1, METHODS.md §13).

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


class RNaiveBayes:
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

    def __init__(self, *, categorical: bool = False, threshold: float = 0.001):
        self.categorical = categorical
        self.threshold = threshold

    def fit(self, X: Any, y: Any) -> RNaiveBayes:
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
        """Predicted class of each row of ``X``."""
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


def _model(key: str, *, name: str, n_trees: int, seed: int, naive_bayes: str):
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
    predictions = {
        key: _predict(name, key, n_trees, int(seed), split, int(split_seed), naive_bayes)
        for key in models
    }
    y_test = load_dataset(name).y.to_numpy()[test]
    settings = {"n_trees": n_trees, "seed": seed, "split": split, "split_seed": split_seed,
                "naive_bayes": naive_bayes}
    return PaperFit(name, y_test, predictions, how, len(train), len(test), settings)


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------


def table4(datasets: Iterable[str] = PAPER_DATASETS) -> pd.DataFrame:
    """Table 4: instances, attributes and classes of each dataset as loaded.

    ``attributes`` counts the features plus the class column, as the paper does for five of
    its six datasets (Phishing's 30 leaves the class out).

    Examples
    --------
    >>> table4(["iris"])
      dataset class comparison  instances  attributes  classes  features
    0    iris                         150           5        3         4
    """
    rows = []
    for name in datasets:
        ds = load_dataset(name)
        rows.append({
            "dataset": name, "class": "", "comparison": "", "instances": len(ds.y),
            "attributes": ds.X.shape[1] + 1, "classes": ds.y.nunique(), "features": ds.X.shape[1],
        })
    return pd.DataFrame(rows)


def _decimals(text: str) -> int:
    text = text.lstrip("<")
    return len(text.split(".")[1]) if "." in text else 0


def compare_with_printed(ours: pd.DataFrame, table: int) -> pd.DataFrame:
    """Line our values up against the printed ones: one row per printed number.

    Parameters
    ----------
    ours : DataFrame
        One row per printed row, with the key columns ``dataset``, ``class`` and, where the
        table has one, ``comparison`` (missing key columns count as ""), and one column per
        quantity named as in :func:`printed_values` (e.g. ``precision_nb``, ``pvalue_gs``).
        Class labels are matched as text (``0`` matches ``"0"``).
    table : int
        The paper's table number (4 to 11).

    Returns
    -------
    DataFrame
        The printed rows in printed order with columns ``table``, ``row``, ``dataset``,
        ``class``, ``comparison``, ``quantity``, ``printed``, ``value``, ``relation`` (as in
        :func:`printed_values`), ``ours``, ``difference``
        (ours minus the printed number; for "<0.0001" minus the bound), ``matches`` and
        ``note``. ``matches`` is True where ours, rounded to the printed number of decimals,
        equals the printed number, or for "<b" where ours is below b; NaN where we have no value.

    Examples
    --------
    >>> ours = pd.DataFrame({"dataset": ["wilt"], "class": ["n"], "precision_nb": [0.6548],
    ...                      "precision_rf": [0.7412], "pvalue_gs": [3e-9], "pvalue_gw": [0.2]})
    >>> cmp = compare_with_printed(ours, 5)
    >>> cmp.loc[cmp["row"] == 1, ["quantity", "printed", "ours", "matches"]]
           quantity  printed          ours  matches
    0  precision_nb     0.65  6.548000e-01     True
    1  precision_rf     0.74  7.412000e-01     True
    2     pvalue_gs  <0.0001  3.000000e-09     True
    3     pvalue_gw  <0.0001  2.000000e-01    False
    """
    printed = printed_values(table)
    ours = ours.copy()
    for key in _KEYS:
        if key not in ours.columns:
            ours[key] = ""
        ours[key] = ours[key].map(lambda v: "" if v is None or v is pd.NA else str(v))
    quantities = [q for q in printed["quantity"].unique() if q in ours.columns]
    long = ours.melt(id_vars=list(_KEYS), value_vars=quantities, var_name="quantity",
                     value_name="ours")
    if long.duplicated([*_KEYS, "quantity"]).any():
        raise ValueError("ours has several rows for the same dataset, class and comparison")
    merged = printed.merge(long, on=[*_KEYS, "quantity"], how="left")
    merged["ours"] = pd.to_numeric(merged["ours"], errors="coerce").astype(float)
    merged["difference"] = merged["ours"] - merged["value"]
    half_unit = 0.5 * 10.0 ** -merged["printed"].map(_decimals).to_numpy(dtype=float)
    below = merged["ours"] < merged["value"]
    rounds = (merged["difference"].abs() <= half_unit * (1 + 1e-9))
    matches = np.where(merged["relation"] == "<", below, rounds).astype(object)
    matches[merged["ours"].isna().to_numpy()] = np.nan
    merged["matches"] = matches
    columns = ["table", "row", *_KEYS, "quantity", "printed", "value", "relation", "ours",
               "difference", "matches", "note"]
    return merged[columns]


def side_by_side(comparison: pd.DataFrame, *, digits: int = 4) -> pd.DataFrame:
    """Wide display of :func:`compare_with_printed`: per quantity, ours, printed and difference.

    Rows are the printed rows (dataset, class and comparison where the table has one), in
    printed order; columns are ``(quantity, "ours" | "printed" | "difference")``. Values are
    rounded to ``digits`` significant figures for display (p-values keep scientific notation).

    Examples
    --------
    >>> ours = pd.DataFrame({"dataset": ["wilt"], "class": ["n"], "precision_nb": [0.6548]})
    >>> wide = side_by_side(compare_with_printed(ours, 5))
    >>> wide.loc[("wilt", "n"), ("precision_nb", "printed")], wide.columns.nlevels
    ('0.65', 2)
    """
    frame = comparison.copy()
    keys = [k for k in _KEYS if (frame[k] != "").any()]
    order = list(dict.fromkeys(frame["quantity"]))
    frame["ours"] = frame["ours"].map(lambda v: float(f"{v:.{digits}g}") if pd.notna(v) else v)
    frame["difference"] = frame["difference"].map(
        lambda v: float(f"{v:.{digits}g}") if pd.notna(v) else v
    )
    # Table 7 prints the combined p-value once per dataset: give it the dataset's first row.
    if "class" in keys:
        first = frame.groupby("row")["class"].first()
        frame["class"] = np.where(frame["class"] == "", frame["row"].map(first), frame["class"])
    rows = frame.drop_duplicates(keys)[keys]
    wide = frame.pivot_table(index=keys, columns="quantity",
                             values=["ours", "printed", "difference"], aggfunc="first",
                             sort=False)
    wide = wide.swaplevel(0, 1, axis=1)
    columns = [(q, part) for q in order for part in ("ours", "printed", "difference")
               if (q, part) in wide.columns]
    return wide.reindex(index=pd.MultiIndex.from_frame(rows) if len(keys) > 1
                        else pd.Index(rows[keys[0]]), columns=pd.MultiIndex.from_tuples(columns))


def table5_agreement(
    ours: pd.DataFrame, *, tolerance: float = 0.05, alpha: float = 0.05
) -> pd.DataFrame:
    """Which Table 5 rows we reproduce: both precisions within ``tolerance`` and the same GS call.

    Parameters
    ----------
    ours : DataFrame
        Our Table 5 (columns ``dataset``, ``class``, ``precision_nb``, ``precision_rf``,
        ``pvalue_gs``).
    tolerance : float
        Largest absolute difference from a printed precision that counts as reproduced.
    alpha : float
        Level of the GS decision (reject when p < alpha; "<0.0001" rejects).

    Returns
    -------
    DataFrame
        One row per printed Table 5 row: ``dataset``, ``class``, ``nb_close``, ``rf_close``,
        ``gs_decision_printed``, ``gs_decision_ours`` (True = reject), ``agrees`` (all three
        hold). The share of agreeing rows is ``result["agrees"].mean()``.

    Examples
    --------
    >>> ours = pd.DataFrame({"dataset": ["wilt", "wilt"], "class": ["n", "w"],
    ...                      "precision_nb": [0.66, 0.75], "precision_rf": [0.74, 0.90],
    ...                      "pvalue_gs": [1e-6, 0.01]})
    >>> table5_agreement(ours).head(2)[["class", "nb_close", "rf_close", "agrees"]]
      class  nb_close  rf_close  agrees
    0     n      True      True    True
    1     w      True     False   False
    """
    cmp = compare_with_printed(ours, 5)
    wide = cmp.set_index(["row", "dataset", "class", "quantity"])[["ours", "value"]].unstack()
    out = pd.DataFrame(index=wide.index)
    for model in ("nb", "rf"):
        diff = (wide[("ours", f"precision_{model}")] - wide[("value", f"precision_{model}")]).abs()
        out[f"{model}_close"] = diff <= tolerance + 1e-12
    out["gs_decision_printed"] = wide[("value", "pvalue_gs")] < alpha
    out["gs_decision_ours"] = wide[("ours", "pvalue_gs")] < alpha
    out["agrees"] = (out["nb_close"] & out["rf_close"]
                     & (out["gs_decision_printed"] == out["gs_decision_ours"]))
    return out.reset_index().drop(columns="row")
