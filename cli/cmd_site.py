"""``benchuq site``: a static leaderboard site anyone can host (issue 44;
``presentation.site`` lays it out, docs/METHODS.md 4b-4c)."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from benchuq.cli.common import (
    UsageError,
    add_leaderboard_arguments,
    add_notes,
    check_level,
    data_header,
    load_benchmark,
    make_draws,
    maybe_normalize,
)
from benchuq.core.defaults import LEVEL

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq site`` to the subcommands."""
    p = sub.add_parser(
        "site",
        help="a static leaderboard site anyone can host (GitHub Pages, a static Space)",
        description="Write a static site into DIR: index.html (the leaderboard with intervals, "
        "rank ranges and tiers, per category and per task, sortable and searchable; it makes no "
        "network request and works from file:// or any static host), leaderboard.json (the "
        "`benchuq leaderboard --json` payload with tier, rank_low and rank_high on each row), "
        "leaderboard.csv, every_eval_ever.zip and badges/<model>.svg. The same data and "
        "settings give byte-identical files.",
    )
    add_leaderboard_arguments(p, level=LEVEL)
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write into")
    p.add_argument("--title", default=None, help="the page's title (default: the data's name)")
    p.add_argument(
        "--by",
        default="overall",
        choices=("overall", "category"),
        help="which leaderboards come first: overall (default) or per category",
    )
    p.add_argument(
        "--date",
        default=None,
        metavar="YYYY-MM-DD",
        help="the date shown (default: SOURCE_DATE_EPOCH if set, else the newest date the "
        "data's file names carry, else none); never the clock, so rebuilds are identical",
    )
    p.set_defaults(func=run)


def _command(args: argparse.Namespace, level: float) -> str:
    """The command that rebuilds the site (without ``-o``: the folder does not change it)."""
    parts = ["benchuq", "site", *args.data, "--level", f"{level:g}", "--by", args.by]
    if args.title:
        parts += ["--title", args.title]
    if args.method != "bootstrap":
        parts += ["--method", args.method]
    if args.reps != 2000 or args.seed != 0:
        parts += ["--reps", str(args.reps), "--seed", str(args.seed)]
    if args.normalize:
        parts += ["--normalize", "--normalize-mode", args.normalize_mode]
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    """Write the site; returns the exit code."""
    from benchuq.presentation.site import build_site, site_date

    level = check_level(args.level)
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {args.output}: a file of that name exists; give a folder.")
    date = site_date(args.date, os.environ)
    bench = load_benchmark(args)
    draws = maybe_normalize(args, bench, make_draws(args, bench))
    site = build_site(
        bench,
        draws,
        level=level,
        title=args.title,
        by=args.by,
        date=date,
        meta=bench.context.meta,
        command=_command(args, level),
    )
    paths = site.write(out)
    add_notes(args, draws.notes)
    print(
        f"{data_header(bench)} -> {out / 'index.html'} ({len(paths)} files, "
        f"{site.size // 1024} KB; {len(bench.models)} badges in {out / 'badges'})"
    )
    return 0
