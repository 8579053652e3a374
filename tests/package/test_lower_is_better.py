"""A lower-is-better metric (error rates 0.10, 0.11, 0.40) gets the same leader, order and
"≈ leader" marks everywhere: core's leaderboard (weighted group included), the CLI table and
JSON, the Leaderboard page, its CSV download and the report (issue 25)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import page_path

from benchuq.cli.main import main
from benchuq.core.findings import findings
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading import load_path
from benchuq.core.summaries import leaderboard
from benchuq.dashboard.leaderboard import view as views
from benchuq.presentation import report
from benchuq.presentation.text import csv_bytes

# errors per task out of N: A 0.10, B 0.11, C 0.40 in every task (two categories of two tasks)
N = 500
ERRORS = {"A": 50, "B": 55, "C": 200}
ORDER = ["A", "B", "C"]  # best (lowest error) first
TIED = [True, True, False]  # B cannot be told from A; C can


def error_csv() -> str:
    rows = ["model,task,category,n,correct,higher_is_better"]
    for m, e in ERRORS.items():
        for t, c in (("t1", "c1"), ("t2", "c1"), ("t3", "c2"), ("t4", "c2")):
            rows.append(f"{m},{t},{c},{N},{e},false")
    return "\n".join(rows) + "\n"


@pytest.fixture
def errors_file(tmp_path: Path) -> Path:
    path = tmp_path / "errors.csv"
    path.write_text(error_csv())
    return path


def _groups(table: pd.DataFrame, model: str = "model", tied: str = "tied_with_leader"):
    return {
        g: (list(part[model]), [bool(x) for x in part[tied]])
        for g, part in table.groupby("group", sort=False)
    }


def test_core_leaderboard_orders_by_higher_is_better(errors_file: Path) -> None:
    bench = load_path(str(errors_file))
    assert not bench.higher_is_better.any()
    draws = bootstrap(bench, reps=400, seed=0)
    table = leaderboard(
        draws, level=0.834, weights=np.array([0.6, 0.4])
    )  # not the default: S(w) shown
    groups = _groups(table)
    assert list(groups) == ["overall", "weighted", "c1", "c2"]
    for g, (models, tied) in groups.items():
        assert models == ORDER, g
        assert tied == TIED, g
    overall = table[table["group"] == "overall"]
    assert overall["estimate"].tolist() == pytest.approx([0.10, 0.11, 0.40])


def _cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(argv)) == 0
    return out.getvalue()


def test_cli_table_and_json(errors_file: Path) -> None:
    data = json.loads(_cli("leaderboard", str(errors_file), "--reps", "400", "--json"))
    groups = _groups(pd.DataFrame(data["rows"]))
    assert list(groups) == ["overall", "c1", "c2"]
    assert all(v == (ORDER, TIED) for v in groups.values()), groups
    text = _cli("leaderboard", str(errors_file), "--reps", "400")
    overall = text.split("[overall]")[1].split("[c1]")[0].strip().splitlines()
    header = next(k for k, line in enumerate(overall) if line.startswith("model"))
    lines = [line.split() for line in overall[header + 1 :]]
    assert [w[0] for w in lines] == ORDER
    assert [w[-1] == "≈" for w in lines] == TIED


def test_view_table_and_csv_download(errors_file: Path) -> None:
    draws = bootstrap(load_path(str(errors_file)), reps=400, seed=0)
    table = views.leaderboard_table(draws, 0.834, np.array([0.6, 0.4]))
    assert _groups(table, tied="tied") == {
        g: (ORDER, TIED) for g in ("overall", "weighted", "c1", "c2")
    }
    shown = views.display_table(table, 100.0)
    csv = pd.read_csv(io.BytesIO(csv_bytes(shown)))
    overall = csv[csv["group"] == views.group_label("overall")]
    assert list(overall["model"]) == ORDER
    assert list(overall["≈ leader"]) == TIED


def test_report_leader_order_and_marks(errors_file: Path) -> None:
    bench = load_path(str(errors_file))
    draws = bootstrap(bench, reps=400, seed=0)
    f = findings(bench, draws, level=0.834)
    assert f.leader == "A" and f.tied == ("B",)
    frame = report.table_frame(f, 100.0, "error (%)")
    assert list(frame["model"]) == ORDER
    assert list(frame["vs leader"]) == ["leader", "≈ leader", "below"]
    prov = report.provenance(bench, draws, 0.834, "?data=upload", "benchuq report errors.csv")
    page = report.to_html(f, prov, [], scale=100.0, unit="error (%)")
    rows = page.split("<table>")[1]
    assert rows.index("<td class=txt>A<") < rows.index("<td class=txt>B<")
    assert rows.index("<td class=txt>B<") < rows.index("<td class=txt>C<")


def test_leaderboard_page(make_app) -> None:
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    upload = [("errors.csv", error_csv().encode(), "text/csv")]
    at.file_uploader(key="uploader").set_value(upload).run()
    at.session_state["leaderboard_table"] = True  # the Leaderboard's table, open
    at.switch_page(page_path("leaderboard.py")).run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value  # what "Download table (CSV)" writes
    for g in table["group"].unique():
        part = table[table["group"] == g]
        assert list(part["model"]) == ORDER, g
        assert list(part["≈ leader"]) == TIED, g
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    tags = next(t for t in chart["data"] if t.get("name") == "tags")
    assert list(zip(tags["y"], tags["text"], strict=True)) == [("A", "leader"), ("B", "≈ leader")]
