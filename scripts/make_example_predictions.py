"""Write the example prediction files in precmp_lib/_resources/examples/ that `make report` renders.

Provenance of every shipped example file: this script, with the seeds below, on datasets that
ship with scikit-learn (no download). Re-running it reproduces the files byte for byte with the
pinned versions in requirements.txt.

    python scripts/make_example_predictions.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

OUT = Path(__file__).resolve().parent.parent / "precmp_lib" / "_resources" / "examples"
SEED = 20240501
DIGIT_NAMES = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])


def digits_wide() -> pd.DataFrame:
    """Four models on scikit-learn's handwritten digits, classes named in words, 50 % test set."""
    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te, _, id_te = train_test_split(
        X, y, np.arange(len(y)), test_size=0.5, stratify=y, random_state=SEED
    )
    models = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000, C=0.05)),
        "naive_bayes": GaussianNB(),
        "random_forest": RandomForestClassifier(n_estimators=100, max_depth=6, random_state=SEED),
        "svm": make_pipeline(StandardScaler(), SVC(C=0.5, random_state=SEED)),
    }
    frame = pd.DataFrame({"id": id_te, "digit": DIGIT_NAMES[y_te]})
    for name, model in models.items():
        frame[name] = DIGIT_NAMES[model.fit(X_tr, y_tr).predict(X_te)]
    return frame.sort_values("id").reset_index(drop=True)


def breast_cancer_cv_long(n_repeats: int = 3, n_splits: int = 5) -> pd.DataFrame:
    """Out-of-fold predictions of three models, 3 x 5-fold stratified CV, in the long layout."""
    X, y = load_breast_cancer(return_X_y=True)
    names = np.array(["malignant", "benign"])
    models = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "naive_bayes": GaussianNB(),
        "random_forest": RandomForestClassifier(n_estimators=100, random_state=SEED),
    }
    rows = []
    for repeat in range(n_repeats):
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=SEED + repeat)
        for fold, (train, test) in enumerate(folds.split(X, y)):
            for name, model in models.items():
                pred = model.fit(X[train], y[train]).predict(X[test])
                rows.append(pd.DataFrame({
                    "id": test, "repeat": repeat, "fold": fold, "model": name,
                    "y_true": names[y[test]], "y_pred": names[pred],
                }))
    return pd.concat(rows).sort_values(["repeat", "id", "model"]).reset_index(drop=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in [("digits_wide.csv", digits_wide), ("breast_cancer_cv_long.csv", breast_cancer_cv_long)]:
        path = OUT / name
        make().to_csv(path, index=False)
        print(f"wrote {path.relative_to(OUT.parent.parent)}")


if __name__ == "__main__":
    main()
