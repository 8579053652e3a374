"""Two runs with known truth for the tests of ``core.analyses.diff`` and the benchmarks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchuq.core.data import Benchmark, ItemTask


def binary_pair(
    n: int, rng: np.random.Generator, *, base: float = 0.7, agree: float = 0.9, drop: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Binary scores of two runs on ``n`` items: they disagree on ``1 - agree`` of the items
    (in expectation) and the candidate is ``drop`` lower (``c - b = -drop``, ``b + c = 1 - agree``
    as shares of discordant items)."""
    disagree = 1.0 - agree
    p_b, p_c = (disagree + drop) / 2, (disagree - drop) / 2  # base only right, candidate only
    kind = rng.choice(4, size=n, p=[p_b, p_c, base - p_b, 1 - base - p_c])
    b = np.isin(kind, (0, 2)).astype(float)
    c = np.isin(kind, (1, 2)).astype(float)
    return b, c


def bench_of(
    tasks: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    models: tuple[str, str] = ("base", "candidate"),
    ids: Sequence[Sequence[str]] | None = None,
) -> Benchmark:
    """One data set with the two runs as two models, a task per ``(base, candidate)`` pair."""
    items = []
    for j, (b, c) in enumerate(tasks):
        names = ids[j] if ids is not None else [f"q{i}" for i in range(len(b))]
        items.append(ItemTask(list(names), np.stack([b, c])))
    est = np.array([[np.nanmean(b), np.nanmean(c)] for b, c in tasks]).T
    names = tuple(f"t{j}" for j in range(len(tasks)))
    return Benchmark("sim", models, names, ("all",) * len(tasks), "items", est,
                     item_tasks=tuple(items))  # fmt: skip
