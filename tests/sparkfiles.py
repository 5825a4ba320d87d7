"""Files the Spark tests report on (the standalone cluster and the Spark Connect server)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def cv_file(path: Path, seed: int) -> None:
    """Write 3 repeats of 4-fold cross-validation of 150 observations as Parquet.

    Three models (lr, rf, nb, right about 60, 70 and 80 % of the time) and three text classes.
    """
    rng = np.random.default_rng(seed)
    n, repeats, folds = 150, 3, 4
    y = rng.choice(["cat", "dog", "fox"], n)
    parts = []
    for r in range(repeats):
        fold = rng.permutation(n) % folds
        part = {"id": np.arange(n), "repeat": r, "fold": fold, "y_true": y}
        for j, m in enumerate(["lr", "rf", "nb"]):
            part[m] = np.where(rng.random(n) < 0.6 + 0.1 * j, y, rng.choice(["cat", "dog", "fox"], n))
        parts.append(pd.DataFrame(part))
    pd.concat(parts, ignore_index=True).to_parquet(path, index=False)
