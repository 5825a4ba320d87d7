"""The McNemar explorer's update logic (a plain function) and its widget shell."""

from __future__ import annotations

import pytest

from precmp_lib.course import widgets


def test_state_matches_methods_table():
    # docs/methods.md §2, Raschka scenario B (25, 15)
    s = widgets.mcnemar_state(25, 15)
    assert list(s.index) == ["chi2", "chi2_corrected", "exact", "midp"]
    assert s.loc["chi2", "pvalue"] == pytest.approx(0.11385, rel=1e-4)
    assert s.loc["midp", "pvalue"] == pytest.approx(0.11728, rel=1e-4)
    assert not s["reject"].any()


def test_state_degenerate_and_alpha():
    s = widgets.mcnemar_state(0, 0)
    assert s["degenerate"].all() and (s["pvalue"] == 1).all()
    assert widgets.mcnemar_state(11, 1, alpha=0.005)["reject"].tolist() == [True, False, False, True]


def test_explorer_builds_and_updates():
    box = widgets.mcnemar_explorer(b=3, c=4, max_count=20)
    sliders = box.children[0].children
    assert [s.value for s in sliders] == [3, 4] and sliders[0].max == 20
    table = box.children[1]
    assert "<table" in table.value and "0.70546" in table.value  # (3, 4): chi2 p, docs/methods.md §2
    sliders[0].value = 11
    sliders[1].value = 1
    assert "0.00389" in table.value and "0.00635" in table.value  # Raschka A, docs/methods.md §2
