"""The three counting engines on the same rows: times, equality, and repeated cv in bounded memory.

1. Equality (default 1e6 rows, 4 models, 5 string classes, made by DuckDB): the file is counted
   by numpy (read into a DataFrame first, read time shown apart), DuckDB (the path) and Spark
   (local mode, the path); then ``compare_models`` runs on each engine's counts. The table
   gives each time and its ratio to DuckDB, and whether the counts and the comparisons are
   equal to numpy's, bit for bit.
2. Repeated cross-validation (default 1e7 rows: 1e6 observations x 10 repeats, 10 folds,
   4 models, 5 classes, wide, made by DuckDB ``COPY (SELECT ... FROM range(N)) TO ...``):
   ``precmp report`` with DuckDB, its whole process tree's peak RSS (goal <= 1 GiB) and its
   wall time as a ratio to one DuckDB GROUP BY over (observation, repeat, fold) of the same file
   (goal <= 3), each the best of two runs (the larger peak of the two); the same report with Spark in local mode and its default 1 GiB driver (it must
   complete), with the bytes the driver collected; the two reports' numbers must be equal.
3. A test-set file (default 1e8 rows): ``precmp report`` with DuckDB, peak RSS of the process
   tree (goal <= 0.5 GiB).

Generated files live in a temporary folder and are deleted right after each run.

    python bench/bench_engines.py                       # all three
    python bench/bench_engines.py --rows 1e5 --cv-observations 1e5 --test-set-rows 0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _timing import GIB, best_of, run_tree_stderr
from bench_report import CLASSES, byte_compile_package, make_file

from precmp_lib.compare.predictions import compare_models
from precmp_lib.engine.predictions import count_predictions
from precmp_lib.engine.spark_engine import spark_session


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


def equality(n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="precmp-bench-") as tmp:
        path = Path(tmp) / "preds.parquet"
        make_file(path, n)
        frame, read = timed(lambda: pd.read_parquet(path))
        results = {"numpy": timed(lambda: count_predictions(frame, y_true="y_true"))}
        results["duckdb"] = timed(lambda: count_predictions(str(path), y_true="y_true"))
        spark, start_spark = timed(spark_session)
        count_predictions(str(path), y_true="y_true", engine="spark")  # warm the JVM once
        results["spark"] = timed(lambda: count_predictions(str(path), y_true="y_true", engine="spark"))
        # the runs below start their own processes: this JVM would only take a core from them
        spark.stop()
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


def make_cv_file(path: Path, n_obs: int, repeats: int = 10, folds: int = 10) -> None:
    """Wide repeated cv: row i is observation i % n_obs in repeat i // n_obs; its fold and the
    models' predictions come from hashes of the row number (no RNG state). The truth depends on
    the observation only; models are right 85, 80, 75 and 70 % of the time."""
    import duckdb

    pick = "(['" + "','".join(CLASSES) + "'])[1 + (hash({key}) % 5)::INT]"
    obs, rep = f"(i % {n_obs})", f"(i // {n_obs})"
    cols = [f"{obs} AS id", f"{rep} AS repeat",
            f"(hash({obs} * 31 + {rep}) % {folds})::INT AS fold",
            pick.format(key=f"{obs} * 3 + 1") + " AS y_true"]
    for j, acc in enumerate([85, 80, 75, 70]):
        cols.append(f"CASE WHEN hash(i * 7 + {j + 11}) % 100 < {acc} THEN "
                    f"{pick.format(key=f'{obs} * 3 + 1')} ELSE {pick.format(key=f'i * 13 + {j}')} "
                    f"END AS model_{'abcd'[j]}")
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    con.execute(f"COPY (SELECT {', '.join(cols)} FROM range({n_obs * repeats}) t(i)) TO '{path}' "
                "(FORMAT parquet, ROW_GROUP_SIZE 1000000)")


# Run the command in a child with Spark's collect wrapped: the pickled size of every result the
# driver collects is added up and printed on stderr after the command ends.
COLLECTED = """
import pickle, sys
try:
    from pyspark.sql.classic.dataframe import DataFrame
except ImportError:
    from pyspark.sql import DataFrame
total = [0]
collect = DataFrame.collect
def counted(self):
    rows = collect(self)
    total[0] += len(pickle.dumps([tuple(r) for r in rows]))
    return rows
DataFrame.collect = counted
from precmp_lib.cli import main
code = main(sys.argv[1:])
print(f"collected-bytes {total[0]}", file=sys.stderr)
sys.exit(code)
"""


PREVALENCE = ("--prevalence", "cat=0.05", "frog=0.3")


def run_report(path: Path, folder: Path, engine: str,
               extra: tuple[str, ...] = ()) -> tuple[float, int, dict, int | None]:
    out, js = folder / f"report_{engine}.html", folder / f"report_{engine}.json"
    args = [str(path), "--y-true", "y_true", "--engine", engine, "--out", str(out),
            "--json", str(js), "--quiet", *extra]
    if engine == "spark":
        cmd = [sys.executable, "-c", COLLECTED, "report", *args]
    else:
        cmd = [sys.executable, "-m", "precmp_lib", "report", *args]
    collected = None
    seconds, peak, err = run_tree_stderr(cmd, folder)
    for line in err.splitlines():
        if line.startswith("collected-bytes "):
            collected = int(line.split()[1])
    result = json.loads(js.read_text())
    out.unlink(missing_ok=True)
    js.unlink(missing_ok=True)
    return seconds, peak, result, collected


def numbers(result: dict) -> dict:
    """The comparison's tables without who counted or where from."""
    return {k: v for k, v in result.items() if k not in ("engine", "source", "settings")}


def cv(n_obs: int, folder: Path, with_spark: bool = True) -> None:
    import duckdb

    path = folder / "cv.parquet"
    start = time.perf_counter()
    make_cv_file(path, n_obs)
    made = time.perf_counter() - start
    try:
        rows = n_obs * 10
        size = path.stat().st_size
        query = (f"SELECT COUNT(*), SUM(n) FROM (SELECT id, repeat, fold, COUNT(*) AS n "
                 f"FROM read_parquet('{path}') GROUP BY id, repeat, fold)")
        group_by = best_of(lambda: duckdb.connect().sql(query).fetchall(), 2)
        byte_compile_package()  # as an installed package starts
        runs = [run_report(path, folder, "duckdb") for _ in range(2)]
        duck_s, duck = min(r[0] for r in runs), runs[0][2]
        duck_peak = max(r[1] for r in runs)
        # the prevalence update resamples observations: the engine groups them by profile
        prev_s, prev_peak, prev, _ = run_report(path, folder, "duckdb", PREVALENCE)
        if with_spark:
            spark_s, spark_peak, spark, collected = run_report(path, folder, "spark")
    finally:
        path.unlink(missing_ok=True)
    print(f"\n## repeated cv: {rows:,} rows ({n_obs:,} observations x 10 repeats, 10 folds, "
          f"4 models, 5 classes; {size / 2**20:,.0f} MiB Parquet, made in {made:.0f} s)")
    print(f"{'':44}{'seconds':>9}{'ratio':>8}{'peak RSS':>11}")
    print(f"{'DuckDB GROUP BY (observation, repeat, fold)':44}{group_by:>9.2f}{1:>8.2f}")
    print(f"{'precmp report, DuckDB':44}{duck_s:>9.2f}{duck_s / group_by:>8.2f}"
          f"{duck_peak / GIB:>10.2f}G   goals: ratio <= 3 "
          f"{'met' if duck_s / group_by <= 3 else 'NOT met'}, RSS <= 1 GiB "
          f"{'met' if duck_peak <= GIB else 'NOT met'}")
    shown = " ".join(PREVALENCE[1:])
    print(f"{'precmp report, DuckDB, --prevalence ' + shown:44}{prev_s:>9.2f}"
          f"{prev_s / group_by:>8.2f}{prev_peak / GIB:>10.2f}G   goal: RSS <= 1 GiB "
          f"{'met' if prev_peak <= GIB else 'NOT met'}; "
          f"{len(prev['prevalence']['records'])} rows of precision at a prevalence")
    if with_spark:
        print(f"{'precmp report, Spark local (1 GiB driver)':44}{spark_s:>9.2f}"
              f"{spark_s / group_by:>8.2f}{spark_peak / GIB:>10.2f}G   completed; the driver "
              f"collected {collected or 0:,} bytes")
        print(f"DuckDB and Spark reports equal: {numbers(duck) == numbers(spark)}")


def test_set(n: int, folder: Path) -> None:
    path = folder / "test_set.parquet"
    make_file(path, n)
    try:
        seconds, peak, _, _ = run_report(path, folder, "duckdb")
    finally:
        path.unlink(missing_ok=True)
    print(f"\n## test set: {n:,} rows, precmp report with DuckDB: {seconds:.1f} s, peak RSS of "
          f"the process tree {peak / GIB:.2f} GiB   goal <= 0.5 GiB "
          f"{'met' if peak <= GIB / 2 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6, help="rows of the equality run (1e6)")
    parser.add_argument("--cv-observations", type=float, default=1e6,
                        help="observations of the repeated-cv run, 10 rows each (1e6)")
    parser.add_argument("--no-spark", action="store_true",
                        help="repeated cv: the DuckDB report only")
    parser.add_argument("--test-set-rows", type=float, default=1e8,
                        help="rows of the test-set memory run (1e8; 0 skips it)")
    args = parser.parse_args()
    if args.rows:
        equality(int(args.rows))
    with tempfile.TemporaryDirectory(prefix="precmp-bench-", dir=os.environ.get("PRECMP_BENCH_DIR")) as tmp:
        if args.cv_observations:
            cv(int(args.cv_observations), Path(tmp), with_spark=not args.no_spark)
        if args.test_set_rows:
            test_set(int(args.test_set_rows), Path(tmp))


if __name__ == "__main__":
    main()
