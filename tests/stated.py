"""Check that a sentence a notebook wrote states exactly the numbers it should.

The conclusion sentences of the course notebooks are built from the run's numbers and saved in
results.json; each notebook's contract test formats those numbers again from results.json and
asserts that the sentence states these and no others, so that the prose cannot drift from the
output it sits next to.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

# a number written in prose: an optional sign (ASCII or the minus sign), digits, decimals; not
# digits glued to a word (model_1, 5x2cv's "x2", "χ²" has no decimal digit)
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?")


def numbers_in(text: str, ignore: Iterable[str] = ()) -> Counter[str]:
    """The numbers a text states, as written (the minus sign read as '-'), after removing the
    ``ignore`` strings (names that contain digits) and the thousands gaps of "10 000"."""
    for word in ignore:
        text = text.replace(str(word), " ")
    text = re.sub(r"(?<![\d.])(\d{1,3}) (\d{3})(?!\d)", r"\1\2", text).replace("−", "-")
    return Counter(_NUMBER.findall(text))


def assert_states(text: str, expected: Iterable[object], ignore: Iterable[str] = ()) -> None:
    """Assert that ``text`` states exactly the numbers of ``expected`` (already formatted)."""
    want = numbers_in(" ; ".join(str(e) for e in expected))
    got = numbers_in(text, ignore)
    assert got == want, (f"stated but not expected: {dict(got - want)}; expected but not stated: "
                         f"{dict(want - got)}\nin: {text}")
