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
from collections.abc import Mapping
from typing import get_args

import numpy as np

from benchuq.core.budget import Deadline, check_cells
from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import SEED
from benchuq.core.methods.bayes.priors import ModelPrior
from benchuq.core.methods.bayes.result import (
    METHOD_NAMES,
    MIN_ACCEPT,
    BayesFit,
    DrawKind,
    Sampler,
    _SamplerSettings,
    counts_of,
)
from benchuq.core.methods.bayes.samplers import (
    diagnose,
    gibbs,
    independence,
    log_conditional,
    slice_step,
)
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
