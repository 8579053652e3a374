"""Responsiveness by structure (issue 30, item 7), without timing: moving the level, a category
weight or rho re-summarises the cached draws (the uncertainty method runs once), a summary is
computed once per setting, and the pages' cached calls name the draws by their key (never by
hashing their bytes on every rerun). Times: ``benchmarks/bench_dashboard.py --browser``."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import streamlit as st
from conftest import FAST_QUERY, page_path

from benchuq.dashboard import cache, runtime
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


def _moves(log) -> list[dict]:
    """The run log's lines so far (``BENCHUQ_RUN_LOG``), emptied for the next move."""
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    log.write_text("")
    return lines


def _made(runs: list[dict]) -> dict[str, int]:
    made: dict[str, int] = {}
    for run in runs:
        for what, n in run["work"].items():
            made[what] = made.get(what, 0) + n
    return made


def test_the_run_log_shows_no_move_recomputes_draws(make_app, tmp_path, monkeypatch) -> None:
    """Issue 41: every move of the level, a weight, rho, the rank level and the Two runs, Arena
    and Judge pages' controls re-summarises: the run log (``dashboard.runtime.count_work``)
    shows no draws or fit made again, and the rank level reuses the ranked replicates."""
    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv("BENCHUQ_RUN_LOG", str(log))
    st.cache_resource.clear()
    st.cache_data.clear()
    at = make_app({**FAST_QUERY, "data": "sample:vtab1k"}).run()
    clean(at)
    assert _made(_moves(log)) == {"draws": 1, "leaderboard table": 1}  # the log counts work

    def move(widget, value) -> dict[str, int]:
        widget.set_value(value).run()
        assert not at.exception, at.exception
        verdict = "**Overall.**"  # Two runs shows a worse candidate in red: not a failure
        assert not [e.value for e in at.error if not e.value.startswith(verdict)]
        runs = _moves(log)
        assert len(runs) == 1 and runs[0]["outcome"] == "done", runs
        made = _made(runs)
        assert not set(made) & set(runtime.HEAVY), made  # nothing resampled or refitted
        return made

    assert move(at.slider(key="level_pct"), 90.0) == {"leaderboard table": 1}
    assert move(at.number_input(key="weight_0"), 2.0) == {"leaderboard table": 1}

    at.switch_page(page_path("ranks.py")).run()
    clean(at)
    assert {"ranking", "rank aggregations", "rank sets"} <= set(_made(_moves(log)))
    for level in (90.0, 85.0):  # the ranked replicates summarised at the new rank level
        assert move(at.slider(key="ranks_level"), level) == {"rank aggregations": 1, "rank sets": 1}
    assert move(at.slider(key="level_pct"), 80.0) == {}  # the rank level is the page's own

    at.switch_page(page_path("weights.py")).run()
    clean(at)
    _moves(log)
    assert set(move(at.slider(key="rho"), 0.3)) <= {"lead map", "at weights"}
    assert set(move(at.slider(key="level_pct"), 85.0)) <= {"at weights"}

    at.switch_page(page_path("arena.py")).run()
    clean(at)
    assert _made(_moves(log)) == {"battles": 1, "arena fit": 1, "arena ratings": 1}
    assert move(at.radio(key="arena_ties"), "davidson") == {"arena fit": 1, "arena ratings": 1}
    assert move(at.slider(key="level_pct"), 90.0) == {"arena ratings": 1}  # the fit reused
    boot = {"arena fit": 1, "arena ratings": 1}  # the bootstrap's refits, made once
    assert move(at.radio(key="arena_interval"), "bootstrap") == boot
    assert move(at.slider(key="level_pct"), 85.0) == {"arena ratings": 1}

    at.switch_page(page_path("judge.py")).run()
    clean(at)
    assert _made(_moves(log)) == {"judge data": 1, "judge fit": 1, "judge summary": 1}
    summary = {"judge summary": 1}  # the cells and the agreement's bootstrap reused (#41)
    assert move(at.number_input(key="judge_target"), 6.0) == summary
    assert move(at.slider(key="level_pct"), 80.0) == summary
    assert move(at.radio(key="judge_method"), "classical") == {"judge fit": 1, **summary}
    assert move(at.slider(key="level_pct"), 85.0) == summary

    at.switch_page(page_path("two_runs.py")).run()
    at.selectbox(key="data").set_value("sample:alpaca_eval").run()  # item-level data
    assert not at.exception, at.exception
    assert _made(_moves(log)) == {"two runs": 1}
    assert move(at.slider(key="runs_level"), 90.0) == {"two runs": 1}
    assert move(at.number_input(key="runs_margin"), 1.0) == {"two runs": 1}
    at.number_input(key="runs_margin").set_value(0.0).run()  # back: compared before, cached
    assert _made(_moves(log)) == {}
    st.cache_resource.clear()
    st.cache_data.clear()


def test_the_first_page_leaves_the_regression_library_unimported() -> None:
    """Issue 41: a fresh server's first page (the Leaderboard) fits no regression, so it does not
    pay statsmodels' import (about 1 s); the Subgroups page imports it when it fits."""
    import subprocess
    import sys

    from conftest import ENTRY

    code = (
        "import sys\nfrom streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(ENTRY)!r}, default_timeout=300)\n"
        "at.query_params['reps'] = '200'\nat.run()\nassert not at.exception, at.exception\n"
        "print(sorted(m for m in ('statsmodels', 'benchuq.core.analyses.subgroups') "
        "if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    # the subgroups module itself is imported (benchuq.api lists it), its statsmodels is not
    assert out.stdout.strip().splitlines()[-1] == "['benchuq.core.analyses.subgroups']"
