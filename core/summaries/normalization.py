"""Per-task normalization of draws (METHODS 3, [LGC 2.4] after BIG-bench).

``norm = (x - low_j) / (high_j - low_j)``, applied to every replicate and to the observed scores
with the same ``low_j``, ``high_j``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Literal

import numpy as np

from benchuq.core.data import DataError
from benchuq.core.draws import Draws
from benchuq.core.validation import check_choice
from benchuq.core.zero_spread import zero_spread_note

__all__ = ["normalize"]

Chance = Mapping[str, float] | Sequence[float] | np.ndarray | None


def _chance_levels(draws: Draws, chance: Chance) -> np.ndarray:
    """``(T,)`` chance level per task (``nan`` where unknown or not below 1)."""
    if chance is None:
        return np.full(len(draws.tasks), np.nan)
    if isinstance(chance, Mapping):
        vec = np.array([chance.get(t, np.nan) for t in draws.tasks], dtype=float)
    else:
        vec = np.asarray(chance, dtype=float)
        if vec.shape != (len(draws.tasks),):
            raise DataError(
                f"{vec.size} chance levels for {len(draws.tasks)} tasks.", column="chance"
            )
    return np.where(np.isfinite(vec) & (vec < 1), vec, np.nan)


def _chance_vector(draws: Draws, chance: Chance) -> np.ndarray:
    """Chance levels of every task, or DataError naming the tasks without one."""
    vec = _chance_levels(draws, chance)
    bad = [t for t, c in zip(draws.tasks, vec, strict=True) if np.isnan(c)]
    if bad:
        raise DataError(
            f"tasks without a usable chance level (a number below 1): {bad[:5]}.",
            column="chance",
            hint="give every task a chance level in the task table, or use mode 'minmax'.",
        )
    return vec


NORMALIZATIONS: tuple[str, ...] = ("minmax", "paper", "chance")
Normalization = Literal["minmax", "paper", "chance"]


def normalize(
    draws: Draws,
    *,
    mode: Normalization = "minmax",
    chance: Chance = None,
) -> Draws:
    """Normalized draws (METHODS 3).

    - ``"minmax"`` (default, revised): ``low_j`` / ``high_j`` are the minimum / maximum of task
      j's *observed* scores over models, held fixed in every replicate, so the estimand (and the
      normalized point estimate) does not depend on R or the seed; where ``chance`` gives a
      task's chance level (below 1), ``low_j`` is that level. Replicates may fall below 0 or
      above 1.
    - ``"paper"`` (as [LGC], for reproduction): minimum / maximum over all models and all
      replicates (and the observed scores), computed once and applied to every replicate; the
      estimand moves with R ([LGC]'s numbers match R about 100).
    - ``"chance"``: ``low_j`` = chance level (per task, aligned with ``draws.tasks`` or a mapping
      task -> chance), ``high_j`` = 1.

    **Choice**: a task on which ``low_j == high_j`` is set to 0 (it cannot separate models) and
    named in the notes, which say its intervals have width 0 for that reason; when every task is
    such, a zero-spread note follows (METHODS 2g). Orientation is unchanged: a lower-is-better
    task stays lower-is-better.
    """
    check_choice(mode, NORMALIZATIONS, name="normalization")
    values, observed = draws.values, draws.observed
    if mode in ("minmax", "paper"):
        with warnings.catch_warnings():  # a task without any result stays nan, silently
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanmin(observed, axis=0), np.nanmax(observed, axis=0)
            if mode == "paper":
                low = np.fmin(np.nanmin(values, axis=(0, 1)), low)
                high = np.fmax(np.nanmax(values, axis=(0, 1)), high)
        levels = _chance_levels(draws, chance) if mode == "minmax" else np.full_like(low, np.nan)
        low = np.where(np.isnan(levels), low, levels)
        over = (
            "the observed scores of all models (fixed across replicates)"
            if mode == "minmax"
            else f"all models and all {draws.reps} replicates, as [LGC] (depends on R)"
        )
        note = f"Normalized per task: (x - min) / (max - min), min and max over {over} (METHODS 3)."
        if not np.isnan(levels).all():
            note += " Where a task gives its chance level, min is that level."
        flat = [t for t, lo, hi in zip(draws.tasks, low, high, strict=True) if lo == hi]
        extra: tuple[str, ...] = ()
        if flat:
            note += (
                f" Tasks on which every model has the same score cannot be scaled (max = min), so "
                f"they are set to 0 for every model in every replicate: {flat}. Their normalized "
                "scores have intervals of width 0; that says such a task cannot separate the "
                "models, not that the scores are certain."
            )
            if len(flat) == len(draws.tasks):  # every normalized score is 0 with width 0
                zero = zero_spread_note(
                    draws.models,
                    np.ones(len(draws.models), bool),
                    "every task has the same score for all models, so normalizing sets every "
                    "score to 0 (compare the scores without normalizing)",
                )
                extra = (zero,) if zero else ()
    else:  # "chance"
        low = _chance_vector(draws, chance)
        high = np.ones_like(low)
        note = "Normalized per task: (x - chance) / (1 - chance) (METHODS 3)."
        extra = ()
    span = high - low
    safe = np.where(span > 0, span, 1.0)
    new_values = np.where(span > 0, (values - low) / safe, np.where(np.isnan(values), np.nan, 0.0))
    new_obs = np.where(span > 0, (observed - low) / safe, np.where(np.isnan(observed), np.nan, 0.0))
    out = draws.with_values(new_values, new_obs, note)
    return replace(out, notes=(*out.notes, *extra), normalization=mode)
