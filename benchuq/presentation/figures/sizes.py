"""Figure payload sizes: the bytes a browser receives for a figure (issue 30)."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio


def figure_bytes(fig: go.Figure) -> int:
    """Length of the figure's JSON as Streamlit sends it (``plotly.io.to_json``, unvalidated)."""
    return len(pio.to_json(fig, validate=False))
