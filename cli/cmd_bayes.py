"""``benchuq bayes``: the Bayesian hierarchical model with its diagnostics (METHODS 6)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import numpy as np

from benchuq.cli.common import (
    add_bayes_arguments,
    add_data_arguments,
    add_notes,
    add_output_arguments,
    check_level,
    data_header,
    emit,
    fit_bayes,
    load_benchmark,
)
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL, SEED

if TYPE_CHECKING:
    from benchuq.core.methods.bayes.model import BayesFit

__all__ = ["register", "run"]

# a leaderboard row with the items behind it (README's JSON contracts)
ROW_KEYS = ["model", "group", "estimate", "low", "high"]
ROW_KEYS += ["items", "few_items", "n_items", "n_answers"]


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
    from dataclasses import replace

    from benchuq.api import leaderboard
    from benchuq.core.methods.bayes.priors import format_prior_specs

    level = check_level(args.level)
    bench = load_benchmark(args)
    result = fit_bayes(args, bench)
    draws = replace(result.to_draws(kind=args.interval), data=bench.name)
    board = leaderboard(draws, level=level)
    table = board.table
    diag = result.diagnostics
    hyper = diag[diag["parameter"].isin(["a", "b"])].pivot(
        index="model", columns="parameter", values=["mean", "sd", "rhat"]
    )
    priors = dict(zip(result.models, result.priors, strict=True))
    payload = {
        "method": draws.method,
        "level": level,
        "level_default": COMPARISON_LEVEL,
        "interval": args.interval,
        "settings": {
            "chains": result.chains,
            "draws": result.draws,
            "warmup": result.warmup,
            "seed": result.seed,
            "sampler": result.sampler,
        },
        "priors": {m: {"a": str(p.a), "b": str(p.b)} for m, p in priors.items()},
        "prior_specs": format_prior_specs(priors),
        "rows": table[ROW_KEYS].to_dict("records"),
        "diagnostics": {
            "rhat_max": result.rhat_max,
            "ess_bulk_min": result.ess_bulk_min,
            "ess_tail_min": result.ess_tail_min,
            "warnings": list(result.warnings),
            "acceptance_min": _acceptance_min(result),
        }
        | ({"sampler_seconds": result.seconds} if args.timings else {}),
        "hyperparameters": [
            {
                "model": m,
                "a_mean": hyper.loc[m, ("mean", "a")],
                "b_mean": hyper.loc[m, ("mean", "b")],
                "a_sd": hyper.loc[m, ("sd", "a")],
                "b_sd": hyper.loc[m, ("sd", "b")],
                "rhat_a": hyper.loc[m, ("rhat", "a")],
                "rhat_b": hyper.loc[m, ("rhat", "b")],
            }
            for m in result.models
        ],
        "notes": list(bench.notes) + list(draws.notes),
    }
    if emit(args, board, payload):
        return 0
    print(data_header(bench))
    print(
        f"{draws.method}; {result.chains} chains x {result.draws} draws after {result.warmup} "
        f"warm-up, seed {result.seed}, sampler {result.sampler}; {level:g} credible intervals "
        f"({_level_words(level)}); estimate = posterior mean"
    )
    print(
        f"R-hat max {result.rhat_max:.4f}, bulk ESS min {result.ess_bulk_min:.0f}, "
        f"tail ESS min {result.ess_tail_min:.0f} ({len(diag)} quantities)"
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


def _acceptance_min(result: BayesFit) -> float | None:
    """Lowest per-model acceptance rate of the independence sampler (``None`` for Gibbs, or when
    every model fell back to it)."""
    acc = result.acceptance
    if acc is None or np.isnan(acc).all():
        return None
    return float(np.nanmin(acc))


def _level_words(level: float) -> str:
    """Whether ``level`` is this command's default, which differs from the leaderboard's."""
    if level == COMPARISON_LEVEL:
        return (
            f"this command's default; `benchuq leaderboard` and the app's Leaderboard use "
            f"{LEVEL:g}, --level {LEVEL:g} matches them"
        )
    return f"chosen with --level; this command's default is {COMPARISON_LEVEL:g}"
