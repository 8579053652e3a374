"""Speed and convergence of the Bayesian sampler on VTAB-1k (16 models x 19 tasks; METHODS 6).

Target: 4 chains x (1,000 warm-up + 2,000 draws) in <= 5 s with every R-hat <= 1.01 and every
bulk ESS >= 400. Prints the sampler and diagnostics times, their ratio to a baseline measured in
the same process (one bootstrap of the same data with 8,000 replicates, the same number of
draws), and the convergence figures.

    python benchmarks/bench_bayes.py [--repeat 3] [--sampler imh|gibbs]

``--sampler`` picks :func:`core.methods.bayes.fit`'s sampler (default ``imh``, the independence
Metropolis-Hastings step on the collapsed posterior; ``gibbs`` is the METHODS 6 Gibbs sampler).

Wall time depends on other load on the machine; CPU time of this process and the load average
are printed beside it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchuq.core.methods.bayes import model as bayes
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import load_sample

TARGET_SECONDS = 5.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed fits (best is reported)")
    parser.add_argument("--draws", type=int, default=2000, help="kept draws per chain")
    parser.add_argument("--warmup", type=int, default=1000, help="warm-up sweeps per chain")
    parser.add_argument("--sampler", default="imh", choices=("imh", "gibbs"))
    args = parser.parse_args()
    bench = load_sample("vtab1k")
    start = time.perf_counter()
    bootstrap(bench, reps=8000, seed=0)
    baseline = time.perf_counter() - start
    best = None
    for r in range(args.repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fit = bayes.fit(
            bench, chains=4, draws=args.draws, warmup=args.warmup, seed=r, sampler=args.sampler
        )
        total, cpu = time.perf_counter() - start, time.process_time() - cpu
        if best is None or total < best[0]:
            best = (total, cpu, fit)
    assert best is not None
    total, cpu, fit = best
    diag = total - fit.seconds
    ok = total <= TARGET_SECONDS and fit.rhat_max <= 1.01 and fit.ess_bulk_min >= 400
    m, t = len(fit.models), len(fit.tasks)
    print(f"VTAB-1k {m} x {t}; 4 chains x ({args.warmup} warm-up + {args.draws} draws)")
    print(f"sampler:              {fit.sampler}")
    if fit.acceptance is not None:
        acc = fit.acceptance
        print(
            f"acceptance rate:      min {np.nanmin(acc):.3f}, median {np.nanmedian(acc):.3f} "
            f"(per model, after warm-up); Gibbs fallbacks: {int(np.isnan(acc).sum())}"
        )
    print(f"quantities diagnosed: {len(fit.diagnostics)} (a, b, mean per model; theta per cell)")
    print(f"sampler seconds:      {fit.seconds:.2f}")
    print(f"diagnostics seconds:  {diag:.2f}")
    print(f"total seconds:        {total:.2f}  (target <= {TARGET_SECONDS:.0f})")
    print(f"total CPU seconds:    {cpu:.2f}  (this process; wall time includes other load)")
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"baseline (bootstrap 8000 reps) seconds: {baseline:.2f}")
    print(f"ratio total / baseline: {total / baseline:.1f}")
    print(f"R-hat max:            {fit.rhat_max:.4f}  (target <= 1.01)")
    print(f"bulk ESS min:         {fit.ess_bulk_min:.0f}  (target >= 400)")
    print(f"tail ESS min:         {fit.ess_tail_min:.0f}")
    print(f"bulk ESS per second:  {fit.ess_bulk_min / total:.0f} (min over quantities)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
