"""``benchuq compare``: pairwise differences with simultaneous intervals (METHODS 2, 4b)."""

from __future__ import annotations

import argparse

import pandas as pd

from benchuq.cli.common import (
    add_data_arguments,
    add_method_arguments,
    check_level,
    check_pairwise,
    headline_of,
    load_benchmark,
    make_draws,
    print_json,
)
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.validation import check_known

__all__ = ["register", "run"]

CORRECTION_HELP = (
    "maxt: simultaneous bootstrap max-T intervals and p-values (Romano-Wolf; default); "
    "bonferroni: each interval at 1 - alpha/K; holm: Holm p-values (intervals are Bonferroni's); "
    "none: per-pair"
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq compare`` to the subcommands."""
    p = sub.add_parser(
        "compare",
        help="pairwise differences between models",
        description="Differences a - b of the overall score for every pair of the named models, "
        "with simultaneous intervals (bootstrap max-T by default, or Bonferroni) and adjusted "
        "p-values that agree with them.",
    )
    add_data_arguments(p)
    add_method_arguments(p)
    p.add_argument("--models", nargs="+", required=True, metavar="MODEL", help="two or more")
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="family-wise level (0-1)")
    p.add_argument(
        "--correction",
        default="maxt",
        choices=("maxt", "bonferroni", "holm", "none"),
        help=CORRECTION_HELP,
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print pairwise differences of the chosen models (or JSON); returns the exit code."""
    from benchuq.cli.common import UsageError
    from benchuq.core.summaries import pairwise_differences
    from benchuq.core.summaries.headline import overall_label
    from benchuq.core.summaries.maxt import format_p

    level = check_level(args.level)
    bench = load_benchmark(args)
    check_known(args.models, bench.models, what="models in --models")
    if len(set(args.models)) < 2:
        raise UsageError("--models needs at least two different models.")
    check_pairwise(args, bench, "pairwise differences", len(args.models))
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
                "simultaneous": args.correction != "none",
                "reps": draws.reps,
                "seed": draws.seed,
                "p_resolution": 1.0 / (draws.reps + 1),
                "overall": headline_of(args, bench).describe(),
                "rows": table.to_dict(orient="records"),
            }
        )
        return 0
    print(f"{draws.method}; {_title(args.correction, level)}; a - b, proportions")
    print(f"overall = {overall_label(draws)}")
    shown = pd.DataFrame(
        {
            "a": table["a"],
            "b": table["b"],
            "a - b": table["estimate"].map(lambda v: f"{v:.4f}"),
            "low": table["low"].map(lambda v: f"{v:.4f}"),
            "high": table["high"].map(lambda v: f"{v:.4f}"),
            "p (adjusted)": [
                format_p(p, b, draws.reps).removeprefix("p = ").removeprefix("p ")
                for p, b in zip(table["p_value"], table["p_below_resolution"], strict=True)
            ],
            "P(a better)": table["prob_a_better"].map(lambda v: f"{v:.3f}"),
        }
    )
    print(shown.to_string(index=False))
    if table["p_below_resolution"].any():
        print(
            f"note: '< {1 / (draws.reps + 1):.2g}': no replicate reached the observed difference; "
            f"{draws.reps} replicates cannot resolve a smaller p-value (use more --reps)."
        )
    return 0


def _title(correction: str, level: float) -> str:
    if correction == "maxt":
        return f"simultaneous {level:g} intervals (bootstrap max-T), single-step max-T p-values"
    if correction == "bonferroni":
        return f"simultaneous {level:g} intervals (Bonferroni), Bonferroni p-values"
    if correction == "holm":
        return f"Holm p-values; intervals: simultaneous {level:g} Bonferroni"
    return f"per-pair {level:g} intervals, unadjusted p-values"
