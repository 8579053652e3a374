"""Responsiveness by structure (issue 30, item 7), without timing: moving the level, a category
weight or rho re-summarises the cached draws (the uncertainty method runs once), a summary is
computed once per setting, and the pages' cached calls name the draws by their key (never by
hashing their bytes on every rerun). Times: ``benchmarks/bench_dashboard.py --browser``."""

from __future__ import annotations

from dataclasses import replace

import pytest
import streamlit as st
from conftest import FAST_QUERY, page_path

from benchuq.dashboard import cache
from benchuq.dashboard.leaderboard import view as leaderboard_view


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count runs of the bootstrap (the draws) and of the leaderboard summary; caches cleared."""
    calls = {"draws": 0, "leaderboard": 0}
    method = cache.METHODS["bootstrap"]

    def run(*args: object) -> object:
        calls["draws"] += 1
        return method.run(*args)

    summary = leaderboard_view.leaderboard_table

    def table(*args: object, **kwargs: object) -> object:
        calls["leaderboard"] += 1
        return summary(*args, **kwargs)

    monkeypatch.setitem(cache.METHODS, "bootstrap", replace(method, run=run))
    monkeypatch.setattr(leaderboard_view, "leaderboard_table", table)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield calls
    st.cache_resource.clear()
    st.cache_data.clear()


def clean(at) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_level_weight_and_rho_only_re_summarise_the_cached_draws(make_app, counted) -> None:
    at = make_app({**FAST_QUERY, "data": "sample:vtab1k"}).run()
    clean(at)
    assert counted == {"draws": 1, "leaderboard": 1}
    for level in (90.0, 80.0, 90.0):  # 90 again: its summary is cached
        at.slider(key="level_pct").set_value(level).run()
    clean(at)
    assert counted == {"draws": 1, "leaderboard": 3}
    at.number_input(key="weight_0").set_value(2.0).run()
    clean(at)
    at.run()  # a rerun with nothing changed computes nothing
    assert counted == {"draws": 1, "leaderboard": 4}

    at.switch_page(page_path("weights.py")).run()
    clean(at)
    for rho in (0.3, 0.6):
        at.slider(key="rho").set_value(rho).run()
        clean(at)
    at.slider(key="level_pct").set_value(85.0).run()
    clean(at)
    assert counted["draws"] == 1  # the draws were made once, on the first page


def test_the_pages_draws_are_hashed_by_their_key(make_app) -> None:
    at = make_app().run()
    clean(at)
    ctx = at.session_state["_benchuq_context"]
    draws = ctx.draws_all()
    assert cache.draws_content_key(draws) == ctx.draws_key
    assert ctx.draws_key.startswith(ctx.bench.data_hash)
    assert ctx.headline.label in ctx.draws_key  # another "overall" is other draws
