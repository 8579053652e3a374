"""Leaderboard at 10,000 models (#19): each chart shows the best N (a link parameter) and says
how many it hides; the table keeps every model."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import page_path

MODELS = 10_000


def many_models() -> bytes:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.3, 0.9, MODELS)
    rows = [
        f"model_{i:05d},{t},500,{rng.binomial(500, p[i])}"
        for i in range(MODELS)
        for t in ("t1", "t2")
    ]
    return ("model,task,n,correct\n" + "\n".join(rows) + "\n").encode()


def chart_models(at) -> set[str]:
    """The model names drawn in the page's first Plotly chart."""
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    return {str(y) for trace in fig["data"] for y in trace.get("y", [])}


@pytest.mark.slow
def test_leaderboard_of_10000_models_shows_the_top_and_keeps_all_in_the_table(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("many.csv", many_models(), "text/csv")]).run()
    at.switch_page(page_path("leaderboard.py"))
    at.session_state["leaderboard_table"] = True  # the table's panel, open
    at.run()
    assert not at.exception and not at.error
    assert len(chart_models(at)) == 50
    assert any("best 50 of 10,000 models" in c.value for c in at.caption)
    assert len(at.dataframe[0].value) == MODELS  # the table (and its download) keeps all
    at.number_input(key="leaderboard_top").set_value(20).run()
    assert len(chart_models(at)) == 20 and at.query_params["leaderboard_top"] == "20"
    assert any("best 20 of 10,000 models" in c.value for c in at.caption)


def test_leaderboard_top_link_parameter_on_a_small_sample(make_app) -> None:
    at = make_app({"reps": "200", "leaderboard_top": "5"}).run()
    assert not at.exception and not at.error
    assert len(chart_models(at)) == 5
    assert any("best 5 of 16 models" in c.value for c in at.caption)
    assert at.number_input(key="leaderboard_top").value == 5  # shown: it hides models
