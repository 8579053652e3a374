"""Every leaderboard-like JSON carries the same item counts (README, JSON contracts): per-model
rows (leaderboard, ranks, bayes) ``items``, ``few_items``, ``n_items``, ``n_answers``; pair rows
(compare) ``items_a``, ``items_b``, ``n_items_a``, ``n_items_b``, ``n_answers_a``,
``n_answers_b``, ``few_items``, ``too_few_items``. Before, the small-sample flag said
``items``/``few_items`` and only the leaderboard gave ``n_items``/``n_answers`` (epochs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchuq.cli.main import main

FIXTURES = Path(__file__).parents[1] / "fixtures"
EVAL = FIXTURES / "real" / "inspect_ai" / "eval_zip"
# two real .eval logs: one model with 2 samples x 2 epochs, one with 1 sample
LOGS = [str(EVAL / "log_streaming.eval"), str(EVAL / "log_read_sample.eval")]
MODEL_KEYS = {"items", "few_items", "n_items", "n_answers"}
PAIR_KEYS = {"items_a", "items_b", "n_items_a", "n_items_b", "n_answers_a", "n_answers_b"}
PAIR_KEYS |= {"few_items", "too_few_items"}


def rows(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["rows"]


@pytest.mark.parametrize("command", ["leaderboard", "ranks"])
def test_model_rows_count_items_and_answers_alike(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    got = rows(capsys, command, *LOGS, "--reps", "200")
    counts = {r["model"]: {k: r[k] for k in MODEL_KEYS} for r in got}
    assert counts == {
        "azureai/Meta-Llama-3-1-405B-Instruct-jqf": {
            "items": 2, "few_items": True, "n_items": 2, "n_answers": 4},
        "ollama/gemma3": {"items": 1, "few_items": True, "n_items": 1, "n_answers": 1},
    }  # fmt: skip


def test_pair_rows_count_items_and_answers_of_both_models(
    capsys: pytest.CaptureFixture[str],
) -> None:
    models = ["azureai/Meta-Llama-3-1-405B-Instruct-jqf", "ollama/gemma3"]
    (row,) = rows(capsys, "compare", *LOGS, "--models", *models, "--reps", "200")
    assert {k: row[k] for k in PAIR_KEYS} == {
        "items_a": 2, "items_b": 1, "n_items_a": 2, "n_items_b": 1, "n_answers_a": 4,
        "n_answers_b": 1, "few_items": True, "too_few_items": True,
    }  # fmt: skip


def test_bayes_rows_count_the_items_of_counts_data(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bayes", "sample:toy", "--draws", "100", "--warmup", "50", "--chains", "2"]
    for r in rows(capsys, *argv):
        assert r["items"] == r["n_items"] == r["n_answers"] > 30 and not r["few_items"]


# the recorded JSON of the commands with per-model or per-pair score rows
SNAPSHOT_KEYS = {"leaderboard": MODEL_KEYS, "ranks": MODEL_KEYS, "bayes": MODEL_KEYS}
SNAPSHOT_KEYS |= {"compare": PAIR_KEYS}
SNAPSHOTS = [p for p in sorted((FIXTURES / "cli_json").glob("*.json"))
             if p.stem.split("_")[0] in SNAPSHOT_KEYS]  # fmt: skip


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=[p.stem for p in SNAPSHOTS])
def test_every_recorded_leaderboard_like_json_carries_the_set(snapshot: Path) -> None:
    keys = SNAPSHOT_KEYS[snapshot.stem.split("_")[0]]
    for row in json.loads(snapshot.read_text())["rows"]:
        assert keys <= set(row), (snapshot.name, keys - set(row))
