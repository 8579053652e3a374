"""MCMC convergence diagnostics: rank-normalised split R-hat, bulk and tail ESS (METHODS 6).

Vehtari, Gelman, Simpson, Carpenter, Bürkner (2021), *Rank-normalization, folding, and
localization: an improved R-hat for assessing convergence of MCMC*, Bayesian Analysis 16(2).

All functions take draws shaped ``(..., chains, draws)`` and return one value per leading index,
vectorised over parameters with numpy (no per-parameter Python loop). The definitions follow the
paper and agree with ``arviz_stats`` (tested in ``tests/core/methods/test_diagnostics.py``):

- chains are split in halves (the middle draw is dropped when the count is odd);
- rank normalisation: ranks over all pooled draws (ties averaged), then
  ``z = Phi^-1((r - 3/8) / (S + 1/4))``;
- R-hat = max(split R-hat of z, split R-hat of z of ``|x - median|``) ("folded" tail R-hat);
- bulk ESS = ESS of z on split chains; tail ESS = min of the ESS of the indicators
  ``x <= q_0.05`` and ``x <= q_0.95``;
- ESS uses FFT autocovariances and Geyer's initial monotone sequence, truncated at the first
  negative pair sum, with ``tau >= 1 / log10(S)`` as in Stan and ArviZ.
"""

from __future__ import annotations

import numpy as np
from scipy import special
from scipy.fft import irfft, next_fast_len, rfft

__all__ = ["RHAT_WARN", "ess_bulk", "ess_tail", "rhat", "summary"]

RHAT_WARN = 1.01  # METHODS 6: warn when R-hat exceeds this


def _split(x: np.ndarray) -> np.ndarray:
    """``(..., C, N) -> (..., 2C, N // 2)``: first and last half of each chain as chains."""
    half = x.shape[-1] // 2
    return np.concatenate([x[..., :half], x[..., x.shape[-1] - half :]], axis=-2)


def _ranks(flat: np.ndarray) -> np.ndarray:
    """Ranks 1..S along the last axis, ties averaged (as ``scipy.stats.rankdata`` "average").

    One argsort per row; rows without ties get the sorted positions directly; in rows with ties
    a tie group spanning sorted positions ``f..l`` gets ``(f + l) / 2 + 1``.
    """
    size = flat.shape[-1]
    order = np.argsort(flat, axis=-1)
    ordered = np.take_along_axis(flat, order, axis=-1)
    new = np.ones(flat.shape, bool)
    new[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    pos = np.arange(size)
    value = np.broadcast_to(pos + 1.0, flat.shape)
    tied = ~new.all(axis=-1)
    if tied.any():
        value = value.copy()
        nt = new[tied]
        first = np.maximum.accumulate(np.where(nt, pos, 0), axis=-1)
        last_flag = np.ones(nt.shape, bool)
        last_flag[..., :-1] = nt[..., 1:]
        last = np.flip(np.minimum.accumulate(np.flip(np.where(last_flag, pos, size), -1), -1), -1)
        value[tied] = (first + last) / 2.0 + 1.0
    ranks = np.empty(flat.shape)
    np.put_along_axis(ranks, order, value, axis=-1)
    return ranks


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Rank-normalise over the last two axes (pooled draws), Blom's offset 3/8."""
    flat = x.reshape(*x.shape[:-2], -1)
    size = flat.shape[-1]
    return special.ndtri((_ranks(flat) - 0.375) / (size + 0.25)).reshape(x.shape)


def _rhat_plain(x: np.ndarray) -> np.ndarray:
    """Classic (non-split) potential scale reduction factor of ``(..., C, N)`` draws."""
    n = x.shape[-1]
    between = n * np.var(x.mean(axis=-1), axis=-1, ddof=1)
    within = np.var(x, axis=-1, ddof=1).mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def _autocov(x: np.ndarray) -> np.ndarray:
    """Autocovariance at every lag along the last axis (biased, divided by N), by FFT."""
    n = x.shape[-1]
    m = next_fast_len(2 * n)
    centred = x - x.mean(axis=-1, keepdims=True)
    f = rfft(centred, n=m, axis=-1)
    return irfft(f.real**2 + f.imag**2, n=m, axis=-1)[..., :n] / n


CHUNK = 32  # parameters per FFT batch: small batches stay in cache (3-4x faster than one batch)


def _rho(flat: np.ndarray) -> np.ndarray:
    """Combined-chain autocorrelation estimates ``(P, N)`` of ``(P, C, N)`` draws (Stan/ArviZ)."""
    _, c, n = flat.shape
    rho = np.empty((flat.shape[0], n))
    for lo in range(0, flat.shape[0], CHUNK):
        part = flat[lo : lo + CHUNK]
        acov = _autocov(part)  # (p, C, N)
        mean_var = acov[:, :, 0].mean(axis=-1) * n / (n - 1.0)
        var_plus = mean_var * (n - 1.0) / n
        if c > 1:
            var_plus = var_plus + np.var(part.mean(axis=-1), axis=-1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            rho[lo : lo + CHUNK] = 1.0 - (mean_var[:, None] - acov.mean(axis=1)) / var_plus[:, None]
    return rho


def _ess(x: np.ndarray) -> np.ndarray:
    """Effective sample size of ``(..., C, N)`` draws (chains as given; split beforehand)."""
    x = np.asarray(x, dtype=float)
    c, n = x.shape[-2:]
    lead = x.shape[:-2]
    flat = x.reshape(-1, c, n)
    rho = _rho(flat)
    rho[:, 0] = 1.0
    # Pairs (rho_2k, rho_2k+1) for k = 0..kmax, as far as Stan/ArviZ look (lag index < N - 1).
    kmax = max((n - 2 + 1) // 2 - 1, 0)
    even = rho[:, 0 : 2 * kmax + 1 : 2]
    odd = rho[:, 1 : 2 * kmax + 2 : 2]
    pairs = even + odd  # (P, kmax + 1)
    negative = pairs < 0
    # f: the first pair with a negative sum, or the last pair looked at; pairs before f are summed,
    # the even term of pair f is added once if positive (Geyer's initial positive sequence).
    f = np.where(negative.any(axis=1), negative.argmax(axis=1), kmax)
    monotone = np.minimum.accumulate(pairs, axis=1)  # Geyer's initial monotone sequence
    k = np.arange(pairs.shape[1])
    body = np.where(k[None, :] < f[:, None], monotone, 0.0).sum(axis=1)
    last_even = np.take_along_axis(even, f[:, None], axis=1)[:, 0]
    tau = -1.0 + 2.0 * body + np.maximum(last_even, 0.0)
    total = c * n
    tau = np.maximum(tau, 1.0 / np.log10(total))
    ess = total / tau
    constant = (flat.max(axis=(1, 2)) - flat.min(axis=(1, 2))) < np.finfo(float).resolution
    ess = np.where(constant, float(total), ess)
    ess = np.where(np.isnan(rho).any(axis=1) & ~constant, np.nan, ess)
    return ess.reshape(lead)


def _rhat_from(s: np.ndarray, z: np.ndarray) -> np.ndarray:
    """R-hat of split draws ``s`` whose rank-normalised values ``z`` are already known."""
    med = np.median(s.reshape(*s.shape[:-2], -1), axis=-1)[..., None, None]
    return np.maximum(_rhat_plain(z), _rhat_plain(_z_scale(np.abs(s - med))))


def rhat(x: np.ndarray) -> np.ndarray:
    """Rank-normalised split R-hat: max of the bulk and folded (tail) versions.

    Parameters
    ----------
    x
        ``(..., chains, draws)`` with at least 2 chains and 4 draws.

    Returns
    -------
    numpy.ndarray
        ``(...)`` R-hat values (1 at convergence; warn above :data:`RHAT_WARN`).
    """
    s = _split(np.asarray(x, dtype=float))
    return _rhat_from(s, _z_scale(s))


def ess_bulk(x: np.ndarray) -> np.ndarray:
    """Bulk effective sample size (ESS of the rank-normalised split chains), ``(...)``."""
    return _ess(_z_scale(_split(np.asarray(x, dtype=float))))


def ess_tail(x: np.ndarray, *, prob: float = 0.05) -> np.ndarray:
    """Tail ESS: min of the ESS of ``1{x <= q_prob}`` and ``1{x <= q_(1-prob)}``, ``(...)``."""
    x = np.asarray(x, dtype=float)
    pooled = x.reshape(*x.shape[:-2], -1)
    q = np.moveaxis(np.quantile(pooled, [prob, 1.0 - prob], axis=-1), 0, -1)  # (..., 2)
    below = x[..., None, :, :] <= q[..., None, None]  # (..., 2, C, N)
    return _ess(_split(below.astype(float))).min(axis=-1)


def summary(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rhat, ess_bulk, ess_tail)`` of ``(..., chains, draws)``, sharing the rank work."""
    x = np.asarray(x, dtype=float)
    s = _split(x)
    z = _z_scale(s)
    return _rhat_from(s, z), _ess(z), ess_tail(x)
