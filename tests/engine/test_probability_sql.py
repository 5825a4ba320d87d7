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
    proba_check_sql,
    proba_classes_sql,
    proba_rows_sql,
    proba_sums_sql,
)


def test_queries_hold_no_name_of_the_source():
    sql = proba_rows_sql(2, 3, 4, "MAX", 1e-15, losses=True, clustered=True)
    assert "k_y" in sql and "k_s1" in sql and "k_c" in sql
    assert "0.5 " not in sql and "5.00000000000000000e-01" in sql  # DOUBLE, not DECIMAL
    with pytest.raises(ValueError, match="positive must be 'MIN' or 'MAX'"):
        proba_rows_sql(1, 3, 4, "max'; --", 1e-15, losses=False, clustered=False)


def test_placements_of_a_tiny_table():
    con = duckdb.connect()
    con.execute("CREATE TABLE roles AS SELECT * FROM (VALUES ('b', 0.9), ('b', 0.4), "
                "('a', 0.4), ('a', 0.1)) t(k_y, k_s0)")
    assert con.sql(proba_classes_sql()).fetchall() == [("a", 2), ("b", 2)]
    n, ny, bad, lo, hi = con.sql(proba_check_sql(1)).fetchone()
    assert (n, ny, bad, lo, hi) == (4, 0, 0, 0.1, 0.9)
    assert [r[0] for r in con.sql(proba_base_sql(1, "roles", "MAX", False)).fetchall()] == [1, 1, 0, 0]
    rows = proba_rows_sql(1, 2, 2, "MAX", 1e-15, losses=False, clustered=False)
    sums = con.sql(f"WITH pr AS ({rows}) {proba_sums_sql(1, False)}").fetchall()
    # positives: 1 and 0.75 (the tie with a negative counts one half); negatives: 0.75 and 1
    assert sums == [(0, 2, 1.75, 0.75 ** 2 + 1), (1, 2, 1.75, 1 + 0.75 ** 2)]
