"""Options named in core's messages (issue 41, "one API grammar"): no message or hint of
``core/`` writes one of benchuq's CLI flags (it names the option with ``core.options.option``,
and each surface words it); every option named is a keyword of the Python API and a flag of the
CLI; and the Python API's own error shows the Python keyword."""

from __future__ import annotations

import argparse
import ast
import inspect
import re
from functools import cache
from pathlib import Path

import pytest
from option_words import CLI, PYTHON, REFUSED, partial_credit_csv

import benchuq as bq
from benchuq.cli.main import SUBCOMMANDS, build_parser
from benchuq.cli.words import cli_words, flag
from benchuq.core.options import OPTIONS, named_options, option, render
from benchuq.core.reading.backends import choose_backend

ROOT = Path(__file__).resolve().parents[2]
#: the code whose messages reach every surface: core and the Python API's own
SOURCES = (ROOT / "core", ROOT / "benchuq" / "api")
#: Another tool's command line: its flags are what the user types there (``lm_eval
#: --log_samples``), not benchuq's.
OTHER_TOOLS = re.compile(r"(lm_eval|lm-eval|lighteval|inspect \w+|oaieval|duckdb)[^,;()]*$")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


@cache
def cli_flags() -> frozenset[str]:
    """Every ``--flag`` of every ``benchuq`` subcommand."""
    flags: set[str] = set()
    for command in SUBCOMMANDS:
        for action in build_parser(command)._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    flags.update(o for a in sub._actions for o in a.option_strings)
    return frozenset(f for f in flags if f.startswith("--"))


def _sources() -> list[Path]:
    return sorted(p for d in SOURCES for p in d.rglob("*.py"))


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def raw_flags(source: str, name: str = "<source>") -> list[str]:
    """``file:line: --flag`` for each benchuq CLI flag written in a string of ``source``
    (docstrings and comments left out: they describe; another tool's command line and a string
    that is one flag, a token of a command line being built, left out)."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in docs or _FLAG.fullmatch(node.value):  # a command line's own token
            continue
        for match in _FLAG.finditer(node.value):
            if match.group(0) in cli_flags() and not OTHER_TOOLS.search(
                node.value[: match.start()]
            ):
                found.append(f"{name}:{node.lineno}: {match.group(0)}")
    return found


def test_no_core_message_writes_a_cli_flag() -> None:
    found = [
        hit
        for path in _sources()
        for hit in raw_flags(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "name the option with core.options.option(...):\n" + "\n".join(found)


def test_the_scan_finds_a_flag_and_spares_other_tools_and_docstrings() -> None:
    """What the scan above would have found before issue 41, and what it must leave alone."""
    source = '''
"""Reads ``--metric`` files."""
def f():
    """Use --statistic mean."""
    raise ValueError("x", hint="use --statistic mean for partial credit")
def g(k):
    return f"pick one with --metric {k}/KEY" + "lm_eval --limit 5 ran part" + " --log_samples"
h = "convert it with duckdb -c 'COPY x', or use --backend memory"
argv = ["benchuq", "report", "--overall", "tasks"]
'''
    assert sorted(raw_flags(source)) == [
        "<source>:5: --statistic",
        "<source>:7: --metric",
        "<source>:8: --backend",
    ]


def _option_names(tree: ast.AST) -> list[str]:
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "option"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]


def test_every_option_is_a_python_keyword_and_a_cli_flag() -> None:
    """(``backend`` only the CLI reaches, through ``core.reading.backends.choose_backend``.)"""
    functions = [getattr(bq, name) for name in bq.__all__] + [choose_backend]
    keywords = {
        p for obj in functions if inspect.isfunction(obj) for p in inspect.signature(obj).parameters
    }
    assert sorted(OPTIONS - keywords) == []  # the Python form is a real keyword
    assert sorted(n for n in OPTIONS if flag(n) not in cli_flags()) == []  # and the CLI's flag
    used = {n for p in _sources() for n in _option_names(ast.parse(p.read_text()))}
    assert used == OPTIONS  # each registered option is named somewhere, none unregistered


def test_option_markers_round_trip() -> None:
    text = (
        f"use {option('statistic', 'pass@3')}, {option('accuracy', [0.7, 0.72])}, "
        f"{option('items', text='N')} or {option('judge')}; `other=1` stays."
    )
    assert [(o.name, o.value) for o in named_options(text)] == [
        ("statistic", "pass@3"),
        ("accuracy", [0.7, 0.72]),
        ("items", "N"),
        ("judge", None),
    ]
    assert (
        render(text, lambda o: o.name.upper())
        == "use STATISTIC, ACCURACY, ITEMS or JUDGE; `other=1` stays."
    )
    assert cli_words(text) == (
        "use --statistic pass@3, --accuracy 0.7 0.72, --items N or --judge; `other=1` stays."
    )
    with pytest.raises(ValueError, match="OPTIONS"):
        option("statistics", "mean")


def test_python_api_names_the_keyword(tmp_path: Path) -> None:
    """The Python surface: the same refusal as the CLI's and the app's, with `statistic=`."""
    path = tmp_path / "partial.csv"
    path.write_bytes(partial_credit_csv())
    with pytest.raises(bq.DataError) as err:
        bq.leaderboard(bq.load(path, statistic="pass@2"), reps=100)
    text = str(err.value)
    assert REFUSED in text and PYTHON in text
    assert CLI not in text and "--" not in text
