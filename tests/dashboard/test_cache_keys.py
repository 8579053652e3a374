"""The pages' cached calls take draws and data as they are: Streamlit hashes them by their
content key (``dashboard.cache.HASH_FUNCS``), never by their bytes on every rerun (issue 25)."""

from __future__ import annotations

import dataclasses

from benchuq.core.reading.loaders import load_sample
from benchuq.dashboard import cache
from benchuq.dashboard.leaderboard import cached


def test_draws_are_hashed_by_the_key_of_the_cached_draws() -> None:
    bench = load_sample("toy")
    draws = cache.get_draws(bench, "bootstrap", 200, 5, "raw")
    assert cache.draws_content_key(draws) == cache.draws_key(bench, "bootstrap", 200, 5, "raw")
    copy = dataclasses.replace(draws)  # not the cached object: its content is hashed
    assert cache.draws_content_key(copy) == cache.draws_content_key(dataclasses.replace(draws))
    assert cache.draws_content_key(copy) != cache.draws_content_key(
        cache.get_draws(bench, "bootstrap", 200, 6, "raw")
    )
    assert cache.benchmark_content_key(bench) == bench.content_hash


def test_a_cached_call_reuses_its_entry_for_the_same_draws(monkeypatch) -> None:
    calls = []
    real = cached.view.leaderboard_table
    monkeypatch.setattr(cached.view, "leaderboard_table", lambda *a: calls.append(1) or real(*a))
    bench = load_sample("toy")
    draws = cache.get_draws(bench, "bootstrap", 200, 8, "raw")
    first = cached.leaderboard_table(draws, bench.models, 0.9, ())
    again = cached.leaderboard_table(draws, bench.models, 0.9, ())
    assert len(calls) == 1 and again.equals(first)
    other = cache.get_draws(bench, "bootstrap", 200, 9, "raw")
    cached.leaderboard_table(other, bench.models, 0.9, ())
    assert len(calls) == 2


def test_a_folders_files_uploaded_in_any_order_are_the_folder() -> None:
    """The browser sends dropped files in the order the user picked them: read as given, the
    models came out in that order and the data hash differed from the folder's (audit of 30).
    Uploads are read in name order, as a folder is."""
    from pathlib import Path

    from benchuq.core.reading.loaders import read_paths

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
    files = tuple((f.name, f.read_bytes()) for f in sorted(folder.iterdir()))
    read = read_paths([folder]).bench
    for order in (files, files[::-1]):
        bench = cache.load_upload(order).bench
        assert bench.models == read.models and bench.data_hash == read.data_hash
