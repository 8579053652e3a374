"""Docs that run (issue 28): the README's Python API example, every script in
``docs/examples/`` and the numpydoc Examples of the public API (doctest)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import benchuq.api
import benchuq.results

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.py"))


def test_there_are_the_five_examples() -> None:
    names = {p.stem for p in EXAMPLES}
    assert {"vtab1k", "lm_eval_folder", "lm_eval_compare", "pandas_frame", "two_runs"} <= names


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(script: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_readme_python_api_example_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    lines = [x for x in code.group(1).splitlines() if x.strip()]
    assert len(lines) <= 11  # "a ten-line example" (and its import)
    done = subprocess.run(
        [sys.executable, "-c", code.group(1)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "The best model is one of" in done.stdout


API_MODULES = [
    importlib.import_module(f"benchuq.api.{m.name}")
    for m in pkgutil.iter_modules(benchuq.api.__path__)
]


@pytest.mark.parametrize(
    "module", [benchuq.api, *API_MODULES, benchuq.results], ids=lambda m: m.__name__
)
def test_docstring_examples_run(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)  # type: ignore[arg-type]
    assert result.failed == 0


def test_every_api_function_has_examples() -> None:
    """The API's modules together hold the numpydoc examples of every public function."""
    finder = doctest.DocTestFinder()
    examples = sum(len(t.examples) for m in API_MODULES for t in finder.find(m))
    assert examples >= 40
    for name in benchuq.api.__all__:
        if name != "write_report":  # the CLI's one path, not the flat API
            assert ">>>" in (getattr(benchuq.api, name).__doc__ or ""), name
