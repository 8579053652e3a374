"""AppTest: every page's own choices travel in the link and come back; bad values give notices.

A link with a page's settings opens that page with the same widgets and numbers, the URL keeps
them while other pages are open, and a bad value falls back with a notice naming the parameter
(never a traceback).
"""

from __future__ import annotations

import json

import pytest
from conftest import FAST_QUERY, page_path

VTAB5 = "Sup-Rotation-100%,Sup-Exemplar-100%,Sup-100%,Rotation,VAE"

# page -> (its link parameters with non-default values, {widget key: value shown})
CASES = {
    "compare.py": (
        {
            "compare_score": "structured",
            "compare_correction": "bonferroni",
            "compare_level": "0.9",
            "compare_models": VTAB5,
        },
        {
            "compare_score": "structured",
            "compare_correction": "bonferroni",
            "compare_level": 90.0,
            "compare_models": VTAB5.split(","),
        },
    ),
    "ranks.py": ({"ranks_level": "0.8"}, {"ranks_level": 80.0}),
    "plan.py": (
        {"data": "sample:alpaca_eval", "plan_delta": "2", "plan_power": "0.9"},
        {"plan_delta": 2.0, "plan_power": 90.0},
    ),
    "table.py": (
        {
            "table_query": "Sup",
            "table_kinds": "Summaries,Tasks",
            "table_sort": "SVHN",
            "table_descending": "off",
        },
        {
            "table_query": "Sup",
            "table_kinds": ["Summaries", "Tasks"],
            "table_sort": "SVHN",
            "table_descending": False,
        },
    ),
    "weights.py": (
        {
            "data": "sample:mmlu",
            "weights_view": "both",
            "z": "1.5",
            "rho": "0.3",
            "weights_grid": "20",
            "weights_reduce": "merge",
            "weights_merge": "1,2,2,0",
        },
        {
            "weights_view": "both",
            "z": 1.5,
            "rho": 0.3,
            "weights_grid": 20,
            "weights_reduce": "merge",
            "weights_merge_3": "0",
        },
    ),
    "epp.py": (
        {"epp_interval": "glm", "epp_a": "VAE", "epp_b": "Rotation"},
        {"epp_interval": "glm", "epp_a": "VAE", "epp_b": "Rotation"},
    ),
    "bayes.py": (
        {"data": "sample:toy", "chains": "2", "warmup": "200", "bayes_model": "B"},
        {"chains": 2, "warmup": 200, "bayes_model": "B"},
    ),
    "subgroups.py": (
        {
            "subgroups_units": "category",
            "subgroups_level": "0.9",
            "subgroups_fs": "FPLIB",
            "subgroups_kappa": "inf",
            "subgroups_crossfit": "off",
            "subgroups_weights": "precision",
            "subgroups_model": "VAE",
            "subgroups_lab_n": "20",
        },
        {
            "subgroups_units": "category",
            "subgroups_level": 90.0,
            "subgroups_fs": "FPLIB",
            "subgroups_kappa": "inf",
            "subgroups_crossfit": False,
            "subgroups_weights": "precision",
            "subgroups_model": "VAE",
            "subgroups_lab_n": 20,
        },
    ),
    "embeddings.py": (
        {
            "embeddings_sample": "synthetic",
            "embeddings_auto_reps": "off",
            "embeddings_reps": "100",
            "embeddings_heads": "4",
            "embeddings_level": "0.9",
            "embeddings_score": "accuracy",
            "embeddings_chart": "line",
            "embeddings_against": "partial",
        },
        {
            "embeddings_sample": "synthetic",
            "embeddings_auto_reps": False,
            "embeddings_reps": 100,
            "embeddings_heads": 4,
            "embeddings_level": 90.0,
            "embeddings_score": "accuracy",
            "embeddings_chart": "line",
            "embeddings_against": "partial",
        },
    ),
}


def _open(make_app, page: str, query: dict[str, str]):
    at = make_app({**FAST_QUERY, **query}).run()
    at.switch_page(page_path(page)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _numbers(at) -> list[str]:
    """What the page shows: its tables and charts (for "the same numbers")."""
    tables = [d.value.to_json() for d in at.dataframe]
    charts = [json.dumps(json.loads(c.proto.spec)["data"]) for c in at.get("plotly_chart")]
    return tables + charts


@pytest.mark.parametrize("page", list(CASES))
def test_a_link_restores_the_page_and_keeps_it_while_others_are_open(make_app, page) -> None:
    query, shown = CASES[page]
    at = _open(make_app, page, query)
    assert not at.warning or all("link_off" not in w.icon for w in at.warning)
    for key, value in shown.items():
        assert at.session_state[key] == value, key
    assert {k: at.query_params.get(k) for k in query} == query
    before = _numbers(at)
    # another page: the link keeps this page's choices; back: the same widgets and numbers
    at.switch_page(page_path("leaderboard.py")).run()
    assert {k: at.query_params.get(k) for k in query} == query
    at.switch_page(page_path(page)).run()
    assert not at.exception and not at.error
    for key, value in shown.items():
        assert at.session_state[key] == value, key
    assert _numbers(at) == before
    # the share box holds the same parameters
    link = next(c.value for c in at.get("code") if "?" in c.value)
    for name in query:
        assert f"{name}=" in link, name


def test_compare_numbers_follow_the_link(make_app) -> None:
    query, _ = CASES["compare.py"]
    at = _open(make_app, "compare.py", query)
    verdicts = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert len(verdicts) == 10  # five models: ten pairs
    assert all("90% simultaneous interval, Bonferroni" in v for v in verdicts)
    assert any("Score: structured" in c.value for c in at.caption)
    # a change on the page reaches the link; back to the default leaves it
    at.radio(key="compare_correction").set_value("maxt").run()
    assert "compare_correction" not in at.query_params
    at.slider(key="compare_level").set_value(95.0).run()
    assert "compare_level" not in at.query_params and at.query_params["compare_models"] == VTAB5


BAD = {
    "compare.py": {"compare_models": "nobody,zz", "compare_score": "nope", "compare_level": "95"},
    "ranks.py": {"ranks_level": "abc"},
    "weights.py": {"z": "9", "weights_pick": "zz", "weights_merge": "1,2", "weights_view": "3d"},
    "weights.py?mmlu": {
        "data": "sample:mmlu",
        "weights_pick": "STEM,other,humanities,social sciences",
    },
    "epp.py": {"epp_a": "nobody", "epp_rounds": "items", "epp_interval": "exact"},
    "bayes.py": {"bayes_model": "nobody", "data": "sample:toy"},
    "subgroups.py": {
        "subgroups_units": "subgroup",
        "subgroups_features": "zz",
        "subgroups_crossfit": "x",
    },
    "embeddings.py": {
        "embeddings_sample": "synthetic",
        "embeddings_columns": "zz",
        "embeddings_heads": "0",
        "embeddings_auto_reps": "off",
        "embeddings_reps": "50",
    },
}


@pytest.mark.parametrize("page", list(BAD))
def test_bad_page_values_fall_back_with_a_notice_naming_each(make_app, page) -> None:
    query = BAD[page]
    at = _open(make_app, page.split("?")[0], query)
    text = " ".join(w.value for w in at.warning).replace("\\", "")  # undo md escapes
    for name in set(query) - {
        "data",
        "embeddings_sample",
        "embeddings_auto_reps",
        "embeddings_reps",
    }:
        assert f"'{name}'" in text, (name, text)
        assert name not in at.query_params  # the default took its place
    # notices stay while the view stays, and go once a control changes
    at.run()
    assert any("ignored" in w.value for w in at.warning)
    at.number_input(key="seed").set_value(1).run()
    assert not any("ignored" in w.value for w in at.warning)
