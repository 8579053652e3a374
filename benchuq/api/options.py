"""Options several API functions share: which score ("group"), category weights and what
"overall" stands for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = ["Group", "Overall", "Weights", "score_group", "weights_of"]

Weights = Sequence[float] | np.ndarray | None
#: Which score (one keyword, ``group=``, across the API): ``"overall"``, a category or category
#: weights (one per category, summing to 1: the weighted score ``S(w)``).
Group = str | Sequence[float] | np.ndarray
Overall = Literal["auto", "benchmarks", "tasks"]


def score_group(group: Group | None) -> str | np.ndarray:
    """The score ``group`` chooses: a name as given (``None``: ``"overall"``), else the weight
    vector."""
    if group is None:
        return "overall"
    return group if isinstance(group, str) else np.asarray(group, dtype=float)


def weights_of(group: Group | None) -> np.ndarray | None:
    """The category weights of ``group`` (``None`` when it names a score)."""
    return None if group is None or isinstance(group, str) else np.asarray(group, dtype=float)
