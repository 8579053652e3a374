"""``benchuq eb``: JSON contract, unit tables, options and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from ebci_cases import TV3, TV3_ROWS, TV4

from benchuq.cli.main import main

ROW_KEYS = {"unit", "estimate", "se", "eb", "low", "high", "w", "cva"}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["eb", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def write_table(path: Path, z: np.ndarray, se: np.ndarray) -> str:
    rows = [
        f"g{i + 1},{float(a)!r},{float(b)!r}" for i, (a, b) in enumerate(zip(z, se, strict=True))
    ]
    lines = ["unit,estimate,se", *rows]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_json_contract_on_mmlu(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "sample:mmlu")
    assert set(out) == {"mu2", "kappa", "alpha", "level", "fs_correction", "weights", "rows"}
    assert out["alpha"] == 0.05 and out["fs_correction"] == "PMT" and out["weights"] == "equal"
    assert len(out["rows"]) == 20 * 57
    for row in out["rows"][:50]:
        assert set(row) == ROW_KEYS
        assert row["low"] <= row["eb"] <= row["high"] and 0 < row["w"] < 1
    assert out["mu2"] > 0 and out["kappa"] >= 1


def test_unit_table_reproduces_tv3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    z, se, _ = TV3
    path = write_table(tmp_path / "units.csv", z, se)
    out = run_json(capsys, path, "--no-crossfit")
    assert out["mu2"] == pytest.approx(0.0227800493885, abs=1e-12)
    for g, _m2, w, est, _cv, half, _cv_inf, _half_inf in TV3_ROWS:
        row = out["rows"][g - 1]
        assert row["unit"] == f"g{g}" and row["w"] == pytest.approx(w, abs=1e-9)
        assert row["eb"] == pytest.approx(est, abs=1e-9)
        assert row["high"] - row["eb"] == pytest.approx(half, abs=1e-6)
    inf = run_json(capsys, path, "--no-crossfit", "--kappa", "inf")
    assert inf["kappa"] is None  # JSON has no infinity: null
    assert inf["rows"][0]["high"] - inf["rows"][0]["eb"] == pytest.approx(TV3_ROWS[0][7], abs=1e-6)
    crossfit = run_json(capsys, path)
    assert crossfit["rows"][0]["eb"] != pytest.approx(out["rows"][0]["eb"], abs=1e-9)


def test_precision_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    z, se, _ = TV3
    path = write_table(tmp_path / "units.csv", z, se)
    equal = run_json(capsys, path, "--no-crossfit")
    precision = run_json(capsys, path, "--no-crossfit", "--weights", "precision")
    assert precision["weights"] == "precision"
    f = float(np.sum(z / se**2) / np.sum(1 / se**2))  # the f of an intercept-only WLS
    row = precision["rows"][0]
    assert row["eb"] == pytest.approx(f + row["w"] * (z[0] - f), abs=1e-12)
    assert precision["mu2"] != pytest.approx(equal["mu2"], rel=1e-3)
    zero = write_table(tmp_path / "zero.csv", z, np.r_[0.0, se[1:]])
    assert main(["eb", zero, "--weights", "precision"]) == 2
    assert "standard error > 0" in capsys.readouterr().err


def test_fs_corrections_on_tv4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    z, se, _ = TV4
    path = write_table(tmp_path / "tv4.csv", z, se)
    fplib = run_json(capsys, path, "--no-crossfit", "--fs-correction", "FPLIB")
    assert fplib["mu2"] == pytest.approx(0.00101753993597, abs=1e-13)
    assert fplib["rows"][0]["cva"] == pytest.approx(6.4184955669, abs=1e-6)
    none = run_json(capsys, path, "--no-crossfit", "--fs-correction", "none")
    assert none["mu2"] == 0 and none["rows"][0]["low"] is None and none["rows"][0]["cva"] is None
    assert main(["eb", path, "--no-crossfit", "--fs-correction", "none"]) == 0
    assert "undefined" in capsys.readouterr().out


def test_text_output_and_features(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eb", "sample:mmlu", "--features", "intercept", "model", "category"]) == 0
    text = capsys.readouterr().out
    assert "intercept, model, category (cross-fitted)" in text
    assert "on average over units" in text
    # every column and moment printed is said in words (the audit of 2026-12-08)
    header = next(line for line in text.splitlines() if line.startswith("unit "))
    legend = next(line for line in text.splitlines() if line.startswith("estimate: "))
    for column in header.split()[1:]:
        assert f"{column}: " in legend or f"{column}, " in legend, column
    assert "A (mu2): " in legend and "kappa: " in legend
    assert main(["eb", "sample:alpaca_eval", "--group-by", "subgroup", "--alpha", "0.1"]) == 0
    assert "koala" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sample:mmlu", "--alpha", "5"], "--alpha 5.0 must be between 0 and 1"),
        (["sample:mmlu", "--level", "95"], "--level 95.0 must be between 0 and 1"),
        (["sample:mmlu", "--level", "0.9", "--alpha", "0.1"], "not both"),
        (["sample:mmlu", "--kappa", "0.5"], "kappa 0.5 must be >= 1"),
        (["sample:mmlu", "--features", "colour"], "unknown feature"),
        (["sample:mmlu", "--group-by", "subgroup"], "no item-level 'subgroup' column"),
        (["sample:nope"], "nope"),
    ],
)
def test_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["eb", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchuq eb: error:") and message in err


def test_level_and_the_deprecated_alpha_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--alpha`` still works (with a note on stderr) and means ``--level 1 - alpha``."""
    path = write_table(tmp_path / "t.csv", *TV3[:2])
    by_level = run_json(capsys, path, "--level", "0.9")
    assert main(["eb", path, "--alpha", "0.1", "--json"]) == 0
    captured = capsys.readouterr()
    assert "--alpha is deprecated; use --level 0.9" in captured.err
    by_alpha = json.loads(captured.out)
    assert by_alpha == by_level
    assert (by_level["level"], by_level["alpha"]) == (0.9, 0.1)
    assert by_level["rows"] != run_json(capsys, path)["rows"]  # the default level is 0.95


def test_bad_unit_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("unit,estimate,se\na,0.5,0.1\nb,high,0.1\n")
    assert main(["eb", str(path)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 2" in err and "column 'estimate'" in err
    assert main(["eb", str(path), "--group-by", "task"]) == 2
    assert "--group-by does not apply" in capsys.readouterr().err


def test_only_constant_features_fit_the_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--features x`` with x the same for every unit is the intercept-only fit (the same
    numbers as the default features); it stopped with statsmodels' zero-size ValueError."""
    path = tmp_path / "units.csv"
    path.write_text("unit,estimate,se,x\nu1,0.5,0.1,1\nu2,0.6,0.1,1\nu3,0.4,0.1,1\n")
    assert main(["eb", str(path), "--features", "x", "--json"]) == 0
    constant = json.loads(capsys.readouterr().out)
    assert main(["eb", str(path), "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert constant["rows"] == default["rows"] and constant["mu2"] == default["mu2"]
