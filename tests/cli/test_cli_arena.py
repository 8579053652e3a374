"""``benchuq arena``: the JSON contract, the readable table, style control and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchuq.cli.main import main
from benchuq.core.analyses.arena_synthetic import simulate_battles


def _write(tmp_path: Path, **kw: float) -> str:
    bt = simulate_battles(np.array([0.6, 0.2, 0.0, -0.8]), n=3000, seed=1, **kw)  # type: ignore[arg-type]
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    import pandas as pd

    frame = pd.DataFrame({"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner})
    for k, v in bt.covariates.items():
        frame[k] = v
    path = tmp_path / "battles.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_json_contract(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["arena", _write(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"rows", "scale", "anchor", "method", "level", "ties"} <= set(out)
    assert out["scale"] == 400 and out["anchor"] is None and out["method"] == "sandwich"
    assert out["level"] == 0.95 and out["ties"] == "half"
    for row in out["rows"]:
        assert set(row) == {
            "model", "rating", "low", "high", "rank_ub", "rank_low", "rank_high", "battles",
            "win_rate",
        }  # fmt: skip
        assert row["low"] < row["rating"] < row["high"]
        assert row["rank_ub"] >= 1 and row["rank_low"] <= row["rank_high"]
    assert out["rows"][0]["model"] == "m00"
    assert np.mean([r["rating"] for r in out["rows"]]) == pytest.approx(1000)


def test_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, style=1.0, style_link=1.0)
    argv = ["arena", path, "--anchor", "m03", "--ties", "davidson", "--interval", "bootstrap"]
    assert main([*argv, "--reps", "200", "--level", "0.9", "--control", "length", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["anchor"] == "m03" and out["ties"] == "davidson" and out["method"] == "bootstrap"
    assert out["level"] == 0.9 and "length" in out["controls"] and len(out["uncontrolled"]) == 4
    row = next(r for r in out["rows"] if r["model"] == "m03")
    assert row["rating"] == row["low"] == row["high"] == 1000


def test_table_and_sentence(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["arena", _write(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert (
        "  rank  rank set" in text
        and "Rank = 1 + the number of models" in text
        and "with 95% confidence" in text
        and "mean = 1000" in text
    )


def test_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["arena", "sample:vtab1k"]) == 2
    assert "per-task scores, not battles" in capsys.readouterr().err
    assert main(["arena", _write(tmp_path), "--anchor", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["arena", _write(tmp_path), "--control", "verbosity"]) == 2
    assert "verbosity" in capsys.readouterr().err
    assert main(["leaderboard", _write(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pairwise battles" in err and "benchuq arena" in err


@pytest.mark.parametrize(
    ("winners", "extra", "says"),
    [
        (["tie"] * 3, [], "every one of the 3 battle(s) is a tie"),
        (["model_a"] + ["tie"] * 9, ["--interval", "bootstrap", "--reps", "100"], "drew only"),
    ],
)
def test_davidson_all_ties_exit_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    winners: list[str],
    extra: list[str],
    says: str,
) -> None:
    """Battles (or a bootstrap replicate of them) that are all ties leave Davidson's tie rate
    without a finite estimate: exit 2 naming the column and a fix, not a LinAlgError."""
    path = tmp_path / "ties.csv"
    path.write_text("model_a,model_b,winner\n" + "".join(f"A,B,{w}\n" for w in winners))
    assert main(["arena", str(path), "--ties", "davidson", *extra]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and says in err
    assert "column 'winner'" in err and "How to fix: use" in err
    assert main(["arena", str(path), "--ties", "half", "--json"]) == 0
