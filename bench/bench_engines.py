"""The three counting engines on the same rows: times and equality.

One Parquet file (default 1e6 rows, 4 models, 5 string classes, made by DuckDB) is counted by
numpy (the file read into a DataFrame first, read time shown apart), DuckDB (the path) and
Spark (local mode, the path); then ``compare_models`` runs on each engine's counts. The table
gives each time and its ratio to DuckDB, and whether the counts and the comparisons are equal
to numpy's, bit for bit.

    python bench/bench_engines.py [n_rows]
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from bench_report import make_file

from precmp_lib.comparison import compare_models
from precmp_lib.engines import count_predictions, spark_session


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def same(a, b) -> bool:
    try:
        pd.testing.assert_frame_equal(a.patterns, b.patterns)
    except AssertionError:
        return False
    return (a.classes, a.models, a.n_rows) == (b.classes, b.models, b.n_rows)


def main(n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="precmp-bench-") as tmp:
        path = Path(tmp) / "preds.parquet"
        make_file(path, n)
        frame, read = timed(lambda: pd.read_parquet(path))
        results = {"numpy": timed(lambda: count_predictions(frame, y_true="y_true"))}
        results["duckdb"] = timed(lambda: count_predictions(str(path), y_true="y_true"))
        _, start_spark = timed(spark_session)
        count_predictions(str(path), y_true="y_true", engine="spark")  # warm the JVM once
        results["spark"] = timed(lambda: count_predictions(str(path), y_true="y_true", engine="spark"))
    ref = results["numpy"][0]
    ref_json = compare_models(ref).to_json()
    base = results["duckdb"][1]
    print(f"## engines: {n:,} rows, 4 models, 5 string classes, {ref.patterns.shape[0]} patterns")
    print(f"{'engine':8}{'count s':>10}{'x duckdb':>10}{'compare s':>11}{'counts equal':>14}"
          f"{'comparison equal':>18}")
    for name, (counts, seconds) in results.items():
        _, cmp_seconds = timed(lambda c=counts: compare_models(c))
        # equal but for the labels of who counted what
        relabelled = replace(counts, engine=ref.engine, source=ref.source)
        equal_json = compare_models(relabelled).to_json() == ref_json
        print(f"{name:8}{seconds:>10.2f}{seconds / base:>10.2f}{cmp_seconds:>11.2f}"
              f"{same(ref, counts)!s:>14}{equal_json!s:>18}")
    print(f"(numpy's time excludes reading the file into a DataFrame: {read:.2f} s; Spark's "
          f"excludes starting the session: {start_spark:.1f} s, and one warm-up count)")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**6)
