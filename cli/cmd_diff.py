"""``benchuq diff``: did it get better? Two runs compared item by item (METHODS 13, issue 27).

``benchuq diff BASE CANDIDATE`` (two data sources, one model each) or ``benchuq diff DATA --base
MODEL --candidate MODEL`` (both runs in one data set). Exit status: 0, 1 when ``--fail-on``'s
gate fails, 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from benchuq.cli.common import (
    FORMATS,
    UsageError,
    add_statistic_argument,
    add_verbose_argument,
    check_level,
    load_benchmark,
    print_json,
)
from benchuq.core.defaults import COMPARISON_LEVEL

if TYPE_CHECKING:
    from benchuq.core.data import Benchmark
    from benchuq.results import DiffResult

__all__ = ["OUTPUTS", "markdown", "register", "run", "text"]

OUTPUTS = ("text", "json", "markdown")
FAIL_ON_HELP = (
    "exit 1 when the overall result (with --per-task: any task's) is: worse: 'worse'; "
    "inferior: not better, equivalent or non-inferior (the strict gate); difference: better or "
    "worse; never: always exit 0 (default). Bad input exits 2."
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq diff`` to the subcommands."""
    p = sub.add_parser(
        "diff",
        help="did it get better? two runs compared item by item",
        description="Candidate minus base, item by item: BASE CANDIDATE (two data sources, one "
        "model each: files, folders, globs, .eval logs, zips, sample:<name>) or DATA --base MODEL "
        "--candidate MODEL. Items are aligned on (task, item id); items in one run only are "
        "counted and left out. Binary scores with one answer per item: exact McNemar; otherwise "
        "the paired bootstrap with items as clusters (a sign-flip randomization test below 30 "
        "items); per-task intervals simultaneous over tasks. Verdicts in this order: better, "
        "worse, equivalent (with --margin), non-inferior, inconclusive.",
    )
    p.add_argument("data", metavar="RUN", nargs="+", help="BASE CANDIDATE, or DATA with --base")
    p.add_argument("--base", default=None, metavar="MODEL", help="the base run's model")
    p.add_argument("--candidate", default=None, metavar="MODEL", help="the candidate's model")
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="interval level (0-1)")
    p.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="margin M >= 0 in the unit the output shows: points for scores between 0 and 1 "
        "(5 = 5 points), else score units; equivalent when the interval is inside (-M, M), "
        "non-inferior when its low end is above -M (JSON keeps score units: margin_unit)",
    )
    p.add_argument("--weights", nargs="+", default=None, metavar="TASK=W", help="task weights "
                   "of the overall score (default: the mean over tasks)")  # fmt: skip
    p.add_argument("--sequential", action="store_true", help="anytime-valid confidence "
                   "sequences: valid however often you re-run it as items arrive")  # fmt: skip
    p.add_argument("--fail-on", default="never", choices=("worse", "inferior", "difference",
                   "never"), help=FAIL_ON_HELP)  # fmt: skip
    p.add_argument("--per-task", action="store_true", help="--fail-on looks at every task too")
    p.add_argument("--format", dest="output", default="text", choices=OUTPUTS, help="output")
    p.add_argument("--json", action="store_true", help="print JSON (as --format json)")
    p.add_argument("--input-format", dest="format", default="auto", choices=FORMATS,
                   help="format of the input files (--format of other commands)")  # fmt: skip
    p.add_argument("--tasks", default=None, help="task table CSV: task, category, n[, chance]")
    p.add_argument("--metric", default=None, help="metric read from lm-eval and HELM files")
    p.add_argument("--reps", type=int, default=2000, help="bootstrap replicates")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    add_statistic_argument(p)
    add_verbose_argument(p)
    p.set_defaults(func=run)


def _load(args: argparse.Namespace, sources: list[str]) -> Benchmark:
    settings = {k: v for k, v in vars(args).items() if k != "data_notes"}
    one = argparse.Namespace(**{**settings, "data": sources})
    bench = load_benchmark(one)
    # each run of a diff is one model by design: the loader's "only one model" note misleads
    notes = [n for n in getattr(one, "data_notes", ()) if not n.startswith("only one model")]
    args.data_notes = (*getattr(args, "data_notes", ()), *notes)
    return bench


def _weights(items: list[str] | None) -> dict[str, float] | None:
    if items is None:
        return None
    out = {}
    for item in items:
        task, sep, value = item.rpartition("=")
        try:
            out[task] = float(value)
        except ValueError:
            sep = ""
        if not sep or not task:
            raise UsageError(f"--weights {item!r}: write TASK=WEIGHT, e.g. mmlu=2.")
    return out


def run(args: argparse.Namespace) -> int:
    """Compare the two runs; print text, JSON or markdown; returns the exit code."""
    from benchuq.api import diff

    level = check_level(args.level)
    one_set = args.base is not None and args.candidate is not None
    if not one_set and len(args.data) != 2:
        raise UsageError(
            f"give BASE and CANDIDATE (two runs; got {len(args.data)}), or one DATA with "
            "--base MODEL --candidate MODEL."
        )
    options = {
        "level": level,
        "margin": args.margin,
        "task_weights": _weights(args.weights),
        "sequential": args.sequential,
        "fail_on": args.fail_on,
        "per_task": args.per_task,
        "reps": args.reps,
        "seed": args.seed,
    }
    if one_set:
        runs = diff(
            _load(args, args.data),
            base_model=args.base,
            candidate_model=args.candidate,
            **options,
        )
    else:
        runs = diff(
            _load(args, [args.data[0]]),
            _load(args, [args.data[1]]),
            base_model=args.base,
            candidate_model=args.candidate,
            **options,
        )
    code = runs.exit_code()
    output = "json" if args.json else args.output
    if output == "json":
        print_json(runs.payload())
    elif output == "markdown":
        sys.stdout.write(markdown(runs))
    else:
        sys.stdout.write(text(runs))
    return code


def _num(x: float, points: bool) -> str:
    return f"{100 * x:+.1f}" if points else f"{x:+.4g}"


def _score(x: float, points: bool) -> str:
    return f"{100 * x:.1f}" if points else f"{x:.4g}"


def _p(r: Any) -> str:
    """The p-value, or ``≤ floor`` where the method cannot resolve a smaller one."""
    return (
        f"≤{r.p_resolution:.2g}" if r.p_value <= r.p_resolution * (1 + 1e-9) else f"{r.p_value:.2g}"
    )


def text(runs: DiffResult) -> str:
    """The plain-text report: header, table, verdicts in words, errors side by side."""
    import pandas as pd

    result = runs.result
    pts = result.points
    margin = f"{(100 if pts else 1) * result.margin:g}"
    unit = "points" if pts else "score units"
    unit = unit.removesuffix("s") if margin == "1" else unit  # "1 point", "1 score unit"
    lines = [
        f"candidate {result.candidate} − base {result.base}; {result.level:.1%} intervals; "
        f"margin {margin} {unit}",
        result.note(),
        "",
    ]
    table = pd.DataFrame(
        {
            "task": [r.task for r in result.rows],
            "base": [_score(r.base_score, pts) for r in result.rows],
            "candidate": [_score(r.candidate_score, pts) for r in result.rows],
            "difference": [_num(r.difference, pts) for r in result.rows],
            "interval": [f"[{_num(r.low, pts)}, {_num(r.high, pts)}]" for r in result.rows],
            "p": [_p(r) for r in result.rows],
            "verdict": [r.label for r in result.rows],
            "paired": [r.n_paired for r in result.rows],
            "base only": [r.n_base_only for r in result.rows],
            "cand. only": [r.n_candidate_only for r in result.rows],
        }
    )
    lines += [table.to_string(index=False), ""]
    lines += [f"{r.task}: {r.sentence}" for r in result.rows]
    errors = pd.DataFrame(
        {
            "task": [r.task for r in result.rows],
            "base naive": [r.base_se_naive for r in result.rows],
            "base clustered": [r.base_se_clustered for r in result.rows],
            "cand. naive": [r.candidate_se_naive for r in result.rows],
            "cand. clustered": [r.candidate_se_clustered for r in result.rows],
            "diff naive": [r.se_naive for r in result.rows],
            "diff unpaired": [r.se_unpaired for r in result.rows],
            "diff paired": [r.se_paired for r in result.rows],
            "design effect": [r.design_effect for r in result.rows],
        }
    )
    scale = 100 if pts else 1
    shown = errors.assign(**{c: errors[c] * scale for c in errors.columns[1:-1]})
    lines += [
        "",
        f"standard errors ({unit}): naive = every answer independent (a harness's stderr); "
        "clustered = items as clusters; paired = the difference item by item; design effect = "
        "(paired / naive)^2",
        shown.to_string(index=False, float_format=lambda v: f"{v:.3g}"),
        "",
    ]
    return "\n".join(lines)


def markdown(runs: DiffResult) -> str:
    """A short markdown table for a CI job summary or a pull-request comment."""
    from benchuq.presentation.text import md_cell

    result = runs.result
    pts = result.points
    head = (
        f"**{md_cell(result.candidate)}** vs base **{md_cell(result.base)}**: "
        f"{result.overall.label} ({100 * result.level:g}% intervals"
        + (f", margin {(100 if pts else 1) * result.margin:g}" if result.margin else "")
        + (", points" if pts else "")
        + ")\n\n"
    )
    rows = [
        "| task | base | candidate | difference | interval | p | verdict | paired | base only "
        "| candidate only |",
        "|---|---:|---:|---:|---|---:|---|---:|---:|---:|",
    ]
    for r in result.rows:
        rows.append(
            f"| {md_cell(r.task)} | {_score(r.base_score, pts)} | "
            f"{_score(r.candidate_score, pts)} | {_num(r.difference, pts)} | "
            f"[{_num(r.low, pts)}, {_num(r.high, pts)}] | {_p(r)} | {r.label} | "
            f"{r.n_paired} | {r.n_base_only} | {r.n_candidate_only} |"
        )
    return head + "\n".join(rows) + "\n\n" + md_cell(result.note()) + "\n"
