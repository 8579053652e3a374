"""The Ranks page's cached calls (draws hashed by their content key: ``cache.HASH_FUNCS``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.api import summaries as summaries
from benchuq.api.summaries import RankReplicates, RankSets
from benchuq.core.budget import check_pairs
from benchuq.core.draws import Draws
from benchuq.dashboard import cache, runtime
from benchuq.dashboard.compare import view as views_inference

__all__ = [
    "RANK_STATISTICS",
    "rank_aggregations",
    "rank_probabilities",
    "rank_replicates",
    "rank_sets",
    "rank_tables",
]
#: the Ranks page's two tables: the model's position, and the average per-task rank as [LGC]
RANK_STATISTICS = ("position", "average task rank")


@cache.budgeted_by_content
@st.cache_resource(
    max_entries=16, show_spinner="Ranking models in every replicate…", hash_funcs=cache.HASH_FUNCS
)
def rank_replicates(draws: Draws, models: tuple[str, ...]) -> RankReplicates:
    """The shown models ranked in every replicate (``summaries.rank_replicates``), at no level:
    cached apart, so a move of the rank level re-summarises them (issue 41)."""
    runtime.count_work("ranking")
    check_pairs(draws.reps, len(models), what="rank comparisons")
    shown = draws.select_models(list(models))
    with cache.LEDGER.reserve(cache.RANKS_WORK * shown.values.size):
        return summaries.rank_replicates(shown)


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def rank_aggregations(draws: Draws, models: tuple[str, ...], level: float) -> pd.DataFrame:
    """``core.summaries.rank_aggregations`` for the shown models at ``level``: the cached
    :func:`rank_replicates` summarised (percentile intervals)."""
    runtime.count_work("rank aggregations")
    return summaries.summarize_ranks(rank_replicates(draws, models), level=level)


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def rank_tables(draws: Draws, models: tuple[str, ...], level: float) -> tuple[pd.DataFrame, ...]:
    """The tables of :data:`RANK_STATISTICS` at ``level`` (``rank_statistic_table`` of the cached
    :func:`rank_aggregations`), formatted once per level: about a third of the page's run
    when every rank level was formatted again at each rerun (issue 41)."""
    ranks = rank_aggregations(draws, models, level)
    return tuple(
        views_inference.rank_statistic_table(
            ranks, views_inference.RANK_COLUMN_LABELS, statistic=statistic
        )
        for statistic in RANK_STATISTICS
    )


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def rank_probabilities(
    draws: Draws, models: tuple[str, ...], weights: tuple[float, ...]
) -> np.ndarray:
    """``core.summaries.rank_probabilities`` at the weighted score ``S(w)`` (no ``weights``:
    the overall score)."""
    runtime.count_work("rank probabilities")
    shown = draws.select_models(list(models))
    return summaries.rank_probabilities(shown, group=_group(weights))


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def rank_sets(
    draws: Draws, models: tuple[str, ...], weights: tuple[float, ...], level: float
) -> RankSets:
    """Rank sets of the weighted score ``S(w)`` (no ``weights``: the overall score; METHODS 4b;
    ``summaries.rank_sets_of``)."""
    runtime.count_work("rank sets")
    shown = draws.select_models(list(models))
    return summaries.rank_sets_of(shown, level=level, group=_group(weights))


def _group(weights: tuple[float, ...]) -> str | np.ndarray:
    """The score of ``weights``: ``"overall"`` for none (the default weights), else ``S(w)``."""
    return np.asarray(weights, dtype=float) if weights else "overall"
