"""Pure plotly builders for the Judge page (METHODS 15): ``(result, options) -> figure``.

Model names go into plotly text escaped (``presentation.text.plotly_escape``).
"""

from __future__ import annotations

import plotly.graph_objects as go

from benchuq.core.analyses.judge import OVERALL, JudgeResult
from benchuq.presentation.figures.common import (
    ROW_HEIGHT,
    FigureOptions,
    _figure,
    _hold_labels,
    _layout_spec,
)
from benchuq.presentation.text import plotly_escape as _plain

__all__ = [
    "METHOD_STYLE",
    "judge_agreement_figure",
    "judge_estimates_figure",
    "labels_curve_figure",
]

#: pixels of bottom margin a horizontal legend below the plot takes in the app
LEGEND_ROOM = 20
#: how each estimate is drawn: label, colour, vertical offset within a model's row
METHOD_STYLE: dict[str, tuple[str, str, float]] = {
    "judge": ("judge alone (uncorrected)", "#d62728", -0.24),
    "classical": ("human labels alone", "#7f7f7f", -0.08),
    "rogan-gladen": ("Rogan-Gladen", "#9467bd", 0.08),
    "ppi++": ("PPI++", "#1f77b4", 0.24),
}


def _row_names(result: JudgeResult) -> list[str]:
    many = len(result.tasks) > 1
    return [
        "overall" if c.model == OVERALL else (f"{c.model} · {c.task}" if many else c.model)
        for c in result.cells
    ]


def judge_estimates_figure(result: JudgeResult, options: FigureOptions) -> go.Figure:
    """Per model (and overall): the judge's own mean, the labels' mean and the corrected
    estimates, each with its interval, side by side."""
    names = _row_names(result)
    s = options.scale
    pct = f"{100 * result.level:g}%"
    data = []
    for method, (label, color, dy) in METHOD_STYLE.items():
        xs, ys, lo, hi, hover = [], [], [], [], []
        for k, c in enumerate(result.cells):
            e = c.estimates.get(method)
            if e is None:
                continue
            xs.append(s * e.estimate)
            ys.append(k + dy)
            lo.append(s * (e.estimate - e.low))
            hi.append(s * (e.high - e.estimate))
            hover.append(
                f"{_plain(names[k])}<br>{label}: {s * e.estimate:.1f} "
                f"[{s * e.low:.1f}, {s * e.high:.1f}] ({pct})"
            )
        data.append(
            {
                "type": "scatter", "x": xs, "y": ys, "mode": "markers", "name": label,
                "marker": {"color": color, "size": 8},
                "error_x": {"type": "data", "symmetric": False, "array": hi, "arrayminus": lo,
                            "color": color, "thickness": 1.5, "width": 0},
                "hovertext": hover, "hoverinfo": "text",
            }
        )  # fmt: skip
    layout = _layout_spec(options.title, 160 + round(1.6 * ROW_HEIGHT * len(names)))
    layout["yaxis"].update(
        tickvals=list(range(len(names))),
        ticktext=[_plain(n) for n in names],
        autorange="reversed",
    )
    layout["xaxis"]["title"] = {"text": options.unit}
    layout.update(showlegend=True, legend={"orientation": "h", "y": -0.12})
    return _figure(data, _hold_labels(layout, [_plain(n) for n in names], legend=LEGEND_ROOM))


def judge_agreement_figure(result: JudgeResult, options: FigureOptions) -> go.Figure:
    """Cohen's kappa (or Krippendorff's alpha for graded scores) per model with its interval."""
    table = result.agreement_table()
    names = _row_names(result)
    use_kappa = table["kappa"].notna().any()
    key = "kappa" if use_kappa else "alpha"
    trace = {
        "type": "scatter", "x": table[key].to_numpy(), "y": names, "mode": "markers",
        "marker": {"color": "#1f77b4", "size": 9},
        "error_x": {
            "type": "data", "symmetric": False,
            "array": (table[f"{key}_high"] - table[key]).tolist(),
            "arrayminus": (table[key] - table[f"{key}_low"]).tolist(), "width": 0,
        },
        "hovertext": [
            f"{_plain(n)}<br>{key} {v:.2f}, agreement {a:.1%} on {int(m)} labels"
            for n, v, a, m in zip(names, table[key], table["agreement"], table["n"], strict=True)
        ],
        "hoverinfo": "text", "showlegend": False,
    }  # fmt: skip
    layout = _layout_spec(options.title, 120 + ROW_HEIGHT * len(names))
    layout["shapes"] = [
        {"type": "line", "x0": 0, "x1": 0, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain",
         "line": {"color": "#999", "dash": "dot", "width": 1}}
    ]  # fmt: skip
    layout["yaxis"].update(autorange="reversed", type="category")
    label = "Cohen's kappa" if use_kappa else "Krippendorff's alpha (interval)"
    layout["xaxis"]["title"] = {"text": f"{label} (0 = chance, 1 = the people's labels)"}
    return _figure([trace], _hold_labels(layout, names))


def labels_curve_figure(
    result: JudgeResult, options: FigureOptions, *, model: str = OVERALL, task: str = OVERALL
) -> go.Figure:
    """The interval's half-width against the number of human labels, with PPI++ and with labels
    alone; the labels now and the target half-width marked."""
    curve = result.curve(model, task)
    cell = result.cell(model, task)
    s = options.scale
    data: list[dict] = [
        {
            "type": "scatter", "x": curve["n"].to_numpy(), "y": (s * curve[col]).to_numpy(),
            "mode": "lines", "name": label, "line": {"color": color},
            "hovertemplate": f"%{{x}} labels: ± %{{y:.2f}} ({label})<extra></extra>",
        }
        for col, label, color in (
            ("ppi++", "PPI++ (judge + labels)", "#1f77b4"),
            ("classical", "labels alone", "#7f7f7f"),
        )
    ]  # fmt: skip
    now = cell.planning.n_labelled  # a trace, not a shape: shapes on log axes misplace
    top = s * float(curve[["ppi++", "classical"]].to_numpy().max())
    data.append(
        {
            "type": "scatter", "x": [now, now], "y": [0, top], "mode": "lines+text",
            "text": ["", f"{now:,} labels now"], "textposition": "top right",
            "line": {"color": "#999", "dash": "dot", "width": 1}, "showlegend": False,
            "hoverinfo": "skip",
        }
    )  # fmt: skip
    target = s * result.target
    layout = _layout_spec(options.title, 400)
    layout["shapes"] = [
        {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": target, "y1": target,
         "yref": "y", "line": {"color": "#2ca02c", "dash": "dash", "width": 1}}
    ]  # fmt: skip
    layout["annotations"] = [
        {"showarrow": False, "text": "target", "x": 1, "xanchor": "right", "xref": "x domain",
         "y": target, "yanchor": "bottom", "yref": "y"}
    ]  # fmt: skip
    layout["xaxis"].update(type="log", title={"text": "human labels"})
    layout["yaxis"].update(title={"text": f"interval half-width ({options.unit})"})
    layout["yaxis"]["rangemode"] = "tozero"
    layout.update(showlegend=True, legend={"orientation": "h", "y": -0.25})
    return _figure(data, _hold_labels(layout, [f"{top:.0f}"], legend=2 * LEGEND_ROOM, y_title=True))
