"""``benchuq ranks``: rank aggregations, rank probabilities and rank confidence sets (METHODS 4,
4b)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from benchuq.cli.common import (
    UsageError,
    add_data_arguments,
    add_method_arguments,
    add_normalize_arguments,
    check_level,
    check_pairwise,
    headline_of,
    load_benchmark,
    make_draws,
    maybe_normalize,
    print_json,
)
from benchuq.core.defaults import COMPARISON_LEVEL

__all__ = ["register", "run"]

TOP_K = (1, 2, 3)


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
    add_data_arguments(p)
    add_method_arguments(p)
    add_normalize_arguments(p)
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="interval level (0-1)")
    p.add_argument(
        "--weights",
        default=None,
        metavar="W1,W2,...",
        help="category weights (one per category, summing to 1) for the rank probabilities and "
        "rank sets; default: the overall mean over all tasks",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
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


def rank_set_payload(sets: Any) -> dict[str, Any]:
    """The ``rank_sets`` JSON: one row per model and the top-k sets."""
    return {
        "level": sets.level,
        "score": sets.label,
        "rows": sets.table().to_dict(orient="records"),
        "top": {str(k): list(sets.top_set(k)) for k in TOP_K if k <= len(sets.models)},
    }


def run(args: argparse.Namespace) -> int:
    """Print rank aggregations, probabilities and rank sets (or JSON); returns the exit code."""
    from benchuq.core.summaries import group_scores, rank_aggregations, rank_probabilities
    from benchuq.core.summaries.headline import overall_label
    from benchuq.core.summaries.rank_sets import rank_set_sentences, rank_sets

    level = check_level(args.level)
    bench = load_benchmark(args)
    check_pairwise(args, bench, "rank comparisons")
    draws = maybe_normalize(args, bench, make_draws(args, bench))
    weights = parse_weights(args.weights, draws.category_names)
    group = "overall" if weights is None else weights
    table = rank_aggregations(draws, level=level)
    probs = rank_probabilities(draws, group=group)
    sc = group_scores(draws, group)
    sets = rank_sets(sc.values, sc.observed, draws.models, level, sc.higher_is_better, sc.label)
    if args.json:
        print_json(
            {
                "method": draws.method,
                "level": level,
                "reps": draws.reps,
                "seed": draws.seed,
                "normalization": args.normalize_mode if args.normalize else None,
                "score": sc.label,
                "overall": headline_of(args, bench).describe(),
                "weights": None if weights is None else [float(x) for x in weights],
                "rows": table.to_dict(orient="records"),
                "rank_probabilities": {
                    m: [float(p) for p in probs[i]] for i, m in enumerate(draws.models)
                },
                "rank_sets": rank_set_payload(sets),
            }
        )
        return 0
    methods = list(dict.fromkeys(table["method"]))
    print(f"{draws.method}; {level:g} intervals with --json")
    print(
        "Statistic [LGC] reports: position (1 = best) for mean and geometric_mean, the average "
        "per-task rank for the average-rank methods"
    )
    wide = table.pivot(index="model", columns="method", values="mean_rank")[methods]
    print(wide.sort_values("mean").to_string(float_format=lambda v: f"{v:.2f}"))
    print("\nFinal position (mean over replicates)")
    pos = table.pivot(index="model", columns="method", values="position")[methods]
    print(pos.sort_values("mean").to_string(float_format=lambda v: f"{v:.2f}"))
    score = f"overall = {overall_label(draws)}" if weights is None else sc.label
    print(f"\nRank confidence sets ({level:g}, score: {score})")
    print(sets.table().to_string(index=False, float_format=lambda v: f"{v:g}"))
    for sentence in rank_set_sentences(sets):
        print(sentence)
    return 0
