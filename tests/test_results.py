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
