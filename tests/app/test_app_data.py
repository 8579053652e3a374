"""AppTest of the Data page: uploads (good, malformed, renamed columns), categories, isolation."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from app_upload import GOOD, MALFORMED, RENAMED, open_data_page, upload
from conftest import page_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def test_upload_becomes_the_current_data_everywhere(make_app) -> None:
    at = upload(open_data_page(make_app), "mine.csv", GOOD)
    assert not at.exception and not at.error
    assert at.query_params["data"] == "upload"
    assert [m.value for m in at.metric] == ["3", "2", "700", "2"]
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert {t["name"] for t in charts[0]["data"]} == {"north", "south", "west", "tags"}
    assert at.session_state["models"] == ["north", "south", "west"]


def test_malformed_upload_shows_the_message_and_keeps_the_app_working(make_app) -> None:
    at = upload(open_data_page(make_app), "broken.csv", MALFORMED)
    assert not at.exception
    message = " ".join(e.value for e in at.error).replace("\\", "")  # as rendered
    assert "broken.csv" in message and "correct" in message and "How to fix" in message
    assert "data" not in at.query_params  # the previous data stays in use
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 1  # the overall score; per-category charts when opened
    assert not at.dataframe  # the table too
    at.session_state["leaderboard_more"] = True
    at.session_state["leaderboard_table"] = True
    at.run()
    assert len(at.get("plotly_chart")) == 4  # no S(w) chart at the default (equal) weights
    assert len(at.dataframe) == 1
    at.switch_page(page_path("data.py")).run()
    assert at.multiselect(key="models").value  # other state kept


def test_column_mapping_repairs_a_renamed_column(make_app) -> None:
    at = upload(open_data_page(make_app), "renamed.csv", RENAMED)
    assert at.error and "data" not in at.query_params
    mapping = next(s for s in at.selectbox if "system" in s.label)
    mapping.set_value("model").run()
    assert not at.exception and not at.error
    assert at.query_params["data"] == "upload"
    assert at.session_state["models"] == ["north", "south", "west"]


def test_category_edits_apply_to_every_view(make_app) -> None:
    at = open_data_page(make_app)
    at.button(key="use_toy").click().run()
    edits = {"small": "easy", "medium": "hard", "large": "hard"}
    at.session_state["_category_edits"] = {"sample:toy": edits}
    at.run()
    assert not at.exception and not at.error
    assert at.number_input(key="weight_0").label == "easy"
    assert [m.value for m in at.metric][3] == "2"
    at.switch_page(page_path("leaderboard.py")).run()
    at.session_state["leaderboard_more"] = True  # the per-category charts' expander, open
    at.run()
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert "easy" in titles and "hard" in titles


def test_two_sessions_never_see_each_others_uploads(make_app) -> None:
    """Same file name, different content, two sessions: each sees only its own data."""
    other = GOOD.replace(b"north", b"east").replace(b"south", b"sun")
    first = upload(open_data_page(make_app), "results.csv", GOOD)
    second = upload(open_data_page(make_app), "results.csv", other)
    first.run()
    assert first.session_state["models"] == ["north", "south", "west"]
    assert second.session_state["models"] == ["east", "sun", "west"]
    # a third session with a link to 'upload' gets no one's upload
    third = make_app({"data": "upload", "reps": "200"}).run()
    assert "data" not in third.query_params
    assert not {"north", "east"} & set(third.session_state["models"])


def test_several_lm_eval_result_files_at_once(make_app) -> None:
    """A folder's worth of lm-evaluation-harness results (real files) uploaded together."""
    folder = FIXTURES / "lm_eval" / "results_v03" / "opt_0shot"
    files = [
        (f.name, f.read_bytes(), "application/json") for f in sorted(folder.glob("opt-*.json"))[:3]
    ]
    at = open_data_page(make_app)
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["data"] == "upload"
    assert at.metric[0].value == "3"
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error


def test_task_table_format_choice_and_category_buttons(make_app) -> None:
    results = b"model,task,accuracy\nnorth,t1,0.75\nnorth,t2,0.5\nsouth,t1,0.7\nsouth,t2,0.6\n"
    tasks = b"task,category,n\nt1,reading,400\nt2,math,300\n"
    at = open_data_page(make_app)
    at.selectbox(key="upload_format").set_value("long").run()
    at.file_uploader(key="uploader").set_value([("acc.csv", results, "text/csv")]).run()
    assert at.error  # no n anywhere yet: the loader says so
    at.file_uploader(key="task_table").set_value([("tasks.csv", tasks, "text/csv")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [m.value for m in at.metric] == ["2", "2", "700", "2"]
    next(b for b in at.button if b.label == "Apply categories").click().run()
    assert at.session_state["_category_edits"]["upload"] == {"t1": "reading", "t2": "math"}
    reset = next(b for b in at.button if b.label == "Reset categories")
    assert not reset.disabled
    reset.click().run()
    assert "upload" not in at.session_state["_category_edits"]
    assert not at.exception and not at.error


def test_closing_the_tab_stops_reading_an_upload(make_app, monkeypatch) -> None:
    """The uploader's callback reads the files before the script's body (and its
    ``stop_with_session``) runs: the read is wrapped itself, so a closed tab ends it at its next
    checkpoint (issue 31). The tab "closes" when the upload arrives."""
    from benchuq.dashboard import runtime

    closed = {"now": False}
    monkeypatch.setattr(runtime, "session_gone", lambda: lambda: closed["now"])
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    closed["now"] = True
    fresh = GOOD + f"north,t_{uuid.uuid4().hex},words,10,5\n".encode()  # not in the parse cache
    at.file_uploader(key="uploader").set_value([("mine.csv", fresh, "text/csv")]).run()
    error = at.session_state["_upload_error"]
    assert "Reading the files was stopped: its browser session ended" in error, error
    assert at.query_params.get("data") != "upload"  # the stopped read was not put in use
