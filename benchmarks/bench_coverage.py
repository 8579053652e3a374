"""Coverage grid of the default draws, counts and item level, with 1-1,000 items (issue #29).

Every cell simulates data sets with a known truth and runs the engine a user gets
(``core.methods.bootstrap.bootstrap``) on each:

1. **Unpaired (counts)**: one model, T tasks of n items at accuracy p; the 95% percentile
   interval of its overall mean covers p.
2. **Paired (items)**: two models with the same accuracy p on the same items (latent
   correlation 0.5), item-level data; the 95% interval of model A's overall mean covers p, and
   the 95% max-T interval of A - B covers 0 (its miss rate is the rate at which "differ" is
   declared between equal models).
3. **Equal models with 1, 2 and 5 items**: share of data sets in which "differ" is declared, by
   the compare verdict (max-T 95% interval of A - B excludes 0) and by the "≈ leader" rule.
4. **Calibration of the share of draws ranked first** ("P(best)" elsewhere): 5 models whose true
   accuracies are drawn at random around 0.7 (sd 0.02), 5 tasks of 100 items, item level; each
   model's share of draws in which it ranks first, binned, against how often it truly is best.

Each entry of the grids is the smallest coverage over T = 1, 2, 5, 20 tasks; a zero-width
interval anywhere is counted and printed.

    python benchmarks/bench_coverage.py            # 400 data sets a cell, R = 400
    python benchmarks/bench_coverage.py --quick    # 40 data sets a cell, fewer cells
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.summaries import group_scores, pairwise_differences, percentile_interval
from benchuq.core.summaries.leader import tied_with_leader

GRID_N = (1, 2, 5, 10, 30, 100, 300, 1000)
GRID_P = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)
GRID_T = (1, 2, 5, 20)
QUICK_N = (1, 2, 5, 30, 1000)
QUICK_P = (0.5, 0.95, 0.999)
QUICK_T = (1, 20)
LEVEL = 0.95


@dataclass(frozen=True)
class Cell:
    """Results of one (n, p, T) cell over its simulated data sets."""

    counts: float  # coverage of the overall mean, counts path
    items: float  # coverage of model A's overall mean, item path (paired)
    difference: float  # coverage of A - B = 0 by the max-T interval, item path
    zero_width: int  # intervals of zero width (any of the three)


def counts_data(k: np.ndarray, n: int) -> Benchmark:
    """One model, T tasks of ``n`` items with ``k`` correct."""
    T = len(k)
    return Benchmark(
        name="sim",
        models=("A",),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("all",) * T,
        kind="counts",
        estimate=(k / n)[None, :],
        n=np.full((1, T), n),
        correct=k[None, :],
    )


def item_data(scores: list[np.ndarray]) -> Benchmark:
    """Item-level binary scores, one ``(M, n)`` matrix per task."""
    M = scores[0].shape[0]
    tasks = tuple(ItemTask.stored(tuple(map(str, range(s.shape[1]))), s) for s in scores)
    return Benchmark(
        name="sim",
        models=tuple("AB"[:M]) if M <= 2 else tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(len(scores))),
        categories=("all",) * len(scores),
        kind="items",
        estimate=np.array([[s[i].mean() for s in scores] for i in range(M)]),
        item_tasks=tasks,
    )


def equal_pair(p: float, n: int, T: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Two models at accuracy ``p`` on the same items, latent correlation 0.5 (uint8 states)."""
    cut = stats.norm.ppf(p)
    out = []
    for _ in range(T):
        z = rng.standard_normal(n)
        latent = np.sqrt(0.5) * z + np.sqrt(0.5) * rng.standard_normal((2, n))
        out.append((latent < cut).astype(np.uint8))
    return out


def _covers(low: float, high: float, truth: float) -> bool:
    return bool(low <= truth <= high)


def run_cell(n: int, p: float, T: int, sims: int, reps: int, seed: int) -> Cell:
    """Coverage of the three intervals in one cell."""
    rng = np.random.default_rng([seed, n, int(p * 1000), T])
    hits = np.zeros(3)
    zero = 0
    for s in range(sims):
        c = bootstrap(counts_data(rng.binomial(n, p, size=T), n), reps=reps, seed=s)
        iv = percentile_interval(group_scores(c), LEVEL)
        hits[0] += _covers(iv.low[0], iv.high[0], p)
        zero += int(iv.high[0] - iv.low[0] <= 0)
        d = bootstrap(item_data(equal_pair(p, n, T, rng)), reps=reps, seed=s)
        iv = percentile_interval(group_scores(d), LEVEL)
        hits[1] += _covers(iv.low[0], iv.high[0], p)
        diff = pairwise_differences(d, ["A", "B"], level=LEVEL).iloc[0]
        hits[2] += _covers(diff["low"], diff["high"], 0.0)
        zero += int(iv.high[0] - iv.low[0] <= 0) + int(diff["high"] - diff["low"] <= 0)
    cov = hits / sims
    return Cell(float(cov[0]), float(cov[1]), float(cov[2]), zero)


def grid(
    ns: tuple[int, ...], ps: tuple[float, ...], ts: tuple[int, ...], sims: int, reps: int, seed: int
) -> dict[tuple[int, float, int], Cell]:
    """Every cell of the grid."""
    return {(n, p, T): run_cell(n, p, T, sims, reps, seed) for n in ns for p in ps for T in ts}


def differ_rates(
    ns: tuple[int, ...], sims: int, reps: int, seed: int, p: float = 0.7
) -> dict[int, tuple[float, float]]:
    """Per n items (one task): share of data sets of two equal models in which the compare
    verdict (max-T 95% interval excludes 0) and the "≈ leader" rule declare a difference."""
    out = {}
    for n in ns:
        rng = np.random.default_rng([seed, n])
        verdict = leader = 0
        for s in range(sims):
            d = bootstrap(item_data(equal_pair(p, n, 1, rng)), reps=reps, seed=s)
            row = pairwise_differences(d, ["A", "B"], level=LEVEL).iloc[0]
            verdict += int(row["low"] > 0 or row["high"] < 0)
            sc = group_scores(d)
            leader += int(not tied_with_leader(sc.values, sc.observed, 0.834).all())
        out[n] = (verdict / sims, leader / sims)
    return out


def calibration(sims: int, reps: int, seed: int) -> list[tuple[str, int, float, float]]:
    """(bin, models, mean share of draws ranked first, share truly best) per bin of the share."""
    rng = np.random.default_rng([seed, 4])
    shares, truth = [], []
    M, T, n = 5, 5, 100
    for s in range(sims):
        p = 0.7 + 0.02 * rng.standard_normal(M)
        cut = stats.norm.ppf(np.clip(p, 0.01, 0.99))
        scores = []
        for _ in range(T):
            z = rng.standard_normal(n)
            latent = np.sqrt(0.3) * z + np.sqrt(0.7) * rng.standard_normal((M, n))
            scores.append((latent < cut[:, None]).astype(np.uint8))
        bench = item_data(scores)
        d = bootstrap(bench, reps=reps, seed=s)
        first = np.argmax(group_scores(d).values, axis=1)
        shares.extend(np.bincount(first, minlength=M) / reps)
        truth.extend(np.arange(M) == np.argmax(p))
    shares_a, truth_a = np.array(shares), np.array(truth)
    edges = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0001)
    out = []
    for lo, hi in itertools.pairwise(edges):
        inside = (shares_a >= lo) & (shares_a < hi)
        if inside.any():
            label = f"{lo:.2f}-{min(hi, 1.0):.2f}"
            out.append(
                (
                    label,
                    int(inside.sum()),
                    float(shares_a[inside].mean()),
                    float(truth_a[inside].mean()),
                )
            )
    return out


def table(cells: dict[tuple[int, float, int], Cell], field: str) -> str:
    """Markdown table: rows n, columns p, entry the smallest coverage over T."""
    ns = sorted({k[0] for k in cells})
    ps = sorted({k[1] for k in cells})
    lines = [
        f"| n \\ accuracy ({field}) | " + " | ".join(f"{p:g}" for p in ps) + " |",
        "|---" * (len(ps) + 1) + "|",
    ]
    for n in ns:
        worst = [min(getattr(c, field) for k, c in cells.items() if k[:2] == (n, p)) for p in ps]
        lines.append(f"| {n} | " + " | ".join(f"{x:.3f}" for x in worst) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sims", type=int, default=400, help="data sets per cell")
    ap.add_argument("--reps", type=int, default=400, help="replicates per data set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="40 data sets a cell, fewer cells")
    a = ap.parse_args()
    ns, ps, ts = (QUICK_N, QUICK_P, QUICK_T) if a.quick else (GRID_N, GRID_P, GRID_T)
    sims = 40 if a.quick else a.sims
    t0 = time.perf_counter()
    cells = grid(ns, ps, ts, sims, a.reps, a.seed)
    print(f"Coverage at {LEVEL:.0%}, {sims} data sets a cell, R = {a.reps}, T in {ts}")
    for field in ("counts", "items", "difference"):
        print()
        print(table(cells, field))
    worst = min(min(c.counts, c.items, c.difference) for c in cells.values())
    zero = sum(c.zero_width for c in cells.values())
    print(f"\nsmallest coverage {worst:.3f}; zero-width intervals: {zero}")
    rates = differ_rates((1, 2, 5), sims * 5 if a.quick else a.sims, a.reps, a.seed)
    print("\nEqual models, one task of n items: share declared different")
    print("| n | compare (max-T 95%) | not ≈ leader |\n|---|---|---|")
    for n, (v, lead) in rates.items():
        print(f"| {n} | {v:.3f} | {lead:.3f} |")
    rows = calibration(60 if a.quick else a.sims, a.reps, a.seed)
    print("\nShare of draws ranked first against being truly best (5 models, 5 x 100 items)")
    print("| share of draws ranked first | models | mean share | truly best |\n|---|---|---|---|")
    for label, count, mean, best in rows:
        print(f"| {label} | {count} | {mean:.3f} | {best:.3f} |")
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
