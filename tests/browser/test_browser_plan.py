"""Real browser: the Plan page restores its inputs from a link, writes changes back to the URL,
and its share link opens the same plan in a fresh browser. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    screenshot,
    wait_charts,
    wait_for_text_then_idle,
)

pytestmark = pytest.mark.browser


def _clean(page, where: str) -> None:
    assert exceptions_shown(page) == [], where
    assert page.get_by_text("This app has encountered an error").count() == 0, where


def test_plan_link_round_trip(browser, app_server) -> None:
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    query = "data=sample:alpaca_eval&reps=200&plan_power=0.9&plan_models=claude-2,phi-2"
    page.goto(f"{app_server}/plan?{query}")
    wait_for_text_then_idle(page, "claude-2 vs phi-2: detectable at", timeout=90_000)
    wait_charts(page)
    _clean(page, "plan from a link")
    main = page.get_by_test_id("stMain")
    assert "at 90% power" in main.inner_text()
    screenshot(page, "plan_page")

    box = main.get_by_test_id("stNumberInput").filter(has_text="Difference to detect")
    box.locator("input").fill("2")
    box.locator("input").press("Enter")
    wait_for_text_then_idle(page, "to detect 2 points at 90% power")
    page.wait_for_url(lambda url: "plan_delta=2" in url, timeout=30_000)
    _clean(page, "after the difference")
    sentence = main.get_by_text("claude-2 vs phi-2: detectable at").inner_text()

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Share this view").click()
    link = (
        page.get_by_test_id("stPopoverBody").get_by_test_id("stCode").inner_text().replace("\n", "")
    )
    assert "plan_delta=2" in link and "plan_power=0.9" in link and "data=sample" in link
    other = browser.new_context(viewport=VIEWPORT)
    page2 = other.new_page()
    page2.goto(link)
    wait_for_text_then_idle(page2, "claude-2 vs phi-2: detectable at", timeout=90_000)
    _clean(page2, "shared plan")
    assert page2.get_by_test_id("stMain").get_by_text(sentence).count() == 1
    other.close()
    ctx.close()
