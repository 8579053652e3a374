"""Type-check benchuq with mypy under its installed names (``scripts/test.sh`` runs this).

The repository keeps ``benchuq.core`` in ``core/``, ``benchuq.cli`` in ``cli/`` and so on
(``[tool.setuptools.package-dir]`` in ``pyproject.toml``). An editable install maps those names
with an import hook that mypy cannot see, so mypy run on the folders would know neither
``benchuq.core`` nor the imports between the packages. This script builds a throw-away tree
``build/typecheck/benchuq/{core,cli,...}`` of symlinks to the real folders (rebuilt on every run;
``build/`` is ignored by git), runs mypy there on the packages listed in ``[tool.mypy]
packages`` of ``pyproject.toml`` (add ``"benchuq.dashboard"`` there to check the dashboard),
and prints mypy's report with repository paths (``benchuq/core/x.py`` -> ``core/x.py``).

Usage: ``python scripts/typecheck.py [mypy options]``; the exit code is mypy's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "build" / "typecheck"


def package_dirs(pyproject: Path) -> dict[str, str]:
    """``{installed package name: repository folder}`` from setuptools' package-dir table."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return dict(config["tool"]["setuptools"]["package-dir"])


def build_tree(mapping: dict[str, str], root: Path, tree: Path) -> dict[str, str]:
    """Link ``tree/<name as a path>`` to ``root/<folder>``; return ``{tree prefix: repo prefix}``.

    A package mapped to a folder of its own name (``benchuq`` -> ``benchuq/``) becomes a real
    folder holding links to that folder's files and subpackages (``benchuq/presentation``), so
    the other packages can be linked inside it.
    """
    shutil.rmtree(tree / "benchuq", ignore_errors=True)
    prefixes = {}
    for name, folder in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        target = tree.joinpath(*name.split("."))
        source = root / folder
        if folder == name.replace(".", "/"):
            target.mkdir(parents=True, exist_ok=True)
            for item in source.iterdir():
                if item.is_file() and item.suffix in (".py", ".pyi", ".typed"):
                    (target / item.name).symlink_to(item)
                elif (item / "__init__.py").is_file() and f"{name}.{item.name}" not in mapping:
                    (target / item.name).symlink_to(item, target_is_directory=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source, target_is_directory=True)
        prefixes[name.replace(".", "/") + "/"] = folder.rstrip("/") + "/"
    return prefixes


def repo_path(line: str, prefixes: dict[str, str]) -> str:
    """``line`` with a leading tree path rewritten as the repository path (longest prefix)."""
    for prefix in sorted(prefixes, key=len, reverse=True):
        if line.startswith(prefix):
            return prefixes[prefix] + line[len(prefix) :]
    return line


def main(argv: list[str]) -> int:
    """Build the tree, run mypy with the repository's configuration, print repository paths."""
    prefixes = build_tree(package_dirs(ROOT / "pyproject.toml"), ROOT, TREE)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *argv],
        cwd=TREE,
        capture_output=True,
        text=True,
    )
    for line in proc.stdout.splitlines():
        print(repo_path(line, prefixes))
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
