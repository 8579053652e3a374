"""Plotly figures of task-weight maps (METHODS 5): pure builders, no streamlit.

Three categories give a ternary map tiled by hexagons: every grid point of the simplex owns the
hexagon of weights closer to it than to any other grid point (the dual of the triangular grid),
so the tiles cover the triangle exactly at any size and resolution. Tiles are filled with the
winning model's colour (``dashboard.colors``) or grey where the lead is within ``z`` standard
errors. An invisible marker per grid point carries the hover text and is what a click selects
(``curveNumber`` = :data:`HOVER_TRACE` name, ``pointIndex`` = grid point). Two categories give
a line: ``S_i(w)`` along ``w`` with the winner strip underneath.

Corners: the first category is the top corner (plotly's ``a``), the second the bottom left
(``b``), the third the bottom right (``c``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.dominance import BestProbabilityMap, DominanceMap
from dashboard.colors import INDETERMINATE
from dashboard.figures import FONT, FigureOptions

HOVER_TRACE = "grid points"
MARKER_TRACE = "current weights"
#: Probability bands of the probability view: tiles are shaded by P(best) of the likeliest model.
PROB_BANDS: tuple[tuple[float, float, float], ...] = (
    (0.0, 0.5, 0.18),
    (0.5, 0.8, 0.4),
    (0.8, 0.95, 0.7),
    (0.95, 1.0001, 1.0),
)


def _esc(name: object) -> str:
    return html.escape(str(name), quote=False)


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


def hexagons(weights: np.ndarray) -> list[np.ndarray]:
    """For each grid point the corners of its tile, clipped to the triangle."""
    r = _resolution(weights)
    corners = weights[:, None, :] + hexagon_offsets()[None] / r
    inside = np.all(corners >= -1e-12, axis=(1, 2))
    return [c if ok else _clip(c) for c, ok in zip(corners, inside, strict=True)]


def _resolution(weights: np.ndarray) -> int:
    """``r`` of a full grid of ``(r + 1)(r + 2) / 2`` points."""
    r = (np.sqrt(1 + 8 * len(weights)) - 3) / 2
    if len(weights) < 3 or r != np.floor(r):
        raise ValueError(f"{len(weights)} weight vectors are not a full simplex grid.")
    return int(r)


def _tile_trace(
    tiles: list[np.ndarray], idx: np.ndarray, name: str, color: str
) -> go.Scatterternary:
    a, b, c = [], [], []
    for p in idx:
        t = tiles[p]
        a += [*t[:, 0], t[0, 0], None]
        b += [*t[:, 1], t[0, 1], None]
        c += [*t[:, 2], t[0, 2], None]
    return go.Scatterternary(
        a=a,
        b=b,
        c=c,
        mode="lines",
        fill="toself",
        fillcolor=color,
        line={"color": color, "width": 0.5},
        name=name,
        hoverinfo="skip",
        legendgroup=name,
    )


def _ternary_layout(
    fig: go.Figure, categories: Sequence[str], title: str, height: int, legend_title: str
) -> None:
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
    fig.update_layout(
        ternary={
            "sum": 1,
            "aaxis": {**axis, "title": {"text": f"<b>{_esc(categories[0])}</b>"}},
            "baxis": {**axis, "title": {"text": f"<b>{_esc(categories[1])}</b>"}},
            "caxis": {**axis, "title": {"text": f"<b>{_esc(categories[2])}</b>"}},
            "bgcolor": "white",
        },
        title={"text": title, "x": 0.0, "xanchor": "left"} if title else None,
        height=height,
        margin={"l": 95, "r": 20, "t": 70 if title else 45, "b": 45},
        font=FONT,
        legend={
            "orientation": "v",
            "yanchor": "top",
            "y": 1.0,
            "xanchor": "left",
            "x": 1.02,
            "title": {"text": legend_title},
            "itemclick": False,
            "itemdoubleclick": False,
        },
        hoverlabel={"align": "left"},
        dragmode=False,
        clickmode="event+select",
    )


def _weights_text(categories: Sequence[str], W: np.ndarray) -> list[str]:
    cats = [_esc(c) for c in categories]
    return ["<br>".join(f"{c}: {x:.1%}" for c, x in zip(cats, w, strict=True)) for w in W]


def _hover_trace(W: np.ndarray, text: list[str]) -> go.Scatterternary:
    return go.Scatterternary(
        a=W[:, 0],
        b=W[:, 1],
        c=W[:, 2],
        mode="markers",
        marker={"size": 6, "color": "rgba(0,0,0,0)", "opacity": 0},
        selected={"marker": {"opacity": 0}},
        unselected={"marker": {"opacity": 0}},
        text=text,
        hovertemplate="%{text}<extra></extra>",
        name=HOVER_TRACE,
        showlegend=False,
    )


def _marker_trace(marker: np.ndarray) -> go.Scatterternary:
    m = np.asarray(marker, dtype=float)
    return go.Scatterternary(
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
    """Hover text per grid point: weights, leader, runner-up, difference, SE, z and the call."""
    unit = "pp" if options.scale == 100 else ""
    wtext = _weights_text(dm.categories, dm.weights)
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
    dm: DominanceMap, options: FigureOptions, marker: np.ndarray | None = None, height: int = 620
) -> go.Figure:
    """The SE-rule map: tiles coloured by winner, grey where indeterminate (METHODS 5)."""
    if len(dm.categories) == 2:
        return dominance_line_figure(dm, options, marker, height=min(height, 460))
    tiles = hexagons(dm.weights)
    fig = go.Figure()
    shares = dm.shares()
    for model, share in shares.items():
        k = -1 if model is None else dm.models.index(model)
        idx = np.flatnonzero(dm.winner == k)
        label = f"indeterminate ({share:.0%})" if model is None else f"{_esc(model)} ({share:.0%})"
        color = INDETERMINATE if model is None else options.color(model)
        fig.add_trace(_tile_trace(tiles, idx, label, color))
    fig.add_trace(_hover_trace(dm.weights, dominance_hover(dm, options)))
    if marker is not None:
        fig.add_trace(_marker_trace(marker))
    _ternary_layout(fig, dm.categories, options.title, height, "<b>Winner</b> (share of map)")
    return fig


def probability_hover(pm: BestProbabilityMap, top: int = 3) -> list[str]:
    wtext = _weights_text(pm.categories, pm.weights)
    order = np.argsort(-pm.probability, axis=1)[:, :top]
    out = []
    for p, head in enumerate(wtext):
        rows = "<br>".join(
            f"P({_esc(pm.models[i])} best) = {pm.probability[p, i]:.1%}" for i in order[p]
        )
        out.append(f"{head}<br>{rows}<br>MC error ±{pm.mc_error[p]:.1%} ({pm.reps} draws)")
    return out


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
    height: int = 620,
) -> go.Figure:
    """Most likely best model per point, shaded by its probability (darker = surer)."""
    if len(pm.categories) == 2:
        return probability_line_figure(pm, options, marker, height=min(height, 460))
    tiles = hexagons(pm.weights)
    pbest = pm.best_probability
    fig = go.Figure()
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
                tiles, idx, f"{_esc(model)}, P(best) {band}", _blend(options.color(model), alpha)
            )
            tr.update(legendgroup=model, showlegend=False)
            fig.add_trace(tr)
        fig.add_trace(
            go.Scatterternary(
                a=[None],
                b=[None],
                c=[None],
                mode="markers",
                marker={"symbol": "square", "size": 12, "color": options.color(model)},
                name=f"{_esc(model)} ({counts[i] / len(pm.best):.0%})",
                legendgroup=model,
            )
        )
    for lo, hi, alpha in reversed(PROB_BANDS):
        fig.add_trace(
            go.Scatterternary(
                a=[None],
                b=[None],
                c=[None],
                mode="markers",
                marker={"symbol": "square", "size": 12, "color": _blend("#555555", alpha)},
                name=f"P(best) {lo:.0%}–{min(hi, 1):.0%}",
                legendgroup="bands",
            )
        )
    fig.add_trace(_hover_trace(pm.weights, probability_hover(pm)))
    if marker is not None:
        fig.add_trace(_marker_trace(marker))
    _ternary_layout(
        fig, pm.categories, options.title, height, "<b>Most likely best</b> (share of map)"
    )
    return fig


# ---- two categories: a line -------------------------------------------------------------------
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
                mode="lines",
                line={"color": options.color(dm.models[i]), "width": 2},
                name=_esc(dm.models[i]),
                hovertemplate=f"{_esc(dm.models[i])}: %{{y:.2f}}<extra></extra>",
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
            name=HOVER_TRACE,
            showlegend=False,
        ),
        row=2,
        col=1,
    )
    if marker is not None:
        fig.add_vline(x=float(marker[0]), line={"color": "black", "width": 2, "dash": "dot"})
    fig.update_yaxes(title_text=options.unit, row=1, col=1, gridcolor="#EEEEEE")
    fig.update_yaxes(showticklabels=False, row=2, col=1, title_text="winner")
    fig.update_xaxes(
        title_text=f"weight on {_esc(dm.categories[0])} (rest on {_esc(dm.categories[1])})",
        tickformat=".0%",
        row=2,
        col=1,
    )
    fig.update_layout(
        height=height,
        font=FONT,
        plot_bgcolor="white",
        hovermode="x unified",
        bargap=0,
        title={"text": options.title, "x": 0} if options.title else None,
        margin={"l": 10, "r": 20, "t": 50 if options.title else 20, "b": 50},
    )
    return fig


def probability_line_figure(
    pm: BestProbabilityMap,
    options: FigureOptions,
    marker: np.ndarray | None = None,
    height: int = 460,
) -> go.Figure:
    """Two categories: ``P(best)`` of each model along the weight of the first."""
    x = pm.weights[:, 0]
    fig = go.Figure()
    for i in np.flatnonzero(pm.probability.max(axis=0) > 0.01):
        m = pm.models[i]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=pm.probability[:, i],
                mode="lines",
                stackgroup="p",
                line={"color": options.color(m), "width": 0.5},
                fillcolor=options.color(m),
                name=_esc(m),
                hovertemplate=f"P({_esc(m)} best) = %{{y:.1%}}<extra></extra>",
            )
        )
    if marker is not None:
        fig.add_vline(x=float(marker[0]), line={"color": "black", "width": 2, "dash": "dot"})
    fig.update_layout(
        height=height,
        font=FONT,
        plot_bgcolor="white",
        hovermode="x unified",
        yaxis={"title": "P(best)", "tickformat": ".0%", "range": [0, 1]},
        xaxis={
            "title": f"weight on {_esc(pm.categories[0])} (rest on {_esc(pm.categories[1])})",
            "tickformat": ".0%",
        },
        title={"text": options.title, "x": 0} if options.title else None,
        margin={"l": 10, "r": 20, "t": 50 if options.title else 20, "b": 50},
    )
    return fig
