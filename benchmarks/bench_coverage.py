"""Coverage grid of the default draws, counts and item level, with 1-1,000 items (issue #29).

Known truth, 95% intervals, the draws a user gets (METHODS 2, 2c), with the precision to tell
0.93 from 0.95 in every cell (Monte Carlo SE <= 0.005 where a cell is simulated):

1. **Exact, one task** (counts; also item level, whose draws for one model are the counts
   path's draws exactly, METHODS 2): the interval is a function of the count ``k``, so its
   coverage is ``sum_k Binomial(k; n, p) 1[p in interval(k)]``, summed exactly for every
   ``n`` and a fine grid of accuracies; the percentile interval of infinitely many draws covers
   ``p`` iff ``0.025 <= F_k(p) <= 0.975`` (``F_k`` the mixture-of-Betas law of the draws), and at
   R replicates the number of draws below ``p`` is ``Binomial(R, F_k(p))``, which gives exact
   bounds on the coverage at the user's R.
2. **Counts, T = 2, 5, 20 tasks**: the engine (``core.methods.bootstrap.bootstrap``) on data sets
   stacked as models (the counts path draws every model independently, so a benchmark of S
   models is S independent data sets).
3. **Items and differences, T = 1, 2, 5, 20**: two models at accuracy p on the same items
   (latent correlation 0.5); the interval of A's overall mean and the max-T 95% interval of
   A - B (one pair) covering 0. Simulated with :func:`pair_draws`, the engine's item-level
   draws written for many data sets at once from each data set's four pattern counts (checked
   against the engine in ``tests/core/methods/test_coverage_grid.py``).

Every entry is the smallest coverage over T = 1, 2, 5, 20 (simulated cells), so about one SE below
the cell's coverage; a zero-width interval anywhere is counted.

    nice -n 10 python benchmarks/bench_coverage.py          # 2,000 data sets a cell, R = 2,000
    python benchmarks/bench_coverage.py --quick             # 200 data sets, a few cells
    python benchmarks/bench_coverage.py --calibration-only --sims 1000 --reps 400  # METHODS 4
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
from scipy.special import betainc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.defaults import REPS
from benchuq.core.methods.bootstrap import NU_SHIFT, _pooled_draws, _small_weight, bootstrap
from benchuq.core.small_samples import min_items_to_tell
from benchuq.core.summaries import group_scores, pairwise_differences
from benchuq.core.summaries.leader import tied_with_leader
from benchuq.core.summaries.maxt import critical_index

GRID_N = (1, 2, 5, 10, 30, 100, 300, 1000)
GRID_P = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)
GRID_T = (1, 2, 5, 20)
QUICK_N = (1, 5, 30, 1000)
QUICK_P = (0.5, 0.95, 0.999)
QUICK_T = (1, 5)
LEVEL = 0.95
CELL_VALUES = 2**22  # floats per array in one batch of data sets (reps x data sets x tasks)


# -- 1. exact coverage of one task --------------------------------------------------------------


def mixture(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, weight), each ``(n + 1, C)``: the law of one task's draws for ``k = 0..n`` correct
    as a mixture of C Beta laws (METHODS 2: mid-p pseudo-item; below 30 items also the small-task
    pseudo-item valued 1 with the mean of the pooled accuracy draw). A shape 0 is a point mass."""
    k = np.arange(n + 1, dtype=float)
    nu = max(n - NU_SHIFT, 1.0)
    p = k / n
    a0, b0 = nu * p, nu * (1.0 - p)
    a = np.stack([a0 + 1.0, a0], axis=1)  # pseudo-item valued 1 or 0, probability 1/2 each
    b = np.stack([b0, b0 + 1.0], axis=1)
    w = np.full(a.shape, 0.5)
    s = float(_small_weight(float(n)))
    if s > 0:  # pooled accuracy (one task: its own mid-p draw) has mean (nu p + 1/2) / (nu + 1)
        hit = (a0 + 0.5) / (nu + 1.0)
        a = np.concatenate([a + s, a], axis=1)
        b = np.concatenate([b, b + s], axis=1)
        w = np.concatenate([w * hit[:, None], w * (1.0 - hit[:, None])], axis=1)
    return a, b, w


def draw_cdf(n: int, p: np.ndarray) -> np.ndarray:
    """``(n + 1, P)``: ``F_k(p)``, the law of the draws given k correct of n, at accuracies p."""
    a, b, w = mixture(n)
    x = np.asarray(p, dtype=float)[None, None, :]
    a3, b3 = a[:, :, None], b[:, :, None]
    inner = betainc(np.maximum(a3, 1e-300), np.maximum(b3, 1e-300), x)
    cdf = np.where(a3 <= 0, 1.0, np.where(b3 <= 0, 0.0, inner))  # point masses at 0 and at 1
    return np.einsum("kc,kcp->kp", w, cdf)


def exact_coverage(
    n: int, p: np.ndarray, *, level: float = LEVEL, reps: int | None = None
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Exact coverage of the one-task percentile interval at accuracies ``p``: with ``reps=None``
    of infinitely many draws; else ``(low, high)`` bounds at ``reps`` draws (numpy's linear
    quantile lies between two order statistics, so it covers for sure, or may cover, depending
    on how many of the R draws fall below p)."""
    p = np.asarray(p, dtype=float)
    F = draw_cdf(n, p)
    pmf = stats.binom.pmf(np.arange(n + 1)[:, None], n, p[None, :])
    q = (1.0 - level) / 2.0
    if reps is None:
        return (pmf * ((F >= q) & (F <= 1.0 - q))).sum(axis=0)
    lo = int(np.floor((reps - 1) * q))  # lower end: between order statistics lo+1 and lo+2
    hi = int(np.floor((reps - 1) * (1.0 - q)))  # upper end: between hi+1 and hi+2

    def inside(first: int, last: int) -> np.ndarray:  # P(first <= #draws below p <= last)
        return stats.binom.cdf(last, reps, F) - stats.binom.cdf(first - 1, reps, F)

    return (pmf * inside(lo + 2, hi)).sum(axis=0), (pmf * inside(lo + 1, hi + 1)).sum(axis=0)


# -- 2. counts: the engine on data sets stacked as models ---------------------------------------


def counts_data(k: np.ndarray, n: int) -> Benchmark:
    """``(S, T)`` correct counts of S data sets (one model each) on T tasks of ``n`` items, as
    one benchmark of S models (independent under the counts path)."""
    S, T = k.shape
    return Benchmark(
        name="sim",
        models=tuple(f"s{i:05d}" for i in range(S)),
        tasks=tuple(f"t{j:02d}" for j in range(T)),
        categories=("all",) * T,
        kind="counts",
        estimate=k / n,
        n=np.full((S, T), n),
        correct=k,
    )


def _batches(sims: int, reps: int, T: int) -> list[int]:
    size = max(1, CELL_VALUES // (reps * T))
    return [min(size, sims - a) for a in range(0, sims, size)]


def counts_cell(
    n: int, p: float, T: int, sims: int, reps: int, rng: np.random.Generator
) -> tuple[int, int]:
    """(covered, zero-width) over ``sims`` data sets through the engine."""
    hit = zero = 0
    for size in _batches(sims, reps, T):
        k = rng.binomial(n, p, size=(size, T))
        d = bootstrap(counts_data(k, n), reps=reps, seed=int(rng.integers(2**31)))
        low, high = np.quantile(group_scores(d).values, [0.025, 0.975], axis=0)
        hit += int(((low <= p) & (p <= high)).sum())
        zero += int((high <= low).sum())
    return hit, zero


# -- 3. items and differences: the engine's paired draws, many data sets at once ----------------


def equal_pairs(p: float, n: int, T: int, S: int, rng: np.random.Generator) -> np.ndarray:
    """``(S, T, 4)`` counts of the item patterns (A, B) = (0, 0), (0, 1), (1, 0), (1, 1) of two
    models at accuracy ``p`` on the same ``n`` items per task (latent correlation 0.5)."""
    cut = stats.norm.ppf(p)
    shared = rng.standard_normal((S, T, n))
    a = np.sqrt(0.5) * (shared + rng.standard_normal((S, T, n))) < cut
    b = np.sqrt(0.5) * (shared + rng.standard_normal((S, T, n))) < cut
    code = 2 * a.astype(np.int64) + b
    return np.stack([(code == c).sum(axis=2) for c in range(4)], axis=2)


def pair_draws(
    counts: np.ndarray, reps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(A's overall mean, A - B), each ``(reps, S)``: the item-level paired draws (METHODS 2) of
    S data sets of two models with pattern counts ``(S, T, 4)`` on T tasks of equal size, the
    overall score the mean over tasks. Per task a Dirichlet weighting of the patterns
    (``Gamma(c nu / n)``), the mid-p pseudo-item ``Gamma(1 / T)`` valued 0 or 1 per model (one
    value per model and replicate, shared by the tasks), and
    below 30 items the pseudo-item ``Gamma(2 (1/n - 1/30))`` valued 1 with each model's pooled
    mid-p accuracy draw."""
    S, T, _ = counts.shape
    n = counts[0, 0].sum()
    nu = max(n - NU_SHIFT, 1.0)
    small = float(_small_weight(float(n)))
    total = np.full(S, float(n * T))
    pooled_a = _pooled_draws(counts[:, :, 2:].sum(axis=(1, 2)).astype(float), total, reps, rng)
    pooled_b = _pooled_draws(counts[:, :, [1, 3]].sum(axis=(1, 2)).astype(float), total, reps, rng)
    up_a = rng.random((reps, S)) < 0.5  # the pseudo-item's value, shared by the tasks
    up_b = rng.random((reps, S)) < 0.5
    mean_a = np.zeros((reps, S))
    diff = np.zeros((reps, S))
    for j in range(T):
        G = rng.standard_gamma(counts[None, :, j, :] * (nu / n), size=(reps, S, 4))
        g = rng.standard_gamma(1.0 / T, size=(reps, S))
        num_a = G[:, :, 2] + G[:, :, 3] + g * up_a
        num_d = G[:, :, 2] - G[:, :, 1] + g * (up_a.astype(float) - up_b)
        den = G.sum(axis=2) + g
        if small > 0:
            g2 = rng.standard_gamma(small, size=(reps, S))
            hit_a = rng.random((reps, S)) < pooled_a
            hit_b = rng.random((reps, S)) < pooled_b
            num_a += g2 * hit_a
            num_d += g2 * (hit_a.astype(float) - hit_b)
            den += g2
        mean_a += num_a / den / T
        diff += num_d / den / T
    return mean_a, diff


def pair_covers(
    mean_a: np.ndarray, diff: np.ndarray, counts: np.ndarray, p: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A's 95% percentile interval covers p, the one-pair max-T 95% interval of A - B covers 0,
    some interval has zero width), each ``(S,)``; as ``pairwise_differences``, a pair of fewer
    than ``min_items_to_tell`` items has its interval widened to include 0."""
    low, high = np.quantile(mean_a, [0.025, 0.975], axis=0)
    T = counts.shape[1]
    est = ((counts[:, :, 2] - counts[:, :, 1]) / counts.sum(axis=2)).sum(axis=1) / T
    se = diff.std(axis=0, ddof=1)
    t = np.sort(np.abs(diff - est) / np.where(se > 0, se, 1.0), axis=0)
    crit = t[critical_index(len(diff), 1.0 - LEVEL)]
    bound = crit * se
    few = counts[0].sum() < min_items_to_tell(LEVEL)
    covers_0 = (np.abs(est) <= bound) | few
    return (low <= p) & (p <= high), covers_0, (high <= low) | (bound <= 0)


def pairs_cell(
    n: int, p: float, T: int, sims: int, reps: int, rng: np.random.Generator
) -> tuple[int, int, int]:
    """(A covered, difference covered, zero-width) over ``sims`` data sets."""
    out = np.zeros(3, dtype=np.int64)
    for size in _batches(sims, reps, T):
        counts = equal_pairs(p, n, T, size, rng)
        cov = pair_covers(*pair_draws(counts, reps, rng), counts, p)
        out += [int(c.sum()) for c in cov]
    return int(out[0]), int(out[1]), int(out[2])


@dataclass(frozen=True)
class Cell:
    """Coverage of one (n, p, T) cell over ``sims`` data sets (``nan``: not simulated)."""

    counts: float  # the overall mean, counts path (engine)
    items: float  # model A's overall mean, item path (paired)
    difference: float  # A - B = 0 by the max-T interval, item path
    zero_width: int  # intervals of zero width (any of the three)
    sims: int


def run_cell(n: int, p: float, T: int, sims: int, reps: int, seed: int) -> Cell:
    """The simulated coverages of one cell (counts only for T > 1: T = 1 is exact)."""
    rng = np.random.default_rng([seed, n, int(p * 1000), T])
    c_hit, c_zero = counts_cell(n, p, T, sims, reps, rng) if T > 1 else (-sims, 0)
    a_hit, d_hit, p_zero = pairs_cell(n, p, T, sims, reps, rng)
    return Cell(
        c_hit / sims if T > 1 else np.nan, a_hit / sims, d_hit / sims, c_zero + p_zero, sims
    )


def sims_for(n: int, sims: int) -> int:
    """Data sets a cell: ``sims`` from 30 items on (SE <= 0.005 at 2,000), a quarter below (where
    the margin above 0.93 is large; METHODS 2c)."""
    return sims if n >= 30 else max(sims // 4, 1)


def grid(
    ns: tuple[int, ...], ps: tuple[float, ...], ts: tuple[int, ...], sims: int, reps: int, seed: int
) -> dict[tuple[int, float, int], Cell]:
    """Every cell of the grid."""
    out = {}
    for n, p, T in itertools.product(ns, ps, ts):
        out[n, p, T] = cell = run_cell(n, p, T, sims_for(n, sims), reps, seed)
        print(f"  n={n} p={p} T={T}: {cell}", file=sys.stderr, flush=True)  # progress
    return out


# -- equal models with few items, calibration ---------------------------------------------------


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


def differ_rates(
    ns: tuple[int, ...], sims: int, reps: int, seed: int, p: float = 0.7
) -> dict[int, tuple[float, float]]:
    """Per n items (one task): share of data sets of two equal models in which the compare
    verdict (``p_value <= 0.05``, as its 95% interval excluding 0) and the "≈ leader" rule
    declare a difference, through the engine and ``pairwise_differences``."""
    out = {}
    for n in ns:
        rng = np.random.default_rng([seed, n])
        verdict = leader = 0
        for s in range(sims):
            d = bootstrap(item_data(equal_pair(p, n, 1, rng)), reps=reps, seed=s)
            row = pairwise_differences(d, ["A", "B"], level=LEVEL).iloc[0]
            verdict += int(row["p_value"] <= 1.0 - LEVEL)
            sc = group_scores(d)
            leader += int(not tied_with_leader(sc.values, sc.observed, level=0.834).all())
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
        d = bootstrap(item_data(scores), reps=reps, seed=s)
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
            mean, best = float(shares_a[inside].mean()), float(truth_a[inside].mean())
            out.append((label, int(inside.sum()), mean, best))
    return out


# -- printing -----------------------------------------------------------------------------------


def table(cells: dict[tuple[int, float, int], Cell], field: str) -> str:
    """Markdown table: rows n, columns p, entry the smallest coverage over the simulated T."""
    ns = sorted({k[0] for k in cells})
    ps = sorted({k[1] for k in cells})
    lines = [
        f"| n \\ accuracy ({field}) | " + " | ".join(f"{p:g}" for p in ps) + " | data sets |",
        "|---" * (len(ps) + 2) + "|",
    ]
    for n in ns:
        worst = [
            np.nanmin([getattr(c, field) for k, c in cells.items() if k[:2] == (n, p)]) for p in ps
        ]
        sims = next(c.sims for k, c in cells.items() if k[0] == n)
        lines.append(f"| {n} | " + " | ".join(f"{x:.3f}" for x in worst) + f" | {sims} |")
    return "\n".join(lines)


def exact_table(ns: tuple[int, ...], reps: int, points: int) -> tuple[str, float]:
    """Markdown table of the exact one-task coverage: per n, the smallest over ``points``
    accuracies in [0.5, 0.999] (R infinite, and the lower bound at ``reps``), and at the grid's
    accuracies; and the smallest of all."""
    fine = np.linspace(0.5, 0.999, points)
    lines = [
        "| n | min over accuracies (R = inf) | min lower bound (R = "
        f"{reps}) | " + " | ".join(f"{p:g}" for p in GRID_P) + " |",
        "|---" * (len(GRID_P) + 3) + "|",
    ]
    worst = 1.0
    for n in ns:
        inf = exact_coverage(n, fine)
        low, _ = exact_coverage(n, fine, reps=reps)
        at = exact_coverage(n, np.array(GRID_P))
        assert isinstance(inf, np.ndarray) and isinstance(at, np.ndarray)
        worst = min(worst, float(inf.min()))
        row = f"| {n} | {inf.min():.4f} (at {fine[inf.argmin()]:.3f}) | {low.min():.4f} | "
        lines.append(row + " | ".join(f"{x:.4f}" for x in at) + " |")
    return "\n".join(lines), worst


def print_calibration(sims: int, reps: int, seed: int) -> None:
    """Print the table of :func:`calibration` (METHODS 4 copies it)."""
    rows = calibration(sims, reps, seed)
    print(f"\nShare of draws ranked first against being truly best (5 models, 5 x 100 items, "
          f"{sims:,} data sets, R = {reps:,})")  # fmt: skip
    print("| share of draws ranked first | models | mean share | truly best |\n|---|---|---|---|")
    for label, count, mean, best in rows:
        print(f"| {label} | {count} | {mean:.3f} | {best:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sims", type=int, default=2000, help="data sets per cell from 30 items on")
    ap.add_argument("--reps", type=int, default=REPS, help="replicates per data set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="200 data sets, a few cells")
    ap.add_argument(
        "--calibration-only",
        action="store_true",
        help="only the table of the share of draws ranked first: --sims data sets, --reps each",
    )
    a = ap.parse_args()
    if a.calibration_only:
        print_calibration(a.sims, a.reps, a.seed)
        return
    quick = a.quick
    ns, ps, ts = (QUICK_N, QUICK_P, QUICK_T) if quick else (GRID_N, GRID_P, GRID_T)
    sims = 200 if quick else a.sims
    reps = 400 if quick else a.reps
    t0 = time.perf_counter()
    exact_ns = ns if quick else (*range(1, 30), 30, 40, 50, 70, 100, 150, 200, 300, 500, 700, 1000)
    text, worst_exact = exact_table(exact_ns, reps, 200 if quick else 1000)
    print(f"Exact coverage of one task at {LEVEL:.0%} (counts; item level the same draws)\n")
    print(text)
    print(f"\nsmallest exact one-task coverage: {worst_exact:.4f}\n")
    t1 = time.perf_counter()
    cells = grid(ns, ps, ts, sims, reps, a.seed)
    print(f"Simulated, R = {reps}, T in {ts} (counts: T > 1; T = 1 exact above)")
    for field in ("counts", "items", "difference"):
        print()
        print(table(cells, field))
    worst = min(np.nanmin([c.counts, c.items, c.difference]) for c in cells.values())
    zero = sum(c.zero_width for c in cells.values())
    print(f"\nsmallest simulated coverage {worst:.3f}; zero-width intervals: {zero}")
    print(f"({time.perf_counter() - t1:.0f} s for the simulated grid)")
    n_rates = 100 if quick else 1000
    rates = differ_rates((1, 2, 5), n_rates, min(reps, 1000), a.seed)
    print(f"\nEqual models, one task of n items ({n_rates} data sets): share declared different")
    print("| n | compare (p <= 0.05) | not ≈ leader |\n|---|---|---|")
    for n, (v, lead) in rates.items():
        print(f"| {n} | {v:.3f} | {lead:.3f} |")
    print_calibration(60 if quick else 400, min(reps, 1000), a.seed)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
