"""Loading speed of large item-level and task-level files (core.loaders).

Prints the time of ``load_files`` on a synthetic item-level CSV (models x tasks x items rows,
binary scores) and on a long task-level CSV (1,000 models x 10 tasks), each as a ratio to
``pandas.read_csv`` of the same bytes measured in the same process (parsing alone; the loader also
validates every cell, builds the score matrices and checks duplicates). Target: the item-level
ratio stays below 25 at 500,000 rows. The long table is small, so its time is mostly fixed
per-call overhead; its ratio is printed for information only.

With ``--inspect MB`` it writes a seeded inspect_ai log of about MB megabytes instead
(``tests/inspect_logs.py``: samples with messages, model events that repeat the conversation,
scores with explanations; UTF-8 with non-ASCII text) and prints the wall time (best of
``--repeat``) and the traced peak memory (tracemalloc: Python's allocations, the file's bytes
included) of ``load_path`` (classify the file, read the samples' ids and scores, build the item
scores) and of what a user would otherwise write, ``json.loads(path.read_bytes())``, with their
ratios. ``--turns``/``--words`` set the size of a sample (smaller: more samples per MB).

    python benchmarks/bench_loaders.py [--models 20 --tasks 10 --items 2500] [--repeat 3]
    python benchmarks/bench_loaders.py --inspect 100 [--turns 6 --words 120] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the shared inspect_ai log generator

from inspect_logs import log_of_size  # noqa: E402

from benchuq.core.reading.loaders import load_files, load_path  # noqa: E402

TARGET_RATIO = 25.0


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def traced_peak(fn: Callable[[], object]) -> int:
    """Peak bytes Python allocated during one call (tracemalloc)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def inspect_log(megabytes: float, turns: int, words: int, repeat: int) -> None:
    """``load_path`` of a seeded inspect_ai log against ``json.loads`` of it (see above)."""
    data = log_of_size(megabytes, turns=turns, words=words)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.json"
        path.write_bytes(data)
        del data
        size = path.stat().st_size
        samples = len(load_path(path).item_tasks[0].items)
        print(f"inspect_ai log: {size / 1e6:.1f} MB, {samples:,} samples of {turns} turns")
        runs = {
            "json.loads": lambda: json.loads(path.read_bytes()),
            "load_path": lambda: load_path(path),
        }
        wall = {k: best_of(repeat, fn) for k, fn in runs.items()}
        peak = {k: traced_peak(fn) for k, fn in runs.items()}
    for k in runs:
        print(
            f"{k:10s} wall {wall[k]:6.2f} s   traced peak {peak[k] / 1e6:8.1f} MB "
            f"({peak[k] / size:.2f} x the file)"
        )
    print(
        f"ratio load_path / json.loads: wall {wall['load_path'] / wall['json.loads']:.2f}, "
        f"traced peak {peak['load_path'] / peak['json.loads']:.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", type=int, default=20)
    p.add_argument("--tasks", type=int, default=10)
    p.add_argument("--items", type=int, default=2500)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--inspect", type=float, metavar="MB", help="an inspect_ai log of MB MB")
    p.add_argument("--turns", type=int, default=6)
    p.add_argument("--words", type=int, default=120)
    a = p.parse_args(argv)
    if a.inspect:
        inspect_log(a.inspect, a.turns, a.words, a.repeat)
        return 0
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
