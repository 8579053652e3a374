"""The Leaderboard page's cached calls (draws hashed by their content key: ``cache.HASH_FUNCS``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.api.summaries import gaps_from_leader
from benchuq.core.draws import Draws
from benchuq.dashboard import cache, runtime
from benchuq.dashboard.leaderboard import view

__all__ = ["leader_gaps", "leaderboard_table"]


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def leaderboard_table(
    draws: Draws, models: tuple[str, ...], level: float, weights: tuple[float, ...]
) -> pd.DataFrame:
    """``view.leaderboard_table`` of the shown models at ``level`` and category ``weights``."""
    runtime.count_work("leaderboard table")
    shown = draws.select_models(list(models))
    with cache.LEDGER.reserve(cache.SUMMARY_WORK * shown.values.size):
        return view.leaderboard_table(shown, level, np.asarray(weights, dtype=float))


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def leader_gaps(draws: Draws, models: tuple[str, ...], level: float) -> pd.DataFrame:
    """``core.findings.gaps_from_leader`` of the shown models (the landing's chart)."""
    return gaps_from_leader(draws.select_models(list(models)), level=level)
