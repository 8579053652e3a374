"""AppTest: real inspect_ai ``.eval`` logs uploaded on the Data page (issue 26): items and answers
(epochs) shown, the scorers offered by the metric picker, the failed-samples option."""

from __future__ import annotations

from pathlib import Path

from conftest import page_path

EVAL_DIR = Path(__file__).parents[1] / "fixtures" / "real" / "inspect_ai" / "eval_zip"


def test_eval_logs_upload_with_epochs_scorers_and_the_failed_option(make_app) -> None:
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    files = [(p.name, p.read_bytes(), "application/zip") for p in sorted(EVAL_DIR.glob("*.eval"))]
    at.file_uploader(key="uploader").set_value(files).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["data"] == "upload"
    assert at.metric[0].value == "6"  # models: six scored logs (one unscored log skipped)
    (answers,) = [e for e in at.expander if e.label.startswith("Items and answers")]
    assert "epochs" in answers.label
    frame = answers.dataframe[0].value
    row = frame[frame["model"] == "azureai/Meta-Llama-3-1-405B-Instruct-jqf"].iloc[0]
    assert (row["n_items"], row["n_answers"]) == (2, 4)
    metric = at.selectbox(key="upload_metric")
    assert {"match", "choice"} <= set(metric.options)
    metric.set_value("choice").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert list(at.dataframe[-1].value.columns) == ["inspect_evals/mmlu_0_shot"]
    at.checkbox(key="upload_failed_wrong").check().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["_upload"].failed == "wrong"


def test_a_rescored_log_loads_with_a_note_and_a_wrong_metric_can_be_undone(make_app) -> None:
    """Issue 41: a log whose header names a scorer its samples do not carry loads with the
    carried scorer; picking one that fails leaves the picker listing what the files offer."""
    import json

    from inspect_logs import inspect_log

    log = inspect_log(6, seed=3, scorers=("match", "includes"))
    log["results"] = {"total_samples": 6, "scores": [{"name": "model_graded_qa"}]}
    # one sample lacks 'includes': choosing it fails, naming the scorers that sample carries
    del log["samples"][2]["scores"]["includes"]
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    data = json.dumps(log).encode()
    at.file_uploader(key="uploader").set_value([("rescored.json", data, "application/json")])
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["data"] == "upload"
    shown = " ".join(str(e.value) for e in [*at.caption, *at.markdown]).replace("\\", "")
    assert "re-scored" in shown and "'model_graded_qa'" in shown
    metric = at.selectbox(key="upload_metric")
    assert {"match", "includes"} <= set(metric.options) and not metric.disabled
    metric.set_value("includes").run()
    assert not at.exception
    assert any("has no score of scorer 'includes'" in e.value for e in at.error)
    metric = at.selectbox(key="upload_metric")
    assert {"match", "includes"} <= set(metric.options) and not metric.disabled
    metric.set_value("match").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
