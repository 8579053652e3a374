"""``benchuq leaderboard``: scores with percentile intervals per group (METHODS 2-3)."""

from __future__ import annotations

import argparse

from benchuq.cli.common import (
    FEW_ITEMS_LEGEND,
    add_leaderboard_arguments,
    add_notes,
    add_output_arguments,
    check_level,
    data_header,
    emit,
    items_text,
    load_benchmark,
    make_draws,
    maybe_normalize,
)
from benchuq.core.defaults import LEVEL
from benchuq.core.draws import method_words

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq leaderboard`` to the subcommands."""
    p = sub.add_parser(
        "leaderboard",
        help="scores with intervals, overall and per category",
        description="Scores with percentile intervals, overall and per category. Overall: the "
        "mean over benchmarks for lm-eval files with groups (each group, e.g. mmlu, counting once "
        "as lm-eval scores it), else the mean over all tasks (--overall chooses). Values are "
        "proportions. Default level 0.834: for two independent estimates with similar standard "
        "errors, intervals that do not overlap correspond roughly to a 5% "
        "test (Goldstein & Healy 1995); models evaluated on the same items are correlated, so "
        "'≈ leader' (JSON: tied_with_leader) tests the paired difference from the leader "
        "instead.",
    )
    add_leaderboard_arguments(p, level=LEVEL)
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print scores with intervals, overall and per category (or JSON); returns the exit code."""
    from benchuq.api import leaderboard
    from benchuq.cli.run_table import run_table

    level = check_level(args.level)
    bench = load_benchmark(args)
    draws = maybe_normalize(args, bench, make_draws(args, bench))
    result = leaderboard(draws, level=level)
    table = result.table
    headline = draws.headline
    assert headline is not None  # make_draws sets it
    payload = result.payload()
    payload["notes"] = list(bench.notes) + payload["notes"]
    if emit(args, result, payload):
        return 0
    print(data_header(bench))
    how = method_words(draws.method)
    print(f"{how}, {draws.reps} replicates, seed {draws.seed}, level {level:g}")
    print(f"overall = {headline.label}" + _others(headline.offered, headline.kind))
    legend = (
        f"\n≈ leader: the difference from the group's leader, taken inside each replicate, has a "
        f"{100 * result.leader_test_level:.1f}% interval containing 0 (a "
        f"{100 * (1 - result.leader_test_level):.1f}% test of each model against the leader, "
        f"not family-wise). Non-overlap of two {100 * level:g}% intervals approximates that test "
        "only for independent estimates with similar standard errors; use `benchuq compare` for "
        "simultaneous pairwise intervals."
    )
    add_notes(args, draws.notes)
    for group, rows in table.groupby("group", sort=False):
        print(f"\n[{group}]" + (f" {headline.label}" if group == "overall" else ""))
        shown = rows  # best first, ties by name (core.summaries.leaderboard)
        shown = shown.assign(
            leader=shown["tied_with_leader"].map({True: "≈", False: ""}),
            items=[items_text(n) for n in shown["items"]],
        )
        cols = ["model", "estimate", "low", "high", "mc_error_low", "mc_error_high", "leader"]
        cols += ["items"] if table["few_items"].any() else []  # shown when some are few
        print(
            shown[cols]
            .rename(columns={"leader": "≈ leader"})
            .to_string(index=False, float_format=lambda v: f"{v:.4f}")
        )
    runs = run_table(draws, bench.context.meta, level)
    if runs is not None:
        print(f"\n[per task, as the harness lists it] score with {100 * level:g}% intervals")
        print(runs.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(legend)  # the table's last column explained, under the table
    if table["few_items"].any():
        print(FEW_ITEMS_LEGEND)
    return 0


def _others(offered: tuple[str, ...], kind: str) -> str:
    """`` (also: --overall tasks)`` naming the aggregates not shown."""
    others = [o for o in offered if o != kind]
    return f" (also: {', '.join('--overall ' + o for o in others)})" if others else ""
