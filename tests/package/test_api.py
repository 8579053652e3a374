"""The flat Python API (``import benchuq as bq``, issue 28): the same numbers as the CLI, the
same benchmark from a DataFrame as from its CSV file, result objects, errors."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import benchuq as bq
from benchuq.cli.main import main
from benchuq.core.data import DataError
from benchuq.core.validation import InvalidArgument

SAMPLE_REPS = {"vtab1k": 2000, "mmlu": 500, "alpaca_eval": 300, "toy": 2000}


def cli_json(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


def assert_rows_equal(frame: pd.DataFrame, rows: list[dict]) -> None:
    """Every field of the CLI's rows equals the frame's column (numbers to 1e-12)."""
    assert len(frame) == len(rows)
    for col in rows[0]:
        want = [r[col] for r in rows]
        got = frame[col].tolist()
        if isinstance(want[0], float) or isinstance(got[0], float):
            np.testing.assert_allclose(
                np.array(got, dtype=float), np.array(want, dtype=float), rtol=1e-12, atol=0
            )
        else:
            assert got == want, col


@pytest.mark.parametrize("name", sorted(SAMPLE_REPS))
def test_leaderboard_equals_the_cli_json(name: str) -> None:
    reps = SAMPLE_REPS[name]
    board = bq.leaderboard(bq.bootstrap(bq.load(f"sample:{name}"), reps=reps, seed=0), level=0.95)
    doc = cli_json(
        "leaderboard", f"sample:{name}", "--level", "0.95", "--reps", str(reps), "--json"
    )
    assert_rows_equal(board.to_frame(), doc["rows"])
    payload = board.payload()
    for key in ("method", "level", "reps", "seed", "leader_test_level", "normalization"):
        assert payload[key] == doc[key]


def test_the_issue_one_liner_prints_the_cli_numbers() -> None:
    code = (
        "import benchuq as bq; print(bq.leaderboard(bq.bootstrap(bq.load('sample:vtab1k'), "
        "reps=2000, seed=0), level=0.95).to_frame().to_csv(index=False))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    doc = cli_json("leaderboard", "sample:vtab1k", "--level", "0.95", "--json")
    assert_rows_equal(pd.read_csv(io.StringIO(out)), doc["rows"])


def test_compare_ranks_epp_weights_power_equal_the_cli() -> None:
    bench = bq.load("sample:vtab1k")
    draws = bq.bootstrap(bench, reps=300, seed=0)
    models = list(bench.models[:3])
    common = ["sample:vtab1k", "--reps", "300", "--json"]
    doc = cli_json("compare", *common, "--models", *models)
    assert_rows_equal(bq.compare(draws, models=models).to_frame(), doc["rows"])
    doc = cli_json("ranks", *common)
    ranks = bq.ranks(draws)
    assert_rows_equal(ranks.to_frame(), doc["rows"])
    assert ranks.payload()["rank_sets"] == doc["rank_sets"]
    doc = cli_json("epp", "sample:vtab1k", "--json")
    assert_rows_equal(bq.epp(bench).to_frame(), doc["rows"])
    doc = cli_json("weights", "sample:vtab1k", "--resolution", "10", "--json")
    assert bq.weights(bench, resolution=10).payload()["points"] == doc["points"]
    doc = cli_json("power", "sample:vtab1k", "--delta", "0.01", "--json")
    assert_rows_equal(bq.power(bench, delta=0.01).to_frame(), doc["rows"])


def test_diff_equals_the_cli_json_and_exit_code(tmp_path: Path) -> None:
    pair = {"base_model": "claude-2", "candidate_model": "claude-2.1"}
    runs = bq.diff(bq.load("sample:alpaca_eval"), margin=1, fail_on="inferior", **pair)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            ["diff", "sample:alpaca_eval", "--base", "claude-2", "--candidate", "claude-2.1",
             "--margin", "1", "--fail-on", "inferior", "--json"]
        )  # fmt: skip
    doc = json.loads(out.getvalue())
    assert runs.payload() == doc and runs.exit_code() == code == doc["exit_code"]
    assert runs.to_frame()["task"].tolist() == ["overall", *(t["task"] for t in doc["tasks"])]
    assert isinstance(runs.figure(), go.Figure) and "DiffResult(" in repr(runs)
    with pytest.raises(InvalidArgument):
        bq.diff(bq.load("sample:alpaca_eval"), level=95, **pair)


def long_items(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for m, p in (("alpha", 0.7), ("beta", 0.6), ("gamma", 0.5)):
        for t, cat in (("t1", "reasoning"), ("t2", "reasoning"), ("t3", "knowledge")):
            for i in range(40):
                rows.append((m, t, f"q{i:03d}", cat, float(rng.random() < p)))
    return pd.DataFrame(rows, columns=["system", "bench", "qid", "area", "ok"])


def test_from_frame_equals_writing_the_csv_and_loading(tmp_path: Path) -> None:
    df = long_items(np.random.default_rng(3))
    path = tmp_path / "runs.csv"
    df.rename(
        columns={
            "system": "model",
            "bench": "task",
            "qid": "item",
            "area": "category",
            "ok": "score",
        }
    ).to_csv(path, index=False)
    from_csv = bq.load(str(path))
    from_df = bq.from_frame(
        df, model="system", task="bench", item="qid", score="ok", category="area"
    )
    assert from_df.kind == from_csv.kind == "items"
    assert from_df.models == from_csv.models and from_df.tasks == from_csv.tasks
    assert from_df.categories == from_csv.categories
    a = bq.leaderboard(bq.bootstrap(from_df, reps=400, seed=1)).to_frame()
    b = bq.leaderboard(bq.bootstrap(from_csv, reps=400, seed=1)).to_frame()
    pd.testing.assert_frame_equal(a, b)


def test_from_frame_counts_and_estimate_se_forms() -> None:
    counts = pd.DataFrame(
        {"m": ["a", "a", "b", "b"], "t": ["x", "y", "x", "y"], "k": [8, 5, 6, 9], "n": [10] * 4}
    )
    bench = bq.from_frame(counts, model="m", task="t", n="n", correct="k")
    assert bench.kind == "counts"
    np.testing.assert_allclose(bench.estimate, [[0.8, 0.5], [0.6, 0.9]])
    est = counts.assign(est=counts["k"] / 10, s=0.05)
    bench = bq.from_frame(est, model="m", task="t", estimate="est", se="s")
    assert bench.kind == "estimate_se"


def test_from_frame_epochs_are_answers_of_one_item(tmp_path: Path) -> None:
    one = long_items(np.random.default_rng(4))
    two = one.assign(ok=1.0 - one["ok"])
    both = pd.concat([one.assign(ep=1), two.assign(ep=2)], ignore_index=True)
    bench = bq.from_frame(both, model="system", task="bench", item="qid", score="ok", epoch="ep")
    np.testing.assert_allclose(bench.estimate, 0.5)  # each item: the mean of its two answers
    rows = bq.leaderboard(bq.bootstrap(bench, reps=200)).to_frame().query("group == 'overall'")
    assert set(rows["n_items"]) == {120} and set(rows["n_answers"]) == {240}
    path = tmp_path / "epochs.csv"
    ours = {"system": "model", "bench": "task", "qid": "item", "ok": "score", "ep": "epoch"}
    both.drop(columns="area").rename(columns=ours).to_csv(path, index=False)
    a = bq.leaderboard(bq.bootstrap(bq.load(str(path)), reps=200, seed=3)).to_frame()
    b = bq.from_frame(
        both.drop(columns="area"), model="system", task="bench", item="qid", score="ok", epoch="ep"
    )
    pd.testing.assert_frame_equal(a, bq.leaderboard(bq.bootstrap(b, reps=200, seed=3)).to_frame())


def test_from_frame_errors_name_the_argument_or_the_row() -> None:
    df = long_items(np.random.default_rng(5))
    with pytest.raises(InvalidArgument, match="columns of df"):
        bq.from_frame(df, model="nope", task="bench", item="qid", score="ok")
    with pytest.raises(InvalidArgument, match="one form"):
        bq.from_frame(df, model="system", task="bench")
    bad = df.assign(ok=df["ok"].astype(object))
    bad.loc[3, "ok"] = "yes?"
    with pytest.raises(DataError, match=r"column 'ok'.*Row 5 is df.iloc\[3\]"):
        bq.from_frame(bad, model="system", task="bench", item="qid", score="ok")


@pytest.mark.parametrize("reps", [0, -5, 2.5, "100", True])
def test_bad_reps_are_invalid_arguments(reps: object) -> None:
    with pytest.raises(InvalidArgument, match="reps"):
        bq.bootstrap(bq.load("sample:toy"), reps=reps)  # type: ignore[arg-type]


def test_bad_weights_and_options_are_invalid_arguments() -> None:
    draws = bq.bootstrap(bq.load("sample:vtab1k"), reps=100)
    with pytest.raises(InvalidArgument, match="sum to 1"):
        bq.ranks(draws, group=[0.5, 0.2, 0.2])
    with pytest.raises(InvalidArgument, match="one per category"):
        bq.rank_sets(draws, group=[1.0])
    with pytest.raises(InvalidArgument, match="level"):
        bq.leaderboard(draws, level=95)
    with pytest.raises(InvalidArgument, match="correction"):
        bq.compare(draws, correction="sidak")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="models"):
        bq.compare(draws, models=["nobody", draws.models[0]])
    with pytest.raises(TypeError):
        bq.leaderboard(draws, 0.95)  # type: ignore[misc]


def test_statistic_of_the_mean_is_the_leaderboard() -> None:
    draws = bq.bootstrap(bq.load("sample:vtab1k"), reps=500, seed=2)
    mean = bq.statistic(draws, lambda s: s.mean(axis=1), level=0.9, name="mean")
    board = bq.leaderboard(draws, level=0.9).to_frame().query("group == 'overall'")
    board = board.set_index("model").loc[list(mean.labels)]
    np.testing.assert_allclose(mean.estimate, board["estimate"], rtol=1e-12)
    np.testing.assert_allclose(mean.low, board["low"], rtol=1e-12)
    np.testing.assert_allclose(mean.high, board["high"], rtol=1e-12)
    spread = bq.statistic(draws, lambda s: s.mean(axis=1).max() - s.mean(axis=1).min())
    assert spread.labels == ("statistic",) and spread.low[0] <= spread.high[0]
    with pytest.raises(InvalidArgument, match="shape"):
        bq.statistic(draws, lambda s: np.ones((2, 2)))


def test_results_have_frames_figures_and_short_reprs() -> None:
    bench = bq.load("sample:vtab1k")
    draws = bq.bootstrap(bench, reps=200, seed=0)
    units = pd.DataFrame(
        {"unit": list("abcdefgh"), "estimate": np.linspace(0.2, 0.6, 8), "se": [0.1] * 8}
    )
    results = [
        bq.leaderboard(draws),
        bq.compare(draws, models=list(bench.models[:3])),
        bq.ranks(draws),
        bq.rank_sets(draws),
        bq.weights(bench, resolution=8),
        bq.epp(bench),
        bq.subgroups(units),
        bq.power(bench, delta=0.02),
        bq.statistic(draws, lambda s: s.mean(axis=1)),
        bq.arena(bq.load_battles("sample:alpaca_eval")),
    ]
    for res in results:
        frame = res.to_frame()
        assert len(frame) > 0 and frame.attrs
        text = repr(res)  # one short line (issue 41): name, data, level, rows
        assert len(text) < 120 and text.startswith(type(res).__name__ + "(") and "\n" not in text
        assert "array(" not in text and " at 0x" not in text
        assert "<table" in res._repr_html_()
        fig = res.figure()
        assert isinstance(fig, go.Figure)
        with pytest.raises(AttributeError):
            res.level = 0.5  # type: ignore[misc]
    lead = bq.leaderboard(draws, level=0.9).figure(group="overall")
    assert "vtab1k" in lead.layout.title.subtitle.text and "90%" in lead.layout.title.subtitle.text
    assert len(repr(draws)) < 200 and "vtab1k" in repr(draws)


def test_import_is_lazy() -> None:
    code = "import sys, benchuq; print('numpy' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    assert set(bq.__all__) <= set(dir(bq))
    with pytest.raises(AttributeError):
        bq.no_such_name  # noqa: B018


def test_report_writes_the_cli_report(tmp_path: Path) -> None:
    bench = bq.load("sample:toy")
    path = bq.report(bench, tmp_path / "toy.html", reps=200, seed=0, level=0.9)
    html = path.read_text(encoding="utf-8")
    assert html.count('class="plotly-graph-div"') >= 2 and "toy" in html  # figures drawn inline
    with pytest.raises(InvalidArgument, match="format"):
        bq.report(bench, tmp_path / "toy.doc", reps=200, format="doc")  # type: ignore[arg-type]


def test_files_are_named_by_their_content_as_in_the_cli_and_the_app(tmp_path: Path) -> None:
    """``bq.load`` of an lm-eval folder names the data by the folder and the shape, as the CLI and
    the app do (audit of 30; the folder rather than the harness: issue 41); ``name=`` and a
    sample keep their names."""
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
    bench = bq.load(folder)
    assert bench.name == "results_v04: 2 models x 16 benchmarks"
    html = bq.report(bench, tmp_path / "r.html", reps=200).read_text(encoding="utf-8")
    assert "<h1>results_v04: 2 models x 16 benchmarks" in html
    assert bq.load(folder, name="Nightly").name == "Nightly"
    assert bq.load("sample:vtab1k").name == "vtab1k"
    assert bq.leaderboard(bq.bootstrap(bench, reps=200)).to_frame().shape[0] > 0


def test_weights_from_paired_draws_read_the_correlation() -> None:
    bench = bq.from_frame(
        long_items(np.random.default_rng(6)),
        model="system",
        task="bench",
        item="qid",
        score="ok",
        category="area",
    )
    m = bq.weights(bq.bootstrap(bench, reps=300, seed=0), resolution=4)
    doc = m.payload()
    assert doc["rho_source"] == "paired draws" and doc["rho"] is None and "implied_rho" in doc
    assert list(m.to_frame().columns[:2]) == ["w_reasoning", "w_knowledge"]
    assert bq.weights(bench, at=[1, 1], resolution=4).to_frame().shape[0] == 1
    with pytest.raises(InvalidArgument, match="not both"):
        bq.weights(bench, categories=["reasoning"], merge={"reasoning": "r"})


def test_html_repr_escapes_names_from_the_data() -> None:
    df = pd.DataFrame(
        {
            "m": ["<b>x</b>", "<b>x</b>", "y", "y"],
            "t": ["t"] * 4,
            "i": [1, 2, 1, 2],
            "s": [1.0, 0.0, 1.0, 1.0],
        }
    )
    bench = bq.from_frame(df, model="m", task="t", item="i", score="s", name="<script>")
    page = bq.leaderboard(bq.bootstrap(bench, reps=100))._repr_html_()
    assert "<script>" not in page and "<b>x</b>" not in page


def test_export_writes_what_the_cli_writes(tmp_path: Path) -> None:
    cli_dir, api_dir = tmp_path / "cli", tmp_path / "api"
    argv = ["export", "sample:vtab1k", "--format", "eee", "-o", str(cli_dir), "--reps", "300"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*argv, "--timestamp", "0"]) == 0
    out = bq.export(bq.load("sample:vtab1k"), api_dir, reps=300, timestamp="0")
    assert out.aggregates == 16
    written = sorted(p.relative_to(api_dir) for p in api_dir.rglob("*.json"))
    assert written == sorted(p.relative_to(cli_dir) for p in cli_dir.rglob("*.json"))
    for rel in written:
        a = json.loads((api_dir / rel).read_text())
        b = json.loads((cli_dir / rel).read_text())
        assert a["evaluation_results"] == b["evaluation_results"]
    with pytest.raises(InvalidArgument, match="format"):
        bq.export(bq.load("sample:toy"), tmp_path / "x", format="csv")  # type: ignore[arg-type]


def test_the_api_imports_neither_the_app_nor_streamlit() -> None:
    """The API (and so the CLI that prints its results) builds figures with the presentation
    layer only; ``dashboard`` is the Streamlit app's."""
    import ast

    root = Path(__file__).resolve().parents[2] / "benchuq"
    files = [root / "__init__.py", *root.glob("api/*.py"), *root.glob("results*.py")]
    files += root.glob("results/*.py")
    assert len(files) > 5
    for path in files:
        name = str(path.relative_to(root))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        modules |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        bad = {
            m for m in modules if m.startswith(("streamlit", "benchuq.dashboard", "benchuq.pages"))
        }
        assert not bad, (name, bad)


def test_leaderboard_weights_add_the_weighted_group() -> None:
    draws = bq.bootstrap(bq.load("sample:vtab1k"), reps=200)
    board = bq.leaderboard(draws, group=[0.5, 0.25, 0.25])
    assert "weighted" in set(board.to_frame()["group"])
    assert (
        board.figure(group="weighted").layout.title.text == "Weighted score (by category weights)"
    )
    with pytest.raises(InvalidArgument, match="sum to 1"):
        bq.leaderboard(draws, group=[0.5, 0.5, 0.5])
    equal = bq.leaderboard(draws, group=[1 / 3] * 3).to_frame()  # the default: no S(w)
    assert list(dict.fromkeys(equal["group"])) == [
        "overall",
        "natural",
        "specialized",
        "structured",
    ]


def test_a_single_category_does_not_repeat_overall() -> None:
    board = bq.leaderboard(bq.bootstrap(bq.load("sample:toy"), reps=200)).to_frame()
    assert set(board["group"]) == {"overall"}  # the default category 'all' is overall again


def test_lm_eval_groups_make_the_same_overall_as_the_cli() -> None:
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
    draws = bq.bootstrap(bq.load(str(folder)), reps=300, seed=0)
    board = bq.leaderboard(draws, level=0.9)
    doc = cli_json("leaderboard", str(folder), "--reps", "300", "--level", "0.9", "--json")
    assert board.payload()["overall"] == doc["overall"]
    assert doc["overall"]["aggregate"] == "benchmarks"
    assert_rows_equal(board.to_frame(), doc["rows"])
    tasks = bq.bootstrap(bq.load(str(folder)), reps=300, seed=0, overall="tasks")
    doc = cli_json(
        "leaderboard",
        str(folder),
        "--reps",
        "300",
        "--overall",
        "tasks",
        "--level",
        "0.9",
        "--json",
    )
    assert_rows_equal(bq.leaderboard(tasks, level=0.9).to_frame(), doc["rows"])


def test_arena_equals_the_cli() -> None:
    doc = cli_json("arena", "sample:alpaca_eval", "--anchor", "gpt4_1106_preview", "--json")
    res = bq.arena(bq.load_battles("sample:alpaca_eval"), anchor="gpt4_1106_preview")
    assert_rows_equal(res.to_frame(), doc["rows"])
    assert res.payload()["sentence"] == doc["sentence"]
    assert isinstance(res.figure(), go.Figure)


def test_context_travels_with_the_data() -> None:
    """Groups, source and run details ride on the loaded value (issue 38): kept by
    ``dataclasses.replace`` and ``subset``, left out of equality and hashes."""
    import dataclasses

    from benchuq.core.data import Context

    bench = bq.load("sample:mmlu")
    assert bench.context.source == "sample:mmlu"
    assert bench.context.meta is not None
    renamed = dataclasses.replace(bench, name="other")
    assert renamed.context == bench.context
    assert bench.subset(models=list(bench.models[:2])).context == bench.context
    bare = dataclasses.replace(bench, context=Context())
    assert bare == bench and hash(bare) == hash(bench)
    assert bare.content_hash == bench.content_hash and bare.data_hash == bench.data_hash
    assert bq.load("sample:toy", name="mine").name == "mine"  # --name renames a sample too


def test_the_api_keeps_no_side_tables() -> None:
    """No weak dictionaries in the API: context lives on the data (issue 38)."""
    root = Path(__file__).resolve().parents[2] / "benchuq" / "api"
    for path in root.glob("*.py"):
        assert "weakref" not in path.read_text(encoding="utf-8"), path.name


def test_the_share_on_top_names_one_other_model_in_the_singular() -> None:
    import pandas as pd

    from benchuq.core.findings import findings

    frame = pd.DataFrame(
        {
            "model": ["a", "b", "c"] * 2,
            "task": ["t1"] * 3 + ["t2"] * 3,
            "category": ["x"] * 6,
            "n": [500] * 6,
            "correct": [400, 398, 100, 410, 405, 90],  # c far behind: never on top
        }
    )
    bench = bq.from_frame(frame, n="n", correct="correct")
    f = findings(bench, bq.bootstrap(bench, reps=300, seed=0), level=0.834)
    line = next(h for h in f.headline if h.startswith("How often each model comes out on top"))
    assert line.endswith("; the other model never."), line
