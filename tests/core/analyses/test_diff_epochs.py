"""core.analyses.diff with repeated answers per item (epochs, ``ItemTask.answers``; METHODS 13): an
item's answers stay together; the naive error treats them as independent. Two inspect_ai
``.eval`` logs with 3 epochs, written by inspect_ai's own writer, compare as written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from eval_logs import binary_values, write_log

from benchuq.cli.main import main
from benchuq.core.analyses.diff import diff
from benchuq.core.data import Benchmark, ItemTask

PAIR = {"base_model": "base", "candidate_model": "candidate"}


def epochs_bench(base: np.ndarray, cand: np.ndarray) -> Benchmark:
    """Two runs of ``(n, K)`` 0/1 answers as one data set with ``answers`` and ``answer_sq``."""
    n, k = base.shape
    means = np.stack([base.mean(axis=1), cand.mean(axis=1)])
    task = ItemTask([f"q{i}" for i in range(n)], means, answers=np.full((2, n), k),
                    answer_sq=means.copy())  # fmt: skip
    return Benchmark("epochs", ("base", "candidate"), ("t",), ("all",), "items",
                     means.mean(axis=1)[:, None], item_tasks=(task,))  # fmt: skip


def test_naive_error_treats_answers_as_independent_and_clusters_keep_them_together() -> None:
    rng = np.random.default_rng(0)
    n, k = 400, 3
    p = rng.beta(0.8, 0.5, n)  # strongly item-dependent: answers to one item agree
    base = (rng.random((n, k)) < p[:, None]).astype(float)
    cand = (rng.random((n, k)) < p[:, None]).astype(float)
    row = diff(epochs_bench(base, cand), **PAIR, reps=500).overall
    answers = base.ravel()
    assert row.base_se_naive == pytest.approx(answers.std(ddof=1) / np.sqrt(n * k))
    assert row.base_se_clustered == pytest.approx(base.mean(axis=1).std(ddof=1) / np.sqrt(n))
    assert row.base_se_clustered > 1.3 * row.base_se_naive  # the harness's stderr is too small
    assert row.n_answers_base == n * k and row.n_paired == n
    assert row.method.startswith("paired bootstrap (items as clusters")
    d = cand.mean(axis=1) - base.mean(axis=1)
    assert row.se_paired == pytest.approx(d.std(ddof=1) / np.sqrt(n))


def test_equal_runs_with_epochs_rarely_worse() -> None:
    rng = np.random.default_rng(1)
    runs, worse = 150, 0
    for k in range(runs):
        p = rng.beta(2, 1, 200)
        base = (rng.random((200, 3)) < p[:, None]).astype(float)
        cand = (rng.random((200, 3)) < p[:, None]).astype(float)
        worse += diff(epochs_bench(base, cand), **PAIR, reps=300, seed=k).overall.verdict == "worse"
    assert worse / runs <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / runs)


def test_two_eval_logs_with_three_epochs_compare_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(2)
    values_b, _ = binary_values(rng, 60, 3)
    values_c, _ = binary_values(rng, 60, 3)
    ids = [f"s{i}" for i in range(60)]
    write_log(tmp_path / "base.eval", model="m/base", task="qa", values={"match": values_b},
              ids=ids)  # fmt: skip
    write_log(tmp_path / "cand.eval", model="m/cand", task="qa", values={"match": values_c[2:]},
              ids=ids[2:])  # fmt: skip
    code = main(["diff", str(tmp_path / "base.eval"), str(tmp_path / "cand.eval"), "--json"])
    result = json.loads(capsys.readouterr().out)
    o = result["overall"]
    assert code == 0
    assert (o["n_paired"], o["n_base_only"], o["n_candidate_only"]) == (58, 2, 0)
    assert o["n_answers_base"] == o["n_answers_candidate"] == 58 * 3
    assert o["method"].startswith("paired bootstrap (items as clusters")
    assert o["base_se_clustered"] > 0 and o["se_naive"] > 0


def test_long_csvs_with_an_epoch_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    for name, drop in (("base", 0.0), ("cand", 0.1)):
        p = np.clip(np.linspace(0.2, 0.9, 300) - drop, 0, 1)
        x = (rng.random((300, 3)) < p[:, None]).astype(int)
        pd.DataFrame({"model": "m", "task": "qa", "item": np.repeat(np.arange(300), 3),
                      "epoch": np.tile([1, 2, 3], 300), "score": x.ravel()}).to_csv(
            tmp_path / f"{name}.csv", index=False)  # fmt: skip
    code = main(["diff", str(tmp_path / "base.csv"), str(tmp_path / "cand.csv"), "--json",
                 "--fail-on", "worse"])  # fmt: skip
    o = json.loads(capsys.readouterr().out)["overall"]
    assert code == 1 and o["verdict"] == "worse" and o["n_answers_base"] == 900


def test_two_runs_page_with_eval_logs_uploaded(make_app, tmp_path: Path) -> None:
    from conftest import page_path

    rng = np.random.default_rng(4)
    values_b, _ = binary_values(rng, 40, 3)
    values_c, _ = binary_values(rng, 40, 3)
    base = write_log(tmp_path / "base.eval", model="m/base", task="qa", values={"match": values_b})
    cand = write_log(tmp_path / "cand.eval", model="m/cand", task="qa", values={"match": values_c})
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("data.py")).run()
    at.file_uploader(key="uploader").set_value(
        [("base.eval", base.read_bytes(), "application/zip")]
    ).run()
    at.switch_page(page_path("two_runs.py")).run()
    at.radio(key="runs_source").set_value("upload").run()
    at.file_uploader(key="runs_upload").set_value(
        [("cand.eval", cand.read_bytes(), "application/zip")]
    ).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    counts = at.dataframe[0].value
    assert int(counts["paired items"].iloc[-1]) == 40
    assert int(counts["answers (base)"].iloc[-1]) == 120
    errors = at.dataframe[2].value
    assert errors["base, clustered"].iloc[-1] > 0 and errors["base, naive"].iloc[-1] > 0
