"""The counting engines: numpy, DuckDB and Spark give the same Counts on the same data, and the
label rules (one place) hold for every engine.

The reference for every count is an independent tally: pandas ``value_counts`` over the decoded
label tuples of the rows (``_tally``), not the engines' code path.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from precmp_lib.core.predictions import Counts
from precmp_lib.engine.base import PredictionFileError, _spec
from precmp_lib.engine.dictionary import label_dictionary
from precmp_lib.engine.dispatch import EngineError
from precmp_lib.engine.predictions import count_predictions
from precmp_lib.engine.sql import DUCKDB, SPARK, _roles, cluster_sql, counting_sql, roles_sql

RNG_SEED = 20261123


def _wide(n: int, classes: list, models: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(np.asarray(classes, dtype=object), n)
    data = {"y": y}
    for j in range(models):
        wrong = rng.choice(np.asarray(classes, dtype=object), n)
        data[f"m{j}"] = np.where(rng.random(n) < 0.7 + 0.05 * j, y, wrong)
    frame = pd.DataFrame(data)
    if all(isinstance(c, int) for c in classes):
        frame = frame.astype(np.int64)
    return frame


def _long_cv(n_obs: int, repeats: int, folds: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["neg", "pos", "unsure"], n_obs)
    rows = []
    for r in range(repeats):
        fold = rng.permutation(np.arange(n_obs) % folds)
        for k, m in enumerate(["nb", "rf", "lr"]):
            right = rng.random(n_obs) < 0.6 + 0.1 * k
            pred = np.where(right, y, rng.choice(["neg", "pos", "unsure"], n_obs))
            rows.append(pd.DataFrame({"id": np.arange(n_obs), "repeat": r, "fold": fold,
                                      "model": m, "y_true": y, "y_pred": pred}))
    return pd.concat(rows, ignore_index=True).sample(frac=1.0, random_state=seed)


DATASETS = {
    "binary": lambda: _wide(500, [0, 1], 2, RNG_SEED),
    "multiclass": lambda: _wide(800, [3, 1, 10, 2], 3, RNG_SEED + 1),
    "strings": lambda: _wide(700, ["setosa", "versicolor", "virginica", "NA"], 4, RNG_SEED + 2),
    "cv_long": lambda: _long_cv(60, 3, 4, RNG_SEED + 3),
}


def _truth_args(name: str) -> dict:
    return {"y_true": "y_true"} if name.startswith("cv") else {"y_true": "y"}


def _tally(frame: pd.DataFrame, name: str, counts: Counts) -> pd.Series:
    """Independent reference: counts of decoded (repeat, fold, y, preds) tuples by pandas."""
    if name.startswith("cv"):
        wide = frame.pivot(index=["id", "repeat", "fold", "y_true"], columns="model",
                           values="y_pred").reset_index()
        keys = ["repeat", "fold", "y_true", *counts.models]
    else:
        wide, keys = frame, ["y", *counts.models]
    return wide.value_counts(keys).sort_index()


def _decoded(counts: Counts) -> pd.Series:
    t = counts.patterns
    cls = np.asarray(counts.classes, dtype=object)
    cols = {}
    if counts.design == "repeated cv":
        cols = {"repeat": t["repeat"].to_numpy(), "fold": t["fold"].to_numpy()}
    cols["y"] = cls[t["y"].to_numpy()]
    for j, m in enumerate(counts.models):
        cols[m] = cls[t[f"p{j}"].to_numpy()]
    return pd.Series(t["count"].to_numpy(), index=pd.MultiIndex.from_frame(pd.DataFrame(cols)))


def assert_same_counts(a: Counts, b: Counts) -> None:
    assert (a.classes, a.models, a.design) == (b.classes, b.models, b.design)
    assert (a.n_rows, a.n_observations, a.repeats, a.folds) == (b.n_rows, b.n_observations,
                                                                 b.repeats, b.folds)
    pd.testing.assert_frame_equal(a.patterns, b.patterns)
    if a.observations is None:
        assert b.observations is None
    else:
        pd.testing.assert_frame_equal(a.observations, b.observations)
    if a.clusters is None:
        assert b.clusters is None
    else:
        assert a.clusters.equals(b.clusters)
    if a.profiles is None:
        assert b.profiles is None
    else:
        assert len(a.profiles) == len(b.profiles)
        assert all(p.equals(q) for p, q in zip(a.profiles, b.profiles))


def _profiles_by_pandas(frame: pd.DataFrame, label: str) -> pd.Series:
    """Independent reference for one class's Counts.profiles of the long cv data: pandas.

    Per observation: its rows (events: one per repeat), its rows of true class ``label``,
    and per model how often the model predicted it and how often rightly; then the
    observations with each profile, in the sorted order of the profile tuples.
    """
    models = list(dict.fromkeys(frame["model"]))
    events = frame.drop_duplicates(["id", "repeat"])
    per = events.groupby("id").size().rename("size").to_frame()
    per["true"] = events[events["y_true"] == label].groupby("id").size()
    for what in ("called", "hit"):
        for m in models:
            part = frame[(frame["model"] == m) & (frame["y_pred"] == label)]
            if what == "hit":
                part = part[part["y_true"] == label]
            per[f"{what} {m}"] = part.groupby("id").size()
    return per.fillna(0).astype(np.int64).value_counts().sort_index()


def _profiles_series(profiles) -> pd.Series:
    g = len(profiles.count)
    flat = np.column_stack([profiles.size, profiles.true, profiles.called.reshape(g, -1),
                            profiles.hit.reshape(g, -1)])
    return pd.Series(profiles.count,
                     index=pd.MultiIndex.from_tuples([tuple(map(int, r)) for r in flat]))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Each dataset as a DataFrame, a CSV file, a Parquet file and two Parquet parts."""
    root = tmp_path_factory.mktemp("engines")
    out = {}
    for name, make in DATASETS.items():
        frame = make()
        csv, pq = root / f"{name}.csv", root / f"{name}.parquet"
        frame.to_csv(csv, index=False)
        frame.to_parquet(pq, index=False)
        parts = root / name
        parts.mkdir()
        half = len(frame) // 2
        frame.iloc[:half].to_parquet(parts / "part-0.parquet", index=False)
        frame.iloc[half:].to_parquet(parts / "part-1.parquet", index=False)
        out[name] = (frame, csv, pq, str(parts / "*.parquet"))
    return out


@pytest.mark.parametrize("name", list(DATASETS))
def test_numpy_counts_match_an_independent_tally(name, files):
    frame = files[name][0]
    counts = count_predictions(frame, observations=True, **_truth_args(name))
    tally = _tally(frame, name, counts)
    decoded = _decoded(counts)
    assert decoded.to_numpy().tolist() == tally.to_numpy().tolist()
    assert [tuple(map(str, i)) for i in decoded.index] == [tuple(map(str, i)) for i in tally.index]
    assert counts.n_rows == int(tally.sum())
    if name.startswith("cv"):
        assert (counts.repeats, counts.folds, counts.n_observations) == (3, 4, 60)
        obs = counts.observations
        assert obs.groupby("obs")["count"].sum().eq(3).all()  # every observation once per repeat
        # 60 observations of 3 rows each: sum of sizes 180, of squared sizes 60 * 3^2
        sums = counts.clusters
        assert (sums.n_clusters, sums.size, sums.size_sq, sums.mixed_truth) == (60, 180, 540, 0)
        wide = frame.pivot(index=["id", "repeat", "y_true"], columns="model",
                           values="y_pred").reset_index()
        for j, m in enumerate(counts.models):  # pandas: right predictions per observation
            right = (wide[m] == wide["y_true"]).groupby(wide["id"]).sum()
            assert sums.right[j] == right.sum() and sums.right_sq[j] == (right ** 2).sum()
    if name == "multiclass":
        assert counts.classes == (1, 2, 3, 10)  # numeric order, not text order


@pytest.mark.parametrize("name", list(DATASETS))
def test_duckdb_gives_the_numpy_counts_for_every_kind_of_source(name, files):
    import duckdb

    frame, csv, pq, parts = files[name]
    ref = count_predictions(frame, **_truth_args(name))
    con = duckdb.connect()
    sources = {"csv": csv, "parquet": pq, "glob": parts, "relation": con.read_parquet(str(pq))}
    for kind, src in sources.items():
        got = count_predictions(src, **_truth_args(name))
        assert got.engine == "duckdb", kind
        assert_same_counts(ref, got)
    assert_same_counts(ref, count_predictions(frame, engine="duckdb", **_truth_args(name)))
    assert_same_counts(ref, count_predictions(csv, engine="numpy", **_truth_args(name)))
    assert_same_counts(ref, count_predictions(pq, progress=True, **_truth_args(name)))
    if name.startswith("cv"):  # the per-observation table, on request, is the same too
        with_obs = count_predictions(frame, observations=True, **_truth_args(name))
        assert with_obs.clusters.equals(ref.clusters)
        assert_same_counts(with_obs, count_predictions(pq, observations=True, **_truth_args(name)))


@pytest.mark.parametrize("classes", [["pos"], ["unsure", "neg"], ["neg", "pos", "unsure"]])
def test_profiles_are_the_observations_grouped_and_every_engine_gives_them(files, classes):
    frame, csv, pq, parts = files["cv_long"]
    ref = count_predictions(frame, y_true="y_true", prevalence_classes=classes)
    assert [ref.classes[q.classes[0]] for q in ref.profiles] == classes
    for label, profiles in zip(classes, ref.profiles):
        expected = _profiles_by_pandas(frame, label)
        got = _profiles_series(profiles)
        assert got.index.tolist() == expected.index.tolist()
        assert got.tolist() == expected.tolist()
        assert profiles.n_clusters == ref.n_observations == 60
    for src in (csv, pq, parts):
        from_engine = count_predictions(src, y_true="y_true", prevalence_classes=classes)
        assert from_engine.engine == "duckdb" and from_engine.observations is None
        assert_same_counts(ref, from_engine)
    # the per-observation table, when it does come back, gives the same profiles
    with_obs = count_predictions(pq, y_true="y_true", observations=True, prevalence_classes=classes)
    assert with_obs.observations is not None
    assert all(p.equals(q) for p, q in zip(ref.profiles, with_obs.profiles))
    wide = frame.pivot(index=["id", "repeat", "fold", "y_true"], columns="model",
                       values="y_pred").reset_index()
    wide.columns = [str(c) for c in wide.columns]
    wide = wide[["id", "repeat", "fold", "y_true", *ref.models]]
    wide_path = pq.parent / f"wide_{len(classes)}.parquet"
    wide.to_parquet(wide_path, index=False)
    for src in (wide, wide_path):
        got = count_predictions(src, y_true="y_true", prevalence_classes=classes).profiles
        assert all(p.equals(q) for p, q in zip(ref.profiles, got))


def test_profile_labels_match_by_text_and_unknown_ones_are_left_out(files):
    frame = files["cv_long"][0]
    counts = count_predictions(frame, y_true="y_true", prevalence_classes=["pos", "cat", "pos"])
    assert [q.classes for q in counts.profiles] == [(counts.classes.index("pos"),)]
    assert count_predictions(frame, y_true="y_true", prevalence_classes=["cat"]).profiles is None
    test_set = files["strings"][0]
    assert count_predictions(test_set, y_true="y", prevalence_classes=["NA"]).profiles is None


def test_wide_repeated_cv_equals_long(files):
    frame = files["cv_long"][0]
    wide = frame.pivot(index=["id", "repeat", "fold", "y_true"], columns="model",
                       values="y_pred").reset_index()
    wide.columns = [str(c) for c in wide.columns]
    a = count_predictions(frame, y_true="y_true")
    # the long table's models come in the order of their first row; the wide one in its columns'
    wide = wide[["id", "repeat", "fold", "y_true", *a.models]]
    b = count_predictions(wide, y_true="y_true")
    assert b.notes == ("column 'id' is taken as the observation id",)
    assert_same_counts(a, b)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_long_models_keep_the_order_of_their_first_row(engine, tmp_path):
    rows = [(i, m, i % 2, (i + (m == "zeta")) % 2) for i in range(6) for m in ("zeta", "alpha", "mid")]
    frame = pd.DataFrame(rows, columns=["id", "model", "y_true", "y_pred"])
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    assert count_predictions(path, y_true="y_true", engine=engine).models == ("zeta", "alpha", "mid")
    chosen = count_predictions(path, y_true="y_true", engine=engine, models=["mid", "zeta"])
    assert chosen.models == ("mid", "zeta")


def test_spark_gives_the_numpy_counts(files, spark):
    for name in ["strings", "cv_long"]:
        frame, csv, pq, _ = files[name]
        ref = count_predictions(frame, **_truth_args(name))
        from_frame = count_predictions(spark.read.parquet(str(pq)), **_truth_args(name))
        assert from_frame.engine == "spark"
        assert_same_counts(ref, from_frame)
        assert_same_counts(ref, count_predictions(csv, engine="spark", **_truth_args(name)))
    frame, _, pq, _ = files["multiclass"]
    assert_same_counts(count_predictions(frame, y_true="y"),
                       count_predictions(str(pq), engine="spark", y_true="y"))
    # the observations' profiles, grouped where the data live
    frame, csv, pq, _ = files["cv_long"]
    ref = count_predictions(frame, y_true="y_true", prevalence_classes=["unsure", "pos"])
    got = count_predictions(str(pq), engine="spark", y_true="y_true",
                            prevalence_classes=["unsure", "pos"])
    assert got.observations is None
    assert_same_counts(ref, got)


def test_one_sql_text_for_duckdb_and_spark():
    spec = _spec("f", ["id", "repeat", "fold", "model", "y_true", "y_pred"], y_true="y_true",
                 models=None, id=None, repeat=None, fold=None, layout="auto")
    spec.models = ["a", "b"]
    spec.keep_observations = True
    duck, spark = counting_sql(spec, DUCKDB), counting_sql(spec, SPARK)
    assert "GROUPING SETS" in duck
    # the same text: it reads the fixed names of the first step, so nothing differs
    assert duck == spark
    assert "GROUP BY cl, k" in cluster_sql(spec)


HOSTILE_NAMES = ['a AS b', 'a, ', 'x" AS y, "z', "x` AS y, `z", "'; DROP TABLE src; --", "/* c */",
                 "read_text('/etc/hostname')", "getenv('HOME')", "k_y", "c0", "t.c1 + 1", "src"]


@pytest.mark.parametrize("layout", ["wide", "long", "cv"])
def test_query_text_holds_no_name_or_value_of_the_source(layout):
    """Column and model names reach the SQL engines only by position and as constants."""
    if layout == "wide":
        columns = ["y", *HOSTILE_NAMES]
        spec = _spec("f", columns, y_true="y", models=None, id=None, repeat=None, fold=None,
                     layout="wide")
    else:
        columns = [HOSTILE_NAMES[0], "model", HOSTILE_NAMES[1], "y_pred", HOSTILE_NAMES[2],
                   HOSTILE_NAMES[3]]
        spec = _spec("f", columns, y_true=HOSTILE_NAMES[1], models=None, id=HOSTILE_NAMES[0],
                     repeat=HOSTILE_NAMES[2] if layout == "cv" else None,
                     fold=HOSTILE_NAMES[3] if layout == "cv" else None, layout="long")
        spec.models = HOSTILE_NAMES[4:]
    texts = [roles_sql(_roles(spec), columns), counting_sql(spec, DUCKDB), counting_sql(spec, SPARK)]
    if layout == "cv":
        texts.append(cluster_sql(spec))
    for text in texts:
        for name in HOSTILE_NAMES:
            if name not in ("k_y", "c0", "src"):  # fixed names the query uses itself
                assert name not in text, (name, text)
        assert "'" not in text and '"' not in text and "`" not in text and ";" not in text


def _exploit_file(folder, payload):
    """The injection a security review found: column names that close the quoted GROUP BY key
    of the old query (which split each selected column at " AS ") and append a UNION."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    evil = f", 2, 3 UNION ALL SELECT s, s, s, s, 1 FROM (SELECT {payload} s) t -- AS z"
    path = folder / "evil.parquet"
    pq.write_table(pa.table({"y": ["a", "b", "a"], "a AS b": ["a", "b", "b"],
                             evil: ["a", "a", "b"], "a, ": ["b", "b", "a"]}), path)
    return path, evil


def _exploit_checks(counts, evil):
    # hand tally of the three rows (y, a AS b, evil, "a, "): (a,a,a,b), (b,b,a,b), (a,b,b,a)
    assert counts.classes == ("a", "b")
    assert counts.models == ("a AS b", evil, "a, ")
    assert counts.n_rows == 3
    assert _decoded(counts).to_dict() == {("a", "a", "a", "b"): 1, ("b", "b", "a", "b"): 1,
                                          ("a", "b", "b", "a"): 1}


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_column_names_cannot_run_sql(tmp_path, engine):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-5d41402abc")
    path, evil = _exploit_file(tmp_path, f"trim(content) FROM read_text('{secret}')")
    _exploit_checks(count_predictions(str(path), y_true="y", engine=engine), evil)


def test_column_names_cannot_run_sql_in_spark(tmp_path, spark):
    path, evil = _exploit_file(tmp_path, "java_method('java.lang.System', 'getProperty', 'user.home')")
    _exploit_checks(count_predictions(str(path), y_true="y", engine="spark"), evil)
    long = pd.DataFrame({"id": [1, 1, 2, 2], "model": ["m') OR ('1'='1", "b", "m') OR ('1'='1", "b"],
                         "y_true": ["a", "a", "b", "b"], "y_pred": ["a", "b", "b", "b"]})
    ref = count_predictions(long, y_true="y_true")
    assert_same_counts(ref, count_predictions(spark.createDataFrame(long), y_true="y_true"))
    assert ref.models == ("m') OR ('1'='1", "b")  # the order of their first rows
    # names Spark's column API would parse (a dot, a backtick) and " AS ", in frames and relations
    wide = pd.DataFrame({"y": ["a", "b", "a"], "a.b": ["a", "b", "b"], "c`d": ["a", "a", "b"],
                         "e AS f": ["b", "b", "a"]})
    ref = count_predictions(wide, y_true="y")
    assert ref.models == ("a.b", "c`d", "e AS f")
    assert_same_counts(ref, count_predictions(spark.createDataFrame(wide), y_true="y"))
    import duckdb

    relation = duckdb.connect().from_df(wide)
    assert_same_counts(ref, count_predictions(relation, y_true="y"))


# ---------------------------------------------------------------------------------------------
# label rules (shared by all engines: each case runs through numpy and DuckDB)
# ---------------------------------------------------------------------------------------------


def both(tmp_path, text, **kwargs):
    path = tmp_path / "p.csv"
    path.write_text(text)
    return [count_predictions(path, engine=e, **kwargs) for e in ("numpy", "duckdb")]


def test_na_none_null_are_labels(tmp_path):
    for c in both(tmp_path, "y,a,b\nNA,NA,None\nnull,NA,null\nNone,None,NA\n", y_true="y"):
        assert c.classes == ("NA", "None", "null") and c.n_rows == 3


def test_integral_floats_are_ints(tmp_path):
    for c in both(tmp_path, "y,a,b\n0,0.0,1.0\n1,1.0,1\n", y_true="y"):
        assert c.classes == (0, 1)
        assert c.patterns.to_dict("list") == {"y": [0, 1], "p0": [0, 1], "p1": [1, 1], "count": [1, 1]}
    frame = pd.DataFrame({"y": [0, 1, 1], "a": [0.0, 1.0, 0.0], "b": [1.0, 1.0, 0.0]})
    assert count_predictions(frame, y_true="y").classes == (0, 1)


@pytest.mark.parametrize(("text", "message"), [
    ("y,a,b\n0,0,1\n1,,1\n", r"p\.csv: column 'a' has a missing label \(line 3\)"),
    ("y,a,b\n0,0,1\n1, ,1\n", r"p\.csv: column 'a' has a missing label \(line 3\)"),
    ("y,a,a\n0,0,1\n", r"p\.csv: duplicated column name\(s\) \['a'\]"),
    ("id,y,a,b\n1,0,0,1\n2,1,1,1\n1,0,0,0\n", r"p\.csv: column 'id': duplicated id \(id=1; lines 2 and 4\)"),
    ("id,model,y_true,y_pred\n1,a,0,0\n1,b,1,0\n",
     r"column 'y_true': an observation has more than one true label \(observation id=1\)"),
    ("id,repeat,y,a,b\n1,0,0,0,1\n1,1,1,1,1\n2,0,1,1,1\n2,1,1,1,1\n",
     r"column 'y': an observation has more than one true label \(observation id=1\)"),
    ("y,a,b\n0,x,1\n1,z,1\n", r"column 'a': none of its labels \(x, z\) occurs in the truth column 'y'"),
    ("id,model,y_true,y_pred\n1,a,0,0\n1,a,0,1\n1,b,0,0\n", r"duplicated \(id, model\) rows for model 'a'"),
    ("id,model,y_true,y_pred\n1,a,0,0\n2,a,1,1\n1,b,0,0\n", r"model 'b' lacks predictions"),
    ("y,a,b\n", r"the file has a header but no rows"),
])
def test_bad_files_fail_the_same_way_in_numpy_and_duckdb(tmp_path, text, message):
    path = tmp_path / "p.csv"
    path.write_text(text)
    truth = "y_true" if "y_true" in text else "y"
    for engine in ("numpy", "duckdb"):
        with pytest.raises(PredictionFileError, match=message):
            count_predictions(path, y_true=truth, engine=engine)


def test_text_and_number_forms_are_an_error_naming_both():
    frame = pd.DataFrame({"y": [1, "1", 2], "a": [1, 1, 2], "b": [2, 1, 2]}, dtype=object)
    with pytest.raises(PredictionFileError, match=r"column 'y' mixes number 1 and text '1'"):
        count_predictions(frame, y_true="y")
    frame = pd.DataFrame({"y": ["0", "1"], "a": [0, 1], "b": [1, 1]})
    with pytest.raises(PredictionFileError, match=r"column 'a' has number 0 but column 'y' has text '0'"):
        count_predictions(frame, y_true="y")


def test_extra_labels_are_a_note(tmp_path):
    for c in both(tmp_path, "y,a,b\n0,2,1\n1,1,1\n", y_true="y"):
        assert c.notes == ("model 'a' predicts labels never seen in the truth: [2]",)


def test_label_dictionary_sorts_csv_numbers_numerically():
    # "10" sorts after "2" as a number; "2.0" is the label 2
    classes, codes, missing = label_dictionary(
        {"y": np.array(["10", "2", "1"], dtype=object), "a": np.array(["2.0", "1"], dtype=object)},
        text_numbers=True)
    assert classes == (1, 2, 10) and codes["y"].tolist() == [2, 1, 0] and codes["a"].tolist() == [1, 0]
    assert missing == {}


def test_many_classes_and_many_models_count_in_small_memory():
    # 200 classes x 3 models and 30 models x 10 classes (issue 13): the result is the pattern
    # table only; its totals equal the rows
    a = _wide(5000, list(range(200)), 3, RNG_SEED + 4)
    ca = count_predictions(a, y_true="y")
    assert ca.n_classes == 200 and int(ca.patterns["count"].sum()) == 5000
    b = _wide(3000, list(range(10)), 30, RNG_SEED + 5)
    cb = count_predictions(b, y_true="y")
    assert cb.n_models == 30 and int(cb.patterns["count"].sum()) == 3000
    assert_same_counts(cb, count_predictions(b, y_true="y", engine="duckdb"))


def test_unknown_engine_and_source():
    with pytest.raises(EngineError, match="engine must be one of"):
        count_predictions(pd.DataFrame({"y": [0]}), y_true="y", engine="polars")
    with pytest.raises(TypeError, match="source must be"):
        count_predictions(42, y_true="y")


def test_every_route_refuses_an_engine_with_one_error_and_one_message():
    import duckdb

    from precmp_lib.cli import build_parser
    from precmp_lib.engine.dispatch import ENGINES
    from precmp_lib.engine.items import count_items

    frame = pd.DataFrame({"item": [1, 1, 2, 2], "model": ["a", "b", "a", "b"],
                          "score": [1, 0, 1, 1], "y": [0, 1, 1, 0], "m": [0, 1, 0, 0]})
    relation = duckdb.connect().from_df(frame)
    routes = [lambda source, engine: count_predictions(source, y_true="y", models=["m"],
                                                       engine=engine),
              lambda source, engine: count_items(source, engine=engine)]
    for route in routes:
        with pytest.raises(EngineError, match=r"^engine must be one of auto, numpy, duckdb, "
                                              r"spark; got 'polars'$"):
            route(frame, "polars")
        with pytest.raises(EngineError, match=r"^engine='spark' cannot read a pandas DataFrame: "
                                              r"it reads a Spark DataFrame or a path; a pandas "
                                              r"DataFrame is read with engine 'auto', 'numpy' "
                                              r"or 'duckdb'$"):
            route(frame, "spark")
        with pytest.raises(EngineError, match=r"^engine='numpy' cannot read a DuckDB relation: "
                                              r"it reads a pandas DataFrame or a path; a DuckDB "
                                              r"relation is read with engine 'auto' or 'duckdb'$"):
            route(relation, "numpy")
    # the command offers the engines the library defines
    engine = next(a for a in build_parser()._subparsers._group_actions[0].choices["report"]._actions
                  if a.dest == "engine")
    assert tuple(engine.choices) == ENGINES


def test_progress_bar_on_a_terminal_gives_the_same_counts(files, monkeypatch, capsys):
    # the bar polls DuckDB's query_progress() from a thread; only on a terminal
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    frame, _, _, parts = files["strings"]
    ref = count_predictions(frame, y_true="y")
    assert_same_counts(ref, count_predictions(parts, y_true="y", progress=True))


# ---------------------------------------------------------------------------------------------
# a path is a path: a name that exists is that file; only a missing name with * or ? is a pattern
# ---------------------------------------------------------------------------------------------

NAMED = "y,a,b\nx,x,z\nz,z,z\nx,z,x\n"      # classes x, z; 3 rows
SIBLING = "y,a,b\nq,q,q\n"                   # class q: read only if a pattern was expanded
ODD_PATHS = {"run[1].csv": ["run1.csv"], "run{2}.csv": ["run2.csv"], "a:b.csv": [],
             "st*ar.csv": ["stXar.csv"], "q?.csv": ["qx.csv"], "we ird'.csv": [],
             "back\\slash.csv": [], "r[1].parquet": ["r1.parquet"]}


def _odd_files(folder):
    for name, siblings in ODD_PATHS.items():
        for text, file in [(NAMED, name), *((SIBLING, s) for s in siblings)]:
            if file.endswith(".parquet"):
                pd.read_csv(__import__("io").StringIO(text)).to_parquet(folder / file)
            else:
                (folder / file).write_text(text)


def _check_named_file_only(counts):
    assert counts.classes == ("x", "z") and counts.n_rows == 3, counts.classes


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_path_that_exists_is_read_as_that_file(tmp_path, engine, monkeypatch):
    _odd_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ODD_PATHS:
        for given in (name, str(tmp_path / name)):  # relative and absolute
            _check_named_file_only(count_predictions(given, y_true="y", engine=engine))


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_missing_name_with_a_wildcard_is_a_pattern_naming_its_files(tmp_path, engine):
    _odd_files(tmp_path)
    c = count_predictions(str(tmp_path / "r*.parquet"), y_true="y", engine=engine)
    # brackets in a pattern are themselves: r[1].parquet and r1.parquet both match r*
    assert c.notes[0] == "the pattern matched 2 file(s): r1.parquet, r[1].parquet"
    assert c.classes == ("q", "x", "z") and c.n_rows == 4
    c = count_predictions(str(tmp_path / "r[1]?parquet"), y_true="y", engine=engine)
    assert c.notes[0] == "the pattern matched 1 file(s): r[1].parquet"
    with pytest.raises(PredictionFileError, match="no file matches this pattern"):
        count_predictions(str(tmp_path / "none*.parquet"), y_true="y", engine=engine)
    with pytest.raises(PredictionFileError, match=r"^run\[9\].csv: no such file$"):
        count_predictions(str(tmp_path / "run[9].csv"), y_true="y", engine=engine)


def test_spark_reads_the_named_file_only(tmp_path, spark, monkeypatch):
    _odd_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ODD_PATHS:
        _check_named_file_only(count_predictions(name, y_true="y", engine="spark"))
    c = count_predictions("r*.parquet", y_true="y", engine="spark")
    assert c.notes[0] == "the pattern matched 2 file(s): r1.parquet, r[1].parquet" and c.n_rows == 4


# ---------------------------------------------------------------------------------------------
# header quirks that spreadsheets write: read, or refused with one line, alike by every engine
# ---------------------------------------------------------------------------------------------

QUIRKS = {  # file text -> (models, classes, rows) read, or the one-line message
    "bom-crlf": ("\ufeffy,a,b\r\nx,x,z\r\nz,z,z\r\n", (("a", "b"), ("x", "z"), 2)),
    "padded names": (" y , a,b \nx,x,z\nz,z,z\n", (("a", "b"), ("x", "z"), 2)),
    "newline in a quoted name, CRLF": ('y,"a\nA",b\r\nx,x,z\r\nz,z,z\r\n',
                                      (("a\nA", "b"), ("x", "z"), 2)),
    "newline in a quoted name, LF": ('y,"a\nA",b\nx,x,z\nz,z,z\n', (("a\nA", "b"), ("x", "z"), 2)),
    "newline in a quoted label": ('y,a,b\n"x\ny",x,z\nz,z,"x\ny"\n',
                                  (("a", "b"), ("x", "x\ny", "z"), 2)),
    "CR only": ("y,a,b\rx,x,z\rz,z,z\r", (("a", "b"), ("x", "z"), 2)),
    "doubled quotes in a name": ('"y","a ""q""",b\nx,x,z\nz,z,z\n', (('a "q"', "b"), ("x", "z"), 2)),
    "empty name": ("y,,b\nx,x,z\nz,z,z\n", "q.csv: column 2 of 3 has no name; give every column"),
    "index column": (",y,a,b\n0,x,x,z\n1,z,z,z\n", "q.csv: column 1 of 4 has no name"),
    "trailing comma": ("y,a,b,\nx,x,z,\nz,z,z,\n", "q.csv: column 4 of 4 has no name"),
}


def _read_quirk(folder, text, engine):
    path = folder / "q.csv"
    path.write_bytes(text.encode("utf-8"))
    try:
        c = count_predictions(str(path), y_true="y", engine=engine)
    except PredictionFileError as exc:
        assert "\n" not in str(exc)
        return str(exc)
    return c.models, c.classes, c.n_rows


def _assert_quirk(got, expected):
    if isinstance(expected, str):
        assert isinstance(got, str) and got.startswith(expected), got
    else:
        assert got == expected


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@pytest.mark.parametrize("quirk", list(QUIRKS))
def test_header_quirks_are_read_or_refused_alike(tmp_path, engine, quirk):
    text, expected = QUIRKS[quirk]
    _assert_quirk(_read_quirk(tmp_path, text, engine), expected)


def test_header_quirks_are_read_or_refused_alike_by_spark(tmp_path, spark):
    for text, expected in QUIRKS.values():
        _assert_quirk(_read_quirk(tmp_path, text, "spark"), expected)


def test_a_file_spark_cannot_parse_is_one_line(tmp_path, spark):
    path = tmp_path / "bad.csv"
    path.write_text('y,a,b\nx,x,z\n"unclosed,z,z\n')
    with pytest.raises(PredictionFileError) as err:
        count_predictions(str(path), y_true="y", engine="spark")
    message = str(err.value)
    assert message.startswith("bad.csv: ") and "\n" not in message and len(message) < 400
    assert "precmp-files-" not in message  # the private link's folder is not shown


def test_wide_cv_duplicated_pair_found_by_the_cluster_query(tmp_path):
    """Wide repeated cv counts patterns without grouping by id; the cluster query's bit mask
    of repeat codes finds the repeated (id, repeat) pair, and the message is numpy's."""
    n = 40
    i = np.arange(n)
    frame = pd.DataFrame({"id": i % 10, "repeat": i // 10, "fold": i % 3, "y": i % 10 % 3,
                          "a": i % 3, "b": (i * 7) % 3})
    frame = pd.concat([frame, frame.iloc[[13]]], ignore_index=True)
    frame.to_parquet(tmp_path / "cv.parquet")
    expected = ("column 'id': duplicated (id, repeat) (id=3, repeat=1; rows 13 and 40); a wide "
                "table has one row per observation")
    with pytest.raises(PredictionFileError) as numpy_error:
        count_predictions(frame, y_true="y")
    assert str(numpy_error.value) == f"DataFrame: {expected}"
    with pytest.raises(PredictionFileError) as duck_error:
        count_predictions(str(tmp_path / "cv.parquet"), y_true="y", engine="duckdb")
    assert str(duck_error.value) == f"cv.parquet: {expected}"
    # without the duplicate the two engines agree, cluster sums included
    ok = frame.iloc[:n]
    ok.to_parquet(tmp_path / "ok.parquet")
    assert_same_counts(count_predictions(ok, y_true="y"),
                       count_predictions(str(tmp_path / "ok.parquet"), y_true="y", engine="duckdb"))


@pytest.mark.parametrize(("rows", "low", "high", "cols"), [
    (5000, 0, 5, 7), (3000, -3, 10**9, 4), (40, 0, 2**40, 4),
    (2000, -2, 3, 60), (500, 0, 256, 9)])  # spans past 2^62, each at most 256: rows of bytes
def test_group_sum_equals_unique_rows(rows, low, high, cols):
    """Equal key rows are summed in lexicographic order, by the one-key path (small spans), by
    rows of bytes (many columns of at most 256 values each) and by numpy's unique over rows of
    int64 (wider spans whose product passes 2^62); numpy over int64 rows is the reference."""
    from precmp_lib.engine.finish import _group_sum

    rng = np.random.default_rng(rows)
    keys = rng.integers(low, high, (rows, cols)).astype(np.int64)
    keys[rows // 2:] = keys[: rows - rows // 2]  # every row at least twice
    weights = rng.integers(1, 5, rows).astype(float)
    out = _group_sum(keys, weights, [f"k{i}" for i in range(keys.shape[1])])
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    np.testing.assert_array_equal(out.iloc[:, :-1].to_numpy(), uniq)
    np.testing.assert_array_equal(out["count"].to_numpy(),
                                  np.bincount(inv.ravel(), weights=weights).astype(np.int64))
    assert out["count"].sum() == weights.sum() and (out.dtypes == np.int64).all()


@pytest.mark.parametrize("query", [
    "SELECT * FROM (VALUES (1, 'a', 2::INTEGER), (NULL, NULL, 3)) t(a, b, c)",
    "SELECT 'x'::VARCHAR a, 1::TINYINT b, 2::UBIGINT c, NULL::VARCHAR d",
    "SELECT * FROM (VALUES ('é', 5::SMALLINT), ('😀', NULL)) t(a, b)",
    "SELECT range::BIGINT a, (range % 3)::VARCHAR b FROM range(0)",
    "SELECT range::BIGINT a, CASE WHEN range % 2 = 0 THEN NULL ELSE 'q' END b, "
    "(range % 3)::UTINYINT c FROM range(10)",
    "SELECT NULL::VARCHAR d, 'x' e UNION ALL SELECT NULL, 'y'",
    "SELECT range::INTEGER a, NULL::BIGINT b FROM range(3)",
    "SELECT ''::VARCHAR a, chr(0) || 'b' b, (-5)::HUGEINT c",  # HUGEINT: through df()
    "SELECT 1.5::DOUBLE a, 'x' b, TRUE c, DATE '2020-01-01' d, 1::DECIMAL(10, 2) e",
])
def test_duckdb_frame_equals_duckdb_df(query):
    """Text and whole numbers read through Arrow give the frame DuckDB's df() gives (the
    reference), dtypes included: missing values, all-missing text, no rows, other types."""
    import duckdb

    from precmp_lib.engine.duckdb_engine import _duckdb_frame

    con = duckdb.connect()
    pd.testing.assert_frame_equal(_duckdb_frame(con.sql(query)), con.sql(query).df())


# Parquet files whose role columns hold nested values (DuckDB SQL writes them): a struct model,
# a map model, a list model, a struct truth, a struct id of repeated CV and a list model column
# of a long file. Each is refused by every engine, naming the column, before anything is counted.
NESTED = {
    "struct model": ("SELECT ['a','b'][1 + i % 2] AS y, {'x': i} AS m1, 'a' AS m2", "m1"),
    "map model": ("SELECT ['a','b'][1 + i % 2] AS y, 'a' AS m1, MAP {'k': i} AS m2", "m2"),
    "list model": ("SELECT ['a','b'][1 + i % 2] AS y, 'a' AS m1, ['a', 'b'] AS m2", "m2"),
    "struct truth": ("SELECT {'x': i % 2} AS y, 'a' AS m1, 'b' AS m2", "y"),
    "struct id": ("SELECT {'k': i % 20} AS id, i // 20 AS repeat, i % 5 AS fold, "
                  "['a','b'][1 + i % 2] AS y, 'a' AS m1, 'b' AS m2", "id"),
    "list model column": ("SELECT ['a','b'][1 + (i // 2) % 2] AS y, [['x','z'][1 + i % 2]] AS model, "
                          "'a' AS y_pred, i // 2 AS id", "model"),
}


@pytest.fixture(scope="module")
def nested_files(tmp_path_factory):
    import duckdb

    folder = tmp_path_factory.mktemp("nested")
    out = {}
    for case, (select, column) in NESTED.items():
        path = folder / f"{case.replace(' ', '_')}.parquet"
        duckdb.sql(f"COPY ({select} FROM range(40) t(i)) TO '{path}' (FORMAT parquet)")
        out[case] = (path, column)
    return out


def _refused_as_nested(column, source, **kwargs):
    with pytest.raises(PredictionFileError, match=rf": column '{column}' holds nested values "
                                                  r"\(a struct, list or map\)"):
        count_predictions(source, y_true="y", **kwargs)


@pytest.mark.parametrize("case", NESTED)
@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_nested_columns_are_refused_by_name(nested_files, case, engine):
    import duckdb

    path, column = nested_files[case]
    _refused_as_nested(column, path, engine=engine)
    if engine == "duckdb":  # a DuckDB relation
        _refused_as_nested(column, duckdb.read_parquet(str(path)))
    # the file read into a DataFrame by pandas, counted by the engine
    _refused_as_nested(column, pd.read_parquet(path), engine=engine)


def test_nested_columns_are_refused_by_spark(nested_files, spark):
    for path, column in nested_files.values():
        _refused_as_nested(column, str(path), engine="spark")
        _refused_as_nested(column, spark.read.parquet(str(path)))


def test_a_list_further_down_a_frame_column_is_refused_too():
    frame = pd.DataFrame({"y": ["a", "b", "a"], "m1": ["a", "a", ["b"]], "m2": ["a", "b", "b"]})
    _refused_as_nested("m1", frame)


def test_binary_labels_are_counted_alike_by_every_engine(tmp_path, spark):
    """Parquet BINARY labels (DuckDB BLOB; old writers store text so): DuckDB gives bytearrays,
    which it could not count; numpy and Spark bytes."""
    import duckdb

    path = tmp_path / "blob.parquet"
    duckdb.sql("COPY (SELECT (['cat','dog'][1 + i % 2])::BLOB AS y, (['cat','dog'][1 + i % 3 % 2])"
               f"::BLOB AS m1, 'cat'::BLOB AS m2 FROM range(50) t(i)) TO '{path}'")
    ref = count_predictions(path, y_true="y", engine="numpy")
    assert ref.classes == ("cat", "dog") and ref.n_rows == 50
    for engine in ("duckdb", "spark"):
        assert_same_counts(ref, count_predictions(path, y_true="y", engine=engine))
