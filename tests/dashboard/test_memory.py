"""Memory bounded per server (#19): sizes, the one ledger over every growing cache, kept uploads.

No sleeps and no times: each test swaps in its own :class:`ByteLedger` (``cache.LEDGER`` is looked
up at every call) and checks what the ledger and the caches hold.
"""

from __future__ import annotations

import gc
import json
import threading
import weakref

import numpy as np
import pandas as pd
import pytest
from app_upload import GOOD, open_data_page, upload
from conftest import page_path

from benchuq.cli.cmd_app import server_environment
from benchuq.core.data import DataError
from benchuq.core.reading.loaders import load_sample
from benchuq.dashboard import cache
from benchuq.dashboard.bayes import cached as bayes_cached
from benchuq.dashboard.bayes.view import BayesSettings
from benchuq.dashboard.leaderboard import cached as leaderboard_cached
from benchuq.dashboard.ledger import ByteLedger, sizeof, trim
from benchuq.dashboard.ranks import cached as ranks_cached


@pytest.fixture
def ledger(monkeypatch) -> ByteLedger:
    """A fresh ledger with a large budget (tests lower ``budget`` themselves)."""
    fresh = ByteLedger(budget=10**12)
    monkeypatch.setattr(cache, "LEDGER", fresh)
    return fresh


def test_sizeof_counts_arrays_frames_and_shared_buffers_once() -> None:
    a = np.zeros((100, 10))
    frame = pd.DataFrame({"x": np.arange(1000, dtype=float), "name": ["m"] * 1000})
    assert sizeof(a) == a.nbytes
    assert sizeof(frame) == frame.memory_usage(deep=True).sum() >= 8000
    assert sizeof((a, a, [a])) < 2 * a.nbytes  # the same array held three times counts once
    assert sizeof({"k": (a, frame)}) >= a.nbytes + 8000
    assert sizeof(b"x" * 10_000) >= 10_000


def test_sizeof_of_loaded_item_level_data() -> None:
    """A Loaded (dataclass) of a Benchmark whose item tasks are slotted objects of arrays."""
    loaded = cache.loaded_sample("alpaca_eval")
    scores = [t.state if t.state is not None else t.values for t in loaded.bench.item_tasks]
    assert sizeof(loaded) >= sum(s.nbytes for s in scores) > 0


def test_every_growing_cache_records_its_bytes_and_evicts(ledger) -> None:
    """Draws, the ranked replicates and their table, P(best) maps: each result is in the
    ledger; over the budget only the newest stays and the older entries are computed again."""
    bench = load_sample("vtab1k")
    draws = cache.get_draws(bench, "bootstrap", 200, 1, "raw")
    table = ranks_cached.rank_aggregations(draws, bench.models, 0.95)
    bayes_cached.best_map(draws, bench.models, bench.category_names)
    assert len(ledger) == 4 and ledger.total >= sizeof(draws) + sizeof(table)
    ledger.budget = 1
    cache.get_draws(bench, "bootstrap", 200, 2, "raw")
    assert len(ledger) == 1
    again = ranks_cached.rank_aggregations(draws, bench.models, 0.95)  # evicted: computed again
    pd.testing.assert_frame_equal(again, table)
    assert len(ledger) == 1


def test_many_distinct_requests_stay_within_the_budget(ledger) -> None:
    bench = load_sample("toy")
    one = sizeof(cache.get_draws(bench, "bootstrap", 400, 0, "normalized"))
    ledger.budget = 6 * one
    for seed in range(1, 30):
        draws = cache.get_draws(bench, "bootstrap", 200 + 100 * (seed % 3), seed, "normalized")
        ranks_cached.rank_aggregations(draws, bench.models, 0.9)
        ranks_cached.rank_probabilities(draws, bench.models, (1.0,) * len(bench.category_names))
        assert ledger.total <= ledger.budget
    assert len(ledger) >= 3


def test_the_ledger_keeps_no_data_set_alive(ledger) -> None:
    """Eviction names the entry by its hashed arguments: after Streamlit drops its entry, the
    (unhashed) data set it was computed from can be freed."""
    bench = load_sample("toy").subset(models=list(load_sample("toy").models[:2]))
    gone = weakref.ref(bench)
    cache.get_draws(bench, "bootstrap", 200, 7, "raw")
    cache._draws.clear()
    del bench
    gc.collect()
    assert gone() is None and len(ledger) == 1


def test_kept_upload_is_read_again_after_its_parse_is_evicted(ledger) -> None:
    kept = cache.KeptUpload((("mine.csv", GOOD),), None, {}, "auto", None)
    first = cache.read_upload(kept)
    assert len(ledger) == 2  # the parse (shared) and this session's bytes
    cache._load_upload.clear()  # as the ledger does for another session's bigger work
    again = cache.read_upload(kept)
    assert again.bench.content_hash == first.bench.content_hash


def test_kept_upload_whose_bytes_were_evicted_asks_for_the_files(ledger) -> None:
    kept = cache.KeptUpload((("mine.csv", GOOD),), None, {}, "auto", None)
    cache.read_upload(kept)
    ledger.budget = 1
    cache.get_draws(load_sample("toy"), "bootstrap", 200, 3, "raw")  # evicts the rest
    assert kept.files is None
    with pytest.raises(DataError, match="Upload them again on the Data page"):
        cache.read_upload(kept)


def test_a_session_ending_forgets_its_kept_bytes(ledger) -> None:
    kept = cache.KeptUpload((("mine.csv", GOOD),), None, {}, "auto", None)
    cache.read_upload(kept)
    assert len(ledger) == 2
    del kept
    gc.collect()
    assert len(ledger) == 1  # the shared parse stays, bounded as any cache entry


def test_trim_is_safe_to_call() -> None:
    trim()


def test_app_launcher_limits_glibc_arenas_unless_set() -> None:
    assert server_environment({"PATH": "/bin"}) == {"PATH": "/bin", "MALLOC_ARENA_MAX": "2"}
    assert server_environment({"MALLOC_ARENA_MAX": "8"})["MALLOC_ARENA_MAX"] == "8"


def test_app_asks_for_an_evicted_upload_and_keeps_the_settings(make_app, ledger) -> None:
    at = upload(open_data_page(make_app), "mine.csv", GOOD)
    assert not at.exception and at.query_params["data"] == "upload"
    ledger.budget = 1
    other = make_app({"data": "sample:toy", "reps": "200", "seed": "5"}).run()  # evicts it
    assert not other.exception
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception
    assert any("Upload them again" in e.value for e in at.error), [e.value for e in at.error]
    assert at.query_params["data"] == "upload" and at.query_params["reps"] == "200"
    ledger.budget = 10**12
    at.switch_page(page_path("data.py")).run()
    upload(at, "mine.csv", GOOD)  # uploading again brings the data back
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart")


def test_work_in_flight_makes_room_and_waits_its_turn() -> None:
    """Computing holds room: cached entries are evicted for it, a second piece of work that
    does not fit waits until the first ends, and one piece always runs however big."""
    ledger, gone, done = ByteLedger(budget=100), [], threading.Event()
    for key in ("a", "b"):
        ledger.use(key, 40, lambda k=key: gone.append(k))
    with ledger.reserve(50):
        assert gone == ["a"]  # 40 cached + 50 in flight fit
        ledger.use("c", 30, lambda: gone.append("c"))
        assert gone == ["a", "b"]

        def work() -> None:
            with ledger.reserve(60):
                done.set()

        second = threading.Thread(target=work)
        second.start()
        second.join(timeout=0.2)
        assert second.is_alive() and not done.is_set()  # 50 + 60 > 100: it waits
    second.join()
    assert done.is_set() and gone == ["a", "b"]  # 30 cached + 60 in flight fit
    with ByteLedger(budget=1).reserve(10**9):  # alone, however big
        pass


def test_work_nested_in_its_own_reservation_does_not_wait_for_it() -> None:
    """Draws by the Bayesian model reserve room inside the draws' own reservation: the inner
    one must not wait for the outer (a deadlock); another thread still waits for both."""
    ledger, done = ByteLedger(budget=100), threading.Event()
    with ledger.reserve(80), ledger.reserve(80):

        def work() -> None:
            with ledger.reserve(10):
                done.set()

        other = threading.Thread(target=work)
        other.start()
        other.join(timeout=0.2)
        assert other.is_alive() and not done.is_set()
    other.join()
    assert done.is_set()


def test_page_summaries_of_draws_hold_room_and_keep_no_copy(ledger, monkeypatch) -> None:
    """Every model shown: the page's draws are a view of the cached ones, not an R x M x T copy;
    the leaderboard table, ranks, P(best) and the Bayesian fit reserve room while computing."""
    bench = load_sample("vtab1k")
    seed = 91731  # not used by other tests: nothing cached yet
    draws = cache.get_draws(bench, "bootstrap", 200, seed, "raw")
    assert np.shares_memory(draws.select_models(list(bench.models)).values, draws.values)
    held: list[int] = []
    real = ledger.reserve

    def reserve(nbytes: int):
        held.append(nbytes)
        return real(nbytes)

    monkeypatch.setattr(ledger, "reserve", reserve)
    weights = (1 / 3,) * 3  # vtab1k: natural, specialized, structured
    table = leaderboard_cached.leaderboard_table(draws, bench.models, 0.95, weights)
    cells = draws.values.size
    assert held == [cache.SUMMARY_WORK * cells] and set(table["model"]) == set(bench.models)
    ranks_cached.rank_aggregations(draws, bench.models, 0.95)
    bayes_cached.best_map(draws, bench.models, bench.category_names)
    assert held[1:] == [cache.RANKS_WORK * cells, cache.SUMMARY_WORK * cells]
    settings = BayesSettings(chains=2)
    cache.bayes_fit(bench, settings, 200, seed)
    cells = 2 * 100 * len(bench.models) * len(bench.tasks)  # chains x draws per chain x M x T
    assert held[3:] == [cache.BAYES_WORK * cells]


def test_each_script_run_is_logged_when_the_operator_asks(
    make_app, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``BENCHUQ_RUN_LOG``: one JSON line per script run (page, outcome, wall and CPU seconds),
    the server's own latency for ``benchmarks/bench_load.py``; no file when unset."""
    log = tmp_path / "runs.jsonl"
    make_app({"data": "sample:toy", "reps": "200"}).run()
    assert not log.exists()
    monkeypatch.setenv("BENCHUQ_RUN_LOG", str(log))
    at = make_app({"data": "sample:toy", "reps": "200"}).run()
    at.switch_page(page_path("ranks.py")).run()
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["page"], r["outcome"]) for r in runs] == [("Leaderboard", "done"), ("Ranks", "done")]
    assert all(r["seconds"] > 0 and r["cpu"] >= 0 and r["memory_wait"] >= 0 for r in runs)
