"""Simultaneous inference, rank sets, normalization and task-level coverage (issue #13; METHODS 2,
3, 4b). Prints tables; every simulation knows its truth.

1. Pairwise comparisons (item-level paired bootstrap, 300 items, latent correlation 0.4): share
   of data sets in which the 95% intervals cover *all* differences together, for 4 models
   (6 pairs) and 10 models (45 pairs), with and without real differences. Bootstrap max-T (the
   default) against the tools a user would otherwise pick: Bonferroni percentile intervals and
   intervals at Holm's step-down levels (the previous default). Family-wise error of the
   step-down p-values under the global null.
2. Rank confidence sets [MRSW] (6 models): simultaneous coverage of all ranks, the smallest
   marginal coverage, and how often the top-1 set holds the true best.
3. Task-level coverage grid: 95% interval of a model's overall mean over T tasks of n items at
   accuracy p, for the default draws (mid-p Clopper–Pearson, pooled), the plug-in binomial
   bootstrap ([LGC]) and Jeffreys' per-task posterior. Each cell simulates SIMS models at once.
4. VTAB-1k, all 16 models: top vs last adjusted p-value per correction, and the time of all 120
   pairs (max-T against Holm in the same process).
5. Normalization on VTAB-1k: Sup-Rotation's normalized overall score at R = 100, 1,000, 10,000
   for the default (observed min/max) and [LGC]'s min/max over replicates.
6. The ≈ leader rule for two equally good models: share flagged "not ≈ leader" (paired
   difference at 95%) and share of non-overlapping 83.4% intervals, by latent correlation.

    python benchmarks/bench_inference.py [--sims 1000] [--grid-sims 2000] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_bootstrap import counts_bench
from tests.test_inference import correlated_items, item_bench

from benchuq.core.methods.bootstrap import binomial_bootstrap, confidence_draws, paired_bootstrap
from benchuq.core.reading.loaders import resolve
from benchuq.core.summaries import group_scores, pairwise_differences, percentile_interval
from benchuq.core.summaries.leader import tied_with_leader
from benchuq.core.summaries.maxt import format_p
from benchuq.core.summaries.normalization import normalize
from benchuq.core.summaries.rank_sets import rank_sets

GRID_N = (10, 30, 100, 300, 1000)
GRID_P = (0.5, 0.8, 0.9, 0.95, 0.97, 0.99, 0.995, 0.999)
GRID_T = (1, 2, 5, 20)


def _holm_level_coverage(d: np.ndarray, truth: np.ndarray, p: np.ndarray) -> bool:
    """Percentile intervals at Holm's step-down levels (the previous default) cover all?"""
    K = len(p)
    order = np.argsort(p, kind="stable")
    steps = K - np.arange(K)
    adj = np.maximum.accumulate(np.minimum(1.0, steps * p[order]))
    rejected = adj <= 0.05
    stop = int(np.argmin(rejected)) if not rejected.all() else K - 1
    levels = 1.0 - 0.05 / steps
    levels[stop:] = levels[stop]
    lv = np.empty(K)
    lv[order] = levels
    low = np.array([np.quantile(d[:, k], (1 - lv[k]) / 2) for k in range(K)])
    high = np.array([np.quantile(d[:, k], (1 + lv[k]) / 2) for k in range(K)])
    return bool(np.all((low <= truth) & (truth <= high)))


def comparisons(sims: int) -> None:
    print("\n1. Joint coverage of 95% pairwise intervals (item-level paired, 300 items)")
    print(f"{'setting':<34}{'max-T':>8}{'Bonf.':>8}{'Holm lv':>9}{'FWER sd':>9}")
    settings = {
        "4 models, 6 pairs, no differences": np.full(4, 0.7),
        "4 models, 6 pairs, differences": np.array([0.6, 0.65, 0.7, 0.8]),
        "10 models, 45 pairs, no differences": np.full(10, 0.7),
        "10 models, 45 pairs, differences": np.linspace(0.55, 0.8, 10),
    }
    for name, p in settings.items():
        rng = np.random.default_rng(len(p))
        models = [f"m{i}" for i in range(len(p))]
        i, j = np.triu_indices(len(p), 1)
        truth = p[i] - p[j]
        hits = {"maxt": [], "bonferroni": [], "holm": []}
        fwer = []
        for s in range(sims):
            draws = paired_bootstrap(
                item_bench(correlated_items(p, 300, 0.4, rng)), reps=1000, seed=s
            )
            for c in ("maxt", "bonferroni"):
                out = pairwise_differences(draws, models, level=0.95, correction=c)
                hits[c].append(bool(np.all((out.low <= truth) & (truth <= out.high))))
                if c == "maxt":
                    fwer.append(bool(np.any(out.p_stepdown <= 0.05)))
            sc = group_scores(draws)
            d = sc.values[:, i] - sc.values[:, j]
            tail = np.minimum((d <= 0).sum(axis=0), (d >= 0).sum(axis=0))
            raw = np.minimum(1.0, 2.0 * (1.0 + tail) / (d.shape[0] + 1.0))
            hits["holm"].append(_holm_level_coverage(d, truth, raw))
        null = f"{np.mean(fwer):.3f}" if np.all(truth == 0) else "-"
        print(
            f"{name:<34}{np.mean(hits['maxt']):>8.3f}{np.mean(hits['bonferroni']):>8.3f}"
            f"{np.mean(hits['holm']):>9.3f}{null:>9}"
        )
    print(f"   ({sims} data sets each; Monte Carlo SE about {np.sqrt(0.05 * 0.95 / sims):.3f})")


def ranks(sims: int) -> None:
    print("\n2. Rank confidence sets at 95% (6 models, accuracies 0.80 0.78 0.74 0.70 0.69 0.60)")
    rng = np.random.default_rng(7)
    p = np.array([0.80, 0.78, 0.74, 0.70, 0.69, 0.60])
    true = np.arange(1, 7)
    sim, marg, best, size = [], [], [], []
    for s in range(sims):
        draws = paired_bootstrap(item_bench(correlated_items(p, 400, 0.4, rng)), reps=1000, seed=s)
        sc = group_scores(draws)
        rs = rank_sets(sc.values, sc.observed, draws.models, level=0.95)
        sim.append(np.all((rs.simultaneous_low <= true) & (true <= rs.simultaneous_high)))
        marg.append((rs.marginal_low <= true) & (true <= rs.marginal_high))
        best.append("m0" in rs.top_set(1))
        size.append(len(rs.top_set(1)))
    print(f"   simultaneous coverage {np.mean(sim):.3f}")
    print(f"   marginal coverage per model {np.round(np.mean(marg, axis=0), 3)}")
    print(f"   top-1 set holds the true best {np.mean(best):.3f} (mean size {np.mean(size):.2f})")


def _cell(n: int, p: float, T: int, sims: int, reps: int, rng: np.random.Generator):
    k = rng.binomial(n, p, size=(sims, T))
    bench = counts_bench(k, np.array(n))
    out = []
    for engine in (confidence_draws, binomial_bootstrap):
        draws = engine(bench, reps=reps, seed=int(rng.integers(1 << 30)))
        iv = percentile_interval(group_scores(draws), level=0.95)
        out.append((np.mean((iv.low <= p) & (p <= iv.high)), np.median(iv.high - iv.low)))
    theta = rng.beta(k + 0.5, n - k + 0.5, size=(reps, sims, T)).mean(axis=2)
    lo, hi = np.quantile(theta, [0.025, 0.975], axis=0)
    out.append((np.mean((lo <= p) & (p <= hi)), np.median(hi - lo)))
    return out


def grid(sims: int, reps: int) -> None:
    print(f"\n3. Coverage of the 95% task-level interval of the overall mean ({sims} sets/cell)")
    print("   default = mid-p Clopper-Pearson draws, pooled; plug-in = binomial bootstrap [LGC]")
    print(f"{'n':>5}{'p':>7}{'T':>4}{'default':>9}{'width':>8}{'plug-in':>9}{'Jeffreys':>10}")
    rng = np.random.default_rng(2024)
    worst = {0: 1.0, 1: 1.0, 2: 1.0}
    for n, p, T in itertools.product(GRID_N, GRID_P, GRID_T):
        res = _cell(n, p, T, sims, reps, rng)
        for e in worst:
            worst[e] = min(worst[e], res[e][0])
        print(
            f"{n:>5}{p:>7}{T:>4}{res[0][0]:>9.3f}{res[0][1]:>8.4f}{res[1][0]:>9.3f}"
            f"{res[2][0]:>10.3f}"
        )
    se = np.sqrt(0.95 * 0.05 / sims)
    print(
        f"   worst cell: default {worst[0]:.3f}, plug-in {worst[1]:.3f}, Jeffreys {worst[2]:.3f}"
        f" (Monte Carlo SE about {se:.3f})"
    )


def vtab() -> None:
    print("\n4. VTAB-1k, all 16 models, R = 2000: top vs last")
    bench = resolve("sample:vtab1k")
    draws = confidence_draws(bench, reps=2000, seed=0)
    sc = group_scores(draws)
    order = [draws.models[i] for i in np.argsort(-sc.observed)]
    times = {}
    for c in ("maxt", "bonferroni", "holm"):
        t0 = time.perf_counter()
        out = pairwise_differences(draws, order, level=0.95, correction=c)
        times[c] = time.perf_counter() - t0
        row = out[(out.a == order[0]) & (out.b == order[-1])].iloc[0]
        shown = format_p(row.p_value, row.p_below_resolution, draws.reps)
        excl = int(((out.low > 0) | (out.high < 0)).sum())
        print(f"   {c:<11} {shown:<12} intervals excluding 0: {excl} of {len(out)}")
    print(f"   time for 120 pairs: max-T {times['maxt']:.3f} s, Holm {times['holm']:.3f} s")
    print(f"   ratio max-T / Holm (normal reference): {times['maxt'] / times['holm']:.1f}x")


def normalization() -> None:
    print("\n5. Normalized overall score of Sup-Rotation-100% on VTAB-1k (percent)")
    bench = resolve("sample:vtab1k")
    i = bench.models.index("Sup-Rotation-100%")
    print(f"{'R':>7}{'default':>10}{'MC err':>8}{'paper':>10}")
    for R in (100, 1000, 10_000):
        d = confidence_draws(bench, reps=R, seed=0)
        a = percentile_interval(group_scores(normalize(d, chance=bench.chance)), level=0.95)
        b = group_scores(normalize(d, mode="paper")).observed[i]
        mc = max(a.mc_error_low[i], a.mc_error_high[i])
        print(f"{R:>7}{100 * a.estimate[i]:>10.2f}{100 * mc:>8.2f}{100 * b:>10.2f}")


def leader(sims: int) -> None:
    print("\n6. Two equally good models (0.7, 300 items): share flagged as different")
    print(f"{'latent rho':>11}{'binary corr':>13}{'paired rule':>13}{'no overlap':>12}")
    for rho in (0.0, 0.5, 0.8):
        rng = np.random.default_rng(int(10 * rho))
        flagged, apart, corr = [], [], []
        for s in range(sims):
            scores = correlated_items(np.array([0.7, 0.7]), 300, rho, rng)
            corr.append(np.corrcoef(scores)[0, 1])
            sc = group_scores(paired_bootstrap(item_bench(scores), reps=1000, seed=s))
            flagged.append(not tied_with_leader(sc.values, sc.observed, level=0.834).all())
            iv = percentile_interval(sc, level=0.834)
            apart.append(iv.low.max() > iv.high.min())
        print(f"{rho:>11}{np.mean(corr):>13.2f}{np.mean(flagged):>13.3f}{np.mean(apart):>12.3f}")
    print("   nominal: 0.05 for the paired rule; non-overlap is 0.05 only at correlation 0")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=1000, help="data sets per simulation setting")
    ap.add_argument("--grid-sims", type=int, default=2000, help="data sets per grid cell")
    ap.add_argument("--reps", type=int, default=400, help="draws per data set in the grid")
    ap.add_argument("--quick", action="store_true", help="200 data sets everywhere")
    args = ap.parse_args()
    sims, gsims = (200, 200) if args.quick else (args.sims, args.grid_sims)
    t0 = time.perf_counter()
    vtab()
    normalization()
    comparisons(sims)
    ranks(sims)
    leader(sims)
    grid(gsims, args.reps)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
