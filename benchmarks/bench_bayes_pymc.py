"""Our sampler against PyMC's NUTS on the same model and data (METHODS 6).

PyMC is a peer for checking, not a dependency: ``pip install pymc`` to run this script (it is not
needed by benchuq or its tests). Both fit VTAB-1k (or its first ``--models`` models) with
``k ~ Binomial(n, theta)``, ``theta ~ Beta(a, b)``, ``a, b ~ Exponential(1e-4)`` per model, 4
chains x (1,000 warm-up + 2,000 draws).

Printed: agreement of posterior means and of the 5% / 95% quantiles (the 90% interval ends) of
every a_i, b_i, theta_ij and per-model mean of theta, as z = difference / combined Monte Carlo
standard error (both samplers' MCSE from their own ESS; |z| < 4 expected for all but a handful
of ~1,400 quantities), and the ratio of bulk ESS per second (min over quantities; PyMC's time
excludes model compilation, which is printed separately).

    python benchmarks/bench_bayes_pymc.py [--models 16] [--draws 2000] [--tune 1000]
        [--sampler imh|gibbs] [--repeat 3]

``--sampler`` picks :func:`core.methods.bayes.fit`'s sampler (default ``imh``). Our fit runs
``--repeat`` times (seeds ``seed, seed + 1, ...``) and the fastest is reported, as in
``bench_bayes.py``, because wall time on a shared machine varies by 2x between runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.methods.bayes import diagnostics
from benchuq.core.methods.bayes import model as bayes
from benchuq.core.reading.loaders import load_sample


def _quantities(a: np.ndarray, b: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``(P, C, N)``: a_i, b_i, mean_i, theta_ij stacked (all chains x draws)."""
    c, n, m, t = theta.shape
    parts = [
        np.moveaxis(a, -1, 0),
        np.moveaxis(b, -1, 0),
        np.moveaxis(theta.mean(axis=-1), -1, 0),
        np.moveaxis(theta.reshape(c, n, m * t), -1, 0),
    ]
    return np.concatenate(parts, axis=0)


def _summary(x: np.ndarray) -> dict[str, np.ndarray]:
    flat = x.reshape(x.shape[0], -1)
    _, bulk, tail = diagnostics.summary(x)
    sd = flat.std(axis=1, ddof=1)
    out = {"mean": flat.mean(axis=1), "mcse_mean": sd / np.sqrt(bulk), "bulk": bulk}
    for p in (0.05, 0.95):
        # quantile MCSE, normal approximation: sqrt(p (1 - p) / ESS) / density at the quantile
        dens = stats.norm.pdf(stats.norm.ppf(p)) / sd
        out[f"q{p}"] = np.quantile(flat, p, axis=1)
        out[f"mcse_q{p}"] = np.sqrt(p * (1 - p) / tail) / dens
    return out


def _pymc_fit(
    k: np.ndarray, n: np.ndarray, draws: int, tune: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    import pymc as pm

    m, t = k.shape
    start = time.perf_counter()
    with pm.Model():
        a = pm.Exponential("a", lam=1e-4, shape=m)
        b = pm.Exponential("b", lam=1e-4, shape=m)
        theta = pm.Beta("theta", alpha=a[:, None], beta=b[:, None], shape=(m, t))
        pm.Binomial("k", n=n, p=theta, observed=k)
        idata = pm.sample(
            draws=draws,
            tune=tune,
            chains=4,
            cores=1,
            random_seed=seed,
            progressbar=False,
            compute_convergence_checks=False,
        )
    total = time.perf_counter() - start
    sampling = float(idata.posterior.attrs.get("sampling_time", total))
    post = idata.posterior
    return (
        post["a"].to_numpy(),
        post["b"].to_numpy(),
        post["theta"].to_numpy(),
        sampling,
        total - sampling,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=16, help="first M models of VTAB-1k")
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sampler", default="imh", choices=("imh", "gibbs"))
    parser.add_argument(
        "--repeat", type=int, default=3, help="our fits (fastest reported; PyMC runs once)"
    )
    args = parser.parse_args()
    full = load_sample("vtab1k")
    bench = full.subset(models=list(full.models[: args.models]))
    n, k, _ = bayes.counts_of(bench)

    best = None
    for r in range(args.repeat):
        start = time.perf_counter()
        fit = bayes.fit(
            bench,
            chains=4,
            draws=args.draws,
            warmup=args.tune,
            seed=args.seed + r,
            sampler=args.sampler,
        )
        elapsed = time.perf_counter() - start
        if best is None or fit.seconds < best[0].seconds:
            best = (fit, elapsed)
    assert best is not None
    ours, ours_total = best
    pa, pb, ptheta, pymc_seconds, pymc_overhead = _pymc_fit(k, n, args.draws, args.tune, args.seed)

    s1 = _summary(_quantities(ours.a, ours.b, ours.theta))
    s2 = _summary(_quantities(pa, pb, ptheta))
    m, t = k.shape
    print(f"VTAB-1k, {m} models x {t} tasks; 4 chains x ({args.tune} warm-up + {args.draws})")
    print(f"quantities compared: {s1['mean'].size} (a, b, mean per model; theta per cell)")
    for label, key in (
        ("posterior mean", "mean"),
        ("5% quantile", "q0.05"),
        ("95% quantile", "q0.95"),
    ):
        z = (s1[key] - s2[key]) / np.hypot(s1[f"mcse_{key}"], s2[f"mcse_{key}"])
        print(
            f"{label:15s} |z| max {np.abs(z).max():5.2f}, share |z| < 3: "
            f"{np.mean(np.abs(z) < 3):.3f}, share |z| < 4: {np.mean(np.abs(z) < 4):.3f}"
        )
    rel = np.abs(s1["mean"] - s2["mean"]) / np.abs(s2["mean"])
    print(f"posterior means, max relative difference: {rel.max():.2e}")
    ess1, ess2 = s1["bulk"].min(), s2["bulk"].min()
    print(
        f"ours ({ours.sampler}): sampler {ours.seconds:.2f} s "
        f"(with diagnostics {ours_total:.2f} s), "
        f"min bulk ESS {ess1:.0f}, R-hat max {ours.rhat_max:.4f}"
    )
    print(
        f"PyMC NUTS: sampling {pymc_seconds:.2f} s (+ {pymc_overhead:.2f} s compile/setup), "
        f"min bulk ESS {ess2:.0f}"
    )
    r1, r2 = ess1 / ours.seconds, ess2 / pymc_seconds
    print(f"min bulk ESS per second: ours {r1:.0f}, PyMC {r2:.0f}, ratio ours/PyMC {r1 / r2:.1f}")
    r2_all = ess2 / (pymc_seconds + pymc_overhead)
    print(
        f"ratio including PyMC compile/setup and our diagnostics: {ess1 / ours_total / r2_all:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
