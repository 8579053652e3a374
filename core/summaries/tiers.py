"""Tiers of a leaderboard: groups of models the data cannot tell from each group's leader
(METHODS 4c).

Tier 1 is exactly the set the leaderboard marks ``tied_with_leader``
(:func:`core.summaries.leader.tied_with_leader`, or too few items to tell,
:func:`core.small_samples.too_few_with_leader`). Tier ``k + 1``: set aside the models of tiers
1..k; the best observed of the rest leads, and the same paired test at the same level picks the
models it cannot tell from that leader. Models without a score get tier 0 (none).

Each tier is one test per model against its tier's leader, not family-wise: a tier is not a set
of models that are all alike, and a model in tier 2 may be indistinguishable from a tier-1
model other than the leader.
"""

from __future__ import annotations

import numpy as np

from benchuq.core.draws import Draws
from benchuq.core.small_samples import group_items, too_few_with_leader
from benchuq.core.summaries.leader import overlap_test_level, tied_with_leader
from benchuq.core.summaries.scores import Group, group_scores, group_tasks, task_presence

__all__ = ["tiers"]


def tiers(draws: Draws, *, level: float, group: Group = "overall") -> np.ndarray:
    """``(M,)`` int: each model's tier in ``group`` at interval level ``level`` (1 = the
    leader's; 0 = no score), by the recursion of the module docstring (METHODS 4c).

    Examples
    --------
    >>> from benchuq.core.methods.bootstrap import bootstrap
    >>> from benchuq.core.reading import load_sample
    >>> tiers(bootstrap(load_sample("toy"), reps=200, seed=0), level=0.834).tolist()
    [1, 1]
    """
    sc = group_scores(draws, group=group)
    items = group_items(draws, tasks=group_tasks(draws, group))
    present = task_presence(draws, group=group)
    test_level = overlap_test_level(level)
    observed = np.asarray(sc.observed, dtype=float)
    tier = np.zeros(len(draws.models), dtype=int)
    left = np.isfinite(observed)
    k = 0
    while left.any():
        k += 1
        idx = np.flatnonzero(left)
        obs = observed[idx]
        tied = tied_with_leader(
            sc.values[:, idx],
            obs,
            level=level,
            higher_is_better=sc.higher_is_better,
            present=present[idx],
        )
        tied |= too_few_with_leader(
            items[idx], obs, test_level, higher_is_better=sc.higher_is_better
        )
        if not tied.any():  # a leader whose draws are all missing: it still closes its tier
            sign = 1.0 if sc.higher_is_better else -1.0
            tied[int(np.nanargmax(sign * obs))] = True
        tier[idx[tied]] = k
        left[idx[tied]] = False
    return tier
