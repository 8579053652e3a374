"""AppTest of the words (issue 41, Build 4 and 5): every page on the bundled samples shows none of
the jargon of ``tests/words.py`` outside tooltips and the Methods page; the weighted score
appears only at weights other than the default, with a line on why its order can differ; arena
ratings are whole numbers in the table and the hover texts; an uploaded folder is named by it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import page_path
from words import jargon, visible_text

PAGES = sorted(
    p.name
    for p in (Path(__file__).resolve().parents[2] / "pages").glob("*.py")
    if p.name not in ("__init__.py", "methods.py")  # the Methods page is the glossary itself
)
EVAL_ZIP = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "inspect_ai" / "eval_zip"


def _every_page(at) -> dict[str, list[str]]:
    """The visible text of the first screen and of every page (no exception on any)."""
    shown = {"first screen": visible_text(at)}
    for page in PAGES:
        at.switch_page(page_path(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        shown[page] = visible_text(at)
    return shown


@pytest.mark.parametrize(
    "query",
    [
        {},  # a first visit: VTAB-1k with the introduction
        {"data": "sample:toy"},
        {"data": "sample:alpaca_eval"},  # item-level, paired
        {"data": "sample:mmlu", "weights": "2,1,1,1"},  # lm-eval counts, weighted
        {"data": "upload"},  # a reload after an upload: the notice, and the sample meanwhile
    ],
    ids=["vtab1k", "toy", "alpaca_eval", "mmlu-weighted", "upload-reloaded"],
)
def test_no_page_shows_jargon(make_app, query: dict[str, str]) -> None:
    at = make_app({**({"reps": "200"} if query else {}), **query}).run()
    assert not at.exception
    found = {page: jargon(texts) for page, texts in _every_page(at).items()}
    found = {page: words for page, words in found.items() if words}
    assert not found, found


def test_the_weighted_score_only_at_other_weights_with_why(make_app) -> None:
    """Item 5: at the default weights no page offers or shows the weighted score (Leaderboard
    charts, Compare's and Plan's score choices, the Ranks page's score); at other weights the
    Leaderboard and Ranks pages show it with the line on why its order can differ."""
    at = make_app({"reps": "200", "data": "sample:vtab1k"}).run()
    for page in ("leaderboard.py", "compare.py", "plan.py", "ranks.py"):
        at.switch_page(page_path(page)).run()
        text = " ".join(visible_text(at))
        assert "Weighted score" not in text and "weighted score with weights" not in text, page
    why = "The two orders can differ when models are strong in different categories."
    at = make_app({"reps": "200", "data": "sample:vtab1k", "weights": "2,1,1"}).run()
    for page in ("leaderboard.py", "ranks.py"):
        at.switch_page(page_path(page)).run()
        text = " ".join(visible_text(at))
        assert why in text, page
    assert "Weighted score (by category weights)" in " ".join(
        visible_text(at.switch_page(page_path("leaderboard.py")).run())
    )
    at.switch_page(page_path("compare.py")).run()
    assert "Weighted score (by category weights)" in at.selectbox(key="compare_score").options


def test_arena_ratings_are_whole_numbers(make_app) -> None:
    at = make_app({"reps": "200", "data": "sample:toy"}).run()  # scores: the bundled battles
    at.switch_page(page_path("arena.py")).run()
    assert not at.exception
    (table,) = [t for t in at.dataframe if "rating" in t.value.columns]
    assert list(table.value.columns[:5]) == ["model", "rating", "low", "high", "rank"]
    for col in ("rating", "low", "high"):
        assert all(float(v) == int(v) for v in table.value[col]), col
    hovers = [
        trace["hovertemplate"]
        for chart in at.get("plotly_chart")
        for trace in json.loads(chart.proto.spec)["data"]
        if "rating" in str(trace.get("hovertemplate", ""))
    ]
    assert hovers and all(re.search(r"rating \d+ \[\d+, \d+\]", h) for h in hovers), hovers


def test_an_uploaded_folder_is_named_by_it(make_app) -> None:
    """The files of one folder (as a folder upload sends them) name the data by the folder, not
    'inspect_ai 0.3: ...'; no page shows jargon on these inspect logs."""
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    files = [
        (f"eval_zip/{f.name}", f.read_bytes(), "application/zip")
        for f in sorted(EVAL_ZIP.glob("*.eval"))
    ]
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    success = " ".join(s.value for s in at.success).replace("\\", "")
    assert "In use: **eval_zip: 6 models x 2 tasks**" in success
    assert "inspect_ai 0.3" not in success
    found = {page: jargon(texts) for page, texts in _every_page(at).items()}  # item-level logs
    found = {page: words for page, words in found.items() if words}
    assert not found, found
