"""The Judge page (METHODS 15) with AppTest: the MT-Bench sample, settings in the link, and the
message for an estimator the data cannot take."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from benches import judge_few_labels
from conftest import page_path
from streamlit.testing.v1 import AppTest

PAGE = page_path("judge.py")


def _open(make_app: Callable[..., AppTest], query: dict[str, str]) -> AppTest:
    at = make_app({"reps": "200", **query}).run()
    return at.switch_page(PAGE).run()


def test_sample_estimates_agreement_and_curve(make_app: Callable[..., AppTest]) -> None:
    at = _open(make_app, {})
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "sample:mt_bench" in at.info[0].value
    assert len(at.get("plotly_chart")) == 3
    table = at.dataframe[0].value
    assert list(table["model"])[-1] == "overall" and len(table) == 7
    gpt4 = table[table.model == "gpt-4"].iloc[0]
    assert gpt4["judge alone (%)"] > gpt4["high (%)"]  # the judge is kinder to GPT-4 than people
    assert 60 < gpt4["corrected (%)"] < 90  # percent, as the chart beside it (not 0.744)
    text = " ".join(m.value for m in at.markdown)
    assert "corrected with 240 human labels" in text and "labels with the judge" in text
    agree = at.dataframe[1].value
    assert {"kappa", "sensitivity low (%)", "agreement without ties (%)"} <= set(agree.columns)
    assert agree["agreement (%)"].max() > 1 and agree["kappa"].max() <= 1


def test_settings_travel_in_the_link(make_app: Callable[..., AppTest]) -> None:
    query = {"judge_method": "classical", "judge_target": "0.05", "judge_curve": "gpt-4"}
    at = _open(make_app, query)
    assert not at.exception and not at.error
    assert at.radio(key="judge_method").value == "classical"
    assert at.selectbox(key="judge_curve").value == "gpt-4"
    table = at.dataframe[0].value
    assert (table["corrected (%)"] == table["labels alone (%)"]).all()
    text = " ".join(m.value for m in at.markdown)
    assert "± 5 points" in text
    assert "the 240 human labels alone give" in text and "corrected" not in text  # no judge
    assert at.query_params.get("judge_method") in ("classical", ["classical"])
    target = at.number_input(key="judge_target")
    assert target.value == 5.0 and "points" in target.label  # points on screen, as the tables
    target.set_value(4.0).run()
    assert at.query_params.get("judge_target") in ("0.04", ["0.04"])  # a proportion in the link
    assert "± 4 points" in " ".join(m.value for m in at.markdown)


def test_rogan_gladen_on_graded_scores_says_why(make_app: Callable[..., AppTest]) -> None:
    at = _open(make_app, {"judge_method": "rogan-gladen"})
    assert not at.exception
    assert "needs binary scores" in at.error[0].value


def test_uploaded_item_table_and_labels(make_app: Callable[..., AppTest]) -> None:
    rng = np.random.default_rng(0)
    y = (rng.random(400) < 0.6).astype(float)
    f = np.where(y == 1, rng.random(400) < 0.9, rng.random(400) > 0.7).astype(float)
    items = pd.DataFrame({"model": np.repeat(["m1", "m2"], 200), "task": "qa",
                          "item": [f"x{k}" for k in range(400)], "grade": f})  # fmt: skip
    labels = items.assign(human=y).iloc[::4][["model", "item", "human"]]
    at = _open(make_app, {"judge_method": "rogan-gladen"})
    at.file_uploader(key="judge_files").set_value(
        [("items.csv", items.to_csv(index=False).encode(), "text/csv")]
    )
    at.file_uploader(key="judge_labels").set_value(
        [("labels.csv", labels.to_csv(index=False).encode(), "text/csv")]
    )
    at.text_input(key="judge_col").set_value("grade").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert set(table["model"]) == {"m1", "m2", "overall"} and table["model"].iloc[-1] == "overall"
    assert (table["labels"] == [50, 50, 100]).all()
    assert "YOUR_FILES" in at.code[0].value


def test_few_labels_say_their_interval_is_the_labels_own(make_app: Callable[..., AppTest]) -> None:
    """12 labels among 400 items (METHODS 15g): the page loads, its answer and planning say the
    interval is at least the labels' own, and the few-labels note names the rows."""
    table = judge_few_labels(np.random.default_rng(3), 12)
    at = _open(make_app, {})
    at.file_uploader(key="judge_files").set_value(
        [("few.csv", table.to_csv(index=False).encode(), "text/csv")]
    ).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = [*at.markdown, *at.caption, *at.info, *at.warning]
    text = " ".join(m.value for m in shown).replace("\\", "")  # markdown escapes dropped
    assert "at least as wide as the labels alone give" in text
    assert "with 12 labels now (fewer than 30) the interval is the labels' own" in text
    assert "Few labels: m on t (12), overall (12)" in text
