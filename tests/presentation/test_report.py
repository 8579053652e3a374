"""The report's sentences are true: simulated data with known truth (core.findings), and the HTML
document is self-contained, byte-identical for the same inputs and free of raw control characters
(presentation.report)."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from browser_utils import levels_stated, page_one_text

from benchuq.core.analyses import power as pw
from benchuq.core.data import Benchmark
from benchuq.core.findings import SMALL_N, findings, gaps_from_leader, small_tasks
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.report import Provenance, display_unit, figures, to_html


def _bench(p: list[float], n: int, tasks: int, seed: int) -> Benchmark:
    rng = np.random.default_rng(seed)
    nn = np.full((len(p), tasks), n)
    k = rng.binomial(nn, np.asarray(p)[:, None])
    return Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(len(p))),
        tasks=tuple(f"t{j}" for j in range(tasks)),
        categories=tuple("xyz"[j % 3] for j in range(tasks)),
        kind="counts",
        estimate=k / nn,
        n=nn,
        correct=k,
    )


def test_a_clear_leader_is_named() -> None:
    """m0 is 10 points ahead on 6 tasks of 2000 items: the report names it, ties no one, and
    puts it alone in the top-1 rank set."""
    bench = _bench([0.8, 0.7, 0.65], 2000, 6, seed=1)
    f = findings(bench, bootstrap(bench, reps=400, seed=0), level=0.834)
    assert f.headline[0].startswith("m0 leads with 80.")
    assert f.tied == ()
    assert "m0 is the best model with 95% confidence." in f.headline
    assert f.p_best["m0"] > 0.99
    assert "every pair differs" in " ".join(f.headline)
    assert "does not change the winner: m0" in " ".join(f.headline)


def test_equal_models_rarely_get_a_winner() -> None:
    """Three equally good models: "X leads" needs each other model's difference from X to exclude
    0 at 95%, so it is said in well under 5% of simulated data sets (here: at most 2 of 40)."""
    claims = 0
    for seed in range(40):
        bench = _bench([0.7, 0.7, 0.7], 200, 3, seed=seed)
        f = findings(bench, bootstrap(bench, reps=200, seed=seed), level=0.834)
        if " leads with " in f.headline[0]:
            claims += 1
        else:
            assert f.headline[0].startswith("No clear winner:")
            assert f.tied
    assert claims <= 2


def test_identical_models_are_all_tied() -> None:
    bench = _bench([0.7, 0.7], 500, 3, seed=0)
    bench = Benchmark(**{**bench.__dict__, "estimate": bench.estimate[[0, 0]],
                         "correct": bench.correct[[0, 0]]})  # fmt: skip
    f = findings(bench, bootstrap(bench, reps=200, seed=0), level=0.834)
    assert f.headline[0].startswith("No clear winner: m0")
    assert f.tied == ("m1",)
    assert "The best model is one of {m0, m1} with 95% confidence." in f.headline


def test_caveats_small_tasks_one_model_and_warnings() -> None:
    bench = _bench([0.7], 20, 3, seed=0)
    assert small_tasks(bench) == ("t0", "t1", "t2")
    f = findings(bench, bootstrap(bench, reps=200, seed=0), level=0.834, warnings=("R-hat 1.2",))
    text = " ".join(f.caveats)
    assert "Only one model" in text
    assert f"3 tasks with fewer than {SMALL_N} items (t0, t1 and t2)" in text
    assert "R-hat 1.2" in f.caveats
    assert "independent samples" in text  # the independence assumption, always stated
    assert len(f.headline) == 1  # nothing to compare: no shares, sets or pairs


def test_weighted_score_and_weighting_winners() -> None:
    """m1 is best on category x only; with all weight on x the report names m1 the leader, and
    the weighting sentence says the winner depends on the weights."""
    rng = np.random.default_rng(0)
    p = np.array([[0.5, 0.9, 0.9], [0.95, 0.6, 0.6]])  # rows: models; columns: categories x, y, z
    nn = np.full((2, 3), 3000)
    k = rng.binomial(nn, p)
    bench = Benchmark(
        name="w", models=("m0", "m1"), tasks=("a", "b", "c"), categories=("x", "y", "z"),
        kind="counts", estimate=k / nn, n=nn, correct=k,
    )  # fmt: skip
    draws = bootstrap(bench, reps=300, seed=0)
    f = findings(bench, draws, level=0.834, group=np.array([1.0, 0.0, 0.0]))
    assert f.leader == "m1" and f.headline[0].startswith("m1 leads")
    assert f.label.startswith("weighted x 1.00")
    assert set(f.weight_winners) == {"m0", "m1"}
    # the map: all weight on x, m1 wins clearly; all weight on y (or z), m0 does
    wm = f.weight_map
    assert wm is not None and wm.categories == ("x", "y", "z")
    for corner, model in (((1, 0, 0), "m1"), ((0, 1, 0), "m0"), ((0, 0, 1), "m0")):
        k = int(np.argmin(np.abs(wm.weights - np.array(corner)).sum(axis=1)))
        assert wm.models[wm.winner[k]] == model, corner
    assert "The winner depends on how the categories (x, y and z) are weighted" in " ".join(
        f.headline
    )


def _prov() -> Provenance:
    return Provenance(
        data="sim <b>", data_hash="abc", method="bootstrap", level=0.834, reps=200, seed=3,
        version="0+test", query="?data=upload", command="benchuq report x", shape="3 models",
    )  # fmt: skip


def _outside_plotly_js(doc: str) -> str:
    """The document without the plotly.js bundle (its code names URLs it never fetches for
    these charts: maps and MathJax)."""
    head, _, rest = doc.partition("<script>/**")
    _, _, tail = rest.partition("</script>")
    return head + tail


def test_html_is_self_contained_and_escaped() -> None:
    """plotly.js inline once and nothing fetched; user strings escaped; every figure has the
    subtitle and a fixed id."""
    bench = _bench([0.8, 0.7, 0.65], 500, 3, seed=0)
    f = findings(bench, bootstrap(bench, reps=200, seed=0), level=0.834)
    scale, axis, _ = display_unit(bench)
    draws = bootstrap(bench, reps=200, seed=0)
    gaps = gaps_from_leader(draws, level=0.834)
    figs = figures(f, gaps, FigureOptions(scale=scale, unit=axis), _prov(), 200)
    assert len(figs) == 5  # three categories: the weighting map too
    subs = [r.fig.layout.title.subtitle.text for r in figs]
    assert all(
        s.startswith("Data: sim &lt;b&gt; · bootstrap, 200 replicates, seed 3") for s in subs
    )
    assert [s.replace("·<br>", "· ").split(" · ")[-1] for s in subs] == [
        "intervals at 83.4%",  # page 1's chart: the scores at the report's level
        "intervals at 95%",  # the gaps: the "≈ leader" test level
        "intervals at 95% (for all pairs together)",
        "intervals at 95% (rank sets)",
        "intervals at 95.4% (colour: a lead of 2 standard errors)",
    ]

    doc = to_html(f, _prov(), figs, scale=scale, unit=axis)
    assert doc.count("plotly.js v") == 1 and doc.count("<script>/**") == 1  # the bundle, once
    rest = _outside_plotly_js(doc)
    assert "http://" not in rest and "https://" not in rest and "src=" not in rest
    assert "<link" not in rest
    assert "sim &lt;b&gt;" in doc and "sim <b>" not in doc
    ids = sorted(re.findall(r'<div id="(fig-\d)" class="plotly-graph-div"', doc))
    assert ids == [f"fig-{k}" for k in range(1, 6)]
    assert [f'Plotly.newPlot("{i}",' in doc for i in ids] == [True] * 5
    said = [s for s in f.headline if s not in f.covered]  # the answer says the lead again
    for sentence in f.answer + tuple(said) + f.caveats:
        assert html.escape(sentence) in doc
    assert f.covered and all(html.escape(s) not in doc for s in f.covered)
    assert "sha256 abc" in doc and "?data=upload" in doc


@pytest.mark.parametrize("normalized", [False, True])
def test_display_unit(normalized: bool) -> None:
    scale, axis, suffix = display_unit(_bench([0.5], 10, 1, 0), normalized=normalized)
    assert scale == 100.0
    assert (axis, suffix) == (
        ("normalized score (0–100)", "") if normalized else ("score (%)", "%")
    )


def test_flags_next_to_the_numbers_and_once_in_the_notes() -> None:
    """A model with small tasks, one without a result on a task, one with unconverged chains:
    each gets its note (report table, leaderboard table) and the data's caveats are listed once."""
    import pandas as pd

    from benchuq.core.findings import data_caveats, model_flags
    from benchuq.dashboard.leaderboard.view import display_table
    from benchuq.presentation.report import table_frame

    nn = np.array([[20, 500, 500], [500, 500, 500], [500, 500, 500]])
    est = np.array([[0.5, 0.6, 0.7], [0.6, np.nan, 0.6], [0.4, 0.5, 0.6]])
    k = np.where(np.isnan(est), 0, np.round(est * nn)).astype(int)
    bench = Benchmark(
        name="f", models=("a", "b", "c"), tasks=("t0", "t1", "t2"), categories=("x",) * 3,
        kind="counts", estimate=np.where(np.isnan(est), np.nan, k / nn), n=nn, correct=k,
    )  # fmt: skip
    diag = pd.DataFrame({"model": ["c", "a"], "rhat": [1.2, 1.0]})
    flags = model_flags(bench, diagnostics=diag)
    assert flags == {
        "a": "1 task < 30 items",
        "b": "no result on 1 task",
        "c": "chains not converged",
    }
    notes = data_caveats(bench)
    assert notes[0].startswith("1 task with fewer than 30 items (t0)")
    assert "b (1)" in notes[1] and "partial or cancelled run" in notes[1]
    f = findings(bench, bootstrap(bench, reps=200, seed=0), level=0.834, diagnostics=diag)
    frame = table_frame(f, 100.0, "score (%)").set_index("model")
    assert frame.loc["c", "note"] == "chains not converged" and frame.loc["a", "note"]
    assert sum(notes[0] in c for c in f.caveats) == 1
    shown = display_table(
        pd.DataFrame({"group": "overall", "model": ["a", "b"], "estimate": 0.5, "low": 0.4,
                      "high": 0.6, "mc_error_low": 0.0, "mc_error_high": 0.0, "tied": True}),
        100.0, flags,
    )  # fmt: skip
    assert list(shown["note"]) == ["1 task < 30 items", "no result on 1 task"]


def test_power_sentence_agrees_with_core_power() -> None:
    """The report's power note quotes ``core.analyses.power``'s minimum detectable difference for
    the two best models (checked by simulation in tests/core/analyses/test_power.py)."""
    bench = _bench([0.8, 0.7, 0.65], 500, 3, seed=0)
    f = findings(bench, bootstrap(bench, reps=200, seed=0), level=0.834)
    (note,) = [s for s in f.headline if s.startswith("How small a difference")]
    design = pw.design_from_benchmark(bench, models=["m0", "m1"])
    mde = pw.plan(design, level=0.95, power=0.8).mde[0]
    assert f"a true gap of {100 * mde:.1f} points or more between m0 and m1" in note
    assert "found 8 times in 10 (at the 95% level)" in note
    assert "uncorrelated" in note  # task counts: the correlation is an assumption
    observed = 100 * abs(design.estimate[0] - design.estimate[1])
    assert f"Their observed gap, {observed:.0f} points, is at least that large." in note


def test_bayes_flags_of_the_reproducing_command() -> None:
    from benchuq.presentation.report import bayes_flags

    assert bayes_flags(4, 500, 100, "imh", ["m:a=normal(2000,10)"], "parameter") == [
        "--chains", "4", "--draws", "500", "--warmup", "100", "--sampler", "imh",
        "--interval", "parameter", "--prior", "m:a=normal(2000,10)",
    ]  # fmt: skip
    assert "--interval" not in bayes_flags(2, 10, 0, "gibbs")


def _report_of(bench: Benchmark) -> str:
    """The whole HTML report of ``bench`` (the API's path: findings, layout, rendering)."""
    import tempfile
    from pathlib import Path

    from benchuq.api.reporting import write_report

    draws = bootstrap(bench, reps=200, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.html"
        write_report(bench, draws, path, fmt="html", level=0.834, command="benchuq report x")
        return path.read_text(encoding="utf-8")


def test_the_same_inputs_give_the_same_bytes() -> None:
    """Two reports of the same data and settings are byte-identical (issue 40): no random ids,
    no clock time (two runs a second apart)."""
    import time

    bench = _bench([0.8, 0.7, 0.65], 500, 3, seed=0)
    first = _report_of(bench)
    time.sleep(1.1)
    assert _report_of(bench) == first
    assert "fig-1" in first and "UTC" not in _outside_plotly_js(first)


def test_control_characters_never_reach_the_report() -> None:
    """A model named with ESC and BEL: neither byte is in the document (text, tables, figure
    labels); the name is written visibly, [U+001B] and [U+0007] (issue 40)."""
    bench = _bench([0.8, 0.7, 0.65], 500, 3, seed=0)
    bench = Benchmark(**{**bench.__dict__, "models": ("evil\x1b[31m\x07", "m1", "m2"),
                         "name": "data\x1b]0;t\x07"})  # fmt: skip
    doc = _report_of(bench)
    rest = _outside_plotly_js(doc)  # the bundle's own code holds two raw bytes of its own
    raw = [c for c in rest if (ord(c) < 32 and c not in "\t\n\r") or 0x7F <= ord(c) <= 0x9F]
    assert raw == []
    for escaped in ("\\u001b", "\\u0007", "\\x1b", "\\x07"):  # nor escaped in the figures' JSON
        assert escaped not in rest.lower(), escaped
    assert "evil[U+001B][31m[U+0007]" in doc  # the leaderboard's cell and the figures' labels
    assert doc.count("evil[U+001B][31m[U+0007]") >= 3
    assert "<h1>data[U+001B]]0;t[U+0007]" in doc


@pytest.mark.parametrize("level", [0.834, 0.9])
def test_page_one_states_the_one_level_its_numbers_use(level: float) -> None:
    """Page 1 (the HTML's first section, the PDF's first page) names one level, the report's,
    and the interval in its answer and the bars of its chart are the percentile intervals at
    that level (issue 41: it said 83.4% for scores and 95% for comparisons and ranks)."""
    from benchuq.core import summaries
    from benchuq.presentation.report import build

    bench = _bench([0.8, 0.78, 0.65, 0.6], 300, 6, seed=2)
    draws = bootstrap(bench, reps=300, seed=0)
    f = findings(bench, draws, level=level)
    scale, axis, _ = display_unit(bench)
    options = FigureOptions(scale=scale, unit=axis)
    rep = build(
        f, bench, draws, level, query="q", command="c", options=options, scale=scale, unit=axis
    )
    doc = rep.html()
    first = page_one_text(doc)
    pct = f"{100 * level:g}"
    assert levels_stated(first) == {pct}, levels_stated(first)
    assert "95%" not in first.replace("of the replicates", "")
    assert f"Why {pct}%: two such intervals that do not overlap differ at about" in first
    iv = summaries.percentile_interval(summaries.group_scores(draws, group="overall"), level=level)
    lead = draws.models.index(f.leader)
    said = f"({pct}% interval {100 * iv.low[lead]:.1f} to {100 * iv.high[lead]:.1f}%)"
    assert said in f.answer[0] and said in first
    chart = rep.figures[0].fig  # page 1's chart: each model's bar is its interval at the level
    for trace in chart.data[:-1]:  # (the last: the "leader" tags)
        k = draws.models.index(trace.name)
        e = float(trace.x[0])
        assert np.isclose(e + trace.error_x.array[0], 100 * iv.high[k])
        assert np.isclose(e - trace.error_x.arrayminus[0], 100 * iv.low[k])


@pytest.mark.parametrize("models", [16, 60])
def test_page_one_chart_rows_keep_their_height(models: int) -> None:
    """Page 1's chart shows every model when a row of at least ``MIN_ROW`` pixels each fits,
    else the top ones at that height or more: the chart of the top ones has its own frame (its
    longer title wraps), and fitting it with the frame of the chart of all squeezed its rows
    (MMLU's 13 of 20 at 12.6 px)."""
    from benchuq.presentation.report.render import MIN_ROW, page_one

    bench = _bench(list(np.linspace(0.8, 0.4, models)), 300, 3, seed=4)
    f = findings(bench, bootstrap(bench, reps=200, seed=0), level=0.834)
    scale, axis, _ = display_unit(bench)
    options = FigureOptions(scale=scale, unit=axis)
    gaps = gaps_from_leader(bootstrap(bench, reps=200, seed=0), level=0.834)
    chart = figures(f, gaps, options, _prov(), 200)[0]
    long = "A long answer that wraps over several lines of page 1. " * 6
    one = page_one(f, _prov(), chart, head=["sim", "sub", long, long], groups={}, options=options)
    fig = one.chart.fig
    shown = len(fig.data) - 1  # a trace per model, then the leader's tags
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert plot / shown >= MIN_ROW - 0.5, (plot, shown)
    assert one.whole == (shown == models)
    assert one.whole == (models == 16)
