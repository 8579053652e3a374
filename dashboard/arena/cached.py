"""The Arena page's cached calls: the battles and the arena fit (METHODS 8b)."""

from __future__ import annotations

import streamlit as st

from benchuq import api as bq
from benchuq.api.summaries import ArenaInterval, ArenaResult, Ties
from benchuq.core.reading.battles import Battles, read_battle_files
from benchuq.core.reading.sources import parse_source
from benchuq.dashboard import cache, runtime

__all__ = ["arena_fit", "battles_of"]


@cache.budgeted
@st.cache_resource(max_entries=8, show_spinner="Reading the battles…")
def battles_of(
    key: str, columns: tuple[tuple[str, str], ...], _files: tuple[tuple[str, bytes], ...]
) -> Battles:
    """Battles (METHODS 8b) of a bundled sample, of published battles (``shared:<id>``) or of
    uploaded files (``key``: their digest), with the column mapping."""
    runtime.count_work("battles")
    if parse_source(key).kind in ("sample", "shared"):
        return bq.load_battles(key)
    return read_battle_files(list(_files), columns=dict(columns))


@cache.budgeted
@st.cache_resource(max_entries=16, show_spinner="Fitting the arena model…")
def arena_fit(
    key: str,
    anchor: str | None,
    level: float,
    ties: Ties,
    interval: ArenaInterval,
    control: tuple[str, ...],
    reps: int,
    seed: int,
    _battles: Battles,
) -> ArenaResult:
    """``bq.arena`` of the battles ``key`` (their content hash)."""
    runtime.count_work("arena fit")
    return bq.arena(
        _battles,
        anchor=anchor,
        level=level,
        ties=ties,
        interval=interval,
        control=control,
        reps=reps,
        seed=seed,
    ).result
