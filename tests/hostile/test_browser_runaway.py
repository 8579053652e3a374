"""Real browser: closing the tab stops its long script run; the server's CPU returns to idle
(#19, dashboard/runtime.py).

Measured over windows of a few seconds from /proc: the server's CPU ticks (utime + stime) and how
often one of its threads is runnable (state R). On a shared machine under load a running sampler
may get little CPU but its thread stays runnable, so "idle" needs both: almost no ticks and
(almost) never a runnable thread."""

from __future__ import annotations

import os
import time

import pytest
from browser_utils import SERVER_PIDS, VIEWPORT, run_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TICK = os.sysconf("SC_CLK_TCK")
WINDOW = 4.0  # seconds of one measurement
STEP = 0.05  # seconds between thread-state samples
# a Gibbs run at the page's caps on the largest sample (20 models x 57 tasks): over 10 minutes
# of one core, far longer than the test waits for idle
LONG = "/bayes?data=sample:mmlu&sampler=gibbs&chains=8&warmup=10000&reps=2000&method=bootstrap"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads) so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14, 15)


def any_runnable(pid: int) -> bool:
    """True if a thread of ``pid`` is running or waiting for a CPU (state R) right now."""
    states = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            states.append(open(f"/proc/{pid}/task/{task}/stat").read().rsplit(")", 1)[1].split()[0])
        except OSError:  # the thread ended meanwhile
            continue
    return "R" in states


def load(pid: int) -> tuple[float, float]:
    """Over the next :data:`WINDOW` seconds: (fraction of one core used, fraction of samples in
    which a thread was runnable)."""
    before, start, samples = cpu_seconds(pid), time.monotonic(), []
    while time.monotonic() - start < WINDOW:
        samples.append(any_runnable(pid))
        time.sleep(STEP)
    return (cpu_seconds(pid) - before) / (time.monotonic() - start), sum(samples) / len(samples)


def test_closed_tab_stops_its_script_run(browser) -> None:
    env = {"BENCHUQ_SAMPLER_SECONDS": "900"}  # only the closed tab may end the sampler
    with run_app(env=env) as url:
        pid = SERVER_PIDS[url]
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(url + LONG)
        # the sampler has started (its spinner shows) and keeps a thread runnable
        page.get_by_text("Sampling the posterior").first.wait_for(timeout=180_000)
        assert load(pid)[1] > 0.5
        assert page.get_by_text("Convergence").count() == 0
        context.close()
        deadline = time.monotonic() + 45  # the fix stops within a sweep (milliseconds)
        while (now := load(pid))[0] > 0.02 or now[1] > 0.1:  # CPU share, runnable share
            assert time.monotonic() < deadline, f"server still busy: {now}"
