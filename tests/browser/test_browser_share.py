"""Real browser: publish an upload, open the link in a fresh browser, expired / made-up / deleted
ids, and a reload after an upload; with the store in a folder and on a real S3-compatible server.
The colleague who opens the link sees the same Leaderboard, Compare, Ranks and Task weights pages.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from browser_utils import (
    VIEWPORT,
    exceptions_shown,
    main_codes,
    remove_chip,
    run_app,
    screenshot,
    wait_charts,
    wait_for_text_then_idle,
    wait_idle,
)

from benchuq.core.reading.loaders import load_sample
from benchuq.store import Store, StoreConfig, new_id

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
PAGES = ("Leaderboard", "Compare models", "Ranks", "Task weights")
CSV = "model,task,category,n,correct\nnorth,t1,a,400,300\nsouth,t1,a,400,280\nwest,t1,a,400,200\n"


@contextmanager
def _app(kind: str, app_server: str, request) -> Iterator[tuple[str, dict[str, str]]]:
    """The app's URL and its store environment: the session's app (store in a temp folder) or a
    second app whose store is a fresh prefix on the S3 server."""
    if kind == "local":
        yield app_server, {}
        return
    s3 = request.getfixturevalue("s3_env")
    env = {**s3, "BENCHUQ_STORE": f"{s3['BENCHUQ_STORE']}-{uuid.uuid4().hex}"}
    with run_app(env=env) as url:
        yield url, env


def _goto_page(page, title: str) -> str:
    """Open a page from the sidebar; its main text once its charts are drawn."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
    wait_idle(page, timeout=120_000)
    wait_charts(page)
    wait_idle(page)
    assert exceptions_shown(page) == [], title
    return page.get_by_test_id("stMain").inner_text()


def _uploader(page):
    """The Data page's "Result files" input."""
    box = page.get_by_test_id("stFileUploader").filter(has_text="Result files")
    return box.locator("input[type=file]")


def _codes(page) -> list[str]:
    return main_codes(page, "delete=")  # the view link and the delete link, both filled


def _expired_id(env: dict[str, str]) -> str:
    """A data set published 10 days ago for 1 day, in the app's store."""
    past = datetime.now(UTC) - timedelta(days=10)
    store = Store(StoreConfig.from_env({**os.environ, **env}), clock=lambda: past)
    return store.publish(load_sample("toy"), days=1).id


@pytest.mark.parametrize("kind", ["local", "s3"])
def test_publish_open_elsewhere_expire_and_delete(browser, app_server, request, kind) -> None:
    with _app(kind, app_server, request) as (url, env):
        a = browser.new_context(viewport=VIEWPORT).new_page()
        a.goto(f"{url}/data?reps=200")
        wait_for_text_then_idle(a, "Upload your results")
        files = sorted(str(p) for p in LM_EVAL.glob("*.json"))
        _uploader(a).set_input_files(files)
        wait_for_text_then_idle(a, "In use: lm-eval v0.4")
        assert a.get_by_text("Anyone who has the link can see these data").count() == 1
        a.get_by_role("button", name="Publish and get a link").click()
        wait_for_text_then_idle(a, "Published until")
        assert re.search(r"data=shared%3A[a-z2-7]{32}", a.url), a.url
        screenshot(a, f"share_published_{kind}")
        link = next(c for c in _codes(a) if "data=shared:" in c and "delete=" not in c)
        delete_link = next(c for c in _codes(a) if "delete=" in c)
        assert link.startswith(f"{url}/?") and "reps=200" in link
        assert delete_link.startswith(f"{url}/data?data=shared:")
        # every page and a page's own choice on the folder store; on S3 the store's part (the
        # pages read the same loaded data whichever store it came from)
        pages = PAGES if kind == "local" else PAGES[:1]
        seen = {title: _goto_page(a, title) for title in pages}
        if kind == "local":
            _goto_page(a, "Compare models")  # a page's own choice, then the address bar's URL
            main = a.get_by_test_id("stMain")
            main.get_by_test_id("stRadio").filter(has_text="Correction").get_by_text(
                "Bonferroni"
            ).click()
            a.wait_for_url(re.compile(r"compare_correction=bonferroni"), timeout=60_000)
            wait_idle(a, timeout=120_000)
            wait_charts(a)
            seen["Compare models"] = a.get_by_test_id("stMain").inner_text()
            assert "Bonferroni" in seen["Compare models"]
        copied = a.url

        b = browser.new_context(viewport=VIEWPORT).new_page()  # a colleague with the URL
        b.goto(copied)
        wait_charts(b)
        wait_idle(b)
        for title in pages:
            assert _goto_page(b, title) == seen[title], title
        assert "Qwen" in seen["Leaderboard"] and "Llama" in seen["Leaderboard"]
        screenshot(b, f"share_opened_{kind}")

        for ident, message in ((_expired_id(env), "expired on"), (new_id(), "no published")):
            b.goto(f"{url}/?data=shared:{ident}")
            wait_for_text_then_idle(b, message)
            assert exceptions_shown(b) == []
        screenshot(b, f"share_unknown_{kind}")

        a.goto(delete_link)
        wait_for_text_then_idle(a, "Delete the published data set")
        a.get_by_role("button", name="Delete it").click()
        wait_for_text_then_idle(a, "its data is gone from the store")
        b.goto(link)  # the colleague's reload
        wait_for_text_then_idle(b, "was deleted by its publisher")
        assert exceptions_shown(b) == []
        screenshot(b, f"share_deleted_{kind}")
        # the deleted data set's files are gone from the store; its index record says when
        store = Store(StoreConfig.from_env({**os.environ, **env}))
        ident = link.split("data=shared:", 1)[1].split("&", 1)[0]
        record = store.index.get(hashlib.sha256(ident.encode()).hexdigest())
        assert record.deleted is not None and not store.fs.exists(f"{store.root}/{record.folder}")
        a.context.close()
        b.context.close()


def test_a_reload_after_an_upload_explains_and_the_reupload_restores(
    browser, app_server, tmp_path
) -> None:
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(f"{app_server}/data?reps=200")
    wait_for_text_then_idle(page, "Upload your results")
    upload = _uploader(page)
    csv = tmp_path / "mine.csv"
    csv.write_text(CSV)
    upload.set_input_files(str(csv))
    wait_for_text_then_idle(page, "In use: mine:")
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stExpander").filter(has_text="Models shown").locator("summary").click()
    remove_chip(sidebar.get_by_test_id("stMultiSelect"), "south")
    page.wait_for_url(re.compile(r"models=north%2Cwest"), timeout=60_000)
    wait_idle(page)

    page.reload()
    wait_for_text_then_idle(page, "survive a reload")
    assert page.get_by_text("upload the same files again on the Data page").count() == 1
    assert page.get_by_text("ignored").count() == 1  # one notice, not one per parameter
    screenshot(page, "reload_after_upload")
    _uploader(page).set_input_files(str(csv))
    wait_for_text_then_idle(page, "In use: mine:")
    page.wait_for_url(
        re.compile(r"data=upload.*models=north%2Cwest|models=north%2Cwest.*data=upload")
    )
    assert exceptions_shown(page) == []
    page.context.close()
