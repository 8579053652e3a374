"""pass@k with few items (METHODS 2e): the overall interval holds the population pass@k at the
leaderboard's level, and two equally good models are not told apart, through the product's own
path (``bq.bootstrap(statistic="pass@5")``, ``bq.leaderboard``), in small of
``benchmarks/bench_passk_coverage.py``.

Each check is seeded, 150 data sets at 83.4%: the Monte Carlo SE of the coverage is 0.030, so
the bound ``0.834 - 3 SE`` = 0.743 fails a true 0.834 with probability about 0.1%; the false
"≠ leader" rate is held to ``0.05 + 3 SE`` = 0.103. Both fail without the few-item widening of
the item bootstrap: one task of 10 easy items without the pseudo-item covered 0.55 and called
the leader better in 0.30 of data sets; ten one-item tasks without the small-task pseudo-unit
covered 0.54.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from benches import bench_module

import benchuq as bq
from benchuq.core.defaults import LEVEL
from benchuq.core.reading.loaders import load_files

bench_passk_coverage = bench_module("bench_passk_coverage")

SIMS = 150


@pytest.mark.parametrize(
    ("tasks", "items", "beta"),
    [(1, 10, (2.0, 1.0)), (10, 1, (0.5, 0.8))],
    ids=["one task of 10 items", "ten one-item tasks"],
)
def test_pass_at_5_with_few_items_covers_and_names_no_false_winner(
    tasks: int, items: int, beta: tuple[float, float]
) -> None:
    cell = bench_passk_coverage.run_cell(
        items, 5, *beta, SIMS, seed=43, tasks=tasks, levels=(LEVEL,), compare=False
    )
    se = bench_passk_coverage.mc_se(LEVEL, SIMS)
    assert cell.cover[0] >= LEVEL - 3 * se, cell
    assert cell.not_tied[0] <= 0.05 + 3 * bench_passk_coverage.mc_se(0.05, SIMS), cell
    assert cell.ok()


def test_the_benchmarks_data_are_what_an_item_table_with_epochs_gives() -> None:
    """The simulated benchmark equals the one a user's item table (one row per answer, an epoch
    column) loads to: the same pass@5 draws, so the benchmark measures the CLI's and app's path."""
    bench = bench_passk_coverage.simulated(7, 0.5, 0.8, np.random.default_rng(3), tasks=2)
    rows = []
    for task, it in zip(bench.tasks, bench.item_tasks, strict=True):
        right = np.rint(it.scores * bench_passk_coverage.ANSWERS).astype(int)
        for m, model in enumerate(bench.models):
            for i, item in enumerate(it.items):
                for e in range(bench_passk_coverage.ANSWERS):
                    rows.append((model, task, item, e + 1, float(e < right[m, i])))
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "epoch", "score"])
    loaded = load_files([("items.csv", frame.to_csv(index=False).encode())])
    ours = bq.bootstrap(bench, statistic="pass@5", reps=300)
    theirs = bq.bootstrap(loaded, statistic="pass@5", reps=300)
    np.testing.assert_array_equal(ours.values, theirs.values)
    np.testing.assert_allclose(ours.observed, theirs.observed)


def test_true_pass_at_k_closed_form_matches_integration() -> None:
    for a, b in bench_passk_coverage.SETTINGS.values():
        for k in (1, 5, 10):
            assert bench_passk_coverage.true_pass_at_k(a, b, k) == pytest.approx(
                bench_passk_coverage.true_by_integration(a, b, k), abs=1e-7
            )
