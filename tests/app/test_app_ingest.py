"""AppTest: a real lm-eval v0.4 folder uploaded file by file (with the strays real folders hold),
notes shown once, the metric chosen from the files, run details, the leaderboard table page."""

from __future__ import annotations

from pathlib import Path

from conftest import page_path

from benchuq.core.findings import data_caveats
from benchuq.dashboard import cache

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "lm_eval"
#: 8 real lm-eval v0.4 files (4 results files, 4 sample files) and 6 files that are not results.
STRAYS = [
    ("README.md", b"# Evaluation runs\n"),
    (".DS_Store", b"\x00\x00\x00\x01Bud1\x00\x00\x10\x00"),
    ("config.yaml", b"model: hf\nbatch_size: 8\n"),
    ("LICENSE.txt", b"MIT License\n\nCopyright (c) 2020 EleutherAI\n\nPermission is hereby\n"),
    ("_provenance.txt", b"Copied from lm-evaluation-harness pull requests 2809, 2236, 3936.\n"),
    ("eval.log", b"INFO evaluating mmlu\n"),
]


def v04_files() -> list[tuple[str, bytes, str]]:
    real = sorted((REAL / "results_v04").glob("*.json")) + sorted(
        p for p in (REAL / "samples").rglob("*") if p.is_file()
    )
    files = [(p.name, p.read_bytes(), "application/json") for p in real]
    return files + [(n, b, "application/octet-stream") for n, b in STRAYS]


def uploaded(make_app):
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    files = v04_files()
    assert len(files) == 14
    at.file_uploader(key="uploader").set_value(files).run()
    return at


def notes_expanders(at) -> list:
    return [e for e in at.expander if e.label.startswith("Notes on this data")]


def pointers(at) -> list:
    return [p for p in at.get("page_link") if "notes on this data" in p.proto.label]


def test_fourteen_files_one_notes_expander_and_a_pointer_elsewhere(make_app) -> None:
    at = uploaded(make_app)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["data"] == "upload"
    assert at.metric[0].value == "4"  # four models
    (notes,) = notes_expanders(at)
    text = " ".join(m.value for m in notes.markdown).replace("\\", "")  # markdown escapes
    assert "6 files skipped — not results" in text
    assert "2 files: task 'cola' skipped — its metric is mcc, not acc" in text
    assert "sample files set aside" in text
    assert not any("skipped" in i.value for i in at.info)  # no notice per file
    assert not pointers(at)  # no pointer on the Data page itself
    at.switch_page(page_path("ranks.py")).run()
    assert not at.exception and not at.error
    (link,) = pointers(at)
    bench = cache.read_upload(at.session_state["_upload"]).bench
    n = len(bench.notes) + len(data_caveats(bench))  # + small tasks etc.
    assert link.proto.label.replace("\\", "") == f"{n} notes on this data: see the Data page."
    assert not any("skipped" in c.value for c in at.caption)


def test_metric_from_the_files_and_run_details(make_app) -> None:
    at = uploaded(make_app)
    details = next(e for e in at.expander if e.label.startswith("Run details"))
    frame = details.dataframe[0].value
    assert set(frame["n-shot"]) == {"0", "8"}  # asdiv is 8-shot
    assert "lm-eval 0.4.13.dev0, git eb02ba3" in set(frame.harness)
    metric = at.selectbox(key="upload_metric")
    assert {"acc", "acc_norm", "mcc"} <= set(metric.options)
    metric.set_value("acc_norm").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    tasks = list(at.dataframe[-1].value.columns)
    assert "hellaswag" in tasks and "abstract_algebra" not in tasks
    (notes,) = notes_expanders(at)
    assert "2 files skipped — no score of" in " ".join(m.value for m in notes.markdown)


def test_leaderboard_table_page(make_app) -> None:
    at = uploaded(make_app)
    at.switch_page(page_path("table.py")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert "mmlu (lm-eval, size-weighted)" in table.columns
    assert "mmlu (mean of 57 tasks)" in table.columns and len(table) == 4
    first = table.columns[0]
    assert table[first].str.match(r"^\d+\.\d \[\d+\.\d, \d+\.\d\]$").all()
    at.text_input(key="table_query").set_value("qwen").run()
    assert set(at.dataframe[0].value.index) == {"Qwen/Qwen2.5-1.5B", "Qwen/Qwen3-8B"}
    at.text_input(key="table_query").set_value("arc_").run()
    frame = at.dataframe[0].value
    cols = list(frame.columns)
    assert cols[0].startswith("Overall") and not any("hellaswag" in c for c in cols)
    # issue 41: a task's header carries the files' n-shot and metric, its cells lm-eval's stderr
    (arc,) = [c for c in cols if c.startswith("arc_easy")]
    assert "-shot" in arc and "acc" in arc
    scored = frame[arc][frame[arc] != "—"]
    assert len(scored) == 2 and scored.str.contains(r"\(lm-eval se \d+\.\d\)").all()
    at.selectbox(key="table_sort").set_value("arc_easy").run()
    assert not at.exception
    assert at.get("download_button")


def test_table_page_on_a_bundled_sample(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("table.py")).run()
    assert not at.exception and not at.error
    cols = list(at.dataframe[0].value.columns)
    assert cols[:2] == ["Overall (mean of 19 tasks)", "Average of 3 categories"]
    assert "natural (mean of 7 tasks)" in cols


def test_table_view_travels_in_the_link(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("table.py")).run()
    at.text_input(key="table_query").set_value("Sup-").run()
    at.multiselect(key="table_kinds").set_value(["Summaries", "Categories"]).run()
    at.toggle(key="table_descending").set_value(False).run()
    assert not at.exception and not at.error
    query = dict(at.query_params)
    assert query["table_query"] == "Sup-"
    assert query["table_kinds"] == "Summaries,Categories"
    assert query["table_descending"] == "off"
    shown = at.dataframe[0].value
    # a recipient of the link sees the same rows, columns and order
    other = make_app(query).run()
    other.switch_page(page_path("table.py")).run()
    assert not other.exception and not other.error
    assert other.text_input(key="table_query").value == "Sup-"
    again = other.dataframe[0].value
    assert list(again.index) == list(shown.index)
    assert list(again.columns) == list(shown.columns)
    assert all(m.startswith("Sup-") for m in again.index)
