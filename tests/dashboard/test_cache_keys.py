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


def test_the_compare_pages_cached_calls_are_the_api_summaries_once_per_draws(
    monkeypatch,
) -> None:
    """Compare's differences and P(row beats column) are cached by the draws' key (a rerun
    with the same draws does not recompute them) and are ``benchuq.api.summaries``' numbers."""
    import numpy as np

    from benchuq.api import summaries
    from benchuq.dashboard.compare import cached as compare

    calls = []
    real = summaries.pairwise_differences
    monkeypatch.setattr(
        compare.summaries, "pairwise_differences", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    bench = load_sample("vtab1k")
    draws = cache.get_draws(bench, "bootstrap", 200, 11, "raw")
    models = bench.models[:3]
    weights = tuple(np.full(len(bench.category_names), 1 / len(bench.category_names)))
    first = compare.differences(draws, models, 0.95, "maxt", weights)
    again = compare.differences(draws, models, 0.95, "maxt", weights)
    assert len(calls) == 1 and again.equals(first)
    shown = draws.select_models(list(models))
    direct = real(shown, list(models), level=0.95, correction="maxt", group=np.asarray(weights))
    assert first.equals(direct)
    wins = compare.win_probabilities(draws, models, "overall")
    assert np.array_equal(wins, summaries.win_probabilities(shown, group="overall"), equal_nan=True)


def test_the_weights_pages_lead_map_is_cached_and_unchanged() -> None:
    """The Task weights page's map and its numbers at the sidebar's weights come from cached
    calls keyed by the draws (or the data), equal to the summaries computed directly."""
    import numpy as np

    from benchuq.api import summaries
    from benchuq.dashboard.weights import cached as weights

    bench = load_sample("vtab1k")
    draws = cache.get_draws(bench, "bootstrap", 200, 12, "raw")
    models = bench.models[:4]
    mapping = tuple((c, c) for c in bench.category_names)
    for source in (draws, bench):
        moments = weights.moments(source, models, mapping)
        dm = weights.lead_map(source, models, mapping, 2.0, 0.0, 20, moments.paired)
        assert weights.lead_map(source, models, mapping, 2.0, 0.0, 20, moments.paired) is dm
        direct = summaries.dominance_map(
            moments, z=2.0, rho=0.0, resolution=20, use_pairing=moments.paired
        )
        assert np.array_equal(dm.winner, direct.winner)
        assert np.array_equal(dm.difference, direct.difference, equal_nan=True)
        at = (0.5, 0.25, 0.25)
        ws, here, best = weights.at_weights(
            source, draws, models, mapping, at, 2.0, 0.0, moments.paired, 0.9
        )
        expected = summaries.weighted_scores(moments, np.asarray(at), level=0.9)
        assert np.array_equal(ws.estimate, expected.estimate)
        assert best.probability.shape == (1, len(models))
        lead = summaries.dominance_map(
            moments, z=2.0, rho=0.0, weights=np.asarray(at)[None], use_pairing=moments.paired
        )
        assert np.array_equal(here.winner, lead.winner)
