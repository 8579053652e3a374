"""Coverage of small-subgroup intervals for graded scores near 0 (METHODS 7).

Graded scores (0, 0.5, 1) with a true mean of 0.02 or 0.1 for every unit, and 0/1 scores with
a true mean of 0.02: many units score 0 on every item. Prints, per design, how often the 95%
intervals hold the true mean and how many units had no spread: the direct interval as
``benchuq eb`` gives it (a unit without spread takes the largest standard error [0, 1] scores
allow at its guarded mean; ends cut to [0, 1]) beside the plain Student t interval of the sample
standard error (a minimal kernel: width 0 for a unit without spread), and the EB intervals
(average coverage over units) with the default features (model and task effects) and with model
effects only, and how wide the default EB intervals are on average against the direct ones.

Run: ``python benchmarks/bench_eb_boundary.py [--reps 20]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from benchuq.core.analyses.subgroups.estimates import analyze, units_from_benchmark
from benchuq.core.data import Benchmark, ItemTask

LEVEL, MODELS = 0.95, 4
VALUES = np.array([0.0, 0.5, 1.0])
DESIGNS = [  # (0/1 scores, tasks, items, true mean)
    (False, 25, 20, 0.02), (False, 100, 20, 0.02), (False, 25, 10, 0.02), (False, 25, 50, 0.1),
    (False, 25, 20, 0.1), (True, 25, 20, 0.02), (True, 100, 20, 0.02),
]  # fmt: skip


def graded(
    rng: np.random.Generator, tasks: int, items: int, mean: float, *, binary: bool = False
) -> Benchmark:
    """Scores 0, 0.5, 1 with P(1) = 2 P(0.5) and the given mean, for every model and task (or
    0/1 scores with P(1) = mean when ``binary``)."""
    p1 = mean / 1.25  # mean = P(1) + 0.5 P(0.5) with P(0.5) = P(1) / 2
    probs = [1.0 - mean, 0.0, mean] if binary else [1.0 - 1.5 * p1, 0.5 * p1, p1]
    scores = rng.choice(VALUES, p=probs, size=(MODELS, tasks, items))
    names = tuple(str(i) for i in range(items))
    return Benchmark(
        name="graded", models=[f"m{m}" for m in range(MODELS)],
        tasks=[f"t{t}" for t in range(tasks)], categories=["all"] * tasks, kind="items",
        estimate=scores.mean(axis=2),
        item_tasks=tuple(ItemTask(names, scores[:, t, :], None, None) for t in range(tasks)),
    )  # fmt: skip


def plain_t(bench: Benchmark) -> tuple[np.ndarray, np.ndarray, float]:
    """The Student t interval of each unit's sample standard error (no floor, no cut), and the
    share of units scored the same on every item."""
    scores = np.stack([it.scores for it in bench.item_tasks or ()], axis=1)  # (M, T, n)
    n = scores.shape[2]
    mean, se = scores.mean(axis=2), scores.std(axis=2, ddof=1) / np.sqrt(n)
    q = stats.t.ppf(0.5 + LEVEL / 2, n - 1)
    flat = float(np.mean(np.ptp(scores, axis=2) == 0))
    return (mean - q * se).ravel(), (mean + q * se).ravel(), flat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="data sets per design")
    args = parser.parse_args()
    print(f"95% intervals, {MODELS} models; {args.reps} data sets per row; coverage, and the EB")
    print("default intervals' mean width as a share of the direct ones' (EB width)")
    head = (
        "scores", "tasks", "items", "mean", "no spread", "direct", "plain t", "EB default",
        "EB model", "EB width",
    )  # fmt: skip
    print("{:>6} {:>5} {:>5} {:>5} {:>9} {:>7} {:>8} {:>10} {:>9} {:>8}".format(*head))
    for binary, tasks, items, mean in DESIGNS:
        rng = np.random.default_rng(tasks * 1000 + items)
        cover = np.zeros(4)
        flat = ratio = 0.0
        for _ in range(args.reps):
            bench = graded(rng, tasks, items, mean, binary=binary)
            units = units_from_benchmark(bench, group_by="task")
            default = analyze(units).rows
            model = analyze(units, features=("intercept", "model")).rows
            low, high, no_spread = plain_t(bench)
            ends = [
                (default["direct_low"], default["direct_high"]),
                (low, high),
                (default["low"], default["high"]),
                (model["low"], model["high"]),
            ]
            cover += [
                np.mean((np.asarray(lo) <= mean) & (mean <= np.asarray(hi))) for lo, hi in ends
            ]
            flat += no_spread
            ratio += float(
                np.mean(default["high"] - default["low"])
                / np.mean(default["direct_high"] - default["direct_low"])
            )
        c, r = cover / args.reps, args.reps
        print(
            f"{'0/1' if binary else 'graded':>6} {tasks:>5} {items:>5} {mean:>5} {flat / r:>9.2f} "
            f"{c[0]:>7.3f} {c[1]:>8.3f} {c[2]:>10.3f} {c[3]:>9.3f} {ratio / r:>8.2f}"
        )


if __name__ == "__main__":
    main()
