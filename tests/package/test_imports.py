"""Import rules of the layout (issue 25, ARCHITECTURE.md), read from the source of every module
(imports inside functions included) and checked once more at run time:

- ``core/`` imports no streamlit, ``dashboard``, ``pages``, ``cli`` or presentation;
- ``cli/`` imports nothing from ``dashboard`` or ``pages``;
- ``benchuq/presentation/`` imports no streamlit, ``dashboard``, ``pages`` or ``cli``;
- ``dashboard/`` and ``pages/`` reach the statistics through :mod:`benchuq.api` only (issue 38):
  no import of core's methods, summaries, analyses, findings, small-sample rules or Every Eval
  Ever export, except the modules of :data:`STATISTICS_ALLOWED` (at most 3). Reading,
  validation, defaults, budgets and the data types (``Benchmark``, ``Draws``) are fine.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RULES = {
    "core": (
        "streamlit",
        "benchuq.dashboard",
        "benchuq.pages",
        "benchuq.cli",
        "benchuq.presentation",
    ),
    "cli": ("benchuq.dashboard", "benchuq.pages"),
    "benchuq/presentation": ("streamlit", "benchuq.dashboard", "benchuq.pages", "benchuq.cli"),
}

# core's statistics: the app imports them from benchuq.api (``benchuq.api.summaries``)
STATISTICS = (
    "benchuq.core.methods",
    "benchuq.core.summaries",
    "benchuq.core.analyses",
    "benchuq.core.findings",
    "benchuq.core.small_samples",
    "benchuq.core.export_eee",
)
APP = ("dashboard", "pages")
# modules of dashboard/ and pages/ that may still import core's statistics directly
STATISTICS_ALLOWED: frozenset[str] = frozenset()


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, anywhere in the file (``from a import b`` gives ``a.b``
    too, so ``from benchuq import dashboard`` counts)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def breaks(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names for f in forbidden if n == f or n.startswith(f + "."))


@pytest.mark.parametrize("folder", sorted(RULES))
def test_source_imports_follow_the_rules(folder: str) -> None:
    bad = {
        str(path.relative_to(ROOT)): found
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (found := breaks(imported_modules(path), RULES[folder]))
    }
    assert not bad, f"{folder} imports what it must not: {bad}"


@pytest.mark.parametrize("folder", APP)
def test_the_app_reaches_the_statistics_through_the_api(folder: str) -> None:
    bad = {
        rel: found
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (rel := str(path.relative_to(ROOT))) not in STATISTICS_ALLOWED
        and (found := breaks(imported_modules(path), STATISTICS))
    }
    assert not bad, f"{folder} imports core's statistics (use benchuq.api): {bad}"


def test_few_app_modules_are_allowed_the_statistics() -> None:
    assert len(STATISTICS_ALLOWED) <= 3
    assert all((ROOT / rel).is_file() for rel in STATISTICS_ALLOWED)


def test_the_rule_catches_an_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from benchuq import dashboard\n    import streamlit as st\n")
    assert breaks(imported_modules(module), RULES["cli"]) == ["benchuq.dashboard"]
    assert breaks(imported_modules(module), RULES["core"]) == ["benchuq.dashboard", "streamlit"]


def test_the_statistics_rule_catches_each_import_form(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from benchuq.core import summaries\n"
        "from benchuq.core.analyses import power as pw\n"
        "from benchuq.core.data import Benchmark\n"
        "from benchuq.api.summaries import RankSets\n"
        "def f():\n    import benchuq.core.findings\n"
    )
    assert breaks(imported_modules(module), STATISTICS) == [
        "benchuq.core.analyses",
        "benchuq.core.analyses.power",
        "benchuq.core.findings",
        "benchuq.core.summaries",
    ]


def test_run_time_imports_follow_the_rules() -> None:
    """Importing every module of core, cli and presentation (streamlit blocked) loads neither
    streamlit nor the dashboard nor the pages."""
    code = """
import importlib, pkgutil, sys
sys.modules["streamlit"] = None
import benchuq.cli, benchuq.core, benchuq.presentation
for pkg in (benchuq.core, benchuq.cli, benchuq.presentation):
    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(m.name)
from benchuq.cli.main import build_parser
build_parser()
bad = [m for m in sys.modules if m.startswith(("benchuq.dashboard", "benchuq.pages"))]
assert not bad, bad
"""
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
