"""Ranks (METHODS 4): tie-aware ranking primitives and the five rank aggregations.

Rank 1 is the best (largest) value. ``nan`` values are left out: they get a ``nan`` rank and do
not take a place from the others. Ties:

- ``"average"``: tied values share the average of the places they occupy (METHODS 4, methods 1-4);
- ``"max"``: every tied value gets the worst place of the tie (METHODS 4, method 5: a model only
  outranks models in strictly lower bins);
- ``"min"``: every tied value gets the best place of the tie (used for rank probabilities).

Everything is vectorised over the other axes. With few models (``<= COMPARE_MAX_MODELS``) ranks
come from pairwise comparisons (``M (M - 1) / 2`` vector comparisons, about 3x faster than sorting
16 models); with more, from one ``argsort``. Both give identical ranks. The per-task rank
aggregations (methods 3-5) sum the ``int8`` comparison counts over tasks when no score is missing
(exactly the mean of the per-task ranks, without building them).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.draws import Draws
from benchuq.core.validation import check_level

__all__ = [
    "COMPARE_BLOCK",
    "COMPARE_MAX_MODELS",
    "GEOMETRIC_FLOOR",
    "NOISE_SD",
    "RANK_METHODS",
    "RankReplicates",
    "Ties",
    "average_and_bin_ranks",
    "nanmean",
    "percent_bins",
    "rank_aggregations",
    "rank_replicates",
    "summarize_ranks",
    "tie_ranks",
]

Ties = Literal["average", "min", "max"]
RANK_METHODS: tuple[str, ...] = (
    "mean",
    "geometric_mean",
    "average_rank",
    "average_rank_noise",
    "average_rank_bins",
)
# METHODS 4, method 4: N(0, 1) noise in percentage points = 0.01 in proportion units.
NOISE_SD = 0.01
# Geometric mean (METHODS 4, #29): scores below one percentage point count as one point, so a
# model at a task's normalized minimum (0), or a replicate below it, keeps a finite log.
GEOMETRIC_FLOOR = 0.01
COMPARE_MAX_MODELS = 32
COMPARE_BLOCK = 16384


def _comparison_key(x: np.ndarray, whole: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(key, missing mask or None): larger key = better, missing = smallest key (``x`` itself
    when nothing is missing: no copy).

    ``whole``: x holds whole numbers (percent bins); within +-32000 they become int16 keys, a
    quarter of the memory traffic of float64, with the same order and ties.
    """
    missing = np.isnan(x)
    has_missing = bool(missing.any())
    present = x[~missing] if has_missing else x
    if whole and present.size and max(-present.min(), present.max()) < 32000:
        key = (np.where(missing, -32768, x) if has_missing else x).astype(np.int16)
    else:
        key = np.where(missing, -np.inf, x) if has_missing else x
    return key, missing if has_missing else None


def _comparison_counts(key: np.ndarray, ties: Ties) -> np.ndarray:
    """``int8`` counts along axis 0 of the ``(M, N)`` keys (larger = better): strictly better
    entries (``"min"``), strictly worse (``"max"``) or better minus worse (``"average"``).

    Row ``i`` is compared with all later rows at once, in blocks of columns that stay in the CPU
    cache.
    """
    M, N = key.shape
    count = np.zeros((M, N), dtype=np.int8)  # |count| < M <= COMPARE_MAX_MODELS < 128
    for s in range(0, N, COMPARE_BLOCK):
        kb, cb = key[:, s : s + COMPARE_BLOCK], count[:, s : s + COMPARE_BLOCK]
        for i in range(M - 1):
            later, ki = kb[i + 1 :], kb[i]
            if ties == "min":
                cb[i] += (later > ki).sum(axis=0, dtype=np.int8)
                cb[i + 1 :] += later < ki
            elif ties == "max":
                cb[i] += (later < ki).sum(axis=0, dtype=np.int8)
                cb[i + 1 :] += later > ki
            else:  # better minus worse, for i; the opposite for the later rows
                c = (later > ki).view(np.int8) - (later < ki).view(np.int8)
                cb[i] += c.sum(axis=0, dtype=np.int8)
                cb[i + 1 :] -= c
    return count


def _by_comparison(x: np.ndarray, ties: Ties, whole: bool = False) -> np.ndarray:
    """Ranks along axis 0 of ``(M, N)`` from counts of strictly better / worse entries; each tie
    rule counts only what it needs."""
    M = x.shape[0]
    key, missing = _comparison_key(x, whole)
    count = _comparison_counts(key, ties)
    # best place = better + 1, worst place = M - worse (missing keys are smallest: never better)
    if ties == "min":
        place = count + 1.0
    elif ties == "max":
        place = M - count.astype(float)
    else:
        place = (count + (M + 1.0)) * 0.5
    if missing is not None:
        place[missing] = np.nan
    return place


def _sorted_keys(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, sorted keys, nan mask) along axis 0 of ``(M, N)``, best (largest) first, nan last."""
    missing = np.isnan(x)
    key = np.where(missing, np.inf, -x)
    order = np.argsort(key, axis=0)
    return order, np.take_along_axis(key, order, axis=0), missing


def _ranks_from_sorted(
    s: np.ndarray, order: np.ndarray, missing: np.ndarray, ties: Ties
) -> np.ndarray:
    """Ranks (1-based) of ``(M, N)`` entries whose keys, sorted along axis 0, are ``s``.

    Loops over the M places with vector operations over N (fast for many short columns).
    """
    M, N = s.shape
    same = s[1:] == s[:-1]  # place k+1 ties with place k
    place = np.empty((M, N))
    if ties in ("min", "average"):
        place[0] = 0.0
        for k in range(1, M):
            place[k] = np.where(same[k - 1], place[k - 1], k)
    if ties in ("max", "average"):
        end = np.empty((M, N))
        end[M - 1] = M - 1
        for k in range(M - 2, -1, -1):
            end[k] = np.where(same[k], end[k + 1], k)
        place = end if ties == "max" else (place + end) / 2.0
    out = np.empty((M, N))
    out[order, np.arange(N)] = place + 1.0
    out[missing] = np.nan
    return out


def _columns(x: np.ndarray, axis: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """``x`` with ``axis`` first, as a C-contiguous ``(M, N)`` array, and the moved shape."""
    xm = np.moveaxis(np.asarray(x, dtype=float), axis, 0)
    return np.ascontiguousarray(xm).reshape(xm.shape[0], -1), xm.shape


def _back(r: np.ndarray, shape: tuple[int, ...], axis: int) -> np.ndarray:
    return np.moveaxis(r.reshape(shape), 0, axis)


def tie_ranks(x: np.ndarray, *, axis: int = -1, ties: Ties = "average") -> np.ndarray:
    """Ranks of ``x`` along ``axis`` (1 = largest) with the given tie rule; ``nan`` -> ``nan``."""
    cols, shape = _columns(x, axis)
    if cols.shape[0] <= COMPARE_MAX_MODELS:
        return _back(_by_comparison(cols, ties), shape, axis)
    order, s, missing = _sorted_keys(cols)
    return _back(_ranks_from_sorted(s, order, missing, ties), shape, axis)


def percent_bins(x: np.ndarray) -> np.ndarray:
    """``floor`` of the percent score (METHODS 4, method 5), robust to binary rounding.

    ``100 * x`` is rounded to 9 decimals before the floor, so 0.57 (stored as 0.5699999...) lands
    in bin 57, not 56.
    """
    return np.floor(np.round(100.0 * np.asarray(x, dtype=float), 9))


def average_and_bin_ranks(x: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Average-tie ranks of ``x`` and worst-tie ranks of its percent bins (one sort when sorting).

    Binning is monotone, so the order that sorts ``x`` also sorts its bins.
    """
    cols, shape = _columns(x, axis)
    if cols.shape[0] <= COMPARE_MAX_MODELS:
        avg = _by_comparison(cols, "average")
        worst = _by_comparison(percent_bins(cols), "max", whole=True)
        return _back(avg, shape, axis), _back(worst, shape, axis)
    order, s, missing = _sorted_keys(cols)
    avg = _ranks_from_sorted(s, order, missing, "average")
    # keys are -x sorted ascending; the bins of x are -floor(100 x) in the same order
    s_bins = np.where(np.isinf(s), np.inf, -percent_bins(-s))
    worst = _ranks_from_sorted(s_bins, order, missing, "max")
    return _back(avg, shape, axis), _back(worst, shape, axis)


def nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """Mean over ``axis`` leaving out ``nan`` (all-``nan`` gives ``nan``, silently)."""
    if not np.isnan(x).any():
        return x.mean(axis=axis)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axis)


def _geometric_score(x: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """Mean over tasks of ``sign_j * log max(x_ij, GEOMETRIC_FLOOR)`` (the log geometric mean,
    oriented): a score below the floor (0, or a normalized replicate below the task's minimum)
    counts as the floor, so every replicate is kept (METHODS 4)."""
    return _sorted_mean(sign * np.log(np.maximum(x, GEOMETRIC_FLOOR)))


def _sorted_mean(y: np.ndarray) -> np.ndarray:
    """nan-mean over the last axis, summed in sorted order: the result (and so any exact tie
    between models) does not depend on the order of the tasks."""
    return nanmean(np.sort(y, axis=-1), axis=-1)


def _final_ranks(score: np.ndarray) -> np.ndarray:
    return tie_ranks(score, axis=-1, ties="average")


def _noise(draws: Draws, rng: np.random.Generator) -> np.ndarray:
    """``(M, R, T)`` N(0, NOISE_SD^2) noise drawn with models and tasks sorted by name, so that
    reordering models or tasks reorders the noise with them (models first: the ranking layout)."""
    om = np.argsort(np.array(draws.models, dtype=object), kind="stable")
    ot = np.argsort(np.array(draws.tasks, dtype=object), kind="stable")
    z = rng.standard_normal((len(om), draws.reps, len(ot)), dtype=np.float32)
    z *= np.float32(NOISE_SD)
    # out[om[a], :, ot[b]] = z[a, :, b]: gather with the inverse permutations
    return np.take(np.take(z, np.argsort(om), axis=0), np.argsort(ot), axis=2)


def _per_task_average(ranks: np.ndarray) -> np.ndarray:
    """``(M, R, T)`` per-task ranks -> ``(R, M)`` minus their mean over tasks (higher = better)."""
    return -nanmean(ranks, axis=-1).T


def _task_mean_ranks(cols: np.ndarray, ties: Ties, whole: bool = False) -> np.ndarray:
    """:func:`_per_task_average` of the per-task ranks of ``cols`` ``(M, R, T)`` (rank along
    axis 0). Without missing scores the comparison counts are summed over tasks directly (the
    places are half-integers, so the sum is exact and the mean is the same number)."""
    M, R, T = cols.shape
    if M > COMPARE_MAX_MODELS:
        return _per_task_average(tie_ranks(cols, axis=0, ties=ties))
    key, missing = _comparison_key(cols.reshape(M, -1), whole)
    if missing is not None:
        return _per_task_average(tie_ranks(cols, axis=0, ties=ties))
    total = _comparison_counts(key, ties).reshape(M, R, T).sum(axis=-1, dtype=np.int64)
    if ties == "min":
        places = total + float(T)
    elif ties == "max":
        places = float(T * M) - total
    else:
        places = (total + T * (M + 1.0)) * 0.5
    return -(places / T).T


def _mean_scores(x: np.ndarray, sign: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, log geometric mean) over tasks, oriented, both summed in sorted order. With all
    tasks higher-is-better and no negative score, one sort serves both (log is increasing)."""
    if np.all(sign > 0):
        s = np.sort(x, axis=-1)
        return nanmean(s, axis=-1), nanmean(np.log(np.maximum(s, GEOMETRIC_FLOOR)), axis=-1)
    y = x if np.all(sign > 0) else x * sign
    return _sorted_mean(y), _geometric_score(x, sign)


def _all_method_scores(
    x: np.ndarray, sign: np.ndarray, noise: np.ndarray | None
) -> dict[str, np.ndarray]:
    """Aggregates ``(R, M)`` per method, higher = better: the mean, the log geometric mean and
    minus the average per-task rank; ``x`` is ``(R, M, T)``; method 4 adds ``noise``
    ``(M, R, T)`` (without noise it equals method 3). Per-task ranks work on one models-first
    copy of the scores."""
    mean, geometric = _mean_scores(x, sign)
    out = {"mean": mean, "geometric_mean": geometric}
    y = x if np.all(sign > 0) else x * sign
    cols = np.ascontiguousarray(np.moveaxis(y, 1, 0))  # (M, R, T)
    out["average_rank"] = _task_mean_ranks(cols, "average")
    if noise is None:
        out["average_rank_noise"] = out["average_rank"]
    else:
        out["average_rank_noise"] = _task_mean_ranks(cols + noise, "average")
    out["average_rank_bins"] = _task_mean_ranks(percent_bins(cols), "max", whole=True)
    return out


def _statistic(method: str, score: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The statistic [LGC] reports (METHODS 4): the position for methods 1-2, the average
    per-task rank for methods 3-5."""
    return position if method in ("mean", "geometric_mean") else -score


def _summary(r: np.ndarray, qs: tuple[float, float]) -> tuple[np.ndarray, ...]:
    """(mean, low, high) over replicates; inverted-CDF quantiles (the ends are values that
    occur)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(r, qs, axis=0, method="inverted_cdf")
    return nanmean(r, axis=0), low, high


def rank_aggregations(
    draws: Draws, *, level: float = COMPARISON_LEVEL, seed: int | None = None
) -> pd.DataFrame:
    """The five rank aggregations of METHODS 4, computed inside every replicate.

    Methods: ``mean`` (mean over tasks), ``geometric_mean`` (mean of logs of the scores, each
    at least :data:`GEOMETRIC_FLOOR`, one percentage point), ``average_rank`` (rank within each
    task, average over tasks),
    ``average_rank_noise`` (as average_rank after adding N(0, 1) percentage-point noise, i.e. sd
    0.01 in proportion units, drawn from ``default_rng(seed)``; ``seed`` defaults to the draws'
    seed, or 0), ``average_rank_bins`` (as average_rank on 1-point bins ``floor(100 x)``; models
    in one bin all get the worst place of their tie). Exact ties get the average rank, except the
    per-task bin ranks of method 5. Lower-is-better tasks are ranked on the negation (for the
    geometric mean: on the reciprocal).

    Columns (METHODS 4, "the statistic [LGC] reports"):

    - ``mean_rank``, ``low``, ``high``: mean over replicates and percentile interval at ``level``
      of the statistic [LGC] reports: the position (1..M) for ``mean`` and ``geometric_mean``;
      the average per-task rank (a continuous value) for the three average-rank methods.
      ``statistic`` names which; ``observed_value`` is that statistic on the observed scores.
    - ``position``, ``position_low``, ``position_high``: the final position (models ordered by
      the method's aggregate in each replicate, ties averaged): mean and interval.
    - ``observed_rank``: the position on the observed scores (no noise for method 4).

    **Choice**: intervals use inverted-CDF quantiles, so their ends are values that occur.
    """
    return summarize_ranks(rank_replicates(draws, seed=seed), level=level)


@dataclass(frozen=True)
class RankReplicates:
    """The five rank aggregations of METHODS 4 in every replicate, before any level: what
    :func:`rank_aggregations` summarises at a level (:func:`summarize_ranks`). The app caches
    it, so a new level re-summarises these arrays instead of ranking every replicate again.

    Attributes
    ----------
    models : tuple of str
        The models, in the draws' order.
    positions, statistics : tuple of ndarray
        Per method of :data:`RANK_METHODS` (in that order), ``(R, M)``: the final position and
        the statistic [LGC] reports in each replicate.
    observed_positions, observed_statistics : tuple of ndarray
        The same on the observed scores, ``(M,)`` per method.
    """

    models: tuple[str, ...]
    positions: tuple[np.ndarray, ...]
    statistics: tuple[np.ndarray, ...]
    observed_positions: tuple[np.ndarray, ...]
    observed_statistics: tuple[np.ndarray, ...]


def rank_replicates(draws: Draws, *, seed: int | None = None) -> RankReplicates:
    """Rank every replicate of ``draws`` under the five aggregations (METHODS 4); ``seed`` as in
    :func:`rank_aggregations`."""
    if seed is None:
        seed = draws.seed if draws.seed is not None else 0
    noise = _noise(draws, np.random.default_rng(seed))
    sign = draws.sign
    scores = _all_method_scores(np.asarray(draws.values), sign, noise)
    observed = _all_method_scores(np.asarray(draws.observed)[None], sign, None)
    positions, statistics, obs_positions, obs_statistics = [], [], [], []
    for method in RANK_METHODS:
        pos = _final_ranks(scores[method])
        obs_pos = _final_ranks(observed[method])[0]
        positions.append(pos)
        statistics.append(_statistic(method, scores[method], pos))
        obs_positions.append(obs_pos)
        obs_statistics.append(_statistic(method, observed[method], obs_pos[None])[0])
    return RankReplicates(
        tuple(draws.models),
        tuple(positions),
        tuple(statistics),
        tuple(obs_positions),
        tuple(obs_statistics),
    )


def summarize_ranks(ranks: RankReplicates, *, level: float = COMPARISON_LEVEL) -> pd.DataFrame:
    """The table of :func:`rank_aggregations` from ranked replicates, at ``level``."""
    level = check_level(level)
    qs = ((1 - level) / 2, (1 + level) / 2)
    rows = []
    for k, method in enumerate(RANK_METHODS):
        stat = _summary(ranks.statistics[k], qs)
        place = _summary(ranks.positions[k], qs)
        rows.append(
            pd.DataFrame(
                {
                    "model": list(ranks.models),
                    "method": method,
                    "mean_rank": stat[0],
                    "low": stat[1],
                    "high": stat[2],
                    "observed_rank": ranks.observed_positions[k],
                    "statistic": "position"
                    if method in ("mean", "geometric_mean")
                    else "average task rank",
                    "observed_value": ranks.observed_statistics[k],
                    "position": place[0],
                    "position_low": place[1],
                    "position_high": place[2],
                }
            )
        )
    return pd.concat(rows, ignore_index=True)
