"""Pure plotly builders for the Arena page (METHODS 8b): ``(result, options) -> figure``.

Model names go into plotly text escaped (``presentation.text.plotly_escape``).
"""

from __future__ import annotations

import plotly.graph_objects as go

from benchuq.core.analyses.arena import ArenaResult
from benchuq.presentation.figures.common import (
    ROW_HEIGHT,
    FigureOptions,
    _layout,
    error_bar,
    win_heatmap,
)
from benchuq.presentation.text import plotly_escape as _plain

__all__ = ["arena_forest_figure", "arena_heatmap"]


def arena_forest_figure(result: ArenaResult, options: FigureOptions) -> go.Figure:
    """Ratings with intervals, best at the top; with style control, the ratings without it as
    open circles."""
    order = result.order
    names = [_plain(result.models[i]) for i in order]
    pct = f"{100 * result.level:g}%"
    fig = go.Figure()
    plain = result.uncontrolled
    for i, name in zip(order, names, strict=True):
        model = result.models[i]
        est, low, high = result.rating[i], result.low[i], result.high[i]
        fig.add_trace(
            go.Scatter(
                x=[est],
                y=[name],
                mode="markers",
                marker={"color": options.color(model), "size": 9},
                error_x=error_bar(est, low, high, options.color(model)),
                name=name,
                showlegend=False,
                hovertemplate=(
                    f"{name}<br>rating {est:.0f} [{low:.0f}, {high:.0f}] ({pct})"
                    f"<br>rank {int(result.rank_ub[i])}, rank set "
                    f"{int(result.rank_low[i])}–{int(result.rank_high[i])}<extra></extra>"
                ),
            )
        )
        if plain is not None:
            j = plain.models.index(model)
            fig.add_trace(
                go.Scatter(
                    x=[plain.rating[j]],
                    y=[name],
                    mode="markers",
                    marker={"color": options.color(model), "size": 9, "symbol": "circle-open"},
                    showlegend=False,
                    hovertemplate=f"{name}<br>without style control {plain.rating[j]:.0f}"
                    "<extra></extra>",
                )
            )
    fig.add_vline(x=result.initial, line={"color": "#999", "dash": "dot", "width": 1})
    fig.update_yaxes(autorange="reversed", type="category")
    anchor = f"{_plain(result.anchor)} = 1000" if result.anchor else "mean = 1000"
    fig.update_xaxes(title_text=f"rating (Elo scale, {anchor})")
    return _layout(fig, options.title, 120 + ROW_HEIGHT * len(order))


def arena_heatmap(result: ArenaResult, options: FigureOptions) -> go.Figure:
    """Expected score of the row model against the column model (a tie counts half)."""
    o = result.order
    return win_heatmap(result.win_probability[o][:, o], [result.models[i] for i in o], options)
