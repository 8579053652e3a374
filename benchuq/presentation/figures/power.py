"""Plan page figures (METHODS 10): pure ``(result, options) -> go.Figure`` builders.

Every figure carries a title and a subtitle naming the data set, level, multiplicity and power,
so an exported image stands alone. Differences are shown times ``options.scale`` (points for
proportions).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from benchuq.core.analyses.power import CORRECTIONS, PowerPlan, SamplingPlan
from benchuq.presentation.colors import PALETTE
from benchuq.presentation.figures.common import FigureOptions, _esc, _figure, _layout_spec


def _layout(title: str, subtitle: str, x_title: str, y_title: str, log_x: bool) -> dict:
    layout = _layout_spec(title, 440)
    layout["title"] = {
        "text": _esc(title),
        "subtitle": {
            "text": "<br>".join(_esc(line) for line in subtitle.splitlines()),
            "font": {"size": 11, "color": "#555555"},
        },
        "x": 0.0,
        "xanchor": "left",
    }
    layout["margin"]["t"] = 100
    layout["showlegend"] = True
    layout["legend"] = {"orientation": "h", "y": -0.2}
    layout["xaxis"].update(title={"text": x_title}, type="log" if log_x else "linear")
    layout["yaxis"].update(title={"text": y_title}, showgrid=True, gridcolor="#EEEEEE")
    return layout


def _amount(delta: float, options: FigureOptions) -> str:
    """``delta`` in display units with its unit ("1 point", "2.5 points")."""
    x = delta * options.scale
    return f"{x:g} {options.unit.removesuffix('s') if x == 1 else options.unit}"


def _x_title(plan: PowerPlan) -> str:
    return "items (all tasks)" if plan.design.n else "size (multiple of today's items)"


def _now_line(plan: PowerPlan) -> dict:
    x = plan.design.n or 1.0
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": "#888888", "dash": "dot", "width": 1},
    }


def _level_line(y: float, label: str) -> tuple[dict, dict]:
    shape = {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": y,
        "y1": y,
        "line": {"color": "#444444", "dash": "dash", "width": 1},
    }
    note = {
        "xref": "paper",
        "yref": "y",
        "x": 1,
        "y": y,
        "text": label,
        "showarrow": False,
        "xanchor": "right",
        "yanchor": "bottom",
        "font": {"size": 11, "color": "#444444"},
    }
    return shape, note


def _pair_traces(plan: PowerPlan, n: np.ndarray, y: np.ndarray, fmt: str) -> list[dict]:
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "x": list(map(float, n)),
            "y": list(map(float, y[k])),
            "name": f"{_esc(plan.a[k])} vs {_esc(plan.b[k])}",
            "line": {"color": PALETTE[k % len(PALETTE)], "width": 2},
            "hovertemplate": "%{x:,.0f} items: " + fmt + "<extra>%{fullData.name}</extra>",
        }
        for k in range(len(plan.a))
    ]


def power_figure(
    plan: PowerPlan, n: np.ndarray, delta: float | None, subtitle: str, options: FigureOptions
) -> go.Figure:
    """Power to detect ``delta`` (scores' unit; ``None``: each pair's own) against the number of
    items, one line per pair; the target power dashed, today's size dotted."""
    if delta is None:
        title = "Power to detect each pair's assumed difference"
    else:
        title = f"Power to detect a difference of {_amount(delta, options)}"
    layout = _layout(title, subtitle, _x_title(plan), "power (%)", True)
    layout["yaxis"]["range"] = [0, 102]
    shape, note = _level_line(100 * plan.power, f"target {100 * plan.power:g}%")
    layout["shapes"], layout["annotations"] = [shape, _now_line(plan)], [note]
    data = _pair_traces(plan, n, 100 * plan.power_at(n, delta=delta), "%{y:.0f}%")
    return _figure(data, layout)


def mde_figure(
    plan: PowerPlan, n: np.ndarray, delta: float | None, subtitle: str, options: FigureOptions
) -> go.Figure:
    """The minimum detectable difference against the number of items, one line per pair; the
    difference to detect dashed, today's size dotted."""
    title = f"Smallest difference detectable at {100 * plan.power:g}% power"
    layout = _layout(title, subtitle, _x_title(plan), f"difference ({options.unit})", True)
    layout["yaxis"]["type"] = "log"
    layout["shapes"], layout["annotations"] = [_now_line(plan)], []
    if delta:
        shape, note = _level_line(delta * options.scale, _amount(delta, options))
        layout["yaxis"]["type"] = "linear"
        layout["shapes"].append(shape)
        layout["annotations"].append(note)
    data = _pair_traces(plan, n, plan.mde_at(n) * options.scale, "%{y:.2f}")
    return _figure(data, layout)


def sampling_figure(
    sp: SamplingPlan, pair: str, subtitle: str, options: FigureOptions
) -> go.Figure:
    """MDE against answers per item at a fixed budget; the best split marked."""
    title = f"{pair}: answers per item at a budget of {sp.budget:,.0f} answers per model"
    layout = _layout(title, subtitle, "answers per item (K)", f"MDE ({options.unit})", False)
    y = sp.mde * options.scale
    b = sp.best
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": sp.k.tolist(),
            "y": y.tolist(),
            "customdata": sp.items.tolist(),
            "name": "MDE",
            "line": {"color": PALETTE[0], "width": 2},
            "hovertemplate": "K = %{x}, %{customdata:,} items: %{y:.2f}<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [int(sp.k[b])],
            "y": [float(y[b])],
            "name": f"best: {sp.items[b]:,} items x {sp.k[b]}",
            "marker": {"size": 13, "symbol": "star", "color": PALETTE[3]},
            "hoverinfo": "skip",
        },
    ]
    return _figure(data, layout)


def plan_subtitle(plan: PowerPlan) -> str:
    """Data set, source, level, multiplicity and power: what every exported chart states (two
    lines)."""
    d = plan.design
    fam = f"{CORRECTIONS[plan.correction]} over {plan.family} comparison(s)"
    return (
        f"{d.name} · score {d.group} · {d.source}\n{100 * plan.level:g}% family-wise, {fam} "
        f"(c = {plan.critical:.2f}) · {100 * plan.power:g}% power"
    )


def item_grid(plan: PowerPlan, *, points: int = 60) -> np.ndarray:
    """Item counts for the curves: from a quarter of today's size to past the largest need."""
    now = 1.0 if plan.design.n is None else float(plan.design.n)
    need = plan.n_required if plan.design.n else plan.factor_required
    top = max(4 * now, 1.5 * float(np.nanmax(need, initial=0.0)))
    return np.unique(np.geomspace(max(now / 4, 2.0), min(top, now * 1e4), points).round())
