"""Arena ratings (METHODS 8b): recovery, coverage, rank sets, ties, clusters, style control, and
agreement with statsmodels and arena-rank."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from benchuq.core.analyses.arena import ELO, arena
from benchuq.core.analyses.arena_synthetic import simulate_battles
from benchuq.core.data import DataError
from benchuq.core.reading.battles import Battles, battles_from_frame
from benchuq.core.validation import InvalidArgument

Z95 = 1.959963984540054


def _strengths(M: int, seed: int = 123, sd: float = 0.6) -> np.ndarray:
    beta = np.random.default_rng(seed).normal(0, sd, M)
    return beta - beta.mean()


def _diff_se(cov: np.ndarray) -> np.ndarray:
    v = np.diag(cov)
    return np.sqrt(np.clip(v[:, None] + v[None, :] - 2 * cov, 0, None))


def test_recovers_strengths_30_models_50000_battles() -> None:
    beta = _strengths(30, sd=1.0)
    res = arena(simulate_battles(beta, n=50_000, tie=0.3, seed=7))
    est = (res.rating - 1000) / ELO
    z = (est - beta) / (res.se / ELO)
    # sum of squared z over contrasts to the mean: about chi-square with 29 df
    assert np.sum(z**2) < 60
    assert np.max(np.abs(z)) < 4
    assert res.rating.mean() == pytest.approx(1000)
    assert res.n_battles == 50_000 and res.battles.sum() == 100_000


def test_anchor_fixes_a_model_at_1000() -> None:
    bt = simulate_battles(_strengths(5), n=3000, seed=1)
    free, anchored = arena(bt), arena(bt, anchor="m02")
    i = bt.models.index("m02")
    assert anchored.rating[i] == 1000 and anchored.low[i] == anchored.high[i] == 1000
    shift = free.rating - free.rating[i] + 1000
    np.testing.assert_allclose(anchored.rating, shift, atol=1e-9)
    d_free, d_anch = free.difference("m00", "m01"), anchored.difference("m00", "m01")
    assert d_free.low == pytest.approx(d_anch.low) and d_free.high == pytest.approx(d_anch.high)


def _coverage(
    interval: str, datasets: int, M: int = 8, n: int = 2000, reps: int = 200
) -> tuple[float, float]:
    beta = _strengths(M)
    truth = ELO * (beta[:, None] - beta[None, :])
    true_rank = 1 + (beta[None, :] > beta[:, None]).sum(axis=1)
    iu = np.triu_indices(M, 1)
    pairs, simultaneous = [], []
    for k in range(datasets):
        res = arena(
            simulate_battles(beta, n=n, seed=1000 + k), interval=interval, reps=reps, seed=k
        )
        if interval == "sandwich":
            est = res.rating[:, None] - res.rating[None, :]
            ok = np.abs(est - truth) <= Z95 * _diff_se(res.cov)
        else:
            assert res.replicates is not None
            d = res.replicates[:, :, None] - res.replicates[:, None, :]
            lo, hi = np.quantile(d, [0.025, 0.975], axis=0)
            ok = (lo <= truth) & (truth <= hi)
        pairs.append(ok[iu].mean())
        simultaneous.append(np.all((res.rank_low <= true_rank) & (true_rank <= res.rank_high)))
    return float(np.mean(pairs)), float(np.mean(simultaneous))


@pytest.mark.slow  # 150 simulated arenas: half a minute of CPU
def test_sandwich_intervals_of_differences_cover() -> None:
    """Small seeded version of benchmarks/bench_arena.py --coverage (there: 30 models)."""
    pairs, simultaneous = _coverage("sandwich", 150)
    assert 0.93 <= pairs <= 0.97
    assert simultaneous >= 0.93  # simultaneous rank sets: all true ranks inside, 95% target


@pytest.mark.slow
def test_bootstrap_intervals_of_differences_cover() -> None:
    pairs, simultaneous = _coverage("bootstrap", 100, reps=300)
    assert 0.925 <= pairs <= 0.975
    assert simultaneous >= 0.9


def test_rank_ub_and_best_sentence() -> None:
    beta = np.array([1.0, 0.98, 0.0, -0.5, -1.5])
    res = arena(simulate_battles(beta, n=20_000, seed=3))
    i0, i1 = res.models.index("m00"), res.models.index("m01")
    assert res.rank_ub[i0] == res.rank_ub[i1] == 1  # too close to separate
    assert res.rank_ub[res.models.index("m04")] == 5
    assert set(res.best) == {"m00", "m01"}
    assert res.sentence() == "The best model is one of {m00, m01} with 95% confidence." or (
        res.sentence() == "The best model is one of {m01, m00} with 95% confidence."
    )
    # rank (UB) is 1 + the models whose interval lies entirely above
    for k in range(5):
        assert res.rank_ub[k] == 1 + np.sum(res.low > res.high[k])


def test_win_probability_matrix() -> None:
    res = arena(simulate_battles(_strengths(4), n=4000, seed=2))
    wp = res.win_probability
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_allclose(wp[off] + wp.T[off], 1.0)
    d = (res.rating[:, None] - res.rating[None, :]) / ELO
    np.testing.assert_allclose(wp[off], 1 / (1 + np.exp(-d[off])))
    assert np.all(res.win_low[off] <= wp[off]) and np.all(wp[off] <= res.win_high[off])


def _design(bt: Battles) -> np.ndarray:
    M = len(bt.models)
    X = np.zeros((bt.n, M))
    X[np.arange(bt.n), bt.a] = 1
    X[np.arange(bt.n), bt.b] = -1
    return X[:, :-1]  # the last model is the reference


def _contrast_cov(cov_ref: np.ndarray, M: int) -> np.ndarray:
    """Covariance of all beta_i - beta_j from the reference-coded covariance (beta_M = 0)."""
    full = np.zeros((M, M))
    full[:-1, :-1] = cov_ref
    return _diff_se(full)


@pytest.mark.parametrize("clustered", [False, True])
def test_sandwich_equals_statsmodels(clustered: bool) -> None:
    bt = simulate_battles(_strengths(6), n=3000, seed=5, prompts=300, prompt_sd=0.8)
    res = arena(bt, cluster="prompt" if clustered else "none")
    X = _design(bt)
    glm = sm.GLM(bt.score, X, family=sm.families.Binomial())
    if clustered:
        assert bt.prompt is not None
        fit = glm.fit(cov_type="cluster", cov_kwds={"groups": bt.prompt, "use_correction": False})
        G = len(np.unique(bt.prompt))
        want = _contrast_cov(np.asarray(fit.cov_params()) * G / (G - 1), 6)
    else:
        fit = glm.fit(cov_type="HC0")
        want = _contrast_cov(np.asarray(fit.cov_params()), 6)
    beta = np.append(fit.params, 0.0)
    np.testing.assert_allclose((res.rating - 1000) / ELO, beta - beta.mean(), atol=1e-8)
    np.testing.assert_allclose(_diff_se(res.cov) / ELO, want, rtol=1e-6, atol=1e-12)
    assert res.cluster == ("prompt" if clustered else None)


def test_clustered_intervals_are_wider_with_prompt_effects() -> None:
    bt = simulate_battles(_strengths(6), n=6000, seed=9, prompts=200, prompt_sd=1.5)
    plain, robust = arena(bt, cluster="none"), arena(bt, cluster="prompt")
    assert np.all(robust.se > plain.se)
    boot = arena(bt, cluster="prompt", interval="bootstrap", reps=200)
    assert boot.n_clusters == 0 or boot.cluster == "prompt"
    assert np.median(boot.se / robust.se) == pytest.approx(1.0, abs=0.2)


def test_davidson_recovers_tie_ratio_and_strengths() -> None:
    beta = _strengths(6, sd=0.8)
    bt = simulate_battles(beta, n=30_000, ties="davidson", tie=0.8, seed=11)
    res = arena(bt, ties="davidson")
    assert res.tie_ratio is not None and res.tie_ratio == pytest.approx(0.8, rel=0.05)
    z = ((res.rating - 1000) / ELO - beta) / (res.se / ELO)
    assert np.max(np.abs(z)) < 4
    boot = arena(bt, ties="davidson", interval="bootstrap", reps=100)
    np.testing.assert_allclose(boot.se, res.se, rtol=0.3)


def test_style_control_removes_length_bias() -> None:
    beta = _strengths(8, sd=0.5)
    bt = simulate_battles(beta, n=40_000, seed=4, style=2.0, style_link=1.5)
    res = arena(bt, control=["length"])
    assert res.uncontrolled is not None and res.controls == ("length",)
    est = (res.rating - 1000) / ELO
    raw = (res.uncontrolled.rating - 1000) / ELO
    err, raw_err = np.abs(est - beta).max(), np.abs(raw - beta).max()
    assert err < 4 * (res.se / ELO).max() and raw_err > 2 * err
    assert res.coefficients[0] > 0 and res.coefficient_se[0] > 0


def test_both_bad_and_graded_outcomes() -> None:
    df = pd.DataFrame(
        {
            "model_a": ["x", "y", "x", "z", "y", "z"] * 20,
            "model_b": ["y", "z", "z", "x", "x", "y"] * 20,
            "winner": ["model_a", "tie (bothbad)", "model_b", "both_bad", "tie", "model_a"] * 20,
        }
    )
    bt = battles_from_frame(df)
    assert arena(bt, both_bad="drop").n_battles == 80
    assert arena(bt).n_battles == 120
    assert arena(bt, ties="davidson").n_battles == 120


def test_bad_arguments() -> None:
    bt = simulate_battles(_strengths(3), n=300, seed=0)
    with pytest.raises(InvalidArgument, match="ties"):
        arena(bt, ties="third")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="m09"):
        arena(bt, anchor="m09")
    with pytest.raises(InvalidArgument, match="length"):
        arena(bt, control=["length"])
    with pytest.raises(InvalidArgument, match="prompt"):
        arena(bt, cluster="prompt")
    with pytest.raises(InvalidArgument, match="reps"):
        arena(bt, interval="bootstrap", reps=10)


def test_disconnected_models_are_a_data_error() -> None:
    df = pd.DataFrame(
        {"model_a": ["a", "b", "c", "d"], "model_b": ["b", "a", "d", "c"], "winner": ["tie"] * 4}
    )
    with pytest.raises(DataError, match="never battle each other"):
        arena(battles_from_frame(df))


def test_separation_gets_a_ridge_and_a_note() -> None:
    df = pd.DataFrame(
        {
            "model_a": ["a", "a", "b", "c", "b"],
            "model_b": ["b", "c", "c", "b", "a"],
            "winner": ["model_a", "model_a", "model_a", "model_a", "model_b"],
        }
    )
    res = arena(battles_from_frame(df))
    assert np.all(np.isfinite(res.rating))
    assert any("separation" in n for n in res.notes)


def test_davidson_refuses_graded_preferences() -> None:
    frame = pd.read_csv(io.StringIO("generator_1,generator_2,preference\nb,a,1.3\nb,a,1.9\n"))
    bt = battles_from_frame(frame)
    with pytest.raises(DataError, match="graded"):
        arena(bt, ties="davidson")


# ---- arena-rank (LMArena's own package, extra "arena-rank": pip install -e ".[arena-rank]") ---
def test_equals_arena_rank() -> None:
    """Ratings and sandwich standard errors equal arena-rank's within 1e-6.

    arena-rank adds ``1e-5 * N`` to the Hessian's diagonal before inverting it (a numerical
    guard: it shrinks the variances by about ``1e-5 N / lambda``); benchuq inverts the Hessian
    exactly on ``sum beta = 0``. The comparison therefore takes arena-rank's Hessian and score
    covariance (its own ``compute_hessian_and_covariance``) without that ridge, and also checks
    its default intervals differ from ours by no more than the ridge explains.
    """
    pytest.importorskip("arena_rank")
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    bt = simulate_battles(_strengths(30, sd=1.0), n=50_000, seed=7)
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    df = pd.DataFrame({"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner})
    ours = arena(bt)
    ds = PairDataset.from_pandas(df)
    model = BradleyTerry(len(ds.competitors), gtol=1e-12, ftol=1e-15, max_iter=5000)
    out = model.compute_ratings_and_cis(ds)
    assert list(out["competitors"]) == list(ours.models)
    np.testing.assert_allclose(np.asarray(out["ratings"]), ours.rating, rtol=0, atol=1e-6)
    H, G = model.compute_hessian_and_covariance(
        model.params["ratings"], ds.pairs, ds.outcomes, ds.counts, ds.opt_weights, 0.0, 30
    )
    Hp = np.linalg.pinv(np.asarray(H))
    cov = ELO**2 * Hp @ np.asarray(G) @ Hp
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), ours.se, rtol=1e-6)
    np.testing.assert_allclose(cov, ours.cov, rtol=0, atol=1e-6)
    # arena-rank's default intervals: narrower by the ridge only (relative 1e-5 N / lambda)
    width = np.asarray(out["rating_upper"]) - np.asarray(out["rating_lower"])
    rel = np.abs(width / (ours.high - ours.low) - 1)
    assert np.all(rel < 0.02)


def test_docstring_examples_run() -> None:
    import doctest

    from benchuq.core.analyses import arena as arena_module
    from benchuq.core.analyses import arena_synthetic
    from benchuq.core.reading import battles

    for module in (arena_module, arena_synthetic, battles):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_rank_sets_over_the_work_budget_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHUQ_WORK_MB", "0.01")
    with pytest.raises(InvalidArgument, match="arena rank sets"):
        arena(simulate_battles(_strengths(5), n=500, seed=0))
