"""The item page: its first sentence, and the page for many models (ranking, heat map, folds).

Reference values: the comparison's own tables (``compare_items`` on random items, checked
against the per-pair functions in tests/stats/test_allpairs.py); the heat map's quantised
numbers are decoded here and compared with ``all_pairs`` within their quantisation step.
"""

from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pandas as pd
import pytest

from precmp_lib import compare_items
from precmp_lib.compare.items import MANY_MODELS
from precmp_lib.report.item_sections import item_sections, item_toc
from precmp_lib.stats.multiple import adjust_pvalues


def _frame(models: int, items: int = 120, tasks: int = 1, seed: int = 0,
           names: list[str] | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = names or [f"m{j:03d}" for j in range(models)]
    skill = np.linspace(0.4, 0.8, models)
    frame = pd.DataFrame({"item": np.tile(np.arange(items), models),
                          "model": np.repeat(names, items),
                          "task": np.tile([f"t{i % tasks}" for i in range(items)], models),
                          "passage": np.tile(np.arange(items) // 4, models)})
    frame["score"] = (rng.random(len(frame)) < np.repeat(skill, items)).astype(int)
    return frame


def _first_sentence(page: str) -> str:
    return html.unescape(re.search(r'<p class="rec">(.*?)</p>', page).group(1))


def test_the_first_sentence_of_a_single_task_page_is_the_difference_and_its_interval():
    cmp = compare_items(_frame(3, items=200), cluster="passage")
    first = _first_sentence(item_sections(cmp))
    top, second = cmp.summary.sort_values("score", ascending=False)["model"].tolist()[:2]
    row = cmp.pairs[(cmp.pairs.model_a == top) & (cmp.pairs.model_b == second)].iloc[0]
    assert first.startswith(f"{top} − {second} = {100 * row.estimate:+.1f} points, 95 % interval "
                            f"{100 * row.ci_low:+.1f} to {100 * row.ci_high:+.1f}")
    assert "Holm-adjusted p" in first


def test_up_to_ten_models_keep_todays_page():
    cmp = compare_items(_frame(MANY_MODELS, items=60))
    assert cmp.settings["family"] == "all" and cmp.all_pairs.empty
    assert len(cmp.pairs) == MANY_MODELS * (MANY_MODELS - 1) // 2
    page = item_sections(cmp)
    assert 'id="pi-pairs"' in page and "<canvas" not in page


def test_many_tasks_fold_into_one_figure_and_one_table_of_their_pairs():
    """57 subjects are one look: the all-tasks figures, one figure with a row per task, and
    every task's pairs in one folded table (two figures per task took most of the page's time)."""
    from precmp_lib.report.item_sections import FOLD_TASKS

    many = compare_items(_frame(3, items=600, tasks=FOLD_TASKS + 4), task="task",
                         cluster="passage")
    page = item_sections(many)
    # the all-tasks scores, the all-tasks pairs, and the figure of every task
    assert page.count("<img ") == 3
    assert f"Each model&#x27;s mean score on each of the {FOLD_TASKS + 4} tasks" in page
    assert f"The pairs on each of the {FOLD_TASKS + 4} tasks ({3 * (FOLD_TASKS + 4)} rows)" in page  # 3 pairs a task
    folded = page.split(f"The pairs on each of the {FOLD_TASKS + 4} tasks")[1].split("</table>")[0]
    for t in range(FOLD_TASKS + 4):  # every task's three pairs are in the folded table
        assert len(re.findall(f">t{t}</td>", folded)) == 3
    # the power of each task folds the same way; the all-tasks sentence stays in view
    power = page.split('id="pi-power"')[1]
    assert power.index("all tasks together: with 600 items") < power.index("<details")
    # up to FOLD_TASKS tasks, each keeps its own two figures
    few = item_sections(compare_items(_frame(3, items=600, tasks=FOLD_TASKS), task="task",
                                      cluster="passage"))
    assert few.count("<img ") == 2 * (FOLD_TASKS + 1) and "<details class=\"more\"><summary>The pairs on each" not in few


@pytest.mark.parametrize("models", [12, 60])
def test_many_models_lead_with_the_ranking_and_one_heat_map(models):
    cmp = compare_items(_frame(models, tasks=3), task="task", cluster="passage")
    per_task = cmp.pairs.groupby("task").size()
    assert (per_task == models - 1).all()  # each against the leader, not k(k-1)/2
    assert len(cmp.all_pairs) == models * (models - 1) // 2
    np.testing.assert_allclose(cmp.all_pairs["pvalue_adjusted"],
                               adjust_pvalues(cmp.all_pairs["pvalue"].to_numpy(), "holm"),
                               rtol=1e-12)
    page = item_sections(cmp)
    assert page.count("<canvas") == 1 and page.count("<script>") == 1
    assert "src=" not in re.search(r"<script>.*?</script>", page, flags=re.S).group(0)
    order = [m.start() for m in re.finditer(r'<h2 id="(pi-[a-z]+)"', page)]
    ids = re.findall(r'<h2 id="(pi-[a-z]+)"', page)
    assert ids[:3] == ["pi-conclusion", "pi-ranking", "pi-heatmap"] and order == sorted(order)
    assert f"{models - 1:,} pairs per task, not {models * (models - 1) // 2:,}" in page
    assert _first_sentence(page).startswith("Over all 3 tasks (mean item score): ")
    assert "pi-heatmap" in item_toc(cmp)
    # the ranking: one row per model, each against the leader
    ranking = re.search(r'id="pi-ranking".*?<tbody>(.*?)</tbody>', page, flags=re.S).group(1)
    assert ranking.count("<tr>") == models


def test_the_heat_map_holds_every_pair_within_its_quantisation():
    cmp = compare_items(_frame(14, items=150), cluster="passage")
    page = item_sections(cmp)
    box = re.search(r'<div class="heatmap" ([^>]*)>', page).group(1)
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', box))
    names = json.loads(html.unescape(attrs["names"]))
    k = len(names)
    diff = np.frombuffer(base64.b64decode(attrs["diff"]), dtype="<i2") * float(attrs["scale"]) / 32767
    logp = np.frombuffer(base64.b64decode(attrs["logp"]), dtype="<u2") / 1000
    position = {m: i for i, m in enumerate(names)}
    for r in cmp.all_pairs.itertuples():
        a, b = position[r.model_a], position[r.model_b]
        lo, hi, sign = min(a, b), max(a, b), 1 if a < b else -1
        n = lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)
        assert sign * diff[n] == pytest.approx(r.estimate, abs=float(attrs["scale"]) / 32767)
        assert logp[n] == pytest.approx(-np.log10(max(r.pvalue_adjusted, 1e-65)), abs=1e-3)


def test_the_heat_maps_still_image_shows_every_decision():
    """Where scripts do not run (a notebook's output in JupyterLab), the page shows a PNG of
    the heat map: each cell's colour family is its pair's Holm decision and direction."""
    import io

    from PIL import Image

    from precmp_lib.report.html import _heat_cell

    cmp = compare_items(_frame(24, items=200, seed=3), cluster="passage")
    page = item_sections(cmp)
    png = re.search(r'<div class="hm-static"><p><img src="data:image/png;base64,([^"]+)"', page)
    image = Image.open(io.BytesIO(base64.b64decode(png.group(1)))).convert("RGB")
    names = json.loads(html.unescape(re.search(r'data-names="([^"]*)"', page).group(1)))
    k, cell = len(names), _heat_cell(len(names))
    assert image.size == (k * cell, k * cell)
    at = {m: i for i, m in enumerate(names)}
    seen = set()
    for r in cmp.all_pairs.itertuples():
        for row, col, sign in ((r.model_a, r.model_b, 1), (r.model_b, r.model_a, -1)):
            red, green, blue = image.getpixel((at[col] * cell + cell // 2, at[row] * cell + cell // 2))
            if not r.reject:
                kind = "grey"
                assert red == green == blue == 217
            elif sign * r.estimate > 0:  # the row's model shown better: blue
                kind = "blue"
                assert blue > green > red
            else:
                kind = "vermillion"
                assert red > green > blue
            seen.add(kind)
    assert seen == {"grey", "blue", "vermillion"}  # the data hold every kind of cell
    assert image.getpixel((cell // 2, cell // 2)) == (255, 255, 255)  # the diagonal
    # one line of power (one task) is said, not folded under "1 lines"
    power = page.split('id="pi-power"')[1]
    assert "<details" not in power.split("</ul>")[0] and "1 lines" not in page


def test_hostile_model_names_reach_the_heat_map_as_text():
    names = [f"<script>alert({j})</script>" if j == 3 else f'm"{j}' for j in range(12)]
    cmp = compare_items(_frame(12, names=names))
    page = item_sections(cmp)
    assert "<script>alert(3)" not in page
    box = re.search(r'<div class="heatmap" ([^>]*)>', page).group(1)
    assert json.loads(html.unescape(re.search(r'data-names="([^"]*)"', box).group(1)))[0] in names


def test_the_reference_is_the_family_and_the_page_says_so():
    cmp = compare_items(_frame(12, items=100), reference="m005")
    assert cmp.settings["family"] == "reference" and len(cmp.pairs) == 11
    assert all("m005" in (r.model_a, r.model_b) for r in cmp.pairs.itertuples())
    assert cmp.recommendation.startswith("Against m005 (each model against it, Holm over 11 pairs")
    page = item_sections(cmp)
    # the page also holds the heat map of every pair, and says so (the leader's page did; the
    # reference's did not)
    assert ("tested against the reference, m005 (--reference; 11 pairs per task), Holm's "
            "adjustment over those pairs; the heat map tests every pair, Holm over all 66.") in \
        html.unescape(page)
    assert '<div class="heatmap"' in page
    assert "then its difference from the reference with its interval" in page
    # the section, its entry in the contents and the table set the models against the reference
    assert '<h2 id="pi-ranking">Ranking, each model against the reference</h2>' in page
    assert "Ranking, each model against the reference" in item_toc(cmp)
    assert "against the reference</th>" in page and "against the leader" not in page
    with pytest.raises(ValueError, match="reference 'zz' is not one of the models"):
        compare_items(_frame(3, items=20), reference="zz")


def test_every_pair_can_be_asked_for_beyond_ten_models():
    cmp = compare_items(_frame(12, items=80), family="all")
    assert len(cmp.pairs) == 66 and cmp.settings["family"] == "all"
    np.testing.assert_allclose(cmp.pairs["pvalue_adjusted"].to_numpy(),
                               cmp.all_pairs["pvalue_adjusted"].to_numpy(), rtol=1e-12)
