"""Plotly figures of task-weight maps (METHODS 5): pure builders, no streamlit.

Three categories give a ternary map tiled by hexagons: every grid point of the simplex owns the
hexagon of weights closer to it than to any other grid point (the dual of the triangular grid),
so the tiles cover the triangle exactly at any size and resolution. Tiles are filled with the
winning model's colour (``presentation.colors``) over a grey triangle (indeterminate: the lead is
within ``z`` standard errors). Undrawn points at the grid points (text mode without text: no
SVG node per point, yet selectable) carry the hover (names in the template, numbers in
``customdata`` = [grid index, values...]) and are what a click selects (the page reads the
selected point's ternary ``a, b, c``). Two categories give a line:
``S_i(w)`` along ``w`` with the winner strip underneath; every point of the lines and every bar
of the strip is selectable, its ``x`` being the weight of the first category (the rest is on the
second). :func:`clicked_point` turns either kind of selection back into map weights.

Corners: the first category is the top corner (plotly's ``a``), the second the bottom left
(``b``), the third the bottom right (``c``).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from benchuq.core.summaries.dominance import BestProbabilityMap, DominanceMap, simplex_grid
from benchuq.presentation.colors import INDETERMINATE
from benchuq.presentation.figures.common import FONT, FigureOptions, _figure
from benchuq.presentation.text import plotly_escape as _esc

HOVER_TRACE = "grid points"
MARKER_TRACE = "current weights"
#: Probability bands of the probability view: tiles are shaded by P(best) of the likeliest model.
PROB_BANDS: tuple[tuple[float, float, float], ...] = (
    (0.0, 0.5, 0.18),
    (0.5, 0.8, 0.4),
    (0.8, 0.95, 0.7),
    (0.95, 1.0001, 1.0),
)


def hexagon_offsets() -> np.ndarray:
    """``(6, 3)`` barycentric offsets (in grid steps) of a grid point's hexagon corners."""
    dirs = np.array(
        [[1, -1, 0], [1, 0, -1], [0, 1, -1], [-1, 1, 0], [-1, 0, 1], [0, -1, 1]], dtype=float
    )
    # order the six neighbour directions by angle in the plane (a top, b left, c right)
    x = dirs[:, 2] - dirs[:, 1]
    y = dirs[:, 0] * np.sqrt(3)
    dirs = dirs[np.argsort(np.arctan2(y, x))]
    return (dirs + np.roll(dirs, -1, axis=0)) / 3


def _clip(poly: np.ndarray) -> np.ndarray:
    """Clip a convex polygon (rows of barycentric points) to the simplex (Sutherland-Hodgman)."""
    for axis in range(3):
        out = []
        n = len(poly)
        for k in range(n):
            p, q = poly[k], poly[(k + 1) % n]
            pin, qin = p[axis] >= 0, q[axis] >= 0
            if pin:
                out.append(p)
            if pin != qin:
                t = p[axis] / (p[axis] - q[axis])
                out.append(p + t * (q - p))
        poly = np.array(out)
        if len(poly) == 0:
            break
    return poly


MAX_CORNERS = 9  # a hexagon clipped by the triangle's corner planes has at most 8 corners


@functools.lru_cache(maxsize=8)
def tile_paths(resolution: int) -> tuple[np.ndarray, np.ndarray]:
    """Return closed tile outlines: ``(P, MAX_CORNERS + 2, 3)`` rows and a mask of used rows.

    Tile p is the hexagon around grid point p of ``simplex_grid(resolution)``, clipped to the
    triangle: its corners, the first corner again (closing it), then a NaN row that separates
    tiles drawn as one trace; unused rows are masked out. Read-only (cached).
    """
    W = simplex_grid(resolution)
    corners = W[:, None, :] + hexagon_offsets()[None] / resolution
    out = np.full((len(W), MAX_CORNERS + 2, 3), np.nan)
    used = np.zeros(out.shape[:2], dtype=bool)
    for p, c in enumerate(corners):
        poly = c if np.all(c >= -1e-12) else _clip(c)
        k = len(poly)
        out[p, :k] = poly
        out[p, k] = poly[0]
        used[p, : k + 2] = True
    for a in (out, used):
        a.setflags(write=False)
    return out, used


def _resolution(weights: np.ndarray) -> int:
    """``r`` of a full grid of ``(r + 1)(r + 2) / 2`` points."""
    r = (np.sqrt(1 + 8 * len(weights)) - 3) / 2
    if len(weights) < 3 or r != np.floor(r):
        raise ValueError(f"{len(weights)} weight vectors are not a full simplex grid.")
    return int(r)


def tile_outline(tiles: tuple[np.ndarray, np.ndarray], idx: np.ndarray) -> np.ndarray:
    """Tiles ``idx`` as one path (rows of ``a, b, c``): each closed tile in turn, then back
    through the tiles' first corners in reverse order.

    Each step from one tile to the next is walked back on the way home, so the steps enclose
    no area and a ``fill="toself"`` trace fills exactly the tiles; with no gaps plotly draws
    one SVG path per trace, not one per tile (issue 30: the VTAB-1k map drew about 1,600 paths,
    all made again on every move of a slider).
    """
    paths, used = tiles
    loops = paths[idx][used[idx]]
    loops = loops[~np.isnan(loops[:, 0])]  # without the separators
    back = paths[idx[::-1], 0][1:]  # the first corner of each earlier tile, last to first
    return np.concatenate([loops, back])


def _tile_trace(
    tiles: tuple[np.ndarray, np.ndarray], idx: np.ndarray, name: str, color: str
) -> dict:
    pts = tile_outline(tiles, idx).astype(np.float32)  # sent as 4-byte floats
    return _ternary_trace(  # c = 1 - a - b (the layout's sum): two coordinates carry a tile
        a=pts[:, 0],
        b=pts[:, 1],
        mode="lines",
        fill="toself",
        fillcolor=color,
        line={"color": color, "width": 0},  # no stroke: it would draw the steps between tiles
        name=name,
        hoverinfo="skip",
        legendgroup=name,
        showlegend=False,
    )


def _swatch(name: str, color: str, group: str) -> dict:
    """Return a legend entry only: a filled square (fill traces show a line in the legend)."""
    return _ternary_trace(
        a=[None],
        b=[None],
        c=[None],
        mode="markers",
        marker={"symbol": "square", "size": 13, "color": color},
        name=name,
        legendgroup=group,
    )


def _ternary_trace(**spec: object) -> dict:
    """A ``scatterternary`` trace as a plain dict (the figure is built without validation)."""
    return {"type": "scatterternary", **spec}


def _ternary_layout(categories: Sequence[str], title: str, height: int, legend_title: str) -> dict:
    """The ternary map's layout as a plain dict."""
    axis = {
        "min": 0,
        "linewidth": 1.5,
        "linecolor": "#444444",
        "ticks": "outside",
        "tickformat": ".0%",
        "dtick": 0.2,
        "showgrid": False,
        "title": {"font": {"size": 15}},
    }
    return dict(
        ternary={
            "sum": 1,
            "aaxis": {**axis, "title": {"text": f"<b>{_esc(categories[0])}</b>"}},
            "baxis": {**axis, "title": {"text": f"<b>{_esc(categories[1])}</b>"}},
            "caxis": {**axis, "title": {"text": f"<b>{_esc(categories[2])}</b>"}},
            "bgcolor": "white",
        },
        title={"text": title, "x": 0.0, "xanchor": "left"} if title else {},
        height=height,
        margin={"l": 85, "r": 85, "t": 70 if title else 45, "b": 130},
        font=FONT,
        legend={
            "orientation": "h",
            "yanchor": "top",
            "y": -0.08,
            "xanchor": "left",
            "x": 0.0,
            "title": {"text": legend_title, "side": "top"},
            "itemclick": False,
            "itemdoubleclick": False,
        },
        hoverlabel={"align": "left"},
        dragmode=False,
        clickmode="event+select",
    )


def _tmpl(name: object) -> str:
    """Return a user string safe inside a hovertemplate: HTML-escaped, no ``%{`` template fields."""
    return _esc(name).replace("{", "&#123;").replace("}", "&#125;")


def _weights_template(categories: Sequence[str]) -> str:
    return "<br>".join(
        f"{_tmpl(c)}: %{{{ax}:.1%}}" for c, ax in zip(categories, "abc", strict=True)
    )


def _as_shown(values: np.ndarray, decimals: int) -> list[float]:
    """``values`` rounded as the hover's ``.{decimals}f`` shows them: correctly rounded from the
    binary value, as JavaScript's ``toFixed`` does (``np.round`` scales first and can turn
    1.4749999 into 1.48)."""
    return [float(f"{v:.{decimals}f}") for v in values.tolist()]


def _hover_trace(
    W: np.ndarray, idx: np.ndarray, values: np.ndarray, decimals: Sequence[int], template: str
) -> dict:
    """Undrawn points at grid points ``idx``; ``customdata`` = [grid index, *values], each
    value column rounded to the ``decimals`` its template shows (so the hover reads the same)."""
    shown = [_as_shown(values[:, k], d) for k, d in enumerate(decimals)]
    data = [[i, *row] for i, *row in zip(idx.tolist(), *shown, strict=True)]
    abc = W[idx].astype(np.float32)  # 7 significant digits: the hover shows 3, a click rounds to 4
    return _ternary_trace(
        a=abc[:, 0],
        b=abc[:, 1],
        c=abc[:, 2],
        mode="text",  # no text given: nothing drawn, yet hover and click find the nearest point
        # plotly made (and removed) an empty text node per grid point at every draw, 3/4 of the
        # map's time in the browser (issue 41): at most one is made; hover and click still
        # find every point (mode "none" would make the points unselectable)
        marker={"maxdisplayed": 1},
        customdata=data,
        hovertemplate=template + "<extra></extra>",
        name=HOVER_TRACE,
        showlegend=False,
    )


def dominance_hover_traces(dm: DominanceMap, options: FigureOptions) -> list[dict]:
    """Hover at every grid point: weights, the call, leader, runner-up, difference, SE, z.

    One trace per (leader, runner-up, call) so names live in the template and the numbers in
    ``customdata`` (about 4x smaller than one text per point).
    """
    unit = " pp" if options.scale == 100 else ""
    head = _weights_template(dm.categories)
    ratio = np.divide(dm.difference, dm.se, out=np.full(len(dm.se), np.inf), where=dm.se > 0)
    columns = [dm.difference * options.scale, dm.se * options.scale, ratio]
    rho = ""
    if dm.rho_source != "assumed":  # an assumed rho is one number, in the caption
        columns.append(np.nan_to_num(dm.rho))
        rho = "<br>implied rho: %{customdata[4]:.2f}"
    values = np.column_stack(columns)
    keys = np.column_stack([dm.leader, dm.runner_up, dm.winner >= 0])
    traces = []
    for lead, run, won in np.unique(keys, axis=0):
        idx = np.flatnonzero(np.all(keys == (lead, run, won), axis=1))
        call = (
            f"<b>{_tmpl(dm.models[lead])} wins</b>"
            if won
            else f"<b>indeterminate</b> (lead < {dm.z:.2f} SE)"
        )
        template = (
            f"{head}<br>{call}<br>leader: {_tmpl(dm.models[lead])}"
            f"<br>runner-up: {_tmpl(dm.models[run])}"
            f"<br>difference: %{{customdata[1]:.2f}}{unit} (SE %{{customdata[2]:.2f}})"
            f"<br>z = difference / SE = %{{customdata[3]:.2f}}{rho}"
        )
        traces.append(_hover_trace(dm.weights, idx, values[idx], (2,) * len(columns), template))
    return traces


def _marker_trace(marker: np.ndarray) -> dict:
    m = np.asarray(marker, dtype=float)
    return _ternary_trace(
        a=[m[0]],
        b=[m[1]],
        c=[m[2]],
        mode="markers",
        marker={
            "symbol": "x-thin",
            "size": 16,
            "color": "black",
            "line": {"width": 3, "color": "black"},
        },
        name="current weights (sidebar)",
        hovertemplate="current weights<extra></extra>",
        legendgroup=MARKER_TRACE,
    )


def dominance_hover(dm: DominanceMap, options: FigureOptions) -> list[str]:
    """Hover text per point of a line map: weights, the call, leader, runner-up, difference."""
    unit = "pp" if options.scale == 100 else ""
    cats = [_esc(c) for c in dm.categories]
    wtext = ["<br>".join(f"{c}: {x:.1%}" for c, x in zip(cats, w, strict=True)) for w in dm.weights]
    out = []
    for p, head in enumerate(wtext):
        d, se = dm.difference[p] * options.scale, dm.se[p] * options.scale
        ratio = dm.difference[p] / dm.se[p] if dm.se[p] > 0 else np.inf
        call = (
            f"<b>{_esc(dm.models[dm.winner[p]])} wins</b>"
            if dm.winner[p] >= 0
            else f"<b>indeterminate</b> (lead < {dm.z:.2g} SE)"
        )
        rho = "" if dm.rho_source == "assumed" else f"<br>implied rho: {dm.rho[p]:.2f}"
        out.append(
            f"{head}<br>{call}<br>leader: {_esc(dm.models[dm.leader[p]])}"
            f"<br>runner-up: {_esc(dm.models[dm.runner_up[p]])}"
            f"<br>difference: {d:.2f} {unit} (SE {se:.2f})"
            f"<br>z = difference / SE = {ratio:.2f}{rho}"
        )
    return out


def dominance_figure(
    dm: DominanceMap, options: FigureOptions, marker: np.ndarray | None = None, height: int = 700
) -> go.Figure:
    """Return the SE-rule map: tiles coloured by winner, grey where indeterminate (METHODS 5)."""
    if len(dm.categories) == 2:
        return dominance_line_figure(dm, options, marker, height=min(height, 460))
    tiles = tile_paths(_resolution(dm.weights))
    shares = dm.shares()
    # grey fills the whole triangle underneath; winners' tiles are drawn over it
    grey = shares.get(None, 0.0)
    traces = [
        _ternary_trace(
            a=[1, 0, 0, 1],
            b=[0, 1, 0, 0],
            c=[0, 0, 1, 0],
            mode="lines",
            fill="toself",
            fillcolor=INDETERMINATE,
            line={"color": INDETERMINATE, "width": 0},
            name="indeterminate",
            hoverinfo="skip",
            showlegend=False,
        )
    ]
    legend = [_swatch(f"indeterminate ({grey:.0%})", INDETERMINATE, "indeterminate")]
    for model, share in shares.items():
        if model is None:
            continue
        idx = np.flatnonzero(dm.winner == dm.models.index(model))
        name = f"{_esc(model)} ({share:.0%})"
        traces.append(_tile_trace(tiles, idx, name, options.color(model)))
        legend.append(_swatch(name, options.color(model), name))
    traces += legend + dominance_hover_traces(dm, options)
    if marker is not None:
        traces.append(_marker_trace(marker))
    title = "<b>Winner</b> (share of map)"
    return _figure(traces, _ternary_layout(dm.categories, options.title, height, title))


def probability_hover_traces(pm: BestProbabilityMap, top: int = 3) -> list[dict]:
    """Hover: weights and the ``top`` models' P(best), one trace per ordered top list."""
    head = _weights_template(pm.categories)
    order = np.argsort(-pm.probability, axis=1, kind="stable")[:, :top]
    rows = np.arange(len(order))[:, None]
    values = np.column_stack([pm.probability[rows, order], pm.mc_error])
    traces = []
    for key in np.unique(order, axis=0):
        idx = np.flatnonzero(np.all(order == key, axis=1))
        lines = "<br>".join(
            f"P({_tmpl(pm.models[i])} best) = %{{customdata[{k + 1}]:.1%}}"
            for k, i in enumerate(key)
        )
        mc = f"MC error ±%{{customdata[{len(key) + 1}]:.1%}} ({pm.reps} replicates)"
        template = f"{head}<br>{lines}<br>{mc}"
        # shown as .1% but kept to 4 decimals: shares of draws (k / reps) often end in 5 there
        decimals = (4,) * values.shape[1]
        traces.append(_hover_trace(pm.weights, idx, values[idx], decimals, template))
    return traces


def _blend(color: str, alpha: float) -> str:
    """``color`` mixed with white: ``alpha`` = 1 is the colour itself."""
    h = color.lstrip("#")
    rgb = np.array([int(h[i : i + 2], 16) for i in (0, 2, 4)], dtype=float)
    mix = np.round(255 - alpha * (255 - rgb)).astype(int)
    return "#" + "".join(f"{v:02X}" for v in mix)


def probability_figure(
    pm: BestProbabilityMap,
    options: FigureOptions,
    marker: np.ndarray | None = None,
    height: int = 700,
) -> go.Figure:
    """Most likely best model per point, shaded by its probability (darker = surer)."""
    if len(pm.categories) == 2:
        return probability_line_figure(pm, options, marker, height=min(height, 460))
    tiles = tile_paths(_resolution(pm.weights))
    pbest = pm.best_probability
    traces = []
    counts = np.bincount(pm.best, minlength=len(pm.models))
    for i in np.argsort(-counts, kind="stable"):
        if counts[i] == 0:
            continue
        model = pm.models[i]
        for lo, hi, alpha in PROB_BANDS:
            idx = np.flatnonzero((pm.best == i) & (pbest >= lo) & (pbest < hi))
            if idx.size == 0:
                continue
            band = f"{lo:.0%}–{min(hi, 1):.0%}"
            tr = _tile_trace(
                tiles,
                idx,
                f"{_esc(model)}, first in {band} of replicates",
                _blend(options.color(model), alpha),
            )
            tr["legendgroup"] = model
            traces.append(tr)
        name = f"{_esc(model)} ({counts[i] / len(pm.best):.0%})"
        traces.append(_swatch(name, options.color(model), model))
    for lo, hi, alpha in reversed(PROB_BANDS):
        band = f"first in {lo:.0%}–{min(hi, 1):.0%} of replicates"
        traces.append(_swatch(band, _blend("#555555", alpha), "bands"))
    traces += probability_hover_traces(pm)
    if marker is not None:
        traces.append(_marker_trace(marker))
    title = "<b>Most likely best</b> (share of map)"
    return _figure(traces, _ternary_layout(pm.categories, options.title, height, title))


# ---- two categories: a line -------------------------------------------------------------------
#: Invisible markers on a line's grid points: plotly selects markers, never a bare line, so these
#: make a click on the line a selection (selected or not, they stay invisible).
LINE_POINTS: dict = {
    "marker": {"size": 8, "opacity": 0},
    "selected": {"marker": {"opacity": 0}},
    "unselected": {"marker": {"opacity": 0}},
}


def clicked_point(event: Mapping | None, n_categories: int) -> np.ndarray | None:
    """Map weights of the first selected point of a weight map's selection event, or ``None``.

    ``event`` is what ``st.plotly_chart(..., on_select=...)`` stores: ``{"selection": {"points":
    [...]}}``. On a ternary map (``n_categories`` = 3) a point carries ``a, b, c``, the three map
    weights; on a two-category line a point (a line's marker or a bar of the winner strip) carries
    ``x``, the weight of the first category, the second getting ``1 - x``.
    """
    points = ((event or {}).get("selection") or {}).get("points") or []
    keys = "abc" if n_categories == 3 else "x"
    for p in points:
        values = [p.get(k) for k in keys]
        if all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in values):
            return np.array(values if n_categories == 3 else [values[0], 1 - values[0]], float)
    return None


def _line_layout(options: FigureOptions, height: int, **layout: object) -> dict:
    """The layout of the two-category line figures, with ``layout``: one hover for all models at a
    weight, and a click selects the weight (:func:`clicked_point`)."""
    return {
        "height": height,
        "font": FONT,
        "plot_bgcolor": "white",
        "hovermode": "x unified",
        "clickmode": "event+select",
        "dragmode": "zoom",
        **layout,
        "title": {"text": options.title, "x": 0} if options.title else None,
        "margin": {"l": 10, "r": 20, "t": 50 if options.title else 20, "b": 50},
    }


def dominance_line_figure(
    dm: DominanceMap, options: FigureOptions, marker: np.ndarray | None = None, height: int = 460
) -> go.Figure:
    """Two categories: ``S_i(w)`` along the weight of the first, winner strip below."""
    x = dm.weights[:, 0]
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.82, 0.18], vertical_spacing=0.04
    )
    for i in sorted(set(dm.leader.tolist()) | set(dm.runner_up.tolist())):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=dm.scores[:, i] * options.scale,
                mode="lines+markers",
                line={"color": options.color(dm.models[i]), "width": 2},
                **LINE_POINTS,
                name=_esc(dm.models[i]),
                hovertemplate=f"{_tmpl(dm.models[i])}: %{{y:.2f}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    colors = [INDETERMINATE if k < 0 else options.color(dm.models[k]) for k in dm.winner]
    fig.add_trace(
        go.Bar(
            x=x,
            y=np.ones_like(x),
            marker={"color": colors, "line": {"width": 0}},
            width=1 / max(len(x) - 1, 1),
            text=dominance_hover(dm, options),
            hovertemplate="%{text}<extra></extra>",
            selected={"marker": {"opacity": 1}},
            unselected={"marker": {"opacity": 1}},
            name=HOVER_TRACE,
            showlegend=False,
        ),
        row=2,
        col=1,
    )
    if marker is not None:
        fig.add_vline(x=float(marker[0]), line={"color": "black", "width": 2, "dash": "dot"})
    fig.update_xaxes(hoverformat=".1~%")  # the hover's header: the weight, as a percent
    fig.update_yaxes(title_text=options.unit, row=1, col=1, gridcolor="#EEEEEE")
    fig.update_yaxes(showticklabels=False, row=2, col=1, title_text="winner")
    fig.update_xaxes(
        title_text=f"weight on {_esc(dm.categories[0])} (rest on {_esc(dm.categories[1])})",
        tickformat=".0%",
        row=2,
        col=1,
    )
    fig.update_layout(**_line_layout(options, height, bargap=0))
    return fig


def probability_line_figure(
    pm: BestProbabilityMap,
    options: FigureOptions,
    marker: np.ndarray | None = None,
    height: int = 460,
) -> go.Figure:
    """Two categories: ``P(best)`` of each model along the weight of the first.

    Points go in increasing ``x``: plotly sorts stacked traces by ``x`` and, given them in
    another order, reports a selected point with the ``x`` of its mirror image.
    """
    order = np.argsort(pm.weights[:, 0], kind="stable")
    x = pm.weights[order, 0]
    fig = go.Figure()
    for i in np.flatnonzero(pm.probability.max(axis=0) > 0.01):
        m = pm.models[i]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=pm.probability[order, i],
                mode="lines+markers",
                stackgroup="p",
                line={"color": options.color(m), "width": 0.5},
                **LINE_POINTS,
                fillcolor=options.color(m),
                name=_esc(m),
                hovertemplate=f"P({_tmpl(m)} best) = %{{y:.1%}}<extra></extra>",
            )
        )
    if marker is not None:
        fig.add_vline(x=float(marker[0]), line={"color": "black", "width": 2, "dash": "dot"})
    fig.update_layout(
        **_line_layout(
            options,
            height,
            yaxis={
                "title": "share of replicates ranked first",
                "tickformat": ".0%",
                "range": [0, 1],
            },
            xaxis={
                "title": f"weight on {_esc(pm.categories[0])} (rest on {_esc(pm.categories[1])})",
                "tickformat": ".0%",
                "hoverformat": ".1~%",
            },
        )
    )
    return fig
