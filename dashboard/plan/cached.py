"""The Plan page's cached calls: designs read from the data and plans (METHODS 10)."""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

from benchuq.api import summaries as power
from benchuq.core.data import Benchmark
from benchuq.dashboard import cache
from benchuq.results import AnswersPlanResult

__all__ = ["answers_plan", "design_key", "power_design", "power_plan"]


@cache.budgeted_by_content
@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def power_design(
    bench: Benchmark, models: tuple[str, ...], group: str | tuple[float, ...], rho: float
) -> power.Design:
    """``core.analyses.power.design_from_benchmark`` for the chosen models and score."""
    g = group if isinstance(group, str) else np.asarray(group, dtype=float)
    return power.design_from_benchmark(bench, models=list(models), group=g, rho=rho)


@cache.budgeted_by_content
@st.cache_data(
    max_entries=16, show_spinner="Planning answers per item…", hash_funcs=cache.HASH_FUNCS
)
def answers_plan(
    bench: Benchmark, statistic: str, budget: int | None, level: float, pool: bool, cost: float
) -> AnswersPlanResult:
    """``bq.answers_plan`` of the data's items with their answers (METHODS 10b)."""
    from benchuq.api import answers_plan as plan

    return plan(
        bench, statistic=statistic, budget=budget, level=level, pool=-1 if pool else None,
        item_cost=cost,
    )  # fmt: skip


def design_key(design: power.Design) -> str:
    """A content key of a design (its numbers and names), for caching plans of it."""
    h = hashlib.sha256(repr((design.name, design.models, design.n, design.group)).encode())
    for a in (design.estimate, design.cov, design.cov_iid):
        h.update(np.ascontiguousarray(a, dtype=float).tobytes())
    return h.hexdigest()


@cache.budgeted
@st.cache_data(max_entries=64, show_spinner="Planning (the max-T critical value)…")
def power_plan(
    key: str,
    pairs: tuple[tuple[str, str], ...],
    level: float,
    power_: float,
    delta: float | tuple[float, ...] | None,
    family: int | None,
    correction: str,
    _design: power.Design,
) -> power.PowerPlan:
    """``core.analyses.power.plan`` of the design named by ``key`` (see :func:`design_key`)."""
    return power.power_plan(
        _design,
        pairs=list(pairs),
        level=level,
        power=power_,
        delta=delta,
        family=family,
        correction=correction,  # type: ignore[arg-type]
    )
