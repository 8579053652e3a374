"""AppTest of the Report page: findings, figures, caveats and the two downloads, for a sample, an
upload and a Bayesian run."""

from __future__ import annotations

import json

from app_upload import GOOD, open_data_page, upload
from conftest import page_path


def _report(at):
    at.switch_page(page_path("report.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Report"
    labels = [b.proto.label for b in at.get("download_button")]
    assert {"Download report (HTML)", "Download report (PDF)"} <= set(labels)
    return at


def _text(at) -> str:
    return "\n".join(m.value for m in at.markdown).replace("\\", "")  # markdown escapes off


def test_report_of_the_sample(make_app) -> None:
    at = _report(make_app().run())
    text = _text(at)
    assert "No clear winner: Sup-Rotation-100% scores highest" in text
    assert "with 95% confidence" in text
    assert len(at.get("plotly_chart")) == 5  # three categories: the weighting map too
    assert "independent samples" in text  # the caveats


def test_report_of_an_upload(make_app) -> None:
    at = _report(upload(open_data_page(make_app), "mine.csv", GOOD))
    text = _text(at)
    assert "No clear winner: south scores highest, 65.0%" in text
    assert "2 tasks with fewer than" not in text  # 300-400 items per task
    assert at.code[0].value.startswith("benchuq report YOUR_FILES --method bootstrap")


def test_report_of_a_bayesian_run(make_app) -> None:
    at = _report(make_app({"reps": "400", "data": "sample:toy", "method": "bayes"}).run())
    assert "--method bayes" in at.code[0].value and "--chains" in at.code[0].value
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "Bayesian model of the items" in spec["layout"]["title"]["subtitle"]["text"]


def test_small_tasks_are_noted_once_on_the_data_page(make_app) -> None:
    small = GOOD.replace(b"north,t1,reading,400,300", b"north,t1,reading,20,15")
    at = upload(open_data_page(make_app), "small.csv", small)
    titles = [e.label for e in at.expander]
    assert any(t.startswith("Notes on this data") for t in titles), titles
    notes = "\n".join(m.value for m in at.markdown).replace("\\", "")
    assert notes.count("1 task with fewer than 30 items (t1)") == 1
    at = _report(at)
    table = at.dataframe[0].value.set_index("model")
    assert table.loc["north", "note"] == "1 task < 30 items"


def test_without_chromium_the_pdf_button_says_what_to_install(make_app, monkeypatch) -> None:
    """No browser on the server (issue 38): the HTML download works as ever; the PDF button is
    disabled, with the reason and what to install next to it (no spinner that never ends)."""
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    at = _report(make_app().run())
    buttons = {b.proto.label: b.proto for b in at.get("download_button")}
    assert not buttons["Download report (HTML)"].disabled
    pdf = buttons["Download report (PDF)"]
    assert pdf.disabled and "apt-get install chromium" in pdf.help
    assert any("apt-get install chromium" in c.value.replace("\\", "") for c in at.caption)


def test_without_chromium_chart_images_say_what_to_install(make_app, monkeypatch) -> None:
    """The "Download chart" menus: PNG and SVG disabled with the reason, the interactive HTML
    (no browser needed) as ever."""
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    at = make_app().run()
    assert not at.exception
    entries = {}
    for b in at.get("download_button"):
        entries.setdefault(b.proto.label, []).append(b.proto)
    assert entries["PNG image"] and entries["SVG image"] and entries["Interactive HTML"]
    for label in ("PNG image", "SVG image"):
        assert all(p.disabled and "apt-get install chromium" in p.help for p in entries[label])
    assert not any(p.disabled for p in entries["Interactive HTML"])
