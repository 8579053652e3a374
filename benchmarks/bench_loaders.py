"""Loading speed of large item-level and task-level files (core.loaders).

Prints the time of ``load_files`` on a synthetic item-level CSV (models x tasks x items rows,
binary scores) and on a long task-level CSV (1,000 models x 10 tasks), each as a ratio to
``pandas.read_csv`` of the same bytes measured in the same process (parsing alone; the loader also
validates every cell, builds the score matrices and checks duplicates). Target: the item-level
ratio stays below 25 at 500,000 rows. The long table is small, so its time is mostly fixed
per-call overhead; its ratio is printed for information only.

    python benchmarks/bench_loaders.py [--models 20 --tasks 10 --items 2500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.readers.loaders import load_files

TARGET_RATIO = 25.0


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", type=int, default=20)
    p.add_argument("--tasks", type=int, default=10)
    p.add_argument("--items", type=int, default=2500)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    M, T, L = a.models, a.tasks, a.items
    frame = pd.DataFrame(
        {
            "model": np.repeat([f"model-{i}" for i in range(M)], T * L),
            "task": np.tile(np.repeat([f"task-{j}" for j in range(T)], L), M),
            "item": np.tile([f"item-{k}" for k in range(L)], M * T),
            "score": (rng.random(M * T * L) < 0.6).astype(int),
        }
    )
    items = frame.to_csv(index=False).encode()
    long = (
        pd.DataFrame(
            {
                "model": np.repeat([f"model-{i}" for i in range(1000)], T),
                "task": np.tile([f"task-{j}" for j in range(T)], 1000),
                "n": 1000,
                "correct": rng.integers(0, 1001, 1000 * T),
            }
        )
        .to_csv(index=False)
        .encode()
    )
    ok = True
    for label, data, rows in (("items", items, M * T * L), ("long", long, 1000 * T)):
        base = best_of(a.repeat, lambda data=data: pd.read_csv(io.BytesIO(data)))
        ours = best_of(a.repeat, lambda data=data: load_files([("x.csv", data)]))
        ratio = ours / base
        target = f" (target < {TARGET_RATIO:g})" if label == "items" else ""
        ok &= label != "items" or ratio < TARGET_RATIO
        print(
            f"{label:5s} {rows:>9,d} rows: pandas.read_csv {base:.3f} s, load_files {ours:.3f} s, "
            f"ratio {ratio:.1f}{target}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
