"""OpenAI evals (oaieval) JSONL logs: found by content, read, notes, errors, CLI, upload."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import page_path
from formats_files import oaieval_log

from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.reading import detect_format, read_files, read_paths
from benchuq.core.reading.table import Source

A = [True, False, True, True, False, True]
B = [False, False, True, True, False, False]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def logs(root: Path) -> Path:
    """/tmp/evallogs as oaieval leaves it: one log per run, named by run id, model and eval."""
    root.mkdir(parents=True, exist_ok=True)
    for rid, model, scores in (("230401A", "gpt-4", A), ("230401B", "gpt-3.5-turbo", B)):
        log = oaieval_log(model, "test-match.s1.simple-v0", scores, run_id=rid)
        (root / f"{rid}_{model}_test-match.jsonl").write_bytes(log)
    (root / "notes.txt").write_text("two runs\n")
    return root


def test_a_folder_of_logs_gives_paired_item_scores(tmp_path: Path) -> None:
    loaded = read_paths([logs(tmp_path / "evallogs")])
    bench = loaded.bench
    assert bench.kind == "items"
    assert bench.models == ("gpt-4", "gpt-3.5-turbo")
    assert bench.tasks == ("test-match.s1.simple-v0",)
    np.testing.assert_allclose(bench.item_tasks[0].scores, [A, B])
    assert list(bench.item_tasks[0].items)[:2] == ["test-match.dev.0", "test-match.dev.1"]
    assert any("1 file skipped — not results" in n for n in bench.notes)
    runs = loaded.meta.runs_frame()
    assert set(runs["harness"]) == {"openai/evals"} and set(runs["metric"]) == {"correct"}


def test_repeated_matches_errors_and_report_are_noted() -> None:
    log = oaieval_log(
        "gpt-4",
        "arith.dev.v0",
        [True, False],
        repeats=2,
        errors=["arith.dev.9"],
        final_report={"accuracy": 0.9},
    )
    src = Source("run.jsonl", log)
    assert detect_format(src) == "oaieval"
    bench = read_files([(src.name, src.data)]).bench
    np.testing.assert_allclose(bench.estimate, [[0.5]])
    assert (bench.item_tasks[0].answers == 2).all()  # each sample's two events: epochs (#26)
    text = " ".join(bench.notes)
    assert "several events of one sample are its repeated answers" in text
    assert "1 sample with only error events left out" in text
    assert "final report's accuracy 0.9000 differs" in text


def test_metrics_events_with_the_metric_option() -> None:
    scores = [{"score": 0.25}, {"score": 1.0}, {"score": 0.5}]
    log = oaieval_log("judge-me", "grading.dev.v0", [True, True, False], metrics=scores)
    bench = read_files([("log.jsonl", log)], metric="score").bench
    np.testing.assert_allclose(bench.item_tasks[0].scores[0], [0.25, 1.0, 0.5])
    with pytest.raises(DataError, match=r"no metrics events with 'f1'.*score"):
        read_files([("log.jsonl", log)], metric="f1")


def test_damaged_logs_name_file_and_line() -> None:
    log = oaieval_log("gpt-4", "arith.dev.v0", A)
    cut = log[: log.rfind(b"\n", 0, len(log) - 1) - 20] + b"\n"
    with pytest.raises(DataError) as err:
        read_files([("cut.jsonl", cut)])
    assert err.value.file == "cut.jsonl" and err.value.row is not None
    assert "partial last line" in str(err.value)
    bad = log.replace(b'"correct": true', b'"correct": "yes"', 1)
    with pytest.raises(DataError) as err:
        read_files([("bad.jsonl", bad)])
    assert err.value.column == "data.correct" and err.value.row == 3
    only_spec = log.split(b"\n", 1)[0] + b"\n"
    with pytest.raises(DataError, match="no match events"):
        read_files([("empty.jsonl", only_spec)])


def test_cli_exit_codes(tmp_path: Path) -> None:
    folder = logs(tmp_path / "evallogs")
    models = ["--models", "gpt-4", "gpt-3.5-turbo"]
    code, out, _ = cli("compare", str(folder), *models, "--reps", "200", "--json")
    assert code == 0 and json.loads(out)["rows"]
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(oaieval_log("m", "e.v0", A)[:-30])
    code, _, err = cli("leaderboard", str(broken))
    assert code == 2 and "broken.jsonl" in err and "Traceback" not in err


def test_upload_in_the_app(make_app, tmp_path: Path) -> None:
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    folder = logs(tmp_path / "evallogs")
    files = [(p.name, p.read_bytes(), "application/json") for p in sorted(folder.glob("*.jsonl"))]
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.metric[0].value == "2"  # two models
