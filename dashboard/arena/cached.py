"""The Arena page's cached calls: the battles and the arena fit (METHODS 8b)."""

from __future__ import annotations

import streamlit as st

from benchuq import api as bq
from benchuq.api import summaries as door
from benchuq.api.summaries import ArenaFit, ArenaInterval, ArenaResult, Ties
from benchuq.core.reading.battles import Battles, read_battle_files
from benchuq.core.reading.sources import parse_source
from benchuq.dashboard import cache, runtime

__all__ = ["arena_fit", "arena_model", "battles_of"]


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
def arena_model(
    key: str,
    ties: Ties,
    interval: ArenaInterval,
    control: tuple[str, ...],
    reps: int,
    seed: int,
    _battles: Battles,
) -> ArenaFit:
    """The Bradley-Terry fit of the battles ``key`` (their content hash) at no level or anchor
    (``summaries.arena_fit``): a level's or an anchor's move re-summarises it (issue 41)."""
    runtime.count_work("arena fit")
    return door.arena_fit(
        _battles, ties=ties, interval=interval, control=control, reps=reps, seed=seed
    )


@cache.budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
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
    """``bq.arena`` of the battles ``key``: the cached :func:`arena_model` at ``level`` with
    ``anchor`` at 1000."""
    runtime.count_work("arena ratings")
    fit = arena_model(key, ties, interval, control, reps, seed, _battles)
    return fit.at(level=level, anchor=anchor)
