"""Link parameters (pure): page settings <-> query strings, checks, the registry and the README."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchuq.dashboard import links
from benchuq.dashboard.bayes.view import BayesSettings
from benchuq.dashboard.compare.settings import CompareSettings
from benchuq.dashboard.weights.view import WeightsSettings
from benchuq.presentation import state

README = Path(__file__).resolve().parents[2] / "README.md"
CLASSES = [cls for cls, _ in links.PAGE_SETTINGS]


def test_page_settings_round_trip_through_the_query() -> None:
    cases = [
        BayesSettings(priors=("*:a=normal(50,5)", "m1:b=gamma(2,0.01)"), chains=2),
        CompareSettings(score="structured", correction="bonferroni", level=0.9, models=("a", "b")),
        WeightsSettings(view="both", z=1.41, rho=0.5, grid=50, pairing=False, pick=("x", "y")),
    ]
    for settings in cases:
        query = state.settings_query(settings)
        back, notices, linked = state.parse_settings(type(settings), query)
        assert back == settings and notices == []
        assert {
            a for a, spec, _ in state.link_fields(type(settings)) if spec.name in query
        } == linked
    assert state.settings_query(cases[0]) == {
        "priors": "*:a=normal(50,5);m1:b=gamma(2,0.01)",
        "chains": "2",
    }  # defaults (warmup 1000, interval parameter, sampler imh) stay out of the link
    assert state.settings_query(cases[2])["weights_pairing"] == "off"
    assert state.settings_query(cases[1])["compare_level"] == "0.9"  # a proportion in the URL


@pytest.mark.parametrize("cls", CLASSES)
def test_defaults_are_not_in_the_link(cls: type) -> None:
    assert state.settings_query(cls()) == {}
    assert state.parse_settings(cls, {}) == (cls(), [], set())


@pytest.mark.parametrize(
    ("param", "raw"),
    [
        ("chains", "0"),
        ("chains", "two"),
        ("warmup", "1.5"),
        ("interval", "both"),
        ("sampler", "nuts"),
        ("compare_correction", "sidak"),
        ("compare_level", "95"),  # percent where a proportion is expected
        ("weights_grid", "60"),  # not a step of the slider
        ("weights_pairing", "maybe"),
        ("z", "nan"),
        ("rho", "1"),
        ("subgroups_level", "0.85"),
        ("embeddings_heads", "100"),
    ],
)
def test_bad_values_fall_back_with_a_notice_naming_the_parameter(param: str, raw: str) -> None:
    (cls,) = [c for c in CLASSES if param in {s.name for _, s, _ in state.link_fields(c)}]
    settings, notices, linked = state.parse_settings(cls, {param: raw})
    assert settings == cls() and linked == set()
    assert [n.param for n in notices] == [param]
    assert f"'{param}' = '{raw}' ignored: expected" in str(notices[0])


def test_data_dependent_values_are_checked_against_the_data() -> None:
    linked = CompareSettings(score="nope", models=("a", "zz", "b"))
    checked, notices = state.check_choices(
        linked, {"score": ["overall", "x"], "models": ["a", "b", "c"]}, {"score", "models"}
    )
    assert checked == CompareSettings(models=("a", "b"))
    assert [n.param for n in notices] == ["compare_score", "compare_models"]
    assert "zz not in the data; dropped" in notices[1].message
    # a value left from another data set falls back silently; none left: the automatic choice
    checked, notices = state.check_choices(CompareSettings(models=("zz",)), {"models": ["a"]})
    assert checked == CompareSettings() and notices == []
    # other checks: a failing value falls back to the default, with the check's message
    bad = WeightsSettings(merge=("1", "2"))
    checked, notices = state.check_choices(
        bad, {}, {"merge"}, {"merge": lambda g: None if len(g) == 3 else "three groups"}
    )
    assert checked == WeightsSettings() and notices[0].message == "three groups"


def test_every_link_name_is_unique_and_documented_in_the_readme() -> None:
    names = [r[0] for r in links.rows()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert set(state.PARAM_NAMES) <= set(names) and "categories" in names
    kept = {"z", "rho", "priors", "chains", "warmup", "interval", "sampler"}  # older names
    for name in set(links.page_names()) - kept:
        assert name.split("_", 1)[0] in {
            "compare", "ranks", "weights", "epp", "bayes", "embeddings", "subgroups", "table",
            "plan", "leaderboard", "arena", "runs",
        }, name  # fmt: skip
    assert links.readme_table() in README.read_text(), (
        "README's table of link parameters is out of date; paste links.readme_table():\n"
        + links.readme_table()
    )


def test_settings_views_and_figures_do_not_need_streamlit() -> None:
    """The pure half of the dashboard imports without streamlit (tested without it)."""
    code = (
        "import sys; sys.modules['streamlit'] = None\n"
        "import benchuq.dashboard.links, benchuq.dashboard.leaderboard.view\n"
        "import benchuq.presentation.figures.bayes, benchuq.presentation.figures.subgroups\n"
        "import benchuq.presentation.figures.embeddings\n"
        "import benchuq.presentation.figures.ternary_static\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
