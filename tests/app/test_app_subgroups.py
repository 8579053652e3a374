"""Subgroups page (METHODS 7): pure figure builders, and the page through AppTest."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from benches import subgroup_counts
from conftest import page_path

from benchuq.core.analyses.subgroups.estimates import (
    analyze,
    units_from_benchmark,
    units_from_table,
)
from benchuq.core.analyses.subgroups.lab import simulate
from benchuq.dashboard.subgroups.view import SPREAD_LABEL as SPREAD
from benchuq.dashboard.subgroups.view import lab_table, result_table
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.subgroups import (
    eb_vs_direct_figure,
    fit_figure,
    lab_figure,
    shrinkage_figure,
    unit_rows,
)

MODELS = {"<b>bold</b>": "#111111", "beta": "#222222"}


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    n = rng.integers(5, 200, size=(2, 15))
    bench = subgroup_counts(n, rng.binomial(n, 0.6))
    bench = bench._replace(models=tuple(MODELS))
    return analyze(units_from_benchmark(bench, group_by="task"))


def test_eb_chart_sorted_by_size_coloured_by_weight_and_escaped(result) -> None:
    fig = eb_vs_direct_figure(result, FigureOptions(MODELS), "<b>bold</b>")
    direct, eb = fig.data
    assert (direct.name, eb.name) == ("direct", "empirical Bayes")
    rows = unit_rows(result, "<b>bold</b>")
    assert list(rows["n"]) == sorted(rows["n"], reverse=True)
    assert list(eb.marker.color) == list(rows["w"])
    assert np.allclose(eb.x, 100 * rows["eb"])
    assert list(fig.layout.yaxis.ticktext) == list(rows["subgroup"])
    assert max(eb.y) < max(direct.y)  # EB just below its direct estimate
    assert "<b>bold</b>" not in json.dumps(fig.to_plotly_json())
    hover = json.dumps(fig.to_plotly_json())
    assert "&lt;b&gt;bold&lt;/b&gt;" in hover


def test_shrinkage_fit_and_tables(result) -> None:
    fig = shrinkage_figure(result, FigureOptions(MODELS))
    names = [t.name for t in fig.data]
    assert names[:2] == ["&lt;b&gt;bold&lt;/b&gt;", "beta"] and names[-1].startswith("A / (A")
    curve = fig.data[-1]
    assert np.all(np.diff(curve.y) > 0)  # larger subgroups keep more of their own score
    assert fig.layout.xaxis.type == "log"
    fit = fit_figure(result, FigureOptions(MODELS))
    assert [t.name for t in fit.data] == ["diagonal", "units"]
    assert np.allclose(fit.data[1].x, 100 * result.rows["f"])
    table = result_table(result)
    assert {"EB estimate", "EB low", "EB high", "weight w", "cva"} <= set(table.columns)


def test_figures_with_undefined_intervals() -> None:
    df = pd.DataFrame({"unit": list("abcdef"), "estimate": [0.5] * 6, "se": [0.1] * 6})
    res = analyze(units_from_table(df), fs_correction="none")
    assert res.rows["low"].isna().all()
    fig = eb_vs_direct_figure(res, FigureOptions(scale=1.0))
    assert list(fig.data[1].error_x.array) == [0.0] * 6
    assert len(shrinkage_figure(res, FigureOptions()).data) == 1  # no curve when A = 0


def test_lab_figure_and_table() -> None:
    rng = np.random.default_rng(1)
    n = rng.integers(50, 100, size=(3, 6))
    lab = simulate(
        subgroup_counts(n, rng.binomial(n, 0.7)), group_by="task", n_per_group=8, reps=4, seed=0
    )
    table = lab_table(lab)
    assert list(table["method"]) == ["direct (DT)", "regression (SR)", "empirical Bayes (EB)"]
    assert table["MSE / MSE(DT)"].iloc[0] == 1.0 and np.isnan(table["coverage"].iloc[1])
    fig = lab_figure(lab, FigureOptions())
    assert [t.name for t in fig.data] == ["EB / DT", "SR / DT"]
    assert list(fig.data[0].y) == sorted(fig.data[0].y)


# ---- the page --------------------------------------------------------------------------------
def _charts(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _open(make_app, query: dict[str, str] | None = None):
    at = make_app({"reps": "200", **(query or {})}).run()
    at.switch_page(page_path("subgroups.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_page_shows_estimates_charts_and_table(make_app) -> None:
    at = _open(make_app)
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Small subgroups"
    metrics = {m.label: m.value for m in at.metric}
    spread = metrics[SPREAD]  # sqrt(A) in points: the scores are proportions shown as percent
    assert metrics["Units"] == "304" and spread.endswith(" points") and float(spread.split()[0]) > 0
    eb, shrink, fit = _charts(at)
    assert [t["name"] for t in eb["data"]] == ["direct", "empirical Bayes"]
    assert len(eb["data"][0]["x"]) == 19  # one model's 19 tasks
    assert shrink["layout"]["xaxis"]["type"] == "log"
    assert [t["name"] for t in fit["data"]] == ["diagonal", "units"]
    table = at.dataframe[0].value
    assert len(table) == 304 and (table["EB low"] <= table["EB estimate"]).all()
    text = " ".join(m.value for m in at.markdown)
    assert "*average* coverage" in text
    at.radio(key="subgroups_kappa").set_value("inf").run()
    assert {m.label: m.value for m in at.metric}["Kurtosis κ used"] == "∞"
    before = {m.label: m.proto.help for m in at.metric}[SPREAD]  # A itself, to 3 digits
    at.radio(key="subgroups_weights").set_value("precision").run()
    assert not at.exception, [e.value for e in at.exception]
    assert {m.label: m.proto.help for m in at.metric}[SPREAD] != before


def test_the_table_shows_the_eb_estimates_next_to_the_direct_ones(make_app) -> None:
    """The table led with a 'unit' column repeating model and subgroup and put EB estimate, low
    and high after se and f, scrolled out of sight (audit of 30); the download keeps every
    column."""
    at = _open(make_app)
    view = at.dataframe[0]
    shown = list(view.proto.column_order)
    assert shown[:9] == [
        "model",
        "subgroup",
        "n",
        "direct estimate",
        "direct low",
        "direct high",
        "EB estimate",
        "EB low",
        "EB high",
    ]
    assert "unit" not in shown and set(shown) | {"unit"} == set(view.value.columns)


def test_item_subgroups_and_simulation_lab(make_app) -> None:
    at = _open(make_app, {"data": "sample:alpaca_eval"})
    assert not at.error, [e.value for e in at.error]
    assert at.radio(key="subgroups_units").value == "subgroup"
    assert {m.label: m.value for m in at.metric}["Units"] == "45"
    at.number_input(key="subgroups_lab_n").set_value(20)
    at.slider(key="subgroups_lab_reps").set_value(10)
    at.button(key="sub_lab_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    lab = at.dataframe[1].value
    assert list(lab["method"]) == ["direct (DT)", "regression (SR)", "empirical Bayes (EB)"]
    assert 0 <= lab["coverage"].iloc[2] <= 1
    assert any("10 repetitions, 20 items per subgroup" in m.value for m in at.markdown)
    assert len(_charts(at)) == 4


def test_uploaded_table_degenerate_and_bad(make_app) -> None:
    at = _open(make_app)
    at.radio(key="subgroups_source").set_value("table").run()
    assert any("Upload a CSV table" in i.value for i in at.info)
    equal = "unit,estimate,se\n" + "".join(f"<i>u{i}</i>,0.5,0.05\n" for i in range(8))
    at.file_uploader(key="sub_table").set_value(("units.csv", equal.encode(), "text/csv")).run()
    at.selectbox(key="subgroups_fs").set_value("none").run()
    assert not at.exception, [e.value for e in at.exception]
    info = " ".join(i.value for i in at.info)
    assert "robust interval is undefined" in info and "All direct estimates are equal" in info
    assert at.dataframe[0].value["EB low"].isna().all()
    assert any("cannot be resampled" in i.value for i in at.info)
    bad = b"unit,estimate,se\na,0.5,0.1\nb,oops,0.1\n"
    at.file_uploader(key="sub_table").set_value(("bad.csv", bad, "text/csv")).run()
    assert not at.exception
    err = " ".join(e.value for e in at.error).replace("\\", "")  # as rendered
    assert "bad.csv" in err and "row 2" in err and "column 'estimate'" in err
