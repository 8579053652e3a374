"""The Arena page (METHODS 8b) with AppTest: the AlpacaEval sample as battles, settings in the
link, an uploaded battles table, and the message for score data."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from conftest import page_path, share_box
from streamlit.testing.v1 import AppTest

from benchuq.core.analyses.arena_synthetic import simulate_battles
from benchuq.dashboard import upload

PAGE = page_path("arena.py")


def _open(make_app: Callable[..., AppTest], query: dict[str, str]) -> AppTest:
    at = make_app({"reps": "200", **query}).run()
    return at.switch_page(PAGE)


def test_alpaca_sample_as_battles(make_app: Callable[..., AppTest]) -> None:
    at = _open(make_app, {"data": "sample:alpaca_eval"}).run()
    assert not at.exception and not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "best model" in text and "preview" in text
    assert len(at.get("plotly_chart")) == 3
    assert "7,243 battles among 10 models" in " ".join(c.value for c in at.caption)


def test_settings_travel_in_the_link(make_app: Callable[..., AppTest]) -> None:
    query = {
        "data": "sample:alpaca_eval",
        "arena_anchor": "claude-2",
        "arena_interval": "bootstrap",
        "reps": "200",
    }
    at = _open(make_app, query).run()
    assert not at.exception and not at.error
    assert at.selectbox(key="arena_anchor").value == "claude-2"
    table = at.dataframe[0].value
    assert table.loc[table.model == "claude-2", "rating"].item() == 1000
    assert "bootstrap intervals" in " ".join(c.value for c in at.caption)
    assert at.query_params.get("arena_anchor") in ("claude-2", ["claude-2"])


def test_score_data_get_a_pointer(make_app: Callable[..., AppTest]) -> None:
    at = _open(make_app, {"data": "sample:vtab1k"}).run()
    assert not at.exception
    assert "holds per-task scores, not pairwise battles" in at.info[0].value


def test_uploaded_battles_with_style_control(make_app: Callable[..., AppTest]) -> None:
    bt = simulate_battles(np.array([0.5, 0.0, -0.5]), n=1500, seed=2, style=1.0, style_link=1.0)
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    frame = pd.DataFrame(
        {"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner, **bt.covariates}
    )
    files = (("battles.csv", frame.to_csv(index=False).encode()),)
    at = _open(make_app, {"data": "sample:vtab1k"})
    at.session_state[upload.BATTLES_KEY] = (files, {})
    at.run()
    assert not at.exception and not at.error
    at.multiselect(key="arena_control").set_value(["length"]).run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert "without control" in table.columns and len(table) == 3


def _battles_csv(**rename: str) -> bytes:
    bt = simulate_battles(np.array([0.4, 0.0, -0.4]), n=900, seed=5)
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    frame = pd.DataFrame({"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner})
    return frame.rename(columns=rename).to_csv(index=False).encode()


def test_upload_on_the_data_page_goes_to_the_arena(make_app: Callable[..., AppTest]) -> None:
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    data = _battles_csv(model_a="left", model_b="right", winner="verdict")
    at.file_uploader(key="uploader").set_value([("votes.csv", data, "text/csv")]).run()
    # their column names: map them in the column mapping, the file is read again at once
    mapper = {at.selectbox(key=f"colmap_{i}").label: f"colmap_{i}" for i in range(3)}
    for theirs, ours in (("left", "model_a"), ("right", "model_b"), ("verdict", "winner")):
        at.selectbox(key=mapper[f"Your column '{theirs}' is"]).set_value(ours).run()
    assert not at.exception
    assert any("table of pairwise battles" in i.value for i in at.info)
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["model"]) == ["m00", "m01", "m02"]


def test_report_page_points_to_the_arena_report(make_app: Callable[..., AppTest]) -> None:
    at = make_app({"reps": "200"}).run()
    at.session_state[upload.BATTLES_KEY] = ((("b.csv", _battles_csv()),), {})
    at.switch_page(page_path("report.py")).run()
    assert not at.exception
    assert any("their own report" in i.value for i in at.info)


def test_score_data_show_the_bundled_battles(make_app: Callable[..., AppTest]) -> None:
    at = _open(make_app, {"data": "sample:vtab1k"}).run()
    assert not at.exception and not at.error
    assert "sample:mt_bench_battles" in at.info[0].value
    assert set(at.dataframe[0].value["model"]) == {
        "alpaca-13b", "claude-v1", "gpt-3.5-turbo", "gpt-4", "llama-13b", "vicuna-13b-v1.2",
    }  # fmt: skip


def test_uploaded_battles_publish_and_reopen_with_the_same_ratings(
    make_app: Callable[..., AppTest],
) -> None:
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("votes.csv", _battles_csv(), "text/csv")]).run()
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error
    links, text = share_box(at)
    assert not links and "No link yet" in text  # an upload: no link that opens VTAB-1k
    mine = at.dataframe[0].value
    at.switch_page(page_path("data.py")).run()
    assert "The uploaded battles" in " ".join(m.value for m in at.markdown)
    at.button(key="publish").click().run()
    assert not at.exception, at.exception
    data = at.query_params["data"]
    assert data.startswith("shared:")
    codes = [c.value for c in at.code]
    assert any(c.startswith("/arena?") and f"data={data}" in c for c in codes)

    other = make_app({"reps": "200", "data": data}).run()  # a fresh session with the link
    other.switch_page(PAGE).run()
    assert not other.exception and not other.error
    theirs = other.dataframe[0].value
    pd.testing.assert_frame_equal(mine.reset_index(drop=True), theirs.reset_index(drop=True))
    links, _ = share_box(other)
    assert any(f"data={data}" in link for link in links)
    other.switch_page(page_path("leaderboard.py")).run()  # a score page says it holds battles
    assert any("pairwise battles" in e.value for e in other.error)
