"""Rank-set coverage with two sparsely played models among eight (issue #39, METHODS 8b).

Six models play ``--many`` random battles among themselves, two play ``--few`` (1-5) battles
each against random others; strengths ~ N(0, 0.6^2) logits. Prints the share of data sets whose
simultaneous rank sets hold every true rank, and how often a sparse model is named the sole
best, for the engine (penalised fit with a model-based floor and, #41, the exact floor) and,
with ``--without``, the plain sandwich it replaced (ridge 0.01 only at separation, no floor),
with ``--before-41`` the engine without the exact floor.

    nice -n 10 python benchmarks/bench_arena_sparse.py --sims 1000
    nice -n 10 python benchmarks/bench_arena_sparse.py --sims 1000 --few 6 30 --before-41
    nice -n 10 python benchmarks/bench_arena_sparse.py --sims 1000 --equal 8 15 30 --before-41

``--equal N ...``: seven models, six with 600 battles among themselves and one with N battles
against random others at exactly m0's strength; prints how often the interval of their
difference excludes 0 (at most 5% at 95% is honest).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "core" / "analyses"))

from test_arena_sparse import sparse_battles, true_ranks

from benchuq.core.analyses import arena as arena_module
from benchuq.core.reading.battles import battles_from_frame


def run(sims: int, many: int, seed: int, few: tuple[int, int]) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    covered = sole = 0
    for k in range(sims):
        frame, s = sparse_battles(rng, many=many, few=few)
        res = arena_module.arena(battles_from_frame(frame, name=f"sim{k}"), seed=k)
        truth = true_ranks(s)[[int(m[1:]) for m in res.models]]
        covered += bool(np.all((res.rank_low <= truth) & (truth <= res.rank_high)))
        sole += res.best in (("m6",), ("m7",))
    return covered / sims, sole / sims


def equal_pair(sims: int, n: int, seed: int) -> float:
    """Share of data sets in which a model of ``n`` battles, as strong as m0, is told apart
    from m0 (their difference's 95% interval excludes 0)."""
    rng = np.random.default_rng(seed + n)
    told = 0
    for k in range(sims):
        s = rng.normal(0.0, 0.6, 7)
        s[6] = s[0]
        rows = []
        for a, b in [tuple(rng.choice(6, 2, replace=False)) for _ in range(600)] + [
            (6, int(rng.integers(0, 6))) for _ in range(n)
        ]:
            win = rng.random() < 1.0 / (1.0 + np.exp(-(s[a] - s[b])))
            rows.append((f"m{a}", f"m{b}", "model_a" if win else "model_b"))
        frame = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
        d = arena_module.arena(battles_from_frame(frame, name=f"eq{k}"), seed=k).difference(
            "m6", "m0"
        )
        told += not d.low <= 0.0 <= d.high
    return told / sims


def _print_runs(args: argparse.Namespace, few: tuple[int, int], what: str) -> None:
    if args.equal:
        shares = ", ".join(f"{n}: {equal_pair(args.sims, n, args.seed):.3f}" for n in args.equal)
        print(f"{what}: an equal model of N battles told apart from m0 in (N: share) {shares}")
        return
    cov, sole = run(args.sims, args.many, args.seed, few)
    print(
        f"{what}: rank sets cover all true ranks in {cov:.3f}; a sparse model sole best {sole:.3f}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--sims", type=int, default=1000)
    p.add_argument("--many", type=int, default=600)
    p.add_argument("--seed", type=int, default=39)
    p.add_argument("--few", type=int, nargs=2, default=(1, 5), metavar=("LOW", "HIGH"))
    p.add_argument("--without", action="store_true", help="also the plain sandwich (before #39)")
    p.add_argument("--before-41", action="store_true", help="also without the exact floor")
    p.add_argument("--equal", type=int, nargs="+", default=(), metavar="N")
    args = p.parse_args(argv)
    few = (args.few[0], args.few[1])
    _print_runs(args, few, "engine")
    if args.without:
        with (
            mock.patch.object(arena_module, "SPARSE_BATTLES", 0),
            mock.patch.object(arena_module, "PRIOR_RIDGE", 0.01),
            mock.patch.object(arena_module, "at_least_model_based", lambda c, b, s: c),
        ):
            cov, sole = run(args.sims, args.many, args.seed, few)
        print(f"plain sandwich: rank sets cover {cov:.3f}; a sparse model sole best {sole:.3f}")
    if args.before_41:
        with (
            mock.patch.object(
                arena_module, "_exact_floor", lambda f, level: (f.cov_theta, f.replicates_theta)
            ),
            mock.patch.object(arena_module, "_untold", lambda *a: None),
        ):
            _print_runs(args, few, "before #41")
    return 0


if __name__ == "__main__":
    sys.exit(main())
