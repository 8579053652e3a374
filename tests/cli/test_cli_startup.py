"""The CLI imports only the chosen subcommand (issue 32): ``benchuq --help`` loads no statistics."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from benchuq.cli.main import COMMANDS, SUBCOMMANDS, build_parser, main


def _subcommand_helps(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {action.dest: action.help for action in sub._choices_actions}


def test_the_table_matches_what_each_module_registers() -> None:
    full = build_parser()
    assert _subcommand_helps(full) == {name: text for name, (_, text) in COMMANDS.items()}
    assert set(SUBCOMMANDS) == {module for module, _ in COMMANDS.values()}


def test_help_without_imports_is_the_full_help() -> None:
    assert build_parser("").format_help() == build_parser().format_help()


@pytest.mark.parametrize(
    "argv", [["leaderboard", "x"], ["unpublish", "x", "--token", "t"], ["ranks", "x"]]
)
def test_a_chosen_subcommand_parses_as_before(argv: list[str]) -> None:
    full = build_parser().parse_args(argv)
    lazy = build_parser(argv[0]).parse_args(argv)
    assert {k: v for k, v in vars(lazy).items() if k != "func"} == {
        k: v for k, v in vars(full).items() if k != "func"
    }
    assert lazy.func.__qualname__ == full.func.__qualname__


def _loaded_after(argv: list[str]) -> list[str]:
    """Modules loaded by ``main(argv)`` in a fresh interpreter (its output discarded)."""
    code = f"""
import contextlib, io, json, sys
from benchuq.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_help_imports_no_statistics() -> None:
    loaded = _loaded_after(["--help"])
    heavy = [m for m in loaded if m.split(".")[0] in ("numpy", "pandas", "pyarrow", "scipy")]
    assert heavy == []
    assert [m for m in loaded if m.startswith("benchuq.cli.cmd_")] == []


def test_a_subcommand_imports_only_its_module() -> None:
    loaded = _loaded_after(["leaderboard", "sample:toy", "--reps", "100"])
    commands = [m for m in loaded if m.startswith("benchuq.cli.cmd_")]
    assert commands == ["benchuq.cli.cmd_leaderboard"]
    assert "scipy.stats" not in loaded  # the normal quantiles come from scipy.special


def test_an_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["leaderbord", "sample:toy"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'leaderbord'" in capsys.readouterr().err
