"""Speed and coverage of arena ratings (METHODS 8b) against arena-rank (LMArena's package).

Targets (issue 33): 2,000,000 battles among 150 models: the fit with sandwich intervals (and the
rank sets, win-probability matrix and rank (UB) that come with it) within 5 s, a 1,000-replicate
bootstrap within 60 s on 2 cores. Prints each time and its ratio to arena-rank (JAX, L-BFGS) in
the same process, on the same battles, with the agreement of the ratings. arena-rank's bootstrap
refits every replicate with L-BFGS in a process pool (forked from JAX, which can hang); its
own per-replicate refit is timed in process on ``--ar-reps`` replicates and the per-replicate
ratio is printed.

``--coverage`` runs the simulation of the issue: 30 models, 50,000 battles with ties, known
strengths; the share of data sets whose 95% sandwich and bootstrap intervals of every rating
difference cover the truth (target 0.93-0.97) and the simultaneous coverage of the rank sets.

    python benchmarks/bench_arena.py                 # 150 models, 2,000,000 battles
    python benchmarks/bench_arena.py --quick         # 30 models, 50,000 battles, 200 replicates
    python benchmarks/bench_arena.py --coverage [--datasets 400]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchuq.core.analyses.arena import ELO, arena
from benchuq.core.analyses.arena_synthetic import simulate_battles
from benchuq.core.reading.battles import Battles

Z95 = 1.959963984540054


def _frame(bt: Battles) -> pd.DataFrame:
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    return pd.DataFrame({"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner})


def speed(models: int, battles: int, reps: int, ar_reps: int) -> None:
    rng = np.random.default_rng(0)
    beta = rng.normal(0.0, 1.0, models)
    bt = simulate_battles(beta - beta.mean(), n=battles, tie=0.3, seed=1)
    print(f"{models} models, {battles:,} battles ({int((bt.score == 0.5).sum()):,} ties)")
    t0 = time.perf_counter()
    res = arena(bt)
    fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    boot = arena(bt, interval="bootstrap", reps=reps, seed=0)
    boot_s = time.perf_counter() - t0
    print(f"benchuq fit + sandwich intervals + rank sets: {fit:7.2f} s  (target 5 s at full size)")
    print(f"benchuq bootstrap, {reps} replicates:        {boot_s:7.2f} s  (target 60 s for 1000)")
    print(f"  sandwich vs bootstrap se, median ratio: {np.median(boot.se / res.se):.3f}")
    try:
        from arena_rank.models.bradley_terry import BradleyTerry
        from arena_rank.utils.data_utils import PairDataset
    except ImportError:
        print("arena-rank is not installed (pip install arena-rank): no ratio printed.")
        return
    frame = _frame(bt)
    times = []
    for _ in range(2):  # the first call includes JAX's compilation; the second is warm
        t0 = time.perf_counter()
        ds = PairDataset.from_pandas(frame)
        model = BradleyTerry(len(ds.competitors))
        out = model.compute_ratings_and_cis(ds, ci_method="sandwich")
        np.asarray(out["ratings"])
        times.append(time.perf_counter() - t0)
    ar_fit = times[1]
    print(f"arena-rank fit + sandwich, first call (with JIT compile): {times[0]:7.2f} s")
    diff = np.abs(np.asarray(out["ratings"]) - res.rating).max()
    print(
        f"arena-rank fit + sandwich, warm:             {ar_fit:7.2f} s  ratio {ar_fit / fit:.1f}x"
    )
    print(f"  largest rating difference: {diff:.2e} Elo (arena-rank stops L-BFGS at gtol 1e-9)")
    # arena-rank's bootstrap forks a process pool from a JAX process (which can deadlock):
    # its per-replicate refit is timed in this process instead, on multinomial counts.
    from arena_rank.models.bradley_terry import fit_single_bootstrap_sample

    counts = np.asarray(ds.counts)
    draws = np.random.default_rng(0).multinomial(int(counts.sum()), counts / counts.sum(), ar_reps)
    t0 = time.perf_counter()
    for row in draws:
        np.asarray(fit_single_bootstrap_sample(row.astype(float), model, ds)["ratings"])
    ar_boot = time.perf_counter() - t0
    per_ours, per_theirs = boot_s / reps, ar_boot / ar_reps
    print(
        f"arena-rank bootstrap refit, {ar_reps} replicates in process: {ar_boot:7.2f} s; per "
        f"replicate {per_theirs:.3f} s vs {per_ours:.4f} s: ratio {per_theirs / per_ours:.0f}x"
    )


def coverage(datasets: int, reps: int) -> None:
    M, N = 30, 50_000
    beta = np.random.default_rng(123).normal(0.0, 0.6, M)
    beta -= beta.mean()
    truth = ELO * (beta[:, None] - beta[None, :])
    true_rank = 1 + (beta[None, :] > beta[:, None]).sum(axis=1)
    iu = np.triu_indices(M, 1)
    hits: dict[str, list[float]] = {"sandwich": [], "bootstrap": []}
    sets: dict[str, list[bool]] = {"sandwich": [], "bootstrap": []}
    t0 = time.perf_counter()
    for k in range(datasets):
        bt = simulate_battles(beta, n=N, tie=0.3, seed=10_000 + k)
        for method in hits:
            res = arena(bt, interval=method, reps=reps, seed=k)  # type: ignore[arg-type]
            if res.replicates is None:
                v = np.diag(res.cov)
                se = np.sqrt(np.clip(v[:, None] + v[None, :] - 2 * res.cov, 0, None))
                ok = np.abs(res.rating[:, None] - res.rating[None, :] - truth) <= Z95 * se
            else:
                d = res.replicates[:, :, None] - res.replicates[:, None, :]
                lo, hi = np.quantile(d, [0.025, 0.975], axis=0)
                ok = (lo <= truth) & (truth <= hi)
            hits[method].append(float(ok[iu].mean()))
            inside = (res.rank_low <= true_rank) & (true_rank <= res.rank_high)
            sets[method].append(bool(inside.all()))
    print(
        f"{datasets} data sets of {N:,} battles among {M} models ({time.perf_counter() - t0:.0f} s)"
    )
    for method in hits:
        h = np.asarray(hits[method])
        ok = "inside" if 0.93 <= h.mean() <= 0.97 else "OUTSIDE"
        print(
            f"{method:9s}: 95% intervals of rating differences cover the truth in "
            f"{h.mean():.3f} (+- {2 * h.std() / np.sqrt(len(h)):.3f}) of pairs x data sets, "
            f"{ok} 0.93-0.97; rank sets cover all true ranks in {np.mean(sets[method]):.3f}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="30 models, 50,000 battles")
    p.add_argument("--reps", type=int, default=None, help="bootstrap replicates")
    p.add_argument("--ar-reps", type=int, default=10, help="arena-rank bootstrap replicates")
    p.add_argument("--coverage", action="store_true", help="the coverage simulation")
    p.add_argument("--datasets", type=int, default=400, help="data sets of the coverage run")
    args = p.parse_args()
    if args.coverage:
        coverage(args.datasets, args.reps or 1000)
        return
    if args.quick:
        speed(30, 50_000, args.reps or 200, args.ar_reps)
    else:
        speed(150, 2_000_000, args.reps or 1000, args.ar_reps)


if __name__ == "__main__":
    main()
