"""inspect_ai logs read a sample at a time (issue 18): the same results, notes and errors as a
whole parse, without building the samples' messages and events."""

from __future__ import annotations

import codecs
import json
import tracemalloc
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from inspect_logs import inspect_log, log_bytes, log_of_size

from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading import classify as classify_module
from benchuq.core.reading import inspect_log as inspect_reader
from benchuq.core.reading.classify import detect_format
from benchuq.core.reading.loaders import load_files, load_path
from benchuq.core.reading.table import Source

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "inspect_ai"
REAL_LOG = REAL / "2025-05-12T20-28-26-04-00_security-guide.json"
VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


def expected(log: dict, metric: str | None = None) -> dict[str, float]:
    """Item -> mean score of the first scorer (or ``metric``), from the parsed log."""
    first = log["samples"][0]["scores"]
    scorer = metric if metric in first else next(iter(first))
    values = defaultdict(list)
    for s in log["samples"]:
        v = s["scores"][scorer]["value"]
        values[str(s["id"])].append(VALUES[v] if isinstance(v, str) else float(v))
    return {item: float(np.mean(v)) for item, v in values.items()}


def scores_of(bench: Benchmark) -> dict[str, float]:
    (task,) = bench.item_tasks
    return dict(zip(task.items, task.scores[0].tolist(), strict=True))


def whole(data: bytes, metric: str | None = None) -> Benchmark:
    """The log parsed whole and read from the parsed object, as before (the walk turned off)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(inspect_reader, "pruned_json", lambda src, shape: None)
        return load_files([("log.json", data)], metric=metric)


def test_real_log_equals_the_whole_parse() -> None:
    data = REAL_LOG.read_bytes()
    bench = load_files([("log.json", data)])
    assert scores_of(bench) == expected(json.loads(data)) == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert bench == whole(data)
    assert bench.models == ("openai/gpt-4o-mini",) and bench.tasks == ("security_guide",)


@pytest.mark.parametrize(
    "variant",
    ["indent2", "compact", "indent4", "tabs", "crlf", "ascii", "samples_first", "bom"],
)
def test_generated_logs_equal_the_whole_parse(variant: str) -> None:
    log = inspect_log(6, epochs=3, scorers=("match", "judgé"), status="error", seed=3)
    for k, s in enumerate(log["samples"]):
        s["id"] = ["q\u00e9", "日本", 7, 2.5, 'a"b\\c', "q\u00e9 "][k % 6]
        s["scores"]["judgé"]["value"] = [True, 0.25, False, 1][k % 4]
    if variant == "samples_first":
        log = {"samples": log.pop("samples"), **log}
    indent = {"compact": None, "indent4": 4, "tabs": "\t"}.get(variant, 2)
    text = json.dumps(log, indent=indent, ensure_ascii=variant == "ascii")
    data = (text.replace("\n", "\r\n") if variant == "crlf" else text).encode()
    data = codecs.BOM_UTF8 + data if variant == "bom" else data
    assert (b"\\u00e9" in data) == (variant == "ascii")
    bench = load_files([("log.json", data)])
    assert scores_of(bench) == pytest.approx(expected(log))
    assert bench == whole(data)
    assert any(n.startswith("the eval's status is 'error', not 'success'") for n in bench.notes)
    assert "scorer 'match' used; the log also has judgé (pick one with `metric=\"SCORER\"`)." in (
        bench.notes
    )
    assert any(n.startswith("3 epochs: each sample is one item") for n in bench.notes)
    other = load_files([("log.json", data)], metric="judgé")
    assert scores_of(other) == pytest.approx(expected(log, "judgé"))
    assert other == whole(data, "judgé")


def test_repeated_keys_keep_the_last_as_json_does() -> None:
    data = (
        b'{"samples": [{"id": 1, "scores": {"s": {"value": "C"}}}], "status": "x", '
        b'"eval": {"model": "m", "task": "t", "model": "m2"}, "status": "success", '
        b'"samples": [{"id": 1, "id": 2, "scores": {"s": {"value": "I", "value": "P"}}}]}'
    )
    bench = load_files([("log.json", data)])
    assert bench.models == ("m2",) and scores_of(bench) == {"2": 0.5}
    assert not any("status" in n for n in bench.notes)


def test_classification_and_loading_do_not_parse_the_log_whole(monkeypatch) -> None:
    def refuse(src: Source) -> object:
        raise AssertionError(f"{src.name} parsed whole")

    monkeypatch.setattr(classify_module, "parse_json", refuse)
    monkeypatch.setattr(inspect_reader, "parse_json", refuse)
    data = log_bytes(inspect_log(4, seed=1))
    assert detect_format(Source("log.json", data)) == "inspect"
    folder = [("run/log.json", data), ("run/README.md", b"# notes\n")]
    assert load_files(folder).tasks == ("security_guide",)
    assert load_files([("x.json", data)], format="inspect").models == ("openai/gpt-4o-mini",)


# ---- errors: the same text as a whole parse gave (measured on main before this change) ------
def one_sample_bad(value: str, *, second: str | None = None) -> bytes:
    """A small log whose second sample's score is the JSON text ``value`` (or whose second
    sample is ``second``)."""
    ok = '{"id": "a", "messages": [{"content": "hi"}], "scores": {"s": {"value": "C"}}}'
    bad = (
        second
        or f'{{"id": "b", "events": [{{"x": [1, 2]}}], "scores": {{"s": {{"value": {value}}}}}}}'
    )
    return (
        '{"status": "success", "eval": {"model": "m", "task": "t"},\n'
        f' "samples": [\n  {ok},\n  {bad}\n ]\n}}\n'
    ).encode()


SCORE = (
    "file 'log.json', row 2, column 'scores.s.value': sample 2: score {} is not C/I/P/N or a "
    "number in 0..1. How to fix: use a scorer with accuracy-style values."
)
NO_SCORES = (
    "file 'log.json', row 2, column 'scores': sample 2 has no scores. How to fix: score the eval "
    "before loading it (inspect score)."
)
NO_SAMPLES = (
    "file 'log.json', column 'samples': the log holds no samples. How to fix: run the eval with "
    "log_samples=True (the default)."
)
NOT_INSPECT = (
    "file 'log.json': not an inspect_ai eval log (no 'eval' and 'status'). How to fix: export "
    "the log as JSON (inspect log convert --to json) or pick another format."
)
RECORDS = (
    'file \'log.json\': expected a JSON list of records such as [{"model": ..., "task": ...}, '
    "...]. How to fix: write one object per model and task, or use a CSV file."
)
INVALID = (
    "file 'log.json', row {0}: invalid JSON at line {0}, character {1}: {2}. How to fix: check "
    "the file is complete JSON (a list of records or an object)."
)
ERRORS = {
    "letter": (one_sample_bad('"X"'), SCORE.format("'X'")),
    "huge integer": (one_sample_bad("1" + "0" * 400), SCORE.format("'" + "1" + "0" * 39 + "'")),
    "NaN": (one_sample_bad("NaN"), SCORE.format("'nan'")),
    "negative": (one_sample_bad("-1.0"), SCORE.format("'-1.0'")),
    "list": (one_sample_bad("[1]"), SCORE.format("'[1]'")),
    "null": (one_sample_bad("null"), SCORE.format("'None'")),
    "object": (one_sample_bad('{"a": "X"}'), SCORE.format("'X'")),  # named values (issue 26)
    "entry not an object": (
        one_sample_bad("", second='{"id": "b", "scores": {"s": "C"}}'),
        SCORE.format("'None'"),
    ),
    "empty scores": (one_sample_bad("", second='{"id": "b", "scores": {}}'), NO_SCORES),
    "scores not an object": (one_sample_bad("", second='{"id": "b", "scores": 1}'), NO_SCORES),
    "no scores": (one_sample_bad("", second='{"id": "b", "messages": []}'), NO_SCORES),
    "sample not an object": (one_sample_bad("", second="[1, 2]"), NO_SCORES),
    "empty samples": (b'{"status": "success", "eval": {}, "samples": []}', NO_SAMPLES),
    "no samples": (b'{"status": "success", "eval": {"model": "m"}}', NO_SAMPLES),
    "samples not a list": (b'{"status": "ok", "eval": {}, "samples": {"a": 1}}', NO_SAMPLES),
    "truncated": (
        one_sample_bad('"C"')[:-20],
        INVALID.format(4, 59, "Unterminated string starting at"),
    ),
    "missing comma in messages": (
        one_sample_bad("", second='{"id": "b", "messages": [{"a": 1} {"b": 2}], "scores": {}}'),
        INVALID.format(4, 37, "Expecting ',' delimiter"),
    ),
    "trailing comma in events": (
        one_sample_bad("", second='{"id": "b", "events": [{"a": 1,}], "scores": {}}'),
        INVALID.format(4, 34, "Expecting property name enclosed in double quotes"),
    ),
    "bad escape in a message": (
        one_sample_bad("", second='{"id": "b", "messages": ["\\x"], "scores": {}}'),
        INVALID.format(4, 29, "Invalid \\escape"),
    ),
    "extra data": (one_sample_bad('"C"') + b"{}", INVALID.format(7, 1, "Extra data")),
    "real log cut in an event": (
        REAL_LOG.read_bytes()[:90_000],
        INVALID.format(1710, 7, "Unterminated string starting at"),
    ),
    "invalid UTF-8 in a message": (
        one_sample_bad("", second='{"id": "b", "messages": ["café"], "scores": {}}').replace(
            "é".encode(), b"\xe9"
        ),
        "file 'log.json', row 4: line 4 is not valid UTF-8 text (byte 185). How to fix: save "
        "the file with UTF-8 encoding (in Excel: 'CSV UTF-8').",
    ),
    "NUL in a message": (
        one_sample_bad("", second='{"id": "b", "messages": ["a\x00"], "scores": {}}'),
        "file 'log.json': the file is binary, not a text table or JSON. How to fix: export the "
        "results as CSV, TSV, JSON or Parquet.",
    ),
    "nested too deeply": (
        one_sample_bad("", second='{"id": "b", "events": ' + "[" * 5000 + "]" * 5000 + "}"),
        "file 'log.json': the JSON is nested too deeply to read. How to fix: results files are "
        "a few levels deep; check this is the right file.",
    ),
    "no status": (b'{"eval": {"model": "m"}, "samples": []}', RECORDS),
    "eval not an object": (b'{"status": "success", "eval": 1, "samples": []}', RECORDS),
}


@pytest.mark.parametrize("case", ERRORS)
@pytest.mark.parametrize("format", ["auto", "inspect"])
def test_errors_are_worded_as_before(case: str, format: str) -> None:
    data, message = ERRORS[case]
    with pytest.raises(DataError) as err:
        load_files([("log.json", data)], format=format)
    assert str(err.value) == message


def test_other_json_with_format_inspect() -> None:
    with pytest.raises(DataError) as err:
        load_files([("log.json", b'[{"status": "success", "eval": {}}]')], format="inspect")
    assert str(err.value) == NOT_INSPECT


def test_a_damaged_log_in_a_folder() -> None:
    """A damaged .json stops the load (it claims to be a result); named otherwise it is skipped."""
    data, message = ERRORS["truncated"]
    with pytest.raises(DataError) as err:
        load_files([("run/log.json", data), ("run/README.md", b"# notes\n")])
    assert str(err.value) == message.replace("'log.json'", "'run/log.json'")
    good = log_bytes(inspect_log(2))
    bench = load_files([("run/log.json", good), ("run/log.bak", data)])
    assert bench.tasks == ("security_guide",)
    assert any("log.bak: not valid JSON" in n for n in bench.notes)


def test_memory_does_not_grow_with_messages_and_events(tmp_path: Path) -> None:
    """A 20 MB log (messages, events repeating the conversation, scores with explanations):
    load_path's traced peak was 11.4 x the file's size on main (the log parsed whole twice, by
    classify and by inspect_benchmark); read a sample at a time it is 2.0 x (the file's bytes and
    their one-byte-per-character text). The bound, 3 x, fails on main."""
    path = tmp_path / "log.json"
    path.write_bytes(log_of_size(20))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        bench = load_path(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(bench.item_tasks[0].items) > 100
    assert peak < 3 * size, f"traced peak {peak / size:.2f} x the file"
