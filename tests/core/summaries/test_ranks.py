"""Ranks (METHODS 4): tie rules, the five aggregations by hand, rank probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata

from benchuq.core.draws import Draws
from benchuq.core.summaries import RANK_METHODS, rank_aggregations, rank_probabilities, ranks
from benchuq.core.summaries.ranks import average_and_bin_ranks, percent_bins, tie_ranks


def one_draw(obs: np.ndarray, higher_is_better: np.ndarray | None = None, reps: int = 1) -> Draws:
    M, T = obs.shape
    return Draws(
        values=np.repeat(np.asarray(obs, float)[None], reps, axis=0),
        observed=np.asarray(obs, float),
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=tuple("c" for _ in range(T)),
        higher_is_better=np.ones(T, bool) if higher_is_better is None else higher_is_better,
        method="test",
        paired=True,
        seed=3,
    )


def ranks_of(d: Draws, method: str, column: str = "mean_rank") -> list[float]:
    out = rank_aggregations(d)
    return out[out.method == method][column].tolist()


@pytest.mark.parametrize("ties", ["average", "min", "max"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_tie_ranks_agree_with_scipy(ties: str, axis: int) -> None:
    rng = np.random.default_rng(axis)
    x = np.floor(rng.random((30, 7, 5)) * 6) / 6  # many ties
    np.testing.assert_allclose(
        tie_ranks(x, axis=axis, ties=ties), rankdata(-x, axis=axis, method=ties)
    )


def test_missing_values_get_no_rank_and_take_no_place() -> None:
    r = tie_ranks(np.array([0.3, np.nan, 0.9, 0.3]))
    np.testing.assert_allclose(r, [2.5, np.nan, 1.0, 2.5])


def test_percent_bins_floor_and_binary_rounding() -> None:
    np.testing.assert_array_equal(
        percent_bins(np.array([0.57, 0.5699, 0.999, 1.0, 0.0])), [57, 56, 99, 100, 0]
    )
    # 0.57 is 0.56999999999999995 in binary; 57 / 100 also
    assert percent_bins(np.array([57 / 100]))[0] == 57


def test_bin_ranks_give_every_tied_model_the_worst_place() -> None:
    x = np.array([[0.571, 0.579, 0.50, 0.901, 0.90]])
    avg, worst = average_and_bin_ranks(x, axis=1)
    np.testing.assert_allclose(avg[0], [4, 3, 5, 1, 2])
    np.testing.assert_allclose(worst[0], [4, 4, 5, 2, 2])


def test_method_5_by_hand_differs_from_average_rank() -> None:
    # task 1: m0 0.571, m1 0.579 share bin 57 -> both rank 2 (worst of tie); m2 bin 50 -> 3
    # task 2: m2 0.90 -> 1; m0 0.700, m1 0.705 share bin 70 -> both rank 3
    # bins: averages m0 2.5, m1 2.5, m2 2.0 -> final m2 1, m0 and m1 tie 2.5
    # plain average rank: m0 (2 + 3) / 2, m1 (1 + 2) / 2, m2 (3 + 1) / 2 -> final 3, 1, 2
    obs = np.array([[0.571, 0.700], [0.579, 0.705], [0.50, 0.90]])
    d = one_draw(obs)
    assert ranks_of(d, "average_rank_bins", "position") == [2.5, 2.5, 1.0]
    assert ranks_of(d, "average_rank", "position") == [3.0, 1.0, 2.0]
    assert ranks_of(d, "average_rank_bins", "observed_rank") == [2.5, 2.5, 1.0]
    # [LGC] reports the average per-task rank itself for methods 3-5 (METHODS 4)
    assert ranks_of(d, "average_rank_bins") == [2.5, 2.5, 2.0]
    assert ranks_of(d, "average_rank") == [2.5, 1.5, 2.0]
    assert ranks_of(d, "average_rank", "observed_value") == [2.5, 1.5, 2.0]
    assert set(ranks_of(d, "average_rank", "statistic")) == {"average task rank"}
    assert ranks_of(d, "mean", "mean_rank") == ranks_of(d, "mean", "position")


def test_mean_and_geometric_mean_by_hand() -> None:
    # m0 (0.1, 0.9): mean 0.5, geometric 0.3; m1 (0.45, 0.45): mean 0.45, geometric 0.45
    d = one_draw(np.array([[0.1, 0.9], [0.45, 0.45]]))
    assert ranks_of(d, "mean") == [1.0, 2.0]
    assert ranks_of(d, "geometric_mean") == [2.0, 1.0]


def test_exact_ties_get_the_average_rank() -> None:
    d = one_draw(np.array([[0.5, 0.5], [0.5, 0.5], [0.2, 0.9]]))
    assert ranks_of(d, "mean") == [2.5, 2.5, 1.0]
    # per task (1.5, 1.5, 3) and (2.5, 2.5, 1): every model averages 2
    assert ranks_of(d, "average_rank") == [2.0, 2.0, 2.0]
    d2 = one_draw(np.array([[0.5, 0.5], [0.5, 0.5], [0.2, 0.4]]))
    assert ranks_of(d2, "average_rank") == [1.5, 1.5, 3.0]


def test_lower_is_better_ranks_on_the_negation() -> None:
    d = one_draw(np.array([[2.0, 0.3], [1.0, 0.2]]), higher_is_better=np.array([False, False]))
    for method in ("mean", "average_rank", "geometric_mean"):
        assert ranks_of(d, method) == [2.0, 1.0], method


def test_noise_method_is_seeded_and_breaks_exact_ties_at_random() -> None:
    d = one_draw(np.full((2, 6), 0.5), reps=4000)
    a = rank_aggregations(d, seed=1)
    b = rank_aggregations(d, seed=1)
    pd_equal = a.equals(b)
    assert pd_equal
    noisy = a[a.method == "average_rank_noise"]
    assert noisy.position.tolist() == pytest.approx([1.5, 1.5], abs=0.03)
    assert noisy.position_low.tolist() == [1.0, 1.0]
    assert noisy.position_high.tolist() == [2.0, 2.0]
    # the average per-task rank is continuous: between 1 and 2, centred at 1.5
    assert noisy.mean_rank.tolist() == pytest.approx([1.5, 1.5], abs=0.01)
    assert (noisy.low > 1.0).all() and (noisy.high < 2.0).all()
    # 1 point of noise does not reorder models 5 points apart
    far = one_draw(np.array([[0.60] * 6, [0.55] * 6]), reps=500)
    out = rank_aggregations(far)
    assert out[out.method == "average_rank_noise"].position.tolist() == [1.0, 2.0]


def test_rank_intervals_and_mean_rank_over_replicates() -> None:
    # replicate 1: m0 first; replicates 2-4: m1 first
    values = np.array([[[0.9], [0.1]], [[0.1], [0.9]], [[0.2], [0.8]], [[0.3], [0.7]]])
    d = Draws(values, values.mean(0), ("a", "b"), ("t",), ("c",), np.array([True]), "x", True)
    out = rank_aggregations(d, level=0.5)
    mean = out[out.method == "mean"]
    assert mean.mean_rank.tolist() == [1.75, 1.25]
    # inverted CDF: m0 has ranks (1, 2, 2, 2): F(1) = 0.25 -> low 1, high 2
    assert mean.low.tolist() == [1.0, 1.0] and mean.high.tolist() == [2.0, 1.0]
    assert sorted(out.method.unique()) == sorted(RANK_METHODS)


def test_rank_probabilities_by_hand_with_ties() -> None:
    values = np.array(
        [[[0.9], [0.5], [0.5]], [[0.1], [0.9], [0.5]], [[0.5], [0.5], [0.5]], [[0.6], [0.7], [0.2]]]
    )
    d = Draws(values, values[0], ("a", "b", "c"), ("t",), ("c",), np.array([True]), "x", True)
    P = rank_probabilities(d)
    # a: rank 1, rank 3, tie of 3 (1/3 each), rank 2
    np.testing.assert_allclose(P[0], np.array([1 + 1 / 3, 1 + 1 / 3, 1 + 1 / 3]) / 4)
    # b: tie for 2-3 (1/2, 1/2), rank 1, tie of 3, rank 1
    np.testing.assert_allclose(P[1], np.array([2 + 1 / 3, 0.5 + 1 / 3, 0.5 + 1 / 3]) / 4)
    np.testing.assert_allclose(P.sum(axis=0), 1.0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_rank_probabilities_lower_is_better() -> None:
    d = one_draw(np.array([[2.0], [1.0]]), higher_is_better=np.array([False]))
    np.testing.assert_allclose(rank_probabilities(d), [[0, 1], [1, 0]])


def test_comparison_and_sort_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(9)
    x = np.floor(rng.random((12, 40, 3)) * 8) / 8
    x[rng.random(x.shape) < 0.1] = np.nan
    by_comparison = [tie_ranks(x, axis=1, ties=t) for t in ("average", "min", "max")]
    avg_c, bins_c = average_and_bin_ranks(x, 1)
    monkeypatch.setattr(ranks, "COMPARE_MAX_MODELS", 0)
    by_sort = [tie_ranks(x, axis=1, ties=t) for t in ("average", "min", "max")]
    avg_s, bins_s = average_and_bin_ranks(x, 1)
    for a, b in zip([*by_comparison, avg_c, bins_c], [*by_sort, avg_s, bins_s], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("ties", ["average", "min", "max"])
@pytest.mark.parametrize("whole", [False, True])
def test_task_mean_ranks_from_counts_equal_the_mean_of_ranks(ties: str, whole: bool) -> None:
    """The count-sum shortcut (no missing scores) gives exactly the mean of per-task ranks."""
    rng = np.random.default_rng(8)
    cols = rng.integers(0, 6, size=(9, 40, 7)).astype(float)  # many ties
    if not whole:
        cols = cols / 7.0 + rng.integers(0, 2, cols.shape) * 0.25
    fast = ranks._task_mean_ranks(cols, ties, whole=whole)
    slow = ranks._per_task_average(tie_ranks(cols, axis=0, ties=ties))
    np.testing.assert_array_equal(fast, slow)
    cols[0, 0, 0] = np.nan  # missing: the general path, nan-means over the tasks a model has
    with_missing = ranks._task_mean_ranks(cols, ties, whole=whole)
    np.testing.assert_array_equal(
        with_missing, ranks._per_task_average(tie_ranks(cols, axis=0, ties=ties))
    )
    assert np.all(np.isfinite(with_missing))


def test_geometric_mean_floors_scores_and_keeps_every_replicate() -> None:
    """A score of 0 or below counts as GEOMETRIC_FLOOR: finite, and a replicate below a task's
    normalized minimum is not dropped (METHODS 4, #29)."""
    x = np.array([[[0.5, -0.2], [0.0, 0.8]]])  # (R=1, M=2, T=2)
    got = ranks._geometric_score(x, np.ones(2))
    floor = np.log(ranks.GEOMETRIC_FLOOR)
    np.testing.assert_allclose(got, [[(np.log(0.5) + floor) / 2, (floor + np.log(0.8)) / 2]])


def test_vtab_normalized_rank_intervals_contain_the_observed_rank(capsys) -> None:
    """`benchuq ranks sample:vtab1k --normalize --json`: every model's position interval holds
    its observed rank, for every method (the geometric mean dropped replicates before #29)."""
    import json

    from benchuq.cli.main import main

    assert main(["ranks", "sample:vtab1k", "--normalize", "--json"]) == 0  # the command
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["method"] for r in rows} >= {"geometric_mean", "mean"}
    for r in rows:
        assert r["position_low"] <= r["observed_rank"] <= r["position_high"], r
