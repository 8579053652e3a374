"""Bayesian model page (METHODS 6): figure builders without streamlit, and the page via AppTest."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import page_path

from benchuq.core.data import Benchmark
from benchuq.core.methods.bayes import model as bayes
from benchuq.presentation.figures.bayes import (
    best_probability_figure,
    interval_comparison_figure,
    rank_plot_figure,
    shrinkage_figure,
    trace_figure,
)
from benchuq.presentation.figures.common import FigureOptions

PAGE = page_path("bayes.py")
QUERY = {"reps": "400", "data": "sample:toy"}


@pytest.fixture(scope="module")
def fit() -> bayes.BayesFit:
    rng = np.random.default_rng(0)
    n = np.array([[20, 500, 800, 1000]] * 3)
    k = rng.binomial(n, 0.7)
    bench = Benchmark(
        name="t",
        models=("<b>bold</b>", "m2", "m3"),
        tasks=("tiny", "t2", "t3", "t4"),
        categories=("x", "x", "y", "y"),
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )
    return bayes.fit(bench, chains=3, draws=200, warmup=100, seed=0)


def test_trace_and_rank_plots(fit: bayes.BayesFit) -> None:
    tr = trace_figure(fit, "m2", FigureOptions())
    assert len(tr.data) == 2 * 3  # a and b, one line per chain
    np.testing.assert_allclose(tr.data[0].y, fit.a[0, :, 1])
    rk = rank_plot_figure(fit, "m2", FigureOptions(), bins=10)
    counts = np.array([t.y for t in rk.data[:3]])
    assert counts.sum() == 3 * 200  # every draw of a falls in one bin of one chain
    with pytest.raises(ValueError, match="not in the fit"):
        trace_figure(fit, "nobody", FigureOptions())
    # a log axis labels every digit by default: "10 9 8 7 6 5 4 3 2 1 9" crowded the short
    # panels (audit of 30); decades with 2 and 5 between them read cleanly
    assert tr.layout.yaxis.dtick == tr.layout.yaxis2.dtick == "D2"


def test_shrinkage_figure_and_table(fit: bayes.BayesFit) -> None:
    table = fit.shrinkage("m2", level=0.9)
    assert list(table["task"]) == ["tiny", "t2", "t3", "t4"]
    assert np.all(table["direct_low"] <= table["direct"])
    assert np.all(table["direct"] <= table["direct_high"])
    tiny = table.iloc[0]
    # the 20-item task sits nearer the grand mean than its direct estimate
    assert abs(tiny["posterior"] - tiny["grand_mean"]) < abs(tiny["direct"] - tiny["grand_mean"])
    fig = shrinkage_figure(table, FigureOptions(scale=100.0))
    markers = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in markers] == [
        "direct k/n (exact interval)",
        "posterior mean (credible interval)",
    ]
    assert markers[1].x[0] == pytest.approx(100 * tiny["posterior"])


def test_interval_comparison_and_pbest_escape_names() -> None:
    rows = []
    for kind, shift in (("bootstrap", 0.0), ("parameter", 0.01), ("predictive", 0.0)):
        for m, est in (("<b>bold</b>", 0.6), ("m2", 0.7)):
            rows.append((m, kind, kind.title(), est + shift, est - 0.05, est + 0.05))
    table = pd.DataFrame(rows, columns=["model", "kind", "label", "estimate", "low", "high"])
    fig = interval_comparison_figure(table, FigureOptions())
    assert [t.name for t in fig.data] == ["Bootstrap", "Parameter", "Predictive"]
    assert list(fig.layout.yaxis.ticktext) == ["m2", "&lt;b&gt;bold&lt;/b&gt;"]  # best first
    bars = best_probability_figure(np.array([0.2, 0.8]), ("<b>bold</b>", "m2"), FigureOptions())
    assert list(bars.data[0].y) == ["m2", "&lt;b&gt;bold&lt;/b&gt;"]
    for f in (fig, bars):
        assert "<b>bold</b>" not in json.dumps(f.to_plotly_json())


def _intervals(at) -> dict[str, dict[str, float]]:
    """Estimates in the interval comparison chart: {trace name: {model: estimate}}."""
    for el in at.get("plotly_chart"):
        spec = json.loads(el.proto.spec)
        names = [t.get("name") for t in spec["data"]]
        if "Bayesian: parameter θ" in names:
            return {
                t["name"]: dict(zip(t["customdata"], t["x"], strict=True)) for t in spec["data"]
            }
    raise AssertionError("no interval comparison chart")


def test_page_edit_prior_moves_intervals(make_app) -> None:
    at = make_app(QUERY).run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Bayesian model"
    before = _intervals(at)
    assert set(before) == {
        "Bootstrap (percentile)",
        "Bayesian: parameter θ",
        "Bayesian: posterior predictive",
    }
    at.selectbox(key="bayes_family").set_value("normal")
    at.text_input(key="bayes_params").set_value("50, 5")
    at.button(key="bayes_apply").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    after = _intervals(at)
    # The default exponential(1e-4) priors favour a + b near 20,000: B's 200-item task (57.5%)
    # is pulled almost to B's 50% tasks. With a, b near 50 the pull is weaker (theta of that
    # task about (50 + 115) / (100 + 200) = 55%), so B's overall estimate (percent) rises
    # toward the direct 52.5%.
    rise = after["Bayesian: parameter θ"]["B"] - before["Bayesian: parameter θ"]["B"]
    assert rise > 0.8, rise
    assert after["Bootstrap (percentile)"] == before["Bootstrap (percentile)"]
    shown = at.dataframe[0].value
    assert set(shown["a"]) == set(shown["b"]) == {"normal(50,5)"}


def test_page_bad_prior_gives_a_clear_message(make_app) -> None:
    at = make_app(QUERY).run()
    at.switch_page(PAGE).run()
    at.selectbox(key="bayes_family").set_value("exponential")
    at.text_input(key="bayes_params").set_value("-3")
    at.button(key="bayes_apply").click().run()
    assert not at.exception
    messages = [e.value.replace("\\", "") for e in at.error]  # as rendered (md escapes undone)
    assert any("rate must be > 0" in m and "How to fix" in m for m in messages), messages
    at.text_input(key="bayes_params").set_value("abc")
    at.button(key="bayes_apply").click().run()
    assert any("not a number" in e.value for e in at.error)


def test_page_refuses_non_binary_data(make_app) -> None:
    at = make_app({"reps": "400", "data": "sample:alpaca_eval"}).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert any("needs counts" in e.value for e in at.error)


def test_sidebar_method_bayesian_switches_the_leaderboard(make_app) -> None:
    at = make_app({**QUERY, "method": "bayes"}).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # undo md escapes
    assert "priors: every model a=exponential(0.0001)" in captions  # a note of Bayesian draws


def test_priors_of_one_session_never_reach_another(make_app) -> None:
    """Fits are cached across sessions by content hash + priors + settings: a second user with
    default priors gets the default fit, not the first user's."""
    first = make_app(QUERY).run()
    first.switch_page(PAGE).run()
    default = _intervals(first)
    first.selectbox(key="bayes_family").set_value("normal")
    first.text_input(key="bayes_params").set_value("50, 5")
    first.button(key="bayes_apply").click().run()
    assert _intervals(first) != default
    second = make_app(QUERY).run()
    second.switch_page(PAGE).run()
    assert _intervals(second) == default
    assert set(second.dataframe[0].value["a"]) == {"exponential(0.0001)"}


def test_page_sampler_choice_refits_with_the_same_posterior(make_app) -> None:
    at = make_app(QUERY).run()
    at.switch_page(PAGE).run()
    imh = _intervals(at)["Bayesian: parameter θ"]
    at.radio(key="sampler").set_value("gibbs").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(c.value.startswith("Sampler: Gibbs") for c in at.caption)
    gibbs = _intervals(at)["Bayesian: parameter θ"]
    assert gibbs != imh  # a new fit, not the cached one
    for model in imh:  # same posterior: centres agree to Monte Carlo error (percent)
        assert abs(gibbs[model] - imh[model]) < 0.5, (model, gibbs[model], imh[model])


def test_bayes_settings_and_priors_travel_in_the_link(make_app) -> None:
    q = {
        **QUERY,
        "method": "bayes",
        "priors": "B:a=normal(50,5),b=normal(50,5)",
        "chains": "2",
        "warmup": "300",
        "interval": "predictive",
        "sampler": "gibbs",
    }
    at = make_app(q).run()
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    at.switch_page(PAGE).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = at.dataframe[0].value.set_index("model")
    assert shown.loc["B", "a"] == "normal(50,5)" and shown.loc["A", "a"] == "exponential(0.0001)"
    assert at.number_input(key="chains").value == 2
    assert at.number_input(key="warmup").value == 300
    assert at.radio(key="interval").value == "predictive"
    assert at.radio(key="sampler").value == "gibbs"
    assert {k: at.query_params[k] for k in q} == q
    # a change on the page reaches the link in the same run; defaults leave it
    at.number_input(key="chains").set_value(3).run()
    assert at.query_params["chains"] == "3"
    at.radio(key="sampler").set_value("imh").run()
    assert "sampler" not in at.query_params
    at.button(key="bayes_reset").click().run()
    assert "priors" not in at.query_params
    link = next(c.value for c in at.get("code") if "?" in c.value)
    assert "chains=3" in link and "priors" not in link
    at.selectbox(key="method").set_value("bootstrap").run()  # the Bayesian page's view stays
    assert at.query_params["chains"] == "3" and "priors" not in at.query_params
    at.number_input(key="chains").set_value(4).run()  # back to the default: out of the link
    assert "chains" not in at.query_params and at.query_params["interval"] == "predictive"


def test_bad_bayes_link_values_fall_back_with_a_notice(make_app) -> None:
    q = {**QUERY, "method": "bayes", "priors": "Z:a=normal(50,5)", "chains": "99"}
    at = make_app({**q, "sampler": "nuts"}).run()
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    for name in ("priors", "chains", "sampler"):
        assert f"'{name}'" in text, name
    assert "not in the data" in text
    at.switch_page(PAGE).run()
    assert at.number_input(key="chains").value == 4
    assert set(at.dataframe[0].value["a"]) == {"exponential(0.0001)"}
