"""The type-I error simulation: vectorised over data sets and splits against one fit per split.

``type1_error_simulation`` trains the nearest-centroid learners of every split of every simulated
data set in a few ``einsum`` calls. The baseline does what one would write with scikit-learn: for
each data set, ``paired_cv_scores`` with two ``NearestCentroid`` pipelines on each scheme (30
random splits, 10 x 10-fold CV, 5x2cv), then the tests. This prints the seconds per simulated data
set of both and their ratio.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.neighbors import NearestCentroid
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from threadpoolctl import threadpool_limits

import precmp_lib as pc
from precmp_lib.course.type1 import type1_error_simulation

H, N, SEPARATION = 5, 200, 1.5


def _first_block(X):
    return X[:, :H]


def _second_block(X):
    return X[:, H:]


def _loop(n_sets: int, seed: int) -> float:
    """Seconds per data set for the scikit-learn loop (all schemes, all tests)."""
    a = make_pipeline(FunctionTransformer(_first_block), NearestCentroid())
    b = make_pipeline(FunctionTransformer(_second_block), NearestCentroid())
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], N // 2)
    start = time.perf_counter()
    for i in range(n_sets):
        X = rng.standard_normal((N, 2 * H))
        X[y == 1] += SEPARATION / np.sqrt(H)
        kw = {"random_state": i, "progress": False}
        hold = pc.paired_cv_scores(a, b, X, y, scheme="resampled", n_splits=30, **kw)
        pc.corrected_resampled_ttest(hold.scores_a, hold.scores_b,
                                     test_train_ratio=hold.test_train_ratio)
        cv = pc.paired_cv_scores(a, b, X, y, scheme="repeated_kfold", **kw)
        pc.corrected_resampled_ttest(cv.scores_a, cv.scores_b, test_train_ratio=1 / 9)
        five = pc.paired_cv_scores(a, b, X, y, scheme="5x2", **kw)
        pc.ftest_5x2cv(five.scores_a, five.scores_b)
    return (time.perf_counter() - start) / n_sets


def _vectorised(n_sets: int, seed: int) -> float:
    start = time.perf_counter()
    type1_error_simulation(n_simulations=n_sets, n_samples=N, n_features=H,
                              separation=SEPARATION, random_state=seed, progress=False)
    return (time.perf_counter() - start) / n_sets


def main() -> None:
    with threadpool_limits(limits=1):
        loop = _loop(3, seed=0)
        vec = _vectorised(1000, seed=0)
    print(f"{'method':<34}{'s per data set':>16}")
    print(f"{'scikit-learn loop (140 splits)':<34}{loop:>16.4f}")
    print(f"{'type1_error_simulation':<34}{vec:>16.5f}")
    print(f"{'ratio (loop / vectorised)':<34}{loop / vec:>16.0f}")


if __name__ == "__main__":
    main()
