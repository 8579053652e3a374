"""Two runs page (METHODS 13): pure figure and tables, and the page through AppTest."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import page_path
from diff_data import bench_of, binary_pair

from benchuq.core.analyses.diff import diff
from benchuq.dashboard.two_runs.view import counts_table, errors_table, results_table
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.diff import difference_figure

PAIR = {"base_model": "base", "candidate_model": "candidate"}


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    tasks = [binary_pair(800, rng, drop=0.06), binary_pair(800, rng), binary_pair(12, rng)]
    return diff(bench_of(tasks), **PAIR, margin=0.02, reps=300)


def test_figure_draws_intervals_zero_and_margin(result) -> None:
    fig = difference_figure(result, FigureOptions(scale=100, unit="points"))
    spec = fig.to_plotly_json()
    ys = [y for trace in spec["data"] for y in trace["y"]]
    assert sorted(ys) == ["overall", "t0", "t1", "t2"]
    worse = next(t for t in spec["data"] if t["name"] == "worse")
    assert "t0" in worse["y"]
    shapes = spec["layout"]["shapes"]
    assert any(s.get("x0") == pytest.approx(-2.0) and s.get("x1") == pytest.approx(2.0)
               for s in shapes)  # fmt: skip
    assert "simultaneous" in spec["layout"]["title"]["text"]
    assert "Data: sim" in spec["layout"]["title"]["subtitle"]["text"]


def test_tables(result) -> None:
    counts = counts_table(result)
    assert counts["paired items"].tolist() == [800, 800, 12, 1612]
    table = results_table(result, 100)
    assert table.loc[0, "verdict"] == "worse" and table.loc[0, "difference"] < 0
    errors = errors_table(result, 100)
    assert (errors["difference, paired"] < errors["difference, unpaired"]).all()


def _open(make_app, query: dict[str, str]):
    at = make_app({"reps": "200", "data": "sample:alpaca_eval", **query}).run()
    at.switch_page(page_path("two_runs.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def test_page_from_a_link_shows_verdict_chart_counts_and_errors(make_app) -> None:
    at = _open(
        make_app,
        {"runs_base": "alpaca-7b", "runs_candidate": "claude-2.1", "runs_margin": "1"},
    )
    assert at.title[0].value == "Two runs"
    assert "Better" in at.success[0].value and "paired bootstrap" in at.success[0].value
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t["name"] for t in chart["data"]} == {"better"}
    counts, results, errors = (d.value for d in at.dataframe)
    assert counts["paired items"].iloc[-1] > 800
    assert results["verdict"].iloc[-1] == "better"
    assert errors["design effect"].iloc[-1] > 0
    at.toggle(key="runs_sequential").set_value(True).run()
    assert "confidence sequence" in at.success[0].value
    assert at.query_params["runs_sequential"] == "on"
    assert at.query_params["runs_base"] == "alpaca-7b"


def test_same_model_twice_asks_for_two_runs(make_app) -> None:
    at = _open(make_app, {"runs_base": "alpaca-7b", "runs_candidate": "alpaca-7b"})
    assert "two different runs" in at.warning[0].value


def test_counts_data_is_refused_in_words(make_app) -> None:
    at = make_app({"reps": "200", "data": "sample:toy"}).run()
    at.switch_page(page_path("two_runs.py")).run()
    assert not at.exception and not at.error  # an explanation, not an error (smoke check)
    text = " ".join(i.value for i in at.info)
    assert "item by item" in text and "counts per task" in text and "Data page" in text


def test_report_gains_a_two_runs_section(make_app) -> None:
    at = _open(make_app, {"runs_base": "alpaca-7b", "runs_candidate": "claude-2.1"})
    at.switch_page(page_path("report.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    heads = [h.value for h in at.subheader]
    assert any(h.startswith("Two runs") and "claude" in h for h in heads), heads


def test_report_html_section(result) -> None:
    from benchuq.presentation.report import two_runs_html

    fig = difference_figure(result, FigureOptions())
    doc = two_runs_html(result, fig, scale=100)
    assert doc.startswith("<h2>Two runs: candidate vs base base</h2>")
    assert "Worse" in doc and "t0" in doc and doc.count("<tr>") == 5
    assert "items both runs scored" in doc and '<div id="fig-runs" class="plotly-graph-div"' in doc


def test_candidate_from_a_second_upload_asks_for_its_files(make_app) -> None:
    at = _open(make_app, {"runs_base": "alpaca-7b", "runs_source": "upload"})
    assert at.get("file_uploader"), "the candidate's uploader is shown"
    assert "Upload the candidate run's files" in at.info[0].value
    assert at.query_params["runs_source"] == "upload"


def test_candidate_from_a_second_upload_is_compared_item_by_item(make_app) -> None:
    import io

    import pandas as pd

    from benchuq.core.reading.loaders import load_sample

    bench = load_sample("alpaca_eval")
    task = bench.item_tasks[0]
    base = task.scores[bench.models.index("claude-2")]
    ids = list(task.items)
    rng = np.random.default_rng(4)
    cand = np.clip(base[:700] + rng.normal(0.0, 0.05, 700), 0, 1)  # the first 700 items rerun
    frame = pd.DataFrame({"model": "claude-2-new", "task": bench.tasks[0], "item": ids[:700],
                          "score": cand})  # fmt: skip
    data = io.StringIO()
    frame.dropna().to_csv(data, index=False)
    at = _open(make_app, {"runs_base": "claude-2", "runs_source": "upload"})
    at.file_uploader(key="runs_upload").set_value([("cand.csv", data.getvalue().encode(),
                                                   "text/csv")]).run()  # fmt: skip
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="runs_candidate").value == "claude-2-new"
    counts = at.dataframe[0].value
    paired = int(counts["paired items"].iloc[0])
    assert 690 <= paired <= 700 and int(counts["only in base"].iloc[0]) >= 100
    assert (
        "claude-2-new"
        in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]
    )
