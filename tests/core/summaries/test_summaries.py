"""Summaries of draws (METHODS 2-4): group scores, intervals, differences, normalization."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from benchuq.core.data import DataError
from benchuq.core.draws import Draws
from benchuq.core.summaries import (
    Scores,
    group_scores,
    leaderboard,
    normalize,
    pairwise_differences,
    percentile_interval,
    win_probabilities,
)
from benchuq.core.validation import InvalidArgument
from benchuq.core.zero_spread import zero_spread_notes


def make_draws(
    values: np.ndarray,
    observed: np.ndarray | None = None,
    categories: tuple[str, ...] | None = None,
    higher_is_better: np.ndarray | None = None,
) -> Draws:
    _, M, T = values.shape
    return Draws(
        values=np.array(values, dtype=float),
        observed=np.array(values.mean(0) if observed is None else observed, dtype=float),
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=categories or tuple("c" for _ in range(T)),
        higher_is_better=np.ones(T, bool) if higher_is_better is None else higher_is_better,
        method="test",
        paired=True,
        seed=0,
    )


def random_draws(R: int = 2000, M: int = 4, T: int = 5, seed: int = 0) -> Draws:
    rng = np.random.default_rng(seed)
    center = rng.uniform(0.3, 0.9, (M, T))
    values = np.clip(center + 0.03 * rng.standard_normal((R, M, T)), 0, 1)
    return make_draws(values, center, categories=("a", "a", "a", "b", "b")[:T])


# ---- group scores -----------------------------------------------------------------------------


def test_overall_is_the_mean_over_all_tasks_not_of_category_means() -> None:
    obs = np.array([[0.2, 0.4, 0.6, 1.0]])
    d = make_draws(obs[None], obs, categories=("a", "a", "a", "b"))
    assert group_scores(d, group="overall").observed[0] == pytest.approx(0.55)
    assert group_scores(d, group="a").observed[0] == pytest.approx(0.4)
    assert group_scores(d, group="b").observed[0] == pytest.approx(1.0)
    # S(w) = sum_c w_c m_ic
    assert group_scores(d, group=[0.25, 0.75]).observed[0] == pytest.approx(0.25 * 0.4 + 0.75 * 1.0)
    assert group_scores(d, group=[1.0, 0.0]).observed[0] == pytest.approx(0.4)


def test_missing_results_are_left_out_of_means() -> None:
    obs = np.array([[0.2, np.nan, 0.6], [0.5, 0.5, 0.5]])
    d = make_draws(np.repeat(obs[None], 3, axis=0), obs, categories=("a", "a", "b"))
    np.testing.assert_allclose(group_scores(d, group="overall").observed, [0.4, 0.5])
    np.testing.assert_allclose(group_scores(d, group="a").values[:, 0], 0.2)
    # a category with weight 0 does not need results
    obs2 = np.array([[0.2, 0.3, np.nan]])
    d2 = make_draws(obs2[None], obs2, categories=("a", "a", "b"))
    assert group_scores(d2, group=[1.0, 0.0]).observed[0] == pytest.approx(0.25)
    assert np.isnan(group_scores(d2, group=[0.5, 0.5]).observed[0])


@pytest.mark.parametrize(
    ("group", "match"),
    [
        ("nope", "unknown group"),
        ([0.5], "one per category"),
        ([-0.5, 1.5], ">= 0"),
        ([0.3, 0.3], "sum to 1"),
    ],
)
def test_bad_groups_raise_invalid_argument(group, match: str) -> None:
    with pytest.raises(InvalidArgument, match=match):
        group_scores(random_draws(R=10), group=group)


def test_lower_is_better_groups_are_flagged_and_mixed_groups_negated() -> None:
    obs = np.array([[0.2, 3.0], [0.4, 1.0]])
    hib = np.array([True, False])
    d = make_draws(obs[None], obs, categories=("acc", "loss"), higher_is_better=hib)
    assert group_scores(d, group="acc").higher_is_better
    assert not group_scores(d, group="loss").higher_is_better
    mixed = group_scores(d, group="overall")
    assert mixed.higher_is_better and "negated" in mixed.label
    np.testing.assert_allclose(mixed.observed, [(0.2 - 3.0) / 2, (0.4 - 1.0) / 2])


# ---- percentile intervals ---------------------------------------------------------------------


def test_percentile_interval_uses_observed_estimate_and_numpy_quantiles() -> None:
    d = random_draws()
    sc = group_scores(d, group="overall")
    iv = percentile_interval(sc, level=0.9)
    np.testing.assert_array_equal(iv.estimate, sc.observed)
    lo, hi = np.quantile(sc.values, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(iv.low, lo)
    np.testing.assert_allclose(iv.high, hi)
    assert iv.level == 0.9 and iv.method == "percentile"


def test_monte_carlo_error_matches_the_spread_of_quantiles() -> None:
    """Maritz–Jarrett SE of the 2.5% / 97.5% quantile vs its SD over independent samples."""
    rng = np.random.default_rng(5)
    R, K = 1000, 600
    values = rng.standard_normal((R, K))
    iv = percentile_interval(Scores(np.zeros(K), values, "x"), level=0.95)
    for ends, errors in ((iv.low, iv.mc_error_low), (iv.high, iv.mc_error_high)):
        assert abs(errors.mean() / ends.std() - 1) < 0.15


def test_interval_with_gaps_and_all_missing() -> None:
    vals = np.array([[0.1, np.nan], [0.2, np.nan], [np.nan, np.nan], [0.4, np.nan]])
    iv = percentile_interval(Scores(np.array([0.2, np.nan]), vals, "x"), level=0.5)
    np.testing.assert_allclose(iv.low[0], np.quantile([0.1, 0.2, 0.4], 0.25))
    assert np.isnan(iv.low[1]) and np.isnan(iv.high[1])


def test_level_outside_zero_one_raises() -> None:
    with pytest.raises(InvalidArgument, match="level"):
        percentile_interval(group_scores(random_draws(R=5)), level=1.2)


def test_leaderboard_rows_and_columns() -> None:
    d = random_draws()
    lb = leaderboard(d)
    assert list(lb.columns) == [
        "model",
        "group",
        "estimate",
        "low",
        "high",
        "mc_error_low",
        "mc_error_high",
        "tied_with_leader",
        "se",
        "items",
        "few_items",
    ]
    assert list(lb["group"].unique()) == ["overall", "a", "b"]
    assert len(lb) == 3 * 4
    assert (lb["low"] <= lb["estimate"] + 0.02).all() and (lb["high"] >= lb["low"]).all()
    over = lb[lb.group == "overall"].set_index("model").loc[list(d.models)]
    assert (np.diff(lb[lb.group == "overall"]["estimate"]) <= 0).all()  # best first
    np.testing.assert_allclose(over["estimate"], d.observed.mean(axis=1))
    sc = group_scores(d, group="overall")
    np.testing.assert_allclose(over["low"], np.quantile(sc.values, 0.083, axis=0))
    np.testing.assert_allclose(over["se"], sc.values.std(axis=0, ddof=1), rtol=1e-12)


# ---- pairwise differences ---------------------------------------------------------------------


def test_per_pair_studentized_p_value_by_hand() -> None:
    # d = m0 - m1 over 9 replicates; p = (1 + #{|d_r - d| >= |d|}) / (R + 1) (max-T with K = 1)
    v0 = np.array([0.52, 0.61, 0.73, 0.84, 0.95, 1.0, 1.13, 0.31, 0.22])
    values = np.stack([v0, np.full(9, 0.4)], axis=1)[:, :, None]
    d = make_draws(values, np.array([[0.7], [0.4]]))
    out = pairwise_differences(d, ["m0", "m1"], correction="none")
    diff = v0 - 0.4
    assert out.loc[0, "p_value"] == pytest.approx((1 + np.sum(np.abs(diff - 0.3) >= 0.3)) / 10)
    assert out.loc[0, "se"] == pytest.approx(np.std(diff, ddof=1))
    assert out.loc[0, "prob_a_better"] == pytest.approx(7 / 9)
    assert out.loc[0, "estimate"] == pytest.approx(0.3)


def test_bonferroni_holm_and_maxt() -> None:
    d = random_draws(R=4000, M=4)
    models = ["m3", "m0", "m2", "m1"]
    none = pairwise_differences(d, models, level=0.9, correction="none")
    bonf = pairwise_differences(d, models, level=0.9, correction="bonferroni")
    holm = pairwise_differences(d, models, level=0.9, correction="holm")
    maxt = pairwise_differences(d, models, level=0.9, correction="maxt")
    K = 6
    assert list(bonf[["a", "b"]].itertuples(index=False, name=None))[:3] == [
        ("m3", "m0"),
        ("m3", "m2"),
        ("m3", "m1"),
    ]
    np.testing.assert_allclose(bonf["level"], 1 - 0.1 / K)
    z = stats.norm.isf(0.1 / (2 * K))
    np.testing.assert_allclose(bonf["low"], bonf["estimate"] - z * bonf["se"])
    raw = 2 * stats.norm.sf(np.abs(bonf["estimate"] / bonf["se"]))
    np.testing.assert_allclose(bonf["p_value"], np.minimum(1, K * raw))
    np.testing.assert_allclose(holm["p_value"], multipletests(raw, method="holm")[1])
    # Holm has no simultaneous intervals: it shows Bonferroni's
    np.testing.assert_allclose(holm[["low", "high"]], bonf[["low", "high"]])
    sc = group_scores(d)
    for _, row in bonf.iterrows():
        i, j = int(row.a[1]), int(row.b[1])
        diff = sc.values[:, i] - sc.values[:, j]
        assert row.se == pytest.approx(np.std(diff, ddof=1))
        assert row.estimate == pytest.approx(sc.observed[i] - sc.observed[j])
    # max-T: narrower than Bonferroni, wider than unadjusted; p-values agree with intervals
    assert ((maxt.high - maxt.low) <= (bonf.high - bonf.low) + 1e-12).all()
    assert ((maxt.high - maxt.low) >= (none.high - none.low) - 1e-12).all()
    assert (maxt.p_stepdown <= maxt.p_value + 1e-12).all()
    for out in (maxt, bonf, none):
        rejects = out["p_value"] <= 0.1
        excludes = (out["low"] > 0) | (out["high"] < 0)
        assert (rejects == excludes).all()


def test_pairwise_errors_and_single_model() -> None:
    d = random_draws(R=10)
    with pytest.raises(InvalidArgument, match="unknown model"):
        pairwise_differences(d, ["m0", "zz"])
    with pytest.raises(InvalidArgument, match="correction"):
        pairwise_differences(d, ["m0", "m1"], correction="sidak")
    empty = pairwise_differences(d, ["m0"])
    assert isinstance(empty, pd.DataFrame) and empty.empty


def test_prob_a_better_respects_lower_is_better() -> None:
    values = np.array([[[1.0], [2.0]], [[1.5], [2.0]], [[3.0], [2.0]]])
    d = make_draws(values, np.array([[1.0], [2.0]]), higher_is_better=np.array([False]))
    out = pairwise_differences(d, ["m0", "m1"], correction="none")
    assert out.loc[0, "prob_a_better"] == pytest.approx(2 / 3)


# ---- win probabilities ------------------------------------------------------------------------


def test_win_probabilities_by_hand() -> None:
    values = np.array([[[0.5], [0.4], [0.5]], [[0.3], [0.4], [0.6]]])
    P = win_probabilities(make_draws(values))
    assert P[0, 1] == pytest.approx(0.5)  # wins once, loses once
    assert P[0, 2] == pytest.approx(0.25)  # tie (half) then loss
    assert np.isnan(np.diag(P)).all()
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose((P + P.T)[off], 1.0)


# ---- normalization ----------------------------------------------------------------------------


def test_minmax_normalization_uses_observed_scores_and_paper_uses_replicates() -> None:
    d = random_draws(R=500)
    n = normalize(d)
    v, o = d.values, d.observed
    low, high = o.min(axis=0), o.max(axis=0)
    np.testing.assert_allclose(n.values, (v - low) / (high - low))
    np.testing.assert_allclose(n.observed, (o - low) / (high - low))
    assert n.observed.min() == 0 and n.observed.max() == 1
    assert "observed" in n.notes[-1]
    assert n.models == d.models and n.method == d.method
    paper = normalize(d, mode="paper")
    low = np.minimum(v.min(axis=(0, 1)), o.min(axis=0))
    high = np.maximum(v.max(axis=(0, 1)), o.max(axis=0))
    np.testing.assert_allclose(paper.values, (v - low) / (high - low))
    assert paper.values.min() == 0 and paper.values.max() <= 1
    assert "depends on R" in paper.notes[-1]


def test_chance_normalization_and_errors() -> None:
    d = random_draws(R=50, T=2)
    n = normalize(d, mode="chance", chance=[0.5, 0.25])
    np.testing.assert_allclose(n.observed, (d.observed - [0.5, 0.25]) / [0.5, 0.75])
    n2 = normalize(d, mode="chance", chance={"t0": 0.5, "t1": 0.25})
    np.testing.assert_allclose(n2.values, n.values)
    with pytest.raises(DataError, match="chance"):
        normalize(d, mode="chance")
    with pytest.raises(DataError, match="t1"):
        normalize(d, mode="chance", chance={"t0": 0.5})
    with pytest.raises(InvalidArgument, match="normalization"):
        normalize(d, mode="zscore")


def test_flat_task_normalizes_to_zero() -> None:
    values = np.ones((4, 2, 2))
    values[:, 0, 1] = [0.2, 0.3, 0.4, 0.5]
    n = normalize(make_draws(values, values[0]))
    assert (n.values[:, :, 0] == 0).all()
    assert "t0" in n.notes[-1]
    assert "width 0" in n.notes[-1] and "not that the scores are certain" in n.notes[-1]
    assert not zero_spread_notes(n.notes)  # t1 still separates the models: overall has width


def test_every_task_flat_names_the_zero_spread() -> None:
    """All models equal on every task: every normalized score is 0 with an interval of width 0;
    the notes say it measures nothing (``benchuq leaderboard all_equal.csv --normalize`` showed
    [0, 0] beside "no interval has zero width", the audit of 2026-12-08)."""
    rng = np.random.default_rng(0)
    values = np.repeat(rng.uniform(0.8, 1.0, size=(50, 1, 2)), 3, axis=1)  # 3 models, equal
    n = normalize(make_draws(values, np.full((3, 2), 0.9)))
    assert (n.values == 0).all()
    (zero,) = zero_spread_notes(n.notes)
    assert "every task has the same score for all models" in zero


def test_normalization_can_reorder_models() -> None:
    """[LGC]: normalized accuracies can swap models (a hard task weighs more once normalized)."""
    obs = np.array([[0.90, 0.30], [0.60, 0.33], [0.10, 0.29]])
    d = make_draws(np.repeat(obs[None], 2, axis=0), obs)
    raw = group_scores(d).observed
    norm = group_scores(normalize(d)).observed
    assert raw[0] > raw[1] and norm[1] > norm[0]


def _counts_draws(k: np.ndarray, n: np.ndarray, reps: int, seed: int) -> Draws:
    from benchuq.core.data import Benchmark
    from benchuq.core.methods.bootstrap import binomial_bootstrap

    M, T = k.shape
    nn = np.broadcast_to(n, (M, T))
    bench = Benchmark(
        name="sim",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(T)),
        categories=("c",) * T,
        kind="counts",
        estimate=k / nn,
        n=nn,
        correct=k,
    )
    return binomial_bootstrap(bench, reps=reps, seed=seed)


def test_bonferroni_family_wise_coverage_and_holm_error_rate() -> None:
    """Simulated benchmarks with known truth: Bonferroni intervals cover all K differences at
    least ~90% of the time; under the global null Holm rejects something at most ~10%."""
    rng = np.random.default_rng(303)
    n = np.array([150, 200, 120, 180])
    p = np.array([[0.6, 0.7, 0.5, 0.8], [0.62, 0.66, 0.55, 0.75], [0.5, 0.8, 0.5, 0.7]])
    truth = p.mean(axis=1)
    models = ["m0", "m1", "m2"]
    covered, false_alarm = [], []
    for s in range(400):
        k = rng.binomial(n, p)
        d = _counts_draws(k, n, 500, s)
        out = pairwise_differences(d, models, level=0.9, correction="bonferroni")
        ia = out.a.str[1:].astype(int).to_numpy()
        ib = out.b.str[1:].astype(int).to_numpy()
        true_diff = truth[ia] - truth[ib]
        covered.append(bool(np.all((out.low <= true_diff) & (true_diff <= out.high))))
        k0 = rng.binomial(n, np.broadcast_to(p[0], p.shape))
        null = pairwise_differences(
            _counts_draws(k0, n, 500, s), models, level=0.9, correction="holm"
        )
        false_alarm.append(bool((null.p_value <= 0.1).any()))
    assert 0.88 <= np.mean(covered) <= 0.99, np.mean(covered)
    assert np.mean(false_alarm) <= 0.13, np.mean(false_alarm)
