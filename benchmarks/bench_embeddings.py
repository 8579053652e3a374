"""Speed of the multi-head embedding consistency score (METHODS 9).

Target: 20,000 entities x 1,024 dimensions, 8 clusters, 16 heads x 64 dims, 5-fold cross-fitting
and 1,000 bootstrap replicates in <= 10 s. Prints wall and CPU seconds of ``consistency`` (best of
``--repeat``), the in-sample variant (``folds=1``), and the ratio to a baseline measured in the
same process: the direct implementation (per head, fold and cluster ``np.cov`` on the training
rows and ``scipy.stats.multivariate_normal.logpdf`` on the held-out rows; the bootstrap by
gathering resampled rows), on the same heads and folds, whose ALP must agree with ours.

    python benchmarks/bench_embeddings.py [--repeat 3] [--entities 20000] [--dims 1024]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.embeddings import _folds, _resample_counts, choose_heads, consistency

TARGET_SECONDS = 10.0
CLUSTERS, HEADS, HEAD_DIMS, REPS, FOLDS, EPS = 8, 16, 64, 1000, 5, 1.0


def _data(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.integers(0, CLUSTERS, n)
    means = rng.normal(0.0, 0.15, (CLUSTERS, d))
    return means[y] + rng.standard_normal((n, d)), np.array([f"c{c}" for c in y])


def _baseline(x: np.ndarray, labels: np.ndarray, seed: int) -> float:
    """Direct implementation with the same heads, folds and replicates; returns the ALP."""
    clusters, y = np.unique(labels, return_inverse=True)
    n, k = len(y), len(clusters)
    rng = np.random.default_rng(seed)
    fold = _folds(y, FOLDS, rng)
    _resample_counts(n, REPS, rng)  # keep the generator in step with consistency()
    lp_true = []
    for dims in choose_heads(x.shape[1], HEADS, HEAD_DIMS, rng):
        xh = x[:, dims] - x[:, dims].mean(axis=0)
        ridge = EPS * float(np.mean(xh * xh))
        lp = np.empty((n, k))
        for f in range(FOLDS):
            train, test = fold != f, fold == f
            ll = np.empty((test.sum(), k))
            for c in range(k):
                xc = xh[train & (y == c)]
                cov = np.cov(xc.T, bias=True) + ridge * np.eye(len(dims))
                prior = np.log(len(xc) / train.sum())
                ll[:, c] = multivariate_normal(xc.mean(axis=0), cov).logpdf(xh[test]) + prior
            lp[test] = ll - logsumexp(ll, axis=1, keepdims=True)
        lp_true.append(lp[np.arange(n), y])
    scores = np.column_stack(lp_true)
    boot = np.random.default_rng(seed + 1)
    for start in range(0, REPS, 50):  # the bootstrap by gathering rows, 50 replicates at a time
        idx = boot.integers(0, n, size=(min(50, REPS - start), n))
        scores[idx].mean(axis=1)
    return float(scores.mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--entities", type=int, default=20_000)
    parser.add_argument("--dims", type=int, default=1024)
    args = parser.parse_args()
    x, labels = _data(args.entities, args.dims)
    print(
        f"{args.entities} entities x {args.dims} dims, {CLUSTERS} clusters, {HEADS} heads x "
        f"{HEAD_DIMS} dims, {FOLDS} folds, {REPS} bootstrap reps"
    )
    settings = {"heads": HEADS, "dims": HEAD_DIMS, "reps": REPS, "eps": EPS, "clip": 0.0}
    rows = {}
    for label, folds in (("consistency, 5-fold cross-fitted", FOLDS), ("in-sample", 1)):
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            result = consistency({"m": x}, labels, folds=folds, seed=0, **settings)
            best_wall = min(best_wall, time.perf_counter() - w0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        rows[label] = (best_wall, best_cpu, result.scores[0])
        s = result.scores[0]
        print(
            f"  {label:34s} wall {best_wall:6.2f} s  cpu {best_cpu:6.2f} s  "
            f"ALP {s.alp.estimate:.4f} [{s.alp.low:.4f}, {s.alp.high:.4f}]  "
            f"accuracy {s.accuracy.estimate:.4f}"
        )
    w0, c0 = time.perf_counter(), time.process_time()
    base_alp = _baseline(x, labels, seed=0)
    base_wall, base_cpu = time.perf_counter() - w0, time.process_time() - c0
    ours_wall, ours_cpu, ours = rows["consistency, 5-fold cross-fitted"]
    name = "baseline (direct scipy), 5-fold"
    print(f"  {name:34s} wall {base_wall:6.2f} s  cpu {base_cpu:6.2f} s")
    speedup = f"wall x{base_wall / ours_wall:.1f}, cpu x{base_cpu / ours_cpu:.1f}"
    print(f"  speed-up over baseline: {speedup}")
    agree = abs(base_alp - ours.alp.estimate)
    print(f"  ALP vs baseline: |{base_alp:.6f} - {ours.alp.estimate:.6f}| = {agree:.0e}")
    ok = ours_wall <= TARGET_SECONDS and agree < 1e-6
    print(f"target <= {TARGET_SECONDS:g} s: {'met' if ours_wall <= TARGET_SECONDS else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
