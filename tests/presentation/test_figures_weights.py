"""Task-weight map figures (plotly and python-ternary), tested without streamlit."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import matplotlib
import numpy as np
import pytest

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.core.summaries.dominance import (
    BestProbabilityMap,
    best_probability_map,
    dominance_map,
    from_map_weights,
    map_categories,
    moments_from_benchmark,
    moments_from_draws,
    simplex_grid,
)
from benchuq.presentation.colors import INDETERMINATE, model_colors
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.ternary_static import (
    dominance_image,
    probability_image,
    subtitle_text,
)
from benchuq.presentation.figures.weights import (
    HOVER_TRACE,
    clicked_point,
    dominance_figure,
    probability_figure,
    tile_outline,
    tile_paths,
)

MODELS = ("<b>bold</b>", "%{a}", "gamma", "delta")


def bench() -> Benchmark:
    est = np.array(
        [
            [0.90, 0.50, 0.40, 0.41],
            [0.60, 0.80, 0.40, 0.42],
            [0.50, 0.50, 0.80, 0.79],
            [0.55, 0.55, 0.55, 0.55],
        ]
    )
    return Benchmark(
        name="fig",
        models=MODELS,
        tasks=("t1", "t2", "t3", "t4"),
        categories=("x", "y", "z", "z"),
        kind="estimate_se",
        estimate=est,
        se=np.full_like(est, 0.02),
    )


def draws(b: Benchmark, reps: int = 400) -> Draws:
    rng = np.random.default_rng(0)
    return Draws(
        values=b.estimate + b.se * rng.normal(size=(reps, *b.estimate.shape)),
        observed=np.array(b.estimate),
        models=b.models,
        tasks=b.tasks,
        categories=b.categories,
        higher_is_better=np.ones(4, bool),
        method="normal",
        paired=False,
    )


OPTS = FigureOptions(model_colors(MODELS), 100.0, "score (%)")


def _cartesian(abc: np.ndarray) -> np.ndarray:
    return np.column_stack([abc[:, 2] + abc[:, 0] / 2, abc[:, 0] * np.sqrt(3) / 2])


def test_tiles_cover_the_triangle_exactly() -> None:
    for r in (3, 10, 40):
        paths, used = tile_paths(r)
        assert paths.shape[0] == len(simplex_grid(r))
        total = 0.0
        for p in range(paths.shape[0]):
            poly = paths[p][used[p]][:-2]  # corners (drop closing row and NaN separator)
            assert np.all(poly >= -1e-12) and np.allclose(poly.sum(axis=1), 1)
            xy = _cartesian(poly)
            x, y = xy[:, 0], xy[:, 1]
            total += 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        assert total == pytest.approx(np.sqrt(3) / 4, rel=1e-9)


def _signed_area(xy: np.ndarray) -> float:
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def test_tile_outline_fills_exactly_its_tiles_in_one_path() -> None:
    """One gapless path per colour: the steps between tiles are walked back, so they enclose
    no area and the path's area is the tiles' (all wound the same way, so none cancels)."""
    r = 12
    tiles = tile_paths(r)
    paths, used = tiles
    rng = np.random.default_rng(3)
    for idx in (np.array([4]), np.arange(len(simplex_grid(r))), rng.choice(91, 30, replace=False)):
        out = tile_outline(tiles, idx)
        assert not np.isnan(out).any() and np.allclose(out.sum(axis=1), 1)
        assert np.array_equal(out[0], out[-1])  # home again: the fill closes nothing new
        areas = [_signed_area(_cartesian(paths[p][used[p]][:-2])) for p in idx]
        assert len({np.sign(a) for a in areas}) == 1
        assert _signed_area(_cartesian(out)) == pytest.approx(sum(areas), rel=1e-9)


def test_dominance_figure_colours_legend_and_hover() -> None:
    dm = dominance_map(moments_from_benchmark(bench()), resolution=20)
    fig = dominance_figure(dm, OPTS, marker=np.array([0.2, 0.3, 0.5]))
    tiles = [t for t in fig.data if t.fill == "toself"]
    assert tiles[0].fillcolor == INDETERMINATE  # the grey background
    winners = {dm.models[k] for k in set(dm.winner.tolist()) if k >= 0}
    assert {t.fillcolor for t in tiles[1:]} == {OPTS.color(m) for m in winners}
    legend = [t.name for t in fig.data if t.showlegend is not False and t.name]
    assert legend[0].startswith("indeterminate (")
    assert any(n.startswith("&lt;b&gt;bold&lt;/b&gt;") for n in legend)
    hover = [t for t in fig.data if t.name == HOVER_TRACE]
    idx = np.concatenate([np.asarray(t.customdata)[:, 0] for t in hover]).astype(int)
    assert sorted(idx.tolist()) == list(range(len(dm.weights)))
    for t in hover:
        cd = np.asarray(t.customdata)
        want = dm.difference[cd[:, 0].astype(int)] * 100  # the hover shows .2f
        assert [f"{v:.2f}" for v in cd[:, 1]] == [f"{v:.2f}" for v in want]
    assert "<b>bold</b>" not in json.dumps(fig.to_plotly_json())
    templates = " ".join(t.hovertemplate for t in hover)
    assert "%{a}" not in templates and "%&#123;a&#125;" in templates  # names are not placeholders
    marker = fig.data[-1]
    assert (marker.a[0], marker.b[0], marker.c[0]) == (0.2, 0.3, 0.5)
    assert fig.layout.ternary.aaxis.title.text == "<b>x</b>"


def test_probability_figure_hover_matches_the_map() -> None:
    pm = best_probability_map(moments_from_draws(draws(bench())), resolution=12)
    fig = probability_figure(pm, OPTS)
    hover = [t for t in fig.data if t.name == HOVER_TRACE]
    for t in hover:
        cd = np.asarray(t.customdata)
        p = cd[:, 0].astype(int)
        want = pm.best_probability[p]  # the hover shows .1%
        assert [f"{100 * v:.1f}" for v in cd[:, 1]] == [f"{100 * v:.1f}" for v in want]
    assert sum(len(t.customdata) for t in hover) == len(pm.weights)
    names = [t.name for t in fig.data if t.showlegend is not False]
    assert "first in 95%–100% of replicates" in names


def test_two_categories_draw_a_line_with_a_winner_strip() -> None:
    b = bench()
    m = moments_from_benchmark(b, mapping=map_categories(b.category_names, pick=["x", "z"]))
    dm = dominance_map(m, resolution=10)
    fig = dominance_figure(dm, OPTS, marker=np.array([0.5, 0.5]))
    bar = next(t for t in fig.data if t.type == "bar")
    expected = [INDETERMINATE if k < 0 else OPTS.color(dm.models[k]) for k in dm.winner]
    assert list(bar.marker.color) == expected
    assert all(t.type in ("scatter", "bar") for t in fig.data)


@pytest.mark.parametrize(
    ("fmt", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_static_images(fmt: str, magic: bytes) -> None:
    dm = dominance_map(moments_from_benchmark(bench()), resolution=10, z=1.4, rho=0.3)
    out = dominance_image(dm, OPTS.colors, fmt, data="fig", marker=np.array([0.2, 0.3, 0.5]))
    assert out.startswith(magic) and len(out) > 5000


def test_static_probability_and_line_images() -> None:
    b = bench()
    pm = best_probability_map(moments_from_draws(draws(b, 100)), resolution=8)
    assert probability_image(pm, OPTS.colors, "png", data="fig").startswith(b"\x89PNG")
    m = moments_from_benchmark(b, mapping=map_categories(b.category_names, pick=["x", "y"]))
    line = dominance_image(dominance_map(m, resolution=8), OPTS.colors, "png", data="fig")
    assert line.startswith(b"\x89PNG")


def test_subtitle_states_z_rho_level_and_data() -> None:
    dm = dominance_map(moments_from_benchmark(bench()), resolution=4, z=1.4, rho=0.3)
    text = subtitle_text(dm, "vtab1k")
    assert "vtab1k" in text and "z = 1.40" in text and "rho = 0.30 assumed" in text
    assert "83.8%" in text


def line_maps(b: Benchmark, pick: list[str], resolution: int = 10):
    m = map_categories(b.category_names, pick=pick)
    dm = dominance_map(moments_from_benchmark(b, mapping=m), resolution=resolution)
    pm = best_probability_map(moments_from_draws(draws(b, 200), mapping=m), resolution=resolution)
    return dm, pm


def event(*points: dict) -> dict:
    """What ``st.plotly_chart(on_select=...)`` stores after a click."""
    return {"selection": {"points": list(points), "point_indices": [], "box": [], "lasso": []}}


def test_line_points_carry_the_weights_a_click_needs() -> None:
    dm, pm = line_maps(bench(), ["x", "z"])
    for fig in (
        dominance_figure(dm, OPTS, marker=np.array([0.5, 0.5])),
        probability_figure(pm, OPTS, marker=np.array([0.5, 0.5])),
    ):
        assert fig.layout.clickmode == "event+select"
        selectable = [t for t in fig.data if t.type == "bar" or "markers" in t.mode]
        assert len(selectable) == len(fig.data) >= 2  # plotly never selects a bare line
        for t in selectable:
            np.testing.assert_allclose(np.sort(t.x), np.sort(dm.weights[:, 0]))
            if (
                t.type == "scatter" and t.stackgroup
            ):  # plotly reports a stacked point's x right only for sorted x
                assert np.all(np.diff(t.x) > 0)
            assert t.hovertemplate and t.hovertemplate.endswith("<extra></extra>")
            assert "%{a}" not in t.hovertemplate  # the model named %{a} is not a placeholder
            k = 3  # a click on the fourth point, as plotly reports it
            w = clicked_point(event({"x": t.x[k], "y": t.y[k], "curve_number": 0}), 2)
            np.testing.assert_allclose(w, [t.x[k], 1 - t.x[k]])
        for t in fig.data:
            if t.type == "scatter":  # invisible markers, selected or not
                assert t.marker.opacity == t.selected.marker.opacity == 0
                assert t.unselected.marker.opacity == 0
            else:  # the winner strip does not fade when a bar is selected
                assert t.unselected.marker.opacity == 1


def test_clicked_point_reads_ternary_and_line_points_only() -> None:
    tern = {"a": 0.2, "b": 0.3, "c": 0.5, "x": 0.9, "customdata": [4, 1.0]}
    np.testing.assert_allclose(clicked_point(event(tern), 3), [0.2, 0.3, 0.5])
    np.testing.assert_allclose(clicked_point(event({"x": 0.25, "y": 61.0}), 2), [0.25, 0.75])
    # the first usable point wins; unusable ones are skipped
    np.testing.assert_allclose(
        clicked_point(event({"y": 3.0}, {"x": 0.6}, {"x": 0.1}), 2), [0.6, 0.4]
    )
    for bad in (None, {}, event(), event({"x": 0.4}), event({"a": 0.2, "b": 0.8})):
        assert clicked_point(bad, 3) is None
    for bad in (event({"x": 1.5}), event({"x": "0.4"}), event({"y": 0.4})):
        assert clicked_point(bad, 2) is None


def test_a_line_click_becomes_sidebar_weights_for_picked_and_merged_categories() -> None:
    """The page's callback is ``from_map_weights(clicked_point(event), ...)``: check the chain."""
    b = bench()  # categories x, y, z; z has two tasks
    names, tasks = b.category_names, b.categories
    dm, _ = line_maps(b, ["x", "z"])
    bar = next(t for t in dominance_figure(dm, OPTS).data if t.type == "bar")
    point = clicked_point(event({"x": bar.x[7], "y": 1}), 2)  # x 30%, z 70%
    picked = map_categories(names, pick=["x", "z"])
    np.testing.assert_allclose(from_map_weights(point, names, tasks, picked), [0.3, 0.0, 0.7])
    merged = map_categories(names, merge={"x": "x", "y": "y + z", "z": "y + z"})
    w = from_map_weights(point, names, tasks, merged)
    np.testing.assert_allclose(w, [0.3, 0.7 / 3, 1.4 / 3])  # split by task count 1 : 2
    assert w.sum() == pytest.approx(1)


def svg_text(out: bytes) -> str:
    text = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", out.decode()))
    return text.replace("&lt;", "<").replace("&gt;", ">")


@pytest.mark.parametrize(
    ("fmt", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")]
)
def test_static_probability_line_image(fmt: str, magic: bytes) -> None:
    _, pm = line_maps(bench(), ["x", "z"], resolution=20)
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # SVG text as <text>, to read it
        out = probability_image(pm, OPTS.colors, fmt, data="vtab1k", marker=np.array([0.3, 0.7]))
    assert out.startswith(magic) and len(out) > 5000
    if fmt == "svg":
        text = svg_text(out)
        assert "Which model is most likely best at each task weighting?" in text
        assert "Data: vtab1k. Bands: each model's share of 200 replicates" in text
        assert "weight on x (rest on z)" in text
        counts = np.bincount(pm.best, minlength=len(pm.models)) / len(pm.best)
        for i in np.flatnonzero(pm.probability.max(axis=0) > 0.01):  # every band is named
            assert f"{pm.models[i]} ({counts[i]:.0%})" in text
        assert "first in 95%–100% of replicates" in text


def test_static_probability_line_names_every_band_and_stacks_to_one() -> None:
    """A model never most likely best but with a band is listed at 0%; models that never pass
    1% share one grey band, so the stack always reaches 100%."""
    x = np.linspace(1, 0, 5)
    third = np.array([0.0, 0.1, 0.2, 0.1, 0.0])  # gamma: a band, never the likeliest
    rare = np.array([0.0, 0.004, 0.008, 0.004, 0.0])  # delta: at most 0.8%
    rest = 1 - third - rare
    prob = np.column_stack([x * rest, (1 - x) * rest, third, rare])
    pm = BestProbabilityMap(
        models=MODELS,
        categories=("x", "z"),
        weights=np.column_stack([x, 1 - x]),
        probability=prob,
        best=prob.argmax(axis=1),
        reps=250,
        mc_error=np.zeros(5),
        source="test",
    )
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        text = svg_text(probability_image(pm, OPTS.colors, "svg", data="fig"))
    assert "other models (each ≤ 1%)" in text and "of 250 replicates" in text
    assert "gamma (0%)" in text
    assert "delta" not in text  # in the grey band, no entry of its own
    common = prob[:, :3] / prob[:, :3].sum(axis=1, keepdims=True)
    pm_common = replace(pm, models=MODELS[:3], probability=common)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        text = svg_text(probability_image(pm_common, OPTS.colors, "svg", data="fig"))
    assert "other models" not in text and "gamma (0%)" in text  # nothing left over


def test_static_se_line_names_every_line() -> None:
    """Models drawn as a line that win nowhere join the winner legend at 0%."""
    dm, _ = line_maps(bench(), ["x", "z"], resolution=20)
    drawn = set(dm.leader.tolist()) | set(dm.runner_up.tolist())
    never = [dm.models[i] for i in sorted(drawn - set(dm.winner.tolist()))]
    assert never  # %{a} and delta are runners-up somewhere but never win
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        text = svg_text(dominance_image(dm, OPTS.colors, "svg", data="fig"))
    for m in never:
        assert f"{m} (0%)" in text
    bold = MODELS[0]  # "<b>bold</b>": names are text in the image, never markup
    assert f"{bold} ({dm.shares()[bold]:.0%})" in text


def test_static_images_draw_dollar_signs_literally() -> None:
    """A "$" in a name would start matplotlib mathtext (``$\\frac{a$`` fails to parse)."""
    b = replace(bench(), models=("$\\frac{a$", "b$x^$", "gamma", "delta"), name="d$a$ta")
    dm = dominance_map(moments_from_benchmark(b), resolution=5)
    pm = best_probability_map(moments_from_draws(draws(b, 50)), resolution=5)
    m2 = map_categories(b.category_names, pick=["x", "z"])
    line = dominance_map(moments_from_benchmark(b, mapping=m2), resolution=5)
    pline = best_probability_map(moments_from_draws(draws(b, 50), mapping=m2), resolution=5)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        for out in (
            dominance_image(dm, OPTS.colors, "svg", data=b.name),
            probability_image(pm, OPTS.colors, "svg", data=b.name),
            dominance_image(line, OPTS.colors, "svg", data=b.name),
            probability_image(pline, OPTS.colors, "svg", data=b.name),
        ):
            text = svg_text(out)
            assert "Data: d$a$ta." in text and "$\\frac{a$" in text


def test_ternary_maps_built_from_dicts_are_valid_plotly() -> None:
    """The maps skip plotly's validation (issue 30): validating them changes nothing."""
    import plotly.graph_objects as go
    import plotly.io as pio

    b = bench()
    dm = dominance_map(moments_from_benchmark(b), resolution=12)
    pm = best_probability_map(moments_from_draws(draws(b)), resolution=12)
    marker = np.array([0.2, 0.3, 0.5])
    for fig in (dominance_figure(dm, OPTS, marker=marker), probability_figure(pm, OPTS, marker)):
        built = json.loads(pio.to_json(fig, validate=False))
        validated = json.loads(pio.to_json(go.Figure(built)))
        assert built["layout"].pop("title") == {}  # as plotly's update_layout(title=None) left it
        assert validated == built
