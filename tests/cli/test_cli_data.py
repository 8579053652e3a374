"""The CLI's DATA: several paths and globs in every command; notes on stderr, stdout only the
table or JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchuq.cli.main import main

REAL = Path(__file__).parents[1] / "fixtures" / "real"
V04 = REAL / "lm_eval" / "results_v04"
OPT = REAL / "lm_eval" / "results_v03" / "opt_0shot"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The v0.4 files with what real folders also hold."""
    out = Path(shutil.copytree(V04, tmp_path / "out"))
    (out / "README.md").write_text("# runs\n")
    (out / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (out / "tasks.yaml").write_text("tasks: [mmlu]\n")
    (out / "_provenance.txt").write_text("Copied from pull request 2809.\n")
    return out


def test_leaderboard_of_files_and_a_folder(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    opt = sorted(OPT.glob("*.json"))
    code = main(["leaderboard", str(opt[0]), str(opt[1]), str(folder), "--reps", "200"])
    out, err = capsys.readouterr()
    assert code == 0
    # named by content (issue 30), then the tasks read: each count said once
    assert out.startswith("lm-eval v0.4: 4 models x 18 benchmarks (74 tasks)\n")
    assert "note" not in out
    assert "[mmlu]" in out and "facebook/opt-125m" in out and "Qwen/Qwen2.5-1.5B" in out
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert any("4 files skipped — not results" in n for n in notes)
    assert any("2 files: task 'cola' skipped — its metric is mcc, not acc." in n for n in notes)
    assert "--verbose" in err and "\n      files: " not in err
    main(["leaderboard", str(folder), "--reps", "200", "--verbose"])
    out, err = capsys.readouterr()
    assert "files: Qwen__Qwen2.5-1.5B" in err and "tasks.yaml: a .yaml file" in err


def test_glob_patterns_and_json_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["leaderboard", str(OPT / "opt-1*.json"), "--reps", "200", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    payload = json.loads(out)  # stdout is only the JSON
    assert {r["model"] for r in payload["rows"]} == {
        "facebook/opt-125m",
        "facebook/opt-1.3b",
        "facebook/opt-13b",
    }
    assert payload["notes"] and err.startswith("note: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "--models", "Qwen/Qwen2.5-1.5B", "meta-llama/Llama-3.2-1B", "--reps", "200"],
        ["ranks", "--reps", "200"],
        ["weights", "--resolution", "5", "--categories", "mmlu,arc_easy,hellaswag"],
        ["epp"],
        ["eb"],
        ["bayes", "--draws", "100", "--warmup", "50", "--chains", "1"],
        ["power", "--delta", "0.01"],
    ],
    ids=lambda a: a[0],
)
def test_every_command_takes_several_paths(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(p) for p in sorted(V04.glob("*.json"))]
    code = main([argv[0], *files, *argv[1:], "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    json.loads(out)
    assert "note: 2 files: task 'cola' skipped" in err


def test_the_cli_offers_every_format() -> None:
    from benchuq.cli.common import FORMATS
    from benchuq.core.reading.loaders import FORMATS as READERS

    assert FORMATS == READERS


def test_a_missing_path_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ranks", str(V04), str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "header"),
    [
        (["leaderboard", str(REAL / "helm" / "safety_v3")], "safety_v3: 9 models x 2 scenarios"),
        (["leaderboard", str(REAL / "inspect_ai" / "eval_zip" / "log_formats.eval")],
         "log_formats: 1 model x 1 task"),
        (["leaderboard", "sample:toy", "--name", "Run 7"], "Run 7 (2 models x 3 tasks)"),
        (["bayes", "sample:toy", "--draws", "100", "--warmup", "50", "--chains", "2"],
         "toy (2 models x 3 tasks)"),
    ],
)  # fmt: skip
def test_the_header_says_each_count_once_in_the_right_number(
    argv: list[str], header: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: 'one: 2 models x 1 task (2 models x 1 tasks read)'."""
    assert main([*argv, *(["--reps", "100"] if argv[0] == "leaderboard" else [])]) == 0
    assert capsys.readouterr().out.splitlines()[0] == header


def test_the_issues_header_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """#30: 'one: 2 models x 1 task (2 models x 1 tasks read)' is now said once."""
    table = tmp_path / "one.csv"
    table.write_text("model,task,category,n,correct\na,t,c,100,60\nb,t,c,100,70\n")
    assert main(["leaderboard", str(table), "--reps", "100"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "one: 2 models x 1 task"
