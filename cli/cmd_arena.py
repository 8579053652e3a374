"""``benchuq arena``: Bradley-Terry ratings of pairwise battles on the Elo scale (METHODS 8b)."""

from __future__ import annotations

import argparse

from benchuq.cli.common import (
    add_notes,
    add_output_arguments,
    add_verbose_argument,
    check_level,
    emit,
)
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.validation import check_reps

__all__ = ["METHOD_LABELS", "register", "run"]

METHOD_LABELS = {
    "sandwich": "sandwich (robust)",
    "bootstrap": "bootstrap",
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq arena`` to the subcommands."""
    p = sub.add_parser(
        "arena",
        help="arena ratings from pairwise battles (model_a, model_b, winner)",
        description="Bradley-Terry ratings of pairwise battles (Chatbot Arena, MT-Bench pairwise, "
        "Arena-Hard, preference data) on the Elo scale (400, base 10, 1000 = the mean or "
        "--anchor), with sandwich or bootstrap intervals, rank (UB), simultaneous rank sets and "
        "style control. DATA: CSV, JSONL or Parquet battles tables, AlpacaEval annotations "
        "(battles against the baseline), sample:mt_bench_battles (1,751 human judgments of "
        "MT-Bench answer pairs), sample:alpaca_eval, or published battles (shared:<id>, from "
        "benchuq publish).",
    )
    p.add_argument("data", metavar="DATA", nargs="+", help="battles files, folders, zips, globs")
    p.add_argument("--anchor", default=None, metavar="MODEL", help="model fixed at 1000")
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="interval level (0-1)")
    p.add_argument(
        "--ties",
        default="half",
        choices=("half", "davidson"),
        help="half: a tie is half a win (LMArena); davidson: Davidson's tie model",
    )
    p.add_argument(
        "--interval",
        default="sandwich",
        choices=("sandwich", "bootstrap"),
        help="sandwich: robust (clustered by prompt or judge when present); bootstrap: resample "
        "battles (or clusters)",
    )
    p.add_argument(
        "--control",
        nargs="+",
        default=(),
        metavar="COL",
        help="style control: numeric columns (COL, or COL_a and COL_b) as battle covariates",
    )
    p.add_argument(
        "--cluster",
        default="auto",
        choices=("auto", "prompt", "judge", "none"),
        help="what battles are clustered by (auto: prompt, else judge, when present)",
    )
    p.add_argument(
        "--both-bad",
        default="tie",
        choices=("tie", "drop"),
        help="'both bad' ties: count as ties (default) or drop",
    )
    p.add_argument("--reps", type=int, default=1000, help="bootstrap replicates")
    p.add_argument("--seed", type=int, default=0, help="seed (bootstrap and rank-set draws)")
    add_output_arguments(p)
    add_verbose_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the arena leaderboard (or JSON); returns the exit code."""
    from benchuq.api import arena, load_battles
    from benchuq.presentation.report_arena import RANK_WORDS

    level = check_level(args.level)
    if args.interval == "bootstrap":  # before the battles are read
        check_reps(args.reps, least=100, typical=1000, name="--reps")
    result = arena(
        load_battles(args.data),
        anchor=args.anchor,
        level=level,
        ties=args.ties,
        interval=args.interval,
        control=args.control,
        cluster=args.cluster,
        both_bad=args.both_bad,
        reps=args.reps,
        seed=args.seed,
    )
    res = result.result
    rows = res.table().to_dict(orient="records")
    if emit(args, result):
        add_notes(args, res.notes)
        return 0
    anchor = f"{res.anchor} = 1000" if res.anchor else "mean = 1000"
    clustered = f", clustered by {res.cluster}" if res.cluster else ""
    print(f"{res.name}: {len(res.models)} models, {res.n_battles:,} battles")
    print(
        f"Bradley-Terry ratings (Elo scale 400, {anchor}; ties {res.ties}), "
        f"{METHOD_LABELS[res.method]} intervals at level {level:g}{clustered}"
    )
    width = max(5, *(len(m) for m in res.models))
    plain = res.uncontrolled
    head = f"{'model':<{width}}  {'rating':>7}  {'low':>7}  {'high':>7}      rank  rank set"
    print(head + "  battles  win rate" + ("  uncontrolled" if plain is not None else ""))
    for r in rows:
        line = (
            f"{r['model']:<{width}}  {r['rating']:7.0f}  {r['low']:7.0f}  {r['high']:7.0f}  "
            f"{r['rank_ub']:8d}  {r['rank_low']:>3d}-{r['rank_high']:<4d}  {r['battles']:7d}  "
            f"{r['win_rate']:8.3f}"
        )
        if plain is not None:
            line += f"  {plain.rating[plain.models.index(r['model'])]:12.0f}"
        print(line)
    print(RANK_WORDS)
    print()
    print(res.sentence())
    if res.controls:
        for c, v, s in zip(res.controls, res.coefficients, res.coefficient_se, strict=True):
            print(f"style control {c}: {v:+.1f} Elo points per standard deviation (se {s:.1f})")
    add_notes(args, res.notes)
    return 0
