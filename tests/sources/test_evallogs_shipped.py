"""The inspect_ai logs that notebook 13 reads (precmp_lib/_resources/item_logs/).

They are written once by ``scripts/make_item_eval_logs.py`` with inspect's mock model; the
notebook reads them without inspect_ai. The reference values are the script's simulated
benchmark (``simulate_items`` at the script's settings) and inspect's own reader.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pandas as pd
import pytest
from simulate_logs_reference import script as _script

import precmp_lib as pc
from precmp_lib.sources.datasets import resource_path

ROOT = Path(__file__).resolve().parents[2]
MODELS = ("model_a", "model_b")


def _read() -> pd.DataFrame:
    return pc.read_eval_logs({m: resource_path(f"item_logs/{m}.eval") for m in MODELS},
                             cluster="metadata.passage")


def test_shipped_logs_hold_the_scripts_benchmark():
    """Each sample's score and passage (from its own metadata) are the simulated item's."""
    script = _script()
    items = script.benchmark()
    tidy = _read()
    assert sorted(tidy["model"].unique()) == list(MODELS)
    assert tidy["task"].unique().tolist() == ["passage_qa"]
    assert tidy["epoch"].unique().tolist() == [1]
    assert tidy.attrs["eval_logs"]["errored"] == {}
    expected_cluster = {f"q{r.item}": f"passage-{r.cluster}" for r in items.itertuples()}
    for model, column in script.MODELS.items():
        got = tidy[tidy["model"] == model].set_index("item")
        assert len(got) == len(items) == 100
        want = pd.Series(items[column].to_numpy(float), index=[f"q{i}" for i in items["item"]])
        pd.testing.assert_series_equal(got["score"].reindex(want.index), want, check_names=False)
        assert got["cluster"].to_dict() == expected_cluster
    assert tidy["cluster"].nunique() == script.SETTINGS["n_clusters"] == 20
    # data/README.md states the counts of right answers
    right = tidy.groupby("model")["score"].sum().astype(int)
    readme = " ".join((ROOT / "data" / "README.md").read_text().split())
    assert (f"model_a is right on {right['model_a']} of them and model_b on {right['model_b']}"
            in readme)


def test_shipped_logs_are_small_and_their_version_is_recorded():
    sizes = [resource_path(f"item_logs/{m}.eval").stat().st_size for m in MODELS]
    assert all(s < 250_000 for s in sizes), sizes
    pin = re.search(r"^inspect_ai==(\S+)$", (ROOT / "requirements-dev.txt").read_text(), re.M)
    readme = (ROOT / "data" / "README.md").read_text()
    assert f"inspect_ai {pin.group(1)}" in readme


@pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None,
                    reason="inspect_ai is a development requirement (requirements-dev.txt)")
def test_logs_were_written_by_the_pinned_inspect_and_regenerate(tmp_path):
    import inspect_ai
    from inspect_ai.log import read_eval_log

    for m in MODELS:
        header = read_eval_log(str(resource_path(f"item_logs/{m}.eval")), header_only=True)
        assert header.eval.packages["inspect_ai"] == inspect_ai.__version__
        assert header.eval.model == f"mockllm/{m}"
    script = _script()
    script.write_logs(tmp_path)
    fresh = pc.read_eval_logs({m: tmp_path / f"{m}.eval" for m in MODELS},
                              cluster="metadata.passage")
    pd.testing.assert_frame_equal(fresh.reset_index(drop=True), _read().reset_index(drop=True))
