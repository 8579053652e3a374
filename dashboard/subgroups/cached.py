"""The Subgroups page's cached calls: units and the empirical Bayes analysis (METHODS 7)."""

from __future__ import annotations

import streamlit as st

from benchuq import api as bq
from benchuq.api.summaries import (
    FsCorrection,
    Grouping,
    SubgroupResult,
    Units,
    UnitWeights,
    units_from_benchmark,
)
from benchuq.core.data import Benchmark
from benchuq.dashboard import cache
from benchuq.dashboard.subgroups import view

__all__ = ["subgroup_analysis", "subgroup_units", "table_units"]


@cache.budgeted_by_content
@st.cache_resource(max_entries=16, show_spinner=False, hash_funcs=cache.HASH_FUNCS)
def subgroup_units(bench: Benchmark, group_by: Grouping) -> Units:
    """``core.analyses.subgroups.units_from_benchmark``."""
    return units_from_benchmark(bench, group_by=group_by)


@cache.budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
def table_units(digest: str, name: str, _data: bytes) -> Units:
    """Units of an uploaded table (``digest``: SHA-256 of its bytes)."""
    return view.read_table(name, _data)


@cache.budgeted
@st.cache_resource(max_entries=32, show_spinner="Estimating (cached afterwards)…")
def subgroup_analysis(
    key: str,
    features: tuple[str, ...],
    level: float,
    fs: FsCorrection,
    kappa: str,
    crossfit: bool,
    weights: UnitWeights,
    seed: int,
    _units: Units,
) -> SubgroupResult:
    """``bq.subgroups`` of the units; ``key`` is the data's content hash plus the grouping."""
    return bq.subgroups(
        _units,
        features=features,
        level=level,
        fs_correction=fs,
        kappa=kappa,
        crossfit=crossfit,
        unit_weights=weights,
        seed=seed,
    ).result
