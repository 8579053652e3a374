"""``bq.judge`` (METHODS 15): a frozen result with the CLI's JSON, a tidy frame, figures, and
corrected scores that feed the leaderboard and compare."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import benchuq as bq
from benchuq.cli.main import main
from benchuq.core.analyses.judge import ROW_KEYS


def test_sample_result_faces(capsys: pytest.CaptureFixture[str]) -> None:
    j = bq.judge("sample:mt_bench")
    assert repr(j) == "JudgeResult(data='mt_bench', level=0.95, 7 rows)"
    frame = j.to_frame()
    assert tuple(frame.columns) == ROW_KEYS and frame.attrs["method"] == "ppi++"
    assert main(["judge", "sample:mt_bench", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(j.payload()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        j.result = None  # type: ignore[misc]
    for kind in ("estimates", "agreement", "labels"):
        fig = j.figure(kind=kind)  # type: ignore[arg-type]
        assert fig.data and "mt_bench" in fig.layout.title.subtitle.text
    with pytest.raises(bq.InvalidArgument):
        j.figure(kind="nope")  # type: ignore[arg-type]


def test_frames_in_and_scores_out() -> None:
    rng = np.random.default_rng(1)
    y = (rng.random(800) < 0.6).astype(float)
    f = np.where(y == 1, rng.random(800) < 0.9, rng.random(800) > 0.7).astype(float)
    model = np.repeat(["m1", "m2"], 400)
    items = pd.DataFrame({"model": model, "item": np.tile([f"x{k}" for k in range(400)], 2),
                          "judge": f})  # fmt: skip
    labels = items.assign(human=y).iloc[::5][["model", "item", "human"]]
    j = bq.judge(items, labels=labels, method="rogan-gladen", level=0.9)
    assert j.result.overall.chosen.n_labelled == 160
    bench = j.to_benchmark()
    draws = bq.bootstrap(bench, reps=300, seed=0)
    board = bq.leaderboard(draws, level=0.9).to_frame().query("group == 'overall'")
    got = board.set_index("model").loc[list(bench.models), "estimate"].to_numpy()
    assert got == pytest.approx(bench.estimate[:, 0])
    assert len(bq.compare(draws, models=["m1", "m2"]).to_frame()) == 1
    with pytest.raises(bq.DataError, match="no better than chance"):
        bq.judge(items.assign(judge=1 - f), labels=labels)
