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
