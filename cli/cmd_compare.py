"""``benchuq compare``: pairwise differences with simultaneous intervals (METHODS 2, 4b)."""

from __future__ import annotations

import argparse

import pandas as pd

from benchuq.cli.common import (
    FEW_ITEMS_LEGEND,
    add_data_arguments,
    add_method_arguments,
    add_normalize_arguments,
    add_output_arguments,
    check_level,
    check_pairwise,
    emit,
    items_text,
    load_benchmark,
    make_draws,
    maybe_normalize,
)
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import method_words
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
    add_normalize_arguments(p)
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print pairwise differences of the chosen models (or JSON); returns the exit code."""
    from benchuq.api import compare
    from benchuq.cli.common import UsageError
    from benchuq.core.data import is_proportion
    from benchuq.core.small_samples import min_items_to_tell
    from benchuq.results import overall_words

    level = check_level(args.level)
    bench = load_benchmark(args)
    check_known(args.models, bench.models, what="models in --models")
    if len(set(args.models)) < 2:
        raise UsageError("--models needs at least two different models.")
    check_pairwise(args, bench, "pairwise differences", len(args.models))
    draws = maybe_normalize(args, bench, make_draws(args, bench))
    result = compare(draws, models=args.models, level=level, correction=args.correction)
    if emit(args, result):
        return 0
    table = result.table
    proportions = is_proportion(bench.estimate)  # core.data's one display-unit rule
    scale = (
        f"normalized ({args.normalize_mode})"
        if args.normalize
        else ("proportions" if proportions else "score units")
    )
    print(f"{method_words(draws.method)}; {_title(args.correction, level)}; a - b, {scale}")
    print(f"overall = {overall_words(draws)}")
    shown = pd.DataFrame(
        {
            "a": table["a"],
            "b": table["b"],
            "a - b": table["estimate"].map(lambda v: f"{v:.4f}"),
            "low": table["low"].map(lambda v: f"{v:.4f}"),
            "high": table["high"].map(lambda v: f"{v:.4f}"),
            "p (adjusted)": result.p_texts(),
            "P(a better)": table["prob_a_better"].map(lambda v: f"{v:.3f}"),
        }
    )
    if table["few_items"].any():
        shown["items a, b"] = [
            f"{items_text(a)}, {items_text(b)}"
            for a, b in zip(table["items_a"], table["items_b"], strict=True)
        ]
    print(shown.to_string(index=False))
    if table["too_few_items"].any():
        pairs = ", ".join(
            f"{a} - {b}"
            for a, b in table.loc[table["too_few_items"], ["a", "b"]].itertuples(index=False)
        )
        print(
            f"too few items to tell: {pairs}: with fewer than {min_items_to_tell(level)} items "
            f"no test can reach {level:g} (an exact paired test of n items has p >= 2^(1-n)); "
            "their intervals include 0."
        )
    if table["p_exact"].notna().any():
        print(
            "pairs with fewer than 30 items: p is an exact sign-flip test over their items "
            "(never below 2^(1-k) with k differing items), adjusted for the pairs "
            "(METHODS 2d)."
        )
    if table["few_items"].any():
        print(FEW_ITEMS_LEGEND)
    if table["p_below_resolution"].any():
        print(
            f"note: '< {1 / (draws.reps + 1):.2g}': no replicate reached the observed difference; "
            f"{draws.reps} replicates cannot resolve a smaller p-value (use more --reps)."
        )
    return 0


def _title(correction: str, level: float) -> str:
    if correction == "maxt":
        return f"simultaneous {level:g} intervals (all pairs together), p-values to match"
    if correction == "bonferroni":
        return f"simultaneous {level:g} intervals (Bonferroni), Bonferroni p-values"
    if correction == "holm":
        return f"Holm p-values; intervals: simultaneous {level:g} Bonferroni"
    return f"per-pair {level:g} intervals, unadjusted p-values"
