"""``benchuq eb``: small-subgroup estimates, direct vs empirical Bayes with robust intervals.

METHODS 7 and EBCI.md. DATA is a benchmark (``core.loaders.resolve``) or a table with columns
``unit, estimate, se`` (detected from its header), which is used as given
(``benchuq.api.subgroups`` reads it).
"""

from __future__ import annotations

import argparse
import sys

from benchuq.cli.common import (
    DATA_HELP,
    FORMATS,
    METRIC_HELP,
    UsageError,
    add_notes,
    add_output_arguments,
    add_verbose_argument,
    check_level,
    emit,
    split_format,
)
from benchuq.core.defaults import SEED

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq eb`` to the subcommands."""
    p = sub.add_parser(
        "eb",
        help="small subgroups: direct vs empirical-Bayes estimates with robust intervals",
        description="Units are (model, subgroup) pairs. Each unit's direct estimate is shrunk "
        "toward a regression fit f by w = A/(A + se^2); robust EB intervals [AKP] have average "
        "coverage --level over units. A table with columns unit, estimate, se is used as "
        "given and shrunk toward the least-squares fit on --features (intercept by default).",
    )
    p.add_argument("data", metavar="DATA", nargs="+", help=DATA_HELP + ", or one CSV table "
                   "with columns unit, estimate, se")  # fmt: skip
    p.add_argument("--format", default="auto", choices=FORMATS, help="input format")
    p.add_argument("--tasks", default=None, help="task table CSV: task, category, n[, chance]")
    p.add_argument("--metric", default=None, help=METRIC_HELP)
    add_verbose_argument(p)
    p.add_argument(
        "--group-by",
        default=None,
        choices=("task", "category", "subgroup"),
        help="what a subgroup is: a task, a task category, or the items' subgroup column "
        "(default: subgroup for item data that has one, else task)",
    )
    p.add_argument(
        "--features",
        nargs="+",
        default=None,
        metavar="F",
        help="regression features: intercept, model, subgroup, category, log_n, or numeric "
        "columns of a unit table (default: intercept model subgroup; intercept for a table)",
    )
    p.add_argument(
        "--level", type=float, default=None, help="average coverage over units (0-1; default 0.95)"
    )
    p.add_argument(
        "--alpha",
        type=float,
        default=None,
        help="deprecated: 1 - average coverage; use --level (--alpha 0.05 is --level 0.95)",
    )
    p.add_argument(
        "--fs-correction",
        default="PMT",
        choices=("PMT", "none", "FPLIB"),
        help="finite-sample correction of A and kappa (EBCI.md 2)",
    )
    p.add_argument(
        "--kappa", default="estimated", help="'estimated' (default), 'inf', or a number >= 1"
    )
    p.add_argument(
        "--weights",
        default="equal",
        choices=("equal", "precision"),
        help="unit weights of the regression f and of the moments A and kappa: equal (R's "
        "default) or precision 1/se^2 (AKP's empirical example)",
    )
    p.add_argument(
        "--crossfit",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fit f on one half of the units to predict the other (default on; --no-crossfit "
        "fits f on all units, as R's ebci does)",
    )
    p.add_argument("--seed", type=int, default=SEED, help="seed of the cross-fitting split")
    add_output_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print direct and EB estimates with robust intervals (or JSON); returns the exit code."""
    from benchuq.api import subgroups

    level = _level(args)
    split_format(args)
    result = subgroups(
        args.data,
        group_by=args.group_by,
        format=args.format,
        tasks=args.tasks,
        metric=args.metric,
        features=args.features,
        level=level,
        fs_correction=args.fs_correction,
        kappa=args.kappa,
        crossfit=args.crossfit,
        unit_weights=args.weights,
        seed=args.seed,
    )
    add_notes(args, result.data_notes)
    res = result.result
    rows = res.rows
    if emit(args, result):
        return 0
    print(
        f"{len(rows)} units ({res.source}); f = WLS on {', '.join(res.features)}"
        f"{' (cross-fitted)' if res.crossfit else ''}; {res.weights} weights; "
        f"{res.fs_correction} correction"
    )
    print(
        f"A (mu2) = {res.mu2:.4g} (uncorrected {res.mu2_raw:.4g}); kappa = {res.kappa:.4g} "
        f"(estimated {res.kappa_estimated:.4g}, uncorrected {res.kappa_raw:.4g})"
    )
    print(
        f"robust EB intervals: {100 * res.level:g}% coverage on average over units "
        "(not for every unit)"
    )
    width = min(max(len(u) for u in rows["unit"]), 60)
    print(
        f"{'unit':<{width}}  {'estimate':>8}  {'se':>7}  {'eb':>8}  {'low':>8}  {'high':>8}  "
        f"{'w':>5}  {'cva':>6}"
    )
    for r in rows.itertuples(index=False):
        print(
            f"{r.unit[:width]:<{width}}  {r.direct:8.4f}  {r.se:7.4f}  {r.eb:8.4f}  {r.low:8.4f}  "
            f"{r.high:8.4f}  {r.w:5.2f}  {r.cva:6.3f}"
        )
    print(EB_LEGEND)
    for note in res.notes:  # caveats of this table (the data's notes go to stderr)
        print(f"note: {note}")
    return 0


#: the table's columns and the two moments above it, in words (EBCI.md, METHODS 9)
EB_LEGEND = (
    "estimate: the unit's own mean; se: its standard error; eb: the empirical-Bayes estimate, "
    "the own mean pulled toward the fit f (w x own + (1 - w) x f); low, high: its robust "
    "interval, eb ± cva x w x se; w: the weight on the unit's own mean (1 = not pulled); cva: "
    "the interval's critical value. A (mu2): how far the units' true means spread around f "
    "(a variance); kappa: how heavy the tails of that spread are (3 for a normal spread)."
)


def _level(args: argparse.Namespace) -> float:
    """``--level``, or ``1 - --alpha`` (the deprecated flag, with a note on stderr)."""
    if args.alpha is None:
        return check_level(0.95 if args.level is None else args.level)
    if args.level is not None:
        raise UsageError("give --level or --alpha, not both (--alpha is deprecated).")
    alpha = check_level(args.alpha, flag="--alpha")
    level = round(1.0 - alpha, 12)
    print(
        f"benchuq eb: note: --alpha is deprecated; use --level {level:g} (= 1 - alpha).",
        file=sys.stderr,
    )
    return level
