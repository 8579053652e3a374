"""The samplers of the hierarchical model (METHODS 6): the Gibbs sweep with slice steps on
``(eta, lambda)``, the independence Metropolis-Hastings sampler and the diagnostics of their
chains; :func:`core.methods.bayes.model.fit` runs them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import special

from benchuq.core.budget import BudgetExceeded, Deadline
from benchuq.core.methods.bayes import diagnostics
from benchuq.core.methods.bayes import imh as bayes_imh
from benchuq.core.methods.bayes.priors import LogPrior, ModelPrior
from benchuq.core.methods.bayes.result import BOUND
from benchuq.core.options import option

__all__ = [
    "diagnose",
    "gibbs",
    "independence",
    "log_conditional",
    "slice_step",
]


def _log_gamma_draw(shape: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``log X`` for ``X ~ Gamma(shape, 1)``, finite even for tiny shapes.

    For ``shape < 1`` it uses ``log Gamma(s) = log Gamma(s + 1) + log(U) / s`` (Marsaglia-Tsang
    boost), which keeps the log finite where the variate itself would underflow to 0.
    """
    small = shape < 1.0
    if not small.any():
        return np.log(rng.standard_gamma(shape))
    boosted = np.log(rng.standard_gamma(shape + small))
    with np.errstate(divide="ignore"):
        return boosted + np.where(small, np.log(rng.random(shape.shape)) / shape, 0.0)


def _log_beta_draw(
    alpha: np.ndarray, beta: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(log theta, log(1 - theta))`` for ``theta ~ Beta(alpha, beta)`` as ``X / (X + Y)``."""
    lx = _log_gamma_draw(alpha, rng)
    ly = _log_gamma_draw(beta, rng)
    lz = np.logaddexp(lx, ly)
    return lx - lz, ly - lz


def log_conditional(
    eta: np.ndarray,
    lam: np.ndarray,
    s1: np.ndarray,
    s2: np.ndarray,
    ntask: np.ndarray,
    log_pa: LogPrior,
    log_pb: LogPrior,
) -> np.ndarray:
    """Log density of ``(eta, lambda) | theta`` up to a constant (arrays ``(..., M)``).

    ``log p(a) + log p(b) + T_i [lgamma(a + b) - lgamma(a) - lgamma(b)] + (a - 1) S1 + (b - 1) S2``
    (METHODS 6, with ``S1 = sum_j log theta_ij``, ``S2 = sum_j log(1 - theta_ij)`` over the
    model's ``T_i`` tasks) plus the Jacobian ``2 lambda + log mu + log(1 - mu)``.
    """
    ec = np.clip(eta, -BOUND, BOUND)
    lc = np.clip(lam, -BOUND, BOUND)
    log_mu = -np.logaddexp(0.0, -ec)
    log_nu = log_mu - ec
    a = np.exp(lc + log_mu)
    b = np.exp(lc + log_nu)
    out = ntask * (special.gammaln(np.exp(lc)) - special.gammaln(a) - special.gammaln(b))
    out += log_pa(a) + log_pb(b) + (a - 1.0) * s1 + (b - 1.0) * s2 + 2.0 * lc + log_mu + log_nu
    return np.where((ec == eta) & (lc == lam), out, -np.inf)


class _Conditional:
    """:func:`log_conditional` as a function of one coordinate with the other fixed, with the
    terms that do not change precomputed (the slice sampler's inner loop calls these)."""

    def __init__(
        self,
        s1: np.ndarray,
        s2: np.ndarray,
        ntask: np.ndarray,
        log_pa: LogPrior,
        log_pb: LogPrior,
    ) -> None:
        self.s1, self.s2, self.ntask = s1, s2, ntask
        self.log_pa, self.log_pb = log_pa, log_pb

    def eta_step(self, lam: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        s1, s2, nt = self.s1, self.s2, self.ntask
        const = nt * special.gammaln(np.exp(lam)) + 2.0 * lam - s1 - s2

        def f(eta: np.ndarray) -> np.ndarray:
            log_mu = -np.logaddexp(0.0, -eta)
            log_nu = log_mu - eta
            a = np.exp(lam + log_mu)
            b = np.exp(lam + log_nu)
            out = const + self.log_pa(a) + self.log_pb(b) + a * s1 + b * s2 + log_mu + log_nu
            out -= nt * (special.gammaln(a) + special.gammaln(b))
            return np.where(np.abs(eta) <= BOUND, out, -np.inf)

        return f

    def lam_step(self, eta: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        s1, s2, nt = self.s1, self.s2, self.ntask
        log_mu = -np.logaddexp(0.0, -eta)
        log_nu = log_mu - eta
        mu, nu = np.exp(log_mu), np.exp(log_nu)
        const = log_mu + log_nu - s1 - s2
        slope = mu * s1 + nu * s2

        def f(lam: np.ndarray) -> np.ndarray:
            kappa = np.exp(lam)
            a, b = mu * kappa, nu * kappa
            out = const + 2.0 * lam + kappa * slope + self.log_pa(a) + self.log_pb(b)
            out += nt * (special.gammaln(kappa) - special.gammaln(a) - special.gammaln(b))
            return np.where(np.abs(lam) <= BOUND, out, -np.inf)

        return f


def slice_step(
    x0: np.ndarray,
    f0: np.ndarray,
    logf: Callable[[np.ndarray], np.ndarray],
    width: np.ndarray,
    rng: np.random.Generator,
    *,
    max_steps: int = 32,
    batch: int = 1,
    max_rounds: int = 500,
) -> tuple[np.ndarray, np.ndarray]:
    """One univariate slice-sampling update of every element of ``x0`` at once (Neal 2003).

    Stepping out with at most ``max_steps`` widths (Neal's Fig. 3), then shrinkage (Fig. 5);
    elements advance in lock-step, masks freeze the ones already done. ``logf`` maps an array
    shaped like ``x0``, or with extra leading axes, to elementwise log densities. Returns the new
    points and their ``logf``.

    ``batch > 1`` evaluates several steps of each procedure in one call of ``logf``: the next
    ``batch`` interval ends, and the next ``batch`` shrinkage proposals (each drawn from the
    interval left after the earlier ones, as if they were rejected, which is the only case in
    which it is used). The first end outside the slice / first proposal inside it is taken, so
    the result has exactly the distribution of the one-at-a-time procedure; it trades more
    evaluations for fewer calls (worth it when ``logf`` is cheap).

    Shrinkage ends after ``max_rounds`` calls of ``logf``: an interval that shrank that far
    without a point in the slice means the density is not representable in floating point there
    (e.g. counts near 10**15); that is a :class:`~benchuq.core.budget.BudgetExceeded`.
    """
    shape = x0.shape
    lead = (1,) * len(shape)
    logy = f0 - rng.standard_exponential(shape)
    left = x0 - width * rng.random(shape)
    right = left + width
    # Step out both ends together: candidates ends + direction * width * (0..batch-1).
    j = np.floor(max_steps * rng.random(shape))
    ends = np.stack([left, right])
    budget = np.stack([j, max_steps - 1 - j])
    direction = np.array([-1.0, 1.0]).reshape((2, *lead))
    offsets = np.arange(batch, dtype=float).reshape((batch, 1, *lead))
    active = budget > 0
    while active.any():
        cand = ends + direction * width * offsets  # (batch, 2, *shape)
        moving = (logf(cand) > logy) & (offsets < budget)
        moves = np.where(moving.all(axis=0), batch, moving.argmin(axis=0)) * active
        ends = ends + direction * width * moves
        budget = budget - moves
        active &= (moves == batch) & (budget > 0)
    left, right = ends
    x1, f1 = x0.copy(), f0.copy()
    todo = np.ones(shape, bool)
    for _ in range(max_rounds):
        if not todo.any():
            break
        props = np.empty((batch, *shape))
        for b in range(batch):
            props[b] = left + rng.random(shape) * (right - left)
            below = props[b] < x0
            left = np.where(below, props[b], left)
            right = np.where(below, right, props[b])
        fp = logf(props)
        inside = fp > logy
        first = inside.argmax(axis=0)
        accept = todo & inside.any(axis=0)
        x1 = np.where(accept, np.choose(first, props), x1)
        f1 = np.where(accept, np.choose(first, fp), f1)
        todo &= ~accept
    if todo.any():
        raise BudgetExceeded(
            f"the slice sampler found no new point after {max_rounds} shrinkage steps (the "
            "posterior is too narrow for floating point, e.g. with very large counts).",
            hint=f"use the bootstrap ({option('method', 'bootstrap')}).",
        )
    return x1, f1


def _moment_start(
    k: np.ndarray, n: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Method-of-moments ``(eta, lambda)`` ``(M,)`` of each model's observed scores."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(present, k / np.where(n > 0, n, 1), np.nan)
        mean = np.clip(np.nan_to_num(np.nanmean(p, axis=1), nan=0.5), 0.02, 0.98)
        var = np.nanvar(p, axis=1)
        conc = np.where(var > 0, mean * (1 - mean) / var - 1.0, 10.0)
    conc = np.clip(np.nan_to_num(conc, nan=10.0), 1.0, 1e5)
    return special.logit(mean), np.log(conc)


def _starts(
    k: np.ndarray, n: np.ndarray, present: np.ndarray, chains: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Dispersed starting ``(eta, lambda)``, ``(chains, M)``, around method-of-moments values."""
    eta, lam = _moment_start(k, n, present)
    m = k.shape[0]
    eta = eta + rng.uniform(-1.5, 1.5, (chains, m))
    lam = lam + rng.uniform(-2.0, 2.0, (chains, m))
    return eta, lam


def gibbs(
    k: np.ndarray,
    n: np.ndarray,
    present: np.ndarray,
    priors: tuple[ModelPrior, ...],
    *,
    chains: int,
    draws: int,
    warmup: int,
    thin: int,
    rng: np.random.Generator,
    deadline: Deadline | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run the sampler; returns ``a, b`` ``(chains, draws, M)`` and ``theta`` ``(chains, draws,
    M, T)`` (``nan`` where not ``present``). Models are independent a posteriori, so their
    samplers share nothing but the loop. ``deadline`` is checked once a sweep."""
    m, t = k.shape
    kk = np.where(present, k, 0).astype(float)
    ff = np.where(present, n - k, 0).astype(float)
    ntask = present.sum(axis=1).astype(float)
    log_pa = LogPrior([p.a for p in priors])
    log_pb = LogPrior([p.b for p in priors])
    marginal = _Marginal(kk, ff, log_pa, log_pb)
    eta, lam = _starts(k, n, present, chains, rng)
    lt, l1t = _theta_step(eta, lam, kk, ff, rng)
    width = np.ones((2, 1, m))
    keep_a = np.empty((chains, draws, m))
    keep_b = np.empty((chains, draws, m))
    keep_theta = np.full((chains, draws, m, t), np.nan)
    tune = np.empty((2, max(warmup - warmup // 2, 0), chains, m))
    total = warmup + draws * thin
    for it in range(total):
        if deadline is not None:
            deadline.check("use fewer chains, draws or warm-up sweeps, or the imh sampler.")
        # (a, b) | theta: the METHODS 6 conditional
        s1 = np.where(present, lt, 0.0).sum(axis=-1)
        s2 = np.where(present, l1t, 0.0).sum(axis=-1)
        cond = _Conditional(s1, s2, ntask, log_pa, log_pb)
        step = cond.eta_step(lam)
        eta, f = slice_step(eta, step(eta), step, width[0], rng, batch=6)
        lam, _ = slice_step(lam, f, cond.lam_step(eta), width[1], rng, batch=6)
        # every other sweep: (a, b) | k with theta integrated out, then theta | a, b, k (blocked)
        if it % 2 == 0:
            step = marginal.eta_step(lam)
            eta, f = slice_step(eta, step(eta), step, width[0], rng, batch=2)
            lam, _ = slice_step(lam, f, marginal.lam_step(eta), width[1], rng, batch=2)
        lt, l1t = _theta_step(eta, lam, kk, ff, rng)
        if warmup // 2 <= it < warmup:
            tune[:, it - warmup // 2] = eta, lam
        if it == warmup - 1 and tune.shape[1] > 1:
            sd = tune.reshape(2, -1, m).std(axis=1)
            width = np.clip(2.5 * sd, 1e-3, 10.0)[:, None, :]
        kept = it - warmup
        if kept >= 0 and kept % thin == 0:
            d = kept // thin
            keep_theta[:, d] = np.where(present, np.exp(lt), np.nan)
            keep_a[:, d] = np.exp(lam - np.logaddexp(0.0, -eta))
            keep_b[:, d] = np.exp(lam - np.logaddexp(0.0, eta))
    return keep_a, keep_b, keep_theta


def independence(
    k: np.ndarray,
    n: np.ndarray,
    present: np.ndarray,
    priors: tuple[ModelPrior, ...],
    *,
    chains: int,
    draws: int,
    warmup: int,
    thin: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Independence MH on the collapsed posterior of ``(eta, lambda)``, then conjugate theta.

    Returns ``a, b`` ``(chains, draws, M)``, ``theta`` ``(chains, draws, M, T)`` (``nan`` where
    not ``present``) and the acceptance rate of each model and chain after warm-up ``(chains,
    M)``. See :mod:`core.bayes_imh` for the proposal.
    """
    t = k.shape[1]
    kk = np.where(present, k, 0).astype(float)
    ff = np.where(present, n - k, 0).astype(float)
    marginal = _Marginal(kk, ff, LogPrior([p.a for p in priors]), LogPrior([p.b for p in priors]))
    eta0, lam0 = _starts(k, n, present, chains, rng)
    proposal = _proposal(marginal, *_moment_start(k, n, present), rng)
    total = warmup + draws * thin
    eta, lam, accepted = bayes_imh.run(marginal, proposal, eta0, lam0, total, rng, cells=t)
    keep = slice(warmup, total, thin)
    eta, lam = eta[keep].swapaxes(0, 1), lam[keep].swapaxes(0, 1)
    a = np.exp(lam - np.logaddexp(0.0, -eta))
    b = np.exp(lam - np.logaddexp(0.0, eta))
    theta = rng.beta(a[..., None] + kk, b[..., None] + ff)
    theta = np.where(present, theta, np.nan)
    return a, b, theta, accepted[warmup:].mean(axis=0)


def _to_log_ab(eta: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return lam - np.logaddexp(0.0, -eta), lam - np.logaddexp(0.0, eta)


def _from_log_ab(la: np.ndarray, lb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return la - lb, np.logaddexp(la, lb)


def _proposal(
    marginal: _Marginal, eta0: np.ndarray, lam0: np.ndarray, rng: np.random.Generator
) -> bayes_imh.Switch:
    """The independence proposal of each model, in the better of two coordinate systems.

    **Choice.** The t mixture is fitted both in ``(eta, lambda)`` and in ``(log a, log b)``
    (the map between them has unit Jacobian, so the target is the same function); each model
    uses the one with the higher importance-sampling efficiency on 256 pilot draws. ``(eta,
    lambda)`` suits data that pin the mean; ``(log a, log b)`` suits a tight prior on only one of
    ``a``, ``b`` (a curved ridge in ``(eta, lambda)``, straight in ``(log a, log b)``).
    """

    def log_ab_target(la: np.ndarray, lb: np.ndarray) -> np.ndarray:
        return marginal(*_from_log_ab(la, lb))

    first = bayes_imh.Proposal(
        *bayes_imh.fit_proposal(marginal, eta0, lam0, (10.0, 12.0), BOUND)[:2]
    )
    la0, lb0 = _to_log_ab(eta0, lam0)
    second = bayes_imh.Proposal(
        *bayes_imh.fit_proposal(log_ab_target, la0, lb0, (12.0, 12.0), BOUND)[:2]
    )
    better = bayes_imh.quality(log_ab_target, second, rng) > bayes_imh.quality(marginal, first, rng)
    return bayes_imh.Switch(first, second, better, _to_log_ab, _from_log_ab)


def _theta_step(
    eta: np.ndarray, lam: np.ndarray, kk: np.ndarray, ff: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Conjugate draw of theta: ``(log theta, log(1 - theta))``, ``(C, M, T)``."""
    a = np.exp(lam - np.logaddexp(0.0, -eta))[..., None]
    b = np.exp(lam - np.logaddexp(0.0, eta))[..., None]
    return _log_beta_draw(a + kk, b + ff, rng)


class _Marginal:
    """``log p(eta, lambda | k)`` with theta integrated out, up to a constant (beta-binomial):

    ``log p(a) + log p(b) + sum_j [lgamma(a + k_j) + lgamma(b + n_j - k_j) - lgamma(a + b + n_j)]
    + T [lgamma(a + b) - lgamma(a) - lgamma(b)]`` plus the Jacobian; cells without data have
    ``k = n = 0`` and cancel exactly.
    """

    def __init__(self, kk: np.ndarray, ff: np.ndarray, log_pa: LogPrior, log_pb: LogPrior) -> None:
        self.kk, self.ff, self.nn = kk, ff, kk + ff
        self.t = float(kk.shape[-1])
        self.log_pa, self.log_pb = log_pa, log_pb

    def __call__(self, eta: np.ndarray, lam: np.ndarray) -> np.ndarray:
        log_mu = -np.logaddexp(0.0, -eta)
        log_nu = log_mu - eta
        a = np.exp(lam + log_mu)
        b = np.exp(lam + log_nu)
        # sum_j lgamma(x + c_j) for the three cell terms, in place, summed by a matrix product
        # (much faster than .sum(axis=-1) over a short last axis)
        ones = np.ones(self.kk.shape[-1])
        cells = 0.0
        for x, c, sign in ((a, self.kk, 1.0), (b, self.ff, 1.0), (a + b, self.nn, -1.0)):
            buf = x[..., None] + c
            special.gammaln(buf, out=buf)
            cells = cells + sign * (buf @ ones)
        g0 = special.gammaln(a + b) - special.gammaln(a) - special.gammaln(b)
        out = self.log_pa(a) + self.log_pb(b) + cells + self.t * g0
        out = out + 2.0 * lam + log_mu + log_nu
        inside = (np.abs(eta) <= BOUND) & (np.abs(lam) <= BOUND)
        return np.where(inside, out, -np.inf)

    def eta_step(self, lam: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """``eta -> self(eta, lam)`` with the terms in ``a + b`` alone precomputed."""
        kappa = np.exp(lam)
        const = special.gammaln(kappa) * self.t + 2.0 * lam
        const = const - special.gammaln(kappa[..., None] + self.nn).sum(axis=-1)

        def f(eta: np.ndarray) -> np.ndarray:
            log_mu = -np.logaddexp(0.0, -eta)
            log_nu = log_mu - eta
            a = np.exp(lam + log_mu)
            b = np.exp(lam + log_nu)
            ga = special.gammaln(a[..., None] + self.kk).sum(axis=-1)
            gb = special.gammaln(b[..., None] + self.ff).sum(axis=-1)
            g0 = special.gammaln(a) + special.gammaln(b)
            out = const + self.log_pa(a) + self.log_pb(b) + ga + gb - self.t * g0
            out = out + log_mu + log_nu
            return np.where(np.abs(eta) <= BOUND, out, -np.inf)

        return f

    def lam_step(self, eta: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        return lambda lam: self(eta, lam)


def diagnose(
    a: np.ndarray,
    b: np.ndarray,
    theta: np.ndarray,
    present: np.ndarray,
    models: tuple[str, ...],
    tasks: tuple[str, ...],
) -> pd.DataFrame:
    """R-hat, bulk and tail ESS, mean and sd of every a_i, b_i, theta_ij and mean_i (METHODS 6)."""
    m = present.shape[0]
    mi, tj = np.nonzero(present)
    with np.errstate(invalid="ignore"):
        agg = np.nanmean(theta, axis=-1)  # (C, N, M)
    blocks = [
        ("a", np.moveaxis(a, -1, 0), list(models), [""] * m),
        ("b", np.moveaxis(b, -1, 0), list(models), [""] * m),
        ("mean", np.moveaxis(agg, -1, 0), list(models), [""] * m),
        (
            "theta",
            np.moveaxis(theta[:, :, mi, tj], -1, 0),
            [models[i] for i in mi],
            [tasks[j] for j in tj],
        ),
    ]
    stacked = np.concatenate([x for _, x, _, _ in blocks], axis=0)  # (P, C, N)
    rhat, ess_bulk, ess_tail = diagnostics.summary(stacked)
    return pd.DataFrame(
        {
            "parameter": [name for name, x, _, _ in blocks for _ in range(x.shape[0])],
            "model": [s for _, _, ms, _ in blocks for s in ms],
            "task": [s for _, _, _, ts in blocks for s in ts],
            "mean": stacked.mean(axis=(1, 2)),
            "sd": stacked.std(axis=(1, 2), ddof=1),
            "rhat": rhat,
            "ess_bulk": ess_bulk,
            "ess_tail": ess_tail,
        }
    )
