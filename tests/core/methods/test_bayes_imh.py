"""The independence Metropolis-Hastings sampler (core.bayes_imh) and its use in core.methods.bayes.

Checked against known truth: moments of known 2-D densities, the collapsed posterior by direct
numerical integration on hard data (every task at 0% or 100%, one task, 1-3 items per task), and
the Gibbs sampler; calibration is in ``tests/core/methods/test_sbc.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from benchuq.core.data import Benchmark
from benchuq.core.methods.bayes import diagnostics
from benchuq.core.methods.bayes import imh as bayes_imh
from benchuq.core.methods.bayes import model as bayes
from benchuq.core.methods.bayes.priors import ModelPrior, Prior
from benchuq.core.validation import InvalidArgument


def _bench(k: np.ndarray, n: np.ndarray) -> Benchmark:
    m, t = k.shape
    return Benchmark(
        name="synthetic",
        models=tuple(f"m{i}" for i in range(m)),
        tasks=tuple(f"t{j}" for j in range(t)),
        categories=("all",) * t,
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )


def _gamma_target(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per model (last axis, 3 models): x ~ Normal(mu_i, sd_i), y ~ log of Gamma(shape_i) (a
    skewed density), independent. Model 2 is very narrow."""
    mu, sd = np.array([1.0, -3.0, 0.5]), np.array([2.0, 0.5, 1e-3])
    shape = np.array([0.7, 5.0, 3.0])
    return stats.norm.logpdf(x, mu, sd) + shape * y - np.exp(y)


def test_fit_proposal_finds_moments_of_known_densities() -> None:
    mean, cov, resolved = bayes_imh.fit_proposal(
        _gamma_target, np.zeros(3), np.zeros(3), (10.0, 12.0), 30.0
    )
    assert resolved.all()
    shape = np.array([0.7, 5.0, 3.0])
    sd_x, sd_y = np.array([2.0, 0.5, 1e-3]), np.sqrt(special.polygamma(1, shape))
    # within 2% of a standard deviation (the grid box spans +-5 sd, so far tails are cut)
    assert np.all(np.abs(mean[:, 0] - [1.0, -3.0, 0.5]) < 0.02 * sd_x)
    assert np.all(np.abs(mean[:, 1] - special.digamma(shape)) < 0.02 * sd_y)
    np.testing.assert_allclose(np.sqrt(cov[:, 0, 0]), sd_x, rtol=0.03)
    np.testing.assert_allclose(np.sqrt(cov[:, 1, 1]), sd_y, rtol=0.03)
    assert np.all(np.abs(cov[:, 0, 1]) < 1e-3 * sd_x * sd_y)


def test_run_is_exact_even_with_a_poor_proposal() -> None:
    """The target is invariant under independence MH with a proposal that is off-centre and too
    narrow: 4,000 chains started from exact draws of the target still match its means and
    variances after 40 steps (a wrong acceptance ratio would drift toward the proposal)."""
    rng = np.random.default_rng(0)
    shape = np.array([0.7, 5.0, 3.0])
    mean = np.stack([[2.0, -2.5, 0.5], special.digamma(shape) + 0.5], axis=-1)
    cov = np.array([np.diag([1.0, 0.3]), np.diag([0.1, 0.05]), np.diag([1e-6, 0.1])])
    proposal = bayes_imh.Proposal(mean, cov)
    chains = 4000
    x0 = rng.normal([1.0, -3.0, 0.5], [2.0, 0.5, 1e-3], (chains, 3))
    y0 = np.log(rng.gamma(shape, 1.0, (chains, 3)))
    x, y, accepted = bayes_imh.run(_gamma_target, proposal, x0, y0, 40, rng)
    assert x.shape == (40, chains, 3) and accepted.shape == (40, chains, 3)
    assert 0.05 < accepted.mean() < 0.95
    for draws, mu, var in (
        (x[-1], np.array([1.0, -3.0, 0.5]), np.array([4.0, 0.25, 1e-6])),
        (y[-1], special.digamma(shape), special.polygamma(1, shape)),
    ):
        se = np.sqrt(var / chains)
        assert np.all(np.abs(draws.mean(axis=0) - mu) < 4.5 * se), (draws.mean(axis=0), mu)
        assert np.all(np.abs(draws.var(axis=0) / var - 1) < 0.15)


HARD = {
    "one task, 5 items": ([[3]], [[5]]),
    "every task at 100%": ([[50, 20, 100, 7]], [[50, 20, 100, 7]]),
    "every task at 0%": ([[0, 0, 0, 0, 0]], [[30, 40, 10, 5, 100]]),
    "1-3 items per task": ([[1, 0, 2, 1, 0, 1]], [[2, 1, 3, 2, 1, 2]]),
    "one task at 100%": ([[10]], [[10]]),
}


def _quadrature(k: np.ndarray, n: np.ndarray) -> dict[str, float]:
    """Posterior E[log a], E[a / (a + b)], E[theta_1] under the default exponential(1e-4) priors,
    by direct numerical integration of prior x prod_j BetaBinomial on a (log a, log b) grid."""
    la, lb = np.meshgrid(np.linspace(-9, 14, 700), np.linspace(-9, 14, 700), indexing="ij")
    a, b = np.exp(la)[..., None], np.exp(lb)[..., None]
    prior = stats.expon.logpdf(a[..., 0], scale=1e4) + stats.expon.logpdf(b[..., 0], scale=1e4)
    logp = prior + stats.betabinom.logpmf(k, n, a, b).sum(axis=-1) + la + lb
    w = np.exp(logp - logp.max())
    w /= w.sum()
    theta1 = (a[..., 0] + k[0]) / (a[..., 0] + b[..., 0] + n[0])
    return {
        "log a": float((w * la).sum()),
        "mean": float((w * a[..., 0] / (a[..., 0] + b[..., 0])).sum()),
        "theta_1": float((w * theta1).sum()),
    }


@pytest.mark.parametrize("case", list(HARD))
def test_hard_data_match_numerical_integration(case: str) -> None:
    k, n = (np.array(v) for v in HARD[case])
    fit = bayes.fit(_bench(k, n), chains=4, draws=2000, warmup=200, seed=3)
    assert fit.sampler == "imh" and fit.acceptance is not None
    assert fit.acceptance[0] > 0.6, fit.acceptance  # measured 0.75-0.86 on these cases
    exact = _quadrature(k[0], n[0])
    draws = {
        "log a": np.log(fit.a[..., 0]),
        "mean": fit.a[..., 0] / (fit.a[..., 0] + fit.b[..., 0]),
        "theta_1": fit.theta[..., 0, 0],
    }
    for name, d in draws.items():
        ess = diagnostics.ess_bulk(d)
        se = d.std() / np.sqrt(ess)
        assert abs(d.mean() - exact[name]) < 4.5 * se + 1e-4, (name, d.mean(), exact[name], se)
    assert fit.rhat_max < 1.01


def test_same_posterior_as_the_gibbs_sampler() -> None:
    rng = np.random.default_rng(4)
    n = rng.integers(5, 300, (3, 10))
    k = rng.binomial(n, rng.beta([[8], [2], [30]], [[3], [2], [1]], (3, 10)))
    prior = {"m2": ModelPrior(a=Prior("gamma", (2.0, 0.01)), b=Prior("normal", (5.0, 2.0)))}
    fits = {
        s: bayes.fit(_bench(k, n), priors=prior, draws=1500, seed=1, sampler=s)
        for s in ("imh", "gibbs")
    }
    stats_ = {}
    for s, f in fits.items():
        x = np.concatenate(
            [np.log(f.a), np.log(f.b), f.theta.reshape(*f.theta.shape[:2], -1)], axis=-1
        )
        x = np.moveaxis(x, -1, 0)
        ess = diagnostics.ess_bulk(x)
        stats_[s] = (x.mean(axis=(1, 2)), x.std(axis=(1, 2)) / np.sqrt(ess))
    (m1, se1), (m2, se2) = stats_["imh"], stats_["gibbs"]
    z = (m1 - m2) / np.hypot(se1, se2)
    assert np.all(np.abs(z) < 4.5), z
    assert fits["gibbs"].acceptance is None and fits["gibbs"].sampler == "gibbs"


def test_low_acceptance_falls_back_to_gibbs(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    n = np.full((2, 6), 40)
    k = rng.binomial(n, 0.6)
    monkeypatch.setattr(bayes, "MIN_ACCEPT", 1.01)  # no model can reach it
    fit = bayes.fit(_bench(k, n), chains=2, draws=300, warmup=200, seed=2)
    assert fit.acceptance is not None and np.isnan(fit.acceptance).all()
    assert np.all(np.isfinite(fit.theta)) and fit.rhat_max < 1.05
    # the Gibbs draws differ from independence MH draws: repeated states are rare in slice chains
    assert np.mean(np.diff(fit.a, axis=1) == 0) < 0.01


def test_unknown_sampler_is_an_invalid_argument() -> None:
    k, n = np.array([[4, 6]]), np.array([[10, 10]])
    with pytest.raises(InvalidArgument, match="sampler"):
        bayes.fit(_bench(k, n), sampler="nuts")  # type: ignore[arg-type]


def test_tight_prior_on_one_parameter_matches_numerical_integration() -> None:
    """A tight prior on a only ([LGC]'s normal(2000,10), b left at the default) is a thin curved
    ridge in (eta, lambda) but straight in (log a, log b): the proposal switches coordinates,
    accepts about 90%, and E[log b] and E[theta_1] match direct numerical integration. (Without
    the switch this model falls back to the Gibbs sampler, which gives R-hat about 1.16.)"""
    k, n = np.array([[30, 55, 80, 10]]), np.array([[100, 100, 100, 100]])
    prior = ModelPrior(a=Prior("normal", (2000.0, 10.0)))
    fit = bayes.fit(_bench(k, n), priors={"m0": prior}, chains=4, draws=1500, warmup=200, seed=5)
    assert fit.acceptance is not None and fit.acceptance[0] > 0.7
    a = np.linspace(1930.0, 2070.0, 600)[:, None]
    lb = np.linspace(0.0, 12.0, 1200)[None, :]  # grid in (a, log b)
    b = np.exp(lb)
    logp = prior.a.logpdf(a) + prior.b.logpdf(b) + lb
    for kj, nj in zip(k[0], n[0], strict=True):
        logp = logp + stats.betabinom.logpmf(kj, nj, a, b)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    exact = {"log b": float((w * lb).sum()), "theta_1": float((w * (a + 30) / (a + b + 100)).sum())}
    for name, d in (("log b", np.log(fit.b[..., 0])), ("theta_1", fit.theta[..., 0, 0])):
        se = d.std() / np.sqrt(diagnostics.ess_bulk(d))
        assert abs(d.mean() - exact[name]) < 4.5 * se, (name, d.mean(), exact[name], se)
    assert fit.rhat_max < 1.01
