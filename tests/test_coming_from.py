"""docs/coming_from.md runs: every example on the page is executed and its output compared.

The page sets precmp beside mlxtend, statsmodels, scipy and scikit-posthocs; each claim there is
an example whose printed output doctest checks here against the installed (pinned) versions, so
the page cannot drift from what the libraries do.
"""

from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "coming_from.md"


def test_every_code_block_is_an_executed_example():
    blocks = re.findall(r"```(\w*)\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 10
    for language, body in blocks:
        assert language == "python" and body.lstrip().startswith(">>>"), body[:80]


def test_page_examples_give_the_printed_output():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # peers' own deprecation and runtime warnings
        result = doctest.testfile(str(PAGE), module_relative=False, report=True,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 60
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples on the page fail"
