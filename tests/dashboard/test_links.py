"""Link parameters (pure): page settings <-> query strings, checks, the registry and the README."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from benchuq.core.reading import loaders
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
            "plan", "leaderboard", "arena", "runs", "report", "judge",
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


# ---- short links (issue 30) -------------------------------------------------------------------
VTAB = loaders.load_sample("vtab1k")
METHODS = ["bootstrap", "bayes"]
SIDEBAR = {spec.name for _, spec, _ in state.link_fields(state.Settings)}


def _sidebar(params: dict[str, str]) -> state.Settings:
    """The sidebar's settings of a link, read as the app reads them (on VTAB-1k's data)."""
    values, notices = state.parse_static(params, samples=list(loaders.SAMPLES), methods=METHODS)
    assert notices == []
    if "weights" in params:
        values["weights"], notice = state.parse_weights(params["weights"], VTAB.category_names)
        assert notice is None
    if "models" in params:
        values["models"], notice = state.parse_models(params["models"], VTAB.models)
        assert notice is None
    return state.Settings(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize("row", links.rows(), ids=lambda row: row[0])
def test_every_example_link_in_the_readme_round_trips(row: tuple[str, ...]) -> None:
    """parse -> settings (not the defaults) -> query: the same link, character for character."""
    name, example = row[0], row[-1]
    text = example.strip("`").removeprefix("?")
    params = dict(parse_qsl(text))
    assert list(params) == [name]
    if name == state.CATEGORIES_PARAM:
        edits, notice = state.parse_categories(params[name], VTAB.tasks)
        assert notice is None and edits
        assert state.categories_query(edits, VTAB.tasks, VTAB.categories) == params[name]
        return
    if name in SIDEBAR:
        settings = _sidebar(params)
        assert settings != state.Settings()
        query = state.view_query(settings, VTAB.models)
    else:
        (cls,) = [c for c in CLASSES if name in {s.name for _, s, _ in state.link_fields(c)}]
        settings, notices, linked = state.parse_settings(cls, params)
        assert notices == [] and linked and settings != cls()
        query = state.settings_query(settings)
    assert query == params
    assert state.query_string(query) == text


def test_the_default_view_has_a_short_link() -> None:
    """Every default, every model and weights of 1 each: nothing in the query string."""
    shown = state.Settings(weights=(1.0,) * len(VTAB.category_names), models=VTAB.models)
    query = state.view_query(shown, VTAB.models)
    assert query == {}
    assert len(f"http://localhost:8501/?{state.query_string(query)}") < 60
    # a subset of the models, or other weights, travel; "all" in another order is all
    some = state.view_query(replace(shown, models=VTAB.models[:2]), VTAB.models)
    assert some == {"models": ",".join(VTAB.models[:2])}
    other = state.view_query(replace(shown, weights=(2.0, 1.0, 1.0)), VTAB.models)
    assert other == {"weights": "2,1,1"}


@pytest.mark.parametrize("value", [0.834, 0.1 + 0.2, 1 / 3, 2.0, 1e-6, 1234567.125, 0.995])
def test_numbers_in_links_are_short_and_exact(value: float) -> None:
    text = state.format_value(value)
    assert float(text) == value and text == repr(value).removesuffix(".0")
    settings = WeightsSettings(z=min(max(value, 0.5), 4.0))
    back, notices, _ = state.parse_settings(WeightsSettings, state.settings_query(settings))
    assert back == settings and notices == []


def test_the_order_of_parameters_is_the_order_of_the_fields() -> None:
    settings = state.Settings(models=("VAE",), seed=3, level=0.9, data="sample:mmlu")
    assert list(state.view_query(settings, VTAB.models)) == ["data", "level", "seed", "models"]


def test_old_parameter_names_are_read_as_the_new() -> None:
    assert state.upgrade_params({"subgroups_level": "0.9"}) == {"level": "0.9"}
    assert state.upgrade_params({"level": "0.8", "subgroups_level": "0.9"}) == {"level": "0.8"}
