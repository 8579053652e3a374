"""Bootstrap draws of per-task performance (METHODS sections 1-2, [LGC 2.1], [M24]).

:func:`bootstrap` picks the engine from the data kind and returns :class:`core.draws.Draws` of
shape ``(R, M, T)``:

- ``"counts"`` -> :func:`confidence_draws` (task level, models independent; mid-p
  Clopper–Pearson confidence draws with the pseudo-count pooled over a model's tasks, METHODS 2:
  coverage >= 0.93 on the grid of ``benchmarks/bench_inference.py``); :func:`binomial_bootstrap`
  (the plug-in binomial of [LGC]) stays available;
- ``"items"`` -> :func:`paired_bootstrap` (item level, paired; pattern-compressed for binary
  scores; clusters resampled whole when a task has a cluster column). The multinomial counts
  over patterns are drawn exactly by Poissonisation with lookup-table Poisson draws and an
  index-draw top-up (:func:`_draw_counts`);
- ``"estimate_se"`` -> :func:`normal_draws` (normal approximation).

Reproducibility: every engine draws from ``numpy.random.default_rng(seed)``. Random numbers are
generated in a canonical order (models and tasks sorted by name; binary item patterns in the order
of their packed key over the models in name order, which depends on neither the item nor the model
order; clusters and continuous items in order of first appearance), so reordering the models or
tasks of a benchmark reorders the draws and changes nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from benchuq.core.budget import checkpoint
from benchuq.core.data import MISSING, Benchmark, DataError, ItemTask
from benchuq.core.defaults import REPS, SEED
from benchuq.core.draws import Draws
from benchuq.core.reading.answers import answer_counts
from benchuq.core.small_samples import FEW_ITEMS, cell_items, few_items_note, unit_scores
from benchuq.core.threads import blas_policy
from benchuq.core.validation import InvalidArgument
from benchuq.core.zero_spread import given_se_note

__all__ = [
    "CHUNK_CELLS",
    "NOTE_INDEPENDENT",
    "NOTE_ITEMS",
    "NOTE_MISSING",
    "NOTE_NORMAL",
    "NU_SHIFT",
    "SMALL_PRIOR",
    "UNPAIRED_NOTES",
    "binomial_bootstrap",
    "bootstrap",
    "confidence_draws",
    "normal_draws",
    "paired_bootstrap",
    "pattern_bootstrap",
]

# Chunks of replicates are sized so one chunk's weight matrix has at most this many cells (rows x
# replicates): the passes over it then mostly hit the CPU cache.
CHUNK_CELLS = 2**20
# Item-level draws (METHODS 2): a task of n items (or clusters) gives its units Dirichlet
# concentrations summing to nu = max(n - NU_SHIFT, 1), as the counts path's nu.
NU_SHIFT = 3.0
# Small tasks (METHODS 2): a task of n < FEW_ITEMS items (or clusters) gets a second pseudo-unit
# of weight SMALL_PRIOR (1/n - 1/FEW_ITEMS) whose value is a Bernoulli draw at the model's pooled
# accuracy (itself a mid-p confidence draw over all the model's items), so one- and two-item
# tasks borrow the spread they cannot show; 0 from FEW_ITEMS items on.
SMALL_PRIOR = 2.0

NOTE_MISSING = (
    "Missing results (no score for a model on a task) are left out of means (nan-mean over the "
    "tasks a model has)."
)
NOTE_INDEPENDENT = (
    "Task-level binomial bootstrap: each model is resampled independently, so the correlation "
    "between models evaluated on the same items is ignored; intervals for differences and ranks "
    "can be too wide (or too narrow). Item-level data gives paired intervals."
)
NOTE_CONFIDENCE = (
    "Task-level resampling: each model's score on each task is resampled independently from its "
    "count of right answers (METHODS 2), so the correlation between models evaluated on the same "
    "items is ignored; intervals for differences and ranks can be too wide (or too narrow). "
    "Item-level data gives paired intervals."
)
#: the notes of resampling each model on its own (the Leaderboard shows the one in use up top)
UNPAIRED_NOTES = (NOTE_INDEPENDENT, NOTE_CONFIDENCE)
NOTE_ITEMS = (
    "Item-level paired resampling: each replicate weights the items of every task at random, the "
    "same way for all models, plus one pseudo-item at the score's ends (METHODS 2), so no "
    "interval has zero width, even at 0%, 100% or one item."
)
NOTE_NORMAL = (
    "Normal approximation: each replicate adds a normal error of the given standard error to "
    "every score, independently across models and tasks."
)


def bootstrap(bench: Benchmark, *, reps: int = REPS, seed: int = SEED) -> Draws:
    """Bootstrap draws for ``bench``, engine chosen by ``bench.kind`` (METHODS 2)."""
    if bench.kind == "counts":
        return confidence_draws(bench, reps=reps, seed=seed)
    if bench.kind == "items":
        return paired_bootstrap(bench, reps=reps, seed=seed)
    return normal_draws(bench, reps=reps, seed=seed)


def _check_reps(reps: int) -> int:
    if int(reps) != reps or reps < 1:
        raise InvalidArgument(
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
        items=cell_items(bench),
        data=bench.name,
        counts=answer_counts(bench),
        units=unit_scores(bench),
        binary=_binary_tasks(bench),
    )


def _binary_tasks(bench: Benchmark) -> np.ndarray | None:
    """``(T,)`` tasks whose scores are right/wrong, one answer per item, no clusters: their
    cells' intervals take the exact rule (METHODS 2f)."""
    if bench.kind == "counts":
        return np.ones(len(bench.tasks), dtype=bool)
    if bench.item_tasks is None:
        return None
    return np.array(
        [
            t.state is not None
            and t.cluster is None
            and bool(np.all(np.asarray(t.n_answers()) == np.asarray(t.answered)))
            for t in bench.item_tasks
        ],
        dtype=bool,
    )


def binomial_bootstrap(bench: Benchmark, *, reps: int = REPS, seed: int = SEED) -> Draws:
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
    # one call per cell (in canonical order): numpy keeps the binomial sampler's setup between
    # draws with the same n and p, about 1.7x faster than one call over all cells
    k = np.empty((*n.shape, reps), dtype=np.int64)
    for a, b in np.ndindex(n.shape):
        k[a, b] = rng.binomial(n[a, b], p[a, b], size=reps)
    k = k[im][:, it].transpose(2, 0, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.divide(k, bench.n, out=np.empty(k.shape))  # 0 / 0 = nan where missing
    return _draws(bench, values, "bootstrap: task-level binomial", False, seed, [NOTE_INDEPENDENT])


def _small_weight(n: np.ndarray | float) -> np.ndarray:
    """Weight of the small-task pseudo-unit for ``n`` items or clusters (0 at ``n = 0``)."""
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(n > 0, SMALL_PRIOR * np.maximum(1.0 / n - 1.0 / FEW_ITEMS, 0.0), 0.0)


def _pooled_draws(
    correct: np.ndarray, n: np.ndarray, reps: int, rng: np.random.Generator
) -> np.ndarray:
    """``(reps, M)`` mid-p confidence draws of each model's pooled accuracy ``correct / n``
    (``nu = max(n - 3, 1)``, one pseudo-item), the value of the small-task pseudo-unit."""
    p = correct / np.maximum(n, 1.0)
    nu = np.maximum(n - NU_SHIFT, 1.0)
    up = rng.random((reps, len(n))) < 0.5
    return _beta_or_point(nu * p + up, nu * (1.0 - p) + ~up, rng)


def _beta_or_point(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``Beta(a, b)`` draws, elementwise; ``a = 0`` is a point mass at 0, ``b = 0`` at 1."""
    x = rng.beta(np.maximum(a, 1e-300), np.maximum(b, 1e-300))
    return np.where(a <= 0, 0.0, np.where(b <= 0, 1.0, x))


def confidence_draws(bench: Benchmark, *, reps: int = REPS, seed: int = SEED) -> Draws:
    """Task-level draws from a mid-p Clopper–Pearson confidence distribution (METHODS 2).

    Per model i and task j with ``k`` of ``n`` correct (``p = k / n``): with probability 1/2 a
    draw from ``Beta(nu p + w, nu (1 - p))``, else from ``Beta(nu p, nu (1 - p) + w)``, with
    ``nu = max(n - 3, 1)`` and ``w = n_ij / sum_j n_ij`` (the task's share of the model's items;
    a shape of 0 is a point mass at 0 or 1). With ``nu = n`` and ``w = 1`` this is the mid-p
    confidence distribution: the average of the two Beta laws whose quantiles are the
    Clopper–Pearson limits.

    **Choice** (METHODS 2, coverage grid in ``benchmarks/bench_inference.py``):

    - the pseudo-count ``w`` is split over the model's tasks, so the overall mean is moved by about
      one item in total, like one pooled interval; a per-task prior (Jeffreys'
      ``Beta(k + 1/2, n - k + 1/2)``) moves every task by half an item towards 1/2 and covered the
      mean of 20 tasks at 99.9% accuracy in 0% of simulated data sets;
    - ``nu = n - 3`` widens each task slightly: the plug-in spread ``p (1 - p) / n`` is too small by
      ``(n - 1) / n`` (it shows over many tasks), and with one task the mid-p interval at
      ``nu = n`` dips to 0.92 coverage near 97-99% accuracy; at ``nu = n - 3`` the exact
      single-task coverage at R = 2000 is >= 0.942 for every n in 1-1000 and accuracy in
      0.5-0.999 (METHODS 2c);
    - the pseudo-item's side is one draw per model and replicate, shared by its tasks (one item
      split over the tasks; drawn per task, the parts averaged out and 5 tasks of 100 items at
      99% were covered in 0.928 of data sets);
    - never a zero-width interval: a task with ``k = 0`` or ``k = n`` still varies; draws stay
      in [0, 1]. Models are independent (``paired=False``). A note names models whose result
      rests on fewer than 30 items.
    """
    reps = _check_reps(reps)
    if bench.n is None or bench.correct is None:
        raise DataError("the task-level draws need counts n and correct.", column="n")
    om, im = _canonical(bench.models)
    ot, it = _canonical(bench.tasks)
    n = np.asarray(bench.n, dtype=float)[np.ix_(om, ot)]
    k = np.asarray(bench.correct, dtype=float)[np.ix_(om, ot)]
    has = (n > 0) & np.isfinite(n) & np.isfinite(k)
    n, k = np.where(has, n, 0.0), np.where(has, k, 0.0)
    w = n / np.maximum(n.sum(axis=1, keepdims=True), 1.0)
    p = k / np.maximum(n, 1.0)
    nu = np.maximum(n - 3.0, 1.0)
    rng = np.random.default_rng(seed)
    # the pseudo-item is one item split over the model's tasks: one value (0 or 1) per model and
    # replicate, shared by its tasks (METHODS 2)
    up = rng.random((reps, n.shape[0], 1)) < 0.5
    vals = _beta_or_point(nu * p + up * w, nu * (1.0 - p) + ~up * w, rng)
    small = _small_weight(n) * has
    if small.any():  # Beta(a, b) x Gamma(a + b) is Gamma(a): add the pseudo-unit exactly
        pooled = _pooled_draws(k.sum(axis=1), n.sum(axis=1), reps, rng)  # (reps, M)
        total = rng.standard_gamma(np.maximum(nu + w, 1e-300), size=vals.shape)
        g = rng.standard_gamma(np.maximum(small, 1e-300), size=vals.shape) * (small > 0)
        v = rng.random(vals.shape) < pooled[:, :, None]
        vals = (total * vals + g * v) / (total + g)
    vals[:, ~has] = np.nan
    values = vals[:, im][:, :, it]
    notes = [NOTE_CONFIDENCE, *_few_items(bench)]
    method = "task-level confidence draws (mid-p Clopper–Pearson, pooled)"
    return _draws(bench, values, method, False, seed, notes)


def normal_draws(bench: Benchmark, *, reps: int = REPS, seed: int = SEED) -> Draws:
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
    note = given_se_note(bench)  # METHODS 2g
    notes = [NOTE_NORMAL] + ([] if note is None else [note])
    return _draws(bench, values, "normal approximation: estimate ± se", False, seed, notes)


class _Units:
    """The resampling units of one task: values ``V`` and answered counts ``A`` per unit row.

    A replicate gives the rows Dirichlet weights with concentrations ``alpha`` (``c_u nu / n``:
    ``c_u`` the row's items, or 1 a cluster; ``n`` the task's items or clusters; ``nu = max(n - 3,
    1)``) plus one pseudo-unit (METHODS 2), and each model the ratio ``(G @ V) / (G @ A)`` of the
    gamma-weighted sums: correct / answered for binary patterns, a weighted mean otherwise. The
    pseudo-unit holds ``size`` items, answered by every model, with a value drawn per model and
    replicate from ``{low, high}`` with probability 1/2 each.
    """

    def __init__(
        self, V: np.ndarray, A: np.ndarray, weights: np.ndarray, low: float, high: float
    ) -> None:
        self.V = np.asarray(V, dtype=float)  # (U, M) per-row sum of scores (0 where missing)
        self.A = np.asarray(A, dtype=float)  # (U, M) per-row number of answered items
        self.weights = np.asarray(weights, dtype=float)  # (U,) items (or 1 a cluster) per row
        n = float(self.weights.sum())
        self.small = float(_small_weight(n))  # weight of the small-task pseudo-unit
        self.alpha = self.weights * max(n - NU_SHIFT, 1.0) / n
        self.items = float(self.weights @ self.A.max(axis=1))  # the task's items
        self.size = self.items / n  # items per unit: 1, or a cluster's mean size
        self.low, self.high = float(low), float(high)
        # one answered count for all models (no missing scores): den = G @ A[:, 0]
        self.A_shared = bool(np.all(self.A == self.A[:, :1]))


def _score_range(scores: np.ndarray) -> tuple[float, float]:
    """The pseudo-unit's two values: 0 and 1 when every score lies in [0, 1] (right/wrong, F1,
    rates), else the task's observed minimum and maximum (METHODS 2)."""
    finite = scores[np.isfinite(scores)]
    if finite.size == 0 or (finite.min() >= 0.0 and finite.max() <= 1.0):
        return 0.0, 1.0
    return float(finite.min()), float(finite.max())


def _first_appearance(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first index, row id of each entry, counts) of the distinct values of 1-D ``keys``, with
    ids numbered in order of first appearance; linear time (a hash table, ``pandas.factorize``)."""
    ids, uniques = pd.factorize(keys)
    seen = np.maximum.accumulate(ids)
    first = np.flatnonzero(np.diff(seen, prepend=-1) > 0)  # where a new id first shows
    return first, ids, np.bincount(ids, minlength=len(uniques))


# Pattern keys: the item's scores over the models in name order, position p at bits
# [b p, b p + b) of one big number (b = 1 bit, right or wrong, when no score of the task is
# missing; else b = 2 bits: 0 wrong, 1 right, 2 missing), cut into 64-bit words (word 0 lowest).
# Patterns are ordered by that number (the order does not depend on the item or model order, and
# spreading 1-bit codes to 2 bits keeps it, so the out-of-core backends can always use 2 bits).
# continuous items: a task with more items than this has its identical rows (the same value and
# answered flag for every model, e.g. pass@k estimates, which take at most n + 1 values a model)
# merged into one unit weighted by their count: the same Dirichlet weights in distribution (a
# sum of independent gammas is a gamma), drawn over the distinct rows only. Smaller tasks keep a
# unit per item, so their draws are the ones they have always been for a given seed.
MERGE_ITEMS = 20_000
PACK_CHUNK = 2**16  # items packed at a time (the key chunk stays in cache over the models)
DIRECT_BITS = 20  # keys of at most this many bits are counted directly (np.bincount)
_KEY_DTYPES: tuple[tuple[int, type[np.unsignedinteger[Any]]], ...] = (
    (8, np.uint8),
    (16, np.uint16),
    (32, np.uint32),
    (64, np.uint64),
)


def _pack_words(state: np.ndarray, order: np.ndarray, bits: int) -> np.ndarray:
    """``(n, W)`` pattern words (the smallest unsigned type when one word is enough)."""
    M, n = state.shape
    per_word = 64 // bits
    W = -(-M // per_word)
    width = bits * M if W == 1 else 64
    dtype = next(t for size, t in _KEY_DTYPES if width <= size)
    words = np.zeros((W, n), dtype)
    for w in range(W):
        pos = range(w * per_word, min(M, (w + 1) * per_word))
        for a in range(0, n, PACK_CHUNK):
            key = words[w, a : a + PACK_CHUNK]
            for p in pos:
                code = state[order[p], a : a + PACK_CHUNK]
                if bits == 2:
                    code = np.minimum(code, 2)  # MISSING -> 2
                key |= code.astype(dtype) << dtype(bits * (p % per_word))
    return words.T


def _hash_rows(words: np.ndarray) -> np.ndarray:
    """One uint64 per row of ``words`` (splitmix64 finaliser of each word, FNV-style combine)."""
    h = np.zeros(len(words), np.uint64)
    with np.errstate(over="ignore"):
        for w in range(words.shape[1]):
            x = words[:, w] ^ np.uint64(0x9E3779B97F4A7C15 * (w + 1) % 2**64)
            x ^= x >> np.uint64(30)
            x *= np.uint64(0xBF58476D1CE4E5B9)
            x ^= x >> np.uint64(27)
            x *= np.uint64(0x94D049BB133111EB)
            x ^= x >> np.uint64(31)
            h = (h * np.uint64(0x100000001B3)) ^ x
    return h


def _distinct_words(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows of ``words`` in key order, their counts), in linear time plus the sort of
    the distinct rows: one word is its own key (counted directly when small), several are hashed
    to one key; a hash collision (two patterns, one hash) is caught and sorted out exactly."""
    W = words.shape[1]
    if W == 1:
        key = words[:, 0]
        if key.dtype.itemsize * 8 <= DIRECT_BITS or int(key.max(initial=0)) < 2**DIRECT_BITS:
            # numpy < 2 refuses uint64 indices (no safe cast to intp)
            counts = np.bincount(key.astype(np.intp, copy=False), minlength=1)
            present = np.flatnonzero(counts)
            return present.astype(np.uint64)[:, None], counts[present]
        ids, uniques = pd.factorize(key)
        order = np.argsort(uniques)
        return uniques[order].astype(np.uint64)[:, None], np.bincount(ids)[order]
    first, ids, counts = _first_appearance(_hash_rows(words))
    if np.array_equal(words, words[first[ids]]):
        uniq = words[first]
    else:
        uniq, counts = np.unique(words, axis=0, return_counts=True)
    order = np.lexsort(uniq.T)  # the last word is the most significant
    return uniq[order], counts[order]


def _patterns(state: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``(U, M)`` states of the distinct item patterns, counts), patterns in key order with
    models in ``order`` (name order) making the key; the states' columns follow ``state``'s rows."""
    bits = 2 if bool(np.any(state == MISSING)) else 1
    uniq, counts = _distinct_words(_pack_words(state, order, bits))
    return _decode(uniq, order, bits), counts


def _decode(words: np.ndarray, order: np.ndarray, bits: int) -> np.ndarray:
    """``(U, M)`` uint8 states (0, 1, :data:`MISSING`) of pattern words; column ``order[p]`` is
    position p."""
    per_word = 64 // bits
    cols = np.ascontiguousarray(words.T)  # (W, U): one word of every pattern at a time
    out = np.empty((len(order), len(words)), np.uint8)  # (M, U), transposed on return
    for p, i in enumerate(order):
        w, shift = divmod(p, per_word)
        code = ((cols[w] >> np.uint64(bits * shift)) & np.uint64(2**bits - 1)).astype(np.uint8)
        out[i] = np.where(code == 2, MISSING, code)
    return out.T


def _pattern_units(states: np.ndarray, counts: np.ndarray) -> _Units:
    """Units of distinct binary patterns ``(U, M)`` with their item counts."""
    return _Units(states == 1, states != MISSING, counts, 0.0, 1.0)


def _units(task: ItemTask, order: np.ndarray | None = None) -> _Units | None:
    """Patterns (binary, no clusters), clusters, or items (continuous) of one task (METHODS 2);
    ``order`` (models in name order) makes the pattern keys. ``None`` for a task without items."""
    M, n = task.shape
    if n == 0:
        return None
    if task.cluster is not None:
        scores = task.scores
        answered = ~np.isnan(scores)
        vals = np.where(answered, scores, 0.0)
        codes = task.cluster.codes
        _, cid, _ = _first_appearance(np.arange(n) if codes is None else codes)  # None: distinct
        G = int(cid.max()) + 1
        V = np.zeros((G, M))
        A = np.zeros((G, M))
        np.add.at(V, cid, vals.T)
        np.add.at(A, cid, answered.T.astype(float))
        return _Units(V, A, np.ones(G), *_score_range(scores))
    if task.state is not None:  # binary
        return _pattern_units(*_patterns(task.state, np.arange(M) if order is None else order))
    vals = np.asarray(task.values, dtype=float).T
    answered = ~np.isnan(vals)
    low, high = _score_range(vals)
    V, A = np.where(answered, vals, 0.0), answered.astype(float)
    if n > MERGE_ITEMS:
        rows, counts = np.unique(np.hstack([V, A]), axis=0, return_counts=True)
        if len(rows) <= n // 2:
            return _Units(rows[:, :M], rows[:, M:], counts, low, high)
    return _Units(V, A, np.ones(n), low, high)


def _task_draws(
    units: _Units, w: float, pooled: np.ndarray, up: np.ndarray, rng: np.random.Generator,
    inverse: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """``(reps, M)`` draws of one task's model means (METHODS 2), in chunks of replicates.

    Per replicate: gamma weights ``G_u ~ Gamma(alpha_u)`` for the units and ``g ~ Gamma(w)`` for
    the pseudo-unit (normalised, a Dirichlet draw: every model sees the same weights, so the
    draws are paired), the pseudo-unit's value per model ``high`` where ``up`` ``(reps, M)`` (one
    value per model and replicate, shared by its tasks, probability 1/2), else ``low``; a model's
    draw is its weighted mean over the units it answered and the pseudo-unit.
    A small task adds the second pseudo-unit, valued ``high`` with the probability ``pooled``
    ``(reps, M)`` (the models' pooled accuracy draws), else ``low``. Per-model random numbers
    are drawn in model-name order (``inverse`` maps them to the given order).
    """
    U, M = units.V.shape
    reps = len(pooled)
    chunk = max(1, min(reps, CHUNK_CELLS // max(U, 1)))
    out = np.empty((reps, M))
    for start in range(0, reps, chunk):
        checkpoint("the bootstrap")  # the session that asked may have closed (core.budget)
        stop = min(reps, start + chunk)
        G = rng.standard_gamma(units.alpha, size=(stop - start, U))
        g = rng.standard_gamma(w, size=(stop - start, 1)) * units.size
        pseudo = np.where(up[start:stop], units.high, units.low)
        num = G @ units.V + g * pseudo
        den = (G @ units.A[:, :1] if units.A_shared else G @ units.A) + g
        if units.small > 0:
            g2 = rng.standard_gamma(units.small, size=(stop - start, 1)) * units.size
            hit = rng.random((stop - start, M))[:, inverse] < pooled[start:stop]
            num = num + g2 * np.where(hit, units.high, units.low)
            den = den + g2
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:stop] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


@blas_policy
def paired_bootstrap(bench: Benchmark, *, reps: int = REPS, seed: int = SEED) -> Draws:
    """Item-level paired draws (METHODS 2): one Dirichlet weighting of the items per task and
    replicate, shared by all models, plus a pseudo-item that keeps every interval open.

    - binary scores: items grouped by their pattern over models (missing is its own state); a
      pattern of ``c`` items gets ``Gamma(c nu / n)`` (``nu = max(n - 3, 1)``); a model's task
      score is its weighted share correct over the items it answered;
    - continuous scores: the same with one unit per item (weighted means);
    - a task with a cluster column: one unit per cluster (all its items) [M24], ``n`` = clusters;
    - the pseudo-item: weight ``Gamma(w_j)``, ``w_j`` the task's share of the benchmark's items
      (one item's worth of prior over the whole benchmark), valued 0 or 1 (the score's ends)
      with probability 1/2 independently per model; for one model this is exactly the counts
      path's mid-p Clopper–Pearson draw, so all-correct, all-wrong and one-item tasks get honest
      width.

    A replicate in which a model answered no item of a task is ``nan`` there.
    """
    reps = _check_reps(reps)
    if bench.item_tasks is None:
        raise DataError("the paired bootstrap needs item-level scores.", column="score")
    om, _ = _canonical(bench.models)
    tasks = bench.item_tasks
    clustered = any(task.cluster is not None for task in tasks)
    sizes = np.array([task.shape[1] for task in tasks], dtype=float)
    pooled = _pooled_shares(tasks)
    values = _paired_values(bench, reps, seed, lambda j: _units(tasks[j], om), sizes, pooled)
    method = "bootstrap: item-level paired" + (", clustered" if clustered else "")
    notes = [NOTE_ITEMS]
    if clustered:
        notes.append("Clusters (items sharing a cluster id) are resampled whole within each task.")
    return _draws(bench, values, method, True, seed, notes + _few_items(bench))


def _few_items(bench: Benchmark) -> list[str]:
    """The note naming models whose result rests on fewer than :data:`FEW_ITEMS` items."""
    cells = cell_items(bench)
    note = None if cells is None else few_items_note(bench.models, cells.sum(axis=1))
    return [] if note is None else [note]


def _paired_values(
    bench: Benchmark,
    reps: int,
    seed: int,
    units_of: Callable[[int], _Units | None],
    sizes: np.ndarray,
    pooled: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """``(reps, M, T)`` paired draws, tasks in name order from one stream (``None`` units: a
    task without items, ``nan``); a task's pseudo-unit weight is its share of the ``sizes``
    (items per task); ``pooled`` = (score sums on [0, 1], answered items) per model, over tasks,
    for the small-task pseudo-unit (drawn first, in model-name order)."""
    rng = np.random.default_rng(seed)
    om, im = _canonical(bench.models)
    values = np.empty((reps, *bench.shape))
    shares = sizes / max(float(sizes.sum()), 1.0)
    accuracy = _pooled_draws(pooled[0][om], pooled[1][om], reps, rng)[:, im]
    up = (rng.random((reps, len(om))) < 0.5)[:, im]  # the pseudo-item's value, shared by tasks
    order, _ = _canonical(bench.tasks)
    for j in order:
        u = units_of(int(j))
        values[:, :, j] = (
            np.nan if u is None else _task_draws(u, float(shares[j]), accuracy, up, rng, im)
        )
    return values


def _pooled_shares(tasks: Sequence[ItemTask]) -> tuple[np.ndarray, np.ndarray]:
    """(sums, answered) ``(M,)`` of each model's scores over all tasks, each task's scores
    rescaled to [0, 1] by its pseudo-unit's ``low`` and ``high`` (right/wrong: correct items)."""
    sums = np.zeros(tasks[0].shape[0])
    answered = np.zeros_like(sums)
    for task in tasks:
        a = task.answered.astype(float)
        s = task.sums()
        if task.state is None:
            low, high = _score_range(np.asarray(task.values, dtype=float))
            s = (s - low * a) / (high - low) if high > low else 0.5 * a
        sums += s
        answered += a
    return sums, answered


@blas_policy
def pattern_bootstrap(
    bench: Benchmark,
    patterns: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    reps: int = REPS,
    seed: int = SEED,
) -> Draws:
    """The item-level paired bootstrap of binary scores from compressed counts (METHODS 2):
    per task ``(states, counts)``, the ``(U, M)`` uint8 states (0, 1, :data:`MISSING`; columns
    in ``bench.models`` order) of its distinct item patterns in key order (see
    :func:`_patterns`) and how many items have each. The same draws as :func:`paired_bootstrap`
    of the items themselves for the same seed; out-of-core backends aggregate to this."""
    reps = _check_reps(reps)

    def units_of(j: int) -> _Units | None:
        states, counts = patterns[j]
        return _pattern_units(states, counts) if len(counts) else None

    sizes = np.array([float(np.sum(counts)) for _, counts in patterns])
    right = sum(((s == 1).T @ c for s, c in patterns if len(c)), np.zeros(len(bench.models)))
    answered = sum(((s != MISSING).T @ c for s, c in patterns if len(c)), np.zeros_like(right))
    values = _paired_values(bench, reps, seed, units_of, sizes, (right, answered))
    notes = [NOTE_ITEMS, *_few_items(bench)]
    draws = _draws(bench, values, "bootstrap: item-level paired", True, seed, notes)
    return replace(draws, binary=np.ones(len(bench.tasks), dtype=bool))  # right/wrong patterns
