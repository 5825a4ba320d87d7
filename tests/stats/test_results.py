"""TestResult: unpacking, immutability, tidy frames, HTML."""

from __future__ import annotations

import dataclasses
import math

import pytest

from precmp_lib import TestResult


def make(**kw):
    base = dict(statistic=5.4111, pvalue=0.020009, df=1, method="GEE Wald", estimate=-0.3085,
                ci_low=-0.568, ci_high=-0.049, confidence_level=0.95, n=712)
    base.update(kw)
    return TestResult(**base)


def test_unpacks_as_statistic_and_pvalue_like_scipy():
    stat, p = make()
    assert (stat, p) == (5.4111, 0.020009)
    r = make()
    assert r[0] == 5.4111 and r[1] == 0.020009 and len(r) == 2


def test_frozen():
    r = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.pvalue = 0.5


def test_confidence_interval_and_significance():
    r = make()
    assert r.confidence_interval() == (-0.568, -0.049)
    assert r.significant(0.05) and not r.significant(0.01)
    assert math.isnan(TestResult(1.0, 0.3).confidence_interval()[0])


def test_to_frame_columns_equal_attribute_names_and_details_follow():
    r = make(details={"b": 3, "c": 9})
    f = r.to_frame()
    names = [f.name for f in dataclasses.fields(TestResult) if f.name != "details"]
    assert list(f.columns[: len(names)]) == names
    assert f.loc[0, "b"] == 3 and f.loc[0, "c"] == 9
    assert f.shape == (1, len(names) + 2)
    ftest = TestResult(1.7, 0.29, df=(10, 5)).to_frame()
    assert ftest.loc[0, "df"] == "(10, 5)"


def test_pvalue_outside_unit_interval_is_rejected():
    with pytest.raises(ValueError, match=r"pvalue must lie in \[0, 1\]"):
        TestResult(1.0, 1.5)


def test_indistinguishable_policy():
    r = TestResult.indistinguishable("McNemar exact", "no discordant pairs", n=10)
    assert (r.statistic, r.pvalue, r.degenerate, r.n) == (0.0, 1.0, True, 10)
    assert "no discordant pairs" in str(r)


def test_html_and_str_are_readable():
    r = make(note="only 12 discordant pairs", details={"b": 3})
    html = r._repr_html_()
    assert "<table>" in html and "GEE Wald" in html and "95%" in html and "only 12" in html
    assert "estimate=-0.3085" in str(r)


def test_details_are_read_only():
    r = make(details={"b": 1})
    with pytest.raises(TypeError):
        r.details["b"] = 2


def test_log_pvalue_defaults_to_log_of_pvalue_and_keeps_old_calls_working():
    r = TestResult(2.5, 0.11385, 1.0, "McNemar chi-square")  # positional, as before the field
    assert r.log_pvalue == pytest.approx(math.log(0.11385), rel=1e-15)
    assert "log_pvalue" in r.to_dict() and r.to_frame().loc[0, "log_pvalue"] == r.log_pvalue
    assert dataclasses.replace(r, pvalue=0.5).log_pvalue == pytest.approx(math.log(0.5))
    assert TestResult(1.0, 0.5, log_pvalue=-3.0).log_pvalue == math.log(0.5)  # follows p
    assert math.isnan(TestResult(0.0, 0.0, degenerate=True).log_pvalue)  # unknown, not -inf
    with pytest.raises(ValueError, match=r"log_pvalue must be <= 0; got 0.5"):
        TestResult(1.0, 0.5, log_pvalue=0.5)


def test_pvalue_below_1e300_carries_a_note_once():
    r = TestResult(5000.0, 0.0, df=1, method="chi-square", log_pvalue=-2504.48, note="big")
    assert r.note == ("big; p < 1e-300: below the range of double precision; "
                      "log p = -2504.48 (p = 10^-1087.7)")
    again = dataclasses.replace(r, statistic=5001.0)  # __post_init__ runs again
    assert again.note == r.note
    assert "log_pvalue=-2504.48" in str(r) and "log p-value" in r._repr_html_()
    unknown = TestResult(5000.0, 0.0)  # p underflowed and nobody computed its log
    assert unknown.note == "p < 1e-300: below the range of double precision"
    exact_zero = TestResult(math.inf, 0.0, log_pvalue=-math.inf, note="a p-value of 0")
    assert exact_zero.note == "a p-value of 0"
    degenerate = TestResult(math.inf, 0.0, degenerate=True, note="x / 0")
    assert degenerate.note == "x / 0"
