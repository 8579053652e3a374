"""Arena's win-probability matrix with intervals (METHODS 8b), apart from the fit."""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy.special import expit
from scipy.stats import norm

__all__ = ["expected_score", "win_matrix"]


def expected_score(d: np.ndarray, tau: float | np.ndarray | None) -> np.ndarray:
    """Expected score (win + tie / 2) at logit difference ``d``."""
    if tau is None:
        return expit(d)
    log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), tau)
    return np.exp(d / 2 - log_d) + 0.5 * np.exp(tau - log_d)


def win_matrix(
    theta: np.ndarray,
    cov: np.ndarray,
    replicates: np.ndarray | None,
    M: int,
    ties: Literal["half", "davidson"],
    *,
    level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(M, M)`` expected scores with intervals (delta method on ``d`` for the sandwich, with
    the tie ratio at its estimate; percentile of replicates for the bootstrap)."""
    beta = theta[:M]
    tau = float(theta[-1]) if ties == "davidson" else None
    d = beta[:, None] - beta[None, :]
    est = expected_score(d, tau)
    if replicates is not None:
        lo = np.empty((M, M))
        hi = np.empty((M, M))
        for a in range(M):
            dd = replicates[:, [a]] - replicates[:, :M]
            e = expected_score(dd, None if tau is None else replicates[:, [-1]])
            lo[a], hi[a] = np.quantile(e, [(1 - level) / 2, (1 + level) / 2], axis=0)
    else:
        v = np.diag(cov)[:M]
        var = v[:, None] + v[None, :] - 2 * cov[:M, :M]
        z = norm.ppf(0.5 + level / 2)
        half = z * np.sqrt(np.clip(var, 0.0, None))
        lo, hi = expected_score(d - half, tau), expected_score(d + half, tau)
    for m in (est, lo, hi):
        np.fill_diagonal(m, np.nan)
    return est, lo, hi
