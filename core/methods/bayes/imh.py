"""Independence Metropolis-Hastings for per-model 2-D posteriors, vectorised over models.

Used by :mod:`core.methods.bayes` (METHODS 6) for ``(eta, lambda) = (logit mean, log
concentration)`` of each model's Beta parameters under the collapsed (beta-binomial) posterior, but
written for any target ``logp(x, y) -> log density`` that is evaluated elementwise over arrays
``(..., M)`` with one independent 2-D target per model (last axis).

1. :func:`fit_proposal` finds each target's mean and covariance by iterated grid quadrature:
   a 24 x 24 grid on a box that starts wide and is re-centred on the weighted mean with half-widths
   of 5 standard deviations (at least 1.5 grid spacings, so a target narrower than the grid is
   zoomed in on) until the spacing is at most half a standard deviation and the box edges carry
   negligible weight. No derivatives or optimiser, so skewed, flat or boundary-hugging targets
   (all tasks at 0% or 100%, one task, tiny n) still give usable moments.
2. The proposal is a defensive mixture of multivariate t distributions with :data:`DF` degrees of
   freedom: weight ``1 - WIDE_SHARE`` on scale matrix ``SCALE * cov`` and ``WIDE_SHARE`` on ``9 x``
   that (three times the width), so the importance weight ``target / proposal`` stays bounded
   where the moments under-describe the target.
   :class:`Switch` lets each model use a proposal fitted in other coordinates (any map with unit
   Jacobian); :func:`quality` (importance-sampling efficiency on pilot draws) picks between them.
3. :func:`run` draws every proposal and its log density in one batch, evaluates the target at all
   of them in a few vectorised calls, and then runs only the accept/reject recursion in a loop
   over iterations (one comparison on ``(chains, M)`` arrays per iteration). The chain is exact
   MCMC for any proposal; a good proposal only makes it mix faster.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special

from benchuq.core.budget import checkpoint

__all__ = ["LogDensity", "Proposal", "Switch", "fit_proposal", "quality", "run"]

LogDensity = Callable[[np.ndarray, np.ndarray], np.ndarray]

GRID = 24  # grid points per coordinate in fit_proposal
DF = 10.0  # degrees of freedom of the t proposal
SCALE = 0.9  # t scale matrix = SCALE * target covariance (t10 covariance: 1.25 x scale)
WIDE_SHARE = 0.05  # mixture weight of the three-times-wider component
CELLS_PER_CALL = 2_000_000  # bound on proposals x cells per target call (memory)


def fit_proposal(
    logp: LogDensity,
    x0: np.ndarray,
    y0: np.ndarray,
    half0: tuple[float, float],
    bound: float,
    *,
    rounds: int = 12,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean ``(M, 2)`` and covariance ``(M, 2, 2)`` of each model's target, and whether its grid
    was resolved ``(M,)`` (otherwise the last round's moments are returned).

    ``x0, y0`` ``(M,)``: first centres; ``half0``: first half-widths; both coordinates are
    confined to ``[-bound, bound]``.
    """
    m = x0.size
    u = np.linspace(-1.0, 1.0, GRID)
    ux, uy = (g.ravel()[:, None] for g in np.meshgrid(u, u, indexing="ij"))  # (G^2, 1)
    edge = ((np.abs(ux) == 1.0) | (np.abs(uy) == 1.0))[:, 0]
    centre = np.stack([x0, y0], axis=-1)
    half = np.tile(np.asarray(half0, float), (m, 1))
    mean, cov = centre.copy(), np.zeros((m, 2, 2))
    resolved = np.zeros(m, bool)
    for _ in range(rounds):
        lo = np.maximum(centre - half, -bound)
        hi = np.minimum(centre + half, bound)
        mid, h = (lo + hi) / 2.0, np.maximum((hi - lo) / 2.0, 1e-12)
        x = mid[:, 0] + ux * h[:, 0]
        y = mid[:, 1] + uy * h[:, 1]
        lp = logp(x, y)  # (G^2, M)
        with np.errstate(invalid="ignore"):
            w = np.exp(lp - lp.max(axis=0))
        w = np.nan_to_num(w, nan=0.0)
        w /= w.sum(axis=0)
        mx, my = (w * x).sum(axis=0), (w * y).sum(axis=0)
        dx, dy = x - mx, y - my
        cxx, cyy, cxy = (w * dx * dx).sum(0), (w * dy * dy).sum(0), (w * dx * dy).sum(0)
        mean = np.stack([mx, my], axis=-1)
        cov = np.stack([np.stack([cxx, cxy], -1), np.stack([cxy, cyy], -1)], -2)
        sd = np.sqrt(np.stack([cxx, cyy], axis=-1))
        spacing = 2.0 * h / (GRID - 1)
        at_bound = (lo <= -bound) | (hi >= bound)
        fine = np.all(spacing <= 0.5 * sd, axis=-1)
        wide = np.all((h >= 4.0 * sd) | at_bound, axis=-1) & (w[edge].max(axis=0) < 1e-3)
        resolved = fine & wide
        if resolved.all():
            break
        centre = mean
        half = np.maximum(5.0 * sd, 1.5 * spacing)
    # floor the variances (a target narrower than float resolution still needs a proposal)
    cov = cov + np.eye(2) * 1e-12
    return mean, cov, resolved


def _t_logpdf(z2: np.ndarray, logdet: np.ndarray) -> np.ndarray:
    """Log density of a bivariate t(DF) at squared Mahalanobis distance ``z2``."""
    c = special.gammaln((DF + 2) / 2) - special.gammaln(DF / 2) - np.log(DF * np.pi)
    return c - 0.5 * logdet - (DF + 2) / 2 * np.log1p(z2 / DF)


class Proposal:
    """The defensive t mixture of one model per element of the last axis."""

    def __init__(self, mean: np.ndarray, cov: np.ndarray) -> None:
        self.mean = mean  # (M, 2)
        self.chol = np.linalg.cholesky(SCALE * cov)  # (M, 2, 2), lower
        self.inv = np.linalg.inv(self.chol)
        self.logdet = 2.0 * np.log(np.diagonal(self.chol, axis1=-2, axis2=-1)).sum(-1)

    def sample(
        self, rng: np.random.Generator, size: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(x, y)`` each ``(*size, M)``."""
        m = self.mean.shape[0]
        z = rng.standard_normal((*size, m, 2))
        radius = np.sqrt(DF / rng.chisquare(DF, (*size, m)))
        radius = np.where(rng.random((*size, m)) < WIDE_SHARE, 3.0 * radius, radius)
        (l00, l10, l11) = self.chol[:, 0, 0], self.chol[:, 1, 0], self.chol[:, 1, 1]
        z0, z1 = z[..., 0] * radius, z[..., 1] * radius
        return self.mean[:, 0] + l00 * z0, self.mean[:, 1] + l10 * z0 + l11 * z1

    def logpdf(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Log density of the proposal at ``(x, y)``, one value per model (``(..., M)``)."""
        dx, dy = x - self.mean[:, 0], y - self.mean[:, 1]
        z0 = self.inv[:, 0, 0] * dx  # the inverse of a lower-triangular matrix is lower
        z1 = self.inv[:, 1, 0] * dx + self.inv[:, 1, 1] * dy
        z2 = z0 * z0 + z1 * z1
        narrow = _t_logpdf(z2, self.logdet)
        wide = _t_logpdf(z2 / 9.0, self.logdet + 2.0 * np.log(9.0))
        return np.logaddexp(np.log1p(-WIDE_SHARE) + narrow, np.log(WIDE_SHARE) + wide)


class Switch:
    """Per model, one of two proposals: ``first`` in the target's coordinates ``(x, y)``, or
    ``second`` in other coordinates ``(u, v) = to_second(x, y)`` (``from_second`` is the
    inverse). The change of coordinates must have unit Jacobian, so a density in ``(u, v)`` is
    the same number as the density in ``(x, y)`` at the mapped point."""

    def __init__(
        self,
        first: Proposal,
        second: Proposal,
        use_second: np.ndarray,
        to_second: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
        from_second: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    ) -> None:
        self.first, self.second, self.use_second = first, second, use_second
        self.to_second, self.from_second = to_second, from_second

    def sample(
        self, rng: np.random.Generator, size: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``size`` draws per model: from the first proposal, or the second where it is used."""
        x1, y1 = self.first.sample(rng, size)
        x2, y2 = self.from_second(*self.second.sample(rng, size))
        return np.where(self.use_second, x2, x1), np.where(self.use_second, y2, y1)

    def logpdf(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Log density at ``(x, y)`` of the proposal each model uses."""
        with np.errstate(invalid="ignore", over="ignore"):
            second = self.second.logpdf(*self.to_second(x, y))
        return np.where(self.use_second, second, self.first.logpdf(x, y))


def quality(
    logp: LogDensity, proposal: Proposal, rng: np.random.Generator, *, size: int = 256
) -> np.ndarray:
    """Importance-sampling efficiency ``(sum w)^2 / (size sum w^2)`` of ``proposal`` for each
    model's target, ``(M,)`` in ``[0, 1]`` (1 = proposal equals target); from ``size`` draws."""
    x, y = proposal.sample(rng, (size,))
    with np.errstate(invalid="ignore", over="ignore"):
        lw = np.nan_to_num(logp(x, y) - proposal.logpdf(x, y), nan=-np.inf)
    top = lw.max(axis=0)
    w = np.exp(lw - np.where(np.isfinite(top), top, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        q = w.sum(axis=0) ** 2 / (size * (w * w).sum(axis=0))
    return np.nan_to_num(q, nan=0.0)


def run(
    logp: LogDensity,
    proposal: Proposal | Switch,
    x0: np.ndarray,
    y0: np.ndarray,
    iterations: int,
    rng: np.random.Generator,
    *,
    cells: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``iterations`` independence MH steps from ``(x0, y0)`` ``(C, M)``.

    Returns the states ``x, y`` ``(iterations, C, M)`` and ``accepted`` (same shape). ``cells``
    (cells per model in the target, e.g. tasks) only sets the batch size of target calls.
    Each batch checks whether the work was stopped (``core.budget.checkpoint``: a closed tab).
    """
    c, m = x0.shape
    px, py = proposal.sample(rng, (iterations, c))
    log_w = np.empty((iterations, c, m))
    step = max(1, CELLS_PER_CALL // max(c * m * cells, 1))
    for lo in range(0, iterations, step):
        checkpoint("The Bayesian sampler")
        sl = slice(lo, lo + step)
        log_w[sl] = logp(px[sl], py[sl]) - proposal.logpdf(px[sl], py[sl])
    log_w = np.nan_to_num(log_w, nan=-np.inf)
    log_u = np.log(rng.random((iterations, c, m)))
    current = np.nan_to_num(logp(x0, y0) - proposal.logpdf(x0, y0), nan=-np.inf)
    source = np.full((c, m), -1)
    index = np.empty((iterations, c, m), np.int64)
    accepted = np.empty((iterations, c, m), bool)
    for t in range(iterations):
        # accept with probability min(1, w(proposal) / w(current)); a state of weight 0 (outside
        # the support, e.g. a start beyond the bounds) is always left
        acc = (log_u[t] < log_w[t] - current) | (current == -np.inf)
        acc &= log_w[t] > -np.inf
        accepted[t] = acc
        current = np.where(acc, log_w[t], current)
        source = np.where(acc, t, source)
        index[t] = source
    started = index >= 0
    safe = np.maximum(index, 0)
    x = np.where(started, np.take_along_axis(px, safe, axis=0), x0)
    y = np.where(started, np.take_along_axis(py, safe, axis=0), y0)
    return x, y, accepted
