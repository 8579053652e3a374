"""Small benchmarks built in memory for tests (a fixture module, not a test module)."""

from __future__ import annotations

import numpy as np

from benchuq.core.data import Benchmark

__all__ = ["counts_bench", "subgroup_counts"]


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
