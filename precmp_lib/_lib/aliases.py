"""Type aliases shared by the library's signatures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["PredictionsLike", "RandomStateLike"]

# What ``validation.check_random_state`` accepts: None, a non-negative int or a Generator.
RandomStateLike: TypeAlias = int | np.integer[Any] | np.random.Generator | None

# Predictions of several classifiers: a mapping name -> labels, a DataFrame of prediction
# columns, or a sequence of label arrays.
PredictionsLike: TypeAlias = Mapping[Any, npt.ArrayLike] | npt.ArrayLike
