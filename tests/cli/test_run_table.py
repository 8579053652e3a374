"""The terminal's per-task table (``benchuq leaderboard`` on harness files): its intervals are
the app's, task by task, and a model without a task makes no warning."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import benchuq as bq
from benchuq.cli.run_table import run_table
from benchuq.dashboard.table.view import Column, wide_table

REAL = Path(__file__).parents[1] / "fixtures" / "real"
V04 = REAL / "lm_eval" / "results_v04"
OPT = REAL / "lm_eval" / "results_v03" / "opt_0shot"


def test_the_terminal_table_holds_the_apps_per_task_intervals() -> None:
    """Counted tasks take the exact rule (METHODS 2f) in the app's Leaderboard table; the
    terminal took plain percentiles of the draws and differed on every task of these files."""
    files = [*sorted(OPT.glob("*.json"))[:2], *sorted(V04.glob("*.json"))]
    bench = bq.load(files)
    draws = bq.bootstrap(bench, reps=300, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # models without a task: no "All-NaN slice" warning
        table = run_table(draws, bench.context.meta, 0.834)
    assert table is not None and len(table) > 100
    assert table[["low", "high"]].notna().all().all()
    columns = [Column(t, "task", (t,)) for t in draws.tasks]
    app = wide_table(draws, 0.834, columns, bench)
    for row in table.itertuples(index=False):
        i, j = app.models.index(row.model), draws.tasks.index(row.task)
        assert np.isclose(row.low, app.low[i, j]) and np.isclose(row.high, app.high[i, j]), row
