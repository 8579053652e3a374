"""Simultaneous inference against known truth (METHODS 2, 3, 4b; issue #13), seeded and small.

The larger runs with tables are in ``benchmarks/bench_inference.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from benches import counts_bench
from scipy import stats

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.methods.bootstrap import confidence_draws, paired_bootstrap
from benchuq.core.reading.loaders import resolve
from benchuq.core.summaries import group_scores, pairwise_differences, percentile_interval
from benchuq.core.summaries.leader import overlap_test_level, tied_with_leader
from benchuq.core.summaries.maxt import critical_index, max_t
from benchuq.core.summaries.normalization import normalize
from benchuq.core.summaries.rank_sets import rank_sets


def item_bench(scores: np.ndarray) -> Benchmark:
    """One task of ``(M, n)`` binary item scores."""
    M, n = scores.shape
    task = ItemTask(tuple(str(i) for i in range(n)), scores)
    return Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=("t",),
        categories=("c",),
        kind="items",
        estimate=scores.mean(axis=1, keepdims=True),
        item_tasks=(task,),
    )


def correlated_items(p: np.ndarray, n: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """``(M, n)`` 0/1 scores, P(correct) = p_m, shared item effect (latent correlation rho)."""
    latent = np.sqrt(rho) * rng.standard_normal(n) + np.sqrt(1 - rho) * rng.standard_normal(
        (len(p), n)
    )
    return (latent < stats.norm.ppf(p)[:, None]).astype(float)


# ---- max-T by hand ----------------------------------------------------------------------------


def test_critical_index_matches_the_p_value_rule() -> None:
    # R = 19, alpha = 0.1: p <= 0.1 iff #{m >= t} <= 1, i.e. t above the 18th of 19 maxima
    assert critical_index(19, 0.1) == 17
    assert critical_index(10, 0.05) == -1  # R too small: nothing can be rejected


def test_max_t_intervals_agree_with_p_values_and_stepdown_is_smaller() -> None:
    rng = np.random.default_rng(1)
    d = rng.standard_normal((999, 8)) * 0.02
    est = np.array([0.0, 0.01, 0.03, 0.05, 0.07, -0.04, 0.002, 0.2])
    fam = max_t(d + est, est, level=0.95)
    excludes = (fam.low > 0) | (fam.high < 0)
    np.testing.assert_array_equal(fam.p_value <= 0.05, excludes)
    assert (fam.p_stepdown <= fam.p_value).all()
    assert fam.below_resolution[-1] and fam.p_value[-1] == pytest.approx(1 / 1000)
    # 8 independent N(0, 1): the max-T critical value is about the Sidak z
    assert fam.critical == pytest.approx(stats.norm.isf((1 - 0.95 ** (1 / 8)) / 2), abs=0.12)


# ---- simultaneous coverage and family-wise error (known truth) --------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "p",
    [
        np.array([0.7, 0.7, 0.7, 0.7]),  # 6 pairs, no differences
        np.array([0.6, 0.65, 0.7, 0.8]),  # 6 pairs, real differences
        np.full(10, 0.7),  # 45 pairs, no differences
        np.linspace(0.55, 0.8, 10),  # 45 pairs, real differences
    ],
)
def test_maxt_intervals_cover_all_differences_together(p: np.ndarray) -> None:
    rng = np.random.default_rng(int(100 * p.sum()))
    models = [f"m{i}" for i in range(len(p))]
    i, j = np.triu_indices(len(p), 1)
    truth = p[i] - p[j]
    covered, fwer = [], []
    for s in range(300):
        draws = paired_bootstrap(item_bench(correlated_items(p, 300, 0.4, rng)), reps=400, seed=s)
        out = pairwise_differences(draws, models, level=0.95)
        covered.append(bool(np.all((out.low <= truth) & (truth <= out.high))))
        fwer.append(bool(np.any((out.p_stepdown <= 0.05) & (truth == 0))))
    # 300 data sets: Monte Carlo SE about 0.013 around 0.95
    assert 0.91 <= np.mean(covered) <= 0.99, np.mean(covered)
    if np.all(truth == 0):  # global null: step-down p-values keep the family-wise error
        assert np.mean(fwer) <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 300), np.mean(fwer)


@pytest.mark.slow
def test_rank_sets_reach_their_coverage() -> None:
    rng = np.random.default_rng(7)
    p = np.array([0.80, 0.78, 0.74, 0.70, 0.69, 0.60])
    true_rank = np.arange(1, 7)
    sim, marg, best = [], [], []
    for s in range(300):
        draws = paired_bootstrap(item_bench(correlated_items(p, 400, 0.4, rng)), reps=400, seed=s)
        sc = group_scores(draws)
        rs = rank_sets(sc.values, sc.observed, draws.models, level=0.95)
        sim.append(np.all((rs.simultaneous_low <= true_rank) & (true_rank <= rs.simultaneous_high)))
        marg.append((rs.marginal_low <= true_rank) & (true_rank <= rs.marginal_high))
        best.append("m0" in rs.top_set(1))
    assert np.mean(sim) >= 0.93, np.mean(sim)
    assert np.min(np.mean(marg, axis=0)) >= 0.93, np.mean(marg, axis=0)
    assert np.mean(best) >= 0.93


def test_rank_sets_by_hand() -> None:
    # three models far apart and one pair too close to order: sets {1}, {2, 3}, {2, 3}, {4}
    rng = np.random.default_rng(0)
    obs = np.array([0.9, 0.7, 0.69, 0.3])
    vals = obs + 0.01 * rng.standard_normal((2000, 4))
    rs = rank_sets(vals, obs, ("a", "b", "c", "d"), level=0.95)
    np.testing.assert_array_equal(rs.simultaneous_low, [1, 2, 2, 4])
    np.testing.assert_array_equal(rs.simultaneous_high, [1, 3, 3, 4])
    assert rs.top_set(1) == ("a",) and rs.top_set(2) == ("a", "b", "c")
    low_better = rank_sets(-vals, -obs, ("a", "b", "c", "d"), level=0.95, higher_is_better=False)
    np.testing.assert_array_equal(low_better.marginal_low, rs.marginal_low)


# ---- the task-level draws: coverage near 0% and 100% ------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n", "p", "T"),
    [(10, 0.999, 20), (20, 0.985, 5), (50, 0.95, 1), (10, 0.5, 1), (100, 0.97, 5)],
)
def test_task_level_interval_covers_the_overall_mean(n: int, p: float, T: int) -> None:
    rng = np.random.default_rng(n * T)
    hits = []
    for s in range(300):
        k = rng.binomial(n, p, size=(1, T))
        iv = percentile_interval(
            group_scores(confidence_draws(counts_bench(k, n), reps=400, seed=s)), level=0.95
        )
        hits.append(iv.low[0] <= p <= iv.high[0])
    assert np.mean(hits) >= 0.93 - 2.5 * np.sqrt(0.95 * 0.05 / 300), np.mean(hits)


def test_no_zero_width_interval_at_k_0_or_n_and_few_items_note() -> None:
    bench = counts_bench(np.array([[0], [12], [5]]), np.array([12]))
    draws = confidence_draws(bench, reps=2000, seed=0)
    iv = percentile_interval(group_scores(draws), level=0.95)
    assert (iv.high - iv.low > 0.05).all()
    assert 0 <= iv.low.min() and iv.high.max() <= 1
    assert any(
        "fewer than 30 items" in note and "m0 (12), m1 (12), m2 (12)" in note
        for note in draws.notes
    )


# ---- the bundled VTAB-1k sample -----------------------------------------------------------------


def test_vtab1k_all_pairs_resolve_and_verdicts_agree_with_intervals() -> None:
    from benchuq.dashboard.compare.view import verdicts

    bench = resolve("sample:vtab1k")
    draws = confidence_draws(bench, reps=2000, seed=0)
    sc = group_scores(draws)
    order = [draws.models[i] for i in np.argsort(-sc.observed)]
    for correction in ("maxt", "bonferroni"):
        out = pairwise_differences(draws, order, correction=correction)
        assert len(out) == 120
        top_last = out[(out.a == order[0]) & (out.b == order[-1])].iloc[0]
        assert top_last.p_value < 0.001, correction
        excludes = (out.low > 0) | (out.high < 0)
        np.testing.assert_array_equal(out.p_value <= 0.05, excludes)
        said = verdicts(out, 0.95, correction, 2000, 100, "points")
        for v, row in zip(said, out.itertuples(), strict=True):
            expected = "a" if row.low > 0 else "b" if row.high < 0 else "tie"
            assert v.kind == expected
            assert ("includes 0" in v.text) == (expected == "tie")
    assert out.p_below_resolution.sum() == 0  # the normal reference needs no resolution note


def test_normalized_estimates_do_not_move_with_R() -> None:
    bench = resolve("sample:vtab1k")
    small = normalize(confidence_draws(bench, reps=200, seed=0), chance=bench.chance)
    large = normalize(confidence_draws(bench, reps=10_000, seed=5), chance=bench.chance)
    a, b = percentile_interval(group_scores(small)), percentile_interval(group_scores(large))
    np.testing.assert_array_equal(a.estimate, b.estimate)
    mc = np.maximum(a.mc_error_low, a.mc_error_high)
    assert (np.abs(a.low - b.low) < 4 * np.maximum(a.mc_error_low, 1e-12) + 1e-9).mean() > 0.9
    # the [LGC] variant's estimate moves by far more than its Monte Carlo error
    pa = group_scores(normalize(confidence_draws(bench, reps=200, seed=0), mode="paper"))
    pb = group_scores(normalize(confidence_draws(bench, reps=10_000, seed=5), mode="paper"))
    assert np.max(np.abs(pa.observed - pb.observed)) > 5 * np.max(mc)


# ---- the ≈ leader rule -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.0, 0.8])
def test_leader_rule_is_a_5_percent_test_whatever_the_correlation(rho: float) -> None:
    """Two equally good models: "not ≈ leader" in about 5% of data sets with paired draws, while
    non-overlap of the 83.4% intervals falls far below 5% once the models are correlated."""
    rng = np.random.default_rng(11 + int(10 * rho))
    flagged, apart = [], []
    for s in range(400):
        draws = paired_bootstrap(
            item_bench(correlated_items(np.array([0.7, 0.7]), 300, rho, rng)), reps=400, seed=s
        )
        sc = group_scores(draws)
        flagged.append(not tied_with_leader(sc.values, sc.observed, level=0.834).all())
        iv = percentile_interval(sc, level=0.834)
        apart.append(iv.low.max() > iv.high.min())
    assert overlap_test_level(0.834) == pytest.approx(0.95, abs=0.001)
    assert 0.025 <= np.mean(flagged) <= 0.085, np.mean(flagged)
    if rho > 0:
        assert np.mean(apart) < 0.02, np.mean(apart)


def test_rank_set_sentences_quote_names_with_commas() -> None:
    """A model named "x, y" reads as one model in a set, not two (the audit of 2026-12-08:
    ``{x, y, B}`` for the models "x, y" and B)."""
    from benchuq.core.summaries.rank_sets import rank_set_sentences

    rng = np.random.default_rng(0)
    values = rng.normal([0.5, 0.5, 0.0], 0.01, size=(500, 3))
    sets = rank_sets(values, np.array([0.5, 0.5, 0.0]), ["x, y", "B", "{C}"], level=0.95)
    best = rank_set_sentences(sets, top=(1,))[0]
    assert best in (
        'The best model is one of {"x, y", B} with 95% confidence.',
        'The best model is one of {B, "x, y"} with 95% confidence.',
    ), best
