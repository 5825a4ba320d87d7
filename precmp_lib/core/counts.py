"""Sufficient statistics: joint confusion counts and per-observation pattern counts.

Every precision test in precmp is a closed form of counts. Two classifiers on one test set need
the joint confusion tensor ``n[true, predicted by A, predicted by B]`` (one ``np.bincount``
over a combined code); its per-class one-vs-rest view is the 2 x 2 x 2 table ``n[d][a][b]`` of
docs/methods.md §6.1. Several classifiers need, per class, the counts of the 2^c joint prediction
patterns split by truth; repeated cross-validation rows clustered by observation need the
cross-products of the per-observation counts ``m_ij`` (docs/methods.md §7). All of them are built in
a few vectorised passes over the data, never a Python loop over observations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._lib.checks import check_counts, check_positive_int, check_probability
from .factorize import shift_small_ints, small_int_labels
from .labels import as_label_array, encode_label_columns, encode_labels, label_columns

__all__ = [
    "JointConfusion",
    "PatternCounts",
    "PrecisionMoments",
    "as_prediction_mapping",
    "cells_from_tab_paired",
    "check_pattern_codes",
    "check_pattern_weights",
    "class_cells",
    "class_moments",
    "clustered_accuracy",
    "joint_confusion",
    "joint_confusion_or_cells",
    "moments_from_patterns",
    "pair_cells_from_patterns",
    "pattern_counts",
    "precision_moments",
    "weighted_gram",
]

# Integer labels spanning at most this many values are counted straight from the raw codes.
_DIRECT_WIDTH = 64

# Rows combined into one code and counted per block when the table of counts is small.
_COUNT_BLOCK = 1 << 16


# --------------------------------------------------------------------------------------------
# two classifiers: the joint confusion tensor and its per-class 2 x 2 x 2 cells
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JointConfusion:
    """Joint confusion counts of two classifiers on one test set.

    Attributes
    ----------
    table : ndarray of int64, shape (K, K, K)
        ``table[t, a, b]`` = number of observations whose true class is ``classes[t]``, that
        classifier A predicts as ``classes[a]`` and classifier B as ``classes[b]``.
    classes : ndarray of shape (K,)
        The class labels, in code order.
    """

    table: np.ndarray
    classes: np.ndarray

    @property
    def n(self) -> int:
        """Number of observations."""
        return int(self.table.sum())

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.classes)

    def label(self, code: int) -> Any:
        """Return the label of class ``code`` as a plain Python value."""
        value = self.classes[code]
        return value.item() if isinstance(value, np.generic) else value

    def cells(self) -> np.ndarray:
        """Return the per-class 2 x 2 x 2 tables, shape (K, 2, 2, 2); see :func:`class_cells`."""
        return class_cells(self.table)

    def confusion_a(self) -> pd.DataFrame:
        """Classifier A's K x K confusion matrix (rows true class, columns predicted class)."""
        return self._frame(self.table.sum(axis=2))

    def confusion_b(self) -> pd.DataFrame:
        """Classifier B's K x K confusion matrix (rows true class, columns predicted class)."""
        return self._frame(self.table.sum(axis=1))

    def _frame(self, counts: np.ndarray) -> pd.DataFrame:
        labels = [self.label(i) for i in range(self.n_classes)]
        return pd.DataFrame(
            counts,
            index=pd.Index(labels, name="true"),
            columns=pd.Index(labels, name="predicted"),
        )


def _direct_int_codes(arrays: Sequence[Any]) -> tuple[list[np.ndarray], int, int] | None:
    """Integer labels within a small range: return (shifted arrays, offset, width) or None."""
    if not all(isinstance(a, np.ndarray) and a.dtype.kind in "iu" for a in arrays):
        return None
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    width = hi - lo + 1
    if width > _DIRECT_WIDTH:
        return None
    # int32 holds the combined code of three labels (width**3 <= 64**3)
    return [shift_small_ints(a, lo, np.int32) for a in arrays], lo, width


def _combined_bincount(codes: Sequence[np.ndarray], width: int,
                       dtype: type[np.signedinteger] | None = None) -> np.ndarray:
    """``np.bincount`` of the mixed-radix code of several aligned code arrays.

    The code is built in ``dtype`` (default: that of ``codes[0]``), which must hold
    ``width ** len(codes) - 1``. When the table is small the rows are combined and counted a
    block at a time, so the code never leaves the cache.
    """
    cells = width ** len(codes)
    n = len(codes[0])
    step = _COUNT_BLOCK if cells <= _COUNT_BLOCK // 8 and n > _COUNT_BLOCK else max(n, 1)
    total = None
    for lo in range(0, n, step):
        part = [c[lo:lo + step] for c in codes]
        code = np.multiply(part[0], width, dtype=dtype)
        code += part[1]
        for extra in part[2:]:
            code *= width
            code += extra
        counts = np.bincount(code, minlength=cells)
        total = counts if total is None else total + counts
    return total if total is not None else np.zeros(cells, dtype=np.int64)


def _joint_direct(y: Any, a: Any, b: Any) -> JointConfusion | None:
    """Count the joint tensor straight from small-range integer labels (no re-coding), else None."""
    direct = _direct_int_codes((y, a, b))
    if direct is None:
        return None
    codes, lo, width = direct
    full = _combined_bincount(codes, width).reshape(width, width, width)
    present = (full.sum(axis=(1, 2)) + full.sum(axis=(0, 2)) + full.sum(axis=(0, 1))) > 0
    keep = np.flatnonzero(present)
    table = full if len(keep) == width else full[np.ix_(keep, keep, keep)]
    return JointConfusion(table=np.ascontiguousarray(table), classes=small_int_labels(keep, lo))


def joint_confusion(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    labels: Sequence[Any] | None = None,
) -> JointConfusion:
    """Count the joint confusion tensor of two classifiers in one pass.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels (ints or strings; no missing values).
    y_pred_a, y_pred_b : array-like of shape (n,)
        Predicted labels of classifiers A and B on the same observations.
    labels : sequence, optional
        The class list, in this order (classes that never occur get zero counts); by default
        the sorted union of the labels in the three arrays.

    Returns
    -------
    JointConfusion
        ``table[t, a, b]`` counts (true class t, A predicts a, B predicts b), ``classes``, ``n``.

    Notes
    -----
    The labels are coded 0..K-1 and combined into one code ``(t K + a) K + b``; one
    ``np.bincount`` of that code, reshaped to (K, K, K), is the table. Integer labels in a
    small range skip the re-coding step: the raw values are combined directly and classes
    that never occur are dropped afterwards. Every precision statistic for two classifiers is
    a function of this table (docs/methods.md §6).

    Examples
    --------
    Three observations, two classes:

    >>> jc = joint_confusion([0, 1, 1], [0, 1, 0], [0, 1, 1])
    >>> jc.n, jc.classes.tolist()
    (3, [0, 1])
    >>> int(jc.table[1, 0, 1])  # truly 1, A says 0, B says 1
    1
    """
    y, preds = label_columns(y_true, {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b})
    direct = None if labels is not None else _joint_direct(y, *preds.values())
    if direct is not None:
        return direct
    enc = encode_labels(y, preds, labels=labels)
    k = enc.n_classes
    dtype = np.int32 if k**3 < 2**31 else np.int64
    codes = [enc.y.astype(dtype), enc.preds[:, 0].astype(dtype), enc.preds[:, 1].astype(dtype)]
    table = _combined_bincount(codes, k).reshape(k, k, k)
    return JointConfusion(table=table, classes=enc.classes)


def class_cells(table: Any) -> np.ndarray:
    """Per-class one-vs-rest 2 x 2 x 2 tables from joint confusion tensors.

    Parameters
    ----------
    table : array-like of shape (..., K, K, K)
        Joint confusion counts ``[true, predicted by A, predicted by B]``, with any leading
        axes (for example a batch of B resampled tables of shape (B, K, K, K)).

    Returns
    -------
    ndarray of shape (..., K, 2, 2, 2)
        ``cells[..., k, d, a, b]`` = number of observations with (truth is class k) == d,
        (A predicts k) == a and (B predicts k) == b: the canonical layout ``n[d][a][b]`` of
        docs/methods.md §6.1. Same dtype as ``table`` (int64 for counts).

    Notes
    -----
    With ``x = n[k, k, k]`` and the diagonals of the three two-way margins, inclusion and
    exclusion give every cell: ``n[1][1][0] = sum_b n[k, k, b] - x``,
    ``n[1][0][0] = sum_{a,b} n[k, a, b] - n[1][1][1] - n[1][1][0] - n[1][0][1]``, and so on.
    Vectorised over classes and leading axes: no Python loop.

    Examples
    --------
    >>> jc = joint_confusion([0, 0, 1, 1, 2], [0, 1, 1, 1, 2], [0, 0, 1, 2, 2])
    >>> cells = class_cells(jc.table)
    >>> cells.shape
    (3, 2, 2, 2)
    >>> int(cells[1, 1, 1, 0])  # class 1: truly 1, A predicts 1, B does not
    1
    """
    check_counts(table, "table")
    t = np.asarray(table)
    if t.ndim < 3 or not (t.shape[-1] == t.shape[-2] == t.shape[-3]):
        raise ValueError(f"table must have shape (..., K, K, K); got shape {t.shape}")
    x111 = np.einsum("...iii->...i", t)
    ta = np.einsum("...iib->...i", t)  # truth k and A predicts k
    tb = np.einsum("...iai->...i", t)  # truth k and B predicts k
    ab = np.einsum("...tii->...i", t)  # A and B both predict k
    row = t.sum(axis=(-2, -1))  # truth k
    col_a = t.sum(axis=(-3, -1))  # A predicts k
    col_b = t.sum(axis=(-3, -2))  # B predicts k
    total = t.sum(axis=(-3, -2, -1))[..., None]
    n110 = ta - x111
    n101 = tb - x111
    n011 = ab - x111
    n100 = row - x111 - n110 - n101
    n010 = col_a - x111 - n110 - n011
    n001 = col_b - x111 - n101 - n011
    n000 = total - (x111 + n110 + n101 + n011 + n100 + n010 + n001)
    # order: d major, then a, then b -> [000, 001, 010, 011, 100, 101, 110, 111]
    stacked = np.stack([n000, n001, n010, n011, n100, n101, n110, x111], axis=-1)
    return stacked.reshape(*stacked.shape[:-1], 2, 2, 2)


def cells_from_tab_paired(
    d_a: float, d_b: float, d_c: float, d_d: float,
    nd_a: float, nd_b: float, nd_c: float, nd_d: float,
) -> np.ndarray:
    """Build the 2 x 2 x 2 cells from the arguments of DTComPair's ``read.tab.paired`` (R).

    Parameters
    ----------
    d_a, d_b, d_c, d_d : float
        Diseased (truly the class): both positive, only test 2 positive, only test 1
        positive, both negative.
    nd_a, nd_b, nd_c, nd_d : float
        The same for the non-diseased.

    Returns
    -------
    ndarray of shape (2, 2, 2)

    Notes
    -----
    DTComPair lays each 2 x 2 table out with Test 2 in rows and Test 1 in columns, so its
    ``b`` cell is (test 1 negative, test 2 positive). This helper maps its argument order onto
    the canonical ``n[d][a][b]`` (a = test 1, b = test 2; docs/methods.md §6.1), for readers
    porting R code.

    References
    ----------
    Stock & Hielscher, DTComPair: comparison of binary diagnostic tests in a paired study
    design (R package).

    Examples
    --------
    docs/methods.md §6.6(b), given to R as ``read.tab.paired(30, 4, 10, 6, 5, 3, 8, 60)``:

    >>> cells = cells_from_tab_paired(30, 4, 10, 6, 5, 3, 8, 60)
    >>> int(cells[1, 1, 0]), int(cells[1, 0, 1])  # s10 (test 1 only), s01 (test 2 only)
    (10, 4)
    """
    values = check_counts([d_a, d_b, d_c, d_d, nd_a, nd_b, nd_c, nd_d], "counts")
    da, db, dc, dd, na, nb, nc, nd = values
    cells = np.empty((2, 2, 2))
    cells[1, 1, 1], cells[1, 0, 1], cells[1, 1, 0], cells[1, 0, 0] = da, db, dc, dd
    cells[0, 1, 1], cells[0, 0, 1], cells[0, 1, 0], cells[0, 0, 0] = na, nb, nc, nd
    return cells


# --------------------------------------------------------------------------------------------
# several classifiers: joint prediction patterns and per-observation count moments
# --------------------------------------------------------------------------------------------


def as_prediction_mapping(y_preds: Any, name: str = "y_preds") -> dict[str, Any]:
    """Predictions of several classifiers as an ordered mapping name -> labels.

    Parameters
    ----------
    y_preds : mapping, DataFrame, 2-D array or sequence of 1-D arrays
        A mapping name -> labels, a DataFrame (one column per classifier), a 2-D array (one
        column per classifier, named ``clf_0``, ``clf_1``, ...) or a sequence of 1-D arrays
        (named the same way).
    name : str
        The argument's name, used in error messages.

    Returns
    -------
    dict of str -> array-like
        The predictions of each classifier, in the given order; the labels are not checked.

    Examples
    --------
    >>> list(as_prediction_mapping(np.array([[0, 1], [1, 1]])))
    ['clf_0', 'clf_1']
    """
    if isinstance(y_preds, pd.DataFrame):
        return {str(c): y_preds[c] for c in y_preds.columns}
    if isinstance(y_preds, Mapping):
        return {str(k): v for k, v in y_preds.items()}
    if isinstance(y_preds, np.ndarray):
        if y_preds.ndim != 2:
            raise ValueError(
                f"{name} must be a mapping, a DataFrame or a 2-D array (rows x classifiers); "
                f"got an array of shape {y_preds.shape}"
            )
        return {f"clf_{j}": y_preds[:, j] for j in range(y_preds.shape[1])}
    if isinstance(y_preds, str | bytes) or not isinstance(y_preds, Sequence):
        raise ValueError(
            f"{name} must be a mapping name -> predictions, a DataFrame or a sequence of arrays; "
            f"got {type(y_preds).__name__}"
        )
    return {f"clf_{j}": p for j, p in enumerate(y_preds)}


@dataclass(frozen=True)
class PatternCounts:
    """Counts of the 2^c joint prediction patterns of c classifiers, per class and truth.

    Attributes
    ----------
    counts : ndarray of int64, shape (K, 2, 2**c)
        ``counts[k, d, p]`` = number of observations with (truth is class k) == d whose
        pattern for class k is ``p``: bit j of ``p`` (value ``2**j``) is set when classifier j
        (in ``names`` order) predicts k. Pattern 0 (nobody predicts k) is included.
    classes : ndarray of shape (K,)
        Class labels.
    names : tuple of str
        Classifier names, in bit order.
    """

    counts: np.ndarray
    classes: np.ndarray
    names: tuple[str, ...]

    @property
    def n_models(self) -> int:
        """Number of classifiers."""
        return len(self.names)

    @classmethod
    def from_patterns(
        cls,
        d1: Mapping[str, float],
        d0: Mapping[str, float],
        *,
        names: Sequence[str] | None = None,
        label: Any = 1,
    ) -> PatternCounts:
        """Pattern counts of one class written as strings, as docs/methods.md §7 prints them.

        Parameters
        ----------
        d1, d0 : mapping pattern -> count
            Observations that truly are (``d1``) or are not (``d0``) the class. A pattern is
            a string of 0/1, one character per classifier in order: ``"110"`` means the first
            two classifiers predict the class and the third does not.
        names : sequence of str, optional
            Classifier names (default ``clf_0``, ``clf_1``, ...).
        label : label of the class (default 1).

        Examples
        --------
        >>> pc = PatternCounts.from_patterns({"11": 5, "10": 2}, {"01": 3})
        >>> pc.counts.shape, int(pc.counts[0, 1, 0b01])  # "10": only classifier 0 predicts
        ((1, 2, 4), 2)
        """
        keys = list(d1) + list(d0)
        if not keys:
            raise ValueError("d1 and d0 must hold at least one pattern")
        c = len(keys[0])
        for key in keys:
            if len(key) != c or set(key) - {"0", "1"}:
                raise ValueError(
                    f"patterns must be strings of 0/1 of equal length {c}; got {key!r}"
                )
        names = tuple(names) if names is not None else tuple(f"clf_{j}" for j in range(c))
        if len(names) != c:
            raise ValueError(f"names must have {c} entries (one per pattern digit); got {len(names)}")
        check_counts([*d1.values(), *d0.values()], "pattern counts")
        counts = np.zeros((1, 2, 2**c))
        for d, mapping in ((1, d1), (0, d0)):
            for key, value in mapping.items():
                code = sum(1 << j for j, ch in enumerate(key) if ch == "1")
                counts[0, d, code] += value
        counts = check_counts(counts, "pattern counts").astype(np.int64)
        return cls(counts=counts, classes=np.asarray([label]), names=names)

    def moments(self) -> PrecisionMoments:
        """Return the per-class moments (sums and cross-products) that every GEE quantity needs."""
        c = self.n_models
        bits = ((np.arange(2**c)[:, None] >> np.arange(c)) & 1).astype(self.counts.dtype)
        n1 = self.counts[:, 1, :]
        n0 = self.counts[:, 0, :]
        weighted1 = n1[:, :, None] * bits  # (K, P, c)
        weighted0 = n0[:, :, None] * bits
        zeros = np.zeros((len(self.classes), c, c), dtype=self.counts.dtype)
        return PrecisionMoments(
            n_correct=weighted1.sum(axis=1),
            n_wrong=weighted0.sum(axis=1),
            cc=np.matmul(weighted1.transpose(0, 2, 1), bits),
            cw=zeros,
            ww=np.matmul(weighted0.transpose(0, 2, 1), bits),
            classes=self.classes,
            names=self.names,
            n_rows=int(self.counts[0].sum()),
            n_clusters=int(self.counts[0].sum()),
        )


@dataclass(frozen=True)
class PrecisionMoments:
    """Per-class sums and cross-products of per-observation prediction counts.

    For class k, observation (cluster) i and classifier j let ``a_ij`` be the number of rows
    of observation i that classifier j predicts as k and whose truth is k, and ``w_ij`` the
    number of such rows whose truth is not k (without repeated rows both are 0 or 1). Every
    quantity of the GEE precision model with independence working correlation and robust
    covariance (docs/methods.md §7) is a function of these moments.

    Attributes
    ----------
    n_correct, n_wrong : ndarray of shape (K, c)
        ``sum_i a_ij`` (true positives) and ``sum_i w_ij`` (false positives).
    cc, cw, ww : ndarray of shape (K, c, c)
        ``sum_i a_ij a_il``, ``sum_i a_ij w_il`` and ``sum_i w_ij w_il``.
    classes : ndarray of shape (K,)
    names : tuple of str
    n_rows : int
        Number of rows (observations times repetitions).
    n_clusters : int
        Number of distinct observations (clusters).
    """

    n_correct: np.ndarray
    n_wrong: np.ndarray
    cc: np.ndarray
    cw: np.ndarray
    ww: np.ndarray
    classes: np.ndarray
    names: tuple[str, ...]
    n_rows: int
    n_clusters: int

    @property
    def n_predicted(self) -> np.ndarray:
        """Positive predictions per class and classifier, shape (K, c)."""
        return self.n_correct + self.n_wrong


def _encode_many(y_true: Any, y_preds: Any, labels: Sequence[Any] | None):
    mapping = as_prediction_mapping(y_preds)
    return encode_labels(y_true, mapping, labels=labels)


def pattern_counts(
    y_true: Any,
    y_preds: Any,
    *,
    labels: Sequence[Any] | None = None,
) -> PatternCounts:
    """Count the joint prediction patterns of c classifiers, per class and truth.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels.
    y_preds : mapping name -> predictions, DataFrame, 2-D array or sequence of arrays
        Each classifier's predicted labels (c <= 16 classifiers).
    labels : sequence, optional
        The class list, in this order.

    Returns
    -------
    PatternCounts

    Notes
    -----
    Each row contributes to the pattern of every class that at least one classifier predicts
    there; the pattern of classifier j's predicted class is ``sum_l 2**l [pred_l == pred_j]``,
    counted once (from the first classifier holding it). That is c(c-1)/2 comparisons and c
    ``np.bincount`` passes, whatever the number of classes.

    Examples
    --------
    >>> pc = pattern_counts([0, 1, 1], {"a": [0, 1, 0], "b": [0, 1, 1]})
    >>> int(pc.counts[1, 1, 0b11]), int(pc.counts[1, 1, 0b10])  # class 1, truly 1: both; b only
    (1, 1)
    """
    enc = _encode_many(y_true, y_preds, labels)
    c = enc.preds.shape[1]
    if c > 16:
        raise ValueError(f"y_preds must hold at most 16 classifiers for pattern counts; got {c}")
    k = enc.n_classes
    y = enc.y.astype(np.int32)
    cols = [np.ascontiguousarray(enc.preds[:, j]).astype(np.int32) for j in range(c)]
    pats = [np.full(len(y), 1 << j, dtype=np.int32) for j in range(c)]
    for j in range(c):
        for i in range(j):
            same = (cols[j] == cols[i]).astype(np.int32)
            pats[j] |= same << i
            pats[i] |= same << j
    width = 2 << c  # truth bit x pattern
    total = np.zeros(k * width, dtype=np.int64)
    for j in range(c):
        code = cols[j] * width
        code += (y == cols[j]).astype(np.int32) << c
        code += pats[j]
        if j > 0:
            code = code[(pats[j] & ((1 << j) - 1)) == 0]
        total += np.bincount(code, minlength=k * width)
    counts = total.reshape(k, 2, 2**c)
    # pattern 0 (nobody predicts k): the remaining observations of each truth value
    truth = np.bincount(y, minlength=k)
    counts[:, 1, 0] = truth - counts[:, 1, 1:].sum(axis=1)
    counts[:, 0, 0] = (len(y) - truth) - counts[:, 0, 1:].sum(axis=1)
    return PatternCounts(counts=counts, classes=enc.classes, names=enc.names)


def precision_moments(
    y_true: Any,
    y_preds: Any,
    *,
    groups: Any = None,
    labels: Sequence[Any] | None = None,
) -> PrecisionMoments:
    """Per-class moments of the prediction counts, optionally clustered by observation id.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True label of each row.
    y_preds : mapping name -> predictions, DataFrame, 2-D array or sequence of arrays
        Each classifier's predicted label of each row.
    groups : array-like of shape (n,), optional
        Observation id of each row when rows repeat (stacked out-of-fold predictions of
        repeated cross-validation): rows with the same id form one cluster. By default every
        row is its own observation.
    labels : sequence, optional
        The class list, in this order.

    Returns
    -------
    PrecisionMoments

    Notes
    -----
    With ``groups``, the per-observation counts ``a_ij`` and ``w_ij`` (docs/methods.md §7,
    "Cross-validation") are aggregated with ``np.bincount`` over the (observation, class)
    pairs that occur, and their cross-products summed per class: O(n c + U c^2) for U occupied
    pairs. Without ``groups`` the moments come from :func:`pattern_counts`.

    Examples
    --------
    The same two rows repeated three times, clustered by observation id:

    >>> mo = precision_moments([1, 0] * 3, {"a": [1, 1] * 3, "b": [1, 0] * 3}, groups=[0, 1] * 3)
    >>> mo.n_correct[1].tolist(), mo.cc[1].tolist()  # class 1: true positives; sum of a_ij a_il
    ([3, 3], [[9, 9], [9, 9]])
    """
    if groups is None:
        mapping = as_prediction_mapping(y_preds)
        if len(mapping) <= 16:
            return pattern_counts(y_true, mapping, labels=labels).moments()
    enc = _encode_many(y_true, y_preds, labels)
    n, c = enc.preds.shape
    k = enc.n_classes
    if groups is None:
        g = np.arange(n, dtype=np.int64)
        n_groups = n
    else:
        gl = as_label_array(groups, "groups")
        if len(gl) != n:
            raise ValueError(f"groups must have the same length as y_true ({n}); got {len(gl)}")
        g, uniques = pd.factorize(gl)
        g = g.astype(np.int64)
        n_groups = len(uniques)
    y = enc.y.astype(np.int64)
    keys = [g * k + enc.preds[:, j].astype(np.int64) for j in range(c)]
    if n_groups * k <= max(8 * n * c, 1 << 24):
        occupied = np.zeros(n_groups * k, dtype=bool)
        for key in keys:
            occupied[key] = True
        index = np.cumsum(occupied, dtype=np.int64) - 1
        cls_u = np.flatnonzero(occupied) % k
        idx = [index[key] for key in keys]
    else:
        uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
        cls_u = uniq % k
        idx = np.split(inverse, c)
    u = len(cls_u)
    a, w = [], []
    for j in range(c):
        correct = y == enc.preds[:, j]
        a.append(np.bincount(idx[j][correct], minlength=u))
        w.append(np.bincount(idx[j][~correct], minlength=u))
    n_correct, n_wrong, cc, cw, ww = class_moments(a, w, cls_u, n_classes=k)
    return PrecisionMoments(
        n_correct=n_correct,
        n_wrong=n_wrong,
        cc=cc,
        cw=cw,
        ww=ww,
        classes=enc.classes,
        names=enc.names,
        n_rows=n,
        n_clusters=n_groups,
    )


def class_moments(
    right: Any, wrong: Any, classes: Any, *, n_classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sum per-(cluster, class) counts and their products over the cells of each class.

    The second level of every clustered precision moment: for each occupied (cluster, class)
    cell ``u`` of class ``classes[u]``, ``right[j, u]`` rows of that truth that model ``j``
    predicts as the cell's class and ``wrong[j, u]`` rows of another truth that it predicts
    as that class. A cluster is an observation (its repeated predictions) or a group of rows.

    Parameters
    ----------
    right, wrong : array-like of int, shape (c, U)
        Whole, non-negative counts per model and cell.
    classes : array-like of int, shape (U,)
        Class code (0..K-1) of each cell.
    n_classes : int
        K.

    Returns
    -------
    tuple of ndarray of int64
        ``n_correct`` and ``n_wrong`` (K, c): the counts summed per class; ``cc``, ``cw`` and
        ``ww`` (K, c, c): the sums over a class's cells of ``right[j] * right[i]``,
        ``right[j] * wrong[i]`` and ``wrong[j] * wrong[i]``, as :class:`PrecisionMoments`
        holds them.

    Examples
    --------
    Two models, two cells of class 1 (two clusters) and one of class 0:

    >>> n_correct, n_wrong, cc, cw, ww = class_moments(
    ...     [[2, 1, 3], [1, 1, 2]], [[0, 1, 0], [1, 0, 1]], [1, 1, 0], n_classes=2)
    >>> n_correct.tolist(), cc[1].tolist(), cw[1].tolist()
    ([[3, 2], [3, 2]], [[5, 3], [3, 2]], [[1, 2], [1, 1]])

    Class 1: model 0 is right 2 + 1 times; ``cc[1][0][1]`` = 2·1 + 1·1 = 3, and
    ``cw[1][0][0]`` = 2·0 + 1·1 = 1.
    """
    k = check_positive_int(n_classes, "n_classes")
    a = check_counts(right, "right")
    if a.ndim != 2:
        raise ValueError(f"right must be a table (models, cells); got shape {a.shape}")
    w = check_counts(wrong, "wrong")
    if w.shape != a.shape:
        raise ValueError(f"wrong must have the shape of right {a.shape}; got shape {w.shape}")
    cls_u = check_pattern_codes(classes, "classes", n_rows=a.shape[1], n_classes=k)
    c = a.shape[0]

    def per_class(values: np.ndarray) -> np.ndarray:
        return np.rint(np.bincount(cls_u, weights=values, minlength=k)).astype(np.int64)

    cc = np.empty((k, c, c), dtype=np.int64)
    cw = np.empty((k, c, c), dtype=np.int64)
    ww = np.empty((k, c, c), dtype=np.int64)
    for j in range(c):
        for i in range(c):
            cw[:, j, i] = per_class(a[j] * w[i])
            if i >= j:
                cc[:, j, i] = cc[:, i, j] = per_class(a[j] * a[i])
                ww[:, j, i] = ww[:, i, j] = per_class(w[j] * w[i])
    n_correct = np.column_stack([per_class(v) for v in a]).reshape(k, c)
    n_wrong = np.column_stack([per_class(v) for v in w]).reshape(k, c)
    return n_correct, n_wrong, cc, cw, ww


def _cells_direct(y: np.ndarray, a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Per-class cells (K, 2, 2, 2) from codes without the K^3 tensor (for many classes)."""
    ya, yb, ab = y == a, y == b, a == b
    x111 = np.bincount(y[ya & yb], minlength=k)
    ta = np.bincount(y[ya], minlength=k)
    tb = np.bincount(y[yb], minlength=k)
    both = np.bincount(a[ab], minlength=k)
    row, col_a, col_b = (np.bincount(v, minlength=k) for v in (y, a, b))
    n110, n101, n011 = ta - x111, tb - x111, both - x111
    n100 = row - x111 - n110 - n101
    n010 = col_a - x111 - n110 - n011
    n001 = col_b - x111 - n101 - n011
    n000 = len(y) - (x111 + n110 + n101 + n011 + n100 + n010 + n001)
    stacked = np.stack([n000, n001, n010, n011, n100, n101, n110, x111], axis=-1)
    return stacked.reshape(k, 2, 2, 2)


def joint_confusion_or_cells(
    y_true: Any, y_pred_a: Any, y_pred_b: Any, *, labels: Sequence[Any] | None = None
) -> JointConfusion | tuple[np.ndarray, list[Any]]:
    """Count the joint confusion tensor when K^3 is small, else the per-class cells directly.

    With many classes the K x K x K tensor of :func:`joint_confusion` is too large to build
    (K = 1000 gives 10^9 cells), yet the per-class 2 x 2 x 2 cells that every precision test
    needs are K x 8 numbers. This counts whichever fits.

    Parameters
    ----------
    y_true, y_pred_a, y_pred_b : array-like of shape (n,)
        True labels and the predictions of classifiers A and B (ints or strings).
    labels : sequence, optional
        The class list, in this order; by default the sorted union of the labels.

    Returns
    -------
    JointConfusion or (ndarray of shape (K, 2, 2, 2), list)
        The joint confusion counts when K <= 128 (or the labels are small integers), else the
        cells ``n[k][d][a][b]`` of each class (as :func:`class_cells` gives) and the classes.

    Examples
    --------
    >>> jc = joint_confusion_or_cells([0, 1, 1], [0, 1, 0], [0, 1, 1])
    >>> int(jc.table[1, 0, 1])  # truly 1, A says 0, B says 1
    1
    """
    y, preds = label_columns(y_true, {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b})
    direct = _joint_direct(y, *preds.values()) if labels is None else None
    if direct is not None:
        return direct
    codes, classes = encode_label_columns({"y_true": y, **preds}, labels=labels)
    k = len(classes)
    if k <= 128:  # the combined code (t K + a) K + b in the narrowest integers that hold it
        table = _combined_bincount(codes, k, np.int16 if k**3 <= 1 << 15 else np.int32)
        return JointConfusion(table=table.reshape(k, k, k), classes=classes)
    y64, a64, b64 = (c.astype(np.int64) for c in codes)
    cells = _cells_direct(y64, a64, b64, k)
    return cells, list(classes)


# --------------------------------------------------------------------------------------------
# from a table of pattern counts (the engine's output: one row per observed pattern)
# --------------------------------------------------------------------------------------------


def _weighted_bincount(codes: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, weights=weights, minlength=k).round().astype(np.int64)


def check_pattern_codes(values: Any, name: str, *, n_rows: int | None = None,
                 n_classes: int | None = None, k_from: str = "n_classes",
                 what: str = "class codes", ndims: tuple[int, ...] = (1,)) -> np.ndarray:
    """Check the codes of a table of pattern counts: whole numbers 0..K-1, one per pattern row.

    Parameters
    ----------
    values : array-like
        The codes (class codes of the truth or of a model, or observation codes).
    name : str
        The argument's name, used in error messages.
    n_rows : int, optional
        The number of pattern rows the codes must match.
    n_classes : int, optional
        K, when known: every code must be below it.
    k_from : str
        The argument K comes from, named in the error when a code is too large.
    what : str
        What the codes are, for the error messages.
    ndims : tuple of int
        The accepted numbers of dimensions (``(1, 2)`` for one column per model).

    Returns
    -------
    ndarray of int64
        The codes.

    Raises
    ------
    ValueError
        Naming ``name`` when a code is missing, not a whole number, negative or too large, or
        the shape or length is wrong.

    Examples
    --------
    >>> check_pattern_codes([0, 1, 1.0], "y", n_classes=2).tolist()
    [0, 1, 1]
    """
    if isinstance(values, pd.DataFrame | pd.Series):
        values = values.to_numpy()
    if values is None or isinstance(values, str | bytes):
        raise ValueError(f"{name} must be an array of {what}; got {type(values).__name__}")
    arr = np.asarray(values)
    if arr.dtype.kind not in "iub":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold {what} (whole numbers); got an array of "
                             f"dtype {arr.dtype}") from None
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            raise ValueError(f"{name} must hold {what} (whole numbers); got {arr[bad][0]:g}")
    if arr.ndim not in ndims:
        dims = " or ".join(f"{d}-D" for d in ndims)
        raise ValueError(f"{name} must be {dims}; got shape {arr.shape}")
    if len(arr) == 0:
        raise ValueError(f"{name} must not be empty")
    if n_rows is not None and len(arr) != n_rows:
        raise ValueError(f"{name} must have one entry per pattern row of y ({n_rows}); "
                         f"got {len(arr)}")
    codes = arr.astype(np.int64)
    if codes.min() < 0:
        raise ValueError(f"{name} must hold {what} >= 0; got {codes.min()}")
    if n_classes is not None and codes.max() >= n_classes:
        raise ValueError(f"{name} must hold {what} below {n_classes} (the number of classes, "
                         f"from {k_from}); got {codes.max()}")
    return codes


def check_pattern_weights(weights: Any, n_rows: int) -> np.ndarray:
    """Check the count of each pattern row: whole, non-negative, one per row of ``y``.

    Parameters
    ----------
    weights : array-like of int
        Number of observations with each pattern.
    n_rows : int
        Number of pattern rows.

    Returns
    -------
    ndarray of float
        The counts (whole numbers, as :func:`precmp_lib._lib.checks.check_counts` returns them).

    Examples
    --------
    >>> check_pattern_weights([45, 15, 10], 3).tolist()
    [45.0, 15.0, 10.0]
    """
    w = check_counts(weights, "weights")
    if w.ndim != 1 or len(w) != n_rows:
        raise ValueError(f"weights must hold one count per pattern row of y ({n_rows}); "
                         f"got shape {w.shape}")
    return w


def pair_cells_from_patterns(
    y: Any, a: Any, b: Any, weights: Any, *, n_classes: int
) -> np.ndarray:
    """Per-class 2 x 2 x 2 cells of two classifiers from pattern counts, without the K^3 table.

    Parameters
    ----------
    y, a, b : array-like of int, shape (P,)
        Class codes (0..K-1) of the truth and of classifiers A and B in each pattern.
    weights : array-like of int, shape (P,)
        Number of observations with that pattern.
    n_classes : int
        K.

    Returns
    -------
    ndarray of int64, shape (K, 2, 2, 2)
        ``cells[k, d, a, b]`` as :func:`class_cells` returns for the joint confusion tensor.

    Notes
    -----
    The same inclusion and exclusion as :func:`class_cells`, with each class's margins counted
    by weighted ``np.bincount`` over the P patterns: O(P + K) memory, whatever K.

    Examples
    --------
    >>> cells = pair_cells_from_patterns([0, 1, 1], [0, 1, 0], [0, 1, 1], [2, 1, 1], n_classes=2)
    >>> cells.tolist() == class_cells(joint_confusion([0, 0, 1, 1], [0, 0, 1, 0],
    ...                                                 [0, 0, 1, 1]).table).tolist()
    True
    """
    k = check_positive_int(n_classes, "n_classes")
    y = check_pattern_codes(y, "y", n_classes=k)
    a, b = (check_pattern_codes(v, name, n_rows=len(y), n_classes=k) for v, name in ((a, "a"), (b, "b")))
    w = check_pattern_weights(weights, len(y))
    ya, yb, ab = y == a, y == b, a == b
    x111 = _weighted_bincount(y[ya & yb], w[ya & yb], k)
    ta = _weighted_bincount(y[ya], w[ya], k)
    tb = _weighted_bincount(y[yb], w[yb], k)
    both = _weighted_bincount(a[ab], w[ab], k)
    row, col_a, col_b = (_weighted_bincount(v, w, k) for v in (y, a, b))
    n110, n101, n011 = ta - x111, tb - x111, both - x111
    n100 = row - x111 - n110 - n101
    n010 = col_a - x111 - n110 - n011
    n001 = col_b - x111 - n101 - n011
    n000 = round(w.sum()) - (x111 + n110 + n101 + n011 + n100 + n010 + n001)
    stacked = np.stack([n000, n001, n010, n011, n100, n101, n110, x111], axis=-1)
    return stacked.reshape(k, 2, 2, 2)


def weighted_gram(indicator: np.ndarray, weights: np.ndarray,
                  block: int = 16_384) -> np.ndarray:
    """Return ``Iᵀ diag(w) I`` of a 0/1 rows x columns matrix, exactly, as int64.

    Every pair of columns at once (one matrix product, in blocks of rows): the rows where both
    are 1, weighted. The entries are whole numbers at most Σ w, so single precision holds them
    exactly below 2**24 (its product takes half the time and memory of double's), double
    precision below 2**53; beyond, a ValueError.

    >>> weighted_gram(np.array([[1, 0], [1, 1], [0, 1]], dtype=bool), np.array([2, 3, 4]))
    array([[5, 3],
           [3, 7]])
    """
    total = int(np.asarray(weights, dtype=np.int64).sum())
    if total >= 2**53:
        raise ValueError(f"{total:,} rows: past the exact range of a double-precision product")
    dtype = np.float32 if total < 2**24 else np.float64
    c = indicator.shape[1]
    out = np.zeros((c, c), dtype=np.float64)
    for start in range(0, len(indicator), block):
        part: np.ndarray = np.asarray(indicator[start:start + block], dtype=dtype)
        w: np.ndarray = np.asarray(weights[start:start + block], dtype=dtype)
        out += np.matmul(part.T, part * w[:, None])
    return np.rint(out).astype(np.int64)


def _unclustered_moments(y: np.ndarray, p: np.ndarray, w: np.ndarray, classes: list[Any],
                         names: tuple[str, ...]) -> PrecisionMoments:
    """Moments of a pattern table whose every counted row is its own observation.

    ``sum_i a_ij a_il`` is then the number of rows of class k that classifiers j and l both
    predict as k (rightly), and ``ww`` the rows not of class k both predict as k: for each
    class two matrix products over the patterns (:func:`weighted_gram`), every pair at once;
    ``cw`` is 0.
    """
    k, c = len(classes), p.shape[1]
    cc = np.zeros((k, c, c), dtype=np.int64)
    ww = np.zeros((k, c, c), dtype=np.int64)
    for label in range(k):
        predicted = p == label
        truth = (y == label)[:, None]
        cc[label] = weighted_gram(predicted & truth, w)
        ww[label] = weighted_gram(predicted & ~truth, w)
    n_correct = np.diagonal(cc, axis1=1, axis2=2).copy()
    n_wrong = np.diagonal(ww, axis1=1, axis2=2).copy()
    n = int(w.sum())
    return PrecisionMoments(
        n_correct=n_correct, n_wrong=n_wrong, cc=cc, cw=np.zeros_like(cc), ww=ww,
        classes=np.asarray(classes, dtype=object), names=names, n_rows=n, n_clusters=n,
    )


def moments_from_patterns(
    y: Any,
    preds: Any,
    weights: Any,
    *,
    classes: Sequence[Any],
    names: Sequence[str],
    clusters: Any = None,
) -> PrecisionMoments:
    """Per-class precision moments (docs/methods.md §7) from a table of pattern counts.

    Parameters
    ----------
    y : array-like of int, shape (P,)
        True class code of each pattern row.
    preds : array-like of int, shape (P, c)
        Each classifier's predicted class code in each pattern row.
    weights : array-like of int, shape (P,)
        Rows with that pattern.
    classes : sequence
        The K class labels (code k is ``classes[k]``).
    names : sequence of str
        The c classifier names.
    clusters : array-like of int >= 0, shape (P,), optional
        The observation (cluster) of each pattern row, when rows repeat observations (repeated
        cross-validation: the engine's per-observation table). By default every counted row is
        its own observation, so the cross-products are linear in the counts.

    Returns
    -------
    PrecisionMoments

    Notes
    -----
    Unclustered, ``sum_i a_ij a_il`` is the number of rows of class k that classifiers j and
    l both predict as k: one weighted ``np.bincount`` per pair. Clustered, the per-(cluster,
    class) counts ``a_ij``, ``w_ij`` are aggregated first (over the occupied pairs only), then
    multiplied, exactly as :func:`precision_moments` does on raw rows.

    Examples
    --------
    Two rows of one observation, summed as one cluster:

    >>> mo = moments_from_patterns([1, 1], [[1, 1], [1, 0]], [2, 1], classes=[0, 1],
    ...                            names=["a", "b"], clusters=[0, 0])
    >>> mo.n_correct[1].tolist(), mo.cc[1].tolist()
    ([3, 2], [[9, 6], [6, 4]])
    """
    if isinstance(classes, str | bytes) or not isinstance(classes, Iterable):
        raise ValueError(f"classes must be a sequence of class labels; got {classes!r:.80}")
    classes = list(classes)
    if not classes or len(set(classes)) != len(classes):
        raise ValueError(f"classes must list each class once, at least one; got {classes!r:.80}")
    k = len(classes)
    y = check_pattern_codes(y, "y", n_classes=k, k_from="classes")
    p = check_pattern_codes(preds, "preds", n_rows=len(y), n_classes=k, k_from="classes", ndims=(1, 2))
    p = p.reshape(len(y), -1)
    w = check_pattern_weights(weights, len(y)).astype(np.int64)
    c = p.shape[1]
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise ValueError(f"names must be a sequence of model names; got {names!r:.80}")
    names = list(names)
    if len(names) != c or len(set(names)) != c:
        raise ValueError(f"names must name each of the {c} models (columns of preds) once; "
                         f"got {names!r:.80}")
    if clusters is not None:
        clusters = check_pattern_codes(clusters, "clusters", n_rows=len(y), what="observation codes")
    if clusters is None:
        return _unclustered_moments(y, p, w, classes, tuple(names))
    g = np.asarray(clusters, dtype=np.int64)
    keys = [g * k + p[:, j] for j in range(c)]
    uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    idx = np.split(inverse.ravel(), c)
    cls_u = uniq % k
    u = len(uniq)
    a_, w_ = [], []
    for j in range(c):
        ok = y == p[:, j]
        a_.append(np.bincount(idx[j][ok], weights=w[ok], minlength=u))
        w_.append(np.bincount(idx[j][~ok], weights=w[~ok], minlength=u))
    n_correct, n_wrong, cc, cw, ww = class_moments(a_, w_, cls_u, n_classes=k)
    return PrecisionMoments(
        n_correct=n_correct, n_wrong=n_wrong, cc=cc, cw=cw, ww=ww, classes=np.asarray(classes, dtype=object), names=tuple(names),
        n_rows=int(w.sum()), n_clusters=len(np.unique(g)),
    )


def clustered_accuracy(
    correct: Any, size: Any, *, confidence_level: float = 0.95
) -> tuple[float, float, float]:
    """Accuracy over clusters of repeated predictions, with a cluster-robust interval.

    Parameters
    ----------
    correct : array-like, shape (G,)
        Correct predictions of each cluster (an observation's repeats).
    size : array-like, shape (G,)
        Predictions in each cluster.
    confidence_level : float

    Returns
    -------
    (accuracy, ci_low, ci_high)
        The ratio estimate ``sum correct / sum size`` with the Wald interval of its
        linearised (sandwich) variance ``G/(G-1) sum_i (c_i - acc m_i)^2 / (sum m_i)^2``,
        clipped to [0, 1]. With clusters of size 1 this is the ordinary Wald interval.

    Examples
    --------
    >>> acc, lo, hi = clustered_accuracy([3, 0, 3, 3], [3, 3, 3, 3])
    >>> round(acc, 2), round(lo, 3), round(hi, 3)
    (0.75, 0.26, 1.0)
    """
    from .._lib.dist import norm_isf

    level = check_probability(confidence_level, "confidence_level")
    c = check_counts(correct, "correct")
    m = check_counts(size, "size")
    for name, v in (("correct", c), ("size", m)):
        if v.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one count per cluster); "
                             f"got shape {v.shape}")
    if len(c) != len(m):
        raise ValueError(f"correct and size must have the same length (one entry per cluster); "
                         f"got {len(c)} and {len(m)}")
    over = np.flatnonzero(c > m)
    if len(over):
        i = int(over[0])
        raise ValueError(f"correct must not exceed size; cluster {i} has {c[i]:g} correct of "
                         f"{m[i]:g} predictions")
    g = len(c)
    if g < 2 or m.sum() <= 0:
        raise ValueError(f"correct and size must describe at least 2 clusters; got {g}")
    acc = c.sum() / m.sum()
    var = g / (g - 1) * np.sum((c - acc * m) ** 2) / m.sum() ** 2
    z = norm_isf((1 - level) / 2)
    half = z * np.sqrt(var)
    return float(acc), float(max(acc - half, 0.0)), float(min(acc + half, 1.0))
