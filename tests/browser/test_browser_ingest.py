"""Real browser: a real lm-eval folder (with stray files) through the uploader, notes shown once,
then the leaderboard table searched and sorted. Skipped without chromium, failed under CI=1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    open_expander,
    screenshot,
    wait_for_text_then_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

V04 = Path(__file__).parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"


def test_folder_upload_notes_once_and_the_table(browser, app_server, tmp_path) -> None:
    folder = Path(shutil.copytree(V04, tmp_path / "out"))
    (folder / "README.md").write_text("# runs\n")
    (folder / "config.yaml").write_text("batch_size: 8\n")
    (folder / "_provenance.txt").write_text("Copied from pull request 2809.\n")
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(f"{app_server}/data?reps=300")
    wait_for_text_then_idle(page, "Upload your results")
    uploader = (
        page.get_by_test_id("stFileUploader")
        .filter(has_text="Result files")
        .locator("input[type=file]")
    )
    uploader.set_input_files(sorted(folder.iterdir()))
    wait_for_text_then_idle(
        page, "In use: lm-eval v0.4", timeout=120_000
    )  # the sample has notes too
    main = page.get_by_test_id("stMain")
    assert main.get_by_text("Notes on this data").count() == 1
    skipped = main.get_by_text("3 files skipped")
    assert not any(n.is_visible() for n in skipped.all())  # collapsed until opened
    open_expander(page, "Notes on this data", "3 files skipped — not results")
    assert exceptions_shown(page) == []
    screenshot(page, "data_folder_upload")

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Leaderboard table").click()
    wait_for_text_then_idle(page, "2 of 2 models", timeout=120_000)  # the grid is a canvas
    assert page.get_by_text("notes on this data: see the Data page").count() == 1
    search = page.get_by_test_id("stTextInput").filter(has_text="Search").locator("input")
    search.fill("llama")
    search.press("Enter")
    wait_for_text_then_idle(page, "1 of 2 models")
    assert exceptions_shown(page) == []
    screenshot(page, "leaderboard_table")
    ctx.close()


def test_a_rescored_inspect_log_loads_with_a_note(browser, app_server, tmp_path) -> None:
    """Issue 41: an inspect_ai log re-scored with another scorer (its header names one its samples
    no longer carry) loads from the uploader, and the notes say which scorer was used."""
    import json

    from inspect_logs import inspect_log

    log = inspect_log(8, seed=5, scorers=("match",))
    log["results"] = {"total_samples": 8, "scores": [{"name": "model_graded_qa"}]}
    path = tmp_path / "rescored.json"
    path.write_text(json.dumps(log))
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(f"{app_server}/data?reps=300")
    wait_for_text_then_idle(page, "Upload your results")
    uploader = (
        page.get_by_test_id("stFileUploader")
        .filter(has_text="Result files")
        .locator("input[type=file]")
    )
    uploader.set_input_files([path])
    wait_for_text_then_idle(page, "In use:", timeout=120_000)
    main = page.get_by_test_id("stMain")
    open_expander(page, "Notes on this data", "a re-scored log")
    assert main.get_by_text("model_graded_qa", exact=False).count() >= 1
    assert exceptions_shown(page) == []
    assert page.get_by_test_id("stAlertContentError").count() == 0
    ctx.close()
