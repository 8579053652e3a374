"""AppTest of the first screen: two lines on the app, the two ways in, the contested top with
intervals wider than its markers; a shared link (with parameters) opens without it."""

from __future__ import annotations

import json

import numpy as np

from benchuq.core.findings import gaps_from_leader
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import resolve
from benchuq.presentation.figures.common import FigureOptions, gap_figure

MARKER_PX, PLOT_PX = 9, 520  # the gap chart's marker and about the plot width of its column


def _landing(at) -> dict:
    return next(
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if "How far behind the leader" in json.loads(c.proto.spec)["layout"]["title"]["text"]
    )


def test_first_visit_explains_the_app_and_offers_two_ways_in(make_app) -> None:
    at = make_app({}).run()
    assert not at.exception and not at.error
    assert "benchuq shows how sure a benchmark leaderboard is" in at.markdown[0].value
    example = at.button(key="landing_example")
    assert example.label == "Show the full VTAB-1k leaderboard"  # VTAB-1k is in use
    links = [p.proto.label for p in at.get("page_link")]
    assert "Upload your results" in links
    assert any("lm-evaluation-harness" in c.value for c in at.caption)  # accepted formats
    fig = _landing(at)
    assert fig["data"][0]["y"] == ["Sup-Rotation-100%"]  # the leader at 0, first
    assert at.title[0].value == "Leaderboard"  # the leaderboard follows

    at.sidebar.selectbox(key="data").set_value("sample:toy").run()
    assert at.button(key="landing_example").label == "Show the VTAB-1k example"
    at.button(key="landing_example").click().run()
    assert at.sidebar.selectbox(key="data").value == "sample:vtab1k"


def test_the_example_button_shows_something_when_vtab_is_in_use(make_app) -> None:
    at = make_app({}).run()  # a first visit: VTAB-1k is already the data in use
    assert at.sidebar.selectbox(key="data").value == "sample:vtab1k"
    at.button(key="landing_example").click().run()
    assert not at.exception and not at.error
    assert not any(b.key == "landing_example" for b in at.button)  # the introduction closed
    assert not any("How far behind" in json.dumps(c.proto.spec) for c in at.get("plotly_chart"))
    assert at.title[0].value == "Leaderboard"


def test_a_shared_link_opens_without_the_intro(make_app) -> None:
    at = make_app({"reps": "200"}).run()
    assert not any("How far behind" in json.dumps(c.proto.spec) for c in at.get("plotly_chart"))


def test_gap_intervals_are_wider_than_their_markers_on_vtab() -> None:
    """On VTAB-1k the leaderboard's 83.4% bars are narrower than the dots; the gaps of the
    contested top, on their own zoomed axis, are not (for the models tied or close)."""
    draws = bootstrap(resolve(["sample:vtab1k"]), reps=500, seed=0)
    gaps = gaps_from_leader(draws, level=0.834)
    assert list(gaps["model"][:2]) == ["Sup-Rotation-100%", "Sup-Exemplar-100%"]
    assert gaps["tied"].iloc[1] and not gaps["tied"].iloc[2:].any()
    fig = gap_figure(gaps, FigureOptions())
    lo, hi = fig.layout.xaxis.range
    widths = (gaps["high"] - gaps["low"]).to_numpy()[1:4] * 100 / (hi - lo) * PLOT_PX
    assert np.all(widths > MARKER_PX), widths


def test_the_intro_yields_to_uploaded_data(make_app) -> None:
    """Issue 30: once the session's own data is loaded, the Leaderboard shows it without the
    intro above (for the rest of the session)."""
    from app_upload import GOOD
    from conftest import page_path

    at = make_app({}).run()
    assert "benchuq shows how sure" in at.markdown[0].value
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("mine.csv", GOOD, "text/csv")]).run()
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error
    assert not any("benchuq shows how sure" in m.value for m in at.markdown)
    assert not any(b.key == "landing_example" for b in at.button)


def test_forest_markers_leave_every_interval_visible() -> None:
    """Issue 30: the leaderboard's dot is at most half its interval's width (4 px at least), so
    VTAB-1k's narrow 83.4% bars are not hidden behind their dots."""
    import pandas as pd

    from benchuq.presentation.figures.common import PLOT_PIXELS, forest_figure

    draws = bootstrap(resolve(["sample:vtab1k"]), reps=300, seed=0)
    from benchuq.core.summaries import leaderboard

    table = leaderboard(draws, level=0.834)
    rows = table[table["group"] == "overall"].assign(tied=False)
    fig = forest_figure(pd.DataFrame(rows), FigureOptions())
    lo, hi = fig.layout.xaxis.range
    for trace in fig.data:
        if trace.error_x and trace.error_x.array is not None:
            width = (trace.error_x.array[0] + trace.error_x.arrayminus[0]) / (hi - lo)
            assert trace.marker.size <= max(4, width * PLOT_PIXELS / 2)
