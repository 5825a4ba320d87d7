"""The predictions report's words say what the data show and what ran."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from precmp_lib.compare import predictions as comparison
from precmp_lib.compare.predictions import compare_models

ROOT = Path(__file__).resolve().parents[2]


def _three_models(seed: int = 4, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    out = {"y": y}
    for name, rate in (("a", 0.1), ("b", 0.2), ("c", 0.35)):
        wrong = rng.random(n) < rate
        out[name] = np.where(wrong, (y + rng.integers(1, 3, n)) % 3, y)
    return pd.DataFrame(out)


def test_first_screen_precision_line_counts_every_test_of_the_page():
    cmp = compare_models(_three_models(), y_true="y")
    line = next(b for b in cmp.conclusions if b.startswith("Precision"))
    a = cmp.alpha
    per_class = cmp.per_class.dropna(subset=["gs_pvalue"])
    gee = cmp.gee.dropna(subset=["pvalue_adjusted"])
    combined = cmp.combined.dropna(subset=["pvalue_adjusted"])
    # each count read from its own table of the page
    assert f"{(per_class.gs_pvalue_adjusted <= a).sum()} of {len(per_class)} class comparisons " \
           "(GS test)" in line
    assert f"{(gee.pvalue_adjusted <= a).sum()} of {len(gee)} classes (GEE, all models)" in line
    assert f"{(combined.pvalue_adjusted <= a).sum()} of {len(combined)} pairs (across classes)" \
        in line


def test_a_pair_not_shown_to_differ_says_what_the_data_could_detect():
    y = np.array([0, 1] * 30)
    b = y.copy()
    b[:2] = 1 - b[:2]  # b wrong twice, a never: b = 2, c = 0 of n = 60
    cmp = compare_models(pd.DataFrame({"y": y, "a": y, "b": b}), y_true="y")
    # paired z: (z_0.975 + z_0.8) sd / sqrt(n), sd of the differences sqrt(2/60 - (2/60)^2)
    mde = ((stats.norm.isf(0.025) + stats.norm.isf(0.2)) * np.sqrt(2 / 60 - (2 / 60) ** 2)
           / np.sqrt(60))
    assert cmp.pairs.loc[0, "mde"] == pytest.approx(mde, rel=1e-12)
    assert f"Not shown to differ; these data detect {100 * mde:.1f} points with 80 % power." \
        in cmp.details[0]
    assert "tied" not in cmp.recommendation


def test_the_readme_and_the_methods_say_which_mcnemar_test_the_page_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    methods = (ROOT / "docs" / "methods.md").read_text(encoding="utf-8")
    below = comparison.MIDP_BELOW
    assert re.search(rf"mid-p when the models\s+disagree on fewer than {below} observations", readme)
    assert f"b + c < {below}" in methods and "mid-p" in methods

