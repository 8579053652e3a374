"""Summaries of draws: group scores, intervals, leaderboards, differences, ranks (METHODS 2-4).

Every function takes :class:`core.draws.Draws` (bootstrap replicates or posterior draws) and
summarises each replicate exactly as the benchmark aggregates the observed scores.

Conventions:

- Group scores (METHODS 0): ``"overall"`` is the draws' headline aggregate
  (:mod:`core.summaries.headline`: the mean over benchmarks for lm-eval data with groups), else
  the mean over **all** tasks (not the mean of the category means); a category is the mean over
  its tasks; a weight vector ``w`` over ``draws.category_names`` gives ``S(w) = sum_c w_c m_ic``.
  Missing results (``nan``) are left out of the means (nan-mean over the tasks a model has).
- Orientation: a group whose tasks are all lower-is-better is ranked on the negation; a group
  that mixes directions is computed on ``sign_j * x_ij`` (lower-is-better tasks negated) so that
  higher is better, and its label says so.
- Intervals: percentile intervals; the point estimate is the observed value (not the mean of the
  draws). Pairwise differences use studentized simultaneous intervals (METHODS 4b).

:func:`normalize` (METHODS 3) lives in :mod:`core.summaries.normalization`, the tie-aware ranking
primitives and :func:`rank_aggregations` (METHODS 4) in :mod:`core.summaries.ranks`; both are
re-exported here.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import betainc, ndtr, ndtri

from benchuq.core.data import DataError, is_proportion
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL
from benchuq.core.draws import Draws
from benchuq.core.small_samples import FEW_ITEMS, group_items, p_floor, too_few_with_leader
from benchuq.core.summaries.exact import join_exact
from benchuq.core.summaries.exact_pairs import flip_p_value, holm_in_family, pair_contributions
from benchuq.core.summaries.leader import overlap_test_level, tied_with_leader
from benchuq.core.summaries.maxt import MaxT, max_t
from benchuq.core.summaries.normalization import normalize
from benchuq.core.summaries.ordering import best_first
from benchuq.core.summaries.ranks import (
    RANK_METHODS,
    check_level,
    nanmean,
    rank_aggregations,
    tie_ranks,
)
from benchuq.core.validation import InvalidArgument, check_choice, check_known

__all__ = [
    "CORRECTIONS",
    "RANK_METHODS",
    "WEIGHTED",
    "Interval",
    "Scores",
    "draws_standard_error",
    "family_inference",
    "group_scores",
    "group_tasks",
    "leaderboard",
    "normalize",
    "pairwise_differences",
    "percentile_interval",
    "rank_aggregations",
    "rank_probabilities",
    "task_presence",
    "task_scores",
    "win_probabilities",
]

Group = str | Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Scores:
    """One aggregate per model: ``observed`` ``(M,)`` and per-replicate ``values`` ``(R, M)``.

    Same unit as the draws (proportions for accuracy). ``higher_is_better`` says how to rank.
    ``cells``: ``(2, M)`` number right and items behind each model's score when every task of
    the group is scored right/wrong (``nan`` elsewhere; ``None``: no exact rule), and ``single``
    when the group is one task: :func:`percentile_interval` then joins the exact interval
    (METHODS 2f, :mod:`core.summaries.exact`).
    """

    observed: np.ndarray
    values: np.ndarray
    label: str
    higher_is_better: bool = True
    cells: np.ndarray | None = None
    single: bool = False


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


def _headline_scores(draws: Draws, mult: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sum_j W_ij x_ij`` with the headline's task weights (``nan`` for a model with none)."""
    assert draws.headline is not None
    w = draws.headline.weights_for(draws.models) * mult
    none = ~(np.abs(w).sum(axis=1) > 0)
    obs = np.nansum(np.where(w != 0, w * draws.observed, 0.0), axis=1)
    vals = np.einsum("rmt,mt->rm", np.where(w != 0, draws.values, 0.0), w)
    obs[none] = np.nan
    vals[:, none] = np.nan
    return obs, vals


def count_cells(draws: Draws, tasks: np.ndarray) -> np.ndarray | None:
    """``(2, M)`` number right and items of each model over ``tasks`` when every one of them is
    scored right/wrong (:attr:`core.draws.Draws.binary`), else ``None`` (METHODS 2f)."""
    if draws.binary is None or draws.items is None or not np.all(draws.binary[tasks]):
        return None
    obs = draws.observed[:, tasks]
    n = np.where(np.isnan(obs), 0.0, draws.items[:, tasks])
    right = np.nansum(obs * n, axis=1)
    total = n.sum(axis=1)
    return np.array([np.where(total > 0, right, np.nan), np.where(total > 0, total, np.nan)])


def task_scores(draws: Draws, j: int, *, label: str | None = None) -> Scores:
    """Scores of task ``j`` alone (its interval takes the exact rule of METHODS 2f)."""
    hib = bool(np.asarray(draws.higher_is_better)[j])
    cells = count_cells(draws, np.array([j]))
    name = draws.tasks[j] if label is None else label
    return Scores(draws.observed[:, j], draws.values[:, :, j], name, hib, cells, True)


def task_presence(draws: Draws, *, group: Group = "overall") -> np.ndarray:
    """``(M, T)`` bool: which model has a score on which task of ``group`` (all tasks for
    ``"overall"``; the tasks of a category, or of the categories a weight vector uses)."""
    have = ~np.isnan(draws.observed)
    if isinstance(group, str):
        if group == "overall":
            return have
        return have[:, np.array(draws.categories) == group]
    used = np.flatnonzero(_weights(draws, group) > 0)
    return have[:, np.isin(draws.category_index, used)]


def _weights(draws: Draws, group: Sequence[float] | np.ndarray) -> np.ndarray:
    w = np.asarray(group, dtype=float)
    names = draws.category_names
    if w.shape != (len(names),) or np.any(~np.isfinite(w)) or np.any(w < 0):
        raise InvalidArgument(
            f"weights must be {len(names)} numbers >= 0, one per category {list(names)}; "
            f"got {list(np.ravel(w))}."
        )
    if abs(w.sum() - 1.0) > 1e-6:
        raise InvalidArgument(
            f"weights must sum to 1, they sum to {w.sum():.6g}.",
            hint="divide each weight by their sum.",
        )
    return w


def group_scores(draws: Draws, *, group: Group = "overall") -> Scores:
    """Per-model aggregate of a group of tasks (METHODS 0, 2).

    ``group``: ``"overall"`` (the draws' :attr:`~core.draws.Draws.headline`, else the mean over
    all tasks), a category name (mean over its tasks), or
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
            raise InvalidArgument(
                f"unknown group {group!r}.",
                hint=f"use 'overall' or one of the categories {list(draws.category_names)}.",
            )
        mult, hib, suffix = _oriented(draws, tasks)
        if group == "overall" and draws.headline is not None and draws.headline.weights is not None:
            obs, vals = _headline_scores(draws, mult)
            return Scores(obs, vals, group + suffix, hib)
        obs, vals = _category_means(draws, tasks, mult)
        cells = None if np.any(mult != 1.0) else count_cells(draws, tasks)
        return Scores(obs, vals, group + suffix, hib, cells, len(tasks) == 1)
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


def percentile_interval(scores: Scores, *, level: float = LEVEL) -> Interval:
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
    if scores.cells is not None:
        obs = np.asarray(scores.observed, dtype=float)
        new_low, new_high = join_exact(
            low, high, obs, scores.cells, level=level, single=scores.single
        )
        mc_low = np.where(new_low != low, 0.0, mc_low)  # an exact end has no Monte Carlo error
        mc_high = np.where(new_high != high, 0.0, mc_high)
        low, high = new_low, new_high
    return Interval(
        estimate=np.asarray(scores.observed, dtype=float),
        low=low,
        high=high,
        level=level,
        method="percentile",
        mc_error_low=mc_low,
        mc_error_high=mc_high,
    )


def draws_standard_error(scores: Scores) -> np.ndarray:
    """Per model the standard deviation of the replicate scores (ddof 1): the bootstrap standard
    error, or the posterior standard deviation for Bayesian draws (METHODS 2); ``nan`` for a
    model with fewer than two finite replicates."""
    vals = np.asarray(scores.values, dtype=float)
    ok = np.isfinite(vals)
    k = ok.sum(axis=0)
    mean = np.where(ok, vals, 0.0).sum(axis=0) / np.maximum(k, 1)
    sq = np.where(ok, (vals - mean) ** 2, 0.0).sum(axis=0)
    return np.where(k >= 2, np.sqrt(sq / np.maximum(k - 1, 1)), np.nan)


WEIGHTED = "weighted"  # the group name of the category-weighted score in :func:`leaderboard`


def leaderboard(
    draws: Draws, *, level: float = LEVEL, weights: Sequence[float] | np.ndarray | None = None
) -> pd.DataFrame:
    """Per model and group (``"overall"``, ``"weighted"`` when ``weights`` are given and there
    are two or more categories, then each category): estimate and interval, best first.

    Default level 83.4% [GH]: for two *independent* estimates with similar standard errors,
    intervals that do not overlap correspond roughly to a 5% test; with correlated models use the
    paired difference. ``tied_with_leader``: :func:`core.summaries.leader.tied_with_leader`, the
    paired difference from the group's leader at the test level overlap would approximate (95% at
    83.4%) contains 0, or there are too few items to tell them apart (either has fewer than
    :func:`core.small_samples.min_items_to_tell` items at that level). ``se``:
    :func:`draws_standard_error` of the group score. ``items``: the items behind the model's
    score in the group (``nan`` when unknown); ``few_items``: fewer than
    :data:`core.small_samples.FEW_ITEMS` (METHODS 2d). Within each
    group rows are best first by :func:`core.summaries.ordering.best_first` (the direction
    follows the group's ``higher_is_better``; ties by name; models without a score last).
    ``weights``: one per ``draws.category_names`` (the score ``S(w)`` of :func:`group_scores`),
    shown only when they differ from the default (all equal). A single category (such as the
    default ``all``) covers every task and would repeat ``overall``, so it is left out (#41).
    """
    groups: list[tuple[str, Group]] = [("overall", "overall")]
    cats = draws.category_names
    if weights is not None and len(cats) > 1 and not _equal(w := _weights(draws, weights)):
        groups.append((WEIGHTED, w))
    if len(cats) > 1:  # one category (e.g. the default ``all``) would repeat overall row for row
        groups += [(c, c) for c in cats]
    rows = []
    for name, group in groups:
        sc = group_scores(draws, group=group)
        iv = percentile_interval(sc, level=level)
        items = group_items(draws, tasks=group_tasks(draws, group))
        tied = tied_with_leader(
            sc.values,
            sc.observed,
            level=level,
            higher_is_better=sc.higher_is_better,
            present=task_presence(draws, group=group),
        )
        tied = tied | too_few_with_leader(
            items, sc.observed, overlap_test_level(level), higher_is_better=sc.higher_is_better
        )
        part = pd.DataFrame(
            {
                "model": list(draws.models),
                "group": name,
                "estimate": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "mc_error_low": iv.mc_error_low,
                "mc_error_high": iv.mc_error_high,
                "tied_with_leader": tied,
                "se": draws_standard_error(sc),
                "items": items,
                "few_items": items < FEW_ITEMS,
            }
        )
        order = best_first(iv.estimate, draws.models, higher_is_better=sc.higher_is_better)
        rows.append(part.iloc[order])
    return pd.concat(rows, ignore_index=True)


def _equal(weights: np.ndarray) -> bool:
    """Whether category weights are the default: all equal (any common value)."""
    return bool(weights.size and np.allclose(weights, weights[0]))


def group_tasks(draws: Draws, group: Group) -> np.ndarray:
    """Indices of the tasks a group score averages (weights: categories of positive weight)."""
    if isinstance(group, str):
        if group == "overall":
            return np.arange(len(draws.tasks))
        return np.flatnonzero(np.array(draws.categories) == group)
    used = np.flatnonzero(np.asarray(group, dtype=float) > 0)
    return np.flatnonzero(np.isin(draws.category_index, used))


def _model_index(draws: Draws, models: Sequence[str]) -> list[int]:
    check_known(models, draws.models, what="models")
    if len(set(models)) != len(models):
        raise DataError(f"a model is listed twice in {list(models)}.", column="model")
    return [draws.models.index(m) for m in models]


Correction = Literal["maxt", "bonferroni", "holm", "none"]
CORRECTIONS: tuple[str, ...] = ("maxt", "bonferroni", "holm", "none")


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values."""
    K = len(p)
    order = np.argsort(p, kind="stable")
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, (K - np.arange(K)) * p[order]))
    adj = np.empty(K)
    adj[order] = adj_sorted
    return adj


def _per_pair(d: np.ndarray, est: np.ndarray, level: float) -> MaxT:
    """Unadjusted studentized bootstrap intervals and p-values, one max-T family per pair."""
    fams = [max_t(d[:, [k]], est[[k]], level=level) for k in range(d.shape[1])]

    def joined(field: str) -> np.ndarray:
        return np.concatenate([getattr(x, field) for x in fams])

    return replace(
        fams[0],
        estimate=joined("estimate"),
        se=joined("se"),
        low=joined("low"),
        high=joined("high"),
        p_value=joined("p_value"),
        p_stepdown=joined("p_stepdown"),
        below_resolution=joined("below_resolution"),
        critical=np.nan,
    )


def _normal_reference(d: np.ndarray, est: np.ndarray, level: float, holm: bool) -> MaxT:
    """Bonferroni (or Holm p-values) with the studentized difference against N(0, 1)."""
    K = d.shape[1]
    se = np.nanstd(d, axis=0, ddof=1)
    crit = float(-ndtri((1.0 - level) / (2 * K)))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, np.abs(est) / se, np.where(est == 0, 0.0, np.inf))
    raw = 2.0 * ndtr(-t)
    bonf = np.minimum(1.0, K * raw)
    holm_p = _holm(raw)
    bound = crit * se
    return MaxT(
        estimate=est,
        se=se,
        low=est - bound,
        high=est + bound,
        critical=crit,
        p_value=holm_p if holm else bonf,
        p_stepdown=holm_p,
        below_resolution=np.zeros(K, dtype=bool),
        level=level,
        reps=d.shape[0],
    )


def family_inference(
    d: np.ndarray, est: np.ndarray, *, level: float, correction: Correction
) -> MaxT:
    """Intervals and p-values for the K columns of ``d`` ``(R, K)`` under ``correction``
    (METHODS 4b); see :func:`pairwise_differences`."""
    if correction == "maxt":
        return max_t(d, est, level=level)
    if correction == "none":
        return _per_pair(d, est, level)
    return _normal_reference(d, est, level, holm=correction == "holm")


def pairwise_differences(
    draws: Draws,
    models: Sequence[str],
    *,
    level: float = COMPARISON_LEVEL,
    correction: Correction = "maxt",
    group: Group = "overall",
) -> pd.DataFrame:
    """All pairs (a before b in ``models``) of ``d = S_a - S_b`` with family-wise intervals.

    Per replicate ``d = m_A - m_B`` (METHODS 2), so paired draws give paired intervals. Every
    correction studentizes each difference by its bootstrap SE (``se``) (METHODS 4b):

    - ``"maxt"`` (default): simultaneous bootstrap max-T intervals ``d +- c se`` [RW]; ``p_value``
      the single-step max-T p-value, so ``p_value <= 1 - level`` exactly where the interval
      excludes 0; ``p_stepdown`` the Romano–Wolf step-down p-values (more powerful, never
      larger). ``p_below_resolution``: no replicate reached the observed statistic, the p-value
      is "< 1/(R+1)" (shown as that bound, not multiplied by the number of pairs).
    - ``"bonferroni"``: ``d +- z_{1-alpha/(2K)} se``, ``p_value = min(1, 2K Phi(-|d|/se))``
      (normal reference: not floored by R); ``p_stepdown`` Holm's.
    - ``"holm"``: Holm p-values from the same normal reference. **Choice**: Holm has no
      simultaneous intervals, so the intervals are Bonferroni's (labelled so); a Holm p-value can
      be below ``1 - level`` while that interval includes 0.
    - ``"none"``: per-pair studentized bootstrap intervals and p-values (max-T with K = 1).
    - ``level``: the per-pair level of each interval (max-T: ``2 Phi(c) - 1``).
    - ``prob_a_better``: share of replicates in which a beats b (ties count half), respecting
      ``higher_is_better``.
    - Few items (METHODS 2d): ``items_a``, ``items_b`` are the items behind each score,
      ``few_items`` says one has fewer than 30; ``p_floor = 2^(1 - min(items))`` is the smallest
      p-value an exact paired test of that many items can give. A pair with fewer than 30 items
      whose units (items or clusters) the draws carry (item-level data, raw scores) gets an
      exact sign-flip test over them (``p_exact``, unadjusted; :mod:`core.summaries.exact_pairs`):
      ``p_value`` is the larger of the correction's and the Bonferroni-adjusted ``p_exact``
      (``K p_exact``; ``"none"``: ``p_exact``), ``p_stepdown`` the larger of the correction's
      and Holm's over the exact p-values, so neither is below ``2^(1 - k)`` with k discordant
      units; where the pair's ``p_value`` exceeds ``1 - level`` its interval is widened to
      include 0, so interval and p-value agree. Other pairs of few items (task-level counts,
      normalized scores) keep ``p_floor`` as a lower bound. Where ``p_floor`` exceeds
      ``1 - level`` (``too_few_items``: fewer than
      :func:`core.small_samples.min_items_to_tell` items) the interval always includes 0.
    - Scores that are proportions (every draw in [0, 1], up to rounding: a mean of 1s over
      tasks can sum to ``1 + 4e-16``): interval ends are kept in [-1, 1].
    """
    level = check_level(level)
    check_choice(correction, CORRECTIONS, name="correction")
    idx = _model_index(draws, models)
    pairs = list(itertools.combinations(range(len(idx)), 2))
    cols = [
        "a",
        "b",
        "estimate",
        "low",
        "high",
        "p_value",
        "prob_a_better",
        "level",
        "se",
        "p_stepdown",
        "p_below_resolution",
        "items_a",
        "items_b",
        "few_items",
        "p_floor",
        "too_few_items",
        "p_exact",
    ]
    if not pairs:
        return pd.DataFrame(columns=cols)
    sc = group_scores(draws, group=group)
    ia = np.array([idx[a] for a, _ in pairs])
    ib = np.array([idx[b] for _, b in pairs])
    d = sc.values[:, ia] - sc.values[:, ib]
    est = sc.observed[ia] - sc.observed[ib]
    sign = 1.0 if sc.higher_is_better else -1.0
    prob = ((sign * d) > 0).mean(axis=0) + 0.5 * (d == 0).mean(axis=0)
    fam = family_inference(d, est, level=level, correction=correction)
    items = group_items(draws, tasks=group_tasks(draws, group))
    n_a, n_b = items[ia], items[ib]
    floor = p_floor(np.fmin(n_a, n_b))
    too_few = floor > 1.0 - level
    K = len(pairs)
    p_exact = _exact_pairs(draws, group, ia, ib, np.fmin(n_a, n_b))
    exact = ~np.isnan(p_exact)
    family = 1 if correction == "none" else K
    p_value = np.fmax(fam.p_value, np.where(exact, np.minimum(1.0, family * p_exact), floor))
    p_stepdown = np.fmax(fam.p_stepdown, floor)
    if exact.any():
        held = holm_in_family(p_exact[exact], family)
        p_stepdown[exact] = np.fmax(fam.p_stepdown[exact], held)
    include_0 = too_few | (exact & (p_value > 1.0 - level))
    low = np.where(include_0, np.fmin(fam.low, 0.0), fam.low)
    high = np.where(include_0, np.fmax(fam.high, 0.0), fam.high)
    if is_proportion(sc.values):  # core.data's rule, up to rounding
        low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    if correction == "maxt":
        levels = np.full(K, 2.0 * ndtr(fam.critical) - 1.0)
    elif correction == "none":
        levels = np.full(K, level)
    else:
        levels = np.full(K, 1.0 - (1.0 - level) / K)
    return pd.DataFrame(
        {
            "a": [models[a] for a, _ in pairs],
            "b": [models[b] for _, b in pairs],
            "estimate": est,
            "low": low,
            "high": high,
            "p_value": p_value,
            "prob_a_better": prob,
            "level": levels,
            "se": fam.se,
            "p_stepdown": p_stepdown,
            "p_below_resolution": fam.below_resolution & ~exact & (floor < 1 / (d.shape[0] + 1)),
            "items_a": n_a,
            "items_b": n_b,
            "few_items": np.fmin(n_a, n_b) < FEW_ITEMS,
            "p_floor": floor,
            "too_few_items": too_few,
            "p_exact": p_exact,
        }
    )


def _exact_pairs(
    draws: Draws, group: Group, ia: np.ndarray, ib: np.ndarray, items: np.ndarray
) -> np.ndarray:
    """``(K,)`` unadjusted exact sign-flip p-values of the pairs with fewer than
    :data:`FEW_ITEMS` items whose units the draws carry (METHODS 2d); ``nan`` elsewhere."""
    out = np.full(len(ia), np.nan)
    small = np.flatnonzero(items < FEW_ITEMS)
    if draws.units is None or draws.normalization is not None or not small.size:
        return out
    coef = _score_coefficients(draws, group)
    for k in small:
        x = pair_contributions(draws.units, coef, int(ia[k]), int(ib[k]))
        if x is not None:
            out[k] = flip_p_value(x, seed=(draws.seed or 0) + int(k))[0]
    return out


def _score_coefficients(draws: Draws, group: Group) -> np.ndarray:
    """``(M, T)`` coefficients ``c`` of the group score ``sum_t c_it x_it`` (every group score
    is linear in the task scores a model has), read off the group score of unit task vectors."""
    T = len(draws.tasks)
    have = ~np.isnan(draws.observed)
    basis = np.where(have[None, :, :], np.eye(T)[:, None, :], np.nan)  # (T, M, T)
    probe = replace(
        draws, values=basis, observed=np.where(have, 0.0, np.nan), units=None, binary=None
    )
    return np.nan_to_num(group_scores(probe, group=group).values.T)


def win_probabilities(draws: Draws, *, group: Group = "overall") -> np.ndarray:
    """``(M, M)``: P(row model beats column model) over replicates (ties count half; diagonal
    nan)."""
    sc = group_scores(draws, group=group)
    v = sc.values if sc.higher_is_better else -sc.values
    M = v.shape[1]
    out = np.empty((M, M))
    for i in range(M):
        out[i] = (v[:, i : i + 1] > v).mean(axis=0) + 0.5 * (v[:, i : i + 1] == v).mean(axis=0)
    np.fill_diagonal(out, np.nan)
    return out


def rank_probabilities(draws: Draws, *, group: Group = "overall") -> np.ndarray:
    """``(M, M)``: ``P(rank_i = r)``, r = 1..M (column r-1), over replicates (METHODS 4).

    **Choice** for ties: models tied in a replicate share the places of the tie equally (two
    models tied for first each get 1/2 at rank 1 and 1/2 at rank 2), so rows and columns sum to 1.
    A model without a result in the group gets a row of ``nan``.
    """
    sc = group_scores(draws, group=group)
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
