"""AppTest: every page and sidebar control, URL query parameters in and out, bad links."""

from __future__ import annotations

import json

import pytest
import streamlit as st
from conftest import page_path
from streamlit.testing.v1 import AppTest
from table_fit import MAIN_WIDTH_1400, table_width

from benchuq.dashboard import cache
from benchuq.presentation.figures.common import RANK_METHOD_LABELS

VTAB_GROUPS = 4  # overall, natural, specialized, structured (S(w) only at other weights)
AVERAGES = {k: v for k, v in RANK_METHOD_LABELS.items() if k.startswith("average_rank")}


def _charts(at) -> list[dict]:
    """Figure JSON of every chart, without the forest plots' label trace."""
    figs = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    for fig in figs:
        fig["data"] = [t for t in fig["data"] if t.get("name") != "tags"]
    return figs


def _compare_models(at):
    return next(m for m in at.multiselect if m.label.startswith("Models to compare"))


def _clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_the_weighted_score_shows_only_at_other_weights_with_a_line_why(make_app) -> None:
    at = make_app().run()
    assert not any("weighted score counts" in c.value for c in at.caption)
    at = make_app({"reps": "200", "weights": "2,1,1"}).run()  # natural counts twice
    at.session_state["leaderboard_more"] = True
    at.run()
    _clean(at)
    assert len(_charts(at)) == VTAB_GROUPS + 1
    line = next(c.value for c in at.caption if "weighted score counts" in c.value)
    assert "natural 50%" in line and "Overall counts every task once" in line


def test_default_view_is_the_vtab_leaderboard_with_a_short_link(make_app) -> None:
    at = make_app().run()
    _clean(at)
    assert at.title[0].value == "Leaderboard"
    charts = _charts(at)
    assert len(charts) == 1  # the overall score; the rest drawn when opened
    assert len(charts[0]["data"]) == 16  # one trace per model
    assert not at.dataframe  # the table too: the first page loads no table code
    at.session_state["leaderboard_more"] = True  # open the per-category charts
    at.session_state["leaderboard_table"] = True  # and the table
    at.run()
    assert len(_charts(at)) == VTAB_GROUPS
    # defaults (the VTAB-1k sample, level 0.834, every model, weights 1 each) stay out, and
    # so does the expander's state
    assert dict(at.query_params) == {"reps": "200"}  # FAST_QUERY's, not the default 2000
    assert at.session_state["data"] == "sample:vtab1k" and at.session_state["level_pct"] == 83.4
    assert len(at.multiselect(key="models").value) == 16
    assert not at.warning
    table = at.dataframe[0].value
    assert {"estimate", "low", "high", "MC error (low)", "≈ leader"} <= set(table.columns)
    assert (table["low"] <= table["estimate"]).all() and (table["estimate"] <= table["high"]).all()


def test_a_link_restores_the_same_view(make_app) -> None:
    q = {
        "data": "sample:vtab1k",
        "method": "bootstrap",
        "level": "0.9",
        "reps": "300",
        "seed": "5",
        "metric": "normalized",
        "overall": "tasks",
        "weights": "2,1,1",
        "rho": "0.3",
        "models": "Sup-100%,Rotation,VAE",
    }
    at = make_app({**q, "z": "1.5"}).run()  # rho, z: the Task weights page's, kept
    _clean(at)
    assert at.slider(key="level_pct").value == 90.0
    assert at.number_input(key="reps").value == 300
    assert at.number_input(key="seed").value == 5
    assert at.radio(key="metric").value == "normalized"
    assert at.radio(key="overall").value == "tasks"
    assert at.number_input(key="weight_0").value == 2.0
    assert at.multiselect(key="models").value == ["Sup-100%", "Rotation", "VAE"]
    # the defaults in the link (data, method) drop out; the rest stays as written
    assert dict(at.query_params) == {
        k: v for k, v in {**q, "z": "1.5"}.items() if k not in ("data", "method")
    }
    charts = _charts(at)
    assert {t["name"] for t in charts[0]["data"]} == {"Sup-100%", "Rotation", "VAE"}
    assert charts[0]["layout"]["xaxis"]["title"]["text"].startswith("normalized")
    assert not at.warning


def test_bad_link_values_fall_back_with_a_notice_naming_each(make_app) -> None:
    q = {
        "data": "sample:nope",
        "method": "magic",
        "level": "abc",
        "reps": "3",
        "seed": "x",
        "metric": "log",
        "weights": "1,2",
        "rho": "7",
        "models": "nobody",
    }
    at = make_app(q).run()
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    for name in q:
        assert f"'{name}'" in text, name
    assert at.slider(key="level_pct").value == 83.4
    assert at.number_input(key="reps").value == 2000
    assert at.multiselect(key="models").value == list(at.session_state["_bench_models"])
    assert not {"data", "weights", "models"} & set(at.query_params)  # the defaults: left out
    assert at.number_input(key="weight_2").value == 1.0
    # notices disappear once the user changes a control
    at.slider(key="level_pct").set_value(90.0).run()
    assert not at.warning


def test_upload_in_a_link_explains_that_uploads_cannot_travel(make_app) -> None:
    at = make_app({"data": "upload", "reps": "200"}).run()
    assert not at.exception
    assert any("cannot travel in a link" in w.value for w in at.warning)
    assert "data" not in at.query_params


def test_level_slider_updates_the_link_and_reuses_cached_draws(make_app, monkeypatch) -> None:
    st.cache_resource.clear()
    calls = []
    method = cache.METHODS["bootstrap"]

    def counting(bench, reps, seed):
        calls.append((bench.name, reps, seed))
        return method.run(bench, reps, seed)

    monkeypatch.setitem(
        cache.METHODS, "bootstrap", cache.UncertaintyMethod(method.label, counting, method.help)
    )
    at = make_app().run()
    _clean(at)
    before = _charts(at)[0]
    at.slider(key="level_pct").set_value(95.0).run()
    _clean(at)
    assert at.query_params["level"] == "0.95"
    assert len(calls) == 1  # moving the level only re-summarises the cached draws
    after = _charts(at)[0]
    width = lambda fig: sum(t["error_x"]["array"][0] for t in fig["data"])  # noqa: E731
    assert width(after) > width(before)


def test_sidebar_controls_reach_the_link_and_the_charts(make_app) -> None:
    at = make_app().run()
    at.multiselect(key="models").set_value(["Sup-100%", "VAE"]).run()
    _clean(at)
    assert at.query_params["models"] == "Sup-100%,VAE"
    assert all(len(c["data"]) == 2 for c in _charts(at))
    at.number_input(key="weight_0").set_value(3.0).run()
    assert at.query_params["weights"] == "3,1,1"
    assert any("natural 0.60" in c.value for c in at.caption)
    at.number_input(key="seed").set_value(11).run()
    at.number_input(key="reps").set_value(500).run()
    at.radio(key="metric").set_value("normalized").run()
    at.selectbox(key="method").set_value("bootstrap").run()
    _clean(at)
    q = at.query_params
    assert (q["seed"], q["reps"], q["metric"]) == ("11", "500", "normalized")
    # all weights 0: equal weights, with a warning
    for i in range(3):
        at.number_input(key=f"weight_{i}").set_value(0.0)
    at.run()
    assert any("equal weights" in w.value for w in at.warning)


def test_switching_data_set_resets_models_and_weights(make_app) -> None:
    at = make_app().run()
    at.selectbox(key="data").set_value("sample:toy").run()
    _clean(at)
    assert at.query_params["data"] == "sample:toy"
    assert at.multiselect(key="models").value == list(at.session_state["_bench_models"])
    assert "weights" not in at.query_params and "models" not in at.query_params  # 1 each; all
    assert at.number_input(key="weight_0").value == 1.0
    assert at.session_state["_bench_cats"] == ("all",)
    assert len(_charts(at)) == 1  # one category: no weighted or category plot repeating overall


def test_compare_page(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("compare.py")).run()
    _clean(at)
    assert at.title[0].value == "Compare models"
    chosen = _compare_models(at).value
    assert len(chosen) == 3
    verdicts = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert len(verdicts) == 3
    assert all(("beats" in v) or ("Cannot tell" in v) for v in verdicts)
    assert all("95% simultaneous interval: " in v.replace("\\", "") for v in verdicts)
    assert any("hold for all pairs together" in c.value for c in at.caption)
    charts = _charts(at)
    assert [c["data"][0]["type"] for c in charts] == ["scatter", "heatmap"]
    p_labels = [a["text"] for a in charts[0]["layout"]["annotations"]]
    assert len(p_labels) == 3 and all(t.startswith("p") for t in p_labels)  # each pair's p
    assert "p (step-down)" in at.dataframe[0].value.columns
    at.radio(key="compare_correction").set_value("bonferroni").run()
    at.selectbox(key="compare_score").set_value("natural").run()  # weighted: other weights only
    _clean(at)
    assert at.query_params["compare_correction"] == "bonferroni"
    assert any("simultaneous interval, Bonferroni" in v.value for v in at.markdown)
    at.slider(key="compare_level").set_value(90.0).run()
    _clean(at)
    assert any("90% simultaneous interval" in v.value for v in at.markdown)
    at.radio(key="compare_correction").set_value("holm").run()
    _clean(at)  # Holm's p-values have no simultaneous intervals: verdicts quote no p
    assert any("Holm has no simultaneous intervals" in c.value for c in at.caption)
    # the URL is kept on every page
    assert "data" not in at.query_params


def test_compare_needs_two_models(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("compare.py")).run()
    _compare_models(at).set_value(["Sup-100%"]).run()
    assert not at.exception
    assert any("at least two" in w.value for w in at.warning)


def test_ranks_page(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("ranks.py")).run()
    _clean(at)
    charts = _charts(at)
    assert len(charts) == 3  # aggregations, rank sets, rank probabilities
    # five aggregations: a dots and a caps trace each, an interval line per model (issue 41)
    dots = [t for t in charts[0]["data"] if t["name"] == "points"]
    assert len(dots) == 5 and {len(t["x"]) for t in dots} == {16}
    assert len(charts[0]["layout"]["shapes"]) == 5 * 16
    # per model two rank sets (line shapes) and the observed rank (one dots trace)
    assert len(charts[1]["layout"]["shapes"]) == 2 * 16 and len(charts[1]["data"][1]["x"]) == 16
    assert [t["type"] for t in charts[2]["data"]] == ["bar"] * 16
    positions, averages = at.dataframe[0].value, at.dataframe[1].value
    assert list(positions.columns) == [
        "model",
        "Mean",
        "Geometric mean",
        "Average rank",
        "Avg rank + noise",
        "Avg rank, bins",
    ]
    assert list(averages.columns) == ["model", "Average rank", "Avg rank + noise", "Avg rank, bins"]
    # [LGC] Table 4: Sup-Rotation's average per-task rank is about 3.8 with about +-0.2
    top = averages.set_index("model").loc["Sup-Rotation-100%", "Average rank"]
    assert 3.5 < float(top.split(" ")[0]) < 4.1
    assert len(positions) == len(averages) == 16
    first = positions["Mean"].str.split(" ").str[0].astype(float)
    assert first.is_monotonic_increasing
    sets = at.dataframe[2].value
    assert list(sets.columns)[-2:] == [
        "rank, 95% for each model",
        "rank, 95% for all models together",
    ]
    sentences = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert any("with 95% confidence" in s for s in sentences)
    at.slider(key="ranks_level").set_value(90.0).run()
    _clean(at)
    assert at.query_params["ranks_level"] == "0.9"
    assert "rank, 90% for each model" in at.dataframe[2].value.columns


def test_the_rank_tables_fit_a_manager_s_window(make_app) -> None:
    """The nine-column aggregation table (VTAB-1k's 16 models) scrolled sideways in a 1400 px
    window (audit of 30): two tables with short heads now fit, and each head's help names the
    aggregation in full."""
    at = make_app().run()
    at.switch_page(page_path("ranks.py")).run()
    _clean(at)
    for table in at.dataframe:
        assert table_width(table.value) <= MAIN_WIDTH_1400, list(table.value.columns)
    for table, methods in ((at.dataframe[0], RANK_METHOD_LABELS), (at.dataframe[1], AVERAGES)):
        helps = {k: c.get("help", "") for k, c in json.loads(table.proto.columns).items()}
        for method, long in methods.items():
            assert any(long in h for h in helps.values()), (method, helps)


def test_methods_and_data_pages(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("methods.py")).run()
    _clean(at)
    text = " ".join(m.value for m in at.markdown)
    for cite in ("[LGC]", "[GH]", "[FPAM]", "[AKP]", "[EPP]", "[MHP]", "[M24]"):
        assert cite in text
    at.switch_page(page_path("data.py")).run()
    _clean(at)
    assert [m.value for m in at.metric][:2] == ["16", "19"]
    at.button(key="use_toy").click().run()
    _clean(at)
    assert at.query_params["data"] == "sample:toy"


def test_category_edits_of_a_sample_travel_in_the_link(make_app) -> None:
    edits = '{"Caltech101":"objects","CIFAR-100":"objects"}'
    at = make_app({"data": "sample:vtab1k", "categories": edits, "weights": "1,1,1,3"}).run()
    _clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert at.session_state["_bench_cats"] == ("objects", "natural", "specialized", "structured")
    assert at.number_input(key="weight_3").value == 3.0  # four weights, read after the edits
    assert at.query_params["categories"] == edits
    link = next(c.value for c in at.get("code") if "?" in c.value)
    assert "categories=%7B%22Caltech101%22" in link
    # the recipient's Data page resets them; the link forgets them
    at.switch_page(page_path("data.py")).run()
    next(b for b in at.button if b.label == "Reset categories").click().run()
    _clean(at)
    assert "categories" not in at.query_params
    assert at.session_state["_bench_cats"] == ("natural", "specialized", "structured")


@pytest.mark.parametrize(
    ("raw", "message"),
    [("natural", "expected a JSON object"), ('{"Nope":"x","DTD":" "}', "Nope, DTD are not in")],
)
def test_bad_category_edits_in_a_link_give_a_notice(make_app, raw: str, message: str) -> None:
    at = make_app({"data": "sample:vtab1k", "categories": raw}).run()
    _clean(at)
    text = " ".join(w.value for w in at.warning)
    assert "'categories'" in text and message in text, text
    assert at.session_state["_bench_cats"] == ("natural", "specialized", "structured")
    assert "categories" not in at.query_params


def _forget(at, keys: set[str]) -> None:
    """What a page switch does to widgets the browser had not drawn yet (a click while a page is
    still being drawn): their state is gone, and the browser sends no value for them."""

    def drop(node) -> None:
        for index, child in list(getattr(node, "children", {}).items()):
            if getattr(child, "key", None) in keys:
                del node.children[index]
            else:
                drop(child)

    drop(at._tree)
    for key in keys:
        del at.session_state[key]


def test_a_page_switch_that_drops_the_sidebar_widgets_keeps_the_view(make_app) -> None:
    """A colleague's link at 83.4% once showed Compare at 50% (the slider's minimum) after a page
    switch that Streamlit made drop the sidebar's state; the data selector's loss raised."""
    at = make_app({"reps": "300", "seed": "7", "level": "0.9", "weights": "2,1,1"}).run()
    _clean(at)
    before = dict(at.query_params)
    _forget(at, {"data", "level_pct", "reps", "seed", "weight_0", "models"})
    at.switch_page(page_path("compare.py")).run()
    _clean(at)
    assert at.sidebar.slider[0].value == 90.0
    assert any("Not the sidebar's 90%" in c.value for c in at.caption)
    assert dict(at.query_params) == before


def test_every_run_sends_the_sidebar_values_to_the_browser(make_app) -> None:
    """The browser may drop its copy of a sidebar widget at a page switch while the server keeps
    the value; a widget whose value does not travel with it is then drawn at its default. CI's
    browser showed an 83.4% level in use as 50%, the slider's minimum, and a key press moved it to
    50.5%. Every run, not only the first, carries each sidebar value."""
    at = make_app({"reps": "300", "level": "0.9", "weights": "2,1,1"}).run()
    at.switch_page(page_path("compare.py")).run()
    at.switch_page(page_path("leaderboard.py")).run()
    at.sidebar.number_input(key="seed").set_value(8).run()
    _clean(at)
    sent = {
        "level_pct": (at.sidebar.slider(key="level_pct").proto, [90.0]),
        "reps": (at.sidebar.number_input(key="reps").proto, 300),
        "weight_0": (at.sidebar.number_input(key="weight_0").proto, 2.0),
    }
    for key, (proto, value) in sent.items():
        assert proto.set_value, key
        assert (list(proto.value) if key == "level_pct" else proto.value) == value, key
    models = at.sidebar.multiselect(key="models").proto
    assert models.set_value and len(models.raw_values) == 16
    # the value the user just changed is already in the browser: it is not sent back
    seed = at.sidebar.number_input(key="seed").proto
    assert not seed.set_value and at.sidebar.number_input(key="seed").value == 8
    at.switch_page(page_path("compare.py")).run()
    seed = at.sidebar.number_input(key="seed").proto
    assert seed.set_value and seed.value == 8


def test_a_value_the_user_just_changed_is_not_sent_back(make_app) -> None:
    """A second key press on the level slider made while the first press's run is on its way
    was lost: that run sent back the first press's value and put the slider back a step (a
    browser test lost one of five quick presses). The changed value is left to the browser;
    every other sidebar value still travels."""
    at = make_app({"reps": "300"}).run()
    at.sidebar.slider(key="level_pct").set_value(90.0).run()
    _clean(at)
    level = at.sidebar.slider(key="level_pct").proto
    assert not level.set_value and at.sidebar.slider(key="level_pct").value == 90.0
    assert at.sidebar.number_input(key="reps").proto.set_value
    at.sidebar.number_input(key="seed").set_value(5).run()
    level = at.sidebar.slider(key="level_pct").proto
    assert level.set_value and list(level.value) == [90.0]


def _keeper_script() -> None:
    """A run with three weights, a run without data (no weights drawn), then Streamlit's drop."""
    import streamlit as st

    from benchuq.dashboard import controls

    ss = st.session_state
    ss["weight_0"], ss["weight_1"], ss["weight_2"] = 2.0, 1.0, 1.0
    controls._keep_sidebar(3)
    for key in ("weight_0", "weight_1", "weight_2"):
        del ss[key]
    controls._keep_sidebar(0)  # a run whose data failed to load
    controls._restore_sidebar()
    st.write(f"weights {[ss.get(f'weight_{i}') for i in range(3)]}")


def test_weights_survive_a_run_without_data() -> None:
    """Else the data's return drew every weight at its minimum, 0."""
    at = AppTest.from_function(_keeper_script).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.markdown[0].value == "weights [2.0, 1.0, 1.0]"
