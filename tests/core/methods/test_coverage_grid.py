"""The coverage grid of ``benchmarks/bench_coverage.py`` in small (issue #29, METHODS 2c).

Seeded and small: the few-item corners of the grid, where the plug-in bootstrap collapsed. The
full grid (every cell >= 0.93 at 95%) is ``python benchmarks/bench_coverage.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_coverage.py"
_SPEC = importlib.util.spec_from_file_location("bench_coverage", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
bench_coverage = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_coverage"] = bench_coverage  # dataclasses look their module up
_SPEC.loader.exec_module(bench_coverage)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_few_items_cover_with_no_zero_width_interval(n: int) -> None:
    """40 data sets a cell (coverage SE about 0.035): all-correct, half-right, 1 and 5 tasks."""
    cells = bench_coverage.grid((n,), (0.5, 0.999), (1, 5), sims=40, reps=200, seed=1)
    for key, cell in cells.items():
        assert cell.zero_width == 0, key
        assert min(cell.counts, cell.items, cell.difference) >= 0.85, (key, cell)


def test_equal_models_with_1_2_5_items_are_not_declared_different() -> None:
    rates = bench_coverage.differ_rates((1, 2, 5), sims=60, reps=200, seed=2)
    for n, (verdict, leader) in rates.items():
        assert verdict <= 0.05 and leader <= 0.05, (n, verdict, leader)
