"""``benchuq ranks``: rank aggregations, rank probabilities and rank confidence sets (METHODS 4,
4b)."""

from __future__ import annotations

import argparse

import numpy as np

from benchuq.cli.common import (
    FEW_ITEMS_LEGEND,
    UsageError,
    add_leaderboard_arguments,
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
from benchuq.presentation.text import weighted_order_note

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq ranks`` to the subcommands."""
    p = sub.add_parser(
        "ranks",
        help="rank aggregations, rank probabilities and rank confidence sets",
        description="Five rank aggregations with intervals (for the average-rank methods the "
        "average per-task rank, as [LGC] reports it, and the final position separately); "
        "P(rank = r) and rank confidence sets (marginal, simultaneous, top-k) for the overall "
        "score or the weighted score --weights.",
    )
    add_leaderboard_arguments(p, level=COMPARISON_LEVEL)
    p.add_argument(
        "--weights",
        default=None,
        metavar="W1,W2,...",
        help="category weights (one per category, summing to 1) for the rank probabilities and "
        "rank sets; default: the overall mean over all tasks",
    )
    add_output_arguments(p)
    p.set_defaults(func=run)


def parse_weights(text: str | None, categories: tuple[str, ...]) -> np.ndarray | None:
    """``--weights`` as a vector over ``categories`` (None when not given)."""
    if text is None:
        return None
    try:
        w = np.array([float(x) for x in text.split(",")])
    except ValueError:
        raise UsageError(f"--weights {text!r}: give numbers separated by commas.") from None
    if w.size != len(categories):
        raise UsageError(
            f"--weights needs {len(categories)} numbers, one per category "
            f"({', '.join(categories)}); got {w.size}."
        )
    return w


def run(args: argparse.Namespace) -> int:
    """Print rank aggregations, probabilities and rank sets (or JSON); returns the exit code."""
    from benchuq.api import ranks
    from benchuq.core.small_samples import FEW_ITEMS, group_items
    from benchuq.results import overall_words

    level = check_level(args.level)
    bench = load_benchmark(args)
    check_pairwise(args, bench, "rank comparisons")
    draws = maybe_normalize(args, bench, make_draws(args, bench))
    weights = parse_weights(args.weights, draws.category_names)
    result = ranks(draws, level=level, group="overall" if weights is None else weights)
    if emit(args, result):
        return 0
    table, sets = result.table, result.rank_sets
    methods = list(dict.fromkeys(table["method"]))
    print(f"{method_words(draws.method)}; {level:g} intervals with --json")
    print(
        "Statistic [LGC] reports: position (1 = best) for mean and geometric_mean, the average "
        "per-task rank for the average-rank methods"
    )
    wide = table.pivot(index="model", columns="method", values="mean_rank")[methods]
    print(wide.sort_values("mean").to_string(float_format=lambda v: f"{v:.2f}"))
    print("\nFinal position (mean over replicates)")
    pos = table.pivot(index="model", columns="method", values="position")[methods]
    print(pos.sort_values("mean").to_string(float_format=lambda v: f"{v:.2f}"))
    score = f"overall = {overall_words(draws)}" if weights is None else sets.sets.label
    print(f"\nRank confidence sets ({level:g}, score: {score})")
    if weights is not None:
        print(weighted_order_note(draws.category_names, weights, whose="the weights given"))
    # the score beside the rank columns reads as a score, not a rank (a bare 1 or 0 did)
    frame = sets.to_frame().rename(columns={"estimate": "score"})
    frame["score"] = frame["score"].map(lambda v: f"{v:.4f}")
    print(frame.to_string(index=False, float_format=lambda v: f"{v:g}"))
    for sentence in sets.sentences():
        print(sentence)
    items = group_items(draws)
    if (items < FEW_ITEMS).any():
        few = [f"{m}: {items_text(n)}" for m, n in zip(draws.models, items, strict=True)]
        print("\nitems: " + "; ".join(f for f, n in zip(few, items, strict=True) if n < FEW_ITEMS))
        print(FEW_ITEMS_LEGEND)
    return 0
