"""The Python API's words (issue 41): the results' reprs, HTML reprs and figures (titles, axes,
hover texts, subtitles) show none of the jargon of ``tests/words.py``; the data in ``to_frame()``
and the JSON keep their technical names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from words import jargon

import benchuq as bq


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key != "template":  # plotly's styles
                yield from _strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _strings(value)
    elif isinstance(obj, str):
        yield obj


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    bench = bq.load("sample:vtab1k")
    draws = bq.bootstrap(bench, reps=200, seed=0)
    return {
        "leaderboard": bq.leaderboard(draws),
        "weighted leaderboard": bq.leaderboard(draws, group=[0.5, 0.25, 0.25]),
        "compare": bq.compare(draws, models=list(bench.models[:3])),
        "ranks": bq.ranks(draws),
        "weights": bq.weights(draws),
        "arena": bq.arena(bq.load_battles("sample:mt_bench_battles")),
        "power": bq.power(bench),
    }


@pytest.mark.parametrize(
    "name",
    ["leaderboard", "weighted leaderboard", "compare", "ranks", "weights", "arena", "power"],
)
def test_reprs_and_figures_show_no_jargon(results: dict[str, Any], name: str) -> None:
    result = results[name]
    texts = [repr(result), result._repr_html_()]
    texts += list(_strings(json.loads(result.figure().to_json())))
    assert not jargon(texts), jargon(texts)


def test_the_technical_names_stay_in_the_data(results: dict[str, Any]) -> None:
    """JSON keys and values are a contract: the method and the arena's rank keep their names."""
    assert results["leaderboard"].payload()["method"].startswith("task-level confidence draws")
    assert "rank_ub" in results["arena"].to_frame().columns
