"""Every pair at once from the sums matrices against the per-pair functions, on every engine.

Reference values: the library's per-pair functions (``mcnemar`` on each pair's 2 x 2 table
counted from the rows, ``clustered_mcnemar_from_sums`` and ``paired_difference_from_sums`` on
``PairedSums.from_scores`` of each pair's item scores, ``adjust_pvalues`` on the loop's
p-values), which the rest of the test suite checks against statsmodels and worked examples.
Counts must agree exactly, statistics within 1e-12 (relative).
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from precmp_lib.compare.items import _pair_row, _pairs, _summary, _t_df, _use_mcnemar
from precmp_lib.engine.items import count_items
from precmp_lib.stats.allpairs import (
    clustered_mcnemar_all,
    discordant_counts,
    mcnemar_all,
    pair_index,
    paired_differences_all,
)
from precmp_lib.stats.contingency import mcnemar
from precmp_lib.stats.multiple import adjust_pvalues
from precmp_lib.stats.paired import (
    PairedSums,
    clustered_mcnemar_from_sums,
    paired_difference_from_sums,
)

RTOL = 1e-12


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=RTOL, atol=1e-300)


def _items(seed: int, models: int = 7, n: int = 90, binary: bool = True) -> pd.DataFrame:
    """Random 0/1 (or 0-1) scores of ``models`` models on ``n`` items in passages of 1 to 5."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.3, 0.9, models)
    passage = np.cumsum(rng.integers(0, 2, n) | (np.arange(n) == 0)) - 1  # runs of items
    frame = pd.DataFrame({"item": np.tile(np.arange(n), models),
                          "model": np.repeat([f"m{j}" for j in range(models)], n),
                          "passage": np.tile(passage, models)})
    p = np.repeat(skill, n)
    frame["score"] = ((rng.random(len(frame)) < p).astype(float) if binary
                      else np.round(rng.random(len(frame)) * p * 8) / 8)
    return frame


def _wide(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[str]]:
    wide = frame.pivot(index="item", columns="model", values="score")
    clusters = frame.drop_duplicates("item").set_index("item").loc[wide.index, "passage"]
    return wide.to_numpy(float), clusters.to_numpy(), [str(c) for c in wide.columns]


def _source(frame: pd.DataFrame, engine: str, tmp_path) -> object:
    if engine == "numpy":
        return frame
    path = tmp_path / "items.parquet"
    frame.to_parquet(path, index=False)
    return str(path)


ENGINES = ["numpy", "duckdb", "spark"]


def _check_engine(engine: str) -> None:
    if engine == "spark" and shutil.which("java") is None:
        pytest.fail("Spark tests need Java 17: apt-get install openjdk-17-jre-headless (or set "
                    "JAVA_HOME); they are part of `make test`")


@pytest.mark.parametrize("engine", ENGINES)
def test_mcnemar_of_every_pair_equals_the_per_pair_tables(engine, tmp_path):
    _check_engine(engine)
    frame = _items(seed=1)
    x, _, models = _wide(frame)
    [s] = count_items(_source(frame, engine, tmp_path), engine=engine)
    assert list(s.models) == models
    a, b = pair_index(len(models))
    only_a, only_b = discordant_counts(s.sums, s.item_gram, a, b)
    # B = X'(1 - X): exact counts, as the rows give them pair by pair
    expected_b = [float(np.sum(x[:, i] * (1 - x[:, j]))) for i, j in zip(a, b)]
    expected_c = [float(np.sum(x[:, j] * (1 - x[:, i]))) for i, j in zip(a, b)]
    assert only_a.tolist() == expected_b and only_b.tolist() == expected_c
    assert np.array_equal(x.T @ (1 - x), s.sums[:, None] - s.item_gram)
    for method in ("chi2", "chi2_corrected", "exact", "midp"):
        stat, p = mcnemar_all(only_a, only_b, method)
        loop = []
        for i, j in zip(a, b):
            ri, rj = x[:, i] == 1, x[:, j] == 1
            table = [[np.sum(ri & rj), np.sum(ri & ~rj)], [np.sum(~ri & rj), np.sum(~ri & ~rj)]]
            loop.append(mcnemar(table, method=method))
        _close(stat, [r.statistic for r in loop])
        _close(p, [r.pvalue for r in loop])
        _close(adjust_pvalues(p, "holm"), adjust_pvalues([r.pvalue for r in loop], "holm"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("clustered", [True, False])
def test_clustered_tests_of_every_pair_equal_the_per_pair_functions(engine, clustered, tmp_path):
    _check_engine(engine)
    frame = _items(seed=2, binary=True)
    x, clusters, models = _wide(frame)
    [s] = count_items(_source(frame, engine, tmp_path), engine=engine,
                      cluster="passage" if clustered else None)
    a, b = pair_index(len(models))
    stat, p = clustered_mcnemar_all(s, a, b)
    df = int(s.n_clusters) - 1 if clustered else None
    diff = paired_differences_all(s, a, b, confidence_level=0.9, df=df)
    loop_stat, loop_p, loop_diff = [], [], []
    for i, j in zip(a, b):
        ps = PairedSums.from_scores(x[:, i], x[:, j], clusters if clustered else None)
        d2 = ps.sum_s2 if clustered else float(np.sum((x[:, i] - x[:, j]) ** 2))
        res = clustered_mcnemar_from_sums(ps.sum_a - ps.sum_b, d2,
                                          ps.n_clusters if clustered else ps.n_items,
                                          n_items=ps.n_items)
        loop_stat.append(res.statistic)
        loop_p.append(res.pvalue)
        loop_diff.append(paired_difference_from_sums(ps, confidence_level=0.9, df=df))
    _close(stat, loop_stat)
    _close(p, loop_p)
    for name in ("estimate", "statistic", "pvalue", "ci_low", "ci_high"):
        _close(getattr(diff, name), [getattr(r, name) for r in loop_diff])
    for name in ("se", "design_effect", "correlation"):
        _close(getattr(diff, name), [r.details[name] for r in loop_diff])
    _close(adjust_pvalues(diff.pvalue, "holm"), adjust_pvalues([r.pvalue for r in loop_diff]))


@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("clustered", [True, False])
@pytest.mark.parametrize("against", [None, 3])
def test_the_pairs_table_equals_the_per_pair_rows(binary, clustered, against):
    frame = _items(seed=3, binary=binary, n=70)
    [s] = count_items(frame, cluster="passage" if clustered else None)
    chosen = _use_mcnemar(s, "auto")
    summary = _summary(s, 0.95, _t_df(s, chosen))
    table = _pairs(s, summary, "auto", 0.95, 0.05, 0.04, against)
    rank = summary["rank"].to_numpy()
    a, b = pair_index(s.n_models, against)
    rows = pd.DataFrame([_pair_row(s, *((j, i) if rank[j] < rank[i] else (i, j)), chosen, 0.95,
                                   0.05, 0.04) for i, j in zip(a, b)])
    assert len(table) == (s.n_models - 1 if against is not None else 21)
    for column in rows.columns:
        mine, theirs = table[column], rows[column]
        if pd.api.types.is_numeric_dtype(theirs) and theirs.dtype != bool:
            np.testing.assert_allclose(mine.to_numpy(float), theirs.to_numpy(float), rtol=RTOL,
                                       atol=1e-300, err_msg=column)
        else:
            assert mine.tolist() == theirs.tolist(), column
    _close(table["pvalue_adjusted"], adjust_pvalues(rows["pvalue"].to_numpy(float), "holm"))


def test_many_models_count_without_a_column_per_pair(tmp_path):
    """200 models x 300 items with passages through DuckDB: the query's width is not models²."""
    frame = _items(seed=4, models=200, n=300)
    path = tmp_path / "many.parquet"
    frame.to_parquet(path, index=False)
    [s] = count_items(str(path), cluster="passage", engine="duckdb")
    [ref] = count_items(frame, cluster="passage", engine="numpy")
    assert s.item_gram.shape == (200, 200)
    assert np.array_equal(s.item_gram, ref.item_gram)
    assert np.array_equal(s.cluster_gram, ref.cluster_gram)
