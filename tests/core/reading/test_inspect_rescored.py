"""A re-scored inspect_ai log (issue 41): the header names a scorer its samples no longer carry.
The reader uses the scorer the samples carry, says so in a note, and names what they carry when
asked for one they do not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_logs import inspect_log, log_bytes

from benchuq.core.data import DataError
from benchuq.core.reading.loaders import load_files, read_files

VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def rescored(scorers: tuple[str, ...] = ("match",), header: str = "model_graded_qa") -> dict:
    """A log whose samples carry ``scorers`` while its header names only ``header``."""
    log = inspect_log(6, seed=3, scorers=scorers)
    log["results"] = {"total_samples": 6, "scores": [{"name": header, "scorer": header}]}
    return log


def test_the_scorer_the_samples_carry_is_used_with_a_note() -> None:
    log = rescored()
    loaded = read_files([("log.json", log_bytes(log))])
    (task,) = loaded.bench.item_tasks
    want = [VALUES[s["scores"]["match"]["value"]] for s in log["samples"]]
    assert task.scores[0].tolist() == want
    notes = " ".join(loaded.bench.notes)
    assert "'model_graded_qa'" in notes and "re-scored" in notes and "'match'" in notes
    assert loaded.meta.metrics == ("match",)  # what the app's Metric picker lists
    assert loaded.meta.runs[0].metric == "match"


def test_several_carried_scorers_are_named() -> None:
    loaded = read_files([("log.json", log_bytes(rescored(("match", "includes"))))])
    notes = " ".join(loaded.bench.notes)
    assert "'match'" in notes and "'includes'" in notes
    assert "scorer 'match' used; the log also has includes" in notes
    assert set(loaded.meta.metrics) == {"match", "includes"}


def test_asking_for_the_header_scorer_names_what_the_samples_carry() -> None:
    with pytest.raises(DataError) as err:
        load_files([("log.json", log_bytes(rescored()))], metric="model_graded_qa")
    text = str(err.value)
    assert "has no score of scorer 'model_graded_qa'" in text and "'match'" in text
    assert '`metric="SCORER"`' in text and "--metric" not in text  # Python's words


def test_an_unknown_scorer_lists_the_carried_ones() -> None:
    with pytest.raises(DataError) as err:
        load_files([("log.json", log_bytes(rescored()))], metric="nope")
    assert "its samples carry: match" in str(err.value)


def test_cli_loads_a_rescored_log(tmp_path: Path) -> None:
    path = tmp_path / "rescored.json"
    path.write_bytes(json.dumps(rescored()).encode())
    run = subprocess.run(
        [sys.executable, "-m", "benchuq", "leaderboard", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    assert any("re-scored" in n for n in payload["notes"])
