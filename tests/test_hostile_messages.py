"""Broken and odd files refused in one line that names the file (and line or column), alike on
numpy, DuckDB and Spark (local mode): columns that differ only in case, scores written with
digits other than ASCII, rows with a field too many or too few, text that is not UTF-8, damaged
archives; and the settings around them (the Spark session's authentication, the limits given
on the command line, outputs that would replace a log read as input).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from precmp_lib import count_items, count_predictions

ENGINES = ["numpy", "duckdb", "spark"]


def _refusal(call) -> str:
    """The one-line message of the ValueError ``call`` raises."""
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize("engine", ENGINES)
def test_parquet_columns_differing_only_in_case_are_refused_naming_both(tmp_path, engine):
    # before: numpy read both, DuckDB renamed the second to a_1, Spark failed COLUMN_ALREADY_EXISTS
    path = tmp_path / "cased.parquet"
    pq.write_table(pa.table({"y": ["1", "0"], "A": ["1", "0"], "a": ["0", "0"]}), path)
    message = _refusal(lambda: count_predictions(path, y_true="y", engine=engine))
    assert message.startswith("cased.parquet: columns 'A' and 'a' differ only in case"), message
    message = _refusal(lambda: count_items(path, item="y", score="A", model="a", engine=engine))
    assert message.startswith("cased.parquet: columns 'A' and 'a' differ only in case"), message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("score", ["\u0663", "\uff11"])
def test_a_score_in_digits_other_than_ascii_is_refused_by_every_engine(tmp_path, engine, score):
    # before: numpy read '٣' (ARABIC-INDIC DIGIT THREE) as 3.0, where DuckDB refused it
    path = tmp_path / "items.csv"
    path.write_text(f"item,model,score\n1,m1,1\n1,m2,0\n2,m1,{score}\n2,m2,1\n3,m1,0\n3,m2,1\n",
                    encoding="utf-8")
    message = _refusal(lambda: count_items(path, item="item", engine=engine))
    assert message.startswith("items.csv: column 'score'") and "score" in message, message
