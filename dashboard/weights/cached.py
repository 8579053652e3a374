"""The Task weights page's cached calls: category moments and the P(best) map (METHODS 5)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from benchuq.api.summaries import (
    BestProbabilityMap,
    CategoryMoments,
    DominanceMap,
    WeightedScores,
    best_probability_map,
    dominance_map,
    moments_from_benchmark,
    moments_from_draws,
    weighted_scores,
)
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.dashboard import cache, runtime

__all__ = [
    "analytic_moments",
    "at_weights",
    "draw_moments",
    "lead_map",
    "moments",
    "probability_map",
]


@cache.budgeted_by_content
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def analytic_moments(
    bench: Benchmark, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...]
) -> CategoryMoments:
    """Category means and covariances from the data's counts/SEs (METHODS 5)."""
    runtime.count_work("moments")
    return moments_from_benchmark(bench.subset(models=list(models)), mapping=dict(mapping))


@cache.budgeted_by_content
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def draw_moments(
    draws: Draws, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...]
) -> CategoryMoments:
    """Category means and covariances from draws (paired: the models' correlation too)."""
    runtime.count_work("moments")
    shown = draws.select_models(list(models))
    with cache.LEDGER.reserve(cache.SUMMARY_WORK * shown.values.size):
        return moments_from_draws(shown, mapping=dict(mapping))


@cache.budgeted_by_content
@st.cache_resource(
    max_entries=16,
    show_spinner="Share of replicates ranked first at every grid point…",
    hash_funcs=cache.HASH_FUNCS,
)
def probability_map(
    draws: Draws, models: tuple[str, ...], mapping: tuple[tuple[str, str], ...], resolution: int
) -> BestProbabilityMap:
    """``core.summaries.dominance.best_probability_map`` of :func:`draw_moments`."""
    runtime.count_work("probability map")
    return best_probability_map(draw_moments(draws, models, mapping), resolution=resolution)


Mapping = tuple[tuple[str, str], ...]


def moments(data: Draws | Benchmark, models: tuple[str, ...], mapping: Mapping) -> CategoryMoments:
    """:func:`draw_moments` of draws, :func:`analytic_moments` of a benchmark (both cached)."""
    if isinstance(data, Draws):
        return draw_moments(data, models, mapping)
    return analytic_moments(data, models, mapping)


@cache.budgeted_by_content
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def lead_map(
    data: Draws | Benchmark,
    models: tuple[str, ...],
    mapping: Mapping,
    z: float,
    rho: float,
    resolution: int,
    pairing: bool,
) -> DominanceMap:
    """``dominance_map`` (the SE rule at every grid point) of :func:`moments` of ``data``."""
    runtime.count_work("lead map")
    m = moments(data, models, mapping)
    return dominance_map(m, z=z, rho=rho, resolution=resolution, use_pairing=pairing)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def at_weights(
    data: Draws | Benchmark,
    draws: Draws,
    models: tuple[str, ...],
    mapping: Mapping,
    weights: tuple[float, ...],
    z: float,
    rho: float,
    pairing: bool,
    level: float,
) -> tuple[WeightedScores, DominanceMap, BestProbabilityMap]:
    """At one weighting (of the map's categories): the weighted scores and the lead of
    :func:`moments` of ``data``, and P(best) from ``draws``."""
    runtime.count_work("at weights")
    m = moments(data, models, mapping)
    w = np.asarray(weights, dtype=float)
    here = dominance_map(m, z=z, rho=rho, weights=w[None], use_pairing=pairing)
    best = best_probability_map(draw_moments(draws, models, mapping), weights=w[None])
    return weighted_scores(m, w, level=level), here, best
