"""``benchuq power``: the smallest difference each pair can detect now, and the items needed.

From data (METHODS 10): per-item variances and between-model covariances of paired item scores
(clusters give the design effect), or binomial variances of task counts with an assumed
correlation (``--corr``, default 0). Without data: ``--accuracy`` per model, ``--corr``,
``--items`` per task, ``--n-tasks``, ``--cluster-size`` and ``--icc``; ``--sd`` for continuous
scores. The family of comparisons is every pair of the models (``--pairs all``) or ``K``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from typing import Any

import numpy as np

from benchuq.cli.common import (
    UsageError,
    add_data_arguments,
    check_level,
    load_benchmark,
    print_json,
)
from benchuq.core.analyses import power as pw
from benchuq.core.defaults import COMPARISON_LEVEL

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq power`` to the subcommands."""
    p = sub.add_parser(
        "power",
        help="minimum detectable difference and items needed per pair of models",
        description="For each pair of models: the minimum difference detectable now at the "
        "family-wise level and power, and with --delta the items needed to detect it (METHODS "
        "10, Miller 2024). Differences are proportions (0.01 = 1 point). Without DATA, plan a "
        "new benchmark from --accuracy and --items.",
    )
    add_data_arguments(p, optional=True)
    p.add_argument("--models", nargs="+", default=None, metavar="MODEL", help="default: all")
    p.add_argument("--delta", type=float, default=None, help="difference to detect (0.01 = 1 pt)")
    p.add_argument("--power", type=float, default=0.8, help="power (0.5-1, default 0.8)")
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="family-wise level (0-1)")
    p.add_argument(
        "--pairs",
        default="all",
        metavar="all|K",
        help="comparisons in the family: all pairs of the models (default) or a number K",
    )
    p.add_argument(
        "--correction",
        default="maxt",
        choices=tuple(pw.CORRECTIONS),
        help="critical value for the family: max-T (simultaneous, default), Bonferroni, none",
    )
    p.add_argument("--group", default="overall", help="score: overall or a category name")
    p.add_argument(
        "--corr",
        type=float,
        default=None,
        help="correlation between two models' item scores: assumed for counts (default 0) and "
        "without data; item-level data give their own",
    )
    g = p.add_argument_group("without data (planning a new benchmark)")
    g.add_argument("--accuracy", type=float, nargs="+", default=None, metavar="P")
    g.add_argument("--items", type=int, default=None, help="items per task")
    g.add_argument("--n-tasks", type=int, default=1, help="tasks of --items items each (1)")
    g.add_argument("--cluster-size", type=float, default=1.0, help="items per cluster (1)")
    g.add_argument("--icc", type=float, default=0.0, help="within-cluster correlation (0)")
    g.add_argument("--sd", type=float, nargs="+", default=None, help="per-item SD (continuous)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _family(raw: str) -> int | None:
    if raw == "all":
        return None
    try:
        k = int(raw)
    except ValueError:
        k = 0
    if k < 1:
        raise UsageError(f"--pairs {raw!r}: use 'all' or a whole number of comparisons >= 1.")
    return k


def _whole(x: float) -> int | None:
    return int(x) if np.isfinite(x) else None


def _design(args: argparse.Namespace) -> tuple[pw.Design, list[str]]:
    """The design from DATA or from the no-data flags, and notes for the reader."""
    notes: list[str] = []
    if args.accuracy is not None:
        if args.data is not None:
            raise UsageError("give DATA or --accuracy (planning without data), not both.")
        if args.items is None:
            raise UsageError("--accuracy needs --items (items per task).")
        return pw.design_from_assumptions(
            args.accuracy,
            args.items,
            corr=0.0 if args.corr is None else args.corr,
            cluster_size=args.cluster_size,
            icc=args.icc,
            tasks=args.n_tasks,
            sd=args.sd,
            models=args.models,
        ), notes
    if args.data is None:
        raise UsageError("give DATA (a file, folder or sample:<name>), or --accuracy and --items.")
    if args.cluster_size != 1 or args.icc != 0 or args.sd is not None or args.items is not None:
        raise UsageError(
            "--items, --cluster-size, --icc and --sd are for planning without data; with DATA "
            "the sizes, variances and clusters come from the data."
        )
    bench = load_benchmark(args)
    models = list(dict.fromkeys(args.models)) if args.models else None
    unknown = [m for m in models or () if m not in bench.models]
    if unknown or (models is not None and len(models) < 2):
        raise UsageError(
            f"--models: give two or more of the data's models ({', '.join(bench.models)})"
            + (f"; not in the data: {unknown}." if unknown else ".")
        )
    if bench.kind == "items" and args.corr is not None:
        notes.append("--corr is not used: paired item scores give the correlation.")
    rho = 0.0 if args.corr is None else args.corr
    return pw.design_from_benchmark(bench, models=models, group=args.group, rho=rho), notes


def run(args: argparse.Namespace) -> int:
    """Print the items needed and the MDE per pair (or JSON); returns the exit code."""
    level = check_level(args.level)
    if not 0.5 <= args.power < 1:
        raise UsageError(f"--power {args.power} must be from 0.5 to below 1 (e.g. 0.8).")
    family = _family(args.pairs)
    design, notes = _design(args)
    scale, unit = pw.display_scale(design)
    if args.delta is not None and scale == 100 and args.delta >= 1:
        raise UsageError(f"--delta {args.delta} is a proportion: write 0.01 for 1 point.")
    pairs = list(itertools.combinations(design.models, 2))
    asked = args.delta is not None or design.name == pw.ASSUMPTIONS
    delta: Any = args.delta
    if args.delta is None and design.name == pw.ASSUMPTIONS:
        delta = pw.assumed_differences(design, pairs)
    result = pw.plan(
        design,
        pairs=pairs,
        level=level,
        power=args.power,
        delta=delta,
        family=family,
        correction=args.correction,
    )
    notes += list(design.notes)
    rows = []
    for k in range(len(result.a)):
        row: dict[str, Any] = {
            "a": result.a[k],
            "b": result.b[k],
            "n": design.n,
            "mde": result.mde[k],
            "estimate": result.estimate[k],
            "se": result.se[k],
            "deff": result.deff[k],
            "icc": result.icc[k],
            "rho": result.rho[k],
        }
        if asked:
            row |= {
                "delta": result.delta[k],
                "n_required": _whole(result.n_required[k]),
                "factor_required": result.factor_required[k],
                "power_now": result.power_now[k],
            }
        row["sentence"] = result.sentence(k, scale=scale, unit=unit)
        rows.append(row)
    if args.json:
        print_json(
            {
                "data": design.name,
                "source": design.source,
                "group": design.group,
                "level": level,
                "power": args.power,
                "pairs": result.family,
                "correction": args.correction,
                "critical_value": result.critical,
                "delta": args.delta,
                "items": design.n,
                "rho_assumed": design.rho,
                "rows": rows,
                "notes": notes,
            }
        )
        return 0
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"{design.name}: {design.source}; score {design.group}; {100 * level:g}% family-wise "
        f"level, {pw.CORRECTIONS[args.correction]} over {result.family} comparison(s) "
        f"(c = {result.critical:.3f}); {100 * args.power:g}% power; differences in {unit}"
    )
    for row in rows:
        print(f"- {row['sentence']}")
    return 0
