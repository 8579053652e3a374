"""Figure builders, colours, URL parsing and view tables, without streamlit."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from browser_utils import chromium_available

from benchuq.core.summaries.leader import overlap_test_level, tied_with_leader
from benchuq.presentation import state
from benchuq.presentation.colors import INDETERMINATE, PALETTE, model_colors
from benchuq.presentation.figures.common import (
    TITLE_CHARS,
    FigureOptions,
    chart_subtitle,
    difference_figure,
    forest_figure,
    rank_aggregation_figure,
    rank_probability_figure,
    win_heatmap,
    with_subtitle,
)
from benchuq.presentation.text import md_escape

MODELS = ("alpha", "beta", "gamma", "delta")
OPTS = FigureOptions(colors=model_colors(MODELS), scale=100.0, unit="accuracy (%)", title="t")


def _spec(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


# ---- colours ------------------------------------------------------------------------------
def test_colors_do_not_depend_on_models_shown() -> None:
    full = model_colors(MODELS)
    assert len(set(full.values())) == len(MODELS)
    assert model_colors(MODELS)["gamma"] == full["gamma"]
    assert INDETERMINATE not in PALETTE
    many = model_colors([f"m{i}" for i in range(30)])
    assert len(set(list(many.values())[: len(PALETTE)])) == len(PALETTE)
    assert many["m0"] == many[f"m{len(PALETTE)}"]  # cycles beyond the palette


# ---- forest plot --------------------------------------------------------------------------
def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["alpha", "beta", "gamma"],  # best first, as core orders a leaderboard
            "estimate": [0.80, 0.70, 0.50],
            "low": [0.76, 0.65, 0.45],
            "high": [0.84, 0.78, 0.55],
            "tied": [True, True, False],
        }
    )


def test_forest_sorted_best_on_top_with_model_colours() -> None:
    fig = forest_figure(_table(), OPTS)
    spec = _spec(fig)
    order = spec["layout"]["yaxis"]["categoryarray"]
    assert order == ["gamma", "beta", "alpha"]  # plotly draws the first category at the bottom
    traces = {t["name"]: t for t in spec["data"]}
    assert traces["alpha"]["x"] == [80.0]
    assert traces["alpha"]["error_x"]["array"][0] == pytest.approx(4.0)
    assert traces["alpha"]["error_x"]["arrayminus"][0] == pytest.approx(4.0)
    assert traces["beta"]["marker"]["color"] == OPTS.colors["beta"]
    assert traces["beta"]["marker"]["symbol"] == "circle-open"
    assert traces["alpha"]["marker"]["symbol"] == traces["gamma"]["marker"]["symbol"] == "circle"
    tags = traces["tags"]  # labels right of the intervals: leader and ties only
    assert list(zip(tags["y"], tags["text"], strict=True)) == [
        ("alpha", "leader"),
        ("beta", "≈ leader"),
    ]
    assert np.all(np.asarray(tags["x"]) > [84.0, 78.0])  # just right of each interval
    assert spec["layout"]["xaxis"]["range"][1] > 84.0  # room for the labels
    assert spec["layout"]["xaxis"]["title"]["text"] == "accuracy (%)"
    # the leader's interval is shaded
    shape = spec["layout"]["shapes"][0]
    assert (shape["x0"], shape["x1"]) == pytest.approx((76.0, 84.0))


def test_user_strings_are_escaped_in_figures() -> None:
    evil = "<b onmouseover=x>m</b>"
    table = _table().assign(model=["alpha", evil, "gamma"])
    opts = FigureOptions(colors=model_colors(["alpha", evil, "gamma"]))
    fig = forest_figure(table, opts)
    texts = json.dumps(_spec(fig))
    assert "<b onmouseover" not in texts and "&lt;b onmouseover=x&gt;" in texts
    bars = rank_probability_figure(np.eye(3), [evil, "alpha", "gamma"], opts)
    assert bars.data[0].marker.color == opts.colors[evil]


def test_forest_height_grows_with_models() -> None:
    small = forest_figure(_table().iloc[:2], OPTS).layout.height
    big = forest_figure(_table(), OPTS).layout.height
    assert big > small


def test_a_long_title_wraps_instead_of_running_off_a_half_width_chart() -> None:
    """The Leaderboard's overall chart of lm-eval data is titled "Overall (mean of 16 benchmarks;
    mmlu = lm-eval's size-weighted mean of 57 subjects)": in a half-width column one line was cut
    after "size-weighted" (audit of 30). It wraps, and the plot keeps its height."""
    long = "Overall (mean of 16 benchmarks; mmlu = lm-eval's size-weighted mean of 57 subjects)"
    short = forest_figure(_table(), FigureOptions(colors=OPTS.colors, title="Overall")).layout
    wrapped = forest_figure(_table(), FigureOptions(colors=OPTS.colors, title=long)).layout
    lines = wrapped.title.text.split("<br>")
    assert len(lines) == 2 and " ".join(lines) == long
    assert all(len(line) <= TITLE_CHARS for line in lines)
    extra = wrapped.margin.t - short.margin.t
    assert extra > 0 and wrapped.height - short.height == extra  # room for the second line
    assert short.title.text == "Overall"


# ---- differences, heatmap -----------------------------------------------------------------
def test_difference_colours_follow_the_winner_or_grey() -> None:
    diffs = pd.DataFrame(
        {
            "a": ["alpha", "alpha", "beta"],
            "b": ["beta", "gamma", "gamma"],
            "estimate": [0.02, -0.05, 0.001],
            "low": [0.01, -0.08, -0.01],
            "high": [0.03, -0.02, 0.012],
        }
    )
    traces = {t["name"]: t for t in _spec(difference_figure(diffs, OPTS))["data"]}
    assert traces["alpha − beta"]["marker"]["color"] == OPTS.colors["alpha"]
    assert traces["alpha − gamma"]["marker"]["color"] == OPTS.colors["gamma"]
    assert traces["beta − gamma"]["marker"]["color"] == INDETERMINATE


def test_win_heatmap_masks_diagonal() -> None:
    p = np.array([[0.5, 0.9], [0.1, 0.5]])
    trace = win_heatmap(p, ["alpha", "beta"], OPTS).data[0]
    z = np.asarray(trace.z, dtype=float)
    assert np.isnan(z[0, 0]) and np.isnan(z[1, 1])
    assert z[0, 1] == pytest.approx(0.9)
    assert trace.text[0][1] == "0.90"


# ---- ranks ---------------------------------------------------------------------------------
def test_rank_aggregation_one_panel_per_method_rows_aligned() -> None:
    methods = ["mean", "average_rank"]
    rows = []
    for m in methods:
        for i, model in enumerate(MODELS):
            r = i + 1 if m == "mean" else len(MODELS) - i
            rows.append({"model": model, "method": m, "mean_rank": r, "low": r, "high": r})
    spec = _spec(rank_aggregation_figure(pd.DataFrame(rows), OPTS))
    dots = [t for t in spec["data"] if t["name"] == "points"]  # one trace per panel (#41)
    assert len(dots) == len(methods) and len(spec["data"]) == 2 * len(methods)
    assert [t["y"] for t in dots] == [list(MODELS)] * len(methods)  # rows line up
    assert spec["layout"]["yaxis"]["categoryarray"] == list(MODELS)[::-1]
    assert spec["layout"]["xaxis"]["range"] == [len(MODELS) + 0.5, 0.5]  # rank 1 at the right end
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert "Mean over tasks" in titles and "Average rank" in titles


@pytest.mark.parametrize("n", [2, 16])
def test_the_rank_axis_title_clears_the_tick_labels_with_few_models(n: int) -> None:
    """The title sat a share of the plot's height below the axis: with two models (a short
    plot) it ran into the rank numbers (audit of 30). It sits a fixed distance below."""
    models = [f"m{i}" for i in range(n)]
    rows = [
        {"model": m, "method": "mean", "mean_rank": i + 1, "low": i + 1, "high": i + 1}
        for i, m in enumerate(models)
    ]
    layout = _spec(rank_aggregation_figure(pd.DataFrame(rows), OPTS))["layout"]
    (title,) = [a for a in layout["annotations"] if a["text"] == "rank (1 = best)"]
    plot = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    below = -title["y"] * plot - title["yshift"]  # pixels from the axis to the title's top
    assert below >= 24  # tick labels of 13 px type take about 20 px


def test_rank_aggregation_draws_each_models_interval_in_its_colour_with_its_hover() -> None:
    """Issue 41: the intervals of a panel are one dots trace, one caps trace and a line shape
    per model (not a trace per model); every number, colour and hover text is the model's."""
    rows = [
        {"model": m, "method": meth, "mean_rank": 1.5 + i, "low": 1.0 + i, "high": 3.0 + i}
        for meth in ("mean", "geometric_mean")
        for i, m in enumerate(MODELS)
    ]
    spec = _spec(rank_aggregation_figure(pd.DataFrame(rows), OPTS))
    shapes = spec["layout"]["shapes"]
    assert len(shapes) == 2 * len(MODELS) and {s["layer"] for s in shapes} == {"between"}
    for panel, (axis, label) in enumerate((("", "Mean over tasks"), ("2", "Geometric mean"))):
        dots, caps = (
            next(t for t in spec["data"] if t["xaxis"] == f"x{axis}" and t["name"] == kind)
            for kind in ("points", "caps")
        )
        lines = shapes[panel * len(MODELS) : (panel + 1) * len(MODELS)]
        for k, m in enumerate(MODELS):
            color = OPTS.color(m)
            assert (dots["x"][k], dots["y"][k], dots["marker"]["color"][k]) == (1.5 + k, m, color)
            assert dots["hovertemplate"][k] == (
                f"{m}<br>{label}<br>mean rank {1.5 + k:.2f} [{1.0 + k:g}, {3.0 + k:g}]"
                "<extra></extra>"
            )
            line = lines[k]
            assert (line["x0"], line["x1"], line["y0"], line["y1"]) == (1.0 + k, 3.0 + k, m, m)
            assert line["line"] == {"color": color, "width": 2}
            assert (line["xref"], line["yref"]) == (f"x{axis}", f"y{axis}")
            n = len(MODELS)
            assert (caps["x"][k], caps["x"][n + k]) == (1.0 + k, 3.0 + k)
            assert caps["marker"]["line"]["color"][k] == color


def test_the_left_margin_holds_the_names_as_the_app_draws_them() -> None:
    """Issue 41: a margin too narrow for the tick labels made plotly's automargin draw a chart
    twice. In chromium the app drew "Sup-Rotation-100%" 111 px wide and needed a 130 px margin;
    escaped text counts as shown; a name too long for any chart is left to automargin."""
    from benchuq.presentation.figures.common import MAX_LABEL_MARGIN, label_margin

    assert 130 <= label_margin(["Sup-Rotation-100%", "VAE"]) <= 150
    assert label_margin(["&lt;b&gt;"]) == label_margin(["<b>"])
    assert label_margin([]) < 30 and label_margin(["W" * 200]) == MAX_LABEL_MARGIN


def test_rank_probability_panels_ordered_by_expected_rank() -> None:
    p = np.array([[0.1, 0.9], [0.9, 0.1]])  # beta is most likely first
    spec = _spec(rank_probability_figure(p, ["alpha", "beta"], OPTS))
    assert [t["name"] for t in spec["data"]] == ["beta", "alpha"]
    assert spec["data"][0]["marker"]["color"] == OPTS.colors["beta"]
    fig = rank_probability_figure(p, ["alpha", "beta"], OPTS)
    assert np.asarray(fig.data[0].y) == pytest.approx([0.9, 0.1])


# ---- views -----------------------------------------------------------------------------------
def test_overlap_level_matches_goldstein_healy() -> None:
    assert overlap_test_level(0.834) == pytest.approx(0.95, abs=0.001)
    assert overlap_test_level(0.95) > 0.99


def test_tie_rule_has_nominal_size_when_models_are_equal() -> None:
    """Simulation: two equal models; the leader is declared distinct in about 5% of data sets."""
    rng = np.random.default_rng(1)
    n_sets, reps, n = 1000, 400, 5000
    distinct = 0
    for _ in range(n_sets):
        p_hat = rng.binomial(n, 0.7, size=2) / n  # observed scores of two equal models
        draws = rng.binomial(n, p_hat, size=(reps, 2)) / n  # their binomial bootstrap
        distinct += not tied_with_leader(draws, p_hat, level=0.834).all()
    rate = distinct / n_sets  # nominal 5%; the binomial sd over 1000 data sets is 0.7 points
    assert 0.03 <= rate <= 0.075, rate


def test_tie_rule_detects_a_large_difference() -> None:
    rng = np.random.default_rng(2)
    draws = np.column_stack([rng.normal(0.8, 0.01, 2000), rng.normal(0.7, 0.01, 2000)])
    tied = tied_with_leader(draws, np.array([0.8, 0.7]), level=0.834)
    assert tied.tolist() == [True, False]


def test_md_escape_neutralises_markup() -> None:
    out = md_escape("<img src=x onerror=alert(1)> **bold** [a](b)")
    assert re.search(r"(?<!\\)[<>*\[\]()]", out) is None  # every markup character escaped
    assert out.replace("\\", "") == "<img src=x onerror=alert(1)> **bold** [a](b)"


# ---- URL state -------------------------------------------------------------------------------
SAMPLES = ("vtab1k", "toy")


def test_parse_static_accepts_valid_values() -> None:
    q = {
        "data": "sample:toy",
        "method": "bootstrap",
        "level": "0.9",
        "reps": "500",
        "seed": "7",
        "metric": "normalized",
    }
    values, notices = state.parse_static(q, samples=SAMPLES, methods=("bootstrap",))
    assert notices == []
    assert values == {
        "data": "sample:toy",
        "method": "bootstrap",
        "level": 0.9,
        "reps": 500,
        "seed": 7,
        "metric": "normalized",
    }


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("data", "sample:nope"),
        ("data", "upload"),
        ("method", "magic"),
        ("level", "2"),
        ("level", "nan"),
        ("reps", "ten"),
        ("reps", "5"),
        ("seed", "-1"),
        ("metric", "log"),
    ],
)
def test_parse_static_rejects_bad_values_with_a_named_notice(param: str, value: str) -> None:
    values, notices = state.parse_static({param: value}, samples=SAMPLES, methods=("bootstrap",))
    assert param not in values
    assert [n.param for n in notices] == [param]
    assert param in str(notices[0]) and value in str(notices[0])


def test_weights_and_models_parsing() -> None:
    cats = ("natural", "specialized", "structured")
    assert state.parse_weights("1,2,1", cats) == ((1.0, 2.0, 1.0), None)
    for bad in ("1,2", "a,b,c", "0,0,0", "-1,1,1"):
        w, notice = state.parse_weights(bad, cats)
        assert w is None and notice.param == "weights"
    _, notice = state.parse_weights("0", ("natural",))
    assert "expected one positive number for the one category natural" in notice.message
    assert state.parse_models("b,a", ("a", "b", "c")) == (("a", "b"), None)
    models, notice = state.parse_models("a,zz", ("a", "b"))
    assert models == ("a",) and "zz" in notice.message
    assert state.parse_models("zz", ("a", "b"))[0] is None


def test_query_round_trip() -> None:
    s = state.Settings(
        data="sample:toy",
        level=0.9,
        reps=500,
        seed=3,
        metric="normalized",
        weights=(1.0, 2.0),
        models=("a", "b"),
    )
    q = state.settings_query(s)
    # every field but the two left at their defaults (absent parameter = default)
    assert set(q) == set(state.PARAM_NAMES) - {"method", "overall"}
    values, notices = state.parse_static(q, samples=SAMPLES, methods=("bootstrap",))
    assert not notices
    assert state.parse_weights(q["weights"], ("x", "y"))[0] == s.weights
    assert state.parse_models(q["models"], ("a", "b", "c"))[0] == s.models
    assert values["level"] == s.level
    np.testing.assert_allclose(s.normalized_weights(), [1 / 3, 2 / 3])
    np.testing.assert_allclose(state.normalize_weights([0, 0]), [0.5, 0.5])


def test_category_edits_round_trip_through_the_query() -> None:
    tasks, own = ("t1", "t,2", "t3"), ("a", "a", "b")
    edits = {"t1": "a", "t,2": "ß:c;d", "t3": "b"}  # only t,2 differs from the data set's own
    raw = state.categories_query(edits, tasks, own)
    assert raw == '{"t,2":"ß:c;d"}'
    assert state.parse_categories(raw, tasks) == ({"t,2": "ß:c;d"}, None)
    assert state.categories_query({"t1": "a"}, tasks, own) == ""
    kept, notice = state.parse_categories('{"t1": "x", "zz": "y", "t3": ""}', tasks)
    assert kept == {"t1": "x"} and notice is not None and "zz, t3" in notice.message
    assert state.parse_categories("[1, 2]", tasks)[0] == {}


@pytest.mark.parametrize("title", ["All models", "Overall (mean of 16 benchmarks; " * 2])
@pytest.mark.parametrize("data", ["lm-eval v0.4: 2 models x 16 benchmarks", "x" * 150])
def test_an_exported_charts_title_and_subtitle_stay_above_the_plot(title: str, data: str) -> None:
    """Rendered (SVG, kaleido): the subtitle's last line ends above the plot area and the title
    starts inside the figure, for one- and two-line titles and subtitles of two and three lines
    (a two-line title's subtitle ran over the first model's row; audit of 30)."""
    if not chromium_available():
        pytest.skip("kaleido needs the system chromium")
    sub = chart_subtitle(data, "task-level confidence draws (mid-p Clopper–Pearson)", 2000, 0, 0.9)
    fig = with_subtitle(forest_figure(_table(), FigureOptions(colors={}, title=title)), sub)
    svg = fig.to_image(format="svg", width=560).decode()

    def first_baseline_and_lines(cls: str) -> tuple[float, int]:
        text = re.search(rf'<text[^>]*class="{cls}"[^>]*y="([\d.]+)".*?</text>', svg)
        assert text is not None, cls
        return float(text.group(1)), text.group(0).count('class="line"')

    title_y, _ = first_baseline_and_lines("gtitle")
    sub_y, sub_lines = first_baseline_and_lines("gtitle-subtitle")
    assert title_y >= 16  # the first line's capitals inside the figure
    assert sub_y + 14.3 * (sub_lines - 1) + 3 <= fig.layout.margin.t  # 11 px lines, 1.3 em


@pytest.mark.slow
def test_chart_downloads_render_png_svg_and_html() -> None:
    """Server-side images via kaleido (needs the system chromium, like the browser tests)."""
    if not chromium_available():
        if os.environ.get("CI"):
            pytest.fail("kaleido needs /usr/bin/chromium in CI")
        pytest.skip("chromium not found")
    from benchuq.dashboard.export import html_bytes, image_bytes

    fig = forest_figure(_table(), OPTS)
    assert image_bytes(fig, "png").startswith(b"\x89PNG")
    svg = image_bytes(fig, "svg")
    assert b"<svg" in svg[:500] and b"alpha" in svg
    page = html_bytes(fig)
    assert b"<html>" in page[:100] and b"plotly" in page


def _at_the_top() -> pd.DataFrame:
    """A leader at 100% [44%, 100%] (few items) and a model tied with it."""
    return pd.DataFrame(
        {
            "model": ["alpha", "beta"],
            "estimate": [1.0, 0.5],
            "low": [0.44, 0.1],
            "high": [1.0, 0.9],
            "tied": [True, True],
        }
    )


def test_axes_never_leave_the_score_range() -> None:
    """A model at 100% [44%, 100%] (few items): the axis stops at 100%, not 120% (#29); a
    difference of proportions stays within +-100 points."""
    x = forest_figure(_at_the_top(), OPTS).layout.xaxis.range
    assert 0 <= x[0] and x[1] <= 100
    diffs = pd.DataFrame(
        {"a": ["alpha"], "b": ["beta"], "estimate": [0.5], "low": [-0.3], "high": [1.0]}
    )
    x = difference_figure(diffs, OPTS).layout.xaxis.range
    assert -100 <= x[0] and x[1] <= 100


def test_the_leader_tag_shows_when_its_interval_reaches_the_axis_end() -> None:
    """A leader at 100% (inspect_ai logs of a few items): its "leader" label sat right of
    100%, past the axis end, where plotly hides a point even with cliponaxis off; the chart
    showed no leader at all (audit of 30). Every tag sits within the axis range."""
    fig = forest_figure(_at_the_top(), OPTS)
    layout, tags = fig.layout, fig.data[-1]
    assert [t.strip() for t in tags.text] == ["leader", "≈ leader"]
    low, high = layout.xaxis.range
    assert all(low <= x <= high for x in tags.x)
    assert tags.textposition == "middle right" and layout.margin.r >= 80  # room past the end


def test_a_dot_at_the_axis_end_is_drawn_whole() -> None:
    """A model at 100% sits on the axis end: with plotly's clipping its dot was cut in half
    (audit of 30); interval traces are not clipped to the plot area."""
    fig = forest_figure(_at_the_top(), OPTS)
    dots = [t for t in fig.data if t.error_x.array is not None]
    assert dots and max(t.x[0] for t in dots) == fig.layout.xaxis.range[1]
    assert all(t.cliponaxis is False for t in dots)
