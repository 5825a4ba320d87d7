"""Contract test of notebooks/04_precision_gs_gw.ipynb and its solutions: each checked on its one
run at its defaults (nbval does not execute them again); the notebook also on wine and on string
labels, with small parameters.

Provenance: macro precision is the mean of the per-class precisions (Gondara, eq. 1; docs/methods.md §11);
the per-class table is recomputed here with the library on the same split and models; Holm
adjustment is checked against statsmodels' multipletests; the odds ratio against the precisions
it is built from (docs/methods.md §7); the power of the paired GS against the naive z test follows
docs/methods.md §6.2 (the z test ignores the positive covariance and is conservative).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import needs_mirror, notebook_parameters
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from stated import assert_states
from statsmodels.stats.multitest import multipletests

import precmp_lib as pc
from precmp_lib.core.counts import class_cells, joint_confusion

PARAMS = notebook_parameters("04_precision_gs_gw")
SMALL = {"seed": 1, "n_trees": 20, "n_sim": 40, "test_size": 0.6}  # the runs on other data sets


def check_macro_precision_is_the_mean_of_the_classes(results):
    assert results["classes"] == list(range(10))
    assert results["macro_precision_a"] == pytest.approx(np.mean(results["precision_a"]), rel=1e-12)
    assert results["macro_precision_b"] == pytest.approx(np.mean(results["precision_b"]), rel=1e-12)


def check_per_class_table_equals_the_library_on_the_same_split(results, dataset="digits",
                                                               wald_classes=2, params=PARAMS):
    data = pc.load_dataset(dataset)
    X_train, X_test, y_train, y_test = train_test_split(
        data.X, data.y, test_size=params["test_size"], stratify=data.y, random_state=params["seed"])
    a = LinearDiscriminantAnalysis().fit(X_train, y_train).predict(X_test)
    b = RandomForestClassifier(n_estimators=params["n_trees"], random_state=params["seed"]).fit(
        X_train, y_train).predict(X_test)
    table = pc.compare_precision(y_test, a, b)
    assert results["n_test"] == len(y_test)
    np.testing.assert_allclose(results["gs_statistic"], table["gs_statistic"], rtol=1e-12)
    np.testing.assert_allclose(results["wgs_pvalue"], table["wgs_pvalue"], rtol=1e-12)
    np.testing.assert_allclose(np.array(results["gw_pvalue"], dtype=float), table["gw_pvalue"],
                               rtol=1e-12)
    check_wald_equals_its_formula(results, y_test, a, b, at_least=wald_classes)


def check_holm_and_the_significant_classes(results):
    p = np.array(results["gs_pvalue"])
    expected = multipletests(p, method="holm")[1]
    np.testing.assert_allclose(results["gs_pvalue_adjusted"], expected, rtol=1e-12)
    assert results["significant_classes"] == [
        k for k, q in zip(results["classes"], expected) if q <= 0.05]


def wald_by_formula(cells):
    """Gondara, eqs. 31-33 (docs/methods.md §6.4) from one class's cells n[d][a][b]."""
    n = np.asarray(cells, dtype=float)
    m_a, m_b = n[:, 1, :].sum(), n[:, :, 1].sum()
    p_a, p_b = n[1, 1, :].sum() / m_a, n[1, :, 1].sum() / m_b
    s = n[1, 1, 1] * (1 - p_a) * (1 - p_b) + n[0, 1, 1] * p_a * p_b
    var = p_a * (1 - p_a) / m_a + p_b * (1 - p_b) / m_b - 2 * s / (m_a * m_b)
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 when both precisions are 1
        return (p_a - p_b) ** 2 / var, p_a - p_b


def check_wald_equals_its_formula(results, y_test, a, b, *, at_least=2):
    """The notebook's Wald columns equal the formula for every class where it is defined (a
    precision of 0 or 1 leaves it undefined; a small data set such as wine has few such classes)."""
    cells = class_cells(joint_confusion(y_test, a, b).table)
    checked = 0
    for k, cls in enumerate(results["classes"]):
        stat, diff = wald_by_formula(cells[k])
        if np.isfinite(stat):
            assert results["wald_statistic"][k] == pytest.approx(stat, rel=1e-9), cls
            assert results["wald_difference"][k] == pytest.approx(diff, rel=1e-9, abs=1e-12)
            assert results["wald_ci_low"][k] <= diff <= results["wald_ci_high"][k]
            checked += 1
    assert checked >= at_least


def check_power_curves_show_the_naive_z_test_losing_power(results):
    # n_sim simulated data sets (400 at the defaults): Monte Carlo sd of a 5 % rate is 0.011
    for rho in ("0.2", "0.8"):
        assert 0.0 <= results["power_null_gs"][rho] <= 0.12
    assert results["power_null_naive_z"]["0.8"] <= results["power_null_gs"]["0.8"]
    assert results["power_005_gs"]["0.8"] > results["power_005_naive_z"]["0.8"] + 0.2


def check_gee_section(results):
    assert results["gee_models"] == ["NB", "RF", "tree", "RF10"]
    assert set(results["gee_joint_df"]) == {3}
    p = [v for v in results["gee_joint_pvalue"] if v is not None and np.isfinite(v)]
    assert p and all(0 <= v <= 1 for v in p)
    assert results["focus_odds_ratio"] == pytest.approx(results["focus_odds_ratio_rebuilt"], rel=1e-10)
    assert results["focus_class"] in results["classes"]


def check_the_widget_start_is_its_state_function(results):
    from precmp_lib.course.widgets.one_test_set import gs_power_state

    start = gs_power_state(0.5, 1000, n_sim=1000)
    saved = {float(k): v for k, v in results["widget_start_power"].items()}
    for d, row in start.iterrows():
        assert saved[d]["gs"] == pytest.approx(row["gs"]) and saved[d]["naive_z"] == pytest.approx(row["naive_z"])


def markdown_outputs(executed):
    nb = json.loads(executed.read_text())
    return "\n".join("".join(o.get("data", {}).get("text/markdown", ""))
                     for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))


@pytest.mark.notebook
@pytest.mark.runs_notebook("04_precision_gs_gw")
def test_notebook_contract(notebook_defaults):
    results = notebook_defaults
    check_macro_precision_is_the_mean_of_the_classes(results)
    check_per_class_table_equals_the_library_on_the_same_split(results)
    check_holm_and_the_significant_classes(results)
    check_power_curves_show_the_naive_z_test_losing_power(results)
    check_gee_section(results)
    check_the_widget_start_is_its_state_function(results)
    check_statements(results)


@pytest.mark.notebook
def test_notebook_text_follows_the_dataset(run_notebook, tmp_path):
    results = run_notebook("04_precision_gs_gw", dataset="wine", **SMALL)
    assert results["classes"] == [0, 1, 2]
    check_per_class_table_equals_the_library_on_the_same_split(results, "wine", wald_classes=1,
                                                               params=SMALL)
    text = markdown_outputs(tmp_path / "04_precision_gs_gw.executed.ipynb")
    assert "wine has **3 classes**" in text and "10 classes" not in text


@needs_mirror
@pytest.mark.notebook
def test_notebook_runs_on_string_labels(run_notebook, tmp_path):
    results = run_notebook("04_precision_gs_gw", dataset="urban_land_cover", seed=1, n_trees=20,
                           n_sim=40, test_size=0.6)
    classes = results["classes"]
    assert len(classes) == 9 and all(isinstance(c, str) for c in classes)
    assert results["focus_class"] in classes
    text = markdown_outputs(tmp_path / "04_precision_gs_gw.executed.ipynb")
    assert "urban_land_cover has **9 classes**" in text


@pytest.mark.notebook
@pytest.mark.runs_notebook("solutions/04_precision_gs_gw")
def test_solutions_04(notebook_defaults):
    """The z test is conservative under the null at correlation 0.8 (docs/methods.md §6.2); power
    grows with n; the odds ratio is rebuilt from the precisions; Holm against statsmodels."""
    res = notebook_defaults
    ex1 = {float(k): v for k, v in res["ex1"].items()}
    assert ex1[0.0]["naive_z"] < 0.05 and ex1[0.05]["gs"] > ex1[0.05]["naive_z"]
    for rho in ("0.5", "0.8"):
        power = [res["ex2"][rho][n] for n in sorted(res["ex2"][rho], key=int)]
        assert power[-1] > power[0]
    ex3 = res["ex3"]
    pa, pb = ex3["precision_a"], ex3["precision_b"]
    assert ex3["odds_ratio"] == pytest.approx((pa / (1 - pa)) / (pb / (1 - pb)), rel=1e-12)
    assert ex3["rp"] == pytest.approx(pa / pb, rel=1e-12)
    # the class of the notebook's forest plot: the largest joint GEE statistic, as the notebook picks it
    joint = [r for r in ex3["joint"] if r["statistic"] is not None and r["statistic"] == r["statistic"]]
    assert ex3["class"] == max(joint, key=lambda r: r["statistic"])["class"]
    assert ex3["gee_odds_ratio"] == pytest.approx(ex3["odds_ratio"], rel=1e-6)  # saturated model: OR from counts
    assert res["ex4"]["dataset"] == "wine" and len(res["ex4"]["classes"]) == 3


def check_statements(results):
    """The decision lines and the power sentences state the numbers of results.json, no others."""
    alpha = results["alpha"]
    a, b = results["macro_precision_a"], results["macro_precision_b"]
    adjusted = dict(zip(map(str, results["classes"]), results["gs_pvalue_adjusted"]))
    pa = dict(zip(map(str, results["classes"]), results["precision_a"]))
    pb = dict(zip(map(str, results["classes"]), results["precision_b"]))
    expected = [f"{a:.3f}", f"{b:.3f}", f"{a - b:+.3f}"]
    if not results["significant_classes"]:
        expected.append(alpha)
    for cls in map(str, results["significant_classes"]):
        expected += [cls, f"{pa[cls]:.3f}", f"{pb[cls]:.3f}", f"{adjusted[cls]:.2g}"]
    s = results["statements"]
    assert_states(s["decisions"], expected)
    null_gs, null_z = results["power_null_gs"]["0.8"], results["power_null_naive_z"]["0.8"]
    gs5, z5 = results["power_005_gs"]["0.8"], results["power_005_naive_z"]["0.8"]
    assert_states(s["power"], [f"{null_gs:.1%}", "0.8", f"{null_z:.1%}", f"{alpha:.0%}", "0.05",
                               f"{gs5:.0%}", f"{z5:.0%}"])
