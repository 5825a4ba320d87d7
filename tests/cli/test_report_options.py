"""Options of the predictions report: named long columns, the equivalence margin, the ROPE."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from precmp_lib.cli import main
from precmp_lib.compare.predictions import compare_models
from precmp_lib.engine.predictions import count_predictions

# a column name that would be SQL if it were pasted into a query
HOSTILE = "'; DROP TABLE src; --"


def _long(n: int = 300, seed: int = 5, fold: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    rows = []
    for model, acc in (("lr", 0.84), ("rf", 0.83), ("nb", 0.72)):
        pred = np.where(rng.random(n) < acc, y, 1 - y)
        rows.append(pd.DataFrame({"id": np.arange(n), "model": model, "y": y, "y_pred": pred}))
    out = pd.concat(rows, ignore_index=True)
    if fold:
        out.insert(1, "fold", np.tile(np.arange(n) % 10, 3))
    return out


def run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err.strip().splitlines()


# --------------------------------------------------------------------------------------------
# --y-pred and --model-column
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_long_columns_of_any_name_count_as_model_and_y_pred(engine, tmp_path, capsys):
    frame = _long()
    named = frame.rename(columns={"model": HOSTILE, "y_pred": "predicted label"})
    named.to_csv(tmp_path / "named.csv", index=False)
    ref = count_predictions(frame, y_true="y")
    got = count_predictions(str(tmp_path / "named.csv"), y_true="y", engine=engine,
                            model_column=HOSTILE, pred_column="predicted label")
    assert got.models == ref.models
    cols = ["y", "p0", "p1", "p2", "count"]
    pd.testing.assert_frame_equal(got.patterns[cols].sort_values(cols).reset_index(drop=True),
                                  ref.patterns[cols].sort_values(cols).reset_index(drop=True),
                                  check_dtype=False)
    out = tmp_path / "r.json"
    code, err = run(["report", str(tmp_path / "named.csv"), "--y-true", "y", "--engine", engine,
                     "--model-column", HOSTILE, "--y-pred", "predicted label",
                     "--out", str(tmp_path / "r.html"), "--json", str(out), "--quiet"], capsys)
    assert code == 0 and err == []
    assert json.loads(out.read_text())["models"] == ["lr", "rf", "nb"]


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--y-pred", "label", "column 'label' (predictions, pred_column) is missing"),
    ("--model-column", "clf", "column 'clf' (model name, model_column) is missing"),
])
@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_missing_named_column_exits_2_with_one_line_naming_it(flag, value, message, engine,
                                                                 tmp_path, capsys):
    _long(40).to_csv(tmp_path / "p.csv", index=False)
    code, err = run(["report", str(tmp_path / "p.csv"), "--y-true", "y", flag, value,
                     "--engine", engine, "--out", str(tmp_path / "r.html")], capsys)
    assert code == 2
    assert len(err) == 1 and err[0].startswith("precmp: error: p.csv: ") and message in err[0]
    assert not (tmp_path / "r.html").exists()


def test_spark_reads_long_columns_by_the_names_given(tmp_path):
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless")
    from precmp_lib.engine.spark_engine import spark_session

    frame = _long(60)
    frame.rename(columns={"model": HOSTILE, "y_pred": "p`x"}).to_parquet(tmp_path / "n.parquet")
    spark_session()
    got = count_predictions(str(tmp_path / "n.parquet"), y_true="y", engine="spark",
                            model_column=HOSTILE, pred_column="p`x")
    ref = count_predictions(frame, y_true="y")
    assert got.models == ref.models and got.engine == "spark"
    cols = ["y", "p0", "p1", "p2", "count"]
    pd.testing.assert_frame_equal(got.patterns[cols].sort_values(cols).reset_index(drop=True),
                                  ref.patterns[cols].sort_values(cols).reset_index(drop=True),
                                  check_dtype=False)


# --------------------------------------------------------------------------------------------
# --margin: two one-sided tests of the accuracy difference
# --------------------------------------------------------------------------------------------


def test_the_margin_gives_tost_on_one_test_set_as_written_out():
    frame = _long()
    wide = frame.pivot(index="id", columns="model", values="y_pred")
    y = frame.drop_duplicates("id").set_index("id")["y"]
    margin, alpha = 0.06, 0.05
    cmp = compare_models(frame, y_true="y", margin=margin, alpha=alpha)
    assert cmp.settings["margin"] == margin
    from statsmodels.stats.weightstats import DescrStatsW

    for r in cmp.pairs.itertuples():
        # Schuirmann's two one-sided z tests on the paired 0/1 scores: d = (b - c) / n,
        # Var(d̄) = Σ (d_i - d̄)² / (n (n - 1)) = (b + c - n d̄²) / (n (n - 1))
        right_a, right_b = wide[r.model_a] == y, wide[r.model_b] == y
        b, c, n = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum()), len(y)
        d = (b - c) / n
        se = math.sqrt((b + c - n * d * d) / (n * (n - 1)))
        p = max(stats.norm.sf((d + margin) / se), stats.norm.cdf((d - margin) / se))
        assert r.tost_pvalue == pytest.approx(p, rel=1e-9)
        assert r.equivalent == (p < alpha)
        # statsmodels' z TOST on the per-observation differences agrees
        diff = right_a.astype(float).to_numpy() - right_b.astype(float).to_numpy()
        assert r.tost_pvalue == pytest.approx(DescrStatsW(diff).ztost_mean(-margin, margin)[0],
                                              rel=1e-9)
    assert any(r.equivalent for r in cmp.pairs.itertuples())  # lr and rf: 1 point apart
    assert not all(r.equivalent for r in cmp.pairs.itertuples())
    assert cmp.conclusions[-1].startswith(f"Equivalent within ±{margin:g} (two one-sided tests")


def test_the_margin_gives_tost_under_cross_validation_with_the_corrected_t():
    frame = _long(fold=True)
    margin = 0.08
    cmp = compare_models(frame, y_true="y", margin=margin)
    acc = frame.assign(r=frame.y == frame.y_pred).pivot_table(index="fold", columns="model",
                                                              values="r", aggfunc="mean")
    for r in cmp.pairs.itertuples():
        # Nadeau–Bengio's variance, shifted by ∓margin: J = 10 folds of 30, n2/n1 = 30/270
        d = (acc[r.model_a] - acc[r.model_b]).to_numpy()
        se = math.sqrt((1 / 10 + 30 / 270) * d.var(ddof=1))
        p = max(stats.t.sf((d.mean() + margin) / se, 9), stats.t.cdf((d.mean() - margin) / se, 9))
        assert r.tost_pvalue == pytest.approx(p, rel=1e-9)


def test_the_report_states_the_margin_on_the_page_and_in_the_json(tmp_path, capsys):
    _long().to_csv(tmp_path / "p.csv", index=False)
    code, err = run(["report", str(tmp_path / "p.csv"), "--y-true", "y", "--margin", "0.06",
                     "--engine", "numpy", "--out", str(tmp_path / "r.html"), "--json",
                     str(tmp_path / "r.json"), "--quiet"], capsys)
    assert code == 0 and err == []
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "two one-sided tests (TOST) that the accuracy difference lies within ±0.06" in page
    assert "Equivalent within ±0.06" in page
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["settings"]["margin"] == 0.06
    assert "tost_pvalue" in json.dumps(data["pairs"])


@pytest.mark.parametrize("margins, message", [
    (["task=0.05"], "--margin TASK=X applies to evaluation items"),
    (["0.05", "0.06"], "--margin is given twice; a predictions report takes one margin"),
])
def test_a_margin_per_task_or_twice_on_a_predictions_file_is_one_line(margins, message, tmp_path,
                                                                      capsys):
    _long().to_csv(tmp_path / "p.csv", index=False)
    argv = ["report", str(tmp_path / "p.csv"), "--y-true", "y", "--out", str(tmp_path / "r.html")]
    for m in margins:
        argv += ["--margin", m]
    code, err = run(argv, capsys)
    assert code == 2 and len(err) == 1 and message in err[0], err
    assert not (tmp_path / "r.html").exists()


# --------------------------------------------------------------------------------------------
# --rope: the Bayesian region of practical equivalence
# --------------------------------------------------------------------------------------------


def _p_rope(d: np.ndarray, ratio: float, rope: float) -> float:
    """Corani & Benavoli's correlated t posterior: Student, J - 1 df, at mean(d) with scale
    sqrt((1/J + n2/n1) var(d, ddof=1)); P(|μ| <= rope)."""
    post = stats.t(len(d) - 1, loc=d.mean(), scale=math.sqrt((1 / len(d) + ratio) * d.var(ddof=1)))
    return post.cdf(rope) - post.cdf(-rope)


def test_the_rope_sets_the_bayesian_region_and_its_default_stays_one_point(tmp_path, capsys):
    frame = _long(fold=True)
    acc = frame.assign(r=frame.y == frame.y_pred).pivot_table(index="fold", columns="model",
                                                              values="r", aggfunc="mean")
    default = compare_models(frame, y_true="y")
    wide = compare_models(frame, y_true="y", rope=0.05)
    assert default.settings["rope"] == 0.01 and wide.settings["rope"] == 0.05
    for cmp, rope in ((default, 0.01), (wide, 0.05)):
        for r in cmp.pairs.itertuples():
            d = (acc[r.model_a] - acc[r.model_b]).to_numpy()
            assert r.p_rope == pytest.approx(_p_rope(d, 30 / 270, rope), rel=1e-7, abs=1e-12)
    frame.to_csv(tmp_path / "p.csv", index=False)
    code, err = run(["report", str(tmp_path / "p.csv"), "--y-true", "y", "--rope", "0.05",
                     "--engine", "numpy", "--out", str(tmp_path / "r.html"), "--quiet"], capsys)
    assert code == 0 and err == []
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "with accuracies within ±0.05" in page and "±0.01" not in page
    with pytest.raises(ValueError, match="rope must be a finite number >= 0"):
        compare_models(frame, y_true="y", rope=-0.01)
    with pytest.raises(SystemExit) as stop:  # the parser refuses it: one line, status 2
        main(["report", str(tmp_path / "p.csv"), "--y-true", "y", "--rope", "-1"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == ("precmp: error: argument --rope: --rope must be "
                                               "a number >= 0; got -1")
