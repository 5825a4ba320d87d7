"""The built wheel works installed anywhere: resources inside the package, downloads to a user cache.

One wheel is built (offline: ``pip wheel --no-build-isolation --no-index``) from a copy of the
sources, installed with ``pip install --target`` into a temporary folder, and used through
``PYTHONPATH`` from an unrelated working directory, so nothing of the checkout can be imported or
read. Each test runs a short script in that set-up and checks what it prints.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from conftest import DATA_MIRROR, needs_mirror

import precmp_lib

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = [
    "datasets.csv",
    "paper_tables.csv",
    "deep_digits_predictions.csv",
    "examples.csv",
    "examples/digits_wide.csv",
    "examples/breast_cancer_cv_long.csv",
    "prediction_report.ipynb",
    "report_nbconvert.html.j2",
    "example_prediction_comparison.json",  # the report template's default parameter
    "probability_report.ipynb",
    "example_probability_comparison.json",  # the probabilities template's default parameter
    "spark-log4j2.properties",  # the Spark engine's log settings
    "item_logs/model_a.eval",  # inspect_ai logs read by notebook 13
    "item_logs/model_b.eval",
]


def _pip(*args: str, cwd: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", *args, "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check"],
        cwd=cwd, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    """Build the wheel from a copy of the sources and install it into a folder of its own."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "precmp_lib", src / "precmp_lib",
                    ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    dist = base / "dist"
    _pip("wheel", "--no-build-isolation", "--wheel-dir", str(dist), str(src), cwd=base)
    (wheel,) = dist.glob("precmp-*.whl")
    site = base / "site"
    _pip("install", "--target", str(site), str(wheel), cwd=base)
    elsewhere = base / "elsewhere"  # an unrelated working directory
    elsewhere.mkdir()
    return {"wheel": wheel, "site": site, "cwd": elsewhere, "base": base}


def _run(installed: dict[str, Path], code: str, *args: str, **env: str) -> str:
    """Run ``code`` (or ``-m ...`` when ``code`` is empty) with only the installed wheel importable."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PRECMP_DATA", "PRECMP_DATA_MIRROR", "PRECMP_DATA_URL")}
    environ.update(PYTHONPATH=str(installed["site"]), **env)
    cmd = [sys.executable, *(["-c", textwrap.dedent(code)] if code else []), *args]
    proc = subprocess.run(cmd, cwd=installed["cwd"], env=environ, capture_output=True, text=True)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _package_files(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in (site / "precmp_lib").rglob("*")
                  if "__pycache__" not in p.parts)


def test_the_wheel_holds_the_resources_the_license_and_one_version(installed):
    with zipfile.ZipFile(installed["wheel"]) as zf:
        names = set(zf.namelist())
        metadata = zf.read(f"precmp-{precmp_lib.__version__}.dist-info/METADATA").decode()
    for name in RESOURCES:
        assert f"precmp_lib/_resources/{name}" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    # the version is written once, in precmp_lib/__init__.py; the wheel's metadata reads it
    assert f"\nVersion: {precmp_lib.__version__}\n" in metadata
    assert "License-Expression: MIT" in metadata


def test_installed_package_loads_data_and_shipped_files_from_any_folder(installed):
    out = _run(installed, """
        import json
        import pandas as pd
        import precmp_lib as pc
        from precmp_lib.course import paper

        wine = pc.load_dataset("wine")
        reg = pc.list_datasets()
        tables = paper.printed_values()
        examples = pc.sources.datasets.example_predictions()
        digits = pd.read_csv(examples.set_index("name").loc["digits_wide", "predictions"])
        print(json.dumps({
            "module": pc.__file__,
            "wine": [wine.X.shape[0], wine.X.shape[1], wine.y.nunique()],
            "registry": reg["name"].tolist(),
            "tables": sorted(int(t) for t in tables["table"].unique()),
            "examples": examples["predictions"].tolist(),
            "digits_columns": digits.columns.tolist(),
            "digits_rows": len(digits),
        }))
    """)
    got = json.loads(out)
    site = installed["site"].resolve()
    assert Path(got["module"]).resolve().is_relative_to(site)  # the wheel, not the checkout
    assert got["wine"] == [178, 13, 3]  # scikit-learn's load_wine: 178 rows, 13 features
    assert got["registry"] == precmp_lib.list_datasets()["name"].tolist()
    assert got["tables"] == list(range(4, 12))  # the paper's Tables 4-11
    assert all(Path(p).resolve().is_relative_to(site) for p in got["examples"])
    shipped = precmp_lib.sources.datasets.example_predictions().set_index("name")
    import pandas as pd

    checkout = pd.read_csv(shipped.loc["digits_wide", "predictions"])
    assert got["digits_columns"] == checkout.columns.tolist()
    assert got["digits_rows"] == len(checkout)


def test_installed_command_renders_the_report_of_a_shipped_example(installed):
    out_file = installed["base"] / "report.html"
    example = _run(installed, """
        import precmp_lib as pc
        print(pc.sources.datasets.example_predictions().set_index("name").loc["digits_wide", "predictions"])
    """).strip()
    _run(installed, "", "-m", "precmp_lib", "report", example, "--y-true", "digit", "--id", "id",
         "--out", str(out_file), "--quiet")
    html = out_file.read_text()
    assert "<html" in html.lower() and "naive_bayes" in html


@needs_mirror
def test_make_data_from_the_installed_package_writes_to_the_user_cache_only(installed):
    # A UCI-like site with the Banknote file, fetched through a file:// base URL.
    site = installed["base"] / "uci_site"
    remote = site / "00267" / "data_banknote_authentication.txt"
    remote.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(Path(DATA_MIRROR) / "banknote_authentication" / remote.name, remote)
    xdg = installed["base"] / "xdg"
    before = _package_files(installed["site"])
    out = _run(installed, "", "-m", "precmp_lib.course.download", "download", "banknote", "--base-url",
               site.as_uri(), "--no-progress", XDG_CACHE_HOME=str(xdg))
    assert out.startswith("banknote: downloaded, 1372 rows x 4 features, checked: ")
    assert (xdg / "precmp" / "banknote" / remote.name).read_bytes() == remote.read_bytes()
    shape = _run(installed, """
        import precmp_lib as pc
        from precmp_lib.sources.datasets import default_cache_dir
        print(default_cache_dir(), pc.load_dataset("banknote").X.shape)
    """, XDG_CACHE_HOME=str(xdg))
    assert shape.strip() == f"{xdg / 'precmp'} (1372, 4)"
    assert _package_files(installed["site"]) == before  # nothing written into the package


@pytest.fixture(scope="module")
def fresh_venv(installed, tmp_path_factory) -> dict[str, Path]:
    """A new virtual environment with the wheel installed by pip, outside the checkout.

    The environment is made without network: the wheel goes in with ``--no-index --no-deps``
    and its dependencies are the ones this interpreter has (a path file points at them, after
    the environment's own site-packages, so the wheel's ``precmp_lib`` comes first).
    """
    import sysconfig
    import venv

    base = tmp_path_factory.mktemp("venv")
    env_dir = base / "env"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "--quiet", "--disable-pip-version-check", str(installed["wheel"])],
        capture_output=True, text=True, cwd=base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return {"python": python, "site": site, "cwd": elsewhere}


def _in_venv(fresh: dict[str, Path], *args: str, cwd: Path | None = None) -> str:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PRECMP_DATA", "PRECMP_DATA_MIRROR", "PRECMP_DATA_URL")}
    proc = subprocess.run([str(fresh["python"]), *args], cwd=cwd or fresh["cwd"], env=environ,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_a_fresh_venv_reads_parquet_and_runs_the_report_template_with_its_defaults(fresh_venv):
    out = _in_venv(fresh_venv, "-c", textwrap.dedent("""
        import json
        import pandas as pd
        import precmp_lib
        from precmp_lib import count_predictions
        from precmp_lib.report.render import report_template

        pd.DataFrame({"y": [0, 1, 1, 0, 1], "a": [0, 1, 0, 0, 1], "b": [1, 1, 1, 0, 1]}).to_parquet(
            "p.parquet", index=False)
        c = count_predictions("p.parquet", y_true="y")
        print(json.dumps({"module": precmp_lib.__file__, "engine": c.engine, "rows": c.n_rows,
                          "template": str(report_template())}))
    """))
    got = json.loads(out)
    site = fresh_venv["site"].resolve()
    assert Path(got["module"]).resolve().is_relative_to(site)  # the wheel, not the checkout
    assert (got["engine"], got["rows"]) == ("duckdb", 5)
    template = Path(got["template"])
    assert template.resolve().is_relative_to(site)
    for name in ("example_prediction_comparison.json", "spark-log4j2.properties"):
        assert (template.parent / name).is_file(), name
    # papermill, the template's default parameters, run beside the template as JupyterLab would
    done = fresh_venv["cwd"] / "done.ipynb"
    _in_venv(fresh_venv, "-m", "papermill", str(template), str(done), "--cwd",
             str(template.parent), "-k", "python3", "--log-level", "ERROR")
    cells = json.loads(done.read_text())["cells"]
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    shown = "".join(json.dumps(o) for c in cells for o in c.get("outputs", []))
    assert "digits_wide.csv" in shown  # the default source name reached the page
