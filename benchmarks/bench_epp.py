"""Speed and interval coverage of the EPP meta-score (METHODS 8).

Target: 200 models x 1,000 rounds (about 20,000 pairs) fitted in <= 2 s, with GLM and with
round-robust intervals. Prints the time of each step and its ratio to a baseline measured in the
same process: the statsmodels binomial GLM (the reference approach) on the aggregated pair rows of
the first 60 models (on all 200 it takes about a minute), and the agreement of the two estimates
on those 60 models.

Point estimates (issue 32: at least as fast as choix, the same within 1e-8): benchuq's
``bradley_terry_mle`` (ILSR) against ``choix.ilsr_pairwise_dense`` on the same win matrix, CPU
time (all threads) and wall time, median of interleaved runs; choix runs as a user would call it
(the process's BLAS threads) and under one BLAS thread like benchuq. ``--coverage`` adds a
simulation from known Bradley-Terry strengths (scores = strength + Gumbel noise, so P(i beats
j) = invlogit(b_i - b_j) exactly, with matches sharing rounds) and prints the coverage of 95%
intervals per method.

    python benchmarks/bench_epp.py [--repeat 3] [--coverage]
    python benchmarks/bench_epp.py --quick     # one timed run, no statsmodels baseline
    BENCHUQ_BLAS_THREADS=2 python benchmarks/bench_epp.py   # with BLAS threads

The BLAS thread count is the package's own policy (core/threads.py: one thread unless
BENCHUQ_BLAS_THREADS says otherwise); this script does not set it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import choix
import numpy as np
import statsmodels.api as sm
from threadpoolctl import ThreadpoolController

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.analyses.epp import (
    bradley_terry_mle,
    epp_from_scores,
    fit_bradley_terry,
    pair_counts,
)

TARGET_SECONDS = 2.0
BASELINE_MODELS = 60


def _statsmodels_fit(wins: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """Baseline: statsmodels GLM, +1/-1 design without the last column, recentred."""
    M = len(wins)
    i, j = np.triu_indices(M, 1)
    keep = matches[i, j] > 0
    i, j = i[keep], j[keep]
    X = np.zeros((len(i), M))
    X[np.arange(len(i)), i] = 1.0
    X[np.arange(len(i)), j] = -1.0
    y = np.column_stack([wins[i, j], matches[i, j] - wins[i, j]])
    fit = sm.GLM(y, X[:, :-1], family=sm.families.Binomial()).fit()
    gamma = np.append(fit.params, 0.0)
    return gamma - gamma.mean()


def _simulated(M: int = 200, K: int = 1000) -> np.ndarray:
    """``(M, K)`` Bradley-Terry round scores (strength + Gumbel noise), 5% missing."""
    rng = np.random.default_rng(0)
    strength = rng.normal(0.0, 1.0, M)
    scores = strength[:, None] + rng.gumbel(size=(M, K))
    scores[rng.random((M, K)) < 0.05] = np.nan  # 5% missing results
    return scores


def _cpu_and_wall(call: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    call()
    return time.process_time() - cpu, time.perf_counter() - wall


def against_choix(runs: int) -> None:
    """Point estimates at 200 x 1,000: benchuq's ILSR against choix's, same win matrix."""
    wins, matches = pair_counts(_simulated())
    calls: dict[str, Callable[[], object]] = {
        "benchuq bradley_terry_mle": lambda: bradley_terry_mle(wins, matches),
        "benchuq fit_bradley_terry (+ cov)": lambda: fit_bradley_terry(wins, matches),
        "choix ilsr_pairwise_dense": lambda: choix.ilsr_pairwise_dense(wins),
    }

    pools = ThreadpoolController()  # found once: the limit itself then costs microseconds

    def choix_one_thread() -> object:
        with pools.limit(limits=1, user_api="blas"):
            return choix.ilsr_pairwise_dense(wins)

    calls["choix, one BLAS thread"] = choix_one_thread
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in calls}
    for _ in range(runs):  # interleaved: a busy moment hits every solver alike
        for label, call in calls.items():
            times[label].append(_cpu_and_wall(call))
    cpu = {k: float(np.median([c for c, _ in v])) for k, v in times.items()}
    wall = {k: float(np.median([w for _, w in v])) for k, v in times.items()}
    ref = "choix ilsr_pairwise_dense"
    print(f"EPP point estimates, 200 models x 1,000 rounds; median of {runs} interleaved runs")
    print(f"{'solver':36s} {'CPU ms':>8s} {'wall ms':>8s} {'CPU/choix':>9s} {'wall/choix':>10s}")
    for label in calls:
        print(
            f"{label:36s} {1e3 * cpu[label]:8.2f} {1e3 * wall[label]:8.2f} "
            f"{cpu[label] / cpu[ref]:9.2f} {wall[label] / wall[ref]:10.2f}"
        )
    fair = cpu["benchuq bradley_terry_mle"] / cpu["choix, one BLAS thread"]
    print(f"benchuq / choix at the same thread count (one): {fair:.2f} (CPU)")
    ours = bradley_terry_mle(wins, matches)
    theirs = choix.ilsr_pairwise_dense(wins)
    exact = choix.ilsr_pairwise_dense(wins, tol=1e-14, max_iter=1000)
    print(
        f"max |benchuq - choix| {np.max(np.abs(ours - theirs)):.1e}; distance to the MLE: "
        f"benchuq {np.max(np.abs(ours - exact)):.1e}, choix {np.max(np.abs(theirs - exact)):.1e}\n"
    )


def speed(repeat: int, *, baseline_fit: bool = True) -> bool:
    M, K = 200, 1000
    scores = _simulated(M, K)
    models = tuple(f"model_{i}" for i in range(M))
    wins, matches = pair_counts(scores)
    sub = np.ix_(range(BASELINE_MODELS), range(BASELINE_MODELS))
    baseline = np.inf
    for _ in range(repeat if baseline_fit else 0):
        start = time.perf_counter()
        reference = _statsmodels_fit(wins[sub], matches[sub]) if baseline_fit else None
        baseline = min(baseline, time.perf_counter() - start)
    timings: dict[str, float] = {}
    for _ in range(repeat):
        for label, call in (
            ("pair counts", lambda: pair_counts(scores)),
            ("fit (ILSR + cov)", lambda: fit_bradley_terry(wins, matches)),
            ("epp, GLM intervals", lambda: epp_from_scores(scores, models, interval="glm")),
            ("epp, round-robust", lambda: epp_from_scores(scores, models, interval="rounds")),
        ):
            start = time.perf_counter()
            call()
            took = time.perf_counter() - start
            timings[label] = min(timings.get(label, np.inf), took)
    beta, _ = fit_bradley_terry(wins[sub], matches[sub])
    pairs = int(np.triu(matches > 0, 1).sum())
    print(f"{M} models x {K} rounds (5% missing): {pairs} pairs; best of {repeat}")
    if baseline_fit:
        print(f"baseline statsmodels GLM fit, {BASELINE_MODELS} models: {baseline:7.3f} s")
    for label, took in timings.items():
        ratio = f"   ratio to baseline {took / baseline:6.3f}" if baseline_fit else ""
        print(f"{label + ':':<32}{took:7.3f} s{ratio}")
    if reference is not None:
        diff = np.max(np.abs(beta - reference))
        print(f"max |beta - statsmodels beta| on {BASELINE_MODELS} models: {diff:.2e}")
    worst = max(timings["epp, GLM intervals"], timings["epp, round-robust"])
    ok = worst <= TARGET_SECONDS
    print(f"target <= {TARGET_SECONDS:.1f} s for a full epp call: {'met' if ok else 'MISSED'}")
    return ok


def coverage(sims: int) -> None:
    rng = np.random.default_rng(1)
    print(f"\ncoverage of 95% intervals, {sims} simulated leaderboards each")
    for M, K in ((8, 60), (16, 19), (16, 200)):
        strength = np.linspace(-1.5, 1.5, M)
        models = tuple(f"m{i}" for i in range(M))
        hits: dict[str, list[np.ndarray]] = {"glm": [], "rounds": [], "bootstrap": []}
        for s in range(sims):
            scores = strength[:, None] + rng.gumbel(size=(M, K))
            for method in hits:
                if method == "bootstrap" and s >= sims // 4:
                    continue
                res = epp_from_scores(scores, models, interval=method, reps=200, seed=s)
                hits[method].append((res.low < strength) & (strength < res.high))
        line = ", ".join(f"{m} {100 * np.mean(h):.1f}%" for m, h in hits.items())
        print(f"  {M} models x {K} rounds: {line} (bootstrap on {sims // 4} leaderboards)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (best is reported)")
    parser.add_argument("--coverage", action="store_true", help="also run the coverage study")
    parser.add_argument("--sims", type=int, default=200, help="leaderboards per coverage cell")
    parser.add_argument(
        "--quick", action="store_true", help="one timed run, 5 choix runs, no statsmodels"
    )
    args = parser.parse_args()
    against_choix(5 if args.quick else 25)
    ok = speed(1 if args.quick else args.repeat, baseline_fit=not args.quick)
    if args.coverage:
        coverage(args.sims)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
