"""Result types shared by every test in precmp.

Every hypothesis test returns a :class:`TestResult`: a frozen dataclass that still unpacks
as ``statistic, pvalue = test(...)`` (like scipy's result objects), carries its method,
alternative, effect estimate with confidence interval, and says honestly when the data could
not tell the classifiers apart (``degenerate``) and why (``note``).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ALTERNATIVES", "TestResult"]

#: The alternatives a test with a direction takes (``alternative=``), as scipy names them: the
#: one list every test checks against, recorded in ``TestResult.alternative``.
ALTERNATIVES = ("two-sided", "greater", "less")

# Below this a p-value is at or near the end of double precision: it is reported with a note,
# and ``log_pvalue`` carries the evidence when the test could compute it in log space.
PVALUE_FLOOR = 1e-300


def _fmt(value: Any, digits: int = 6) -> str:
    """Short, readable rendering of a number for reprs and HTML."""
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return "(" + ", ".join(_fmt(v, digits) for v in value) + ")"
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isnan(v):
            return "nan"
        if v != 0 and (abs(v) < 1e-4 or abs(v) >= 1e6):
            return f"{v:.{digits - 2}e}"
        return f"{v:.{digits}g}"
    return str(value)


def _with_underflow_note(note: str, log_p: float) -> str:
    """``note`` with the remark that the p-value is below 1e-300 (added once)."""
    if "p < 1e-300" in note:
        return note
    text = "p < 1e-300: below the range of double precision"
    if math.isfinite(log_p):
        text += f"; log p = {log_p:.2f} (p = 10^{log_p / math.log(10):.1f})"
    return f"{note}; {text}" if note else text


@dataclass(frozen=True)
class TestResult:
    """Outcome of one hypothesis test.

    Parameters
    ----------
    statistic : float
        The test statistic (chi-square, z, t, F, or a count for exact tests).
    pvalue : float
        The p-value, in [0, 1]. Upper tails come from survival functions.
    df : float, tuple of float or None
        Degrees of freedom: a number for chi-square and t, a pair for F, None for exact tests.
    method : str
        The exact variant computed, e.g. ``"McNemar exact (binomial)"``.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    estimate : float
        The effect estimate whose direction the method documents (A minus B, A over B, ...).
    ci_low, ci_high : float
        Confidence interval for ``estimate`` at ``confidence_level``; NaN when none is defined.
    confidence_level : float
        Level of the interval; NaN when there is no interval.
    n : int or None
        Number of observations (or data sets, or resamples) the test used.
    degenerate : bool
        True when the data cannot distinguish the classifiers (statistic 0, p-value 1) or when a
        ratio was x/0 (statistic infinite, p-value 0); ``note`` says which.
    note : str
        Plain-language remark: why a result is degenerate, or a caveat about small samples.
    details : Mapping
        Method-specific extras (e.g. the discordant counts ``b`` and ``c`` of McNemar).
    log_pvalue : float
        Natural logarithm of the p-value: ``log(pvalue)`` whenever the p-value is at least
        1e-300. Below that, tests that compute it in log space (McNemar, ``combine_pvalues``)
        pass it, and it stays finite where ``pvalue`` underflows to 0; it is NaN when the
        p-value is 0 and its logarithm was not computed, and ``-inf`` for a p-value that is
        exactly 0 (e.g. a p-value of 0 combined).

    Notes
    -----
    The object unpacks as ``(statistic, pvalue)``, so code written for scipy keeps working.
    A p-value below 1e-300 (where double precision runs out) gets a note saying so, with its
    logarithm when known, instead of a bare 0.

    Examples
    --------
    >>> r = TestResult(statistic=8.333333, pvalue=0.0038924, df=1, method="McNemar chi-square")
    >>> stat, p = r
    >>> round(p, 4)
    0.0039
    >>> r.to_frame().loc[0, "method"]
    'McNemar chi-square'
    """

    __test__ = False  # not a pytest test class, despite the name

    statistic: float
    pvalue: float
    df: float | tuple[float, ...] | None = None
    method: str = ""
    alternative: str = "two-sided"
    estimate: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    confidence_level: float = math.nan
    n: int | None = None
    degenerate: bool = False
    note: str = ""
    details: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    log_pvalue: float = math.nan

    def __post_init__(self) -> None:
        p = float(self.pvalue)
        if not (math.isnan(p) or 0.0 <= p <= 1.0):
            raise ValueError(f"pvalue must lie in [0, 1]; got {p!r}")
        log_p = float(self.log_pvalue)
        if log_p > 0:
            raise ValueError(f"log_pvalue must be <= 0; got {log_p!r}")
        if p >= PVALUE_FLOOR or (math.isnan(log_p) and p > 0):
            log_p = math.log(p)  # representable: the log follows the p-value
        object.__setattr__(self, "statistic", float(self.statistic))
        object.__setattr__(self, "pvalue", p)
        object.__setattr__(self, "log_pvalue", log_p)
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))
        if p < PVALUE_FLOOR and not self.degenerate and log_p != -math.inf:
            object.__setattr__(self, "note", _with_underflow_note(self.note, log_p))

    def __iter__(self) -> Iterator[float]:
        yield self.statistic
        yield self.pvalue

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> float:
        return (self.statistic, self.pvalue)[index]

    @classmethod
    def indistinguishable(cls, method: str, note: str, **fields_: Any) -> TestResult:
        """Build the result for classifiers the data cannot tell apart: statistic 0, p-value 1.

        Parameters
        ----------
        method : str
            The test's name.
        note : str
            Why the data cannot tell the classifiers apart.
        **fields_
            Any other field of :class:`TestResult` (``statistic`` defaults to 0).

        Returns
        -------
        TestResult
            With ``pvalue=1`` and ``degenerate=True``.

        Examples
        --------
        >>> TestResult.indistinguishable("McNemar", "no discordant pairs").pvalue
        1.0
        """
        fields_.setdefault("statistic", 0.0)
        return cls(pvalue=1.0, method=method, degenerate=True, note=note, **fields_)

    def confidence_interval(self) -> tuple[float, float]:
        """Return the interval ``(ci_low, ci_high)`` for ``estimate`` (NaNs when undefined)."""
        return (self.ci_low, self.ci_high)

    def significant(self, alpha: float = 0.05) -> bool:
        """Tell whether the p-value is at most ``alpha``.

        Parameters
        ----------
        alpha : float
            Level of the decision.

        Returns
        -------
        bool
            True when ``pvalue <= alpha``.
        """
        return bool(self.pvalue <= alpha)

    def to_dict(self) -> dict[str, Any]:
        """Return all fields as a flat dict, ``details`` merged in after the standard fields."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "details"}
        for key, value in self.details.items():
            out.setdefault(key, value)
        return out

    def to_frame(self) -> pd.DataFrame:
        """Return a one-row tidy DataFrame whose columns equal the attribute names."""
        row = self.to_dict()
        if isinstance(row["df"], tuple):
            row["df"] = str(row["df"])
        return pd.DataFrame([row])

    def __str__(self) -> str:
        parts = [f"statistic={_fmt(self.statistic)}", f"pvalue={_fmt(self.pvalue)}"]
        if self.df is not None:
            parts.append(f"df={_fmt(self.df)}")
        if self.pvalue < PVALUE_FLOOR and math.isfinite(self.log_pvalue):
            parts.append(f"log_pvalue={_fmt(self.log_pvalue)}")
        if not math.isnan(self.estimate):
            parts.append(f"estimate={_fmt(self.estimate)}")
        if not math.isnan(self.ci_low):
            parts.append(f"ci=({_fmt(self.ci_low)}, {_fmt(self.ci_high)})")
        if self.degenerate:
            parts.append("degenerate=True")
        text = f"{self.method or 'TestResult'}: " + ", ".join(parts)
        return text + (f"\n  note: {self.note}" if self.note else "")

    def _repr_html_(self) -> str:
        rows: list[tuple[str, Any]] = [("statistic", self.statistic), ("p-value", self.pvalue)]
        if self.pvalue < PVALUE_FLOOR and math.isfinite(self.log_pvalue):
            rows.append(("log p-value", self.log_pvalue))
        if self.df is not None:
            rows.append(("df", self.df))
        rows.append(("alternative", self.alternative))
        if not math.isnan(self.estimate):
            rows.append(("estimate", self.estimate))
        if not math.isnan(self.ci_low):
            level = "" if math.isnan(self.confidence_level) else f" {self.confidence_level:.0%}"
            rows.append((f"CI{level}", (self.ci_low, self.ci_high)))
        if self.n is not None:
            rows.append(("n", self.n))
        rows.extend((str(k), v) for k, v in self.details.items())
        if self.degenerate:
            rows.append(("degenerate", True))
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:right'>{html.escape(_fmt(v))}</td></tr>"
            for k, v in rows
        )
        note = f"<p><em>{html.escape(self.note)}</em></p>" if self.note else ""
        title = html.escape(self.method or "TestResult")
        return f"<div><strong>{title}</strong><table>{body}</table>{note}</div>"
