"""Chart downloads: server-side PNG/SVG via kaleido (rendered on click) and interactive HTML.

kaleido 1.x drives the system chromium; one persistent server (``kaleido.start_sync_server``)
makes an image take about 0.1-0.4 s instead of 3-4 s. Images are produced only when the user
clicks (deferred downloads), so reruns stay fast.
"""

from __future__ import annotations

import threading
import warnings

import plotly.graph_objects as go
import streamlit as st

_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False)
def _kaleido_server() -> bool:
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    return True


def image_bytes(fig: go.Figure, fmt: str) -> bytes:
    """``fig`` as PNG or SVG bytes (white background, the figure's own size)."""
    _kaleido_server()
    with _LOCK, warnings.catch_warnings():
        # plotly passes browser options that a running kaleido server already has
        warnings.filterwarnings("ignore", message="The kopts argument is ignored")
        return fig.to_image(format=fmt, scale=2 if fmt == "png" else 1)


def html_bytes(fig: go.Figure) -> bytes:
    """A standalone interactive HTML file (plotly.js embedded: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True).encode()


def download_buttons(fig: go.Figure, stem: str, key: str) -> None:
    """A "Download chart" popover with PNG, SVG (rendered on click) and interactive HTML."""
    with st.popover("Download chart", icon=":material/download:"):
        for fmt, mime, label in (
            ("png", "image/png", "PNG image"),
            ("svg", "image/svg+xml", "SVG image"),
            ("html", "text/html", "Interactive HTML"),
        ):

            def make(fmt: str = fmt) -> bytes:
                return html_bytes(fig) if fmt == "html" else image_bytes(fig, fmt)

            st.download_button(
                label,
                data=make,
                file_name=f"{stem}.{fmt}",
                mime=mime,
                key=f"{key}_{fmt}",
                on_click="ignore",
                type="tertiary",
            )
