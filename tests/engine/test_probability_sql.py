"""The probabilities' SQL text (precmp_lib/engine/probability_sql.py): fixed names and numbers only.

Every query reads the fixed role names of ``roles_sql`` (``k_y``, ``k_s0`` ...); numbers are
written as DOUBLE literals, which DuckDB and Spark both read as doubles (Spark reads ``0.5`` as a
DECIMAL and rounds its quotients). The queries' results are checked against numpy in
tests/engine/test_probabilities.py.
"""

from __future__ import annotations

import duckdb
import pytest

from precmp_lib.engine.probability_sql import (
    proba_base_sql,
    proba_bins_sql,
    proba_check_sql,
    proba_patterns_sql,
    proba_places_sql,
    proba_rows_sql,
    proba_sums_sql,
)


def test_queries_hold_no_name_of_the_source():
    sql = proba_rows_sql(2, 1e-15, ["h_a", "h_b"], losses=True, clustered=True)
    assert "b.c AS c" in sql and "JOIN h_a h0" in sql and "JOIN h_b h1" in sql
    assert "k_c AS c" in proba_base_sql(2, "roles", "MAX", True)
    places = proba_places_sql(0, 3, 4)
    assert "0.5 " not in places and "5.00000000000000000e-01" in places  # DOUBLE, not DECIMAL
    with pytest.raises(ValueError, match="positive must be 'MIN' or 'MAX'"):
        proba_base_sql(1, "roles", "max'; --", False)
    # the tables joined are the engine's own names; anything else is refused, never written
    with pytest.raises(ValueError, match="not a table name of the engine's own"):
        proba_rows_sql(1, 1e-15, ["h; DROP TABLE roles"], losses=False, clustered=False)
    with pytest.raises(ValueError, match="not a table name"):
        proba_bins_sql(['"x"'], [0.0], [1.0])


def test_placements_of_a_tiny_table():
    con = duckdb.connect()
    con.execute("CREATE TABLE roles AS SELECT * FROM (VALUES ('b', 0.9), ('b', 0.4), "
                "('a', 0.4), ('a', 0.1)) t(k_y, k_s0)")
    # one row per class, in the engine's order: rows, missing truth, bad scores, range
    assert con.sql(proba_check_sql(1)).fetchall() == [("a", 2, 0, 0, 0.1, 0.4),
                                                      ("b", 2, 0, 0, 0.4, 0.9)]
    con.execute(f"CREATE VIEW pb AS {proba_base_sql(1, 'roles', 'MAX', False)}")
    assert [r[0] for r in con.sql("SELECT y FROM pb").fetchall()] == [1, 1, 0, 0]
    con.execute(f"CREATE TABLE h0 AS {proba_places_sql(0, 2, 2)}")
    # distinct scores: 0.1 (one negative), 0.4 (a tie), 0.9 (one positive)
    assert con.sql("SELECT s, p, q, pos, neg FROM h0 ORDER BY s").fetchall() == [
        (0.1, 0, 1, 0.25, 1.0), (0.4, 1, 1, 0.75, 0.75), (0.9, 1, 0, 1.0, 0.25)]
    rows = proba_rows_sql(1, 1e-15, ["h0"], losses=False, clustered=False)
    sums = con.sql(f"WITH pr AS ({rows}) {proba_sums_sql(1, False)}").fetchall()
    # positives: 1 and 0.75 (the tie with a negative counts one half); negatives: 0.75 and 1
    assert sums == [(0, 2, 1.75, 0.75 ** 2 + 1), (1, 2, 1.75, 1 + 0.75 ** 2)]
    # ROC bins of width 0.8 / 4 from 0.1; tenths of the probability
    bins = con.sql(f"{proba_bins_sql(['h0'], [0.1], [0.9], bins=4)} ORDER BY rbin").fetchall()
    assert bins == [(0, 0.0, 1.0, 0, 1, 0.1), (0, 1.0, 4.0, 1, 1, 0.8),
                    (0, 4.0, 9.0, 1, 0, 0.9)]
    pat = con.sql(f"{proba_patterns_sql(1, 0.5)} ORDER BY y, p0").fetchall()
    assert pat == [(0, 0, 2), (1, 0, 1), (1, 1, 1)]
