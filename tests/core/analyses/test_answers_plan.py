"""More items or more answers (issue 43, METHODS 10b): the planned standard error against the
spread of fresh simulated data sets, the trade-off's shape, and refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchuq.core.analyses.answers_plan import answers_plan, estimator_variance
from benchuq.core.data import DataError
from benchuq.core.item_statistic import parse_statistic as ps
from benchuq.core.item_statistic import pass_at_k
from benchuq.core.reading.loaders import load_files


def answers_bench(items: int, answers: int, seed: int) -> object:
    rng = np.random.default_rng(seed)
    p = rng.beta(1, 2, items)
    right = (rng.random((items, answers)) < p[:, None]).astype(int)
    frame = pd.DataFrame(
        {
            "model": "m",
            "task": "t",
            "item": np.repeat([f"q{i}" for i in range(items)], answers),
            "epoch": np.tile(np.arange(1, answers + 1), items),
            "score": right.ravel(),
        }
    )
    return load_files([("a.csv", frame.to_csv(index=False).encode())])


def test_estimator_variance_is_exact() -> None:
    p, m = np.array([0.3]), 6
    draws = np.random.default_rng(0).binomial(m, p[0], 400_000)
    est = pass_at_k(np.full(draws.size, m), draws, 3)
    assert estimator_variance(p, m, ps("pass@3"))[0] == pytest.approx(est.var(), rel=0.01)
    assert estimator_variance(p, m, ps("mean"))[0] == pytest.approx(0.3 * 0.7 / 6)


def test_planned_se_matches_fresh_data_sets() -> None:
    """Plan pass@5 with 5 answers on 300 items from one data set; the SD of the pass@5 score of
    400 fresh data sets (new items, new answers) is within 12% of the planned SE (the SD of
    400 draws has ~3.5% relative MC error; the plan's own variance estimate from 300 items
    ~8%)."""
    plan = answers_plan(answers_bench(300, 10, seed=1), statistic="pass@5", budget=1500,
                        pool=None)  # fmt: skip
    row = plan.table.set_index("answers").loc[5]
    assert row["items"] == 300
    rng = np.random.default_rng(2)
    scores = []
    for _ in range(400):
        p = rng.beta(1, 2, 300)
        c = rng.binomial(5, p)
        scores.append(pass_at_k(np.full(300, 5), c, 5).mean())
    assert row["se"] == pytest.approx(np.std(scores), rel=0.12)


def test_the_trade_off() -> None:
    bench = answers_bench(200, 10, seed=3)
    free = answers_plan(bench, statistic="mean", pool=None)  # new items cost nothing extra
    assert free.best["answers"] == 1
    kept = answers_plan(bench, statistic="mean", budget=2000)  # today's 200 items only
    assert kept.pool == 200 and kept.best["answers"] == 10  # more answers is all that is left
    costly = answers_plan(bench, statistic="pass@5", pool=None, item_cost=20)
    assert costly.best["answers"] > 5  # an item that costs 20 answers: fewer, fuller items
    assert "pass@5" in costly.sentence() and "interval" in costly.sentence()
    assert (free.table["answers"] >= 1).all()
    assert (answers_plan(bench, statistic="pass@5").table["answers"] >= 5).all()


def test_refusals() -> None:
    from benchuq.core.reading import load_sample

    with pytest.raises(DataError, match="item-level data"):
        answers_plan(load_sample("toy"))
    with pytest.raises(DataError, match="at least 20 answers"):
        answers_plan(answers_bench(50, 10, seed=4), statistic="pass@20")
