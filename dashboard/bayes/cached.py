"""The Bayesian page's cached calls: posterior draws of a fit and the P(best) map."""

from __future__ import annotations

from typing import Literal

import streamlit as st

from benchuq.api.summaries import BayesFit, BestProbabilityMap
from benchuq.api.summaries import best_map as _best_map
from benchuq.core.draws import Draws
from benchuq.dashboard import cache

__all__ = ["best_map", "fit_draws"]


@cache.budgeted
@st.cache_resource(max_entries=64, show_spinner=False)
def _fit_draws(key: str, kind: Literal["parameter", "predictive"], _fit: BayesFit) -> Draws:
    return _fit.to_draws(kind=kind)


def fit_draws(key: str, kind: Literal["parameter", "predictive"], fit: BayesFit) -> Draws:
    """``fit.to_draws(kind)`` (``"parameter"`` or ``"predictive"``), cached per fit (``key``)
    and remembered under ``key|kind`` (``cache.keyed``)."""
    return cache.keyed(_fit_draws(key, kind, fit), f"{key}|{kind}")


@cache.budgeted_by_content
@st.cache_resource(
    max_entries=8, show_spinner="P(best) over the weight simplex…", hash_funcs=cache.HASH_FUNCS
)
def best_map(draws: Draws, models: tuple[str, ...], cats: tuple[str, ...]) -> BestProbabilityMap:
    """P(best) on a 40-step grid of category weightings from ``draws``."""
    shown = draws.select_models(list(models))
    with cache.LEDGER.reserve(cache.SUMMARY_WORK * shown.values.size):
        return _best_map(shown, categories=cats, resolution=40)
