"""Speed of judge-score correction (METHODS 15), against ppi_py side by side.

Target: 10^6 judged items with 10^3 human labels in under 2 s: the whole ``judge()`` analysis
(PPI++, Rogan-Gladen, classical and the naive judge mean; agreement with bootstrap intervals;
planning), for the one model's cell and the overall row. Baseline: ``ppi_py.ppi_mean_ci`` plus
``ppi_mean_pointestimate`` on the same arrays (PPI++ alone, what a user would otherwise run);
the two estimates and intervals are checked to agree to 1e-6. Also times ``ppi_mean`` alone.

    python benchmarks/bench_judge.py [--items 1000000] [--labels 1000] [--repeat 5]

Needs ``ppi-python`` (``pip install -e '.[test]'``); benchuq never imports it itself.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.analyses.judge import judge
from benchuq.core.analyses.judge_estimators import ppi_mean
from benchuq.core.reading.judge_data import JudgeData


def _data(items: int, labels: int, seed: int = 0) -> JudgeData:
    rng = np.random.default_rng(seed)
    y = (rng.random(items) < 0.35).astype(float)
    u = rng.random(items)
    f = np.where(y == 1, u < 0.9, u > 0.8).astype(float)
    human = np.full(items, np.nan)
    human[:labels] = y[:labels]
    return JudgeData(
        name="simulated",
        models=("judged",),
        tasks=("task",),
        model=np.zeros(items, np.int32),
        task=np.zeros(items, np.int32),
        item=np.arange(items).astype(str).astype(object),
        judge=f,
        human=human,
    )


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main(argv: list[str] | None = None) -> int:
    """Time the analysis and ppi_py; print the table and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--labels", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    import ppi_py

    data = _data(args.items, args.labels)
    lab = data.labelled
    y, f, fu = data.human[lab], data.judge[lab], data.judge[~lab]

    def theirs() -> tuple[float, float, float]:
        point = ppi_py.ppi_mean_pointestimate(y, f, fu)
        low, high = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.05)
        return float(np.ravel(point)[0]), float(np.ravel(low)[0]), float(np.ravel(high)[0])

    t_all, res = _best(lambda: judge(data, level=0.95), args.repeat)
    t_ppi, ours = _best(lambda: ppi_mean(y, f, fu, level=0.95), args.repeat)
    t_ref, ref = _best(theirs, args.repeat)
    e = ours.estimate, ours.low, ours.high  # type: ignore[attr-defined]
    gap = max(abs(a - b) for a, b in zip(e, ref, strict=True))  # type: ignore[arg-type]
    print(f"{args.items:,} judged items, {args.labels:,} human labels (best of {args.repeat})")
    print(f"{'what':<52} {'seconds':>8}")
    print(f"{'benchuq judge(): every estimate, agreement, planning':<52} {t_all:8.3f}")
    print(f"{'benchuq ppi_mean (PPI++ estimate and interval)':<52} {t_ppi:8.4f}")
    print(f"{'ppi_py ppi_mean_pointestimate + ppi_mean_ci':<52} {t_ref:8.4f}")
    print(
        f"ratio ppi_py / benchuq ppi_mean: {t_ref / t_ppi:.2f}x; "
        f"whole analysis / ppi_py: {t_all / t_ref:.2f}x"
    )
    print(f"largest difference from ppi_py (estimate, low, high): {gap:.2e}")
    print(res.sentence())  # type: ignore[attr-defined]
    ok = t_all < 2.0 and gap < 1e-6
    print("target (under 2 s, equal to 1e-6):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
