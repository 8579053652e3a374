"""Pure plotly figure builders: ``(result, options) -> go.Figure``, no streamlit.

Every builder takes a summary table or array computed by ``core.summaries`` plus a
:class:`FigureOptions` (colours, unit, scale) and returns a figure; they are tested without
streamlit. Scores are multiplied by ``options.scale`` for display (100 turns proportions into
percentage points).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.colors import INDETERMINATE

ROW_HEIGHT = 26  # pixels per model row in forest plots
FONT = {"family": "Source Sans Pro, Arial, sans-serif", "size": 13}


@dataclass(frozen=True)
class FigureOptions:
    """Display options shared by the builders.

    Attributes:
        colors: ``{model: colour}`` for every model of the data set (``dashboard.colors``).
        scale: factor applied to scores for display (100 for proportions, 1 otherwise).
        unit: axis label of a score, e.g. ``"accuracy (%)"``.
        title: figure title ("" for none).
    """

    colors: dict[str, str] = field(default_factory=dict)
    scale: float = 100.0
    unit: str = "score"
    title: str = ""

    def color(self, model: str) -> str:
        return self.colors.get(model, INDETERMINATE)


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left"} if title else None,
        height=height,
        margin={"l": 10, "r": 20, "t": 50 if title else 20, "b": 50},
        font=FONT,
        plot_bgcolor="white",
        showlegend=False,
    )
    fig.update_xaxes(
        showgrid=True, gridcolor="#EEEEEE", zeroline=False, showline=True, linecolor="#888888"
    )
    fig.update_yaxes(showgrid=False, showline=False, automargin=True)
    return fig


def _esc(text: object) -> str:
    """A user string for plotly text (plotly renders a subset of HTML tags in labels)."""
    return html.escape(str(text), quote=False)


def _x_range(low: np.ndarray, high: np.ndarray, right_room: float) -> list[float]:
    lo, hi = float(np.nanmin(low)), float(np.nanmax(high))
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    return [lo - 0.04 * span, hi + right_room * span]


def forest_figure(table: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """Forest plot of one group's leaderboard, best model at the top.

    ``table`` has columns ``model, estimate, low, high`` and a boolean ``tied`` (True where the
    model cannot be told apart from the leader; the leader is the first row after sorting by
    estimate). The leader's interval is shaded so overlap is visible; tied models get an open
    marker and the label "≈ leader" right of their interval.
    """
    t = table.sort_values("estimate", ascending=False, kind="stable").reset_index(drop=True)
    s = options.scale
    fig = go.Figure()
    if not len(t):
        return _layout(fig, options.title, 120)
    lead = t.iloc[0]
    fig.add_vrect(
        x0=lead["low"] * s,
        x1=lead["high"] * s,
        fillcolor=options.color(lead["model"]),
        opacity=0.12,
        line_width=0,
        layer="below",
    )
    tags = [
        "leader" if k == 0 else ("≈ leader" if bool(row.get("tied", False)) else "")
        for k, row in t.iterrows()
    ]
    for k, row in t.iterrows():
        est, low, high = row["estimate"] * s, row["low"] * s, row["high"] * s
        color = options.color(row["model"])
        fig.add_trace(
            go.Scatter(
                x=[est],
                y=[_esc(row["model"])],
                mode="markers",
                marker={
                    "color": color,
                    "size": 8,
                    "symbol": "circle-open" if tags[k] == "≈ leader" else "circle",
                    "line": {"width": 2, "color": color},
                },
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [high - est],
                    "arrayminus": [est - low],
                    "color": color,
                    "thickness": 2,
                    "width": 5,
                },
                name=_esc(row["model"]),
                hovertemplate=(
                    f"{_esc(row['model'])}<br>{est:.2f} [{low:.2f}, {high:.2f}]"
                    + (f"<br>{tags[k]}" if tags[k] else "")
                    + "<extra></extra>"
                ),
            )
        )
    tagged = [k for k, tag in enumerate(tags) if tag]
    fig.add_trace(
        go.Scatter(
            x=[t.loc[k, "high"] * s for k in tagged],
            y=[_esc(t.loc[k, "model"]) for k in tagged],
            text=[tags[k] for k in tagged],
            mode="text",
            textposition="middle right",
            textfont={"color": "#555555", "size": 11},
            hoverinfo="skip",
            name="tags",
        )
    )
    fig.update_yaxes(categoryorder="array", categoryarray=[_esc(m) for m in t["model"]][::-1])
    fig.update_xaxes(title_text=options.unit, range=_x_range(t["low"] * s, t["high"] * s, 0.22))
    return _layout(fig, options.title, 90 + ROW_HEIGHT * max(len(t), 2))


def difference_figure(diffs: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """Pairwise differences ``a - b`` with family-wise intervals; grey where 0 is inside.

    ``diffs`` has columns ``a, b, estimate, low, high`` (``core.summaries.pairwise_differences``).
    A pair whose interval excludes 0 takes the colour of the better model.
    """
    s = options.scale
    fig = go.Figure()
    labels = [f"{_esc(a)} − {_esc(b)}" for a, b in zip(diffs["a"], diffs["b"], strict=True)]
    for label, (_, row) in zip(labels, diffs.iterrows(), strict=True):
        est, low, high = row["estimate"] * s, row["low"] * s, row["high"] * s
        if low > 0:
            color = options.color(row["a"])
        elif high < 0:
            color = options.color(row["b"])
        else:
            color = INDETERMINATE
        fig.add_trace(
            go.Scatter(
                x=[est],
                y=[label],
                mode="markers",
                marker={"color": color, "size": 9},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [high - est],
                    "arrayminus": [est - low],
                    "color": color,
                    "thickness": 2,
                    "width": 4,
                },
                name=label,
                hovertemplate=f"{label}<br>{est:.2f} [{low:.2f}, {high:.2f}]<extra></extra>",
            )
        )
    fig.add_vline(x=0, line_color="#444444", line_dash="dash")
    fig.update_xaxes(
        range=_x_range(np.minimum(diffs["low"] * s, 0), np.maximum(diffs["high"] * s, 0), 0.04)
    )
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1])
    fig.update_xaxes(title_text=f"difference, {options.unit}")
    return _layout(fig, options.title, 90 + ROW_HEIGHT * max(len(labels), 2))


def win_heatmap(prob: np.ndarray, models: Sequence[str], options: FigureOptions) -> go.Figure:
    """Heatmap of ``prob[i, j]`` = P(row model beats column model) over the draws."""
    p = np.asarray(prob, dtype=float)
    models = [_esc(m) for m in models]
    text = [
        ["" if i == j else f"{p[i, j]:.2f}" for j in range(len(models))] for i in range(len(models))
    ]
    shown = p.copy()
    np.fill_diagonal(shown, np.nan)
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=models,
            y=models,
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale="RdBu",
            reversescale=False,
            colorbar={"title": {"text": "P(win)", "side": "top"}},
            hovertemplate="P(%{y} beats %{x}) = %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", title_text="row model")
    fig.update_xaxes(title_text="column model", showgrid=False, tickangle=-30)
    size = 140 + 44 * max(len(models), 3)
    return _layout(fig, options.title, min(size, 900))


RANK_METHOD_LABELS: dict[str, str] = {
    "mean": "Mean over tasks",
    "geometric_mean": "Geometric mean",
    "average_rank": "Average rank",
    "average_rank_noise": "Average rank, N(0,1) pp noise",
    "average_rank_bins": "Average rank, 1 pp bins",
}


def rank_aggregation_figure(ranks: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """One panel per rank aggregation (METHODS 4): mean rank and interval, 1 = best.

    ``ranks`` has columns ``model, method, mean_rank, low, high``. Models are ordered by their
    rank under the first method in every panel so rows line up across panels.
    """
    methods = list(dict.fromkeys(ranks["method"]))
    first = ranks[ranks["method"] == methods[0]].sort_values("mean_rank", kind="stable")
    order = list(first["model"])
    names = {m: _esc(m) for m in order}
    fig = make_subplots(
        rows=1,
        cols=len(methods),
        shared_yaxes=True,
        horizontal_spacing=0.015,
        subplot_titles=[RANK_METHOD_LABELS.get(m, m) for m in methods],
    )
    n = len(order)
    for c, method in enumerate(methods, start=1):
        sub = ranks[ranks["method"] == method].set_index("model")
        for model in order:
            row = sub.loc[model]
            est, low, high = float(row["mean_rank"]), float(row["low"]), float(row["high"])
            fig.add_trace(
                go.Scatter(
                    x=[est],
                    y=[names[model]],
                    mode="markers",
                    marker={"color": options.color(model), "size": 8},
                    error_x={
                        "type": "data",
                        "symmetric": False,
                        "array": [high - est],
                        "arrayminus": [est - low],
                        "color": options.color(model),
                        "thickness": 2,
                        "width": 3,
                    },
                    name=names[model],
                    hovertemplate=(
                        f"{names[model]}<br>{RANK_METHOD_LABELS.get(method, method)}"
                        f"<br>mean rank {est:.2f} [{low:g}, {high:g}]<extra></extra>"
                    ),
                ),
                row=1,
                col=c,
            )
        fig.update_xaxes(range=[n + 0.5, 0.5], tick0=1, dtick=max(1, n // 6), row=1, col=c)
    fig.update_yaxes(categoryorder="array", categoryarray=[names[m] for m in order][::-1])
    fig.update_annotations(font={"size": 12})
    _layout(fig, options.title, 110 + ROW_HEIGHT * max(n, 2))
    fig.update_layout(margin={"t": 60 if not options.title else 80})
    fig.add_annotation(
        text="rank (1 = best)",
        x=0.5,
        y=-0.02,
        xref="paper",
        yref="paper",
        yanchor="top",
        showarrow=False,
        yshift=-18,
    )
    return fig


def rank_probability_figure(
    prob: np.ndarray, models: Sequence[str], options: FigureOptions
) -> go.Figure:
    """Small multiples: for each model, bars of P(rank = r), r = 1..M (METHODS 4).

    Panels are ordered by expected rank (best first); each bar takes the model's colour.
    """
    p = np.asarray(prob, dtype=float)
    raw = [str(m) for m in models]
    models = [_esc(m) for m in raw]
    m = len(models)
    ranks = np.arange(1, m + 1)
    order = np.argsort(p @ ranks, kind="stable")
    cols = min(4, m)
    rows = int(np.ceil(m / cols))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        shared_xaxes=True,
        shared_yaxes=True,
        subplot_titles=[models[i] for i in order],
        vertical_spacing=min(0.3 / rows, 0.12),
        horizontal_spacing=0.03,
    )
    for k, i in enumerate(order):
        fig.add_trace(
            go.Bar(
                x=ranks,
                y=p[i],
                marker_color=options.color(raw[i]),
                name=models[i],
                hovertemplate=f"{models[i]}<br>P(rank = %{{x}}) = %{{y:.3f}}<extra></extra>",
            ),
            row=k // cols + 1,
            col=k % cols + 1,
        )
    fig.update_yaxes(range=[0, 1], tickformat=".0%", gridcolor="#EEEEEE")
    fig.update_xaxes(dtick=max(1, m // 8), showline=True, linecolor="#888888")
    fig.update_annotations(font={"size": 12})
    _layout(fig, options.title, 80 + 150 * rows)
    fig.update_layout(bargap=0.15)
    fig.add_annotation(
        text="rank (1 = best)",
        x=0.5,
        y=0,
        xref="paper",
        yref="paper",
        yanchor="top",
        showarrow=False,
        yshift=-28,
    )
    return fig
