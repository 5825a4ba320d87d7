"""Contract of notebooks/11_paper_replication.ipynb: tiny forests, check results.json.

The notebook's run at its defaults is nbval's: the run here starts the seed-spread explorer on
Urban Land Cover's string labels, which the defaults (diabetic_retinopathy) do not show, and a
run at the defaults would cost as much again. The solutions notebook is checked on its one run
at its defaults.

Only numbers that do not depend on the forests' randomness are compared with references: the
row counts of the UCI files, naive Bayes on the author's split, the (deterministic) SVM, and the
prevalence update of naive Bayes.
"""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import needs_mirror
from stated import assert_states

from precmp_lib.course.paper import printed_values

pytestmark = [pytest.mark.notebook, needs_mirror]

TABLE5_ROWS = [
    ("wilt", "n"), ("wilt", "w"), ("diabetic_retinopathy", 0), ("diabetic_retinopathy", 1),
    ("phishing", -1), ("phishing", 1), ("banknote", 0), ("banknote", 1), ("magic", "g"),
    ("magic", "h"), ("urban_land_cover", "asphalt"), ("urban_land_cover", "building"),
    ("urban_land_cover", "car"), ("urban_land_cover", "concrete"), ("urban_land_cover", "grass"),
    ("urban_land_cover", "pool"), ("urban_land_cover", "shadow"), ("urban_land_cover", "soil"),
    ("urban_land_cover", "tree"),
]


def test_notebook_11_contract(run_notebook):
    results = run_notebook(
        "11_paper_replication", n_trees=10, cv_trees=5, n_permutations=50, n_bootstrap=50,
        n_simulations=50, replicability_repeats=3, n_seeds=3, spread_trees=3,
        spread_permutations=20, dataset="urban_land_cover",
    )
    _check_table5_structure(results)
    _check_naive_bayes_precisions_are_the_papers(results)
    _check_table4_counts_the_files(results)
    _check_table8_svm_and_the_undefined_wald_test(results)
    _check_table10_naive_bayes_update(results)
    _check_other_tables_have_their_keys(results)
    _check_seed_spread(results)
    _check_statements(results)


def _printed(table: int, quantity: str) -> dict[tuple[str, str], float]:
    pv = printed_values(table)
    pv = pv[pv["quantity"] == quantity]
    return dict(zip(zip(pv["dataset"], pv["class"]), pv["value"]))


def _check_table5_structure(results):
    t5 = pd.DataFrame(results["table5"])
    assert list(t5.columns[:6]) == ["dataset", "class", "precision_nb", "precision_rf",
                                    "gs_pvalue", "gw_pvalue"]
    assert list(zip(t5["dataset"], t5["class"])) == TABLE5_ROWS  # labels as in the data
    assert t5[["precision_nb", "precision_rf"]].stack().between(0, 1).all()
    assert t5["gs_pvalue"].between(0, 1).all()
    agreement = results["table5_agreement"]
    assert agreement["n_rows"] == 19 and 0 <= agreement["share_both"] <= 1
    assert agreement["share_both"] <= min(agreement["share_precisions_within_0.05"],
                                          agreement["share_gs_decision_agrees"])


def _check_naive_bayes_precisions_are_the_papers(results):
    t5 = pd.DataFrame(results["table5"])
    # docs/methods.md §6.6(d): e1071 naive Bayes on the R split, 148/275 (class 0) and 54/71 (class 1)
    diab = t5[t5["dataset"] == "diabetic_retinopathy"].set_index("class")
    assert diab.loc[0, "precision_nb"] == pytest.approx(148 / 275)
    assert diab.loc[1, "precision_nb"] == pytest.approx(54 / 71)
    assert (diab.loc[0, "n_pred_nb"], diab.loc[1, "n_pred_nb"]) == (275, 71)
    # Table 5: every naive Bayes precision within rounding (0.005) plus 0.001 of the print
    printed = _printed(5, "precision_nb")
    for row in results["table5"]:
        assert row["precision_nb"] == pytest.approx(printed[(row["dataset"], str(row["class"]))],
                                                    abs=0.006), row


def _check_table4_counts_the_files(results):
    t4 = {row["dataset"]: row for row in results["table4"]}
    # data/uci/README.md: 4339 + 500 Wilt rows (Table 4 prints 4889); 11055 Phishing rows (2456)
    assert t4["wilt"]["instances"] == 4839 and t4["phishing"]["instances"] == 11055
    assert t4["urban_land_cover"]["attributes"] == 148 and t4["urban_land_cover"]["classes"] == 9
    assert results["splits"]["diabetic_retinopathy"] == "R sample, seed 123 (805 train / 346 test)"


def _check_table8_svm_and_the_undefined_wald_test(results):
    t8 = {(row["dataset"], str(row["class"])): row for row in results["table8"]}
    # Table 8 prints SVM precisions 0.68, 1.0, 0.63, 0.72; the SVM is deterministic
    for key, value in _printed(8, "precision_svm").items():
        assert t8[key]["precision_svm"] == pytest.approx(value, abs=0.006), key
    # precision 1.0 -> no GEE Wald test (docs/methods.md §12 item 12): null in results.json
    assert t8[("wilt", "w")]["precision_svm"] == 1.0 and t8[("wilt", "w")]["pvalue"] is None
    assert 0 <= t8[("wilt", "w")]["defined_models_pvalue"] <= 1
    assert t8[("wilt", "n")]["df"] == 3


def _check_table10_naive_bayes_update(results):
    t10 = {(row["model"], row["class"]): row for row in results["table10"]}
    # docs/methods.md §9 worked example 2: NB-0 0.3540, NB-1 0.8711 (Table 10 prints 0.35, 0.87)
    assert t10[("NB", 0)]["precision_updated"] == pytest.approx(0.3540, abs=5e-5)
    assert t10[("NB", 1)]["precision_updated"] == pytest.approx(0.8711, abs=5e-5)
    assert t10[("NB", 0)]["prevalence"] == 0.3


def _check_other_tables_have_their_keys(results):
    assert {(r["dataset"], str(r["class"])) for r in results["table6"]} == {
        (d, str(c)) for d, c in TABLE5_ROWS}
    t7 = pd.DataFrame(results["table7"])
    assert t7["dataset"].unique().tolist() == ["wilt", "diabetic_retinopathy", "phishing",
                                               "banknote", "magic"]
    assert t7.groupby("dataset")["combined_pvalue"].nunique().eq(1).all()
    t9 = pd.DataFrame(results["table9"])
    assert {"RF1 vs NB", "SVM vs NB", "RF2 vs NB"} <= set(t9["comparison"])
    t11 = pd.DataFrame(results["table11"])
    assert set(t11["cv"]) == {"10-fold", "10x10-fold", "10-fold reused 10 times"}
    reused = t11.pivot(index="class", columns="cv", values="statistic")
    assert reused["10-fold"].tolist() == pytest.approx(reused["10-fold reused 10 times"].tolist())
    assert {r["method"] for r in results["figure1"]} == {"gs", "naive_z"}
    assert all(0 <= r["replicability"] <= 1 for r in results["figure3"])
    assert set(results["printed_digit_reproduced_by_table"]) == {str(k) for k in range(4, 12)}


@pytest.mark.runs_notebook("solutions/11_paper_replication")
def test_solutions_11(notebook_defaults):
    res = notebook_defaults
    random = {r["quantity"]: r["random in the reruns"] for r in res["ex1"]}
    assert random["precision_nb"] == 0  # naive Bayes on a fixed split draws no random numbers
    assert res["ex2"]["r"] > res["ex2"]["sklearn"]  # the printed digits need the author's split
    assert {r["class"] for r in res["ex4"]} == {"asphalt", "building", "car", "concrete", "grass",
                                               "pool", "shadow", "soil", "tree"}


def _check_seed_spread(results):
    spread = results["seed_spread"]
    numbers = pd.DataFrame(spread["numbers"])
    assert spread["n_seeds"] == 3 and len(numbers) == len(printed_values())
    counts = pd.DataFrame(spread["counts"]).set_index("table")
    assert counts["printed numbers"].sum() == len(numbers)
    # naive Bayes on the author's split and the SVM are deterministic: the same in every rerun,
    # and reproduced to the printed digit, or not with a reason (data/paper_tables.csv's notes)
    fixed = numbers[numbers["quantity"].isin(["precision_nb", "precision_svm"])]
    assert not fixed["random"].any()
    assert set(fixed["verdict"]) <= {"reproduced", "not reproduced"}
    assert (fixed["verdict"] == "reproduced").mean() > 0.9
    # the forests are random
    assert numbers.loc[numbers["quantity"] == "precision_rf", "random"].all()
    unexplained = numbers[numbers["verdict"].isin(["not reproduced", "undefined"])
                          & (numbers["reason"] == "")]
    assert unexplained.empty, unexplained
    # Table 4: every count but the three noted ones (Wilt's and Phishing's rows, Phishing's columns)
    t4 = numbers[numbers["table"] == 4]
    assert (t4["verdict"] == "not reproduced").sum() == 3
    # the explorer starts on the dataset parameter: Urban land cover's nine string-labelled classes
    start = pd.DataFrame(results["widget_start"])
    assert set(start["class"]) == {c for d, c in TABLE5_ROWS if d == "urban_land_cover"}
    assert set(start["quantity"]) == {"precision_nb", "precision_rf", "gs_pvalue", "gw_pvalue"}


def _check_statements(results):
    """Every sentence the notebook wrote states the numbers of results.json, formatted again here,
    and no other number; its direction words follow the same numbers."""
    said = results["statements"]
    assert set(said) == {"naive_bayes", "phishing", "slips", "table10_natural_labels", "table11",
                         "seed_spread", "closing"}
    _check_naive_bayes_sentence(results, said["naive_bayes"])
    _check_phishing_sentence(results, said["phishing"])
    _check_slips_sentence(results, said["slips"])
    _check_natural_labels_sentence(results, said["table10_natural_labels"])
    _check_table11_sentence(results, said["table11"])
    _check_seed_spread_sentence(results, said["seed_spread"])
    _check_closing_sentence(results, said["closing"])


def _check_naive_bayes_sentence(results, text):
    printed = _printed(5, "precision_nb")
    diff = [abs(r["precision_nb"] - printed[(r["dataset"], str(r["class"]))]) for r in results["table5"]]
    smallest = min(results["n_train"], key=results["n_train"].get)
    assert smallest in text
    differs = results["gs_decision_differs"]
    expected = [5, f"{max(diff):.4f}", sum(d <= 0.005 for d in diff), len(diff),
                results["n_train"][smallest], 5, *(r["class"] for r in differs)]
    assert_states(text, expected)
    assert ("is the printed one in every row" in text) == (not differs)


def _check_phishing_sentence(results, text):
    ours = {r["class"]: r["precision_nb"] for r in results["phishing_gaussian_nb_precision"]}
    far = all(abs(ours[k] - v) > 0.05 for k, v in {-1: 0.95, 1: 0.92}.items())  # Table 5, NB, Phishing
    expected = [f"{ours[-1]:.2f}", -1, f"{ours[1]:.2f}", 1, "0.95", "0.92"]
    expected += [results["phishing_rows"], 4, 2456] if far else ["0.05"]
    assert_states(text, expected)
    assert ("far from both" in text) == far
    t4 = {row["dataset"]: row for row in results["table4"]}
    assert results["phishing_rows"] == t4["phishing"]["instances"]


def _check_slips_sentence(results, text):
    diab0 = next(r for r in results["table5"]
                 if r["dataset"] == "diabetic_retinopathy" and r["class"] == 0)
    wilt_w = next(r for r in results["table8"] if r["dataset"] == "wilt" and r["class"] == "w")
    expected = [0, f"{diab0['gs_pvalue']:.2g}", f"{wilt_w['precision_svm']:.3f}",
                f"{wilt_w['defined_models_pvalue']:.3g}"]
    if wilt_w["pvalue"] is not None:
        expected.append(f"{wilt_w['pvalue']:.3g}")
    assert_states(text, expected)
    assert ("joint Wald test undefined" in text) == (wilt_w["pvalue"] is None)


def _check_natural_labels_sentence(results, text):
    natural = [r for r in results["table10_natural_labels"] if r["model"] == "NB"]
    assert {r["class"]: r["prevalence"] for r in natural} == {0: 0.7, 1: 0.3}
    paper_prev = {r["class"]: r["precision_updated"] for r in results["table10"] if r["model"] == "NB"}
    expected = []
    for r in natural:
        expected += [r["class"], f"{r['precision_old']:.3f}", f"{r['precision_updated']:.3f}",
                     f"{paper_prev[r['class']]:.3f}"]
        way = "up" if r["precision_updated"] > r["precision_old"] else "down"
        assert f"{r['precision_updated']:.3f} ({way}," in text
    assert_states(text, expected)


def _check_table11_sentence(results, text):
    ours = {r["class"]: r["statistic"] for r in results["table11"] if r["cv"] == "10-fold"}
    assert_states(text, [10, 0, f"{ours[0]:.2f}", 1, f"{ours[1]:.2f}", 0])  # "class 0's is ..."
    assert ("class 0's is the larger" in text) == (ours[0] > ours[1])


def _check_seed_spread_sentence(results, text):
    spread = results["seed_spread"]
    total = pd.DataFrame(spread["counts"]).drop(columns="table").sum()
    expected = [spread["n_seeds"], spread["n_trees"]]
    expected += [int(total[k]) for k in ("printed numbers", "inside range", "outside range",
                                         "reproduced", "not reproduced", "undefined")]
    assert_states(text, expected)


def _check_closing_sentence(results, text):
    agreement = results["table5_agreement"]
    expected = [5, agreement["n_rows"], f"{agreement['share_precisions_within_0.05']:.0%}", "0.05",
                f"{agreement['share_gs_decision_agrees']:.0%}", 5, f"{agreement['share_both']:.0%}",
                agreement["n_agree"], *(r["class"] for r in agreement["rows_not_agreeing"])]
    for table, share in results["printed_digit_reproduced_by_table"].items():
        expected += [table, f"{share:.0%}"]
    expected.append(results["settings"]["n_trees"])
    differs = results["gs_decision_differs"]
    expected += [5, len(differs), agreement["n_rows"]] if differs else [5]
    assert_states(text, expected)
    assert ("all stay as printed" in text) == (not differs)
    assert all(r["dataset"] in text for r in differs)
