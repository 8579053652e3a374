"""core.analyses.diff (METHODS 13): known truth by simulation, independent references."""

from __future__ import annotations

import numpy as np
import pytest
from diff_data import bench_of, binary_pair
from scipy import stats

from benchuq.core.analyses.diff import VERDICTS, diff, exit_code, verdict_of
from benchuq.core.analyses.paired_tests import confidence_sequence, mcnemar, sign_flip
from benchuq.core.data import DataError
from benchuq.core.validation import InvalidArgument

PAIR = {"base_model": "base", "candidate_model": "candidate"}


def mc_bound(rate: float, runs: int) -> float:
    """``rate`` plus three Monte Carlo standard errors of a proportion over ``runs``."""
    return rate + 3 * np.sqrt(rate * (1 - rate) / runs)


# ---- references -----------------------------------------------------------------------------
def test_mcnemar_p_value_is_binomtest_on_discordant_pairs() -> None:
    rng = np.random.default_rng(1)
    for n in (8, 40, 300):
        b, c = binary_pair(n, rng, agree=0.7, drop=0.05)
        r = mcnemar(b, c)
        only_b = int(np.sum((b == 1) & (c == 0)))
        only_c = int(np.sum((c == 1) & (b == 0)))
        expected = stats.binomtest(only_c, only_b + only_c, 0.5).pvalue if only_b + only_c else 1
        assert r.p_value == pytest.approx(expected, rel=1e-12)
        assert r.estimate == pytest.approx(c.mean() - b.mean())


def test_intervals_agree_with_p_values() -> None:
    """Interval excludes 0 exactly when p <= 1 - level, for every method."""
    rng = np.random.default_rng(2)
    for k in range(60):
        n = int(rng.choice([6, 12, 25, 60, 200]))
        b, c = binary_pair(n, rng, agree=0.6, drop=float(rng.choice([0.0, 0.1, 0.2])))
        cont = c * 0.5 + rng.random(n) * 0.5
        for bench in (bench_of([(b, c)]), bench_of([(b, cont)])):
            row = diff(bench, **PAIR, reps=400, seed=k).overall
            assert (row.low > 0 or row.high < 0) == (row.p_value <= 0.05), row


def test_paired_bootstrap_matches_scipy_bootstrap() -> None:
    rng = np.random.default_rng(3)
    n = 400
    b = rng.random(n)
    c = np.clip(b + rng.normal(0.03, 0.2, n), 0, 1)
    row = diff(bench_of([(b, c)]), **PAIR, reps=4000, seed=0).overall
    assert row.method.startswith("paired bootstrap")
    ref = stats.bootstrap(
        (b, c),
        lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        random_state=np.random.default_rng(0),
    ).confidence_interval
    se = row.se_paired
    # Monte Carlo error of a 2.5% quantile of 4000 draws is about 0.05 se; allow 0.25 se
    assert abs(row.low - ref.low) < 0.25 * se
    assert abs(row.high - ref.high) < 0.25 * se


# ---- claims hold in simulation ------------------------------------------------------------------
def test_equal_runs_declare_worse_rarely_overall_and_per_task() -> None:
    rng = np.random.default_rng(4)
    runs = 150
    worse_overall = worse_any_task = 0
    for k in range(runs):
        tasks = [binary_pair(300, rng), binary_pair(60, rng)]
        b3 = rng.random(50)
        tasks.append((b3, np.clip(b3 + rng.normal(0, 0.2, 50), 0, 1)))
        r = diff(bench_of(tasks), **PAIR, reps=300, seed=k)
        worse_overall += r.overall.verdict == "worse"
        worse_any_task += any(t.verdict == "worse" for t in r.tasks)
    assert worse_overall / runs <= mc_bound(0.05, runs)
    assert worse_any_task / runs <= mc_bound(0.05, runs)


def test_three_point_drop_found_on_1000_items_with_90_percent_agreement() -> None:
    rng = np.random.default_rng(5)
    runs = 200
    found = unpaired = 0
    for _ in range(runs):
        b, c = binary_pair(1000, rng, agree=0.9, drop=0.03)
        found += diff(bench_of([(b, c)]), **PAIR).overall.verdict == "worse"
        se = np.hypot(b.std(ddof=1), c.std(ddof=1)) / np.sqrt(1000)
        unpaired += (c.mean() - b.mean()) / se < -1.96
    assert found / runs >= 0.8
    assert unpaired / runs < 0.5  # an unpaired test misses most of them


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 20, 29])
def test_small_runs_hold_their_level_and_say_too_few(n: int) -> None:
    rng = np.random.default_rng(6 + n)
    runs = 120
    worse = 0
    for k in range(runs):
        b, c = binary_pair(n, rng, agree=0.5)
        cont = rng.random(n)
        for bench in (bench_of([(b, c)]), bench_of([(cont, rng.permutation(cont))])):
            r = diff(bench, **PAIR, reps=200, seed=k).overall
            worse += r.verdict == "worse"
            if n <= 4:  # no data of this size could show a difference at 95%
                assert r.too_few and "Too few items to tell" in r.sentence
                assert r.verdict == "inconclusive"
    assert worse / (2 * runs) <= mc_bound(0.05, 2 * runs)


def test_sequential_looks_every_100_items_keep_the_level() -> None:
    rng = np.random.default_rng(7)
    runs = 300
    ever = 0
    for _ in range(runs):
        b, c = binary_pair(1000, rng, agree=0.8)
        _, high = confidence_sequence((c - b + 1) / 2, level=0.95)
        looks = np.arange(99, 1000, 100)
        ever += bool(np.any(high[looks] < 0.5))
    assert ever / runs <= mc_bound(0.05, runs)


def test_sequential_result_is_wider_than_fixed_n_and_still_finds_large_drops() -> None:
    rng = np.random.default_rng(8)
    b, c = binary_pair(2000, rng, agree=0.8, drop=0.08)
    fixed = diff(bench_of([(b, c)]), **PAIR).overall
    seq = diff(bench_of([(b, c)]), **PAIR, sequential=True).overall
    assert seq.high - seq.low > fixed.high - fixed.low
    assert seq.verdict == fixed.verdict == "worse"
    assert "confidence sequence" in seq.method


# ---- verdicts, margins, exit codes --------------------------------------------------------------
def test_verdict_order_and_margin() -> None:
    assert verdict_of(0.01, 0.03, 0.0) == "better"
    assert verdict_of(-0.03, -0.01, 0.05) == "worse"
    assert verdict_of(-0.01, 0.01, 0.02) == "equivalent"
    assert verdict_of(-0.01, 0.03, 0.02) == "non-inferior"
    assert verdict_of(-0.03, 0.01, 0.02) == "inconclusive"
    assert verdict_of(-0.01, 0.01, 0.0) == "inconclusive"
    assert set(VERDICTS) == {"better", "worse", "equivalent", "non-inferior", "inconclusive"}


def test_exit_codes_follow_the_gate() -> None:
    rng = np.random.default_rng(9)
    worse = diff(bench_of([binary_pair(2000, rng, drop=0.06)]), **PAIR)
    same = diff(bench_of([binary_pair(2000, rng, agree=0.99)]), **PAIR, margin=0.02)
    assert worse.overall.verdict == "worse" and same.overall.verdict == "equivalent"
    assert [exit_code(worse, fail_on=f) for f in ("worse", "inferior", "difference", "never")] == [
        1,
        1,
        1,
        0,
    ]
    assert [exit_code(same, fail_on=f) for f in ("worse", "inferior", "difference", "never")] == [
        0,
        0,
        0,
        0,
    ]
    with pytest.raises(InvalidArgument):
        exit_code(same, fail_on="sometimes")  # type: ignore[arg-type]


def test_per_task_gate_sees_a_task_that_regressed() -> None:
    rng = np.random.default_rng(10)
    good = binary_pair(3000, rng, drop=-0.03)
    bad = binary_pair(3000, rng, drop=0.06)
    r = diff(bench_of([good, good, bad]), **PAIR, weights={"t0": 1, "t1": 1, "t2": 0.1})
    assert r.tasks[2].verdict == "worse" and r.overall.verdict != "worse"
    assert exit_code(r, fail_on="worse") == 0 and exit_code(r, fail_on="worse", per_task=True) == 1


def test_the_note_states_the_level_as_given() -> None:
    """83.4% (the app's default level) was said as "83%"."""
    rng = np.random.default_rng(11)
    pair = binary_pair(400, rng, drop=0.0)
    r = diff(bench_of([pair, pair]), **PAIR, level=0.834)
    assert "tasks at 83.4% (they hold" in r.note()


# ---- alignment and errors ----------------------------------------------------------------------
def test_items_in_one_run_only_are_counted_not_guessed() -> None:
    rng = np.random.default_rng(11)
    b, c = binary_pair(100, rng)
    c = c.copy()
    c[:7] = np.nan  # the candidate did not score 7 items
    base = bench_of([(b, b)], models=("old", "x"))
    cand = bench_of(
        [(c[10:], c[10:])], models=("new", "y"), ids=[[f"q{i}" for i in range(10, 100)]]
    )
    cand_one = cand.subset(models=["new"])
    r = diff(base.subset(models=["old"]), cand_one)
    t = r.tasks[0]
    assert (t.n_paired, t.n_base_only, t.n_candidate_only) == (90, 10, 0)
    assert t.base_score == pytest.approx(b[10:].mean())
    assert "90 items both runs scored" in r.note()


def test_tasks_in_one_run_only_are_named_and_left_out() -> None:
    rng = np.random.default_rng(12)
    two = bench_of([binary_pair(50, rng), binary_pair(50, rng)])
    one = two.subset(tasks=["t0"])
    r = diff(two.subset(models=["base"]), one.subset(models=["candidate"]))
    assert [t.task for t in r.tasks] == ["t0"] and r.tasks_base_only == ("t1",)


def test_errors_side_by_side() -> None:
    rng = np.random.default_rng(13)
    b, c = binary_pair(1000, rng, agree=0.9)
    row = diff(bench_of([(b, c)]), **PAIR).overall
    assert row.se_paired == pytest.approx(np.std(c - b, ddof=1) / np.sqrt(1000))
    assert row.se_unpaired == pytest.approx(np.hypot(b.std(ddof=1), c.std(ddof=1)) / np.sqrt(1000))
    assert row.se_paired < row.se_unpaired and row.design_effect < 1


def test_bad_input_is_named() -> None:
    rng = np.random.default_rng(14)
    bench = bench_of([binary_pair(20, rng)])
    with pytest.raises(InvalidArgument, match="name both runs"):
        diff(bench)
    with pytest.raises(InvalidArgument, match="margin"):
        diff(bench, **PAIR, margin=-1)
    with pytest.raises(InvalidArgument):
        diff(bench, base_model="base", candidate_model="nobody")
    other = bench_of([binary_pair(20, rng)], ids=[[f"z{i}" for i in range(20)]])
    with pytest.raises(DataError, match="no item id"):
        diff(bench.subset(models=["base"]), other.subset(models=["candidate"]))


def test_sign_flip_is_exact_for_few_units() -> None:
    # 6 units all positive: the exact p-value is 2 / 2**6
    t = sign_flip(np.full(6, 0.5), np.full(6, 1 / 6), level=0.95, bound=1.0)
    assert t.p_value == pytest.approx(2 / 64) and t.low > 0 and not t.too_few


def test_sequential_overall_over_tasks_agrees_with_its_p_value() -> None:
    rng = np.random.default_rng(15)
    for drop in (0.0, 0.06):
        tasks = [binary_pair(1500, rng, agree=0.8, drop=drop) for _ in range(2)]
        r = diff(bench_of(tasks), **PAIR, sequential=True)
        for row in r.rows:
            assert (row.low > 0 or row.high < 0) == (row.p_value <= 0.05), row
        assert r.overall.low == pytest.approx(np.mean([t.low for t in r.tasks]), abs=0.02)
    assert r.overall.verdict == "worse" and "sum over tasks" in r.overall.method


def test_a_cluster_column_makes_clusters_the_units() -> None:
    from benchuq.core.data import Benchmark, ItemTask

    rng = np.random.default_rng(16)
    clusters, size = 60, 10
    shift = np.repeat(rng.normal(0, 0.3, clusters), size)  # the runs differ by cluster
    b = np.clip(0.5 + rng.normal(0, 0.1, clusters * size), 0, 1)
    c = np.clip(b + shift, 0, 1)
    ids = [f"q{i}" for i in range(clusters * size)]
    labels = [f"passage{i // size}" for i in range(clusters * size)]
    task = ItemTask(ids, np.stack([b, c]), cluster=labels)
    bench = Benchmark("c", ("base", "candidate"), ("t",), ("all",), "items",
                      np.array([[b.mean()], [c.mean()]]), item_tasks=(task,))  # fmt: skip
    row = diff(bench, **PAIR, reps=1000).overall
    items_se = np.std(c - b, ddof=1) / np.sqrt(clusters * size)
    assert row.se_paired > 2 * items_se  # clusters, not items, are independent
    assert row.method.startswith("paired bootstrap")
    assert row.high - row.low > 2 * 1.96 * 1.5 * items_se


def test_identical_runs_are_equivalent_only_with_enough_items() -> None:
    rng = np.random.default_rng(17)
    for n, expected in ((100, "inconclusive"), (1000, "equivalent")):
        b = rng.random(n)
        row = diff(bench_of([(b, b.copy())]), **PAIR, margin=0.01).overall
        assert row.verdict == expected and row.p_value == 1
        assert row.high == pytest.approx(1 - 0.025 ** (1 / n), rel=1e-2)  # scores span ~[0, 1]


def test_a_graded_run_ahead_by_the_same_amount_on_every_item_keeps_width() -> None:
    """Half a point ahead on 97% of items, half a point behind on 3% (truth +0.47): 30% of 40-item
    runs see every item ahead, where the bootstrap had the interval [+0.5, +0.5] and missed the
    truth (coverage about 0.70); the Clopper-Pearson bound on the unseen share keeps >= 0.95."""
    rng, runs, n, held = np.random.default_rng(5), 200, 40, 0
    for _ in range(runs):
        behind = rng.random(n) < 0.03
        b, c = np.where(behind, 1.0, 0.5), np.where(behind, 0.5, 1.0)
        row = diff(bench_of([(b, c)]), **PAIR, reps=200, seed=1).overall
        held += row.low <= 0.47 <= row.high
    assert held / runs >= 0.95
    b = np.full(n, 0.5)
    row = diff(bench_of([(b, b + 0.5)]), **PAIR).overall
    psi = 1 - 0.025 ** (1 / n)  # an unseen share psi of items may differ anywhere in [-1, 1]
    assert (row.low, row.high) == pytest.approx((0.5 - psi * 1.5, 0.5 + psi * 0.5))
    assert row.verdict == "better" and "same amount" in row.method


def test_a_constant_small_shift_over_spread_scores_is_not_a_sure_gain() -> None:
    """+0.05 on each of 40 items whose scores span [0, 0.95]: an unseen 9% of items could be a
    whole point worse (scores in [0, 1]), so interval, p-value and verdict say inconclusive (the
    bootstrap said [+5, +5])."""
    b = np.linspace(0.0, 0.9, 40)
    result = diff(bench_of([(b, b + 0.05), (b, b + 0.05)]), **PAIR)
    for row in (result.overall, *result.tasks):
        assert row.low < 0 < row.high and row.verdict == "inconclusive"
        assert row.p_value > 0.05
    per_task = 2 * (1 - 0.05 / (0.05 + 1.0)) ** 40  # psi_t below c / (B + c), B = 1 (Šidák)
    assert result.overall.p_value == pytest.approx(1 - (1 - per_task) ** 2, rel=1e-6)


def test_scores_in_0_1_bound_differences_by_the_whole_scale() -> None:
    """Graded runs seen only at 0.5 and 1 were bounded by the observed range, 0.5, though an
    unseen item can score 0: two identical runs of 40 items gave +-4.4 points, half of what the
    same runs of 0/1 scores give. Scores in [0, 1] are bounded by 1 (METHODS 13)."""
    n = 40
    graded = np.where(np.arange(n) % 2 == 0, 0.5, 1.0)
    binary = np.where(np.arange(n) % 2 == 0, 0.0, 1.0)
    psi = 1 - 0.025 ** (1 / n)
    for scores in (graded, binary):
        row = diff(bench_of([(scores, scores.copy())]), **PAIR).overall
        assert (row.low, row.high) == pytest.approx((-psi, psi))


def test_a_task_without_common_ids_is_named_not_dropped_silently() -> None:
    rng = np.random.default_rng(18)
    b, c = binary_pair(50, rng)
    base = bench_of([(b, b), (b, b)], ids=[[f"q{i}" for i in range(50)]] * 2)
    cand = bench_of([(c, c), (c, c)], ids=[[f"q{i}" for i in range(50)],
                                           [f"z{i}" for i in range(50)]])  # fmt: skip
    r = diff(base.subset(models=["base"]), cand.subset(models=["candidate"]))
    assert [t.task for t in r.tasks] == ["t0"] and r.tasks_unpaired == ("t1",)
    assert "without an item id in common" in r.note()
