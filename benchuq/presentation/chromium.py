"""Chromium, only where it is needed (pure; no streamlit): the PDF report (the HTML report printed
by headless chromium) and the PNG/SVG chart downloads (kaleido drives chromium).

The HTML report needs no browser (``report.render``: interactive plotly with plotly.js inline).
Everything here first looks for chromium (:func:`find`) and, without it, raises
:class:`ChromiumMissing` at once with one line naming what to install (``apt-get install
chromium``); with it, every wait is bounded (:class:`ChromiumFailed` after ``timeout`` seconds),
so no call hangs and no thread is left waiting (issue 38).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

__all__ = [
    "INSTALL",
    "NAMES",
    "ChartImages",
    "ChromiumError",
    "ChromiumFailed",
    "ChromiumMissing",
    "find",
    "missing_message",
    "require",
    "to_pdf",
]

#: What a Debian or Ubuntu machine installs to get the PDF report and image downloads.
INSTALL = "apt-get install chromium"
#: The executables looked for on ``PATH``, in this order (Debian's, other distributions', Google's).
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
#: Seconds of virtual time chromium gives the page's scripts (plotly drawing the figures) before
#: it prints; virtual time runs ahead when the page is idle, so this costs no wall time.
DRAW_BUDGET_MS = 20_000


class ChromiumError(RuntimeError):
    """A feature that needs chromium could not use it (missing, or it failed in time)."""


class ChromiumMissing(ChromiumError):
    """Chromium is not installed (not on ``PATH``, nor at ``$BROWSER_PATH``)."""


class ChromiumFailed(ChromiumError):
    """Chromium is there but did not finish (timed out, crashed or wrote nothing)."""


def _runnable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def find() -> str | None:
    """The chromium to use: ``$BROWSER_PATH`` when set (kaleido's own setting; a path that is not
    an executable file means none), else the first of :data:`NAMES` on ``PATH``; None without."""
    override = os.environ.get("BROWSER_PATH")
    if override is not None:
        return override if override and _runnable(override) else None
    for name in NAMES:
        path = shutil.which(name)
        if path and _runnable(path):
            return path
    return None


def missing_message(what: str) -> str:
    """One line: ``what`` needs chromium, it is not here, and what to install."""
    where = os.environ.get("BROWSER_PATH")
    looked = f"BROWSER_PATH={where!r} is not a program" if where is not None else "not on PATH"
    return f"{what} needs chromium, which is not installed here ({looked}): {INSTALL}."


def require(what: str) -> str:
    """The path of chromium, or :class:`ChromiumMissing` saying ``what`` needs it."""
    path = find()
    if path is None:
        raise ChromiumMissing(missing_message(what))
    return path


def to_pdf(document: str, timeout: float = 120.0) -> bytes:
    """``document`` (HTML) printed to PDF by headless chromium (A4, no header or footer), after
    the page's scripts have drawn its figures (:data:`DRAW_BUDGET_MS` of virtual time).

    Raises :class:`ChromiumMissing` at once without chromium, :class:`ChromiumFailed` when it
    writes no PDF within ``timeout`` seconds (its process group is then killed). A temporary
    folder holds the file and chromium's profile; it is removed afterwards.
    """
    chromium = require("A PDF report")
    tmp = Path(tempfile.mkdtemp(prefix="benchuq-report-"))
    try:
        src, out = tmp / "report.html", tmp / "report.pdf"
        src.write_text(document, encoding="utf-8")
        cmd = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp / 'profile'}",
            "--no-pdf-header-footer",
            "--run-all-compositor-stages-before-draw",
            f"--virtual-time-budget={DRAW_BUDGET_MS}",
            f"--print-to-pdf={out}",
            src.as_uri(),
        ]
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise ChromiumFailed(
                f"chromium ({chromium}) did not print the PDF within {timeout:g} s."
            ) from None
        if not out.exists() or out.stat().st_size == 0:
            raise ChromiumFailed(f"chromium ({chromium}) wrote no PDF (exit {proc.returncode}).")
        return out.read_bytes()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and the processes it started (its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


@dataclass(frozen=True)
class _Failed:
    """An exception of a coroutine, carried back as its result (see ``ChartImages._run``)."""

    error: Exception


class ChartImages:
    """PNG and SVG images of figures from one long-running kaleido (one chromium) on an event loop
    in a daemon thread of its own: an image takes about 0.1-0.4 s instead of 3-4 s for a fresh
    chromium. Every wait is bounded (``timeout``); after a failure the browser is dropped and the
    next image starts a new one. Used by the app's chart downloads (``dashboard.export``).

    ``tmp_dir``: where chromium's profile goes; ``page``: kaleido's page (an ``index.html`` that
    loads no script from the network)."""

    def __init__(
        self, *, tmp_dir: str | None = None, page: str | None = None, timeout: float = 30.0
    ) -> None:
        self._tmp_dir, self._page, self._timeout = tmp_dir, page, timeout
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: Any = None
        atexit.register(self.close)

    def _run(self, coro: Any, timeout: float) -> Any:
        """``coro`` on the loop, waited for at most ``timeout`` seconds (then cancelled)."""

        async def kept() -> Any:  # its error is returned, so none is left "never retrieved"
            try:
                return await coro
            except Exception as err:
                return _Failed(err)

        assert self._loop is not None
        fut: Future[Any] = asyncio.run_coroutine_threadsafe(kept(), self._loop)
        try:
            done = fut.result(timeout)
        except FutureTimeout:
            fut.cancel()
            raise
        if isinstance(done, _Failed):
            raise done.error
        return done

    def _open(self, chromium: str) -> None:
        import kaleido

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, daemon=True, name="benchuq-kaleido").start()
        self._loop = loop
        kwargs: dict[str, Any] = {"n": 1, "timeout": self._timeout, "path": chromium}
        if self._tmp_dir:
            kwargs["tmp_dir"] = self._tmp_dir
        if self._page:
            kwargs["page_generator"] = self._page

        self._kaleido = kaleido.Kaleido(**kwargs)  # no process yet: open() starts chromium
        self._run(self._kaleido.open(), self._timeout)

    def image(self, fig: go.Figure, fmt: str, *, scale: float = 1.0) -> bytes:
        """``fig`` as ``fmt`` (``"png"`` or ``"svg"``) bytes at its own size (``scale`` times
        its pixels), or :class:`ChromiumMissing` / :class:`ChromiumFailed` (one line)."""
        chromium = require(f"A {fmt.upper()} image")
        with self._lock:
            try:
                if self._kaleido is None:
                    self._open(chromium)
                layout = fig.layout
                opts = {"format": fmt, "scale": scale, "width": layout.width or 700}
                opts["height"] = layout.height or 500
                spec = fig.to_plotly_json()
                return self._run(self._kaleido.calc_fig(spec, opts=opts), self._timeout)
            except Exception as err:
                self._drop()
                if isinstance(err, FutureTimeout | TimeoutError):
                    msg = f"chromium did not draw the {fmt.upper()} within {self._timeout:g} s."
                else:
                    msg = f"chromium could not draw the {fmt.upper()}: {str(err).splitlines()[0]}"
                raise ChromiumFailed(msg) from None

    def _drop(self, wait: float = 5.0) -> None:
        """Close the browser (waiting at most ``wait`` seconds) and stop the loop's thread."""
        loop, k = self._loop, self._kaleido
        self._loop, self._kaleido = None, None
        if loop is None:
            return
        if k is not None:
            fut = asyncio.run_coroutine_threadsafe(k.close(), loop)
            try:
                fut.result(wait)
            except Exception:  # closing is best effort: the thread is a daemon
                fut.cancel()
            proc = getattr(k, "subprocess", None)  # a browser that never answered: kill it
            if isinstance(proc, subprocess.Popen) and proc.poll() is None:
                _kill_group(proc)  # choreographer starts it in a session of its own
        loop.call_soon_threadsafe(loop.stop)

    def close(self) -> None:
        """Close the browser; the next image starts a new one."""
        if self._lock.acquire(timeout=5):
            try:
                self._drop()
            finally:
                self._lock.release()
