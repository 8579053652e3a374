"""One escaping helper per output context (benchuq/presentation/text.py): CSV, Markdown, Plotly
text."""

from __future__ import annotations

import csv
import io
import os

import numpy as np
import pandas as pd
import pytest

from benchuq.presentation.text import csv_bytes, csv_cell, md_escape, plotly_escape, visible

FORMULAS = ('=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", "@SUM(1+1)", "+1+1", "-2+3",
            "\t=1", "\r=1")  # fmt: skip


@pytest.mark.parametrize("cell", FORMULAS)
def test_csv_cells_that_start_a_formula_are_text(cell: str) -> None:
    assert csv_cell(cell) == "'" + visible(cell)  # a carriage return is shown, not written
    assert csv_cell("plain") == "plain" and csv_cell(1.5) == 1.5


def test_csv_bytes_neutralises_text_and_names_but_keeps_numbers() -> None:
    table = pd.DataFrame(
        {"model": list(FORMULAS[:3]), "estimate": [-0.5, 0.25, np.nan], "=bad header": [1, 2, 3]}
    )
    rows = list(csv.reader(io.StringIO(csv_bytes(table).decode())))
    assert rows[0] == ["model", "estimate", "'=bad header"]
    assert [r[0] for r in rows[1:]] == ["'" + c for c in FORMULAS[:3]]
    assert [r[1] for r in rows[1:]] == ["-0.5", "0.25", ""]  # numbers stay numbers
    assert all(not r[0].startswith(("=", "+", "-", "@")) for r in rows[1:])


def test_views_table_csv_is_neutralised() -> None:
    from benchuq.core.methods.bootstrap import bootstrap
    from benchuq.core.reading.loaders import load_files
    from benchuq.dashboard.table import view as views_table

    data = b'model,task,n,correct\n"=1+1",@t,100,50\nB,@t,100,60\n'
    bench = load_files([("f.csv", data)])
    draws = bootstrap(bench, reps=200, seed=0)
    table = views_table.wide_table(draws, 0.95, views_table.table_columns(bench), bench)
    text = views_table.to_csv(table).decode()
    assert "'=1+1" in text and "'@t" in text
    assert not any(line.startswith(("=", "@")) for line in text.splitlines())


def test_bidi_and_controls_are_shown() -> None:
    assert visible("\u202egnp.exe") == "[U+202E]gnp.exe"
    assert visible("a\x00b\u200bc") == "a[U+0000]b[U+200B]c"
    assert visible("tab\tand\nnewline") == "tab\tand\nnewline"


def test_markdown_escape_kills_links_autolinks_and_headings() -> None:
    out = md_escape("[a](http://x.io) www.x.io <b>\n===\n&#x202E;")
    assert "](" not in out and "http://" not in out and "www.x" not in out
    assert "<b>" not in out and "\n===" not in out and "&#" not in out
    assert out.replace("\\", "") == "[a](http://x.io) www.x.io <b>\n===\n&#x202E;"


def test_plotly_escape_makes_tags_text() -> None:
    out = plotly_escape('<a href="http://x">y</a> & \u202e')
    assert out == '&lt;a href="http://x"&gt;y&lt;/a&gt; &amp; [U+202E]'


def test_matplotlib_config_dir_without_home(tmp_path, monkeypatch) -> None:
    from benchuq.presentation import mpl_config

    blocked = tmp_path / "file"
    blocked.write_text("")  # a directory cannot be made under a file, not even by root
    assert mpl_config.writable_config_dir([blocked, tmp_path]) == str(
        tmp_path / "benchuq-matplotlib"
    )
    assert mpl_config.writable_config_dir([blocked]) is None
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(mpl_config.tempfile, "gettempdir", lambda: str(blocked))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(mpl_config, "writable_config_dir", lambda c: next(
        (str(p) for p in c if str(p) == str(tmp_path)), None))  # fmt: skip
    mpl_config.ensure_config_dir()
    assert os.environ["MPLCONFIGDIR"] == str(tmp_path)
