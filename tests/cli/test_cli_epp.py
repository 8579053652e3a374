"""``benchuq epp``: the JSON contract, the readable table and exit codes (METHODS 8)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.special import expit

from benchuq.cli.main import main
from benchuq.core.summaries.ordering import rounded


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["epp", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_contract_on_vtab(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "sample:vtab1k")
    assert set(out) == {
        "rows",
        "win_probability",
        "wald_p",
        "deviance",
        "df",
        "p_value",
        "standardized_deviance",
        "separated",
    }
    assert len(out["rows"]) == 16
    for row in out["rows"]:
        assert set(row) == {"model", "epp", "se", "low", "high", "p_beats_average"}
        assert row["low"] < row["epp"] < row["high"] and row["se"] > 0
        # an average model has EPP 0 (the scores sum to 0): P(beats it) = invlogit(epp)
        assert row["p_beats_average"] == pytest.approx(expit(row["epp"]), rel=1e-12)
    epps = [r["epp"] for r in out["rows"]]
    shown = rounded(
        epps
    )  # best first; equal to 12 significant digits: by name (core.summaries.ordering)
    assert (shown[:-1] >= shown[1:]).all()
    assert sum(epps) == pytest.approx(0.0, abs=1e-9)
    assert out["df"] == 16 * 15 // 2 - 15
    assert 0 <= out["p_value"] <= 1 and out["separated"] == []
    a, b = out["rows"][0]["model"], out["rows"][-1]["model"]
    p_ab = out["win_probability"][a][b]
    assert p_ab == pytest.approx(expit(out["rows"][0]["epp"] - out["rows"][-1]["epp"]))
    assert p_ab + out["win_probability"][b][a] == pytest.approx(1.0)
    assert out["wald_p"][a][b] == out["wald_p"][b][a] < 0.05
    assert a not in out["win_probability"][a]


def test_level_and_interval_flags(capsys: pytest.CaptureFixture[str]) -> None:
    wide = run_json(capsys, "sample:vtab1k", "--level", "0.99", "--interval", "glm")
    narrow = run_json(capsys, "sample:vtab1k", "--level", "0.5", "--interval", "glm")
    w = np.array([r["high"] - r["low"] for r in wide["rows"]])
    n = np.array([r["high"] - r["low"] for r in narrow["rows"]])
    assert np.all(w > n)
    boot = run_json(capsys, "sample:toy", "--interval", "bootstrap", "--reps", "200", "--seed", "3")
    again = run_json(
        capsys, "sample:toy", "--interval", "bootstrap", "--reps", "200", "--seed", "3"
    )
    assert boot == again


def test_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["epp", "sample:vtab1k"]) == 0
    text = capsys.readouterr().out
    assert "P(beats avg)" in text and "deviance" in text and "Sup-100%" in text
    assert main(["epp", "sample:toy"]) == 0
    assert "not defined" in capsys.readouterr().out


def test_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    assert main(["epp", "sample:vtab1k", "--level", "95"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err
    assert main(["epp", str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv" in capsys.readouterr().err
    assert main(["epp", "sample:vtab1k", "--rounds", "items"]) == 2
    err = capsys.readouterr().err
    assert "item-level" in err and "(--rounds tasks)" not in err  # tasks are the default
    assert "use --rounds tasks" in err and "rounds = tasks" not in err


def test_errors_name_the_flags_and_no_data_set_as_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    """One model: the error names the data set as a data set, not a file (it said "file 'one:
    1 model x 1 task'"), the audit of 2026-12-08."""
    path = tmp_path / "one.csv"
    path.write_text("model,task,category,n,correct\nA,t1,c,100,50\nA,t2,c,100,60\n")
    assert main(["epp", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "benchuq epp: error: data set 'one: 1 model x 2 tasks', column 'model': EPP needs at "
        "least two models.\n"
    ), err


@pytest.mark.parametrize(
    ("rounds", "hint"),
    [
        ("tasks", "choose GLM intervals (--interval glm), or use items as rounds (--rounds items)"),
        ("items", "choose GLM intervals (--interval glm)."),
    ],
)
def test_one_round_says_how_many_and_a_fix_that_applies(
    capsys: pytest.CaptureFixture[str], tmp_path, rounds: str, hint: str
) -> None:
    """One task of one item: round-robust intervals need two rounds; the message counts them
    and, with items already the rounds, no longer suggests using items as rounds."""
    path = tmp_path / "one.csv"
    path.write_text("model,task,item,score\nA,t,0,1\nB,t,0,0\n")
    assert main(["epp", str(path), "--rounds", rounds]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"these data give 1 (rounds = {rounds})" in err
    assert hint in err
    assert main(["epp", str(path), "--rounds", rounds, "--interval", "bootstrap"]) == 2
    err = capsys.readouterr().err
    assert "a bootstrap over rounds needs at least two rounds" in err and hint in err
    assert main(["epp", str(path), "--rounds", rounds, "--interval", "glm", "--json"]) == 0
