"""Results that rest on few items: counts, flags and the floor below which nothing can be told
(METHODS 2d, issue #29).

- A model or task with fewer than :data:`FEW_ITEMS` items is **flagged** in every output (the
  ``items`` and ``few_items`` columns of the leaderboard, rank and comparison tables, a note).
- Below :func:`min_items_to_tell` items no test of a difference can reach the level, whatever
  the answers: an exact (sign-flip) test of n paired items has no p-value below ``2^(1 - n)``.
  There the verdicts and the report say "too few items to tell" instead of naming a winner or a
  difference. A comparison of fewer than 30 items gets an exact sign-flip test over them
  (:mod:`core.summaries.exact_pairs`, units kept by :func:`unit_scores`), whose p-value cannot
  go below ``2^(1 - n)``; where no items are kept (counts, normalized scores) the p-value is
  floored at ``2^(1 - n)`` (:func:`p_floor`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.draws import Draws
from benchuq.core.unit_scores import UnitScores

__all__ = [
    "FEW_ITEMS",
    "cell_items",
    "few_items_note",
    "group_items",
    "min_items_to_tell",
    "p_floor",
    "too_few_with_leader",
    "unit_scores",
]

FEW_ITEMS = 30


def cell_items(bench: Benchmark) -> np.ndarray | None:
    """``(M, T)`` items behind each model's task score (answered items for item-level data, ``n``
    for counts; 0 where it has none), or ``None`` for estimates with standard errors."""
    if bench.item_tasks is not None:
        return np.array([task.answered for task in bench.item_tasks], dtype=float).T
    if bench.n is not None:
        return np.where(np.isnan(bench.estimate), 0.0, np.asarray(bench.n, dtype=float))
    return None


def group_items(draws: Draws, *, tasks: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
    """``(M,)`` items behind each model's score over ``tasks`` (all by default); ``nan`` when the
    draws carry no item counts."""
    if draws.items is None:
        return np.full(len(draws.models), np.nan)
    cells = draws.items if tasks is None else draws.items[:, np.asarray(tasks, dtype=np.intp)]
    return cells.sum(axis=1)


def min_items_to_tell(level: float) -> int:
    """Fewest paired items with which a two-sided exact test can reach ``level``: the smallest
    ``n`` with ``2^(1 - n) <= 1 - level`` (6 at 95%, 8 at 99%)."""
    return max(1, math.ceil(1.0 + math.log2(1.0 / (1.0 - level)) - 1e-12))


def p_floor(items: np.ndarray) -> np.ndarray:
    """The smallest p-value ``2^(1 - n)`` an exact paired test of ``n`` items can give (1 at
    ``n <= 1``; 0 where ``n`` is unknown)."""
    n = np.asarray(items, dtype=float)
    return np.where(np.isnan(n), 0.0, np.minimum(1.0, 2.0 ** (1.0 - np.maximum(n, 1.0))))


def unit_scores(bench: Benchmark) -> UnitScores | None:
    """The unit-level scores of every task with fewer than :data:`FEW_ITEMS` units (items, or
    clusters when the task has a cluster column) for the exact paired test (METHODS 2d);
    ``None`` for data without item-level scores or without such a task."""
    if bench.item_tasks is None:
        return None
    units = [_task_units(task) for task in bench.item_tasks]
    if all(u is None for u in units):
        return None
    return UnitScores(
        tuple(None if u is None else u[0] for u in units),
        tuple(None if u is None else u[1] for u in units),
        tuple(None if u is None else u[2] for u in units),
    )


def _task_units(task: ItemTask) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(unit means ``(M, U)``, complete ``(M, U)``, items per unit ``(U,)``) of a task of fewer
    than :data:`FEW_ITEMS` units, else ``None``."""
    M, n = task.shape
    codes = None if task.cluster is None else task.cluster.codes
    unit = np.arange(n) if codes is None else np.unique(np.asarray(codes), return_inverse=True)[1]
    U = int(unit.max()) + 1 if n else 0
    if U == 0 or U >= FEW_ITEMS:
        return None
    s = task.scores
    have = ~np.isnan(s)
    size = np.bincount(unit, minlength=U).astype(float)
    total = np.zeros((U, M))
    answered = np.zeros((U, M))
    np.add.at(total, unit, np.where(have, s, 0.0).T)
    np.add.at(answered, unit, have.T.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(answered > 0, total / answered, np.nan)
    return means.T, (answered == size[:, None]).T, size


def few_items_note(models: Sequence[str], items: np.ndarray) -> str | None:
    """One sentence naming the models with fewer than :data:`FEW_ITEMS` items (``None`` if none)."""
    few = [f"{m} ({int(k)})" for m, k in zip(models, items, strict=True) if k < FEW_ITEMS]
    if not few:
        return None
    rest, them = ("rests", "its interval is") if len(few) == 1 else ("rest", "their intervals are")
    return (
        f"Few items: {', '.join(few)} {rest} on fewer than {FEW_ITEMS} items; {them} wide, and "
        f"with fewer than {min_items_to_tell(0.95)} items no difference can be shown at 95%."
    )


def too_few_with_leader(
    items: np.ndarray, observed: np.ndarray, test_level: float, *, higher_is_better: bool = True
) -> np.ndarray:
    """``(M,)`` bool: too few items to tell each model from the leader (best ``observed``) at
    ``test_level``: it or the leader has fewer than :func:`min_items_to_tell` items."""
    few = np.asarray(items, dtype=float) < min_items_to_tell(test_level)
    obs = np.asarray(observed, dtype=float) * (1.0 if higher_is_better else -1.0)
    if np.isnan(obs).all():
        return np.zeros(len(obs), dtype=bool)
    return (few | few[int(np.nanargmax(obs))]) & ~np.isnan(obs)
