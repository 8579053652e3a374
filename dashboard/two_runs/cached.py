"""The Two runs page's cached call: two runs compared item by item (METHODS 13)."""

from __future__ import annotations

import streamlit as st

from benchuq import api as bq
from benchuq.api.summaries import DiffResult
from benchuq.core.data import Benchmark
from benchuq.dashboard import cache, runtime

__all__ = ["two_runs"]


@cache.budgeted_by_content
@st.cache_resource(
    max_entries=64, show_spinner="Comparing the two runs…", hash_funcs=cache.HASH_FUNCS
)
def two_runs(
    base: Benchmark,
    candidate: Benchmark,
    *,
    base_model: str,
    candidate_model: str,
    level: float,
    margin: float,
    sequential: bool,
    reps: int,
    seed: int,
) -> DiffResult:
    """``bq.diff`` of two runs (a model of each data set), cached by their
    content and the settings; ``margin`` in the unit shown (points for 0-1 scores, #39)."""
    runtime.count_work("two runs")
    return bq.diff(
        base,
        candidate,
        base_model=base_model,
        candidate_model=candidate_model,
        level=level,
        margin=margin,
        sequential=sequential,
        reps=reps,
        seed=seed,
    ).result
