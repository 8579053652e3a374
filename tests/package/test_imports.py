"""Import rules of the layout (issue 25, ARCHITECTURE.md), read from the source of every module
(imports inside functions included) and checked once more at run time:

- ``core/`` imports no streamlit, ``dashboard``, ``pages``, ``cli``, presentation or the store;
- ``cli/`` imports nothing from ``dashboard`` or ``pages``;
- ``benchuq/presentation/`` imports no streamlit, ``dashboard``, ``pages`` or ``cli``;
- ``cli/``, ``dashboard/`` and ``pages/`` reach core's statistics (methods, summaries, analyses,
  findings, the EEE export) through :mod:`benchuq.api` only (issue 38; the app through
  ``benchuq.api.summaries``), but for at most 3 modules of :data:`ALLOWED_STATISTICS_IMPORTS`.
  Reading, validation, defaults, budgets and the data types (``Benchmark``, ``Draws``) are fine.
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
        "benchuq.store",
    ),
    "cli": ("benchuq.dashboard", "benchuq.pages"),
    "benchuq/presentation": ("streamlit", "benchuq.dashboard", "benchuq.pages", "benchuq.cli"),
}


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


def test_the_rule_catches_an_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from benchuq import dashboard\n    import streamlit as st\n")
    assert breaks(imported_modules(module), RULES["cli"]) == ["benchuq.dashboard"]
    assert breaks(imported_modules(module), RULES["core"]) == ["benchuq.dashboard", "streamlit"]


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


# ---- one service layer (issue 38): the front ends reach the statistics through benchuq.api ----
STATISTICS = (
    "benchuq.core.methods",
    "benchuq.core.summaries",
    "benchuq.core.analyses",
    "benchuq.core.findings",
    "benchuq.core.export_eee",
)
FRONT_ENDS = ("cli", "dashboard", "pages")
# modules of the front ends still allowed to import core's statistics directly; the goal is at
# most 3 (cli/ has none). Shrink it as modules move to benchuq.api; never grow it.
ALLOWED_STATISTICS_IMPORTS: frozenset[str] = frozenset()


def statistics_importers() -> dict[str, list[str]]:
    """``{module path: the core statistics it imports}`` over cli/, dashboard/ and pages/
    (imports inside functions and under ``TYPE_CHECKING`` included)."""
    return {
        str(path.relative_to(ROOT)): found
        for folder in FRONT_ENDS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (found := breaks(imported_modules(path), STATISTICS))
    }


def test_front_ends_reach_the_statistics_through_the_api() -> None:
    found = statistics_importers()
    cli = sorted(p for p in found if p.startswith("cli/"))
    assert not cli, (
        f"cli/ imports core's statistics (use benchuq.api): { {p: found[p] for p in cli} }"
    )
    assert len(ALLOWED_STATISTICS_IMPORTS) <= 3
    extra = sorted(set(found) - ALLOWED_STATISTICS_IMPORTS)
    assert not extra, f"new direct imports of core's statistics: { {p: found[p] for p in extra} }"


def test_the_allowed_list_has_no_stale_entries() -> None:
    """An entry that no longer imports the statistics leaves the list (so it only shrinks)."""
    assert not ALLOWED_STATISTICS_IMPORTS - set(statistics_importers())


def test_the_statistics_rule_catches_an_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from benchuq.core.summaries.headline import Headline\n"
        "def f():\n    from benchuq.core.analyses import power as pw\n"
        "    from benchuq.core.reading.loaders import read_data\n"
        "from benchuq.core import findings\nfrom benchuq.api.summaries import RankSets\n"
    )
    assert breaks(imported_modules(module), STATISTICS) == [
        "benchuq.core.analyses",
        "benchuq.core.analyses.power",
        "benchuq.core.findings",
        "benchuq.core.summaries.headline",
        "benchuq.core.summaries.headline.Headline",
    ]
