"""Real browser: a page's own choices travel in the copied link (issue #14.4), a short one
(issue 30).

On Compare, pick the "structured" score, Bonferroni and five models; the copied URL, opened in a
fresh browser context, shows the same page, the same choices and the same numbers. The link
carries only what differs from the defaults; the default view's link is under 60 characters.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from browser_utils import VIEWPORT, exceptions_shown, screenshot, wait_charts, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TIMEOUT = 120_000
CHART = '[data-testid="stPlotlyChart"] .main-svg'


def _ready(page) -> None:
    page.get_by_role("heading", name="Compare models").first.wait_for(timeout=TIMEOUT)
    wait_idle(page, TIMEOUT)
    wait_charts(page, TIMEOUT)
    # the model chips can be drawn after the charts on a busy machine: wait for the first one
    chips = page.get_by_test_id("stMain").get_by_test_id("stMultiSelect")
    chips.get_by_role("button", name=re.compile("^Remove ")).first.wait_for(timeout=TIMEOUT)
    assert exceptions_shown(page) == []


def _after(page, pattern: str) -> None:
    """Wait for the URL to show the change, then for the app to settle."""
    page.wait_for_url(re.compile(pattern), timeout=TIMEOUT)
    wait_idle(page, TIMEOUT)


def _page_text(page) -> str:
    """The Compare page's own text, from its title on (above it: the app's data-notes pointer)."""
    text = page.get_by_test_id("stMain").inner_text()
    return text[text.index("Compare models") :]


def _chips(page) -> list[str]:
    box = page.get_by_test_id("stMain").get_by_test_id("stMultiSelect")
    names = box.get_by_role("button", name=re.compile("^Remove ")).all()
    return [n.get_attribute("aria-label").removeprefix("Remove ") for n in names]


def _choices(page) -> tuple[str, bool, list[str]]:
    main = page.get_by_test_id("stMain")
    box = main.get_by_test_id("stSelectbox").filter(has_text="Score")
    score = box.locator("input").input_value() or box.inner_text().splitlines()[-1]
    radio = main.get_by_test_id("stRadio").filter(has_text="Correction")
    bonferroni = radio.get_by_role("radio", name="Bonferroni").is_checked()
    return score.strip(), bonferroni, sorted(_chips(page))


def test_compare_choices_travel_in_the_copied_link(browser, app_server) -> None:
    first = browser.new_context(viewport=VIEWPORT)
    page = first.new_page()
    page.goto(f"{app_server}/compare?reps=500")
    _ready(page)
    assert len(_chips(page)) == 3  # the top three by default
    main = page.get_by_test_id("stMain")

    main.get_by_test_id("stSelectbox").filter(has_text="Score").locator("input").click()
    page.get_by_role("option", name="structured", exact=True).click()
    _after(page, r"compare_score=structured")
    main.get_by_test_id("stRadio").filter(has_text="Correction").get_by_text("Bonferroni").click()
    _after(page, r"compare_correction=bonferroni")
    for name in ("Rotation", "VAE"):
        main.get_by_test_id("stMultiSelect").locator("input").click()
        page.keyboard.type(name)  # the option list is virtualised: filter it by typing
        page.get_by_role("option", name=name, exact=True).click()
        page.keyboard.press("Escape")
        _after(page, rf"compare_models=[^&]*{name}")
    wait_charts(page, TIMEOUT)
    chosen = _choices(page)
    assert chosen[:2] == ("structured", True)
    assert len(chosen[2]) == 5 and {"Rotation", "VAE"} <= set(chosen[2])
    verdicts = main.inner_text().split("Verdicts", 1)[1].split("Pairwise differences", 1)[0]
    assert verdicts.count("Bonferroni") >= 10  # ten pairs, each with its verdict
    link = page.url
    view = _page_text(page)
    charts = page.locator(CHART).count()
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Share this view").click()
    shared = (
        page.get_by_test_id("stPopoverBody").get_by_test_id("stCode").inner_text().replace("\n", "")
    )
    assert shared.startswith(f"{app_server}/compare?") and "compare_score=structured" in shared
    # short: only what differs from the defaults, in the same order in the address bar and box
    params = parse_qsl(urlsplit(link).query)
    assert [k for k, _ in params] == [
        "reps", "compare_score", "compare_correction", "compare_models"
    ]  # fmt: skip
    assert parse_qsl(urlsplit(shared).query) == params
    screenshot(page, "links_compare_first")

    second = browser.new_context(viewport=VIEWPORT)  # a fresh browser: no session, no cookies
    other = second.new_page()
    other.goto(link)
    _ready(other)
    other.wait_for_function(  # every chart drawn, not only the first
        f"document.querySelectorAll('{CHART}').length >= {charts}", timeout=TIMEOUT
    )
    assert "/compare?" in other.url  # the same page is open
    assert _choices(other) == chosen
    assert _page_text(other) == view  # same choices, same numbers
    screenshot(other, "links_compare_second")
    first.close()
    second.close()


def test_the_default_view_has_a_link_under_60_characters(browser, app_server) -> None:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{app_server}/")
    page.get_by_role("heading", name="Leaderboard").first.wait_for(timeout=TIMEOUT)
    wait_idle(page, TIMEOUT)
    assert exceptions_shown(page) == []
    assert urlsplit(page.url).query == ""  # every default: nothing to say
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Share this view").click()
    shared = (
        page.get_by_test_id("stPopoverBody").get_by_test_id("stCode").inner_text().replace("\n", "")
    )
    assert shared.startswith(app_server) and len(shared) < 60, shared
    context.close()


def test_the_rank_level_re_summarises_and_the_link_follows(browser, tmp_path) -> None:
    """Issue 41: the rank level on Ranks re-summarises cached ranks (the run log's work: no
    draws and no ranking of the replicates); the address bar and the share box follow the move,
    and the link opens the same rank level in a fresh browser."""
    from browser_utils import run_app

    log = tmp_path / "runs.jsonl"
    with run_app(env={"BENCHUQ_RUN_LOG": str(log)}) as url:
        first = browser.new_context(viewport=VIEWPORT)
        page = first.new_page()
        page.goto(f"{url}/ranks?reps=500")
        page.get_by_role("heading", name="Ranks").first.wait_for(timeout=TIMEOUT)
        wait_idle(page, TIMEOUT)
        wait_charts(page, TIMEOUT)
        runs = len(log.read_text().splitlines())
        main = page.get_by_test_id("stMain")
        box = main.get_by_test_id("stSlider").filter(has_text="Rank interval level")
        box.get_by_role("slider").focus()
        page.keyboard.press("ArrowRight")  # 95 -> 95.5
        _after(page, r"ranks_level=0\.955")
        wait_charts(page, TIMEOUT)
        assert exceptions_shown(page) == []
        assert "Rank ranges hold at 95.5%" in main.inner_text()
        moved = [json.loads(line) for line in log.read_text().splitlines()[runs:]]
        assert len(moved) == 1 and set(moved[0]["work"]) <= {"rank aggregations", "rank sets"}
        page.get_by_test_id("stSidebar").get_by_text("Share this view").click()
        shared = (
            page.get_by_test_id("stPopoverBody").get_by_test_id("stCode").inner_text()
        ).replace("\n", "")
        assert parse_qsl(urlsplit(shared).query) == parse_qsl(urlsplit(page.url).query)
        assert urlsplit(shared).path.endswith("/ranks")

        second = browser.new_context(viewport=VIEWPORT)  # a fresh browser: no session
        other = second.new_page()
        other.goto(shared)
        other.get_by_role("heading", name="Ranks").first.wait_for(timeout=TIMEOUT)
        wait_idle(other, TIMEOUT)
        wait_charts(other, TIMEOUT)
        assert "Rank ranges hold at 95.5%" in other.get_by_test_id("stMain").inner_text()
        first.close()
        second.close()
