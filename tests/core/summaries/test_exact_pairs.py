"""Exact sign-flip p-values for pairs compared on fewer than 30 items (issue #29, METHODS 2d).

Checked against an independent implementation (scipy's exact binomial test: for right/wrong
scores on one task the sign-flip test is McNemar's exact test) and by seeded simulation: equal
models with 1, 2 and 5 items are declared different in at most 5% of data sets, family-wise
with max-T and Holm, and a real difference with 20 or 30 items is still found.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import benchuq as bq
from benchuq.cli.main import main
from benchuq.core.data import Benchmark, ItemTask, Labels
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.summaries import pairwise_differences
from benchuq.core.summaries.exact_pairs import flip_p_value, holm_in_family


def items(*tasks: np.ndarray, cluster: np.ndarray | None = None) -> Benchmark:
    """Item-level scores, one ``(M, n)`` matrix per task; ``cluster`` ids for every task."""
    M = tasks[0].shape[0]
    made = tuple(
        ItemTask(
            tuple(f"q{i}" for i in range(s.shape[1])),
            s.astype(float),
            None if cluster is None else Labels.encode([str(c) for c in cluster]),
        )
        for s in tasks
    )
    return Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(len(tasks))),
        categories=("all",) * len(tasks),
        kind="items",
        estimate=np.array([[s[i].mean() for s in tasks] for i in range(M)]),
        item_tasks=made,
    )


def test_binary_one_task_equals_scipy_exact_binomial_test() -> None:
    rng = np.random.default_rng(0)
    for n in (3, 7, 12, 16):
        for _ in range(5):
            s = (rng.random((2, n)) < [[0.8], [0.4]]).astype(float)
            row = pairwise_differences(bootstrap(items(s), reps=300), ["m0", "m1"]).iloc[0]
            b = int(((s[0] == 1) & (s[1] == 0)).sum())
            c = int(((s[0] == 0) & (s[1] == 1)).sum())
            want = stats.binomtest(b, b + c).pvalue if b + c else 1.0
            assert row["p_exact"] == pytest.approx(want, rel=1e-12), (n, b, c)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_p_value_never_below_what_n_allows(n: int) -> None:
    """All n items right for A, wrong for B: the most extreme data, p = 2^(1 - n) exactly."""
    s = np.stack([np.ones(n), np.zeros(n)])
    d = bootstrap(items(s), reps=2000, seed=1)
    for correction in ("maxt", "none", "bonferroni", "holm"):
        row = pairwise_differences(d, ["m0", "m1"], correction=correction).iloc[0]
        assert row["p_exact"] == pytest.approx(2.0 ** (1 - n))
        assert row["p_value"] >= 2.0 ** (1 - n) and row["p_stepdown"] >= 2.0 ** (1 - n)
        assert not row["p_below_resolution"]
        # interval and p-value agree
        assert (row["low"] > 0 or row["high"] < 0) == (row["p_value"] <= 0.05), correction


def test_clusters_are_the_units() -> None:
    """6 items in 3 clusters, A right and B wrong everywhere: 3 units, p = 2^(1 - 3)."""
    s = np.stack([np.ones(6), np.zeros(6)])
    d = bootstrap(items(s, cluster=np.array([0, 0, 1, 1, 2, 2])), reps=300)
    assert pairwise_differences(d, ["m0", "m1"]).iloc[0]["p_exact"] == pytest.approx(0.25)


def test_several_tasks_flip_every_item_with_its_task_weight() -> None:
    """Overall = mean of two tasks of 2 and 4 items: the unit weights are 1/4 and 1/8."""
    t1 = np.array([[1.0, 1.0], [0.0, 0.0]])
    t2 = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    d = bootstrap(items(t1, t2), reps=300)
    p = pairwise_differences(d, ["m0", "m1"], correction="none").iloc[0]["p_exact"]
    want, _ = flip_p_value(np.array([0.25, 0.25, 0.125, 0, 0, 0]))
    assert p == pytest.approx(want)
    # flips of (1/4, 1/4, 1/8): |sum| >= 5/8 for 2 of the 8 sign patterns
    assert want == pytest.approx(2 / 8)


def test_holm_in_family_is_holm_for_the_whole_family() -> None:
    p = np.array([0.01, 0.04, 0.03])
    np.testing.assert_allclose(holm_in_family(p, 3), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(holm_in_family(p[:1], 3), [0.03])


@pytest.mark.parametrize("n", [1, 2, 5])
def test_equal_models_with_few_items_are_rarely_declared_different(n: int) -> None:
    """3 equal models (3 pairs, max-T and Holm family-wise), 150 data sets: "differ" (p <= 0.05)
    in at most 5%."""
    rng = np.random.default_rng([7, n])
    single = stepdown = 0
    sims = 150
    for s in range(sims):
        latent = rng.standard_normal(n) + rng.standard_normal((3, n))
        d = bootstrap(items((latent > 0).astype(float)), reps=200, seed=s)
        table = bq.compare(d, level=0.95).table
        single += int((table["p_value"] <= 0.05).any())
        stepdown += int((table["p_stepdown"] <= 0.05).any())
        assert (table["p_value"] >= 2.0 ** (1 - n)).all()
    assert single / sims <= 0.05 and stepdown / sims <= 0.05


@pytest.mark.parametrize(("n", "gap"), [(20, 0.5), (30, 0.4)])
def test_a_real_difference_is_still_found(n: int, gap: float) -> None:
    """A at 0.9, B at 0.9 - gap, on n items: found (p <= 0.05, interval excludes 0) in most of 40
    data sets, by the exact test at 20 items and by the bootstrap at 30."""
    rng = np.random.default_rng([8, n])
    found = 0
    for s in range(40):
        scores = (rng.random((2, n)) < [[0.9], [0.9 - gap]]).astype(float)
        row = pairwise_differences(bootstrap(items(scores), reps=400, seed=s), ["m0", "m1"])
        row = row.iloc[0]
        assert np.isnan(row["p_exact"]) == (n >= 30)
        found += int(row["p_value"] <= 0.05 and row["low"] > 0)
    assert found / 40 >= 0.8


def test_counts_and_normalized_scores_keep_the_floor() -> None:
    """No items to flip (task-level counts): the p-value is still at least 2^(1 - n)."""
    bench = bq.load("sample:toy")
    d = bootstrap(bench, reps=300)
    table = pairwise_differences(d, list(d.models))
    assert table["p_exact"].isna().all()
    assert (table["p_value"] >= table["p_floor"]).all()


def test_cli_and_api_show_the_exact_p_value_on_a_real_helm_suite(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HELM safety suite, 4 items a model: the CLI's JSON and text and ``bq.compare`` give the
    exact sign-flip p-value (at least 2^(1 - 4)), not a bootstrap one."""
    helm = str(Path(__file__).resolve().parents[2] / "fixtures" / "real" / "helm" / "safety_v3")
    models = ["anthropic/claude-3-5-sonnet-20240620", "meta/llama-3-70b"]
    assert main(["compare", helm, "--models", *models, "--json", "--reps", "400"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["p_exact"] >= 1 / 8 and row["p_value"] == pytest.approx(row["p_exact"])
    assert main(["compare", helm, "--models", *models, "--reps", "400"]) == 0
    assert "exact sign-flip test" in capsys.readouterr().out
    d = bq.bootstrap(bq.load(helm), reps=400)
    api = bq.compare(d, models=models).table.iloc[0]
    assert api["p_value"] == pytest.approx(row["p_value"])


@pytest.mark.parametrize("n", [5, 20])
def test_differences_of_shares_stay_in_minus_one_one_at_0_and_100_percent(n: int) -> None:
    """Every draw of a mean of 1s over tasks may be ``1 + 4e-16``; the [-1, 1] cut must still
    apply (before: 0% against 100% on 2 x 20 items gave the interval [-1.146, -0.855])."""
    zeros, ones, half = np.zeros(n), np.ones(n), np.full(n, 0.5)
    task = np.stack([zeros, ones, half])
    d = bootstrap(items(task, task.copy()), reps=2000, seed=0)
    table = pairwise_differences(d, ["m0", "m1", "m2"], level=0.95)
    assert (table["low"] >= -1.0).all() and (table["high"] <= 1.0).all()
    assert (table["low"] <= table["estimate"]).all() and (table["estimate"] <= table["high"]).all()
