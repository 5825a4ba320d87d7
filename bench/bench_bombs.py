"""Peak memory of `precmp report` on eval logs at and past the byte limits, against the member limit.

Goal: whatever the input, the command's peak resident memory is at most 4 times the member
limit (``--limit member``, 192 MiB by default) and at most 1 GiB. The worst inputs are those
just accepted: one member holding one text of the member limit, and one member of JSON so
dense that its estimated cost is just under 3 times the limit; the bombs past the limit (a
member declaring 100 bytes and inflating to 1.5 GB, a 1.6 GB ``.csv.gz``) are refused once
the limit is read. Each case is written in a temporary folder (compressed: kilobytes to a few
megabytes on disk), run once, and deleted.

    python bench/bench_bombs.py
"""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import zstandard

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from precmp_lib._lib.limits import limit  # noqa: E402

GIB = 2**30
MEMBER = limit("member")


def _zip(path: Path, members: list[tuple[str, list[bytes], int, int | None]]) -> None:
    """Write a zip by hand: (name, parts of the data, method 8 or 93, declared size or None)."""
    out, central = bytearray(), bytearray()
    for name, parts, method, declare in members:
        crc, size = 0, 0
        packer = zlib.compressobj(9, zlib.DEFLATED, -15) if method == 8 else \
            zstandard.ZstdCompressor(level=3).compressobj()
        packed = bytearray()
        for part in parts:
            crc, size = zlib.crc32(part, crc), size + len(part)
            packed += packer.compress(part)
        packed += packer.flush()
        size = size if declare is None else declare
        raw, offset = name.encode(), len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0x800, method, 0, 0, crc,
                           len(packed), size, len(raw), 0) + raw + packed
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0x800, method, 0, 0, crc,
                               len(packed), size, len(raw), 0, 0, 0, 0, 0, offset) + raw
    out += central + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                                 len(central), len(out), 0)
    path.write_bytes(bytes(out))


def _header(model: str) -> bytes:
    return json.dumps({"version": 2, "status": "success",
                       "eval": {"task": "t", "model": model, "created": "x"}}).encode()


def _samples(n: int) -> list[tuple[str, list[bytes], int, None]]:
    """Samples 0 to n - 1, and 99 (the one the cases fill) for the second log."""
    return [(f"samples/{i}_epoch_1.json", [json.dumps(
        {"id": i, "epoch": 1, "scores": {"s": {"value": i % 2}}}).encode()], 93, None)
        for i in [*range(n), 99]]


def _text_at_limit(d: Path) -> None:
    head = b'{"id": 99, "epoch": 1, "scores": {"s": {"value": 1}}, "pad": "'
    fill = MEMBER - len(head) - 2 - 8192  # its cost (3 bytes a byte and 4 KiB) under 3x the limit
    parts = [head] + [b"a" * (1 << 20)] * (fill >> 20) + [b"a" * (fill % (1 << 20)), b'"}']
    _zip(d / "a.eval", [("header.json", [_header("a")], 93, None), *_samples(20)[:-1],
                        ("samples/99_epoch_1.json", parts, 93, None)])


def _dense_at_limit(d: Path) -> None:
    head = b'{"id": 99, "epoch": 1, "scores": {"s": {"value": 1}}, "pad": ['
    count = (3 * MEMBER - 8192) // (3 * 3 + 2 * 100)  # {}, : 3 bytes, 3 x 3 + 2 x 100 of cost
    parts = [head] + [b"{}," * 100_000] * (count // 100_000) + \
        [b"{}," * (count % 100_000), b"{}]}"]
    _zip(d / "a.eval", [("header.json", [_header("a")], 93, None), *_samples(20)[:-1],
                        ("samples/99_epoch_1.json", parts, 93, None)])


def _lying_member(d: Path) -> None:
    parts = [b'{"id": 99, "pad": "'] + [b" " * (1 << 20)] * 1500
    _zip(d / "a.eval", [("header.json", [_header("a")], 8, None), *_samples(20)[:-1],
                        ("samples/99_epoch_1.json", parts, 8, 100)])


def _csv_gz(d: Path) -> None:
    with gzip.open(d / "p.csv.gz", "wb", compresslevel=6) as fh:
        fh.write(b"y,m\n")
        for _ in range(1600):
            fh.write(b"0,0\n" * (1 << 18))


LOGS = ["--eval-log", "a=a.eval", "--eval-log", "b=b.eval"]
CASES = {
    "one text of the member limit (read)": (_text_at_limit, LOGS),
    "dense JSON just under 3x the limit (read)": (_dense_at_limit, LOGS),
    "member declaring 100 bytes, 1.5 GB inflated (refused)": (_lying_member, LOGS),
    ".csv.gz of 1.6 GB, DuckDB (refused)": (_csv_gz, ["p.csv.gz", "--y-true", "y",
                                                      "--engine", "duckdb"]),
}


def _run(args: list[str], cwd: Path) -> tuple[int, float, int, str]:
    """Exit status, seconds, peak RSS (bytes) of the command and its children, last stderr line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "precmp_lib", "report", *args, "--out",
                             str(cwd / "r.html"), "--quiet"], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    lines = err.strip().splitlines() or [""]
    return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss * 1024, lines[-1]


def main() -> None:
    print(f"member limit {MEMBER / 2**20:,.0f} MiB; goal: peak <= 4 x the limit "
          f"({4 * MEMBER / 2**20:,.0f} MiB) and <= 1 GiB\n")
    print(f"{'case':56}{'exit':>5}{'s':>7}{'disk':>12}{'peak MiB':>10}{'/limit':>8}{'/disk':>10}")
    worst = 0.0
    for label, (make, args) in CASES.items():
        with tempfile.TemporaryDirectory(prefix="precmp-bombs-") as tmp:
            d = Path(tmp)
            make(d)
            _zip(d / "b.eval", [("header.json", [_header("b")], 93, None), *_samples(20)])
            disk = sum(f.stat().st_size for f in d.iterdir())
            code, seconds, peak, last = _run(args, d)
        worst = max(worst, peak / MEMBER)
        print(f"{label:56}{code:>5}{seconds:>7.1f}{disk:>12,}{peak / 2**20:>10,.0f}"
              f"{peak / MEMBER:>8.2f}{peak / disk:>10,.0f}")
        print(f"    {last[:150]}")
    print(f"\nworst peak / member limit: {worst:.2f} (goal <= 4; "
          f"{'met' if worst <= 4 and worst * MEMBER <= GIB else 'NOT met'})")


if __name__ == "__main__":
    main()
