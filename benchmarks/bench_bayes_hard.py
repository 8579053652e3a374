"""Both Bayesian samplers on hard random data sets (METHODS 6): robustness of convergence.

300 one-model data sets (fitted as one benchmark: models are independent a posteriori) with
1-6 tasks of 1-24 items, success rates at 0%, 2%, 50%, 90%, 100% or uniform, and random priors
(exponential, gamma, and normal ones with sd down to ~1e-4 of the mean). Prints, per sampler,
the acceptance rates (independence MH), the Gibbs fallbacks, the worst R-hat and bulk ESS, and
how many models have R-hat > 1.05.

    python benchmarks/bench_bayes_hard.py [--sets 300] [--draws 1500] [--warmup 300]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.data import Benchmark
from benchuq.core.methods.bayes import model as bayes
from benchuq.core.methods.bayes.priors import ModelPrior, Prior

TASKS = 6


def _prior(rng: np.random.Generator) -> Prior:
    family = rng.integers(3)
    if family == 0:
        return Prior("exponential", (10 ** rng.uniform(-5, 0),))
    if family == 1:
        return Prior("gamma", (10 ** rng.uniform(-1, 1), 10 ** rng.uniform(-4, 0)))
    return Prior("normal", (10 ** rng.uniform(0, 3.5), 10 ** rng.uniform(-1, 2)))


def simulate(sets: int, rng: np.random.Generator) -> tuple[Benchmark, dict[str, ModelPrior]]:
    priors = {f"d{i}": ModelPrior(a=_prior(rng), b=_prior(rng)) for i in range(sets)}
    n = rng.integers(1, 25, (sets, TASKS))
    p = rng.choice([0.0, 1.0, 0.5, 0.9, 0.02], size=(sets, 1)) * np.ones((sets, TASKS))
    p = np.where(rng.random((sets, TASKS)) < 0.3, rng.random((sets, TASKS)), p)
    k = rng.binomial(n, p)
    present = np.arange(TASKS)[None, :] < rng.integers(1, TASKS + 1, sets)[:, None]
    bench = Benchmark(
        name="hard",
        models=tuple(priors),
        tasks=tuple(f"t{j}" for j in range(TASKS)),
        categories=("all",) * TASKS,
        kind="counts",
        estimate=np.where(present, k / n, np.nan),
        n=n,
        correct=k,
    )
    return bench, priors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=300)
    parser.add_argument("--draws", type=int, default=1500)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    bench, priors = simulate(args.sets, np.random.default_rng(args.seed))
    print(f"{args.sets} data sets; 4 chains x ({args.warmup} warm-up + {args.draws} draws)")
    for sampler in ("imh", "gibbs"):
        fit = bayes.fit(
            bench, priors=priors, draws=args.draws, warmup=args.warmup, seed=1, sampler=sampler
        )
        worst = fit.diagnostics.groupby("model")["rhat"].max()
        line = (
            f"{sampler:5s}: sampler {fit.seconds:.1f} s, R-hat max {fit.rhat_max:.4f}, "
            f"bulk ESS min {fit.ess_bulk_min:.0f}, models with R-hat > 1.05: "
            f"{int((worst > 1.05).sum())}"
        )
        if fit.acceptance is not None:
            acc = fit.acceptance
            line += (
                f"; acceptance min {np.nanmin(acc):.3f}, 1st percentile "
                f"{np.nanquantile(acc, 0.01):.3f}, median {np.nanmedian(acc):.3f}, "
                f"Gibbs fallbacks {int(np.isnan(acc).sum())}"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
