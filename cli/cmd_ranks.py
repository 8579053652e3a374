"""``benchuq ranks``: the five rank aggregations and rank probabilities (METHODS 4)."""

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
    """Add ``benchuq ranks`` to the subcommands."""
    p = sub.add_parser(
        "ranks",
        help="rank aggregations with intervals and rank probabilities",
        description="Mean rank (1 = best) and percentile interval under five aggregations, and "
        "P(rank = r) for the overall score.",
    )
    add_data_arguments(p)
    add_method_arguments(p)
    p.add_argument("--level", type=float, default=0.95, help="interval level (0-1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print rank aggregations and rank probabilities (or JSON); returns the exit code."""
    from benchuq.core.summaries import rank_aggregations, rank_probabilities

    level = check_level(args.level)
    bench = load_benchmark(args)
    draws = make_draws(args, bench)
    table = rank_aggregations(draws, level=level)
    probs = rank_probabilities(draws, group="overall")
    if args.json:
        print_json(
            {
                "method": draws.method,
                "level": level,
                "reps": draws.reps,
                "seed": draws.seed,
                "rows": table.to_dict(orient="records"),
                "rank_probabilities": {
                    m: [float(p) for p in probs[i]] for i, m in enumerate(draws.models)
                },
            }
        )
        return 0
    methods = list(dict.fromkeys(table["method"]))
    wide = table.pivot(index="model", columns="method", values="mean_rank")[methods]
    print(f"{draws.method}; mean rank (1 = best); {level:g} intervals with --json")
    print(wide.sort_values("mean").to_string(float_format=lambda v: f"{v:.2f}"))
    return 0
