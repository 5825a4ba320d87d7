"""Write precmp_lib/_resources/example_dataset_comparison.json: the comparison the data-set
report template shows by default (and under nbval).

The results are simulated with a fixed seed, as a 3 x 10-fold cross-validation of five
classifiers on 20 data sets would give them: each data set has its size and difficulty, each
model its advantage and its own affinity to each data set, and each fold's accuracy is a count
of right answers among the fold's test cases (so equal accuracies occur, as they do).

Run from the repository root: ``python scripts/make_example_dataset_comparison.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from precmp_lib.compare.datasets import compare_datasets

ROOT = Path(__file__).resolve().parent.parent
# each model's advantage in accuracy over a data set's typical model
MODELS = {"rf": 0.03, "knn": 0.015, "lr": 0.02, "nb": -0.025, "tree": -0.015}


def results(seed: int = 0, n_datasets: int = 20, repeats: int = 3, folds: int = 10) -> pd.DataFrame:
    """One row per data set, model, repeat and fold: the fold's test accuracy."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(150, 2000, n_datasets)
    typical = rng.uniform(0.68, 0.93, n_datasets)
    rows = []
    for d in range(n_datasets):
        n_test = int(sizes[d]) // folds
        for name, edge in MODELS.items():
            p = float(np.clip(typical[d] + edge + rng.normal(0.0, 0.02), 0.01, 0.995))
            for r in range(repeats):
                right = rng.binomial(n_test, p, folds)
                rows += [{"dataset": f"d{d + 1:02d}", "model": name, "repeat": r, "fold": f,
                          "score": right[f] / n_test} for f in range(folds)]
    return pd.DataFrame(rows)


def comparison_json() -> str:
    """Return the example data-set comparison as the file holds it."""
    cmp = compare_datasets(results(), engine="numpy")
    return cmp.to_json() + "\n"


def main() -> None:
    out = ROOT / "precmp_lib" / "_resources" / "example_dataset_comparison.json"
    out.write_text(comparison_json(), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
