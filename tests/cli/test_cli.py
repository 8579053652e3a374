"""The CLI contract: subcommands, flags, JSON keys, readable tables and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchuq.cli.main import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_leaderboard_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "leaderboard", "sample:vtab1k", "--reps", "500", "--seed", "3")
    assert {"method", "level", "reps", "seed", "rows"} <= out.keys()
    assert out["level"] == 0.834 and out["reps"] == 500 and out["seed"] == 3
    groups = {r["group"] for r in out["rows"]}
    assert groups == {"overall", "natural", "specialized", "structured"}
    for row in out["rows"]:
        assert {"model", "group", "estimate", "low", "high"} <= row.keys()
        assert 0 <= row["low"] <= row["estimate"] <= row["high"] <= 1
    assert len(out["rows"]) == 16 * 4


def test_leaderboard_same_seed_same_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    a = run_json(capsys, "leaderboard", "sample:toy", "--reps", "300", "--seed", "1")
    b = run_json(capsys, "leaderboard", "sample:toy", "--reps", "300", "--seed", "1")
    c = run_json(capsys, "leaderboard", "sample:toy", "--reps", "300", "--seed", "2")
    assert a["rows"] == b["rows"] and a["rows"] != c["rows"]


def test_leaderboard_normalize_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "leaderboard", "sample:vtab1k", "--reps", "200", "--normalize")
    assert out["normalized"] is True
    assert all(-1e-12 <= r["estimate"] <= 1 + 1e-12 for r in out["rows"])
    assert main(["leaderboard", "sample:toy", "--reps", "200"]) == 0
    text = capsys.readouterr().out
    assert "[overall]" in text and "estimate" in text


def test_compare_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys, "compare", "sample:toy", "--models", "B", "A", "--reps", "2000", "--seed", "0"
    )
    assert out["level"] == 0.95 and out["correction"] == "maxt"  # the default since #13
    (row,) = out["rows"]
    assert (row["a"], row["b"]) == ("B", "A")
    # B - A = (115 - 100) / 200 / 3 = 0.025 in the overall mean over three tasks.
    assert row["estimate"] == pytest.approx(0.025, abs=1e-12)
    assert row["low"] < row["estimate"] < row["high"]
    assert 0 <= row["p_value"] <= 1


def test_compare_bonferroni_wider_than_none(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["compare", "sample:vtab1k", "--reps", "1000", "--models"]
    models = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]
    none = run_json(capsys, *base, *models, "--correction", "none")["rows"]
    bonf = run_json(capsys, *base, *models, "--correction", "bonferroni")["rows"]
    assert len(none) == len(bonf) == 3
    for a, b in zip(none, bonf, strict=True):
        assert b["high"] - b["low"] >= a["high"] - a["low"]


def test_ranks_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "ranks", "sample:vtab1k", "--reps", "300")
    methods = {r["method"] for r in out["rows"]}
    assert methods == {
        "mean",
        "geometric_mean",
        "average_rank",
        "average_rank_noise",
        "average_rank_bins",
    }
    probs = out["rank_probabilities"]
    assert len(probs) == 16
    for p in probs.values():
        assert len(p) == 16 and sum(p) == pytest.approx(1.0)
    for r in out["rows"]:
        # The mean rank may lie outside a percentile interval of a skewed rank distribution.
        assert 1 <= r["low"] <= r["high"] <= 16 and 1 <= r["mean_rank"] <= 16


@pytest.mark.parametrize(
    "argv",
    [
        ["leaderboard", "sample:nope"],
        ["leaderboard", "does/not/exist.csv"],
        ["leaderboard", "sample:toy", "--level", "95"],
        ["leaderboard", "sample:toy", "--reps", "5"],
        ["compare", "sample:toy", "--models", "A", "Z"],
        ["compare", "sample:toy", "--models", "A", "A"],
    ],
)
def test_errors_exit_2_without_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchuq {argv[0]}: error:") and "Traceback" not in err


def test_bad_file_names_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "results.csv"
    bad.write_text("model,task,n,correct\nA,x,10,3\nB,x,ten,4\n")
    assert main(["leaderboard", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "results.csv" in err and "Traceback" not in err


def test_console_script_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchuq", "leaderboard", "sample:toy", "--reps", "200", "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["rows"]
