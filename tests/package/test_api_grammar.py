"""One API grammar (issue 41, Build 8): the rules ``benchuq.api``'s docstring states, one test
each, and the old spellings (kept for one release) warn and give the same results.

- the first argument is the loaded data where a function resamples, draws where it resamples
  nothing, sources only for the readers;
- one keyword per concept (``group=``, ``task_weights=``, ``unit_weights=``; no ``weights=``);
- results named ``<Function>Result``;
- ``dir(bq)`` is the API, ``bq.__all__`` is ``benchuq.api.__all__`` and five names;
- reprs are one short line; HTML reprs in the app's units with every column.
"""

from __future__ import annotations

import ast
import html
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchuq as bq
import benchuq.api as api
import benchuq.results as results
from benchuq.deprecation import MESSAGE

ROOT = Path(__file__).resolve().parents[2]

#: The rule of the first argument: the kind each function of ``bq.__all__`` takes.
SOURCES = {"load", "load_battles", "from_frame"}
LOADED = {
    "bootstrap",
    "bayes",
    "bayes_model",
    "epp",
    "diff",
    "power",
    "answers_plan",
    "subgroups",
    "report",
    "export",
    "site",
    "arena",
}
DRAWS = {"leaderboard", "compare", "ranks", "rank_sets", "statistic", "normalize", "weights"}
#: Read files of a kind no loader returns yet (named in benchuq.api's docstring).
OWN_FILES = {"consistency", "judge", "subgroups"}
NO_ARGUMENT = {"samples"}


def _functions() -> dict[str, object]:
    return {n: getattr(bq, n) for n in bq.__all__ if inspect.isfunction(getattr(bq, n))}


def _first(fn: object) -> inspect.Parameter:
    return next(iter(inspect.signature(fn).parameters.values()))  # type: ignore[arg-type]


def _kinds(annotation: str) -> set[str]:
    """The alternatives of a (string) annotation: ``"Benchmark | None"`` -> ``{"Benchmark",
    "None"}`` (subscripts kept whole)."""
    parts, depth, word = [], 0, ""
    for ch in annotation:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            parts.append(word.strip())
            word = ""
        else:
            word += ch
    return {*parts, word.strip()} - {""}


# ---- 1. the first argument ------------------------------------------------------------------


def test_every_function_is_classified_once() -> None:
    names = set(_functions())
    kinds = SOURCES | LOADED | DRAWS | NO_ARGUMENT | (OWN_FILES - LOADED)
    assert names == kinds, f"unclassified: {names - kinds}, gone: {kinds - names}"
    assert not (SOURCES & LOADED) and not (LOADED & DRAWS) and not (SOURCES & DRAWS)


@pytest.mark.parametrize("name", sorted(LOADED | DRAWS))
def test_the_first_argument_is_the_loaded_data_or_draws(name: str) -> None:
    fn = _functions()[name]
    kinds = _kinds(str(_first(fn).annotation))
    loaded = {"Benchmark", "Battles"}
    if name in DRAWS:
        assert "Draws" in kinds and kinds <= {"Draws", "Benchmark"}, (name, kinds)
        return
    assert kinds & loaded, (name, kinds)
    paths = {"str", "Path", "Sequence[str | Path]"}
    if name in OWN_FILES:
        return  # subgroups also reads a unit table (a file or a DataFrame)
    assert not kinds & paths, f"bq.{name} takes paths: {kinds}"
    assert kinds <= loaded | {"None"}, (name, kinds)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_readers_take_sources(name: str) -> None:
    kinds = _kinds(str(_first(_functions()[name]).annotation))
    assert kinds & {"str | Path | Sequence[str | Path]", "str", "pd.DataFrame"}, kinds


def test_the_module_docstring_states_the_rule() -> None:
    doc = api.__doc__ or ""
    for name in sorted(LOADED | DRAWS | OWN_FILES - {"judge"}):
        assert f":func:`{name}`" in doc, name
    assert "``bq.judge``" in doc and "DeprecationWarning" in doc


def test_arena_takes_loaded_battles_and_paths_warn() -> None:
    battles = bq.load_battles("sample:alpaca_eval")
    new = bq.arena(battles, anchor="gpt4_1106_preview")
    with pytest.warns(DeprecationWarning, match=re.escape("bq.arena(bq.load_battles(paths))")):
        old = bq.arena("sample:alpaca_eval", anchor="gpt4_1106_preview")
    pd.testing.assert_frame_equal(new.to_frame(), old.to_frame())


def test_diff_takes_loaded_runs_and_paths_warn() -> None:
    pair = {"base_model": "claude-2", "candidate_model": "claude-2.1", "reps": 200}
    new = bq.diff(bq.load("sample:alpaca_eval"), **pair)
    with pytest.warns(DeprecationWarning, match=re.escape("bq.diff(bq.load(paths))")) as caught:
        old = bq.diff("sample:alpaca_eval", **pair)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert new.payload() == old.payload()
    with pytest.raises(bq.InvalidArgument, match="base must be"):
        bq.diff(42)  # type: ignore[arg-type]


# ---- 2. one keyword per concept ---------------------------------------------------------------


def test_no_function_takes_weights_any_more() -> None:
    """``weights=`` meant three things (category weights, task weights, unit weights); ``corr=``
    and ``rho=`` one (an assumed correlation)."""
    for name, fn in _functions().items():
        params = inspect.signature(fn).parameters  # type: ignore[arg-type]
        assert "weights" not in params and "corr" not in params, name
    assert "rho" in inspect.signature(bq.power).parameters
    assert "rho" in inspect.signature(bq.weights).parameters


def test_group_is_which_score_everywhere() -> None:
    """``group=``: ``"overall"``, a category or category weights (power: a name)."""
    takes = {n for n, fn in _functions().items() if "group" in inspect.signature(fn).parameters}  # type: ignore[arg-type]
    assert takes == {"leaderboard", "compare", "ranks", "rank_sets", "power", "report"}
    for name in takes - {"power"}:
        param = inspect.signature(_functions()[name]).parameters["group"]  # type: ignore[arg-type]
        assert param.annotation == "Group" and param.default == "overall", name
    assert inspect.signature(bq.power).parameters["group"].default == "overall"


DRAWS_TOY = bq.bootstrap(bq.load("sample:vtab1k"), reps=120, seed=1)
W = [0.5, 0.3, 0.2]
UNITS = pd.DataFrame(
    {"unit": list("abcdefgh"), "estimate": np.linspace(0.2, 0.6, 8), "se": [0.05, 0.1] * 4}
)


@pytest.mark.parametrize(
    ("call", "old", "new"),
    [
        (lambda **k: bq.leaderboard(DRAWS_TOY, **k), {"weights": W}, {"group": W}),
        (lambda **k: bq.ranks(DRAWS_TOY, **k), {"weights": W}, {"group": W}),
        (lambda **k: bq.rank_sets(DRAWS_TOY, **k), {"weights": W}, {"group": W}),
        (
            lambda **k: bq.diff(
                bq.load("sample:alpaca_eval"),
                base_model="claude-2",
                candidate_model="claude-2.1",
                reps=100,
                **k,
            ),
            {"weights": {"alpaca_eval": 1.0}},
            {"task_weights": {"alpaca_eval": 1.0}},
        ),
        (
            lambda **k: bq.subgroups(UNITS, **k),
            {"weights": "precision"},
            {"unit_weights": "precision"},
        ),
        (
            lambda **k: bq.power(accuracy=[0.7, 0.75], items=300, **k),
            {"corr": 0.4},
            {"rho": 0.4},
        ),
    ],
    ids=["leaderboard", "ranks", "rank_sets", "diff", "subgroups", "power"],
)
def test_an_old_keyword_warns_and_gives_the_same_result(call, old, new) -> None:
    (old_name,), (new_name,) = old, new
    with pytest.warns(DeprecationWarning, match=f"use {new_name}=") as caught:
        before = call(**old)
    assert caught[0].filename == __file__
    assert f"({old_name}=...)" in str(caught[0].message)
    after = call(**new)
    assert type(before) is type(after)
    pd.testing.assert_frame_equal(before.to_frame(), after.to_frame())
    with pytest.raises(TypeError, match="old spelling"):
        call(**old, **new)


def test_report_old_keyword_writes_the_same_link(tmp_path: Path) -> None:
    bench = bq.load("sample:vtab1k")
    draws = bq.bootstrap(bench, reps=100, seed=0)
    new = bq.report(bench, tmp_path / "new.html", draws=draws, group=W)
    with pytest.warns(DeprecationWarning, match="use group="):
        old = bq.report(bench, tmp_path / "old.html", draws=draws, weights=W)

    def links(path: Path) -> set[str]:
        return set(re.findall(r"\?data=[^\s<\"]+", html.unescape(path.read_text("utf-8"))))

    assert links(new) == links(old) and len(links(new)) == 1
    assert "weights=" in next(iter(links(new)))
    with pytest.raises(bq.InvalidArgument, match="overall score or category weights"):
        bq.report(bench, tmp_path / "x.html", draws=draws, group="natural")


def test_group_takes_a_category_in_ranks_and_the_leaderboard() -> None:
    natural = bq.rank_sets(DRAWS_TOY, group="natural")
    assert natural.sets.label != bq.rank_sets(DRAWS_TOY).sets.label
    assert bq.ranks(DRAWS_TOY, group="natural").weights is None
    with pytest.raises(bq.InvalidArgument, match="groups"):
        bq.leaderboard(DRAWS_TOY, group="no such category")


# ---- 3. result names ------------------------------------------------------------------------


def _result_name(fn_name: str) -> str:
    return "".join(p.capitalize() for p in fn_name.split("_")) + "Result"


def test_results_are_named_after_their_function() -> None:
    found = {}
    for name, fn in _functions().items():
        ret = str(inspect.signature(fn).return_annotation).rsplit(".", 1)[-1]  # type: ignore[arg-type]
        if ret.endswith("Result"):
            assert ret.lower() == _result_name(name).lower(), (name, ret)
            found[name] = ret
    assert len(found) >= 15
    classes = [
        n
        for n in results.__all__
        if inspect.isclass(getattr(results, n))
        and issubclass(getattr(results, n), results.Result)
        and n != "Result"
    ]
    assert all(n.endswith("Result") for n in classes), classes
    assert set(found.values()) - {"SiteResult"} == set(classes)


@pytest.mark.parametrize(("old", "new"), sorted(results.RENAMED.items()))
def test_old_result_names_warn_and_are_the_new_class(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"benchuq.results.{new}"):
        cls = getattr(results, old)
    assert cls is getattr(results, new)
    module = sys.modules[cls.__module__]
    with pytest.warns(DeprecationWarning, match=new):
        assert getattr(module, old) is cls
    with pytest.raises(AttributeError):
        results.NoSuchResult  # noqa: B018


def test_old_names_import_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="DiffResult"):
        from benchuq.results import TwoRuns
    with pytest.warns(DeprecationWarning, match="SiteResult"):
        from benchuq.api.static_site import Site
    assert TwoRuns is results.DiffResult and Site.__name__ == "SiteResult"


def test_every_deprecation_says_the_one_message_the_suite_turns_into_errors() -> None:
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"error:.*is deprecated in benchuq:DeprecationWarning"' in config
    assert re.match(".*is deprecated in benchuq", MESSAGE.format(old="a", new="b"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with pytest.raises(DeprecationWarning):
            bq.ranks(DRAWS_TOY, weights=W)


# ---- 4. dir(bq) -----------------------------------------------------------------------------


def test_dir_is_the_public_api() -> None:
    assert dir(bq) == sorted([*bq.__all__, "__version__"])
    assert bq.__all__ == sorted([*api.__all__, *bq._EXTRA])
    for hidden in ("Any", "TYPE_CHECKING", "annotations", "importlib", "version", "api", "core"):
        assert hidden not in dir(bq)
    assert "write_report" not in bq.__all__
    from benchuq.api import write_report  # the CLI's, importable still

    assert callable(write_report)


def test_the_lazy_module_reads_its_names_from_the_api() -> None:
    """No second list: ``benchuq/__init__.py`` types ``from benchuq.api import *`` and the five
    extra names, and lists no API name of its own."""
    source = Path(bq.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    typed = {
        (node.module, alias.name)
        for block in tree.body
        if isinstance(block, ast.If)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    extra = {(module, name) for name, module in bq._EXTRA.items()}
    assert typed == {("benchuq.api", "*"), *extra}
    assert not [n for n in api.__all__ if f'"{n}"' in source]


def test_import_stays_lazy_and_dir_loads_the_api() -> None:
    code = (
        "import sys, benchuq; a = 'numpy' in sys.modules; import benchuq.cli; "
        "b = 'numpy' in sys.modules; d = dir(benchuq); print(a, b, 'leaderboard' in d)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "True"]


# ---- 5. reprs -------------------------------------------------------------------------------


def _one_short_line(text: str, limit: int = 120) -> None:
    assert "\n" not in text and len(text) <= limit, text
    assert "array(" not in text and " at 0x" not in text, text


def test_benchmark_and_draws_reprs_are_one_line() -> None:
    toy = bq.load("sample:toy")
    assert repr(toy) == "Benchmark('toy', 2 models x 3 tasks, counts)"
    items = bq.from_frame(
        pd.DataFrame(
            {"model": ["a", "b"] * 2, "task": "t", "item": [1, 1, 2, 2], "ok": [1, 0, 1, 1]}
        ),
        item="item",
        score="ok",
        name="tiny",
    )
    assert repr(items) == "Benchmark('tiny', 2 models x 1 task, binary items)"
    rows = [("m", "t", f"q{i}", e, (i + e) % 3 == 0) for i in range(6) for e in (1, 2)]
    epochs = pd.DataFrame(rows, columns=["model", "task", "item", "epoch", "score"])
    epochs = bq.from_frame(epochs.astype({"score": int}), item="item", score="score", epoch="epoch")
    assert repr(epochs) == "Benchmark('data frame', 1 model x 1 task, items with several answers)"
    draws = bq.bootstrap(bq.load("sample:vtab1k"), reps=50, seed=3)
    assert repr(draws).startswith("Draws('vtab1k', 50 reps x 16 models x 19 tasks, ")
    assert repr(draws).endswith(", seed 3)")
    _one_short_line(repr(draws))
    _one_short_line(repr(bq.load("sample:mmlu")))


def test_the_site_repr_is_one_short_line(tmp_path: Path) -> None:
    """(The results' reprs: ``test_api.py::test_results_have_frames_figures_and_short_reprs``.)"""
    site = bq.site(bq.load("sample:toy"), tmp_path / "site", reps=100, date="2026-01-01")
    text = repr(site)
    assert text.startswith(f"SiteResult('{tmp_path / 'site' / 'index.html'}', ")
    _one_short_line(text.replace(str(tmp_path), "T"))  # the path is the user's to choose


def test_html_repr_is_in_the_apps_units_with_every_column() -> None:
    board = bq.leaderboard(bq.bootstrap(bq.load("sample:toy"), reps=200, seed=0), level=0.95)
    frame = board.to_frame()
    table = board._repr_html_()
    assert "in percent" in table and "..." not in table
    assert all(f"<th>{c}</th>" in table for c in frame.columns)  # none hidden
    b = frame.query("model == 'B' and group == 'overall'").iloc[0]
    assert f"<td>{100 * b['estimate']:.1f}</td>" in table  # 52.5, not 0.525
    assert f"<td>{int(b['n_items'])}</td>" in table  # whole counts whole
    # scores that are not proportions stay in their unit
    arena = bq.arena(bq.load_battles("sample:alpaca_eval"))._repr_html_()
    assert "in percent" not in arena
    plan = bq.power(bq.load("sample:vtab1k"), models=["VAE", "Rotation"], delta=0.02)
    mde = plan.to_frame()["mde"].iloc[0]
    assert f"<td>{100 * mde:.1f}</td>" in plan._repr_html_()  # points, as the Plan page
    judged = bq.judge("sample:mt_bench")  # percent, as the Judge page's table and chart
    gpt4 = judged.to_frame().query("model == 'gpt-4'").iloc[0]
    assert f"<td>{100 * gpt4['judge_mean']:.1f}</td>" in judged._repr_html_()


def test_the_deprecation_helpers_examples_run() -> None:
    import doctest

    import benchuq.deprecation

    result = doctest.testmod(benchuq.deprecation)
    assert result.attempted >= 3 and result.failed == 0
