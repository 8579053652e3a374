"""Issue 40's hostile cases through the outputs: a 300-character model name through ``benchuq
export`` (file names), formula names through ``--format csv`` and ``-o x.csv`` (one
spreadsheet-safe writer), a newline in a task name through ``benchuq diff --format markdown``,
control characters and huge names in labels, and an emptied ``index.db``."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from hostile_corpus import NEWLINE_TASK, Case, answered, newline_task_items

from benchuq.cli.main import main
from benchuq.core.data import LABEL_LIMIT, cut_label, file_name_part
from benchuq.presentation.text import csv_cell, file_stem, md_cell, plotly_escape

CASES = {c.id: c for c in answered()}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _file(tmp_path: Path, case: Case) -> str:
    path = tmp_path / case.name
    path.write_bytes(case.data)
    return str(path)


def test_a_300_character_name_exports_and_keeps_its_full_name(tmp_path, capsys) -> None:
    case = CASES["name_300_characters"]
    out = tmp_path / "out"
    argv = ["export", _file(tmp_path, case), "--format", "eee", "-o", str(out)]
    assert main([*argv, "--reps", "100"]) == 0, capsys.readouterr().err
    files = sorted(out.rglob("*.json"))
    assert len(files) == 2 and all(len(p.name.encode()) <= 255 for p in out.rglob("*"))
    ids = {json.loads(p.read_text())["model_info"]["id"] for p in files}
    assert ids == {"n" * 300, "B"}  # the data keeps the full name


def test_file_name_parts_stay_short_and_apart() -> None:
    a, b = "n" * 300, "n" * 299 + "m"
    assert len(file_name_part(a)) == 100 and file_name_part(a) != file_name_part(b)
    assert file_name_part("short") == "short"
    assert len(file_name_part("é" * 200).encode()) <= 100  # bytes, not characters
    assert len(file_stem("x" * 10_000)) <= 100


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _formula_cells(text: str) -> list[str]:
    """Cells a spreadsheet would run: a formula start that is not a plain number."""

    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True

    return [c for c in _cells(text) if c.startswith(FORMULA_START) and not number(c)]


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        ("leaderboard", []),
        ("compare", ["--models", "+1+1", "B"]),
        ("ranks", []),
        ("epp", []),
    ],
)
def test_formula_names_through_format_csv_are_text(tmp_path, capsys, command, extra) -> None:
    data = _file(tmp_path, CASES["formula_mix"])
    argv = [command, data, "--reps", "100", *extra]
    assert main([*argv, "--format", "csv"]) == 0, capsys.readouterr().err
    shown = capsys.readouterr().out
    assert _formula_cells(shown) == [], _formula_cells(shown)
    assert "'+1+1" in shown
    target = tmp_path / f"{command}.csv"
    assert main([*argv, "-o", str(target)]) == 0
    written = target.read_text()
    assert _formula_cells(written) == [] and "'+1+1" in written


def test_the_api_writes_the_same_safe_csv(tmp_path) -> None:
    import benchuq as bq

    bench = bq.load(_file(tmp_path, CASES["formula_mix"]))
    board = bq.leaderboard(bq.bootstrap(bench, reps=100))
    text = board.to_csv()
    assert _formula_cells(text) == [] and "'@SUM(1+1)" in text
    board.to_csv(tmp_path / "board.csv")
    assert (tmp_path / "board.csv").read_text() == text


def test_a_newline_in_a_task_name_keeps_the_markdown_table_whole(tmp_path, capsys) -> None:
    case = newline_task_items()
    argv = ["diff", _file(tmp_path, case), "--base", "A", "--candidate", "B", "--reps", "100"]
    assert main([*argv, "--format", "markdown"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("| task |"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    table = lines[start:end]
    assert len(table) == 2 + 3, table  # head, rule, two tasks, overall: no row broken
    assert table[-1].startswith("| overall |")
    assert all(len(re.findall(r"(?<!\\)\|", row)) == 11 for row in table), table
    assert table[2].startswith("| line one<br>line two \\| =1\\+1 |"), table[2]


def test_md_cell_escapes_every_line_break_and_pipe() -> None:
    for brk in ("\n", "\r\n", "\r", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"):
        out = md_cell(f"a{brk}b|c")
        assert out == "a<br>b\\|c", (brk, out)
    assert "\n" not in md_cell(NEWLINE_TASK)


def test_labels_and_csv_cells_show_no_control_character_and_no_huge_name() -> None:
    assert csv_cell("a\x1b[31mred\x07") == "a[U+001B][31mred[U+0007]"
    assert "\x1b" not in plotly_escape("\x1b[2J")
    huge = "x" * 1_000_000
    assert len(plotly_escape(huge)) < 2 * LABEL_LIMIT
    assert "[1,000,000 characters]" in cut_label(huge)
    assert cut_label("x" * 300) != cut_label("x" * 299 + "y")  # the ends stay: apart


def test_the_report_figures_of_a_huge_name_are_small() -> None:
    import benchuq as bq
    from benchuq.core.reading.loaders import load_files

    data = CASES["very_long_name"].data
    bench = load_files([("long.csv", data)])
    fig = bq.leaderboard(bq.bootstrap(bench, reps=100)).figure()
    assert len(fig.to_json()) < 100_000  # the 100,000-character name is cut in every label


def test_an_emptied_index_says_the_index_was_lost(tmp_path, monkeypatch, capsys) -> None:
    location = tmp_path / "store"
    monkeypatch.setenv("BENCHUQ_STORE", str(location))
    assert main(["publish", "sample:toy", "--json"]) == 0
    ident = json.loads(capsys.readouterr().out)["id"]
    (location / "index.db").write_bytes(b"")
    assert main(["leaderboard", f"shared:{ident}"]) == 2
    err = capsys.readouterr().err
    assert "index (index.db) was lost" in err and "from a backup" in err
    assert "no published data set has the id" not in err
