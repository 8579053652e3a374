"""``benchuq report``'s app link is short (issue 30): defaults, every model and weights of 1
each are left out; what differs travels exactly; a report on category weights says so
(``report_score``); ``bq.report`` writes the same link (``presentation.report_link``)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

import benchuq as bq
from benchuq.cli.cmd_report import _query
from benchuq.cli.main import build_parser, main
from benchuq.core.reading import loaders
from benchuq.presentation.report_link import NOT_SHARED

MODELS = loaders.load_sample("vtab1k").models
TOY = Path(__file__).parents[2] / "sample_data" / "toy.csv"
LM_EVAL = Path(__file__).parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"


def _link(*flags: str) -> str:
    args = build_parser("report").parse_args(["report", "sample:vtab1k", *flags])
    return _query(args, MODELS)


def test_the_report_link_leaves_out_defaults_and_all_models() -> None:
    assert _link() == "?data=sample:vtab1k"  # the data always: the report is about it
    every = ["--models", *MODELS, "--level", "0.834", "--seed", "0", "--overall", "auto"]
    assert _link(*every) == "?data=sample:vtab1k"
    assert _link("--models", "VAE", "Rotation", "--weights", "2,1,0.5", "--level", "0.9") == (
        "?data=sample:vtab1k&level=0.9&weights=2,1,0.5&models=Rotation,VAE"  # data order
        "&report_score=weighted"  # the report is on the weighted score, the app's too
    )
    # weights of 1 each are the sidebar's default, but the report is still on them
    assert _link("--weights", "1,1,1") == "?data=sample:vtab1k&report_score=weighted"


def _written_link(path: Path) -> str:
    """What a report file gives as its share link (the query, or the text that replaces it)."""
    doc = html.unescape(path.read_text(encoding="utf-8"))
    if NOT_SHARED in doc:
        return doc[doc.index(NOT_SHARED) :].split("</", 1)[0]
    (link,) = set(re.findall(r"\?data=[^\s<\"]+", doc))
    return link


@pytest.mark.slow  # each test below writes two reports (figures through kaleido's chromium)
@pytest.mark.parametrize(
    ("flags", "options"),
    [
        ([], {}),
        (
            ["--level", "0.9", "--seed", "3", "--models", "VAE", "Rotation", "Jigsaw",
             "--weights", "0.5,0.3,0.2"],
            {"level": 0.9, "seed": 3, "models": ["VAE", "Rotation", "Jigsaw"],
             "group": [0.5, 0.3, 0.2]},
        ),
    ],
    ids=["defaults", "level-seed-models-weights"],
)  # fmt: skip
def test_the_cli_and_bq_report_write_the_same_link(
    tmp_path: Path, flags: list[str], options: dict[str, object]
) -> None:
    cli, api = tmp_path / "cli.html", tmp_path / "api.html"
    assert main(["report", "sample:vtab1k", "--reps", "300", "-o", str(cli), *flags]) == 0
    bq.report(bq.load("sample:vtab1k"), api, reps=300, **options)  # type: ignore[arg-type]
    assert _written_link(cli) == _written_link(api)
    assert _written_link(api).startswith("?data=sample:vtab1k&") and "reps=300" in _written_link(
        api
    )


@pytest.mark.slow
def test_a_report_of_files_says_to_publish_them_first_in_both(tmp_path: Path) -> None:
    shutil.copy(TOY, tmp_path / "toy.csv")
    data = str(tmp_path / "toy.csv")
    cli, api = tmp_path / "cli.html", tmp_path / "api.html"
    assert main(["report", data, "--reps", "200", "--level", "0.9", "-o", str(cli)]) == 0
    bq.report(bq.load(data), api, reps=200, level=0.9)
    assert _written_link(cli) == _written_link(api)
    assert _written_link(api).startswith(NOT_SHARED)
    assert "data=shared:<id>: level=0.9&reps=200" in _written_link(api)


@pytest.mark.slow
def test_a_published_sets_report_links_to_it_with_its_overall_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """lm-eval files with groups lead with the mean over benchmarks ("auto"); a report on the
    mean over tasks carries ``overall=tasks``, from the CLI and from Python alike."""
    monkeypatch.setenv("BENCHUQ_STORE", str(tmp_path / "store"))
    assert main(["publish", str(LM_EVAL), "--json"]) == 0
    data = "shared:" + json.loads(capsys.readouterr().out)["id"]
    cli, api = tmp_path / "cli.html", tmp_path / "api.html"
    argv = ["report", data, "--reps", "200", "--overall", "tasks", "-o", str(cli)]
    assert main(argv) == 0
    bench = bq.load(data)
    bq.report(bench, api, draws=bq.bootstrap(bench, reps=200, overall="tasks"))
    assert _written_link(cli) == _written_link(api) == f"?data={data}&reps=200&overall=tasks"
    command = f"benchuq report {data} --method bootstrap --reps 200 --seed 0 --level 0.834"
    for doc in (cli, api):
        assert command + " --overall tasks" in html.unescape(doc.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_a_link_the_app_cannot_open_as_written_says_so(tmp_path: Path) -> None:
    """Fewer replicates than the app's slider allows: the link is written as the report was
    made, and the report says which setting the app will change."""
    assert _link("--reps", "300") == "?data=sample:vtab1k&reps=300"
    path = bq.report(bq.load("sample:toy"), tmp_path / "r.html", reps=100)
    doc = html.unescape(path.read_text(encoding="utf-8"))
    assert "?data=sample:toy&reps=100 (" in doc
    assert "the app opens this link with other settings: reps=100" in doc
    assert "from 200 to 20000; using 2000." in doc
