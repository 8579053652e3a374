"""The coverage grid of ``benchmarks/bench_coverage.py`` in small (issue #29, METHODS 2c).

Seeded and small: the exact one-task coverage at the grid's cells (cheap: a sum over the
binomial), the two checks that make the benchmark's shortcuts the engine's draws (the exact
law of one task's draws, and the many-data-set kernel of the paired draws, each against
``bootstrap`` by a two-sample test), and the few-item corners, where the plug-in bootstrap
collapsed. The full grid (2,000 data sets a cell) is ``python benchmarks/bench_coverage.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from benches import bench_module
from scipy import stats

from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.summaries import group_scores

bench_coverage = bench_module("bench_coverage")


def test_exact_one_task_coverage_meets_093_in_every_cell() -> None:
    for n in bench_coverage.GRID_N:
        cov = bench_coverage.exact_coverage(n, np.array(bench_coverage.GRID_P))
        assert np.all(cov >= 0.93), (n, cov)


def test_exact_coverage_at_finite_reps_is_bracketed_and_agrees_with_simulation() -> None:
    """The exact bounds at R draws bracket a brute-force simulation of the engine (n = 40)."""
    n, p, reps = 40, 0.9, 400
    low, high = bench_coverage.exact_coverage(n, np.array([p]), reps=reps)
    rng = np.random.default_rng(5)
    hit, _ = bench_coverage.counts_cell(n, p, 1, 2000, reps, rng)
    se = np.sqrt(0.95 * 0.05 / 2000)
    assert low[0] - 4 * se <= hit / 2000 <= high[0] + 4 * se
    assert high[0] - low[0] < 0.02


@pytest.mark.parametrize(("n", "k"), [(1, 1), (5, 5), (5, 2), (12, 11), (40, 36), (40, 40)])
def test_exact_law_of_one_task_is_the_engines(n: int, k: int) -> None:
    d = bootstrap(bench_coverage.counts_data(np.array([[k]]), n), reps=20000, seed=3)
    draws = d.values[:, 0, 0]
    a, b, w = bench_coverage.mixture(n)

    def cdf(x: np.ndarray) -> np.ndarray:
        inner = stats.beta.cdf(x[:, None], np.maximum(a[k], 1e-300), np.maximum(b[k], 1e-300))
        inner = np.where(a[k] <= 0, 1.0, np.where(b[k] <= 0, 0.0, inner))
        return inner @ w[k]

    # point masses at 0 and 1 (k = 0 or n with one pseudo-item value) make the law discrete there
    inside = draws[(draws > 0) & (draws < 1)]
    share = cdf(np.array([1 - 1e-12]))[0] - cdf(np.array([1e-12]))[0]
    assert abs(len(inside) / len(draws) - share) < 0.02
    grid = np.linspace(0.01, 0.99, 99)
    empirical = np.searchsorted(np.sort(draws), grid, side="right") / len(draws)
    assert np.max(np.abs(empirical - cdf(grid))) < 0.015  # KS bound at 20,000 draws: about 0.0136


@pytest.mark.parametrize(("n", "T", "p"), [(1, 5, 0.5), (5, 2, 0.7), (12, 3, 0.95), (40, 1, 0.9)])
def test_pair_kernel_draws_are_the_engines(n: int, T: int, p: float) -> None:
    rng = np.random.default_rng([4, n, T])
    states = bench_coverage.equal_pair(p, n, T, rng)
    v = group_scores(bootstrap(bench_coverage.item_data(states), reps=8000, seed=1)).values
    counts = np.array([[[np.sum((s[0] == c // 2) & (s[1] == c % 2)) for c in range(4)]
                        for s in states]])  # fmt: skip
    mean_a, diff = bench_coverage.pair_draws(counts, 8000, rng)
    assert stats.ks_2samp(v[:, 0], mean_a[:, 0]).pvalue > 0.001
    assert stats.ks_2samp(v[:, 0] - v[:, 1], diff[:, 0]).pvalue > 0.001


@pytest.mark.parametrize("n", [1, 2, 5])
def test_few_items_cover_with_no_zero_width_interval(n: int) -> None:
    """200 data sets a cell (coverage SE about 0.015): half-right and all-correct, 1 and 5 tasks."""
    for p in (0.5, 0.999):
        for T in (1, 5):
            cell = bench_coverage.run_cell(n, p, T, sims=200, reps=300, seed=1)
            assert cell.zero_width == 0, (n, p, T)
            assert np.nanmin([cell.counts, cell.items, cell.difference]) >= 0.9, (n, p, T, cell)


def test_equal_models_with_1_2_5_items_are_not_declared_different() -> None:
    rates = bench_coverage.differ_rates((1, 2, 5), sims=60, reps=200, seed=2)
    for n, (verdict, leader) in rates.items():
        assert verdict <= 0.05 and leader <= 0.05, (n, verdict, leader)
