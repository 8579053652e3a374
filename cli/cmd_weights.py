"""``benchuq weights``: who leads where on the task-weight simplex, and is it real (METHODS 5).

Variances: the analytic formula under independence for counts and estimate/se data (rho is the
assumed between-model correlation); for item-level data the SE of each difference is read from
paired bootstrap draws and the implied rho reported (``--assume-rho`` uses the assumption
instead). ``--normalize`` reads variances from min-max normalized draws (METHODS 3).
"""

from __future__ import annotations

import argparse

import numpy as np

from benchuq.cli.common import (
    UsageError,
    add_data_arguments,
    add_method_arguments,
    add_output_arguments,
    emit,
    load_benchmark,
    make_draws,
)
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.core.validation import parse_weights
from benchuq.results import WeightsResult

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq weights`` to the subcommands."""
    p = sub.add_parser(
        "weights",
        help="which model leads at each task weighting, with the SE rule",
        description="Leader, runner-up and the SE rule S_A - S_B >= z * SE_AB at every point of "
        "the category-weight simplex (Longjohn, Gopalan & Casleton 2024). A point whose lead is "
        "smaller than z standard errors has winner null (indeterminate). Scores are proportions.",
    )
    add_data_arguments(p)
    add_method_arguments(p)
    p.add_argument("--at", default=None, metavar="W1,W2,W3", help="report this one weight vector")
    p.add_argument(
        "--categories",
        default=None,
        metavar="C1,C2,C3",
        help="the 2 or 3 categories to weight (others get weight 0)",
    )
    p.add_argument(
        "--merge",
        default=None,
        metavar="CAT=GROUP,...",
        help="merge categories into 2 or 3 groups, e.g. 'STEM=STEM,humanities=rest,other=rest'",
    )
    p.add_argument("--z", type=float, default=2.0, help="SE multiplier (2: about 95%%)")
    p.add_argument("--rho", type=float, default=0.0, help="assumed between-model correlation")
    p.add_argument("--resolution", type=int, default=100, help="grid steps per side (100)")
    p.add_argument(
        "--normalize", action="store_true", help="min-max normalize each task (METHODS 3)"
    )
    p.add_argument(
        "--assume-rho",
        action="store_true",
        help="use --rho even when paired draws could give the correlation",
    )
    add_output_arguments(p)
    p.set_defaults(func=run)


def _choice(
    args: argparse.Namespace, bench: Benchmark
) -> tuple[list[str] | None, dict[str, str] | None]:
    """``--categories`` and ``--merge`` as the API's ``categories`` and ``merge``."""
    if args.categories and args.merge:
        raise UsageError("use --categories or --merge, not both.")
    cats = bench.category_names
    if len(cats) > 3 and not (args.categories or args.merge):
        raise UsageError(
            f"the data has {len(cats)} categories ({', '.join(cats)}); a map shows 2 or 3. "
            "Pick them with --categories C1,C2,C3 (the others get weight 0) or merge them with "
            "--merge CAT=GROUP,..."
        )
    pick = None if args.categories is None else [c.strip() for c in args.categories.split(",")]
    merge = None
    if args.merge is not None:
        merge = {}
        for part in args.merge.split(","):
            cat, sep, group = part.partition("=")
            if not sep or not cat.strip() or not group.strip():
                raise UsageError(f"--merge: {part!r} is not CATEGORY=GROUP.")
            merge[cat.strip()] = group.strip()
    return pick, merge


def _source(args: argparse.Namespace, bench: Benchmark) -> Benchmark | Draws:
    """What the variances come from: draws (normalized metric, paired item data, or the
    Bayesian posterior, whose means and variances are the posterior's), else the data."""
    if args.normalize:
        from benchuq.api import normalize

        return normalize(make_draws(args, bench), mode="minmax", chance=bench.chance)
    if args.method == "bayes" or (bench.kind == "items" and not args.assume_rho):
        return make_draws(args, bench)
    return bench


def run(args: argparse.Namespace) -> int:
    """Print the task-weight map summary (or JSON, CSV, Parquet); returns the exit code."""
    from benchuq.api import weights

    bench = load_benchmark(args)
    pick, merge = _choice(args, bench)
    at = None
    if args.at is not None:
        n = len(pick) if pick else len(set(merge.values())) if merge else len(bench.category_names)
        at = parse_weights(args.at, n)
    result = weights(
        _source(args, bench),
        categories=pick,
        merge=merge,
        at=at,
        z=args.z,
        rho=args.rho,
        resolution=args.resolution,
        use_pairing=not args.assume_rho,
    )
    payload = result.payload()
    payload["data"] = bench.name
    if emit(args, result, payload):
        return 0
    _print_table(result, bench, at is not None, bayes=args.method == "bayes")
    return 0


def _print_table(
    result: WeightsResult, bench: Benchmark, single: bool, bayes: bool = False
) -> None:
    dm = result.map
    cats = ", ".join(dm.categories)
    if bayes:  # the hierarchical model makes models independent: rho is not measured
        rho = (
            "rho assumed 0 by the Bayesian model (models are independent in it; the replicates' "
            f"correlation, median {np.nanmedian(dm.rho):.2f}, is sampling noise)"
        )
    elif dm.rho_source == "paired draws":
        rho = f"rho read from the paired replicates (median {np.nanmedian(dm.rho):.2f})"
    else:
        rho = f"rho = {dm.rho[0]:g} assumed"
    print(f"{bench.name}: weights over {cats}")
    print(f"SE rule S_A - S_B >= z * SE_AB with z = {dm.z:g} (level {dm.level:.3f}), {rho}")
    print(f"variances: {dm.source}")
    if single:
        w = ", ".join(f"{c}={x:.3f}" for c, x in zip(dm.categories, dm.weights[0], strict=True))
        print(f"\nat {w}:")
        print(f"  leader      {dm.name(dm.leader[0])}")
        print(f"  runner-up   {dm.name(dm.runner_up[0])}")
        print(f"  difference  {dm.difference[0]:.4f} (SE {dm.se[0]:.4f})")
        print(f"  winner      {dm.name(dm.winner[0]) or 'indeterminate (lead < z * SE)'}")
        return
    print(f"\nshare of the {len(dm.weights)} grid points each model wins:")
    width = max(len(m) for m in (*dm.models, "indeterminate"))
    for model, share in dm.shares().items():
        print(f"  {model or 'indeterminate':<{width}}  {100 * share:6.1f}%")
