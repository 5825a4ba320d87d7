"""Structural tests of the critical-difference diagram (Agg backend; artists, not pixels)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes

from precmp_lib.course import plots
from precmp_lib.stats.posthoc import critical_difference, nemenyi, pairwise_rank_tests, rank_cliques

# Demšar (2006) §3.2.2: published average ranks of four C4.5 variants, N = 14.
DEMSAR_RANKS = pd.Series({"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964})


def _by_gid(ax: Axes, gid: str):
    return [a for a in [*ax.lines, *ax.texts, *ax.collections] if a.get_gid() == gid]


def _scores(k: int = 7, n: int = 20, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, k)) + np.linspace(0, 2.5, k),
                        columns=[f"model {j}" for j in range(k)])


def test_returns_axes_with_one_label_per_classifier():
    s = _scores()
    ax = plots.critical_difference_diagram(s)
    assert isinstance(ax, Axes)
    labels = _by_gid(ax, "cd-label")
    assert len(labels) == s.shape[1]
    assert sorted(t.get_text() for t in labels) == sorted(s.columns)
    assert len(_by_gid(ax, "cd-elbow")) == s.shape[1]
    assert [t.get_text() for t in _by_gid(ax, "cd-tick")] == [str(i) for i in range(1, 8)]


def test_cd_bar_length_is_the_critical_difference():
    s = _scores()
    ax = plots.critical_difference_diagram(s, alpha=0.10)
    (bar,) = _by_gid(ax, "cd-bar")
    x = bar.get_xdata()
    assert x[1] - x[0] == pytest.approx(critical_difference(7, 20, alpha=0.10))
    (label,) = _by_gid(ax, "cd-bar-label")
    assert "Nemenyi" in label.get_text() and "0.1" in label.get_text()


def test_clique_lines_match_the_post_hoc():
    s = _scores()
    ax = plots.critical_difference_diagram(s)
    res = nemenyi(s)
    lines = _by_gid(ax, "cd-clique")
    assert len(lines) == len(res.cliques) >= 1
    spans = sorted((min(line.get_xdata()), max(line.get_xdata())) for line in lines)
    expected = sorted((min(res.ranks[list(c)]), max(res.ranks[list(c)])) for c in res.cliques)
    for (lo, hi), (elo, ehi) in zip(spans, expected):
        assert lo == pytest.approx(elo - 0.04) and hi == pytest.approx(ehi + 0.04)


def test_demsar_figure_1a_groups_depend_on_alpha():
    # Demšar §3.2.2: alpha = 0.05 -> one group of all four; alpha = 0.10 -> two groups
    ax05 = plots.critical_difference_diagram(DEMSAR_RANKS, n_datasets=14)
    assert len(_by_gid(ax05, "cd-clique")) == 1
    ax10 = plots.critical_difference_diagram(DEMSAR_RANKS, n_datasets=14, alpha=0.10)
    assert len(_by_gid(ax10, "cd-clique")) == 2


@pytest.mark.parametrize("posthoc", ["holm", "shaffer", "bonferroni"])
def test_step_down_post_hocs_have_groups_but_no_single_cd(posthoc):
    s = _scores(k=6, n=30, seed=2)
    ax = plots.critical_difference_diagram(s, posthoc=posthoc)
    assert _by_gid(ax, "cd-bar") == []
    tab = pairwise_rank_tests(s, method=posthoc)
    names = list(s.columns)
    sig = pd.DataFrame(False, index=names, columns=names)
    for a, b in tab.loc[tab["reject"], ["model_a", "model_b"]].itertuples(index=False):
        sig.loc[a, b] = sig.loc[b, a] = True
    expected = rank_cliques(nemenyi(s).ranks, sig)
    assert len(_by_gid(ax, "cd-clique")) == len(expected)


def test_control_mode_bonferroni_dunn():
    # Demšar Figure 1(b): control C4.5, CD 1.168; only C4.5+m+cf lies beyond it
    ax = plots.critical_difference_diagram(DEMSAR_RANKS, n_datasets=14,
                                           posthoc="bonferroni_dunn", control="C4.5")
    (bar,) = _by_gid(ax, "cd-bar")
    assert np.ptp(bar.get_xdata()) == pytest.approx(1.168143, abs=5e-7)
    (group,) = _by_gid(ax, "cd-clique")
    assert min(group.get_xdata()) == pytest.approx(2.000 - 0.04)
    assert max(group.get_xdata()) == pytest.approx(3.143 + 0.04)
    bold = [t.get_text() for t in _by_gid(ax, "cd-label") if t.get_fontweight() == "bold"]
    assert bold == ["C4.5"]
    assert len(_by_gid(ax, "cd-control-band")) == 1


def test_control_mode_holm_joins_the_control_with_non_rejected():
    ax = plots.critical_difference_diagram(DEMSAR_RANKS, n_datasets=14, posthoc="holm",
                                           control="C4.5")
    # Holm rejects C4.5+m+cf and C4.5+m (docs/methods.md §5.3): the bar joins C4.5 and C4.5+cf
    (group,) = _by_gid(ax, "cd-clique")
    assert min(group.get_xdata()) == pytest.approx(2.893 - 0.04)
    assert _by_gid(ax, "cd-bar") == []


def test_best_side_and_given_axes():
    _, ax = plt.subplots()
    out = plots.critical_difference_diagram(_scores(), best="right", ax=ax, title="ranks")
    assert out is ax and ax.xaxis_inverted() and ax.get_title() == "ranks"
    assert not plots.critical_difference_diagram(_scores()).xaxis_inverted()


def test_axes_inside_a_subfigure():
    # the room for the labels comes from the width of the (sub)figure holding the axes: a
    # subfigure that fills its figure gives the same margins as the figure itself
    fig = plt.figure(figsize=(7.5, 2.5))
    inner = fig.subfigures(1, 1).subplots()
    plots.critical_difference_diagram(DEMSAR_RANKS, n_datasets=14, ax=inner)
    _, ax = plt.subplots(figsize=(7.5, 2.5))
    plots.critical_difference_diagram(DEMSAR_RANKS, n_datasets=14, ax=ax)
    assert inner.get_xlim() == pytest.approx(ax.get_xlim())
    assert len(_by_gid(inner, "cd-label")) == len(DEMSAR_RANKS)


def test_better_half_is_labelled_on_the_best_side():
    s = _scores(k=5)
    ax = plots.critical_difference_diagram(s)
    ranks = nemenyi(s).ranks
    left = {t.get_text() for t in _by_gid(ax, "cd-label") if t.get_position()[0] < 1}
    assert left == set(ranks.sort_values().index[:3])


def test_lower_is_better_flips_the_ranks():
    s = _scores(k=4)
    ax = plots.critical_difference_diagram(1 - s, higher_is_better=False)
    middle = 2.5
    shown = {}
    for label in _by_gid(ax, "cd-label"):
        lx, ly = label.get_position()
        (value,) = [t for t in _by_gid(ax, "cd-rank")
                    if abs(t.get_position()[1] + 0.03 - ly) < 1e-9
                    and (t.get_position()[0] < middle) == (lx < middle)]
        shown[label.get_text()] = float(value.get_text())
    assert shown == pytest.approx(nemenyi(s).ranks.round(2).to_dict())


def test_bad_input():
    with pytest.raises(ValueError, match="posthoc must be one of"):
        plots.critical_difference_diagram(_scores(), posthoc="tukey")
    with pytest.raises(ValueError, match="posthoc must be one of"):
        plots.critical_difference_diagram(_scores(), posthoc="nemenyi", control="model 0")
    with pytest.raises(ValueError, match="best must be one of"):
        plots.critical_difference_diagram(_scores(), best="top")
