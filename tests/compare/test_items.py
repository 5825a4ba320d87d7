"""Item tables read by the three engines, and the numbers of the item comparison.

Reference values: a six-item example worked by hand below (Obuchowski's statistic and the CR1
standard error written out), statsmodels' cluster-robust OLS called in the test, and the
library's own row-level functions (``clustered_mcnemar``, ``paired_difference``) on the same
items.
"""

from __future__ import annotations

import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from precmp_lib import clustered_mcnemar, compare_items, count_items, paired_difference
from precmp_lib.core.items import ItemSums
from precmp_lib.engine.items import ItemFileError, parse_scores
from precmp_lib.report.html import esc
from precmp_lib.stats.paired import PairedSums, paired_difference_from_sums


def _clustered_items(seed: int = 3, n: int = 48, models: int = 3, samples: int = 2) -> pd.DataFrame:
    """Answers of ``models`` models, ``samples`` each, to ``n`` items in passages of 4, two tasks.

    Scores are multiples of 1/4 or 0/1 and items are answered twice (item means and
    within-item variances are then multiples of 1/32), so every sum is exact in binary floating
    point and the engines must agree bit for bit whatever order they add in.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(models):
        for q in range(samples):
            rows.append(pd.DataFrame({
                "question": [f"q{i}" for i in range(n)], "llm": f"model {j}",
                "score": rng.integers(0, 5, n) / 4 if q % 2 else rng.integers(0, 2, n),
                "passage": [f"p{i // 4}" for i in range(n)], "draw": q,
                "bench": np.where(np.arange(n) % 3 == 0, "b1", "b2")}))
    return pd.concat(rows, ignore_index=True).sample(frac=1.0, random_state=seed)


ROLES = {"item": "question", "model": "llm", "score": "score", "cluster": "passage",
         "sample": "draw", "task": "bench"}


def _plain(parts: list[ItemSums]) -> list[dict]:
    keep = []
    for p in parts:
        d = p.to_dict()
        for k in ("engine", "source", "notes"):
            d.pop(k)
        keep.append(d)
    return keep


def test_engines_agree_bit_for_bit_on_clustered_items(tmp_path):
    frame = _clustered_items()
    frame.to_csv(tmp_path / "items.csv", index=False)
    frame.to_parquet(tmp_path / "items.parquet", index=False)
    reference = _plain(count_items(frame, **ROLES, engine="numpy"))
    assert [r["task"] for r in reference] == ["b1", "b2"]
    assert reference[0]["n_clusters"] == 12 and reference[0]["k_max"] == 2
    for source, engine in [(frame, "duckdb"), (str(tmp_path / "items.csv"), "duckdb"),
                           (str(tmp_path / "items.parquet"), "duckdb"),
                           (str(tmp_path / "items.csv"), "numpy")]:
        assert _plain(count_items(source, **ROLES, engine=engine)) == reference, (engine, source)


def test_spark_agrees_bit_for_bit_on_clustered_items(tmp_path):
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless (or set "
                    "JAVA_HOME); they are part of `make test`")
    frame = _clustered_items(seed=5, n=24)
    # task b1 on a 0-10 scale (a judge's), b2 on 0-1: each task's unit flag, clusters and
    # cluster sums must come out of Spark as they do out of numpy
    frame.loc[frame["bench"] == "b1", "score"] *= 10
    frame.to_csv(tmp_path / "items.csv", index=False)
    reference = _plain(count_items(frame, **ROLES, engine="numpy"))
    assert [(r["unit"], r["binary"], r["n_clusters"]) for r in reference] == [(False, False, 6),
                                                                              (True, False, 6)]
    assert _plain(count_items(str(tmp_path / "items.csv"), **ROLES, engine="spark")) == reference


def test_sums_match_the_row_level_functions():
    frame = _clustered_items(seed=11, n=60, samples=1)
    frame = frame[frame["bench"] == "b2"]
    [s] = count_items(frame, item="question", model="llm", cluster="passage")
    wide = frame.pivot(index="question", columns="llm", values="score")
    passage = frame.drop_duplicates("question").set_index("question").loc[wide.index, "passage"]
    a, b = wide["model 0"].to_numpy(), wide["model 2"].to_numpy()
    rows = paired_difference(a, b, clusters=passage.to_numpy())
    from_sums = paired_difference_from_sums(PairedSums.from_items(s, 0, 2))
    assert PairedSums.from_items(s, 0, 2) == PairedSums.from_scores(a, b, passage.to_numpy())
    assert from_sums.details["se"] == pytest.approx(rows.details["se"], rel=1e-12)
    assert from_sums.statistic == pytest.approx(rows.statistic, rel=1e-12)


# --------------------------------------------------------------------------------------------
# the report's numbers
# --------------------------------------------------------------------------------------------

HAND = pd.DataFrame({
    "item": list(range(1, 7)) * 2,
    "model": ["A"] * 6 + ["B"] * 6,
    "score": [1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1],  # A then B
    "passage": ["p", "p", "q", "q", "r", "r"] * 2,
})


def test_report_numbers_against_a_hand_computation():
    # d = A - B = [0, 1, 1, 0, 0, -1]; per passage D_c = S_c: p 1, q 1, r -1.
    # Obuchowski: chi2 = (sum D_c)^2 / [C/(C-1) sum D_c^2] = 1 / (3/2 * 3) = 2/9.
    # Paired difference: dbar = 1/6; S_c - n_c dbar = 2/3, 2/3, -4/3; sum of squares 8/3;
    # CR1 variance = 3/2 * (8/3) / 6^2 = 1/9, SE 1/3.
    # Model A: mean 2/3; S_c - n_c mean = 2/3, -1/3, -1/3; sum of squares 2/3;
    # variance = 3/2 * (2/3) / 36 = 1/36, SE 1/6.
    # Flips: A right and B wrong on items 2 and 3; A wrong and B right on item 6.
    cmp = compare_items(HAND, cluster="passage", alpha=0.05)
    pair = cmp.pairs.iloc[0]
    assert (pair.model_a, pair.model_b) == ("A", "B")
    assert pair.test == "Obuchowski clustered McNemar"
    assert pair.statistic == pytest.approx(2 / 9, rel=1e-12)
    assert pair.pvalue == pytest.approx(stats.chi2.sf(2 / 9, 1), rel=1e-12)
    assert pair.estimate == pytest.approx(1 / 6, rel=1e-12)
    assert pair.se == pytest.approx(1 / 3, rel=1e-12)
    z = stats.norm.isf(0.025)
    assert (pair.ci_low, pair.ci_high) == pytest.approx((1 / 6 - z / 3, 1 / 6 + z / 3), rel=1e-12)
    assert (pair.a_right_b_wrong, pair.a_wrong_b_right) == (2, 1)
    a = cmp.summary.set_index("model").loc["A"]
    assert a.score == pytest.approx(2 / 3) and a.se == pytest.approx(1 / 6, rel=1e-12)
    assert cmp.best_by_task[""] == ["A", "B"]
    # the same test on the rows
    row_test = clustered_mcnemar(HAND.score[:6], HAND.score[6:], HAND.passage[:6])
    assert row_test.statistic == pytest.approx(pair.statistic, rel=1e-12)


def test_without_clusters_the_pairs_use_mcnemars_chi_square():
    # b = 2 items only A gets right, c = 1 only B: chi2 = (b - c)^2 / (b + c) = 1/3
    cmp = compare_items(HAND.drop(columns="passage"))
    pair = cmp.pairs.iloc[0]
    assert pair.test == "McNemar χ² (items independent)"
    assert pair.statistic == pytest.approx(1 / 3, rel=1e-12)
    assert pair.pvalue == pytest.approx(stats.chi2.sf(1 / 3, 1), rel=1e-12)
    assert "taken as independent" in cmp.conclusions[1]


def test_power_columns_follow_their_formulas():
    cmp = compare_items(HAND, cluster="passage")
    pair = cmp.pairs.iloc[0]
    # sd of d over items (ddof 1): d = [0, 1, 1, 0, 0, -1], mean 1/6
    d = np.array([0, 1, 1, 0, 0, -1.0])
    sd, n = d.std(ddof=1), 6
    deff = pair.design_effect
    k = (stats.norm.isf(0.025) + stats.norm.isf(0.2)) ** 2
    assert pair.design_effect == pytest.approx((1 / 9) / (sd**2 / n), rel=1e-12)
    assert pair.mde == pytest.approx(math.sqrt(k) * sd * math.sqrt(deff / n), rel=1e-12)
    assert pair.items_needed == pytest.approx(k * sd**2 * deff / (1 / 6) ** 2, rel=1e-12)


def test_cluster_robust_se_equals_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    frame = _clustered_items(seed=2, n=80, samples=1)
    cmp = compare_items(frame, item="question", model="llm", cluster="passage",
                        task="bench", test="difference")
    sub = frame[frame.bench == "b2"].pivot(index="question", columns="llm", values="score")
    groups = frame.drop_duplicates("question").set_index("question").loc[sub.index, "passage"]
    d = (sub["model 1"] - sub["model 2"]).to_numpy(float)
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster",
                                        cov_kwds={"groups": pd.factorize(groups)[0]})
    row = cmp.pairs[(cmp.pairs.task == "b2") & (cmp.pairs.model_a == "model 1")
                    & (cmp.pairs.model_b == "model 2")].iloc[0]
    assert row.se == pytest.approx(float(fit.bse[0]), rel=1e-10)
    # 20 passages, fewer than 50: the test refers to t with C - 1 = 19 df
    assert row.test == "paired difference, CR1 t (19 df)"
    t = float(fit.params[0] / fit.bse[0])
    assert row.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 19), rel=1e-10)


def test_tasks_add_up_to_the_combined_task():
    frame = _clustered_items(seed=4, n=36, samples=2)
    cmp = compare_items(frame, **ROLES)
    assert cmp.tasks == ["b1", "b2", "all tasks"]
    design = cmp.design_table.set_index("task")
    assert design.loc["all tasks", "items"] == design.loc["b1", "items"] + design.loc["b2", "items"]
    assert design.loc["all tasks", "answers_max"] == 2
    # not 0/1 item scores: the paired difference is used
    # (9 passages in each task, 18 in both: t with C - 1 df, fewer than 50 clusters)
    assert set(cmp.pairs["test"]) == {"paired difference, CR1 t (8 df)",
                                      "paired difference, CR1 t (17 df)"}
    with pytest.raises(ValueError, match="mcnemar"):
        compare_items(frame, **ROLES, test="mcnemar")


def test_equivalence_column_when_a_margin_is_given():
    rng = np.random.default_rng(0)
    a = (rng.random(800) < 0.7).astype(int)
    b = np.where(rng.random(800) < 0.95, a, 1 - a)
    frame = pd.DataFrame({"item": np.tile(np.arange(800), 2), "model": np.repeat(["x", "y"], 800),
                          "score": np.concatenate([a, b])})
    cmp = compare_items(frame, margin=0.05)
    assert bool(cmp.pairs["equivalent"].iloc[0])
    assert "equivalent within ±0.05" in " ".join(cmp.conclusions)


def test_json_round_trip():
    cmp = compare_items(HAND, cluster="passage", margin=0.1)
    back = type(cmp).from_json(cmp.to_json())
    pd.testing.assert_frame_equal(back.pairs, cmp.pairs, check_dtype=False)
    assert back.best == cmp.best and back.conclusions == cmp.conclusions


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_bad_items_name_the_item_model_or_column(engine):
    twice = pd.concat([HAND, HAND.iloc[[0]]])
    with pytest.raises(ItemFileError, match=r"item '?1'? is scored 2 times for model 'A'"):
        count_items(twice, engine=engine)
    missing = HAND.drop(index=9)
    with pytest.raises(ItemFileError, match=r"model 'B' has no score for item '?4'?"):
        count_items(missing, engine=engine)
    moved = HAND.copy()
    moved.loc[7, "passage"] = "z"
    with pytest.raises(ItemFileError, match=r"column 'passage' changes within item '?2'?"):
        count_items(moved, cluster="passage", engine=engine)
    bad = HAND.astype({"score": object})
    bad.loc[3, "score"] = "maybe"
    with pytest.raises(ItemFileError, match="score"):
        count_items(bad, engine=engine)
    with pytest.raises(ItemFileError, match=r"^data frame: no rows$|: no rows$"):
        count_items(HAND.iloc[:0], engine=engine)


def test_an_item_file_with_a_header_only_has_no_rows(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("item,model,score\n")
    for engine in ("numpy", "duckdb"):
        with pytest.raises(ItemFileError, match=r"^items\.csv: no rows$"):
            count_items(path, engine=engine)


# Item files whose role columns hold nested values (written by DuckDB SQL): each is refused by
# every engine, naming the column. (DuckDB took a list of models as the model "[a]", numpy as
# "['a']"; a list of scores failed in a cast.)
NESTED_ITEMS = {
    "item": "{'q': i // 2} AS item, ['a','b'][1 + i % 2] AS model, (i % 3 = 0)::INT AS score, "
            "i // 6 AS passage",
    "model": "i // 2 AS item, [['a','b'][1 + i % 2]] AS model, (i % 3 = 0)::INT AS score, "
             "i // 6 AS passage",
    "score": "i // 2 AS item, ['a','b'][1 + i % 2] AS model, [1] AS score, i // 6 AS passage",
    "passage": "i // 2 AS item, ['a','b'][1 + i % 2] AS model, (i % 3 = 0)::INT AS score, "
               "MAP {'k': i // 6} AS passage",
}


@pytest.mark.parametrize("column", NESTED_ITEMS)
def test_nested_item_columns_are_refused_by_name(tmp_path, column):
    import duckdb

    path = tmp_path / "items.parquet"
    duckdb.sql(f"COPY (SELECT {NESTED_ITEMS[column]} FROM range(40) t(i)) TO '{path}'")
    message = rf"^items\.parquet: column '{column}' holds nested values \(a struct, list or map\)"
    engines = ["numpy", "duckdb", *(["spark"] if column == "model" else [])]  # Spark: once
    for engine in engines:
        with pytest.raises(ItemFileError, match=message):
            count_items(path, cluster="passage", engine=engine)
    with pytest.raises(ItemFileError, match=rf"^DataFrame: column '{column}' holds nested"):
        count_items(pd.read_parquet(path), cluster="passage")
    with pytest.raises(ItemFileError, match=rf"^relation: column '{column}' holds nested"):
        count_items(duckdb.read_parquet(str(path)), cluster="passage")


def test_scores_in_words_and_numbers():
    assert parse_scores(["C", "I", "P", "N", "true", "False", "0.5", 1]).tolist() == \
        [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="'maybe' is not a score"):
        parse_scores(["C", "maybe"])
    with pytest.raises(ValueError, match="empty value"):
        parse_scores([1.0, float("nan")])


def test_pairs_put_the_better_scoring_model_first():
    # model 2 scores best, model 0 worst (more right answers each), listed in that order of the
    # models: every pair must come out with the better-ranked model as A and a positive estimate
    rng = np.random.default_rng(7)
    y = {f"model {j}": (rng.random(200) < p).astype(int) for j, p in enumerate([0.5, 0.65, 0.8])}
    frame = pd.DataFrame([{"item": i, "model": m, "score": int(s[i])}
                          for m, s in y.items() for i in range(200)])
    cmp = compare_items(frame, models=["model 0", "model 1", "model 2"])
    rank = cmp.summary.set_index("model")["rank"]
    assert list(cmp.summary["model"]) == ["model 0", "model 1", "model 2"]
    assert [(r.model_a, r.model_b) for r in cmp.pairs.itertuples()] == [
        ("model 1", "model 0"), ("model 2", "model 0"), ("model 2", "model 1")]
    assert all(rank[r.model_a] < rank[r.model_b] for r in cmp.pairs.itertuples())
    score = cmp.summary.set_index("model")["score"]
    for r in cmp.pairs.itertuples():  # the estimate is A's mean score minus B's
        assert r.estimate == pytest.approx(score[r.model_a] - score[r.model_b], rel=1e-12)
        assert r.estimate > 0


def test_item_page_shows_the_decision_first_and_whole_items_needed():
    from precmp_lib.report.item_sections import item_sections

    cmp = compare_items(HAND, cluster="passage", margin=0.1)
    page = str(item_sections(cmp))
    pairs = page[page.index('id="pi-pairs"'):page.index('id="pi-power"')]
    first = pairs[pairs.index("<table"):pairs.index("</table>")]
    assert "reject" in first and "pvalue_adjusted" in first
    assert "a_right_b_wrong" not in first and "statistic" not in first
    assert "<summary>The test and the flips</summary>" in pairs
    assert "Equivalence (two one-sided tests)" in pairs
    power = page[page.index('id="pi-power"'):]
    # the formula gives k sd^2 deff / (1/6)^2 items (test_power_columns_follow_their_formulas);
    # the page shows that number rounded up
    need = math.ceil(cmp.pairs.items_needed.iloc[0])
    assert f">{need:,}<" in power.replace(" ", "")
    # one task: the sentence of what the items detect starts as a sentence does
    assert re.search(r"<p>With \d+ items in \d+ clusters, a difference of", power)


def _three_models(p_right: tuple[float, float, float], n: int = 400, seed: int = 5) -> pd.DataFrame:
    """0/1 answers of models x, y, z to n independent items, right with the given shares."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"item": np.tile(np.arange(n), 3), "model": np.repeat(list("xyz"), n),
                         "score": np.concatenate([(rng.random(n) < p).astype(int)
                                                  for p in p_right])})


@pytest.mark.parametrize(("p_right", "group", "start"), [
    ((0.9, 0.5, 0.4), ["x"], "Use x: it scores highest"),
    ((0.8, 0.79, 0.4), ["x", "y"], "{} are tied for best"),  # the higher-scoring first
    ((0.5, 0.5, 0.5), ["x", "y", "z"], "No model is shown better than another"),
])
def test_the_recommendation_follows_the_best_group_and_leads_the_page(p_right, group, start):
    from precmp_lib.report.item_sections import item_sections

    cmp = compare_items(_three_models(p_right))
    assert sorted(cmp.best_by_task[""]) == group  # one model, some, or all of them
    assert cmp.recommendation.startswith(start.format(" and ".join(cmp.best_by_task[""])))
    if len(group) == 1:
        top = cmp.summary.set_index("model").loc["x", "score"]
        assert f"({top:.3f})" in cmp.recommendation
    if len(group) == 3:  # the median detectable difference of the pairs, in points
        assert f"about {100 * float(np.median(cmp.pairs['mde'])):.1f} points" in cmp.recommendation
    page = str(item_sections(cmp))
    conclusion = page[page.index('id="pi-conclusion"'):page.index('id="pi-design"')]
    # the sentence comes first, before the conclusions' paragraphs, which do not say it again:
    # the best group's line is left out, the design's line is shown
    assert conclusion.index('<p class="rec">') < conclusion.index("<p>")
    assert "scores highest" not in conclusion.split('<p class="rec">')[1].split("</p>", 1)[1]
    shown = [line for line in cmp.conclusions if f"<p>{esc(line)}</p>" in conclusion]
    assert shown == cmp.conclusions[1:]
    assert type(cmp).from_json(cmp.to_json()).recommendation == cmp.recommendation


def test_with_several_tasks_the_line_of_all_tasks_is_the_one_left_out():
    from precmp_lib.report.item_sections import item_sections

    frame = pd.concat([_three_models((0.9, 0.5, 0.4)).assign(task="t1"),
                       _three_models((0.8, 0.6, 0.4), seed=6).assign(task="t2")])
    cmp = compare_items(frame, task="task")
    page = str(item_sections(cmp))
    conclusion = page[page.index('id="pi-conclusion"'):page.index('id="pi-design"')]
    gone = [line for line in cmp.conclusions if f"<p>{esc(line)}</p>" not in conclusion]
    assert len(gone) == 1 and gone[0].startswith("All tasks together: x scores highest")
    assert cmp.recommendation.startswith("Use x: it scores highest over all tasks")
    assert sum(line.startswith(("t1: x scores highest", "t2: x scores highest"))
               for line in cmp.conclusions if line not in gone) == 2


def test_items_whose_differences_cancel_in_every_cluster_still_make_a_page(tmp_path):
    """Each cluster holds as many items right for a only as for b only: the clustered variance of
    the difference is 0, so no detectable difference can be planned (mde is NaN)."""
    from precmp_lib.cli import main

    i = np.arange(40)
    frame = pd.DataFrame({"item": i // 2, "model": np.where(i % 2, "b", "a"),
                          "score": (i % 3 == 0).astype(int), "passage": i // 6})
    cmp = compare_items(frame, cluster="passage")
    pair = cmp.pairs.iloc[0]
    # the flips tallied from the frame itself, and per cluster: as many each way
    wide = frame.pivot(index="item", columns="model", values="score").join(
        frame.groupby("item")["passage"].first())
    only = pd.DataFrame({"a": (wide.a == 1) & (wide.b == 0), "b": (wide.a == 0) & (wide.b == 1),
                         "passage": wide.passage}).groupby("passage").sum()
    assert (only.a == only.b).all() and only.a.sum() > 0
    assert pair["a_right_b_wrong"] == pair["a_wrong_b_right"] == only.a.sum()
    assert pair["se"] == 0
    assert math.isnan(pair["mde"]) and math.isnan(pair["items_needed"])
    said = "do not vary from one cluster to another, so the difference they could detect cannot"
    assert said in cmp.recommendation and said in cmp.conclusions[1]
    assert not any("nan" in line for line in [cmp.recommendation, *cmp.conclusions])
    # JSON keeps no type for a column of nulls: it comes back as floats, as it went
    back = type(cmp).from_json(cmp.to_json())
    assert back.pairs["mde"].dtype == float and back.pairs["items_needed"].dtype == float
    # the command renders the page from that JSON (it failed in its power section)
    frame.to_csv(tmp_path / "items.csv", index=False)
    assert main(["report", str(tmp_path / "items.csv"), "--item", "item", "--cluster", "passage",
                 "--quiet", "--out", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "nan points" not in page and "no difference is planned" in page


def test_one_rule_for_z_or_t_clusters_or_unclustered_items():
    """20 unclustered items and the same items each its own cluster: the same t(19).

    CR1 with one item per cluster, C/(C - 1) · Σ(d_i - d̄)² / n², is the unclustered s²/n, so
    the two standard errors are one; the reference distribution is t with units - 1 = 19 df in
    both (scipy's t for the p-value), never z for one and t for the other (which flipped the
    decision: Holm p 0.020 under z, 0.056 under t(19)).
    """
    rng = np.random.default_rng(11)
    n = 20
    a = rng.normal(0.6, 0.2, n)
    b = a - 0.05 + rng.normal(0, 0.1, n)
    frame = pd.DataFrame({"item": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
                          "score": np.concatenate([a, b]), "own": np.tile(np.arange(n), 2)})
    plain = compare_items(frame).pairs.iloc[0]
    own = compare_items(frame, cluster="own").pairs.iloc[0]
    assert plain.test == "paired difference t (19 df)" and "n−1 = 19 df" in plain.note
    assert own.test == "paired difference, CR1 t (19 df)" and "C−1 = 19 df" in own.note
    d = a - b
    se = d.std(ddof=1) / math.sqrt(n)
    assert plain.se == pytest.approx(se, rel=1e-12)
    assert own.se == pytest.approx(se, rel=1e-12)
    p = 2 * stats.t.sf(abs(d.mean() / se), 19)
    assert plain.pvalue == pytest.approx(p, rel=1e-10) and own.pvalue == pytest.approx(p, rel=1e-10)
    assert (plain.ci_low, plain.ci_high) == pytest.approx((own.ci_low, own.ci_high), rel=1e-12)
    # 50 items or more: z, clustered or not
    big = pd.DataFrame({"item": np.tile(np.arange(60), 2), "model": np.repeat(["a", "b"], 60),
                        "score": rng.random(120)})
    assert compare_items(big).pairs.iloc[0].test == "paired difference z"


def test_the_all_tasks_line_weighted_by_items_or_by_tasks_equals_lm_eval_groups():
    """Micro and macro all-tasks scores against lm-evaluation-harness 0.4.13's own group
    aggregation (``lm_eval.api.metrics.aggregate_subtask_metrics``, called here with
    ``weight_by_size`` true and false on the per-task scores and sizes); the macro SE and pair
    difference against their formulas on the per-task rows (tasks share no item)."""
    metrics = pytest.importorskip("lm_eval.api.metrics")
    rng = np.random.default_rng(5)
    rows = []
    for task, n in [("t1", 40), ("t2", 120), ("t3", 80)]:
        for model, p in [("x", 0.7), ("y", 0.6), ("z", 0.5)]:
            rows += [(f"{task}-{i}", model, int(rng.random() < p + (task == "t1") * 0.1), task,
                      f"{task}-{i // 4}") for i in range(n)]
    frame = pd.DataFrame(rows, columns=["item", "model", "score", "task", "passage"])
    sizes = [40, 120, 80]
    for weight, by_size in [("items", True), ("tasks", False)]:
        cmp = compare_items(frame, task="task", cluster="passage", weight=weight)
        assert cmp.settings["weight"] == weight
        s = cmp.summary
        for model in "xyz":
            per_task = [float(s[(s.task == t) & (s.model == model)].score.iloc[0])
                        for t in ("t1", "t2", "t3")]
            every = s[(s.task == "all tasks") & (s.model == model)].iloc[0]
            assert every.score == pytest.approx(
                metrics.aggregate_subtask_metrics(per_task, sizes, weight_by_size=by_size),
                rel=1e-12)
        said = [line for line in cmp.conclusions if line.startswith("All tasks together: weighted")]
        assert len(said) == 1 and ("(micro" in said[0]) == (weight == "items")
    macro = compare_items(frame, task="task", cluster="passage", weight="tasks")
    s, p = macro.summary, macro.pairs
    se = s[s.task != "all tasks"].groupby("model")["se"].apply(lambda v: np.sqrt((v ** 2).sum()) / 3)
    every = s[s.task == "all tasks"].set_index("model")
    assert every["se"].to_numpy() == pytest.approx(se[every.index].to_numpy(), rel=1e-12)
    row = p[p.task == "all tasks"].iloc[0]
    own = p[p.task != "all tasks"]
    diffs = [float(r.estimate) if r.model_a == row.model_a else -float(r.estimate)
             for r in own.itertuples() if {r.model_a, r.model_b} == {row.model_a, row.model_b}]
    assert row.estimate == pytest.approx(np.mean(diffs), rel=1e-12)
    # 60 passages in all, 50 or more: z; the Wald p from the statistic
    assert row.test == "mean of task differences (macro), Wald z"
    assert row.pvalue == pytest.approx(2 * stats.norm.sf(abs(row.estimate / row.se)), rel=1e-12)
    with pytest.raises(ValueError, match="weight must be one of items, tasks"):
        compare_items(frame, task="task", weight="classes")


def test_the_heat_map_of_the_macro_line_holds_the_macro_pairs():
    """With --weight tasks and many models, every pair of the all-tasks line is the mean of
    its task differences, with SE sqrt(sum SE_t^2) / T: checked for all 66 pairs against each
    task compared alone with every pair tested (its own per-pair rows), and the 11 pairs tested
    against the leader equal their all-pairs entries. The tasks' own leaders differ from the
    all-tasks one (m10, m09, m11): a task's pairs against its leader do not hold every pair
    of the line, which once left those tasks out of the line's differences."""
    rng = np.random.default_rng(11)
    rows = []
    for task, n in [("t1", 60), ("t2", 200), ("t3", 100)]:
        for j in range(12):
            rows += [(f"{task}-{i}", f"m{j:02d}", float(rng.random() < 0.4 + 0.03 * j), task,
                      f"{task}-{i // 4}") for i in range(n)]
    frame = pd.DataFrame(rows, columns=["item", "model", "score", "task", "passage"])
    micro = compare_items(frame, task="task", cluster="passage")
    macro = compare_items(frame, task="task", cluster="passage", weight="tasks")
    assert len(macro.all_pairs) == 66 and macro.settings["family"] == "leader"
    assert [macro.best_by_task[t][0] for t in ("t1", "t2", "t3")] == ["m10", "m09", "m11"]
    alone = {t: compare_items(frame[frame.task == t], cluster="passage", family="all")
             .pairs.set_index(["model_a", "model_b"]) for t in ("t1", "t2", "t3")}
    every = macro.all_pairs.set_index(["model_a", "model_b"])
    for (a, b), e in every.iterrows():
        diffs, ses = [], []
        for pairs in alone.values():
            r, sign = (pairs.loc[(a, b)], 1) if (a, b) in pairs.index else (pairs.loc[(b, a)], -1)
            diffs.append(sign * r.estimate)
            ses.append(r.se)
        se = math.sqrt(sum(x * x for x in ses)) / 3
        assert e.estimate == pytest.approx(np.mean(diffs), rel=1e-12, abs=1e-15)
        assert e.statistic == pytest.approx(e.estimate / se, rel=1e-12, abs=1e-15)
        # 90 passages in all, 50 or more: z
        assert e.pvalue == pytest.approx(2 * stats.norm.sf(abs(e.estimate / se)), rel=1e-10)
    tested = macro.pairs[macro.pairs.task == "all tasks"]
    assert len(tested) == 11
    for r in tested.itertuples():
        key, sign = ((r.model_a, r.model_b), 1.0) if (r.model_a, r.model_b) in every.index \
            else ((r.model_b, r.model_a), -1.0)
        e = every.loc[key]
        assert sign * e.estimate == pytest.approx(r.estimate, rel=1e-12, abs=1e-15)
        assert e.pvalue == pytest.approx(r.pvalue, rel=1e-12)
    # the item-weighted map differs from it (the tasks are of different sizes)
    assert not np.allclose(micro.all_pairs["estimate"], macro.all_pairs["estimate"])
    from precmp_lib.report.item_sections import item_sections

    assert "(the mean of the task means: --weight tasks)" in item_sections(macro)
    assert "(the mean over every item: --weight items)" in item_sections(micro)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_common_items_that_leave_a_task_empty_say_so_in_one_line(engine):
    """Model b has no answer in task t2: --common-items leaves t2 nothing to compare."""
    frame = pd.DataFrame({"item": [1, 2, 3, 1, 2, 3, 4, 5], "task": ["t1"] * 3 + ["t1"] * 3 + ["t2"] * 2,
                          "model": ["a"] * 3 + ["b"] * 3 + ["a"] * 2,
                          "score": [1, 0, 1, 1, 1, 0, 1, 0]})
    with pytest.raises(ValueError) as err:
        compare_items(frame, task="task", common_items=True, engine=engine)
    assert str(err.value) == ("DataFrame: task 't2': no item is answered by every model, so "
                              "--common-items leaves nothing to compare (items answered: a 2, "
                              "b 0)")


def test_a_leaderboards_best_group_is_said_by_its_size_and_first_names():
    """Sixty models on 60 items: many are not shown worse than the top one. The line gives the
    group's size and its first twelve names (every one is in the tables), not sixty names."""
    rng = np.random.default_rng(8)
    frame = pd.DataFrame({"item": np.tile(np.arange(60), 60),
                          "model": np.repeat([f"m{j:02d}" for j in range(60)], 60),
                          "score": (rng.random(3600) < 0.7).astype(float)})
    cmp = compare_items(frame)
    best = cmp.best
    assert len(best) > 12
    line = next(x for x in cmp.conclusions if "scores highest" in x)
    assert line == (f"{best[0]} scores highest ({cmp.summary.set_index('model').loc[best[0], 'score']:.3f}); "
                    f"{len(best) - 1} more are not shown worse after Holm's adjustment at α = 0.05: "
                    f"the best group of {len(best)} is {', '.join(best[:12])} and {len(best) - 12} "
                    "more (every one in the tables).")


def test_the_best_group_against_a_reference_is_the_models_shown_better_than_it():
    """With --reference the item pairs hold the reference on either side (by score): the best
    group is the models shown better than it, whichever side; the reference, beaten, is not in
    it (it was, whenever it beat some model), and each member's pair says so."""
    rng = np.random.default_rng(2)
    skill = np.linspace(0.4, 0.8, 8)
    frame = pd.DataFrame({"item": np.tile(np.arange(600), 8),
                          "model": np.repeat([f"m{j}" for j in range(8)], 600)})
    frame["score"] = (rng.random(len(frame)) < np.repeat(skill, 600)).astype(float)
    cmp = compare_items(frame, reference="m3")
    pairs = cmp.pairs
    assert set(pairs.model_a).union(pairs.model_b) >= {"m0", "m7"} and len(pairs) == 7
    assert (pairs.model_a == "m3").any() and (pairs.model_b == "m3").any()  # both sides
    better = sorted(r.model_b if r.model_a == "m3" else r.model_a for r in pairs.itertuples()
                    if r.reject and (r.estimate > 0) == (r.model_b == "m3"))
    assert better and "m3" not in cmp.best and sorted(cmp.best) == better
    assert cmp.summary.set_index("model").loc["m3", "best"] == False  # noqa: E712
