"""count_datasets: the same scores from numpy, DuckDB and Spark, from CSV and Parquet files.

The reference is the table itself: the engines must return exactly its scores (a CSV is read
as text and parsed once, for every engine, in precmp_lib.engine.datasets).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from precmp_lib.engine.datasets import DatasetFileError, count_datasets, looks_like_datasets


def _wide() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"Data set": [f"ds {i}" for i in range(6)],
                         "rf": rng.uniform(0.7, 0.9, 6), "lr 'x'": rng.uniform(0.7, 0.9, 6),
                         "nb": [0.1 + 0.2, 0.5, 0.6, 0.7, 0.8, 0.9]})


def _long() -> pd.DataFrame:
    rows = [{"dataset": d, "model": m, "repeat": r, "fold": f,
             "score": (hash((d, m, r, f)) % 1000) / 1000}
            for d in ("a", "b", "c") for m in ("x", "y") for r in range(2) for f in range(3)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("results")
    out = {}
    for name, frame in (("wide", _wide()), ("long", _long())):
        frame.to_csv(d / f"{name}.csv", index=False)
        frame.to_parquet(d / f"{name}.parquet")
        out[name] = (frame, d / f"{name}.csv", d / f"{name}.parquet")
    return out


def _same(read, frame: pd.DataFrame, layout: str) -> None:
    if layout == "wide":
        ref = frame.set_index("Data set")
        got = read.matrix()
        assert list(got.columns) == list(ref.columns) and list(got.index) == list(ref.index)
        np.testing.assert_array_equal(got.to_numpy(), ref.to_numpy())  # bit for bit
    else:
        assert read.folds and read.models == ["x", "y"] and read.datasets == ["a", "b", "c"]
        got = read.scores.sort_values(["dataset", "model", "repeat", "fold"])["score"]
        ref = frame.astype({"repeat": str, "fold": str}).sort_values(
            ["dataset", "model", "repeat", "fold"])["score"]
        np.testing.assert_array_equal(got.to_numpy(), ref.to_numpy())


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@pytest.mark.parametrize("layout", ["wide", "long"])
def test_numpy_and_duckdb_read_csv_and_parquet_alike(files, engine, layout):
    frame, csv, pq = files[layout]
    for source in (csv, pq, frame):
        read = count_datasets(source, engine=engine)
        assert read.layout == layout and read.engine == engine
        _same(read, frame, layout)


def test_spark_reads_csv_and_parquet_as_numpy_does(files, spark):
    for layout in ("wide", "long"):
        frame, csv, pq = files[layout]
        for source in (csv, pq):
            read = count_datasets(str(source), engine="spark")
            assert read.engine == "spark"
            _same(read, frame, layout)


def test_the_data_set_column_is_recognised_or_named():
    assert looks_like_datasets("Data set") and looks_like_datasets("data_set")
    frame = _wide().rename(columns={"Data set": "problem id"})
    with pytest.raises(DatasetFileError, match=r"no column names the data sets .* --dataset COL"):
        count_datasets(frame)
    assert count_datasets(frame, dataset="problem id").models == ["rf", "lr 'x'", "nb"]
    with pytest.raises(DatasetFileError, match=r"column 'nope' .* is missing"):
        count_datasets(frame, dataset="nope")


def test_a_non_numeric_cell_and_nan_text_are_refused_naming_the_cell(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("dataset,a,b\nx,0.9,0.8\ny,0.7,NaN\nz,0.5,0.4\n")
    for engine in ("numpy", "duckdb"):
        with pytest.raises(DatasetFileError, match=r"r\.csv: data set 'y', model 'b': score is nan"):
            count_datasets(path, engine=engine)
    path.write_text("dataset,a,b\nx,0.9,0.8\ny,0.7,high\nz,0.5,0.4\n")
    with pytest.raises(DatasetFileError, match=r"data set 'y', model 'b': score 'high' is not a"):
        count_datasets(path, engine="duckdb")
