"""Exact per-task coverage of the engine's interval, 1-20 tasks (issue #39, METHODS 2f).

One model, ``T`` tasks of ``n`` right/wrong items each, item-level data; the task of interest
has ``k`` right. The interval a user gets for that task (the Leaderboard's per-task rows, the
EEE export: :func:`core.summaries.leaderboard` with every task its own group, whose interval
is :func:`group_scores` then :func:`percentile_interval`, at the default seed and R) is computed
by the real engine on a constructed item-level benchmark for every ``k``, so the
coverage at accuracy ``p`` is exact: ``sum_k Binomial(k; n, p) 1[low_k <= p <= high_k]``
(counts of probability below 1e-12 are left out; their mass bounds the error). The other
``T - 1`` tasks have the same count ``k`` (every task at the same accuracy); the interval of a
cell contains the exact Clopper–Pearson interval of its own counts whatever the other tasks
hold (METHODS 2f), so its coverage is at least the level in every cell.

Intervals are cached per ``(n, k, T)`` (both levels from the same draws).

    nice -n 10 python benchmarks/bench_task_coverage.py            # the full grid (minutes)
    python benchmarks/bench_task_coverage.py --quick               # T = 1, 5; n <= 100
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from functools import cache

import numpy as np
from scipy import stats

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.defaults import REPS, SEED
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.summaries.scores import group_scores, percentile_interval

TASKS = (1, 5, 20)
ITEMS = (1, 2, 5, 10, 30, 100, 300, 1000)
ACCURACIES = (0.5, 0.8, 0.95, 0.99, 1.0)
LEVELS = (0.834, 0.95)
TAIL = 1e-12  # counts less likely than this at every accuracy of the grid are left out


def constructed(n: int, k: int, tasks: int) -> Benchmark:
    """Item-level benchmark of one model: ``tasks`` tasks of ``n`` items, ``k`` right in each
    (the same as reading a long table of model, task, item, score rows)."""
    scores = np.r_[np.ones(k), np.zeros(n - k)][None, :]
    items = [f"i{i:04d}" for i in range(n)]
    names = tuple(f"t{j:02d}" for j in range(tasks))
    return Benchmark(
        f"{tasks} x {n} items, {k} right",
        ("m",),
        names,
        names,
        "items",
        np.full((1, tasks), k / n),
        item_tasks=tuple(ItemTask(items, scores) for _ in range(tasks)),
    )


@cache
def task_interval(n: int, k: int, tasks: int, levels: tuple[float, ...] = LEVELS) -> np.ndarray:
    """``(len(levels), 2)`` the engine's interval of task ``t00`` at each level (default seed
    and replicates): the leaderboard's per-task group (every task its own category, as the
    EEE export makes it), :func:`group_scores` then :func:`percentile_interval`."""
    draws = bootstrap(constructed(n, k, tasks), reps=REPS, seed=SEED)
    per_task = replace(draws, categories=draws.tasks)
    scores = group_scores(per_task, group="t00")
    out = np.empty((len(levels), 2))
    for a, level in enumerate(levels):
        iv = percentile_interval(scores, level=level)
        out[a] = iv.low[0], iv.high[0]
    return out


def counts_needed(n: int, accuracies: tuple[float, ...] = ACCURACIES) -> list[int]:
    """The counts ``k`` with probability >= :data:`TAIL` at some accuracy of the grid."""
    ks = np.arange(n + 1)
    keep = np.zeros(n + 1, dtype=bool)
    for p in accuracies:
        keep |= stats.binom.pmf(ks, n, p) >= TAIL
    return [int(k) for k in ks[keep]]


def coverage(n: int, p: float, tasks: int, level: float) -> float:
    """Exact coverage of task ``t00``'s interval at accuracy ``p`` (sum over the binomial)."""
    a = LEVELS.index(level)
    total = 0.0
    for k in counts_needed(n, (p,)):
        low, high = task_interval(n, k, tasks)[a]
        if low <= p <= high:
            total += float(stats.binom.pmf(k, n, p))
    return total


def grid(
    tasks: tuple[int, ...] = TASKS, items: tuple[int, ...] = ITEMS
) -> dict[tuple[float, int, int, float], float]:
    """Coverage per (level, T, n, p)."""
    return {
        (level, T, n, p): coverage(n, p, T, level)
        for level in LEVELS
        for T in tasks
        for n in items
        for p in ACCURACIES
    }


def table(cov: dict[tuple[float, int, int, float], float]) -> str:
    """Markdown tables, one per level, rows (T, n), columns accuracies; the worst shortfall."""
    lines = []
    for level in LEVELS:
        lines.append(f"\nlevel {level}: exact per-task coverage (default seed, R = {REPS})\n")
        lines.append("| T | n | " + " | ".join(f"{p}" for p in ACCURACIES) + " |")
        lines.append("|---|---|" + "---|" * len(ACCURACIES))
        for T, n in sorted({(t, m) for lv, t, m, _ in cov if lv == level}):
            cells = " | ".join(f"{cov[(level, T, n, p)]:.4f}" for p in ACCURACIES)
            lines.append(f"| {T} | {n} | {cells} |")
        worst = min(v for key, v in cov.items() if key[0] == level)
        lines.append(f"\nlowest {worst:.4f} (nominal {level}; {worst - level:+.4f} from it)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="T = 1, 5 and n <= 100")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.quick:
        cov = grid(tasks=(1, 5), items=(1, 2, 5, 10, 30, 100))
    else:
        cov = grid()
    print(table(cov))
    print(
        f"\n{task_interval.cache_info().currsize} engine runs, {time.perf_counter() - start:.0f} s"
    )
    short = [key for key, v in cov.items() if v < key[0] - 0.02]
    print("cells more than 2 points below nominal:", short or "none")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
