"""What qualifies an item comparison reaches the page whole: t with few clusters, the notes
beside their rows, p-values far below 1e-10.

Reference values: statsmodels' cluster-robust OLS (CR1 standard error) with scipy's Student t
of C - 1 degrees of freedom, scipy's exact binomial test, scipy's chi-square tail, and a
simulation of null benchmarks run in the test.
"""

from __future__ import annotations

import io
import json
import re
import urllib.parse

import numpy as np
import pandas as pd
import pytest
from conftest import cr1_se
from scipy import stats

from precmp_lib import compare_items
from precmp_lib.report.html import esc
from precmp_lib.report.item_sections import item_sections
from precmp_lib.stats.paired import PairedSums, paired_difference_from_sums


def _continuous_items(seed: int, clusters: int = 12, size: int = 8, shift: float = 0.15) -> pd.DataFrame:
    """Two models' scores in [0, 10] (a judge's scale) on ``clusters`` passages of ``size`` items."""
    rng = np.random.default_rng(seed)
    n = clusters * size
    passage = np.repeat(np.arange(clusters), size)
    u = rng.normal(0, 0.6, clusters)[passage]
    a = np.clip(6 + u + rng.normal(0, 1.2, n) + shift, 0, 10).round(2)
    b = np.clip(6 + u + rng.normal(0, 0.5, clusters)[passage] + rng.normal(0, 1.2, n), 0, 10).round(2)
    return pd.DataFrame({"item": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
                         "score": np.concatenate([a, b]), "passage": np.tile(passage, 2)})


def _rows_with(page: str, *texts: str) -> list[str]:
    """The table rows of ``page`` that hold every text (escaped as the page escapes it)."""
    rows = [r for r in re.findall(r"<tr>.*?</tr>", page, flags=re.S)
            if all(esc(t) in r for t in texts)]
    assert rows, texts
    return rows


def test_continuous_scores_on_12_clusters_use_t_with_11_df_as_statsmodels_and_scipy_do():
    sm = pytest.importorskip("statsmodels.api")
    frame = _continuous_items(seed=11)
    cmp = compare_items(frame, cluster="passage")
    row = cmp.pairs.iloc[0]
    wide = frame.pivot(index="item", columns="model", values="score")
    groups = frame.drop_duplicates("item").set_index("item").loc[wide.index, "passage"]
    d = (wide[row.model_a] - wide[row.model_b]).to_numpy(float)
    fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": groups.to_numpy()})
    se, t = float(fit.bse[0]), float(fit.params[0] / fit.bse[0])
    assert row.se == pytest.approx(se, rel=1e-10)
    assert row.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 11), rel=1e-10)
    q = stats.t.isf(0.025, 11)
    assert row.ci_low == pytest.approx(d.mean() - q * se, rel=1e-10)
    assert row.ci_high == pytest.approx(d.mean() + q * se, rel=1e-10)
    # z would give a smaller p: the reference really changed
    assert row.pvalue > 2 * stats.norm.sf(abs(t))
    assert row.test == "paired difference, CR1 t (11 df)"
    assert "t with C−1 = 11 df" in row.note
    # each model's own interval takes the same t
    s = cmp.summary.set_index("model").loc["a"]
    assert s.ci_high - s.score == pytest.approx(q * s.se, rel=1e-10)
    # stated on the page beside the pair's row
    assert _rows_with(item_sections(cmp), row.model_a, row.model_b, f"{row.estimate:.4f}",
                      "t with C−1 = 11 df")
    # 50 clusters and more: z, no note
    wide50 = compare_items(_continuous_items(seed=11, clusters=50), cluster="passage").pairs.iloc[0]
    assert wide50.test == "paired difference, CR1 z" and wide50.note == ""


def _tost_by_hand(frame: pd.DataFrame, a: str, b: str, margin: float, df: int | None) -> float:
    """Schuirmann's two one-sided tests of a − b over statsmodels' CR1 standard error, with
    scipy's t on ``df`` degrees of freedom (or the normal when ``df`` is None)."""
    wide = frame.pivot(index="item", columns="model", values="score")
    groups = frame.drop_duplicates("item").set_index("item").loc[wide.index, "passage"]
    d = (wide[a] - wide[b]).to_numpy(float)
    se = cr1_se(d, groups.to_numpy())
    tail = stats.norm if df is None else stats.t(df)
    return max(tail.sf((d.mean() + margin) / se), tail.cdf((d.mean() - margin) / se))


def test_equivalence_on_12_clusters_takes_both_one_sided_tails_from_t_with_11_df():
    """TOST beside a t-tested pair refers to the same t (before: z, which shows equivalence too
    often at few clusters, as the two-sided test rejected too often)."""
    margin = 0.5
    for clusters, df in ((12, 11), (50, None)):  # 50 clusters: z, as the pair's own test
        frame = _continuous_items(seed=11, clusters=clusters)
        row = compare_items(frame, cluster="passage", margin=margin).pairs.iloc[0]
        want = _tost_by_hand(frame, row.model_a, row.model_b, margin, df)
        assert row.tost_pvalue == pytest.approx(want, rel=1e-10)
        if df is not None:  # the reference really changed
            assert row.tost_pvalue > _tost_by_hand(frame, row.model_a, row.model_b, margin, None)


def test_at_12_clusters_t_holds_its_size_where_z_rejects_too_often():
    """2,000 null benchmarks (no difference between the models) of 12 passages of 6 items."""
    rng = np.random.default_rng(2024)
    reps, clusters, size = 2000, 12, 6
    passage = np.repeat(np.arange(clusters), size)
    z_rejects = t_rejects = 0
    for _ in range(reps):
        shared = rng.normal(0, 1, clusters)[passage]
        a = 5 + shared + rng.normal(0, 0.7, clusters)[passage] + rng.normal(0, 1, passage.size)
        b = 5 + shared + rng.normal(0, 0.7, clusters)[passage] + rng.normal(0, 1, passage.size)
        sums = PairedSums.from_scores(a, b, passage)
        z_rejects += paired_difference_from_sums(sums).pvalue < 0.05
        t_rejects += paired_difference_from_sums(sums, df=clusters - 1).pvalue < 0.05
    mc = np.sqrt(0.05 * 0.95 / reps)  # Monte Carlo standard error of a rate of 0.05: 0.0049
    assert abs(t_rejects / reps - 0.05) < 3 * mc, t_rejects / reps
    # z: P(|t_11| > 1.96) = 0.076 for these equal clusters; above 0.05 by more than 3 MC SEs
    assert z_rejects / reps > 0.05 + 3 * mc, z_rejects / reps


def test_few_discordant_items_put_the_exact_p_beside_the_chi_square_on_the_page():
    # 200 independent items; a right only on 8, b right only on 2
    a = np.r_[np.ones(8), np.zeros(2), np.ones(120), np.zeros(70)]
    b = np.r_[np.zeros(8), np.ones(2), np.ones(120), np.zeros(70)]
    frame = pd.DataFrame({"item": np.tile(np.arange(200), 2), "model": np.repeat(["a", "b"], 200),
                          "score": np.r_[a, b].astype(int)})
    cmp = compare_items(frame)
    row = cmp.pairs.iloc[0]
    exact = stats.binomtest(2, 10, 0.5).pvalue  # 0.109
    assert row.pvalue == pytest.approx(stats.chi2.sf(36 / 10, 1), rel=1e-12)  # 0.058
    assert row.note == ("only 10 discordant items: the χ² p-value is asymptotic and poor here; "
                        f"the exact test gives p = {exact:.3g}")
    assert f"p = {exact:.3g}" == "p = 0.109"
    assert _rows_with(item_sections(cmp), "a", "b", "0.0300", row.note)


def test_fewer_than_20_clusters_are_noted_beside_the_clustered_mcnemar_row():
    rng = np.random.default_rng(5)
    n = 12 * 10
    frame = pd.DataFrame({"item": np.tile(np.arange(n), 2), "model": np.repeat(["a", "b"], n),
                          "score": (rng.random(2 * n) < np.repeat([0.8, 0.6], n)).astype(int),
                          "passage": np.tile(np.arange(n) // 10, 2)})
    cmp = compare_items(frame, cluster="passage")
    row = cmp.pairs.iloc[0]
    assert row.test == "Obuchowski clustered McNemar"
    assert row.note.startswith("only 12 clusters: a variance estimated from so few clusters")
    assert _rows_with(item_sections(cmp), row.model_a, row.model_b, f"{row.estimate:.4f}", row.note)
    # 20 clusters: no note, and no empty note column on the page
    wide = frame.assign(passage=np.tile(np.arange(n) // 6, 2))
    cmp20 = compare_items(wide, cluster="passage")
    assert cmp20.pairs.note.tolist() == [""]
    assert ">note</th>" not in item_sections(cmp20)


def _csv_from_page(page: str, name: str) -> pd.DataFrame:
    """The CSV a download link of the page holds (a percent-encoded data: URI)."""
    href = re.search(r'download="' + re.escape(name) + r'" href="data:text/csv;charset=utf-8,([^"]*)"',
                     page)
    assert href is not None, name
    return pd.read_csv(io.StringIO(urllib.parse.unquote(href.group(1))))


def test_a_p_value_of_3e_14_keeps_its_value_in_json_page_and_csv(tmp_path):
    from precmp_lib.cli import main

    # 400 independent items; a right only on 72, b only on 5: McNemar's chi-square 67²/77
    a = np.r_[np.ones(72), np.zeros(5), np.ones(200), np.zeros(123)]
    b = np.r_[np.zeros(72), np.ones(5), np.ones(200), np.zeros(123)]
    frame = pd.DataFrame({"item": np.tile(np.arange(400), 2), "model": np.repeat(["a", "b"], 400),
                          "score": np.r_[a, b].astype(int)})
    frame.to_csv(tmp_path / "items.csv", index=False)
    p = compare_items(frame).pairs.iloc[0].pvalue
    assert p == pytest.approx(stats.chi2.sf(67**2 / 77, 1), rel=1e-10)
    assert 1e-14 < p < 1e-13
    assert main(["report", str(tmp_path / "items.csv"), "--item", "item", "--quiet",
                 "--out", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")]) == 0
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    pair = written["pairs"]["records"][0]
    assert pair["pvalue"] == pytest.approx(p, rel=1e-9)
    assert pair["pvalue_adjusted"] == pytest.approx(p, rel=1e-9)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    cells = [c for row in _rows_with(page, "a", "b", "0.1675")
             for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
    assert "&lt; 0.0001" in cells and not {"0", "0.0", "0.0000"} & set(cells)
    names = re.findall(r'download="(pairs_\d+\.csv)"', page)
    assert names
    csv = _csv_from_page(page, names[0])
    assert csv["pvalue"].iloc[0] == pytest.approx(p, rel=1e-9)
    assert csv["pvalue_adjusted"].iloc[0] == pytest.approx(p, rel=1e-9)
