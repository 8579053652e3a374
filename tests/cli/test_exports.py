"""Tidy exports (issue 28): every table command writes CSV and Parquet with the JSON's rows as
rows and its settings (level, unit, method, ...) as columns and, in Parquet, as metadata."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from benchuq.cli.main import main

VTAB3 = ["Sup-Rotation-100%", "Sup-Exemplar-100%", "Sup-100%"]
EMB = Path(__file__).resolve().parents[2] / "sample_data" / "embeddings"

COMMANDS: dict[str, list[str]] = {
    "leaderboard": ["leaderboard", "sample:vtab1k", "--reps", "200", "--level", "0.9"],
    "compare": ["compare", "sample:vtab1k", "--reps", "200", "--models", *VTAB3],
    "ranks": ["ranks", "sample:toy", "--reps", "200"],
    "epp": ["epp", "sample:vtab1k"],
    "weights": ["weights", "sample:vtab1k", "--resolution", "6"],
    "eb": ["eb", "sample:mmlu", "--group-by", "category"],
    "power": ["power", "sample:vtab1k", "--delta", "0.01"],
    "bayes": ["bayes", "sample:toy", "--chains", "2", "--draws", "200", "--warmup", "100"],
    "arena": ["arena", "sample:alpaca_eval", "--anchor", "gpt4_1106_preview"],
    "embeddings": [
        "embeddings",
        str(EMB / "synthetic.npz"),
        "--meta",
        str(EMB / "synthetic_meta.csv"),
        "--label",
        "cluster",
        "--heads",
        "4",
        "--dims",
        "8",
        "--bootstrap",
        "scores",
        "--reps",
        "100",
    ],
}


def run(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_csv_and_parquet_hold_the_json_rows_and_settings(command: str, tmp_path: Path) -> None:
    argv = COMMANDS[command]
    doc = json.loads(run([*argv, "--json"]))
    rows = doc.get("rows", doc.get("points"))
    csv = pd.read_csv(io.StringIO(run([*argv, "--format", "csv"])))
    assert len(csv) == len(rows)
    assert "level" in csv.columns  # the level of every number, in every row
    first = {k: v for k, v in rows[0].items() if isinstance(v, float)}
    for key, value in first.items():
        assert csv[key].iloc[0] == pytest.approx(value, rel=1e-12), key
    path = tmp_path / f"{command}.parquet"
    run([*argv, "-o", str(path)])  # the suffix picks the format
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[b"benchuq"])
    assert "level" in meta
    frame = table.to_pandas()
    assert list(frame.columns) == list(csv.columns) and len(frame) == len(rows)


def test_units_are_named(tmp_path: Path) -> None:
    csv = pd.read_csv(io.StringIO(run([*COMMANDS["leaderboard"], "--output-format", "csv"])))
    assert set(csv["unit"]) == {"proportion"} and set(csv["level"]) == {0.9}
    norm = run(["leaderboard", "sample:toy", "--reps", "200", "--normalize", "--format", "csv"])
    assert set(pd.read_csv(io.StringIO(norm))["unit"]) == {"normalized (minmax, 0-1)"}
    epp = pd.read_csv(io.StringIO(run([*COMMANDS["epp"], "--format", "csv"])))
    assert set(epp["unit"]) == {"logit"}


def test_json_to_a_file_and_bad_combinations(tmp_path: Path, capsys) -> None:
    path = tmp_path / "board.json"
    run([*COMMANDS["leaderboard"], "-o", str(path)])
    assert json.loads(path.read_text())["level"] == 0.9
    assert main([*COMMANDS["leaderboard"], "--format", "parquet"]) == 2
    assert "-o FILE" in capsys.readouterr().err
    assert main([*COMMANDS["leaderboard"], "--json", "--output-format", "csv"]) == 2


def test_o_without_a_table_format_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main([*COMMANDS["epp"], "-o", str(tmp_path / "epp.txt")]) == 2
    assert "-o writes json, csv or parquet" in capsys.readouterr().err
