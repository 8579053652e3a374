"""AppTest: the share box's "Publish as a site" download (issue 44), and the zip it builds."""

from __future__ import annotations

import io
import json
import zipfile

from benchuq.core.reading.loaders import load_sample
from benchuq.core.summaries.headline import headline
from benchuq.dashboard.site_download import LABEL, site_zip
from benchuq.presentation.state import Settings


def site_buttons(at) -> list:
    (box,) = [p for p in at.sidebar.get("popover") if p.proto.popover.label == "Share this view"]
    return [b for b in box.get("download_button") if b.proto.label == LABEL]


def test_share_box_offers_the_site(make_app) -> None:
    at = make_app().run()
    assert not at.exception
    (button,) = site_buttons(at)
    assert not button.proto.disabled
    assert "benchuq site" in button.proto.help
    at.selectbox(key="method").set_value("bayes").run()
    (button,) = site_buttons(at)
    assert button.proto.disabled and "Switch the method to Bootstrap" in button.proto.help


def test_the_zip_is_the_site_at_the_sidebar_settings() -> None:
    bench = load_sample("vtab1k")
    settings = Settings(data="sample:vtab1k", reps=200, level=0.9)
    data = site_zip(bench, settings, headline(bench), None)
    assert data == site_zip(bench, settings, headline(bench), None)  # byte-identical
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        board = json.loads(z.read("leaderboard.json"))
        index = z.read("index.html").decode()
    assert names[0] == "index.html"
    assert len([n for n in names if n.startswith("badges/")]) == len(bench.models)
    assert board["level"] == 0.9 and board["reps"] == 200
    rows = [r for r in board["rows"] if r["group"] == "overall"]
    assert {r["model"] for r in rows if r["tier"] == 1} == {
        r["model"] for r in rows if r["tied_with_leader"]
    }
    assert all(f'data-model="{m}"' in index for m in bench.models)
