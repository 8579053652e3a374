"""Real browser: the Bayesian model, Small subgroups and Embeddings pages react to their widgets.

Each test opens one page by its URL path with a small replicate count, changes a setting, waits
for the rerun and checks that the shown numbers or chart data changed and that no exception box
appeared. Screenshots go to tests/artifacts/ (gitignored).
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest
from browser_utils import (
    ARTIFACTS,
    VIEWPORT,
    exceptions_shown,
    screenshot,
    wait_charts,
    wait_for_text_then_idle,
    wait_idle,
)

from benchuq.dashboard.subgroups.view import SPREAD_LABEL as SPREAD

pytestmark = pytest.mark.browser
TIMEOUT = 90_000
#: The traces plotly.js drew (``_fullData``: binary-encoded arrays decoded), typed arrays as lists.
PLAIN_DATA = """el => JSON.stringify(
    el._fullData.map(t => ({type: t.type, name: t.name, x: t.x, y: t.y, z: t.z})),
    (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v)"""


def _clean(page, where: str) -> None:
    assert exceptions_shown(page) == [], where
    assert page.get_by_text("This app has encountered an error").count() == 0, where
    assert page.get_by_text("Traceback").count() == 0, where


def _open(browser, url: str):
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.goto(url)
    wait_idle(page, TIMEOUT)
    wait_charts(page, TIMEOUT)
    wait_idle(page, TIMEOUT)
    return ctx, page


def _chart_json(page, key: str) -> str:
    """The plotly traces of the chart with widget key ``key`` as drawn in the browser (JSON)."""
    plot = page.locator(f".st-key-{key} .js-plotly-plot")
    plot.wait_for(timeout=TIMEOUT)
    return plot.evaluate(PLAIN_DATA)


def _chart_data(page, key: str) -> list[dict]:
    return json.loads(_chart_json(page, key))


def _wait_chart_change(page, key: str, old: str) -> None:
    """Wait until the chart with widget key ``key`` draws traces other than ``old``."""
    page.wait_for_function(
        f"""([key, old]) => {{
            const el = document.querySelector(`.st-key-${{key}} .js-plotly-plot`);
            return el && el._fullData && ({PLAIN_DATA})(el) !== old; }}""",
        arg=[key, old],
        timeout=TIMEOUT,
    )
    wait_idle(page, TIMEOUT)


def _metric(page, label: str) -> str:
    box = page.get_by_test_id("stMetric").filter(has_text=label)
    return box.get_by_test_id("stMetricValue").inner_text().strip()


def _choose(page, label: str, option: str | re.Pattern[str]) -> None:
    """Pick ``option`` (its exact text, or a pattern) in the selectbox labelled ``label``."""
    box = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").filter(has_text=label).first
    box.scroll_into_view_if_needed()
    wait_idle(page, TIMEOUT)
    box.locator("input").click()
    exact = None if isinstance(option, re.Pattern) else True
    page.get_by_role("option", name=option, exact=exact).click()


def _prior(page, family: str, params: str) -> None:
    """Fill the prior editor (all models, a and b) and press Apply prior."""
    _choose(page, "Family", family)
    wait_idle(page, TIMEOUT)
    box = page.get_by_test_id("stTextInput").filter(has_text="Parameters").locator("input")
    box.fill(params)
    box.press("Enter")
    wait_idle(page, TIMEOUT)
    page.get_by_role("button", name="Apply prior").click()


def test_bayes_prior_editor_changes_intervals_and_rejects_bad_prior(browser, app_server) -> None:
    ctx, page = _open(browser, f"{app_server}/bayes?data=sample:toy&reps=400")
    _clean(page, "Bayes page")
    before = _chart_data(page, "bayes_intervals")
    assert {t["type"] for t in before} == {"scatter"}, "interval chart has its traces"

    _prior(page, "normal", "50, 5")
    # the link keeps one prior for all models, as written (README "Shareable links")
    page.wait_for_url(
        lambda url: "*:a=normal(50,5),b=normal(50,5)" in unquote(url), timeout=TIMEOUT
    )
    wait_idle(page, TIMEOUT)
    wait_charts(page, TIMEOUT)
    _clean(page, "after normal(50, 5)")
    after = _chart_data(page, "bayes_intervals")
    assert [t.get("name") for t in after] == [t.get("name") for t in before]
    assert json.dumps(after) != json.dumps(before), "the Bayesian intervals did not change"
    # Bootstrap intervals do not depend on the prior: only the Bayesian traces may move.
    boot = [t for t in before if "Bootstrap" in str(t.get("name"))]
    assert boot and boot == [t for t in after if "Bootstrap" in str(t.get("name"))]
    screenshot(page, "bayes_page")
    page.locator(".st-key-bayes_intervals").screenshot(path=str(ARTIFACTS / "bayes_intervals.png"))

    _prior(page, "exponential", "-3")
    wait_for_text_then_idle(page, "rate must be > 0", TIMEOUT)
    alert = page.get_by_test_id("stAlertContentError").first.inner_text()
    assert "exponential rate must be > 0, got -3" in alert
    _clean(page, "bad prior")
    screenshot(page, "bayes_bad_prior")
    ctx.close()


def test_subgroups_options_change_metrics_and_lab_runs(browser, app_server) -> None:
    ctx, page = _open(browser, f"{app_server}/subgroups?data=sample:mmlu&reps=400")
    _clean(page, "Subgroups page")
    eb = _chart_data(page, "sub_eb_chart")
    names = {t.get("name") for t in eb}
    assert {"direct", "empirical Bayes"} <= names
    screenshot(page, "subgroups_page")

    kappa = _metric(page, "Kurtosis κ used")
    assert kappa != "∞"
    page.get_by_text("∞ (second moment only)", exact=True).click()
    page.get_by_test_id("stMetric").filter(has_text="Kurtosis κ used").get_by_text(
        "∞", exact=True
    ).wait_for(timeout=TIMEOUT)
    wait_idle(page, TIMEOUT)
    _clean(page, "kappa = inf")

    main = page.get_by_test_id("stMain")
    tables = main.get_by_test_id("stDataFrame").count()
    slider = page.get_by_test_id("stSlider").filter(has_text="Repetitions").get_by_role("slider")
    slider.focus()
    slider.press("Home")  # the minimum: 10 repetitions
    wait_idle(page, TIMEOUT)
    page.get_by_role("button", name="Run the simulation").click()
    wait_for_text_then_idle(page, "10 repetitions, 10 items per subgroup", TIMEOUT)
    lab = _chart_data(page, "sub_lab_chart")
    assert lab and any(t.get("x") or t.get("y") for t in lab)
    assert main.get_by_test_id("stDataFrame").count() == tables + 1, "the lab's table"
    _clean(page, "simulation lab")
    page.locator(".st-key-sub_lab_chart").scroll_into_view_if_needed()
    screenshot(page, "subgroups_lab")

    # On MMLU A is far from 0 and no finite-sample correction binds; on the toy data (6 units)
    # the plain positive part sets A to 0 where PMT keeps it positive.
    page.goto(f"{app_server}/subgroups?data=sample:toy&reps=400")
    wait_for_text_then_idle(page, SPREAD, TIMEOUT)
    a_pmt = _metric(page, SPREAD)  # sqrt(A) in points
    assert float(a_pmt.split()[0]) > 0
    _choose(page, "Finite-sample correction", "none (plain positive part)")
    wait_idle(page, TIMEOUT)
    page.wait_for_function(
        """([label, old]) => [...document.querySelectorAll('[data-testid="stMetric"]')]
            .some(m => m.innerText.includes(label)
                  && m.querySelector('[data-testid="stMetricValue"]').innerText.trim() !== old)""",
        arg=[SPREAD, a_pmt],
        timeout=TIMEOUT,
    )
    wait_idle(page, TIMEOUT)
    assert float(_metric(page, SPREAD).split()[0]) == 0
    _clean(page, "no finite-sample correction")
    ctx.close()


def test_embeddings_synthetic_sample_charts_and_settings(browser, app_server) -> None:
    ctx, page = _open(browser, f"{app_server}/embeddings?reps=400")
    _clean(page, "Embeddings page (alpaca_eval)")
    _choose(page, "Sample", re.compile(r"^synthetic"))
    wait_for_text_then_idle(page, "3 embeddings: separated (16 dims)", TIMEOUT)
    wait_charts(page, TIMEOUT)
    wait_idle(page, TIMEOUT)
    _clean(page, "synthetic sample")
    alp = _chart_data(page, "emb_scores")
    heat = _chart_data(page, "emb_confusion")
    assert [t["type"] for t in heat] == ["heatmap"]
    assert len(heat[0]["z"]) == 10, "one heatmap row per cluster (the sample has 10)"
    assert alp and all(y <= 0 for t in alp for y in (t.get("y") or []) if y is not None)
    screenshot(page, "embeddings_page")

    old = _chart_json(page, "emb_scores")
    page.get_by_test_id("stRadio").filter(has_text="Score").get_by_text(
        "Accuracy", exact=True
    ).click()
    _wait_chart_change(page, "emb_scores", old)
    acc = _chart_data(page, "emb_scores")
    ys = [y for t in acc for y in (t.get("y") or []) if isinstance(y, int | float)]
    assert ys and all(0 <= y <= 1 for y in ys), "accuracy is a share"
    _clean(page, "accuracy")

    page.get_by_text("Resample scores (fast)", exact=True).click()
    wait_for_text_then_idle(page, "These intervals hold the fitted Gaussians fixed", TIMEOUT)
    _clean(page, "resampled scores")
    screenshot(page, "embeddings_accuracy")
    ctx.close()
