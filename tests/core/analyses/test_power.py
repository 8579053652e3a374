"""core.analyses.power (METHODS 10): formulas, designs from data and assumptions, simulated
power."""

from __future__ import annotations

import numpy as np
import pytest
from power_settings import SETTINGS
from scipy import stats

from benchuq.core.analyses import power as pw
from benchuq.core.data import Benchmark, DataError, ItemTask
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.reading.loaders import load_sample
from benchuq.core.summaries import pairwise_differences
from benchuq.core.validation import InvalidArgument

Z95, Z80 = stats.norm.ppf(0.975), stats.norm.ppf(0.8)


def clustered_bench(groups: int = 300, m: int = 5, seed: int = 0) -> tuple[Benchmark, float]:
    """Three models on right/wrong items in clusters of ``m``; a model's accuracy on a cluster
    is Beta(mean, strength 4), independent across models. Returns the data and the true ICC of
    the A - B difference."""
    rng = np.random.default_rng(seed)
    means, strength = np.array([0.75, 0.70, 0.60]), 4.0
    p = rng.beta(means * strength, (1 - means) * strength, (groups, 3))
    y = (rng.random((groups, m, 3)) < p[:, None, :]).astype(float).reshape(groups * m, 3).T
    items = tuple(f"q{i}" for i in range(groups * m))
    cluster = tuple(f"c{i // m}" for i in range(groups * m))
    bench = Benchmark(
        name="clustered",
        models=("A", "B", "C"),
        tasks=("t",),
        categories=("all",),
        kind="items",
        estimate=y.mean(axis=1, keepdims=True),
        item_tasks=(ItemTask(items, y, cluster=cluster),),
    )
    v = means[:2] * (1 - means[:2]) / (strength + 1)
    icc = v.sum() / (means[:2] * (1 - means[:2])).sum()
    return bench, float(icc)


def half_width_ratio(bench: Benchmark, models: list[str], reps: int, correction: str) -> np.ndarray:
    """MDE / (half-width of the paired interval x (c + z_power) / c), per pair."""
    draws = bootstrap(bench, reps=reps, seed=11)
    diffs = pairwise_differences(draws, models, level=0.95, correction=correction)
    design = pw.design_from_benchmark(bench, models=models)
    plan = pw.plan(
        design, pairs=list(zip(diffs["a"], diffs["b"], strict=True)), correction=correction
    )
    half = (diffs["high"] - diffs["low"]).to_numpy() / 2
    c = plan.critical
    return plan.mde / (half * (c + plan.z_power) / c)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_simulated_power_matches_plan(name: str) -> None:
    """At the planned items, 2,000 simulated evaluations reject as often as planned (3 points)."""
    out = SETTINGS[name](2000, 3)
    assert abs(out.observed - out.planned) < 0.03, out


def test_mde_matches_paired_interval_on_alpaca_eval() -> None:
    bench = load_sample("alpaca_eval")
    models = ["claude-2", "claude-2.1", "gpt-3.5-turbo-1106", "Qwen-14B-Chat"]
    ratio = half_width_ratio(bench, models, 4000, "none")
    assert np.all(np.abs(ratio - 1) < 0.05), ratio


def test_mde_matches_interval_on_mmlu_counts() -> None:
    bench = load_sample("mmlu")
    models = list(bench.models[:4])
    ratio = half_width_ratio(bench, models, 4000, "none")
    assert np.all(np.abs(ratio - 1) < 0.05), ratio
    ratio = half_width_ratio(bench, models[:2], 4000, "bonferroni")
    assert np.all(np.abs(ratio - 1) < 0.05), ratio


def test_clustered_design_matches_cluster_bootstrap_and_truth() -> None:
    bench, icc = clustered_bench(groups=400)
    ratio = half_width_ratio(bench, ["A", "B", "C"], 4000, "none")
    assert np.all(np.abs(ratio - 1) < 0.05), ratio
    design = pw.design_from_benchmark(bench)
    plan = pw.plan(design, pairs=[("A", "B")])
    assert design.cluster_size == 5 and "clustered" in design.source
    assert plan.icc[0] == pytest.approx(icc, abs=0.06)
    assert plan.deff[0] == pytest.approx(1 + 4 * plan.icc[0])
    big, _ = clustered_bench(groups=400, m=1)
    assert pw.plan(pw.design_from_benchmark(big), pairs=[("A", "B")]).deff[0] == pytest.approx(1)


def test_item_design_is_the_paired_variance() -> None:
    bench, _ = clustered_bench(groups=50, m=1)
    y = bench.item_tasks[0].scores
    design = pw.design_from_benchmark(bench)
    assert design.n == 50 and design.rho is None and design.cluster_size == 1
    plan = pw.plan(design, pairs=[("A", "B"), ("A", "C")], correction="none", delta=0.02)
    d = y[0] - y[1]
    assert plan.var_item[0] == pytest.approx(d.var())
    assert plan.se[0] == pytest.approx(d.std() / np.sqrt(50))
    assert plan.rho[0] == pytest.approx(np.corrcoef(y[0], y[1])[0, 1])
    # METHODS 10: n = (z_{1-a/2} + z_{1-b})^2 (s_A^2 + s_B^2 - 2 cov_AB) / delta^2
    assert plan.n_required[0] == np.ceil((Z95 + Z80) ** 2 * d.var() / 0.02**2)
    assert plan.mde[0] == pytest.approx((Z95 + Z80) * d.std() / np.sqrt(50))
    assert plan.power_at(plan.n_required[:1])[0, 0] == pytest.approx(0.8, abs=2e-3)


def test_missing_item_scores_use_each_models_items() -> None:
    bench = load_sample("alpaca_eval")
    design = pw.design_from_benchmark(bench)
    assert design.n == 805 and np.all(np.isfinite(design.cov))
    np.testing.assert_allclose(design.estimate, np.nanmean(bench.item_tasks[0].scores, axis=1))


def test_counts_assume_rho_and_weight_tasks() -> None:
    bench = load_sample("toy")
    p, n = bench.estimate, bench.n
    v = p * (1 - p) / n
    for rho in (0.0, 0.5):
        design = pw.design_from_benchmark(bench, rho=rho)
        assert design.rho == rho and "assumed rho" in design.source
        cov = rho * np.sqrt(v[0] * v[1])
        want = (v[0] + v[1] - 2 * cov).sum() / 9
        assert pw.plan(design).se[0] ** 2 == pytest.approx(want)
    vtab = load_sample("vtab1k")
    w = np.array([0.5, 0.3, 0.2])
    design = pw.design_from_benchmark(vtab, models=list(vtab.models[:2]), group=w)
    tw = w[vtab.category_index] / np.bincount(vtab.category_index)[vtab.category_index]
    pv = vtab.estimate[:2] * (1 - vtab.estimate[:2]) / vtab.n[:2]
    assert design.cov[0, 0] == pytest.approx((tw**2 * pv[0]).sum())
    assert design.estimate[1] == pytest.approx((tw * vtab.estimate[1]).sum())
    assert design.group.startswith("weighted natural 0.50")
    natural = pw.design_from_benchmark(vtab, group="natural")
    assert natural.n == vtab.n[:, vtab.category_index == 0].max(axis=0).sum()
    with pytest.raises(DataError, match="unknown group"):
        pw.design_from_benchmark(vtab, group="nope")


def test_estimate_and_se_sizes_are_relative() -> None:
    bench = Benchmark(
        name="es",
        models=("A", "B"),
        tasks=("t",),
        categories=("all",),
        kind="estimate_se",
        estimate=np.array([[0.71], [0.69]]),
        se=np.array([[0.01], [0.012]]),
    )
    design = pw.design_from_benchmark(bench, rho=0.3)
    plan = pw.plan(design, delta=0.01)
    var = 0.01**2 + 0.012**2 - 2 * 0.3 * 0.01 * 0.012
    assert design.n is None and np.isnan(plan.n_required[0])
    assert plan.factor_required[0] == pytest.approx((Z95 + Z80) ** 2 * var / 0.01**2)
    assert plan.sentence(0).endswith("x today's items to detect 1 point at 80% power.")
    assert plan.se_at(np.array([4.0]))[0, 0] == pytest.approx(np.sqrt(var / 4))


def test_critical_values() -> None:
    assert pw.critical_value(0.95, family=3, correction="none") == pytest.approx(Z95)
    assert pw.critical_value(0.95, family=3, correction="bonferroni") == pytest.approx(
        stats.norm.ppf(1 - 0.05 / 6)
    )
    sidak = stats.norm.ppf((1 + 0.95 ** (1 / 3)) / 2)
    assert pw.critical_value(0.95, family=3, correction="maxt") == pytest.approx(sidak)
    assert pw.critical_value(0.95, family=3, correction="maxt", corr=np.eye(3)) == pytest.approx(
        sidak, rel=0.01
    )
    assert pw.critical_value(
        0.95, family=3, correction="maxt", corr=np.ones((3, 3))
    ) == pytest.approx(Z95, rel=0.01)
    # the pairs of three models with equal variances: correlations +-1/2, c below Bonferroni
    design = pw.design_from_assumptions([0.7, 0.7, 0.7], 500)
    maxt = pw.plan(design).critical
    assert Z95 < maxt < pw.plan(design, correction="bonferroni").critical
    assert pw.plan(design, family=1).critical == pytest.approx(Z95)
    with pytest.raises(DataError, match="whole number"):
        pw.critical_value(0.95, family=0)
    with pytest.raises(InvalidArgument, match="unknown correction"):
        pw.critical_value(0.95, family=2, correction="holm")  # type: ignore[arg-type]


def test_assumptions_design_and_its_messages() -> None:
    design = pw.design_from_assumptions([0.7, 0.72], 1000, corr=0.5, cluster_size=5, icc=0.1)
    plan = pw.plan(design, delta=0.02)
    per_item = 0.7 * 0.3 + 0.72 * 0.28 - 2 * 0.5 * np.sqrt(0.7 * 0.3 * 0.72 * 0.28)
    assert plan.var_item[0] == pytest.approx(per_item)
    assert plan.deff[0] == pytest.approx(1.4) and plan.icc[0] == pytest.approx(0.1)
    assert plan.n_required[0] == np.ceil((Z95 + Z80) ** 2 * per_item * 1.4 / 0.02**2)
    tasks = pw.design_from_assumptions([0.7, 0.72], 250, tasks=4)
    assert tasks.n == 1000
    cont = pw.design_from_assumptions([3.1, 3.0], 200, sd=[1.0, 1.2], corr=0.3)
    assert pw.plan(cont).var_item[0] == pytest.approx(1 + 1.44 - 2 * 0.3 * 1.2)
    with pytest.raises(DataError, match=r"at most 0\.33"):
        pw.design_from_assumptions([0.5, 0.9], 100, corr=0.9)
    with pytest.raises(DataError, match=r"write 0\.7 for 70%"):
        pw.design_from_assumptions([70, 72], 100)
    with pytest.raises(DataError, match="at least two"):
        pw.design_from_assumptions([0.7], 100)
    with pytest.raises(DataError, match="items must be a whole number"):
        pw.design_from_assumptions([0.7, 0.8], 1.5)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="cluster size"):
        pw.design_from_assumptions([0.7, 0.8], 100, cluster_size=0)
    with pytest.raises(DataError, match="power"):
        pw.plan(design, power=0.3)
    with pytest.raises(DataError, match="> 0"):
        pw.plan(design, delta=-0.01)
    with pytest.raises(DataError, match="two different models"):
        pw.plan(design, pairs=[("model 1", "model 1")])


def test_split_budget() -> None:
    c = pw.critical_value(0.95)
    # no item cost and no pool limit: one answer per item is best
    free = pw.split_budget(0.3, 0.1, 10_000, critical=c, z_power=Z80)
    assert free.best == 0 and free.items[0] == 10_000
    # a fixed pool: spend the budget on answers
    pool = pw.split_budget(0.3, 0.1, 4000, critical=c, z_power=Z80, pool=800)
    assert pool.k[pool.best] == 5 and pool.items[pool.best] == 800
    assert pool.mde[pool.best] == pytest.approx((c + Z80) * np.sqrt((0.2 + 0.1 / 5) / 800))
    # item cost: the classic two-stage optimum K* = sqrt(item_cost * within / between)
    cost = pw.split_budget(0.15, 0.1, 1e6, critical=c, z_power=Z80, item_cost=20)
    assert cost.k[cost.best] == round(np.sqrt(20 * 0.1 / 0.05))
    with pytest.raises(DataError, match="lower the within-item share"):
        pw.split_budget(0.3, 0.4, 1000, critical=c, z_power=Z80)


def test_sentences() -> None:
    design = pw.design_from_assumptions([0.72, 0.7], 1000, models=["A", "B"])
    plan = pw.plan(design, delta=0.01)
    text = plan.sentence(0)
    assert text.startswith("A vs B: detectable at 5.7 points now (1,000 items); ")
    need = pw.round_up(plan.n_required[0])
    assert text.endswith(f"{need:,} items to detect 1 point at 80% power.")
    assert "already detect" in pw.plan(design, delta=0.2).sentence(0)
    assert pw.round_up(3371) == 3400 and pw.round_up(87.2) == 88
    assert pw.round_up(100_001) == 110_000


def test_pairs_without_spread_forecast_nothing_and_keep_the_family() -> None:
    """Every item 0 for A, 1 for B, 0.5 for C (40 items): the plug-in variance is 0, so the MDE
    was "0 points now" and the max-T critical value c = 0. Now: no MDE, no power, a note, and c
    at least one test's z (METHODS 10, 2g)."""
    n = 40
    scores = np.stack([np.zeros(n), np.ones(n), np.full(n, 0.5)])
    task = ItemTask([f"q{i}" for i in range(n)], scores)
    bench = Benchmark("flat", ("A", "B", "C"), ("t",), ("all",), "items",
                      scores.mean(axis=1)[:, None], item_tasks=(task,))  # fmt: skip
    plan = pw.plan(pw.design_from_benchmark(bench), delta=0.05)
    assert np.isnan(plan.mde).all() and np.isnan(plan.power_now).all()
    assert np.isnan(plan.n_required).all() and np.isnan(plan.mde_at(np.array([10, 100]))).all()
    assert plan.critical >= stats.norm.ppf(0.975)
    assert plan.notes and "No uncertainty was measured" in plan.notes[0]
    assert all("detectable at" not in plan.sentence(k) for k in range(3))
