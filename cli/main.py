"""Entry point of ``benchuq``: one subcommand module per analysis, errors to stderr, exit code 2."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from benchuq.cli.common import UsageError
from benchuq.core.data import DataError

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
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchuq",
        description="Honest leaderboards: intervals, differences and ranks from benchmark results.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"benchuq.cli.cmd_{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (DataError, UsageError) as err:
        print(f"benchuq {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        print(f"benchuq {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
