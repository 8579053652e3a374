"""Real browser: the static leaderboard site (issue 44) opened from file:// offline: every model
shown, the tier labels those of leaderboard.json (tier 1 = tied with the leader), no console
error, no request but for local files, and the table sortable by keyboard alone."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from browser_utils import ARTIFACTS, VIEWPORT

pytestmark = [pytest.mark.browser]
TIMEOUT = 30_000


def test_site_offline_tiers_and_keyboard_sorting(browser, tmp_path) -> None:
    out = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "benchuq", "site", "sample:vtab1k", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    overall = [r for r in board["rows"] if r["group"] == "overall"]

    ctx = browser.new_context(viewport=VIEWPORT, offline=True)
    requests: list[str] = []
    ctx.route("**/*", lambda route: (requests.append(route.request.url), route.abort()))
    ctx.route("file://**", lambda route: route.continue_())  # later routes are tried first
    page = ctx.new_page()
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
    page.goto((out / "index.html").as_uri())
    page.wait_for_load_state("load")

    table = page.get_by_role("table", name="Overall: mean of 19 tasks")
    rows = table.locator("tbody tr")
    assert rows.count() == len(overall) == 16
    shown = rows.evaluate_all(
        "rs => rs.map(r => [r.dataset.model, r.cells[0].textContent.trim(), "
        "r.getBoundingClientRect().height > 0])"
    )
    assert [s[0] for s in shown] == [r["model"] for r in overall]  # best first, every model
    assert all(s[2] for s in shown)  # visible
    assert [s[1] for s in shown] == [f"Tier {r['tier']}" for r in overall]
    tier1 = {s[0] for s in shown if s[1] == "Tier 1"}
    assert tier1 == {r["model"] for r in overall if r["tied_with_leader"]}
    page.screenshot(path=str(ARTIFACTS / "site_offline.png"), full_page=True)

    # keyboard only: Tab to the Model header's button, Enter sorts by name, Enter again reverses
    header = table.get_by_role("columnheader", name="Model")
    page.keyboard.press("Tab")  # first: the nav links, then the search box, then the buttons
    for _ in range(40):
        if page.evaluate("document.activeElement.textContent.trim()") == "Model":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "ascending"
    names = rows.evaluate_all("rs => rs.map(r => r.dataset.model)")
    assert names == sorted(names, key=str.lower)
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "descending"
    assert rows.evaluate_all("rs => rs.map(r => r.dataset.model)") == names[::-1]
    score = table.get_by_role("columnheader", name="Score")
    assert score.get_attribute("aria-sort") == "none"
    assert "sorted by Model, descending" in page.locator("#status").inner_text()

    # search: the box filters every table to the matching models
    page.get_by_label("Search models or tasks").fill("wae")
    visible = rows.evaluate_all("rs => rs.filter(r => !r.hidden).map(r => r.dataset.model)")
    assert sorted(visible) == ["WAE-GAN", "WAE-MMD", "WAE-UKL"]

    assert [m for m in messages if m.startswith(("error", "pageerror"))] == [], messages
    assert [u for u in requests if not u.startswith("file:")] == []
    ctx.close()
