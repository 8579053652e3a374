"""Notes on the current data, shown once: one collapsed expander on the Data page, a one-line
pointer on every other page (texts from ``dashboard.data.view``)."""

from __future__ import annotations

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from benchuq.api.summaries import cell_items, data_caveats, few_items_note
from benchuq.core.data import Benchmark
from benchuq.dashboard.context import Context
from benchuq.dashboard.data.view import (
    note_items,
    notes_title,
    pointer_text,
    sidebar_data_prefix,
)
from benchuq.dashboard.words import say
from benchuq.presentation.text import md_escape

__all__ = ["all_notes", "expander", "few_items", "pointer"]


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
            st.markdown(f"{k}\\. " + say(item.headline))
            if item.details:
                st.caption("  \n".join(say(d) for d in item.details))


def pointer(
    ctx: Context, data_page: StreamlitPage, current: StreamlitPage, *, own_data: bool = False
) -> None:
    """One line linking to the Data page when the data has notes (not on the Data page);
    ``own_data``: the page analyses its own data, so the line names the sidebar's."""
    if ctx.bench is None or current.url_path == data_page.url_path:
        return
    text = pointer_text(all_notes(ctx.bench), sidebar_data=ctx.bench.name if own_data else None)
    if text:
        st.page_link(data_page, label=md_escape(text), icon=":material/info:")


def few_items(ctx: Context, *, own_data: bool = False) -> None:
    """A warning on every page when some model's results rest on fewer than 30 items
    (``core.small_samples``, METHODS 2d); ``own_data``: the page analyses its own data, so the
    warning names the sidebar's."""
    if ctx.bench is None:
        return
    cells = cell_items(ctx.bench)
    note = None if cells is None else few_items_note(ctx.bench.models, cells.sum(axis=1))
    if note:
        about = sidebar_data_prefix(ctx.bench.name if own_data else None)
        st.warning(md_escape(about + note), icon=":material/warning:")
