"""The Judge page (METHODS 15) with AppTest: the MT-Bench sample, settings in the link, and the
message for an estimator the data cannot take."""

from __future__ import annotations

from collections.abc import Callable

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
    assert gpt4["judge alone"] > gpt4["high"]  # the judge is kinder to GPT-4 than people are
    text = " ".join(m.value for m in at.markdown)
    assert "corrected with 240 human labels" in text and "labels with the judge" in text
    agree = at.dataframe[1].value
    assert {"kappa", "sensitivity_low", "agreement without ties"} <= set(agree.columns)


def test_settings_travel_in_the_link(make_app: Callable[..., AppTest]) -> None:
    query = {"judge_method": "classical", "judge_target": "0.05", "judge_curve": "gpt-4"}
    at = _open(make_app, query)
    assert not at.exception and not at.error
    assert at.radio(key="judge_method").value == "classical"
    assert at.selectbox(key="judge_curve").value == "gpt-4"
    table = at.dataframe[0].value
    assert (table["estimate"] == table["labels alone"]).all()
    assert "± 5 points" in " ".join(m.value for m in at.markdown)
    assert at.query_params.get("judge_method") in ("classical", ["classical"])


def test_rogan_gladen_on_graded_scores_says_why(make_app: Callable[..., AppTest]) -> None:
    at = _open(make_app, {"judge_method": "rogan-gladen"})
    assert not at.exception
    assert "needs binary scores" in at.error[0].value
