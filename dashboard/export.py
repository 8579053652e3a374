"""Downloads: charts as server-side PNG/SVG via kaleido (rendered on click) and interactive HTML.

kaleido 1.x drives the system chromium; one persistent browser (``presentation.chromium.
ChartImages``, every wait bounded) makes an image take about 0.1-0.4 s instead of 3-4 s. Images
are produced only when the user clicks (deferred downloads), so reruns stay fast. Without
chromium the PNG, SVG and PDF entries are disabled and say what to install (issue 38); the
interactive HTML and the HTML report need no browser. Every download button of the app comes from
here: :func:`download_buttons` (a chart), :func:`download_menu` (any files, e.g. the static
task-weight maps), :func:`download_csv` (a table) and :func:`download_eee` (the data as Every
Eval Ever files with the app's intervals).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, fields

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.dashboard import runtime_temp
from benchuq.presentation import chromium
from benchuq.presentation.figures.common import chart_subtitle as chart_subtitle_text
from benchuq.presentation.figures.common import with_subtitle
from benchuq.presentation.text import csv_bytes, file_stem, md_escape


@st.cache_resource(show_spinner=False)
def _chart_images() -> chromium.ChartImages:
    import kaleido

    # kaleido's page and chromium's profile go to this process's own folder; folders of crashed
    # servers are removed here (dashboard/runtime_temp.py). mathjax=False: the page loads no
    # script from a CDN (no outbound request from the server); plotly.js comes from the
    # installed plotly package.
    folder = runtime_temp.process_dir("kaleido")
    page = folder / "index.html"
    page.write_text(kaleido.PageGenerator(mathjax=False).generate_index(), encoding="utf-8")
    return chromium.ChartImages(tmp_dir=str(folder), page=str(page))


def image_bytes(fig: go.Figure, fmt: str) -> bytes:
    """``fig`` as PNG or SVG bytes (white background, the figure's own size); without chromium,
    or when it does not finish in time, a one-line ``presentation.chromium.ChromiumError``."""
    chromium.require(f"A {fmt.upper()} image")
    return _chart_images().image(fig, fmt, scale=2 if fmt == "png" else 1)


def needs_chromium(what: str) -> str | None:
    """Why ``what`` cannot be made here (chromium missing: what to install), or None."""
    return None if chromium.find() else chromium.missing_message(what)


def pdf_download(column: object, html: Callable[[], bytes], file_name: str, key: str) -> None:
    """The "Download report (PDF)" button in ``column``: ``html()`` printed by chromium; without
    chromium it is disabled and says what to install."""
    why = needs_chromium("The PDF report")
    column.download_button(  # type: ignore[attr-defined]
        "Download report (PDF)",
        b"" if why else (lambda: chromium.to_pdf(html().decode())),
        file_name=file_name,
        mime=MIMES["pdf"],
        on_click="ignore",
        icon=":material/picture_as_pdf:",
        key=key,
        disabled=why is not None,
        help=why,
    )
    if why:
        column.caption(md_escape(why))  # type: ignore[attr-defined]


def html_bytes(fig: go.Figure) -> bytes:
    """Return a standalone interactive HTML file (plotly.js embedded, no MathJax: works offline
    and makes no request)."""
    return fig.to_html(include_plotlyjs=True, include_mathjax=False, full_html=True).encode()


MIMES = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
    "html": "text/html",
    "csv": "text/csv",
}


def download_menu(
    label: str,
    stem: str,
    key: str,
    makers: Mapping[str, tuple[str, Callable[[], bytes]]],
    unavailable: Mapping[str, str] | None = None,
) -> None:
    """Show a popover ``label`` with one download per format, each rendered when clicked.

    ``makers``: ``{format: (entry label, () -> bytes)}``; files are named ``stem.format``.
    ``unavailable``: ``{format: why}``, entries shown disabled with the reason (once, below).
    """
    unavailable = unavailable or {}
    with st.popover(label, icon=":material/download:"):
        for fmt, (entry, make) in makers.items():
            st.download_button(
                entry,
                data=b"" if fmt in unavailable else make,
                file_name=f"{file_stem(stem)}.{fmt}",
                mime=MIMES[fmt],
                key=f"{key}_{fmt}",
                on_click="ignore",
                type="tertiary",
                disabled=fmt in unavailable,
                help=unavailable.get(fmt),
            )
        for why in dict.fromkeys(unavailable.values()):
            st.caption(md_escape(why))


def download_eee(bench: Benchmark, draws: Callable[[], Draws], level: float, key: str) -> None:
    """A download of ``bench`` as Every Eval Ever files (a .zip; ``core.export_eee``) with the
    standard errors and ``level`` intervals of ``draws()`` (made when clicked)."""
    from benchuq.api.summaries import export_eee

    st.download_button(
        "Every Eval Ever files (.zip)",
        data=lambda: export_eee(bench, draws(), level=level).zip_bytes(),
        file_name=f"{file_stem(bench.name)}_every_eval_ever.zip",
        mime="application/zip",
        key=key,
        on_click="ignore",
        help=f"Each model's scores with standard errors and {100 * level:g}% intervals in the "
        "Every Eval Ever schema 0.3.0 (and the item scores, for item-level data): the same as "
        "`benchuq export DATA --format eee`.",
    )


PAGE_KEY = "_page_title"  # the title of the page being run (set by dashboard/app.py)


def chart_subtitle() -> str:
    """The subtitle of an exported chart on the current page: data set, method, draws, seed and
    level (the page's own level where it has one, e.g. Compare's; else the sidebar's)."""
    from benchuq.dashboard import cache, links, session
    from benchuq.dashboard.context import current

    ctx = current()
    if ctx.bench is None:
        return ""
    s = ctx.settings
    page = st.session_state.get(PAGE_KEY, "")
    levels = [
        float(asdict(session.stored(cls))["level"])
        for cls, title in links.PAGE_SETTINGS
        if title == page and "level" in {f.name for f in fields(cls)}
    ]
    method = cache.METHODS[s.method].label + (", normalized" if s.metric == "normalized" else "")
    return chart_subtitle_text(ctx.bench.name, method, s.reps, s.seed, (levels or [s.level])[0])


def download_buttons(fig: go.Figure, stem: str, key: str) -> None:
    """Show a "Download chart" popover: PNG, SVG (rendered on click), interactive HTML; the
    exported chart carries a subtitle naming data set, method and level (:func:`chart_subtitle`;
    a chart's own subtitle is kept)."""
    sub = chart_subtitle()

    def stamped() -> go.Figure:
        return with_subtitle(fig, sub) if sub else fig

    download_menu(
        "Download chart",
        stem,
        key,
        {
            "png": ("PNG image", lambda: image_bytes(stamped(), "png")),
            "svg": ("SVG image", lambda: image_bytes(stamped(), "svg")),
            "html": ("Interactive HTML", lambda: html_bytes(stamped())),
        },
        unavailable=dict.fromkeys(("png", "svg"), why)
        if (why := needs_chromium("PNG and SVG"))
        else None,
    )


def chart_with_download(fig: go.Figure, key: str, stem: str) -> None:
    """Show ``fig`` (widget ``key``) with its :func:`download_buttons` menu (``dl_<key>``) for
    files named ``stem``."""
    st.plotly_chart(fig, key=key, config={"displaylogo": False})
    download_buttons(fig, stem, key=f"dl_{key}")


def download_csv(
    table: pd.DataFrame, stem: str, label: str = "Download table (CSV)", key: str | None = None
) -> None:
    """Show a button that downloads ``table`` as ``stem.csv`` (no index column; text cells that
    a spreadsheet would run as formulas neutralised:
    :func:`~benchuq.presentation.text.csv_bytes`)."""
    st.download_button(
        label,
        csv_bytes(table),
        file_name=f"{file_stem(stem)}.csv",
        mime=MIMES["csv"],
        on_click="ignore",
        icon=":material/download:",
        key=key,
    )
