"""Notes on the current data, shown once: one collapsed expander on the Data page, a one-line
pointer on every other page (texts from ``dashboard.views_data``)."""

from __future__ import annotations

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from benchuq.core.data import Benchmark
from benchuq.core.findings import data_caveats
from benchuq.dashboard.context import Context
from benchuq.dashboard.views_data import note_items, notes_title, pointer_text
from benchuq.presentation.text import md_escape

__all__ = ["all_notes", "expander", "pointer"]


def all_notes(bench: Benchmark) -> tuple[str, ...]:
    """The reader's notes and the data's caveats (``core.findings.data_caveats``: small tasks,
    partial runs), each once."""
    return (*bench.notes, *data_caveats(bench))


def expander(notes: tuple[str, ...]) -> None:
    """Every note (headline, then its files and tasks) in one collapsed expander."""
    if not notes:
        return
    with st.expander(notes_title(notes), expanded=False, icon=":material/info:"):
        for k, item in enumerate(note_items(notes), start=1):  # numbered: notes refer back
            st.markdown(f"{k}\\. " + md_escape(item.headline))
            if item.details:
                st.caption("  \n".join(md_escape(d) for d in item.details))


def pointer(ctx: Context, data_page: StreamlitPage, current: StreamlitPage) -> None:
    """One line linking to the Data page when the data has notes (not on the Data page)."""
    if ctx.bench is None or current.url_path == data_page.url_path:
        return
    text = pointer_text(all_notes(ctx.bench))
    if text:
        st.page_link(data_page, label=md_escape(text), icon=":material/info:")
