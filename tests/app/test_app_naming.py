"""AppTest of named data (issue 30): an upload is named by its content, the Data page renames it,
and the name reaches the report, the chart subtitles and the published data set (with its
description); a report of an upload says to publish first instead of printing a useless link."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import page_path
from table_fit import AUTO_MAX_PX, column_width

from benchuq.store import open_store

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
NAME = "lm-eval v0.4: 2 models x 16 benchmarks"


def _uploaded(make_app):
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    files = [(f.name, f.read_bytes(), "application/json") for f in sorted(LM_EVAL.iterdir())]
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _name_box(at):
    (box,) = [t for t in at.text_input if t.label == "Name of this data set"]
    return box


def test_an_upload_is_named_renamed_reported_and_published(make_app) -> None:
    at = _uploaded(make_app)
    success = " ".join(s.value for s in at.success)
    assert "In use: **lm-eval v0.4: 2 models x 16 benchmarks**" in success.replace("\\", "")
    assert "upload —" not in success and "counts data" not in success  # plain words
    assert _name_box(at).value == NAME
    at.switch_page(page_path("report.py")).run()
    assert not at.exception and not at.error
    assert NAME in [s.value.replace("\\", "") for s in at.subheader]
    assert any("publish the data first" in i.value for i in at.info)

    at.switch_page(page_path("data.py")).run()
    _name_box(at).set_value("Nightly base models").run()
    assert not at.exception
    at.switch_page(page_path("report.py")).run()
    assert "Nightly base models" in [s.value for s in at.subheader]
    subtitles = [c.proto.spec for c in at.get("plotly_chart")]
    assert subtitles and all("Data: Nightly base models" in s for s in subtitles)

    at.switch_page(page_path("data.py")).run()
    at.text_input(key="share_description").set_value("two small models, 0-shot").run()
    at.button(key="publish").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    data = at.query_params["data"]
    shared = open_store().load(data)
    assert shared.name == "Nightly base models"
    assert shared.notes[0].endswith("About the data: two small models, 0-shot")

    # the sidebar lists the published set by its name, its id after it (was "Published: <id>…")
    label = f"Published: Nightly base models ({data.removeprefix('shared:')[:8]}…)"
    assert label in at.selectbox(key="data").options

    other = make_app({"reps": "200", "data": data}).run()  # the recipient of the link
    assert label in other.selectbox(key="data").options  # on the first view already
    assert other.selectbox(key="data").value == data
    other.switch_page(page_path("report.py")).run()
    assert not other.exception and not other.error
    assert "Nightly base models" in [s.value for s in other.subheader]
    assert not any("publish the data first" in i.value for i in other.info)


def test_clearing_the_name_brings_back_the_name_from_the_files(make_app) -> None:
    at = _uploaded(make_app)
    _name_box(at).set_value("mine").run()
    assert "mine" in " ".join(s.value for s in at.success)
    _name_box(at).set_value("").run()
    assert _name_box(at).value == NAME
    assert NAME in " ".join(s.value for s in at.success).replace("\\", "")


def test_the_leaderboard_table_shows_the_overall_label_whole(make_app) -> None:
    """The table's group cell read "Overall (mean of 16 benchmarks; mmlu = lm-eval's
    size-weighted mean of 57 subjects)", cut by the grid (audit of 30): the cell holds the first
    clause; the caption under the table and the column's help name the aggregate in full."""
    at = _uploaded(make_app)
    at.switch_page(page_path("leaderboard.py"))
    at.session_state["leaderboard_table"] = True  # the table's panel, open
    at.run()
    assert not at.exception and not at.error
    (table,) = at.dataframe
    assert column_width(table.value, "group") <= AUTO_MAX_PX
    assert table.value["group"].iloc[0] == "Overall (mean of 16 benchmarks)"
    full = "Overall = mean of 16 benchmarks; mmlu = lm-eval's size-weighted mean of 57 subjects"
    under = [c.value.replace("\\", "") for c in at.caption if "MC error" in c.value]
    assert under and full in under[0]
    assert full in json.loads(table.proto.columns)["group"]["help"]
