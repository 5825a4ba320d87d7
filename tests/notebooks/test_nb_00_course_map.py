"""Contract of notebooks/00_course_map.ipynb: the decision map and the datasets it reports.

Expected shapes: scikit-learn's loaders (called here) for the bundled sets; the mirror's README
table for the paper's UCI sets; the paper's Table 4 for the rows it prints (Wilt 4889, Phishing 2456).
"""

from __future__ import annotations

import pytest
from conftest import DATA_MIRROR
from stated import assert_states

from precmp_lib.course.maps import course_map_table

UCI_SHAPES = {  # rows, features, classes, (train, test)
    "wilt": (4839, 5, 2, (4339, 500)),
    "diabetic_retinopathy": (1151, 19, 2, (None, None)),
    "phishing": (11055, 30, 2, (None, None)),
    "banknote": (1372, 4, 2, (None, None)),
    "magic": (19020, 10, 2, (None, None)),
    "urban_land_cover": (675, 147, 9, (168, 507)),
}


@pytest.mark.notebook
@pytest.mark.runs_notebook("00_course_map")
def test_course_map_reports_the_map_and_the_datasets(notebook_defaults):
    from sklearn import datasets as sk

    res = notebook_defaults
    table = course_map_table()
    assert res["cases"] == len(table) == 14
    assert res["notebooks_in_map"] == sorted(table["notebook"].unique())
    check_conclusion(res)

    rows = {r["name"]: r for r in res["datasets"]}
    # at the default include_uci=None: the UCI sets this machine has, and no request for the others
    assert list(rows) == ["breast_cancer", "digits", "wine", "iris",
                          *(name for name in UCI_SHAPES if name in rows)]
    assert all(r["available"] for r in rows.values()) and res["not_loaded"] == []
    for name in ("breast_cancer", "digits", "wine", "iris"):
        X, y = getattr(sk, f"load_{name}")(return_X_y=True)
        r = rows[name]
        assert r["available"] and (r["rows"], r["features"], r["classes"]) == (
            X.shape[0],
            X.shape[1],
            len(set(y)),
        )
        assert r["n_train"] is None and r["paper_rows"] is None

    for name, (n, p, k, (n_train, n_test)) in UCI_SHAPES.items():
        if name in rows:
            r = rows[name]
            assert (r["rows"], r["features"], r["classes"]) == (n, p, k)
            assert (r["n_train"], r["n_test"]) == (n_train, n_test)

    if DATA_MIRROR:  # with the mirror, every UCI set loads and two differ from the paper
        assert res["not_loaded"] == []
        assert res["rows_differ_from_paper"] == ["wilt", "phishing"]
        assert (rows["wilt"]["paper_rows"], rows["phishing"]["paper_rows"]) == (4889, 2456)


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/00_course_map")
def test_solutions_00(notebook_defaults):
    """Answers read from the map; the binomial p-value against scipy's binomtest."""
    from scipy import stats

    res = notebook_defaults
    assert res["ex1_notebook"] == ["02_cv_ttests"]
    assert res["ex2_notebook"] == ["01_mcnemar_cochran"]
    assert res["ex3_notebook"] == ["12_algorithm_selection"]
    ref = stats.binomtest(940, 1000, 0.92, alternative="greater")
    assert res["ex2_pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert res["ex2_ci_low"] == pytest.approx(ref.proportion_ci(method="exact").low, rel=1e-9)


@pytest.mark.notebook
def test_course_map_asked_for_every_uci_dataset(run_notebook, tmp_path, monkeypatch):
    """include_uci=True lists all six and names what is missing with how to get it (here none
    is on the machine: an empty cache and no mirror)."""
    monkeypatch.delenv("PRECMP_DATA_MIRROR", raising=False)
    monkeypatch.setenv("PRECMP_DATA", str(tmp_path / "empty-cache"))
    res = run_notebook("00_course_map", include_uci=True)
    rows = {r["name"]: r for r in res["datasets"]}
    assert list(rows) == ["breast_cancer", "digits", "wine", "iris", *UCI_SHAPES]
    for name in UCI_SHAPES:
        assert not rows[name]["available"] and "make data" in rows[name]["note"]
    assert res["not_loaded"] == list(UCI_SHAPES)


@pytest.mark.notebook
def test_course_map_without_the_uci_datasets(run_notebook):
    res = run_notebook("00_course_map", include_uci=False)
    assert [r["name"] for r in res["datasets"]] == ["breast_cancer", "digits", "wine", "iris"]
    assert res["not_loaded"] == [] and res["rows_differ_from_paper"] == []


def check_conclusion(res):
    """The conclusion states the counts and shares of results.json and no other number."""
    rows = res["datasets"]
    loaded = [r for r in rows if r["available"]]
    rarest = min(loaded, key=lambda r: r["minority_share"])
    differs = [r for r in loaded if r["name"] in res["rows_differ_from_paper"]]
    expected = [res["cases"], len(res["notebooks_in_map"]), len(loaded), len(rows), f"{rarest['minority_share']:.1%}"]
    for r in differs:
        expected += [r["rows"], r["paper_rows"], 4]  # "... in the paper's Table 4"
    assert_states(res["statements"]["conclusion"], expected, ignore=[r["name"] for r in rows])
