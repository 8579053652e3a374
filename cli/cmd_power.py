"""``benchuq power``: the smallest difference each pair can detect now, and the items needed.

From data (METHODS 10): per-item variances and between-model covariances of paired item scores
(clusters give the design effect), or binomial variances of task counts with an assumed
correlation (``--corr``, default 0). Without data: ``--accuracy`` per model, ``--corr``,
``--items`` per task, ``--n-tasks``, ``--cluster-size`` and ``--icc``; ``--sd`` for continuous
scores. The family of comparisons is every pair of the models (``--pairs all``) or ``K``.
"""

from __future__ import annotations

import argparse
import sys

from benchuq.cli.common import (
    UsageError,
    add_data_arguments,
    add_output_arguments,
    check_level,
    emit,
    load_benchmark,
)
from benchuq.core.data import Benchmark
from benchuq.core.defaults import COMPARISON_LEVEL, POWER, POWER_CORRECTIONS
from benchuq.core.validation import check_power

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
    p.add_argument("--power", type=float, default=POWER, help=f"power (0.5-1, default {POWER:g})")
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
        choices=tuple(POWER_CORRECTIONS),
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
    g.add_argument(
        "--accuracy",
        type=float,
        nargs="+",
        default=None,
        metavar="P",
        help="assumed accuracies, one per model, as fractions (0.7 0.72), instead of DATA",
    )
    g.add_argument("--items", type=int, default=None, help="items per task")
    g.add_argument("--n-tasks", type=int, default=1, help="tasks of --items items each (1)")
    g.add_argument("--cluster-size", type=float, default=1.0, help="items per cluster (1)")
    g.add_argument("--icc", type=float, default=0.0, help="within-cluster correlation (0)")
    g.add_argument("--sd", type=float, nargs="+", default=None, help="per-item SD (continuous)")
    a = p.add_argument_group(
        "more items or more answers per item (METHODS 10b; with DATA of right/wrong items)"
    )
    a.add_argument(
        "--budget",
        type=int,
        default=None,
        help="answers per model and task to spend: prints, per answers per item, the items "
        "bought and the interval half-width of the --statistic (mean, pass@K, pass^K)",
    )
    a.add_argument(
        "--pool",
        default="data",
        metavar="N|data|none",
        help="items there are per task: the data's own (default), a number, or none (new items "
        "can be written)",
    )
    a.add_argument("--item-cost", type=float, default=0.0, help="a new item's cost in answers")
    add_output_arguments(p)
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


def _data(args: argparse.Namespace) -> Benchmark | None:
    """The benchmark DATA names (``None``: planning from ``--accuracy``), after the flag checks
    that name flags."""
    if args.accuracy is not None:
        if args.data is not None:
            raise UsageError("give DATA or --accuracy (planning without data), not both.")
        if args.items is None:
            raise UsageError("--accuracy needs --items (items per task).")
        return None
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
    return bench


def run(args: argparse.Namespace) -> int:
    """Print the items needed and the MDE per pair (or JSON, CSV, Parquet); returns the exit
    code."""
    from benchuq.api import power

    if args.budget is not None:
        return _answers(args)
    level = check_level(args.level)
    check_power(args.power, name="--power")
    family = _family(args.pairs)
    bench = _data(args)
    if (
        args.delta is not None
        and args.delta >= 1
        and (bench is None or bench.kind != "estimate_se")
    ):
        raise UsageError(f"--delta {args.delta} is a proportion: write 0.01 for 1 point.")
    result = power(
        bench,
        models=args.models,
        delta=args.delta,
        power=args.power,
        level=level,
        pairs=family,
        correction=args.correction,
        group=args.group,
        rho=args.corr,
        accuracy=args.accuracy,
        items=args.items,
        tasks=args.n_tasks,
        cluster_size=args.cluster_size,
        icc=args.icc,
        sd=args.sd,
    )
    if emit(args, result):
        return 0
    plan, design = result.plan, result.design
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"{design.name}: {design.source}; score: {_score_words(design.group)}; "
        f"{100 * level:g}% family-wise "
        f"level, {result.correction_name} over {plan.family} comparison(s) "
        f"(a difference must reach {plan.critical:.3f} standard errors); "
        f"{100 * args.power:g}% power; differences in {result.unit}"
    )
    for sentence in result.sentences():
        print(f"- {sentence}")
    return 0


def _score_words(group: str) -> str:
    """The compared score with its aggregate named: ``overall = the mean over tasks`` (not the
    leaderboard's mean over lm-eval benchmarks), ``natural = the mean of its tasks``."""
    if group == "overall":
        return "overall = the mean over tasks"
    if group.startswith("weighted "):
        return group + " (category weights; each category the mean of its tasks)"
    return f"{group} = the mean of its tasks"


def _answers(args: argparse.Namespace) -> int:
    """``--budget``: more items or more answers per item (``bq.answers_plan``)."""
    from benchuq.api import answers_plan

    if args.data is None:
        raise UsageError("--budget plans from DATA: give item-level data with their answers.")
    level = check_level(args.level)
    pool: int | None
    if args.pool == "data":
        pool = -1
    elif args.pool == "none":
        pool = None
    else:
        try:
            pool = int(args.pool)
        except ValueError:
            raise UsageError(
                f"--pool {args.pool!r}: a number of items, 'data' or 'none'."
            ) from None
    bench = load_benchmark(argparse.Namespace(**{**vars(args), "statistic": "mean"}))
    result = answers_plan(
        bench,
        statistic=args.statistic,
        budget=args.budget,
        level=level,
        pool=pool,
        item_cost=args.item_cost,
    )
    if emit(args, result):
        return 0
    print(result.plan.sentence())
    table = result.to_frame()[["answers", "items", "within", "se", "half_width"]]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0
