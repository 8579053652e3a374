"""Real browser: one session's request over the work budget is refused with a message, and that
session's other pages and another session keep working (#19)."""

from __future__ import annotations

import pytest
from browser_utils import VIEWPORT, exceptions_shown, run_app, wait_charts, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_refused_request_leaves_pages_and_sessions_working(browser) -> None:
    with run_app(env={"BENCHUQ_WORK_MB": "2"}) as url:  # vtab1k at 20,000 reps needs 46 MB
        a = browser.new_context(viewport=VIEWPORT).new_page()
        a.goto(f"{url}/?reps=20000")
        a.get_by_text("BENCHUQ_WORK_MB").first.wait_for(timeout=60_000)
        wait_idle(a)
        assert exceptions_shown(a) == []
        assert a.get_by_text("Replicates").count() > 0  # the setting to change is named
        b = browser.new_context(viewport=VIEWPORT).new_page()
        b.goto(f"{url}/?reps=200")
        wait_charts(b)
        wait_idle(b)
        assert exceptions_shown(b) == [] and b.get_by_text("BENCHUQ_WORK_MB").count() == 0
        a.goto(f"{url}/data?reps=20000")  # the refused session's other pages work
        a.get_by_role("heading", name="Data").first.wait_for(timeout=60_000)
        wait_idle(a)
        assert exceptions_shown(a) == []
        a.goto(f"{url}/?reps=200")  # and the allowed setting works in it
        wait_charts(a)
        assert exceptions_shown(a) == []
