"""``benchuq export``: results with benchuq's uncertainty in Every Eval Ever format.

``benchuq export DATA --format eee -o DIR`` writes per model an Every Eval Ever (schema 0.3.0)
aggregate JSON with ``score_details.uncertainty`` filled from benchuq's draws, and for item-level
data the instance-level ``<uuid>_samples.jsonl`` (``core.export_eee``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchuq.cli.common import (
    METHOD_HELP,
    UsageError,
    add_bayes_arguments,
    add_data_arguments,
    add_notes,
    check_level,
    data_header,
    load_benchmark,
    make_draws,
    print_json,
)
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import method_words

__all__ = ["EXPORT_FORMATS", "register", "run"]

EXPORT_FORMATS = ("eee",)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq export`` to the subcommands."""
    p = sub.add_parser(
        "export",
        help="write results with intervals in Every Eval Ever format",
        description="Write the data with benchuq's uncertainty in an interchange format. eee: "
        "Every Eval Ever (schema 0.3.0), one aggregate JSON per model under "
        "DIR/data/<data set>/<developer>/<model>/, with score_details.uncertainty (standard "
        "error = standard deviation of the draws, percentile confidence interval at --level, "
        "number of items and of bootstrap replicates), and the instance-level "
        "<uuid>_samples.jsonl when the data has items.",
    )
    add_data_arguments(p, format_flag="--input-format")
    p.add_argument(
        "--format",
        dest="export_format",
        default="eee",
        choices=EXPORT_FORMATS,
        help="output format (eee: Every Eval Ever)",
    )
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write into")
    p.add_argument("--level", type=float, default=COMPARISON_LEVEL, help="confidence level (0-1)")
    p.add_argument(
        "--method", default="bootstrap", choices=("bootstrap", "bayes"), help=METHOD_HELP
    )
    p.add_argument("--reps", type=int, default=2000, help="bootstrap replicates")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    add_bayes_arguments(p)
    p.add_argument(
        "--timestamp",
        default=None,
        help="retrieved_timestamp to write (Unix time; default: now)",
    )
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the export; prints the files written (or JSON); returns the exit code."""
    from dataclasses import replace

    from benchuq.api import export
    from benchuq.core.data import Context
    from benchuq.core.reading.loaders import read_data

    level = check_level(args.level)
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {args.output}: a file of that name exists; give a folder.")
    if any(d.startswith("shared:") for d in args.data):
        bench = load_benchmark(args)
    else:  # the loader's own name (the files' EEE source name), not the CLI's display name
        loaded = read_data(
            args.data, format=args.format, tasks=args.tasks, metric=args.metric, runs=args.runs
        )
        bench = replace(loaded.bench, context=Context(meta=loaded.meta))
        add_notes(args, bench.notes)
    draws = make_draws(args, bench).with_headline(None)  # the export's overall: mean over tasks
    written = export(bench, out, draws=draws, level=level, timestamp=args.timestamp)
    paths = tuple(out / rel for rel, _ in written.files)
    if args.json:
        print_json(
            {
                "format": args.export_format,
                "method": draws.method,
                "level": level,
                "reps": draws.reps,
                "seed": draws.seed,
                "aggregates": written.aggregates,
                "instances": written.instances,
                "files": [str(p) for p in paths],
                "notes": list(bench.notes) + list(draws.notes),
            }
        )
        return 0
    print(
        f"{data_header(bench)} -> "
        f"{written.aggregates} Every Eval Ever aggregate files"
        + (f" and {written.instances} instance-level files" if written.instances else "")
        + f" in {out}"
    )
    how = method_words(draws.method)
    print(f"{how}, {draws.reps} replicates, seed {draws.seed}, level {level:g}")
    for p in paths:
        print(f"  {p}")
    add_notes(args, draws.notes)
    sys.stdout.flush()
    return 0
