"""Real browser: the first screen's example button shows its whole label (it read "Try the VTAB-1k
exam…", cut, issue 41) and a click with VTAB-1k in use closes the introduction."""

from __future__ import annotations

import pytest
from browser_utils import exceptions_shown, wait_for_text_then_idle

pytestmark = pytest.mark.browser
TIMEOUT = 120_000
LABEL = "Show the full VTAB-1k leaderboard"


@pytest.mark.parametrize("width", [1024, 1400])
def test_the_example_button_fits_and_shows_the_leaderboard(browser, app_server, width) -> None:
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(app_server)  # a first visit: no link parameters, VTAB-1k in use
    wait_for_text_then_idle(page, LABEL, timeout=TIMEOUT)
    button = page.get_by_role("button", name=LABEL)
    scroll, client = button.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert scroll <= client, (scroll, client)  # nothing cut
    label = button.locator("p").first
    assert label.evaluate("e => e.scrollWidth <= e.clientWidth"), label.inner_text()
    button.click()
    page.wait_for_function(
        "() => !document.body.innerText.includes('How far behind the leader')", timeout=TIMEOUT
    )
    wait_for_text_then_idle(page, "Leaderboard", timeout=TIMEOUT)
    assert not exceptions_shown(page)
    page.context.close()
