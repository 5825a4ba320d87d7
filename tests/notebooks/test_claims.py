"""Every hand-written claim of the course (tests/claims.py) stands where it is registered and
agrees with the computation registered beside it."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from claims import CLAIMS, Claim
from conftest import ROOT

ALL = [(notebook, claim) for notebook, claims in CLAIMS.items() for claim in claims]


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def _text(path: Path) -> str:
    """A document's words: every cell of a notebook (markdown and code), or a text file."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return _plain(" ".join("".join(c["source"]) for c in cells))
    return _plain(path.read_text())


def test_tables_are_named_after_course_notebooks():
    names = {p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert set(CLAIMS) <= names


@pytest.mark.parametrize(("notebook", "claim"), ALL,
                         ids=[f"{nb}:{c.check.__name__}:{i}" for i, (nb, c) in enumerate(ALL)])
def test_claim(notebook: str, claim: Claim):
    assert (ROOT / claim.file).is_file(), claim.file
    assert _plain(claim.says) in _text(ROOT / claim.file), f"{claim.file} no longer says: {claim.says!r}"
    claim.check()
