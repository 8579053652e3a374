"""Real browser (Playwright + Debian chromium): upload, slider, shareable URL, every page clean.

Screenshots go to tests/artifacts/ (gitignored). Skipped without chromium, failed under CI=1.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    screenshot,
    wait_charts,
    wait_for_text_then_idle,
    wait_idle,
)

CHART = '[data-testid="stPlotlyChart"] .main-svg'
pytestmark = [pytest.mark.browser, pytest.mark.slow]

CSV = """model,task,category,n,correct
north,t1,reading,400,300
north,t2,math,300,150
south,t1,reading,400,280
south,t2,math,300,180
west,t1,reading,400,200
west,t2,math,300,100
"""
PAGES = ["Leaderboard", "Compare models", "Ranks", "Data", "Methods"]

#: Before a click that reruns the app: note the main area's text and watch the script state.
ARM_RERUN = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const r = window.__rerun = {seen: false, text: main ? main.innerText : ""};
  new MutationObserver(() => { if (app.dataset.testScriptState === "running") r.seen = true; })
    .observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""
#: The rerun has happened and ended: a run was seen (or, for a run too quick to be seen, the main
#: area shows other, non-empty content) and the app is connected and idle.
RERUN_DONE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const r = window.__rerun;
  if (!r || !app || !main) return false;
  const text = main.innerText;
  const ran = r.seen || (text.trim() !== "" && text !== r.text);
  return ran && app.dataset.testConnectionState === "CONNECTED"
    && app.dataset.testScriptState === "notRunning";
}"""


def _goto_page(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
    wait_idle(page)


def _clean(page, where: str) -> None:
    assert exceptions_shown(page) == [], where
    assert page.get_by_text("This app has encountered an error").count() == 0, where


def test_upload_slider_link_and_every_page(browser, app_server, tmp_path) -> None:
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(f"{app_server}/?reps=500")
    wait_charts(page)
    wait_idle(page)
    _clean(page, "first render")
    assert "reps=500" in page.url and "data=" not in page.url  # the default sample: left out

    # upload a CSV on the Data page
    _goto_page(page, "Data")
    assert "reps=500" in page.url  # the link survives a page switch
    csv = tmp_path / "mine.csv"
    csv.write_text(CSV)
    page.locator('[data-testid="stFileUploader"] input[type=file]').first.set_input_files(csv)
    wait_for_text_then_idle(page, "In use: mine:")
    _clean(page, "after upload")
    assert "data=upload" in page.url
    screenshot(page, "data_upload")
    _goto_page(page, "Leaderboard")
    wait_charts(page)
    assert page.get_by_text("west").count() > 0

    # back to a sample, then move the level slider by keyboard: the URL follows
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(
        has_text="Data set"
    ).click()
    page.get_by_role("option", name="Sample: vtab1k").click()
    page.wait_for_url(lambda url: "data=" not in url, timeout=60_000)  # the default again
    wait_charts(page)
    wait_idle(page)
    level = page.get_by_test_id("stSlider").filter(has_text="Interval level")
    # the slider shows the level in use (CI's browser once drew it at its minimum, 50%, after
    # the page switch: tests/app/test_app_shell.py, every run sends the sidebar's values)
    assert float(level.get_by_test_id("stSliderThumbValue").inner_text()) == 83.4
    slider = level.get_by_role("slider")
    slider.focus()
    # five quick presses, each before the last one's run has ended: a run used to send the
    # value it started with back to the browser and undo the later press (one of five lost)
    for _ in range(5):
        slider.press("ArrowRight")
        page.wait_for_timeout(120)
    page.wait_for_url(re.compile(r"level=0\.839"), timeout=60_000)
    wait_idle(page)
    assert float(level.get_by_test_id("stSliderThumbValue").inner_text()) == 83.9
    wait_idle(page)
    _clean(page, "after slider")
    screenshot(page, "leaderboard")
    link = page.url
    page.get_by_test_id("stSidebar").get_by_text("Share this view").click()
    shared = page.get_by_test_id("stPopoverBody").get_by_test_id("stCode").inner_text()
    assert shared.replace("\n", "").startswith(app_server) and "level=0.839" in shared
    view = page.get_by_test_id("stMain").inner_text()
    charts = page.locator(CHART).count()

    # the copied link in a fresh browser context shows the same view
    other = browser.new_context(viewport=VIEWPORT)
    page2 = other.new_page()
    page2.goto(link)
    wait_charts(page2, timeout=120_000)  # a fresh session computes its draws (slow under load)
    page2.wait_for_function(  # every chart drawn, not only the first
        f"document.querySelectorAll('{CHART}').length >= {charts}", timeout=120_000
    )
    wait_idle(page2)
    _clean(page2, "shared link")
    assert "level=0.839" in page2.url
    assert page2.get_by_test_id("stMain").inner_text() == view
    slider2 = page2.get_by_test_id("stSlider").filter(has_text="Interval level")
    assert "83.9" in slider2.inner_text()

    # every page of the navigation (other engineers' pages too) renders without an exception
    nav = page2.get_by_test_id("stSidebarNav").get_by_role("link")
    titles = [t.strip().splitlines()[-1].strip() for t in nav.all_inner_texts()]  # after icon
    assert set(PAGES) <= set(titles), titles
    for title in titles[1:]:
        page2.evaluate(ARM_RERUN)
        nav = page2.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
        path = urlsplit(nav.get_attribute("href") or "").path
        nav.click()
        page2.wait_for_function(RERUN_DONE, timeout=180_000)  # the new page's run, not a timer
        # the new page's own address with the level the run wrote back (the previous page's
        # address also holds the level, so a wait for the level alone ended at once)
        page2.wait_for_url(
            lambda url, p=path: urlsplit(url).path == p and "level=0.839" in url, timeout=60_000
        )
        wait_idle(page2, timeout=180_000)
        if title in ("Compare models", "Ranks"):
            wait_charts(page2)
        _clean(page2, title)
        assert "level=0.839" in page2.url, title
        screenshot(page2, re.sub(r"\W+", "_", title.lower()).strip("_"))
    # a bad value in a link: a visible notice naming the parameter, and the default in the URL
    page2.goto(f"{app_server}/?level=abc&reps=500")
    wait_charts(page2)
    wait_idle(page2)
    assert page2.get_by_text("Link parameter 'level' = 'abc' ignored").count() == 1
    page2.wait_for_url(lambda url: "level=" not in url and "reps=500" in url, timeout=60_000)
    screenshot(page2, "bad_link_notice")
    ctx.close()
    other.close()
