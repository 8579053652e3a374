"""Exact intervals of right/wrong counts (METHODS 2f, issue #39).

The draws of METHODS 2 split the benchmark's one pseudo-item over its tasks, which keeps the
interval of a model's mean honest but leaves the interval of one task too narrow when there are
many tasks (30/30 beside four other tasks: [0.966, 1] at 95%). A cell's (model x task) interval
is therefore the percentile interval of its draws **joined with** the exact Clopper–Pearson
interval of its counts, and where a score sits at 0% or 100% the finite end is the exact bound
itself, not a quantile of finitely many draws (no seed moves it).
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaincinv

__all__ = ["clopper_pearson", "join_exact"]


def clopper_pearson(k: np.ndarray, n: np.ndarray, *, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper–Pearson interval ``(low, high)`` of ``k`` right out of ``n`` at ``level``
    (elementwise; ``nan`` where ``n < 1``): ``low = B^-1((1-L)/2; k, n-k+1)`` (0 at ``k = 0``),
    ``high = B^-1((1+L)/2; k+1, n-k)`` (1 at ``k = n``). Coverage >= ``level`` at every
    accuracy (METHODS 2f)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    a = (1.0 - level) / 2.0
    ok = n >= 1
    kk = np.where(ok, np.clip(k, 0.0, n), 0.0)
    nn = np.where(ok, n, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(kk > 0, betaincinv(np.maximum(kk, 1e-300), nn - kk + 1.0, a), 0.0)
        high = np.where(kk < nn, betaincinv(kk + 1.0, np.maximum(nn - kk, 1e-300), 1.0 - a), 1.0)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def join_exact(
    low: np.ndarray,
    high: np.ndarray,
    observed: np.ndarray,
    cells: np.ndarray,
    *,
    level: float,
    single: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile ends ``low``, ``high`` ``(M,)`` joined with the exact interval of ``cells``
    ``(2, M)`` (right, items; ``nan`` where no exact rule applies) (METHODS 2f).

    ``single`` (one task): the interval becomes the union of the two, and at 0% or 100% the
    exact one. Else (a mean over tasks) only a score at 0% or 100% changes: its finite end is the
    lower of the draws' and the pooled counts' exact bound, its other end the score itself.
    """
    right, n = np.asarray(cells, dtype=float)
    ok = np.isfinite(right) & np.isfinite(n) & (n >= 1) & np.isfinite(observed)
    k = np.where(ok, np.round(right), 0.0)
    cp_low, cp_high = clopper_pearson(k, np.where(ok, n, 1.0), level=level)
    at_top = ok & (k >= n)
    at_bottom = ok & (k <= 0)
    if single:
        new_low = np.where(ok, np.fmin(low, cp_low), low)
        new_high = np.where(ok, np.fmax(high, cp_high), high)
        new_low = np.where(at_top, cp_low, np.where(at_bottom, 0.0, new_low))
        new_high = np.where(at_bottom, cp_high, np.where(at_top, 1.0, new_high))
        return new_low, new_high
    new_low = np.where(at_top, np.fmin(low, cp_low), np.where(at_bottom, 0.0, low))
    new_high = np.where(at_bottom, np.fmax(high, cp_high), np.where(at_top, 1.0, high))
    return new_low, new_high
