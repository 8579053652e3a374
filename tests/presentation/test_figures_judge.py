"""The Judge page's figures (METHODS 15) built from plain dicts (issue 41): every estimate,
interval, agreement and the target come from the result; the margins hold the labels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchuq.core.analyses.judge import judge
from benchuq.core.reading.judge_data import judge_from_frame
from benchuq.presentation.figures.common import FigureOptions, label_margin
from benchuq.presentation.figures.judge import (
    METHOD_STYLE,
    judge_agreement_figure,
    judge_estimates_figure,
    labels_curve_figure,
)

OPTS = FigureOptions({}, 100.0, "score (%)", "t")


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(1)
    rows = []
    for model, p in (("A", 0.7), ("B <b>", 0.4)):
        y = (rng.random(300) < p).astype(float)
        f = np.where(rng.random(300) < 0.85, y, 1 - y)
        human = np.where(np.arange(300) < 80, y, np.nan)
        rows.append(pd.DataFrame({"model": model, "task": "t", "item": range(300),
                                  "judge": f, "human": human}))  # fmt: skip
    return judge(judge_from_frame(pd.concat(rows, ignore_index=True)), level=0.9, target=0.05)


def test_estimates_figure_draws_each_estimate_with_its_interval(result) -> None:
    fig = judge_estimates_figure(result, OPTS)
    by_name = {t.name: t for t in fig.data}
    for method, (label, color, _) in METHOD_STYLE.items():
        trace = by_name[label]
        cells = [c for c in result.cells if method in c.estimates]
        est = [100 * c.estimates[method].estimate for c in cells]
        assert list(trace.x) == pytest.approx(est) and trace.marker.color == color
        high = [100 * c.estimates[method].high for c in cells]
        assert [x + e for x, e in zip(trace.x, trace.error_x.array, strict=True)] == (
            pytest.approx(high)
        )
        assert "(90%)" in trace.hovertext[0]
    assert list(fig.layout.yaxis.ticktext) == ["A", "B &lt;b&gt;", "overall"]
    assert fig.layout.margin.l >= label_margin(["B &lt;b&gt;"])  # drawn once (no automargin)


def test_agreement_and_labels_curve_figures(result) -> None:
    agree = judge_agreement_figure(result, OPTS)
    kappa = [c.agreement.kappa for c in result.cells]
    assert list(agree.data[0].x) == pytest.approx(kappa)
    assert agree.layout.shapes[0].x0 == 0  # chance
    curve = labels_curve_figure(result, OPTS)
    assert curve.layout.shapes[0].y0 == pytest.approx(5.0)  # the target, in points
    assert curve.layout.annotations[0].text == "target"
    n = result.overall.planning.n_labelled
    assert list(curve.data[2].x) == [n, n] and curve.data[2].text[1] == f"{n:,} labels now"
