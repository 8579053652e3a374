"""AppTest of the Task weights page: controls, URL parameters, categories, paired item data."""

from __future__ import annotations

import base64
import io
import json
import re

import numpy as np
from conftest import FAST_QUERY, page_path

PAGE = "weights.py"


def open_page(make_app, **query: str):
    at = make_app({**FAST_QUERY, **query})
    at.switch_page(page_path(PAGE))
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def grey_share(fig: dict) -> int:
    """The indeterminate share (percent) in the legend of the SE-rule map."""
    (name,) = [
        t["name"]
        for t in fig["data"]
        if str(t.get("name", "")).startswith("indeter") and t.get("showlegend") is not False
    ]
    return int(re.search(r"\((\d+)%\)", name).group(1))


def array(x: object) -> np.ndarray:
    """A figure-JSON array: a list, or plotly's typed array ``{dtype, bdata, shape}``."""
    if isinstance(x, dict):
        a = np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"])
        shape = x.get("shape")
        return a.reshape([int(n) for n in str(shape).split(",")]) if shape else a
    return np.asarray(x)


def hover_points(fig: dict) -> int:
    return sum(len(array(t["a"])) for t in fig["data"] if t.get("name") == "grid points")


def caption_text(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_default_map_table_and_caption(make_app) -> None:
    at = open_page(make_app)
    (fig,) = charts(at)
    assert {t["type"] for t in fig["data"]} == {"scatterternary"}
    assert hover_points(fig) == 5151
    titles = [fig["layout"]["ternary"][f"{x}axis"]["title"]["text"] for x in "abc"]
    assert titles == ["<b>natural</b>", "<b>specialized</b>", "<b>structured</b>"]
    assert 0 < grey_share(fig) < 100
    text = caption_text(at)
    assert "rho = **0.00 is assumed**" in text and "z = 2.00" in text
    (table,) = at.dataframe
    df = table.value
    assert list(df.columns) == ["model", "score", "low", "high", "share of replicates ranked first"]
    assert len(df) == 16 and df["score"].is_monotonic_decreasing
    assert abs(df["share of replicates ranked first"].sum() - 100) < 1e-7  # in %
    share = json.loads(table.proto.columns)["share of replicates ranked first"]
    assert share["type_config"]["format"] == "%.0f%%"  # whole percent: 2,000 draws know no more
    marker = fig["data"][-1]
    assert marker["name"].startswith("current weights")
    np.testing.assert_allclose([marker["a"][0], marker["b"][0], marker["c"][0]], 1 / 3)
    labels = [b.proto.label for b in at.get("download_button")]
    assert [x for x in labels if x.startswith("SE map")] == [
        "SE map PNG",
        "SE map SVG",
        "SE map PDF",
    ]


def test_rho_and_z_shrink_the_grey_area(make_app) -> None:
    at = open_page(make_app)
    base = grey_share(charts(at)[0])
    at.slider(key="rho").set_value(0.9).run()
    assert not at.exception
    assert grey_share(charts(at)[0]) < base
    assert "rho = **0.90 is assumed**" in caption_text(at)
    at.slider(key="z").set_value(4.0).run()
    assert grey_share(charts(at)[0]) > 0
    at.slider(key="rho").set_value(0.0).run()
    assert grey_share(charts(at)[0]) > base


def test_url_parameters_drive_the_page(make_app) -> None:
    at = open_page(make_app, z="1.41", rho="0.5", weights="2,1,1")
    assert at.slider(key="z").value == 1.41
    fig = charts(at)[0]
    marker = fig["data"][-1]
    np.testing.assert_allclose([marker["a"][0], marker["b"][0], marker["c"][0]], [0.5, 0.25, 0.25])
    text = caption_text(at)
    assert "z = 1.41" in text and "rho = **0.50 is assumed**" in text
    assert "natural 50%, specialized 25%, structured 25%" in text
    (link,) = [c.value for c in at.code if "z=1.41" in c.value]
    assert "rho=0.5" in link


def test_view_resolution_and_metric(make_app) -> None:
    at = open_page(make_app)
    at.select_slider(key="weights_grid").set_value(20).run()
    assert hover_points(charts(at)[0]) == 231
    at.radio(key="weights_view").set_value("prob").run()
    (fig,) = charts(at)
    assert any(str(t.get("name", "")).startswith("first in 95%") for t in fig["data"])
    at.radio(key="weights_view").set_value("both").run()
    assert len(charts(at)) == 2
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Share best PDF" in labels and "SE map PNG" in labels
    at.radio(key="metric").set_value("normalized").run()
    assert not at.exception and not at.error
    assert "Metric: normalized" in caption_text(at)
    assert "replicates" in caption_text(at)


def test_more_than_three_categories_pick_or_merge(make_app) -> None:
    at = open_page(make_app, data="sample:mmlu")
    assert at.radio(key="weights_reduce").value == "pick"
    fig = charts(at)[0]
    assert fig["data"][0]["type"] == "scatterternary"
    at.multiselect(key="weights_pick").set_value(["STEM", "humanities"]).run()
    assert not at.exception and not at.error
    fig = charts(at)[0]
    assert {t["type"] for t in fig["data"]} == {"scatter", "bar"}  # two categories: a line
    at.radio(key="weights_reduce").set_value("merge").run()
    for k, group in enumerate(("1", "2", "2", "3")):
        at.selectbox(key=f"weights_merge_{k}").set_value(group)
    at.run()
    assert not at.exception and not at.error
    fig = charts(at)[0]
    assert fig["layout"]["ternary"]["baxis"]["title"]["text"] == "<b>other + social sciences</b>"


def items_csv(seed: int = 0) -> bytes:
    """Three models scored on the same items of six tasks in three categories (correlated)."""
    rng = np.random.default_rng(seed)
    out = io.StringIO()
    out.write("model,task,category,item,score\n")
    for j, cat in enumerate(("alpha", "alpha", "beta", "beta", "gamma", "gamma")):
        ease = rng.normal(scale=3.0, size=400)  # items differ a lot: strong pairing
        for m, skill in (("m1", 0.9), ("m2", 0.5), ("m3", -0.5)):
            p = 1 / (1 + np.exp(-(ease + skill)))
            for item, y in enumerate(rng.random(400) < p):
                out.write(f"{m},task{j},{cat},i{item},{int(y)}\n")
    return out.getvalue().encode()


def test_paired_item_data_read_rho_from_draws(make_app) -> None:
    at = make_app(FAST_QUERY).run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value([("items.csv", items_csv(), "text/csv")]).run()
    assert not at.exception and not at.error
    at.switch_page(page_path(PAGE)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.toggle(key="weights_pairing").value is True
    assert "read from the paired replicates" in caption_text(at)
    paired = grey_share(charts(at)[0])
    at.toggle(key="weights_pairing").set_value(False).run()
    assert "pairing switched off" in caption_text(at)
    assert grey_share(charts(at)[0]) > paired  # ignoring the positive correlation: wider SEs


def test_one_category_explains_instead_of_failing(make_app) -> None:
    at = open_page(make_app, data="sample:toy")
    assert not charts(at)
    assert any("one category" in i.value for i in at.info)


def test_two_of_three_categories_draw_a_clickable_line_with_pbest_downloads(make_app) -> None:
    at = open_page(make_app)
    assert at.expander[0].label.startswith("Categories on the map")
    assert at.multiselect(key="weights_pick").value == ["natural", "specialized", "structured"]
    at.multiselect(key="weights_pick").set_value(["natural", "structured"]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (fig,) = charts(at)
    assert {t["type"] for t in fig["data"]} == {"scatter", "bar"}
    lines = [t for t in fig["data"] if t["type"] == "scatter"]
    assert lines and all("markers" in t["mode"] for t in lines)  # selectable points
    np.testing.assert_allclose(array(lines[0]["x"]), np.linspace(1, 0, 101))
    assert fig["layout"]["clickmode"] == "event+select"
    assert "click a point of the line to use its weights" in caption_text(at)
    assert "natural 50%, structured 50%" in caption_text(at)  # sidebar weights on the map
    labels = [b.proto.label for b in at.get("download_button")]
    assert not any(x.startswith("Share best") for x in labels)  # SE view: no such map computed
    at.radio(key="weights_view").set_value("prob").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (fig,) = charts(at)
    assert fig["layout"]["yaxis"]["title"]["text"] == "share of replicates ranked first"
    labels = [b.proto.label for b in at.get("download_button")]
    assert [x for x in labels if x.startswith("Share best")] == [
        "Share best PNG",
        "Share best SVG",
        "Share best PDF",
    ]
    at.radio(key="weights_view").set_value("both").run()
    assert not at.exception and not at.error
    assert len(charts(at)) == 2
    at.multiselect(key="weights_pick").set_value(["natural"]).run()  # one category: explained
    assert not at.exception
    assert any("needs 2 or 3 categories" in e.value for e in at.error)


def width_share(at, element) -> float:
    """The share of the main area's width the block holding ``element`` gets (the product of
    the weights of the columns it sits in)."""

    def walk(block, share: float) -> float | None:
        for child in block.children.values():
            if child is element:
                return share
            if hasattr(child, "children"):
                weight = getattr(child, "weight", None)
                found = walk(child, share * weight if weight else share)
                if found is not None:
                    return found
        return None

    found = walk(at.main, 1.0)
    assert found is not None
    return found


def test_the_table_at_these_weights_shows_every_column(make_app) -> None:
    """Beside the map (3/8 of the page) the table's 'high' and 'share of replicates ranked first'
    columns were scrolled out of sight (audit of 30): it sits below the map at full width."""
    at = open_page(make_app)
    (table,) = at.dataframe
    assert "high" in table.value.columns
    assert width_share(at, table) == 1.0
    assert any(h.value == "Leaderboard at these weights" for h in at.subheader)
