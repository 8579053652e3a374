"""scripts/typecheck.py: the symlink tree mirrors the installed names and paths map back."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("typecheck", ROOT / "scripts" / "typecheck.py")
assert _spec is not None and _spec.loader is not None
typecheck = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(typecheck)


def test_tree_mirrors_the_package_dir_mapping(tmp_path: Path) -> None:
    mapping = typecheck.package_dirs(ROOT / "pyproject.toml")
    assert mapping["benchuq.core"] == "core" and mapping["benchuq"] == "benchuq"
    prefixes = typecheck.build_tree(mapping, ROOT, tmp_path)
    tree = tmp_path / "benchuq"
    assert (tree / "__init__.py").resolve() == ROOT / "benchuq" / "__init__.py"
    assert (tree / "core").resolve() == ROOT / "core"
    assert (tree / "core" / "analyses" / "embeddings" / "scores.py").is_file()
    assert (tree / "presentation" / "figures" / "common.py").is_file()
    assert typecheck.build_tree(mapping, ROOT, tmp_path) == prefixes  # rebuilt in place
    line = "benchuq/core/analyses/subgroups/ebci.py:12: error: ..."
    assert typecheck.repo_path(line, prefixes) == "core/analyses/subgroups/ebci.py:12: error: ..."
    assert (
        typecheck.repo_path("benchuq/__init__.py:1: note", prefixes)
        == "benchuq/__init__.py:1: note"
    )
    assert typecheck.repo_path("Success: no issues found", prefixes) == "Success: no issues found"
