"""Globs whose files drifted apart, engines that fail, modules that are missing: one line, exit 2.

Each case runs ``precmp report`` in a child process and checks the exit status, that stderr
is the one ``precmp: error: ...`` line naming the files and the column (or the setting to
change, or the install command), and that no report was written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from precmp_lib.engine.predictions import count_predictions


def _frame(seed: int, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    out = {"y": y}
    for m in ["m1", "m2", "m3"]:
        out[m] = np.where(rng.random(n) < 0.7, y, rng.choice(["a", "b", "c"], n))
    return pd.DataFrame(out)


def _run(args: list[str], cwd: Path, env: dict | None = None, code: str | None = None):
    out = cwd / "report.html"
    cmd = ([sys.executable, "-c", code] if code else [sys.executable, "-m", "precmp_lib"])
    done = subprocess.run([*cmd, "report", *args, "--out", str(out)], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("precmp: error: "), lines
    assert not out.exists()
    return lines[0]


def test_a_model_missing_from_one_file(tmp_path):
    _frame(1).to_parquet(tmp_path / "p1.parquet", index=False)
    _frame(2).drop(columns="m3").to_parquet(tmp_path / "p0.parquet", index=False)
    line = _run(["p*.parquet", "--y-true", "y"], tmp_path)
    assert line == ("precmp: error: p*.parquet: column 'm3' is in p1.parquet but not in "
                    "p0.parquet; the files of a pattern must hold the same columns "
                    "(--common-models, or common_models=True, compares the models every file "
                    "holds)")


@pytest.mark.parametrize("engine", ["duckdb", "numpy", "spark"])
def test_common_models_leaves_out_a_model_some_files_lack(tmp_path, engine):
    a, b = _frame(1), _frame(2)
    a.drop(columns="m3").to_parquet(tmp_path / "p0.parquet", index=False)
    b[["m3", "y", "m2", "m1"]].assign(note="x").to_parquet(tmp_path / "p1.parquet", index=False)
    # the reference: the two frames' common model columns, counted in memory
    ref = count_predictions(pd.concat([a, b], ignore_index=True)[["y", "m1", "m2"]], y_true="y")
    got = count_predictions(str(tmp_path / "p*.parquet"), y_true="y", engine=engine,
                            common_models=True)
    assert got.models == ("m1", "m2")
    pd.testing.assert_frame_equal(ref.patterns, got.patterns)
    assert ("columns 'm3', 'note' are not in every file and left out, as asked: only the models "
            "every file holds are compared") in got.notes


@pytest.mark.parametrize("missing", ["y", "id", "m3"])
def test_common_models_still_needs_the_roles_in_every_file(tmp_path, missing):
    a, b = _frame(1).assign(id=range(60)), _frame(2).assign(id=range(60, 120))
    a.to_parquet(tmp_path / "p0.parquet", index=False)
    b.drop(columns=missing).to_parquet(tmp_path / "p1.parquet", index=False)
    line = _run(["p*.parquet", "--y-true", "y", "--models", "m1", "m2", "m3", "--common-models"],
                tmp_path)
    assert line == (f"precmp: error: p*.parquet: column {missing!r} is in p0.parquet but not in "
                    "p1.parquet; the files of a pattern must hold the same columns")


def test_common_models_from_the_command_names_what_was_left_out(tmp_path):
    _frame(1).to_parquet(tmp_path / "p1.parquet", index=False)
    _frame(2).drop(columns="m3").to_parquet(tmp_path / "p0.parquet", index=False)
    done = subprocess.run([sys.executable, "-m", "precmp_lib", "report", "p*.parquet", "--y-true",
                           "y", "--common-models", "--out", "r.html", "--json", "r.json",
                           "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r.html").read_text()
    assert "column &#x27;m3&#x27; is not in every file and left out, as asked" in page \
        or "column 'm3' is not in every file and left out, as asked" in page
    import json

    result = json.loads((tmp_path / "r.json").read_text())
    assert json.dumps(result).count('"m3"') == 0


def test_an_extra_column_in_one_file(tmp_path):
    _frame(1).to_parquet(tmp_path / "p0.parquet", index=False)
    _frame(2).assign(note="x").to_parquet(tmp_path / "p1.parquet", index=False)
    line = _run(["p*.parquet", "--y-true", "y"], tmp_path)
    assert "column 'note' is in p1.parquet but not in p0.parquet" in line


def test_a_label_column_typed_differently(tmp_path):
    codes = {"a": 0, "b": 1, "c": 2}
    _frame(1).to_parquet(tmp_path / "p0.parquet", index=False)
    _frame(2).assign(y=lambda d: d["y"].map(codes)).to_parquet(tmp_path / "p1.parquet", index=False)
    line = _run(["p*.parquet", "--y-true", "y"], tmp_path)
    assert line.startswith("precmp: error: p*.parquet: column 'y' holds text (")
    assert line.endswith(") in p0.parquet but number (int64) in p1.parquet; the files of a "
                         "pattern must type each column alike")


def test_integer_and_float_labels_in_two_files_are_one_kind(tmp_path):
    a = pd.DataFrame({"y": [0, 1, 1, 0], "m": [0, 1, 0, 0], "k": [1, 1, 1, 0]})
    a.to_parquet(tmp_path / "p0.parquet", index=False)
    a.astype({"m": float, "y": "int32"}).to_parquet(tmp_path / "p1.parquet", index=False)
    got = count_predictions(str(tmp_path / "p*.parquet"), y_true="y")
    assert got.classes == (0, 1) and got.n_rows == 8


def test_files_listing_columns_in_another_order_are_read_by_name(tmp_path):
    a, b = _frame(1), _frame(2)
    a.to_parquet(tmp_path / "p0.parquet", index=False)
    b[["m3", "y", "m2", "m1"]].to_parquet(tmp_path / "p1.parquet", index=False)
    ref = count_predictions(pd.concat([a, b], ignore_index=True), y_true="y")
    for engine in ("duckdb", "numpy", "spark"):
        got = count_predictions(str(tmp_path / "p*.parquet"), y_true="y", engine=engine)
        pd.testing.assert_frame_equal(ref.patterns, got.patterns)


def test_duckdb_out_of_memory_names_the_setting(tmp_path):
    n = 200_000  # 20,000 observations x 10 repeats: more than 1 MB of hash tables
    ids = np.arange(n) % 20_000
    pd.DataFrame({"id": ids, "repeat": np.arange(n) // 20_000, "y": ids % 5,
                  "a": (ids * 7) % 5, "b": np.arange(n) % 5}).to_parquet(tmp_path / "cv.parquet")
    line = _run(["cv.parquet", "--y-true", "y"], tmp_path, env={"PRECMP_DUCKDB_MEMORY": "1MB"})
    assert line == ("precmp: error: cv.parquet: DuckDB ran out of memory counting it (its limit "
                    "is 1MB); raise the limit with the environment variable PRECMP_DUCKDB_MEMORY "
                    "(e.g. PRECMP_DUCKDB_MEMORY=4GB)")


BLOCK = """
import sys
sys.modules[{module!r}] = None  # the module is not installed
from precmp_lib.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(("module", "engine", "command"), [
    ("pyspark", "spark", 'pip install "precmp[spark]"'),
    ("pyarrow", "auto", "pip install pyarrow"),
])
def test_a_missing_module_names_its_install_command(tmp_path, module, engine, command):
    _frame(1).to_parquet(tmp_path / "p.parquet", index=False)
    line = _run(["p.parquet", "--y-true", "y", "--engine", engine], tmp_path,
                code=BLOCK.format(module=module))
    assert line.endswith(command), line
    assert module in line


# --------------------------------------------------------------------------------------------
# bytes produced: a compressed CSV that inflates past its limit, a last line DuckDB would drop
# --------------------------------------------------------------------------------------------


def _gzip_bomb(path: Path, rows: int) -> Path:
    """A .csv.gz of ``rows`` identical rows: 4 bytes a row inflated, about 1,000 times less on disk."""
    import gzip

    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b"y,m\n")
        block = b"0,0\n" * 65_536
        for _ in range(rows // 65_536):
            fh.write(block)
    return path


@pytest.mark.parametrize("engine", ["duckdb", "numpy", "spark"])
def test_a_compressed_csv_is_counted_inflated_before_any_engine_reads_it(tmp_path, engine,
                                                                         monkeypatch):
    from precmp_lib.engine.base import PredictionFileError

    monkeypatch.setenv("PRECMP_MAX_INFLATED_BYTES", str(4 << 20))
    bomb = _gzip_bomb(tmp_path / "p.csv.gz", 4 << 20)  # 16 MiB inflated
    assert bomb.stat().st_size < 64 << 10
    with pytest.raises(PredictionFileError, match=r"^p\.csv\.gz inflated: more than 4,194,304 "
                                                  r"bytes a compressed file inflates to"):
        count_predictions(str(bomb), y_true="y", engine=engine)
    # under the limit, the same kind of file is counted: 65,536 rows, all agreeing
    small = _gzip_bomb(tmp_path / "q.csv.gz", 65_536)
    counts = count_predictions(str(small), y_true="y", engine=engine)
    assert counts.n_rows == 65_536


@pytest.mark.parametrize("engine", ["duckdb", "numpy", "spark"])
@pytest.mark.parametrize("ending", [b"", b"\n", b"\r\n"])
@pytest.mark.parametrize("compressed", [False, True])
def test_a_last_line_past_the_line_limit_is_refused_not_dropped(tmp_path, engine, ending,
                                                                compressed, monkeypatch):
    """DuckDB 1.5 counted 40 of 41 rows when the last line was longer than 32 MiB (the review);
    every engine now refuses a last line longer than the line limit, lowered here to 4 KiB."""
    import gzip

    from precmp_lib.engine.base import PredictionFileError

    monkeypatch.setenv("PRECMP_MAX_LINE", "4096")
    monkeypatch.setenv("PRECMP_MAX_LABEL", "5000")
    end = ending or b"\n"
    body = b"y,m" + end + (b"0,0" + end) * 40
    name = "p.csv.gz" if compressed else "p.csv"
    write = gzip.compress if compressed else bytes
    for last, refused in [(b"1," + b"x" * 4094, False), (b"1," + b"x" * 4095, True)]:
        (tmp_path / name).write_bytes(write(body + last + ending))
        if refused:
            with pytest.raises(PredictionFileError, match=rf"^{name}: the last line holds more "
                                                          r"than 4,096 bytes"):
                count_predictions(str(tmp_path / name), y_true="y", engine=engine)
        else:
            assert count_predictions(str(tmp_path / name), y_true="y",
                                     engine=engine).n_rows == 41


def test_duckdb_would_drop_a_last_line_of_33_mib(tmp_path):
    """The review's case at the default limits: the 33 MiB last line is refused (DuckDB alone
    counted 40 rows of 41)."""
    from precmp_lib.engine.base import PredictionFileError

    path = tmp_path / "p.csv"
    path.write_bytes(b"y,m\n" + b"0,0\n" * 40 + b"1," + b"x" * (33 << 20) + b"\n")
    with pytest.raises(PredictionFileError, match=r"^p\.csv: the last line holds more than "
                                                  r"1,048,576 bytes"):
        count_predictions(str(path), y_true="y", engine="duckdb")
    path.unlink()
