"""A 'fold' column without a 'repeat' column: plain k-fold out-of-fold predictions."""

from __future__ import annotations

import pandas as pd
import pytest

from precmp_lib.compare.models import compare_models


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_a_fold_column_without_repeats_is_never_a_model_and_never_dropped_unsaid(engine, tmp_path):
    y = [0, 1] * 20
    a = [v if i % 6 else 1 - v for i, v in enumerate(y)]
    wide = pd.DataFrame({"id": range(40), "fold": [i % 5 for i in range(40)], "y": y, "a": a,
                         "b": y})
    wide.to_csv(tmp_path / "wide.csv", index=False)
    long = wide.melt(id_vars=["id", "fold", "y"], var_name="model", value_name="y_pred")
    long.to_csv(tmp_path / "long.csv", index=False)
    for name in ("wide.csv", "long.csv"):
        cmp = compare_models(str(tmp_path / name), y_true="y", engine=engine)
        assert sorted(cmp.models) == ["a", "b"]
        assert any(n.startswith("column 'fold' is not used") for n in cmp.settings["notes"])
