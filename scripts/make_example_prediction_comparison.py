"""Write precmp_lib/_resources/example_prediction_comparison.json: the comparison the report template shows
by default (and under nbval), computed from the shipped examples/digits_wide.csv.

Run from the repository root: ``python scripts/make_example_prediction_comparison.py``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from precmp_lib.compare.predictions import compare_models
from precmp_lib.sources.datasets import resource_path

ROOT = Path(__file__).resolve().parent.parent


def comparison_json() -> str:
    """Return the example comparison as the file holds it."""
    frame = pd.read_csv(resource_path("examples/digits_wide.csv"))
    cmp = compare_models(frame, y_true="digit", id="id", prevalence={"eight": 0.05}, n_boot=200)
    return cmp.to_json() + "\n"


def main() -> None:
    out = ROOT / "precmp_lib" / "_resources" / "example_prediction_comparison.json"
    out.write_text(comparison_json(), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
