"""The Gaussian posterior behind the consistency score (METHODS 9, [MHP]).

Each cluster (a meta category, or a leaf of :mod:`.tree`) gets a Gaussian (mean, covariance + a
ridge) and the prior ``n_c / N``; :func:`log_posterior` gives ``log P(c | x)`` from per-cluster
sufficient statistics, :func:`head_posteriors` the out-of-fold posteriors of one head.

Choices the spec leaves open (what was tried and measured: docs/METHODS.md, "Decision record:
embedding consistency"):

- ``eps`` is relative: every cluster's covariance gets the ridge ``eps * tau * d' / n_bar``, with
  ``tau`` the pooled within-cluster variance per dimension and ``n_bar`` the mean cluster size
  (both from the entities the Gaussians are fitted on), so one ``eps`` fits embeddings of any
  scale and the shrinkage grows as clusters get small relative to the head's dimension ``d'``.
  The ridge is the same for all clusters. Default :data:`DEFAULT_EPS` (4).
- Heads: if ``dims >= D`` one head with all ``D`` dimensions is used (:func:`choose_heads`);
  each model draws its own dimensions from the seed (models may differ in ``D``).
- Folds: the posterior of an entity comes from Gaussians fitted on the other folds (stratified
  by cluster, :func:`_folds`), so the score measures consistency on entities the Gaussians did
  not see; ``folds=1`` fits and scores the same entities, as in [MHP].
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import logsumexp

from benchuq.core.defaults import EMBEDDING_EPS
from benchuq.core.threads import blas_policy

__all__ = [
    "DEFAULT_EPS",
    "choose_heads",
    "gaussian_stats",
    "head_posteriors",
    "log_posterior",
    "single_blas_thread",
]

DEFAULT_EPS = EMBEDDING_EPS  # core.defaults
# The work is many small matrix products: one BLAS thread is faster than several (and does not
# oversubscribe the cores of a shared app server).
single_blas_thread = blas_policy  # the package's one thread policy (core.threads)


def gaussian_stats(x: np.ndarray, group: np.ndarray, g: int) -> tuple[np.ndarray, ...]:
    """Sufficient statistics per group: counts ``(g,)``, sums ``(g, d)``, cross products
    ``(g, d, d)``. Fits on any union of groups then cost ``O(g d^2)``, not a pass over data."""
    d = x.shape[1]
    counts = np.bincount(group, minlength=g).astype(np.float64)
    sums = np.zeros((g, d))
    cross = np.zeros((g, d, d))
    for j in range(g):
        xj = x[group == j]
        sums[j] = xj.sum(axis=0)
        cross[j] = xj.T @ xj
    return counts, sums, cross


def log_posterior(
    counts: np.ndarray, sums: np.ndarray, cross: np.ndarray, test: np.ndarray, eps: float
) -> np.ndarray:
    """``(n_test, K)`` log P(c | x) from per-cluster statistics (METHODS 9).

    Gaussian per cluster: MLE mean and covariance plus ``eps * tau * d / n_bar * I`` (``tau``:
    pooled within-cluster variance per dimension; ``n_bar``: mean cluster size; the same ridge
    for every cluster); prior ``n_c / N``; normalised by log-sum-exp."""
    k, d = sums.shape
    n_c = np.maximum(counts, 1.0)
    within = np.einsum("kii->", cross) - float(np.sum(sums * sums / n_c[:, None]))
    tau = within / (n_c.sum() * d)
    tau = tau if tau > 0 else 1.0
    ridge = eps * tau * d * k / n_c.sum()
    ll = np.empty((test.shape[0], k))
    const = 0.5 * d * math.log(2 * math.pi)
    for c in range(k):
        mu = sums[c] / n_c[c]
        cov = cross[c] / n_c[c] - np.outer(mu, mu)
        cov[np.diag_indices(d)] += ridge
        chol = np.linalg.cholesky(cov)
        whiten = solve_triangular(chol, np.eye(d), lower=True, check_finite=False)
        z = (test - mu) @ whiten.T
        ll[:, c] = -0.5 * np.einsum("ij,ij->i", z, z) - np.log(np.diag(chol)).sum() - const
    ll += np.log(n_c / n_c.sum())
    return ll - logsumexp(ll, axis=1, keepdims=True)


def _folds(y: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number per entity, stratified by cluster (each cluster spread over the folds)."""
    out = np.empty(len(y), dtype=np.int64)
    offset = int(rng.integers(folds))
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        out[rng.permutation(idx)] = (np.arange(len(idx)) + offset) % folds
        offset = (offset + len(idx)) % folds
    return out


def head_posteriors(
    xt: np.ndarray, y: np.ndarray, k: int, dims: np.ndarray, eps: float, fold: np.ndarray
) -> np.ndarray:
    """``(N, k)`` log posterior of every entity in one head (out-of-fold where folds > 1).

    ``xt`` is the transposed ``(D, N)`` embedding (rows of dimensions gather fast); the
    Gaussians of each fold come from the statistics of the other folds."""
    xh = np.ascontiguousarray(xt[dims].T)
    xh -= xh.mean(axis=0)
    nfold = int(fold.max()) + 1
    counts, sums, cross = gaussian_stats(xh, y * nfold + fold, k * nfold)
    counts, sums, cross = (a.reshape(k, nfold, *a.shape[1:]) for a in (counts, sums, cross))
    if nfold == 1:
        return log_posterior(counts[:, 0], sums[:, 0], cross[:, 0], xh, eps)
    out = np.empty((len(y), k))
    tot = counts.sum(axis=1), sums.sum(axis=1), cross.sum(axis=1)
    for f in range(nfold):
        test = fold == f
        out[test] = log_posterior(
            tot[0] - counts[:, f], tot[1] - sums[:, f], tot[2] - cross[:, f], xh[test], eps
        )
    return out


def choose_heads(n_dims: int, heads: int, dims: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Dimensions of each head: ``heads`` random subsets of ``dims`` (all, once, if dims >= D)."""
    if dims >= n_dims:
        return [np.arange(n_dims)]
    return [np.sort(rng.choice(n_dims, size=dims, replace=False)) for _ in range(heads)]
