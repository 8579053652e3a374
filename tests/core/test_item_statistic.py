"""pass@k and pass^k per item (issue 43, METHODS 2e): the unbiased formula, refusals, and the
interval's coverage of the population value by simulation."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest

from benchuq.core.data import DataError
from benchuq.core.item_statistic import parse_statistic, pass_at_k, pass_hat_k, per_item
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import load_files
from benchuq.core.summaries import group_scores, percentile_interval
from benchuq.core.validation import InvalidArgument


def answers_frame(right: np.ndarray, model: str = "m", task: str = "t") -> pd.DataFrame:
    """An item table with an epoch column: ``right[item, answer]`` 0/1."""
    items, answers = right.shape
    return pd.DataFrame(
        {
            "model": model,
            "task": task,
            "item": np.repeat([f"q{i}" for i in range(items)], answers),
            "epoch": np.tile(np.arange(1, answers + 1), items),
            "score": right.ravel().astype(float),
        }
    )


def simulated(items: int, answers: int, seed: int, models: int = 1) -> tuple[object, np.ndarray]:
    """Items with difficulties p ~ Beta(1, 2), ``answers`` Bernoulli(p) answers each."""
    rng = np.random.default_rng(seed)
    frames, rights = [], []
    for m in range(models):
        p = rng.beta(1, 2, items)
        right = (rng.random((items, answers)) < p[:, None]).astype(int)
        frames.append(answers_frame(right, model=f"m{m}"))
        rights.append(right)
    return read(pd.concat(frames, ignore_index=True)), np.stack(rights)


def read(frame: pd.DataFrame) -> object:
    """The frame as an uploaded item table (CSV), read as a user's file is."""
    return load_files([("items.csv", frame.to_csv(index=False).encode())])


def unbiased(right: np.ndarray, k: int, kind: str) -> float:
    n = right.shape[1]
    c = right.sum(axis=1)
    if kind == "pass@k":
        vals = [1 - comb(n - ci, k) / comb(n, k) for ci in c]
    else:
        vals = [comb(ci, k) / comb(n, k) for ci in c]
    return float(np.mean(vals))


@pytest.mark.parametrize(("text", "kind", "k"), [("pass@1", "pass@k", 1), ("pass@5", "pass@k", 5),
                                                  ("pass^3", "pass^k", 3)])  # fmt: skip
def test_equals_the_unbiased_formula(text: str, kind: str, k: int) -> None:
    bench, rights = simulated(300, 10, seed=1, models=2)
    out = per_item(bench, text)
    for m in range(2):
        assert out.estimate[m, 0] == pytest.approx(unbiased(rights[m], k, kind), abs=1e-9)


def test_pass_at_1_is_the_mean() -> None:
    bench, _ = simulated(50, 4, seed=2)
    assert per_item(bench, "pass@1").estimate == pytest.approx(bench.estimate, abs=1e-12)
    assert per_item(bench, "mean") is bench


def test_formula_edges() -> None:
    n, c = np.array([10, 10, 10, 3]), np.array([0, 10, 3, 1])
    assert pass_at_k(n, c, 5)[:3].tolist() == pytest.approx(
        [0.0, 1.0, 1 - comb(7, 5) / comb(10, 5)]
    )
    assert np.isnan(pass_at_k(n, c, 5)[3])  # fewer answers than k
    assert pass_hat_k(n, c, 3)[:3].tolist() == pytest.approx([0.0, 1.0, comb(3, 3) / comb(10, 3)])


def test_fewer_answers_than_k_is_refused_with_the_fix() -> None:
    bench, _ = simulated(20, 10, seed=3)
    with pytest.raises(DataError) as err:
        per_item(bench, "pass@20")
    text = str(err.value)
    assert "at least 20 answers per item" in text and "has 10" in text and "pass@10" in text


def test_partial_credit_is_refused() -> None:
    right = np.array([[1, 0.5], [0, 1]])
    bench = read(answers_frame(right))
    with pytest.raises(DataError, match="right or wrong"):
        per_item(bench, "pass@2")


def test_per_task_data_is_refused() -> None:
    from benchuq.core.reading import load_sample

    with pytest.raises(DataError, match="needs each item's answers"):
        per_item(load_sample("toy"), "pass@2")


@pytest.mark.parametrize("bad", ["pass@0", "pass@", "best@3", "pass@-1"])
def test_bad_statistic(bad: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_statistic(bad)


def test_pass_at_5_interval_covers_the_population_value() -> None:
    """95% intervals of pass@5 from 60 items x 10 answers; the population value of p ~ Beta(1,
    2) is E[1 - (1 - p)^5] = 1 - B(1, 7) / B(1, 2) = 1 - 2/7. 150 data sets: the coverage's MC
    error is about 1.8 points, so >= 0.91 fails a true 0.95 with probability < 2%."""
    truth = 1 - 2 / 7
    hits = 0
    sims = 150
    for s in range(sims):
        bench, _ = simulated(60, 10, seed=100 + s)
        draws = bootstrap(per_item(bench, "pass@5"), reps=400, seed=s)
        iv = percentile_interval(group_scores(draws, group="overall"), level=0.95)
        hits += bool(iv.low[0] <= truth <= iv.high[0])
    assert hits / sims >= 0.91


def test_merged_identical_items_give_the_same_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above MERGE_ITEMS continuous items, identical rows are one unit weighted by their count
    (the same Dirichlet weights in distribution): the intervals match those of a unit per item
    within Monte Carlo error (1,000 draws: the 2.5% quantile's MC error is ~0.1 of the SE)."""
    from benchuq.core.methods import bootstrap as engine

    rng = np.random.default_rng(7)
    items = 24_000
    c = rng.binomial(10, rng.beta(1, 2, (2, items)))
    mean = c / 10
    from benchuq.core.data import Benchmark, ItemTask

    task = ItemTask([f"q{i}" for i in range(items)], mean, answers=np.full((2, items), 10),
                    answer_sq=mean)  # fmt: skip
    bench = Benchmark("m", ("a", "b"), ("t",), ("c",), "items", mean.mean(axis=1, keepdims=True),
                      item_tasks=(task,))  # fmt: skip
    scored = per_item(bench, "pass@3")
    assert len(engine._units(scored.item_tasks[0]).weights) < items // 2  # merged
    merged = bootstrap(scored, reps=1000, seed=1).values[:, :, 0]
    monkeypatch.setattr(engine, "MERGE_ITEMS", 10**9)
    assert len(engine._units(scored.item_tasks[0]).weights) == items  # a unit per item
    single = bootstrap(scored, reps=1000, seed=1).values[:, :, 0]
    se = single.std(axis=0)
    assert np.abs(merged.std(axis=0) / se - 1).max() < 0.1
    for q in (0.025, 0.5, 0.975):
        gap = np.abs(np.quantile(merged, q, axis=0) - np.quantile(single, q, axis=0))
        assert (gap < 0.25 * se).all()
    diff = merged[:, 0] - merged[:, 1]  # paired: the difference's spread matches too
    assert diff.std() == pytest.approx((single[:, 0] - single[:, 1]).std(), rel=0.1)
