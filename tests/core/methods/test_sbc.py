"""Simulation-based calibration of both samplers (Talts et al. 2018; METHODS 6).

Data sets are drawn from proper priors (all three families), the model is fitted, and the rank of
each true value among thinned posterior draws must be uniform; central 90% intervals must cover
about 90% of the true values.

Models are independent a posteriori (each has its own a_i, b_i, theta_i.), so K one-model data
sets are fitted as one benchmark of K models: the sampler is vectorised over models, and the
result is the same as K separate fits. Task counts vary between data sets (5..8 tasks, via
missing cells), as do the item counts (5..40). Each test runs for the independence MH sampler
(the default) and for the METHODS 6 Gibbs sampler.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchuq.core.data import Benchmark
from benchuq.core.methods.bayes import model as bayes
from benchuq.core.methods.bayes.priors import ModelPrior, Prior

K = 600  # data sets
T = 8  # largest number of tasks
PRIOR_SETS = (
    ModelPrior(a=Prior("gamma", (4.0, 1.0)), b=Prior("gamma", (3.0, 1.0))),
    ModelPrior(a=Prior("normal", (5.0, 2.0)), b=Prior("exponential", (0.3,))),
    ModelPrior(a=Prior("exponential", (0.2,)), b=Prior("normal", (8.0, 3.0))),
)


def _simulate(rng: np.random.Generator) -> tuple[Benchmark, dict, dict[str, np.ndarray]]:
    which = rng.integers(0, len(PRIOR_SETS), K)
    priors = {f"d{i:04d}": PRIOR_SETS[w] for i, w in enumerate(which)}
    a = np.array([PRIOR_SETS[w].a.sample(rng, 1)[0] for w in which])
    b = np.array([PRIOR_SETS[w].b.sample(rng, 1)[0] for w in which])
    theta = rng.beta(a[:, None], b[:, None], (K, T))
    n = rng.integers(5, 41, (K, T))
    k = rng.binomial(n, theta)
    ntask = rng.integers(5, T + 1, K)
    present = np.arange(T)[None, :] < ntask[:, None]
    bench = Benchmark(
        name="sbc",
        models=tuple(priors),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("all",) * T,
        kind="counts",
        estimate=np.where(present, k / n, np.nan),
        n=n,
        correct=k,
    )
    mean = np.where(present, theta, 0.0).sum(axis=1) / ntask
    return bench, priors, {"a": a, "b": b, "theta_1": theta[:, 0], "mean": mean}


SAMPLERS = ("imh", "gibbs")


@pytest.mark.slow
@pytest.mark.parametrize("sampler", SAMPLERS)
def test_sbc_ranks_uniform_and_intervals_cover(sampler: str) -> None:
    rng = np.random.default_rng(20240601)
    bench, priors, truth = _simulate(rng)
    fit = bayes.fit(
        bench, priors=priors, chains=2, draws=100, warmup=100, thin=2, seed=7, sampler=sampler
    )
    if sampler == "imh":
        assert fit.acceptance is not None and np.nanmin(fit.acceptance) > 0.4
    post = {
        "a": fit.a,
        "b": fit.b,
        "theta_1": fit.theta[..., 0],
        "mean": np.nanmean(fit.theta, axis=-1),
    }
    for name, draws in post.items():
        d = draws.reshape(-1, K)[:199]  # L = 199 thinned draws -> ranks 0..199
        ranks = (d < truth[name][None, :]).sum(axis=0)
        counts = np.bincount(ranks // 20, minlength=10)
        p = stats.chisquare(counts).pvalue
        assert p > 0.01, f"{name}: SBC ranks not uniform (p={p:.4f}, bins={counts.tolist()})"
        lo, hi = np.quantile(draws.reshape(-1, K), [0.05, 0.95], axis=0)
        cover = np.mean((lo <= truth[name]) & (truth[name] <= hi))
        assert 0.86 <= cover <= 0.94, f"{name}: 90% intervals cover {cover:.3f}"


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_sbc_detects_a_wrong_prior(sampler: str) -> None:
    """The same check has power: fitting with a prior other than the one that made the data
    gives non-uniform ranks for a (so the calibration test above can fail)."""
    rng = np.random.default_rng(3)
    k_sets = 300
    a = rng.gamma(4.0, 1.0, k_sets)
    b = rng.gamma(3.0, 1.0, k_sets)
    theta = rng.beta(a[:, None], b[:, None], (k_sets, 5))
    n = np.full((k_sets, 5), 10)
    k = rng.binomial(n, theta)
    bench = Benchmark(
        name="wrong",
        models=tuple(f"d{i}" for i in range(k_sets)),
        tasks=tuple(f"t{j}" for j in range(5)),
        categories=("all",) * 5,
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )
    wrong = ModelPrior(a=Prior("gamma", (40.0, 1.0)), b=Prior("gamma", (3.0, 1.0)))
    fit = bayes.fit(
        bench,
        priors=dict.fromkeys(bench.models, wrong),
        chains=2,
        draws=50,
        warmup=100,
        thin=4,
        seed=1,
        sampler=sampler,
    )
    ranks = (fit.a.reshape(-1, k_sets)[:99] < a[None, :]).sum(axis=0)
    assert stats.chisquare(np.bincount(ranks // 10, minlength=10)).pvalue < 1e-6
