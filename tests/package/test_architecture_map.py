"""ARCHITECTURE.md is the map (issue 38): every module path and dotted name it writes in
backticks exists (a folder or file of the repository, or a module and its attribute)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "ARCHITECTURE.md").read_text()
# repository folders -> installed names (pyproject's package-dir)
PREFIXES = {
    "benchuq.": "benchuq.",
    "core.": "benchuq.core.",
    "cli.": "benchuq.cli.",
    "dashboard.": "benchuq.dashboard.",
    "pages.": "benchuq.pages.",
    "presentation.": "benchuq.presentation.",
}
TOP = ("core/", "cli/", "dashboard/", "pages/", "benchuq/", "tests/", "docs/", "scripts/",
       "benchmarks/", "sample_data/")  # fmt: skip


def _tokens() -> list[str]:
    return [t.strip() for t in re.findall(r"`([^`\n]+)`", TEXT)]


def paths() -> list[str]:
    """Backticked repository paths (``core/reading/``, ``tests/conftest.py``): no spaces,
    globs or placeholders."""
    out = []
    for t in _tokens():
        t = t.split(" ")[0].rstrip(",.;:")
        if t.startswith(TOP) and not re.search(r"[*{}<>|]", t):
            out.append(t)
    return sorted(set(out))


def dotted() -> list[str]:
    """Backticked dotted names under a package root (``core.reading.naming``,
    ``benchuq.api``, ``presentation.report.details``), without call parentheses."""
    out = []
    for t in _tokens():
        t = re.split(r"[\s(\[=]", t)[0].rstrip(",.;:")
        if re.fullmatch(r"[A-Za-z_][\w.]*", t) and t.startswith(tuple(PREFIXES)) and "." in t:
            out.append(t)
    return sorted(set(out))


def _resolve(name: str) -> bool:
    full = next(PREFIXES[p] + name[len(p) :] for p in PREFIXES if name.startswith(p))
    parts = full.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_paths_exist() -> None:
    missing = [p for p in paths() if not (ROOT / p).exists()]
    assert len(paths()) > 20
    assert not missing, f"ARCHITECTURE.md names paths that do not exist: {missing}"


def test_dotted_names_resolve() -> None:
    names = dotted()
    assert len(names) > 20
    missing = [n for n in names if not _resolve(n)]
    assert not missing, f"ARCHITECTURE.md names modules or attributes that do not exist: {missing}"
