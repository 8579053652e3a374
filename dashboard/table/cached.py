"""The Table page's cached call: the wide table of the shown models."""

from __future__ import annotations

import streamlit as st

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.dashboard import cache
from benchuq.dashboard.table import view

__all__ = ["wide_table"]


@cache.budgeted_by_content
@st.cache_data(max_entries=32, show_spinner="Building the table…", hash_funcs=cache.HASH_FUNCS)
def wide_table(
    draws: Draws,
    bench: Benchmark,
    models: tuple[str, ...],
    level: float,
    columns: tuple[view.Column, ...],
) -> view.WideTable:
    """``view.wide_table`` for the shown models."""
    return view.wide_table(draws.select_models(list(models)), level, columns, bench)
