"""Helpers for real-browser tests: start the app, drive Debian chromium, wait, screenshot.

Used by the ``app_server`` and ``browser`` fixtures in ``tests/conftest.py``; page engineers reuse
them in their own ``@pytest.mark.browser`` tests. Facts behind the choices: /work/shared/TESTING.md
(copied knowledge, nothing read from there at run time).
"""

from __future__ import annotations

import functools
import html
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = ROOT / "dashboard" / "app.py"  # for AppTest
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
IDLE = (
    '[data-testid="stApp"][data-test-connection-state="CONNECTED"]'
    '[data-test-script-state="notRunning"]'
)
VIEWPORT = {"width": 1400, "height": 1700}
#: How long the helpers wait for an event (ms). Waits end when the event happens, so a generous
#: limit costs nothing on a quiet machine; on two cores shared with parallel test workers a first
#: render has taken over 60 s.
WAIT_MS = 120_000
SERVER_PIDS: dict[str, int] = {}  # base URL -> PID of the server :func:`run_app` started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def run_app(
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
    launcher: tuple[str, ...] = (sys.executable, "-m", "benchuq"),
    cwd: Path = ROOT,
    port: int | None = None,
) -> Iterator[str]:
    """Start ``benchuq app`` (the installed launcher) on ``port`` (default: a free one); yield
    its base URL; stop it by its PID. ``env`` adds environment variables (e.g. the store's
    location); ``launcher`` and ``cwd`` run another install (the wheel test's venv) from another
    folder; ``port`` restarts a server where a killed one was (its pages reconnect)."""
    port = port or free_port()
    cmd = [
        *launcher,
        "app",
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--",
        "--server.fileWatcherType",
        "none",
    ]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / f"server_{port}.log", "ab")
    proc = subprocess.Popen(
        cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_serving(proc, f"{url}/_stcore/health", "streamlit", timeout, body="ok")
        SERVER_PIDS[url] = proc.pid
        yield url
    finally:
        SERVER_PIDS.pop(url, None)
        stop(proc)
        log.close()


def wait_serving(
    proc: subprocess.Popen, url: str, name: str, timeout: float, body: str | None = None
) -> None:
    """Poll ``url`` until it answers (with ``body``, when given); fail if ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if body is None or r.read().decode().strip() == body:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start (exit code {proc.poll()})")
        time.sleep(0.3)


def stop(proc: subprocess.Popen) -> None:
    """Stop a server this test session started, by its PID: terminate, then kill."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() and os.access(CHROMIUM, os.X_OK)


def wait_idle(page, timeout: float = WAIT_MS) -> None:
    """Wait until the app is connected and no script run is in progress."""
    page.wait_for_selector(IDLE, timeout=timeout)


def wait_for_text_then_idle(page, text: str, timeout: float = WAIT_MS) -> None:
    """After an interaction: first the expected content, then idle (TESTING.md).

    On a timeout the failure says what the page showed instead (URL, exception boxes, the main
    area's text) and saves a screenshot, so a failure in CI can be read from its log.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.get_by_text(text).first.wait_for(timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{text!r} did not appear.\n{page_report(page)}") from None
    wait_idle(page, timeout)


def page_report(page, chars: int = 2_000) -> str:
    """What the page shows now, for a failure message; a screenshot goes to tests/artifacts."""
    shot = screenshot(page, "failure")
    main = page.get_by_test_id("stMain")
    text = main.inner_text(timeout=5_000) if main.count() else page.inner_text("body")
    state = page.evaluate(
        """() => { const a = document.querySelector('[data-testid="stApp"]');
        return a ? [a.dataset.testConnectionState, a.dataset.testScriptState] : null; }"""
    )
    return (
        f"URL: {page.url}\napp state: {state}\nexceptions: {exceptions_shown(page)}\n"
        f"screenshot: {shot}\nmain text:\n{text[:chars]}"
    )


def main_codes(page, shows: str, timeout: float = 30_000) -> list[str]:
    """The texts of the main area's code boxes (long links wrap: newlines dropped), once one of
    them shows ``shows``: a box is drawn empty and filled when its renderer's code has loaded,
    which can be after the page went idle."""
    boxes = page.get_by_test_id("stMain").get_by_test_id("stCode")
    boxes.filter(has_text=shows).first.wait_for(timeout=timeout)
    return [t.replace("\n", "").strip() for t in boxes.all_inner_texts()]


def wait_charts(page, timeout: float = WAIT_MS) -> None:
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=timeout)


def open_page(browser, url: str, heading: str):
    """A new context's page at ``url`` with ``heading`` shown, idle, its charts drawn and no
    exception on it; returns ``(context, page)``."""
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(url)
    page.get_by_role("heading", name=heading).first.wait_for(timeout=WAIT_MS)
    wait_idle(page)
    wait_charts(page)
    assert exceptions_shown(page) == []
    return ctx, page


def exceptions_shown(page) -> list[str]:
    """Texts of exception boxes on the page (empty when the page is clean)."""
    return [e.inner_text() for e in page.query_selector_all('[data-testid="stException"]')]


def screenshot(page, name: str) -> Path:
    """Save a viewport screenshot to ``tests/artifacts/<name>.png`` (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def remove_chip(multiselect, name: str, attempts: int = 3) -> None:
    """Click a multiselect chip's remove button until the chip is gone.

    A click that lands while the expander is still opening can miss; the chip's absence, not the
    click, is what the test needs.
    """
    chip = multiselect.get_by_role("button", name=f"Remove {name}")
    gone = functools.partial(chip.wait_for, state="detached", timeout=15_000)
    if not _click_until(chip.click, gone, attempts):
        raise AssertionError(f"the chip {name!r} is still there after {attempts} clicks")


def _click_until(click: Callable[[], None], wait: Callable[[], None], attempts: int) -> bool:
    """``click``, then ``wait`` for its effect (a Playwright wait), up to ``attempts`` times:
    whether the effect came."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(attempts):
        click()
        try:
            wait()
            return True
        except PlaywrightTimeout:
            continue
    return False


def open_expander(page, label: str, shows: str, attempts: int = 3) -> None:
    """Click the expander ``label`` until its content ``shows`` is visible.

    A click that lands during a script run can be undone by the run's redraw (the expander
    drawn closed again); the content, not the click, is what the test needs.
    """
    content = page.get_by_text(shows).first

    def click() -> None:
        wait_idle(page)
        if not content.is_visible():
            page.get_by_test_id("stMain").get_by_text(label).first.click()

    shown = functools.partial(content.wait_for, state="visible", timeout=15_000)
    if not _click_until(click, shown, attempts):
        report = page_report(page)
        raise AssertionError(f"{shows!r} did not show after opening {label!r}.\n{report}")


LEVEL = re.compile(
    r"(\d+(?:\.\d+)?)% (?:intervals?|confidence)\b|intervals at (\d+(?:\.\d+)?)%"
    r"|\bat (\d+(?:\.\d+)?)%|Why (\d+(?:\.\d+)?)%"
)


def levels_stated(text: str) -> set[str]:
    """The confidence levels a text states ("83.4% interval", "intervals at 95%", "with 95%
    confidence", "Why 83.4%"), as numbers."""
    return {next(g for g in m.groups() if g) for m in LEVEL.finditer(text)}


def page_one_text(doc: str) -> str:
    """The text of the report's page 1 (``div.page1``): tags and scripts dropped."""
    start = doc.index("<div class=page1>")
    end = doc.index("<!-- /page1 -->")
    part = re.sub(r"<script>.*?</script>", " ", doc[start:end], flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", part))
