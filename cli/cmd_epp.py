"""``benchuq epp``: EPP meta-score, Bradley-Terry win probabilities between models (METHODS 8)."""

from __future__ import annotations

import argparse

from benchuq.cli.common import (
    add_data_arguments,
    add_notes,
    add_output_arguments,
    check_level,
    check_pairwise,
    emit,
    load_benchmark,
)
from benchuq.core.defaults import COMPARISON_LEVEL, SEED

__all__ = ["METHOD_LABELS", "register", "run"]

METHOD_LABELS = {
    "rounds": "round-robust (sandwich by round)",
    "glm": "GLM (matches independent)",
    "bootstrap": "bootstrap over rounds",
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq epp`` to the subcommands."""
    p = sub.add_parser(
        "epp",
        help="EPP meta-score: win probabilities between models",
        description="EPP meta-score [EPP]: every round (task or item) is a match between each "
        "pair of models (ties count 1/2); a Bradley-Terry GLM gives each model an EPP in logit "
        "units (sum 0), win probabilities, Wald tests and a deviance goodness-of-fit test.",
    )
    add_data_arguments(p)
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="interval level (0-1)")
    p.add_argument(
        "--rounds", default="tasks", choices=("tasks", "items"), help="what one match round is"
    )
    p.add_argument(
        "--interval",
        default="rounds",
        choices=("rounds", "glm", "bootstrap"),
        help="rounds: robust to matches sharing a round (default); glm: matches independent; "
        "bootstrap: resample rounds",
    )
    p.add_argument("--reps", type=int, default=1000, help="bootstrap replicates")
    p.add_argument("--seed", type=int, default=SEED, help="bootstrap seed")
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the EPP leaderboard and its goodness of fit (or JSON); returns the exit code."""
    from benchuq.api import epp

    level = check_level(args.level)
    bench = load_benchmark(args)
    check_pairwise(args, bench, "EPP pair counts")
    result = epp(
        bench,
        rounds=args.rounds,
        level=level,
        interval=args.interval,
        reps=args.reps,
        seed=args.seed,
    )
    res = result.result
    order = res.order
    models = res.models
    if emit(args, result):
        return 0
    print(f"{bench.name}: {len(models)} models, {res.n_rounds} rounds ({res.rounds})")
    print(f"EPP in logit units (sum 0), {METHOD_LABELS[res.method]} intervals at level {level:g}")
    width = max(len(m) for m in models)
    print(f"{'model':<{width}}  {'epp':>8}  {'se':>7}  {'low':>8}  {'high':>8}  P(beats avg)")
    for i in order:
        flag = "  separated" if models[i] in res.separated else ""
        print(
            f"{models[i]:<{width}}  {res.estimate[i]:8.3f}  {res.se[i]:7.3f}  {res.low[i]:8.3f}  "
            f"{res.high[i]:8.3f}  {res.beats_average[i]:12.3f}{flag}"
        )
    if res.df > 0:
        print(
            f"\ndeviance {res.deviance:.2f} on {res.df} df, p = {res.p_value:.3g}, "
            f"standardized deviance {res.standardized_deviance:.2f}"
        )
    else:
        print("\ndeviance test not defined: no degrees of freedom (needs 3 or more models)")
    add_notes(args, res.notes)
    return 0
