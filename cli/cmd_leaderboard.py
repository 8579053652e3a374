"""``benchuq leaderboard``: scores with percentile intervals per group (METHODS 2-3)."""

from __future__ import annotations

import argparse

from benchuq.cli.common import (
    add_data_arguments,
    add_method_arguments,
    check_level,
    load_benchmark,
    make_draws,
    print_json,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq leaderboard`` to the subcommands."""
    p = sub.add_parser(
        "leaderboard",
        help="scores with intervals, overall and per category",
        description="Scores with percentile intervals, overall (mean over all tasks) and per "
        "category. Values are proportions. Default level 0.834: two such intervals that do not "
        "overlap correspond roughly to a 5%% test (Goldstein & Healy 1995).",
    )
    add_data_arguments(p)
    add_method_arguments(p)
    p.add_argument("--level", type=float, default=0.834, help="interval level (0-1)")
    p.add_argument(
        "--normalize",
        action="store_true",
        help="min-max normalize each task over models and replicates (METHODS 3)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print scores with intervals, overall and per category (or JSON); returns the exit code."""
    from benchuq.core.summaries import leaderboard, normalize

    level = check_level(args.level)
    bench = load_benchmark(args)
    draws = make_draws(args, bench)
    if args.normalize:
        draws = normalize(draws, mode="minmax")
    table = leaderboard(draws, level=level)
    if args.json:
        print_json(
            {
                "method": draws.method,
                "level": level,
                "reps": draws.reps,
                "seed": draws.seed,
                "normalized": bool(args.normalize),
                "notes": list(bench.notes) + list(draws.notes),
                "rows": table.to_dict(orient="records"),
            }
        )
        return 0
    print(f"{bench.name}: {len(bench.models)} models x {len(bench.tasks)} tasks")
    print(f"{draws.method}, {draws.reps} replicates, seed {draws.seed}, level {level:g}")
    for note in (*bench.notes, *draws.notes):
        print(f"note: {note}")
    for group, rows in table.groupby("group", sort=False):
        print(f"\n[{group}]")
        shown = rows.sort_values("estimate", ascending=False)
        print(
            shown[["model", "estimate", "low", "high", "mc_error_low", "mc_error_high"]].to_string(
                index=False, float_format=lambda v: f"{v:.4f}"
            )
        )
    return 0
