"""Figures of simultaneous inference: rank confidence sets and simultaneous difference intervals
(pure ``(result, options) -> go.Figure``; METHODS 4b)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from benchuq.core.summaries.maxt import format_p
from benchuq.core.summaries.rank_sets import RankSets
from benchuq.presentation.figures.common import (
    ROW_HEIGHT,
    FigureOptions,
    _esc,
    _figure,
    _layout_spec,
    difference_figure,
)


def interval_words(correction: str, level: float) -> str:
    """How the intervals are named in verdicts, captions and axis titles."""
    pct = f"{100 * level:g}%"
    if correction == "maxt":
        return f"{pct} simultaneous interval"
    if correction in ("bonferroni", "holm"):
        return f"{pct} simultaneous interval, Bonferroni"
    return f"{pct} interval for this pair alone"


def _bar(model: str, low: float, high: float, color: str, width: int, name: str) -> dict:
    """A horizontal segment from rank ``low`` to ``high`` for one model."""
    return {
        "type": "scatter",
        "x": [low, high],
        "y": [model, model],
        "mode": "lines",
        "line": {"color": color, "width": width},
        "opacity": 0.45 if width > 4 else 1.0,
        "name": name,
        "hovertemplate": f"{model}<br>{name}: {low:g}–{high:g}<extra></extra>",
    }


def _short(text: str, limit: int) -> str:
    """``text`` cut at a word to ``limit`` characters (an axis title cannot wrap)."""
    if len(text) <= limit:
        return text
    return text[: text.rfind(" ", 0, limit - 1)].rstrip(";,") + " …"


def rank_set_figure(sets: RankSets, options: FigureOptions) -> go.Figure:
    """Rank confidence sets per model, best observed at the top: a thick bar for the set that
    holds for that model (marginal), a thin bar for the set that holds for all models together
    (simultaneous), a dot at the observed position. Rank 1 on the left."""
    sign = -1.0 if sets.higher_is_better else 1.0
    ranked = np.argsort(sign * sets.estimate, kind="stable")
    order = [i for i in ranked if np.isfinite(sets.estimate[i])]
    observed_pos = {i: k + 1 for k, i in enumerate(order)}
    pct = f"{100 * sets.level:g}%"
    data = []
    for i in order:
        name = _esc(sets.models[i])
        color = options.color(sets.models[i])
        lo_m, hi_m = float(sets.marginal_low[i]), float(sets.marginal_high[i])
        lo_s, hi_s = float(sets.simultaneous_low[i]), float(sets.simultaneous_high[i])
        data.append(_bar(name, lo_m - 0.3, hi_m + 0.3, color, 14, f"{pct} for this model"))
        data.append(_bar(name, lo_s - 0.3, hi_s + 0.3, color, 3, f"{pct} for all together"))
        data.append(
            {
                "type": "scatter",
                "x": [observed_pos[i]],
                "y": [name],
                "mode": "markers",
                "marker": {"color": color, "size": 9, "line": {"color": "white", "width": 1}},
                "hovertemplate": f"{name}<br>observed position {observed_pos[i]}<extra></extra>",
            }
        )
    n = len(order)
    layout = _layout_spec(options.title, 140 + ROW_HEIGHT * max(n, 2))
    names = [_esc(sets.models[i]) for i in order]
    layout["yaxis"].update(categoryorder="array", categoryarray=names[::-1])
    layout["xaxis"].update(
        range=[n + 0.7, 0.3],
        tick0=1,
        dtick=max(1, n // 8),
        title={
            "text": f"rank (1 = best) · thick: {pct} for each model, thin: {pct} for all "
            f"together, dot: observed<br>score: {_esc(_short(sets.label, 90))}"
        },
    )
    layout["margin"]["b"] = 80  # two lines of axis title (issue 30: it was cut)
    return _figure(data, layout)


def simultaneous_difference_figure(
    diffs: pd.DataFrame, correction: str, level: float, reps: int, options: FigureOptions
) -> go.Figure:
    """The forest of pairwise differences (``presentation.figures.common.difference_figure``) with
    the kind of interval in the axis title and each pair's p-value at the right."""
    fig = difference_figure(diffs, options)
    labels = [f"{_esc(a)} − {_esc(b)}" for a, b in zip(diffs["a"], diffs["b"], strict=True)]
    for label, p, below in zip(labels, diffs["p_value"], diffs["p_below_resolution"], strict=True):
        fig.add_annotation(
            x=1.0,
            xref="paper",
            xanchor="left",
            y=label,
            yref="y",
            text=format_p(float(p), bool(below), reps),
            showarrow=False,
            font={"size": 11},
        )
    fig.update_layout(
        xaxis_title_text=f"difference, {options.unit} ({interval_words(correction, level)})",
        margin={"r": 90},
    )
    return fig
