"""Malformed inputs: every one is a DataError naming the file, row and column, with a fix.

Rows are counted as a spreadsheet shows them (header = row 1, first data row = row 2); JSON
records and JSON Lines count from 1.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchuq.core.data import DataError
from benchuq.core.reading.loaders import load_files, load_path, load_sample

REAL = Path(__file__).parents[2] / "fixtures" / "real"
HEAD = "model,task,category,n,correct\n"
OK_ROW = "A,t1,c1,10,5\n"
RESULTS = json.loads(
    (
        REAL / "lm_eval/results_v04/Qwen__Qwen2.5-1.5B__results_2025-03-03T00-05-12.300060.json"
    ).read_text()
)
SAMPLES = (
    (
        REAL / "lm_eval/samples/pr2236_asdiv_llama3-8b-instruct/"
        "samples_asdiv_2024-08-21T03-44-09.494230.jsonl"
    )
    .read_text()
    .splitlines()
)
INSPECT = json.loads(next((REAL / "inspect_ai").glob("*.json")).read_text())
ALPACA = (REAL / "alpaca_eval/phi-2__weighted_alpaca_eval_gpt4_turbo.csv").read_text().splitlines()


def csv(text: str, name: str = "bad.csv") -> list[tuple[str, bytes]]:
    return [(name, text.encode())]


def results_with(**changes: object) -> bytes:
    obj = json.loads(json.dumps(RESULTS))
    for task, entry in changes.items():
        obj["results"][task] = entry
    return json.dumps(obj).encode()


def broken_samples(line: int, text: str) -> bytes:
    lines = list(SAMPLES)
    lines[line - 1] = text
    return "\n".join(lines).encode()


def parquet_garbage() -> bytes:
    return b"PAR1" + bytes(range(256)) * 4


def json_records(recs: object) -> list[tuple[str, bytes]]:
    return [("bad.json", json.dumps(recs).encode())]


def inspect_with(value: object | None) -> bytes:
    obj = json.loads(json.dumps(INSPECT))
    if value is None:
        obj["samples"][1]["scores"] = {}
    else:
        obj["samples"][1]["scores"]["model_graded_fact"]["value"] = value
    return json.dumps(obj).encode()


def items_frame_parquet() -> bytes:
    buf = io.BytesIO()
    pd.DataFrame(
        {"model": ["A", "B"], "task": ["t", "t"], "item": ["1", "1"], "score": [1.0, np.nan]}
    ).to_parquet(buf)
    return buf.getvalue()


# (id, files, keyword arguments, file named, row, column, words in the message)
CASES = [
    ("empty file", csv(""), {}, "bad.csv", None, None, "empty"),
    ("blank lines only", csv("\n \n\n"), {}, "bad.csv", None, None, "empty"),
    ("header only", csv(HEAD), {}, "bad.csv", None, None, "no rows"),
    (
        "missing task column",
        csv("model,n,correct\nA,10,5\n"),
        {},
        "bad.csv",
        None,
        "task",
        "missing column",
    ),
    (
        "no score column",
        csv("model,task,foo\nA,t1,3\n"),
        {},
        "bad.csv",
        None,
        "correct",
        "no score column",
    ),
    (
        "non-numeric count",
        csv(HEAD + OK_ROW + "B,t1,c1,10,abc\n"),
        {},
        "bad.csv",
        3,
        "correct",
        "not a number",
    ),
    (
        "correct above n",
        csv(HEAD + OK_ROW + "B,t1,c1,10,11\n"),
        {},
        "bad.csv",
        3,
        "correct",
        "outside 0..n",
    ),
    (
        "negative correct",
        csv(HEAD + "A,t1,c1,10,-1\n"),
        {},
        "bad.csv",
        2,
        "correct",
        "outside 0..n",
    ),
    ("negative n", csv(HEAD + OK_ROW + "B,t1,c1,-5,1\n"), {}, "bad.csv", 3, "n", "positive"),
    ("zero n", csv(HEAD + "A,t1,c1,0,0\n"), {}, "bad.csv", 2, "n", "positive"),
    ("fractional n", csv(HEAD + "A,t1,c1,10.5,3\n"), {}, "bad.csv", 2, "n", "whole number"),
    ("NaN count", csv(HEAD + OK_ROW + "B,t1,c1,10,nan\n"), {}, "bad.csv", 3, "correct", "finite"),
    (
        "infinite accuracy",
        csv("model,task,n,accuracy\nA,t1,10,inf\n"),
        {},
        "bad.csv",
        2,
        "accuracy",
        "finite",
    ),
    ("blank count", csv(HEAD + "A,t1,c1,10,\n"), {}, "bad.csv", 2, "correct", "missing"),
    ("blank model name", csv(HEAD + OK_ROW + ",t1,c1,10,5\n"), {}, "bad.csv", 3, "model", "empty"),
    (
        "duplicate rows",
        csv(HEAD + OK_ROW + "B,t1,c1,10,5\n" + OK_ROW),
        {},
        "bad.csv",
        4,
        "task",
        "rows 2 and 4",
    ),
    (
        "mixed percent and proportion",
        csv("model,task,n,accuracy\nA,t1,100,55\nB,t1,100,60\nC,t1,100,0.7\n"),
        {},
        "bad.csv",
        4,
        "accuracy",
        "proportion",
    ),
    (
        "accuracy out of range",
        csv("model,task,n,accuracy\nA,t1,100,120\n"),
        {},
        "bad.csv",
        2,
        "accuracy",
        "outside",
    ),
    (
        "task without category",
        csv(HEAD + OK_ROW + "A,t2,,10,5\n"),
        {},
        "bad.csv",
        3,
        "category",
        "no category",
    ),
    (
        "two categories for a task",
        csv(HEAD + OK_ROW + "B,t1,c2,10,5\n"),
        {},
        "bad.csv",
        3,
        "category",
        "one category",
    ),
    (
        "estimate without se",
        csv("model,task,estimate\nA,t1,0.5\n"),
        {},
        "bad.csv",
        None,
        "se",
        "standard error",
    ),
    (
        "negative se",
        csv("model,task,estimate,se\nA,t1,0.5,-0.1\n"),
        {},
        "bad.csv",
        2,
        "se",
        "negative",
    ),
    (
        "bad higher_is_better",
        csv("model,task,n,correct,higher_is_better\nA,t,10,5,maybe\n"),
        {},
        "bad.csv",
        2,
        "higher_is_better",
        "true/false",
    ),
    (
        "accuracy without n",
        csv("model,task,accuracy\nA,t1,0.5\n"),
        {},
        "bad.csv",
        None,
        "n",
        "no 'n' column",
    ),
    (
        "per-item results whose score column is named correct",
        csv("model,task,item,correct\nA,t1,i1,1\nB,t1,i1,0\n"),
        {},
        "bad.csv",
        None,
        "n",
        "rename 'correct' to 'score'",
    ),
    (
        "ragged csv",
        csv("model,task,n,correct\nA,t1,10,5,7,8\n"),
        {},
        "bad.csv",
        2,
        None,
        "6 fields",
    ),
    ("short row", csv(HEAD + OK_ROW + "\nB,t1,c1\n"), {}, "bad.csv", 4, None, "3 fields"),
    (
        "binary garbage",
        [("bad.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20)],
        {},
        "bad.csv",
        None,
        None,
        "binary",
    ),
    (
        "wrong encoding",
        [("bad.csv", (HEAD + "Ä,t1,c1,10,5\n").encode("latin-1"))],
        {},
        "bad.csv",
        2,
        None,
        "UTF-8",
    ),
    (
        "corrupt parquet",
        [("bad.parquet", parquet_garbage())],
        {},
        "bad.parquet",
        None,
        None,
        "Parquet",
    ),
    (
        "NaN in parquet",
        [("bad.parquet", items_frame_parquet())],
        {},
        "bad.parquet",
        3,
        "score",
        "finite",
    ),
    (
        "truncated JSON",
        [("bad.json", b'[{"model": "A", "task": ')],
        {},
        "bad.json",
        1,
        None,
        "invalid JSON",
    ),
    ("JSON list of numbers", json_records([1, 2, 3]), {}, "bad.json", 1, None, "not an object"),
    (
        "JSON object of the wrong shape",
        json_records({"foo": 1}),
        {},
        "bad.json",
        None,
        None,
        "list of records",
    ),
    (
        "JSON records missing a column",
        json_records([{"model": "A", "n": 3}]),
        {},
        "bad.json",
        None,
        "task",
        "missing column",
    ),
    (
        "item score out of range",
        csv("model,task,item,score\nA,t,1,1\nA,t,2,1.5\n"),
        {},
        "bad.csv",
        3,
        "score",
        "outside 0..1",
    ),
    (
        "duplicate item",
        csv("model,task,item,score\nA,t,1,1\nA,t,1,0\n"),
        {},
        "bad.csv",
        3,
        "item",
        "more than once",
    ),
    (
        "two clusters for an item",
        csv("model,task,item,score,cluster\nA,t,1,1,x\nB,t,1,0,y\n"),
        {},
        "bad.csv",
        3,
        "cluster",
        "two different",
    ),
    (
        "lm-eval count not whole",
        [("r.json", results_with(arc_easy={"acc,none": 0.5001, "acc_stderr,none": 0.01}))],
        {"format": "lm_eval"},
        "r.json",
        None,
        "acc",
        "not a whole number",
    ),
    (
        "lm-eval accuracy above 1",
        [("r.json", results_with(arc_easy={"acc,none": 1.5, "acc_stderr,none": 0.01}))],
        {},
        "r.json",
        None,
        "acc",
        "not a proportion",
    ),
    (
        "lm-eval metric absent",
        [("r.json", results_with())],
        {"metric": "bleu"},
        "r.json",
        None,
        "bleu",
        "no task",
    ),
    (
        "lm-eval entry not an object",
        [("r.json", results_with(arc_easy=[1, 2]))],
        {},
        "r.json",
        None,
        "arc_easy",
        "not an object",
    ),
    (
        "samples line not JSON",
        [("samples_asdiv_2024-08-21T03-44-09.494230.jsonl", broken_samples(3, "{oops"))],
        {},
        "samples_asdiv_2024-08-21T03-44-09.494230.jsonl",
        3,
        None,
        "not valid JSON",
    ),
    (
        "samples line without doc_id",
        [("samples_asdiv_2024-08-21T03-44-09.494230.jsonl", broken_samples(2, '{"acc": 1}'))],
        {},
        "samples_asdiv_2024-08-21T03-44-09.494230.jsonl",
        2,
        "doc_id",
        "doc_id",
    ),
    (
        "samples score not a number",
        [
            (
                "samples_asdiv_2024-08-21T03-44-09.494230.jsonl",
                broken_samples(4, '{"doc_id": 3, "acc": "yes"}'),
            )
        ],
        {},
        "samples_asdiv_2024-08-21T03-44-09.494230.jsonl",
        4,
        "acc",
        "not a number",
    ),
    (
        "alpaca preference out of range",
        [("a.csv", "\n".join([*ALPACA[:3], ALPACA[3].rsplit(",", 1)[0] + ",2.5"]).encode())],
        {},
        "a.csv",
        4,
        "preference",
        "outside 1..2",
    ),
    (
        "alpaca without generator_2",
        csv("instruction_index,preference\n1,1.5\n"),
        {"format": "alpaca_eval"},
        "bad.csv",
        None,
        "generator_2",
        "missing column",
    ),
    (
        "inspect score not C/I/P/N",
        [("log.json", inspect_with("X"))],
        {},
        "log.json",
        2,
        "scores.model_graded_fact.value",
        "not C/I/P/N",
    ),
    (
        "inspect sample without scores",
        [("log.json", inspect_with(None))],
        {},
        "log.json",
        2,
        "scores",
        "no scores",
    ),
    (
        "inspect format on a table",
        csv(HEAD + OK_ROW),
        {"format": "inspect"},
        "bad.csv",
        None,
        None,
        "not a JSON file",
    ),
    (
        "lm_eval format on a table",
        csv(HEAD + OK_ROW),
        {"format": "lm_eval"},
        "bad.csv",
        None,
        None,
        "not a JSON file",
    ),
    (
        "task missing from task table",
        csv("model,task,accuracy\nA,t1,0.5\nA,t9,0.5\n"),
        {"tasks": ("tasks.csv", b"task,category,n\nt1,c,10\n")},
        "tasks.csv",
        None,
        "task",
        "not in the task table",
    ),
    (
        "duplicate task in task table",
        csv("model,task,accuracy\nA,t1,0.5\n"),
        {"tasks": ("tasks.csv", b"task,category,n\nt1,c,10\nt1,c,12\n")},
        "tasks.csv",
        3,
        "task",
        "appears twice",
    ),
    (
        "column mapping to a missing column",
        csv(HEAD + OK_ROW),
        {"columns": {"Score": "correct"}},
        "bad.csv",
        None,
        "Score",
        "not in the file",
    ),
    ("unknown format", csv(HEAD + OK_ROW), {"format": "xlsx"}, None, None, None, "unknown format"),
    (
        "wide table with text",
        csv("model,t1,t2\nA,0.5,0.4\nB,0.3,high\n"),
        {"format": "wide", "tasks": ("t.csv", b"task,category,n\nt1,c,10\nt2,c,10\n")},
        "bad.csv",
        3,
        "t2",
        "not a number",
    ),
    (
        "item and count files together",
        [("a.csv", (HEAD + OK_ROW).encode()), ("b.csv", b"model,task,item,score\nA,t,1,1\n")],
        {},
        "b.csv",
        None,
        None,
        "item-level",
    ),
    (
        "category differs between files",
        [("a.csv", (HEAD + OK_ROW).encode()), ("b.csv", (HEAD + "B,t1,c9,10,5\n").encode())],
        {},
        "b.csv",
        None,
        "category",
        "another file",
    ),
]


@pytest.mark.parametrize(
    "files, kwargs, file, row, column, words",
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_bad_input_message(files, kwargs, file, row, column, words) -> None:
    try:
        load_files(files, **kwargs)
    except DataError as err:
        text = str(err)
        if file is not None:
            assert err.file == file and f"file '{file}'" in text
        assert err.row == row
        if row is not None:
            assert f"row {row}" in text
        assert err.column == column
        if column is not None:
            assert f"column '{column}'" in text
        assert any(w.lower() in text.lower() for w in words.split("|")), text
        assert "How to fix:" in text and err.hint
    else:
        pytest.fail("no DataError")


def test_enough_cases() -> None:
    assert len(CASES) >= 30


def test_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# not data")
    with pytest.raises(DataError, match=r"no results among the files.*notes\.md") as err:
        load_path(tmp_path)
    assert err.value.file == str(tmp_path) and err.value.hint


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file") as err:
        load_path(tmp_path / "nope.csv")
    assert err.value.hint


def test_unknown_sample() -> None:
    with pytest.raises(DataError, match="unknown sample") as err:
        load_sample("imagenet")
    assert "vtab1k" in str(err.value)


@pytest.mark.parametrize(
    ("name", "where"), [("mt_bench_battles", "benchuq arena"), ("mt_bench", "benchuq judge")]
)
def test_a_sample_of_another_kind_says_where_it_is_read(name: str, where: str) -> None:
    """``benchuq leaderboard sample:mt_bench_battles`` said "unknown sample" and listed the score
    samples only, though the name is one benchuq ships (the audit of 2026-12-08)."""
    with pytest.raises(DataError) as err:
        load_sample(name)
    text = str(err.value)
    assert "unknown" not in text and where in text and "for scores, choose one of" in text


def test_no_files() -> None:
    with pytest.raises(DataError, match="no files"):
        load_files([])


def test_one_model_loads_with_a_note() -> None:
    bench = load_files(csv(HEAD + OK_ROW + "A,t2,c1,10,7\n"))
    assert bench.models == ("A",)
    assert any("only one model" in x for x in bench.notes)


@pytest.mark.parametrize("junk", [b"\x00\x01\x02" * 50, bytes(range(256)) * 8, b"\xff\xfe\x00A"])
def test_nothing_but_data_error_escapes(junk: bytes) -> None:
    for name in ("x.csv", "x.json", "x.jsonl", "x.parquet", "samples_t_2024-01-01T00-00-00.jsonl"):
        with pytest.raises(DataError):
            load_files([(name, junk)])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_files_raise_only_data_error(data: st.DataObject) -> None:
    """Random byte edits of valid files either load or raise DataError, never anything else."""
    sources = [
        ("x.csv", (HEAD + OK_ROW + "B,t1,c1,10,7\n").encode()),
        ("x.json", json.dumps([{"model": "A", "task": "t", "n": 5, "correct": 2}]).encode()),
        ("items.csv", b"model,task,item,score\nA,t,1,1\nB,t,1,0\n"),
        ("samples_t_2024-01-01T00-00-00.jsonl", "\n".join(SAMPLES[:3]).encode()),
        (
            "r.json",
            json.dumps(
                {"results": {"arc": {"acc": 0.5, "acc_stderr": 0.1}}, "config": {}}
            ).encode(),
        ),
    ]
    name, raw = data.draw(st.sampled_from(sources))
    buf = bytearray(raw)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(buf) - 1))
        buf[pos] = data.draw(st.integers(0, 255))
    try:
        load_files([(name, bytes(buf))])
    except DataError:
        pass


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("runs.zip", b"PK garbage, not an archive", "not a zip archive"),
        ("runs.zip", b"model,task,n,correct\nA,t,10,5\n", "not a zip archive"),
        ("scores.parquet", b"not a parquet file", "not a Parquet file"),
        ("scores.pq", b"model,task,n,correct\nA,t,10,5\n", "not a Parquet file"),
    ],
)
def test_a_damaged_zip_or_parquet_says_so(
    tmp_path: Path, name: str, data: bytes, words: str
) -> None:
    """A damaged .zip or .parquet was read as text and refused for "a wide leaderboard needs a
    model column" (the audit of 2026-12-08); alone and in a folder it names what it is not."""
    (tmp_path / "one").mkdir()
    for path in (tmp_path / name, tmp_path / "one" / name):
        path.write_bytes(data)
        with pytest.raises(DataError, match=words) as err:
            load_path(path.parent if path.parent.name == "one" else path)
        assert err.value.file is not None and name in err.value.file
