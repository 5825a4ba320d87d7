"""The benchmark held by the shipped inspect_ai logs, from the script that wrote them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_item_eval_logs.py"


def script():
    """The module ``scripts/make_item_eval_logs.py`` (its settings, ``benchmark``, ``write_logs``)."""
    spec = importlib.util.spec_from_file_location("make_item_eval_logs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def logged_benchmark() -> pd.DataFrame:
    """The simulated items (``correct_a``, ``correct_b``, ``cluster``) the logs were written from."""
    return script().benchmark()
