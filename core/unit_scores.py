"""Unit-level scores of small tasks, kept with the draws for exact paired tests (METHODS 2d).

A task with fewer than :data:`core.small_samples.FEW_ITEMS` units (items, or clusters when the
task has a cluster column) keeps each model's mean score on each unit and the unit's number of
items, so ``compare`` can run an exact sign-flip test of two models on their items
(:mod:`core.summaries.exact_pairs`) instead of trusting a bootstrap that small data cannot
support. Larger tasks keep nothing (``None``): the bootstrap is used there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["UnitScores"]


@dataclass(frozen=True)
class UnitScores:
    """Per task (``None`` for a task of 30 units or more): ``scores[t]`` ``(M, U)`` each model's
    mean score on each unit (``nan`` where it answered none of the unit's items), ``complete[t]``
    ``(M, U)`` whether it answered all of them, ``sizes[t]`` ``(U,)`` items per unit."""

    scores: tuple[np.ndarray | None, ...]
    complete: tuple[np.ndarray | None, ...]
    sizes: tuple[np.ndarray | None, ...]

    def __repr__(self) -> str:
        small = sum(s is not None for s in self.scores)
        return f"UnitScores(tasks={len(self.scores)}, small={small})"

    def select(self, models: list[int] | slice) -> UnitScores:
        """The same units for a subset of models (rows ``models``)."""

        def rows(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[models]

        return UnitScores(
            tuple(rows(s) for s in self.scores), tuple(rows(c) for c in self.complete), self.sizes
        )
