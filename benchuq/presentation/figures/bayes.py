"""Plotly figures of the Bayesian model page (METHODS 6): pure builders, no streamlit.

- :func:`trace_figure`: trace plots of ``a_i`` and ``b_i``, one line per chain;
- :func:`rank_plot_figure`: rank plots (Vehtari et al. 2021): histograms of each chain's ranks in
  the pooled draws, flat when the chains agree;
- :func:`shrinkage_figure`: direct ``k / n`` vs posterior estimate per task, with intervals;
- :func:`interval_comparison_figure`: bootstrap, parameter and posterior-predictive intervals of
  every model side by side;
- :func:`best_probability_figure`: P(best) at the current weights as bars.

User strings (model and task names) are escaped for plotly's HTML-subset labels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from benchuq.core.methods.bayes.model import BayesFit
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.text import plotly_escape as _esc

FONT = {"family": "Source Sans Pro, Arial, sans-serif", "size": 13}
CHAIN_COLORS = ("#2E91E5", "#E15F99", "#1CA71C", "#B68100", "#750D86", "#00A08B", "#862A16")
METHOD_STYLE = {  # interval kind -> (colour, marker symbol)
    "bootstrap": ("#555555", "diamond"),
    "parameter": ("#2E91E5", "circle"),
    "predictive": ("#EB663B", "square"),
}
MAX_TRACE_POINTS = 600  # per chain; longer chains are thinned for display only


def _style(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title={"text": _esc(title), "x": 0.0, "xanchor": "left"} if title else None,
        height=height,
        margin={"l": 10, "r": 20, "t": 60 if title else 30, "b": 90},
        font=FONT,
        plot_bgcolor="white",
        legend={"orientation": "h", "yref": "container", "y": 0.0, "yanchor": "bottom"},
    )
    fig.update_xaxes(showgrid=True, gridcolor="#EEEEEE", showline=True, linecolor="#888888")
    fig.update_yaxes(showgrid=True, gridcolor="#EEEEEE", automargin=True)
    return fig


def _model_index(fit: BayesFit, model: str) -> int:
    if model not in fit.models:
        raise ValueError(f"model {model!r} is not in the fit")
    return fit.models.index(model)


def trace_figure(fit: BayesFit, model: str, options: FigureOptions) -> go.Figure:
    """Draws of ``a`` and ``b`` of ``model`` against iteration, one line per chain (log axis)."""
    i = _model_index(fit, model)
    step = max(1, fit.draws // MAX_TRACE_POINTS)
    x = np.arange(0, fit.draws, step)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, subplot_titles=("a", "b"))
    for row, values in enumerate((fit.a[..., i], fit.b[..., i]), start=1):
        for c in range(fit.chains):
            fig.add_trace(
                go.Scattergl(
                    x=x,
                    y=values[c, ::step],
                    mode="lines",
                    line={"width": 1, "color": CHAIN_COLORS[c % len(CHAIN_COLORS)]},
                    name=f"chain {c + 1}",
                    legendgroup=f"chain {c + 1}",
                    showlegend=row == 1,
                    hovertemplate=f"chain {c + 1}, draw %{{x}}: %{{y:.4g}}<extra></extra>",
                ),
                row=row,
                col=1,
            )
    fig.update_yaxes(type="log", dtick="D2")  # 1, 2, 5, 10: every digit crowded the panels
    fig.update_xaxes(title_text="sample (after warm-up)", row=2, col=1)
    return _style(fig, options.title or f"Trace of a and b: {model}", 480)


def rank_plot_figure(
    fit: BayesFit, model: str, options: FigureOptions, bins: int = 20
) -> go.Figure:
    """Plot the rank plots of ``a`` and ``b``: per chain, a histogram of its draws' ranks.

    Ranks are among all draws; the dashed line is the count expected when every chain samples the
    same distribution.
    """
    i = _model_index(fit, model)
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, subplot_titles=("a", "b"))
    total = fit.chains * fit.draws
    edges = np.linspace(0, total, bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    for col, values in enumerate((fit.a[..., i], fit.b[..., i]), start=1):
        ranks = np.argsort(np.argsort(values.ravel(), kind="stable")).reshape(values.shape)
        for c in range(fit.chains):
            counts, _ = np.histogram(ranks[c], bins=edges)
            fig.add_trace(
                go.Scatter(
                    x=centers,
                    y=counts,
                    mode="lines",
                    line={"shape": "hvh", "color": CHAIN_COLORS[c % len(CHAIN_COLORS)]},
                    name=f"chain {c + 1}",
                    legendgroup=f"chain {c + 1}",
                    showlegend=col == 1,
                    hovertemplate=f"chain {c + 1}: %{{y}} samples<extra></extra>",
                ),
                row=1,
                col=col,
            )
        fig.add_hline(y=fit.draws / bins, line={"dash": "dash", "color": "#888888"}, row=1, col=col)
        fig.update_xaxes(title_text="rank among all samples", row=1, col=col)
    fig.update_yaxes(title_text="samples per bin", row=1, col=1, rangemode="tozero")
    return _style(fig, options.title or f"Rank plots of a and b: {model}", 380)


def shrinkage_figure(table: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """Plot direct vs posterior estimates per task (rows, fewest items first).

    The direct estimate with its exact interval and the posterior estimate with its credible
    interval are joined by a line; the vertical line is the model's grand mean ``a / (a + b)``.
    ``table`` is :meth:`core.methods.bayes.BayesFit.shrinkage`.
    """
    s = options.scale
    t = table.sort_values("n", kind="stable").reset_index(drop=True)
    labels = [f"{_esc(task)} (n={n:,})" for task, n in zip(t["task"], t["n"], strict=True)]
    fig = go.Figure()
    for y, row in zip(labels, t.itertuples(index=False), strict=True):
        fig.add_trace(
            go.Scatter(
                x=[row.direct * s, row.posterior * s],
                y=[y, y],
                mode="lines",
                line={"color": "#BBBBBB", "width": 6},
                showlegend=False,
                hoverinfo="skip",
            )
        )
    for kind, color, symbol, name in (
        ("direct", "#555555", "diamond", "direct k/n (exact interval)"),
        ("posterior", "#2E91E5", "circle", "posterior mean (credible interval)"),
    ):
        est = t[kind].to_numpy() * s
        fig.add_trace(
            go.Scatter(
                x=est,
                y=labels,
                mode="markers",
                name=name,
                marker={"color": color, "symbol": symbol, "size": 9},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": t[f"{kind}_high"].to_numpy() * s - est,
                    "arrayminus": est - t[f"{kind}_low"].to_numpy() * s,
                    "color": color,
                    "thickness": 1.5,
                    "width": 4,
                },
                hovertemplate="%{y}<br>" + name + ": %{x:.2f}<extra></extra>",
            )
        )
    grand = float(t["grand_mean"].iloc[0]) * s
    fig.add_vline(
        x=grand,
        line={"dash": "dot", "color": "#1CA71C"},
        annotation_text=f"grand mean {grand:.2f}",
        annotation_position="top",
    )
    fig.update_xaxes(title_text=options.unit)
    fig.update_yaxes(autorange="reversed")
    return _style(fig, options.title, 120 + 28 * len(t))


def interval_comparison_figure(table: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """Intervals of every model by several methods, side by side (one row per model).

    ``table`` has columns ``model``, ``kind`` (keys of :data:`METHOD_STYLE`), ``label`` (legend
    text), ``estimate``, ``low``, ``high``; models are ordered by their first kind's estimate.
    """
    s = options.scale
    kinds = list(dict.fromkeys(table["kind"]))
    first = table[table["kind"] == kinds[0]].sort_values("estimate", ascending=False)
    order = list(first["model"])
    ypos = {m: k for k, m in enumerate(order)}
    offsets = np.linspace(-0.25, 0.25, len(kinds)) if len(kinds) > 1 else np.zeros(1)
    fig = go.Figure()
    for kind, off in zip(kinds, offsets, strict=True):
        part = table[table["kind"] == kind]
        color, symbol = METHOD_STYLE.get(kind, ("#777777", "circle"))
        est = part["estimate"].to_numpy() * s
        label = str(part["label"].iloc[0])
        fig.add_trace(
            go.Scatter(
                x=est.tolist(),
                y=[ypos[m] + off for m in part["model"]],
                mode="markers",
                name=_esc(label),
                marker={"color": color, "symbol": symbol, "size": 8},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": part["high"].to_numpy() * s - est,
                    "arrayminus": est - part["low"].to_numpy() * s,
                    "color": color,
                    "thickness": 2,
                    "width": 3,
                },
                customdata=[_esc(m) for m in part["model"]],
                hovertemplate="%{customdata}<br>" + _esc(label) + ": %{x:.2f}<extra></extra>",
            )
        )
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(len(order))),
        ticktext=[_esc(m) for m in order],
        autorange="reversed",
        showgrid=False,
    )
    fig.update_xaxes(title_text=options.unit)
    return _style(fig, options.title, 140 + 34 * len(order))


def best_probability_figure(
    pbest: np.ndarray, models: Sequence[str], options: FigureOptions
) -> go.Figure:
    """Horizontal bars of P(model is best) at the current weights, most probable first."""
    p = np.asarray(pbest, dtype=float)
    order = np.argsort(-np.nan_to_num(p, nan=-1.0), kind="stable")
    names = [str(models[i]) for i in order]
    fig = go.Figure(
        go.Bar(
            x=p[order],
            y=[_esc(m) for m in names],
            orientation="h",
            marker_color=[options.color(m) for m in names],
            text=[f"{v:.1%}" for v in p[order]],
            textposition="outside",
            hovertemplate="%{y}: P(best) = %{x:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(range=[0, 1.1], tickformat=".0%", title_text="posterior probability of best")
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(showlegend=False)
    return _style(fig, options.title, 120 + 26 * len(names))
