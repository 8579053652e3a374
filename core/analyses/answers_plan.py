"""More items or more answers per item? (issue 43, METHODS 10b.)

For a statistic of repeated answers (mean, pass@k, pass^k: :mod:`benchuq.core.item_statistic`)
the variance of a task's score from ``I`` items with ``m`` answers each is
``(between + within(m)) / I``: ``between`` is the variance over items of each item's true
statistic, ``within(m)`` the mean over items of the sampling variance of the unbiased per-item
estimate from ``m`` answers. Both come from the data's own items: each item's chance ``p`` is
estimated by its share of right answers ``c / n``; ``within(m)`` is the exact binomial variance
of the estimator at that ``p``; ``between`` is the variance of the items' estimates at their own
``n`` minus their mean within-item variance (method of moments, floored at 0). A fixed budget
``B`` of answers per model and task buys ``I(m) = min(pool, B // (cost + m))`` items of ``m``
answers (``pool``: the items there are, by default the data's own per task; ``cost``: what a new
item costs in answers); the interval's half-width is ``z * sqrt((between + within(m)) / I(m))``.
Without a pool limit and without an item cost one answer per item is always best.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import pandas as pd
from scipy import stats

from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.item_statistic import ItemStatistic, parse_statistic
from benchuq.core.validation import InvalidArgument, check_level

__all__ = ["MIN_ITEMS", "AnswersPlan", "answers_plan", "estimator_variance"]

#: Fewer items than this are not planned: a normal interval from a handful of items is not
#: honest, and the between-item variance behind the plan is itself uncertain.
MIN_ITEMS = 10


def _estimates(m: int, stat: ItemStatistic) -> np.ndarray:
    """The per-item estimate for ``c = 0..m`` right answers out of ``m``."""
    c = np.arange(m + 1)
    if stat.kind == "mean":
        return c / m
    k, denom = stat.k, comb(m, stat.k)
    if stat.kind == "pass@k":
        return np.array([1 - comb(m - x, k) / denom for x in c])
    return np.array([comb(x, k) / denom for x in c])


def estimator_variance(p: np.ndarray, m: int, stat: ItemStatistic) -> np.ndarray:
    """Exact variance of the unbiased per-item estimate from ``m`` answers at chance ``p``
    (sum over the binomial).

    Examples
    --------
    >>> from benchuq.core.item_statistic import parse_statistic
    >>> float(estimator_variance(np.array([0.5]), 4, parse_statistic("mean"))[0])
    0.0625
    """
    est = _estimates(m, stat)
    pmf = stats.binom.pmf(np.arange(m + 1)[None, :], m, np.asarray(p, float)[:, None])
    mean = pmf @ est
    return np.maximum(pmf @ est**2 - mean**2, 0.0)


@dataclass(frozen=True)
class AnswersPlan:
    """The trade-off at a budget: per answers-per-item ``m`` the items bought and the interval
    half-width of a task's score (``table``); ``between`` and ``within_now`` as estimated."""

    statistic: str
    level: float
    budget: int
    pool: int | None
    item_cost: float
    between: float
    within_now: float
    answers_now: int
    items_now: int
    table: pd.DataFrame

    @property
    def best(self) -> pd.Series:
        """The row with the narrowest interval."""
        return self.table.loc[self.table["half_width"].idxmin()]

    def sentence(self, scale: float = 100.0, unit: str = "points") -> str:
        """The answer in words."""
        b = self.best
        one = self.table.iloc[0]
        limit = "" if self.pool is None else f" from a pool of {self.pool:,} items"
        caveat = (
            " The items show no spread beyond their answers' noise here: more answers look "
            "free, but that estimate is uncertain with few items."
            if self.between == 0
            else ""
        )
        return (
            f"{self.statistic} with {self.budget:,} answers per model and task{limit}: "
            f"{int(b['items']):,} items x {int(b['answers'])} answers gives the narrowest "
            f"{100 * self.level:g}% interval, +/- {b['half_width'] * scale:.2f} {unit} "
            f"({int(one['items']):,} items x {int(one['answers'])} answers: +/- "
            f"{one['half_width'] * scale:.2f}). Between-item variance {self.between:.4f}, "
            f"within-item {self.within_now:.4f} at today's {self.answers_now} answers." + caveat
        )


def answers_plan(
    bench: Benchmark,
    *,
    statistic: str = "mean",
    budget: int | None = None,
    level: float = COMPARISON_LEVEL,
    pool: int | None = -1,
    item_cost: float = 0.0,
    answers: tuple[int, ...] = (1, 2, 3, 5, 10, 20, 50, 100),
) -> AnswersPlan:
    """More items or more answers per item, for ``statistic`` at a ``budget`` of answers per
    model and task (default: today's answers), from the data's own variances (METHODS 10b).
    ``pool``: the items there are per task (default ``-1``: the data's own; ``None``: no limit,
    new items can be written); ``item_cost``: a new item's cost in answers.

    Needs item-level data of right/wrong answers; ``answers`` below the statistic's ``k`` are
    left out (pass@5 needs five answers an item).
    """
    stat = parse_statistic(statistic)
    level = check_level(level)
    if bench.kind != "items" or not bench.item_tasks:
        raise DataError(
            "planning answers per item needs item-level data (each item's answers).",
            hint="load item-level results (inspect_ai logs, --log_samples, an item table).",
        )
    n_all, c_all = [], []
    for it in bench.item_tasks:
        scores = it.scores
        n = it.answers if it.answers is not None else np.where(np.isnan(scores), 0, 1)
        ok = n > 0
        n_all.append(n[ok])
        c_all.append(np.rint(np.where(ok, scores * n, 0))[ok])
    n, c = np.concatenate(n_all).astype(int), np.concatenate(c_all)
    if n.size < 2:
        raise DataError("planning answers per item needs at least two scored items.")
    p = c / n
    now = int(np.median(n))
    grid = sorted({m for m in (*answers, now) if m >= stat.k and m >= 1})
    # the estimate each item has now (its own n), and its within-item variance at that n
    est_now = np.empty(n.size)
    within_own = np.empty(n.size)
    for m in np.unique(n):
        sel = n == m
        if m >= stat.k:
            est_now[sel] = _estimates(int(m), stat)[c[sel].astype(int)]
            within_own[sel] = estimator_variance(p[sel], int(m), stat)
        else:
            est_now[sel] = np.nan
            within_own[sel] = np.nan
    usable = np.isfinite(est_now)
    if usable.sum() < 2:
        raise DataError(
            f"{stat.label} needs at least {stat.k} answers per item; the data's items have "
            f"{int(n.max())} at most.",
            hint=f"plan {stat.kind[:-1]}{int(n.max())} or the mean.",
        )
    between = max(float(np.var(est_now[usable], ddof=1) - within_own[usable].mean()), 0.0)
    within_now = float(within_own[usable].mean())
    cells = max(1, len(bench.models) * len(bench.tasks))
    per_cell = max(1, int(usable.sum()) // cells)  # items per model and task, today
    budget = int(budget) if budget is not None else int(np.median(n) * per_cell)
    pool = per_cell if pool == -1 else pool
    if item_cost < 0 or (pool is not None and pool < 2):
        raise InvalidArgument(
            "the item pool needs at least 2 items and an item's cost is >= 0.",
            hint="pool=None for no limit; item_cost=0 for items that cost nothing extra.",
        )
    if budget < MIN_ITEMS * (item_cost + grid[0]):
        raise InvalidArgument(
            f"budget {budget} answers buys fewer than {MIN_ITEMS} items of {grid[0]} answers.",
            hint=f"raise the budget to at least {MIN_ITEMS * (item_cost + grid[0]):g}.",
        )
    z = float(stats.norm.ppf(0.5 + level / 2))
    rows = []
    for m in grid:
        items = int(budget // (item_cost + m))
        items = items if pool is None else min(items, pool)
        if items < MIN_ITEMS:
            continue
        within = float(estimator_variance(p[usable], m, stat).mean())
        se = float(np.sqrt((between + within) / items))
        rows.append({"answers": m, "items": items, "within": within, "se": se,
                     "half_width": z * se})  # fmt: skip
    return AnswersPlan(
        stat.label,
        level,
        budget,
        pool,
        float(item_cost),
        between,
        within_now,
        now,
        int(usable.sum()),
        pd.DataFrame(rows),
    )
