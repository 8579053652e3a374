"""The "≈ leader" rule: which models the data cannot tell from the leader (METHODS 2, [GH]).

Two intervals at level ``L`` that do not overlap correspond roughly to a two-sided test at level
``2 Phi(sqrt(2) z_L) - 1`` of the difference (95% at ``L`` = 83.4%) only when the two estimates
are **independent with similar standard errors** [GH]. Models evaluated on the same items are
correlated: with correlation 0.5 non-overlap of 83.4% intervals is a 0.56% test, not a 5% test.

So the rule here does not compare intervals: it takes the difference ``leader - model`` inside
every draw (paired draws keep the correlation; independent draws give the independent
difference) and calls a model tied with the leader when the percentile interval of that
difference at the test level contains 0. That is a two-sided test at ``1 - test level`` of each
model against the leader, one pair at a time (not family-wise), whatever the correlation
(checked in simulation in ``tests/core/summaries/test_inference.py``).

A model that shares no task with the leader is never tied with it: the two scores average
different tasks, so no difference between them says anything about the models (issue 29); the
loader notes such models (:func:`benchuq.core.reading.overlap.disjoint_notes`).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import ndtr, ndtri

from benchuq.core.summaries.ordering import best_first

__all__ = ["overlap_test_level", "tied_with_leader"]


def overlap_test_level(level: float) -> float:
    """Level of the difference test that overlap of two independent level-L intervals with equal
    SEs approximates [GH] (0.95 at L = 0.834)."""
    z = ndtri(0.5 + level / 2)
    return float(2 * ndtr(np.sqrt(2) * z) - 1)


def tied_with_leader(
    values: np.ndarray,
    observed: np.ndarray,
    *,
    level: float,
    higher_is_better: bool = True,
    present: np.ndarray | None = None,
) -> np.ndarray:
    """``(M,)`` bool: the percentile interval of ``leader - model`` over the draws, at
    :func:`overlap_test_level` of ``level``, contains 0.

    ``values`` is ``(R, M)`` draws of a group score, ``observed`` ``(M,)``; the leader (best
    observed) is tied with itself; a model without a score is not tied (none is when no model
    has a score); with ``present`` (``(M, T)`` bool: which model has which of the group's
    tasks) a model that shares no task with the leader is not tied.
    """
    sign = 1.0 if higher_is_better else -1.0
    obs = sign * np.asarray(observed, dtype=float)
    if np.isnan(obs).all():
        return np.zeros(obs.shape, dtype=bool)
    lead = int(best_first(obs, [str(i) for i in range(len(obs))])[0])
    d = sign * (values[:, [lead]] - values)
    q = overlap_test_level(level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(d, [(1 - q) / 2, (1 + q) / 2], axis=0)
    tied = (low <= 0) & (high >= 0)
    if present is not None:
        tied &= (np.asarray(present, bool) & np.asarray(present, bool)[lead]).any(axis=1)
    return tied
