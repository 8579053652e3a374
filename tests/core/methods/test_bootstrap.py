"""Bootstrap engines (METHODS 2): exactness, reproducibility, coverage against known truth."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from benches import counts_bench
from scipy import stats

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.methods import bootstrap as boot
from benchuq.core.methods.bootstrap import (
    binomial_bootstrap,
    bootstrap,
    normal_draws,
    paired_bootstrap,
)
from benchuq.core.validation import InvalidArgument


def items_bench(
    scores: list[np.ndarray], clusters: list[list[str] | None] | None = None
) -> Benchmark:
    M = scores[0].shape[0]
    clusters = clusters or [None] * len(scores)
    tasks = tuple(
        ItemTask(
            tuple(str(i) for i in range(s.shape[1])),
            s,
            cluster=None if c is None else tuple(c),
        )
        for s, c in zip(scores, clusters, strict=True)
    )
    with np.errstate(invalid="ignore"):
        est = np.array([[np.nanmean(s[i]) for s in scores] for i in range(M)])
    return Benchmark(
        name="items",
        models=tuple(f"m{i}" for i in range(M)),
        tasks=tuple(f"t{j}" for j in range(len(scores))),
        categories=tuple("c" for _ in scores),
        kind="items",
        estimate=est,
        item_tasks=tasks,
    )


def correlated_binary(p: np.ndarray, n: int, rho: float, rng: np.random.Generator) -> np.ndarray:
    """``(M, n)`` 0/1 scores with P(correct) = p_i and a shared item effect (Gaussian copula)."""
    z = rng.standard_normal(n)
    e = rng.standard_normal((len(p), n))
    latent = np.sqrt(rho) * z + np.sqrt(1 - rho) * e
    return (latent < stats.norm.ppf(p)[:, None]).astype(float)


def naive_paired(bench: Benchmark, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Reference: resample item indices per task and replicate, nan-mean per model."""
    out = np.empty((reps, *bench.shape))
    for j, it in enumerate(bench.item_tasks):
        n = it.scores.shape[1]
        idx = rng.integers(0, n, size=(reps, n))
        with np.errstate(invalid="ignore"):
            out[:, :, j] = np.nanmean(it.scores[:, idx], axis=2).T
    return out


# ---- dispatch, reproducibility, input checks ------------------------------------------------


def test_dispatch_by_kind() -> None:
    rng = np.random.default_rng(0)
    counts = counts_bench(np.array([[5, 7], [3, 9]]), np.array([10, 12]))
    items = items_bench([correlated_binary(np.array([0.6, 0.7]), 40, 0.5, rng)])
    se = Benchmark(
        name="se",
        models=("a", "b"),
        tasks=("t",),
        categories=("c",),
        kind="estimate_se",
        estimate=np.array([[0.3], [0.4]]),
        se=np.array([[0.01], [0.02]]),
    )
    d1, d2, d3 = bootstrap(counts, reps=50), bootstrap(items, reps=50), bootstrap(se, reps=50)
    assert d1.method.startswith("task-level confidence draws") and not d1.paired
    assert d2.method == "bootstrap: item-level paired" and d2.paired
    assert d3.method.startswith("normal approximation") and not d3.paired
    assert any("independent" in n for n in d1.notes)
    assert any("Normal approximation" in n for n in d3.notes)
    for d, b in ((d1, counts), (d2, items), (d3, se)):
        assert d.values.shape == (50, *b.shape)
        np.testing.assert_array_equal(d.observed, b.estimate)


@pytest.mark.parametrize("engine", [binomial_bootstrap, paired_bootstrap, normal_draws])
def test_same_seed_same_numbers(engine) -> None:
    rng = np.random.default_rng(1)
    if engine is binomial_bootstrap:
        bench = counts_bench(np.array([[5, 70], [3, 90]]), np.array([10, 120]))
    elif engine is paired_bootstrap:
        bench = items_bench([correlated_binary(np.array([0.6, 0.7, 0.2]), 300, 0.5, rng)])
    else:
        bench = Benchmark(
            name="se",
            models=("a", "b"),
            tasks=("t", "u"),
            categories=("c", "c"),
            kind="estimate_se",
            estimate=np.array([[0.3, 0.2], [0.4, 0.9]]),
            se=np.array([[0.01, 0.1], [0.02, 0.03]]),
        )
    a, b, c = (
        engine(bench, reps=200, seed=7),
        engine(bench, reps=200, seed=7),
        engine(bench, reps=200, seed=8),
    )
    np.testing.assert_array_equal(a.values, b.values)
    assert a.seed == 7
    assert not np.array_equal(a.values, c.values)


def test_reps_must_be_a_positive_whole_number() -> None:
    bench = counts_bench(np.array([[5]]), np.array([10]))
    for reps in (0, -3, 2.5):
        with pytest.raises(InvalidArgument, match="replicates"):
            bootstrap(bench, reps=reps)


# ---- task-level binomial --------------------------------------------------------------------


def test_binomial_moments_match_theory() -> None:
    n = np.array([50, 400, 2000])
    p = np.array([[0.1, 0.5, 0.93], [0.7, 0.25, 0.5]])
    bench = counts_bench(np.round(p * n).astype(int), n)
    d = binomial_bootstrap(bench, reps=20000, seed=3)
    pk = bench.correct / n
    sd = np.sqrt(pk * (1 - pk) / n)
    # mean within 4 Monte Carlo SEs, SD within 3% (MC relative SE of an SD ~ 0.5% at R = 20000)
    assert np.all(np.abs(d.values.mean(0) - pk) < 4 * sd / np.sqrt(20000))
    np.testing.assert_allclose(d.values.std(0), sd, rtol=0.03)
    # independent models: correlation between models ~ 0
    r = np.corrcoef(d.values[:, 0, 1], d.values[:, 1, 1])[0, 1]
    assert abs(r) < 0.03


def test_binomial_missing_cells_stay_nan() -> None:
    bench = Benchmark(
        name="gap",
        models=("a", "b"),
        tasks=("t", "u"),
        categories=("c", "c"),
        kind="counts",
        estimate=np.array([[0.5, np.nan], [0.2, 0.4]]),
        n=np.array([[10, 0], [10, 10]]),
        correct=np.array([[5, 0], [2, 4]]),
    )
    d = binomial_bootstrap(bench, reps=100, seed=0)
    assert np.isnan(d.values[:, 0, 1]).all()
    assert np.isfinite(d.values[:, [0, 1, 1], [0, 0, 1]]).all()
    assert any("Missing results" in n for n in d.notes)


# ---- estimate and se ------------------------------------------------------------------------


def test_normal_draws_moments() -> None:
    bench = Benchmark(
        name="se",
        models=("a", "b"),
        tasks=("t", "u"),
        categories=("c", "c"),
        kind="estimate_se",
        estimate=np.array([[3.0, np.nan], [40.0, 0.9]]),
        se=np.array([[0.5, np.nan], [2.0, 0.01]]),
    )
    d = normal_draws(bench, reps=20000, seed=2)
    ok = ~np.isnan(bench.estimate)
    np.testing.assert_allclose(d.values.mean(0)[ok], bench.estimate[ok], atol=4 * 2 / 141)
    np.testing.assert_allclose(d.values.std(0)[ok], bench.se[ok], rtol=0.03)
    assert np.isnan(d.values[:, 0, 1]).all()


# ---- item-level paired ----------------------------------------------------------------------


def _with_missing(y: np.ndarray, share: float, rng: np.random.Generator) -> np.ndarray:
    y = y.copy()
    y[rng.random(y.shape) < share] = np.nan
    return y


def naive_dirichlet(bench: Benchmark, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Reference for tasks of >= 30 items without clusters: one Gamma(nu / n) weight per item
    (``nu = n - 3``) and one Gamma(w_j) pseudo-item valued 0 or 1 with probability 1/2 per model
    (METHODS 2), nan-weighted means per model."""
    sizes = np.array([it.shape[1] for it in bench.item_tasks], dtype=float)
    out = np.empty((reps, *bench.shape))
    for j, it in enumerate(bench.item_tasks):
        y = it.scores
        n = y.shape[1]
        G = rng.standard_gamma((n - 3) / n, size=(reps, n))
        g = rng.standard_gamma(sizes[j] / sizes.sum(), size=(reps, 1))
        u = rng.random((reps, y.shape[0])) < 0.5
        ans = ~np.isnan(y)
        num = G @ np.where(ans, y, 0.0).T + g * u
        out[:, :, j] = num / (G @ ans.T.astype(float) + g)
    return out


def test_pattern_compression_has_the_per_item_distribution() -> None:
    """Pattern-compressed Dirichlet weights == one gamma weight per item (the aggregation
    property of the Dirichlet, METHODS 2), incl. missing scores."""
    rng = np.random.default_rng(11)
    p = np.array([0.55, 0.6, 0.8, 0.3])
    y1 = _with_missing(correlated_binary(p, 300, 0.3, rng), 0.05, rng)
    y2 = correlated_binary(p[:2].repeat(2), 500, 0.9, rng)
    bench = items_bench([y1, y2])
    R = 4000
    fast = paired_bootstrap(bench, reps=R, seed=5).values
    slow = naive_dirichlet(bench, R, np.random.default_rng(6))
    for stat in (
        lambda v: v[:, 0, 0],
        lambda v: v[:, 1, 0] - v[:, 2, 0],
        lambda v: v[:, 0, 1] - v[:, 1, 1],
        lambda v: v.mean(axis=2)[:, 3],
    ):
        a, b = stat(fast), stat(slow)
        se = b.std() / np.sqrt(R)
        assert abs(a.mean() - b.mean()) < 4 * np.sqrt(2) * se
        assert abs(a.std() / b.std() - 1) < 0.06
        assert stats.ks_2samp(a, b).pvalue > 0.001
    # and, with hundreds of items, the spread of the plain item bootstrap
    naive = naive_paired(bench, R, np.random.default_rng(7))
    assert abs(fast[:, 0, 0].std() / naive[:, 0, 0].std() - 1) < 0.06


def test_no_zero_width_at_all_correct_all_wrong_and_one_item() -> None:
    """All correct, all wrong, one item: every interval has width; the item path gives a model
    the counts path's mid-p draws (same law: Dirichlet aggregation)."""
    y = np.array([[1.0] * 30, [0.0] * 30])
    d = paired_bootstrap(items_bench([y]), reps=4000, seed=0)
    low, high = np.quantile(d.values[:, :, 0], [0.025, 0.975], axis=0)
    assert np.all(high - low > 0.05) and high[0] == 1.0 and low[1] == 0.0
    c = boot.confidence_draws(counts_bench(np.array([[30], [0]]), np.array([30])), 4000, seed=0)
    clow, chigh = np.quantile(c.values[:, :, 0], [0.025, 0.975], axis=0)
    np.testing.assert_allclose(low, clow, atol=0.01)
    np.testing.assert_allclose(high, chigh, atol=0.01)
    one = paired_bootstrap(items_bench([np.array([[1.0], [0.0]])]), reps=2000, seed=0)
    low, high = np.quantile(one.values[:, :, 0], [0.025, 0.975], axis=0)
    assert np.all(high - low > 0.8)


def test_continuous_items_match_naive() -> None:
    rng = np.random.default_rng(12)
    base = rng.random(200)
    y = np.vstack([base + 0.3 * rng.random(200), base**2, rng.random(200)])
    y = _with_missing(y, 0.03, rng)
    bench = items_bench([y])
    R = 3000
    fast = paired_bootstrap(bench, reps=R, seed=1).values[:, :, 0]
    slow = naive_paired(bench, R, np.random.default_rng(2))[:, :, 0]
    a, b = fast[:, 2], slow[:, 2]
    assert abs(a.std() / b.std() - 1) < 0.06
    assert stats.ks_2samp(a, b).pvalue > 0.001
    # a difference of strongly correlated scores: the pseudo-items (valued at the task's score
    # range, independently per model) widen it a little at 200 items, never narrow it
    ratio = (fast[:, 0] - fast[:, 1]).std() / (slow[:, 0] - slow[:, 1]).std()
    assert 0.97 < ratio < 1.25


def test_paired_se_of_difference_matches_analytic() -> None:
    """SE of m_A - m_B over tasks = sqrt(sum_j Var_pop(y_A - y_B)_j / n_j) / T (plug-in)."""
    rng = np.random.default_rng(21)
    scores = [correlated_binary(np.array([0.7, 0.65]), n, 0.7, rng) for n in (400, 900, 250)]
    bench = items_bench(scores)
    d = paired_bootstrap(bench, reps=6000, seed=4)
    diff = d.values[:, 0, :].mean(axis=1) - d.values[:, 1, :].mean(axis=1)
    analytic = np.sqrt(sum(np.var(s[0] - s[1]) / s.shape[1] for s in scores)) / len(scores)
    assert abs(diff.std() / analytic - 1) < 0.05
    # the same accuracies bootstrapped as independent counts give a clearly wider SE
    k = np.array([[s[i].sum() for s in scores] for i in range(2)]).astype(int)
    unpaired = binomial_bootstrap(
        counts_bench(k, np.array([s.shape[1] for s in scores])), reps=6000, seed=4
    )
    u = unpaired.values.mean(axis=2)
    assert (u[:, 0] - u[:, 1]).std() > 1.3 * analytic


def test_clustered_se_matches_cluster_means() -> None:
    """Equal clusters: SE of the task mean = sqrt(Var_pop(cluster means) / G) [M24]."""
    rng = np.random.default_rng(31)
    G, size = 60, 5
    effect = rng.normal(0, 1.0, G).repeat(size)
    latent = effect + rng.normal(0, 1.0, (2, G * size))
    y = (latent > 0).astype(float)
    labels = [f"g{g}" for g in range(G) for _ in range(size)]
    bench = items_bench([y], clusters=[labels])
    d = paired_bootstrap(bench, reps=6000, seed=9)
    assert d.method.endswith("clustered")
    cluster_means = y.reshape(2, G, size).mean(axis=2)
    analytic = np.sqrt(cluster_means.var(axis=1) / G)
    np.testing.assert_allclose(d.values[:, :, 0].std(axis=0), analytic, rtol=0.05)
    flat = paired_bootstrap(items_bench([y]), reps=6000, seed=9)
    assert np.all(d.values[:, :, 0].std(0) > 1.3 * flat.values[:, :, 0].std(0))


def test_small_chunks_give_the_same_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(41)
    bench = items_bench([correlated_binary(np.array([0.4, 0.5, 0.6]), 800, 0.4, rng)])
    whole = paired_bootstrap(bench, reps=3000, seed=1).values[:, :, 0]
    monkeypatch.setattr(boot, "CHUNK_CELLS", 1)
    chunked = paired_bootstrap(bench, reps=3000, seed=1).values[:, :, 0]
    assert np.isfinite(chunked).all()
    np.testing.assert_allclose(chunked.std(0), whole.std(0), rtol=0.07)
    np.testing.assert_allclose(chunked.mean(0), whole.mean(0), atol=0.002)


def test_model_with_one_answered_item_varies_within_the_score_range() -> None:
    """Model 1 answered one of 4 items (right): the pseudo-items keep its draws open and in
    [0, 1]; its draws stay near its one answer more often than not."""
    y = np.array([[1.0, 0.0, 1.0, 1.0], [np.nan, np.nan, np.nan, 1.0]])
    d = paired_bootstrap(items_bench([y]), reps=2000, seed=0)
    v = d.values[:, 1, 0]
    assert np.isfinite(v).all() and v.min() >= 0.0 and v.max() <= 1.0
    assert v.std() > 0.1 and np.median(v) > 0.5


# ---- coverage against known truth ------------------------------------------------------------


def _coverage(low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean((low <= truth) & (truth <= high)))


def test_task_level_coverage_of_overall_mean() -> None:
    """95% percentile intervals of the overall mean cover the truth in 93-97% of benchmarks."""
    rng = np.random.default_rng(101)
    n = np.array([60, 120, 200, 90, 150])
    p = np.array([[0.62, 0.8, 0.45, 0.7, 0.9], [0.3, 0.55, 0.5, 0.85, 0.6]])
    truth = p.mean(axis=1)
    hits = []
    for _ in range(700):
        k = rng.binomial(n, p)
        vals = binomial_bootstrap(counts_bench(k, n), reps=600, seed=int(rng.integers(1 << 30)))
        overall = vals.values.mean(axis=2)
        low, high = np.quantile(overall, [0.025, 0.975], axis=0)
        hits.append((low <= truth) & (truth <= high))
    coverage = float(np.mean(hits))
    assert 0.93 <= coverage <= 0.97, coverage


def test_item_level_paired_coverage_of_overall_mean_and_difference() -> None:
    rng = np.random.default_rng(202)
    p = np.array([[0.7, 0.55, 0.85], [0.65, 0.5, 0.8]])
    sizes = (80, 120, 100)
    truth = p.mean(axis=1)
    hits, hits_diff = [], []
    for _ in range(600):
        scores = [correlated_binary(p[:, j], sizes[j], 0.6, rng) for j in range(3)]
        d = paired_bootstrap(items_bench(scores), reps=600, seed=int(rng.integers(1 << 30)))
        overall = d.values.mean(axis=2)
        low, high = np.quantile(overall, [0.025, 0.975], axis=0)
        hits.append((low <= truth) & (truth <= high))
        dl, dh = np.quantile(overall[:, 0] - overall[:, 1], [0.025, 0.975])
        hits_diff.append(dl <= truth[0] - truth[1] <= dh)
    assert 0.93 <= float(np.mean(hits)) <= 0.97, np.mean(hits)
    assert 0.93 <= float(np.mean(hits_diff)) <= 0.97, np.mean(hits_diff)


def test_task_without_items_gives_nan_draws() -> None:
    y = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    empty = np.empty((2, 0))
    scores = [y, empty]
    tasks = tuple(ItemTask(tuple(str(i) for i in range(s.shape[1])), s) for s in scores)
    bench = Benchmark(
        name="gap",
        models=("a", "b"),
        tasks=("t", "u"),
        categories=("c", "c"),
        kind="items",
        estimate=np.array([[2 / 3, np.nan], [1 / 3, np.nan]]),
        item_tasks=tasks,
    )
    d = paired_bootstrap(bench, reps=50, seed=0)
    assert np.isnan(d.values[:, :, 1]).all() and np.isfinite(d.values[:, :, 0]).all()


# ---- pattern compression by hashing packed rows (issue 18) ----------------------------------


@pytest.mark.parametrize(("M", "missing"), [(3, 0.0), (12, 0.1), (25, 0.0), (40, 0.05), (70, 0.0)])
def test_patterns_equal_the_sorted_distinct_columns(M: int, missing: float) -> None:
    """Direct counts, one hashed word, several words: the distinct item columns and counts of
    np.unique, in the order of the packed key over the models in the given order."""
    rng = np.random.default_rng(M)
    n = 3000
    state = (rng.random((M, n)) < 0.5 + 0.4 * rng.random((M, 1))).astype(np.uint8)
    state[:, : n // 2] = state[:, :1]  # many repeats of one pattern
    state[rng.random((M, n)) < missing] = 255
    order = rng.permutation(M)
    got, counts = boot._patterns(state, order)
    want, want_counts = np.unique(state[order].T, axis=0, return_counts=True)
    as_dict = {tuple(r): k for r, k in zip(got[:, order].tolist(), counts.tolist(), strict=True)}
    assert as_dict == dict(zip(map(tuple, want.tolist()), want_counts.tolist(), strict=True))
    # key order: the code of position p weighs base**p (base 2, or 3 with missing scores)
    base = 3 if missing else 2
    codes = np.where(got[:, order] == 255, 2, got[:, order]).astype(object)
    keys = codes @ np.array([base**p for p in range(M)], dtype=object)
    assert all(a < b for a, b in itertools.pairwise(keys))


def test_a_hash_collision_is_sorted_out_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pattern hashed to one value: the exact fallback gives the same draws."""
    rng = np.random.default_rng(3)
    y = _with_missing((rng.random((40, 500)) < 0.7).astype(float), 0.05, rng)
    bench = items_bench([y])
    want = paired_bootstrap(bench, reps=200, seed=1).values
    monkeypatch.setattr(boot, "_hash_rows", lambda words: np.zeros(len(words), np.uint64))
    assert np.array_equal(paired_bootstrap(bench, reps=200, seed=1).values, want)


def test_item_and_row_order_do_not_change_binary_draws() -> None:
    """Patterns are ordered by content: shuffling the items gives the same draws."""
    rng = np.random.default_rng(4)
    y = _with_missing((rng.random((5, 800)) < 0.6).astype(float), 0.05, rng)
    a = paired_bootstrap(items_bench([y]), reps=300, seed=2).values
    b = paired_bootstrap(items_bench([y[:, rng.permutation(800)]]), reps=300, seed=2).values
    assert np.array_equal(a, b)
