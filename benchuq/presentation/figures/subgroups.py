"""Pure plotly builders for the Subgroups page (METHODS 7): ``(result, options)``.

Unit, model and subgroup names go into plotly text with ``<``, ``>`` and ``&`` escaped, so a name
is never read as plotly's pseudo-HTML. Scores are multiplied by ``options.scale``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from benchuq.core.analyses.subgroups.estimates import SubgroupResult
from benchuq.core.analyses.subgroups.lab import LabResult
from benchuq.presentation.figures.common import FONT, FigureOptions, _figure, _layout_spec
from benchuq.presentation.text import plotly_escape as _plain

DIRECT_COLOR = "#7F7F7F"
EB_COLOR = "#1F4E9A"
SR_COLOR = "#D95F02"
SHRINK_SCALE = "Viridis"


def unit_rows(result: SubgroupResult, model: str | None = None) -> pd.DataFrame:
    """Return the rows of one model (all rows when ``model`` is None), largest subgroup first.

    Size is ``n``, or the smallest standard error when ``n`` is unknown.
    """
    rows = result.rows if model is None else result.rows[result.rows["model"] == model]
    key = rows["n"].fillna(0) if rows["n"].notna().any() else -rows["se"]
    return rows.assign(_size=key.to_numpy()).sort_values("_size", ascending=False, kind="stable")


def eb_vs_direct_figure(
    result: SubgroupResult, options: FigureOptions, model: str | None = None
) -> go.Figure:
    """Plot direct vs EB estimates per unit (one model's subgroups), sorted by size.

    The direct estimate with its interval (grey) and the EB estimate with its robust interval,
    coloured by the shrinkage weight ``w``.
    """
    rows = unit_rows(result, model)
    s = options.scale
    k = len(rows)
    pos = np.arange(k)[::-1].astype(float)  # the largest subgroup on top
    labels = [_plain(x) for x in (rows["subgroup"] if model is not None else rows["unit"])]
    n_text = [f"n = {n:g}" if np.isfinite(n) else "n unknown" for n in rows["n"]]

    def hover(est: str, lo: str, hi: str, what: str) -> list[str]:
        return [
            f"{_plain(r['unit'])}<br>{what}: {s * r[est]:.2f} [{s * r[lo]:.2f}, "
            f"{s * r[hi]:.2f}]<br>{nt}<br>w = {r['w']:.2f}"
            for nt, (_, r) in zip(n_text, rows.iterrows(), strict=True)
        ]

    has_eb = rows["low"].notna().to_numpy()
    data = [
        {
            "type": "scatter",
            "name": "direct",
            "x": (s * rows["direct"]).tolist(),
            "y": (pos + 0.18).tolist(),
            "mode": "markers",
            "marker": {"color": DIRECT_COLOR, "size": 7, "symbol": "circle-open"},
            "error_x": {
                "type": "data",
                "symmetric": False,
                "array": (s * (rows["direct_high"] - rows["direct"])).tolist(),
                "arrayminus": (s * (rows["direct"] - rows["direct_low"])).tolist(),
                "color": DIRECT_COLOR,
                "thickness": 1.2,
                "width": 0,
            },
            "hovertext": hover("direct", "direct_low", "direct_high", "direct"),
            "hoverinfo": "text",
        },
        {
            "type": "scatter",
            "name": "empirical Bayes",
            "x": (s * rows["eb"]).tolist(),
            "y": (pos - 0.18).tolist(),
            "mode": "markers",
            "marker": {
                "color": rows["w"].tolist(),
                "colorscale": SHRINK_SCALE,
                "cmin": 0.0,
                "cmax": 1.0,
                "size": 9,
                "line": {"color": "#333333", "width": 0.5},
                "colorbar": {"title": {"text": "weight on<br>direct (w)"}, "thickness": 12},
            },
            "error_x": {
                "type": "data",
                "symmetric": False,
                "array": np.where(has_eb, s * (rows["high"] - rows["eb"]), 0.0).tolist(),
                "arrayminus": np.where(has_eb, s * (rows["eb"] - rows["low"]), 0.0).tolist(),
                "color": EB_COLOR,
                "thickness": 1.8,
                "width": 0,
            },
            "hovertext": hover("eb", "low", "high", "EB"),
            "hoverinfo": "text",
        },
    ]
    layout = _layout_spec(options.title, max(260, 30 * k + 90))
    layout["showlegend"] = True
    layout["legend"] = {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0.0}
    layout["xaxis"]["title"] = {"text": options.unit}
    layout["yaxis"].update(
        {"tickmode": "array", "tickvals": pos.tolist(), "ticktext": labels, "range": [-0.7, k]}
    )
    return _figure(data, layout)


def shrinkage_figure(result: SubgroupResult, options: FigureOptions) -> go.Figure:
    """Plot the shrinkage weight ``w`` against subgroup size ``n`` (log axis), one point per unit.

    Points are coloured by model; with binary scores, the curve ``w = A / (A + p(1-p)/n)`` at the
    mean p.
    """
    rows = result.rows
    known_n = bool(rows["n"].notna().all())
    x = rows["n"] if known_n else rows["se"]
    data: list[dict] = []
    for model, part in rows.groupby("model", sort=False):
        xs = part["n"] if known_n else part["se"]
        data.append(
            {
                "type": "scatter",
                "name": _plain(model) or "units",
                "x": xs.tolist(),
                "y": part["w"].tolist(),
                "mode": "markers",
                "marker": {"color": options.color(str(model)), "size": 7, "opacity": 0.8},
                "hovertext": [
                    f"{_plain(u)}<br>w = {w:.2f}"
                    for u, w in zip(part["unit"], part["w"], strict=True)
                ],
                "hoverinfo": "text",
            }
        )
    if known_n and result.mu2 > 0 and np.isfinite(result.mu2):
        p = float(np.clip(rows["direct"].mean(), 0.01, 0.99))
        grid = np.geomspace(max(float(x.min()), 1.0), float(x.max()), 60)
        data.append(
            {
                "type": "scatter",
                "name": "A / (A + p(1-p)/n)",
                "x": grid.tolist(),
                "y": (result.mu2 / (result.mu2 + p * (1 - p) / grid)).tolist(),
                "mode": "lines",
                "line": {"color": "#444444", "dash": "dot", "width": 1.5},
                "hoverinfo": "skip",
            }
        )
    layout = _layout_spec(options.title, 380)
    layout["xaxis"].update(
        {"type": "log", "title": {"text": "items in the subgroup (n)" if known_n else "se"}}
    )
    layout["yaxis"].update({"title": {"text": "weight on direct (w)"}, "range": [-0.02, 1.02]})
    layout["yaxis"]["showgrid"] = True
    layout["yaxis"]["gridcolor"] = "#EEEEEE"
    return _figure(data, layout)


def fit_figure(result: SubgroupResult, options: FigureOptions) -> go.Figure:
    """Plot the regression's fit: direct estimates against the (cross-fitted) prediction f.

    With the diagonal; points far from it are units the features do not explain.
    """
    rows = result.rows
    s = options.scale
    lo = float(min(rows["f"].min(), rows["direct"].min())) * s
    hi = float(max(rows["f"].max(), rows["direct"].max())) * s
    data = [
        {
            "type": "scatter",
            "name": "diagonal",
            "x": [lo, hi],
            "y": [lo, hi],
            "mode": "lines",
            "line": {"color": "#999999", "dash": "dash", "width": 1},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "name": "units",
            "x": (s * rows["f"]).tolist(),
            "y": (s * rows["direct"]).tolist(),
            "mode": "markers",
            "marker": {
                "color": [options.color(str(m)) for m in rows["model"]],
                "size": 6,
                "opacity": 0.75,
            },
            "hovertext": [
                f"{_plain(u)}<br>f = {s * f:.2f}, direct = {s * d:.2f}"
                for u, f, d in zip(rows["unit"], rows["f"], rows["direct"], strict=True)
            ],
            "hoverinfo": "text",
        },
    ]
    layout = _layout_spec(options.title, 380)
    layout["xaxis"]["title"] = {"text": f"regression prediction f ({options.unit})"}
    layout["yaxis"].update({"title": {"text": f"direct estimate ({options.unit})"}})
    return _figure(data, layout)


def lab_figure(lab: LabResult, options: FigureOptions) -> go.Figure:
    """MSE ratios EB/DT and SR/DT per subgroup (below 1 = better than the direct estimate)."""
    per = lab.per_subgroup.sort_values("ratio_eb", kind="stable")
    names = [_plain(g) for g in per["subgroup"]]
    data = [
        {
            "type": "scatter",
            "name": name,
            "x": names,
            "y": per[col].tolist(),
            "mode": "markers",
            "marker": {"color": color, "size": 8, "symbol": symbol},
            "hovertemplate": "%{x}: %{y:.2f}<extra>" + name + "</extra>",
        }
        for name, col, color, symbol in (
            ("EB / DT", "ratio_eb", EB_COLOR, "circle"),
            ("SR / DT", "ratio_sr", SR_COLOR, "diamond"),
        )
    ]
    layout = _layout_spec(options.title, 380)
    layout["showlegend"] = True
    layout["font"] = FONT
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "y0": 1,
            "y1": 1,
            "line": {"color": "#444444", "dash": "dash", "width": 1},
        }
    ]
    layout["xaxis"].update({"showticklabels": len(names) <= 60, "tickangle": -45})
    layout["yaxis"].update(
        {"title": {"text": "MSE ratio (vs direct)"}, "showgrid": True, "gridcolor": "#EEEEEE"}
    )
    return _figure(data, layout)
