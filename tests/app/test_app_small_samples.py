"""AppTest: results on few items are flagged on every page and the report says "too few items
to tell" (issue #29), for the real HELM suite (as a zip upload) and inspect_ai logs."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from app_upload import open_data_page as _open_data_page
from conftest import page_path

from benchuq.dashboard.links import PAGES as LINK_PAGES

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _helm_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for run in sorted((REAL / "helm" / "safety_v3").iterdir()):
            for f in sorted(run.iterdir()):
                z.write(f, f"runs/v3/{run.name}/{f.name}")
    return buf.getvalue()


def _upload(at, files: list[tuple[str, bytes, str]]):
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _page(at, page: str):
    at.switch_page(page_path(page)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _warnings(at) -> str:
    return "\n".join(w.value for w in at.warning).replace("\\", "")


PAGES = sorted(p.name for p in (REAL.parents[2] / "pages").glob("[!_]*.py"))
# pages whose analysis needs other data say so (an error naming the data), flag still shown
OTHER_DATA = {"arena.py": "not a", "bayes.py": "needs counts of correct answers"}
OWN_DATA = {p.file for p in LINK_PAGES if p.own_data}  # battles, judge scores, embeddings


def test_helm_suite_flags_few_items_on_every_page_and_in_the_report(make_app) -> None:
    at = _upload(_open_data_page(make_app), [("suite.zip", _helm_zip(), "application/zip")])
    assert len(PAGES) >= 15
    for page in PAGES:
        at.switch_page(page_path(page)).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        errors = [e.value.replace("\\", "") for e in at.error]
        assert all(OTHER_DATA.get(page, "no error expected") in e for e in errors), (page, errors)
        text = _warnings(at)
        assert "Few items" in text and "fewer than 30 items" in text, page
        # a page that analyses its own data names whose items are few (#41)
        own = "The sidebar's data set (suite: 9 models x 2 scenarios), not this page's: Few" in text
        assert own == (page in OWN_DATA), (page, text)
    at = _page(at, "plan.py")  # all-correct pairs: no variance to plan with, said in words
    assert any("score alike on every item" in i.value for i in at.info)
    at = _page(at, "compare.py")
    said = [e.value for kind in ("markdown", "info", "success", "warning") for e in at.get(kind)]
    assert any("Too few items to tell" in str(t) for t in said)
    captions = "\n".join(c.value for c in at.caption).replace("\\", "")
    assert "exact sign-flip test over the items" in captions  # 4 items: p = 2^(1 - 4) at best
    at = _page(at, "leaderboard.py")
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert all(c["layout"]["xaxis"]["range"][1] <= 100 for c in charts)  # no 120% axis
    bars = [t["error_x"] for c in charts for t in c["data"] if "error_x" in t]
    assert len(bars) >= 9  # one interval per model and group shown
    assert all(b["array"][0] + b["arrayminus"][0] > 0 for b in bars)  # none of zero width
    at = _page(at, "report.py")
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    assert "Too few items to tell" in text
    assert "pairs differ with 95% confidence" not in text


def test_inspect_logs_are_flagged_with_no_zero_width_interval(make_app) -> None:
    """The real JSON log and `.eval` logs together (6 models, 1-13 items each)."""
    logs = sorted(p for p in (REAL / "inspect_ai").rglob("*") if p.suffix in (".json", ".eval"))
    files = [(p.name, p.read_bytes(), "application/octet-stream") for p in logs]
    at = _upload(_open_data_page(make_app), files)
    at.session_state["leaderboard_table"] = True  # the Leaderboard's table, open
    at = _page(at, "leaderboard.py")
    assert "Few items: openai/gpt-4o-mini (13), ollama/llama3.1 (1)" in _warnings(at)
    table = at.dataframe[0].value
    assert len(table) >= 6 and (table["high"] - table["low"] > 5).all()  # percent
    # the few-items note next to the numbers, the Monte Carlo errors last: the note was the
    # column that scrolled out of sight (audit of 30); the download keeps the table's order
    assert list(at.dataframe[0].proto.column_order) == [
        "group",
        "model",
        "estimate",
        "low",
        "high",
        "≈ leader",
        "note",
        "MC error (low)",
        "MC error (high)",
    ]
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert all(c["layout"]["xaxis"]["range"][1] <= 100 for c in charts)
    at = _page(at, "report.py")
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    assert "Too few items to tell: ollama/gemma3" in text and "rests on 1 item," in text
