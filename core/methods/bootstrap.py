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
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from benchuq.core.budget import checkpoint
from benchuq.core.data import MISSING, Benchmark, DataError, ItemTask
from benchuq.core.defaults import REPS, SEED
from benchuq.core.draws import Draws
from benchuq.core.reading.answers import answer_counts
from benchuq.core.threads import blas_policy
from benchuq.core.validation import InvalidArgument

__all__ = [
    "AMBIGUOUS",
    "CHUNK_CELLS",
    "NOTE_INDEPENDENT",
    "NOTE_MISSING",
    "NOTE_NORMAL",
    "POISSON_Z",
    "TABLE_BITS",
    "TABLE_MAX_WEIGHT",
    "binomial_bootstrap",
    "bootstrap",
    "confidence_draws",
    "normal_draws",
    "paired_bootstrap",
    "pattern_bootstrap",
]

# Chunks of replicates are sized so one chunk's count matrix has at most this many cells (rows x
# replicates): the passes over it then mostly hit the CPU cache (fastest between 2**19 and 2**20
# on the VTAB-sized benchmark; benchmarks/bench_bootstrap.py).
CHUNK_CELLS = 2**20
# Poissonisation (see _draw_counts): the Poisson total of a replicate has mean theta x n with
# theta = 1 - POISSON_Z / sqrt(n), so it exceeds the n items (and is redrawn) with probability
# about Phi(-POISSON_Z), and about POISSON_Z sqrt(n) items are topped up by index draws.
POISSON_Z = 2.5
# Rows (patterns, clusters or items) of weight up to this draw their Poisson counts from a
# lookup table indexed by 16 random bits; heavier rows use Generator.poisson.
TABLE_MAX_WEIGHT = 32
TABLE_BITS = 16
AMBIGUOUS = 255  # table entry of a 16-bit bin that contains a jump of the Poisson CDF

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
    "Task-level confidence draws: each model is drawn independently from a mid-p "
    "Clopper–Pearson confidence distribution per task (METHODS 2), so the correlation between "
    "models evaluated on the same items is ignored; intervals for differences and ranks can be "
    "too wide (or too narrow). Item-level data gives paired intervals."
)
FEW_ITEMS = 30
NOTE_NORMAL = (
    "Normal approximation: draws are N(estimate, se^2), independent across models and tasks."
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
        data=bench.name,
        counts=answer_counts(bench),
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
      ``nu = n`` dips to 0.92 coverage near 97-99% accuracy; at ``nu = n - 3`` the single-task
      coverage is >= 0.934 for every n in 10-1000 and accuracy in 0.5-0.999;
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
    up = rng.random((reps, *n.shape)) < 0.5
    vals = _beta_or_point(nu * p + up * w, nu * (1.0 - p) + ~up * w, rng)
    vals[:, ~has] = np.nan
    values = vals[:, im][:, :, it]
    notes = [NOTE_CONFIDENCE]
    totals = np.nansum(np.asarray(bench.n, dtype=float), axis=1)
    few = [m for m, t in zip(bench.models, totals, strict=True) if t < FEW_ITEMS]
    if few:
        notes.append(
            f"Few items: the results of {', '.join(few)} rest on fewer than {FEW_ITEMS} items; "
            "their intervals are wide."
        )
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
    return _draws(bench, values, "normal approximation: estimate ± se", False, seed, [NOTE_NORMAL])


class _Units:
    """The resampling units of one task: values ``V`` and answered counts ``A`` per unit row.

    A replicate draws row counts ``N ~ Multinomial(n_draw, weights / n_draw)`` and gives each
    model ``(N @ V) / (N @ A)``: correct / answered for binary patterns, a weighted mean otherwise.
    Rows are ordered heavy first (``weights > TABLE_MAX_WEIGHT``), then the light rows by weight
    class (all rows of weight 1, then of weight 2, ...), each part in order of first appearance,
    which does not depend on the order of the models.
    """

    def __init__(self, V: np.ndarray, A: np.ndarray, weights: np.ndarray):
        weights = np.asarray(weights).astype(np.int64)
        cls = np.where(weights > TABLE_MAX_WEIGHT, 0, weights)
        order = np.argsort(cls, kind="stable")
        self.weights = weights[order]
        self.V = V[order]  # (U, M) per-row sum of scores (0 where missing)
        self.A = A[order]  # (U, M) per-row number of answered items
        # one answered count for all models (no missing scores): den = N @ A[:, 0]
        self.A_shared = bool(np.all(self.A == self.A[:, :1]))
        self.heavy = int(np.sum(self.weights > TABLE_MAX_WEIGHT))
        self.n_draw = int(self.weights.sum())
        self.theta = _theta(self.n_draw)
        light = self.weights[self.heavy :]
        # light classes: (first row, end row, Poisson table and CDF of the class's weight)
        cuts = [*(np.flatnonzero(np.diff(light)) + 1 + self.heavy), len(self.weights)]
        starts = [self.heavy, *cuts[:-1]] if light.size else []
        self.classes = [
            (int(a), int(z), *_poisson_table(self.theta * int(self.weights[a])))
            for a, z in zip(starts, cuts, strict=False)
        ]
        self.n_light = int(light.sum())
        # row of each item (items of a row are consecutive): uniform items -> rows by weight
        self.item_row = np.repeat(np.arange(len(self.weights)), self.weights)


def _theta(n: int) -> float:
    """Poisson scale ``1 - POISSON_Z / sqrt(n)``, rounded down to 1/256 (so tasks of similar size
    share lookup tables), at least 1/2."""
    return max(0.5, np.floor((1.0 - POISSON_Z / np.sqrt(n)) * 256) / 256)


@lru_cache(maxsize=512)
def _poisson_table(lam: float) -> tuple[np.ndarray, np.ndarray]:
    """(table, cdf) for inversion sampling of Poisson(``lam``) from 16-bit bins (64 KB each).

    ``X = #{k: F_k <= u}`` for ``u ~ U(0, 1)`` (the inversion method). ``table[b]`` is ``X`` on the
    whole bin ``[b, b + 1) / 2**16`` or ``AMBIGUOUS`` when a CDF value lies inside the bin (then
    the remaining bits of ``u`` decide, see :func:`_poisson_counts`). The CDF is the cumulative
    sum of the pmf recursion ``p_k = p_(k-1) lam / k`` (as numpy's own inversion sampler), cut
    where the remaining tail is below 1e-20 (far below the 2**-53 resolution of a double).
    """
    kmax = int(np.ceil(lam + 12 * np.sqrt(lam) + 15))
    if kmax >= AMBIGUOUS:
        raise ValueError(f"Poisson mean {lam} is too large for a lookup table")
    ratio = np.concatenate([[np.exp(-lam)], lam / np.arange(1, kmax)])
    cdf = np.minimum(np.cumsum(np.cumprod(ratio)), 1.0)  # rounding may pass 1: never reached
    scaled = cdf * 2**TABLE_BITS  # exact (power-of-two scaling)
    size = 2**TABLE_BITS
    starts = np.minimum(np.ceil(scaled), size).astype(np.int64)  # first bin counting F_k
    table = np.repeat(
        np.arange(kmax + 1, dtype=np.uint8), np.diff(np.concatenate([[0], starts, [size]]))
    )
    inside = scaled != np.floor(scaled)
    table[np.floor(scaled[inside]).astype(np.int64)] = AMBIGUOUS
    table.setflags(write=False)
    cdf.setflags(write=False)
    return table, cdf


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
            counts = np.bincount(key, minlength=1)
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
    # float32 sums of whole counts are exact below 2**24 (Poisson totals stay well below 2n)
    exact = np.float32 if int(counts.sum()) < 2**23 else np.float64
    return _Units((states == 1).astype(exact), (states != MISSING).astype(exact), counts)


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
        return _Units(V, A, np.ones(G))
    if task.state is not None:  # binary
        return _pattern_units(*_patterns(task.state, np.arange(M) if order is None else order))
    vals = np.asarray(task.values, dtype=float).T
    answered = ~np.isnan(vals)
    return _Units(np.where(answered, vals, 0.0), answered.astype(float), np.ones(n))


def _poisson_counts(
    table: np.ndarray, cdf: np.ndarray, bits: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Poisson draws by inversion: the 16-bit ``bits`` pick a table bin; the few bins holding a
    jump of the CDF are resolved with a fresh uniform for the remaining bits (exact up to double
    rounding, as numpy's own inversion samplers)."""
    x = np.take(table, bits)  # np.take: about twice as fast as table[bits] here
    odd = np.flatnonzero(x == AMBIGUOUS)
    if odd.size:
        u = (bits[odd] + rng.random(odd.size)) / 2**TABLE_BITS
        x[odd] = np.searchsorted(cdf, u, side="right")
    return x


def _draw_counts(units: _Units, N: np.ndarray, rng: np.random.Generator) -> None:
    """Fill ``N`` ``(reps, U)`` with row counts ``~ Multinomial(n, weights / n)``, exactly.

    Poissonisation: draw ``X_u ~ Poisson(theta w_u)`` independently (``theta < 1``, see
    :func:`_theta`). Given their total ``t``, ``X ~ Multinomial(t, w / n)``; so if ``t <= n``,
    adding ``n - t`` items drawn uniformly (each lands in its row with probability ``w_u / n``)
    gives exactly ``Multinomial(n, w / n)``. A replicate with ``t > n`` (probability about
    ``Phi(-POISSON_Z)``) is redrawn by ``n`` uniform item draws. Mixing exact draws is exact.
    Rows of weight <= ``TABLE_MAX_WEIGHT`` draw their Poisson counts from 16-bit lookup tables
    (one 64-bit random word gives four rows), heavier rows with ``Generator.poisson``.
    """
    reps, U = N.shape
    n, H = units.n_draw, units.heavy
    if H:
        N[:, :H] = rng.poisson(units.theta * units.weights[:H], size=(reps, H))
    for row0, row1, table, cdf in units.classes:
        cells = reps * (row1 - row0)
        bits = rng.bit_generator.random_raw(-(-cells // 4)).view(np.uint16)[:cells]
        N[:, row0:row1] = _poisson_counts(table, cdf, bits, rng).reshape(reps, row1 - row0)
    short = n - N.sum(axis=1).astype(np.int64)  # whole numbers < 2**24: exact in float32
    over = np.flatnonzero(short < 0)
    for r in over:
        N[r] = np.bincount(units.item_row[rng.integers(0, n, n)], minlength=U)
    short[over] = 0
    if short.any():
        rows = units.item_row[rng.integers(0, n, int(short.sum()))]
        rows += np.repeat(np.arange(reps, dtype=np.int64) * U, short)
        np.add.at(N.reshape(-1), rows, N.dtype.type(1))  # same dtype: numpy's fast path


def _task_draws(units: _Units, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``(reps, M)`` replicate means of one task, in chunks of replicates (cache bound)."""
    U, M = units.V.shape
    chunk = max(1, min(reps, CHUNK_CELLS // max(U, 1)))
    out = np.empty((reps, M))
    N = np.empty((chunk, U), dtype=units.V.dtype)
    for start in range(0, reps, chunk):
        checkpoint("the bootstrap")  # the session that asked may have closed (core.budget)
        stop = min(reps, start + chunk)
        n = N[: stop - start]
        _draw_counts(units, n, rng)
        num = (n @ units.V).astype(float)
        den = (n @ units.A[:, :1] if units.A_shared else n @ units.A).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:stop] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


@blas_policy
def paired_bootstrap(bench: Benchmark, *, reps: int = REPS, seed: int = SEED) -> Draws:
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
    om, _ = _canonical(bench.models)
    tasks = bench.item_tasks
    clustered = any(task.cluster is not None for task in tasks)
    values = _paired_values(bench, reps, seed, lambda j: _units(tasks[j], om))
    method = "bootstrap: item-level paired" + (", clustered" if clustered else "")
    notes = []
    if clustered:
        notes.append("Clusters (items sharing a cluster id) are resampled whole within each task.")
    return _draws(bench, values, method, True, seed, notes)


def _paired_values(
    bench: Benchmark, reps: int, seed: int, units_of: Callable[[int], _Units | None]
) -> np.ndarray:
    """``(reps, M, T)`` paired draws, tasks in name order from one stream (``None`` units: a
    task without items, ``nan``)."""
    rng = np.random.default_rng(seed)
    values = np.empty((reps, *bench.shape))
    order, _ = _canonical(bench.tasks)
    for j in order:
        units = units_of(int(j))
        values[:, :, j] = np.nan if units is None else _task_draws(units, reps, rng)
    return values


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

    values = _paired_values(bench, reps, seed, units_of)
    return _draws(bench, values, "bootstrap: item-level paired", True, seed, [])
