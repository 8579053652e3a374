"""Coverage of the embedding-consistency intervals by simulation against known truth (METHODS 9).

Three Gaussian clusters (unit covariance, means 1.5 apart). Two truths:

- population: ALP / Bayes accuracy of the true Gaussians. With large clusters in few dimensions
  the fitted Gaussians are nearly exact and both bootstrap modes cover it.
- procedure: the expected ALP / accuracy on new entities of Gaussians fitted (with the default
  ridge) on 4/5 of each cluster - the target of the ``"refit"`` intervals. With small clusters in
  16 dimensions the fitted score is far below the population ALP (a fitting bias no interval
  fixes), the cross-fitted estimate is unbiased for the procedure target, ``"refit"`` covers it
  and ``"scores"`` (Gaussians held fixed) does not; ``"linear"`` (first-order refit) covers it as
  ``"refit"`` does. The refit accuracy interval is as wide as the estimate's spread calls for,
  whatever the weights' spread.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from benchuq.core.analyses.embeddings.posterior import gaussian_stats, log_posterior
from benchuq.core.analyses.embeddings.scores import consistency


def _means(d: int) -> np.ndarray:
    means = np.zeros((3, d))
    means[1, 0] = means[2, 1] = 1.5
    return means


def _sample(means: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    y = np.repeat(np.arange(3), n)
    return means[y] + np.random.default_rng(seed).standard_normal((len(y), means.shape[1])), y


def _population_truth(means: np.ndarray, size: int = 50_000) -> tuple[float, float]:
    x, y = _sample(means, size, 12345)
    ll = np.stack([multivariate_normal(m, np.eye(means.shape[1])).logpdf(x) for m in means], 1)
    lp = ll - logsumexp(ll, axis=1, keepdims=True)
    return float(lp[np.arange(len(y)), y].mean()), float(np.mean(lp.argmax(axis=1) == y))


@functools.cache
def _procedure_truth(d: int, n_train: int, eps: float) -> tuple[float, float]:
    """Fit on fresh training samples, score fresh entities, average (120 trainings; cached:
    two tests share the 16-dimension truth)."""
    means = _means(d)
    alp, acc = [], []
    for t in range(120):
        x_train, y_train = _sample(means, n_train, 10_000 + t)
        x_test, y_test = _sample(means, 2000, 20_000 + t)
        lp = log_posterior(*gaussian_stats(x_train, y_train, 3), x_test, eps)
        alp.append(lp[np.arange(len(y_test)), y_test].mean())
        acc.append(np.mean(lp.argmax(axis=1) == y_test))
    return float(np.mean(alp)), float(np.mean(acc))


@pytest.mark.slow  # 150 simulations of both modes: over a minute of CPU
def test_both_modes_cover_the_population_alp_with_large_clusters_in_two_dims() -> None:
    means = _means(2)
    alp_true, acc_true = _population_truth(means)
    sims = 150
    hits = {"scores": np.zeros(2), "refit": np.zeros(2)}
    for s in range(sims):
        x, y = _sample(means, 200, s)
        for mode, reps in (("scores", 300), ("refit", 60)):
            r = consistency({"m": x}, y.astype(str), clip=0, reps=reps, seed=s, bootstrap=mode)
            a, c = r.scores[0].alp, r.scores[0].accuracy
            hits[mode] += [a.low <= alp_true <= a.high, c.low <= acc_true <= c.high]
    # nominal 0.95; Monte Carlo sd of a coverage over 150 simulations is about 0.018
    for mode, (alp_hits, acc_hits) in hits.items():
        assert 0.89 <= alp_hits / sims <= 0.995, mode
        assert 0.89 <= acc_hits / sims <= 1.0, mode


@pytest.mark.slow  # about 6 s: 100 simulations of both modes
def test_refit_covers_the_procedure_target_where_fixed_gaussians_do_not() -> None:
    """16 dims, 60 entities per cluster, eps=4 (the benchmark's hard case, fewer simulations)."""
    means, eps, sims = _means(16), 4.0, 100
    proc_alp, proc_acc = _procedure_truth(16, 48, eps)
    pop_alp, _ = _population_truth(means)
    hits = {"scores": np.zeros(2), "refit": np.zeros(2)}
    estimates, widths, centres, acc_estimates, acc_widths = [], [], [], [], []
    for s in range(sims):
        x, y = _sample(means, 60, s)
        for mode in ("scores", "refit"):
            r = consistency(
                {"m": x}, y.astype(str), clip=0, eps=eps, reps=100, seed=s, bootstrap=mode
            )
            a, c = r.scores[0].alp, r.scores[0].accuracy
            hits[mode] += [a.low <= proc_alp <= a.high, c.low <= proc_acc <= c.high]
            if mode == "refit":
                estimates.append(a.estimate)
                widths.append(a.high - a.low)
                centres.append(r.alp_draws[:, 0].mean() - a.estimate)
                acc_estimates.append(c.estimate)
                acc_widths.append(c.high - c.low)
    spread = np.std(estimates)
    # the target: the cross-fitted estimate is unbiased for the procedure, far below the
    # population ALP (this is why the intervals are for the procedure)
    assert abs(np.mean(estimates) - proc_alp) < 3 * spread / np.sqrt(sims)
    assert pop_alp - proc_alp > 0.1
    # refit covers; resampled scores with fixed Gaussians are too narrow
    assert hits["refit"][0] / sims >= 0.89 and hits["refit"][1] / sims >= 0.89
    assert hits["scores"][0] / sims <= 0.9
    # refit intervals are centred on the estimate (weighting alone shifts the replicates down)
    # and about as wide as the estimate's spread calls for
    assert abs(np.mean(centres)) < 0.25 * spread
    assert np.mean(widths) < 1.3 * 2 * 1.96 * spread
    # so are the accuracy intervals: flipped hits rescaled by 1/sqrt(spread), not 1/spread
    # (which made them 2.3 times too wide here)
    acc_needed = 2 * 1.96 * np.std(acc_estimates)
    assert 0.8 * acc_needed < np.mean(acc_widths) < 1.4 * acc_needed


def test_refit_accuracy_width_does_not_depend_on_the_spread() -> None:
    """The refit accuracy interval is a property of the data, not of the weights' spread: with
    flipped hits rescaled by 1/spread its width grew like 1/sqrt(spread) (2.3 times from spread
    0.3 to 0.03 in 16 dims at 60 entities per cluster)."""
    means, widths = _means(16), {0.03: [], 0.3: []}
    for s in range(6):
        x, y = _sample(means, 60, 500 + s)
        for spread, out in widths.items():
            c = (
                consistency(
                    {"m": x},
                    y.astype(str),
                    clip=0,
                    reps=300,
                    seed=s,
                    refit_spread=spread,
                    bootstrap="refit",
                )
                .scores[0]
                .accuracy
            )
            out.append(c.high - c.low)
    ratio = np.mean(widths[0.03]) / np.mean(widths[0.3])
    assert 0.8 < ratio < 1.25, ratio


@pytest.mark.slow  # 300 simulations: over a minute of CPU
def test_linear_covers_the_procedure_alp_as_refit_does() -> None:
    """The refit test's hard case (16 dims, 60 entities per cluster, eps=4), 300 simulations of
    the first-order refit bootstrap (under a second each for all of them)."""
    means, eps, sims = _means(16), 4.0, 300
    proc_alp, _ = _procedure_truth(16, 48, eps)
    hits, estimates, widths = 0, [], []
    for s in range(sims):
        x, y = _sample(means, 60, s)
        r = consistency(
            {"m": x}, y.astype(str), clip=0, eps=eps, reps=200, seed=s, bootstrap="linear"
        )
        a = r.scores[0].alp
        hits += a.low <= proc_alp <= a.high
        estimates.append(a.estimate)
        widths.append(a.high - a.low)
    # nominal 0.95; Monte Carlo sd of a coverage over 300 simulations is about 0.013
    assert 0.92 <= hits / sims <= 0.985
    # as wide as the estimate's spread over simulations calls for, not wider
    spread = np.std(estimates)
    assert 0.85 * 2 * 1.96 * spread < np.mean(widths) < 1.25 * 2 * 1.96 * spread
