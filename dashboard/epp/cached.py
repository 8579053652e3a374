"""The EPP page's cached fit (METHODS 8)."""

from __future__ import annotations

from typing import Literal

import streamlit as st

from benchuq import api as bq
from benchuq.api.summaries import EPPResult
from benchuq.core.budget import check_pairs
from benchuq.core.data import Benchmark
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.dashboard import cache

__all__ = ["EPP_FIT_LEVEL", "epp_fit"]

# EPP fits are cached at this level and re-levelled without refitting
EPP_FIT_LEVEL = COMPARISON_LEVEL


@cache.budgeted_by_content
@st.cache_resource(
    max_entries=32, show_spinner="Fitting the EPP model…", hash_funcs=cache.HASH_FUNCS
)
def epp_fit(
    bench: Benchmark,
    models: tuple[str, ...],
    rounds: Literal["tasks", "items"],
    interval: Literal["rounds", "glm", "bootstrap"],
    reps: int,
    seed: int,
) -> EPPResult:
    """Fit ``bq.epp`` on the shown models at level :data:`EPP_FIT_LEVEL`.

    Other levels come from ``EPPResult.at_level`` without refitting.
    """
    check_pairs(reps, len(models), what="EPP pair counts")
    sub = bench.subset(models=list(models)) if models != bench.models else bench
    fit = bq.epp(sub, rounds=rounds, level=EPP_FIT_LEVEL, interval=interval, reps=reps, seed=seed)
    return fit.result
