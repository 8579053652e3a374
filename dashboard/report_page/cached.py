"""The Report page's cached call: the findings of the current view (``core.findings``)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from benchuq.api import summaries as core_report
from benchuq.api.summaries import Group
from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws
from benchuq.dashboard import cache

__all__ = ["report_findings"]


@cache.budgeted_by_content
@st.cache_data(
    max_entries=16, show_spinner="Working out the findings…", hash_funcs=cache.HASH_FUNCS
)
def report_findings(
    bench: Benchmark,
    draws: Draws,
    models: tuple[str, ...],
    level: float,
    display: tuple[float, str],
    warnings: tuple[str, ...],
    _diagnostics: pd.DataFrame | None = None,
    group: Group = "overall",
) -> core_report.Findings:
    """``core.findings.findings`` of the shown models on the score ``group`` (``"overall"`` or
    category weights; ``display``: scale and suffix; a Bayesian fit's ``_diagnostics``, part of
    the draws' key)."""
    shown = draws.select_models(list(models))
    scale, suffix = display
    with cache.LEDGER.reserve(cache.SUMMARY_WORK * shown.values.size):
        return core_report.findings(
            bench, shown, level=level, scale=scale, suffix=suffix, warnings=warnings,
            diagnostics=_diagnostics, group=group,
        )  # fmt: skip
