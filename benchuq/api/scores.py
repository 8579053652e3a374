"""Summaries of draws: :func:`leaderboard`, :func:`compare`, :func:`rank_sets`, :func:`ranks`,
:func:`weights` and :func:`statistic` (METHODS 2, 4, 5)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from benchuq.api.options import Group, score_group, weights_of
from benchuq.core.defaults import COMPARISON_LEVEL, LEVEL
from benchuq.core.validation import InvalidArgument, check_known, check_level, check_types
from benchuq.deprecation import renamed_keywords
from benchuq.results import (
    CompareResult,
    LeaderboardResult,
    RankSetsResult,
    RanksResult,
    StatisticResult,
    WeightsResult,
)

if TYPE_CHECKING:
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws

__all__ = ["compare", "leaderboard", "rank_sets", "ranks", "statistic", "weights"]


@renamed_keywords(weights="group")
def leaderboard(
    draws: Draws, *, level: float = LEVEL, group: Group = "overall"
) -> LeaderboardResult:
    """Scores with percentile intervals, overall and per category (METHODS 2).

    Parameters
    ----------
    draws
        From :func:`bootstrap` or :func:`bayes`.
    level
        Interval level. The default 0.834 makes non-overlap of two independent intervals
        about a 5% test [GH]; ``tied_with_leader`` is the paired test against the leader.
    group
        The score the app's sidebar chooses: ``"overall"`` or a category (rows for every group
        either way), or category weights (one per category, summing to 1), which add the group
        ``"weighted"``, the score ``S(w)``. (``weights=`` is its deprecated spelling.)

    Returns
    -------
    LeaderboardResult
        ``to_frame()``: ``model, group, estimate, low, high, mc_error_low, mc_error_high,
        tied_with_leader, se, n_items, n_answers`` (the rows of ``benchuq leaderboard --json``,
        best first within each group; the items and answers behind each score).

    Examples
    --------
    >>> import benchuq as bq
    >>> board = bq.leaderboard(bq.bootstrap(bq.load("sample:toy"), reps=500), level=0.9)
    >>> board
    LeaderboardResult(data='toy', level=0.9, 2 rows)
    >>> list(board.to_frame().columns)[:5]
    ['model', 'group', 'estimate', 'low', 'high']
    """
    check_types(locals())
    from benchuq.core.reading.answers import group_counts
    from benchuq.core.summaries import leaderboard as _leaderboard
    from benchuq.core.summaries.leader import overlap_test_level

    level = check_level(level)
    table = group_counts(draws, _leaderboard(draws, level=level, weights=weights_of(group)))
    if isinstance(group, str):
        check_known([group], list(dict.fromkeys(table["group"])), what="groups")
    return LeaderboardResult(table, level, overlap_test_level(level), draws)


def compare(
    draws: Draws,
    *,
    models: Sequence[str] | None = None,
    level: float = COMPARISON_LEVEL,
    correction: Literal["maxt", "bonferroni", "holm", "none"] = "maxt",
    group: Group = "overall",
) -> CompareResult:
    """Differences ``a - b`` for every pair of ``models``, simultaneous intervals (METHODS 4b).

    Parameters
    ----------
    draws
        Paired draws (item data) make the differences honest about correlation.
    models
        Two or more models (default: all), in the order pairs are formed.
    level
        Family-wise level.
    correction
        ``"maxt"`` (bootstrap max-T, default), ``"bonferroni"``, ``"holm"`` or ``"none"``.
    group
        The score: ``"overall"``, a category or category weights.

    Returns
    -------
    CompareResult
        ``to_frame()``: ``a, b, estimate, low, high, p_value, prob_a_better, ...``, the items
        behind each score (``items_a``, ``n_items_a``, ``n_answers_a`` and the same for ``b``).

    Examples
    --------
    >>> import benchuq as bq
    >>> d = bq.bootstrap(bq.load("sample:toy"), reps=500)
    >>> bq.compare(d, level=0.95).to_frame()[["a", "b"]]
       a  b
    0  A  B
    """
    check_types(locals())
    from benchuq.core.reading.answers import model_counts
    from benchuq.core.summaries import pairwise_differences
    from benchuq.core.summaries.scores import WEIGHTED

    level = check_level(level)
    chosen = list(dict.fromkeys(draws.models if models is None else models))
    check_known(chosen, draws.models, what="models")
    if len(chosen) < 2:
        raise InvalidArgument("compare needs at least two different models.")
    score = score_group(group)
    table = pairwise_differences(draws, chosen, level=level, correction=correction, group=score)
    counts = model_counts(draws, group=score if isinstance(score, str) else WEIGHTED)
    table = table.join(counts.add_suffix("_a"), on="a").join(counts.add_suffix("_b"), on="b")
    return CompareResult(table, level, correction, draws)


@renamed_keywords(weights="group")
def rank_sets(
    draws: Draws, *, level: float = COMPARISON_LEVEL, group: Group = "overall"
) -> RankSetsResult:
    """Rank confidence sets, marginal and simultaneous, of the score ``group`` (METHODS 4b):
    ``"overall"``, a category or category weights (``weights=`` is its deprecated spelling).

    Examples
    --------
    >>> import benchuq as bq
    >>> sets = bq.rank_sets(bq.bootstrap(bq.load("sample:vtab1k"), reps=300), level=0.95)
    >>> len(sets.top_set(k=1)) >= 1
    True
    """
    check_types(locals())
    from benchuq.api.summaries import rank_sets_of

    level = check_level(level)
    return RankSetsResult(rank_sets_of(draws, level=level, group=score_group(group)), draws)


@renamed_keywords(weights="group")
def ranks(
    draws: Draws, *, level: float = COMPARISON_LEVEL, group: Group = "overall"
) -> RanksResult:
    """Five rank aggregations with intervals, rank probabilities and rank sets (METHODS 4).

    ``group`` chooses the score of the rank probabilities and sets: ``"overall"`` (default), a
    category or category weights (one per category, summing to 1; ``weights=`` is its
    deprecated spelling).

    Examples
    --------
    >>> import benchuq as bq
    >>> r = bq.ranks(bq.bootstrap(bq.load("sample:toy"), reps=300))
    >>> sorted(set(r.to_frame()["method"]))[:2]
    ['average_rank', 'average_rank_bins']
    """
    check_types(locals())
    from benchuq.core.reading.answers import model_counts
    from benchuq.core.small_samples import FEW_ITEMS, group_items
    from benchuq.core.summaries import rank_aggregations, rank_probabilities

    level = check_level(level)
    score = score_group(group)
    sets = rank_sets(draws, level=level, group=score)
    table = rank_aggregations(draws, level=level)
    items = group_items(draws)  # items behind each model's scores (few flagged, METHODS 2d)
    table = table.assign(
        items=table["model"].map(dict(zip(draws.models, items, strict=True))),
        few_items=table["model"].map(dict(zip(draws.models, items < FEW_ITEMS, strict=True))),
    ).join(model_counts(draws), on="model")
    probs = rank_probabilities(draws, group=score)
    w = None if isinstance(score, str) else tuple(float(x) for x in score)
    return RanksResult(table, probs, sets, w, level, draws)


def weights(
    data: Benchmark | Draws,
    *,
    categories: Sequence[str] | None = None,
    merge: Mapping[str, str] | None = None,
    at: Sequence[float] | np.ndarray | None = None,
    z: float = 2.0,
    rho: float = 0.0,
    resolution: int = 100,
    use_pairing: bool = True,
) -> WeightsResult:
    """Who leads at each weighting of 2 or 3 categories, with the SE rule (METHODS 5).

    Parameters
    ----------
    data
        A :class:`Benchmark` (analytic variances, models independent with correlation
        ``rho``) or :class:`Draws` (variances of the draws; paired draws give each
        difference its own correlation).
    categories
        The 2 or 3 categories to weight (the others get weight 0).
    merge
        ``{category: group}``: merge categories into 2 or 3 groups (instead of ``categories``).
    at
        One weight vector to report (default: a grid of ``resolution`` steps per side).
    z
        SE multiplier: a lead counts where ``S_A - S_B >= z * SE_AB`` (2: about 95%).
    rho
        Assumed between-model correlation (without paired draws).
    use_pairing
        Read the correlation from paired draws (``False``: assume ``rho``).

    Examples
    --------
    >>> import benchuq as bq
    >>> m = bq.weights(bq.load("sample:vtab1k"), resolution=10)
    >>> len(m.to_frame())
    66
    """
    check_types(locals())
    from benchuq.core.data import Benchmark as _Benchmark
    from benchuq.core.summaries.dominance import (
        dominance_map,
        map_categories,
        moments_from_benchmark,
        moments_from_draws,
    )

    names = data.category_names
    if categories is not None and merge is not None:
        raise InvalidArgument("give categories or merge, not both.")
    if len(names) > 3 and categories is None and merge is None:
        raise InvalidArgument(
            f"the data has {len(names)} categories ({', '.join(names)}); a map shows 2 or 3.",
            hint="pick them with categories=[...] (the others get weight 0) or merge them with "
            "merge={category: group}.",
        )
    mapping = map_categories(names, pick=categories, merge=merge)
    if isinstance(data, _Benchmark):
        moments, name = moments_from_benchmark(data, mapping=mapping), data.name
    else:
        moments, name = moments_from_draws(data, mapping=mapping), data.data
    point = None
    if at is not None:
        point = np.asarray(at, dtype=float)
        if point.ndim != 1 or np.any(~np.isfinite(point)) or np.any(point < 0) or point.sum() <= 0:
            raise InvalidArgument(f"at={list(np.ravel(point))}: give non-negative weights.")
        point = (point / point.sum())[None, :]
    dm = dominance_map(
        moments, z=z, rho=rho, resolution=resolution, weights=point, use_pairing=use_pairing
    )
    return WeightsResult(dm, name)


def statistic(
    draws: Draws,
    fn: Callable[[np.ndarray], Any],
    *,
    level: float = COMPARISON_LEVEL,
    name: str | None = None,
) -> StatisticResult:
    """Any statistic of the per-task scores, with a percentile interval over the draws.

    ``fn`` takes the ``(models, tasks)`` score matrix and returns one number or one number per
    model (e.g. an interquartile mean over tasks, as rliable); it is applied to the observed
    scores and to every draw, and the interval is the percentile interval of the draws' values
    (METHODS 2). Orientation is ``fn``'s: scores are as in the data (higher is better unless a
    task says otherwise).

    Parameters
    ----------
    draws
        From :func:`bootstrap` or :func:`bayes`.
    fn
        ``(M, T) array -> float or (M,) or (K,) array``.
    level
        Interval level.
    name
        The statistic's name (default ``fn.__name__``).

    Returns
    -------
    StatisticResult
        ``to_frame()``: ``label, estimate, low, high`` (labels are the models when ``fn``
        gives one value per model).

    Examples
    --------
    >>> import numpy as np
    >>> import benchuq as bq
    >>> d = bq.bootstrap(bq.load("sample:toy"), reps=400)
    >>> worst = bq.statistic(d, lambda s: np.nanmin(s, axis=1), name="worst task")
    >>> worst.labels
    ('A', 'B')
    """
    check_types(locals())
    level = check_level(level)
    if not callable(fn):
        raise InvalidArgument(f"fn must be a function of the (models, tasks) scores, not {fn!r}.")
    observed = np.atleast_1d(np.asarray(fn(np.array(draws.observed)), dtype=float))
    if observed.ndim != 1:
        raise InvalidArgument(
            f"fn must return a number or a 1-D array, got shape {observed.shape}."
        )
    values = np.empty((draws.reps, observed.size))
    for r in range(draws.reps):
        v = np.atleast_1d(np.asarray(fn(draws.values[r]), dtype=float))
        if v.shape != observed.shape:
            raise InvalidArgument(
                f"fn returned shape {v.shape} on draw {r}, {observed.shape} on the observed scores."
            )
        values[r] = v
    q = np.nanquantile(values, [(1 - level) / 2, (1 + level) / 2], axis=0)
    label = str(name or getattr(fn, "__name__", "statistic"))
    if label == "<lambda>":
        label = "statistic"
    labels = draws.models if observed.size == len(draws.models) else (label,)
    if observed.size not in (1, len(draws.models)):
        labels = tuple(f"{label}[{k}]" for k in range(observed.size))
    return StatisticResult(label, tuple(labels), observed, q[0], q[1], values, level, draws)
