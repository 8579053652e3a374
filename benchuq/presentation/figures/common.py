"""Pure plotly figure builders: ``(result, options) -> go.Figure``, no streamlit.

Every builder takes a summary table or array computed by ``core.summaries`` plus a
:class:`FigureOptions` (colours, unit, scale) and returns a figure; they are tested without
streamlit. Scores are multiplied by ``options.scale`` for display (100 turns proportions into
percentage points).
"""

from __future__ import annotations

import copy
import functools
import html
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from benchuq.core.data import LABEL_LIMIT, cut_label
from benchuq.core.draws import method_words
from benchuq.core.summaries import WEIGHTED
from benchuq.presentation.colors import INDETERMINATE
from benchuq.presentation.text import plotly_escape as _esc

ROW_HEIGHT = 26  # pixels per model row in forest plots
TITLE_CHARS = 50  # characters of a title line (18 px type on a half-width chart in the app)
TITLE_LINE = 23.4  # pixels a further title line takes (18 px type, 1.3 em)
FONT = {"family": "Source Sans Pro, Arial, sans-serif", "size": 13}
#: Arial's (Helvetica's) advance widths of the printable ASCII characters " " to "~", in 1/1000 em
_ARIAL = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)  # fmt: skip
#: pixels from a y tick label's far end to the figure's edge as plotly draws it in the app
#: (tick standoff and Streamlit's margin pad: 19 measured in chromium), with room to spare
TICK_PAD = 24
#: pixels more below an x-axis title in the app (Streamlit's chart theme sets its standoff to
#: 20 px; 66 px held one line of title where 50 were set): room given, nothing grows the margin
X_TITLE_ROOM = 20
MAX_LABEL_MARGIN = 320  # px: a wider preset margin could leave a narrow chart no plot
TICK_SIZE = 12  # px of the app's tick labels (Streamlit's chart theme; reports use FONT's 13)


def label_width(text: str, size: float = 13.0) -> float:
    """Pixels ``text`` (plotly-escaped, e.g. ``&lt;``) takes in ``size`` px type: Arial's
    widths and 10% more (fallback fonts such as DejaVu Sans are wider), any other character
    1 em (wide scripts)."""
    plain = html.unescape(text)
    em = sum(_ARIAL[ord(c) - 32] if 32 <= ord(c) < 127 else 1000 for c in plain)
    return 1.1 * em * size / 1000


def label_margin(labels: Sequence[str]) -> int:
    """A left margin that holds the widest of ``labels`` as y tick labels (at least 10 px, at
    most :data:`MAX_LABEL_MARGIN`: longer names are left to plotly's automargin, as before).

    Plotly's ``automargin`` (still on: a wider font is never cut) grows a margin that is too
    small, and growing it draws the whole chart a second time; a margin wide enough from the
    start draws it once (issue 41: half of a chart's time in the browser)."""
    widest = max((label_width(t, TICK_SIZE) for t in labels), default=0.0)
    return min(MAX_LABEL_MARGIN, max(10, math.ceil(widest + TICK_PAD)))


@dataclass(frozen=True)
class FigureOptions:
    """Display options shared by the builders.

    Attributes
    ----------
        colors: ``{model: colour}`` for every model of the data set (``presentation.colors``).
        scale: factor applied to scores for display (100 for proportions, 1 otherwise).
        unit: axis label of a score, e.g. ``"accuracy (%)"``.
        title: figure title ("" for none).
    """

    colors: dict[str, str] = field(default_factory=dict)
    scale: float = 100.0
    unit: str = "score"
    title: str = ""

    def color(self, model: str) -> str:
        """Return the colour of ``model`` (grey when it has none)."""
        return self.colors.get(model, INDETERMINATE)


def _layout_spec(title: str, height: int) -> dict:
    """Return the shared layout as a plain dict (building figures from dicts is much faster).

    A title longer than :data:`TITLE_CHARS` wraps (plotly never does; a half-width chart cut it),
    and each further line adds its height above the plot."""
    lines = _wrap(cut_label(title, 3 * LABEL_LIMIT), TITLE_CHARS)  # a name in it may be huge
    extra = math.ceil(TITLE_LINE * (len(lines) - 1))
    text = "<br>".join(_esc(line) for line in lines)
    return {
        "title": {"text": text, "x": 0.0, "xanchor": "left"} if title else None,
        "height": height + extra,
        "margin": {"l": 10, "r": 20, "t": (50 if title else 20) + extra, "b": 50},
        "font": FONT,
        "plot_bgcolor": "white",
        "showlegend": False,
        "xaxis": {
            "showgrid": True,
            "gridcolor": "#EEEEEE",
            "zeroline": False,
            "showline": True,
            "linecolor": "#888888",
        },
        "yaxis": {"showgrid": False, "showline": False, "automargin": True},
    }


def _hold_labels(
    layout: dict,
    labels: Sequence[str],
    *,
    bottom: int = 50,
    legend: int = 0,
    y_title: bool = False,
) -> dict:
    """``layout`` with left and bottom margins that hold the y tick ``labels``
    (:func:`label_margin`), a y-axis title, ``bottom`` pixels of x-axis title with the app's
    :data:`X_TITLE_ROOM` and ``legend`` pixels of legend below, from the start, so plotly draws
    the chart once (issue 41); the figure grows by the room added below, so the plot keeps its
    height."""
    layout["margin"].update(
        l=label_margin(labels) + (40 if y_title else 0), b=bottom + X_TITLE_ROOM + legend
    )
    layout["height"] += X_TITLE_ROOM + legend
    return layout


def _rows_layout(title: str, labels: Sequence[str]) -> dict:
    """:func:`_layout_spec` for a chart of one row per label (forest, gap, difference): the
    rows' height, with margins that hold the labels and the x-axis title (:func:`_hold_labels`)."""
    return _hold_labels(_layout_spec(title, 90 + ROW_HEIGHT * max(len(labels), 2)), labels)


def _figure(data: list[dict], layout: dict) -> go.Figure:
    """Build a figure from plain dicts without plotly's per-property validation.

    About 10x faster on the leaderboard's rerun path; the builders' output is checked by
    tests/presentation/test_figures.py.
    """
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    """Apply the shared layout to a figure made with ``make_subplots`` (all its axes)."""
    spec = _layout_spec(title, height)
    xaxis, yaxis = spec.pop("xaxis"), spec.pop("yaxis")
    fig.update_layout(**spec)
    fig.update_xaxes(**xaxis)
    fig.update_yaxes(**yaxis)
    return fig


def _merge(target: dict, update: dict) -> dict:
    """Merge ``update`` into ``target`` as plotly's ``update`` does: nested dicts merge, anything
    else replaces (copied, so shared specs such as :data:`FONT` are never changed)."""
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
    return target


_AXIS = {"x": re.compile(r"xaxis\d*"), "y": re.compile(r"yaxis\d*")}


def _update_axes(layout: dict, axis: str, update: dict) -> None:
    """``fig.update_xaxes(**update)`` (``axis="x"``) or ``update_yaxes`` on a layout dict."""
    for key, value in layout.items():
        if _AXIS[axis].fullmatch(key):
            _merge(value, update)


def _apply_layout(layout: dict, title: str, height: int) -> dict:
    """The shared layout (:func:`_layout_spec`) merged into a grid's layout, all its axes."""
    spec = _layout_spec(title, height)
    xaxis, yaxis = spec.pop("xaxis"), spec.pop("yaxis")
    spec["title"] = spec["title"] or {}  # as ``update_layout(title=None)`` leaves it
    _merge(layout, spec)
    _update_axes(layout, "x", xaxis)
    _update_axes(layout, "y", yaxis)
    return layout


@functools.lru_cache(maxsize=32)
def _grid(rows: int, cols: int, titled: tuple[bool, ...], **kw: Any) -> tuple[str, tuple]:
    """The layout (as JSON) and the ``(xaxis, yaxis)`` of each cell, row by row, of
    ``make_subplots(rows, cols, **kw)`` with a title over each cell where ``titled``."""
    titles = [f"title {k}" if t else "" for k, t in enumerate(titled)]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles or None, **kw)
    cells = []
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            sub = fig.get_subplot(r, c)
            cells.append(tuple(a.plotly_name.replace("axis", "") for a in (sub.xaxis, sub.yaxis)))
    return json.dumps(fig.layout.to_plotly_json()), tuple(cells)


def _subplots(
    rows: int, cols: int, titles: Sequence[str], **kw: Any
) -> tuple[dict, tuple[tuple[str, str], ...]]:
    """``make_subplots`` as a plain layout dict (titles filled in) and each cell's ``(xaxis,
    yaxis)`` for its traces, row by row: the grid is built once per shape, not per figure."""
    text, cells = _grid(rows, cols, tuple(bool(t) for t in titles), **kw)
    layout = json.loads(text)
    for annotation, title in zip(layout.get("annotations", []), filter(None, titles), strict=True):
        annotation["text"] = title
    return layout, cells


def _interval_trace(
    x: float,
    y: str,
    low: float,
    high: float,
    color: str,
    hover: str,
    symbol: str = "circle",
    size: int = 8,
) -> dict:
    """One point with an asymmetric horizontal error bar, as a plotly trace dict."""
    return {
        "type": "scatter",
        "x": [x],
        "y": [y],
        "mode": "markers",
        "name": y,
        "marker": {
            "color": color,
            "size": size,
            "symbol": symbol,
            "line": {"width": 2, "color": color},
        },
        "error_x": error_bar(x, low, high, color, width=5),
        "hovertemplate": hover + "<extra></extra>",
        "cliponaxis": False,  # a dot at 0% or 100% (the axis ends there) is drawn whole
    }


def error_bar(x: float, low: float, high: float, color: str, *, width: int = 4) -> dict:
    """The asymmetric horizontal error bar ``[low, high]`` of one point at ``x`` (``error_x``)."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [high - x],
        "arrayminus": [x - low],
        "color": color,
        "thickness": 2,
        "width": width,
    }


def interval_traces(
    x: Sequence[float],
    y: Sequence[str],
    low: Sequence[float],
    high: Sequence[float],
    colors: Sequence[str],
    hovers: Sequence[str],
    *,
    xaxis: str = "x",
    yaxis: str = "y",
    size: int = 8,
) -> tuple[list[dict], list[dict]]:
    """Points with horizontal intervals ``[low, high]``, each in its own colour, as two traces
    and one line shape per interval: ``(traces, shapes)``.

    Drawn as :func:`_interval_trace` draws one point (a 2 px line in the point's colour, 10 px
    caps, the dot over it, the same hover), but a trace per point made the browser's plotly
    set up and draw 80 traces on the Ranks page at each move of the rank level (issue 41;
    plotly's error bars take one colour per trace). The lines lie between the grid and the
    traces; caps and dots are not clipped at the axis ends.
    """
    low_, high_ = [float(v) for v in low], [float(v) for v in high]
    shapes = [
        {
            "type": "line", "xref": xaxis, "yref": yaxis, "x0": lo, "x1": hi, "y0": name,
            "y1": name, "line": {"color": color, "width": 2}, "layer": "between",
        }
        for lo, hi, name, color in zip(low_, high_, y, colors, strict=True)
    ]  # fmt: skip
    caps = {
        "type": "scatter", "x": low_ + high_, "y": [*y, *y], "mode": "markers", "name": "caps",
        "marker": {"symbol": "line-ns", "size": 10,
                   "line": {"width": 2, "color": [*colors, *colors]}},
        "hoverinfo": "skip", "cliponaxis": False, "xaxis": xaxis, "yaxis": yaxis,
    }  # fmt: skip
    dots = {
        "type": "scatter", "x": [float(v) for v in x], "y": list(y), "mode": "markers",
        "name": "points",
        "marker": {"color": list(colors), "size": size,
                   "line": {"width": 2, "color": list(colors)}},
        "hovertemplate": [h + "<extra></extra>" for h in hovers], "cliponaxis": False,
        "xaxis": xaxis, "yaxis": yaxis,
    }  # fmt: skip
    return [caps, dots], shapes


PLOT_PIXELS = 600  # a typical plot width: what "visible" means for an interval's bar


def marker_sizes(low: np.ndarray, high: np.ndarray, span: float, largest: int = 8) -> list[int]:
    """Marker sizes (pixels) that leave each interval visible at any scale: at most half the
    interval's width on a :data:`PLOT_PIXELS` wide axis of ``span``, between 4 and ``largest``
    (issue 30: a dot wider than its interval hides it)."""
    width = (np.asarray(high, float) - np.asarray(low, float)) / max(span, 1e-12) * PLOT_PIXELS
    return [int(v) for v in np.clip(np.nan_to_num(width / 2, nan=largest), 4, largest)]


def _x_range(
    low: np.ndarray, high: np.ndarray, right_room: float, bounds: tuple[float, float] | None = None
) -> list[float]:
    """Axis range around ``[min low, max high]`` with some room; never past ``bounds`` (the
    score's own range, #29: no 120% axis) when every end lies within them."""
    lo, hi = float(np.nanmin(low)), float(np.nanmax(high))
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    out = [lo - 0.04 * span, hi + right_room * span]
    if bounds is not None and bounds[0] <= lo and hi <= bounds[1]:
        out = [max(out[0], bounds[0]), min(out[1], bounds[1])]
    return out


def _score_bounds(scale: float) -> tuple[float, float]:
    """The range of a proportion shown times ``scale`` (0 to 100% or 0 to 1)."""
    return (0.0, scale)


def forest_figure(table: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """Forest plot of one group's leaderboard, best model at the top.

    ``table`` has columns ``model, estimate, low, high`` and a boolean ``tied`` (True where the
    model cannot be told apart from the leader), best first as ``core.summaries.leaderboard``
    orders it (by the score's ``higher_is_better``): the first row is the leader. The leader's
    interval is shaded so overlap is visible; tied models get an open marker and the label
    "≈ leader" right of their interval.
    """
    t = table.reset_index(drop=True)
    s = options.scale
    if not len(t):
        return _figure([], _layout_spec(options.title, 90 + X_TITLE_ROOM + 2 * ROW_HEIGHT))
    tags = [
        "leader" if k == 0 else ("≈ leader" if bool(tied) else "")
        for k, tied in enumerate(t["tied"] if "tied" in t else [False] * len(t))
    ]
    names = [_esc(m) for m in t["model"]]
    layout = _rows_layout(options.title, names)
    est, low, high = (t[c].to_numpy(dtype=float) * s for c in ("estimate", "low", "high"))
    x_range = _x_range(low, high, 0.24, _score_bounds(s))
    span = x_range[1] - x_range[0]
    sizes = marker_sizes(low, high, span)
    data = [
        _interval_trace(
            est[k],
            names[k],
            low[k],
            high[k],
            options.color(t["model"][k]),
            f"{names[k]}<br>{est[k]:.2f} [{low[k]:.2f}, {high[k]:.2f}]"
            + (f"<br>{tags[k]}" if tags[k] else ""),
            symbol="circle-open" if tags[k] == "≈ leader" else "circle",
            size=sizes[k],
        )
        for k in range(len(t))
    ]
    tagged = [k for k, tag in enumerate(tags) if tag]
    # plotly hides a point past the axis end even with cliponaxis off: a tag of an interval
    # that reaches the end sits at the end, a space before its text clearing the dot
    at = [min(high[k] + 0.015 * span, x_range[1]) for k in tagged]
    data.append(
        {
            "type": "scatter",
            "name": "tags",
            "mode": "text",
            "hoverinfo": "skip",
            "x": at,
            "y": [names[k] for k in tagged],
            "text": [
                tags[k] if x < x_range[1] else f"\u2002{tags[k]}"
                for k, x in zip(tagged, at, strict=True)
            ],
            "textposition": "middle right",
            "textfont": {"color": "#555555", "size": 11},
            "cliponaxis": False,
        }
    )
    layout["margin"]["r"] = 90  # the tags
    layout["shapes"] = [
        {
            "type": "rect",
            "xref": "x",
            "yref": "paper",
            "x0": low[0],
            "x1": high[0],
            "y0": 0,
            "y1": 1,
            "fillcolor": options.color(t["model"][0]),
            "opacity": 0.12,
            "line": {"width": 0},
            "layer": "below",
        }
    ]
    layout["yaxis"].update(categoryorder="array", categoryarray=names[::-1])
    layout["xaxis"].update(title={"text": options.unit}, range=x_range)
    return _figure(data, layout)


#: The dashed vertical line at a difference of 0 (difference and gap charts).
_ZERO_LINE = {
    "type": "line",
    "xref": "x",
    "yref": "paper",
    "x0": 0,
    "x1": 0,
    "y0": 0,
    "y1": 1,
    "line": {"color": "#444444", "dash": "dash"},
}


def difference_figure(diffs: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """Pairwise differences ``a - b`` with family-wise intervals; grey where 0 is inside.

    ``diffs`` has columns ``a, b, estimate, low, high`` (``core.summaries.pairwise_differences``).
    A pair whose interval excludes 0 takes the colour of the better model.
    """
    s = options.scale
    labels = [f"{_esc(a)} − {_esc(b)}" for a, b in zip(diffs["a"], diffs["b"], strict=True)]
    est, low, high = (diffs[c].to_numpy(dtype=float) * s for c in ("estimate", "low", "high"))
    data = []
    for k, label in enumerate(labels):
        if low[k] > 0:
            color = options.color(diffs["a"].iloc[k])
        elif high[k] < 0:
            color = options.color(diffs["b"].iloc[k])
        else:
            color = INDETERMINATE
        hover = f"{label}<br>{est[k]:.2f} [{low[k]:.2f}, {high[k]:.2f}]"
        data.append(_interval_trace(est[k], label, low[k], high[k], color, hover, size=9))
    layout = _rows_layout(options.title, labels)
    layout["shapes"] = [_ZERO_LINE]
    layout["yaxis"].update(categoryorder="array", categoryarray=labels[::-1])
    layout["xaxis"].update(
        title={"text": f"difference, {options.unit}"},
        range=_x_range(
            np.minimum(low, 0), np.maximum(high, 0), 0.04, (-options.scale, options.scale)
        ),
    )
    return _figure(data, layout)


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
            colorbar={"thickness": 12, "tickvals": [0, 0.5, 1], "ticktext": ["0", "½", "1"]},
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
    layout, cells = _subplots(
        1,
        len(methods),
        [RANK_METHOD_LABELS.get(m, m) for m in methods],
        shared_yaxes=True,
        horizontal_spacing=0.015,
    )
    n = len(order)
    traces: list[dict] = []
    shapes: list[dict] = []
    colors = [options.color(m) for m in order]
    for (xaxis, yaxis), method in zip(cells, methods, strict=True):
        sub = ranks[ranks["method"] == method].set_index("model").loc[order]
        label = RANK_METHOD_LABELS.get(method, method)
        est, low, high = (sub[c].to_numpy(dtype=float) for c in ("mean_rank", "low", "high"))
        hovers = [
            f"{names[m]}<br>{label}<br>mean rank {e:.2f} [{lo:g}, {hi:g}]"
            for m, e, lo, hi in zip(order, est, low, high, strict=True)
        ]
        more, lines = interval_traces(
            est, [names[m] for m in order], low, high, colors, hovers, xaxis=xaxis, yaxis=yaxis
        )
        traces += more
        shapes += lines
    layout["shapes"] = shapes
    _update_axes(layout, "x", {"range": [n + 0.5, 0.5], "tick0": 1, "dtick": max(1, n // 6)})
    _update_axes(
        layout, "y", {"categoryorder": "array", "categoryarray": [names[m] for m in order][::-1]}
    )
    for annotation in layout.get("annotations", []):
        _merge(annotation, {"font": {"size": 12}})
    _apply_layout(layout, options.title, 110 + ROW_HEIGHT * max(n, 2))
    _merge(
        layout,
        {"margin": {"t": 60 if not options.title else 80, "l": label_margin(list(names.values()))}},
    )
    layout.setdefault("annotations", []).append(
        {
            "text": "rank (1 = best)",
            "x": 0.5,
            "y": 0,
            "xref": "paper",
            "yref": "paper",
            "yanchor": "top",
            "showarrow": False,
            "yshift": -26,  # pixels, not a share of the plot: clear of the ticks at any height
        }
    )
    return _figure(traces, layout)


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
    layout, cells = _subplots(
        rows,
        cols,
        [models[i] for i in order],
        shared_xaxes=True,
        shared_yaxes=True,
        vertical_spacing=min(0.3 / rows, 0.12),
        horizontal_spacing=0.03,
    )
    traces = [
        {
            "type": "bar",
            "x": ranks,
            "y": p[i],
            "marker": {"color": options.color(raw[i])},
            "name": models[i],
            "hovertemplate": f"{models[i]}<br>P(rank = %{{x}}) = %{{y:.3f}}<extra></extra>",
            "xaxis": xaxis,
            "yaxis": yaxis,
        }
        for i, (xaxis, yaxis) in zip(order, cells, strict=False)
    ]
    _update_axes(layout, "y", {"range": [0, 1], "tickformat": ".0%", "gridcolor": "#EEEEEE"})
    _update_axes(layout, "x", {"dtick": max(1, m // 8), "showline": True, "linecolor": "#888888"})
    for annotation in layout.get("annotations", []):
        _merge(annotation, {"font": {"size": 12}})
    _apply_layout(layout, options.title, 80 + 150 * rows)
    _merge(layout, {"bargap": 0.15, "margin": {"l": label_margin(["100%"])}})  # the y ticks
    layout.setdefault("annotations", []).append(
        {
            "text": "rank (1 = best)",
            "x": 0.5,
            "y": 0,
            "xref": "paper",
            "yref": "paper",
            "yanchor": "top",
            "showarrow": False,
            "yshift": -28,
        }
    )
    return _figure(traces, layout)


def chart_subtitle(data: str, method: str, reps: int, seed: int | None, level: float) -> str:
    """The line under an exported chart's title: data set, method (in plain words), replicates,
    seed and level."""
    seeded = "" if seed is None else f", seed {seed}"
    pct = f"{round(100 * level, 1):g}%"
    return f"Data: {data} · {method_words(method)}, {reps} replicates{seeded} · intervals at {pct}"


def with_subtitle(fig: go.Figure, subtitle: str) -> go.Figure:
    """``fig`` with a grey subtitle under its title (e.g. data set, method and level), for charts
    that leave the app; an existing subtitle is kept."""
    title = fig.layout.title
    if title.subtitle.text:
        return fig
    out = go.Figure(fig)
    lines = _wrap(subtitle, SUBTITLE_CHARS)
    old = fig.layout.margin.t or 0
    # plotly puts the title's first baseline at the middle of the top margin, the rest below it
    below = (
        TITLE_LINE * ((title.text or "").count("<br>"))
        + SUBTITLE_GAP
        + SUBTITLE_LINE * (len(lines) - 1)
        + 7  # descent and a gap above the plot
    )
    top = max(70, old + 25 + 14 * (len(lines) - 1), math.ceil(2 * below))
    out.update_layout(
        title={
            "text": title.text or "",
            "x": 0.0,
            "xanchor": "left",
            "subtitle": {
                "text": "<br>".join(_esc(x) for x in lines),
                "font": {"size": 11, "color": "#555555"},
            },
        },
        margin={"t": top},
    )
    if fig.layout.height:  # the plot keeps its room: the title's grows the figure
        out.update_layout(height=fig.layout.height + top - old)
    return out


SUBTITLE_CHARS = 105  # characters of a subtitle line (11 px type on a 760 px report figure)
SUBTITLE_GAP = 22  # pixels from the title's last baseline to the subtitle's first (as rendered)
SUBTITLE_LINE = 14.3  # pixels a further subtitle line takes (11 px type, 1.3 em)


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken after its " · " separators
    (then at spaces), so a long data set name or method never runs off the figure."""
    lines: list[str] = []
    for part in text.split(" · "):
        piece = part if not lines else f"{lines[-1]} · {part}"
        if lines and len(piece) <= width:
            lines[-1] = piece
            continue
        if lines:
            lines[-1] += " ·"
        while len(part) > width and " " in part[:width]:
            cut = part.rfind(" ", 0, width)
            lines.append(part[:cut])
            part = part[cut + 1 :]
        lines.append(part)
    return lines


def gap_figure(gaps: pd.DataFrame, options: FigureOptions) -> go.Figure:
    """How far behind the leader each model is, with intervals, best at the top (the contested
    top of the leaderboard, ``core.findings.gaps_from_leader``): a dashed line at 0 (the leader);
    a model whose interval reaches 0 cannot be told apart from the leader (open marker)."""
    s = options.scale
    names = [_esc(m) for m in gaps["model"]]
    est, low, high = (gaps[c].to_numpy(dtype=float) * s for c in ("estimate", "low", "high"))
    tied = gaps["tied"].to_numpy(dtype=bool)
    data = [
        _interval_trace(
            est[k],
            names[k],
            low[k],
            high[k],
            options.color(gaps["model"].iloc[k]),
            f"{names[k]}<br>{est[k]:+.2f} [{low[k]:+.2f}, {high[k]:+.2f}]",
            symbol="circle-open" if tied[k] and k else "circle",
            size=9,
        )
        for k in range(len(gaps))
    ]
    layout = _rows_layout(options.title, names)
    layout["shapes"] = [_ZERO_LINE]
    layout["yaxis"].update(categoryorder="array", categoryarray=names[::-1])
    unit = options.unit.replace("(%)", "(points)").replace("%", "points")
    layout["xaxis"].update(
        title={"text": f"difference from the leader, {unit}"},
        range=_x_range(
            np.minimum(low, 0), np.maximum(high, 0), 0.04, (-options.scale, options.scale)
        ),
    )
    return _figure(data, layout)


def group_label(group: str, overall: str = "mean over all tasks") -> str:
    """Return the display name of a score group (overall, weighted or a category); ``overall``
    names the aggregate "overall" stands for (``core.summaries.headline.overall_label``)."""
    if group == WEIGHTED:
        return "Weighted score (by category weights)"
    if group == "overall":
        return f"Overall ({overall})"
    return group
