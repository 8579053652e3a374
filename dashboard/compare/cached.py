"""The Compare page's cached calls: family-wise differences and P(row beats column) of the
chosen models (METHODS 4b; draws hashed by their content key: ``cache.HASH_FUNCS``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from benchuq.api import summaries as summaries
from benchuq.core.draws import Draws
from benchuq.dashboard import cache

__all__ = ["differences", "win_probabilities"]


def _group(group: str | tuple[float, ...]) -> str | np.ndarray:
    return group if isinstance(group, str) else np.asarray(group, dtype=float)


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def differences(
    draws: Draws,
    models: tuple[str, ...],
    level: float,
    correction: summaries.Correction,
    group: str | tuple[float, ...],
) -> pd.DataFrame:
    """``summaries.pairwise_differences`` of ``models`` (in that order) on the score ``group``
    (``"overall"``, a category or category weights)."""
    shown = draws.select_models(list(models))
    with cache.LEDGER.reserve(cache.SUMMARY_WORK * shown.values.size):
        return summaries.pairwise_differences(
            shown, list(models), level=level, correction=correction, group=_group(group)
        )


@cache.budgeted_by_content
@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def win_probabilities(
    draws: Draws, models: tuple[str, ...], group: str | tuple[float, ...]
) -> np.ndarray:
    """``summaries.win_probabilities`` of ``models``: P(row beats column) over the draws."""
    return summaries.win_probabilities(draws.select_models(list(models)), group=_group(group))
