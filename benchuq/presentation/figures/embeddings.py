"""Pure plotly builders for the Embeddings page (METHODS 9): scores, confusion, tree.

Model, cluster and feature names are user data: they go into plotly text with ``<``, ``>`` and
``&`` escaped, so a name is never read as HTML.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from benchuq.core.analyses.embeddings.scores import ConsistencyResult, EmbeddingScore
from benchuq.core.analyses.embeddings.tree import EmbeddingTree
from benchuq.presentation.figures.common import FigureOptions, _layout_spec
from benchuq.presentation.text import plotly_escape as _esc

METRICS: dict[str, str] = {
    "alp": "ALP (mean log posterior, nats; 0 = perfect)",
    "accuracy": "cluster accuracy",
}


def score_figure(
    result: ConsistencyResult, metric: str, options: FigureOptions, *, line: bool = False
) -> go.Figure:
    """Plot ALP or accuracy per model with interval error bars.

    Bars, or a line over the models in their given order (e.g. layers 1..L). A dashed line marks
    the prior-only level.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {tuple(METRICS)}, not {metric!r}")
    est = np.array([getattr(s, metric).estimate for s in result.scores])
    low = np.array([getattr(s, metric).low for s in result.scores])
    high = np.array([getattr(s, metric).high for s in result.scores])
    names = [_esc(m) for m in result.models]
    err = {"type": "data", "array": high - est, "arrayminus": est - low, "visible": True}
    hover = [
        f"{n}<br>{metric} {e:.3f} [{lo:.3f}, {hi:.3f}]"
        for n, e, lo, hi in zip(names, est, low, high, strict=True)
    ]
    if line:
        trace = go.Scatter(
            x=names,
            y=est,
            mode="lines+markers",
            error_y=err,
            marker={"color": "#2E91E5", "size": 9},
            hovertext=hover,
            hoverinfo="text",
            name=metric,
        )
    else:
        trace = go.Bar(
            x=names,
            y=est,
            error_y=err,
            marker={"color": [options.color(m) for m in result.models]},
            hovertext=hover,
            hoverinfo="text",
            name=metric,
        )
    fig = go.Figure(trace, layout=_layout_spec(options.title, 380))
    sizes = result.cluster_sizes / result.cluster_sizes.sum()
    chance = float(np.sum(sizes * np.log(sizes))) if metric == "alp" else float(sizes.max())
    fig.add_hline(
        y=chance,
        line={"dash": "dash", "color": "grey"},
        annotation_text="prior<br>only" if metric == "alp" else "largest<br>cluster",
        annotation_position="right",
        annotation_font={"color": "grey"},
    )
    fig.update_layout(yaxis_title=METRICS[metric], showlegend=False, margin_r=80)
    if metric == "accuracy":
        fig.update_yaxes(range=[0, 1.02])
    return fig


def confusion_heatmap(
    score: EmbeddingScore, clusters: tuple[str, ...], options: FigureOptions
) -> go.Figure:
    """Mean posterior ``P(column cluster | x)`` over the entities of each row's cluster."""
    names = [_esc(c) for c in clusters]
    z = score.confusion
    text = [[f"{v:.2f}" for v in row] for row in z]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=names,
            y=names,
            zmin=0,
            zmax=1,
            colorscale="Blues",
            text=text,
            texttemplate="%{text}" if len(clusters) <= 12 else None,
            hovertemplate="true %{y}<br>posterior of %{x}: %{z:.3f}<extra></extra>",
            colorbar={"title": "P"},
        ),
        layout=_layout_spec(options.title, max(320, 40 * len(clusters) + 160)),
    )
    fig.update_layout(xaxis_title="cluster (posterior)", yaxis_title="true cluster")
    fig.update_yaxes(autorange="reversed")
    return fig


def tree_figure(tree: EmbeddingTree, options: FigureOptions) -> go.Figure:
    """Return the EmbeddingTree as an icicle chart: each box is a node, sized by its entities."""
    ids, parents, labels, values, hover = [], [], [], [], []
    stack: list[tuple[int, str]] = []
    for k, node in enumerate(tree.nodes):
        while stack and stack[-1][0] >= node.depth:
            stack.pop()
        ids.append(f"n{k}")
        parents.append(stack[-1][1] if stack else "")
        labels.append(_esc(node.condition))
        values.append(node.size)
        detail = (
            f"split on {_esc(node.split)} (gain {node.gain:.3f} nats/entity)"
            if node.split
            else "leaf (cluster)"
        )
        hover.append(f"{_esc(node.condition)}<br>{node.size} entities<br>{detail}")
        stack.append((node.depth, f"n{k}"))
    fig = go.Figure(
        go.Icicle(
            ids=ids,
            parents=parents,
            labels=labels,
            values=values,
            branchvalues="total",
            hovertext=hover,
            hoverinfo="text",
            textinfo="label+value",
            tiling={"orientation": "v"},
        ),
        layout=_layout_spec(options.title, 120 + 90 * (max(n.depth for n in tree.nodes) + 1)),
    )
    return fig
