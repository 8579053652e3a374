"""Bradley-Terry on aggregated win and match counts, shared by EPP (METHODS 8) and arena ratings
(METHODS 8b): the penalized ML fit (ILSR [MG15], else Newton's method), its covariance under
``sum beta = 0``, the separation check (Zermelo/Ford) and the connectivity check.

``logit P(i beats j) = beta_i - beta_j`` with ``W_ij`` wins of i over j in ``N_ij`` matches (a tie
is half a win each). The MLE is finite iff the "has won against" graph is strongly connected
(:func:`separated_mask`); models are comparable at all iff the "has played" graph is connected
(:func:`check_connected`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from benchuq.core.data import DataError
from benchuq.core.threads import blas_policy

__all__ = [
    "DEFAULT_RIDGE",
    "bradley_terry_mle",
    "check_connected",
    "fit_bradley_terry",
    "separated_mask",
]

DEFAULT_RIDGE = 0.01


def check_connected(
    matches: np.ndarray,
    models: tuple[str, ...],
    *,
    file: str | None,
    never: str,
    scores: str,
    column: str,
    hint: str,
) -> None:
    """A :class:`DataError` when the models fall into groups that never meet (``N_ij = 0``
    between the groups): their scores have no common scale. ``never`` says how they fail to meet
    (``"share a round"``), ``scores`` what cannot be compared (``"EPP scores"``)."""
    n, labels = connected_components(sparse.csr_matrix(matches > 0), directed=False)
    if n > 1:
        groups = [[models[k] for k in np.flatnonzero(labels == g)][:4] for g in range(n)]
        raise DataError(
            f"the models fall into {n} groups that never {never}, so their {scores} "
            f"cannot be compared: {groups}.",
            file=file,
            column=column,
            hint=hint,
        )


def separated_mask(wins: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """``(M,)`` True for models outside the largest strongly connected "has won against" set.

    All False exactly when the maximum-likelihood estimate exists (Zermelo/Ford condition); all
    True when no two models ever beat each other (every set is a single model).
    """
    off = ~np.eye(len(wins), dtype=bool)
    if np.all(wins[off] > 0):  # every model has won against every other: complete and connected
        return np.zeros(len(wins), bool)
    graph = sparse.csr_matrix((wins > 0) & (matches > 0))
    n, labels = connected_components(graph, directed=True, connection="strong")
    if n == 1:
        return np.zeros(len(wins), bool)
    sizes = np.bincount(labels)
    if sizes.max() == 1:  # a strict order: every model's EPP runs off to infinity
        return np.ones(len(wins), bool)
    return labels != sizes.argmax()


def _loglik(beta: np.ndarray, wins: np.ndarray, ridge: float) -> float:
    d = beta[:, None] - beta[None, :]
    return float(-(wins * np.logaddexp(0.0, -d)).sum() - 0.5 * ridge * beta @ beta)


def _ilsr(wins: np.ndarray, *, tol: float, start: np.ndarray | None) -> np.ndarray | None:
    """Iterative Luce spectral ranking [MG15]: the MLE as the fixed point of a Markov chain.

    Strengths ``p = exp(beta)``; each step solves for the stationary distribution ``pi`` of the
    chain that moves from j to i at rate ``W_ij / (p_i + p_j)`` and sets ``p = pi``. With ``N =
    W + W^T``, at the fixed point ``sum_j W_ij = sum_j N_ij p_i / (p_i + p_j)``: the likelihood
    equations. ``None`` when it does not converge (no finite MLE).
    """
    M = len(wins)
    beta = np.zeros(M) if start is None else np.asarray(start, float) - np.mean(start)
    p = np.exp(beta - beta.max())
    system = np.empty((M, M))
    diagonal = np.diag_indices(M)
    rhs = np.zeros(M)
    rhs[-1] = 1.0
    previous = np.inf  # no step yet
    for _ in range(100):
        np.divide(wins, p[:, None] + p[None, :], out=system)  # rates from j (row) to i
        # leaving i: its losses W_ji at the same rates, a column sum (self-matches cancel)
        leaving = system.sum(axis=0) - system.diagonal()
        np.negative(system, out=system)
        system[diagonal] = leaving
        system[-1] = 1.0  # the balance equations are dependent: replace one by sum(pi) = 1
        try:
            pi = np.linalg.solve(system, rhs)
        except np.linalg.LinAlgError:
            return None
        if not np.all(pi > 0):
            return None
        new = np.log(pi)
        new -= new.mean()
        change = float(np.max(np.abs(new - beta)))
        # linear convergence at rate rho: the fixed point is within change * rho / (1 - rho)
        rho = change / previous  # 0 after the first step: no estimate yet
        beta, p, previous = new, pi / pi.max(), change
        if change == 0.0 or (0.0 < rho < 0.5 and change * rho / (1.0 - rho) < tol):
            return beta
    return None


@blas_policy
def bradley_terry_mle(
    wins: np.ndarray,
    matches: np.ndarray,
    *,
    ridge: float = 0.0,
    tol: float = 1e-10,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Penalized ML point estimates of ``logit P(i beats j) = beta_i - beta_j``, ``sum beta = 0``.

    Without a ridge penalty and with ``N = W + W^T`` (every match won, lost or tied half-half),
    by iterative Luce spectral ranking (ILSR [MG15], a few linear solves; it stops when the
    distance to the fixed point, estimated from the last two steps, is below ``tol``); otherwise
    (or if ILSR does not converge) by Newton's method with step halving, which stops when no
    estimate moves by more than ``tol`` (METHODS 8). Both start from ``start`` (default zeros).
    """
    if ridge == 0.0 and np.max(np.abs(matches - wins - wins.T), initial=0.0) <= 1e-9:
        beta = _ilsr(wins, tol=tol, start=start)
        if beta is not None:
            return beta
    return _newton(wins, matches, ridge=ridge, tol=tol, start=start)


def _newton(
    wins: np.ndarray,
    matches: np.ndarray,
    *,
    ridge: float,
    tol: float,
    start: np.ndarray | None,
) -> np.ndarray:
    """Newton's method with step halving on the aggregated counts (penalized by ``ridge``)."""
    M = len(wins)
    beta = np.zeros(M) if start is None else np.asarray(start, float) - np.mean(start)
    ll = _loglik(beta, wins, ridge)
    for _ in range(200):
        p = expit(beta[:, None] - beta[None, :])
        grad = wins.sum(axis=1) - (matches * p).sum(axis=1) - ridge * beta
        step = np.linalg.solve(_information(matches, p, ridge) + 1.0 / M, grad)
        step -= step.mean()
        t = 1.0
        while True:
            new = beta + t * step
            new_ll = _loglik(new, wins, ridge)
            if new_ll >= ll - 1e-12 * abs(ll) or t < 1e-8:
                break
            t /= 2
        beta, ll = new, new_ll
        if np.max(np.abs(t * step)) < tol:
            break
    return beta


def _information(matches: np.ndarray, p: np.ndarray, ridge: float) -> np.ndarray:
    """Penalized Fisher information: the weighted graph Laplacian of ``N_ij p_ij (1 - p_ij)``."""
    info = matches * p * (1.0 - p)
    hess = -info
    hess[np.diag_indices(len(info))] += info.sum(axis=1) - info.diagonal() + ridge
    return hess


@blas_policy
def fit_bradley_terry(
    wins: np.ndarray,
    matches: np.ndarray,
    *,
    ridge: float = 0.0,
    tol: float = 1e-10,
    start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Penalized ML of ``logit P(i beats j) = beta_i - beta_j`` with ``sum beta = 0``.

    Returns ``(beta, cov)``: the estimates of :func:`bradley_terry_mle` (ILSR, or Newton's
    method when penalized) and ``cov``, the inverse (penalized) Fisher information at ``beta``
    restricted to ``sum beta = 0`` (METHODS 8).
    """
    beta = bradley_terry_mle(wins, matches, ridge=ridge, tol=tol, start=start)
    M = len(wins)
    p = expit(beta[:, None] - beta[None, :])
    inverse = np.linalg.inv(_information(matches, p, ridge) + 1.0 / M)
    # centre @ inverse @ centre with centre = I - 1/M, in O(M^2)
    row = inverse.mean(axis=1)
    cov = inverse - row[:, None] - inverse.mean(axis=0)[None, :] + row.mean()
    return beta, cov
