"""Battles tables (METHODS 8b): CSV, JSONL and Parquet by content, AlpacaEval as battles, the
column mapping, and clear errors when battles and scores are mixed up."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from benchuq.core.data import DataError
from benchuq.core.reading.battles import (
    BattlesNotScores,
    claims,
    load_battles,
    read,
    read_battle_files,
)
from benchuq.core.reading.loaders import load_files
from benchuq.core.reading.table import Source

FRAME = pd.DataFrame(
    {
        "model_a": ["x", "y", "z", "x", "y"],
        "model_b": ["y", "z", "x", "z", "x"],
        "winner": ["model_a", "tie", "model_b", "tie (bothbad)", "both_bad"],
        "judge": ["j1", "j1", "j2", "j2", "j1"],
        "question_id": ["q1", "q2", "q2", "q3", "q3"],
        "length_a": [10.0, 20, 30, 40, 50],
        "length_b": [12.0, 18, 30, 41, 30],
    }
)


def _csv(frame: pd.DataFrame = FRAME) -> bytes:
    return frame.to_csv(index=False).encode()


def _jsonl(frame: pd.DataFrame = FRAME) -> bytes:
    return "\n".join(json.dumps(r) for r in frame.to_dict(orient="records")).encode()


def _parquet(frame: pd.DataFrame = FRAME) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "make"), [("b.csv", _csv), ("b.jsonl", _jsonl), ("b.parquet", _parquet)]
)
def test_formats_are_found_by_content(name: str, make) -> None:  # type: ignore[no-untyped-def]
    src = Source(name, make())
    assert claims(src)
    bt = read(src)
    assert bt.models == ("x", "y", "z") and bt.n == 5
    np.testing.assert_array_equal(bt.score, [1, 0.5, 0, 0.5, 0.5])
    np.testing.assert_array_equal(bt.both_bad, [False, False, False, True, True])
    assert bt.judges == ("j1", "j2") and bt.prompts == ("q1", "q2", "q3")
    assert set(bt.covariates) == {"length_a", "length_b"}


def test_column_mapping_renames_their_columns() -> None:
    theirs = FRAME.rename(columns={"model_a": "left", "model_b": "right", "winner": "verdict"})
    src = Source("t.csv", _csv(theirs))
    assert not claims(src)
    mapping = {"left": "model_a", "right": "model_b", "verdict": "winner"}
    assert claims(src, columns=mapping)
    assert read_battle_files([("t.csv", _csv(theirs))], columns=mapping).n == 5


def test_bad_winner_names_row_and_column() -> None:
    bad = FRAME.assign(winner=["model_a", "tie", "draw", "tie", "tie"])
    with pytest.raises(DataError) as err:
        read(Source("b.csv", _csv(bad)))
    assert err.value.row == 4 and err.value.column == "winner" and "draw" in str(err.value)


def test_self_battle_is_an_error() -> None:
    bad = FRAME.assign(model_b=["x", "z", "x", "z", "x"])
    with pytest.raises(DataError, match="cannot battle itself") as err:
        read(Source("b.csv", _csv(bad)))
    assert err.value.row == 2


def test_alpaca_annotations_read_as_battles_against_the_baseline() -> None:
    bt = load_battles("sample:alpaca_eval")
    assert bt.baseline == "gpt4_1106_preview" and bt.graded
    base = bt.models.index("gpt4_1106_preview")
    assert np.all(bt.b == base) and bt.prompt is not None


def test_scores_given_to_arena_say_what_they_are() -> None:
    with pytest.raises(DataError, match="per-task scores") as err:
        read_battle_files([("v.csv", b"model,task,n,correct\na,t,10,5\n")])
    assert "benchuq arena" not in str(err.value) and "model_a" in str(err.value)
    with pytest.raises(DataError, match="per-task scores, not battles"):
        load_battles("sample:vtab1k")


def test_battles_given_to_scores_loader_say_so() -> None:
    with pytest.raises(BattlesNotScores, match="pairwise battles") as err:
        load_files([("b.csv", _csv())])
    assert "benchuq arena" in str(err.value) and err.value.file == "b.csv"


def test_several_files_are_one_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "one.csv").write_bytes(_csv(FRAME.iloc[:3]))
    (tmp_path / "two.jsonl").write_bytes(_jsonl(FRAME.iloc[3:]))
    bt = load_battles([str(tmp_path / "one.csv"), str(tmp_path / "two.jsonl")])
    assert bt.n == 5 and bt.judges == ("j1", "j2")
