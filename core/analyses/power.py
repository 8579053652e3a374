"""Power, minimum detectable difference and the items a comparison needs (METHODS 10, [M24]).

Two steps, each a function of the other's result:

1. A :class:`Design` says how precisely the models' aggregate scores are measured now: the
   covariance matrix of the aggregate estimates at the current number of items, read from the
   data (:func:`design_from_benchmark`) or built from assumptions (:func:`design_from_assumptions`).
2. :func:`plan` turns a design into, for each pair of models, the minimum detectable difference
   (MDE) now, the items needed to detect a chosen difference and the power now, at a family-wise
   level with a multiple-comparison critical value (:func:`critical_value`).

:func:`split_budget` plans K answers per item (stochastic generation) against more items.

Units: scores and differences are in the data's unit (proportions for accuracy: 0.01 is one
percentage point); ``n`` counts items over all tasks; ``level`` and ``power`` are fractions.
Choices (METHODS 10): variances are plug-in (the bootstrap's, no n/(n-1)); more items means
every task grows in proportion (the task mix and the cluster sizes stay as they are); power is
two-sided and per pair (the chance that this pair's family-wise interval excludes 0).

Long on purpose: METHODS 10 in one place: variances of paired differences, the detectable
difference and the items needed, for counts, items and estimates with standard errors.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats
from threadpoolctl import threadpool_limits

from benchuq.core.data import Benchmark, DataError, is_proportion
from benchuq.core.defaults import COMPARISON_LEVEL, POWER, POWER_CORRECTIONS, SEED
from benchuq.core.options import option
from benchuq.core.threads import blas_threads
from benchuq.core.validation import check_choice, check_level
from benchuq.core.zero_spread import PREFIX

__all__ = [
    "ASSUMPTIONS",
    "CORRECTIONS",
    "Design",
    "PowerPlan",
    "SamplingPlan",
    "assumed_differences",
    "critical_value",
    "design_from_assumptions",
    "design_from_benchmark",
    "display_scale",
    "plan",
    "round_up",
    "split_budget",
]

Correction = Literal["maxt", "bonferroni", "none"]
CORRECTIONS = POWER_CORRECTIONS  # the corrections and their names (core.defaults)
ASSUMPTIONS = "assumptions"  # the name of a design without data
MAXT_DRAWS = 100_000  # normal draws for the max-T critical value (its MC error is below 0.5%)


@dataclass(frozen=True)
class Design:
    """How precisely the models' aggregate scores are measured at the current size.

    Attributes
    ----------
    name
        the data set (``"assumptions"`` without data).
    models
        model names; ``estimate`` ``(M,)`` their aggregate scores.
    cov
        ``(M, M)`` covariance of the aggregate estimates at ``n`` items, clusters included.
    cov_iid
        the same with every item its own cluster (``cov`` / ``cov_iid`` = design effect).
    n
        items now over all tasks (``None`` when the data do not say: estimate and se only).
    cluster_size
        mean cluster size ``sum_g m_g^2 / n`` (1 without clusters).
    rho
        the assumed correlation between models, ``None`` when read from paired items.
    source
        how the variances were obtained (shown next to results).
    group
        the score compared (``"overall"``, a category, or a weights label).
    notes
        caveats to show.
    """

    name: str
    models: tuple[str, ...]
    estimate: np.ndarray
    cov: np.ndarray
    cov_iid: np.ndarray
    n: int | None
    cluster_size: float = 1.0
    rho: float | None = None
    source: str = ""
    group: str = "overall"
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PowerPlan:
    """Per pair (arrays over pairs ``a[k]`` vs ``b[k]``), at the family-wise ``level``.

    Attributes
    ----------
    design
        the design planned on.
    a, b
        model names; ``estimate`` the observed (or assumed) difference ``a - b``.
    se
        standard error of the difference now; ``var_item``: per-item variance of the
        difference, items independent (``n * Var``); ``deff``: design effect of clusters;
        ``icc``: within-cluster correlation of the difference (nan without clusters);
        ``rho``: correlation of the two models' scores (estimated, or ``design.rho``).
    mde
        minimum detectable difference now, ``(c + z_power) se``.
    delta
        the difference to detect per pair (nan when none was asked for).
    factor_required
        items needed as a multiple of the current items.
    n_required
        items needed (``nan`` without ``delta`` or without ``design.n``).
    power_now
        power now at ``delta``.
    level, power
        family-wise level and power (fractions); ``family``: comparisons in the
        family; ``correction`` and its ``critical`` value ``c``; ``z_power`` = z_{power}.
    """

    design: Design
    a: tuple[str, ...]
    b: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    var_item: np.ndarray
    deff: np.ndarray
    icc: np.ndarray
    rho: np.ndarray
    mde: np.ndarray
    delta: np.ndarray
    factor_required: np.ndarray
    n_required: np.ndarray
    power_now: np.ndarray
    level: float
    power: float
    family: int
    correction: str
    critical: float
    z_power: float
    notes: tuple[str, ...] = ()

    def se_at(self, n: np.ndarray) -> np.ndarray:
        """``(pairs, len(n))`` standard errors at ``n`` items (multiples of the current size
        when ``design.n`` is ``None``)."""
        now = 1.0 if self.design.n is None else float(self.design.n)
        return self.se[:, None] * np.sqrt(now / np.asarray(n, dtype=float))[None, :]

    def mde_at(self, n: np.ndarray) -> np.ndarray:
        """``(pairs, len(n))``: the MDE at ``n`` items (``nan`` for a pair without measured
        spread, METHODS 10)."""
        return np.where(
            np.isnan(self.mde)[:, None], np.nan, (self.critical + self.z_power) * self.se_at(n)
        )

    def power_at(self, n: np.ndarray, *, delta: float | None = None) -> np.ndarray:
        """``(pairs, len(n))``: power at ``n`` items for ``delta`` (default: each pair's)."""
        d = self.delta[:, None] if delta is None else np.full((len(self.a), 1), float(delta))
        return _power(np.abs(d), self.se_at(n), self.critical)

    def sentence(self, k: int, *, scale: float = 100.0, unit: str = "points") -> str:
        """What pair ``k`` means for the next evaluation, for a non-statistician."""
        n = self.design.n
        now = f" ({n:,} items)" if n else ""
        if np.isnan(self.mde[k]):  # no spread measured: nothing to forecast from (METHODS 10)
            return (
                f"{self.a[k]} vs {self.b[k]}: no spread measured{now}, so these data forecast "
                "no detectable difference (plan from assumed accuracies)."
            )
        text = f"{self.a[k]} vs {self.b[k]}: detectable at {_amount(self.mde[k] * scale, unit)} now"
        text += now
        d = self.delta[k]
        if not np.isfinite(d) or d <= 0:
            return text + "."
        target = f"{_amount(d * scale, unit)} at {100 * self.power:g}% power"
        if self.factor_required[k] <= 1:
            now_power = f"power now {self.power_now[k]:.0%}"
            return f"{text}; today's items already detect {target} ({now_power})."
        if n:
            need = f"{round_up(self.n_required[k]):,} items"
        else:
            need = f"{self.factor_required[k]:.1f}x today's items"
        return f"{text}; {need} to detect {target}."


@dataclass(frozen=True)
class SamplingPlan:
    """K answers per item against more items, at a fixed budget (METHODS 10, [M24] resampling).

    Arrays over ``k`` (answers per item, 1..k_max): ``items`` affordable, ``var_item`` the
    per-item variance of the difference ``between + within / k``, ``mde`` at (items, k).
    ``best`` indexes the smallest MDE. ``budget`` is in answers (generations) per model;
    ``item_cost`` is the cost of one more item in the same unit; ``pool`` caps the items.
    """

    k: np.ndarray
    items: np.ndarray
    var_item: np.ndarray
    mde: np.ndarray
    best: int
    budget: float
    item_cost: float
    pool: int | None
    between: float
    within: float


def _amount(x: float, unit: str) -> str:
    """A difference for a sentence: one decimal below 10, none above ("1.8 points", "1 point")."""
    text = f"{x:.1f}" if abs(x) < 10 else f"{x:.0f}"
    text = text.removesuffix(".0")
    return f"{text} {unit.removesuffix('s') if text == '1' else unit}"


def round_up(n: float) -> int:
    """``n`` rounded up to two significant digits (3,371 -> 3,400): what a plan should say."""
    if not np.isfinite(n):
        return 0
    if n <= 100:
        return math.ceil(n)
    step = 10 ** (math.floor(math.log10(n)) - 1)
    return math.ceil(n / step) * step


def display_scale(design: Design) -> tuple[float, str]:
    """(factor, unit) for showing differences: percentage points when every score is a
    proportion, the scores' own units otherwise."""
    return (100.0, "points") if is_proportion(design.estimate) else (1.0, "units")


def assumed_differences(design: Design, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Each pair's difference ``|estimate_a - estimate_b|`` (nan where 0): without data, the
    difference to detect is the one assumed."""
    idx = {m: i for i, m in enumerate(design.models)}
    d = np.array([abs(design.estimate[idx[a]] - design.estimate[idx[b]]) for a, b in pairs])
    return np.where(d > 0, d, np.nan)


def _power(delta: np.ndarray, se: np.ndarray, c: float) -> np.ndarray:
    """Two-sided power ``Phi(delta/se - c) + Phi(-delta/se - c)``; 1 where se = 0 < delta."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, delta / se, np.where(delta > 0, np.inf, 0.0))
    return stats.norm.cdf(t - c) + stats.norm.cdf(-t - c)


def _check_fraction(value: float, name: str, *, closed: str = "", lo: float = 0.0) -> float:
    """``value`` as a float, or DataError unless ``lo < value < 1``; ``closed`` may hold
    ``"lo"`` and/or ``"hi"`` to include the ends."""
    ok = np.isfinite(value) and (lo <= value if "lo" in closed else lo < value)
    ok = ok and (value <= 1 if "hi" in closed else value < 1)
    if not ok:
        raise DataError(f"{name} must be between {lo:g} and 1 (a fraction), got {value}.")
    return float(value)


def critical_value(
    level: float,
    *,
    family: int = 1,
    correction: Correction = "maxt",
    corr: np.ndarray | None = None,
    seed: int = SEED,
) -> float:
    """The critical value ``c`` of family-wise two-sided tests at ``level`` (METHODS 10).

    ``none``: ``z_{1-alpha/2}``; ``bonferroni``: ``z_{1-alpha/(2K)}``; ``maxt``: the ``level``
    quantile of ``max_k |Z_k|`` with ``Z ~ N(0, corr)`` (``corr`` the ``K x K`` correlation of the
    pair statistics; ``MAXT_DRAWS`` seeded draws), the normal counterpart of the bootstrap max-T
    of Romano & Wolf (2005). Without ``corr``: the statistics are taken as independent (Sidak,
    ``z_{(1 + level^(1/K))/2}``), which is at least as large as max-T for correlated pairs.
    """
    level = check_level(level)
    if int(family) != family or family < 1:
        raise DataError(f"the family must be a whole number of comparisons >= 1, got {family}.")
    check_choice(correction, CORRECTIONS, name="correction")
    K = int(family)
    if correction == "none" or K == 1:
        return float(stats.norm.ppf((1 + level) / 2))
    if correction == "bonferroni":
        return float(stats.norm.ppf(1 - (1 - level) / (2 * K)))
    if corr is None:
        return float(stats.norm.ppf((1 + level ** (1 / K)) / 2))
    vals, vecs = np.linalg.eigh(np.asarray(corr, dtype=float))
    keep = vals > 1e-10 * max(vals.max(), 1e-300)  # pairs of M models have rank <= M - 1
    root = vecs[:, keep] * np.sqrt(vals[keep])
    rng = np.random.default_rng(seed)
    chunk = 10_000
    # thin products: one BLAS thread is 3x faster than several on a busy machine (bench_power);
    # the package's thread policy (core.threads)
    with threadpool_limits(limits=blas_threads(), user_api="blas"):
        maxima = np.concatenate(
            [
                np.abs(rng.standard_normal((chunk, root.shape[1])) @ root.T).max(axis=1)
                for _ in range(MAXT_DRAWS // chunk)
            ]
        )
    return float(np.quantile(maxima, level))


def _task_weights(bench: Benchmark, group: str | Sequence[float] | np.ndarray) -> np.ndarray:
    """``(T,)`` weight of each task in the compared score (METHODS 0)."""
    cats = np.array(bench.categories)
    if isinstance(group, str):
        if group == "overall":
            return np.full(len(cats), 1.0 / len(cats))
        if group not in bench.category_names:
            raise DataError(
                f"unknown group {group!r}.",
                column="category",
                hint=f"use 'overall' or one of {list(bench.category_names)}.",
            )
        return np.where(cats == group, 1.0 / np.sum(cats == group), 0.0)
    w = np.asarray(group, dtype=float)
    if w.shape != (len(bench.category_names),) or np.any(~(w >= 0)) or w.sum() <= 0:
        raise DataError(
            f"weights must be {len(bench.category_names)} numbers >= 0 (not all 0), one per "
            f"category {list(bench.category_names)}.",
            column="weights",
        )
    w = w / w.sum()
    idx = bench.category_index
    return w[idx] / np.bincount(idx)[idx]


def _group_label(group: str | Sequence[float] | np.ndarray, names: Sequence[str]) -> str:
    if isinstance(group, str):
        return group
    w = np.asarray(group, dtype=float) / np.sum(group)
    return "weighted " + ", ".join(f"{c} {x:.2f}" for c, x in zip(names, w, strict=True))


def _item_cov(
    scores: np.ndarray, cluster: Sequence[str] | None
) -> tuple[np.ndarray, np.ndarray, float]:
    """(cov, cov_iid, sum of squared cluster sizes) of the model means of one task.

    Linearised (plug-in bootstrap) covariance of means over present items:
    ``sum_g (sum_{l in g} e_il / n_i)(sum_{l in g} e_kl / n_k)`` with residuals ``e``.
    """
    present = ~np.isnan(scores)
    n_i = np.maximum(present.sum(axis=1), 1)
    mean = np.where(present, scores, 0.0).sum(axis=1) / n_i
    u = np.where(present, scores - mean[:, None], 0.0) / n_i[:, None]
    iid = u @ u.T
    if cluster is None:
        return iid, iid, float(scores.shape[1])
    _, cid = np.unique(np.array(cluster, dtype=str), return_inverse=True)
    sums = np.zeros((u.shape[0], int(cid.max()) + 1))
    np.add.at(sums.T, cid, u.T)
    return sums @ sums.T, iid, float(np.sum(np.bincount(cid) ** 2))


def design_from_benchmark(
    bench: Benchmark,
    *,
    models: Sequence[str] | None = None,
    group: str | Sequence[float] | np.ndarray = "overall",
    rho: float = 0.0,
) -> Design:
    """What the data say about the precision of each model's score (METHODS 10).

    - Item-level data: per-item variances and between-model covariances of the paired scores;
      with a cluster column, cluster sums (the variance the cluster bootstrap estimates), so the
      design effect and the within-cluster correlation come from the data. ``rho`` is unused.
    - Task-level counts: independent binomial variances ``p (1 - p) / n`` per task and the
      **assumed** correlation ``rho`` between models (counts cannot show it).
    - Estimate and se: ``se^2`` per task and the assumed ``rho``; the items are unknown.

    The score is ``group``: ``"overall"`` (mean over all tasks), a category, or category weights;
    its variance is ``sum_j w_j^2 Var_j`` over tasks (tasks hold different items). Tasks where
    one of the models has no result are left out (a note says so).
    """
    rho = _check_fraction(rho, "the assumed correlation rho", closed="lo")
    sub = bench.subset(models=list(models)) if models is not None else bench
    w = _task_weights(sub, group)
    complete = ~np.isnan(sub.estimate).any(axis=0)
    notes = list(sub.notes)
    use = complete & (w > 0)
    if not use.any():
        raise DataError(
            "no task has results for all the chosen models.",
            column="model",
            hint="choose models that share at least one task, or plan from assumptions instead.",
        )
    if (~complete & (w > 0)).any():
        left = [t for t, ok in zip(sub.tasks, complete, strict=True) if not ok]
        notes.append(f"Left out {len(left)} task(s) where a model has no result: {left[:5]}.")
    w = np.where(use, w, 0.0) / w[use].sum()
    hib_all = np.asarray(sub.higher_is_better)
    hib = hib_all[use]
    sign = np.where(hib_all, 1.0, -1.0) if 0 < hib.sum() < hib.size else np.ones(hib_all.shape)
    estimate = (w * sign * np.nan_to_num(sub.estimate)).sum(axis=1)
    M = len(sub.models)
    cov, cov_iid = np.zeros((M, M)), np.zeros((M, M))
    n, squares, clustered = 0, 0.0, False
    for j in np.flatnonzero(use):
        if sub.kind == "items":
            it = (sub.item_tasks or ())[j]
            c, ci, sq = _item_cov(np.asarray(it.scores, dtype=float), it.cluster)
            n_j, clustered = len(it.items), clustered or it.cluster is not None
        else:
            if sub.kind == "counts":
                p, items = sub.estimate[:, j], np.asarray(sub.n)[:, j]
                v, n_j = p * (1 - p) / items, int(items.max())
            else:
                v, n_j = np.asarray(sub.se)[:, j] ** 2, 0
            c = rho * np.sqrt(np.outer(v, v))
            np.fill_diagonal(c, v)
            ci, sq = c, float(n_j)
        cov += w[j] ** 2 * c
        cov_iid += w[j] ** 2 * ci
        n += n_j
        squares += sq
    source = {
        "items": "paired item scores" + (", clustered" if clustered else ""),
        "counts": f"task-level counts, independent binomial variances, assumed rho = {rho:g}",
        "estimate_se": f"reported standard errors, assumed rho = {rho:g}",
    }[sub.kind]
    if sub.kind == "estimate_se":
        notes.append("The data give standard errors but not item counts: sizes are relative.")
    return Design(
        name=sub.name,
        models=sub.models,
        estimate=estimate,
        cov=cov,
        cov_iid=cov_iid,
        n=int(n) if n else None,
        cluster_size=squares / n if n else 1.0,
        rho=None if sub.kind == "items" else float(rho),
        source=source,
        group=_group_label(group, sub.category_names),
        notes=tuple(notes),
    )


def design_from_assumptions(
    accuracies: Sequence[float],
    items: int,
    *,
    corr: float = 0.0,
    cluster_size: float = 1.0,
    icc: float = 0.0,
    tasks: int = 1,
    sd: Sequence[float] | None = None,
    models: Sequence[str] | None = None,
) -> Design:
    """A design without data: planning a new benchmark (METHODS 10).

    ``accuracies`` (one per model, fractions) with binary item scores of variance ``p (1 - p)``,
    or mean scores with per-item standard deviations ``sd``; ``corr`` between two models' scores
    on the same item; clusters of ``cluster_size`` items with within-cluster correlation ``icc``
    (design effect ``1 + (m - 1) icc``); ``tasks`` of ``items`` items each, averaged with equal
    weights. With the same per-item variance in every task the task count only changes how the
    items are counted (``items x tasks`` in all).
    """
    p = np.asarray(accuracies, dtype=float)
    M = len(p)
    if M < 2 or not np.all(np.isfinite(p)):
        raise DataError("give at least two accuracies (one per model), as numbers.")
    names = tuple(models) if models is not None else tuple(f"model {i + 1}" for i in range(M))
    if len(names) != M or len(set(names)) != M:
        raise DataError(f"give {M} distinct model names, one per accuracy.")
    for value, name, lo in ((items, "items", 2), (tasks, "tasks", 1)):
        if int(value) != value or value < lo:
            raise DataError(f"{name} must be a whole number >= {lo}, got {value}.")
    corr = _check_fraction(corr, "the correlation between models", closed="lo")
    icc = _check_fraction(icc, "the within-cluster correlation (ICC)", closed="lohi")
    if not (np.isfinite(cluster_size) and cluster_size >= 1):
        raise DataError(f"the cluster size must be at least 1 item, got {cluster_size}.")
    if sd is None:
        if np.any((p <= 0) | (p >= 1)):
            raise DataError(
                "accuracies must be fractions strictly between 0 and 1, got "
                f"{', '.join(f'{x:g}' for x in p)}.",
                hint="write 0.7 for 70%.",
            )
        s = np.sqrt(p * (1 - p))
        for i, k in itertools.combinations(range(M), 2):
            lo_p, hi_p = min(p[i], p[k]), max(p[i], p[k])
            top = math.sqrt(lo_p * (1 - hi_p) / (hi_p * (1 - lo_p)))
            if corr > top + 1e-9:
                raise DataError(
                    f"right/wrong scores with accuracies {p[i]:g} and {p[k]:g} cannot have a "
                    f"correlation of {corr:g}: at most {top:.2f}.",
                    hint="lower the correlation (0.3-0.6 is typical for models on one test).",
                )
    else:
        s = np.asarray(sd, dtype=float)
        if s.shape != (M,) or np.any(~(s > 0)):
            raise DataError(f"give {M} per-item standard deviations > 0, one per model.")
    per_item = corr * np.outer(s, s)
    np.fill_diagonal(per_item, s**2)
    n = int(items) * int(tasks)
    deff = 1.0 + (cluster_size - 1.0) * icc
    kind = "binary" if sd is None else "continuous"
    return Design(
        name=ASSUMPTIONS,
        models=names,
        estimate=p,
        cov=per_item * deff / n,
        cov_iid=per_item / n,
        n=n,
        cluster_size=float(cluster_size),
        rho=float(corr),
        source=f"assumed {kind} item scores, correlation {corr:g}"
        + (f", clusters of {cluster_size:g} with ICC {icc:g}" if deff > 1 else ""),
        notes=(),
    )


def plan(
    design: Design,
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    level: float = COMPARISON_LEVEL,
    power: float = POWER,
    delta: float | Sequence[float] | None = None,
    family: int | None = None,
    correction: Correction = "maxt",
    seed: int = SEED,
) -> PowerPlan:
    """MDE now, items needed and power now for each pair (METHODS 10).

    ``pairs`` default: every pair of ``design.models``. ``family``: comparisons in the family
    (default: the pairs given, as the Compare page counts them); with max-T and the default
    family the pairs' correlations come from the design, with another family size they are
    taken as independent. ``delta``: the difference to detect (one for all pairs, or one per
    pair), > 0 in the scores' unit. ``power`` between 0.5 and 1: the closed forms
    ``MDE = (c + z_power) se`` and ``n = n_now ((c + z_power) se / delta)^2`` leave out the far
    tail, which is below 5e-5 there.
    """
    level = check_level(level)
    power = _check_fraction(power, "the power", closed="lo", lo=0.5)
    idx = {m: i for i, m in enumerate(design.models)}
    if pairs is None:
        pairs = list(itertools.combinations(design.models, 2))
    pairs = list(pairs)
    if len(design.models) < 2:
        raise DataError(
            "a power plan compares two or more models; the data hold only "
            f"{', '.join(repr(m) for m in design.models)}.",
            column="model",
            hint="add a second model's results, or plan from assumed accuracies "
            f"({option('accuracy', [0.7, 0.72])} and {option('items', text='N')}).",
        )
    bad = [m for pair in pairs for m in pair if m not in idx]
    if not pairs or bad or any(a == b for a, b in pairs):
        raise DataError(
            f"pairs must name two different models of {list(design.models)}; got {pairs[:5]}.",
            column="model",
        )
    K = len(pairs)
    C = np.zeros((K, len(design.models)))
    for k, (a, b) in enumerate(pairs):
        C[k, idx[a]], C[k, idx[b]] = 1.0, -1.0
    var = np.einsum("km,mn,kn->k", C, design.cov, C)
    var_iid = np.einsum("km,mn,kn->k", C, design.cov_iid, C)
    se = np.sqrt(np.maximum(var, 0.0))
    flat = ~(se > 0)  # plug-in variance 0: every item's difference alike (METHODS 10)
    fam = K if family is None else family
    corr = None
    if correction == "maxt" and fam == K and K > 1:
        pair_cov = C @ design.cov @ C.T
        scale = np.where(se > 0, se, 1.0)
        corr = pair_cov / np.outer(scale, scale)
        corr[flat, :], corr[:, flat] = 0.0, 0.0
        corr[flat, flat] = 1.0  # a flat pair still counts in the family (c >= one test's z)
    c = critical_value(level, family=fam, correction=correction, corr=corr, seed=seed)
    z_power = float(stats.norm.ppf(power))
    d = np.full(K, np.nan) if delta is None else np.broadcast_to(np.asarray(delta, float), (K,))
    if np.any(d[np.isfinite(d)] <= 0):
        raise DataError(f"the difference to detect must be > 0, got {list(d)}.")
    n_now = 1.0 if design.n is None else float(design.n)
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = np.where(var_iid > 0, var / var_iid, 1.0)
        m = design.cluster_size
        icc = (deff - 1.0) / (m - 1.0) if m > 1 else np.full(K, np.nan)
        ia, ib = (C > 0).argmax(axis=1), (C < 0).argmax(axis=1)
        ci = design.cov_iid
        rho = ci[ia, ib] / np.sqrt(ci[ia, ia] * ci[ib, ib])
        factor = np.where(flat, np.nan, ((c + z_power) * se / d) ** 2)
    flat_pairs = [f"{a} vs {b}" for (a, b), f in zip(pairs, flat, strict=True) if f]
    note = (
        f"{PREFIX} for {', '.join(flat_pairs[:8])}"
        + (f" and {len(flat_pairs) - 8} more" if len(flat_pairs) > 8 else "")
        + ": each item's difference is the same, so the plug-in variance of the difference is 0 "
        "and no detectable difference or items needed can be forecast from it (a forecast of 0 "
        "would claim a certainty these data do not give); plan such pairs from assumed "
        f"accuracies ({option('accuracy', text='[A, B]')} and {option('items', text='N')})."
    )
    return PowerPlan(
        design=design,
        a=tuple(a for a, _ in pairs),
        b=tuple(b for _, b in pairs),
        estimate=C @ design.estimate,
        se=se,
        var_item=n_now * var_iid,
        deff=deff,
        icc=icc,
        rho=rho,
        mde=np.where(flat, np.nan, (c + z_power) * se),
        delta=d.copy(),
        factor_required=factor,
        n_required=np.ceil(factor * design.n) if design.n else np.full(K, np.nan),
        power_now=np.where(flat, np.nan, _power(d, se, c)),
        level=level,
        power=power,
        family=int(fam),
        correction=correction,
        critical=c,
        z_power=z_power,
        notes=(note,) if flat_pairs else (),
    )


def split_budget(
    var_item: float,
    within: float,
    budget: float,
    *,
    critical: float,
    z_power: float,
    k_now: int = 1,
    item_cost: float = 0.0,
    pool: int | None = None,
    k_max: int = 20,
) -> SamplingPlan:
    """K answers per item or more items, for a fixed budget (METHODS 10, [M24] resampling).

    ``var_item`` is the per-item variance of the difference with ``k_now`` answers averaged per
    item (design effect included), ``within`` the part of one answer's variance that is sampling
    noise (both models together: ``s_wA^2 + s_wB^2``). The item score averaged over K answers has
    variance ``between + within / K`` with ``between = var_item - within / k_now``. One item with K
    answers costs ``item_cost + K`` answers; ``items(K) = min(pool, budget / (item_cost + K))``;
    ``MDE(K) = (c + z_power) sqrt((between + within / K) / items(K))``. Without an item cost
    and without a pool limit one answer per item is always best.
    """
    if not (np.isfinite(var_item) and var_item > 0):
        raise DataError(f"the per-item variance must be > 0, got {var_item}.")
    if not (np.isfinite(within) and 0 <= within):
        raise DataError(f"the within-item variance must be >= 0, got {within}.")
    between = var_item - within / k_now
    if between < 0:
        raise DataError(
            f"a within-item variance of {within:.4g} is more than the data's whole per-item "
            f"variance ({var_item * k_now:.4g} for one answer).",
            hint="lower the within-item share (sampling noise cannot exceed the total).",
        )
    if not (np.isfinite(budget) and budget >= 2) or not (item_cost >= 0):
        raise DataError(f"the budget must be at least 2 answers, got {budget}.")
    if pool is not None and pool < 2:
        raise DataError(f"the item pool must hold at least 2 items, got {pool}.")
    k = np.arange(1, int(k_max) + 1)
    items = np.floor(budget / (item_cost + k))
    if pool is not None:
        items = np.minimum(items, pool)
    v = between + within / k
    with np.errstate(divide="ignore"):
        mde = np.where(items >= 2, (critical + z_power) * np.sqrt(v / items), np.inf)
    return SamplingPlan(
        k=k,
        items=items.astype(np.int64),
        var_item=v,
        mde=mde,
        best=int(np.argmin(mde)),
        budget=float(budget),
        item_cost=float(item_cost),
        pool=pool,
        between=float(between),
        within=float(within),
    )
