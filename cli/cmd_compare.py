"""``benchuq compare``: pairwise differences with family-wise intervals (METHODS 2)."""

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
from benchuq.core.validation import check_known

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq compare`` to the subcommands."""
    p = sub.add_parser(
        "compare",
        help="pairwise differences between models",
        description="Differences a - b of the overall score for every pair of the named models, "
        "with family-wise intervals (Bonferroni or Holm) and bootstrap p-values.",
    )
    add_data_arguments(p)
    add_method_arguments(p)
    p.add_argument("--models", nargs="+", required=True, metavar="MODEL", help="two or more")
    p.add_argument("--level", type=float, default=0.95, help="family-wise level (0-1)")
    p.add_argument(
        "--correction", default="holm", choices=("bonferroni", "holm", "none"), help="multiplicity"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print pairwise differences of the chosen models (or JSON); returns the exit code."""
    from benchuq.cli.common import UsageError
    from benchuq.core.summaries import pairwise_differences

    level = check_level(args.level)
    bench = load_benchmark(args)
    check_known(args.models, bench.models, what="models in --models")
    if len(set(args.models)) < 2:
        raise UsageError("--models needs at least two different models.")
    draws = make_draws(args, bench)
    table = pairwise_differences(
        draws, list(dict.fromkeys(args.models)), level=level, correction=args.correction
    )
    if args.json:
        print_json(
            {
                "method": draws.method,
                "level": level,
                "correction": args.correction,
                "reps": draws.reps,
                "seed": draws.seed,
                "rows": table.to_dict(orient="records"),
            }
        )
        return 0
    print(f"{draws.method}; family-wise level {level:g} ({args.correction}); a - b, proportions")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0
