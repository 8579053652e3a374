"""AppTest: the link in ``bq.report``'s report opens the view the report shows (issue 30): the
level, draws, seed, models and category weights it was written with, and the Report page then
leads with the same finding (``presentation.report_link``)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qsl

from conftest import page_path

import benchuq as bq
from benchuq.presentation.report_link import NOT_SHARED

MODELS = ["VAE", "Rotation", "Jigsaw"]  # not in data order: the link writes data order


def report_link(path: Path) -> str:
    """The share link written in a report file (its query string)."""
    doc = html.unescape(path.read_text(encoding="utf-8"))
    found = re.findall(r"\?data=[^\s<\"]+", doc)
    assert len(set(found)) == 1, found
    return found[0]


def test_the_python_reports_link_restores_its_view_in_the_app(make_app, tmp_path: Path) -> None:
    bench = bq.load("sample:vtab1k")
    out = bq.report(
        bench, tmp_path / "r.html", reps=300, seed=3, level=0.9, models=MODELS,
        group=[0.5, 0.3, 0.2],
    )  # fmt: skip
    link = report_link(out)
    query = dict(parse_qsl(link.removeprefix("?")))
    assert query == {
        "data": "sample:vtab1k",
        "level": "0.9",
        "reps": "300",
        "seed": "3",
        "weights": "0.5,0.3,0.2",
        "models": "Rotation,Jigsaw,VAE",
        "report_score": "weighted",
    }
    at = make_app(query).run()
    at.switch_page(page_path("report.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]  # no parameter fell back
    ss = at.session_state
    assert (ss["data"], ss["level_pct"], ss["reps"], ss["seed"]) == ("sample:vtab1k", 90.0, 300, 3)
    assert list(ss["models"]) == ["Rotation", "Jigsaw", "VAE"]
    assert [ss[f"weight_{i}"] for i in range(3)] == [0.5, 0.3, 0.2]
    assert ss["report_score"] == "weighted"
    # the app's own link of this view is the same, less the default data set
    assert {k: at.query_params[k] for k in at.query_params} == {
        k: v for k, v in query.items() if k != "data"
    }
    # and the Report page leads with the report's own answer and numbers, on the weighted score
    doc = html.unescape(out.read_text(encoding="utf-8"))
    answer, findings = (m.value.replace("\\", "") for m in at.markdown[:2])
    for line in answer.split("\n\n"):
        assert line.strip("*") in doc, line
    score = "Score: weighted natural 0.50, specialized 0.30, structured 0.20."
    assert score in findings and score in doc


def test_the_overall_report_and_an_old_link_open_the_overall_score(make_app) -> None:
    """Without ``report_score`` (every link written before it) the Report page is about the
    overall score, as it was; the radio switches to the sidebar's weights."""
    at = make_app({"reps": "200", "weights": "2,1,1"}).run()
    at.switch_page(page_path("report.py")).run()
    assert at.session_state["report_score"] == "overall"
    assert "Score: weighted" not in at.markdown[1].value.replace("\\", "")
    at.radio(key="report_score").set_value("weighted").run()
    assert at.query_params["report_score"] == "weighted"
    assert "Score: weighted" in at.markdown[1].value.replace("\\", "")
    assert "--weights 0.5,0.25,0.25" in at.code[0].value


def test_a_report_of_files_says_to_publish_them_first(tmp_path: Path) -> None:
    csv = tmp_path / "toy.csv"
    csv.write_bytes((Path(__file__).parents[2] / "sample_data" / "toy.csv").read_bytes())
    out = bq.report(bq.load(csv), tmp_path / "r.html", reps=200, level=0.9)
    doc = html.unescape(out.read_text(encoding="utf-8"))
    assert NOT_SHARED in doc and "?data=" not in doc
    assert "add after data=shared:<id>: level=0.9&reps=200" in doc  # the view, for later
