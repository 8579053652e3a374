"""The CLI's words for the options core's messages name (issue 41): the flag, in the error line,
the notes on stderr and the JSON's notes (``cli.words``); the same refusal the Python API words
with its keyword (``tests/core/test_options.py``) and the app with its control
(``tests/app/test_app_option_words.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from option_words import APP, CLI, PYTHON, REFUSED, partial_credit_csv, two_runs

from benchuq.cli.main import main

KEEP_BOTH = "To keep both (the older shown as 'Qwen/Qwen2.5-1.5B (2)'), load with --runs all."


def test_the_error_names_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "partial.csv"
    path.write_bytes(partial_credit_csv())
    code = main(["leaderboard", str(path), "--statistic", "pass@2", "--reps", "100", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and REFUSED in err and CLI in err
    assert PYTHON not in err and APP not in err and "`" not in err and "Traceback" not in err


def test_notes_on_stderr_and_in_json_name_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for name, data in two_runs():
        paths.append(tmp_path / name)
        paths[-1].write_bytes(data)
    assert main(["leaderboard", *map(str, paths), "--reps", "100", "--json", "--verbose"]) == 0
    out, err = capsys.readouterr()
    assert KEEP_BOTH in err and "`" not in err
    (note,) = [n for n in json.loads(out)["notes"] if "two runs" in n]
    assert note.endswith(KEEP_BOTH)
    assert main(["leaderboard", *map(str, paths), "--reps", "100", "--runs", "all"]) == 0
    assert "Qwen/Qwen2.5-1.5B (2)" in capsys.readouterr().out  # the flag named does that
