"""Speed and interval coverage of the EPP meta-score (METHODS 8).

Target: 200 models x 1,000 rounds (about 20,000 pairs) fitted in <= 2 s, with GLM and with
round-robust intervals. Prints the time of each step and its ratio to a baseline measured in the
same process: the statsmodels binomial GLM (the reference approach) on the aggregated pair rows of
the first 60 models (on all 200 it takes about a minute), and the agreement of the two estimates
on those 60 models. ``--coverage`` adds a simulation from known
Bradley-Terry strengths (scores = strength + Gumbel noise, so P(i beats j) = invlogit(b_i - b_j)
exactly, with matches sharing rounds) and prints the coverage of 95% intervals per method.

    python benchmarks/bench_epp.py [--repeat 3] [--coverage]
    BENCHUQ_BLAS_THREADS=2 python benchmarks/bench_epp.py   # with BLAS threads

The BLAS thread count is the package's own policy (core/threads.py: one thread unless
BENCHUQ_BLAS_THREADS says otherwise); this script does not set it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import statsmodels.api as sm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.analyses.epp import epp_from_scores, fit_bradley_terry, pair_counts

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


def speed(repeat: int) -> bool:
    rng = np.random.default_rng(0)
    M, K = 200, 1000
    strength = rng.normal(0.0, 1.0, M)
    scores = strength[:, None] + rng.gumbel(size=(M, K))
    scores[rng.random((M, K)) < 0.05] = np.nan  # 5% missing results
    models = tuple(f"model_{i}" for i in range(M))
    wins, matches = pair_counts(scores)
    sub = np.ix_(range(BASELINE_MODELS), range(BASELINE_MODELS))
    baseline = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        reference = _statsmodels_fit(wins[sub], matches[sub])
        baseline = min(baseline, time.perf_counter() - start)
    timings: dict[str, float] = {}
    for _ in range(repeat):
        for label, call in (
            ("pair counts", lambda: pair_counts(scores)),
            ("Newton fit", lambda: fit_bradley_terry(wins, matches)),
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
    print(f"baseline statsmodels GLM fit, {BASELINE_MODELS} models: {baseline:7.3f} s")
    for label, took in timings.items():
        print(f"{label + ':':<32}{took:7.3f} s   ratio to baseline {took / baseline:6.3f}")
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
    args = parser.parse_args()
    ok = speed(args.repeat)
    if args.coverage:
        coverage(args.sims)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
