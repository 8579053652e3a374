"""Do ``benchuq diff``'s verdicts hold their level? Simulations with known truth (METHODS 13).

Prints, over ``--runs`` seeded data sets per line (with the Monte Carlo standard error):

- equal runs: the share declared ``worse``, overall and in any task (family-wise), for binary
  single answers (McNemar), binary answers x 3 epochs (paired bootstrap, items as clusters) and
  continuous scores; target <= 5%;
- a real 3-point drop on 1,000 binary items whose runs agree on 90% of items: the share found
  ``worse`` (target >= 80%) and by an unpaired z-test;
- ``sequential``: equal runs of 1,000 items, a look after every 100: the share ever ``worse``
  (target <= 5%);
- 1-30 items: the share ``worse`` under equal runs and the share "too few items to tell";
- margins: true difference exactly -margin: the share declared ``non-inferior`` (target <=
  2.5%, a one-sided test at 95%), and exactly +-margin: the share ``equivalent`` (<= 5%).

With ``--floor``: the sign-flip interval of 1-30 equally weighted units with its betting floor
(Waudby-Smith & Ramdas 2024) against the same interval with Hoeffding's floor, per scenario of
known truth: the mean width over the true standard error ``sd(d) / sqrt(n)`` and the coverage.

    python benchmarks/bench_diff_sim.py [--runs 2000]
    python benchmarks/bench_diff_sim.py --quick          # 200 runs per line
    python benchmarks/bench_diff_sim.py --floor [--runs 1000]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from diff_data import bench_of, binary_pair  # noqa: E402

from benchuq.core.analyses.diff import diff  # noqa: E402
from benchuq.core.analyses.paired_tests import confidence_sequence, sign_flip  # noqa: E402

PAIR = {"base_model": "base", "candidate_model": "candidate"}


def share(runs: int, hit: Callable[[np.random.Generator, int], bool], seed: int) -> str:
    rng = np.random.default_rng(seed)
    p = float(np.mean([hit(rng, k) for k in range(runs)]))
    return f"{p:6.3f} ± {np.sqrt(p * (1 - p) / runs):.3f}"


def epochs_pair(n: int, rng: np.random.Generator, drop: float = 0.0) -> tuple[np.ndarray, ...]:
    p = rng.beta(2, 1, n)
    base = (rng.random((n, 3)) < p[:, None]).mean(axis=1)
    cand = (rng.random((n, 3)) < np.clip(p - drop, 0, 1)[:, None]).mean(axis=1)
    return base, cand


FLOOR_SCENARIOS: dict[str, Callable[[np.random.Generator, int], np.ndarray]] = {
    "binary 0.7 vs 0.5": lambda rng, n: (rng.random(n) < 0.7) - (rng.random(n) < 0.5) * 1.0,
    "3 epochs, beta(2,1)": lambda rng, n: np.subtract(*epochs_pair(n, rng)[::-1]),
    "skewed beta(0.4,3)": lambda rng, n: 2 * rng.beta(0.4, 3.0, n) - 1,
    "rare exception 95%": lambda rng, n: -1.0 * (rng.random(n) < 0.95),
}


def floor_table(runs: int) -> None:
    """Width / SE and coverage of the sign-flip interval: betting floor vs Hoeffding floor."""
    print(f"{runs} data sets per line; sign-flip interval at 95%, differences in [-1, 1]")
    print(f"{'scenario':22s} {'n':>3s}  {'betting width/SE':>16s} {'coverage':>9s}  "
          f"{'Hoeffding width/SE':>18s} {'coverage':>9s}")  # fmt: skip
    for name, draw in FLOOR_SCENARIOS.items():
        big = draw(np.random.default_rng(0), 400_000)
        truth, sd = float(big.mean()), float(big.std())
        for n in (1, 2, 5, 10, 20, 29, 30):
            rng = np.random.default_rng(n)
            width = np.zeros((runs, 2))
            cover = np.zeros((runs, 2), bool)
            for k in range(runs):
                d, w = draw(rng, n), np.full(n, 1.0 / n)
                for j, one_sample in enumerate((True, False)):
                    t = sign_flip(d, w, level=0.95, bound=1.0, seed=k, one_sample=one_sample)
                    width[k, j] = t.high - t.low
                    cover[k, j] = t.low <= truth <= t.high
            se = sd / np.sqrt(n)
            ratio = width.mean(axis=0) / se
            cov = cover.mean(axis=0)
            print(f"{name:22s} {n:3d}  {ratio[0]:16.1f} {cov[0]:9.3f}  {ratio[1]:18.1f} "
                  f"{cov[1]:9.3f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="200 runs per line")
    parser.add_argument("--floor", action="store_true", help="betting vs Hoeffding floor")
    args = parser.parse_args()
    runs = 200 if args.quick else args.runs
    if args.floor:
        floor_table(runs)
        return
    reps = 500

    def equal(kind: str, family: bool) -> Callable[[np.random.Generator, int], bool]:
        def hit(rng: np.random.Generator, k: int) -> bool:
            if kind == "mcnemar":
                tasks = [binary_pair(n, rng) for n in (500, 200, 60)]
            elif kind == "epochs":
                tasks = [epochs_pair(n, rng) for n in (500, 200, 60)]
            else:
                tasks = []
                for n in (500, 200, 60):
                    b = rng.random(n)
                    tasks.append((b, np.clip(b + rng.normal(0, 0.2, n), 0, 1)))
            r = diff(bench_of(tasks), **PAIR, reps=reps, seed=k)
            rows = r.tasks if family else (r.overall,)
            return any(x.verdict == "worse" for x in rows)

        return hit

    print(f"{runs} data sets per line; share ± Monte Carlo standard error")
    for kind in ("mcnemar", "epochs", "continuous"):
        for family in (False, True):
            what = "any task (family)" if family else "overall"
            line = share(runs, equal(kind, family), 1)
            print(f"equal runs, {kind:10s} 3 tasks: worse ({what:17s}) {line}  target <= 0.05")

    def drop(rng: np.random.Generator, k: int) -> bool:
        b, c = binary_pair(1000, rng, agree=0.9, drop=0.03)
        return diff(bench_of([(b, c)]), **PAIR).overall.verdict == "worse"

    def unpaired(rng: np.random.Generator, k: int) -> bool:
        b, c = binary_pair(1000, rng, agree=0.9, drop=0.03)
        se = np.hypot(b.std(ddof=1), c.std(ddof=1)) / np.sqrt(1000)
        return bool((c.mean() - b.mean()) / se < -1.96)

    print(f"3-point drop, 1,000 items, 90% agree: worse (paired)   {share(runs, drop, 2)}  >= 0.80")
    print(f"3-point drop, 1,000 items, 90% agree: unpaired z-test  {share(runs, unpaired, 2)}")

    def sequential(rng: np.random.Generator, k: int) -> bool:
        b, c = binary_pair(1000, rng, agree=0.8)
        _, high = confidence_sequence((c - b + 1) / 2, level=0.95)
        return bool(np.any(high[99::100] < 0.5))

    print(f"sequential, equal runs, looks every 100: ever worse    {share(runs, sequential, 3)}")
    for n in (1, 3, 5, 8, 12, 20, 30):

        def small(rng: np.random.Generator, k: int, n: int = n) -> bool:
            b, c = binary_pair(n, rng, agree=0.5) if k % 2 else epochs_pair(n, rng)
            return diff(bench_of([(b, c)]), **PAIR, reps=reps, seed=k).overall.verdict == "worse"

        def few(rng: np.random.Generator, k: int, n: int = n) -> bool:
            b, c = binary_pair(n, rng, agree=0.5) if k % 2 else epochs_pair(n, rng)
            return diff(bench_of([(b, c)]), **PAIR, reps=reps, seed=k).overall.too_few

        print(f"{n:2d} items, equal runs: worse {share(runs, small, 4)}; "
              f"too few items to tell {share(runs, few, 4)}")  # fmt: skip
    margin = 0.02

    def non_inferior(rng: np.random.Generator, k: int) -> bool:
        b, c = binary_pair(2000, rng, agree=0.85, drop=margin)
        r = diff(bench_of([(b, c)]), **PAIR, margin=margin)
        return r.overall.verdict in ("non-inferior", "equivalent", "better")

    def equivalent(rng: np.random.Generator, k: int) -> bool:
        b, c = binary_pair(2000, rng, agree=0.85, drop=margin if k % 2 else -margin)
        return diff(bench_of([(b, c)]), **PAIR, margin=margin).overall.verdict == "equivalent"

    print(f"true drop = margin 2 points: non-inferior {share(runs, non_inferior, 5)}  <= 0.025")
    print(f"true |diff| = margin 2 points: equivalent {share(runs, equivalent, 6)}  <= 0.05")


if __name__ == "__main__":
    main()
