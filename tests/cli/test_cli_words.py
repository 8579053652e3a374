"""The terminal's words (issue 41, Build 4 and 5): every subcommand's human output on the bundled
samples and real harness files shows none of the jargon of ``tests/words.py`` (``--help`` may
name the methods); the weighted score only with weights other than the default; whole-point arena
ratings; a folder names its data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from words import jargon

from benchuq.cli.main import main

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
VTAB_TOP = ["Sup-100%", "Sup-Rotation-100%", "Rotation"]

CASES: dict[str, list[str]] = {
    "leaderboard vtab1k": ["leaderboard", "sample:vtab1k"],
    "leaderboard toy": ["leaderboard", "sample:toy"],
    "leaderboard alpaca_eval": ["leaderboard", "sample:alpaca_eval"],
    "leaderboard mmlu": ["leaderboard", "sample:mmlu", "--normalize"],
    "leaderboard lm-eval": ["leaderboard", str(REAL / "lm_eval" / "results_v04")],
    "leaderboard inspect": ["leaderboard", str(REAL / "inspect_ai" / "eval_zip")],
    "ranks vtab1k": ["ranks", "sample:vtab1k"],
    "ranks weighted": ["ranks", "sample:vtab1k", "--weights", "0.5,0.25,0.25"],
    "compare": ["compare", "sample:vtab1k", "--models", *VTAB_TOP],
    "compare bonferroni": ["compare", "sample:vtab1k", "--models", *VTAB_TOP, "--correction",
                           "bonferroni"],
    "weights": ["weights", "sample:vtab1k"],
    "epp": ["epp", "sample:toy"],
    "export": ["export", "sample:toy"],
}  # fmt: skip
NO_REPS: dict[str, list[str]] = {
    "arena": ["arena", "sample:mt_bench_battles"],
    "power": ["power", "sample:vtab1k"],
    "eb": ["eb", "sample:alpaca_eval"],
    "bayes": ["bayes", "sample:toy", "--draws", "100", "--warmup", "50", "--chains", "2"],
    "judge": ["judge", "sample:mt_bench"],
    "diff": ["diff", "sample:alpaca_eval", "--base", "claude-2.1", "--candidate",
             "claude-2"],
}  # fmt: skip


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    if argv[0] == "export":
        argv = [*argv, "-o", str(tmp_path / "eee")]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, (argv, err)
    return out + err


@pytest.mark.parametrize("name", [*CASES, *NO_REPS])
def test_no_subcommand_prints_jargon(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = [*CASES[name], "--reps", "200"] if name in CASES else NO_REPS[name]
    text = _run(argv, capsys, tmp_path)
    assert not jargon([text]), jargon([text])


def test_the_weighted_score_only_at_other_weights(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Item 5: `benchuq ranks` ranks the overall score unless weights are given, then says why
    the weighted order can differ; one category (toy's ``all``) repeats no row."""
    plain = _run(["ranks", "sample:vtab1k", "--reps", "200"], capsys, tmp_path)
    weighted = ["ranks", "sample:vtab1k", "--reps", "200", "--weights", "0.5,0.25,0.25"]
    assert "weighted" not in plain
    text = _run(weighted, capsys, tmp_path)
    assert "weighted" in text and "orders can differ" in text
    board = _run(["leaderboard", "sample:toy", "--reps", "200"], capsys, tmp_path)
    assert "[all]" not in board and "[overall]" in board  # one category: no repeated rows


def test_arena_ratings_are_whole_points(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = _run(["arena", "sample:mt_bench_battles"], capsys, tmp_path)
    rows = [line for line in text.splitlines() if line.startswith("gpt-4 ")]
    assert rows and re.match(r"gpt-4\s+\d+\s+\d+\s+\d+\s+\d+\s", rows[0]), rows


def test_a_folder_names_its_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["leaderboard", str(REAL / "inspect_ai" / "eval_zip"), "--reps", "200"]
    assert _run(argv, capsys, tmp_path).startswith("eval_zip: 6 models x 2 tasks\n")


@pytest.mark.parametrize(
    "command",
    ["leaderboard", "compare", "diff", "ranks", "epp", "arena", "judge", "weights", "bayes", "eb",
     "embeddings", "power", "app", "report", "publish", "unpublish", "export", "site"],
)  # fmt: skip
def test_help_shows_percent_signs_once(capsys: pytest.CaptureFixture[str], command: str) -> None:
    """argparse %-formats an option's help but not a description: a ``%%`` written there was
    shown doubled ("a 5%% test" in ``benchuq leaderboard --help``)."""
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    assert "%%" not in capsys.readouterr().out


def test_the_rank_set_table_shows_scores_as_scores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Beside the rank columns the score read as a rank: model B at "0", A at "1" (scores 0 and
    1 printed with ``:g``; the audit of 2026-12-08); it is headed ``score`` and has 4 decimals."""
    path = tmp_path / "three.csv"
    path.write_text(
        "model,task,item,score\n" + "".join(f"A,t,{i},1\nB,t,{i},0\n" for i in range(3))
    )
    assert main(["ranks", str(path), "--reps", "100"]) == 0
    out = capsys.readouterr().out
    table = out.split("Rank confidence sets", 1)[1].splitlines()
    assert table[1].split()[:2] == ["model", "score"], table[1]
    assert table[2].split()[:2] == ["A", "1.0000"] and table[3].split()[:2] == ["B", "0.0000"]


def test_every_option_has_help() -> None:
    """``--method`` (eight subcommands) and ``power --accuracy`` were listed in ``--help`` with no
    word on what they do (the audit of 2026-12-08)."""
    import argparse

    from benchuq.cli.main import build_parser

    missing = [
        f"{name} {action.option_strings}"
        for top in build_parser()._actions
        if isinstance(top, argparse._SubParsersAction)
        for name, sub in top.choices.items()
        for action in sub._actions
        if action.option_strings and not action.help
    ]
    assert missing == []
