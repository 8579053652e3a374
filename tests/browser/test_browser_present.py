"""Real browser (issue 30): upload a zipped lm-eval folder, rename the data, publish, download the
report: the name is in the report's title, a chart subtitle and the published listing (the
sidebar's "Data set"); the recipient of the link sees the same name; the zip's data hash is the
folder's."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    main_codes,
    screenshot,
    wait_for_text_then_idle,
)

from benchuq.core.reading.loaders import read_paths

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
NAME = "Nightly base models"


def _zip(tmp_path: Path) -> Path:
    archive = tmp_path / "results_v04.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(LM_EVAL.iterdir()):
            z.write(f, f"results_v04/{f.name}")
    return archive


def _data_set_box(page) -> str:
    """The sidebar's "Data set" choice as shown."""
    box = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(has_text="Data set")
    return box.locator("input").input_value() or box.inner_text()


def test_upload_rename_publish_and_report(browser, app_server, tmp_path) -> None:
    page = browser.new_context(viewport=VIEWPORT, accept_downloads=True).new_page()
    page.goto(f"{app_server}/data?reps=200")
    wait_for_text_then_idle(page, "Upload your results")
    box = page.get_by_test_id("stFileUploader").filter(has_text="Result files")
    box.locator("input[type=file]").set_input_files(str(_zip(tmp_path)))
    wait_for_text_then_idle(page, "results_v04: 2 models x 16 benchmarks", timeout=120_000)
    name = page.get_by_role("textbox", name="Name of this data set")
    name.fill(NAME)
    name.press("Enter")
    wait_for_text_then_idle(page, f"In use: {NAME}")
    page.get_by_role("button", name="Publish and get a link").click()
    wait_for_text_then_idle(page, "Published until")
    assert f"Published: {NAME} (" in _data_set_box(page)  # the published listing names it
    link = next(
        c for c in main_codes(page, "delete=") if "data=shared:" in c and "delete=" not in c
    )
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Report", exact=True).click()
    wait_for_text_then_idle(page, "Download report (HTML)", timeout=120_000)
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download report (HTML)").click()
    doc = Path(download.value.path()).read_text(encoding="utf-8")
    assert f"<h1>{NAME}" in doc and "Benchmark report:" not in doc
    assert f"Data: {NAME} ·" in doc  # a chart subtitle
    assert "data=shared:" in doc and "Publish them first" not in doc
    folder_hash = read_paths([LM_EVAL]).bench.data_hash
    assert f"sha256 {folder_hash}" in doc  # the zip's data hash is the folder's
    screenshot(page, "present_report")
    assert exceptions_shown(page) == []

    other = browser.new_context(viewport=VIEWPORT).new_page()  # the recipient of the link
    other.goto(link.replace("/?", "/data?", 1))
    wait_for_text_then_idle(other, f"In use: {NAME}", timeout=120_000)
    assert f"Published: {NAME} (" in _data_set_box(other)
    assert exceptions_shown(other) == []
    page.context.close()
    other.context.close()
