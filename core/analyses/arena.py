"""Arena ratings: Bradley-Terry on pairwise battles with honest intervals (METHODS 8b).

``logit P(a beats b) = beta_a - beta_b (+ x' gamma)`` fitted by maximum likelihood on deduplicated
outcome counts, reported on the Elo scale ``rating = 1000 + 400 / ln 10 * (beta - anchor)``
(anchor: the mean, or a chosen model at 1000), as LMArena does [CHI].

- Ties: ``"half"`` counts a tie as half a win for each side (LMArena's convention; graded
  preferences such as AlpacaEval's stay fractional); ``"davidson"`` fits Davidson's tie model
  [DAV]: ``P(a) : P(b) : P(tie) = pi_a : pi_b : nu sqrt(pi_a pi_b)``; ``both_bad`` is a tie
  unless dropped.
- Fit: Newton's method on counts aggregated per pair (``core.analyses.epp.fit_bradley_terry``
  for the plain half-ties model; the same Newton on rows, with the tie parameter and the
  control coefficients, otherwise), identified by ``sum beta = 0``.
- Intervals: ``"sandwich"`` (``H^+ B H^+`` with the per-battle scores, clustered by prompt or
  judge when those columns exist [ZEI, CGM]) or ``"bootstrap"`` (multinomial weights on the
  unique ``(pair, outcome)`` cells, or on clusters; percentile intervals).
- Ranks: ``rank (UB)`` = 1 + the number of models whose interval lies entirely above (LMArena);
  simultaneous rank sets (:mod:`core.summaries.rank_sets`, [MRSW]) from draws of the same covariance
  (normal draws for the sandwich, the replicates for the bootstrap).
- Style control: ``control`` columns enter as battle-level covariates (contextual Bradley-Terry,
  standardised), and the ratings without control are returned next to them.

Long on purpose: METHODS 8b for one result: the Bradley-Terry fit, sandwich and cluster
covariance, Davidson ties, the bootstrap over deduplicated outcomes, style control and rank
sets share one design matrix and its counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import expit
from scipy.stats import norm

from benchuq.core.analyses.arena_sparse import (
    PRIOR_RIDGE,
    SPARSE_BATTLES,
    at_least_exact,
    at_least_model_based,
    flat_note,
    sign_record,
    sparse_note,
)
from benchuq.core.analyses.arena_wins import win_matrix
from benchuq.core.analyses.bradley_terry import (
    DEFAULT_RIDGE,
    check_connected,
    fit_bradley_terry,
    separated_mask,
)
from benchuq.core.budget import check_pairs, checkpoint
from benchuq.core.data import DataError
from benchuq.core.defaults import COMPARISON_LEVEL
from benchuq.core.options import option
from benchuq.core.reading.battles import Battles
from benchuq.core.small_samples import min_items_to_tell
from benchuq.core.summaries.rank_sets import RankSets, rank_set_sentences, rank_sets
from benchuq.core.threads import blas_policy
from benchuq.core.validation import (
    InvalidArgument,
    check_choice,
    check_known,
    check_level,
    check_reps,
)

__all__ = [
    "BASE",
    "BOTH_BAD",
    "CLUSTERS",
    "INITIAL",
    "INTERVALS",
    "SCALE",
    "TIES",
    "ArenaFit",
    "ArenaResult",
    "BothBad",
    "Cluster",
    "Difference",
    "IntervalMethod",
    "Ties",
    "arena",
    "arena_fit",
    "style_features",
]

Ties = Literal["half", "davidson"]
IntervalMethod = Literal["sandwich", "bootstrap"]
Cluster = Literal["auto", "prompt", "judge", "none"]
BothBad = Literal["tie", "drop"]
TIES: tuple[str, ...] = get_args(Ties)
INTERVALS: tuple[str, ...] = get_args(IntervalMethod)
CLUSTERS: tuple[str, ...] = get_args(Cluster)
BOTH_BAD: tuple[str, ...] = get_args(BothBad)
SCALE, BASE, INITIAL = 400.0, 10.0, 1000.0
ELO = SCALE / np.log(BASE)  # Elo points per logit unit
RANK_DRAWS = 1000  # normal draws of the sandwich covariance behind the rank sets


@dataclass(frozen=True)
class Difference:
    """``rating_a - rating_b`` (Elo points) with its interval at ``level``."""

    a: str
    b: str
    estimate: float
    low: float
    high: float
    level: float


@dataclass(frozen=True, eq=False)
class ArenaResult:
    """Arena ratings of pairwise battles (METHODS 8b); arrays are aligned with ``models``.

    Attributes
    ----------
    models
        model names.
    rating, se, low, high
        ``(M,)`` Elo-scale ratings, standard errors and interval ends at ``level``.
    level, method, ties, anchor, cluster
        interval level; ``"sandwich"`` or ``"bootstrap"``; the tie model; the model fixed at
        1000 (``None``: the mean is 1000); what the intervals are clustered by (``None``:
        battles are independent).
    cov
        ``(M, M)`` covariance of ``rating`` (Elo points squared); a model with few or one-sided
        battles has at least the variance an exact test of its record allows at ``level``.
    rank_ub
        ``(M,)`` LMArena's rank (UB): 1 + models whose interval lies entirely above.
    rank_low, rank_high
        ``(M,)`` simultaneous rank sets at ``level`` (Mogstad et al.).
    best
        the models that may be the best (marginal rank set reaching 1), best first.
    battles, win_rate
        ``(M,)`` battles played and the observed share won (ties count half).
    win_probability, win_low, win_high
        ``(M, M)`` expected score of row against column (P(win) + P(tie) / 2) at the fitted
        ratings (at average style under control) and its interval.
    tie_ratio
        Davidson's ``nu`` (``None`` for half ties).
    controls, coefficients, coefficient_se
        style-control columns and their effects in Elo points per standard deviation.
    uncontrolled
        the same fit without the controls (``None`` without controls).
    n_battles, n_clusters, reps, seed
        battles used, clusters (``0`` if none), bootstrap replicates and seed (``0``/``None``
        for the sandwich).
    replicates
        ``(reps, M)`` bootstrap ratings (``None`` for the sandwich).
    rank_sets
        the :class:`~benchuq.core.summaries.rank_sets.RankSets` behind ``rank_low``/``rank_high``.
    notes
        caveats to show next to the results.
    """

    name: str
    models: tuple[str, ...]
    rating: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    method: IntervalMethod
    ties: Ties
    anchor: str | None
    cluster: str | None
    cov: np.ndarray
    rank_ub: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    best: tuple[str, ...]
    battles: np.ndarray
    win_rate: np.ndarray
    win_probability: np.ndarray
    win_low: np.ndarray
    win_high: np.ndarray
    tie_ratio: float | None
    controls: tuple[str, ...]
    coefficients: np.ndarray
    coefficient_se: np.ndarray
    uncontrolled: ArenaResult | None
    n_battles: int
    n_clusters: int
    reps: int
    seed: int | None
    replicates: np.ndarray | None
    rank_sets: RankSets
    notes: tuple[str, ...] = ()

    scale: float = SCALE
    base: float = BASE
    initial: float = INITIAL

    def __repr__(self) -> str:
        top = self.models[int(self.order[0])]
        return (
            f"ArenaResult({self.name!r}: {len(self.models)} models, {self.n_battles} battles, "
            f"{self.method} at {self.level:g}, ties={self.ties}, top {top} "
            f"{self.rating[self.order[0]]:.0f})"
        )

    @property
    def order(self) -> np.ndarray:
        """Model indices from the highest rating to the lowest."""
        return np.argsort(-self.rating, kind="stable")

    def sentence(self) -> str:
        """The sentence "The best model is one of {...} with 95% confidence." (marginal set)."""
        return rank_set_sentences(self.rank_sets, top=(1,))[0]

    def difference(self, a: str, b: str) -> Difference:
        """``rating_a - rating_b`` with its interval (sandwich: z; bootstrap: percentile)."""
        check_known((a, b), self.models, what="models")
        i, j = self.models.index(a), self.models.index(b)
        est = float(self.rating[i] - self.rating[j])
        if self.replicates is not None:
            d = self.replicates[:, i] - self.replicates[:, j]
            low, high = np.quantile(d, [(1 - self.level) / 2, (1 + self.level) / 2])
        else:
            c = self.cov
            se = np.sqrt(max(c[i, i] + c[j, j] - 2 * c[i, j], 0.0))
            z = norm.ppf(0.5 + self.level / 2)
            low, high = est - z * se, est + z * se
        return Difference(a, b, est, float(low), float(high), self.level)

    def table(self) -> pd.DataFrame:
        """One row per model, best first: the CLI's JSON rows."""
        o = self.order
        return pd.DataFrame(
            {
                "model": [self.models[i] for i in o],
                "rating": self.rating[o],
                "low": self.low[o],
                "high": self.high[o],
                "rank_ub": self.rank_ub[o].astype(int),
                "rank_low": self.rank_low[o].astype(int),
                "rank_high": self.rank_high[o].astype(int),
                "battles": self.battles[o].astype(int),
                "win_rate": self.win_rate[o],
            }
        )


@dataclass(frozen=True, eq=False)
class ArenaFit:
    """A Bradley-Terry fit before any level or anchor (:func:`arena_fit`, METHODS 8b).

    Attributes
    ----------
    battles, control, ties, interval, reps, seed
        the battles and the options it was fitted with.
    theta, cov_theta
        ``(P,)`` logit-scale parameters (ratings, style coefficients, Davidson's tie
        parameter) and their covariance (robust, or of the bootstrap refits).
    replicates_theta
        ``(reps, P)`` bootstrap refits, or ``None`` (sandwich).
    played, won, n_battles, cluster, n_clusters, notes
        battles and wins per model, battles used, the cluster column and its clusters, notes.
    uncontrolled
        the fit without the style controls (``None`` when there are none).
    sparse, record, pair_battles
        ``(M,)`` models with few or one-sided battles, ``(M, 2)`` battles each won and lost
        outright, ``(M, M)`` battles per pair: at each level a sparse model's variance is raised
        to what an exact test of its record allows (METHODS 8b).
    """

    battles: Battles
    control: tuple[str, ...]
    ties: Ties
    interval: IntervalMethod
    reps: int
    seed: int | None
    theta: np.ndarray
    cov_theta: np.ndarray
    replicates_theta: np.ndarray | None
    played: np.ndarray
    won: np.ndarray
    n_battles: int
    cluster: str | None
    n_clusters: int
    notes: tuple[str, ...]
    uncontrolled: ArenaFit | None = None
    sparse: np.ndarray | None = None
    record: np.ndarray | None = None
    pair_battles: np.ndarray | None = None

    def at(self, *, level: float = COMPARISON_LEVEL, anchor: str | None = None) -> ArenaResult:
        """The ratings at ``level`` with ``anchor`` fixed at 1000 (:func:`arena`'s result)."""
        level = check_level(level)
        if anchor is not None:
            check_known((anchor,), self.battles.models, what="models")
        return _at(self, anchor, level)


# ---- the data as counts ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cells:
    """Unique (pair i < j, outcome, cluster) cells with counts; ``s`` = i's score."""

    i: np.ndarray
    j: np.ndarray
    s: np.ndarray
    cluster: np.ndarray  # cluster code per cell (0 when unclustered)
    n: np.ndarray


def _canonical(bt: Battles, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b, s = bt.a[keep], bt.b[keep], bt.score[keep]
    flip = a > b
    return np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1.0 - s, s)


def _cells(i: np.ndarray, j: np.ndarray, s: np.ndarray, cl: np.ndarray, M: int) -> _Cells:
    svals, scode = np.unique(s, return_inverse=True)
    key = ((i.astype(np.int64) * M + j) * len(svals) + scode) * (int(cl.max()) + 1) + cl
    uniq, n = np.unique(key, return_counts=True)
    c = uniq % (int(cl.max()) + 1)
    rest = uniq // (int(cl.max()) + 1)
    sc, pair = rest % len(svals), rest // len(svals)
    return _Cells(pair // M, pair % M, svals[sc], c, n.astype(float))


def _pair_totals(cells: _Cells, n: np.ndarray, M: int) -> tuple[np.ndarray, np.ndarray]:
    """``W`` (ties half, graded shares) and ``N`` as ``(M, M)`` from cell counts ``n``."""
    flat = cells.i * M + cells.j
    won = np.bincount(flat, n * cells.s, M * M).reshape(M, M)
    played = np.bincount(flat, n, M * M).reshape(M, M)
    return won + (played - won).T, played + played.T


# ---- likelihood kernels: derivatives of one row's log-likelihood in d (and tau) ----------------
def _kernel(
    d: np.ndarray, tau: float, n: np.ndarray, s_sum: np.ndarray, nt: np.ndarray, ties: Ties
) -> tuple[np.ndarray, ...]:
    """``(ll, l_d, l_dd, l_t, l_tt, l_dt)`` per row; ``s_sum`` = a's score total (half) or
    ``wins - losses`` (Davidson), ``nt`` = ties (Davidson)."""
    if ties == "half":
        p = expit(d)
        ll = s_sum * d - n * np.logaddexp(0.0, d)
        zero = np.zeros_like(d)
        return ll, s_sum - n * p, -n * p * (1 - p), zero, zero, zero
    log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), tau)
    pi, pj, pt = np.exp(d / 2 - log_d), np.exp(-d / 2 - log_d), np.exp(tau - log_d)
    ll = s_sum * d / 2 + nt * tau - n * log_d
    l_d = s_sum / 2 - n * (pi - pj) / 2
    l_dd = -n * ((pi + pj) / 4 - (pi - pj) ** 2 / 4)
    return ll, l_d, l_dd, nt - n * pt, -n * pt * (1 - pt), n * pt * (pi - pj) / 2


@dataclass(frozen=True)
class _Rows:
    """Rows of the likelihood: sides, covariates, counts (n, score sum, ties)."""

    a: np.ndarray
    b: np.ndarray
    x: np.ndarray  # (R, F)
    n: np.ndarray
    s_sum: np.ndarray
    nt: np.ndarray


def _grad_info(
    theta: np.ndarray, rows: _Rows, M: int, ties: Ties, ridge: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and observed information of ``theta = (beta, gamma[, tau])``."""
    F = rows.x.shape[1]
    beta, gamma = theta[:M], theta[M : M + F]
    tau = float(theta[-1]) if ties == "davidson" else 0.0
    d = beta[rows.a] - beta[rows.b] + rows.x @ gamma
    ll, l_d, l_dd, l_t, l_tt, l_dt = _kernel(d, tau, rows.n, rows.s_sum, rows.nt, ties)
    P = len(theta)
    g = np.zeros(P)
    g[:M] = np.bincount(rows.a, l_d, M) - np.bincount(rows.b, l_d, M) - ridge * beta
    g[M : M + F] = rows.x.T @ l_d
    info = np.zeros((P, P))
    w = -l_dd
    pair = np.bincount(rows.a * M + rows.b, w, M * M).reshape(M, M)
    pair = pair + pair.T
    info[:M, :M] = np.diag(pair.sum(axis=1)) - pair + ridge * np.eye(M)
    wx = w[:, None] * rows.x
    for f in range(F):
        col = np.bincount(rows.a, wx[:, f], M) - np.bincount(rows.b, wx[:, f], M)
        info[:M, M + f] = info[M + f, :M] = col
    info[M : M + F, M : M + F] = rows.x.T @ wx
    if ties == "davidson":
        g[-1] = l_t.sum()
        cross = -(np.bincount(rows.a, l_dt, M) - np.bincount(rows.b, l_dt, M))
        info[:M, -1] = info[-1, :M] = cross
        info[M : M + F, -1] = info[-1, M : M + F] = -(rows.x.T @ l_dt)
        info[-1, -1] = -l_tt.sum()
    return float(ll.sum() - 0.5 * ridge * beta @ beta), g, info


def _fit_rows(
    rows: _Rows, M: int, ties: Ties, ridge: float, start: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Newton with step halving under ``sum beta = 0``; returns ``(theta, bread)``, the bread
    being the inverse information restricted to the constraint."""
    F = rows.x.shape[1]
    P = M + F + (ties == "davidson")
    fix = np.zeros((P, P))
    fix[:M, :M] = 1.0 / M
    theta = np.zeros(P) if start is None else np.array(start, float)
    if start is None and ties == "davidson":
        share = rows.nt.sum() / max(rows.n.sum(), 1.0)
        theta[-1] = np.log(max(share, 1e-3) / max(1 - share, 1e-3)) + np.log(2.0)
    ll, g, info = _grad_info(theta, rows, M, ties, ridge)
    for _ in range(100):
        step = np.linalg.solve(info + fix, g)
        step[:M] -= step[:M].mean()
        t = 1.0
        while True:
            new = theta + t * step
            new_ll, new_g, new_info = _grad_info(new, rows, M, ties, ridge)
            if new_ll >= ll - 1e-12 * abs(ll) or t < 1e-8:
                break
            t /= 2
        theta, ll, g, info = new, new_ll, new_g, new_info
        if np.max(np.abs(t * step)) < 1e-10:
            break
    proj = np.eye(P)
    proj[:M, :M] -= 1.0 / M
    return theta, proj @ np.linalg.inv(info + fix) @ proj


# ---- the meat of the sandwich --------------------------------------------------------------------
def _meat(
    theta: np.ndarray,
    cells: _Rows,
    cluster: np.ndarray | None,
    M: int,
    ties: Ties,
) -> tuple[np.ndarray, int]:
    """``sum_c u_c u_c'`` over clusters (or over battles) of the per-battle scores; ``cells``
    hold one outcome each (``n`` battles). Clustered: times ``C / (C - 1)``."""
    F = cells.x.shape[1]
    P = len(theta)
    beta, gamma = theta[:M], theta[M : M + F]
    tau = float(theta[-1]) if ties == "davidson" else 0.0
    d = beta[cells.a] - beta[cells.b] + cells.x @ gamma
    one = np.ones_like(d)
    per_n = np.where(cells.n > 0, cells.n, 1.0)
    # one battle's outcome in this cell: score share (half) or win - loss and tie (Davidson)
    _, l_d, _, l_t, _, _ = _kernel(d, tau, one, cells.s_sum / per_n, cells.nt / per_n, ties)
    R = len(d)
    rows = np.concatenate([np.arange(R), np.arange(R)])
    cols = np.concatenate([cells.a, cells.b])
    vals = np.concatenate([l_d, -l_d])
    dense = [l_d[:, None] * cells.x]
    if ties == "davidson":
        dense.append(l_t[:, None])
    extra = np.hstack(dense) if F or ties == "davidson" else np.zeros((R, 0))
    er, ec = np.nonzero(np.ones_like(extra, bool))
    G = sparse.csr_matrix(
        (
            np.concatenate([vals, extra[er, ec]]),
            (np.concatenate([rows, er]), np.concatenate([cols, M + ec])),
        ),
        shape=(R, P),
    )
    if cluster is None:
        meat = (G.T @ sparse.diags(cells.n) @ G).toarray()
        return meat, 0
    C = int(cluster.max()) + 1
    agg = sparse.csr_matrix((cells.n, (cluster, np.arange(R))), shape=(C, R))
    U = agg @ G
    used = int(np.unique(cluster).size)
    meat = (U.T @ U).toarray() * (used / (used - 1))
    return meat, used


# ---- style features ---------------------------------------------------------------------------
def style_features(battles: Battles, control: Sequence[str]) -> np.ndarray:
    """``(N, F)`` standardised style covariates: column ``X`` as is, or a pair ``X_a``, ``X_b``
    as ``(X_a - X_b) / (X_a + X_b)`` (0 where both are 0)."""
    cov = battles.covariates
    out = []
    for name in control:
        if name in cov:
            x = np.asarray(cov[name], float)
        elif f"{name}_a" in cov and f"{name}_b" in cov:
            xa, xb = np.asarray(cov[f"{name}_a"], float), np.asarray(cov[f"{name}_b"], float)
            tot = xa + xb
            x = np.divide(xa - xb, tot, out=np.zeros_like(tot), where=tot != 0)
        else:
            have = sorted(cov) + sorted({k[:-2] for k in cov if k.endswith(("_a", "_b"))})
            raise InvalidArgument(
                f"control '{name}' is not a numeric column of '{battles.name}' (nor a pair "
                f"{name}_a, {name}_b).",
                hint=f"choose among {have}" if have else "the data have no numeric columns.",
            )
        sd = x.std()
        out.append((x - x.mean()) / sd if sd > 0 else np.zeros_like(x))
    return np.column_stack(out) if out else np.zeros((battles.n, 0))


# ---- the public entry point -------------------------------------------------------------------
@blas_policy
def arena_fit(
    battles: Battles,
    *,
    ties: Ties = "half",
    interval: IntervalMethod = "sandwich",
    control: Sequence[str] = (),
    cluster: Cluster = "auto",
    both_bad: BothBad = "tie",
    reps: int = 1000,
    seed: int | None = 0,
) -> ArenaFit:
    """The Bradley-Terry fit of :func:`arena` (its options) before a level or an anchor: the
    ratings' covariance and, for ``interval="bootstrap"``, the refits. :meth:`ArenaFit.at`
    gives the result at a level and an anchor without fitting again (the app caches the fit,
    so a move of its level re-summarises it, issue 41). METHODS 8b."""
    check_choice(ties, TIES, name="ties")
    check_choice(interval, INTERVALS, name="interval")
    check_choice(cluster, CLUSTERS, name="cluster")
    check_choice(both_bad, BOTH_BAD, name="both_bad")
    if interval == "bootstrap":
        check_reps(reps, least=100, typical=1000)
    draws = reps if interval == "bootstrap" else RANK_DRAWS
    check_pairs(draws, len(battles.models), what="arena rank sets")
    control = tuple(dict.fromkeys(control))
    x = style_features(battles, control)
    keep = ~battles.both_bad if both_bad == "drop" else np.ones(battles.n, bool)
    if ties == "davidson" and battles.graded:
        raise DataError(
            "Davidson's tie model needs win, loss or tie outcomes; these battles have graded "
            "preferences (e.g. AlpacaEval's).",
            file=battles.name,
            column="winner",
            hint="use ties = half (a graded preference counts as that share of a win).",
        )
    if not keep.any():
        raise DataError("no battles are left once 'both bad' ties are dropped.", file=battles.name)
    if ties == "davidson" and np.all(battles.score[keep] == 0.5):
        raise _all_ties(
            battles.name,
            f"every one of the {int(keep.sum())} battle(s) is a tie",
            hint="use ties = half (every model then gets the same rating), or add battles with "
            "a winner.",
        )
    fit = _fit(battles, keep, x, control, ties, interval, cluster, reps, seed)
    if control:
        plain = _fit(battles, keep, x[:, :0], (), ties, interval, cluster, reps, seed)
        fit = replace(fit, uncontrolled=plain)
    return fit


def arena(
    battles: Battles,
    *,
    anchor: str | None = None,
    level: float = COMPARISON_LEVEL,
    ties: Ties = "half",
    interval: IntervalMethod = "sandwich",
    control: Sequence[str] = (),
    cluster: Cluster = "auto",
    both_bad: BothBad = "tie",
    reps: int = 1000,
    seed: int | None = 0,
) -> ArenaResult:
    """Bradley-Terry ratings of pairwise battles on the Elo scale (METHODS 8b).

    Parameters
    ----------
    battles
        the battles (:func:`core.reading.battles.load_battles` and friends).
    anchor
        model fixed at 1000 (default: the mean rating is 1000).
    level
        interval level (a proportion).
    ties
        ``"half"`` (a tie is half a win, LMArena) or ``"davidson"`` (Davidson's tie model).
    interval
        ``"sandwich"`` (robust, clustered when ``cluster`` applies) or ``"bootstrap"``.
    control
        style-control columns (contextual Bradley-Terry); the result keeps the fit without them.
    cluster
        ``"auto"`` (prompt, else judge, when present), ``"prompt"``, ``"judge"`` or ``"none"``;
        the sandwich sums scores within clusters and the bootstrap resamples clusters.
    both_bad
        ``"tie"`` (default) or ``"drop"``: what a "both bad" tie is.
    reps, seed
        bootstrap replicates and seed (also the seed of the normal draws behind the rank sets).

    Returns
    -------
    ArenaResult
        :func:`arena_fit`'s fit at ``level`` and ``anchor`` (:meth:`ArenaFit.at`).

    Examples
    --------
    >>> from benchuq.core.reading.battles import load_battles
    >>> res = arena(load_battles("sample:alpaca_eval"), anchor="gpt4_1106_preview")
    >>> float(res.rating[res.models.index("gpt4_1106_preview")])
    1000.0
    >>> res.sentence()
    'gpt4_1106_preview is the best model with 95% confidence.'
    """
    level = check_level(level)
    if anchor is not None:
        check_known((anchor,), battles.models, what="models")
    fit = arena_fit(
        battles, ties=ties, interval=interval, control=control, cluster=cluster,
        both_bad=both_bad, reps=reps, seed=seed,
    )  # fmt: skip
    return fit.at(level=level, anchor=anchor)


def _cluster_codes(
    battles: Battles, keep: np.ndarray, cluster: Cluster, notes: list[str]
) -> tuple[str | None, np.ndarray | None]:
    name: str | None
    if cluster == "auto":
        name = "prompt" if battles.prompt is not None else None
        name = "judge" if name is None and battles.judge is not None else name
    else:
        name = None if cluster == "none" else cluster
    if name is None:
        return None, None
    codes = battles.prompt if name == "prompt" else battles.judge
    if codes is None:
        raise InvalidArgument(
            f"cluster = {name}, but '{battles.name}' has no {name} column.",
            hint="use cluster = none (battles independent) or add the column.",
        )
    codes = np.unique(codes[keep], return_inverse=True)[1].astype(np.int64)
    C = int(codes.max()) + 1
    if C == int(keep.sum()):
        notes.append(f"every battle has its own {name}: battles are treated as independent.")
        return None, None
    if C < 20:
        notes.append(
            f"only {C} {name}s: cluster-robust intervals rest on few clusters and can be too "
            "narrow."
        )
    return name, codes


def _fit(
    battles: Battles,
    keep: np.ndarray,
    x: np.ndarray,
    control: tuple[str, ...],
    ties: Ties,
    interval: IntervalMethod,
    cluster: Cluster,
    reps: int,
    seed: int | None,
) -> ArenaFit:
    M = len(battles.models)
    notes = list(battles.notes)
    cname, ccodes = _cluster_codes(battles, keep, cluster, notes)
    i, j, s = _canonical(battles, keep)
    xk = np.where((battles.a > battles.b)[keep][:, None], -x[keep], x[keep])
    cl = ccodes if ccodes is not None else np.zeros(len(i), np.int64)
    cells = _cells(i, j, s, cl, M)
    W, N = _pair_totals(cells, cells.n, M)
    check_connected(
        N,
        battles.models,
        file=battles.name,
        never="battle each other",
        scores="ratings",
        column="model_a",
        hint="add battles between the groups, or rate each group on its own.",
    )
    played = N.sum(axis=1)
    sep = separated_mask(W, N)
    sparse_ = sep | (played < SPARSE_BATTLES)
    ridge = PRIOR_RIDGE if sparse_.any() else 0.0
    if sep.any():
        notes.append(
            f"{int(sep.sum())} model(s) win or lose every battle against the rest (separation): "
            "the penalised fit below keeps their ratings finite; read them as bounds."
        )
    if sparse_.any():
        notes.append(sparse_note(battles.models, sparse_, played))
    F = x.shape[1]
    if F:  # one row per battle: the covariates differ between battles
        rows = _Rows(i, j, xk, np.ones(len(i)), *_outcome_sums(s, np.ones(len(i)), ties))
        theta, bread = _fit_rows(rows, M, ties, ridge)
        meat_rows, meat_cl = rows, ccodes
    else:
        rows = _pair_rows(cells, cells.n, M, ties)
        if ties == "half":
            beta, bread = fit_bradley_terry(W, N, ridge=ridge)
            theta = beta
        else:
            theta, bread = _fit_rows(rows, M, ties, ridge)
        meat_rows = _Rows(
            cells.i, cells.j, np.zeros((len(cells.n), 0)), cells.n,
            *_outcome_sums(cells.s, cells.n, ties),
        )  # fmt: skip
        meat_cl = cells.cluster if ccodes is not None else None
    meat, n_clusters = _meat(theta, meat_rows, meat_cl, M, ties)
    cov_theta = at_least_model_based(bread @ meat @ bread, bread, sparse_)
    replicates_theta = None
    if interval == "bootstrap":
        replicates_theta = _bootstrap(
            battles, keep, cells, rows, F, ccodes, theta, M, ties, ridge, reps, seed
        )
        cov_theta = np.cov(replicates_theta, rowvar=False)
        what = f"{cname}s" if cname else "battles"
        notes.append(f"bootstrap over {what}: {reps} replicates, seed {seed}.")
        if sparse_.any():
            notes.append(
                "Some models played few or one-sided battles, whose resamples repeat their "
                "record (a 7-0 model's are all 7-0): the intervals are normal ones from the "
                "bootstrap's spread, widened for those models as for the sandwich (METHODS 8b)."
            )
    won = np.bincount(cells.i, cells.n * cells.s, M) + np.bincount(
        cells.j, cells.n * (1 - cells.s), M
    )
    return ArenaFit(
        battles=battles, control=control, ties=ties, interval=interval, reps=reps, seed=seed,
        theta=theta, cov_theta=cov_theta, replicates_theta=replicates_theta, played=played,
        won=won, n_battles=int(keep.sum()), cluster=cname, n_clusters=n_clusters,
        notes=tuple(notes), sparse=sparse_, pair_battles=N,
        record=sign_record(cells.i, cells.j, cells.s, cells.n, M),
    )  # fmt: skip


def _at(fit: ArenaFit, anchor: str | None, level: float) -> ArenaResult:
    """The fit's ratings, intervals, rank sets and win probabilities at ``level``, with
    ``anchor`` at 1000 (:meth:`ArenaFit.at`)."""
    battles, theta = fit.battles, fit.theta
    ties, seed = fit.ties, fit.seed
    M, F = len(battles.models), len(fit.control)
    cov_theta, replicates_theta = _exact_floor(fit, level)
    notes = list(fit.notes)
    a_idx = None if anchor is None else battles.models.index(anchor)
    A = np.eye(M)
    if a_idx is not None:
        A[:, a_idx] -= 1.0
    beta = theta[:M]
    rating = INITIAL + ELO * (A @ beta)
    cov = ELO**2 * A @ cov_theta[:M, :M] @ A.T
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    reps_rating = None
    if replicates_theta is not None:
        reps_rating = INITIAL + ELO * replicates_theta[:, :M] @ A.T
        low, high = np.quantile(reps_rating, [(1 - level) / 2, (1 + level) / 2], axis=0)
    else:
        z = norm.ppf(0.5 + level / 2)
        low, high = rating - z * se, rating + z * se
    if a_idx is not None:
        low[a_idx] = high[a_idx] = rating[a_idx] = INITIAL
    flat = flat_note(battles.models, se, a_idx)  # METHODS 2g
    notes += [] if flat is None else [flat]
    rank_ub = 1 + (low[None, :] > high[:, None]).sum(axis=1)
    draws = reps_rating
    if draws is None:
        rng = np.random.default_rng(seed)
        draws = rng.multivariate_normal(rating, cov, size=RANK_DRAWS, method="eigh")
    few = fit.played < min_items_to_tell(level)  # no exact test of so few battles (2d)
    untold = _untold(rating, cov, fit.sparse, level)
    sets = rank_sets(
        draws, rating, battles.models, level=level, label="rating", too_few=few, untold=untold
    )
    tau = float(theta[-1]) if ties == "davidson" else None
    wp, wlo, whi = win_matrix(theta, cov_theta, replicates_theta, M, ties, level=level)
    played, won = fit.played, fit.won
    gamma = theta[M : M + F]
    gse = np.sqrt(np.clip(np.diag(cov_theta)[M : M + F], 0.0, None))
    if tau is not None:
        notes.append(
            f"Davidson tie model: tie ratio nu = {np.exp(tau):.3g} (ratings: P(win | no tie))."
        )
    return ArenaResult(
        name=battles.name,
        models=battles.models,
        rating=rating,
        se=se,
        low=np.asarray(low),
        high=np.asarray(high),
        level=level,
        method=fit.interval,
        ties=ties,
        anchor=anchor,
        cluster=fit.cluster,
        cov=cov,
        rank_ub=rank_ub,
        rank_low=sets.simultaneous_low,
        rank_high=sets.simultaneous_high,
        best=sets.top_set(1),
        battles=played,
        win_rate=np.divide(won, played, out=np.full(M, np.nan), where=played > 0),
        win_probability=wp,
        win_low=wlo,
        win_high=whi,
        tie_ratio=None if tau is None else float(np.exp(tau)),
        controls=fit.control,
        coefficients=ELO * gamma,
        coefficient_se=ELO * gse,
        uncontrolled=None if fit.uncontrolled is None else _at(fit.uncontrolled, anchor, level),
        n_battles=fit.n_battles,
        n_clusters=fit.n_clusters,
        reps=fit.reps if fit.interval == "bootstrap" else 0,
        seed=seed if fit.interval == "bootstrap" else None,
        replicates=reps_rating,
        rank_sets=sets,
        notes=tuple(notes),
    )


def _untold(
    rating: np.ndarray, cov: np.ndarray, sparse_: np.ndarray | None, level: float
) -> np.ndarray | None:
    """``(M, M)``: pairs with a sparse model whose normal test at ``level`` (on the raised
    covariance) does not tell them apart; the rank sets keep them together, so the draws'
    critical value (a Monte Carlo estimate, 1.94 for one pair at 95% with seed 0) never
    separates a pair its exact floor holds (METHODS 8b)."""
    if sparse_ is None or not sparse_.any():
        return None
    v = np.diag(cov)
    se = np.sqrt(np.clip(v[:, None] + v[None, :] - 2 * cov, 0.0, None))
    apart = np.abs(rating[:, None] - rating[None, :]) > norm.ppf(0.5 + level / 2) * se
    return ~apart & (sparse_[:, None] | sparse_[None, :])


def _exact_floor(fit: ArenaFit, level: float) -> tuple[np.ndarray, np.ndarray | None]:
    """The fit's covariance with each sparse model's variance raised to what an exact test of
    its record allows at ``level`` (``arena_sparse.at_least_exact``), and its bootstrap refits
    (``None`` once a model is sparse: resamples of a few battles repeat their record, a 7-0
    model's are all 7-0, so the bootstrap's covariance, raised, gives normal intervals)."""
    cov, reps = fit.cov_theta, fit.replicates_theta
    if fit.sparse is None or fit.record is None or fit.pair_battles is None or not fit.sparse.any():
        return cov, reps
    args = (fit.theta, fit.pair_battles, fit.record, fit.sparse)
    return at_least_exact(cov, *args, level=level), None


def _outcome_sums(s: np.ndarray, n: np.ndarray, ties: Ties) -> tuple[np.ndarray, np.ndarray]:
    """Per row: (a's score total, ties) for half; (wins - losses, ties) for Davidson."""
    if ties == "half":
        return n * s, np.zeros_like(n)
    return n * ((s == 1).astype(float) - (s == 0)), n * (s == 0.5)


def _pair_rows(cells: _Cells, n: np.ndarray, M: int, ties: Ties) -> _Rows:
    """Cells summed over outcomes and clusters into one row per pair."""
    flat = cells.i * M + cells.j
    pairs, inv = np.unique(flat, return_inverse=True)
    s_sum, nt = _outcome_sums(cells.s, n, ties)
    return _Rows(
        pairs // M,
        pairs % M,
        np.zeros((len(pairs), 0)),
        np.bincount(inv, n, len(pairs)),
        np.bincount(inv, s_sum, len(pairs)),
        np.bincount(inv, nt, len(pairs)),
    )


def _bootstrap(
    battles: Battles,
    keep: np.ndarray,
    cells: _Cells,
    rows: _Rows,
    F: int,
    ccodes: np.ndarray | None,
    theta: np.ndarray,
    M: int,
    ties: Ties,
    ridge: float,
    reps: int,
    seed: int | None,
) -> np.ndarray:
    """``(reps, P)`` refits on multinomial weights: of the unique (pair, outcome) cells (battles
    resampled) or of clusters; per battle when covariates are present."""
    rng = np.random.default_rng(seed)
    out = np.empty((reps, len(theta)))
    if F or ccodes is not None:
        # weights per unit (battle or cluster), applied to cells or battle rows
        units = int(ccodes.max()) + 1 if ccodes is not None else len(rows.n)
        if F:
            unit_of = ccodes if ccodes is not None else np.arange(len(rows.n))
        else:
            unit_of = cells.cluster
    else:
        prob = cells.n / cells.n.sum()
        total = int(cells.n.sum())
    width = max(len(rows.n), len(cells.n))  # weights drawn per chunk: (chunk, width) floats
    chunk = int(np.clip(4_000_000 // max(width, 1), 1, 50))
    for r0 in range(0, reps, chunk):
        checkpoint("the arena bootstrap")
        k = min(chunk, reps - r0)
        if F or ccodes is not None:
            m = rng.multinomial(units, np.full(units, 1.0 / units), size=k).astype(float)
            weights = m[:, unit_of]
        else:
            weights = rng.multinomial(total, prob, size=k).astype(float)
        for r in range(k):
            w = weights[r]
            n = cells.n * w if ccodes is not None else w
            if ties == "half" and not F:
                Wb, Nb = _pair_totals(cells, n, M)
                pen = ridge if (ridge or np.any(Nb.sum(axis=1) == 0)) else 0.0
                pen = pen or (DEFAULT_RIDGE if separated_mask(Wb, Nb).any() else 0.0)
                out[r0 + r] = fit_bradley_terry(Wb, Nb, ridge=pen, tol=1e-8, start=theta)[0]
                continue
            if F:
                pr = _Rows(rows.a, rows.b, rows.x, rows.n * w, rows.s_sum * w, rows.nt * w)
            else:
                pr = _pair_rows(cells, n, M, ties)
            if ties == "davidson" and pr.nt.sum() >= pr.n.sum():
                raise _all_ties(
                    battles.name,
                    f"bootstrap replicate {r0 + r + 1} of {reps} drew only ties",
                    hint=f"use {option('interval', 'sandwich')} or {option('ties', 'half')}, "
                    "or add battles with a winner.",
                )
            out[r0 + r] = _fit_rows(pr, M, ties, _ridge(pr, M, ridge), theta)[0]
    return out


def _all_ties(file: str, what: str, *, hint: str) -> DataError:
    """The error for battles that are all ties under Davidson's model: its tie rate has no
    finite estimate (the fit's information is singular). METHODS 8b."""
    return DataError(
        f"{what}: Davidson's tie model has no finite tie rate to fit (the share of ties is 100%).",
        file=file,
        column="winner",
        hint=hint,
    )


def _ridge(rows: _Rows, M: int, ridge: float) -> float:
    """The ridge of a replicate: kept if the fit had one, added if a model lost all battles."""
    played = np.bincount(rows.a, rows.n, M) + np.bincount(rows.b, rows.n, M)
    return ridge or (DEFAULT_RIDGE if np.any(played == 0) else 0.0)
