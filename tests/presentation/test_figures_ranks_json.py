"""The Ranks page's figures built from plain dicts (issue 32) render exactly as before: the
figure JSON of each builder equals the one recorded from the ``make_subplots``/``update_*``
builders on VTAB-1k (``tests/fixtures/figures/ranks_vtab1k.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from benchuq.core.summaries.rank_sets import RankSets
from benchuq.presentation.figures.common import (
    FigureOptions,
    rank_aggregation_figure,
    rank_probability_figure,
)
from benchuq.presentation.figures.ranks import rank_set_figure

FIXTURE = Path(__file__).parents[1] / "fixtures" / "figures" / "ranks_vtab1k.json"
RECORDED = json.loads(FIXTURE.read_text())
TEMPLATE = json.loads(pio.to_json(go.Figure(), validate=False))["layout"]["template"]


def _figures(options: FigureOptions) -> dict[str, go.Figure]:
    ranks = pd.DataFrame(RECORDED["ranks"]["data"], columns=RECORDED["ranks"]["columns"])
    sets = RankSets(
        **{
            k: tuple(v) if k == "models" else np.asarray(v) if isinstance(v, list) else v
            for k, v in RECORDED["sets"].items()
        }
    )
    prob = np.asarray(RECORDED["prob"])
    return {
        "aggregations": rank_aggregation_figure(ranks, options),
        "sets": rank_set_figure(sets, options),
        "probabilities": rank_probability_figure(prob, RECORDED["models"], options),
    }


@pytest.mark.parametrize("title", ["", "Rank confidence sets"])
def test_ranks_page_figures_render_as_recorded(title: str) -> None:
    options = FigureOptions(RECORDED["colors"], 100.0, "score (%)", title)
    for name, fig in _figures(options).items():
        got = json.loads(pio.to_json(fig, validate=False))
        assert got["layout"].pop("template") == TEMPLATE, name
        assert got == RECORDED["figures"][title or "untitled"][name], name


def test_a_second_figure_does_not_share_the_first_ones_layout() -> None:
    """The subplot grid is built once per shape; each figure gets its own copy."""
    options = FigureOptions(RECORDED["colors"], 100.0, "score (%)", "")
    first = _figures(options)["aggregations"]
    first.update_layout(annotations=[], xaxis_range=[0, 1])
    again = _figures(options)["aggregations"]
    recorded = RECORDED["figures"]["untitled"]["aggregations"]["layout"]
    assert again.layout.xaxis.range == tuple(recorded["xaxis"]["range"])
    assert len(again.layout.annotations) == len(recorded["annotations"])
