"""``benchuq leaderboard``'s per-task table in the harness's terms (issue 30): lm-eval's columns
(version, filter, n-shot, metric) for lm-eval files, HELM's run fields for HELM, none for tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchuq.cli.main import main

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["leaderboard", *argv, "--reps", "200"]) == 0
    return capsys.readouterr().out


def test_lm_eval_columns(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, str(REAL / "lm_eval" / "results_v04"))
    table = out.split("[per task, as the harness lists it] score with 83.4% intervals\n")[1]
    header = table.splitlines()[0].split()
    assert header == [
        "task",
        "version",
        "filter",
        "n-shot",
        "metric",
        "model",
        "value",
        "low",
        "high",
        "lm-eval",  # lm-eval's own stderr of the value (issue 41), next to benchuq's interval
        "stderr",
    ]
    row = next(line.split() for line in table.splitlines() if line.split()[:1] == ["arc_easy"])
    assert row[1:5] == ["1.0", "none", "0", "acc"] and row[5] == "Qwen/Qwen2.5-1.5B"
    low, value, high = float(row[7]), float(row[6]), float(row[8])
    assert low < value < high and abs(value - 0.7542) < 1e-3  # lm-eval's own acc for the file
    assert float(row[9]) == pytest.approx(0.00883, abs=1e-4)  # its acc_stderr, as written


def test_helm_run_fields(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, str(REAL / "helm"))
    table = out.split("[per task, as the harness lists it]")[1]
    assert "scenario" in table and "run arguments" in table and "in-context examples" in table
    assert "subject=all,method=multiple_choice_joint" in table and "exact_match" in table


def test_a_table_has_no_harness_columns(capsys: pytest.CaptureFixture[str]) -> None:
    assert "as the harness lists it" not in _out(capsys, "sample:toy")
