"""Entry point of ``benchuq``: one subcommand module per analysis, errors to stderr, exit code 2.

Error policy: a bad file or data (:class:`~benchuq.core.data.DataError`), a bad argument to a
core function (:class:`~benchuq.core.validation.InvalidArgument`) and a bad flag found after
parsing (:class:`~benchuq.cli.common.UsageError`) print ``benchuq COMMAND: error: ...`` and exit
with code 2. Nothing else is caught: any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from benchuq.cli.common import UsageError, VisibleText, check_caps, print_notes
from benchuq.core.data import DataError
from benchuq.core.validation import InvalidArgument

__all__ = ["UsageError", "build_parser", "main"]

# Each module exposes ``register(subparsers)`` and sets ``func`` on its parser.
SUBCOMMANDS: tuple[str, ...] = (
    "leaderboard",
    "compare",
    "ranks",
    "epp",
    "weights",
    "bayes",
    "eb",
    "embeddings",
    "power",
    "app",
    "report",
    "publish",  # registers publish and unpublish
    "export",
)


def build_parser() -> argparse.ArgumentParser:
    """The ``benchuq`` parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="benchuq",
        description="Honest leaderboards: intervals, differences and ranks from benchmark results.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"benchuq.cli.cmd_{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``benchuq`` with ``argv`` (default: the command line); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    out, err_stream = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleText(out), VisibleText(err_stream)  # no terminal escapes
    try:
        try:
            check_caps(args)
            code = int(args.func(args) or 0)
        except (DataError, InvalidArgument, UsageError) as err:
            print(f"benchuq {args.command}: error: {err}", file=sys.stderr)
            return 2
        print_notes(getattr(args, "data_notes", ()), args)
        return code
    finally:
        sys.stdout, sys.stderr = out, err_stream


if __name__ == "__main__":
    sys.exit(main())
