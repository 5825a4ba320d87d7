"""Options of the item report: the items every model answered, a margin per task, Holm's
adjustment over every pair of every task, and the plan for repeated answers (Miller 2024).

Every reference value is computed here from the rows (pandas, scipy, statsmodels), not by the
library."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from precmp_lib import compare_items, count_items
from precmp_lib.cli import main
from precmp_lib.stats.power import repeated_answers_plan

Z80 = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # two-sided 5 % test, 80 % power


def _two_tasks(seed: int = 1, items: int = 80, epochs: int = 1) -> pd.DataFrame:
    """A 0/1 task (qa) and a 0-10 judge task, three models, every item answered ``epochs`` times."""
    rng = np.random.default_rng(seed)
    rows = []
    for task in ("qa", "judge"):
        hard = rng.normal(size=items)
        for model, skill in (("a", 0.6), ("b", 0.0), ("c", 0.3)):
            for i in range(items):
                for e in range(epochs):
                    u = skill - hard[i] + rng.normal()
                    score = float(u > 0) if task == "qa" else float(np.clip(np.round(5 + 2 * u), 0, 10))
                    rows.append((task, f"q{i}", model, e, score))
    return pd.DataFrame(rows, columns=["task", "item", "model", "epoch", "score"])


# --------------------------------------------------------------------------------------------
# the items every model answered
# --------------------------------------------------------------------------------------------


def _with_gaps() -> pd.DataFrame:
    frame = _two_tasks()
    gone = (((frame.model == "b") & frame.item.isin(["q3", "q7"]) & (frame.task == "qa"))
            | ((frame.model == "c") & (frame.item == "q11") & (frame.task == "judge"))
            | ((frame.model == "a") & (frame.item == "q7") & (frame.task == "qa")))
    return frame[~gone]


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_common_items_compare_on_the_items_every_model_answered(engine):
    frame = _with_gaps()
    cmp = compare_items(frame, task="task", common_items=True, engine=engine)
    # reference: the same rows filtered with pandas to the (task, item) every model answered
    answered = frame.groupby(["task", "item"])["model"].nunique()
    full = answered[answered == 3].index
    kept = frame.set_index(["task", "item"]).loc[full].reset_index()
    ref = compare_items(kept, task="task", engine="numpy")
    pd.testing.assert_frame_equal(cmp.pairs, ref.pairs, check_exact=False, rtol=1e-12)
    # dropped per model: its answered items of the task that some other model did not answer
    lost = frame.set_index(["task", "item"]).drop(index=full).reset_index()
    for task in ("qa", "judge"):
        expect = {m: int(((lost.task == task) & (lost.model == m)).sum()) for m in "abc"}
        assert cmp.settings["dropped"][task] == expect
    assert cmp.settings["dropped"]["qa"] == {"a": 1, "b": 0, "c": 2}
    assert cmp.settings["dropped"]["judge"] == {"a": 1, "b": 1, "c": 0}


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_without_common_items_a_missing_item_names_model_task_and_item(engine):
    frame = _two_tasks()
    frame = frame[~((frame.model == "c") & (frame.item == "q11") & (frame.task == "judge"))]
    with pytest.raises(ValueError) as err:
        count_items(frame, task="task", engine=engine)
    text = str(err.value)
    assert "model 'c'" in text and "q11" in text and "task 'judge'" in text
    assert "--common-items" in text


def test_cli_common_items_counts_on_the_page_and_in_the_json(tmp_path):
    src, out, js = tmp_path / "items.csv", tmp_path / "r.html", tmp_path / "r.json"
    _with_gaps().to_csv(src, index=False)
    assert main(["report", str(src), "--item", "item", "--task", "task", "--out", str(out),
                 "--json", str(js), "--quiet"]) == 2
    assert main(["report", str(src), "--item", "item", "--task", "task", "--common-items",
                 "--margin", "qa=0.05", "--margin", "judge=0.5",
                 "--out", str(out), "--json", str(js), "--quiet"]) == 0
    data = json.loads(js.read_text())
    assert data["settings"]["dropped"]["qa"] == {"a": 1, "b": 0, "c": 2}
    page = out.read_text()
    assert "Compared on the items every model answered (--common-items)" in page
    assert "qa: a 1, b 0, c 2" in page


# --------------------------------------------------------------------------------------------
# a margin per task
# --------------------------------------------------------------------------------------------


def _tost_p(frame: pd.DataFrame, a: str, b: str, margin: float) -> float:
    """TOST p of the paired difference, items independent: max of the two one-sided z p-values."""
    wide = frame.pivot_table(index="item", columns="model", values="score", aggfunc="mean")
    d = (wide[a] - wide[b]).to_numpy()
    se = d.std(ddof=1) / math.sqrt(len(d))
    return max(stats.norm.sf((d.mean() + margin) / se), stats.norm.cdf((d.mean() - margin) / se))


def test_each_task_is_tested_for_equivalence_at_its_own_margin():
    frame = _two_tasks(items=300)
    cmp = compare_items(frame, task="task", margin={"qa": 0.2, "judge": 1.5})
    for task, margin in (("qa", 0.2), ("judge", 1.5)):
        for r in cmp.pairs[cmp.pairs.task == task].itertuples():
            want = _tost_p(frame[frame.task == task], r.model_a, r.model_b, margin)
            assert r.tost_pvalue == pytest.approx(want, rel=1e-9, abs=1e-14)
            assert r.margin == margin
    assert cmp.settings["margins"] == {"judge": 1.5, "qa": 0.2}
    assert cmp.design_table.set_index("task")["margin"].to_dict() == {"judge": 1.5, "qa": 0.2}
    # the default margin for the tasks not named
    mixed = compare_items(frame, task="task", margin={None: 0.2, "judge": 1.5})
    assert mixed.settings["margins"] == cmp.settings["margins"]


def test_one_margin_for_tasks_of_different_scales_is_refused():
    with pytest.raises(ValueError, match="give the margin per task"):
        compare_items(_two_tasks(), task="task", margin=0.05)
    with pytest.raises(ValueError, match="not among the tasks"):
        compare_items(_two_tasks(), task="task", margin={"qa": 0.05, "mmlu": 0.1})


def test_cli_one_margin_on_mixed_scales_exits_2_in_one_line(tmp_path, capsys):
    src = tmp_path / "items.csv"
    _two_tasks().to_csv(src, index=False)
    code = main(["report", str(src), "--item", "item", "--task", "task", "--margin", "0.05",
                 "--out", str(tmp_path / "r.html")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "--margin TASK=X" in err[0] and "different scales" in err[0]
    assert not (tmp_path / "r.html").exists()


def test_cli_margins_per_task_are_named_on_the_page_and_in_the_json(tmp_path):
    src, out, js = tmp_path / "items.csv", tmp_path / "r.html", tmp_path / "r.json"
    _two_tasks().to_csv(src, index=False)
    assert main(["report", str(src), "--item", "item", "--task", "task", "--margin", "qa=0.05",
                 "--margin", "judge=0.5", "--out", str(out), "--json", str(js), "--quiet"]) == 0
    data = json.loads(js.read_text())
    assert data["settings"]["margins"] == {"judge": 0.5, "qa": 0.05}
    assert {r["task"]: r["margin"] for r in data["pairs"]["records"]} == {"judge": 0.5, "qa": 0.05}
    page = out.read_text()
    assert "0.5 for judge; 0.05 for qa" in page


# --------------------------------------------------------------------------------------------
# Holm over pairs, or over every pair of every task
# --------------------------------------------------------------------------------------------


def test_holm_over_pairs_and_tasks_equals_statsmodels():
    frame = _two_tasks(items=60)
    by_task = compare_items(frame, task="task")
    together = compare_items(frame, task="task", holm_over="pairs-tasks")
    p = together.pairs
    assert np.allclose(p["pvalue"], by_task.pairs["pvalue"], rtol=0, atol=0)
    # reference: statsmodels' Holm over every pair x task at once
    reject, adjusted, _, _ = multipletests(p["pvalue"].to_numpy(), alpha=0.05, method="holm")
    assert np.allclose(p["pvalue_adjusted"], adjusted, rtol=1e-12, atol=0)
    assert (p["reject"].to_numpy() == reject).all()
    # the default: Holm within each task
    for task in ("qa", "judge"):
        q = by_task.pairs[by_task.pairs.task == task]
        _, adj, _, _ = multipletests(q["pvalue"].to_numpy(), method="holm")
        assert np.allclose(q["pvalue_adjusted"], adj, rtol=1e-12, atol=0)
    assert not np.allclose(p["pvalue_adjusted"], by_task.pairs["pvalue_adjusted"])
    assert by_task.settings["holm_over"] == "pairs"
    assert together.settings["holm_over"] == "pairs-tasks"
    assert "over every pair of every task" in together.conclusions[0]


def test_cli_holm_choice_is_stated_on_the_page_and_in_the_json(tmp_path):
    src, out, js = tmp_path / "items.csv", tmp_path / "r.html", tmp_path / "r.json"
    _two_tasks().to_csv(src, index=False)
    for choice, said in (("pairs", "across the pairs of a task (--holm-over pairs, the default)"),
                         ("pairs-tasks", "across every pair of every task together")):
        args = ["--holm-over", choice] if choice != "pairs" else []
        assert main(["report", str(src), "--item", "item", "--task", "task", *args,
                     "--out", str(out), "--json", str(js), "--quiet"]) == 0
        assert json.loads(js.read_text())["settings"]["holm_over"] == choice
        assert said in out.read_text()


# --------------------------------------------------------------------------------------------
# the plan for repeated answers (Miller 2024)
# --------------------------------------------------------------------------------------------


def test_repeated_answers_plan_follows_millers_formula():
    between, within, k, n = 0.03, 0.2, 3, 400
    plan = repeated_answers_plan(between, within, k, n, design_effect=1.5)
    # Var(mean difference) = deff (σ²_between + σ²_within / K) / n (Miller 2024)
    var = 1.5 * (between + within / k) / n
    one = 1.5 * (between + within) / n
    assert plan["variance"] == pytest.approx(var, rel=1e-14)
    assert plan["variance_reduction"] == pytest.approx(1 - var / one, rel=1e-14)
    mde = Z80 * math.sqrt(var)
    assert plan["mde"] == pytest.approx(mde, rel=1e-12)
    # items needed to detect mde: n' = Z² deff (σ²_b + σ²_w / K') / mde²
    for key, kk in (("items_one", 1), ("items_now", k), ("items_double", 2 * k)):
        assert plan[key] == pytest.approx(Z80 ** 2 * 1.5 * (between + within / kk) / mde ** 2,
                                          rel=1e-12)


def test_repeated_answers_plan_variance_matches_a_simulation():
    # items with a true difference spread σ²_b, each answered K times with noise σ²_w
    rng = np.random.default_rng(7)
    between, within, k, n, reps = 0.05, 0.4, 4, 200, 4000
    true = rng.normal(scale=math.sqrt(between), size=(reps, n))
    answers = true[..., None] + rng.normal(scale=math.sqrt(within), size=(reps, n, k))
    means = answers.mean(axis=2).mean(axis=1)
    plan = repeated_answers_plan(between, within, k, n)
    # the sampling variance of the variance over 4,000 runs: about 2.2 % relative
    assert means.var(ddof=1) == pytest.approx(plan["variance"], rel=0.07)


def test_pairs_carry_the_plan_from_the_items_variances():
    rng = np.random.default_rng(3)
    n, k = 400, 3
    skill = rng.normal(size=n)
    rows = []
    for model, shift in (("a", 0.3), ("b", 0.0)):
        for i in range(n):
            for e in range(k):
                rows.append((f"q{i}", model, e, skill[i] + shift * (i % 2) + rng.normal()))
    frame = pd.DataFrame(rows, columns=["item", "model", "epoch", "score"])
    cmp = compare_items(frame, sample="epoch")
    r = cmp.pairs.iloc[0]
    # reference: the within-item variances (ddof 1) of each model, added; the between-item part
    # is the variance of the item mean differences less what the K answers leave of the within
    g = frame.groupby(["item", "model"])["score"]
    w = g.var(ddof=1).unstack()
    m = g.mean().unstack()
    within = float((w["a"] + w["b"]).mean())
    between = float((m["a"] - m["b"]).var(ddof=1) - within / k)
    assert r["var_within"] == pytest.approx(within, rel=1e-10)
    assert r["var_between"] == pytest.approx(between, rel=1e-9)
    assert r["answers_k"] == k
    var = (between + within / k) / n
    assert r["items_k1"] == pytest.approx(n * (between + within) / (between + within / k), rel=1e-9)
    assert r["items_k"] == pytest.approx(n)
    assert r["items_2k"] == pytest.approx(n * (between + within / (2 * k)) / (between + within / k),
                                          rel=1e-9)
    assert r["plan_mde"] == pytest.approx(Z80 * math.sqrt(var), rel=1e-9)
    assert r["reduction_diff"] == pytest.approx(1 - (between + within / k) / (between + within),
                                                rel=1e-9)


def test_the_page_shows_the_plan_only_with_repeated_answers(tmp_path):
    src, out = tmp_path / "items.csv", tmp_path / "r.html"
    _two_tasks(epochs=3).to_csv(src, index=False)
    assert main(["report", str(src), "--item", "item", "--task", "task", "--sample", "epoch",
                 "--out", str(out), "--quiet"]) == 0
    page = out.read_text()
    assert "Repeated answers: items against answers per item" in page and "items_2k" in page
    once = _two_tasks()
    once.to_csv(src, index=False)
    assert main(["report", str(src), "--item", "item", "--task", "task", "--out", str(out),
                 "--quiet"]) == 0
    assert "Repeated answers" not in out.read_text()


def test_eval_logs_of_models_that_answered_different_items(tmp_path, capsys):
    # lm-eval logs written as lm-eval writes them (helper of test_evallogs): m2 lacks doc 3
    from sources.test_evallogs import _lm_eval

    _lm_eval(tmp_path / "m1", "arc_easy", [1, 0, 1, 1, 0, 1])
    _lm_eval(tmp_path / "m2", "arc_easy", [1, 1, 0])
    _lm_eval(tmp_path / "m1", "hella", [0, 0, 1, 1])
    _lm_eval(tmp_path / "m2", "hella", [1, 0, 1, 0])
    base = ["report", "--eval-log", f"m1={tmp_path / 'm1'}", "--eval-log", f"m2={tmp_path / 'm2'}",
            "--out", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")]
    assert main(base) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "model 'm2'" in err[0] and "'3'" in err[0] and "'arc_easy'" in err[0]
    assert main([*base, "--common-items", "--quiet"]) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    # m1 answered docs 3, 4 and 5, which m2 did not: three of m1's items left out
    assert data["settings"]["dropped"]["arc_easy"] == {"m1": 3, "m2": 0}
    assert data["settings"]["dropped"]["hella"] == {"m1": 0, "m2": 0}
    assert data["design_table"]["records"][0]["items"] == 3


def _sums(parts):
    return [{k: (v.tolist() if isinstance(v, np.ndarray) else v)
             for k, v in p.to_dict().items() if k not in ("engine", "source", "notes")}
            for p in parts]


def test_engines_agree_on_the_common_items_of_a_file(tmp_path):
    import shutil

    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless (or set "
                    "JAVA_HOME); they are part of `make test`")
    frame = _with_gaps()
    frame.to_csv(tmp_path / "items.csv", index=False)
    roles = {"task": "task", "common_items": True}
    reference = _sums(count_items(frame, **roles, engine="numpy"))
    assert reference[1]["dropped"] == [1, 0, 2]  # qa: a, b, c
    for engine in ("duckdb", "spark"):
        got = _sums(count_items(str(tmp_path / "items.csv"), **roles, engine=engine))
        assert _close(got, reference), engine


def _close(got, want) -> bool:
    for g, w in zip(got, want, strict=True):
        for k in w:
            if isinstance(w[k], list | float) and k not in ("dropped", "models"):
                assert np.allclose(np.asarray(g[k], float), np.asarray(w[k], float),
                                   rtol=1e-12, atol=1e-9), k
            else:
                assert g[k] == w[k], k
    return True


def test_no_plan_when_the_differences_cancel_in_every_cluster():
    # A and B trade places within each passage: no spread between passages, design effect 0
    rows = []
    for i in range(8):
        for e in range(2):
            rows += [(i, "a", e, i % 2, i // 2), (i, "b", e, 1 - i % 2, i // 2)]
    frame = pd.DataFrame(rows, columns=["item", "model", "epoch", "score", "passage"])
    r = compare_items(frame, sample="epoch", cluster="passage").pairs.iloc[0]
    assert r["design_effect"] == 0
    assert math.isnan(r["items_k1"]) and math.isnan(r["plan_mde"])
