"""core.methods.bayes: the conditional, the slice sampler, the fit and its Draws (METHODS 6)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from benchuq.core.data import Benchmark, DataError
from benchuq.core.methods.bayes import model as bayes
from benchuq.core.methods.bayes import samplers
from benchuq.core.methods.bayes.priors import LogPrior, ModelPrior, Prior
from benchuq.core.validation import InvalidArgument


def _bench(k: np.ndarray, n: np.ndarray, present: np.ndarray | None = None) -> Benchmark:
    m, t = k.shape
    est = k / n if present is None else np.where(present, k / n, np.nan)
    return Benchmark(
        name="synthetic",
        models=tuple(f"m{i}" for i in range(m)),
        tasks=tuple(f"t{j}" for j in range(t)),
        categories=tuple("AB"[j % 2] for j in range(t)),
        kind="counts",
        estimate=est,
        n=n,
        correct=k,
    )


def test_conditional_steps_equal_the_methods_formula() -> None:
    """The precomputed one-coordinate targets equal METHODS 6's density plus the Jacobian."""
    rng = np.random.default_rng(0)
    s1, s2 = -rng.uniform(1, 5, (3, 4)), -rng.uniform(1, 5, (3, 4))
    ntask = np.array([5.0, 6.0, 7.0, 8.0])
    pa = LogPrior([Prior("gamma", (2, 0.1)), Prior("normal", (50, 10))] * 2)
    pb = LogPrior([Prior("exponential", (0.01,))] * 4)
    eta, lam = rng.normal(size=(3, 4)), rng.normal(2, 1, (3, 4))
    a = np.exp(lam) * special.expit(eta)
    b = np.exp(lam) * special.expit(-eta)
    methods = (
        pa(a)
        + pb(b)
        + ntask * (special.gammaln(a + b) - special.gammaln(a) - special.gammaln(b))
        + (a - 1) * s1
        + (b - 1) * s2
    )
    jac = np.log(a) + np.log(b)  # log |d(a, b) / d(eta, lam)| = log(a b)
    ref = bayes.log_conditional(eta, lam, s1, s2, ntask, pa, pb)
    np.testing.assert_allclose(ref, methods + jac, rtol=1e-10)
    cond = samplers._Conditional(s1, s2, ntask, pa, pb)
    np.testing.assert_allclose(cond.eta_step(lam)(eta), ref, rtol=1e-10)
    np.testing.assert_allclose(cond.lam_step(eta)(lam), ref, rtol=1e-10)


def test_slice_sampler_targets_the_conditional_of_a_and_b() -> None:
    """Slice steps on (logit mean, log concentration) with theta fixed reproduce E[a | theta]
    and E[b | theta] from direct numerical integration on an (a, b) grid: the reparametrisation
    leaves the posterior unchanged."""
    theta = np.array([0.62, 0.71, 0.55, 0.80, 0.66, 0.59])
    s1, s2, nt = np.log(theta).sum(), np.log1p(-theta).sum(), float(theta.size)
    pa, pb = Prior("gamma", (2.0, 0.1)), Prior("exponential", (0.05,))
    la, lb = np.meshgrid(np.linspace(-4, 6, 600), np.linspace(-4, 6, 600), indexing="ij")
    a, b = np.exp(la), np.exp(lb)
    logp = (
        pa.logpdf(a)
        + pb.logpdf(b)
        + nt * (special.gammaln(a + b) - special.gammaln(a) - special.gammaln(b))
        + (a - 1) * s1
        + (b - 1) * s2
        + la
        + lb  # grid in log a, log b
    )
    w = np.exp(logp - logp.max())
    exact_a, exact_b = (w * a).sum() / w.sum(), (w * b).sum() / w.sum()

    rng = np.random.default_rng(1)
    chains = 2000
    s1v, s2v = np.full(chains, s1), np.full(chains, s2)
    cond = samplers._Conditional(
        s1v, s2v, np.full(chains, nt), LogPrior([pa] * chains), LogPrior([pb] * chains)
    )
    eta, lam = rng.normal(0.5, 1, chains), rng.normal(2, 1, chains)
    width = np.ones(chains)
    for _ in range(60):
        eta, f = bayes.slice_step(eta, cond.eta_step(lam)(eta), cond.eta_step(lam), width, rng)
        lam, _ = bayes.slice_step(lam, f, cond.lam_step(eta), width, rng)
    draws_a = np.exp(lam) * special.expit(eta)
    draws_b = np.exp(lam) * special.expit(-eta)
    for draws, exact in ((draws_a, exact_a), (draws_b, exact_b)):
        se = draws.std() / np.sqrt(chains)
        assert abs(draws.mean() - exact) < 4 * se, (draws.mean(), exact, se)


@pytest.mark.parametrize("batch", [1, 4])
def test_slice_step_samples_a_known_density(batch: int) -> None:
    """Vectorised slice steps on a two-component normal mixture match its mean and variance,
    one candidate per call or several (batched stepping-out and shrinkage)."""
    rng = np.random.default_rng(2)

    def logf(x: np.ndarray) -> np.ndarray:
        return np.logaddexp(stats.norm.logpdf(x, -2, 0.5), np.log(3) + stats.norm.logpdf(x, 2, 1))

    x = rng.normal(size=4000)
    f = logf(x)
    for _ in range(40):
        x, f = bayes.slice_step(x, f, logf, np.full(x.shape, 0.5), rng, max_steps=16, batch=batch)
        np.testing.assert_allclose(f, logf(x))
    mean = (-2 + 3 * 2) / 4
    var = (0.25 + 4 + 3 * (1 + 4)) / 4 - mean**2
    assert abs(x.mean() - mean) < 4 * np.sqrt(var / x.size)
    assert abs(x.var() / var - 1) < 0.1


def test_fit_recovers_theta_and_shrinks_small_tasks() -> None:
    rng = np.random.default_rng(3)
    theta = rng.beta(30, 10, (3, 8))
    n = np.full((3, 8), 2000)
    n[:, 0] = 5  # a tiny task
    k = rng.binomial(n, theta)
    fit = bayes.fit(_bench(k, n), chains=4, draws=500, warmup=300, seed=1)
    assert fit.theta.shape == (4, 500, 3, 8) and fit.a.shape == (4, 500, 3)
    post = fit.posterior_mean()
    big = np.s_[:, 1:]
    sd = np.sqrt(theta[big] * (1 - theta[big]) / 2000)
    assert np.all(np.abs(post[big] - k[big] / n[big]) < 1.5 * sd)  # data dominate large tasks
    lo, hi = np.quantile(fit.theta.reshape(-1, 3, 8), [0.025, 0.975], axis=0)
    assert np.mean((lo[big] <= theta[big]) & (theta[big] <= hi[big])) >= 0.85
    grand = (fit.a / (fit.a + fit.b)).mean(axis=(0, 1))
    direct = k[:, 0] / n[:, 0]
    # the 5-item task moves toward the model's grand mean a / (a + b)
    assert np.all(np.abs(post[:, 0] - grand) < np.abs(direct - grand) + 1e-9)
    assert fit.rhat_max < 1.01 and not fit.warnings


def test_strong_prior_gives_the_conjugate_posterior() -> None:
    """With a, b pinned by a tight prior ([LGC] simulation: normal(2000, 10)), theta's posterior
    is Beta(a + k, b + n - k) with a, b = 2000."""
    k = np.array([[30, 55, 80, 10]])
    n = np.array([[100, 100, 100, 100]])
    tight = ModelPrior(a=Prior("normal", (2000, 10)), b=Prior("normal", (2000, 10)))
    fit = bayes.fit(_bench(k, n), priors={"m0": tight}, chains=4, draws=1000, warmup=500, seed=2)
    exact = (2000 + k) / (4000 + n)
    np.testing.assert_allclose(fit.posterior_mean(), exact, atol=2e-3)
    np.testing.assert_allclose(fit.a.mean(), 2000, atol=2.0)


def test_missing_cells_are_left_out() -> None:
    rng = np.random.default_rng(4)
    n = np.full((2, 6), 200)
    k = rng.binomial(n, 0.7)
    present = np.ones((2, 6), bool)
    present[1, 4:] = False
    fit = bayes.fit(_bench(k, n, present), chains=2, draws=200, warmup=200, seed=3)
    assert np.all(np.isnan(fit.theta[:, :, 1, 4:]))
    assert np.all(np.isfinite(fit.theta[:, :, 0]))
    d = fit.to_draws(kind="predictive")
    assert np.all(np.isnan(d.values[:, 1, 4:])) and np.all(np.isnan(d.observed[1, 4:]))
    assert len(fit.diagnostics.query("parameter == 'theta'")) == 10


def test_to_draws_kinds() -> None:
    rng = np.random.default_rng(5)
    n = np.array([[50, 400, 1000, 80]] * 2)
    k = rng.binomial(n, 0.6)
    fit = bayes.fit(_bench(k, n), chains=2, draws=400, warmup=200, seed=4)
    par, pred = fit.to_draws(kind="parameter"), fit.to_draws(kind="predictive")
    assert par.values.shape == pred.values.shape == (800, 2, 4)
    assert par.method == "Bayesian hierarchical (parameter)"
    assert pred.method == "Bayesian hierarchical (posterior predictive)"
    assert par.paired and pred.paired and par.seed == 4
    np.testing.assert_allclose(par.observed, fit.posterior_mean())
    np.testing.assert_allclose(pred.values * n, np.round(pred.values * n))  # k~ / n
    # predictive adds binomial noise: Var = E[Var(k~/n | theta)] + Var(theta)
    extra = (par.values * (1 - par.values) / n).mean(axis=0)
    np.testing.assert_allclose(pred.values.var(axis=0), par.values.var(axis=0) + extra, rtol=0.2)
    assert np.array_equal(pred.values, fit.to_draws(kind="predictive").values)  # reproducible
    with pytest.raises(ValueError, match="parameter"):
        fit.to_draws(kind="posterior")  # type: ignore[arg-type]


def test_seeded_and_reproducible() -> None:
    k, n = np.array([[40, 60, 70]]), np.array([[100, 100, 100]])
    b = _bench(k, n)
    one, two = (bayes.fit(b, chains=2, draws=50, warmup=20, seed=9) for _ in range(2))
    assert np.array_equal(one.theta, two.theta) and np.array_equal(one.a, two.a)
    other = bayes.fit(b, chains=2, draws=50, warmup=20, seed=10)
    assert not np.array_equal(one.theta, other.theta)


def test_short_runs_warn() -> None:
    rng = np.random.default_rng(6)
    n = np.full((4, 5), 30)
    fit = bayes.fit(_bench(rng.binomial(n, 0.5), n), chains=4, draws=6, warmup=0, seed=0)
    assert any("effective sample size" in w for w in fit.warnings)
    assert fit.to_draws().notes[-1] == fit.warnings[-1]


def test_bad_input_raises_data_error() -> None:
    k, n = np.array([[4, 6]]), np.array([[10, 10]])
    with pytest.raises(DataError, match="draws"):
        bayes.fit(_bench(k, n), draws=2)
    with pytest.raises(InvalidArgument, match=r"unknown models in the priors \['nobody'\]"):
        bayes.fit(_bench(k, n), priors={"nobody": ModelPrior()})
    se = Benchmark(
        name="f1",
        models=("m",),
        tasks=("t",),
        categories=("c",),
        kind="estimate_se",
        estimate=np.array([[0.5]]),
        se=np.array([[0.1]]),
    )
    with pytest.raises(DataError, match="counts"):
        bayes.fit(se)


def test_marginal_step_is_the_beta_binomial_posterior() -> None:
    """The collapsed target equals prior x prod_j BetaBinomial(k_j | n_j, a, b) x Jacobian, up to
    one constant (the binomial coefficients); cells without data drop out."""
    rng = np.random.default_rng(7)
    k = np.array([[3.0, 40.0, 0.0], [9.0, 1.0, 5.0]])
    n = np.array([[10.0, 50.0, 0.0], [12.0, 30.0, 5.0]])  # model 0 has no data on task 2
    pa = LogPrior([Prior("gamma", (2, 0.1)), Prior("exponential", (0.01,))])
    pb = LogPrior([Prior("normal", (5, 3)), Prior("exponential", (0.01,))])
    marginal = samplers._Marginal(k, n - k, pa, pb)
    eta, lam = rng.normal(size=(5, 2)), rng.normal(1.5, 1, (5, 2))
    a = np.exp(lam) * special.expit(eta)
    b = np.exp(lam) * special.expit(-eta)
    present = n > 0
    loglik = np.where(
        present,
        stats.betabinom.logpmf(k, np.where(present, n, 1), a[..., None], b[..., None]),
        0.0,
    ).sum(axis=-1)
    ref = pa(a) + pb(b) + loglik + np.log(a) + np.log(b)
    diff = marginal(eta, lam) - ref
    np.testing.assert_allclose(diff - diff[0], 0.0, atol=1e-8)  # one constant per model


def test_chance_level_model_mixes() -> None:
    """A model at chance on every task (no real between-task spread) is the funnel that the plain
    conditional sweep mixes badly on; the blocked step keeps the ESS high."""
    rng = np.random.default_rng(8)
    n = rng.integers(100, 400, (2, 40))
    k = rng.binomial(n, 0.25)
    fit = bayes.fit(_bench(k, n), chains=4, draws=500, warmup=300, seed=5)
    assert fit.rhat_max < 1.02  # the plain conditional sweep: R-hat about 1.45, bulk ESS about 8
    assert fit.ess_bulk_min > 300, fit.diagnostics.nsmallest(3, "ess_bulk")


def test_marginal_eta_step_equals_the_full_target() -> None:
    rng = np.random.default_rng(9)
    k, f = rng.integers(0, 50, (3, 6)).astype(float), rng.integers(0, 50, (3, 6)).astype(float)
    pa = LogPrior([Prior("gamma", (2, 0.1))] * 3)
    pb = LogPrior([Prior("normal", (5, 3))] * 3)
    marginal = samplers._Marginal(k, f, pa, pb)
    eta, lam = rng.normal(size=(4, 3)), rng.normal(1, 1, (4, 3))
    np.testing.assert_allclose(marginal.eta_step(lam)(eta), marginal(eta, lam), rtol=1e-10)
    np.testing.assert_allclose(marginal.lam_step(eta)(lam), marginal(eta, lam), rtol=1e-10)


def test_log_beta_draws_for_tiny_and_large_shapes() -> None:
    """Log-scale Beta draws match Beta moments, stay finite where theta itself would round to 0
    or 1, and mix both code paths (shapes below and above 1) in one call."""
    rng = np.random.default_rng(10)
    alpha = np.array([0.01, 0.5, 3.0, 2000.0])[:, None] * np.ones((4, 20000))
    beta = np.array([0.02, 4.0, 0.7, 500.0])[:, None] * np.ones((4, 20000))
    lt, l1t = samplers._log_beta_draw(alpha, beta, rng)
    assert np.all(np.isfinite(lt)) and np.all(np.isfinite(l1t))
    np.testing.assert_allclose(np.exp(lt) + np.exp(l1t), 1.0, atol=1e-12)
    mean = alpha[:, 0] / (alpha[:, 0] + beta[:, 0])
    np.testing.assert_allclose(np.exp(lt).mean(axis=1), mean, atol=0.012)
    tiny = samplers._log_gamma_draw(np.full(1000, 1e-3), rng)
    assert np.all(np.isfinite(tiny)) and np.mean(tiny < -700) > 0.5  # exp() would underflow
