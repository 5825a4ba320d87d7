"""`precmp report` at scale: a Parquet file of 1e7 predictions of three models.

Prints the wall time of the whole command (reading, checks, every test, plots, HTML) and the
peak resident memory of the processes it ran, and the same for 1e6 rows as the ratio baseline.

    python bench/bench_report.py [n_rows ...]
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

CLASSES = np.array(["cat", "dog", "bird"])


def make_file(path: Path, n: int, seed: int = 0) -> None:
    """Truth over three classes and three models that are right 80-85 % of the time."""
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.5, 0.3, 0.2]).astype(np.int8)
    columns = {"y_true": y}
    for name, acc in [("model_a", 0.85), ("model_b", 0.83), ("model_c", 0.80)]:
        wrong = rng.random(n) >= acc
        columns[name] = np.where(wrong, (y + rng.integers(1, 3, n)) % 3, y).astype(np.int8)
    table = pa.table({k: pa.DictionaryArray.from_arrays(pa.array(v), pa.array(CLASSES))
                      for k, v in columns.items()})
    pq.write_table(table, path)


def run(path: Path, out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "precmp_lib", "report", str(path), "--y-true", "y_true",
                    "--out", str(out), "--quiet"], check=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, largest child so far
    return seconds, max(peak, before) / 1024


def main(sizes: list[int]) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"preds_{n}.parquet"
            make_file(path, n)
            seconds, peak_mb = run(path, Path(tmp) / f"report_{n}.html")
            rows.append((n, path.stat().st_size / 2**20, seconds, peak_mb))
    base = rows[0][2]
    print(f"{'rows':>12} {'file MiB':>9} {'seconds':>8} {'x smallest':>10} {'peak RSS MiB':>13}")
    for n, size, seconds, peak in rows:
        print(f"{n:>12,} {size:>9.1f} {seconds:>8.1f} {seconds / base:>10.2f} {peak:>13.0f}")
    print("goal: 1e7 rows in under 60 s with peak memory under 2048 MiB "
          "(peak RSS is the largest process so far, so it never decreases down the table)")


if __name__ == "__main__":
    main([int(float(a)) for a in sys.argv[1:]] or [10**6, 10**7])
