"""Known-truth settings for the power simulations (tests/core/analyses/test_power.py,
benchmarks/bench_power.py).

Each setting plans the items for a true difference with ``core.analyses.power`` from the true
parameters, then runs ``experiments`` simulated evaluations of that size and tests each one as an
analyst would (the difference over its plug-in standard error: paired, clustered or binomial
as the data allow, against the plan's critical value). The share rejected is the observed power.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchuq.core.analyses import power as pw
from benchuq.core.data import Benchmark

LEVEL, POWER = 0.95, 0.8


@dataclass(frozen=True)
class Outcome:
    """One setting: the planned items and power, and the power observed in simulation."""

    name: str
    items: int
    planned: float
    observed: float
    experiments: int


def _chunks(experiments: int, size: int = 400) -> list[int]:
    return [min(size, experiments - s) for s in range(0, experiments, size)]


def _paired_se(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, plug-in SE) of per-item differences ``d`` (experiments x items)."""
    n = d.shape[1]
    return d.mean(axis=1), d.std(axis=1) / np.sqrt(n)


def _joint_binary(rng, size, pa: float, pb: float, corr: float) -> tuple[np.ndarray, np.ndarray]:
    """Right/wrong scores of two models with accuracies pa, pb and item correlation corr."""
    both = pa * pb + corr * np.sqrt(pa * (1 - pa) * pb * (1 - pb))
    probs = [both, pa - both, pb - both, 1 - pa - pb + both]
    cell = rng.choice(4, size=size, p=probs)
    return ((cell == 0) | (cell == 1)).astype(float), ((cell == 0) | (cell == 2)).astype(float)


def _run(name: str, plan: pw.PowerPlan, items: int, experiments: int, seed: int, one) -> Outcome:
    """``one(rng, size) -> (estimate, se)`` per experiment; reject where |estimate| > c se.

    The planned power is the plan's power at the simulated size (the size is rounded up)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for size in _chunks(experiments):
        est, se = one(rng, size)
        hits += int(np.sum(np.abs(est) > plan.critical * se))
    planned = float(plan.power_at(np.array([items]))[0, 0])
    return Outcome(name, items, planned, hits / experiments, experiments)


def binary_items(corr: float) -> Callable[[int, int], Outcome]:
    """Two models on the same right/wrong items, accuracies 0.72 and 0.68, item correlation
    ``corr`` (0: independent outcomes; 0.5: paired)."""
    pa, pb = 0.72, 0.68

    def run(experiments: int, seed: int) -> Outcome:
        design = pw.design_from_assumptions([pa, pb], 100, corr=corr)
        plan = pw.plan(design, level=LEVEL, power=POWER, delta=pa - pb)
        n = int(plan.n_required[0])

        def one(rng, size):
            ya, yb = _joint_binary(rng, (size, n), pa, pb, corr)
            return _paired_se(ya - yb)

        label = "independent" if corr == 0 else f"paired (corr {corr:g})"
        return _run(f"binary items, {label}", plan, n, experiments, seed, one)

    return run


def clustered_items(experiments: int, seed: int) -> Outcome:
    """Right/wrong items in clusters of 8 (passages): each model's accuracy on a cluster is
    Beta with mean 0.74 / 0.70 and strength 6, independent across models; cluster-robust SE."""
    m, ma, mb, strength = 8, 0.74, 0.70, 6.0
    va, vb = ma * (1 - ma) / (strength + 1), mb * (1 - mb) / (strength + 1)
    icc = (va + vb) / (ma * (1 - ma) + mb * (1 - mb))
    design = pw.design_from_assumptions([ma, mb], 100, cluster_size=m, icc=icc)
    plan = pw.plan(design, level=LEVEL, power=POWER, delta=ma - mb)
    groups = int(np.ceil(plan.n_required[0] / m))

    def one(rng, size):
        pa = rng.beta(ma * strength, (1 - ma) * strength, (size, groups, 1))
        pb = rng.beta(mb * strength, (1 - mb) * strength, (size, groups, 1))
        d = (rng.random((size, groups, m)) < pa).astype(float)
        d -= rng.random((size, groups, m)) < pb
        est = d.mean(axis=(1, 2))
        resid = (d - est[:, None, None]).sum(axis=2)
        return est, np.sqrt((resid**2).sum(axis=1)) / (groups * m)

    return _run(f"clustered items (m {m}, ICC {icc:.2f})", plan, groups * m, experiments, seed, one)


def task_counts(experiments: int, seed: int) -> Outcome:
    """Task-level counts: 6 tasks of unequal size in two categories weighted 0.7 / 0.3, models
    independent (the assumed rho = 0 is the truth); binomial SE of the weighted score."""
    n_j = np.array([60, 120, 250, 40, 400, 90])
    cats = ("a", "a", "a", "b", "b", "b")
    pa = np.array([0.80, 0.65, 0.55, 0.90, 0.70, 0.60])
    pb = pa - np.array([0.05, 0.04, 0.02, 0.03, 0.01, 0.04])
    truth = Benchmark(
        name="truth",
        models=("A", "B"),
        tasks=tuple(f"t{j}" for j in range(6)),
        categories=cats,
        kind="counts",
        estimate=np.array([pa, pb]),
        n=np.array([n_j, n_j]),
        correct=np.round(np.array([pa, pb]) * n_j).astype(int),
    )
    weights = np.array([0.7, 0.3])
    design = pw.design_from_benchmark(truth, group=weights)
    w = weights[truth.category_index] / 3
    delta = float(w @ (pa - pb))
    plan = pw.plan(design, level=LEVEL, power=POWER, delta=delta)
    f = plan.factor_required[0]
    sizes = np.ceil(n_j * f).astype(int)

    def one(rng, size):
        ka = rng.binomial(sizes, pa, (size, 6)) / sizes
        kb = rng.binomial(sizes, pb, (size, 6)) / sizes
        var = (ka * (1 - ka) + kb * (1 - kb)) / sizes
        return (ka - kb) @ w, np.sqrt(var @ w**2)

    return _run("task-level counts, weighted", plan, int(sizes.sum()), experiments, seed, one)


def continuous_scores(experiments: int, seed: int) -> Outcome:
    """Continuous paired scores in [0, 1]: ``y = 0.5 s_l + 0.5 t_il`` with a shared item
    difficulty ``s ~ Beta(2, 2)`` and model noise ``t ~ Beta(3, 2)`` / ``Beta(2.6, 2.2)``."""
    (aa, ba), (ab, bb) = (3.0, 2.0), (2.6, 2.2)

    def moments(a: float, b: float) -> tuple[float, float]:
        return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))

    ms, vs = moments(2, 2)
    (mta, vta), (mtb, vtb) = moments(aa, ba), moments(ab, bb)
    means = [0.5 * ms + 0.5 * mta, 0.5 * ms + 0.5 * mtb]
    sd = np.sqrt([0.25 * vs + 0.25 * vta, 0.25 * vs + 0.25 * vtb])
    corr = 0.25 * vs / (sd[0] * sd[1])
    design = pw.design_from_assumptions(means, 100, corr=corr, sd=sd)
    plan = pw.plan(design, level=LEVEL, power=POWER, delta=means[0] - means[1])
    n = int(plan.n_required[0])

    def one(rng, size):
        # the shared item term cancels in the difference
        d = 0.5 * rng.beta(aa, ba, (size, n)) - 0.5 * rng.beta(ab, bb, (size, n))
        return _paired_se(d)

    return _run(f"continuous scores (corr {corr:.2f})", plan, n, experiments, seed, one)


def resampled_items(experiments: int, seed: int) -> Outcome:
    """K = 4 answers per item: items of four kinds with per-item success probabilities for the
    two models; score = mean of the 4 answers. The plan: ``split_budget`` with the item pool
    and the budget of the planned size gives the variance ``between + within / K``."""
    kinds = np.array([[0.95, 0.90], [0.75, 0.62], [0.40, 0.35], [0.08, 0.10]])
    share = np.array([0.3, 0.3, 0.25, 0.15])
    K = 4
    diff = kinds[:, 0] - kinds[:, 1]
    delta = float(share @ diff)
    between = float(share @ (diff - delta) ** 2)
    within = float(share @ (kinds * (1 - kinds)).sum(axis=1))
    c, z = pw.critical_value(LEVEL), stats.norm.ppf(POWER)
    n = int(np.ceil(((c + z) / delta) ** 2 * (between + within / K)))
    sp = pw.split_budget(between + within, within, n * K, critical=c, z_power=z, pool=n, k_max=K)
    assert sp.items[K - 1] == n and sp.best == K - 1
    # the plan at (n items, K answers) as a design: variance of the difference (between +
    # within / K) / n
    var = sp.var_item[K - 1] / n
    design = pw.Design(
        "truth", ("A", "B"), np.array([delta, 0.0]), np.diag([var, 0.0]), np.diag([var, 0.0]), n
    )
    plan = pw.plan(design, level=LEVEL, power=POWER, delta=delta)

    def one(rng, size):
        p = kinds[rng.choice(4, size=(size, n), p=share)]
        answers = rng.binomial(K, p) / K
        return _paired_se(answers[..., 0] - answers[..., 1])

    return _run(f"K = {K} answers per item", plan, n, experiments, seed, one)


def _latent_binary(p: np.ndarray, latent: float) -> np.ndarray:
    """Per-item covariance of right/wrong scores ``1[Z_i < Phi^-1(p_i)]``, ``Z`` equicorrelated
    normal with correlation ``latent`` (a shared item ease)."""
    q = stats.norm.ppf(p)
    cov = np.diag(p * (1 - p))
    for i in range(len(p)):
        for k in range(i + 1, len(p)):
            both = stats.multivariate_normal.cdf([q[i], q[k]], cov=[[1, latent], [latent, 1]])
            cov[i, k] = cov[k, i] = both - p[i] * p[k]
    return cov


def _latent_scores(rng, size, p: np.ndarray, latent: float) -> np.ndarray:
    shared = rng.standard_normal((*size[:2], 1))
    z = np.sqrt(latent) * shared + np.sqrt(1 - latent) * rng.standard_normal(size)
    return (z < stats.norm.ppf(p)).astype(float)


def maxt_family(p: tuple[float, ...]) -> Callable[[int, int], Outcome]:
    """Three models on the same right/wrong items (shared item ease, latent correlation 0.6):
    pairs tested at the max-T critical value of the three pairs. With distinct accuracies the
    outcome is the power for the pair 1 vs 2; with equal accuracies it is the family-wise error
    (the share of experiments where any pair is called different), planned = 1 - level."""
    acc, latent = np.array(p), 0.6

    def run(experiments: int, seed: int) -> Outcome:
        S = _latent_binary(acc, latent)
        null = acc[0] == acc[1]
        items = 1500 if null else 100
        design = pw.Design("truth", ("A", "B", "C"), acc, S / items, S / items, items)
        plan = pw.plan(design, level=LEVEL, power=POWER, delta=None if null else acc[0] - acc[1])
        n = items if null else int(plan.n_required[0])
        rng = np.random.default_rng(seed)
        hits = 0
        for size in _chunks(experiments, 200):
            y = _latent_scores(rng, (size, n, 3), acc, latent)
            reject = np.zeros(size, bool)
            for a, b in ((0, 1), (0, 2), (1, 2))[: 3 if null else 1]:
                est, se = _paired_se(y[..., a] - y[..., b])
                reject |= np.abs(est) > plan.critical * se
            hits += int(reject.sum())
        planned = 1 - LEVEL if null else float(plan.power_at(np.array([n]))[0, 0])
        name = "three models, max-T: " + ("family-wise error" if null else "power of 1 vs 2")
        return Outcome(name, n, planned, hits / experiments, experiments)

    return run


SETTINGS: dict[str, Callable[[int, int], Outcome]] = {
    "independent": binary_items(0.0),
    "paired": binary_items(0.5),
    "clustered": clustered_items,
    "counts": task_counts,
    "continuous": continuous_scores,
    "resampled": resampled_items,
    "maxt": maxt_family((0.74, 0.70, 0.70)),
    "maxt_null": maxt_family((0.70, 0.70, 0.70)),
}
