"""The Judge page's cached calls: the judge data and the corrected estimates (METHODS 15)."""

from __future__ import annotations

import streamlit as st

from benchuq.api.judge import JudgeReplicates, JudgeResult, Method, judge_replicates
from benchuq.core.reading.judge_data import JudgeData, load_judge, read_judge_files
from benchuq.core.reading.sources import parse_source
from benchuq.dashboard import cache, runtime

__all__ = ["judge_data", "judge_fit", "judge_summary"]


@cache.budgeted
@st.cache_resource(max_entries=8, show_spinner="Reading the judge scores…")
def judge_data(
    key: str,
    judge_column: str,
    human_column: str,
    _files: tuple[tuple[str, bytes], ...],
    _labels: tuple[str, bytes] | None,
) -> JudgeData:
    """Judge data of ``sample:mt_bench`` or of uploaded files (``key``: their digest)."""
    runtime.count_work("judge data")
    if parse_source(key).kind == "sample":
        return load_judge(key)
    return read_judge_files(list(_files), labels=_labels, judge=judge_column, human=human_column)


@cache.budgeted
@st.cache_resource(max_entries=16, show_spinner="Correcting the judge's scores…")
def judge_fit(key: str, method: Method, seed: int, _data: JudgeData) -> JudgeReplicates:
    """The level-free part of ``bq.judge`` of the data ``key`` (its content hash): the checks,
    the cells and the agreement's bootstrap (``core.analyses.judge.judge_replicates``)."""
    runtime.count_work("judge fit")
    return judge_replicates(_data, method=method, seed=seed)


@cache.budgeted
@st.cache_resource(max_entries=16, show_spinner=False)
def judge_summary(
    key: str, method: Method, level: float, target: float, seed: int, _data: JudgeData
) -> JudgeResult:
    """``bq.judge`` of the data ``key`` at ``level`` and ``target``: the cached
    :func:`judge_fit` summarised, so a move of the level or the target redoes no bootstrap
    (issue 41)."""
    runtime.count_work("judge summary")
    return judge_fit(key, method, seed, _data).summarize(level=level, target=target)
