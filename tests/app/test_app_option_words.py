"""AppTest: the app's words for the options core's messages name (issue 41): the control that
sets the option, by the label the page shows (``dashboard.words``), in an error and in a note;
the same refusal the CLI words with its flag (``tests/cli/test_cli_option_words.py``) and the
Python API with its keyword (``tests/core/test_options.py``)."""

from __future__ import annotations

from pathlib import Path

from app_upload import open_data_page, upload
from option_words import APP, CLI, PYTHON, REFUSED, partial_credit_csv, two_runs

from benchuq.dashboard.words import CONTROLS, JUDGE_METHOD

ROOT = Path(__file__).resolve().parents[2]


def test_the_error_names_the_sidebar_control(make_app) -> None:
    at = upload(open_data_page(make_app), "partial.csv", partial_credit_csv())
    assert not at.exception and not at.error, [e.value for e in at.error]
    control = at.sidebar.selectbox(key="statistic")
    assert control.label == CONTROLS["statistic"].label
    control.set_value("pass@2").run()
    assert not at.exception  # a refusal, not a traceback
    (error,) = [e.value for e in at.sidebar.error]
    assert REFUSED in error and APP in error
    assert CLI not in error and PYTHON not in error
    assert at.sidebar.selectbox(key="statistic").value == "mean"  # what the page now shows


def test_a_note_names_the_data_page_control(make_app) -> None:
    at = open_data_page(make_app)
    at.file_uploader(key="uploader").set_value(
        [(name, data, "application/json") for name, data in two_runs()]
    ).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = " ".join(m.value for m in at.markdown)
    assert "load with the Data page's **Keep every run**: on\\." in shown  # Markdown
    assert "--runs" not in shown and "runs=" not in shown
    assert at.toggle(key="upload_all_runs").label == CONTROLS["runs"].label


def test_every_label_is_a_label_the_pages_write() -> None:
    """The words cannot drift from the controls: each label is in the pages' sources."""
    sources = "".join(
        p.read_text(encoding="utf-8")
        for d in ("pages", "dashboard")
        for p in (ROOT / d).rglob("*.py")
        if p.name != "words.py"
    )
    missing = [c.label for c in (*CONTROLS.values(), JUDGE_METHOD) if f'"{c.label}"' not in sources]
    assert missing == []
