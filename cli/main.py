"""Entry point of ``benchuq``: one subcommand module per analysis, errors to stderr, exit code 2.

Error policy: a bad file or data (:class:`~benchuq.core.data.DataError`), a bad argument to a
core function (:class:`~benchuq.core.validation.InvalidArgument`) and a bad flag found after
parsing (:class:`~benchuq.cli.common.UsageError`) print ``benchuq COMMAND: error: ...`` and exit
with code 2. A closed output pipe (``benchuq ... --json | head``) ends quietly with 141. Nothing
else is caught: any other exception is a bug and keeps its traceback.

Start-up: only the chosen subcommand's module is imported (``COMMANDS`` lists every subcommand's
module and one-line help, so ``benchuq --help`` imports no statistics at all); the statistics
libraries are imported after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from benchuq.cli.errors import UsageError

__all__ = ["COMMANDS", "SUBCOMMANDS", "UsageError", "build_parser", "main"]

#: Exit status when standard output was a pipe its reader closed: 128 + SIGPIPE, as a shell
#: reports a program killed by that signal (``yes | head``), with nothing on stderr.
CLOSED_PIPE = 141

# subcommand -> (module ``benchuq.cli.cmd_<module>``, its one-line help), in the order of
# ``benchuq --help``. Each module exposes ``register(subparsers)``, which adds its
# subcommands (publish adds publish and unpublish) and sets ``func`` on each parser.
COMMANDS: dict[str, tuple[str, str]] = {
    "leaderboard": ("leaderboard", "scores with intervals, overall and per category"),
    "compare": ("compare", "pairwise differences between models"),
    "diff": ("diff", "did it get better? two runs compared item by item"),
    "ranks": ("ranks", "rank aggregations, rank probabilities and rank confidence sets"),
    "epp": ("epp", "EPP meta-score: win probabilities between models"),
    "arena": ("arena", "arena ratings from pairwise battles (model_a, model_b, winner)"),
    "judge": ("judge", "judge scores corrected with human labels (PPI++, Rogan-Gladen)"),
    "weights": ("weights", "which model leads at each task weighting, with the SE rule"),
    "bayes": ("bayes", "Bayesian hierarchical model: credible intervals and MCMC diagnostics"),
    "eb": ("eb", "small subgroups: direct vs empirical-Bayes estimates with robust intervals"),
    "embeddings": ("embeddings", "ALP and cluster accuracy of embeddings against meta features"),
    "power": ("power", "minimum detectable difference and items needed per pair of models"),
    "app": ("app", "start the dashboard (a Streamlit server)"),
    "report": ("report", "a self-contained HTML or PDF report: findings, figures, caveats"),
    "publish": (
        "publish",
        "store a data set behind an unguessable link (prints the id and a delete token)",
    ),
    "unpublish": ("publish", "delete a published data set (needs its delete token)"),
    "export": ("export", "write results with intervals in Every Eval Ever format"),
    "site": ("site", "a static leaderboard site anyone can host (GitHub Pages, a static Space)"),
}

# the subcommand modules, in order
SUBCOMMANDS: tuple[str, ...] = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``benchuq`` parser.

    Parameters
    ----------
    command : str, optional
        The subcommand about to run: only its module is imported and registered, every other
        subcommand gets a placeholder parser with its one-line help (enough for ``benchuq
        --help`` and for argparse's "invalid choice" message). Default: every module registered.
    """
    parser = argparse.ArgumentParser(
        prog="benchuq",
        description="Honest leaderboards: intervals, differences and ranks from benchmark results.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    registered: set[str] = set()
    for name, (module, help_text) in COMMANDS.items():
        if command is None or COMMANDS.get(command, ("",))[0] == module:
            if module not in registered:
                importlib.import_module(f"benchuq.cli.cmd_{module}").register(sub)
                registered.add(module)
        else:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _command(argv: Sequence[str]) -> str:
    """The subcommand named in ``argv`` (its first argument that is not an option), or ``""``."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``benchuq`` with ``argv`` (default: the command line); returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command(argv))
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the subcommand's parser: its usage, "benchuq leaderboard: error: ..."
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")

    from benchuq.cli.common import VisibleText, check_caps, check_output, output_error, print_notes
    from benchuq.core.data import DataError
    from benchuq.core.validation import InvalidArgument

    out, err_stream = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleText(out), VisibleText(err_stream)  # no terminal escapes
    try:
        try:
            check_caps(args)
            check_output(args)
            code = int(args.func(args) or 0)
        except (DataError, InvalidArgument, UsageError) as err:
            print(f"benchuq {args.command}: error: {err}", file=sys.stderr)
            return 2
        except OSError as err:  # writing -o failed (no permission, disk full): say so, no trace
            message = output_error(args, err)
            if message is None:
                raise
            print(f"benchuq {args.command}: error: {message}", file=sys.stderr)
            return 2
        print_notes(getattr(args, "data_notes", ()), args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # the reader closed the pipe (``benchuq ... | head``): stop quietly
        _silence(out)
        return CLOSED_PIPE
    finally:
        sys.stdout, sys.stderr = out, err_stream


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``command`` (``parser`` itself if it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    return parser


def _silence(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so the interpreter's last flush of a
    closed pipe raises nothing either (Python's documented recipe for SIGPIPE)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's StringIO)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
