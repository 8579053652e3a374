"""Pure plotly builders for the EPP page (METHODS 8): ``(result, options) -> figure``.

Model names go into plotly text with ``<``, ``>`` and ``&`` escaped, so a name is never read as
plotly's pseudo-HTML.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from scipy.stats import rankdata

from benchuq.core.analyses.epp import EPPResult
from benchuq.presentation.figures.common import (
    ROW_HEIGHT,
    FigureOptions,
    _layout,
    error_bar,
    win_heatmap,
)
from benchuq.presentation.text import plotly_escape as _plain


def epp_ranks(result: EPPResult, mean_score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(M,)`` rank by mean score and by EPP (1 = best; ties share the best rank)."""
    by_mean = rankdata(-np.asarray(mean_score, float), method="min")
    by_epp = rankdata(-np.round(result.estimate, 10), method="min")
    return by_mean.astype(int), by_epp.astype(int)


def epp_forest_figure(result: EPPResult, options: FigureOptions) -> go.Figure:
    """EPP with intervals, best at the top; separated models drawn with open diamonds."""
    order = result.order
    sep = set(result.separated)
    names = [_plain(result.models[i]) for i in order]
    fig = go.Figure()
    for i, name in zip(order, names, strict=True):
        model = result.models[i]
        est, low, high = result.estimate[i], result.low[i], result.high[i]
        flagged = model in sep
        fig.add_trace(
            go.Scatter(
                x=[est],
                y=[name],
                mode="markers",
                marker={
                    "color": options.color(model),
                    "size": 10 if flagged else 9,
                    "symbol": "diamond-open" if flagged else "circle",
                    "line": {"width": 2, "color": options.color(model)},
                },
                error_x=error_bar(est, low, high, options.color(model)),
                name=name,
                hovertemplate=(
                    f"{name}<br>EPP {est:.2f} [{low:.2f}, {high:.2f}]"
                    f"<br>P(beats average) {result.beats_average[i]:.2f}"
                    + ("<br>separated: bounded by a ridge" if flagged else "")
                    + "<extra></extra>"
                ),
            )
        )
    fig.add_vline(x=0.0, line_dash="dot", line_color="#888888")
    fig.update_yaxes(categoryorder="array", categoryarray=names[::-1])
    fig.update_xaxes(
        title_text=f"EPP (logit units; {100 * result.level:g}% interval, {result.method})"
    )
    return _layout(fig, options.title, 90 + ROW_HEIGHT * max(len(names), 2))


def rank_slope_figure(
    result: EPPResult, mean_score: np.ndarray, options: FigureOptions
) -> go.Figure:
    """Slope chart: order by mean score (left) vs order by EPP (right), best at the top.

    Ties in EPP are broken by mean score (and vice versa), so only real disagreements cross.
    Models placed differently by the two orders are drawn in their colour with thick lines; the
    others are thin and grey, so the eye goes to where the orders disagree. Hover shows the
    tie-aware ranks of :func:`epp_ranks`.
    """
    mean = np.asarray(mean_score, float)
    epp_key = np.round(result.estimate, 10)
    left = np.empty(len(mean), int)
    right = np.empty(len(mean), int)
    left[np.lexsort((-epp_key, -mean))] = np.arange(1, len(mean) + 1)
    right[np.lexsort((-mean, -epp_key))] = np.arange(1, len(mean) + 1)
    by_mean, by_epp = epp_ranks(result, mean)
    M = len(result.models)
    fig = go.Figure()
    for i in range(M):
        name = _plain(result.models[i])
        moved = left[i] != right[i]
        color = options.color(result.models[i]) if moved else "#BBBBBB"
        fig.add_trace(
            go.Scatter(
                x=[0, 1],
                y=[left[i], right[i]],
                mode="lines+markers+text",
                line={"color": color, "width": 3 if moved else 1.5},
                marker={"color": color, "size": 8},
                text=[f"{name} ", f" {name}"],
                textposition=["middle left", "middle right"],
                textfont={"color": "#222222" if moved else "#888888", "size": 11},
                name=name,
                hovertemplate=(
                    f"{name}<br>rank by mean score {by_mean[i]}<br>rank by EPP {by_epp[i]}"
                    "<extra></extra>"
                ),
            )
        )
    fig.update_xaxes(
        tickvals=[0, 1],
        ticktext=["order by mean score", "order by EPP"],
        range=[-1.1, 2.1],
        showgrid=False,
        side="top",
    )
    fig.update_yaxes(showticklabels=False, range=[M + 0.5, 0.5])
    top = 100 if options.title else 50  # the title and the orders' names above the plot
    fig = _layout(fig, options.title, top + 70 + ROW_HEIGHT * max(M, 2))
    fig.update_xaxes(showline=False)
    fig.update_layout(margin={"t": top})
    return fig


def epp_heatmap(result: EPPResult, options: FigureOptions) -> go.Figure:
    """Fitted ``P(row beats column)``, models in EPP order (best first)."""
    order = result.order
    prob = result.win_probability[np.ix_(order, order)]
    return win_heatmap(prob, [_plain(result.models[i]) for i in order], options)


def fit_figure(result: EPPResult, options: FigureOptions) -> go.Figure:
    """Predicted vs empirical win probability per pair, with the diagonal (METHODS 8).

    Each pair appears once, oriented from the higher-EPP model; bars are +-2 binomial standard
    errors of the empirical share at the predicted probability, so points whose bar misses the
    diagonal misfit; marker area grows with the number of shared rounds.
    """
    rank = np.empty(len(result.models), int)
    rank[result.order] = np.arange(len(result.models))
    i, j = np.nonzero((result.matches > 0) & (rank[:, None] < rank[None, :]))
    pred = result.win_probability[i, j]
    emp = result.wins[i, j] / result.matches[i, j]
    n = result.matches[i, j]
    bar = 2 * np.sqrt(pred * (1 - pred) / n)
    labels = [
        f"{_plain(result.models[a])} vs {_plain(result.models[b])}<br>"
        f"predicted {p:.2f}, observed {e:.2f} ({w:g} of {k:g})"
        for a, b, p, e, w, k in zip(i, j, pred, emp, result.wins[i, j], n, strict=True)
    ]
    size = 6 + 10 * np.sqrt(n / max(n.max(), 1.0))
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            line={"color": "#888888", "dash": "dash"},
            hoverinfo="skip",
            name="diagonal",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=pred,
            y=emp,
            mode="markers",
            marker={"size": size, "color": "#2E91E5", "opacity": 0.6},
            error_y={"type": "data", "array": bar, "color": "#9EC9F0", "thickness": 1},
            text=labels,
            hovertemplate="%{text}<extra></extra>",
            name="pairs",
        )
    )
    fig.update_xaxes(title_text="predicted P(higher-EPP model wins)", range=[-0.02, 1.02])
    fig.update_yaxes(title_text="observed win share", range=[-0.05, 1.05], showgrid=True)
    return _layout(fig, options.title, 480)
