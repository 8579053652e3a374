"""Speed and memory of the bootstrap engines and summaries (core.methods.bootstrap, core.summaries).

1. Task level, VTAB-1k sample (16 models x 19 tasks, counts): 10,000 binomial replicates plus all
   summaries (leaderboard, all pairwise differences with Holm, the five rank aggregations, rank
   and win probabilities). Target <= 0.5 s. Ratio to one vectorised ``Generator.binomial`` call
   over all 10,000 x 16 x 19 counts (the engine draws cell by cell, which numpy does faster:
   the sampler's setup is kept between draws with the same n and p).
2. Item level, paired: synthetic 0/1 items consistent with the published VTAB-1k accuracies
   (every model gets exactly its published number of correct items; n_scored items per task;
   16 models). Items share a difficulty (Gaussian copula, correlation ``--rho``; default 0.5 and
   0.8), as real models do; the more they share, the fewer distinct patterns. 1,000
   pattern-compressed replicates, target <= 5 s and >= 50x faster than naive per-replicate index
   resampling (timed on ``--naive-reps`` replicates and extrapolated; shown
   with ``nanmean``, which missing scores need, and with plain ``mean``). Peak memory: the
   process's peak RSS (``resource.getrusage``) and the traced peak of one paired run
   (``tracemalloc``), target <= 2 GB.

Times are the best of ``--repeat`` runs, wall clock and process CPU time (CPU time is less
disturbed by other processes on a shared machine).

3. With ``--coverage SIMS``: coverage of 95% intervals against known truth over SIMS simulated
   benchmarks (task level and item-level paired), and the paired SE of a difference against its
   analytic plug-in value.

    python benchmarks/bench_bootstrap.py [--repeat 3] [--rho 0.5 0.8] [--naive-reps 5]
        [--coverage 1000]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.methods import bootstrap as boot
from benchuq.core.reading.loaders import load_sample
from benchuq.core.summaries import (
    leaderboard,
    pairwise_differences,
    rank_aggregations,
    rank_probabilities,
    win_probabilities,
)

TASK_TARGET_S = 0.5
ITEM_TARGET_S = 5.0
ITEM_TARGET_RATIO = 50.0
MEMORY_TARGET_MB = 2048.0


def best_of(repeat: int, fn) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) over ``repeat`` calls."""
    wall, cpu = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)


def synthetic_items(bench: Benchmark, rho: float, seed: int = 0) -> Benchmark:
    """0/1 items with exactly the published correct counts and a shared item difficulty."""
    rng = np.random.default_rng(seed)
    M, T = bench.shape
    tasks = []
    for j in range(T):
        n = int(bench.n[:, j].max())
        latent = np.sqrt(rho) * rng.standard_normal(n) + np.sqrt(1 - rho) * rng.standard_normal(
            (M, n)
        )
        order = np.argsort(-latent, axis=1)
        y = np.zeros((M, n))
        for i in range(M):
            y[i, order[i, : int(bench.correct[i, j])]] = 1.0
        tasks.append(ItemTask(tuple(str(k) for k in range(n)), y))
    est = np.array([[t.scores[i].mean() for t in tasks] for i in range(M)])
    return Benchmark(
        name=f"VTAB-1k synthetic items (rho={rho})",
        models=bench.models,
        tasks=bench.tasks,
        categories=bench.categories,
        kind="items",
        estimate=est,
        item_tasks=tuple(tasks),
    )


def naive(bench: Benchmark, reps: int, mean) -> None:
    rng = np.random.default_rng(1)
    for _ in range(reps):
        for it in bench.item_tasks:
            n = it.scores.shape[1]
            mean(it.scores[:, rng.integers(0, n, n)], axis=1)


def item_level(vtab: Benchmark, rho: float, a: argparse.Namespace) -> None:
    """Section 2 for one copula correlation ``rho``."""
    M, T = vtab.shape
    items = synthetic_items(vtab, rho)
    units = [boot._units(it) for it in items.item_tasks]
    n_items = sum(u.n_draw for u in units)
    n_patterns = sum(len(u.weights) for u in units)
    n_light = sum(u.n_light for u in units)
    print(
        f"\n2. item level, paired: {M} models, {n_items:,} items over {T} tasks, "
        f"{n_patterns:,} distinct patterns ({n_light:,} items in patterns with <= "
        f"{boot.TABLE_MAX_WEIGHT} items), copula rho = {rho}, 1,000 replicates"
    )
    fast_w, fast_c = best_of(
        max(1, a.repeat - 1), lambda: boot.paired_bootstrap(items, reps=1000, seed=0)
    )
    tracemalloc.start()
    boot.paired_bootstrap(items, reps=1000, seed=0)
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(
        f"   pattern-compressed   wall {fast_w:6.3f} s   cpu {fast_c:6.3f} s   target <= "
        f"{ITEM_TARGET_S} s: {'met' if fast_w <= ITEM_TARGET_S else 'NOT met'} (wall), "
        f"{'met' if fast_c <= ITEM_TARGET_S else 'NOT met'} (cpu)"
    )
    for label, mean in (("nanmean", np.nanmean), ("mean", np.mean)):
        w, c = best_of(1, lambda mean=mean: naive(items, a.naive_reps, mean))
        scale = 1000 / a.naive_reps
        ratio_w, ratio_c = w * scale / fast_w, c * scale / fast_c
        verdict = "met" if ratio_c >= ITEM_TARGET_RATIO else "NOT met"
        print(
            f"   naive ({label:<7}) {a.naive_reps} reps x {scale:.0f}: wall {w * scale:7.1f} s, "
            f"cpu {c * scale:7.1f} s; speed-up {ratio_w:5.1f}x (wall), {ratio_c:5.1f}x (cpu); "
            f"target >= {ITEM_TARGET_RATIO:.0f}x: {verdict} (cpu)"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"   memory: traced peak of one paired run {traced:.0f} MB; process peak RSS {peak:.0f} MB"
        f"; target <= {MEMORY_TARGET_MB:.0f} MB: {'met' if peak <= MEMORY_TARGET_MB else 'NOT met'}"
    )
    check = boot.paired_bootstrap(items, reps=1000, seed=0).values
    z = (check.mean(0) - items.estimate) / (check.std(0) / np.sqrt(1000))
    print(
        f"   sanity: replicate means vs observed, largest |z| = {np.abs(z).max():.1f} over "
        f"{z.size} cells (expect < ~4; two-sided p of the largest: "
        f"{min(1.0, z.size * 2 * stats.norm.sf(np.abs(z).max())):.2f}, Bonferroni)"
    )


def _counts(k: np.ndarray, n: np.ndarray) -> Benchmark:
    M, T = k.shape
    nn = np.broadcast_to(n, (M, T))
    return Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("c",) * T,
        kind="counts",
        estimate=k / nn,
        n=nn,
        correct=k,
    )


def _items(scores: list[np.ndarray]) -> Benchmark:
    M = scores[0].shape[0]
    return Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(len(scores))),
        categories=("c",) * len(scores),
        kind="items",
        estimate=np.array([[s[i].mean() for s in scores] for i in range(M)]),
        item_tasks=tuple(ItemTask(tuple(map(str, range(s.shape[1]))), s) for s in scores),
    )


def _binary(p: np.ndarray, n: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    z = np.sqrt(rho) * rng.standard_normal(n) + np.sqrt(1 - rho) * rng.standard_normal((len(p), n))
    return (z < stats.norm.ppf(p)[:, None]).astype(float)


def coverage(sims: int, reps: int) -> None:
    """Section 3: 95% percentile intervals of the overall mean against known truth."""
    rng = np.random.default_rng(101)
    n = np.array([60, 120, 200, 90, 150])
    p = np.array([[0.62, 0.8, 0.45, 0.7, 0.9], [0.3, 0.55, 0.5, 0.85, 0.6]])
    hits = []
    for s in range(sims):
        d = boot.binomial_bootstrap(_counts(rng.binomial(n, p), n), reps=reps, seed=s)
        low, high = np.quantile(d.values.mean(axis=2), [0.025, 0.975], axis=0)
        hits.append((low <= p.mean(1)) & (p.mean(1) <= high))
    print(
        f"\n3. coverage of 95% intervals, {sims} simulated benchmarks, {reps} replicates each\n"
        f"   task-level binomial (2 models x 5 tasks, n 60-200): {np.mean(hits):.3f}"
    )
    p = np.array([[0.7, 0.55, 0.85], [0.65, 0.5, 0.8]])
    truth = p.mean(axis=1)
    hits, hits_diff, ratio = [], [], []
    for s in range(sims):
        scores = [_binary(p[:, j], size, 0.6, rng) for j, size in enumerate((80, 120, 100))]
        overall = boot.paired_bootstrap(_items(scores), reps=reps, seed=s).values.mean(axis=2)
        low, high = np.quantile(overall, [0.025, 0.975], axis=0)
        hits.append((low <= truth) & (truth <= high))
        diff = overall[:, 0] - overall[:, 1]
        dl, dh = np.quantile(diff, [0.025, 0.975])
        hits_diff.append(dl <= truth[0] - truth[1] <= dh)
        analytic = np.sqrt(sum(np.var(y[0] - y[1]) / y.shape[1] for y in scores)) / 3
        ratio.append(diff.std() / analytic)
    print(
        f"   item-level paired (2 correlated models x 3 tasks, 80-120 items): models "
        f"{np.mean(hits):.3f}, difference {np.mean(hits_diff):.3f}\n"
        f"   paired SE of the difference / analytic plug-in SE: mean {np.mean(ratio):.3f} "
        f"(sd {np.std(ratio):.3f} over benchmarks, {reps} replicates each)"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rho", type=float, nargs="+", default=[0.5, 0.8])
    p.add_argument("--naive-reps", type=int, default=5)
    p.add_argument("--coverage", type=int, default=0, metavar="SIMS", help="add section 3")
    a = p.parse_args(argv)

    vtab = load_sample("vtab1k")
    M, T = vtab.shape
    print(f"1. task level: {vtab.name}, {M} models x {T} tasks, 10,000 replicates")
    rng = np.random.default_rng(0)
    n, pk = vtab.n, vtab.correct / vtab.n
    floor_w, floor_c = best_of(a.repeat, lambda: rng.binomial(n, pk, size=(10_000, M, T)))
    d = boot.bootstrap(vtab, reps=10_000, seed=0)
    parts = {
        "bootstrap": lambda: boot.bootstrap(vtab, reps=10_000, seed=0),
        "leaderboard": lambda: leaderboard(d),
        "pairwise (120 pairs, Holm)": lambda: pairwise_differences(d, list(d.models)),
        "rank aggregations (5)": lambda: rank_aggregations(d),
        "rank probabilities": lambda: rank_probabilities(d),
        "win probabilities": lambda: win_probabilities(d),
    }
    total_w = total_c = 0.0
    for name, fn in parts.items():
        w, c = best_of(a.repeat, fn)
        total_w, total_c = total_w + w, total_c + c
        print(f"   {name:<28} wall {w:6.3f} s   cpu {c:6.3f} s")
    print(
        f"   TOTAL                        wall {total_w:6.3f} s   cpu {total_c:6.3f} s"
        f"   target <= {TASK_TARGET_S} s: {'met' if total_w <= TASK_TARGET_S else 'NOT met'}"
        f" (wall), {'met' if total_c <= TASK_TARGET_S else 'NOT met'} (cpu)"
    )
    print(
        f"   reference: one Generator.binomial call over all counts wall {floor_w:.3f} s, cpu "
        f"{floor_c:.3f} s; ratio total / reference = {total_w / floor_w:.2f} (wall), "
        f"{total_c / floor_c:.2f} (cpu)"
    )

    for rho in a.rho:
        item_level(vtab, rho, a)
    if a.coverage:
        coverage(a.coverage, 600)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
