"""Small benchmarks built in memory for tests (a fixture module, not a test module)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark

__all__ = ["bench_module", "counts_bench", "judge_few_labels", "subgroup_counts"]


def counts_bench(k: np.ndarray, n: np.ndarray, names: str = "ab") -> Benchmark:
    M, T = k.shape
    n = np.broadcast_to(n, (M, T))
    return Benchmark(
        name="counts",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=tuple(names[j % len(names)] for j in range(T)),
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )


def subgroup_counts(n: np.ndarray, k: np.ndarray, categories: list[str] | None = None) -> Benchmark:
    n, k = np.asarray(n), np.asarray(k)
    M, T = n.shape
    return Benchmark(
        name="toy",
        models=[f"m{i}" for i in range(M)],
        tasks=[f"t{j}" for j in range(T)],
        categories=categories or ["all"] * T,
        kind="counts",
        estimate=np.where(n > 0, k / np.maximum(n, 1), np.nan),
        n=n,
        correct=k,
    )


def bench_module(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` imported as a module (tests reuse its simulations)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def judge_few_labels(
    rng: np.random.Generator, labels: int, *, graded: bool = False
) -> pd.DataFrame:
    """400 items of a true score 0.6 (graded: 30% of the labels 0.5) judged with sensitivity 0.85
    and a false-positive rate 0.3; ``labels`` of them labelled at random (METHODS 15g)."""
    y = (rng.random(400) < 0.6).astype(float)
    if graded:
        y = np.where(rng.random(400) < 0.3, 0.5, y)
    f = np.where(y >= 0.5, rng.random(400) < 0.85, rng.random(400) < 0.3).astype(float)
    human = np.full(400, np.nan)
    chosen = rng.choice(400, labels, replace=False)
    human[chosen] = y[chosen]
    items = [f"i{k}" for k in range(400)]
    return pd.DataFrame({"model": "m", "task": "t", "item": items, "judge": f, "human": human})
