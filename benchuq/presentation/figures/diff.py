"""Two runs: the chart of candidate − base per task and overall, with intervals and the margin."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from benchuq.core.analyses.diff import DiffResult
from benchuq.presentation.figures.common import FigureOptions, with_subtitle
from benchuq.presentation.text import plotly_escape

VERDICT_COLORS = {
    "better": "#1a9850",
    "worse": "#d73027",
    "equivalent": "#4575b4",
    "non-inferior": "#74add1",
    "inconclusive": "#999999",
}


def difference_figure(result: DiffResult, options: FigureOptions) -> go.Figure:
    """Each task's and the overall difference with its interval (coloured by verdict), the zero
    line and the margin ``±M`` shaded; per-task intervals are simultaneous over the tasks. The
    subtitle names the data, the methods and the paired items (the chart stands alone)."""
    s = options.scale
    rows = result.rows
    names = [plotly_escape(r.task) for r in rows]
    fig = go.Figure()
    if result.margin > 0:
        fig.add_vrect(
            x0=-result.margin * s, x1=result.margin * s, fillcolor="#4575b4", opacity=0.12,
            line_width=0, annotation_text=f"margin ±{result.margin * s:g}",
            annotation_position="top right",
        )  # fmt: skip
    fig.add_vline(x=0, line_color="#444444", line_width=1)
    for verdict, color in VERDICT_COLORS.items():
        pick = [k for k, r in enumerate(rows) if r.verdict == verdict]
        if not pick:
            continue
        est = np.array([rows[k].difference for k in pick]) * s
        low = np.array([rows[k].low for k in pick]) * s
        high = np.array([rows[k].high for k in pick]) * s
        fig.add_trace(
            go.Scatter(
                x=est,
                y=[names[k] for k in pick],
                mode="markers",
                name=verdict,
                marker={"color": color, "size": 10},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": high - est,
                    "arrayminus": est - low,
                    "color": color,
                    "thickness": 2,
                },
                hovertemplate="%{y}: %{x:.2f} [%{customdata[0]:.2f}, %{customdata[1]:.2f}]"
                "<extra>" + verdict + "</extra>",
                customdata=np.stack([low, high], axis=1),
            )
        )
    ends = [x for r in rows for x in (r.low, r.high) if np.isfinite(x)]
    span = [min([*ends, -result.margin, 0.0]) * s, max([*ends, result.margin, 0.0]) * s]
    pad = 0.05 * (span[1] - span[0] or 1.0)
    fig.update_xaxes(range=[span[0] - pad, span[1] + pad])  # the margin band in view
    kind = "confidence sequences" if result.sequential else "intervals"
    sim = ", per task simultaneous" if len(result.tasks) > 1 else ""
    fig.update_layout(
        title=options.title
        or f"{plotly_escape(result.candidate)} − {plotly_escape(result.base)}: "
        f"{100 * result.level:g}% {kind}{sim}",
        xaxis_title=f"candidate − base ({options.unit})",
        yaxis={"categoryorder": "array", "categoryarray": names[::-1]},
        height=max(260, 60 + 40 * len(rows)),
        legend_title_text="verdict",
    )
    methods = " / ".join(dict.fromkeys(r.method for r in rows))
    paired = f"{result.overall.n_paired:,} paired items"
    return with_subtitle(fig, f"Data: {result.data} · {methods} · {paired}")
