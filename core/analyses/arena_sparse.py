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
"""

from __future__ import annotations

import numpy as np

from benchuq.core.zero_spread import zero_spread_note

__all__ = [
    "PRIOR_RIDGE",
    "PRIOR_SD",
    "SPARSE_BATTLES",
    "at_least_model_based",
    "flat_note",
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


def sparse_note(models: tuple[str, ...], sparse_: np.ndarray, played: np.ndarray) -> str:
    """The note naming the models with few or one-sided battles (METHODS 8b)."""
    shown = [f"{m} ({int(k)})" for m, k, f in zip(models, played, sparse_, strict=True) if f]
    who = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
    return (
        f"Few (under {SPARSE_BATTLES}) or one-sided battles: {who}. Ratings come from a "
        f"penalised fit (a normal prior of sd {PRIOR_SD:g} logits = {ELO * PRIOR_SD:.0f} Elo "
        "points on each rating, METHODS 8b) "
        "and these models' intervals are at least the fit's model-based ones, so a few wins "
        "never make a model the best with confidence."
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
