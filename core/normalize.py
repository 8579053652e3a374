"""Per-task normalization of draws (METHODS 3, [LGC 2.4] after BIG-bench).

``norm = (x - low_j) / (high_j - low_j)``, applied to every replicate and to the observed scores
with the same ``low_j``, ``high_j``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from benchuq.core.data import DataError
from benchuq.core.draws import Draws
from benchuq.core.validation import check_choice

__all__ = ["normalize"]


def _chance_vector(
    draws: Draws, chance: Mapping[str, float] | Sequence[float] | np.ndarray | None
) -> np.ndarray:
    if chance is None:
        raise DataError(
            "chance normalization needs the chance level of every task.",
            column="chance",
            hint="add a 'chance' column to the task table, or use mode 'minmax'.",
        )
    if isinstance(chance, Mapping):
        vec = np.array([chance.get(t, np.nan) for t in draws.tasks], dtype=float)
    else:
        vec = np.asarray(chance, dtype=float)
        if vec.shape != (len(draws.tasks),):
            raise DataError(
                f"{vec.size} chance levels for {len(draws.tasks)} tasks.", column="chance"
            )
    bad = [t for t, c in zip(draws.tasks, vec, strict=True) if not (np.isfinite(c) and c < 1)]
    if bad:
        raise DataError(
            f"tasks without a usable chance level (a number below 1): {bad[:5]}.",
            column="chance",
            hint="give every task a chance level in the task table, or use mode 'minmax'.",
        )
    return vec


def normalize(
    draws: Draws,
    mode: Literal["minmax", "chance"] = "minmax",
    chance: Mapping[str, float] | Sequence[float] | np.ndarray | None = None,
) -> Draws:
    """Normalized draws (METHODS 3).

    - ``"minmax"`` (default, as [LGC]): ``low_j`` / ``high_j`` are the minimum / maximum of task
      j over all models and all replicates (and the observed scores, so they land in [0, 1]),
      computed once and applied to every replicate. **Choice**: a task on which every value is the
      same is set to 0 (it cannot separate models) and named in the notes.
    - ``"chance"``: ``low_j`` = chance level (per task, aligned with ``draws.tasks`` or a mapping
      task -> chance), ``high_j`` = 1.

    Orientation is unchanged: a lower-is-better task stays lower-is-better.
    """
    check_choice(mode, ("minmax", "chance"), name="normalization")
    values, observed = draws.values, draws.observed
    if mode == "minmax":
        with warnings.catch_warnings():  # a task without any result stays nan, silently
            warnings.simplefilter("ignore", RuntimeWarning)
            low = np.fmin(np.nanmin(values, axis=(0, 1)), np.nanmin(observed, axis=0))
            high = np.fmax(np.nanmax(values, axis=(0, 1)), np.nanmax(observed, axis=0))
        note = (
            "Normalized per task: (x - min) / (max - min), min and max over all models and "
            "replicates (METHODS 3)."
        )
        flat = [t for t, lo, hi in zip(draws.tasks, low, high, strict=True) if lo == hi]
        if flat:
            note += f" Tasks with one value everywhere are set to 0: {flat}."
    else:  # "chance"
        low = _chance_vector(draws, chance)
        high = np.ones_like(low)
        note = "Normalized per task: (x - chance) / (1 - chance) (METHODS 3)."
    span = high - low
    safe = np.where(span > 0, span, 1.0)
    new_values = np.where(span > 0, (values - low) / safe, np.where(np.isnan(values), np.nan, 0.0))
    new_obs = np.where(span > 0, (observed - low) / safe, np.where(np.isnan(observed), np.nan, 0.0))
    return draws.with_values(new_values, new_obs, note)
