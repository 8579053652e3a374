"""AppTest: the sidebar's Item score control (issue 43) on uploaded items with several answers:
offered only for such data, pass@k scores every page's numbers and travels in the link."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
from app_upload import open_data_page, upload
from conftest import page_path


def answers_csv() -> tuple[bytes, dict[str, float]]:
    """Two models, one task, 30 items x 5 answers; the pass@3 of each model by the formula."""
    rng = np.random.default_rng(4)
    rows, want = [], {}
    for model in ("north", "south"):
        right = (rng.random((30, 5)) < rng.beta(1, 2, 30)[:, None]).astype(int)
        want[model] = float(np.mean([1 - comb(5 - c, 3) / comb(5, 3) for c in right.sum(1)]))
        rows += [(model, "t1", f"q{i}", e + 1, right[i, e]) for i in range(30) for e in range(5)]
    frame = pd.DataFrame(rows, columns=["model", "task", "item", "epoch", "score"])
    return frame.to_csv(index=False).encode(), want


def test_item_score_control_scores_and_links(make_app) -> None:
    data, want = answers_csv()
    at = upload(open_data_page(make_app), "answers.csv", data)
    assert not at.exception and not at.error, [e.value for e in at.error]
    control = at.selectbox(key="statistic")
    shown = " ".join(control.options)  # the options as the sidebar words them
    assert all(s in shown for s in ("mean of every answer", "(pass@3)", "(pass@5)", "(pass^3)"))
    assert "pass@10" not in shown  # five answers an item
    control.set_value("pass@3").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params["statistic"] == "pass@3"
    at.switch_page(page_path("table.py")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    for model, value in want.items():
        shown = float(table.loc[model].iloc[0].split(" ")[0])
        assert abs(shown - 100 * value) < 0.051  # one decimal, in points


def test_no_control_without_several_answers_and_a_link_notice(make_app) -> None:
    at = make_app({"data": "sample:toy", "reps": "200", "statistic": "pass@5"}).run()
    assert not at.exception
    assert not [s for s in at.selectbox if s.key == "statistic"]
    shown = " ".join(str(w.value) for w in [*at.warning, *at.info, *at.caption, *at.markdown])
    assert "statistic" in shown and "using 'mean'" in shown


def test_plan_page_plans_answers_from_the_data(make_app) -> None:
    """The Plan page's K-answers section adds the data's own trade-off for the item score."""
    data, _ = answers_csv()
    at = upload(open_data_page(make_app), "answers.csv", data)
    at.selectbox(key="statistic").set_value("pass@3").run()
    at.switch_page(page_path("plan.py")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = " ".join(str(m.value) for m in [*at.markdown, *at.caption])
    assert "From this data's own answers" in shown and "pass@3 with" in shown
    frame = at.dataframe[-1].value
    assert {"answers", "items", "half_width"} <= set(frame.columns)
    assert (frame["answers"] >= 3).all()
