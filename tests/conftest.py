"""Shared fixtures: AppTest factory for the dashboard, and real-browser fixtures.

- ``make_app(query=None, page=None)``: a fresh ``AppTest`` of ``dashboard/app.py`` with the given
  URL query parameters (strings) already set; call ``.run()`` yourself. ``page`` is a file in
  ``pages/`` (e.g. ``"compare.py"``) to switch to after the first run. Use ``FAST_QUERY`` for
  small replicate counts.
- ``app_server`` (session): base URL of ``benchuq app`` on a free port.
- ``browser`` (session): Playwright chromium (Debian ``/usr/bin/chromium``). Skipped when chromium
  or playwright is missing, but a failure when the environment variable ``CI`` is set.
- ``s3_env`` (session): a real S3-compatible server (moto's server mode, ``tests/s3_server.py``)
  and the environment that points the publishing store at it.
- The publishing store (``BENCHUQ_STORE``) is a fresh temporary folder for the whole session
  (one per pytest-xdist worker): no test writes to ``~/.benchuq``.
- Parallel workers (``scripts/test.sh`` runs ``-n 3 --dist loadgroup``): see
  :func:`pytest_collection_modifyitems` for what runs together and in which order.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator

import pytest
from browser_utils import CHROMIUM, CHROMIUM_ARGS, ENTRY, chromium_available, run_app
from s3_server import run_s3
from streamlit.testing.v1 import AppTest

os.environ["BENCHUQ_STORE"] = tempfile.mkdtemp(prefix="benchuq-store-")
atexit.register(shutil.rmtree, os.environ["BENCHUQ_STORE"], ignore_errors=True)


def _scan_components_once() -> None:
    """Every new ``AppTest`` scans the metadata of every installed distribution for Streamlit
    components (``streamlit.components.v2.manifest_scanner``; 1.65 and 1.67 do): 0.3 s
    of CPU, three quarters of a page run on cached data, repeated by each of the suite's
    hundreds of ``AppTest`` runs. The installed distributions do not change during a test run,
    so the scan is made once per process and its answer reused (the served app is another
    process: untouched)."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # a Streamlit without the scanner: no scan to share
        return
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is not None and not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


_scan_components_once()

#: Query parameters for fast app tests (small R; the default is 2000).
FAST_QUERY: dict[str, str] = {"reps": "200"}
APP_TIMEOUT = 120


def page_path(page: str) -> str:
    """A ``pages/`` file as AppTest's ``switch_page`` wants it (relative to the entry script)."""
    return f"../pages/{page}"


def share_box(at) -> tuple[list[str], str]:
    """The sidebar's "Share this view" popover of an AppTest run: its links and its text."""
    (box,) = [p for p in at.sidebar.get("popover") if p.proto.popover.label == "Share this view"]
    return [c.value for c in box.get("code")], " ".join(m.value for m in box.get("markdown"))


#: Tests that start a browser (and usually an app server) run one module at a time in each of
#: ``BENCHUQ_BROWSER_GROUPS`` groups (default 2): the browser modules alone took the whole
#: suite's 13 minutes as one group on a quiet machine; more than two at once on two loaded cores
#: let pages miss their waits (measured under ``-n 3``). ``BENCHUQ_BROWSER_GROUPS=1`` runs them
#: one at a time.
BROWSER_GROUP = "browser"
BROWSER_GROUPS = max(1, int(os.environ.get("BENCHUQ_BROWSER_GROUPS", "2")))
#: Seconds each browser module took (``-n 2 --dist loadgroup -m browser`` on the 2 shared cores,
#: load average 6-10, 2026-12-07; test_browser from its CI time): the weights that spread the
#: modules over the groups, so that no group runs long after the other (a module hash gave one
#: group 555 s and the other 315 s). A module not listed counts as
#: :data:`DEFAULT_BROWSER_SECONDS`.
BROWSER_SECONDS = {
    "test_browser_share": 146,
    "test_browser_links": 117,
    "test_browser_faults": 114,
    "test_browser": 100,
    "test_browser_pages": 74,
    "test_browser_report": 57,
    "test_browser_weights": 53,
    "test_browser_epp": 39,
    "test_browser_runaway": 39,
    "test_browser_budget": 34,
    "test_browser_plan": 31,
    "test_browser_present": 30,
    "test_browser_share_battles": 25,
    "test_browser_ingest": 25,
    "test_browser_landing": 18,
    "test_browser_leaderboard": 14,
    "test_browser_site": 10,
}
DEFAULT_BROWSER_SECONDS = 30


def _module(item: pytest.Item) -> str:
    """The module name of ``item`` (``test_browser_share``)."""
    return item.nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")


def _seconds(module: str) -> int:
    return BROWSER_SECONDS.get(module, DEFAULT_BROWSER_SECONDS)


def browser_groups(modules: Iterable[str], groups: int = BROWSER_GROUPS) -> dict[str, str]:
    """The browser group of each module: longest first, each to the group with the least time so
    far (the same answer on every worker: it depends on the module names only)."""
    load = [0] * groups
    out: dict[str, str] = {}
    for module in sorted(set(modules), key=lambda m: (-_seconds(m), m)):
        k = min(range(groups), key=lambda g: (load[g], g))
        load[k] += _seconds(module)
        out[module] = BROWSER_GROUP if groups == 1 else f"{BROWSER_GROUP}-{k}"
    return out


def _group(item: pytest.Item, browser: dict[str, str]) -> str | None:
    """The pytest-xdist group of ``item``: its own ``xdist_group`` mark; its module's browser
    group (``browser``) for a ``browser`` test; its module for a test that uses a module- or
    class-scoped fixture (computed once, on one worker, instead of once per worker); else none
    (spread freely)."""
    if item.get_closest_marker("xdist_group"):
        return None  # named by the test itself
    if item.get_closest_marker("browser"):
        return browser[_module(item)]
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info else ():
        if defs and defs[-1].scope in ("module", "class", "package"):
            return item.nodeid.split("::")[0]
    return None


def _rank(item: pytest.Item) -> int:
    """Collection order for the scheduler: the long tests first, so no worker starts one last."""
    for rank, mark in enumerate(("browser", "install", "slow")):
        if item.get_closest_marker(mark):
            return rank
    return 3


def pytest_configure(config: pytest.Config) -> None:
    """Keep the collection order below as the scheduling order: pytest-xdist (3.7 and later)
    otherwise sorts the groups by their number of tests, so the browser groups (9 and 18 tests,
    the longest by far) started behind the wheel test's 20 and an 18-test module group."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark groups for ``--dist loadgroup`` and put the long modules first, the longest browser
    modules first of all (each module's tests stay together and in their order, so module
    fixtures are still made once)."""
    browser = browser_groups(_module(i) for i in items if i.get_closest_marker("browser"))
    for item in items:
        group = _group(item, browser)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)

    def order(its: list[pytest.Item]) -> tuple[int, int]:
        rank = min(map(_rank, its))
        return rank, -_seconds(_module(its[0])) if rank == 0 else 0

    ordered = sorted(modules.values(), key=order)
    items[:] = [item for module in ordered for item in module]


@pytest.fixture
def make_app() -> Callable[..., AppTest]:
    def make(query: dict[str, str] | None = None) -> AppTest:
        at = AppTest.from_file(str(ENTRY), default_timeout=APP_TIMEOUT)
        at.query_params.update(FAST_QUERY if query is None else query)
        return at

    return make


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests need chromium and playwright in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not chromium_available():
        _missing(f"{CHROMIUM} not found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (python) is not installed")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def app_server() -> Iterator[str]:
    with run_app() as url:
        yield url


@pytest.fixture(scope="session")
def s3_env() -> Iterator[dict[str, str]]:
    with run_s3() as env:
        yield env
