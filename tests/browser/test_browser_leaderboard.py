"""Real browser: the Leaderboard draws its first row of charts at once and the per-category
charts when their expander is opened (issue 30: the first page waits for less), link unchanged."""

from __future__ import annotations

import pytest
from browser_utils import exceptions_shown, open_page, wait_idle

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

CHART = '[data-testid="stPlotlyChart"] .main-svg'


def test_per_category_charts_are_drawn_when_opened(browser, app_server) -> None:
    ctx, page = open_page(browser, f"{app_server}/?reps=200", "Leaderboard")
    main = page.get_by_test_id("stMain")
    first = main.get_by_test_id("stPlotlyChart").count()
    url = page.url
    main.get_by_test_id("stExpander").filter(has_text="Charts per category").locator(
        "summary"
    ).click()
    page.wait_for_function(
        f"document.querySelectorAll('[data-testid=\"stMain\"] {CHART}').length >= {first + 3}",
        timeout=120_000,
    )
    wait_idle(page)
    assert "Structured" in main.inner_text() or "structured" in main.inner_text()
    assert page.url == url  # the expander's state stays out of the link
    assert exceptions_shown(page) == []
    ctx.close()
