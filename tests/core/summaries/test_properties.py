"""Property tests (hypothesis): reordering, interval monotonicity, reproducibility (METHODS 2-4),
and link parameters that never break the app."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchuq.core.data import Benchmark, ItemTask
from benchuq.core.draws import Draws
from benchuq.core.methods.bootstrap import bootstrap
from benchuq.core.summaries import (
    group_scores,
    leaderboard,
    percentile_interval,
    rank_aggregations,
    rank_probabilities,
    win_probabilities,
)
from benchuq.dashboard import links
from benchuq.presentation import state

FAST = settings(max_examples=25, deadline=None)


@st.composite
def shapes_and_perms(draw: st.DrawFn) -> tuple[int, int, np.ndarray, np.ndarray, int]:
    M = draw(st.integers(2, 4))
    T = draw(st.integers(1, 4))
    pm = np.array(draw(st.permutations(range(M))))
    pt = np.array(draw(st.permutations(range(T))))
    seed = draw(st.integers(0, 2**31 - 1))
    return M, T, pm, pt, seed


def counts_bench(M: int, T: int, seed: int) -> Benchmark:
    rng = np.random.default_rng(seed)
    n = rng.integers(5, 60, size=(M, T))
    k = rng.binomial(n, rng.random((M, T)))
    return Benchmark(
        name="p",
        models=tuple(f"model{i}" for i in range(M)),
        tasks=tuple(f"task{j}" for j in range(T)),
        categories=tuple("ab"[j % 2] for j in range(T)),
        kind="counts",
        estimate=k / n,
        n=n,
        correct=k,
    )


def items_bench(M: int, T: int, seed: int) -> Benchmark:
    rng = np.random.default_rng(seed)
    tasks = []
    for _ in range(T):
        n = int(rng.integers(3, 40))
        y = (rng.random((M, n)) < rng.random((M, 1))).astype(float)
        y[rng.random((M, n)) < 0.1] = np.nan
        y[:, 0] = 1.0  # every model answers at least one item
        tasks.append(ItemTask(tuple(str(i) for i in range(n)), y))
    with np.errstate(invalid="ignore"):
        est = np.array([[np.nanmean(t.scores[i]) for t in tasks] for i in range(M)])
    return Benchmark(
        name="p",
        models=tuple(f"model{i}" for i in range(M)),
        tasks=tuple(f"task{j}" for j in range(T)),
        categories=tuple("ab"[j % 2] for j in range(T)),
        kind="items",
        estimate=est,
        item_tasks=tuple(tasks),
    )


def dyadic_draws(M: int, T: int, seed: int, R: int = 60) -> Draws:
    """Draws on a grid of 1/16 (sums are exact, so ties do not depend on summation order)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 17, size=(R, M, T)) / 16
    return Draws(
        values=values,
        observed=rng.integers(0, 17, size=(M, T)) / 16,
        models=tuple(f"model{i}" for i in range(M)),
        tasks=tuple(f"task{j}" for j in range(T)),
        categories=tuple("ab"[j % 2] for j in range(T)),
        higher_is_better=np.ones(T, bool),
        method="test",
        paired=True,
        seed=seed,
    )


def permuted(d: Draws, pm: np.ndarray, pt: np.ndarray) -> Draws:
    return Draws(
        values=d.values[:, pm][:, :, pt],
        observed=d.observed[pm][:, pt],
        models=tuple(d.models[i] for i in pm),
        tasks=tuple(d.tasks[j] for j in pt),
        categories=tuple(d.categories[j] for j in pt),
        higher_is_better=d.higher_is_better[pt],
        method=d.method,
        paired=d.paired,
        seed=d.seed,
    )


@FAST
@given(shapes_and_perms(), st.sampled_from(["counts", "items"]))
def test_reordering_models_and_tasks_only_reorders_the_draws(case, kind: str) -> None:
    M, T, pm, pt, seed = case
    bench = counts_bench(M, T, seed) if kind == "counts" else items_bench(M, T, seed)
    names_m = [bench.models[i] for i in pm]
    names_t = [bench.tasks[j] for j in pt]
    a = bootstrap(bench, reps=40, seed=seed % 1000)
    b = bootstrap(bench.subset(names_m, names_t), reps=40, seed=seed % 1000)
    np.testing.assert_array_equal(b.values, a.values[:, pm][:, :, pt])
    np.testing.assert_array_equal(b.observed, a.observed[pm][:, pt])


@FAST
@given(shapes_and_perms())
def test_reordering_reorders_summaries_and_changes_nothing_else(case) -> None:
    M, T, pm, pt, seed = case
    d = dyadic_draws(M, T, seed)
    p = permuted(d, pm, pt)
    lb_a = leaderboard(d).set_index(["group", "model"]).sort_index()
    lb_b = leaderboard(p).set_index(["group", "model"]).sort_index()
    tied = "tied_with_leader"
    np.testing.assert_array_equal(lb_b[tied], lb_a[tied])
    num_a, num_b = (x.drop(columns=tied).to_numpy(dtype=float) for x in (lb_a, lb_b))
    np.testing.assert_allclose(num_b, num_a, rtol=1e-12, atol=1e-15)
    ra_a = rank_aggregations(d).set_index(["method", "model"]).sort_index()
    ra_b = rank_aggregations(p).set_index(["method", "model"]).sort_index()
    np.testing.assert_array_equal(ra_b.to_numpy(), ra_a.to_numpy())
    np.testing.assert_array_equal(win_probabilities(p), win_probabilities(d)[pm][:, pm])
    np.testing.assert_array_equal(rank_probabilities(p), rank_probabilities(d)[pm])


@FAST
@given(
    st.integers(0, 2**31 - 1),
    st.floats(0.05, 0.9),
    st.floats(0.01, 0.09),
)
def test_intervals_widen_with_the_level(seed: int, level: float, step: float) -> None:
    d = dyadic_draws(3, 3, seed, R=200)
    sc = group_scores(d, group="overall")
    narrow = percentile_interval(sc, level=level)
    wide = percentile_interval(sc, level=level + step)
    assert np.all(wide.low <= narrow.low) and np.all(wide.high >= narrow.high)


@FAST
@given(shapes_and_perms(), st.sampled_from(["counts", "items"]))
def test_same_seed_same_numbers(case, kind: str) -> None:
    M, T, _, _, seed = case
    bench = counts_bench(M, T, seed) if kind == "counts" else items_bench(M, T, seed)
    a, b = bootstrap(bench, reps=30, seed=seed), bootstrap(bench, reps=30, seed=seed)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(rank_aggregations(a).to_numpy(), rank_aggregations(b).to_numpy())


_PARAM_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40
) | st.sampled_from(["", " ", "nan", "inf", "-1", "1e309", "{}", "[]", '{"a":1}', "a;b", ",,"])


_ALL_NAMES = [name for name, *_ in links.rows()]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(_ALL_NAMES), _PARAM_TEXT, max_size=8))
def test_any_link_parameters_parse_to_values_or_named_notices(params: dict[str, str]) -> None:
    """Whatever a link holds, parsing never raises: each value is used or named in a notice."""
    values, notices = state.parse_static(params, samples=("toy",), methods=("bootstrap", "bayes"))
    named = {n.param for n in notices}
    for name in ("data", "method", "level", "reps", "seed", "metric"):
        if name in params:
            assert (name in values) != (name in named), name
    for cls, _ in links.PAGE_SETTINGS:
        page, page_notices, linked = state.parse_settings(cls, params)
        named = {n.param for n in page_notices}
        for attr, spec, _ in state.link_fields(cls):
            if spec.name in params:
                assert (attr in linked) != (spec.name in named), spec.name
        query = state.settings_query(page)  # what the app writes back reads the same
        assert state.settings_query(state.parse_settings(cls, query)[0]) == query
    for raw in (params.get("weights"), params.get("models"), params.get("categories")):
        if raw is not None:
            state.parse_weights(raw, ("x", "y"))
            state.parse_models(raw, ("a", "b"))
            edits, notice = state.parse_categories(raw, ("t1", "t2"))
            assert set(edits) <= {"t1", "t2"} and (notice is None or notice.param == "categories")
