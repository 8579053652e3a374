"""The arena's figures (pure) and the report of a battles table (METHODS 8b)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchuq.cli.main import main
from benchuq.core.analyses.arena import arena
from benchuq.core.analyses.arena_synthetic import simulate_battles
from benchuq.dashboard.arena.view import control_options
from benchuq.presentation.figures.arena import arena_forest_figure, arena_heatmap
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.report_arena import caption, leaderboard_table


@pytest.fixture(scope="module")
def styled():  # type: ignore[no-untyped-def]
    bt = simulate_battles(np.array([0.6, 0.1, -0.7]), n=3000, seed=3, style=1.0, style_link=1.0)
    return arena(bt, control=["length"], anchor="m01")


def test_forest_sorted_with_uncontrolled_circles(styled) -> None:  # type: ignore[no-untyped-def]
    fig = arena_forest_figure(styled, FigureOptions(title="<b>x</b>"))
    solid = [t for t in fig.data if t.marker.symbol != "circle-open"]
    assert [t.y[0] for t in solid] == ["m00", "m01", "m02"]
    assert len(fig.data) == 6 and "<b>x</b>" not in json.dumps(fig.to_plotly_json())
    assert "m01 = 1000" in fig.layout.xaxis.title.text


def test_heatmap_and_views(styled) -> None:  # type: ignore[no-untyped-def]
    z = np.asarray(arena_heatmap(styled, FigureOptions()).data[0].z, float)
    assert z[0, 2] > 0.5 > z[2, 0]
    table = leaderboard_table(styled)
    assert list(table["model"]) == ["m00", "m01", "m02"] and "without control" in table
    assert "m01 fixed at 1000" in caption(styled) and "95%" in caption(styled)
    assert control_options(("length_a", "length_b", "turns")) == ("length", "turns")


def test_report_of_battles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bt = simulate_battles(np.array([0.5, 0.0, -0.5]), n=1000, seed=1)
    m = np.asarray(bt.models, object)
    winner = np.where(bt.score == 1, "model_a", np.where(bt.score == 0, "model_b", "tie"))
    data = tmp_path / "b.csv"
    pd.DataFrame({"model_a": m[bt.a], "model_b": m[bt.b], "winner": winner}).to_csv(data)
    out = tmp_path / "r.html"
    assert main(["report", str(data), "-o", str(out)]) == 0
    assert "pairwise battles: arena" in capsys.readouterr().out
    text = out.read_text()
    assert "Arena report" in text and "95% sandwich" in text
    assert text.count('class="plotly-graph-div"') == 3  # ratings, rank sets, win matrix
    assert "benchuq arena" in text and "best model" in text
    again = tmp_path / "again.html"
    assert main(["report", str(data), "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()  # the same battles, the same bytes (issue 40)


def test_command_reproduces_the_page() -> None:
    from benchuq.dashboard.arena.view import ArenaSettings, command

    s = ArenaSettings(anchor="claude-2", ties="davidson", interval="bootstrap", control=("length",))
    got = command("sample:alpaca_eval", s, 0.834)
    assert got == (
        "benchuq arena sample:alpaca_eval --level 0.834 --ties davidson --interval bootstrap "
        "--anchor claude-2 --control length"
    )
    assert command("abc123", ArenaSettings(), 0.95).startswith("benchuq arena YOUR_FILES")
