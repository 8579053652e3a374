"""Speed of ``benchuq diff`` (core.analyses.diff, METHODS 13) on two large runs.

Writes two runs of ``--items`` binary items x ``--epochs`` answers as long Parquet tables
(``model, task, item, epoch, score``), then times, in one process:

- reading both runs (``load_path``), the reference for the ratio;
- ``diff`` of the two runs (alignment on item ids, the paired bootstrap with items as clusters,
  2,000 replicates): target below 5x the reading time;
- what a user would otherwise run: ``evalstats.compare`` (when installed; ``pip install
  evalstats``) on the same answers, and a scipy-based paired bootstrap of the item means
  (``scipy.stats.bootstrap(paired=True, method="percentile")``; at more than 20,000 items its
  time is measured on 100 resamples and scaled to 2,000, marked ``~``).

    python benchmarks/bench_diff.py              # 10^6 items x 3 epochs
    python benchmarks/bench_diff.py --quick      # 20,000 items x 3 epochs
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchuq.core.analyses.diff import diff  # noqa: E402
from benchuq.core.reading.loaders import load_path  # noqa: E402

TARGET = 5.0
REPS = 2000


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def answers(n: int, epochs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(n, epochs)`` 0/1 answers of two runs: item difficulty shared, a 2-point drop."""
    p = rng.beta(2, 1, n)
    base = (rng.random((n, epochs)) < p[:, None]).astype(np.float32)
    cand = (rng.random((n, epochs)) < np.clip(p - 0.02, 0, 1)[:, None]).astype(np.float32)
    return base, cand


def write(folder: Path, name: str, x: np.ndarray) -> Path:
    n, e = x.shape
    items, epoch, score = np.repeat(np.arange(n), e), np.tile(np.arange(1, e + 1), n), x.ravel()
    frame = pd.DataFrame({"item": items, "epoch": epoch, "score": score})
    frame.insert(0, "task", "qa")
    frame.insert(0, "model", name)
    frame["item"] = "q" + frame["item"].astype(str)
    path = folder / f"{name}.parquet"
    frame.to_parquet(path, index=False)
    return path


def scipy_paired(base: np.ndarray, cand: np.ndarray) -> tuple[float, bool]:
    from scipy import stats

    n = len(base)
    resamples = REPS if n <= 20_000 else 100

    def run() -> object:
        return stats.bootstrap(
            (base, cand), lambda x, y, axis: y.mean(axis=axis) - x.mean(axis=axis),
            paired=True, vectorized=True, n_resamples=resamples, method="percentile",
            batch=max(1, 2**24 // n), random_state=0,
        )  # fmt: skip

    seconds, _ = timed(run)
    return seconds * REPS / resamples, resamples < REPS


def evalstats_time(base: np.ndarray, cand: np.ndarray) -> float | None:
    try:
        import evalstats
    except ImportError:
        return None
    n, e = base.shape
    frame = pd.concat(
        pd.DataFrame(
            {
                "model": m,
                "item": np.repeat(np.arange(n), e),
                "seed": np.tile(np.arange(e), n),
                "score": x.ravel(),
            }
        )
        for m, x in (("base", base), ("cand", cand))
    )

    def run() -> object:
        return evalstats.compare(evalstats.load_from(frame), factors="model", baseline="base")

    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        seconds, _ = timed(run)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20,000 items")
    parser.add_argument("--no-evalstats", action="store_true")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.items
    base, cand = answers(n, args.epochs, np.random.default_rng(0))
    with tempfile.TemporaryDirectory() as tmp:
        paths = [write(Path(tmp), m, x) for m, x in (("base", base), ("cand", cand))]
        read_s, benches = timed(lambda: [load_path(str(p)) for p in paths])
        b, c = benches  # type: ignore[misc]
        diff_s, result = timed(lambda: diff(b, c, reps=REPS, seed=0))
    print(f"two runs of {n:,} binary items x {args.epochs} epochs (Parquet), {REPS} replicates")
    print(f"  read both runs      {read_s:8.2f} s")
    print(f"  diff                {diff_s:8.2f} s   ratio to reading {diff_s / read_s:6.2f}  "
          f"(target < {TARGET:g})")  # fmt: skip
    sp, scaled = scipy_paired(base.mean(axis=1), cand.mean(axis=1))
    mark = "~" if scaled else " "
    print(f"  scipy paired boot. {mark}{sp:8.2f} s   diff is {sp / diff_s:8.1f}x faster")
    ev = None if args.no_evalstats else evalstats_time(base, cand)
    if ev is None:
        why = (
            "skipped (--no-evalstats)"
            if args.no_evalstats
            else "not installed (pip install evalstats)"
        )
        print(f"  evalstats           {why}")
    else:
        print(f"  evalstats.compare   {ev:8.2f} s   diff is {ev / diff_s:8.1f}x faster")
    print(f"  {result.overall.sentence}")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
