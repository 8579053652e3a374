"""Summaries of draws: group scores, intervals, leaderboards, differences, ranks (METHODS 2-4).

Every function takes :class:`core.draws.Draws` (bootstrap replicates or posterior draws) and
summarises each replicate exactly as the benchmark aggregates the observed scores.

Conventions:

- Group scores (METHODS 0): ``"overall"`` is the mean over **all** tasks (not the mean of the
  category means); a category is the mean over its tasks; a weight vector ``w`` over
  ``draws.category_names`` gives ``S(w) = sum_c w_c m_ic``. Missing results (``nan``) are left
  out of the means (nan-mean over the tasks a model has).
- Orientation: a group whose tasks are all lower-is-better is ranked on the negation; a group
  that mixes directions is computed on ``sign_j * x_ij`` (lower-is-better tasks negated) so that
  higher is better, and its label says so.
- Intervals: percentile intervals; the point estimate is the observed value (not the mean of the
  draws).

:func:`normalize` (METHODS 3) lives in :mod:`core.normalize`, the tie-aware ranking primitives
and :func:`rank_aggregations` (METHODS 4) in :mod:`core.ranks`; both are re-exported here.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import betainc

from benchuq.core.data import DataError
from benchuq.core.draws import Draws
from benchuq.core.normalize import normalize
from benchuq.core.ranks import RANK_METHODS, check_level, nanmean, rank_aggregations, tie_ranks
from benchuq.core.validation import check_choice, check_known

__all__ = [
    "RANK_METHODS",
    "Interval",
    "Scores",
    "group_scores",
    "leaderboard",
    "normalize",
    "pairwise_differences",
    "percentile_interval",
    "rank_aggregations",
    "rank_probabilities",
    "win_probabilities",
]

Group = str | Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Scores:
    """One aggregate per model: ``observed`` ``(M,)`` and per-replicate ``values`` ``(R, M)``.

    Same unit as the draws (proportions for accuracy). ``higher_is_better`` says how to rank.
    """

    observed: np.ndarray
    values: np.ndarray
    label: str
    higher_is_better: bool = True


@dataclass(frozen=True)
class Interval:
    """Percentile interval per model (arrays over models), with Monte Carlo errors of its ends.

    ``mc_error_low`` / ``mc_error_high``: standard error of the sample quantile over the R
    replicates (Maritz–Jarrett), in the unit of the scores.
    """

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    method: str
    mc_error_low: np.ndarray
    mc_error_high: np.ndarray


def _oriented(draws: Draws, tasks: np.ndarray) -> tuple[np.ndarray, bool, str]:
    """(per-task multiplier, higher_is_better, label suffix) for the tasks of a group."""
    hib = np.asarray(draws.higher_is_better, dtype=bool)[tasks]
    if hib.all():
        return np.ones(len(tasks)), True, ""
    if not hib.any():
        return np.ones(len(tasks)), False, ""
    return np.where(hib, 1.0, -1.0), True, " (lower-is-better tasks negated)"


def _category_means(
    draws: Draws, tasks: np.ndarray, mult: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Nan-means over ``tasks`` of the observed and replicate scores times ``mult``."""
    every = len(tasks) == len(draws.tasks)  # no copy for the overall mean
    obs = draws.observed if every else draws.observed[:, tasks]
    vals = draws.values if every else draws.values[:, :, tasks]
    if np.any(mult != 1.0):
        obs, vals = obs * mult, vals * mult
    return nanmean(obs, axis=1), nanmean(vals, axis=2)


def _weights(draws: Draws, group: Sequence[float] | np.ndarray) -> np.ndarray:
    w = np.asarray(group, dtype=float)
    names = draws.category_names
    if w.shape != (len(names),) or np.any(~np.isfinite(w)) or np.any(w < 0):
        raise DataError(
            f"weights must be {len(names)} numbers >= 0, one per category {list(names)}; "
            f"got {list(np.ravel(w))}.",
            column="weights",
        )
    if abs(w.sum() - 1.0) > 1e-6:
        raise DataError(
            f"weights must sum to 1, they sum to {w.sum():.6g}.",
            column="weights",
            hint="divide each weight by their sum.",
        )
    return w


def group_scores(draws: Draws, group: Group = "overall") -> Scores:
    """Per-model aggregate of a group of tasks (METHODS 0, 2).

    ``group``: ``"overall"`` (mean over all tasks), a category name (mean over its tasks), or
    a weight vector over ``draws.category_names`` (``S(w) = sum_c w_c m_ic``; categories with
    weight 0 are left out, so a model missing them is still scored).
    """
    T = len(draws.tasks)
    if isinstance(group, str):
        if group == "overall":
            tasks = np.arange(T)
        elif group in draws.category_names:
            tasks = np.flatnonzero(np.array(draws.categories) == group)
        else:
            raise DataError(
                f"unknown group {group!r}.",
                column="category",
                hint=f"use 'overall' or one of the categories {list(draws.category_names)}.",
            )
        mult, hib, suffix = _oriented(draws, tasks)
        obs, vals = _category_means(draws, tasks, mult)
        return Scores(obs, vals, group + suffix, hib)
    w = _weights(draws, group)
    cat = draws.category_index
    used = np.flatnonzero(w > 0)
    mult, hib, suffix = _oriented(draws, np.flatnonzero(np.isin(cat, used)))
    sign = np.ones(T)
    sign[np.isin(cat, used)] = mult
    obs = np.zeros(len(draws.models))
    vals = np.zeros(draws.values.shape[:2])
    for c in used:
        tasks = np.flatnonzero(cat == c)
        o, v = _category_means(draws, tasks, sign[tasks])
        obs = obs + w[c] * o
        vals = vals + w[c] * v
    label = "weighted " + ", ".join(f"{draws.category_names[c]} {w[c]:.2f}" for c in range(len(w)))
    return Scores(obs, vals, label + suffix, hib)


@lru_cache(maxsize=64)
def _mj_weights(R: int, q: float) -> np.ndarray:
    """Maritz–Jarrett weights of the order statistics for the q-quantile of R values."""
    m = int(np.clip(np.floor(q * R + 0.5), 2, R - 1))
    grid = np.arange(R + 1) / R
    cdf = betainc(m - 1, R - m, grid)
    w = np.diff(cdf)
    w.setflags(write=False)
    return w


def _linear_quantile(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """numpy's default (linear) quantile of each column, ``q`` per column, from sorted columns."""
    R = s.shape[0]
    h = (R - 1) * q
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, R - 1)
    cols = np.arange(s.shape[1])
    return s[lo, cols] + (h - lo) * (s[hi, cols] - s[lo, cols])


def _mc_error(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Maritz–Jarrett standard error of each column's q-quantile, from sorted columns."""
    R, K = s.shape
    if R < 3:
        return np.full(K, np.nan)
    out = np.empty(K)
    for qk in np.unique(q):
        cols = np.flatnonzero(q == qk)
        w = _mj_weights(R, float(qk))
        c1 = w @ s[:, cols]
        out[cols] = np.sqrt(np.maximum(w @ (s[:, cols] - c1) ** 2, 0.0))
    return out


def _quantile_columns(
    values: np.ndarray, qs: np.ndarray, mc_error: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(quantiles, Maritz–Jarrett SEs or nan), both ``(Q, K)``: column k at ``qs[:, k]``; each
    column is sorted once for its Q quantiles; nan left out."""
    K = values.shape[1]
    est, mc = np.full(qs.shape, np.nan), np.full(qs.shape, np.nan)
    holes = np.isnan(values).any(axis=0)
    clean = np.flatnonzero(~holes)
    if clean.size:
        s = np.sort(values[:, clean], axis=0) if clean.size < K else np.sort(values, axis=0)
        for a, q in enumerate(qs):
            est[a, clean] = _linear_quantile(s, q[clean])
            if mc_error:
                mc[a, clean] = _mc_error(s, q[clean])
    for i in np.flatnonzero(holes):
        col = np.sort(values[~np.isnan(values[:, i]), i])[:, None]
        if col.size:
            for a, q in enumerate(qs):
                est[a, i] = _linear_quantile(col, q[i : i + 1])[0]
                if mc_error:
                    mc[a, i] = _mc_error(col, q[i : i + 1])[0]
    return est, mc


def _interval_columns(
    values: np.ndarray, levels: np.ndarray, mc_error: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, mc_low, mc_high) of each column's percentile interval at its own level."""
    est, mc = _quantile_columns(values, np.array([(1 - levels) / 2, (1 + levels) / 2]), mc_error)
    return est[0], est[1], mc[0], mc[1]


def percentile_interval(scores: Scores, level: float = 0.834) -> Interval:
    """Percentile interval at ``level`` (METHODS 2): the ``(1-L)/2`` and ``(1+L)/2`` quantiles.

    Quantiles use numpy's default linear interpolation. The Monte Carlo error of each end is the
    Maritz–Jarrett standard error of that sample quantile (a Beta-weighted average of the order
    statistics; Maritz & Jarrett 1978), so users can tell whether R was large enough. A model
    with ``nan`` in some replicates (no result in the group there) is summarised over the others;
    a model with no result at all gets ``nan``.
    """
    level = check_level(level)
    vals = np.asarray(scores.values, dtype=float)
    low, high, mc_low, mc_high = _interval_columns(vals, np.full(vals.shape[1], level))
    return Interval(
        estimate=np.asarray(scores.observed, dtype=float),
        low=low,
        high=high,
        level=level,
        method="percentile",
        mc_error_low=mc_low,
        mc_error_high=mc_high,
    )


def leaderboard(draws: Draws, level: float = 0.834) -> pd.DataFrame:
    """Per model and group (``"overall"``, then each category): estimate and interval.

    Default level 83.4% [GH]: two such intervals that do not overlap correspond roughly to a 5%
    test. Rows are in the draws' model order within each group (sort as you need).
    """
    rows = []
    for group in ("overall", *draws.category_names):
        iv = percentile_interval(group_scores(draws, group), level)
        rows.append(
            pd.DataFrame(
                {
                    "model": list(draws.models),
                    "group": group,
                    "estimate": iv.estimate,
                    "low": iv.low,
                    "high": iv.high,
                    "mc_error_low": iv.mc_error_low,
                    "mc_error_high": iv.mc_error_high,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _model_index(draws: Draws, models: Sequence[str]) -> list[int]:
    check_known(models, draws.models, what="models")
    if len(set(models)) != len(models):
        raise DataError(f"a model is listed twice in {list(models)}.", column="model")
    return [draws.models.index(m) for m in models]


def _bootstrap_p(d: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-value per column: ``min(1, 2 (1 + min(#d<=0, #d>=0)) / (R + 1))``."""
    R = d.shape[0]
    tail = np.minimum((d <= 0).sum(axis=0), (d >= 0).sum(axis=0))
    return np.minimum(1.0, 2.0 * (1.0 + tail) / (R + 1.0))


def _holm(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(Holm-adjusted p-values, per-comparison interval levels at the step-down levels)."""
    K = len(p)
    order = np.argsort(p, kind="stable")
    steps = K - np.arange(K)  # K, K-1, ..., 1
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, steps * p[order]))
    rejected = adj_sorted <= alpha
    stop = int(np.argmin(rejected)) if not rejected.all() else K - 1
    step_levels = 1.0 - alpha / steps
    step_levels[stop:] = step_levels[stop]
    adj = np.empty(K)
    levels = np.empty(K)
    adj[order] = adj_sorted
    levels[order] = step_levels
    return adj, levels


def pairwise_differences(
    draws: Draws,
    models: Sequence[str],
    level: float = 0.95,
    correction: Literal["holm", "bonferroni", "none"] = "holm",
    group: Group = "overall",
) -> pd.DataFrame:
    """All pairs (a before b in ``models``) of ``d = S_a - S_b`` with family-wise intervals.

    Per replicate ``d = m_A - m_B`` (METHODS 2), so paired draws give paired intervals.

    - ``estimate``: observed difference; ``low``/``high``: percentile interval of ``d`` at the
      per-comparison ``level`` column.
    - ``p_value``: two-sided bootstrap p-value of ``d = 0``,
      ``min(1, 2 (1 + min(#{d <= 0}, #{d >= 0})) / (R + 1))`` (the smallest alpha whose percentile
      interval excludes 0, with a +1 correction so it is never 0), then adjusted: Bonferroni
      ``min(1, K p)``; Holm step-down.
    - Intervals: Bonferroni at ``1 - alpha/K`` each. **Choice** for Holm: the step-down levels,
      ``1 - alpha/(K - k + 1)`` for the comparison with the k-th smallest p-value, frozen at the
      first comparison Holm does not reject (later ones keep that level), so an interval excludes
      0 where Holm rejects.
    - ``prob_a_better``: share of replicates in which a beats b (ties count half), respecting
      ``higher_is_better``.
    """
    level = check_level(level)
    check_choice(correction, ("holm", "bonferroni", "none"), name="correction")
    idx = _model_index(draws, models)
    pairs = list(itertools.combinations(range(len(idx)), 2))
    cols = ["a", "b", "estimate", "low", "high", "p_value", "prob_a_better", "level"]
    if not pairs:
        return pd.DataFrame(columns=cols)
    sc = group_scores(draws, group)
    ia = np.array([idx[a] for a, _ in pairs])
    ib = np.array([idx[b] for _, b in pairs])
    d = sc.values[:, ia] - sc.values[:, ib]
    est = sc.observed[ia] - sc.observed[ib]
    sign = 1.0 if sc.higher_is_better else -1.0
    prob = ((sign * d) > 0).mean(axis=0) + 0.5 * (d == 0).mean(axis=0)
    p = _bootstrap_p(d)
    alpha, K = 1.0 - level, len(pairs)
    if correction == "bonferroni":
        p_adj, levels = np.minimum(1.0, K * p), np.full(K, 1.0 - alpha / K)
    elif correction == "holm":
        p_adj, levels = _holm(p, alpha)
    else:
        p_adj, levels = p, np.full(K, level)
    low, high, _, _ = _interval_columns(d, levels, mc_error=False)
    return pd.DataFrame(
        {
            "a": [models[a] for a, _ in pairs],
            "b": [models[b] for _, b in pairs],
            "estimate": est,
            "low": low,
            "high": high,
            "p_value": p_adj,
            "prob_a_better": prob,
            "level": levels,
        }
    )


def win_probabilities(draws: Draws, group: Group = "overall") -> np.ndarray:
    """``(M, M)``: P(row model beats column model) over replicates (ties count half; diagonal
    nan)."""
    sc = group_scores(draws, group)
    v = sc.values if sc.higher_is_better else -sc.values
    M = v.shape[1]
    out = np.empty((M, M))
    for i in range(M):
        out[i] = (v[:, i : i + 1] > v).mean(axis=0) + 0.5 * (v[:, i : i + 1] == v).mean(axis=0)
    np.fill_diagonal(out, np.nan)
    return out


def rank_probabilities(draws: Draws, group: Group = "overall") -> np.ndarray:
    """``(M, M)``: ``P(rank_i = r)``, r = 1..M (column r-1), over replicates (METHODS 4).

    **Choice** for ties: models tied in a replicate share the places of the tie equally (two
    models tied for first each get 1/2 at rank 1 and 1/2 at rank 2), so rows and columns sum to 1.
    A model without a result in the group gets a row of ``nan``.
    """
    sc = group_scores(draws, group)
    v = sc.values if sc.higher_is_better else -sc.values
    best = tie_ranks(v, axis=1, ties="min")
    worst = tie_ranks(v, axis=1, ties="max")
    size = worst - best + 1.0
    M = v.shape[1]
    out = np.empty((M, M))
    for r in range(1, M + 1):
        out[:, r - 1] = np.nanmean(np.where((best <= r) & (r <= worst), 1.0 / size, 0.0), axis=0)
    out[np.isnan(sc.observed)] = np.nan
    return out
