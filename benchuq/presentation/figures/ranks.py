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
    _hold_labels,
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


def _bars(
    names: list[str], low: list[float], high: list[float], colors: list[str], width: int, what: str
) -> tuple[list[dict], list[float], list[str], list[str]]:
    """Horizontal segments from rank ``low`` to ``high``, one per model: line shapes (one trace
    per model made the browser set up 48 traces at each move of the rank level, issue 41), and
    the ends' points and hover texts for one invisible hover trace (a line hovers at its ends)."""
    shapes = [
        {
            "type": "line", "xref": "x", "yref": "y", "x0": lo, "x1": hi, "y0": name, "y1": name,
            "line": {"color": color, "width": width}, "opacity": 0.45 if width > 4 else 1.0,
            "layer": "between",
        }
        for name, lo, hi, color in zip(names, low, high, colors, strict=True)
    ]  # fmt: skip
    hovers = [
        f"{name}<br>{what}: {lo:g}–{hi:g}<extra></extra>"
        for name, lo, hi in zip(names, low, high, strict=True)
    ]
    return shapes, [*low, *high], [*names, *names], [*hovers, *hovers]


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
    names = [_esc(sets.models[i]) for i in order]
    colors = [options.color(sets.models[i]) for i in order]
    shapes, xs, ys, hovers = [], [], [], []
    for low, high, width, what in (
        (sets.marginal_low, sets.marginal_high, 14, f"{pct} for this model"),
        (sets.simultaneous_low, sets.simultaneous_high, 3, f"{pct} for all together"),
    ):
        lo = [float(low[i]) - 0.3 for i in order]
        hi = [float(high[i]) + 0.3 for i in order]
        more = _bars(names, lo, hi, colors, width, what)
        shapes += more[0]
        xs += more[1]
        ys += more[2]
        hovers += more[3]
    observed = [observed_pos[i] for i in order]
    data = [
        {  # the segments' ends: hover only (plotly hovers a line at its points)
            "type": "scatter", "x": xs, "y": ys, "mode": "markers", "name": "rank sets",
            "marker": {"size": 8, "opacity": 0, "color": colors * 4}, "hovertemplate": hovers,
        },
        {
            "type": "scatter", "x": observed, "y": names, "mode": "markers",
            "name": "observed position",
            "marker": {"color": colors, "size": 9, "line": {"color": "white", "width": 1}},
            "hovertemplate": [
                f"{name}<br>observed position {k}<extra></extra>"
                for name, k in zip(names, observed, strict=True)
            ],
        },
    ]  # fmt: skip
    n = len(order)
    layout = _layout_spec(options.title, 140 + ROW_HEIGHT * max(n, 2))
    layout = _hold_labels(layout, names, bottom=80)  # two lines of x-axis title (issue 30)
    layout["shapes"] = shapes
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
