"""Write precmp_lib/_resources/example_item_comparison.json: the comparison the item report
template shows by default (and under nbval).

The items are simulated with a fixed seed: 4 models answer 240 questions on 40 passages; a
passage makes its questions easier or harder for every model alike, and each model has its own
passage affinity, so the models' advantages cluster by passage.

Run from the repository root: ``python scripts/make_example_item_comparison.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from precmp_lib.compare.items import compare_items

ROOT = Path(__file__).resolve().parent.parent
MODELS = {"alpha": 1.1, "bravo": 0.9, "charlie": 0.5, "delta": 0.2}  # log-odds of a right answer


def items(seed: int = 0, n_passages: int = 40, per_passage: int = 6) -> pd.DataFrame:
    """One row per (question, model): the passage and whether the answer was right."""
    rng = np.random.default_rng(seed)
    passage = np.repeat(np.arange(n_passages), per_passage)
    shared = rng.normal(0.0, 0.8, n_passages)[passage] + rng.normal(0.0, 0.5, passage.size)
    rows = []
    for name, skill in MODELS.items():
        own = rng.normal(0.0, 0.6, n_passages)[passage]
        right = rng.random(passage.size) < 1.0 / (1.0 + np.exp(-(skill + shared + own)))
        rows.append(pd.DataFrame({"question": np.arange(passage.size), "model": name,
                                  "correct": right.astype(int),
                                  "passage": [f"p{c:02d}" for c in passage]}))
    return pd.concat(rows, ignore_index=True)


def comparison_json() -> str:
    """Return the example item comparison as the file holds it."""
    cmp = compare_items(items(), item="question", score="correct", cluster="passage",
                        margin=0.05, engine="numpy")
    return cmp.to_json() + "\n"


def main() -> None:
    out = ROOT / "precmp_lib" / "_resources" / "example_item_comparison.json"
    out.write_text(comparison_json(), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
