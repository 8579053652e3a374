"""Collection never fails without the optional test extras (``playwright``, ``arviz_stats``).

Modules that import them at module level use ``pytest.importorskip``: without the package the
module is skipped (in CI the extras are installed, so nothing is skipped there).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = """
import sys
for m in ("playwright", "playwright.sync_api", "arviz_stats", "arviz_stats.base"):
    sys.modules[m] = None  # importing them raises ImportError, as if not installed
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--collect-only", "-rs", *sys.argv[1:]]))
"""


@pytest.mark.slow  # a fresh pytest process: about 20 s
def test_collection_skips_modules_whose_extras_are_missing() -> None:
    files = ["tests/browser/test_browser_weights.py", "tests/core/methods/test_diagnostics.py"]
    proc = subprocess.run(
        [sys.executable, "-c", BLOCK, *files], cwd=ROOT, capture_output=True, text=True
    )
    out = proc.stdout + proc.stderr
    assert "error" not in out.lower(), out
    assert out.count("SKIPPED") == 2 and "could not import 'playwright" in out, out
