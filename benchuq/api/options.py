"""Options several API functions share: category weights and what "overall" stands for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = ["Overall", "Weights", "score_group"]

Weights = Sequence[float] | np.ndarray | None
Overall = Literal["auto", "benchmarks", "tasks"]


def score_group(weights: Weights) -> str | np.ndarray:
    """The score ``weights`` choose: ``"overall"`` without weights, else the weight vector."""
    return "overall" if weights is None else np.asarray(weights, dtype=float)
