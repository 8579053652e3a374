"""Task-weight dominance maps (METHODS 5): hand-computed points, rho/z equivalence, draws."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.draws import Draws
from benchuq.core.summaries.dominance import (
    best_probability_map,
    dominance_map,
    from_map_weights,
    map_categories,
    moments_from_benchmark,
    moments_from_draws,
    parse_weights,
    simplex_grid,
    to_map_weights,
    weighted_scores,
    z_for_level,
)
from benchuq.core.validation import InvalidArgument


def hand_bench() -> Benchmark:
    """Two models, four tasks in three categories (numbers used in the hand computations)."""
    n = np.array([[100, 200, 50, 100], [100, 200, 50, 100]])
    k = np.array([[80, 150, 40, 60], [70, 140, 35, 65]])
    return Benchmark(
        name="hand",
        models=("A", "B"),
        tasks=("t1", "t2", "t3", "t4"),
        categories=("x", "x", "y", "z"),
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )


def binomial_draws(bench: Benchmark, reps: int, seed: int) -> Draws:
    """Task-level binomial bootstrap, models independent (METHODS 2), written out for tests."""
    rng = np.random.default_rng(seed)
    k = rng.binomial(bench.n, bench.correct / bench.n, size=(reps, *bench.n.shape))
    return Draws(
        values=k / bench.n,
        observed=np.array(bench.estimate),
        models=bench.models,
        tasks=bench.tasks,
        categories=bench.categories,
        higher_is_better=np.array(bench.higher_is_better),
        method="bootstrap: task-level binomial",
        paired=False,
        seed=seed,
    )


# ---- grid -------------------------------------------------------------------------------------
def test_grid_has_all_points_on_the_simplex() -> None:
    g = simplex_grid(100)
    assert g.shape == (5151, 3)
    np.testing.assert_allclose(g.sum(axis=1), 1.0)
    assert len({tuple(np.round(r * 100).astype(int)) for r in g}) == 5151
    np.testing.assert_array_equal(g[0], [1, 0, 0])
    line = simplex_grid(4, n_categories=2)
    np.testing.assert_allclose(line, [[1, 0], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75], [0, 1]])


@pytest.mark.parametrize("r", [0, -3, 10_000])
def test_grid_rejects_bad_resolution(r: int) -> None:
    with pytest.raises(InvalidArgument, match="resolution"):
        simplex_grid(r)


def test_parse_weights() -> None:
    np.testing.assert_allclose(parse_weights("50,30,20", 3), [0.5, 0.3, 0.2])
    with pytest.raises(InvalidArgument, match="3 non-negative"):
        parse_weights("1,2", 3)
    with pytest.raises(InvalidArgument, match="not numbers"):
        parse_weights("a,b,c", 3)
    with pytest.raises(InvalidArgument, match=r"need one positive number \(the data has one"):
        parse_weights("1,2", 1)  # one category: no plural of one


# ---- hand-computed points (METHODS 5 formulas) ------------------------------------------------
def test_moments_match_the_formula_by_hand() -> None:
    m = moments_from_benchmark(hand_bench())
    assert m.categories == ("x", "y", "z")
    np.testing.assert_allclose(m.means, [[0.775, 0.8, 0.6], [0.7, 0.7, 0.65]])
    # Var(m_ic) = (1/T_c^2) sum p(1-p)/n
    var_a = [(0.8 * 0.2 / 100 + 0.75 * 0.25 / 200) / 4, 0.8 * 0.2 / 50, 0.6 * 0.4 / 100]
    var_b = [(0.7 * 0.3 / 100 + 0.7 * 0.3 / 200) / 4, 0.7 * 0.3 / 50, 0.65 * 0.35 / 100]
    np.testing.assert_allclose(m.variances, [var_a, var_b])


def test_point_values_by_hand() -> None:
    m = moments_from_benchmark(hand_bench())
    w = np.array([[0.5, 0.3, 0.2], [0.0, 0.0, 1.0]])
    d = dominance_map(m, weights=w, z=2.0, rho=0.0)
    # w = (0.5, 0.3, 0.2): S_A = 0.7475, S_B = 0.69
    var_sa = 0.25 * 0.000634375 + 0.09 * 0.0032 + 0.04 * 0.0024
    var_sb = 0.25 * 0.0007875 + 0.09 * 0.0042 + 0.04 * 0.002275
    np.testing.assert_allclose(d.scores[0], [0.7475, 0.69])
    assert (d.leader[0], d.runner_up[0]) == (0, 1)
    np.testing.assert_allclose(d.difference[0], 0.0575)
    np.testing.assert_allclose(d.se[0], np.sqrt(var_sa + var_sb))  # 0.03476
    assert d.winner[0] == -1  # 0.0575 < 2 * 0.03476
    # the corner (0, 0, 1): B leads 0.65 vs 0.60, SE sqrt(0.0024 + 0.002275)
    assert (d.leader[1], d.runner_up[1]) == (1, 0)
    np.testing.assert_allclose(d.se[1], np.sqrt(0.0024 + 0.002275))
    assert d.winner[1] == -1
    d2 = dominance_map(m, weights=w, z=1.5, rho=0.5)
    se_rho = np.sqrt(var_sa + var_sb - 2 * 0.5 * np.sqrt(var_sa * var_sb))  # 0.02456
    np.testing.assert_allclose(d2.se[0], se_rho)
    assert d2.winner[0] == 0  # 0.0575 >= 1.5 * 0.02456
    assert d2.winner[1] == -1  # 0.05 < 1.5 * 0.0342
    d3 = dominance_map(m, weights=w, z=0.5)
    assert list(d3.winner) == [0, 1]
    assert d3.shares() == {"A": 0.5, "B": 0.5}
    np.testing.assert_allclose(d.level, 0.9545, atol=1e-4)
    np.testing.assert_allclose(z_for_level(d.level), 2.0)


def test_exact_tie_is_indeterminate_even_without_noise() -> None:
    est = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]])
    b = Benchmark(
        name="tie",
        models=("a", "b"),
        tasks=("1", "2", "3"),
        categories=("x", "y", "z"),
        kind="estimate_se",
        estimate=est,
        se=np.zeros_like(est),
    )
    d = dominance_map(moments_from_benchmark(b), resolution=4)
    assert np.all(d.winner == -1)
    assert np.all(d.leader == 0)


def test_rho_half_with_equal_variances_equals_z_times_sqrt_half() -> None:
    rng = np.random.default_rng(3)
    est = rng.uniform(0.2, 0.8, (6, 6))
    b = Benchmark(
        name="eq",
        models=tuple("abcdef"),
        tasks=tuple("123456"),
        categories=("x", "x", "y", "y", "z", "z"),
        kind="estimate_se",
        estimate=est,
        se=np.full_like(est, 0.01),
    )
    m = moments_from_benchmark(b)
    for z in (1.0, 2.0, 3.0):
        dep = dominance_map(m, z=z, rho=0.5, resolution=40)
        ind = dominance_map(m, z=z * np.sqrt(0.5), rho=0.0, resolution=40)
        np.testing.assert_allclose(dep.se, ind.se * np.sqrt(0.5))
        np.testing.assert_array_equal(dep.winner, ind.winner)
        assert 0 < np.mean(dep.winner == -1) < 1


def test_lower_is_better_tasks_enter_negated() -> None:
    est = np.array([[0.1, 0.2, 0.3], [0.2, 0.1, 0.4]])
    b = Benchmark(
        name="err",
        models=("a", "b"),
        tasks=("1", "2", "3"),
        categories=("x", "y", "z"),
        kind="estimate_se",
        estimate=est,
        se=np.full_like(est, 0.001),
        higher_is_better=np.array([False, True, True]),
    )
    m = moments_from_benchmark(b)
    np.testing.assert_allclose(m.means[:, 0], [-0.1, -0.2])
    d = dominance_map(m, weights=np.array([[1.0, 0, 0]]))
    assert d.winner[0] == 0  # lower error wins


def test_item_variance_is_population_variance_over_n() -> None:
    scores = np.array([[1.0, 0.0, 1.0, 1.0], [0.2, 0.4, np.nan, 0.9]])
    tasks = tuple(ItemTask(("i1", "i2", "i3", "i4"), scores) for _ in range(3))
    est = np.nanmean(scores, axis=1)[:, None].repeat(3, axis=1)
    b = Benchmark(
        name="it",
        models=("a", "b"),
        tasks=("1", "2", "3"),
        categories=("x", "y", "z"),
        kind="items",
        estimate=est,
        item_tasks=tasks,
    )
    m = moments_from_benchmark(b)
    np.testing.assert_allclose(m.variances[0], 0.75 * 0.25 / 4)
    np.testing.assert_allclose(m.variances[1], np.var([0.2, 0.4, 0.9]) / 3)


# ---- categories -------------------------------------------------------------------------------
def four_category_bench() -> Benchmark:
    est = np.array([[0.9, 0.5, 0.5, 0.5, 0.1], [0.5, 0.6, 0.5, 0.5, 0.5]])
    return Benchmark(
        name="four",
        models=("a", "b"),
        tasks=tuple("12345"),
        categories=("p", "q", "r", "s", "s"),
        kind="estimate_se",
        estimate=est,
        se=np.full_like(est, 0.01),
    )


def test_four_categories_need_a_pick_or_a_merge() -> None:
    b = four_category_bench()
    with pytest.raises(DataError, match="2 or 3 categories"):
        moments_from_benchmark(b)
    picked = moments_from_benchmark(
        b, mapping=map_categories(b.category_names, pick=["p", "q", "s"])
    )
    assert picked.categories == ("p", "q", "s")
    np.testing.assert_allclose(picked.means[0], [0.9, 0.5, 0.3])
    merged = moments_from_benchmark(
        b,
        mapping=map_categories(b.category_names, merge={"p": "pq", "q": "pq", "r": "r", "s": "s"}),
    )
    assert merged.categories == ("pq", "r", "s")
    np.testing.assert_allclose(merged.means[0], [0.7, 0.5, 0.3])
    np.testing.assert_allclose(merged.variances[0], [0.0002 / 4, 0.0001, 0.0002 / 4])
    with pytest.raises(InvalidArgument, match="unknown categories"):
        map_categories(b.category_names, pick=["p", "nope", "s"])


def test_two_categories_give_a_line() -> None:
    b = four_category_bench()
    m = moments_from_benchmark(b, mapping=map_categories(b.category_names, pick=["p", "s"]))
    d = dominance_map(m, resolution=10)
    assert d.weights.shape == (11, 2)
    assert d.winner[0] == 0 and d.winner[-1] == 1  # a wins on p, b wins on s


def test_missing_category_names_the_model() -> None:
    est = np.array([[0.5, 0.5, np.nan], [0.5, 0.5, 0.5]])
    b = Benchmark(
        name="gap",
        models=("a", "b"),
        tasks=("1", "2", "3"),
        categories=("x", "y", "z"),
        kind="estimate_se",
        estimate=est,
        se=np.full_like(est, 0.01),
    )
    with pytest.raises(DataError, match="model 'a' has no result in category 'z'"):
        moments_from_benchmark(b)


# ---- draws ------------------------------------------------------------------------------------
def vtab_like(seed: int = 0, M: int = 5) -> Benchmark:
    rng = np.random.default_rng(seed)
    T = 9
    n = np.tile(rng.integers(300, 3000, T), (M, 1))
    p = np.clip(rng.uniform(0.4, 0.9, T) + rng.normal(0, 0.03, (M, T)), 0.05, 0.95)
    k = rng.binomial(n, p)
    return Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("x",) * 3 + ("y",) * 2 + ("z",) * 4,
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )


def test_draws_based_se_matches_analytic_for_independent_draws() -> None:
    b = vtab_like()
    analytic = dominance_map(moments_from_benchmark(b), resolution=12)
    md = moments_from_draws(binomial_draws(b, 4000, seed=1))
    assert not md.paired
    from_draws = dominance_map(md, resolution=12)
    np.testing.assert_array_equal(analytic.leader, from_draws.leader)
    # SE of a standard deviation from R draws is about 1/sqrt(2R) = 1.1% relative
    np.testing.assert_allclose(from_draws.se, analytic.se, rtol=0.05)
    np.testing.assert_allclose(md.variances, moments_from_benchmark(b).variances, rtol=0.1)
    assert np.all(from_draws.rho == 0.0) and from_draws.rho_source == "assumed"


def correlated_items(rho: float, seed: int, n: int = 400, T: int = 6) -> Benchmark:
    """Two models scored on the same items; item scores correlate with ``rho`` (known truth)."""
    rng = np.random.default_rng(seed)
    tasks = []
    for _ in range(T):
        e1, e2 = rng.normal(size=(2, n))
        a = 0.6 + 0.2 * e1
        b = 0.58 + 0.2 * (rho * e1 + np.sqrt(1 - rho**2) * e2)
        tasks.append(ItemTask(tuple(map(str, range(n))), np.vstack([a, b])))
    est = np.column_stack([t.scores.mean(axis=1) for t in tasks])
    return Benchmark(
        name="paired",
        models=("a", "b"),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("x", "x", "y", "y", "z", "z"),
        kind="items",
        estimate=est,
        item_tasks=tuple(tasks),
    )


def paired_item_draws(bench: Benchmark, reps: int, seed: int) -> Draws:
    """Item-level paired bootstrap (one resample of items per task, applied to both models)."""
    rng = np.random.default_rng(seed)
    vals = np.empty((reps, len(bench.models), len(bench.tasks)))
    for j, it in enumerate(bench.item_tasks):
        n = it.scores.shape[1]
        idx = rng.integers(0, n, size=(reps, n))
        vals[:, :, j] = it.scores[:, idx].mean(axis=2).T
    return Draws(
        values=vals,
        observed=np.array(bench.estimate),
        models=bench.models,
        tasks=bench.tasks,
        categories=bench.categories,
        higher_is_better=np.array(bench.higher_is_better),
        method="bootstrap: item-level paired",
        paired=True,
        seed=seed,
    )


def test_paired_draws_recover_the_true_correlation() -> None:
    b = correlated_items(rho=0.8, seed=5)
    md = moments_from_draws(paired_item_draws(b, 1500, seed=6))
    assert md.paired
    d = dominance_map(md, resolution=6)
    assert d.rho_source == "paired draws"
    np.testing.assert_allclose(d.rho, 0.8, atol=0.08)
    # the SE is that of S_A - S_B in the draws themselves
    w = d.weights[7]
    diff = md.draws[:, 0] @ w - md.draws[:, 1] @ w
    np.testing.assert_allclose(d.se[7], diff.std(ddof=1), rtol=1e-9)
    # and far smaller than independence would say
    ind = dominance_map(md, resolution=6, use_pairing=False)
    assert np.all(d.se < 0.6 * ind.se)


def test_false_winner_rate_at_a_true_tie_matches_z() -> None:
    """Two equal models (known truth): a winner is declared in about 2(1 - Phi(z)) of studies."""
    rng = np.random.default_rng(11)
    n = np.array([[500, 800, 300]] * 2)
    p = np.array([0.7, 0.6, 0.8])
    sims, z = 3000, 2.0
    k = rng.binomial(n, p, size=(sims, 2, 3))
    w = np.array([[0.4, 0.3, 0.3]])
    declared = 0
    for s in range(sims):
        b = Benchmark(
            name="tie",
            models=("a", "b"),
            tasks=("1", "2", "3"),
            categories=("x", "y", "z"),
            kind="counts",
            estimate=k[s] / n,
            n=n,
            correct=k[s],
        )
        declared += dominance_map(moments_from_benchmark(b), weights=w, z=z).winner[0] >= 0
    expected = 2 * stats.norm.sf(z)  # 0.0455
    assert abs(declared / sims - expected) < 4 * np.sqrt(expected * (1 - expected) / sims)


# ---- probability of being best ----------------------------------------------------------------
def normal_draws(means: np.ndarray, sds: np.ndarray, reps: int, seed: int) -> Draws:
    rng = np.random.default_rng(seed)
    M, T = means.shape
    return Draws(
        values=means + sds * rng.normal(size=(reps, M, T)),
        observed=means,
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("x", "y", "z"),
        higher_is_better=np.ones(T, bool),
        method="normal",
        paired=False,
    )


def test_probability_of_best_matches_normal_theory() -> None:
    means = np.array([[0.60, 0.50, 0.40], [0.58, 0.55, 0.41]])
    sds = np.full((2, 3), 0.02)
    md = moments_from_draws(normal_draws(means, sds, 20_000, seed=2))
    w = simplex_grid(5)
    pm = best_probability_map(md, resolution=5)
    diff = w @ (means[0] - means[1])
    sd = np.sqrt(2 * (w**2) @ np.full(3, 0.02**2))
    truth = stats.norm.cdf(diff / sd)
    np.testing.assert_allclose(pm.probability[:, 0], truth, atol=4 * 0.5 / np.sqrt(20_000))
    np.testing.assert_allclose(pm.probability.sum(axis=1), 1.0)
    assert pm.mc_error.max() <= 0.5 / np.sqrt(20_000) + 1e-12


def test_probability_chunks_and_ties() -> None:
    means = np.array([[0.6, 0.5, 0.4], [0.6, 0.5, 0.4], [0.3, 0.3, 0.3]])
    d = normal_draws(means, np.zeros((3, 3)), 50, seed=0)
    md = moments_from_draws(d)
    pm = best_probability_map(md, resolution=7, chunk=5)
    np.testing.assert_allclose(pm.probability[:, :2], 0.5)
    np.testing.assert_allclose(pm.probability[:, 2], 0.0)
    shifted = means.copy()
    shifted[0, 0] += 0.01
    d2 = normal_draws(shifted, np.full((3, 3), 0.05), 300, seed=1)
    m2 = moments_from_draws(d2)
    a = best_probability_map(m2, resolution=9, chunk=4).probability
    b = best_probability_map(m2, resolution=9, chunk=1000).probability
    np.testing.assert_array_equal(a, b)


def test_probability_needs_draws() -> None:
    with pytest.raises(DataError, match="needs draws"):
        best_probability_map(moments_from_benchmark(hand_bench()))


def test_weighted_scores_at_one_point() -> None:
    m = moments_from_benchmark(hand_bench())
    ws = weighted_scores(m, np.array([0.5, 0.3, 0.2]), level=0.95)
    assert ws.models == ("A", "B")
    np.testing.assert_allclose(ws.estimate, [0.7475, 0.69])
    np.testing.assert_allclose(ws.high - ws.estimate, 1.959964 * ws.se, rtol=1e-6)
    assert ws.prob_best is None
    md = moments_from_draws(binomial_draws(hand_bench(), 500, seed=0))
    wd = weighted_scores(md, np.array([1.0, 0, 0]))
    np.testing.assert_allclose(wd.prob_best.sum(), 1.0)


def test_weights_between_data_and_map_categories() -> None:
    b = four_category_bench()  # categories p, q, r, s (s has two tasks)
    names = b.category_names
    merge = map_categories(names, merge={"p": "g1", "q": "g2", "r": "g2", "s": "g3"})
    np.testing.assert_allclose(to_map_weights(np.ones(4), names, merge), [0.25, 0.5, 0.25])
    pick = map_categories(names, pick=["p", "q", "s"])
    np.testing.assert_allclose(
        to_map_weights(np.array([2, 1, 5, 1]), names, pick), [0.5, 0.25, 0.25]
    )
    assert to_map_weights(np.array([0, 0, 1, 0]), names, pick) is None
    # a map point, expanded back to data categories, gives the same weighted score
    point = np.array([0.2, 0.5, 0.3])
    w = from_map_weights(point, names, b.categories, merge)
    np.testing.assert_allclose(w, [0.2, 0.25, 0.25, 0.3])
    m = moments_from_benchmark(b, mapping=merge)
    per_cat = np.array(
        [
            [
                np.mean(b.estimate[i, [j for j, c in enumerate(b.categories) if c == n]])
                for n in names
            ]
            for i in range(2)
        ]
    )
    np.testing.assert_allclose(per_cat @ w, m.means @ point)


def test_paired_se_matches_the_true_spread_of_the_difference() -> None:
    """Known truth by simulation: two models answer the same items (shared difficulty).

    Across simulated benchmarks, the SE read from paired draws matches the actual standard
    deviation of S_A - S_B; assuming independence (rho = 0) overstates it.
    """
    from benchuq.core.methods.bootstrap import bootstrap

    rng = np.random.default_rng(7)
    w = np.full((1, 3), 1 / 3)
    diffs, se_paired, se_indep = [], [], []
    for s in range(250):
        tasks = []
        for _ in range(6):
            p = rng.beta(1, 1, size=100)
            tasks.append(ItemTask(tuple(map(str, range(100))), (rng.random((2, 100)) < p) * 1.0))
        b = Benchmark(
            name="sim",
            models=("a", "b"),
            tasks=tuple(f"t{j}" for j in range(6)),
            categories=("x", "x", "y", "y", "z", "z"),
            kind="items",
            estimate=np.column_stack([t.scores.mean(axis=1) for t in tasks]),
            item_tasks=tuple(tasks),
        )
        m = moments_from_draws(bootstrap(b, reps=300, seed=s))
        d = dominance_map(m, weights=w)
        diffs.append(float(np.diff(d.scores[0])[0]))
        se_paired.append(d.se[0])
        se_indep.append(dominance_map(moments_from_benchmark(b), weights=w).se[0])
    truth = np.std(diffs, ddof=1)  # relative MC error about 1 / sqrt(2 * 250) = 4.5%
    assert abs(np.mean(se_paired) / truth - 1) < 0.12
    assert np.mean(se_indep) / truth > 1.15
