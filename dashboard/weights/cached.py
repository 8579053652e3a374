"""The Task weights page's cached calls: category moments and the P(best) map (METHODS 5)."""

from __future__ import annotations

import streamlit as st

from benchuq._app_door import (
    BestProbabilityMap,
    CategoryMoments,
    best_probability_map,
    moments_from_benchmark,
    moments_from_draws,
)
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.dashboard import cache

__all__ = ["analytic_moments", "draw_moments", "probability_map"]


@cache.budgeted_by_content
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def analytic_moments(
    bench: Benchmark, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...]
) -> CategoryMoments:
    """Category means and covariances from the data's counts/SEs (METHODS 5)."""
    return moments_from_benchmark(bench.subset(models=list(models)), mapping=dict(mapping))


@cache.budgeted_by_content
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def draw_moments(
    draws: Draws, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...]
) -> CategoryMoments:
    """Category means and covariances from draws (paired: the models' correlation too)."""
    shown = draws.select_models(list(models))
    with cache.LEDGER.reserve(cache.SUMMARY_WORK * shown.values.size):
        return moments_from_draws(shown, mapping=dict(mapping))


@cache.budgeted_by_content
@st.cache_resource(
    max_entries=16,
    show_spinner="Share of draws ranked first at every grid point…",
    hash_funcs=cache.HASH_FUNCS,
)
def probability_map(
    draws: Draws, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...], resolution: int
) -> BestProbabilityMap:
    """``core.summaries.dominance.best_probability_map`` of :func:`draw_moments`."""
    return best_probability_map(draw_moments(draws, models, mapping), resolution=resolution)
