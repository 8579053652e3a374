"""Real browser: uploaded battles on the Arena page say in the share box that they need
publishing; the Data page publishes them, and the link opens the Arena page in a fresh browser
with the same ratings (the forest chart's numbers) and sentence (#41)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    main_codes,
    screenshot,
    wait_charts,
    wait_for_text_then_idle,
    wait_idle,
)

from benchuq.core.analyses.arena_synthetic import simulate_battles

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The numbers plotly.js drew (``_fullData``; typed arrays as lists).
TRACES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(el => JSON.stringify(
    el._fullData.map(t => ({name: t.name, x: t.x, y: t.y})),
    (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v))"""


def _votes(tmp_path: Path) -> Path:
    bt = simulate_battles(np.array([0.6, 0.1, -0.7]), n=600, seed=11)
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    path = tmp_path / "votes.csv"
    pd.DataFrame({"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner}).to_csv(
        path, index=False
    )
    return path


def _arena(page) -> tuple[list[str], list[str]]:
    """The Arena page's bold lines (its answer) and the numbers of its charts, once drawn."""
    page.get_by_role("heading", name="Arena").first.wait_for(timeout=60_000)
    wait_idle(page, timeout=120_000)
    wait_charts(page)
    wait_idle(page)
    assert exceptions_shown(page) == []
    bold = page.get_by_test_id("stMain").locator("strong").all_inner_texts()
    return bold, page.evaluate(TRACES)


def test_battles_publish_and_reopen_with_the_same_ratings(browser, app_server, tmp_path) -> None:
    a = browser.new_context(viewport=VIEWPORT).new_page()
    a.goto(f"{app_server}/data?reps=200")
    wait_for_text_then_idle(a, "Upload your results")
    box = a.get_by_test_id("stFileUploader").filter(has_text="Result files")
    box.locator("input[type=file]").set_input_files(str(_votes(tmp_path)))
    wait_for_text_then_idle(a, "table of pairwise battles")
    nav = a.get_by_test_id("stSidebarNav")
    nav.get_by_role("link", name="Arena", exact=True).click()
    mine = _arena(a)
    assert any("m00" in line for line in mine[0]) and len(mine[1]) == 3
    a.get_by_test_id("stSidebar").get_by_text("Share this view").click()
    body = a.get_by_test_id("stPopoverBody")
    body.get_by_text("No link yet").wait_for(timeout=30_000)
    assert body.get_by_test_id("stCode").count() == 0  # no link that would open VTAB-1k
    a.keyboard.press("Escape")

    nav.get_by_role("link", name="Data", exact=True).click()
    wait_for_text_then_idle(a, "The uploaded battles")
    a.get_by_role("button", name="Publish and get a link").click()
    wait_for_text_then_idle(a, "Published until")
    assert re.search(r"data=shared%3A[a-z2-7]{32}", a.url), a.url
    codes = main_codes(a, "/arena?")  # the link's box can fill after the "Published until" line
    link = next((c for c in codes if "/arena?" in c and "delete=" not in c), None)
    assert link is not None, codes
    assert link.startswith(f"{app_server}/arena?") and "data=shared:" in link
    screenshot(a, "share_battles_published")

    b = browser.new_context(viewport=VIEWPORT).new_page()  # a colleague with the link
    b.goto(link)
    assert _arena(b) == mine
    screenshot(b, "share_battles_opened")
    a.context.close()
    b.context.close()
