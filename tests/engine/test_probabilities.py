"""Reading probabilities (precmp_lib/engine/probabilities.py): layouts, classes, bad input.

Reference values: scikit-learn's ``roc_auc_score``, ``brier_score_loss``, ``log_loss`` and
``roc_auc_score(multi_class="ovo")`` (Hand and Till), called here on the same columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

from precmp_lib.engine.base import PredictionFileError
from precmp_lib.engine.probabilities import count_probabilities
from precmp_lib.stats.auc import LOG_LOSS_EPSILON, auc_covariance, delong_sums


def wide(seed: int = 0, n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    out = pd.DataFrame({"id": np.arange(n), "y": np.where(y == 1, "yes", "no")})
    for name, k in (("a", 2.0), ("b", 1.0), ("c", 0.5)):
        out[name] = np.round(1 / (1 + np.exp(-k * (2 * y - 1) - rng.normal(size=n))), 2)
    return out


def test_wide_binary_equals_sklearn():
    df = wide()
    c = count_probabilities(df, y_true="y", proba=["a", "b", "c"])
    y = (df["y"] == "yes").to_numpy()
    assert c.positive == "yes" and c.classes == ("no", "yes")
    np.testing.assert_allclose(c.aucs, [roc_auc_score(y, df[m]) for m in "abc"], rtol=1e-13)
    _, cov = auc_covariance(delong_sums(y, df[["a", "b", "c"]].to_numpy().T))
    np.testing.assert_allclose(c.auc_covariance, cov, rtol=1e-13)
    for j, m in enumerate("abc"):
        assert c.brier.sums[j] / c.n_rows == pytest.approx(brier_score_loss(y, df[m]))
        clipped = np.clip(df[m], LOG_LOSS_EPSILON, 1 - LOG_LOSS_EPSILON)
        assert c.log_loss.sums[j] / c.n_rows == pytest.approx(log_loss(y, clipped))
    # labels at the threshold: the positive class where p >= 0.5
    assert (c.labels["a"] == np.where(df["a"] >= 0.5, "yes", "no")).all()
    # ROC ends at (0, 0) and (1, 1); the trapezoid area of the full curve is the AUC
    roc = c.roc[c.roc["model"] == "a"]
    assert (roc["fpr"].iloc[0], roc["tpr"].iloc[-1]) == (0.0, 1.0)
    assert np.trapezoid(roc["tpr"], roc["fpr"]) == pytest.approx(c.aucs[0])


def test_positive_names_the_class_and_flips_the_auc():
    df = wide()
    up = count_probabilities(df, y_true="y", proba=["a", "b"])
    down = count_probabilities(df, y_true="y", proba=["a", "b"], positive="no")
    np.testing.assert_allclose(down.aucs, 1 - up.aucs)


def test_long_equals_wide_and_keeps_the_files_labels():
    df = wide()
    long = df.melt(id_vars=["id", "y"], value_vars=["a", "b", "c"], var_name="model",
                   value_name="p")
    long["y_pred"] = np.where(long["p"] >= 0.7, "yes", "no")
    c_long = count_probabilities(long, y_true="y", proba=["p"])
    c_wide = count_probabilities(df, y_true="y", proba=["a", "b", "c"])
    assert c_long.models == ("a", "b", "c")
    np.testing.assert_allclose(c_long.aucs, c_wide.aucs, rtol=1e-14)
    assert c_long.label_source == "y_pred"
    assert (c_long.labels["a"].to_numpy() == np.where(df["a"] >= 0.7, "yes", "no")).all()


def test_multiclass_columns():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 150)
    df = pd.DataFrame({"y": np.array(["x", "y", "z"])[y]})
    probs = {}
    for m in ("m1", "m2"):
        logit = rng.normal(size=(150, 3)) + np.eye(3)[y] * (2 if m == "m1" else 1)
        p = np.exp(logit) / np.exp(logit).sum(axis=1, keepdims=True)
        probs[m] = p
        for j, cls in enumerate("xyz"):
            df[f"{m}:{cls}"] = p[:, j]
    c = count_probabilities(df, y_true="y", proba=["m1", "m2"])
    assert c.multiclass and c.classes == ("x", "y", "z")
    np.testing.assert_allclose(c.aucs, [roc_auc_score(y, probs[m], multi_class="ovo")
                                        for m in ("m1", "m2")], rtol=1e-13)
    ovr = c.per_class.query("model == 'm2'")["auc"].to_numpy()
    np.testing.assert_allclose(ovr, [roc_auc_score(y == j, probs["m2"][:, j]) for j in range(3)])
    assert c.log_loss.sums[0] / 150 == pytest.approx(log_loss(y, probs["m1"]))
    assert (c.labels["m1"] == np.array(list("xyz"))[probs["m1"].argmax(axis=1)]).all()


def test_clustered_and_cross_validated_designs():
    df = wide(n=200)
    df["patient"] = np.repeat(np.arange(50), 4)
    c = count_probabilities(df, y_true="y", proba=["a", "b"], cluster="patient")
    assert c.design["design"] == "clustered" and c.design["n_clusters"] == 50
    assert c.brier.n_clusters == 50
    df["fold"] = np.tile(np.arange(5), 40)
    cv = count_probabilities(df.drop(columns="patient"), y_true="y", proba=["a", "b"])
    assert cv.design["design"] == "repeated cv" and cv.design["folds"] == 5
    assert len(cv.fold_aucs) == 10 and cv.design["test_train_ratio"] == pytest.approx(0.25)


def test_scores_outside_the_unit_interval_give_auc_only():
    df = wide()
    df["a"] = np.log(df["a"] + 0.01)
    c = count_probabilities(df, y_true="y", proba=["a", "b"])
    assert c.brier is None and any("not all in [0, 1]" in n for n in c.notes)
    with pytest.raises(PredictionFileError, match=r"outside \[0, 1\]"):
        count_probabilities(df, y_true="y", proba=["a", "b"], losses=True)


@pytest.mark.parametrize("change, match", [
    (lambda d: d.assign(y="yes"), "holds one class"),
    (lambda d: d.assign(a=d["a"].where(d.index != 4)), r"missing or non-numeric score .*row 4"),
    (lambda d: d.assign(a=0.3), "same score"),
    (lambda d: d.assign(y=np.arange(len(d)) % 3), "holds 3 classes"),
])
def test_bad_binary_input(change, match):
    with pytest.raises(PredictionFileError, match=match):
        count_probabilities(change(wide()), y_true="y", proba=["a", "b"])


def test_bad_multiclass_input():
    df = pd.DataFrame({"y": ["x", "y", "x", "y"], "m:x": [0.6, 0.2, 0.7, 0.4],
                       "m:y": [0.4, 0.8, 0.3, 0.6], "m:z": [0.0, 0.0, 0.0, 0.0],
                       "n:x": [0.5, 0.3, 0.9, 0.2], "n:y": [0.5, 0.7, 0.1, 0.8],
                       "n:z": [0.0, 0.0, 0.0, 0.0]})
    with pytest.raises(PredictionFileError, match=r"class 'z' .* never occurs"):
        count_probabilities(df, y_true="y", proba=["m", "n"])
    df = df.assign(y=["x", "y", "z", "y"])
    df.loc[0, "m:x"] = 0.7
    with pytest.raises(PredictionFileError, match=r"sum to 1 \(within 1e-06\)"):
        count_probabilities(df, y_true="y", proba=["m", "n"])
    with pytest.raises(PredictionFileError, match="neither a column nor the prefix"):
        count_probabilities(df, y_true="y", proba=["m", "q"])


# --------------------------------------------------------------------------------------------
# every engine gives the same numbers
# --------------------------------------------------------------------------------------------


def _same(a, b):
    np.testing.assert_allclose(a.aucs, b.aucs, rtol=1e-13)
    np.testing.assert_allclose(a.auc_covariance, b.auc_covariance, rtol=1e-9, atol=1e-17)
    for loss in ("brier", "log_loss"):
        x, y = getattr(a, loss), getattr(b, loss)
        np.testing.assert_allclose(x.sums, y.sums, rtol=1e-12)
        np.testing.assert_allclose(x.item_gram, y.item_gram, rtol=1e-12)
        np.testing.assert_allclose(x.cluster_gram, y.cluster_gram, rtol=1e-12)
        assert x.n_clusters == y.n_clusters
    assert (a.positive, a.n_positive, a.n_negative) == (b.positive, b.n_positive, b.n_negative)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("cluster", [None, "patient"])
def test_duckdb_equals_numpy(tmp_path, suffix, cluster):
    df = wide(n=200)
    df["patient"] = np.repeat(np.arange(40), 5)
    path = tmp_path / f"p.{suffix}"
    df.to_csv(path, index=False) if suffix == "csv" else df.to_parquet(path)
    args = {"y_true": "y", "proba": ["a", "b", "c"], "cluster": cluster}
    d = count_probabilities(str(path), engine="duckdb", **args)
    n = count_probabilities(str(path), engine="numpy", **args)
    assert d.engine == "duckdb" and n.engine == "numpy"
    _same(d, n)
    # the labels at the threshold: the same counts as the numpy engine's labels
    from precmp_lib.engine.predictions import count_predictions

    labels = count_predictions(n.labels, y_true="y", models=["a", "b", "c"], layout="wide")
    pd.testing.assert_frame_equal(d.labels.patterns.reset_index(drop=True),
                                  labels.patterns.reset_index(drop=True), check_dtype=False)
    # the binned ROC keeps the ends and rises
    roc = d.roc[d.roc.model == "a"]
    assert roc.iloc[0][["fpr", "tpr"]].tolist() == [0, 0] and roc.iloc[-1]["tpr"] == 1
    assert np.all(np.diff(roc["tpr"]) >= 0)


def test_a_users_read_only_database_is_read_and_left_as_it_was(tmp_path):
    """A relation of a user's read-only database file: the distinct scores are stored in
    temporary tables of its connection (a database file takes no table of ours) and dropped
    after; the counts equal numpy's."""
    import duckdb

    df = wide(n=200)
    db = tmp_path / "user.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE scores AS SELECT * FROM df")
    con = duckdb.connect(str(db), read_only=True)
    try:
        before = con.sql("SELECT database_name, table_name FROM duckdb_tables()").fetchall()
        d = count_probabilities(con.table("scores"), y_true="y", proba=["a", "b", "c"],
                                engine="duckdb")
        assert d.engine == "duckdb"
        _same(d, count_probabilities(df, y_true="y", proba=["a", "b", "c"], engine="numpy"))
        assert con.sql("SELECT database_name, table_name FROM duckdb_tables()").fetchall() == before
    finally:
        con.close()


def test_duckdb_refuses_what_it_cannot_reduce_and_auto_reads_it_in_memory(tmp_path):
    df = wide()
    df["fold"] = np.arange(len(df)) % 4
    path = tmp_path / "cv.csv"
    df.to_csv(path, index=False)
    with pytest.raises(PredictionFileError, match=r"cross-validated scores .* --engine numpy"):
        count_probabilities(str(path), y_true="y", proba=["a", "b"], engine="duckdb")
    auto = count_probabilities(str(path), y_true="y", proba=["a", "b"])
    assert auto.design["design"] == "repeated cv" and auto.engine == "numpy"


@pytest.mark.parametrize("change, match", [
    (lambda d: d.assign(a=d["a"].astype(object).where(d.index != 4, "x")), "non-numeric score"),
    (lambda d: d.assign(a=0.3), "same score"),
    (lambda d: d.assign(y="yes"), "holds one class"),
])
def test_duckdb_bad_input(tmp_path, change, match):
    path = tmp_path / "bad.csv"
    change(wide()).to_csv(path, index=False)
    with pytest.raises(PredictionFileError, match=match):
        count_probabilities(str(path), y_true="y", proba=["a", "b"], engine="duckdb")


@pytest.mark.parametrize("engine", ["spark"])
def test_spark_equals_numpy(tmp_path, engine):
    pytest.importorskip("pyspark")
    df = wide(n=150)
    df["patient"] = np.repeat(np.arange(30), 5)
    path = tmp_path / "p.parquet"
    df.to_parquet(path)
    for cluster in (None, "patient"):
        args = {"y_true": "y", "proba": ["a", "b"], "cluster": cluster}
        s = count_probabilities(str(path), engine=engine, **args)
        assert s.engine == "spark"
        _same(s, count_probabilities(str(path), engine="numpy", **args))


def test_long_multiclass_with_a_class_column_equals_wide():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 90)
    wide_df = pd.DataFrame({"id": np.arange(90), "y": np.array(["x", "y", "z"])[y]})
    rows = []
    for m in ("m1", "m2"):
        logit = rng.normal(size=(90, 3)) + np.eye(3)[y] * 1.5
        p = np.exp(logit) / np.exp(logit).sum(axis=1, keepdims=True)
        for j, cls in enumerate("xyz"):
            wide_df[f"{m}:{cls}"] = p[:, j]
            rows.append(pd.DataFrame({"id": np.arange(90), "model": m, "class": cls,
                                      "y": wide_df["y"], "p": p[:, j]}))
    long = pd.concat(rows).sample(frac=1, random_state=0)
    c_long = count_probabilities(long, y_true="y", proba=["p"])
    c_wide = count_probabilities(wide_df, y_true="y", proba=["m1", "m2"])
    assert c_long.multiclass and c_long.models == ("m1", "m2")
    np.testing.assert_allclose(c_long.aucs, c_wide.aucs, rtol=1e-13)
    pd.testing.assert_frame_equal(c_long.per_class, c_wide.per_class)


def _long_binary() -> pd.DataFrame:
    return wide().melt(id_vars=["id", "y"], value_vars=["a", "b", "c"], var_name="model",
                       value_name="p")


def _long_classes() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    y = np.array(list("xyz"))[rng.integers(0, 3, 30)]
    return pd.DataFrame([{"id": i, "model": m, "class": c, "y": y[i], "p": 1 / 3}
                         for i in range(30) for m in ("m1", "m2") for c in "xyz"])


@pytest.mark.parametrize(("make", "change", "match"), [
    (_long_binary, lambda d: pd.concat([d, d.iloc[[4]]]),
     r"an observation has two rows for one model \(columns \['id', 'model'\]\)"),
    (_long_binary, lambda d: d.drop(index=7),
     r"not every model scores every observation \(a long file needs one row per observation "
     r"and model\)"),
    (_long_binary, lambda d: d[d.model == "a"],
     r"column 'model' names 1 model; need at least two"),
    (_long_classes, lambda d: pd.concat([d, d.iloc[[4]]]),
     r"an observation has two rows for one model and class \(columns \['id', 'model', 'class'\]\)"),
    (_long_classes, lambda d: d.drop(index=7),
     r"not every model gives every observation a probability of every class"),
])
def test_a_long_file_that_is_not_one_row_per_observation_and_model_is_refused(make, change, match):
    """The long layouts, binary and multiclass, share one pivot: each refusal in one line."""
    with pytest.raises(ValueError, match=match):
        count_probabilities(change(make()), y_true="y", proba=["p"], id="id")


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_degenerate_models_count_the_same_where_the_data_live(tmp_path, engine):
    """A perfect model (AUC 1), one wrong on every row (AUC 0), two identical models and one
    with only two distinct scores: the engines' placements, covariances, losses, ROC and
    reliability bins equal numpy's."""
    if engine == "spark":
        pytest.importorskip("pyspark")
    df = wide(n=120)
    truth = (df["y"] == "yes").to_numpy()
    df["perfect"] = np.where(truth, 0.9, 0.2)
    df["wrong"] = np.where(truth, 0.1, 0.8)
    df["twin"] = df["a"]
    df["coarse"] = np.where(df["a"] > 0.5, 0.7, 0.3)
    path = tmp_path / "d.parquet"
    df.to_parquet(path)
    args = {"y_true": "y", "proba": ["perfect", "wrong", "a", "twin", "coarse"]}
    d = count_probabilities(str(path), engine=engine, **args)
    n = count_probabilities(str(path), engine="numpy", **args)
    _same(d, n)
    np.testing.assert_allclose(d.aucs[:2], [1.0, 0.0], atol=1e-15)
    assert d.aucs[2] == d.aucs[3] and d.auc_covariance[2, 3] == pytest.approx(d.auc_covariance[2, 2])
    # the perfect model's ROC goes straight up: a point at (0, 1)
    roc = d.roc[d.roc.model == "perfect"]
    assert ((roc.fpr == 0) & (roc.tpr == 1)).any()
    cal = d.calibration.set_index(["model", "bin"])
    ref = n.calibration.set_index(["model", "bin"])
    assert set(cal.index) == set(ref.index)
    pd.testing.assert_frame_equal(cal[["n"]], ref.loc[cal.index, ["n"]], check_dtype=False)
    np.testing.assert_allclose(cal["observed"], ref.loc[cal.index, "observed"], rtol=1e-12)
