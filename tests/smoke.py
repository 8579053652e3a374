"""Smoke check of an installed benchuq, run by any python that has it (no pytest needed).

``python tests/smoke.py [--opened FILE] [PART ...]`` with parts (default: all)
- ``cli``: ``benchuq leaderboard sample:<name> --json`` for every bundled sample and
  ``benchuq embeddings sample:<name> --json`` for every embedding sample, in process; each must
  list every model of its data set;
- ``pages``: an ``AppTest`` run of every file in the installed ``benchuq/pages`` (no exception,
  no error box);
- ``figures``: a chart rendered to PNG and SVG through kaleido (the "Download chart" path; needs
  chromium (``presentation.chromium.find``), skipped without it unless ``CI`` is set);
- ``blas``: threadpoolctl sees the BLAS that numpy itself loads (else the thread policy of
  ``core.methods.bootstrap`` and ``core.analyses.embeddings`` silently does nothing);
- ``browser``: ``benchuq app`` in Debian's chromium driven by Playwright (test extras needed).
``--opened FILE`` writes, as paths inside the wheel, the non-Python files the checks opened from
the package folders (an audit hook), so the wheel test can check that every data file the code
reads ships in the wheel.

Used by ``tests/package/test_install.py`` (the wheel, the repository) and ``scripts/test.sh`` (the
declared minimums, ``scripts/floors.py``). Prints one line per check and ``N passed, N failed``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

QUERY = {"reps": "200"}  # small replicate counts, as the AppTest suite uses
OPENED: set[str] = set()


def package_dirs() -> dict[str, Path]:
    """``{path inside the wheel: folder it is read from}`` for the ``benchuq.*`` packages (an
    editable install reads them from the repository's folders)."""
    names = ("benchuq", "benchuq.core", "benchuq.cli", "benchuq.dashboard", "benchuq.pages")
    names += ("benchuq.sample_data",)
    return {n.replace(".", "/"): Path(str(files(n))).resolve() for n in names}


def wheel_path(path: str, dirs: dict[str, Path]) -> str | None:
    """Where the file at ``path`` sits inside the wheel, or None when it is not package data."""
    for inside, folder in sorted(dirs.items(), key=lambda kv: -len(str(kv[1]))):
        if Path(path).is_relative_to(folder):
            return f"{inside}/{Path(path).relative_to(folder).as_posix()}"
    return None


def audit(event: str, args: tuple) -> None:
    if event == "open" and isinstance(args[0], str | os.PathLike):
        path = os.path.realpath(args[0])
        if not path.endswith((".py", ".pyc")):
            OPENED.add(path)


def cli_json(argv: list[str]) -> dict:
    """What ``benchuq ARGV`` prints, parsed (it must exit 0)."""
    from benchuq.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    if code != 0:
        raise AssertionError(f"benchuq {' '.join(argv)} exited {code}")
    return json.loads(out.getvalue())


def check_cli() -> list[str]:
    from benchuq.cli.cmd_app import config_flags
    from benchuq.core.analyses.embeddings import EMBEDDING_SAMPLES, load_embedding_sample
    from benchuq.core.reading.loaders import SAMPLES, load_sample

    done = [f"benchuq app settings {' '.join(config_flags())}"]
    for name in SAMPLES:
        shown = cli_json(["leaderboard", f"sample:{name}", "--reps", "200", "--json"])
        models = {row["model"] for row in shown["rows"]}
        if models != set(load_sample(name).models):
            raise AssertionError(f"leaderboard sample:{name} shows {sorted(models)}")
        done.append(f"leaderboard sample:{name}")
    for name in EMBEDDING_SAMPLES:
        argv = ["embeddings", f"sample:{name}", "--bootstrap", "scores", "--reps", "50"]
        shown = cli_json([*argv, "--heads", "2", "--dims", "8", "--json"])
        sets = {s.model for s in load_embedding_sample(name)[0]}
        if {row["model"] for row in shown["rows"]} != sets:
            raise AssertionError(f"embeddings sample:{name} misses some of {sorted(sets)}")
        done.append(f"embeddings sample:{name}")
    return done


def check_pages() -> list[str]:
    from streamlit.testing.v1 import AppTest

    entry = Path(str(files("benchuq.dashboard"))) / "app.py"
    pages = sorted(p.name for p in Path(str(files("benchuq.pages"))).glob("*.py"))
    at = AppTest.from_file(str(entry), default_timeout=300)
    at.query_params.update(QUERY)
    at.run()
    done = []
    for page in [p for p in pages if p != "__init__.py"]:
        at.switch_page(f"../pages/{page}").run()
        problems = [e.value for e in at.exception] + [e.value for e in at.error]
        if problems:
            raise AssertionError(f"page {page}: {problems}")
        done.append(f"page {page}")
    return done


def check_figures() -> list[str]:
    from benchuq.presentation import chromium

    if chromium.find() is None:
        if os.environ.get("CI"):
            raise AssertionError(chromium.missing_message("kaleido (chart images)"))
        return []
    import plotly.graph_objects as go

    from benchuq.dashboard.export import image_bytes

    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout={"title": "smoke"})
    png, svg = image_bytes(fig, "png"), image_bytes(fig, "svg")
    if not png.startswith(b"\x89PNG") or b"<svg" not in svg[:400]:
        raise AssertionError("kaleido did not render PNG and SVG")
    return ["chart download (kaleido PNG, SVG)"]


def check_blas() -> list[str]:
    import numpy as np
    from threadpoolctl import threadpool_info

    libs = Path(np.__file__).parent.with_name("numpy.libs")
    own = [p.name for p in libs.glob("*blas*")] if libs.is_dir() else []
    seen = {Path(i["filepath"]).name for i in threadpool_info()}
    missing = [name for name in own if name not in seen]
    if missing:
        raise AssertionError(f"threadpoolctl does not see numpy's BLAS {missing}")
    return [f"threadpoolctl sees numpy's BLAS {own}"]


def check_browser() -> list[str]:
    """The served app in Debian's chromium (Playwright): the default page and the Task weights
    page (its sliders bind to the URL) draw charts and show no exception."""
    from browser_utils import (
        CHROMIUM,
        CHROMIUM_ARGS,
        exceptions_shown,
        run_app,
        wait_charts,
        wait_idle,
    )
    from playwright.sync_api import sync_playwright

    done = []
    with run_app(timeout=120) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        for path in ("/", "/weights"):
            page.goto(f"{url}{path}?reps=200")
            wait_charts(page, timeout=120_000)
            wait_idle(page, timeout=120_000)
            if exceptions_shown(page):
                raise AssertionError(f"{path}: {exceptions_shown(page)}")
            done.append(f"browser {path}")
        browser.close()
    return done


CHECKS: dict[str, Callable[[], list[str]]] = {
    "cli": check_cli,
    "pages": check_pages,
    "figures": check_figures,
    "blas": check_blas,
    "browser": check_browser,
}


def main(argv: list[str]) -> int:
    opened = None
    if argv[:1] == ["--opened"]:
        opened, argv = Path(argv[1]), argv[2:]
        sys.addaudithook(audit)
    passed = failed = 0
    for part in argv or list(CHECKS):
        try:
            for line in CHECKS[part]():
                print(f"ok   {line}", flush=True)
                passed += 1
        except Exception as err:  # report every part, then fail
            print(f"FAIL {part}: {type(err).__name__}: {err}", flush=True)
            failed += 1
    if opened is not None:
        dirs = package_dirs()
        data = sorted(filter(None, (wheel_path(p, dirs) for p in OPENED)))
        opened.write_text(json.dumps(data, indent=1), encoding="utf-8")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
