"""Write precmp_lib/_resources/example_probability_comparison.json: the comparison the
probabilities report template shows by default (and under nbval).

Five models' probabilities of the positive class are simulated with a fixed seed for 300
observations: each model's log-odds is the truth's signal times its strength plus a noise of
its own and a share of a noise common to all models (so that their AUCs are correlated, as
models trained on the same data are); one model is over-confident (its log-odds doubled), one
rounded to tenths as a tree's leaves would be.

Run from the repository root: ``python scripts/make_example_probability_comparison.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from precmp_lib.compare.probabilities import compare_probabilities

ROOT = Path(__file__).resolve().parent.parent
MODELS = {"logistic": 2.2, "boosting": 2.4, "forest": 2.0, "bayes": 1.6, "tree": 1.4}


def probabilities(seed: int = 0, n: int = 300) -> pd.DataFrame:
    """One row per observation: the truth and each model's probability of 'disease'."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.35
    common = rng.normal(size=n)
    out = pd.DataFrame({"id": np.arange(n), "diagnosis": np.where(y, "disease", "healthy")})
    for name, strength in MODELS.items():
        logit = strength * (2 * y - 1) + 0.8 * common + 0.7 * rng.normal(size=n)
        if name == "bayes":
            logit = 2 * logit
        p = 1 / (1 + np.exp(-logit))
        out[name] = np.round(p, 1) if name == "tree" else np.round(p, 6)
    return out


def comparison_json() -> str:
    """Return the example probabilities comparison as the file holds it."""
    cmp = compare_probabilities(probabilities(), y_true="diagnosis", proba=list(MODELS),
                                positive="disease", engine="numpy")
    return cmp.to_json() + "\n"


def main() -> None:
    out = ROOT / "precmp_lib" / "_resources" / "example_probability_comparison.json"
    out.write_text(comparison_json(), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
