"""A 'fold' column without a 'repeat' column: plain k-fold cross-validation, one repeat.

Each observation is predicted once, by the model trained on the other folds. The comparison is
cross-validation with one repeat: the corrected (Nadeau–Bengio) t over the k folds, the pooled
out-of-fold McNemar beside it with its training-set caveat, and a design line that says so.
"""

from __future__ import annotations

import math
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from precmp_lib.cli import main
from precmp_lib.compare.predictions import compare_models
from precmp_lib.engine.predictions import count_predictions


def _ten_fold(n: int = 230, seed: int = 3) -> pd.DataFrame:
    """A long file of three models' out-of-fold predictions, 10 folds of unequal sizes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    fold = rng.permutation(np.arange(n) % 10)
    rows = []
    for model, acc in (("lr", 0.82), ("rf", 0.77), ("nb", 0.7)):
        right = rng.random(n) < acc
        pred = np.where(right, y, (y + 1 + rng.integers(0, 2, n)) % 3)
        rows.append(pd.DataFrame({"id": np.arange(n), "fold": fold, "model": model, "y": y,
                                  "y_pred": pred}))
    return pd.concat(rows, ignore_index=True)


def _nadeau_bengio(frame: pd.DataFrame, a: str, b: str) -> tuple[float, float]:
    """The corrected t and its two-sided p from the raw rows, written out.

    Nadeau & Bengio (2003): t = mean(d) / sqrt((1/J + n2/n1) var(d, ddof=1)), J folds, d the
    per-fold accuracy differences, n2/n1 the mean test-fold size over the mean training size;
    J - 1 degrees of freedom.
    """
    right = frame.assign(right=frame["y"] == frame["y_pred"])
    acc = right.pivot_table(index="fold", columns="model", values="right", aggfunc="mean")
    d = (acc[a] - acc[b]).to_numpy()
    size = frame[frame["model"] == a].groupby("fold").size().to_numpy(float)
    n2, n1 = size.mean(), (size.sum() - size).mean()
    j = len(d)
    t = d.mean() / math.sqrt((1 / j + n2 / n1) * d.var(ddof=1))
    return t, 2 * stats.t.sf(abs(t), j - 1)


def _discordant(frame: pd.DataFrame, a: str, b: str) -> tuple[int, int]:
    """McNemar's b and c from the raw rows: only A right, only B right."""
    wide = frame.pivot(index="id", columns="model", values="y_pred")
    y = frame.drop_duplicates("id").set_index("id")["y"]
    ra, rb = wide[a] == y, wide[b] == y
    return int((ra & ~rb).sum()), int((~ra & rb).sum())


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_ten_fold_file_is_cross_validation_with_one_repeat(engine, tmp_path):
    frame = _ten_fold()
    frame.to_csv(tmp_path / "tenfold.csv", index=False)
    cmp = compare_models(str(tmp_path / "tenfold.csv"), y_true="y", engine=engine)
    assert cmp.design["description"] == ("k-fold cross-validation, 1 repeat, 10 folds, of 230 "
                                         "observations")
    assert (cmp.design["design"], cmp.design["repeats"], cmp.design["folds"]) == \
        ("repeated cv", 1, 10)
    assert not any("not used" in n for n in cmp.settings["notes"])
    assert len(cmp.pairs) == 3
    for r in cmp.pairs.itertuples():
        t, p = _nadeau_bengio(frame, r.model_a, r.model_b)
        assert r.statistic == pytest.approx(t, rel=1e-9)
        assert r.pvalue == pytest.approx(p, rel=1e-9)
        assert r.df == 9
        # the pooled out-of-fold McNemar, each observation once, with its caveat
        assert (r.pooled_b, r.pooled_c) == _discordant(frame, r.model_a, r.model_b)
        assert "ignores the variation from training sets" in r.note
    b, c = int(cmp.pairs.pooled_b.iloc[0]), int(cmp.pairs.pooled_c.iloc[0])
    if b + c >= 25:  # the exact test: two-sided binomial on the discordant pairs (scipy)
        assert cmp.pairs.pooled_pvalue.iloc[0] == pytest.approx(
            stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_wide_k_fold_file_with_ids_is_cross_validation_and_without_ids_says_so(engine,
                                                                                  tmp_path):
    frame = _ten_fold(120)
    wide = frame.pivot(index=["id", "fold", "y"], columns="model", values="y_pred").reset_index()
    wide.columns = [str(c) for c in wide.columns]
    wide.to_csv(tmp_path / "wide.csv", index=False)
    cmp = compare_models(str(tmp_path / "wide.csv"), y_true="y", engine=engine)
    assert sorted(cmp.models) == ["lr", "nb", "rf"]
    assert cmp.design["description"].startswith("k-fold cross-validation, 1 repeat, 10 folds")
    t, _ = _nadeau_bengio(frame, cmp.pairs.model_a.iloc[0], cmp.pairs.model_b.iloc[0])
    assert cmp.pairs.statistic.iloc[0] == pytest.approx(t, rel=1e-9)
    # without an id the rows cannot be told apart as observations: the fold is left unused,
    # and a note says so (never a model, never dropped unsaid)
    wide.drop(columns="id").to_csv(tmp_path / "noid.csv", index=False)
    cmp = compare_models(str(tmp_path / "noid.csv"), y_true="y", engine=engine)
    assert sorted(cmp.models) == ["lr", "nb", "rf"]
    assert cmp.design["design"] == "test set"
    assert any(n.startswith("column 'fold' is not used") for n in cmp.settings["notes"])


def test_the_report_of_a_ten_fold_file_states_the_design_and_the_caveat(tmp_path, capsys):
    frame = _ten_fold()
    frame.to_csv(tmp_path / "tenfold.csv", index=False)
    out = tmp_path / "r.html"
    code = main(["report", str(tmp_path / "tenfold.csv"), "--y-true", "y", "--engine", "numpy",
                 "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert "k-fold cross-validation, 1 repeat, 10 folds, of 230 observations" in page
    assert "one test set of" not in page
    assert "Pooled out-of-fold McNemar" in page
    assert "ignores the variation from training" in page


def test_spark_counts_a_ten_fold_file_as_numpy_does(tmp_path):
    if shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless")
    from precmp_lib.engine.spark_engine import spark_session

    frame = _ten_fold(90)
    frame.to_parquet(tmp_path / "tenfold.parquet")
    ref = count_predictions(frame, y_true="y")
    spark_session()
    got = count_predictions(str(tmp_path / "tenfold.parquet"), y_true="y", engine="spark")
    assert (got.design, got.repeats, got.folds, got.n_observations) == ("repeated cv", 1, 10, 90)
    cols = ["repeat", "fold", "y", "p0", "p1", "p2", "count"]
    pd.testing.assert_frame_equal(got.patterns[cols].sort_values(cols).reset_index(drop=True),
                                  ref.patterns[cols].sort_values(cols).reset_index(drop=True),
                                  check_dtype=False)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_long_files_unread_columns_are_said(engine, tmp_path):
    # before: a probability column beside a long file's predictions was ignored without a word
    path = tmp_path / "long.csv"
    path.write_text("id,y_true,model,y_pred,p\n1,1,a,1,0.9\n2,0,a,0,0.2\n3,1,a,0,0.4\n"
                    "1,1,b,1,0.8\n2,0,b,1,0.7\n3,1,b,1,0.9\n")
    from precmp_lib.engine.predictions import count_predictions

    notes = count_predictions(path, y_true="y_true", engine=engine).notes
    assert ("column 'p' of the long file is not read: a long file is read by its model, "
            "prediction and truth columns (scores or probabilities are compared with --proba "
            "COL)") in notes
