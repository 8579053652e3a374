"""Real browser: the Win probabilities (EPP) page renders its charts, switches intervals, tests a
pair, and flags a separated model. Screenshots go to tests/artifacts/ (gitignored)."""

from __future__ import annotations

import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    screenshot,
    wait_charts,
    wait_for_text_then_idle,
    wait_idle,
)

pytestmark = pytest.mark.browser
TITLE = "Win probabilities (EPP)"


def _clean(page, where: str) -> None:
    assert exceptions_shown(page) == [], where
    assert page.get_by_text("This app has encountered an error").count() == 0, where


def test_epp_page_charts_interval_switch_and_pair_test(browser, app_server) -> None:
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(f"{app_server}/?reps=200&level=0.95")
    wait_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=TITLE, exact=True).click()
    page.get_by_role("heading", name=TITLE).first.wait_for(timeout=60_000)
    wait_idle(page)
    wait_charts(page)
    _clean(page, "EPP page")
    main = page.get_by_test_id("stMain")
    assert main.get_by_test_id("stPlotlyChart").count() == 4
    assert "Wald test of equal EPP" in main.inner_text()
    assert "level=0.95" in page.url  # the shared link survives the page switch
    screenshot(page, "epp_page")

    page.get_by_text("GLM (matches independent)", exact=True).click()
    wait_for_text_then_idle(page, "GLM intervals treat every match as independent")
    _clean(page, "GLM intervals")

    box = main.get_by_test_id("stSelectbox").filter(has_text="Model B")
    box.click()
    page.keyboard.type("WAE-GAN")  # the option list is virtualised: filter it by typing
    page.get_by_role("option", name="WAE-GAN", exact=True).click()
    wait_for_text_then_idle(page, "beats WAE-GAN in")
    text = main.inner_text()
    assert "WAE-GAN" in text.split("Pair test", 1)[1]
    assert "significant at the 5% level" in text
    screenshot(page, "epp_pair_test")
    ctx.close()


def test_separated_model_is_flagged_in_the_browser(browser, app_server) -> None:
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(f"{app_server}/epp?reps=200&models=Rotation,Uncond-BigGAN")
    wait_for_text_then_idle(page, "Separation")
    wait_charts(page)
    _clean(page, "separated")
    assert "Rotation" in page.get_by_test_id("stAlertContentWarning").first.inner_text()
    screenshot(page, "epp_separated")
    ctx.close()
