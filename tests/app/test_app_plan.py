"""AppTest of the Plan page: numbers as core.analyses.power gives them, link parameters, bad
inputs."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from conftest import FAST_QUERY, page_path

from benchuq.core.analyses import power as pw
from benchuq.core.reading.loaders import load_sample

PAGE = "plan.py"
ALPACA3 = [("claude-2", "claude-2.1"), ("claude-2", "gpt-3.5-turbo-1106")]


def open_page(make_app, ok: bool = True, **query: str):
    at = make_app({**FAST_QUERY, **query})
    at.run()
    at.switch_page(page_path(PAGE)).run()
    assert not at.exception, at.exception
    if ok:
        assert not at.error, [e.value for e in at.error]
    return at


def sentences(at) -> list[str]:
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    return [line[2:] for line in text.splitlines() if line.startswith("- ") and " vs " in line]


def best_use(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Best use")).replace("\\", "")


def charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_the_sentences_come_with_plain_words_and_their_level_against_the_sidebars(
    make_app,
) -> None:
    """'detectable at 2.9 points now ...; ... at 80% power (power now 100%)' lost the reader,
    and the page's 95% stood beside the sidebar's 83.4% without a word (audit of 30)."""
    at = open_page(make_app, data="sample:alpaca_eval")
    key = next(c.value for c in at.caption if c.value.startswith("How to read these"))
    assert "*detectable at x* is the smallest true difference" in key
    assert "in 80% of evaluations" in key and "*Power now*" in key
    assert "at the 95% level for all pairs together — not the sidebar's 83.4%" in key


def test_alpaca_eval_numbers_match_core(make_app) -> None:
    at = open_page(make_app, data="sample:alpaca_eval")
    bench = load_sample("alpaca_eval")
    design = pw.design_from_benchmark(
        bench, models=["claude-2", "claude-2.1", "gpt-3.5-turbo-1106"]
    )
    plan = pw.plan(design, delta=0.01)
    assert sentences(at) == [plan.sentence(k) for k in range(3)]
    assert sentences(at)[0].startswith("claude-2 vs claude-2.1: detectable at 2.9 points now")
    power_fig, mde_fig, sampling_fig = charts(at)
    for fig in (power_fig, mde_fig, sampling_fig):
        sub = fig["layout"]["title"]["subtitle"]["text"]
        assert "alpaca_eval" in sub and "95% family-wise" in sub and "80% power" in sub
    assert power_fig["layout"]["title"]["text"] == "Power to detect a difference of 1 point"
    assert len(power_fig["data"]) == 3 and power_fig["data"][0]["name"] == "claude-2 vs claude-2.1"
    table = at.dataframe[0].value
    assert list(table["items now"]) == [805] * 3
    np.testing.assert_allclose(table["MDE now"], np.round(plan.mde * 100, 2))


def test_mmlu_counts_say_rho_is_assumed(make_app) -> None:
    at = open_page(make_app, data="sample:mmlu")
    caption = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "is assumed: task counts cannot show it" in caption
    assert all("(14,042 items)" in s for s in sentences(at))
    at.slider(key="plan_rho").set_value(0.5).run()
    assert at.query_params["plan_rho"] == "0.5"
    assert "assumed rho = 0.5" in " ".join(c.value for c in at.caption).replace("\\", "")


def test_settings_travel_in_the_link(make_app) -> None:
    at = open_page(
        make_app,
        data="sample:alpaca_eval",
        plan_level="0.9",
        plan_power="0.9",
        plan_delta="2",
        plan_models="claude-2,phi-2",
        plan_correction="bonferroni",
    )
    assert at.slider(key="plan_level").value == 90.0 and at.slider(key="plan_power").value == 90
    (text,) = sentences(at)
    assert text.startswith("claude-2 vs phi-2:") and "to detect 2 points at 90% power" in text
    assert at.query_params["plan_models"] == "claude-2,phi-2"
    at.number_input(key="plan_delta").set_value(3.0).run()
    assert at.query_params["plan_delta"] == "3"
    at.selectbox(key="plan_correction").set_value("maxt").run()
    assert "plan_correction" not in at.query_params  # back at the default: left out
    # another page and back: the plan's settings stay, on screen and in the link
    at.switch_page(page_path("leaderboard.py")).run()
    assert at.query_params["plan_delta"] == "3"
    at.switch_page(page_path("plan.py")).run()
    assert not at.exception and not at.error
    assert at.number_input(key="plan_delta").value == 3.0
    assert at.slider(key="plan_power").value == 90
    assert at.query_params["plan_delta"] == "3" and at.query_params["plan_power"] == "0.9"


def test_bad_link_values_warn_and_fall_back(make_app) -> None:
    at = open_page(
        make_app,
        data="sample:alpaca_eval",
        plan_level="abc",
        plan_mode="sideways",
        plan_models="nope,phi-2",
    )
    warnings = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "plan_level" in warnings and "plan_mode" in warnings and "plan_models" in warnings
    assert at.multiselect(key="plan_models").value == ["phi-2"]
    assert any("Pick at least two models" in w.value for w in at.warning)
    assert at.query_params["plan_models"] == "phi-2"  # the link is written after the stop
    at.multiselect(key="plan_models").select("claude-2").run()
    assert at.slider(key="plan_level").value == 95.0 and len(sentences(at)) == 1


@pytest.mark.parametrize(
    ("acc", "corr", "says"),
    [
        ("abc", 0.0, "are not numbers"),
        ("70", 0.0, "at least two accuracies"),
        ("50, 90", 0.9, "at most 0.33"),
        ("70, 120", 0.0, "strictly between 0 and 1"),
    ],
)
def test_bad_assumptions_give_messages(make_app, acc: str, corr: float, says: str) -> None:
    at = open_page(make_app, ok=False, plan_mode="new")
    at.text_input(key="plan_acc").set_value(acc)
    at.slider(key="plan_corr").set_value(corr).run()
    assert not at.exception
    assert any(says in e.value.replace("\\", "") for e in at.error), [e.value for e in at.error]


def test_no_data_plan_uses_the_assumed_differences(make_app) -> None:
    at = open_page(make_app, plan_mode="new", plan_acc="70,72,75", plan_corr="0.5")
    texts = sentences(at)
    assert len(texts) == 3 and "to detect 2 points" in texts[0] and "detect 5 points" in texts[1]
    assert charts(at)[0]["layout"]["title"]["text"].startswith("Power to detect each pair")
    at.number_input(key="plan_cluster").set_value(5.0)
    at.slider(key="plan_icc").set_value(0.2).run()
    assert at.dataframe[0].value["design effect"][0] == pytest.approx(1.8)
    at.number_input(key="plan_sd").set_value(10.0).run()  # continuous scores in their own unit
    assert "units" in sentences(at)[0]


def test_answers_per_item_with_a_fixed_pool(make_app) -> None:
    at = open_page(make_app, data="sample:alpaca_eval")
    at.slider(key="plan_within").set_value(40.0)
    at.number_input(key="plan_budget").set_value(805 * 5).run()
    text = best_use(at)
    assert "805 items x 5 answer(s) each" in text
    fig = charts(at)[2]
    assert fig["data"][1]["x"] == [5]
    at.radio(key="plan_grow").set_value("add").run()  # new items cost nothing: one answer each
    text = best_use(at)
    assert "4,025 items x 1 answer(s) each" in text


def test_uploaded_clusters_give_the_design_effect(make_app) -> None:
    rng = np.random.default_rng(0)
    rows = ["model,task,item,score,cluster"]
    p = rng.beta(3, 2, (100, 2))  # design effect about 1 + 4 x 0.17
    for g in range(100):
        for i in range(5):
            for m, model in enumerate("AB"):
                rows.append(f"{model},t,q{g}_{i},{int(rng.random() < p[g, m])},c{g}")
    at = make_app(FAST_QUERY).run()
    at.switch_page(page_path("data.py")).run()
    data = io.BytesIO("\n".join(rows).encode()).getvalue()
    at.file_uploader(key="uploader").set_value([("items.csv", data, "text/csv")]).run()
    at.switch_page(page_path(PAGE)).run()
    assert not at.exception and not at.error
    caption = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "Clusters (mean size 5.0)" in caption
    assert at.dataframe[0].value["design effect"][0] > 1.2


def test_estimate_and_se_data_plan_in_multiples_of_today(make_app) -> None:
    table = b"model,task,category,estimate,se\nA,t1,c,0.71,0.01\nB,t1,c,0.69,0.012\n"
    at = make_app(FAST_QUERY).run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("es.csv", table, "text/csv")]).run()
    at.switch_page(page_path(PAGE)).run()
    assert not at.exception and not at.error
    (text,) = sentences(at)
    assert text.startswith("A vs B: detectable at 4.4 points now;") and "x today's items" in text
    assert any("no item counts" in i.value for i in at.info)
