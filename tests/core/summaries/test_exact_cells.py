"""Per-task intervals hold their level whatever the number of tasks (issue #39, METHODS 2f).

A right/wrong cell's interval contains the exact Clopper–Pearson interval of its counts and, at
0% or 100%, its finite end is the exact bound (no seed moves it). Checked through the EEE export
(the path users get per-task intervals from), against scipy's Beta quantiles, and by the exact
per-task coverage of ``benchmarks/bench_task_coverage.py`` on a sample of its grid.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from benches import bench_module
from scipy import stats

from benchuq.api import from_frame
from benchuq.cli.main import main
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.summaries import group_scores, percentile_interval
from benchuq.core.summaries.exact import clopper_pearson

bench_task_coverage = bench_module("bench_task_coverage")


def _items(tmp_path: Path, tasks: int, n: int, first_right: int, seed: int = 1) -> Path:
    """One model, ``tasks`` tasks of ``n`` items; task t00 has ``first_right`` right, the
    others about 80%."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(tasks):
        right = first_right if j == 0 else int(rng.binomial(n, 0.8))
        for item in range(n):
            rows.append(("m", f"t{j:02d}", f"i{item}", int(item < right)))
    path = tmp_path / f"items_{tasks}_{n}_{first_right}.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "score"]).to_csv(path, index=False)
    return path


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _eee_intervals(tmp_path: Path, data: Path, *flags: str) -> dict[str, dict]:
    out = tmp_path / f"eee_{data.stem}_{'_'.join(flags)}"
    code, _, err = cli(
        "export", str(data), "--format", "eee", "--level", "0.95", "-o", str(out), *flags
    )
    assert code == 0, err
    (doc_path,) = list(out.rglob("*.json"))
    doc = json.loads(doc_path.read_text())
    return {
        r["evaluation_name"]: r["score_details"]["uncertainty"]["confidence_interval"]
        for r in doc["evaluation_results"]
    }


def test_clopper_pearson_is_scipys_beta_quantiles() -> None:
    k = np.array([0, 1, 7, 29, 30])
    low, high = clopper_pearson(k, np.full(5, 30), level=0.95)
    want_low = np.where(k > 0, stats.beta.ppf(0.025, np.maximum(k, 1), 30 - k + 1), 0.0)
    want_high = np.where(k < 30, stats.beta.ppf(0.975, k + 1, np.maximum(30 - k, 1)), 1.0)
    np.testing.assert_allclose(low, want_low, rtol=1e-10)
    np.testing.assert_allclose(high, want_high, rtol=1e-10)


@pytest.mark.parametrize("tasks", [1, 5, 20])
def test_all_right_task_gets_clopper_pearson_beside_any_number_of_tasks(
    tmp_path: Path, tasks: int
) -> None:
    """30/30 alone, beside 4 and beside 19 tasks: [0.884, 1] at 95% (was [0.966, 1] with 5)."""
    ci = _eee_intervals(tmp_path, _items(tmp_path, tasks, 30, 30))["t00"]
    assert ci["lower"] == pytest.approx(0.025 ** (1 / 30), rel=1e-9)  # 0.8843
    assert ci["upper"] == 1.0
    assert "Clopper-Pearson" in ci["method"]


def test_all_right_edge_does_not_move_with_the_seed(tmp_path: Path) -> None:
    """300/300 at 95%: the lower end is the exact bound at seeds 0-3 and covers p = 0.99."""
    data = _items(tmp_path, 1, 300, 300)
    lows = {_eee_intervals(tmp_path, data, "--seed", str(s))["t00"]["lower"] for s in range(4)}
    assert len(lows) == 1
    (low,) = lows
    assert low == pytest.approx(0.025 ** (1 / 300), rel=1e-12) and low < 0.99


def test_an_inner_cell_contains_clopper_pearson_and_the_draws() -> None:
    rows = [
        ("m", f"t{j}", f"i{i}", int(i < right))
        for j, right in enumerate([24, 30, 10, 27, 18])
        for i in range(30)
    ]
    bench = from_frame(
        pd.DataFrame(rows, columns=["model", "task", "item", "score"]), item="item", score="score"
    )
    draws = bootstrap(bench, reps=500, seed=0)
    per_task = group_scores(replace(draws, categories=draws.tasks), group="t0")
    iv = percentile_interval(per_task, level=0.9)
    q = np.quantile(draws.values[:, 0, 0], [0.05, 0.95])
    cp = (stats.beta.ppf(0.05, 24, 7), stats.beta.ppf(0.95, 25, 6))
    assert iv.low[0] == pytest.approx(min(q[0], cp[0]))
    assert iv.high[0] == pytest.approx(max(q[1], cp[1]))


def test_the_mean_over_tasks_keeps_its_draws_interval_inside_the_range() -> None:
    """The overall interval is the draws' own (as before #39) where the mean is not at an end."""
    rows = [
        ("m", f"t{j}", f"i{i}", int(i < right))
        for j, right in enumerate([24, 30, 10])
        for i in range(30)
    ]
    bench = from_frame(
        pd.DataFrame(rows, columns=["model", "task", "item", "score"]), item="item", score="score"
    )
    draws = bootstrap(bench, reps=500, seed=0)
    iv = percentile_interval(group_scores(draws), level=0.95)
    q = np.quantile(draws.values[:, 0, :].mean(axis=1), [0.025, 0.975])
    np.testing.assert_allclose([iv.low[0], iv.high[0]], q)


@pytest.mark.parametrize(
    ("tasks", "n", "p", "level"),
    [
        (5, 30, 0.95, 0.95),  # 0.77 before #39
        (20, 30, 0.95, 0.95),
        (5, 300, 0.99, 0.95),  # the knife-edge cell: 0.918 at seed 0 before #39
        (20, 10, 0.99, 0.834),
        (1, 100, 0.5, 0.834),  # 0.807 before #39
        (5, 2, 0.8, 0.834),
    ],
)
def test_exact_per_task_coverage_on_a_sample_of_the_grid(
    tasks: int, n: int, p: float, level: float
) -> None:
    cov = bench_task_coverage.coverage(n, p, tasks, level)
    assert cov >= level - 0.02, cov
