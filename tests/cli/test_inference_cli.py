"""The CLI side of #13: compare's max-T default and p-value resolution, ranks' statistic, position,
--normalize, --weights and rank sets, leaderboard's ≈ leader column."""

from __future__ import annotations

import json

import pytest

from benchuq.cli.main import main

TOP3 = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_compare_defaults_to_maxt_and_says_when_R_cannot_resolve(capsys) -> None:
    argv = ["compare", "sample:vtab1k", "--reps", "500", "--models", *TOP3, "WAE-GAN"]
    out = json.loads(run(capsys, *argv, "--json"))
    assert out["correction"] == "maxt" and out["simultaneous"] is True
    assert out["p_resolution"] == pytest.approx(1 / 501)
    last = [r for r in out["rows"] if r["b"] == "WAE-GAN"]
    assert all(r["p_below_resolution"] and r["p_value"] == pytest.approx(1 / 501) for r in last)
    assert all(r["p_stepdown"] <= r["p_value"] + 1e-12 for r in out["rows"])
    text = run(capsys, *argv)
    assert "simultaneous 0.95 intervals (all pairs together)" in text and "< 0.002" in text
    assert "cannot resolve a smaller p-value" in text


def test_ranks_normalize_weights_and_rank_sets(capsys) -> None:
    base = ["ranks", "sample:vtab1k", "--reps", "300"]
    plain = json.loads(run(capsys, *base, "--json"))
    rows = {(r["model"], r["method"]): r for r in plain["rows"]}
    sup = rows[("Sup-Rotation-100%", "average_rank")]
    assert sup["statistic"] == "average task rank" and 3.3 < sup["mean_rank"] < 4.3
    assert sup["position"] < 2 and sup["position_low"] == 1
    mean = rows[("Sup-Rotation-100%", "mean")]
    assert mean["mean_rank"] == mean["position"]
    sets = plain["rank_sets"]
    assert sets["score"] == "overall" and set(sets["top"]["1"]) <= set(TOP3[:2])
    out = json.loads(run(capsys, *base, "--normalize", "--weights", "0.025,0.025,0.95", "--json"))
    assert out["normalization"] == "minmax" and out["weights"] == [0.025, 0.025, 0.95]
    assert out["score"].startswith("weighted") and out["rank_sets"]["score"] == out["score"]
    assert out["rank_probabilities"] != plain["rank_probabilities"]
    text = run(capsys, *base)
    assert "Rank confidence sets" in text and "with 95% confidence" in text
    assert main([*base, "--weights", "0.5,0.5"]) == 2
    assert "--weights needs 3 numbers" in capsys.readouterr().err


def test_leaderboard_marks_the_models_tied_with_the_leader(capsys) -> None:
    out = json.loads(run(capsys, "leaderboard", "sample:vtab1k", "--reps", "300", "--json"))
    overall = [r for r in out["rows"] if r["group"] == "overall"]
    best = max(overall, key=lambda r: r["estimate"])
    assert best["tied_with_leader"] is True
    assert out["leader_test_level"] == pytest.approx(0.95, abs=0.001)
    text = run(capsys, "leaderboard", "sample:vtab1k", "--reps", "300")
    assert "≈ leader" in text and "independent estimates with similar standard errors" in text
    paper = json.loads(
        run(
            capsys,
            "leaderboard",
            "sample:vtab1k",
            "--reps",
            "300",
            "--normalize",
            "--normalize-mode",
            "paper",
            "--json",
        )
    )
    assert paper["normalization"] == "paper"
    assert any("depends on R" in note for note in paper["notes"])
