"""Task weighting on the simplex: which model leads, and is the lead real (METHODS 5, [LGC] 2.3).

For weights ``w`` over two or three categories the weighted score is ``S_i(w) = sum_c w_c m_ic``.
At every grid point the leader A and runner-up B are compared with the SE rule
``S_A - S_B >= z * SE_AB``; points that fail are *indeterminate*. The probability view gives
``P(model i is best at w)`` from draws.

The second moments live in :class:`CategoryMoments`: the joint covariance of all category means,
either analytic under independence (METHODS 5 formula) or estimated from draws. With paired draws
the SE of ``S_A - S_B`` is read from that covariance and the implied rho reported; otherwise the
user's rho is assumed.

Choices the spec leaves open (stated here and in the app):

- A model's category mean averages the tasks it has a result for (``T_c`` counts those tasks).
- Lower-is-better tasks enter as their negation (METHODS 0), so larger ``S`` is always better.
- Item data: the variance of a task mean is the population variance of the item scores divided by
  the number of scored items (equal to ``p(1 - p) / n`` for 0/1 scores); clusters are ignored by
  the analytic variance (paired draws account for them).
- A point has a winner only if ``S_A - S_B > 0`` and ``S_A - S_B >= z * SE_AB``: an exact tie is
  indeterminate even when its SE is zero.
- Merged categories: a merged category is one category holding all the tasks of its members
  (tasks weigh equally inside it, as in ``m_ic``).
- Probability view: when several models share the largest ``S(w)`` in a draw, the draw's credit
  is split equally among them.

Long on purpose: METHODS 5 in one place: category moments from data or draws, dominance maps,
P(best) maps and weighted scores share the same moment algebra.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from benchuq.core.data import Benchmark, DataError
from benchuq.core.defaults import LEVEL
from benchuq.core.draws import Draws, method_words
from benchuq.core.summaries.ordering import best_first
from benchuq.core.threads import blas_policy
from benchuq.core.validation import InvalidArgument, check_known, check_level, parse_weights

__all__ = [
    "MAX_RESOLUTION",
    "BestProbabilityMap",
    "CategoryMoments",
    "DominanceMap",
    "WeightedScores",
    "best_probability_map",
    "dominance_map",
    "from_map_weights",
    "implied_level",
    "map_categories",
    "moments_from_benchmark",
    "moments_from_draws",
    "parse_weights",
    "simplex_grid",
    "to_map_weights",
    "weighted_scores",
    "z_for_level",
]

MAX_RESOLUTION = 400


# ---- grid -------------------------------------------------------------------------------------
def simplex_grid(resolution: int, *, n_categories: int = 3) -> np.ndarray:
    """Grid of weights ``(i/r, j/r, k/r)`` with ``i + j + k = r`` (``(r+1)(r+2)/2`` points).

    Two categories give the ``r + 1`` points ``(i/r, 1 - i/r)``. Points are ordered by the first
    weight descending, then the second descending, so the first point is the first vertex.
    """
    r = int(resolution)
    if not 1 <= r <= MAX_RESOLUTION:
        raise InvalidArgument(
            f"grid resolution {resolution} is out of range.",
            hint=f"use a whole number from 1 to {MAX_RESOLUTION} (100 gives 5,151 points).",
        )
    if n_categories == 2:
        first = np.arange(r, -1, -1)
        return np.column_stack([first, r - first]) / r
    if n_categories != 3:
        raise DataError(f"a simplex map needs 2 or 3 categories, not {n_categories}.")
    i, j = np.meshgrid(np.arange(r, -1, -1), np.arange(r, -1, -1), indexing="ij")
    keep = i + j <= r
    i, j = i[keep], j[keep]
    return np.column_stack([i, j, r - i - j]) / r


# ---- categories -------------------------------------------------------------------------------
def map_categories(
    names: Sequence[str],
    *,
    pick: Sequence[str] | None = None,
    merge: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Which map category each data category feeds: pick three (others weight 0) or merge.

    ``pick`` lists the categories to keep (the others get weight 0, so their tasks drop out);
    ``merge`` maps data categories to new group names (tasks of unmapped categories drop out).
    Without either, every category is kept as it is. Returns ``{data category: map category}``.
    """
    names = list(names)
    if pick is not None and merge is not None:
        raise InvalidArgument("choose either categories to keep or a merge, not both.")
    if merge is not None:
        check_known(merge, names, what="categories in the merge")
        return {c: str(merge[c]) for c in names if c in merge}
    keep = names if pick is None else [str(c) for c in pick]
    check_known(keep, names, what="categories")
    if len(set(keep)) != len(keep):
        raise InvalidArgument(f"categories {keep} repeat a name.", hint="name each category once.")
    return {c: c for c in keep}


def _groups(mapping: Mapping[str, str]) -> tuple[str, ...]:
    groups = tuple(dict.fromkeys(mapping.values()))
    if len(groups) not in (2, 3):
        raise DataError(
            f"a task-weight map needs 2 or 3 categories; this choice gives {len(groups)}.",
            column="category",
            hint="pick three categories (the others get weight 0) or merge them into three.",
        )
    return groups


def _averaging(
    task_categories: Sequence[str],
    mapping: Mapping[str, str],
    present: np.ndarray,
    models: Sequence[str],
) -> tuple[tuple[str, ...], np.ndarray]:
    """``(M, C, T)`` weights ``1 / T_ic`` that turn task scores into category means."""
    groups = _groups(mapping)
    member = np.array(
        [[mapping.get(c) == g for c in task_categories] for g in groups], dtype=float
    )  # (C, T)
    a = member[None, :, :] * present[:, None, :]
    counts = a.sum(axis=2)  # (M, C)
    empty = np.argwhere(counts == 0)
    if empty.size:
        i, c = empty[0]
        raise DataError(
            f"model '{models[i]}' has no result in category '{groups[c]}'.",
            column="category",
            hint="pick categories every model has results in, or leave that model out.",
        )
    return groups, a / counts[:, :, None]


# ---- moments ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CategoryMoments:
    """Category means and their joint covariance: the inputs of the SE rule.

    Attributes
    ----------
    models
        model names (M).
    categories
        map categories (C = 2 or 3).
    means
        ``(M, C)`` observed category means ``m_ic`` (score units; larger is better).
    cov
        ``(M, C, M, C)`` covariance of the category means; under independence it is zero
        off the ``(i, c, i, c)`` diagonal.
    paired
        True when ``cov`` holds between-model covariances from paired draws.
    source
        how ``cov`` was obtained, for captions.
    draws
        ``(R, M, C)`` draws of the category means (``None`` for the analytic moments).
    """

    models: tuple[str, ...]
    categories: tuple[str, ...]
    means: np.ndarray
    cov: np.ndarray
    paired: bool
    source: str
    draws: np.ndarray | None = None

    @property
    def variances(self) -> np.ndarray:
        """``(M, C)`` ``Var(m_ic)``."""
        M, C = self.means.shape
        return np.einsum("icic->ic", self.cov.reshape(M, C, M, C))


def _task_variances(bench: Benchmark) -> np.ndarray:
    """``(M, T)`` variance of each observed task score (METHODS 5)."""
    if bench.kind == "counts":
        counts = np.asarray(bench.n)
        n = np.where(counts > 0, counts, 1)
        p = np.asarray(bench.correct) / n
        return p * (1 - p) / n
    if bench.kind == "estimate_se":
        return np.asarray(bench.se, dtype=float) ** 2
    cols = []
    for it in bench.item_tasks or ():
        k = np.sum(~np.isnan(it.scores), axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            v = np.nanvar(it.scores, axis=1) / k
        cols.append(np.where(k > 0, v, 0.0))
    return np.column_stack(cols)


def moments_from_benchmark(
    bench: Benchmark, *, mapping: Mapping[str, str] | None = None
) -> CategoryMoments:
    """Analytic category means and variances under independence (METHODS 5).

    ``Var(m_ic) = (1/T_c^2) sum_{j in c} p_ij (1 - p_ij) / n_ij`` for counts; ``se^2`` replaces
    the binomial variance for estimate/se data and the item variance over ``n_ij`` for item data.
    """
    mapping = map_categories(bench.category_names) if mapping is None else mapping
    present = ~np.isnan(bench.estimate)
    groups, a = _averaging(bench.categories, mapping, present, bench.models)
    sign = np.where(np.asarray(bench.higher_is_better), 1.0, -1.0)
    est = np.where(present, bench.estimate * sign, 0.0)
    var = np.where(present, _task_variances(bench), 0.0)
    means = np.einsum("icj,ij->ic", a, est)
    v = np.einsum("icj,ij->ic", a**2, var)
    M, C = means.shape
    cov = np.zeros((M, C, M, C))
    ii, cc = np.meshgrid(np.arange(M), np.arange(C), indexing="ij")
    cov[ii, cc, ii, cc] = v
    return CategoryMoments(
        models=bench.models,
        categories=groups,
        means=means,
        cov=cov,
        paired=False,
        source="analytic variances, models independent",
    )


def moments_from_draws(
    draws: Draws, *, mapping: Mapping[str, str] | None = None
) -> CategoryMoments:
    """Category means from ``draws.observed`` and their joint covariance from the draws.

    With ``draws.paired`` the between-model covariances are kept (the SE rule then reads the SE
    of ``S_A - S_B`` from them); otherwise only each model's own covariance is kept, since the
    draws carry no information on between-model correlation.
    """
    mapping = map_categories(draws.category_names) if mapping is None else mapping
    present = ~np.isnan(draws.observed)
    groups, a = _averaging(draws.categories, mapping, present, draws.models)
    sign = draws.sign
    obs = np.where(present, draws.observed * sign, 0.0)
    vals = np.where(present[None], np.nan_to_num(draws.values) * sign, 0.0)
    means = np.einsum("icj,ij->ic", a, obs)
    cat = np.einsum("icj,rij->ric", a, vals)  # (R, M, C)
    R, M, C = cat.shape
    flat = (cat - cat.mean(axis=0)).reshape(R, M * C)
    cov = (flat.T @ flat / max(R - 1, 1)).reshape(M, C, M, C)
    if not draws.paired:
        own = np.eye(M)[:, None, :, None]
        cov = cov * own
    return CategoryMoments(
        models=draws.models,
        categories=groups,
        means=means,
        cov=cov,
        paired=bool(draws.paired),
        source=f"{method_words(draws.method)}, {R} replicates"
        + ("" if draws.paired else ", models independent"),
        draws=cat,
    )


# ---- SE rule ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DominanceMap:
    """The SE rule at each weight vector (METHODS 5).

    Attributes
    ----------
    models, categories
        labels (``categories`` are the simplex corners / line ends).
    weights
        ``(P, C)`` weight vectors (rows sum to 1).
    scores
        ``(P, M)`` weighted scores ``S_i(w)``.
    leader, runner_up
        ``(P,)`` model indices of the best and second-best ``S(w)``.
    difference
        ``(P,)`` ``S_A - S_B`` (score units, >= 0).
    se
        ``(P,)`` ``SE_AB``, the standard error of the difference.
    z
        the multiplier of the rule.
    rho
        ``(P,)`` the correlation used: the assumed rho everywhere, or the implied rho read
        from paired draws (``nan`` where both variances are zero).
    rho_source
        ``"assumed"`` or ``"paired draws"``.
    winner
        ``(P,)`` model index of the leader where the lead passes the rule, else -1.
    source
        where the variances came from.
    """

    models: tuple[str, ...]
    categories: tuple[str, ...]
    weights: np.ndarray
    scores: np.ndarray
    leader: np.ndarray
    runner_up: np.ndarray
    difference: np.ndarray
    se: np.ndarray
    z: float
    rho: np.ndarray
    rho_source: str
    winner: np.ndarray
    source: str

    @property
    def level(self) -> float:
        """Two-sided normal level matching ``z`` (z = 2 gives 0.954)."""
        return float(2 * ndtr(self.z) - 1)

    def name(self, index: int) -> str | None:
        """The model with index ``index`` (``None`` for a negative index: no winner)."""
        return None if index < 0 else self.models[int(index)]

    def shares(self) -> dict[str | None, float]:
        """Share of grid points each model wins (``None``: indeterminate), largest first."""
        counts = np.bincount(self.winner + 1, minlength=len(self.models) + 1) / len(self.winner)
        out = {self.name(k - 1): float(counts[k]) for k in range(len(counts)) if counts[k] > 0}
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def implied_level(z: float) -> float:
    """Two-sided normal level of a z multiplier."""
    return float(2 * ndtr(z) - 1)


def z_for_level(level: float) -> float:
    """The z multiplier of a two-sided normal level (0.954 gives 2.0)."""
    return float(ndtri((1 + level) / 2))


def _check_rule(z: float, rho: float) -> None:
    if not (np.isfinite(z) and z >= 0):
        raise InvalidArgument(f"z = {z} must be a number >= 0.", hint="2 is the usual choice.")
    if not -1.0 <= rho <= 1.0:
        raise InvalidArgument(
            f"rho = {rho} must be between -1 and 1.", hint="0 means independence."
        )


@blas_policy
def dominance_map(
    moments: CategoryMoments,
    *,
    z: float = 2.0,
    rho: float = 0.0,
    resolution: int = 100,
    weights: np.ndarray | None = None,
    use_pairing: bool | None = None,
) -> DominanceMap:
    """Leader, runner-up and the SE rule at every grid point (or at the given ``weights``).

    ``SE_AB = sqrt(Var S_A + Var S_B - 2 rho sqrt(Var S_A Var S_B))`` with
    ``Var S_i = w' Cov(m_i) w``. With ``use_pairing`` (default: whether the moments are paired)
    ``SE_AB = sqrt(w' Cov(m_A - m_B) w)`` from the draws and rho is the implied correlation.
    """
    _check_rule(z, rho)
    M, C = moments.means.shape
    if M < 2:
        raise DataError("a dominance map compares models; the data has only one.")
    W = (
        simplex_grid(resolution, n_categories=C)
        if weights is None
        else np.atleast_2d(weights).astype(float)
    )
    if W.shape[1] != C:
        raise InvalidArgument(f"weights need {C} values (one per category), got {W.shape[1]}.")
    pair = moments.paired if use_pairing is None else bool(use_pairing and moments.paired)
    S = W @ moments.means.T  # (P, M)
    P = S.shape[0]
    top2 = np.argpartition(-S, 1, axis=1)[:, :2]
    s2 = np.take_along_axis(S, top2, axis=1)
    first = np.argmax(s2, axis=1)
    # stable tie-break: equal scores lead with the lower model index
    tie = s2[:, 0] == s2[:, 1]
    first = np.where(tie, np.argmin(top2, axis=1), first)
    rows = np.arange(P)
    A = top2[rows, first]
    B = top2[rows, 1 - first]
    diff = S[rows, A] - S[rows, B]
    cov = moments.cov
    own = cov[np.arange(M), :, np.arange(M), :]  # (M, C, C)
    vA = np.einsum("pc,pcd,pd->p", W, own[A], W)
    vB = np.einsum("pc,pcd,pd->p", W, own[B], W)
    root = np.sqrt(np.clip(vA * vB, 0, None))
    if pair:
        cross = cov[A, :, B, :]  # (P, C, C)
        cAB = np.einsum("pc,pcd,pd->p", W, cross, W)
        var = vA + vB - 2 * cAB
        with np.errstate(invalid="ignore", divide="ignore"):
            rho_used = np.where(root > 0, cAB / root, np.nan)
        rho_source = "paired draws"
    else:
        var = vA + vB - 2 * rho * root
        rho_used = np.full(P, float(rho))
        rho_source = "assumed"
    se = np.sqrt(np.clip(var, 0, None))
    win = (diff > 0) & (diff >= z * se)
    return DominanceMap(
        models=moments.models,
        categories=moments.categories,
        weights=W,
        scores=S,
        leader=A,
        runner_up=B,
        difference=diff,
        se=se,
        z=float(z),
        rho=rho_used,
        rho_source=rho_source,
        winner=np.where(win, A, -1),
        source=moments.source,
    )


# ---- probability of being best ----------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class BestProbabilityMap:
    """``P(model i is best at w)``: the share of draws in which i has the largest ``S(w)``.

    Attributes
    ----------
    models, categories
        labels.
    weights
        ``(P, C)`` weight vectors.
    probability
        ``(P, M)`` probabilities (rows sum to 1; ties in a draw split the credit).
    best
        ``(P,)`` index of the most probable model.
    reps
        number of draws.
    mc_error
        ``(P,)`` Monte Carlo standard error of ``probability[p, best[p]]``.
    source
        where the draws came from.
    """

    models: tuple[str, ...]
    categories: tuple[str, ...]
    weights: np.ndarray
    probability: np.ndarray
    best: np.ndarray
    reps: int
    mc_error: np.ndarray
    source: str

    @property
    def best_probability(self) -> np.ndarray:
        """``(P,)`` probability of the most likely best model at each grid point."""
        return self.probability[np.arange(len(self.best)), self.best]


@blas_policy
def best_probability_map(
    moments: CategoryMoments,
    *,
    resolution: int = 100,
    weights: np.ndarray | None = None,
    chunk: int = 32,
) -> BestProbabilityMap:
    """Share of draws in which each model has the largest ``S(w)`` (METHODS 5).

    Vectorised over draws, chunked over grid points: one pass over models keeps the running
    maximum, its model and the number of models sharing it, so the working set is a few
    ``R x chunk`` arrays (2000 x 32 x 8 bytes = 0.5 MB, cache-sized) instead of the
    ``R x P x M`` array (165M floats at 2000 x 5151 x 16). Chunks with exact ties take a second
    pass that splits the credit.
    """
    if moments.draws is None:
        raise DataError("the probability view needs draws (bootstrap or posterior).")
    X = moments.draws  # (R, M, C)
    R, M, C = X.shape
    W = (
        simplex_grid(resolution, n_categories=C)
        if weights is None
        else np.atleast_2d(weights).astype(float)
    )
    P = W.shape[0]
    prob = np.empty((P, M))
    Xm = np.ascontiguousarray(X.transpose(1, 0, 2))  # (M, R, C): one model's draws contiguous
    for start in range(0, P, chunk):
        Wc = W[start : start + chunk].T  # (C, p)
        p = Wc.shape[1]
        top = Xm[0] @ Wc  # running maximum over models, (R, p)
        arg = np.zeros(top.shape, dtype=np.int64)
        n_top = np.ones(top.shape, dtype=np.int64)  # how many models share the maximum
        for m in range(1, M):
            s = Xm[m] @ Wc
            above = s > top
            n_top[s == top] += 1
            np.copyto(top, s, where=above)
            arg[above] = m
            n_top[above] = 1
        if np.all(n_top == 1):
            flat = (arg * p + np.arange(p)).ravel()
            prob[start : start + p] = np.bincount(flat, minlength=M * p).reshape(M, p).T / R
        else:  # exact ties in some draws: split their credit equally (second pass)
            tied = np.stack([Xm[m] @ Wc == top for m in range(M)])
            prob[start : start + p] = (tied / n_top).sum(axis=1).T / R
    best = np.argmax(prob, axis=1)
    pb = prob[np.arange(P), best]
    return BestProbabilityMap(
        models=moments.models,
        categories=moments.categories,
        weights=W,
        probability=prob,
        best=best,
        reps=R,
        mc_error=np.sqrt(pb * (1 - pb) / R),
        source=moments.source,
    )


# ---- scores at one weight vector --------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class WeightedScores:
    """Weighted scores at one weight vector, with normal intervals from the same variances.

    Attributes
    ----------
    models
        names, sorted best first.
    weights
        ``(C,)`` the weight vector.
    estimate, se, low, high
        ``(M,)`` ``S_i(w)``, ``sqrt(Var S_i)`` and ``S +- z_L se``.
    level
        interval level.
    prob_best
        ``(M,)`` ``P(best at w)`` from draws, or ``None`` without draws.
    method
        a short description.
    """

    models: tuple[str, ...]
    weights: np.ndarray
    estimate: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    prob_best: np.ndarray | None
    method: str


def weighted_scores(
    moments: CategoryMoments, w: np.ndarray, *, level: float = LEVEL
) -> WeightedScores:
    """``S_i(w)`` for every model with ``Var S_i = w' Cov(m_i) w`` and a normal interval."""
    check_level(level)
    w = np.asarray(w, dtype=float)
    M, C = moments.means.shape
    if w.shape != (C,):
        raise InvalidArgument(f"weights need {C} values (one per category), got {w.size}.")
    est = moments.means @ w
    own = moments.cov[np.arange(M), :, np.arange(M), :]
    se = np.sqrt(np.clip(np.einsum("c,icd,d->i", w, own, w), 0, None))
    q = z_for_level(level)
    prob = None
    if moments.draws is not None:
        prob = best_probability_map(moments, weights=w[None]).probability[0]
    order = best_first(est, moments.models)
    return WeightedScores(
        models=tuple(moments.models[i] for i in order),
        weights=w,
        estimate=est[order],
        se=se[order],
        low=(est - q * se)[order],
        high=(est + q * se)[order],
        level=float(level),
        prob_best=None if prob is None else prob[order],
        method=f"normal interval, {moments.source}",
    )


# ---- weights between data categories and map categories ---------------------------------------
def to_map_weights(
    weights: np.ndarray, names: Sequence[str], mapping: Mapping[str, str]
) -> np.ndarray | None:
    """Data-category weights (over ``names``) as a point of the map (over its categories).

    A map category gets the summed weight of the data categories that feed it; categories left
    out are dropped. Returns ``None`` when no weight falls on the map's categories.
    """
    groups = _groups(mapping)
    w = np.array(
        [
            sum(float(x) for c, x in zip(names, weights, strict=True) if mapping.get(c) == g)
            for g in groups
        ]
    )
    return w / w.sum() if w.sum() > 0 else None


def from_map_weights(
    point: np.ndarray,
    names: Sequence[str],
    task_categories: Sequence[str],
    mapping: Mapping[str, str],
) -> np.ndarray:
    """A map point as data-category weights (over ``names``) giving the same ``S(w)``.

    A merged category's weight is split over its members in proportion to their task counts
    (its mean weighs tasks equally); categories left out get 0.
    """
    groups = _groups(mapping)
    counts = {c: sum(1 for t in task_categories if t == c) for c in names}
    out = np.zeros(len(names))
    for k, c in enumerate(names):
        g = mapping.get(c)
        if g is None:
            continue
        total = sum(counts[d] for d in names if mapping.get(d) == g)
        out[k] = point[groups.index(g)] * counts[c] / total
    return out
