"""EPP meta-score (METHODS 8): fit against statsmodels and scipy, coverage, separation, counts."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit

from benchuq.core.analyses.epp import (
    epp,
    epp_from_scores,
    fit_bradley_terry,
    pair_counts,
    pair_test,
    round_scores,
    separated_mask,
)
from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.validation import InvalidArgument


def _bench(est: np.ndarray, hib: np.ndarray | None = None) -> Benchmark:
    M, T = est.shape
    return Benchmark(
        name="toy-epp",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("all",) * T,
        kind="estimate_se",
        estimate=est,
        se=np.full((M, T), 0.01),
        higher_is_better=hib,
    )


def _random_matches(rng: np.random.Generator, beta: np.ndarray, n: int) -> tuple:
    """Independent binomial matches: every pair plays n games with BT probabilities."""
    M = len(beta)
    i, j = np.triu_indices(M, 1)
    w = rng.binomial(n, expit(beta[i] - beta[j])).astype(float)
    wins = np.zeros((M, M))
    wins[i, j], wins[j, i] = w, n - w
    matches = np.full((M, M), float(n))
    np.fill_diagonal(matches, 0.0)
    return wins, matches


def _glm_rows(wins: np.ndarray, matches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    M = len(wins)
    i, j = np.triu_indices(M, 1)
    keep = matches[i, j] > 0
    i, j = i[keep], j[keep]
    X = np.zeros((len(i), M))
    X[np.arange(len(i)), i] = 1.0
    X[np.arange(len(i)), j] = -1.0
    y = np.column_stack([wins[i, j], matches[i, j] - wins[i, j]])
    return X, y


def test_agrees_with_statsmodels_glm_dropping_one_column_and_recentring() -> None:
    rng = np.random.default_rng(3)
    beta_true = np.array([0.8, 0.3, 0.0, -0.2, -0.9])
    wins, matches = _random_matches(rng, beta_true, 15)
    beta, cov = fit_bradley_terry(wins, matches)
    X, y = _glm_rows(wins, matches)
    M = len(beta)
    fit = sm.GLM(y, X[:, : M - 1], family=sm.families.Binomial()).fit(tol=1e-13)
    gamma = np.append(fit.params, 0.0)
    cov_gamma = np.zeros((M, M))
    cov_gamma[: M - 1, : M - 1] = fit.cov_params()
    centre = np.eye(M) - 1.0 / M  # delta method of beta = gamma - mean(gamma) (linear)
    np.testing.assert_allclose(beta, gamma - gamma.mean(), atol=1e-6)
    np.testing.assert_allclose(cov, centre @ cov_gamma @ centre, atol=1e-6)
    full = _from_counts(wins, matches)
    assert full.deviance == pytest.approx(fit.deviance, rel=1e-6)
    assert full.df == len(y) - (M - 1)


def _from_counts(wins: np.ndarray, matches: np.ndarray):
    """Round scores that reproduce given integer win counts (one round per match)."""
    M = len(wins)
    cols = []
    for i, j in zip(*np.triu_indices(M, 1), strict=True):
        for k in range(int(matches[i, j])):
            c = np.full(M, np.nan)
            c[i], c[j] = (1.0, 0.0) if k < wins[i, j] else (0.0, 1.0)
            cols.append(c)
    scores = np.column_stack(cols)
    got_w, got_n = pair_counts(scores)
    np.testing.assert_array_equal(got_w, wins)
    np.testing.assert_array_equal(got_n, matches)
    return epp_from_scores(scores, tuple(f"m{i}" for i in range(M)), interval="glm")


def test_agrees_with_scipy_maximum_likelihood() -> None:
    rng = np.random.default_rng(11)
    beta_true = rng.normal(0, 1, 6)
    wins, matches = _random_matches(rng, beta_true, 9)
    beta, _ = fit_bradley_terry(wins, matches)

    def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
        b = np.append(theta, -theta.sum())  # sum-to-zero parametrization
        d = b[:, None] - b[None, :]
        p = expit(d)
        grad_b = -(wins.sum(1) - (matches * p).sum(1))
        return float((wins * np.logaddexp(0, -d)).sum()), grad_b[:-1] - grad_b[-1]

    opt = minimize(nll, np.zeros(5), jac=True, method="BFGS", options={"gtol": 1e-11})
    np.testing.assert_allclose(beta, np.append(opt.x, -opt.x.sum()), atol=1e-6)
    assert abs(beta.sum()) < 1e-10


def test_glm_intervals_cover_under_independent_matches() -> None:
    rng = np.random.default_rng(2024)
    beta_true = np.array([1.0, 0.5, 0.0, -0.4, -1.1])
    beta_true -= beta_true.mean()
    hits = []
    for _ in range(300):
        wins, matches = _random_matches(rng, beta_true, 12)
        beta, cov = fit_bradley_terry(wins, matches)
        se = np.sqrt(np.diag(cov))
        hits.append(np.abs(beta - beta_true) < 1.959964 * se)
    coverage = float(np.mean(hits))
    assert 0.92 <= coverage <= 0.98, coverage


def test_round_robust_intervals_cover_when_rounds_are_shared() -> None:
    # Scores beta_i + Gumbel noise make P(i beats j) = invlogit(beta_i - beta_j) exactly, but
    # the matches of one round are dependent; the round-robust intervals account for that.
    rng = np.random.default_rng(7)
    beta_true = np.linspace(-1.2, 1.2, 8)
    models = tuple("abcdefgh")
    hits, glm_hits = [], []
    for _ in range(150):
        scores = beta_true[:, None] + rng.gumbel(size=(8, 60))
        res = epp_from_scores(scores, models, interval="rounds")
        hits.append((res.low < beta_true) & (beta_true < res.high))
        glm = epp_from_scores(scores, models, interval="glm")
        glm_hits.append((glm.low < beta_true) & (beta_true < glm.high))
    assert 0.92 <= float(np.mean(hits)) <= 0.98, np.mean(hits)
    assert float(np.mean(glm_hits)) < 0.9  # why "rounds" is the default


@pytest.mark.slow
def test_bootstrap_intervals_cover_when_rounds_are_shared() -> None:
    rng = np.random.default_rng(8)
    beta_true = np.linspace(-1.0, 1.0, 5)
    hits = []
    for r in range(50):
        scores = beta_true[:, None] + rng.gumbel(size=(5, 80))
        res = epp_from_scores(scores, tuple("abcde"), interval="bootstrap", reps=150, seed=r)
        hits.append((res.low < beta_true) & (beta_true < res.high))
    assert 0.88 <= float(np.mean(hits)) <= 0.99, np.mean(hits)


def test_bootstrap_is_reproducible_with_a_seed() -> None:
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(4, 12))
    a = epp_from_scores(scores, tuple("abcd"), interval="bootstrap", reps=60, seed=5)
    b = epp_from_scores(scores, tuple("abcd"), interval="bootstrap", reps=60, seed=5)
    c = epp_from_scores(scores, tuple("abcd"), interval="bootstrap", reps=60, seed=6)
    np.testing.assert_array_equal(a.low, b.low)
    assert not np.array_equal(a.low, c.low)
    assert a.seed == 5 and a.reps == 60


def test_beats_average_is_the_win_probability_against_an_epp_0_model() -> None:
    """A model with EPP 0 (the mean of the scores) added to the fit: each model beats it with
    probability ``beats_average``."""
    res = epp(_bench(np.random.default_rng(4).uniform(0.2, 0.8, size=(4, 12))))
    beta = np.append(res.estimate, 0.0)  # the average player
    np.testing.assert_allclose(res.beats_average, expit(beta[:4] - beta[4]), rtol=1e-12)
    assert np.argmax(res.beats_average) == res.order[0]


def test_model_that_wins_every_match_is_flagged_and_finite() -> None:
    rng = np.random.default_rng(1)
    est = rng.uniform(0.3, 0.7, size=(5, 10))
    est[2] = 0.99  # model m2 is best on every task
    res = epp(_bench(est))
    assert res.separated == ("m2",)
    assert res.ridge > 0
    assert np.all(np.isfinite(res.estimate)) and np.all(np.isfinite(res.se))
    assert res.order[0] == 2
    assert np.all(res.win_probability[2, [0, 1, 3, 4]] > 0.9)
    assert any("separation" in n for n in res.notes)


def test_model_that_loses_every_match_is_flagged() -> None:
    rng = np.random.default_rng(4)
    est = rng.uniform(0.3, 0.7, size=(4, 8))
    est[0] = 0.01
    res = epp(_bench(est), interval="glm")
    assert res.separated == ("m0",)
    assert np.isfinite(res.estimate[0]) and res.order[-1] == 0


def test_separation_condition_matches_strong_connectivity() -> None:
    wins = np.array([[0, 2, 1], [1, 0, 2], [0, 1, 0.0]])  # m2 never beats m0 but beats m1
    matches = np.array([[0, 3, 1], [3, 0, 3], [1, 3, 0.0]])
    assert not separated_mask(wins, matches).any()
    wins[2, 1] = 0.0
    wins[1, 2] = 3.0
    assert separated_mask(wins, matches).tolist() == [False, False, True]
    order = np.triu(np.full((3, 3), 2.0), 1)  # a strict order: m0 > m1 > m2 in every round
    both = order + order.T
    assert separated_mask(order, both).all()
    res = epp_from_scores(np.array([[3.0, 3], [2, 2], [1, 1]]), tuple("abc"), interval="glm")
    assert res.separated == ("a", "b", "c") and np.all(np.isfinite(res.estimate))
    assert np.all(np.diff(res.estimate) < 0)


def test_one_round_needs_glm_intervals() -> None:
    scores = np.array([[0.9], [0.5], [0.1]])
    for interval in ("rounds", "bootstrap"):
        with pytest.raises(DataError, match="at least two rounds"):
            epp_from_scores(scores, tuple("abc"), interval=interval)


def test_unseparated_fit_uses_no_ridge() -> None:
    rng = np.random.default_rng(5)
    res = epp(_bench(rng.uniform(size=(5, 30))))
    assert res.ridge == 0.0 and res.separated == ()


def test_pair_counts_ties_missing_and_lower_is_better() -> None:
    est = np.array([[0.5, 0.9, 0.2, np.nan], [0.5, 0.1, 0.3, 0.4], [np.nan, 0.2, 0.9, 0.1]])
    hib = np.array([True, True, False, True])
    scores, labels = round_scores(_bench(est, hib))
    assert labels == ("t0", "t1", "t2", "t3")
    wins, matches = pair_counts(scores)
    # m0 vs m1: tie t0 (1/2), win t1, win t2 (0.2 < 0.3, lower is better) -> 2.5 of 3
    assert wins[0, 1] == 2.5 and wins[1, 0] == 0.5 and matches[0, 1] == 3
    # m1 vs m2 share t1, t2, t3: m1 wins t2 and t3 -> 2 of 3
    assert wins[1, 2] == 2 and matches[1, 2] == 3
    np.testing.assert_array_equal(wins + wins.T, matches)


def test_weighted_counts_equal_repeated_rounds() -> None:
    rng = np.random.default_rng(9)
    scores = rng.integers(0, 3, size=(4, 6)).astype(float)
    w = np.array([0, 2, 1, 0, 3, 1])
    np.testing.assert_array_equal(
        pair_counts(scores, weights=w.astype(float))[0],
        pair_counts(np.repeat(scores, w, axis=1))[0],
    )


def test_items_as_rounds() -> None:
    scores = [np.array([[1, 1, 0, 1], [0, 1, 0, 0], [1, 0, 1, np.nan]], float)]
    bench = Benchmark(
        name="items-epp",
        models=("a", "b", "c"),
        tasks=("t",),
        categories=("all",),
        kind="items",
        estimate=np.array([[0.75], [0.25], [2 / 3]]),
        item_tasks=(ItemTask(("i1", "i2", "i3", "i4"), scores[0]),),
    )
    res = epp(bench, rounds="items")
    assert res.n_rounds == 4 and res.rounds == "items"
    assert res.wins[0, 1] == 3 and res.matches[0, 2] == 3  # 2 wins, 2 ties
    with pytest.raises(DataError, match="item-level"):
        epp(_bench(np.eye(3)), rounds="items")


def test_models_that_never_meet_raise_a_data_error() -> None:
    est = np.array([[0.5, 0.6, np.nan, np.nan], [0.4, 0.7, np.nan, np.nan]])
    est = np.vstack([est, [np.nan, np.nan, 0.3, 0.2], [np.nan, np.nan, 0.1, 0.5]])
    with pytest.raises(DataError, match="never share a round") as err:
        epp(_bench(est))
    assert "toy-epp" in str(err.value) and "How to fix" in str(err.value)


def test_deviance_table_and_pair_test_are_consistent() -> None:
    rng = np.random.default_rng(6)
    res = epp(_bench(rng.uniform(size=(6, 25))), level=0.9)
    assert res.df == 15 - 5
    assert res.standardized_deviance == pytest.approx((res.deviance - 10) / np.sqrt(20))
    p = res.win_probability
    np.testing.assert_allclose(p + p.T, np.where(np.eye(6, dtype=bool), np.nan, 1.0))
    t = pair_test(res, "m1", "m4")
    assert t.p_value == pytest.approx(res.wald_p[1, 4])
    assert t.probability == pytest.approx(p[1, 4])
    assert t.low < t.probability < t.high and t.level == 0.9
    np.testing.assert_allclose(res.wald_p, res.wald_p.T)
    with pytest.raises(InvalidArgument, match="unknown model"):
        pair_test(res, "m1", "nope")


def test_two_models_have_no_deviance_degrees_of_freedom() -> None:
    res = epp_from_scores(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), ("a", "b"))
    assert res.df == 0 and np.isnan(res.p_value) and np.isnan(res.standardized_deviance)
    assert res.estimate[0] == pytest.approx(np.log(2) / 2)


def test_bad_level_and_method_raise() -> None:
    with pytest.raises(InvalidArgument, match="level"):
        epp(_bench(np.eye(3)), level=95)
    with pytest.raises(InvalidArgument, match="interval method"):
        epp(_bench(np.eye(3)), interval="exact")  # type: ignore[arg-type]


@pytest.mark.parametrize("interval", ["glm", "rounds", "bootstrap"])
def test_at_level_equals_a_fit_at_that_level(interval: str) -> None:
    rng = np.random.default_rng(12)
    scores = rng.normal(size=(4, 15))
    kw = {"interval": interval, "reps": 80, "seed": 1}
    direct = epp_from_scores(scores, tuple("abcd"), level=0.8, **kw)
    moved = epp_from_scores(scores, tuple("abcd"), level=0.95, **kw).at_level(0.8)
    np.testing.assert_allclose(moved.low, direct.low)
    np.testing.assert_allclose(moved.high, direct.high)
    assert moved.level == 0.8
    assert np.all(moved.high - moved.low < direct.at_level(0.95).high - direct.at_level(0.95).low)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-5, 5), scale=st.floats(0.1, 10))
def test_epp_depends_only_on_who_beat_whom(seed: int, shift: float, scale: float) -> None:
    """Monotone per-round transforms leave EPP unchanged; permuting models permutes it."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(5, 12))
    scores[rng.random((5, 12)) < 0.1] = np.nan
    models = tuple("abcde")
    base = epp_from_scores(scores, models)
    moved = epp_from_scores(np.exp(scores * scale + shift), models)
    np.testing.assert_allclose(moved.estimate, base.estimate, atol=1e-8)
    np.testing.assert_allclose(moved.se, base.se, atol=1e-8)
    perm = rng.permutation(5)
    shuffled = epp_from_scores(scores[perm], tuple(models[i] for i in perm))
    np.testing.assert_allclose(shuffled.estimate, base.estimate[perm], atol=1e-8)
    assert abs(base.estimate.sum()) < 1e-9
