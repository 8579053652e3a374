"""EPP's point estimates by ILSR (issue 32): the same as choix's ILSR and as the likelihood
equations say, with Newton's method where ILSR does not apply (a ridge)."""

from __future__ import annotations

import choix
import numpy as np
import pytest
from scipy.special import expit

from benchuq.core.analyses.epp import bradley_terry_mle, fit_bradley_terry, pair_counts


def _scores(M: int, K: int, seed: int = 0, *, ties: bool = False) -> np.ndarray:
    """Bradley-Terry round scores (strength + Gumbel noise), 5% missing; rounded to make ties."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(0.0, 1.0, M)[:, None] + rng.gumbel(size=(M, K))
    if ties:
        scores = np.round(scores)
    scores[rng.random((M, K)) < 0.05] = np.nan
    return scores


def _score_equations(beta: np.ndarray, wins: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """``sum_j W_ij - N_ij P(i beats j)``: zero at the MLE."""
    p = expit(beta[:, None] - beta[None, :])
    return wins.sum(axis=1) - (matches * p).sum(axis=1)


@pytest.mark.parametrize(("M", "K", "ties"), [(40, 200, False), (25, 60, True), (200, 100, False)])
def test_the_estimates_equal_choix_ilsr(M: int, K: int, ties: bool) -> None:
    wins, matches = pair_counts(_scores(M, K, ties=ties))
    beta = bradley_terry_mle(wins, matches)
    reference = choix.ilsr_pairwise_dense(wins, tol=1e-13, max_iter=1000)
    assert abs(beta.sum()) < 1e-9
    assert np.max(np.abs(beta - reference)) < 1e-8
    assert np.max(np.abs(_score_equations(beta, wins, matches))) < 1e-6 * matches.sum() / M
    # the fit's estimates are these; its covariance is the Fisher information's at them
    fitted, cov = fit_bradley_terry(wins, matches)
    np.testing.assert_array_equal(fitted, beta)
    np.testing.assert_allclose(cov.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(cov, cov.T, atol=1e-15)


def test_a_start_near_the_answer_gives_the_same_estimates() -> None:
    wins, matches = pair_counts(_scores(30, 80, seed=3))
    beta = bradley_terry_mle(wins, matches)
    again = bradley_terry_mle(wins, matches, start=beta + 0.3 + 0.01 * np.arange(30))
    assert np.max(np.abs(again - beta)) < 1e-9


def test_a_tournament_from_counts_gets_the_mle() -> None:
    """Binomial counts per pair (``W_ji = N_ij - W_ij``), as the arena's battles give them."""
    rng = np.random.default_rng(5)
    M = 12
    beta_true = np.linspace(-1.0, 1.0, M)
    upper = np.triu(rng.integers(20, 40, (M, M)), 1)
    won = rng.binomial(upper, expit(beta_true[:, None] - beta_true[None, :]))
    wins = (won + (upper - won).T).astype(float)
    matches = (upper + upper.T).astype(float)
    beta = bradley_terry_mle(wins, matches)
    assert np.max(np.abs(_score_equations(beta, wins, matches))) < 1e-6
    assert np.max(np.abs(beta - choix.ilsr_pairwise_dense(wins, tol=1e-13))) < 1e-8


def test_a_ridge_solves_the_penalized_equations() -> None:
    wins, matches = pair_counts(_scores(15, 40, seed=2))
    ridge = 0.5
    beta = bradley_terry_mle(wins, matches, ridge=ridge)
    assert np.max(np.abs(_score_equations(beta, wins, matches) - ridge * beta)) < 1e-6
    assert np.max(np.abs(beta - bradley_terry_mle(wins, matches))) > 1e-4
