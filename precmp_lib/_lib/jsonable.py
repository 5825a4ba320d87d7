"""Values as plain Python: numpy scalars unwrapped, and whole structures made JSON-safe."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["plain", "python_value"]


def python_value(value: Any) -> Any:
    """Return a numpy scalar as the Python value it holds; anything else as it is.

    >>> python_value(np.int64(3)), python_value(np.float32(0.5)), python_value("a")
    (3, 0.5, 'a')
    """
    return value.item() if isinstance(value, np.generic) else value


def plain(value: Any) -> Any:
    """Return ``value`` as JSON-safe Python: what ``json.dumps(..., allow_nan=False)`` takes.

    Mappings become dicts with text keys, tuples, lists and arrays become lists, numpy scalars
    their Python values, and NaN, infinities, ``pd.NA`` and ``pd.NaT`` become None; every number
    keeps its full precision.

    >>> plain({"p": np.float64(3.4e-14), 1: (np.int64(2), float("nan")), "a": np.array([0.5])})
    {'p': 3.4e-14, '1': [2, None], 'a': [0.5]}
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    value = python_value(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value
