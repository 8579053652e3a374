"""Arena ratings from few or one-sided battles, and ratings with no measured spread
(METHODS 8b, 2g; issue #39).

A model that played a handful of battles, or won or lost all of them, has a sandwich variance
that measures almost nothing (one won battle: a score near 0, so a tight interval around a huge
rating, "the best model with 95% confidence"). **Choice**: a penalised fit, a normal prior of
sd :data:`PRIOR_SD` logits on every rating, whenever some model has fewer than
:data:`SPARSE_BATTLES` battles or is separated, and for those models at least the penalised
fit's model-based variance (the inverse penalised information). Chosen over the bootstrap (a
resample of one battle either drops the model or repeats the win, so its rank set still comes
from a point) and over profile likelihood (an infinite end for a separated model, and a fit per
end) because it keeps the sandwich's draws, rank sets and win matrix unchanged in form.

Above a handful of battles the prior's model-based variance is still narrower than an exact
test allows (two equal models told apart at 7-1 in 8 battles, exact p = 0.07; issue #41).
**Choice**: at each level, every such model's variance is raised until its normal interval
against its opponents reaches the exact (Clopper-Pearson) interval of its record on the side
of equality (:func:`at_least_exact`), so a claim about it needs what the exact test needs.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit
from scipy.stats import beta as beta_law
from scipy.stats import norm

from benchuq.core.zero_spread import zero_spread_note

__all__ = [
    "PRIOR_RIDGE",
    "PRIOR_SD",
    "SPARSE_BATTLES",
    "at_least_exact",
    "at_least_model_based",
    "flat_note",
    "sign_record",
    "sparse_note",
]

ELO = 400.0 / np.log(10.0)  # Elo points per logit unit (as core.analyses.arena)
# Sparse records (METHODS 8b): a model with fewer battles than this, or that won or lost all of
# them, puts the fit under a normal prior of sd PRIOR_SD logits on every rating (a ridge
# 1 / PRIOR_SD^2) and gets at least the model-based variance.
SPARSE_BATTLES = 50
PRIOR_SD = 2.0
PRIOR_RIDGE = 1.0 / PRIOR_SD**2


def at_least_model_based(cov: np.ndarray, bread: np.ndarray, sparse_: np.ndarray) -> np.ndarray:
    """The sandwich ``cov`` with each sparse model's variance raised to at least the penalised
    fit's model-based one (``bread``'s diagonal; adding a non-negative diagonal keeps ``cov``
    positive semi-definite): a sandwich from a few battles, or from one-sided ones whose
    scores are near 0, measures almost no spread (METHODS 8b)."""
    M = len(sparse_)
    extra = np.where(sparse_, np.maximum(np.diag(bread)[:M] - np.diag(cov)[:M], 0.0), 0.0)
    out = np.array(cov, dtype=float)
    out[np.arange(M), np.arange(M)] += extra
    return out


def sign_record(i: np.ndarray, j: np.ndarray, s: np.ndarray, n: np.ndarray, M: int) -> np.ndarray:
    """``(M, 2)`` battles each model won and lost outright (cells ``i`` against ``j`` with
    ``i``'s score ``s``, ``n`` battles each): a score above 1/2 is a win, below a loss, a tie
    (or a graded 1/2) drops out, as in a sign test (METHODS 8b)."""
    won_i, lost_i = n * (s > 0.5), n * (s < 0.5)
    wins = np.bincount(i, won_i, M) + np.bincount(j, lost_i, M)
    losses = np.bincount(i, lost_i, M) + np.bincount(j, won_i, M)
    return np.column_stack([wins, losses])


def at_least_exact(
    cov: np.ndarray,
    beta: np.ndarray,
    pair_battles: np.ndarray,
    record: np.ndarray,
    sparse_: np.ndarray,
    *,
    level: float,
) -> np.ndarray:
    """``cov`` (logits^2, ratings first) with variance added on its diagonal so that each
    sparse model's normal interval at ``level`` for ``x_i`` (its rating minus its opponents'
    mean, weighted by battles) reaches the end of the exact Clopper-Pearson interval of its
    record (``record``: won, lost) on the side of 0 (METHODS 8b); a non-negative diagonal keeps
    it positive semi-definite. With two models this makes the normal test of their difference
    the exact (sign) test of the record.

    Each deficit is first shared among the sparse models that move ``x_i`` (two equal models
    get equal shares), then topped up one model at a time, so every target is met."""
    M = len(sparse_)
    played = pair_battles.sum(axis=1)
    a = np.eye(M) - pair_battles / np.where(played > 0, played, 1.0)[:, None]
    x = a @ beta[:M]
    won, lost = record[:, 0], record[:, 1]
    tail = (1.0 - level) / 2.0
    with np.errstate(divide="ignore"):
        low = logit(np.where(won > 0, beta_law.ppf(tail, won, lost + 1), 0.0))
        high = logit(np.where(lost > 0, beta_law.ppf(1.0 - tail, won + 1, lost), 1.0))
    reach = np.where(x >= 0, x - low, high - x)  # to the exact end on the side of 0
    use = sparse_ & (won + lost > 0) & np.isfinite(reach)
    target = np.where(use, (np.maximum(reach, 0.0) / norm.ppf(0.5 + level / 2)) ** 2, 0.0)
    C = cov[:M, :M]
    now = ((a @ C) * a).sum(axis=1)
    effect = np.where(use[None, :], a**2, 0.0)  # effect[i, j]: var(x_i) per unit on C[j, j]
    short = np.maximum(target - now, 0.0)
    extra = np.where(use, short / np.maximum(effect.sum(axis=1), 1.0), 0.0)
    for k in np.flatnonzero(use):  # top up what the shares left short
        extra[k] += max(target[k] - now[k] - effect[k] @ extra, 0.0)
    out = np.array(cov, dtype=float)
    out[np.arange(M), np.arange(M)] += extra
    return out


def sparse_note(models: tuple[str, ...], sparse_: np.ndarray, played: np.ndarray) -> str:
    """The note naming the models with few or one-sided battles (METHODS 8b)."""
    shown = [f"{m} ({int(k)})" for m, k, f in zip(models, played, sparse_, strict=True) if f]
    who = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
    return (
        f"Few (under {SPARSE_BATTLES}) or one-sided battles: {who}. Every rating is pulled a "
        f"little toward the average (by at most what {ELO * PRIOR_SD:.0f} Elo points of prior "
        "doubt allow), and these models' intervals are at least as wide as an exact test of "
        "their wins and losses allows, so a few wins never make a model the best, or better "
        "than another, with confidence (METHODS 8b)."
    )


def flat_note(models: tuple[str, ...], se: np.ndarray, anchor: int | None) -> str | None:
    """The note for ratings whose interval has width 0 (every battle a tie: each outcome is what
    the fit expects, so the sandwich has nothing to measure); the anchor is exempt."""
    flat = np.asarray(se) == 0
    if anchor is not None:
        flat[anchor] = False
    return zero_spread_note(
        models,
        flat,
        "every one of its battles is a tie, so each outcome is exactly what the fit expects and "
        "neither the robust (sandwich) variance nor a bootstrap of the same ties has anything "
        "to measure; only battles with wins and losses can",
    )
