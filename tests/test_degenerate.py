"""The predictions report on degenerate but valid files: it never breaks and never overstates.

A grammar of files real runs produce at the edges (perfect and all-wrong models, constant
predictions, a class never predicted or never true, identical models, two rows, one class,
no false positives for a prevalence class, cross-validation with one repeat) goes through
``precmp report`` on numpy and DuckDB. Each page must come out (exit 0; or 2 with one line for a
file that is not what it claims), with no traceback, no ``nan`` or ``inf`` in its text, and every
interval either of positive width or left blank with its reason in a note.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from precmp_lib import cli
from precmp_lib.compare.predictions import compare_models
from precmp_lib.report import prediction_sections as sections

ROOT = Path(__file__).resolve().parent.parent
NAN = re.compile(r"(?<![\w.])[+-]?(nan|inf)(?!\w)", re.IGNORECASE)
CI = re.compile(r"CI ([+-]?\d+(?:\.\d+)?) to ([+-]?\d+(?:\.\d+)?)")
# each table with intervals: the column of the estimate each interval belongs to
ESTIMATES = {"summary": "accuracy", "pairs": "estimate", "per_class": "rp",
             "gee_coefficients": "odds_ratio", "prevalence": "precision_at_prevalence",
             "prevalence_ratio": "ratio"}


def page_text(page: str) -> str:
    """The words a reader sees: tags, styles and embedded images left out."""
    page = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<img[^>]*>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def interval_problems(comparison: dict) -> list[str]:
    """Intervals of no width, or blank while their estimate is shown and no note says why."""
    problems = []
    for name, estimate in ESTIMATES.items():
        table = pd.DataFrame.from_records(comparison[name]["records"],
                                          columns=comparison[name]["columns"])
        low, high = ("rp_ci_low", "rp_ci_high") if name == "per_class" else ("ci_low", "ci_high")
        lo, hi = table[low].to_numpy(float), table[high].to_numpy(float)
        shown = table[estimate].notna().to_numpy()
        notes = table["note"].fillna("").to_numpy(str) if "note" in table else [""] * len(table)
        for i in np.nonzero(~(hi > lo))[0]:
            blank = np.isnan(lo[i]) and np.isnan(hi[i])
            if not (blank and (not shown[i] or notes[i])):
                problems.append(f"{name} row {i}: [{lo[i]}, {hi[i]}] {notes[i]!r}")
    return problems


# --------------------------------------------------------------------------------------------
# the grammar
# --------------------------------------------------------------------------------------------


@st.composite
def degenerate_files(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str]]:
    """A valid predictions file at an edge, and the options of its report."""
    text = draw(st.booleans())
    k = draw(st.integers(1, 3))
    labels = [f"c{i}" for i in range(k + 1)] if text else list(range(k + 1))
    spare = labels[k]  # a label the truth never holds
    n = draw(st.integers(2, 30))
    y = [labels[i] for i in draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))]
    m = draw(st.integers(2, 3))
    models: dict[str, list] = {}
    for j in range(m):
        kind = draw(st.sampled_from(["perfect", "wrong", "constant", "copy", "noisy", "spare"]))
        if kind == "perfect":
            pred = list(y)
        elif kind == "wrong":
            pred = [labels[(labels.index(v) + 1) % k] if k > 1 else spare for v in y]
        elif kind == "constant":
            pred = [draw(st.sampled_from(labels[:k]))] * n
        elif kind == "copy" and models:
            pred = list(models[draw(st.sampled_from(sorted(models)))])
        elif kind == "spare":
            pred = [spare if i % 3 == 0 else v for i, v in enumerate(y)]
        else:
            flips = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            pred = [labels[(labels.index(v) + 1) % (k + 1)] if f else v for v, f in zip(y, flips)]
        models[f"m{j}"] = pred
    frame = pd.DataFrame({"y": y, **models})
    options: list[str] = []
    if draw(st.booleans()):
        options += ["--prevalence", f"{draw(st.sampled_from(sorted(set(y), key=str)))}="
                                    f"{draw(st.sampled_from([0.02, 0.3]))}"]
    design = draw(st.sampled_from(["test set", "cv"]))
    if design == "cv":
        repeats, folds = draw(st.integers(1, 3)), draw(st.integers(2, 3))
        parts = []
        for r in range(repeats):
            part = frame.assign(id=range(n), repeat=r, fold=[i % folds for i in range(n)])
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True)
    return frame, options


def _run(frame: pd.DataFrame, options: list[str], engine: str, folder: Path) -> tuple[int, str]:
    data, out, js = folder / "p.csv", folder / "r.html", folder / "r.json"
    for f in (out, js):
        f.unlink(missing_ok=True)
    frame.to_csv(data, index=False)
    code = cli.main(["report", str(data), "--y-true", "y", "--engine", engine, "--out", str(out),
                     "--json", str(js), "--quiet", "--n-resamples", "100", *options])
    return code, str(out)


def _check_page(out: str) -> None:
    text = page_text(Path(out).read_text(encoding="utf-8"))
    assert not NAN.findall(text), NAN.findall(text)
    flat = [m.group(0) for m in CI.finditer(text) if float(m.group(1)) == float(m.group(2))]
    assert not flat, flat
    comparison = json.loads(Path(out).with_suffix(".json").read_text(encoding="utf-8"))
    assert not interval_problems(comparison)


@pytest.fixture
def no_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build every figure but skip drawing it to PNG (the slow part; the sample below draws)."""
    monkeypatch.setattr(sections, "_figure_html", lambda fig, alt: "")


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=degenerate_files())
def test_degenerate_files_make_an_honest_page(case, engine, tmp_path, no_drawing, capsys):
    frame, options = case
    code, out = _run(frame, options, engine, tmp_path)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert code in (0, 2), err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and err.startswith("precmp: error: "), err
        return
    _check_page(out)


# --------------------------------------------------------------------------------------------
# the files, through the real command (figures drawn)
# --------------------------------------------------------------------------------------------

Y = ["a", "b"] * 20


def _right_and_wrong() -> pd.DataFrame:
    return pd.DataFrame({"y": Y, "m1": Y, "m2": ["b" if v == "a" else "a" for v in Y]})


def _no_false_positives() -> pd.DataFrame:
    # m1 calls b only where it is b (12 of 20 found): no false positives for b
    m1 = [v if v == "a" or i % 10 < 6 else "a" for i, v in enumerate(Y)]
    return pd.DataFrame({"y": Y, "m1": m1, "m2": Y})


def _identical_cv() -> pd.DataFrame:
    pred = [v if i % 5 else ("b" if v == "a" else "a") for i, v in enumerate(Y)]
    rows = [{"id": i, "repeat": r, "fold": (i + r) % 4, "y": v, "m1": pred[i], "m2": pred[i]}
            for r in range(3) for i, v in enumerate(Y)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
@pytest.mark.parametrize("make, options", [
    (_right_and_wrong, []),
    (_no_false_positives, ["--prevalence", "b=0.02"]),
    (_identical_cv, []),
])
def test_edge_files_through_the_command(make, options, engine, tmp_path):
    data, out = tmp_path / "p.csv", tmp_path / "r.html"
    make().to_csv(data, index=False)
    done = subprocess.run([sys.executable, "-m", "precmp_lib", "report", str(data), "--y-true",
                           "y", "--engine", engine, "--out", str(out), "--json",
                           str(out.with_suffix(".json")), "--quiet", "--n-resamples", "200",
                           *options], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    _check_page(str(out))


def test_relative_precision_of_two_perfect_models_is_not_an_interval():
    cmp = compare_models(pd.DataFrame({"y": Y, "m1": Y, "m2": Y}), y_true="y")
    rows = cmp.per_class
    assert (rows["rp"] == 1).all() and rows["rp_ci_low"].isna().all()
    assert rows["note"].str.contains("equal on these data; the interval is not estimable").all()


def test_identical_models_under_cv_say_the_interval_is_not_estimable():
    cmp = compare_models(_identical_cv(), y_true="y")
    line = next(d for d in cmp.details if d.startswith("m1 − m2") or d.startswith("m2 − m1"))
    assert "nan" not in line and "the interval is not estimable" in line


def test_one_model_right_and_one_wrong_everywhere_makes_a_page(tmp_path):
    from precmp_lib.report.render import render_report

    page = render_report(compare_models(_right_and_wrong(), y_true="y"), tmp_path / "r.html",
                         quiet=True).read_text(encoding="utf-8")
    assert "No relative precision is defined here" in page
    assert "not defined (a precision is 0)" in page_text(page)
