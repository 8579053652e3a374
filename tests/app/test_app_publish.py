"""AppTest of publishing: the Data page's "Share these results" block, shared:<id> links, the
delete link, and what a reload after an upload shows (the store is the session's temp folder)."""

from __future__ import annotations

import json

from app_upload import GOOD
from conftest import page_path, share_box

from benchuq.store import open_store

FAST = {"reps": "200"}


def _data_page(make_app, query=None):
    at = make_app({**FAST, **(query or {})}).run()
    at.switch_page(page_path("data.py")).run()
    return at


def upload(at, data: bytes = GOOD):
    at.file_uploader(key="uploader").set_value([("mine.csv", data, "text/csv")]).run()
    assert at.query_params["data"] == "upload"
    return at


def _publish(make_app) -> tuple[object, str, dict[str, str]]:
    at = upload(_data_page(make_app))
    text = " ".join(m.value for m in at.markdown)
    assert "Anyone who has the link can see these data" in text
    assert "not your files" in text
    at.button(key="publish").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    data = at.query_params["data"]
    assert data.startswith("shared:")
    receipt = at.session_state["_published"][data]
    return at, data, receipt


def _leaderboard_numbers(at) -> list[dict]:
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error
    return [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]


def test_publish_gives_a_link_that_opens_the_same_data_elsewhere(make_app) -> None:
    at, data, receipt = _publish(make_app)
    codes = [c.value for c in at.code]
    assert any(c.startswith("/?") and f"data={data}" in c and "reps=200" in c for c in codes)
    assert any(f"data?data={data}&delete={receipt['delete_token']}" in c for c in codes)
    assert "Published until" in " ".join(s.value for s in at.success)
    assert open_store().load(data).models == ("north", "south", "west")
    mine = _leaderboard_numbers(at)

    other = make_app({**FAST, "data": data}).run()  # a fresh session with the link
    assert not other.exception and not other.error
    assert other.session_state["models"] == ["north", "south", "west"]
    assert "models" not in other.query_params  # all models: left out of the short link
    assert _leaderboard_numbers(other) == mine
    other.switch_page(page_path("data.py")).run()
    assert "the published data set" in " ".join(i.value for i in other.info)
    assert any(f"data={data}" in c.value for c in other.code)
    assert all("delete=" not in c.value for c in other.code)  # only the publisher gets it
    (expander,) = [e for e in other.expander if e.label.startswith("Notes on this data")]
    notes = " ".join(m.value for m in expander.markdown).replace("\\", "")  # markdown-escaped
    assert f"Published data set {data}: published " in notes and "from mine.csv" in notes


def test_category_edits_are_published_with_the_data(make_app) -> None:
    at = upload(_data_page(make_app))
    at.session_state["_category_edits"] = {"upload": {"t1": "words", "t2": "numbers"}}
    at.run()
    at.button(key="publish").click().run()
    shared = open_store().load(at.query_params["data"])
    assert shared.categories == ("words", "numbers")


def test_the_delete_link_asks_then_deletes(make_app) -> None:
    _, data, receipt = _publish(make_app)
    wrong = _data_page(make_app, {"data": data, "delete": "0" * 64})
    wrong.button(key="delete_shared").click().run()
    assert "cannot be deleted with this token" in " ".join(e.value for e in wrong.error)
    assert "delete" not in wrong.query_params

    at = _data_page(make_app, {"data": data, "delete": receipt["delete_token"]})
    assert "Delete the published data set" in " ".join(w.value for w in at.warning)
    assert open_store().record(data)  # nothing deleted before the click
    at.button(key="delete_shared").click().run()
    assert not at.exception
    assert "Deleted" in " ".join(s.value for s in at.success)
    assert "data" not in at.query_params and "delete" not in at.query_params

    later = make_app({**FAST, "data": data}).run()  # someone opening the link afterwards
    assert not later.exception
    assert "was deleted by its publisher" in " ".join(e.value for e in later.error)


def test_unknown_and_malformed_ids_give_clear_messages(make_app) -> None:
    at = make_app({**FAST, "data": "shared:" + "a" * 32}).run()
    assert not at.exception
    assert "no published data set has the id" in " ".join(e.value for e in at.error)
    at = make_app({**FAST, "data": "shared:nope"}).run()
    assert not at.exception
    assert "not a published data set id" in " ".join(w.value for w in at.warning)
    assert "data" not in at.query_params


def test_an_unpublished_upload_never_reaches_the_store_or_another_session(make_app) -> None:
    store = open_store()
    before = set(store.fs.find(store.root))
    first = upload(_data_page(make_app))
    assert set(store.fs.find(store.root)) == before  # an upload writes nothing to the store
    second = make_app({**FAST, "data": "upload"}).run()
    assert "data" not in second.query_params
    assert "upload" not in second.selectbox(key="data").options
    assert not any(o.startswith("shared:") for o in second.selectbox(key="data").options)
    assert first.session_state["models"] == ["north", "south", "west"]


def test_a_reload_after_an_upload_says_what_happened_and_restores_choices(make_app) -> None:
    at = upload(_data_page(make_app))
    at.multiselect(key="models").set_value(["north", "west"]).run()
    link = dict(at.query_params)
    assert link["data"] == "upload" and link["models"] == "north,west"

    reloaded = make_app(link).run()  # a reload: a new session with the same address
    at2 = reloaded.switch_page(page_path("data.py")).run()
    warnings = [w.value for w in at2.warning]
    assert len(warnings) == 1, warnings  # one clear message, not one per parameter
    assert "survive a reload" in warnings[0] and "upload the same files again" in warnings[0]
    assert "data" not in at2.query_params
    upload(at2)
    assert at2.query_params["models"] == "north,west"  # the link's choices came back


def test_a_store_refusal_is_shown_and_the_upload_stays_in_use(make_app, monkeypatch) -> None:
    monkeypatch.setenv("BENCHUQ_STORE_MAX_MB", "0.0001")
    at = upload(_data_page(make_app))
    at.button(key="publish").click().run()
    assert not at.exception
    assert "this server keeps at most" in " ".join(e.value for e in at.error)
    assert at.query_params["data"] == "upload"


def test_samples_point_to_the_view_link_instead(make_app) -> None:
    at = _data_page(make_app, {"data": "sample:toy"})
    assert "Bundled samples travel in links" in " ".join(c.value for c in at.caption)
    assert not [b for b in at.button if b.key == "publish"]


def test_share_box_of_an_upload_says_publish_first_then_gives_the_link(make_app) -> None:
    """A link to uploaded files would open nothing for its recipient (#30): the share box says
    to publish first; once published, it holds the shared view's link."""
    at = upload(_data_page(make_app))
    links, text = share_box(at)
    assert links == [] and "No link yet" in text and "Share these results" in text
    at.button(key="publish").click().run()
    links, text = share_box(at)
    (link,) = links
    assert f"data={at.query_params['data']}" in link and "No link yet" not in text
