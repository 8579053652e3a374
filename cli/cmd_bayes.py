"""``benchuq bayes``: the Bayesian hierarchical model with its diagnostics (METHODS 6)."""

from __future__ import annotations

import argparse
import sys

from benchuq.cli.common import (
    add_bayes_arguments,
    add_data_arguments,
    add_notes,
    add_output_arguments,
    bayes_settings,
    check_level,
    data_header,
    emit,
    load_benchmark,
)
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL, SEED

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq bayes`` to the subcommands."""
    p = sub.add_parser(
        "bayes",
        help="Bayesian hierarchical model: credible intervals and MCMC diagnostics",
        description="Fit k ~ Binomial(n, theta), theta ~ Beta(a, b) per model with priors on a "
        "and b (independence Metropolis-Hastings on the collapsed posterior, or the Gibbs sampler "
        "with slice steps: --sampler; METHODS 6) and report posterior intervals, "
        "overall (mean over all tasks) and per category, with R-hat and effective sample sizes. "
        "Estimates are posterior means; values are proportions. Needs counts (a binary metric).",
    )
    add_data_arguments(p)
    add_bayes_arguments(p)
    p.add_argument("--seed", type=int, default=SEED, help="random seed")
    p.add_argument(
        "--level",
        type=float,
        default=COMPARISON_LEVEL,
        help=f"credible level (0-1); default {COMPARISON_LEVEL:g} (`benchuq leaderboard` defaults "
        f"to {LEVEL:g}, whose overlap approximates a 5%% test; --level {LEVEL:g} matches it)",
    )
    add_output_arguments(p)
    p.add_argument(
        "--timings",
        action="store_true",
        help="add diagnostics.sampler_seconds to the JSON (left out by default so that the same "
        "seed gives byte-identical output)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Fit the Bayesian model and print its summary (or JSON); returns the exit code."""
    from benchuq.api import bayes_model

    level = check_level(args.level)
    bench = load_benchmark(args)
    model = bayes_model(bench, level=level, **bayes_settings(args))
    result, draws, table = model.fit, model.draws, model.board.table
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if emit(args, model.board, model.payload(timings=args.timings)):  # tables: the board
        return 0
    print(data_header(bench))
    print(
        f"{draws.method}; {result.chains} chains x {result.draws} samples after {result.warmup} "
        f"warm-up, seed {result.seed}, sampler {result.sampler}; {level:g} credible intervals "
        f"({_level_words(level)}); estimate = posterior mean"
    )
    print(
        f"R-hat max {result.rhat_max:.4f}, bulk ESS min {result.ess_bulk_min:.0f}, "
        f"tail ESS min {result.ess_tail_min:.0f} ({len(result.diagnostics)} quantities)"
    )
    add_notes(args, draws.notes)
    for group, rows in table.groupby("group", sort=False):
        print(f"\n[{group}]")
        shown = rows  # best first, ties by name (core.summaries.leaderboard)
        print(
            shown[["model", "estimate", "low", "high"]].to_string(
                index=False, float_format=lambda v: f"{v:.4f}"
            )
        )
    return 0


def _level_words(level: float) -> str:
    """Whether ``level`` is this command's default, which differs from the leaderboard's."""
    if level == COMPARISON_LEVEL:
        return (
            f"this command's default; `benchuq leaderboard` and the app's Leaderboard use "
            f"{LEVEL:g}, --level {LEVEL:g} matches them"
        )
    return f"chosen with --level; this command's default is {COMPARISON_LEVEL:g}"
