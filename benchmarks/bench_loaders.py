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

With ``--eval`` it writes an inspect_ai ``.eval`` log (a ZIP with Zstandard members, as current
inspect_ai writes, when the ``zipfile_zstd`` patch that comes with inspect-ai is installed; else
deflate) holding ``--eval-samples`` sample summaries (default 100,000: 25,000 samples x 4 epochs,
each summary shaped as inspect_ai writes it) and sample files that are not JSON, and prints the
wall time (best of ``--repeat``) of ``load_path`` as a ratio to ``zipfile`` + ``json.loads`` of
its ``summaries.json`` (what a user would otherwise write). Target: ratio <= 1.5. It checks that
``load_path`` never opens ``samples/`` (a spy on the member reader).

    python benchmarks/bench_loaders.py [--models 20 --tasks 10 --items 2500] [--repeat 3]
    python benchmarks/bench_loaders.py --inspect 100 [--turns 6 --words 120] [--repeat 3]
    python benchmarks/bench_loaders.py --eval [--eval-samples 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import json
import os
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
# large inputs on purpose: the per-request read budget of a shared server is not what is measured
os.environ.setdefault("BENCHUQ_WORK_MB", "20000")

from inspect_logs import log_of_size  # noqa: E402

from benchuq.core.reading import eval_zip  # noqa: E402
from benchuq.core.reading.loaders import load_files, load_path  # noqa: E402

TARGET_RATIO = 25.0
EVAL_TARGET = 1.5
EVAL_EPOCHS = 4


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


def eval_summaries(n: int, epochs: int, seed: int = 0) -> list[dict[str, object]]:
    """``n`` sample summaries (samples x ``epochs``) shaped as inspect_ai writes them."""
    rng = np.random.default_rng(seed)
    samples = -(-n // epochs)
    values = rng.choice(["C", "I", "P"], size=n, p=[0.6, 0.35, 0.05])
    out = []
    for k in range(n):
        i, e = k % samples, k // samples + 1
        out.append(
            {
                "id": f"q-{i}",
                "epoch": e,
                "input": f"Question {i}: which option is correct? " + "context " * 20,
                "target": "B",
                "metadata": {"subject": f"s{i % 57}", "difficulty": int(i % 3)},
                "scores": {
                    "choice": {
                        "value": str(values[k]),
                        "answer": "B",
                        "explanation": "ANSWER: B",
                        "history": [],
                    }
                },
                "model_usage": {
                    "openai/gpt-4o": {"input_tokens": 310, "output_tokens": 5, "total_tokens": 315}
                },
                "total_time": 1.25,
                "working_time": 1.2,
                "uuid": f"u{rng.integers(10**15)}",
                "completed": True,
                "message_count": 2,
            }
        )
    return out


def write_eval(path: Path, n: int, epochs: int) -> str:
    """A ``.eval`` log with ``n`` summaries (see the module docstring); the compression used."""
    import zipfile

    try:
        import zipfile_zstd  # noqa: F401  (inspect-ai's dependency: ZIP method 93)

        compression, label = 93, "Zstandard"
    except ImportError:
        compression, label = zipfile.ZIP_DEFLATED, "deflate"
    header = {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "mmlu",
            "model": "openai/gpt-4o",
            "dataset": {"samples": -(-n // epochs)},
            "config": {"epochs": epochs},
        },
        "results": {"scores": [{"name": "choice", "scorer": "choice"}]},
    }
    with zipfile.ZipFile(path, "w", compression) as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": header["eval"]}))
        for k in range(20):  # a few sample files, not JSON: reading one would fail
            z.writestr(f"samples/q-{k}_epoch_1.json", b"\x00 not read")
        z.writestr("summaries.json", json.dumps(eval_summaries(n, epochs)))
        z.writestr("header.json", json.dumps(header))
    return label


def eval_log(n: int, repeat: int) -> bool:
    """``load_path`` of a ``.eval`` log against zipfile + json.loads of its summaries."""
    import zipfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.eval"
        label = write_eval(path, n, EVAL_EPOCHS)
        size = path.stat().st_size
        opened: list[str] = []
        member = eval_zip.member_bytes

        def spy(src: object, archive: object, name: str) -> bytes:
            opened.append(name)
            return member(src, archive, name)  # type: ignore[arg-type]

        eval_zip.member_bytes = spy  # type: ignore[assignment]
        try:
            bench = load_path(path)
        finally:
            eval_zip.member_bytes = member  # type: ignore[assignment]
        samples = sum(name.startswith("samples/") for name in opened)

        def baseline() -> object:
            with zipfile.ZipFile(path) as z:
                return json.loads(z.read("summaries.json"))

        base = best_of(repeat, baseline)
        ours = best_of(repeat, lambda: load_path(path))
    ratio = ours / base
    it = bench.item_tasks[0]
    print(
        f".eval log: {size / 1e6:.1f} MB, {n:,} summaries "
        f"({len(it.items):,} samples x {EVAL_EPOCHS} epochs, {label} members)"
    )
    print(
        f"zipfile + json.loads {base:.3f} s, load_path {ours:.3f} s, ratio {ratio:.2f} "
        f"(target <= {EVAL_TARGET:g}); members read: {', '.join(opened)}; samples/ read: {samples}"
    )
    return ratio <= EVAL_TARGET and samples == 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", type=int, default=20)
    p.add_argument("--tasks", type=int, default=10)
    p.add_argument("--items", type=int, default=2500)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--inspect", type=float, metavar="MB", help="an inspect_ai log of MB MB")
    p.add_argument("--turns", type=int, default=6)
    p.add_argument("--words", type=int, default=120)
    p.add_argument("--eval", action="store_true", help="an inspect_ai .eval log")
    p.add_argument("--eval-samples", type=int, default=100_000, help="summaries in the log")
    a = p.parse_args(argv)
    if a.eval:
        return 0 if eval_log(a.eval_samples, a.repeat) else 1
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
