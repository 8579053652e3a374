"""AppTest of the upload words (issue 30): a file dropped on the wrong uploader gets a message
naming it and where it belongs; the Embeddings page says why the sidebar's data set is not used;
every advanced control has a plain-words help line; Task weights states z as a level."""

from __future__ import annotations

import io
import zipfile

from app_upload import GOOD
from conftest import page_path

from benchuq.dashboard.subgroups.view import SPREAD_LABEL as SPREAD


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("results.csv", GOOD)
    return buf.getvalue()


def test_a_zip_on_the_task_table_uploader_is_named_with_where_it_belongs(make_app) -> None:
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="task_table").set_value([("runs.zip", _zip(), "application/zip")]).run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "'runs.zip' was dropped on the task table uploader" in errors
    assert "'Result files' above" in errors
    assert at.sidebar.selectbox(key="data").value == "sample:vtab1k"  # nothing else lost


def test_embeddings_says_why_the_sidebar_data_is_not_used(make_app) -> None:
    at = make_app({"reps": "200", "data": "sample:toy"}).run()
    at.switch_page(page_path("embeddings.py")).run()
    assert not at.exception
    info = " ".join(i.value for i in at.info).replace("\\", "")
    assert "The sidebar's data set, **toy**, holds scores" in info


def test_advanced_controls_have_plain_words(make_app) -> None:
    at = make_app({"reps": "200", "data": "sample:toy"}).run()
    at.switch_page(page_path("subgroups.py")).run()
    assert not at.exception
    helps = {w.label: w.help for w in [*at.radio, *at.selectbox, *at.checkbox]}
    for label in ("Kurtosis κ", "Finite-sample correction", "Cross-fit f"):
        assert helps[label].startswith("In plain words:"), label
    metrics = {m.label: m.proto.help for m in at.metric}
    assert metrics[SPREAD].startswith("In plain words:")
    assert metrics["Kurtosis κ used"].startswith("In plain words:")
    at.switch_page(page_path("bayes.py")).run()
    helps = {w.label: w.help for w in [*at.radio, *at.number_input]}
    for label in ("Sampler", "Chains", "Warm-up sweeps per chain", "Intervals for"):
        assert helps[label].startswith("In plain words:"), label


def test_task_weights_states_z_as_a_level(make_app) -> None:
    at = make_app({"reps": "200", "data": "sample:vtab1k", "z": "2"}).run()
    at.switch_page(page_path("weights.py")).run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "z = 2.00 is a 95.4% level" in captions and "the sidebar's level is 83.4%" in captions


def test_notes_name_a_list_of_files_once() -> None:
    """Thirteen files behind several notes: the first note lists them, the others refer to it."""
    from benchuq.core.reading.notes import group_notes
    from benchuq.dashboard.data.view import note_items

    files = [f"run_{k}/results.json" for k in range(13)]
    notes = group_notes(
        [(f, "task 'cola' skipped") for f in files] + [(f, "MMLU tasks renamed") for f in files]
    )
    items = note_items(notes)
    assert items[0].details == ("files: " + ", ".join(files),)
    assert items[1].details == ("files: the same 13 as note 1",)
    assert sum(f in " ".join(i.details) for i in items for f in files[:1]) == 1


def test_pages_with_another_level_say_so_next_to_the_claims(make_app) -> None:
    """Issue 30: one level governs a page; Compare and Ranks name theirs against the sidebar's."""
    at = make_app({"reps": "200", "data": "sample:toy"}).run()
    at.switch_page(page_path("compare.py")).run()
    assert not at.exception
    assert any("Not the sidebar's 83.4%" in c.value for c in at.caption)
    at.switch_page(page_path("ranks.py")).run()
    assert not at.exception
    assert any("not at the sidebar's 83.4%" in c.value for c in at.caption)
