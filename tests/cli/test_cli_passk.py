"""``--statistic pass@K|pass^K`` (issue 43) through the CLI and the API: the unbiased formula's
mean, identical runs differ by 0, too few answers refused with the fix, and inspect_ai's own
``pass_at`` reducer on real ``.eval`` logs with epochs."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchuq as bq
from benchuq.cli.main import main

EVAL_DIR = Path(__file__).parents[1] / "fixtures" / "real" / "inspect_ai" / "eval_zip"


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, np.ndarray]]:
    """Two models, two tasks, 40 items x 10 answers each (an item table with an epoch column)."""
    rng = np.random.default_rng(11)
    rows, right = [], {}
    for model in ("a", "b"):
        for task in ("t1", "t2"):
            p = rng.beta(1, 2, 40)
            r = (rng.random((40, 10)) < p[:, None]).astype(int)
            right[f"{model}/{task}"] = r
            for i in range(40):
                for e in range(10):
                    rows.append((model, task, f"{task}-q{i}", e + 1, r[i, e]))
    path = tmp_path_factory.mktemp("passk") / "answers.csv"
    pd.DataFrame(rows, columns=["model", "task", "item", "epoch", "score"]).to_csv(
        path, index=False
    )
    return path, right


def _formula(r: np.ndarray, k: int) -> float:
    n, c = r.shape[1], r.sum(axis=1)
    return float(np.mean([1 - comb(n - x, k) / comb(n, k) for x in c]))


def test_leaderboard_pass_at_5_json(answers, capsys: pytest.CaptureFixture[str]) -> None:
    path, right = answers
    assert main(["leaderboard", str(path), "--statistic", "pass@5", "--reps", "300", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rows = {(r["model"], r["group"]): r for r in payload["rows"]}
    for model in ("a", "b"):
        want = np.mean([_formula(right[f"{model}/{t}"], 5) for t in ("t1", "t2")])
        got = rows[(model, "overall")]
        assert got["estimate"] == pytest.approx(want, abs=1e-9)
        assert got["low"] < got["estimate"] < got["high"]
    assert any("pass@5" in n for n in payload["notes"])


def test_diff_of_identical_runs_is_zero(
    answers, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = answers
    frame = pd.read_csv(path)
    runs = [tmp_path / "base.csv", tmp_path / "candidate.csv"]
    for run in runs:
        frame[frame["model"] == "a"].to_csv(run, index=False)
    code = main(["diff", *map(str, runs), "--statistic", "pass@5", "--reps", "300", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    assert payload["overall"]["difference"] == 0
    assert all(t["difference"] == 0 for t in payload["tasks"])


def test_pass_at_20_with_10_answers_is_refused(answers, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = answers
    assert main(["leaderboard", str(path), "--statistic", "pass@20"]) == 2
    err = capsys.readouterr().err
    assert "at least 20 answers per item" in err and "pass@10" in err and "Traceback" not in err


def test_bad_statistic_is_a_usage_error(answers, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = answers
    assert main(["leaderboard", str(path), "--statistic", "best@3"]) == 2
    assert "not one of mean, pass@K, pass^K" in capsys.readouterr().err


def test_api_statistic_keyword(answers) -> None:
    path, right = answers
    bench = bq.load(str(path), statistic="pass^3")
    assert bench.context.statistic == "pass^3"
    r = right["a/t1"]
    n, c = r.shape[1], r.sum(axis=1)
    want = np.mean([comb(x, 3) / comb(n, 3) for x in c])
    assert bench.estimate[0, 0] == pytest.approx(want, abs=1e-9)
    # scored once: bootstrap(statistic=) of scored data keeps it, another statistic is refused
    draws = bq.bootstrap(bench, reps=100, statistic="pass^3")
    assert draws.values.shape == (100, 2, 2)
    with pytest.raises(bq.DataError, match="already scored by pass\\^3"):
        bq.bootstrap(bench, reps=100, statistic="pass@2")
    raw = bq.load(str(path))
    again = bq.bootstrap(raw, reps=100, statistic="pass^3")
    assert again.observed == pytest.approx(bench.estimate)
    d = bq.diff(raw, raw, base_model="b", candidate_model="b", statistic="pass@5", reps=200)
    assert d.to_frame().query("task == 'overall'")["difference"].iloc[0] == 0


def test_equals_inspect_pass_at_reducer() -> None:
    """pass@2 of real inspect_ai logs with two epochs equals inspect_ai's ``pass_at(2)``
    reducer applied to each sample's epochs, averaged over samples."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import pass_at

    checked = 0
    for path in sorted(EVAL_DIR.glob("*.eval")):
        log = read_eval_log(str(path))
        if not log.samples or (log.eval.config.epochs or 1) < 2 or log.status != "success":
            continue
        try:
            bench = bq.load(str(path), statistic="pass@2")
        except bq.DataError:
            continue  # partial credit or too few answers: refused, covered elsewhere
        scorer = next(iter(log.samples[0].scores or {}))
        by_id: dict[str, list] = {}
        for s in log.samples:
            if s.scores and scorer in s.scores and not s.error:
                by_id.setdefault(str(s.id), []).append(s.scores[scorer])
        reduced = [float(pass_at(2)(v).as_float()) for v in by_id.values() if len(v) >= 2]
        assert bench.estimate[0, 0] == pytest.approx(np.mean(reduced), abs=1e-9)
        checked += 1
    assert checked >= 1


def test_power_budget_plans_items_against_answers(
    answers, capsys: pytest.CaptureFixture[str]
) -> None:
    """``benchuq power DATA --statistic pass@5 --budget B``: per answers per item the items
    bought from the data's pool and the half-width; the JSON is ``bq.answers_plan``'s."""
    path, _ = answers
    argv = ["power", str(path), "--statistic", "pass@5", "--budget", "400", "--json"]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["statistic"] == "pass@5" and payload["pool"] == 40
    rows = payload["rows"]
    # 40 items at most; 50 answers an item would buy 8, fewer than are planned (MIN_ITEMS)
    assert [(r["answers"], r["items"]) for r in rows] == [(5, 40), (10, 40), (20, 20)]
    assert rows[1]["half_width"] < rows[0]["half_width"]  # the pool is spent: more answers
    api = bq.answers_plan(bq.load(str(path)), statistic="pass@5", budget=400)
    assert api.payload() == payload
    assert main(["power", str(path), "--budget", "400", "--pool", "many"]) == 2
    assert "--pool 'many'" in capsys.readouterr().err
