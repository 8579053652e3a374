"""AppTest: short links (issue 30). The link leaves out defaults and "all" choices, keeps a prior
for every model as one parameter, and restores the exact view; old long links still open the
same view (``tests/fixtures/links/old_links.json``: links written by the app before)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from conftest import FAST_QUERY, page_path, share_box

from benchuq.dashboard import links
from benchuq.presentation import state

OLD_LINKS = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "links" / "old_links.json").read_text()
)["links"]
SIDEBAR = ["data", "method", "level_pct", "reps", "seed", "metric", "overall", "models"]
BASE = "http://localhost:8501/"  # the shortest address an app usually has


def _open(make_app, query: dict[str, str], page: str = "leaderboard.py"):
    at = make_app(query).run()
    if page != "leaderboard.py":
        at.switch_page(page_path(page)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _query(at) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


def _share(at) -> str:
    """The sidebar's share box link (AppTest has no address: it starts at ``?``, or is empty
    for the default view)."""
    (link,), _ = share_box(at)
    return link


def _view(at, page: str) -> dict[str, object]:
    """Every widget state of the sidebar and of the open page, and what the page shows (its
    last charts; a link without parameters also shows the landing's chart, left out)."""
    ss = at.session_state
    keys = SIDEBAR + [f"weight_{i}" for i in range(len(ss["_bench_cats"]))]
    classes = next(p.settings for p in links.PAGES if p.file == page)
    keys += [spec.name for cls in classes for _, spec, _ in state.link_fields(cls)]
    shown = {k: ss[k] for k in keys if k in ss}
    shown["tables"] = [d.value.to_json() for d in at.dataframe]
    page_charts = [c for c in at.get("plotly_chart") if not c.proto.id.endswith("landing_gaps")]
    shown["charts"] = [json.loads(c.proto.spec)["data"] for c in page_charts][-2:]
    return shown


def test_the_default_view_has_a_link_under_60_characters(make_app) -> None:
    at = _open(make_app, {})
    assert _query(at) == {}
    assert _share(at) == "" and len(BASE + _share(at)) < 60  # the app's address alone
    # a visit to another page with its defaults keeps the link empty
    at.switch_page(page_path("compare.py")).run()
    at.switch_page(page_path("leaderboard.py")).run()
    assert _query(at) == {} and len(BASE + _share(at)) < 60


def test_a_changed_widget_gives_a_short_link_that_restores_the_view(make_app) -> None:
    at = _open(make_app, FAST_QUERY)
    models = at.session_state["models"]
    at.slider(key="level_pct").set_value(90.0).run()
    assert _query(at) == {"level": "0.9", "reps": "200"}  # the fields' order
    at.number_input(key="weight_1").set_value(2.0).run()
    at.multiselect(key="models").set_value(models[:3]).run()
    at.switch_page(page_path("compare.py")).run()
    at.slider(key="compare_level").set_value(90.0).run()
    query = _query(at)
    assert query == {
        "level": "0.9",
        "reps": "200",
        "weights": "1,2,1",
        "models": ",".join(models[:3]),
        "compare_level": "0.9",
    }
    assert _share(at) == f"?{state.query_string(query)}"
    again = _open(make_app, query, "compare.py")
    assert _view(again, "compare.py") == _view(at, "compare.py")
    assert _query(again) == query
    # back to the defaults: out of the link again
    at.multiselect(key="models").set_value(models).run()
    at.number_input(key="weight_1").set_value(1.0).run()
    assert _query(at) == {"level": "0.9", "reps": "200", "compare_level": "0.9"}


def _apply_prior(at, scope: str, part: str, family: str, params: str) -> None:
    """The Bayesian page's prior editor: a prior on ``part`` for ``scope`` (``*``: all)."""
    at.selectbox(key="bayes_scope").set_value(scope)
    at.radio(key="bayes_param").set_value(part)
    at.selectbox(key="bayes_family").set_value(family)
    at.text_input(key="bayes_params").set_value(params)
    at.button(key="bayes_apply").click().run()


def test_a_prior_for_every_model_stays_one_parameter(make_app) -> None:
    query = {**FAST_QUERY, "data": "sample:toy", "priors": "*:a=normal(50,5)", "chains": "2"}
    at = _open(make_app, query, "bayes.py")
    shown = at.dataframe[0].value.set_index("model")
    assert set(shown["a"]) == {"normal(50,5)"}  # every model's prior
    assert at.query_params["priors"] == "*:a=normal(50,5)"
    assert "priors=*:a=normal(50,5)" in _share(at)
    # the editor: a prior applied to all models is one spec too; then one model's own
    _apply_prior(at, "*", "b", "gamma", "2, 0.01")
    assert at.query_params["priors"] == "*:a=normal(50,5),b=gamma(2,0.01)"
    _apply_prior(at, "B", "a", "exponential", "0.5")
    assert at.query_params["priors"] == "*:a=normal(50,5),b=gamma(2,0.01);B:a=exponential(0.5)"
    again = _open(make_app, _query(at), "bayes.py")
    assert _view(again, "bayes.py") == _view(at, "bayes.py")


@pytest.mark.parametrize("old", OLD_LINKS, ids=lambda old: old["name"])
@pytest.mark.parametrize("form", ["address_bar", "share_box"])
def test_old_long_links_open_the_same_view(make_app, old: dict[str, str], form: str) -> None:
    page = old["page"]
    long = dict(parse_qsl(old[form].removeprefix("?")))
    at = _open(make_app, long, page)
    assert not [w.value for w in at.warning if "ignored" in w.value]
    short = _query(at)
    assert len(state.query_string(short)) < len(state.query_string(long)) or short == long
    assert "models" not in short  # every model: "all", left out
    assert ("weights" in short) == ("weights" in old["name"])  # 1 each: left out
    if "priors" in long:  # the old per-model form: one prior for every model again
        assert short["priors"] == "*:a=normal(50,5)"
    again = _open(make_app, short, page)
    assert _view(again, page) == _view(at, page)
    assert _query(again) == short
