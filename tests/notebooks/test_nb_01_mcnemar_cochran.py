"""Contract of notebooks/01_mcnemar_cochran.ipynb: check results.json.

Checks the notebook's one run at its defaults (breast_cancer, integer labels; nbval does not
execute it again), and a second run on Urban Land Cover (string labels, from the UCI mirror).
"""

from __future__ import annotations

import pytest
from conftest import needs_mirror
from scipy import stats
from stated import assert_states

pytestmark = pytest.mark.notebook


def check_mcnemar_on_the_run(res):
    b, c = res["discordant"]["b"], res["discordant"]["c"]
    assert res["mcnemar_table"][0][1] == b and res["mcnemar_table"][1][0] == c
    n = b + c
    exact = stats.binomtest(b, n).pvalue if n else 1.0
    assert res["mcnemar_pvalues"]["exact"] == pytest.approx(exact, rel=1e-9)
    # two-sided mid-p (Fagerland et al. 2013): 2 [P(X <= m) - P(X = m) / 2], capped at 1; when
    # b != c it is the exact p-value minus the probability of the observed count once
    m = min(b, c)
    midp = min(1.0, 2 * (stats.binom.cdf(m, n, 0.5) - 0.5 * stats.binom.pmf(m, n, 0.5))) if n else 1.0
    if b != c:
        assert midp == pytest.approx(exact - stats.binom.pmf(m, n, 0.5), rel=1e-9)
    assert res["mcnemar_pvalues"]["midp"] == pytest.approx(midp, rel=1e-9)
    assert res["midp_by_hand"] == pytest.approx(midp, rel=1e-9)


def check_reference_values(res):
    # Raschka's examples (docs/methods.md §2 worked table)
    a = res["raschka_pvalues"]["A: b=11, c=1"]
    b = res["raschka_pvalues"]["B: b=25, c=15"]
    assert a["chi2"] == pytest.approx(0.0038924, rel=1e-4) and a["exact"] == pytest.approx(0.0063477, rel=1e-4)
    assert b["chi2_corrected"] == pytest.approx(0.15473, rel=1e-4) and b["midp"] == pytest.approx(0.11728, rel=1e-4)
    # the Explore prompt: at b = 5, c = 0 the uncorrected chi2 rejects (5 on 1 df) and the exact
    # test does not (2 * 0.5**5 = 0.0625); at b = 6, c = 0 both reject (2 * 0.5**6 = 0.03125)
    t5, t6 = res["small_tables"]["b=5, c=0"], res["small_tables"]["b=6, c=0"]
    assert t5["chi2"] == pytest.approx(stats.chi2.sf(5.0, 1)) and t5["chi2"] < 0.05
    assert t5["exact"] == pytest.approx(0.0625) and t6["exact"] == pytest.approx(0.03125)
    # the mlxtend user-guide example (docs/methods.md §3): Q 7.529, p 0.023; Holm-adjusted pairs all > 0.05
    assert res["example_q"]["statistic"] == pytest.approx(7.529412, rel=1e-6)
    assert res["example_q"]["pvalue"] == pytest.approx(0.023174, rel=1e-4)
    assert min(res["example_pairwise_holm"]) > 0.05
    # the corrected chi-square disagrees with the exact test less often than the uncorrected one
    d = res["disagreement_small_n"]
    assert d["chi2_corrected"] < d["chi2"]


def check_accuracy_section(res):
    """Binomial tests against scipy's binomtest; the unpaired row against scipy's chi-square and
    Fisher on Raschka's scenario A (9959, 11, 1, 29); the type-I table's McNemar rates <= alpha."""
    ref = res["binomial_reference"]
    for row in res["binomial"]:
        expected = stats.binomtest(int(row["statistic"]), row["n"], ref, alternative="greater")
        assert row["pvalue"] == pytest.approx(expected.pvalue, rel=1e-9)
    ra = res["unpaired"]["Raschka A (b=11, c=1, n=10 000)"]
    two_by_two = [[9970, 30], [9960, 40]]
    assert ra["χ² of correct/wrong (unpaired)"] == pytest.approx(
        stats.chi2_contingency(two_by_two, correction=False).pvalue, rel=1e-9)
    assert ra["Fisher exact (unpaired)"] == pytest.approx(stats.fisher_exact(two_by_two).pvalue, rel=1e-9)
    assert ra["difference of proportions z"] == pytest.approx(ra["χ² of correct/wrong (unpaired)"], rel=1e-9)
    assert ra["McNemar exact (paired)"] < 0.01 < ra["Fisher exact (unpaired)"]
    rates = {r["correlation"]: r for r in res["proportions_type1"]}
    assert all(r["mcnemar_exact"] <= 0.05 + 3 * r["mc_se"] for r in rates.values())
    assert rates[0.8]["proportions_z"] < 0.02
    assert res["looney"]["df"] == [2, 2 * (res["n_test"] - 1)]


@pytest.mark.runs_notebook("01_mcnemar_cochran")
def test_notebook_01_contract(notebook_defaults):
    res = notebook_defaults
    assert res["dataset"] == "breast_cancer"
    table = res["mcnemar_table"]
    assert sum(map(sum, table)) == res["n_test"] == 285  # 569 rows, half (rounded up) held out
    check_mcnemar_on_the_run(res)
    check_accuracy_section(res)
    check_reference_values(res)
    assert res["cochrans_q"]["df"] == 2 and 0 <= res["cochrans_q"]["pvalue"] <= 1
    assert len(res["pairwise"]) == 3
    check_statements(res)


@needs_mirror
def test_notebook_01_on_string_labels(run_notebook):
    res = run_notebook("01_mcnemar_cochran", dataset="urban_land_cover", n_trees=20, grid_max=8,
                       seed=2, test_size=0.4)
    assert res["dataset"] == "urban_land_cover"
    assert sum(map(sum, res["mcnemar_table"])) == res["n_test"] == 270  # 675 rows, 40 % held out
    check_mcnemar_on_the_run(res)
    check_accuracy_section(res)


@pytest.mark.runs_notebook("solutions/01_mcnemar_cochran")
def test_solutions_01(notebook_defaults):
    """The solutions notebook: answers checked against the binomial and chi-square formulas."""
    res = notebook_defaults
    p = res["ex1_pvalues"]
    assert p["exact"] == pytest.approx(0.0625) and p["midp"] == pytest.approx(0.03125)
    assert p["chi2"] == pytest.approx(stats.chi2.sf(5.0, 1))
    assert p["chi2_corrected"] == pytest.approx(stats.chi2.sf(3.2, 1))
    assert res["ex1_reject"] == {"exact": False, "midp": True, "chi2": True, "chi2_corrected": False}
    assert res["ex2_smallest_b"] == 6  # 2 * 0.5**6 = 0.031 <= 0.05 < 2 * 0.5**5
    ex3 = res["ex3"]
    assert ex3["100"]["exact_pvalue"] == ex3["10000"]["exact_pvalue"]
    assert ex3["100"]["accuracy_difference"] == pytest.approx(10 / 112)
    assert ex3["10000"]["accuracy_difference"] == pytest.approx(10 / 10012)
    assert res["ex5_pvalue"] == pytest.approx(stats.binomtest(183, 190, 0.95, alternative="greater").pvalue)
    n = res["ex5_needed_n"]
    assert stats.binomtest(round(n * 183 / 190), n, 0.95, alternative="greater").pvalue <= 0.05
    assert stats.binomtest(round((n - 50) * 183 / 190), n - 50, 0.95, alternative="greater").pvalue > 0.05
    assert res["ex4_n_test"] == 89 and res["ex4_cochran_q"]["df"] == 2  # wine: 178 rows, half held out
    check_solution_ex4(res)


def check_statements(res):
    """Every number the generated sentences state, formatted again from results.json."""
    s = res["statements"]
    acc, p = res["accuracy"], res["mcnemar_pvalues"]["exact"]
    q, pairs = res["cochrans_q"], res["pairwise"]
    n_reject = sum(bool(r) for r in pairs["reject"].values()) if isinstance(pairs, dict) else sum(
        bool(r["reject"]) for r in pairs)
    assert_states(s["conclusion"], [
        res["n_test"], *(f"{v:.3f}" for v in acc.values()), res["discordant"]["b"], res["discordant"]["c"],
        f"{p:.4f}", 5, f"{q['statistic']:.3f}", f"{q['df']:.0f}", f"{q['pvalue']:.4f}", n_reject, 3,
    ], ignore=[res["dataset"]])
    assert ("differ at the 5 %" in s["conclusion"]) == (p <= 0.05)
    t1 = {r["correlation"]: r for r in res["proportions_type1"]}
    mc_max = max(r["mcnemar_exact"] for r in t1.values())
    assert_states(s["test_sets"], [f"{mc_max:.1%}", f"{t1[0.8]['proportions_z']:.1%}", "0.8", 5,
                                   f"{t1[-0.2]['proportions_z']:.1%}", "-0.2"])
    assert ("conservative" in s["test_sets"]) == (t1[0.8]["proportions_z"] < 0.05)
    ts = {(r["errors"], r["n_test"]): r for r in res["training_sets"]}
    pos, unc = ts[("positively correlated", 100)], ts[("uncorrelated", 1000)]
    unc_small = ts[("uncorrelated", 100)]
    assert_states(s["training_sets"], [f"{pos['error_correlation']:.2f}", 100, f"{pos['proportions_z']:.1%}", 5,
                                       1000, f"{unc['proportions_z']:.1%}", 5, f"{unc['mcnemar_exact']:.1%}",
                                       f"{unc_small['mcnemar_exact']:.1%}", 100, f"{unc['mcnemar_exact']:.1%}", 1000])
    assert ("too-liberal" in s["training_sets"]) == (unc["proportions_z"] > 0.05)
    d, dev = res["disagreement_small_n"], res["deviation_range"]
    corrected = max(abs(dev["chi2_corrected"]["min"]), abs(dev["chi2_corrected"]["max"]))
    assert_states(s["heatmaps"], [
        25, f"{d['chi2']:.1%}", f"{-dev['chi2']['min']:.2f}", f"{-dev['midp']['min']:.2f}", f"{d['midp']:.1%}",
        f"{corrected:.3f}", f"{dev['chi2_corrected']['share_above']:.0%}", f"{d['chi2_corrected']:.1%}"])
    # the directions the heat-map sentence states: chi2 and mid-p never more conservative than exact
    assert dev["midp"]["max"] <= 1e-12 and dev["chi2"]["min"] < 0 and dev["midp"]["min"] < 0
    above = dev["chi2_corrected"]["share_above"]
    assert ("slightly more conservative" in s["heatmaps"]) == (above > 0.5)


def check_solution_ex4(res):
    """Exercise 4's sentence: the numbers it states; no "nan" for pairs that cannot reject."""
    pairs = res["ex4_pairs"]
    rows = pairs if isinstance(pairs, list) else [dict(zip(pairs, v)) for v in zip(*[
        list(col.values()) for col in pairs.values()])]
    detect = [r["smallest_detectable_difference"] for r in rows]
    finite = [x for x in detect if x is not None and x == x]
    q = res["ex4_cochran_q"]
    text = res["ex4_sentence"]
    assert "nan" not in text
    hopeless = len(rows) - len(finite)
    labels = text[text.index("labels ") + 7:text.index("):")]
    expected = [res["ex4_n_test"], f"{q['statistic']:.2f}", f"{q['pvalue']:.3g}",
                sum(bool(r["reject"]) for r in rows), len(rows)]
    expected += [hopeless, len(rows)] if hopeless else []
    expected += [f"{min(finite):.1%}"] if finite else []
    assert_states(text, expected, ignore=[res["dataset"], labels])
    # every pair with at most five discordant items cannot reject: 2 * 0.5**5 = 0.0625 > 0.05
    for r in rows:
        assert (r["discordant"] <= 5) == (r["smallest_detectable_difference"] is None
                                         or r["smallest_detectable_difference"] != r["smallest_detectable_difference"])
