"""Bootstrap engines of the consistency score: intervals over entities (METHODS 9).

Replicates are paired across models (the same entity weights for every model, so differences
between models are valid). Three engines, ``bootstrap=`` of
:func:`~benchuq.core.analyses.embeddings.scores.consistency`:

- ``"refit"`` (:func:`_refit_head`) refits the Gaussians in every replicate, with the same folds,
  so the interval carries the error of fitting the Gaussians as well as which entities were drawn.
  Its target is the **expected out-of-fold score of the procedure**: the ALP (accuracy) on new
  entities of Gaussians fitted with this ridge on ``(folds - 1) / folds`` of each cluster,
  averaged over training samples, the quantity a cross-fitted score estimates without bias
  (``folds=1``: the expectation of the in-sample score). It is not the score of the true
  Gaussians: when clusters are small relative to ``d'`` every fitted score is lower, a bias no
  bootstrap removes (``benchmarks/bench_embeddings.py --coverage`` prints the coverage of both
  targets). Replicates weight the entities (:func:`_perturbation_weights`: gamma weights of mean 1
  and standard deviation ``refit_spread``, default :data:`REFIT_SPREAD`, rescaled within each
  cluster so every cluster keeps its size; every entity keeps its fold). A draw is the estimate
  plus the replicate's deviation from the replicates' mean times ``1 / refit_spread`` (a
  perturbation bootstrap; as ``refit_spread -> 0`` the delta-method interval of the whole
  procedure). The **accuracy** is split in two, because arg-max hits are not smooth in the
  weights: the held-out hits reweighted (linear in the weights) are rescaled by
  ``1 / refit_spread``; the hits that flip because the refitted boundaries moved (``O(N
  refit_spread)`` entities near them, whose net count fluctuates like a sum of that many signs)
  by ``1 / sqrt(refit_spread)``, a heuristic.
- ``"linear"`` (:func:`_influence_head`) is the first-order ("infinitesimal jackknife") version
  of ``"refit"`` on the same weights: ``sum_j (w_rj - 1) IF_j / refit_spread`` with ``IF_j`` the
  derivative of the weighted out-of-fold ALP with respect to entity ``j``'s weight, with the same
  centring; one pass per head and fold (:func:`linear_cost`) instead of one per replicate. Its
  accuracy interval covers the held-out entities only (hits do not move with the fit to first
  order), so it leaves out the fitting error; :data:`LINEAR_ACCURACY_METHOD` says so.
- ``"scores"`` (:func:`_resample_counts`) resamples entities (multinomial, stratified by cluster)
  and re-averages their per-head scores with the Gaussians held fixed: one matrix product, but
  the interval ignores the fitting error and is too narrow when clusters are small relative to
  ``d'``.

``"auto"`` (:func:`choose_bootstrap`) refits unless :func:`refit_cost` exceeds
:data:`REFIT_BUDGET`, then ``"linear"`` unless :func:`linear_cost` does, then ``"scores"``.
Default replicates: :data:`DEFAULT_REPS`. Why weights rather than draws with replacement, why
the deviations are centred, and the measured widths and coverage: docs/METHODS.md, "Decision
record: embedding consistency".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dpotrf, dtrtri

from benchuq.core.analyses.embeddings.posterior import gaussian_stats

__all__ = [
    "BOOTSTRAP_METHODS",
    "BOOTSTRAP_MODES",
    "DEFAULT_REPS",
    "LINEAR_ACCURACY_METHOD",
    "REFIT_ACCURACY_METHOD",
    "REFIT_BUDGET",
    "REFIT_SPREAD",
    "BootstrapMode",
    "choose_bootstrap",
    "linear_cost",
    "refit_cost",
]

BootstrapMode = Literal["auto", "refit", "linear", "scores"]
BOOTSTRAP_MODES: tuple[str, ...] = get_args(BootstrapMode)
BOOTSTRAP_METHODS: dict[str, str] = {
    "refit": "entity-weight bootstrap refitting the Gaussians (target: expected out-of-fold "
    "score of the procedure)",
    "linear": "linearised refit bootstrap (infinitesimal jackknife through the fitted "
    "Gaussians; target: expected out-of-fold score of the procedure)",
    "scores": "entity bootstrap of per-entity scores, Gaussians held fixed",
}
# The accuracy of "linear" moves only through the held-out entities (arg-max hits do not move
# with the fit almost everywhere), so its method names that.
LINEAR_ACCURACY_METHOD = (
    "linearised entity-weight bootstrap of the held-out hits only (accuracy does not move with "
    "the fit to first order: the interval leaves out the error of fitting the Gaussians)"
)
# The accuracy of "refit": reweighted hits rescaled by 1 / spread, flipped hits by
# 1 / sqrt(spread) (module docstring), so its method names that.
REFIT_ACCURACY_METHOD = (
    "entity-weight bootstrap refitting the Gaussians; the reweighted held-out hits rescaled by "
    "1/spread, the hits that flip with the refit by 1/sqrt(spread) (target: expected out-of-fold "
    "accuracy of the procedure)"
)
REFIT_SPREAD = 0.1
DEFAULT_REPS: dict[str, int] = {"refit": 200, "linear": 1000, "scores": 1000}
# "auto" refits while :func:`refit_cost` stays below this many multiply-adds (about 10 s on one
# core, which does 5-7e9 a second here); larger problems fall back to resampling the scores.
REFIT_BUDGET = 6e10
# Replicates are batched so that one block of projected test points stays near this many floats.
_BLOCK_FLOATS = 1 << 22
_LOOP_DIMS = 24  # from this head size on, whitening matrices are inverted one by one


def _resample_counts(y: np.ndarray, k: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``(reps, N)`` bootstrap counts stratified by cluster: each replicate draws ``n_c`` entities
    with replacement from cluster ``c``, so every cluster keeps its size."""
    out = np.zeros((reps, len(y)))
    for c in range(k):
        idx = np.flatnonzero(y == c)
        draws = rng.integers(0, len(idx), size=(reps, len(idx)))
        flat = (draws + np.arange(reps)[:, None] * len(idx)).ravel()
        out[:, idx] = np.bincount(flat, minlength=reps * len(idx)).reshape(reps, len(idx))
    return out


def _perturbation_weights(
    y: np.ndarray, k: int, reps: int, rng: np.random.Generator, spread: float
) -> np.ndarray:
    """``(reps, N)`` positive entity weights of mean 1 and standard deviation ``spread`` (gamma),
    rescaled within each cluster so that every cluster keeps its total weight ``n_c``."""
    w = rng.gamma(1.0 / spread**2, spread**2, size=(reps, len(y)))
    for c in range(k):
        idx = np.flatnonzero(y == c)
        w[:, idx] *= len(idx) / w[:, idx].sum(axis=1, keepdims=True)
    return w


def _weighted_stats(
    xh: np.ndarray, cells: list[np.ndarray], w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted counts ``(G, R)``, sums ``(G, R, d)`` and cross products ``(G, R, d, d)`` of the
    entities of each cell under entity weights ``w`` ``(R, N)``."""
    reps, d = w.shape[0], xh.shape[1]
    counts = np.empty((len(cells), reps))
    sums = np.empty((len(cells), reps, d))
    cross = np.empty((len(cells), reps, d, d))
    for g, idx in enumerate(cells):
        xg, wg = xh[idx], w[:, idx]
        counts[g] = wg.sum(axis=1)
        sums[g] = wg @ xg
        cross[g] = (wg @ (xg[:, :, None] * xg[:, None, :]).reshape(len(idx), -1)).reshape(
            reps, d, d
        )
    return counts, sums, cross


def _whitening(cov: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each ``(d, d)`` covariance of a stack: ``[L^-1, -L^-1 mu]`` ``(..., d, d + 1)`` in
    float32 (``L`` its Cholesky factor, so ``[x, 1] -> L^-1 (x - mu)`` whitens) and
    ``log det L``. Small matrices go through numpy's batched Cholesky and inverse; from
    :data:`_LOOP_DIMS` dimensions on, LAPACK ``potrf`` + ``trtri`` per matrix (the batched
    general inverse then costs about four times as much)."""
    d = cov.shape[-1]
    out = np.empty((*cov.shape[:-1], d + 1), dtype=np.float32)
    if d < _LOOP_DIMS:
        chol = np.linalg.cholesky(cov)
        inv = np.linalg.inv(chol)
        out[..., :d] = inv
        out[..., d] = -np.einsum("...oi,...i->...o", inv, mu)
        return out, np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)
    log_det = np.empty(cov.shape[:-2])
    flat_cov, flat_mu = cov.reshape(-1, d, d), mu.reshape(-1, d)
    flat_out, flat_det = out.reshape(-1, d, d + 1), log_det.reshape(-1)
    for i, c in enumerate(flat_cov):
        chol, info = dpotrf(c, lower=1, clean=1)
        if info:
            raise np.linalg.LinAlgError("a refitted covariance is not positive definite")
        inv = dtrtri(chol, lower=1)[0]
        flat_out[i, :, :d] = inv
        flat_out[i, :, d] = -(inv @ flat_mu[i])
        flat_det[i] = np.log(np.diagonal(chol)).sum()
    return out, log_det


def _refit_head(
    xh: np.ndarray,
    y: np.ndarray,
    k: int,
    fold: np.ndarray,
    w: np.ndarray,
    eps: float,
    log_clip: float,
) -> tuple[np.ndarray, np.ndarray]:
    """ALP and accuracy ``(R,)`` of one head in each bootstrap replicate, Gaussians refitted.

    ``xh`` is the centred ``(N, d)`` head; ``w`` ``(R, N)`` the entity weights (all ones
    reproduce the point estimate). In replicate ``r`` the Gaussians of fold ``f`` are fitted (as
    :func:`log_posterior`: weighted MLE + the relative ridge, prior from the training weights)
    on the entities outside fold ``f`` and score the entities inside it. Replicates go in blocks:
    per block and fold one pass of Cholesky factors and triangular inverses, and one matrix
    product projecting the test entities on every replicate's and cluster's whitening at once
    (float32: its rounding, ~1e-6 nats per entity, is far below the replicates' spread)."""
    n, d = xh.shape
    nfold = int(fold.max()) + 1
    cells = [np.flatnonzero((y == c) & (fold == f)) for f in range(nfold) for c in range(k)]
    tests = [np.flatnonzero(fold == f) for f in range(nfold)]
    largest = max(len(t) for t in tests)
    block = max(1, min(w.shape[0], _BLOCK_FLOATS // (largest * k * d)))
    const = 0.5 * d * math.log(2 * math.pi)
    xa = np.hstack([xh, np.ones((n, 1))]).astype(np.float32)
    alp = np.empty(w.shape[0])
    acc = np.empty(w.shape[0])
    for start in range(0, w.shape[0], block):
        wb = w[start : start + block]
        nb = wb.shape[0]
        stats = _weighted_stats(xh, cells, wb)
        counts, sums, cross = (a.reshape(nfold, k, nb, *a.shape[2:]) for a in stats)
        tot = counts.sum(axis=0), sums.sum(axis=0), cross.sum(axis=0)
        num = np.zeros(nb)
        den = np.zeros(nb)
        hits = np.zeros(nb)
        for f, test in enumerate(tests):
            tc, ts, tx = tot
            if nfold > 1:  # train on the other folds
                tc, ts, tx = tc - counts[f], ts - sums[f], tx - cross[f]
            n_c = np.maximum(tc, 1.0)  # (k, nb)
            n_all = n_c.sum(axis=0)
            within = np.einsum("krii->r", tx) - np.sum(ts * ts / n_c[:, :, None], axis=(0, 2))
            tau = within / (n_all * d)
            tau = np.where(tau > 0, tau, 1.0)
            mu = ts / n_c[:, :, None]
            cov = tx / n_c[:, :, None, None] - mu[:, :, :, None] * mu[:, :, None, :]
            cov[:, :, np.arange(d), np.arange(d)] += (eps * tau * d * k / n_all)[:, None]
            white, log_det = _whitening(cov, mu)  # (k, nb, d, d + 1), (k, nb)
            proj = white.reshape(-1, d + 1) @ xa[test].T  # (k nb d, n_f)
            proj *= proj
            dist = proj.reshape(k, nb, d, len(test)).sum(axis=2, dtype=np.float64)
            ll = (np.log(n_c / n_all) - log_det - const)[:, :, None] - 0.5 * dist  # (k, nb, n_f)
            yt = y[test]
            top = ll.max(axis=0)
            norm = top + np.log(np.exp(ll - top).sum(axis=0))  # log-sum-exp over clusters
            lp_true = ll[yt, :, np.arange(len(test))].T - norm  # (nb, n_f)
            wt = wb[:, test]
            keep = wt * (lp_true >= log_clip)
            num += np.einsum("ri,ri->r", keep, np.where(keep > 0, lp_true, 0.0))
            den += keep.sum(axis=1)
            hits += np.einsum("ri,ri->r", wt, np.argmax(ll, axis=0) == yt)
        alp[start : start + nb] = num / np.maximum(den, 1)
        acc[start : start + nb] = hits / wb.sum(axis=1)
    return alp, acc


def _influence_head(
    xh: np.ndarray,
    y: np.ndarray,
    k: int,
    fold: np.ndarray,
    lp: np.ndarray,
    eps: float,
    log_clip: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Derivatives ``(N,)`` of one head's ALP and accuracy with respect to each entity's weight
    at ``w = 1``: the first-order ("infinitesimal jackknife") version of :func:`_refit_head`.

    ``xh`` is the centred ``(N, d)`` head and ``lp`` its ``(N, K)`` out-of-fold log posteriors
    (:func:`head_posteriors`). An entity's weight moves the weighted ALP (a) as a test entity of
    its fold, ``keep_i (lp_i - ALP) / n_kept``, and (b) as a training entity of every other fold
    (of its own fold too when ``folds = 1``), through its cluster's weighted MLE mean
    ``(x_j - mu_c) / n_c`` and covariance ``((x_j - mu_c)(x_j - mu_c)' - Sigma_c) / n_c``, its
    cluster's training count in the prior, and the shared ridge ``eps * tau * d' * K / N_train``
    (through ``tau`` and ``N_train``). Held-out log posteriors enter through
    ``d ll / d mu = S^-1 r``, ``d ll / d S = (S^-1 r r' S^-1 - S^-1) / 2`` weighted by
    ``1[c = y_i] - p_ic``. The clip keeps its role in the test part (entities below it carry no
    weight), its indicator's derivative (zero almost everywhere) is ignored, as are the guards
    ``n_c >= 1`` and ``tau > 0``. Accuracy (arg-max hits) does not move with the fit almost
    everywhere: its derivative is the test part ``(hit_i - accuracy) / N`` only, so its linear
    interval leaves out the fitting noise. Cost per fold about ``N K d'^2`` (two products of
    the held-out entities with each cluster's whitening) plus ``N d'^2`` for the training part.
    """
    n, d = xh.shape
    nfold = int(fold.max()) + 1
    lp_true = lp[np.arange(n), y]
    kept = lp_true >= log_clip
    share = kept / max(int(kept.sum()), 1)  # each entity's weight in the head's ALP
    alp = float(np.sum(share * np.where(kept, lp_true, 0.0)))
    hits = (np.argmax(lp, axis=1) == y).astype(np.float64)
    infl = share * np.where(kept, lp_true - alp, 0.0)  # (a): as a test entity
    # d ALP / d ll_ic of each held-out entity: its share of the ALP times (1[c = y_i] - p_ic)
    grad_ll = -np.exp(lp) * share[:, None]
    grad_ll[np.arange(n), y] += share
    counts, sums, cross = gaussian_stats(xh, y * nfold + fold, k * nfold)
    counts, sums, cross = (a.reshape(k, nfold, *a.shape[1:]) for a in (counts, sums, cross))
    tot = counts.sum(axis=1), sums.sum(axis=1), cross.sum(axis=1)
    eye = np.eye(d)
    for f in range(nfold):
        test = np.flatnonzero(fold == f)
        train = fold != f if nfold > 1 else np.ones(n, dtype=bool)
        tc, ts, tx = tot
        if nfold > 1:  # train on the other folds
            tc, ts, tx = (t - s[:, f] for t, s in zip(tot, (counts, sums, cross), strict=True))
        n_c = np.maximum(tc, 1.0)
        n_all = float(n_c.sum())
        mu = ts / n_c[:, None]
        sigma = tx / n_c[:, None, None] - mu[:, :, None] * mu[:, None, :]
        within = float(np.einsum("kii->", tx) - np.sum(ts * ts / n_c[:, None]))
        tau = within / (n_all * d)
        tau = tau if tau > 0 else 1.0
        ridge = eps * tau * d * k / n_all
        grad_ridge = 0.0
        for c in range(k):
            chol = np.linalg.cholesky(sigma[c] + ridge * eye)
            inv = solve_triangular(chol, eye, lower=True, check_finite=False)
            z = (xh[test] - mu[c]) @ inv.T  # whitened residuals of the held-out entities
            b = grad_ll[test, c]
            zb = z * b[:, None]
            inner = zb.T @ z
            inner[np.diag_indices(d)] -= b.sum()
            grad_cov = 0.5 * (inv.T @ inner @ inv)  # d ALP / d S_c
            grad_mu = inv.T @ zb.sum(axis=0)  # d ALP / d mu_c
            grad_ridge += float(np.trace(grad_cov))
            rows = np.flatnonzero(train & (y == c))
            r = xh[rows] - mu[c]
            quad = np.einsum("ij,ij->i", r @ grad_cov, r)
            # (b): mean, covariance and prior (the prior's 1 / N_train part sums to zero)
            infl[rows] += (quad + r @ grad_mu - np.sum(grad_cov * sigma[c]) + b.sum()) / n_c[c]
        rows = np.flatnonzero(train)
        r = xh[rows] - mu[y[rows]]
        # the ridge eps * K * within / N_train^2: d within / d w_j = |x_j - mu_c|^2
        infl[rows] += grad_ridge * eps * k / n_all**2 * (np.einsum("ij,ij->i", r, r) - 2 * d * tau)
    return infl, (hits - hits.mean()) / n


def refit_cost(n: int, k: int, folds: int, widths: Sequence[int], reps: int) -> float:
    """Multiply-adds of the ``"refit"`` bootstrap: per replicate and head of ``d'`` dimensions
    (``widths``: every head of every model) about ``N (K + 1) d'^2`` for the weighted statistics
    and the projections plus ``K folds d'^3 / 1.5`` for the Cholesky factors and inverses."""
    return float(reps * sum(n * (k + 1) * w * w + k * folds * w**3 / 1.5 for w in widths))


def linear_cost(n: int, k: int, folds: int, widths: Sequence[int], reps: int) -> float:
    """Multiply-adds of the ``"linear"`` bootstrap beyond the point estimate: per head of ``d'``
    dimensions (``widths``: every head of every model) about ``N (2 K + folds) d'^2`` for the
    influence of the entities (:func:`_influence_head`) plus ``2 K folds d'^3`` for the
    whitening and gradient matrices; then ``reps N`` per model for the replicates, counted once
    per head here (an upper bound)."""
    return float(sum(n * (2 * k + folds) * w * w + 2 * k * folds * w**3 + reps * n for w in widths))


def choose_bootstrap(
    n: int, k: int, folds: int, widths: Sequence[int], reps: int | None
) -> BootstrapMode:
    """The engine ``"auto"`` runs: ``"refit"`` within :data:`REFIT_BUDGET`, else ``"linear"``
    within it, else ``"scores"`` (``reps=None``: each engine's :data:`DEFAULT_REPS`)."""
    if refit_cost(n, k, folds, widths, reps or DEFAULT_REPS["refit"]) <= REFIT_BUDGET:
        return "refit"
    if linear_cost(n, k, folds, widths, reps or DEFAULT_REPS["linear"]) <= REFIT_BUDGET:
        return "linear"
    return "scores"
