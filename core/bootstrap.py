"""Bootstrap draws of per-task performance (METHODS sections 1-2, [LGC 2.1], [M24]).

:func:`bootstrap` picks the engine from the data kind and returns :class:`core.draws.Draws` of
shape ``(R, M, T)``:

- ``"counts"`` -> :func:`binomial_bootstrap` (task level, models independent);
- ``"items"`` -> :func:`paired_bootstrap` (item level, paired; pattern-compressed for binary
  scores; clusters resampled whole when a task has a cluster column);
- ``"estimate_se"`` -> :func:`normal_draws` (normal approximation).

Reproducibility: every engine draws from ``numpy.random.default_rng(seed)``. Random numbers are
generated in a canonical order (models and tasks sorted by name; item patterns in order of first
appearance), so reordering the models or tasks of a benchmark reorders the draws and changes
nothing else.
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from core.data import Benchmark, DataError, ItemTask
from core.draws import Draws

# Chunks of replicates are sized so one chunk's count matrix stays under this many bytes ...
CHUNK_BYTES = 128 * 2**20
# ... and so the light rows of one chunk (the bins of one bincount) fit in a CPU cache: random
# increments into a table larger than the cache are several times slower.
CACHE_BINS = 2**17
# A pattern with at least this many items is drawn by the multinomial (one binomial per pattern
# and replicate, about 90 ns); rarer patterns by drawing row indices (a few ns per item). Time
# on the VTAB-sized benchmark is flat between 16 and 64. This only chooses between two exact
# samplers of the same multinomial (see _draw_counts).
HEAVY_PATTERN = 24

NOTE_MISSING = (
    "Missing results (no score for a model on a task) are left out of means (nan-mean over the "
    "tasks a model has)."
)
NOTE_INDEPENDENT = (
    "Task-level binomial bootstrap: each model is resampled independently, so the correlation "
    "between models evaluated on the same items is ignored; intervals for differences and ranks "
    "can be too wide (or too narrow). Item-level data gives paired intervals."
)
NOTE_NORMAL = (
    "Normal approximation: draws are N(estimate, se^2), independent across models and tasks."
)


def bootstrap(bench: Benchmark, reps: int = 2000, seed: int = 0) -> Draws:
    """Bootstrap draws for ``bench``, engine chosen by ``bench.kind`` (METHODS 2)."""
    if bench.kind == "counts":
        return binomial_bootstrap(bench, reps=reps, seed=seed)
    if bench.kind == "items":
        return paired_bootstrap(bench, reps=reps, seed=seed)
    return normal_draws(bench, reps=reps, seed=seed)


def _check_reps(reps: int) -> int:
    if int(reps) != reps or reps < 1:
        raise DataError(
            f"the number of bootstrap replicates must be a whole number >= 1, got {reps!r}.",
            hint="use for example 2000 replicates (at least 1000 for 95% intervals).",
        )
    return int(reps)


def _canonical(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(order, inverse): ``order`` sorts ``names``; ``x_canon[inverse]`` restores given order."""
    order = np.argsort(np.array(names, dtype=object), kind="stable")
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return order, inverse


def _draws(
    bench: Benchmark, values: np.ndarray, method: str, paired: bool, seed: int, notes: list[str]
) -> Draws:
    """Wrap values as Draws; ``notes`` are the method's caveats (provenance stays on the bench)."""
    if np.isnan(bench.estimate).any():
        notes.append(NOTE_MISSING)
    return Draws(
        values=values,
        observed=np.array(bench.estimate, dtype=float),
        models=bench.models,
        tasks=bench.tasks,
        categories=bench.categories,
        higher_is_better=np.array(bench.higher_is_better, dtype=bool),
        method=method,
        paired=paired,
        seed=seed,
        notes=tuple(notes),
    )


def binomial_bootstrap(bench: Benchmark, reps: int = 2000, seed: int = 0) -> Draws:
    """Task-level bootstrap ``k*_ij ~ Binomial(n_ij, k_ij / n_ij)``, independent (METHODS 2).

    For one model this equals resampling its items; models are treated as independent
    (``paired=False``). Draws are proportions ``k* / n``; missing cells stay ``nan``.
    """
    reps = _check_reps(reps)
    if bench.n is None or bench.correct is None:
        raise DataError("the task-level bootstrap needs counts n and correct.", column="n")
    om, im = _canonical(bench.models)
    ot, it = _canonical(bench.tasks)
    n = bench.n[np.ix_(om, ot)]
    p = np.where(n > 0, bench.correct[np.ix_(om, ot)] / np.maximum(n, 1), 0.0)
    rng = np.random.default_rng(seed)
    k = rng.binomial(n, p, size=(reps, *n.shape))[:, im[:, None], it[None, :]]
    with np.errstate(invalid="ignore", divide="ignore"):
        values = k / bench.n  # 0 / 0 = nan where a result is missing
    return _draws(bench, values, "bootstrap: task-level binomial", False, seed, [NOTE_INDEPENDENT])


def normal_draws(bench: Benchmark, reps: int = 2000, seed: int = 0) -> Draws:
    """Draws ``N(estimate_ij, se_ij^2)``, independent per model and task (METHODS 2)."""
    reps = _check_reps(reps)
    if bench.se is None:
        raise DataError("normal draws need standard errors.", column="se")
    om, im = _canonical(bench.models)
    ot, it = _canonical(bench.tasks)
    est = bench.estimate[np.ix_(om, ot)]
    se = np.where(np.isnan(est), 0.0, bench.se[np.ix_(om, ot)])
    rng = np.random.default_rng(seed)
    values = est + se * rng.standard_normal((reps, *est.shape))
    values = values[:, im[:, None], it[None, :]]
    return _draws(bench, values, "normal approximation: estimate ± se", False, seed, [NOTE_NORMAL])


class _Units:
    """The resampling units of one task: values ``V`` and answered counts ``A`` per unit row.

    A replicate draws row counts ``N ~ Multinomial(n_draw, weights / n_draw)`` and gives each
    model ``(N @ V) / (N @ A)``: correct / answered for binary patterns, a weighted mean otherwise.
    Rows are ordered heavy first (``weights >= HEAVY_PATTERN``), then the light rows by weight
    class (all rows of weight 1, then of weight 2, ...), each part in order of first appearance,
    which does not depend on the order of the models.
    """

    def __init__(self, V: np.ndarray, A: np.ndarray, weights: np.ndarray):
        cls = np.where(weights >= HEAVY_PATTERN, 0, weights)
        order = np.argsort(cls, kind="stable")
        self.weights = weights[order]
        self.V = V[order]  # (U, M) per-row sum of scores (0 where missing)
        self.A = A[order]  # (U, M) per-row number of answered items
        # one answered count for all models (no missing scores): den = N @ A[:, 0]
        self.A_shared = bool(np.all(self.A == self.A[:, :1]))
        self.heavy = int(np.sum(self.weights >= HEAVY_PATTERN))
        light = self.weights[self.heavy :]
        bounds = np.flatnonzero(np.diff(light)) + 1
        starts = np.concatenate([[0], bounds]) + self.heavy if light.size else np.array([], int)
        sizes = np.diff(np.append(starts, len(self.weights)))
        # light classes: (first row, number of rows, items per row)
        self.classes = [
            (int(a), int(z), float(self.weights[a])) for a, z in zip(starts, sizes, strict=True)
        ]
        self.n_light = int(light.sum())
        self.n_draw = int(weights.sum())


def _first_appearance(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first index, row id of each entry, counts) of the distinct rows of ``keys`` (1-D or 2-D),
    with ids numbered in order of first appearance."""
    _, first, inv, counts = np.unique(
        keys,
        axis=0 if keys.ndim == 2 else None,
        return_index=True,
        return_inverse=True,
        return_counts=True,
    )
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return first[order], rank[inv.ravel()], counts[order]


def _units(task: ItemTask) -> _Units:
    """Patterns (binary, no clusters), clusters, or items (continuous) of one task (METHODS 2)."""
    scores = np.asarray(task.scores, dtype=float)
    M, n = scores.shape
    answered = ~np.isnan(scores)
    vals = np.where(answered, scores, 0.0)
    if task.cluster is not None:
        _, cid, _ = _first_appearance(np.array(task.cluster, dtype=str))
        G = int(cid.max()) + 1
        V = np.zeros((G, M))
        A = np.zeros((G, M))
        np.add.at(V, cid, vals.T)
        np.add.at(A, cid, answered.T.astype(float))
        return _Units(V, A, np.ones(G))
    if task.binary:
        state = (answered.astype(np.int8) + (vals == 1)).T  # 0 missing, 1 wrong, 2 right
        if M <= 39:  # a base-3 code fits in int64 and sorts much faster than rows
            keys = state.astype(np.int64) @ (3 ** np.arange(M, dtype=np.int64))
        else:
            keys = np.ascontiguousarray(state)
        first, _, counts = _first_appearance(keys)
        return _Units(
            vals[:, first].T.astype(np.float32),  # 0/1 sums stay exact in float32 (< 2**24)
            answered[:, first].T.astype(np.float32),
            counts.astype(float),
        )
    return _Units(vals.T.copy(), answered.T.astype(float), np.ones(n))


def _draw_counts(units: _Units, N: np.ndarray, rng: np.random.Generator) -> None:
    """Fill ``N`` ``(reps, U)`` with row counts ``~ Multinomial(n_draw, weights / n_draw)``.

    Exact, in two stages: one multinomial over the heavy rows (weight >= ``HEAVY_PATTERN``) and
    one bucket per light weight class (mass = weight x rows); each bucket's count is then spread
    uniformly over the rows of its class (they all have the same weight) by drawing row indices.
    This is the same multinomial, only cheaper when patterns are many and small. Light counts are
    tallied a few replicates at a time so the tally fits in a CPU cache (``CACHE_BINS``).
    """
    reps = N.shape[0]
    H = units.heavy
    mass = [w * size for _, size, w in units.classes]
    probs = np.concatenate([units.weights[:H], mass]) / units.n_draw
    first = rng.multinomial(units.n_draw, probs / probs.sum(), size=reps)
    N[:, :H] = first[:, :H]
    for c, (row0, size, _) in enumerate(units.classes):
        L = first[:, H + c]
        if size == 1:
            N[:, row0] = L
            continue
        step = max(1, CACHE_BINS // size)
        for start in range(0, reps, step):
            Ls = L[start : start + step]
            slot = np.repeat(np.arange(len(Ls), dtype=np.int64) * size, Ls)
            slot += rng.integers(0, size, size=len(slot), dtype=np.int32)
            tally = np.bincount(slot, minlength=len(Ls) * size)
            N[start : start + len(Ls), row0 : row0 + size] = tally.reshape(len(Ls), size)


def _task_draws(units: _Units, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``(reps, M)`` replicate means of one task, in chunks of replicates (memory bound)."""
    U, M = units.V.shape
    chunk = max(1, min(reps, CHUNK_BYTES // (8 * 4 * max(U, units.n_light, 1))))
    out = np.empty((reps, M))
    N = np.empty((chunk, U), dtype=units.V.dtype)
    for start in range(0, reps, chunk):
        stop = min(reps, start + chunk)
        n = N[: stop - start]
        _draw_counts(units, n, rng)
        num = (n @ units.V).astype(float)
        den = (n @ units.A[:, :1] if units.A_shared else n @ units.A).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:stop] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


def paired_bootstrap(bench: Benchmark, reps: int = 2000, seed: int = 0) -> Draws:
    """Item-level paired bootstrap (METHODS 2): one resample of items per task, all models.

    - binary scores: items grouped by their pattern over models (missing is its own state);
      ``Multinomial(n_j, c_u / n_j)`` over patterns; a model's task score is correct / answered
      in that replicate;
    - continuous scores: multinomial counts over items, then weighted means (over answered items);
    - a task with a cluster column: ``Multinomial(G_j, 1/G_j)`` over its ``G_j`` clusters, each
      cluster with all its items [M24]; a model's score is the item-weighted mean.

    A replicate in which a model answered none of the drawn items of a task is ``nan`` there.
    """
    reps = _check_reps(reps)
    if bench.item_tasks is None:
        raise DataError("the paired bootstrap needs item-level scores.", column="score")
    rng = np.random.default_rng(seed)
    M, T = bench.shape
    values = np.empty((reps, M, T))
    order, _ = _canonical(bench.tasks)
    clustered = False
    # many small products: BLAS threads cost more CPU than they save (benchmarks/bench_bootstrap)
    with threadpool_limits(limits=1, user_api="blas"):
        for j in order:
            task = bench.item_tasks[j]
            clustered |= task.cluster is not None
            if task.scores.shape[1] == 0:  # a task without items has no score
                values[:, :, j] = np.nan
                continue
            values[:, :, j] = _task_draws(_units(task), reps, rng)
    method = "bootstrap: item-level paired" + (", clustered" if clustered else "")
    notes = []
    if clustered:
        notes.append("Clusters (items sharing a cluster id) are resampled whole within each task.")
    return _draws(bench, values, method, True, seed, notes)
