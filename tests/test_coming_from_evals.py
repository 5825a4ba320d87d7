"""docs/coming_from_evals.md runs: every example on the page is executed and its output compared.

The page sets precmp beside lm-evaluation-harness, inspect and HELM. Those tools are not
dependencies, so the page writes out the formula each applies (lm-evaluation-harness's
``mean_stderr`` and ``scripts/model_comparator.py``, inspect's ``stderr(cluster=...)``); doctest
checks every printed number here, so the page cannot drift from what the library returns.
"""

from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "coming_from_evals.md"


def test_every_code_block_is_an_executed_example():
    blocks = re.findall(r"```(\w*)\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 8
    for language, body in blocks:
        assert language == "python" and body.lstrip().startswith(">>>"), body[:80]


def test_page_examples_give_the_printed_output():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = doctest.testfile(str(PAGE), module_relative=False, report=True,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 40
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples on the page fail"


def test_the_written_out_formulas_are_the_library_values():
    """The page's central claims, restated: inspect's clustered stderr is precmp's CR1 SE."""
    import numpy as np
    import pandas as pd

    import precmp_lib as pc

    rng = np.random.default_rng(5)
    g = rng.integers(0, 17, 200)
    s = rng.random(200)
    dev = pd.Series(s - s.mean()).groupby(g).sum()
    c = len(dev)
    inspect_se = np.sqrt(c / (c - 1) * np.sum(dev**2)) / len(s)
    ours = pc.paired_difference(s, np.zeros_like(s), clusters=g).details["se"]
    assert abs(ours - inspect_se) < 1e-12
    lm_eval_se = s.std(ddof=1) / np.sqrt(len(s))
    assert abs(pc.paired_difference(s, np.zeros_like(s)).details["se"] - lm_eval_se) < 1e-12
