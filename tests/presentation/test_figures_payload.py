"""The Task weights map of VTAB-1k at grid 100 stays small (issue 30: the browser parses and
draws every byte) and plots the same values, to the precision shown, as the map it is built from."""

from __future__ import annotations

import numpy as np
import pytest

from benchuq.core.reading.loaders import load_sample
from benchuq.core.summaries.dominance import dominance_map, map_categories, moments_from_benchmark
from benchuq.presentation.colors import model_colors
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.sizes import figure_bytes
from benchuq.presentation.figures.weights import HOVER_TRACE, dominance_figure, tile_paths

#: Budget for the map's JSON (818 kB before issue 30's payload work, 302 kB after).
MAP_BUDGET = 400_000


@pytest.fixture(scope="module")
def vtab_map():
    bench = load_sample("vtab1k")
    moments = moments_from_benchmark(bench, mapping=map_categories(bench.category_names))
    dm = dominance_map(moments, z=2.0, rho=0.0, resolution=100)
    opts = FigureOptions(model_colors(bench.models), 100.0, "score (%)")
    return dm, dominance_figure(dm, opts, marker=np.full(3, 1 / 3))


def test_vtab1k_weights_map_stays_under_its_size_budget(vtab_map) -> None:
    _, fig = vtab_map
    assert figure_bytes(fig) < MAP_BUDGET


def test_hover_shows_the_maps_numbers_and_points(vtab_map) -> None:
    dm, fig = vtab_map
    hover = [t for t in fig.data if t.name == HOVER_TRACE]
    seen = []
    for t in hover:
        cd = np.asarray(t.customdata, dtype=float)
        p = cd[:, 0].astype(int)
        seen += p.tolist()
        ratio = np.divide(
            dm.difference[p], dm.se[p], out=np.full(len(p), np.inf), where=dm.se[p] > 0
        )
        for k, want in enumerate([dm.difference[p] * 100, dm.se[p] * 100, ratio], start=1):
            assert [f"{v:.2f}" for v in cd[:, k]] == [f"{v:.2f}" for v in want]  # as shown: .2f
        for k, axis in enumerate("abc"):  # hover header (.1%) and a click (rounded to 1e-4)
            np.testing.assert_allclose(np.asarray(getattr(t, axis)), dm.weights[p, k], atol=1e-6)
    assert sorted(seen) == list(range(len(dm.weights)))


def test_tiles_keep_their_corners(vtab_map) -> None:
    dm, fig = vtab_map
    paths, used = tile_paths(100)
    for model in {dm.models[k] for k in dm.winner.tolist() if k >= 0}:
        idx = np.flatnonzero(dm.winner == dm.models.index(model))
        corners = paths[idx][used[idx]]
        corners = corners[~np.isnan(corners[:, 0])]  # each closed tile in turn, no separators
        home = paths[idx[::-1], 0][1:]  # then back through the tiles' first corners
        tile = next(t for t in fig.data if t.fill == "toself" and t.name.startswith(model))
        assert tile.c is None  # c = 1 - a - b: the layout's sum
        got = np.column_stack([tile.a, tile.b]).astype(float)
        want = np.concatenate([corners, home])[:, :2]
        np.testing.assert_allclose(got, want, atol=1e-6)  # a 1e-4 pixel on a 700 px map


def test_hover_points_draw_nothing_yet_stay_selectable(vtab_map) -> None:
    """Text mode without text: plotly draws nothing per grid point (5,151 marker paths made a
    rho move redraw about twice as slow) but still selects the clicked point; mode "none"
    would be lighter still, but plotly cannot select a point of it (Streamlit's on_select)."""
    _, fig = vtab_map
    for t in (t for t in fig.data if t.name == HOVER_TRACE):
        assert t.mode == "text" and t.text is None and t.texttemplate is None
