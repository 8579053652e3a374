"""Power planning (METHODS 10): simulated power against the plan, and the cost of planning.

1. Every known-truth setting of ``tests/power_settings.py`` (independent and paired binary items,
   clustered items, task-level counts, continuous scores, K answers per item, a max-T family and
   its family-wise error) at ``--experiments`` simulated evaluations (10,000 by default; the test
   suite runs 2,000): planned vs observed power, with the Monte Carlo error of the observed share.
2. ``--bootstrap N``: the same for N experiments of three settings tested with the project's own
   paired bootstrap interval (``core.methods.bootstrap`` + ``core.summaries.pairwise_differences``,
   R = 1,000) instead of the plug-in standard error.
3. Speed and agreement against the tool a user would otherwise pick, in the same process:
   statsmodels' ``NormalIndPower.solve_power`` (one paired comparison from a standardised effect)
   vs ``core.analyses.power.plan``; and the whole MMLU plan (190 pairs, max-T critical value).

    python benchmarks/bench_power.py [--experiments 10000] [--bootstrap 300]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the shared known-truth settings

from power_settings import LEVEL, POWER, SETTINGS, _joint_binary  # noqa: E402
from statsmodels.stats.power import NormalIndPower  # noqa: E402

from benchuq.core.analyses import power as pw  # noqa: E402
from benchuq.core.data import Benchmark, ItemTask  # noqa: E402
from benchuq.core.methods.bootstrap import bootstrap  # noqa: E402
from benchuq.core.reading.loaders import load_sample  # noqa: E402
from benchuq.core.summaries import pairwise_differences  # noqa: E402


def simulated(experiments: int) -> None:
    print(f"Simulated power at the planned items ({experiments:,} evaluations per setting)")
    print(
        f"{'setting':48s} {'items':>7s} {'planned':>8s} {'observed':>9s} {'diff':>6s} {'MC se':>6s}"
    )
    for k, run in enumerate(SETTINGS.values()):
        t = time.perf_counter()
        out = run(experiments, 100 + k)
        se = np.sqrt(out.planned * (1 - out.planned) / experiments)
        print(
            f"{out.name:48s} {out.items:7,d} {out.planned:8.3f} {out.observed:9.3f} "
            f"{out.observed - out.planned:+6.3f} {se:6.3f}   ({time.perf_counter() - t:.1f} s)"
        )


def _items_bench(ya: np.ndarray, yb: np.ndarray, cluster: tuple[str, ...] | None) -> Benchmark:
    y = np.vstack([ya, yb]).astype(float)
    return Benchmark(
        name="sim",
        models=("A", "B"),
        tasks=("t",),
        categories=("all",),
        kind="items",
        estimate=y.mean(axis=1, keepdims=True),
        item_tasks=(ItemTask(tuple(map(str, range(y.shape[1]))), y, cluster=cluster),),
    )


def with_bootstrap(experiments: int, reps: int = 1000) -> None:
    """Observed power when each simulated evaluation is tested with the paired bootstrap."""
    print(f"\nThe project's paired bootstrap interval ({experiments} evaluations, R = {reps:,})")
    rng = np.random.default_rng(7)
    pa, pb = 0.72, 0.68
    for corr in (0.0, 0.5):
        design = pw.design_from_assumptions([pa, pb], 100, corr=corr)
        plan = pw.plan(design, level=LEVEL, power=POWER, delta=pa - pb)
        n = int(plan.n_required[0])
        hits = 0
        for e in range(experiments):
            ya, yb = _joint_binary(rng, n, pa, pb, corr)
            draws = bootstrap(_items_bench(ya, yb, None), reps=reps, seed=e)
            row = pairwise_differences(draws, ["A", "B"], level=LEVEL, correction="none")
            hits += int(row["low"][0] > 0 or row["high"][0] < 0)
        print(
            f"binary items, corr {corr:g}: {n:,} items, planned {plan.power:.3f}, "
            f"observed {hits / experiments:.3f}"
        )
    m, ma, mb, strength = 8, 0.74, 0.70, 6.0
    va, vb = ma * (1 - ma) / (strength + 1), mb * (1 - mb) / (strength + 1)
    icc = (va + vb) / (ma * (1 - ma) + mb * (1 - mb))
    design = pw.design_from_assumptions([ma, mb], 100, cluster_size=m, icc=icc)
    plan = pw.plan(design, level=LEVEL, power=POWER, delta=ma - mb)
    groups = int(np.ceil(plan.n_required[0] / m))
    cluster = tuple(str(i // m) for i in range(groups * m))
    hits = 0
    for e in range(experiments):
        p = rng.beta(
            [ma * strength, mb * strength], [(1 - ma) * strength, (1 - mb) * strength], (groups, 2)
        )
        y = (rng.random((groups, m, 2)) < p[:, None, :]).reshape(groups * m, 2)
        draws = bootstrap(_items_bench(y[:, 0], y[:, 1], cluster), reps=reps, seed=e)
        row = pairwise_differences(draws, ["A", "B"], level=LEVEL, correction="none")
        hits += int(row["low"][0] > 0 or row["high"][0] < 0)
    print(
        f"clustered items (m {m}, ICC {icc:.2f}): {groups * m:,} items, planned "
        f"{plan.power:.3f}, observed {hits / experiments:.3f}"
    )


def _best_of(f, repeat: int = 5) -> float:
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def speed() -> None:
    print("\nAgainst statsmodels (NormalIndPower, one paired comparison, nobs1 = items)")
    design = pw.design_from_assumptions([0.72, 0.7], 1000, corr=0.5)
    plan = pw.plan(design, delta=0.02)
    effect = 0.02 / np.sqrt(plan.var_item[0])
    sm_n = NormalIndPower().solve_power(effect, alpha=0.05, power=0.8, ratio=0.0)
    ours = _best_of(lambda: pw.plan(design, delta=0.02))
    theirs = _best_of(
        lambda: NormalIndPower().solve_power(effect, alpha=0.05, power=0.8, ratio=0.0)
    )
    print(
        f"items needed: core.analyses.power {plan.n_required[0]:,.0f}, "
        f"statsmodels {np.ceil(sm_n):,.0f} "
        f"(ratio {plan.n_required[0] / np.ceil(sm_n):.4f}); time {1e3 * ours:.2f} ms vs "
        f"{1e3 * theirs:.2f} ms (x{ours / theirs:.2f})"
    )
    mmlu = load_sample("mmlu")
    t = time.perf_counter()
    design = pw.design_from_benchmark(mmlu)
    t_design = time.perf_counter() - t
    t = time.perf_counter()
    plan = pw.plan(design, delta=0.01)
    t_plan = time.perf_counter() - t
    print(
        f"MMLU, all {len(plan.a)} pairs of 20 models: design {1e3 * t_design:.0f} ms, plan with "
        f"the max-T critical value ({pw.MAXT_DRAWS:,} draws, c = {plan.critical:.3f}) "
        f"{1e3 * t_plan:.0f} ms; Bonferroni would use "
        f"{pw.critical_value(0.95, family=len(plan.a), correction='bonferroni'):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=10_000)
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N")
    args = parser.parse_args()
    simulated(args.experiments)
    if args.bootstrap:
        with_bootstrap(args.bootstrap)
    speed()


if __name__ == "__main__":
    main()
