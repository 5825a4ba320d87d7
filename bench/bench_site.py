"""`make report` one notebook at a time against JOBS at a time, in one run.

Builds the same site twice into temporary folders, first with one worker (notebooks one after
another in this process), then with ``--jobs`` workers, and prints the wall times and their
ratio. Each build runs in its own process (``python -m precmp_lib.course.site``), as `make report` does.
The parallel build starts from the serial build's timings.json, as a second `make report` does,
so it hands out the longest notebooks first.

    python bench/bench_site.py [--jobs N] [--only NAME ...]   # default: every notebook, N = cores
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def build(out: Path, jobs: int, only: list[str]) -> float:
    cmd = [sys.executable, "-m", "precmp_lib.course.site", "build-site", "--out", str(out),
           "--jobs", str(jobs), "--no-examples"]
    if only:
        cmd += ["--only", *only]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="precmp-bench-site-") as tmp:
        serial = build(Path(tmp) / "serial", 1, args.only)
        (Path(tmp) / "parallel").mkdir()
        shutil.copy(Path(tmp) / "serial" / "timings.json", Path(tmp) / "parallel" / "timings.json")
        parallel = build(Path(tmp) / "parallel", args.jobs, args.only)
    what = " ".join(args.only) or "every notebook"
    print(f"site build ({what}; cores here: {os.cpu_count()}, load average "
          f"{os.getloadavg()[0]:.1f})")
    print(f"{'workers':>8} {'seconds':>8} {'x serial':>9}")
    print(f"{1:>8} {serial:>8.1f} {1.0:>9.2f}")
    print(f"{args.jobs:>8} {parallel:>8.1f} {parallel / serial:>9.2f}")
    print(f"speed-up {serial / parallel:.2f}x (goal: close to the number of workers on an idle machine)")


if __name__ == "__main__":
    main()
