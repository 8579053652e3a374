"""View models and figures of simultaneous inference (dashboard.compare.view,
presentation.figures.ranks), without streamlit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from benchuq.core.summaries.maxt import format_p
from benchuq.core.summaries.rank_sets import rank_sets
from benchuq.dashboard.compare.view import (
    RANK_COLUMN_LABELS,
    comparison_caption,
    leader_caption,
    rank_column_help,
    rank_set_sentences,
    rank_set_table,
    rank_statistic_table,
    verdicts,
)
from benchuq.presentation.figures.common import RANK_METHOD_LABELS, FigureOptions
from benchuq.presentation.figures.ranks import rank_set_figure, simultaneous_difference_figure


def diffs_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": ["A", "A", "B"],
            "b": ["B", "C", "C"],
            "estimate": [0.02, -0.05, 0.001],
            "low": [0.005, -0.08, -0.01],
            "high": [0.035, -0.02, 0.012],
            "p_value": [0.01, 0.0005, 0.8],
            "p_below_resolution": [False, True, False],
        }
    )


def make_sets():
    rng = np.random.default_rng(0)
    obs = np.array([0.9, 0.7, 0.69, 0.3])
    vals = obs + 0.01 * rng.standard_normal((2000, 4))
    return rank_sets(vals, obs, ("a", "b", "c", "d"), level=0.95)


def test_verdicts_follow_the_interval_sign_and_quote_the_matching_p() -> None:
    said = verdicts(diffs_table(), 0.95, "maxt", 1999, 100, "points")
    assert [v.kind for v in said] == ["a", "b", "tie"]
    assert said[0].text.startswith("A beats B by 2.0 points")
    assert "95% simultaneous interval: " in said[0].text and "p = 0.010" in said[0].text
    assert said[1].text.startswith("C beats A by 5.0") and "p < 0.0005" in said[1].text
    assert "includes 0" in said[2].text
    holm = verdicts(diffs_table(), 0.95, "holm", 1999, 100, "points")
    assert all("p =" not in v.text and "p <" not in v.text for v in holm)
    assert "Bonferroni" in holm[0].text


def test_too_few_items_is_said_instead_of_a_verdict() -> None:
    """A pair resting on 3 items is "too few items to tell" whatever its interval (#29)."""
    table = diffs_table().assign(
        items_a=[3.0, 300.0, 300.0], items_b=[3.0, 300.0, 300.0], too_few_items=[True, False, False]
    )
    said = verdicts(table, 0.95, "maxt", 1999, 100, "points")
    assert [v.kind for v in said] == ["tie", "b", "tie"]
    assert said[0].text.startswith("Too few items to tell A and B apart: they rest on 3 and 3")
    assert "fewer than 6 items" in said[0].text


def test_captions_say_simultaneous_only_when_it_is() -> None:
    assert "all pairs together" in comparison_caption("maxt", 0.95, 3, 2000)
    assert "all pairs together" in comparison_caption("bonferroni", 0.95, 3, 2000)
    none = comparison_caption("none", 0.95, 3, 2000)
    assert "own pair only" in none and "together" not in none
    assert "no simultaneous intervals" in comparison_caption("holm", 0.95, 3, 2000)
    assert "1/(R + 1) = 0.0005" in comparison_caption("maxt", 0.95, 3, 2000)
    text = leader_caption(0.834)
    assert "95.0% interval" in text and "independent estimates with similar" in text
    assert format_p(0.1234, False, 100) == "p = 0.123"
    assert format_p(0.0, False, 100) == "p < 1e-10"


def test_rank_set_sentences_and_table() -> None:
    sets = make_sets()
    assert rank_set_sentences(sets) == [
        "a is the best model with 95% confidence.",
        "The top 3 models are among {a, b, c} with 95% confidence.",
    ]
    table = rank_set_table(sets)
    assert list(table["model"]) == ["a", "b", "c", "d"]
    assert list(table["rank, 95% for all models together"]) == ["1st", "2nd–3rd", "2nd–3rd", "4th"]


def test_rank_statistic_table_shows_average_task_rank_and_position() -> None:
    ranks = pd.DataFrame(
        {
            "model": ["x", "y", "x", "y"],
            "method": ["mean", "mean", "average_rank", "average_rank"],
            "mean_rank": [1.0, 2.0, 1.25, 1.75],
            "low": [1.0, 2.0, 1.0, 1.5],
            "high": [1.0, 2.0, 1.5, 2.0],
            "statistic": ["position", "position", "average task rank", "average task rank"],
            "position": [1.0, 2.0, 1.1, 1.9],
            "position_low": [1.0, 2.0, 1.0, 1.0],
            "position_high": [1.0, 2.0, 2.0, 2.0],
        }
    )
    positions = rank_statistic_table(ranks, RANK_COLUMN_LABELS)
    averages = rank_statistic_table(ranks, RANK_COLUMN_LABELS, statistic="average task rank")
    assert list(positions.columns) == ["model", "Mean", "Average rank"]
    assert list(averages.columns) == ["model", "Average rank"]
    assert averages.loc[0, "Average rank"] == "1.25 [1.00–1.50]"
    assert positions.loc[0, "Average rank"] == "1.10 [1–2]"
    assert positions.loc[1, "Mean"] == "2.00 [2–2]"
    assert list(positions["model"]) == list(averages["model"]) == ["x", "y"]
    helps = rank_column_help(averages, RANK_METHOD_LABELS, statistic="average task rank", level=0.9)
    assert helps == {
        "Average rank": "Average rank: the model's average rank over the tasks, as [LGC] reports "
        "it, mean over the replicates [90% percentile interval]; 1 = best."
    }


def test_figures_build_and_label_the_kind_of_interval() -> None:
    opts = FigureOptions(colors={"A": "#1f77b4"}, scale=100, unit="accuracy (points)", title="T")
    fig = simultaneous_difference_figure(diffs_table(), "maxt", 0.95, 1999, opts)
    assert isinstance(fig, go.Figure)
    assert "simultaneous" in fig.layout.xaxis.title.text
    assert [a.text for a in fig.layout.annotations] == ["p = 0.010", "p < 0.0005", "p = 0.800"]
    fig = rank_set_figure(make_sets(), opts)
    assert len(fig.data) == 2  # the sets' ends (hover) and the dots: the bars are shapes (#41)
    assert len(fig.data[1].x) == 4 and len(fig.layout.shapes) == 2 * 4
    thick = [s for s in fig.layout.shapes if s.line.width > 4]
    assert [(s.x0, s.x1) for s in thick][1] == pytest.approx((1.7, 3.3))
    assert "for all" in fig.layout.xaxis.title.text
    assert list(fig.layout.yaxis.categoryarray) == ["d", "c", "b", "a"]
