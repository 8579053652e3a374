"""Plan page view model and figures without streamlit: link round trip, curves, subtitles."""

from __future__ import annotations

import numpy as np
import pytest

from benchuq.core.analyses import power as pw
from benchuq.core.data import DataError
from benchuq.dashboard.plan import view as vp
from benchuq.presentation import state
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.figures.power import (
    item_grid,
    mde_figure,
    plan_subtitle,
    power_figure,
    sampling_figure,
)

OPTS = FigureOptions(scale=100.0, unit="points")


def test_link_round_trip_and_notices() -> None:
    query = {
        "plan_mode": "new",
        "plan_level": "0.9",
        "plan_models": "a,b",
        "plan_acc": "60, 65",
        "plan_items": "500",
        "plan_icc": "0.1",
        "plan_grow": "add",
    }
    settings, notices, linked = state.parse_settings(vp.PlanSettings, query)
    assert not notices and settings.items == 500 and settings.models == ("a", "b")
    assert settings.level == 0.9 and linked >= {"models", "items"}
    assert state.settings_query(settings) == query
    assert state.settings_query(vp.PlanSettings()) == {}
    bad, notices, _ = state.parse_settings(
        vp.PlanSettings, {"plan_power": "2", "plan_items": "1.5", "plan_grow": "x"}
    )
    assert bad == vp.PlanSettings()
    assert [n.param for n in notices] == ["plan_power", "plan_items", "plan_grow"]
    checked, notices = state.check_choices(settings, {"models": ["a", "c"]}, linked)
    assert checked.models == ("a",) and notices[0].param == "plan_models"  # unknown ones dropped


def test_accuracies_and_assumptions() -> None:
    assert vp.accuracies("70, 72;75") == [70, 72, 75]
    with pytest.raises(DataError, match="not numbers"):
        vp.accuracies("70%, 72%")
    s = vp.PlanSettings(mode="new", accuracies="70, 72", sd=0)
    design = vp.assumptions_design(s)
    assert design.models == ("A (70%)", "B (72%)") and design.estimate[1] == pytest.approx(0.72)
    assert vp.target(s, design, vp.pairs_of(design.models), 100) == pytest.approx([0.02])
    cont = vp.assumptions_design(vp.PlanSettings(accuracies="3.1, 3", sd=1.0))
    assert pw.display_scale(cont) == (1.0, "units") and cont.models[0] == "A (3.1)"


def test_curves_agree_with_the_plan() -> None:
    design = pw.design_from_assumptions([0.72, 0.7, 0.65], 800, corr=0.4)
    plan = pw.plan(design, delta=0.02)
    n = item_grid(plan)
    assert n[0] == 200 and n[-1] >= 1.5 * np.nanmax(plan.n_required)
    sub = plan_subtitle(plan)
    assert (
        sub.startswith("assumptions · score overall")
        and "simultaneous (all pairs together)" in sub
        and "80% power" in sub
    )
    assert len(sub.splitlines()) == 2
    fig = power_figure(plan, plan.n_required[:1], 0.02, sub, OPTS).to_dict()
    assert fig["layout"]["title"]["subtitle"]["text"] == sub.replace("\n", "<br>")
    assert fig["data"][0]["y"][0] == pytest.approx(80, abs=0.2)
    assert fig["layout"]["shapes"][1]["x0"] == 800  # today's size
    fig = mde_figure(plan, np.array([800.0]), 0.02, sub, OPTS).to_dict()
    assert [t["y"][0] for t in fig["data"]] == pytest.approx(plan.mde * 100)
    assert fig["layout"]["shapes"][1]["y0"] == pytest.approx(2)
    assert mde_figure(plan, n, None, sub, OPTS).to_dict()["layout"]["yaxis"]["type"] == "log"


def test_sampling_view_and_figure() -> None:
    design = pw.design_from_assumptions([0.72, 0.7], 800, corr=0.4)
    plan = pw.plan(design, delta=0.02)
    s = vp.PlanSettings(within=50.0, budget=3200, grow="keep")
    sp, text, setting = vp.sampling(plan, 0, s)
    assert sp.k[sp.best] == 4 and sp.items[sp.best] == 800
    assert text.startswith("Best use of 3,200 answers per model: 800 items x 4 answer(s)")
    assert setting == "within-item share 50% · today's items only"
    fig = sampling_figure(sp, "A vs B", plan_subtitle(plan), OPTS).to_dict()
    assert fig["data"][1]["x"] == [4] and fig["layout"]["title"]["text"].startswith("A vs B")
    free, _, _ = vp.sampling(plan, 0, vp.PlanSettings(within=50.0, budget=3200, grow="add"))
    assert free.k[free.best] == 1 and free.items[free.best] == 3200
