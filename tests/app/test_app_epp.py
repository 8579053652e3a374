"""EPP page (METHODS 8): pure figure builders, and the page through AppTest."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import page_path

from benchuq.core.analyses.epp import epp_from_scores
from benchuq.dashboard.epp.view import deviance_table, leaderboard_table
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.epp import (
    epp_forest_figure,
    epp_heatmap,
    epp_ranks,
    fit_figure,
    rank_slope_figure,
)

MODELS = ("<b>bold</b>", "beta", "gamma", "delta")


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    scores = np.array([1.0, 0.5, 0.0, -0.5])[:, None] + rng.gumbel(size=(4, 30))
    return epp_from_scores(scores, MODELS, interval="glm")


def test_forest_is_sorted_and_escapes_names(result) -> None:
    fig = epp_forest_figure(result, FigureOptions(title="EPP"))
    names = [t.name for t in fig.data]
    assert names[0] == "&lt;b&gt;bold&lt;/b&gt;"  # the strongest model, never read as HTML
    xs = [t.x[0] for t in fig.data]
    assert xs == sorted(xs, reverse=True)
    assert "<b>bold</b>" not in json.dumps(fig.to_plotly_json())


def test_slope_chart_highlights_only_models_whose_order_changes(result) -> None:
    mean = np.array([0.1, 0.9, 0.5, 0.0])  # mean order: beta, gamma, bold, delta
    fig = rank_slope_figure(result, mean, FigureOptions())
    by_mean, by_epp = epp_ranks(result, mean)
    assert by_mean.tolist() == [3, 1, 2, 4]
    assert by_epp[0] == 1
    for trace, a, b in zip(fig.data, by_mean, by_epp, strict=True):
        assert list(trace.y) == [a, b]
        assert (trace.line.width == 3) == (a != b)


@pytest.mark.parametrize("title", ["", "Mean score vs EPP"])
def test_the_slope_chart_gives_each_model_a_row_even_with_two(title: str) -> None:
    """With two models the plot area was 22 px high and their names overlapped (audit of
    30): the plot gets a row's height per model, whatever the margins take."""
    two = epp_from_scores(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), ("a", "b"))
    layout = rank_slope_figure(two, np.array([0.6, 0.4]), FigureOptions(title=title)).layout
    plot = layout.height - layout.margin.t - layout.margin.b
    assert plot >= 2 * 24


def test_heatmap_and_fit_figure(result) -> None:
    heat = epp_heatmap(result, FigureOptions())
    z = np.array(heat.data[0].z, dtype=float)
    assert z.shape == (4, 4) and np.all(np.isnan(np.diag(z)))
    assert np.all(z[np.triu_indices(4, 1)] > 0.5)  # EPP order: row beats later columns
    fit = fit_figure(result, FigureOptions())
    diag, pairs = fit.data
    assert list(diag.x) == [0, 1] and list(diag.y) == [0, 1]
    assert len(pairs.x) == 6 and np.all(np.array(pairs.x) >= 0.5)
    np.testing.assert_allclose(pairs.y, sorted_wins(result))


def sorted_wins(result) -> np.ndarray:
    rank = np.empty(4, int)
    rank[result.order] = np.arange(4)
    i, j = np.nonzero((result.matches > 0) & (rank[:, None] < rank[None, :]))
    return result.wins[i, j] / result.matches[i, j]


def test_tables(result) -> None:
    table = leaderboard_table(result, np.nanmean(np.zeros((4, 3)), axis=1))
    assert list(table["EPP"]) == sorted(table["EPP"], reverse=True)
    assert (table["low"] < table["EPP"]).all() and (table["EPP"] < table["high"]).all()
    assert table["P(beats average)"].between(0, 1).all() and not table["separated"].any()
    dev = deviance_table(result).set_index("quantity")["value"]
    assert dev["Degrees of freedom"] == 6 - 3
    assert dev["Deviance D"] == pytest.approx(result.deviance)


# ---- the page --------------------------------------------------------------------------------
def _charts(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _open(make_app, query: dict[str, str] | None = None):
    at = make_app({"reps": "200", **(query or {})}).run()
    at.switch_page(page_path("epp.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_page_shows_leaderboard_slope_heatmap_fit_deviance_and_pair_test(make_app) -> None:
    at = _open(make_app)
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Win probabilities (EPP)"
    forest, slope, heat, fit = _charts(at)
    assert len(forest["data"]) == 16 and len(slope["data"]) == 16
    assert heat["data"][0]["type"] == "heatmap"
    assert [t["name"] for t in fit["data"]] == ["diagonal", "pairs"]
    (board,) = [d.value for d in at.dataframe]
    assert len(board) == 16 and board["EPP"].sum() == pytest.approx(0.0, abs=1e-9)
    assert board["model"].iloc[0] in ("Sup-Exemplar-100%", "Sup-Rotation-100%")
    text = " ".join(m.value for m in at.markdown)
    assert "Wald test of equal EPP" in text and "Deviance" in text


def test_the_deviance_is_listed_in_words_that_fit_its_half_column(make_app) -> None:
    """As a table in half the page the deviance's 'meaning' column was cut and a small value
    read '000000' (audit of 30): a list says each quantity, its value and what it means."""
    at = _open(make_app)
    (listing,) = [m.value for m in at.markdown if m.value.startswith("- **Deviance D**: ")]
    lines = listing.splitlines()
    assert [line.split("**")[1] for line in lines] == [
        "Deviance D",
        "Degrees of freedom",
        "p-value",
        "Standardized deviance",
        "Rounds",
        "Ridge penalty",
    ]
    assert "against the saturated model (one probability per pair)" in lines[0]
    assert lines[4].startswith("- **Rounds**: 19 — ")  # 19 tasks of VTAB-1k
    assert all("None" not in line and "nan" not in line for line in lines)


def test_interval_choice_and_pair_test(make_app) -> None:
    at = _open(make_app, {"level": "0.95"})
    robust = at.dataframe[0].value.set_index("model")
    at.radio(key="epp_interval").set_value("glm").run()
    assert not at.exception
    glm = at.dataframe[0].value.set_index("model")
    assert ((glm["high"] - glm["low"]) < (robust["high"] - robust["low"])).mean() > 0.5
    assert any("GLM intervals treat every match" in c.value for c in at.caption)
    at.selectbox[0].set_value("Sup-100%").run()
    at.selectbox[1].set_value("WAE-GAN").run()
    text = " ".join(m.value for m in at.markdown)
    assert "significant at the 5% level" in text and "WAE" in text
    at.selectbox[1].set_value("Sup-100%").run()
    assert any("two different" in i.value for i in at.info)


def test_separated_model_is_flagged_not_a_crash(make_app) -> None:
    # On VTAB-1k, Rotation beats Uncond-BigGAN on all 19 tasks.
    at = _open(make_app, {"models": "Rotation,Uncond-BigGAN"})
    assert not at.error
    warn = " ".join(w.value for w in at.warning)
    assert "Separation" in warn and "Rotation" in warn
    board = at.dataframe[0].value
    assert np.isfinite(board["EPP"]).all() and board["separated"].iloc[0]


def test_one_model_asks_for_more(make_app) -> None:
    at = _open(make_app, {"models": "VAE"})
    assert any("at least two models" in w.value for w in at.warning)


def test_item_level_data_default_to_items_as_rounds(make_app) -> None:
    at = _open(make_app, {"data": "sample:alpaca_eval"})
    assert not at.error, [e.value for e in at.error]
    assert at.radio(key="epp_rounds").value == "items"
    assert any("805 rounds (items)" in c.value for c in at.caption)
    at.radio(key="epp_rounds").set_value("tasks").run()
    assert not at.exception
    assert any("at least two rounds" in e.value for e in at.error)  # a message, no traceback
