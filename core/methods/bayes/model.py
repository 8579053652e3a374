"""Bayesian hierarchical beta-binomial model and its two exact MCMC samplers (METHODS 6).

Model ([LGC] 2.2), per model i and task j::

    k_ij | theta_ij     ~ Binomial(n_ij, theta_ij)
    theta_ij | a_i, b_i ~ Beta(a_i, b_i)
    a_i ~ prior_a_i,  b_i ~ prior_b_i        (core.priors; default Exponential(rate 1e-4))

**Default sampler: independence Metropolis-Hastings** (:func:`independence`, ``sampler="imh"``).
Models are independent a posteriori and ``(a_i, b_i)`` has a 2-D collapsed posterior (theta
integrated out: prior x prod_j BetaBinomial(k_ij | n_ij, a_i, b_i), :class:`_Marginal`). Each
iteration proposes ``(eta, lambda) = (logit a/(a+b), log(a+b))`` independently of the current
state from a heavy-tailed t mixture fitted to that posterior's mean and covariance by grid
quadrature, and accepts with the Metropolis-Hastings ratio; after warm-up each kept ``(a, b)`` is
followed by the conjugate ``theta | a, b, k``. All proposals and their densities are computed in
a few vectorised batches (:mod:`core.bayes_imh`), so a fit costs about as much as evaluating the
beta-binomial likelihood ``(warmup + draws x thin) x chains`` times. Low acceptance falls back to
the Gibbs sampler per model (:data:`MIN_ACCEPT`; :func:`fit` documents the measurements).

**Gibbs sampler** (:func:`gibbs`, ``sampler="gibbs"``; one sweep, all models x chains in lock-step
with masked numpy loops):

1. ``(a_i, b_i) | theta`` by slice sampling (Neal 2003, stepping-out with limit + shrinkage),
   one coordinate at a time, with the METHODS 6 conditional density;
2. ``(a_i, b_i) | k`` with theta integrated out (beta-binomial likelihood), by the same slice
   steps, immediately followed by
3. ``theta_ij | rest ~ Beta(a_i + k_ij, b_i + n_ij - k_ij)`` (conjugate), drawn as ``X / (X + Y)``
   from log-gamma variates so ``log theta`` and ``log(1 - theta)`` stay finite even when a Beta
   parameter is tiny.

**Choice (blocked step 2-3).** Steps 2 and 3 together draw ``(a, b, theta)`` as one block
(``p(a, b | k) p(theta | a, b, k)``), which leaves the posterior unchanged. It is added to the
METHODS 6 Gibbs sweep because the plain sweep mixes very slowly when a model's tasks barely
differ (theta and the concentration ``a + b`` form a funnel): on the MMLU sample (a 70M model at
chance on 57 subjects) the minimum bulk ESS of 4 x 1,000 draws was 13 with step 1 alone, about
1,900 with step 2 in every sweep and about 1,000 with step 2 in every other sweep, which is what
runs (step 2 costs about three times step 1; on VTAB-1k all variants reach several thousand).
Every sweep ends with step 3, so the kept ``(a, b, theta)`` are always one joint state.

**Choice (reparametrisation).** The slice sampler moves ``eta = logit(a / (a + b))`` and
``lambda = log(a + b)`` rather than ``a`` and ``b``: the mean and the log concentration are
nearly independent a posteriori, whereas ``a`` and ``b`` are strongly correlated. The target in
the new coordinates is the METHODS 6 conditional plus the log Jacobian
``log |d(a, b) / d(eta, lambda)| = 2 lambda + log mu + log(1 - mu)``, so the posterior is unchanged
(``tests/core/methods/test_bayes.py`` checks the conditional against direct numerical integration,
and ``tests/core/methods/test_sbc.py`` checks calibration). The coordinates are confined to ``|eta|
<= 30`` and ``|lambda| <= 30`` (``a + b`` in ``[1e-13, 1e13]``) to keep floating point finite; the
proper priors put no measurable mass outside.

**Choice (missing cells).** Tasks a model has no result for are left out of its likelihood (their
theta integrate out exactly); their draws are ``nan``, as in the bootstrap.

**Choice (batched slice steps).** The cheap conditional updates evaluate 6 candidate interval
ends or shrinkage proposals per call, the marginal ones 2 (:func:`slice_step`, same
distribution as one at a time): about 20% less time on VTAB-1k.

**Choice (tuning).** Slice widths start at 1 on both coordinates; at the end of warm-up each
model's width is set to 2.5 posterior standard deviations estimated from the second half of
warm-up (pooled over chains) and then fixed, so the kept draws come from a fixed kernel.

Starting points are dispersed: the method-of-moments mean and concentration of each model's
observed scores, perturbed by U(-1.5, 1.5) on ``eta`` and U(-2, 2) on ``lambda`` per chain.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict, get_args

import numpy as np
import pandas as pd
from scipy import special, stats

from benchuq.core.budget import BudgetExceeded, Deadline, check_cells
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import COMPARISON_LEVEL, SEED
from benchuq.core.draws import Draws
from benchuq.core.methods.bayes import diagnostics
from benchuq.core.methods.bayes import imh as bayes_imh
from benchuq.core.methods.bayes.priors import LogPrior, ModelPrior
from benchuq.core.threads import blas_policy
from benchuq.core.validation import check_choice, check_known

__all__ = [
    "METHOD_NAMES",
    "MIN_ACCEPT",
    "BayesFit",
    "DrawKind",
    "Sampler",
    "counts_of",
    "diagnose",
    "fit",
    "gibbs",
    "independence",
    "log_conditional",
    "slice_step",
]

BOUND = 30.0  # |eta|, |lambda| limit of the slice coordinates
MIN_ACCEPT = 0.2  # below this acceptance rate (any chain) a model falls back to the Gibbs sampler
Sampler = Literal["imh", "gibbs"]
DrawKind = Literal["parameter", "predictive"]
METHOD_NAMES: dict[DrawKind, str] = {
    "parameter": "Bayesian hierarchical (parameter)",
    "predictive": "Bayesian hierarchical (posterior predictive)",
}


@dataclass(frozen=True, eq=False)
class BayesFit:
    """Posterior draws of the hierarchical model and their convergence diagnostics.

    Attributes
    ----------
    models, tasks, categories, higher_is_better
        labels of the data fitted.
    n, k
        ``(M, T)`` items and correct answers; ``present``: ``(M, T)`` cells with data.
    a, b
        ``(chains, draws, M)`` posterior draws of the Beta parameters.
    theta
        ``(chains, draws, M, T)`` posterior draws of per-task accuracy (proportions);
        ``nan`` where ``present`` is False.
    priors
        the prior of each model (aligned with ``models``).
    chains, draws, warmup, thin, seed
        run settings (``draws`` = kept draws per chain).
    diagnostics
        one row per quantity: ``parameter`` (``a``, ``b``, ``theta``, ``mean`` =
        mean of theta over the model's tasks), ``model``, ``task`` (empty for a, b, mean),
        ``mean``, ``sd``, ``rhat``, ``ess_bulk``, ``ess_tail``.
    seconds
        wall time of the sampler (excluding diagnostics).
    sampler
        ``"imh"`` or ``"gibbs"`` (see :func:`fit`).
    acceptance
        ``(M,)`` mean acceptance rate of the independence MH step after warm-up per
        model (``nan`` for models fitted by the Gibbs sampler); ``None`` for ``"gibbs"``.
    """

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    categories: tuple[str, ...]
    higher_is_better: np.ndarray
    n: np.ndarray
    k: np.ndarray
    present: np.ndarray
    a: np.ndarray
    b: np.ndarray
    theta: np.ndarray
    priors: tuple[ModelPrior, ...]
    chains: int
    draws: int
    warmup: int
    thin: int
    seed: int
    diagnostics: pd.DataFrame
    seconds: float
    sampler: Sampler = "gibbs"
    acceptance: np.ndarray | None = None

    @property
    def rhat_max(self) -> float:
        """Largest R-hat over all parameters (warn above 1.01)."""
        return float(self.diagnostics["rhat"].max())

    @property
    def ess_bulk_min(self) -> float:
        """Smallest bulk effective sample size over all parameters."""
        return float(self.diagnostics["ess_bulk"].min())

    @property
    def ess_tail_min(self) -> float:
        """Smallest tail effective sample size over all parameters."""
        return float(self.diagnostics["ess_tail"].min())

    @property
    def warnings(self) -> tuple[str, ...]:
        """Convergence warnings a user should read (R-hat > 1.01, bulk or tail ESS < 100)."""
        d = self.diagnostics
        out = []
        bad = d[d["rhat"] > diagnostics.RHAT_WARN]
        if len(bad):
            worst = bad.loc[bad["rhat"].idxmax()]
            out.append(
                f"R-hat above {diagnostics.RHAT_WARN} for {_quantities(len(bad))} (worst "
                f"{_label(worst)}: {worst['rhat']:.3f}); the chains have not converged — run "
                "more warm-up and draws, or check the priors."
            )
        low = d[np.minimum(d["ess_bulk"], d["ess_tail"]) < 100]
        if len(low):
            out.append(
                f"effective sample size below 100 for {_quantities(len(low))}; interval ends are "
                "imprecise — run more draws."
            )
        return tuple(out)

    def posterior_mean(self) -> np.ndarray:
        """``(M, T)`` posterior mean of theta (``nan`` where there is no data)."""
        return self.theta.mean(axis=(0, 1))

    def to_draws(self, *, kind: DrawKind = "parameter") -> Draws:
        """Posterior draws as :class:`core.draws.Draws`, ``R = chains x draws``.

        ``kind="parameter"``: values are theta. ``kind="predictive"``: values are ``k~ / n`` with
        ``k~ ~ Binomial(n, theta)`` (the posterior predictive of a fresh test set of the same size,
        [LGC] Table 7), drawn with a generator seeded by ``(seed, 1)`` so it is reproducible.

        **Choice.** ``Draws.observed`` is the posterior mean of theta for both kinds (as
        :class:`Draws` documents for Bayes), so Bayesian leaderboards centre on the shrunken
        estimate; the direct estimate ``k / n`` is in :meth:`direct`. ``paired=True``: the draws
        are one joint posterior.
        """
        check_choice(kind, get_args(DrawKind), name="kind of draws")
        c, d, m, t = self.theta.shape
        theta = self.theta.reshape(c * d, m, t)
        if kind == "predictive":
            rng = np.random.default_rng([self.seed, 1])
            p = np.where(self.present, theta, 0.5)
            values = rng.binomial(self.n, p) / np.where(self.present, self.n, 1)
            values = np.where(self.present, values, np.nan)
        else:
            values = theta.copy()
        notes = [f"priors: {_prior_text(self)}", *self.warnings]
        return Draws(
            values=values,
            observed=self.posterior_mean(),
            models=self.models,
            tasks=self.tasks,
            categories=self.categories,
            higher_is_better=self.higher_is_better,
            method=METHOD_NAMES[kind],
            paired=True,
            seed=self.seed,
            notes=tuple(notes),
        )

    def direct(self) -> np.ndarray:
        """``(M, T)`` direct estimates ``k / n`` (``nan`` where there is no data)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.present, self.k / self.n, np.nan)

    def shrinkage(self, model: str, *, level: float = COMPARISON_LEVEL) -> pd.DataFrame:
        """Direct vs posterior estimate of each task of ``model`` (METHODS 6, shrinkage).

        Columns: ``task``, ``category``, ``n``, ``direct`` (``k / n``) with its exact
        Clopper-Pearson interval ``direct_low``, ``direct_high``; ``posterior`` (mean of theta)
        with the central credible interval ``posterior_low``, ``posterior_high``; ``grand_mean``
        (posterior mean of ``a / (a + b)``, the point small tasks move toward). Tasks without data
        are left out.
        """
        i = self.models.index(model)
        keep = np.flatnonzero(self.present[i])
        k, n = self.k[i, keep], self.n[i, keep]
        alpha = (1.0 - level) / 2.0
        theta = self.theta[:, :, i, keep].reshape(-1, keep.size)
        lo, hi = np.quantile(theta, [alpha, 1.0 - alpha], axis=0)
        return pd.DataFrame(
            {
                "task": [self.tasks[j] for j in keep],
                "category": [self.categories[j] for j in keep],
                "n": n,
                "direct": k / n,
                "direct_low": np.where(k > 0, stats.beta.ppf(alpha, k, n - k + 1), 0.0),
                "direct_high": np.where(k < n, stats.beta.ppf(1 - alpha, k + 1, n - k), 1.0),
                "posterior": theta.mean(axis=0),
                "posterior_low": lo,
                "posterior_high": hi,
                "grand_mean": float((self.a[..., i] / (self.a[..., i] + self.b[..., i])).mean()),
            }
        )


def _quantities(n: int) -> str:
    return "1 quantity" if n == 1 else f"{n} quantities"


def _label(row: pd.Series) -> str:
    if row["task"]:
        return f"{row['parameter']}[{row['model']}, {row['task']}]"
    return f"{row['parameter']}[{row['model']}]"


def _prior_text(fit: BayesFit) -> str:
    texts = {str(p) for p in fit.priors}
    if len(texts) == 1:
        return f"every model {texts.pop()}"
    return "; ".join(f"{m}: {p}" for m, p in zip(fit.models, fit.priors, strict=True))


def counts_of(bench: Benchmark) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, k, present)`` of a benchmark with a binary metric; else :class:`DataError`."""
    if bench.n is None or bench.correct is None:
        raise DataError(
            f"the Bayesian model needs counts of correct answers (a binary metric), but "
            f"'{bench.name}' holds {bench.kind} data.",
            hint="use the bootstrap for non-binary metrics, or load item-level 0/1 scores or "
            "task counts n and correct.",
        )
    present = ~np.isnan(bench.estimate) & (np.asarray(bench.n) > 0)
    return np.asarray(bench.n, np.int64), np.asarray(bench.correct, np.int64), present


@blas_policy
class _SamplerSettings(TypedDict):
    """The settings :func:`fit` passes to both samplers."""

    chains: int
    draws: int
    warmup: int
    thin: int
    rng: np.random.Generator


def fit(
    bench: Benchmark,
    *,
    priors: Mapping[str, ModelPrior] | None = None,
    chains: int = 4,
    draws: int = 2000,
    warmup: int = 1000,
    thin: int = 1,
    seed: int = SEED,
    sampler: Sampler = "imh",
) -> BayesFit:
    """Fit the hierarchical model to a counts benchmark (METHODS 6).

    Parameters
    ----------
    bench
        data with counts (kind ``"counts"``, or binary items).
    priors
        per-model priors (from :func:`core.priors.parse_prior_specs`); models not named get
        the default ``exponential(1e-4)`` on a and b.
    chains
        independent chains (>= 2 for R-hat), dispersed starts.
    draws
        kept draws per chain, after thinning.
    warmup
        discarded sweeps per chain (Gibbs: also used to tune slice widths).
    thin
        keep every ``thin``-th sweep.
    seed
        seeds a ``numpy.random.Generator`` (PCG64); same seed, same draws.
    sampler
        ``"imh"`` (default): independence Metropolis-Hastings on the collapsed posterior
        of ``(a_i, b_i)`` followed by the conjugate theta draw (:func:`independence`);
        ``"gibbs"``: the METHODS 6 Gibbs sampler with slice steps (:func:`gibbs`). Both target
        the same posterior. ``warmup`` is the number of discarded iterations for both.

    **Choice (default sampler, by measurement).** On VTAB-1k (16 x 19; 4 chains x (1,000 +
    2,000)) the independence sampler accepts 87-88% of proposals and reaches a minimum bulk ESS of
    about 5,100 in 0.33 s; the Gibbs sampler about 6,300 in 4-5 s (``python
    benchmarks/bench_bayes.py [--sampler gibbs]``). On the MMLU sample (20 x 57, a model at chance
    on every subject: the funnel case) acceptance is 54% at worst (median 79%) and the minimum bulk
    ESS 2,159 in 2.5 s against 2,145 in 11.4 s. The proposal needs no tuning run, and on hard data
    (every task at 0% or 100%, one task, 1-3 items per task, a tight normal(2000,10) prior)
    acceptance stays at 75-91% (``tests/core/methods/test_bayes_imh.py`` checks these against
    numerical integration). On 300 random one-model data sets (1-6 tasks, 1-24 items, rates at 0%,
    2%, 50%, 90%, 100% or uniform; random exponential, gamma and normal priors, some with sd 1e-4 of
    the mean) acceptance was at least 42% (1st percentile 62%), every R-hat <= 1.007 and bulk ESS
    >= 980 from 4 x 1,500 draws, whereas the Gibbs sampler had R-hat > 1.05 on 20 of them and on
    some a wrong answer with R-hat < 1.01 (all chains stuck alike behind a tight prior; see
    ``tests/core/methods/test_bayes_imh.py``). **Fallback:** a model whose acceptance rate after
    warm-up is below :data:`MIN_ACCEPT` in any chain is refitted with the Gibbs sampler (the models
    are independent a posteriori, so mixing samplers across models leaves the posterior unchanged);
    its ``acceptance`` is reported as ``nan``.
    """
    if chains < 1 or draws < 4 or warmup < 0 or thin < 1:
        raise DataError(
            f"chains={chains}, draws={draws}, warmup={warmup}, thin={thin} are not usable.",
            hint="use chains >= 1 (4 recommended), draws >= 4, warmup >= 0 and thin >= 1.",
        )
    n, k, present = counts_of(bench)
    check_cells(chains * draws, *n.shape, flag="chains x draws")  # theta: (chains, draws, M, T)
    priors = dict(priors or {})
    check_known(priors, bench.models, what="models in the priors")
    model_priors = tuple(priors.get(m, ModelPrior()) for m in bench.models)
    check_choice(sampler, get_args(Sampler), name="sampler")
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    settings = _SamplerSettings(chains=chains, draws=draws, warmup=warmup, thin=thin, rng=rng)
    acceptance = None
    deadline = Deadline("The Bayesian sampler")
    if sampler == "gibbs":
        a, b, theta = gibbs(k, n, present, model_priors, **settings, deadline=deadline)
    else:
        a, b, theta, rates = independence(k, n, present, model_priors, **settings)
        acceptance = rates.mean(axis=0)
        poor = np.flatnonzero(rates.min(axis=0) < MIN_ACCEPT)
        if poor.size:
            sub = tuple(model_priors[i] for i in poor)
            a[..., poor], b[..., poor], theta[:, :, poor] = gibbs(
                k[poor], n[poor], present[poor], sub, **settings, deadline=deadline
            )
            acceptance[poor] = np.nan
    seconds = time.perf_counter() - start
    diag = diagnose(a, b, theta, present, bench.models, bench.tasks)
    return BayesFit(
        models=bench.models,
        tasks=bench.tasks,
        categories=bench.categories,
        higher_is_better=np.asarray(bench.higher_is_better),
        n=n,
        k=k,
        present=present,
        a=a,
        b=b,
        theta=theta,
        priors=model_priors,
        chains=chains,
        draws=draws,
        warmup=warmup,
        thin=thin,
        seed=seed,
        diagnostics=diag,
        seconds=seconds,
        sampler=sampler,
        acceptance=acceptance,
    )


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
            hint="use the bootstrap (--method bootstrap; in the app the sidebar's Bootstrap).",
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
