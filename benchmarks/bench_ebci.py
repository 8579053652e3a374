"""Speed and accuracy of the robust EB critical values (EBCI.md, core.ebci), and the MMLU lab.

Targets: for 1,000 units at a (kappa, alpha) not seen before in the process, EB estimates and
robust intervals (``core.ebci.ebci``, fast path) take <= 1 s and are >= 100x faster than the
baseline, one exact ``cva`` per unit (EBCI.md's algorithm, timed in the same process on the
same units); the fast critical values differ from the exact ones by <= 1e-6.

    python benchmarks/bench_ebci.py            # speed and error, 4 (kappa, alpha) settings
    python benchmarks/bench_ebci.py --lab      # also the simulation lab on MMLU, R = 200

The units are MMLU-like: 1,000 binary subgroups of 10-500 items with true accuracies spread
around 0.6, so m2 = se^2 / A spans about three orders of magnitude. Wall time depends on other
load on the machine; process CPU time and the load average are printed beside it.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.analyses.subgroups.ebci import Kappa, cva, cva_table, cva_v, ebci, moments
from benchuq.core.analyses.subgroups.ebci.vectorised import _t0_nodes
from benchuq.core.analyses.subgroups.lab import simulate
from benchuq.core.reading.loaders import load_sample

SETTINGS: list[tuple[Kappa, float]] = [
    ("estimated", 0.05),
    (3.0, 0.1),
    (20.0, 0.05),
    (math.inf, 0.05),
]


def units(seed: int = 0, G: int = 1000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = rng.integers(10, 501, G)
    p = np.clip(0.6 + 0.15 * rng.standard_t(5, G), 0.02, 0.98)
    k = rng.binomial(n, p)
    z = k / n
    pt = np.where((k == 0) | (k == n), (k + 0.5) / (n + 1), z)
    se = np.sqrt(pt * (1 - pt) / n)
    return z, se, np.full(G, z.mean())


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def bench_speed() -> bool:
    z, se, f = units()
    mom = moments(z - f, se)
    print(f"1,000 units: A = {mom.mu2:.4g}, estimated kappa = {mom.kappa:.3g}")
    nodes, t0_wall, _ = timed(_t0_nodes)
    print(
        f"once per process: the t0(chi) table ({len(nodes):,} nodes; t0 depends on chi alone, "
        f"not on m2, kappa or alpha) {t0_wall * 1e3:.1f} ms"
    )
    ok, passed = True, 0
    for i, (kappa, alpha) in enumerate(SETTINGS):
        kap = mom.kappa if kappa == "estimated" else kappa
        # a (kappa, alpha) new to the process: nothing about it is cached
        res, wall, cpu = timed(
            lambda kappa=kappa, alpha=alpha: ebci(z, se, f, level=1 - alpha, kappa=kappa)
        )
        m2 = res.m2
        exact, base_wall, base_cpu = timed(
            lambda kap=kap, alpha=alpha, m2=m2: np.array(
                [cva(float(m), kappa=kap, alpha=alpha) for m in m2]
            )
        )
        err = float(np.max(np.abs(res.cva - exact)))
        half_err = float(np.max(np.abs(res.half_length - exact * res.w * se)))
        table = cva_table(float(m2.min()), float(m2.max()), kap, alpha)
        dense = np.exp(np.linspace(np.log(m2.min()), np.log(m2.max()), 20000))
        dense_err = float(np.max(np.abs(table(dense) - cva_v(dense, kappa=kap, alpha=alpha))))
        fast_ok, acc_ok = wall <= 1.0, err <= 1e-6
        ratio_ok = base_wall / wall >= 100
        ok &= fast_ok and acc_ok
        passed += ratio_ok
        first = f"; {base_wall / (wall + t0_wall):.0f}x with the t0 table" if i == 0 else ""
        concave = float(np.mean(exact**2 < 3.0))
        print(
            f"[{i + 1}] kappa = {kap:.4g}, alpha = {alpha}: fast {wall:.3f} s wall ({cpu:.3f} s "
            f"CPU) [<= 1 s: {'PASS' if fast_ok else 'FAIL'}]; exact cva per unit {base_wall:.2f} "
            f"s wall ({base_cpu:.2f} s CPU); speed-up {base_wall / wall:.0f}x wall, "
            f"{base_cpu / max(cpu, 1e-9):.0f}x CPU{first} [>= 100x: "
            f"{'PASS' if ratio_ok else 'FAIL'}]"
        )
        print(
            f"    units where r is concave at cva (chi^2 < 3: the exact cva is CVb, no dual): "
            f"{concave:.0%}; exact cva {base_wall:.2e} s per 1,000 units"
        )
        print(
            f"    max |cva fast - exact| = {err:.1e}, |half-length| {half_err:.1e} "
            f"[<= 1e-6: {'PASS' if acc_ok else 'FAIL'}]; table vs vectorised on 20,000 m2: "
            f"{dense_err:.1e} ({len(table.values)} nodes, {int(table.flagged.sum())} intervals "
            "computed directly)"
        )
    print(f"speed-up >= 100x in {passed} of {len(SETTINGS)} settings")
    return ok


def bench_lab(reps: int) -> None:
    bench = load_sample("mmlu")
    lab, wall, cpu = timed(
        lambda: simulate(bench, group_by="task", n_per_group=10, reps=reps, seed=0)
    )
    o = lab.overall.iloc[0]
    print(
        f"MMLU lab (truth = full 5-shot counts, 10 items per subject, R = {reps}, features "
        f"intercept + model + subject, PMT, kappa estimated): {wall:.1f} s wall ({cpu:.1f} s CPU)"
    )
    print(
        f"  MSE ratio EB/DT averaged over models = {lab.mean_ratio_eb_by_model:.3f} "
        f"(overall {o['ratio_eb']:.3f}); SR/DT overall = {o['ratio_sr']:.3f}"
    )
    print(
        f"  coverage DT = {o['cover_dt']:.3f}, EB = {o['cover_eb']:.3f}; mean width DT = "
        f"{o['width_dt']:.3f}, EB = {o['width_eb']:.3f}"
    )
    target = lab.mean_ratio_eb_by_model <= 0.9 and o["cover_eb"] >= 0.93
    print(f"  targets (EB/DT <= 0.9, EB coverage >= 0.93, EB narrower): "
          f"{'PASS' if target and o['width_eb'] < o['width_dt'] else 'FAIL'}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lab", action="store_true", help="also run the MMLU simulation lab")
    parser.add_argument("--reps", type=int, default=200, help="lab repetitions")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ok = bench_speed()
    if args.lab:
        bench_lab(args.reps)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
