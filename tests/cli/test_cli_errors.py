"""The CLI's error policy (``cli/main.py``): bad input exits 2 with a message, bugs are not hidden.

``DataError`` (bad file or data), ``InvalidArgument`` (bad argument to a core function) and
``UsageError`` (bad flag) print ``benchuq COMMAND: error: ...`` and exit 2; any other exception,
a ``ValueError`` or ``OSError`` included, propagates with its traceback.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from benchuq.cli import cmd_leaderboard
from benchuq.cli.common import UsageError
from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.validation import InvalidArgument


def _raising(err: BaseException):
    def run(args: argparse.Namespace) -> int:
        raise err

    return run


@pytest.mark.parametrize(
    "err",
    [
        InvalidArgument("level 95 must be between 0 and 1.", hint="use 0.95."),
        DataError("a bad value.", file="x.csv", row=3, column="n"),
        UsageError("--reps 5 is too few."),
    ],
)
def test_expected_errors_exit_2_with_the_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], err: Exception
) -> None:
    monkeypatch.setattr(cmd_leaderboard, "run", _raising(err))
    assert main(["leaderboard", "sample:toy"]) == 2
    assert capsys.readouterr().err == f"benchuq leaderboard: error: {err}\n"


@pytest.mark.parametrize(
    "err", [ValueError("a bug"), OSError("a bug"), KeyError("a bug"), RuntimeError("a bug")]
)
def test_unexpected_errors_are_not_swallowed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], err: Exception
) -> None:
    monkeypatch.setattr(cmd_leaderboard, "run", _raising(err))
    with pytest.raises(type(err), match="a bug"):
        main(["leaderboard", "sample:toy"])
    assert "error" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["leaderboard", "sample:toy", "--level", "95"], "--level 95.0 must be between 0 and 1"),
        (["epp", "sample:toy", "--level", "0"], "--level 0.0 must be between 0 and 1"),
        (["compare", "sample:toy", "--models", "A", "Z"], "unknown models in --models ['Z']"),
        (["eb", "sample:mmlu", "--kappa", "big"], "kappa 'big' is not 'estimated'"),
        (["leaderboard", "sample:toy", "--seed", "-1"], "--seed -1 is negative"),
        (
            [
                "diff",
                "sample:alpaca_eval",
                "--base",
                "claude-2",
                "--candidate",
                "claude-2.1",
                "--seed",
                "-2",
            ],
            "--seed -2 is negative",
        ),
        (["arena", "sample:mt_bench_battles", "--seed", "-3"], "--seed -3 is negative"),
    ],
)
def test_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchuq {argv[0]}: error:") and message in err


@pytest.mark.parametrize(
    "argv",
    [
        ["leaderboard", "{missing}"],
        ["eb", "{missing}"],
        ["embeddings", "{missing}", "--meta", "{missing}", "--label", "topic"],
        ["embeddings", "sample:synthetic", "--meta", "{missing}", "--label", "cluster"],
    ],
)
def test_a_missing_file_is_a_data_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    missing = str(tmp_path / "nope.csv")
    argv = [a.replace("{missing}", missing) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchuq {argv[0]}: error: file '{missing}'"), err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["leaderboard", "sample:toy", "-o", "{tmp}/no/dir/x.csv"], "does not exist"),
        (["leaderboard", "sample:toy", "--json", "-o", "{tmp}/no/x.json"], "does not exist"),
        (["ranks", "sample:toy", "-o", "{tmp}/no/x.parquet"], "does not exist"),
        (["compare", "sample:toy", "--models", "A", "B", "-o", "{tmp}/f/x.csv"], "is a file"),
        (["leaderboard", "sample:toy", "--json", "-o", "{tmp}"], "that is a folder"),
        (["report", "sample:toy", "-o", "{tmp}/no/r.html"], "does not exist"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """``-o`` into a missing folder (or a file's "folder", or a folder itself) exits 2 with a
    message naming the path and a fix, before any work: no traceback (the audit of 2026-12-08)."""
    (tmp_path / "f").write_text("a file\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchuq {argv[0]}: error: -o {argv[-1]}:") and message in err, err
    assert "How to fix" in err and "Traceback" not in err


def test_a_failed_write_of_the_output_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A write of ``-o`` that fails after the checks (no permission, a full disk) names the path;
    an ``OSError`` about another file still propagates (test above)."""
    target = str(tmp_path / "x.json")

    def denied(args: argparse.Namespace) -> int:
        raise PermissionError(13, "Permission denied", target)

    monkeypatch.setattr(cmd_leaderboard, "run", denied)
    assert main(["leaderboard", "sample:toy", "--json", "-o", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchuq leaderboard: error: -o {target}: cannot write it"), err
    assert "Permission denied" in err


def test_an_unknown_flag_is_reported_by_the_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchuq leaderboard sample:toy --weights`` printed the top-level usage ("usage: benchuq
    [-h] COMMAND ...") and "benchuq: error"; the subcommand's usage shows the flags it has."""
    with pytest.raises(SystemExit) as stop:
        main(["leaderboard", "sample:toy", "--weights"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: benchuq leaderboard") and "--reps" in err, err
    assert err.rstrip().endswith("benchuq leaderboard: error: unrecognized arguments: --weights")
