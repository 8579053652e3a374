"""``benchuq power``: flags, JSON keys, the no-data form and errors (exit code 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from benchuq.cli.main import main

ALPACA3 = ["claude-2", "claude-2.1", "gpt-3.5-turbo-1106"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["power", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_alpaca_eval_rows_and_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "sample:alpaca_eval", "--models", *ALPACA3, "--delta", "0.01")
    assert {"level", "power", "pairs", "rows", "correction", "critical_value"} <= out.keys()
    assert out["level"] == 0.95 and out["power"] == 0.8 and out["pairs"] == 3
    assert out["correction"] == "maxt" and out["source"] == "paired item scores"
    for row in out["rows"]:
        assert {"a", "b", "n", "mde", "n_required"} <= row.keys()
        assert row["n"] == 805 and 0.02 < row["mde"] < 0.05
        assert row["n_required"] > 805 and row["sentence"].startswith(f"{row['a']} vs {row['b']}")
        assert "items to detect 1 point at 80% power" in row["sentence"]
    assert main(["power", "sample:alpaca_eval", "--models", *ALPACA3[:2]]) == 0
    text = capsys.readouterr().out
    assert "claude-2 vs claude-2.1: detectable at" in text and "1 comparison(s)" in text


def test_family_size_and_corrections(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["sample:mmlu", "--models", "llama-30b", "llama-13b"]
    one = run_json(capsys, *base)
    assert one["pairs"] == 1 and "n_required" not in one["rows"][0]
    assert "assumed rho = 0" in one["source"] and one["rho_assumed"] == 0
    bonf = run_json(capsys, *base, "--pairs", "10", "--correction", "bonferroni")
    maxt = run_json(capsys, *base, "--pairs", "10")
    assert bonf["pairs"] == maxt["pairs"] == 10
    assert bonf["critical_value"] == pytest.approx(stats.norm.ppf(1 - 0.05 / 20))
    assert one["critical_value"] < maxt["critical_value"] < bonf["critical_value"]
    ratio = bonf["rows"][0]["mde"] / one["rows"][0]["mde"]
    assert ratio == pytest.approx((bonf["critical_value"] + 0.8416) / (1.96 + 0.8416), rel=1e-3)
    rho = run_json(capsys, *base, "--corr", "0.5")
    assert rho["rows"][0]["mde"] < one["rows"][0]["mde"]
    every = run_json(capsys, "sample:vtab1k")
    assert every["pairs"] == 16 * 15 // 2 == len(every["rows"])


def test_no_data_form(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "--accuracy", "0.7", "0.72", "--corr", "0.5", "--items", "800")
    (row,) = out["rows"]
    assert out["data"] == "assumptions" and row["n"] == 800
    var = 0.21 + 0.2016 - 2 * 0.5 * np.sqrt(0.21 * 0.2016)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert row["n_required"] == np.ceil(z**2 * var / 0.02**2)
    assert row["mde"] == pytest.approx(z * np.sqrt(var / 800))
    more = run_json(
        capsys,
        *("--accuracy", "0.7", "0.72", "--items", "200", "--n-tasks", "4"),
        *("--cluster-size", "5", "--icc", "0.2", "--models", "A", "B", "--delta", "0.03"),
    )
    (row,) = more["rows"]
    assert row["n"] == 800 and row["deff"] == pytest.approx(1.8) and row["a"] == "A"
    assert row["delta"] == 0.03


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["sample:toy", "--pairs", "0"], "--pairs"),
        (["sample:toy", "--pairs", "some"], "--pairs"),
        (["sample:toy", "--power", "0.3"], "--power"),
        (["sample:toy", "--level", "95"], "--level"),
        (["sample:toy", "--delta", "2"], "0.01 for 1 point"),
        (["sample:toy", "--delta", "-0.01"], "> 0"),
        (["sample:toy", "--models", "A", "Z"], "not in the data"),
        (["sample:toy", "--icc", "0.1"], "planning without data"),
        (["sample:toy", "--group", "nope"], "unknown group"),
        (["sample:toy", "--accuracy", "0.7", "0.8", "--items", "9"], "not both"),
        (["--accuracy", "0.7", "0.8"], "--items"),
        (["--accuracy", "0.5", "0.9", "--corr", "0.9", "--items", "100"], "at most 0.33"),
        (["--accuracy", "70", "72", "--items", "100"], "0.7 for 70%"),
        (["--accuracy", "1", "0.5", "--items", "10"], "between 0 and 1, got 1, 0.5."),
        ([], "give DATA"),
    ],
)
def test_errors_exit_2_without_traceback(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["power", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchuq power: error:") and "Traceback" not in err
    assert says in err


def test_one_model_says_power_needs_two(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Data with one model: a power plan needs two, and the fix (a second model or assumed
    accuracies) is named; it said 'pairs must name two different models of ['A']; got []'."""
    path = tmp_path / "one.csv"
    path.write_text("model,task,item,score\n" + "".join(f"A,t,{i},{i % 2}\n" for i in range(8)))
    assert main(["power", str(path)]) == 2
    err = capsys.readouterr().err
    assert "two or more models; the data hold only 'A'" in err and "got []" not in err
    assert "How to fix: add a second model's results" in err and "--accuracy" in err


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ([], "score: overall = the mean over tasks;"),
        (["--group", "natural"], "score: natural = the mean of its tasks;"),
    ],
)
def test_the_header_names_the_aggregate_and_the_critical_value(
    capsys: pytest.CaptureFixture[str], flags: list[str], words: str
) -> None:
    """The header said "score overall" (which aggregate?) and "(c = 3.421)" (what is c?); the
    audit of 2026-12-08."""
    assert main(["power", "sample:vtab1k", "--models", "Rotation", "VAE", *flags]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert words in header and "(a difference must reach 1.960 standard errors)" in header
    assert "c = " not in header
